"""What the analyser reads for Lightning's ``Fabric`` where the installed lightning is not read
(``read-packages``). It is never imported.

A Fabric script hands its model and optimizers to Fabric and takes them back (``model, optimizer =
fabric.setup(model, optimizer)``): on one process, Fabric gives back the same module wrapped in a
``_FabricModule`` that holds the same parameters, the main process of a machine without a GPU
(``fabric.device``, ``fabric.is_global_zero``): what the analysis counts does not depend on where
the parameters live. ``launch(fn, *args)`` runs ``fn(fabric, *args)``, as Fabric does on one
process. Its ``precision``: ``"bf16-mixed"`` / ``"16-mixed"`` (and their short names) run the
forward under autocast in that dtype, as the analyser reads a loop's own ``torch.autocast``;
``"bf16-true"`` / ``"16-true"`` convert the module's parameters in ``setup``, as Fabric does;
``"32-true"``, the default, is float32 throughout. What else a Fabric has (``backward``, ``all_gather``) is not
written here.
"""

import torch

_MIXED = {"bf16-mixed": torch.bfloat16, "bf16": torch.bfloat16, "16-mixed": torch.float16, "16": torch.float16,
          16: torch.float16}
_TRUE = {"bf16-true": torch.bfloat16, "16-true": torch.float16, "64-true": torch.float64, "64": torch.float64,
         64: torch.float64}
_FLOAT32 = ("32-true", "32", 32)  # (said so: an autocast to float32, which computes in float32)


def lightning_precision(precision):
    """A Lightning precision given (Fabric's, and the Trainer's of shims/lightning_trainer.py): a
    mixed one's autocast, "32-true"'s to float32, recorded as the analyser records a loop's own;
    the dtype a "-true" one converts the module's parameters to (None for any other)."""
    if precision in _MIXED:
        torch.autocast("cuda", dtype=_MIXED[precision])
    elif precision in _FLOAT32:
        torch.autocast("cuda", dtype=torch.float32)
    return _TRUE.get(precision)


class Fabric:
    def __init__(self, *args, **kwargs):
        self._true_dtype = lightning_precision(kwargs.get("precision"))
        self.device = torch.device("cpu")
        self.world_size = 1
        self.global_rank = 0
        self.local_rank = 0
        self.node_rank = 0
        self.is_global_zero = True

    def launch(self, function=None, *args, **kwargs):
        if function is None:
            return None
        return function(self, *args, **kwargs)

    def setup(self, module, *optimizers, move_to_device=True, _reapply_compile=True):
        module = self.setup_module(module)
        if optimizers:
            return (module, *optimizers)
        return module

    def setup_module(self, module, move_to_device=True, _reapply_compile=True):
        if self._true_dtype is not None:
            module.to(self._true_dtype)
        return module

    def setup_optimizers(self, *optimizers):
        if len(optimizers) == 1:
            return optimizers[0]
        return optimizers

    def setup_dataloaders(self, *dataloaders, use_distributed_sampler=True, move_to_device=True):
        if len(dataloaders) == 1:
            return dataloaders[0]
        return dataloaders
