"""More experts per token than experts, against transformers 5: it builds the model (only the router's torch.topk
fails, in the forward pass), so lsp-count counts it with a warning, where it used to refuse the config; JetMoE's
config class refuses it, and so does lsp-count. A decoder with no MoE layer says nothing of its top-k."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict, transformers_verdict
from .strategies import strategy_for

pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# Experts in every layer (Mixtral, OLMoE), every decoder_sparse_step-th (Qwen2-MoE, Qwen3-MoE), from
# first_k_dense_replace on (Dots1, DeepSeek-V3), and JetMoE's refusal.
_FAMILIES = ["mixtral", "olmoe", "qwen2_moe", "qwen3_moe", "dots1", "deepseek_v3", "jetmoe"]


@pytest.mark.parametrize("model_type", _FAMILIES)
def test_more_experts_per_token_than_experts_is_counted_as_transformers_builds_it(model_type: str) -> None:
    fields = registry()[model_type].fields
    experts_keys, top_k_keys = fields["num_experts"].keys, fields["experts_per_token"].keys

    @settings(max_examples=3, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        if transformers_verdict(base) is None:
            return
        config = {k: v for k, v in base.items() if k not in experts_keys and k not in top_k_keys}
        config.update({experts_keys[0]: 1, top_k_keys[0]: 2})
        want = transformers_verdict(config)
        got, errors = lsp_count_verdict(config)
        assert got == want, (json.dumps(config), errors)
        problems = analyze_text(json.dumps(config), "model/config.json").problems
        said = [p for p in problems if "is more than the 1 experts" in p.message]
        assert [p.severity for p in said] == (["error"] if want is None else ["warning"] if said else [])
        if want is None:
            assert model_type == "jetmoe"

    check()


def test_a_decoder_with_no_moe_layer_says_nothing_of_its_top_k() -> None:
    config = {"model_type": "dots1", "architectures": ["Dots1ForCausalLM"], "vocab_size": 16, "hidden_size": 8,
              "intermediate_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
              "n_routed_experts": 1, "n_shared_experts": 1, "num_experts_per_tok": 2, "moe_intermediate_size": 4,
              "first_k_dense_replace": 2}
    problems = analyze_text(json.dumps(config), "model/config.json").problems
    assert not [p for p in problems if "experts" in p.message], problems
    got, errors = lsp_count_verdict(config)
    assert got == transformers_verdict(config) is not None, errors
    routed = {**config, "first_k_dense_replace": 1}
    assert [p.severity for p in analyze_text(json.dumps(routed), "model/config.json").problems
            if "is more than the 1 experts" in p.message] == ["warning"]
    assert lsp_count_verdict(routed)[0] == transformers_verdict(routed) is not None
