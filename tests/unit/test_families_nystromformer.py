"""Nyströmformer, YOSO and MRA without torch: every class's defaults, small configs counted by hand, the configs
transformers refuses, and their longest sequence. Nyströmformer is BERT's stack (its landmark attention has no
parameters) with a depthwise nn.Conv2d over each head's values (heads × 1 × conv_kernel_size × 1, no bias), a
position table two rows longer than max_position_embeddings, no pooler, RoBERTa's classification head, a
pre_classifier in the multiple-choice class and a question-answering class of two outputs whatever num_labels says.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("NystromformerModel", 108_500_112),
    ("NystromformerForMaskedLM", 109_122_240),
    ("NystromformerForSequenceClassification", 109_092_242),
    ("NystromformerForMultipleChoice", 109_091_473),
    ("NystromformerForTokenClassification", 108_501_650),
    ("NystromformerForQuestionAnswering", 108_501_650),
])
def test_class_defaults(architecture: str, total: int) -> None:
    tree = count({"model_type": "nystromformer", "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == (total, total)


SMALL = {"model_type": "nystromformer", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
         "conv_kernel_size": 3, "intermediate_size": 12, "num_hidden_layers": 1, "max_position_embeddings": 5}
# Embeddings: words 10·8, positions (5 + 2)·8, token types 2·8, LayerNorm 16.
EMBEDDINGS = 80 + 56 + 16 + 16  # 168
# Query, key, value 3 × (8·8 + 8), the value convolution 2·1·3·1, output dense 8·8 + 8 and LayerNorm 16;
# intermediate 8·12 + 12, output 12·8 + 8 and LayerNorm 16.
LAYER = 216 + 6 + 72 + 16 + 108 + 104 + 16  # 538


def test_bare_model_by_hand() -> None:
    assert count({**SMALL, "architectures": ["NystromformerModel"]}).tree.total == EMBEDDINGS + LAYER == 706


@pytest.mark.parametrize("architecture, head", [
    # cls.predictions: transform 8·8 + 8 and LayerNorm 16, the bias 10 (the decoder is the word embedding).
    ("NystromformerForMaskedLM", 72 + 16 + 10),
    # classifier.dense 8·8 + 8, classifier.out_proj 8·2 + 2.
    ("NystromformerForSequenceClassification", 72 + 18),
    # pre_classifier 8·8 + 8, classifier 8 → 1.
    ("NystromformerForMultipleChoice", 72 + 9),
])
def test_heads_by_hand(architecture: str, head: int) -> None:
    assert count({**SMALL, "architectures": [architecture]}).tree.total == 706 + head


def test_question_answering_has_two_outputs_whatever_num_labels_says() -> None:
    config = {**SMALL, "architectures": ["NystromformerForQuestionAnswering"], "id2label": {"0": "a"}}
    assert count(config).tree.total == 706 + 8 * 2 + 2


def test_kernel_of_zero_and_cross_attention_keys() -> None:
    config = {**SMALL, "architectures": ["NystromformerModel"]}
    assert count({**config, "conv_kernel_size": 0}).tree.total == 706 - 6  # an empty convolution builds
    # NystromformerLayer keeps add_cross_attention but builds no cross-attention block.
    assert count({**config, "is_decoder": True, "add_cross_attention": True}).tree.total == 706


@pytest.mark.parametrize("change, needle", [
    ({"inv_coeff_init_option": True}, "inv_coeff_init_option"),  # transformers: config[...] raises TypeError
    ({"num_attention_heads": 3}, "does not divide"),
])
def test_refusals(change: dict, needle: str) -> None:
    assert any(needle in m for m in errors({**SMALL, **change, "architectures": ["NystromformerModel"]}))


# --- YOSO: Nyströmformer's parameters (its LSH attention has none); the value convolution only with conv_window ------

@pytest.mark.parametrize("architecture, total", [
    ("YosoModel", 126_807_552),
    ("YosoForMaskedLM", 127_449_945),
    ("YosoForSequenceClassification", 127_399_682),
    ("YosoForMultipleChoice", 127_398_913),
    ("YosoForTokenClassification", 126_809_090),
    ("YosoForQuestionAnswering", 126_809_090),
])
def test_yoso_class_defaults(architecture: str, total: int) -> None:
    tree = count({"model_type": "yoso", "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == (total, total)


YOSO = {**{k: v for k, v in SMALL.items() if k != "conv_kernel_size"}, "model_type": "yoso", "type_vocab_size": 2}


def test_yoso_by_hand() -> None:
    config = {**YOSO, "architectures": ["YosoModel"]}
    # Nyströmformer's small model without its value convolution (2·1·3·1): conv_window is null by default.
    assert count(config).tree.total == EMBEDDINGS + LAYER - 6 == 700
    assert count({**config, "conv_window": 3}).tree.total == 706
    qa = {**YOSO, "architectures": ["YosoForQuestionAnswering"], "id2label": {"0": "a"}}
    assert count(qa).tree.total == 700 + 8 * 2 + 2  # two outputs whatever num_labels says


# --- MRA: YOSO's parameters without the value convolution (its multi-resolution attention has none) ----------------

@pytest.mark.parametrize("architecture, total", [
    ("MraModel", 124_055_040),
    ("MraForMaskedLM", 124_697_433),
    ("MraForSequenceClassification", 124_647_170),
    ("MraForMultipleChoice", 124_646_401),
    ("MraForTokenClassification", 124_056_578),
    ("MraForQuestionAnswering", 124_056_578),
])
def test_mra_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("mra", architecture, total)


MRA = {**YOSO, "model_type": "mra"}


def test_mra_by_hand() -> None:
    # YOSO's small model without a value convolution; the attention's block keys hold nothing.
    config = {**MRA, "architectures": ["MraModel"]}
    assert count(config).tree.total == EMBEDDINGS + LAYER - 6 == 700
    keys = {"block_per_row": 0, "approx_mode": "sparse", "max_position_embeddings": 5}
    assert count({**config, **keys}).tree.total == 700
    qa = {**MRA, "architectures": ["MraForQuestionAnswering"], "id2label": {"0": "a"}}
    assert count(qa).tree.total == 700 + 8 * 2 + 2  # two outputs whatever num_labels says
    mc = {**MRA, "architectures": ["MraForMultipleChoice"]}
    assert count(mc).tree.total == 700 + 72 + 9  # pre_classifier 8·8 + 8, classifier 8 → 1


@pytest.mark.parametrize("change, needle", [
    ({"num_attention_heads": 3}, "does not divide"),
    ({"pad_token_id": 10}, "pad_token_id"),
])
def test_mra_refusals(change: dict, needle: str) -> None:
    assert any(needle in m for m in errors({**MRA, **change, "architectures": ["MraModel"]}))


@pytest.mark.parametrize("config", [SMALL, YOSO, MRA])
def test_the_longest_sequence_is_max_position_embeddings(config: dict) -> None:
    # Their table has two rows more, positions from 2; the position_ids buffer holds max_position_embeddings of them
    # (tests/parity/test_text_positions_parity.py runs the models one token past it).
    from lsp_count.core.layouts.encoder import text_positions

    assert text_positions(count({**config, "max_position_embeddings": 7}).spec) == 7
