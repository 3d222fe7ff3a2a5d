"""Llama 4: the vision tower (Llama4VisionModel) alone, and the composite (Llama4ForConditionalGeneration).

transformers 5.25's ``models/llama4/modeling_llama4.py``. The text model is a decoder row (``llama4_text``), built as
its bare class by ``layouts/multimodal.language_model``; the composite holds the whole Llama4ForCausalLM
(language_model.model, language_model.lm_head) beside vision_model and multi_modal_projector, at its top (no
``model`` wrapper).
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import _lm_head, _subs, language_model
from lsp_count.core.params import ParamNode, Tensor, node
from lsp_count.core.spec import ModelSpec


def vision_positions(spec: ModelSpec) -> int:
    """Positions of one image: (image_size // patch_size)² patches and the class token."""
    return (spec.int("image_size") // spec.int("patch_size")) ** 2 + 1


def llama4_vision(spec: ModelSpec, name: str = "vision_model") -> ParamNode:
    """Llama4VisionModel as a node named ``name``: the unfold patch embedding (a linear from num_channels ×
    patch_size² values, no bias), class_embedding, positional_embedding_vlm (a row per position), layernorm_pre /
    layernorm_post, ``num_hidden_layers`` encoder layers (model.layers: q/k/v/o_proj heads × (hidden_size // heads)
    wide with biases, fc1 / fc2 with biases, two LayerNorms), and the pixel-shuffle adapter (vision_adapter.mlp: fc1
    from intermediate_size to projector_input_dim, fc2 projector_output_dim square, no biases). The rotary embedding's
    frequencies are a buffer."""
    h, ffn, heads = spec.int("hidden_size"), spec.int("intermediate_size"), spec.int("num_heads")
    channels, patch = spec.int("num_channels"), spec.int("patch_size")
    positions = vision_positions(spec)
    width = heads * (h // heads)
    patch_embedding = ParamNode("patch_embedding", path_linear("patch_embedding.linear", channels * patch * patch, h,
                                                               False),
                                note=f"unfold {patch}×{patch} patches", source=spec.key_span("patch_size"),
                                key="patch_size")
    embeddings = ParamNode("embeddings", (
        Tensor("class_embedding", (h,), "other", "class_embedding"),
        Tensor("positional_embedding_vlm", (positions, h), "embedding", "positional_embedding_vlm"),
    ), note=f"{positions:,} positions", source=spec.key_span("image_size"), key="image_size")
    norms = ParamNode("layernorms", path_norm("layernorm_pre", h) + path_norm("layernorm_post", h))
    attention = ParamNode("attention", path_linear("self_attn.q_proj", h, width)
                          + path_linear("self_attn.k_proj", h, width) + path_linear("self_attn.v_proj", h, width)
                          + path_linear("self_attn.o_proj", width, h), source=spec.key_span("num_heads"),
                          key="num_heads")
    mlp = ParamNode("mlp", path_linear("mlp.fc1", h, ffn) + path_linear("mlp.fc2", ffn, h),
                    source=spec.key_span("intermediate_size"), key="intermediate_size")
    layer_norms = ParamNode("norms", path_norm("input_layernorm", h) + path_norm("post_attention_layernorm", h))
    layers = spec.int("num_layers")
    stack = node("layers", attention, mlp, layer_norms, repeat=layers, source=spec.key_span("num_layers"),
                 key="num_layers") if layers else None
    adapter_in, adapter_out = spec.int("projector_input_dim"), spec.int("projector_output_dim")
    adapter = ParamNode("vision_adapter", path_linear("vision_adapter.mlp.fc1", ffn, adapter_in, False)
                        + path_linear("vision_adapter.mlp.fc2", adapter_out, adapter_out, False),
                        note="pixel-shuffle MLP", source=spec.key_span("projector_input_dim"),
                        key="projector_input_dim")
    return ParamNode(name, children=tuple(c for c in (patch_embedding, embeddings, norms, stack, adapter)
                                          if c is not None), source=spec.span, note=spec.model_type)


def build_llama4_vision(spec: ModelSpec) -> ParamNode:
    """Llama4VisionModel on its own (a config of model_type llama4_vision_model)."""
    return ParamNode(spec.architecture, children=llama4_vision(spec).children)


def build_llama4(spec: ModelSpec) -> ParamNode:
    """Llama4ForConditionalGeneration: the vision tower, the multi_modal_projector (linear_1: vision_output_dim → the
    text model's width, no bias), the language model (Llama4TextModel) and its lm_head, tied by text_config's
    tie_word_embeddings."""
    vision, text = _subs(spec)
    projector = ParamNode("projector", path_linear("multi_modal_projector.linear_1", vision.int("vision_output_dim"),
                                                   text.int("hidden_size"), False),
                          source=vision.key_span("vision_output_dim"), key="vision_output_dim")
    head = _lm_head(text, text, bool(text.values["tie_embeddings"]))
    return ParamNode(spec.architecture, children=(llama4_vision(vision), projector, language_model(text), head))
