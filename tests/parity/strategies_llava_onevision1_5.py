"""Random small LLaVA-OneVision-1.5 configs (llava_onevision1_5, its RICE-ViT tower llava_onevision1_5_vision), written
as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, name_sub_config
from .strategies_multimodal import _qwen_vision, _text


def llava_onevision1_5_vision(draw) -> dict:
    """A small LlavaOnevision15VisionConfig: Qwen2.5-VL's tower keys (depth / num_heads or their aliases), an MLP
    intermediate_size wide, heads that leave the class embedding's rotary slot at least one wide."""
    cfg = _qwen_vision(draw, "llava_onevision1_5_vision", "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("layer_norm_eps", [1e-5])))
    cfg.pop("temporal_patch_size", None)  # (a Conv2d patch embedding: no such key)
    heads = draw(st.integers(1, 3))
    for key in ("num_heads", "num_attention_heads"):
        if key in cfg:
            cfg[key] = heads
    if "num_heads" not in cfg and "num_attention_heads" not in cfg:
        cfg["num_heads"] = heads
    cfg["hidden_size"] = 4 * heads * draw(st.integers(1, 3))  # (the class refuses a width 4 × heads does not divide)
    cfg["architectures"] = ["LlavaOnevision15VisionModel"]
    return cfg


def llava_onevision1_5(draw) -> dict:
    """LLaVA-OneVision-1.5: a nested text model (Qwen3 by default, or Qwen2, Llama), RICE-ViT (its model_type the
    tower's, the legacy rice_vit, the composite's or none) whose merger is as wide as the text model (the class
    refuses others), the composite's tie and text_config's (which it does not forward)."""
    kind = draw(st.sampled_from(["qwen3", "qwen2", "llama", None]))
    text = _text(draw, kind or "qwen3")
    if kind is None:
        text.pop("model_type")
    vision = llava_onevision1_5_vision(draw)
    vision.pop("architectures")
    vision["out_hidden_size"] = text["hidden_size"]
    name_sub_config(draw, vision, ["llava_onevision1_5_vision", "rice_vit", "llava_onevision1_5", None])
    cfg: dict = {"model_type": "llava_onevision1_5", "text_config": text, "vision_config": vision}
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["LlavaOnevision15ForConditionalGeneration", "LlavaOnevision15Model"]))]
    return cfg


STRATEGIES["llava_onevision1_5_vision"] = llava_onevision1_5_vision
STRATEGIES["llava_onevision1_5"] = llava_onevision1_5
