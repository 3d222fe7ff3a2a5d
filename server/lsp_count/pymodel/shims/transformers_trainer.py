"""What the analyser reads for transformers' ``Trainer``, read or not, and for the
``__post_init__`` of the installed transformers' ``TrainingArguments``. It is never imported.

transformers' own ``Trainer.__init__`` sets up accelerate, the devices, the memory tracker and
the model's place, and ``TrainingArguments.__post_init__`` validates the arguments against the
machine (torch's version, CUDA, environment variables): nothing the analyser follows, and nothing
that changes a parameter count. What is kept:

- the trainer keeps the model it is given, or builds it with ``model_init`` (called with no
  argument, or with the trial, None, where it takes one), and refuses, as transformers refuses, a
  call with neither or both; with no ``args`` it makes ``TrainingArguments(output_dir="tmp_trainer")``;
- what its arguments say of a training step (the batch per device, gradient checkpointing, the
  optimizer, bf16 or fp16 mixed precision, FSDP's or DeepSpeed's sharding as written: the analyser
  reads the stage) is handed to the analyser (``training_plan``) for the
  memory of the model it trains, and whether the script gives it an optimizer of its own
  (``optimizers=(optimizer, scheduler)``), which it then uses;
- what else it has (``train``, ``evaluate``, ``save_model``, callbacks) builds nothing here;
- ``TrainingArguments``: where transformers is read, its fields and their defaults are the
  installed transformers' own; of its ``__post_init__``, the output directory's default and
  transformers 5's ``gradient_checkpointing``, the deprecated alias of ``activation_checkpointing``
  (the two end equal; None is False). Where it is not read, this file's ``TrainingArguments``
  keeps each argument, with transformers' defaults for what sizes a step.
"""

from lsp_count_shim import training_plan
from transformers import TrainingArguments


def training_arguments_post_init(self):
    if self.output_dir is None:
        self.output_dir = "trainer_output"
    if hasattr(self, "activation_checkpointing"):
        if self.activation_checkpointing is None and self.gradient_checkpointing is not None:
            self.activation_checkpointing = self.gradient_checkpointing
        if self.activation_checkpointing is None:
            self.activation_checkpointing = False
        self.gradient_checkpointing = self.activation_checkpointing


class TrainingArguments:
    def __init__(self, output_dir=None, **kwargs):
        self.output_dir = "trainer_output" if output_dir is None else output_dir
        self.per_device_train_batch_size = 8
        self.gradient_checkpointing = False
        self.bf16 = False
        self.fp16 = False
        self.optim = "adamw_torch"
        for key, value in kwargs.items():
            setattr(self, key, value)


class Trainer:
    def __init__(self, model=None, args=None, data_collator=None, train_dataset=None, eval_dataset=None,
                 processing_class=None, model_init=None, compute_loss_func=None, compute_metrics=None, callbacks=None,
                 optimizers=(None, None), optimizer_cls_and_kwargs=None, preprocess_logits_for_metrics=None,
                 tokenizer=None):
        if args is None:
            args = TrainingArguments(output_dir="tmp_trainer")
        self.args = args
        if model is None:
            if model_init is None:
                raise RuntimeError("`Trainer` requires either a `model` or `model_init` argument")
            self.model_init = model_init
            model = self.call_model_init()
        elif model_init is not None:
            raise ValueError("`Trainer` requires either a `model` or `model_init` argument, but not both.")
        else:
            self.model_init = None
        self.model = model
        self.model_wrapped = model
        self.processing_class = processing_class if processing_class is not None else tokenizer
        self.data_collator = data_collator
        self.train_dataset = train_dataset
        self.eval_dataset = eval_dataset
        self.compute_metrics = compute_metrics
        self.optimizer, self.lr_scheduler = optimizers
        self.callbacks = list(callbacks or [])
        precision = "bf16" if getattr(args, "bf16", False) is True else "fp16" if getattr(args, "fp16", False) is True \
            else "fp32"
        # What one training step holds: the batch per device, checkpointing, the optimizer's states.
        training_plan(model, type(self).__name__, batch=getattr(args, "per_device_train_batch_size", None),
                      gradient_checkpointing=getattr(args, "gradient_checkpointing", None),
                      optimizer=getattr(args, "optim", None), optim_args=getattr(args, "optim_args", None),
                      precision=precision, library="transformers",
                      given_optimizer=optimizers[0], fsdp=getattr(args, "fsdp", None),
                      fsdp_config=getattr(args, "fsdp_config", None), deepspeed=getattr(args, "deepspeed", None))

    def call_model_init(self, trial=None):
        try:
            model = self.model_init()
        except TypeError:
            model = self.model_init(trial)
        if model is None:
            raise RuntimeError("model_init should not return None.")
        return model

    def train(self, *args, **kwargs):
        return None

    def evaluate(self, *args, **kwargs):
        return {}

    def predict(self, *args, **kwargs):
        return None

    def save_model(self, *args, **kwargs):
        return None

    def save_state(self, *args, **kwargs):
        return None

    def log(self, *args, **kwargs):
        return None

    def log_metrics(self, *args, **kwargs):
        return None

    def save_metrics(self, *args, **kwargs):
        return None

    def push_to_hub(self, *args, **kwargs):
        return None

    def create_model_card(self, *args, **kwargs):
        return None

    def add_callback(self, callback):
        self.callbacks.append(callback)

    def remove_callback(self, callback):
        return None

    def is_world_process_zero(self):
        return True

    def is_local_process_zero(self):
        return True
