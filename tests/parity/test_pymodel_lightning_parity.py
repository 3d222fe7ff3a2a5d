"""Parity for Lightning modules: classes on ``LightningModule`` (``import lightning as L``,
``lightning.pytorch``, ``pytorch_lightning``) counted statically, where lightning is not read
(shims/lightning_module.py), against the installed lightning building them on the meta device.
Random constructors save their hyperparameters in each of Lightning's forms (all arguments,
``ignore``, names, a dict, a Namespace, twice) and size layers by arguments, ``self.hparams.x`` and
``self.hparams["x"]`` (a name not saved is Lightning's AttributeError or KeyError, which the
analysis must report, not count), freeze with ``freeze()`` / ``requires_grad_``, build or change
layers in ``configure_model()`` (called, as Lightning's Trainer calls it before training), and
subclass one another."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.parity

HEADER = '''from argparse import Namespace

import torch
import torch.nn as nn
import lightning as L
import lightning.pytorch as lp
import torchmetrics
from pytorch_lightning import LightningModule
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassF1Score
from torchmetrics.aggregation import MeanMetric

'''
BASES = ["L.LightningModule", "lp.LightningModule", "LightningModule"]
SAVES = ["", "self.save_hyperparameters()", "self.save_hyperparameters(ignore=['b'])",
         "self.save_hyperparameters(ignore='a')", "self.save_hyperparameters('a', 'c')",
         "self.save_hyperparameters({'a': a, 'd': 3})", "self.save_hyperparameters(Namespace(c=c, d=5))",
         "self.save_hyperparameters('b')\n        self.save_hyperparameters({'d': 2})"]
SIZES = ["a", "b", "c", "4", "self.hparams.a", "self.hparams.b", "self.hparams['c']", "self.hparams.d",
         "self.hparams.get('d', 6)"]
METRICS = ["", "self.acc = torchmetrics.Accuracy(task='multiclass', num_classes=c + 1)",
           "self.train_loss = MeanMetric()",
           "self.metrics = MetricCollection([torchmetrics.Accuracy(task='multiclass', num_classes=3), "
           "MulticlassF1Score(num_classes=3)])\n        self.val_metrics = self.metrics.clone(prefix='val_')",
           "self.metrics = MetricCollection({'mse': torchmetrics.MeanSquaredError(), 'r2': torchmetrics.R2Score()})"]
FREEZES = ["", "self.fc.requires_grad_(False)", "self.freeze()", "self.freeze()\n        self.unfreeze()"]
# Lightning's hook for layers built when the Trainer sets the model up (meant for sharding), which it
# calls before training: the model is what it makes.
CONFIGURES = ["", "def configure_model(self):\n        if not hasattr(self, 'extra'):\n"
                  "            self.extra = nn.Linear(3, 5)",
              "def configure_model(self):\n        self.fc.requires_grad_(False)\n"
              "        self.head = nn.Linear(7, 2)"]


@st.composite
def lightning_files(draw) -> tuple[str, list[str]]:
    classes, names = [], []
    for i in range(draw(st.integers(1, 3))):
        a, b, c = draw(st.integers(1, 9)), draw(st.integers(1, 9)), draw(st.integers(1, 9))
        fin, fout = draw(st.sampled_from(SIZES)), draw(st.sampled_from(SIZES))
        lines = [f"class Net{i}({draw(st.sampled_from(BASES))}):",
                 f"    def __init__(self, a={a}, b={b}, *, c={c}, **kwargs):",
                 "        super().__init__()",
                 f"        {draw(st.sampled_from(SAVES))}",
                 f"        self.fc = nn.Linear({fin}, {fout})",
                 f"        self.head = nn.Sequential(nn.LayerNorm({fout}), nn.Linear({fout}, 2))",
                 f"        {draw(st.sampled_from(METRICS))}",
                 f"        {draw(st.sampled_from(FREEZES))}",
                 "",
                 f"    {draw(st.sampled_from(CONFIGURES))}"]
        classes.append("\n".join(lines))
        names.append(f"Net{i}")
        if draw(st.booleans()):
            # A subclass with its own constructor: a save_hyperparameters() in the base's collects
            # the subclass constructor's arguments too (Lightning reads them off the call stack).
            e = draw(st.integers(1, 5))
            size = draw(st.sampled_from(["e", "self.hparams.e", "self.hparams.a"]))
            classes.append(f"class Sub{i}(Net{i}):\n    def __init__(self, a=2, e={e}):\n"
                           f"        super().__init__(a=a + 1, c=e)\n        self.out = nn.Linear({size}, 3)")
            names.append(f"Sub{i}")
        if draw(st.booleans()):
            # A LightningModule built in another's constructor: Lightning collects the outer one's
            # arguments too, where its frame is the caller's.
            z = draw(st.integers(1, 5))
            classes.append(f"class Holder{i}(L.LightningModule):\n    def __init__(self, z={z}):\n"
                           f"        super().__init__()\n        self.inner = Net{i}(a=z)\n"
                           f"        self.fc = nn.Linear(z, 2)")
            names.append(f"Holder{i}")
    return HEADER + "\n\n\n".join(classes) + "\n", names


def _torch_counts(text: str, names: list[str]) -> dict[str, tuple[int, int] | None]:
    """Each class's (total, trainable) as lightning builds it; None where its constructor raises."""
    import torch

    namespace: dict = {"__name__": "lightning_models"}
    exec(compile(text, "lightning_models.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
    out: dict[str, tuple[int, int] | None] = {}
    for name in names:
        try:
            with torch.device("meta"):
                module = namespace[name]()
                module.configure_model()  # (as Lightning's Trainer calls it before training)
        except (AttributeError, KeyError):
            out[name] = None
            continue
        params = list(module.parameters())
        out[name] = (sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad))
    return out


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(lightning_files())
def test_lightning_modules_count_as_lightning_builds_them(generated) -> None:
    from lsp_count.core.analyze import analyze_text

    text, names = generated
    want = _torch_counts(text, names)
    report = analyze_text(text, "lightning_models.py")
    got = {m.name: (m.tree.total, m.tree.trainable) for m in report.models}
    problems = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}
    for name in names:
        if want[name] is None:  # Lightning's AttributeError / KeyError: said, never counted
            assert name not in got and name in problems, (text, name, problems)
        else:
            assert got.get(name) == want[name], (text, name, problems)
    assert set(got) <= set(names)


def test_hyperparameters_of_a_subclass_constructor_are_collected_as_lightning_does() -> None:
    # Lightning's save_hyperparameters() in a base's constructor also collects the arguments of the
    # subclass constructor that called it (read off the call stack), the subclass's overriding.
    from lsp_count.core.analyze import analyze_text

    text = HEADER + '''class Base(L.LightningModule):
    def __init__(self, dim=8):
        super().__init__()
        self.save_hyperparameters()
        self.fc = nn.Linear(dim, self.hparams.dim)


class ReadsIt(Base):
    def __init__(self, dim=8, extra=2):
        super().__init__(dim * 2)
        self.out = nn.Linear(dim, self.hparams.extra)
'''
    want = _torch_counts(text, ["Base", "ReadsIt"])
    assert want == {"Base": (72, 72), "ReadsIt": (16 * 8 + 8 + 8 * 2 + 2, 16 * 8 + 8 + 8 * 2 + 2)}
    report = analyze_text(text, "lightning_models.py")
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want


def test_the_metrics_counted_as_holding_no_parameters_hold_none() -> None:
    # PARAMETERLESS_METRICS: each name is a torchmetrics Metric class in each module it is read from,
    # and builds (with the arguments its task needs) to a module of no parameters.
    import inspect
    import importlib
    import warnings

    import torch
    from torchmetrics import Metric

    from lsp_count.pymodel.layers import METRIC_MODULES, PARAMETERLESS_METRICS

    tries = [{}, {"task": "multiclass", "num_classes": 3}, {"num_classes": 3}, {"num_labels": 3},
             {"task": "binary"}, {"num_outputs": 1}, {"beta": 1.0, "num_classes": 3}, {"beta": 1.0, "num_labels": 3},
             {"beta": 1.0}, {"p": 2}, {"threshold": 0.5}, {"num_groups": 2}]
    tries += [{key: 0.5, **extra} for key in ("min_precision", "min_recall", "min_specificity", "min_sensitivity")
              for extra in ({}, {"num_classes": 3}, {"num_labels": 3}, {"task": "binary"})]
    modules = {name: importlib.import_module(name) for name in METRIC_MODULES}
    for name in sorted(PARAMETERLESS_METRICS):
        classes = [getattr(m, name) for m in modules.values() if inspect.isclass(getattr(m, name, None))]
        assert classes and all(issubclass(c, Metric) for c in classes), name
        for cls in set(classes):
            built = None
            for kwargs in tries:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        built = cls(**kwargs)
                    break
                except (TypeError, ValueError):
                    continue
            assert isinstance(built, torch.nn.Module), name
            assert sum(p.numel() for p in built.parameters()) == 0, name


def test_a_lightning_module_s_device_dtype_and_flags_read_in_its_constructor() -> None:
    from lsp_count.core.analyze import analyze_text

    text = HEADER + '''class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.zeros(3, device=self.device, dtype=self.dtype))
        self.scale = nn.Parameter(torch.ones(4, device=self.device))
        self.automatic_optimization = False
        self.example_input_array = torch.zeros(1, 4)
        self.fc = nn.Linear(4, 4)
'''
    want = _torch_counts(text, ["Net"])
    report = analyze_text(text, "lightning_models.py")
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want == {"Net": (24, 24)}
