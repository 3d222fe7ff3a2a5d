"""What the analyser reads for accelerate's ``Accelerator`` where the installed accelerate is not
read (``read-packages``). It is never imported.

A training script hands its model to the accelerator and takes it back (``model, optimizer =
accelerator.prepare(model, optimizer)``, ``accelerator.unwrap_model(model)``): on one process
accelerate gives the same objects back, on several the model wrapped in DistributedDataParallel,
which holds the same parameters. Its process is the one main process of a machine without a
GPU (``model.to(accelerator.device)``, ``if accelerator.is_main_process:``): what the analysis
counts does not depend on where the parameters live. Its ``mixed_precision="bf16"`` / ``"fp16"``
runs the model's forward under autocast in that dtype, as the analyser reads a training loop's
own ``torch.autocast`` (``"no"``, an autocast to float32: float32 throughout). What else an
Accelerator has (``backward``, ``gather``) is not written here: the analyser does not know it.

An ``fsdp_plugin`` or ``deepspeed_plugin`` the code gives shards the models ``prepare`` takes, as
accelerate 1.16's plugins say: FSDP's ``sharding_strategy`` (a name in any case, its number, or
torch's ``ShardingStrategy`` member; FULL_SHARD by default) for FSDP1, ``reshard_after_forward``
(True by default) for FSDP2 (``fsdp_version=2``); DeepSpeed's ``zero_stage`` (2 by default), or its
``hf_ds_config``'s stage (a dict or a JSON file, read as ``deepspeed.initialize`` reads one; an
``"auto"`` stage is the plugin's). Their defaults are those of a machine whose environment sets
none (``accelerate launch``'s config sets ``FSDP_*`` / ``ACCELERATE_DEEPSPEED_*`` variables, not read).

``accelerator.distributed_type`` (and the state's) is DistributedType.DEEPSPEED with a DeepSpeed
plugin, FSDP with an FSDP plugin, else NO: the run the plugins shard for (accelerate itself says NO
for an FSDP plugin on one process). ``accelerator.state`` answers what scripts ask of it before they pick an optimizer (accelerate's
no_trainer examples: ``AdamW if accelerator.state.deepspeed_plugin is None or "optimizer" not in
accelerator.state.deepspeed_plugin.deepspeed_config else DummyOptim``): the plugins given, or None.
A DeepSpeed plugin's ``deepspeed_config`` is its ``hf_ds_config``'s data (a dict, or a JSON file's),
else the config accelerate 1.16 makes of the plugin's arguments (no ``optimizer`` in it). A
``DummyOptim`` that ``prepare`` takes with a DeepSpeed plugin becomes the optimizer the config names,
made over the DummyOptim's parameters, as accelerate hands them to ``deepspeed.initialize``; where
the config names none, accelerate's ValueError. (Without a DeepSpeed plugin a DummyOptim optimizes
nothing: accelerate returns it as it is.)
"""

import enum

import torch
import torch.nn as nn

from deepspeed import config_data, config_settings, make_optimizer  # (shims/deepspeed.py: DeepSpeed's own reading)
from lsp_count_shim import is_known, member_name, optimizer_made, strategy_trained

# accelerate's FSDP_SHARDING_STRATEGY: a strategy's number is its place in it, from 1
_FSDP_STRATEGIES = ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2"]
_FSDP_STAGES = {"FULL_SHARD": 3, "SHARD_GRAD_OP": 2, "NO_SHARD": 0, "HYBRID_SHARD": 3, "HYBRID_SHARD_ZERO2": 2,
                "_HYBRID_SHARD_ZERO2": 2}
_TRUE = ("y", "yes", "t", "true", "on", "1")


def _strategy_name(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _FSDP_STRATEGIES[value - 1] if 1 <= value <= len(_FSDP_STRATEGIES) else None
    if isinstance(value, str):
        return _strategy_name(int(value)) if value.isdigit() else value.upper()
    return member_name(value)


class FullyShardedDataParallelPlugin:
    def __init__(self, fsdp_version=None, sharding_strategy=None, reshard_after_forward=None, cpu_offload=None,
                 **kwargs):
        self.stage = None
        self.offload = cpu_offload is True
        if not is_known(fsdp_version) or not is_known(sharding_strategy) or not is_known(reshard_after_forward):
            self.said = "accelerate's FSDP plugin, with settings the analysis does not know"
            return
        self.fsdp_version = 1 if fsdp_version is None else fsdp_version
        if self.fsdp_version == 2:
            reshard = True if reshard_after_forward is None else reshard_after_forward
            if isinstance(reshard, str):
                reshard = reshard.lower() in _TRUE
            self.stage = 3 if reshard is True else 2 if reshard is False else None
            self.said = "accelerate's FSDP2 plugin"
            return
        name = _strategy_name("FULL_SHARD" if sharding_strategy is None else sharding_strategy)
        self.stage = _FSDP_STAGES.get(name) if name is not None else None
        self.said = f"accelerate's FSDP plugin ({name})" if name is not None else "accelerate's FSDP plugin"


class DeepSpeedPlugin:
    def __init__(self, hf_ds_config=None, gradient_accumulation_steps=None, gradient_clipping=None, zero_stage=None,
                 is_train_batch_min=True, offload_optimizer_device=None, offload_param_device=None, **kwargs):
        stage = 2 if zero_stage is None else zero_stage
        self.offload = offload_optimizer_device not in (None, "none") or offload_param_device not in (None, "none")
        self.said = "accelerate's DeepSpeed plugin"
        if hf_ds_config is None:
            self.deepspeed_config = {
                "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
                "gradient_accumulation_steps": 1 if gradient_accumulation_steps is None else gradient_accumulation_steps,
                "zero_optimization": {"stage": stage,
                                      "offload_optimizer": {"device": offload_optimizer_device or "none"},
                                      "offload_param": {"device": offload_param_device or "none"}}}
        else:
            self.deepspeed_config = config_data(hf_ds_config)
            settings = config_settings(self.deepspeed_config, None)  # (a file's data, read once)
            if isinstance(settings, str):
                stage = None
                self.said = f"accelerate's DeepSpeed plugin, whose config is not read ({settings})"
            else:
                if settings[0] is not None:
                    stage = settings[0]  # (an "auto" stage: the plugin's)
                self.offload = settings[1]  # (the plugin's devices fill only the config's "auto" ones)
        self.zero_stage = stage
        self.stage = stage if is_known(stage) and stage in (0, 1, 2, 3) else None


class DistributedType(str, enum.Enum):
    NO = "NO"
    MULTI_CPU = "MULTI_CPU"
    MULTI_GPU = "MULTI_GPU"
    MULTI_NPU = "MULTI_NPU"
    MULTI_MLU = "MULTI_MLU"
    MULTI_SDAA = "MULTI_SDAA"
    MULTI_MUSA = "MULTI_MUSA"
    MULTI_XPU = "MULTI_XPU"
    DEEPSPEED = "DEEPSPEED"
    FSDP = "FSDP"
    XLA = "XLA"
    MEGATRON_LM = "MEGATRON_LM"
    MULTI_HPU = "MULTI_HPU"
    MULTI_NEURON = "MULTI_NEURON"


class DummyOptim:
    def __init__(self, params, lr=0.001, weight_decay=0, **kwargs):
        self.params = params
        self.lr = lr
        self.weight_decay = weight_decay
        self.kwargs = kwargs


class DummyScheduler:
    def __init__(self, optimizer, total_num_steps=None, warmup_num_steps=0, lr_scheduler_callable=None, **kwargs):
        self.optimizer = optimizer
        self.total_num_steps = total_num_steps
        self.warmup_num_steps = warmup_num_steps
        self.lr_scheduler_callable = lr_scheduler_callable
        self.kwargs = kwargs


# What an Accelerator and its state both say of the process
_STATE = ("deepspeed_plugin", "fsdp_plugin", "distributed_type", "mixed_precision", "device", "num_processes",
          "process_index", "local_process_index", "is_main_process", "is_local_main_process", "is_last_process")


class AcceleratorState:
    """What ``accelerator.state`` says of the one process (its plugins, as the Accelerator was given them)."""

    def __init__(self, accelerator):
        for name in _STATE:
            setattr(self, name, getattr(accelerator, name))


class Accelerator:
    def __init__(self, *args, **kwargs):
        self.fsdp_plugin = kwargs.get("fsdp_plugin")
        self.deepspeed_plugin = kwargs.get("deepspeed_plugin")
        precision = kwargs.get("mixed_precision")
        if precision in ("bf16", "fp16"):
            torch.autocast("cuda", dtype=torch.bfloat16 if precision == "bf16" else torch.float16)
        elif precision == "no":
            torch.autocast("cuda", dtype=torch.float32)  # (said so: float32 throughout)
        self.mixed_precision = "no" if precision is None else precision
        self.device = torch.device("cpu")
        self.num_processes = 1
        self.process_index = 0
        self.local_process_index = 0
        self.is_main_process = True
        self.is_local_main_process = True
        self.is_last_process = True
        if self.deepspeed_plugin is not None:
            self.distributed_type = DistributedType.DEEPSPEED
        elif self.fsdp_plugin is not None:
            self.distributed_type = DistributedType.FSDP
        else:
            self.distributed_type = DistributedType.NO
        self.state = AcceleratorState(self)

    def _shard(self, model):
        """The plugin's sharding of a model it prepares (none without a plugin)."""
        plugin = self.deepspeed_plugin if is_known(self.deepspeed_plugin) and self.deepspeed_plugin is not None \
            else self.fsdp_plugin
        if not is_known(plugin) or plugin is None or not is_known(model) or not isinstance(model, nn.Module):
            return
        if isinstance(plugin, (FullyShardedDataParallelPlugin, DeepSpeedPlugin)):
            strategy_trained(model, plugin.stage, plugin.said, plugin.offload, None)
        else:
            strategy_trained(model, None, "an accelerate plugin the analysis does not know", False, None)

    def _deepspeed_optimizer(self, dummy):
        """The optimizer DeepSpeed makes for a DummyOptim, as its config names it (accelerate's checks first)."""
        plugin = self.deepspeed_plugin
        if not is_known(plugin) or plugin is None or not isinstance(plugin, DeepSpeedPlugin):
            return dummy  # (accelerate returns it as it is: it optimizes nothing)
        config = plugin.deepspeed_config
        if not is_known(config):  # (a config file not read: the plugin says why; the model is still trained)
            optimizer_made("DeepSpeed makes the optimizer its config names (the config is not read)", "", dummy.params)
            return dummy
        if "optimizer" not in config:
            raise ValueError("You cannot create a `DummyOptim` without specifying an optimizer in the config file.")
        optimizer = config["optimizer"]
        kind = optimizer.get("type") if isinstance(optimizer, dict) else None
        if not isinstance(kind, str):
            optimizer_made("DeepSpeed makes the optimizer its config names (its type is not read)", "", dummy.params)
            return dummy
        params = optimizer.get("params", {})
        # accelerate fills the config's "auto" learning rate and weight decay with the DummyOptim's
        filled = {"lr": dummy.lr, "weight_decay": dummy.weight_decay}
        params = {k: filled[k] if v == "auto" and k in filled else v for k, v in params.items()} \
            if isinstance(params, dict) else {}
        return make_optimizer(kind, params, dummy.params)

    def prepare(self, *args, device_placement=None):
        for value in args:
            self._shard(value)
        args = tuple(self._deepspeed_optimizer(value) if is_known(value) and isinstance(value, DummyOptim) else value
                     for value in args)
        if len(args) == 1:
            return args[0]
        return args

    def prepare_model(self, model, device_placement=None, evaluation_mode=False):
        self._shard(model)
        return model

    def unwrap_model(self, model, keep_fp32_wrapper=True, keep_torch_compile=True):
        return model
