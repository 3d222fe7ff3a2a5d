"""BigBird without torch: every class's defaults, a small config counted by hand, and the configs transformers refuses.
BigBird is BERT's stack (its block-sparse attention holds the same query, key and value projections as the full one,
biased where use_bias says), its pooler a bare nn.Linear that every class builds but the question-answering one, whose
qa_classifier runs a feed-forward like a layer's (intermediate, output and its LayerNorm) before two outputs.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("BigBirdModel", 127_468_800),
    ("BigBirdForPreTraining", 128_112_824),
    ("BigBirdForMaskedLM", 128_111_286),
    ("BigBirdForCausalLM", 128_111_286),
    ("BigBirdForSequenceClassification", 128_060_930),
    ("BigBirdForMultipleChoice", 127_469_569),
    ("BigBirdForTokenClassification", 127_470_338),
    ("BigBirdForQuestionAnswering", 131_603_714),
])
def test_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("big_bird", architecture, total)


SMALL = {"model_type": "big_bird", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
         "intermediate_size": 12, "num_hidden_layers": 1, "max_position_embeddings": 6}
# Embeddings: words 10·8, positions 6·8, token types 2·8, LayerNorm 16.
EMBEDDINGS = 80 + 48 + 16 + 16  # 160
# Query, key, value 3 × (8·8 + 8), output dense 8·8 + 8 and LayerNorm 16; intermediate 8·12 + 12, output 12·8 + 8
# and LayerNorm 16.
LAYER = 216 + 72 + 16 + 108 + 104 + 16  # 532
POOLER = 72  # an nn.Linear named pooler (BERT's is pooler.dense)
BASE = EMBEDDINGS + LAYER + POOLER  # 764


@pytest.mark.parametrize("architecture, head", [
    ("BigBirdModel", 0),
    # cls.predictions: transform 8·8 + 8 and LayerNorm 16, the bias 10 (the decoder is the word embedding).
    ("BigBirdForMaskedLM", 72 + 16 + 10),
    ("BigBirdForCausalLM", 72 + 16 + 10),
    # and cls.seq_relationship 8·2 + 2
    ("BigBirdForPreTraining", 72 + 16 + 10 + 18),
    # classifier.dense 8·8 + 8, classifier.out_proj 8·2 + 2.
    ("BigBirdForSequenceClassification", 72 + 18),
    ("BigBirdForMultipleChoice", 9),
    ("BigBirdForTokenClassification", 18),
])
def test_every_class_but_question_answering_builds_the_pooler(architecture: str, head: int) -> None:
    tree = count({**SMALL, "architectures": [architecture]}).tree
    assert tree.total == BASE + head
    assert tree.root.child("pooler") is not None


def test_question_answering_has_no_pooler_and_a_feed_forward_before_two_outputs() -> None:
    # qa_classifier: intermediate 8·12 + 12, output 12·8 + 8 and LayerNorm 16, qa_outputs 8·2 + 2 (whatever num_labels).
    for labels in (None, {"0": "a"}, {str(i): str(i) for i in range(5)}):
        config = {**SMALL, "architectures": ["BigBirdForQuestionAnswering"], **({"id2label": labels} if labels else {})}
        tree = count(config).tree
        assert tree.total == EMBEDDINGS + LAYER + 108 + 104 + 16 + 18 == 938
        assert tree.root.child("pooler") is None


def test_use_bias_and_the_attention_type() -> None:
    config = {**SMALL, "architectures": ["BigBirdModel"]}
    assert count({**config, "use_bias": False}).tree.total == BASE - 3 * 8
    # The full attention holds the same projections; a decoder's cross-attention makes the sparse one full.
    assert count({**config, "attention_type": "original_full"}).tree.total == BASE
    decoder = count({**config, "is_decoder": True, "add_cross_attention": True}).tree.total
    assert decoder == BASE + 216 + 72 + 16  # crossattention: query/key/value, output dense and LayerNorm


@pytest.mark.parametrize("change, needle", [
    ({"attention_type": "dense"}, 'attention_type "dense": BigBirdModel builds "original_full" or "block_sparse"'),
    ({"attention_type": None}, "attention_type"),
    ({"num_attention_heads": 3}, "does not divide"),
    ({"pad_token_id": 10}, "pad_token_id"),
    ({"add_cross_attention": True}, "add_cross_attention needs is_decoder"),
])
def test_refusals(change: dict, needle: str) -> None:
    messages = errors({**SMALL, **change, "architectures": ["BigBirdModel"]})
    assert any(needle in m for m in messages), messages
