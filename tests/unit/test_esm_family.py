"""ESM (ESM-2, ESM-1b) without torch: hand counts of small configs, the class defaults, a real ESM-2 config, and
the configs transformers refuses (or lsp-count does not count: ESMFold).

The class-default totals were taken once from transformers 5.25 on the meta device, with vocab_size 33 (EsmConfig
has no default for it); tests/parity checks the family against it on random configs too.
"""

from __future__ import annotations

import pytest

from config_models import errors, model

# A small body the hand counts share: hidden 8, 2 heads, MLP 12 wide, 1 layer, 20 tokens, 10 positions.
SMALL = {"model_type": "esm", "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
         "num_hidden_layers": 1, "vocab_size": 20, "max_position_embeddings": 10}
H, F, V, P = 8, 12, 20, 10
LINEAR = H * H + H                     # an 8 → 8 Linear with a bias: 72
NORM = 2 * H                           # a LayerNorm's weight and bias: 16
# attention.self.query / key / value, attention.output.dense; attention.LayerNorm (pre-norm);
# intermediate.dense (8 → 12) and output.dense (12 → 8); LayerNorm (before the MLP): 532
LAYER = 4 * LINEAR + NORM + (H * F + F) + (F * H + H) + NORM
EMBEDDINGS = V * H + P * H             # word table + absolute position table: 240
FINAL = NORM                           # encoder.emb_layer_norm_after: 16
CONTACT = 1 * 2 + 1                    # contact_head.regression: layers × heads → 1, a bias: 3
STEM = EMBEDDINGS + LAYER + FINAL + CONTACT   # 791


@pytest.mark.parametrize("architecture, total", [
    ("EsmModel", 86_460_049),
    ("EsmForMaskedLM", 86_461_618),
    ("EsmForSequenceClassification", 86_461_587),
    ("EsmForTokenClassification", 85_870_995),
])
def test_class_defaults_equal_transformers(architecture: str, total: int) -> None:
    assert model({"model_type": "esm", "architectures": [architecture], "vocab_size": 33}).tree.total == total


def test_esm2_650m_equals_transformers() -> None:
    # facebook/esm2_t33_650M_UR50D's config.json (rotary, no embedding LayerNorm); transformers 5.25 on the meta
    # device: 651,043,254 (EsmForMaskedLM), 651,040,661 (EsmModel).
    config = {"architectures": ["EsmForMaskedLM"], "emb_layer_norm_before": False, "hidden_size": 1280,
              "intermediate_size": 5120, "is_folding_model": False, "layer_norm_eps": 1e-05, "mask_token_id": 32,
              "max_position_embeddings": 1026, "model_type": "esm", "num_attention_heads": 20,
              "num_hidden_layers": 33, "pad_token_id": 1, "position_embedding_type": "rotary",
              "token_dropout": True, "torch_dtype": "float32", "vocab_list": None, "vocab_size": 33,
              "esmfold_config": None}
    assert model(config).tree.total == 651_043_254
    assert model({**config, "architectures": ["EsmModel"]}).tree.total == 651_040_661


def test_bare_model_hand_count() -> None:
    # The stem, and the bare model's pooler (pooler.dense, 8 → 8): 863
    assert model({**SMALL, "architectures": ["EsmModel"]}).tree.total == STEM + LINEAR == 863


def test_rotary_has_no_position_table() -> None:
    # ESM-2: position_embedding_type "rotary" (or any other string, or null): no position table (its inverse
    # frequencies are a buffer): 863 - 80 = 783.
    for kind in ("rotary", "relative_key", None):
        config = {**SMALL, "architectures": ["EsmModel"], "position_embedding_type": kind}
        assert model(config).tree.total == STEM + LINEAR - P * H == 783


def test_embedding_layer_norm_before() -> None:
    # ESM-1b: emb_layer_norm_before adds embeddings.layer_norm (16): 879; null is false, as the model reads it.
    assert model({**SMALL, "architectures": ["EsmModel"], "emb_layer_norm_before": True}).tree.total == 863 + NORM
    assert model({**SMALL, "architectures": ["EsmModel"], "emb_layer_norm_before": None}).tree.total == 863


def test_masked_lm_hand_count() -> None:
    # No pooler; lm_head.dense (72), lm_head.layer_norm (16), lm_head.bias (20); the decoder (no bias) tied to the
    # word table: 791 + 108 = 899; untied, its own 20 × 8 matrix: 1,059.
    assert model({**SMALL, "architectures": ["EsmForMaskedLM"]}).tree.total == STEM + LINEAR + NORM + V == 899
    untied = {**SMALL, "architectures": ["EsmForMaskedLM"], "tie_word_embeddings": False}
    assert model(untied).tree.total == 899 + V * H == 1059


def test_classifiers_hand_count() -> None:
    # Sequence classification: no pooler; classifier.dense (72) and classifier.out_proj (8 → 2 labels: 18): 881.
    assert model({**SMALL, "architectures": ["EsmForSequenceClassification"]}).tree.total == STEM + LINEAR + 18 == 881
    # Token classification: classifier (8 → 3 labels: 27): 818.
    tokens = {**SMALL, "architectures": ["EsmForTokenClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}}
    assert model(tokens).tree.total == STEM + 27 == 818


def test_contact_head_grows_with_layers_and_heads() -> None:
    # 3 layers of 4 heads: the contact head reads 12 attention maps (12 + 1 = 13): 240 + 3 × 532 + 16 + 13 + 72.
    config = {**SMALL, "architectures": ["EsmModel"], "num_hidden_layers": 3, "num_attention_heads": 4}
    assert model(config).tree.total == EMBEDDINGS + 3 * LAYER + FINAL + 13 + LINEAR == 1937


def test_cross_attention_in_a_decoder() -> None:
    # is_decoder with add_cross_attention: crossattention.self.query / key / value, .output.dense and its own
    # crossattention.LayerNorm in every layer (4 × 72 + 16 = 304): 1,167.
    config = {**SMALL, "architectures": ["EsmModel"], "is_decoder": True, "add_cross_attention": True}
    assert model(config).tree.total == 863 + 4 * LINEAR + NORM == 1167
    assert errors({**SMALL, "architectures": ["EsmModel"], "add_cross_attention": True})


def test_configs_transformers_refuses() -> None:
    # vocab_size left out or null: EsmConfig keeps None, which the word embedding cannot be built with.
    no_vocab = {k: v for k, v in SMALL.items() if k != "vocab_size"}
    assert any("vocab_size" in p.message for p in errors(no_vocab))
    assert any('"vocab_size": null' in p.message for p in errors({**SMALL, "vocab_size": None}))
    # The absolute position table pads with pad_token_id too: 12 is outside its 10 rows (rotary has no table).
    assert errors({**SMALL, "pad_token_id": 12})
    assert model({**SMALL, "pad_token_id": 12, "position_embedding_type": "rotary"}).tree.total == 899 - P * H
    assert errors({**SMALL, "pad_token_id": 20})  # outside the vocabulary
    # ESM's attention refuses heads that do not divide hidden_size.
    assert errors({**SMALL, "num_attention_heads": 3})


def test_esmfold_is_refused() -> None:
    # is_folding_model: ESMFold (EsmForProteinFolding), not counted (not its ESM-2 stem alone either).
    found = errors({**SMALL, "architectures": ["EsmForProteinFolding"], "is_folding_model": True})
    assert any("ESMFold" in p.message for p in found)
    assert model({**SMALL, "is_folding_model": False}).tree.total == 899
