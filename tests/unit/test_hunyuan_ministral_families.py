"""Ministral, HunYuan dense and HunYuan MoE, without torch: totals transformers 5.25 builds on the meta
device (each number below was taken from ``sum(p.numel() for p in model.parameters())`` there first),
and the configs their classes cannot build refused at the key that says why."""

from __future__ import annotations

import json

from lsp_count.core.analyze import analyze_text

# mistralai/Ministral-8B-Instruct-2410's sizes, as a ministral config (MinistralConfig's own checkpoint).
MINISTRAL_8B = {
    "architectures": ["MinistralForCausalLM"], "model_type": "ministral", "hidden_size": 4096,
    "intermediate_size": 12288, "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
    "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 32768, "sliding_window": 32768,
    "tie_word_embeddings": False, "rms_norm_eps": 1e-05,
}


def analyze(config: dict):
    text = json.dumps(config, indent=2)
    return text, analyze_text(text, "model/config.json")


def count(config: dict):
    _text, report = analyze(config)
    assert not report.has_errors, report.problems
    return report.models[0]


def test_ministral_8b_total_and_every_layer_sliding() -> None:
    model = count(MINISTRAL_8B)
    assert model.tree.total == 8_019_808_256
    assert model.tree.components() == {"embeddings": 536_870_912, "layers": 6_946_062_336, "final_norm": 4096,
                                       "lm_head": 536_870_912}
    # MinistralConfig: every layer a sliding one while sliding_window is set (what the KV cache keeps).
    assert model.spec.values["layer_types"] == ("sliding_attention",) * 36


def test_hunyuan_dense_class_defaults_with_a_head_width() -> None:
    model = count({"model_type": "hunyuan_v1_dense", "architectures": ["HunYuanDenseV1ForCausalLM"], "head_dim": 128})
    assert model.tree.total == 8_859_684_864
    attention = model.tree.root.find("layers.attention")
    assert {"query_layernorm.weight", "key_layernorm.weight"} <= {t.name for t in attention.tensors}


def test_hunyuan_moe_per_layer_top_k_and_attribute_map_aliases() -> None:
    config = {"model_type": "hunyuan_v1_moe", "architectures": ["HunYuanMoEV1ForCausalLM"], "head_dim": 128,
              "num_experts": 8, "moe_topk": [2] * 32}
    tree = count(config).tree
    assert tree.total == 43_488_907_264
    # two of eight experts (each 3 × 4,096 × 11,008) per token in each of the 32 layers
    assert tree.active == tree.total - 32 * 6 * 3 * 4096 * 11008 == 17_517_776_896
    # attribute_map: num_local_experts and num_experts_per_tok win over num_experts and moe_topk
    aliased = count({**config, "num_experts": 3, "num_local_experts": 8, "num_experts_per_tok": 2, "moe_topk": 1}).tree
    assert (aliased.total, aliased.active) == (tree.total, tree.active)



def test_layers_routing_different_numbers_of_experts_leave_no_active_count_and_say_why_once() -> None:
    config = {"model_type": "hunyuan_v1_moe", "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
              "intermediate_size": 32, "vocab_size": 100, "num_hidden_layers": 2, "num_experts": 4, "moe_topk": [1, 2]}
    _text, report = analyze(config)
    (model,) = report.models
    assert model.tree.active is None
    (warning,) = [p for p in report.problems if p.severity == "warning"]
    assert warning.message.startswith('"moe_topk": the layers route different numbers of experts per token')


def _located(config: dict, key: str, message: str) -> None:
    text, report = analyze(config)
    assert not report.models
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert problem.code == "LC102" and message in problem.message, problem
    line = next(i for i, s in enumerate(text.splitlines()) if s.lstrip().startswith(f'"{key}"'))
    assert (problem.span.start.line, problem.span.start.column) == (line, text.splitlines()[line].index(f'"{key}"'))


def test_a_null_head_width_and_a_short_top_k_list_are_refused_at_their_keys() -> None:
    # MinistralConfig keeps head_dim None, which its attention cannot be built with (TypeError in transformers).
    _located({**MINISTRAL_8B, "head_dim": None}, "head_dim", '"head_dim": null is not a whole number')
    # HunYuanMoEV1Gate reads moe_topk[layer_idx]: a list shorter than the layers fails (IndexError).
    _located({"model_type": "hunyuan_v1_moe", "head_dim": 128, "num_hidden_layers": 4, "moe_topk": [1, 1]},
             "moe_topk", '"moe_topk": 2 entries for 4 layers')


def test_a_missing_head_width_is_an_error() -> None:
    _text, report = analyze({"model_type": "hunyuan_v1_dense"})
    assert not report.models
    assert any(p.code == "LC102" and "head_dim is not set" in p.message for p in report.problems), report.problems
