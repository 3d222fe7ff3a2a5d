"""Active parameters per token of a Python mixture-of-experts model: its ``experts`` ModuleList of
equal experts routed ``top_k`` per token (tests/parity/test_pymodel_moe_active_parity.py checks
the count against what torch's forward runs), and where the analysis does not say it."""

from __future__ import annotations

import pathlib
import textwrap

from lsp_count.core.analyze import analyze_text
from lsp_count.core.fit import estimate_compute
from lsp_count.core.memory import Settings

ROOT = pathlib.Path(__file__).resolve().parents[2]

MOE = """
import torch.nn as nn

class Expert(nn.Module):
    def __init__(self, dim=64, hidden=128):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

class MoE(nn.Module):
    def __init__(self, dim=64, n_experts=8, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim) for _ in range(n_experts)])

class Model(nn.Module):
    def __init__(self, n_layers=3):
        super().__init__()
        self.embed = nn.Embedding(100, 64)
        self.layers = nn.ModuleList([MoE() for _ in range(n_layers)])
"""

EXPERT = 2 * 64 * 128
GATE = 64 * 8


def _model(source: str, name: str):
    return next(m for m in analyze_text(textwrap.dedent(source), "/nonexistent/moe.py").models if m.name == name)


def test_a_block_s_equal_experts_routed_top_k_per_token() -> None:
    moe = _model(MOE, "MoE")
    assert moe.tree.total == GATE + 8 * EXPERT
    assert moe.tree.active == GATE + 2 * EXPERT
    group = moe.tree.root.child("experts")
    assert group is not None and group.children[0].note == "routed: 2 of 8 per token"


def test_a_model_of_moe_layers_is_active_in_each_layer() -> None:
    model = _model(MOE, "Model")
    assert model.tree.active == 100 * 64 + 3 * (GATE + 2 * EXPERT)
    # Training compute counts what a token runs: 6·N_active per token.
    assert estimate_compute(model, Settings(mode="train")).params == model.tree.active


def test_no_active_count_where_the_analysis_cannot_say_which_experts_run() -> None:
    assert _model(MOE.replace("self.top_k = top_k", "self.k = top_k"), "MoE").tree.active is None  # no top-k kept
    unequal = MOE.replace("[Expert(dim) for _ in range(n_experts)]",
                          "[Expert(dim, 128 + 64 * (i % 2)) for i in range(n_experts)]")
    assert _model(unequal, "MoE").tree.active is None  # experts of two sizes: which ones run is not known
    assert _model(MOE.replace("top_k=2", "top_k=8"), "MoE").tree.active is None  # every expert runs: no routing
    assert _model(MOE.replace("top_k=2", "top_k=None"), "MoE").tree.active is None


def test_the_top_k_on_the_block_s_config() -> None:
    source = """
    from dataclasses import dataclass
    import torch.nn as nn

    @dataclass
    class Config:
        dim: int = 32
        n_experts: int = 4
        num_experts_per_tok: int = 1

    class SparseMoE(nn.Module):
        def __init__(self, config: Config):
            super().__init__()
            self.config = config
            self.router = nn.Linear(config.dim, config.n_experts, bias=False)
            self.experts = nn.ModuleList([nn.Linear(config.dim, config.dim) for _ in range(config.n_experts)])
    """
    model = _model(source, "SparseMoE")
    assert model.tree.active == 32 * 4 + 1 * (32 * 32 + 32)


def test_the_corpus_experts_class_keeps_no_top_k() -> None:
    # tests/fixtures/pymodels/mlp.py's Experts routes in no code the analyser reads: total only.
    path = ROOT / "tests" / "fixtures" / "pymodels" / "mlp.py"
    experts = next(m for m in analyze_text(path.read_text(), str(path)).models if m.name == "Experts")
    assert experts.tree.active is None


def test_training_activations_count_the_experts_a_token_reaches() -> None:
    from lsp_count.core.memory import estimate_memory

    model = _model(MOE, "Model")
    s, b = 128, 2
    lines = {line.name: line for line in estimate_memory(model, Settings(mode="train", context=s, batch=b)).lines}
    # Per layer and token, (in + out) of the router (64 + 8) and of two experts' linears, not eight
    # (each expert keeps only the tokens routed to it): 2 bytes each, three layers.
    assert lines["activations"].bytes == 3 * 2 * s * b * ((64 + 8) + 2 * ((64 + 128) + (128 + 64)))
    assert "routed experts" in lines["activations"].detail
    # Without a top-k the block is dense to the estimate: every expert's linears.
    dense = _model(MOE.replace("self.top_k = top_k", "self.k = top_k"), "Model")
    lines = {line.name: line for line in estimate_memory(dense, Settings(mode="train", context=s, batch=b)).lines}
    assert lines["activations"].bytes == 3 * 2 * s * b * ((64 + 8) + 8 * ((64 + 128) + (128 + 64)))
