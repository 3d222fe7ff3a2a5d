"""ConvBERT without torch: every class's defaults, small configs counted by hand, and the configs transformers refuses.

ConvBERT is ELECTRA-shaped (factorised embeddings projected up where embedding_size differs, the generator's MLM
head, a dense + out_proj sequence classifier, a sequence summary for multiple choice). Its attention has
num_attention_heads // head_ratio heads (at least 1) of (hidden_size // heads) // 2 width, and beside them a
span-based dynamic convolution: a separable Conv1d (depthwise hidden × 1 × kernel, pointwise to the attention width,
a bias), conv_kernel_layer (width → heads × kernel) and conv_out_layer (hidden → width). With num_groups > 1 the
feed-forward's two projections are grouped linears (groups × in / groups × out / groups, floored, and a bias).

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("ConvBertModel", 105_680_520),
    ("ConvBertForMaskedLM", 106_303_170),
    ("ConvBertForSequenceClassification", 106_272_650),
    ("ConvBertForMultipleChoice", 105_681_289),
    ("ConvBertForTokenClassification", 105_682_058),
    ("ConvBertForQuestionAnswering", 105_682_058),
])
def test_class_defaults(architecture: str, total: int) -> None:
    tree = count({"model_type": "convbert", "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == (total, total)


SMALL = {"model_type": "convbert", "vocab_size": 10, "hidden_size": 8, "embedding_size": 4, "num_attention_heads": 4,
         "head_ratio": 2, "conv_kernel_size": 3, "intermediate_size": 12, "num_hidden_layers": 1,
         "max_position_embeddings": 5}
# Embeddings 4 wide: words 10·4, positions 5·4, token types 2·4, LayerNorm 8; embeddings_project 4·8 + 8.
EMBEDDINGS = 40 + 20 + 8 + 8 + 40  # 116
# Attention: 4 // 2 = 2 heads of (8 // 2) // 2 = 2, 4 wide. Query, key, value 3 × (8·4 + 4); depthwise 8·1·3,
# pointwise 4·8, the bias 4; conv_kernel_layer 4 → 2·3: 4·6 + 6; conv_out_layer 8·4 + 4; output dense 8·8 + 8,
# LayerNorm 16.
ATTENTION = 108 + 24 + 32 + 4 + 30 + 36 + 72 + 16  # 322
MLP = (8 * 12 + 12) + (12 * 8 + 8) + 16  # 228


def test_bare_model_by_hand() -> None:
    assert count({**SMALL, "architectures": ["ConvBertModel"]}).tree.total == EMBEDDINGS + ATTENTION + MLP == 666


@pytest.mark.parametrize("architecture, head", [
    # generator_predictions.dense 8·4 + 4, its LayerNorm 8, generator_lm_head's bias 10 (its weight is the embedding).
    ("ConvBertForMaskedLM", 36 + 8 + 10),
    # ConvBertClassificationHead: dense 8·8 + 8, out_proj 8·2 + 2 (two labels by default).
    ("ConvBertForSequenceClassification", 72 + 18),
    # The sequence summary (no projection unless summary_use_proj) and the classifier 8 → 1.
    ("ConvBertForMultipleChoice", 9),
])
def test_heads_by_hand(architecture: str, head: int) -> None:
    assert count({**SMALL, "architectures": [architecture]}).tree.total == 666 + head


def test_grouped_feed_forward_by_hand() -> None:
    config = {**SMALL, "architectures": ["ConvBertModel"]}
    # Two groups: intermediate 2 × 4 × 6 + 12, output 2 × 6 × 4 + 8, in place of 8·12 + 12 and 12·8 + 8.
    assert count({**config, "num_groups": 2}).tree.total == 666 - 108 - 104 + 60 + 56 == 570
    # Five groups, floored: intermediate 5 × 1 × 2 + 12, output 5 × 2 × 1 + 8.
    assert count({**config, "num_groups": 5}).tree.total == 666 - 108 - 104 + 22 + 18 == 494


def test_head_ratio_and_kernel_by_hand() -> None:
    config = {**SMALL, "architectures": ["ConvBertModel"]}
    # A negative head_ratio leaves one head of (8 // 1) // 2 = 4: the same width, conv_kernel_layer 4 → 3.
    assert count({**config, "head_ratio": -1}).tree.total == 666 - 30 + 15 == 651
    # A span of 0 builds: no depthwise weights, conv_kernel_layer 4 → 0.
    assert count({**config, "conv_kernel_size": 0}).tree.total == 666 - 24 - 30 == 612


def test_cross_attention_is_a_whole_convbert_attention_block() -> None:
    config = {**SMALL, "architectures": ["ConvBertModel"], "is_decoder": True, "add_cross_attention": True}
    assert count(config).tree.total == 666 + ATTENTION == 988


@pytest.mark.parametrize("change, needle", [
    ({"head_ratio": 0}, "head_ratio 0"),
    ({"num_attention_heads": 6}, "do not divide hidden_size 8"),  # 6 // 2 = 3 heads
    ({"conv_kernel_size": -1}, "conv_kernel_size"),
    ({"add_cross_attention": True}, "is_decoder"),
])
def test_refusals(change: dict, needle: str) -> None:
    assert any(needle in m for m in errors({**SMALL, **change, "architectures": ["ConvBertModel"]}))
