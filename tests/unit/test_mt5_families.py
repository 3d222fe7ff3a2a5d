"""mT5 and umT5 without torch: counts worked out by hand from the modelling code.

Both are T5 (RMS norms, bias-free q/k/v/o heads × d_kv wide, a gated-gelu wi_0/wi_1/wo MLP, one
shared embedding) with other config defaults: a 250,112-token vocabulary, d_model 512, d_ff 1024,
8 layers of 6 heads. umT5 gives every block's self-attention its own relative_attention_bias table;
T5 and mT5 only block 0 of each stack. transformers 5 ties the lm_head of all three to the shared
embedding whatever tie_word_embeddings says (tests/parity checks these against the meta device).
"""

from __future__ import annotations

import pytest

from config_models import errors, model

MT5_BASE = {"architectures": ["MT5ForConditionalGeneration"], "model_type": "mt5", "d_model": 768, "d_ff": 2048,
            "d_kv": 64, "num_heads": 12, "num_layers": 12, "num_decoder_layers": 12, "vocab_size": 250112,
            "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}


def by_hand(vocab: int, d: int, d_kv: int, heads: int, d_ff: int, enc: int, dec: int, buckets: int = 32,
            every_layer: bool = False) -> int:
    """shared embedding + encoder + decoder, lm_head tied (counted once)."""
    attn = 4 * d * heads * d_kv
    mlp = 3 * d * d_ff  # gated: wi_0, wi_1 (d -> d_ff), wo (d_ff -> d)
    table = buckets * heads
    encoder = enc * (attn + mlp + 2 * d) + d + (enc if every_layer else 1) * table
    decoder = dec * (2 * attn + mlp + 3 * d) + d + (dec if every_layer else 1) * table
    return vocab * d + encoder + decoder


@pytest.mark.parametrize("model_type, arch, every_layer", [
    ("mt5", "MT5ForConditionalGeneration", False),
    ("umt5", "UMT5ForConditionalGeneration", True),
])
def test_class_defaults_are_mt5_small(model_type: str, arch: str, every_layer: bool) -> None:
    m = model({"model_type": model_type, "architectures": [arch]})
    assert m.tree.total == by_hand(250112, 512, 64, 6, 1024, 8, 8, every_layer=every_layer)
    assert m.tree.total == (172_122_112 if every_layer else 172_119_424)
    assert "tied" in m.tree.root.child("lm_head").note


def test_mt5_base_counts_the_head_once_and_says_what_the_checkpoint_holds() -> None:
    m = model(MT5_BASE)
    assert m.tree.total == by_hand(250112, 768, 64, 12, 2048, 12, 12) == 390_315_264
    # The checkpoint's own lm_head is another 250,112 × 768: 582,401,280 with it.
    assert any("MT5's lm_head" in n and "separate lm_head (192,086,016 parameters)" in n for n in m.spec.notes)


def test_umt5_has_a_relative_bias_table_in_every_block() -> None:
    umt5 = model({**MT5_BASE, "model_type": "umt5", "architectures": ["UMT5ForConditionalGeneration"]})
    rel = [(path.split(".")[1], t.shape, n) for path, t, n, _ in umt5.tree.root.iter_tensors()
           if t.module == "relative_attention_bias"]
    assert rel == [("encoder", (32, 12), 12), ("decoder", (32, 12), 12)]
    assert umt5.tree.total == by_hand(250112, 768, 64, 12, 2048, 12, 12, every_layer=True)
    # mT5 keeps T5's one table per stack.
    mt5 = model(MT5_BASE)
    assert umt5.tree.total - mt5.tree.total == (12 + 12 - 2) * 32 * 12
    more = model({**MT5_BASE, "model_type": "umt5", "architectures": ["UMT5ForConditionalGeneration"],
                  "relative_attention_num_buckets": 64})
    assert more.tree.total - umt5.tree.total == (12 + 12) * 32 * 12


def test_umt5_decoder_depth_sets_its_tables() -> None:
    cfg = {**MT5_BASE, "model_type": "umt5", "architectures": ["UMT5ForConditionalGeneration"], "num_decoder_layers": 4}
    assert model(cfg).tree.total == by_hand(250112, 768, 64, 12, 2048, 12, 4, every_layer=True)
    del cfg["num_decoder_layers"]  # absent: num_layers
    assert model(cfg).tree.total == by_hand(250112, 768, 64, 12, 2048, 12, 12, every_layer=True)


@pytest.mark.parametrize("model_type, prefix", [("mt5", "MT5"), ("umt5", "UMT5")])
def test_heads(model_type: str, prefix: str) -> None:
    base = {**MT5_BASE, "model_type": model_type}
    full = model({**base, "architectures": [f"{prefix}ForConditionalGeneration"]}).tree
    assert model({**base, "architectures": [f"{prefix}Model"]}).tree.total == full.total
    encoder_only = model({**base, "architectures": [f"{prefix}EncoderModel"]}).tree
    assert encoder_only.components().keys() == {"shared_embeddings", "encoder"}
    assert encoder_only.total == full.total - full.root.child("decoder").total
    clf = model({**base, "architectures": [f"{prefix}ForSequenceClassification"], "id2label": {"0": "a", "1": "b"}})
    assert clf.tree.total == full.total + 768 * 768 + 768 + 768 * 2 + 2


def test_relu_feed_forward_is_ungated() -> None:
    relu = model({**MT5_BASE, "feed_forward_proj": "relu"}).tree
    assert relu.total == model(MT5_BASE).tree.total - (12 + 12) * 768 * 2048
    assert [t.module for t in relu.root.find("encoder.layers.mlp").tensors] == ["wi", "wo"]


def test_a_null_tie_is_refused_by_mt5_only() -> None:
    # MT5Config declares tie_word_embeddings a strict bool; T5Config and UMT5Config pop the key.
    errs = errors({**MT5_BASE, "tie_word_embeddings": None})
    assert len(errs) == 1 and '"tie_word_embeddings": null' in errs[0].message
    assert not errors({**MT5_BASE, "model_type": "umt5", "architectures": ["UMT5ForConditionalGeneration"],
                       "tie_word_embeddings": None})


@pytest.mark.parametrize("model_type", ["mt5", "umt5"])
def test_bad_feed_forward_proj_is_an_error(model_type: str) -> None:
    errs = errors({**MT5_BASE, "model_type": model_type, "architectures": [], "feed_forward_proj": "gelu-gated"})
    assert len(errs) == 1 and errs[0].code == "LC103"
