"""I-BERT, LayoutLM and Splinter without torch: each class's defaults, small configs counted by hand, and the
configs transformers refuses.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks every
family against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import errors, model
from small_encoder import BERT_EMBEDDINGS, H, LAYER, LINEAR, NORM, SMALL, V


@pytest.mark.parametrize("model_type, architecture, total", [
    ("ibert", "IBertModel", 109_482_240),
    ("ibert", "IBertForMaskedLM", 109_514_298),
    ("ibert", "IBertForSequenceClassification", 109_483_778),
    ("ibert", "IBertForMultipleChoice", 109_483_009),
    ("ibert", "IBertForTokenClassification", 108_893_186),
    ("ibert", "IBertForQuestionAnswering", 108_893_186),
    ("layoutlm", "LayoutLMModel", 112_627_968),
    ("layoutlm", "LayoutLMForMaskedLM", 113_250_618),
    ("layoutlm", "LayoutLMForSequenceClassification", 112_629_506),
    ("layoutlm", "LayoutLMForTokenClassification", 112_629_506),
    ("layoutlm", "LayoutLMForQuestionAnswering", 112_629_506),
    ("splinter", "SplinterModel", 108_891_648),
    ("splinter", "SplinterForQuestionAnswering", 112_439_808),
    ("splinter", "SplinterForPreTraining", 112_439_808),
])
def test_class_defaults_equal_transformers(model_type: str, architecture: str, total: int) -> None:
    assert model({"model_type": model_type, "architectures": [architecture]}).tree.total == total


# ----------------------------------------------------------------- I-BERT

def test_ibert_by_hand() -> None:
    config = {"model_type": "ibert", **SMALL}
    # RoBERTa's parameters: the quantisation state (integer weights, scaling factors, ranges) is buffers.
    bare = model({**config, "architectures": ["IBertModel"]}).tree
    assert bare.total == BERT_EMBEDDINGS + LAYER + LINEAR == 876  # the pooler: pooler.dense
    # The LM head: dense and layer_norm, the decoder tied to the word table, and its vocabulary bias.
    mlm = model({**config, "architectures": ["IBertForMaskedLM"]}).tree
    assert mlm.total == BERT_EMBEDDINGS + LAYER + LINEAR + NORM + V == 912
    # RoBERTa's classifier: dense, then out_proj to the 2 labels, beside no pooler.
    seq = model({**config, "architectures": ["IBertForSequenceClassification"]}).tree
    assert seq.total == BERT_EMBEDDINGS + LAYER + LINEAR + (H * 2 + 2) == 894


def test_ibert_builds_no_cross_attention_and_any_pad_token() -> None:
    config = {"model_type": "ibert", **SMALL, "architectures": ["IBertModel"]}
    # IBertLayer has no cross-attention block, whatever is_decoder and add_cross_attention say.
    assert model({**config, "is_decoder": True, "add_cross_attention": True}).tree.total == 876
    # QuantEmbedding keeps padding_idx without nn.Embedding's range check.
    assert model({**config, "pad_token_id": 500}).tree.total == 876


def test_ibert_refuses_heads_that_do_not_divide_the_width() -> None:
    assert errors({"model_type": "ibert", **SMALL, "hidden_size": 9})


# ----------------------------------------------------------------- LayoutLM

def test_layoutlm_by_hand() -> None:
    config = {"model_type": "layoutlm", **SMALL, "max_2d_position_embeddings": 6}
    boxes = 4 * 6 * H  # x, y, h and w position tables: 192
    bare = model({**config, "architectures": ["LayoutLMModel"]}).tree
    assert bare.total == BERT_EMBEDDINGS + boxes + LAYER + LINEAR == 1068
    # Every head class keeps the bare model's pooler: token classification is it and the classifier (2 labels).
    tokens = model({**config, "architectures": ["LayoutLMForTokenClassification"]}).tree
    assert tokens.total == 1068 + (H * 2 + 2) == 1086
    # The masked-LM class too: the pooler, then the transform (dense, LayerNorm), the tied decoder, the bias.
    mlm = model({**config, "architectures": ["LayoutLMForMaskedLM"]}).tree
    assert mlm.total == 1068 + LINEAR + NORM + V == 1176


def test_layoutlm_refuses_a_pad_token_outside_the_vocabulary() -> None:
    assert errors({"model_type": "layoutlm", **SMALL, "pad_token_id": 20})


# ----------------------------------------------------------------- Splinter

def test_splinter_by_hand() -> None:
    config = {"model_type": "splinter", **SMALL}
    bare = model({**config, "architectures": ["SplinterModel"]}).tree
    assert bare.total == BERT_EMBEDDINGS + LAYER == 804  # no pooler
    # The span selection head: four transforms (dense + LayerNorm) and two bias-less 8 × 8 classifiers.
    qass = 4 * (LINEAR + NORM) + 2 * H * H
    for architecture in ("SplinterForQuestionAnswering", "SplinterForPreTraining"):
        assert model({**config, "architectures": [architecture]}).tree.total == 804 + qass == 1284
    # No class has output embeddings: tie_word_embeddings changes nothing.
    untied = model({**config, "architectures": ["SplinterForQuestionAnswering"], "tie_word_embeddings": False})
    assert untied.tree.total == 1284


def test_splinter_refuses_heads_that_do_not_divide_the_width() -> None:
    assert errors({"model_type": "splinter", **SMALL, "hidden_size": 9})
