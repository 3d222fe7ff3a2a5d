"""Random small VideoLLaMA3 configs (video_llama_3, its vision tower video_llama_3_vision), written as a config.json
would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import clip_vision
from .strategies_multimodal import _llava_style, _own_vision_config


def video_llama_3_vision(draw) -> dict:
    """A small VideoLlama3VisionConfig: SigLIP's tower keys with no image_size (its class has none; a file's is not
    read), heads that divide the width."""
    cfg = clip_vision(draw, "video_llama_3_vision")
    if draw(st.integers(0, 3)):
        cfg.pop("image_size", None)
    for key in ("vision_use_head", "projection_dim"):
        cfg.pop(key, None)
    cfg["architectures"] = ["VideoLlama3VisionModel"]
    return cfg


def video_llama_3(draw) -> dict:
    """VideoLLaMA3: a Qwen2 (or Llama, Qwen3) text model, its own tower whatever model_type the vision_config names,
    the composite's tie and text_config's (which it forwards when true)."""
    cfg = _llava_style(draw, "video_llama_3", "VideoLlama3", ["qwen2", "llama", "qwen3"], ["video_llama_3_vision"])
    _own_vision_config(draw, cfg, video_llama_3_vision, ["video_llama_3_vision", "video_llama_3"])
    _maybe(draw, "image_token_id", 0, cfg)
    return cfg


STRATEGIES["video_llama_3_vision"] = video_llama_3_vision
STRATEGIES["video_llama_3"] = video_llama_3
