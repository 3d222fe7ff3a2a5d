"""Random small EXAONE 4.5 configs (exaone4_5, its vision tower exaone4_5_vision), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, name_sub_config
from .strategies_multimodal import _qwen_vision, _text


def exaone4_5_vision(draw) -> dict:
    """A small Exaone4_5_VisionConfig: Qwen2.5-VL's tower keys, and key/value heads (more than the query heads too,
    or none: the class's 8)."""
    cfg = _qwen_vision(draw, "exaone4_5_vision", "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("window_size", [112]),
                        ("fullatt_block_indexes", [[0], [7, 15, 23, 31]])))
    _maybe(draw, "num_key_value_heads", draw(st.integers(1, 5)), cfg)
    cfg["architectures"] = ["Exaone4_5_VisionModel"]
    return cfg


def exaone4_5(draw) -> dict:
    """EXAONE 4.5: a text model (EXAONE 4 by default, its first releases' exaone4_5_text, or another decoder), the
    vision tower (its model_type the tower's, the composite's or none: always its own class), its merger mostly as
    wide as the text model; the composite's tie_word_embeddings and text_config's (which it does not forward)."""
    # (always a model_type: Exaone4_5_Config reads it, and fails without one)
    kind = draw(st.sampled_from(["exaone4", "exaone4_5_text", "llama"]))
    text = _text(draw, "llama" if kind == "llama" else "exaone4")
    text["model_type"] = kind
    cfg: dict = {"model_type": "exaone4_5", "text_config": text}
    vision = exaone4_5_vision(draw)
    vision.pop("architectures")
    vision["out_hidden_size"] = text["hidden_size"] if draw(st.integers(0, 3)) else vision.get("out_hidden_size", 8)
    name_sub_config(draw, vision, ["exaone4_5", "exaone4_5_vision", None])
    cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Exaone4_5_ForConditionalGeneration", "Exaone4_5_Model"]))]
    return cfg


STRATEGIES["exaone4_5_vision"] = exaone4_5_vision
STRATEGIES["exaone4_5"] = exaone4_5
