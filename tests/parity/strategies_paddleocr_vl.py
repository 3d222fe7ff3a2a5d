"""Random small PaddleOCR-VL configs (paddleocr_vl, its vision tower paddleocr_vl_vision), written as a config.json
would be. Its text model alone (paddleocr_vl_text) is a decoder row: strategies.decoder_config draws it."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, name_sub_config
from .strategies_encoders import clip_vision
from .strategies_multimodal import _text


def paddleocr_vl_vision(draw) -> dict:
    """A small PaddleOCRVisionConfig: SigLIP's tower keys and the projector's spatial_merge_size."""
    cfg = clip_vision(draw, "paddleocr_vl_vision")
    for key in ("vision_use_head", "projection_dim"):
        cfg.pop(key, None)
    _maybe(draw, "spatial_merge_size", draw(st.integers(1, 3)), cfg)
    cfg["architectures"] = ["PaddleOCRVisionModel"]
    return cfg


def paddleocr_vl(draw) -> dict:
    """PaddleOCR-VL: its text model's keys nested or at the top level (the Hub's flat configs), biases sometimes, its
    tower (named as the tower, as the composite like old checkpoints, or not at all), the composite's tie and
    text_config's (forwarded when true)."""
    text = _text(draw, "paddleocr_vl_text")
    _maybe(draw, "use_bias", draw(st.booleans()), text)
    cfg: dict = {"model_type": "paddleocr_vl"}
    if draw(st.booleans()):
        cfg.update({k: v for k, v in text.items() if k not in ("model_type", "tie_word_embeddings")})
    else:
        if draw(st.booleans()):
            text.pop("model_type")
        cfg["text_config"] = text
    vision = paddleocr_vl_vision(draw)
    vision.pop("architectures")
    name_sub_config(draw, vision, ["paddleocr_vl_vision", "paddleocr_vl", None])
    cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["PaddleOCRVLForConditionalGeneration", "PaddleOCRVLModel"]))]
    return cfg


STRATEGIES["paddleocr_vl_vision"] = paddleocr_vl_vision
STRATEGIES["paddleocr_vl"] = paddleocr_vl
