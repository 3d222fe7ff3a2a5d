"""Parity for models a Hydra script builds (``hydra.utils.instantiate(cfg.model)``, shims/hydra.py):
lightning-hydra-template's layout (tests/fixtures/hydra_project) counted by the analyser against
the installed Hydra composing the same configs and instantiating the model, counted by torch; and
random model configs (nested ``_target_``s of the project and of torch, ``_args_``, ``_partial_``,
``_recursive_: false``, ``_convert_``, keyword arguments given to instantiate, interpolations)
written as a script with ``@hydra.main``, and the model config file opened by itself, against
Hydra running the same instantiate."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

pytestmark = pytest.mark.parity
pytest.importorskip("hydra")

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "hydra_project"


def _counts(path: pathlib.Path) -> dict[str, int]:
    report = analyze_text(path.read_text(), str(path))
    return {m.name: m.tree.total for m in report.models}


def _hydra_count(project: pathlib.Path, config_dir: str, config_name: str, code: str,
                 overrides: tuple[str, ...] = ()) -> int | None:
    """Hydra composing ``config_name`` and running ``code`` (which sets ``model``) in a fresh
    process with the project on its path; torch's count of the model (None where it raises)."""
    script = f"""
import os, sys
sys.path.insert(0, {str(project)!r})
os.environ.setdefault("PROJECT_ROOT", {str(project)!r})
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from omegaconf import OmegaConf
with initialize_config_dir(version_base="1.3", config_dir={config_dir!r}):
    cfg = compose(config_name={config_name!r}, overrides={list(overrides)!r})
    {code}
print(sum(p.numel() for p in model.parameters()))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    return int(done.stdout.split()[-1]) if done.returncode == 0 else None


def test_lightning_hydra_template_equals_hydra() -> None:
    ours = _counts(FIXTURE / "src" / "train.py")
    theirs = _hydra_count(FIXTURE, str(FIXTURE / "configs"), "train.yaml", "model = instantiate(cfg.model)")
    assert ours == {"model in train()": theirs} == {"model in train()": 67_978}
    for config in ("model/mnist.yaml", "train.yaml"):  # the model's config, the primary config: opened by themselves
        assert _counts(FIXTURE / "configs" / config) == {"MNISTLitModule": theirs}
    # an experiment (a global config that overrides groups listed before it), as `train.py experiment=example`
    experiment = _hydra_count(FIXTURE, str(FIXTURE / "configs"), "train.yaml", "model = instantiate(cfg.model)",
                              ("experiment=example",))
    assert _counts(FIXTURE / "configs" / "experiment" / "example.yaml") == {"MNISTLitModule": experiment} == {
        "MNISTLitModule": 151_498}


MODELS = '''import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, hidden=None, norm=None):
        super().__init__()
        self.up = nn.Linear(dim, hidden or 2 * dim)
        self.down = nn.Linear(hidden or 2 * dim, dim)
        self.norm = norm(dim) if norm is not None else nn.Identity()


class Net(nn.Module):
    def __init__(self, block, depth=2, head=None, dims=None):
        super().__init__()
        self.blocks = nn.ModuleList([block for _ in range(depth)]) if isinstance(block, nn.Module) else \\
            nn.ModuleList([block() for _ in range(depth)])
        self.head = head
        self.extra = nn.ModuleList([nn.Linear(d, d) for d in dims]) if dims else None


class FromConfig(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        from hydra.utils import instantiate
        self.inner = instantiate(cfg.inner) if "inner" in cfg else nn.Linear(cfg.dim, cfg.dim)
        self.size = cfg["dim"]
'''


@st.composite
def model_configs(draw) -> tuple[int, str, str]:
    """(the config's `dim`, conf/model/m.yaml, the instantiate call's extra keyword arguments)."""
    dim = draw(st.integers(1, 12))
    kind = draw(st.sampled_from(["net", "block", "from_config", "sequential", "linear"]))
    lines: list[str] = []
    extra = ""
    if kind == "linear":
        lines = ["_target_: torch.nn.Linear", f"in_features: {dim}", f"out_features: {draw(st.integers(1, 9))}"]
        if draw(st.booleans()):
            lines.append("bias: false")
    elif kind == "block":
        lines += ["_target_: models.Block", "dim: ${dim}", "hidden: " + str(draw(st.integers(1, 9)))]
        if draw(st.booleans()):
            lines += ["norm:", "  _target_: torch.nn.LayerNorm", "  _partial_: true"]
    elif kind == "sequential":
        lines += ["_target_: torch.nn.Sequential", "_args_:",
                  "  - _target_: torch.nn.Linear", "    in_features: ${dim}", "    out_features: 3",
                  "  - _target_: torch.nn.ReLU",
                  "  - _target_: torch.nn.Linear", "    in_features: 3", f"    out_features: {draw(st.integers(1, 5))}"]
    elif kind == "from_config":
        lines += ["_target_: models.FromConfig", "_recursive_: false", "cfg:", "  dim: ${dim}"]
        if draw(st.booleans()):
            lines += ["  inner:", "    _target_: torch.nn.Embedding", "    num_embeddings: 7", "    embedding_dim: ${dim}"]
    else:
        lines += ["_target_: models.Net", f"depth: {draw(st.integers(1, 3))}", "block:", "  _target_: models.Block",
                  "  dim: ${dim}"]
        if draw(st.booleans()):
            lines.append("  _partial_: true")
        if draw(st.booleans()):
            lines += ["head:", "  _target_: torch.nn.Linear", "  in_features: ${dim}", "  out_features: 2"]
        if draw(st.booleans()):
            lines += ["dims: [2, 3]", "_convert_: all"]
        if draw(st.booleans()):
            extra = ", depth=" + str(draw(st.integers(1, 3)))
    return dim, "\n".join(lines) + "\n", extra


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(model_configs())
def test_random_model_configs_equal_hydra(case: tuple[int, str, str]) -> None:
    dim, model_yaml, extra = case
    with tempfile.TemporaryDirectory() as tmp:
        project = pathlib.Path(tmp)
        (project / "conf" / "model").mkdir(parents=True)
        (project / "models.py").write_text(MODELS)
        (project / "conf" / "config.yaml").write_text(f"defaults:\n  - model: m\n  - _self_\ndim: {dim}\n")
        (project / "conf" / "model" / "m.yaml").write_text(model_yaml)
        script = project / "train.py"
        script.write_text(f'''import hydra
from omegaconf import DictConfig


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    model = hydra.utils.instantiate(cfg.model{extra})
    return model


if __name__ == "__main__":
    main()
''')
        ours = _counts(script)
        # the config file opened by itself, counted in config.yaml with it chosen (no keyword arguments there)
        config_file = _counts(project / "conf" / "model" / "m.yaml")
        theirs = _hydra_count(project, str(project / "conf"), "config", f"model = instantiate(cfg.model{extra})")
        plain = _hydra_count(project, str(project / "conf"), "config", "model = instantiate(cfg.model)") if extra \
            else theirs
    # where Hydra raises (an argument the class does not take), the analyser reports no count
    assert ours == ({"model in main()": theirs} if theirs is not None else {}), model_yaml
    assert list(config_file.values()) == ([plain] if plain is not None else []), model_yaml
