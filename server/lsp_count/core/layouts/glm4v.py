"""GLM-4.1V / GLM-4.5V: GLM-4V's vision tower (Glm4vVisionModel), the text model and lm_head.

transformers 5.25's ``models/glm4v/modeling_glm4v.py``. The text model is a decoder row
(``families/glm4v.py``), built as its bare class by ``layouts/multimodal.language_model``.
"""

from __future__ import annotations

from lsp_count.core.layouts.multimodal import _lm_head, _subs, language_model
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError


def glm4v_vision(spec: ModelSpec, name: str = "visual") -> ParamNode:
    """Glm4vVisionModel as a node named ``name``: embeddings.position_embedding ((image_size // patch_size)² ×
    hidden_size), patch_embed (a Conv3d temporal_patch_size × patch_size², with a bias), ``num_layers`` blocks
    (norm1 / norm2 RMSNorms, attn.qkv with a bias where attention_bias, attn.proj without, a gated MLP
    hidden_size → out_hidden_size → hidden_size without biases), post_conv_layernorm (RMSNorm), downsample (a
    Conv2d spatial_merge_size square to out_hidden_size, with a bias), the merger (proj out_hidden_size square,
    a LayerNorm post_projection_norm with a bias, a gated MLP out_hidden_size → intermediate_size →
    out_hidden_size; no linear biases) and post_layernorm (RMSNorm). The rotary embedding holds buffers only.

    GLM-OCR's tower (the family's ``tower_variant`` "glm_ocr"): no position table nor post_conv_layernorm; its
    blocks' qkv, proj and MLP biased by attention_bias, RMS norms over each head's q and k (q_norm, k_norm:
    hidden_size // num_heads wide), the MLP intermediate_size wide; the merger's gated MLP out_hidden_size ×
    in_channels wide."""
    h, out, ffn = spec.int("hidden_size"), spec.int("out_hidden_size"), spec.int("intermediate_size")
    channels, patch, frames = spec.int("in_channels"), spec.int("patch_size"), spec.int("temporal_patch_size")
    merge, image = spec.int("spatial_merge_size"), spec.int("image_size")
    ocr = spec.values.get("tower_variant") == "glm_ocr"
    positions = (image // patch) ** 2
    embeddings = None if ocr else ParamNode("embeddings", embedding("position_embedding", positions, h),
                                            note=f"{positions:,} patch positions", source=spec.key_span("image_size")
                                            or spec.key_span("patch_size"), key="image_size")
    patch_embed = ParamNode("patch_embed", (Tensor("proj.weight", (h, channels, frames, patch, patch), "conv", "proj"),
                                            Tensor("proj.bias", (h,), "bias", "proj")),
                            note=f"Conv3d {frames}×{patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    bias = bool(spec.values.get("attention_bias"))
    block_bias = bias and ocr  # (GLM-4V's proj and MLP have none)
    attention = linear("qkv", h, 3 * h, bias) + linear("proj", h, h, block_bias)
    if ocr:
        head = h // spec.int("num_heads")
        attention += norm("q_norm", head, False) + norm("k_norm", head, False)
    width, width_key = (ffn, "intermediate_size") if ocr else (out, "out_hidden_size")
    blocks = node(
        "blocks",
        ParamNode("attention", attention, source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("mlp", linear("gate_proj", h, width, block_bias) + linear("up_proj", h, width, block_bias)
                  + linear("down_proj", width, h, block_bias), source=spec.key_span(width_key), key=width_key),
        ParamNode("norms", norm("norm1", h, False) + norm("norm2", h, False)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    post_conv = None if ocr else ParamNode("post_conv_layernorm", norm("post_conv_layernorm", h, False))
    downsample = ParamNode("downsample", (Tensor("downsample.weight", (out, h, merge, merge), "conv", "downsample"),
                                          Tensor("downsample.bias", (out,), "bias", "downsample")),
                           note=f"Conv2d {merge}×{merge} → {out:,}", source=spec.key_span("spatial_merge_size"),
                           key="spatial_merge_size")
    merged = out * channels if ocr else ffn
    merger = ParamNode("merger", linear("proj", out, out, False) + norm("post_projection_norm", out, True)
                       + linear("gate_proj", out, merged, False) + linear("up_proj", out, merged, False)
                       + linear("down_proj", merged, out, False),
                       source=spec.key_span("out_hidden_size" if ocr else "intermediate_size")
                       or spec.key_span("out_hidden_size"), key="out_hidden_size" if ocr else "intermediate_size")
    post = ParamNode("post_layernorm", norm("post_layernorm", h, False))
    return node(name, embeddings, patch_embed, blocks, post_conv, downsample, merger, post, source=spec.span,
                note=spec.model_type)


def build_glm4v_vision(spec: ModelSpec) -> ParamNode:
    """Glm4vVisionModel on its own (a config of model_type glm4v_vision)."""
    return ParamNode(spec.architecture, children=glm4v_vision(spec).children)


def build_glm4v(spec: ModelSpec) -> ParamNode:
    """Glm4vForConditionalGeneration (or the bare Glm4vModel; GLM-4.6V's the same): the vision tower, the text
    model, lm_head (tied by the composite's tie_word_embeddings or, where the family's "text_config_ties" is not
    false, text_config's, which Glm4vConfig forwards and Glm46VConfig does not)."""
    vision, text = _subs(spec)
    if vision.family.layout != "glm4v_vision":  # a config class that resolves vision_config's model_type (GLM-4.6V's)
        raise SpecError((Problem("error", "LC103", f"{vision.model_type} is not a vision tower lsp-count can count in "
                                                   f"{spec.model_type} (a glm4v_vision one)", vision.span or spec.span),))
    body = (glm4v_vision(vision), language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    text_ties = spec.values.get("text_config_ties", True)
    tied = bool(spec.values["tie_embeddings"]) or (bool(text_ties) and bool(text.values.get("tie_embeddings")))
    return node(spec.architecture, *body, _lm_head(spec, text, tied))
