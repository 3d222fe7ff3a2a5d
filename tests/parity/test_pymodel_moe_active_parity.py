"""Parity of a Python mixture-of-experts model's active parameters with what torch runs: hypothesis
writes an MoE model (a router, a ModuleList of equal experts, optionally a shared expert, its top-k
kept on the block as ``top_k`` or on a config dataclass as ``num_experts_per_tok``), the analyser
counts its active parameters per token from the file, and torch runs the model's forward on one
token with a hook on each expert: the active count is every parameter but those of the experts
the token did not reach. The file is run here, in the test; the analyser only reads it."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from .meta_count import run_source

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

SOURCE = '''
from dataclasses import dataclass
import torch
import torch.nn as nn

@dataclass
class MoEConfig:
    dim: int = {dim}
    hidden: int = {hidden}
    n_experts: int = {experts}
    num_experts_per_tok: int = {top_k}

class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden, bias={bias})
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))

class MoE(nn.Module):
    def __init__(self, config: MoEConfig):
        super().__init__()
        {keep}
        self.router = nn.Linear(config.dim, config.n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(config.dim, config.hidden) for _ in range(config.n_experts)])
        {shared}

    def forward(self, x):
        weights, chosen = torch.topk(self.router(x).softmax(-1), {k_read}, dim=-1)
        out = torch.zeros_like(x)
        for token in range(x.shape[0]):
            for w, e in zip(weights[token], chosen[token]):
                out[token] += w * self.experts[int(e)](x[token])
        if {has_shared}:
            out = out + self.shared(x)
        return out
'''

KEEPS = {"block": ("self.top_k = config.num_experts_per_tok", "self.top_k"),
         "config": ("self.config = config", "self.config.num_experts_per_tok")}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experts=st.integers(2, 8), data=st.data(), dim=st.integers(1, 16), hidden=st.integers(1, 16),
       bias=st.booleans(), keep=st.sampled_from(sorted(KEEPS)), shared=st.booleans())
def test_active_parameters_are_those_a_token_runs(experts: int, data: st.DataObject, dim: int, hidden: int,
                                                   bias: bool, keep: str, shared: bool) -> None:
    top_k = data.draw(st.integers(1, experts - 1), label="top_k")
    kept, read = KEEPS[keep]
    source = textwrap.dedent(SOURCE).format(
        dim=dim, hidden=hidden, experts=experts, top_k=top_k, bias=bias, keep=kept, k_read=read,
        shared="self.shared = Expert(config.dim, config.hidden)" if shared else "", has_shared=shared)
    report = analyze_text(source, "/nonexistent/moe.py")
    model = next(m for m in report.models if m.name == "MoE")

    module = run_source(source, "moe_active")
    built = module.MoE(module.MoEConfig())
    ran: set[int] = set()
    for i, expert in enumerate(built.experts):
        expert.register_forward_hook(lambda _m, _i, _o, i=i: ran.add(i))
    with torch.no_grad():
        built(torch.randn(1, dim))
    assert len(ran) == top_k
    total = sum(p.numel() for p in built.parameters())
    idle = sum(p.numel() for i, e in enumerate(built.experts) if i not in ran for p in e.parameters())
    assert model.tree.total == total
    assert model.tree.active == total - idle


FUSED = '''
import torch
import torch.nn as nn

class Experts(nn.Module):
    def __init__(self, n, dim, hidden):
        super().__init__()
        self.w_in = nn.Parameter(torch.randn(n, hidden, dim))
        self.w_out = nn.Parameter(torch.randn(n, dim, hidden))
        if {bias}:
            self.b_in = nn.Parameter(torch.zeros(n, hidden))
        if {scale}:
            self.scale = nn.Parameter(torch.ones(n))

    def forward(self, x, e):
        h = x @ self.w_in[e].T
        if {bias}:
            h = h + self.b_in[e]
        out = torch.relu(h) @ self.w_out[e].T
        return out * self.scale[e] if {scale} else out

class Router(nn.Module):
    def __init__(self, dim, n, k):
        super().__init__()
        {router_keep}
        self.proj = nn.Linear(dim, n, bias=False)

class MoE(nn.Module):
    def __init__(self, dim={dim}, hidden={hidden}, n={experts}, k={top_k}):
        super().__init__()
        {block_keep}
        self.router = Router(dim, n, k)
        self.experts = Experts(n, dim, hidden)
        self.ran = []

    def forward(self, x):
        weights, chosen = torch.topk(self.router.proj(x).softmax(-1), {k_read}, dim=-1)
        out = torch.zeros_like(x)
        for token in range(x.shape[0]):
            for w, e in zip(weights[token], chosen[token]):
                self.ran.append(int(e))
                out[token] += w * self.experts(x[token], int(e))
        return out
'''

FUSED_KEEPS = {"block": ("self.top_k = k", "pass", "self.top_k"),
               "router": ("pass", "self.top_k = k", "self.router.top_k")}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experts=st.integers(2, 8), data=st.data(), dim=st.integers(1, 16), hidden=st.integers(1, 16),
       bias=st.booleans(), scale=st.booleans(), keep=st.sampled_from(sorted(FUSED_KEEPS)))
def test_fused_experts_active_parameters_are_those_a_token_runs(experts: int, data: st.DataObject, dim: int,
                                                                hidden: int, bias: bool, scale: bool,
                                                                keep: str) -> None:
    """Experts fused into tensors that stack them on the first dimension (as transformers 5's),
    the top-k kept on the block or on the router beside the experts."""
    top_k = data.draw(st.integers(1, experts - 1), label="top_k")
    block_keep, router_keep, read = FUSED_KEEPS[keep]
    source = textwrap.dedent(FUSED).format(dim=dim, hidden=hidden, experts=experts, top_k=top_k, bias=bias,
                                           scale=scale, block_keep=block_keep, router_keep=router_keep, k_read=read)
    report = analyze_text(source, "/nonexistent/fused_moe.py")
    model = next(m for m in report.models if m.name == "MoE")

    built = run_source(source, "fused_moe_active").MoE()
    with torch.no_grad():
        built(torch.randn(1, dim))
    assert len(set(built.ran)) == top_k
    total = sum(p.numel() for p in built.parameters())
    idle = (experts - top_k) * sum(p.numel() // experts for p in built.experts.parameters())
    assert model.tree.total == total
    assert model.tree.active == total - idle
