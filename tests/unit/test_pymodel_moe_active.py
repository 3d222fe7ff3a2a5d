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


FUSED = """
import torch
import torch.nn as nn

class Experts(nn.Module):
    def __init__(self, n=4, dim=16, hidden=32):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.empty(n, 2 * hidden, dim))
        self.down_proj = nn.Parameter(torch.empty(n, dim, hidden))

class Router(nn.Module):
    def __init__(self, n=4, dim=16, k=2):
        super().__init__()
        self.top_k = k
        self.weight = nn.Parameter(torch.empty(n, dim))

class SparseMoeBlock(nn.Module):
    def __init__(self, n=4, k=2):
        super().__init__()
        self.gate = Router(n, 16, k)
        self.experts = Experts(n)
"""

FUSED_EXPERT = 2 * 32 * 16 + 16 * 32
ROUTER = 4 * 16


def test_fused_experts_are_one_expert_s_tensors_repeated() -> None:
    block = _model(FUSED, "SparseMoeBlock")
    assert block.tree.total == ROUTER + 4 * FUSED_EXPERT
    assert block.tree.active == ROUTER + 2 * FUSED_EXPERT  # the router keeps the top-k
    experts = block.tree.root.child("experts")
    assert experts is not None and (experts.repeat, experts.active_repeat) == (4, 2)
    assert [t.shape for t in experts.tensors] == [(64, 16), (16, 32)]
    assert experts.note == "4 experts stacked in each tensor; routed: 2 of 4 per token"
    # The experts module counted alone keeps no top-k: its total only.
    assert _model(FUSED, "Experts").tree.active is None


def test_no_active_count_for_fused_tensors_the_analysis_cannot_split() -> None:
    other = FUSED.replace("self.down_proj = nn.Parameter(torch.empty(n, dim, hidden))",
                          "self.down_proj = nn.Parameter(torch.empty(dim, hidden))")
    assert _model(other, "SparseMoeBlock").tree.active is None  # one tensor is not stacked by expert
    assert _model(FUSED.replace("n=4, k=2", "n=4, k=4"), "SparseMoeBlock").tree.active is None  # all run
    assert _model(FUSED.replace("self.top_k = k", "self.k = k"), "SparseMoeBlock").tree.active is None


def test_frozen_fused_experts_stay_frozen_and_routed() -> None:
    frozen = FUSED.replace("self.experts = Experts(n)", "self.experts = Experts(n)\n        self.experts.requires_grad_(False)")
    block = _model(frozen, "SparseMoeBlock")
    assert block.tree.active == ROUTER + 2 * FUSED_EXPERT
    assert block.tree.trainable == ROUTER


def test_the_top_k_on_the_router_s_config() -> None:
    # Gemma 4 keeps it as config.top_k_experts on the router, which keeps its config.
    source = """
    from dataclasses import dataclass
    import torch
    import torch.nn as nn

    @dataclass
    class Config:
        num_experts: int = 8
        top_k_experts: int = 3

    class Router(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.proj = nn.Linear(16, config.num_experts, bias=False)

    class Layer(nn.Module):
        def __init__(self, config: Config):
            super().__init__()
            self.router = Router(config)
            self.experts = nn.ModuleList([nn.Linear(16, 16, bias=False) for _ in range(config.num_experts)])
    """
    assert _model(source, "Layer").tree.active == 16 * 8 + 3 * 16 * 16


def test_equal_experts_in_a_module_dict_are_routed_too() -> None:
    source = MOE.replace("nn.ModuleList([Expert(dim) for _ in range(n_experts)])",
                         'nn.ModuleDict({f"expert_{i}": Expert(dim) for i in range(n_experts)})')
    moe = _model(source, "MoE")
    assert (moe.tree.total, moe.tree.active) == (GATE + 8 * EXPERT, GATE + 2 * EXPERT)
    group = moe.tree.root.child("experts").children[0]
    assert (group.name, group.repeat, group.active_repeat) == ("expert_0-expert_7", 8, 2)
