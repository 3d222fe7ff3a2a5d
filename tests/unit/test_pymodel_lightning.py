"""Lightning modules without lightning: the analyser's own LightningModule (shims/lightning_module.py)
and torchmetrics' parameterless metrics. Exact counts against lightning itself are in
tests/parity/test_pymodel_lightning_parity.py."""

from __future__ import annotations

import textwrap

from lsp_count.core.analyze import AnalyzeOptions, analyze_text


def run(src: str):
    # read_packages=(): nothing installed is read, as on a machine without lightning
    return analyze_text(textwrap.dedent(src), "lit.py", AnalyzeOptions(read_packages=()))


def test_a_lightning_tutorial_module_with_metrics_is_counted() -> None:
    report = run("""
        import torch
        import torch.nn as nn
        import lightning as L
        import torchmetrics
        from torchmetrics import MetricCollection
        from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score


        class LitMNIST(L.LightningModule):
            def __init__(self, hidden_size=64, learning_rate=2e-4, num_classes=10):
                super().__init__()
                self.save_hyperparameters()
                self.model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, self.hparams.hidden_size), nn.ReLU(),
                                           nn.Linear(hidden_size, self.hparams["num_classes"]))
                self.val_accuracy = torchmetrics.Accuracy(task="multiclass", num_classes=num_classes)
                metrics = MetricCollection([MulticlassAccuracy(num_classes), MulticlassF1Score(num_classes)])
                self.train_metrics = metrics.clone(prefix="train_")
                self.example_input_array = torch.zeros(1, 1, 28, 28)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("LitMNIST", 784 * 64 + 64 + 64 * 10 + 10)]
    assert not [p for p in report.problems if p.code == "LC101"]


def test_what_lightning_would_refuse_or_the_analyser_does_not_know_is_said() -> None:
    report = run("""
        import torch.nn as nn
        import pytorch_lightning as pl
        from torchmetrics.image.fid import FrechetInceptionDistance
        from torchmetrics import MetricCollection, Accuracy


        class NotSaved(pl.LightningModule):
            def __init__(self, width=4):
                super().__init__()
                self.save_hyperparameters(ignore=["width"])
                self.fc = nn.Linear(self.hparams.width, 2)


        class WithFid(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.fid = FrechetInceptionDistance(feature=64)
                self.fc = nn.Linear(2, 2)


        class Mixed(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.metrics = MetricCollection([Accuracy(task="binary"), FrechetInceptionDistance()])
    """)
    problems = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}
    assert report.models == ()
    assert "AttributeError" in problems["NotSaved"] and "'width'" in problems["NotSaved"], problems["NotSaved"]
    assert "torchmetrics.image.fid.FrechetInceptionDistance" in problems["WithFid"]
    assert "one given is" in problems["Mixed"]
