"""Random small Qianfan-OCR configs (qianfan_ocr, its vision tower qianfan_ocr_vision), written as a config.json
would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_multimodal import _llava_style, _own_vision_config, internvl_vision


def qianfan_ocr_vision(draw) -> dict:
    """A small QianfanOCRVisionConfig: InternVL's tower keys (q/k/v biases on by default)."""
    cfg = internvl_vision(draw)
    cfg["model_type"] = "qianfan_ocr_vision"
    cfg["architectures"] = ["QianfanOCRVisionModel"]
    return cfg


def qianfan_ocr(draw) -> dict:
    """Qianfan-OCR: a Qwen3 (or Qwen2, Llama) text model, the composite's own tower whatever model_type the
    vision_config names, the projector's downsample_ratio, the composite's tie (false by default)."""
    cfg = _llava_style(draw, "qianfan_ocr", "QianfanOCR", ["qwen3", "qwen2", "llama"], ["qianfan_ocr_vision"])
    _own_vision_config(draw, cfg, qianfan_ocr_vision, ["qianfan_ocr_vision", "qianfan_ocr"])
    _maybe(draw, "downsample_ratio", draw(st.sampled_from([0.5, 0.25, 1.0, 0.3])), cfg)
    return cfg


STRATEGIES["qianfan_ocr_vision"] = qianfan_ocr_vision
STRATEGIES["qianfan_ocr"] = qianfan_ocr
