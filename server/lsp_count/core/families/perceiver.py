"""Perceiver-resampler vision-language families: Idefics2 (layouts/perceiver.py) and its perceiver resampler.

Idefics2Config builds its vision config (idefics2_vision, a row in multimodal.py) and perceiver config as its own
classes whatever model_type they name, the text config through AutoConfig (Mistral by default, with the
composite's own max_position_embeddings, rms_norm_eps and pad_token_id when text_config is absent), and sets the
perceiver's hidden_size to the text model's. Defaults are the transformers (v5) config classes' (idefics2-8b's).
"""

from __future__ import annotations

from lsp_count.core.families.decoders import fixed
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec


def _kv_heads_within_heads(spec: ModelSpec) -> list[Problem]:
    """Idefics2PerceiverConfig.validate_architecture refuses more key/value heads than heads (fewer that do not
    divide them build)."""
    kv, heads = spec.values.get("resampler_kv_heads"), spec.values.get("resampler_heads")
    if type(kv) is not int or type(heads) is not int or kv <= heads:
        return []
    return [Problem("error", "LC103", f"num_key_value_heads ({kv}) is more than resampler_n_heads ({heads}): "
                                      "Idefics2PerceiverConfig refuses it",
                    spec.key_span("resampler_kv_heads") or spec.key_span("resampler_heads") or spec.span)]


PERCEIVER: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 4096, doc="width of the latents (in Idefics2: the language model's)"),
    "resampler_latents": Field(("resampler_n_latents",), 64, minimum=0, doc="learned latents: image tokens per image"),
    "num_layers": Field(("resampler_depth",), 3, minimum=0, doc="perceiver layers"),
    "resampler_heads": Field(("resampler_n_heads",), 16, minimum=0, doc="attention heads (q_proj, o_proj)"),
    "resampler_head_dim": Field(("resampler_head_dim",), 96, minimum=0, doc="width of each attention head"),
    "resampler_kv_heads": Field(("num_key_value_heads",), 4, doc="key/value heads (k_proj, v_proj)"),
}

FAMILIES: tuple[Family, ...] = (
    Family("idefics2_perceiver", "perceiver", "Idefics2PerceiverResampler", PERCEIVER,
           {"Idefics2PerceiverResampler": "base"}, checks=(_kv_heads_within_heads,)),
    Family("idefics2", "idefics2", "Idefics2ForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "text_defaults": fixed({"model_type": "mistral", "max_position_embeddings": 32768, "rms_norm_eps": 1e-5,
                                "pad_token_id": 0}),
    }, {"Idefics2ForConditionalGeneration": "conditional_generation", "Idefics2Model": "base"},
        subconfigs={"vision": ("vision_config", "idefics2_vision"), "perceiver": ("perceiver_config", "idefics2_perceiver"),
                    "text": ("text_config", "mistral")},
        fixed_subconfigs=("vision", "perceiver")),
)
