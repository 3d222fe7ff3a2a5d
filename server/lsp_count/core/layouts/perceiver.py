"""Perceiver-resampler vision-language models (Idefics2): a SigLIP-like vision tower, a connector (a gated MLP from
the tower's width to the language model's, then a perceiver resampler of learned latents cross-attending to the
image features), the language model (its bare class) and lm_head.
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm, vision_tower
from lsp_count.core.layouts.multimodal import language_model, no_sub_model
from lsp_count.core.params import ParamNode, Tensor, linear, node
from lsp_count.core.spec import ModelSpec


def _gated_mlp(prefix: str, width: int, middle: int, out: int) -> tuple[Tensor, ...]:
    """Idefics2MLP: gate_proj and up_proj to ``middle``, down_proj to ``out``; no biases."""
    return path_linear(f"{prefix}gate_proj", width, middle, False) + path_linear(f"{prefix}up_proj", width, middle, False) \
        + path_linear(f"{prefix}down_proj", middle, out, False)


def perceiver_resampler(spec: ModelSpec, width: int, name: str = "perceiver_resampler") -> ParamNode:
    """Idefics2PerceiverResampler as a node named ``name``, ``width`` wide (in a composite: the language model's, which
    the composite config sets): latents (resampler_n_latents × width), num_layers layers (three RMSNorms, q_proj and
    o_proj through resampler_n_heads × resampler_head_dim, k_proj and v_proj through num_key_value_heads ×
    resampler_head_dim, a gated MLP 4 × width wide; no biases), a final RMSNorm."""
    heads, kv, head_dim = spec.int("resampler_heads"), spec.int("resampler_kv_heads"), spec.int("resampler_head_dim")
    latents = ParamNode("latents", (Tensor("latents", (spec.int("resampler_latents"), width), "other", "latents"),),
                        source=spec.key_span("resampler_latents"), key="resampler_latents")
    attention = path_linear("self_attn.q_proj", width, heads * head_dim, False) \
        + path_linear("self_attn.k_proj", width, kv * head_dim, False) \
        + path_linear("self_attn.v_proj", width, kv * head_dim, False) \
        + path_linear("self_attn.o_proj", heads * head_dim, width, False)
    layers = node(
        "layers",
        ParamNode("self_attn", attention, source=spec.key_span("resampler_heads"), key="resampler_heads"),
        ParamNode("mlp", _gated_mlp("mlp.", width, 4 * width, width)),
        ParamNode("norms", path_norm("input_latents_norm", width, False) + path_norm("input_context_norm", width, False)
                  + path_norm("post_attention_layernorm", width, False)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    return node(name, latents, layers, ParamNode("norm", path_norm("norm", width, False)), source=spec.span,
                note=spec.model_type)


def build_perceiver(spec: ModelSpec) -> ParamNode:
    """Idefics2PerceiverResampler on its own (a config of model_type idefics2_perceiver), its own hidden_size wide."""
    return ParamNode(spec.architecture, children=perceiver_resampler(spec, spec.int("hidden_size")).children)


def build_idefics2(spec: ModelSpec) -> ParamNode:
    """Idefics2ForConditionalGeneration (or the bare Idefics2Model): vision_model, connector (modality_projection:
    the tower's width → text_config's intermediate_size → its hidden_size; the perceiver resampler as wide as the
    language model), the language model and lm_head (its own, tied by the composite's tie_word_embeddings alone)."""
    vision, resampler, text = (spec.subspecs.get(k) for k in ("vision", "perceiver", "text"))
    if vision is None or resampler is None or text is None:
        raise no_sub_model(spec, "a vision_config, a perceiver_config and a text_config")
    th, vh = text.int("hidden_size"), vision.int("hidden_size")
    connector = node("connector",
                     ParamNode("modality_projection", _gated_mlp("modality_projection.", vh, text.int("intermediate_size"), th),
                               source=text.key_span("intermediate_size"), key="intermediate_size"),
                     perceiver_resampler(resampler, th))
    body = (vision_tower(vision, "vision_model"), connector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    tied = bool(spec.values["tie_embeddings"])
    head = ParamNode("lm_head", () if tied else linear("lm_head", th, text.int("vocab_size"), False),
                     note="tied to the language model's embed_tokens (counted once)" if tied else "",
                     source=spec.key_span("tie_embeddings") or text.key_span("vocab_size"), key="tie_embeddings")
    return node(spec.architecture, *body, head)
