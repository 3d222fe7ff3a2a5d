"""Random small RecurrentGemma (Griffin) configs, written as a config.json would be.

Optional keys left out at random so RecurrentGemmaConfig's defaults are exercised (lru_width: hidden_size;
num_key_value_heads: the heads; block_types: recurrent, recurrent, attention; head_dim: hidden_size // heads,
floored), a cycle of block types of one to four entries so that both kinds of layer appear, the window under
either of its names, an ``architectures[0]`` drawn among the heads we model.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture


def recurrent_gemma_config(draw) -> dict:
    cfg: dict = {"model_type": "recurrent_gemma", "vocab_size": draw(st.integers(8, 200)), "pad_token_id": 0,
                 "bos_token_id": 0, "eos_token_id": 0}
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["num_attention_heads"] = heads
    _maybe(draw, "num_key_value_heads", draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])), cfg)
    if draw(st.booleans()):  # hidden_size a multiple of the heads, head_dim derived
        hidden = heads * draw(st.sampled_from([2, 4, 6, 8]))
    else:  # any width: the head width floors, or the file writes its own
        hidden = draw(st.integers(8, 20))
        _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 6, 8])), cfg)
    cfg["hidden_size"] = hidden
    width = cfg.get("head_dim", hidden // heads)
    if width % 2 == 0:  # (an odd width fully rotated is refused: tests/parity/test_rope_odd_width_parity.py's)
        _maybe(draw, "partial_rotary_factor", draw(st.sampled_from([0.25, 0.5, 1.0])), cfg)
    cfg["num_hidden_layers"] = draw(st.integers(1, 6))
    cfg["intermediate_size"] = draw(st.integers(1, 48))
    _maybe(draw, "lru_width", heads * draw(st.integers(1, 6)), cfg)
    _maybe(draw, "conv1d_width", draw(st.integers(1, 5)), cfg)
    _maybe(draw, "block_types", draw(st.lists(st.sampled_from(["recurrent", "attention"]), min_size=1, max_size=4)),
           cfg)
    _maybe(draw, draw(st.sampled_from(["attention_window_size", "sliding_window"])), draw(st.integers(1, 9)), cfg)
    for key in ("attention_bias", "tie_word_embeddings"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "recurrent_gemma", cfg)
    return cfg


STRATEGIES["recurrent_gemma"] = recurrent_gemma_config
