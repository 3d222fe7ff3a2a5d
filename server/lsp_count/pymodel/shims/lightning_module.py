"""What the analyser reads for Lightning's ``LightningModule`` (lightning 2.x, pytorch_lightning),
where the installed package is not read (``read-packages``). It is never imported.

A LightningModule is an ``nn.Module`` whose constructor registers no parameter and no submodule:
a class of the code on it is counted as on ``nn.Module``. What its constructor may call of it is
written out here as Lightning does it: ``save_hyperparameters`` (the arguments of the constructor
that calls it, the names it is given, a dict or Namespace; ``ignore``) into ``hparams``, an
``AttributeDict`` read by attribute and by key; ``freeze`` and ``unfreeze``; ``device`` and ``dtype``
(a module not yet moved: the CPU, torch's default dtype when it was made). The caller's arguments, which Lightning reads off
the call stack, are given by the analyser as ``frame`` (Interpreter.lightning_init_arguments).
The parity tests build the same classes with the installed lightning. A ``LightningDataModule``
is no module: a class of the code on it is an object with ``hparams`` and Lightning's no-op hooks,
whose own hooks the Trainer calls (shims/lightning_trainer.py).
"""

from argparse import Namespace

import torch
import torch.nn as nn


class AttributeDict(dict):
    def __getattr__(self, key):
        if key in self:
            return self[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")

    def __setattr__(self, key, val):
        self[key] = val

    def __delattr__(self, item):
        if item not in self:
            raise KeyError(item)
        del self[item]


class HyperparametersMixin:
    def save_hyperparameters(self, *args, ignore=None, frame=None, logger=True):
        if len(args) == 1 and not isinstance(args, str) and not args[0]:
            return  # an empty container
        init_args = dict(frame) if isinstance(frame, dict) else {}
        if ignore is None:
            ignore = []
        elif isinstance(ignore, str):
            ignore = [ignore]
        elif isinstance(ignore, (list, tuple)):
            ignore = [arg for arg in ignore if isinstance(arg, str)]
        init_args = {k: v for k, v in init_args.items() if k not in ignore}
        if not args:
            hp = init_args
        else:
            non_str = [arg for arg in args if not isinstance(arg, str)]
            if len(non_str) == 1:
                hp = non_str[0]
            else:
                hp = {arg: init_args[arg] for arg in args if isinstance(arg, str)}
        self._set_hparams(hp)

    def _set_hparams(self, hp):
        if isinstance(hp, Namespace):
            hp = vars(hp)
        if isinstance(hp, dict):
            hparams = self.hparams
            if isinstance(hparams, dict):  # (it is, but where the code set `_hparams` itself)
                for key, value in hp.items():
                    hparams[key] = value
                return
            hp = AttributeDict(hp)
        elif isinstance(hp, (bool, int, float, str)):
            raise ValueError(f"Primitives {(bool, int, float, str)} are not allowed.")
        self._hparams = hp

    @property
    def hparams(self):
        if not hasattr(self, "_hparams"):
            self._hparams = AttributeDict()
        return self._hparams


class LightningDataModule(HyperparametersMixin):
    """Not a module: its hooks make the data (the Trainer calls them); none is defined here but
    those that do nothing by default."""

    name = None

    def __init__(self):
        super().__init__()
        self.trainer = None
        self.prepare_data_per_node = True

    def prepare_data(self):
        return None

    def setup(self, stage):
        return None

    def teardown(self, stage):
        return None


class LightningModule(nn.Module, HyperparametersMixin):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._dtype = torch.get_default_dtype()
        self._device = torch.device("cpu")

    @property
    def device(self):
        return self._device

    @property
    def dtype(self):
        return self._dtype

    def freeze(self):
        for param in self.parameters():
            param.requires_grad = False
        return self.eval()

    def unfreeze(self):
        for param in self.parameters():
            param.requires_grad = True
        return self.train()
