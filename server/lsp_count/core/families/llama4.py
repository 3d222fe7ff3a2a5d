"""Llama 4 (``llama4``): the composite the released checkpoints are (Llama-4-Scout / Maverick's config.json:
Llama4ForConditionalGeneration), and its vision tower alone (``llama4_vision_model``: Llama4VisionModel), counted by
``layouts/llama4.py``. The text model is the ``llama4_text`` row (families/decoders.py).

transformers 5.25's ``models/llama4/`` is the ground truth. Llama4Config's sub-configs are always its own classes
(``sub_configs_defaults``: Llama4TextConfig, Llama4VisionConfig), whatever model_type a nested mapping names; a null
or absent one is the class's defaults (Scout's shapes). The composite holds the vision tower, a projector and the
whole Llama4ForCausalLM, whose lm_head text_config's tie_word_embeddings ties (the composite's own is not read).

A config of model_type ``llama4`` is counted as Llama4ForConditionalGeneration (AutoModel's and
AutoModelForImageTextToText's class for it, and the checkpoints' ``architectures``). transformers' causal-LM table
also maps ``llama4`` to Llama4ForCausalLM, which AutoModelForCausalLM builds from text_config alone; that class
cannot be built from the composite config itself, and is the ``llama4_text`` row's.
"""

from __future__ import annotations

import json

from lsp_count.core.families.decoders import ROPE, WRITTEN_HEAD_DIM, fixed
from lsp_count.core.families.common import ROPE_TYPE_KEYS, written_rope
from lsp_count.core.families.multimodal import _vision_heads_fit
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec


def _vision_checks(spec: ModelSpec) -> list[Problem]:
    """What Llama4VisionModel cannot be built with: fewer pixels per side than a patch (its rotary embedding indexes
    the last of (image_size // patch_size)² positions), and a pixel_shuffle_ratio that is not a number other than 0
    (Llama4VisionConfig takes a float only; the adapter divides by its square)."""
    v = spec.values
    out: list[Problem] = []
    image, patch = v.get("image_size"), v.get("patch_size")
    if type(image) is int and type(patch) is int and patch > 0 and image // patch == 0:
        out.append(Problem("error", "LC103", f"image_size ({image}) is less than patch_size ({patch}): no patch fits, "
                                             "and Llama4VisionModel's rotary embedding cannot be built",
                           spec.key_span("image_size") or spec.key_span("patch_size") or spec.span))
    ratio = v.get("pixel_shuffle_ratio")
    where = spec.key_span("pixel_shuffle_ratio") or spec.span
    if type(ratio) is not float:
        out.append(Problem("error", "LC102", f'"pixel_shuffle_ratio": expected a number with a decimal point, got '
                                             f"{json.dumps(ratio)}: Llama4VisionConfig takes a float only", where))
    elif ratio == 0:
        out.append(Problem("error", "LC102", '"pixel_shuffle_ratio": 0.0: the vision adapter divides '
                                             "projector_input_dim by its square, and cannot be built", where))
    out.extend(_vision_rope(spec))
    return out


# The RoPE types whose check in the config class reads max_position_embeddings, which Llama4VisionConfig has not:
# it fails on them, complete or not.
_NEEDS_MAX_POSITIONS = ("yarn", "llama3", "longrope")


def _vision_rope(spec: ModelSpec) -> list[Problem]:
    """Llama4VisionConfig checks rope_parameters (or the legacy rope_scaling, which replaces it) as the text models'
    classes do, a type's keys (the generic check, hf_config._rope_type_problems), but fails on YaRN, llama3 and
    longrope whatever their keys (their checks read max_position_embeddings); its rotary embedding reads rope_theta
    alone (any other type, a known one or not, builds), which must then be a number (absent: the class fills
    10,000)."""
    key, rope = written_rope(spec.values)
    if not isinstance(rope, dict):
        return []
    where = spec.key_span(key) or spec.span
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    if rope_type in _NEEDS_MAX_POSITIONS:
        return [Problem("error", "LC103", f'"{key}": rope_type "{rope_type}" is not one Llama4VisionConfig takes: its '
                                          "check reads max_position_embeddings, which the vision config has not, and "
                                          "fails", where)]
    theta = rope.get("rope_theta", 10000.0)
    if not isinstance(theta, (int, float)):
        return [Problem("error", "LC103", f'"{key}": "rope_theta" is {json.dumps(theta)}, not a number: '
                                          "Llama4VisionModel's rotary embedding is computed from it, and fails", where)]
    return []


# Llama4VisionConfig's rotary settings: the keys each type needs (ROPE_TYPE_KEYS); its rotary embedding is its own,
# no ROPE_INIT_FUNCTIONS one (Family field "rotary_embedding": false), which reads rope_theta alone (_vision_rope).
_VISION_ROPE_TYPES = {t: keys for t, keys in ROPE_TYPE_KEYS.items()}

# Llama4VisionConfig's fields (no attribute_map), its defaults.
LLAMA4_VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 768, doc="width of the vision layers"),
    "num_layers": Field(("num_hidden_layers",), 34, minimum=0, doc="vision encoder layers"),
    "num_heads": Field(("num_attention_heads",), 16,
                       doc="attention heads per layer (each hidden_size // heads wide, floored)"),
    "num_channels": Field(("num_channels",), 3, minimum=0, doc="image channels into the patch embedding"),
    "intermediate_size": Field(("intermediate_size",), 5632, minimum=0,
                               doc="width of each layer's MLP (fc1, fc2), and the adapter's input"),
    "vision_output_dim": Field(("vision_output_dim",), 7680, minimum=0,
                               doc="width of the tower's output: the projector's input"),
    "image_size": Field(("image_size",), 448, doc="image side in pixels (positions: (image_size // patch_size)² + 1)"),
    "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
    "projector_input_dim": Field(("projector_input_dim",), 4096, minimum=0,
                                 doc="width of the pixel-shuffle adapter's first linear (fc1)"),
    "projector_output_dim": Field(("projector_output_dim",), 4096, minimum=0,
                                  doc="width of the pixel-shuffle adapter's second linear (fc2, square)"),
    "pixel_shuffle_ratio": Field(("pixel_shuffle_ratio",), 0.5, "any",
                                 doc="pixel-shuffle downsampling of the patch tokens (no parameters)"),
    **ROPE, **WRITTEN_HEAD_DIM, "rope_types": fixed(_VISION_ROPE_TYPES), "rotary_embedding": fixed(False),
}


FAMILIES: tuple[Family, ...] = (
    Family("llama4_vision_model", "llama4_vision", "Llama4VisionModel", LLAMA4_VISION, {"Llama4VisionModel": "base"},
           checks=(_vision_heads_fit, _vision_checks)),
    Family("llama4", "llama4", "Llama4ForConditionalGeneration", {
        # (a field of Llama4Config, checked, not read: the language model's lm_head is tied by text_config's)
        "tie_word_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                     doc="not read: text_config's tie_word_embeddings ties the output head"),
    }, {"Llama4ForConditionalGeneration": "conditional_generation"},
        subconfigs={"vision": ("vision_config", "llama4_vision_model"), "text": ("text_config", "llama4_text")},
        fixed_subconfigs=("vision", "text"),
        notes=("Llama 4 ties its output head by text_config's tie_word_embeddings (the config's own is not read)",)),
)
