"""Longformer without torch: every class's defaults, a small config counted by hand, and the attention windows
transformers refuses. Longformer is RoBERTa's stack (positions after the padding index, its heads) whose attention
holds a second query, key and value projection for the global tokens (query_global, key_global, value_global, each
hidden × hidden with a bias); its sliding-window attention has no parameters.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks the family
against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, error_messages as errors, model as count


@pytest.mark.parametrize("architecture, total", [
    ("LongformerModel", 130_743_552),
    ("LongformerForMaskedLM", 130_775_610),
    ("LongformerForSequenceClassification", 130_745_090),
    ("LongformerForQuestionAnswering", 130_154_498),
    ("LongformerForTokenClassification", 130_154_498),
    ("LongformerForMultipleChoice", 130_744_321),
])
def test_class_defaults(architecture: str, total: int) -> None:
    assert_class_default_total("longformer", architecture, total)


SMALL = {"model_type": "longformer", "vocab_size": 10, "hidden_size": 8, "num_attention_heads": 2,
         "intermediate_size": 12, "num_hidden_layers": 1, "max_position_embeddings": 6, "attention_window": 4}
# Embeddings: words 10·8, positions 6·8, token types 2·8, LayerNorm 16.
EMBEDDINGS = 80 + 48 + 16 + 16  # 160
# Query, key, value 3 × (8·8 + 8) and their global twins as many, output dense 8·8 + 8 and LayerNorm 16;
# intermediate 8·12 + 12, output 12·8 + 8 and LayerNorm 16.
LAYER = 216 + 216 + 72 + 16 + 108 + 104 + 16  # 748
POOLER = 72


def test_bare_model_by_hand() -> None:
    tree = count({**SMALL, "architectures": ["LongformerModel"]}).tree
    assert tree.total == EMBEDDINGS + LAYER + POOLER == 980


def test_global_projections_are_named_as_transformers_names_them() -> None:
    tree = count({**SMALL, "architectures": ["LongformerModel"]}).tree
    names = [t.name for _, t, _, _ in tree.root.iter_tensors()]
    for projection in ("query_global", "key_global", "value_global"):
        assert f"attention.self.{projection}.weight" in names and f"attention.self.{projection}.bias" in names


@pytest.mark.parametrize("suffix", ["Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice"])
def test_roberta_plus_the_global_projections(suffix: str) -> None:
    roberta = {k: v for k, v in SMALL.items() if k != "attention_window"}
    roberta = {**roberta, "model_type": "roberta", "num_hidden_layers": 2, "architectures": ["Roberta" + suffix]}
    longformer = {**SMALL, "num_hidden_layers": 2, "attention_window": [2, 6], "architectures": ["Longformer" + suffix]}
    assert count(longformer).tree.total == count(roberta).tree.total + 2 * 216


def test_cross_attention_keys_build_nothing() -> None:
    config = {**SMALL, "architectures": ["LongformerModel"]}
    assert count({**config, "is_decoder": True, "add_cross_attention": True}).tree.total == 980


@pytest.mark.parametrize("window, needle", [
    (3, "attention_window 3 is not an even, positive whole number"),
    (0, "attention_window 0 is not an even, positive whole number"),
    (-2, "attention_window -2 is not an even, positive whole number"),
    ([4], "attention_window lists 1 window for 2 layers"),
    ([4, 6, 8], "attention_window lists 3 windows for 2 layers"),
    ([4, 5], "attention_window 5 is not an even, positive whole number"),
    ([4, 0], "attention_window 0 is not an even, positive whole number"),
    ([4.0, 6], "attention_window 4.0 is not an even, positive whole number"),
    ([True, 6], "attention_window true is not an even, positive whole number"),
    (4.0, "attention_window 4.0 is not a whole number or a list of one per layer"),
    (True, "attention_window true is not a whole number or a list of one per layer"),
    ("8", 'attention_window "8" is not a whole number or a list of one per layer'),
    (None, '"attention_window": null is not a whole number or a list of one per layer'),
])
def test_refused_windows(window, needle: str) -> None:
    messages = errors({**SMALL, "num_hidden_layers": 2, "attention_window": window,
                       "architectures": ["LongformerModel"]})
    assert any(needle in m for m in messages), messages


def test_refusals_of_the_roberta_stack() -> None:
    assert any("does not divide" in m for m in errors({**SMALL, "num_attention_heads": 3}))
    assert any("outside the position table" in m for m in errors({**SMALL, "pad_token_id": 6}))
