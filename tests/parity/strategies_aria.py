"""Random small configs of Aria's text model (aria_text), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import clip_vision


def aria_text(draw) -> dict:
    """A small AriaTextConfig: a width the heads divide (the class refuses others), key/value heads or not (then as
    many as the query heads), a head width of its own or not, experts intermediate_size wide behind moe_topk, 0 to 3
    shared experts, biases on the attention and the MLPs sometimes."""
    heads = draw(st.integers(1, 4))
    experts = draw(st.integers(1, 5))
    cfg: dict = {"model_type": "aria_text", "vocab_size": draw(st.integers(8, 200)),
                 "hidden_size": heads * draw(st.sampled_from([2, 4, 8])), "num_hidden_layers": draw(st.integers(1, 4)),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 40)),
                 "moe_num_experts": experts, "moe_topk": draw(st.integers(1, experts)), "pad_token_id": 0}
    if draw(st.booleans()):
        cfg["num_key_value_heads"] = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    for key, values in (("head_dim", [2, 4, 6]), ("moe_num_shared_experts", [0, 1, 2, 3]),
                        ("attention_bias", [False, True]), ("mlp_bias", [False, True]),
                        ("tie_word_embeddings", [False, True])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["AriaTextForCausalLM", "AriaTextModel"]))]
    return cfg


def aria(draw) -> dict:
    """Aria: its text model (text_config always AriaTextConfig, whatever model_type it names), an Idefics3 vision tower
    or a SigLIP one, the projector's patch-to-query table (keys and values as numbers or texts) or its default, its
    saved largest value sometimes, and the composite's tie_word_embeddings sometimes (text_config's too, which it
    does not read)."""
    text = aria_text(draw)
    text.pop("architectures")
    if draw(st.booleans()):
        text.pop("model_type")
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), text)
    vision_type = draw(st.sampled_from(["idefics3_vision", "siglip_vision_model"]))
    vision = clip_vision(draw, vision_type)
    vision.pop("architectures", None)
    if vision_type == "idefics3_vision" and draw(st.booleans()):
        vision.pop("model_type")  # (the default: an Idefics3 tower)
    cfg: dict = {"model_type": "aria", "text_config": text, "vision_config": vision}
    if draw(st.booleans()):
        queries = draw(st.lists(st.integers(1, 9), min_size=1, max_size=3))
        cfg["projector_patch_to_query_dict"] = {str(4 * (i + 1)): draw(st.sampled_from([q, str(q)]))
                                                for i, q in enumerate(queries)}
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    # (saved by AriaConfig; written, it wins over the table's largest value)
    _maybe(draw, "max_value_projector_patch_to_query_dict", draw(st.integers(0, 9)), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["AriaForConditionalGeneration", "AriaModel"]))]
    return cfg


STRATEGIES["aria_text"] = aria_text
STRATEGIES["aria"] = aria
