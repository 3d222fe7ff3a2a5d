"""Hybrid state-space / attention families (Jamba, Bamba, Granite 4 hybrid, Nemotron-H, Falcon-H1, Qwen3-Next,
Qwen3.5 and Qwen3.5-MoE text, Kimi Linear, Ling's bailing hybrid, OLMo Hybrid, LFM2, LFM2-MoE, MiniMax) and Mamba
variants (Falcon-Mamba).

The hybrids use the hybrid layout (``layouts/hybrid.py``): per layer a mixer (``layer_mixers``: "attention",
"gated_attention", "mamba", "mamba2", "gated_deltanet", "short_conv", "kda", "lightning", "attention+mamba2" or
"none") and a feed-forward part (``layer_ffns``: "mlp", "moe" or "none"), derived as each config class lays them
out. Their attention, MLP and experts read the decoder layout's canonical fields (the decoder table's base), their
recurrent mixers the ``ssm_*`` / ``linear_*`` fields; the memory estimate's cache reads ``layer_mixers`` too
(memory._mixed_cache). Defaults are the transformers 5 config classes'.
"""

from __future__ import annotations

import json
import math

from lsp_count.core.families.common import check_pad_token, written_rope
from lsp_count.core.families.decoders import (
    BASE, EXPERT_WIDTH_IS_MLP, FLOOR_HEADS, HEAD_DIM, KV_HEADS, MOE, ROPE, WRITTEN_HEAD_DIM, causal_heads, d, fixed,
    merge_fields, nulls, rotary_share,
)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field


MAX_LAYER_INDEX = 10**9  # layer indices a config may write below zero


def _ceil16(v) -> int:
    return -(-v["hidden_size"] // 16)


# What every hybrid row starts from: the decoder base (llama-shaped attention and gated MLP) with the
# hybrid layout's own switches.
HYBRID_BASE: dict[str, Field] = {
    **BASE,
    "mlp_bias": fixed(False),
    "ssm_module": fixed("mamba"),
    "ffn_module": fixed("feed_forward"),
    "ssm_norms": fixed(False),
    "ssm_groups": fixed(None),
    "ssm_heads": fixed(None),
    "ssm_dt_rank": fixed(None),
    "final_norm_name": fixed("final_layernorm"),
    "layer_norms": fixed(("input_layernorm", "pre_ff_layernorm")),
    "layer_types": fixed(None),
    "sliding_window": fixed(None),
}


def hybrid(model_type: str, architecture: str, *overrides: dict[str, Field], heads: dict[str, str] | None = None,
           checks=(), notes: tuple[str, ...] = (), rope: bool = True, float_keys: tuple[str, ...] = (),
           fp32_modules_strict: tuple[str, ...] = ()) -> Family:
    """A hybrid row; its token embedding takes pad_token_id as its padding index (checked in the vocabulary)."""
    fields = merge_fields({**HYBRID_BASE, **ROPE} if rope else HYBRID_BASE, *overrides)
    return Family(model_type, "hybrid", architecture, fields, heads or causal_heads(architecture), notes=notes,
                  checks=(*checks, check_pad_token), float_keys=float_keys, fp32_modules_strict=fp32_modules_strict)


def _problem(spec, name: str, message: str, severity: str = "error") -> list[Problem]:
    return [Problem(severity, "LC103", message, spec.key_span(name) or spec.span)]


# Most hybrids' attention reads getattr(config, "head_dim", hidden_size // num_attention_heads) (their config
# classes declare none): a null is kept, and fails only where there are attention layers (ModelSpec.int names
# the key).
HEAD_DIM_NULL_KEPT = Field(("head_dim",), HEAD_DIM, "int?", doc=BASE["head_dim"].doc, null="none")

# --- Jamba ---------------------------------------------------------------------------------------


def _jamba_offsets(spec) -> list[Problem]:
    """JambaConfig (validate_architecture) refuses an offset not below its period."""
    v = spec.values
    out: list[Problem] = []
    for what, offset, period in (("attention", "attn_layer_offset", "attn_layer_period"),
                                 ("expert", "expert_layer_offset", "expert_layer_period")):
        o, p = v.get(offset), v.get(period)
        if type(o) is int and type(p) is int and o >= p:
            out += _problem(spec, offset, f"{spec.key_label(offset)} ({o}) must be smaller than "
                                          f"{spec.key_label(period)} ({p}): JambaConfig refuses the {what} layout")
    return out


def _jamba_nulls(spec) -> list[Problem]:
    """A null num_experts JambaConfig refuses; a null or a whole-number float under num_local_experts (its
    attribute_map alias) it keeps, set past its field checks: its expert layers (layers_num_experts) cannot compare
    None with 1, nor build more than one expert from a float (one or none makes a dense MLP, which builds)."""
    v = spec.values
    if "jamba_experts" not in spec.origins:
        return []
    key = spec.key_name("jamba_experts")
    raw = v.get("jamba_experts_written")
    floated = key == "num_local_experts" and isinstance(raw, float)
    if v.get("jamba_experts") is not None and not (floated and raw > 1):
        return []
    layers, period, offset = v.get("num_layers"), v.get("expert_layer_period"), v.get("expert_layer_offset")
    if key == "num_local_experts" and all(type(n) is int for n in (layers, period, offset)) and \
            not any(i % period == offset for i in range(layers)):
        return []
    if floated:
        return [Problem("error", "LC102", f'"{key}": expected a whole number, got {raw!r}: JambaConfig keeps the float, '
                                          f"and its expert layers cannot be built with it (write {int(raw)})",
                        spec.key_span("jamba_experts") or spec.span)]
    return [Problem("error", "LC102", f'"{key}": null is not a whole number: JambaConfig rejects it, or its expert '
                                      "layers cannot be built with it (leaving the key out takes the default, 16)",
                    spec.key_span("jamba_experts") or spec.span)]


JAMBA = {
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    # JambaAttention: getattr(config, "head_dim", hidden_size // num_attention_heads) (the class declares none)
    "head_dim": HEAD_DIM_NULL_KEPT,
    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "attn_layer_period": Field(("attn_layer_period",), 8, doc="one attention layer in this many"),
    "attn_layer_offset": Field(("attn_layer_offset",), 4, minimum=0, doc="index of the first attention layer"),
    "expert_layer_period": Field(("expert_layer_period",), 2, doc="one mixture-of-experts layer in this many"),
    "expert_layer_offset": Field(("expert_layer_offset",), 1, minimum=0, doc="index of the first MoE layer"),
    **MOE,
    # attribute_map: num_local_experts is num_experts. (One expert, or none, is a dense MLP: layers_num_experts.)
    # A null num_local_experts is set past the class's checks and fails only in an expert layer (_jamba_nulls).
    "jamba_experts": Field(("num_local_experts", "num_experts"), 16, "int?", minimum=0, doc=MOE["num_experts"].doc,
                           null="none"),
    # (as written under the alias: a whole-number float is read as the int where no expert layer needs it)
    "jamba_experts_written": Field(("num_local_experts",), None, "any"),
    # (the experts of the MoE layers: none where one expert or none makes every layer a dense MLP, whose
    # num_experts_per_tok nothing reads)
    "num_experts": fixed(Derived(lambda v: v["jamba_experts"] if (v["jamba_experts"] or 0) > 1 else 0,
                                 "num_experts, where more than one")),
    "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
    "router_name": fixed("router"),
    "ssm_inner": fixed(Derived(lambda v: v["ssm_expand"] * v["hidden_size"], "mamba_expand × hidden_size")),
    "ssm_expand": Field(("mamba_expand",), 2, doc="the Mamba mixer's width: mamba_expand × hidden_size"),
    "ssm_state": Field(("mamba_d_state",), 16, doc="SSM state size per channel"),
    "ssm_conv_kernel": Field(("mamba_d_conv",), 4, doc="width of the Mamba mixer's causal convolution"),
    "ssm_dt_rank": Field(("mamba_dt_rank",), Derived(_ceil16, "ceil(hidden_size / 16)"), "int|auto",
                         doc="rank of the time-step projection (\"auto\": ceil(hidden_size / 16))"),
    "ssm_bias": Field(("mamba_proj_bias",), False, "bool", doc="biases on the mixer's in_proj and out_proj"),
    "ssm_conv_bias": Field(("mamba_conv_bias",), True, "bool", doc="a bias on the mixer's convolution"),
    "ssm_norms": fixed(True),
    "layer_mixers": fixed(Derived(
        lambda v: tuple("attention" if i % v["attn_layer_period"] == v["attn_layer_offset"] else "mamba"
                        for i in range(v["num_layers"])), "attention where i % attn_layer_period == attn_layer_offset")),
    "layer_ffns": fixed(Derived(
        lambda v: tuple("moe" if v["num_experts"] > 1 and i % v["expert_layer_period"] == v["expert_layer_offset"]
                        else "mlp" for i in range(v["num_layers"])),
        "experts where i % expert_layer_period == expert_layer_offset")),
}


# --- Bamba and Granite 4 hybrid: Mamba-2 mixers -----------------------------------------------------


def _mamba2_head_width(v) -> int:
    return v["ssm_expand"] * v["hidden_size"] // v["ssm_heads"]


MAMBA2_MIXER = {
    "ssm_expand": Field(("mamba_expand",), 2, doc="the Mamba-2 mixer's width: mamba_expand × hidden_size"),
    "ssm_inner": fixed(Derived(lambda v: v["ssm_expand"] * v["hidden_size"], "mamba_expand × hidden_size")),
    "ssm_heads": Field(("mamba_n_heads",), 128, doc="SSM heads (mamba_n_heads × mamba_d_head must be the mixer's width)"),
    "ssm_head_dim": Field(("mamba_d_head",), Derived(_mamba2_head_width, "mamba_expand × hidden_size / mamba_n_heads"),
                          "int|auto", doc="width of each SSM head (\"auto\": the mixer's width / mamba_n_heads)"),
    # (int | None, outside validate_architecture: a null is kept, which only a Mamba-2 layer reads)
    "ssm_groups": Field(("mamba_n_groups",), 1, "int?", doc="groups of the B and C state projections", null="none"),
    "ssm_state": Field(("mamba_d_state",), 256, "int?", doc="SSM state size per head channel", null="none"),
    "ssm_conv_kernel": Field(("mamba_d_conv",), 4, "int?", doc="width of the mixer's causal convolution",
                             null="none"),
    "ssm_bias": Field(("mamba_proj_bias",), False, "bool", doc="biases on the mixer's in_proj and out_proj"),
    "ssm_conv_bias": Field(("mamba_conv_bias",), True, "bool", doc="a bias on the mixer's convolution"),
}


def _mamba2_widths(config_class: str):
    def check(spec) -> list[Problem]:
        """validate_architecture: mamba_n_heads must divide mamba_expand × hidden_size, and mamba_n_heads ×
        mamba_d_head equal it; the forward pass shares each group's B and C among mamba_n_heads / mamba_n_groups
        heads (the model builds where the groups do not divide the heads: a warning)."""
        v = spec.values
        hidden, expand, heads, width, groups = (v.get(k) for k in ("hidden_size", "ssm_expand", "ssm_heads",
                                                                   "ssm_head_dim", "ssm_groups"))
        if not all(type(n) is int for n in (hidden, expand, heads)):
            return []
        inner = expand * hidden
        if inner % heads:
            return _problem(spec, "ssm_heads", f"{spec.key_label('ssm_heads')} ({heads}) does not divide mamba_expand "
                                               f"({expand}) × hidden_size ({hidden:,}) = {inner:,}: {config_class} "
                                               "refuses the config")
        if type(width) is int and width * heads != inner:
            return _problem(spec, "ssm_head_dim", f"{spec.key_label('ssm_head_dim')} ({width}) × mamba_n_heads ({heads}) "
                                                  f"is not mamba_expand × hidden_size ({inner:,}): the heads must divide "
                                                  f"the mixer's width exactly, and {config_class} refuses the config")
        if type(groups) is int and heads % groups:
            return _problem(spec, "ssm_groups", f"mamba_n_groups ({groups}) does not divide mamba_n_heads ({heads}): "
                                                "transformers builds the model (counted), but its forward pass fails",
                            "warning")
        return []
    return check


def _bamba_mixers(v) -> tuple[str, ...]:
    indices = set(v["attn_layer_indices"] or ())
    return tuple("attention" if i in indices else "mamba2" for i in range(v["num_layers"]))


BAMBA = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    "head_dim": HEAD_DIM_NULL_KEPT,
    **MAMBA2_MIXER,
    "attn_layer_indices": Field(("attn_layer_indices",), (), "ints", doc="indices of the attention layers"),
    "layer_mixers": fixed(Derived(_bamba_mixers, "attention at attn_layer_indices, Mamba-2 elsewhere")),
    "layer_ffns": fixed(Derived(lambda v: ("mlp",) * v["num_layers"], "a gated MLP in every layer")),
    # BambaConfig sets partial_rotary_factor to 0.5 whatever the file says.
    "partial_rotary_factor": fixed(0.5),
}


# Granite 4 hybrid: layer_types, legacy names ("mamba", "attention") remapped; a layer is Mamba-2 where it is
# "linear_attention" and attention otherwise. Every layer has a shared MLP (input_linear: both halves of
# a gated MLP, output_linear), and with experts a router and experts as wide as intermediate_size too.
_LEGACY_LAYER_TYPES = {"mamba": "linear_attention", "attention": "full_attention"}
_ATTENTION_LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "window_attention",
                          "indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                          "minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding",
                          "reference_sliding_attention", "linear_attention")


def _granite_layer_types(v) -> tuple[str, ...]:
    written = v["granite_layer_types"]
    if written is None:
        return ("linear_attention",) * v["num_layers"]
    return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)


def _granite_layer_check(spec) -> list[Problem]:
    """GraniteMoeHybridConfig's validate_layer_type: each entry (after the legacy names are remapped) a layer
    type transformers knows, one per layer."""
    if "granite_layer_types" not in spec.origins:
        return []
    types, layers = spec.values.get("layer_kinds_written"), spec.values.get("num_layers")
    if not isinstance(types, tuple):
        return []
    bad = sorted({t for t in types if t not in _ATTENTION_LAYER_TYPES})
    if bad:
        return _problem(spec, "granite_layer_types", f"layer_types: {', '.join(map(repr, bad))} is not a layer type "
                                                     "GraniteMoeHybridConfig accepts")
    if type(layers) is int and len(types) != layers:
        return _problem(spec, "granite_layer_types", f"layer_types has {len(types)} entries for {layers} layers: "
                                                     "GraniteMoeHybridConfig refuses the config")
    return []


GRANITE_HYBRID = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    "head_dim": HEAD_DIM_NULL_KEPT,
    **MAMBA2_MIXER,
    **MOE,
    "num_experts": Field(("num_local_experts",), 8, minimum=0, doc="routed experts per layer (0: the shared MLP only)"),
    "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
    "router_name": fixed("router"),
    "shared_intermediate_size": Field(("shared_intermediate_size",), 1024, doc="width of every layer's shared MLP"),
    "ffn_width": fixed(Derived(lambda v: v["shared_intermediate_size"], "shared_intermediate_size")),
    "ffn_module": fixed("shared_mlp"),
    "shared_mlp_beside": fixed(True),
    "mlp_names": fixed(("input_linear", "output_linear")),
    # (layers_block_type, its attribute_map alias, is set after __post_init__ fills a missing layer_types: a
    # null there leaves none, which the model cannot be built with)
    "granite_layer_types": Field(("layers_block_type", "layer_types"), None, "strs", null=("layer_types",),
                                 doc="each layer's kind: Mamba-2 (\"mamba\", \"linear_attention\") or attention"),
    "position_embedding_type": Field(("position_embedding_type",), None, "str",
                                     doc="\"rope\" for rotary positions, else none (no parameters either way)"),
    "rotary_embedding": fixed(Derived(lambda v: v["position_embedding_type"] == "rope", "position_embedding_type")),
    "layer_kinds_written": fixed(Derived(_granite_layer_types, "layer_types, legacy names remapped")),
    "layer_mixers": fixed(Derived(lambda v: tuple("mamba2" if t == "linear_attention" else "attention"
                                                  for t in v["layer_kinds_written"]),
                                  "Mamba-2 where layer_types says linear_attention, attention elsewhere")),
    "layer_ffns": fixed(Derived(lambda v: ("moe" if v["num_experts"] > 0 else "mlp",) * len(v["layer_kinds_written"]),
                                "experts and the shared MLP (the shared MLP alone with no experts)")),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "final_norm_name": fixed("norm"),
}


# --- Nemotron-H ---------------------------------------------------------------------------------------

# NemotronHConfig's layers: layers_block_type (or its attribute_map alias layer_types), legacy names remapped;
# else hybrid_override_pattern (M Mamba-2, * attention, - MLP, E experts); else its default of four blocks. Its
# num_hidden_layers is that list's length (a num_hidden_layers key is ignored). Each block holds one of them
# behind one RMSNorm.
_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
_NEMOTRON_H_TYPES = ("full_attention", "linear_attention", "moe", "mlp")
_NEMOTRON_H_KINDS = {"linear_attention": ("mamba2", "none"), "full_attention": ("attention", "none"),
                     "mlp": ("none", "mlp"), "moe": ("none", "moe")}


def _nemotron_h_types(v) -> tuple[str, ...]:
    written = v["nemotron_h_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    pattern = v["hybrid_override_pattern"]
    if isinstance(pattern, str):
        return tuple(_PATTERN.get(c, c) for c in pattern)
    return ("linear_attention", "moe", "full_attention", "mlp")


def _nemotron_h_kinds(v, which: int) -> tuple[str, ...]:
    return tuple(_NEMOTRON_H_KINDS.get(t, ("none", "none"))[which] for t in v["layer_kinds_written"])


def _nemotron_h_layer_check(spec) -> list[Problem]:
    """NemotronHConfig refuses a layer type it does not know (validate_layer_type) and a pattern character it
    cannot map."""
    v = spec.values
    if "nemotron_h_layer_types" in spec.origins:
        bad = sorted({t for t in v["layer_kinds_written"] if t not in _NEMOTRON_H_TYPES})
        if bad:
            return _problem(spec, "nemotron_h_layer_types", f"layers_block_type: {', '.join(map(repr, bad))} is not a "
                                                            "block type NemotronHConfig accepts (full_attention / "
                                                            "attention, linear_attention / mamba, moe, mlp)")
    # __post_init__ reads the pattern wherever layers_block_type itself is not written (its alias is set later)
    if "block_type_key" in spec.origins and v.get("block_type_key") is not None:
        return []
    if "hybrid_override_pattern" in spec.origins and v.get("hybrid_override_pattern") is None:
        return [Problem("error", "LC102", '"hybrid_override_pattern": null is not a pattern: with no layers_block_type, '
                                          "NemotronHConfig reads it and fails (leaving the key out takes the default "
                                          "blocks)", spec.key_span("hybrid_override_pattern") or spec.span)]
    elif isinstance(v.get("hybrid_override_pattern"), str):
        bad = sorted({c for c in v["hybrid_override_pattern"] if c not in _PATTERN})
        if bad:
            return _problem(spec, "hybrid_override_pattern", f"hybrid_override_pattern: {', '.join(map(repr, bad))} is "
                                                             "not a block NemotronHConfig reads (M Mamba-2, * attention, "
                                                             "- MLP, E experts)")
    return []


NEMOTRON_H = {
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
    # (attention_bias is not read: the attention's projections have no biases; the head is never tied)
    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "tie_embeddings": fixed(False),
    "mlp_gated": fixed(False),
    "mlp_names": fixed(("up_proj", "down_proj")),
    "mlp_bias": Field(("mlp_bias",), False, "bool", doc=BASE["mlp_bias"].doc),
    "intermediate_size": Field(("intermediate_size",), 21504, doc="width of the MLP blocks (up and down, no gate)"),
    # (the alias layer_types is set after __post_init__ and wins; a null there leaves no layers to build, a null
    # layers_block_type is filled as if absent)
    "nemotron_h_layer_types": Field(("layer_types", "layers_block_type"), None, "strs", null=("layers_block_type",),
                                    doc="each block's kind: linear_attention (Mamba-2), full_attention, mlp, moe"),
    # (whether the file writes layers_block_type itself: __post_init__ then does not read the pattern)
    "block_type_key": Field(("layers_block_type",), None, "any"),
    "hybrid_override_pattern": Field(("hybrid_override_pattern",), None, "str",
                                     doc="the blocks as letters (M Mamba-2, * attention, - MLP, E experts), "
                                         "where layers_block_type is not given"),
    "layer_kinds_written": fixed(Derived(_nemotron_h_types, "layers_block_type, else hybrid_override_pattern")),
    "num_layers": fixed(Derived(lambda v: len(v["layer_kinds_written"]), "the number of blocks in layers_block_type")),
    "layer_mixers": fixed(Derived(lambda v: _nemotron_h_kinds(v, 0), "Mamba-2 or attention blocks")),
    "layer_ffns": fixed(Derived(lambda v: _nemotron_h_kinds(v, 1), "MLP or experts blocks")),
    "layer_norms": fixed(("norm",)),
    "final_norm_name": fixed("norm_f"),
    "embed_name": fixed("embeddings"),
    "ssm_module": fixed("mixer"),
    "ffn_module": fixed("mixer"),
    # The Mamba-2 mixer: mamba_num_heads × mamba_head_dim wide (expand is not read). NemotronHConfig pops the
    # mamba_-prefixed spellings, which win over the plain ones.
    "ssm_heads": Field(("mamba_num_heads",), 128, doc="SSM heads"),
    "ssm_head_dim": Field(("mamba_head_dim",), 64, doc="width of each SSM head"),
    "ssm_inner": fixed(Derived(lambda v: v["ssm_heads"] * v["ssm_head_dim"], "mamba_num_heads × mamba_head_dim")),
    "ssm_groups": Field(("mamba_n_groups", "n_groups"), 8, doc="groups of the B and C state projections"),
    "ssm_state": Field(("ssm_state_size",), 128, doc="SSM state size per head channel"),
    "ssm_conv_kernel": Field(("mamba_d_conv", "conv_kernel"), 4, doc="width of the mixer's causal convolution"),
    "ssm_bias": Field(("use_bias",), False, "bool", doc="biases on the mixer's in_proj and out_proj"),
    "ssm_conv_bias": Field(("mamba_conv_bias", "use_conv_bias"), True, "bool", doc="a bias on the mixer's convolution"),
    **MOE,
    # attribute_map: num_local_experts is n_routed_experts. (A null num_local_experts is set past the class's
    # checks and fails only in an experts block: _nemotron_h_nulls.)
    "num_experts": Field(("num_local_experts", "n_routed_experts"), 8, "int?", doc=MOE["num_experts"].doc,
                         null="none"),
    "moe_intermediate_size": Field(("moe_intermediate_size",), 7688, doc=MOE["moe_intermediate_size"].doc),
    "shared_intermediate_size": Field(("moe_shared_expert_intermediate_size",), 7688,
                                      doc="width of the always-on shared expert"),
    "moe_latent_size": Field(("moe_latent_size",), None, "int?",
                             doc="width the experts work in (projected from and to hidden_size; null: hidden_size)"),
    "router_name": fixed("gate"),
}


def _nemotron_h_nulls(spec) -> list[Problem]:
    """A null n_routed_experts NemotronHConfig refuses; a null num_local_experts (its attribute_map alias) it keeps,
    and an experts block cannot be built with it."""
    v = spec.values
    if v.get("num_experts") is not None or "num_experts" not in spec.origins:
        return []
    key = spec.key_name("num_experts")
    if key == "num_local_experts" and "moe" not in (v.get("layer_ffns") or ()):
        return []
    return [Problem("error", "LC102", f'"{key}": null is not a whole number: NemotronHConfig rejects it, or its '
                                      "experts blocks cannot be built with it (leaving the key out takes the default, 8)",
                    spec.key_span("num_experts") or spec.span)]


def _nemotron_h_mamba(spec) -> list[Problem]:
    """The Mamba-2 mixer's forward pass shares each group's B and C among mamba_num_heads / n_groups heads (the
    model builds where they do not divide: a warning)."""
    v = spec.values
    heads, groups = v.get("ssm_heads"), v.get("ssm_groups")
    if type(heads) is int and type(groups) is int and heads % groups and "mamba2" in (v.get("layer_mixers") or ()):
        return _problem(spec, "ssm_groups", f"n_groups ({groups}) does not divide mamba_num_heads ({heads}): transformers "
                                            "builds the model (counted), but its forward pass fails", "warning")
    return []


# --- Falcon-H1 ---------------------------------------------------------------------------------------

FALCON_H1 = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    # FalconH1Attention: getattr(config, "head_dim", hidden_size // num_attention_heads) (the class declares none)
    "head_dim": Field(("head_dim",), HEAD_DIM, doc=BASE["head_dim"].doc),
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    **{b: Field(("attention_bias",), False, "bool", doc="biases on the attention projections")
       for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "mlp_bias": Field(("mlp_bias",), False, "bool", doc=BASE["mlp_bias"].doc),
    # The Mamba-2 mixer: mamba_d_ssm wide (null: mamba_expand × hidden_size).
    "ssm_expand": Field(("mamba_expand",), 2, "int?", null="none",
                        doc="the mixer's width as a multiple of hidden_size, where mamba_d_ssm is null"),
    "ssm_inner": Field(("mamba_d_ssm",), 1024, "int?", doc="the Mamba-2 mixer's width (null: mamba_expand × hidden_size)",
                       null=Derived(lambda v: v["ssm_expand"] * v["hidden_size"] if isinstance(v["ssm_expand"], int)
                                    else None, "mamba_expand × hidden_size")),
    "ssm_heads": Field(("mamba_n_heads",), 128, doc="SSM heads (mamba_n_heads × mamba_d_head must be the mixer's width)"),
    "ssm_head_dim": Field(("mamba_d_head",), Derived(lambda v: v["ssm_inner"] // v["ssm_heads"]
                                                     if isinstance(v["ssm_inner"], int) else None,
                                                     "the mixer's width / mamba_n_heads"),
                          "int|auto", doc="width of each SSM head (\"auto\": the mixer's width / mamba_n_heads)"),
    "ssm_groups": Field(("mamba_n_groups",), 1, doc="groups of the B and C state projections"),
    "ssm_state": Field(("mamba_d_state",), 256, doc="SSM state size per head channel"),
    "ssm_conv_kernel": Field(("mamba_d_conv",), 4, doc="width of the mixer's causal convolution"),
    "ssm_bias": Field(("mamba_proj_bias",), False, "bool", doc="a bias on the mixer's in_proj"),
    "ssm_out_bias": Field(("projectors_bias",), False, "bool", doc="a bias on the mixer's out_proj"),
    "ssm_conv_bias": Field(("mamba_conv_bias",), True, "bool", doc="a bias on the mixer's convolution"),
    "ssm_gated_norm": Field(("mamba_rms_norm",), False, "bool", doc="a gated RMSNorm in the mixer"),
    "layer_mixers": fixed(Derived(lambda v: ("attention+mamba2",) * v["num_layers"],
                                  "attention and a Mamba-2 mixer side by side in every layer")),
    "layer_ffns": fixed(Derived(lambda v: ("mlp",) * v["num_layers"], "a gated MLP in every layer")),
}


def _falcon_h1_widths(spec) -> list[Problem]:
    """FalconH1Config (validate_architecture): mamba_n_heads must divide the mixer's width, and mamba_n_heads ×
    mamba_d_head equal it; the forward pass shares each group's B and C among mamba_n_heads / mamba_n_groups heads."""
    v = spec.values
    inner, heads, width, groups = (v.get(k) for k in ("ssm_inner", "ssm_heads", "ssm_head_dim", "ssm_groups"))
    if inner is None and "ssm_inner" in spec.origins:
        return [Problem("error", "LC102", '"mamba_expand": null with "mamba_d_ssm": null: FalconH1Config cannot size '
                                          "the mixer (give either)", spec.key_span("ssm_expand") or spec.span)]
    if type(inner) is not int or type(heads) is not int:
        return []
    if inner % heads:
        return _problem(spec, "ssm_heads", f"mamba_n_heads ({heads}) does not divide the Mamba-2 mixer's width "
                                           f"({inner:,}): FalconH1Config refuses the config")
    if type(width) is int and width * heads != inner:
        return _problem(spec, "ssm_head_dim", f"mamba_d_head ({width}) × mamba_n_heads ({heads}) is not the mixer's "
                                              f"width ({inner:,}): the heads must divide it exactly, and FalconH1Config "
                                              "refuses the config")
    if type(groups) is int and heads % groups:
        return _problem(spec, "ssm_groups", f"mamba_n_groups ({groups}) does not divide mamba_n_heads ({heads}): "
                                            "transformers builds the model (counted), but its forward pass fails",
                        "warning")
    return []


# --- Qwen3-Next -------------------------------------------------------------------------------------

def _qwen3_next_types(v) -> tuple[str, ...]:
    written = v["qwen3_next_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    every = v["full_attention_interval"] or 1  # (a null one: refused by _qwen3_next_layer_check)
    return tuple("linear_attention" if (i + 1) % every else "full_attention" for i in range(v["num_layers"]))


def _qwen3_next_ffns(v) -> tuple[str, ...]:
    only_dense = set(v["mlp_only_layers"] or ())
    return tuple("moe" if i not in only_dense and v["num_experts"] > 0 and (i + 1) % v["decoder_sparse_step"] == 0
                 else "mlp" for i in range(len(v["layer_kinds_written"])))


def _qwen3_next_layer_check(config_class: str):
    def check(spec) -> list[Problem]:
        """The config class (Qwen3NextConfig, Qwen3.5's text configs) refuses a layer type transformers does not
        know, and layer_types of another length than num_hidden_layers (validate_layer_type); with no layer_types,
        a null full_attention_interval."""
        if "qwen3_next_layer_types" not in spec.origins:
            if spec.values.get("full_attention_interval") is None:
                return [Problem("error", "LC102", '"full_attention_interval": null is not a whole number: with no '
                                                  f"layer_types, {config_class} derives the layer types modulo it and "
                                                  "fails (leaving the key out takes the default, 4)",
                                spec.key_span("full_attention_interval") or spec.span)]
            return []
        return _written_layer_types(spec, "qwen3_next_layer_types", config_class)
    return check


QWEN3_NEXT = {
    "head_dim": Field(("head_dim",), 256, doc=BASE["head_dim"].doc),
    "num_kv_heads": Field(("num_key_value_heads",), 2, doc=BASE["num_kv_heads"].doc),
    **{b: Field(("attention_bias",), False, "bool", doc="biases on the attention projections")
       for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "qk_norm": fixed("head"),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "final_norm_name": fixed("norm"),
    "ffn_module": fixed("mlp"),
    "qwen3_next_layer_types": Field(("layer_types",), None, "strs",
                                    doc="each layer's kind: linear_attention (Gated DeltaNet) or full_attention"),
    # (popped from the keys where layer_types is not given; read only then)
    "full_attention_interval": Field(("full_attention_interval",), 4, "int?", null="none",
                                     doc="one full-attention layer in this many, where layer_types is not given"),
    "layer_kinds_written": fixed(Derived(_qwen3_next_types, "layer_types, else every full_attention_interval-th "
                                                            "layer full attention")),
    # (a layer of another type has neither mixer: its MLP and norms only)
    "layer_mixers": fixed(Derived(lambda v: tuple({"linear_attention": "gated_deltanet",
                                                   "full_attention": "gated_attention"}.get(t, "none")
                                                  for t in v["layer_kinds_written"]),
                                  "Gated DeltaNet or gated attention, by layer type")),
    "layer_ffns": fixed(Derived(_qwen3_next_ffns, "experts where (i + 1) % decoder_sparse_step == 0 and i is not in "
                                                  "mlp_only_layers")),
    "linear_key_heads": Field(("linear_num_key_heads",), 16, doc="Gated DeltaNet key heads"),
    "linear_value_heads": Field(("linear_num_value_heads",), 32, doc="Gated DeltaNet value heads"),
    "linear_key_head_dim": Field(("linear_key_head_dim",), 128, doc="width of each Gated DeltaNet key head"),
    "linear_value_head_dim": Field(("linear_value_head_dim",), 128, doc="width of each Gated DeltaNet value head"),
    "ssm_conv_kernel": Field(("linear_conv_kernel_dim",), 4, doc="width of the Gated DeltaNet's causal convolution"),
    # the cache of a Gated DeltaNet layer: its conv over q, k, v; its state, key × value width per value head
    "state_conv_channels": fixed(Derived(lambda v: 2 * v["linear_key_heads"] * v["linear_key_head_dim"]
                                         + v["linear_value_heads"] * v["linear_value_head_dim"],
                                         "2 × key heads × key width + value heads × value width")),
    "state_recurrent": fixed(Derived(lambda v: v["linear_value_heads"] * v["linear_key_head_dim"]
                                     * v["linear_value_head_dim"], "value heads × key width × value width")),
    **MOE,
    "num_experts": Field(("num_experts",), 512, minimum=0, doc=MOE["num_experts"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 10, doc=MOE["experts_per_token"].doc),
    "moe_intermediate_size": Field(("moe_intermediate_size",), 512, doc=MOE["moe_intermediate_size"].doc),
    "shared_intermediate_size": Field(("shared_expert_intermediate_size",), 512, doc="width of the always-on shared expert"),
    "shared_expert_gate": fixed(True),
    "decoder_sparse_step": Field(("decoder_sparse_step",), 1),
    "mlp_only_layers": Field(("mlp_only_layers",), (), "ints"),
}


# Qwen3.5 (text): Qwen3-Next's mixers, its Gated DeltaNet's projections split in four (in_proj_qkv, in_proj_z,
# in_proj_b, in_proj_a); a layer is Gated DeltaNet where layer_types says linear_attention and gated attention
# otherwise. Qwen3_5TextConfig: a gated MLP in every layer; Qwen3_5MoeTextConfig: experts with a gated shared expert
# in every layer (no dense MLP, no intermediate_size, no decoder_sparse_step / mlp_only_layers).
_QWEN3_NEXT_MOE_KEYS = ("num_experts", "experts_per_token", "moe_intermediate_size", "shared_intermediate_size",
                        "shared_expert_gate", "decoder_sparse_step", "mlp_only_layers", "moe_layers", "router_bias")
QWEN3_5 = {
    **{k: f for k, f in QWEN3_NEXT.items() if k not in _QWEN3_NEXT_MOE_KEYS},
    "num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
    "deltanet_projections": fixed("qkv_z_b_a"),
    "layer_mixers": fixed(Derived(lambda v: tuple("gated_deltanet" if t == "linear_attention" else "gated_attention"
                                                  for t in v["layer_kinds_written"]),
                                  "Gated DeltaNet where layer_types says linear_attention, gated attention elsewhere")),
    "layer_ffns": fixed(Derived(lambda v: ("mlp",) * len(v["layer_kinds_written"]), "a gated MLP in every layer")),
}
QWEN3_5_MOE = {
    **QWEN3_5,
    **{k: f for k, f in QWEN3_NEXT.items() if k in _QWEN3_NEXT_MOE_KEYS and k not in ("decoder_sparse_step",
                                                                                       "mlp_only_layers")},
    "num_kv_heads": Field(("num_key_value_heads",), 2, doc=BASE["num_kv_heads"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
    "num_experts": Field(("num_experts",), 256, minimum=0, doc=MOE["num_experts"].doc),
    "intermediate_size": fixed(None),
    "layer_ffns": fixed(Derived(lambda v: ("moe",) * len(v["layer_kinds_written"]),
                                "experts and a gated shared expert in every layer")),
}


# --- Kimi Linear ------------------------------------------------------------------------------------

# KimiLinearConfig: its layers' kinds from layer_types, else linear_attn_config's full_attn_layers and kda_layers
# (both given; numbered from 1), else full attention at every fourth layer but the first; its MLPs' from
# mlp_layer_types, else dense below first_k_dense_replace. linear_attn_config's head_dim, num_heads and
# short_conv_kernel_size win over linear_head_dim, linear_num_heads and linear_conv_kernel_dim.
_KIMI_NESTED = {"linear_head_dim": "head_dim", "linear_num_heads": "num_heads", "ssm_conv_kernel": "short_conv_kernel_size"}
_KIMI_TOP = {"linear_head_dim": "kimi_linear_head_dim", "linear_num_heads": "kimi_linear_num_heads",
             "ssm_conv_kernel": "kimi_linear_conv_kernel"}


def _kimi_nested(name: str):
    def value(v):
        nested = v["linear_attn_config"]
        if not isinstance(nested, dict):
            return v[_KIMI_TOP[name]]
        return nested.get(_KIMI_NESTED[name], v[_KIMI_TOP[name]])
    return Derived(value, f"linear_attn_config's {_KIMI_NESTED[name]}, else {name}")


def _kimi_types(v) -> tuple:
    written = v["kimi_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    nested = v["linear_attn_config"]
    n = v["num_layers"]
    if isinstance(nested, dict) and "full_attn_layers" in nested and "kda_layers" in nested:
        types: list = [None] * n
        for key, kind in (("full_attn_layers", "full_attention"), ("kda_layers", "linear_attention")):
            for layer in nested[key]:
                types[layer - 1] = kind  # (python's indexing: layer 0 is the last; past the end fails)
        return tuple(types)
    return tuple("full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n))


def _kimi_ffns(v) -> tuple[str, ...]:
    written = v["mlp_layer_types"]
    if written is None:
        return tuple("mlp" if i < v["first_k_dense_replace"] else "moe" for i in range(v["num_layers"]))
    return tuple("moe" if t == "sparse" else "mlp" for t in written)


def _kimi_check(spec) -> list[Problem]:
    """What KimiLinearConfig refuses, or its model cannot be built with: a linear_attn_config that is not a mapping;
    its full_attn_layers / kda_layers numbering no layer (or leaving one out); layer_types or mlp_layer_types it does
    not accept (validate_layer_type); a null first_k_dense_replace with no mlp_layer_types; and, where a layer reads
    it, a null (or whole-number float) under the keys it sets past its field checks: num_experts,
    num_shared_experts, linear_attn_config's head_dim, num_heads, short_conv_kernel_size."""
    v = spec.values
    n = v.get("num_layers")
    if "linear_attn_config" in spec.origins and not isinstance(v.get("linear_attn_config"), dict):
        what = "null" if v.get("linear_attn_config") is None else "not a mapping"
        return [Problem("error", "LC102", f'"linear_attn_config": {what}: KimiLinearConfig reads its head_dim, num_heads '
                                          "and short_conv_kernel_size with .get and fails (leaving the key out takes "
                                          "the top-level keys)", spec.key_span("linear_attn_config") or spec.span)]
    nested = v.get("linear_attn_config")
    types = v.get("layer_kinds_written")
    if v.get("kimi_layer_types") is not None:
        problems = _written_layer_types(spec, "kimi_layer_types", "KimiLinearConfig")
        if problems:
            return problems
    elif isinstance(nested, dict) and "full_attn_layers" in nested and "kda_layers" in nested:
        lists = [nested[k] for k in ("full_attn_layers", "kda_layers")]
        if not all(isinstance(x, list) and all(type(i) is int for i in x) for x in lists):
            return _problem(spec, "linear_attn_config", "linear_attn_config: full_attn_layers and kda_layers must be "
                                                        "lists of layer numbers")
        if type(n) is int and (types is None or None in types):
            return _problem(spec, "linear_attn_config", f"linear_attn_config: full_attn_layers and kda_layers (numbered "
                                                        f"from 1) must name each of the {n} layers, and no other: "
                                                        "KimiLinearConfig refuses the layer types they make")
    if "mlp_layer_types" in spec.origins:
        written, layers = v.get("mlp_layer_types"), v.get("num_layers")
        bad = sorted({t for t in written or () if t not in ("sparse", "dense")})
        if bad:
            return _problem(spec, "mlp_layer_types", f"mlp_layer_types: {', '.join(map(repr, bad))} is not sparse or "
                                                     "dense: KimiLinearConfig refuses it")
        if isinstance(written, tuple) and type(layers) is int and len(written) != layers:
            return _problem(spec, "mlp_layer_types", f"mlp_layer_types has {len(written)} entries for {layers} layers: "
                                                     "KimiLinearConfig refuses the config")
    elif v.get("first_k_dense_replace") is None:
        return [Problem("error", "LC102", '"first_k_dense_replace": null is not a whole number: with no mlp_layer_types, '
                                          "KimiLinearConfig compares the layer indices with it and fails (leaving the "
                                          "key out takes the default, 1)",
                        spec.key_span("first_k_dense_replace") or spec.span)]
    kda = any(t != "full_attention" for t in types or ())
    if isinstance(nested, dict):
        for name, key in _KIMI_NESTED.items():
            # (set as linear_head_dim, linear_num_heads, linear_conv_kernel_dim: int fields the class checks)
            if key in nested and (type(nested[key]) is not int or (kda and nested[key] < 1)):
                return _problem(spec, "linear_attn_config", f"linear_attn_config's {key} ({nested[key]!r}) is not a "
                                                            "positive whole number: KimiLinearConfig refuses it, or the "
                                                            "delta-attention layers cannot be built with it")
    return _attribute_map_numbers(spec, "KimiLinearConfig", _KIMI_DECLARED)


# KimiLinearConfig's fields an attribute_map name shadows (num_experts, num_shared_experts, num_experts_per_token,
# model_max_length): whether a null is allowed there.
_KIMI_DECLARED = {"num_local_experts": False, "n_shared_experts": False, "num_experts_per_tok": True,
                  "max_position_embeddings": False}


KIMI_LINEAR = {
    # Multi-head latent attention (no positions: KimiLinearConfig has no RoPE) in the full-attention layers
    "num_kv_heads": Field(("num_key_value_heads",), 32, "int?", doc="key/value heads (not read: latent attention)",
                          null=KV_HEADS),
    # (hidden_size need not divide by the heads: FLOOR_HEADS)
    "head_dim": fixed(Derived(lambda v: v["qk_rope_head_dim"], "qk_rope_head_dim")),
    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias")},
    "o_bias": Field(("attention_bias",), False, "bool", doc="biases on q_a_proj, kv_a_proj_with_mqa and o_proj"),
    "q_lora_rank": Field(("q_lora_rank",), None, "int?", doc="rank of the low-rank query projection (null: a full q_proj)"),
    "kv_lora_rank": Field(("kv_lora_rank",), 512, doc="width of the compressed key/value latent (what the KV cache holds)"),
    "qk_nope_head_dim": Field(("qk_nope_head_dim",), 128),
    "qk_rope_head_dim": Field(("qk_rope_head_dim",), 64),
    "v_head_dim": Field(("v_head_dim",), 128, "int?", null="none"),
    # Kimi Delta Attention in the others
    "linear_attn_config": Field(("linear_attn_config",), None, "any",
                                doc="the delta attention's head_dim, num_heads, short_conv_kernel_size and the layers' "
                                    "kinds (full_attn_layers, kda_layers, numbered from 1)"),
    "kimi_linear_head_dim": Field(("linear_head_dim",), 128, doc="width of each delta-attention head"),
    "kimi_linear_num_heads": Field(("linear_num_heads",), 32, doc="delta-attention heads"),
    "kimi_linear_conv_kernel": Field(("linear_conv_kernel_dim",), 4, doc="width of the delta attention's convolution"),
    **{name: fixed(_kimi_nested(name)) for name in _KIMI_NESTED},
    "kimi_layer_types": Field(("layer_types",), None, "strs",
                              doc="each layer's kind: full_attention (latent attention) or linear_attention"),
    "layer_kinds_written": fixed(Derived(_kimi_types, "layer_types, else linear_attn_config's full_attn_layers and "
                                                      "kda_layers, else full attention every fourth layer")),
    "layer_mixers": fixed(Derived(lambda v: tuple("attention" if t == "full_attention" else "kda"
                                                  for t in v["layer_kinds_written"]),
                                  "latent attention where layer_types says full_attention, delta attention elsewhere")),
    # the cache of a delta-attention layer: its conv over q, k and v; its state, a head_dim × head_dim per head
    "state_conv_channels": fixed(Derived(lambda v: 3 * v["linear_num_heads"] * v["linear_head_dim"],
                                         "3 × linear_num_heads × linear_head_dim")),
    "state_recurrent": fixed(Derived(lambda v: v["linear_num_heads"] * v["linear_head_dim"] ** 2,
                                     "linear_num_heads × linear_head_dim²")),
    # DeepSeek-V3's mixture of experts (a sigmoid router, its correction bias a buffer) below a shared MLP
    **MOE,
    # (attribute_map: num_local_experts, num_experts_per_tok and n_shared_experts are num_experts,
    # num_experts_per_token and num_shared_experts, which the file may write and which win, unchecked)
    "num_experts": Field(("num_experts", "num_local_experts"), 256, "int?", minimum=0, doc=MOE["num_experts"].doc,
                         null="none"),
    "experts_per_token": Field(("num_experts_per_token", "num_experts_per_tok"), 8, "int?",
                               doc=MOE["experts_per_token"].doc, null="none"),
    "moe_intermediate_size": Field(("moe_intermediate_size",), 1024, doc=MOE["moe_intermediate_size"].doc),
    "n_shared_experts": Field(("num_shared_experts", "n_shared_experts"), 1, "int?", minimum=0, null="none",
                              doc="shared experts, one MLP moe_intermediate_size × this wide"),
    # (the attribute_map names as written: a whole-number float there is kept, which the experts cannot be built with)
    **{f"declared_{key}": Field((key,), None, "any") for key in _KIMI_DECLARED},
    "num_experts_written": Field(("num_experts",), None, "any"),
    "n_shared_experts_written": Field(("num_shared_experts",), None, "any"),
    "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"] * (v["n_shared_experts"] or 0),
                                              "moe_intermediate_size × num_shared_experts")),
    "mlp_layer_types": Field(("mlp_layer_types",), None, "strs", doc="each layer's MLP: sparse (experts) or dense"),
    "first_k_dense_replace": Field(("first_k_dense_replace",), 1, "int?", minimum=-MAX_LAYER_INDEX, null="none",
                                   doc="dense MLPs in the first this many layers, where mlp_layer_types is not given"),
    "layer_ffns": fixed(Derived(_kimi_ffns, "mlp_layer_types, else dense below first_k_dense_replace")),
    "max_positions": Field(("model_max_length", "max_position_embeddings"), 1048576, null=("model_max_length",),
                           doc=BASE["max_positions"].doc),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "final_norm_name": fixed("norm"),
    "ffn_module": fixed("mlp"),
    # (KimiLinearForCausalLM ties nothing: its _tied_weights_keys is empty, whatever tie_word_embeddings says)
    "tie_embeddings": fixed(False),
}


# --- Bailing hybrid (Ling 3) -------------------------------------------------------------------------

# BailingHybridConfig: Kimi Linear's shape (latent attention, Kimi Delta Attention, DeepSeek-V3's experts) with a
# per-head output gate on the latent attention, the delta attention's gates full rank, rotary positions, and its
# delta attention as wide as the attention (num_attention_heads heads of head_dim). Its checkpoints' multi-token-
# prediction layers (num_mtp_layers) are not built.
_BAILING_DECLARED = {"num_local_experts": False, "n_shared_experts": False, "num_experts_per_tok": False,
                     "max_position_embeddings": False}


def _bailing_types(v) -> tuple:
    written = v["bailing_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    return tuple("full_attention" if (i + 1) % v["layer_group_size"] == 0 else "linear_attention"
                 for i in range(v["num_layers"]))


def _bailing_check(spec) -> list[Problem]:
    """What BailingHybridConfig refuses, or its model cannot be built with: layer_types or mlp_layer_types it does not
    accept (validate_layer_type); a layer_group_size of 0 with no layer_types; swiglu limit lists of another length
    than num_hidden_layers; and, where a layer reads them, a null or a whole-number float under the attribute_map
    names it sets past its field checks (num_experts, num_shared_experts)."""
    v = spec.values
    if v.get("bailing_layer_types") is not None:
        problems = _written_layer_types(spec, "bailing_layer_types", "BailingHybridConfig")
        if problems:
            return problems
    elif v.get("layer_group_size") == 0:
        return _problem(spec, "layer_group_size", "layer_group_size 0 with no layer_types: BailingHybridConfig derives "
                                                  "the layer types modulo it and fails")
    written, layers = v.get("mlp_layer_types"), v.get("num_layers")
    if written is not None:
        bad = sorted({t for t in written if t not in ("sparse", "dense")})
        if bad:
            return _problem(spec, "mlp_layer_types", f"mlp_layer_types: {', '.join(map(repr, bad))} is not sparse or "
                                                     "dense: BailingHybridConfig refuses it")
        if type(layers) is int and len(written) != layers:
            return _problem(spec, "mlp_layer_types", f"mlp_layer_types has {len(written)} entries for {layers} layers: "
                                                     "BailingHybridConfig refuses the config")
    for name in ("swiglu_limits", "swiglu_limits_shared"):
        limits = v.get(name)
        if limits is not None and type(layers) is int and not (isinstance(limits, list) and len(limits) == layers):
            return _problem(spec, name, f"{spec.key_label(name)} must hold one limit per layer ({layers}): "
                                        "BailingHybridConfig refuses the config")
    return _attribute_map_numbers(spec, "BailingHybridConfig", _BAILING_DECLARED)


def _attribute_map_numbers(spec, config_class: str, declared: dict[str, bool]) -> list[Problem]:
    """Kimi Linear's and Ling's attribute_map names (num_experts, num_shared_experts), which the class sets past its
    field checks: a null or a whole-number float there where a layer has experts; and the declared spellings they
    shadow, still checked as the class's fields (``declared``: key -> whether a null is allowed)."""
    v = spec.values
    sparse = "moe" in (v.get("layer_ffns") or ())
    for name, own in (("num_experts", "num_local_experts"), ("n_shared_experts", "n_shared_experts")):
        key = spec.key_name(name)
        if v.get(name) is None and key is not None and (sparse or key == own):
            return [Problem("error", "LC102", f'"{key}": null is not a whole number: {config_class} rejects it, or '
                                              "its experts layers cannot be built with it", spec.key_span(name) or spec.span)]
        raw = v.get(f"{name}_written")
        if sparse and key != own and isinstance(raw, float):
            write = f" (write {int(raw)})" if raw.is_integer() else ""  # (not for 1.5, inf or nan)
            return [Problem("error", "LC102", f'"{key}": expected a whole number, got {raw!r}: {config_class} keeps the '
                                              f"float, and its experts layers cannot be built with it{write}",
                            spec.key_span(name) or spec.span)]
    for key, nullable in declared.items():
        raw = v.get(f"declared_{key}")
        if f"declared_{key}" in spec.origins and not (type(raw) is int or (raw is None and nullable)):
            return [Problem("error", "LC102", f'"{key}": expected a whole number, got {json.dumps(raw)}: '
                                              f"{config_class} refuses it", spec.key_span(f"declared_{key}") or spec.span)]
    return []


BAILING_HYBRID = {
    **{k: f for k, f in KIMI_LINEAR.items() if not k.startswith(("kimi_", "declared_")) and k != "linear_attn_config"},
    **{f"declared_{key}": Field((key,), None, "any") for key in _BAILING_DECLARED},
    # RoPE over qk_rope_head_dim (the class holds it as head_dim)
    "rope_head_dim": Field(("qk_rope_head_dim",), 64, doc="width of the rotated part of each query and key head"),
    "v_head_dim": Field(("v_head_dim",), 128),
    "attention_head_gate": fixed(True),
    "kda_full_rank_gates": fixed(True),
    # The class copies head_dim to linear_head_dim, then sets head_dim to qk_rope_head_dim: a config it wrote whole
    # (to_dict) holds "head_dim": 64 beside "linear_head_dim": 128, and linear_head_dim, set after the fields, wins.
    "linear_head_dim": Field(("head_dim", "linear_head_dim"), 128, doc="width of each delta-attention head"),
    "linear_num_heads": fixed(Derived(lambda v: v["num_heads"], "num_attention_heads")),
    "ssm_conv_kernel": Field(("short_conv_kernel_size",), 4, doc="width of the delta attention's convolution"),
    "layer_group_size": Field(("layer_group_size",), 6, minimum=0,
                              doc="one full-attention layer in this many, where layer_types is not given"),
    "bailing_layer_types": Field(("layer_types",), None, "strs",
                                 doc="each layer's kind: full_attention (latent attention) or linear_attention"),
    "layer_kinds_written": fixed(Derived(_bailing_types, "layer_types, else full attention every layer_group_size-th "
                                                         "layer")),
    "experts_per_token": Field(("num_experts_per_token", "num_experts_per_tok"), 8, "int?",
                               doc=MOE["experts_per_token"].doc, null="none"),
    "first_k_dense_replace": Field(("first_k_dense_replace",), 2, minimum=-MAX_LAYER_INDEX,
                                   doc="dense MLPs in the first this many layers, where mlp_layer_types is not given"),
    "intermediate_size": Field(("intermediate_size",), 6144, doc="width of the dense layers' MLP"),
    "swiglu_limits": Field(("swiglu_limits", "expert_swiglu_limit_list"), None, "any",
                           doc="the experts' activation limit per layer (no parameters)"),
    "swiglu_limits_shared": Field(("swiglu_limits_shared", "share_expert_swiglu_limit_list"), None, "any",
                                  doc="the shared experts' activation limit per layer (no parameters)"),
    **{k: f for k, f in ROPE.items() if k != "rope_head_dim"},
}


# --- LFM2 -------------------------------------------------------------------------------------------

def _lfm2_ffn(v) -> int:
    """Lfm2MLP's width: with block_auto_adjust_ff_dim, two thirds of intermediate_size, times
    block_ffn_dim_multiplier, rounded up to a multiple of block_multiple_of."""
    f = v["intermediate_size"]
    if v["block_auto_adjust_ff_dim"]:
        f = int(2 * f / 3)
        multiplier = v["block_ffn_dim_multiplier"]
        # An infinite or NaN multiplier (a config.json's Infinity, NaN, 1e999) makes no width: Lfm2MLP's int() raises,
        # and _lfm2_layer_check refuses it.
        if multiplier is not None and math.isfinite(multiplier):
            f = int(multiplier * f)
            step = v["block_multiple_of"]
            f = step * ((f + step - 1) // step)
    return f


def _lfm2_types(v) -> tuple[str, ...]:
    if v["lfm2_layer_types"] is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in v["lfm2_layer_types"])
    full = v["full_attn_idxs"]
    full = set(full) if full is not None else set(range(v["num_layers"]))
    return tuple("full_attention" if i in full else "conv" for i in range(v["num_layers"]))


def _lfm2_layer_check(spec) -> list[Problem]:
    """Lfm2Config refuses a layer type transformers does not know, and layer_types of another length than
    num_hidden_layers (validate_layer_type); Lfm2MLP cannot size its width by an infinite or NaN
    block_ffn_dim_multiplier where block_auto_adjust_ff_dim reads it (int() raises)."""
    v = spec.values
    multiplier = v.get("block_ffn_dim_multiplier")
    if v.get("block_auto_adjust_ff_dim") and isinstance(multiplier, float) and not math.isfinite(multiplier):
        return _problem(spec, "block_ffn_dim_multiplier", f"block_ffn_dim_multiplier {multiplier}: Lfm2MLP cannot "
                                                          "make a width of it (int() of a non-finite number raises)")
    if "lfm2_layer_types" not in spec.origins:
        return []
    return _written_layer_types(spec, "lfm2_layer_types", "Lfm2Config")


def _written_layer_types(spec, field: str, config_class: str) -> list[Problem]:
    """A written layer_types (``field``) the config class refuses (validate_layer_type): a type transformers does
    not know, or another length than num_hidden_layers."""
    types, layers = spec.values.get("layer_kinds_written"), spec.values.get("num_layers")
    bad = sorted({t for t in types or () if t not in _ATTENTION_LAYER_TYPES})
    if bad:
        return _problem(spec, field, f"layer_types: {', '.join(map(repr, bad))} is not a layer type {config_class} accepts")
    if isinstance(types, tuple) and type(layers) is int and len(types) != layers:
        return _problem(spec, field, f"layer_types has {len(types)} entries for {layers} layers: {config_class} refuses "
                                     "the config")
    return []


def short_conv_stack(kernel: int, mlp: str) -> dict[str, Field]:
    """The fields of LFM2's and LFM3's layer stack: a short convolution (``kernel`` wide by default, conv_L_cache)
    where layer_kinds_written says conv, attention elsewhere, and an MLP (``mlp``, as said) in every layer; a conv
    layer caches its last conv_L_cache inputs over the hidden width, no recurrent state."""
    return {
        "layer_mixers": fixed(Derived(lambda v: tuple("short_conv" if t == "conv" else "attention"
                                                      for t in v["layer_kinds_written"]),
                                      "a short convolution where layer_types says conv, attention elsewhere")),
        "layer_ffns": fixed(Derived(lambda v: ("mlp",) * len(v["layer_kinds_written"]), f"a {mlp} MLP in every layer")),
        "ssm_conv_kernel": Field(("conv_L_cache",), kernel, doc="width of the short convolution"),
        "ssm_conv_bias": Field(("conv_bias",), False, "bool", doc="biases on the short convolution and its projections"),
        "state_conv_channels": fixed(Derived(lambda v: v["hidden_size"], "hidden_size")),
        "state_recurrent": fixed(0),
    }


LFM2 = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    # Lfm2Attention: getattr(config, "head_dim", hidden_size // num_attention_heads) (the class declares none)
    "head_dim": HEAD_DIM_NULL_KEPT,
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    # (the legacy spellings tie_embedding and block_ff_dim, popped in __post_init__, win)
    "tie_embeddings": Field(("tie_embedding", "tie_word_embeddings"), True, "bool", doc=BASE["tie_embeddings"].doc),
    "intermediate_size": Field(("block_ff_dim", "intermediate_size"), 12288,
                               doc="the MLP's nominal width (block_auto_adjust_ff_dim adjusts it)"),
    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")),
    "qk_norm": fixed("head"),
    "qk_norm_names": fixed(("q_layernorm", "k_layernorm")),
    "mlp_names": fixed(("w1", "w3", "w2")),
    "block_auto_adjust_ff_dim": Field(("block_auto_adjust_ff_dim",), True, "bool",
                                      doc="the MLP two thirds as wide, times the multiplier, rounded up"),
    "block_ffn_dim_multiplier": Field(("block_ffn_dim_multiplier",), 1.0, "float"),
    "block_multiple_of": Field(("block_multiple_of",), 256, doc="the MLP's width is rounded up to a multiple of this"),
    "ffn_width": fixed(Derived(_lfm2_ffn, "2/3 × intermediate_size × block_ffn_dim_multiplier, rounded up to "
                                          "block_multiple_of")),
    "lfm2_layer_types": Field(("layer_types",), None, "strs", doc="each layer's kind: conv or full_attention"),
    "full_attn_idxs": Field(("full_attn_idxs",), None, "ints", null="default",
                            doc="indices of the attention layers, where layer_types is not given (null: all)"),
    "layer_kinds_written": fixed(Derived(_lfm2_types, "layer_types, else full_attn_idxs")),
    **short_conv_stack(3, "gated"),
    "layer_norms": fixed(("operator_norm", "ffn_norm")),
    "final_norm_name": fixed("embedding_norm"),
}


# LFM2-MoE: LFM2's mixers (layer_types required: Lfm2MoeConfig fills none, and its layers index it), a SwiGLU MLP
# intermediate_size wide (not adjusted) in the first num_dense_layers layers, experts with a sigmoid router (its
# expert_bias a buffer) in the others.
def _lfm2_moe_layer_check(spec) -> list[Problem]:
    """Lfm2MoeConfig keeps layer_types None unless given, which its layers cannot be built with; a written one it
    checks as LFM2's (validate_layer_type)."""
    if spec.values.get("lfm2_layer_types") is None:
        what = '"layer_types": null is not a list' if "lfm2_layer_types" in spec.origins else "layer_types is not set"
        return [Problem("error", "LC102", f"{what}: Lfm2MoeConfig has no default, and its layers read each one's type "
                                          "(conv or full_attention) from it", spec.key_span("lfm2_layer_types") or spec.span)]
    return _written_layer_types(spec, "lfm2_layer_types", "Lfm2MoeConfig")


LFM2_MOE = {
    **{k: f for k, f in LFM2.items() if k not in ("block_auto_adjust_ff_dim", "block_ffn_dim_multiplier",
                                                  "block_multiple_of", "ffn_width", "full_attn_idxs")},
    "intermediate_size": Field(("intermediate_size",), 7168, doc="width of the dense layers' MLP"),
    "lfm2_layer_types": Field(("layer_types",), None, "strs", doc="each layer's kind: conv or full_attention (required)"),
    "layer_kinds_written": fixed(Derived(lambda v: tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in v["lfm2_layer_types"]),
                                         "layer_types")),
    **MOE,
    "num_experts": Field(("num_experts",), 32, minimum=0, doc=MOE["num_experts"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 4, doc=MOE["experts_per_token"].doc),
    "moe_intermediate_size": Field(("moe_intermediate_size",), 1792, doc=MOE["moe_intermediate_size"].doc),
    "num_dense_layers": Field(("num_dense_layers",), 2, minimum=-MAX_LAYER_INDEX,
                              doc="layers with a dense MLP before the experts layers"),
    "layer_ffns": fixed(Derived(lambda v: tuple("mlp" if i < v["num_dense_layers"] else "moe"
                                                for i in range(len(v["layer_kinds_written"]))),
                                "a dense MLP in the first num_dense_layers layers, experts in the others")),
}



# --- LFM3 -------------------------------------------------------------------------------------------

def _lfm3_types(v) -> tuple[str, ...]:
    """Lfm3Config's layer types: layer_types as written, else attention at layer 2 of every four (full) and at layer 0
    of every four but the first (sliding), short convolutions elsewhere."""
    written = v["lfm3_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    return tuple("full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i > 0 else "conv"
                 for i in range(v["num_layers"]))


def _lfm3_layer_check(spec) -> list[Problem]:
    """Lfm3Config refuses a layer type transformers does not know, and layer_types of another length than
    num_hidden_layers (validate_layer_type)."""
    if "lfm3_layer_types" not in spec.origins:
        return []
    return _written_layer_types(spec, "lfm3_layer_types", "Lfm3Config")


# Lfm3Config's rope_parameters where the file gives none: one entry per attention type.
LFM3_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
             "full_attention": {"rope_type": "proportional", "rope_theta": 1_000_000.0, "partial_rotary_factor": 0.5}}


def _lfm3_rope(spec) -> list[Problem]:
    """Lfm3RotaryEmbedding reads rope_parameters[t] (a mapping) for each attention type t the layers use: a flat
    rope_parameters (or rope_scaling, which replaces it), or one with no mapping for such a type, cannot build it."""
    v = spec.values
    params = v.get("rope_parameters")
    used = [t for t in ("full_attention", "sliding_attention") if t in (v.get("layer_kinds_written") or ())]
    missing = [t for t in used if not (isinstance(params, dict) and isinstance(params.get(t), dict))]
    if not missing:
        return []
    key = spec.key_name("rope_parameters") or "rope_parameters"
    return [Problem("error", "LC103", f'"{key}": no mapping for "{missing[0]}": Lfm3Config keeps one per attention type, '
                                      "and its rotary embedding cannot be built without it",
                    spec.key_span("rope_parameters") or spec.span)]


# LFM3: LFM2's short convolutions (conv_L_cache wide) and Qwen3's attention (RMS norms over each head's q and k, biases
# by attention_bias) with a sigmoid gate per head (g_proj, by use_attention_gate), on full- and sliding-window layers;
# a SwiGLU MLP intermediate_size wide (no adjusting); norms before, and by use_sandwich_norm after, each branch.
LFM3 = {
    "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
    "num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc=BASE["tie_embeddings"].doc),
    "qk_norm": fixed("head"),
    "mlp_names": fixed(("w1", "w3", "w2")),
    "attention_head_gate": Field(("use_attention_gate",), True, "bool",
                                 doc="a sigmoid gate per head over the attention's output (g_proj)"),
    "use_sandwich_norm": Field(("use_sandwich_norm",), True, "bool",
                               doc="RMS norms over each branch's output too (post_operator_norm, post_ffn_norm)"),
    "layer_norms": fixed(Derived(lambda v: ("operator_norm", "ffn_norm")
                                 + (("post_operator_norm", "post_ffn_norm") if v["use_sandwich_norm"] else ()),
                                 "operator_norm, ffn_norm (and post_operator_norm, post_ffn_norm by use_sandwich_norm)")),
    "final_norm_name": fixed("embedding_norm"),
    "lfm3_layer_types": Field(("layer_types",), None, "strs",
                              doc="each layer's kind: conv, full_attention or sliding_attention"),
    "layer_kinds_written": fixed(Derived(_lfm3_types, "layer_types, else attention at layers 2 and 4 of every four")),
    # (read by the cache: a sliding_attention layer keeps the window)
    "layer_types": fixed(Derived(lambda v: v["layer_kinds_written"], "layer_types")),
    "sliding_window": Field(("sliding_window",), 256, "int?", doc=BASE["sliding_window"].doc),
    **short_conv_stack(7, "SwiGLU"),
    # rope_parameters one mapping per attention type (rope_theta filled in where absent); rope_scaling replaces it
    "rope_parameters": Field(("rope_scaling", "rope_parameters"), LFM3_ROPE, "any", null="default",
                             doc="rotary position settings, one mapping per attention type (no parameters)"),
    "rope_scaling": fixed(None), "partial_rotary_factor": fixed(None), "rope_scaling_layer_types": fixed(()),
    # (the rotary embedding is built for the attention types the layers use)
    "rotary_embedding": fixed(Derived(lambda v: tuple(t for t in ("full_attention", "sliding_attention")
                                                      if t in v["layer_kinds_written"]),
                                      "the attention types the layers use")),
    # (its RoPE check judges every entry rope_parameters holds, whether a layer uses it or not)
    "rope_layer_types": fixed(Derived(lambda v: tuple(t for t in ("full_attention", "sliding_attention")
                                                      if isinstance(v["rope_parameters"], dict)
                                                      and isinstance(v["rope_parameters"].get(t), dict)),
                                      "the attention types rope_parameters holds an entry for")),
}


# --- Lara Mini --------------------------------------------------------------------------------------

_LARA_MINI_PATTERN = ("linear_attention", "sliding_attention", "linear_attention", "full_attention", "sliding_attention")


def _lara_mini_types(v) -> tuple[str, ...]:
    written = v["lara_mini_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    return tuple(_LARA_MINI_PATTERN[i % len(_LARA_MINI_PATTERN)] for i in range(v["num_layers"]))


def _lara_mini_check(spec) -> list[Problem]:
    """LaraMiniConfig refuses a layer type transformers does not know or layer_types of another length than
    num_hidden_layers (validate_layer_type), and query (value) heads that are no multiple of the key/value (key)
    heads (validate_architecture)."""
    if "lara_mini_layer_types" in spec.origins:
        problems = _written_layer_types(spec, "lara_mini_layer_types", "LaraMiniConfig")
        if problems:
            return problems
    v = spec.values
    for many, few in (("num_heads", "num_kv_heads"), ("linear_value_heads", "linear_key_heads")):
        if type(v.get(many)) is int and type(v.get(few)) is int and v[many] % v[few]:
            return _problem(spec, many, f"{spec.key_label(many)} ({v[many]}) is no multiple of {spec.key_label(few)} "
                                        f"({v[few]}): LaraMiniConfig refuses the config")
    return []


# Lara Mini: Qwen3.5's Gated DeltaNet (projections split in four) where layer_types says linear_attention, Qwen3's
# attention (RMS norms over each head's q and k; no output gate) elsewhere, full or sliding-window; experts and an
# always-on shared expert with no gate in every layer (no dense MLP).
LARA_MINI = {
    **{k: f for k, f in QWEN3_5_MOE.items() if k not in ("full_attention_interval", "qwen3_next_layer_types")},
    "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
    "num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
    "lara_mini_layer_types": Field(("layer_types",), None, "strs",
                                   doc="each layer's kind: linear_attention (Gated DeltaNet), full_attention or "
                                       "sliding_attention"),
    "layer_kinds_written": fixed(Derived(_lara_mini_types, "layer_types, else linear, sliding, linear, full, sliding "
                                                           "attention in turn")),
    # (read by the cache: a sliding_attention layer keeps the window)
    "layer_types": fixed(Derived(lambda v: v["layer_kinds_written"], "layer_types")),
    "sliding_window": Field(("sliding_window",), 512, doc=BASE["sliding_window"].doc),
    "layer_mixers": fixed(Derived(lambda v: tuple("gated_deltanet" if t == "linear_attention" else "attention"
                                                  for t in v["layer_kinds_written"]),
                                  "Gated DeltaNet where layer_types says linear_attention, attention elsewhere")),
    "linear_key_heads": Field(("linear_num_key_heads",), 8, doc="Gated DeltaNet key heads"),
    "linear_value_heads": Field(("linear_num_value_heads",), 16, doc="Gated DeltaNet value heads"),
    "num_experts": Field(("num_experts",), 128, minimum=0, doc=MOE["num_experts"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 4, doc=MOE["experts_per_token"].doc),
    "shared_expert_gate": fixed(False),
}



# --- OLMo Hybrid -------------------------------------------------------------------------------------

def _olmo_hybrid_types(v) -> tuple[str, ...]:
    written = v["olmo_hybrid_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    n = v["num_layers"]
    types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(n)]
    if n and "full_attention" not in types:
        types[-1] = "full_attention"
    return tuple(types)


def _olmo_hybrid_check(spec) -> list[Problem]:
    """OlmoHybridConfig refuses layer types it does not know or of another length than num_hidden_layers
    (validate_layer_type), and layers with no linear_attention layer or no other (validate_architecture)."""
    if "olmo_hybrid_layer_types" in spec.origins:
        problems = _written_layer_types(spec, "olmo_hybrid_layer_types", "OlmoHybridConfig")
        if problems:
            return problems
    types = spec.values.get("layer_kinds_written")
    if not isinstance(types, tuple):
        return []
    where = "olmo_hybrid_layer_types" if "olmo_hybrid_layer_types" in spec.origins else "num_layers"
    if "linear_attention" not in types:
        return _problem(spec, where, "OlmoHybridConfig expects at least one linear_attention layer "
                                     f"(the layers: {', '.join(types) or 'none'})")
    if all(t == "linear_attention" for t in types):
        return _problem(spec, where, "OlmoHybridConfig expects at least one attention layer")
    return []


def _olmo_hybrid_rotary(v) -> bool:
    # OlmoHybridModel builds its rotary embedding only where rope_parameters holds a rope_theta that is not null.
    _key, rope = written_rope(v)
    return not (isinstance(rope, dict) and "rope_theta" in rope and rope["rope_theta"] is None)


OLMO_HYBRID = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    "rotary_embedding": fixed(Derived(_olmo_hybrid_rotary, "a rope_theta in rope_parameters that is not null")),
    # OlmoHybridAttention: getattr(config, "head_dim", hidden_size // num_attention_heads) (the class declares none)
    "head_dim": HEAD_DIM_NULL_KEPT,
    "num_kv_heads": Field(("num_key_value_heads",), KV_HEADS, "int?", null="default", doc=BASE["num_kv_heads"].doc),
    # q and k norms over all heads
    "qk_norm": fixed("full"),
    "olmo_hybrid_layer_types": Field(("layer_types",), None, "strs",
                                     doc="each layer's kind: linear_attention (Gated DeltaNet) or full_attention"),
    "layer_kinds_written": fixed(Derived(_olmo_hybrid_types, "layer_types, else attention every fourth layer (and the "
                                                             "last, where none would be)")),
    "layer_mixers": fixed(Derived(lambda v: tuple("gated_deltanet" if t == "linear_attention" else "attention"
                                                  for t in v["layer_kinds_written"]),
                                  "Gated DeltaNet where layer_types says linear_attention, attention elsewhere")),
    "layer_ffns": fixed(Derived(lambda v: ("mlp",) * len(v["layer_kinds_written"]), "a gated MLP in every layer")),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "layer_norms_by_mixer": fixed((("attention", ("post_attention_layernorm", "post_feedforward_layernorm")),)),
    "final_norm_name": fixed("norm"),
    "ffn_module": fixed("mlp"),
    # Gated DeltaNet, its projections apart (null: as absent, which the class fills)
    "deltanet_projections": fixed("separate"),
    "linear_key_heads": Field(("linear_num_key_heads",), Derived(lambda v: v["num_heads"], "num_attention_heads"),
                              "int?", null="default", doc="Gated DeltaNet key heads"),
    "linear_value_heads": Field(("linear_num_value_heads",), Derived(lambda v: v["num_heads"], "num_attention_heads"),
                                "int?", null="default", doc="Gated DeltaNet value heads"),
    "linear_key_head_dim": Field(("linear_key_head_dim",),
                                 Derived(lambda v: int(0.75 * v["hidden_size"] / v["linear_key_heads"]),
                                         "int(0.75 × hidden_size / linear_num_key_heads)"),
                                 "int?", null="default", doc="width of each Gated DeltaNet key head"),
    "linear_value_head_dim": Field(("linear_value_head_dim",),
                                   Derived(lambda v: 2 * v["linear_key_head_dim"], "2 × linear_key_head_dim"),
                                   "int?", null="default", doc="width of each Gated DeltaNet value head"),
    "ssm_conv_kernel": Field(("linear_conv_kernel_dim",), 4, doc="width of the Gated DeltaNet's causal convolution"),
    "state_conv_channels": QWEN3_NEXT["state_conv_channels"],
    "state_recurrent": QWEN3_NEXT["state_recurrent"],
}


# --- MiniMax (MiniMax-Text-01) -------------------------------------------------------------------------

# MiniMaxConfig: each layer lightning attention (linear attention) where layer_types says linear_attention (legacy
# "mamba" remapped), else attention (MiniMaxAttention: any other type the class accepts); layer_types defaults to
# full attention at even layers, lightning at odd ones. Every layer a Mixtral-style mixture of experts (a router
# of one weight, experts intermediate_size wide; no shared expert). The residual alpha/beta factors are plain
# floats, the lightning layers' decay factors buffers: no parameters. Its cache (MiniMaxCache) holds the attention
# layers' keys and values (every token: it is a DynamicCache made with no config, sliding_window or not) and each
# lightning layer's key-value state, num_attention_heads × head_dim × head_dim, in the model's dtype.
def _minimax_types(v) -> tuple[str, ...]:
    written = v["minimax_layer_types"]
    if written is not None:
        return tuple(_LEGACY_LAYER_TYPES.get(t, t) for t in written)
    return tuple("full_attention" if (i + 1) % 2 else "linear_attention" for i in range(v["num_layers"]))


# RoPE types whose parameters transformers computes from getattr(config, "head_dim", hidden_size / heads), which is
# None where MiniMaxConfig keeps its default head_dim (the others: `or hidden_size / heads`).
_ROPE_TYPES_READING_HEAD_DIM = ("dynamic", "yarn", "longrope")


def _minimax_check(spec) -> list[Problem]:
    """MiniMaxConfig refuses layer types transformers does not know, or of another length than num_hidden_layers
    (validate_layer_type); with no head_dim (its default None), the rotary embedding of a dynamic, YaRN or longrope
    type cannot be built (None × partial_rotary_factor)."""
    v = spec.values
    if v.get("rope_head_dim") is None:
        key, rope = written_rope(v)
        rope_type = rope.get("rope_type", rope.get("type")) if isinstance(rope, dict) else None
        if rope_type in _ROPE_TYPES_READING_HEAD_DIM:
            return [Problem("error", "LC103", f'{key}: rope_type "{rope_type}" reads head_dim, which MiniMaxConfig '
                                              "keeps null where the file gives none: transformers cannot build the "
                                              "rotary embedding (give head_dim)", spec.key_span("rope_parameters")
                            or spec.key_span("rope_scaling") or spec.span)]
    if "minimax_layer_types" not in spec.origins or v.get("minimax_layer_types") is None:
        return []
    return _written_layer_types(spec, "minimax_layer_types", "MiniMaxConfig")


MINIMAX = {
    **WRITTEN_HEAD_DIM, **FLOOR_HEADS,
    "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
    # (MiniMaxAttention and the lightning attention: getattr(config, "head_dim", None) or hidden_size / heads)
    "head_dim": Field(("head_dim",), HEAD_DIM, doc=BASE["head_dim"].doc),
    **{b: fixed(False) for b in ("q_bias", "k_bias", "v_bias", "o_bias")},
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "final_norm_name": fixed("norm"),
    "ffn_module": fixed("mlp"),
    "minimax_layer_types": Field(("layer_types",), None, "strs",
                                 doc="each layer's kind: linear_attention (lightning attention) or full_attention"),
    "layer_kinds_written": fixed(Derived(_minimax_types, "layer_types, else full attention at even layers and "
                                                         "lightning attention at odd ones")),
    "layer_mixers": fixed(Derived(lambda v: tuple("lightning" if t == "linear_attention" else "attention"
                                                  for t in v["layer_kinds_written"]),
                                  "lightning attention where layer_types says linear_attention, attention elsewhere")),
    "layer_ffns": fixed(Derived(lambda v: ("moe",) * len(v["layer_kinds_written"]), "experts in every layer")),
    # (a negative block_size fails building the lightning layers' decay buffers)
    "block_size": Field(("block_size",), 256, minimum=0,
                        doc="the lightning attention's block length (its decay buffers; no parameters)"),
    **MOE,
    # attribute_map: num_experts is num_local_experts. (0 experts build: a router and experts of no parameters.)
    "num_experts": Field(("num_local_experts", "num_experts"), 8, minimum=0, doc=MOE["num_experts"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 2, doc=MOE["experts_per_token"].doc),
    "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
    # the cache of a lightning layer: no convolution; its key-value state, head_dim × head_dim per head, in the
    # model's dtype
    "state_conv_channels": fixed(0),
    "state_conv_kernel": fixed(0),
    "state_recurrent": fixed(Derived(lambda v: v["num_heads"] * v["head_dim"] ** 2,
                                     "num_attention_heads × head_dim²")),
    "state_in_model_dtype": fixed(True),
}


FAMILIES: tuple[Family, ...] = (
    # Jamba (AI21): one attention layer in attn_layer_period (at attn_layer_offset), Mamba mixers (with RMS
    # norms over dt, B and C) elsewhere; every expert_layer_period-th layer a mixture of experts (a router of one
    # weight and experts as wide as intermediate_size), a gated MLP elsewhere. No positions (no RoPE).
    hybrid("jamba", "JambaForCausalLM", d(pad_token_id=0), FLOOR_HEADS,
           d(vocab_size=65536, intermediate_size=14336, max_positions=262144), JAMBA,
           checks=(_jamba_offsets, _jamba_nulls), rope=False, float_keys=("num_local_experts",)),
    # Bamba (IBM): Mamba-2 mixers, attention at attn_layer_indices, a gated MLP in every layer.
    hybrid("bamba", "BambaForCausalLM", d(pad_token_id=0),
           d(vocab_size=128000, intermediate_size=14336, max_positions=262144), BAMBA,
           {"q_bias": Field(("attention_bias",), False, "bool"), "k_bias": Field(("attention_bias",), False, "bool"),
            "v_bias": Field(("attention_bias",), False, "bool"), "o_bias": Field(("attention_bias",), False, "bool"),
            "mlp_bias": Field(("mlp_bias",), False, "bool", doc=BASE["mlp_bias"].doc)},
           # (BambaConfig's mamba switches are bool | None: a null kept, which the model reads as false)
           nulls(num_kv_heads=KV_HEADS, ssm_bias="false", ssm_conv_bias="false"),
           heads={"BambaForCausalLM": "causal_lm", "BambaModel": "base"},
           checks=(_mamba2_widths("BambaConfig"),)),
    # Granite 4.0 hybrid (GraniteMoeHybrid): Mamba-2 or attention per layer_types, a shared MLP in every
    # layer and, with num_local_experts > 0, experts beside it.
    hybrid("granitemoehybrid", "GraniteMoeHybridForCausalLM",
           d(vocab_size=32000, intermediate_size=11008, max_positions=2048), GRANITE_HYBRID,
           {"q_bias": Field(("attention_bias",), False, "bool"), "k_bias": Field(("attention_bias",), False, "bool"),
            "v_bias": Field(("attention_bias",), False, "bool"), "o_bias": Field(("attention_bias",), False, "bool")},
           nulls(num_kv_heads="default", ssm_bias="false", ssm_conv_bias="false", experts_per_token="none"),
           heads={"GraniteMoeHybridForCausalLM": "causal_lm", "GraniteMoeHybridModel": "base"},
           checks=(_mamba2_widths("GraniteMoeHybridConfig"), _granite_layer_check)),
    # Nemotron-H (NVIDIA): blocks of one kind each, Mamba-2, attention (no RoPE), a squared-ReLU MLP or
    # experts (DeepSeek-V3's sigmoid router, experts with no gate, optionally in a latent width, a shared MLP).
    Family("nemotron_h", "hybrid", "NemotronHForCausalLM",
           # (its embeddings take no padding index)
           {k: f for k, f in merge_fields(HYBRID_BASE, d(vocab_size=131072, max_positions=4096), NEMOTRON_H).items()
            if k != "pad_token_id"},
           {"NemotronHForCausalLM": "causal_lm", "NemotronHModel": "base"},
           notes=("Nemotron-H checkpoints may hold num_nextn_predict_layers multi-token-prediction layers (mtp.*) "
                  "that transformers does not build; they are not counted",),
           checks=(_nemotron_h_layer_check, _nemotron_h_nulls, _nemotron_h_mamba),
           fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    # Falcon-H1 (TII): every layer attention and a Mamba-2 mixer side by side, then a gated MLP.
    hybrid("falcon_h1", "FalconH1ForCausalLM", d(pad_token_id=0),
           d(vocab_size=128000, intermediate_size=14336, max_positions=8192), FALCON_H1,
           nulls(num_kv_heads=KV_HEADS, ssm_bias="false", ssm_out_bias="false", ssm_conv_bias="false",
                 ssm_gated_norm="false"),
           heads={"FalconH1ForCausalLM": "causal_lm", "FalconH1Model": "base"},
           checks=(_falcon_h1_widths,)),
    # Qwen3-Next: Gated DeltaNet layers and gated attention layers (q/k norms per head, a quarter of each head
    # rotated), Qwen's mixture of experts with a gated shared expert.
    hybrid("qwen3_next", "Qwen3NextForCausalLM",
           d(vocab_size=151936, hidden_size=2048, intermediate_size=5632, num_layers=48, num_heads=16,
             max_positions=32768),
           QWEN3_NEXT, rotary_share(0.25, "default"),
           heads={"Qwen3NextForCausalLM": "causal_lm", "Qwen3NextModel": "base",
                  "Qwen3NextForSequenceClassification": "sequence_classification"},
           # (a key the class does not declare, read in arithmetic: a whole-number float works as the int)
           checks=(_qwen3_next_layer_check("Qwen3NextConfig"),), float_keys=("full_attention_interval",)),
    # Qwen3.5 (text model of Qwen3.5's dense checkpoints): Qwen3-Next's Gated DeltaNet (its projections split) and
    # gated attention layers, a gated MLP in every layer.
    hybrid("qwen3_5_text", "Qwen3_5ForCausalLM",
           d(vocab_size=248320, hidden_size=4096, intermediate_size=12288, num_layers=32, num_heads=16,
             max_positions=32768),
           QWEN3_5, rotary_share(0.25, "default"),
           heads={"Qwen3_5ForCausalLM": "causal_lm", "Qwen3_5TextModel": "base",
                  "Qwen3_5TextForSequenceClassification": "sequence_classification"},
           checks=(_qwen3_next_layer_check("Qwen3_5TextConfig"),), float_keys=("full_attention_interval",)),
    # Qwen3.5-MoE (text): the same mixers, experts with a gated shared expert in every layer.
    hybrid("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM",
           d(vocab_size=248320, hidden_size=2048, num_layers=40, num_heads=16, max_positions=32768),
           QWEN3_5_MOE, rotary_share(0.25, "default"),
           heads={"Qwen3_5MoeForCausalLM": "causal_lm", "Qwen3_5MoeTextModel": "base"},
           checks=(_qwen3_next_layer_check("Qwen3_5MoeTextConfig"),), float_keys=("full_attention_interval",)),
    # Kimi Linear (Moonshot AI): Kimi Delta Attention layers and multi-head latent attention layers (no positions),
    # DeepSeek-V3's experts with shared experts (dense MLPs in the first layers).
    hybrid("kimi_linear", "KimiLinearForCausalLM",
           d(pad_token_id=163839, vocab_size=163840, hidden_size=2304, intermediate_size=9216, num_layers=27,
             num_heads=32),
           FLOOR_HEADS, KIMI_LINEAR, heads={"KimiLinearForCausalLM": "causal_lm", "KimiLinearModel": "base"},
           checks=(_kimi_check,), rope=False,
           float_keys=("num_experts", "num_experts_per_token", "num_shared_experts", "model_max_length",
                       "first_k_dense_replace"),
           fp32_modules_strict=("e_score_correction_bias", "gate.weight", "dt_bias")),
    # Bailing hybrid (inclusionAI's Ling 3): Kimi Linear's layers with a gated latent attention (RoPE) and full-rank
    # delta-attention gates.
    hybrid("bailing_hybrid", "BailingHybridForCausalLM",
           d(pad_token_id=156892, vocab_size=157184, hidden_size=2560, num_layers=42, num_heads=32,
             num_experts=512, moe_intermediate_size=768, max_positions=262144),
           FLOOR_HEADS, BAILING_HYBRID, heads={"BailingHybridForCausalLM": "causal_lm", "BailingHybridModel": "base"},
           checks=(_bailing_check,), rope=False,
           notes=("Ling checkpoints hold num_mtp_layers multi-token-prediction layers that transformers does not build; "
                  "they are not counted",),
           float_keys=("num_experts", "num_experts_per_token", "num_shared_experts", "model_max_length"),
           fp32_modules_strict=("e_score_correction_bias", "gate.weight", "conv1d", "dt_bias", "A_log")),
    # OLMo Hybrid (Ai2): Gated DeltaNet layers (projections apart) and attention layers (q/k norms over all heads,
    # norms after the attention and the MLP), a gated MLP in every layer.
    hybrid("olmo_hybrid", "OlmoHybridForCausalLM", d(pad_token_id=100277),
           d(vocab_size=100352, hidden_size=3840, intermediate_size=11008, num_layers=32, num_heads=30,
             max_positions=65536),
           OLMO_HYBRID, heads={"OlmoHybridForCausalLM": "causal_lm", "OlmoHybridModel": "base"},
           checks=(_olmo_hybrid_check,)),
    # LFM2 (Liquid AI): gated short-convolution layers and attention layers (q/k norms per head), a SwiGLU MLP.
    hybrid("lfm2", "Lfm2ForCausalLM", d(pad_token_id=0),
           d(vocab_size=65536, hidden_size=2560, num_layers=32, num_heads=32, max_positions=128000), LFM2,
           heads={"Lfm2ForCausalLM": "causal_lm", "Lfm2Model": "base"}, checks=(_lfm2_layer_check,)),
    # LFM2-MoE (Liquid AI): LFM2's short-convolution and attention layers, dense MLPs in the first layers, experts after.
    hybrid("lfm2_moe", "Lfm2MoeForCausalLM", d(pad_token_id=0),
           d(vocab_size=65536, hidden_size=2048, num_layers=32, num_heads=32, max_positions=128000), LFM2_MOE,
           heads={"Lfm2MoeForCausalLM": "causal_lm", "Lfm2MoeModel": "base"}, checks=(_lfm2_moe_layer_check,)),
    # LFM3 (Liquid AI): LFM2's short convolutions, gated attention on full- and sliding-window layers, sandwich norms.
    hybrid("lfm3", "Lfm3ForCausalLM", d(pad_token_id=124893),
           d(vocab_size=128000, hidden_size=2048, intermediate_size=7680, num_layers=24, num_heads=16,
             max_positions=128000), LFM3,
           heads={"Lfm3ForCausalLM": "causal_lm", "Lfm3Model": "base"}, checks=(_lfm3_layer_check, _lfm3_rope)),
    # Lara Mini (translated): Gated DeltaNet layers and full or sliding-window attention layers, experts and an
    # ungated shared expert in every layer.
    hybrid("lara_mini", "LaraMiniForCausalLM",
           d(vocab_size=151936, hidden_size=1024, num_layers=34, num_heads=16, max_positions=131072,
             tie_embeddings=True),
           LARA_MINI, heads={"LaraMiniForCausalLM": "causal_lm", "LaraMiniModel": "base"}, checks=(_lara_mini_check,)),
    # MiniMax (MiniMax-Text-01): lightning attention layers and attention layers, experts in every layer.
    hybrid("minimax", "MiniMaxForCausalLM",
           d(vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_layers=32, num_heads=32,
             max_positions=131072),
           MINIMAX, nulls(head_dim="default"), checks=(_minimax_check,)),
    # Falcon-Mamba: Mamba's layout and SSM state; its mixer's RMS norms over dt, B and C have no weights. The
    # mixer is expand × hidden_size wide unless the file writes intermediate_size.
    Family("falcon_mamba", "mamba", "FalconMambaForCausalLM", {
        "vocab_size": Field(("vocab_size",), 50280, doc=BASE["vocab_size"].doc),
        "hidden_size": Field(("hidden_size",), 768, doc=BASE["hidden_size"].doc),
        "num_layers": Field(("num_hidden_layers",), 32, doc="Mamba blocks"),
        "state_size": Field(("state_size",), 16, doc="SSM state size per channel"),
        "expand": Field(("expand",), 2, doc="the mixer's width: expand × hidden_size"),
        # (an intermediate_size the file gives is set after __post_init__ derives it, and wins)
        "intermediate_size": Field(("intermediate_size",), Derived(lambda v: v["expand"] * v["hidden_size"],
                                                                   "expand × hidden_size"), doc="the mixer's width"),
        "conv_kernel": Field(("conv_kernel",), 4),
        "time_step_rank": Field(("time_step_rank",), Derived(_ceil16, "ceil(hidden_size / 16)"), "int|auto"),
        "use_bias": Field(("use_bias",), False, "bool", doc="biases on in_proj and out_proj"),
        "use_conv_bias": Field(("use_conv_bias",), True, "bool"),
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc=BASE["tie_embeddings"].doc),
        "max_positions": fixed(None),
    }, {"FalconMambaForCausalLM": "causal_lm", "FalconMambaModel": "base"}),
)
