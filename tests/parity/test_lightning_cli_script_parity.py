"""Parity for a script's LightningCLI (shims/lightning_cli.py): the model, datamodule and Trainer the
analysis builds from a command line (``--script-args``) are those Lightning's own LightningCLI builds
from it: the model's parameters, the datamodule's batch (the plan's batch) and the Trainer's
precision (the plan's dtype), for command lines hypothesis draws, options given as flags or in a
``--config`` file, and what jsonargparse refuses is refused."""

from __future__ import annotations

import json
import shlex
import textwrap
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

pytestmark = pytest.mark.parity

cli = pytest.importorskip("lightning.pytorch.cli")

SCRIPT = '''
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from lightning.pytorch.cli import LightningCLI


class Lit(L.LightningModule):
    def __init__(self, width: int = 32, depth: int = 2, bias: bool = True):
        super().__init__()
        self.net = nn.Sequential(*[nn.Linear(width, width, bias=bias) for _ in range(depth)])

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


class Data(L.LightningDataModule):
    def __init__(self, batch_size: int = 8):
        super().__init__()
        self.batch_size = batch_size

    def train_dataloader(self):
        return DataLoader(TensorDataset(torch.randn(64, 4)), batch_size=self.batch_size)


def cli_main():
    cli = LightningCLI(Lit, Data, trainer_defaults={"accelerator": "cpu", "logger": False,
                                                    "enable_checkpointing": False})


if __name__ == "__main__":
    cli_main()
'''

# Lightning's precisions as the dtype a fit trains in (the plan's dtype); not "16-mixed", which
# Lightning turns into "bf16-mixed" on a machine without a GPU, as this one is
_DTYPES = {"32-true": "float32", "32": "float32", "bf16-mixed": "bfloat16", "bf16-true": "bfloat16"}


def _lightning_builds(tmp_path, args: list[str]):
    namespace: dict = {"__name__": "script"}
    exec(compile(SCRIPT, str(tmp_path / "train.py"), "exec"), namespace)  # noqa: S102 - the test's own script
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = cli.LightningCLI(namespace["Lit"], namespace["Data"], run=False, args=args,
                                trainer_defaults={"accelerator": "cpu", "logger": False, "enable_checkpointing": False})
    return made


@st.composite
def command_lines(draw) -> tuple[dict, dict, list[str]]:
    model = {k: v for k, v in (("width", draw(st.none() | st.integers(1, 48))),
                                ("depth", draw(st.none() | st.integers(1, 4))),
                                ("bias", draw(st.none() | st.booleans()))) if v is not None}
    data = {"batch_size": draw(st.integers(1, 64))} if draw(st.booleans()) else {}
    trainer = {"precision": draw(st.sampled_from(sorted(_DTYPES)))} if draw(st.booleans()) else {}
    return model, data, trainer


def _flags(section: str, values: dict) -> list[str]:
    return [f"--{section}.{k}={json.dumps(v) if isinstance(v, bool) else v}" for k, v in values.items()]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(command_lines(), st.booleans())
def test_a_lightning_cli_script_builds_what_lightning_s_cli_builds(tmp_path, drawn, in_a_file) -> None:
    model, data, trainer = drawn
    if in_a_file:
        (tmp_path / "config.yaml").write_text(json.dumps({"model": model, "data": data, "trainer": trainer}))
        args = ["--config", "config.yaml"]
    else:
        args = _flags("model", model) + _flags("data", data) + _flags("trainer", trainer)
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    import os
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        made = _lightning_builds(tmp_path, args)
    finally:
        os.chdir(here)
    report = analyze_text(SCRIPT, str(script), AnalyzeOptions(script_args=("fit", *args)))
    (counted,) = [m for m in report.models if m.name == "cli.model in cli_main()"]
    assert counted.tree.total == sum(p.numel() for p in made.model.parameters()), report.problems
    assert counted.plan.get("mode") == "train"
    assert counted.plan.get("batch") == made.datamodule.batch_size, counted.tree.notes
    assert counted.plan.get("dtype") == _DTYPES[str(made.trainer.precision)], (made.trainer.precision, counted.tree.notes)
    # (what it was counted with, said at the `__main__` block)
    said = [p.message for p in report.problems if p.code == "LC106"]
    assert any(f"counted with the command line given (--script-args, or the project's `script-args`), "
               f"`{shlex.join(('fit', *args))}`" in m for m in said), said


@pytest.mark.parametrize("args", [["--model.bogus=3"], ["--data.width=3"], ["--nothing=1"], ["tune"]])
def test_what_lightning_s_cli_refuses_is_refused(tmp_path, args) -> None:
    with pytest.raises(SystemExit):
        _lightning_builds(tmp_path, [a for a in args if a != "tune"] or ["tune"])
    report = analyze_text(SCRIPT, str(tmp_path / "train.py"),
                          AnalyzeOptions(script_args=tuple(args) if args == ["tune"] else ("fit", *args)))
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    assert "jsonargparse exits" in problem.message, problem.message
    assert not [m for m in report.models if m.name.startswith("cli")]


def test_without_a_subcommand_the_script_says_how_to_give_one(tmp_path) -> None:
    report = analyze_text(SCRIPT, str(tmp_path / "train.py"), AnalyzeOptions())
    assert [m.name for m in report.models] == ["Lit"]  # (the class itself, with its defaults)
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    assert "LightningCLI runs the subcommand its command line names" in problem.message
    assert "--script-args gives one" in problem.message
