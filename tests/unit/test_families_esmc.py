"""ESM-C (esmc, EvolutionaryScale's ESM Cambrian protein models) without torch: every class's defaults, a small
config counted by hand, and the configs transformers refuses. ESM-C is a Llama-shaped stack run bidirectionally with
LayerNorms (the final one without a bias), query and key LayerNorms over the hidden width (no bias), and no
grouped-query attention; its masked-LM head (dense, layer_norm, decoder) is never tied to the embedding.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("EsmcModel", 6_345_280_000),
    ("EsmcForMaskedLM", 6_352_005_184),
    ("EsmcForSequenceClassification", 6_351_841_282),
    ("EsmcForTokenClassification", 6_345_285_122),
])
def test_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("esmc", architecture, total)


SMALL = {"model_type": "esmc", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 1}
# Embedding 10·8. Layer: q, k, v, o 4 × 8·8 (no bias), q_norm and k_norm 8 each, gate and up 2 × 8·12, down 12·8,
# input_layernorm and post_attention_layernorm 2 × 16 (weight and bias). Final norm 8 (no bias).
BODY = 80 + (256 + 16 + 192 + 96 + 32) + 8  # 680


@pytest.mark.parametrize("change, architecture, total", [
    ({}, "EsmcModel", BODY),
    # lm_head: dense 8·8 + 8, layer_norm 16, decoder 8·10 + 10; never tied.
    ({}, "EsmcForMaskedLM", BODY + 72 + 16 + 90),
    ({"tie_word_embeddings": True}, "EsmcForMaskedLM", BODY + 72 + 16 + 90),
    # classifier: dense 8·8 + 8, out_proj 8·2 + 2.
    ({}, "EsmcForSequenceClassification", BODY + 72 + 18),
    # score 8·2 + 2, without its bias where token_classification_bias is false.
    ({}, "EsmcForTokenClassification", BODY + 18),
    ({"token_classification_bias": False}, "EsmcForTokenClassification", BODY + 16),
    # Biases on the attention (4 × 8) and the MLP (12 + 12 + 8).
    ({"attention_bias": True, "mlp_bias": True}, "EsmcModel", BODY + 32 + 32),
])
def test_by_hand(change: dict, architecture: str, total: int) -> None:
    assert count({**SMALL, **change, "architectures": [architecture]}).tree.total == total


@pytest.mark.parametrize("change, needle", [
    ({"num_key_value_heads": 1}, "ESM-C has no grouped-query attention"),
    ({"num_attention_heads": 3}, "does not divide"),
    ({"num_attention_heads": 3, "head_dim": 4}, "does not divide"),  # LlamaConfig refuses it whatever head_dim says
])
def test_refusals(change: dict, needle: str) -> None:
    messages = errors({**SMALL, **change, "architectures": ["EsmcModel"]})
    assert any(needle in m for m in messages), messages


def test_any_pad_token_builds() -> None:
    # The embedding takes no padding index.
    assert count({**SMALL, "pad_token_id": 500, "architectures": ["EsmcModel"]}).tree.total == BODY
