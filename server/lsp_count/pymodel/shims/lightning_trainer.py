"""What the analyser reads for Lightning's ``Trainer`` (lightning 2.x, pytorch_lightning) where the
installed lightning is not read (``read-packages``). It is never imported.

``fit(model, ...)`` does to the model what Lightning does before the first step, for the memory of
its training: the precision plugin's (``"bf16-true"`` / ``"16-true"`` convert the module's
parameters; ``"bf16-mixed"`` / ``"16-mixed"``, and the short ``"bf16"`` / ``"16"``, run the steps
under autocast in that dtype, as the analyser reads a loop's own ``torch.autocast``; the default is
``"32-true"``), then the module's ``configure_optimizers()``, whose optimizer over the model's
parameters makes it a model trained with it. Where the analyser cannot follow
``configure_optimizers`` to its end (a scheduler that asks the data's length), what it made before
stays. The batch of its steps is its training DataLoader's ``batch_size`` (shims/torch_data.py):
the ``train_dataloaders`` given, or the ``train_dataloader()`` of the datamodule or of the module.
The devices and the strategy are not read; ``validate``, ``test`` and ``predict`` build nothing.
"""

from fabric import lightning_precision  # (shims/fabric.py: the same precision plugins)
from lsp_count_shim import attempt, loaders_trained


class Trainer:
    def __init__(self, *args, precision=None, callbacks=None, max_epochs=None, max_steps=-1,
                 accumulate_grad_batches=1, **kwargs):
        self.precision = "32-true" if precision is None else precision
        self._given_precision = precision  # (None: the default, "32-true", not said by the code)
        self.callbacks = list(callbacks or [])
        self.max_epochs = max_epochs
        self.max_steps = max_steps
        self.accumulate_grad_batches = accumulate_grad_batches
        self.global_step = 0
        self.current_epoch = 0
        self.global_rank = 0
        self.local_rank = 0
        self.world_size = 1
        self.is_global_zero = True
        self.callback_metrics = {}
        self.logged_metrics = {}
        self.model = None

    def fit(self, model, train_dataloaders=None, val_dataloaders=None, datamodule=None, ckpt_path=None):
        self.model = model
        model.trainer = self  # (`self.trainer.model.parameters()` in configure_optimizers)
        true_dtype = lightning_precision(self._given_precision)
        if true_dtype is not None:
            model.to(true_dtype)
        # The batches of its steps: the training DataLoaders it is given (a datamodule may be given in
        # their place, as Lightning takes it), else the datamodule's, else the module's own.
        loaders = train_dataloaders
        if loaders is None:
            source = datamodule if datamodule is not None else model
            make = getattr(source, "train_dataloader", None)
            loaders = attempt(make) if make is not None else None
        elif getattr(loaders, "train_dataloader", None) is not None:
            loaders = attempt(loaders.train_dataloader)
        loaders_trained(model, loaders)
        configure = getattr(model, "configure_optimizers", None)
        if configure is not None:
            try:
                attempt(configure)
            except Exception:
                pass  # (an error past the optimizer: Lightning would stop there, the optimizer made)
        return None

    def validate(self, *args, **kwargs):
        return []

    def test(self, *args, **kwargs):
        return []

    def predict(self, *args, **kwargs):
        return None

    def save_checkpoint(self, *args, **kwargs):
        return None
