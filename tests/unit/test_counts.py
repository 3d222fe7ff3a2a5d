"""Counts for well-known models, without torch: published sizes we must reproduce to the parameter."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text

LLAMA3_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "tie_word_embeddings": False,
}


def count(config: dict):
    report = analyze_text(json.dumps(config), "m/config.json")
    assert not report.has_errors, report.problems
    return report.models[0].tree


def test_llama3_8b_total_and_components() -> None:
    tree = count(LLAMA3_8B)
    assert tree.total == 8_030_261_248
    assert tree.components() == {"embeddings": 525_336_576, "layers": 6_979_584_000, "final_norm": 4096, "lm_head": 525_336_576}
    assert tree.active is None and tree.trainable == tree.total


def test_tied_head_counts_once() -> None:
    untied = count(LLAMA3_8B)
    tied = count({**LLAMA3_8B, "tie_word_embeddings": True})
    assert untied.total - tied.total == 128256 * 4096


def test_gpt2_defaults_and_n_inner_null() -> None:
    assert count({"model_type": "gpt2", "n_inner": None}).total == 124_439_808


def test_mixtral_active_params() -> None:
    tree = count({"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "vocab_size": 32000})
    assert tree.total == 46_702_792_704
    # two of eight experts per token: total minus six experts' MLPs in every layer
    expert = 3 * 4096 * 14336
    assert tree.active == tree.total - 32 * 6 * expert


def test_gemma_ties_head_by_default() -> None:
    tree = count({"model_type": "gemma"})
    assert tree.root.child("lm_head").total == 0
    assert "tied" in tree.root.child("lm_head").note


def test_qwen2_has_qkv_biases_without_a_key() -> None:
    base = {"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
            "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 10}
    attention = count(base).root.find("layers.attention")
    assert {t.name for t in attention.tensors} >= {"q_proj.bias", "k_proj.bias", "v_proj.bias"}
    assert "o_proj.bias" not in {t.name for t in attention.tensors}


@pytest.mark.parametrize("head_dim", [64, 128, 256])
def test_explicit_head_dim_is_used(head_dim: int) -> None:
    cfg = {"model_type": "qwen3", "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 8,
           "head_dim": head_dim, "num_hidden_layers": 1, "intermediate_size": 3072, "vocab_size": 100}
    attention = count(cfg).root.find("layers.attention")
    shapes = {t.name: t.shape for t in attention.tensors}
    assert shapes["q_proj.weight"] == (16 * head_dim, 1024)
    assert shapes["k_proj.weight"] == (8 * head_dim, 1024)
    assert shapes["q_norm.weight"] == (head_dim,)


def test_deepseek_v3_defaults_match_published_size_without_mtp() -> None:
    tree = count({"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"]})
    # The published 671,026,419,200 also counts 58 × 256 router correction biases, which
    # transformers registers as buffers, not parameters.
    assert tree.total == 671_026_419_200 - 58 * 256
    assert any("multi-token-prediction" in n for n in tree.notes)


def test_source_spans_point_at_the_key() -> None:
    text = '{\n  "model_type": "llama",\n  "num_hidden_layers": 2\n}'
    report = analyze_text(text, "config.json")
    layers = report.models[0].tree.root.child("layers")
    assert layers.source.start.line == 2 and layers.key == "num_layers"


def test_a_config_warning_keeps_its_severity_and_is_said_once() -> None:
    report = analyze_text(json.dumps({**LLAMA3_8B, "architectures": ["LlamaForTokenClassification"]}), "m/config.json")
    warnings = [p for p in report.problems if "is not modelled" in p.message]
    assert [p.severity for p in warnings] == ["warning"]
    assert not any("is not modelled" in n for n in report.models[0].tree.notes)


def test_param_node_constructor_sets_every_field() -> None:
    # ParamNode has a hand-written __init__ (speed); it must take and set exactly the fields.
    import inspect
    from dataclasses import fields, replace

    from lsp_count.core.params import ParamNode, Tensor

    names = [f.name for f in fields(ParamNode)]
    assert list(inspect.signature(ParamNode.__init__).parameters)[1:] == names
    node = ParamNode("n", (Tensor("w", (2, 3)),), (ParamNode("c", (Tensor("b", (4,)),)),), repeat=2,
                     active_repeat=1, frozen=True, note="x", source=None, key="k", instances=3)
    assert [getattr(node, n) for n in names][3:] == [2, 1, True, "x", None, "k", 3]
    assert (node.total, node.active, node.trainable) == (20, 10, 0)
    assert replace(node, name="m") == ParamNode("m", node.tensors, node.children, 2, 1, True, "x", None, "k", 3)
    # Tied instances count once; what iterates modules (LoRA) sees each.
    assert [m for _p, _t, m, _f in node.iter_tensors()] == [2, 2]
    assert [m for _p, _t, m, _f in node.iter_tensors(instances=True)] == [6, 6]
    assert node.renamed("r").instances == 3


def test_a_misspelt_field_kind_fails_where_the_family_is_declared() -> None:
    import pytest

    from lsp_count.core.spec import Field

    with pytest.raises(ValueError, match="unknown field kind 'intt'"):
        Field(("hidden_size",), 4096, "intt")
