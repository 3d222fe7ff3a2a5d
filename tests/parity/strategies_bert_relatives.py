"""Random small configs of I-BERT, LayoutLM and Splinter, written as a config.json would be: BERT's draw
(strategies_encoders.bert_like, cross-attention keys included, which these layers ignore) and each family's own
keys, left out at random."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import bert_like


def ibert(draw) -> dict:
    cfg = bert_like("ibert")(draw)
    # QuantEmbedding has no range check on its padding index: any pad_token_id builds (or none).
    _maybe(draw, "pad_token_id", draw(st.sampled_from([None, -3, 0, 1, 500])), cfg)
    _maybe(draw, "quant_mode", draw(st.booleans()), cfg)
    _maybe(draw, "force_dequant", draw(st.sampled_from(["none", "gelu", "softmax", "layernorm", "nonlinear"])), cfg)
    return cfg


def layoutlm(draw) -> dict:
    cfg = bert_like("layoutlm")(draw)
    _maybe(draw, "max_2d_position_embeddings", draw(st.integers(0, 40)), cfg)
    return cfg


STRATEGIES["ibert"] = ibert
STRATEGIES["layoutlm"] = layoutlm
STRATEGIES["splinter"] = bert_like("splinter")
