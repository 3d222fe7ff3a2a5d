"""Llama 3.2 Vision: Mllama's tiled vision tower (MllamaVisionModel), the projector, the text model, lm_head.

transformers 5.25's ``models/mllama/modeling_mllama.py``. The text model is a decoder row
(``families/mllama.py``: its cross-attention layers are the decoder layout's ``cross_attention_layers`` kind),
built as its bare class by ``layouts/multimodal.language_model``.
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import _lm_head, _subs, language_model
from lsp_count.core.params import ParamNode, Tensor, node
from lsp_count.core.spec import ModelSpec


def vision_positions(spec: ModelSpec) -> int:
    """Positions per tile: (image_size // patch_size)² patches and the class token."""
    return (spec.int("image_size") // spec.int("patch_size")) ** 2 + 1


def _vision_layers(spec: ModelSpec, name: str, layers: int, gated: bool, key: str) -> ParamNode | None:
    """MllamaVisionEncoder's layers: q/k/v/o_proj hidden_size → heads × (hidden_size // heads) (no biases), fc1 /
    fc2 (biases), two LayerNorms; ``gated``: gate_attn and gate_ffn, one number each."""
    h, ffn, heads = spec.int("hidden_size"), spec.int("intermediate_size"), spec.int("num_heads")
    width = heads * (h // heads)
    attention = path_linear("self_attn.q_proj", h, width, False) + path_linear("self_attn.k_proj", h, width, False) \
        + path_linear("self_attn.v_proj", h, width, False) + path_linear("self_attn.o_proj", width, h, False)
    norms = path_norm("input_layernorm", h) + path_norm("post_attention_layernorm", h)
    if gated:
        norms += (Tensor("gate_attn", (1,), "other", "gate_attn"), Tensor("gate_ffn", (1,), "other", "gate_ffn"))
    return node(name, ParamNode("attention", attention, source=spec.key_span("num_heads"), key="num_heads"),
                ParamNode("mlp", path_linear("mlp.fc1", h, ffn) + path_linear("mlp.fc2", ffn, h),
                          source=spec.key_span("intermediate_size"), key="intermediate_size"),
                ParamNode("norms", norms), repeat=layers, source=spec.key_span(key), key=key) if layers else None


def mllama_vision(spec: ModelSpec, name: str = "vision_model") -> ParamNode:
    """MllamaVisionModel as a node named ``name``: patch_embedding (a Conv2d, no bias), class_embedding,
    gated_positional_embedding (a gate, the positions of one tile, and tile_embedding: a row per aspect ratio and
    padding of max_num_tiles × positions × hidden_size), pre_ and post_tile_positional_embedding (a row per
    aspect ratio and padding of max_num_tiles × hidden_size, and a gate each), layernorm_pre / layernorm_post,
    num_hidden_layers layers (transformer.layers) and num_global_layers gated ones (global_transformer.layers)."""
    h, channels, patch = spec.int("hidden_size"), spec.int("num_channels"), spec.int("patch_size")
    tiles, positions = spec.int("max_num_tiles"), vision_positions(spec)
    ratios = len(spec.values["supported_aspect_ratios"]) + 1  # type: ignore[arg-type] # (row 0: padding)
    patch_embedding = ParamNode("patch_embedding", (Tensor("patch_embedding.weight", (h, channels, patch, patch), "conv",
                                                           "patch_embedding"),),
                                note=f"Conv2d {patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    embeddings = ParamNode("embeddings", (
        Tensor("class_embedding", (h,), "other", "class_embedding"),
        Tensor("gated_positional_embedding.gate", (1,), "other", "gated_positional_embedding"),
        Tensor("gated_positional_embedding.embedding", (positions, h), "embedding", "gated_positional_embedding"),
        Tensor("gated_positional_embedding.tile_embedding.weight", (ratios, tiles * positions * h), "embedding",
               "tile_embedding"),
        *(t for stage in ("pre", "post") for t in (
            Tensor(f"{stage}_tile_positional_embedding.embedding.weight", (ratios, tiles * h), "embedding", "embedding"),
            Tensor(f"{stage}_tile_positional_embedding.gate", (1,), "other", f"{stage}_tile_positional_embedding"))),
    ), note=f"{positions:,} positions × {tiles} tiles × {ratios - 1} aspect ratios",
        source=spec.key_span("supported_aspect_ratios") or spec.key_span("max_num_tiles") or spec.key_span("image_size"),
        key="max_num_tiles")
    norms = ParamNode("layernorms", path_norm("layernorm_pre", h) + path_norm("layernorm_post", h))
    return node(name, patch_embedding, embeddings, norms,
                _vision_layers(spec, "layers", spec.int("num_layers"), False, "num_layers"),
                _vision_layers(spec, "global_layers", spec.int("num_global_layers"), True, "num_global_layers"),
                source=spec.span, note=spec.model_type)


def build_mllama_vision(spec: ModelSpec) -> ParamNode:
    """MllamaVisionModel on its own (a config of model_type mllama_vision_model)."""
    return ParamNode(spec.architecture, children=mllama_vision(spec).children)


def build_mllama(spec: ModelSpec) -> ParamNode:
    """MllamaForConditionalGeneration (or the bare MllamaModel): the vision tower, the text model, the
    multi_modal_projector (vision_output_dim → the text model's width, with a bias) and lm_head (never tied)."""
    vision, text = _subs(spec)
    projector = ParamNode("projector", path_linear("multi_modal_projector", vision.int("vision_output_dim"),
                                                   text.int("hidden_size"), True),
                          source=vision.key_span("vision_output_dim"), key="vision_output_dim")
    body = (mllama_vision(vision), language_model(text), projector)
    if spec.head == "base":
        return node(spec.architecture, *body)
    return node(spec.architecture, *body, _lm_head(spec, text, False))
