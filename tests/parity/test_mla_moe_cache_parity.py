"""The KV cache of Mistral 4, LongCat-Flash, MiMo-V2-Flash and Mistral Large 4 against transformers 5: the bytes its
cache holds after a bfloat16 forward pass over random small configs (tests/parity/strategies.py). Mistral 4's latent
cache, LongCat-Flash's two attention sublayers a layer (each caching its own latent), MiMo-V2-Flash's values narrower
than its keys and its sliding layers' extra key/value heads, Mistral Large 4's layers reading an earlier layer's latent
(their indexer key alone cached), its NoPE layers' latent with no rotated key and its indexer keys."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_ssm_state_parity import _cache_bytes

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

CAUSAL_LM = {"mistral4": "Mistral4ForCausalLM", "longcat_flash": "LongcatFlashForCausalLM",
             "mimo_v2_flash": "MiMoV2FlashForCausalLM",
             # (no head class of its own: the bare model returns the cache too)
             "mistral_large4_text": "MistralLarge4TextModel"}


@st.composite
def _mimo_that_runs(draw) -> dict:
    """A MiMo-V2-Flash config whose forward pass runs on the CPU (the generic strategy's mostly cannot: widths that
    are not multiples of 8 for grouped_mm in bfloat16, more experts per token than experts, a rotary width of 0):
    full and sliding layers, dense and MoE layers in any order, values narrower or wider than the keys."""
    n = draw(st.integers(1, 4))
    kv = draw(st.sampled_from([1, 2]))
    return {"model_type": "mimo_v2_flash", "num_hidden_layers": n, "hidden_size": draw(st.sampled_from([16, 32])),
            "intermediate_size": 16, "moe_intermediate_size": 8, "n_routed_experts": 4, "num_experts_per_tok": 2,
            "num_attention_heads": kv * draw(st.sampled_from([1, 2])), "num_key_value_heads": kv,
            "head_dim": draw(st.sampled_from([8, 16])), "v_head_dim": draw(st.sampled_from([8, 16, 24])),
            "vocab_size": 32, "sliding_window": draw(st.sampled_from([16, 129])),
            "layer_types": draw(st.lists(st.sampled_from(["full_attention", "sliding_attention"]), min_size=n,
                                         max_size=n)),
            "mlp_layer_types": draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=n, max_size=n))}


@st.composite
def _mistral_large4_that_runs(draw) -> dict:
    """A Mistral Large 4 text config whose forward pass runs on the CPU: widths in multiples of 8, layers reading an
    earlier layer's latent of their own kind (rotated or NoPE: the model keeps one of each), indexer layers by
    index_topk_pattern (the first one full), dense and MoE layers."""
    n = draw(st.integers(1, 4))
    rotary = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    sources: list[int] = []
    for i in range(n):
        owners = [j for j, s in enumerate(sources) if s == j and rotary[j] == rotary[i]]
        sources.append(draw(st.sampled_from([i, *owners])))
    pattern = "F" + "".join(draw(st.lists(st.sampled_from("FS"), min_size=n - 1, max_size=n - 1)))
    return {"model_type": "mistral_large4_text", "num_hidden_layers": n, "hidden_size": draw(st.sampled_from([16, 32])),
            "intermediate_size": 16, "moe_intermediate_size": 8, "n_routed_experts": 4, "num_experts_per_tok": 2,
            "num_attention_heads": draw(st.sampled_from([1, 2])), "num_key_value_heads": 1, "vocab_size": 32,
            "kv_lora_rank": draw(st.sampled_from([8, 16])), "qk_rope_head_dim": draw(st.sampled_from([8, 16])),
            "qk_nope_head_dim": 8, "v_head_dim": 8, "index_n_heads": 2, "index_head_dim": 8,
            "first_k_dense_replace": draw(st.integers(0, 2)), "no_rope_layers": rotary, "kv_source_layers": sources,
            "index_topk_pattern": pattern}


# The generic strategies draw configs that build; these, configs whose forward pass runs too.
STRATEGIES = {"mimo_v2_flash": _mimo_that_runs(), "mistral_large4_text": _mistral_large4_that_runs()}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_the_kv_cache_is_what_transformers_cache_holds(model_type: str) -> None:
    compared = []

    @settings(max_examples=20, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(STRATEGIES.get(model_type) or strategy_for(model_type))
    def check(config: dict) -> None:
        config = {**config, "architectures": [CAUSAL_LM[model_type]]}
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assume(report.models and not report.has_errors)  # (a config transformers refuses is the other tests' matter)
        # (transformers' dynamic cache keeps window - 1 tokens of a sliding layer, lsp-count the window, as a static
        # cache and vLLM do: compared below the window)
        window = config.get("sliding_window") or config.get("sliding_window_size")
        for batch, tokens in ((1, 3), (2, 7)):
            if isinstance(window, int) and tokens >= window - 1:
                continue
            try:
                held = _cache_bytes(config, batch, tokens)
            except (RuntimeError, IndexError):  # builds, but its forward pass cannot run on the CPU
                assume(False)  # (random configs: more experts per token than experts, odd strides)
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            assert line.bytes == held, (json.dumps(config), line)
            compared.append(tokens)

    check()
    assert len(compared) >= 5, f"only {len(compared)} forward passes ran: the test compared too little"
