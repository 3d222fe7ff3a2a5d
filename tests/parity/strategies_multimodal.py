"""Random small vision-language configs (llava, gemma3), written as a config.json would be.

Nested sub-configs are sparse, as published ones are: keys left out take the
sub-model class's defaults, and a missing ``vision_config`` takes the composite
class's default tower.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import clip_vision


def _text(draw, model_type: str) -> dict:
    """A small decoder text_config; every size given (the sub-class defaults are billions)."""
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    head_dim = draw(st.sampled_from([4, 8]))
    vocab = draw(st.integers(8, 300))
    cfg: dict = {"model_type": model_type, "vocab_size": vocab, "hidden_size": heads * head_dim,
                 "num_attention_heads": heads, "num_key_value_heads": kv,
                 "num_hidden_layers": draw(st.integers(1, 3)), "intermediate_size": draw(st.integers(4, 48)),
                 "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
    if model_type.startswith("gemma") or model_type == "qwen3":
        cfg["head_dim"] = head_dim  # these classes default head_dim to a fixed 128/256
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    return cfg


def _vision(draw, model_type: str) -> dict:
    cfg = clip_vision(draw, model_type)
    if draw(st.booleans()):
        cfg.pop("model_type")  # the composite's default vision model_type applies
    return cfg


def llava(draw) -> dict:
    cfg: dict = {"model_type": "llava"}
    text_type = draw(st.sampled_from(["llama", "mistral", "qwen2", "gemma2"]))
    cfg["text_config"] = _text(draw, text_type)
    if text_type == "llama" and draw(st.booleans()):
        cfg["text_config"].pop("model_type")  # LlavaConfig's default text model is llama
    vision_type = draw(st.sampled_from(["clip_vision_model", "siglip_vision_model"]))
    if vision_type == "clip_vision_model" and draw(st.integers(0, 9)) == 0:
        pass  # no vision_config: LlavaConfig's CLIP ViT-L/14-336 tower (big, so drawn rarely)
    else:
        cfg["vision_config"] = _vision(draw, vision_type)
        if vision_type == "siglip_vision_model":
            cfg["vision_config"]["model_type"] = vision_type
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2, [-2, -1], [-3, -2, -1]])), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["image_token_index"] = 0
    cfg["architectures"] = [draw(st.sampled_from(["LlavaForConditionalGeneration", "LlavaModel"]))]
    return cfg


def gemma3(draw) -> dict:
    cfg: dict = {"model_type": "gemma3"}
    text = _text(draw, "gemma3_text")
    if draw(st.booleans()):
        text.pop("model_type")  # Gemma3Config always builds a Gemma3TextConfig
    cfg["text_config"] = text
    cfg["vision_config"] = _vision(draw, "siglip_vision_model")
    # The projector pools patches_per_image² patches down to mm_tokens_per_image; keep the pool legal.
    vision = cfg["vision_config"]
    per_side = vision["image_size"] // vision["patch_size"]
    cfg["mm_tokens_per_image"] = draw(st.integers(1, per_side)) ** 2
    for key in ("boi_token_index", "eoi_token_index", "image_token_index"):
        cfg[key] = draw(st.integers(0, text["vocab_size"] - 1))
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    arch = draw(st.sampled_from(["Gemma3ForConditionalGeneration", "Gemma3Model", "Gemma3ForSequenceClassification"]))
    cfg["architectures"] = [arch]
    if arch.endswith("Classification") and draw(st.booleans()):
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}
    return cfg


STRATEGIES["llava"] = llava
STRATEGIES["gemma3"] = gemma3
