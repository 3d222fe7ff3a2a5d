"""An experts count of 0 (``"num_local_experts": 0``), against transformers 5: its config classes take it and
build the model, where lsp-count used to refuse it ("must be at least 1"). A family's ``without_experts`` switch
says how: "moe" (the MoE layers keep their blocks, with a router of no outputs, no experts and their shared
experts: Mixtral, DeepSeek, Switch Transformers), "dense" (the layers take the dense MLP: Qwen-MoE's
``num_experts > 0`` test), "refused" (JetMoE's config class refuses it). Each experts key of each family is
written as 0 over random configs; the families are those whose experts count a config key sets."""

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

_FAMILIES = sorted(m for m, f in registry().items() if "num_experts" in f.fields and f.fields["num_experts"].keys)


def test_the_families_cover_every_way_of_building_no_experts() -> None:
    switches = {registry()[m].fields["without_experts"].default for m in _FAMILIES
                if "without_experts" in registry()[m].fields}
    assert switches == {"moe", "dense", "refused"}
    assert len(_FAMILIES) >= 40


@pytest.mark.parametrize("model_type", _FAMILIES)
def test_zero_experts_is_counted_as_transformers_builds_it(model_type: str) -> None:
    keys = registry()[model_type].fields["num_experts"].keys
    compared: list[str] = []

    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        if transformers_verdict(base) is None:
            return
        for key in keys:
            config = {k: v for k, v in base.items() if k not in keys}
            config[key] = 0
            want = transformers_verdict(config)
            got, errors = lsp_count_verdict(config)
            assert got == want, (key, json.dumps(config), errors)
            compared.append(key)

    check()
    assert compared, "no drawn config that transformers builds"


def _counts(config: dict) -> tuple[int | None, list[tuple[str, str]]]:
    report = analyze_text(json.dumps(config), "model/config.json")
    said = [(p.severity, p.message) for p in report.problems if "experts" in p.message]
    return (report.models[0].tree.total if report.models else None), said


_SMALL = {"vocab_size": 32, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
          "num_attention_heads": 2, "num_key_value_heads": 1, "num_experts_per_tok": 2}


def test_mixtral_with_no_experts_keeps_its_empty_blocks() -> None:
    """Mixtral's MoE blocks stay (a router of 0 outputs, 0 experts: no parameters), where a dense MLP
    (3 · 16 · 24 per layer) would be counted if 0 meant "no MoE"; the top-k is more than the experts, which only
    the forward pass refuses: a warning."""
    config = {"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], **_SMALL, "num_local_experts": 0}
    total, said = _counts(config)
    assert total == transformers_verdict(config) is not None
    with_one = {**config, "num_local_experts": 1, "num_experts_per_tok": 1}
    assert transformers_verdict(with_one) - total == 2 * (3 * 16 * 24 + 16)  # one expert and its router row per layer
    assert [s for s, _ in said] == ["warning"] and "more than the 0 experts" in said[0][1]
    # (said at the experts key where the top-k is the class default: no key of its own to point at)
    text = json.dumps({k: v for k, v in config.items() if k != "num_experts_per_tok"})
    (warning,) = [p for p in analyze_text(text, "model/config.json").problems if "0 experts" in p.message]
    assert warning.span.start.column == text.index('"num_local_experts"')


def test_qwen2_moe_with_no_experts_takes_the_dense_mlp() -> None:
    config = {"model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"], **_SMALL, "num_experts": 0,
              "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8}
    total, said = _counts(config)
    assert total == transformers_verdict(config) is not None
    assert not said  # no layer routes: nothing to say of the top-k
    dense = {**config, "num_experts": 1, "mlp_only_layers": [0, 1]}
    assert transformers_verdict(dense) == total


def test_deepseek_v3_with_no_routed_experts_keeps_its_shared_experts() -> None:
    config = {"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], **_SMALL,
              "n_routed_experts": 0, "n_shared_experts": 2, "moe_intermediate_size": 8, "first_k_dense_replace": 1,
              "q_lora_rank": 8, "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4,
              "n_group": 1, "topk_group": 1}
    total, _ = _counts(config)
    assert total == transformers_verdict(config) is not None


def test_jetmoe_refuses_no_experts_as_its_config_class_does() -> None:
    config = {"model_type": "jetmoe", "architectures": ["JetMoeForCausalLM"], "vocab_size": 32, "hidden_size": 16,
              "num_hidden_layers": 2, "num_key_value_heads": 2, "kv_channels": 4, "intermediate_size": 24,
              "num_local_experts": 0, "num_experts_per_tok": 1}
    assert transformers_verdict(config) is None
    got, errors = lsp_count_verdict(config)
    assert got is None and any("num_local_experts" in e for e in errors), errors
