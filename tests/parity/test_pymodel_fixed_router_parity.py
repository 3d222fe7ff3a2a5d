"""Parity of the active parameters of transformers' mixture-of-experts models whose router's class
fixes how many experts a token runs and keeps no top-k: Switch Transformers' top-1 router and
NLLB-MoE's top-2 router, each beside a ModuleDict of equal experts. The analyser counts a small
model of each from a Python file on the installed transformers; torch builds the same model with
random weights, runs one token through encoder and decoder, forward and backward, and the experts
whose parameters got a gradient are those the token ran: the active count is every parameter but
the other experts'. The file is run here, in the test; the analyser only reads it."""

from __future__ import annotations

import logging
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from .meta_count import run_source

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.parity

# family: (config class, model class, experts per token its router runs, the config's keys)
FAMILIES = {
    "switch_transformers": ("SwitchTransformersConfig", "SwitchTransformersForConditionalGeneration", 1,
                            lambda layers, experts: {
                                "vocab_size": 64, "d_model": 16, "d_kv": 4, "d_ff": 24, "num_heads": 2,
                                "num_layers": layers, "num_decoder_layers": layers, "num_experts": experts,
                                "num_sparse_encoder_layers": 1, "num_sparse_decoder_layers": 1}),
    "nllb_moe": ("NllbMoeConfig", "NllbMoeForConditionalGeneration", 2,
                 lambda layers, experts: {
                     "vocab_size": 64, "d_model": 16, "encoder_ffn_dim": 24, "decoder_ffn_dim": 24,
                     "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_layers": layers,
                     "decoder_layers": layers, "num_experts": experts, "encoder_sparse_step": 1,
                     "decoder_sparse_step": 1, "max_position_embeddings": 32}),
}

SOURCE = '''
from transformers import {config}, {model}

CONFIG = {config}({kwargs})


class Small({model}):
    def __init__(self, config=CONFIG):
        super().__init__(config)
'''


def _torch_counts(source: str) -> tuple[int, int, set[int]]:
    """(total, active, how many experts ran in each sparse layer) by torch: one token through the
    model with random weights (in eval mode: no jitter, no token dropout); an expert ran where its
    parameters got a gradient."""
    logging.getLogger("transformers").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = run_source(source, "fixed_router_moe").Small()
    model.eval()
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    token = torch.tensor([[3]])
    model(input_ids=token, decoder_input_ids=token).logits.float().sum().backward()
    total = sum(p.numel() for p in model.parameters())
    idle, ran = 0, set()
    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] != "experts":
            continue
        used = 0
        for expert in module.values():
            if any(p.grad is not None and bool((p.grad != 0).any()) for p in expert.parameters()):
                used += 1
            else:
                idle += sum(p.numel() for p in expert.parameters())
        ran.add(used)
    return total, total - idle, ran


def _check(family: str, layers: int, experts: int) -> None:
    config, model, top_k, keys = FAMILIES[family]
    kwargs = keys(layers, experts)
    source = SOURCE.format(config=config, model=model, kwargs=", ".join(f"{k}={v!r}" for k, v in kwargs.items()))
    report = analyze_text(source, "/nonexistent/small_moe.py")
    counted = next(m for m in report.models if m.name == "Small")
    total, active, ran = _torch_counts(source)
    assert ran == {top_k}  # each sparse layer's token ran the router's fixed number of experts
    assert counted.tree.total == total
    assert counted.tree.active == active


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_fixed_top_k_router_s_active_parameters_are_those_a_token_runs(family: str) -> None:
    _check(family, 2, 4)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(sorted(FAMILIES)), layers=st.integers(1, 3), experts=st.integers(3, 6))
def test_random_small_fixed_router_models(family: str, layers: int, experts: int) -> None:
    _check(family, layers, experts)
