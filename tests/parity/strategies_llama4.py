"""Random small Llama 4 configs (llama4, llama4_vision_model), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, llama4_text_config, name_sub_config
from .strategies_multimodal import nested_text


def llama4_vision(draw) -> dict:
    """A small Llama4VisionConfig: heads that need not divide the width (each hidden_size // heads wide, floored; never
    more heads than the width, which no attention builds), an image of one or more patches, the adapter's and the
    projector's widths (0 too: linears of no rows build), a pixel_shuffle_ratio (a float) or the class's."""
    heads = draw(st.sampled_from([1, 2, 3, 4]))
    cfg: dict = {"model_type": "llama4_vision_model",
                 "hidden_size": heads * draw(st.sampled_from([2, 4, 8])) + draw(st.integers(0, heads - 1)),
                 "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(0, 3)),
                 "intermediate_size": draw(st.integers(0, 24)), "vision_output_dim": draw(st.integers(0, 40)),
                 "projector_input_dim": draw(st.integers(0, 16)), "projector_output_dim": draw(st.integers(0, 16))}
    patch = draw(st.sampled_from([2, 7, 14]))
    cfg["patch_size"] = patch
    cfg["image_size"] = patch * draw(st.integers(1, 4)) + draw(st.integers(0, patch - 1))
    _maybe(draw, "num_channels", draw(st.sampled_from([1, 3])), cfg)
    _maybe(draw, "pixel_shuffle_ratio", draw(st.sampled_from([0.25, 0.5, 1.0, 2.0])), cfg)
    cfg["architectures"] = ["Llama4VisionModel"]
    return cfg


def llama4(draw) -> dict:
    """Llama 4 (Llama4ForConditionalGeneration): a llama4_text text_config (its MoE interleave, NoPE layers, chunked
    attention, tie_word_embeddings drawn by its strategy) whose model_type is the family's, another or none; mostly a
    vision_config (its model_type the tower's, another or none; else the class's 415M tower); the composite's own
    tie_word_embeddings sometimes (checked, not read)."""
    text = llama4_text_config(draw)
    text.pop("architectures", None)
    cfg = nested_text(draw, "llama4", text, "llama")
    if draw(st.integers(0, 9)):
        vision = llama4_vision(draw)
        vision.pop("architectures")
        name_sub_config(draw, vision, ["llama4_vision_model", "clip_vision_model", None])
        cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = ["Llama4ForConditionalGeneration"]
    return cfg


STRATEGIES["llama4_vision_model"] = llama4_vision
STRATEGIES["llama4"] = llama4
