"""XLM and FlauBERT without torch: each class's defaults, small configs counted by hand, and the configs
transformers refuses.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks both
families against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import errors, model

# emb_dim 8, 2 heads, 1 layer, 20 tokens, 10 positions.
SMALL = {"emb_dim": 8, "n_heads": 2, "n_layers": 1, "vocab_size": 20, "max_position_embeddings": 10}
H, V, P = 8, 20, 10
F = 4 * H                               # TransformerFFN: 4 × emb_dim, 32
LINEAR = H * H + H                      # an 8 → 8 Linear with a bias: 72
NORM = 2 * H                            # a LayerNorm's weight and bias: 16
LAYER = 4 * LINEAR + (H * F + F) + (F * H + H) + 2 * NORM  # q/k/v/out_lin, lin1, lin2, layer_norm1 and 2: 872
EMBEDDINGS = V * H + P * H + NORM       # embeddings, position_embeddings, layer_norm_emb: 256
BARE = EMBEDDINGS + LAYER               # 1128: no pooler
SUMMARY = H * 2 + 2                     # sequence_summary.summary: 8 → num_labels (2): 18

CLASSES = ("Model", "WithLMHeadModel", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
           "ForQuestionAnsweringSimple", "ForQuestionAnswering")
DEFAULTS = (667_088_896, 667_119_041, 667_092_994, 667_092_997, 667_092_994, 667_092_994, 683_880_450)


@pytest.mark.parametrize("model_type, prefix", [("xlm", "XLM"), ("flaubert", "Flaubert")])
@pytest.mark.parametrize("suffix, total", list(zip(CLASSES, DEFAULTS)))
def test_class_defaults_equal_transformers(model_type: str, prefix: str, suffix: str, total: int) -> None:
    assert model({"model_type": model_type, "architectures": [prefix + suffix]}).tree.total == total


def count(architecture: str, **keys) -> int:
    return model({"model_type": "xlm", **SMALL, "architectures": [architecture], **keys}).tree.total


def test_xlm_bare_and_languages_by_hand() -> None:
    assert count("XLMModel") == BARE == 1128
    # Several languages: lang_embeddings, one row each (unless use_lang_emb is false).
    assert count("XLMModel", n_langs=3) == BARE + 3 * H == 1152
    assert count("XLMModel", n_langs=3, use_lang_emb=False) == BARE
    # Sinusoidal positions fill the same (trainable) table.
    assert count("XLMModel", sinusoidal_embeddings=True) == BARE


def test_xlm_lm_head_by_hand() -> None:
    # pred_layer.proj: tied to the word table, its bias is left; untied, its own weight too.
    assert count("XLMWithLMHeadModel") == BARE + V == 1148
    assert count("XLMWithLMHeadModel", tie_word_embeddings=False) == BARE + V * H + V == 1308


def test_xlm_classifiers_by_hand() -> None:
    # The SequenceSummary: a Linear to num_labels (2), to emb_dim where summary_proj_to_labels is false, or none.
    assert count("XLMForSequenceClassification") == BARE + SUMMARY == 1146
    assert count("XLMForSequenceClassification", summary_proj_to_labels=False) == BARE + LINEAR == 1200
    assert count("XLMForSequenceClassification", summary_use_proj=False) == BARE
    # Multiple choice: the summary, then logits_proj (num_labels → 1).
    assert count("XLMForMultipleChoice") == BARE + SUMMARY + (2 + 1) == 1149
    assert count("XLMForTokenClassification") == BARE + SUMMARY == 1146
    assert count("XLMForQuestionAnsweringSimple") == BARE + SUMMARY == 1146


def test_xlm_squad_head_by_hand() -> None:
    start = H + 1                                           # start_logits.dense: 8 → 1
    end = (2 * H * H + H) + NORM + (H + 1)                  # end_logits: dense_0 (16 → 8), LayerNorm, dense_1 (8 → 1)
    answer = (2 * H * H + H) + H                            # answer_class: dense_0 (16 → 8), dense_1 (8 → 1, no bias)
    assert count("XLMForQuestionAnswering") == BARE + start + end + answer == 1442


def test_xlm_reads_its_attribute_map_aliases() -> None:
    aliased = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "n_words": 20,
               "max_position_embeddings": 10}
    assert model({"model_type": "xlm", "architectures": ["XLMModel"], **aliased}).tree.total == BARE


@pytest.mark.parametrize("keys", [
    {"emb_dim": 9},                           # MultiHeadAttention asserts emb_dim % n_heads == 0
    {"is_encoder": False},                    # XLMModel: "Currently XLM can only be used as an encoder"
    {"pad_token_id": 20},                     # outside the word table
])
def test_xlm_refuses_what_transformers_refuses(keys: dict) -> None:
    assert errors({"model_type": "xlm", **SMALL, "architectures": ["XLMModel"], **keys})


def test_xlm_refuses_an_attn_summary_and_does_not_count_an_adaptive_softmax() -> None:
    assert errors({"model_type": "xlm", **SMALL, "architectures": ["XLMForSequenceClassification"],
                   "summary_type": "attn"})
    assert count("XLMModel", summary_type="attn") == BARE  # the bare model has no summary
    assert errors({"model_type": "xlm", **SMALL, "architectures": ["XLMWithLMHeadModel"], "asm": True})


def test_flaubert_counts_as_xlm_and_its_pad_index_is_overwritten() -> None:
    config = {"model_type": "flaubert", **SMALL, "architectures": ["FlaubertModel"]}
    assert model({**config, "pre_norm": True}).tree.total == BARE
    # FlaubertConfig: pad_token_id overwrites pad_index, so a pad_index outside the vocabulary changes nothing.
    assert model({**config, "pad_index": 50}).tree.total == BARE
    assert errors({**config, "pad_token_id": 50})
