"""Parity for LightningCLI configs (``model: {class_path: ..., init_args: ...}``, read by
pymodel/class_configs.py): random configs of a LightningModule of the project holding a network
given by ``class_path`` (the project's, torch's), nested, with defaults left out, against
LightningCLI (jsonargparse) building the model from the same file, counted by torch. A config
jsonargparse refuses is one the analyser counts nothing of."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

pytestmark = pytest.mark.parity
pytest.importorskip("jsonargparse")

MODELS = '''import torch.nn as nn
import lightning as L


class Block(nn.Module):
    def __init__(self, dim: int, hidden: int = 8, norm: bool = False):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)
        self.norm = nn.LayerNorm(dim) if norm else nn.Identity()


class Stack(nn.Module):
    def __init__(self, first: nn.Module, second: nn.Module, depth: int = 1):
        super().__init__()
        self.first = first
        self.second = second
        self.extra = nn.ModuleList([nn.Linear(4, 4) for _ in range(depth)])


class Lit(L.LightningModule):
    def __init__(self, net: nn.Module, head: int = 2, lr: float = 1e-3):
        super().__init__()
        self.save_hyperparameters(ignore=["net"])
        self.net = net
        self.head = nn.Linear(4, head)
'''


@st.composite
def networks(draw, depth: int = 0) -> list[str]:
    """YAML lines (at indent 0) of a network given by class_path."""
    kind = draw(st.sampled_from(["block", "linear", "embedding"] + (["stack"] if depth < 2 else [])))
    if kind == "linear":
        lines = ["class_path: torch.nn.Linear", "init_args:", f"  in_features: {draw(st.integers(1, 9))}",
                 f"  out_features: {draw(st.integers(1, 9))}"]
        if draw(st.booleans()):
            lines.append("  bias: false")
        return lines
    if kind == "embedding":
        return ["class_path: torch.nn.Embedding", "init_args:", f"  num_embeddings: {draw(st.integers(1, 20))}",
                f"  embedding_dim: {draw(st.integers(1, 9))}"]
    if kind == "block":
        lines = ["class_path: lit.Block", "init_args:", f"  dim: {draw(st.integers(1, 9))}"]
        if draw(st.booleans()):
            lines.append(f"  hidden: {draw(st.integers(1, 9))}")
        if draw(st.booleans()):
            lines.append("  norm: true")
        return lines
    lines = ["class_path: lit.Stack", "init_args:"]
    for name in ("first", "second"):
        lines.append(f"  {name}:")
        lines.extend("    " + line for line in draw(networks(depth + 1)))
    if draw(st.booleans()):
        lines.append(f"  depth: {draw(st.integers(0, 3))}")
    return lines


@st.composite
def configs(draw) -> str:
    lines = ["model:", "  class_path: lit.Lit", "  init_args:", "    net:"]
    lines.extend("      " + line for line in draw(networks()))
    if draw(st.booleans()):
        lines.append(f"    head: {draw(st.integers(1, 9))}")
    if draw(st.integers(0, 9)) == 0:  # jsonargparse refuses an argument beside class_path
        lines.insert(2, "  head: 3")
    if draw(st.booleans()):
        lines = ["seed_everything: 1", "trainer:", "  max_epochs: 2", *lines]
    return "\n".join(lines) + "\n"


def _lightning_cli_count(project: pathlib.Path, config: pathlib.Path) -> int | None:
    script = f"""
import sys, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, {str(project)!r})
from lightning import LightningModule
from lightning.pytorch.cli import LightningCLI
cli = LightningCLI(LightningModule, subclass_mode_model=True, run=False, args=["--config", {str(config)!r}],
                   save_config_callback=None)
print(sum(p.numel() for p in cli.model.parameters()))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=project)
    return int(done.stdout.split()[-1]) if done.returncode == 0 else None


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_lightning_cli_configs_equal_lightning(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = pathlib.Path(tmp)
        (project / "lit.py").write_text(MODELS)
        config = project / "config.yaml"
        config.write_text(text)
        report = analyze_text(text, str(config))
        ours = [m.tree.total for m in report.models]
        theirs = _lightning_cli_count(project, config)
    assert ours == ([theirs] if theirs is not None else []), text
    assert [m.name for m in report.models] == (["Lit"] if theirs is not None else [])
