"""Gemma 4, counted by ``layouts/gemma4.py``: the text model (``gemma4_text``: Gemma4ForCausalLM, Gemma4TextModel),
the vision and audio towers on their own (``gemma4_vision``: Gemma4VisionModel; ``gemma4_audio``: Gemma4AudioModel),
and the composite the released checkpoints are (``gemma4``: Gemma4ForConditionalGeneration, Gemma4Model), whose
vision_config and audio_config may be null or absent (no such tower: ``Family.optional_subconfigs``).

The text model's layers differ one from another, as ``Gemma4TextConfig`` (transformers 5.25) lays them out:

* ``layer_types`` (default: every sixth layer full attention, the others sliding; the last layer is forced to
  full attention). Full-attention layers take their head width from ``global_head_dim`` (512 by default) and,
  where ``attention_k_eq_v``, their key/value heads from ``num_global_key_value_heads`` (when given): the
  config class writes these into ``per_layer_config``, which a file may give instead (then it wins).
* ``attention_k_eq_v``: full-attention layers have no v_proj (the keys' projection serves as values).
* ``num_kv_shared_layers``: the last layers reuse the keys and values of the last earlier layer of their
  type: no k_proj / v_proj / k_norm and nothing in the cache (``kv_sharing_modes``); with
  ``use_double_wide_mlp`` their MLP is twice ``intermediate_size`` wide.
* ``hidden_size_per_layer_input`` (0: none): per-layer inputs (PLE), a packed embedding of
  ``vocab_size_per_layer_input`` rows, a projection from the hidden state, and per layer a gate, a
  projection back and a norm.
* ``enable_moe_block``: beside the dense MLP every layer has a router (a linear, a scale per channel and per
  expert) and ``num_experts`` fused experts ``moe_intermediate_size`` wide, with three more norms.

``gemma4_layers`` holds the per-layer plan the layout and the memory estimate's KV cache read.
"""

from __future__ import annotations

import json

from lsp_count.core.families.decoders import ROPE, fixed
from lsp_count.core.families.common import (ROPE_TYPE_REQUIRED, PaddedEmbedding, pad_token, pad_token_problem,
                                             rope_entry_problem, written_rope)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field

SLIDING, FULL = "sliding_attention", "full_attention"
# Attributes of a per_layer_config entry the model reads per layer (Gemma4TextAttention).
PER_LAYER_KEYS = ("head_dim", "num_key_value_heads")


def _default_layer_types(v) -> tuple[str, ...]:
    return tuple(SLIDING if (i + 1) % 6 else FULL for i in range(v["num_layers"]))


def _layer_types(v) -> tuple[str, ...]:
    """layer_types as Gemma4TextConfig.__post_init__ leaves them: derived when absent, the last forced full."""
    written = v["layer_types_written"]
    types = list(written) if written is not None else list(_default_layer_types(v))
    if types and types[-1] != FULL:
        types[-1] = FULL
    return tuple(types)


def kv_sharing_modes(v) -> tuple[str | None, ...]:
    """Gemma4TextConfig.kv_sharing_modes, line for line: None (own keys and values), "store" (own, and kept for
    the sharing layers), "reuse" (another layer's). Raises ValueError as the config class does."""
    n, shared, types = v["num_layers"], v["num_kv_shared_layers"], list(v["layer_types"])
    if shared == n:
        return ("reuse",) * n
    first = n - shared
    modes: list[str | None] = [None if i < first else "reuse" for i in range(n)]
    unshared = types[0:first][::-1]
    if sorted(set(unshared)) != sorted(set(types)):
        raise ValueError("The set of layer types producing a cache is different than the set of layer types using them")
    for k in set(types):
        modes[first - 1 - unshared.index(k)] = "store"
    return tuple(modes)


def _overrides(v) -> dict[int, dict[str, object]]:
    """The per-layer overrides the config class holds: the file's per_layer_config, else global_head_dim (and, with
    attention_k_eq_v, num_global_key_value_heads) on every full-attention layer. Raises ValueError where the class
    or the model refuses them, or where an override is one the count does not model."""
    n = v["num_layers"]
    written = v["per_layer_config"]
    if written is not None:  # (a null is {}: no overrides)
        if not isinstance(written, dict):
            raise ValueError('"per_layer_config" must map layer indices to overrides')
        out: dict[int, dict[str, object]] = {}
        for key, entry in written.items():
            try:
                index = int(key)
            except (TypeError, ValueError):
                raise ValueError(f'"per_layer_config": {json.dumps(key)} is not a layer index') from None
            if not 0 <= index < n:
                raise ValueError(f'"per_layer_config": layer {index} is outside the {n} layers')
            if not isinstance(entry, dict):
                raise ValueError(f'"per_layer_config": layer {index}\'s entry is not a mapping')
            other = sorted(set(entry) - set(PER_LAYER_KEYS))
            if other:
                raise ValueError(f'"per_layer_config": layer {index} overrides {", ".join(other)}, which lsp-count '
                                 f"does not model for Gemma 4 (only {', '.join(PER_LAYER_KEYS)})")
            for name, value in entry.items():
                if type(value) is not int or value < 1:
                    raise ValueError(f'"per_layer_config": layer {index}\'s {name} must be a positive whole number')
            # (the config class drops an override equal to the global value)
            globals_ = {"head_dim": v["head_dim"], "num_key_value_heads": v["num_kv_heads"]}
            kept = {name: value for name, value in entry.items() if value != globals_[name]}
            if kept:
                out[index] = kept
        return out
    # global_head_dim and num_global_key_value_heads are popped from the keyword arguments unchecked: a
    # whole-number float serves as a width, but not as a head count (its attention's // makes a float).
    global_dim = v["global_head_dim"]
    if isinstance(global_dim, float) and global_dim.is_integer():
        global_dim = int(global_dim)
    if type(global_dim) is not int or global_dim < 1:
        raise ValueError(f'"global_head_dim": {json.dumps(global_dim)}: the full-attention layers cannot be built '
                         "with it (a positive whole number)")
    entry: dict[str, object] = {"head_dim": global_dim}
    kv = v["num_global_kv_heads"]
    if v["attention_k_eq_v"] and kv is not None:
        if type(kv) is not int or kv < 1:
            raise ValueError(f'"num_global_key_value_heads": {json.dumps(kv)}: the full-attention layers cannot be '
                             "built with it (a positive whole number)")
        entry["num_key_value_heads"] = kv
    return {i: dict(entry) for i, t in enumerate(v["layer_types"]) if t == FULL}


def layer_plan(v) -> tuple[tuple[object, ...], ...]:
    """Per layer: (layer type, head width, key/value heads, sharing mode, has k_proj, has v_proj, MLP width).
    Raises ValueError (its message the reason) for a config transformers refuses or cannot build."""
    n = v["num_layers"]
    types = v["layer_types"]
    if len(types) != n:
        raise ValueError(f'"layer_types": {len(types)} entries for {n} layers')
    unknown = sorted(set(types) - {SLIDING, FULL})
    if unknown:
        raise ValueError(f'"layer_types": {", ".join(unknown)}: Gemma 4 has only sliding_attention and '
                         "full_attention layers")
    rope = v["rope_parameters"]
    if rope is not None:
        if not isinstance(rope, dict) or any(not isinstance(rope.get(t), dict) and rope.get(t, 0) is not None
                                             for t in set(types)):
            raise ValueError('"rope_parameters": Gemma4TextRotaryEmbedding reads an entry per layer type '
                             f"({', '.join(sorted(set(types)))})")
    modes = kv_sharing_modes(v)
    overrides = _overrides(v)
    for t in set(types):  # the rotary embedding reads one config per layer type: its layers must agree
        same = [overrides.get(i, {}) for i, lt in enumerate(types) if lt == t]
        if any(o != same[0] for o in same):
            raise ValueError(f'"per_layer_config": the {t} layers differ (the rotary embedding needs one head '
                             "width per layer type)")
    plan = []
    for i, t in enumerate(types):
        d = overrides.get(i, {}).get("head_dim", v["head_dim"])
        kv = overrides.get(i, {}).get("num_key_value_heads", v["num_kv_heads"])
        reuse = modes[i] == "reuse"
        has_v = not reuse and not (v["attention_k_eq_v"] and t != SLIDING)
        width = v["intermediate_size"] * (2 if v["use_double_wide_mlp"] and reuse else 1)
        plan.append((t, d, kv, modes[i], not reuse, has_v, width))
    return tuple(plan)


def _plan_or_none(v):
    try:
        return layer_plan(v)
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def _effective_window(v) -> int:
    # Gemma4TextConfig: with bidirectional attention everywhere, the window is halved (+1, exclusive bounds).
    w = v["sliding_window_written"]
    return w // 2 + 1 if v["use_bidirectional_attention"] == "all" else w


# Gemma4TextConfig checks each layer type's entry as written (nothing fills it), and its rotary embedding reads
# rope_theta there for every type; axial it cannot build.
GEMMA4_ROPE_TYPES = {t: ("rope_theta",) + tuple(k for k in keys if k != "rope_theta")
                     for t, keys in ROPE_TYPE_REQUIRED.items() if t != "axial"}


def _check(spec) -> list[Problem]:
    v = spec.values
    out: list[Problem] = []
    where = spec.span
    try:
        layer_plan(v)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        key = str(exc).split('"')[1] if str(exc).startswith('"') else None
        name = {"layer_types": "layer_types_written", "per_layer_config": "per_layer_config",
                "global_head_dim": "global_head_dim", "rope_parameters": "rope_parameters",
                "num_global_key_value_heads": "num_global_kv_heads"}.get(key or "", "")
        out.append(Problem("error", "LC102", f"{exc}: Gemma4TextConfig refuses the config or the model cannot "
                                             "be built", spec.key_span(name) or spec.key_span("num_kv_shared_layers")
                           or where))
    rope = v.get("rope_parameters")
    if not out and isinstance(rope, dict):
        for layer_type in sorted(set(v["layer_types"])):
            entry = rope.get(layer_type)
            problem = rope_entry_problem(entry, GEMMA4_ROPE_TYPES, f'"rope_parameters" ({layer_type})',
                                         spec.key_span("rope_parameters") or where) if isinstance(entry, dict) else None
            if problem is not None:
                out.append(problem)
                break
    bidi = v.get("use_bidirectional_attention")
    if bidi not in (None, "all", "vision"):
        out.append(Problem("error", "LC102", f'"use_bidirectional_attention": {json.dumps(bidi)} is not "all", '
                                             '"vision" or null (Gemma4TextConfig refuses it)',
                           spec.key_span("use_bidirectional_attention") or where))
    if v.get("enable_moe_block"):
        for name, key in (("num_experts", "num_experts"), ("moe_intermediate_size", "moe_intermediate_size")):
            if v.get(name) is None:
                what = f'"{key}": null' if name in spec.origins else f"{key} is not set"
                out.append(Problem("error", "LC102", f"{what}: with enable_moe_block Gemma4ForCausalLM cannot be "
                                                     "built without it", spec.key_span(name) or where))
    # The token embedding and the per-layer embedding both take pad_token_id as their padding index.
    embeddings = [PaddedEmbedding("token embedding", "vocab_size", "vocab_size")]
    if v.get("per_layer_width"):
        embeddings.append(PaddedEmbedding("per-layer embedding", "per_layer_vocab", "per_layer_vocab",
                                          label="vocab_size_per_layer_input"))
    problem = pad_token_problem(spec, embeddings)
    if problem is not None:
        out.append(problem)
    return out


FIELDS: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 262144, doc="tokens in the vocabulary: rows of the embedding (and of the "
                                                     "output head unless tied)"),
    "pad_token_id": pad_token(0),
    "hidden_size": Field(("hidden_size",), 2304, doc="width of the residual stream"),
    "num_layers": Field(("num_hidden_layers",), 30, doc="decoder layers"),
    "num_heads": Field(("num_attention_heads",), 8, doc="query heads per attention layer"),
    "num_kv_heads": Field(("num_key_value_heads",), 4, doc="key/value heads of the sliding-attention layers (and of "
                                                           "the full ones unless overridden)"),
    "head_dim": Field(("head_dim",), 256, doc="width of each head of the sliding-attention layers"),
    "global_head_dim": Field(("global_head_dim",), 512, "any",
                             doc="width of each head of the full-attention layers"),
    "num_global_kv_heads": Field(("num_global_key_value_heads",), None, "any",
                                 doc="key/value heads of the full-attention layers, with attention_k_eq_v"),
    "per_layer_config": Field(("per_layer_config",), None, "any", null=Derived(lambda v: {}, "no overrides"),
                              doc="per-layer overrides (head_dim, num_key_value_heads) as transformers saves them"),
    "intermediate_size": Field(("intermediate_size",), 9216, doc="width of the MLP's hidden layer"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="output head shares the embedding matrix"),
    "attention_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
    "sliding_window_written": Field(("sliding_window",), 512, minimum=0,
                                    doc="tokens a sliding-window attention layer sees"),
    "sliding_window": Field((), Derived(_effective_window, "sliding_window (halved + 1 with bidirectional "
                                                           "attention)"), "any"),
    "use_bidirectional_attention": Field(("use_bidirectional_attention",), None, "str",
                                         doc='"all": no causal mask (and a halved window), "vision": images only'),
    "layer_types_written": Field(("layer_types",), None, "strs", doc="sliding_attention or full_attention per layer"),
    "layer_types": Field((), Derived(_layer_types, "layer_types, else every sixth full (the last always full)"), "any"),
    "rope_parameters": Field(("rope_parameters",), None, "any", doc="rotary settings per layer type (no parameters)"),
    "max_positions": Field(("max_position_embeddings",), 131072, doc="longest sequence the rotary positions support"),
    "per_layer_vocab": Field(("vocab_size_per_layer_input",), 262144, doc="rows of the per-layer input embedding"),
    "per_layer_width": Field(("hidden_size_per_layer_input",), 256, minimum=0,
                             doc="per-layer input width (0: no per-layer inputs)"),
    "attention_k_eq_v": Field(("attention_k_eq_v",), False, "bool",
                              doc="full-attention layers use their keys as values (no v_proj)"),
    "num_kv_shared_layers": Field(("num_kv_shared_layers",), 0, minimum=0,
                                  doc="last layers that reuse an earlier layer's keys and values"),
    "use_double_wide_mlp": Field(("use_double_wide_mlp",), False, "bool",
                                 doc="the KV-sharing layers' MLP is twice intermediate_size wide"),
    "enable_moe_block": Field(("enable_moe_block",), False, "bool", doc="a mixture of experts beside each MLP"),
    "num_experts": Field(("num_experts",), None, "int?", doc="routed experts per layer (with enable_moe_block)"),
    "experts_per_token": Field(("top_k_experts",), None, "int?", doc="experts each token is routed to"),
    "moe_intermediate_size": Field(("moe_intermediate_size",), None, "int?", doc="width of each expert's MLP"),
    "routes_experts": Field((), Derived(lambda v: v["enable_moe_block"], "enable_moe_block"), "any"),
    # (0 experts: with enable_moe_block a router of no outputs and no experts, as Gemma4TextMoe builds them)
    "without_experts": Field((), "moe", "any"),
    # (the memory estimate's activations: with the MoE block the dense MLP runs beside a token's routed experts, as a
    # shared expert would)
    "shared_intermediate_size": Field((), Derived(lambda v: v["intermediate_size"] if v["enable_moe_block"] else 0,
                                                  "intermediate_size, with enable_moe_block"), "any"),
    "gemma4_layers": Field((), Derived(_plan_or_none, "per layer: type, head width, kv heads, sharing, MLP width"),
                           "any"),
}


# --- the vision tower (gemma4_vision: Gemma4VisionModel) ----------------------------------------------------------
# Gemma4VisionConfig's defaults. Its rotary embedding takes the axial type alone (the config class reads a "default"
# one, or none, as axial) and holds no parameters; it checks the head width as a text model's RoPE does (an odd one
# over 4, fully rotated, is refused). use_clipped_linears and standardize add buffers only (the clipping bounds,
# std_bias / std_scale); attention_bias is read by nothing.
AXIAL_ROPE_TYPES = {"default": (), "axial": ()}

VISION_FIELDS: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 768, doc="width of the vision layers"),
    "intermediate_size": Field(("intermediate_size",), 3072, minimum=0, doc="width of each layer's gated MLP"),
    "num_layers": Field(("num_hidden_layers",), 16, minimum=0, doc="vision encoder layers"),
    "num_heads": Field(("num_attention_heads",), 12, doc="query heads per vision layer"),
    "num_kv_heads": Field(("num_key_value_heads",), 12, doc="key/value heads per vision layer"),
    "head_dim": Field(("head_dim",), 64, minimum=0, doc="width of each head (q_norm and k_norm are as wide)"),
    "patch_size": Field(("patch_size",), 16, minimum=0,
                        doc="pixels per side of a patch (input_proj takes 3 × patch_size² values)"),
    "position_embedding_size": Field(("position_embedding_size",), 10240, minimum=0,
                                     doc="rows of each of the two (x and y) learned position tables"),
    **ROPE, "rope_types": fixed(AXIAL_ROPE_TYPES),
    # Not a field of Gemma4VisionConfig (the audio tower's): a file's is kept as written, and Gemma4MultimodalEmbedder
    # reads it by getattr (else hidden_size) as the width embed_vision projects from. The tower itself does not read it.
    "output_proj_dims": Field(("output_proj_dims",), None, "any",
                              doc="not read by the tower: where given, the composite's embed_vision projects from it"),
}


def _axial_rope(spec) -> list[Problem]:
    """Gemma4VisionRotaryEmbedding builds the axial type alone ("supports only axial rope"); the config class reads
    a "default" one as axial. (A legacy rope_scaling mapping, when not empty, replaces rope_parameters.)"""
    key, rope = written_rope(spec.values)
    if not isinstance(rope, dict):
        return []
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind in AXIAL_ROPE_TYPES:
        return []
    return [Problem("error", "LC103", f'"{spec.key_label(key)}": rope_type {json.dumps(kind)}: Gemma 4\'s vision '
                                      "rotary embedding supports only axial RoPE: transformers cannot build it",
                    spec.key_span(key) or spec.span)]


# --- the audio tower (gemma4_audio: Gemma4AudioModel) -------------------------------------------------------------
# Gemma4AudioConfig's defaults. Its heads are hidden_size // num_attention_heads wide (a width of 0, more heads than
# the width, fails: the attention scales by head_dim ** -0.5); subsampling_conv_channels' first two entries are the
# two convolutions' channels (more are not read, fewer fail). use_clipped_linears adds buffers only.
AUDIO_FIELDS: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1024, doc="width of the conformer layers"),
    "num_layers": Field(("num_hidden_layers",), 12, minimum=0, doc="conformer layers"),
    "num_heads": Field(("num_attention_heads",), 8, doc="attention heads (hidden_size // heads wide)"),
    "subsampling_conv_channels": Field(("subsampling_conv_channels",), (128, 32), "ints", null="reject",
                                       doc="output channels of the two subsampling convolutions"),
    "conv_kernel_size": Field(("conv_kernel_size",), 5, minimum=0, doc="width of each layer's depthwise convolution"),
    "output_proj_dims": Field(("output_proj_dims",), 1536, minimum=0,
                              doc="width of the tower's output projection (what embed_audio projects from)"),
}


def _audio_check(spec) -> list[Problem]:
    v = spec.values
    out: list[Problem] = []
    channels = v.get("subsampling_conv_channels")
    if isinstance(channels, tuple) and len(channels) < 2:
        out.append(Problem("error", "LC102", f'"subsampling_conv_channels": {json.dumps(list(channels))}: the two '
                                             "subsampling convolutions need two channel counts (Gemma4AudioModel "
                                             "cannot be built)", spec.key_span("subsampling_conv_channels") or spec.span))
    hidden, heads = v.get("hidden_size"), v.get("num_heads")
    if type(hidden) is int and type(heads) is int and heads > hidden:
        out.append(Problem("error", "LC103", f"{spec.key_label('num_heads')} ({heads}) is more than hidden_size "
                                             f"({hidden}): each head would be 0 wide, which Gemma 4's audio attention "
                                             "cannot build (it scales by head_dim ** -0.5)",
                           spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span))
    return out


# --- the composite (gemma4: Gemma4ForConditionalGeneration, Gemma4Model) ------------------------------------------
# Gemma4Config builds its three sub-configs as its own classes whatever model_type they name; a null or absent
# vision_config or audio_config builds no tower (SubConfigSpec(optional=True): the class defaults are the text model
# alone), a null text_config the text model's class defaults. Its own tie_word_embeddings alone ties lm_head
# (text_config's is not read).
COMPOSITE_FIELDS: dict[str, Field] = {
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                            doc="output head shares the language model's embedding (text_config's does not tie it)"),
}


FAMILIES: tuple[Family, ...] = (
    Family("gemma4_text", "gemma4", "Gemma4ForCausalLM", FIELDS,
           heads={"Gemma4ForCausalLM": "causal_lm", "Gemma4TextModel": "base"},
           notes=("Gemma 4 ties its output head to the embeddings by default",),
           checks=(_check,)),
    Family("gemma4_vision", "gemma4_vision", "Gemma4VisionModel", VISION_FIELDS, {"Gemma4VisionModel": "base"},
           checks=(_axial_rope,)),
    Family("gemma4_audio", "gemma4_audio", "Gemma4AudioModel", AUDIO_FIELDS, {"Gemma4AudioModel": "base"},
           checks=(_audio_check,)),
    Family("gemma4", "gemma4_multimodal", "Gemma4ForConditionalGeneration", COMPOSITE_FIELDS,
           {"Gemma4ForConditionalGeneration": "conditional_generation", "Gemma4Model": "base"},
           subconfigs={"vision": ("vision_config", "gemma4_vision"), "text": ("text_config", "gemma4_text"),
                       "audio": ("audio_config", "gemma4_audio")},
           fixed_subconfigs=("vision", "text", "audio"), optional_subconfigs=("vision", "audio"),
           notes=("Gemma 4 ties its output head to the language model's embeddings unless the config's own "
                  "tie_word_embeddings is false (text_config's is not read)",)),
)
