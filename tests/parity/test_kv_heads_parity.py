"""Key/value heads that do not divide the query heads (``"num_attention_heads": 4, "num_key_value_heads": 3``),
against transformers 5: it builds the model in nearly every family (only the attention's forward pass cannot share
the key/value heads among the query heads), so lsp-count counts it with a warning, where it used to refuse the
config. A family whose config class refuses it says so in its row (``kv_heads_not_dividing``: Beam), and
RecurrentGemma's refuses more key/value heads than query heads. Each family's key/value heads are written as one
more than its query heads, and as one fewer, over random configs."""

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

_FAMILIES = sorted(m for m, f in registry().items()
                   if "num_kv_heads" in f.fields and f.fields["num_kv_heads"].keys and strategy_for(m) is not None)


def _heads(config: dict) -> tuple[int, int] | None:
    """(query heads, key/value heads) as lsp-count reads the config; None where it counts no model."""
    report = analyze_text(json.dumps(config), "model/config.json")
    spec = report.models[0].spec if report.models else None
    if spec is None:
        return None
    heads, kv = spec.values.get("num_heads"), spec.values.get("num_kv_heads")
    return (heads, kv) if type(heads) is int and type(kv) is int else None


def _said(config: dict) -> list[str]:
    return [p.severity for p in analyze_text(json.dumps(config), "model/config.json").problems
            if "must divide num_attention_heads" in p.message]


@pytest.mark.parametrize("model_type", _FAMILIES)
def test_key_value_heads_not_dividing_the_query_heads_are_counted_as_transformers_builds_them(model_type: str) -> None:
    keys = registry()[model_type].fields["num_kv_heads"].keys
    compared: list[int] = []

    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        read = _heads(base)
        if read is None or transformers_verdict(base) is None:
            return
        heads, _kv = read
        written = next((k for k in keys if k in base), keys[0])
        for kv in (heads + 1, heads - 1):
            if kv < 1 or heads % kv == 0:
                continue
            config = {k: v for k, v in base.items() if k not in keys}
            config[written] = kv
            want = transformers_verdict(config)
            want = want if isinstance(want, int) else None  # (refused, RoPE's check included)
            got, errors = lsp_count_verdict(config)
            assert got == want, (written, kv, json.dumps(config), errors)
            if want is not None:
                assert set(_said(config)) <= {"warning"}, errors
            compared.append(kv)

    check()
    if model_type not in ("gpt_bigcode",):  # (whose key/value heads multi_query sets: no written key reaches them)
        assert compared, "no drawn config that transformers builds"


def test_llama_counts_three_key_value_heads_for_four_query_heads_with_a_warning() -> None:
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 32, "hidden_size": 16,
              "intermediate_size": 24, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 3,
              "head_dim": 4}
    got, errors = lsp_count_verdict(config)
    assert got == transformers_verdict(config) is not None and not errors
    problems = [p for p in analyze_text(json.dumps(config), "model/config.json").problems
                if "must divide" in p.message]
    assert [(p.severity, p.code) for p in problems] == [("warning", "LC103")]
    assert "transformers builds the model (counted)" in problems[0].message


@pytest.mark.parametrize(("heads", "kv"), [(4, 3), (2, 3)])
def test_the_families_whose_config_class_refuses_them_refuse_them(heads: int, kv: int) -> None:
    beam = {"model_type": "beam", "architectures": ["BeamForCausalLM"], "vocab_size": 32, "hidden_size": 16,
            "intermediate_size": 24, "num_hidden_layers": 1, "num_attention_heads": heads, "num_key_value_heads": kv,
            "head_dim": 4, "num_experts": 2, "moe_intermediate_size": 8}
    assert transformers_verdict(beam) is None
    assert lsp_count_verdict(beam)[0] is None and _said(beam) == ["error"]
    gemma = {"model_type": "recurrent_gemma", "architectures": ["RecurrentGemmaForCausalLM"], "vocab_size": 32,
             "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 3, "lru_width": 16,
             "num_attention_heads": heads, "num_key_value_heads": kv}
    # RecurrentGemmaConfig refuses more key/value heads than query heads, and takes fewer
    assert (transformers_verdict(gemma) is None) == (kv > heads)
    got, errors = lsp_count_verdict(gemma)
    assert got == transformers_verdict(gemma), errors
