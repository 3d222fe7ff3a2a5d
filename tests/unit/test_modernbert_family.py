"""ModernBERT without torch: the published sizes, by hand, and the switches that shape it.

The layout, from transformers 5.25's modeling_modernbert.py: a token embedding and a LayerNorm
(no position table: rotary; no token types); per layer a fused Wqkv (h → 3h) and Wo (h → h),
both biased only with attention_bias, a GLU MLP Wi (h → 2f) and Wo (f → h), biased only with
mlp_bias, and two LayerNorms, attn_norm and mlp_norm, except layer 0, whose attn_norm is an
nn.Identity; a final LayerNorm; LayerNorms have a bias only with norm_bias. The heads: a
prediction head (dense h → h, biased only with classifier_bias, and a LayerNorm), then the
decoder (tied to the token embedding: its bias alone, with decoder_bias) or one Linear
classifier (labels wide; one output per choice for multiple choice). The totals were checked
against transformers on the meta device (tests/parity).
"""

from __future__ import annotations

import pytest

from config_models import errors, model


def _by_hand(h: int, layers: int, f: int, vocab: int, norm_bias: bool = False, attention_bias: bool = False,
             mlp_bias: bool = False) -> int:
    """ModernBertModel's parameters, written out."""
    ln = h * (2 if norm_bias else 1)
    attention = h * 3 * h + h * h + (4 * h if attention_bias else 0)
    mlp = h * 2 * f + f * h + (2 * f + h if mlp_bias else 0)
    return vocab * h + ln + layers * (attention + mlp) + (2 * layers - 1) * ln + ln


BASE = {"model_type": "modernbert"}  # the class defaults are ModernBERT-base's
LARGE = {**BASE, "hidden_size": 1024, "num_hidden_layers": 28, "intermediate_size": 2624, "num_attention_heads": 16}


@pytest.mark.parametrize("config, h, layers, f", [(BASE, 768, 22, 1152), (LARGE, 1024, 28, 2624)])
def test_published_sizes_by_hand(config: dict, h: int, layers: int, f: int) -> None:
    vocab = 50368
    bare = _by_hand(h, layers, f, vocab)
    assert model({**config, "architectures": ["ModernBertModel"]}).tree.total == bare
    # head.dense (no bias: classifier_bias false) + head.norm (no bias) + the tied decoder's bias
    mlm = bare + h * h + h + vocab
    assert model({**config, "architectures": ["ModernBertForMaskedLM"]}).tree.total == mlm
    classify = bare + h * h + h + (h * 2 + 2)  # two labels by default
    for head in ("Sequence", "Token"):
        assert model({**config, "architectures": [f"ModernBertFor{head}Classification"]}).tree.total == classify
    assert model({**config, "architectures": ["ModernBertForQuestionAnswering"]}).tree.total == classify
    assert model({**config, "architectures": ["ModernBertForMultipleChoice"]}).tree.total == bare + h * h + h + h + 1


def test_published_totals() -> None:
    assert model({**BASE, "architectures": ["ModernBertForMaskedLM"]}).tree.total == 149_655_232
    assert model({**LARGE, "architectures": ["ModernBertForMaskedLM"]}).tree.total == 395_881_664
    assert model({**BASE, "architectures": ["ModernBertModel"]}).tree.total == 149_014_272


SMALL = {"model_type": "modernbert", "vocab_size": 100, "pad_token_id": 0, "hidden_size": 16,
         "num_attention_heads": 4, "num_hidden_layers": 3, "intermediate_size": 24}


def test_structure_layer_zero_has_no_attention_norm() -> None:
    tree = model({**SMALL, "architectures": ["ModernBertModel"]}).tree
    assert list(tree.components()) == ["embeddings", "layers", "final_norm"]
    assert tree.root.child("embeddings").total == 100 * 16 + 16  # tokens + a LayerNorm without bias
    layers = tree.root.child("layers")
    first, rest = layers.child("layer"), layers.child("layers")
    assert first.repeat == 1 and rest.repeat == 2
    assert rest.child("norms").total - first.child("norms").total == 16
    assert rest.child("attention").total == 16 * 48 + 16 * 16
    assert rest.child("mlp").total == 16 * 48 + 24 * 16  # Wi is 2 × intermediate_size wide
    assert tree.total == _by_hand(16, 3, 24, 100)
    one = model({**SMALL, "num_hidden_layers": 1, "architectures": ["ModernBertModel"]}).tree
    assert one.root.child("layers").repeat == 1 and one.total == _by_hand(16, 1, 24, 100)


@pytest.mark.parametrize("switch", ["norm_bias", "attention_bias", "mlp_bias"])
def test_bias_switches(switch: str) -> None:
    cfg = {**SMALL, "architectures": ["ModernBertModel"], switch: True}
    assert model(cfg).tree.total == _by_hand(16, 3, 24, 100, **{switch: True})


def test_head_switches() -> None:
    mlm = {**SMALL, "architectures": ["ModernBertForMaskedLM"]}
    tied = model(mlm).tree.total
    assert model({**mlm, "tie_word_embeddings": False}).tree.total - tied == 100 * 16
    assert tied - model({**mlm, "decoder_bias": False}).tree.total == 100
    assert model({**mlm, "classifier_bias": True}).tree.total - tied == 16
    # norm_bias reaches the head's norm too: embeddings, 5 layer norms, final and head norms
    assert model({**mlm, "norm_bias": True}).tree.total - tied == 8 * 16
    labels = {**SMALL, "architectures": ["ModernBertForSequenceClassification"],
              "id2label": {str(i): str(i) for i in range(5)}}
    assert model(labels).tree.components()["classifier"] == 16 * 5 + 5
    choice = model({**labels, "architectures": ["ModernBertForMultipleChoice"]}).tree
    assert choice.components()["classifier"] == 16 + 1  # one score per choice, whatever the labels


def test_refusals_as_transformers_refuses() -> None:
    arch = {"architectures": ["ModernBertModel"]}
    # The class default pad_token_id (50283) indexes the token embedding: a small vocabulary refuses it.
    assert any("pad_token_id" in p.message for p in errors({**SMALL, **arch, "pad_token_id": 100}))
    assert not errors({**SMALL, **arch, "pad_token_id": -100})
    assert any("divide" in p.message for p in errors({**SMALL, **arch, "hidden_size": 18}))
    assert any("layer_types" in p.message for p in errors({**SMALL, **arch, "layer_types": ["full_attention"]}))
    assert any("layer_types" in p.message
               for p in errors({**SMALL, **arch, "layer_types": ["chunked_attention"] * 3}))
    assert any("global_attn_every_n_layers" in p.message
               for p in errors({**SMALL, **arch, "global_attn_every_n_layers": 0}))
    # read only where layer_types is absent
    assert not errors({**SMALL, **arch, "global_attn_every_n_layers": 0, "layer_types": ["full_attention"] * 3})
