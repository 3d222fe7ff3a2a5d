"""Random small ESM configs (ESM-2, ESM-1b), written as a config.json would be.

vocab_size always given (EsmConfig has no default for it); position_embedding_type "absolute" (a position table),
"rotary", another string or null (no table); emb_layer_norm_before true, false or null; decoder use with or
without cross-attention; keys without parameters (token_dropout, mask_token_id, is_folding_model false) drawn or
left out; ``architectures[0]`` any ESM class lsp-count counts.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import REQUIRED_KEYS, STRATEGIES, _maybe
from .strategies_encoders import _architecture, _text

# EsmConfig's vocab_size defaults to None, which the word embedding cannot be built with: ESM-2's 33.
REQUIRED_KEYS["esm"] = {"vocab_size": 33}


def esm(draw) -> dict:
    cfg = _text(draw, "esm")
    _maybe(draw, "position_embedding_type", draw(st.sampled_from(["absolute", "rotary", "relative_key", None])), cfg)
    _maybe(draw, "emb_layer_norm_before", draw(st.sampled_from([True, False, None])), cfg)
    _maybe(draw, "token_dropout", draw(st.booleans()), cfg)
    _maybe(draw, "mask_token_id", draw(st.integers(0, 7)), cfg)
    _maybe(draw, "is_folding_model", False, cfg)
    _architecture(draw, "esm", cfg)
    if draw(st.booleans()):
        cfg["is_decoder"] = True
        _maybe(draw, "add_cross_attention", draw(st.booleans()), cfg)
    else:
        _maybe(draw, "is_decoder", draw(st.sampled_from([False, None])), cfg)
    return cfg


STRATEGIES["esm"] = esm
