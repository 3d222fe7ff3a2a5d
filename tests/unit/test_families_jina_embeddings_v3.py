"""Jina Embeddings v3 (transformers' own port, jina_embeddings_v3) without torch: every class's defaults, a small
config counted by hand, its attention's head width, and the configs transformers refuses. It is XLM-RoBERTa's
embeddings without a position table (rotary positions), post-norm layers of a biased self_attn (q/k/v/o_proj) and a
plain MLP (fc1, fc2), and RoBERTa's heads under `roberta` (the pooler in the bare model only).

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("JinaEmbeddingsV3Model", 559_364_096),
    ("JinaEmbeddingsV3ForMaskedLM", 559_616_146),
    ("JinaEmbeddingsV3ForSequenceClassification", 559_366_146),
    ("JinaEmbeddingsV3ForTokenClassification", 558_316_546),
    ("JinaEmbeddingsV3ForQuestionAnswering", 558_316_546),
])
def test_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("jina_embeddings_v3", architecture, total)


SMALL = {"model_type": "jina_embeddings_v3", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
         "intermediate_size": 12, "num_hidden_layers": 1}
# Embeddings: words 10·8, one token type 8, LayerNorm 16 (no position table).
EMBEDDINGS = 80 + 8 + 16  # 104
# q, k, v, o 4 × (8·8 + 8), post_attention_layernorm 16, fc1 8·12 + 12, fc2 12·8 + 8, post_mlp_layernorm 16.
LAYER = 288 + 16 + 108 + 104 + 16  # 532
BODY = EMBEDDINGS + LAYER  # 636


@pytest.mark.parametrize("architecture, total", [
    ("JinaEmbeddingsV3Model", BODY + 72),  # pooler.dense
    ("JinaEmbeddingsV3ForMaskedLM", BODY + 72 + 16 + 10),  # lm_head dense, layer_norm, bias (the decoder tied)
    ("JinaEmbeddingsV3ForSequenceClassification", BODY + 72 + 18),  # classifier dense, out_proj
    ("JinaEmbeddingsV3ForTokenClassification", BODY + 18),
    ("JinaEmbeddingsV3ForQuestionAnswering", BODY + 18),
])
def test_by_hand(architecture: str, total: int) -> None:
    assert count({**SMALL, "architectures": [architecture]}).tree.total == total


def test_the_head_width_is_floored_or_the_one_written() -> None:
    base = {**SMALL, "architectures": ["JinaEmbeddingsV3Model"]}
    # 9 wide, 2 heads: heads of 4, attention 8 wide (q/k/v 9·8 + 8, o 8·9 + 9); nothing refuses the remainder.
    wide = count({**base, "hidden_size": 9}).tree.total
    assert wide == (90 + 9 + 18) + (3 * 80 + 81 + 18 + (9 * 12 + 12) + (12 * 9 + 9) + 18) + (81 + 9)
    # head_dim written: heads of 6, attention 12 wide.
    assert count({**base, "head_dim": 6}).tree.total == BODY + 72 + 3 * (8 * 12 + 12) + (12 * 8 + 8) - 288


@pytest.mark.parametrize("change, needle", [
    ({"head_dim": None}, "head_dim"),  # its attention raises None to a power
    ({"pad_token_id": 10}, "pad_token_id"),
    ({"type_vocab_size": -1}, "type_vocab_size"),
])
def test_refusals(change: dict, needle: str) -> None:
    messages = errors({**SMALL, **change, "architectures": ["JinaEmbeddingsV3Model"]})
    assert any(needle in m for m in messages), messages
