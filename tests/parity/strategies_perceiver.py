"""Random small Idefics2 configs (idefics2, idefics2_vision, idefics2_perceiver), written as a config.json would be:
the vision and perceiver configs whole or sparse (the perceiver's hidden_size sometimes not the text model's: the
composite config replaces it), the text model a Mistral (the default, its model_type sometimes left out) or a Llama."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config


def _export_idefics2_parts() -> None:
    """transformers 5.25 builds Idefics2's vision tower and perceiver resampler (Idefics2VisionTransformer,
    Idefics2PerceiverResampler) but does not export them at its top level; the parity helpers look a family's
    class up there, so they are made reachable by their names (as strategies_multimodal does for Qwen2-VL's)."""
    try:
        from transformers.models.idefics2 import modeling_idefics2
    except ImportError:  # the parity tests skip without transformers (or torch)
        return
    import transformers  # after the modeling import, which puts a new transformers module in sys.modules

    for name in ("Idefics2VisionTransformer", "Idefics2PerceiverResampler"):
        if not hasattr(transformers, name):
            setattr(transformers, name, getattr(modeling_idefics2, name))


def _vision(draw) -> dict:
    heads = draw(st.integers(1, 4))
    patch = draw(st.integers(1, 6))
    return {"model_type": "idefics2_vision", "hidden_size": heads * draw(st.sampled_from([2, 4, 8])),
            "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 24)),
            "num_hidden_layers": draw(st.integers(1, 3)), "patch_size": patch,
            "image_size": patch * draw(st.integers(1, 4)) + draw(st.integers(0, patch - 1))}


def _perceiver(draw) -> dict:
    heads = draw(st.integers(1, 4))
    return {"model_type": "idefics2_perceiver", "hidden_size": draw(st.integers(1, 24)),
            "resampler_n_latents": draw(st.integers(1, 6)), "resampler_depth": draw(st.integers(0, 3)),
            "resampler_n_heads": heads, "resampler_head_dim": draw(st.integers(1, 6)),
            "num_key_value_heads": draw(st.integers(1, heads))}


def idefics2(draw) -> dict:
    text = decoder_config(draw, draw(st.sampled_from(["mistral", "mistral", "llama"])))
    text.pop("architectures", None)
    if text["model_type"] == "mistral" and draw(st.booleans()):
        text.pop("model_type")  # Idefics2Config's default text model is Mistral
    cfg: dict = {"model_type": "idefics2", "vision_config": _vision(draw), "perceiver_config": _perceiver(draw),
                 "text_config": text}
    for key in ("vision_config", "perceiver_config"):
        if draw(st.booleans()):
            cfg[key].pop("model_type")
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Idefics2ForConditionalGeneration", "Idefics2Model"]))]
    return cfg


_export_idefics2_parts()
STRATEGIES["idefics2_vision"] = lambda draw: {**_vision(draw), "architectures": ["Idefics2VisionTransformer"]}
STRATEGIES["idefics2_perceiver"] = lambda draw: {**_perceiver(draw), "architectures": ["Idefics2PerceiverResampler"]}
STRATEGIES["idefics2"] = idefics2
