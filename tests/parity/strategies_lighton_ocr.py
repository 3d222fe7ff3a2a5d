"""Random small LightOnOCR configs (lighton_ocr), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_multimodal import _text, pixtral_subconfig


def lighton_ocr(draw) -> dict:
    """LightOnOCR: a Qwen3 text model (or another decoder; the class default when text_config names none), a Pixtral
    tower (mostly; rarely none: LightOnOCR's own, big), the patch merge, the composite's tie_word_embeddings and
    text_config's (which it does not read)."""
    cfg: dict = {"model_type": "lighton_ocr"}
    text_type = draw(st.sampled_from(["qwen3", "llama", "qwen2"]))
    text = _text(draw, text_type)
    if text_type == "qwen3" and draw(st.booleans()):
        text.pop("model_type")  # LightOnOcrConfig's default text model is qwen3
    cfg["text_config"] = text
    pixtral_subconfig(draw, cfg)
    _maybe(draw, "spatial_merge_size", draw(st.sampled_from([1, 2, 3])), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["LightOnOcrForConditionalGeneration", "LightOnOcrModel"]))]
    return cfg


STRATEGIES["lighton_ocr"] = lighton_ocr
