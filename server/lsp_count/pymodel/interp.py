"""A small abstract interpreter for the parts of Python that build modules.

It walks the stdlib ``ast`` of ``__init__`` methods, helper functions and
config classes, computing with the values in ``values.py``. It never runs the
analysed code: calls are resolved to functions and classes of the same file
(or of project files next to it), to the torch.nn table, or to a short list of
pure builtins; everything else becomes ``Unknown`` with the reason.

Every loop and call is bounded (iterations, call depth, a step budget), so a
hostile or unfinished file ends in an ``Unresolved`` reason, never a hang.
"""

from __future__ import annotations

import abc
import ast
import builtins
import collections
import copy
import dataclasses
import enum
import fnmatch
import functools
import itertools
import json
import keyword
import math
import operator
import re
import shlex
import string
import struct
import os
import sys
import typing
import posixpath
from fractions import Fraction
from typing import Any, Callable, Generator, Iterable, Iterator

from lsp_count.core.memory import torch_optimizer_kind
from lsp_count.core.source import Span
from lsp_count.formats.common import FSDP_STAGES, sharding_stage
from lsp_count.pymodel.layers import (ELEMENT_BYTES, FINFO, TORCH_NN_OTHER_NAMES, WEIGHTED_LOSSES, FLOATING_DTYPES, FUNCTIONAL_NAMES, IINFO, LAYER_ATTRIBUTES, LAYERS, MODULE_CLASS_ATTRIBUTES,
                                      MODULE_INSTANCE_ATTRIBUTES, METRIC_MODULES, PARAMETERLESS_METRICS,
                                      DROPOUTS, NOT_A_LAYER_ATTRIBUTE, PARAMETERLESS, REQUIRED, STACKS, TORCH_SUBCLASSES, TORCH_NN_MODULES, as_count,
                                      as_int, bind, check_dropout, check_parameterless, integer_scalar, no_bool_first_size, torch_class_has,
                                      dtype_name, layer_attribute, no_such_layer_attribute, NONE_SLOTS, REGISTERED_SLOTS, RUNNING_STATS, running_stat, truth)
from lsp_count.pymodel import forward, shapes
from lsp_count.pymodel import tensor_values
from lsp_count.pymodel.reparam import reparametrization, reparametrize
from lsp_count.pymodel.environments import (installed_distribution_version, installed_module, module_file,
                                             unread_package_note, up_to_repository_root)
from lsp_count.pymodel.hub import NOT_MODULES as NOT_MODULE_LOADERS, builds_module, config_changes, loads_config
from lsp_count.pymodel.syntax import (applied_class_decorators, child_blocks, last_name, may_import_project, parse,
                                      parse_expression)
from lsp_count.pymodel.values import (BoundV, ClassV, DeviceV, ExtV, FieldV, Inst, ModV, Param, PartialV, RangeV, Raised,
                                      ReleaseVersion, TorchVersionText, packaging_version,
                                      SuperV, Sym, TensorV, Unknown, Unresolved, c3_merge, is_unknownish, next_serial, render, sym_add,
                                      sym_divide_exact, sym_mul, sym_opaque, why_of)

MAX_ITERATIONS = 10_000      # one loop; more is not a model definition the analyser should follow
MAX_STEPS = 60_000  # statements + calls for one class, configs included (the most any of 2,572 real classes took: 13,236)
MAX_EVAL_TEXT = 10_000  # characters of a string given to eval: a table of layers, not a program
# A model function counted on request (``--function``, the hover on its def): its largest variants
# build every block (timm's efficientnet_l2, maxvit_large: a little over MAX_STEPS).
FUNCTION_STEPS = 200_000
# Steps an installed package's own code may take in one count before the count's budget is drawn
# on: a library's code ends in Python (peft's get_peft_model on a transformers model builds
# transformers' table of weight conversions for every model type, about 130,000 steps, then walks
# every module: Llama-3-8B's 32 layers took about 260,000 in all, Llama-3-70B's 80 about 450,000;
# 1,000,000 is about 10 s of analysis on a slow machine); the budget guards the analysed code's loops.
PACKAGE_STEPS = 1_000_000
# Lightning's LightningModule where the installed lightning is not read: the class of shims/
# lightning_module.py (a LightningModule is an nn.Module whose constructor adds no parameters).
LIGHTNING_MODULES = frozenset(f"{package}.{module}LightningModule" for package in ("lightning.pytorch", "pytorch_lightning")
                              for module in ("", "core.", "core.module.")) | {"lightning.LightningModule"}
SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shims")
LIGHTNING_SHIM = os.path.join(SHIM_DIR, "lightning_module.py")
# Classes of packages that are not read (read-packages) which the analyser reads its own short
# version of instead (shims/): what the code builds or subclasses them to, and in which shim file.
HYDRA_SHIM = os.path.join(SHIM_DIR, "hydra.py")
TRL_SHIM = os.path.join(SHIM_DIR, "trl.py")
HF_ARGPARSER_SHIM = os.path.join(SHIM_DIR, "hf_argparser.py")
TRAINER_SHIM = os.path.join(SHIM_DIR, "transformers_trainer.py")
FABRIC_SHIM = os.path.join(SHIM_DIR, "fabric.py")
ACCELERATE_SHIM = os.path.join(SHIM_DIR, "accelerate.py")
LIGHTNING_TRAINER_SHIM = os.path.join(SHIM_DIR, "lightning_trainer.py")
TORCH_DATA_SHIM = os.path.join(SHIM_DIR, "torch_data.py")
DEEPSPEED_SHIM = os.path.join(SHIM_DIR, "deepspeed.py")
LIGHTNING_CLI_SHIM = os.path.join(SHIM_DIR, "lightning_cli.py")
FILES_SHIM = os.path.join(SHIM_DIR, "files.py")
_TRL_TRAINERS = (("SFTTrainer", "sft"), ("DPOTrainer", "dpo"), ("KTOTrainer", "kto"), ("GRPOTrainer", "grpo"),
                 ("RLOOTrainer", "rloo"), ("RewardTrainer", "reward"), ("DistillationTrainer", "distillation"))
# trl.experimental's, each in a package of its own (`from trl.experimental.gkd import GKDTrainer`)
_TRL_EXPERIMENTAL_TRAINERS = (("GKDTrainer", "gkd"), ("DistillationTrainer", "distillation"))
# Whose errors each shim raises, for the reason a raise of its says (Interpreter.raise_stmt).
_SHIM_LIBRARIES = {LIGHTNING_SHIM: "Lightning", FABRIC_SHIM: "Lightning Fabric", TRL_SHIM: "trl",
                   TRAINER_SHIM: "transformers", HF_ARGPARSER_SHIM: "transformers", HYDRA_SHIM: "Hydra",
                   ACCELERATE_SHIM: "accelerate", LIGHTNING_TRAINER_SHIM: "Lightning", TORCH_DATA_SHIM: "torch",
                   DEEPSPEED_SHIM: "DeepSpeed", LIGHTNING_CLI_SHIM: "Lightning"}
# accelerate's DistributedType, whose members (`DistributedType.XLA`) are read from the shim's enum too
# (Interpreter.get_attr), not only what calling it makes.
_DISTRIBUTED_TYPES = frozenset(f"accelerate.{where}DistributedType" for where in ("", "utils.", "utils.dataclasses."))
SHIMS = {**{name: (LIGHTNING_SHIM, "LightningModule") for name in LIGHTNING_MODULES},
         **{name.replace("LightningModule", "LightningDataModule").replace("core.module.", "core.datamodule."):
            (LIGHTNING_SHIM, "LightningDataModule") for name in LIGHTNING_MODULES},
         **{f"{package}.{module}Trainer": (LIGHTNING_TRAINER_SHIM, "Trainer")
            for package in ("lightning", "lightning.pytorch", "pytorch_lightning")
            for module in ("", "trainer.", "trainer.trainer.") if package != "lightning" or not module},
         # its strategies, whose sharding the Trainer reads
         **{f"{package}.strategies.{module}{name}Strategy": (LIGHTNING_TRAINER_SHIM, f"{name}Strategy")
            for package in ("lightning.pytorch", "pytorch_lightning")
            for name, own in (("DDP", "ddp"), ("FSDP", "fsdp"), ("DeepSpeed", "deepspeed"))
            for module in ("", f"{own}.")},
         # its LightningCLI, which builds and fits the model from the command line (shims/lightning_cli.py)
         **{f"{package}.cli.LightningCLI": (LIGHTNING_CLI_SHIM, "LightningCLI")
            for package in ("lightning.pytorch", "pytorch_lightning")},
         # torch's DataLoader, whose batch_size a training loop's step takes (shims/torch_data.py)
         **{f"torch.utils.data.{where}DataLoader": (TORCH_DATA_SHIM, "DataLoader") for where in ("", "dataloader.")},
         **{name: (ACCELERATE_SHIM, "Accelerator")
            for name in ("accelerate.Accelerator", "accelerate.accelerator.Accelerator")},
         # its sharding plugins (shims/accelerate.py)
         **{f"accelerate.{where}{name}": (ACCELERATE_SHIM, name)
            for name in ("FullyShardedDataParallelPlugin", "DeepSpeedPlugin")
            for where in ("", "utils.", "utils.dataclasses.")},
         # the stand-ins for the optimizer and scheduler a DeepSpeed config names
         **{f"accelerate.utils.{where}{name}": (ACCELERATE_SHIM, name)
            for name in ("DummyOptim", "DummyScheduler") for where in ("", "deepspeed.")},
         **{name: (ACCELERATE_SHIM, "DistributedType") for name in _DISTRIBUTED_TYPES},
         # DeepSpeed's engine, made as its config says (shims/deepspeed.py)
         **{f"deepspeed.{name}": (DEEPSPEED_SHIM, name)
            for name in ("initialize", "add_config_arguments", "init_distributed", "comm.init_distributed")},
         **{name: (FABRIC_SHIM, "Fabric")
            for name in ("lightning.Fabric", "lightning.fabric.Fabric", "lightning.fabric.fabric.Fabric",
                         "lightning_fabric.Fabric", "lightning_fabric.fabric.Fabric")},
         # TRL's trainers, which load the model or take it and wrap it with peft (shims/trl.py)
         **{f"trl.{where}{name}": (TRL_SHIM, name) for name, module in _TRL_TRAINERS
            for where in ("", "trainer.", f"trainer.{module}_trainer.")},
         **{f"trl.{where}{name[:-7]}Config": (TRL_SHIM, "LengthConfig" if module in ("sft", "dpo", "kto", "reward")
                                                 else "TrainerConfig")
            for name, module in _TRL_TRAINERS for where in ("", "trainer.", f"trainer.{module}_config.")},
         **{f"trl.experimental.{module}.{where}{name}": (TRL_SHIM, name) for name, module in _TRL_EXPERIMENTAL_TRAINERS
            for where in ("", f"{module}_trainer.")},
         **{f"trl.experimental.{module}.{where}{name[:-7]}Config": (TRL_SHIM, "LengthConfig" if module == "gkd"
                                                                     else "TrainerConfig")
            for name, module in _TRL_EXPERIMENTAL_TRAINERS for where in ("", f"{module}_config.")},
         # trl's frozen copy of a model, for a `ref_model`
         **{f"trl.{where}create_reference_model": (TRL_SHIM, "create_reference_model")
            for where in ("", "models.", "models.utils.", "experimental.utils.")},
         # transformers' Trainer, read or not (_LIBRARY_CLASSES): shims/transformers_trainer.py
         **{name: (TRAINER_SHIM, "Trainer") for name in ("transformers.Trainer", "transformers.trainer.Trainer")},
         **{name: (TRAINER_SHIM, "TrainingArguments")
            for name in ("transformers.TrainingArguments", "transformers.training_args.TrainingArguments")},
         # transformers' HfArgumentParser, read or not (Interpreter.instantiate): shims/hf_argparser.py
         **{name: (HF_ARGPARSER_SHIM, "HfArgumentParser")
            for name in ("transformers.HfArgumentParser", "transformers.hf_argparser.HfArgumentParser")},
         # Hydra's instantiate and OmegaConf's configs (`hydra.utils.instantiate(cfg.model)`)
         **{f"hydra.utils.{name}": (HYDRA_SHIM, name)
            for name in ("instantiate", "call", "get_class", "get_method", "get_object")},
         **{f"hydra.{name}": (HYDRA_SHIM, name)
            for name in ("instantiate", "call", "initialize", "initialize_config_dir", "compose")},
         "omegaconf.DictConfig": (HYDRA_SHIM, "DictConfig"),
         **{f"omegaconf.OmegaConf.{name}": (HYDRA_SHIM, f"OmegaConf.{name}")
            for name in ("create", "load", "merge", "unsafe_merge", "to_container", "to_object", "is_config",
                         "is_dict", "is_list", "set_struct", "set_readonly", "resolve", "select")}}
# Classes of the packages that are read which the analyser takes from a shim instead, where the
# file that defines them runs their class statement: (the file's path ends so, the SHIMS name).
_LIBRARY_CLASSES = {"Trainer": ("/transformers/trainer.py", "transformers.Trainer")}
# Methods of read classes the analyser runs a shim's function for instead: transformers'
# TrainingArguments.__post_init__ sets up the machine (shims/transformers_trainer.py).
_LIBRARY_METHODS = {"TrainingArguments": ("/transformers/training_args.py", {
    "__post_init__": (TRAINER_SHIM, "training_arguments_post_init")})}
# Optimizers a training loop builds over a model's parameters, by the memory model's name for the
# states they keep (core/memory.py's OPTIMIZERS): torch's by their options (core/memory.py's
# torch_optimizer_kind: SGD with momentum keeps one state, without none); "adamw-8bit",
# bitsandbytes' two 8-bit states; "adamw" two fp32 states, "sgd-momentum" one (Lion's momentum);
# "" for one whose states the memory model does not have (L-BFGS' history, Adafactor's factored
# moments): AdamW's are assumed, and a note says so.
_TORCH_OPTIMIZERS = frozenset(f"torch.optim.{name}" for name in (
    "AdamW", "Adam", "NAdam", "RAdam", "Adamax", "Adadelta", "SGD", "RMSprop", "Adagrad", "LBFGS", "SparseAdam",
    "ASGD", "Rprop"))
_OPTIMIZERS = {**{f"bitsandbytes.optim.{name}": "adamw-8bit"
                  for name in ("AdamW8bit", "Adam8bit", "PagedAdamW8bit", "PagedAdam8bit")},
               **{f"bitsandbytes.optim.{name}": "adamw" for name in ("AdamW", "PagedAdamW", "AdamW32bit",
                                                                     "PagedAdamW32bit", "Adam", "Adam32bit")},
               **{f"bitsandbytes.optim.{name}": "sgd-momentum" for name in ("Lion", "PagedLion", "Lion32bit")},
               **{f"bitsandbytes.optim.{name}": "" for name in ("Lion8bit", "PagedLion8bit")},
               **{f"transformers.{where}Adafactor": "" for where in ("", "optimization.")}}
# Questions of the file system a script asks of its own folder (Interpreter.project_path).
_PATH_CHECKS = {"os.path.exists": os.path.exists, "os.path.isfile": os.path.isfile, "os.path.isdir": os.path.isdir}
_OPTIMIZER_BASES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})
# torch's autocast context managers: (their positional parameters, the device of the older
# device-specific ones) (Interpreter.record_autocast), and the dtype each device's defaults to.
_AUTOCASTS = {**{name: (("device_type", "dtype", "enabled"), None)
                 for name in ("torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast")},
              "torch.cuda.amp.autocast": (("enabled", "dtype"), "cuda"),
              "torch.cpu.amp.autocast": (("enabled", "dtype"), "cpu")}
_AUTOCAST_DTYPES = {"cuda": "float16", "cpu": "bfloat16", "mps": "float16", "xpu": "bfloat16", "hpu": "bfloat16"}
_OPTIMIZER_INITS = frozenset(f"{base}.__init__" for base in _OPTIMIZER_BASES)
# The functions the shims call that the analyser answers itself (shims/hydra.py).
_SHIM_FUNCTIONS = frozenset({"lsp_count_shim.locate", "lsp_count_shim.read_yaml", "lsp_count_shim.kind",
                             "lsp_count_shim.hydra_initialize", "lsp_count_shim.hydra_compose",
                             "lsp_count_shim.known", "lsp_count_shim.training_plan", "lsp_count_shim.attempt",
                             "lsp_count_shim.stop", "lsp_count_shim.loader_iterated",
                             "lsp_count_shim.loaders_trained", "lsp_count_shim.strategy_trained",
                             "lsp_count_shim.defines", "lsp_count_shim.is_known",
                             "lsp_count_shim.optimizer_made", "lsp_count_shim.read_json", "lsp_count_shim.reason",
                             "lsp_count_shim.member_name", "lsp_count_shim.cli_arguments"})
# A loop in a script's entry point (``main()``, ``if __name__ == "__main__":``) is most often the
# training loop, which builds nothing: it is followed this far, then skipped (script.py).
ENTRY_LOOP_STEPS = 10_000
# All of an entry point's statements together, installed packages' code included (a script is
# analysed again at each edit): past it, the rest of the entry point is not followed.
ENTRY_STEPS = 600_000
MAX_CALL_DEPTH = 40          # interpreted calls nested; Python's own stack is the real limit
MAX_SEQUENCE = 100_000       # elements of a list/str built by repetition
MAX_INT_BITS = 4096          # integers beyond this are not tensor sizes
MAX_PROJECT_FILES = 400      # project files read for one analysis; a model needs a few, a package has thousands
# ... of which one statement of the analysed file may read (run_clm's `list(MODEL_FOR_CAUSAL_LM_MAPPING.keys())`
# loads every config module of transformers): past it, that statement is not followed, and the rest of
# the file still has files to read (a script on transformers or timm reads 70-140 in all).
STATEMENT_FILES = 300

CONTAINERS = {"ModuleList": "list", "Sequential": "seq", "ModuleDict": "dict", "ParameterList": "plist",
              "ParameterDict": "pdict"}
MAX_APPLY_DEPTH = 200  # modules nested deeper than this in apply(): a module that holds itself
CONTAINER_CLASSES = {kind: name for name, kind in CONTAINERS.items()}  # "plist" -> "ParameterList"
# torch's legacy constructors, each with its dtype (`torch.FloatTensor(3, 4)`, pygcn's DoubleTensor).
_LEGACY_CONSTRUCTORS = {"Tensor": "float32", "FloatTensor": "float32", "LongTensor": "int64", "DoubleTensor": "float64",
                        "HalfTensor": "float16", "BFloat16Tensor": "bfloat16", "ByteTensor": "uint8", "CharTensor": "int8",
                        "ShortTensor": "int16", "IntTensor": "int32", "BoolTensor": "bool"}
TENSOR_FACTORIES = {"zeros", "ones", "empty", "randn", "rand", "full", "randint", "eye", "tensor", "arange",
                    "zeros_like", "ones_like", "empty_like", "randn_like", "rand_like", "full_like", "linspace",
                    "as_tensor", "from_numpy", *_LEGACY_CONSTRUCTORS}
_BINOPS: dict[type, tuple[Callable[[Any, Any], Any], str]] = {
    ast.Add: (operator.add, "+"), ast.Sub: (operator.sub, "-"), ast.Mult: (operator.mul, "*"),
    ast.Div: (operator.truediv, "/"), ast.FloorDiv: (operator.floordiv, "//"), ast.Mod: (operator.mod, "%"),
    ast.Pow: (operator.pow, "**"), ast.LShift: (operator.lshift, "<<"), ast.RShift: (operator.rshift, ">>"),
    ast.BitOr: (operator.or_, "|"), ast.BitAnd: (operator.and_, "&"), ast.BitXor: (operator.xor, "^"),
    ast.MatMult: (operator.matmul, "@"),
}
_PATH_FUNCTIONS = frozenset(f"os.path.{f}" for f in ("join", "basename", "dirname", "splitext", "split"))
_SET_IN_PLACE: dict[type, Callable[[Any, Any], Any]] = {
    ast.BitOr: operator.ior, ast.BitAnd: operator.iand, ast.Sub: operator.isub, ast.BitXor: operator.ixor}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


class DefaultDict(dict):  # type: ignore[type-arg]
    """``collections.defaultdict(factory)``: a missing key gets what the code's ``factory`` makes
    (Interpreter.get_item calls it; a plain attribute, not a closure over the interpreter, so the
    analysis leaves no reference cycle)."""

    __slots__ = ("factory",)

    def __init__(self, factory: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.factory = factory


class OrderedDictV(dict):  # type: ignore[type-arg]
    """``collections.OrderedDict(...)``: a dict (insertion order is every dict's) whose instances,
    unlike a plain dict's, take attributes (transformers' auto mappings set one on their table of
    names). Setting one makes it a holder of a possible cycle (analyzer._release clears them)."""

    __slots__ = ("attrs",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.attrs: dict[str, Any] = {}


class ModulesView(dict):  # type: ignore[type-arg]
    """``module._modules``: the module's submodules by name, live as torch's (``model._modules[name]
    = new_module`` replaces one: torchvision's _replace_relu, transformers' replace_batch_norm).
    A write reaches the module; only reads, item writes and ``pop`` are allowed (_SAFE_METHODS), so
    none bypasses it."""

    __slots__ = ("owner",)

    def __init__(self, owner: "Inst") -> None:
        super().__init__((k, v) for k, v in owner.attrs.items() if type(v) is Inst and v.is_module)
        self.owner = owner

    def __setitem__(self, key: Any, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError("module name should be a string")  # as torch's add_module
        super().__setitem__(key, value)
        self.owner.attrs[key] = value

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        del self.owner.attrs[key]

    def pop(self, key: Any, *default: Any) -> Any:  # MobileOne's `self._modules.pop("rbr_skip")`
        if key not in self:
            return super().pop(key, *default)  # KeyError, or the default
        value = super().pop(key)
        del self.owner.attrs[key]
        return value


class InstanceDictView(dict):  # type: ignore[type-arg]
    """A module's ``__dict__``: its plain attributes and what was put there past torch's __setattr__
    (not its parameters, buffers or submodules, which torch keeps in ``_parameters`` and the like).
    A parameter or module written into it is unregistered (read back as an attribute, never counted:
    diffusers' ModelMixin reads its config so, RL code hides a target network); a plain value is an
    attribute. Only reads, item writes, ``update`` and ``pop`` are allowed (_SAFE_METHODS)."""

    __slots__ = ("owner",)

    def __init__(self, owner: "Inst") -> None:
        buffers = owner.buffers if type(owner.buffers) is dict else {}
        super().__init__((k, v) for k, v in owner.attrs.items() if not (
            type(v) is Param or (type(v) is Inst and v.is_module) or k in buffers or k == _DICT_ITEMS))
        if owner.unregistered:
            dict.update(self, owner.unregistered)
        self.owner = owner

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        _set_unregistered(self.owner, str(key), value)

    def update(self, *others: Any, **more: Any) -> None:  # `self.__dict__.update(kwargs)`
        for key, value in dict(*others, **more).items():
            self[key] = value

    def pop(self, key: Any, *default: Any) -> Any:
        if key not in self:
            return super().pop(key, *default)
        value = super().pop(key)
        if self.owner.unregistered and key in self.owner.unregistered:
            del self.owner.unregistered[key]
        else:
            self.owner.attrs.pop(key, None)
        return value


def _set_unregistered(owner: "Inst", key: str, value: Any) -> None:
    """``owner.__dict__[key] = value`` of a module: a parameter or module kept out of its counted
    attributes; a plain value an attribute."""
    if type(value) is Param or (type(value) is Inst and value.is_module):
        if owner.unregistered is None:
            owner.unregistered = {}
        owner.unregistered[key] = value
    else:
        if owner.unregistered:
            owner.unregistered.pop(key, None)
        owner.attrs[key] = value


class ParametersView(dict):  # type: ignore[type-arg]
    """``module._parameters``: the module's own parameters by name, live as torch's (style-based-gan's
    equalized learning rate: ``del module._parameters[name]``, then ``register_parameter(name +
    "_orig", ...)``). Writes, deletions and ``pop`` reach the module; other writing methods are not
    allowed (_SAFE_METHODS)."""

    __slots__ = ("owner",)

    def __init__(self, owner: "Inst") -> None:
        super().__init__((k, v) for k, v in owner.attrs.items() if type(v) is Param)
        self.owner = owner

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.owner.attrs[key] = value

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        del self.owner.attrs[key]

    def pop(self, key: Any, *default: Any) -> Any:
        if key not in self:
            return super().pop(key, *default)  # KeyError, or the default
        value = super().pop(key)
        del self.owner.attrs[key]
        return value


class IteratorV:
    """A Python iterator, so builtins (``next``, ``list``, ``sum``) and loops consume it as Python's
    would: what a generator function returns (its values, collected by running it to the end when
    it is called), or, with a ``source``, a generator expression's or ``map``'s, whose items are
    computed as they are taken (Interpreter.lazy_iterator)."""

    __slots__ = ("items", "index", "source")

    def __init__(self, items: list[Any], source: Iterator[Any] | None = None) -> None:
        self.items, self.index, self.source = items, 0, source

    def __iter__(self) -> "IteratorV":
        return self

    def __next__(self) -> Any:
        if self.index >= len(self.items):
            if self.source is not None:
                return next(self.source)  # a source that raised (an unresolved item) is done, as Python's is
            raise StopIteration
        self.index += 1
        return self.items[self.index - 1]


class ContainerView:
    """A ModuleDict's ``keys()``, ``values()`` or ``items()``, and a ParameterDict's ``keys()``: torch
    returns its dict's view (``self._modules.items()``, ``self._keys.keys()``), which reads the
    dict as it is when used, not when made: a view taken before an entry is added has it, and a
    loop over one whose body adds or deletes an entry raises RuntimeError at its next step."""

    __slots__ = ("obj", "which")

    def __init__(self, obj: "Inst", which: str) -> None:
        self.obj, self.which = obj, which  # which: "keys", "values" or "items"

    def __iter__(self) -> Iterator[Any]:
        """Its items now (a list, a sum, a star argument: taken at once)."""
        entries = container_entries(self.obj)
        if self.which == "items":
            return iter(entries)
        return iter([k for k, _ in entries] if self.which == "keys" else [v for _, v in entries])

    def live(self) -> Iterator[Any]:
        """Its items as a loop takes them: from the live dict (_live_container)."""
        walk = _live_entries(self.obj)
        if self.which == "items":
            return walk
        return (k for k, _ in walk) if self.which == "keys" else (v for _, v in walk)

    def __len__(self) -> int:
        return _entry_count(self.obj)

    def __contains__(self, item: Any) -> bool:
        return item in list(self)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(list(self))

    def __getitem__(self, key: Any) -> Any:
        raise TypeError(f"'{type(self).__name__}' object is not subscriptable")

    # A keys or items view is set-like, as Python's: `d.keys() - {"head"}` is a set.
    def _as_set(self) -> set[Any] | None:
        return set(self) if self.which != "values" else None

    def __eq__(self, other: Any) -> bool:
        mine = self._as_set()
        if mine is None or not isinstance(other, (set, frozenset, ContainerView, *_DICT_VIEWS[::2])):
            return self is other
        theirs = other._as_set() if isinstance(other, ContainerView) else set(other)
        return theirs is not None and mine == theirs

    __hash__ = None  # type: ignore[assignment]  # as Python's views

    def _set_op(self, other: Any, op: Callable[[set[Any], set[Any]], set[Any]], mine_first: bool) -> Any:
        mine = self._as_set()
        if mine is None:
            return NotImplemented
        theirs = set(other)
        return op(mine, theirs) if mine_first else op(theirs, mine)

    __and__ = functools.partialmethod(_set_op, op=operator.and_, mine_first=True)
    __rand__ = functools.partialmethod(_set_op, op=operator.and_, mine_first=False)
    __or__ = functools.partialmethod(_set_op, op=operator.or_, mine_first=True)
    __ror__ = functools.partialmethod(_set_op, op=operator.or_, mine_first=False)
    __sub__ = functools.partialmethod(_set_op, op=operator.sub, mine_first=True)
    __rsub__ = functools.partialmethod(_set_op, op=operator.sub, mine_first=False)
    __xor__ = functools.partialmethod(_set_op, op=operator.xor, mine_first=True)
    __rxor__ = functools.partialmethod(_set_op, op=operator.xor, mine_first=False)

    @staticmethod
    def of(obj: "Inst", which: str) -> "ContainerView":
        return _CONTAINER_VIEWS[which](obj, which)


# One class for each, named as Python's views are, so that an error's wording is Python's
# ("'dict_values' object is not subscriptable").
_CONTAINER_VIEWS = {which: type(f"dict_{which}", (ContainerView,), {"__slots__": ()})
                    for which in ("keys", "values", "items")}
_CONTAINER_VIEW_TYPES = frozenset(_CONTAINER_VIEWS.values())


class CycleV(IteratorV):
    """``itertools.cycle(items)``: endless. ``next()`` takes its items in turn and ``zip`` stops
    with its shortest other argument (transformers pairs tied weights so); a loop over it alone,
    or a list of it, is refused (Interpreter.iterate and _list_of look for it first)."""

    __slots__ = ()

    def __next__(self) -> Any:
        if not self.items:
            raise StopIteration
        item = self.items[self.index % len(self.items)]
        self.index += 1
        return item


_DICT_SAFE = frozenset("get items keys values update pop setdefault copy clear".split())
_SAFE_METHODS: dict[type, frozenset[str] | None] = {
    str: None,  # every public str method is pure
    TorchVersionText: None,  # torch.__version__
    list: frozenset("append extend insert pop index count copy reverse remove clear sort".split()),
    dict: _DICT_SAFE,
    DefaultDict: _DICT_SAFE - {"copy", "setdefault"},  # their results would lose the factory / skip it
    OrderedDictV: _DICT_SAFE - {"copy"},  # a copy would lose the attributes: refused
    ModulesView: frozenset("get items keys values pop".split()),  # a write through another method would not reach the module
    ParametersView: frozenset("get items keys values pop".split()),
    InstanceDictView: frozenset("get items keys values pop update".split()),
    collections.deque: frozenset("append appendleft extend extendleft pop popleft index count copy reverse remove "
                                 "insert".split()),
    tuple: frozenset("index count".split()),
    ReleaseVersion: frozenset("base_version public release major minor micro is_prerelease is_postrelease "
                              "is_devrelease epoch local pre post dev".split()),
    bytes: frozenset({"decode"}),
    int: frozenset("bit_length".split()),
    float: frozenset("is_integer".split()),
    set: frozenset("add update union intersection difference symmetric_difference isdisjoint issubset issuperset "
                   "copy clear discard remove pop difference_update intersection_update "
                   "symmetric_difference_update".split()),
    frozenset: frozenset("union intersection difference symmetric_difference isdisjoint issubset issuperset "
                         "copy".split()),
    re.Match: frozenset("group groups groupdict start end span".split()),
}
# Tensor methods whose result has the tensor's shape (out of place; in-place ones end with "_"),
# the binary ones that broadcast with their argument, and the in-place ones that change the shape.
_SAME_SHAPE = frozenset("""
clone detach contiguous float double half bfloat16 int long bool to cpu cuda type type_as abs neg exp log sqrt rsqrt conj
sigmoid tanh relu softmax log_softmax cumsum flip roll masked_fill clamp clip sign round floor ceil square reciprocal
pin_memory sin cos tan asin acos atan sinh cosh erf erfc erfinv log1p expm1 log2 log10 exp2 trunc frac sgn
coalesce to_dense to_sparse
nan_to_num
""".split())
_BROADCASTING = frozenset({"add", "sub", "mul", "div", "pow", "maximum", "minimum"})
_RESHAPE_IN_PLACE = frozenset({"resize_", "resize_as_", "unsqueeze_", "squeeze_", "transpose_", "t_", "set_",
                               "as_strided_", "swapdims_", "swapaxes_"})
# torch functions whose result has their first argument's shape (an initial value made from another).
_ELEMENTWISE = frozenset("""
abs neg sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal square sin cos tan tanh sigmoid erf erfinv
relu clamp clip floor ceil round trunc frac softmax log_softmax clone detach nan_to_num
""".split())
# A comparison with a tensor is a mask of the broadcast shape (`inv_freq > 0.5`).
_TENSORS = (TensorV, Param)
_TENSOR_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_MATH = frozenset("""sqrt ceil floor log log2 log10 exp prod gcd lcm isqrt pow fabs trunc comb factorial perm copysign
fsum ldexp hypot remainder fmod modf frexp sin cos tan asin acos atan atan2 sinh cosh tanh radians degrees log1p expm1
isclose isfinite isinf isnan""".split())
# numpy's functions of one Python number that give one number (a float64, which computes as a
# float): as math's, but ceil and floor of a float stay floats in numpy (of an int, numpy 2 keeps the
# int); their last bits numpy's own (_numpy_float).
_NUMPY_SCALAR: dict[str, Callable[[Any], Any]] = {
    "sqrt": math.sqrt, "log": math.log, "log2": math.log2, "log10": math.log10, "exp": math.exp,
    "ceil": lambda x: x if type(x) in (int, bool) else float(math.ceil(x)),
    "floor": lambda x: x if type(x) in (int, bool) else float(math.floor(x)),
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "log1p": math.log1p, "expm1": math.expm1,
    # Half to even, as Python's round; a float stays a float in numpy (nnU-Net's `int(np.round(f * 2))`).
    **{name: (lambda x: x if type(x) in (int, bool) else float(round(x))) for name in ("round", "around")},
    "rint": lambda x: float(round(x)),  # a ufunc: a float64 even of an int
    "abs": abs, "absolute": abs, "fabs": lambda x: float(abs(x)),
}
_UNSAFE = frozenset({"exec", "eval", "compile", "__import__", "globals", "locals", "vars", "open", "input"})


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _NoAttribute(Exception):
    """An attribute that is not set, while ``getattr(obj, name, default)`` or ``hasattr`` reads it
    (Python's AttributeError, which they catch)."""


class _Continue(Exception):
    pass


class _OutOfSteps(Unresolved):
    """The class's step budget (MAX_STEPS) is spent."""


class _FilesCapped(Exception):
    """A statement of the analysed file reads more files than STATEMENT_FILES: the files it was
    reading are dropped unfinished (no module half run is kept) and the statement is not followed.
    Not an Unresolved, which each statement of those files would catch."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _TooDeep(Unresolved):
    """Calls or class builds nest past the limits: how deep depends on the callers too, so a build
    that fails so is not kept as failed."""


_Raised = Raised  # values.Raised: the analysed code's exceptions (and torch's, where it raises)


class _MissingModule(Raised):
    """A relative import of a module the package does not have: Python's ModuleNotFoundError on any
    machine. Uncaught by the analysed file's own top level, importing the file fails."""


class Env:
    __slots__ = ("vars", "parent", "module")

    def __init__(self, module: "ModuleScope", parent: "Env | None" = None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.module = module

    def lookup(self, name: str) -> Any:
        env: Env | None = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        raise KeyError(name)


class _ClassBodyEnv(Env):
    """A class statement's body: its names are not seen by the functions and comprehensions in it
    (but a comprehension's first iterable, evaluated in the body)."""

    __slots__ = ()


class _ComprehensionEnv(Env):
    """A comprehension's own scope: its loop variables; an assignment expression in it binds in the
    scope around it."""

    __slots__ = ()


class FuncV:
    """A function or method defined in the source, with its defaults and closure."""

    __slots__ = ("name", "node", "env", "defaults", "kw_defaults", "kind", "owner", "_signature", "setter",
                 "decorators", "decorated", "wrapped", "memo")

    def __init__(self, name: str, node: Any, env: Env, defaults: list[Any], kw_defaults: list[Any], kind: str = "") -> None:
        self.name, self.node, self.env = name, node, env
        self.owner: Any = None  # the class a method is defined in (for zero-argument super())
        self.setter: FuncV | None = None  # a property's `@name.setter`
        # A method's decorators are applied when it is first called (Interpreter.decorated_method):
        # ``decorators`` is the class body's scope they are evaluated in, ``decorated`` what they made.
        self.decorators: Env | None = None
        self.decorated: Any = None
        # @functools.lru_cache / @cache: its results by arguments, with what each call assumed of the machine.
        self.memo: dict[Any, tuple[Any, tuple[Any, ...]]] | None = None
        self.wrapped: FuncV | None = None  # ``__wrapped__``, set by functools.wraps: inspect's signature is its
        self.defaults, self.kw_defaults, self.kind = defaults, kw_defaults, kind  # kind: "", "static", "class", "property", "cached"
        self._signature: _Signature | None = None

    @property
    def signature(self) -> "_Signature":
        if self._signature is None:
            self._signature = _Signature(self.node.args, len(self.defaults))
        return self._signature


def _kind_name(v: Any) -> str:
    """What a value is, in a message: a tensor, a module, or its Python type."""
    t = type(v)
    return "plain tensor" if t is TensorV else "module" if t is Inst and v.is_module else \
        "function" if t in (FuncV, BoundV, BuiltinV) else t.__name__ if t in (int, float, str, bool, list, tuple, dict) \
        else "value"


def _described(v: Any) -> str:
    """A value that is not what the code needs, named for a message (never the analyser's own types):
    ``nn.GELU`` without its call is a class, not a module."""
    t = type(v)
    if t is ExtV:
        name = v.name.replace("torch.nn.modules.activation.", "nn.").replace("torch.nn.", "nn.")
        module_class = _is_module_base(v) and name.rpartition(".")[2][:1].isupper()
        return f"`{name}`, a class: `{name}()` makes a module" if module_class else f"`{name}`"
    if t is ClassV:
        return f"the class `{v.name}`" + (f": `{v.name}(...)` makes a module" if v.is_module else "")
    if t in (FuncV, BoundV, BuiltinV, PartialV):
        return "a function"
    return f"a {_kind_name(v)}"


_NESTED_STATE_LIMIT = 2_000  # the containers nested in one module's globals looked into (a table of tables)


_STATE_TYPES = frozenset({dict, list, set})


def _is_state(value: Any) -> bool:
    """A value whose contents a build may change and a later build read: a list, dict or set, or
    an object of the code's classes that is not a module (a config)."""
    t = type(value)
    return t in _STATE_TYPES or (t is Inst and not value.is_module)


def _add_state(value: Any, containers: dict[int, Any], budget: list[int], depth: int = 3) -> None:
    """A container or config object a module holds, and those nested in it (`BASE = {"model":
    {"dim": 8}}`, a list of stage dicts, `CFG.stages[0]`): a build that writes into one, at any
    level, changes what a later build reads. Not the items of an object of a dict subclass: the
    registries written at each build (transformers' `_CAN_RECORD_REGISTRY[self]`, read by forward
    alone) would keep every build from being reused."""
    if id(value) in containers:
        return
    containers[id(value)] = value
    budget[0] -= 1
    t = type(value)
    if depth == 0 or budget[0] <= 0 or t is set:
        return
    dict_items = value.attrs.get(_DICT_ITEMS) if t is Inst else None
    for item in (value.values() if t is dict else value.attrs.values() if t is Inst else value):
        # _is_state inline: a table of a thousand strings (transformers' auto mappings) is looked through at each import
        ti = type(item)
        if (ti in _STATE_TYPES or (ti is Inst and not item.is_module)) and budget[0] > 0 and item is not dict_items:
            _add_state(item, containers, budget, depth - 1)


def _remember_defaults(fn: FuncV, containers: dict[int, Any], budget: list[int]) -> None:
    for v in (*fn.defaults, *fn.kw_defaults):
        if _is_state(v):
            _add_state(v, containers, budget)


class _Signature:
    """A function's parameters, read from its node once (bind_args runs for every call)."""

    __slots__ = ("names", "posonly", "kw_names", "vararg", "kwarg", "first_default", "kw_required", "plain")

    def __init__(self, a: ast.arguments, n_defaults: int) -> None:
        self.names = tuple(p.arg for p in a.posonlyargs + a.args)
        self.posonly = frozenset(p.arg for p in a.posonlyargs)
        self.kw_names = tuple(p.arg for p in a.kwonlyargs)
        self.vararg = a.vararg.arg if a.vararg is not None else None
        self.kwarg = a.kwarg.arg if a.kwarg is not None else None
        self.first_default = len(self.names) - n_defaults
        self.kw_required = frozenset(p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None)
        # Positional parameters only: binding as many arguments is a zip.
        self.plain = self.vararg is None and self.kwarg is None and not self.kw_names


class BuiltinV:
    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self.name, self.fn = name, fn


# The values besides modules, parameters, lists and dicts that a copy of a build copies (they may
# hold the build's own modules): see _clone.
_HOLDING_TYPES = frozenset({tuple, PartialV, BoundV, IteratorV, CycleV, BuiltinV, FuncV, *_CONTAINER_VIEW_TYPES})


class LazyImport:
    """A name that a module imports from a project file, read when the code first uses it.

    Python runs every import at once; following them all would read the whole package (a
    transformers model file imports ``activations``, which imports ``utils``, ... 2,485 files
    and 8 s) for the few names a model's constructor uses. The values are the same either way;
    what a file does to another module when imported (``registry["x"] = Block`` at its top
    level) is missed when nothing names that file's own values."""

    __slots__ = ("path", "name", "dotted", "level", "scope", "value")

    def __init__(self, path: str, name: str | None, dotted: str, level: int, scope: "ModuleScope") -> None:
        self.path = path        # the project file that defines it
        self.name = name        # the name in that file; None for the module itself
        self.dotted = dotted    # as the import spells it, for an external stand-in and messages
        self.level = level
        self.scope = scope      # the importing file (a submodule is found relative to it)
        self.value: Any = _UNREAD


_UNREAD = object()


class ModuleScope:
    """One source file being interpreted: its global names and how to place its nodes."""

    def __init__(self, path: str, span_of: Callable[[ast.AST], Span] | None, is_main: bool,
                 line_of: Callable[[int], int] | None = None, package_dirs: dict[str, bool] | None = None) -> None:
        self.path = path
        self.span_of = span_of
        # A node's line number -> the file's, for messages (statements kept from an earlier parse
        # are numbered as they were then).
        self.line_of = line_of or (lambda n: n)
        self.is_main = is_main
        self.env = Env(self)
        self.star_imports: list[str] = []
        self.classes: list[ClassV] = []
        self.text: str | None = None  # the main file's text, as analysed (inspect.getsource reads it)
        self._dotted_name: str | None = None
        self.package_dirs = {} if package_dirs is None else package_dirs  # the analysis' (Ctx.package_dirs)
        self._may_yield: bool | None = None
        self._may_declare: bool | None = None
        self.installed: bool | None = None  # a file of an installed package read (Interpreter.package_code)
        self.ran = False  # its statements have all run (its names are what they stay)
        self._undefined: dict[str, bool] = {}  # certainly_undefined's answers
        # `from __future__ import annotations`: its classes' __annotations__ are the texts (what
        # huggingface_hub's strict field checks then skip); get_type_hints still evaluates them.
        self.string_annotations = False

    @property
    def may_yield(self) -> bool:
        """Whether a function of the file may be a generator: not without `yield` in its text (the
        main file is parsed anew by each analysis; walking each function it calls for a `yield`
        would cost more than the search). A project file's trees outlive the analysis: walked."""
        if self._may_yield is None:
            self._may_yield = self.text is None or "yield" in self.text
        return self._may_yield

    @property
    def may_declare(self) -> bool:
        """Whether a function of the file may declare a name `global` or `nonlocal`: as may_yield,
        by the main file's text."""
        if self._may_declare is None:
            self._may_declare = self.text is None or "global" in self.text or "nonlocal" in self.text
        return self._may_declare

    def certainly_undefined(self, name: str) -> bool:
        """Whether a name the main file's code reads and nothing bound is Python's NameError: the
        file writes no globals dynamically and binds the name nowhere (a script's `args` under
        `if __name__ == "__main__":`). Once per name: the text is searched, not walked."""
        if not self.is_main or self.text is None:
            return False
        known = self._undefined.get(name)
        if known is None:
            known = self._undefined[name] = not _DYNAMIC_GLOBALS.search(self.text) and not _bound_somewhere(name, self.text)
        return known

    def unbound_now(self, name: str) -> bool:
        """Whether a name the main file's module-level code reads, and nothing has bound yet, is
        Python's NameError: the file writes no globals dynamically and no function of it declares
        one (either could have bound it without the analysis seeing)."""
        return self.is_main and self.text is not None and not self.may_declare and \
            not (name.startswith("__") and name.endswith("__")) and not _DYNAMIC_GLOBALS.search(self.text)

    @property
    def dotted_name(self) -> str:
        """The module's import name, as its classes' ``__module__`` and ``sys.modules`` know it: the
        file's stem after the packages (directories with an ``__init__.py``) that hold it."""
        if self._dotted_name is None:
            self._dotted_name = _dotted_module_name(self.path, self.package_dirs)
        return self._dotted_name

    def where(self, lineno: int) -> str:
        """A node's line for a message; a project file's line names the file."""
        if self.is_main:
            return f"line {self.line_of(lineno)}"
        return f"line {lineno} of {os.path.basename(self.path)}"


class Ctx:
    """State of one analysis: budgets, loaded project files and hint anchors."""

    def __init__(self, base_dirs: tuple[str, ...], read_packages: frozenset[str] = frozenset(),
                 site_packages: tuple[str, ...] = ()) -> None:
        self.steps = 0
        self.budget = MAX_STEPS  # the steps the current count may take (start_count)
        self.depth = 0
        self.class_stack: list[str] = []
        # The interpreted calls under way, innermost last: their local names (Lightning's
        # save_hyperparameters reads its callers' arguments off the call stack).
        self.frames: list[Env] = []
        self.entry_steps = 0  # the steps a script's entry point has taken (Interpreter.run_entry)
        self.base_dirs = base_dirs
        # The installed packages an import may read (AnalyzeOptions.read_packages), from these
        # site-packages directories, after the project's own files.
        self.read_packages = read_packages
        self.site_packages = site_packages
        self.loaded: dict[str, ModV | None] = {}
        # Every module scope made in the analysis: the analyser breaks their reference cycles when
        # it ends (analyzer._release).
        self.scopes: list[ModuleScope] = []
        # ``sys.modules[name]``'s index of ``scopes`` by import name (the first scope of each), built
        # as scopes are added (scope_named): timm registers each of its 1,400 models through it.
        self._scopes_by_name: dict[str, ModuleScope] = {}
        self._scopes_named = 0
        self._call_scope: ModuleScope | None = None  # (call_env)
        self.closures: list[FuncV] = []  # functions defined in a function or a class body
        self.lazy_iterators: list[IteratorV] = []  # generator expressions: their sources hold their scopes
        # Instances given an attribute that may lead back to them (a bound method of their own,
        # themselves, a module still being built: `self.inner.owner = self`): analyzer._release
        # empties them. ``building``: ids of the instances whose constructor is running.
        self.cycle_holders: list[Inst] = []
        self.building: set[int] = set()
        self.trees: dict[str, Any] = {}  # project files' parse trees (PythonMemo.trees, when there is one)
        self.found: dict[tuple[str, str | None, int], str | None] = {}  # an import -> its project file
        # A module path without its suffix -> its file (environments.module_file): files of many
        # directories import the same modules, each looked for from each directory's roots.
        self.module_files: dict[str, str | None] = {}
        self.package_dirs: dict[str, bool] = {}  # a directory -> whether it holds an __init__.py (_is_package_dir)
        # The module files an import looked for and did not find (``x.py``, ``x/__init__.py``): one
        # created later changes what the import reads, so a result kept for the next analysis is
        # kept only while they are still missing (reuse.ReusePlan.finish).
        self.missing: set[str] = set()
        # Installed paths an answer read besides the files loaded: a package a library's `find_spec`
        # found, the site-packages directories a version was read from (one installed, removed or
        # upgraded since changes their stamps, and a kept result is dropped, as for `missing`).
        self.watched: set[str] = set()
        # > 0 inside a method of a module that changes no size (saving, reading: _SIZE_KEEPING_METHODS): a
        # method it calls that stops where the analyser cannot follow it leaves the module counted.
        self.changing_nothing = 0
        # Files read besides the project's modules (a package's data file, a Hydra config, a module's
        # source as text): a count that read one is not kept for the next analysis (nothing records
        # what it depends on), as one that used the HF cache is not (hub_lookups).
        self.disk_reads = 0
        # (package directory, name) -> the files under it that define the name at top level (package_defines)
        self.definers: dict[tuple[str, str], tuple[str, ...]] = {}
        # Hint anchors: call span -> the modules built there (counted once the class is built).
        self.hint_insts: dict[Span, list[Inst]] = {}
        # Counts the tree walks already made, by id of the module (kept alive with it): a hint on
        # a module inside a counted class needs no walk of its own.
        self.counted: dict[int, tuple[Inst, int]] = {}
        # Modules already built from the same class and arguments (see Interpreter.instantiate), and
        # the builds that failed, with the steps already spent when they started (run out of steps
        # from there, a build runs out from any later point too).
        # (package's __init__.py, name) -> its submodule `import package.name` read (module_name)
        self.submodules: dict[tuple[str, str], Any] = {}
        # key -> (build, state_version, its first serial, what it read of the machine: see `environment`)
        # Each entry keeps the objects its key names by id (_arg_key's pins).
        self.built: dict[Any, tuple[Inst, int, int, tuple[Any, ...], list[Any]]] = {}
        self.default_configs: dict[Any, Inst] = {}  # the file's config classes built with their defaults
        self.failed: dict[Any, tuple[type[Unresolved], str, Span | None, Any, int, tuple[Any, ...], int, list[Any]]] = {}
        # Writes to state that outlives a call (a global, a class attribute): a build that makes one
        # (`Counter.n += 1`) may build differently next time, so it is not kept for reuse.
        self.state_writes = 0
        # Changes of such state that a build may have read (a class attribute or global given a new
        # value, not one set for the first time): the builds kept before one are not reused after it.
        self.state_version = 0
        # The lists, dicts and sets that modules and classes hold (their state, shared by every
        # build), by id: written into, they change what a later build reads (remember_state). Kept
        # alive here: a global set anew frees its old container, whose id a build's list could take.
        self.state_containers: dict[int, Any] = {}
        # The names each function declares `global` or `nonlocal`, by id of its node.
        self.declared: dict[int, tuple[tuple[str, bool], ...]] = {}
        # Where from_pretrained("org/name") looks besides the bundled catalog (AnalyzeOptions.hf_cache).
        self.hf_cache: str | None = None
        # torch's default dtype (torch.set_default_dtype), which layers and factories make their
        # floating-point tensors in: a name, or None where the code set one the analyser does not
        # know. What the file's import sets stays; a count's own setting is undone after it (end_count).
        self.torch_defaults: dict[str, str | None] = {"dtype": "float32"}
        self.package_steps = PACKAGE_STEPS  # what installed packages' code may still take this count (enter_package)
        self.in_package = False
        self._hub: dict[tuple[str, str], Any] = {}
        self.hub_lookups = 0  # a count that used the catalog or the HF cache is not kept for the next analysis
        self.probing_attributes = 0  # > 0 inside getattr(obj, name, default) / hasattr (see _NoAttribute)
        # For loops found to only initialise weights (by id of the ast.For; the tree outlives the analysis).
        self.init_loops: dict[int, bool] = {}
        # The for loops running, innermost last (a DataLoader iterated knows the loop it is iterated
        # by), and whether each loop's body trains (by id of the ast.For, as init_loops).
        self.running_loops: list[tuple[ast.For, Env]] = []  # (the loop, its names)
        self.training_loops: dict[int, bool] = {}
        # The batch of each step the code trains with: (the model Lightning's Trainer.fit trains,
        # or None for a loop of the code's own, the DataLoader's batch_size); shims/torch_data.py.
        self.step_batches: list[tuple[Inst | None, Any]] = []
        # How a model's training is sharded, by Lightning's Trainer.fit (shims/lightning_trainer.py), FSDP
        # or FSDP2's fully_shard: (the model, the ZeRO stage or None where not known, what shards it as
        # the note says it, whether it offloads to the CPU, the devices or None where not known).
        self.step_shardings: list[tuple[Inst, int | None, str, bool, int | None]] = []
        self.handling: list[_Raised] = []  # the exceptions the except blocks now running caught
        # Environment variables the code read, in order: (name, the line that read it, its span in the
        # analysed file). The analysis takes each as unset (what it counts must not depend on the shell
        # it runs in); notes say so.
        self.environment: list[tuple[str, str, str, Span | None]] = []
        # The environment variables the code itself set (`os.environ["RWKV_JIT_ON"] = "1"`), which it then reads.
        self.environ_set: dict[str, str] = {}
        # What the trainers of a script (shims/trl.py) say of a training step, for the model each trains:
        # (model, trainer's class name, {"batch": 8, "context": 1024, "gradient_checkpointing": True}).
        self.training_plans: list[tuple[Inst, str, dict[str, Any]]] = []
        self.files_cap = MAX_PROJECT_FILES  # the files read so far may grow to (STATEMENT_FILES)
        # The optimizers the code built, each with the parameters it was given (their ids), the memory
        # model's name for it and its own (torch.optim.AdamW): a model they train is trained.
        self.optimizers: list[tuple[frozenset[int], str, str]] = []
        # The autocast regions the code entered (`with torch.autocast("cuda", dtype=torch.bfloat16):`),
        # by their dtype's name ("" where it is not known), for a training loop's precision.
        self.autocasts: list[str] = []
        self.quantized_loads = 0  # models from_pretrained loaded with bitsandbytes (_loaded_quantized)
        # `sys.argv`: the script's name alone, a command line that gives no arguments (as `parse_args()`
        # reads it); one list, which the code may change, for the whole analysis.
        self.argv: list[str] | None = None
        self.script_args: tuple[str, ...] | None = None  # the command line given (AnalyzeOptions.script_args)
        # Hydra's config directory, as `with initialize(config_path="conf"):` sets it (shims/hydra.py)
        self.hydra_dir: str | None = None
        # What makes importing the analysed file fail (a relative import of a module the package lacks):
        # no class of it can be built.
        self.import_errors: list[str] = []
        # The names a module-level statement of the analysed file would have bound had it not raised
        # (a class statement whose bases admit no MRO), by id of the Unknown they hold: a class
        # statement naming one as a base raises Python's NameError.
        self.unbound_by_raise: dict[int, Any] = {}
        # The module-level statements of the analysed file (not class statements, which their own
        # problem names) that raise Python's error, and why: importing the file stops at the first.
        self.import_raises: list[tuple[ast.stmt, str]] = []
        # The statements of the script's entry point (its __main__ block, the functions of the file
        # it runs) that raise Python's error, and why: the script stops at the first (run_entry).
        # (And how many of `environment`'s reads came before it: what it may have raised on.)
        self.entry_raises: list[tuple[ast.stmt, str, int]] = []
        # The imports that fail where they run (Interpreter.optional_imports): the package each names,
        # by id of its statement; and each one that failed (said or not: see Interpreter.failed_import).
        self.failing_imports: dict[int, str] = {}
        # The `try` blocks running now that catch ImportError, each by the module-loading depth it
        # runs at: an import in a function they call fails too (optional_import), not one of a
        # module being loaded meanwhile.
        self.import_guards: list[int] = []
        # How many `try` bodies run now: an error a decorator raises inside one is the statement's.
        self.trying = 0
        self.failed_imports: list[tuple[str, str, str, Span | None]] = []
        # > 0 while a file runs its top level (the analysed one, or a project file it imports): what a
        # library's code reads then (its logging verbosity, a CI flag) configures the library, so only
        # the analysed file's own reads are noted; during a class's build, every read is.
        self.importing = 0
        # While a class or function is counted: the class attributes and globals its build set, each
        # with what it held before (_MISSING: nothing), put back once the count ends (end_count):
        # each class is counted as built right after the import, as Python would build it.
        self.undo: list[tuple[dict[str, Any], str, Any]] | None = None
        # And the module-level containers it changed (`REGISTRY.append(self)`), each as it was before.
        self.undo_containers: dict[int, tuple[Any, Any]] = {}
        # What a `yield` of the generator now running does with its value: collect it (a generator
        # called) or run the body of the `with` it is the context manager of (see Interpreter.with_stmt).
        self.yield_hooks: list[Callable[[Any], None]] = []

    def scope_named(self, name: str) -> "ModuleScope | None":
        """The first module scope of the analysis whose import name is ``name``."""
        scopes = self.scopes
        if self._scopes_named > len(scopes):  # (cleared by analyzer._release)
            self._scopes_by_name.clear()
            self._scopes_named = 0
        while self._scopes_named < len(scopes):
            scope = scopes[self._scopes_named]
            self._scopes_named += 1
            if scope.path:  # (not the analyser's own scope for the calls it makes)
                self._scopes_by_name.setdefault(scope.dotted_name, scope)
        return self._scopes_by_name.get(name)

    def call_env(self) -> Env:
        """A fresh environment for a call the analyser makes itself (a default factory, ``__iter__``
        of a loop): of no file, in one module scope kept for them all."""
        scope = self._call_scope
        if scope is None or scope.env.module is None:  # (none yet, or released with the others)
            scope = self._call_scope = self.new_scope("")
        return Env(scope)

    def new_scope(self, path: str, span_of: Callable[[ast.AST], Span] | None = None, is_main: bool = False,
                  line_of: Callable[[int], int] | None = None) -> ModuleScope:
        scope = ModuleScope(path, span_of, is_main, line_of, self.package_dirs)
        self.scopes.append(scope)
        return scope

    def hub_model(self, loader: str, hub_id: str) -> Any:
        """The offline catalog's answer for ``loader.from_pretrained(hub_id)``, once per analysis."""
        key = (loader, hub_id)
        self.hub_lookups += 1
        if key not in self._hub:
            from lsp_count.pymodel.hub import resolve

            self._hub[key] = resolve(loader, hub_id, self.hf_cache, self.base_dirs[0] if self.base_dirs else None)
        return self._hub[key]

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            extra = f" (and {PACKAGE_STEPS:,} in the installed packages it reads)" if self.package_steps < PACKAGE_STEPS \
                else ""
            raise _OutOfSteps(f"the analysis took more than {self.budget:,} steps{extra} (a very long loop or "
                              f"recursion?)")

    def start_count(self, budget: int = MAX_STEPS) -> None:
        """A new class or function to count: its own step budget, call depth and class stack."""
        self.end_count()
        self.start_steps(budget)
        self.undo = []

    def start_steps(self, budget: int) -> None:
        """A step budget of its own, with the installed packages' allowance (a count's; a script's
        entry point statement's): the checks compare ``steps`` with MAX_STEPS, so a larger budget
        starts below 0."""
        self.steps, self.budget, self.depth, self.class_stack = MAX_STEPS - budget, budget, 0, []
        self.package_steps = PACKAGE_STEPS

    def steps_taken(self) -> int:
        """The steps taken since start_steps, the installed packages' included."""
        return self.steps - (MAX_STEPS - self.budget) + PACKAGE_STEPS - self.package_steps

    def enter_package(self) -> tuple[int, int]:
        """Installed package code called from the analysed code's: its steps are drawn from the
        count's package allowance first (the checks compare ``steps`` with MAX_STEPS, so the
        allowance is lent by lowering it). (steps before, the allowance lent)"""
        lent = self.package_steps
        before = self.steps
        self.steps -= lent
        self.in_package = True
        return before, lent

    def leave_package(self, entered: tuple[int, int]) -> None:
        """Back in the analysed code: what the package code took is paid from the allowance, the
        rest (past it) from the count's budget."""
        before, lent = entered
        used = max(self.steps - (before - lent), 0)  # (an import on the way starts the count's steps again)
        from_allowance = min(used, lent)
        self.package_steps = lent - from_allowance
        self.steps = before + used - from_allowance
        self.in_package = False

    def end_count(self) -> None:
        """Puts back the class attributes and globals the count set (``LoraAttn.rank = 2`` in one
        class's constructor is not what the next class counted sees)."""
        undo, self.undo = self.undo, None
        containers, self.undo_containers = self.undo_containers, {}
        changed = False
        for container, before in containers.values():
            counted = _contents(container)
            if isinstance(container, list):
                container[:] = before
            else:  # a dict or a set
                # A dict's key set for the first time stays, as a name does below (transformers'
                # _LazyModule memoises each submodule it imports at each count).
                added = [(k, v) for k, v in container.items() if k not in before] if isinstance(container, dict) else []
                container.clear()
                container.update(before)
                container.update(added)
            changed = changed or counted != _contents(container)
        for names, name, old in reversed(undo or ()):
            # One set for the first time stays (transformers' memos of a class, written at each count).
            if old is not _MISSING:
                changed = changed or _rebinds(names.get(name, _MISSING), old)
                names[name] = old
        if changed:
            self.state_version += 1  # the builds kept under the values now gone are not reused

    def logged_change(self, container: Any) -> None:
        """A module-level list, dict or set about to be changed by a build: kept as it is, once."""
        if self.undo is not None and not self.importing and id(container) not in self.undo_containers and \
                isinstance(container, (list, dict, set)):
            self.undo_containers[id(container)] = (container, container.copy())

    def logged_write(self, names: dict[str, Any], name: str) -> None:
        """A class attribute or global about to be set by a build (not by a file's import)."""
        if self.undo is not None and not self.importing:
            self.undo.append((names, name, names.get(name, _MISSING)))


_Constant, _Name, _Attribute, _Call, _Assign, _Return_stmt, _Tuple, _Compare, _If = (
    ast.Constant, ast.Name, ast.Attribute, ast.Call, ast.Assign, ast.Return, ast.Tuple, ast.Compare, ast.If)
# operator's functions of two numbers, as the operators they stand for (functools.reduce(operator.mul, ...)).
_OPERATOR_FUNCTIONS = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div, "floordiv": ast.FloorDiv,
                       "mod": ast.Mod, "pow": ast.Pow, "and_": ast.BitAnd, "or_": ast.BitOr, "xor": ast.BitXor,
                       "lshift": ast.LShift, "rshift": ast.RShift}
# Reads of an environment variable (see Interpreter.read_environment).
_ENVIRONMENT_GETS = frozenset({"os.environ.get", "os.getenv"})
_DATACLASS_MISSING = ExtV("dataclasses.MISSING")  # one object: code compares with `is`
# External names whose value the analyser knows: `if TYPE_CHECKING:` imports are for type checkers only.
_EXTERNAL_CONSTANTS: dict[str, Any] = {"typing.TYPE_CHECKING": False, "typing_extensions.TYPE_CHECKING": False,
                                        "dataclasses.MISSING": _DATACLASS_MISSING,
                                        "types.LambdaType": ExtV("types.FunctionType"),  # one class, two names
                                        **{f"{module}.{name}": getattr(math, name) for module in ("math", "torch", "numpy")
                                           for name in ("pi", "e", "inf", "nan")}, "math.tau": math.tau,
                                        "numpy.euler_gamma": 0.5772156649015329,
                                        **{f"re.{flag}": int(getattr(re, flag)) for flag in (
                                            "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE",
                                            "A", "ASCII")},
                                        "numpy.newaxis": None,  # `t[:, np.newaxis]` adds a dimension
                                        **{f"string.{name}": getattr(string, name) for name in (
                                            "ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits",
                                            "hexdigits", "octdigits", "punctuation", "printable", "whitespace")},
                                        # `if sys.version_info >= (3, 8):` around a def: the Python running the
                                        # analysis stands for the one that runs the model (a tuple: compared, indexed).
                                        "sys.version_info": tuple(sys.version_info)}


def params_of(inst: Inst) -> list[tuple[str, Param]]:
    """Parameters in torch's order (own first, then submodules), each tensor and module once."""
    out: list[tuple[str, Param]] = []
    seen: set[int] = {id(inst)}  # tensors and modules: a module that holds its parent is not entered again
    stack: list[tuple[str, Inst]] = [("", inst)]
    while stack:
        prefix, m = stack.pop()
        subs = []
        for name, v in m.attrs.items():
            t = type(v)
            if t is Param or (t is not Inst and isinstance(v, Param)):
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append((prefix + name, v))
            elif (t is Inst or isinstance(v, Inst)) and v.is_module and id(v) not in seen:
                seen.add(id(v))
                subs.append((prefix + name + ".", v))
        if subs:
            stack.extend(reversed(subs))
    return out


def numel(shape: tuple[Any, ...]) -> Any:
    total: Any = 1
    for d in shape:
        if type(d) is int and type(total) is int:
            total *= d  # what sym_mul does for two ints
            continue
        if isinstance(d, Unknown):
            return d
        total = sym_mul(total, d)
    return total


def count_of(inst: Inst) -> Any:
    """Parameters of a module, each tensor and module once (params_of's walk): an int, a Sym when a
    size is a formula, or the first Unknown size."""
    total: Any = 0
    for _, p in params_of(inst):
        n = numel(p.shape)
        if isinstance(n, Unknown):
            return n
        total = sym_add(total, n)
    return total


class _Uncloneable(Exception):
    """A build holds what a copy cannot have of its own (a generator, a function closing over the
    build's own modules): it is built again rather than copied."""


def clone(v: Any, memo: dict[int, Any] | None = None, since: int = -1) -> Any:
    """copy.deepcopy for modules and parameters (ties inside the copy are kept, as deepcopy does).
    ``since``: copy only the modules and parameters made from that serial on (a build's own), and
    keep the older ones it holds as they are (see values.next_serial)."""
    t = type(v)
    if t is not Inst and t is not Param and t is not list and t is not dict:
        if not isinstance(v, (Param, Inst, list, dict)):
            return v  # immutable or shared values (ints, strings, Syms, classes) are not copied
    try:
        return _clone(v, {} if memo is None else memo, since)
    except _Uncloneable:
        if since >= 0:
            raise  # the build cache's copy: built again instead
        raise _Raised("copying it raises TypeError: cannot pickle 'generator' object (it holds a generator)",
                      ExtV("TypeError")) from None


def _clone(v: Any, memo: dict[int, Any], since: int = -1) -> Any:
    vid = id(v)
    if vid in memo:
        return memo[vid]
    t = type(v)
    if (t is Inst or t is Param) and v.serial < since:
        return v  # made before the build: what a second build would hold too (no value class has subclasses)
    if t is Inst or (t is not Param and t is not list and t is not dict and isinstance(v, Inst)):
        if not v.is_module and type(v.cls) is ClassV and v.cls.enum_members is not None:
            return v  # an enum member: deepcopy keeps it (Enum.__deepcopy__), so `==` and `is` still hold
        out: Any = _empty_copy(v)
        memo[vid] = out
        attrs = out.attrs
        for k, x in v.attrs.items():
            tx = type(x)
            attrs[k] = _clone(x, memo, since) if (tx is Inst or tx is Param or tx is list or tx is dict or
                                                  tx in _HOLDING_TYPES or
                                                  isinstance(x, (Param, Inst, list, dict))) else x
        if out.unregistered:
            out.unregistered = {k: _clone(x, memo, since) for k, x in out.unregistered.items()}
        return out
    if t is Param or isinstance(v, Param):
        out = Param(v.shape, v.kind, v.requires_grad, v.origin, v.floating, v.declared)
        out.flags = v.flags
    elif isinstance(v, list):
        out = [clone(x, memo, since) for x in v]
    elif isinstance(v, dict):
        out = {k: clone(x, memo, since) for k, x in v.items()}
    elif t in _CONTAINER_VIEW_TYPES:  # a ModuleDict's view: of the copy's ModuleDict
        out = ContainerView.of(_clone(v.obj, memo, since), v.which)
    elif t is tuple:  # `self.pair = (self.fc, 3)`: the copy's own modules
        items = tuple(_clone(x, memo, since) for x in v)
        if all(a is b for a, b in zip(items, v)):
            return v
        out = items
    elif t is PartialV:  # `functools.partial(self.fc.requires_grad_, False)`
        out = PartialV(_clone(v.func, memo, since), tuple(_clone(x, memo, since) for x in v.args),
                       tuple((k, _clone(x, memo, since)) for k, x in v.kwargs))
    elif t is BoundV:
        out = BoundV(v.func, _clone(v.self_obj, memo, since))
    elif t is IteratorV or t is CycleV:
        if v.source is not None:
            raise _Uncloneable  # a generator's frame: Python's deepcopy refuses it too
        out = t([_clone(x, memo, since) for x in v.items])
        out.index = v.index
    elif t is BuiltinV:
        if since >= 0 and _closes_over_build(v.fn, since):
            raise _Uncloneable  # torch's method of one of the build's modules (`self.fc.requires_grad_`)
        return v
    elif t is FuncV:
        if since >= 0 and _reads_locals(v.env):
            raise _Uncloneable  # a closure over the build's variables (`lambda: self.fc...`)
        return v  # as deepcopy keeps a function
    else:
        return v
    memo[vid] = out
    return out


def _closes_over_build(fn: Any, since: int) -> bool:
    """Whether a function of the analyser's own holds a module or parameter made from ``since`` on
    (a torch method it gave for one: the copy's would have to be of the copy's module)."""
    held = [getattr(fn, "__self__", None)]
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            continue
    return any((type(x) is Inst or type(x) is Param) and x.serial >= since for x in held)


def _empty_copy(v: Inst) -> Inst:
    """A new instance like ``v`` with no attributes yet (clone and copy.copy fill them; its
    unregistered ones as copy.copy keeps them)."""
    out = Inst(v.cls, v.kind, v.is_module, v.origin)
    if v.unregistered:
        out.unregistered = dict(v.unregistered)
    out.layer_args = v.layer_args
    out.buffers = v.buffers  # never changed in place (_add_buffer, _drop_buffer): shared
    out.unfollowed = v.unfollowed
    out.modules_rebuilt = v.modules_rebuilt
    if v.none_slots:
        out.none_slots = dict(v.none_slots)
    return out


def _deepcopy_refused(v: Any) -> tuple[str, str] | None:
    """Python's error for ``copy.deepcopy(v)`` (its name and message), where the analyser knows one:
    a weight the hook version of nn.utils.weight_norm computes (a tensor that is no graph leaf,
    which torch refuses to deep-copy), or a dict view (which pickling refuses) held by the module
    or a submodule; None where the copy is made."""
    if type(v) in _CONTAINER_VIEW_TYPES:
        return "TypeError", f"cannot pickle '{type(v).__name__}' object"
    if type(v) is not Inst or not v.is_module:
        return None
    for path, owner, name, x in module_attributes(v):
        if type(x) is TensorV and type(owner.attrs.get(name + "_g")) is Param and \
                type(owner.attrs.get(name + "_v")) is Param:
            return "RuntimeError", (f"Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                                    f"protocol at the moment (`{path}` is computed by the hook version of "
                                    f"nn.utils.weight_norm; the parametrizations one deep-copies)")
        if type(x) in _CONTAINER_VIEW_TYPES:
            return "TypeError", f"cannot pickle '{type(x).__name__}' object"
    return None


def module_attributes(inst: Inst) -> Any:
    """(dotted path, the module that holds it, its name, value) of each attribute of the module
    and of its submodules, each module once."""
    stack = [("", inst)]
    seen: set[int] = set()
    while stack:
        prefix, m = stack.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        for name, v in m.attrs.items():
            yield f"{prefix}{name}", m, name, v
            if isinstance(v, Inst) and v.is_module:
                stack.append((f"{prefix}{name}.", v))


def _shallow_copy(v: Any) -> Any:
    """copy.copy: a module's copy holds the same parameters and submodules, in the same registries
    (torch's copy shares its ``_parameters`` and ``_modules`` dicts: a part replaced, added or
    deleted on one is so on the other, and each is counted once); the analyser keeps a module's
    registered parts and plain attributes in one dict, which the two share (a plain attribute
    set on one after the copy shows on the other too: torch keeps those apart). An object's copy
    has its own attributes; a list or dict, the same items."""
    t = type(v)
    if t is Inst or (t is not Param and isinstance(v, Inst)):
        out = _empty_copy(v)
        if v.is_module:
            out.attrs = v.attrs
        else:
            out.attrs.update(v.attrs)
        return out
    if t is list or t is dict or t is set:
        return t(v)
    return clone(v)  # a parameter: a new tensor, as torch's Parameter.__reduce_ex__ makes


class Interpreter:
    def __init__(self, ctx: Ctx) -> None:
        self.ext_names: dict[tuple[str, str], ExtV] = {}
        self.ext_split: dict[str, tuple[list[str], str, bool]] = {}
        self.installed: dict[str, bool] = {}  # package_installed's answers
        self.self_reads: dict[Any, ast.Attribute] = {}  # see self_attribute_node
        self.eval_trees: dict[str, ast.Expression] = {}  # eval(text): each text parsed once
        self.ctx = ctx

    # --- modules ---------------------------------------------------------------------------

    def run_module(self, tree: ast.Module, scope: ModuleScope) -> None:
        # Its import name (timm's register_model finds a model's module in sys.modules by it), never
        # "__main__": scripts' main blocks stay unrun.
        dotted = scope.dotted_name
        scope.env.vars["__name__"] = dotted if dotted.rpartition(".")[2] != "__main__" else "__analysed__"
        self.ctx.importing += 1
        try:
            self._run_module(tree, scope)
        finally:
            self.ctx.importing -= 1

    def remember_state(self, names: dict[str, Any]) -> None:
        """The containers and config objects a module's names or its classes' attributes hold (Ctx.state_containers), and
        the mutable defaults of its functions and methods (`def __init__(self, dim, extra=[])`: made
        once, so a count that fills one would leave it filled for the next class)."""
        containers = self.ctx.state_containers
        budget = [_NESTED_STATE_LIMIT]
        for value in names.values():
            t = type(value)
            if _is_state(value):
                _add_state(value, containers, budget)
            elif t is FuncV:
                _remember_defaults(value, containers, budget)
            elif t is ClassV:
                for v in value.namespace.values():
                    if _is_state(v):
                        _add_state(v, containers, budget)
                    elif type(v) is FuncV:
                        _remember_defaults(v, containers, budget)

    def _run_module(self, tree: ast.Module, scope: ModuleScope) -> None:
        try:
            self._run_statements(tree, scope)
        finally:
            scope.ran = True
            self.remember_state(scope.env.vars)

    def _run_statements(self, tree: ast.Module, scope: ModuleScope) -> None:
        for stmt in tree.body:
            if _is_lazy_package_block(stmt):
                continue  # lazy_module_name reads its TYPE_CHECKING imports when a name is asked for
            if scope.is_main:
                self.ctx.files_cap = min(MAX_PROJECT_FILES, len(self.ctx.loaded) + STATEMENT_FILES)
            try:
                try:
                    self.exec_stmt(stmt, scope.env)
                except _FilesCapped as capped:
                    if not scope.is_main:
                        raise
                    raise Unresolved(capped.reason) from None
            except (Unresolved, _Return, _Break, _Continue, RecursionError) as exc:
                if type(exc) is _MissingModule and scope.is_main:
                    self.ctx.import_errors.append(exc.reason)
                reason = exc.reason if isinstance(exc, Unresolved) else "not followed"
                # Python's own error (not a missing package, which the user may have): the name is never bound.
                unbound = _raised_by_python(exc)
                # A module class Python refused (make_class kept it, last, to say so): what names it is a module.
                refused_module = isinstance(stmt, ast.ClassDef) and bool(scope.classes) and scope.classes[-1].node is stmt
                for value in _forget_assigned(stmt, scope.env.vars, reason, refused_module):
                    if unbound:
                        self.ctx.unbound_by_raise[id(value)] = value
                if not unbound:
                    self.forget_changed(stmt, scope.env.vars, reason)
                if unbound and scope.is_main and not isinstance(stmt, ast.ClassDef):
                    self.ctx.import_raises.append((stmt, reason))
            self.ctx.steps = MAX_STEPS - self.ctx.budget  # module-level code: the count's whole budget per statement
            if scope.is_main:
                self.ctx.package_steps = PACKAGE_STEPS  # (and the packages' allowance)
                self.ctx.files_cap = MAX_PROJECT_FILES

    def run_entry(self, body: list[ast.stmt], env: Env, follow: Callable[[ast.stmt, Env], bool] | None = None) -> bool:
        """A script's entry point (its ``if __name__ == "__main__":`` block, the body of the
        ``main()`` it calls), statement by statement, as the module's statements are run at import:
        one the analyser cannot follow (a dataset it does not read, the training loop, which has
        ENTRY_LOOP_STEPS) is skipped, and the names it assigns are not known. ``follow``: called
        first with each statement and the environment; True where it ran the statement itself (script.py follows a
        ``main()`` call so). Run once the file's classes are counted (and Ctx.end_count has undone
        the last one's changes), with nothing undone after it: a script's
        ``torch.set_default_dtype`` holds for the models it builds next. True where a ``return``
        ended it."""
        ctx = self.ctx
        for stmt in body:
            if ctx.entry_steps > ENTRY_STEPS:
                _forget_assigned(stmt, env.vars, f"the script's entry point took more than {ENTRY_STEPS:,} steps before it")
                continue
            ctx.start_steps(ENTRY_LOOP_STEPS if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) else MAX_STEPS)
            if isinstance(stmt, ast.Try):
                # `try: main()` / `except KeyboardInterrupt: ...`: its blocks as the entry point's own
                # statements (a handler runs where Python raises, which the analyser does not follow).
                if self.run_entry([*stmt.body, *stmt.orelse, *stmt.finalbody], env, follow):
                    return True
                continue
            followed = False
            ctx.files_cap = min(MAX_PROJECT_FILES, len(ctx.loaded) + STATEMENT_FILES)
            try:
                followed = follow is not None and follow(stmt, env)
                if not followed and isinstance(stmt, ast.If):
                    # The branch Python takes, statement by statement as the entry point's own: one it
                    # cannot follow (run_clm's logging of `p.data_ptr()`) loses its own names, not the
                    # model the branch built before it. (A condition not known: the whole `if`, below.)
                    taken = self.branch(stmt.test, stmt.body, stmt.orelse, env)
                    followed = True
                    if self.run_entry(taken, env, follow):
                        return True
                elif not followed:
                    self.exec_stmt(stmt, env)
            except _Return:
                return True  # `return` in main(): Python runs no more of it
            except (Unresolved, _FilesCapped, _Break, _Continue, RecursionError) as exc:
                reason = exc.reason if isinstance(exc, (Unresolved, _FilesCapped)) else "not followed"
                if _raised_by_python(exc) and env.module.is_main:
                    ctx.entry_raises.append((stmt, reason, len(ctx.environment)))
                _forget_assigned(stmt, env.vars, reason)
                self.forget_changed(stmt, env.vars, reason)
            finally:
                ctx.files_cap = MAX_PROJECT_FILES
                if not followed:  # (a followed main()'s statements counted their own)
                    ctx.entry_steps += ctx.steps_taken()
        return False

    def may_change(self, fn: Any, name: str, seen: set[int]) -> bool:
        """Whether calling the method ``name`` (``fn``, bound to a module) may change the module, read
        from its source: False only for a method of the code read that sets nothing on its ``self``
        or a part of it, passes neither to another function, and calls only such methods of its own
        and torch's methods that read (``self.named_parameters()``); a method of torch's other than
        those that read may."""
        if name in _SIZE_KEEPING_METHODS:
            return False
        target = fn.func if type(fn) is BoundV else fn
        if type(target) is not FuncV:
            return True
        if id(target) in seen:
            return False
        seen.add(id(target))
        node = target.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or target.kind == "static":
            return True
        try:
            body = node.body if getattr(node, "deferred", None) is None else self.deferred_body(target)
        except Unresolved:
            return True
        params = node.args.posonlyargs + node.args.args
        if not params:
            return True
        me = params[0].arg
        owner = fn.self_obj if type(fn) is BoundV else None
        nodes = [n for stmt in body for n in _statement_nodes(stmt)]
        through = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}  # `self` of `self.x`
        for n in nodes:
            if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)) and \
                    _root_name(n) == me:
                return True
            if isinstance(n, ast.Name) and n.id == me and isinstance(n.ctx, ast.Load) and id(n) not in through:
                return True  # `model = self`, `helper(self)`: held or passed on
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Name) and f.id in ("setattr", "delattr", "exec", "eval", "vars"):
                    return True
                if not (isinstance(f, ast.Name) and f.id in _BUILTINS_THAT_READ) and any(
                        _root_name(a.value if isinstance(a, ast.Starred) else a) == me
                        for a in [*n.args, *(k.value for k in n.keywords)]):
                    return True  # `_get_submodules(self.model, key)`: a part passed on
                if isinstance(f, ast.Attribute) and _root_name(f.value) == me:
                    if isinstance(f.value, ast.Name):  # `self.method(...)`
                        own = owner.cls.find(f.attr, None) if type(owner) is Inst and type(owner.cls) is ClassV else None
                        if type(own) is FuncV:
                            if self.may_change(BoundV(own, owner), f.attr, seen):
                                return True
                        elif f.attr not in _READING_MODULE_METHODS:
                            return True
                    elif f.attr not in _READING_MODULE_METHODS:
                        return True  # `self.model.merge_and_unload()`, `self.blocks.append(...)`
        return False

    def forget_changed(self, stmt: ast.stmt, names: dict[str, Any], reason: str) -> None:
        """A module-level statement the analyser could not follow may have changed the module's
        objects before it stopped (``SIZES[make_key()] = 16`` may have replaced any of SIZES'
        values; ``setup()`` may have run its ``SIZES["a"] = 5``): what it writes, itself or in the
        functions and methods it calls (read from their source, not run), is not known any more:
        a container it writes an item of under a key not known, or calls a changing method of; an
        item under a constant key; an attribute it sets on a class, an object or a module."""
        self._forget_written(list(_statement_nodes(stmt)), names, None, None, None,
                             f"is changed by code the analyser cannot follow: {reason}", set())

    def _forget_written(self, nodes: list[ast.AST], names: dict[str, Any], in_function: frozenset[str] | None,
                        self_name: str | None, owner: Any, why: str, seen: set[int]) -> None:
        """``names``: the globals of the code ``nodes`` are from; ``in_function``: a function's own
        names (None for the module's statement, whose names are said already); in a method,
        ``self_name`` is its first parameter, standing for ``owner``."""
        local = in_function or frozenset()
        # Attributes given a literal, a comparison or a text (`model.require_backward_grad_sync =
        # micro_step == steps - 1` under `if ddp:` in llama2.c's training loop): a flag, no part of
        # a module (a comparison of tensors is a tensor, not a parameter), unless a part is what it replaces.
        flags = {id(t) for n in nodes if type(n) is ast.Assign and _never_a_part(n.value)
                 for t in n.targets if type(t) is ast.Attribute}
        for node in nodes:
            if type(node) is ast.Name and isinstance(node.ctx, (ast.Store, ast.Del)) and in_function is not None and \
                    node.id not in local and node.id in names:  # a function's `global WIDTH; WIDTH = 16`
                names[node.id] = Unknown(f"`{node.id}` {why}", maybe_module=True)
            elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self._forget_target(node, names, local, self_name, owner, why, id(node) in flags)
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in _MUTATING_METHODS:
                    # `SIZES.append(v)`, `self.blocks.append(layer)`: the container it is called on is written
                    self._forget_target(func.value, names, local, self_name, owner, why)
                self._forget_called(func, names, local, why, seen)

    def _forget_target(self, target: ast.expr, names: dict[str, Any], local: frozenset[str], self_name: str | None,
                       owner: Any, why: str, flag: bool = False) -> None:
        """What writing ``target`` (a name, or an item or attribute reached from one) makes not known:
        a container held by a global name; the attribute or the item under a constant key that
        follows the name (``X.a`` of ``X.a.b = v``, ``X["k"]`` of ``X["k"][0] = v``), else the whole
        container; on ``self`` in a method, the owner's attribute."""
        if isinstance(target, ast.Name):
            held = names.get(target.id) if target.id not in local and target.id != self_name else None
            if isinstance(held, (list, dict, set, collections.deque)) or type(held) is Inst:
                names[target.id] = Unknown(f"`{target.id}` {why}", maybe_module=type(held) is Inst)
            return
        first: Any = target
        while isinstance(first.value, (ast.Subscript, ast.Attribute)):
            first = first.value
        base = first.value
        if not isinstance(base, ast.Name):
            return
        if base.id == self_name and owner is not None:
            held, global_name = owner, None
        elif base.id in local or base.id not in names:
            return
        else:
            held, global_name = names[base.id], base.id
        said = f"`{base.id}` {why}"
        if flag and first is target and type(held) is Inst and type(held.attrs.get(first.attr)) not in (Inst, Param) \
                and not (type(held.attrs.get(first.attr)) is Unknown and held.attrs[first.attr].maybe_module):
            held.attrs[first.attr] = Unknown(said)  # `target` is `first`: given a literal, never a part
        elif isinstance(first, ast.Attribute):
            _forget_attribute(held, first.attr, said)
        elif not _forget_item(held, first, said) and global_name is not None and (
                isinstance(held, (list, dict, set, collections.deque)) or type(held) is Inst):
            names[global_name] = Unknown(said, maybe_module=type(held) is Inst)

    def _forget_called(self, func: ast.expr, names: dict[str, Any], local: frozenset[str], why: str,
                       seen: set[int]) -> None:
        """What the function or method a call names writes (see forget_changed)."""
        owner: Any = None
        target: Any = None
        if isinstance(func, ast.Name) and func.id not in local:
            target = names.get(func.id)
            if type(target) is ClassV:  # making an object runs its __init__
                target = target.find("__init__", None)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in local:
            receiver = names.get(func.value.id)
            if type(receiver) is Inst and receiver.is_module and func.attr in _SIZE_KEEPING_METHODS:
                return  # `pmodel.generate(**batch)`: changes no size (as Interpreter.may_change says)
            if type(receiver) is Inst and type(receiver.cls) is ClassV:
                owner, target = receiver, receiver.cls.find(func.attr, None)
            elif type(receiver) is ClassV:
                owner, target = receiver, receiver.find(func.attr, None)
            elif type(receiver) is ModV:
                target = receiver.names.get(func.attr)
        if type(target) is not FuncV or id(target) in seen or target.env is None or \
                not isinstance(target.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        seen.add(id(target))
        try:
            body = target.node.body if getattr(target.node, "deferred", None) is None else self.deferred_body(target)
        except Unresolved:
            return  # a body that does not parse never ran
        params = target.node.args.posonlyargs + target.node.args.args
        self_name = params[0].arg if owner is not None and params and target.kind != "static" else None
        nodes = [n for stmt in body for n in _statement_nodes(stmt)]
        self._forget_written(nodes, target.env.module.env.vars, _function_locals(target.node, body) - {self_name},
                             self_name, owner, why, seen)

    def find_project_module(self, scope: ModuleScope, module: str | None, level: int) -> str | None:
        """The project file an import names (``.layers``, ``pkg.mod``), or None where it is not one."""
        key = (os.path.dirname(scope.path), module, level)  # the files of a package import the same modules
        found = self.ctx.found.get(key, _UNREAD)
        if found is _UNREAD:
            found = self.ctx.found[key] = self._find_project_module(scope, module, level)
        return found

    def _find_project_module(self, scope: ModuleScope, module: str | None, level: int) -> str | None:
        parts = (module or "").split(".") if module else []
        if level:
            base = os.path.dirname(os.path.abspath(scope.path))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            roots: tuple[str, ...] = (base,)
        else:
            here = os.path.dirname(os.path.abspath(scope.path))
            own = _own_package_root(here, parts[0] if parts else "", self.ctx.package_dirs)
            # A file of the package `top` that imports `top` means the package, as Python imports a
            # package's module, even beside a module of that name (lucidrains' `flamingo_pytorch/
            # flamingo_pytorch.py`); a script run from its directory would see the module instead.
            roots = own + (here,) + self.ctx.base_dirs + _repository_roots(here) if own else \
                (here,) + self.ctx.base_dirs + _repository_roots(here)
        for root in roots:
            found = self.module_file(os.path.join(root, *parts) if parts else root)
            if found is not None:
                return found
        if not level and parts and parts[0] in self.ctx.read_packages:  # an installed model library
            return installed_module(parts, self.ctx.site_packages, self.module_file)
        return None

    def module_file(self, stem: str) -> str | None:
        """environments.module_file, noting the files looked for where there is none (Ctx.missing);
        once per analysis for each path."""
        known = self.ctx.module_files
        found = known.get(stem, _UNREAD)
        if found is _UNREAD:
            found = known[stem] = module_file(stem)
            if found is None:
                self.ctx.missing.update((stem + ".py", os.path.join(stem, "__init__.py")))
        return found

    def load_project_file(self, key: str) -> ModV | None:
        """The project file's names, read once per analysis; None when it cannot be read, while it
        is being read (a cycle of imports sees nothing) or past MAX_PROJECT_FILES."""
        from lsp_count.pymodel.loader import load_module

        loaded = self.ctx.loaded
        if key not in loaded:
            if len(loaded) >= self.ctx.files_cap:
                if self.ctx.files_cap < MAX_PROJECT_FILES:
                    raise _FilesCapped(f"it reads more than {STATEMENT_FILES} files of the project and its packages, "
                                       f"the most one statement of the analysed file may read (the next: "
                                       f"{os.path.basename(key)})")
                return None
            loaded[key] = None
            try:
                loaded[key] = load_module(self, key)
            except _FilesCapped:
                del loaded[key]  # read again, whole, where a later statement imports it
                raise
        return loaded[key]

    def load_project_module(self, scope: ModuleScope, module: str | None, level: int) -> ModV | None:
        key = self.find_project_module(scope, module, level)
        return self.load_project_file(key) if key is not None else None

    def read_lazy(self, lazy: LazyImport) -> Any:
        """What a LazyImport names, reading its file on first use."""
        if lazy.value is _UNREAD:
            lazy.value = Unknown(f"`{lazy.dotted}` is imported in a cycle", maybe_module=True)
            try:
                lazy.value = self._read_lazy(lazy)
            except _FilesCapped:
                lazy.value = _UNREAD
                raise
        return lazy.value

    def _read_lazy(self, lazy: LazyImport) -> Any:
        over = len(self.ctx.loaded) >= MAX_PROJECT_FILES and lazy.path not in self.ctx.loaded
        mod = self.load_project_file(lazy.path)
        if mod is None:
            if over:
                return Unknown(f"`{lazy.dotted}` is in one more project file than the {MAX_PROJECT_FILES} the "
                               f"analyser reads for one file", maybe_module=True)
            return ExtV(lazy.dotted)
        if lazy.name is None:
            return mod
        value = mod.names.get(lazy.name, lazy)
        if value is not lazy:  # itself: a package's `from . import sub` names its submodule
            return self.read_lazy(value) if type(value) is LazyImport else value
        base = lazy.dotted.rsplit(".", 1)[0] if "." in lazy.dotted else ""
        sub = self.load_project_module(lazy.scope, f"{base}.{lazy.name}" if base else lazy.name, lazy.level)
        if sub is not None:
            return sub
        value = self.lazy_module_name(lazy.path, lazy.name)
        return value if value is not _MISSING else Unknown(
            f"`{lazy.name}` is not defined in `{'.' * lazy.level}{base}`", maybe_module=True)

    def module_name(self, mod: ModV, name: str) -> Any:
        """A project module's name (read now if it was imported lazily); _MISSING if it has none."""
        if name in mod.names:
            v = mod.names[name]
            return self.read_lazy(v) if type(v) is LazyImport else v
        if not _is_package(mod.path):
            return _MISSING
        submodule = self.ctx.submodules.get((mod.path, name))
        if submodule is not None:  # `import litgpt.model` made `model` an attribute of the package
            return self.read_lazy(submodule)
        return self.lazy_module_name(mod.path, name)

    def import_submodules(self, env: Env, dotted: str) -> None:
        """``import pkg.sub.mod``: each module of the project it names becomes an attribute of its
        package, as Python sets it on import (`getattr(litgpt.model, name)` after `import litgpt.model`)."""
        scope = env.module
        parts = dotted.split(".")
        parent = self.find_project_module(scope, parts[0], 0)
        for i in range(1, len(parts)):
            child = self.find_project_module(scope, ".".join(parts[:i + 1]), 0)
            if parent is None or child is None:
                return
            self.ctx.submodules.setdefault((parent, parts[i]), LazyImport(child, None, ".".join(parts[:i + 1]), 0, scope))
            parent = child

    def lazy_module_name(self, path: str, name: str) -> Any:
        """A name of a package that replaces itself with a lazy module (``sys.modules[__name__] =
        _LazyModule(...)``, as transformers' packages do): what its ``if TYPE_CHECKING:`` block
        imports under that name, the block written for static readers; _MISSING where it has none."""
        from lsp_count.pymodel.loader import _parse

        tree = _parse(path, self.ctx.trees)
        block = next((s.body for s in (tree.body if tree is not None else []) if _is_lazy_package_block(s)), None)
        if block is None:
            return _MISSING
        scope = self.ctx.new_scope(path)
        for stmt in reversed(list(_block_imports(block))):  # the last import of a name is the one Python keeps
            for alias in reversed(stmt.names):
                if alias.name == "*" or (alias.asname or alias.name) == name:
                    if alias.name == "*":
                        # A star import's module is read only if its text may define the name, or, for a
                        # package, if a file under it does (transformers' models/ star-imports 557 packages).
                        target = self.find_project_module(scope, stmt.module, stmt.level)
                        if target is None or not (self.package_defines(target, name) if _is_package(target)
                                                  else _may_define(target, name)):
                            continue
                    mod = self.load_project_module(scope, stmt.module, stmt.level)
                    key = name if alias.name == "*" else alias.name
                    if mod is None or (alias.name == "*" and key.startswith("_") and not _exported(mod, key)):
                        continue
                    value = self.module_name(mod, key)  # a lazy package answers from its own block
                    if value is not _MISSING:
                        return value
        return _MISSING

    def package_defines(self, init: str, name: str) -> bool:
        """Whether the package of ``init`` (its __init__.py) or a file under it defines ``name`` at
        top level (_may_define). The files under a directory are searched once per analysis for
        the name's bytes (transformers' models/: 2,600 files, about 0.1 s), and only when a lookup
        reaches a star import of a package: `from transformers import AutoBackbone` inside
        transformers, exported through `from .models import *` and then `from .auto import *`."""
        if _may_define(init, name):
            return True
        directory = os.path.dirname(init)
        definers = self.ctx.definers
        for (searched, word), found in definers.items():
            if word == name and (directory + os.sep).startswith(searched + os.sep):
                return any(f.startswith(directory + os.sep) for f in found)
        found = definers[(directory, name)] = _files_defining(directory, name)
        return bool(found)

    # --- statements ------------------------------------------------------------------------

    def exec_block(self, body: list[ast.stmt], env: Env) -> None:
        for stmt in body:
            self.exec_stmt(stmt, env)

    def exec_stmt(self, s: ast.stmt, env: Env) -> None:
        ctx = self.ctx
        ctx.steps += 1
        if ctx.steps > MAX_STEPS:
            ctx.tick()  # raises with the message
        if type(s) is _Assign:  # the commonest statement, by exact type (as the chain below does it)
            value = self.ev(s.value, env)  # type: ignore[attr-defined]
            for target in s.targets:  # type: ignore[attr-defined]
                if type(target) is _Name:
                    env.vars[target.id] = value
                else:
                    self.assign(target, value, env)
            return
        if type(s) is _If:  # next commonest: every hook and constructor branches
            self.exec_block(self.branch(s.test, s.body, s.orelse, env), env)  # type: ignore[attr-defined]
            return
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return  # docstring
            call = s.value
            if type(call) is ast.Call and type(call.func) is _Name and call.func.id in ("map", "filter") and \
                    self.ev(call.func, env) is _BUILTINS[call.func.id]:
                # A bare `map(lambda p: p.requires_grad_(False), ...)`: Python 3's map is lazy and the
                # iterator is dropped, so the function never runs; only its arguments are evaluated.
                for arg in call.args:
                    self.ev(arg.value if type(arg) is ast.Starred else arg, env)
                for keyword in call.keywords:
                    self.ev(keyword.value, env)
                return
            self.ev(s.value, env)
        elif isinstance(s, ast.Assign):
            value = self.ev(s.value, env)
            for target in s.targets:
                self.assign(target, value, env)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.ev(s.value, env), env)
        elif isinstance(s, ast.AugAssign):
            current = self.ev(_load(s.target), env)
            value = self.ev(s.value, env)
            result = self.in_place(type(s.op), current, value, s)
            self.assign(s.target, self.binop(type(s.op), current, value, s) if result is _MISSING else result, env)
        elif isinstance(s, ast.For):
            skip = ctx.init_loops.get(id(s))
            if skip is None:
                skip = ctx.init_loops[id(s)] = only_initialises(s)
            if skip:
                return  # `for p in self.parameters(): nn.init.normal_(p)` changes no size or flag
            ctx.running_loops.append((s, env))
            try:
                items = self.ev(s.iter, env)
                if type(items) is list:
                    items = iter(items)  # Python's list iterator: an item appended (or removed) in the body is seen
                elif type(items) in _LIVE_ITERABLES:
                    items = _live_items(items, s.iter)  # Python's: a body that adds or removes a key makes it raise
                elif type(items) is Inst and _iterates_live(items):
                    items = _live_container(items)  # torch's containers iterate their live dicts, as Python's do
                elif type(items) in _CONTAINER_VIEW_TYPES:
                    items = items.live()
                elif type(items) is not IteratorV:
                    items = self.iterate(items, s.iter)
                # An iterator is taken from as the loop goes: `next(it)` in the body takes the next item,
                # and a `break` leaves the rest in it.
                broke = False
                for item in items:
                    self.ctx.tick()
                    self.assign(s.target, item, env)
                    try:
                        self.exec_block(s.body, env)
                    except _Break:
                        broke = True
                        break
                    except _Continue:
                        continue
                if not broke:
                    self.exec_block(s.orelse, env)
            finally:
                ctx.running_loops.pop()
        elif isinstance(s, ast.While):
            n = 0
            while _loop_condition(self.ev(s.test, env), s.test):
                n += 1
                if n > MAX_ITERATIONS:
                    raise Unresolved(f"the while loop on {env.module.where(s.lineno)} runs more than {MAX_ITERATIONS:,} times")
                try:
                    self.exec_block(s.body, env)
                except _Break:
                    break
                except _Continue:
                    continue
            else:  # as a for loop's: when the condition ends the loop, not a break
                self.exec_block(s.orelse, env)
        elif isinstance(s, ast.Return):
            raise _Return(None if s.value is None else self.ev(s.value, env))
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            fn = self.make_function(s, env)
            if s.decorator_list and env is env.module.env:
                env.vars[s.name] = self.decorate(fn, s, env)
            else:
                env.vars[s.name] = fn
                if s.decorator_list:
                    self.apply_wraps(fn, s, env)
                    if all(self.is_cache_decorator(d, env) for d in s.decorator_list):
                        # a factory cached where it is defined (`@lru_cache def make_norm(dim)` in an
                        # __init__): each call with the same arguments gives the same module, shared
                        env.vars[s.name] = self.apply_decorators(fn, s.decorator_list, env, (FuncV,))
        elif isinstance(s, ast.ClassDef):
            replaced = _LIBRARY_CLASSES.get(s.name)
            if replaced is not None and _path_ends(env.module.path, replaced[0]):
                env.vars[s.name] = self.shim_class(replaced[1])
                return
            cls = self.make_class(s, env)
            replaced_methods = _LIBRARY_METHODS.get(s.name)
            if replaced_methods is not None and _path_ends(env.module.path, replaced_methods[0]):
                for method, (path, shim_name) in replaced_methods[1].items():
                    found = self.shim_value(path, shim_name, f"{s.name}.{method}")
                    if type(found) is FuncV:
                        cls.namespace[method] = found
            env.vars[s.name] = self.decorate_class(cls, s, env) if s.decorator_list else cls
        elif isinstance(s, ast.Import | ast.ImportFrom) and ctx.failing_imports and id(s) in ctx.failing_imports:
            self.failed_import(s, env)
        elif isinstance(s, ast.Import | ast.ImportFrom) and ctx.import_guards and \
                ctx.import_guards[-1] == ctx.importing and (module := self.optional_module(s, env)) is not None:
            ctx.failing_imports[id(s)] = module  # `def fused(): import xformers.ops` called in a `try`
            try:
                self.failed_import(s, env)
            finally:
                ctx.failing_imports.pop(id(s), None)
        elif isinstance(s, ast.Import):
            for alias in s.names:
                if alias.asname:
                    env.vars[alias.asname] = self.import_value(env, alias.name, 0)
                else:
                    top = alias.name.split(".")[0]
                    env.vars[top] = self.import_value(env, top, 0)
                    if "." in alias.name and may_import_project(alias.name, 0):
                        self.import_submodules(env, alias.name)
        elif isinstance(s, ast.ImportFrom):
            self.import_from(s, env)
        elif isinstance(s, ast.Assert):
            self.assert_stmt(s, env)
        elif isinstance(s, ast.Pass | ast.Global | ast.Nonlocal):
            return
        elif isinstance(s, ast.Break):
            raise _Break()
        elif isinstance(s, ast.Continue):
            raise _Continue()
        elif isinstance(s, ast.Raise):
            self.raise_stmt(s, env)
        elif isinstance(s, ast.Try):
            self.try_stmt(s, env)
        elif isinstance(s, ast.With):
            self.with_stmt(s.items, s.body, env)
        elif isinstance(s, ast.Delete):
            for target in s.targets:
                self.delete(target, env)
        elif isinstance(s, ast.Match):
            self.match_stmt(s, env)
        else:
            raise Unresolved(f"`{type(s).__name__}` statement on {env.module.where(s.lineno)} is not followed")

    def copied_into(self, t: TensorV | Param, src: Any, node: ast.AST) -> Any:
        """``t.copy_(src)``: t, its values src's where known; torch's error where src's shape does
        not broadcast to t's (MADE's mask copied from a numpy array of another shape)."""
        if isinstance(src, (TensorV, Param)) and all(type(d) is int for d in (*src.shape, *t.shape)):
            try:
                fits = shapes.broadcast_shape(tuple(t.shape), tuple(src.shape)) == tuple(t.shape)
            except shapes.ShapeError:
                fits = False
            if not fits:
                raise Unresolved(f"`{_text(node)}`: a tensor of shape {tuple(src.shape)} copied into one of shape "
                                 f"{tuple(t.shape)} (torch raises)")
        if isinstance(t, TensorV) and t.values is not None:
            return self.values_in_place(t, "copy_", (src,), {}, node)
        return t

    def values_in_place(self, t: TensorV, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                        node: ast.AST) -> TensorV:
        """An in-place method of a tensor whose values the analysis keeps: ``add_`` and its kin
        compute them, ``zero_`` / ``fill_`` set them; any other leaves them unknown."""
        op = _METHOD_OPS.get(name[:-1])
        if op is not None and len(args) == 1 and not kwargs:
            result = self.tensor_binop(op, t, args[0], node, operator_syntax=False)
            _set_values(t, result if isinstance(result, TensorV) and tuple(result.shape) == tuple(t.shape) else None)
        elif name in ("zero_", "fill_") and t.dtype is not None and (name == "zero_" or (
                len(args) == 1 and not kwargs and type(args[0]) in (int, float, bool))):
            try:
                value = tensor_values.cast_number(args[0] if args else 0, t.dtype)
            except tensor_values.Undecidable:
                _forget_values(t)
            else:
                _set_values(t, TensorV(tuple(t.shape), (value,) * len(t.values or ()), dtype=t.dtype))
        else:
            _forget_values(t)
        return t

    def in_place(self, op: type, current: Any, value: Any, s: ast.AugAssign) -> Any:
        """``current op= value`` where Python changes ``current`` itself (every name holding it sees
        the change): a list's ``+=``, a dict's or a set's ``|=``, a ModuleList's ``+=`` (torch's
        __iadd__: extend), a Sequential's ``+=`` of another. _MISSING for the rest, computed as ``op``."""
        t = type(current)
        if (t is TensorV or t is Param) and op is not ast.MatMult:  # torch's `t += x` changes t itself; `@=` makes a new one
            result = self.tensor_binop(op, current, value, s)
            if isinstance(result, TensorV) and tuple(result.shape) != tuple(current.shape) and all(
                    type(d) is int for d in (*result.shape, *current.shape)):
                raise Unresolved(f"`{_text(s)}`: the result's shape {tuple(result.shape)} is not the tensor's "
                                 f"{tuple(current.shape)} (torch raises)")
            _set_values(current, result if t is TensorV and isinstance(result, TensorV) else None)
            return current
        if op is ast.Add and (t is list or (t is Inst and current.kind in ("list", "plist"))):
            items = self.iterate(value, s.value)
            size = len(current) if t is list else len(current.attrs)
            if size + len(items) > MAX_SEQUENCE:
                raise Unresolved(f"`{_text(s)}` builds a sequence longer than {MAX_SEQUENCE:,}")
            if t is list:
                current.extend(items)
            else:
                # torch's extend numbers from len(self), its entries: not its plain attributes
                container, offset = CONTAINER_CLASSES[current.kind], _entry_count(current)
                for i, item in enumerate(items):
                    current.attrs[str(offset + i)] = self.check_member(item, container, s)
            return current
        if op is ast.Add and t is Inst and current.kind == "seq" and type(value) is Inst and value.kind == "seq":
            offset = _entry_count(current)
            for i, (_, item) in enumerate(container_entries(value)):
                current.attrs[str(offset + i)] = item
            return current
        if op is ast.BitOr and t is Inst and current.kind == "pdict":  # torch's __ior__: update(other)
            _module_methods(self, current, "update")["update"](value)
            return current
        if op is ast.Mult and t is Inst and current.kind == "seq" and type(value) is int:
            return _sequential_repeated_in_place(current, value, s)
        if op is ast.BitOr and t in (dict, DefaultDict, OrderedDictV) and isinstance(value, dict) and type(
                value) is not ModulesView:
            current.update(value)
            return current
        if t is set and op in _SET_IN_PLACE and type(value) in (set, frozenset):
            return _SET_IN_PLACE[op](current, value)
        return _MISSING

    def delete(self, target: ast.expr, env: Env) -> None:
        """``del target``: a name, an attribute, an item (``del return_layers[name]`` decides when
        torchvision's IntermediateLayerGetter stops taking a backbone's layers), or several."""
        if isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self.delete(elt, env)
        elif isinstance(target, ast.Name):
            env.vars.pop(target.id, None)
        elif isinstance(target, ast.Attribute):
            _delete_attribute(self.ev(target.value, env), self.private_name(target.attr, env), f"del {_text(target)}")
        elif isinstance(target, ast.Subscript):
            self.delete_item(self.ev(target.value, env), self.ev(target.slice, env), target)
        else:
            raise Unresolved(f"`del {_text(target)}` is not followed")

    def delete_item(self, obj: Any, key: Any, node: ast.Subscript) -> None:
        if isinstance(obj, Unknown):
            return  # what it holds is unknown already
        if is_unknownish(key):
            raise Unresolved(f"the index in `del {_text(node)}` depends on {_clause(why_of(key))}")
        if isinstance(obj, (list, dict)):  # a ModulesView's reaches its module
            try:
                del obj[key]
            except (IndexError, KeyError, TypeError) as exc:
                raise _Raised(f"`del {_text(node)}` raises {type(exc).__name__}", ExtV(type(exc).__name__))
            return
        if isinstance(obj, Inst) and obj.kind == "plist":
            raise _Raised(f"`del {_text(node)}` raises AttributeError: __delitem__ (a ParameterList has no deletion)",
                          ExtV("AttributeError"))
        if isinstance(obj, Inst) and obj.kind in ("list", "seq"):
            try:
                _delete_entries(obj, key)
            except (IndexError, TypeError) as exc:
                raise _Raised(f"`del {_text(node)}` raises {type(exc).__name__}", ExtV(type(exc).__name__))
            return
        if isinstance(obj, Inst) and obj.kind in ("dict", "pdict"):
            if not (_hashable(key) and key in obj.attrs):
                raise _Raised(f"`del {_text(node)}`: no key {key!r} (KeyError)", ExtV("KeyError"))
            del obj.attrs[key]
            return
        raise Unresolved(f"`del {_text(node)}` is not followed")

    def assert_stmt(self, s: ast.Assert, env: Env) -> None:
        """``assert test, message``: Python evaluates the test (unless run with -O, which model code
        is not) and raises AssertionError when it is false, so the class does not build. A test the
        analyser cannot decide is taken as passing: an assert only checks, it changes no size."""
        try:
            passed = self.ev(s.test, env)
            if is_unknownish(passed) or self.truthy(passed, s.test) or self.reads_unknown(s.test, env):
                return
        except (_Raised, _OutOfSteps, _TooDeep):
            raise  # what Python would raise too, or the budget that stops the class anyway
        except Unresolved:
            return
        message = ""
        if s.msg is not None:
            try:
                text = self.ev(s.msg, env)
            except Unresolved:
                text = None
            message = f" ({text})" if isinstance(text, str) and text else ""
        raise _Raised(f"the assertion on {env.module.where(s.lineno)} fails: `{_text(s.test)}`{message}",
                      ExtV("AssertionError"))

    def reads_unknown(self, test: ast.expr, env: Env) -> bool:
        """Whether a name or attribute the test reads is unknown (a constructor argument with no
        default): ``isinstance(backbone, nn.Module)`` is False of the unknown, not of what a
        caller passes, so the assertion is not known to fail."""
        for node in ast.walk(test):
            if isinstance(node, (ast.Name, ast.Attribute)):
                try:
                    if is_unknownish(self.ev(node, env)):
                        return True
                except Unresolved:
                    return True
        return False

    def raise_stmt(self, s: ast.Raise, env: Env) -> None:
        """``raise X(...)``: a _Raised that a ``try`` of the analysed code may catch (its class is
        what the handlers are matched against; the arguments, the message, are not evaluated).
        Uncaught, it is the reason the class is not counted. A bare ``raise`` in a handler raises
        what that handler caught."""
        reason = f"the code raises on {env.module.where(s.lineno)}: `{_text(s.exc) if s.exc else 'raise'}`"
        library = _SHIM_LIBRARIES.get(env.module.path)
        if library is not None and isinstance(s.exc, ast.Call) and isinstance(s.exc.func, ast.Name):
            # The analyser's own short version of a library (its LightningModule, transformers'
            # Trainer): the library's error, in its words (not the shim's line).
            try:
                said = self.ev(s.exc.args[0], env) if s.exc.args else ""
            except Unresolved:
                said = ""
            reason = f"{library} raises {s.exc.func.id}" + (f": {said}" if isinstance(said, str) and said else "")
        if s.exc is None:
            caught = self.ctx.handling[-1] if self.ctx.handling else None
            raise _Raised(caught.reason if caught else reason, caught.kind if caught else None)
        target = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
        try:
            kind = self.ev(target, env)
        except Unresolved:
            kind = None  # an exception class the analyser does not know: no handler is known to catch it
        raise _Raised(reason, kind)

    def try_stmt(self, s: ast.Try, env: Env) -> None:
        """try/except/else/finally, for the exceptions the analysed code raises itself (raise_stmt)
        and Python's errors on Python's own values (_python_error). What the analyser cannot follow
        (Unresolved) is never caught: an ``except Exception`` would otherwise take a path Python
        does not. ``finally`` runs as Python runs it, on the way out of a return, break or raise too."""
        optional = self.optional_imports(s, env)
        if optional:
            self.ctx.failing_imports.update(optional)
        guards = self.ctx.import_guards
        guarded = any(_catches_import_error(h) for h in s.handlers)
        try:
            try:
                if guarded:
                    guards.append(self.ctx.importing)
                self.ctx.trying += 1
                try:
                    self.exec_block(s.body, env)
                finally:
                    self.ctx.trying -= 1
                    if guarded:
                        guards.pop()
            except _Raised as raised:
                handler = self.handler_for(raised, s.handlers, env)
                if handler is None:
                    raise
                if handler.name:
                    env.vars[handler.name] = Unknown(f"the exception `{handler.name}` caught on "
                                                     f"{env.module.where(handler.lineno)}")
                self.ctx.handling.append(raised)
                try:
                    self.exec_block(handler.body, env)
                finally:
                    self.ctx.handling.pop()
            else:
                self.exec_block(s.orelse, env)
        except (_Raised, _Return, _Break, _Continue):
            self.exec_block(s.finalbody, env)
            raise
        finally:
            for key in optional:
                self.ctx.failing_imports.pop(key, None)
        self.exec_block(s.finalbody, env)

    def named_tuple_member(self, obj: Inst, name: str, node: ast.AST) -> Any:
        """A NamedTuple's own methods: ``_replace(**changes)``, ``_asdict()``, ``_fields``, ``count`` and
        ``index`` (a tuple's)."""
        cls = obj.cls
        if name == "_fields":
            return tuple(cls.fields)
        if name == "_asdict":
            return BuiltinV(name, lambda: dict(zip(cls.fields, _named_tuple_items(obj))))
        if name == "_replace":
            def replace(**changes: Any) -> Any:
                unknown = next((k for k in changes if k not in cls.fields), None)
                if unknown is not None:
                    raise _Raised(f"`{_text(node)}`: got an unexpected field name `{unknown}` (ValueError)",
                                  ExtV("ValueError"))
                return self.call(cls, [], {**dict(zip(cls.fields, _named_tuple_items(obj))), **changes}, node,
                                 self.ctx.call_env())
            return BuiltinV(name, replace)
        return BuiltinV(name, getattr(_named_tuple_items(obj), name))

    def named_tuple_class(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> ClassV:
        """``namedtuple("Cfg", "dim depth", defaults=(2,))`` / ``NamedTuple("Cfg", [("dim", int)])``:
        the class the class statement ``class Cfg(NamedTuple)`` would make, with those fields."""
        typename = args[0]
        fields = args[1] if len(args) > 1 else kwargs.get("field_names", kwargs.get("fields", ()))
        if isinstance(fields, str):
            names = fields.replace(",", " ").split()
        else:
            names = [f if isinstance(f, str) else f[0] if isinstance(f, (tuple, list)) and f else None
                     for f in self.iterate(fields, node)]
        defaults = list(self.iterate(kwargs["defaults"], node)) if kwargs.get("defaults") is not None else []
        if not all(isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_")
                   for n in [typename, *names]) or len(set(names)) != len(names) or len(defaults) > len(names):
            raise _Raised(f"`{_text(node)}`: type and field names must be valid, distinct identifiers (ValueError)",
                          ExtV("ValueError"))
        first_default = len(names) - len(defaults)
        source = f"class {typename}(NamedTuple):\n" + "".join(
            f"    {n}: object" + (f" = _default_{i - first_default}" if i >= first_default else "") + "\n"
            for i, n in enumerate(names)) + ("    pass\n" if not names else "")
        scope = Env(env.module, env.module.env)
        scope.vars.update({"NamedTuple": ExtV("typing.NamedTuple"),
                           **{f"_default_{i}": d for i, d in enumerate(defaults)}})
        statement = parse(source).body[0]
        ast.copy_location(statement, node)  # where the class is made: its place in the file
        return self.make_class(statement, scope)  # type: ignore[arg-type]

    def einops_function(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``einops.rearrange`` / ``repeat`` / ``reduce`` of a tensor the analyser built: the shape
        the pattern gives (mamba's ``repeat(torch.arange(1, n + 1), "n -> d n", d=d_inner)``)."""
        tensor = args[0]
        lengths = {k: v for k, v in kwargs.items() if k != "reduction"}
        unknown = next((v for v in (tensor, args[1], *lengths.values()) if is_unknownish(v) and not isinstance(v, Sym)),
                       None)
        if unknown is not None:
            return Unknown(f"`{_text(node)}`: {why_of(unknown)}")
        if not isinstance(tensor, (TensorV, Param)):
            return Unknown(f"`{_text(node)}`: the tensor is not one the analyser built")
        if any(not (type(v) is int or isinstance(v, Sym)) for v in lengths.values()):
            raise Unresolved(f"`{_text(node)}`: an axis length is not an integer")
        try:
            shape = shapes.einops_shape(name, tuple(tensor.shape), args[1], lengths)
        except shapes.ShapeError as exc:
            raise Unresolved(f"`{_text(node)}`: {exc} (einops raises)")
        return TensorV(shape, contiguous=False)

    def shape_function(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """torch.split / chunk / unbind (tuples of tensors), outer, kron, tile, repeat_interleave,
        tril / triu and einsum: the shapes torch gives, or torch's error."""
        operands = list(args[1:]) if name == "einsum" else list(args)
        if name == "einsum" and len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])  # einsum("ij->ji", [a])
        tensors = len(operands) if name == "einsum" else 2 if name in ("outer", "kron") else 1
        if len(operands) < tensors or not operands or any(
                not isinstance(t, (TensorV, Param)) for t in operands[:tensors]):
            unknown = next((t for t in operands if is_unknownish(t)), None)
            why = why_of(unknown) if unknown is not None else "an operand is not a tensor the analyser built"
            return Unknown(f"`{_text(node)}`: {why}")
        first = tuple(operands[0].shape)
        rest = operands[1:] if name != "einsum" else []

        def arg(i: int, key: str, default: Any) -> Any:
            return rest[i] if len(rest) > i else kwargs.get(key, default)
        try:
            if name in ("split", "chunk", "unbind"):
                if name == "split":
                    pieces = shapes.split_shapes(first, arg(0, "split_size_or_sections", kwargs.get("split_size")),
                                                 arg(1, "dim", 0))
                elif name == "chunk":
                    pieces = shapes.chunk_shapes(first, arg(0, "chunks", None), arg(1, "dim", 0))
                else:
                    pieces = shapes.unbind_shapes(first, arg(0, "dim", 0))
                return tuple(TensorV(p) for p in pieces)
            if name in ("tril", "triu"):
                if len(first) < 2:
                    raise shapes.ShapeError(f"{name}: input tensor must have at least 2 dimensions")
                new: Any = first
            elif name == "outer":
                new = shapes.outer_shape(first, tuple(rest[0].shape))
            elif name == "kron":
                new = shapes.kron_shape(first, tuple(rest[0].shape))
            elif name == "tile":
                dims = rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else tuple(rest) or kwargs.get("dims")
                new = shapes.tile_shape(first, tuple(dims))
            elif name == "repeat_interleave":
                new = shapes.repeat_interleave_shape(first, arg(0, "repeats", None), arg(1, "dim", None))
            else:
                new = shapes.einsum_shape(args[0] if args else None, [tuple(t.shape) for t in operands])
        except shapes.ShapeError as exc:
            raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
        if new is None:
            return Unknown(f"`{_text(node)}`: the new shape is not known")
        return TensorV(tuple(new))

    def match_stmt(self, s: ast.Match, env: Env) -> None:
        """``match``: the first case whose pattern matches (and whose guard holds) runs, its
        captures bound, as Python runs it. Patterns of literals, names, ``|``, ``_`` and sequences."""
        subject = self.ev(s.subject, env)
        for case in s.cases:
            captures: dict[str, Any] = {}
            if not self.pattern_matches(case.pattern, subject, captures, env):
                continue
            env.vars.update(captures)
            if case.guard is not None and not self.truthy(self.ev(case.guard, env), case.guard):
                continue
            self.exec_block(case.body, env)
            return

    def pattern_matches(self, pattern: ast.pattern, subject: Any, captures: dict[str, Any], env: Env) -> bool:
        where = env.module.where(pattern.lineno)
        if isinstance(pattern, ast.MatchAs):
            if pattern.pattern is not None and not self.pattern_matches(pattern.pattern, subject, captures, env):
                return False
            if pattern.name is not None:
                captures[pattern.name] = subject
            return True
        if isinstance(pattern, ast.MatchOr):
            return any(self.pattern_matches(p, subject, captures, env) for p in pattern.patterns)
        if is_unknownish(subject):
            raise Unresolved(f"which case of the `match` on {where} runs depends on {_clause(why_of(subject))}")
        if isinstance(pattern, ast.MatchSingleton):
            return subject is pattern.value
        if isinstance(pattern, ast.MatchValue):
            value = self.ev(pattern.value, env)
            if is_unknownish(value) or type(subject) not in _PLAIN and type(subject) is not Inst:
                raise Unresolved(f"whether `{_text(pattern.value)}` matches on {where} is not known")
            if type(subject) is Inst or type(value) is Inst:
                # A member of an enum of str or int equals its value (`case "conv"` matches Kind.CONV).
                mixed = [v.attrs["_value_"] if type(v) is Inst and type(v.cls) is ClassV and v.cls.enum_mixin
                         is not None else v for v in (subject, value)]
                return subject is value or (type(mixed[0]) is not Inst and type(mixed[1]) is not Inst and
                                            mixed[0] == mixed[1])
            return subject == value
        if isinstance(pattern, ast.MatchSequence) and isinstance(subject, (list, tuple)):
            star = next((i for i, p in enumerate(pattern.patterns) if isinstance(p, ast.MatchStar)), None)
            items = list(subject)
            if star is None:
                return len(items) == len(pattern.patterns) and all(
                    self.pattern_matches(p, x, captures, env) for p, x in zip(pattern.patterns, items))
            after = len(pattern.patterns) - star - 1
            if len(items) < len(pattern.patterns) - 1:
                return False
            rest = items[star:len(items) - after]
            name = pattern.patterns[star].name  # type: ignore[attr-defined]
            if name is not None:
                captures[name] = rest
            return all(self.pattern_matches(p, x, captures, env) for p, x in zip(pattern.patterns[:star], items)) and \
                all(self.pattern_matches(p, x, captures, env)
                    for p, x in zip(pattern.patterns[star + 1:], items[len(items) - after:]))
        if isinstance(pattern, ast.MatchSequence) and type(subject) in (str, int, float, bool, dict, type(None)):
            return False  # a str is not a sequence to match
        raise Unresolved(f"the `match` pattern `{_text(pattern)}` on {where} is not followed")

    def optional_imports(self, s: ast.Try, env: Env) -> dict[int, str]:
        """The imports of ``try: import xformers`` / ``except ImportError:`` (by id of their
        statement) that fail when they run, as on a machine without the package: which path runs
        depends on what the machine has installed, and the analysis takes the one that needs
        nothing but torch (the count says so), each with the package it names. Empty where the try
        imports nothing but the standard library, torch and the project's own files, or catches no
        ImportError."""
        if not any(_catches_import_error(handler) for handler in s.handlers):
            return {}
        failing: dict[int, str] = {}
        for stmt in _statements_in(s.body):  # `try: if use_xformers: from xformers.ops import SwiGLU` (DINOv2)
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                module = self.optional_module(stmt, env)
                if module is not None:
                    failing[id(stmt)] = module
        return failing

    def optional_module(self, stmt: ast.Import | ast.ImportFrom, env: Env) -> str | None:
        """The first module an import names that is neither the standard library, torch (numpy,
        einops) nor the project's own: what fails on a machine with only those."""
        if isinstance(stmt, ast.Import):
            modules = [alias.name for alias in stmt.names]
        elif not stmt.level and stmt.module:
            modules = [stmt.module]
        else:
            return None
        return next((module for module in modules if not self.importable(module, env)), None)

    def package_code(self, module: ModuleScope) -> bool:
        """Whether the module is a file of an installed package the analysis reads (once per module)."""
        if module.installed is None:
            module.installed = not module.is_main and self.installed_package_file(module.path)
        return module.installed

    def installed_package_file(self, path: str) -> bool:
        """A file of an installed package the analysis reads (read_packages, from its site-packages
        directories): its import-time probes for optional packages (peft's `is_bnb_available()`)
        are answered as the analysed file's are."""
        return any(path.startswith(os.path.join(site, "")) for site in self.ctx.site_packages)

    def importable(self, module: str, env: Env) -> bool:
        """Whether a module is there on the machine the analysis counts for: the standard library,
        torch, numpy, einops and the project's own files."""
        top = module.partition(".")[0]
        return top in _ALWAYS_IMPORTABLE or top in sys.stdlib_module_names or \
            self.find_project_module(env.module, module, 0) is not None

    def failed_import(self, s: ast.Import | ast.ImportFrom, env: Env) -> None:
        """An import that fails (optional_imports): noted for the count, raised as Python raises it."""
        module = self.ctx.failing_imports[id(s)]
        top = module.partition(".")[0]
        scope = env.module
        if top != module and self.find_project_module(scope, top, 0) is not None:
            # A module the project's own package does not have (open_clip's import of an old timm's
            # path, then the new one's): it fails on any machine, with nothing to note.
            raise _Raised(f"No module named '{module}' (ModuleNotFoundError)", ExtV("ModuleNotFoundError"))
        self.missing_package(top, s, scope)
        raise _Raised(f"No module named '{top}' (ModuleNotFoundError)", ExtV("ModuleNotFoundError"))

    def missing_package(self, top: str, node: ast.AST, scope: ModuleScope) -> None:
        """A package the analysis takes as not installed (an optional import, `find_spec`): noted for
        the count; said to the user where the file's own code asked (a library's own import-time
        probe is not the file's)."""
        entry = ("package", top, scope.where(node.lineno),  # type: ignore[attr-defined]
                 scope.span_of(node) if scope.is_main and scope.span_of else None)
        self.ctx.failed_imports.append(entry)
        if not (self.ctx.importing and not scope.is_main):
            self.ctx.environment.append(entry)

    def handler_for(self, raised: "_Raised", handlers: list[ast.ExceptHandler], env: Env) -> ast.ExceptHandler | None:
        """The first handler whose class is the raised one's or a base of it; None when none is
        (or when which one it is depends on a class the analyser does not know)."""
        for handler in handlers:
            if handler.type is None:
                return handler
            try:
                caught = self.ev(handler.type, env)
            except Unresolved:
                return None
            for cls in caught if isinstance(caught, tuple) else (caught,):
                match = _exception_matches(raised.kind, cls)
                if match is None:
                    return None
                if match:
                    return handler
        return None

    def branch(self, test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt], env: Env) -> list[ast.stmt]:
        cond = self.ev(test, env)
        if type(cond) is TensorV or type(cond) is Param:
            try:
                return body if self.truthy(cond, test) else orelse
            except _Raised:
                raise
            except Unresolved:
                # `if torch.det(w) < 0: w[:, 0] = -w[:, 0]` (glow-tts, WaveGlow): the truth of random
                # values, and a branch that only rewrites values in place either way.
                written = _written_values(body), _written_values(orelse)
                if None not in written and all(type(self.ev(t, env)) in (TensorV, Param) for t in {
                        id(t): t for ts in written for t in ts}.values()):  # tensors, not lists or dicts
                    return []
                raise
        if is_unknownish(cond):
            # A branch that only raises is input validation: the other branch is the one that builds.
            if body and all(isinstance(x, ast.Raise) for x in body):
                return orelse
            if orelse and all(isinstance(x, ast.Raise) for x in orelse):
                return body
            if _initialises_only(body) and _initialises_only(orelse):
                return []  # either way only initialises values (esm's xavier gain by qkv_same_dim)
            raise Unresolved(f"the condition `{_text(test)}` ({env.module.where(test.lineno)}) depends on "
                             f"{_first_cause(why_of(cond))}")
        return body if self.truthy(cond, test) else orelse

    def truthy(self, v: Any, node: ast.AST) -> bool:
        if not isinstance(v, (Sym, Unknown, Inst)):
            if type(v) is TensorV or type(v) is Param:
                try:
                    return bool(v)
                except _Raised as exc:
                    raise _Raised(f"`{_text(node)}`: {exc.reason}", exc.kind)
                except Unresolved as exc:  # `if torch.det(w) < 0:` of a random w
                    raise Unresolved(f"`{_text(node)}`: {exc.reason}")
            return bool(v)  # the message below is only for an unknown value: no unparse on the fast path
        if type(v) is Inst and type(v.cls) is ClassV:
            cls = v.cls
            for hook_name in ("__bool__", "__len__"):  # as Python asks: __bool__, else __len__
                hook = cls.find(hook_name, None)
                if hook is None:
                    continue
                if not isinstance(hook, FuncV):
                    raise Unresolved(f"`{_text(node)}`: the truth of a `{cls.name}` is its `{hook_name}`, which "
                                     f"the analyser does not follow")
                result = self.call_function(hook, [v], {}, node)
                if is_unknownish(result):
                    raise Unresolved(f"`{_text(node)}`: `{cls.name}.{hook_name}` depends on {_clause(why_of(result))}")
                return bool(result)
            items = v.attrs.get(_DICT_ITEMS)
            if isinstance(items, dict):
                return bool(items)  # `class Options(dict)`: empty is false
            if _is_named_tuple(cls):
                return bool(cls.fields)
            if cls.enum_mixin is not None:
                return bool(v.attrs.get("_value_"))  # an IntEnum member of value 0 is false
        if type(v) is Sym or type(v) is Unknown:
            return truth(v, f"`{_text(node)}`")  # the text only for the message
        return truth_value(v, "")

    def instances_equal(self, a: Any, b: Any, node: ast.AST) -> Any:
        """``a == b`` where one is an object of the code whose class says what equal is: its own
        ``__eq__``, or the one a dataclass or a NamedTuple was given (their fields, in order).
        _MISSING where Python compares them as the analyser does (identity, enum members' values)."""
        for x, y in ((a, b), (b, a)):
            if type(x) is not Inst or type(x.cls) is not ClassV or x.is_module or x.cls.enum_members is not None:
                continue
            cls = x.cls
            eq = cls.find("__eq__", None)
            if eq is not None:
                if not isinstance(eq, FuncV):
                    raise Unresolved(f"`{_text(node)}`: `{cls.name}.__eq__` is not followed")
                result = self.call_function(eq, [x, y], {}, node)
                if result is None or type(result) is ExtV:  # NotImplemented: Python tries the other side
                    continue
                return result
            if _is_named_tuple(cls):
                other = _named_tuple_items(y) if type(y) is Inst and type(y.cls) is ClassV and _is_named_tuple(y.cls) else y
                return self._py2(operator.eq, _named_tuple_items(x), other, node) if isinstance(other, tuple) else False
            if cls.is_dataclass and _dataclass_compares(cls):
                if type(y) is not Inst or y.cls is not cls:
                    return False
                return all(self.values_equal(x.attrs.get(f), y.attrs.get(f), node) for f in cls.fields)
        return _MISSING

    def values_equal(self, a: Any, b: Any, node: ast.AST) -> bool:
        found = self.instances_equal(a, b, node)
        if found is _MISSING:
            found = self._py2(operator.eq, a, b, node)
        if is_unknownish(found):
            raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(found))}")
        return bool(found)

    def assign(self, target: ast.expr, value: Any, env: Env) -> None:
        if isinstance(target, ast.Name):
            env.vars[target.id] = value
        elif isinstance(target, ast.Attribute):
            self.set_attr(self.ev(target.value, env), self.private_name(target.attr, env), value, target)
        elif isinstance(target, ast.Subscript):
            self.set_item(self.ev(target.value, env), self.ev(target.slice, env), value, target)
        elif isinstance(target, ast.Tuple | ast.List):
            if value is None or type(value) in (int, float, bool):
                raise _Raised(f"unpacking into `{_text(target)}` raises TypeError: cannot unpack non-iterable "
                              f"{type(value).__name__} object", ExtV("TypeError"))
            try:
                items = list(self.iterate(value, target))
            except Unresolved as exc:
                said = f"iterating over `{_text(target)}`"
                if type(exc) is Unresolved and exc.reason.startswith(said):  # it is unpacking, not a loop
                    raise Unresolved(f"unpacking into `{_text(target)}`" + exc.reason[len(said):], exc.span)
                raise
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            if starred:
                i = starred[0]
                after = len(target.elts) - i - 1
                if len(items) < len(target.elts) - 1:
                    raise Unresolved(f"cannot unpack into `{_text(target)}`")
                for e, v in zip(target.elts[:i], items[:i]):
                    self.assign(e, v, env)
                self.assign(target.elts[i].value, items[i:len(items) - after], env)  # type: ignore[attr-defined]
                for e, v in zip(target.elts[i + 1:], items[len(items) - after:]):
                    self.assign(e, v, env)
                return
            if len(items) != len(target.elts):
                raise Unresolved(f"cannot unpack {len(items)} values into `{_text(target)}`")
            for e, v in zip(target.elts, items):
                self.assign(e, v, env)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, env)
        else:
            raise Unresolved(f"assignment to `{_text(target)}` is not followed")

    def set_attr(self, obj: Any, name: str, value: Any, node: ast.AST) -> None:
        if isinstance(obj, Param):
            if name == "requires_grad":
                if type(value) is not bool and not is_unknownish(value):  # `p.requires_grad = 0` from a config
                    raise _Raised(f"`{_text(node)}` raises RuntimeError: requires_grad must be a bool",
                                  ExtV("RuntimeError"))
                _require_grad(obj, self.truthy(value, node))
            elif name == "data":  # `p.data = t`: the parameter holds t now, in t's shape
                if not isinstance(value, (TensorV, Param)):
                    raise Unresolved(f"`{_text(node)}`: the tensor's shape is unknown "
                                     f"({why_of(value) or 'not a tensor the analyser built'})")
                obj.shape, obj.floating = tuple(value.shape), _is_floating(value)
            else:  # other attributes are flags of the code's own (`p._no_weight_decay = True`), read back
                obj.flags = {**(obj.flags or {}), name: value}  # a new dict: copies made before keep theirs
            return
        if isinstance(obj, Inst):
            if name == "requires_grad":
                return
            cls = obj.cls
            if not obj.is_module and type(cls) is ClassV and _is_frozen_dataclass(cls):
                raise _Raised(f"`{_text(node)}` raises dataclasses.FrozenInstanceError: cannot assign to field "
                              f"'{name}'", ExtV("dataclasses.FrozenInstanceError"))
            if type(cls) is ClassV and not obj.is_module and isinstance(obj.attrs.get(_DICT_ITEMS), dict) and (
                    cls.find("__setattr__", None) is _DICT_UNBOUND["__setitem__"] or obj.attrs.get("__dict__") is obj):
                obj.attrs[_DICT_ITEMS][name] = value  # dotdict's `__setattr__ = dict.__setitem__`, AttrDict's items
                return
            if type(cls) is ClassV and cls.setattr_hook is not None:
                hook = cls.setattr_hook
                if _known_hook(hook) != "attribute_map_set" or not self.mapped_setattr(obj, name, value, node):
                    self.call_function(hook, [obj, name, value], {}, node)
                return
            self.object_setattr(obj, name, value, node)
            return
        if isinstance(obj, ClassV):
            self.state_written(_rebinds(obj.namespace.get(name, _MISSING), value))  # `Config.hidden = 14`
            self.ctx.logged_write(obj.namespace, name)
            obj.namespace[name] = value
            return
        if isinstance(obj, ModV) and isinstance(obj.names, dict):
            # A global of a project module (timm's register_model sets `__all__`; semseg's
            # `models.BatchNorm = BatchNorm`): the builds that read the old value are not reused.
            self.state_written(_rebinds(obj.names.get(name, _MISSING), value))
            self.ctx.logged_write(obj.names, name)
            obj.names[name] = value
            return
        if isinstance(obj, Unknown | Sym):
            return
        if isinstance(obj, TensorV):
            return
        if type(obj) is NamedTupleNew and name == "__defaults__":
            fields = list(obj.cls.fields)
            if value is not None and (not isinstance(value, tuple) or len(value) > len(fields)):
                raise Unresolved(f"`{_text(node)}`: the defaults are not a tuple of at most {len(fields)} values")
            defaults = dict(zip(fields[len(fields) - len(value):], value)) if value else {}
            for field_name in fields:  # the new defaults replace the old ones, as a function's do
                obj.cls.namespace.pop(field_name, None)
            obj.cls.namespace.update(defaults)
            self.state_written(True)
            return
        if type(obj) is OrderedDictV:
            if not obj.attrs:
                self.ctx.cycle_holders.append(obj)  # type: ignore[arg-type]
            obj.attrs[name] = value
            return
        if type(obj) is ExtV and obj.name.startswith(("torch.backends.", "torch.cuda", "torch.version")):
            return  # BERT4Rec's `cudnn.deterministic = True`: the machine's kernels, no parameter
        what = f"`{obj.name}`, which is outside this file" if type(obj) is ExtV else type(obj).__name__
        raise Unresolved(f"cannot set `{name}` on {what}")

    def cached_property(self, obj: Inst, name: str, fn: FuncV, node: ast.AST) -> Any:
        """``functools.cached_property`` read on an instance: computed, then kept in the instance's
        ``__dict__``, where later reads find it first (a config's derived size is not recomputed
        after the value it came from changes). A parameter or submodule a module's cached property
        makes is written to ``__dict__`` past torch's ``__setattr__``: unregistered, never counted
        until an attribute registers it."""
        value = self.call_function(fn, [obj], {}, node)
        if not obj.is_module:
            obj.attrs[name] = value
            return value
        if type(value) is Param or (type(value) is Inst and value.is_module):
            self.ctx.cycle_holders.append(obj)  # what is unregistered may hold the module
        _set_unregistered(obj, name, value)
        return value

    def object_setattr(self, obj: Inst, name: str, value: Any, node: ast.AST) -> None:
        """``object.__setattr__``: a property's setter, else the instance's attribute."""
        cls = obj.cls
        prop = cls.lookup(name) if type(cls) is ClassV and name in cls.property_names() else None
        if prop is not None and obj.is_module and (type(value) is Param or (type(value) is Inst and value.is_module)):
            prop = None  # torch's Module.__setattr__ registers a parameter or a module before any property
        if isinstance(prop, FuncV) and prop.kind == "property":
            if prop.setter is None:
                raise Unresolved(f"`{_text(node)}` sets `{name}`, a property of `{cls.name}` with no setter")
            self.call_function(prop.setter, [obj, value], {}, node)
            return
        t = type(value)  # submodules, the commonest value, checked inline
        if obj.is_module and value is not None and t is not Param and name in obj.attrs:
            old = obj.attrs[name]  # torch's __setattr__: a parameter's or a submodule's name takes only its kind
            if (type(old) is Param or (type(old) is Inst and old.is_module and not (t is Inst and value.is_module))) \
                    and not is_unknownish(value):
                kind = "parameter" if type(old) is Param else "child module"
                expected = "torch.nn.Parameter" if type(old) is Param else "torch.nn.Module"
                raise _Raised(f"`{_text(node)}` raises TypeError: cannot assign a {_kind_name(value)} as {kind} "
                              f"'{name}' ({expected} or None expected)", ExtV("TypeError"))
        if obj.buffers is _BEFORE_MODULE_INIT and (t is Param or (t is Inst and value.is_module)):
            what = "parameters" if t is Param else "module"
            raise _Raised(f"`{_text(node)}` raises AttributeError: cannot assign {what} before Module.__init__() call "
                          f"(`super().__init__()` comes first)", ExtV("AttributeError"))
        if t is Param and obj.is_module and obj.attrs.get(name) is None and name not in obj.attrs and \
                _class_attribute_named(obj, name):
            # torch's __setattr__ registers it, and register_parameter refuses a name the class has
            # (a class attribute `bias = None`, then `self.bias = nn.Parameter(...)`)
            raise _Raised(f"`{_text(node)}` raises KeyError: attribute '{name}' already exists", ExtV("KeyError"))
        if (value is obj or id(value) in self.ctx.building) if t is Inst else (
                t in _HOLDERS and _leads_back(obj, value, self.ctx.building)):
            self.ctx.cycle_holders.append(obj)
        if obj.is_module and (value is None or obj.none_slots):
            _fill_none_slot(obj, name, value, node)
        if obj.unregistered and name in obj.unregistered:
            del obj.unregistered[name]  # torch's __setattr__ takes the name out of __dict__ first
        if not obj.is_module and id(obj) in self.ctx.state_containers:  # `CFG.width = 8` of a global config
            self.state_written(_rebinds(obj.attrs.get(name, _MISSING), value))
            self.ctx.logged_write(obj.attrs, name)
        obj.attrs[name] = value
        if t is TensorV and value.buffer and obj.is_module:  # `self.inv_freq = nn.Buffer(...)`: a buffer
            _add_buffer(obj, name)
        elif obj.buffers and name in obj.buffers and (t is Param or t is Inst and value.is_module):
            _drop_buffer(obj, name)  # torch moves the name to the parameters or the modules

    def set_item(self, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        if isinstance(obj, Inst):
            hook = _container_override(obj, "__setitem__")
            if hook is not None:  # `class NormDict(nn.ModuleDict)` with its own __setitem__
                self.call_function(hook, [obj, key, value], {}, node)
                return
            self.container_set_item(obj, key, value, node)
            return
        self._set_item(obj, key, value, node)

    def container_set_item(self, obj: Inst, key: Any, value: Any, node: ast.AST) -> None:
        """torch's ``__setitem__`` of a container (an object's item, by the analyser's rules)."""
        container = CONTAINER_CLASSES.get(obj.kind)
        if container is not None:
            value = self.check_member(value, container, node)
        if obj.kind in ("list", "seq", "plist"):
            k = as_int(key, "index")
            keys = [name for name, _ in container_entries(obj)]
            if type(k) is int and not -len(keys) <= k < len(keys):
                raise _Raised(f"`{_text(node)}` raises IndexError: index {k} is out of range", ExtV("IndexError"))
            # A Sequential's is the k-th of its names; a ModuleList's and a ParameterList's is `str(k)`
            # (torch's _get_abs_string_index), which is another where modules are set by name.
            obj.attrs[keys[k] if obj.kind == "seq" or type(k) is not int else str(k % len(keys))] = value
        elif obj.kind in ("dict", "pdict"):  # a ModuleDict / ParameterDict: torch registers the name
            obj.attrs[_registered_key("parameter" if obj.kind == "pdict" else "module", key, node, obj)] = value
        elif isinstance(obj.attrs.get(_DICT_ITEMS), dict):  # an instance of a dict subclass: its items
            obj.attrs[_DICT_ITEMS][_dict_key(key, node)] = value
        else:
            obj.attrs[str(key)] = value

    def _set_item(self, obj: Any, key: Any, value: Any, node: ast.AST) -> None:
        if type(obj) is ModulesView and isinstance(key, str):
            dict.__setitem__(obj, key, value)
            self.object_setattr(obj.owner, key, value, node)  # as torch's: no __setattr__, a possible cycle kept
            return
        if isinstance(obj, (list, dict)):
            if is_unknownish(key):
                raise Unresolved(f"`{_text(node)}`: the key depends on {_clause(why_of(key))}")
            self.state_item_written(obj, key, value)
            try:
                obj[key] = value
            except (IndexError, TypeError, KeyError) as exc:
                raise _python_error(exc, node, _python_subscript(obj, key))
            return
        if type(obj) is TensorV and obj.values is not None and _write_values(obj, key, value, node):
            return  # `scales[j + 1:] = scales[j]` (CenterNet's DLAUp): the values written
        if type(obj) in _TENSORS and type(value) in _TENSORS and not (type(obj) is TensorV and obj.numpy):
            try:
                target = shapes.index_shape(tuple(obj.shape), key)
            except shapes.ShapeError:
                target = None
            if target is not None and shapes.broadcasts_to(tuple(value.shape), target) is False:
                # OpenNMT's sinusoid with an odd size: `pe[:, 1::2] = torch.cos(position * div_term)`
                raise _Raised(f"`{_text(node)}` raises RuntimeError: a tensor of shape {tuple(value.shape)} does not "
                              f"fit the {target} it is written into", ExtV("RuntimeError"))
        if isinstance(obj, (Param, TensorV)):
            _forget_values(obj)
            return  # written in place (`inv_freq[mask] = ...`): the shape stays, the values are not known
        if type(obj) is ExtV and obj.name == "os.environ":
            if type(key) is not str or type(value) is not str:
                raise Unresolved(f"`{_text(node)}`: the variable's name and value are not known strings")
            self.state_written(self.ctx.environ_set.get(key) != value)  # a later build may read it
            self.ctx.environ_set[key] = value
            return
        if isinstance(obj, Unknown | Sym):
            if (isinstance(value, Inst) and value.is_module) or isinstance(value, Param):
                raise Unresolved(f"`{_text(node)}` puts a module or parameter into a value the analyser does not "
                                 f"know: {why_of(obj)}")
            return  # already unknown, as setting one of its attributes leaves it
        raise Unresolved(f"`{_text(node)}`: the analyser does not follow assigning into "
                         f"{'a tensor whose values it keeps' if isinstance(obj, TensorV) else type(obj).__name__}")

    # --- imports ---------------------------------------------------------------------------

    def import_value(self, env: Env, name: str, level: int) -> Any:
        if not may_import_project(name, level):
            return ExtV(name)
        scope = env.module
        key = self.find_project_module(scope, name, level)
        if key is None:
            return ExtV(name)
        lazy = LazyImport(key, None, name, level, scope)
        return lazy if env is scope.env else self.read_lazy(lazy)  # module level: read when used

    def import_from(self, s: ast.ImportFrom, env: Env) -> None:
        scope = env.module
        base = s.module or ""
        if base == "__future__" and any(alias.name == "annotations" for alias in s.names):
            scope.string_annotations = True
        key = None
        if may_import_project(base, s.level):
            key = self.find_project_module(scope, s.module, s.level)
        for alias in s.names:
            if alias.name == "*":
                mod = self.load_project_file(key) if key is not None else None
                if mod is not None:
                    exported = mod.names.get("__all__") if isinstance(mod.names, dict) else None
                    if isinstance(exported, (list, tuple)) and all(type(k) is str for k in exported):
                        # `__all__` names what a star import gives, private names too (Tramac's `_ConvBNReLU`).
                        env.vars.update({k: mod.names[k] for k in exported if k in mod.names})
                    else:
                        env.vars.update({k: v for k, v in mod.names.items() if not k.startswith("_")})
                else:
                    scope.star_imports.append(("." * s.level) + base)
                continue
            bound = alias.asname or alias.name
            dotted = f"{base}.{alias.name}" if base else alias.name
            if key is None and s.level and base and (missing := _missing_relative_module(scope.path, base, s.level)):
                # PaddleOCR's `from .rnn import SequenceEncoder` in a checkout without necks/rnn.py: Python's
                # ModuleNotFoundError where the import runs (uncaught at the file's top level, see
                # _run_statements: importing the file fails).
                raise _MissingModule(f"`{_text(s)}` ({scope.where(s.lineno)}) raises ModuleNotFoundError: no module "
                                     f"{missing}", ExtV("ModuleNotFoundError"))
            if key is None or (not s.level and base == "transformers" and (
                    alias.name.endswith(NOT_MODULE_LOADERS) or alias.name == "pipeline")):
                # (transformers' tokenizers and processors hold no parameters: their loaders answer from
                # the catalog by name, as outside a project, and their source is not read; nor is
                # `pipeline`'s, which loads from the hub)
                env.vars[bound] = _external(dotted)
                continue
            lazy = LazyImport(key, alias.name, dotted, s.level, scope)
            env.vars[bound] = lazy if env is scope.env else self.read_lazy(lazy)  # module level: read when used

    # --- definitions -----------------------------------------------------------------------

    def private_name(self, name: str, env: Env) -> str:
        """``self.__w`` in a method of ``class Parent`` is ``self._Parent__w`` (Python's private names:
        a subclass's ``__w`` is another attribute, a base's ``self.__make()`` calls the base's own)."""
        if name[:2] != "__" or name[-2:] == "__":
            return name
        try:
            owner = env.lookup("__class__")  # the class the running method is written in
        except KeyError:
            return name
        prefix = owner.node.name.lstrip("_") if type(owner) is ClassV else ""
        return f"_{prefix}{name}" if prefix else name

    def make_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, env: Env,
                      defaults_env: Env | None = None) -> FuncV:
        """``defaults_env``: where the defaults are evaluated, when not where the function closes
        (a method's: the class body, whose names a default may use, `def __init__(self, d=DIM)`)."""
        a = node.args
        at = defaults_env or env
        defaults = [self.ev(d, at) for d in a.defaults]
        kw_defaults = [None if d is None else self.ev(d, at) for d in a.kw_defaults]
        kind = ""
        for dec in getattr(node, "decorator_list", []):
            dname = _dotted(dec)
            if dname.endswith("staticmethod"):
                kind = "static"
            elif dname.endswith("classmethod"):
                kind = "class"
            elif dname.endswith("cached_property"):
                kind = "cached"  # functools': computed on the first read, then the instance's own attribute
            elif dname.endswith("property"):
                kind = "property"
        name = getattr(node, "name", "<lambda>")
        validated = next((d for d in getattr(node, "decorator_list", []) if _dotted(d).endswith("as_validated_field")), None)
        if validated is not None and self.ev(validated, env) == ExtV("huggingface_hub.dataclasses.as_validated_field"):
            # huggingface_hub's validated fields (transformers' configs: `interval(min=0.0)(default=0.02)`):
            # the decorated validator becomes what makes the dataclass field.
            return BuiltinV(name, _field)  # type: ignore[return-value]
        fn = FuncV(name, node, env, defaults, kw_defaults, kind)
        if env.parent is not None:  # a closure: its environment may hold it (analyzer._release)
            self.ctx.closures.append(fn)
        return fn

    def decorated_method(self, fn: FuncV) -> Any:
        """What a method's decorators made of it (decorate), on its first call: most decorated
        methods (``forward``) are never called by a constructor, and their decorators (transformers'
        ``@auto_docstring``) cost as much to follow as the rest of the class. _UNDECORATED when they
        leave it as it is."""
        if fn.decorated is None:
            plain = FuncV(fn.name, fn.node, fn.env, fn.defaults, fn.kw_defaults)  # what the decorators get
            plain.owner = fn.owner
            value = self.decorate(plain, fn.node, fn.decorators)  # type: ignore[arg-type]
            fn.decorated = _UNDECORATED if value is plain else value
        return fn.decorated

    def decorate(self, fn: FuncV, node: ast.FunctionDef | ast.AsyncFunctionDef, env: Env) -> Any:
        """A function or method with the decorators of the project applied: timm's
        ``@register_model`` fills the registry that resolves a model's pretrained config."""
        return self.apply_decorators(fn, node.decorator_list, env, (FuncV, PartialV, BoundV))

    def apply_decorators(self, value: Any, decorators: list[ast.expr], env: Env, kept: tuple[type, ...]) -> Any:
        """``value`` with ``decorators`` applied, innermost first, as Python applies them. A
        decorator from outside the project (``functools.lru_cache``, ``torch.no_grad()``), or one
        the analyser cannot follow, leaves the value as it is, as does a result of none of the
        ``kept`` types."""
        for dec in reversed(decorators):
            try:
                if type(value) is FuncV and _is_functools_cache(dec, self.ev(_decorator_head(dec), env)):
                    cached = FuncV(value.name, value.node, value.env, value.defaults, value.kw_defaults, value.kind)
                    cached.owner, cached.wrapped, cached.memo = value.owner, value, {}
                    value = cached  # one result per arguments, as Python's cache returns the same object
                    continue
                decorator = self.ev(dec, env)
                if type(decorator) is FuncV:
                    decorated = self.call_function(decorator, [value], {}, dec)
                elif type(decorator) in (BoundV, PartialV) or (type(decorator) is Inst and type(decorator.cls) is ClassV
                                                               and decorator.cls.find("__call__", None) is not None):
                    # A registry's method (`@MODELS.register_module`), `@partial(register, name=...)`, a
                    # registry object with `__call__`: the project's code, called as Python calls it.
                    decorated = self.call(decorator, [value], {}, dec, env)
                else:
                    continue
            except _Raised:
                if self.ctx.trying:
                    raise  # a name registered twice, caught around the class statement: unbound, as in Python
                continue  # uncaught, Python's import fails there; the analysis goes on, the decorator undone
            except (Unresolved, _Return, _Break, _Continue, RecursionError):
                continue
            if type(decorated) in kept:
                value = decorated
        return value

    def is_cache_decorator(self, dec: ast.expr, env: Env) -> bool:
        """``functools.lru_cache`` / ``functools.cache`` (called or not)."""
        try:
            return _is_functools_cache(dec, self.ev(_decorator_head(dec), env))
        except Unresolved:
            return False

    def init_members(self, cls: ClassV, node: ast.ClassDef) -> None:
        """An enum's own ``__init__``, run on each member with its value's items as the arguments, as
        the enum metaclass does (`CARTPOLE = (4, 2)` with `def __init__(self, obs_dim, n_actions)`)."""
        init = _own_method(cls, "__init__")
        if init is None or cls.find("__new__", None) is not None or not cls.enum_members:
            return
        done: set[int] = set()
        for member in cls.enum_members.values():
            if id(member) in done:
                continue  # an alias: its member's
            done.add(id(member))
            value = member.attrs["_value_"]
            try:
                self.call_function(init, [member, *(value if type(value) is tuple else (value,))], {}, node)
            except Unresolved as exc:
                cls.creation_unresolved = f"creating the members of `{cls.name}` runs its __init__: {exc.reason}"
                return

    def apply_wraps(self, fn: FuncV, node: ast.FunctionDef | ast.AsyncFunctionDef, env: Env) -> None:
        """A function defined in a function keeps its decorators unapplied, but for
        ``@functools.wraps(f)``, which only records ``f`` as the one it wraps: a class decorator
        replacing ``__init__`` by such a wrapper (transformers' ``use_experts_implementation``)
        leaves the signature inspect reads, and the analyser builds the class with, as it was."""
        for dec in node.decorator_list:
            if isinstance(dec, ast.Call) and _dotted(dec.func).rsplit(".", 1)[-1] == "wraps":
                try:
                    decorator = self.ev(dec, env)
                except Unresolved:
                    continue
                if type(decorator) is BuiltinV and decorator.name == "wraps":
                    decorator.fn(fn)

    def decorate_class(self, cls: ClassV, node: ast.ClassDef, env: Env) -> Any:
        """A class with the project's decorators applied, innermost first, as Python
        applies them: one that fills a registry (`@register` putting the class in a table a
        constructor reads, defined in this file or imported from another) has done so before the
        constructors run. Decorators that only write documentation are not run (syntax.py), nor
        one from outside the project; one the analyser cannot follow leaves the class as it is
        (apply_decorators)."""
        decorators = applied_class_decorators(node)
        if decorators and any(v.name in _STRICT_DECORATORS for v in self.decorator_names(decorators, env)):
            cls.strict_validated = True
        value = self.apply_decorators(cls, decorators, env, (ClassV, FuncV, PartialV, BoundV))
        if value is not cls:
            cls.decorated = value
        elif cls.is_module and not cls.is_dataclass and not cls.creation_unresolved and _no_init_of_its_own(cls):
            # A decorator from another package may give the class its __init__ (as attrs' does);
            # built with nn.Module's, it would be counted empty, and silently.
            outside = self.outside_decorator(decorators, env)
            if outside:
                cls.creation_unresolved = (f"`{cls.name}` has no `__init__` of its own, and its decorator `{outside}` "
                                           f"comes from outside the project: it may make one, which the analyser "
                                           f"does not follow")
        return value

    def decorator_names(self, decorators: list[ast.expr], env: Env) -> Iterator[ExtV]:
        """The outside names the decorators' heads mean (``attr.s`` of ``@attr.s(eq=False)``), read
        without calling anything: only heads that are dotted names are evaluated."""
        for decorator in decorators:
            head = _decorator_head(decorator)
            if not isinstance(head, (ast.Name, ast.Attribute)) or not _dotted(head):
                continue
            try:
                value = self.ev(head, env)
            except Unresolved:
                continue
            if type(value) is ExtV:
                yield value

    def outside_decorator(self, decorators: list[ast.expr], env: Env) -> str:
        """The name of the first decorator that is a function of another package (not the standard
        library's, torch's or typing's, nor one of _HARMLESS_DECORATORS); "" where there is none."""
        return next((v.name for v in self.decorator_names(decorators, env)
                     if v.name.split(".")[0] not in _HARMLESS_DECORATOR_PACKAGES
                     and v.name not in _HARMLESS_DECORATORS), "")

    def shim_class(self, name: str) -> Any:
        """The analyser's own version of an outside class (SHIMS: Lightning's LightningModule,
        accelerate's Accelerator), read once per analysis."""
        return self.shim_value(*SHIMS[name], name)

    def shim_value(self, path: str, shim_name: str, label: str) -> Any:
        """The class or function ``shim_name`` of the shim file ``path`` (``label``: what a message
        calls it where it cannot be read)."""
        mod = self.load_project_file(path)
        owner, _, attr = shim_name.rpartition(".")
        found = mod.names.get(owner or shim_name) if mod is not None else None
        if owner and type(found) is ClassV:
            found = found.find(attr, None)  # `OmegaConf.load`: a static method of the shim's class
        return found if type(found) in (ClassV, FuncV) else Unknown(f"`{label}` could not be read")

    def shim_function(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """What the shims ask of the analyser (_SHIM_FUNCTIONS): ``locate(dotted)``, the class or
        function a Hydra ``_target_`` names; ``read_yaml(path)``, a YAML file's data."""
        from lsp_count.pymodel import hydra_config

        if name.endswith(".stop") and len(args) == 1 and type(args[0]) is str:
            raise Unresolved(args[0])  # a shim's own reason (shims/hf_argparser.py: a required argument)
        if name.endswith(".attempt") and args:
            # shims/hf_argparser.py: `fn(*args, **kwargs)`, or, where the analyser cannot follow it, what is
            # not known and why (the other dataclasses are still made)
            try:
                return self.call(args[0], list(args[1:]), kwargs, node, self.ctx.call_env())
            except _Raised:
                raise
            except Unresolved as exc:
                return Unknown(exc.reason)
        if name.endswith(".training_plan") and len(args) == 2:
            # shims/trl.py, shims/transformers_trainer.py: what a trainer's config says of a step (batch,
            # sequence length, checkpointing; the optimizer's and the precision's names), kept for the model
            # it trains (its memory's plan); values the analyser does not know are left out
            model, trainer = args
            if type(model) is Inst and model.is_module and type(trainer) is str:
                pairs = kwargs.pop("pairs", False) is True
                sharding = sharding_stage(kwargs.pop("fsdp", None), kwargs.pop("fsdp_config", None),
                                          kwargs.pop("deepspeed", None))
                # (the optimizer itself, a value the analyser does not follow: whether there is one)
                kwargs["given_optimizer"] = kwargs.get("given_optimizer") is not None
                plan = {k: v for k, v in kwargs.items() if (type(v) in (int, bool) and (type(v) is bool or v > 0))
                        or (type(v) is str and k in ("optimizer", "optim_args", "precision", "library"))
                        or (k in ("given_reference", "teacher") and v is not None)}  # (a frozen model beside it)
                if pairs and "batch" in plan:
                    plan["batch"] *= 2  # each example's chosen and rejected sequences, in one batch
                    plan["pairs"] = True
                if sharding is not None:
                    if sharding[0] is not None:
                        plan["zero"] = sharding[0]
                    plan["sharding"] = sharding[1]
                self.ctx.training_plans.append((model, trainer, plan))
            return None
        if name.endswith(".loader_iterated") and len(args) == 1:
            # shims/torch_data.py: a DataLoader iterated by the loop now running, whose batches are a
            # training step's where its body trains (_trains); its batch size, or None where it is not known
            loops = self.ctx.running_loops
            if loops and _trains(loops[-1][0], self.ctx.training_loops, loops[-1][1]):
                batch = args[0]
                self.ctx.step_batches.append((None, batch if type(batch) is int and batch > 0 else None))
            return None
        if name.endswith(".loaders_trained") and len(args) == 2:
            # shims/lightning_trainer.py: the DataLoaders `fit` trains the model on (one, a list or a
            # dict of them), each batch size kept for it (None where a loader or its size is not known)
            model, loaders = args
            if type(model) is Inst and model.is_module:
                items = list(loaders.values()) if type(loaders) is dict else list(loaders) if type(loaders) in (
                    list, tuple) else [loaders]
                loader_class = self.shim_class("torch.utils.data.DataLoader")
                for loader in items:
                    batch = loader.attrs.get("batch_size") if type(loader) is Inst and type(loader.cls) is ClassV \
                        and loader_class in loader.cls.mro() else None
                    self.ctx.step_batches.append((model, batch if type(batch) is int and batch > 0 else None))
            return None
        if name.endswith(".cli_arguments") and len(args) == 4:
            return self.cli_arguments(*args, node)
        if name.endswith(".member_name") and len(args) == 1:
            # shims/lightning_trainer.py: an enum member's name (torch's `ShardingStrategy.SHARD_GRAD_OP`, not
            # read: its dotted name; an enum of the code); None for anything else
            value = args[0]
            if type(value) is ExtV and "." in value.name and value.name.rsplit(".", 1)[1].isupper():
                return value.name.rsplit(".", 1)[1]
            if type(value) is Inst and type(value.cls) is ClassV and value.cls.enum_members is not None:
                return value.attrs.get("_name_") if type(value.attrs.get("_name_")) is str else None
            return None
        if name.endswith(".reason") and len(args) == 1:
            return why_of(args[0]) if is_unknownish(args[0]) else ""  # why a value is not known, for a shim's note
        if name.endswith(".is_known") and len(args) == 1:
            return not is_unknownish(args[0])  # (a condition on it would stop the shim's code)
        if name.endswith(".defines") and len(args) == 2 and type(args[1]) is str:
            # shims/lightning_trainer.py: whether a value is an object whose class (of the code, or a shim)
            # defines the method; False for a value the analyser does not know, and where only a base it
            # does not read may define it
            value = args[0]
            return type(value) is Inst and type(value.cls) is ClassV and \
                type(value.cls.find(args[1], None)) is FuncV
        if name.endswith(".strategy_trained") and len(args) == 5:
            model, stage, said, offload, devices = args
            if type(model) is Inst and model.is_module:
                self.ctx.step_shardings.append((model, stage if type(stage) is int else None,
                                                said if type(said) is str else "a strategy the analysis does not know",
                                                offload is True, devices if type(devices) is int else None))
            return None
        if name.endswith(".optimizer_made") and len(args) == 3 and type(args[0]) is str and type(args[1]) is str:
            # shims/deepspeed.py: the optimizer a framework makes over the parameters, by the memory model's
            # name for its states ("" where they are not modelled), as a torch optimizer the code builds
            self.record_optimizer(args[0], args[1], [args[2]], {}, node)
            return None
        if name.endswith(".known") and len(args) == 1:
            # the value, or its own reason for not being known, not the shim's line that reads it
            # (shims/trl.py: the config of a model id not found offline)
            if is_unknownish(args[0]):
                raise Unresolved(why_of(args[0]))
            return args[0]
        if name.endswith(".kind") and len(args) == 1:
            # "DictConfig" / "dict" / "ListConfig" (any list) / "": what a config's value is, without
            # the error isinstance gives for a value the analyser does not know (it is passed on)
            value = args[0]
            if type(value) is Inst and value.cls is self.shim_class("omegaconf.DictConfig"):
                return "DictConfig"
            return "dict" if isinstance(value, dict) else "ListConfig" if isinstance(value, (list, tuple)) else ""
        main = next((s for s in self.ctx.scopes if s.is_main), None)
        if main is None:
            raise Unresolved("no file is analysed")
        if name.endswith((".hydra_initialize", ".hydra_compose")):
            return self.hydra_compose_api(name, args, main, node)
        if len(args) != 1 or kwargs or type(args[0]) is not str:
            raise Unresolved(f"`{_text(node)}`: the path is not a known string: {why_of(args[0]) if args else ''}")
        if name.endswith(".locate"):
            return self.locate(args[0], main, node)
        path = args[0]
        self.ctx.disk_reads += 1
        candidates = [path] if os.path.isabs(path) else [
            os.path.join(d, path) for d in (os.path.dirname(main.path), *self.ctx.base_dirs) if d]
        found = next((c for c in candidates if os.path.isfile(c)), None)
        if found is None:
            what = f"the JSON file `{path}`" if name.endswith(".read_json") else f"`OmegaConf.load({path!r})`"
            raise Unresolved(f"{what}: no such file beside the script or in the project (it is "
                             f"read from the directory the program runs in, which the analyser does not know)")
        if name.endswith(".read_json"):
            return _json_file(found, path)
        try:
            data = hydra_config.resolve(hydra_config.read_yaml(found, path))
        except hydra_config.ConfigError as exc:
            raise Unresolved(str(exc)) from None
        return self.config_value(data, node, main.env)

    def config_value(self, data: Any, node: ast.AST, env: Env) -> Any:
        """YAML data as OmegaConf's DictConfig of the shim (shims/hydra.py), made here:
        the shim's own wrapping would stop at the first value the analyser does not know (an
        ``${oc.env:...}``), which OmegaConf reads only where the program does."""
        if isinstance(data, dict):
            items = {k: self.config_value(v, node, env) for k, v in data.items()}
            return self.call(self.shim_class("omegaconf.DictConfig"), [items], {}, node, env)
        if isinstance(data, list):
            return [self.config_value(v, node, env) for v in data]  # (a ListConfig is a list here)
        return data

    def hydra_compose_api(self, name: str, args: list[Any], main: ModuleScope, node: ast.AST) -> Any:
        """Hydra's compose API: ``hydra_initialize(path, absolute)`` sets the config directory
        (``initialize``'s config_path is relative to the file that calls it: the analysed one);
        ``hydra_compose(config_name, overrides)`` composes from it (hydra_config.compose)."""
        from lsp_count.pymodel import hydra_config

        if name.endswith(".hydra_initialize"):
            path, absolute = args
            if path is not None and type(path) is not str:
                raise Unresolved(f"Hydra's config directory is not a known string: {why_of(path)}")
            self.ctx.hydra_dir = None if path is None else path if absolute and os.path.isabs(path) else \
                os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(main.path)), path))
            return None
        config_name, overrides = args
        if self.ctx.hydra_dir is None:
            raise _Raised("`compose(...)` raises ValueError: GlobalHydra is not initialized (`with "
                          "initialize(config_path=...)` first)", ExtV("ValueError"))
        if config_name is not None and type(config_name) is not str or not isinstance(overrides, (list, tuple)) or \
                any(type(o) is not str for o in overrides):
            what = config_name if config_name is not None and type(config_name) is not str else next(
                (o for o in overrides if type(o) is not str), overrides) if isinstance(overrides, (list, tuple)) else overrides
            raise Unresolved(f"`compose(...)`: the config name or an override is not a known string: "
                             f"{why_of(what) or type(what).__name__}")
        self.ctx.disk_reads += 1
        try:
            composed = hydra_config.compose(self.ctx.hydra_dir, config_name,
                                            os.path.relpath(self.ctx.hydra_dir, os.path.dirname(os.path.abspath(main.path))),
                                            overrides=list(overrides))
        except hydra_config.ConfigError as exc:
            raise Unresolved(f"Hydra's compose fails: {exc}") from None
        return self.config_value(composed.values, node, main.env)

    def locate(self, dotted: str, main: ModuleScope, node: ast.AST) -> Any:
        """Hydra's ``_locate``: the class or function a ``_target_`` names, from the longest module
        of the project it starts with (``src.models.mnist_module.MNISTLitModule``), else outside the
        project (``torch.nn.Linear``, as an import of it gives)."""
        parts = dotted.split(".")
        if not dotted or any(not p.isidentifier() for p in parts):
            raise Unresolved(f"`_target_: {dotted}` is not a dotted name Hydra can locate")
        if not may_import_project(dotted, 0):
            return _external(dotted)
        for i in range(len(parts) - 1, 0, -1):
            key = self.find_project_module(main, ".".join(parts[:i]), 0)
            if key is None:
                continue
            value: Any = self.load_project_file(key)
            if value is None:
                raise Unresolved(f"`_target_: {dotted}`: the module `{'.'.join(parts[:i])}` cannot be read")
            for attr in parts[i:]:
                value = self.get_attr(value, attr, node)
            return self.read_lazy(value) if type(value) is LazyImport else value
        raise Unresolved(f"`_target_: {dotted}` names no module of the project (looked for "
                         f"{'/'.join(parts[:-1]) or parts[0]}.py from {os.path.dirname(main.path) or '.'})")

    def lightning_init_arguments(self, env: Env) -> dict[str, Any]:
        """What Lightning's ``save_hyperparameters()`` collects off the call stack (its
        ``collect_init_args``): from the frame that calls it outward, the first frame of a method
        (one that has ``__class__``) whose ``self`` is a LightningModule, and each one that called
        it so (a subclass's constructor calling its base's): the arguments of the constructor of
        that frame's class, as the frame holds them now (its ``**kwargs`` spread); the outer
        frames' override the inner ones'."""
        frames = self.ctx.frames
        at = next((i for i in range(len(frames) - 1, -1, -1) if frames[i] is env), None)
        collected: dict[str, Any] = {}
        if at is None:
            return collected
        inside = False
        for frame in reversed(frames[:at + 1]):
            owner, obj = frame.vars.get("__class__"), frame.vars.get("__self__")
            if type(owner) is not ClassV or type(obj) is not Inst or not _lightning_instance(obj):
                if inside:
                    break
                continue
            inside = True
            init = owner.find("__init__", None)
            if type(init) is not FuncV:
                continue
            sig = init.signature
            skip = {sig.names[0] if sig.names else "self", sig.vararg, sig.kwarg, "__class__", "frame", "frame_args"}
            found = {name: frame.vars[name] for name in (*sig.names, *sig.kw_names)
                     if name not in skip and name in frame.vars}
            extra = frame.vars.get(sig.kwarg) if sig.kwarg else None
            if isinstance(extra, dict):
                found.update({k: v for k, v in extra.items() if k not in skip})
            collected.update(found)
        return collected

    def make_class(self, node: ast.ClassDef, env: Env) -> ClassV:
        bases = []
        for b in node.bases:
            try:
                bases.append(self.ev(b, env))
            except Unresolved as exc:
                bases.append(Unknown(exc.reason))
        if any(type(b) is ExtV and b.name in SHIMS for b in bases):
            bases = [self.shim_class(b.name) if type(b) is ExtV and b.name in SHIMS else b for b in bases]
        is_module = any(_is_module_base(b) for b in bases)
        # `@dataclass` and `@dataclasses.dataclass(frozen=True)` alike: the name of what is called.
        decorators = [_dotted(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        attrs_mode = self.attrs_decorator(node, env)
        pydantic = _pydantic_model(bases)
        is_dataclass = attrs_mode is not None or pydantic or any(d.split("(")[0].endswith("dataclass")
                                                                 for d in decorators) or any(
            isinstance(b, ExtV) and b.name.endswith("NamedTuple") for b in bases)
        scope = env.module
        cls = ClassV(node.name, node, tuple(bases), is_module, is_dataclass, path=scope.path,
                     span=scope.span_of(node) if scope.span_of else None, attrs_class=attrs_mode is not None)
        cls.pydantic = pydantic
        hooks = [f"`{stmt.name}`" for stmt in node.body if isinstance(stmt, ast.FunctionDef) and (
            stmt.name == "model_post_init" or any(_dotted(_decorator_head(d)).rpartition(".")[2] in _PYDANTIC_HOOKS
                                                   for d in stmt.decorator_list))] if pydantic else []
        if hooks:
            cls.creation_unresolved = (f"building a `{node.name}` runs its pydantic validators or hooks "
                                       f"({', '.join(hooks)}), which the analyser does not follow")
        attributes: list[str] = []  # attrs: the names given `attr.ib()` / `attrs.field()`, in order
        cls.transforms_subclasses = any(d.split("(")[0].endswith("dataclass_transform") for d in decorators)
        if not is_module and any(c.transforms_subclasses for c in cls.ancestors()):
            cls.is_dataclass = True
        body_env = _ClassBodyEnv(scope, env)
        fields: list[str] = []
        keyword_fields: set[str] = set()
        uninit_fields: set[str] = set()
        init_vars: set[str] = set()
        for b in reversed(bases):  # as dataclasses collects them: the MRO's last class first
            if isinstance(b, ClassV) and b.is_dataclass:
                fields.extend(f for f in b.fields if f not in fields)
                keyword_fields.update(b.keyword_fields)
                uninit_fields.update(b.uninit_fields)
                init_vars.update(b.init_vars)
        # @dataclass(kw_only=True); from `_: KW_ONLY` on; a pydantic model's __init__ takes keywords only
        keyword_only = pydantic or bool(_dataclass_option(node, "kw_only", False))
        for stmt in node.body:
            try:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    ann = stmt.annotation.value if isinstance(stmt.annotation, ast.Subscript) else stmt.annotation
                    name = stmt.target.id
                    if _dotted(ann).rpartition(".")[2] == "KW_ONLY":
                        keyword_only = True  # the sentinel, not a field
                        continue
                    if name not in fields and not _dotted(ann).startswith("ClassVar") and not (
                            pydantic and name.startswith("_")):  # ClassVar[int]; pydantic's private attributes
                        fields.append(name)
                    value = None
                    if stmt.value is not None:
                        value = body_env.vars[name] = self.ev(stmt.value, body_env)
                        if type(value) is FieldV and value.attrs:
                            attributes.append(name)
                    keyword_fields.discard(name)
                    uninit_fields.discard(name)
                    init_vars.discard(name)
                    if _dotted(ann).rpartition(".")[2] == "InitVar":
                        init_vars.add(name)
                    if keyword_only if type(value) is not FieldV or value.kw_only is None else value.kw_only:
                        keyword_fields.add(name)
                    if type(value) is FieldV and not value.init:
                        uninit_fields.add(name)
                elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    # Methods close over the module, not the class body (Python's scoping rule).
                    fn = self.make_function(stmt, env, body_env)
                    getter = body_env.vars.get(stmt.name)
                    accessor = {_dotted(d) for d in stmt.decorator_list} & {f"{stmt.name}.setter", f"{stmt.name}.deleter"}
                    if accessor and isinstance(getter, FuncV) and getter.kind == "property":
                        # `@x.setter`: the property x with that setter (a deleter leaves it as it is).
                        fn, setter = FuncV(getter.name, getter.node, getter.env, getter.defaults, getter.kw_defaults,
                                           "property"), fn
                        fn.setter = setter if f"{stmt.name}.setter" in accessor else getter.setter
                    elif stmt.decorator_list and fn.kind == "":
                        fn.decorators = body_env
                    body_env.vars[stmt.name] = fn
                else:
                    self.exec_stmt(stmt, body_env)
                    if attrs_mode is not None and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                            isinstance(stmt.targets[0], ast.Name):
                        value = body_env.vars.get(stmt.targets[0].id)
                        if type(value) is FieldV and value.attrs:
                            attributes.append(stmt.targets[0].id)
            except Unresolved as exc:
                for target in _assigned_names(stmt):
                    body_env.vars[target] = Unknown(exc.reason)
        if any(_private(k) for k in body_env.vars) and node.name.strip("_"):
            # `def __make(self)` in class Base is the attribute `_Base__make` (Python's private names).
            prefix = "_" + node.name.lstrip("_")
            body_env.vars = {(prefix + k if _private(k) else k): v for k, v in body_env.vars.items()}
        cls.namespace = body_env.vars
        cls.env = env
        for v in cls.namespace.values():
            if isinstance(v, FuncV) and v.owner is None:
                v.owner = cls
        if attrs_mode is not None:
            # attrs' fields: with `@attr.s`, the names given attr.ib() (annotations alone are not
            # fields unless auto_attribs=True); with `@define`, the annotated names, unless a name is
            # given attr.ib() without an annotation (then only those, as with `@attr.s`).
            auto = attrs_mode == "define" or bool(_decorator_option(node, _ATTRS_DECORATORS, "auto_attribs", False))
            annotated = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            if not auto or any(a not in annotated for a in attributes):
                inherited = [f for f in fields if f not in attributes and f not in annotated]
                fields = inherited + [f for f in fields + attributes if f in attributes and f not in inherited]
                fields = list(dict.fromkeys(fields))
            for name in attributes:  # `attr.ib(kw_only=True)`, `attr.ib(init=False)`
                value = body_env.vars.get(name)
                if type(value) is FieldV:
                    if value.kw_only or (value.kw_only is None and _decorator_option(node, _ATTRS_DECORATORS, "kw_only",
                                                                                    False)):
                        keyword_fields.add(name)
                    if not value.init:
                        uninit_fields.add(name)
        cls.fields = tuple(fields)
        cls.field_set = frozenset(fields)
        cls.keyword_fields, cls.uninit_fields = frozenset(keyword_fields), frozenset(uninit_fields)
        cls.init_vars = frozenset(init_vars)
        if not is_module and _is_enum(cls):
            _make_members(cls)
            self.init_members(cls, node)
        cls.dataclass_init = _dataclass_init(cls)  # a module may be a dataclass (its layers made in __post_init__)
        # A module's own __setattr__ runs for its attributes too (one that wraps each Linear it is given).
        cls.setattr_hook = _own_method(cls, "__setattr__")
        if not is_module:
            cls.getattribute_hook = _own_method(cls, "__getattribute__")
        unbound = next((b for b in bases if type(b) is Unknown and id(b) in self.ctx.unbound_by_raise), None)
        if unbound is not None:  # its base's statement raised, in Python as here: a name never bound
            base = next(n for b, n in zip(bases, node.bases) if b is unbound)
            error = f"the class statement `{node.name}` raises NameError: its base `{_text(base)}` is not defined " \
                    f"({unbound.why.split(': ', 1)[-1]})"
            if unbound.maybe_module:  # built on a module class Python refused: a module, refused
                is_module = cls.is_module = True
        else:  # type.__new__'s, before any __init_subclass__ runs
            error = _class_statement_error(cls)
            if error is not None:
                error = f"the class statement `{node.name}` raises TypeError: {error}"
        if error is not None:
            if is_module:  # not defined, but counted as refused: said, not left out
                cls.creation_unresolved = error
                scope.classes.append(cls)
            raise _Raised(error, ExtV("NameError" if unbound is not None else "TypeError"))
        self.init_subclass(cls, node, env)
        maker = _custom_construction(cls, node, body_env)
        if maker and not cls.creation_unresolved:
            cls.creation_unresolved = f"building a `{cls.name}` runs {maker}, which the analyser does not follow"
        if not is_module and "__init__" in cls.namespace and cls.dataclass_init is not None:
            # The hook gave the class an __init__ of its own (transformers' configs: one that passes
            # keywords that are not fields to __post_init__): that one runs.
            cls.dataclass_init = None
        scope.classes.append(cls)
        return cls

    def attrs_decorator(self, node: ast.ClassDef, env: Env) -> str | None:
        """"s" or "define" where a decorator of the class statement is attrs' (`@attr.s`,
        `@attrs.define`, `from attr import s` and `@s(...)`): by what its name means."""
        decorators = applied_class_decorators(node)  # transformers' `@auto_docstring` on every class: not read
        return next((_ATTRS_DECORATORS[v.name] for v in self.decorator_names(decorators, env)
                     if v.name in _ATTRS_DECORATORS), None) if decorators else None

    def class_annotations(self, cls: ClassV) -> dict[str, Any]:
        """``cls.__annotations__``, each evaluated in the class body (an Unknown where it cannot be)."""
        if cls.annotations is not None:
            return dict(cls.annotations)
        if cls.env is None:
            return {}
        scope = Env(cls.env.module, cls.env)
        scope.vars.update(cls.namespace)
        out: dict[str, Any] = {}
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                try:
                    out[stmt.target.id] = self.ev(stmt.annotation, scope)
                except Unresolved as exc:
                    out[stmt.target.id] = Unknown(exc.reason)
        # One not known while its module runs may be known later (a name defined below it).
        if cls.env.module.ran or not any(type(v) is Unknown for v in out.values()):
            cls.annotations = dict(out)
        return out

    def init_subclass(self, cls: ClassV, node: ast.ClassDef, env: Env) -> None:
        """Python calls the nearest base's ``__init_subclass__`` with the new class (transformers'
        PreTrainedConfig turns class attributes into specs there). Where the analyser cannot follow
        it, what it does to the class is not known: building the class says so."""
        owner = next((c for c in cls.ancestors() if "__init_subclass__" in c.namespace), None)
        if owner is None:
            return
        hook = owner.namespace["__init_subclass__"]
        if not isinstance(hook, FuncV):
            return
        try:
            kwargs = {k.arg: self.ev(k.value, env) for k in node.keywords if k.arg and k.arg != "metaclass"}
            self.call_function(hook, [cls], kwargs, node)
        except Unresolved as exc:
            cls.creation_unresolved = (f"creating `{cls.name}` runs `{owner.name}.__init_subclass__`, which the "
                                       f"analyser cannot follow: {exc.reason}")
        except _Return:
            pass

    # --- expressions -----------------------------------------------------------------------

    def ev(self, e: ast.expr, env: Env) -> Any:
        # The four commonest nodes by exact type first (ast.parse makes no subclasses);
        # everything else goes through the full chain below.
        t = type(e)
        if t is _Constant:
            return e.value  # type: ignore[attr-defined]
        if t is _Name:
            name = e.id  # type: ignore[attr-defined]
            scope: Env | None = env
            while scope is not None:  # Env.lookup, inline: names are most of what is evaluated
                names = scope.vars
                if name in names:
                    v = names[name]
                    return self.read_lazy(v) if type(v) is LazyImport else v
                scope = scope.parent
            return self.lookup(name, env, e)
        if t is _Attribute:
            attr = e.attr  # type: ignore[attr-defined]
            if attr[:2] == "__" and attr[-2:] != "__":
                attr = self.private_name(attr, env)
            elif attr == "__version__":
                owner = self.ev(e.value, env)  # type: ignore[attr-defined]
                if type(owner) is ExtV and owner.name == "torch":
                    return self.read_torch_version(e, env)
                return self.get_attr(owner, attr, e)
            elif attr == "argv":
                owner = self.ev(e.value, env)  # type: ignore[attr-defined]
                if type(owner) is ExtV and owner.name == "sys":
                    return self.command_line(e, env)
                return self.get_attr(owner, attr, e)
            return self.get_attr(self.ev(e.value, env), attr, e)  # type: ignore[attr-defined]
        if t is _Call:
            return self.ev_call(e, env)  # type: ignore[arg-type]
        if t is _Compare:  # `key in ...`, `x is not None`: transformers' config hooks, every attribute read
            return self.compare(e, env)  # type: ignore[arg-type]
        if t is _Tuple:  # tables: OrderedDict([("llama", "LlamaConfig"), ...])
            elts = e.elts  # type: ignore[attr-defined]
            if all(type(x) is _Constant for x in elts):
                return tuple([x.value for x in elts])
        return self._ev(e, env)

    def _ev(self, e: ast.expr, env: Env) -> Any:
        # What ev does not answer itself, the commonest first (a timm model file: BoolOp, Subscript,
        # IfExp, BinOp, UnaryOp; each test passed costs as much as a small branch). The node types
        # are distinct, so the order changes nothing else.
        if isinstance(e, ast.BoolOp):
            is_and = isinstance(e.op, ast.And)
            v: Any = None
            for operand in e.values:
                v = self.ev(operand, env)
                if is_unknownish(v):
                    return Unknown(_depends_on(e, v))
                if self.truthy(v, operand) != is_and:
                    return v
            return v
        if isinstance(e, ast.Subscript):
            return self.get_item(self.ev(e.value, env), self.ev(e.slice, env), e)
        if isinstance(e, ast.IfExp):
            cond = self.ev(e.test, env)
            if is_unknownish(cond):
                raise Unresolved(f"the condition `{_text(e.test)}` ({env.module.where(e.lineno)}) depends on "
                                 f"{_first_cause(why_of(cond))}")
            return self.ev(e.body if self.truthy(cond, e.test) else e.orelse, env)
        if isinstance(e, ast.BinOp):
            return self.binop(type(e.op), self.ev(e.left, env), self.ev(e.right, env), e)
        if isinstance(e, ast.UnaryOp):
            v = self.ev(e.operand, env)
            if isinstance(v, Unknown) and not isinstance(e.op, ast.Not):
                return Unknown(v.why)  # -log(x) of an unknown x: unknown for x's reason
            if isinstance(e.op, ast.Not):
                if is_unknownish(v):
                    return Unknown(_depends_on(e, v))
                return not self.truthy(v, e.operand)
            if isinstance(e.op, ast.USub):
                if type(v) in _TENSORS:
                    return self.tensor_binop(ast.Mult, -1, v, e)  # -t: the shape, the values negated
                return self.binop(ast.Mult, -1, v, e) if isinstance(v, (Sym, int)) else self._py(operator.neg, v, e)
            if isinstance(e.op, ast.UAdd):
                return v
            if type(v) in _TENSORS:  # ~mask: a mask of the same shape (its values not kept)
                return TensorV(tuple(v.shape))
            return self._py(operator.invert, v, e)
        if isinstance(e, ast.List | ast.Tuple | ast.Set):
            items: list[Any] = []
            for elt in e.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(self.iterate(self.ev(elt.value, env), elt))
                else:
                    items.append(self.ev(elt, env))
            if isinstance(e, ast.List):
                return items
            if isinstance(e, ast.Set):
                return _set_of(items, e)  # `{self.enc, self.dec}`: modules by identity, as torch hashes them
            return tuple(items)
        if isinstance(e, ast.Dict):
            out: dict[Any, Any] = {}
            for k, v in zip(e.keys, e.values):
                if k is None:
                    merged = self.ev(v, env)
                    if not isinstance(merged, dict):
                        raise Unresolved(f"`**{_text(v)}` is not a known dict{_because(merged)}")
                    out.update(merged)
                else:
                    out[_dict_key(self.ev(k, env), k)] = self.ev(v, env)
            return out
        if isinstance(e, ast.Constant):
            return e.value
        if isinstance(e, ast.Name):
            return self.lookup(e.id, env, e)
        if isinstance(e, ast.Attribute):
            return self.get_attr(self.ev(e.value, env), self.private_name(e.attr, env), e)
        if isinstance(e, ast.Call):
            return self.ev_call(e, env)
        if isinstance(e, ast.Compare):
            return self.compare(e, env)
        if isinstance(e, ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp):
            return self.comprehension_value(e, env)  # type: ignore[arg-type]
        if isinstance(e, ast.Slice):
            return slice(*(None if x is None else self.ev(x, env) for x in (e.lower, e.upper, e.step)))
        if isinstance(e, ast.JoinedStr):
            parts = []
            for v in e.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    val = self.ev(v.value, env)  # type: ignore[attr-defined]
                    if is_unknownish(val) or isinstance(val, (Inst, Param)):
                        return Unknown(f"the string `{_text(e)}` depends on unresolved values")
                    conversion = v.conversion  # type: ignore[attr-defined]
                    if conversion in (_REPR_CONVERSION, _ASCII_CONVERSION):  # f"{x!r}": the repr, then the spec
                        val = _repr(val) if conversion == _REPR_CONVERSION else _ascii(val)
                        if type(val) is Unknown:
                            return Unknown(f"the string `{_text(e)}`: {val.why}")
                    text = _text_of(val, self.ev(v.format_spec, env) if v.format_spec else "")  # type: ignore[attr-defined]
                    if text is _MISSING:
                        return Unknown(f"the string `{_text(e)}`: the analyser does not know the text of "
                                       f"`{_text(v.value)}`")  # type: ignore[attr-defined]
                    parts.append(text)
            return "".join(parts)
        if isinstance(e, ast.Lambda):
            return self.make_function(e, env)
        if isinstance(e, ast.NamedExpr):
            v = self.ev(e.value, env)
            scope = env
            while type(scope) is _ComprehensionEnv:  # `[y for x in xs if (y := f(x))]` binds y outside (PEP 572)
                scope = scope.parent  # type: ignore[assignment]
            self.assign(e.target, v, scope)
            return v
        if isinstance(e, ast.Starred):
            return self.ev(e.value, env)
        if isinstance(e, ast.Yield | ast.YieldFrom) and self.ctx.yield_hooks:
            hook = self.ctx.yield_hooks[-1]
            if isinstance(e, ast.Yield):
                hook(None if e.value is None else self.ev(e.value, env))
            else:
                for item in self.iterate(self.ev(e.value, env), e.value):
                    hook(item)
            return None  # what the consumer sends: a for loop or a `with` sends nothing
        if isinstance(e, ast.Await | ast.Yield | ast.YieldFrom):
            raise Unresolved(f"`{type(e).__name__.lower()}` on {env.module.where(e.lineno)} is not followed")
        raise Unresolved(f"`{_text(e)}` is not followed")

    def compare(self, e: ast.Compare, env: Env) -> Any:
        left = self.ev(e.left, env)
        for op, comp in zip(e.ops, e.comparators):
            right = self.ev(comp, env)
            kind = type(op)
            if (type(left) in _TENSORS or type(right) in _TENSORS) and kind in _TENSOR_COMPARISONS and len(e.ops) == 1 \
                    and all(type(x) in _TENSORS or type(x) in (int, float, bool) for x in (left, right)):
                return _tensor_comparison(kind, left, right, self.tensor_binop(ast.Add, left, right, e))
            if (kind is ast.Is or kind is ast.IsNot) and type(left) is ExtV and type(right) is ExtV:
                # One outside object per dotted name (torch.quantization is torch.ao.quantization).
                result = (_canonical_name(left.name) == _canonical_name(right.name)) == (kind is ast.Is)
            elif (kind is ast.Is or kind is ast.IsNot) and (right is None or left is None):
                same = left is right if not (is_unknownish(left) and is_unknownish(right)) else None
                if isinstance(left, Unknown) or isinstance(right, Unknown):
                    return Unknown(f"`{_text(e)}` depends on {_clause(why_of(left) or why_of(right))}")
                result: Any = same if kind is ast.Is else not same
            elif is_unknownish(left) or is_unknownish(right):
                return Unknown(f"`{_text(e)}` depends on {_clause(why_of(left) or why_of(right))}")
            elif (kind is ast.Is or kind is ast.IsNot) and type(left) is str and type(right) is str:
                # `block_type is 'proj'` (Cadene's DPN): CPython interns strings of letters, digits and
                # underscores, so equal ones are one object; others' identity is its caching, not known.
                if left != right:
                    result = kind is ast.IsNot
                elif _INTERNED.fullmatch(left):
                    result = kind is ast.Is
                else:
                    return Unknown(f"`{_text(e)}`: whether two equal strings are one object is CPython's caching")
            elif (kind is ast.In or kind is ast.NotIn) and type(right) is ExtV and right.name == "os.environ":
                found = self.read_environment(left, e, env, _MISSING)
                result = (found is _MISSING) == (kind is ast.NotIn)  # unset, unless the code set it
            elif (kind is ast.Eq or kind is ast.NotEq) and (type(left) is Inst or type(right) is Inst) and (
                    found := self.instances_equal(left, right, e)) is not _MISSING:
                if is_unknownish(found):
                    return Unknown(f"`{_text(e)}` depends on {_clause(why_of(found))}")
                result = self.truthy(found, e) == (kind is ast.Eq)
            else:
                result = self._py2(_CMPOPS[kind], left, right, e)
            if not result:
                return False
            left = right
        return True

    def element(self, e: ast.expr) -> Callable[[Env], Any]:
        """What a comprehension evaluates for each item: ``ev``, without its dispatch for the
        variable the comprehension binds (``{v: k for k, v in table.items()}``)."""
        if type(e) is _Name:
            name = e.id

            def bound(en: Env) -> Any:
                v = en.vars.get(name, _MISSING)
                return self.ev(e, en) if v is _MISSING or type(v) is LazyImport else v
            return bound
        return lambda en: self.ev(e, en)

    def comprehension_value(self, e: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, env: Env) -> Any:
        first = e.generators[0]
        source = self.ev(first.iter, env)  # where the comprehension is written, when it is made
        lazy = type(e) is ast.GeneratorExp
        if type(source) is IteratorV or (lazy and type(source) is list):
            # `[f(x) for x in gen()]`: each item taken as the loop reaches it (what `f` does in between
            # is seen by the generator); a generator expression's list as it is when consumed
            # (Python's list iterator sees an append made after the generator was)
            items: Any = source if type(source) is IteratorV else iter(source)
        else:
            items = self.iterate(source, first.iter)
            picked = _picked_items(e, items)
            if picked is not None:
                # Each item is only the names the loop binds (transformers' auto mappings reverse a
                # table of a thousand entries fifty times at import: a third of a model file's analysis
                # through the loop below): the same values and steps at once.
                ctx = self.ctx
                ctx.steps += len(items)
                if ctx.steps > MAX_STEPS:
                    ctx.tick()
                if type(e) is not ast.DictComp:
                    return IteratorV(list(picked)) if lazy else list(picked)
                keys, values = picked
                if set(map(type, keys)) <= _PLAIN_KEY_TYPES:
                    return dict(zip(keys, values))  # (the commonest: names, in C)
                return {k if type(k) is str or type(k) is int else _dict_key(k, e.key): v for k, v in zip(keys, values)}
        # In a class body the comprehension's scope is a function's: the class's names are not in it.
        bound = self.bindings(e.generators, 0, _ComprehensionEnv(env.module, env.parent if type(env) is _ClassBodyEnv
                                                                 else env), items)
        if type(e) is ast.DictComp:
            key, value = self.element(e.key), self.element(e.value)
            return {_dict_key(key(en), e.key): value(en) for en in bound}
        elt = self.element(e.elt)
        if lazy:
            # Python runs a generator expression's body as it is consumed, not where it is written:
            # the names it reads have their values then (`dim` changed before `nn.ModuleList(gen)`),
            # `any(...)` stops it at the first true item, and a loop's `next(gen)` shares it.
            return self.lazy_iterator(elt(en) for en in bound)
        found = [elt(en) for en in bound]
        return _set_of(found, e) if type(e) is ast.SetComp else found

    def lazy_iterator(self, source: Iterator[Any]) -> "IteratorV":
        """An iterator whose items are computed when taken; its source (a generator holding the scope
        that may hold it) is dropped when the analysis ends (analyzer._release)."""
        made = IteratorV([], source)
        self.ctx.lazy_iterators.append(made)
        return made

    def first_item(self, e: ast.GeneratorExp, default: ast.expr | None, env: Env) -> Any:
        """``next(x for x in xs if ...)``: as Python runs it, up to the first item only (what comes
        after it is never computed: transformers' ``PreTrainedModel.dtype`` is the dtype of the first
        floating-point parameter)."""
        first = e.generators[0]
        items = self.iterate(self.ev(first.iter, env), first.iter)  # made with the generator, before the default
        fallback = self.ev(default, env) if default is not None else _MISSING
        for en in self.bindings(e.generators, 0, _ComprehensionEnv(env.module, env), items):
            return self.element(e.elt)(en)
        if fallback is not _MISSING:
            return fallback
        raise _Raised("`next` of an exhausted iterator (StopIteration)", ExtV("StopIteration"))

    def bindings(self, gens: list[ast.comprehension], i: int, env: Env, items: Iterable[Any]) -> Iterator[Env]:
        """The comprehension's loop ``i`` over ``items``, its iterable's values: ``env`` with the
        names of each combination of items that its conditions keep bound, as it is reached. The
        first iterable is evaluated by the caller, where the comprehension is written (Python's
        scoping: it is the comprehension function's argument); the others here, inside it."""
        g = gens[i]
        ctx, target, ifs, last, names = self.ctx, g.target, g.ifs, i + 1 == len(gens), env.vars
        # The common targets bound here (`x`, `k, v`): a table's comprehension runs for every entry.
        name = target.id if type(target) is _Name else None
        pair = tuple(t.id for t in target.elts) if type(target) is ast.Tuple and all(
            type(t) is _Name for t in target.elts) else None
        for item in items:
            ctx.steps += 1  # ctx.tick(), inline
            if ctx.steps > MAX_STEPS:
                ctx.tick()
            if name is not None:
                names[name] = item
            elif pair is not None and type(item) is tuple and len(item) == len(pair):
                names.update(zip(pair, item))
            else:
                self.assign(target, item, env)
            if ifs and not all(self.truthy(self.ev(cond, env), cond) for cond in ifs):
                continue
            if last:
                yield env
            else:
                following = gens[i + 1]
                yield from self.bindings(gens, i + 1, env, self.iterate(self.ev(following.iter, env), following.iter))

    def lookup(self, name: str, env: Env, node: ast.AST) -> Any:
        try:
            v = env.lookup(name)
            return self.read_lazy(v) if type(v) is LazyImport else v
        except KeyError:
            pass
        if name in _BUILTINS:
            return _BUILTINS[name]
        if name in _UNSAFE:
            raise Unresolved(f"the code calls `{name}`, which the analyser never runs")
        if name in _PYTHON_BUILTIN_NAMES:  # `bytes`, `memoryview`: Python's, which the analyser does not model
            return Unknown(f"`{name}` is a Python builtin the analyser does not follow")
        if env.module.star_imports:
            return Unknown(f"`{name}` may come from `from {env.module.star_imports[0]} import *`, which the analyser "
                           f"does not follow", maybe_module=True)
        scope = env.module
        if scope.certainly_undefined(name) if env is not scope.env else scope.unbound_now(name):
            # DANet's `math.sqrt(...)` in reset_parameters without `import math`: a function's name that
            # nothing in the file defines (no star import, no writes through globals()) is Python's NameError.
            # So is a name the file's own statements have not bound yet when they read it (pytorch/examples'
            # dcgan: `assert dataset` where only a branch not taken binds it): they run in order, once.
            raise _Raised(f"`{name}` ({scope.where(node.lineno)}) raises NameError: name '{name}' is not defined",
                          ExtV("NameError"))
        return Unknown(f"`{name}` is not defined in this file", maybe_module=True)

    def iterate(self, v: Any, node: ast.AST) -> list[Any]:
        if type(v) is CycleV:
            raise Unresolved(f"`{_text(node)}` cycles without end")
        if isinstance(v, RangeV):
            r = v.r
            n = max(0, (r.stop - r.start + r.step - (1 if r.step > 0 else -1)) // r.step)  # len() overflows past 2**63
            if n > MAX_ITERATIONS:
                raise Unresolved(f"the loop over `{_text(node)}` runs {n:,} times, more than the "
                                 f"{MAX_ITERATIONS:,} the analyser follows")
            return list(r)
        if isinstance(v, (list, tuple)):
            return list(v)
        if isinstance(v, dict):
            return list(v)
        if isinstance(v, (str, set, frozenset, _DICT_VIEWS, collections.deque, IteratorV, ContainerView)):
            return list(v)
        if (hook := _own_iter(v)) is not None:  # a container subclass's or an object's own iteration
            return self.iterate(self.call_function(hook, [v], {}, node), node)
        if (getitem := _sequence_getitem(v)) is not None:
            return self.sequence_items(v, getitem, node)
        if isinstance(v, Inst) and v.kind in ("list", "seq", "plist"):
            return [x for _, x in container_entries(v)]
        if isinstance(v, Inst) and v.kind in ("dict", "pdict"):
            return [k for k, _ in container_entries(v)]
        if type(v) is Inst and not v.is_module and isinstance(v.attrs.get(_DICT_ITEMS), dict):
            return list(v.attrs[_DICT_ITEMS])  # a dict subclass's keys (slimmable's AttrDict: `for key in self.__dict__`)
        if isinstance(v, TensorV) and v.values is not None and len(v.shape) == 1:
            # `for x in torch.linspace(...)`: 0-d tensors
            return [TensorV((), (x,), dtype=v.dtype, numpy=v.numpy) for x in _exact_values(v, node)]
        if type(v) is ClassV and v.enum_members is not None:
            return _members(v)
        if type(v) is Inst and type(v.cls) is ClassV and _is_named_tuple(v.cls):
            return list(_named_tuple_items(v))  # `h, w = size`
        if type(v) in _TENSORS and not v.shape:
            raise _Raised(f"iterating over `{_text(node)}` raises TypeError: iteration over a 0-d tensor",
                          ExtV("TypeError"))
        if type(v) in _TENSORS and v.shape:
            # Its rows, of values the analyser does not know (a random tensor's), one per index.
            length = v.shape[0]
            if type(length) is not int:
                raise Unresolved(f"iterating over `{_text(node)}` depends on its length, "
                                 f"{_clause(why_of(length)) if is_unknownish(length) else repr(length)}")
            if length > MAX_ITERATIONS:
                raise Unresolved(f"the loop over `{_text(node)}` runs {length:,} times, more than the "
                                 f"{MAX_ITERATIONS:,} the analyser follows")
            return _tensor_rows(v)
        if is_unknownish(v):
            raise Unresolved(f"iterating over `{_text(node)}` depends on {_clause(why_of(v))}")
        if isinstance(v, (bytes, bytearray)):
            return list(v)  # its bytes, as ints
        name = _not_iterable(v)
        if name is not None:
            raise _Raised(f"iterating over `{_text(node)}` raises TypeError: '{name}' object is not iterable",
                          ExtV("TypeError"))
        raise Unresolved(f"cannot iterate over `{_text(node)}`")

    def sequence_items(self, obj: Inst, getitem: FuncV, node: ast.AST) -> list[Any]:
        """Python's iteration of an object whose class defines ``__getitem__`` and no ``__iter__``:
        ``obj[0]``, ``obj[1]``, ... until its ``__getitem__`` raises IndexError."""
        items = []
        for i in range(MAX_ITERATIONS + 1):
            try:
                items.append(self.call_function(getitem, [obj, i], {}, node))
            except _Raised as exc:
                if _exception_matches(exc.kind, ExtV("IndexError")):
                    return items
                raise
        raise Unresolved(f"iterating over `{_text(node)}` takes more than {MAX_ITERATIONS:,} items by its "
                         f"`__getitem__`, more than the analyser follows")

    def get_item(self, obj: Any, key: Any, node: ast.AST) -> Any:
        if is_unknownish(obj):
            return Unknown(why_of(obj), maybe_module=isinstance(obj, Unknown) and obj.maybe_module)
        if is_unknownish(key):
            raise Unresolved(f"the index in `{_text(node)}` depends on {_clause(why_of(key))}")
        if isinstance(obj, Inst):
            cls = obj.cls
            hook = _container_override(obj, "__getitem__")
            if hook is not None:  # a Sequential subclass's own indexing
                return self.call_function(hook, [obj, key], {}, node)
            if type(cls) is ClassV and not obj.is_module:
                getitem = _own_method(cls, "__getitem__")
                if getitem is not None:
                    return self.call_function(getitem, [obj, key], {}, node)
                if _is_named_tuple(cls) and type(key) in (int, slice):  # `size[0]`, as the tuple it is
                    try:
                        return _named_tuple_items(obj)[key]
                    except IndexError:
                        raise _Raised(f"`{_text(node)}`: tuple index out of range (IndexError)", ExtV("IndexError"))
                items = obj.attrs.get(_DICT_ITEMS)
                if isinstance(items, dict):
                    if not _hashable(key) or key not in items:
                        raise Unresolved(f"`{_text(node)}`: no key {key!r}")
                    return items[key]
                # A plain object of the code (a dataclass config) has no items: `cfg["width"]` is
                # Python's TypeError, not its attribute, unless a base the analyser does not read has them.
                outside = next((b for b in _outside_bases(cls) if not _is_object(b)), None)
                if outside is not None:
                    base = f"`{outside.name}`" if type(outside) is ExtV else "a base the analyser could not resolve"
                    raise Unresolved(f"`{_text(node)}`: whether {base}, a base of `{cls.name}`, supports "
                                     f"indexing is outside the file")
                raise _Raised(f"`{_text(node)}`: a `{cls.name}` is not subscriptable (TypeError)", ExtV("TypeError"))
            if obj.kind in ("list", "seq", "plist"):
                entries = container_entries(obj)
                values = [v for _, v in entries]
                if isinstance(key, slice):
                    try:
                        picked = entries[key]
                    except (TypeError, ValueError) as exc:  # `layers[::"s"]`, a step of 0: Python's, on its values
                        raise _python_error(exc, node, all(_is_python_key(x) for x in (key.start, key.stop, key.step)))
                    out = Inst(obj.cls, obj.kind, obj.is_module, obj.origin)
                    # A Sequential's slice keeps its modules' names (torch builds it from an OrderedDict
                    # of them: `seq[1:]` holds '1', which a later append replaces); a ModuleList's and a
                    # ParameterList's are numbered from 0 again.
                    for i, (k, m) in enumerate(picked):
                        out.attrs[k if obj.kind == "seq" else str(i)] = m
                    return out
                if obj.kind == "list" and type(key) is int:  # a ModuleList's, by its key as torch's
                    return _module_list_entry(obj, key, node)
                try:
                    return values[key]
                except (IndexError, TypeError):
                    raise Unresolved(f"`{_text(node)}`: index out of range")
            if _hashable(key) and (key in obj.attrs or str(key) in obj.attrs):
                return obj.attrs.get(key, obj.attrs.get(str(key)))
            raise Unresolved(f"`{_text(node)}`: no key {key!r}")
        if isinstance(obj, TensorV) and obj.values is not None and len(obj.shape) == 1 and type(key) in (int, slice):
            try:
                errors = obj.errors
                if type(key) is int:
                    return TensorV((), (obj.values[key],), dtype=obj.dtype,
                                   errors=(errors[key],) if errors is not None else None, numpy=obj.numpy)
                return TensorV((len(obj.values[key]),), obj.values[key], dtype=obj.dtype,
                               errors=errors[key] if errors is not None else None, numpy=obj.numpy)
            except (IndexError, ValueError, TypeError):  # TypeError: a slice of strings
                raise Unresolved(f"`{_text(node)}`: index out of range")
        if isinstance(obj, (Param, TensorV)) and type(key) is TensorV and key.dtype in tensor_values.INT_DTYPES and \
                obj.shape:
            # Rows picked by a tensor of integers (nanochat's `W[idx]`): the index's shape, then the rest.
            n = obj.shape[0]
            if key.values is not None and type(n) is int and any(not -n <= v < n for v in key.values):
                raise _Raised(f"`{_text(node)}`: an index out of range for a dimension of {n} (torch raises "
                              f"IndexError)", ExtV("IndexError"))
            return TensorV(tuple(key.shape) + tuple(obj.shape[1:]), floating=_is_floating(obj))
        if isinstance(obj, (Param, TensorV)):
            numpy = type(obj) is TensorV and obj.numpy
            try:
                shape = shapes.index_shape(tuple(obj.shape), key, numpy)
            except shapes.ShapeError as exc:
                raise Unresolved(f"`{_text(node)}`: {exc} ({'numpy' if numpy else 'torch'} raises)")
            sliced = any(isinstance(k, slice) for k in (key if isinstance(key, tuple) else (key,)))
            return TensorV(shape, contiguous=not sliced and _contiguous(obj), numpy=numpy) if shape is not None else Unknown(
                f"`{_text(node)}`: the analyser does not follow this index into a tensor")
        if type(obj) is DefaultDict and _hashable(key) and key not in obj and obj.factory is not None:
            obj[key] = self.call(obj.factory, [], {}, node, self.ctx.call_env())
        if isinstance(obj, RangeV):
            try:
                return obj.r[key]
            except (IndexError, TypeError, OverflowError) as exc:
                raise _python_error(exc, node, _python_subscript(obj.r, key))
        if isinstance(obj, ExtV):
            if obj.name == "os.environ":
                found = self.read_environment(key, node, None, _MISSING)
                if found is not _MISSING:
                    return found
                raise _Raised(f"`{_text(node)}`: the analysis takes `{key}` as unset (KeyError)", ExtV("KeyError"))
            if obj.name == "sys.modules" and type(key) is str:
                return self.loaded_module(key)  # timm's register_model: sys.modules[fn.__module__]
            return obj  # typing subscripts: Optional[int], list[str]
        if type(obj) is BuiltinV and obj.name in _PY_TYPES and obj is _BUILTINS.get(obj.name) and \
                obj.name in _GENERIC_BUILTINS:
            # A generic alias (`tuple[torch.Tensor, ...]` in an annotation): Python makes one, which the
            # analyser does not model (it is not the class: `list[int] is list` is False).
            return Unknown(f"the generic alias `{_text(node)}`, which the analyser does not model")
        if isinstance(obj, ClassV):
            if obj.enum_members is not None:  # `Format["NCHW"]`: a member by its name (aliases too)
                if type(key) is not str or key not in obj.enum_members:
                    raise _Raised(f"`{_text(node)}`: `{obj.name}` has no member {key!r} (KeyError)", ExtV("KeyError"))
                return obj.enum_members[key]
            return obj  # a generic's parameters: Config[int]
        if isinstance(obj, dict):
            key = _stored_key(obj, key)
        try:
            return obj[key]
        except (IndexError, KeyError, TypeError, ValueError) as exc:  # ValueError: a slice step of 0
            raise _python_error(exc, node, _python_subscript(obj, key))

    # --- attributes ------------------------------------------------------------------------

    def get_attr(self, obj: Any, name: str, node: ast.AST) -> Any:
        if isinstance(obj, Inst):
            return self.inst_attr(obj, name, node)
        safe = _SAFE_METHODS.get(type(obj), _MISSING)
        if type(obj) is str and name in ("format", "format_map"):
            return BuiltinV(name, functools.partial(_formatted, obj, name, node))  # of the analyser's values: not known
        if type(obj) is str and name in _WIDTH_METHODS:  # `" ".ljust(n)`: a string n long, made only where n is small
            method = getattr(obj, name)
            return BuiltinV(name, lambda width=8, *rest: (_bounded_widths([width], node), method(width, *rest))[1])
        if safe is not _MISSING and not name.startswith("_") and (safe is None or name in safe):
            if isinstance(obj, dict) and name in ("get", "pop", "setdefault"):
                keyed, at = getattr(obj, name), node  # the key Python finds (a str enum's member for its value)

                def with_stored_key(key: Any, *rest: Any) -> Any:
                    if name != "get" and id(obj) in self.ctx.state_containers:  # `CFG.pop("type")`: a later build reads it
                        self.state_written(True)
                        self.ctx.logged_change(obj)
                    try:
                        return keyed(_stored_key(obj, key), *rest)
                    except (KeyError, TypeError) as exc:  # `table.pop(key)` of a missing key: Python's error
                        if _all_python_values([key, *rest], {}):
                            raise _python_error(exc, at, True)
                        raise
                return BuiltinV(name, with_stored_key)
            method = getattr(obj, name, None)  # `table.get`, `layers.append`: no other branch is theirs
            if method is not None:  # (a str has any public name; one it lacks is refused below)
                return BuiltinV(name, method) if callable(method) else method
        if isinstance(obj, ExtV):
            if name == "__dict__" and obj.name == "torch.nn":
                # `nn.__dict__[rnn_type](...)`: torch.nn's public names, as getattr(nn, name) finds them
                return {n: self.get_attr(obj, n, node) for n in sorted({*TORCH_NN_MODULES, *TORCH_NN_OTHER_NAMES})}
            if name == "argv" and obj.name == "sys":
                return self.command_line(node, None)  # (`getattr(sys, "argv")`)
            if obj.name in _DISTRIBUTED_TYPES:
                return self.get_attr(self.shim_class(obj.name), name, node)
            key = (obj.name, name)
            found = self.ext_names.get(key)
            if found is None and _torch_class_lacks(obj.name, name):
                # `hasattr(nn.BatchNorm2d, "_abbr_")` (mmcv), `nn.Linear.in_features`: the class lacks it
                if self.ctx.probing_attributes:
                    raise _NoAttribute(name)
                raise _Raised(f"`{_text(node)}` raises AttributeError: type object '{obj.name[len('torch.nn.'):]}' has "
                              f"no attribute '{name}'", ExtV("AttributeError"))
            if found is None:  # nn.Linear is looked up for every layer: one ExtV per dotted name
                dotted = f"{obj.name}.{name}"
                found = _external_attribute(obj.name, name)
                found = self.ext_names[key] = _external(dotted) if found is _MISSING else found
            return found
        if isinstance(obj, ModV):
            if name == "__dict__" and isinstance(obj.names, dict):
                # Its names, read (DeepLabV3+'s `resnet.__dict__[backbone_name](...)`): a snapshot, as globals().
                return {k: self.read_lazy(v) if type(v) is LazyImport else v for k, v in obj.names.items()}
            v = self.module_name(obj, name)
            if v is _MISSING and obj.path and os.path.basename(obj.path) == "__init__.py":
                # `litgpt.lora.X` where the package's __init__ does not import `lora`: the submodule, which
                # Python sets on the package once anything imports it (litgpt's own modules do).
                package = os.path.dirname(obj.path)
                found = self.module_file(os.path.join(package, name))
                sub = self.load_project_file(found) if found is not None else None
                if sub is not None:
                    return sub
                where = f"the package `{os.path.basename(package)}` (its __init__.py)"
                return Unknown(f"`{name}` is not defined in {where}", maybe_module=True)
            return v if v is not _MISSING else Unknown(f"`{name}` is not defined in `{obj.name}`", maybe_module=True)
        if isinstance(obj, ClassV):
            try:
                v = obj.lookup(name)
            except KeyError:
                special = _class_attribute(obj, name)
                if special is not _MISSING:
                    return special
                return Unknown(f"`{obj.name}.{name}` is not defined", maybe_module=True)
            if isinstance(v, FuncV) and v.kind == "class":
                return BoundV(v, obj)
            return v
        if type(obj) is OrderedDictV and name in obj.attrs:
            return obj.attrs[name]
        if type(obj) is ArgParserV:
            return self.argparse_method(obj, name, node)
        if type(obj) is IteratorV and name == "__next__":  # OFA's `net.parameters().__next__().device`
            return BuiltinV(name, lambda: _next(obj))
        if type(obj) is ModulesView and name == "update":
            # OFA's `m._modules.update({name: nn.GroupNorm(...)})`: each entry set as `m._modules[name] = ...`
            def update(*a: Any, **k: Any) -> None:
                for key, value in dict(*a, **k).items():
                    self._set_item(obj, key, value, node)
            return BuiltinV(name, update)
        if type(obj) is TorchPair and name in ("values", "indices"):
            return getattr(obj, name)
        if type(obj) is PartialV and name in ("func", "args", "keywords"):
            return obj.func if name == "func" else tuple(obj.args) if name == "args" else dict(obj.kwargs)
        if type(obj) is _ModuleSuper:  # nn.Module's methods, the torch layer's skipped
            if name == "__init__":
                return _nn_module_init(obj.inst, node)
            method = _module_method(self, obj.inst, name)
            return method if method is not None else Unknown(f"`{_text(node)}` is not followed")
        if isinstance(obj, SuperV):
            blocked = _super_blocked(obj.cls, obj.inst, name)
            if blocked is not None:
                return blocked
            for c in _after_in_mro(obj.cls, obj.inst):
                if name == "__init__" and name in c.namespace and _module_init_first(obj.cls, obj.inst, c):
                    break  # `class Linear(nn.Module, LoraLayer)`: nn.Module's __init__, which calls no other
                if name in c.namespace:
                    v = c.namespace[name]
                    return BoundV(v, obj.inst) if isinstance(v, FuncV) and v.kind != "static" else v
                if name == "__init__" and c.is_dataclass and type(obj.inst) is Inst and not obj.inst.is_module:
                    inst, at = obj.inst, node  # the __init__ generated for a dataclass base (torchvision's MBConvConfig)
                    return BuiltinV("__init__", lambda *a, **k: self.dataclass_init(inst, list(a), k, at, c))
            if name == "__init__":
                # The next class is the instance's MRO's: a mixin's `super().__init__(*args)` reaches the
                # torch layer its subclass also derives from (`class ScaledPReLU(Scaled, nn.PReLU)`).
                owner = obj.inst.cls if isinstance(obj.inst, Inst) and type(obj.inst.cls) is ClassV and \
                    obj.cls in obj.inst.cls.mro() else obj.cls
                container = next((b.name.split(".")[-1] for c in owner.mro() for b in c.bases
                                  if isinstance(b, ExtV) and b.name.split(".")[-1] in CONTAINERS), None)
                if container is not None and isinstance(obj.inst, Inst):
                    at = node  # `super().__init__`: what a message about its arguments names
                    return BuiltinV("__init__", lambda *a, **k: self.init_container(obj.inst, container, list(a), k, at))
                layer = _torch_layer_base(owner)
                if layer is not None and isinstance(obj.inst, Inst):
                    inst, cls = obj.inst, owner
                    return BuiltinV("__init__", lambda *a, **k: self.init_layer(inst, cls.name, layer, list(a), k))
                if isinstance(obj.inst, Inst) and obj.inst.is_module:
                    return _nn_module_init(obj.inst, node, obj.cls)
                if isinstance(obj.inst, Inst) and _extends_dict(obj.cls):
                    inst, at = obj.inst, node  # dict's: the items (hifi-gan's AttrDict(dict))
                    return BuiltinV("__init__", lambda *a, **k: inst.attrs.__setitem__(
                        _DICT_ITEMS, self.dict_items(list(a), k, at)))
                if type(obj.inst) is Inst and any(type(b) is ExtV and b.name in _OPTIMIZER_BASES
                                                  for c in owner.mro() for b in c.bases):
                    # torch's Optimizer.__init__(params, defaults) of an optimizer of the code's, or of a
                    # library read (transformers' Adafactor, a Lion): its states not modelled
                    inst, at = obj.inst, node
                    return BuiltinV("__init__", lambda *a, **k: self.record_optimizer(
                        inst.cls.name, "", list(a), k, at))
                return BuiltinV("__init__", lambda *a, **k: None)
            if name == "__init_subclass__":
                return BuiltinV(name, lambda *a, **k: None)  # object's does nothing
            if name == "__new__":  # object's: a new instance of the class it is given (its __init__ runs after)
                at = node

                def new(c: Any, *a: Any, **k: Any) -> Any:
                    if type(c) is not ClassV:
                        return Unknown("`super().__new__` of a class the analyser does not know")
                    if not c.is_module and c.dataclass_init is not None and _is_named_tuple(c.dataclass_init):
                        # a named tuple's (DeepCTR's `SparseFeat.__new__` passing `vocabulary_size + 1`): its fields
                        return self.make_dataclass(c, list(a), k, at, c.dataclass_init)
                    return Inst(c, "module" if c.is_module else "object", c.is_module)
                return BuiltinV(name, new)
            if name in ("__getattribute__", "__setattr__") and isinstance(obj.inst, Inst):
                inst, at = obj.inst, node
                if name == "__getattribute__":  # messages name the attribute read: `self.hidden_size`
                    return BuiltinV(name, lambda key: self.plain_inst_attr(inst, key, self.self_attribute_node(key)))
                return BuiltinV(name, lambda key, value: self.object_setattr(inst, key, value, at))
            items = obj.inst.attrs.get(_DICT_ITEMS) if isinstance(obj.inst, Inst) else None
            if isinstance(items, dict) and name in _DICT_METHODS:
                return BuiltinV(name, getattr(items, name))
            if isinstance(obj.inst, Inst) and obj.inst.is_module:
                inst, at = obj.inst, node
                if name == "__setitem__" and inst.kind in _CONTAINER_KINDS:  # torch's, under the subclass's own
                    return BuiltinV(name, lambda key, value: self.container_set_item(inst, key, value, at))
                method = _module_method(self, obj.inst, name)  # `super().append(m)` in a ModuleList subclass
                if method is not None:
                    return method
            return Unknown(f"`super().{name}` is outside the file")
        if isinstance(obj, Param):
            if obj.flags is not None and name in obj.flags:
                return obj.flags[name]
            if name == "data":
                # Another tensor object on the same storage: `p.data.requires_grad = False` leaves p
                # trainable (a common slip, which torch counts so); its in-place writes are values.
                return TensorV(tuple(obj.shape), floating=obj.floating, declared=obj.declared)
            if name == "shape":
                return tuple(obj.shape)
            if name == "requires_grad":
                return obj.requires_grad
            if name == "requires_grad_":
                return BuiltinV(name, lambda requires_grad=True: _set_grad(obj, requires_grad))
            if name == "detach_":  # a leaf detached in place no longer requires grad (MobileOne's reparameterize)
                return BuiltinV(name, lambda: _set_grad(obj, False))
            return self.tensor_attr(obj, name, node)
        if isinstance(obj, TensorV):
            if name == "shape":
                return tuple(obj.shape)
            if obj.numpy and name in _NUMPY_ARRAY_METHODS:  # `arr.repeat(n, 1)`, `arr.max(0)`: numpy's, not torch's
                return self.numpy_method(obj, name, node)
            if obj.values is not None and name in _VALUE_METHODS:
                method = _value_method(obj, name, node)
                if method is not None:
                    return method
            if name in ("item", "tolist") and obj.values is not None:
                values = _exact_values(obj, node)
                if name == "tolist":
                    return BuiltinV(name, lambda: list(values) if obj.shape else values[0])
                return BuiltinV(name, lambda: obj._one())
            if name == "split" and obj.values is not None and len(obj.shape) == 1:
                return BuiltinV(name, lambda *a, **k: _split_values(_exact_values(obj, node), a, k, node, obj.dtype))
            if name == "copy" and obj.numpy:  # an array's copy: the same values
                return BuiltinV(name, lambda *a, **k: dataclasses.replace(obj, buffer=False))
            if name == "numpy" and not obj.numpy:  # the same values, as an array (asteroid's window)
                return BuiltinV(name, lambda *a, **k: dataclasses.replace(obj, numpy=True, buffer=False))
            if name in ("detach", "cpu", "clone", "contiguous") and obj.values is not None:
                # RetNet's `gammas.detach().cpu().tolist()`: a copy of the same values
                return BuiltinV(name, lambda *a, **k: dataclasses.replace(obj, contiguous=True, buffer=False))
            if name in ("item", "tolist") and obj.values is None:
                unknown = Unknown(f"`{_text(node)}`: the tensor's values are not known to the analyser (made from "
                                  f"unknown values, written in place or filled at random)")
                if name == "tolist" and obj.shape and all(type(d) is int for d in obj.shape) and \
                        numel(tuple(obj.shape)) <= MAX_ITERATIONS:
                    # As many unknown numbers as it holds: a loop over them runs (RetNet's heads).
                    return BuiltinV(name, lambda: _nested_list(tuple(obj.shape), unknown))
                # a number not known, said where it matters: kept as a setting (SchNet's
                # `self.shift = torch.log(torch.tensor(2.0)).item()`) it changes no count
                return BuiltinV(name, lambda: unknown)
            return self.tensor_attr(obj, name, node)
        if type(obj) is SignatureV and name == "parameters":
            return obj.parameters
        if type(obj) is ParameterV:
            if name in ("name", "default", "kind", "annotation"):
                return getattr(obj, name)
            if name == "empty" or name in _PARAMETER_KINDS:
                return _EMPTY if name == "empty" else ExtV(f"inspect.Parameter.{name}")
        if isinstance(obj, DeviceV) and name in ("type", "index"):
            return getattr(obj, name)
        if type(obj) is RegexV:
            return _regex_attribute(obj, name, node)
        if isinstance(obj, Sym):
            atom = obj.single_atom()
            if atom is not None and not name.startswith("_"):
                return Sym.atom(f"{atom}.{name}", obj.why[0][1])
            return Unknown(f"`{_text(node)}` depends on {_clause(why_of(obj))}")
        if isinstance(obj, Unknown):
            return Unknown(obj.why, obj.maybe_module)
        if type(obj) is FuncV and name in ("__name__", "__qualname__", "__module__"):
            seen = 0
            while type(obj.wrapped) is FuncV and seen < 64:  # `functools.wraps(f)` copied f's names
                obj, seen = obj.wrapped, seen + 1
            if name == "__module__":
                return obj.env.module.env.vars.get("__name__", obj.env.module.dotted_name)
            return obj.name
        if type(obj) is BuiltinV and obj.name in _PY_TYPES and obj is _BUILTINS.get(obj.name) and \
                name in ("__name__", "__qualname__", "__module__"):
            return "builtins" if name == "__module__" else obj.name  # `type(3).__name__`: Python's type's
        if type(obj) is BuiltinV and obj.name in _PY_TYPES and obj is _BUILTINS.get(obj.name) and \
                name in _TYPE_CONSTRUCTORS:
            return BuiltinV(name, getattr(_PY_TYPES[obj.name], name))  # `dict.fromkeys(names, 4)`
        if type(obj) is BuiltinV and obj is _BUILTINS.get("dict") and name in _DICT_UNBOUND:
            return _DICT_UNBOUND[name]  # `dict.get(table, key)`; `__getattr__ = dict.get`
        if isinstance(obj, BoundV | FuncV | BuiltinV):
            return Unknown(f"`{_text(node)}` is not followed")
        if obj is None:  # Python's AttributeError, which the code may catch (and an assert does not pass)
            if hasattr(None, name):
                raise Unresolved(f"`{_text(node)}`: the value is None")
            raise _Raised(f"`{_text(node)}`: the value is None ('NoneType' object has no attribute '{name}')",
                          ExtV("AttributeError"))
        safe = _SAFE_METHODS.get(type(obj), frozenset())
        if not name.startswith("_") and (safe is None or name in safe):
            attr = getattr(obj, name, _MISSING)
            if attr is not _MISSING:  # (a version's `dev` is None)
                return BuiltinV(name, attr) if callable(attr) else attr
        if isinstance(obj, (int, float)) and name in ("real", "imag"):
            return getattr(obj, name)
        kind = _VIEW_NAMES.get(type(obj).__name__, type(obj).__name__)
        raise Unresolved(f"`{_text(node)}`: {kind} has no attribute `{name}` the analyser knows")

    def numpy_method(self, obj: TensorV, name: str, node: ast.AST) -> BuiltinV:
        """A numpy array's method whose meaning is not the torch tensor's of that name: ``repeat``
        repeats each element (torch tiles), ``transpose()`` reverses the axes, a reduction over an
        ``axis`` is an array (torch's max is a values-indices pair), ``cumsum()`` without an axis
        flattens, ``flatten`` / ``ravel`` take no dims. A reduction of all of a 1-D or whole array
        of known values is computed as before (``int(np.array(widths).max())``)."""
        shape = tuple(obj.shape)

        def call(*a: Any, **k: Any) -> Any:
            if name in _NUMPY_METHOD_REDUCTIONS and not a and not k and obj.values is not None and name in _VALUE_METHODS:
                method = _value_method(obj, name, node)  # all of its values: the same value either way
                if method is not None:
                    return self.call(method, [], {}, node, self.ctx.call_env())
            try:
                made = self._numpy_method(obj, name, shape, a, k, node)
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises numpy's AxisError / ValueError: {exc}", ExtV("ValueError"))
            return made if made is not None else Unknown(f"`{_text(node)}`: this use of the array's `{name}` is not "
                                                         f"followed")
        return BuiltinV(name, call)

    def _numpy_method(self, obj: TensorV, name: str, shape: tuple[Any, ...], a: tuple[Any, ...], k: dict[str, Any],
                      node: ast.AST) -> TensorV | None:
        if name == "repeat":
            return self.numpy_array_function("repeat", [obj, *a], k, node)
        if name == "reshape":
            if set(k) - {"order"} or not a:
                return None
            dims = tuple(a[0]) if len(a) == 1 and isinstance(a[0], (tuple, list)) else a
            new = shapes.view_shape(shape, (tuple(d if type(d) is int else as_int(d, f"`{_text(node)}`: a size")
                                                  for d in dims),))
            return TensorV(new, floating=obj.floating, numpy=True) if new is not None else None
        if name == "transpose":
            if k:
                return None
            axes = tuple(a[0]) if len(a) == 1 and isinstance(a[0], (tuple, list)) else a
            return self.numpy_array_function("transpose", [obj, axes] if axes else [obj], {}, node)
        if name in ("flatten", "ravel"):
            if a or set(k) - {"order"}:
                return None
            return TensorV((numel(shape),), floating=obj.floating, numpy=True)
        axis = a[0] if a else k.get("axis")
        if len(a) > 1 or set(k) - {"axis", "keepdims", "dtype"}:
            return None  # numpy's out / ddof / where ...
        if name in ("cumsum", "cumprod"):
            if axis is None:
                return TensorV((numel(shape),), floating=obj.floating, numpy=True)
            shapes.reduce_shape(shape, axis)  # the axis must exist
            return TensorV(shape, floating=obj.floating, numpy=True)
        if name == "squeeze":
            if axis is None:
                return TensorV(tuple(d for d in shape if d != 1), floating=obj.floating, numpy=True)
            picked = shapes.reduce_shape(shape, axis, True)
            if any(d != 1 for d, p in zip(shape, picked) if d != p):
                raise shapes.ShapeError("cannot select an axis to squeeze out which has size not equal to one")
            return TensorV(shapes.reduce_shape(shape, axis), floating=obj.floating, numpy=True)
        keepdims = k.get("keepdims", False)
        if type(keepdims) is not bool:
            return None
        reduced = shapes.reduce_shape(shape, axis, keepdims, needs_values=name in ("max", "min", "argmax", "argmin"))
        floating = False if name in ("argmax", "argmin", "all", "any") else True if name in ("mean", "std", "var") \
            else obj.floating
        return TensorV(reduced, floating=floating, numpy=True)

    def tensor_attr(self, obj: TensorV | Param, name: str, node: ast.AST) -> Any:
        """A tensor's method in a constructor: sizes, the view methods (shapes.py), in-place
        initialisers (``normal_``: the tensor itself) and methods that keep the shape; any other
        could change it, and says so rather than keep a shape that may be wrong."""
        shape = tuple(obj.shape)
        if name == "size" and type(obj) is TensorV and obj.numpy:
            return numel(shape)  # numpy's `a.size` is the number of values, not a method
        if name in ("size", "numel", "dim"):
            return BuiltinV(name, _tensor_method(name, shape))
        if name == "device":
            return DeviceV()
        if name == "ndim":
            return len(shape)
        if name == "is_leaf" and type(obj) is Param:  # a parameter is made by the code, not computed
            return True
        if name == "__class__" and type(obj) is Param:  # as type(p): peft's `weight.__class__.__name__`
            return ExtV("torch.nn.Parameter")
        dtype = _declared(obj)
        if dtype is not None and name in ("dtype", "element_size", "itemsize"):
            # DeepSeek-V3's Linear: `if self.weight.element_size() == 1:` an fp8 weight gets a scale.
            return ExtV(f"torch.{dtype}") if name == "dtype" else ELEMENT_BYTES[dtype] if name == "itemsize" else \
                BuiltinV(name, lambda: ELEMENT_BYTES[dtype])
        if name == "data":  # the same tensor, without autograd (`self.mask.data.copy_(...)`: MADE)
            return obj
        if name == "astype" and type(obj) is TensorV and obj.numpy:  # its values not known: the shape stays
            return BuiltinV(name, lambda *a, **k: TensorV(shape, numpy=True))
        if name == "lu" and not (type(obj) is TensorV and obj.numpy):  # Glow's `w.lu()`: torch.linalg.lu_factor's
            return BuiltinV(name, lambda pivot=True, get_infos=False: _decomposition("lu_factor", [obj], {}, False, node))
        if name in ("nonzero", "argwhere"):  # numpy's nonzero is a tuple of index arrays, torch's one row per value
            numpy = type(obj) is TensorV and obj.numpy
            return BuiltinV(name, lambda as_tuple=False: _nonzero(
                obj, "tuple" if (numpy and name == "nonzero") or as_tuple else "rows", numpy, node))
        if type(obj) is Param and name in _CONVERSIONS:
            # `nn.Parameter(t).to(device)` (Graph-WaveNet's node embeddings), `.float()`: torch returns the
            # parameter itself where nothing changes, which the module then registers.
            return BuiltinV(name, lambda *a, **k: _converted_parameter(obj, name, a, k, node))
        if name in ("real", "imag"):  # a complex tensor's parts (Hyena's positional embedding): the same shape
            return TensorV(tuple(shape), contiguous=False)
        if name in ("T", "H", "mT", "mH"):  # transposes: all dims reversed, or the last two swapped
            if name in ("mT", "mH") and len(shape) < 2:
                raise Unresolved(f"`{_text(node)}`: tensor.{name} is only supported on matrices or batches of "
                                 f"matrices (torch raises)")
            new = tuple(reversed(shape)) if name in ("T", "H") else shapes.transpose_shape(shape, -2, -1)
            return TensorV(new, contiguous=len(shape) < 2 and _contiguous(obj), floating=_is_floating(obj),
                           declared=_declared(obj))
        floating = _is_floating(obj) if name in ("is_floating_point", "is_complex") else None
        if floating is not None and (name == "is_floating_point" or floating):  # a floating-point one is not complex
            return BuiltinV(name, lambda: floating if name == "is_floating_point" else False)
        if type(obj) is Param and name in _RESHAPE_IN_PLACE:
            return BuiltinV(name, lambda *a, **k: _parameter_reshaped(obj, name, node))
        if name.endswith("_") and not name.startswith("_") and name not in _RESHAPE_IN_PLACE:
            # normal_, zero_, uniform_, fill_, copy_, add_: in place, the shape kept
            if name == "copy_":  # the source must broadcast to the tensor's shape (torch raises otherwise)
                return BuiltinV(name, lambda src, *a, **k: self.copied_into(obj, src, node))
            if isinstance(obj, TensorV) and obj.values is not None:
                return BuiltinV(name, lambda *a, **k: self.values_in_place(obj, name, a, k, node))
            return BuiltinV(name, lambda *a, **k: obj)
        if name in _INDEXED_REDUCTIONS:  # t.max(-1, keepdim=True)[0], t.topk(k).indices, t.all(-1)
            return BuiltinV(name, lambda *a, **k: self.tensor_reduction(obj, name, a, k, node))
        if name in ("matmul", "mm", "bmm"):  # as `@`
            return BuiltinV(name, lambda other: self.tensor_binop(ast.MatMult, obj, other, node))
        if name in ("maximum", "minimum"):  # elementwise, of the broadcast shape: its values where both are known
            return BuiltinV(name, lambda other: _extremum(name, obj, other, self.tensor_binop(ast.Add, obj, other, node)))
        if name in _BROADCASTING:  # t.mul(other): the shapes broadcast
            op = _METHOD_OPS[name]
            return BuiltinV(name, lambda other, *a, **k: self.tensor_binop(op, obj, other, node, operator_syntax=False))
        if name in _SAME_SHAPE:  # laid out as the tensor is (torch preserves strides), but `contiguous()`
            laid_out = name == "contiguous" or _contiguous(obj)
            if (name == "to" or name in _CONVERSION_DTYPES) and type(obj) is TensorV and not obj.numpy:
                return BuiltinV(name, lambda *a, **k: _converted_tensor(obj, name, a, k, laid_out))
            return BuiltinV(name, lambda *a, **k: TensorV(shape, contiguous=laid_out))
        if name == "new":
            def legacy_new(*a: Any, **k: Any) -> Any:
                # torch 0.x's `w.data.new(n)`: torch.Tensor(...)'s sizes or data, in the tensor's dtype
                made = self.tensor_factory("Tensor", list(a), {}, node)
                if type(made) is TensorV and made.values is None:
                    return TensorV(tuple(made.shape), floating=_is_floating(obj), declared=_declared(obj))
                return made
            return BuiltinV(name, legacy_new)
        if name in ("new_zeros", "new_ones", "new_empty", "new_full"):
            def new(*a: Any, **k: Any) -> TensorV:  # x.new_zeros(d): a tensor of the sizes given
                dims = shapes.sizes_of(a[:1] if name == "new_full" else a) if a else tuple(k.get("size", ()))
                return TensorV(tuple(as_int(d, "size") for d in dims))
            return BuiltinV(name, new)
        if name in _SHAPE_FUNCTIONS and name != "einsum":  # t.split(4): torch.split(t, 4)
            return BuiltinV(name, lambda *a, **k: self.shape_function(name, [obj, *a], k, node))
        def sized(a: tuple[Any, ...]) -> tuple[tuple[Any, ...]]:  # sizes are ints or formulas, else the reason
            return (tuple(as_int(d, f"`{_text(node)}`: a size") for d in shapes.sizes_of(a)),)

        ops: dict[str, Callable[..., Any]] = {
            "view": lambda *a: shapes.view_shape(shape, sized(a)), "reshape": lambda *a: shapes.view_shape(shape, sized(a)),
            "expand": lambda *a: shapes.expand_shape(shape, sized(a)),
            "repeat": lambda *a: shapes.repeat_shape(shape, sized(a)),
            "unsqueeze": lambda d: shapes.unsqueeze_shape(shape, d),
            "transpose": lambda a, b: shapes.transpose_shape(shape, a, b),
            "permute": lambda *a: shapes.permute_shape(shape, a),
            "flatten": lambda start=0, end=-1: shapes.flatten_shape(shape, start, end),
            "t": lambda: shapes.t_shape(shape),
            "squeeze": lambda *a, dim=None: shapes.squeeze_shape(shape, a if dim is None else (dim,)),
            # Reductions (PatchTST's `position_enc - position_enc.mean()`): the dims named go, or all.
            **{r: (lambda dim=None, keepdim=False, *, dtype=None: shapes.reduce_shape(shape, dim, keepdim))
               for r in ("mean", "sum", "nansum", "nanmean", "prod")},
            **{r: (lambda dim=(), keepdim=False: shapes.reduce_shape(shape, None if dim == () else dim, keepdim, True))
               for r in ("amax", "amin")},
            "diag": lambda diagonal=0: shapes.diag_shape(shape, diagonal),
            "diagonal": lambda offset=0, dim1=0, dim2=1: shapes.diagonal_shape(shape, offset, dim1, dim2),
            # DoRA's magnitude: `weight.norm(p=2, dim=0, keepdim=True)`.
            "norm": lambda p="fro", dim=None, keepdim=False, dtype=None: shapes.reduce_shape(shape, dim, keepdim),
            **{r: (lambda dim=None, *, correction=1, keepdim=False, unbiased=True: shapes.reduce_shape(
                shape, dim, keepdim)) for r in ("std", "var")},
        }
        op = ops.get(name)
        if name == "view" and isinstance(obj, TensorV) and not obj.contiguous:
            return Unknown(f"`{_text(node)}`: a view of a tensor that may not be contiguous (after an expand, a "
                           f"transpose or a slice): whether torch allows it depends on its strides")
        if op is None:
            return Unknown(f"`{_text(node)}`: the analyser does not follow a tensor's `{name}`")

        def method(*a: Any, **k: Any) -> Any:
            try:
                new = op(*a, **k)
            except shapes.ShapeError as exc:
                raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
            if new is None:
                return Unknown(f"`{_text(node)}`: the new shape is not known")
            # Conservatively strided: a transpose of a square matrix keeps its shape, not its layout.
            if any(d is None for d in new):
                return Unknown(f"`{_text(node)}`: the new shape is not known")
            strided = (name == "expand" and new != shape) or (name in ("transpose", "permute", "t") and len(shape) > 1) \
                or name == "diagonal"
            # repeat copies; reshape and flatten copy a strided tensor, or not: as strided as the tensor was.
            # The same values rearranged, or a floating-point tensor's reduction: the same dtype.
            kept = name in _LAYOUT_METHODS or (name in _FLOAT_REDUCTIONS and _declared(obj) in FLOATING_DTYPES and
                                               k.get("dtype") is None)
            return TensorV(new, contiguous=name == "repeat" or (not strided and _contiguous(obj)),
                           numpy=type(obj) is TensorV and obj.numpy,  # an array's view is an array
                           floating=_is_floating(obj) if kept else None, declared=_declared(obj) if kept else None)
        return BuiltinV(name, method)

    def tensor_binop(self, op: type, a: Any, b: Any, node: ast.AST, operator_syntax: bool = True) -> Any:
        """A tensor and a number keep the tensor's shape; two tensors broadcast, or multiply as
        matrices (``@``), as torch computes it. The values of small 1-D tensors of known values
        are computed too (tensor_values.py). ``operator_syntax``: Python's ``/`` (``2 / t`` is
        ``t.reciprocal() * 2`` in torch), not ``torch.divide``. Arrays' results are arrays."""
        made = self._tensor_binop(op, a, b, node, operator_syntax)
        if type(made) is TensorV and not made.numpy and ((type(a) is TensorV and a.numpy) or (type(b) is TensorV and b.numpy)):
            return dataclasses.replace(made, numpy=True)
        return made

    def _tensor_binop(self, op: type, a: Any, b: Any, node: ast.AST, operator_syntax: bool = True) -> Any:
        valued = _value_operation(op, a, b, operator_syntax)
        if valued is not None:
            return valued
        tensors = [x for x in (a, b) if isinstance(x, (TensorV, Param))]
        # A floating-point tensor with a real number or another floating-point tensor stays floating-point.
        floating = True if all(_is_floating(x) if isinstance(x, (TensorV, Param)) else type(x) in (int, float, bool)
                               for x in (a, b)) else None
        declared = _common_float_dtype(op, tensors, a, b) if floating else None
        if len(tensors) == 1 and op is not ast.MatMult:
            return TensorV(tuple(tensors[0].shape), contiguous=_contiguous(tensors[0]), floating=floating,
                           declared=declared)
        if len(tensors) == 1:
            raise Unresolved(f"`{_text(node)}`: `@` needs two tensors (torch raises)")
        try:
            shape = (shapes.matmul_shape if op is ast.MatMult else shapes.broadcast_shape)(tuple(a.shape), tuple(b.shape))
        except shapes.ShapeError as exc:
            raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
        laid_out = op is ast.MatMult or all(_contiguous(x) for x in tensors)  # elementwise: as its inputs
        return TensorV(shape, contiguous=laid_out, floating=floating, declared=declared) if shape is not None else \
            Unknown(f"`{_text(node)}`: the result's shape is not known")

    def self_attribute_node(self, key: Any) -> ast.Attribute:
        """``self.<key>``, the node that messages about ``super().__getattribute__(key)`` show
        (made once per name: transformers' configs read every attribute through it)."""
        node = self.self_reads.get(key)
        if node is None:
            node = self.self_reads[key] = ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()), attr=str(key),
                                                        ctx=ast.Load())
        return node

    def inst_attr(self, obj: Inst, name: str, node: ast.AST) -> Any:
        cls = obj.cls
        if type(cls) is ClassV and cls.getattribute_hook is not None:
            hook = cls.getattribute_hook
            if _known_hook(hook) == "attribute_map_get":
                found = self.mapped_attr(obj, name)
                if found is not _MISSING:
                    return found
            return self.call_function(hook, [obj, name], {}, node)
        if name in obj.attrs:  # the common case, first
            return obj.attrs[name]
        if name in RUNNING_STATS and obj.buffers and name in obj.buffers:
            return running_stat(obj, name)
        return self.plain_inst_attr(obj, name, node)

    def attribute_map(self, obj: Inst) -> dict[Any, Any] | None:
        """``super().__getattribute__("attribute_map")``, where it is a dict."""
        found = self.plain_inst_attr(obj, "attribute_map", self.self_attribute_node("attribute_map"))
        return found if type(found) is dict else None

    def mapped_attr(self, obj: Inst, name: str) -> Any:
        """transformers' config ``__getattribute__`` (_KNOWN_HOOKS), run as written without
        interpreting it: every config attribute is read through it. _MISSING, having changed
        nothing, where its attribute_map is not a dict (the interpreted hook then says why)."""
        mapping = self.attribute_map(obj) if name != "attribute_map" else {}
        if mapping is None:
            return _MISSING
        ctx = self.ctx
        ctx.steps += 1  # as the call counts
        if ctx.steps > MAX_STEPS:
            ctx.tick()
        if _hashable(name) and name in mapping:
            name = mapping[name]
        return self.plain_inst_attr(obj, name, self.self_attribute_node(name))

    def mapped_setattr(self, obj: Inst, name: str, value: Any, node: ast.AST) -> bool:
        """transformers' config ``__setattr__`` (_KNOWN_HOOKS), as mapped_attr; False where its
        attribute_map is not a dict."""
        mapping = self.attribute_map(obj)
        if mapping is None:
            return False
        ctx = self.ctx
        ctx.steps += 1
        if ctx.steps > MAX_STEPS:
            ctx.tick()
        self.object_setattr(obj, mapping.get(name, name) if _hashable(name) else name, value, node)
        return True

    def contains(self, obj: Inst, key: Any, node: ast.AST) -> bool:
        """``key in obj``: the class's own __contains__, a Mapping's, a dict subclass's items, else
        the attribute names (a ModuleDict's keys)."""
        if isinstance(obj.cls, ClassV):
            own = _own_method(obj.cls, "__contains__")
            if own is not None:
                return self.truthy(self.call_function(own, [obj, key], {}, node), node)
            if _extends_mapping(obj.cls):
                return bool(self.mapping_mixin(obj, "__contains__", node)(key))
        return key in obj.attrs.get(_DICT_ITEMS, obj.attrs)

    def mapping_mixin(self, obj: Inst, name: str, node: ast.AST) -> Callable[..., Any]:
        """``collections.abc.Mapping``'s methods for a class that defines ``__iter__`` and
        ``__getitem__`` (transformers' AttentionInterface): made from those two, as Python's are."""
        def keys() -> list[Any]:
            return self.iterate(self.call(self.inst_attr(obj, "__iter__", node), [], {}, node, self.ctx.call_env()), node)

        def get(key: Any, default: Any = None) -> Any:
            return self.get_item(obj, key, node) if key in keys() else default

        mixins = {"keys": keys, "__iter__": keys, "__contains__": lambda key: key in keys(), "get": get,
                  "values": lambda: [self.get_item(obj, k, node) for k in keys()],
                  "items": lambda: [(k, self.get_item(obj, k, node)) for k in keys()],
                  "__len__": lambda: len(keys())}
        return mixins[name]

    def plain_inst_attr(self, obj: Inst, name: str, node: ast.AST) -> Any:
        """``object.__getattribute__``: the instance's attributes, then its class's."""
        if obj.unregistered is not None and name in obj.unregistered:
            return obj.unregistered[name]  # a module's __dict__ comes before its _modules and _parameters
        if name in obj.attrs:
            return obj.attrs[name]
        # A torch layer's settings (`self.conv.stride`) are instance attributes its constructor set:
        # they come before the class's names, as in Python, but for a subclass's properties.
        if obj.layer_args is not None and not (type(obj.cls) is ClassV and name in obj.cls.property_names()):
            v = layer_attribute(obj.layer_args[0], obj.layer_args[1], name)
            if v is not NOT_A_LAYER_ATTRIBUTE:
                return v
        if isinstance(obj.cls, ClassV):
            v = obj.cls.find(name, _MISSING)
            if v is not _MISSING:
                if type(v) is PartialMethodV:  # a partialmethod, bound to the instance as a method is
                    return PartialV(v.func, (obj, *v.args), v.kwargs)
                if isinstance(v, FuncV):
                    if v.kind == "property":
                        return self.call_function(v, [obj], {}, node)
                    if v.kind == "cached":
                        return self.cached_property(obj, name, v, node)
                    if v.kind == "static":
                        return v
                    return BoundV(v, obj.cls if v.kind == "class" else obj)
                return v
        if obj.kind in ("list", "seq", "plist", "dict", "pdict") or obj.is_module:
            method = _module_method(self, obj, name)
            if method is not None:
                return method
        if name in _NAMED_TUPLE_MEMBERS and type(obj.cls) is ClassV and _is_named_tuple(obj.cls):
            return self.named_tuple_member(obj, name, node)
        if obj.is_module and name == "training":
            return True  # nn.Module.__init__ sets it; train() / eval() set it on every submodule (_set_training)
        if obj.is_module and name in ("weight", "bias") and type(obj.cls) is str and obj.cls in PARAMETERLESS and \
                obj.cls not in WEIGHTED_LOSSES:
            # CSWin's `trunc_normal_(self.head.weight)` of an `nn.Identity()` head: torch raises.
            if self.ctx.probing_attributes:
                raise _NoAttribute(name)
            raise _Raised(f"`{_text(node)}` raises AttributeError: '{obj.cls}' object has no attribute '{name}'",
                          ExtV("AttributeError"))
        if obj.is_module and (isinstance(obj.cls, str) or obj.layer_args is not None) and (name in ("weight", "bias") or (
                obj.layer_args is not None and name in NONE_SLOTS.get(obj.layer_args[0], ()))):
            return None  # torch layers register a missing bias as None (MultiheadAttention's unused projections too)
        if name == "__class__":
            if type(obj.cls) is str and _known_torch_class(f"torch.nn.{obj.cls}"):
                return ExtV(f"torch.nn.{obj.cls}")  # a torch layer's, as type(layer) (CycleGAN's init_func)
            return obj.cls
        if name == "_modules" and obj.is_module:
            return ModulesView(obj)
        if name == "_parameters" and obj.is_module:
            return ParametersView(obj)
        if name == "__module__" and type(obj.cls) is ClassV:  # the class's, read through the instance
            return _class_attribute(obj.cls, name)  # torchvision's _log_api_usage_once(self)
        if name == "__dict__" and obj.is_module:
            # torch keeps a module's parameters and submodules out of its __dict__ (an entry put there
            # is a plain attribute, never counted)
            self.ctx.cycle_holders.append(obj)  # what is put there may hold the module
            return InstanceDictView(obj)
        if name == "__dict__":  # live, as Python's (a dict subclass's items are not attributes)
            return obj.attrs if _DICT_ITEMS not in obj.attrs else {
                k: v for k, v in obj.attrs.items() if k != _DICT_ITEMS}
        items = obj.attrs.get(_DICT_ITEMS)
        if isinstance(items, dict) and name in _DICT_METHODS:
            return BuiltinV(name, getattr(items, name))
        if name in _MAPPING_MIXINS and isinstance(obj.cls, ClassV) and _extends_mapping(obj.cls):
            return BuiltinV(name, self.mapping_mixin(obj, name, node))
        if isinstance(items, dict) and obj.attrs.get("__dict__") is obj and name in items:
            return items[name]  # `self.__dict__ = self` in a dict subclass (hifi-gan's AttrDict)
        if type(obj.cls) is ClassV:
            hook = obj.cls.find("__getattr__", None)
            if type(hook) is FuncV:
                # The class's own fallback, for a name found nowhere else: a module's too (a wrapper
                # that hands what it lacks to the model it holds), whose `super().__getattr__` is
                # nn.Module's (_registered_member).
                return self.call_function(hook, [obj, name], {}, node)
            if type(hook) is BuiltinV and hook in _DICT_UNBOUND.values() and not obj.is_module:
                return self.call(hook, [obj, name], {}, node, self.ctx.call_env())
        if name in ("_all_weights", "all_weights", "_flat_weights_names") and obj.layer_args is not None and \
                obj.layer_args[0] in ("RNN", "LSTM", "GRU", "RNNBase"):
            # pointer_summarizer's `for names in lstm._all_weights: for name in names: ...`: each layer and
            # direction's parameter names (all_weights: the parameters), in torch's order
            groups: dict[str, list[str]] = {}
            for key, value in obj.attrs.items():
                if type(value) is Param and "_l" in key:
                    groups.setdefault(key[key.rindex("_l"):], []).append(key)
            if name == "_flat_weights_names":
                return [key for keys in groups.values() for key in keys]
            return [list(keys) if name == "_all_weights" else [obj.attrs[k] for k in keys] for keys in groups.values()]
        if obj.layer_args is not None and type(obj.cls) is str and no_such_layer_attribute(obj.layer_args[0], name, obj.attrs):
            # `nn.init.zeros_(self.fc.weihgt)`, SAGAN's `try: getattr(self.module, "weight_u")`: torch's AttributeError
            if self.ctx.probing_attributes:
                raise _NoAttribute(name)
            raise _Raised(f"`{_text(node)}` raises AttributeError: '{obj.layer_args[0]}' object has no attribute "
                          f"'{name}'", ExtV("AttributeError"))
        if self.ctx.probing_attributes:
            raise _NoAttribute(name)
        if obj.is_module and type(obj.cls) is ClassV and obj.unfollowed is None and name not in MODULE_CLASS_ATTRIBUTES \
                and _only_module_bases(obj.cls):
            # A module of the code's classes and nn.Module alone, every line of which was followed: what it
            # lacks it lacks (`self.encoder.requires_grad_(False)` where the class set `self.enc`), as
            # nn.Module.__getattr__ says (what `object.__setattr__` or `__dict__` put past torch's
            # __setattr__ was found before here). A base from outside (its __init__ may set it) keeps
            # the answer "not known".
            raise _Raised(f"`{_text(node)}` raises AttributeError: '{obj.cls.name}' object has no attribute "
                          f"'{name}'", ExtV("AttributeError"))
        return Unknown(f"`{_text(node)}` is not set by the code the analyser followed", maybe_module=True)

    # --- operators -------------------------------------------------------------------------

    def binop(self, op: type, a: Any, b: Any, node: ast.AST) -> Any:
        fn, sym = _BINOPS[op]
        if op is ast.Mod and type(a) is str:
            _bounded_widths(_PERCENT_WIDTH.findall(a) + ["*"] * ("*" in a and isinstance(b, tuple) and any(
                type(x) is int and x > MAX_SEQUENCE for x in b)), node)
        if op is ast.Mod and type(a) is str and type(b) not in _TEXT_SCALARS and b is not None:
            # "%s" % torch.__version__: each value as Python writes it, where the analyser knows it.
            if type(b) is dict:
                formatted: Any = {k: _format_argument(v) for k, v in b.items()}
                known = _MISSING not in formatted.values()
            else:
                formatted = tuple(_format_argument(x) for x in (b if type(b) is tuple else (b,)))
                known = _MISSING not in formatted
                formatted = formatted if type(b) is tuple else formatted[0]
            if not known:
                return Unknown(f"`{_text(node)}`: the text of a value is not known to the analyser")
            b = formatted
        if op is ast.BitOr and ((type(a) is Inst and a.kind == "pdict") or (type(b) is Inst and b.kind == "pdict")):
            return self.parameter_dict_or(a, b, node)
        if type(a) is Inst or type(b) is Inst:  # IntEnum / str-Enum members compute as their values
            joined = _joined_containers(op, a, b, node)
            if joined is not None:
                return joined
            a, b = _member_value(a), _member_value(b)
        if op is ast.BitOr and _is_type(a) and _is_type(b):
            # `list | tuple`, `int | None`: a union, which isinstance takes as it takes a tuple.
            return tuple(x for v in (a, b) for x in (v if type(v) is tuple else (v,)))
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            u = a if isinstance(a, Unknown) else b
            return Unknown(u.why)
        if isinstance(a, (Sym, TensorV, Param)) or isinstance(b, (Sym, TensorV, Param)):
            if op is ast.Mult and ((type(a) in (list, tuple, str) and type(b) is TensorV) or
                                   (type(b) in (list, tuple, str) and type(a) is TensorV)):
                # `[c] * r` of an integer array's element: Python repeats the sequence by its int
                # (TensorV.__index__), numpy's and torch's integer scalars alike (jasper's repeats).
                return self._py2(operator.mul, a, b, node)
            if isinstance(a, (TensorV, Param)) or isinstance(b, (TensorV, Param)):
                return self.tensor_binop(op, a, b, node)
            # A bool computes as the int it is (`num_classes + use_cfg_embedding`): a formula shows 1, not True.
            a, b = (int(x) if type(x) is bool else x for x in (a, b))
            numeric = all(isinstance(x, (Sym, int)) for x in (a, b))
            if numeric and op is ast.Add:
                return sym_add(a, b)
            if numeric and op is ast.Sub:
                return sym_add(a, b, -1)
            if numeric and op is ast.Mult:
                return sym_mul(a, b)
            if numeric and op is ast.FloorDiv:
                quotient = sym_divide_exact(a, b)  # `(4 * dim) // 4`, `dim // dim`: still a polynomial
                if quotient is not None:
                    return quotient
            if numeric and op is ast.Pow and isinstance(b, int) and 0 <= b <= 8:
                out: Any = 1
                for _ in range(b):
                    out = sym_mul(out, a)
                return out
            if isinstance(a, (Sym, int, float)) and isinstance(b, (Sym, int, float)):
                return sym_opaque(f"{_operand_text(a)} {sym} {_operand_text(b)}", a, b)
            return Unknown(f"`{_text(node)}` depends on {_clause(why_of(a) or why_of(b))}")
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if op is ast.Pow and isinstance(a, int) and isinstance(b, int) and abs(a) > 1 and b > 0:
                if b * math.log2(abs(a)) > MAX_INT_BITS:
                    raise Unresolved(f"`{_text(node)}` is too large to be a size")
            if op is ast.LShift and isinstance(a, int) and a and isinstance(b, int) and b > MAX_INT_BITS:
                raise Unresolved(f"`{_text(node)}` is too large to be a size")  # (0 << n is 0, as in Python)
        if op is ast.Mult and (isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple))):
            seq, n = (a, b) if isinstance(a, (str, list, tuple)) else (b, a)
            if isinstance(n, int) and len(seq) * n > MAX_SEQUENCE:
                raise Unresolved(f"`{_text(node)}` builds a sequence longer than {MAX_SEQUENCE:,}")
        if op is ast.BitOr and (isinstance(a, (ExtV, ClassV)) or a is None):
            return a  # type unions in annotations: int | None
        return self._py2(fn, a, b, node)

    def _py(self, fn: Callable[[Any], Any], a: Any, node: ast.AST) -> Any:
        try:
            return fn(a)
        except _FilesCapped:
            raise
        except Exception as exc:  # noqa: BLE001 - the analysed code's error, reported as a reason
            raise _python_error(exc, node, _is_python_value(a))

    def _py2(self, fn: Callable[[Any, Any], Any], a: Any, b: Any, node: ast.AST) -> Any:
        if type(b) is RangeV:
            b = b.r  # `i in range(n)`: Python answers it without iterating
        elif (type(b) in _CONTAINER_VIEW_TYPES or type(b) in _DICT_VIEW_TYPES) and (
                fn is _CMPOPS[ast.In] or fn is _CMPOPS[ast.NotIn]):
            # `layer in self.blocks.values()`, peft's `task_type not in MAPPING.keys()`: the entries now,
            # compared as a list's are (a str enum's member as its value)
            b = list(b)
        if (type(a) is Inst or type(b) is Inst) and (fn is operator.eq or fn is operator.ne):
            a, b = _member_value(a), _member_value(b)  # Format.NCHW == "NCHW" for a str enum
        elif type(a) is type(b) and type(a) in _MEMBER_HOLDERS and (fn is operator.eq or fn is operator.ne):
            a, b = _member_values(a), _member_values(b)  # [Format.NCHW] == ["NCHW"]: each item's ==, as Python's
        if (type(a) not in _PLAIN or type(b) not in _PLAIN) and any(
                isinstance(x, (Inst, Param, ClassV, FuncV, BoundV, BuiltinV, ExtV, ModV)) for x in (a, b)) \
                and fn not in (operator.is_, operator.is_not, operator.eq, operator.ne):
            if fn in (_CMPOPS[ast.In], _CMPOPS[ast.NotIn]) and isinstance(b, Inst):
                found = self.contains(b, a, node)
                return found if fn is _CMPOPS[ast.In] else not found
            if fn in (_CMPOPS[ast.In], _CMPOPS[ast.NotIn]) and type(b) in _CONTAINERS_BY_IDENTITY:
                found = _holds(b, a, node)
                return found if fn is _CMPOPS[ast.In] else not found
            raise Unresolved(f"`{_text(node)}` is not followed")
        if (fn is _CMPOPS[ast.In] or fn is _CMPOPS[ast.NotIn]) and type(a) in (str, int) and \
                type(b) in _CONTAINERS_BY_IDENTITY and a not in b and Inst in map(type, b):
            found = _holds(b, a, node)  # `"STATE" in {Kind.STATE: ...}`: a str enum's member is its value
            return found if fn is _CMPOPS[ast.In] else not found
        try:
            return fn(a, b)
        except (Unresolved, _FilesCapped):
            raise  # a value of the analyser's own that does not know the answer (_PublicNames)
        except Exception as exc:  # noqa: BLE001 - the analysed code's error, reported as a reason
            raise _python_error(exc, node, _is_python_value(a) and _is_python_value(b))

    # --- calls -----------------------------------------------------------------------------

    def ev_call(self, e: ast.Call, env: Env) -> Any:
        func = e.func
        if type(func) is _Name and func.id in _SPECIAL_CALLS:  # one test on the path of every other call
            found = self.special_call(func.id, e, env)
            if found is not _MISSING:
                return found
        if type(func) is _Attribute and func.attr in _OBJECT_HOOKS and type(func.value) is _Call:
            found = self.object_hook_call(e, func, env)
            if found is not _MISSING:
                return found
        if type(func) is _Attribute:  # as ev evaluates it, with the receiver kept
            receiver = self.ev(func.value, env)
            fn = self.get_attr(receiver, self.private_name(func.attr, env), func)
        else:
            receiver = None
            fn = self.ev(func, env)
        if type(fn) is ExtV and fn.name == "dataclasses.field" and any(k.arg == "metadata" for k in e.keywords):
            args, kwargs = self.field_arguments(e, env)
        else:
            args, kwargs = self.call_arguments(e, env)
        if type(receiver) is Inst and type(fn) is BoundV and func.attr == "save_hyperparameters" and \
                "frame" not in kwargs and type(fn.func) is FuncV and fn.func.env.module.path == LIGHTNING_SHIM:  # type: ignore[attr-defined]
            kwargs["frame"] = self.lightning_init_arguments(env)  # what Lightning reads off the call stack
        if type(receiver) is ClassV and func.attr in _HUB_LOADERS and _transformers_function(fn):  # type: ignore[attr-defined]
            loaded = self.transformers_loader(receiver, func.attr, args, kwargs, e, env)  # type: ignore[attr-defined]
            if loaded is not _MISSING:
                return loaded
        if type(fn) is Unknown and type(receiver) is Unknown and not receiver.maybe_module and \
                (func.attr in _TENSOR_METHODS or func.attr in _STR_METHODS):  # type: ignore[attr-defined]
            # `.to(dtype)` of a tensor not followed, `.replace(...)` of a path: a value, never a module
            return Unknown(receiver.why)
        if type(fn) is Unknown and type(receiver) is Inst and func.attr in _CONTAINER_DUNDERS.get(  # type: ignore[attr-defined]
                receiver.kind, ()) and not kwargs:
            return self.container_dunder(receiver, func.attr, args, e)  # type: ignore[attr-defined]
        if type(fn) is Unknown and type(receiver) is SuperV and type(receiver.inst) is Inst and receiver.inst.is_module:
            receiver = receiver.inst  # `super().reset()` of a module: as `self.reset()` would be
        if type(fn) is Unknown and type(receiver) is Inst and receiver.is_module and receiver.unfollowed is None:
            # A method of a module that the analyser does not follow may change its parts (a torch
            # method it has no model of, one the module lacks): its count is not known any more.
            cls, name = receiver.cls, func.attr  # type: ignore[attr-defined]
            defined = cls.find(name, None) if type(cls) is ClassV else None
            if fn.why.startswith(f"`super().{name}` "):  # a base not resolved first in the MRO (_super_blocked)
                what = "which " + fn.why.split("` ", 1)[1]
            elif type(defined) is Unknown:  # its def (a default, a decorator) was not followed
                what = f"whose definition the analyser cannot follow: {defined.why}"
            elif type(cls) is ClassV and all(type(b) is ExtV and b.name in _ROOT_CLASSES for b in _outside_bases(cls)) \
                    and name not in MODULE_CLASS_ATTRIBUTES:  # `load_state_dict`, `double`: nn.Module's own
                what = f"which `{cls.name}` does not define (Python raises AttributeError)"
            else:
                what = "a method of the module the analyser does not follow; it may change the module's parts"
            receiver.unfollowed = f"`{_text(e)}` ({env.module.where(e.lineno)}) calls `{name}`, {what}"
        if type(receiver) is Inst and receiver.is_module and not self.ctx.class_stack:
            # A script's statement (a class's build fails whole).
            if func.attr in _SIZE_KEEPING_METHODS:  # type: ignore[attr-defined]
                # `model.save_pretrained(output_dir)`: what it calls on the model where the analyser
                # stops (peft's model card) changes no size either
                self.ctx.changing_nothing += 1
                try:
                    return self.call(fn, args, kwargs, e, env)
                finally:
                    self.ctx.changing_nothing -= 1
            if receiver.unfollowed is None and not self.ctx.changing_nothing:
                # A method of the module that stops where the analyser cannot follow it may have
                # changed the module's parts before, or would have after (peft's
                # `model.merge_and_unload()` replaces its layers in place).
                try:
                    return self.call(fn, args, kwargs, e, env)
                except Unresolved as exc:
                    # (Python's own error: the analyser followed it to there; a method that changes
                    # nothing of the module, llama2.c's `configure_optimizers`, leaves it as it is.)
                    if not isinstance(exc, _Raised) and self.may_change(fn, func.attr, set()):  # type: ignore[attr-defined]
                        receiver.unfollowed = (f"`{_text(e)}` ({env.module.where(e.lineno)}) calls "
                                               f"`{func.attr}`, which the analyser cannot follow to its end: "  # type: ignore[attr-defined]
                                               f"{exc.reason}")
                    raise
        return self.call(fn, args, kwargs, e, env)

    def field_arguments(self, e: ast.Call, env: Env) -> tuple[list[Any], dict[str, Any]]:
        """``field(default="gpt2", metadata={"help": "... " + ", ".join(MODEL_TYPES)})`` (HF's example
        scripts): the metadata, which no value of the dataclass depends on, left out where the analyser
        cannot follow it, so that the field keeps its default."""
        try:
            return self.call_arguments(e, env)
        except Unresolved:
            plain = ast.copy_location(ast.Call(func=e.func, args=e.args,
                                               keywords=[k for k in e.keywords if k.arg != "metadata"]), e)
            return self.call_arguments(plain, env)

    def transformers_loader(self, cls: ClassV, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                            env: Env) -> Any:
        """``cls.from_pretrained("org/name")`` / ``cls.from_config(config)`` where the method is an
        installed transformers' own, read from its source: loading reaches files and the network,
        so the offline catalog and the HF cache answer, as for the loader outside the project;
        _MISSING where the source is followed as written."""
        if name == "from_pretrained":
            hub = args[0] if args else kwargs.get("pretrained_model_name_or_path")
            if hub is None and builds_module(cls.name) and (args or "pretrained_model_name_or_path" in kwargs):
                # HfArgumentParser's `model_name_or_path: Optional[str] = None`, left at its default
                return Unknown(f"`{_text(node)}` is given None for the model's name or path (transformers raises "
                               f"there); a command-line argument is taken as not given", maybe_module=True)
            if isinstance(hub, str):
                origin = env.module.span_of(node) if env.module.span_of else None
                changes = config_changes(kwargs)
                made = _MISSING
                if changes or len(args) > 1 or loads_config(cls.name):
                    made = self.pretrained_from_source(cls, hub, args[1:], changes, node, env, origin)
                elif builds_module(cls.name):
                    made = self.pretrained_as_built(cls, hub, node, env, origin)
                return _loaded_quantized(made if made is not _MISSING else self.from_hub(cls.name, hub, node, origin),
                                         kwargs, self.ctx)
        elif args and type(args[0]) is Inst and type(args[0].cls) is str and args[0].cls.endswith(".config"):
            # The catalog's config is its numbers, not transformers' config class its source would dispatch on.
            return Unknown(f"`{_text(node)}`: a config loaded with from_pretrained is not followed into from_config "
                           f"(`{cls.name}.from_pretrained(\"org/name\")` is counted from the catalog)",
                           maybe_module=True)
        return _MISSING

    def pretrained_as_built(self, cls: ClassV, hub_id: str, node: ast.Call, env: Env, origin: Span | None) -> Any:
        """``cls.from_pretrained("org/name")`` built by transformers' own code, as the model the code
        gets: its modules named and shaped as transformers makes them (what peft's get_peft_model
        and the code's own ``model.model.layers[0].self_attn`` walk). _MISSING where the source is
        not followed, and where the catalog does not count the id as a model of the class (from_hub
        says why): the catalog's count answers, and the steps spent are given back."""
        ctx = self.ctx
        if ctx.hub_model(cls.name, hub_id).root is None:
            return _MISSING  # not found, or not a model of this class (from_hub says why)
        steps, package_steps = ctx.steps, ctx.package_steps
        try:
            made = self.pretrained_from_source(cls, hub_id, [], {}, node, env, origin)
        except Unresolved:
            made = _MISSING
        if made is _MISSING or type(made) is not Inst:
            ctx.steps, ctx.package_steps = steps, package_steps
            return _MISSING
        return made

    def pretrained_from_source(self, cls: ClassV, hub_id: str, model_args: list[Any], changes: dict[str, Any],
                               node: ast.Call, env: Env, origin: Span | None) -> Any:
        """``cls.from_pretrained(hub_id, **changes)`` as transformers' own code makes it, from the
        config.json the catalog or the HF cache holds (never the network): the config with
        ``from_dict`` (its class from CONFIG_MAPPING for an Auto class, else ``cls.config_class``),
        the keywords that are its attributes set on it, the rest given to the model, which is
        built from the config as ``from_config`` builds it. A config loader's result is the config,
        so that ``config.num_hidden_layers = 2`` and ``from_config(config)`` are followed too.
        _MISSING when the catalog has no config.json for the id (from_hub says why), or when a
        config loader's class is not found (the catalog's values answer, as before)."""
        if not (builds_module(cls.name) or loads_config(cls.name)):
            return _MISSING
        found = self.ctx.hub_model(cls.name, hub_id)
        is_config = found.is_config
        given = changes.pop("config", None) if not is_config else None
        if isinstance(given, str):  # `config="org/other"`: that id's config.json
            found = self.ctx.hub_model(cls.name, given)
            given = None
        if found.config is None:
            return _MISSING if not changes and given is None else Unknown(
                f"`{_text(node)}`: {found.why}", maybe_module=not is_config)
        if model_args:
            return Unknown(f"`{_text(node)}`: the positional arguments after the id go to the model's __init__, "
                           f"which the analyser does not follow from from_pretrained", maybe_module=not is_config)
        if given is not None:
            if not is_transformers_config(given):
                return Unknown(f"`{_text(node)}`: `config=` is not a transformers config the analyser built"
                               + (f" ({why_of(given)})" if is_unknownish(given) else ""), maybe_module=True)
            config, unused = clone(given), changes  # transformers builds from a copy
        else:
            config_class = self.pretrained_config_class(cls, found.config, node, env)
            if config_class is None:
                return _MISSING if is_config and not changes else Unknown(
                    f"`{_text(node)}`: transformers' config class for model_type "
                    f"{found.config.get('model_type')!r} is not found in the installed transformers",
                    maybe_module=not is_config)
            from_dict = self.get_attr(config_class, "from_dict", node)
            if is_config:
                return self.call(from_dict, [copy.deepcopy(found.config)], changes, node, env)
            made = self.call(from_dict, [copy.deepcopy(found.config)], {**changes, "return_unused_kwargs": True},
                             node, env)
            if is_unknownish(made):
                return made
            if not (isinstance(made, tuple) and len(made) == 2 and isinstance(made[1], dict)):
                return Unknown(f"`{_text(node)}`: the config's from_dict gave no (config, unused keywords)",
                               maybe_module=True)
            config, unused = made
        auto = cls.find("_model_mapping", None) is not None
        build = self.get_attr(cls, "from_config" if auto else "_from_config", node)
        return self.call(build, [config], dict(unused), node, env)

    def unread_config_changes(self, loader: str, hub_id: str, kwargs: dict[str, Any]) -> str:
        """Where transformers is not read: the keywords of ``loader.from_pretrained(hub_id, ...)``
        that may change what it builds, named ("`num_hidden_layers=2` changes"); "" when none do
        (a ``config=`` holding the id's own config.json values, as loaded, changes nothing)."""
        if not (builds_module(loader) or loads_config(loader)):
            return ""
        changes = config_changes(kwargs)
        given = changes.get("config")
        if type(given) is Inst and type(given.cls) is str and given.cls.endswith(".config"):
            found = self.ctx.hub_model(loader, hub_id)
            if found.config is not None and given.attrs == found.config:
                del changes["config"]
        if not changes:
            return ""
        names = [f"`{k}=`" if k != "config" else "`config=` (not the id's config.json as loaded)" for k in changes]
        return f"{', '.join(names)} may change"

    def pretrained_config_class(self, cls: ClassV, config: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """The config class transformers makes a hub id's config.json with: the loader's own
        ``config_class`` (a model's) or itself (a config's); for an Auto class, CONFIG_MAPPING's
        class for the config's model_type. None when not found."""
        if not cls.name.startswith("Auto"):
            found = cls if cls.name.endswith("Config") else cls.find("config_class", None)
            return found if type(found) is ClassV else None
        model_type = config.get("model_type")
        path = cls.env.module.path if cls.env is not None else ""
        package = path[:path.rfind(f"{os.sep}models{os.sep}auto{os.sep}")] if f"{os.sep}models{os.sep}auto{os.sep}" in path else ""
        if not isinstance(model_type, str) or not package:
            return None
        module = self.load_project_file(os.path.join(package, "models", "auto", "configuration_auto.py"))
        mapping = module.names.get("CONFIG_MAPPING") if module is not None else None
        if mapping is None:
            return None
        try:
            found = self.get_item(mapping, model_type, node)
        except (_Raised, Unresolved):
            return None
        return found if type(found) is ClassV else None

    def parameter_dict_or(self, a: Any, b: Any, node: ast.AST) -> Any:
        """torch's ``ParameterDict | other``: a copy updated with ``other``; ``dict | ParameterDict``
        (its ``__ror__``): a copy of the dict updated with the ParameterDict's items, a dict."""
        if type(a) is Inst and a.kind == "pdict":
            out = _parameter_dict_copy(a)
            _module_methods(self, out, "update")["update"](b)
            return out
        if isinstance(a, dict):
            out = dict(a)
            out.update(container_entries(b))
            return out
        raise _Raised(f"`{_text(node)}` raises TypeError: unsupported operand type(s) for |", ExtV("TypeError"))

    def container_dunder(self, obj: Inst, name: str, args: list[Any], node: ast.Call) -> Any:
        """A torch container's special method called by name (``self.blocks.__setitem__(0, m)``): what
        the syntax it stands for does (``self.blocks[0] = m``), with Python's TypeError for a wrong
        number of arguments."""
        arity = _CONTAINER_DUNDER_ARITY.get(name, 1)
        if len(args) != arity:
            missing = arity - len(args)
            why = f"missing {missing} required positional argument{'s' if missing > 1 else ''}" if missing > 0 else \
                f"takes {arity + 1} positional argument{'s' if arity else ''} but {len(args) + 1} were given"
            raise _Raised(f"`{_text(node)}` raises TypeError: {CONTAINER_CLASSES[obj.kind]}.{name}() {why}",
                          ExtV("TypeError"))
        if name == "__getitem__":
            return self.get_item(obj, args[0], node)
        if name == "__setitem__":
            self.set_item(obj, args[0], args[1], node)
            return None
        if name == "__delitem__":
            self.delete_item(obj, args[0], node)  # type: ignore[arg-type]
            return None
        if name == "__len__":
            return _len(obj)
        if name == "__contains__":
            return self.contains(obj, args[0], node)
        if name == "__iter__":
            return self.lazy_iterator(_live_container(obj)) if _iterates_live(obj) else IteratorV(self.iterate(obj, node))
        if name == "__reversed__":
            return IteratorV(list(reversed(self.iterate(obj, node))))
        op = _CONTAINER_DUNDER_OPS[name.replace("__r", "__").replace("__i", "__")]
        if name.startswith("__i"):
            statement = ast.copy_location(ast.AugAssign(target=node.func.value, op=op(), value=node.args[0]), node)  # type: ignore[attr-defined]
            result = self.in_place(op, obj, args[0], statement)
            return self.binop(op, obj, args[0], node) if result is _MISSING else result
        return self.binop(op, args[0], obj, node) if name.startswith("__r") else self.binop(op, obj, args[0], node)

    def torch_method_unbound(self, inst: Inst, dotted: str, name: str, args: list[Any], kwargs: dict[str, Any],
                             node: ast.AST, env: Env) -> Any:
        """`nn.Module.add_module(self, name, m)`: torch's own method on the module, called through
        its class (an override of the class's own is passed by: a U-Net's `add_module` that wraps each
        block calls torch's so). A method the analyser has no model of makes the module's count
        unknown, as it does called on the module."""
        method = _module_method(self, inst, name)
        if method is None:
            if inst.unfollowed is None:
                inst.unfollowed = f"`{_text(node)}` calls torch's `{dotted}`, which the analyser does not follow"
            # What it returns may be the module (or another): held as one, it is not counted as nothing.
            return Unknown(f"`{_text(node)}` is not followed", maybe_module=True)
        return self.call(method, list(args), kwargs, node, env)

    def numpy_array_function(self, fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> TensorV | None:
        """numpy's functions of arrays the analyser built, for their shapes (N-BEATS' frozen basis
        templates: `np.transpose(np.cos(grid))`, `np.concatenate([...])`, `np.append(zeros, steps)`);
        None for any other call (the general path then says what it does not follow)."""
        arrays = [a for a in args if type(a) in _TENSORS]
        if arrays and not kwargs and (fn in _NUMPY_UNARY_VALUES and len(args) == 1 or
                                      fn in _NUMPY_BINARY_VALUES and len(args) == 2):
            computed = _numpy_values(fn, args)  # RegNet's widths: `np.round(np.log(widths / w0) / np.log(wm))`
            if computed is not None:
                return computed
        if fn in _NUMPY_ELEMENTWISE and arrays and len(args) <= 2 and set(kwargs) <= {"dtype"} and all(
                type(a) in _TENSORS or type(a) in (int, float) for a in args):
            shape: tuple[Any, ...] | None = tuple(arrays[0].shape)
            for other in arrays[1:]:
                shape = shapes.broadcast_shape(shape, tuple(other.shape)) if shape is not None else None
            if shape is None:
                raise _Raised(f"`{_text(node)}` raises ValueError: the arrays' shapes do not broadcast", ExtV("ValueError"))
            return TensorV(shape, floating=True)
        if fn == "meshgrid" and args and not all(type(a) in _TENSORS for a in args):
            # monodepth2's pixel grid: `np.meshgrid(range(width), range(height), indexing="xy")`
            if all(isinstance(a, (list, tuple, RangeV)) for a in args):
                args = [TensorV((len(a.r) if type(a) is RangeV else len(a),), floating=None) for a in args]
        if fn == "meshgrid" and args and set(kwargs) <= {"indexing"} and all(type(a) in _TENSORS for a in args):
            # Mask R-CNN's anchors: numpy flattens its inputs; "xy" (its default) swaps the first two lengths.
            lengths = [numel(tuple(a.shape)) for a in args]
            indexing = kwargs.get("indexing", "xy")
            if indexing not in ("xy", "ij"):
                raise _Raised(f"`{_text(node)}` raises ValueError: indexing must be 'xy' or 'ij'", ExtV("ValueError"))
            if indexing == "xy" and len(lengths) > 1:
                lengths[0], lengths[1] = lengths[1], lengths[0]
            return tuple(TensorV(tuple(lengths), floating=a.floating) for a in args)  # type: ignore[return-value]
        if fn == "clip" and len(args) == 3 and not kwargs:
            if all(type(a) in (int, float) for a in args):  # numbers: numpy's minimum(maximum(a, lo), hi)
                clipped = min(max(args[0], args[1]), args[2])
                return float(clipped) if any(type(a) is float for a in args) else clipped  # type: ignore[return-value]
            if type(args[0]) in _TENSORS and all(type(a) in (int, float) or a is None for a in args[1:]):
                return TensorV(tuple(args[0].shape), floating=args[0].floating)
        if fn == "transpose" and len(args) in (1, 2) and type(args[0]) in _TENSORS and not kwargs:
            axes = args[1] if len(args) == 2 else tuple(reversed(range(len(args[0].shape))))
            try:
                return TensorV(shapes.permute_shape(tuple(args[0].shape), tuple(axes)), floating=args[0].floating)
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises ValueError: {exc}", ExtV("ValueError"))
        if fn in ("concatenate", "stack", "append") and args and set(kwargs) <= {"axis"}:
            if fn == "append":
                if len(args) != 2 or not all(type(a) in _TENSORS for a in args):
                    return None
                parts, axis = list(args), kwargs.get("axis")
                if axis is None:  # both flattened, then joined
                    parts = [TensorV((numel(tuple(a.shape)),), floating=a.floating) for a in parts]
                    axis = 0
            else:
                if len(args) > 2 or not isinstance(args[0], (list, tuple)):
                    return None
                # Lists of numbers join as arrays (a harmonic filterbank's `np.concatenate((acc, hz))`, acc = []).
                joined = [a if type(a) in _TENSORS else self.numpy_array("array", [a], {}, node) if type(a) is list and (
                    not a or all(type(x) in (int, float) for x in a)) else None for a in args[0]]
                if not all(type(a) in _TENSORS for a in joined):
                    return None
                parts, axis = joined, args[1] if len(args) == 2 else kwargs.get("axis", 0)
            try:
                shape = (shapes.stack_shape if fn == "stack" else shapes.cat_shape)([tuple(a.shape) for a in parts], axis)
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises ValueError: {exc}", ExtV("ValueError"))
            floating = True if any(a.floating for a in parts) else None
            return TensorV(shape, floating=floating) if shape is not None else None
        if fn in ("vstack", "hstack", "row_stack", "column_stack") and len(args) == 1 and not kwargs and \
                isinstance(args[0], (list, tuple)) and args[0]:
            # nnU-Net's `np.vstack(pool_op_kernel_sizes)`: rows of numbers or arrays, joined
            rows = [a if type(a) in _TENSORS else self.numpy_array("array", [a], {}, node) for a in args[0]]
            if not all(type(r) is TensorV for r in rows):
                return None
            shapes_in = [tuple(r.shape) for r in rows]
            if fn in ("vstack", "row_stack"):
                parts = [s if len(s) > 1 else (1, *s) for s in shapes_in]
                axis = 0
            elif fn == "hstack":
                parts, axis = shapes_in, 0 if len(shapes_in[0]) == 1 else 1
            else:
                parts, axis = [s if len(s) > 1 else (*s, 1) for s in shapes_in], 1
            try:
                return TensorV(shapes.cat_shape(parts, axis), numpy=True)
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises ValueError: {exc}", ExtV("ValueError"))
        if fn in ("cumprod", "cumsum") and len(args) == 1 and type(args[0]) in _TENSORS and set(kwargs) <= {"axis"} \
                and (len(args[0].shape) > 1 or kwargs.get("axis") is not None):
            shape = tuple(args[0].shape)  # along an axis: the same shape; without one, flattened
            return TensorV(shape if kwargs.get("axis") is not None else (numel(shape),), numpy=True)
        if fn in ("prod", "sum") and len(args) == 1 and set(kwargs) == {"axis"} and kwargs["axis"] in (0, 1, -1) and \
                isinstance(args[0], (list, tuple)) and args[0] and all(
                isinstance(r, (list, tuple)) and len(r) == len(args[0][0]) and all(type(x) in (int, float) for x in r)
                for r in args[0]):
            # DCUNet's strides: `np.prod([(2, 1), (2, 2)], axis=0)`, the products along an axis
            rows = [list(r) for r in args[0]]
            lines = list(zip(*rows)) if kwargs["axis"] == 0 else rows
            combine = math.prod if fn == "prod" else sum
            floating = any(type(x) is float for r in rows for x in r)
            values = tuple(float(combine(line)) if floating else combine(line) for line in lines)
            return TensorV((len(values),), values, dtype="float64" if floating else "int64", numpy=True)
        if fn == "copy" and len(args) == 1 and type(args[0]) is TensorV and not kwargs:
            return dataclasses.replace(args[0], numpy=True, buffer=False)
        if fn in _NUMPY_WINDOWS and len(args) == 1 and type(args[0]) is int and not kwargs:
            return TensorV((args[0],), floating=True, numpy=True)  # open-unmix's / asteroid's windows
        if fn == "reshape" and len(args) == 2 and type(args[0]) in _TENSORS and not kwargs:
            new_shape = shapes.view_shape(tuple(args[0].shape), (args[1],) if not isinstance(args[1], (list, tuple))
                                          else (tuple(args[1]),))
            return TensorV(new_shape, numpy=True) if new_shape is not None else None
        if fn == "roll" and args and type(args[0]) in _TENSORS and len(args) <= 3 and set(kwargs) <= {"shift", "axis"}:
            values = args[0].values if len(args) <= 2 and not kwargs.get("axis") and len(args[0].shape) == 1 else None
            shift = args[1] if len(args) > 1 else kwargs.get("shift")
            if values is not None and type(shift) is int and values:
                shift %= len(values)  # SincNet's band edges: `np.roll(m, 1)`, values rotated
                return dataclasses.replace(args[0], values=values[-shift:] + values[:-shift] if shift else values,
                                           errors=None if args[0].errors is None else
                                           args[0].errors[-shift:] + args[0].errors[:-shift] if shift else args[0].errors,
                                           numpy=True, buffer=False)
            return TensorV(tuple(args[0].shape), numpy=True)
        if fn == "repeat" and len(args) >= 2 and type(args[0]) in _TENSORS and type(args[1]) is int and \
                set(kwargs) <= {"axis"} and len(args) <= 3:
            axis = args[2] if len(args) == 3 else kwargs.get("axis")
            shape = tuple(args[0].shape)
            if axis is None:
                return TensorV((numel(shape) * args[1],), numpy=True)
            try:
                at = shapes.normalized_dim(axis, len(shape))
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises AxisError: {exc}", ExtV("ValueError"))
            return TensorV(shape[:at] + (shape[at] * args[1],) + shape[at + 1:], numpy=True)
        if fn in ("zeros_like", "ones_like", "empty_like", "full_like") and args and type(args[0]) in _TENSORS and \
                len(args) <= (2 if fn == "full_like" else 1) and set(kwargs) <= {"dtype"}:
            return TensorV(tuple(args[0].shape), numpy=True)  # S5's `np.ones_like(A)`: the array's shape
        if fn in _NUMPY_REDUCING and len(args) == 1 and type(args[0]) in _TENSORS and set(kwargs) <= {"axis", "keepdims"}:
            try:  # S5's `np.mean(A)`: a 0-d array, or the axes named go
                return TensorV(shapes.reduce_shape(tuple(args[0].shape), kwargs.get("axis"), kwargs.get("keepdims", False)),
                               numpy=True)
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises: {exc}", ExtV("ValueError"))
        if fn in ("diag", "diagonal") and args and type(args[0]) in _TENSORS:
            names = ("k",) if fn == "diag" else ("offset", "axis1", "axis2")
            given = dict(zip(names, args[1:]), **kwargs)
            if set(given) - set(names):
                return None
            try:
                shape = shapes.diag_shape(tuple(args[0].shape), given.get("k", 0)) if fn == "diag" else \
                    shapes.diagonal_shape(tuple(args[0].shape), given.get("offset", 0), given.get("axis1", 0),
                                          given.get("axis2", 1))
            except shapes.ShapeError as exc:
                raise _Raised(f"`{_text(node)}` raises ValueError: {exc}", ExtV("ValueError"))
            return TensorV(shape, numpy=True) if None not in shape else None
        if fn == "unique" and len(args) == 1 and set(kwargs) <= {"return_counts"}:
            # RegNet's stages: `widths, depths = np.unique(block_widths, return_counts=True)`.
            array = args[0] if type(args[0]) is TensorV else self.numpy_array("array", [args[0]], {}, node) \
                if isinstance(args[0], (list, tuple)) else None
            values = _values_of(array) if type(array) is TensorV else None
            if values is None:
                return None
            try:
                distinct, counts = tensor_values.unique(values)
            except tensor_values.Undecidable as exc:
                raise Unresolved(f"`{_text(node)}`: {exc}")
            out = _valued((len(distinct.items),), distinct, True)
            return (out, _valued((len(counts.items),), counts, True)) if truth(  # type: ignore[return-value]
                kwargs.get("return_counts", False), "return_counts") else out
        return None

    def argparse_method(self, parser: "ArgParserV", name: str, node: ast.AST) -> Any:
        """An ArgumentParser's methods: arguments added (to the parser or a group of it), defaults
        set, and parsed from a list the code gives or, for ``parse_args()``, from a command line
        that gives none (the count says so), into a Namespace of their values."""
        if name == "add_argument":
            return BuiltinV(name, lambda *flags, **kw: parser.add(flags, kw, _text(node)))
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            return BuiltinV(name, lambda *a, **k: parser)  # a group's arguments are the parser's
        if name == "set_defaults":
            return BuiltinV(name, lambda **kw: parser.defaults.update(kw))
        if name in ("parse_args", "parse_known_args"):
            def parse(args: Any = None, namespace: Any = None) -> Any:
                if namespace is not None:
                    raise Unresolved(f"`{_text(node)}`: parsing into a namespace the code gives is not followed")
                if args is None:
                    given = self.ctx.script_args
                    self.note_machine_read("command line", f"{name}()", node, None, parser.scope) if given is None \
                        else self.note_machine_read("arguments", shlex.join(given), node, None, parser.scope)
                    args = list(given or ())
                if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
                    raise Unresolved(f"`{_text(node)}`: the arguments to parse are not a known list of strings")
                found = self.parsed_arguments(parser, list(args), node)
                namespace_value = Inst("Namespace", "object", False)
                namespace_value.attrs.update(found)
                return (namespace_value, []) if name == "parse_known_args" else namespace_value
            return BuiltinV(name, parse)
        raise Unresolved(f"`{_text(node)}`: the analyser follows an ArgumentParser's add_argument, groups, "
                         f"set_defaults and parse_args, not `{name}`")

    def parsed_arguments(self, parser: "ArgParserV", argv: list[str], node: ast.AST) -> dict[str, Any]:
        """argparse's values for ``argv``: each argument's default (a string default converted by its
        ``type``, as argparse does), or what an option given as ``--name value``, ``--name=value`` or a
        flag sets. Positional arguments and other forms are not followed."""
        given: dict[str, Any] = {}
        by_flag = {flag: argument for argument in parser.arguments for flag in argument.flags}
        positionals = [argument for argument in parser.arguments if not argument.flags[0].startswith("-")]
        i = 0
        while i < len(argv):
            if not argv[i].startswith("-") and positionals:  # barlowtwins' `parse_args(['/data', ...])`
                argument = positionals.pop(0)
                if argument.nargs is not None:
                    raise Unresolved(f"`{_text(node)}`: the analyser does not follow the positional argument "
                                     f"`{argument.dest}` with nargs {argument.nargs!r}")
                given[argument.dest] = self.argument_value(argument, argv[i], node)
                i += 1
                continue
            token, _, inline = argv[i].partition("=")
            argument = by_flag.get(token)
            if argument is None or not token.startswith("-"):
                raise Unresolved(f"`{_text(node)}`: the analyser follows options of the parser (`--name value`), "
                                 f"not `{argv[i]}`")
            if argument.action in ("store_true", "store_false", "store_const"):
                given[argument.dest] = argument.const
            elif argument.action == "store" and argument.nargs is None:
                if not inline and i + 1 >= len(argv):
                    raise Unresolved(f"`{_text(node)}`: argparse exits: `{token}` expects one argument")
                text = inline if inline else argv[i + 1]
                i += 0 if inline else 1
                given[argument.dest] = self.argument_value(argument, text, node)
            elif argument.action == "store" and not inline and (type(argument.nargs) is int or argument.nargs in "+*?"):
                # RAFT-Stereo's `--hidden_dims 64 64 64` (nargs="+"): the values up to the next option
                taken = []
                while i + 1 + len(taken) < len(argv) and not _is_option(argv[i + 1 + len(taken)]) and (
                        type(argument.nargs) is not int or len(taken) < argument.nargs) and (
                        argument.nargs != "?" or not taken):
                    taken.append(argv[i + 1 + len(taken)])
                if (type(argument.nargs) is int and len(taken) != argument.nargs) or (argument.nargs == "+" and not taken):
                    raise Unresolved(f"`{_text(node)}`: argparse exits: `{token}` expects "
                                     f"{argument.nargs if type(argument.nargs) is int else 'at least one'} argument(s)")
                i += len(taken)
                values_given = [self.argument_value(argument, text, node) for text in taken]
                given[argument.dest] = (values_given[0] if taken else argument.const) if argument.nargs == "?" \
                    else values_given
            else:
                raise Unresolved(f"`{_text(node)}`: the analyser does not follow `{token}` (action "
                                 f"{argument.action!r}, nargs {argument.nargs!r}) given on the command line")
            i += 1
        values: dict[str, Any] = {}
        for argument in parser.arguments:
            if argument.dest in given:
                values[argument.dest] = given[argument.dest]
                continue
            if argument.required:
                raise Unresolved(f"`{_text(node)}`: argparse exits: the argument `{argument.flags[0]}` is required")
            default = parser.defaults.get(argument.dest, argument.default)  # the parser's default wins
            values[argument.dest] = self.argument_value(argument, default, node) if isinstance(default, str) \
                else default
        for dest, default in parser.defaults.items():
            values.setdefault(dest, default)
        return values

    def argument_value(self, argument: "_Argument", text: str, node: ast.AST) -> Any:
        """A string of the command line (or a string default) as argparse stores it: through the
        argument's ``type``."""
        return self.call(argument.type, [text], {}, node, self.ctx.call_env()) if argument.type is not None else text

    def tensor_reduction(self, t: TensorV | Param, name: str, a: tuple[Any, ...], k: dict[str, Any],
                         node: ast.AST) -> Any:
        """The shapes of max / min / median over a dim (values and indices, as torch's named pair),
        of argmax / argmin / all / any, and of topk / sort; max / min of another tensor is elementwise."""
        shape = tuple(t.shape)
        floating = _is_floating(t)
        if name in ("max", "min") and a and type(a[0]) in _TENSORS:
            return _extremum("maximum" if name == "max" else "minimum", t, a[0], self.tensor_binop(ast.Add, t, a[0], node))
        try:
            if name in ("topk", "sort"):
                dim = (a[1] if len(a) > 1 else k.get("dim", -1)) if name == "topk" else (a[0] if a else k.get("dim", -1))
                new = list(shape)
                if shape:
                    i = shapes._dim(dim, len(shape), "dim")
                    if name == "topk":
                        count = a[0] if a else k.get("k")
                        if type(count) is not int and not isinstance(count, Sym):
                            raise Unresolved(f"`{_text(node)}`: k is not a known number")
                        if type(count) is int and type(shape[i]) is int and not 0 <= count <= shape[i]:
                            raise shapes.ShapeError(f"selected index k out of range (k={count}, size {shape[i]})")
                        new[i] = count
                return TorchPair(TensorV(tuple(new), floating=floating), TensorV(tuple(new), floating=False))
            dim = a[0] if a else k.get("dim")
            keepdim = a[1] if len(a) > 1 else k.get("keepdim", False)
            reduced = shapes.reduce_shape(shape, dim, keepdim, needs_values=name in ("max", "min", "median"))
        except shapes.ShapeError as exc:
            raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
        if name in ("all", "any", "argmax", "argmin"):
            return TensorV(reduced, floating=False)
        if dim is None:  # t.max(): the largest value, a 0-d tensor
            return TensorV(reduced, floating=floating)
        return TorchPair(TensorV(reduced, floating=floating), TensorV(reduced, floating=False))

    def numpy_integer(self, kind: str, x: int | float | bool, node: ast.AST) -> int:
        """``np.int64(x)`` of a Python number: numpy's integer of that value (a float truncated toward
        zero), which computes as the Python int does for sizes. Out of the type's range numpy raises."""
        if type(x) is float and not math.isfinite(x):
            raise _Raised(f"`{_text(node)}` raises {'ValueError' if math.isnan(x) else 'OverflowError'}: "
                          f"numpy cannot make an integer of {x}", ExtV("ValueError" if math.isnan(x) else "OverflowError"))
        value = int(x)
        bits = int(kind.lstrip("uint") or 64) if kind not in ("intp", "int_", "uintp") else 64
        low, high = (0, 2**bits - 1) if kind.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if not low <= value <= high:
            raise _Raised(f"`{_text(node)}` raises OverflowError: {value} is out of the bounds of numpy's {kind}",
                          ExtV("OverflowError"))
        return value

    def special_call(self, name: str, e: ast.Call, env: Env) -> Any:
        """The builtins that read the caller's frame or code: ``super()``, ``locals()``,
        ``globals()``, ``eval(text)``, ``next(generator)``; _MISSING where the call is a plain one
        (the name is the code's own, or the arguments are others)."""
        func = e.func
        if name == "super":
            if e.args:
                owner = self.ev(e.args[0], env)
                inst = self.ev(e.args[1], env) if len(e.args) > 1 else None
                if type(owner) is ExtV and _torch_nn_class(owner.name) not in (None, "Module") and type(inst) is Inst \
                        and inst.is_module and type(inst.cls) is ClassV and _torch_layer_base(inst.cls) == \
                        _torch_nn_class(owner.name):
                    # PyCIL's `super(torch.nn.Linear, self).__init__()`: past the layer, nn.Module's own
                    return _ModuleSuper(inst)
                if isinstance(owner, ClassV) and type(inst) is Inst and type(inst.cls) is ClassV and \
                        owner not in inst.cls.mro():
                    # ConvE's template: `super(DistMult, self)` left in another class
                    raise _Raised(f"`{_text(e)}` ({env.module.where(e.lineno)}) raises TypeError: obj must be an "
                                  f"instance or subtype of type (`{inst.cls.name}` is not a `{owner.name}`)",
                                  ExtV("TypeError"))
                if not isinstance(owner, ClassV):
                    reason = f": {why_of(owner)}" if is_unknownish(owner) else ""
                    raise Unresolved(f"`{_text(e)}` ({env.module.where(e.lineno)}) names no class of this file{reason}")
                return SuperV(owner, self.ev(e.args[1], env) if len(e.args) > 1 else None)
            try:
                return SuperV(env.lookup("__class__"), env.lookup("__self__"))
            except KeyError:
                raise Unresolved(f"`super()` outside a method ({env.module.where(e.lineno)})")
        if name == "locals" and not e.args and not e.keywords and env is not env.module.env:
            try:
                env.lookup("locals")
            except KeyError:
                # A function's variables, read (timm's NesT checks its arguments by name through it): a
                # snapshot, as Python's is in a function; not the module's, whose writes would be live.
                return {k: v for k, v in env.vars.items() if k not in ("__class__", "__self__")}
        if name == "globals" and not e.args and not e.keywords:
            try:
                env.lookup("globals")
            except KeyError:
                # The module's names, read (asteroid's `globals().get(identifier)` picks a norm layer by
                # name): a snapshot, so a write through it is not seen by the module's code.
                return {k: self.read_lazy(v) if type(v) is LazyImport else v
                        for k, v in env.module.env.vars.items()}
        if name == "eval" and len(e.args) == 1 and not e.keywords and self.ev(func, env) is _BUILTINS["eval"]:
            return self.eval_text(self.ev(e.args[0], env), e, env)
        if name == "next" and e.args and type(e.args[0]) is ast.GeneratorExp and len(e.args) <= 2 and \
                not e.keywords and self.ev(func, env) is _BUILTINS["next"]:
            return self.first_item(e.args[0], e.args[1] if len(e.args) > 1 else None, env)
        return _MISSING

    def eval_text(self, text: Any, node: ast.Call, env: Env) -> Any:
        """``eval(text)`` of a string the analyser knows (fairseq's `eval(cfg.conv_feature_layers)`,
        a default such as "[(512, 10, 5)] + [(512, 3, 2)] * 4"): the expression interpreted here,
        as any of the file's code is, in the caller's names. Nothing is run by Python."""
        if type(text) is not str:
            raise Unresolved(f"`{_text(node)}`: the code calls `eval` on "
                             f"{why_of(text) if is_unknownish(text) else 'a value that is not a known string'}")
        if len(text) > MAX_EVAL_TEXT:
            raise Unresolved(f"`{_text(node)}`: the code calls `eval` on a string of {len(text):,} characters")
        tree = self.eval_trees.get(text)
        if tree is None:
            try:
                tree = parse_expression(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                raise _Raised(f"`{_text(node)}`: the string does not parse as an expression (SyntaxError: "
                              f"{getattr(exc, 'msg', exc)})", ExtV("SyntaxError"))
            for child in ast.walk(tree):  # its code is the eval call's, for messages and hints alike
                if "lineno" in child._attributes:
                    ast.copy_location(child, node)
            self.eval_trees[text] = tree
        return self.ev(tree.body, env)

    def call_arguments(self, e: ast.Call, env: Env) -> tuple[list[Any], dict[str, Any]]:
        """A call's arguments, ``*args`` and ``**kwargs`` spread."""
        args: list[Any] = []
        for a in e.args:
            t = type(a)
            if t is _Constant:  # (ev's first case, read here without calling ev: many arguments are numbers)
                args.append(a.value)  # type: ignore[attr-defined]
            elif t is ast.Starred:
                args.extend(self.iterate(self.ev(a.value, env), a.value))  # type: ignore[attr-defined]
            else:
                args.append(self.ev(a, env))
        kwargs: dict[str, Any] = {}
        for k in e.keywords:
            value = k.value
            v = value.value if type(value) is _Constant else self.ev(value, env)  # type: ignore[attr-defined]
            if k.arg is None:
                if isinstance(v, Inst) and v.kind == "object":
                    v = dict(v.attrs)
                if not isinstance(v, dict):
                    raise Unresolved(f"`**{_text(k.value)}` is not a known dict{_because(v)}")
                for kk, vv in v.items():
                    if type(kk) in (int, float, bool, tuple, type(None)):
                        raise _Raised(f"`{_text(e)}` raises TypeError: keywords must be strings", ExtV("TypeError"))
                    name = str(kk)
                    if name in kwargs:
                        raise _multiple_values(e, name)
                    kwargs[name] = vv
            else:
                if k.arg in kwargs:  # after a `**` that gave it (twice in the call itself does not parse)
                    raise _multiple_values(e, k.arg)
                kwargs[k.arg] = v
        return args, kwargs

    def object_hook_call(self, e: ast.Call, func: ast.Attribute, env: Env) -> Any:
        """``super().__getattribute__(key)`` / ``super().__setattr__(key, value)`` reaching object's:
        what the general path (a SuperV, its BuiltinV, ``call``) does, without making them.
        transformers' configs read every attribute through two such hooks. _MISSING, having
        evaluated nothing, where the call is anything else."""
        target = func.value
        if type(target.func) is not _Name or target.func.id != "super" or target.args or target.keywords:  # type: ignore[attr-defined]
            return _MISSING
        if e.keywords or any(type(a) is ast.Starred for a in e.args):
            return _MISSING
        names = env.vars
        owner, inst = names.get("__class__"), names.get("__self__")  # a method's own: set by call_function
        if type(owner) is not ClassV or type(inst) is not Inst or any(
                func.attr in c.namespace for c in _after_in_mro(owner, inst)):
            return _MISSING
        args = [self.ev(a, env) for a in e.args]
        getting = func.attr == "__getattribute__"
        if (len(args) != 1 if getting else len(args) != 2) or type(args[0]) is not str:
            # What the general path calls, with its own handling of what does not fit.
            return self.call(self.get_attr(SuperV(owner, inst), func.attr, func), args, {}, e, env)
        ctx = self.ctx
        ctx.steps += 1  # as `call` counts it
        if ctx.steps > MAX_STEPS:
            ctx.tick()
        key = args[0]
        if getting:
            return self.plain_inst_attr(inst, key, self.self_attribute_node(key))
        self.object_setattr(inst, key, args[1], func)  # the node the general path's message names
        return None

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        ctx = self.ctx
        ctx.steps += 1
        if ctx.steps > MAX_STEPS:
            ctx.tick()  # raises with the message
        if type(fn) is ExtV:  # torch.nn layers, the commonest call (no value class derives from another)
            return self.call_external(fn.name, args, kwargs, node, env)
        if type(fn) is BuiltinV:  # then range, len, dict.get, ...
            if fn.name in ("map", "filter") and fn.fn is _MAP_FILTER:
                return self.map_filter(fn.name, args, kwargs, node, env)
            if fn.name == "apply" and type(fn.fn) is _ModuleApply:
                return self.module_apply(fn.fn.module, args, kwargs, node, env)
            if fn.name == "open" and fn is _BUILTINS["open"]:
                return self.open_file(args, kwargs, node, env)
            if fn.name == "vars" and len(args) == 1 and not kwargs and type(args[0]) in (Inst, ClassV, ModV):
                return self.get_attr(args[0], "__dict__", node)  # `vars(hparams)`: the object's attributes
            if fn.name == "setattr" and len(args) == 3 and not kwargs and type(args[0]) in (ClassV, ModV) and \
                    isinstance(args[1], str):
                # d2l's `@add_to_class(Cls)` (a method set on the class), a module's global: as `Cls.name = v`.
                self.set_attr(args[0], args[1], args[2], node)
                return None
            if fn.name in ("getattr", "hasattr", "setattr", "delattr", "len") and args and type(args[0]) is Inst and \
                    type(args[0].cls) is ClassV:
                return self.attribute_builtin(fn.name, args, node)
            if fn.name == "getattr" and len(args) in (2, 3) and not kwargs and type(args[0]) is ClassV and \
                    isinstance(_member_value(args[1]), str):
                # `getattr(PeftType, name.upper())`, `getattr(cls, "prefix", None)`: as `Cls.name` reads it
                name = _member_value(args[1])
                if len(args) == 3 and _hasattr(args[0], name) is False:
                    return args[2]
                return self.get_attr(args[0], name, node)  # (no private-name mangling: that is the syntax's)
            if fn.name in ("getattr", "hasattr") and len(args) > 1 and type(args[0]) is ModV and isinstance(args[1], str):
                value = self.module_name(args[0], args[1])
                if fn.name == "hasattr":
                    return value is not _MISSING
                if value is _MISSING:
                    if len(args) > 2:
                        return args[2]
                    raise Unresolved(f"`{_text(node)}`: `{args[1]}` is not defined in `{args[0].name}`")
                return value
            if fn.name in _MUTATING_METHODS and type(fn.fn) is _BUILTIN_METHOD and \
                    id(fn.fn.__self__) in ctx.state_containers:  # `REGISTRY.append(cls)`, `CACHE.update(...)`
                self.state_written(True)
                ctx.logged_change(fn.fn.__self__)
            if fn.name == "sort" and type(fn.fn) is _BUILTIN_METHOD and type(fn.fn.__self__) is list and \
                    kwargs.get("key") is None and (unknown := next((x for x in fn.fn.__self__ if is_unknownish(x)), None)) \
                    is not None:  # OFA's `ks_list.sort()` of sizes not known: their order is not either
                raise Unresolved(f"`{_text(node)}`: sorting values that depend on {_clause(why_of(unknown))}")
            if fn.name in _LAZY_BUILTINS and args and fn is _BUILTINS[fn.name]:
                # a torch container's iterator walks its live dict (`for i, layer in enumerate(self.layers)`)
                args = [self.lazy_iterator(_live_container(a) if type(a) is Inst else a.live()) if (
                    (type(a) is Inst and _iterates_live(a)) or type(a) in _CONTAINER_VIEW_TYPES) and (
                    i == 0 or fn.name == "zip") else a for i, a in enumerate(args)]
            if fn.name in _ITERATING_BUILTINS and args and fn is _BUILTINS[fn.name]:
                # an object with an __iter__ of the code, iterated as Python does (`sum(Stages())`)
                positions = range(len(args)) if fn.name == "zip" else (0,) if len(args) == 1 or fn.name not in (
                    "min", "max") else ()
                args = [self.iterate(a, node) if i in positions and (
                    _own_iter(a) is not None or _sequence_getitem(a) is not None) and
                        a.kind not in _CONTAINER_KINDS else a for i, a in enumerate(args)]
            if fn.name in _SCALAR_BUILTINS and args and fn is _BUILTINS[fn.name] and not (
                    fn.name != "sum" and kwargs) and (type(args[0]) in _ITEM_SOURCES or (len(args) > 1 and fn.name != "sum")):
                items = list(args) if len(args) > 1 and fn.name != "sum" else \
                    args[0] if type(args[0]) in (list, tuple) else _list_of(args[0])
                if any(type(x) in _TENSORS for x in items):  # `sum(field_dims)` of a numpy array: its scalars
                    return self.scalar_builtin(fn.name, items, args[1:], kwargs, node)
                if len(args) == 1 or fn.name == "sum":
                    args = [items, *args[1:]]  # an iterator's items, already taken
            if type(fn.fn) is _BUILTIN_METHOD and any(type(a) is RangeV for a in args):
                args = [list(self.iterate(a, node)) if type(a) is RangeV else a for a in args]  # `ids.extend(range(n))`
            key = kwargs.get("key")
            if key is not None and type(key) in _CODE_CALLABLES:
                # sorted/min/max/list.sort(key=lambda w: -w): Python calls the key, so the analyser does.
                kwargs = {**kwargs, "key": lambda item: self.call(key, [item], {}, node, env)}
            try:
                return fn.fn(*args, **kwargs)
            except (Unresolved, _Return, _NoAttribute, _FilesCapped):
                raise
            except RecursionError:
                raise
            except Exception as exc:  # noqa: BLE001 - a builtin given values it rejects
                # `table.pop(key)`, `names.index(x)`, `int(text)` on Python's values: Python's error.
                owner = getattr(fn.fn, "__self__", None)
                if (type(fn.fn) is _BUILTIN_METHOD and _is_python_value(owner) or
                        fn.name in _PYTHON_CONVERSIONS and fn is _BUILTINS[fn.name]) \
                        and _all_python_values(args, kwargs):
                    raise _python_error(exc, node, True)
                if fn.name in _PYTHON_CHECKED and fn is _BUILTINS.get(fn.name) and _all_python_values(args, kwargs) \
                        and _python_raises(fn.name, args, kwargs, exc):
                    raise _python_error(exc, node, True)  # `len(None)`: Python's own error (RepVGG's assert)
                if isinstance(exc, shapes.ShapeError):  # torch's error, in its words (not the analyser's class)
                    raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)"[:300])
                unknown = next((a for a in (*args, *kwargs.values()) if is_unknownish(a)), None)
                if unknown is not None:  # not Python's error: what the analyser does not know
                    why = why_of(unknown)
                    inner = _DEPENDS.match(why)  # "`x` depends on y": the call depends on y
                    raise Unresolved(f"`{_text(node)}` depends on {inner.group(1) if inner else _clause(why)}"[:300])
                raise Unresolved(f"`{_text(node)}` raises {type(exc).__name__}: {_user_words(str(exc))}"[:300])
        if isinstance(fn, ClassV):
            return self.instantiate(fn, args, kwargs, node, env)
        if isinstance(fn, FuncV):
            if fn.kind == "class":
                raise Unresolved(f"`{_text(node)}`: classmethod called without its class")
            return self.call_function(fn, args, kwargs, node)
        if isinstance(fn, BoundV):
            if isinstance(fn.func, FuncV):  # a classmethod, bound to its class, is called here
                return self.call_function(fn.func, [fn.self_obj] + args, kwargs, node)
            return self.call(fn.func, [fn.self_obj] + args, kwargs, node, env)
        if isinstance(fn, PartialV):
            return self.call(fn.func, list(fn.args) + args, {**dict(fn.kwargs), **kwargs}, node, env)
        if isinstance(fn, Unknown):
            return Unknown(fn.why, maybe_module=True)
        if isinstance(fn, Inst) and not fn.is_module and type(fn.cls) is ClassV:
            # An object of the code that is called (timm's EfficientNetBuilder builds the blocks in __call__).
            call = fn.cls.find("__call__", None)
            if not isinstance(call, FuncV):
                raise _Raised(f"`{_text(node)}`: a `{fn.cls.name}` is not callable (TypeError)", ExtV("TypeError"))
            return self.call_function(call, ([] if call.kind == "static" else [fn]) + args, kwargs, node)
        if isinstance(fn, Inst):
            if fn.is_module and len(args) == 1 and not kwargs and isinstance(args[0], (TensorV, Param)):
                try:  # a dry run of torch's layers on a tensor of known shape (DQN's conv-output size)
                    out = forward.output_shape(fn, tuple(args[0].shape))
                except shapes.ShapeError as exc:
                    raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
                if out is not None:
                    return TensorV(out)
            return Unknown(f"running a module (`{_text(node)}`), which happens in forward, not at build time")
        if isinstance(fn, Sym):
            # `self.h.get(key, default)` of an argument with no default: unknown for its reason, which
            # a condition on it names ("depends on the constructor argument `h` ..."), said once.
            return Unknown(why_of(fn) or f"`{_text(node)}` calls an unresolved value", maybe_module=True)
        raise Unresolved(f"`{_text(node)}` calls {type(fn).__name__}, which the analyser does not follow")

    def dataclass_fields(self, target: Any, node: ast.AST) -> tuple[Inst, ...]:
        """``dataclasses.fields(cls)``: each field's name, default and default_factory (MISSING
        where it has none), in declaration order."""
        cls = target.cls if type(target) is Inst else target
        if type(cls) is not ClassV or not cls.is_dataclass:
            raise _Raised(f"`{_text(node)}`: not a dataclass (TypeError)", ExtV("TypeError"))
        types = self.field_types(cls)
        out = []
        for name in cls.fields:
            declared = cls.find(name, _DATACLASS_MISSING)
            field = Inst("Field", "object", False)
            field.attrs["type"] = types.get(name, Unknown(f"the annotation of `{cls.name}.{name}` is not known"))
            default = factory = _DATACLASS_MISSING
            if isinstance(declared, FieldV):
                if declared.factory is not None:
                    factory = declared.factory
                elif declared.has_default:
                    default = declared.default
            else:
                default = declared
            metadata = declared.metadata if isinstance(declared, FieldV) and declared.metadata is not None else {}
            field.attrs.update(name=name, default=default, default_factory=factory, init=True, metadata=dict(metadata))
            out.append(field)
        return tuple(out)

    def field_types(self, cls: ClassV) -> dict[str, Any]:
        """Each field's ``Field.type``: its annotation, evaluated, or its text where the module's
        annotations are strings (``from __future__ import annotations``), as Python keeps them."""
        types: dict[str, Any] = {}
        for c in reversed(cls.mro()):
            if type(c) is not ClassV or not c.is_dataclass or c.env is None:
                continue
            annotated = [s for s in c.node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if c.env.module.string_annotations:
                types.update((s.target.id, _text(s.annotation)) for s in annotated)
                continue
            evaluated = self.class_annotations(c)
            scope = Env(c.env.module, c.env)
            scope.vars.update(c.namespace)
            for stmt in annotated:
                # `Optional[int]`, `Union[int, str]`: their members, as `int | None` gives them (a tuple)
                # where the analyser's own value of the subscript would have lost them
                annotation = stmt.annotation
                if isinstance(annotation, ast.Subscript):
                    try:
                        wrapper = self.ev(annotation.value, scope)
                        if type(wrapper) is ExtV and wrapper.name in ("typing.Optional", "typing.Union"):
                            inner = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
                            members = tuple(self.ev(e, scope) for e in inner)
                            evaluated[stmt.target.id] = members + ((None,) if wrapper.name == "typing.Optional" else ())
                    except Unresolved:
                        pass
            types.update(evaluated)
        return types

    def dataclass_replace(self, obj: Any, changes: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """``dataclasses.replace(cfg, **changes)``: a new instance, built by the class from the
        object's fields and the changes (its ``__post_init__`` runs again), as Python makes it."""
        if is_unknownish(obj):
            raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(obj))}")
        cls = obj.cls if type(obj) is Inst else None
        if type(cls) is not ClassV or not cls.is_dataclass:
            raise _Raised(f"`{_text(node)}`: replace() takes a dataclass instance (TypeError)", ExtV("TypeError"))
        unknown = next((f for f in changes if f not in cls.field_set), None)
        if unknown is not None:
            raise _Raised(f"`{_text(node)}`: `{cls.name}` has no field `{unknown}` (TypeError)", ExtV("TypeError"))
        fixed = next((f for f in changes if f in cls.uninit_fields), None)
        if fixed is not None:
            raise _Raised(f"`{_text(node)}`: `{fixed}` is a field with init=False (ValueError)", ExtV("ValueError"))
        taken = [f for f in cls.fields if f not in cls.uninit_fields]  # replace() passes only what __init__ takes
        missing = next((f for f in taken if f not in changes and f not in obj.attrs), None)
        if missing is not None:
            raise Unresolved(f"`{_text(node)}`: the field `{missing}` of `{cls.name}` is not set")
        fields = {f: changes[f] if f in changes else obj.attrs[f] for f in taken}
        return self.call(cls, [], fields, node, env)

    def dataclass_values(self, obj: Any, as_dict: bool, node: ast.AST) -> Any:
        """``dataclasses.asdict(cfg)`` / ``astuple(cfg)``: the fields, dataclasses in them converted
        too, lists, tuples and dicts rebuilt, every other value deep-copied, as Python does."""
        if is_unknownish(obj):
            raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(obj))}")
        if type(obj) is not Inst or type(obj.cls) is not ClassV or not obj.cls.is_dataclass:
            what = "asdict" if as_dict else "astuple"
            raise _Raised(f"`{_text(node)}`: {what}() takes a dataclass instance (TypeError)", ExtV("TypeError"))
        return _dataclass_values(obj, as_dict, node)

    def read_environment(self, name: Any, node: ast.AST, env: Env | None, default: Any = None) -> Any:
        """``os.environ.get(name, default)`` and the like: the analysis takes every environment
        variable the code did not set itself as unset, so a count never depends on the shell it runs
        in; the variable is noted, unless a library's code read it at import (see Ctx.importing)."""
        if type(name) is not str:
            raise Unresolved(f"`{_text(node)}`: the environment variable's name is not known")
        if name in self.ctx.environ_set:
            return self.ctx.environ_set[name]  # the code's own value (RWKV's switches), not the shell's
        self.note_machine_read("variable", name, node, env)
        return default

    def note_machine_read(self, kind: str, name: str, node: ast.AST, env: Env | None,
                          module: ModuleScope | None = None) -> None:
        """What the analysis assumed of the machine (an environment variable unset, no GPU, torch's
        version), noted for the count's LC106, unless a library's code read it at import (see
        Ctx.importing): that configures the library, not the model."""
        scope = env.module if env is not None else module
        if self.ctx.importing and (scope is None or not scope.is_main):
            return
        if scope is None or not hasattr(node, "lineno"):
            self.ctx.environment.append((kind, name, "", None))
        else:
            self.ctx.environment.append((kind, name, scope.where(node.lineno),  # type: ignore[attr-defined]
                                         scope.span_of(node) if scope.is_main and scope.span_of else None))

    def numpy_array(self, fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``np.zeros((4, 8))``, ``np.arange(4)``, ``np.array(obs_shape)``: as torch's factories make
        them, but in numpy's default float64 (integers stay int64); None where the arguments are
        other than sizes and numbers (the call is then not followed)."""
        dtype_arg = kwargs.get("dtype")
        if type(dtype_arg) is BuiltinV and dtype_arg in (_BUILTINS["int"], _BUILTINS["float"], _BUILTINS["bool"]):
            # `dtype=int` names Python's type, which the code's `int` is here (CenterNet's DLAUp scales)
            dtype_arg = int if dtype_arg is _BUILTINS["int"] else float if dtype_arg is _BUILTINS["float"] else \
                ExtV("numpy.bool")
            kwargs = {**kwargs, "dtype": dtype_arg}
        numpy_dtype = dtype_arg.name.partition(".")[2] if type(dtype_arg) is ExtV and \
            dtype_arg.name.startswith("numpy.") else None
        if numpy_dtype is not None and numpy_dtype not in _NUMPY_DTYPES:
            return None
        if fn in ("eye", "identity"):  # np.eye(N, M=None, k=0): an N×M matrix whatever its diagonal
            names = ("N", "M", "k", "dtype") if fn == "eye" else ("n", "dtype")
            if len(args) > len(names) - 1 or set(kwargs) - set(names) or (dtype_arg not in (None, float, int) and
                                                                             numpy_dtype is None):
                return None
            given = dict(zip(names, args), **kwargs)
            n = given.get(names[0])
            m = given.get("M") if given.get("M") is not None else n
            if not all(type(x) is int or isinstance(x, Sym) for x in (n, m)):
                return None
            floating = dtype_arg in (None, float) or (numpy_dtype or "").startswith("float")
            return TensorV((n, m), floating=floating)
        if set(kwargs) - {"dtype"} or (dtype_arg not in (None, float, int) and numpy_dtype is None):
            return None
        if numpy_dtype is not None:  # np.zeros(4, dtype=np.float32): torch's dtype of that name
            kwargs = {"dtype": ExtV(f"torch.{numpy_dtype}")}
            return self.tensor_factory("tensor" if fn in ("array", "asarray") else fn, list(args), kwargs, node)
        numbers = args[0] if fn in ("array", "asarray") and len(args) == 1 else args
        flat = list(numbers) if isinstance(numbers, (list, tuple)) else [numbers]
        while any(isinstance(x, (list, tuple)) for x in flat):
            flat = [y for x in flat for y in (x if isinstance(x, (list, tuple)) else [x])]
        if not all(type(x) in (int, float, bool) for x in flat):
            if fn in ("array", "asarray") and len(args) == 1:
                # Rows some of which are arrays (`[... if p else np.zeros(d) for p in ...]`): stacked,
                # where every row has the same shape (numpy refuses a ragged one).
                shape = _nested_shape(args[0])
                if shape is not None:
                    return TensorV(shape, floating=True if kwargs.get("dtype") is float or numpy_dtype and
                                   numpy_dtype.startswith("float") else None)
            return None
        if fn == "full" and len(args) == 2 and type(args[1]) in (int, float) and kwargs.get("dtype") in (None, int, float) \
                and isinstance(args[0], (int, tuple, list)):
            # np.full((4,), 2): numpy's values, an int fill int64 unless a float is asked for (jasper's repeats)
            shape = (args[0],) if type(args[0]) is int else tuple(args[0])
            if len(shape) == 1 and type(shape[0]) is int and 0 <= shape[0] <= _VALUED_LIMIT:
                floating_fill = type(args[1]) is float or kwargs.get("dtype") is float
                fill = float(args[1]) if floating_fill else args[1]
                return TensorV(shape, (fill,) * shape[0], dtype="float64" if floating_fill else "int64")
        floating = fn in ("zeros", "ones", "empty", "full") or kwargs.get("dtype") is float or any(
            type(x) is float for x in flat)
        dtype = {"dtype": ExtV("torch.float64")} if floating and kwargs.get("dtype") is not int else {}
        torch_fn = "tensor" if fn in ("array", "asarray") else fn
        return self.tensor_factory(torch_fn, list(args), dtype, node)

    def mark_unfollowed(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        """What a function the analyser does not follow does to a module it is given is not known:
        that module's count is not either (unless the function is known to keep it)."""
        if name.startswith(_COUNT_KEEPING):
            return
        for v in (*args, *kwargs.values()):
            if type(v) is Inst and v.is_module and v.unfollowed is None:
                v.unfollowed = (f"`{_text(node)}` passes it to `{name}`, which is outside this file and "
                                f"torch.nn: the analyser does not follow what that does to the module's parts")

    def read_torch_version(self, node: ast.AST, env: Env) -> str:
        """``torch.__version__``: the torch whose layers the analyser knows (its table follows torch
        TORCH_VERSION), noted as a read of the machine is (`if torch.__version__ >= "1.5.0"`: Informer's
        padding)."""
        self.note_machine_read("torch", "torch.__version__", node, env)
        return TorchVersionText(TORCH_VERSION)

    def distribution_version(self, distribution: str, node: ast.AST, env: Env) -> str | None:
        """``importlib.metadata.version(name)``: torch's is the torch the analyser knows (transformers'
        `is_torch_greater_or_equal("2.8")`, behind TrainingArguments' default `optim`); another's is
        read from the metadata in the site-packages directories, where a library's probe asks it
        (transformers 5.25's `is_kernels_available()` checks that `kernels` is at least 0.10, after
        `find_spec` found it: it changes the layers it builds) or the file asks for a library it
        reads (noted, as a read of the machine). None where neither: not followed."""
        if distribution == "torch":
            return self.read_torch_version(node, env)
        library = not env.module.is_main and self.installed_package_file(env.module.path)
        if not library and distribution.partition(".")[0] not in self.ctx.read_packages:
            return None
        version = installed_distribution_version(distribution, self.ctx.site_packages)
        self.ctx.watched.update(self.ctx.site_packages)  # (their listings gave the answer)
        if version is not None and not library:
            self.note_machine_read("version", f"{distribution} {version}", node, env)
        return version

    def watch(self, path: str | None) -> str | None:
        """``path``, kept among the paths a kept result depends on (Ctx.watched)."""
        if path is not None:
            self.ctx.watched.add(path)
        return path

    def read_accelerator(self, name: str, node: ast.AST, env: Env | None) -> Any:
        """``torch.cuda.is_available()`` and the like: the analysis counts as on a machine without
        an accelerator (it builds on the meta device; `.cuda()` and `.to(device)` change no count),
        so a count never depends on where it runs; noted as environment variables are."""
        self.note_machine_read("accelerator", f"{name}()", node, env)
        return _NO_ACCELERATOR[name]

    def loaded_module(self, name: str) -> Any:
        """``sys.modules.get(name)``: a module this analysis read (the analysed file, a project file)
        under its import name; where it read none, whether Python would have one is not known."""
        scope = self.ctx.scope_named(name)
        if scope is not None:
            return ModV(name.rpartition(".")[2], scope.env.vars, path=scope.path)
        return Unknown(f"whether `sys.modules` has `{name}` (a module this analysis did not read) is not known")

    def module_source(self, mod: ModV, node: ast.AST) -> str:
        """``inspect.getsource(module)``: the text of the analysed file (as the editor has it) or of
        a project file (as it is on disk)."""
        scope = next((s for s in self.ctx.scopes if s.path == mod.path), None)
        if scope is not None and scope.text is not None:
            return scope.text
        self.ctx.disk_reads += 1
        try:
            if os.path.getsize(mod.path) <= _MAX_SOURCE_BYTES:
                with open(mod.path, encoding="utf-8", errors="replace") as fh:
                    return fh.read()
        except (OSError, ValueError):
            pass
        raise Unresolved(f"`{_text(node)}`: the source of `{mod.name}` cannot be read")

    def map_filter(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> list[Any]:
        """``map(fn, *iterables)`` and ``filter(fn, iterable)``, calling ``fn`` as the code would
        (``dims = [dim, *map(lambda m: dim * m, dim_mults)]``); a list, which every use the
        analyser follows (unpacking, ``list()``, a loop) takes as it would the iterator."""
        if kwargs or len(args) < 2 or (name == "filter" and len(args) != 2):
            raise Unresolved(f"`{_text(node)}`: {name} takes a function and {'an iterable' if name == 'filter' else 'iterables'}")
        fn, columns = args[0], [a if type(a) is IteratorV else iter(a) if type(a) is list else self.iterate(a, node)
                                for a in args[1:]]
        # Lazy, as Python's: `fn` runs as the items are taken (the names it reads have their values then).
        if name == "map":
            return self.lazy_iterator(self.call(fn, list(xs), {}, node, env) for xs in zip(*columns))
        return self.lazy_iterator(x for x in columns[0] if self.kept(fn, x, node, env))

    def scalar_builtin(self, name: str, items: list[Any], rest: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``sum``, ``min``, ``max`` and ``sorted`` of items among which are tensors (a numpy array's
        or a 1-d tensor's 0-d ones): added as `+` adds them (numpy's scalar is what comes back), and
        compared by their values, where the analyser knows them."""
        if name == "sum":
            total = rest[0] if rest else kwargs.get("start", 0)
            for x in items:
                total = self.tensor_binop(ast.Add, total, x, node) if type(total) in _TENSORS or type(x) in _TENSORS \
                    else _sum([x], total)
            return total
        values = []
        for x in items:
            if type(x) in _TENSORS and (x.shape != () or x.values is None):
                why = "a tensor of more than one value" if x.shape != () else "a tensor whose value it does not compute"
                raise Unresolved(f"`{_text(node)}` compares {why}")
            value = _exact_values(x, node)[0] if type(x) in _TENSORS else x
            if is_unknownish(value):
                raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(value))}")
            values.append(value)
        if not items:
            raise _Raised(f"`{_text(node)}` raises ValueError: {name}() of an empty sequence", ExtV("ValueError"))
        order = sorted(range(len(items)), key=values.__getitem__, reverse=bool(kwargs.get("reverse", False)))
        if name == "sorted":
            return [items[i] for i in order]
        # Python's min and max give the first of equal items.
        pick = (min if name == "min" else max)(range(len(items)), key=values.__getitem__)
        return items[pick]

    def counting(self, start: Any, step: Any) -> Iterator[Any]:
        """itertools.count's numbers, endless: each one a step of the analysis, so that a loop or a
        list that never stops taking them ends with the step budget, not a hang."""
        ctx, value = self.ctx, start
        while True:
            ctx.steps += 1
            if ctx.steps > MAX_STEPS:
                ctx.tick()
            yield value
            value += step

    def kept(self, fn: Any, x: Any, node: ast.AST, env: Env) -> bool:
        """Whether ``filter(fn, ...)`` keeps the item ``x``."""
        keep = x if fn is None else self.call(fn, [x], {}, node, env)
        if is_unknownish(keep):
            raise Unresolved(f"`{_text(node)}`: whether to keep an item depends on {_clause(why_of(keep))}")
        return self.truthy(keep, node)

    def module_apply(self, module: Inst, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Inst:
        """``module.apply(fn)`` as torch runs it: ``fn`` on each child's subtree first (each child
        once, as ``children()`` yields them), then on the module itself; the module is returned.
        A function that freezes, replaces or drops parameters changes the count."""
        if len(args) + len(kwargs) != 1 or set(kwargs) - {"fn"}:
            raise _Raised(f"`{_text(node)}`: apply() takes one function (TypeError)", ExtV("TypeError"))
        fn = args[0] if args else kwargs["fn"]
        if _count_neutral(fn):
            return module  # an initialiser (nanoGPT's `self.apply(self._init_weights)`): only values change
        # Post-order without recursion (a nested function calling itself would be a reference cycle),
        # each module's children walked live, as torch's `for module in self.children()` walks them:
        # a function that adds a module to one whose children are being walked raises at the next.
        stack: list[tuple[Inst, Iterator[tuple[str, Inst]]]] = [(module, _walk_children(module))]
        while stack:
            m, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                self.call(fn, [m], {}, node, env)
                continue
            if len(stack) > MAX_APPLY_DEPTH:
                raise Unresolved(f"`{_text(node)}`: modules nested more than {MAX_APPLY_DEPTH} deep (one holds itself?)")
            stack.append((child[1], _walk_children(child[1])))
        return module

    def attribute_builtin(self, name: str, args: list[Any], node: ast.AST) -> Any:
        """getattr, hasattr and setattr on an instance of a class of the project: as the attribute
        written out would be (properties, bound methods, the class's own __getattribute__ /
        __setattr__)."""
        obj, key = args[0], args[1] if len(args) > 1 else None
        if name == "len":  # a class's own __len__, a Mapping's, a dict subclass's items, else the attributes
            return self.call(self.inst_attr(obj, "__len__", node), [], {}, node, self.ctx.call_env()) if (
                _own_method(obj.cls, "__len__") or _extends_mapping(obj.cls) or _DICT_ITEMS in obj.attrs) else _len(obj)
        if not isinstance(key, str):
            raise Unresolved(f"`{_text(node)}`: the attribute name is not a known string")
        if name == "setattr":
            if len(args) != 3:
                raise Unresolved(f"`{_text(node)}`: setattr takes three arguments")
            self.set_attr(obj, key, args[2], node)
            return None
        if name == "delattr":
            return _delattr(obj, key, _text(node))
        self.ctx.probing_attributes += 1
        try:
            value = self.inst_attr(obj, key, node)
        except (_NoAttribute, _Raised) as exc:
            # Not found, or an AttributeError raised for it (nn.Module.__getattr__ reached through a
            # module's own __getattr__): Python's hasattr and getattr with a default catch both.
            if type(exc) is _Raised and not (type(exc.kind) is ExtV and exc.kind.name == "AttributeError"):
                raise
            unknown = _hasattr(obj.cls, key) if type(exc) is _NoAttribute and type(obj.cls) is ClassV else None
            if is_unknownish(unknown):  # a base outside the file the analyser does not know may define it
                return unknown if name == "hasattr" else Unknown(f"`{_text(node)}`: {unknown.why}")
            if name == "hasattr":
                # What the Python type it derives from has (`__len__` of a NamedTuple).
                return type(exc) is _NoAttribute and any(hasattr(base, key) for base in _builtin_bases(obj.cls))
            if len(args) > 2:
                return args[2]
            if type(exc) is _Raised or self.ctx.probing_attributes > 1:
                raise  # the AttributeError as raised; inside another probe (a __getattr__ handing the name on), absent there too
            raise Unresolved(f"`{_text(node)}`: `{key}` is not set")
        finally:
            self.ctx.probing_attributes -= 1
        return True if name == "hasattr" else value

    def call_function(self, fn: FuncV, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
                      bound: dict[str, Any] | None = None, yield_hook: Callable[[Any], None] | None = None) -> Any:
        """``bound``: the arguments already bound to the parameters (by the caller, which needed them).
        ``yield_hook``: for a generator function, what each `yield` does (with_stmt's context manager);
        without one, the call returns the values it yields."""
        if fn.name == "auto_class_update" and args and _known_hook(fn) == "auto_class_update":
            return args[0]  # see _KNOWN_HOOKS
        if fn.name == "is_torch_available" and not args and not kwargs and _known_hook(fn) == "is_torch_available":
            # transformers asks whether torch >= 2.6 is installed: the models the analysis counts are
            # torch's, built by the torch whose layers it knows, so yes, on every machine.
            return True
        if fn.name in _WEIGHT_LOADERS and fn.env is not None and fn.env.module.path.endswith(_WEIGHT_LOADERS[fn.name]):
            # timm's `create_model(..., pretrained=True)`: the checkpoint's weights into the model built
            # (adapted to it: classifier, input channels), which changes no size; and never a download.
            return None
        if fn.decorators is not None:
            decorated = self.decorated_method(fn)
            if decorated is not _UNDECORATED:
                return self.call(decorated, args, kwargs, node, fn.env)
        if fn.memo is not None:
            key = _plain_key(args, kwargs)
            log = self.ctx.failed_imports
            if key is not None and key in fn.memo:
                result, assumed = fn.memo[key]
                if assumed:  # what the first call assumed (an optional import failed), this one assumes too
                    log.extend(assumed)
                    if not (self.ctx.importing and not fn.env.module.is_main):
                        self.ctx.environment.extend(assumed)  # said now, though the first ran in a library's import
                return result
            start = len(log)
            result = self._call_function(fn, args, kwargs, node, bound, yield_hook)
            if key is not None:
                fn.memo[key] = (result, tuple(log[start:]))
            return result
        return self._call_function(fn, args, kwargs, node, bound, yield_hook)

    def _call_function(self, fn: FuncV, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
                       bound: dict[str, Any] | None, yield_hook: Callable[[Any], None] | None) -> Any:
        if not self.ctx.in_package and self.package_code(fn.env.module):
            entered = self.ctx.enter_package()
            try:
                return self._call_function(fn, args, kwargs, node, bound, yield_hook)
            finally:
                self.ctx.leave_package(entered)
        self.ctx.depth += 1
        local = None
        declared: tuple[tuple[str, bool], ...] = ()  # found before the body runs, written back after it
        try:
            if self.ctx.depth > MAX_CALL_DEPTH:
                raise _TooDeep(f"calls nest deeper than {MAX_CALL_DEPTH} (recursion in `{fn.name}`?)")
            local = Env(fn.env.module, fn.env)
            self.ctx.frames.append(local)  # (popped below whatever happens once `local` is set)
            local.vars = self.bind_args(fn, args, kwargs, node) if bound is None else dict(bound)
            # A project or package file's body is parsed at its first call: before its `global` names are read.
            body = fn.node.body if getattr(fn.node, "deferred", None) is None else self.deferred_body(fn)
            declared = self.ctx.declared.get(id(fn.node))
            if declared is None:
                declared = self.ctx.declared[id(fn.node)] = _declared_names(fn.node) if fn.env.module.may_declare else ()
            if declared and any(is_global for _, is_global in declared):
                # `global BatchNorm; BatchNorm = nn.InstanceNorm2d`, then a block built in the same call
                # reads the module's name: written through at once (hszhao's semseg).
                local.vars = _GlobalWrites(self, fn.env.module.env.vars,
                                           frozenset(name for name, is_global in declared if is_global), local.vars)
            if fn.owner is not None and args:
                local.vars["__class__"], local.vars["__self__"] = fn.owner, args[0]
            if type(fn.node) is ast.Lambda:
                return self.ev(fn.node.body, local)
            if fn.env.module.may_yield and _is_generator(fn.node, body):
                if yield_hook is not None:
                    self.run_generator(body, local, yield_hook)
                    return None
                if not declared and _lazy_body(fn.node, body):
                    # Python runs a generator's body as its items are taken: `next(it)` runs it to its
                    # next yield (StyleGAN2-ADA's endless `trainable_gen`), and what the code did in
                    # between is seen by the body.
                    return self.lazy_iterator(self.lazy_generator(fn, body, local))
                collected: list[Any] = []  # called: its values, from running it to its end
                self.run_generator(body, local, collected.append)
                return IteratorV(collected)
            try:
                for stmt in body:
                    if type(stmt) is _Return_stmt:  # a return in the body itself: no exception to unwind
                        ctx = self.ctx
                        ctx.steps += 1  # counted as exec_stmt counts it
                        if ctx.steps > MAX_STEPS:
                            ctx.tick()
                        return None if stmt.value is None else self.ev(stmt.value, local)
                    self.exec_stmt(stmt, local)
            except _Return as r:
                return r.value
            return None
        except (_Break, _Continue) as exc:
            raise _outside_loop(exc, fn)
        finally:
            self.ctx.depth -= 1
            if local is not None:
                self.ctx.frames.pop()
                if declared:
                    self.write_declared(declared, local, fn.env)

    def state_written(self, changed: bool) -> None:
        """A write to state that outlives a call (a global, a class attribute, what they hold): the
        build making it is not kept for reuse (Ctx.state_writes); ``changed``, a value a build may
        have read is another now, and no build kept before is reused (Ctx.state_version)."""
        self.ctx.state_writes += 1
        if changed:
            self.ctx.state_version += 1

    def state_item_written(self, container: list[Any] | dict[Any, Any], key: Any, value: Any) -> None:
        """``container[key] = value`` about to be done: where the container is state (`TABLE[name] =
        layer`), a later build reads it."""
        if id(container) in self.ctx.state_containers:
            self.state_written(type(container) is not dict or _rebinds(
                container.get(key, _MISSING) if _hashable(key) else _MISSING, value))
            self.ctx.logged_change(container)

    def write_declared(self, declared: tuple[tuple[str, bool], ...], local: Env, outer: Env) -> None:
        """A call's writes to the names its function declares ``nonlocal``, made where they live once it
        returns (until then, reads in the call see its own writes). Its ``global`` names are written
        through at once (_GlobalWrites): none is among its locals."""
        for name, is_global in declared:
            if is_global or name not in local.vars:
                continue
            value = local.vars.pop(name)
            env: Env | None = outer
            while env is not None and name not in env.vars:
                env = env.parent
            (env or outer).vars[name] = value

    def fold(self, reduce: bool, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """``functools.reduce(fn, items[, initial])`` and ``itertools.accumulate(items[, fn], initial=)``:
        the code's function (or operator's) applied left to right, as Python does."""
        if reduce:
            if not 2 <= len(args) <= 3 or kwargs:
                raise Unresolved(f"`{_text(node)}`: reduce takes a function, the items and an initial value")
            fn, items, start = args[0], self.iterate(args[1], node), args[2:]
        else:
            if not 1 <= len(args) <= 2 or set(kwargs) - {"func", "initial"}:
                raise Unresolved(f"`{_text(node)}`: the analyser follows accumulate(items, func, initial=)")
            items = self.iterate(args[0], node)
            fn = args[1] if len(args) > 1 else kwargs.get("func")
            start = [kwargs["initial"]] if kwargs.get("initial") is not None else []
        values = start + items
        if not values:
            if reduce:
                raise _Raised(f"`{_text(node)}`: reduce() of an empty sequence with no initial value (TypeError)",
                              ExtV("TypeError"))
            return IteratorV([])
        total, out = values[0], [values[0]]
        for item in values[1:]:
            total = self.binop(ast.Add, total, item, node) if fn is None else self.call(fn, [total, item], {}, node, env)
            out.append(total)
        return total if reduce else IteratorV(out)

    def lazy_generator(self, fn: FuncV, body: list[ast.stmt], local: Env) -> Iterator[Any]:
        """A generator function's body (of the shapes _lazy_body allows), run as it is consumed."""
        try:
            yield from self.lazy_block(body, local)
        except _Return as r:
            return r.value  # StopIteration's value: what `v = yield from gen()` gets
        except (_Break, _Continue) as exc:
            raise _outside_loop(exc, fn)

    def lazy_block(self, body: list[ast.stmt], env: Env) -> Iterator[Any]:
        """Statements of a lazy generator: those with no `yield` run as exec_stmt runs them; a yield
        statement gives its value to the consumer and resumes when the next is asked for; loops and
        branches around yields run here, so that they can stop between items."""
        ctx = self.ctx
        for s in body:
            if not _yields_in(s):
                self.exec_stmt(s, env)
                continue
            ctx.steps += 1
            if ctx.steps > MAX_STEPS:
                ctx.tick()
            t = type(s)
            if t is ast.Expr or t is ast.Assign:
                e = s.value  # type: ignore[attr-defined]
                sent = None  # what next() sends
                if type(e) is ast.Yield:
                    yield None if e.value is None else self.ev(e.value, env)
                else:  # `yield from`: a lazy generator's return value is the statement's value
                    source = self.ev(e.value, env)
                    if type(source) is IteratorV and source.source is not None:
                        sent = yield from source.source
                    else:
                        yield from source if type(source) is IteratorV else self.iterate(source, e.value)
                for target in getattr(s, "targets", ()):
                    self.assign(target, sent, env)
            elif t is ast.If:
                yield from self.lazy_block(self.branch(s.test, s.body, s.orelse, env), env)  # type: ignore[attr-defined]
            elif t is ast.For:
                # (running while its items are taken, not across its yields: the consumer's loops run there)
                ctx.running_loops.append((s, env))  # type: ignore[arg-type]
                try:
                    items = self.ev(s.iter, env)  # type: ignore[attr-defined]
                    if type(items) is not IteratorV:
                        items = self.iterate(items, s.iter)  # type: ignore[attr-defined]
                finally:
                    ctx.running_loops.pop()
                for item in items:
                    ctx.tick()
                    self.assign(s.target, item, env)  # type: ignore[attr-defined]
                    if (yield from self.lazy_pass(s.body, env)):  # type: ignore[attr-defined]
                        break
                else:
                    yield from self.lazy_block(s.orelse, env)  # type: ignore[attr-defined]
            else:  # while
                n = 0
                while _loop_condition(self.ev(s.test, env), s.test):  # type: ignore[attr-defined]
                    n += 1
                    if n > MAX_ITERATIONS:
                        raise Unresolved(f"the while loop on {env.module.where(s.lineno)} runs more than "
                                         f"{MAX_ITERATIONS:,} times")
                    if (yield from self.lazy_pass(s.body, env)):  # type: ignore[attr-defined]
                        break
                else:
                    yield from self.lazy_block(s.orelse, env)  # type: ignore[attr-defined]

    def lazy_pass(self, body: list[ast.stmt], env: Env) -> Generator[Any, None, bool]:
        """One pass of a lazy generator's loop body: True where it ends with `break`."""
        try:
            yield from self.lazy_block(body, env)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def run_generator(self, body: list[ast.stmt], local: Env, hook: Callable[[Any], None]) -> None:
        """A generator function's body, run to its end at once, each `yield` handed to ``hook``.
        A model is built before anything consumes it lazily, so running it eagerly orders nothing
        differently; an endless generator is stopped by the step budget."""
        self.ctx.yield_hooks.append(hook)
        try:
            for stmt in body:
                self.exec_stmt(stmt, local)
        except _Return:
            pass  # StopIteration's value: no consumer here reads it
        finally:
            self.ctx.yield_hooks.pop()

    def with_stmt(self, items: list[ast.withitem], body: list[ast.stmt], env: Env) -> None:
        """``with a() as x, b(): ...``. A generator function made a context manager
        (``@contextlib.contextmanager``: transformers' ``apply_patches`` around ``_from_config``)
        runs with the body of the `with` at its `yield`, as Python runs it: the code before the
        yield enters, the code after it exits, and an exception of the body reaches the generator
        there. Any other context manager is its value, entered and left without effect."""
        if not items:
            self.exec_block(body, env)
            return
        item, rest = items[0], items[1:]
        call = item.context_expr
        fn = self.ev(call.func, env) if type(call) is _Call else None  # type: ignore[attr-defined]
        if type(fn) is FuncV and _is_context_manager(fn.node):
            args, kwargs = self.call_arguments(call, env)  # type: ignore[arg-type]
            entered: list[bool] = []
            leaving: list[BaseException] = []

            def enter(value: Any) -> None:
                if entered:
                    raise _Raised(f"`{_text(call)}`: the generator didn't stop (RuntimeError)", ExtV("RuntimeError"))
                entered.append(True)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, env)
                try:
                    self.with_stmt(rest, body, env)
                except (_Return, _Break, _Continue) as flow:
                    leaving.append(flow)  # the with is left normally; the generator's exit code runs

            self.call_function(fn, args, kwargs, call, yield_hook=enter)
            if not entered:
                raise _Raised(f"`{_text(call)}`: the generator didn't yield (RuntimeError)", ExtV("RuntimeError"))
            if leaving:
                raise leaving[0]
            return
        if type(fn) is ExtV and fn.name == "contextlib.suppress" and type(call) is _Call:
            # `with contextlib.suppress(KeyError):` the body runs until one of those is raised, which ends it.
            suppressed = self.call_arguments(call, env)[0]  # type: ignore[arg-type]
            try:
                self.with_stmt(rest, body, env)
            except _Raised as raised:
                if not any(_exception_matches(raised.kind, kind) for kind in suppressed):
                    raise
            return
        value = self.ev(call, env) if fn is None else self.call(fn, *self.call_arguments(call, env), call, env)  # type: ignore[arg-type]
        hooks = _context_hooks(value)
        if hooks is not None:  # an object of the code's class: its __enter__ and __exit__ run around the body
            enter, exit_ = hooks
            entered = self.call_function(enter, [value], {}, call)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, entered, env)
            try:
                self.with_stmt(rest, body, env)
            except _Raised as raised:
                # the exception reaches __exit__ (its type only: the analyser has no exception object);
                # a true result swallows it, as Python's with does
                if not self.truthy(self.call_function(exit_, [value, raised.kind, Unknown("the exception"), None], {},
                                                      call), call):
                    raise
                return
            except (_Return, _Break, _Continue):
                self.call_function(exit_, [value, None, None, None], {}, call)
                raise
            self.call_function(exit_, [value, None, None, None], {}, call)
            return
        if item.optional_vars is not None:
            self.assign(item.optional_vars, value, env)
        self.with_stmt(rest, body, env)

    def deferred_body(self, fn: FuncV) -> list[ast.stmt]:
        """The body of a project file's function, parsed on its first call (loader.body_of)."""
        from lsp_count.pymodel.loader import body_of

        try:
            return body_of(fn.node)
        except (SyntaxError, ValueError) as exc:
            raise Unresolved(f"`{fn.name}` does not parse: {getattr(exc, 'msg', None) or exc} "
                             f"({fn.env.module.where(getattr(exc, 'lineno', None) or fn.node.lineno)})")

    def bind_args(self, fn: FuncV, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> dict[str, Any]:
        sig = fn.signature
        names = sig.names
        out: dict[str, Any] = dict(zip(names, args))
        if not kwargs and len(args) == len(names) and sig.plain:
            return out  # the usual call: every parameter passed by position, nothing else to bind
        if len(args) > len(names):
            if sig.vararg is None:
                raise Unresolved(f"`{_text(node)}` passes {len(args)} positional arguments to `{fn.name}`, "
                                 f"which takes {len(names)}")
        if sig.vararg is not None:
            out[sig.vararg] = tuple(args[len(names):])
        rest: dict[str, Any] = {}
        for k, v in kwargs.items():
            if (k in names and k not in sig.posonly) or k in sig.kw_names:
                if k in out:
                    raise Unresolved(f"`{_text(node)}` passes `{k}` twice")
                out[k] = v
            elif sig.kwarg is not None:
                rest[k] = v
            else:
                raise Unresolved(f"`{_text(node)}`: `{fn.name}` has no argument `{k}`")
        first_default = sig.first_default
        for i, name in enumerate(names):
            if name not in out:
                if i >= first_default:
                    out[name] = fn.defaults[i - first_default]
                else:
                    raise Unresolved(f"`{_text(node)}` does not pass `{name}`, which `{fn.name}` needs")
        for name, default in zip(sig.kw_names, fn.kw_defaults):
            if name not in out:
                if name in sig.kw_required:
                    raise Unresolved(f"`{_text(node)}` does not pass `{name}`, which `{fn.name}` needs")
                out[name] = default
        if sig.kwarg is not None:
            out[sig.kwarg] = rest
        return out

    def instantiate(self, cls: ClassV, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env,
                    snapshot: bool = True) -> Any:
        """``snapshot=False``: the caller never changes the module it gets back (the analyser's own
        top-level build of a class), so the cache may keep that very object instead of a copy."""
        if cls.creation_unresolved:
            raise Unresolved(cls.creation_unresolved)
        if cls.name == "HfArgumentParser" and _path_ends(cls.path, "/transformers/hf_argparser.py"):
            return self.call(self.shim_class("transformers.HfArgumentParser"), args, kwargs, node, env)
        if cls.new_method is not None and (made := self.built_by_new(cls, args, kwargs, node, env)) is not _MISSING:
            return made
        if cls.enum_members is not None:
            return _enum_member(cls, args, kwargs, node)
        if any(type(b) is ExtV and b.name in ("typing.TypedDict", "typing_extensions.TypedDict") for b in _outside_bases(cls)):
            return self.dict_items(args, kwargs, node)  # asteroid's PCEN config: a TypedDict makes a plain dict
        stack = self.ctx.class_stack
        if stack.count(cls.name) >= 8 or len(stack) > 32:
            start = stack.index(cls.name) if cls.name in stack else 0
            chain = " → ".join(stack[start:start + 4] + [cls.name])
            raise _TooDeep(f"classes build each other without end ({chain} → …)")
        try:
            init = cls.lookup("__init__")
        except KeyError:
            init = None
        if type(init) is Unknown:  # `def __init__(self, order=sorted(...))` whose default was not followed
            raise Unresolved(f"`{cls.name}.__init__` cannot be followed: {init.why}")
        bound = None
        dataclass_init = cls.dataclass_init
        if isinstance(init, FuncV) and not isinstance(init.node, ast.Lambda) and dataclass_init is None:
            bound = self.bind_args(init, [None] + args, kwargs, node)
        pins: list[Any] = []  # what the key names by id, kept with its entries
        key = _build_key(cls, init, bound, args, kwargs, pins) if cls.is_module and dataclass_init is None else None
        cached = self.ctx.built.get(key) if key is not None else None
        if cached is not None and cached[1] == self.ctx.state_version:
            # Twelve identical blocks are built once and copied: the copies are new objects,
            # as twelve constructor calls would make, so ties and freezing stay per copy.
            # The copy is built here: this call is its origin and its hint anchor.
            try:
                copy = clone(cached[0], since=cached[2])
            except _Uncloneable:
                del self.ctx.built[key]  # built again, below
            else:
                copy.origin = env.module.span_of(node) if env.module.span_of else None
                self.record_hint(copy, node, env)
                self.ctx.environment.extend(cached[3])  # the class that reuses it is counted with the same assumptions
                return copy
        self.raise_if_failed(key)
        given = dict(bound) if key is not None and bound is not None else bound  # the call's own names may be rebound
        stack.append(cls.name)
        inst = None
        holders = len(self.ctx.cycle_holders)
        writes = self.ctx.state_writes
        assumed = len(self.ctx.failed_imports)
        read = len(self.ctx.environment)
        since = next_serial()
        started = self.ctx.steps
        try:
            if dataclass_init is not None and not cls.is_module:
                made = self.make_dataclass(cls, args, kwargs, node, dataclass_init)
                self.strict_validate(cls, made, node)
                return made
            inst = Inst(cls, "module" if cls.is_module else "object", cls.is_module,
                        env.module.span_of(node) if env.module.span_of else None)
            self.ctx.building.add(id(inst))
            if dataclass_init is not None:  # `@dataclass class Net(nn.Module)`: its fields, then __post_init__
                self.dataclass_init(inst, args, kwargs, node, dataclass_init)
            elif bound is not None:
                if init.signature.names:
                    bound[init.signature.names[0]] = inst  # self
                if cls.is_module and _only_module_bases(cls):
                    inst.buffers = _BEFORE_MODULE_INIT  # until its constructor reaches nn.Module.__init__
                _init_returned(self.call_function(init, [inst] + args, kwargs, node, bound), node)
            elif isinstance(init, FuncV):
                _init_returned(self.call_function(init, [inst] + args, kwargs, node), node)
            elif type(init) is PartialMethodV:  # `__init__ = partialmethod(Base.__init__, starting=True)`
                self.call(init.func, [inst, *init.args, *args], {**dict(init.kwargs), **kwargs}, node, env)
            elif cls.is_module and (layer := _torch_layer_base(cls)) is not None:
                self.init_layer(inst, cls.name, layer, args, kwargs)  # `class Norm(nn.LayerNorm)` with no __init__
            elif cls.is_module and (container := _torch_container_base(cls)) is not None:
                self.init_container(inst, container, args, kwargs, node)  # `class Stages(nn.Sequential)` with no __init__
            elif not cls.is_module and _extends_dict(cls):
                inst.attrs[_DICT_ITEMS] = self.dict_items(args, kwargs, node)  # `class Table(OrderedDict)`
            elif args or kwargs:
                # `Widths([4, 8])` of `class Widths(list)`: what the outside base makes of the arguments.
                ext = [b for b in _outside_bases(cls) if type(b) in (ExtV, BuiltinV) and not _is_module_base(b)
                       and not _is_object(b)]
                if ext:
                    return Unknown(f"`{cls.name}` extends `{ext[0].name}`, which the analyser does not follow",
                                   maybe_module=cls.is_module or foreign_base(cls) is not None)
                if cls.is_module and _only_module_bases(cls):
                    # Wayformer's placeholder `class EarlyFusion(nn.Module): pass` built with arguments.
                    raise _module_init_error(node, args, kwargs, f"`{cls.name}` has no __init__ of its own, and ")
            if not cls.is_module:
                self.strict_validate(cls, inst, node)
            if cls.is_module:
                self.record_hint(inst, node, env)
                # Not a build that changed a global or a class attribute (a layer counter: the next
                # build differs), nor one that holds itself (its copies would hold cycles no one breaks).
                # Nor one that changed its arguments (`cfg.depth += 1`): a copy would not change the next
                # call's, and what they hold is the key.
                if key is not None and len(self.ctx.cycle_holders) == holders and self.ctx.state_writes == writes \
                        and _build_key(cls, init, given, args, kwargs, []) == key:
                    try:
                        self.ctx.built[key] = (clone(inst, since=since) if snapshot else inst, self.ctx.state_version,
                                               since, tuple(self.ctx.environment[read:]), pins)
                    except _Uncloneable:
                        pass  # built again at its next call
            return inst
        except Unresolved as exc:
            self.keep_failure(key, exc, started, pins, self.ctx.failed_imports[assumed:])
            raise
        finally:
            stack.pop()
            if inst is not None:
                self.ctx.building.discard(id(inst))

    def record_autocast(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        """``torch.autocast(device_type="cuda", dtype=torch.bfloat16)``: the dtype it computes in, kept
        for a training loop's precision (torch's default for the device where none is given: float16
        on CUDA, bfloat16 on the CPU); nothing where it is turned off (``enabled=False``), "" where
        the dtype or the switch is not known."""
        positional, device = _AUTOCASTS[name]
        given = {**dict(zip(positional, args)), **kwargs}
        enabled = given.get("enabled", True)
        if enabled is False:
            return
        device = given.get("device_type", device)
        dtype = given.get("dtype")
        if dtype is None:
            dtype = _AUTOCAST_DTYPES.get(device, "") if type(device) is str else ""
        else:
            dtype = dtype_name(dtype.name) or "" if type(dtype) is ExtV else ""
        self.ctx.autocasts.append(dtype if enabled is True else "")

    def record_optimizer(self, name: str, kind: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        """``torch.optim.AdamW(model.parameters(), lr=...)``: the parameters it is given (an iterator
        of them, a list, param groups' ``params``) kept with the optimizer's kind, for the memory of
        the model they are of (a training loop of the script's own). Parameters the analyser cannot
        list leave nothing kept."""
        given = args[0] if args else kwargs.get("params")
        found: list[Param] = []
        pending = [given]
        while pending:
            v = pending.pop()
            if type(v) is Param:
                found.append(v)
            elif type(v) is dict:
                pending.append(v.get("params"))
            elif type(v) in (list, tuple) or type(v) is IteratorV:
                try:
                    pending.extend(self.iterate(v, node))
                except Unresolved:
                    return
            elif v is not None:
                return  # (an Unknown, a generator the analyser did not follow: not known which)
        if found:
            self.ctx.optimizers.append((frozenset(id(p) for p in found), kind, name))

    def strict_validate(self, cls: ClassV, obj: Any, node: ast.AST) -> None:
        """huggingface_hub's ``@strict`` (transformers' configs): the ``__init__`` it wraps runs the
        decorated class's validators once the fields are set: its methods named ``validate_*``, in
        name order (``dir``'s), each as the decorated class has it; a ValueError or TypeError from
        one is a StrictDataclassClassValidationError (``LlamaConfig(hidden_size=32,
        num_attention_heads=3)``: "The hidden size (32) is not a multiple of ..."). Only where that
        wrapped ``__init__`` is the one that runs: a subclass with an ``__init__`` of its own (one
        transformers' ``__init_subclass__`` makes) is not validated, as in Python."""
        owner = _init_owner(cls)
        if owner is None or not owner.strict_validated or type(obj) is not Inst:
            return
        # Each field as its __setattr__ checks it when __init__ sets it, in the fields' order (only a
        # value and an annotation of the simple kinds: int, float, bool, str, None and their unions).
        annotations: dict[str, Any] = {}
        for c in reversed(owner.mro()):
            if type(c) is ClassV and c.is_dataclass and c.env is not None and not c.env.module.string_annotations:
                annotations.update((n, a) for n, a in self.class_annotations(c).items() if n in c.fields)
        for name, annotation in annotations.items():
            problem = _field_type_error(name, obj.attrs.get(name, _MISSING), annotation)
            if problem:
                raise _Raised(f"`{_text(node)}` raises StrictDataclassFieldValidationError: Validation error for field "
                              f"'{name}': TypeError: {problem}",
                              ExtV("huggingface_hub.errors.StrictDataclassFieldValidationError"))
        names = sorted({n for c in owner.mro() if type(c) is ClassV for n in c.namespace if n.startswith("validate_")})
        for name in names:
            method = owner.find(name, None)
            if type(method) is not FuncV or method.kind:  # (a property or a static method is not called)
                continue
            try:
                self.call_function(method, [obj], {}, node)
            except _Raised as exc:
                if not any(_exception_matches(exc.kind, ExtV(error)) for error in ("ValueError", "TypeError")):
                    raise
                raise _Raised(f"`{_text(node)}` raises StrictDataclassClassValidationError: Class validation error "
                              f"for validator '{name}': {exc.reason}",
                              ExtV("huggingface_hub.errors.StrictDataclassClassValidationError")) from None

    def built_by_new(self, cls: ClassV, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """``Cls(...)`` of a class whose ``__new__`` (a def of the code) returns an object of
        another class, which Python then gives back without running ``Cls.__init__``: a factory that
        picks a class by its arguments (xlstm's `sLSTMCell.__new__` returns the cell of the backend
        its config names). A ``__new__`` that makes an instance of the class itself (a singleton, a
        cache) or changes a global or class attribute is not followed: a module class is LC101 then, a
        plain class's object may be a module (muzero-general's MuZeroNetwork). For a plain class, an
        object of the class itself is _MISSING: its __init__ builds it, as before."""
        owner = next(c for c in cls.mro() if "__new__" in c.namespace)
        not_followed = f"building a `{cls.name}` runs `{owner.name}.__new__`, which the analyser does not follow"

        def refused(reason: str) -> Unknown:
            if cls.is_module:
                raise Unresolved(f"{not_followed}: {reason}")
            return Unknown(f"{not_followed}: {reason}", maybe_module=True)
        writes = self.ctx.state_writes
        try:
            made = self.call_function(cls.new_method, [cls, *args], kwargs, node)
        except (_Raised, _OutOfSteps, _TooDeep):
            raise  # the code's own exception (an unknown backend), or the analysis out of budget
        except Unresolved as exc:
            return refused(exc.reason)
        if self.ctx.state_writes != writes:
            return refused("it changes a global or a class attribute")
        if type(made) is Inst and type(made.cls) is ClassV and cls in made.cls.mro():
            if not cls.is_module and cls.dataclass_init is not None and _is_named_tuple(cls.dataclass_init) and \
                    "__init__" not in cls.namespace:
                return made  # DeepCTR's SparseFeat: its __new__ makes the tuple (tuple's __init__ does nothing)
            if not cls.is_module:
                return _MISSING
            return refused(f"it makes a `{cls.name}` itself")
        if is_unknownish(made):
            raise Unresolved(f"{not_followed}: what it returns is {why_of(made)}")
        return made

    def raise_if_failed(self, key: Any) -> None:
        """The failure of an earlier build with the same key, raised again: the same code with the
        same arguments fails the same way (the step budget: only from as many steps spent or more).
        transformers' model classes each build the same failing parts (an `AutoModel`, a table
        too long to follow)."""
        failed = self.ctx.failed.get(key) if key is not None else None
        if failed is not None:
            kind, reason, span, raised, started, assumed, version, _ = failed
            if version != self.ctx.state_version:  # a class attribute or global it may have read changed since
                return
            self.ctx.failed_imports.extend(assumed)  # what the first failure assumed, this one assumes too
            if kind is _Raised:
                raise _Raised(reason, raised)
            if kind is not _OutOfSteps or self.ctx.steps >= started:
                raise kind(reason, span)

    def keep_failure(self, key: Any, failure: Unresolved, started: int, pins: list[Any],
                     assumed: list[tuple[str, str, str, Span | None]] | tuple[()] = ()) -> None:
        """Keep a failed build for raise_if_failed, unless it failed for how deep its callers were
        (``pins``: the objects the key names by id, kept with it)."""
        if key is not None and not isinstance(failure, _TooDeep):
            # What raises it again, not the exception: its traceback would hold the frames it went through.
            self.ctx.failed[key] = (type(failure), failure.reason, failure.span, getattr(failure, "kind", None), started,
                                    tuple(assumed), self.ctx.state_version, pins)

    def dict_items(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> dict[Any, Any]:
        """What ``dict(*args, **kwargs)`` holds."""
        if len(args) > 1:
            raise Unresolved(f"`{_text(node)}`: a dict takes one positional argument")
        items: dict[Any, Any] = {}
        for a in args:
            if isinstance(a, dict):
                items.update(a)
            else:
                pairs = self.iterate(a, node)
                if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
                    raise Unresolved(f"`{_text(node)}`: not (key, value) pairs")
                items.update(pairs)
        items.update(kwargs)
        return items

    def make_dataclass(self, cls: ClassV, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
                       dataclass: ClassV) -> Inst:
        """An instance of ``cls`` built by the __init__ that ``dataclass`` (``cls`` or a base) was
        given: its fields, with its defaults, then ``cls``'s __post_init__."""
        inst = Inst(cls, "object", False)
        self.dataclass_init(inst, args, kwargs, node, dataclass)
        return inst

    def dataclass_init(self, inst: Inst, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
                       dataclass: ClassV) -> None:
        """The __init__ generated for ``dataclass``, run on ``inst`` (made by make_dataclass, or a
        subclass's own __init__ calling ``super().__init__(...)``: torchvision's MBConvConfig)."""
        cls = inst.cls
        fields = dataclass.fields
        uninit, keyword = dataclass.uninit_fields, dataclass.keyword_fields
        if dataclass.attrs_class and any(f.startswith("_") for f in fields):
            # attrs takes `_dim` as the argument `dim`: bound under the names __init__ takes.
            alias = {f.lstrip("_") or f: f for f in fields}
            kwargs = {alias.get(k, f"\0{k}"): v for k, v in kwargs.items()}
            if any(k.startswith("\0") for k in kwargs):
                bad = next(k for k in kwargs if k.startswith("\0"))[1:]
                raise _Raised(f"`{_text(node)}`: `{cls.name}` has no field `{bad}` (TypeError)", ExtV("TypeError"))
        # The generated __init__: the fields it takes, keyword-only ones after the others.
        positional = [f for f in fields if f not in uninit and f not in keyword] if uninit or keyword else fields
        if len(args) > len(positional):
            raise _Raised(f"`{_text(node)}` passes {len(args)} positional arguments to `{cls.name}`, which takes "
                          f"{len(positional)} (TypeError)", ExtV("TypeError"))
        given = dict(zip(positional, args))
        field_set = dataclass.field_set
        for k, v in kwargs.items():
            if k not in field_set or k in uninit:
                what = f"has no field `{k}`" if k not in field_set else f"takes no argument `{k}` (a field with init=False)"
                raise _Raised(f"`{_text(node)}`: `{cls.name}` {what} (TypeError)", ExtV("TypeError"))
            if k in given:
                raise _Raised(f"`{_text(node)}` passes `{k}` twice (TypeError)", ExtV("TypeError"))
            given[k] = v
        values: dict[str, Any] = {}
        for name in fields:
            if name in given:
                values[name] = given[name]
                continue
            try:
                default = dataclass.lookup(name)
            except KeyError:
                if name in uninit:
                    continue
                raise Unresolved(f"`{cls.name}` needs `{name}`, which has no default")
            if isinstance(default, FieldV):
                if default.factory is not None:
                    default = self.call(default.factory, [], {}, node, self.ctx.call_env())
                elif default.has_default:
                    default = default.default
                elif name in uninit:
                    continue  # field(init=False) with no default: __init__ leaves it unset (__post_init__ sets it)
                else:
                    raise Unresolved(f"`{cls.name}` needs `{name}`, which has no default")
            values[name] = default
        # Set in the order fields are declared, through the class's __setattr__ where it has one,
        # as the generated __init__ does; init-only fields go to __post_init__ instead.
        init_only = [values.pop(n) for n in fields if n in dataclass.init_vars and n in values]
        if cls.setattr_hook is not None:
            for k, v in values.items():
                self.set_attr(inst, k, v, node)
        else:
            inst.attrs.update(values)
        # The generated __init__ calls __post_init__ only if the dataclass had one when it was made
        # (a subclass adding one later is not called); the call then finds the instance's own.
        hook = "__attrs_post_init__" if dataclass.attrs_class else "__post_init__"
        try:
            dataclass.lookup(hook)
            post = cls.lookup(hook)
        except KeyError:
            post = None
        if isinstance(post, FuncV):
            self.call_function(post, [inst, *init_only], {}, node)

    def record_hint(self, inst: Inst, node: ast.AST, env: Env) -> None:
        scope = env.module
        if scope.is_main and scope.span_of is not None and isinstance(node, ast.Call):
            # Every module the call builds: one of another size (a helper called with several widths)
            # means the call gets no label.
            self.ctx.hint_insts.setdefault(scope.span_of(node), []).append(inst)

    def data_parallel(self, kind: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, origin: Span | None,
                      env: Env) -> Any:
        """``nn.DataParallel(net)``: a wrapper that registers ``net`` as ``module`` and nothing else
        (its replicas are made at each forward, never registered), on any machine; torch's
        constructor on one without a GPU, which is how the analysis counts. So does
        ``DistributedDataParallel(net, device_ids=[rank])`` (a script's, once its process group is
        set up, which the analysis takes as done; its other settings hold no parameters)."""
        bound = bind(kind, _DATA_PARALLEL_SIGNATURE if kind == "DataParallel" else _DISTRIBUTED_SIGNATURE, tuple(args),
                     kwargs)
        module = bound["module"]
        if type(module) is Unknown:
            return Unknown(module.why, maybe_module=True)
        if not (type(module) is Inst and module.is_module):
            raise Unresolved(f"`{_text(node)}`: the wrapped model is not a module the analyser built")
        inst = Inst(kind, "module", True, origin)
        inst.attrs["module"] = module
        inst.attrs["device_ids"] = [] if kind == "DataParallel" else bound["device_ids"]
        self.record_hint(inst, node, env)
        return inst

    def make_layer(self, name: str, origin: Span | None, **kwargs: Any) -> Inst:
        """Build an nn layer from keyword arguments (used by composite layers)."""
        if kwargs.pop("_bare", False):
            return Inst(name, "layer", True, origin)
        if name in CONTAINERS:
            return Inst(name, CONTAINERS[name], True, origin)
        if name in PARAMETERLESS:  # a transformer layer's dropouts
            return Inst(name, "layer", True, origin)
        sig, builder = LAYERS[name]
        inst = Inst(name, "layer", True, origin)
        bound = bind(name, sig, (), kwargs)
        if builder is not None:
            builder(inst, bound, origin, self.make_layer)
        inst.layer_args = (name, bound)
        return inst

    def metric(self, name: str, parts: list[str], args: list[Any], kwargs: dict[str, Any], node: ast.AST,
               origin: Span | None) -> Inst | None:
        """A torchmetrics metric of PARAMETERLESS_METRICS: a module with no parameters; a
        ``MetricCollection`` of such metrics (a list, a dict, or them one by one): one with none
        either. None for any other name of torchmetrics (not followed, as before)."""
        module, last = ".".join(parts[:-1]), parts[-1]
        if module not in METRIC_MODULES and (module.rsplit(".", 1)[0] not in METRIC_MODULES or len(parts) != 4):
            return None  # (`torchmetrics.classification.accuracy.Accuracy`, lightning-hydra-template's import)
        if last in PARAMETERLESS_METRICS:
            return Inst(name, "layer", True, origin)
        if last != "MetricCollection" or module != "torchmetrics" or not args:
            return None
        given = args[0].values() if isinstance(args[0], dict) else args[0] if isinstance(args[0], (list, tuple)) else \
            args[:1]
        for metric in [*given, *args[1:]]:
            if not _parameterless_metric(metric):
                what = "a value the analyser does not know" if is_unknownish(metric) else "not a metric of no parameters"
                raise Unresolved(f"`{_text(node)}`: the analyser counts a MetricCollection of torchmetrics' "
                                 f"classification, regression and aggregation metrics; one given is {what}")
        return Inst(name, "layer", True, origin)

    def call_external(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        scope = env.module
        origin = scope.span_of(node) if scope.span_of else None
        split = self.ext_split.get(name)
        if split is None:  # once per dotted name, not per call
            parts = name.split(".")
            split = self.ext_split[name] = (parts, parts[-1], name.startswith("torch.nn.") and not name.startswith(
                ("torch.nn.functional", "torch.nn.init", "torch.nn.utils")))
        parts, last, is_layer_table = split
        if name in SHIMS:  # `Accelerator(mixed_precision="bf16")`: the analyser's own class
            if args and SHIMS[name][0] == HYDRA_SHIM and is_unknownish(args[0]):
                # `instantiate(cfg.model)` of a config not composed: its reason, not the shim's lines
                raise Unresolved(f"`{_text(node)}`: {why_of(args[0])}")
            return self.call(self.shim_class(name), args, kwargs, node, env)
        if name in _SHIM_FUNCTIONS:
            return self.shim_function(name, args, kwargs, node)
        if last == "__init__" and (owner := name[:-len(".__init__")]) in SHIMS and args and type(args[0]) is Inst \
                and type(shim := self.shim_class(owner)) is ClassV and type(init := shim.find("__init__", None)) is FuncV:
            # `L.LightningModule.__init__(self)`, as `super().__init__()` runs it: the shim class's constructor
            return self.call_function(init, args, kwargs, node)
        if last == "__init__" and len(parts) > 2 and args and isinstance(args[0], Inst) and args[0].is_module:
            # `nn.LayerNorm.__init__(self, ...)` in a subclass's constructor: the base builds self.
            base, inst = parts[-2], args[0]
            if not name.startswith("torch.nn.") or not _is_module_base(ExtV(".".join(parts[:-1]))):
                raise Unresolved(f"`{_text(node)}` runs `{'.'.join(parts[:-1])}`'s constructor, which the analyser "
                                 f"does not follow")
            if base in CONTAINERS:
                self.init_container(inst, base, list(args[1:]), kwargs, node)
            elif base != "Module":
                self.init_layer(inst, inst.type_name, base, list(args[1:]), kwargs)
            else:
                _reset_module(inst)
            return None
        if parts[0] == "torchmetrics" and (made := self.metric(name, parts, args, kwargs, node, origin)) is not None:
            return made
        if last in _NTUPLES and name.startswith("torch.nn.modules.") and len(args) == 1 and not kwargs:
            # torch's `_pair(kernel_size)` (DCN, Mask R-CNN's SamePad2d): an iterable as a tuple, else n copies.
            x = args[0]
            if isinstance(x, (list, tuple, dict, RangeV, IteratorV)):
                return tuple(self.iterate(x, node))
            if is_unknownish(x) and type(x) is not Sym:
                raise Unresolved(f"`{_text(node)}`: {why_of(x)}")
            return (x,) * _NTUPLES[last]  # a number, a formula, a string (torch does not iterate one)
        if name in ("torch.matmul", "torch.mm", "torch.bmm") and len(args) == 2 and not kwargs and \
                all(type(a) in _TENSORS for a in args):
            return self.tensor_binop(ast.MatMult, args[0], args[1], node)  # VanillaNet's fused weights
        if name == "object.__setattr__" and len(args) == 3 and not kwargs and type(args[0]) is Inst and \
                isinstance(args[1], str):
            # A frozen dataclass's `__post_init__`: `object.__setattr__(self, "hidden", 4 * self.dim)`, past
            # the class's own __setattr__. On a module torch's __setattr__ is passed by too: a parameter or a
            # submodule set so is not registered.
            target, key, value = args
            if target.is_module and (type(value) is Param or (type(value) is Inst and value.is_module)):
                # past torch's __setattr__: in the module's __dict__, an attribute never counted (an RL
                # target network hidden from parameters(), an EMA teacher)
                self.ctx.cycle_holders.append(target)
                _set_unregistered(target, key, value)
                return None
            self.object_setattr(target, key, value, node)
            return None
        if last == "__setattr__" and len(parts) > 2 and parts[-2] == "Module" and len(args) == 3 and \
                isinstance(args[0], Inst) and args[0].is_module and isinstance(args[1], str):
            self.object_setattr(args[0], args[1], args[2], node)  # `nn.Module.__setattr__(self, "fc", layer)`
            return None
        if last == "convert_sync_batchnorm" and parts[-2] == "SyncBatchNorm" and args and type(args[0]) is Inst and \
                args[0].is_module:
            return args[0]  # its norms swapped for SyncBatchNorm holding the same parameters: the same count
        if len(parts) > 3 and is_layer_table and args and type(args[0]) is Inst and args[0].is_module and \
                _is_module_base(ExtV(".".join(parts[:-1]))):
            return self.torch_method_unbound(args[0], ".".join(parts[1:]), last, args[1:], kwargs, node, env)
        if len(parts) > 2 and parts[0] == "torch" and (parts[1] == "ao" or parts[1] == "quantization" or (
                is_layer_table and parts[2] == "quantized")):
            quantized = _quantization_module(parts, origin)
            if quantized is not None:
                return quantized
        if is_layer_table:
            if last in ("Parameter", "UninitializedParameter"):
                data = args[0] if args else kwargs.get("data", TensorV((0,)))
                grad = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
                if isinstance(data, Param):
                    data = TensorV(data.shape, floating=data.floating, declared=data.declared)
                if not isinstance(data, TensorV):
                    raise Unresolved(f"`{_text(node)}`: the tensor's shape is unknown ({why_of(data) or 'not a tensor the analyser built'})")
                requires = self.truthy(grad, node)
                declared = _declared(data)
                if requires and declared is not None and not _can_require_grad(declared):
                    # `nn.Parameter(torch.arange(n))`: torch's RuntimeError (an integer tensor has no gradient)
                    raise _Raised(f"`{_text(node)}` raises RuntimeError: only tensors of floating point and complex "
                                  f"dtype can require gradients (this one is {declared})", ExtV("RuntimeError"))
                return Param(data.shape, "other", requires, origin, _is_floating(data), declared)
            if last == "Buffer":  # torch.nn.Buffer(tensor): a buffer, never a parameter
                return _as_buffer(args[0] if args else kwargs.get("data"), made=True)
            if last == "from_pretrained" and parts[-2] in ("Embedding", "EmbeddingBag"):
                return self.pretrained_embedding(parts[-2], args, kwargs, node, env)
            if last in CONTAINERS:
                return self.make_container(last, args, kwargs, node, origin, env)
            if last == "_get_clones" and len(args) == 2 and not kwargs:
                # torch.nn.modules.transformer's helper (ABINet, parseq): a ModuleList of N deep copies
                n = as_count(args[1], "the number of clones")
                return self.make_container("ModuleList", [[clone(args[0]) for _ in range(n)]], {}, node, origin, env)
            if last == "_get_activation_fn" and len(args) == 1 and not kwargs:
                if args[0] not in ("relu", "gelu"):
                    raise _Raised(f"`{_text(node)}` raises RuntimeError: activation should be relu/gelu, not "
                                  f"{args[0]!r}", ExtV("RuntimeError"))
                return _external(f"torch.nn.functional.{args[0]}")
            if last in LAYERS or last in STACKS:
                inst = Inst(last, "layer", True, origin)
                self.init_layer(inst, last, last, args, kwargs)
                self.record_hint(inst, node, env)
                return inst
            if last in PARAMETERLESS:
                check_parameterless(last, args, kwargs)  # `nn.GELU(inplace=True)`: torch's TypeError
                if last in DROPOUTS:  # `nn.Dropout(1.5)`: torch's ValueError
                    check_dropout(args[0] if args else kwargs.get("p", 0.5))
                return Inst(last, "layer", True, origin)
            if last in ("DataParallel", "DistributedDataParallel"):
                return self.data_parallel(last, args, kwargs, node, origin, env)
            if last == "Module":
                return Inst(last, "module", True, origin)
            if last.startswith("Lazy"):
                raise Unresolved(f"`nn.{last}` sizes itself on the first forward pass; its count is not in the code")
            if len(parts) == 3 and last[:1].isupper() and last not in TORCH_NN_MODULES:  # `nn.BatchNorm1D`: FastPitch
                raise _Raised(f"`{_text(node)}`: module 'torch.nn' has no attribute '{last}' (AttributeError)",
                              ExtV("AttributeError"))
            return Unknown(f"`nn.{last}` is not in the analyser's layer table", maybe_module=True)
        if parts[0] == "torch" and (key := reparametrization(name)) is not None:  # weight_norm, spectral_norm
            return reparametrize(key, args, kwargs, origin)
        if name == "torch.nn.init._calculate_fan_in_and_fan_out" and len(args) == 1 and not kwargs:
            return _fan_in_and_fan_out(args[0], node)
        if name.startswith("torch.nn.init"):
            target = args[0] if args else kwargs.get("tensor")
            if target is None and last.endswith("_"):  # `nn.init.zeros_(fc.bias)` of a layer built with bias=False
                raise _Raised(f"`{_text(node)}` raises AttributeError: the tensor it initialises is None",
                              ExtV("AttributeError"))
            return target  # nn.init.trunc_normal_(t): fills t, returns it
        if name == "type" and len(args) == 1 and not kwargs and args[0] is None:
            return ExtV("types.NoneType")  # `isinstance(x, (AnchorGenerator, type(None)))`
        if name == "type" and len(args) == 1 and not kwargs and type(args[0]) is PartialV:
            return ExtV("functools.partial")  # CycleGAN's `type(norm_layer) == functools.partial`
        if name == "type" and len(args) == 1 and not kwargs and type(args[0]) is FuncV and args[0].kind == "" \
                and args[0].decorated is None:
            return ExtV("types.FunctionType")  # a def or lambda of the code (CUT's `type(norm_layer) == functools.partial`)
        if name == "type" and len(args) == 1 and not kwargs and type(args[0]) in _PY_TYPES.values():
            return _BUILTINS[type(args[0]).__name__]  # `type(n) == int`: the builtin as the code names it
        if name == "type" and len(args) == 1 and not kwargs and (_plain_class(args[0]) or (
                type(args[0]) is ExtV and _known_torch_class(args[0].name))):
            return _BUILTINS["type"]  # a class's type (its metaclass, where the code gives none): nn.BatchNorm2d's
        if name in ("inspect.isfunction", "inspect.ismethod") and len(args) == 1 and not kwargs and \
                is_unknownish(args[0]) and type(args[0]) is not Sym:  # a formula stands for a number: not a function
            return Unknown(f"`{_text(node)}` depends on {_clause(why_of(args[0]))}")  # sgm's `default(dim_out, dim)`
        if name in ("inspect.isfunction", "inspect.ismethod") and len(args) == 1 and not kwargs and \
                (not is_unknownish(args[0]) or type(args[0]) is Sym):
            # ldm's `default(val, d)`: `d() if isfunction(d) else d`. A def or lambda of the code is a
            # function, a bound method a method; Python's values, classes and builtins are neither.
            return type(args[0]) is (FuncV if last == "isfunction" else BoundV) and (
                last == "ismethod" or args[0].kind not in ("static", "class", "property", "cached"))
        if name == "type" and len(args) == 1 and not kwargs and type(args[0]) is Inst:
            cls = args[0].cls
            if type(cls) is ClassV:
                return cls  # type(self): the instance's class
            if type(cls) is str and _known_torch_class(f"torch.nn.{cls}"):
                return ExtV(f"torch.nn.{cls}")  # a torch layer's: `type(mod) is nn.ReLU` (torchvision)
            if type(cls) is str and cls in _PARAMETERLESS_QUANTIZATION:
                return ExtV(_PARAMETERLESS_QUANTIZATION[cls])
        if name == "type" and len(args) == 1 and not kwargs and type(args[0]) is Param:
            return ExtV("torch.nn.Parameter")  # peft's `type(module.weight).__module__.startswith("torchao.")`
        if name == "torch.get_default_device" and not args:
            return DeviceV()  # the analyser builds on the meta device
        if name == "torch.get_default_dtype" and not args:
            default = self.ctx.torch_defaults["dtype"]
            return ExtV(f"torch.{default}") if default is not None else Unknown(
                f"`{_text(node)}`: the default dtype was set to a dtype the analyser does not know")
        if name in ("torch.set_default_dtype", "torch.set_default_tensor_type") and len(args) == 1 and not kwargs:
            return self.set_default_dtype(name, args[0], node)
        if name in ("torch.finfo", "torch.iinfo") and len(args) <= 1 and not kwargs:
            return _type_info(last, args, node)
        if name == "torch.device" and len(args) == 1 and not kwargs and isinstance(args[0], str):
            kind, _, index = args[0].partition(":")
            return DeviceV(kind, int(index) if index.isdigit() else None)  # type: ignore[arg-type]
        if name in _NO_ACCELERATOR and not args and not kwargs:
            return self.read_accelerator(name, node, env)
        if name in _ONE_PROCESS and not kwargs:
            # A model built in one process, as the analysis builds it: no process group (vector-quantize's
            # `distributed.is_initialized() and distributed.get_world_size() > 1`), noted as the GPU is.
            self.note_machine_read("distributed", f"{name}()", node, env)
            if _ONE_PROCESS[name] is _MISSING:
                raise _Raised(f"`{_text(node)}`: Default process group has not been initialized (torch raises "
                              f"ValueError)", ExtV("ValueError"))
            return _ONE_PROCESS[name]
        if name == "importlib.util.find_spec" and len(args) == 1 and not kwargs and type(args[0]) is str and \
                not args[0].startswith(".") and (env.module.is_main or self.installed_package_file(env.module.path)):
            # `importlib.util.find_spec("flash_attn") is not None`: as for an optional import, a machine with
            # torch and the standard library (and the project's files), noted where another is asked for.
            if self.importable(args[0], env) or (not env.module.is_main and self.watch(installed_module(
                    args[0].split("."), self.ctx.site_packages, self.module_file)) is not None):
                # (a library's probe finds what its environment has: transformers' for `xlstm`, which,
                # installed, changes the classes it builds; the file's own probes are answered as its
                # optional imports are, on a machine with torch and the project)
                return ExtV("importlib.machinery.ModuleSpec")
            self.missing_package(args[0].partition(".")[0], node, env.module)
            return None
        if name in _PATH_CHECKS and len(args) == 1 and not kwargs and type(args[0]) is str and env.module.is_main and \
                (found := self.project_path(args[0], name, node, env)) is not None:
            return found
        if name in ("importlib.metadata.version", "importlib_metadata.version") and len(args) == 1 and \
                not kwargs and type(args[0]) is str:
            found = self.distribution_version(args[0], node, env)
            if found is not None:
                return found
        if name in _VERSION_PARSERS and len(args) == 1 and not kwargs and isinstance(args[0], str):
            parsed = _release_version(str(args[0]), name)  # `LooseVersion(torch.__version__) < LooseVersion("1.9")`
            if parsed is not None:
                return parsed
        if name in _ENVIRONMENT_GETS:
            return self.read_environment(args[0] if args else kwargs.get("key"), node, env,
                                         args[1] if len(args) > 1 else kwargs.get("default"))
        if name == "sys.modules.get" and args and isinstance(args[0], str):
            return self.loaded_module(args[0])
        if name == "inspect.signature" and len(args) == 1 and not kwargs:
            target = args[0]
            if type(target) is FuncV:
                return _signature_of(target, False)
            if type(target) is BoundV and type(target.func) is FuncV:
                return _signature_of(target.func, True)
            if type(target) is ClassV and isinstance(init := target.find("__init__", None), FuncV):
                return _signature_of(init, True)
            if type(target) is ExtV and target.name in _OPTIMIZER_SIGNATURES:
                # nanoGPT's `'fused' in inspect.signature(torch.optim.AdamW).parameters`
                return SignatureV({name: ParameterV(name, default, ExtV(f"inspect.Parameter.{kind}"))
                                   for name, kind, default in _OPTIMIZER_SIGNATURES[target.name]})
            raise Unresolved(f"`{_text(node)}`: the signature of {_described(target)} is not followed")
        if name == "inspect.getsource" and len(args) == 1 and type(args[0]) is ModV:
            return self.module_source(args[0], node)
        if parts[0] == "re" and len(parts) == 2 and last in _REGEX_FUNCTIONS:
            return _regex(last, args, kwargs, node)
        if name == "re.compile":
            return _compiled_regex(args, kwargs, node)
        if name in _ATTRS_FIELDS:
            return _attrs_field(name, args, kwargs, node)
        if name in ("attr.Factory", "attrs.Factory") and args:
            if len(args) > 1 or kwargs.get("takes_self"):
                raise Unresolved(f"`{_text(node)}`: a factory given the instance is not followed")
            return FieldV(factory=args[0], attrs=True)
        if name == "huggingface_hub.dataclasses.validated_field" and args:
            return _field(*args[1:], **kwargs)
        if name in ("torch.manual_seed", "torch.no_grad", "print", "warnings.warn"):
            return None
        if name in _NOT_TRACING and not args and not kwargs:
            return False  # a model is built in eager Python: not scripted, traced, compiled or exported
        if parts[0] == "torch" and last in TENSOR_FACTORIES and len(parts) == 2:
            if last in _SIZE_AS_TUPLE:
                _check_size_tuple(last, args, kwargs, node)
            return self.tensor_factory(last, args, kwargs, node)
        if name in ("numpy.power", "numpy.float_power") and len(args) == 2 and not kwargs and \
                all(type(x) in (int, float) for x in args):
            powered = _numpy_power(name == "numpy.float_power", *args)  # sinusoid tables: `np.power(10000, 2 * i / d)`
            if powered is not None:
                return powered
        if name == "numpy.prod" and len(args) == 1 and not kwargs and (type(args[0]) is int or isinstance(args[0], Sym)):
            return args[0]  # the product of one number (Perceiver's `np.prod(index_dims)` of an int)
        if name == "numpy.prod" and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)):
            # The size of a shape (`np.prod(obs_shape)`), as math.prod; numpy's product of nothing is 1.0.
            return self.call_external("math.prod", [args[0]], {}, node, env) if args[0] else 1.0
        if parts[0] == "numpy" and len(parts) == 2 and last in tensor_values.UNARY_FUNCTIONS and len(args) == 1 and \
                not kwargs and type(args[0]) is TensorV and args[0].shape == () and args[0].dtype == "float64":
            # Of a numpy float whose last bits are numpy's own (`np.floor(np.exp(2))`): with its bound.
            values = _values_of(args[0])
            try:
                result = tensor_values.unary(last, values) if values is not None else None
            except tensor_values.Undecidable as exc:
                raise Unresolved(f"`{_text(node)}`: {exc}")
            if result is not None:
                return result.items[0] if result.errors is None else _valued((), result)
        if parts[0] == "numpy" and len(parts) == 2 and last in _NUMPY_SCALAR and len(args) == 1 and not kwargs and (
                type(args[0]) in (int, float) or isinstance(args[0], (Sym, Unknown))):
            if is_unknownish(args[0]):
                return _unknown_in(args) or sym_opaque(f"np.{last}({render(args[0])})", args[0])
            return _numpy_float(last, self._py(_NUMPY_SCALAR[last], args[0], node), args[0])
        if parts[0] == "numpy" and len(parts) == 2 and last in _NUMPY_INTEGERS and len(args) == 1 and not kwargs and \
                type(args[0]) in (int, float, bool):
            return self.numpy_integer(last, args[0], node)  # `np.int64(np.sum(channels))`: HRNet's sizes
        if parts[0] == "numpy" and len(parts) == 2 and last in ("float64", "double", "float_") and len(args) == 1 \
                and not kwargs and type(args[0]) in (int, float, bool):
            return float(args[0])  # a float64 computes as a Python float
        if parts[0] == "numpy" and len(parts) == 2 and last in _NUMPY_REMOVED:
            raise _Raised(f"`{_text(node)}` raises AttributeError: numpy has no `{last}` since numpy 1.24 (the "
                          f"builtin `{last}` or `np.{_NUMPY_REMOVED[last]}` is what it meant)", ExtV("AttributeError"))
        if name in ("math.prod", "numpy.prod") and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)) \
                and any(is_unknownish(x) for x in args[0]):
            return _formula_product(args[0], node)  # the size of a shape with a size not known: a formula
        if parts[0] == "numpy" and len(parts) == 2 and last in _NUMPY_FACTORIES:
            made = self.numpy_array(last, args, kwargs, node)
            if made is not None:
                return _numpy_made(made)
        if name == "numpy.linspace" and "dtype" in kwargs and kwargs["dtype"] in (
                _BUILTINS["float"], ExtV("numpy.float64"), ExtV("numpy.double")):
            kwargs = {k: v for k, v in kwargs.items() if k != "dtype"}  # float64: numpy's own (OpenELM's scaling)
        if name == "numpy.linspace" and 2 <= len(args) <= 4 and set(kwargs) <= {"num", "endpoint", "dtype"}:
            given = dict(zip(("start", "stop", "num", "endpoint"), args), **kwargs)
            dtype = given.pop("dtype", None)
            dtype = "float64" if dtype is None else _numpy_dtype_name(dtype)
            dtype = dtype if dtype in tensor_values.FLOAT_DTYPES else None
            values = _numpy_linspace(**given)  # drop-path rates: `np.linspace(0, rate, depth).tolist()`
            if values is not None and dtype is not None:
                return TensorV((len(values),), tuple(tensor_values.cast_number(v, dtype) for v in values), dtype=dtype,
                               numpy=True)
            num = given.get("num", 50)
            if type(num) is int and 0 <= num <= MAX_ITERATIONS and all(type(v) in (int, float, TensorV) or is_unknownish(v)
                                                                       for v in (given.get("start"), given.get("stop"))):
                return TensorV((num,), floating=True, numpy=True)  # bounds numpy computed (SincNet's mel scale)
        if name in ("torch.sparse_coo_tensor", "torch.sparse.FloatTensor", "torch.sparse.LongTensor") and \
                (len(args) == 3 or (len(args) == 2 and "size" in kwargs)):
            size = args[2] if len(args) == 3 else kwargs["size"]
            if isinstance(size, (tuple, list)) and all(type(d) is int for d in size):
                return TensorV(tuple(size), floating=name != "torch.sparse.LongTensor")  # LightGCN's graph: its size
        if name in _TORCH_WINDOWS and args and type(args[0]) is int and len(args) <= 2:
            return TensorV((args[0],), floating=True)  # open-unmix's STFT: `torch.hann_window(n_fft)`
        if name == "torch.is_tensor" and len(args) == 1 and not kwargs:
            return _isinstance(args[0], ExtV("torch.Tensor"))
        if name in ("torch.autograd.Variable", "torch.autograd.variable.Variable") and args:
            return args[0]  # torch 0.4's Variable(t, requires_grad=...) is the tensor itself (DAG-GNN)
        if name in ("torch.complex", "torch.polar") and len(args) == 2 and not kwargs and all(
                type(a) in _TENSORS for a in args):
            # FNO's spectral weights: `nn.Parameter(torch.complex(real, imag))`, of the parts' broadcast shape
            shape = shapes.broadcast_shape(tuple(args[0].shape), tuple(args[1].shape))
            if shape is None:
                raise Unresolved(f"`{_text(node)}`: the parts' shapes do not broadcast (torch raises)")
            parts_dtypes = {_declared(a) or "float32" for a in args}
            return TensorV(shape, floating=False, declared="complex128" if parts_dtypes == {"float64"} else "complex64")
        if name in _LINALG_NORMS and args and type(args[0]) in _TENSORS:
            # torch.linalg.norm(w, dim=1, keepdim=True): the dims it reduces, a matrix norm's two by default
            names = ("ord", "dim", "keepdim")
            given = dict(zip(names, args[1:]), **{k: v for k, v in kwargs.items() if k != "dtype"})
            if set(given) - set(names):
                raise _Raised(f"`{_text(node)}`: unexpected argument (TypeError)", ExtV("TypeError"))
            dim = given.get("dim", (-2, -1) if last == "matrix_norm" else None)
            try:
                return TensorV(shapes.reduce_shape(tuple(args[0].shape), dim, given.get("keepdim", False)),
                               floating=True)
            except shapes.ShapeError as exc:
                raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
        if name in _NONZERO_FUNCTIONS and len(args) == 1 and set(kwargs) <= {"as_tuple"}:
            form = _NONZERO_FUNCTIONS[name]
            return _nonzero(args[0], "tuple" if kwargs.get("as_tuple") else form, parts[0] == "numpy", node)
        if name in ("fnmatch.fnmatch", "fnmatch.fnmatchcase") and len(args) == 2 and not kwargs and all(
                type(a) is str for a in args):
            return fnmatch.fnmatchcase(*args)  # freezing by pattern (`fnmatch(name, "blocks.*.attn*")`); POSIX's case
        if name in _PATH_FUNCTIONS and args and not kwargs and all(isinstance(a, str) for a in args):
            try:  # string functions, POSIX's on every machine: a count never depends on where it runs
                return getattr(posixpath, last)(*args)
            except TypeError as exc:
                raise _Raised(f"`{_text(node)}`: {exc} (TypeError)", ExtV("TypeError"))
        if name == "torch.normal" and len(args) + len(kwargs) == 3 and all(
                type(x) in (int, float) or isinstance(x, Sym) for x in args[:2]):
            size = args[2] if len(args) > 2 else kwargs.get("size")  # normal(mean, std, size): numbers, then a size
            if isinstance(size, (tuple, list)) and set(kwargs) <= {"size"}:
                return TensorV(tuple(as_int(d, "tensor size") for d in size))
        if name == "pkgutil.get_data" and len(args) == 2 and not kwargs and all(isinstance(a, str) for a in args):
            return self.package_data(args[0], args[1], node, env)
        if name == "torch.Size":
            if not args and not kwargs:
                return ()
            if len(args) == 1 and not kwargs:
                return tuple(self.iterate(args[0], node))
            raise _Raised(f"`{_text(node)}`: torch.Size takes one sequence of sizes (TypeError)", ExtV("TypeError"))
        if parts[0] == "math" and last in _MATH:
            if any(is_unknownish(a) for a in args):  # a formula in Sym sizes; an Unknown says why
                return _unknown_in(args) or sym_opaque(f"{last}({', '.join(render(a) for a in args)})", *args)
            if last in ("factorial", "comb", "perm") and _huge_combinatorics(last, args):
                raise Unresolved(f"`{_text(node)}` is too large to be a size")  # (Python takes minutes to compute it)
            return self._py(lambda a: getattr(math, last)(*a), args, node)
        if name == "dataclasses.fields" and len(args) == 1:
            return self.dataclass_fields(args[0], node)
        if name == "dataclasses.replace" and len(args) == 1:
            return self.dataclass_replace(args[0], kwargs, node, env)
        if name == "dataclasses.is_dataclass" and len(args) == 1 and not kwargs:
            # peft's `dataclasses.is_dataclass(model_config)`: a class the code made a dataclass, or an object of one
            target = args[0]
            cls = target.cls if type(target) is Inst else target
            if type(cls) is ClassV:
                return cls.is_dataclass
            if is_unknownish(target):
                return Unknown(f"`{_text(node)}` depends on {_clause(why_of(target))}")
            if type(target) is Inst or target is None or type(target) in _PLAIN or isinstance(
                    target, (list, tuple, dict, set, frozenset, FuncV, BuiltinV, TensorV, Param)):
                return False  # a module, a torch layer, Python's own values: no dataclass
            raise Unresolved(f"`{_text(node)}`: whether a {type(target).__name__} is a dataclass is not followed")
        if name in ("dataclasses.asdict", "dataclasses.astuple") and len(args) == 1 and not kwargs:
            return self.dataclass_values(args[0], last == "asdict", node)
        if name in ("dataclasses.field", "field"):
            return _field(**kwargs)
        if name in ("pydantic.Field", "pydantic.fields.Field"):
            return _pydantic_field(args, kwargs, node)
        if name in ("dataclasses.dataclass",):
            return args[0] if args else BuiltinV("dataclass", lambda c: c)
        if name in ("collections.defaultdict", "typing.DefaultDict") and len(args) <= 2:
            factory = args[0] if args else None
            if factory is not None and _callable(factory) is False:
                raise _Raised(f"`{_text(node)}`: the first argument must be callable or None (TypeError)",
                              ExtV("TypeError"))
            return DefaultDict(factory, *[dict(self.iterate(a, node)) if not isinstance(a, dict) else a
                                          for a in args[1:]], **kwargs)
        if name in ("collections.deque", "typing.Deque") and len(args) + len(kwargs) <= 2 and set(kwargs) <= {
                "iterable", "maxlen"}:
            given = dict(zip(("iterable", "maxlen"), args))
            if set(given) & set(kwargs):
                raise _multiple_values(node, next(iter(set(given) & set(kwargs))))  # type: ignore[arg-type]
            given.update(kwargs)
            maxlen = given.get("maxlen")
            if maxlen is not None and (not isinstance(maxlen, int) or maxlen < 0):  # (a bool is an int)
                if is_unknownish(maxlen):
                    raise Unresolved(f"`{_text(node)}`: maxlen depends on {_clause(why_of(maxlen))}")
                kind = "ValueError" if isinstance(maxlen, int) else "TypeError"
                raise _Raised(f"`{_text(node)}` raises {kind}: maxlen must be a non-negative integer", ExtV(kind))
            items = given.get("iterable")
            return collections.deque(self.iterate(items, node) if items is not None else (), maxlen)
        if name in ("collections.OrderedDict", "typing.OrderedDict"):
            return OrderedDictV(*[dict(self.iterate(a, node)) if not isinstance(a, dict) else a for a in args],
                                **kwargs)
        if name == "copy.deepcopy":
            refused = _deepcopy_refused(args[0]) if args else None
            if refused is not None:
                raise _Raised(f"`{_text(node)}` raises {refused[0]}: {refused[1]}", ExtV(refused[0]))
            try:
                return clone(args[0])
            except _Raised as exc:  # what it holds cannot be copied (a generator)
                raise _Raised(f"`{_text(node)}`: {exc.reason}", exc.kind) from None
        if name == "copy.copy" and len(args) == 1 and not kwargs:
            return _shallow_copy(args[0])
        if parts[0] == "operator" and len(parts) == 2 and last in _OPERATOR_FUNCTIONS and len(args) == 2 and not kwargs:
            return self.binop(_OPERATOR_FUNCTIONS[last], args[0], args[1], node)
        if name in ("functools.reduce", "itertools.accumulate"):
            return self.fold(last == "reduce", args, kwargs, node, env)
        if name == "itertools.repeat":
            return self.repeat(args, kwargs, node)
        if name == "inspect.isclass" and len(args) == 1 and not kwargs:
            value = args[0]
            if type(value) in (ClassV, BuiltinV) or _is_class(value):
                return _is_class(value)
            if value is None or type(value) in (str, int, float, bool, list, tuple, dict, FuncV, BoundV, Inst, Param):
                return False
            raise Unresolved(f"`{_text(node)}`: whether `{render(value)}` is a class is not known")
        if name in _PROGRESS_BARS and args:
            # `for name in tqdm(key_list, desc=...)` (peft's merge_and_unload): the same items, with a
            # progress bar the count does not need.
            return list(self.iterate(args[0], node))
        if name == "itertools.pairwise" and len(args) == 1 and not kwargs:
            items = self.iterate(args[0], node)
            return IteratorV(list(zip(items, items[1:])))
        if name == "itertools.count" and len(args) + len(kwargs) <= 2 and set(kwargs) <= {"start", "step"}:
            given = dict(zip(("start", "step"), args), **kwargs)
            start, step = given.get("start", 0), given.get("step", 1)
            if not all(type(x) in (int, float) for x in (start, step)):
                raise Unresolved(f"`{_text(node)}`: its start and step are not known numbers")
            return self.lazy_iterator(self.counting(start, step))  # `zip(itertools.count(start=1), layers)`
        if name == "itertools.islice" and 2 <= len(args) <= 4 and not kwargs and all(
                a is None or type(a) is int for a in args[1:]):
            if any(a is not None and a < 0 for a in args[1:]) or (len(args) == 4 and args[3] == 0):
                raise _Raised(f"`{_text(node)}` raises ValueError: islice's indices must be None or 0 or more "
                              f"(its step 1 or more)", ExtV("ValueError"))
            if type(args[0]) is CycleV:  # `islice(cycle(kinds), depth)`: islice ends it (DALLE-pytorch's layers)
                stop = args[1] if len(args) == 2 else args[2]
                if stop is None or stop > MAX_ITERATIONS:
                    raise Unresolved(f"`{_text(node)}` cycles without end" if stop is None else
                                     f"`{_text(node)}` makes more than the {MAX_ITERATIONS:,} items the analyser follows")
                return IteratorV(list(itertools.islice(args[0], *args[1:])))
            if type(args[0]) is IteratorV:  # the items it yields are all it takes from the iterator
                return IteratorV(list(itertools.islice(args[0], *args[1:])))
            return IteratorV(list(itertools.islice(self.iterate(args[0], node), *args[1:])))
        if name == "itertools.zip_longest" and set(kwargs) <= {"fillvalue"}:
            return IteratorV(list(itertools.zip_longest(*[self.iterate(a, node) for a in args], **kwargs)))
        if last in ("combinations", "permutations", "combinations_with_replacement") and parts[0] == "itertools":
            items = self.iterate(args[0], node) if args else []
            r = args[1] if len(args) > 1 else kwargs.get("r", len(items) if last == "permutations" else None)
            if len(args) + len(kwargs) != (2 if last != "permutations" or len(args) > 1 or kwargs else 1) or type(r) is not int:
                raise Unresolved(f"`{_text(node)}`: the analyser follows {last}(items, r) with a known r")
            made = list(itertools.islice(getattr(itertools, last)(items, r), MAX_ITERATIONS + 1))
            if len(made) > MAX_ITERATIONS:
                raise Unresolved(f"`{_text(node)}` makes more than the {MAX_ITERATIONS:,} items the analyser follows")
            return IteratorV(made)
        if name == "argparse.ArgumentParser":
            parser = ArgParserV(env.module)  # its arguments' defaults, read back by parse_args (argparse_method)
            for parent in kwargs.get("parents") or ():  # VICReg's `ArgumentParser(parents=[get_arguments()])`
                if type(parent) is not ArgParserV:
                    raise Unresolved(f"`{_text(node)}`: a parent parser the analyser did not build")
                parser.arguments.extend(parent.arguments)
                parser.defaults.update(parent.defaults)
            return parser
        if name in ("types.SimpleNamespace", "argparse.Namespace") and not args:
            namespace = Inst(last, "object", False)  # an object with these attributes, as Python makes it
            namespace.attrs.update(kwargs)
            return namespace
        if name in _FILE_LOADERS and args and (loaded := self.loaded_text(name, args[0], node)) is not _MISSING:
            return loaded
        if name == "json.loads" and len(args) == 1 and not kwargs and isinstance(args[0], str) and len(args[0]) < 1_000_000:
            try:
                return json.loads(args[0])  # a config written as a JSON string: Python's own values
            except ValueError as exc:
                raise _Raised(f"`{_text(node)}` raises JSONDecodeError: {exc}", ExtV("ValueError"))
        if name == "operator.itemgetter" and args and not kwargs:
            keys, at = list(args), node
            return BuiltinV("itemgetter", lambda obj: self.get_item(obj, keys[0], at) if len(keys) == 1 else
                            tuple(self.get_item(obj, k, at) for k in keys))
        if name == "operator.attrgetter" and args and not kwargs and all(type(a) is str for a in args):
            # peft's `attrgetter(name)(self)`: a dotted name read attribute by attribute, as Python's reads it
            dotted, at = list(args), node

            def read(obj: Any, names: str) -> Any:
                for part in names.split("."):
                    obj = self.get_attr(obj, part, at)
                return obj

            return BuiltinV("attrgetter", lambda obj: read(obj, dotted[0]) if len(dotted) == 1 else
                            tuple(read(obj, d) for d in dotted))
        if (name == "object" or name == "builtins.object") and not args and not kwargs:
            # `sentinel = object()`: a new object equal only to itself (`getattr(model, name, sentinel) is sentinel`)
            return Inst("object", "object", False, origin)
        if name == "enum.auto" and not args and not kwargs:
            return _ENUM_AUTO
        if name in ("collections.namedtuple", "typing.NamedTuple") and args and isinstance(args[0], str):
            return self.named_tuple_class(args, kwargs, node, env)
        if name == "itertools.product":
            return self.product(args, kwargs, node)
        if name == "itertools.chain" and not kwargs:  # one iterator over each iterable's items in turn
            return IteratorV([x for a in args for x in self.iterate(a, node)])
        if name == "itertools.chain.from_iterable" and len(args) == 1 and not kwargs:
            return IteratorV([x for a in self.iterate(args[0], node) for x in self.iterate(a, node)])
        if name == "itertools.cycle" and len(args) == 1 and not kwargs:
            return CycleV(self.iterate(args[0], node))
        if name == "functools.partialmethod" and args:
            # openfold's `__init__ = partialmethod(TriangleAttention.__init__, starting=True)`: bound on access.
            return PartialMethodV(args[0], tuple(args[1:]), tuple(kwargs.items()))
        if name == "functools.wraps" and len(args) == 1 and not kwargs:
            return BuiltinV("wraps", functools.partial(_wraps, args[0]))
        if name == "functools.partial":
            if not args:
                raise Unresolved(f"`{_text(node)}`: partial needs the function it binds")
            inner = args[0]
            if type(inner) is PartialV:  # as functools flattens a partial of a partial
                return PartialV(inner.func, inner.args + tuple(args[1:]), tuple({**dict(inner.kwargs), **kwargs}.items()))
            return PartialV(inner, tuple(args[1:]), tuple(kwargs.items()))
        if last == "from_pretrained":
            hub = args[0] if args else kwargs.get("pretrained_model_name_or_path")
            loader = parts[-2] if len(parts) >= 2 else ""
            if isinstance(hub, str) and loader:
                changed = self.unread_config_changes(loader, hub, kwargs)
                if changed:
                    return Unknown(f"`{_text(node)}`: {changed} what it builds (a config attribute, or an argument "
                                   f"of the model's __init__); the analyser follows that in transformers' own code, "
                                   f"which it reads from the installed transformers when `read-packages` names it",
                                   maybe_module=builds_module(loader))
                return _loaded_quantized(self.from_hub(loader, hub, node, origin), kwargs, self.ctx)
            return Unknown(f"`{_text(node)}` loads a pretrained model ({hub!r}); its weights are not built in this "
                           f"file", maybe_module=True)
        if name in ("typing.get_type_hints", "typing_extensions.get_type_hints", "inspect.get_annotations") and \
                args and isinstance(args[0], ClassV):
            # A class's annotations, evaluated: its own (get_annotations), or with its bases' (get_type_hints).
            classes = [args[0]] if name.startswith("inspect") else list(reversed(args[0].mro()))
            return {k: v for c in classes for k, v in self.class_annotations(c).items()}
        if name in ("typing.cast", "typing_extensions.cast") and len(args) == 2:
            return args[1]
        if name == "importlib.import_module" and args and isinstance(args[0], str):
            # import_module(".bert", "transformers.models"): a module of the project, named by a string.
            package = args[1] if len(args) > 1 else kwargs.get("package")
            module = args[0]
            if module.startswith("."):
                if not isinstance(package, str):
                    raise Unresolved(f"`{_text(node)}`: a relative import needs its package")
                level = len(module) - len(module.lstrip("."))
                module = ".".join(package.split(".")[:len(package.split(".")) - level + 1] + [module.lstrip(".")])
            if module.split(".")[0] in ("torch", "numpy", "math", "einops"):
                return _external(module)  # `import_module("torch.nn.modules.conv")`: the package the analyser knows
            found = self.load_project_module(env.module, module, 0)
            if found is None:
                return Unknown(f"`{_text(node)}` imports `{module}`, which is not a file of the project", maybe_module=True)
            return found
        if name == "pydoc.locate" and len(args) == 1 and not kwargs and isinstance(args[0], str) and \
                args[0].split(".")[0] in ("torch", "numpy", "math", "einops"):
            # nnU-Net v2's `pydoc.locate("torch.nn.modules.conv.Conv3d")`: the name, as Python's import finds it
            return self.get_attr(_external(args[0].rpartition(".")[0]), args[0].rpartition(".")[2], node) \
                if "." in args[0] else _external(args[0])
        if name in ("typing.cast", "typing_extensions.cast") and len(args) == 2 and not kwargs:
            return args[1]  # cast(T, value): the value itself
        if parts[0] in ("typing", "typing_extensions"):
            return None
        if parts[0] == "numpy" and len(parts) == 2 and last in _NUMPY_REDUCTIONS and len(args) == 1 and not kwargs:
            reduced = _numpy_reduction(last, args[0])
            if reduced is not _MISSING:
                return reduced
        if name == "numpy.cumsum" and len(args) == 1 and not kwargs and isinstance(args[0], (list, tuple)) and \
                args[0] and len(args[0]) <= _VALUED_LIMIT and all(type(x) in (int, float) for x in args[0]):
            # SAM2's stage ends: `np.cumsum(config.blocks_per_stage) - 1`. Sequential, as numpy sums.
            dtype = "float64" if any(type(x) is float for x in args[0]) else "int64"
            return TensorV((len(args[0]),), tuple(itertools.accumulate(float(x) if dtype == "float64" else x
                                                                      for x in args[0])), dtype=dtype, numpy=True)
        if name == "numpy.cumsum" and len(args) == 1 and not kwargs and type(args[0]) is TensorV and \
                len(args[0].shape) == 1 and args[0].values is not None and args[0].errors is None and \
                args[0].dtype in _EXACT_CUMSUM_DTYPES:
            # torchfm's field offsets: `np.cumsum(field_dims)` of an integer array (sums of ints or
            # float64s are numpy's exactly; a float32 array's are rounded as numpy accumulates them)
            source = args[0]
            return TensorV(tuple(source.shape), tuple(itertools.accumulate(source.values)), dtype=source.dtype, numpy=True)
        if name == "numpy.fromstring" and len(args) == 1 and type(args[0]) is str and set(kwargs) <= {"dtype", "sep"} \
                and type(kwargs.get("sep")) is str and kwargs["sep"] and \
                (parsed := _numbers_in_text(args[0], kwargs["sep"], kwargs.get("dtype", _BUILTINS["float"]))) is not None:
            return parsed  # DLRM's layer sizes from its command line: `np.fromstring("13-512-256", dtype=int, sep="-")`
        if name == "torch.roll" and args and type(args[0]) in _TENSORS:
            return TensorV(tuple(args[0].shape), floating=_is_floating(args[0]))  # the same values, shifted
        if name in ("torch.fft.fft", "torch.fft.ifft") and len(args) == 1 and not kwargs and type(args[0]) in _TENSORS:
            return TensorV(tuple(args[0].shape), floating=False)  # complex, of the same shape (nanochat)
        if name in ("torch.fft.rfftfreq", "torch.fft.fftfreq") and args and type(args[0]) is int and args[0] > 0 and \
                len(args) <= 2 and set(kwargs) <= {"d", "dtype", "device"}:
            n = args[0]  # FNO's wave numbers: n // 2 + 1 of them for a real transform, else n
            return TensorV((n // 2 + 1 if name.endswith("rfftfreq") else n,), floating=True)
        if name in ("torch.fft.rfft", "torch.fft.rfft2", "torch.fft.rfftn") and len(args) == 1 and not kwargs and \
                type(args[0]) in _TENSORS and args[0].shape and type(args[0].shape[-1]) is int:
            # a real transform keeps half the last dimension (and one): complex values
            return TensorV((*args[0].shape[:-1], args[0].shape[-1] // 2 + 1), floating=False)
        if name in ("torch.det", "torch.linalg.det", "torch.logdet") and len(args) == 1 and not kwargs and \
                type(args[0]) in _TENSORS:
            shape = tuple(args[0].shape)  # a batch of square matrices: one value each (its sign not known here)
            if len(shape) < 2 or (type(shape[-1]) is int and type(shape[-2]) is int and shape[-1] != shape[-2]):
                raise _Raised(f"`{_text(node)}`: the determinant of a tensor of shape {shape}, not a batch of square "
                              f"matrices (torch raises RuntimeError)", ExtV("RuntimeError"))
            return TensorV(shape[:-2], floating=_is_floating(args[0]))
        if name in ("torch.view_as_real", "torch.view_as_complex") and len(args) == 1 and not kwargs and \
                type(args[0]) in _TENSORS:
            return _complex_view(name == "torch.view_as_real", args[0], node)  # S4D's `nn.Parameter(view_as_real(C))`
        if name == "torch.meshgrid":
            return _meshgrid(args, kwargs, node)
        if len(parts) == 2 and parts[0] == "torch" and last in ("cat", "concat", "concatenate", "stack"):
            return self.join_tensors(last, args, kwargs, node)
        if len(parts) == 2 and parts[0] == "torch" and (last in _TORCH_BINARY or last in _TORCH_VALUE_FUNCTIONS):
            result = self.torch_value_function(last, args, kwargs, node, env)
            if result is not _MISSING:
                return result
        if last in _FUNCTIONAL_SAME_SHAPE and name == f"torch.nn.functional.{last}" and args and \
                type(args[0]) in _TENSORS:
            # MoCo's queue `F.normalize(self.queue, dim=0)`: the input's shape, values not computed.
            return TensorV(tuple(args[0].shape), floating=_is_floating(args[0]))
        if name == "torch.nn.functional.pad" and args and isinstance(args[0], (TensorV, Param)):
            return _padded(args[0], args[1] if len(args) > 1 else kwargs.get("pad"), node)
        if len(parts) == 2 and parts[0] == "torch" and last in _SHAPE_METHOD_FUNCTIONS and args and \
                isinstance(args[0], (TensorV, Param)):
            method = self.tensor_attr(args[0], last, node)  # torch.flatten(t, 1) is t.flatten(1)
            if type(method) is BuiltinV:
                return self.call(method, list(args[1:]), kwargs, node, env)
        if len(parts) == 2 and parts[0] == "torch" and last in _ELEMENTWISE and args:
            if isinstance(args[0], (TensorV, Param)):  # torch.log(10 * torch.ones(h, 1, 1)): the same shape
                return TensorV(tuple(args[0].shape), contiguous=_contiguous(args[0]))
            if isinstance(args[0], Unknown):
                return Unknown(args[0].why)
        if len(parts) == 2 and parts[0] == "torch" and last in _SHAPE_FUNCTIONS:
            return self.shape_function(last, args, kwargs, node)
        if name in ("torch.randperm", "numpy.random.permutation") and len(args) == 1 and set(kwargs) <= {"dtype", "device",
                                                                                                "generator"}:
            # Glow's channel shuffle: a permutation of n, its values not known.
            if type(args[0]) in _TENSORS and name == "numpy.random.permutation":
                return TensorV(tuple(args[0].shape), numpy=True)
            return TensorV((as_int(args[0], "n"),), floating=False, numpy=parts[0] == "numpy")
        if name in _NUMPY_RANDOM:
            made = _numpy_random(last, args, kwargs)  # random values of a known shape (a random orthogonal init)
            if made is not None:
                return made
        if name in _DECOMPOSITIONS and args and type(args[0]) in _TENSORS:
            return _decomposition(_DECOMPOSITIONS[name], args, kwargs, parts[0] == "numpy", node)
        if name in ("torch.qr", "torch.linalg.qr") and args and isinstance(args[0], (TensorV, Param)):
            return _qr(name, tuple(args[0].shape), args[1:], kwargs, node)  # WaveGlow's orthonormal init
        if name in ("einops.layers.torch.Rearrange", "einops.layers.torch.Reduce") and args and type(args[0]) is str:
            # einops' layers: modules without parameters (x-transformers' mixture of softmax head).
            return Inst(last, "layer", True, env.module.span_of(node) if env.module.span_of else None)
        if name == "einops.layers.torch.EinMix":
            inst = _einmix(args, kwargs, node, env.module.span_of(node) if env.module.span_of else None)
            self.record_hint(inst, node, env)
            return inst
        if name in _EINOPS_FUNCTIONS and len(args) >= 2:
            return self.einops_function(last, args, kwargs, node)
        if name == "torch.nn.utils.skip_init" and args:  # the module, built without initialising its values
            return self.call(args[0], list(args[1:]), kwargs, node, env)
        if name in _KEEPS_MODULE and args and type(args[0]) is Inst and args[0].is_module:
            if name.endswith(".fully_shard"):
                # FSDP2: the parameters sharded at rest; kept whole from forward to backward where
                # `reshard_after_forward=False` (ZeRO-2's memory), resharded otherwise (ZeRO-3's)
                keep = kwargs.get("reshard_after_forward", args[2] if len(args) > 2 else None)
                self.ctx.step_shardings.append((args[0], 2 if keep is False else 3, "FSDP2's `fully_shard`",
                                                "offload_policy" in kwargs, None))
            return args[0]  # torch.compile / jit.script / jit.trace / fx.symbolic_trace / fully_shard: the same parameters
        if name in _FSDP_WRAPPERS and type(wrapped := args[0] if args else kwargs.get("module")) is Inst and \
                wrapped.is_module:
            # FSDP(model, auto_wrap_policy=...): the model registered as `_fsdp_wrapped_module`; its
            # parameters, flattened per unit, are the model's (all of them, on the one process the
            # analysis takes: a rank of N holds 1/N)
            inst = Inst("FullyShardedDataParallel", "module", True, origin)
            inst.attrs["_fsdp_wrapped_module"] = wrapped
            self.record_hint(inst, node, env)
            strategy = kwargs.get("sharding_strategy", args[2] if len(args) > 2 else None)
            if strategy is None:
                chosen, said = "FULL_SHARD", "FSDP (FULL_SHARD, its default)"
            elif type(strategy) is ExtV and "ShardingStrategy." in strategy.name:
                chosen = strategy.name.rsplit(".", 1)[1]
                said = f"FSDP ({chosen})"
            else:
                chosen, said = "", "FSDP with a sharding strategy the analysis does not know"
            self.ctx.step_shardings.append((inst, _SHARDING_STRATEGY_STAGES.get(chosen), said, _offloads_parameters(node), None))
            return inst
        if name in ("torch.optim.swa_utils.AveragedModel",) and args and type(args[0]) is Inst and args[0].is_module:
            # the EMA / SWA copy of a network: a deep copy as its `module`, and a buffer (n_averaged)
            averaged = Inst("AveragedModel", "module", True, origin)
            averaged.attrs["module"] = clone(args[0])
            # `ema.update_parameters(model)`: averages values into its own parameters, which it keeps
            averaged.attrs["update_parameters"] = BuiltinV("update_parameters", lambda *a, **k: None)
            return averaged
        if name in _AUTOCASTS:
            self.record_autocast(name, args, kwargs)
        if name in _TORCH_OPTIMIZERS:
            options = _optimizer_options(name, args, kwargs)
            self.record_optimizer(name, torch_optimizer_kind(name.rsplit(".", 1)[1], options) or "", args, kwargs, node)
        elif name in _OPTIMIZERS:
            self.record_optimizer(name, _OPTIMIZERS[name], args, kwargs, node)
        elif name in _OPTIMIZER_INITS and \
                len(args) >= 2 and type(args[0]) is Inst and type(args[0].cls) is ClassV:
            # an optimizer of the code's, or of a library read (transformers' Adafactor, a Lion, Muon):
            # `super().__init__(params, defaults)`, its states not modelled
            self.record_optimizer(args[0].cls.name, "", args[1:], kwargs, node)
        if name.startswith(("torch.optim.", "torch.cuda.amp.", "torch.amp.")) and not name.startswith("torch.optim.swa_utils"):
            # MAML's `optim.Adam(self.net.parameters())` kept on the model: it reads the parameters, never
            # changes which there are; an optimizer, a scheduler or a grad scaler is no module.
            return Unknown(f"`{name}` makes an object the analyser does not follow (not a module)")
        if parts[0] == "torch" and any(type(a) is Inst and a.is_module for a in (*args, *kwargs.values())):
            # `tq.fuse_modules(m, [...], inplace=True)`, `tq.convert(m)`: what it makes of the module's
            # parts is not known either.
            self.mark_unfollowed(name, args, kwargs, node)
            return Unknown(f"`{name}` is given a module; what it returns is not known to the analyser",
                           maybe_module=True)
        if parts[0] == "numpy" and len(parts) == 2 and (made := self.numpy_array_function(last, args, kwargs, node)) \
                is not None:
            return _numpy_made(made)
        if name.startswith(("torch.utils.model_zoo.", "torch.hub.")) or name == "torch.load":
            return Unknown(f"the checkpoint that `{name}` reads (a file or a download), which the analyser does not read")
        if name.startswith(_TORCH_MODULE_PACKAGES) and last[:1].isupper():
            # torch.ao's QAT layers (nn.Linear's weight and bias, and fake-quantize observers): modules.
            return Unknown(f"`{name}` is not in the analyser's layer table", maybe_module=True)
        if parts[0] in ("torch", "einops", "numpy", "np") and not name.startswith(("torch.nn", "torch.hub")):
            # Tensor functions (torch.tril, torch.cat, ...) return tensors, never modules.
            unknown = _unknown_in([*args, *kwargs.values()])
            if unknown is not None:
                return unknown  # what its argument depends on is the first thing to say
            made = "an array" if parts[0] in ("numpy", "np") else "a tensor"
            return Unknown(f"`{name}` returns {made} whose shape the analyser does not follow")
        self.mark_unfollowed(name, args, kwargs, node)
        # A package read by default (torchvision) that is not installed where the analysis looks: say so.
        missing = f"; {unread_package_note(parts[0], self.ctx.read_packages, self.ctx.site_packages)}" \
            if parts[0] in self.ctx.read_packages and not self.package_installed(parts[0]) else ""
        return Unknown(f"`{name}` is outside this file and torch.nn; the analyser does not follow it{missing}",
                       # a log dir's name, a time stamp, a config saved as bytes: never a module
                       maybe_module=parts[0] not in _NO_MODULES_MADE and name not in _NO_MODULE_RESULTS)

    def command_line(self, node: ast.AST, env: Env | None) -> list[str]:
        """``sys.argv``: the analysed file's name and the command line given (AnalyzeOptions.script_args;
        none where none is), as for ``parse_args()`` (noted for the count's LC106 where the analysed
        file reads it); the same list each time it is read, as Python's."""
        main = next((scope for scope in self.ctx.scopes if scope.is_main), None)
        if self.ctx.argv is None:
            self.ctx.argv = [os.path.basename(main.path) if main is not None and main.path else "script.py",
                             *(self.ctx.script_args or ())]
        if env is not None and env.module.is_main:
            given = self.ctx.script_args
            self.note_machine_read("command line", "sys.argv", node, env) if given is None else \
                self.note_machine_read("arguments", shlex.join(given), node, env)
        return self.ctx.argv

    def package_installed(self, package: str) -> bool:
        """Whether an installed package is in the site-packages directories the analysis reads (asked once)."""
        found = self.installed.get(package)
        if found is None:
            found = self.installed[package] = installed_module([package], self.ctx.site_packages) is not None
        return found

    def torch_value_function(self, fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """torch's elementwise arithmetic (``torch.divide(t, 8)``: shapes broadcast, values are
        computed where known) and the functions of a tensor's values (``torch.unique``,
        ``torch.diff``, ``torch.log``); _MISSING for a call this does not take."""
        if fn in _TORCH_BINARY:
            rounding = fn in ("div", "divide") and set(kwargs) == {"rounding_mode"} and \
                kwargs["rounding_mode"] in ("floor", "trunc", None)
            if len(args) != 2 or (kwargs and not rounding) or not any(type(x) in _TENSORS for x in args):
                return _MISSING  # an alpha, an out=: not computed here
            a, b = args
            if not all(type(x) in _TENSORS or type(x) in (int, float, bool) for x in (a, b)):
                return _MISSING
            result = self.tensor_binop(_TORCH_BINARY[fn], a, b, node, operator_syntax=False)
            if rounding and type(result) is TensorV:  # sam2's `torch.div(t, 8, rounding_mode="floor")`: the shape
                return TensorV(tuple(result.shape), floating=next(_is_floating(x) for x in (a, b) if type(x) in _TENSORS))
            return result
        if len(args) != 1 or type(args[0]) is not TensorV or args[0].values is None or args[0].dtype is None:
            return _MISSING
        method = _value_method(args[0], fn, node)
        if method is None:
            return _MISSING
        return self.call(method, [], kwargs, node, env)

    def open_file(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Any:
        """``open(path)`` of a file of the script's folder, to read its text (a YAML or JSON config of the
        model): read now, from the script's folder, where the script runs, as it is now (noted), and
        handed to the code as shims/files.py's TextFile. A file written, or read outside that folder,
        the analyser never opens; one that is not there raises FileNotFoundError, as Python does."""
        given = {**dict(zip(("file", "mode", "buffering", "encoding"), args)), **kwargs}
        path, mode = given.get("file"), given.get("mode", "r")
        if type(mode) is not str or mode not in ("r", "rt", "tr"):
            if type(mode) is str and any(c in mode for c in "wax+"):
                raise Unresolved(f"`{_text(node)}` opens a file to write it, which the analyser never does")
            raise Unresolved(f"`{_text(node)}` reads a file in binary (a pickle, a checkpoint), which the analyser "
                             f"does not read")
        if type(path) is not str:
            raise Unresolved(f"`{_text(node)}`: the path is not a known string{_because(path)}")
        base = os.path.realpath(os.path.dirname(os.path.abspath(env.module.path)))
        full = os.path.realpath(os.path.join(base, path))
        if not full.startswith(base + os.sep):
            raise Unresolved(f"`{_text(node)}` reads `{path}`, outside the script's folder, which the analyser "
                             f"does not read")
        self.ctx.disk_reads += 1  # (a count that depends on it is not kept for the next analysis)
        self.note_machine_read("file", f"open({path!r})", node, env)
        if not os.path.isfile(full):
            raise _Raised(f"`{_text(node)}` raises FileNotFoundError: no file `{path}` in the script's folder",
                          ExtV("FileNotFoundError"))
        if os.path.getsize(full) > _MAX_SOURCE_BYTES:
            raise Unresolved(f"`{_text(node)}`: `{path}` is over 2 MiB, which the analyser does not read")
        try:
            with open(full, encoding=given.get("encoding") if type(given.get("encoding")) is str else "utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError, LookupError) as exc:
            raise Unresolved(f"`{_text(node)}`: `{path}` cannot be read as text: {exc}") from None
        return self.call(self.shim_value(FILES_SHIM, "TextFile", "open"), [text, path], {}, node, env)

    def cli_arguments(self, argv: Any, run: Any, model_class: Any, data_class: Any, node: ast.AST) -> Any:
        """LightningCLI's command line as jsonargparse parses it (shims/lightning_cli.py): (the subcommand,
        or None without a run; {"model": ..., "data": ..., "trainer": ...} keyword arguments). ``--config
        FILE`` is a YAML file of the script's folder, merged in order with the options around it; a
        value is read as YAML reads a scalar. What jsonargparse refuses is said as its exit."""
        import yaml

        if not isinstance(argv, (list, tuple)) or not all(type(a) is str for a in argv):
            raise Unresolved(f"LightningCLI's command line is not a known list of strings{_because(argv)}")
        tokens = list(argv)
        if self.ctx.script_args is not None and self.ctx.argv is not None and tokens == self.ctx.argv[1:]:
            # (the command line given, read here rather than by a line of the script: said at its block)
            self.ctx.environment.append(("arguments", shlex.join(tokens), "", None))
        subcommand = None
        if run is not False:
            if not tokens or tokens[0].startswith("-"):
                raise Unresolved("LightningCLI runs the subcommand its command line names (fit, validate, test or "
                                 "predict), and the command line the analysis has gives none: --script-args gives "
                                 "one (--script-args=\"fit --trainer.precision bf16-mixed\")")
            subcommand = tokens.pop(0)
            if subcommand not in _CLI_SUBCOMMANDS:
                raise Unresolved(f"jsonargparse exits: `{subcommand}` is not a LightningCLI subcommand (fit, validate, "
                                 f"test, predict)")
        sections: dict[str, dict[str, Any]] = {"model": {}, "data": {}, "trainer": {}}
        classes = {"model": model_class, "data": data_class}
        owners = {k: getattr(v, "name", None) for k, v in classes.items()}

        def check(section: str, key: str) -> None:
            """jsonargparse's refusal of an argument the class's constructor does not take."""
            cls = classes.get(section)
            init = cls.find("__init__", None) if type(cls) is ClassV else None
            if type(init) is FuncV and init.signature.kwarg is None and \
                    key not in init.signature.names[1:] + init.signature.kw_names:
                raise Unresolved(f"jsonargparse exits: `{owners[section]}` takes no argument `{key}` "
                                 f"(LightningCLI's `{section}.{key}`)")

        def merge(section: str, values: Any, where: str) -> None:
            if not isinstance(values, dict):
                raise Unresolved(f"LightningCLI's `{where}`: expected a mapping of arguments")
            if "class_path" in values:  # `model: {class_path: pkg.Lit, init_args: {...}}`
                named = values.get("class_path")
                if not isinstance(named, str) or named.rsplit(".", 1)[-1] != owners.get(section):
                    raise Unresolved(f"LightningCLI's `{where}.class_path` names `{named}`, another class than the "
                                     f"script's {owners.get(section)} (subclass mode, not followed)")
                values = values.get("init_args") or {}
            for key, value in values.items():
                target = sections[section]
                *outer, last = str(key).split(".")
                check(section, outer[0] if outer else last)
                for part in outer:
                    target = target.setdefault(part, {})
                target[last] = value

        i = 0
        while i < len(tokens):
            token = tokens[i]
            if not token.startswith("--"):
                raise Unresolved(f"jsonargparse exits: unrecognized argument `{token}` on LightningCLI's command line")
            key, equals, value = token[2:].partition("=")
            if not equals:
                if i + 1 >= len(tokens):
                    raise Unresolved(f"jsonargparse exits: `--{key}` expects a value")
                value = tokens[i + 1]
                i += 1
            i += 1
            if key in ("config", "c"):
                merge_file = self.cli_config_file(value)
                for section in ("model", "data", "trainer"):
                    if section in merge_file:
                        merge(section, merge_file[section], section)
                continue
            section, _, rest = key.partition(".")
            if section not in sections or section == "data" and data_class is None:
                if section in _CLI_OTHER_KEYS:
                    continue  # (a seed, a checkpoint, an optimizer or a scheduler: no size of the model)
                raise Unresolved(f"jsonargparse exits: LightningCLI has no option `--{key}`")
            if not rest:
                raise Unresolved(f"LightningCLI's `--{key}` names a class or a file (subclass mode, not followed)")
            if rest.startswith("init_args."):
                rest = rest[len("init_args."):]
            try:
                parsed = yaml.safe_load(value)
            except yaml.YAMLError:
                parsed = value
            merge(section, {rest: parsed}, section)
        return subcommand, sections

    def cli_config_file(self, path: str) -> dict[str, Any]:
        """A LightningCLI ``--config`` file: YAML, of the script's folder (where the script runs)."""
        import yaml

        main = next((s for s in self.ctx.scopes if s.is_main), None)
        base = os.path.realpath(os.path.dirname(os.path.abspath(main.path))) if main is not None and main.path else None
        full = os.path.realpath(os.path.join(base, path)) if base is not None else None
        if full is None or not full.startswith(base + os.sep):
            raise Unresolved(f"LightningCLI's `--config {path}` is outside the script's folder, which the analyser "
                             f"does not read")
        self.ctx.disk_reads += 1
        if not os.path.isfile(full):
            raise Unresolved(f"jsonargparse exits: LightningCLI's `--config {path}`: no such file in the script's folder")
        if os.path.getsize(full) > _MAX_SOURCE_BYTES:
            raise Unresolved(f"LightningCLI's `--config {path}` is over 2 MiB, which the analyser does not read")
        try:
            with open(full, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise Unresolved(f"LightningCLI's `--config {path}` cannot be read: {' '.join(str(exc).split())}") from None
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise Unresolved(f"LightningCLI's `--config {path}` is not a mapping")
        return data

    def loaded_text(self, name: str, value: Any, node: ast.AST) -> Any:
        """What ``json.load(f)`` / ``yaml.safe_load(f)`` (or of a string, for YAML) give for a file the
        code opened (open_file) or its text: Python's own values, YAML read safely whatever its Loader
        (no object of a tag is made); _MISSING for anything else."""
        if type(value) is Inst and type(value.cls) is ClassV and value.cls.name == "TextFile" and \
                value.cls.path == FILES_SHIM and type(value.attrs.get("_text")) is str:
            text = "".join(value.attrs["_lines"][value.attrs["_at"]:]) if type(value.attrs.get("_at")) is int \
                else value.attrs["_text"]
            value.attrs["_at"] = len(value.attrs.get("_lines") or ())  # (read to its end, as Python's loaders do)
        elif type(value) is str and name.startswith("yaml."):
            text = value
        else:
            return _MISSING
        if name == "json.load":
            try:
                return json.loads(text)
            except ValueError as exc:
                raise _Raised(f"`{_text(node)}` raises JSONDecodeError: {exc}", ExtV("ValueError"))
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise _Raised(f"`{_text(node)}` raises YAMLError: {' '.join(str(exc).split())}", ExtV("Exception"))

    def project_path(self, path: str, check: str, node: ast.AST, env: Env) -> bool | None:
        """``os.path.exists("data/openwebtext/meta.pkl")`` in the analysed script (nanoGPT's train.py
        reads its vocabulary from there when it is there): answered from the script's folder, where
        the script runs, as it is now, and noted; None (not followed) for a path outside it."""
        if os.path.isabs(path):
            return None
        base = os.path.realpath(os.path.dirname(os.path.abspath(env.module.path)))
        full = os.path.realpath(os.path.join(base, path))
        if full != base and not full.startswith(base + os.sep):
            return None
        self.ctx.disk_reads += 1  # (a count that depends on it is not kept for the next analysis)
        self.note_machine_read("file", f"{check}({path!r})", node, env)
        return _PATH_CHECKS[check](full)

    def package_data(self, package: str, resource: str, node: ast.AST, env: Env) -> Any:
        """``pkgutil.get_data(__name__, "_pruned/x.txt")``: a data file of the project, read as the
        project's source files are (timm's pruned models list their layers' widths in one). Only
        a file under the package's own directory, of at most 2 MiB."""
        scope = env.module
        if package == scope.env.vars.get("__name__") or package == scope.dotted_name:
            directory = os.path.dirname(os.path.abspath(scope.path))
        else:
            found = self.find_project_module(scope, package, 0)
            if found is None:
                return Unknown(f"`{_text(node)}`: `{package}` is not a package of the project", maybe_module=False)
            directory = os.path.dirname(found)
        path = os.path.realpath(os.path.join(directory, *resource.split("/")))
        self.ctx.disk_reads += 1
        if not path.startswith(os.path.realpath(directory) + os.sep) or not os.path.isfile(path):
            return Unknown(f"`{_text(node)}`: no data file `{resource}` in the package")
        if os.path.getsize(path) > _MAX_SOURCE_BYTES:
            return Unknown(f"`{_text(node)}`: `{resource}` is larger than the analyser reads")
        with open(path, "rb") as f:
            return f.read()

    def repeat(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``itertools.repeat(x, n)``: n copies of x (timm's ``to_2tuple`` is ``tuple(repeat(x, 2))``);
        without n it never ends, and a loop over it is not followed."""
        bound = dict(zip(("object", "times"), args), **kwargs)
        if "object" not in bound or len(args) > 2 or set(bound) - {"object", "times"}:
            raise Unresolved(f"`{_text(node)}`: repeat takes an object and a count")
        times = bound.get("times")
        if times is None:
            return Unknown(f"`{_text(node)}` repeats without end")
        if is_unknownish(times):
            return Unknown(f"`{_text(node)}`: the count depends on {_clause(why_of(times))}")
        if type(times) is not int:
            raise Unresolved(f"`{_text(node)}` raises TypeError: the count must be an int")
        if times > MAX_ITERATIONS:
            raise Unresolved(f"`{_text(node)}` repeats {times:,} times, more than the analyser follows "
                             f"({MAX_ITERATIONS:,})")
        return (bound["object"],) * max(times, 0)

    def product(self, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> list[tuple[Any, ...]]:
        """``itertools.product(a, b, repeat=n)`` of known iterables (timm's attention-bias offsets)."""
        times = kwargs.get("repeat", 1)
        if set(kwargs) - {"repeat"} or type(times) is not int or times < 0:
            raise Unresolved(f"`{_text(node)}`: product takes iterables and an int repeat")
        pools = [tuple(self.iterate(a, node)) for a in args] * times
        size = math.prod(len(p) for p in pools)
        if size > MAX_ITERATIONS:
            raise Unresolved(f"`{_text(node)}` makes {size:,} tuples, more than the analyser follows ({MAX_ITERATIONS:,})")
        return list(itertools.product(*pools))

    def pretrained_embedding(self, layer: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, env: Env) -> Inst:
        """``nn.Embedding.from_pretrained(embeddings, freeze=True, ...)``: a table of the tensor's
        shape, frozen unless ``freeze=False`` (torch's classmethod; EmbeddingBag's too)."""
        rest = dict(kwargs)
        table = args[0] if args else rest.pop("embeddings", None)
        freeze = args[1] if len(args) > 1 else rest.pop("freeze", True)
        if len(args) > 2:
            raise Unresolved(f"`{_text(node)}`: pass from_pretrained's options by name")
        if not isinstance(table, (TensorV, Param)) or len(table.shape) != 2:
            why = why_of(table) if is_unknownish(table) else "not a tensor the analyser built"
            raise Unresolved(f"`{_text(node)}`: the embeddings must be a 2-D tensor of known shape ({why})"
                             if not isinstance(table, (TensorV, Param)) else
                             f"`{_text(node)}`: the embeddings are {len(table.shape)}-D; torch needs 2-D")
        inst = Inst(layer, "layer", True, env.module.span_of(node) if env.module.span_of else None)
        self.init_layer(inst, layer, layer, [], {"num_embeddings": table.shape[0], "embedding_dim": table.shape[1], **rest})
        inst.attrs["weight"].requires_grad = not self.truthy(freeze, node)
        self.record_hint(inst, node, env)
        return inst

    def from_hub(self, loader: str, hub_id: str, node: ast.AST, origin: Span | None) -> Any:
        """``<loader>.from_pretrained("org/name")``: the model (or config) the offline catalog
        knows for the id, built as modules with exact shapes; else an Unknown saying why."""
        from lsp_count.pymodel.hub import builds_module, to_inst

        found = self.ctx.hub_model(loader, hub_id)
        config = Inst(f"{loader}.config", "object", False, origin)
        config.attrs.update(found.config or {})
        if found.is_config:
            return config if found.config is not None else Unknown(found.why)
        if not builds_module(loader):
            if "Tokenizer" in loader:
                return _tokenizer(loader, hub_id, origin)
            return Unknown(f"`{_text(node)}` loads a {loader}, not a module", maybe_module=False)
        if found.root is None:
            if found.catalog_total is None:  # not found, or found and not countable: the call, then where it looked
                return Unknown(f"`{_text(node)}`: {found.why}", maybe_module=True)
            return Unknown(found.why, maybe_module=True)
        inst = to_inst(found.root, origin, Inst, Param)
        inst.attrs["config"] = config  # `self.backbone.config.hidden_size`; not a module, not counted
        return inst

    def tensor_factory(self, fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if fn.endswith("_like"):
            src = args[0] if args else None
            if isinstance(src, (TensorV, Param)):
                return TensorV(tuple(src.shape), floating=_is_floating(src) if "dtype" not in kwargs else
                               _floating_dtype(kwargs["dtype"]))
            raise Unresolved(f"`{_text(node)}`: the source tensor's shape is unknown"
                             + (f" ({why_of(src)})" if is_unknownish(src) else ""))
        legacy = _LEGACY_CONSTRUCTORS.get(fn)  # torch.FloatTensor(3, 4), pygcn's DoubleTensor: that dtype
        if legacy is not None and not args and not kwargs:
            return _legacy_tensor((0,), fn)  # `nn.Parameter(torch.Tensor())`: empty
        if (legacy is not None or fn == "from_numpy") and len(args) == 1 and not kwargs and \
                isinstance(args[0], (TensorV, Param)) and _values_of(args[0]) is None:
            # a numpy array, or another tensor (graphsage's `torch.FloatTensor(np.zeros((7, 3)))`): a copy of its shape
            return _legacy_tensor(tuple(args[0].shape), fn) if legacy else \
                TensorV(tuple(args[0].shape), floating=_is_floating(args[0]))
        if (legacy is not None or fn in ("tensor", "as_tensor", "from_numpy")) and args and isinstance(args[0], Unknown):
            return Unknown(f"`{_text(node)}`: the data's shape is unknown ({args[0].why})")
        if (legacy is not None or fn == "from_numpy") and len(args) == 1 and not kwargs and _values_of(args[0]) is not None:
            # torch.Tensor(np.linspace(...)): the array's values as float32 (from_numpy: in its dtype)
            return _tensor_from_values(args[0], ExtV(f"torch.{legacy}") if legacy else None, node)
        if fn in ("tensor", "as_tensor"):
            data = args[0] if args else kwargs.get("data")
            valued = _tensor_from_values(data, kwargs.get("dtype"), node)
            if valued is not None:
                return valued
            if isinstance(data, (int, float, bool)):  # torch's dtype for a Python number (an int's is int64)
                wanted = kwargs.get("dtype")
                declared = _dtype_argument(wanted) if wanted is not None else \
                    "bool" if type(data) is bool else "int64" if type(data) is int else None
                return TensorV((), floating=_floating_dtype(wanted) if wanted is not None else type(data) is float,
                               declared=declared)
            if type(data) in _TENSORS:  # `torch.tensor(np.identity(4))`: a copy of an array or a tensor
                return TensorV(tuple(data.shape), floating=_is_floating(data) if kwargs.get("dtype") is None
                               else _floating_dtype(kwargs["dtype"]))
            if isinstance(data, (list, tuple)):
                shape = []
                cur: Any = data
                while isinstance(cur, (list, tuple)):
                    shape.append(len(cur))
                    cur = cur[0] if cur else None
                return TensorV(tuple(shape))
            return Unknown(f"`{_text(node)}`: the data's shape is unknown")
        if fn == "eye":
            n = as_int(args[0] if args else kwargs.get("n"), "n")
            m = as_int(args[1], "m") if len(args) > 1 else kwargs.get("m", n)
            return TensorV((n, m), floating=_floating_dtype(kwargs.get("dtype", _DEFAULT_DTYPE)))
        if fn in ("arange", "linspace"):
            if fn == "linspace":
                steps = as_int(args[2] if len(args) > 2 else kwargs.get("steps"), "steps")
                start = args[0] if args else kwargs.get("start")
                end = args[1] if len(args) > 1 else kwargs.get("end")
                return TensorV((steps,), _linspace(start, end, steps), dtype="float32")
            if set(kwargs) & {"start", "end", "step"}:  # `arange(0, n, step=2)`: the bounds by name, as torch binds them
                args = _arange_bounds(list(args), kwargs, node)
            if any(type(a) is float for a in args):  # in the default dtype, unless one is asked for
                length = _float_arange(args, node).shape
                return TensorV(length, floating=_floating_dtype(kwargs.get("dtype", _DEFAULT_DTYPE)))
            vals = [as_int(a, "arange bound") for a in args]
            if any(isinstance(v, Sym) for v in vals):
                if len(vals) == 1 or (len(vals) == 2 and vals[0] == 0):
                    return TensorV((vals[-1],))  # arange(n): n long, a formula as other sizes are
                if all(isinstance(v, (Sym, int)) for v in vals):
                    # arange(0, dim, 2): its length a name of its own in a formula (a rotary embedding's
                    # frequencies: a buffer, so a class of no parameters is counted whatever dim is).
                    return TensorV((sym_opaque(f"len(range({', '.join(render(v) for v in vals)}))", *vals),))
                raise Unresolved(f"`{_text(node)}`: the length depends on {'; '.join(why_of(v) for v in vals if isinstance(v, Sym))}")
            try:
                r = range(*vals)
            except (TypeError, ValueError) as exc:  # no bounds, a step of 0
                raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
            dtype = _dtype_argument(kwargs.get("dtype"))
            values = tuple(r) if len(r) <= MAX_ITERATIONS else None
            if values is not None and dtype is not None and dtype != "int64":
                try:
                    values = tuple(tensor_values.cast_number(x, dtype) for x in values)
                except tensor_values.Undecidable:
                    values, dtype = None, None
            return TensorV((len(r),), values, dtype=(dtype or "int64") if values is not None else None)
        if fn == "full":
            size = args[0] if args else kwargs.get("size")
            shape = tuple(as_int(d, "size") for d in (size if isinstance(size, (tuple, list)) else (size,)))
            fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
            inferred = "bool" if type(fill) is bool else "int64" if type(fill) is int else "float32"
            filled = _filled(shape, fill, _dtype_argument(kwargs.get("dtype")) or inferred, kwargs)
            return filled if filled is not None else TensorV(shape)
        if fn in _LEGACY_CONSTRUCTORS and len(args) == 1 and not kwargs and isinstance(args[0], (tuple, list)):
            # torch.Tensor([3, 4]) holds the data 3 and 4; torch.Tensor(x.size()), a torch.Size, is a size.
            argument = node.args[0] if isinstance(node, ast.Call) and node.args else None
            if isinstance(args[0], list) or isinstance(argument, ast.Tuple) or any(type(x) is float for x in args[0]):
                # A list, a tuple written out, or one holding a float (a torch.Size holds ints only:
                # SwinIR's `rgb_mean = (0.4488, 0.4371, 0.4040)`): the data.
                return _legacy_data(fn, args[0], node)
            if not _is_size_expression(argument):
                raise Unresolved(f"`{_text(node)}`: a tuple is the tensor's data, a torch.Size its size; which "
                                 f"this one is, the analyser does not know")
        dims = args
        if fn == "randint":  # randint(high, size) or randint(low, high, size); `size=` the keyword
            dims = [kwargs["size"]] if "size" in kwargs else [args[-1]] if args else [None]
            dims = list(dims[0]) if isinstance(dims[0], (tuple, list)) else dims
        elif len(args) == 1 and isinstance(args[0], (tuple, list)):
            dims = list(args[0])
        elif not args and "size" in kwargs:
            dims = list(kwargs["size"])
        # zeros, ones, empty, randn, rand: the default dtype unless one is asked for; randint: int64.
        floating = _floating_dtype(kwargs.get("dtype", _DEFAULT_DTYPE if fn in _DEFAULT_DTYPE_FACTORIES else
                                              ExtV("torch.int64") if fn == "randint" else None))
        if fn != "randint" and dims and type(dims[0]) is bool:  # (the message's text only when it is said)
            no_bool_first_size(dims, f"the size of `{_text(node)}`")
        shape = tuple(as_int(d, "tensor size") for d in dims)
        if legacy is not None:
            return _legacy_tensor(shape, fn)
        default = self.ctx.torch_defaults["dtype"]
        if fn in ("zeros", "ones"):  # SlowFast's MViT: `dim_mul = torch.ones(depth + 1)`, then `dim_mul[i] = 2.0`
            filled = _filled(shape, 0 if fn == "zeros" else 1, _dtype_argument(kwargs["dtype"]) if "dtype" in kwargs
                             else default, kwargs)
            if filled is not None:
                return filled
        return TensorV(shape, floating=floating, declared=_dtype_argument(kwargs.get("dtype")) or (
            "int64" if fn == "randint" else default if fn in _DEFAULT_DTYPE_FACTORIES else None))

    def join_tensors(self, fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """``torch.cat`` / ``torch.stack`` of tensors the analyser built (BLIP-2's
        ``torch.cat((q_bias, torch.zeros_like(v_bias), v_bias))``)."""
        tensors = args[0] if args else kwargs.get("tensors")
        dim = args[1] if len(args) > 1 else kwargs.get("dim", kwargs.get("axis", 0))
        if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, (TensorV, Param)) for t in tensors):
            unknown = _unknown_in(list(tensors) if isinstance(tensors, (list, tuple)) else [tensors])
            return Unknown(f"`{_text(node)}`: " + (unknown.why if unknown else "not a list of tensors the analyser built"))
        try:
            shape = (shapes.stack_shape if fn == "stack" else shapes.cat_shape)([tuple(t.shape) for t in tensors], dim)
        except shapes.ShapeError as exc:
            raise Unresolved(f"`{_text(node)}`: {exc} (torch raises)")
        return TensorV(shape) if shape is not None else Unknown(f"`{_text(node)}`: the result's shape is not known")

    def make_container(self, kind: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST, origin: Span | None,
                       env: Env) -> Inst:
        inst = Inst(kind, CONTAINERS[kind], True, origin)
        if kind == "Sequential":
            if len(args) == 1 and isinstance(args[0], dict):
                for k, v in args[0].items():
                    inst.attrs[_registered_key("module", k, node, inst)] = self.check_member(v, kind, node)
            else:
                for i, v in enumerate(args):
                    inst.attrs[str(i)] = self.check_member(v, kind, node)
        elif kind in ("ModuleList", "ParameterList"):
            src = args[0] if args else kwargs.get("modules", kwargs.get("values"))
            if src is not None:
                for i, v in enumerate(self.iterate(src, node)):
                    inst.attrs[str(i)] = self.check_member(v, kind, node)
        else:
            src = args[0] if args else kwargs.get("modules", kwargs.get("parameters"))
            if isinstance(src, Inst) and src.kind in ("dict", "pdict"):
                src = dict(src.attrs)
            if isinstance(src, dict):
                items = list(src.items())
            elif src is None:
                items = []
            else:
                items = list(self.iterate(src, node))
                if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in items):
                    raise Unresolved(f"`{_text(node)}`: nn.{kind} takes (name, module) pairs")
            for k, v in items:
                inst.attrs[_registered_key("parameter" if kind == "ParameterDict" else "module", k, node, inst)] = \
                    self.check_member(v, kind, node)
        self.record_hint(inst, node, env)
        return inst

    def set_default_dtype(self, name: str, value: Any, node: ast.AST) -> None:
        """``torch.set_default_dtype(torch.float64)``: the dtype torch's layers and factories make their
        floating-point tensors in from here on; ``set_default_tensor_type("torch.DoubleTensor")`` sets it
        from a legacy tensor type. torch refuses a dtype that is not floating-point (TypeError); one the
        analyser does not know leaves the default not known (a read of it is not followed)."""
        if name == "torch.set_default_tensor_type":
            type_name = value.name if type(value) is ExtV else value if isinstance(value, str) else ""
            dtype = _LEGACY_CONSTRUCTORS.get(type_name.rpartition(".")[2]) if type_name.startswith("torch.") else None
        else:
            dtype = _dtype_argument(value) if type(value) is ExtV else None
        if dtype is not None and dtype not in _DEFAULT_DTYPES:
            raise _Raised(f"`{_text(node)}` raises TypeError: only floating-point types are supported as the default "
                          f"type", ExtV("TypeError"))
        defaults = self.ctx.torch_defaults
        if defaults["dtype"] != dtype:
            self.ctx.logged_write(defaults, "dtype")  # a count's own setting is undone after it
            defaults["dtype"] = dtype
            self.state_written(True)  # the builds kept before made their tensors in the old default
        return None

    def init_layer(self, inst: Inst, cls_name: str, layer: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        """torch's constructor of the layer makes the instance's parameters: ``nn.Linear(3, 4)``, or
        ``class Norm(nn.LayerNorm)`` built through the layer's constructor (``cls_name`` names it)."""
        since = next_serial()
        if layer in LAYERS:
            sig, builder = LAYERS[layer]
            bound = bind(layer, sig, tuple(args), kwargs)  # checks the arguments, even with nothing to build
            if builder is not None:
                try:
                    builder(inst, bound, inst.origin, self.make_layer)
                except Unresolved as exc:
                    # "out_features is unknown" named the layer's argument, not the code's variable: say whose
                    # (torch's error from the layer's checks, which the code may catch, too).
                    if type(exc) is _Raised and exc.kind is not None:
                        said = exc.reason if exc.reason.startswith("nn.") else f"nn.{layer}'s {exc.reason}"
                        raise _Raised(said, exc.kind) from None
                    if type(exc) is not Unresolved:
                        raise
                    raise Unresolved(f"nn.{layer}'s {exc.reason}", exc.span) from None
                if kwargs.get("dtype") is not None:  # `nn.Linear(4, 4, dtype=torch.bfloat16)`
                    dtype = kwargs["dtype"]
                    named = "int64" if dtype is _BUILTINS["int"] else "bool" if dtype is _BUILTINS["bool"] else \
                        _dtype_argument(dtype)
                    if named is not None and not _can_require_grad(named) and \
                            any(p.requires_grad for _, p in params_of(inst)):
                        raise _Raised(f"nn.{layer}(dtype={named}) raises RuntimeError: only tensors of floating point "
                                      f"and complex dtype can require gradients", ExtV("RuntimeError"))
                    floating = _floating_dtype(kwargs["dtype"])
                    for _, p in params_of(inst):
                        p.floating = floating
                self.layer_dtype(inst, since, sig, args, kwargs)
            inst.layer_args = (layer, bound)
            override = inst.cls.find("reset_parameters", None) if type(inst.cls) is ClassV else None
            if type(override) is FuncV and layer in _RESETS_IN_INIT and bound.get("_weight") is None:
                # torch's constructor calls `self.reset_parameters()`: a subclass's override runs there
                # (one that adds a parameter adds it; one that reads a part made later raises, as in torch).
                self.call_function(override, [inst], {}, override.node)
        elif layer in STACKS:
            from lsp_count.pymodel.layers import _stack

            sig, key = STACKS[layer]
            _stack(inst, bind(layer, sig, tuple(args), kwargs), inst.origin, self.make_layer, key, clone)
            self.layer_dtype(inst, since, sig, args, kwargs)
        elif layer not in PARAMETERLESS:
            raise Unresolved(f"`{cls_name}` extends `nn.{layer}`, which is not in the analyser's layer table")

    def layer_dtype(self, inst: Inst, since: int, sig: list[tuple[str, Any]], args: list[Any],
                    kwargs: dict[str, Any]) -> None:
        """The dtype of the parameters a torch layer's constructor made (those of serial ``since`` on,
        its inner layers' too): its ``dtype`` argument (a keyword, or positional after ``device`` in
        QLoRA-style subclasses), which torch passes to its inner layers, else torch's default dtype;
        None where the analyser does not know it."""
        given = kwargs.get("dtype", args[len(sig) + 1] if len(args) > len(sig) + 1 else None)
        if given is None:  # (the usual case: its own parameters; its inner layers' were set as they were built)
            dtype = self.ctx.torch_defaults["dtype"]
            for v in inst.attrs.values():
                if type(v) is Param and v.declared is None and v.floating:
                    v.declared = dtype
            return
        dtype = _dtype_argument(given)
        for _, p in params_of(inst):
            if p.serial >= since:
                p.declared = dtype

    def init_container(self, inst: Inst, kind: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
        """``class Head(nn.Sequential): super().__init__(...)``: the instance is the container
        (``node``: the code that builds it, which messages name)."""
        built = self.make_container(kind, args, kwargs, node, inst.origin, self.ctx.call_env())
        inst.kind = built.kind
        inst.attrs.update(built.attrs)

    def check_member(self, v: Any, kind: str, node: ast.AST | str) -> Any:
        """What an nn container holds of ``v``: a ParameterList or ParameterDict makes a plain tensor
        a parameter, as torch does wherever one is put in (the constructor, append, extend, ``+=``,
        ``[k] = t``, update, setdefault). ``node``: the code that puts it in, or its words."""
        if kind.startswith("Parameter"):
            if isinstance(v, TensorV):  # made a parameter that requires grad: torch refuses an integer tensor
                declared = _declared(v)
                if declared is not None and not _can_require_grad(declared):
                    raise _Raised(f"`{node if isinstance(node, str) else _text(node)}` raises RuntimeError: only "
                                  f"tensors of floating point and complex dtype can require gradients (an element of "
                                  f"nn.{kind} is {declared})", ExtV("RuntimeError"))
                return Param(v.shape, "other", floating=_is_floating(v), declared=declared)
            if v is None:
                return None  # an empty slot, as torch keeps it (transformer-xl's projections where none is needed)
            if (type(v) is Inst and v.is_module) or type(v) in (int, float, bool, str):
                return v  # torch sets it as an attribute: a module is a submodule (aurora's LevelConditioned), a number stays one
            if not isinstance(v, Param):
                raise Unresolved(f"`{node if isinstance(node, str) else _text(node)}`: an element of nn.{kind} is not a "
                                 f"parameter the analyser built ({why_of(v) or _described(v)})")
            return v
        if isinstance(v, Inst) and v.is_module:
            return v
        if isinstance(v, Unknown) or v is None:  # None: torch's add_module keeps an empty slot
            return v
        what = why_of(v) or (f"a `{v.type_name}` object, not a module" if type(v) is Inst else _described(v))
        raise Unresolved(f"`{node if isinstance(node, str) else _text(node)}`: an element of nn.{kind} is not a known "
                         f"module ({what})")


def _fan_in_and_fan_out(tensor: Any, node: ast.AST) -> tuple[Any, Any]:
    """``torch.nn.init._calculate_fan_in_and_fan_out(w)``, as torch computes it from the shape
    (timm's ``lecun_normal_`` runs it in a constructor)."""
    if not isinstance(tensor, (TensorV, Param)):
        raise Unresolved(f"`{_text(node)}`: the tensor's shape is unknown ({why_of(tensor) or 'not a tensor'})")
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise _Raised(f"`{_text(node)}`: fan in and fan out need a tensor of 2 or more dimensions (ValueError)",
                      ExtV("ValueError"))
    if not all(type(d) is int for d in shape):
        unknown = next(d for d in shape if type(d) is not int)
        raise Unresolved(f"`{_text(node)}`: the tensor's shape depends on {_clause(why_of(unknown)) or render(unknown)}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _split_values(values: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any], node: ast.AST,
                  dtype: str | None = None) -> tuple[TensorV, ...]:
    """``torch.linspace(0, rate, sum(depths)).split(depths)``: a 1-D tensor of known values in
    pieces of the given sizes (a list), or of one size (an int, the last piece shorter), as torch
    splits it; the stage-by-stage stochastic-depth rates of ConvNeXt and other timm models."""
    bound = dict(zip(("split_size_or_sections", "dim"), args), **kwargs)
    sizes, dim = bound.get("split_size_or_sections"), bound.get("dim", 0)
    if len(args) > 2 or set(bound) - {"split_size_or_sections", "dim"} or dim not in (0, -1):
        raise Unresolved(f"`{_text(node)}`: the analyser splits a 1-D tensor by its sizes only")
    if type(sizes) is int and sizes > 0:
        sizes = [min(sizes, len(values) - i) for i in range(0, len(values), sizes)] or [0]
    if not isinstance(sizes, (list, tuple)) or not all(type(n) is int and n >= 0 for n in sizes):
        raise Unresolved(f"`{_text(node)}`: the sizes are not known numbers ({why_of(sizes) or render(sizes)})")
    if sum(sizes) != len(values):
        raise Unresolved(f"`{_text(node)}`: sizes summing to {sum(sizes)} split {len(values)} values (torch raises)")
    pieces, start = [], 0
    for n in sizes:
        pieces.append(TensorV((n,), values[start:start + n], dtype=dtype))
        start += n
    return tuple(pieces)


# --- the values of small tensors (tensor_values.py) ------------------------------------------

_VALUED_LIMIT = 4_096  # values computed for tensors of at most this many (RegNet's widths: a few dozen)
_VALUE_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
              ast.Mod: "mod", ast.Pow: "pow"}
_METHOD_OPS = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "div": ast.Div, "pow": ast.Pow}
# torch.<name>(a, b): elementwise arithmetic, as the operator (torch.divide is true division).
_TORCH_BINARY = {"add": ast.Add, "sub": ast.Sub, "subtract": ast.Sub, "mul": ast.Mult, "multiply": ast.Mult,
                 "div": ast.Div, "divide": ast.Div, "true_divide": ast.Div, "pow": ast.Pow,
                 "floor_divide": ast.FloorDiv, "remainder": ast.Mod}
_CASTS = {"int": "int32", "long": "int64", "short": "int16", "float": "float32", "double": "float64"}
# torch.<name>(t) and t.<name>() both; the methods also cast and flip.
# torch.<name>(t, ...) and t.<name>(...) (but einsum): Interpreter.shape_function.
_SHAPE_FUNCTIONS = frozenset({"split", "chunk", "unbind", "outer", "kron", "tile", "repeat_interleave", "tril",
                              "triu", "einsum"})
_SHAPE_METHOD_FUNCTIONS = frozenset({"flatten", "transpose", "unsqueeze", "squeeze", "reshape", "t", "max", "min", "norm",
                                     "diag", "diagonal",
                                     "median", "argmax", "argmin", "all", "any", "topk", "sort"})  # torch.f(t, ...) is t.f(...)
_TORCH_VALUE_FUNCTIONS = tensor_values.UNARY_FUNCTIONS | {"unique", "diff", "max", "min", "sum", "cumsum", "prod"}
_VALUE_METHODS = _TORCH_VALUE_FUNCTIONS | frozenset(_CASTS) | {"to", "flip", "astype"}



def _numpy_dtype_name(dtype: Any) -> str | None:
    """A numpy dtype argument's name (np.int32, "float32": numpy's names are torch's; int, float and
    bool are its defaults); None for any other value."""
    if dtype is _BUILTINS["int"] or dtype is _BUILTINS["float"] or dtype is _BUILTINS["bool"]:
        return {"int": "int64", "float": "float64", "bool": "bool"}[dtype.name]
    if isinstance(dtype, str):
        return dtype if dtype in _NUMPY_DTYPES else None
    name = dtype.name.partition(".")[2] if type(dtype) is ExtV and dtype.name.startswith("numpy.") else None
    return name if name in _NUMPY_DTYPES else None


def _legacy_tensor(shape: tuple[Any, ...], fn: str) -> TensorV:
    """A tensor of a legacy constructor (``torch.DoubleTensor``), of its values not known, in its dtype."""
    dtype = _LEGACY_CONSTRUCTORS[fn]
    return TensorV(shape, floating=dtype in FLOATING_DTYPES, declared=dtype)


def _legacy_data(fn: str, data: list[Any] | tuple[Any, ...], node: ast.AST) -> TensorV:
    """``torch.Tensor([3, 4])``: a tensor of that data (its shape from the nesting; the values of
    a flat list of numbers kept, in the constructor's dtype)."""
    shape: list[int] = []
    level: Any = data
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        level = level[0] if level else None
    if not all(isinstance(x, (int, float, bool, list, tuple)) for x in data):
        if data and all(type(x) in _TENSORS for x in data) and len({tuple(x.shape) for x in data}) == 1:
            return _legacy_tensor((len(data), *data[0].shape), fn)  # `torch.LongTensor([rows, cols])` of index arrays
        if data and all(type(x) in (Unknown, Sym, int, float, bool) for x in data):
            return _legacy_tensor((len(data),), fn)  # KGE's `torch.Tensor([(gamma + eps) / dim])`: one number
        raise Unresolved(f"`{_text(node)}`: the data is not known numbers")
    valued = _tensor_from_values(list(data), ExtV(f"torch.{_LEGACY_CONSTRUCTORS[fn]}"), node) if len(shape) == 1 else None
    return valued if valued is not None else TensorV(tuple(shape))


def _is_size_expression(e: ast.expr | None) -> bool:
    """``x.size()``, ``x.shape``, ``torch.Size(...)`` or a slice of one: a torch.Size."""
    while isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
        e = e.value
    if isinstance(e, ast.Attribute):
        return e.attr == "shape"
    if isinstance(e, ast.Call):
        func = e.func
        return (isinstance(func, ast.Attribute) and func.attr in ("size", "Size")) or (
            isinstance(func, ast.Name) and func.id == "Size")
    return False


def _set_values(t: TensorV | Param, source: TensorV | None) -> None:
    """``t``'s values become ``source``'s (computed in place, in ``t``'s dtype), or unknown. A
    tensor is changed where torch changes it, so every name holding it sees the change."""
    if type(t) is not TensorV:
        return
    if source is None or source.values is None or source.dtype != t.dtype or t.dtype is None:
        _forget_values(t)
        return
    object.__setattr__(t, "values", source.values)
    object.__setattr__(t, "errors", source.errors)


def _write_values(t: TensorV, key: Any, value: Any, node: ast.AST) -> bool:
    """``t[key] = value`` for a 1-D tensor of known values, an int or slice key and a number or a
    tensor of known values: its values written as torch writes them (cast to ``t``'s dtype, a single
    value broadcast); False where they are not known after it (the caller forgets them)."""
    if len(t.shape) != 1 or t.dtype is None or type(key) not in (int, slice) or t.errors is not None:
        return False
    if type(key) is slice and any(type(part) not in (int, bool, type(None)) for part in (key.start, key.stop, key.step)):
        return False  # a bound the analyser does not know (`levels[j + k:]` of an unknown k): not known after it
    items = list(t.values)  # type: ignore[arg-type]
    if type(key) is int:
        if not -len(items) <= key < len(items):
            raise _Raised(f"`{_text(node)}` raises IndexError: index {key} is out of bounds for size {len(items)}",
                          ExtV("IndexError"))
        places = [key % len(items)]
    else:
        places = list(range(len(items))[key])
    source = _exact_items(value)
    if source is None:
        return False
    if len(source) not in (1, len(places)):
        raise _Raised(f"`{_text(node)}` raises RuntimeError: {len(source)} values do not fit {len(places)} places",
                      ExtV("RuntimeError"))
    try:
        for i, place in enumerate(places):
            items[place] = tensor_values.cast_number(source[0] if len(source) == 1 else source[i], t.dtype)
    except tensor_values.Undecidable:
        return False
    object.__setattr__(t, "values", tuple(items))
    return True


def _registered_key(kind: str, key: Any, node: ast.AST | None = None, owner: Inst | None = None) -> str:
    """The name a module, parameter or buffer is registered under in ``owner``, as torch checks it:
    a string (`nn.ModuleDict({1: ...})` raises TypeError), with no "." (widedeep's
    `ParameterDict["bias_" + col]` of a column named "c.x": KeyError), and not a name the module
    already has otherwise (Vision-Mamba's `nn.ModuleDict({"forward": ...})`, a class attribute
    `bias = None` then `register_parameter("bias", ...)`: KeyError)."""
    key = _member_value(key)
    if key is None or type(key) in (int, float, bool, tuple, bytes):
        raise _Raised(f"{_raises(node)} TypeError: {kind} name should be a string. Got {type(key).__name__}",
                      ExtV("TypeError"))
    name = str(key)
    if "." in name or name == "":
        why = f'contain ".", got: {name}' if name else "be empty"
        raise _Raised(f"{_raises(node)} KeyError: a {kind} name can't {why}", ExtV("KeyError"))
    # A ParameterDict sets its entries through Module.__setattr__, which first drops an instance
    # attribute of the name (`training`): only its class's names are taken there.
    if owner is not None and name not in owner.attrs and (
            (name in MODULE_INSTANCE_ATTRIBUTES and owner.kind != "pdict") or _class_attribute_named(owner, name)):
        raise _Raised(f"{_raises(node)} KeyError: attribute '{name}' already exists", ExtV("KeyError"))
    return name


def _raises(node: ast.AST | None) -> str:
    """A message's subject: the code's call, where there is one (unparsed only for a message)."""
    return f"`{_text(node)}` raises" if node is not None else "torch raises"


def _class_attribute_named(obj: Inst, name: str) -> bool:
    """Whether the module's class has an attribute ``name`` (a method, a property, a class variable:
    its own, its bases', torch's); dunder names are left out (every class has some)."""
    if name[:2] == "__" and name[-2:] == "__":
        return False
    cls = obj.cls
    if type(cls) is str:
        return torch_class_has(cls, name)
    if type(cls) is ClassV:
        found = cls.find(name, _MISSING)
        if found is not _MISSING:
            # a property: torch's hasattr runs its getter, which may raise AttributeError (not followed: free)
            return not (type(found) is FuncV and found.kind in ("property", "cached"))
        return torch_class_has(_torch_layer_base(cls) or _torch_container_base(cls) or "Module", name)
    return False


def _forget_values(t: TensorV | Param) -> None:
    if type(t) is TensorV and t.values is not None:
        object.__setattr__(t, "values", None)
        object.__setattr__(t, "dtype", None)
        object.__setattr__(t, "errors", None)


def _release_version(text: str, parser: str) -> ReleaseVersion | None:
    """A version compared as the parser's objects are: packaging's as packaging orders them
    (trailing zeros ignored, "5.0.0.dev0" before "5.0.0rc1" before "5.0.0"); LooseVersion's, of a
    plain release ("2.13.0") only, by its numbers as written. None for anything else, which is not
    followed."""
    if parser != "distutils.version.LooseVersion":
        return packaging_version(text)
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        return None
    parts = tuple(int(p) for p in text.split("."))
    return ReleaseVersion((1, parts), text, parts, release=parts)


def _complex_view(as_real: bool, t: TensorV | Param, node: ast.AST) -> TensorV:
    """``torch.view_as_real(c)``: a complex tensor's (..., 2) view of floats; ``view_as_complex`` the
    reverse, of a last dimension of 2. Where the analyser knows the tensor is of a floating-point
    dtype (``randn``'s), view_as_real raises as torch does; a complex one is not told from an integer
    one (both are not floating-point here), and is taken as complex."""
    shape = tuple(t.shape)
    if as_real:
        if _is_floating(t):
            raise _Raised(f"`{_text(node)}`: view_as_real is only supported for complex tensors (torch raises "
                          f"RuntimeError)", ExtV("RuntimeError"))
        return TensorV(shape + (2,), contiguous=_contiguous(t), floating=True)
    if not shape or (type(shape[-1]) is int and shape[-1] != 2) or _is_floating(t) is False:
        raise _Raised(f"`{_text(node)}`: view_as_complex needs a floating-point tensor whose last dimension is 2 "
                      f"(torch raises RuntimeError)", ExtV("RuntimeError"))
    return TensorV(shape[:-1], contiguous=_contiguous(t), floating=False)


def _numpy_float(fn: str, value: float, x: int | float, y: int | float | None = None) -> float | TensorV:
    """A float64 numpy computes with its own routines (``np.log``, ``np.power``), which may differ from
    Python's math in the last bit (a hypothesis test against numpy found it for power, log10, exp,
    ...): the value itself where the exact result is a float (log2 of a power of two, a square root,
    which IEEE rounds exactly everywhere, an integral power that fits), else a 0-d float64 tensor
    carrying an error bound, as torch's log / exp / pow values do (tensor_values): it computes on,
    and int() or rounding of it is decided only where the bound cannot change the result."""
    if type(value) is not float or not math.isfinite(value) or _exact_numpy_result(fn, value, x, y):
        return value
    return TensorV((), (value,), dtype="float64", errors=(8 * math.ulp(value),))


def _exact_numpy_result(fn: str, value: float, x: int | float, y: int | float | None) -> bool:
    """Whether ``value`` is fn's exact mathematical result (any faithful routine returns it then)."""
    if fn in ("sqrt", "ceil", "floor", "round", "around", "rint", "abs", "absolute", "fabs"):
        return True  # sqrt is correctly rounded by IEEE 754 (numpy's and math's agree everywhere); the rest are exact
    if fn in ("sin", "tan", "log1p", "expm1") and x == 0:
        return True
    if fn == "cos" and x == 0 or fn == "exp" and x == 0:
        return value == 1.0
    if fn in ("log", "log2", "log10") and value.is_integer() and x > 0:
        base = {"log": None, "log2": 2, "log10": 10}[fn]
        return (x == 1) if base is None else Fraction(x) == Fraction(base) ** int(value)
    if fn == "power" and y is not None and float(y).is_integer() and x != 0 and abs(y) <= 2048:
        return Fraction(value) == Fraction(x) ** int(y)
    return False


def _numpy_power(floating: bool, base: int | float, exponent: int | float) -> int | float | TensorV | None:
    """``np.power`` of two Python numbers as numpy computes it: float64 where either is a float (its
    last bit numpy's own: _numpy_float), an int64 of two ints; None where numpy's answer is not
    Python's (a negative base to a fractional power is nan, not complex; an overflow is inf or wraps;
    an int to a negative int power raises)."""
    if floating or type(base) is float or type(exponent) is float:
        if base < 0 and not float(exponent).is_integer():
            return None
        try:
            return _numpy_float("power", float(base) ** float(exponent), base, exponent)
        except (OverflowError, ZeroDivisionError):
            return None
    if exponent < 0 or (base not in (0, 1, -1) and exponent * math.log2(abs(base)) >= 62):
        return None
    return base ** exponent


def _nested_shape(data: Any, depth: int = 0) -> tuple[Any, ...] | None:
    """The shape numpy gives nested lists of numbers and arrays of the same shape; None where it is
    ragged or an item is anything else."""
    t = type(data)
    if t in (int, float, bool):
        return ()
    if t is TensorV and all(type(d) is int for d in data.shape):
        return tuple(data.shape)
    if t not in (list, tuple) or depth > 32 or not data:
        return (0,) if t in (list, tuple) and not data else None
    first = _nested_shape(data[0], depth + 1)
    if first is None or any(_nested_shape(x, depth + 1) != first for x in data[1:]):
        return None
    return (len(data),) + first


def _numpy_reduction(fn: str, data: Any) -> Any:
    """``np.sum(widths)``, ``np.max``, ``np.argsort`` ... of a list of Python numbers or a 1-D array
    of known values, as numpy computes them (its scalars as Python's numbers: an int64 sum is an
    int, a float64 a float); _MISSING where the analyser cannot be sure of numpy's answer (a float
    sum of eight or more, which numpy adds pairwise; ties in an argsort, whose sort is not stable)."""
    values = _values_of(data)
    items = list(values.items) if values is not None else list(data) if isinstance(data, (list, tuple)) else None
    if items is None or len(items) > _VALUED_LIMIT or not all(type(x) in (int, float, bool) for x in items) or \
            any(x != x for x in items):
        return _MISSING
    floating = any(type(x) is float for x in items) or (values is not None and values.dtype.startswith("float"))
    if fn in ("argsort", "argmax", "argmin"):
        if not items and fn != "argsort":
            return _MISSING  # numpy raises on an empty sequence
        if fn == "argsort":
            if len(set(items)) < len(items):
                return _MISSING  # numpy's default sort is not stable: equal items come in its own order
            return TensorV((len(items),), tuple(sorted(range(len(items)), key=items.__getitem__)), dtype="int64")
        best = max(items) if fn == "argmax" else min(items)
        return items.index(best)  # the first of equal ones, as numpy
    if fn in ("max", "min", "amax", "amin"):
        if not items:
            return _MISSING
        found = max(items) if fn in ("max", "amax") else min(items)
        return float(found) if floating else bool(found) if all(type(x) is bool for x in items) else int(found)
    if floating and len(items) >= 8:
        return _MISSING
    total: Any = 0.0 if floating or not items else 0
    for x in items:  # numpy's loop below eight items: in order, from zero
        total += float(x) if floating else int(x)
    if fn == "sum":
        return total
    return total / len(items) if items else _MISSING  # mean (numpy warns and gives nan for none)


def _tensor_rows(t: TensorV | Param) -> list[TensorV]:
    """A tensor's rows (its first dimension's length, an int), of values the analyser does not know."""
    return [TensorV(tuple(t.shape[1:]), floating=t.floating) for _ in range(t.shape[0])]


def _exact_items(v: Any, numbers: tuple[type, ...] = (int, float, bool)) -> tuple[Any, ...] | None:
    """A number as one item, or a tensor's values where they are known exactly; None otherwise."""
    if type(v) in numbers:
        return (v,)
    values = _values_of(v)
    return values.items if values is not None and values.errors is None else None


def _elementwise_pairs(left: Any, right: Any, numbers: tuple[type, ...] = (int, float, bool)) -> Any:
    """The pairs of exactly known values an elementwise operation of two sides takes, one side of a
    single value broadcast; None where a side's values are not known or the lengths do not fit."""
    a, b = _exact_items(left, numbers), _exact_items(right, numbers)
    if a is None or b is None or (len(a) != len(b) and 1 not in (len(a), len(b))):
        return None
    return zip(a * len(b) if len(a) == 1 else a, b * len(a) if len(b) == 1 else b)


def _extremum(name: str, left: Any, right: Any, shaped: Any) -> Any:
    """``a.maximum(b)`` / ``a.minimum(b)``: of the broadcast shape (``shaped``: their sum's), with the
    values where both sides' are known exactly."""
    if type(shaped) is not TensorV:
        return shaped
    pick = max if name == "maximum" else min
    pairs = _elementwise_pairs(left, right, (int, float))
    if pairs is None or shaped.values is None:
        return TensorV(tuple(shaped.shape), contiguous=shaped.contiguous, floating=shaped.floating)
    return TensorV(tuple(shaped.shape), tuple(pick(x, y) for x, y in pairs), dtype=shaped.dtype)


def _tensor_comparison(kind: type, left: Any, right: Any, shaped: Any) -> Any:
    """``a < b`` with a tensor: a bool mask of the broadcast shape (``shaped``: their sum's); its
    values where both sides' are known exactly (Mask R-CNN's `h / 2**6 != int(h / 2**6)` of an array
    element), which decide a branch on it."""
    if type(shaped) is not TensorV:
        return shaped
    pairs = _elementwise_pairs(left, right)
    if pairs is None:
        return TensorV(tuple(shaped.shape), floating=False)
    compare = _COMPARISON_FUNCTIONS[kind]
    return TensorV(tuple(shaped.shape), tuple(bool(compare(x, y)) for x, y in pairs), dtype="bool")


_COMPARISON_FUNCTIONS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
                         ast.Eq: operator.eq, ast.NotEq: operator.ne}


def _values_of(v: Any) -> "tensor_values.Values | None":
    if type(v) is TensorV and v.values is not None and v.dtype is not None and len(v.shape) <= 1:
        return tensor_values.Values(v.values, v.dtype, v.errors)
    return None


def _valued(shape: tuple[Any, ...], values: "tensor_values.Values", numpy: bool = False) -> TensorV:
    return TensorV(shape, values.items, dtype=values.dtype, errors=values.errors, numpy=numpy)


_NUMPY_UNARY_VALUES = {"log": "log", "log2": "log2", "log10": "log10", "exp": "exp", "sqrt": "sqrt", "abs": "abs",
                       "absolute": "abs", "negative": "neg", "floor": "floor", "ceil": "ceil", "round": "round",
                       "rint": "round", "around": "round", "trunc": "trunc"}
_NUMPY_BINARY_VALUES = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
                        "power": "pow"}


def _numpy_values(fn: str, args: list[Any]) -> TensorV | None:
    """``np.log(a)``, ``np.power(m, e)``, ... of arrays of known values (and numbers), in numpy's
    dtypes (an integer array's log is float64), its log / exp / power carrying an error bound
    (tensor_values.NUMPY_ULPS); None where they are not computed (the caller keeps the shape)."""
    valued = [_values_of(a) if type(a) is TensorV else None for a in args]
    if any(v is None and type(a) not in (int, float) for a, v in zip(args, valued)):
        return None
    try:
        if len(args) == 1:
            return _valued(tuple(args[0].shape), tensor_values.unary(_NUMPY_UNARY_VALUES[fn], valued[0], True), True)
        a, b = args
        shape = shapes.broadcast_shape(tuple(a.shape) if valued[0] is not None else (),
                                       tuple(b.shape) if valued[1] is not None else ())
        if shape is None:
            return None
        result = tensor_values.binary(_NUMPY_BINARY_VALUES[fn], valued[0] if valued[0] is not None else a,
                                      len(a.shape) if valued[0] is not None else 0,
                                      valued[1] if valued[1] is not None else b,
                                      len(b.shape) if valued[1] is not None else 0, True)
    except (tensor_values.Undecidable, shapes.ShapeError):
        return None
    return _valued(shape, result, True)


def _numpy_made(v: Any) -> Any:
    """What a numpy function returned, its tensors marked as numpy's arrays (their arithmetic
    promotes as numpy's does)."""
    if type(v) is TensorV and not v.numpy:
        return dataclasses.replace(v, numpy=True)
    if type(v) is tuple:
        return tuple(_numpy_made(x) for x in v)
    return v


def _value_operation(op: type, a: Any, b: Any, operator_syntax: bool) -> TensorV | None:
    """``a op b`` with their values, when both are tensors of known values or numbers (at least
    one a tensor, of at most _VALUED_LIMIT values); None otherwise, or where torch's result is not
    reproduced exactly (the caller keeps the shape only)."""
    name = _VALUE_OPS.get(op)
    if name is None:
        return None
    va, vb = _values_of(a), _values_of(b)
    if va is None and vb is None:
        return None
    if (va is None and type(a) not in (int, float, bool)) or (vb is None and type(b) not in (int, float, bool)):
        return None
    if max(len(v.items) for v in (va, vb) if v is not None) > _VALUED_LIMIT:
        return None
    if name == "div" and operator_syntax and va is None:
        name = "rdiv"  # Python's `2 / t` is `t.reciprocal() * 2` in torch
    numpy = (va is not None and a.numpy) or (vb is not None and b.numpy)
    try:
        shape = shapes.broadcast_shape(tuple(a.shape) if va is not None else (), tuple(b.shape) if vb is not None else ())
        result = tensor_values.binary(name, va if va is not None else a, len(a.shape) if va is not None else 0,
                                      vb if vb is not None else b, len(b.shape) if vb is not None else 0, numpy)
    except (tensor_values.Undecidable, shapes.ShapeError):
        return None
    return _valued(shape, result, numpy) if shape is not None else None


def _exact_values(t: TensorV, node: ast.AST) -> tuple[Any, ...]:
    """A tensor's values read as Python numbers: refused where torch may have computed them
    differently (tensor_values.exact_items)."""
    if t.errors is None or t.values is None:
        return t.values  # type: ignore[return-value]
    try:
        return tensor_values.exact_items(tensor_values.Values(t.values, t.dtype or "float32", t.errors),
                                         f"`{_text(node)}`")
    except tensor_values.Undecidable as exc:
        raise Unresolved(str(exc))


_DEFAULT_DTYPE = ExtV("torch.get_default_dtype()")  # stands for no dtype argument: torch's default
_DEFAULT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})  # those torch.set_default_dtype takes
_DEFAULT_DTYPE_FACTORIES = frozenset({"zeros", "ones", "empty", "randn", "rand"})


def _floating_dtype(dtype: Any) -> bool | None:
    """Whether a dtype argument is a floating-point dtype; the default dtype always is (torch's
    set_default_dtype takes only those); None for a value the analyser does not know."""
    if dtype is _DEFAULT_DTYPE:
        return True
    name = _dtype_argument(dtype)
    return None if name is None else name in FLOATING_DTYPES


def _is_floating(t: TensorV | Param) -> bool | None:
    """Whether a tensor's dtype is a floating-point one (``t.is_floating_point()``); None where not known."""
    if t.floating is not None:
        return t.floating
    dtype = getattr(t, "dtype", None)  # a tensor of known values knows its dtype
    return None if dtype is None else dtype in FINFO


def _module_to(module: Inst, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Inst:
    """``module.to(...)``: torch refuses an integer dtype (``nn.Module.to only accepts floating point
    or complex dtypes``); a floating-point one casts the floating-point parameters; a device alone
    changes no dtype; anything else leaves the count, the dtypes not known."""
    dtype = kwargs.get("dtype", next((a for a in args if type(a) is ExtV), None))
    name = _dtype_argument(dtype) if dtype is not None else None
    if name is not None and not _can_require_grad(name):
        raise _Raised(f"`.to(torch.{name})` raises TypeError: nn.Module.to only accepts floating point or complex "
                      f"dtypes, but got desired dtype=torch.{name}", ExtV("TypeError"))
    if dtype is None and all(_device_or_flag(a) for a in (*args, *kwargs.values())):
        return module  # `.to("cuda")`, `.to(device)`: the analysis is on one device; the dtypes stay
    return _dtypes_cast(module, name if name in FLOATING_DTYPES else None, complex_too=True)


def _device_or_flag(a: Any) -> bool:
    """A ``.to(...)`` argument that changes no dtype: a device, its name, None, or a flag
    (``non_blocking``, ``copy``)."""
    return type(a) is DeviceV or isinstance(a, str) or a is None or type(a) is bool


def _dtypes_cast(module: Inst, dtype: str | None, complex_too: bool = False) -> Inst:
    """``module.half()`` / ``.to(dtype)``: its floating-point parameters are of ``dtype`` now (None:
    a cast the analyser does not follow, their dtype not known); ``.to`` casts complex ones too,
    which it makes real, the imaginary part dropped (not followed: not known)."""
    for _, p in params_of(module):
        if p.floating:
            p.declared = dtype
        elif complex_too and p.declared is not None and p.declared.startswith("complex"):
            p.declared = None
    return module


_LINALG_NORMS = frozenset({"torch.linalg.norm", "torch.linalg.vector_norm", "torch.linalg.matrix_norm"})
_NONZERO_FUNCTIONS = {"torch.nonzero": "rows", "torch.argwhere": "rows", "numpy.nonzero": "tuple", "numpy.where": "tuple",
                      "numpy.argwhere": "rows", "numpy.flatnonzero": "flat"}
_CONVERSIONS = frozenset({"to", "cpu", "contiguous", "float", "double", "half", "bfloat16", "type_as", "type"})
_CONVERSION_DTYPES = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16"}


def _is_option(token: str) -> bool:
    """Whether argparse reads a command-line token as an option (a negative number is a value)."""
    if not token.startswith("-") or token == "-":
        return False
    try:
        float(token)
    except ValueError:
        return True
    return False


def _missing_relative_module(path: str, module: str, level: int) -> str | None:
    """Where a relative import's module would be (`rnn.py` beside the file), when it certainly is not
    there: no module, package directory or compiled extension of that name; None where it may be
    (a file not on disk, an unsaved buffer)."""
    if not os.path.isfile(path):
        return None
    base = os.path.dirname(os.path.abspath(path))
    for _ in range(level - 1):
        base = os.path.dirname(base)
    for part in module.split("."):
        stem = os.path.join(base, part)
        if os.path.isdir(stem):
            base = stem
            continue
        try:
            entries = os.listdir(base)
        except OSError:
            return None
        if any(e == part + ".py" or (e.startswith(part + ".") and e.endswith((".so", ".pyd", ".pyc"))) for e in entries):
            return None  # a module (its names are checked where they are read)
        return f"`{os.path.relpath(stem, os.path.dirname(os.path.abspath(path)))}.py` in the package"
    return None


def _filled(shape: tuple[Any, ...], fill: Any, dtype: str | None, kwargs: dict[str, Any]) -> TensorV | None:
    """A 1-D tensor of one known value (``torch.ones(n)``, ``torch.full((n,), 2.0)``), its values in
    ``dtype``; None where they are not kept (2-D, too long, a value or dtype not known)."""
    if len(shape) != 1 or type(shape[0]) is not int or shape[0] > _VALUED_LIMIT or dtype is None or \
            type(fill) not in (int, float, bool) or set(kwargs) - {"dtype", "device", "requires_grad"}:
        return None
    try:
        value = tensor_values.cast_number(fill, dtype)
    except tensor_values.Undecidable:
        return None
    return TensorV(shape, (value,) * shape[0], dtype=dtype, declared=dtype if "dtype" in kwargs else None)


def _nested_list(shape: tuple[int, ...], item: Any) -> list[Any]:
    """``tolist()`` of a tensor of this shape whose every value is ``item``."""
    if len(shape) == 1:
        return [item] * shape[0]
    return [_nested_list(shape[1:], item) for _ in range(shape[0])]


def _nonzero(t: Any, form: str, numpy: bool, node: ast.AST) -> Any:
    """The indices of a tensor's or array's nonzero values: ``form`` "tuple" (numpy's nonzero, torch's
    ``as_tuple=True``: one index array per dimension), "rows" (torch's nonzero, argwhere: one row per
    value) or "flat" (np.flatnonzero). Their number is the values' (a 1-D tensor of exactly known
    values), else a formula in it: what only unpacking or sizes the data decides (GNNs' edge lists)."""
    if type(t) not in _TENSORS:
        return Unknown(f"`{_text(node)}`: {why_of(t) if is_unknownish(t) else 'not a tensor the analyser built'}")
    dims = len(t.shape)
    values = _values_of(t) if type(t) is TensorV else None
    if values is not None and values.errors is None and dims == 1:
        found = tuple(i for i, x in enumerate(values.items) if x)
        count: Any = len(found)
        indices: Any = TensorV((count,), found, dtype="int64", numpy=numpy)
    else:
        atom = f"nnz({_text(node.args[0] if isinstance(node, ast.Call) and node.args else node)})"
        count = Sym.atom(atom, "the number of nonzero values, which the data decides")
        indices = TensorV((count,), numpy=numpy)
    if form == "flat":
        return TensorV((count,), indices.values, dtype=indices.dtype, numpy=numpy) if dims == 1 else \
            TensorV((count,), numpy=numpy)
    if form == "tuple":
        return tuple(indices if dims == 1 else TensorV((count,), numpy=numpy) for _ in range(max(dims, 1)))
    return TensorV((count, dims), numpy=numpy)


def _converted_parameter(p: Param, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``p.to(...)``, ``p.float()``, ``p.cpu()``, ``p.contiguous()``: ``p`` itself where torch changes
    nothing (the analysis is as on a machine without an accelerator, so a device is the CPU), else a
    new tensor of its shape, which is not a parameter; unknown where that depends on a value the
    analyser does not know."""
    dtype = p.declared or "float32"
    target_dtype: Any = _CONVERSION_DTYPES.get(name, dtype)
    devices: list[Any] = []
    if name in ("to", "type_as") and len(args) == 1 and not kwargs and type(args[0]) in _TENSORS:
        # `p.type_as(w)`, `p.to(w)`: another tensor's dtype (and device: the CPU, here); p itself where it is p's
        other = args[0]
        theirs = _declared(other) or ("float32" if _is_floating(other) else None)
        return p if theirs == dtype else TensorV(tuple(p.shape), declared=theirs)
    if name == "type_as":
        return Unknown(f"`{_text(node)}`: type_as takes one tensor")
    if name == "type":
        if len(args) != 1 or kwargs or _dtype_argument(args[0]) is None:
            return Unknown(f"`{_text(node)}`: this use of a parameter's `type` is not followed")
        target = _dtype_argument(args[0])
        return p if target == dtype else TensorV(tuple(p.shape), declared=target)
    if name == "to":
        unknown = _unknown_in(list(args) + list(kwargs.values()))
        if unknown is not None or any(isinstance(a, Sym) for a in (*args, *kwargs.values())):
            return Unknown(f"`{_text(node)}`: whether torch returns the parameter itself (registered) or a copy "
                           f"(not a parameter) depends on {_clause(why_of(unknown) if unknown else 'a size')}")
        if set(kwargs) - {"dtype", "device", "non_blocking", "copy", "memory_format"} or kwargs.get("copy"):
            return TensorV(tuple(p.shape), declared=p.declared)
        for a in (*args, *[kwargs[k] for k in ("dtype", "device") if k in kwargs]):
            named = _dtype_argument(a)
            if named is not None:
                target_dtype = named
            elif type(a) is DeviceV or isinstance(a, str) or a is None:
                devices.append(a)
            elif type(a) is not bool:  # another tensor's dtype and device, a device index
                return TensorV(tuple(p.shape))
    on_cpu = all(d is None or (d.type if type(d) is DeviceV else d.partition(":")[0]) in ("cpu", "meta")
                 for d in devices)
    if target_dtype == dtype and on_cpu:
        return p
    return TensorV(tuple(p.shape), declared=target_dtype if target_dtype != "float32" else None)


_LAYOUT_METHODS = frozenset({"view", "reshape", "expand", "repeat", "unsqueeze", "transpose", "permute", "flatten", "t",
                            "squeeze", "diag", "diagonal"})
_FLOAT_REDUCTIONS = frozenset({"mean", "sum", "nansum", "nanmean", "prod", "amax", "amin", "norm", "std", "var"})
_DTYPE_KEEPING_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)


def _common_float_dtype(op: type, tensors: list[Any], a: Any, b: Any) -> str | None:
    """The dtype of arithmetic on floating-point tensors of one known dtype, with each other or with
    Python numbers (which do not promote a floating-point tensor: ``w + 0.5 * d`` stays in w's
    dtype); None for anything else (mixed dtypes, numpy's arrays), not followed."""
    if op not in _DTYPE_KEEPING_OPS or any(type(x) is TensorV and x.numpy for x in tensors):
        return None
    dtypes = {_declared(x) for x in tensors}
    if len(dtypes) != 1:
        return None
    dtype = dtypes.pop()
    if dtype not in FLOATING_DTYPES or any(type(x) is complex for x in (a, b)):
        return None
    return dtype


def _converted_tensor(t: TensorV, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], laid_out: bool) -> TensorV:
    """``t.float()``, ``t.half()``, ``t.to(torch.bfloat16)`` of a tensor (not a parameter): a tensor
    of its shape in the dtype asked for (DoRA's magnitude, ``norm(w).to(w.dtype)``); ``t.to(device)``
    keeps its dtype; any other form leaves the dtype not known. Its values are not kept (a cast
    may round them)."""
    shape = tuple(t.shape)
    if name != "to":
        target = _CONVERSION_DTYPES[name] if not args and not kwargs else None
    else:
        dtypes = [a for a in (*args, kwargs.get("dtype")) if type(a) is ExtV]
        rest = [a for a in (*args, *(v for k, v in kwargs.items() if k != "dtype")) if type(a) is not ExtV]
        if len(dtypes) > 1 or set(kwargs) - {"dtype", "device", "non_blocking", "copy"} or any(
                not _device_or_flag(a) for a in rest):
            target = None
        else:
            target = _dtype_argument(dtypes[0]) if dtypes else _declared(t)
    if target is None:
        return TensorV(shape, contiguous=laid_out)
    return TensorV(shape, contiguous=laid_out, floating=target in FLOATING_DTYPES, declared=target)


def _can_require_grad(dtype: str) -> bool:
    """torch's rule for a tensor that requires grad (a parameter): floating point or complex."""
    return dtype in FLOATING_DTYPES or dtype.startswith("complex")


def _declared(t: TensorV | Param) -> str | None:
    """A tensor's dtype where the analyser knows it: named where it was made, or its values'."""
    if t.declared is not None:
        return t.declared
    return t.dtype if type(t) is TensorV and t.values is not None else None


def _dtype_argument(dtype: Any) -> str | None:
    return dtype_name(dtype.name) if type(dtype) is ExtV else None


def _tensor_from_values(data: Any, dtype: Any, node: ast.AST) -> TensorV | None:
    """``torch.tensor(data)`` of known numbers (a flat list, or a tensor or array of known
    values): its values in torch's dtype for them (ints int64, floats float32, an array's its
    own), or the dtype asked for; None for anything else."""
    wanted = _dtype_argument(dtype)
    if dtype is not None and wanted is None:
        return None
    source = _values_of(data)
    if source is None:
        if not isinstance(data, (list, tuple)) or not data or len(data) > _VALUED_LIMIT or not all(
                type(x) in (int, float, bool) for x in data):
            return None
        kinds = {type(x) for x in data}
        inferred = "float32" if float in kinds else "int64" if int in kinds else "bool"
        try:
            source = tensor_values.Values(tuple(tensor_values.cast_number(x, inferred) for x in data), inferred)
        except tensor_values.Undecidable:
            return None
    try:
        values = tensor_values.cast_values(source, wanted) if wanted is not None else source
    except tensor_values.Undecidable as exc:
        raise Unresolved(f"`{_text(node)}`: {exc}")
    return _valued((len(values.items),), values)


def _value_method(t: TensorV, name: str, node: ast.AST) -> BuiltinV | None:
    """A method of a tensor of known values that computes them (``.int()``, ``.round()``,
    ``.max()``, ``.unique()``); None where the shape-only path answers (no dtype, 2-D)."""
    values = _values_of(t)
    if values is None:
        return None

    def cast(dtype: Any = None, *args: Any, **kwargs: Any) -> TensorV:
        target = _CASTS.get(name) or _dtype_argument(kwargs.get("dtype", dtype))
        if target is None:
            if name == "to" and (type(dtype) is DeviceV or isinstance(dtype, str)) and "dtype" not in kwargs:
                return t  # .to("cpu"): the same values
            return TensorV(tuple(t.shape))  # another tensor's dtype: the values are not known
        return elementwise(tensor_values.cast_values, values, target)

    def elementwise(fn: Callable[..., Any], *args: Any) -> TensorV:
        """The values computed, or where torch's are not reproduced, the shape alone (as for a
        tensor of unknown values)."""
        try:
            return _valued(tuple(t.shape), fn(*args), t.numpy)
        except tensor_values.Undecidable:
            return TensorV(tuple(t.shape), numpy=t.numpy)

    def computed(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except tensor_values.Undecidable as exc:
            raise Unresolved(f"`{_text(node)}`: {exc}")

    def unique(sorted: Any = True, return_inverse: Any = False, return_counts: Any = False, dim: Any = None) -> Any:
        if return_inverse or dim is not None:
            raise Unresolved(f"`{_text(node)}`: the analyser computes unique values and their counts only")
        distinct, counts = computed(tensor_values.unique, values)
        out = _valued((len(distinct.items),), distinct)
        return (out, _valued((len(counts.items),), counts)) if return_counts else out

    def reduced(dim: Any = None, keepdim: Any = False) -> TensorV:
        if dim is not None or keepdim:
            raise Unresolved(f"`{_text(node)}`: the analyser reduces a whole 1-D tensor only")
        return _valued((), computed(tensor_values.reduce, name, values))

    if name in _CASTS or name == "to":
        return BuiltinV(name, cast)
    if name == "astype" and t.numpy:
        def astype(dtype: Any, *args: Any, **kwargs: Any) -> TensorV:
            target = _numpy_dtype_name(dtype)
            if target is None or target not in (*tensor_values.FLOAT_DTYPES, *tensor_values.INT_DTYPES, "bool"):
                return TensorV(tuple(t.shape), numpy=True)  # values not known in that dtype
            return elementwise(tensor_values.cast_values, values, target)
        return BuiltinV(name, astype)
    if name in tensor_values.UNARY_FUNCTIONS:
        return BuiltinV(name, lambda: elementwise(tensor_values.unary, name, values))
    if name == "unique":
        return BuiltinV(name, unique)
    if name == "diff":
        return BuiltinV(name, lambda: _valued((max(len(values.items) - 1, 0),), computed(tensor_values.diff, values)))
    if name == "flip":
        def flip(*dims: Any) -> TensorV:
            dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
            if dims not in ((0,), (-1,)):
                raise Unresolved(f"`{_text(node)}`: the analyser flips a 1-D tensor along it only")
            return _valued(tuple(t.shape), tensor_values.Values(values.items[::-1], values.dtype,
                                                                values.errors[::-1] if values.errors else None))
        return BuiltinV(name, flip)
    if name == "cumsum":
        def cumsum(dim: Any, dtype: Any = None) -> TensorV:
            if dim not in (0, -1) or dtype is not None:
                raise Unresolved(f"`{_text(node)}`: the analyser sums a 1-D tensor's values along it only")
            return _valued(tuple(t.shape), computed(tensor_values.cumsum, values))
        return BuiltinV(name, cumsum)
    if name in ("max", "min", "sum", "prod"):
        return BuiltinV(name, reduced)
    return None


def _quantization_module(parts: list[str], origin: Span | None) -> Any:
    """torch's quantization modules: the stubs and functional wrappers hold no parameters; a
    quantized layer (``nn.quantized.Linear``) holds its weights packed, not as parameters, which
    the analyser does not count; None for the rest (``torch.ao.nn.qat``: float layers)."""
    dotted = ".".join(parts)
    if parts[-1] in _PARAMETERLESS_QUANTIZATION and dotted.startswith(_QUANTIZATION_PACKAGES):
        return Inst(parts[-1], "layer", True, origin)
    if dotted.startswith(_QUANTIZED_PACKAGES) and parts[-1][:1].isupper():
        return Unknown(f"`{dotted}` is a quantized module, whose weights are packed rather than parameters; the "
                       f"analyser does not count it", maybe_module=True)
    return None


# Each by the name type() gives its class (torch.nn.quantized is an alias of torch.ao.nn.quantized).
_PARAMETERLESS_QUANTIZATION = {
    **{name: f"torch.ao.nn.quantized.{name}" for name in ("FloatFunctional", "FXFloatFunctional", "QFunctional")},
    **{name: f"torch.ao.quantization.{name}" for name in ("QuantStub", "DeQuantStub")}}
_QUANTIZED_PACKAGES = ("torch.nn.quantized.", "torch.ao.nn.quantized.")
_QUANTIZATION_PACKAGES = (*_QUANTIZED_PACKAGES, "torch.ao.quantization.", "torch.quantization.")
_TORCH_ALIASES = (("torch.nn.quantized.", "torch.ao.nn.quantized."), ("torch.quantization.", "torch.ao.quantization."),
                  ("inspect._empty", "inspect.Parameter.empty"), ("inspect.Signature.empty", "inspect.Parameter.empty"))


def _canonical_name(dotted: str) -> str:
    for alias, name in _TORCH_ALIASES:
        if dotted.startswith(alias):
            return name + dotted[len(alias):]
    return dotted


def _external_attribute(dotted: str, attr: str) -> Any:
    """What the analyser knows of an attribute of an outside name: ``nn.BatchNorm2d.__name__`` (timm
    maps a norm layer to its fused version by it), a dtype's ``is_floating_point`` and ``itemsize``;
    _MISSING for anything else."""
    if attr in ("__name__", "__qualname__") and _known_torch_class(dotted):
        return dotted[len("torch.nn."):]
    if dotted == "types.NoneType" and attr in ("__name__", "__qualname__", "__module__"):
        return "builtins" if attr == "__module__" else "NoneType"  # `type(None).__name__`
    if dotted == "torch.nn.Parameter" and attr in ("__name__", "__qualname__", "__module__"):
        return "torch.nn.parameter" if attr == "__module__" else "Parameter"  # `type(p).__module__`
    dtype = dtype_name(dotted)
    if dtype is not None and attr in ("is_floating_point", "is_complex", "itemsize"):
        return dtype in FLOATING_DTYPES if attr == "is_floating_point" else dtype.startswith("complex") if \
            attr == "is_complex" else ELEMENT_BYTES[dtype]
    return _MISSING


def _known_torch_class(dotted: str) -> bool:
    """``torch.nn.X`` for a class X of the analyser's torch.nn tables (or nn.Module itself)."""
    if not dotted.startswith("torch.nn."):
        return False
    last = dotted[len("torch.nn."):]
    return last in LAYERS or last in PARAMETERLESS or last in CONTAINERS or last in STACKS or last == "Module"


def _torch_class_lacks(dotted: str, name: str) -> bool:
    """Whether ``torch.nn.X`` is a class of the tables that has no attribute ``name`` (dunder names
    are left to Python's type, which every class has)."""
    return name[:2] != "__" and _known_torch_class(dotted) and not torch_class_has(dotted[len("torch.nn."):], name)


def _type_info(fn: str, args: list[Any], node: ast.AST) -> Any:
    """``torch.finfo(dtype)`` / ``torch.iinfo(dtype)``: an object with torch's bits, eps, max, min, tiny."""
    dtype = args[0] if args else ExtV("torch.float32")
    name = dtype_name(dtype.name) if type(dtype) is ExtV else None
    table = FINFO if fn == "finfo" else IINFO
    if name not in table:
        if name in FLOATING_DTYPES and fn == "finfo":
            raise Unresolved(f"`{_text(node)}`: the analyser does not know torch.finfo of {name}")
        if is_unknownish(dtype):
            # OLMo's causal mask: `torch.finfo(att.dtype).min` fills a buffer; no size depends on it.
            return Unknown(f"`{_text(node)}` depends on {_clause(why_of(dtype))}")
        raise _Raised(f"`{_text(node)}`: not a {'floating point' if fn == 'finfo' else 'integer'} dtype the "
                      f"analyser knows (TypeError)", ExtV("TypeError"))
    info = Inst(fn, "object", False)
    info.attrs.update(table[name], dtype=name)
    return info


def _holds(container: Any, item: Any, node: ast.AST) -> bool:
    """``item in container`` for a class, function or module among plain values (timm's
    ``norm_layer in _NORM_ACT_TYPES``): Python compares each entry with ``is``, then ``==``;
    the analyser's values are equal as the objects they stand for are (a class, a function only
    to itself; an outside name to the same name). An entry the analyser does not know could
    be the item: then the answer is not known."""
    if _defines_eq(item):
        raise Unresolved(f"`{_text(node)}` compares with `{item.cls.name}.__eq__`, which the analyser does not run here")
    entries = container.keys() if type(container) is dict else container
    unknown = None
    plain = _member_value(item)
    for entry in entries:
        if entry is item or (type(item) is ExtV and type(entry) is ExtV and entry == item):
            return True
        value = _member_value(entry)
        if (value is not entry or plain is not item) and type(value) in (str, int) and type(plain) in (str, int) \
                and value == plain:
            return True  # a member of a str / int enum is equal to its value (and hashes as it)
        if unknown is None and (is_unknownish(entry) or _defines_eq(entry)):
            unknown = entry
    if unknown is not None:
        raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(unknown)) or 'an instance with its own __eq__'}")
    return False


def _defines_eq(v: Any) -> bool:
    """An instance of a class of the code that defines ``__eq__`` (``==`` would run it)."""
    return isinstance(v, Inst) and isinstance(v.cls, ClassV) and any("__eq__" in c.namespace for c in v.cls.mro())


_NOT_TRACING = frozenset({
    "torch.jit.is_scripting", "torch.jit.is_tracing", "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling",
    "torch._dynamo.is_compiling", "torch.fx._symbolic_trace.is_fx_tracing", "torch.onnx.is_in_onnx_export"})
_CONTAINERS_BY_IDENTITY = frozenset({list, tuple, set, frozenset, dict})
# Python's own views of a dict (`key in table.keys()`): searched as the list of what they show.
_DICT_VIEW_TYPES = frozenset({type({}.keys()), type({}.values()), type({}.items())})
_MISSING = object()
_UNDECORATED = object()  # FuncV.decorated: the decorators return the function itself
_OBJECT_HOOKS = frozenset({"__getattribute__", "__setattr__"})  # see Interpreter.object_hook_call
# Where an instance of a dict subclass (``class ClassInstantier(OrderedDict)``) keeps its items:
# a key no attribute can have.
_DICT_ITEMS = "<dict items>"
# Outside functions that take a module and keep its count: pruning moves a weight to
# `weight_orig` (as many values) and adds a mask buffer; logging and warnings only read it.
_COUNT_KEEPING = ("torch.nn.utils.prune.", "logging.", "warnings.")
# Packages of torch whose classes are modules (their layers the table does not have are refused, not 0).
_TORCH_MODULE_PACKAGES = ("torch.ao.nn.", "torch.ao.quantization.", "torch.nn.")
# nn.Module's methods that register a hook (what each returns, a handle, is not followed).
_MODULE_HOOKS = frozenset({
    "register_forward_hook", "register_forward_pre_hook", "register_backward_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_load_state_dict_pre_hook", "register_load_state_dict_post_hook",
    "register_state_dict_pre_hook", "register_state_dict_post_hook", "_register_load_state_dict_pre_hook",
    "_register_state_dict_hook"})
# A dict subclass's instance: its items' methods, those that write them too (its own overrides come first).
_DICT_METHODS = frozenset({"__getitem__", "__contains__", "__len__", "get", "keys", "values", "items", "update",
                           "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__", "copy"})
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))


_KEY_TYPES = frozenset({type(None), bool, int, float, str, Sym, ExtV})
_PLAIN = frozenset({type(None), bool, int, float, str, tuple, list, TorchVersionText})  # values Python's operators take as they are


_MAX_KEY_ITEMS = 1_000  # the items of lists and dicts an argument's key may hold, nested ones included
# The values a config object's key may hold, nested ones included (ViT's config holds two label maps
# of 1,000 entries each).
_MAX_STATE_ITEMS = 20_000
_MAX_STATE_DEPTH = 64  # and how deep (a linked list of objects must not exhaust Python's stack)


def _arg_key(v: Any, pins: list[Any], budget: list[int] | None = None) -> Any:
    """A hashable stand-in for an argument, or _MISSING when the call must not be cached.

    Modules and parameters are never keys: passing one in can tie or share it, and a
    copy would lose that identity. Config objects key by their class and what they hold
    (_state_key), so the copies of one default config build the same blocks. A list of
    more than _MAX_KEY_ITEMS items in all is not a key: nested lists that share their items
    can hold more than memory could spell out (a class that passes itself `[x] * 4` of what
    it was given, level after level, until the call depth stops it). Each object the key
    names by its id is added to ``pins``, which the cache entry keeps: freed, its id could be
    another object's (a later config's list) and the key another build's."""
    t = type(v)
    if t in _KEY_TYPES:
        return (t, v)  # the type keeps 1, 1.0 and True apart
    if isinstance(v, (tuple, list, dict)):
        budget = budget if budget is not None else [_MAX_KEY_ITEMS]
        budget[0] -= len(v)
        if budget[0] < 0:
            return _MISSING
    if isinstance(v, (tuple, list)):
        keys = tuple(_arg_key(x, pins, budget) for x in v)
        return _MISSING if any(k is _MISSING for k in keys) else ("seq", keys)
    if isinstance(v, dict) and all(type(k) is str for k in v):  # a constructor's **kwargs
        keys = tuple((k, _arg_key(x, pins, budget)) for k, x in sorted(v.items()))
        return _MISSING if any(k[1] is _MISSING for k in keys) else ("dict", keys)
    if isinstance(v, Inst) and not v.is_module:
        state = _state_key(v, pins)  # by its class and what it holds: equal copies build the same
        return _MISSING if state is _MISSING else ("obj", state)
    if isinstance(v, (ClassV, FuncV)):
        if _reads_locals(v.env):
            return _MISSING  # what it builds follows its function's variables, which may change between calls
        pins.append(v)
        return ("id", id(v))
    return _MISSING


def _reads_locals(env: Env | None) -> bool:
    """Whether a function or class made where ``env`` is reads a function's variables (a closure:
    ``make = lambda: nn.Linear(2, width)`` with ``width`` changed before its next use); a class
    body's names are not seen by its methods."""
    while env is not None and env.parent is not None:
        if type(env) is not _ClassBodyEnv:
            return True
        env = env.parent
    return False


def _state_key(obj: Inst, pins: list[Any]) -> Any:
    """A config object's class and what it holds now, all the way down: the same object with other
    values is another build (transformers' LiltAttention halves ``config.hidden_size`` for one block,
    then restores it; a stage list's dict or a sub-config changed in place between two builds). _MISSING
    past _MAX_STATE_ITEMS values (not cached). Lists, dicts and objects it holds go by value, nested
    objects by their identity too; what else it holds (a module, a function) by identity alone, but
    an iterator or a closure, which give another value later for the same identity: not cached."""
    key = _held_key(obj, pins, [_MAX_STATE_ITEMS], set())
    return _MISSING if key is _MISSING else key[2:]  # without its own identity: ("obj", id, id(cls), ...)


def _held_key(x: Any, pins: list[Any], budget: list[int], open_ids: set[int]) -> Any:
    """_state_key's key of one value (not of a plain value: its callers key those inline, the
    commonest case)."""
    t = type(x)
    if t is Inst:
        pins.append(x)  # the key names it by id: kept alive with the entry (see _arg_key)
        if x.is_module:
            return ("id", id(x))
        if id(x) in open_ids:  # a config that holds itself, or its parent
            return ("cycle", id(x))
        items: Any = x.attrs.items()
    elif t is dict:
        items = x.items()
    elif t is list or t is tuple or t is set:
        items = x
    elif t in _KEY_TYPES:
        return (t, x)
    elif isinstance(x, IteratorV) or ((t is FuncV or t is ClassV) and _reads_locals(x.env)):
        return _MISSING  # what it gives changes with each use, or with its function's variables
    else:
        pins.append(x)
        return ("id", id(x))
    budget[0] -= 1 + len(items)
    if budget[0] < 0 or len(open_ids) > _MAX_STATE_DEPTH or (t is not Inst and id(x) in open_ids):
        return _MISSING  # too much to spell out, or a list that holds itself
    open_ids.add(id(x))
    parts: list[Any] = []
    append = parts.append
    try:
        if t is Inst or t is dict:
            for k, v in items:
                tv = type(v)
                vk = (tv, v) if tv in _KEY_TYPES else _held_key(v, pins, budget, open_ids)
                if t is dict and type(k) is not str:
                    k = _held_key(k, pins, budget, open_ids)
                if vk is _MISSING or k is _MISSING:
                    return _MISSING
                append((k, vk))
        else:
            for v in items:
                tv = type(v)
                vk = (tv, v) if tv in _KEY_TYPES else _held_key(v, pins, budget, open_ids)
                if vk is _MISSING:
                    return _MISSING
                append(vk)
    finally:
        open_ids.discard(id(x))
    if t is set:
        parts.sort(key=repr)  # a set's order is not its content
    if t is Inst:
        pins.append(x.cls)
        return ("obj", id(x), id(x.cls), *parts)
    return (t, *parts)


def _multiple_values(call: ast.Call, name: str) -> _Raised:
    """Python's TypeError for a keyword given twice in one call (`dict(**d, extra=2)` where `d` has it)."""
    return _Raised(f"`{_text(call)}` raises TypeError: {_text(call.func)}() got multiple values for keyword argument "
                   f"'{name}'", ExtV("TypeError"))


_LIVE_ITERABLES = frozenset({dict, set, *_DICT_VIEWS})
# The special methods torch's containers define, which code may call by name (Interpreter.container_dunder).
_CONTAINER_DUNDERS = {
    "list": frozenset({"__add__", "__delitem__", "__getitem__", "__iadd__", "__iter__", "__len__", "__setitem__"}),
    "seq": frozenset({"__add__", "__delitem__", "__getitem__", "__iadd__", "__imul__", "__iter__", "__len__", "__mul__",
                      "__rmul__", "__setitem__"}),
    "dict": frozenset({"__contains__", "__delitem__", "__getitem__", "__iter__", "__len__", "__setitem__"}),
    "plist": frozenset({"__getitem__", "__iadd__", "__iter__", "__len__", "__setitem__"}),
    "pdict": frozenset({"__contains__", "__delitem__", "__getitem__", "__iter__", "__len__", "__setitem__", "__or__",
                        "__ror__", "__ior__", "__reversed__"}),
}
_CONTAINER_DUNDER_ARITY = {"__len__": 0, "__iter__": 0, "__reversed__": 0, "__setitem__": 2}
_CONTAINER_DUNDER_OPS = {"__add__": ast.Add, "__mul__": ast.Mult, "__or__": ast.BitOr}


def _live_items(items: Any, node: ast.AST) -> Iterator[Any]:
    """A for loop's items of a dict, a set or a dict's view, taken as Python takes them: a body that
    changes the size (or the keys) raises RuntimeError at the next item, as Python's iterator
    raises it (a LoRA injector adding `name + "_lora"` keys to the dict it walks)."""
    iterator = iter(items)
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except RuntimeError as exc:
            raise _Raised(f"the loop over `{_text(node)}` raises RuntimeError: {exc}", ExtV("RuntimeError"))
        yield item


_HOLDERS = frozenset({BoundV, dict, list, tuple})
_PLAIN_KEY_TYPES = frozenset({str, int})


def _leads_back(obj: Inst, value: Any, building: set[int]) -> bool:
    """Whether ``value``, set as an attribute of ``obj``, may hold ``obj`` (a reference cycle):
    a bound method (``self.act = self._gelu``), ``obj`` itself or a module still being built
    (``self.inner.owner = self``), or a list or dict holding one (``{"iou": self.loss_iou}``;
    one level: a list may hold itself)."""
    t = type(value)
    if t is dict:
        items: Any = value.values()
    elif t is list or t is tuple:
        items = value
    else:
        items = (value,)
    kinds = set(map(type, items))  # (in C: a table of a thousand names holds neither kind)
    if BoundV in kinds:
        return True
    return Inst in kinds and any(type(x) is Inst and (x is obj or id(x) in building) for x in items)


def _json_file(found: str, path: str) -> Any:
    """A JSON file's data (shims/deepspeed.py: a DeepSpeed config), or why it cannot be read, with
    the line and column where it does not parse."""
    try:
        if os.path.getsize(found) > _MAX_SOURCE_BYTES:
            raise Unresolved(f"`{path}` is over 2 MiB, which the analyser does not read")
        with open(found, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise Unresolved(f"`{path}` is not JSON ({exc.msg} at {exc.lineno}:{exc.colno})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Unresolved(f"`{path}` cannot be read: {exc}") from None


def _build_key(cls: ClassV, init: Any, bound: dict[str, Any] | None, args: list[Any], kwargs: dict[str, Any],
               pins: list[Any]) -> Any:
    """What a build of ``cls`` depends on: with a constructor, its arguments bound to the
    parameter names, defaults included, so that ``Block(config)`` and ``Block(config=config)``
    are one build; None when an argument cannot be a key (see _arg_key, which fills ``pins``:
    ``cls`` is one of them)."""
    pins.append(cls)
    if bound is None:
        return _cache_key(cls, args, kwargs, pins)
    first = init.signature.names[0] if init.signature.names else None  # self
    # Bound in the constructor's parameter order: one order for every call, no sort needed.
    keys = []
    for name, v in bound.items():
        if name != first:
            key = _arg_key(v, pins)
            if key is _MISSING:
                return None
            keys.append((name, key))
    return (id(cls), tuple(keys))


def _cache_key(cls: ClassV, args: list[Any], kwargs: dict[str, Any], pins: list[Any]) -> Any:
    keys = tuple(_arg_key(a, pins) for a in args) + tuple((k, _arg_key(v, pins)) for k, v in sorted(kwargs.items()))
    if any(k is _MISSING or (isinstance(k, tuple) and k[1:] == (_MISSING,)) for k in keys):
        return None
    return (id(cls), keys)


_EINOPS_TOKEN = re.compile(r"\.\.\.|\w+|[()]|\S")


def _einops_axes(expression: str) -> list[str]:
    """The named axes of an einops expression in order (``"b (h w) c"``: b, h, w, c); numbers,
    parentheses and ``...`` left out."""
    return [t for t in _EINOPS_TOKEN.findall(expression) if t[0].isalpha() or t[0] == "_"]


def _einmix(args: list[Any], kwargs: dict[str, Any], node: ast.AST, origin: Span | None) -> Inst:
    """einops' ``EinMix(pattern, weight_shape, bias_shape=None, **axes_lengths)``: a weight of the
    lengths of ``weight_shape``'s axes, and a bias with, for each axis of the output, its length
    where ``bias_shape`` names it, else 1 (einops' _EinmixMixin.initialize_einmix); its checks
    of the axes are EinopsError, as einops raises them."""
    kwargs = dict(kwargs)
    names = ["pattern", "weight_shape", "bias_shape"]
    given = dict(zip(names, args))
    for n in names:
        if n in kwargs:
            given[n] = kwargs.pop(n)
    pattern, weight_shape, bias_shape = given.get("pattern"), given.get("weight_shape"), given.get("bias_shape")
    error = ExtV("einops.EinopsError")
    if len(args) > 3 or type(pattern) is not str or type(weight_shape) is not str or "->" not in pattern or \
            not (bias_shape is None or type(bias_shape) is str):
        raise Unresolved(f"`{_text(node)}`: EinMix's pattern and shapes are not known texts")
    left, right = (_einops_axes(side) for side in pattern.split("->", 1))
    weight, bias = _einops_axes(weight_shape), _einops_axes(bias_shape or "")
    problems = [f"Dimension {a} of weight should be specified" for a in weight if a not in kwargs]
    problems += [f"Axes {sorted(set(kwargs) - {*left, *weight})} are not used in pattern"] if set(kwargs) - {*left, *weight} else []
    problems += [f"Unrecognized identifiers on the right side of EinMix {sorted(set(right) - {*left, *weight})}"] \
        if set(right) - {*left, *weight} else []
    problems += [f"Bias axes {sorted(set(bias) - set(right))} not present in output"] if set(bias) - set(right) else []
    problems += [f"Sizes not provided for bias axes {sorted(set(bias) - set(kwargs))}"] if set(bias) - set(kwargs) else []
    if "(" in weight_shape or ")" in weight_shape:
        problems.append(f"Parenthesis is not allowed in weight shape: {weight_shape}")
    for group in re.findall(r"\(([^()]*)\)", pattern.split("->", 1)[0]):  # unpacked by a Rearrange made first
        unsized = [a for a in _einops_axes(group) if a not in kwargs]
        if len(unsized) > 1:
            problems.append(f"Could not infer sizes for {set(unsized)}")
    if problems:
        raise _Raised(f"`{_text(node)}` raises EinopsError: {problems[0]}", error)
    inst = Inst("EinMix", "layer", True, origin)
    inst.attrs["weight"] = Param(tuple(as_int(kwargs[a], a) for a in weight), "other", True, origin)
    if bias_shape is not None:
        inst.attrs["bias"] = Param(tuple(as_int(kwargs[a], a) if a in bias else 1 for a in right), "bias", True, origin)
    else:
        inst.attrs["bias"] = None
    return inst


def _set_grad(obj: Any, flag: Any) -> Any:
    if isinstance(flag, (Sym, Unknown)):
        raise Unresolved(f"requires_grad_ depends on {_clause(why_of(flag))}")
    if isinstance(obj, Param):
        _require_grad(obj, bool(flag))
    elif isinstance(obj, Inst):
        for _, p in params_of(obj):
            _require_grad(p, bool(flag))
    return obj


def _require_grad(p: Param, flag: bool) -> None:
    """``p.requires_grad = flag``; torch refuses it on an integer parameter (a packed quantized
    weight made with requires_grad=False, then unfrozen with the rest)."""
    if flag and p.declared is not None and not _can_require_grad(p.declared):
        raise _Raised(f"requires_grad on a parameter of {p.declared} raises RuntimeError: only Tensors of floating "
                      f"point dtype can require gradients", ExtV("RuntimeError"))
    p.requires_grad = flag


def _contiguous(t: Any) -> bool:
    """A parameter is contiguous; a tensor, unless an expand, a transpose or a slice made it strided."""
    return not isinstance(t, TensorV) or t.contiguous


def _set_of(items: list[Any], node: ast.AST) -> Any:
    """A set comprehension's set: Python's TypeError for an item it cannot hash; an item the
    analyser does not know makes the set unknown (which items are equal is not known)."""
    unknown = _unknown_in(items)
    if unknown is not None or any(is_unknownish(x) for x in items):
        return unknown or Unknown(f"`{_text(node)}` holds unresolved values")
    equal = next((x for x in items if type(x) is Inst and type(x.cls) is ClassV and not x.is_module and (
        x.cls.is_dataclass or (x.cls.enum_members is not None and x.cls.enum_mixin is not None) or
        x.cls.find("__eq__", None) is not None or x.cls.find("__hash__", None) is not None)), None)
    if equal is not None:  # which items are equal is the class's own answer
        return Unknown(f"`{_text(node)}` holds `{equal.cls.name}` objects, whose equality the analyser does "
                       f"not follow in a set")
    try:
        return set(items)
    except TypeError as exc:
        raise _Raised(f"`{_text(node)}` raises TypeError: {exc}", ExtV("TypeError"))


def _picked_items(e: ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp, items: list[Any]) -> Any:
    """A comprehension's result parts when it is one loop without conditions whose elements are
    names it binds (``[x for x in xs]``, ``{v: k for k, v in table.items()}``), each item a value
    or a tuple that unpacks into the names: the elements (a dict's keys and values); else None."""
    if len(e.generators) != 1 or type(e) is ast.SetComp:
        return None
    g = e.generators[0]
    if g.ifs or g.is_async:
        return None
    target = g.target
    if type(target) is _Name:
        names: tuple[str, ...] = (target.id,)
    elif type(target) is _Tuple and all(type(t) is _Name for t in target.elts):
        names = tuple(t.id for t in target.elts)  # type: ignore[attr-defined]
    else:
        return None
    parts = (e.key, e.value) if type(e) is ast.DictComp else (e.elt,)  # type: ignore[union-attr]
    if not all(type(p) is _Name and p.id in names for p in parts):  # type: ignore[attr-defined]
        return None
    # The last of a repeated name is what it is bound to (`for k, k in ...`).
    at = [len(names) - 1 - names[::-1].index(p.id) for p in parts]  # type: ignore[attr-defined]
    if len(names) == 1:
        picked = [items] * len(parts)
    else:
        if items and (set(map(type, items)) != {tuple} or set(map(len, items)) != {len(names)}):
            return None
        columns = list(zip(*items)) if items else [()] * len(names)  # each name's values, in C
        picked = [columns[a] for a in at]
    if any(LazyImport in set(map(type, column)) for column in picked):
        return None
    return picked if type(e) is ast.DictComp else picked[0]


def _dict_key(key: Any, node: ast.AST) -> Any:
    """A value used as a dict key: known, and hashable (a list raises TypeError, as in Python)."""
    if is_unknownish(key):
        raise Unresolved(f"the dict key `{_text(node)}` depends on {_clause(why_of(key))}")
    if not _hashable(key):
        raise _Raised(f"the dict key `{_text(node)}` is a {type(key).__name__}, which Python cannot hash (TypeError)",
                      ExtV("TypeError"))
    return key


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:  # a slice or a list as a dict key
        return False
    return True


def _linspace(start: Any, end: Any, steps: Any) -> tuple[float, ...] | None:
    """torch.linspace's values for known numbers: torch's own formula in float32 (the first half
    from start, the second from end). Its vectorised CPU kernel rounds some of them differently
    in the last bit, by CPU; the values are dropout rates, which no count depends on that finely."""
    if type(steps) is not int or not 0 <= steps <= MAX_ITERATIONS or any(
            type(v) not in (int, float) for v in (start, end)):
        return None
    if steps == 1:
        return (_f32(start),)
    s, e = _f32(start), _f32(end)
    step = _f32(_f32(e - s) / (steps - 1))
    half = steps // 2
    return tuple(_f32(s + _f32(step * i)) if i < half else _f32(e - _f32(step * (steps - i - 1))) for i in range(steps))


def _meshgrid(args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``torch.meshgrid(a, b, indexing="ij")``: one tensor per input, each of the shape of all their
    lengths (with "xy", the first two swapped); the values are not kept."""
    tensors = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    indexing = kwargs.get("indexing", "ij")
    if set(kwargs) - {"indexing"} or indexing not in ("ij", "xy") or not tensors or not all(
            type(t) is TensorV and len(t.shape) <= 1 for t in tensors):
        return Unknown(f"`{_text(node)}`: the analyser follows meshgrid of 1-D tensors only")
    if tensors[0].dtype is None or any(t.dtype != tensors[0].dtype for t in tensors):
        return Unknown(f"`{_text(node)}`: torch's meshgrid needs tensors of one dtype; theirs are not known")
    shape = [t.shape[0] if t.shape else 1 for t in tensors]
    if indexing == "xy" and len(shape) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    return tuple(TensorV(tuple(shape)) for _ in tensors)


def _float_arange(args: list[Any], node: ast.AST) -> TensorV:
    """``torch.arange(0, 1, 4 / head_dim)``: its length, as torch computes it (the ceiling of
    (end - start) / step in double precision); its values are left unknown (torch's kernel
    accumulates them its own way)."""
    if 1 <= len(args) <= 3 and any(isinstance(a, Sym) for a in args) and all(type(a) in (int, float) or
                                                                               isinstance(a, Sym) for a in args):
        # `torch.arange(0.0, demb, 2.0)` of an unknown demb (FastPitch's positional embedding, a buffer):
        # its length a name of its own in a formula.
        return TensorV((sym_opaque(f"len(arange({', '.join(render(a) for a in args)}))", *args),), floating=True)
    if not 1 <= len(args) <= 3 or not all(type(a) in (int, float) for a in args):
        raise Unresolved(f"`{_text(node)}`: the bounds are not known numbers")
    start, end, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    if step == 0 or not all(math.isfinite(x) for x in (start, end, step)):
        raise Unresolved(f"`{_text(node)}`: torch raises for a step of 0 or bounds that are not finite")
    n = math.ceil((float(end) - float(start)) / float(step))
    if n < 0:
        raise Unresolved(f"`{_text(node)}`: the bounds are inconsistent with the step's sign (torch raises)")
    if n > MAX_ITERATIONS * 100:
        raise Unresolved(f"`{_text(node)}` is longer than the analyser follows")
    return TensorV((n,))


def _numpy_linspace(start: Any, stop: Any, num: Any = 50, endpoint: Any = True) -> tuple[float, ...] | None:
    """numpy.linspace's values (float64) for known numbers, as numpy computes them: ``start + i *
    step``, the last one ``stop`` itself (with the end point; without it, ``num`` steps to it)."""
    if type(num) is not int or not 0 <= num <= MAX_ITERATIONS or any(type(v) not in (int, float) for v in (start, stop)) \
            or type(endpoint) is not bool:
        return None
    div = num - 1 if endpoint else num
    if div <= 0:
        return (float(start),) if num == 1 else ()
    step = (stop - start) / div
    if step == 0:
        return tuple(i / div * (stop - start) + start for i in range(num))
    if not endpoint:
        return tuple(i * step + start for i in range(num))
    return tuple([i * step + start for i in range(num - 1)] + [float(stop)])


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _tensor_method(name: str, shape: tuple[Any, ...]) -> Callable[..., Any]:
    def method(*args: Any) -> Any:
        if name == "dim":
            return len(shape)
        if name == "numel":
            return numel(shape)
        return shape[args[0]] if args else tuple(shape)
    return method


def _registered_member(obj: Inst, key: Any) -> Any:
    """``nn.Module.__getattr__``: a parameter, buffer or submodule the module registered, else
    AttributeError (it is only reached where ordinary lookup found nothing)."""
    if isinstance(key, str) and key in obj.attrs:
        v = obj.attrs[key]
        if type(v) is Param or (type(v) is Inst and v.is_module) or key in (obj.buffers or ()) or v is None:
            return v
    raise _Raised(f"`{getattr(obj.cls, 'name', obj.cls)}` has no parameter, buffer or submodule "
                  f"`{key}` (nn.Module.__getattr__ raises AttributeError)", ExtV("AttributeError"))


def container_entries(obj: Inst) -> list[tuple[str, Any]]:
    """A torch container's entries, in order: a ModuleList's and ParameterList's numbered ones, a
    Sequential's numbered or named modules, a ModuleDict's / ParameterDict's modules or tensors.
    Not the plain attributes the instance also holds (`self.merge = merge` in OpenNMT's
    Elementwise(nn.ModuleList), the `training` flag eval() sets)."""
    kind, slots = obj.kind, obj.none_slots
    return [(k, v) for k, v in obj.attrs.items() if _container_entry(kind, k, v, slots)]


def _container_entry(kind: str, name: str, v: Any, slots: dict[str, str] | None = None) -> bool:
    """Whether the attribute ``name`` of a container of ``kind`` is one of its entries (``slots``:
    the container's none_slots, for a None torch keeps in its dict)."""
    if kind == "plist":
        return name.isdigit()  # its length is its own count (_size) of the numbered ones
    t = type(v)
    if kind in ("list", "seq"):
        # torch's len and iteration are its `_modules`': a module set by name (`self.blocks.extra =
        # nn.Linear(...)`) is one of them, and so is a None it keeps there (set to None after a module)
        return name.isdigit() or (t is Inst and v.is_module) or (t is Unknown and v.maybe_module) or (
            v is None and slots is not None and slots.get(name) == "module")
    return (t is Inst and v.is_module) or t is Param or t is Unknown or t is TensorV or (  # dict, pdict
        v is None and name != "training")


def _entry_count(obj: Inst) -> int:
    """How many entries a container has. A list container whose attributes are all numbered
    entries, the usual case, is counted without a walk of its values (an append to a ModuleList of
    thousands stays cheap). Not by its last number alone: torch's `insert` past the end and a
    Sequential's slice leave gaps in the numbers (`'0', 'note', '2'` is two entries)."""
    n = len(obj.attrs)
    if n == 0 or (obj.kind in ("list", "seq", "plist") and "".join(obj.attrs).isdigit()):
        return n
    return len(container_entries(obj))


def _delete_entries(obj: Inst, index: Any) -> list[Any]:
    """A ModuleList's or Sequential's ``del container[index]`` (an int or a slice), as torch's
    ``__delitem__``: the entries deleted from the dict the container holds (which a shallow copy
    shares), then the rest, numbered from 0 again, in a new dict (torch's new OrderedDict; the copy
    keeps the old one). Python's IndexError or TypeError for a bad index. The entries deleted."""
    entries = container_entries(obj)
    kind = obj.kind
    if kind == "list":
        # A ModuleList deletes by key, `str(i)` for each index i (a Sequential, the i-th name): where
        # modules were set by name, that key may be another's, or none (torch's delattr raises).
        positions = range(len(entries))[index] if type(index) is slice else [range(len(entries))[index]]
        present = dict(entries)
        missing = next((str(i) for i in positions if str(i) not in present), None)
        if missing is not None:
            raise _Raised(f"`del` of the ModuleList's entry {missing!r} raises AttributeError: it has no entry named "
                          f"so (its modules were set by name)", ExtV("AttributeError"))
        picked = [(str(i), present[str(i)]) for i in positions]
    else:
        picked = entries[index] if type(index) is slice else [entries[index]]
    for k, _ in picked:
        del obj.attrs[k]
    kept: dict[str, Any] = {}
    rest: list[Any] = []
    for k, v in obj.attrs.items():
        if _container_entry(kind, k, v, obj.none_slots):
            rest.append(v)
        else:
            kept[k] = v
    obj.attrs = {**kept, **{str(i): v for i, v in enumerate(rest)}}
    obj.modules_rebuilt += 1
    return [v for _, v in picked]


def _module_list_entry(obj: Inst, index: int, node: ast.AST) -> Any:
    """``module_list[index]``, as torch's: the entry at the key ``str(index)`` (a negative index counted
    from its length), not the index-th one, where modules were set by name (`blocks.extra = ...`)."""
    n = _entry_count(obj)
    if not -n <= index < n:
        raise _Raised(f"`{_text(node)}` raises IndexError: index {index} is out of range", ExtV("IndexError"))
    key = str(index + n if index < 0 else index)
    if key not in obj.attrs or not _container_entry("list", key, obj.attrs[key]):
        raise _Raised(f"`{_text(node)}` raises KeyError: {key!r} (the ModuleList has no entry named so: its "
                      f"modules were set by name)", ExtV("KeyError"))
    return obj.attrs[key]


def _module_method(interp: Interpreter, obj: Inst, name: str) -> Any:
    """torch's method ``name`` of the module (or container) ``obj``; None where it has no such
    method the analyser follows."""
    if name not in module_method_names():  # most reads reach here for a name none has (hasattr, getattr)
        return None
    fn = _module_methods(interp, obj, name).get(name)
    return BuiltinV(name, fn) if fn is not None else None


def _module_methods(interp: Interpreter, obj: Inst, name: str) -> dict[str, Callable[..., Any]]:
    """torch's methods of ``obj`` that the analyser follows, by name (module_method_names holds every
    name, and a test checks it for every kind of module); ``name``, the one asked for, is what a
    container's message about an element names."""
    container = CONTAINER_CLASSES.get(obj.kind)

    def member(v: Any) -> Any:
        return interp.check_member(v, container, f"{container}.{name}(...)") if container is not None else v

    def append(v: Any) -> Inst:
        obj.attrs[str(_entry_count(obj))] = member(v)
        return obj

    def extend(vs: Any) -> Inst:
        for v in interp.iterate(vs, ast.Constant(value=None)):
            append(v)
        return obj

    def insert(i: Any, v: Any) -> Inst | None:
        count = _entry_count(obj)
        index = as_int(i, "index")
        if type(index) is int and obj.kind == "seq" and not -count <= index <= count:
            raise _Raised(f"`insert({index}, ...)` raises IndexError: Index out of range: {index}", ExtV("IndexError"))
        if type(index) is int and obj.kind == "list" and index < 0:
            # torch's ModuleList.insert moves each entry up from the end down to the index, reading
            # `_modules[str(i - 1)]`: below 0 that is the key '-1', which it never has.
            raise _Raised(f"`insert({index}, ...)` raises KeyError: '-1' (ModuleList.insert takes no negative index)",
                          ExtV("KeyError"))
        if type(index) is not int:
            raise Unresolved(f"`insert({index}, ...)`: the index is a formula, not a number")
        if index < 0:
            index += count  # a Sequential's (a ModuleList's was refused above)
        # As torch's: each entry moved up by key, from `str(len)` down to the index, then the new one
        # set at `str(index)`; a container whose keys are not 0..n-1 (a Sequential's slice keeps
        # its names) has its keys read and written as torch reads and writes them.
        entry = member(v)
        for n in range(count, index, -1):
            source = str(n - 1)
            if source not in obj.attrs or not _container_entry(obj.kind, source, obj.attrs[source]):
                raise _Raised(f"`insert({index}, ...)` raises KeyError: {source!r} (the container has no entry "
                              f"named so)", ExtV("KeyError"))
            obj.attrs[str(n)] = obj.attrs[source]
        obj.attrs[str(index)] = entry
        return obj if obj.kind == "seq" else None  # Sequential's returns itself, ModuleList's None

    # torch's parameter names: `add_module(name=..., module=...)` by keyword (mixnet) binds so.
    def add_module(name: Any, module: Any) -> None:
        key = _registered_key("module", name, None, obj)
        obj.attrs[key] = module
        _note_none_slot(obj, key, "module" if module is None else None)

    def register_parameter(name: Any, param: Any) -> None:
        key = _registered_key("parameter", name, None, obj)
        old = obj.attrs.get(key)
        if old is not None and type(old) is not Param:  # `self.w = 3` first: torch's KeyError
            raise _Raised(f"`register_parameter({key!r}, ...)` raises KeyError: attribute '{key}' already exists",
                          ExtV("KeyError"))
        if param is not None and type(param) is not Param and not is_unknownish(param):
            raise _Raised(f"`register_parameter({key!r}, ...)` raises TypeError: cannot assign a {_kind_name(param)} "
                          f"to parameter '{key}' (torch.nn.Parameter or None required)", ExtV("TypeError"))
        obj.attrs[key] = param
        _note_none_slot(obj, key, "parameter" if param is None else None)

    def register_buffer(name: Any, tensor: Any, persistent: Any = True) -> None:
        key = _registered_key("buffer", name, None, obj)
        if key in obj.attrs and key not in (obj.buffers or {}):  # `self.freqs_cis = None` first
            raise _Raised(f"`register_buffer({key!r}, ...)` raises KeyError: attribute '{key}' already exists",
                          ExtV("KeyError"))
        obj.attrs[key] = None if tensor is None else _as_buffer(tensor)
        _add_buffer(obj, str(name), persistent is not False)

    def state_dict(*args: Any, destination: Any = None, prefix: Any = "", keep_vars: Any = False) -> dict[str, Any]:
        # torch's: each module's parameters, then its persistent buffers, then its submodules' under
        # their dotted names (a tied or shared tensor under each); detached tensors unless keep_vars.
        out: dict[str, Any] = {}
        stack: list[tuple[Inst, str, tuple[int, ...]]] = [(obj, str(prefix), ())]
        while stack:  # depth first, each module's submodules in their order (no recursive closure: no cycle)
            m, path, above = stack.pop()
            if id(m) in above:
                raise Unresolved("`state_dict()` of a module that holds itself: torch recurses without end")
            for k, v in m.attrs.items():
                if type(v) is Param:
                    out[path + k] = v if keep_vars else TensorV(tuple(v.shape), floating=v.floating)
            for k, persistent in (m.buffers or {}).items():
                if persistent is not False and (m.attrs.get(k) is not None or k in RUNNING_STATS):
                    out[path + k] = m.attrs[k] if m.attrs.get(k) is not None else running_stat(m, k)
            children = [(v, f"{path}{k}.", (*above, id(m))) for k, v in m.attrs.items() if type(v) is Inst and v.is_module]
            stack.extend(reversed(children))
        return out

    def load_state_dict(loaded: Any, strict: Any = True, assign: Any = False) -> tuple[list[str], list[str]]:
        # torch's: values copied into the module's own tensors (its parts unchanged: a target
        # network copied from its policy, PPO's); a shape that differs raises, and with strict, a key
        # missing or unexpected. (missing_keys, unexpected_keys), as torch's _IncompatibleKeys.
        if assign is not False:
            raise Unresolved("`load_state_dict(..., assign=True)` puts the given tensors in the module; the "
                             "analyser does not follow it")
        if type(loaded) is not dict or not all(type(k) is str for k in loaded):
            # A checkpoint read from a file or a URL (torchvision's pretrained weights): values only, if
            # it loads at all, which is what any count of the model takes for granted.
            return Unknown(f"what `load_state_dict` reports of {why_of(loaded) or 'a state dict the analyser did not build'}")  # type: ignore[return-value]
        own = state_dict()
        for key in [k for k in own if k in loaded]:  # in torch's order (a set's is the hash seed's)
            theirs = getattr(loaded[key], "shape", None)
            if theirs is not None and all(type(d) is int for d in (*theirs, *own[key].shape)) and \
                    tuple(theirs) != tuple(own[key].shape):
                raise _Raised(f"`load_state_dict`: size mismatch for {key}: {tuple(theirs)} against the module's "
                              f"{tuple(own[key].shape)} (torch raises RuntimeError)", ExtV("RuntimeError"))
        missing, unexpected = [k for k in own if k not in loaded], [k for k in loaded if k not in own]
        if strict and (missing or unexpected):
            raise _Raised(f"`load_state_dict`: missing keys {missing[:3]}, unexpected keys {unexpected[:3]} "
                          f"(torch raises RuntimeError)", ExtV("RuntimeError"))
        return missing, unexpected

    def walk_parameters(prefix: Any = "", recurse: Any = True, remove_duplicate: Any = True) -> Iterator[tuple[str, Param]]:
        # torch's Module._named_members over _parameters: the modules walked as named_modules walks
        # them, each one's own parameters as it is reached (`recurse=False`: the module's own only).
        once = truth(remove_duplicate, "remove_duplicate")
        modules = _walk_modules(obj, str(prefix), {}, once, ()) if truth(recurse, "recurse") else \
            iter([(str(prefix), obj)])
        return _walk_parameters(modules, once)

    def named_buffers(prefix: Any = "", recurse: Any = True, remove_duplicate: Any = True) -> Any:
        modules = named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, obj)]
        for _, m in modules:
            unknown = next((v for v in m.attrs.values() if isinstance(v, Unknown)), None)
            if unknown is not None:  # it may be a buffer (`nn.Buffer` of a value not known)
                return Unknown(f"`named_buffers()`: {why_of(unknown)}")
        return named_members(lambda m: [(k, running_stat(m, k) if k not in m.attrs else m.attrs[k])
                                        for k in (m.buffers or ()) if k in m.attrs or k in RUNNING_STATS],
                             prefix, recurse, remove_duplicate)

    def named_members(members: Callable[[Inst], list[tuple[str, Any]]], prefix: Any, recurse: Any,
                      remove_duplicate: Any) -> list[tuple[str, Any]]:
        # torch's Module._named_members: each module's own members, modules in named_modules' order.
        modules = named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if truth(recurse, "recurse") else \
            [(str(prefix), obj)]
        seen: set[int] = set()
        out = []
        for module_prefix, m in modules:
            for k, v in members(m):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                out.append((f"{module_prefix}.{k}" if module_prefix else k, v))
        return out

    def named_modules(memo: Any = None, prefix: Any = "", remove_duplicate: Any = True) -> list[tuple[str, Inst]]:
        return list(walk_modules(memo, prefix, remove_duplicate))

    def walk_modules(memo: Any = None, prefix: Any = "", remove_duplicate: Any = True) -> Iterator[tuple[str, Inst]]:
        return _walk_modules(obj, str(prefix), {}, truth(remove_duplicate, "remove_duplicate"), ())

    def get_submodule(target: Any) -> Inst:
        # As torch: each dotted step an attribute that is a module, else AttributeError.
        module = obj
        for item in str(target).split(".") if target != "" else []:
            found = module.attrs.get(item)
            if is_unknownish(found):  # there, but not built by the analyser: not an AttributeError
                raise Unresolved(f"`get_submodule({target!r})`: {why_of(found)}")
            if not (isinstance(found, Inst) and found.is_module):
                raise _Raised(f"`get_submodule({target!r})`: `{item}` is not a submodule (AttributeError)",
                              ExtV("AttributeError"))
            module = found
        return module

    def get_parameter(target: Any, kind: type = Param, what: str = "parameter") -> Any:
        path, _, name = str(target).rpartition(".")
        found = get_submodule(path).attrs.get(name)
        if is_unknownish(found):
            raise Unresolved(f"`get_{what}({target!r})`: {why_of(found)}")
        if not isinstance(found, kind):
            raise _Raised(f"`get_{what}({target!r})`: `{name}` is not a {what} (AttributeError)", ExtV("AttributeError"))
        return found

    def update(vs: Any) -> None:
        # a ModuleDict's or ParameterDict's items are its entries, not its other attributes
        items = vs.items() if isinstance(vs, dict) else container_entries(vs) if isinstance(vs, Inst) and \
            vs.kind in ("dict", "pdict") else vs.attrs.items() if isinstance(vs, Inst) else vs
        for k, v in items:
            obj.attrs[_registered_key("parameter" if obj.kind == "pdict" else "module", k, None, obj)] = member(v)

    def pop_entry(index: Any) -> Any:
        """ModuleList / Sequential ``pop``: the entry, the rest numbered from 0 again."""
        index = as_int(index, "index")
        if obj.kind == "list" and type(index) is int:
            _module_list_entry(obj, index, ast.Name(id=f"pop({index!r})"))  # torch's `v = self[key]` first
        try:
            (entry,) = _delete_entries(obj, index)
        except IndexError as exc:
            raise _Raised(f"`pop({index!r})` raises IndexError: {exc}", ExtV("IndexError"))
        return entry

    def pop_key(key: Any) -> Any:
        if not _hashable(key) or key not in obj.attrs:
            raise _Raised(f"`pop({key!r})` raises KeyError: {key!r}"[:300], ExtV("KeyError"))
        return obj.attrs.pop(key)

    def setdefault(key: Any, default: Any = None) -> Any:
        if key not in obj.attrs:
            obj.attrs[str(key)] = member(default)
        return obj.attrs[str(key)]

    def popitem() -> Any:
        if not obj.attrs:
            raise _Raised("`popitem()` raises KeyError: the ParameterDict is empty", ExtV("KeyError"))
        return obj.attrs.popitem()

    table: dict[str, Callable[..., Any]] = {
        "add_module": add_module, "register_module": add_module, "register_parameter": register_parameter,
        # torch's walks are generators (`next(self.mlp.parameters())` takes the first: Swinv2), so a
        # loop's body that changes the modules changes what comes next.
        "register_buffer": register_buffer,
        "parameters": lambda recurse=True: interp.lazy_iterator(p for _, p in walk_parameters(recurse=recurse)),
        "state_dict": state_dict, "load_state_dict": load_state_dict,
        "named_parameters": lambda *a, **k: interp.lazy_iterator(walk_parameters(*a, **k)),
        "named_buffers": lambda *a, **k: _iterator_of(named_buffers(*a, **k)),
        "buffers": lambda recurse=True: _iterator_of(named_buffers(recurse=recurse), values=True),
        "modules": lambda: interp.lazy_iterator(m for _, m in walk_modules()),
        "named_modules": lambda *a, **k: interp.lazy_iterator(walk_modules(*a, **k)),
        "children": lambda: interp.lazy_iterator(m for _, m in _walk_children(obj)),
        "named_children": lambda: interp.lazy_iterator(_walk_children(obj)), "get_submodule": get_submodule,
        "get_parameter": get_parameter,
        "get_buffer": lambda target: get_parameter(target, TensorV, "buffer"),
        "requires_grad_": lambda requires_grad=True: _set_grad(obj, requires_grad),
        "apply": _ModuleApply(obj), "to": lambda *a, **k: _module_to(obj, a, k), "eval": lambda: _set_training(obj, False),
        "train": lambda mode=True: _set_training(obj, mode),
        **{cast: (lambda *a, cast=cast: _dtypes_cast(obj, _CONVERSION_DTYPES[cast] if not a else None))
           for cast in ("half", "float", "bfloat16", "double")},
        "type": lambda *a, **k: _dtypes_cast(obj, None, complex_too=True),
        "cuda": lambda *a: obj, "cpu": lambda: obj,
        "zero_grad": lambda *a, **k: None, "reset_parameters": lambda: None, "_init_weights": lambda *a: None,
        # No parameter made or dropped: an RNN's weights compacted for cuDNN, a module shared across processes.
        "share_memory": lambda: obj, **({"flatten_parameters": lambda: None} if obj.layer_args is not None and
                                        obj.layer_args[0] in ("RNN", "LSTM", "GRU", "RNNBase") else {}),
        # nn.Module's, called by name (`self.__setattr__('level_%d' % i, layer)`: pytorch-cifar's DLA).
        "__setattr__": lambda key, value: interp.object_setattr(obj, key, value, interp.self_attribute_node(key)),
        "__getattr__": lambda key: _registered_member(obj, key),
        "__delattr__": lambda key: _delattr(obj, key, f"{obj.type_name}.__delattr__({key!r})"),  # MobileOne's reparameterize
        # Hooks run at forward, backward or state-dict time, never on the parameters the build made.
        **{name: (lambda *a, **k: None) for name in _MODULE_HOOKS},
    }
    if _parameterless_metric(obj):  # torchmetrics' own (`metrics.clone(prefix="val_")`): no parameters made
        table.update({"clone": lambda *a, **k: Inst(obj.cls, "layer", True, obj.origin), "reset": lambda: None,
                      "set_dtype": lambda dtype: obj, "persistent": lambda mode=False: None})
    # The containers' own methods, as torch defines them (ParameterList has no insert or pop,
    # ModuleDict no get or setdefault); a method one lacks is an unfollowed call (ev_call).
    if obj.kind in ("list", "seq", "plist"):
        table.update({"append": append, "extend": extend, "__len__": lambda: _entry_count(obj)})
    if obj.kind in ("list", "seq"):
        table.update({"insert": insert, "pop": pop_entry})
    if obj.kind in ("dict", "pdict"):
        table.update({"items": lambda: ContainerView.of(obj, "items"), "keys": lambda: ContainerView.of(obj, "keys"),
                      "values": lambda: ContainerView.of(obj, "values"), "update": update, "pop": pop_key,
                      "clear": obj.attrs.clear})
    if obj.kind == "pdict":
        table.update({"get": lambda k, d=None: obj.attrs.get(k, d), "setdefault": setdefault, "popitem": popitem,
                      "copy": lambda: _parameter_dict_copy(obj),
                      # torch's are generators over the live keys: `((k, self[k]) for k in self._keys)`
                      "items": lambda: interp.lazy_iterator((k, obj.attrs.get(k)) for k in _live_container(obj)),
                      "values": lambda: interp.lazy_iterator(obj.attrs.get(k) for k in _live_container(obj))})
    return table


@functools.lru_cache(maxsize=1)
def module_method_names() -> frozenset[str]:
    """Every name _module_methods gives for some kind of module: its table, made once for each kind
    on first use (nothing in it runs while it is made; an RNN layer's adds flatten_parameters)."""
    names: set[str] = set()
    for kind in ("module", "layer", *CONTAINER_CLASSES):
        obj = Inst(None, kind, True)
        if kind == "layer":
            obj.layer_args = ("RNNBase", {})
        names.update(_module_methods(None, obj, ""))  # type: ignore[arg-type]
    names.update(_module_methods(None, Inst("torchmetrics.Metric", "layer", True), ""))  # type: ignore[arg-type]
    return frozenset(names)


def _repository_roots(directory: str, levels: int = 3) -> tuple[str, ...]:
    """The directories above the file, up to its repository's root (a `.git`, `pyproject.toml`,
    `setup.py`, ...) and at most ``levels`` up: where a script run from the repository imports its
    sibling packages (`models/net.py`: `from layers.blocks import Block`, thuml's Autoformer)."""
    if os.sep + "site-packages" in directory or os.sep + "dist-packages" in directory or _installed(directory):
        return ()  # an installed package imports its own modules by their package's name, or relatively
    return tuple(up_to_repository_root(directory, levels + 1))[1:]


@functools.lru_cache(maxsize=256)
def _installed(directory: str) -> bool:
    """Whether the package the directory belongs to is installed (its top package's directory
    holds `*.dist-info`: timm beside an environment), not a repository's code (a repository
    installed with `setup.py develop` keeps an `*.egg-info` in its root, and is still searched)."""
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    try:
        return any(name.endswith(".dist-info") for name in os.listdir(directory))
    except OSError:
        return False


def _is_package_dir(directory: str, known: dict[str, bool]) -> bool:
    """Whether the directory holds an ``__init__.py``; ``known``: the answers of this analysis (each
    file read and each import asks for every directory above it)."""
    found = known.get(directory)
    if found is None:
        found = known[directory] = os.path.isfile(os.path.join(directory, "__init__.py"))
    return found


def _own_package_root(directory: str, top: str, known: dict[str, bool]) -> tuple[str, ...]:
    """Where ``import top.x`` starts when the file is inside the package ``top`` (a package that
    imports itself by absolute name: transformers' ``from transformers.models.auto import ...``)."""
    while top and _is_package_dir(directory, known):
        if os.path.basename(directory) == top:
            return (os.path.dirname(directory),)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return ()


def _is_package(path: str) -> bool:
    return os.path.basename(path) == "__init__.py"


# The most files a package search reads (transformers' models/ has 2,600): a package the size of a
# monorepo is searched in part, so a name may stay undefined (LC101), never take a wrong value.
MAX_SEARCHED_FILES = 20_000


def _files_defining(directory: str, name: str, limit: int = MAX_SEARCHED_FILES) -> tuple[str, ...]:
    """The Python files under ``directory`` whose text defines ``name`` at top level (the first
    ``limit`` files, in a fixed order)."""
    word = name.encode()
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                limit -= 1
                if limit < 0:
                    return tuple(found)
                path = os.path.join(root, f)
                try:
                    with open(path, "rb") as fh:
                        data = fh.read()
                except OSError:
                    continue
                if word in data and _text_defines(data.decode("utf-8", errors="replace"), name):
                    found.append(path)
    return tuple(found)


def _may_define(path: str | None, name: str) -> bool:
    """Whether a module's text has a top-level definition, assignment or import of ``name``: a
    lazy package's star imports are many (transformers' models/auto has eight, one of them
    2,000 lines of tables), and reading each to find one name would cost more than the rest of
    the analysis. A module it misses leaves the name undefined (LC101), never a wrong value."""
    if path is None:
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return False
    return _text_defines(text, name)


def _text_defines(text: str, name: str) -> bool:
    """_may_define of a module's text."""
    if name not in text:  # the search below is tried at every character: most texts never name it
        return False
    word = re.escape(name)
    return re.search(rf"^(?:class|def)\s+{word}\b|^{word}\s*[:=]|^(?:from|import)\b[^\n]*\b{word}\b|"
                     rf"^\s+{word},?\s*(?:#.*)?$", text, re.M) is not None


def _block_imports(block: list[ast.stmt]) -> Iterator[ast.ImportFrom]:
    """The ``from ... import`` statements of a block, in source order, also those under its ``if``
    and ``try`` statements (transformers' generation package imports GenerationMixin under
    ``try: if not is_torch_available(): raise ... except ...: pass else: from .utils import ...``).
    A ``try``'s ``else`` comes after its handlers: the imports made where the packages are there win."""
    for stmt in block:
        if isinstance(stmt, ast.ImportFrom):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from _block_imports(stmt.body)
            yield from _block_imports(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _block_imports(stmt.body)
            for handler in stmt.handlers:
                yield from _block_imports(handler.body)
            yield from _block_imports(stmt.orelse)
            yield from _block_imports(stmt.finalbody)


def _is_lazy_package_block(stmt: ast.stmt) -> bool:
    """``if TYPE_CHECKING: <imports> else: sys.modules[__name__] = _LazyModule(...)``: a package that
    replaces itself with a lazy module (transformers' packages). Running it would fail (it reads
    ``globals()``) and mark every name it imports unknown; its names are read from the imports."""
    return isinstance(stmt, ast.If) and _dotted(stmt.test).endswith("TYPE_CHECKING") and any(
        _replaces_module(x) for x in stmt.orelse)


def _replaces_module(stmt: ast.stmt) -> bool:
    """``sys.modules[__name__] = ...``: the package puts a lazy module in its own place."""
    return isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Subscript) and _dotted(t.value) == "sys.modules" and isinstance(t.slice, ast.Name)
        and t.slice.id == "__name__" for t in stmt.targets)


_STRICT_DECORATORS = frozenset({"huggingface_hub.dataclasses.strict", "huggingface_hub.strict"})


_SIMPLE_FIELD_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def _field_type_error(name: str, value: Any, annotation: Any) -> str:
    """huggingface_hub's type check of a strict dataclass's field (``_validate_simple_type``, a
    union's ``_validate_union``), for a value and an annotation of the simple kinds; "" where the
    value passes or either is of another kind (not checked)."""
    if type(value) not in (int, float, bool, str, type(None)):
        return ""
    allowed = []
    for option in annotation if type(annotation) is tuple else (annotation,):  # `int | None`
        if option is None:
            allowed.append(type(None))
        elif type(option) is BuiltinV and option.name in _SIMPLE_FIELD_TYPES:
            allowed.append(_SIMPLE_FIELD_TYPES[option.name])
        else:
            return ""
    if any(isinstance(value, t) and not (t is int and type(value) is bool) for t in allowed):
        return ""
    if len(allowed) == 1:
        return f"Field '{name}' expected {allowed[0].__name__}, got {type(value).__name__} (value: {value!r})"
    return f"Field '{name}' with value {value!r} doesn't match any type in ({', '.join(t.__name__ for t in allowed)})"


def _init_owner(cls: ClassV) -> ClassV | None:
    """The class of the MRO whose ``__init__`` runs: the first with one of its own (written, or
    generated as a dataclass's) or one ``@strict`` wrapped."""
    for c in cls.mro():
        if type(c) is ClassV and (c.strict_validated or "__init__" in c.namespace or c.is_dataclass):
            return c
    return None


def _dataclass_init(cls: ClassV) -> ClassV | None:
    """The dataclass whose generated __init__ ``cls()`` runs: the first class of the MRO that
    defines __init__ in its body (then None: that one runs, as a dataclass keeps an __init__ it
    is given) or is a dataclass."""
    for c in cls.mro():
        if "__init__" in c.namespace:
            return None
        if c.is_dataclass:
            return c
    return None


def _parameterless_metric(obj: Any) -> bool:
    """A metric (or MetricCollection) Interpreter.metric made."""
    return type(obj) is Inst and type(obj.cls) is str and obj.cls.startswith("torchmetrics.")


def _lightning_instance(obj: Inst) -> bool:
    """Whether an object is a LightningModule of the shim's (LIGHTNING_SHIM)."""
    return type(obj.cls) is ClassV and any(type(c) is ClassV and c.path == LIGHTNING_SHIM and c.name == "LightningModule"
                                           for c in obj.cls.mro())


def _is_module_base(b: Any) -> bool:
    if isinstance(b, ClassV):
        return b.is_module
    if isinstance(b, ExtV):
        return b.name in ("torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module", "Module",
                          "torch.jit.ScriptModule", "torch.jit._script.ScriptModule") or (
            _torch_layer_name(b) is not None)
    return False


# Code of transformers' that the analyser runs natively where a function is exactly this code
# (compared as syntax trees; a changed version is interpreted as written):
# - the attribute hooks through which PreTrainedConfig maps attribute names (interpreting them was
#   most of the time a transformers model class took to build);
# - auto_class_update, which every auto class (AutoModel, AutoModelForCausalLM, ...) goes through
#   when modeling_auto.py is imported: it rewrites the class's documentation and gives it copies of
#   its base's from_config and from_pretrained that differ only in theirs (the docstrings list every
#   model of the library, made from the auto mappings at each import). Natively, the class is
#   returned with its base's methods, which is what the copies do.
_KNOWN_HOOKS = {kind: ast.parse(source).body[0] for kind, source in (
    ("attribute_map_get", """
def __getattribute__(self, key):
    if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
        key = super().__getattribute__("attribute_map")[key]
    return super().__getattribute__(key)
"""), ("attribute_map_set", """
def __setattr__(self, key, value):
    if key in super().__getattribute__("attribute_map"):
        key = super().__getattribute__("attribute_map")[key]
    super().__setattr__(key, value)
"""), ("auto_class_update", '''
def auto_class_update(cls, checkpoint_for_example: str = "google-bert/bert-base-cased", head_doc: str = ""):
    # Create a new class with the right name from the base class
    model_mapping = cls._model_mapping
    name = cls.__name__
    class_docstring = insert_head_doc(CLASS_DOCSTRING, head_doc=head_doc)
    cls.__doc__ = class_docstring.replace("BaseAutoModelClass", name)

    # Now we need to copy and re-register `from_config` and `from_pretrained` as class methods otherwise we can't
    # have a specific docstrings for them.
    from_config = copy_func(_BaseAutoModelClass.from_config)
    from_config_docstring = insert_head_doc(FROM_CONFIG_DOCSTRING, head_doc=head_doc)
    from_config_docstring = from_config_docstring.replace("BaseAutoModelClass", name)
    from_config_docstring = from_config_docstring.replace("checkpoint_placeholder", checkpoint_for_example)
    from_config.__doc__ = from_config_docstring
    from_config = replace_list_option_in_docstrings(model_mapping._model_mapping, use_model_types=False)(from_config)
    cls.from_config = classmethod(from_config)

    from_pretrained_docstring = FROM_PRETRAINED_TORCH_DOCSTRING
    from_pretrained = copy_func(_BaseAutoModelClass.from_pretrained)
    from_pretrained_docstring = insert_head_doc(from_pretrained_docstring, head_doc=head_doc)
    from_pretrained_docstring = from_pretrained_docstring.replace("BaseAutoModelClass", name)
    from_pretrained_docstring = from_pretrained_docstring.replace("checkpoint_placeholder", checkpoint_for_example)
    shortcut = checkpoint_for_example.split("/")[-1].split("-")[0]
    from_pretrained_docstring = from_pretrained_docstring.replace("shortcut_placeholder", shortcut)
    from_pretrained.__doc__ = from_pretrained_docstring
    from_pretrained = replace_list_option_in_docstrings(model_mapping._model_mapping)(from_pretrained)
    cls.from_pretrained = classmethod(from_pretrained)
    return cls
'''), ("is_torch_available", '''
@lru_cache
@_make_compile_constant
def is_torch_available() -> bool:
    try:
        is_available, torch_version = _is_package_available("torch", return_version=True)
        parsed_version = version.parse(torch_version)
        if is_available and parsed_version < version.parse("2.6.0"):
            logger.warning_once(f"Disabling PyTorch because PyTorch >= 2.6 is required but found {torch_version}")
        return is_available and version.parse(torch_version) >= version.parse("2.6.0")
    except packaging.version.InvalidVersion:
        return False
'''))}


def _after_in_mro(owner: ClassV, obj: Any) -> tuple[ClassV, ...]:
    """Where ``super(owner, obj)`` looks: the classes after ``owner`` in the MRO of ``obj``'s class
    (of ``obj`` itself for a class), as Python does. A mixin's ``super().__init__(config)``
    (transformers' GenericForTokenClassification, which has no base of its own) reaches the next
    class of the model it is mixed into, not object's."""
    start = obj.cls if type(obj) is Inst else obj
    if type(start) is ClassV and start is not owner:
        mro = start.mro()
        for i, c in enumerate(mro):
            if c is owner:
                return mro[i + 1:]
    return owner.ancestors()


def _module_init_first(owner: ClassV, obj: Any, found: ClassV) -> bool:
    """Whether torch's nn.Module (or a torch layer) comes before ``found`` after ``owner`` in the MRO
    of ``obj``'s class: ``super().__init__()`` then runs torch's __init__, which does not go on to
    the classes after it (nn.Module.call_super_init is False). peft's `class Linear(nn.Module,
    LoraLayer)` calls `LoraLayer.__init__` itself for that reason."""
    start = obj.cls if type(obj) is Inst else obj
    if type(start) is not ClassV or not any(type(b) is ExtV for c in start.mro() for b in c.bases):
        return False
    after = _python_mro(start)
    order = [start, *after] if after is not None else None
    if order is None or owner not in order:
        return False
    for c in order[order.index(owner) + 1:]:
        if c is found:
            return False
        if type(c) is ExtV and _is_module_base(c):
            return True
    return False


_OBJECT = ExtV("object")


class _UnknownBase:
    """A base the analyser could not resolve, in a class's linearization (_python_mro): equal only to
    itself, as the class it stands for is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _python_mro(cls: ClassV) -> tuple[Any, ...] | None:
    """The classes after ``cls`` in its MRO as Python's C3 orders them, where the analyser knows
    them: its bases of the project, outside ones (each taken as having object alone as its base,
    which can only hide a conflict, never make one), those not resolved (_UnknownBase, likewise)
    and object, last. typing's special bases (`Generic[T]`, `NamedTuple`, `Protocol`) are left
    out: Python replaces them (`__mro_entries__`). None where the bases admit no such order:
    Python's TypeError."""
    if cls.python_ancestors is None:
        sequences: list[list[Any]] = []
        bases: list[Any] = []
        for b in cls.bases:
            if type(b) is ClassV:
                below = _python_mro(b)
                if below is None:
                    cls.python_ancestors = ()
                    return None
                sequences.append([b, *below])
            elif type(b) is ExtV and not b.name.startswith(("typing.", "typing_extensions.")):
                b = _OBJECT if b.name == "builtins.object" else b
                sequences.append([b] if b == _OBJECT else [b, _OBJECT])
            elif type(b) is Unknown:
                b = _UnknownBase(b)  # where it is in the order: what `super()` reaches before or after it
                sequences.append([b, _OBJECT])
            else:
                continue
            bases.append(b)
        merged = c3_merge([*sequences, bases] if bases else [[_OBJECT]])
        cls.python_ancestors = tuple(merged) if merged is not None else ()
    return cls.python_ancestors or None


def _super_blocked(owner: ClassV, obj: Any, name: str) -> Unknown | None:
    """What ``super(owner, obj).name`` is where the lookup reaches, before a class of the project
    that defines ``name``, torch's own classes or ``object``, a base of ``owner`` whose code the
    analyser does not have (`class Net(X, nn.Module)`: its `super().__init__()` runs X's, which may
    build anything): one it could not resolve, or one from a package it does not read; None where
    it does not."""
    start = obj.cls if type(obj) is Inst and type(obj.cls) is ClassV else obj if type(obj) is ClassV else owner
    order = _python_mro(start)
    if order is None:
        return None
    full = [start, *order]
    if owner not in full:
        return None
    after = full[full.index(owner) + 1:]
    return _unresolved_base_first(owner, after, name) or _unread_base_first(after, name)


def _unresolved_base_first(owner: ClassV, after: list[Any], name: str) -> Unknown | None:
    """_super_blocked for a base the analyser could not resolve; ``after``: the classes after
    ``owner`` in the instance's MRO."""
    # A base not resolved is taken as what it almost always is, a mixin with no __init__ deriving from
    # neither nn.Module nor a class of the project (transformers' GenerationMixin, which the analyser
    # may not resolve, in `class WhisperForConditionalGeneration(WhisperGenerationMixin,
    # WhisperPreTrainedModel)`), unless it is a base of ``owner`` itself: its own next class.
    own = [b for b in owner.bases if type(b) is Unknown]
    if not own:
        return None
    for e in after:
        if type(e) is _UnknownBase and any(e.value is b for b in own):
            return Unknown(f"`super().{name}` reaches a base the analyser cannot resolve: {why_of(e.value)}",
                           maybe_module=True)
        if (type(e) is ClassV and name in e.namespace) or (type(e) is ExtV and (e.name.startswith("torch.") or
                                                                               e == _OBJECT)):
            return None
    return None


def _unread_base_first(after: list[Any], name: str) -> Unknown | None:
    """_super_blocked for a base from a package the analyser does not read (`class Net(Adapter,
    nn.Module)` with `Adapter` from a package that is not installed). The standard library's
    classes (ABC, Generic, NamedTuple, Enum, exceptions) are known."""
    for e in after:
        if type(e) is ClassV and name in e.namespace:
            return None
        if type(e) is ExtV:
            if e.name.startswith("torch.") or e == _OBJECT:
                return None
            if e.name in _STANDARD_BASES or _builtin_exception(e) is not None:
                continue  # known (what it defines is taken as the analyser takes it elsewhere)
            return Unknown(f"`super().{name}` reaches `{e.name}`, a class the analyser does not read, which may "
                           f"define it", maybe_module=True)
    return None


def _class_statement_error(cls: ClassV) -> str | None:
    """Python's TypeError for a class statement whose bases repeat a class, or admit no MRO
    (`class C(Mixin, Base)` where Base already comes after Mixin); None where the analyser sees none."""
    seen: list[Any] = []
    for b in cls.bases:
        if type(b) is ClassV or type(b) is ExtV:
            if any(b is s if type(b) is ClassV else b == s for s in seen):
                return f"duplicate base class {b.name.rpartition('.')[2]}"
            seen.append(b)
    if _python_mro(cls) is None:
        names = ", ".join(b.name.rpartition(".")[2] for b in cls.bases if type(b) in (ClassV, ExtV))
        return f"Cannot create a consistent method resolution order (MRO) for bases {names}"
    return None


def _known_hook(fn: FuncV) -> str | None:
    """Which of _KNOWN_HOOKS the function is (found once per syntax tree and kept on it), else None."""
    node = fn.node
    kind = getattr(node, "lsp_count_hook", _MISSING)
    if kind is _MISSING:
        from lsp_count.pymodel.loader import body_of

        try:
            body_of(node)  # type: ignore[arg-type]  # a project file's body, parsed when first needed
            kind = next((k for k, known in _KNOWN_HOOKS.items() if _same_tree(node, known)), None)
        except (SyntaxError, ValueError, RecursionError):
            kind = None
        node.lsp_count_hook = kind  # type: ignore[attr-defined]
    return kind


def _same_tree(a: Any, b: Any) -> bool:
    """The same syntax, wherever it is written (ast.dump's comparison, without the reference cycle
    its recursive helper leaves at every call)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(_same_tree(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b))
    return a == b


def _own_iter(v: Any) -> FuncV | None:
    """The ``__iter__`` an object's class of the code defines (a container subclass's too)."""
    return _own_method(v.cls, "__iter__") if type(v) is Inst and type(v.cls) is ClassV else None


_NOT_ITERABLE_TYPES = {int: "int", float: "float", complex: "complex", bool: "bool", type(None): "NoneType"}


def _not_iterable(v: Any) -> str | None:
    """The type name in Python's TypeError ("'int' object is not iterable") where ``v`` defines no
    way to iterate: a number, None, a function, a torch layer, a module or an object of the code's
    classes with neither ``__iter__`` nor ``__getitem__`` (and no base from outside, which may
    define one); None where it may be iterable. (Not a class: its metaclass may iterate it.)"""
    t = type(v)
    if t in _NOT_ITERABLE_TYPES:
        return _NOT_ITERABLE_TYPES[t]
    if t is FuncV:
        return "function"
    if t is Inst and v.kind not in _CONTAINER_KINDS and not isinstance(v.attrs.get(_DICT_ITEMS), dict) and (
            type(v.cls) is str or (type(v.cls) is ClassV and _own_method(v.cls, "__iter__") is None and
                                   _own_method(v.cls, "__getitem__") is None and
                                   all(_is_object(b) or _is_module_base(b) for b in _outside_bases(v.cls)))):
        return v.type_name
    return None


def _walk_modules(m: Inst, prefix: str, memo: dict[int, Inst], once: bool,
                  above: tuple[int, ...]) -> Iterator[tuple[str, Inst]]:
    """torch's ``Module.named_modules``, a generator as torch's is: the module, then each submodule's
    walk under its dotted name, each module once (``memo``, which keeps them alive so an id is never
    reused), or every time it is held with ``once`` False (a module that holds itself: torch recurses
    without end). A submodule is walked as it is when the walk reaches it."""
    if id(m) in memo:
        return
    if once:
        memo[id(m)] = m
    elif id(m) in above:
        raise Unresolved("`named_modules(remove_duplicate=False)` of a module that holds itself: torch "
                         "recurses without end")
    yield prefix, m
    inner = (*above, id(m))
    for name, child in _live_modules(m):
        yield from _walk_modules(child, f"{prefix}.{name}" if prefix else name, memo, once, inner)


def _walk_children(m: Inst) -> Iterator[tuple[str, Inst]]:
    """torch's ``Module.named_children``: each submodule once, a generator as torch's is."""
    seen: dict[int, Inst] = {}
    for name, child in _live_modules(m):
        if id(child) not in seen:
            seen[id(child)] = child
            yield name, child


def _is_module(name: str, v: Any) -> bool:
    return type(v) is Inst and v.is_module


def _is_parameter(name: str, v: Any) -> bool:
    return type(v) is Param


def _live_modules(m: Inst) -> Iterator[tuple[str, Inst]]:
    """``m._modules.items()`` as Python iterates that dict under a loop whose body may change it."""
    return _live_members(m, _is_module, "module", True)


def _live_parameters(m: Inst) -> Iterator[tuple[str, Param]]:
    """``m._parameters.items()``, the same way (torch's ``named_parameters`` walks each module's;
    torch never replaces a ``_parameters`` dict)."""
    return _live_members(m, _is_parameter, "parameter", False)


def _iterates_live(obj: Inst) -> bool:
    """A torch container iterated by torch's own ``__iter__`` (not a subclass's, nor one whose
    parts the analyser does not all hold)."""
    return obj.kind in _CONTAINER_KINDS and _own_iter(obj) is None and not obj.unfollowed


def _live_container(obj: Inst) -> Iterator[Any]:
    """A torch container iterated as its ``__iter__`` does, under a loop whose body may change it:
    a ModuleList's and a Sequential's ``_modules.values()`` (a None slot too), a ModuleDict's and a
    ParameterDict's keys, each dict's iterator as Python's (_live_members); a ParameterList's
    ``self[i] for i in range(len(self))``, its length taken when the loop starts."""
    kind = obj.kind
    if kind == "plist":
        return (obj.attrs.get(str(i)) for i in range(_entry_count(obj)))
    walk = _live_entries(obj)
    return (v for _, v in walk) if kind in ("list", "seq") else (k for k, _ in walk)


def _live_entries(obj: Inst) -> Iterator[tuple[str, Any]]:
    """A ModuleList's, Sequential's, ModuleDict's or ParameterDict's dict of entries, iterated as
    Python iterates a dict (_live_members): each key with the entry it holds when reached."""
    kind = obj.kind
    entries = {k for k, _ in container_entries(obj)}

    def is_entry(name: str, v: Any) -> bool:
        # Once an entry, always one: torch keeps the key in its dict whatever is set there.
        if name in entries:
            return True
        if _container_entry(kind, name, v):
            entries.add(name)
            return True
        return False

    return _live_members(obj, is_entry, "module" if kind != "pdict" else "parameter", kind != "pdict")


def _live_members(m: Inst, is_member: Callable[[str, Any], bool], kind: str, modules: bool) -> Iterator[tuple[str, Any]]:
    """One of a module's member dicts (``_modules``, ``_parameters``), iterated as Python iterates
    a dict under a loop whose body may change it: each name with the member it holds when
    reached (one set again meanwhile gives the new member, one set to None is skipped, as torch
    keeps None there); a member added or deleted meanwhile (an `add_module`, a ModuleList's
    append, insert or pop, a `register_parameter`) makes the next step raise Python's
    RuntimeError, as the dict's iterator does. A name held by something else before the walk and
    a member now may have been torch's None slot: not followed.
    ``modules``: the dict is ``_modules``, which a ModuleList's or Sequential's ``del`` / ``pop``
    replaces with an OrderedDict after deleting from the one a walk may be iterating; an
    OrderedDict's iterator that has handed out its last key ends, whatever changed since.
    The dict is read when this is called, as Python's iterator is made (`iter(self.blocks)`
    then an append: the first `next` raises)."""
    names = [k for k, v in m.attrs.items() if is_member(k, v)]
    before = set(names)
    others = {k for k in m.attrs if k not in before}
    return _live_steps(m, is_member, kind, modules, names, before, others, m.modules_rebuilt if modules else 0)


def _live_steps(m: Inst, is_member: Callable[[str, Any], bool], kind: str, modules: bool, names: list[str],
                before: set[str], others: set[str], rebuilt: int) -> Iterator[tuple[str, Any]]:
    """_live_members' steps, from what the dict held when its iterator was made: ``names``, its
    members then (``before``, as a set), and ``others``, the module's other attributes then."""
    ordered = rebuilt > 0
    error = "OrderedDict mutated during iteration" if ordered else "dictionary changed size during iteration"
    index = 0
    while True:
        if ordered and index >= len(names):
            return
        if modules and m.modules_rebuilt != rebuilt:  # its dict was deleted from, then replaced
            raise _Raised(f"walking the modules of a `{m.type_name}` while a module is deleted from it raises "
                          f"RuntimeError: {error}", ExtV("RuntimeError"))
        now = [k for k, v in m.attrs.items() if is_member(k, v)]
        if now != names:
            added = [k for k in now if k not in before]
            gone = [k for k in names if k not in m.attrs]
            if any(k in others for k in added) or (added and gone and not ordered) or any(
                    k in m.attrs and m.attrs[k] is not None and not is_member(k, m.attrs[k]) for k in names):
                raise Unresolved(f"the {kind}s of a `{m.type_name}` change while a walk over them runs, in a way the "
                                 f"analyser does not follow")
            if added or gone:
                raise _Raised(f"walking the {kind}s of a `{m.type_name}` while a {kind} is added to or deleted from "
                              f"it raises RuntimeError: {error}", ExtV("RuntimeError"))
        if index >= len(names):
            return
        name = names[index]
        index += 1
        member = m.attrs.get(name)
        if is_member(name, member):
            yield name, member


def _walk_parameters(modules: Iterator[tuple[str, Inst]], once: bool) -> Iterator[tuple[str, Param]]:
    """torch's ``Module.named_parameters``, a generator as torch's is: each module's own parameters
    as the module walk reaches it, each tensor once with ``once`` (the memo keeps them alive, so an
    id is never reused)."""
    memo: dict[int, Param] = {}
    for prefix, module in modules:
        for name, p in _live_parameters(module):
            if id(p) in memo:
                continue
            if once:
                memo[id(p)] = p
            yield f"{prefix}.{name}" if prefix else name, p


def _sequence_getitem(v: Any) -> FuncV | None:
    """The ``__getitem__`` Python iterates an object of the code's class by, where the class
    defines no ``__iter__`` (the old sequence protocol); None for a torch container or a dict
    subclass, which the analyser iterates itself."""
    if type(v) is not Inst or type(v.cls) is not ClassV or v.kind in _CONTAINER_KINDS or \
            isinstance(v.attrs.get(_DICT_ITEMS), dict) or _own_method(v.cls, "__iter__") is not None:
        return None
    return _own_method(v.cls, "__getitem__")


def _container_override(obj: Inst, name: str) -> FuncV | None:
    """A torch container subclass's own ``__setitem__`` / ``__getitem__`` / ``__iter__`` (the
    analyser's container operations stand for torch's, not for the code's)."""
    if obj.kind not in _CONTAINER_KINDS or type(obj.cls) is not ClassV:
        return None
    return _own_method(obj.cls, name)


_CONTAINER_KINDS = frozenset({"list", "seq", "plist", "dict", "pdict"})


def _own_method(cls: ClassV, name: str) -> FuncV | None:
    """The method of that name a class of the project defines for ``cls`` (None: object's)."""
    found = cls.find(name, None)
    return found if isinstance(found, FuncV) else None


_MAPPING_MIXINS = frozenset({"keys", "values", "items", "get", "__contains__", "__len__"})


def _extends_mapping(cls: ClassV) -> bool:
    """A class that derives from collections.abc's Mapping or MutableMapping."""
    return any(isinstance(b, ExtV) and b.name.rsplit(".", 1)[-1] in ("Mapping", "MutableMapping")
               for c in cls.mro() for b in c.bases)


# The standard library's classes a class of the code may extend, by the names the analyser gives them.
_STANDARD_BASES: dict[str, type] = {
    "collections.OrderedDict": collections.OrderedDict, "typing.OrderedDict": collections.OrderedDict,
    "OrderedDict": collections.OrderedDict, "typing.Dict": dict, "collections.defaultdict": collections.defaultdict,
    "collections.Counter": collections.Counter, "typing.NamedTuple": tuple, "NamedTuple": tuple, "typing.List": list,
    "typing.Tuple": tuple, "enum.Enum": enum.Enum, "enum.IntEnum": enum.IntEnum, "enum.IntFlag": enum.IntFlag,
    "enum.Flag": enum.Flag, "enum.StrEnum": enum.StrEnum, "abc.ABC": abc.ABC, "typing.Generic": typing.Generic,
    "typing.Protocol": typing.Protocol}
# Those that derive from a Python type, as that type (dict for an OrderedDict, int for an IntEnum).
_BUILTIN_BASE_TYPES: dict[str, type] = {
    name: next(t for t in (dict, list, tuple, int, str) if issubclass(cls, t))
    for name, cls in _STANDARD_BASES.items() if issubclass(cls, (dict, list, tuple, int, str))}


_NAMED_TUPLE_MEMBERS = frozenset({"_replace", "_asdict", "_fields", "count", "index"})


def _is_named_tuple(cls: ClassV) -> bool:
    return cls.is_dataclass and tuple in _builtin_bases(cls)


def _named_tuple_items(obj: Inst) -> tuple[Any, ...]:
    missing = next((f for f in obj.cls.fields if f not in obj.attrs), None)
    if missing is not None:
        raise Unresolved(f"the field `{missing}` of `{obj.cls.name}` is not set")
    return tuple(obj.attrs[f] for f in obj.cls.fields)


def _builtin_bases(cls: ClassV) -> list[type]:
    """The Python types among a class's outside bases (dict for ``class Cfg(dict)``)."""
    out = []
    for b in _outside_bases(cls):
        if type(b) is BuiltinV and b.name in _PY_TYPES:
            out.append(_PY_TYPES[b.name])
        elif type(b) is ExtV and b.name in _BUILTIN_BASE_TYPES:
            out.append(_BUILTIN_BASE_TYPES[b.name])
    return out


def _extends_dict(cls: ClassV) -> bool:
    for c in cls.mro():
        for b in c.bases:
            if (isinstance(b, ExtV) and b.name in ("collections.OrderedDict", "typing.OrderedDict", "OrderedDict",
                                                   "typing.Dict", "collections.UserDict")) or (
                    isinstance(b, BuiltinV) and b.name == "dict"):
                return True
    return False


def _torch_layer_name(b: ExtV) -> str | None:
    """``Linear`` for ``torch.nn.Linear``: a class of torch.nn (a module); None for anything else."""
    name = b.name
    if not name.startswith("torch.nn.") or name.startswith(("torch.nn.functional", "torch.nn.init", "torch.nn.utils")):
        return None
    last = name.rsplit(".", 1)[-1]
    return last if last[:1].isupper() and last not in ("Parameter", "UninitializedParameter", "Buffer") else None


def _first_torch_base(cls: ClassV) -> str | None:
    """The name of the first torch.nn class among the bases in ``cls``'s MRO (``LayerNorm``, ``Sequential``)."""
    for c in cls.mro():
        for b in c.bases:
            if isinstance(b, ExtV):
                last = _torch_layer_name(b)
                if last is not None:
                    return last
    return None


def _torch_layer_base(cls: ClassV) -> str | None:
    """The torch.nn layer whose constructor builds ``cls``'s parameters (``class Norm(nn.LayerNorm)``):
    the first torch.nn base in its MRO; None for nn.Module and the containers (built elsewhere)."""
    last = _first_torch_base(cls)
    return None if last in ("Module", *CONTAINERS) else last


_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum"})  # not Flag: members combine with |


def _is_enum(cls: ClassV) -> bool:
    """A subclass of enum.Enum, IntEnum or StrEnum (directly, or through an enum of the code that
    has no members, which Python lets a class extend)."""
    return any((type(b) is ExtV and b.name in _ENUM_BASES) or (type(b) is ClassV and b.enum_members == {})
               for c in cls.mro() for b in c.bases)


def _make_members(cls: ClassV) -> None:
    """The class body's plain names become the members, as enum's metaclass makes them: each an
    instance with ``name`` and ``value``; a name whose value an earlier member has is an alias of it."""
    bases = {b.name for c in cls.mro() for b in c.bases if type(b) in (BuiltinV, ExtV)}
    cls.enum_mixin = str if bases & {"str", "enum.StrEnum"} else int if bases & {"int", "enum.IntEnum"} else None
    cls.enum_members = {}
    for name, value in list(cls.namespace.items()):
        if name.startswith("_") or type(value) in (FuncV, BuiltinV, BoundV, PartialV, ClassV):
            continue  # methods, nested classes and _sunder_ / __dunder__ names are not members
        if value is _ENUM_AUTO:
            value = _auto_value(cls, name)
        alias = next((m for m in cls.enum_members.values() if _same_value(m.attrs["_value_"], value)), None)
        if alias is None:
            alias = Inst(cls, "object", False)
            alias.attrs.update(name=name, value=value, _name_=name, _value_=value)
        cls.namespace[name] = cls.enum_members[name] = alias


_ENUM_AUTO = ExtV("enum.auto()")  # what enum.auto() stands for until its class makes the value


def _auto_value(cls: ClassV, name: str) -> Any:
    """The value enum.auto() gives member ``name``: enum's default _generate_next_value_ (the name
    lowercased for a StrEnum, else one more than the last int). (Flags are not enums here.)"""
    if cls.find("_generate_next_value_", None) is not None:
        return Unknown(f"`{cls.name}.{name}` = auto(), which its own _generate_next_value_ makes")
    if cls.enum_mixin is str:
        if any(type(b) is ExtV and b.name == "enum.StrEnum" for c in cls.mro() for b in c.bases):
            return name.lower()
        return Unknown(f"`{cls.name}.{name}` = auto() in an enum of str (a value that depends on the Python version)")
    ints = [m.attrs["_value_"] for m in cls.enum_members.values() if type(m.attrs["_value_"]) is int]
    return ints[-1] + 1 if ints else 1


def _same_value(a: Any, b: Any) -> bool:
    return type(a) in _PLAIN and type(b) in _PLAIN and a == b


def _dataclass_values(v: Any, as_dict: bool, node: ast.AST) -> Any:
    """What asdict / astuple make of one value (a module-level function: a nested recursive one
    would be a reference cycle the analysis leaves behind)."""
    t = type(v)
    if t is Inst and type(v.cls) is ClassV and v.cls.is_dataclass:
        missing = next((f for f in v.cls.fields if f not in v.attrs), None)
        if missing is not None:
            raise Unresolved(f"`{_text(node)}`: the field `{missing}` of `{v.cls.name}` is not set")
        values = [(f, _dataclass_values(v.attrs[f], as_dict, node)) for f in v.cls.fields]
        return dict(values) if as_dict else tuple(x for _, x in values)
    if t is list or t is tuple:
        return t(_dataclass_values(x, as_dict, node) for x in v)
    if t is dict:
        return {_dataclass_values(k, as_dict, node): _dataclass_values(x, as_dict, node) for k, x in v.items()}
    return clone(v)


def _enum_member(cls: ClassV, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``Format("NCHW")``: the member with that value (a member is its own); ValueError for none."""
    if len(args) != 1 or kwargs:
        raise Unresolved(f"`{_text(node)}`: the analyser looks an enum member up by one value")
    value = args[0]
    if type(value) is Inst and value.cls is cls:
        return value
    if is_unknownish(value):
        raise Unresolved(f"`{_text(node)}` depends on {_clause(why_of(value))}")
    for member in cls.enum_members.values():  # type: ignore[union-attr]
        known = member.attrs["_value_"]
        if is_unknownish(known):
            raise Unresolved(f"`{_text(node)}`: the value of `{cls.name}.{member.attrs['_name_']}` is not known "
                             f"({why_of(known)})")
        if _same_value(known, value):
            return member
    raise _Raised(f"`{_text(node)}`: {value!r} is not a valid {cls.name} (ValueError)", ExtV("ValueError"))


def _members(cls: ClassV) -> list[Inst]:
    """An enum's members in definition order, each once (what iterating the class gives)."""
    return list({id(m): m for m in (cls.enum_members or {}).values()}.values())


def _stored_key(d: dict[Any, Any], key: Any) -> Any:
    """The key of ``d`` that Python finds for ``key``: a member of a str or int enum hashes and compares
    as its value (lerobot's `norm_map.get(FeatureType.STATE)` of a dict keyed by "STATE"), both ways."""
    if not _hashable(key) or key in d:
        return key
    plain = _member_value(key)
    if plain is not key and _hashable(plain) and plain in d:
        return plain
    if type(key) in (str, int):
        for stored in d:
            if type(stored) is Inst and _member_value(stored) == key and _member_value(stored) is not stored:
                return stored
    return key


_MEMBER_HOLDERS = frozenset({list, tuple, dict})


def _member_values(v: Any, depth: int = 8) -> Any:
    """A list, tuple or dict with the members of str and int enums in it (at any depth) as their
    values, for an equality Python decides item by item; other values as they are."""
    t = type(v)
    if depth == 0 or t not in _MEMBER_HOLDERS:
        return _member_value(v)
    if t is dict:
        return {_member_value(k): _member_values(x, depth - 1) for k, x in v.items()}
    return t(_member_values(x, depth - 1) for x in v)


def _member_value(v: Any) -> Any:
    """The value of a member of an enum that mixes in str or int (equal to it, computing as it);
    anything else as it is."""
    if type(v) is Inst and type(v.cls) is ClassV and v.cls.enum_mixin is not None and "_value_" in v.attrs:
        return v.attrs["_value_"]
    return v


def _torch_container_base(cls: ClassV) -> str | None:
    """The torch.nn container ``cls`` is (``class SequentialTuple(nn.Sequential)``): its first torch.nn
    base in its MRO, when that is one; None otherwise."""
    last = _first_torch_base(cls)
    return last if last in CONTAINERS else None


# An import of these in a try is taken to succeed: torch runs the model, and the analyser models
# numpy and einops as the installed packages they nearly always are beside it.
_ALWAYS_IMPORTABLE = frozenset({"torch", "numpy", "einops", "__future__"})
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _private(name: str) -> bool:
    return name.startswith("__") and not name.endswith("__")


def _operand_text(v: Any) -> str:
    """A formula as an operand of an operator the formula shows written out: in parentheses unless
    it is one name or number (`(x·log(y)) / (dim // 8)`, not `... / dim // 8`)."""
    text = render(v)
    if not isinstance(v, Sym) or (" " not in text and "·" not in text) or _one_group(text):
        return text
    return f"({text})"


def _one_group(text: str) -> bool:
    """Whether the text is one bracketed group or one call (`(a + b)`, `int(8·x)`): its first
    opening parenthesis closes at its end."""
    head = re.match(r"[\w.]*\(", text)
    if head is None or not text.endswith(")"):
        return False
    depth = 0
    for i in range(head.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i == len(text) - 1
    return False


_DEPENDS = re.compile(r"^`[^`]*` depends on (.+)$", re.S)


def _clause(why: str) -> str:
    """A reason as a clause after "depends on": "`load` is not defined" reads "`load`, which is not defined"."""
    return _NAMED_IS.sub(r"\1, which \2 ", why, count=1)


def _depends_on(e: ast.expr, v: Any) -> str:
    """"`expr` depends on <why v is unknown>", said once where ``v`` is already unknown for the same
    expression (TFT's `hidden_size or input_size`, written in a module and in the one it builds)."""
    said = f"`{_text(e)}` depends on "
    why = why_of(v)
    return why if why.startswith(said) else said + _clause(why)


def _because(v: Any) -> str:
    """": it depends on ..." where ``v`` is unresolved (a constructor argument with no default), else ""."""
    return f": it depends on {_clause(why_of(v))}" if is_unknownish(v) else ""


def _no_init_of_its_own(cls: ClassV) -> bool:
    """No class of the project in its MRO defines ``__init__`` (nn.Module's or a torch layer's builds it)."""
    return not any("__init__" in c.namespace for c in cls.mro())


def _decorator_head(dec: ast.expr) -> ast.expr:
    """``functools.lru_cache`` of ``@functools.lru_cache(maxsize=None)``."""
    return dec.func if isinstance(dec, ast.Call) else dec


def _is_functools_cache(dec: ast.expr, head: Any) -> bool:
    return type(head) is ExtV and head.name in ("functools.lru_cache", "functools.cache")


def _plain_key(args: list[Any], kwargs: dict[str, Any]) -> Any:
    """A cache key of Python's own hashable values (as lru_cache hashes them), else None; a module is
    keyed by itself, as Python hashes it (by identity: a cached method's `self`). Another object of
    the analyser's (a config) is not keyed (its hash depends on its class)."""
    key = (tuple(args), tuple(sorted(kwargs.items())) if kwargs else ())
    for v in (*args, *kwargs.values()):
        t = type(v)
        if t not in _KEY_TYPES and not (t is tuple and all(type(x) in _KEY_TYPES for x in v)) and \
                not (t is Inst and v.is_module):
            return None
    return key


# The classmethods of Python's types that make a value (`dict.fromkeys`, `int.from_bytes`).
_TYPE_CONSTRUCTORS = frozenset({"fromkeys", "from_bytes", "fromhex", "maketrans"})


def _set_training(module: Inst, mode: Any) -> Inst:
    """``module.train(mode)`` / ``eval()``: the flag on the module and every submodule, as torch sets it."""
    if is_unknownish(mode):
        raise Unresolved(f"train(mode) with a mode that depends on {_clause(why_of(mode))}")
    stack, seen = [module], set()
    while stack:
        m = stack.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        m.attrs["training"] = bool(mode)
        stack.extend(v for v in m.attrs.values() if type(v) is Inst and v.is_module)
    return module


def _rebinds(old: Any, value: Any) -> bool:
    """Whether setting ``value`` where ``old`` was changes what a reader sees (setting a name for
    the first time does not: no build read it before; _MISSING is "not set")."""
    return old is not _MISSING and old is not value and not _same_value(old, value)


# A module's ``buffers`` until nn.Module.__init__ has run on it (a class of the code whose constructor
# has not called ``super().__init__()`` yet): torch has no ``_parameters`` / ``_modules`` then, and
# refuses a parameter, a submodule or a buffer set on it. Never changed in place (_add_buffer).
_BEFORE_MODULE_INIT: dict[str, None] = {}


def _reset_module(inst: Inst) -> None:
    """nn.Module.__init__ on a module: torch starts its parameters, buffers and submodules afresh
    (run a second time, it drops those set before); its other attributes stay."""
    if not inst.attrs:
        inst.buffers = None
        return
    buffers = inst.buffers or {}
    for name in [k for k, v in inst.attrs.items() if type(v) is Param or (type(v) is Inst and v.is_module) or
                 k in buffers]:
        del inst.attrs[name]
    inst.buffers = None


def _dataclass_option(node: ast.ClassDef, option: str, default: bool) -> bool | None:
    """An option of the ``@dataclass(...)`` on a class statement (``eq``, ``kw_only``), a constant
    or its default; None where the class has no dataclass decorator."""
    for decorator in node.decorator_list:
        if _dotted(decorator.func if isinstance(decorator, ast.Call) else decorator).endswith("dataclass"):
            keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
            given = next((k.value for k in keywords if k.arg == option and isinstance(k.value, ast.Constant)), None)
            return bool(given.value) if given is not None else default
    return None


def _decorator_option(node: ast.ClassDef, decorators: Any, option: str, default: Any) -> Any:
    """A constant option of the first of ``decorators`` (dotted names) on a class statement, else ``default``."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call) and any(_dotted(decorator.func) == d or d.endswith("." + _dotted(decorator.func))
                                                   for d in decorators):
            given = next((k.value for k in decorator.keywords if k.arg == option and isinstance(k.value, ast.Constant)),
                         None)
            return given.value if given is not None else default
    return default


def _is_frozen_dataclass(cls: ClassV) -> bool:
    """A class the dataclass decorator made frozen (`@dataclass(frozen=True)`; its __setattr__ raises)."""
    return cls.is_dataclass and bool(_dataclass_option(cls.node, "frozen", False))


def _dataclass_compares(cls: ClassV) -> bool:
    """Whether the dataclass decorator gave ``cls`` (or the dataclass it derives from) its
    ``__eq__`` (``eq=True``, the default)."""
    return next((eq for c in cls.mro() if (eq := _dataclass_option(c.node, "eq", True)) is not None), False)


def _custom_construction(cls: ClassV, node: ast.ClassDef, env: Env) -> str:
    """What builds an instance of a module class besides ``__init__``: a ``__new__`` of the code (a
    singleton, or one returning another object) or a metaclass of the code with a ``__call__``
    (one that changes the arguments). "" where there is none (a plain config class's ``__new__``
    is not a model's: only module classes are asked)."""
    owner = next((c for c in cls.mro() if "__new__" in c.namespace), None)
    if owner is not None:
        new = owner.namespace["__new__"]
        if type(new) is FuncV and new.kind in ("", "static") and not new.node.decorator_list:
            cls.new_method = new  # followed where it returns an object of another class (Interpreter.built_by_new)
            return ""
        if cls.is_module:
            return f"`{owner.name}.__new__`"
    if not cls.is_module:
        return ""
    for keyword in node.keywords:
        if keyword.arg == "metaclass" and isinstance(keyword.value, ast.Name):
            try:
                meta = env.lookup(keyword.value.id)
            except KeyError:
                continue
            if type(meta) is ClassV and meta.find("__call__", None) is not None:
                return f"the metaclass `{meta.name}`'s `__call__`"
    return ""


class _GlobalWrites(dict):  # type: ignore[type-arg]
    """A call's local names, for a function that declares some ``global``: a write to one of those is
    the module's, at once, as Python makes it (a class built later in the same call reads it)."""

    __slots__ = ("interp", "module_names", "names")

    def __init__(self, interp: "Interpreter", module_names: dict[str, Any], names: frozenset[str],
                 initial: dict[str, Any]) -> None:
        super().__init__(initial)
        self.interp, self.module_names, self.names = interp, module_names, names

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self.names:
            self.interp.state_written(_rebinds(self.module_names.get(key, _MISSING), value))
            self.interp.ctx.logged_write(self.module_names, key)
            self.module_names[key] = value
        else:
            super().__setitem__(key, value)


def _exported(mod: ModV, name: str) -> bool:
    """Whether ``from mod import *`` gives a private name: it is in the module's ``__all__``
    (Tramac's `core/nn/basic.py` exports `_ConvBNReLU` so)."""
    exported = mod.names.get("__all__") if isinstance(mod.names, dict) else None
    return isinstance(exported, (list, tuple)) and name in exported


def _declared_names(node: ast.AST) -> tuple[tuple[str, bool], ...]:
    """The names a function's body (not the functions and classes in it) declares ``global``
    (True) or ``nonlocal`` (False)."""
    out: list[tuple[str, bool]] = []
    stack = list(getattr(node, "body", ()) if not isinstance(node, ast.Lambda) else ())
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.Global | ast.Nonlocal):
            out.extend((name, isinstance(stmt, ast.Global)) for name in stmt.names)
        elif not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for block in child_blocks(stmt):
                stack.extend(block)
    return tuple(out)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(_dotted(c).rpartition(".")[2] in _IMPORT_ERRORS for c in caught)


def _forget_item(held: Any, first: ast.Subscript, why: str) -> bool:
    """``X["k"] = ...`` not followed: X's item "k" is not known (the other items are as they were);
    False where that item cannot be told apart (a key not written as a constant), or X is no list or dict."""
    key = first.slice.value if isinstance(first.slice, ast.Constant) else _MISSING
    if type(held) is dict and key is not _MISSING and _hashable(key):
        held[_stored_key(held, key)] = Unknown(why, maybe_module=True)
        return True
    if type(held) is list and type(key) is int and -len(held) <= key < len(held):
        held[key] = Unknown(why, maybe_module=True)
        return True
    return False


def _forget_attribute(held: Any, name: str, why: str) -> None:
    if type(held) is ClassV:
        held.namespace[name] = Unknown(why, maybe_module=True)
    elif type(held) is Inst:
        held.attrs[name] = Unknown(why, maybe_module=True)
    elif type(held) is ModV:
        held.names[name] = Unknown(why, maybe_module=True)


def _function_locals(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, body: list[ast.stmt]) -> frozenset[str]:
    """The names a function binds itself (its parameters, what it assigns), less those it declares
    global or nonlocal: what it writes through any other name is another scope's."""
    a = node.args
    bound = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}
    declared: set[str] = set()
    for stmt in body:
        for n in _statement_nodes(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                bound.add(n.id)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)) and n.name:
                bound.add(n.name)
            elif isinstance(n, ast.alias):
                bound.add((n.asname or n.name).split(".")[0])
    return frozenset(bound - declared)


def _statement_nodes(stmt: ast.stmt) -> Any:
    """The nodes a statement runs itself: not the bodies of the functions and lambdas it defines."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend(node.decorator_list)
            todo.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(node))


_UNFOLLOWED = "is set by code the analyser cannot follow: "


def _raised_by_python(exc: BaseException) -> bool:
    """Whether ``exc`` is Python's own error where the code runs (not a package that is not
    installed, which the user may have, nor what the analyser cannot follow)."""
    return isinstance(exc, _Raised) and type(exc) is not _MissingModule and not (
        type(exc.kind) is ExtV and exc.kind.name.rpartition(".")[2] in ("ImportError", "ModuleNotFoundError"))


def _forget_assigned(stmt: ast.stmt, names: dict[str, Any], reason: str, maybe_module: bool = False) -> list[Unknown]:
    """What a statement the analyser could not follow assigns (a module-level statement, one of a
    script's entry point): not known, for ``reason``; the values it put in ``names``."""
    out = []
    for target in _assigned_names(stmt):
        value = names[target] = Unknown(f"`{target}` {_UNFOLLOWED}{reason}", maybe_module=maybe_module)
        out.append(value)
    return out


def unfollowed_reason(name: str, why: str) -> str:
    """The reason _forget_assigned gave for ``name`` (``why`` unchanged where it did not give it)."""
    return why.removeprefix(f"`{name}` {_UNFOLLOWED}")


def _assigned_names(stmt: ast.stmt) -> list[str]:
    out: list[str] = []
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.append(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            out.append(node.name)
        elif isinstance(node, ast.alias):
            out.append((node.asname or node.name).split(".")[0])
    return out


def _load(target: ast.expr) -> ast.expr:
    """The same expression as a load (for ``x += 1``)."""
    return target


# The analyser's own value classes, as a Python error message names them, and what they are to the user.
_OWN_TYPES = re.compile(r"'(Unknown|Sym|Inst|Param|TensorV|RangeV|ExtV|FuncV|ClassV|BuiltinV|BoundV|PartialV)'(?: object)?")
# The analyser's views of a module's dicts, named in messages as Python names their types.
_VIEW_NAMES = {"ModulesView": "dict", "ParametersView": "dict", "InstanceDictView": "dict", "OrderedDictV": "OrderedDict",
               "IteratorV": "iterator", "CycleV": "itertools.cycle"}


# The analyser's own functions standing for a builtin (object.__getattribute__ through super()).
_OWN_FUNCTIONS = re.compile(r"\b(?:Interpreter|_\w+)\.[\w.]*<locals>\.[\w<>]+\(\)")


# Python's own values. An operation on them that fails fails in Python too (a tuple added to a
# list, a key a dict lacks, a division by 0): the analysed code may catch that error
# (`try: width = TABLE[name] except KeyError: ...`), so it is raised as the code's own. On the
# analyser's values (a tensor, a module, a config object, anything unknown) the error may be the
# analyser's alone, and is never caught (Interpreter.try_stmt).
_PYTHON_SCALARS = frozenset({int, float, complex, bool, str, bytes, type(None), slice, range})
_PYTHON_CONTAINERS = frozenset({tuple, list, set, frozenset})
_BUILTIN_METHOD = type([].append)
# Methods of torch's nn.Module (and of a tensor reached from one) that read it and change nothing
# of its parts (Interpreter.may_change).
_READING_MODULE_METHODS = frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children",
    "named_children", "state_dict", "get_submodule", "get_parameter", "get_buffer", "extra_repr", "numel", "dim",
    "size", "nelement", "element_size", "print_trainable_parameters", "get_nb_trainable_parameters",
    "num_parameters", "keys", "items", "values", "get", "__repr__", "__len__", "__iter__", "__getitem__",
    "__contains__"})


# Methods that save, export or run a model, by their names in torch, transformers and peft: what
# they do changes no size (a training script's `model.save_pretrained(output_dir)` at its end).
_SAVING_METHODS = frozenset({"save_pretrained", "push_to_hub", "save_model", "generate", "forward", "train", "eval",
                             "zero_grad", "register_forward_hook", "register_forward_pre_hook",
                             "register_full_backward_hook", "estimate_mfu", "configure_optimizers"})
# A module's methods that change no size, whatever they do: reading, saving or running it.
_SIZE_KEEPING_METHODS = _READING_MODULE_METHODS | _SAVING_METHODS


def _never_a_part(value: ast.expr) -> bool:
    """Whether an expression's value can be no module and no parameter, whatever it reads."""
    return (type(value) is ast.Constant and value.value is not None) or type(value) in (ast.Compare, ast.JoinedStr) \
        or (type(value) is ast.UnaryOp and type(value.op) is ast.Not)


# Builtins that read what they are given (`list(self.parameters())`, `len(self.layers)`).
_BUILTINS_THAT_READ = frozenset({"list", "tuple", "sum", "len", "sorted", "dict", "set", "print", "isinstance",
                                 "getattr", "hasattr", "enumerate", "zip", "iter", "max", "min", "any", "all", "str",
                                 "repr", "id", "type", "format", "reversed", "frozenset", "bool", "int", "float"})


def _root_name(node: ast.AST) -> str | None:
    """The name an attribute, item or call chain starts from (`self` of `self.a.b[0].c()`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


# Installed libraries' functions that load a checkpoint's weights into a model already built (its
# sizes as they are): name -> the file that defines it (Interpreter.call_function skips them).
_WEIGHT_LOADERS = {name: os.path.join("timm", "models", "_builder.py")
                   for name in ("load_pretrained", "load_custom_pretrained")}
# tqdm's progress bars over an iterable: the iterable's items (interp.call_external).
_PROGRESS_BARS = frozenset(f"tqdm.{module}tqdm" for module in ("", "auto.", "std.", "notebook.", "autonotebook.", "rich."))
# The methods of list, dict and set that change the object.
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                               "setdefault", "popitem", "add", "discard", "difference_update",
                               "intersection_update", "symmetric_difference_update"})
# Builtins whose analyser versions call Python's own on Python's values (_num).
_PYTHON_CONVERSIONS = frozenset({"int", "float"})
_IDENTITY_KEPT = frozenset({Inst, Param, TensorV, ClassV, FuncV, list, dict, set, bool})
# The analyser's versions of these builtins: where one raises on Python's own values, Python's
# builtin is asked too, and only an error it raises as well is Python's (which the code may catch).
_PYTHON_CHECKED = frozenset({"len", "sum", "min", "max", "sorted", "abs", "round", "divmod", "list", "tuple", "set",
                             "frozenset", "dict", "any", "all", "reversed", "bool", "enumerate", "zip", "iter"})


def _python_raises(name: str, args: list[Any], kwargs: dict[str, Any], raised: Exception) -> bool:
    """Whether Python's builtin ``name`` raises what the analyser's raised, on the same Python values."""
    try:
        getattr(builtins, name)(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the question is which
        return type(exc) is type(raised)
    return False
_MAX_CHECKED_ITEMS = 10_000


def _is_python_key(k: Any, depth: int = 3) -> bool:
    """A dict key compared as Python compares it: a scalar, a class of the project (by identity, as
    Python compares classes), or a tuple of those. Not an outside name: the analyser knows it by the
    dotted name it was imported under, and two names can be one class (`nn.GELU`,
    `torch.nn.modules.activation.GELU`)."""
    t = type(k)
    if t in _PYTHON_SCALARS or t is ClassV:
        return True
    return t is tuple and depth > 0 and all(_is_python_key(x, depth - 1) for x in k)


def _is_python_value(v: Any, depth: int = 3, budget: list[int] | None = None) -> bool:
    """``v`` behaves as the Python value it stands for in any operation: a scalar, or a tuple, list,
    set or dict of such values (a dict's keys such, its values anything: looking one up never
    compares them). No to more than _MAX_CHECKED_ITEMS items in all (lists that share their
    items, `[[0] * 10**4] * 10**4`, would be checked item by item)."""
    t = type(v)
    if t in _PYTHON_SCALARS or t in _CONTAINER_VIEW_TYPES:  # (a view's operations are its type's, as Python's)
        return True
    if (t is not dict and t not in _PYTHON_CONTAINERS) or depth <= 0:
        return False
    budget = budget if budget is not None else [_MAX_CHECKED_ITEMS]
    budget[0] -= len(v)
    if budget[0] < 0:
        return False
    if t is dict:
        return all(_is_python_key(k) for k in v)
    return all(_is_python_value(x, depth - 1, budget) for x in v)


def _all_python_values(args: list[Any], kwargs: dict[str, Any]) -> bool:
    budget = [_MAX_CHECKED_ITEMS]
    return all(_is_python_value(a, 3, budget) for a in args) and all(
        _is_python_value(v, 3, budget) for v in kwargs.values())


def _python_subscript(obj: Any, key: Any) -> bool:
    """Whether ``obj[key]`` (read, written or deleted) fails as in Python: a list's or tuple's items
    and a dict's values take no part in finding the place, so the container's type, a dict's keys
    and the key decide."""
    t = type(obj)
    if t in _CONTAINER_VIEW_TYPES:
        return True  # never subscriptable, whatever the key
    if not _is_python_key(key):
        return False
    if t is dict:
        return len(obj) <= _MAX_CHECKED_ITEMS and all(_is_python_key(k) for k in obj)
    return t in _PYTHON_SCALARS or t is list or t is tuple


def _statements_in(body: list[ast.stmt]) -> Any:
    """The statements of a block and of the blocks it holds (if, with, for, try), not of the
    functions and classes it defines: what runs when the block runs."""
    stack = [body]
    while stack:
        for stmt in stack.pop():
            yield stmt
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.extend(child_blocks(stmt))


_DEPENDS_CHAIN = re.compile(r"^(?:(?:`[^`]*`|whether it can be called) depends on )+")


def _first_cause(why: str) -> str:
    """"`a or b` depends on `b > 1` depends on the constructor argument `b` ..." without the
    steps between the condition and what it comes down to (each restated the condition)."""
    return _clause(_DEPENDS_CHAIN.sub("", why) or why)


_NAMED_IS = re.compile(r"^(`[^`]+`) (is|returns|raises) ")


def _contents(container: Any) -> Any:
    """What a container holds, by identity (its values' own __eq__ is not the question)."""
    if isinstance(container, dict):
        return [(k, id(v)) for k, v in container.items()]
    return sorted(map(id, container)) if isinstance(container, (set, frozenset)) else [id(v) for v in container]


TORCH_VERSION = "2.13.0"  # the torch the layer table follows (its tests compare it with this one)
_DTYPE_NAME = re.compile(r"torch\.(?:u?int\d*|float\d*|bfloat16|half|double|long|short|bool|complex\d*|cfloat|cdouble)$")


def _plain_text_value(v: Any, depth: int = 3) -> bool:
    """Whether Python's text of ``v`` is the text of the value it stands for (no object of the analyser's in it,
    but the classes of the code and torch.nn's, written as Python writes them)."""
    if type(v) in _TEXT_SCALARS or v is None or type(v) is ClassV:
        return True
    if type(v) is ExtV:
        return _torch_class_text(v) is not None
    if type(v) is _Bases:
        return all(type(b) is Unknown and name or _plain_text_value(b, depth - 1) for b, name in zip(v, v.names))
    if type(v) not in (list, tuple, set, frozenset, dict) or depth <= 0 or len(v) > 1000:
        return False
    items = [x for kv in v.items() for x in kv] if type(v) is dict else v
    return all(_plain_text_value(x, depth - 1) for x in items)


class _Bases(tuple):  # type: ignore[type-arg]
    """A class's ``__bases__`` with the names the class statement writes its bases by."""

    names: tuple[str, ...]

    def __new__(cls, bases: Any, names: tuple[str, ...]) -> "_Bases":
        out = super().__new__(cls, bases)
        out.names = names
        return out


def _repr_text(v: Any) -> str:
    """Python's repr of a value _plain_text_value accepts."""
    if type(v) is _Bases:  # an unresolved base by its name (its module is not known)
        inner = ", ".join(f"<class '{name}'>" if type(b) is Unknown else _repr_text(b) for b, name in zip(v, v.names))
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if type(v) is ExtV:
        return _torch_class_text(v) or ""
    if type(v) is tuple:
        inner = ", ".join(_repr_text(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if type(v) is list:
        return f"[{', '.join(_repr_text(x) for x in v)}]"
    if type(v) is dict:
        return "{" + ", ".join(f"{_repr_text(k)}: {_repr_text(x)}" for k, x in v.items()) + "}"
    if type(v) in (set, frozenset):
        inner = ", ".join(_repr_text(x) for x in v)
        return (f"{{{inner}}}" if v else "set()") if type(v) is set else f"frozenset({{{inner}}})" if v else "frozenset()"
    return repr(v)  # a scalar, a class of the code (ClassV writes itself as Python does)


def _torch_class_text(v: ExtV) -> str | None:
    parts = v.name.split(".")
    module = TORCH_NN_MODULES.get(parts[-1]) if parts[:2] == ["torch", "nn"] and _known_torch_class(v.name) else None
    return f"<class '{module}.{parts[-1]}'>" if module else None


def _text_of(v: Any, spec: str = "") -> Any:
    """``format(v, spec)`` as Python gives it, or _MISSING where the analyser does not know the text
    (a module's, a class's: Python's is not the analyser's own object's)."""
    if spec:
        _bounded_widths(_SPEC_NUMBER.findall(spec), None)
    if _plain_text_value(v):
        return format(v if type(v) in _TEXT_SCALARS or v is None else _repr_text(v), spec)
    if type(v) is ExtV and _DTYPE_NAME.match(v.name):
        return format(v.name, spec)  # str(torch.float32)
    if type(v) is DeviceV:
        return format(v.type if v.index is None else f"{v.type}:{v.index}", spec)
    if type(v) is ReleaseVersion:
        return format(v.text, spec)
    return _MISSING


_REPR_CONVERSION, _ASCII_CONVERSION = ord("r"), ord("a")  # ast.FormattedValue.conversion of `!r`, `!a`


def _repr(v: Any) -> Any:
    """Python's ``repr``, where it is the repr of the value the analyser's stands for."""
    if is_unknownish(v):
        return Unknown(why_of(v))
    if _plain_text_value(v):
        return _repr_text(v)
    return Unknown(f"`repr()` of a {type(v).__name__}: Python's text of it is not known to the analyser")


def _ascii(v: Any) -> Any:
    text = _repr(v)
    return ascii(text)[1:-1].replace("\\'", "'") if type(text) is str else text


def _str(v: Any = "") -> Any:
    if is_unknownish(v):
        return Unknown(why_of(v))
    text = _text_of(v)
    if text is not _MISSING:
        return text
    what = {"Inst": "module or object", "ExtV": f"`{getattr(v, 'name', '')}`", "ClassV": "class", "FuncV": "function",
            "BoundV": "method", "PartialV": "partial function", "Param": "parameter", "TensorV": "tensor"}
    return Unknown(f"`str()` of a {what.get(type(v).__name__, 'value')}: Python's text of it is not known to the "
                   f"analyser")


def _formatted(template: str, method: str, node: ast.AST, *args: Any, **kwargs: Any) -> Any:
    """``"...".format(...)`` / ``format_map(mapping)``: Python's, where every argument's text is known."""
    if method == "format_map" and len(args) == 1 and type(args[0]) is dict and not kwargs:
        args = ({k: _format_argument(v) for k, v in args[0].items()},)
        values: list[Any] = list(args[0].values())
    else:
        args = tuple(_format_argument(a) for a in args)
        kwargs = {k: _format_argument(v) for k, v in kwargs.items()}
        values = [*args, *kwargs.values()]
    if _MISSING in values:
        return Unknown(f"`{_text(node)}`: the text of an argument is not known to the analyser")
    # A field's width, written in the template or given by an argument (`"{:>{w}}"`).
    try:
        specs = [spec for _, _, spec, _ in string.Formatter().parse(template) if spec]
    except ValueError:
        specs = []  # Python's error, from the call below
    _bounded_widths([n for spec in specs for n in _SPEC_NUMBER.findall(spec)], node)
    if any("{" in spec for spec in specs):
        _bounded_widths([v for v in values if type(v) is int], node)
    return getattr(template, method)(*args, **kwargs)


_WIDTH_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs"})
_PERCENT_WIDTH = re.compile(r"%[-+ #0]*(\d+)(?:\.(\d+))?")
_SPEC_NUMBER = re.compile(r"\d+")


def _bounded_widths(widths: list[Any], node: ast.AST | None) -> None:
    """A string formatted to a width (or a precision) past what the analyser builds (``"%1000000000d"``,
    ``s.ljust(10**9)``): not made, as a sequence that long is not (Python would make it, slowly)."""
    for w in widths:
        for part in (w if isinstance(w, tuple) else (w,)):
            n = int(part) if isinstance(part, str) and part.isdigit() else part if type(part) is int else 0
            if n > MAX_SEQUENCE or part == "*":
                where = f"`{_text(node)}`: " if node is not None else ""
                raise Unresolved(f"{where}a string formatted {n:,} characters wide is longer than the analyser "
                                 f"builds ({MAX_SEQUENCE:,})" if part != "*" else f"{where}a string formatted to a "
                                 f"width given as an argument over {MAX_SEQUENCE:,} is not built")


_TEXT_SCALARS = (str, int, float, complex, bool, bytes, TorchVersionText)


def _format_argument(v: Any) -> Any:
    """A value as Python's string formatting gets it: a number or string itself (a format spec
    applies to it), anything else its text (_text_of), _MISSING where that is not known."""
    return v if type(v) in _TEXT_SCALARS or v is None else _text_of(v)


def _plain_class(v: Any) -> bool:
    """A class of the code whose type is ``type``: no metaclass of its own or from a base outside
    torch (ABC's, Enum's)."""
    if type(v) is not ClassV or v.enum_members is not None:
        return False
    if any(any(k.arg == "metaclass" for k in c.node.keywords) for c in v.mro() if isinstance(c.node, ast.ClassDef)):
        return False
    return all(_is_object(b) or (type(b) is ExtV and _known_torch_class(b.name)) for b in _outside_bases(v))


def _qr(name: str, shape: tuple[Any, ...], args: Any, kwargs: dict[str, Any], node: ast.AST) -> tuple[TensorV, TensorV]:
    """``torch.qr(A, some=True)`` / ``torch.linalg.qr(A, mode="reduced")``: Q and R's shapes."""
    if len(shape) < 2:
        raise Unresolved(f"`{_text(node)}`: QR of a tensor of {len(shape)} dimensions (torch raises)")
    *batch, m, n = shape
    if type(m) is not int or type(n) is not int:
        return Unknown(f"`{_text(node)}`: the matrix's sizes are not known")  # type: ignore[return-value]
    if name == "torch.qr":
        mode = "reduced" if (args[0] if args else kwargs.get("some", True)) else "complete"
    else:
        mode = args[0] if args else kwargs.get("mode", "reduced")
    k = min(m, n)
    if mode == "reduced":
        return TensorV((*batch, m, k)), TensorV((*batch, k, n))
    if mode == "complete":
        return TensorV((*batch, m, m)), TensorV((*batch, m, n))
    if mode == "r":
        return TensorV((0,)), TensorV((*batch, k, n))
    raise Unresolved(f"`{_text(node)}`: qr mode {mode!r} (torch raises)")


# numpy.random's functions: the name of the argument that gives the shape (None: the arguments are the
# sizes, randn's and rand's), and whether the values are floats.
_NUMPY_RANDOM_SIZES = {"randn": (None, True), "rand": (None, True), "random": ("size", True),
                       "random_sample": ("size", True), "standard_normal": ("size", True), "normal": ("size", True),
                       "uniform": ("size", True), "randint": ("size", False)}
# What may define a file's global names other than its statements (a name not found is then not
# certainly Python's NameError).
_DYNAMIC_GLOBALS = re.compile(r"globals\(\)|\bexec\(|\beval\(|__builtins__|builtins\.|sys\.modules\[|vars\(\)")
def _bound_somewhere(name: str, text: str) -> bool:
    """Whether the file's text binds the name anywhere (`args = parser.parse_args()` under
    `if __name__ == "__main__":`, which a script run sets and an import does not): not certainly
    Python's NameError then."""
    escaped = re.escape(name)
    # (an annotated assignment starts its line: `levels[k:] = x` reads k, it does not bind it)
    return re.search(rf"(?<![\w.]){escaped}\s*(?:=(?!=)|:=)|^[ \t]*{escaped}\s*:[^=\n]*=|"
                     rf"\b(?:as|def|class|global|nonlocal)\s+{escaped}\b|"
                     rf"\bimport\s[^\n]*\b{escaped}\b|\bfor\s[^\n]*\b{escaped}\b[^\n]*\sin\s", text, re.M) is not None


_NUMPY_WINDOWS = frozenset({"hanning", "hamming", "blackman", "bartlett"})
_TORCH_WINDOWS = frozenset(f"torch.{w}_window" for w in ("hann", "hamming", "blackman", "bartlett", "kaiser"))
_NUMPY_REDUCING = frozenset({"mean", "sum", "prod", "std", "var", "max", "min", "amax", "amin", "median", "nanmean",
                             "nansum"})
_NUMPY_RANDOM = frozenset(f"numpy.random.{f}" for f in _NUMPY_RANDOM_SIZES)


def _numpy_random(fn: str, args: list[Any], kwargs: dict[str, Any]) -> TensorV | None:
    """``np.random.randn(4, 8)``, ``np.random.normal(0, 1, size=(4, 8))``: an array of that shape,
    its values not known; None for a single number (no size) or sizes that are not known."""
    key, floating = _NUMPY_RANDOM_SIZES[fn]
    if key is None:
        dims: Any = tuple(args) if not kwargs else None
    else:
        positions = {"random": 0, "random_sample": 0, "standard_normal": 0, "normal": 2, "uniform": 2, "randint": 2}
        index = positions[fn]
        size = args[index] if len(args) > index else kwargs.get("size")
        dims = (size,) if type(size) is int or type(size) is TensorV else tuple(size) if isinstance(size, (tuple, list)) \
            else None
    # DLRM's `size=(n, m)` with `n` an item of a numpy array of table sizes: numpy takes its integer scalars
    dims = tuple(_int_or_same(d) for d in dims) if dims else None
    if not dims or not all(type(d) is int and d >= 0 for d in dims):
        return None
    return TensorV(dims, floating=floating, numpy=True)


def _numbers_in_text(text: str, sep: str, dtype: Any) -> TensorV | None:
    """``np.fromstring(text, dtype=int | float, sep=sep)``: the numbers between the separators, as
    an int64 or float64 array; None where a part is not a number of that type (numpy's parse is
    then not followed)."""
    if dtype is not _BUILTINS["int"] and dtype is not _BUILTINS["float"]:
        return None
    py, name = (int, "int64") if dtype is _BUILTINS["int"] else (float, "float64")
    try:
        values = tuple(py(part.strip()) for part in text.split(sep))
    except ValueError:
        return None
    return TensorV((len(values),), values, dtype=name, numpy=True) if len(values) <= _VALUED_LIMIT else None


def _int_or_same(d: Any) -> Any:
    """The int a 0-d integer tensor or array of a known value holds; anything else as it is."""
    held = integer_scalar(d)
    return d if held is None else held


# Matrix decompositions whose results' shapes follow from the matrix's (HiPPO's eigh in S4 / S5,
# Glow's LU 1x1 convolution, SVD-initialised adapters): the kind of each, by dotted name.
_DECOMPOSITIONS = {
    **{f"{p}.linalg.{f}": f for p in ("torch", "numpy") for f in ("svd", "eigh", "eig", "eigvalsh", "eigvals", "inv",
                                                                     "pinv")},
    "torch.linalg.svdvals": "svdvals", "torch.svd": "torch_svd", "torch.inverse": "inv", "torch.linalg.lu": "lu",
    "torch.linalg.lu_factor": "lu_factor", "torch.lu_unpack": "lu_unpack", "numpy.linalg.qr": "qr"}


def _decomposition(kind: str, args: list[Any], kwargs: dict[str, Any], numpy: bool, node: ast.AST) -> Any:
    """The shapes of a decomposition's results (their values are not computed): torch's, or numpy's
    where ``numpy``. Leading (batch) dimensions carry over."""
    shape = tuple(args[0].shape)
    if len(shape) < 2:
        raise _Raised(f"`{_text(node)}` raises: the input must have at least 2 dimensions", ExtV("RuntimeError"))
    *batch, m, n = shape
    if type(m) is not int or type(n) is not int:
        return Unknown(f"`{_text(node)}`: the matrix's sizes are not known")
    k = min(m, n)

    def made(*dims: Any) -> TensorV:
        return TensorV((*batch, *dims), floating=True, numpy=numpy)

    def option(index: int, key: str, default: Any) -> Any:
        value = args[index] if len(args) > index else kwargs.get(key, default)
        if is_unknownish(value):
            raise Unresolved(f"`{_text(node)}`: `{key}` depends on {_clause(why_of(value))}")
        return value
    if kind in ("eigh", "eig", "eigvalsh", "eigvals", "inv") and m != n:
        raise _Raised(f"`{_text(node)}` raises: the matrix must be square, not {m}×{n}", ExtV("RuntimeError"))
    if kind in ("eigh", "eig"):
        return made(n), made(n, n)
    if kind in ("eigvalsh", "eigvals", "svdvals"):
        return made(k)
    if kind == "inv":
        return made(n, n)
    if kind == "pinv":
        return made(n, m)
    if kind == "svd":
        full = option(1, "full_matrices", True)
        if not option(2, "compute_uv", True):  # numpy's: the singular values alone
            return made(k)
        return (made(m, m), made(k), made(n, n)) if full else (made(m, k), made(k), made(k, n))
    if kind == "torch_svd":  # torch.svd(A, some=True): V, not its transpose
        some = option(1, "some", True)
        return (made(m, k), made(k), made(n, k)) if some else (made(m, m), made(k), made(n, n))
    if kind in ("lu", "lu_unpack"):
        return made(m, m), made(m, k), made(k, n)
    if kind == "lu_factor":
        return made(m, n), TensorV((*batch, k))
    return _numpy_made(_qr("numpy.linalg.qr", shape, args[1:], kwargs, node))  # torch.linalg.qr's modes


def _arange_bounds(args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> list[Any]:
    """torch.arange's (end) / (start, end) / (start, end, step), some given by name."""
    names = ["start", "end", "step"] if len(args) != 1 or "end" in kwargs else ["end"]
    bound = dict(zip(names, args))
    for name in ("start", "end", "step"):
        if name in kwargs:
            if name in bound:
                raise Unresolved(f"`{_text(node)}`: `{name}` given twice (torch raises)")
            bound[name] = kwargs[name]
    if "end" not in bound:
        raise Unresolved(f"`{_text(node)}`: arange needs its end (torch raises)")
    if len(args) == 1 and "end" not in kwargs and "step" in kwargs:
        raise Unresolved(f"`{_text(node)}`: arange(end, step=...) is not one of torch's forms (torch raises)")
    return [bound.get("start", 0), bound["end"], bound.get("step", 1)]


def _formula_product(items: Any, node: ast.AST) -> Any:
    """``math.prod`` / ``np.prod`` of sizes some of which are formulas: their product, or why not."""
    unknown = _unknown_in(list(items))
    if unknown is not None:
        return unknown
    out: Any = 1
    for x in items:
        if type(x) is bool or not isinstance(x, (int, Sym)):
            return sym_opaque(f"prod({', '.join(render(v) for v in items)})", *items)
        out = sym_mul(out, x)
    return out


# torch's factories that take the size as one tuple only (no `torch.full(4, 0.5)`), with its place
# among the positional arguments (randint's is last: `randint(high, size)`, `randint(low, high, size)`).
_SIZE_AS_TUPLE = {"full": 0, "randint": -1}


def _check_size_tuple(fn: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> None:
    """torch's TypeError where ``torch.full``'s or ``torch.randint``'s size is not a tuple (or list) of
    ints, or starts with a bool (its size parser takes a bool anywhere but first: ``(4, True)`` is
    ``(4, 1)``). numpy's ``np.full(4, 0.5)`` takes an int; it does not come here."""
    if "size" in kwargs:
        size, where = kwargs["size"], ""
    elif args and (fn != "randint" or len(args) >= 2):
        size, where = args[_SIZE_AS_TUPLE[fn]], f" (position {1 if fn == 'full' else len(args)})"
    else:
        return  # no size given: torch's error for the missing argument is the call's (left to the factory)
    if is_unknownish(size):
        return
    if not isinstance(size, (tuple, list)):
        raise _Raised(f"`{_text(node)}` raises TypeError: {fn}(): argument 'size'{where} must be tuple of ints, "
                      f"not {_kind_name(size)}", ExtV("TypeError"))
    if size and type(size[0]) is bool:
        raise _Raised(f"`{_text(node)}` raises TypeError: {fn}(): argument 'size'{where} must be tuple of ints, but "
                      f"found element of type bool", ExtV("TypeError"))


def _parameter_reshaped(p: Param, name: str, node: ast.AST) -> None:
    """A parameter's shape changed in place (`w.set_(t)`, `w.unsqueeze_(0)`, `w.resize_(3, 3)`): torch
    never resizes one that requires grad, and allows the others on it only under torch.no_grad(),
    which the analyser does not follow; the count it would give is not known (it kept the old shape)."""
    if name in ("resize_", "resize_as_") and p.requires_grad:
        raise _Raised(f"`{_text(node)}(...)` raises RuntimeError: cannot resize variables that require grad",
                      ExtV("RuntimeError"))
    when = " (torch allows it only under torch.no_grad(), or raises)" if p.requires_grad else ""
    raise Unresolved(f"`{_text(node)}(...)` changes the parameter's shape in place{when}; the analyser does not "
                     f"follow it")


def _python_error(exc: Exception, node: ast.AST, python: bool) -> Unresolved:
    """What the analysis raises where the operation at ``node`` raised ``exc``: Python's error,
    which the analysed code may catch, where the operation was on Python's own values
    (``python``); else an Unresolved saying the same, which nothing catches."""
    kind = type(exc).__name__
    # A KeyError's text is its key's repr: not spelled out for a value of the analyser's own
    # (a module's namespace, a function's scope could be all of it).
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    words = f": {_user_words(str(exc))}" if key is None or _is_python_key(key) else ""

    def reason() -> str:  # written when read: the analysed code may catch the error
        return f"`{_text(node)}` raises {kind}{words}"[:300]
    return _Raised(reason, ExtV(kind)) if python else Unresolved(reason)


def _padded(t: TensorV | Param, pad: Any, node: ast.AST) -> TensorV:
    """``F.pad(t, pad)``'s shape: ``pad`` holds (before, after) pairs from the last dimension on,
    negative ones cropping (the mode, constant, reflect or replicate, never changes the shape)."""
    if not isinstance(pad, (tuple, list)) or len(pad) % 2 or any(type(p) is not int for p in pad):
        raise Unresolved(f"`{_text(node)}`: the padding is not pairs of known numbers ({why_of(pad) or pad!r})")
    shape = list(t.shape)
    if len(pad) // 2 > len(shape):
        raise Unresolved(f"`{_text(node)}`: padding {len(pad) // 2} dimensions of a {len(shape)}-d tensor (torch raises)")
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        size, added = shape[d], pad[2 * i] + pad[2 * i + 1]
        if type(size) is int:
            size += added
            if size < 0:
                raise Unresolved(f"`{_text(node)}`: a padded size of {size} (torch raises)")
        elif isinstance(size, (Sym, int)):
            size = sym_add(size, added)  # a formula in the constructor's arguments
        else:
            size = Unknown(f"`{_text(node)}`: a size is not known")
        shape[d] = size
    return TensorV(tuple(shape), floating=_is_floating(t))


def _joined_containers(op: type, a: Any, b: Any, node: ast.AST) -> Inst | None:
    """torch's ``ModuleList + ModuleList`` (or any list of modules), ``Sequential + Sequential`` and
    ``Sequential * n``: a new container holding the same modules, not copies (a module repeated is
    counted once, as torch counts it); None for any other operation."""
    if op is ast.Mult and type(b) is Inst and type(a) is int:
        a, b = b, a
    if type(a) is not Inst or a.kind not in ("list", "seq"):
        return None
    if op is ast.Add and (type(b) is Inst and b.kind == a.kind or a.kind == "list" and type(b) in (list, tuple)):
        modules = [*(v for _, v in container_entries(a)), *((v for _, v in container_entries(b)) if type(b) is Inst else b)]
    elif op is ast.Mult and a.kind == "seq" and type(b) is int:
        entries = [v for _, v in container_entries(a)]  # its modules: not its plain attributes
        _check_repeat_factor(b, node, len(entries))
        modules = entries * b
    else:
        return None
    out = Inst(a.cls, a.kind, True, a.origin)
    out.attrs = {str(i): m for i, m in enumerate(modules)}
    return out


def _huge_combinatorics(fn: str, args: list[Any]) -> bool:
    """Whether ``math.factorial(n)``, ``comb(n, k)`` or ``perm(n, k)`` has more bits than a size
    (MAX_INT_BITS), from a bound, before Python spends minutes on it (``factorial(10**7)``)."""
    ints = [a for a in args if type(a) is int]
    if len(ints) != len(args) or not ints or ints[0] < 2:
        return False  # Python's own error, or a small number
    n = ints[0]
    k = n if fn == "factorial" or len(ints) < 2 else min(max(ints[1], 0), n)
    if fn == "comb":
        k = min(k, n - k)
    return k * math.log2(n) > MAX_INT_BITS * 4  # n**k bounds all three; generous (factorial(700) is 5,000 bits)


def _check_repeat_factor(times: int, node: ast.AST, entries: int) -> None:
    """torch's ValueError for a Sequential's ``*`` or ``*=`` by a number below 1; a Sequential of
    more entries than a list the analyser builds by repetition is not built (``* 10**9``)."""
    if times <= 0:
        raise _Raised(f"`{_text(node)}` raises ValueError: Non-positive multiplication factor {times} for "
                      f"Sequential", ExtV("ValueError"))
    if entries * times > MAX_SEQUENCE:
        raise Unresolved(f"`{_text(node)}` builds a Sequential of {entries * times:,} entries, more than the analyser "
                         f"builds ({MAX_SEQUENCE:,})")


def _sequential_repeated_in_place(seq: Inst, times: int, node: ast.AST) -> Inst:
    """torch's ``Sequential.__imul__``: the Sequential itself, its modules `str(0)` .. `str(n - 1)`
    added again after them ``times - 1`` times (read by those keys: a Sequential of named modules
    has none, and torch raises KeyError)."""
    n = _entry_count(seq)
    _check_repeat_factor(times, node, n)
    missing = next((str(i) for i in range(n) if str(i) not in seq.attrs), None)
    if missing is not None and times > 1:
        raise _Raised(f"`{_text(node)}` raises KeyError: {missing!r} (the Sequential's modules are named)",
                      ExtV("KeyError"))
    originals = [seq.attrs[str(i)] for i in range(n)] if times > 1 else []
    for k in range(1, times):
        for i, module in enumerate(originals):
            seq.attrs[str(k * n + i)] = module
    return seq


def _parameter_dict_copy(pdict: Inst) -> Inst:
    """torch's ``ParameterDict.copy()``: a new ParameterDict holding the same parameters."""
    out = Inst(pdict.cls, pdict.kind, True, pdict.origin)
    out.attrs = dict(container_entries(pdict))
    return out


def _note_none_slot(obj: Inst, name: str, kind: str | None) -> None:
    """Record that torch keeps ``name`` in the module's ``_parameters`` or ``_modules`` (``kind``)
    holding None; None for a name that holds a value now."""
    if kind is not None:
        if obj.none_slots is None:
            obj.none_slots = {}
        obj.none_slots[name] = kind
    elif obj.none_slots:
        obj.none_slots.pop(name, None)


def _fill_none_slot(obj: Inst, name: str, value: Any, node: ast.AST) -> None:
    """torch's ``Module.__setattr__`` for a name it keeps holding None: a parameter's takes only a
    Parameter (or None), a submodule's only a module, a Parameter or None; a parameter or
    submodule set to None keeps its name so."""
    t = type(value)
    if value is None:
        old = obj.attrs.get(name)
        kind = "parameter" if type(old) is Param else "module" if type(old) is Inst and old.is_module else \
            (obj.none_slots or {}).get(name)
        _note_none_slot(obj, name, kind)
        return
    kind = obj.none_slots.get(name) if obj.none_slots else None
    if kind is None or is_unknownish(value):
        return
    if t is not Param and (kind == "parameter" or not (t is Inst and value.is_module)):
        expected = "torch.nn.Parameter" if kind == "parameter" else "torch.nn.Module"
        raise _Raised(f"`{_text(node)}` raises TypeError: cannot assign a {_kind_name(value)} as "
                      f"{'parameter' if kind == 'parameter' else 'child module'} '{name}' ({expected} or None "
                      f"expected)", ExtV("TypeError"))
    _note_none_slot(obj, name, None)


def _delete_attribute(obj: Any, name: str, what: str) -> None:
    """``del obj.name`` (``what``: the statement, for messages): a module's attribute, parameter,
    buffer or submodule, a class's attribute. An attribute not there is left alone (a module
    built from parts the analyser did not follow may have had it)."""
    if isinstance(obj, Inst):
        obj.attrs.pop(name, None)
        _note_none_slot(obj, name, None)
        _drop_buffer(obj, name)
    elif isinstance(obj, ClassV):
        obj.namespace.pop(name, None)
    elif not isinstance(obj, Unknown):
        raise Unresolved(f"`{what}` is not followed")


def _delattr(obj: Any, name: Any, what: str) -> None:
    """``delattr(obj, name)``, as ``del obj.name``."""
    if not isinstance(name, str):
        raise Unresolved(f"`{what}`: the attribute name is not a known string")
    _delete_attribute(obj, name, what)


def _wraps(wrapped: Any, fn: Any) -> Any:
    """``functools.wraps(wrapped)(fn)``: ``fn``, now wrapping ``wrapped`` (a function of the code)."""
    if type(fn) is FuncV and type(wrapped) is FuncV and wrapped is not fn:
        fn.wrapped = wrapped
    return fn


_EMPTY = ExtV("inspect.Parameter.empty")  # inspect's marker of no default, no annotation
# torch's optimizers' signatures (_OPTIMIZERS), as torch 2's inspect.signature shows them: (name, kind, default) in order.
_P, _K = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"
_OPTIMIZER_SIGNATURES = {
    "torch.optim.AdamW": (("params", _P, _EMPTY), ("lr", _P, 0.001), ("betas", _P, (0.9, 0.999)), ("eps", _P, 1e-08),
                          ("weight_decay", _P, 0.01), ("amsgrad", _P, False), ("maximize", _K, False),
                          ("foreach", _K, None), ("capturable", _K, False), ("differentiable", _K, False),
                          ("fused", _K, None)),
    "torch.optim.Adam": (("params", _P, _EMPTY), ("lr", _P, 0.001), ("betas", _P, (0.9, 0.999)), ("eps", _P, 1e-08),
                         ("weight_decay", _P, 0), ("amsgrad", _P, False), ("foreach", _K, None), ("maximize", _K, False),
                         ("capturable", _K, False), ("differentiable", _K, False), ("fused", _K, None),
                         ("decoupled_weight_decay", _K, False)),
    "torch.optim.SGD": (("params", _P, _EMPTY), ("lr", _P, 0.001), ("momentum", _P, 0), ("dampening", _P, 0),
                        ("weight_decay", _P, 0), ("nesterov", _P, False), ("maximize", _K, False), ("foreach", _K, None),
                        ("differentiable", _K, False), ("fused", _K, None)),
    "torch.optim.RMSprop": (("params", _P, _EMPTY), ("lr", _P, 0.01), ("alpha", _P, 0.99), ("eps", _P, 1e-08),
                            ("weight_decay", _P, 0), ("momentum", _P, 0), ("centered", _P, False),
                            ("capturable", _P, False), ("foreach", _P, None), ("maximize", _P, False),
                            ("differentiable", _P, False))}


def _optimizer_options(name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The options a torch optimizer is built with, by name (positional ones by its signature,
    where _OPTIMIZER_SIGNATURES has it); a value the analyser does not know is True: set."""
    names = [n for n, kind, _ in _OPTIMIZER_SIGNATURES.get(name, ()) if kind == _P]
    given = {**dict(zip(names, args)), **kwargs}
    return {k: v if type(v) in (bool, int, float) or v is None else True for k, v in given.items()}


_PARAMETER_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")


@dataclasses.dataclass(frozen=True)
class ParameterV:
    """An ``inspect.Parameter`` of a function of the code: its name, default, kind (an ExtV
    `inspect.Parameter.KEYWORD_ONLY`, ...) and annotation (not evaluated: empty)."""

    name: str
    default: Any
    kind: ExtV
    annotation: Any = _EMPTY


@dataclasses.dataclass(frozen=True, eq=False)
class SignatureV:
    """``inspect.signature(fn)`` of a function of the code: ``parameters``, in order (diffusers'
    register_to_config records each constructor argument's default from it)."""

    parameters: dict[str, ParameterV]


def _signature_of(fn: FuncV, bound: bool) -> SignatureV:
    """The parameters of the function ``inspect.signature`` shows (through functools.wraps), the first
    left out where the function is bound (a method read from an instance or a class's __init__)."""
    fn = signature_function(fn)
    a = fn.node.args
    params: list[ParameterV] = []
    positional = a.posonlyargs + a.args
    first_default = len(positional) - len(fn.defaults)
    for i, arg in enumerate(positional):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        default = fn.defaults[i - first_default] if i >= first_default else _EMPTY
        params.append(ParameterV(arg.arg, default, ExtV(f"inspect.Parameter.{kind}")))
    if a.vararg is not None:
        params.append(ParameterV(a.vararg.arg, _EMPTY, ExtV("inspect.Parameter.VAR_POSITIONAL")))
    for arg, written, default in zip(a.kwonlyargs, a.kw_defaults, fn.kw_defaults):  # (ast's None: no default)
        params.append(ParameterV(arg.arg, _EMPTY if written is None else default, ExtV("inspect.Parameter.KEYWORD_ONLY")))
    if a.kwarg is not None:
        params.append(ParameterV(a.kwarg.arg, _EMPTY, ExtV("inspect.Parameter.VAR_KEYWORD")))
    if bound and params:
        params = params[1:]
    return SignatureV({p.name: p for p in params})


def signature_function(fn: FuncV) -> FuncV:
    """The function whose parameters ``inspect.signature(fn)`` shows: the innermost one a chain of
    ``functools.wraps`` wrappers wraps."""
    seen = {id(fn)}
    while fn.wrapped is not None and id(fn.wrapped) not in seen:
        fn = fn.wrapped
        seen.add(id(fn))
    return fn


def _user_words(message: str) -> str:
    """A builtin's error message without the analyser's class and function names ("'Unknown'
    object is not iterable", "Interpreter.get_attr.<locals>.<lambda>() takes 1 positional argument")."""
    message = _OWN_FUNCTIONS.sub("it", message).replace("'IteratorV'", "'iterator'")  # zip, map, a generator
    return _OWN_TYPES.sub(lambda m: "an unresolved value" if m.group(1) in ("Unknown", "Sym") else "a module or value",
                          message)


def _path_ends(path: str | None, end: str) -> bool:
    """Whether a file's path ends with ``end`` ("/transformers/trainer.py"), on any system."""
    return bool(path) and path.replace(os.sep, "/").endswith(end)  # type: ignore[union-attr]


def _text(node: ast.AST | None) -> str:
    if node is None:
        return ""
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse is only for messages
        return "…"
    if "\n" in text:  # a statement: its first line (a message is one line)
        text = text.strip().split("\n", 1)[0] + " …"
    return text if len(text) <= 80 else text[:77] + "…"


def _isinstance(obj: Any, classes: Any) -> bool:
    options = classes if isinstance(classes, tuple) else (classes,)
    unknown = None  # a class not known: the answer, where no other class gives True
    for c in options:
        if is_unknownish(c):
            unknown = unknown or c
        elif c is None:  # `X | None`: NoneType
            if obj is None:
                return True
        elif isinstance(c, ClassV):
            if isinstance(obj, Inst) and isinstance(obj.cls, ClassV) and c in obj.cls.mro():
                return True
        elif isinstance(c, ExtV):
            if c.name == "object":
                return True
            if c.name == "types.NoneType":
                if obj is None:
                    return True
                continue
            if c.name == "type":
                if _is_class(obj):
                    return True
                if type(obj) is ExtV:
                    raise Unresolved(f"isinstance(`{obj.name}`, type): whether an outside name is a class is not known")
                continue
            if c.name == "types.UnionType" and (type(obj) in (ClassV, BuiltinV, str, int, float, bool) or obj is None):
                continue  # a class or a plain value is no `X | Y` (HfArgumentParser's look at a field's type)
            if c.name in ("torch.dtype", "torch.device"):
                # `isinstance(bnb_4bit_compute_dtype, torch.dtype)` (transformers' BitsAndBytesConfig):
                # torch's dtypes are outside names, its devices DeviceV; a plain value is neither.
                if (type(obj) is ExtV and _DTYPE_NAME.match(obj.name)) if c.name == "torch.dtype" else type(obj) is DeviceV:
                    return True
                if not (obj is None or type(obj) in (str, int, float, bool, list, tuple, dict, ExtV, DeviceV)):
                    unknown = unknown or Unknown(f"whether `{render(obj)}` is a `{c.name}` is not known")
                continue
            last = c.name.split(".")[-1]
            if isinstance(obj, Inst) and (obj.cls == last or (last == "Module" and obj.is_module)):
                return True
            if type(obj) is Inst and type(obj.cls) is ClassV and not c.name.startswith("torch.") and \
                    c.name.split(".")[0] not in _ABSTRACT_TYPE_MODULES:
                # An object of the project's class that derives from an outside class: named as a base,
                # it is one; a base of the class from outside may itself derive from it (not known).
                outside = [b for b in _outside_bases(obj.cls) if type(b) is ExtV and b.name not in _NOT_DERIVING]
                if c in outside:
                    return True
                foreign = next((b for b in outside if not b.name.startswith("torch.")), None)
                if foreign is not None:
                    unknown = unknown or Unknown(f"whether a `{obj.cls.name}` is a `{c.name}`: its class derives from "
                                                 f"`{foreign.name}`, which the analyser does not read")
                    continue
            if type(obj) is Inst and obj.is_module and c.name.startswith("torch.nn.") and _torch_layer_is(obj, last):
                return True
            if isinstance(obj, Param) and last in ("Parameter", "Tensor"):
                return True
            if type(obj) is TensorV and c.name in ("torch.Tensor", "numpy.ndarray"):
                # a tensor is a torch.Tensor (asteroid's `isinstance(window, torch.Tensor)`), an array numpy's
                if obj.numpy == (c.name == "numpy.ndarray"):
                    return True
                continue
            kinds = _ABSTRACT_TYPES.get(c.name.replace("typing_extensions.", "typing."))
            if kinds is not None and type(obj) in (Inst, Param, TensorV):
                if c.name in _FUNCTION_TYPES:
                    continue  # no class derives from Python's function type: an object is never one
                if last == "Callable" and type(obj) is Inst and obj.is_module:
                    return True  # a module is called
                # torch registers neither its modules nor its tensors with those ABCs (open_clip's
                # `_unlock` tells a list of groups from a module or a Parameter so).
                plain = _plain_abc_answer(obj, last) if type(obj) is Inst else (
                    False if last in _ABC_DERIVED_ONLY else None)
                if plain is not None:
                    if plain:
                        return True
                    continue
                # Whether a tensor or an instance is one depends on its dunder methods (a ModuleList iterates).
                raise Unresolved(f"isinstance(…, {c.name}) of a {'tensor' if type(obj) is not Inst else obj.type_name} "
                                 f"is not known to the analyser")
            if kinds is not None:
                if type(obj) in kinds or (int in kinds and type(obj) is Sym):
                    return True
            elif c.name.split(".")[0] in _ABSTRACT_TYPE_MODULES and type(obj) not in (Inst, Param):
                # An abstract class a plain value may be an instance of without deriving from it.
                raise Unresolved(f"isinstance(…, {c.name}) is not known to the analyser")
        elif isinstance(c, BuiltinV):
            py = _PY_TYPES.get(c.name)
            if py is None:
                raise Unresolved(f"isinstance with `{c.name}` is not known to the analyser")
            if isinstance(obj, py) or (py is int and isinstance(obj, Sym)):
                return True
            if type(obj) is Inst and type(obj.cls) is ClassV and any(
                    issubclass(base, py) for base in _builtin_bases(obj.cls)):
                return True  # `class Cfg(dict)`, a NamedTuple, `class Kind(str, Enum)`
    if is_unknownish(obj) and not (isinstance(obj, Sym) and not any(isinstance(c, ClassV) and (
            not _a_number(obj) or any(issubclass(b, int) for b in _builtin_bases(c))) for c in options)):
        # A formula stands for an int (`isinstance(dim, int)`, not a tuple); whether it is an instance
        # of a class of the project (a config whose defaults could not be built) is not known.
        raise Unresolved(f"isinstance on an unresolved value: {why_of(obj)}")
    if unknown is not None:
        raise Unresolved(f"isinstance depends on {_clause(why_of(unknown))}")
    return False


# Outside bases that derive from no class a question could name: object, and typing's special forms.
_NOT_DERIVING = frozenset({"object", "builtins.object", "typing.Generic", "typing.Protocol", "typing.NamedTuple",
                           "typing_extensions.Protocol", "abc.ABC"})


class _ModuleSuper:
    """``super(torch.nn.Linear, self)`` in a subclass of that layer: nn.Module's methods on ``inst``."""

    __slots__ = ("inst",)

    def __init__(self, inst: Inst) -> None:
        self.inst = inst


def _nn_module_init(inst: Inst, node: ast.AST, cls: ClassV | None = None) -> BuiltinV:
    """nn.Module's ``__init__`` on ``inst``, which takes no arguments (``cls``: the class whose
    ``super()`` reaches it, where another outside base after nn.Module may take them)."""
    def init(*args: Any, **kwargs: Any) -> None:
        if (args or kwargs) and (cls is None or _only_module_bases(cls)):
            raise _module_init_error(node, args, kwargs)
        _reset_module(inst)
    return BuiltinV("__init__", init)


def _module_init_error(node: ast.AST, args: Any, kwargs: Any, why: str = "") -> Raised:
    """torch's TypeError for arguments given to nn.Module.__init__, which takes none."""
    given = f"an unexpected keyword argument '{next(iter(kwargs))}'" if kwargs else \
        f"{len(args)} positional argument{'s' if len(args) > 1 else ''}"
    return _Raised(f"`{_text(node)}` raises TypeError: {why}nn.Module.__init__ takes no arguments (it got {given})",
                   ExtV("TypeError"))


def _only_module_bases(cls: ClassV) -> bool:
    """Whether the class's bases from outside the project are nn.Module (and object) alone: its
    __init__ chain ends in nn.Module's, which takes no arguments."""
    return cls.find("call_super_init", False) is not True and all(
        _is_object(b) or (type(b) is ExtV and _torch_nn_class(b.name) == "Module") for b in _outside_bases(cls))


def _torch_nn_class(dotted: str, as_base: bool = False) -> str | None:
    """The name of a torch.nn class whose bases the tables know (a layer, a container, nn.Module;
    ``as_base``: also the classes layers derive from, `_ConvNd`), else None."""
    if not dotted.startswith("torch.nn."):
        return None
    name = dotted.rpartition(".")[2]
    known = name == "Module" or name in LAYERS or name in PARAMETERLESS or name in STACKS or name in CONTAINERS
    return name if known or (as_base and name in TORCH_SUBCLASSES) else None


def _torch_derives(layer: str | None, base: str) -> bool:
    return base == "Module" or layer == base or layer in TORCH_SUBCLASSES.get(base, ())


def _torch_layer_is(obj: Inst, name: str) -> bool:
    """Whether a module is an instance of torch.nn's class ``name``: a torch layer of that class or
    one deriving from it (`nn.Conv1d` is an `nn.modules.conv._ConvNd`), or a class of the code
    that derives from such a layer (`class MyConv(nn.Conv2d)` is an `nn.Conv2d`)."""
    if type(obj.cls) is str:
        return _torch_derives(obj.cls, name)
    if type(obj.cls) is not ClassV:
        return False
    return any(type(base) is ExtV and base.name.startswith("torch.nn.") and
               _torch_derives(base.name.rpartition(".")[2], name) for cls in obj.cls.mro() for base in cls.bases)


def _is_class(v: Any) -> bool:
    """A class, as ``isinstance(v, type)`` asks: one of the code's, a torch.nn class the analyser
    knows, or a Python type (int, str, list, ...)."""
    if type(v) is ClassV:
        return True
    if type(v) is BuiltinV:
        return v.name in _PY_TYPES
    if type(v) is ExtV:
        return _known_torch_class(v.name)
    return False


def _as_buffer(data: Any, made: bool = False) -> Any:
    """A buffer's tensor: never a parameter or a module, whatever the analyser made of its value; a
    value whose shape it does not know stays unknown (a 0-d tensor here would be a silent guess).
    ``made``: ``nn.Buffer(data)``, a new tensor that registers itself where it is assigned."""
    if made and isinstance(data, TensorV):
        return dataclasses.replace(data, buffer=True)  # a new tensor of the same values (torch detaches it)
    if made and isinstance(data, Param):
        return TensorV(tuple(data.shape), floating=data.floating, buffer=True)
    if isinstance(data, (TensorV, Param)):
        return data if isinstance(data, TensorV) else TensorV(tuple(data.shape))  # the tensor itself, as torch keeps it
    if is_unknownish(data):
        return Unknown(f"a buffer made from an unresolved value: {why_of(data)}")
    return Unknown(f"a buffer made from {type(data).__name__}, not a tensor the analyser built")


def _iterator_of(items: Any, values: bool = False) -> Any:
    """A walk's items as an iterator (its values only: ``buffers()``); an Unknown as it is."""
    if isinstance(items, Unknown):
        return items
    return IteratorV([v for _, v in items] if values else items)


def _add_buffer(module: Inst, name: str, persistent: bool = True) -> None:
    # A new dict: a module's copies and its norm layers' share theirs (never changed in place). A
    # non-persistent buffer is marked False (state_dict leaves it out).
    if module.buffers is _BEFORE_MODULE_INIT:
        raise _Raised(f"the buffer `{name}` raises AttributeError: cannot assign buffer before Module.__init__() call",
                      ExtV("AttributeError"))
    module.buffers = {**(module.buffers or {}), name: None if persistent else False}


def _drop_buffer(module: Inst, name: str) -> None:
    if module.buffers and name in module.buffers:
        module.buffers = {k: v for k, v in module.buffers.items() if k != name}


def _is_type(v: Any) -> bool:
    """A class as isinstance takes one (or a union of them, a tuple)."""
    if type(v) is tuple:
        return bool(v) and all(_is_type(x) for x in v)
    return v is None or type(v) in (ClassV, ExtV) or (type(v) is BuiltinV and v.name in _PY_TYPES)


def _class_attribute(cls: ClassV, name: str) -> Any:
    """What Python gives every class (``__name__``, ``__bases__``, ``__module__``, ...) where the
    class does not define it; _MISSING for any other name."""
    if name == "__dict__":
        return dict(cls.namespace)  # read only: a copy
    if name in ("__name__", "__qualname__"):
        return cls.name
    if name == "__bases__":
        if any(type(b) is Unknown for b in cls.bases) and isinstance(cls.node, ast.ClassDef) and \
                len(cls.node.bases) == len(cls.bases):
            # A base the analyser could not resolve is still written in the class statement: its
            # text names it (transformers' can_generate: "GenerationMixin" in str(cls.__bases__)).
            return _Bases(cls.bases, tuple(last_name(b) for b in cls.node.bases))
        return tuple(cls.bases)
    if name == "__module__":
        scope = cls.env.module if cls.env is not None else None
        return scope.dotted_name if scope is not None else Unknown(f"`{cls.name}.__module__` is not known")
    if name == "_fields" and _is_named_tuple(cls):
        return tuple(cls.fields)
    if name == "__new__" and _is_named_tuple(cls):
        return NamedTupleNew(cls)
    if name == "apply" and any(type(b) is ExtV and b.name in _AUTOGRAD_FUNCTIONS for b in _outside_bases(cls)):
        # `self.cov_pool = CovPool.apply` (imgclsmob, revnet): a function, run in forward, no parameters.
        return _external(f"{cls.name}.apply")
    return _MISSING


_AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
_NTUPLES = {"_single": 1, "_pair": 2, "_triple": 3, "_quadruple": 4}
_SPECIAL_CALLS = frozenset({"super", "locals", "globals", "eval", "next"})  # Interpreter.special_call
_STR_METHODS = frozenset(name for name in dir(str) if not name.startswith("_"))
_PYTHON_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# torch.nn.functional's functions whose result has their input's shape (a test checks them with torch).
_FUNCTIONAL_SAME_SHAPE = frozenset("""normalize relu relu6 gelu silu mish elu selu celu leaky_relu sigmoid tanh
softmax log_softmax softmin softplus softsign dropout alpha_dropout layer_norm group_norm instance_norm batch_norm
rms_norm local_response_norm hardswish hardsigmoid hardtanh logsigmoid tanhshrink softshrink hardshrink threshold
rrelu""".split())
# Functions of other standard packages that return text or bytes (audiolm's `pickle.dumps(locals())`).
_NO_MODULE_RESULTS = frozenset({"pickle.dumps", "json.dumps", "marshal.dumps", "pprint.pformat", "inspect.getsource",
                                "inspect.getfile", "sys.getsizeof", "warnings.warn", "logging.info", "logging.warning",
                                "logging.debug", "logging.error"})
# Standard library packages none of whose functions makes a module (paths, times, the machine's
# names): what they return, stored on a model (Mask R-CNN's log_dir), holds no parameters.
_NO_MODULES_MADE = frozenset({"os", "posixpath", "ntpath", "datetime", "time", "socket", "platform", "getpass",
                              "uuid", "pathlib", "glob", "shutil", "tempfile", "hashlib", "base64", "calendar",
                              "logging"})
# torch's (values, indices) results: t.max(dim), topk, sort (torch.return_types).
TorchPair = collections.namedtuple("TorchPair", ["values", "indices"])
# Tensor methods whose results' shapes tensor_reduction gives (torch.<name>(t, ...) too).
_EXACT_CUMSUM_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float64"})
_SCALAR_BUILTINS = frozenset({"sum", "min", "max", "sorted"})  # Interpreter.scalar_builtin
_LAZY_BUILTINS = frozenset({"enumerate", "iter", "zip"})
_ITERATING_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sum", "min", "max", "sorted", "any", "all",
                                 "enumerate", "zip", "iter"})
_ITEM_SOURCES = frozenset({list, tuple, IteratorV, TensorV})  # what scalar_builtin takes the items of
_INDEXED_REDUCTIONS = frozenset({"max", "min", "median", "argmax", "argmin", "all", "any", "topk", "sort"})
# numpy array methods named as torch's that mean something else (Interpreter.numpy_method).
_NUMPY_METHOD_REDUCTIONS = frozenset({"max", "min", "argmax", "argmin", "sum", "mean", "prod", "std", "var", "all", "any"})
_NUMPY_ARRAY_METHODS = _NUMPY_METHOD_REDUCTIONS | {"repeat", "transpose", "cumsum", "cumprod", "flatten", "ravel", "squeeze",
                                           "reshape"}


@dataclasses.dataclass(frozen=True)
class PartialMethodV:
    """``functools.partialmethod(func, *args, **kwargs)`` in a class body: a method with those
    arguments given, after the instance it is bound to."""

    func: Any
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]


class ArgParserV:
    """An ``argparse.ArgumentParser`` of the code: its arguments, and the defaults ``set_defaults`` gave."""

    __slots__ = ("arguments", "defaults", "scope")

    def __init__(self, scope: ModuleScope) -> None:
        self.arguments: list[_Argument] = []
        self.defaults: dict[str, Any] = {}
        self.scope = scope  # the module it was made in: a parse of the command line is noted for it

    def add(self, flags: tuple[Any, ...], kw: dict[str, Any], call: str) -> None:
        if not flags or not all(isinstance(f, str) and f for f in flags):
            raise Unresolved(f"`{call}`: the argument's names are not known strings")
        action = kw.get("action", "store")
        if isinstance(action, ExtV) and action.name == "argparse.BooleanOptionalAction":
            action = "store_const"  # --flag / --no-flag: its default unless given
        if action not in ("store", "store_true", "store_false", "store_const", "append", "count", "append_const"):
            raise Unresolved(f"`{call}`: an argument with the action {_text_of_action(action)} is not followed")
        positional = not flags[0].startswith("-")
        long_flag = next((f[2:] for f in flags if f.startswith("--")), None)
        dest = kw.get("dest") or (flags[0] if positional else long_flag or flags[0].lstrip("-")).replace("-", "_")
        default = kw.get("default", False if action == "store_true" else True if action == "store_false" else None)
        const = True if action == "store_true" else False if action == "store_false" else kw.get("const")
        required = kw.get("required", positional and kw.get("nargs") not in ("?", "*"))
        self.arguments.append(_Argument(tuple(flags), str(dest), action, default, const, kw.get("type"),
                                        kw.get("nargs"), bool(required)))


@dataclasses.dataclass(frozen=True)
class _Argument:
    flags: tuple[str, ...]
    dest: str
    action: str
    default: Any
    const: Any
    type: Any
    nargs: Any
    required: bool


def _text_of_action(action: Any) -> str:
    return repr(action) if isinstance(action, str) else f"`{getattr(action, 'name', type(action).__name__)}`"


class NamedTupleNew:
    """A named tuple class's ``__new__``, whose ``__defaults__`` EfficientNet-PyTorch sets after
    making the class (``GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)``):
    the defaults of its last fields (Interpreter.set_attr)."""

    __slots__ = ("cls",)

    def __init__(self, cls: ClassV) -> None:
        self.cls = cls


def _dotted_module_name(path: str, known: dict[str, bool]) -> str:
    directory, file = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(file)[0]
    parts = [] if stem == "__init__" else [stem]
    while _is_package_dir(directory, known):
        directory, package = os.path.split(directory)
        if not package:
            break
        parts.insert(0, package)
    return ".".join(parts) or stem


# LightningCLI's subcommands, and its options that size nothing (Interpreter.cli_arguments)
_CLI_SUBCOMMANDS = ("fit", "validate", "test", "predict")
_CLI_OTHER_KEYS = frozenset({"seed_everything", "ckpt_path", "optimizer", "lr_scheduler", "print_config"})
# json's and PyYAML's loaders of a file the code opened (Interpreter.loaded_text)
_FILE_LOADERS = frozenset({"json.load", "yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load"})
_MAX_SOURCE_BYTES = 2 * 2**20  # inspect.getsource of a bigger file: not a model definition's
_REGEX_FUNCTIONS = frozenset("search match fullmatch findall sub subn split escape".split())
# Regular expressions run on known strings when the backtracking they can do is bounded: no
# repeated group that could match in several ways (`(a+)+`, `(a|ab)*`), no backreference, and at most
# _MAX_REGEX_WORK steps by the count of repeats and branches on a text of that length (the analyser
# must never hang on a file; on a long text even `\w*\w*!` would take hours).
_MAX_REGEX_WORK = 10**7
_SINGLE_CHARACTER = frozenset({"LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY", "RANGE"})


def _regex_work(items: Any, n: int) -> float | None:
    """How many ways the items can match at one place in a text of ``n`` characters, at most; None
    for what the bound does not cover (a repeated group, a backreference, a conditional)."""
    work = 1.0
    for op, av in items:
        kind = str(op)
        if kind in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = av
            if high <= 1:  # optional: with it or without it
                inner = _regex_work(sub, n)
                if inner is None:
                    return None
                work *= 1 + inner
            elif all(str(o) in _SINGLE_CHARACTER for o, _ in sub):
                work *= min(high, n) + 1
            else:
                return None
        elif kind == "BRANCH":
            ways = [_regex_work(branch, n) for branch in av[1]]
            if None in ways:
                return None
            work *= sum(ways)  # type: ignore[arg-type]
        elif kind in ("SUBPATTERN", "ATOMIC_GROUP", "ASSERT", "ASSERT_NOT"):
            inner = _regex_work(av if kind == "ATOMIC_GROUP" else av[-1], n)
            if inner is None:
                return None
            work *= inner
        elif kind in ("GROUPREF", "GROUPREF_EXISTS", "GROUPREF_IGNORE", "GROUPREF_LOC_IGNORE", "GROUPREF_UNI_IGNORE"):
            return None
    return work


@functools.lru_cache(maxsize=256)
def _parsed_pattern(pattern: str) -> Any:
    """The pattern's parse by Python's own parser (its compile cache does not keep it: transformers'
    files run the same patterns at import for every analysis). Raises re.error."""
    from re import _parser  # type: ignore[attr-defined]

    return _parser.parse(pattern)


@functools.lru_cache(maxsize=1024)
def _pattern_work(pattern: str, n: int) -> float | None:
    """_regex_work of a pattern, once per pattern and text length (transformers' files match the
    same long literal patterns, class names, at import for every analysis). Raises re.error."""
    return _regex_work(_parsed_pattern(pattern), n)


class RegexV:
    """``re.compile(pattern, flags)``: its methods are re's functions with the pattern and flags given."""

    __slots__ = ("pattern", "flags")

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern, self.flags = pattern, flags


def _compiled_regex(args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    pattern = args[0] if args else kwargs.get("pattern")
    flags = args[1] if len(args) > 1 else kwargs.get("flags", 0)
    if len(args) + len(kwargs) > 2 or not isinstance(pattern, str) or type(flags) is not int:
        return _unknown_in([pattern, flags]) or Unknown(f"`{_text(node)}`: the analyser compiles a pattern given as a "
                                                        f"string, with flags it knows")
    try:
        re.compile(pattern, flags)  # Python's errors, as it raises them here (compiling never runs a match)
    except (re.error, ValueError, TypeError) as exc:
        kind = "re.error" if isinstance(exc, re.error) else type(exc).__name__
        raise _Raised(f"`{_text(node)}` raises {kind}: {_user_words(str(exc))}"[:300], ExtV(kind))
    return RegexV(pattern, flags)


# A compiled pattern's methods: how many of their positional arguments are re's function's too
# (`pattern.match(text, pos)` has a position where `re.match` has flags: not followed).
_PATTERN_METHODS = {"match": 1, "search": 1, "fullmatch": 1, "findall": 1, "sub": 3, "subn": 3, "split": 2}


def _regex_attribute(regex: RegexV, name: str, node: ast.AST) -> Any:
    if name in ("pattern", "flags", "groups", "groupindex"):
        value = getattr(re.compile(regex.pattern, regex.flags), name)
        return dict(value) if name == "groupindex" else value
    positional = _PATTERN_METHODS.get(name)
    if positional is None:
        return Unknown(f"`{_text(node)}`: a compiled pattern's `{name}` is not followed")

    def method(*args: Any, **kwargs: Any) -> Any:
        if len(args) > positional or set(kwargs) - {"string", "repl", "count", "maxsplit"}:
            return Unknown(f"`{_text(node)}`: these arguments of a compiled pattern's `{name}` are not followed")
        extra = {"flags": regex.flags} if regex.flags else {}
        return _regex(name, [regex.pattern, *args], {**kwargs, **extra}, node)
    return BuiltinV(name, method)


def _regex(function: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
    """``re.search(pattern, text)`` and the like on known strings, as Python computes them, where
    the matching is sure to end soon (see _regex_work)."""
    values = [*args, *kwargs.values()]
    if any(is_unknownish(a) for a in values):
        return _unknown_in(values) or Unknown(f"`{_text(node)}` depends on unresolved values")
    pattern = args[0] if args else kwargs.get("pattern")
    if not isinstance(pattern, str):
        return Unknown(f"`{_text(node)}`: the analyser runs regular expressions given as strings")
    if function != "escape":
        texts = [*args[1:], *(v for k, v in kwargs.items() if k != "pattern")] if args else [
            v for k, v in kwargs.items() if k != "pattern"]
        n = sum(len(a) for a in texts if isinstance(a, str)) + 1
        try:
            work = _pattern_work(pattern, n)
        except re.error as exc:  # as Python raises it, before any matching
            raise _Raised(f"`{_text(node)}` raises re.error: {_user_words(str(exc))}"[:300], ExtV("re.error"))
        except (RecursionError, ImportError, AttributeError, TypeError, ValueError):
            work = None
        if work is None or work * n > _MAX_REGEX_WORK:
            return Unknown(f"`{_text(node)}`: the analyser does not run this regular expression on this text (it "
                           f"could take very long)")
    try:
        return getattr(re, function)(*args, **kwargs)
    except (re.error, TypeError, ValueError) as exc:
        kind = "re.error" if isinstance(exc, re.error) else type(exc).__name__
        raise _Raised(f"`{_text(node)}` raises {kind}: {_user_words(str(exc))}"[:300], ExtV(kind))


def _attrs_field(name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> FieldV:
    """``attr.ib(default, validator, ...)`` / ``attrs.field(*, default, factory, ...)``: a field of an
    attrs class, with its default (a value, ``factory=``, ``attr.Factory(f)``). A converter, which
    changes the value given, is not followed."""
    names = ("default", "validator", "repr", "cmp", "hash", "init", "metadata", "type", "converter", "factory",
             "kw_only") if name in ("attr.ib", "attr.attrib") else ()
    if len(args) > len(names):
        raise Unresolved(f"`{_text(node)}`: attrs' field takes its options by name")
    given = dict(zip(names, args), **kwargs)
    if given.get("converter") is not None:
        raise Unresolved(f"`{_text(node)}`: the field's converter is not followed")
    default = given.get("default", _MISSING)
    factory = given.get("factory", _MISSING)
    if type(default) is FieldV:  # attr.Factory(list)
        default, factory = _MISSING, default.factory
    field_v = _field(default, factory, given.get("init", True), given.get("kw_only", _MISSING))
    return dataclasses.replace(field_v, attrs=True)


_PYDANTIC_MODELS = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
# What changes a pydantic model's values beyond its fields' defaults: not followed.
_PYDANTIC_HOOKS = frozenset({"field_validator", "model_validator", "validator", "root_validator", "computed_field"})


def _pydantic_model(bases: list[Any]) -> bool:
    """A pydantic (v2) model: its annotated fields, with their defaults, given by keyword (llama4's
    MoEArgs). Validators and model_post_init are refused where it is built (pydantic_hooks)."""
    return any((type(b) is ExtV and b.name in _PYDANTIC_MODELS) or (type(b) is ClassV and b.is_dataclass and
                                                                     b.pydantic) for b in bases)


def _pydantic_field(args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> FieldV:
    """``pydantic.Field(default, default_factory=..., description=...)``: its default; one that
    renames or validates (an alias, constraints) is not followed."""
    if set(kwargs) & {"alias", "validation_alias", "gt", "ge", "lt", "le", "multiple_of", "max_length", "min_length",
                      "pattern", "strict"}:
        raise Unresolved(f"`{_text(node)}`: a pydantic field with an alias or constraints is not followed")
    default = args[0] if args else kwargs.get("default", _MISSING)
    if default is Ellipsis:
        default = _MISSING  # Field(...): required
    return _field(default=default, default_factory=kwargs.get("default_factory", _MISSING))


def _field(default: Any = _MISSING, default_factory: Any = _MISSING, init: Any = True, kw_only: Any = _MISSING,
           metadata: Any = None, **_: Any) -> FieldV:
    """A dataclass field's default, as dataclasses.field and huggingface_hub's validated fields give it."""
    if is_unknownish(init) or is_unknownish(kw_only):
        raise Unresolved(f"whether a dataclass field is an argument of __init__ depends on {_clause(why_of(init if is_unknownish(init) else kw_only))}")
    flags = {"init": bool(init), "kw_only": None if kw_only is _MISSING or kw_only is _DATACLASS_MISSING else bool(kw_only),
             "metadata": tuple(metadata.items()) if isinstance(metadata, dict) else None}
    if default_factory is not _MISSING:
        return FieldV(factory=default_factory, **flags)
    if default is not _MISSING:
        return FieldV(default=default, has_default=True, **flags)
    return FieldV(**flags)


def _builtin_exception(v: Any) -> type[BaseException] | None:
    """Python's own exception class that an ExtV names (ValueError, OSError, re.error), else None."""
    if type(v) is not ExtV:
        return None
    found = _STDLIB_EXCEPTIONS.get(v.name) or getattr(builtins, v.name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


_STDLIB_EXCEPTIONS = {"re.error": re.error, "dataclasses.FrozenInstanceError": dataclasses.FrozenInstanceError}


def _outside_bases(cls: ClassV) -> list[Any]:
    """The bases of a class and of its ancestors that are not classes of the project (torch's, the
    standard library's, ``object``, or one the analyser could not resolve), each once, in MRO order:
    what a question about the class the code alone does not answer depends on."""
    out: list[Any] = []
    for c in cls.mro():
        for b in c.bases:
            if type(b) is not ClassV and b not in out:
                out.append(b)
    return out



# Tensor methods that give a tensor: called on a tensor the analyser did not follow, the result is
# a tensor it does not know either, never a module.
_TENSOR_METHODS = _SAME_SHAPE | {"view", "reshape", "expand", "repeat", "unsqueeze", "squeeze", "transpose", "permute",
                                 "flatten", "t", "mean", "sum", "prod", "std", "var", "amax", "amin", "max", "min",
                                 "astype", "numpy", "tolist", "item", "real", "imag", "conj", "angle"}
# torch's functions that return a module holding the parameters of the module they are given
# (torch.compile's OptimizedModule, TorchScript's and torch.fx's copies share the tensors).
# The torch layers whose constructor calls `self.reset_parameters()` (through their base's: _ConvNd,
# _NormBase, RNNBase, RNNCellBase); Embedding only when it makes its own weight. A test reads torch's.
_RESETS_IN_INIT = frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Bilinear", "Conv1d", "Conv2d", "Conv3d",
                             "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Embedding", "EmbeddingBag", "GRU",
                             "GRUCell", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LSTM",
                             "LSTMCell", "LayerNorm", "Linear", "PReLU", "RMSNorm", "RNN", "RNNBase", "RNNCell",
                             "SyncBatchNorm"})
_KEEPS_MODULE = frozenset({"torch.compile", "torch.jit.script", "torch.jit.trace", "torch.jit.trace_module",
                           "torch.fx.symbolic_trace", "torch.jit.freeze",
                           # FSDP2 shards the module's own parameters in place (DTensors)
                           "torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard",
                           "torch.distributed._composable.fsdp.fully_shard.fully_shard"})
# torch's ShardingStrategy members as the ZeRO stage whose memory they hold per device: transformers'
# FSDPOption names of them, upper-cased (its "hybrid_shard_zero2" is torch's private "_HYBRID_SHARD_ZERO2").
_SHARDING_STRATEGY_STAGES = {("_" if name == "hybrid_shard_zero2" else "") + name.upper(): stage
                             for name, stage in FSDP_STAGES.items()}


def _offloads_parameters(node: ast.AST) -> bool:
    """Whether an FSDP call gives ``cpu_offload=CPUOffload(offload_params=True)`` (as written)."""
    for keyword in getattr(node, "keywords", ()):
        if keyword.arg == "cpu_offload" and type(keyword.value) is ast.Call:
            given = [*keyword.value.args[:1], *(k.value for k in keyword.value.keywords if k.arg == "offload_params")]
            return any(type(v) is ast.Constant and v.value is True for v in given)
    return False


_FSDP_WRAPPERS = frozenset({"torch.distributed.fsdp.FullyShardedDataParallel",
                            "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"})
# numpy's elementwise functions of one array (or two that broadcast): the shape only (a number's
# value goes through _NUMPY_SCALAR's path first).
_NUMPY_ELEMENTWISE = frozenset(
    "cos sin tan cosh sinh tanh exp log log2 log10 log1p expm1 sqrt abs absolute square power float_power "
    "multiply add subtract divide true_divide maximum minimum floor ceil round rint sign".split())
_NUMPY_INTEGERS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp", "int_",
                             "uintp"})
# The aliases numpy 1.24 removed (AttributeError now), with the dtype each meant.
_NUMPY_REMOVED = {"int": "int_", "float": "float64", "complex": "complex128", "object": "object_", "str": "str_",
                  "unicode": "str_"}
_NUMPY_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "arange", "array", "asarray", "eye", "identity"})
# attrs' class decorators: `@attr.s` (fields given attr.ib(), unless auto_attribs=True) and the
# newer `@define` family (annotated fields).
_ATTRS_DECORATORS = {"attr.s": "s", "attr.attrs": "s", "attr.attributes": "s", "attr.dataclass": "define",
                     "attr.define": "define", "attr.mutable": "define", "attr.frozen": "define",
                     "attrs.define": "define", "attrs.mutable": "define", "attrs.frozen": "define"}
# Class decorators of these packages never write a module's __init__ (typing.final, functools'
# total_ordering, abc, torch's own).
_HARMLESS_DECORATOR_PACKAGES = frozenset({"typing", "typing_extensions", "functools", "abc", "torch", "enum",
                                          "dataclasses", "six", "warnings", "contextlib"})
# Outside decorators known to give a class no parameters: the `kernels` package's (transformers 5.25
# applies them where kernels is installed), which mark a layer for a Hub kernel's forward
# (`kernel_layer_name`) or keep kernel functions in the instance's `__dict__`, not as submodules.
_HARMLESS_DECORATORS = frozenset(f"kernels.{name}" for name in (
    "use_kernel_forward_from_hub", "use_kernel_func_from_hub", "use_kernelized_func"))
_ATTRS_FIELDS = frozenset({"attr.ib", "attr.attrib", "attr.attr", "attr.field", "attrs.field"})
_NUMPY_DTYPES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"})
_NUMPY_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "argsort", "argmax", "argmin"})
_DATA_PARALLEL_SIGNATURE = [("module", REQUIRED), ("device_ids", None), ("output_device", None), ("dim", 0)]
_DISTRIBUTED_SIGNATURE = _DATA_PARALLEL_SIGNATURE + [  # torch 2.13's DistributedDataParallel
    (name, None) for name in ("broadcast_buffers", "init_sync", "process_group", "bucket_cap_mb", "find_unused_parameters",
                              "check_reduction", "gradient_as_bucket_view", "static_graph",
                              "delay_all_reduce_named_params", "param_to_hook_all_reduce", "mixed_precision", "device_mesh",
                              "skip_all_reduce_unused_params", "bucket_cap_mb_list", "batched_grad_copy",
                              "forward_sync_buffers")]
_EINOPS_FUNCTIONS = frozenset({"einops.rearrange", "einops.repeat", "einops.reduce"})


# What the analysis answers for a machine without an accelerator (read_accelerator).
# What the analysis answers for torch.distributed: a model built in one process, without a process
# group (get_world_size and get_rank raise then, as torch's do).
_ONE_PROCESS: dict[str, Any] = {"torch.distributed.is_initialized": False, "torch.distributed.is_available": True,
                                "torch.distributed.is_torchelastic_launched": False,
                                "torch.distributed.get_world_size": _MISSING, "torch.distributed.get_rank": _MISSING}
# Version parsers whose comparisons of plain release versions ("2.13.0") are those of tuples of ints.
_VERSION_PARSERS = frozenset({"packaging.version.parse", "packaging.version.Version", "distutils.version.LooseVersion",
                              "distutils.version.StrictVersion", "pkg_resources.parse_version"})
_NO_ACCELERATOR: dict[str, Any] = {"torch.cuda.is_available": False, "torch.cuda.device_count": 0,
                                   "torch.backends.mps.is_available": False, "torch.cuda.is_bf16_supported": False,
                                   "torch.xpu.is_available": False,
                                   # accelerate's probes, where accelerate is not read (peft's prepare_model_for_kbit_training)
                                   **{f"accelerate.utils.{module}is_{device}_available": False
                                      for module in ("", "imports.")
                                      for device in ("xpu", "npu", "mlu", "musa", "hpu", "sdaa", "mps", "torch_xla")}}


def _dict_of(d: Any) -> dict[Any, Any]:
    """The dict an unbound dict method works on: a dict, or the items of an instance of a dict subclass."""
    if type(d) is Inst and isinstance(d.attrs.get(_DICT_ITEMS), dict):
        return d.attrs[_DICT_ITEMS]
    if isinstance(d, dict):
        return d
    raise Unresolved("a dict method called on something that is not a dict")


# dict's methods taken from the class (`dict.get`), called with the dict first.
_DICT_UNBOUND: dict[str, BuiltinV] = {
    name: BuiltinV(f"dict.{name}", (lambda method: lambda d, *a: getattr(_dict_of(d), method)(*a))(name))
    for name in ("get", "__getitem__", "__setitem__", "__delitem__", "__contains__", "keys", "values", "items",
                 "setdefault", "pop", "update")}


# Packages whose classes are never modules: what a class of the code may extend for its configs.
_NOT_MODULE_PACKAGES = frozenset({"numpy", "pydantic", "omegaconf", "attr", "attrs", "msgspec", "yaml", "ml_collections",
                                  "simple_parsing", "typing_extensions", "builtins"})


_HUB_LOADERS = frozenset({"from_pretrained", "from_config"})  # (Interpreter.transformers_loader)
# The builtin classes Python lets one subscript (PEP 585): `list[int]` is a generic alias.
_GENERIC_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "type"})



def _transformers_function(fn: Any) -> bool:
    """Whether ``fn`` (a function, or one bound to its class) is defined in a file of the
    transformers package (its loaders' ``from_pretrained``)."""
    f = fn.func if type(fn) is BoundV else fn
    return type(f) is FuncV and f.env is not None and in_transformers(f.env.module.path)


def in_transformers(path: str) -> bool:
    """Whether a file the analysis read is one of the transformers package's."""
    return f"{os.sep}transformers{os.sep}" in path


def is_transformers_config(value: Any) -> bool:
    """An instance of a transformers configuration class the analyser built (read from the
    installed source), as ``isinstance(config, PreTrainedConfig)`` tells transformers."""
    if type(value) is not Inst or type(value.cls) is not ClassV:
        return False
    return any(c.name in ("PreTrainedConfig", "PretrainedConfig") and c.env is not None and
               in_transformers(c.env.module.path) for c in value.cls.mro() if type(c) is ClassV)


def foreign_base(cls: ClassV) -> ExtV | None:
    """The first base of the class or its ancestors from a package the analyser does not read (not
    the standard library, torch or a package of configs): a class that may be an nn.Module
    (transformers' PreTrainedModel, Lightning's LightningModule, xformers' SwiGLU) for all the code
    shows."""
    for base in _outside_bases(cls):
        if type(base) is ExtV and "." in base.name:
            top = base.name.partition(".")[0]
            if top == "torch":
                # torch's own module classes the tables do not describe (`torch.jit.ScriptModule`,
                # `nn.modules.batchnorm._BatchNorm`) are modules of unknown parts.
                if base.name.startswith(("torch.nn.", "torch.jit.", "torch.ao.nn.", "torch.ao.quantization.")) and not _known_torch_class(base.name) and \
                        not _torch_layer_name(base):
                    return base
            elif top not in sys.stdlib_module_names and top not in _NOT_MODULE_PACKAGES:
                return base
    return None


def _is_object(base: Any) -> bool:
    return type(base) is ExtV and base.name in ("object", "builtins.object")


def _exception_matches(kind: Any, handler: Any) -> bool | None:
    """Whether ``except handler`` catches an exception of class ``kind``: a class of the project is
    caught by itself, its bases, and Python's exceptions it derives from; None where the answer
    depends on a class the analyser does not know (it then follows no handler)."""
    if kind is None:
        return None
    if type(handler) is ClassV:
        return type(kind) is ClassV and handler in kind.mro()
    caught = _builtin_exception(handler)
    if caught is None:
        return None
    if type(kind) is ClassV:
        known = [_builtin_exception(b) for b in _outside_bases(kind) if b != ExtV("object")]
        if any(k is None for k in known):
            return None
        return any(issubclass(k, caught) for k in known if k is not None)
    raised = _builtin_exception(kind)
    return None if raised is None else issubclass(raised, caught)


# Outside classes whose only base is object: a class of the project on them alone derives from no
# other outside class (timm asks whether its BlurPool2d is an nn.AvgPool2d).
_ROOT_CLASSES = frozenset({"object", "torch.nn.Module", "torch.nn.modules.module.Module", "torch.jit.ScriptModule",
                           "torch.jit._script.ScriptModule"})
_INTERNED = re.compile(r"[A-Za-z0-9_]*")  # the strings CPython interns when it compiles them


def _issubclass(cls: Any, classes: Any) -> bool:
    """Exact between classes of the project (their bases are known); a question about a class
    outside it that the bases do not answer is unresolved rather than guessed."""
    options = classes if isinstance(classes, tuple) else (classes,)
    if type(cls) is BuiltinV and _PY_TYPES.get(cls.name) is not None:
        # Python's own type (`issubclass(field.type, Enum)` of a `str` field: HfArgumentParser)
        for c in options:
            if type(c) is BuiltinV and _PY_TYPES.get(c.name) is not None:
                if issubclass(_PY_TYPES[cls.name], _PY_TYPES[c.name]):
                    return True
            elif type(c) is ExtV and c.name == "object":
                return True
            elif type(c) is ExtV and c.name.split(".")[0] in _ABSTRACT_TYPE_MODULES:
                raise Unresolved(f"whether `{cls.name}` derives from `{c.name}` is not known to the analyser")
            elif not isinstance(c, (ClassV, ExtV)):
                raise Unresolved(f"issubclass of a class the analyser does not know ({why_of(c) or type(c).__name__})")
        return False  # a builtin type derives from no class of the project or of a library
    if not isinstance(cls, (ClassV, ExtV)):
        raise Unresolved(f"issubclass of {why_of(cls) if is_unknownish(cls) else type(cls).__name__}")
    mro = cls.mro() if isinstance(cls, ClassV) else []
    external = _outside_bases(cls) if isinstance(cls, ClassV) else []
    for c in options:
        if isinstance(c, ClassV):
            if c in mro:  # a class outside the project never derives from one inside it
                return True
        elif isinstance(c, ExtV):
            if c.name == "object" or (isinstance(cls, ExtV) and cls.name == c.name) or c in external:
                return True
            target = _torch_nn_class(c.name, as_base=True)
            sources = [cls] if isinstance(cls, ExtV) else external
            if target is not None and sources and all(type(b) is ExtV and _torch_nn_class(b.name) for b in sources):
                # torch.nn's classes: their bases are the table's (`issubclass(nn.PReLU, nn.Module)`: DeepCTR).
                if any(_torch_derives(_torch_nn_class(b.name), target) for b in sources):
                    return True
                continue
            if isinstance(cls, ClassV) and all(type(b) is ExtV and b.name in _ROOT_CLASSES for b in external):
                continue  # a class of the project on nn.Module alone derives from no other class outside it
            if isinstance(cls, ExtV) or external:
                raise Unresolved(f"whether `{getattr(cls, 'name', '?')}` derives from `{c.name}` is outside the file")
        else:
            raise Unresolved(f"issubclass of a class the analyser does not know ({why_of(c) or type(c).__name__})")
    return False


def _unknown_in(values: Any) -> Unknown | None:
    """The first Unknown among ``values``: a result that depends on it is unknown for its reason
    (a formula would show the analyser's own object, and lose the reason)."""
    return next((Unknown(v.why) for v in values if isinstance(v, Unknown)), None)


class _PublicNames(frozenset):  # type: ignore[type-arg]
    """``dir(module)`` of a module the analyser knows by a table of its public names: whether
    it has a private one (``'_pair' in dir(F)``) is not known."""

    module = ""

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and name.startswith("_"):
            raise Unresolved(f"whether `{self.module}` has `{name}` is not known: the analyser knows its public names")
        return frozenset.__contains__(self, name)


def _dir(*args: Any) -> Any:
    if len(args) == 1 and type(args[0]) is ExtV and args[0].name == "torch.nn.functional":
        names = _PublicNames(FUNCTIONAL_NAMES)
        names.module = args[0].name
        return names
    return Unknown(f"`dir({', '.join(render(a) for a in args)})` is not known to the analyser")


def _round(number: Any, *ndigits: Any) -> Any:
    if is_unknownish(number) or any(is_unknownish(n) for n in ndigits):  # a formula's rounding: a formula
        args = (number, *ndigits)
        return _unknown_in(list(args)) or sym_opaque(f"round({', '.join(render(a) for a in args)})", *args)
    return round(number, *ndigits)


def _len(v: Any) -> Any:
    if isinstance(v, Inst):
        if v.kind == "tokenizer":  # its vocabulary with the tokens added: its files are not read
            return Sym.atom("len(tokenizer)", why_of(v.attrs["vocab_size"]))
        return _entry_count(v) if v.kind in _CONTAINER_KINDS else len(v.attrs)
    if isinstance(v, RangeV):
        return len(v.r)
    if type(v) is ClassV and v.enum_members is not None:
        return len(_members(v))
    if is_unknownish(v):
        return _unknown_in([v]) or sym_opaque(f"len({render(v)})", v)
    if isinstance(v, (TensorV, Param)):
        if not v.shape:
            raise TypeError("len() of a 0-d tensor")
        return v.shape[0]  # a tensor's length is its first size
    return len(v)


def _range(*args: Any) -> Any:
    vals = [as_int(a, "range bound") for a in args]
    syms = [v for v in vals if isinstance(v, Sym)]
    if syms:
        shown = ", ".join(v.render() if isinstance(v, Sym) and len(vals) == 1 else render(v) for v in vals)
        raise Unresolved(f"the range `range({shown})` depends on {'; '.join(why_of(s) for s in syms)}")
    return RangeV(range(*vals))


def _minmax(fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kw: Any) -> Any:
        # One argument: its items (a list, a range, a map or zip iterator, a set), as Python iterates it.
        items = (args[0] if isinstance(args[0], (list, tuple)) else _list_of(args[0])) if len(args) == 1 else args
        if any(is_unknownish(x) for x in items):
            return _unknown_in(items) or sym_opaque(f"{fn.__name__}({', '.join(render(x) for x in items)})", *items)
        return fn(items, **kw)
    return run


_FLOAT_LITERAL = re.compile(r"(?<![\w.])\d+\.\d*")


def _num(py: type) -> Callable[..., Any]:
    def conv(v: Any = 0, *rest: Any) -> Any:
        if isinstance(v, Sym):
            # int() of a whole-number formula is itself; of one with a quotient or a float in it
            # (`int(channels / 4)`: demucs) it is another number, its own name.
            whole = py is int and not any(" / " in atom or _FLOAT_LITERAL.search(atom) for atoms, _ in v.terms
                                          for atom in atoms)
            return v if whole else sym_opaque(f"{py.__name__}({v.render()})", v)
        if isinstance(v, Unknown):
            return v
        if type(v) in _TENSORS and not rest and (type(v) is Param or v.values is None) and \
                all(type(d) is int and d == 1 for d in v.shape):
            # One value torch would give and the analyser does not compute (EDM's `float(self.sigma(eps))`
            # kept as a plain number): not known, which the code's use of it says where it matters.
            return Unknown(f"the value of a tensor the analyser does not compute, as a {py.__name__}")
        if py is float and type(v) is TensorV and v.errors is not None and not rest:
            # PointPillars' `float(-np.log((1 - p) / p))` for a bias init: its last bits are numpy's own;
            # no exact float says it (a size that depends on it is refused where it is used).
            return Unknown("the float of a value computed by numpy's or torch's log / exp / pow, whose last bits "
                           "the analyser does not reproduce")
        return py(v, *rest)
    return conv


def _sum(items: Any, start: Any = 0) -> Any:
    total = start
    for x in (items if isinstance(items, (list, tuple)) else _list_of(items)):
        if isinstance(x, (Sym, int)) and isinstance(total, (Sym, int)) and (isinstance(x, Sym) or isinstance(total, Sym)):
            total = sym_add(total, x)
        elif isinstance(x, Unknown):
            return x
        else:
            total = total + x
    return total


def _next(iterator: Any, *default: Any) -> Any:
    if type(iterator) is not IteratorV and type(iterator) is not CycleV:
        if is_unknownish(iterator):
            return Unknown(f"`next` of {why_of(iterator)}")
        raise _Raised(f"`next` of a {type(iterator).__name__}, which is not an iterator (TypeError)", ExtV("TypeError"))
    for value in iterator:
        return value
    if default:
        return default[0]
    raise _Raised("`next` of an exhausted iterator (StopIteration)", ExtV("StopIteration"))


def _is_generator(node: ast.AST, body: list[ast.stmt]) -> bool:
    """Whether a function is a generator: a `yield` in its own body (not in a function it defines).
    Kept on the node: its syntax tree outlives the analysis (memo, tree cache)."""
    known = getattr(node, "lsp_count_generator", None)
    if known is None:
        known = False
        todo: list[ast.AST] = list(body)
        while todo and not known:
            n = todo.pop()
            if isinstance(n, ast.Yield | ast.YieldFrom):
                known = True
            elif not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                todo.extend(ast.iter_child_nodes(n))
        node.lsp_count_generator = known  # type: ignore[attr-defined]
    return known


def _context_hooks(value: Any) -> tuple[FuncV, FuncV] | None:
    """The ``__enter__`` and ``__exit__`` an object's class of the code defines (both, or None)."""
    if type(value) is not Inst or type(value.cls) is not ClassV:
        return None
    enter, exit_ = _own_method(value.cls, "__enter__"), _own_method(value.cls, "__exit__")
    return (enter, exit_) if enter is not None and exit_ is not None else None


def _outside_loop(exc: Exception, fn: FuncV) -> Unresolved:
    """A `break` or `continue` that reached the function's body: ast.parse takes it, Python's compiler
    refuses the file."""
    word = "break" if isinstance(exc, _Break) else "continue"
    return Unresolved(f"`{word}` outside a loop in `{fn.name}` ({fn.env.module.where(fn.node.lineno)}): "
                      f"Python refuses to compile the file (SyntaxError)")


def _init_returned(value: Any, node: ast.AST) -> None:
    """What a class's own ``__init__`` returned: Python refuses anything but None (`return self`, an
    ``__init__`` with a `yield`, which makes it a generator)."""
    if value is None or is_unknownish(value):
        return
    t = type(value)
    name = "generator" if t is IteratorV else value.type_name if t is Inst else t.__name__ if t in _PY_TYPES.values() \
        else None
    what = f"not '{name}'" if name is not None else "not an object"
    raise _Raised(f"`{_text(node)}` raises TypeError: __init__() should return None, {what}", ExtV("TypeError"))


def _yields_in(node: ast.AST) -> bool:
    """Whether a statement holds a `yield` of its function (not of a function it defines). Kept on
    the node, as _is_generator's answer is."""
    known = getattr(node, "lsp_count_yields", None)
    if known is None:
        known = False
        todo: list[ast.AST] = [node]
        while todo and not known:
            n = todo.pop()
            if isinstance(n, ast.Yield | ast.YieldFrom):
                known = True
            elif n is node or not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                todo.extend(ast.iter_child_nodes(n))
        node.lsp_count_yields = known  # type: ignore[attr-defined]
    return known


def _lazy_body(node: ast.AST, body: list[ast.stmt]) -> bool:
    """Whether a generator's yields are all where Interpreter.lazy_block can stop between them: as
    statements (`yield x`, `yield from xs`, `v = yield x`) in loops and branches, the loops' and
    branches' own expressions free of them. Kept on the node."""
    known = getattr(node, "lsp_count_lazy", None)
    if known is None:
        known = node.lsp_count_lazy = _lazy_statements(body)  # type: ignore[attr-defined]
    return known


def _lazy_statements(body: list[ast.stmt], in_loop: bool = False) -> bool:
    for s in body:
        if not in_loop and _breaks_out(s):
            return False  # Python's compiler refuses the file: the eager run says so (_outside_loop)
        if not _yields_in(s):
            continue
        if isinstance(s, ast.Expr | ast.Assign) and isinstance(s.value, ast.Yield | ast.YieldFrom):
            parts: list[ast.AST] = [s.value.value] if s.value.value is not None else []
            if isinstance(s, ast.Assign):
                parts.extend(s.targets)
            if any(_yields_in(p) for p in parts):
                return False
        elif isinstance(s, ast.If):
            if _yields_in(s.test) or not _lazy_statements(s.body, in_loop) or not _lazy_statements(s.orelse, in_loop):
                return False
        elif isinstance(s, ast.While):
            if _yields_in(s.test) or not _lazy_statements(s.body, True) or not _lazy_statements(s.orelse, in_loop):
                return False
        elif isinstance(s, ast.For):
            if _yields_in(s.iter) or _yields_in(s.target) or not _lazy_statements(s.body, True) or \
                    not _lazy_statements(s.orelse, in_loop):
                return False
        else:
            return False  # a yield in a `try`, a `with`, or inside an expression: run to its end at once
    return True


def _breaks_out(s: ast.stmt) -> bool:
    """A `break` or `continue` in the statement outside any loop of it (nor of a function it defines)."""
    todo: list[ast.AST] = [s]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Break | ast.Continue):
            return True
        if not isinstance(n, ast.For | ast.AsyncFor | ast.While | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda |
                          ast.ClassDef | ast.expr):
            todo.extend(ast.iter_child_nodes(n))
        elif isinstance(n, ast.For | ast.AsyncFor | ast.While):
            todo.extend(n.orelse)  # a loop's else is outside it
    return False


def _is_context_manager(node: ast.AST) -> bool:
    """A function decorated ``@contextmanager`` / ``@contextlib.contextmanager``."""
    return any(_dotted(d).rsplit(".", 1)[-1] == "contextmanager" for d in getattr(node, "decorator_list", ()))


def _loop_condition(v: Any, test: ast.expr) -> bool:
    """A while loop's condition as ``truth`` takes it; the condition's text, for the reason an
    unknown one gives, is only made then (a loop tests it at every turn)."""
    if type(v) is bool or type(v) is int:
        return bool(v)
    return truth(v, f"the loop condition `{_text(test)}`")


def truth_value(v: Any, what: str) -> bool:
    """A value's truth as Python's ``if`` takes it: an empty ModuleList or ModuleDict is false, any
    other module true; an unknown value raises Unresolved (``what`` names it)."""
    if isinstance(v, Inst):
        return bool(_entry_count(v)) if v.kind in _CONTAINER_KINDS else True
    if isinstance(v, (Sym, Unknown)):
        return truth(v, what)
    return bool(v)


def _any_all(items: Any, stop: bool) -> bool:
    """``any`` (``stop`` True) and ``all`` (False), each item's truth as an ``if`` takes it: one
    not known before the answer is found is LC101, not a Python object's truth (always true)."""
    for item in items if type(items) is IteratorV else _list_of(items):  # an iterator: taken only up to the answer
        if truth_value(item, f"an item of `{'any' if stop else 'all'}()`") is stop:
            return stop
    return not stop


def _list_of(v: Any = ()) -> Any:
    if type(v) is TensorV and v.values is not None and len(v.shape) == 1:
        # `zip(self.m, self.stride)`: a 1-d tensor's 0-d ones, as iterate gives them (yolov5)
        return [TensorV((), (x,), dtype=v.dtype, numpy=v.numpy) for x in v.values]
    if type(v) in _TENSORS and v.shape and type(v.shape[0]) is int and v.shape[0] <= MAX_ITERATIONS:
        return _tensor_rows(v)  # as Interpreter.iterate gives them
    if type(v) is CycleV:
        raise Unresolved("a list of an endless `itertools.cycle` never ends")
    if isinstance(v, RangeV):
        if len(v.r) > MAX_SEQUENCE:
            raise Unresolved(f"a list of {len(v.r):,} elements is not followed")
        return list(v.r)
    if isinstance(v, Inst):
        if v.kind in ("list", "seq", "plist", "dict", "pdict"):
            entries = container_entries(v)
            return [x for _, x in entries] if v.kind in ("list", "seq", "plist") else [k for k, _ in entries]
        if isinstance(v.attrs.get(_DICT_ITEMS), dict):
            return list(v.attrs[_DICT_ITEMS])  # an object of a dict subclass: its keys
        name = _not_iterable(v)
        if name is not None:
            raise _Raised(f"iterating over a `{name}` raises TypeError: '{name}' object is not iterable",
                          ExtV("TypeError"))
        raise Unresolved(f"iterating over a `{v.type_name}` is not followed (its class extends one from outside)")
    if is_unknownish(v):
        raise Unresolved(f"a list built from an unresolved value: {why_of(v)}")
    if type(v) is ClassV and v.enum_members is not None:
        return _members(v)
    if type(v) is FuncV:  # (Python's own values raise Python's error, with the call's text: see Interpreter.call)
        raise _Raised("iterating over a function raises TypeError: 'function' object is not iterable", ExtV("TypeError"))
    return list(v)


def _getattr(obj: Any, name: Any, *default: Any) -> Any:
    name = _member_value(name)  # a member of `class Act(str, Enum)` is a string
    if type(obj) is Param and obj.flags is not None and name in obj.flags:
        return obj.flags[name]
    if not isinstance(name, str):
        if is_unknownish(name):
            raise Unresolved(f"getattr's attribute name depends on {_clause(why_of(name))}")
        # dreamerv3's `getattr(torch.nn, act)` with `act=nn.ELU`, a class: Python refuses it.
        raise _Raised("getattr raises TypeError: the attribute name must be a string", ExtV("TypeError"))
    if isinstance(obj, Inst):
        if name in obj.attrs:
            return obj.attrs[name]
        if obj.layer_args is not None and isinstance(name, str):  # a torch layer's settings and empty slots
            setting = layer_attribute(obj.layer_args[0], obj.layer_args[1], name)
            if setting is not NOT_A_LAYER_ATTRIBUTE:
                return setting
            if name in NONE_SLOTS.get(obj.layer_args[0], ()):
                return None
            if type(obj.cls) is str and no_such_layer_attribute(obj.layer_args[0], name, obj.attrs):
                if default:
                    return default[0]
                raise _Raised(f"getattr raises AttributeError: '{obj.layer_args[0]}' object has no attribute '{name}'",
                              ExtV("AttributeError"))
        if isinstance(obj.cls, ClassV):
            try:
                return obj.cls.lookup(name)
            except KeyError:
                pass
        if default:
            return default[0]
        raise Unresolved(f"getattr: `{name}` is not set")
    if isinstance(obj, Sym) and obj.single_atom():
        return Sym.atom(f"{obj.single_atom()}.{name}", obj.why[0][1])
    if is_unknownish(obj):
        return Unknown(why_of(obj))
    if isinstance(obj, ExtV) and isinstance(name, str):
        if obj.name == "torch.nn" and not _torch_nn_has(name):  # tabm's `getattr(nn, "MLP", None)`: its own then
            if default:
                return default[0]
            raise _Raised(f"getattr raises AttributeError: module 'torch.nn' has no attribute '{name}'",
                          ExtV("AttributeError"))
        if _torch_class_lacks(obj.name, name):
            if default:  # mmcv's `getattr(nn.BatchNorm2d, "_abbr_", None)`
                return default[0]
            raise _Raised(f"getattr raises AttributeError: type object '{obj.name[len('torch.nn.'):]}' has no "
                          f"attribute '{name}'", ExtV("AttributeError"))
        return _external(f"{obj.name}.{name}")  # getattr(nn, "GELU"): as `nn.GELU` (hasattr says the API has it)
    if default:
        return getattr(obj, name, default[0]) if isinstance(obj, (int, float, str)) else default[0]
    raise Unresolved(f"getattr(…, `{name}`) of {_user_words(repr(type(obj).__name__))} is not followed")


def _hasattr(obj: Any, name: Any) -> Any:
    if type(obj) is Param and obj.flags is not None and name in obj.flags:
        return True
    if isinstance(obj, Inst):
        if name in obj.attrs or (obj.layer_args is not None and (name in LAYER_ATTRIBUTES.get(obj.layer_args[0], ()) or
                                                                 name in NONE_SLOTS.get(obj.layer_args[0], ()))):
            return True
        if type(obj.cls) is str and obj.is_module and isinstance(name, str) and name[:2] != "__":
            # A torch layer: what torch registers on it even where absent (`bias` of a Linear built
            # without one is None), nn.Module's own attributes, and its class's methods and properties.
            layer = obj.layer_args[0] if obj.layer_args is not None else obj.cls
            if _known_torch_class(f"torch.nn.{layer}") and (
                    name in REGISTERED_SLOTS.get(layer, ()) or name in MODULE_INSTANCE_ATTRIBUTES or
                    _class_attribute_named(obj, name)):
                return True
        if isinstance(obj.cls, ClassV):
            if obj.cls.find(name, _MISSING) is not _MISSING:
                return True
            # A method nn.Module gives every module (`hasattr(module, "named_children")`) is there too;
            # a base outside the file the analyser does not know may give it (then it is not known).
            answer = _hasattr(obj.cls, name)
            return obj.is_module if answer is True else answer
        return False
    if isinstance(obj, ClassV):
        if obj.find(name, _MISSING) is not _MISSING or _class_attribute(obj, name) is not _MISSING:
            return True
        bases = _outside_bases(obj)
        answers = [_outside_class_has(b, name) for b in bases]
        if any(answers):
            return True
        if None in answers:
            base = bases[answers.index(None)]
            shown = f"`{base.name}`" if type(base) is ExtV else "a base outside the file"
            return Unknown(f"`{name}`, which {shown} (a base of `{obj.name}` the analyser does not read) may define")
        return False
    if is_unknownish(obj):
        return Unknown(f"hasattr on an unresolved value: {why_of(obj)}")
    if isinstance(obj, ExtV):
        if obj.name == "torch.nn" and isinstance(name, str):
            return _torch_nn_has(name)  # torch.nn's names are known whole
        if isinstance(name, str) and name[:2] != "__" and _known_torch_class(obj.name):
            return not _torch_class_lacks(obj.name, name)  # a torch.nn class's, known whole
        return True  # a library feature probe (hasattr(F, "scaled_dot_product_attention")): assume the current API
    return hasattr(obj, name) if isinstance(obj, (int, float, str, list, dict, tuple)) else False


def _torch_nn_has(name: str) -> bool:
    """Whether torch.nn (torch TORCH_VERSION) has the name: its module classes and its other public
    names, private ones taken as there (they are not in the tables)."""
    return name.startswith("_") or name in TORCH_NN_MODULES or name in TORCH_NN_OTHER_NAMES


def _outside_class_has(base: Any, name: str) -> bool | None:
    """Whether a base from outside the project has the attribute, where the analyser knows that
    base (object, nn.Module, Python's exceptions); None where it does not."""
    if base == ExtV("torch.nn.Module"):
        return name in MODULE_CLASS_ATTRIBUTES or hasattr(object, name)
    if type(base) is ExtV and name[:2] != "__" and _known_torch_class(base.name):
        return not _torch_class_lacks(base.name, name)  # a torch.nn class of the tables, known whole
    if type(base) is BuiltinV and base.name in _PY_TYPES:
        return hasattr(_PY_TYPES[base.name], name)  # `class Cfg(dict)`
    if type(base) is ExtV and base.name in _STANDARD_BASES:
        return hasattr(_STANDARD_BASES[base.name], name) or (
            base.name.endswith("NamedTuple") and name in _NAMED_TUPLE_MEMBERS)
    known = object if base == ExtV("object") else _builtin_exception(base)
    return None if known is None else hasattr(known, name)



def _setattr(obj: Any, name: Any, value: Any) -> None:
    if isinstance(obj, Inst):
        obj.attrs[str(name)] = value
    elif isinstance(obj, Param) and name == "requires_grad":
        _require_grad(obj, bool(value))


# zip, enumerate, reversed, map and filter make iterators, consumed once, as Python's are
# (`zip(it, it)` pairs an iterator's items; a second `list(z)` is empty).


def _enumerate(v: Any, start: int = 0) -> IteratorV:
    if type(v) is IteratorV:  # lazy, as Python's: an item is taken from ``v`` when one is taken from it
        return IteratorV([], ((i + start, x) for i, x in enumerate(v)))
    return IteratorV([(i + start, x) for i, x in enumerate(_list_of(v))])


def _zip(*vs: Any, strict: Any = False) -> IteratorV:
    if vs and all(type(v) is CycleV and v.items for v in vs):
        raise Unresolved("`zip` of endless cycles alone never ends")
    parts = [v if type(v) is CycleV or type(v) is IteratorV else iter(v) if type(v) is list else _list_of(v)
             for v in vs]
    if strict is True and not any(type(p) is CycleV for p in parts):
        parts = [list(p) for p in parts]
        for i, part in enumerate(parts[1:], 2):  # zip(..., strict=True): Python's ValueError at the first mismatch
            if len(part) != len(parts[0]):
                longer = "longer" if len(part) > len(parts[0]) else "shorter"
                raise Raised(f"zip() argument {i} is {longer} than argument{' 1' if i == 2 else 's 1-' + str(i - 1)} "
                             f"(ValueError)", ExtV("ValueError"))
    # Lazy, as Python's: its items are taken when it is (a list appended to in between is seen).
    return IteratorV([], zip(*parts))


def _identity(v: Any) -> int:
    """``id(v)`` of an object whose identity the analyser keeps as Python would (a module, a tensor,
    a class or function of the code, a list, dict or set, None, a bool): ``id(m.weight) ==
    id(param)`` to find a weight's name (RWKV's initialiser). Not of numbers, strings and tuples,
    whose identity is CPython's caching, nor of values standing for what the analyser does not know."""
    if type(v) in _IDENTITY_KEPT or v is None:
        return id(v)
    if is_unknownish(v):
        raise Unresolved(f"the identity (`id`) of a value the analyser does not know: {why_of(v)}")
    raise Unresolved(f"`id` of {type(v).__name__} values depends on how Python caches them; the analyser does not "
                     f"follow it")


def _unsupported(name: str) -> Callable[..., Any]:
    def fail(*a: Any, **k: Any) -> Any:
        raise Unresolved(f"the code calls `{name}`, which the analyser never runs")
    return fail


# What an initialiser calls: torch.nn.init's functions and tensors' in-place fills, which change
# values, never shapes or flags; and Python's functions that only read.
_IN_PLACE_FILLS = frozenset({"normal_", "trunc_normal_", "uniform_", "zero_", "zeros_", "ones_", "fill_", "constant_",
                             "copy_", "clamp_", "mul_", "div_", "add_", "sub_", "xavier_uniform_", "xavier_normal_",
                             "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "eye_", "dirac_", "sparse_"})
_READING_BUILTINS = frozenset({"isinstance", "hasattr", "getattr", "len", "range", "type", "int", "float", "min", "max",
                               "abs", "print"})
_INIT_MODULES = ("torch.nn.init.", "nn.init.", "init.", "math.")


def _count_neutral(fn: Any) -> bool:
    """Whether calling ``fn`` on a module cannot change what is counted, read off its code: it only
    reads, fills tensors in place (torch.nn.init, ``.normal_()``, ``.data.zero_()``) and binds local
    names. So ``apply`` need not run it on every module. Anything else (an attribute or item
    assigned, ``del``, ``requires_grad_``, a call of the project's code) is run."""
    if type(fn) is BoundV:
        fn = fn.func
    if type(fn) is ExtV:
        return fn.name.startswith("torch.nn.init.")
    if type(fn) is not FuncV or fn.decorators:
        return False
    node = fn.node
    body = [node.body] if isinstance(node, ast.Lambda) else node.body
    for part in body:
        for sub in ast.walk(part) if isinstance(part, ast.AST) else (x for stmt in part for x in ast.walk(stmt)):
            t = type(sub)
            if t in (ast.Delete, ast.Global, ast.Nonlocal, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                     ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr, ast.With, ast.Try):
                return False
            if t in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For):
                targets = sub.targets if t is ast.Assign else [sub.target]
                if not all(type(x) is ast.Name for x in targets):
                    return False
            elif t is ast.Call:
                func = sub.func
                if type(func) is ast.Name:
                    if func.id not in _READING_BUILTINS:
                        return False
                elif type(func) is ast.Attribute:
                    if func.attr not in _IN_PLACE_FILLS and not _dotted(func).startswith(_INIT_MODULES):
                        return False
                else:
                    return False
    return True


class _ModuleApply:
    """A module's ``apply``: Interpreter.module_apply runs it, with the call's node and names."""

    __slots__ = ("module",)

    def __init__(self, module: Inst) -> None:
        self.module = module

    def __call__(self, *a: Any, **k: Any) -> Any:
        raise Unresolved("apply is run by the interpreter")


def _MAP_FILTER(*a: Any, **k: Any) -> Any:
    """map and filter call the code's functions: Interpreter.map_filter runs them, not this."""
    raise Unresolved("map and filter are run by the interpreter")


def _callable(v: Any) -> Any:
    if is_unknownish(v):
        return Unknown(f"whether it can be called depends on {_clause(why_of(v))}")
    if isinstance(v, (FuncV, BoundV, BuiltinV, ClassV, PartialV, ExtV)):
        return True  # an ExtV is a library's function or class (torch.nn.GELU)
    if isinstance(v, Inst):
        return v.is_module or (isinstance(v.cls, ClassV) and v.cls.find("__call__", None) is not None)
    return callable(v) if isinstance(v, (int, float, str, bool, list, tuple, dict, type(None))) else False


# isinstance with an abstract class of the standard library: the kinds of the analyser's values
# that are its instances, as for the Python values they stand for (a formula is an int).
_ITERABLE = (tuple, list, dict, set, frozenset, str, RangeV)
_ABSTRACT_TYPES: dict[str, tuple[type, ...]] = {
    **{f"{module}.{name}": kinds for module in ("collections.abc", "typing") for name, kinds in {
        "Iterable": _ITERABLE, "Collection": _ITERABLE, "Container": _ITERABLE, "Sized": _ITERABLE,
        "Sequence": (tuple, list, str, RangeV), "MutableSequence": (list,), "Mapping": (dict,),
        "MutableMapping": (dict,), "Set": (set, frozenset), "MutableSet": (set,), "Hashable": (
            int, float, bool, str, tuple, frozenset, type(None), RangeV, ClassV, FuncV, ExtV),
        "Callable": (ClassV, FuncV, BuiltinV, BoundV, PartialV, ExtV)}.items()},
    "numbers.Number": (int, float, bool, complex), "numbers.Complex": (int, float, bool, complex),
    "numbers.Real": (int, float, bool), "numbers.Rational": (int, bool), "numbers.Integral": (int, bool),
    "types.FunctionType": (FuncV,), "types.LambdaType": (FuncV,), "functools.partial": (PartialV,),
}
_FUNCTION_TYPES = frozenset({"types.FunctionType", "types.LambdaType"})  # final classes, not abstract ones
# The abstract classes that find their instances by the methods a class defines (their
# __subclasshook__), and those that only know the classes derived from them or registered.
_ABC_METHODS = {"Iterable": ("__iter__",), "Sized": ("__len__",), "Container": ("__contains__",),
                "Collection": ("__len__", "__iter__", "__contains__"), "Callable": ("__call__",)}
_ABC_DERIVED_ONLY = frozenset({"Sequence", "MutableSequence", "Mapping", "MutableMapping", "Set", "MutableSet",
                               "Number", "Complex", "Real", "Rational", "Integral"})


def _plain_abc_answer(obj: Inst, abc: str) -> bool | None:
    """isinstance of a plain object of the code (a dataclass config: timm's ByoBlockCfg) with an
    abstract class of the standard library, where Python's answer follows from the code alone: its
    classes derive from nothing outside the project, so an ABC that only knows derived or
    registered classes (Sequence) answers False, and one that looks for methods (Iterable:
    ``__iter__``) answers whether the class defines them. None where it does not follow."""
    cls = obj.cls
    if obj.is_module and abc in _ABC_DERIVED_ONLY and (type(cls) is not ClassV or all(
            _is_object(b) or _is_module_base(b) for b in _outside_bases(cls))):
        return False  # a module of torch's classes and the code's: none is registered with the ABC
    if type(cls) is not ClassV or obj.is_module or cls.enum_members is not None:
        return None
    if not all(_is_object(b) for b in _outside_bases(cls)):
        return None
    if abc in _ABC_DERIVED_ONLY:
        return False
    methods = _ABC_METHODS.get(abc)
    if methods is None:
        return None
    return all(cls.find(m, None) is not None for m in methods)


_ABSTRACT_TYPE_MODULES = frozenset({"collections", "typing", "typing_extensions", "numbers", "types", "abc"})

# The code's own callables (a lambda, a bound method, a class): a builtin that calls one (a sort
# key) goes through the interpreter.
_CODE_CALLABLES = (FuncV, BoundV, PartialV, ClassV, BuiltinV)

_PY_TYPES: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "tuple": tuple,
                              "dict": dict, "set": set, "frozenset": frozenset, "slice": slice, "complex": complex}

_BUILTINS: dict[str, Any] = {
    "range": BuiltinV("range", _range), "len": BuiltinV("len", _len), "dir": BuiltinV("dir", _dir), "int": BuiltinV("int", _num(int)),
    "float": BuiltinV("float", _num(float)), "bool": BuiltinV("bool", lambda v=False: bool(v) if not is_unknownish(v) else Unknown(why_of(v))),
    "str": BuiltinV("str", lambda v="": _str(v)),
    "list": BuiltinV("list", _list_of), "tuple": BuiltinV("tuple", lambda v=(): tuple(_list_of(v))),
    "dict": BuiltinV("dict", lambda *a, **k: dict(*[(x if isinstance(x, dict) else list(x)) for x in a], **k)),
    "set": BuiltinV("set", lambda v=(): set(_list_of(v))),
    "frozenset": BuiltinV("frozenset", lambda v=(): frozenset(_list_of(v))),
    "min": BuiltinV("min", _minmax(min)), "max": BuiltinV("max", _minmax(max)), "sum": BuiltinV("sum", _sum),
    "abs": BuiltinV("abs", lambda v: v if isinstance(v, Sym) else abs(v)), "round": BuiltinV("round", _round),
    "enumerate": BuiltinV("enumerate", _enumerate), "zip": BuiltinV("zip", _zip),
    "reversed": BuiltinV("reversed", lambda v: IteratorV(list(reversed(_list_of(v))))),
    "sorted": BuiltinV("sorted", lambda v, **k: sorted(_list_of(v), **k)),
    "any": BuiltinV("any", lambda v: _any_all(v, True)), "all": BuiltinV("all", lambda v: _any_all(v, False)),
    "isinstance": BuiltinV("isinstance", _isinstance), "hasattr": BuiltinV("hasattr", _hasattr),
    "issubclass": BuiltinV("issubclass", _issubclass),
    "getattr": BuiltinV("getattr", _getattr), "setattr": BuiltinV("setattr", _setattr),
    "delattr": BuiltinV("delattr", lambda obj, name: _delattr(obj, name, "delattr")),
    "print": BuiltinV("print", lambda *a, **k: None), "divmod": BuiltinV("divmod", divmod),
    "pow": BuiltinV("pow", lambda a, b, *m: pow(a, b, *m) if m else a ** b if abs(b) * math.log2(max(abs(a), 2)) <= MAX_INT_BITS else _unsupported("a huge pow")()),
    # a list's iterator sees the items appended after it was made, as Python's does
    "iter": BuiltinV("iter", lambda v: v if type(v) in (IteratorV, CycleV) else IteratorV([], iter(v)) if type(v) is list
                     else IteratorV(_list_of(v))),
    "next": BuiltinV("next", _next),
    "map": BuiltinV("map", _MAP_FILTER), "filter": BuiltinV("filter", _MAP_FILTER),  # Interpreter.map_filter
    "callable": BuiltinV("callable", _callable),
    # Swin's shifted-window mask: `for h in (slice(0, -w), slice(-w, -s), slice(-s, None))`
    "slice": BuiltinV("slice", slice), "repr": BuiltinV("repr", _repr), "ascii": BuiltinV("ascii", _ascii),
    "complex": BuiltinV("complex", _num(complex)),
    # Python's own functions of Python's own values (an analyser's value is refused with Python's error).
    **{name: BuiltinV(name, getattr(builtins, name)) for name in ("ord", "chr", "bin", "hex", "oct")},
    "format": BuiltinV("format", lambda value, spec="": (_bounded_widths(
        _SPEC_NUMBER.findall(spec) if isinstance(spec, str) else [], None), format(value, spec))[1]),
    "super": None,  # filled per call site below
    "None": None, "True": True, "False": False, "NotImplemented": None,
    "object": ExtV("object"), "type": ExtV("type"), "id": BuiltinV("id", _identity),
    # `self.apply_rotary_emb = staticmethod(fn)` (rotary-embedding-torch): the function, callable as it is.
    "staticmethod": BuiltinV("staticmethod", lambda fn: fn),
    # Python's exception classes, by name: what `raise` and `except` name (see _exception_matches).
    **{name: ExtV(name) for name, value in vars(builtins).items()
       if isinstance(value, type) and issubclass(value, BaseException)},
}
for _name in _UNSAFE:
    _BUILTINS[_name] = BuiltinV(_name, _unsupported(_name))
del _name


# --- loops that only initialise weights ---------------------------------------------------------

# What a weight-initialising loop iterates over, and the calls its conditions and arguments may make.
_MODULE_WALKS = {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children"}
_PURE_CALLS = {"isinstance", "hasattr", "getattr", "len", "float", "int", "min", "max", "abs", "enumerate",
               "endswith", "startswith", "math.sqrt", "math.log", "math.pow", "sqrt"}
_INIT_CALL = re.compile(r"(?:^|\.)(?:init\.\w+|data\.(?:normal_|uniform_|zero_|fill_|copy_))$")


# What a training loop's body calls (`loss.backward()`, `optimizer.step()`, `accelerator.backward(loss)`,
# Lightning's `self.manual_backward(loss)`), or a function of its own that trains (`train_step(batch)`).
_TRAINING_CALLS = frozenset({"backward", "manual_backward", "step"})


def _trains(loop: ast.For, known: dict[int, bool], env: Env | None = None) -> bool:
    """Whether a for loop's body takes a training step: it calls a ``backward``, a ``step`` or a
    function whose name starts with ``train``, or a function of the code (named in ``env``, the
    loop's names) whose body does, two calls deep (``run_batch(model, batch)``); or it yields its
    batches (a batch generator, llama2.c's ``iter_batches``, whose batches the training loop takes
    with ``next``). ``known`` keeps the answer by the loop's id."""
    found = known.get(id(loop))
    if found is None:
        found = known[id(loop)] = _takes_a_step(loop.body, env, 2, True)
    return found


def _takes_a_step(body: list[ast.stmt], env: Env | None, depth: int, yields: bool) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if yields and type(n) in (ast.Yield, ast.YieldFrom):
                return True
            if type(n) is not ast.Call:
                continue
            func = n.func
            name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
            if name in _TRAINING_CALLS or name.startswith("train"):
                return True
            if depth and env is not None and type(func) is ast.Name:
                try:
                    helper = env.lookup(name)
                except KeyError:
                    continue
                if type(helper) is FuncV and isinstance(helper.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        _takes_a_step(helper.node.body, helper.env, depth - 1, False):
                    return True
    return False


def only_initialises(loop: ast.For) -> bool:
    """True for a loop over a module's parameters or modules whose body only calls weight
    initialisers (``nn.init.*``, ``p.data.normal_``) under side-effect-free conditions:
    running it changes no size and no requires_grad flag, so it is skipped."""
    if loop.orelse or not _pure(loop.iter, _MODULE_WALKS | _PURE_CALLS):
        return False
    if not any(isinstance(n, ast.Call) and _dotted(n.func).rsplit(".", 1)[-1] in _MODULE_WALKS
               for n in ast.walk(loop.iter)):
        return False
    return _init_block(loop.body)


def _initialises_only(body: list[ast.stmt]) -> bool:
    """A branch that only initialises values, and leaves the control flow of what holds it alone
    (no `continue` or `break`)."""
    return _init_block(body) and not any(isinstance(n, (ast.Continue, ast.Break)) for s in body for n in ast.walk(s))


def _written_values(body: list[ast.stmt]) -> list[ast.Name] | None:
    """The names a branch writes values into (`w[:, 0] = -1 * w[:, 0]`, `t[i] *= 2`) where that is all
    it does (or initialises them): if those are tensors, every shape stays as it is whichever way it
    goes. None for a branch that does anything else."""
    written: list[ast.Name] = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AugAssign):
            target, value = stmt.target, stmt.value
        else:
            if not _initialises_only([stmt]):
                return None
            continue
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and _pure(target.slice, _PURE_CALLS) and _pure(value, _PURE_CALLS)):
            return None
        written.append(target.value)  # a load of the name (the subscript is the store)
    return written


def _init_block(body: list[ast.stmt]) -> bool:
    for stmt in body:
        if isinstance(stmt, (ast.Pass, ast.Continue)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            if not _INIT_CALL.search(_dotted(call.func)):
                return False
            if not all(_pure(a, _PURE_CALLS) for a in [*call.args, *(k.value for k in call.keywords)]):
                return False
            continue
        if isinstance(stmt, ast.If) and _pure(stmt.test, _PURE_CALLS) and _init_block(stmt.body) and _init_block(stmt.orelse):
            continue
        return False
    return True


def _pure(expr: ast.expr, calls: set[str]) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(n, ast.Call):
            name = _dotted(n.func)
            if name not in calls and name.rsplit(".", 1)[-1] not in calls:
                return False
    return True


# A tokenizer's ids the code reads (`model.config.pad_token_id = tokenizer.pad_token_id`): ints.
_TOKENIZER_IDS = ("pad_token_id", "eos_token_id", "bos_token_id", "unk_token_id", "sep_token_id", "cls_token_id",
                  "mask_token_id", "vocab_size")


def _a_number(v: Sym) -> bool:
    """Whether a formula is known to stand for a number, never an object of the code: the result of
    arithmetic, or a number the analyser does not read (a tokenizer's id, a length). A bare
    constructor argument with no default (`config`) may be anything."""
    atom = v.single_atom()
    return atom is None or atom.startswith(("tokenizer.", "len("))


def _tokenizer(loader: str, hub_id: str, origin: Span | None) -> Inst:
    """``AutoTokenizer.from_pretrained(hub_id)``: an object holding no parameters, whose ids and
    vocabulary size are numbers the analyser does not read (its files are not read): a size made
    from one says so; setting one on a config (`pad_token_id`) changes no count."""
    made = Inst(loader, "tokenizer", False, origin)
    why = f"`{loader}.from_pretrained({hub_id!r})`'s files are not read by the analyser"
    for name in _TOKENIZER_IDS:
        made.attrs[name] = Sym.atom(f"tokenizer.{name}", why)
    return made


def _loaded_quantized(made: Any, kwargs: dict[str, Any], ctx: Ctx) -> Any:
    """A model ``from_pretrained`` loads with bitsandbytes (``quantization_config=BitsAndBytesConfig(
    load_in_4bit=True)``, a dict of it, ``load_in_8bit=True``), marked as transformers' quantizer
    marks it (``model.is_loaded_in_4bit = True``, which peft's prepare_model_for_kbit_training and
    trl read), with the config on its config; its parameters are the same (counted as transformers'
    ``num_parameters()`` counts a 4-bit model: each packed weight as the one it stands for)."""
    if type(made) is not Inst or not made.is_module:
        return made
    _loaded_in_dtype(made, kwargs)
    config = kwargs.get("quantization_config")
    for bits in ("4", "8"):
        if _bnb_flag(config, f"load_in_{bits}bit") or kwargs.get(f"load_in_{bits}bit") is True:
            made.attrs[f"is_loaded_in_{bits}bit"] = True
            ctx.quantized_loads += 1  # (the report looks for the mark only where a load made one)
            held = made.attrs.get("config")
            if type(held) is Inst and config is not None:
                held.attrs["quantization_config"] = config
            break
    return made


def _loaded_in_dtype(made: Inst, kwargs: dict[str, Any]) -> None:
    """``from_pretrained(..., dtype=torch.bfloat16)`` (``torch_dtype=``, the older name, where
    ``dtype`` is not given; a dtype's name as text): the floating-point parameters are loaded in it,
    as transformers loads them. ``"auto"``, transformers 5's default, is the config's own ``dtype`` /
    ``torch_dtype``; a config that names none leaves them as built (float32)."""
    given = kwargs.get("dtype")
    if given is None:
        given = kwargs.get("torch_dtype")
    if given is None or given == "auto":
        config = made.attrs.get("config")
        given = (config.attrs.get("dtype") or config.attrs.get("torch_dtype")) if type(config) is Inst else None
    if type(given) is ExtV:
        name = _dtype_argument(given)
    elif isinstance(given, str):
        name = dtype_name(f"torch.{given}")
    else:
        return
    if name in FLOATING_DTYPES:
        _dtypes_cast(made, name)


def _bnb_flag(config: Any, key: str) -> bool:
    """A flag of a BitsAndBytesConfig (transformers' keeps `load_in_4bit` as `_load_in_4bit`) or its dict."""
    if type(config) is Inst:
        return config.attrs.get(key, config.attrs.get(f"_{key}")) is True
    return isinstance(config, dict) and config.get(key) is True


def _external(dotted: str) -> Any:
    """An external name's value: a constant the analyser knows (TYPE_CHECKING), else an ExtV."""
    if dotted in _EXTERNAL_CONSTANTS:
        return _EXTERNAL_CONSTANTS[dotted]
    dtype = dtype_name(dotted)  # `torch.half` is `torch.float16`: one dtype, equal under either name
    return ExtV(f"torch.{dtype}" if dtype is not None else dotted)


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append("()")
    return ".".join(reversed(parts))
