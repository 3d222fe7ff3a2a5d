"""TAPAS without torch: every class's defaults, a small config counted by hand, the configs transformers refuses,
and its position limit. TAPAS is BERT's stack with one token-type table per table feature (type_vocab_sizes: segment,
column, row, rank, ...); its question-answering class selects cells with a weight vector and a scalar bias for the
cells and for the columns, over the bare model with its pooler, and an aggregation_classifier where
num_aggregation_labels > 0.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import analyze, assert_class_default_total, error_messages as errors, model as count
from lsp_count.core.layouts.encoder import text_positions


@pytest.mark.parametrize("architecture, total", [
    ("TapasModel", 110_671_872),
    ("TapasForMaskedLM", 110_703_930),
    ("TapasForQuestionAnswering", 110_673_410),
    ("TapasForSequenceClassification", 110_673_410),
])
def test_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("tapas", architecture, total)


SMALL = {"model_type": "tapas", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 1, "max_position_embeddings": 6, "type_vocab_sizes": [3, 4]}
# Embeddings: words 10·8, positions 6·8, token-type tables (3 + 4)·8, LayerNorm 16.
EMBEDDINGS = 80 + 48 + 56 + 16  # 200
# Query, key, value 3 × (8·8 + 8), output dense 8·8 + 8 and LayerNorm 16; intermediate 8·12 + 12, output 12·8 + 8
# and LayerNorm 16.
LAYER = 216 + 72 + 16 + 108 + 104 + 16  # 532
POOLER = 72
BASE = EMBEDDINGS + LAYER + POOLER  # 804


@pytest.mark.parametrize("change, architecture, total", [
    ({}, "TapasModel", BASE),
    # No pooler; cls.predictions: transform 8·8 + 8 and LayerNorm 16, the bias 10 (the decoder is the word embedding).
    ({}, "TapasForMaskedLM", BASE - POOLER + 72 + 16 + 10),
    # output_weights and column_output_weights 8 each, output_bias and column_output_bias one each.
    ({}, "TapasForQuestionAnswering", BASE + 18),
    ({"num_aggregation_labels": 4}, "TapasForQuestionAnswering", BASE + 18 + 8 * 4 + 4),
    ({"num_aggregation_labels": -1}, "TapasForQuestionAnswering", BASE + 18),
    ({}, "TapasForSequenceClassification", BASE + 8 * 2 + 2),
    # One table per entry: none at all builds, and an empty one.
    ({"type_vocab_sizes": []}, "TapasModel", BASE - 56),
    ({"type_vocab_sizes": [0, 0, 5]}, "TapasModel", BASE - 56 + 40),
])
def test_by_hand(change: dict, architecture: str, total: int) -> None:
    assert count({**SMALL, **change, "architectures": [architecture]}).tree.total == total


def test_a_decoder_builds_cross_attention() -> None:
    config = {**SMALL, "is_decoder": True, "add_cross_attention": True, "architectures": ["TapasModel"]}
    assert count(config).tree.total == BASE + 216 + 72 + 16


@pytest.mark.parametrize("change, needle", [
    ({"type_vocab_sizes": [3, -1]}, "type_vocab_sizes"),
    ({"type_vocab_sizes": [True, 2]}, "type_vocab_sizes"),
    ({"type_vocab_sizes": None}, "type_vocab_sizes"),
    ({"num_aggregation_labels": 2.0}, "num_aggregation_labels"),
    ({"num_attention_heads": 3}, "does not divide"),
    ({"pad_token_id": 10}, "pad_token_id"),
])
def test_refusals(change: dict, needle: str) -> None:
    messages = errors({**SMALL, **change, "architectures": ["TapasModel"]})
    assert any(needle in m for m in messages), messages


def test_positions_restarting_per_cell_set_no_limit() -> None:
    # Each cell's positions count from its first token and are clamped to the table: any length runs. Absolute
    # positions stop at the table's rows.
    assert text_positions(analyze({**SMALL, "architectures": ["TapasModel"]}).models[0].spec) is None
    absolute = analyze({**SMALL, "reset_position_index_per_cell": False, "architectures": ["TapasModel"]})
    assert text_positions(absolute.models[0].spec) == 6


def test_aggregation_labels_is_no_misspelling() -> None:
    # TapasConfig saves aggregation_labels (names of the operators), one slip from num_aggregation_labels.
    report = analyze({**SMALL, "aggregation_labels": {"0": "NONE", "1": "SUM"}, "architectures": ["TapasModel"]})
    assert not [p for p in report.problems if p.code == "LC107"], report.problems
