"""What the analyser reads for TRL's trainers and their configs where the installed trl is not read
(``read-packages``). It is never imported.

A TRL trainer takes a model, or a model id it loads itself, and, given a ``peft_config``, wraps the
model with peft's ``get_peft_model`` (trl 1.x, ``SFTTrainer.__init__`` and the others alike: the
model id through ``create_model_from_path``, then ``get_peft_model(model, peft_config)``). peft
puts its adapters into the model it is given, so the script's own ``model`` holds them too, as
``trainer.model`` does. A model that is already a ``PeftModel`` given with a ``peft_config`` is
refused, as trl refuses it. Where trl loads a reference model beside the policy (DPO and KTO without
a ``ref_model``, peft's adapters or precomputed reference log-probabilities; GRPO and RLOO with a
non-zero ``beta``), the analyser is told (``reference``), for the memory's frozen copy; a
``ref_model`` the script gives, or a distillation teacher, is handed to it (``given_reference``,
``teacher``), for a frozen model of its own size and dtype. What else a trainer does (datasets,
collators, the optimizer, gradient checkpointing's input hooks, QLoRA's adapters cast to bf16)
changes no parameter count; what else it has (``train``, ``save_model``) builds nothing. What its
config says of a training step (the batch per device, doubled where each example is a chosen and a
rejected sequence (DPO, reward), the sequence length, gradient checkpointing, the precision, the
optimizer and FSDP's or DeepSpeed's sharding; trl 1.x's defaults where the script sets none) is
handed to the analyser (``training_plan``) for the memory of the model it trains.
"""

import copy

import torch
import transformers
from lsp_count_shim import known, stop, training_plan
from peft import PeftModel, get_peft_model

_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def _model_from_path(model_id, architecture=None, **kwargs):
    # trl.trainer.utils.create_model_from_path: the dtype as text, and the class the config names
    dtype = kwargs.get("dtype", "float32")
    if isinstance(dtype, str) and dtype in _DTYPES:
        kwargs["dtype"] = _DTYPES[dtype]
    if architecture is None:
        config = known(transformers.AutoConfig.from_pretrained(model_id,
                                                               trust_remote_code=kwargs.get("trust_remote_code", False)))
        names = getattr(config, "architectures", None) or []
        architecture = getattr(transformers, names[0], None) if names else None
        if architecture is None:
            architecture = transformers.AutoModelForCausalLM
    return architecture.from_pretrained(model_id, **kwargs)


def create_reference_model(model, num_shared_layers=None, pattern=None):
    # trl 1.16's: a deepcopy of the model, each parameter frozen, in eval mode
    if num_shared_layers is not None:
        stop("trl's `create_reference_model` with `num_shared_layers` shares the first layers' storage with the "
             "model (and freezes them there), which the analyser does not follow")
    ref_model = copy.deepcopy(model)
    for param in ref_model.parameters():
        param.requires_grad = False
    return ref_model.eval()


class TrainerConfig:
    """trl's configs (a TrainingArguments with trl's defaults): what a trainer reads of them here
    are ``model_init_kwargs`` and what sizes a step's memory (the batch per device, gradient
    checkpointing, which trl turns on by default, bf16 mixed precision, trl's default where fp16 is
    not set, the optimizer, and, LengthConfig, the sequence length); each argument is kept as an
    attribute."""

    def __init__(self, output_dir=None, **kwargs):
        self.output_dir = output_dir
        self.model_init_kwargs = None
        self.per_device_train_batch_size = 8
        self.gradient_checkpointing = True
        self.bf16 = None  # trl: bf16 mixed precision unless fp16 is set
        self.fp16 = False
        for key, value in kwargs.items():
            setattr(self, key, value)


class LengthConfig(TrainerConfig):
    """SFTConfig, DPOConfig, KTOConfig, RewardConfig: a sequence length, 1,024 tokens by default."""

    def __init__(self, output_dir=None, **kwargs):
        self.max_length = 1024
        super().__init__(output_dir, **kwargs)


class _Trainer:
    _architecture = None  # the class a model id is loaded with; None: the one its config names
    _init_kwargs = {}
    _config = TrainerConfig  # what it makes where it is given no args
    _pairs = False  # a step's batch holds each example's chosen and rejected sequences (DPO, reward)
    # Whether trl loads a reference model beside the policy where the script gives none: None, never;
    # "log-probs", unless they are computed beforehand (DPO, KTO); a number, the default `beta`, where
    # one is loaded unless `beta` is 0 (GRPO, RLOO). Never for a policy with peft's adapters (they are
    # turned off for the reference).
    _reference = None

    def _take(self, model, args, peft_config, ref_model=None, teacher=None):
        ref_model = known(ref_model)  # (one the analyser cannot follow: its own reason)
        if args is None:
            args = self._config()
        if isinstance(model, str):
            init_kwargs = dict(getattr(args, "model_init_kwargs", None) or {})
            init_kwargs.update(self._init_kwargs)
            model = _model_from_path(model, self._architecture, **init_kwargs)
        if peft_config is not None:
            if isinstance(model, PeftModel):
                raise ValueError(
                    "You passed a `PeftModel` instance together with a `peft_config` to the trainer. Please first "
                    "merge and unload the existing adapter, save the resulting base model, and then pass that base "
                    "model along with the new `peft_config` to the trainer.")
            model = get_peft_model(model, peft_config)
        self.model = model
        self.model_wrapped = model
        self.args = args
        # What one training step holds: the batch per device, the sequence length, checkpointing, the
        # precision and the optimizer's states.
        bf16 = getattr(args, "bf16", None)
        fp16 = getattr(args, "fp16", False) is True
        precision = "fp16" if fp16 else "bf16" if bf16 is None or bf16 is True else "fp32"
        training_plan(model, type(self).__name__, batch=getattr(args, "per_device_train_batch_size", None),
                      context=getattr(args, "max_length", None),
                      gradient_checkpointing=getattr(args, "gradient_checkpointing", None), pairs=self._pairs,
                      optimizer=getattr(args, "optim", None), optim_args=getattr(args, "optim_args", None),
                      precision=precision, library="trl", reference=self._loads_reference(model, args, ref_model),
                      given_reference=ref_model, teacher=teacher, fsdp=getattr(args, "fsdp", None),
                      fsdp_config=getattr(args, "fsdp_config", None), deepspeed=getattr(args, "deepspeed", None))

    def _loads_reference(self, model, args, ref_model):
        if self._reference is None or ref_model is not None or isinstance(model, PeftModel):
            return False
        if self._reference == "log-probs":
            return getattr(args, "precompute_ref_log_probs", False) is not True
        return getattr(args, "beta", self._reference) != 0

    def train(self, *args, **kwargs):
        return None

    def evaluate(self, *args, **kwargs):
        return {}

    def save_model(self, *args, **kwargs):
        return None

    def push_to_hub(self, *args, **kwargs):
        return None

    def log_metrics(self, *args, **kwargs):
        return None

    def save_metrics(self, *args, **kwargs):
        return None

    def save_state(self, *args, **kwargs):
        return None


class SFTTrainer(_Trainer):
    _config = LengthConfig

    def __init__(self, model, args=None, data_collator=None, train_dataset=None, eval_dataset=None,
                 processing_class=None, *rest, peft_config=None, **kwargs):
        self._take(model, args, peft_config)


class RewardTrainer(_Trainer):
    _config = LengthConfig
    _pairs = True
    _architecture = transformers.AutoModelForSequenceClassification
    _init_kwargs = {"num_labels": 1}  # the reward is the model's one output

    def __init__(self, model, args=None, data_collator=None, train_dataset=None, eval_dataset=None,
                 processing_class=None, *rest, peft_config=None, **kwargs):
        self._take(model, args, peft_config)


class DPOTrainer(_Trainer):
    _config = LengthConfig
    _pairs = True
    _reference = "log-probs"

    def __init__(self, model, ref_model=None, args=None, *rest, peft_config=None, **kwargs):
        self._take(model, args, peft_config, ref_model)
        self.ref_model = ref_model


class KTOTrainer(DPOTrainer):
    _pairs = False  # unpaired examples


class GRPOTrainer(_Trainer):
    _reference = 0.0  # GRPOConfig's beta

    def __init__(self, model, reward_funcs=None, args=None, *rest, peft_config=None, **kwargs):
        self._take(model, args, peft_config)
        self.reward_funcs = reward_funcs


class RLOOTrainer(GRPOTrainer):
    _reference = 0.05  # RLOOConfig's beta


class GKDTrainer(_Trainer):
    _config = LengthConfig  # GKDConfig is an SFTConfig

    def __init__(self, model=None, teacher_model=None, args=None, *rest, peft_config=None, **kwargs):
        if isinstance(teacher_model, str):
            # trl 1.16's experimental GKD: AutoModelForCausalLM with teacher_model_init_kwargs, whose dtype,
            # where they set none, is transformers' default
            init_kwargs = dict(getattr(args, "teacher_model_init_kwargs", None) or {})
            teacher_model = transformers.AutoModelForCausalLM.from_pretrained(teacher_model, **init_kwargs)
        self._take(model, args, peft_config, teacher=teacher_model)
        self.teacher_model = teacher_model


class DistillationTrainer(_Trainer):
    def __init__(self, model, teacher_model=None, args=None, *rest, peft_config=None, **kwargs):
        if isinstance(teacher_model, str):
            # trl 1.16: loaded with the config's teacher_model_init_kwargs, whose dtype, where it sets
            # none, is None (transformers' default), not create_model_from_path's float32
            init_kwargs = dict(getattr(args, "teacher_model_init_kwargs", None) or {})
            init_kwargs.setdefault("dtype", None)
            teacher_model = _model_from_path(teacher_model, **init_kwargs)
        self._take(model, args, peft_config, teacher=teacher_model)
        self.teacher_model = teacher_model
