"""Random small configs of BERT's relatives (bert-generation, ernie, xmod, roc_bert, modernbert-decoder), written as
a config.json would be: BERT's draw (strategies_encoders.bert_like) or ModernBERT's keys, and each family's own keys,
left out at random."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import bert_like, modernbert


def ernie(draw) -> dict:
    cfg = bert_like("ernie")(draw)
    _maybe(draw, "use_task_id", draw(st.booleans()), cfg)
    _maybe(draw, "task_type_vocab_size", draw(st.integers(0, 5)), cfg)
    return cfg


def xmod(draw) -> dict:
    cfg = bert_like("xmod")(draw)
    _maybe(draw, "pre_norm", draw(st.booleans()), cfg)
    _maybe(draw, "adapter_reduction_factor", draw(st.integers(1, 5)), cfg)
    _maybe(draw, "adapter_layer_norm", draw(st.booleans()), cfg)
    _maybe(draw, "adapter_reuse_layer_norm", draw(st.booleans()), cfg)
    _maybe(draw, "ln_before_adapter", draw(st.booleans()), cfg)
    # A language written twice is one adapter (an nn.ModuleDict key).
    _maybe(draw, "languages", draw(st.lists(st.sampled_from(["en_XX", "de_DE", "fr_XX", "ja_XX"]), max_size=4)), cfg)
    return cfg


def roc_bert(draw) -> dict:
    cfg = bert_like("roc_bert")(draw)
    for key in ("enable_pronunciation", "enable_shape", "concat_input"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    # The tables pad with pad_token_id (0 or 1 here): at least 2 rows each.
    for key in ("pronunciation_vocab_size", "shape_vocab_size"):
        _maybe(draw, key, draw(st.integers(2, 40)), cfg)
    for key in ("pronunciation_embed_dim", "shape_embed_dim"):
        _maybe(draw, key, draw(st.integers(1, 24)), cfg)
    return cfg


def modernbert_decoder(draw) -> dict:
    """ModernBERT's keys (norm, attention, MLP, head and decoder biases; layer types given or derived from
    global_attn_every_n_layers), run causally."""
    return modernbert(draw, "modernbert-decoder")


STRATEGIES["bert-generation"] = bert_like("bert-generation")
STRATEGIES["ernie"] = ernie
STRATEGIES["xmod"] = xmod
STRATEGIES["roc_bert"] = roc_bert
STRATEGIES["modernbert-decoder"] = modernbert_decoder
