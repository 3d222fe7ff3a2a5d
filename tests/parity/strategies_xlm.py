"""Random small configs of XLM and FlauBERT, written as a config.json would be: XLM's own key names (emb_dim,
n_heads, n_layers) or the attribute_map's (hidden_size, ...), languages, the sequence-summary keys, the heads."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import _architecture


def xlm_like(model_type: str):
    def draw_config(draw) -> dict:
        cfg: dict = {"model_type": model_type}
        vocab = draw(st.integers(8, 300))
        cfg[draw(st.sampled_from(["vocab_size", "n_words"]))] = vocab
        heads = draw(st.integers(1, 4))
        aliased = draw(st.booleans())
        cfg["hidden_size" if aliased else "emb_dim"] = heads * draw(st.integers(1, 6))
        cfg["num_attention_heads" if aliased else "n_heads"] = heads
        cfg["num_hidden_layers" if aliased else "n_layers"] = draw(st.integers(1, 3))
        cfg["pad_token_id"] = draw(st.integers(0, min(vocab - 1, 4)))
        _maybe(draw, "max_position_embeddings", draw(st.integers(4, 130)), cfg)
        _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
        _maybe(draw, "n_langs", draw(st.integers(1, 4)), cfg)
        _maybe(draw, "use_lang_emb", draw(st.booleans()), cfg)
        _maybe(draw, "sinusoidal_embeddings", draw(st.booleans()), cfg)
        _maybe(draw, "summary_type", draw(st.sampled_from(["first", "last", "mean", "cls_index"])), cfg)
        _maybe(draw, "summary_use_proj", draw(st.booleans()), cfg)
        _maybe(draw, "summary_proj_to_labels", draw(st.booleans()), cfg)
        if model_type == "flaubert":
            _maybe(draw, "pre_norm", draw(st.booleans()), cfg)
        arch = _architecture(draw, model_type, cfg)
        if arch.endswith("ForMultipleChoice") and draw(st.booleans()):
            cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}
        return cfg

    return draw_config


STRATEGIES["xlm"] = xlm_like("xlm")
STRATEGIES["flaubert"] = xlm_like("flaubert")
