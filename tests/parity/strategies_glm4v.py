"""Random small GLM-4.1V configs (glm4v, and its vision tower glm4v_vision), written as a config.json would be.

The text tower alone (glm4v_text) is a decoder row: strategies.decoder_config draws it.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_multimodal import _qwen_vision, _qwen_vl_rest, _text, nested_text


def glm4v_vision(draw, model_type: str = "glm4v_vision") -> dict:
    """A small Glm4vVisionConfig: blocks hidden_size wide whose gated MLP is out_hidden_size wide, the merger's
    MLP intermediate_size wide, a position table of (image_size // patch_size)² rows, depth / num_heads under
    either spelling (both: the alias wins), a qkv bias sometimes."""
    cfg = _qwen_vision(draw, model_type, "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("image_size", [0, 1, 14, 28, 45]),
                        ("attention_bias", [False, True]), ("hidden_act", ["silu", "gelu"])))
    cfg["architectures"] = ["Glm4vVisionModel"]
    return cfg


def glm4v_text(draw) -> dict:
    """A small Glm4vTextConfig as a text_config: heads that need not divide the width (floored), a top-level
    partial_rotary_factor sometimes (its config class moves it into rope_parameters)."""
    cfg = _text(draw, "glm4v_text")
    if draw(st.integers(0, 3)) == 0:
        cfg["hidden_size"] += draw(st.integers(1, cfg["num_attention_heads"]))
    _maybe(draw, "partial_rotary_factor", 0.5, cfg)
    _maybe(draw, "max_position_embeddings", draw(st.integers(16, 128)), cfg)
    return cfg


def glm4v(draw) -> dict:
    """GLM-4.1V: the text model nested (its model_type the family's, another, or none; sometimes its
    tie_word_embeddings, which Glm4vConfig forwards to the head when true) and sometimes text keys at the top
    level too, which the composite config does not read; the vision_config's model_type the composite's, the
    tower's or none; rarely no vision_config (the class's default tower, 24 blocks 1,536 wide)."""
    text = glm4v_text(draw)
    cfg = nested_text(draw, "glm4v", text, "glm4")
    return _qwen_vl_rest(draw, cfg, "glm4v", glm4v_vision, "out_hidden_size", text,
                         ["Glm4vForConditionalGeneration", "Glm4vModel"])


STRATEGIES["glm4v_vision"] = glm4v_vision
STRATEGIES["glm4v"] = glm4v


def glm4v_moe_vision(draw) -> dict:
    return {**glm4v_vision(draw, "glm4v_moe_vision"), "architectures": ["Glm4vMoeVisionModel"]}


def glm4v_moe_text(draw) -> dict:
    """A small Glm4vMoeTextConfig: experts under either spelling, dense layers first, shared experts (0 too), a
    head_dim of the file's own sometimes (its attention reads it), q/k/v biases by attention_bias."""
    cfg = _text(draw, "glm4v_moe_text")
    if draw(st.integers(0, 3)) == 0:
        cfg["hidden_size"] += draw(st.integers(1, cfg["num_attention_heads"]))
    _maybe(draw, "head_dim", draw(st.sampled_from([4, 6, 8])), cfg)
    experts = draw(st.integers(1, 4))
    cfg[draw(st.sampled_from(["n_routed_experts", "num_local_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(2, 16))
    for key, values in (("n_shared_experts", [0, 1, 2]), ("first_k_dense_replace", [0, 1, 2, 5]),
                        ("attention_bias", [False, True]), ("partial_rotary_factor", [0.5, 1.0])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = ["Glm4vMoeTextModel"]
    return cfg


def glm4v_moe(draw) -> dict:
    """GLM-4.5V: glm4v's composite (text nested, sometimes named otherwise, flat keys not read) over the MoE text
    model."""
    text = glm4v_moe_text(draw)
    text.pop("architectures")
    cfg = nested_text(draw, "glm4v_moe", text, "glm4_moe")
    return _qwen_vl_rest(draw, cfg, "glm4v_moe", glm4v_moe_vision, "out_hidden_size", text,
                         ["Glm4vMoeForConditionalGeneration", "Glm4vMoeModel"])


STRATEGIES["glm4v_moe_vision"] = glm4v_moe_vision
STRATEGIES["glm4v_moe_text"] = glm4v_moe_text
STRATEGIES["glm4v_moe"] = glm4v_moe


def _glm46v_classes(draw, model_type: str) -> dict:
    """GLM-4.6V's classes (``model_type`` glm46v, or glmga, GLM-4.1V-Thinking's): sub-configs resolved by the
    model_type they name: a GLM-4.1V text model (named or not) or GLM-4.5V's MoE one (named, as GLM-4.6V's files do),
    GLM-4.1V's tower under its own or the MoE tower's model_type, or none;
    text_config's tie_word_embeddings sometimes (not forwarded to the head)."""
    moe = draw(st.booleans())
    text = glm4v_moe_text(draw) if moe else glm4v_text(draw)
    text.pop("architectures", None)
    if not moe and draw(st.booleans()):
        text.pop("model_type")
    cfg: dict = {"model_type": model_type, "text_config": text}
    cfg = _qwen_vl_rest(draw, cfg, "glm4v", glm4v_vision, "out_hidden_size", text,
                        ["Glm46VForConditionalGeneration", "Glm46VModel"])
    vision = cfg.get("vision_config")
    if vision is not None and vision.get("model_type") == "glm4v":  # (_qwen_vl_rest's composite name: not a tower here)
        vision["model_type"] = draw(st.sampled_from(["glm4v_vision", "glm4v_moe_vision"]))
    cfg["model_type"] = model_type
    return cfg


def glm46v(draw) -> dict:
    return _glm46v_classes(draw, "glm46v")


def glmga(draw) -> dict:
    return _glm46v_classes(draw, "glmga")


STRATEGIES["glm46v"] = glm46v
STRATEGIES["glmga"] = glmga


def glm_ocr_vision(draw) -> dict:
    """A small GlmOcrVisionConfig: GLM-4V's tower keys, biases on the blocks' linears or not, 1 or 3 channels (the
    merger's MLP is out_hidden_size × in_channels wide)."""
    cfg = glm4v_vision(draw, "glm_ocr_vision")
    cfg["architectures"] = ["GlmOcrVisionModel"]
    return cfg


def glm_ocr_text(draw) -> dict:
    """A small GlmOcrTextConfig as a text_config: floored heads, or a head_dim of its own (its attention reads it)."""
    cfg = glm4v_text(draw)
    cfg["model_type"] = "glm_ocr_text"
    _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 6])), cfg)
    return cfg


def glm_ocr(draw) -> dict:
    """GLM-OCR: GLM-4.1V's composite over its own tower and text model."""
    text = glm_ocr_text(draw)
    cfg = nested_text(draw, "glm_ocr", text, "glm4")
    return _qwen_vl_rest(draw, cfg, "glm_ocr", glm_ocr_vision, "out_hidden_size", text,
                         ["GlmOcrForConditionalGeneration", "GlmOcrModel"])


def _glm_ocr_text_alone(draw) -> dict:
    cfg = glm_ocr_text(draw)
    cfg["architectures"] = ["GlmOcrTextModel"]
    return cfg


STRATEGIES["glm_ocr_vision"] = glm_ocr_vision
STRATEGIES["glm_ocr_text"] = _glm_ocr_text_alone
STRATEGIES["glm_ocr"] = glm_ocr
