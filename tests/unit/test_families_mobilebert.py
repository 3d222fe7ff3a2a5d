"""MobileBERT without torch: every class's defaults, small configs counted by hand, and the configs transformers refuses.

MobileBERT's layers run at an inner width (intra_bottleneck_size with use_bottleneck): Linears from hidden_size down
to it in front, one back up after, the attention and num_feedforward_networks stacked MLPs between. Its word
embedding is embedding_size wide (three of them side by side with trigram_input) and projected up; the position and
token-type tables are hidden_size wide. The MLM head's decoder reads embedding_size values, a bias-less Linear the
other hidden − embedding_size columns. NoNorm is a weight and a bias like LayerNorm.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("MobileBertModel", 24_844_544),
    ("MobileBertForMaskedLM", 36_596_538),
    ("MobileBertForPreTraining", 36_860_220),
    ("MobileBertForNextSentencePrediction", 24_845_570),
    ("MobileBertForSequenceClassification", 24_845_570),
    ("MobileBertForTokenClassification", 24_582_914),
    ("MobileBertForQuestionAnswering", 24_582_914),
    ("MobileBertForMultipleChoice", 24_845_057),
])
def test_class_defaults(architecture: str, total: int) -> None:
    tree = count({"model_type": "mobilebert", "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == (total, total)


SMALL = {"model_type": "mobilebert", "vocab_size": 10, "hidden_size": 8, "embedding_size": 4, "num_attention_heads": 2,
         "intra_bottleneck_size": 4, "intermediate_size": 6, "num_hidden_layers": 1, "max_position_embeddings": 5,
         "num_feedforward_networks": 2}
# Embeddings: words 10·4, positions 5·8, token types 2·8, embedding_transformation from 3 · 4 (trigram) to 8:
# 12·8 + 8, LayerNorm (NoNorm) 2·8.
EMBEDDINGS = 40 + 40 + 16 + 104 + 16  # 216
# One layer at the inner width 4 (heads 4 // 2 = 2 wide): query, key 4·4 + 4 each, value from hidden 8·4 + 4,
# output dense 4·4 + 4, its norm 8.
ATTENTION = 20 + 20 + 36 + 20 + 8  # 104
MLP = (4 * 6 + 6) + (6 * 4 + 4) + 8  # intermediate, output dense, its norm: 66; twice (ffn.0 besides)
# bottleneck.input and bottleneck.attention (8 → 4 and a norm each: 36 + 8), output.bottleneck (4 → 8, a norm 16).
BOTTLENECK = 2 * (36 + 8) + 40 + 16  # 144
LAYER = ATTENTION + 2 * MLP + BOTTLENECK  # 380
POOLER = 8 * 8 + 8
# The MLM head: transform 8·8 + 8 and its LayerNorm 16, the extra output columns (10 → 8 − 4, no bias), the bias 10;
# the decoder (4 → 10) is the word embedding, tied.
MLM = 72 + 16 + 10 * 4 + 10  # 138


def test_bare_model_by_hand() -> None:
    assert count({**SMALL, "architectures": ["MobileBertModel"]}).tree.total == EMBEDDINGS + LAYER + POOLER == 668


def test_masked_lm_by_hand() -> None:
    config = {**SMALL, "architectures": ["MobileBertForMaskedLM"]}
    assert count(config).tree.total == EMBEDDINGS + LAYER + MLM == 734
    # Untied: the decoder's own weight (4·10) and bias (10) beside the head's bias.
    assert count({**config, "tie_word_embeddings": False}).tree.total == 734 + 50


def test_pretraining_by_hand() -> None:
    # The pooler, the MLM head and the next-sentence classifier (8·2 + 2).
    assert count({**SMALL, "architectures": ["MobileBertForPreTraining"]}).tree.total == 668 + MLM + 18 == 824


def test_without_bottleneck_by_hand() -> None:
    config = {**SMALL, "architectures": ["MobileBertModel"], "use_bottleneck": False, "trigram_input": False,
              "classifier_activation": False, "num_feedforward_networks": 1, "normalization_type": "layer_norm"}
    # Embeddings with one word embedding into the projection (4·8 + 8); the layer at hidden 8 (heads 4 wide):
    # four 8·8 + 8 projections and a norm 16, one MLP 8·6 + 6, 6·8 + 8 and a norm 16; no pooler (no activation).
    embeddings = 40 + 40 + 16 + 40 + 16
    layer = 4 * 72 + 16 + 54 + 56 + 16
    assert count(config).tree.total == embeddings + layer == 582


def test_bottleneck_attention_by_hand() -> None:
    config = {**SMALL, "architectures": ["MobileBertModel"], "use_bottleneck_attention": True,
              "key_query_shared_bottleneck": False}
    # The value reads the bottleneck's 4 values (4·4 + 4 in place of 8·4 + 4); no bottleneck.attention (36 + 8).
    assert count(config).tree.total == 668 - 16 - 44 == 608


@pytest.mark.parametrize("change, architecture, needle", [
    ({"normalization_type": "batch_norm"}, "MobileBertModel", "neither"),
    ({"num_attention_heads": 5}, "MobileBertModel", "0 wide"),
    ({"embedding_size": 12}, "MobileBertForMaskedLM", "above hidden_size"),
    ({"embedding_size": 12}, "MobileBertForPreTraining", "above hidden_size"),
])
def test_refusals(change: dict, architecture: str, needle: str) -> None:
    # transformers: KeyError (NORM2FN), ZeroDivisionError (0 ** -0.5), a negative-width Linear.
    assert any(needle in m for m in errors({**SMALL, **change, "architectures": [architecture]}))


def test_a_wide_embedding_builds_without_an_mlm_head() -> None:
    config = {**SMALL, "embedding_size": 12, "architectures": ["MobileBertModel"]}
    assert not errors(config)
    # The word embedding 10·12 and the projection 36·8 + 8 in place of 10·4 and 12·8 + 8.
    assert count(config).tree.total == 668 + 80 + 192 == 940
