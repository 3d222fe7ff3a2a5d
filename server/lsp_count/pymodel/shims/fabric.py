"""What the analyser reads for Lightning's ``Fabric`` where the installed lightning is not read
(``read-packages``). It is never imported.

A Fabric script hands its model and optimizers to Fabric and takes them back (``model, optimizer =
fabric.setup(model, optimizer)``): on one process, Fabric gives back the same module wrapped in a
``_FabricModule`` that holds the same parameters, the main process of a machine without a GPU
(``fabric.device``, ``fabric.is_global_zero``): what the analysis counts does not depend on where
the parameters live. ``launch(fn, *args)`` runs ``fn(fabric, *args)``, as Fabric does on one
process. What else a Fabric has (``backward``, ``all_gather``) is not written here.
"""

import torch


class Fabric:
    def __init__(self, *args, **kwargs):
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
        if optimizers:
            return (module, *optimizers)
        return module

    def setup_module(self, module, move_to_device=True, _reapply_compile=True):
        return module

    def setup_optimizers(self, *optimizers):
        if len(optimizers) == 1:
            return optimizers[0]
        return optimizers

    def setup_dataloaders(self, *dataloaders, use_distributed_sampler=True, move_to_device=True):
        if len(dataloaders) == 1:
            return dataloaders[0]
        return dataloaders
