"""What the analyser reads for DeepSpeed's ``deepspeed.initialize`` where the installed deepspeed is
not read (``read-packages``). It is never imported.

``engine, optimizer, loader, scheduler = deepspeed.initialize(model=model, model_parameters=
model.parameters(), config=ds_config)`` hands the model to DeepSpeed's engine, which trains it as its
config says (DeepSpeed 0.19's DeepSpeedConfig):

- ``zero_optimization.stage`` (0 where the config has none) shards it over the data-parallel GPUs;
  ``offload_optimizer`` / ``offload_param`` are said, not modelled;
- ``bf16`` (or ``bfloat16``) / ``fp16`` enabled trains it in that mixed precision: DeepSpeed keeps the
  fp32 master weights in its optimizer, the bytes of torch's autocast over float32 parameters, which is
  how it is recorded here; ``torch_autocast`` or ``amp`` enabled is not read; none of them, float32
  throughout;
- its ``optimizer`` is made over ``model_parameters`` (the model's parameters where none are given):
  DeepSpeed's own Adam, AdamW, LAMB and MuAdam(W) keep two fp32 states, Lion and Adagrad one, MuSGD's
  and Muon's are not modelled; any other ``type`` is ``torch.optim``'s, made with the
  config's ``params``. An ``optimizer`` the script passes is used instead, as DeepSpeed does;
- the DataLoader it makes of ``training_data`` has ``train_micro_batch_size_per_gpu`` as its batch
  (where the config gives only ``train_batch_size``, the batch of each GPU depends on their number,
  which the code does not say: not read).

The config is a dict, the path of a JSON file (beside the script or in the project; DeepSpeed reads
it from the directory the program runs in), ``config_params`` (its older name) or the
``--deepspeed_config`` that ``deepspeed.add_config_arguments`` adds to the script's parser (its
default, None, where the command line is not known). One the analysis does not know still trains
the model: with an optimizer whose states are not known, and its sharding and precision said not
read. The engine holds the model as ``module``; its forward is the model's, and its ``backward`` and
``step`` are a training step's.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from lsp_count_shim import attempt, is_known, optimizer_made, read_json, reason, strategy_trained

# DeepSpeed's own optimizers (runtime/config.py's DEEPSPEED_OPTIMIZERS) by the memory model's name
# for the fp32 states each keeps per parameter ("": not modelled, AdamW's assumed and said).
# (0.19 removed the 1-bit Adam and LAMB, and 0/1 Adam: their names are taken as torch.optim's, which
# has none of them.)
_OPTIMIZERS = {"adam": "adamw", "adamw": "adamw", "lamb": "adamw", "muadam": "adamw", "muadamw": "adamw",
               "lion": "sgd-momentum", "adagrad": "sgd-momentum", "musgd": "", "muon": ""}


class DeepSpeedEngine(nn.Module):
    def __init__(self, model, optimizer, training_dataloader, lr_scheduler, config):
        super().__init__()
        self.module = model
        self.optimizer = optimizer
        self.training_dataloader = training_dataloader
        self.lr_scheduler = lr_scheduler
        self.config = config
        self.local_rank = 0
        self.global_rank = 0
        self.world_size = 1
        self.device = torch.device("cpu")

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def backward(self, loss, *args, **kwargs):
        return loss

    def step(self, *args, **kwargs):
        return None

    def zero_grad(self, *args, **kwargs):
        return None

    def is_gradient_accumulation_boundary(self):
        return True

    def save_checkpoint(self, *args, **kwargs):
        return True

    def load_checkpoint(self, *args, **kwargs):
        return None, {}

    def get_lr(self):
        return []


class DeepSpeedOptimizer:
    """The optimizer the engine made of its config (its states are the memory's, not this object's)."""

    def __init__(self, name):
        self.name = name
        self.param_groups = []

    def step(self, *args, **kwargs):
        return None

    def zero_grad(self, *args, **kwargs):
        return None

    def state_dict(self):
        return {}


def add_config_arguments(parser):
    group = parser.add_argument_group("DeepSpeed", "DeepSpeed configurations")
    group.add_argument("--deepspeed", default=False, action="store_true")
    group.add_argument("--deepspeed_config", default=None, type=str)
    group.add_argument("--deepscale", default=False, action="store_true")
    group.add_argument("--deepscale_config", default=None, type=str)
    return parser


def init_distributed(*args, **kwargs):
    return None


_TRUE = ("1", "true", "yes", "on", "t", "y")


def _section(data, key):
    section = data.get(key)
    return section if isinstance(section, dict) else {}


def _flag(value):
    """A switch as DeepSpeed's pydantic models read it (``true``, ``1``, ``"yes"``)."""
    if value is True or value is False:
        return value
    if isinstance(value, (int, float)):
        return value == 1
    return isinstance(value, str) and value.lower() in _TRUE


def _offloads(zero, key):
    section = zero.get(key)
    return isinstance(section, dict) and section.get("device", "none") != "none"


def _settings(data):
    """(ZeRO stage, whether it offloads, the dtype it trains in or None where not read, the optimizer's
    type and params, the micro batch) of a config's data, as DeepSpeedConfig reads them."""
    zero = data.get("zero_optimization", {})
    if isinstance(zero, bool):
        zero = {"stage": 1 if zero else 0}  # (its deprecated form)
    zero = zero if isinstance(zero, dict) else {}
    stage = zero.get("stage", 0)
    offload = _offloads(zero, "offload_optimizer") or _offloads(zero, "offload_param") or \
        _flag(zero.get("cpu_offload", False)) or _flag(zero.get("cpu_offload_param", False))
    bf16 = data.get("bf16")
    bf16 = bf16 if bf16 is not None else data.get("bfloat16", {})  # ("bf16" first, as DeepSpeed reads them)
    if isinstance(bf16, dict) and _flag(bf16.get("enabled", False)):
        dtype = "bfloat16"
    elif _flag(_section(data, "fp16").get("enabled", False)):
        dtype = "float16"
    elif _section(data, "torch_autocast").get("enabled", False) or _flag(_section(data, "amp").get("enabled", False)):
        dtype = None  # (torch's autocast under DeepSpeed's module lists, apex's AMP: not modelled)
    else:
        dtype = "float32"
    optimizer = _section(data, "optimizer")
    micro = data.get("train_micro_batch_size_per_gpu")
    return (stage if stage in (0, 1, 2, 3) and not isinstance(stage, bool) else None, offload, dtype,
            optimizer.get("type"), _section(optimizer, "params"),
            micro if isinstance(micro, int) and not isinstance(micro, bool) and micro > 0 else None)


def _config_data(config, args):
    """The config's data (a dict), or why the analysis does not know it (a str)."""
    if is_known(config) and config is None and is_known(args) and args is not None:
        config = getattr(args, "deepspeed_config", None)
        if is_known(config) and config is None:
            config = getattr(args, "deepscale_config", None)
    if is_known(config) and config is None:
        return "none is given (DeepSpeed requires one: --deepspeed_config names it on the command line)"
    config = config_data(config)
    if not is_known(config):
        return reason(config)
    return config if isinstance(config, dict) else "it is neither a dict nor the path of a JSON file"


def config_data(config):
    """The config's data as DeepSpeed reads it: a dict as it is, a path's JSON (or, where the file is not
    read, the reason, as an unknown value); shims/accelerate.py's ``DeepSpeedPlugin.deepspeed_config``."""
    return attempt(read_json, config) if is_known(config) and isinstance(config, str) else config


def config_settings(config, args):
    """_settings of the config (or ``args.deepspeed_config``), or why the analysis does not know it (a str;
    also shims/lightning_trainer.py's DeepSpeedStrategy(config=...))."""
    data = _config_data(config, args)
    settings = attempt(_settings, data) if isinstance(data, dict) else data
    return settings if is_known(settings) else reason(settings)


def make_optimizer(kind_name, params, model_parameters):
    """The config's optimizer over the parameters, recorded for the model's memory; its name as said."""
    name = kind_name.lower()
    if name in _OPTIMIZERS:
        optimizer_made(f"DeepSpeed makes its config's optimizer `{kind_name}`", _OPTIMIZERS[name], model_parameters)
        return DeepSpeedOptimizer(kind_name)
    return getattr(torch.optim, kind_name)(model_parameters, **params)  # (torch's: its own states)


def initialize(args=None, model=None, optimizer=None, model_parameters=None, training_data=None, lr_scheduler=None,
               distributed_port=29500, mpu=None, dist_init_required=None, collate_fn=None, config=None,
               mesh_param=None, config_params=None):
    if is_known(model) and model is None:
        raise AssertionError("deepspeed.initialize requires a model")
    if is_known(config) and config is None and (not is_known(config_params) or config_params is not None):
        config = config_params
    settings = config_settings(config, args)
    if is_known(model_parameters) and model_parameters is None:
        model_parameters = model.parameters()
    micro = None
    if isinstance(settings, str):
        strategy_trained(model, None, f"DeepSpeed's config ({settings})", False, None)
        if is_known(optimizer) and optimizer is None:
            optimizer_made("DeepSpeed makes the optimizer its config names (the config is not read)", "",
                           model_parameters)
            optimizer = DeepSpeedOptimizer("")
    else:
        stage, offload, dtype, kind_name, params, micro = settings
        known = is_known(stage) and stage is not None
        strategy_trained(model, stage if known else None, "DeepSpeed's config" if known else
                         "DeepSpeed's config (its zero_optimization.stage is not one of 0-3, which DeepSpeed refuses)",
                         offload is True, None)
        if is_known(dtype) and dtype in ("bfloat16", "float16", "float32"):
            torch.autocast("cuda", dtype=getattr(torch, dtype))
        if is_known(optimizer) and optimizer is None and is_known(kind_name) and isinstance(kind_name, str):
            optimizer = attempt(make_optimizer, kind_name, params, model_parameters)
        if not is_known(micro):
            micro = None
    loader = None
    if not is_known(training_data) or training_data is not None:  # (a dataset the analysis does not know: one still)
        loader = DataLoader(training_data, batch_size=micro, collate_fn=collate_fn)
    engine = DeepSpeedEngine(model, optimizer, loader, lr_scheduler, config)
    return engine, optimizer, loader, lr_scheduler
