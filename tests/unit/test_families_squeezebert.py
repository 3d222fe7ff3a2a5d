"""SqueezeBERT without torch: every class's defaults, small configs counted by hand, and the configs transformers
refuses. SqueezeBERT is BERT whose layer projections are 1×1 nn.Conv1d modules with groups of their own (a weight
out × in / groups × 1 and a bias each); SqueezeBertModel always builds its pooler, so every head class has it.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("SqueezeBertModel", 51_089_664),
    ("SqueezeBertForMaskedLM", 51_712_314),
    ("SqueezeBertForSequenceClassification", 51_091_202),
    ("SqueezeBertForMultipleChoice", 51_090_433),
    ("SqueezeBertForTokenClassification", 51_091_202),
    ("SqueezeBertForQuestionAnswering", 51_091_202),
])
def test_class_defaults(architecture: str, total: int) -> None:
    tree = count({"model_type": "squeezebert", "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == (total, total)


SMALL = {"model_type": "squeezebert", "vocab_size": 10, "hidden_size": 8, "embedding_size": 8, "num_attention_heads": 2,
         "intermediate_size": 12, "num_hidden_layers": 1, "max_position_embeddings": 5, "q_groups": 2, "k_groups": 4,
         "v_groups": 8, "post_attention_groups": 1, "intermediate_groups": 4, "output_groups": 2}
# Embeddings: words 10·8, positions 5·8, token types 2·8, LayerNorm 16.
EMBEDDINGS = 80 + 40 + 16 + 16  # 152
# The layer's convolutions, in · out / groups + out each: query 64/2 + 8, key 64/4 + 8, value 64/8 + 8,
# post_attention 64/1 + 8 and its LayerNorm 16, intermediate 8·12/4 + 12, output 12·8/2 + 8 and its LayerNorm 16.
LAYER = 40 + 24 + 16 + 72 + 16 + 36 + 56 + 16  # 276
POOLER = 8 * 8 + 8


def test_bare_model_by_hand() -> None:
    assert count({**SMALL, "architectures": ["SqueezeBertModel"]}).tree.total == EMBEDDINGS + LAYER + POOLER == 500


def test_masked_lm_keeps_the_pooler() -> None:
    # The pooler still built, the MLM transform 8·8 + 8 and its LayerNorm 16, the bias 10; the decoder is tied.
    config = {**SMALL, "architectures": ["SqueezeBertForMaskedLM"]}
    assert count(config).tree.total == 500 + 72 + 16 + 10 == 598


def test_token_classification_keeps_the_pooler() -> None:
    config = {**SMALL, "architectures": ["SqueezeBertForTokenClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}}
    assert count(config).tree.total == 500 + 8 * 3 + 3 == 527


@pytest.mark.parametrize("change, needle", [
    ({"embedding_size": 4}, "is not hidden_size"),
    ({"hidden_size": 16}, "is not hidden_size"),  # embedding_size does not follow hidden_size
    ({"intermediate_groups": 3}, "intermediate_groups 3 does not divide"),
    ({"output_groups": 8}, "output_groups 8 does not divide"),  # 12 intermediate channels
])
def test_refusals(change: dict, needle: str) -> None:
    # transformers: SqueezeBertEncoder's assertion; nn.Conv1d's "in_channels must be divisible by groups".
    assert any(needle in m for m in errors({**SMALL, **change, "architectures": ["SqueezeBertModel"]}))
