"""Llama 3.2 Vision (``mllama``): a tiled vision encoder, a Llama text model with gated cross-attention layers.

transformers 5.25's ``models/mllama/`` is the ground truth. The composite config (MllamaConfig) reads only its
nested ``vision_config`` / ``text_config`` (always its own classes, whatever model_type they name); no class of
the family ties its output head (the embedding has 8 more rows than the vocabulary). The towers are rows of
their own too: ``mllama_text_model`` (MllamaForCausalLM, MllamaTextModel) and ``mllama_vision_model``
(MllamaVisionModel).
"""

from __future__ import annotations

import json

from lsp_count.core.families.decoders import FLOOR_HEADS, HEAD_DIM, WRITTEN_HEAD_DIM, d, decoder, fixed
from lsp_count.core.families.multimodal import _vision_heads_fit
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

# MllamaTextModel's embed_tokens: the vocabulary and 8 rows more (the image tokens).
EXTRA_ROWS = 8


def _cross_attention_layers(spec: ModelSpec) -> list[Problem]:
    """MllamaTextConfig's cross_attention_layers: a list of whole numbers (of any sign: the model asks whether each
    layer's number is in it)."""
    listed = spec.values.get("cross_attention_layers")
    if isinstance(listed, (list, tuple)) and all(type(x) is int for x in listed):
        return []
    return [Problem("error", "LC102", f'"cross_attention_layers": expected a list of layer numbers, got '
                                      f"{json.dumps(listed)}: MllamaTextConfig refuses it",
                    spec.key_span("cross_attention_layers") or spec.span)]


def _mllama_text() -> Family:
    """MllamaForCausalLM / MllamaTextModel (MllamaTextConfig): Llama's layers (no biases, heads always
    hidden_size / num_attention_heads wide, floored; a head_dim key is only kept, for the RoPE check) but those
    cross_attention_layers lists, which are cross-attention layers (cross_attn: the same projections, q_norm
    and k_norm over the head width; two tanh gates), an embedding of vocab_size + 8 rows, and an lm_head no
    tie_word_embeddings ties (the class has no tied weights)."""
    return decoder("mllama_text_model", "MllamaForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
                   {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False),
                    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
                    "sliding_window": fixed(None), "layer_types": fixed(None),
                    "extra_embedding_rows": fixed(EXTRA_ROWS),
                    "tie_embeddings": fixed(False),
                    "tie_word_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                                doc="not read: no Mllama class ties its output head"),
                    # (a null is the default list: MllamaTextConfig fills it; any whole numbers, checked by
                    # _cross_attention_layers: one no layer has names none)
                    "cross_attention_layers": Field(("cross_attention_layers",), (3, 8, 13, 18, 23, 28, 33, 38),
                                                    "any", null="default",
                                                    doc="layers that attend to the image (cross-attention layers)")},
                   d(vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_layers=40, num_heads=32,
                     num_kv_heads=8, max_positions=131072, pad_token_id=128004),
                   heads={"MllamaForCausalLM": "causal_lm", "MllamaTextModel": "base"}, float_keys=("head_dim",),
                   checks=(_cross_attention_layers,))


_DEFAULT_ASPECT_RATIOS = ((1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (3, 1), (4, 1))


def _aspect_ratios(spec: ModelSpec) -> list[Problem]:
    """MllamaVisionConfig's supported_aspect_ratios: a list of [height, width] tiles (each of its entries a row of
    the tile embeddings); its default list goes with max_num_tiles 4 only (validate_architecture)."""
    v = spec.values
    ratios = v.get("supported_aspect_ratios")
    where = spec.key_span("supported_aspect_ratios") or spec.span
    if not isinstance(ratios, (list, tuple)) or not all(
            isinstance(r, (list, tuple)) and all(type(x) is int for x in r) for r in ratios):
        return [Problem("error", "LC102", f'"supported_aspect_ratios": expected a list of [height, width] lists of '
                                          f"whole numbers, got {json.dumps(ratios)}", where)]
    tiles = v.get("max_num_tiles")
    if [list(r) for r in ratios] == [list(r) for r in _DEFAULT_ASPECT_RATIOS] and type(tiles) is int and tiles != 4:
        return [Problem("error", "LC103", f"max_num_tiles {tiles} with the default supported_aspect_ratios: "
                                          "MllamaVisionConfig refuses it (those ratios go with 4 tiles)",
                        spec.key_span("max_num_tiles") or where)]
    return []


# MllamaVisionConfig's fields. attribute_map: num_attention_heads sets attention_heads (and wins beside it).
MLLAMA_VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1280, doc="width of the vision layers"),
    "num_layers": Field(("num_hidden_layers",), 32, doc="local vision layers (transformer.layers)"),
    "num_global_layers": Field(("num_global_layers",), 8, minimum=0,
                               doc="gated global vision layers after them (global_transformer.layers)"),
    "num_heads": Field(("num_attention_heads", "attention_heads"), 16, null=("attention_heads",),
                       doc="attention heads per layer (their width is hidden_size / heads, floored)"),
    "heads_field": Field(("attention_heads",), 16, doc="attention heads per layer (num_attention_heads wins)"),
    "num_channels": Field(("num_channels",), 3, doc="image channels into the patch embedding"),
    "intermediate_size": Field(("intermediate_size",), 5120, doc="width of each layer's MLP (fc1, fc2)"),
    "vision_output_dim": Field(("vision_output_dim",), 7680,
                               doc="width of the tower's output (its last and intermediate layers side by side): "
                                   "the projector's input"),
    "image_size": Field(("image_size",), 448, minimum=0, doc="tile side in pixels (positions: (image_size // "
                                                              "patch_size)² + 1 per tile)"),
    "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
    "max_num_tiles": Field(("max_num_tiles",), 4, minimum=0, doc="tiles an image is cut into at most"),
    "supported_aspect_ratios": Field(("supported_aspect_ratios",), Derived(lambda v: _DEFAULT_ASPECT_RATIOS,
                                                                           "8 ratios of up to 4 tiles"), "any",
                                     null="default", doc="tile layouts (each a row of the tile embeddings)"),
    "intermediate_layers_indices": Field(("intermediate_layers_indices",), (3, 7, 15, 23, 30), "any",
                                         null="default", doc="layers whose outputs join the last's (no parameters)"),
}


def _mllama(model_type: str) -> Family:
    """Llama 3.2 Vision: the vision tower, the text model, the projector (vision_output_dim → the text model's
    width, with a bias) and lm_head (never tied), from nested configs only."""
    return Family(model_type, "mllama", "MllamaForConditionalGeneration", {
        # (not a field of MllamaConfig: a null is kept)
        "tie_word_embeddings": Field(("tie_word_embeddings",), False, "bool", null="false",
                                     doc="not read: no Mllama class ties its output head"),
    }, {"MllamaForConditionalGeneration": "conditional_generation", "MllamaModel": "base"},
        subconfigs={"vision": ("vision_config", "mllama_vision_model"), "text": ("text_config", "mllama_text_model")},
        fixed_subconfigs=("vision", "text"),
        notes=("Mllama never ties its output head to the token embedding (which has 8 more rows)",))


FAMILIES: tuple[Family, ...] = (
    _mllama_text(),
    Family("mllama_vision_model", "mllama_vision", "MllamaVisionModel", MLLAMA_VISION,
           {"MllamaVisionModel": "base"}, checks=(_vision_heads_fit, _aspect_ratios)),
    _mllama("mllama"),
)
