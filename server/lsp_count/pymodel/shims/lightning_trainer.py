"""What the analyser reads for Lightning's ``Trainer`` (lightning 2.x, pytorch_lightning) where the
installed lightning is not read (``read-packages``). It is never imported.

``fit(model, ...)`` does to the model what Lightning does before the first step, for the memory of
its training: the precision plugin's (``"bf16-true"`` / ``"16-true"`` convert the module's
parameters; ``"bf16-mixed"`` / ``"16-mixed"``, and the short ``"bf16"`` / ``"16"``, run the steps
under autocast in that dtype, as the analyser reads a loop's own ``torch.autocast``; the default is
``"32-true"``), then the module's ``configure_optimizers()``, whose optimizer over the model's
parameters makes it a model trained with it. Where the analyser cannot follow
``configure_optimizers`` to its end (a scheduler that asks the data's length), what it made before
stays. Before that it runs Lightning's hooks in Lightning's order: the datamodule's and the module's
``setup("fit")`` and the module's ``configure_model()`` (layers built there are counted and
converted). The batch of its steps is its training DataLoader's ``batch_size`` (shims/torch_data.py):
the ``train_dataloaders`` given, or the ``train_dataloader()`` of the datamodule (after its
``setup``, which may divide the batch by the Trainer's ``world_size``) or of the module.
Its ``strategy`` (a registered name: ``"fsdp"``, ``"deepspeed_stage_3"``, ``"ddp"``; or a
``FSDPStrategy`` / ``DeepSpeedStrategy`` / ``DDPStrategy``) shards its training as that ZeRO stage
over its ``devices`` × ``num_nodes``, where the code says how many. ``validate``, ``test`` and
``predict`` build nothing.
"""

from deepspeed import config_settings  # (shims/deepspeed.py: DeepSpeed's own reading of its config)
from fabric import lightning_precision  # (shims/fabric.py: the same precision plugins)
from lsp_count_shim import attempt, defines, is_known, loaders_trained, member_name, strategy_trained

# Lightning's registered strategies by name: the ZeRO stage whose memory each holds on a device
# (FSDP's default, FULL_SHARD, shards the parameters too: 3; DeepSpeedStrategy's default stage is 2;
# DDP replicates the whole model: 0).
_STAGES = {"fsdp": 3, "fsdp_cpu_offload": 3, "deepspeed": 2, "deepspeed_stage_1": 1, "deepspeed_stage_2": 2,
           "deepspeed_stage_2_offload": 2, "deepspeed_stage_3": 3, "deepspeed_stage_3_offload": 3,
           "deepspeed_stage_3_offload_nvme": 3}
_FSDP_STAGES = {"FULL_SHARD": 3, "HYBRID_SHARD": 3, "SHARD_GRAD_OP": 2, "_HYBRID_SHARD_ZERO2": 2, "NO_SHARD": 0}


class DDPStrategy:
    def __init__(self, *args, **kwargs):
        self.stage = 0
        self.said = "DDP"


class FSDPStrategy:
    def __init__(self, *args, sharding_strategy="FULL_SHARD", cpu_offload=None, **kwargs):
        # (a name, in any case, as Lightning upper-cases it; or torch's ShardingStrategy member)
        name = sharding_strategy.upper() if isinstance(sharding_strategy, str) else member_name(sharding_strategy)
        self.stage = _FSDP_STAGES.get(name) if name is not None else None
        self.said = f"FSDP ({name})" if name is not None else "FSDP"
        self.offload = cpu_offload is True


class DeepSpeedStrategy:
    def __init__(self, *args, zero_optimization=True, stage=2, offload_optimizer=False, offload_parameters=False,
                 config=None, **kwargs):
        if is_known(config) and config is None:
            stage = stage if zero_optimization else 0
            offload = offload_optimizer is True or offload_parameters is True
        else:  # its own DeepSpeed config (a dict, or a JSON file's path): the stage it says
            settings = config_settings(config, None)
            stage, offload = (None, False) if isinstance(settings, str) else settings[:2]
        self.stage = stage if is_known(stage) and stage in (0, 1, 2, 3) else None
        self.said = f"DeepSpeed ZeRO-{stage}" if self.stage is not None else "DeepSpeed, with a config not read"
        self.offload = offload


def _call_hook(owner, name, *args):
    """``owner.name(*args)`` where it has one (Lightning's ``is_overridden`` / ``_call_lightning_module_hook``);
    None where it has none."""
    hook = getattr(owner, name, None)
    return hook(*args) if hook is not None else None


def _default_precision(precision):
    return "32-true" if precision is None else precision


def _world_size(devices):
    return devices if devices is not None else 1


def _apply_precision(model, precision):
    """The precision plugin's: a "-true" precision converts the module's parameters."""
    dtype = lightning_precision(precision)
    if dtype is not None:
        model.to(dtype)


def _datamodule_of(loaders, datamodule):
    """The datamodule a fit is given, where it is given in the loaders' place too."""
    if datamodule is None and defines(loaders, "train_dataloader"):
        return loaders
    return datamodule


def _attach(datamodule, trainer):
    if datamodule is not None:
        datamodule.trainer = trainer


def _training_loaders(given, datamodule, model):
    """The DataLoaders a fit trains on: those given, else the datamodule's, else the module's own."""
    if given is not None:
        return given
    return _call_hook(datamodule if datamodule is not None else model, "train_dataloader")


def _devices(devices, num_nodes):
    """The devices the run trains on, where the code says how many: None for "auto" and -1 (all
    there are, which the analysis does not know)."""
    count = len(devices) if isinstance(devices, (list, tuple)) else devices if isinstance(devices, int) \
        and not isinstance(devices, bool) and devices > 0 else None
    if count is None or not isinstance(num_nodes, int) or num_nodes < 1:
        return None
    return count * num_nodes


class Trainer:
    def __init__(self, *args, strategy="auto", devices="auto", num_nodes=1, precision=None, callbacks=None,
                 max_epochs=None, max_steps=-1, accumulate_grad_batches=1, **kwargs):
        # (Values the analysis does not know stay so: each read under `attempt`, never a condition
        # that stops the Trainer or its fit.)
        self.strategy = strategy
        self.num_devices = attempt(_devices, devices, num_nodes)
        self.precision = attempt(_default_precision, precision)
        self._given_precision = precision  # (None: the default, "32-true", not said by the code)
        self.callbacks = list(callbacks or [])
        self.max_epochs = max_epochs
        self.max_steps = max_steps
        self.accumulate_grad_batches = accumulate_grad_batches
        self.global_step = 0
        self.current_epoch = 0
        self.global_rank = 0
        self.local_rank = 0
        self.world_size = attempt(_world_size, self.num_devices)  # (a datamodule's per-device batch divides by it)
        self.is_global_zero = True
        self.callback_metrics = {}
        self.logged_metrics = {}
        self.model = None

    def fit(self, model, train_dataloaders=None, val_dataloaders=None, datamodule=None, ckpt_path=None):
        datamodule = attempt(_datamodule_of, train_dataloaders, datamodule)
        if defines(train_dataloaders, "train_dataloader"):
            train_dataloaders = None  # (a datamodule given in the loaders' place, as Lightning takes it)
        self.model = model
        self.datamodule = datamodule
        model.trainer = self  # (`self.trainer.model.parameters()` in configure_optimizers)
        attempt(_attach, datamodule, self)  # (`self.trainer.world_size` in its setup)
        # Lightning's hooks before the first step, in its order: the datamodule's and the module's
        # `setup("fit")`, then the module's `configure_model()` (where a module meant to be sharded
        # builds its layers); then the precision plugin converts the parameters.
        for owner in (datamodule, model):
            try:
                attempt(_call_hook, owner, "setup", "fit")
            except Exception:
                pass  # (a dataset it cannot make: what the hook set before stays)
        attempt(_call_hook, model, "configure_model")
        attempt(_apply_precision, model, self._given_precision)
        # The batches of its steps: the training DataLoaders it is given, else the datamodule's, else
        # the module's own.
        loaders_trained(model, attempt(_training_loaders, train_dataloaders, datamodule, model))
        attempt(self._train_with_strategy, model)
        configure = getattr(model, "configure_optimizers", None)
        if configure is not None:
            try:
                attempt(configure)
            except Exception:
                pass  # (an error past the optimizer: Lightning would stop there, the optimizer made)
        return None

    def _train_with_strategy(self, model):
        """The strategy's sharding of the model's training over its devices, handed to the analyser
        (a strategy of none: "auto", one device, or one the analysis does not know, hands nothing)."""
        strategy = self.strategy
        if not is_known(strategy):
            strategy_trained(model, None, "a Lightning strategy the analysis does not know", False, None)
            return
        if isinstance(strategy, str):
            if strategy.startswith("ddp"):
                stage, said, offload = 0, "DDP", False
            elif strategy in _STAGES:
                stage, said, offload = _STAGES[strategy], strategy, "offload" in strategy
            else:
                return
        elif isinstance(strategy, (DDPStrategy, FSDPStrategy, DeepSpeedStrategy)):
            stage, said, offload = strategy.stage, strategy.said, getattr(strategy, "offload", False)
        else:
            return
        strategy_trained(model, stage, f"Lightning's strategy `{said}`", offload, self.num_devices)

    def validate(self, *args, **kwargs):
        return []

    def test(self, *args, **kwargs):
        return []

    def predict(self, *args, **kwargs):
        return None

    def save_checkpoint(self, *args, **kwargs):
        return None
