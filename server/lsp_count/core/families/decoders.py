"""Decoder-only families: fields, aliases, class defaults and switches.

Defaults are the transformers config classes' (v5) for keys a config.json may
omit. Switches with no keys are fixed properties of the family's modelling code.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Callable

from lsp_count.core.families.common import (LABEL_FIELDS, ROPE_TYPE_KEYS, ROPE_TYPE_REQUIRED, TEXT_ROPE_TYPES,
                                            check_pad_token, pad_token, rope_entry_problem, unbuilt_rotary,
                                            written_rope)
from lsp_count.core.source import Problem
from lsp_count.core.spec import MAX_DIMENSION, Derived, Family, Field

FIXED = ()  # a switch the family's code fixes; no config key changes it


def fixed(value: object, kind: str = "any") -> Field:
    return Field(FIXED, value, kind)


def _heads(v):
    return v["num_heads"]


def _head_dim(v):
    return v["hidden_size"] // v["num_heads"]


HEAD_DIM = Derived(_head_dim, "hidden_size / num_attention_heads")
KV_HEADS = Derived(_heads, "num_attention_heads")

def causal_heads(architecture: str) -> dict[str, str]:
    """Head variants by class name: the family's LM class, the bare model, the classifier."""
    lm_suffix = "LMHeadModel" if architecture.endswith("LMHeadModel") else "ForCausalLM"
    prefix = architecture[: -len(lm_suffix)]
    return {architecture: "causal_lm", prefix + "Model": "base",
            prefix + "ForSequenceClassification": "sequence_classification"}

# The llama-shaped base every decoder family starts from. Where a config class fixes a default
# (Qwen2's num_key_value_heads is 32 whatever the head count), the family row says so with d().
BASE: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 32000, doc="tokens in the vocabulary: rows of the embedding (and of the output head unless tied)"),
    # (the embedding's padding_idx, where the family has one: decoder(pads=False) drops it)
    "pad_token_id": pad_token(None),
    "hidden_size": Field(("hidden_size",), 4096, doc="width of the residual stream"),
    "num_layers": Field(("num_hidden_layers",), 32, doc="decoder layers"),
    "num_heads": Field(("num_attention_heads",), 32, doc="query heads per attention layer"),
    "num_kv_heads": Field(("num_key_value_heads",), KV_HEADS, doc="key/value heads (grouped-query attention when fewer than query heads)"),
    "head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
    "intermediate_size": Field(("intermediate_size",), 11008, doc="width of the MLP's hidden layer"),
    "tie_embeddings": Field(("tie_word_embeddings",), False, "bool", doc="output head shares the embedding matrix"),
    "q_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
    "k_bias": Field(("attention_bias",), False, "bool"),
    "v_bias": Field(("attention_bias",), False, "bool"),
    "o_bias": Field(("attention_bias",), False, "bool"),
    "mlp_gated": fixed(True),
    "mlp_bias": Field(("mlp_bias",), False, "bool", doc="biases on the MLP projections"),
    "norm": fixed("rms"),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "qk_norm": fixed("none"),
    "final_norm": fixed(True),
    "position_rows": fixed(0),
    "embed_norm": fixed(False),
    "head_bias": fixed(False),
    "attn_names": fixed(("q_proj", "k_proj", "v_proj", "o_proj")),
    "mlp_names": fixed(("gate_proj", "up_proj", "down_proj")),
    "num_experts": fixed(0),
    # LlamaConfig and a few others refuse hidden_size % num_attention_heads != 0 even with head_dim set.
    "heads_divide_hidden": fixed(False),
    "max_positions": Field(("max_position_embeddings",), 2048, doc="longest sequence the position encoding supports"),
    "sliding_window": Field(("sliding_window",), None, "int?", doc="tokens a sliding-window attention layer sees"),
    "layer_types": Field(("layer_types",), None, "strs"),
    **LABEL_FIELDS,
}

# What transformers 5's RoPE check (RotaryEmbeddingConfigMixin.validate_rope, run as a config is made) reads:
# it refuses a head width over 4 that is odd and fully rotated (hf_config._rotary_width_problems says so).
ROPE: dict[str, Field] = {
    # The width the config class holds as head_dim (None: it holds none, and the check is skipped).
    # LlamaConfig's is head_dim, or hidden_size / num_attention_heads; WRITTEN_HEAD_DIM for the others.
    "rope_head_dim": fixed(Derived(lambda v: v["head_dim"], "head_dim")),
    # Rotates int(head width × factor) of each head; the factor in rope_parameters wins. (A null is none.)
    "partial_rotary_factor": Field(("partial_rotary_factor",), 1.0, "float", null="default",
                                   doc="share of each head's width the rotary positions turn (no parameters)"),
    # The legacy rope_scaling, when a non-empty mapping, replaces rope_parameters.
    "rope_parameters": Field(("rope_parameters",), None, "any",
                             doc="rotary position settings (rope_theta, partial_rotary_factor, ...; no parameters)"),
    "rope_scaling": Field(("rope_scaling",), None, "any",
                          doc="rotary position settings under their old name (replaces rope_parameters when given)"),
    # The RoPE types the family's classes take, each with the keys it needs (hf_config._rope_type_problems).
    "rope_types": fixed(TEXT_ROPE_TYPES),
}
# Phi3Config takes the default and longrope types only ("`rope_parameters`'s type field must be one of
# ['longrope']"), and reads the old checkpoints' "su" and "yarn" as longrope; PhimoeConfig wants short_mscale and
# long_mscale beside any type but the default.
PHI3_ROPE_TYPES = {"default": (), **dict.fromkeys(("longrope", "su", "yarn"), ROPE_TYPE_KEYS["longrope"])}
PHIMOE_ROPE_TYPES = {t: keys + (("short_mscale", "long_mscale") if t != "default" else ())
                     for t, keys in TEXT_ROPE_TYPES.items()}
# Config classes that declare no head_dim keep one the file gives (an unknown key, set as it is), as do
# those whose head_dim defaults to None (Mixtral, Ministral, HunYuan): their RoPE check reads only that.
# (Kept as written, a whole-number float too: "head_dim" is a float_key where nothing else reads it.)
WRITTEN_HEAD_DIM = {"rope_head_dim": Field(("head_dim",), None, "int?",
                                           doc="width of each attention head, as the config class keeps it")}


def rope_by_layer_type(scaled: tuple[str, ...], layer_types: Derived) -> dict[str, Field]:
    """Fields of a config class (Gemma 3, OLMo 3, ModernBERT) that holds rope_parameters per layer type: an
    entry for full and one for sliding attention (its defaults where not given; a top-level
    partial_rotary_factor is not read), each checked where ``layer_types`` has that type. ``scaled``: the
    entries a legacy rope_scaling updates."""
    return {"partial_rotary_factor": fixed(None), "rope_scaling_layer_types": fixed(scaled),
            "rope_layer_types": fixed(layer_types)}


# A share the config class sets itself when the file gives none (GLM, Phi: 0.5; StableLM: 0.25). A null
# then stays None: no factor, which the check and GLM's rotary embedding read as 1.0, or ("reject") one the
# model cannot be built with (Phi's, Nemotron's and StableLM's attention read the key; Phi-3's RoPE check
# multiplies by it).
def rotary_share(default: float, null: str | Derived = Derived(lambda v: 1.0, "1.0, the whole head"),
                 ) -> dict[str, Field]:
    return {"partial_rotary_factor": replace(ROPE["partial_rotary_factor"], default=default, null=null)}


# Families whose experts are intermediate_size wide and whose config has no moe_intermediate_size
# (Mixtral, OLMoE, GPT-OSS): a moe_intermediate_size key there is not theirs.
EXPERT_WIDTH_IS_MLP = fixed(Derived(lambda v: v["intermediate_size"], "intermediate_size"))

MOE: dict[str, Field] = {
    "num_experts": Field(("num_local_experts", "num_experts", "n_routed_experts"), 8, doc="routed experts per MoE layer"),
    "experts_per_token": Field(("num_experts_per_tok",), 2, doc="experts each token is routed to (top-k)"),
    "moe_intermediate_size": Field(("moe_intermediate_size",), Derived(lambda v: v["intermediate_size"], "intermediate_size"), doc="width of each expert's MLP"),
    "moe_layers": fixed("all"),
    "router_bias": fixed(False),
    "shared_intermediate_size": fixed(0),
    "shared_expert_gate": fixed(False),
    # How the model is built with 0 experts, which the config classes take: "moe" (the MoE layers keep their blocks,
    # with no experts and a router of no outputs: Mixtral, DeepSeek), "dense" (the layers take the dense MLP: Qwen's
    # `num_experts > 0` test), "refused" (the config class refuses it: JetMoE). The registry lets 0 through for the
    # first two (registry._takes_no_experts).
    "without_experts": fixed("moe"),
}


# EXAONE 4's and EXAONE-MoE's layer types where the file gives none: sliding but every sliding_window_pattern-th
# layer. The pattern is any JSON (EXAONE 4.0's own configs write "LLLG"), read only where layer_types is absent
# (_pattern_layer_types).
SLIDING_BUT_EVERY_PATTERN_TH: dict[str, Field] = {
    "sliding_window_pattern": Field(("sliding_window_pattern",), 4, "any",
                                    doc="every how many layers one attends to the whole context"),
    "layer_types": Field(("layer_types",), Derived(
        lambda v: tuple("sliding_attention" if (i + 1) % _positive(v["sliding_window_pattern"]) != 0
                        else "full_attention" for i in range(v["num_layers"])),
        "sliding but every sliding_window_pattern-th layer"), "strs"),
}


def shared_experts_width(count: str) -> Field:
    """The always-on shared experts' width: ``count`` (the field of how many there are) experts side by side."""
    return fixed(Derived(lambda v: v["moe_intermediate_size"] * v[count], f"moe_intermediate_size × {count}"))


def mlp_layer_types(default: Callable[[dict], tuple[str, ...]], text: str) -> Field:
    """Each layer's MLP, "dense" or "sparse" (a mixture of experts), under the key mlp_layer_types; where the file
    gives none (or null), ``default`` derives it as the config class does (``text`` says how)."""
    return Field(("mlp_layer_types",), Derived(default, text), "strs", null="default",
                 doc='"dense" or "sparse" (a mixture of experts) for each layer')


def indexer_schedule(default: Callable[[dict], tuple[str, ...]], text: str) -> dict[str, Field]:
    """A sparse-attention indexer's schedule: indexer_types, each layer "full" (it runs its own indexer) or "shared"
    (it reuses the previous layer's top-k), derived by ``default`` where the file gives none (``text`` says how),
    and the layers that hold an indexer, which the layout reads."""
    return {"indexer_types": Field(("indexer_types",), Derived(default, text), "strs", null="default",
                                   doc='"full" (the layer runs its own indexer) or "shared" (it reuses the previous '
                                       "layer's top-k) for each layer"),
            "indexer_layers": fixed(Derived(lambda v: tuple(t != "shared" for t in v["indexer_types"]),
                                            'the layers whose indexer_types entry is not "shared"'))}


def dense_then_sparse(v) -> tuple[str, ...]:
    """One dense layer (where there is one), then experts in every other (HY-V3's and HY-V4's default)."""
    return ("dense",) * min(1, v["num_layers"]) + ("sparse",) * max(v["num_layers"] - 1, 0)


# Each layer's MLP from mlp_layer_types, whose default is first_k_dense_replace dense layers, then experts
# (DeepSeek-V3.2's, EXAONE-MoE's and Cohere2-MoE's configs derive it so).
MLP_LAYER_TYPES_AFTER_DENSE: dict[str, Field] = {
    "moe_layers": fixed("mlp_layer_types"),
    "mlp_layer_types": mlp_layer_types(
        lambda v: ("dense",) * min(v["first_k_dense_replace"], v["num_layers"])
        + ("sparse",) * max(0, v["num_layers"] - v["first_k_dense_replace"]),
        "dense for the first first_k_dense_replace layers, then sparse"),
}


def decoder(model_type: str, architecture: str, *overrides: dict[str, Field], notes: tuple[str, ...] = (),
            heads: dict[str, str] | None = None, checks: tuple[Callable[..., list[Problem]], ...] = (),
            float_keys: tuple[str, ...] = (), fp32_modules: tuple[str, ...] = (),
            fp32_modules_strict: tuple[str, ...] = (), rope: bool = True, pads: bool = True,
            unreplaced_linears: tuple[str, ...] = (), router_holds_linear: bool = False) -> Family:
    """A decoder row. ``rope``: whether its config class has rotary positions (ROPE's fields); ``pads``: whether
    its token embedding takes pad_token_id as its padding index (which must then lie in the vocabulary)."""
    fields = merge_fields({**BASE, **ROPE} if rope else BASE, *overrides)
    if not pads:
        fields.pop("pad_token_id")
    return Family(model_type, "decoder", architecture, fields, heads or causal_heads(architecture), notes=notes,
                  checks=(*checks, check_pad_token) if pads else checks, float_keys=float_keys, fp32_modules=fp32_modules,
                  fp32_modules_strict=fp32_modules_strict, unreplaced_linears=unreplaced_linears,
                  router_holds_linear=router_holds_linear)


def aliases(**keys: tuple[str, ...]) -> dict[str, Field]:
    """Accept other spellings of base fields (only those the family's config class reads)."""
    out = {}
    for name, names in keys.items():
        f = BASE[name]
        out[name] = Field(names, f.default, f.kind, f.minimum, f.doc)
    return out


# GPT-2 and GPT-J name their sizes n_embd / n_layer / n_head / n_positions (attribute_map).
GPT_NAMES = aliases(hidden_size=("n_embd", "hidden_size"), num_layers=("n_layer", "num_hidden_layers"),
                    num_heads=("n_head", "num_attention_heads"), max_positions=("n_positions", "max_position_embeddings"))


class Defaults(dict):
    """Class defaults that differ from the base; applied after every other override."""


def d(**defaults: object) -> Defaults:
    return Defaults(defaults)


class Nulls(dict):
    """What a null means in fields where the config class does not reject it (Field.null);
    applied after every other override."""


def nulls(**meanings: str | tuple[str, ...] | Derived) -> Nulls:
    return Nulls(meanings)


def merge_fields(base: dict[str, Field], *overrides: dict[str, Field]) -> dict[str, Field]:
    """A family's fields: the base, then each override; ``Defaults`` change only defaults, and
    ``Nulls`` only what a null means, last."""
    fields = dict(base)
    defaults: dict[str, object] = {}
    meanings: dict[str, object] = {}
    for o in overrides:
        (defaults if isinstance(o, Defaults) else meanings if isinstance(o, Nulls) else fields).update(o)
    for name, value in defaults.items():
        fields[name] = replace(fields[name], default=value)
    for name, meaning in meanings.items():
        fields[name] = replace(fields[name], null=meaning)
    return fields


QK_HEAD = {"qk_norm": fixed("head")}
SANDWICH = {"layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"))}
QKV_BIAS_ONLY = {"q_bias": fixed(True), "k_bias": fixed(True), "v_bias": fixed(True), "o_bias": fixed(False)}
GPT_STYLE = {"norm": fixed("layer"), "mlp_gated": fixed(False)}
STRICT_HEADS = {"heads_divide_hidden": fixed(True)}
# GPT-2's block (GPT-2, GPT-BigCode): an MLP n_inner wide (null: 4 × n_embd), biases on every projection,
# learned positions (n_positions rows), ln_1 / ln_2, a fused c_attn.
GPT2_BLOCK = {
    "head_dim": fixed(HEAD_DIM),
    "intermediate_size": Field(("n_inner",), Derived(lambda v: 4 * v["hidden_size"], "4 × n_embd"), null="default",
                               doc="width of the MLP (n_inner; null means 4 × n_embd)"),
    "q_bias": fixed(True), "k_bias": fixed(True), "v_bias": fixed(True), "o_bias": fixed(True), "mlp_bias": fixed(True),
    "position_rows": fixed(Derived(lambda v: v["max_positions"], "n_positions")),
    "layer_norms": fixed(("ln_1", "ln_2")),
    "attn_names": fixed(("c_attn", "c_proj")), "mlp_names": fixed(("c_fc", "c_proj")),
}
# A head width whose config class has no default (None, which the model cannot be built with): _head_dim_required.
REQUIRED_HEAD_DIM = Field(("head_dim",), None, "int?", doc="width of each attention head (required: no default)")
# HunYuan (dense and MoE): q/k RMS norms per head named query_layernorm / key_layernorm, no MLP biases, and
# no sliding window (their config classes have no sliding_window, and their attention reads no layer_types).
HUNYUAN = {"head_dim": REQUIRED_HEAD_DIM, "mlp_bias": fixed(False),
           "qk_norm_names": fixed(("query_layernorm", "key_layernorm")),
           "sliding_window": fixed(None), "layer_types": fixed(None)}
# Config classes with no check that the heads divide the width: the model floors hidden_size /
# num_attention_heads and runs (Mistral: 6 heads of a 49 width are 8 wide, o_proj 48 → 49).
FLOOR_HEADS = {"floor_head_dim": fixed(True)}


# Qwen's config classes keep ``sliding_window`` but null it unless ``use_sliding_window`` is true (false by
# default), and derive ``layer_types`` when the file gives none (transformers 5, configuration_qwen*.py
# ``__post_init__``). The memory model ignores the window when use_sliding_window is false.
def qwen_sliding(layer_slides, rule: str, max_window_layers: bool = True) -> dict[str, Field]:
    """Fields for a Qwen family whose layer ``i`` slides when ``layer_slides(values, i)``."""
    def layer_types(v):
        return tuple("sliding_attention" if layer_slides(v, i) else "full_attention" for i in range(v["num_layers"]))

    fields = {
        "use_sliding_window": Field(("use_sliding_window",), False, "bool",
                                    doc="whether sliding_window applies at all (false: every layer sees the whole context)"),
        # (0 too: transformers 5's Qwen2MoeConfig writes 0 for a window switched off)
        "sliding_window": Field(("sliding_window",), 4096, "int?", minimum=0,
                                doc="tokens a sliding-window attention layer sees (only with use_sliding_window)"),
        "layer_types": Field(("layer_types",), Derived(layer_types, rule), "strs"),
    }
    if max_window_layers:
        fields["max_window_layers"] = Field(("max_window_layers",), 28, minimum=0,
                                            doc="where sliding layers start or stop (with use_sliding_window)")
    return fields


def _window_on(v) -> bool:
    return bool(v["use_sliding_window"]) and v["sliding_window"] is not None


# Qwen2 / Qwen3: layer i slides when the window is on and i >= max_window_layers.
QWEN_SLIDING = qwen_sliding(lambda v, i: _window_on(v) and i >= v["max_window_layers"],
                            "sliding from layer max_window_layers on, when use_sliding_window")
# Qwen2-MoE: layers with (i + 1) % 2 (even i) below max_window_layers slide; its config does not check the window.
QWEN2_MOE_SLIDING = qwen_sliding(lambda v, i: bool(v["use_sliding_window"]) and i % 2 == 0 and i < v["max_window_layers"],
                                 "even layers below max_window_layers slide, when use_sliding_window")
# Qwen3-MoE: no max_window_layers; the cache infers every layer sliding from a set window, as attention does.
QWEN3_MOE_SLIDING = qwen_sliding(lambda v, i: _window_on(v), "every layer slides, when use_sliding_window",
                                 max_window_layers=False)

def _rope_layers_short(spec) -> list[Problem]:
    """SmolLM3Config reads no_rope_layers[i] for every layer: a shorter list fails."""
    written, layers = spec.values.get("no_rope_layers"), spec.values.get("num_layers")
    if "no_rope_layers" in spec.origins and isinstance(written, tuple) and isinstance(layers, int) and len(written) < layers:
        return [Problem("error", "LC102", f'"no_rope_layers": {len(written)} entries for {layers} layers '
                                          f"(SmolLM3Config reads one per layer)", spec.key_span("no_rope_layers") or spec.span)]
    return []


# The RoPE types whose frequencies transformers computes from config.head_dim wherever the config has that attribute
# (modeling_rope_utils' dynamic, YaRN and LongRoPE functions; the others fall back to hidden_size / heads).
ROPE_TYPES_READING_HEAD_DIM = ("dynamic", "yarn", "longrope")


def _scaled_rope_needs_head_dim(spec) -> list[Problem]:
    """MixtralConfig keeps head_dim None where it is not written (or null): under a RoPE type that reads it, int(None
    × factor) fails as transformers builds the model (TypeError)."""
    v = spec.values
    key, entry = written_rope(v)
    rope_type = entry.get("rope_type", entry.get("type")) if isinstance(entry, dict) else None
    if v.get("rope_head_dim") is not None or rope_type not in ROPE_TYPES_READING_HEAD_DIM:
        return []
    hidden, heads = v.get("hidden_size"), v.get("num_heads")
    width = f": hidden_size / num_attention_heads is {hidden // heads}" if type(hidden) is int and type(heads) is int \
        and heads > 0 else ""
    said = '"head_dim": null' if "rope_head_dim" in spec.origins else "head_dim is not written"
    return [Problem("error", "LC102", f'{said}, and MixtralConfig keeps it None: the "{rope_type}" RoPE of {key} computes '
                                      f"its width from head_dim, so transformers fails to build the model (TypeError); "
                                      f"write head_dim{width}", spec.key_span(key) or spec.span)]


def attention_must_be_hidden_wide(needs: str) -> Callable[..., list[Problem]]:
    """A check for a family whose model builds attention of any width (heads × head_dim) but whose
    forward pass needs it hidden_size wide (``needs``: what takes hidden_size values): a warning,
    the count being what transformers builds."""
    def check(spec) -> list[Problem]:
        v = spec.values
        hidden, heads, width = v.get("hidden_size"), v.get("num_heads"), v.get("head_dim")
        if not all(type(n) is int for n in (hidden, heads, width)) or heads * width == hidden:
            return []
        return [Problem("warning", "LC103",
                        f"num_attention_heads ({heads}) × head width ({width}) is {heads * width:,}, not hidden_size "
                        f"({hidden:,}): transformers builds the model, but its forward pass fails ({needs}); "
                        f"counted as built", spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span)]
    return check


def required(name: str, key: str, why: str = "its config class has no default") -> Callable[..., list[Problem]]:
    """A check for a field whose config class keeps None unless given, a None its model cannot be built with."""
    def check(spec) -> list[Problem]:
        if spec.values.get(name) is not None:
            return []
        what = f'"{key}": null is not a whole number' if name in spec.origins else f"{key} is not set"
        return [Problem("error", "LC102", f"{what}: {spec.architecture} cannot be built without it ({why})",
                        spec.key_span(name) or spec.span)]
    return check


# NemotronConfig keeps num_key_value_heads None unless given, and its attention divides by it.
_kv_heads_required = required("num_kv_heads", "num_key_value_heads")
# MinistralConfig and the HunYuan configs keep head_dim None unless given; their attention reads that None
# (getattr finds the attribute) where Mistral's would fall back to hidden_size / num_attention_heads.
_head_dim_required = required("head_dim", "head_dim", "its config class has no default, and its attention "
                                                      "reads the None rather than divide hidden_size by "
                                                      "num_attention_heads")


def _mamba2_heads(spec) -> list[Problem]:
    """Mamba2Config (validate_architecture) refuses num_heads × head_dim other than expand × hidden_size;
    the mixer's forward pass shares each of the n_groups B and C projections among num_heads / n_groups
    heads, and fails where n_groups does not divide num_heads (the model builds: a warning)."""
    v = spec.values
    hidden, expand, heads, width = (v.get(k) for k in ("hidden_size", "expand", "num_heads", "head_dim"))
    if all(type(n) is int for n in (hidden, expand, heads, width)) and heads * width != hidden * expand:
        where = next((spec.key_span(name) for name in ("num_heads", "head_dim", "hidden_size", "expand")
                      if spec.key_span(name)), None) or spec.span
        return [Problem("error", "LC103",
                        f"num_heads ({heads}) × head_dim ({width}) is {heads * width:,}, not expand ({expand}) × "
                        f"hidden_size ({hidden:,}) = {hidden * expand:,}: the heads must divide the mixer's width "
                        f"exactly, and Mamba2Config refuses the config", where)]
    groups = v.get("n_groups")
    if type(heads) is int and type(groups) is int and groups > 0 and heads % groups:
        return [Problem("warning", "LC103",
                        f"n_groups ({groups}) does not divide num_heads ({heads}): transformers builds the model "
                        "(counted), but its forward pass fails (each group's B and C serve num_heads / n_groups "
                        "heads)", spec.key_span("n_groups") or spec.key_span("num_heads") or spec.span)]
    return []


def _top_k_by_layer(v) -> object:
    """HunYuan-MoE's moe_topk: one k for every layer, or a list read one per layer (HunYuanMoEV1Gate); the
    count's single top-k where the layers agree, None where they differ (no active part). A value
    _hunyuan_top_k refuses gives the default, 1, so that no "not set" warning contradicts the refusal."""
    k = v["moe_topk"]
    if isinstance(k, list) and all(type(n) is int for n in k) and len(k) >= v["num_layers"]:
        ks = set(k[: v["num_layers"]])
        return ks.pop() if len(ks) == 1 else None
    return k if type(k) is int else 1


def _hunyuan_top_k(spec) -> list[Problem]:
    """moe_topk as HunYuanMoEV1Config takes it (an int or a list of ints, no bool, no null) and its gate reads it:
    a list needs an entry per layer."""
    key = spec.key_name("moe_topk")
    if key is None:
        return []
    k, span = spec.values.get("moe_topk"), spec.key_span("moe_topk") or spec.span
    layers, experts = spec.values.get("num_layers"), spec.values.get("num_experts")
    entries = k if isinstance(k, list) else [k]
    if k is None:
        return [Problem("error", "LC102", f'"{key}": null is not a whole number or a list of them: HunYuanMoEV1Config '
                                          "rejects it (leaving the key out takes the default, 1)", span)]
    if not all(type(n) is int for n in entries) or not entries:
        return [Problem("error", "LC102", f'"{key}": expected a whole number or a list of them (one per layer)', span)]
    if min(entries) < 1:
        return [Problem("error", "LC102", f'"{key}": must be at least 1, got {min(entries)}', span)]
    if isinstance(k, list) and type(layers) is int and len(k) < layers:
        return [Problem("error", "LC102", f'"{key}": {len(k)} entries for {layers} layers (HunYuanMoEV1Gate reads '
                                          "one per layer)", span)]
    if spec.values.get("experts_per_token") is not None or type(layers) is not int:
        return []  # one k for every layer: the generic checks judge it
    out = [Problem("warning", "LC103", f'"{key}": the layers route different numbers of experts per token: the '
                                       "count has no active part, and the memory estimate leaves out the routed "
                                       "experts' activations", span)]
    over = [n for n in entries[:layers] if type(experts) is int and n > experts]
    if over:
        # (as the generic check says of one top-k: transformers builds the model, its router's torch.topk fails)
        out.append(Problem("warning", "LC103", f'"{key}": {max(over)} experts per token is more than the {experts} '
                                               f"experts: transformers builds the model (counted), but its forward "
                                               f"pass fails (its router cannot choose {max(over)} of {experts})", span))
    return out


def _positive(n: object) -> int:
    if type(n) is not int or n < 1:
        raise ValueError(n)
    return n


def _exaone4_layer_types(spec) -> list[Problem]:
    """With no layer_types, Exaone4Config derives them modulo sliding_window_pattern, which fails for
    a null window (it sets the pattern to 0) and for a pattern that is not a positive whole number
    (its Hub configs' "LLLG" is read only beside their layer_types)."""
    if "layer_types" in spec.origins:
        return []
    if spec.values.get("sliding_window") is None:
        return [Problem("error", "LC102", '"sliding_window": null with no "layer_types": Exaone4Config then derives '
                                          "the layer types modulo a pattern of 0, which fails (give a window, or "
                                          "layer_types)", spec.key_span("sliding_window") or spec.span)]
    return _pattern_layer_types(spec, "Exaone4Config")


def _pattern_layer_types(spec, config_class: str) -> list[Problem]:
    """With no layer_types the class derives them modulo sliding_window_pattern: a pattern that is not
    a positive whole number fails there."""
    pattern = spec.values.get("sliding_window_pattern")
    if "layer_types" in spec.origins or (type(pattern) is int and pattern >= 1):
        return []
    return [Problem("error", "LC102", f'"sliding_window_pattern": {json.dumps(pattern)} with no "layer_types": '
                                      f"{config_class} derives the layer types only from a positive whole number "
                                      f"(give layer_types)", spec.key_span("sliding_window_pattern") or spec.span)]


# DeepSeek V2/V3: multi-head latent attention, shared experts, the first k layers dense.
DEEPSEEK: dict[str, Field] = {
    "head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False),
    "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False),
    "n_shared_experts": Field(("n_shared_experts",), 1, "int?", minimum=0),
    "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"] * (v["n_shared_experts"] or 0),
                                              "moe_intermediate_size × n_shared_experts")),
    "moe_layers": fixed("first_k_dense"),
    "first_k_dense_replace": Field(("first_k_dense_replace",), 0, minimum=0),
    "q_lora_rank": Field(("q_lora_rank",), 1536, "int?", doc="rank of the low-rank query projection (null: a full q_proj)"),
    "kv_lora_rank": Field(("kv_lora_rank",), 512, doc="width of the compressed key/value latent (what the KV cache holds)"),
    "qk_nope_head_dim": Field(("qk_nope_head_dim",), 128),
    "qk_rope_head_dim": Field(("qk_rope_head_dim",), 64),
    "v_head_dim": Field(("v_head_dim",), 128),
}
# DeepseekV2Config / V3Config hold qk_rope_head_dim as head_dim, which their RoPE check reads (V3 keeps a
# head_dim the file gives instead).
ROTATED_HEAD_DIM = "width of the rotated part of each query and key head"
# Their config classes fill a null num_key_value_heads with the head count, keep a null num_experts_per_tok (V2's default:
# which experts run is then not known, and the count has no active part) and reject a null n_shared_experts.
DEEPSEEK_NULLS = nulls(num_kv_heads=KV_HEADS, experts_per_token="none", n_shared_experts="reject")

def _ernie4_5_dense(model_type: str, architecture: str, heads: dict[str, str], **more_nulls: str) -> Family:
    """ERNIE 4.5's dense decoder (Ernie4_5Config's defaults; PaddleOCR-VL's text model is the same): one use_bias for
    every projection, a head width of 128; the config class fills a null head count and head width, and the model
    reads a null use_bias as false."""
    return decoder(model_type, architecture, d(pad_token_id=0),
                   d(vocab_size=103424, hidden_size=1024, intermediate_size=3072, num_layers=18, num_heads=16,
                     num_kv_heads=2, tie_embeddings=True, max_positions=131072),
                   {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
                    **{bias: Field(("use_bias",), False, "bool", doc="biases on every attention and MLP projection")
                       for bias in ("q_bias", "k_bias", "v_bias", "o_bias", "mlp_bias")}},
                   nulls(num_kv_heads=KV_HEADS, head_dim=HEAD_DIM, q_bias="false", k_bias="false", v_bias="false",
                         o_bias="false", mlp_bias="false", **more_nulls),
                   heads=heads)


FAMILIES: tuple[Family, ...] = (
    decoder("llama", "LlamaForCausalLM", d(max_positions=2048), STRICT_HEADS,
            nulls(num_kv_heads="default", head_dim="default")),
    decoder("mistral", "MistralForCausalLM", FLOOR_HEADS, d(intermediate_size=14336, num_kv_heads=8, max_positions=131072, sliding_window=4096),
            {"q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False), "mlp_bias": fixed(False)},
            nulls(head_dim="default")),
    decoder("mixtral", "MixtralForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(intermediate_size=14336, num_kv_heads=8, max_positions=131072), MOE,
            {"moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
             # (num_experts is MixtralConfig's attribute_map alias; an n_routed_experts it keeps and nothing reads)
             "num_experts": Field(("num_local_experts", "num_experts"), 8, doc=MOE["num_experts"].doc)},
            {"q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False), "mlp_bias": fixed(False)},
            nulls(head_dim="default"), checks=(_scaled_rope_needs_head_dim,)),
    decoder("qwen2", "Qwen2ForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(vocab_size=151936, intermediate_size=22016, max_positions=32768, num_kv_heads=32), QKV_BIAS_ONLY,
            {"mlp_bias": fixed(False)}, QWEN_SLIDING, nulls(num_kv_heads=KV_HEADS),
            notes=("Qwen2 has q/k/v biases; its config has no key for them",)),
    decoder("qwen2_moe", "Qwen2MoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=151936, hidden_size=2048, intermediate_size=5632, num_layers=24, num_heads=16, max_positions=32768,
              num_kv_heads=16),
            MOE, QKV_BIAS_ONLY,
            {"mlp_bias": fixed(False),
             "num_experts": Field(("num_experts",), 60, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 4, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 1408, doc=MOE["moe_intermediate_size"].doc),
             "shared_intermediate_size": Field(("shared_expert_intermediate_size",), 5632, minimum=0,
                                               doc="width of the always-on shared expert"),
             "shared_expert_gate": fixed(True), "shared_expert_always": fixed(True),
             "moe_layers": fixed("sparse_step"), "without_experts": fixed("dense"),
             "decoder_sparse_step": Field(("decoder_sparse_step",), 1),
             "mlp_only_layers": Field(("mlp_only_layers",), (), "ints")},
            QWEN2_MOE_SLIDING),
    decoder("qwen3", "Qwen3ForCausalLM", d(vocab_size=151936, intermediate_size=22016, max_positions=32768, num_kv_heads=32),
            QK_HEAD, {"head_dim": Field(("head_dim",), 128), "mlp_bias": fixed(False)}, QWEN_SLIDING, nulls(num_kv_heads=KV_HEADS)),
    decoder("qwen3_moe", "Qwen3MoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=151936, hidden_size=2048, intermediate_size=6144, num_layers=24, num_kv_heads=4, max_positions=32768),
            MOE, QK_HEAD,
            {"head_dim": Field(("head_dim",), HEAD_DIM), "mlp_bias": fixed(False),
             "num_experts": Field(("num_experts", "num_local_experts"), 128, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 768, doc=MOE["moe_intermediate_size"].doc),
             "moe_layers": fixed("sparse_step"), "without_experts": fixed("dense"),
             "decoder_sparse_step": Field(("decoder_sparse_step",), 1),
             "mlp_only_layers": Field(("mlp_only_layers",), (), "ints")},
            QWEN3_MOE_SLIDING),
    decoder("gemma", "GemmaForCausalLM", d(pad_token_id=0),
            d(vocab_size=256000, hidden_size=3072, intermediate_size=24576, num_layers=28, num_heads=16, num_kv_heads=16,
              tie_embeddings=True, max_positions=8192),
            {"head_dim": Field(("head_dim",), 256), "mlp_bias": fixed(False)},
            notes=("Gemma ties its output head to the embeddings by default",)),
    decoder("gemma2", "Gemma2ForCausalLM", d(pad_token_id=0),
            d(vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_layers=26, num_heads=8, num_kv_heads=4,
              tie_embeddings=True, max_positions=8192, sliding_window=4096),
            SANDWICH, STRICT_HEADS, {"head_dim": Field(("head_dim",), 256), "mlp_bias": fixed(False), "sliding_pattern": fixed(2)}),
    decoder("gemma3_text", "Gemma3ForCausalLM", d(pad_token_id=0),
            d(vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_layers=26, num_heads=8, num_kv_heads=4,
              tie_embeddings=True, max_positions=131072, sliding_window=4096),
            SANDWICH, QK_HEAD, STRICT_HEADS,
            {"head_dim": Field(("head_dim",), 256), "mlp_bias": fixed(False), "sliding_pattern": fixed(6)},
            rope_by_layer_type(("full_attention",), Derived(
                lambda v: v["layer_types"] if v["layer_types"] is not None else tuple(
                    "sliding_attention" if (i + 1) % v["sliding_pattern"] else "full_attention"
                    for i in range(v["num_layers"])), "layer_types, else all but every sliding_pattern-th sliding")),
            heads={"Gemma3ForCausalLM": "causal_lm", "Gemma3TextModel": "base"}),
    # Phi: a written head_dim is its heads' width (its q/k LayerNorms stay hidden_size / heads wide), as with
    # Phi-3, StarCoder2, OLMo 2 and Cohere 1 and 2, whose classes declare no head_dim but whose attention reads one.
    decoder("phi", "PhiForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=51200, hidden_size=2048, intermediate_size=8192, num_layers=24, max_positions=2048), GPT_STYLE,
            {"q_bias": fixed(True), "k_bias": fixed(True), "v_bias": fixed(True), "o_bias": fixed(True),
             "mlp_bias": fixed(True), "head_bias": fixed(True),
             "layer_norms": fixed(("input_layernorm",)),
             "qk_layernorm": Field(("qk_layernorm",), False, "bool"),
             "qk_norm": fixed(Derived(lambda v: "head_layernorm" if v["qk_layernorm"] else "none", "qk_layernorm")),
             "attn_names": fixed(("q_proj", "k_proj", "v_proj", "dense")), "mlp_names": fixed(("fc1", "fc2"))},
            rotary_share(0.5, "reject"), nulls(num_kv_heads="default")),
    decoder("phi3", "Phi3ForCausalLM", d(pad_token_id=32000), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=32064, hidden_size=3072, intermediate_size=8192, max_positions=4096),
            {"q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False),
             "o_bias": fixed(False), "mlp_bias": fixed(False),
             "attn_names": fixed(("qkv_proj", "o_proj")), "mlp_names": fixed(("gate_up_proj", "down_proj")),
             "rope_types": fixed(PHI3_ROPE_TYPES), "longrope_lengths": fixed("exact")},
            rotary_share(1.0, "reject"), nulls(num_kv_heads="default")),
    decoder("gpt2", "GPT2LMHeadModel", GPT_NAMES,
            d(vocab_size=50257, hidden_size=768, num_layers=12, num_heads=12, tie_embeddings=True, max_positions=1024),
            GPT_STYLE,
            GPT2_BLOCK, {"num_kv_heads": fixed(KV_HEADS)}, float_keys=("num_attention_heads",), rope=False, pads=False),
    decoder("gpt_neox", "GPTNeoXForCausalLM", WRITTEN_HEAD_DIM,
            d(vocab_size=50432, hidden_size=6144, intermediate_size=24576, num_layers=44, num_heads=64), GPT_STYLE, STRICT_HEADS,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "q_bias": Field(("attention_bias",), True, "bool"), "k_bias": Field(("attention_bias",), True, "bool"),
             "v_bias": Field(("attention_bias",), True, "bool"), "o_bias": Field(("attention_bias",), True, "bool"),
             "mlp_bias": fixed(True),
             "attn_names": fixed(("query_key_value", "dense")), "mlp_names": fixed(("dense_h_to_4h", "dense_4h_to_h")),
             # GPTNeoXConfig rotates rotary_pct of each head (its own key; partial_rotary_factor is not read).
             "partial_rotary_factor": Field(("rotary_pct",), 0.25, "float", null="reject",
                                            doc="share of each head's width the rotary positions turn (no parameters)")},
            float_keys=("head_dim",), pads=False),
    decoder("gptj", "GPTJForCausalLM", GPT_NAMES,
            d(vocab_size=50400, hidden_size=4096, num_layers=28, num_heads=16), GPT_STYLE,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "intermediate_size": Field(("n_inner",), Derived(lambda v: 4 * v["hidden_size"], "4 × n_embd"), null="default"),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(True), "head_bias": fixed(True), "layer_norms": fixed(("ln_1",)),
             "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")), "mlp_names": fixed(("fc_in", "fc_out"))},
            float_keys=("num_attention_heads", "max_position_embeddings"), rope=False, pads=False),
    decoder("falcon", "FalconForCausalLM", aliases(hidden_size=("n_embed", "hidden_size")),
            d(vocab_size=65024, hidden_size=4544, num_heads=71, tie_embeddings=True), GPT_STYLE,
            {"new_decoder_architecture": Field(("new_decoder_architecture",), False, "bool"),
             "multi_query": Field(("multi_query",), True, "bool"),
             "parallel_attn": Field(("parallel_attn",), True, "bool"),
             "num_ln_in_parallel_attn": Field(("num_ln_in_parallel_attn",), None, "int?"),
             "falcon_kv_heads": Field(("num_kv_heads", "n_head_kv"), None, "int?"),
             "num_kv_heads": fixed(Derived(
                 lambda v: (v["falcon_kv_heads"] or v["num_heads"]) if v["new_decoder_architecture"]
                 else 1 if v["multi_query"] else v["num_heads"], "num_kv_heads / multi_query")),
             "head_dim": fixed(HEAD_DIM),
             "intermediate_size": Field(("ffn_hidden_size",), Derived(lambda v: 4 * v["hidden_size"], "4 × hidden_size")),
             "q_bias": Field(("bias",), False, "bool"), "o_bias": Field(("bias",), False, "bool"),
             "mlp_bias": Field(("bias",), False, "bool"),
             "layer_norms": fixed(Derived(
                 lambda v: ("input_layernorm", "post_attention_layernorm") if not v["parallel_attn"]
                 else ("ln_attn", "ln_mlp") if (v["num_ln_in_parallel_attn"] or (2 if v["new_decoder_architecture"] else 1)) == 2
                 else ("input_layernorm",), "parallel_attn / num_ln_in_parallel_attn")),
             "attn_names": fixed(("query_key_value", "dense")), "mlp_names": fixed(("dense_h_to_4h", "dense_4h_to_h"))},
            # FalconConfig pops n_embed (null: hidden_size) and keeps a null switch, which the model reads as false;
            # attention_bias is not its key.
            nulls(hidden_size=("n_embed",), intermediate_size="default", q_bias="false", o_bias="false", mlp_bias="false",
                  k_bias="default", v_bias="default", multi_query="false", parallel_attn="false",
                  new_decoder_architecture="false"), pads=False,
            # FalconLinear, an nn.Linear subclass, holds every projection: bitsandbytes quantizes none of them.
            unreplaced_linears=("query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h")),
    decoder("opt", "OPTForCausalLM", d(pad_token_id=1),
            d(vocab_size=50272, hidden_size=768, num_layers=12, num_heads=12, tie_embeddings=True, max_positions=2048),
            GPT_STYLE,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "intermediate_size": Field(("ffn_dim",), 3072),
             "q_bias": Field(("enable_bias",), True, "bool"), "k_bias": Field(("enable_bias",), True, "bool"),
             "v_bias": Field(("enable_bias",), True, "bool"), "o_bias": Field(("enable_bias",), True, "bool"),
             "mlp_bias": Field(("enable_bias",), True, "bool"),
             "embed_dim": Field(("word_embed_proj_dim",), Derived(lambda v: v["hidden_size"], "hidden_size")),
             "position_rows": fixed(Derived(lambda v: v["max_positions"] + 2, "max_position_embeddings + 2 (OPT's offset)")),
             "elementwise_affine": Field(("layer_norm_elementwise_affine",), True, "bool"),
             "norm": fixed(Derived(lambda v: "layer" if v["elementwise_affine"] else "none", "layer_norm_elementwise_affine")),
             "do_layer_norm_before": Field(("do_layer_norm_before",), True, "bool"),
             "remove_final_layer_norm": Field(("_remove_final_layer_norm",), False, "bool"),
             "final_norm": fixed(Derived(lambda v: v["do_layer_norm_before"] and not v["remove_final_layer_norm"], "do_layer_norm_before")),
             "layer_norms": fixed(("self_attn_layer_norm", "final_layer_norm")),
             "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")), "mlp_names": fixed(("fc1", "fc2"))},
            nulls(embed_dim="default"), rope=False),
    decoder("bloom", "BloomForCausalLM",
            aliases(hidden_size=("n_embed", "hidden_size"), num_layers=("n_layer", "num_hidden_layers"),
                    num_heads=("n_head", "num_attention_heads")),
            d(vocab_size=250880, hidden_size=64, num_layers=2, num_heads=8, tie_embeddings=True), GPT_STYLE,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "intermediate_size": fixed(Derived(lambda v: 4 * v["hidden_size"], "4 × hidden_size")),
             "q_bias": fixed(True), "o_bias": fixed(True), "mlp_bias": fixed(True), "embed_norm": fixed(True),
             "attn_names": fixed(("query_key_value", "dense")), "mlp_names": fixed(("dense_h_to_4h", "dense_4h_to_h"))},
            # BloomConfig pops n_embed (null: hidden_size); attention_bias is not its key; its positions are ALiBi.
            nulls(hidden_size=("n_embed",), k_bias="default", v_bias="default", max_positions="none"),
            float_keys=("num_attention_heads", "max_position_embeddings"), rope=False, pads=False),
    decoder("starcoder2", "Starcoder2ForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=49152, hidden_size=3072, intermediate_size=12288, num_layers=30, num_heads=24, num_kv_heads=2,
              tie_embeddings=True, max_positions=4096), GPT_STYLE,
            {"q_bias": Field(("use_bias",), True, "bool"), "k_bias": Field(("use_bias",), True, "bool"),
             "v_bias": Field(("use_bias",), True, "bool"), "o_bias": Field(("use_bias",), True, "bool"),
             "mlp_bias": Field(("use_bias",), True, "bool"),
             "mlp_names": fixed(("c_fc", "c_proj"))},
            nulls(head_dim="default")),  # its attention takes head_dim or hidden_size / num_attention_heads
    decoder("olmo2", "Olmo2ForCausalLM", d(pad_token_id=1), WRITTEN_HEAD_DIM, FLOOR_HEADS, d(vocab_size=50304),
            {"qk_norm": fixed("full"), "mlp_bias": fixed(False),
             "layer_norms": fixed(("post_attention_layernorm", "post_feedforward_layernorm"))},
            nulls(num_kv_heads="default")),
    decoder("granite", "GraniteForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(), nulls(num_kv_heads="default")),
    decoder("cohere", "CohereForCausalLM", d(pad_token_id=0), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_layers=40, num_heads=64,
              tie_embeddings=True, max_positions=8192),
            {"norm": fixed("layer_nobias"), "layer_norms": fixed(("input_layernorm",)),
             "use_qk_norm": Field(("use_qk_norm",), False, "bool"), "mlp_bias": fixed(False),
             "qk_norm": fixed(Derived(lambda v: "full" if v["use_qk_norm"] else "none", "use_qk_norm"))},
            nulls(num_kv_heads="default", use_qk_norm="false")),
    decoder("deepseek_v2", "DeepseekV2ForCausalLM",
            d(vocab_size=102400, max_positions=2048, experts_per_token=None, moe_intermediate_size=1407,
              n_shared_experts=2, first_k_dense_replace=0),
            MOE, DEEPSEEK, STRICT_HEADS, {"num_experts": Field(("n_routed_experts", "num_experts"), 64, doc=MOE["num_experts"].doc),
                                          "rope_head_dim": Field(("qk_rope_head_dim",), 64, doc=ROTATED_HEAD_DIM)},
            DEEPSEEK_NULLS, fp32_modules_strict=("gate.weight",)),
    decoder("deepseek_v3", "DeepseekV3ForCausalLM", FLOOR_HEADS,
            d(vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_layers=61, num_heads=128, num_kv_heads=128, max_positions=4096,
              experts_per_token=8, moe_intermediate_size=2048, n_shared_experts=1, first_k_dense_replace=3),
            MOE, DEEPSEEK, {"num_experts": Field(("n_routed_experts", "num_local_experts"), 256, doc=MOE["num_experts"].doc),
                            "rope_head_dim": Field(("head_dim", "qk_rope_head_dim"), 64, "int?", doc=ROTATED_HEAD_DIM)},
            DEEPSEEK_NULLS, notes=("DeepSeek-V3 checkpoints also hold a multi-token-prediction layer that transformers does not build; "
                   "it is not counted",), fp32_modules_strict=("e_score_correction_bias", "gate.weight"),
            float_keys=("head_dim",)),
    # OLMo (1): LayerNorms with no weight or bias at all.
    decoder("olmo", "OlmoForCausalLM", d(pad_token_id=1), WRITTEN_HEAD_DIM, FLOOR_HEADS, d(vocab_size=50304), {"norm": fixed("none"), "mlp_bias": fixed(False)},
            nulls(num_kv_heads="default")),
    # OLMo 3: OLMo 2 with three sliding-window layers of every four.
    decoder("olmo3", "Olmo3ForCausalLM", d(pad_token_id=1), WRITTEN_HEAD_DIM, FLOOR_HEADS, d(vocab_size=50304, sliding_window=4096),
            {"qk_norm": fixed("full"), "mlp_bias": fixed(False),
             "layer_norms": fixed(("post_attention_layernorm", "post_feedforward_layernorm")),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if (i + 1) % 4 != 0 else "full_attention" for i in range(v["num_layers"])),
                 "three sliding layers of every four"), "strs")},
            rope_by_layer_type(("full_attention",), Derived(lambda v: v["layer_types"], "layer_types")),
            nulls(num_kv_heads="default", sliding_window="none")),
    # SmolLM3: Llama with NoPE layers (no parameters of their own); a sliding window only with
    # use_sliding_window, on the layers that keep rotary positions.
    decoder("smollm3", "SmolLM3ForCausalLM", d(pad_token_id=128004), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=128256, hidden_size=2048, num_heads=16, num_kv_heads=4, num_layers=36, tie_embeddings=True,
              max_positions=32768),
            {"use_sliding_window": Field(("use_sliding_window",), False, "bool"),
             "no_rope_layer_interval": Field(("no_rope_layer_interval",), 4,
                                             doc="every how many layers one has no rotary positions (NoPE)"),
             "no_rope_layers": Field(("no_rope_layers",), Derived(
                 lambda v: tuple(int((i + 1) % v["no_rope_layer_interval"] != 0) for i in range(v["num_layers"])),
                 "a NoPE layer every no_rope_layer_interval layers"), "ints", minimum=0, null="default"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if v["use_sliding_window"] and v["sliding_window"] is not None
                                 and not v["no_rope_layers"][i] else "full_attention" for i in range(v["num_layers"])),
                 "sliding where use_sliding_window and the layer has no rotary positions"), "strs")},
            nulls(num_kv_heads=KV_HEADS), checks=(_rope_layers_short,)),
    # GLM-4: fused gate_up MLP, q/k/v biases (not o_proj's), norms after attention and after the MLP too.
    decoder("glm4", "Glm4ForCausalLM", d(pad_token_id=151329),
            d(vocab_size=151552, intermediate_size=13696, num_layers=40, num_kv_heads=2, max_positions=131072),
            {"head_dim": Field(("head_dim",), 128), "q_bias": Field(("attention_bias",), True, "bool"),
             "k_bias": Field(("attention_bias",), True, "bool"), "v_bias": Field(("attention_bias",), True, "bool"),
             "o_bias": fixed(False), "mlp_bias": fixed(False), "mlp_names": fixed(("gate_up_proj", "down_proj")),
             "layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                                   "post_mlp_layernorm"))},
            rotary_share(0.5)),
    # Arcee (AFM): an MLP of up and down projections, no gate.
    decoder("arcee", "ArceeForCausalLM", d(hidden_size=2560, intermediate_size=18432, max_positions=4096), STRICT_HEADS,
            {"mlp_gated": fixed(False), "mlp_names": fixed(("up_proj", "down_proj"))},
            nulls(num_kv_heads="default", head_dim="default")),
    # Seed-OSS: q/k/v biases (attention_bias) and o_proj's own switch (attention_out_bias).
    decoder("seed_oss", "SeedOssForCausalLM", d(pad_token_id=1),
            d(vocab_size=155136, intermediate_size=27648, num_layers=64, num_heads=80, num_kv_heads=8, max_positions=524288),
            {"head_dim": Field(("head_dim",), 128), "q_bias": Field(("attention_bias",), True, "bool"),
             "k_bias": Field(("attention_bias",), True, "bool"), "v_bias": Field(("attention_bias",), True, "bool"),
             "o_bias": Field(("attention_out_bias",), False, "bool")},
            nulls(num_kv_heads=KV_HEADS, head_dim=HEAD_DIM)),
    # Command R7B / A (Cohere 2): Cohere's parallel block with one bias-free LayerNorm, no q/k norms,
    # head_dim hidden_size / heads where not given, and three sliding-window layers of every four.
    decoder("cohere2", "Cohere2ForCausalLM", d(pad_token_id=0), FLOOR_HEADS,
            d(vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_layers=40, num_heads=64,
              tie_embeddings=True, max_positions=8192, sliding_window=4096),
            {"norm": fixed("layer_nobias"), "layer_norms": fixed(("input_layernorm",)),
             "mlp_bias": fixed(False),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if (i + 1) % _positive(v["sliding_window_pattern"])
                                 else "full_attention" for i in range(v["num_layers"])), "sliding_window_pattern"), "strs"),
             # Any JSON: read only where layer_types is absent (_pattern_layer_types).
             "sliding_window_pattern": Field(("sliding_window_pattern",), 4, "any",
                                             doc="every how many layers one attends to the whole context")},
            nulls(num_kv_heads="default", sliding_window="none"),
            checks=(lambda spec: _pattern_layer_types(spec, "Cohere2Config"),)),
    # EXAONE 4: q/k norms over each head, norms after attention and after the MLP (none before), and
    # sliding layers but every sliding_window_pattern-th (none where sliding_window is null).
    decoder("exaone4", "Exaone4ForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=102400, intermediate_size=16384, sliding_window=4096, num_kv_heads=32),
            QK_HEAD, {"mlp_bias": fixed(False), "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False),
                      "o_bias": fixed(False),
                      "layer_norms": fixed(("post_attention_layernorm", "post_feedforward_layernorm")),
                      **SLIDING_BUT_EVERY_PATTERN_TH},
            nulls(sliding_window="none"), checks=(_exaone4_layer_types,)),
    # OLMoE: q/k norms over all heads (sized from hidden_size), every layer a mixture of experts (no shared expert).
    decoder("olmoe", "OlmoeForCausalLM", d(pad_token_id=1), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=50304, hidden_size=2048, intermediate_size=2048, num_layers=16, num_heads=16, max_positions=4096),
            MOE, {"qk_norm": fixed("full_hidden"), "mlp_bias": fixed(False),
                  "num_experts": Field(("num_experts",), 64, doc=MOE["num_experts"].doc),
                  "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
                  "moe_intermediate_size": EXPERT_WIDTH_IS_MLP},
            nulls(num_kv_heads=KV_HEADS), checks=(attention_must_be_hidden_wide("its q/k norms are hidden_size wide"),)),
    # GPT-OSS: biases on every attention projection and a sink logit per head; a router with a bias and
    # experts with biases; sliding and full layers alternating.
    decoder("gpt_oss", "GptOssForCausalLM",
            d(vocab_size=201088, hidden_size=2880, intermediate_size=2880, num_layers=36, num_heads=64, num_kv_heads=8,
              max_positions=131072, sliding_window=128),
            MOE, {"head_dim": Field(("head_dim",), 64, doc=BASE["head_dim"].doc),
                  # GptOssConfig's rope_parameters, where none (or a null) is given: YaRN's.
                  "rope_parameters": replace(ROPE["rope_parameters"], default={
                      "rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False,
                      "original_max_position_embeddings": 4096}, null="default"),
                  "q_bias": Field(("attention_bias",), True, "bool"), "k_bias": Field(("attention_bias",), True, "bool"),
                  "v_bias": Field(("attention_bias",), True, "bool"), "o_bias": Field(("attention_bias",), True, "bool"),
                  "mlp_bias": fixed(False), "router_bias": fixed(True), "expert_bias": fixed(True),
                  "attention_sinks": fixed(True),
                  "num_experts": Field(("num_local_experts",), 128, doc=MOE["num_experts"].doc),
                  "experts_per_token": Field(("num_experts_per_tok",), 4, doc=MOE["experts_per_token"].doc),
                  "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
                  "layer_types": Field(("layer_types",), Derived(
                      lambda v: tuple("sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(v["num_layers"])),
                      "sliding and full layers alternating"), "strs")},
            fp32_modules=("post_attention_layernorm", "input_layernorm", "norm")),
    # GLM-4.5 / 4.6 (GLM-4-MoE): grouped-query attention (q/k/v biases, optional q/k norms per head), and
    # DeepSeek-V3's mixture of experts: the first k layers dense, shared experts, a router with no bias.
    decoder("glm4_moe", "Glm4MoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=151552, intermediate_size=10944, num_layers=46, num_heads=96, num_kv_heads=8,
              max_positions=131072, experts_per_token=8, moe_intermediate_size=1408),
            MOE, {"num_experts": Field(("n_routed_experts",), 128, doc=MOE["num_experts"].doc),
                  "o_bias": fixed(False), "mlp_bias": fixed(False),
                  "use_qk_norm": Field(("use_qk_norm",), False, "bool", doc="RMS norms over each head's q and k"),
                  "qk_norm": fixed(Derived(lambda v: "head" if v["use_qk_norm"] else "none", "use_qk_norm")),
                  "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0),
                  "shared_intermediate_size": shared_experts_width("n_shared_experts"),
                  "moe_layers": fixed("first_k_dense"),
                  "first_k_dense_replace": Field(("first_k_dense_replace",), 1, minimum=0)},
            rotary_share(0.5),
            notes=("GLM-4.5 checkpoints also hold num_nextn_predict_layers multi-token-prediction layers that "
                   "transformers does not build; they are not counted",),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    # Helium (Kyutai): Llama's layout, q/k/v biases by attention_bias, o_proj hidden_size × hidden_size.
    decoder("helium", "HeliumForCausalLM", d(pad_token_id=3),
            d(vocab_size=48000, hidden_size=2560, intermediate_size=7040, num_layers=24, num_heads=20, num_kv_heads=20,
              max_positions=4096),
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "o_bias": fixed(False),
             "attn_out_from_hidden": fixed(True)},
            checks=(attention_must_be_hidden_wide("its output projection takes hidden_size values"),)),
    # ERNIE 4.5 (dense): Llama's layout, one use_bias switch for every projection, a tied head by default.
    _ernie4_5_dense("ernie4_5", "Ernie4_5ForCausalLM", {"Ernie4_5ForCausalLM": "causal_lm", "Ernie4_5Model": "base"}),
    # PaddleOCR-VL's text model (PaddleOCRTextModel): ERNIE 4.5's layer and defaults; its model reads layer_types by
    # index (a null there fails).
    _ernie4_5_dense("paddleocr_vl_text", "PaddleOCRTextModel", {"PaddleOCRTextModel": "base"}, layer_types="reject"),
    # StableLM (2, Zephyr): LayerNorms with biases, a quarter of each head rotated, q/k/v biases by
    # use_qkv_bias, optional LayerNorms per head over q and k, optional parallel residual (one norm).
    decoder("stablelm", "StableLmForCausalLM", WRITTEN_HEAD_DIM,
            d(vocab_size=50304, hidden_size=2560, intermediate_size=6912, num_layers=32, num_heads=32, num_kv_heads=32,
              max_positions=4096), rotary_share(0.25, "reject"),
            {"norm": fixed("layer"), "head_dim": fixed(HEAD_DIM),
             **{bias: Field(("use_qkv_bias",), False, "bool", doc="biases on the q/k/v projections")
                for bias in ("q_bias", "k_bias", "v_bias")},
             "o_bias": fixed(False), "mlp_bias": fixed(False),
             "qk_layernorm": Field(("qk_layernorm",), False, "bool", doc="a LayerNorm over each head's q and k"),
             "qk_norm": fixed(Derived(lambda v: "per_head_layernorm" if v["qk_layernorm"] else "none", "qk_layernorm")),
             "use_parallel_residual": Field(("use_parallel_residual",), False, "bool",
                                            doc="attention and MLP side by side after one norm"),
             "layer_norms": fixed(Derived(
                 lambda v: ("input_layernorm",) if v["use_parallel_residual"]
                 else ("input_layernorm", "post_attention_layernorm"), "use_parallel_residual"))},
            float_keys=("head_dim",)),
    # GPT-BigCode (StarCoder 1, SantaCoder): GPT-2's layout with multi-query attention, one fused c_attn
    # of the queries and a single key/value head (every head's with multi_query false).
    decoder("gpt_bigcode", "GPTBigCodeForCausalLM", GPT_NAMES,
            d(vocab_size=50257, hidden_size=768, num_layers=12, num_heads=12, tie_embeddings=True, max_positions=1024),
            GPT_STYLE,
            GPT2_BLOCK,
            {"multi_query": Field(("multi_query",), True, "bool", doc="one key/value head shared by every query head"),
             "num_kv_heads": fixed(Derived(lambda v: 1 if v["multi_query"] else v["num_heads"], "multi_query"))}, rope=False, pads=False),
    # Granite 3 MoE: Granite's layout, every layer experts as wide as intermediate_size and a router of
    # one weight (no bias) in block_sparse_moe.
    decoder("granitemoe", "GraniteMoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(), MOE,
            {"moe_intermediate_size": EXPERT_WIDTH_IS_MLP, "mlp_bias": fixed(False), "router_name": fixed("router"),
             "num_experts": Field(("num_local_experts",), 8, doc=MOE["num_experts"].doc)},
            nulls(num_kv_heads="default", experts_per_token="none"),
            heads={"GraniteMoeForCausalLM": "causal_lm", "GraniteMoeModel": "base"}),
    # Phi-3.5-MoE (PhiMoE): LayerNorms with biases, attention biases by attention_bias, experts as wide as
    # intermediate_size behind an nn.Linear router; its sparsemixer routes two experts whatever
    # num_experts_per_tok says (PhimoeTopKRouter never reads its top_k); lm_head's bias by lm_head_bias.
    decoder("phimoe", "PhimoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=32064, hidden_size=4096, intermediate_size=6400, num_layers=32, num_heads=32, num_kv_heads=8,
              max_positions=131072),
            MOE,
            {"norm": fixed("layer"), "moe_intermediate_size": EXPERT_WIDTH_IS_MLP, "mlp_bias": fixed(False),
             "router_name": fixed("router"),
             "num_experts": Field(("num_local_experts",), 16, doc=MOE["num_experts"].doc),
             "experts_per_token": fixed(Derived(lambda v: min(2, v["num_experts"]), "two (PhiMoE's sparsemixer)")),
             "head_bias": Field(("lm_head_bias",), False, "bool", doc="a bias on the output head"),
             "rope_types": fixed(PHIMOE_ROPE_TYPES)}),
    # GLM-4 (glm-4-9b, before GLM-4-0414's Glm4): q/k/v biases (attention_bias, true), a fused gate_up MLP.
    decoder("glm", "GlmForCausalLM", d(pad_token_id=151329),
            d(vocab_size=151552, intermediate_size=13696, num_layers=40, num_kv_heads=2, max_positions=131072),
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             **{bias: Field(("attention_bias",), True, "bool", doc="biases on the q/k/v projections")
                for bias in ("q_bias", "k_bias", "v_bias")},
             "o_bias": fixed(False), "mlp_bias": fixed(False), "mlp_names": fixed(("gate_up_proj", "down_proj"))},
            rotary_share(0.5)),
    # Nemotron (Nemotron-4, Minitron): LayerNorms with biases (LayerNorm1P), a squared-ReLU MLP with no
    # gate, biases by attention_bias and mlp_bias; NemotronConfig has no default key/value head count.
    decoder("nemotron", "NemotronForCausalLM", FLOOR_HEADS,
            d(vocab_size=256000, hidden_size=6144, intermediate_size=24576, num_layers=32, num_heads=48,
              max_positions=4096),
            {"norm": fixed("layer"), "mlp_gated": fixed(False), "mlp_names": fixed(("up_proj", "down_proj")),
             "num_kv_heads": Field(("num_key_value_heads",), None, "int?", doc=BASE["num_kv_heads"].doc)},
            rotary_share(0.5, "reject"), nulls(head_dim=HEAD_DIM), checks=(_kv_heads_required,)),
    # Ministral (8B): Mistral's layout with no biases; head_dim required (_head_dim_required); every layer a
    # sliding-window one while sliding_window is set, unless layer_types says otherwise.
    decoder("ministral", "MinistralForCausalLM", WRITTEN_HEAD_DIM,
            d(intermediate_size=14336, num_kv_heads=8, max_positions=131072, sliding_window=4096),
            {"head_dim": REQUIRED_HEAD_DIM, "mlp_bias": fixed(False),
             **{bias: fixed(False) for bias in ("q_bias", "k_bias", "v_bias", "o_bias")},
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: ("sliding_attention" if v["sliding_window"] is not None else "full_attention",)
                 * v["num_layers"],
                 "every layer sliding while sliding_window is set"), "strs", null="default")},
            checks=(_head_dim_required,)),
    # HunYuan dense: Llama's layout, biases on every attention projection by attention_bias,
    # RMS norms over each head's q and k (after the rotary positions), head_dim required; no sliding window.
    decoder("hunyuan_v1_dense", "HunYuanDenseV1ForCausalLM", d(pad_token_id=0), WRITTEN_HEAD_DIM,
            d(vocab_size=290943, intermediate_size=11008, max_positions=2048), QK_HEAD, HUNYUAN,
            nulls(num_kv_heads="default"), checks=(_head_dim_required,)),
    # HunYuan MoE: HunYuan dense's attention; every layer experts as wide as intermediate_size, a shared MLP as
    # wide, and a gate holding an nn.Linear router (gate.wg, float32). Hub configs' moe_intermediate_size,
    # num_shared_expert and use_mixed_mlp_moe are read by neither HunYuanMoEV1Config nor its model.
    decoder("hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM", d(pad_token_id=0), WRITTEN_HEAD_DIM,
            d(vocab_size=290943, intermediate_size=11008, max_positions=2048), QK_HEAD, HUNYUAN, MOE,
            # attribute_map aliases: num_local_experts / num_experts_per_tok win over num_experts / moe_topk.
            {"num_experts": Field(("num_local_experts", "num_experts"), 1, doc=MOE["num_experts"].doc),
             "moe_topk": Field(("num_experts_per_tok", "moe_topk"), 1, "any",
                               doc="experts each token is routed to (top-k): one number, or one per layer"),
             "experts_per_token": fixed(Derived(_top_k_by_layer, "moe_topk, where every layer routes as many")),
             "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
             "shared_intermediate_size": fixed(Derived(lambda v: v["intermediate_size"], "intermediate_size")),
             "router_name": fixed("wg")},
            nulls(num_kv_heads="default"), checks=(_head_dim_required, _hunyuan_top_k),
            # (no _keep_in_fp32_modules: its router is built in float32 whatever the model's dtype)
            fp32_modules_strict=(r"\bwg\.weight",)),
    Family("mamba", "mamba", "MambaForCausalLM", {
        "vocab_size": Field(("vocab_size",), 50280, doc=BASE["vocab_size"].doc),
        "hidden_size": Field(("hidden_size",), 768, doc=BASE["hidden_size"].doc),
        "num_layers": Field(("num_hidden_layers",), 32, doc="Mamba blocks"),
        "state_size": Field(("state_size",), 16, doc="SSM state size per channel"),
        "expand": Field(("expand",), 2),
        "intermediate_size": Field(("intermediate_size",), Derived(lambda v: v["expand"] * v["hidden_size"], "expand × hidden_size")),
        "conv_kernel": Field(("conv_kernel",), 4),
        "time_step_rank": Field(("time_step_rank",), Derived(lambda v: -(-v["hidden_size"] // 16), "ceil(hidden_size / 16)"), "int|auto"),
        "use_bias": Field(("use_bias",), False, "bool"),
        "use_conv_bias": Field(("use_conv_bias",), True, "bool"),
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc=BASE["tie_embeddings"].doc),
        "max_positions": fixed(None),
    }, {"MambaForCausalLM": "causal_lm", "MambaModel": "base"}),
    # Mamba-2 (Codestral-Mamba): mamba's layout and SSM state with the Mamba-2 mixer (mixer "mamba2"): in_proj
    # to 2·intermediate + 2·n_groups·state_size + num_heads, a depthwise conv over intermediate +
    # 2·n_groups·state_size channels, dt_bias / A_log / D per head, a gated RMSNorm, out_proj. Mamba2Config has
    # no intermediate_size key (the mixer is expand × hidden_size wide), refuses num_heads × head_dim ≠ that
    # width (_mamba2_heads), and unties the head by default. No _keep_in_fp32_modules.
    Family("mamba2", "mamba", "Mamba2ForCausalLM", {
        "vocab_size": Field(("vocab_size",), 32768, doc=BASE["vocab_size"].doc),
        "hidden_size": Field(("hidden_size",), 4096, doc=BASE["hidden_size"].doc),
        "num_layers": Field(("num_hidden_layers",), 64, doc="Mamba-2 blocks"),
        "state_size": Field(("state_size",), 128, doc="SSM state size per head channel"),
        "expand": Field(("expand",), 2, doc="the mixer's width: expand × hidden_size"),
        "intermediate_size": fixed(Derived(lambda v: v["expand"] * v["hidden_size"], "expand × hidden_size")),
        "num_heads": Field(("num_heads",), 128, doc="SSM heads (num_heads × head_dim must be expand × hidden_size)"),
        "head_dim": Field(("head_dim",), 64, doc="width of each SSM head"),
        "n_groups": Field(("n_groups",), 8, doc="groups of the B and C state projections"),
        "conv_kernel": Field(("conv_kernel",), 4),
        # (not a size of the count: Mamba2Config keeps it, and the mixer reads int() of it)
        "time_step_rank": Field(("time_step_rank",), Derived(lambda v: -(-v["hidden_size"] // 16), "ceil(hidden_size / 16)"),
                                "int|auto", minimum=0),
        "use_bias": Field(("use_bias",), False, "bool", doc="biases on in_proj and out_proj"),
        "use_conv_bias": Field(("use_conv_bias",), True, "bool"),
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool", doc=BASE["tie_embeddings"].doc),
        "max_positions": fixed(None),
        "mixer": fixed("mamba2"),
    }, {"Mamba2ForCausalLM": "causal_lm", "Mamba2Model": "base"}, checks=(_mamba2_heads,)),
)


# --- GPT-Neo, CodeGen, MPT, DBRX, ... ----------------------------------------------------------------------------


def _gpt_neo_layers(attention_types: object) -> list:
    """GPTNeoConfig.expand_attention_types_params: each [[types...], n] entry repeats its types n times."""
    layers: list = []
    for item in attention_types:  # type: ignore[union-attr]
        for _ in range(item[1]):
            layers.extend(item[0])
    return layers


def _gpt_neo_attention_types(spec) -> list[Problem]:
    """GPTNeoConfig refuses attention_types that do not expand to one entry per layer (validate_architecture),
    and GPTNeoAttention every type but "global" and "local"."""
    v = spec.values
    types, layers = v.get("attention_types"), v.get("num_layers")
    where = spec.key_span("attention_types") or spec.span
    try:
        if not isinstance(types, (list, tuple)):
            raise TypeError(types)
        expanded = _gpt_neo_layers(types)
    except (TypeError, IndexError, KeyError, ValueError, OverflowError):
        return [Problem("error", "LC102", '"attention_types": expected a list of [[attention types], repeat] entries '
                                          '(e.g. [[["global", "local"], 12]]): GPTNeoConfig cannot expand it', where)]
    if type(layers) is int and len(expanded) != layers:
        return [Problem("error", "LC103", f"attention_types expands to {len(expanded)} layers, not num_layers ({layers}): "
                                          "GPTNeoConfig refuses the config", where)]
    unknown = sorted({str(t) for t in expanded if t not in ("global", "local")})
    if unknown:
        return [Problem("error", "LC103", f'"attention_types": {", ".join(map(json.dumps, unknown))} is not "global" or '
                                          '"local": GPTNeoAttention cannot be built with it', where)]
    return []


def _four_hidden(v) -> int:
    return 4 * v["hidden_size"]


FOUR_HIDDEN = Derived(_four_hidden, "4 × hidden_size")
# Families whose config class has no sliding window and whose cache keeps every token of every layer.
NO_WINDOW = {"sliding_window": fixed(None), "layer_types": fixed(None)}

FAMILIES += (
    # GPT-Neo: GPT-2's block with separate q/k/v projections (no biases) and an out_proj with one, learned
    # positions, and global and local (windowed by a mask: the cache keeps every token) layers by attention_types.
    decoder("gpt_neo", "GPTNeoForCausalLM",
            aliases(num_heads=("num_heads", "num_attention_heads"), num_layers=("num_layers", "num_hidden_layers")),
            d(vocab_size=50257, hidden_size=2048, num_layers=24, num_heads=16, tie_embeddings=True, max_positions=2048),
            GPT_STYLE, STRICT_HEADS, NO_WINDOW,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "intermediate_size": Field(("intermediate_size",), FOUR_HIDDEN, null="default",
                                        doc="width of the MLP (null means 4 × hidden_size)"),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(True),
             "mlp_bias": fixed(True),
             "position_rows": fixed(Derived(lambda v: v["max_positions"], "max_position_embeddings")),
             "layer_norms": fixed(("ln_1", "ln_2")),
             "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")), "mlp_names": fixed(("c_fc", "c_proj")),
             "attention_types": Field(("attention_types",), [[["global", "local"], 12]], "any", null="default",
                                      doc="global and local attention layers, as [[types], repeat] entries")},
            checks=(_gpt_neo_attention_types,), float_keys=("num_attention_heads",), rope=False, pads=False),
    # CodeGen: GPT-J's parallel block (one LayerNorm) with a fused qkv_proj and out_proj (no biases), an MLP
    # with biases, and an output head with a bias; rotary positions over rotary_dim of each head (no parameters).
    decoder("codegen", "CodeGenForCausalLM", GPT_NAMES,
            d(vocab_size=50400, hidden_size=4096, num_layers=28, num_heads=16, max_positions=2048),
            GPT_STYLE, STRICT_HEADS, NO_WINDOW,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "intermediate_size": Field(("n_inner",), FOUR_HIDDEN, null="default",
                                        doc="width of the MLP (n_inner; null means 4 × n_embd)"),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(True), "head_bias": fixed(True), "layer_norms": fixed(("ln_1",)),
             "attn_names": fixed(("qkv_proj", "out_proj")), "mlp_names": fixed(("fc_in", "fc_out")),
             "rotary_dim": Field(("rotary_dim",), 64, minimum=0,
                                 doc="values of each head the rotary positions turn (no parameters)")},
            heads={"CodeGenForCausalLM": "causal_lm", "CodeGenModel": "base"},
            float_keys=("num_attention_heads", "max_position_embeddings"), rope=False, pads=False),
    # MPT: a fused Wqkv and out_proj hidden_size wide whatever the heads floor to, an MLP 4 × d_model wide
    # (expansion_ratio is not read), LayerNorms with no bias, no biases anywhere, ALiBi positions (no parameters).
    decoder("mpt", "MptForCausalLM",
            aliases(hidden_size=("d_model", "hidden_size"), num_layers=("n_layers", "num_hidden_layers"),
                    num_heads=("n_heads", "num_attention_heads")),
            d(vocab_size=50368, hidden_size=2048, num_layers=24, num_heads=16, tie_embeddings=True),
            FLOOR_HEADS, NO_WINDOW,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM), "intermediate_size": fixed(FOUR_HIDDEN),
             "norm": fixed("layer_nobias"), "mlp_gated": fixed(False),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(False), "q_from_hidden": fixed(True), "kv_from_hidden": fixed(True),
             "layer_norms": fixed(("norm_1", "norm_2")),
             "attn_names": fixed(("Wqkv", "out_proj")), "mlp_names": fixed(("up_proj", "down_proj")),
             "max_positions": Field(("max_seq_len",), 2048, doc=BASE["max_positions"].doc)},
            checks=(attention_must_be_hidden_wide("its attention splits the hidden_size-wide Wqkv into the heads"),),
            float_keys=("num_attention_heads",), rope=False, pads=False),
)


def _mlp_layer_types_short(spec) -> list[Problem]:
    """The decoder layer reads mlp_layer_types[i] for every layer: a shorter list fails."""
    types, layers = spec.values.get("mlp_layer_types"), spec.values.get("num_layers")
    if "mlp_layer_types" in spec.origins and isinstance(types, tuple) and type(layers) is int and len(types) < layers:
        return [Problem("error", "LC102", f'"mlp_layer_types": {len(types)} entries for {layers} layers (each decoder '
                                          f"layer reads its own: {spec.architecture} cannot be built)",
                        spec.key_span("mlp_layer_types") or spec.span)]
    return []


def layer_list_length(*names: str, allowed: dict[str, tuple[str, ...]] | None = None) -> Callable[..., list[Problem]]:
    """A check for a config class whose validate_layer_type refuses a written per-layer list (layer_types,
    mlp_layer_types) of another length than num_hidden_layers, or (``allowed``) with entries it does not know."""
    def check(spec) -> list[Problem]:
        layers = spec.values.get("num_layers")
        for name in names:
            written = spec.values.get(name)
            if name not in spec.origins or not isinstance(written, tuple) or type(layers) is not int:
                continue
            key, where = spec.key_name(name), spec.key_span(name) or spec.span
            unknown = [t for t in written if t not in (allowed or {}).get(name, written)]
            if unknown:
                return [Problem("error", "LC103", f'"{key}": {json.dumps(unknown[0])} is not one of '
                                                  f"{', '.join(map(json.dumps, allowed[name]))}: the config class "  # type: ignore[index]
                                                  "refuses it", where)]
            if len(written) != layers:
                return [Problem("error", "LC103", f'"{key}": {len(written)} entries for {layers} layers: the config '
                                                  "class refuses a list of another length", where)]
        return []
    return check


def _experts_required(spec) -> list[Problem]:
    """Dots1Config keeps n_routed_experts and n_shared_experts None unless given: a model with MoE layers (from
    first_k_dense_replace on) cannot be built without them."""
    v = spec.values
    layers, dense = v.get("num_layers"), v.get("first_k_dense_replace")
    if type(layers) is not int or type(dense) is not int or dense >= layers:
        return []
    out = []
    for name, key in (("num_experts", "n_routed_experts"), ("n_shared_experts", "n_shared_experts")):
        if v.get(name) is None:
            what = f'"{spec.key_name(name)}": null is not a whole number' if name in spec.origins else f"{key} is not set"
            out.append(Problem("error", "LC102", f"{what}: {spec.architecture} cannot build its MoE layers (from "
                                                 f"first_k_dense_replace, {dense}, on) without it (its config class "
                                                 "has no default)", spec.key_span(name) or spec.span))
    return out


def _dots1_window_layers(spec) -> list[Problem]:
    """With no layer_types and a sliding window, Dots1Config compares each layer with max_window_layers: a null fails."""
    v = spec.values
    if "layer_types" in spec.origins or v.get("sliding_window") is None or v.get("max_window_layers") is not None:
        return []
    return [Problem("error", "LC102", '"max_window_layers": null is not a whole number: with a sliding_window and no '
                                      "layer_types, Dots1Config derives the layer types from it",
                    spec.key_span("max_window_layers") or spec.span)]


FAMILIES += (
    # dots.llm1 (Dots1): Qwen3's attention (RMS norms over each head's q and k, biases by attention_bias) and
    # DeepSeek-V3's mixture of experts (the first k layers dense, shared experts, an fp32 router with no bias);
    # layers from max_window_layers on slide where sliding_window is set.
    decoder("dots1", "Dots1ForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=152064, hidden_size=4608, intermediate_size=10944, num_layers=62, num_heads=32, num_kv_heads=32,
              max_positions=2048, experts_per_token=None, moe_intermediate_size=1408, sliding_window=4096),
            MOE, QK_HEAD,
            {"mlp_bias": fixed(False),
             "num_experts": Field(("num_local_experts", "n_routed_experts"), None, "int?", doc=MOE["num_experts"].doc),
             "n_shared_experts": Field(("n_shared_experts",), None, "int?", doc="shared experts (always on)"),
             "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"] * (v["n_shared_experts"] or 0),
                                                       "moe_intermediate_size × n_shared_experts")),
             "moe_layers": fixed("first_k_dense"),
             "first_k_dense_replace": Field(("first_k_dense_replace",), 0, minimum=0,
                                            doc="how many layers first keep a dense MLP"),
             "max_window_layers": Field(("max_window_layers",), 62, "int?", minimum=0,
                                        doc="where sliding layers start (with sliding_window)"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if v["sliding_window"] is not None and i >= v["max_window_layers"]
                                 else "full_attention" for i in range(v["num_layers"])),
                 "sliding from layer max_window_layers on, where sliding_window is set"), "strs", null="default")},
            nulls(num_kv_heads=KV_HEADS, experts_per_token="none"),
            heads={"Dots1ForCausalLM": "causal_lm", "Dots1Model": "base"},
            checks=(_experts_required, _dots1_window_layers, layer_list_length("layer_types")),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    # GLM-4.7-Flash (GLM-4-MoE-Lite): DeepSeek-V3's multi-head latent attention and experts, the MoE layers
    # those mlp_layer_types calls "sparse" (all but the first, by default); head_dim is qk_rope_head_dim's alias.
    decoder("glm4_moe_lite", "Glm4MoeLiteForCausalLM", FLOOR_HEADS,
            d(vocab_size=154880, hidden_size=2048, intermediate_size=10240, num_layers=47, num_heads=20, num_kv_heads=20,
              max_positions=202752, experts_per_token=4, moe_intermediate_size=1536, n_shared_experts=1,
              q_lora_rank=768, qk_nope_head_dim=192, v_head_dim=256),
            MOE, DEEPSEEK,
            {"num_experts": Field(("num_local_experts", "n_routed_experts"), 64, doc=MOE["num_experts"].doc),
             "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "qk_rope_head_dim": Field(("head_dim", "qk_rope_head_dim"), 64),
             "rope_head_dim": Field(("head_dim", "qk_rope_head_dim"), 64, doc=ROTATED_HEAD_DIM),
             "first_k_dense_replace": fixed(0),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(lambda v: ("dense",) + ("sparse",) * (v["num_layers"] - 1),
                                                "dense, then sparse")},
            heads={"Glm4MoeLiteForCausalLM": "causal_lm", "Glm4MoeLiteModel": "base"},
            checks=(_mlp_layer_types_short,),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


_ABSENT = "(not given)"  # the default of a field that keeps an attribute_map alias as written
MAX_INDEX = 10**9  # layer indices a config may write below zero (ERNIE 4.5's moe_layer_end_index -1)


def _ernie_moe_flags(v) -> list[bool]:
    """Which layers Ernie4_5_MoeDecoderLayer builds as MoE, as it decides (a None compared raises TypeError)."""
    layers, step, start, end = (v[k] for k in ("num_layers", "moe_layer_interval", "moe_layer_start_index",
                                                "moe_layer_end_index"))
    end = layers - 1 if end == -1 else end
    return [((i + 1) % step == 0) and i >= start and i <= end for i in range(layers)]


def _ernie_moe(spec) -> list[Problem]:
    """What Ernie4_5_MoeConfig and its model refuse: a null layer-range key the layers compare with, more than one
    MTP layer, and MoE layers without a whole number of experts or shared experts (num_experts, its attribute_map
    alias, is set as written after the class's type checks: a null or a float there fails only where a layer is MoE)."""
    v = spec.values
    if type(v.get("num_layers")) is not int:
        return []
    try:
        flags = _ernie_moe_flags(v)
    except (TypeError, ZeroDivisionError):
        key = next((k for k in ("moe_layer_interval", "moe_layer_start_index", "moe_layer_end_index")
                    if v.get(k) is None), "moe_layer_interval")
        return [Problem("error", "LC102", f'"{key}": null is not a whole number: Ernie4_5_MoeDecoderLayer compares each '
                                          "layer with it (leaving the key out takes the default)",
                        spec.key_span(key) or spec.span)]
    out = []
    mtp = v.get("num_mtp_layers")
    if type(mtp) is int and mtp > 1:
        out.append(Problem("error", "LC103", f"{spec.key_label('num_mtp_layers')} {mtp}: Ernie 4.5 MoE supports a single "
                                             "MTP layer, and Ernie4_5_MoeConfig refuses more",
                           spec.key_span("num_mtp_layers") or spec.span))
    if not any(flags):
        return out
    alias = v.get("num_experts_alias")
    if alias != _ABSENT and (type(alias) is not int or alias < 1):
        what = "null is not a whole number" if alias is None else f"expected a whole number, got {json.dumps(alias)}"
        out.append(Problem("error", "LC102", f'"num_experts": {what}: the MoE layers cannot be built with it',
                           spec.key_span("num_experts_alias") or spec.span))
    for name in ("moe_num_experts", "n_shared_experts"):
        if alias == _ABSENT or name != "moe_num_experts":
            if v.get(name) is None and name in spec.origins:
                out.append(Problem("error", "LC102", f'"{spec.key_name(name)}": null is not a whole number: the MoE '
                                                     "layers cannot be built with it (leaving the key out takes the "
                                                     "default)", spec.key_span(name) or spec.span))
    return out


FAMILIES += (
    # ERNIE 4.5 MoE: ERNIE 4.5's attention and MLPs (one use_bias switch for every projection and the output head),
    # MoE layers every moe_layer_interval-th from moe_layer_start_index to moe_layer_end_index, each with an fp32
    # router, a frozen score-correction bias and moe_num_shared_experts shared experts.
    decoder("ernie4_5_moe", "Ernie4_5_MoeForCausalLM", d(pad_token_id=0), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=103424, hidden_size=2560, intermediate_size=12288, num_layers=28, num_heads=20, num_kv_heads=4,
              tie_embeddings=True, max_positions=131072),
            MOE,
            {"head_dim": Field(("head_dim",), HEAD_DIM, doc=BASE["head_dim"].doc),
             **{bias: Field(("use_bias",), False, "bool", doc="biases on every projection and the output head")
                for bias in ("q_bias", "k_bias", "v_bias", "o_bias", "mlp_bias", "head_bias")},
             "num_experts_alias": Field(("num_experts",), _ABSENT, "any",
                                        doc="routed experts per MoE layer (moe_num_experts' alias, which wins)"),
             "moe_num_experts": Field(("moe_num_experts",), 64, "int?", doc=MOE["num_experts"].doc),
             "num_experts": fixed(Derived(lambda v: v["moe_num_experts"] if v["num_experts_alias"] == _ABSENT
                                          else v["num_experts_alias"], "num_experts, else moe_num_experts")),
             "experts_per_token": Field(("num_experts_per_tok", "moe_k"), 6, null="none", doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 1536, doc=MOE["moe_intermediate_size"].doc),
             "n_shared_experts": Field(("moe_num_shared_experts",), 2, "int?", minimum=0,
                                       doc="shared experts (always on) in each MoE layer"),
             "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"] * (v["n_shared_experts"] or 0),
                                                       "moe_intermediate_size × moe_num_shared_experts")),
             "router_statics": fixed(True),
             "moe_layers": fixed("interval_range"),
             "moe_layer_interval": Field(("moe_layer_interval",), 1, "int?", doc="every how many layers one is MoE"),
             "moe_layer_start_index": Field(("moe_layer_start_index",), 1, "int?", minimum=-MAX_INDEX,
                                            doc="the first layer that may be MoE"),
             "moe_layer_end_index": Field(("moe_layer_end_index",), -1, "int?", minimum=-MAX_INDEX,
                                          doc="the last layer that may be MoE (-1: the last layer)"),
             "num_mtp_layers": Field(("num_nextn_predict_layers", "num_mtp_layers"), None, "int?", minimum=0,
                                     doc="multi-token-prediction layers of the checkpoint (not built)"),
             **NO_WINDOW},
            nulls(q_bias="false", k_bias="false", v_bias="false", o_bias="false", mlp_bias="false", head_bias="false"),
            heads={"Ernie4_5_MoeForCausalLM": "causal_lm", "Ernie4_5_MoeModel": "base"},
            notes=("ERNIE 4.5 MoE checkpoints may hold a multi-token-prediction layer that transformers does not build; "
                   "it is not counted",),
            checks=(_ernie_moe,), float_keys=("num_experts_per_tok",),
            fp32_modules_strict=("gate.weight", "e_score_correction_bias")),
)

FAMILIES += (
    # Granite 3 MoE with a shared expert (GraniteMoeShared): GraniteMoE's layers, plus a shared_mlp beside the
    # block_sparse_moe (a fused input_linear, 2 × shared_intermediate_size wide, and output_linear; none at 0).
    decoder("granitemoeshared", "GraniteMoeSharedForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(), MOE,
            {"moe_intermediate_size": EXPERT_WIDTH_IS_MLP, "mlp_bias": fixed(False), "router_name": fixed("router"),
             "num_experts": Field(("num_local_experts",), 8, doc=MOE["num_experts"].doc),
             "shared_intermediate_size": Field(("shared_intermediate_size",), 0, minimum=0,
                                               doc="width of the always-on shared expert (0: none)"),
             "mlp_names": fixed(("input_linear", "output_linear"))},
            nulls(num_kv_heads="default", experts_per_token="none"),
            heads={"GraniteMoeSharedForCausalLM": "causal_lm", "GraniteMoeSharedModel": "base"}),
)

FAMILIES += (
    # VaultGemma: Gemma 2's attention and MLP with two norms a layer (before attention, before the MLP), biases on
    # the attention projections by attention_bias, and sliding and full layers alternating (layer_types).
    decoder("vaultgemma", "VaultGemmaForCausalLM", d(pad_token_id=0),
            d(vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_layers=26, num_heads=8, num_kv_heads=4,
              tie_embeddings=True, max_positions=8192, sliding_window=4096),
            STRICT_HEADS,
            {"head_dim": Field(("head_dim",), 256, doc=BASE["head_dim"].doc), "mlp_bias": fixed(False),
             "layer_norms": fixed(("input_layernorm", "pre_feedforward_layernorm")),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(v["num_layers"])),
                 "sliding and full layers alternating"), "strs", null="default")},
            heads={"VaultGemmaForCausalLM": "causal_lm", "VaultGemmaModel": "base"},
            checks=(layer_list_length("layer_types"),)),
)

FAMILIES += (
    # Persimmon (Adept): LayerNorms with biases, a fused query_key_value and a dense output with biases, LayerNorms
    # over each head's q and k (qk_layernorm, on by default), a squared-ReLU MLP with biases and no gate, half of
    # each head rotated.
    decoder("persimmon", "PersimmonForCausalLM", WRITTEN_HEAD_DIM,
            d(vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_layers=36, num_heads=64,
              max_positions=16384),
            GPT_STYLE, STRICT_HEADS, NO_WINDOW,
            {"num_kv_heads": fixed(KV_HEADS), "head_dim": fixed(HEAD_DIM),
             "q_bias": fixed(True), "k_bias": fixed(True), "v_bias": fixed(True), "o_bias": fixed(True),
             "mlp_bias": fixed(True),
             "qk_layernorm": Field(("qk_layernorm",), True, "bool", doc="a LayerNorm over each head's q and k"),
             "qk_norm": fixed(Derived(lambda v: "head_layernorm" if v["qk_layernorm"] else "none", "qk_layernorm")),
             "attn_names": fixed(("query_key_value", "dense")),
             "mlp_names": fixed(("dense_h_to_4h", "dense_4h_to_h"))},
            rotary_share(0.5, "reject"), float_keys=("head_dim",)),
)


# transformers' activations by name (ACT2FN), and the learned scalars of those that have any: xIELU's two, PReLU's
# one. Apertus' MLP builds hidden_act by this table, and fails for a name not in it.
ACTIVATION_PARAMS: dict[str, tuple[str, ...]] = {
    **{name: () for name in ("gelu", "gelu_10", "gelu_fast", "gelu_new", "gelu_python", "gelu_pytorch_tanh",
                             "gelu_python_tanh", "gelu_accurate", "hardswish", "laplace", "leaky_relu", "linear", "mish",
                             "quick_gelu", "relu", "relu2", "relu6", "sigmoid", "silu", "sqrtsoftplus", "swish", "tanh")},
    "prelu": ("weight",), "xielu": ("alpha_p", "alpha_n"),
}


def _known_activation(spec) -> list[Problem]:
    act = spec.values.get("hidden_act")
    if act in ACTIVATION_PARAMS:
        return []
    return [Problem("error", "LC103", f'"hidden_act": {json.dumps(act)} is not one of transformers\' activations '
                                      f"({', '.join(sorted(ACTIVATION_PARAMS))}): {spec.architecture} cannot be built",
                    spec.key_span("hidden_act") or spec.span)]


FAMILIES += (
    # Apertus (Swiss AI): Llama's attention with RMS norms over each head's q and k, an MLP of up and down
    # projections (no gate) whose xIELU activation learns two scalars (alpha_p, alpha_n), norms named
    # attention_layernorm / feedforward_layernorm.
    decoder("apertus", "ApertusForCausalLM", d(pad_token_id=3), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=131072, intermediate_size=14336, max_positions=65536),
            QK_HEAD,
            {"mlp_gated": fixed(False), "mlp_bias": fixed(False), "mlp_names": fixed(("up_proj", "down_proj")),
             "layer_norms": fixed(("attention_layernorm", "feedforward_layernorm")),
             "hidden_act": Field(("hidden_act",), "xielu", "str", null="reject",
                                 doc="the MLP's activation (xielu and prelu learn scalars)"),
             "act_params": fixed(Derived(lambda v: ACTIVATION_PARAMS.get(v["hidden_act"], ()), "hidden_act"))},
            nulls(num_kv_heads="default"),
            heads={"ApertusForCausalLM": "causal_lm", "ApertusModel": "base"}, checks=(_known_activation,)),
)


def _output_vocab_in_vocab(spec) -> list[Problem]:
    """Apertus1p5TextConfig refuses an output_vocab_size over vocab_size (validate_output_vocab_size; under 1 the
    field's minimum refuses it)."""
    rows, vocab = spec.values.get("output_vocab_size"), spec.values.get("vocab_size")
    if type(rows) is int and type(vocab) is int and rows > vocab:
        return [Problem("error", "LC103", f'"output_vocab_size": {rows} is more than vocab_size ({vocab}): '
                                          "Apertus1p5TextConfig refuses the config (the head keeps a prefix of the "
                                          "vocabulary)", spec.key_span("output_vocab_size") or spec.span)]
    return []


FAMILIES += (
    # Apertus 1.5's text model: Apertus's layers over a vocabulary extended by image and audio codes, whose LM head
    # may keep only its first output_vocab_size rows (the text tokens); tied, the head is embed_tokens whatever
    # output_vocab_size says (transformers ties the full embedding).
    decoder("apertus1p5_text", "Apertus1p5TextForCausalLM", d(pad_token_id=3), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=266752, intermediate_size=14336, max_positions=65536),
            QK_HEAD,
            {"mlp_gated": fixed(False), "mlp_bias": fixed(False), "mlp_names": fixed(("up_proj", "down_proj")),
             "layer_norms": fixed(("attention_layernorm", "feedforward_layernorm")),
             "hidden_act": Field(("hidden_act",), "xielu", "str", null="reject",
                                 doc="the MLP's activation (xielu and prelu learn scalars)"),
             "act_params": fixed(Derived(lambda v: ACTIVATION_PARAMS.get(v["hidden_act"], ()), "hidden_act")),
             "output_vocab_size": Field(("output_vocab_size",), None, "int?",
                                        doc="rows the LM head keeps, the first of the vocabulary (null: all)"),
             # (tied, the head is embed_tokens: as many rows, and logits, as the vocabulary)
             "lm_head_rows": fixed(Derived(
                 lambda v: v["vocab_size"] if v["tie_embeddings"] else v["output_vocab_size"] or v["vocab_size"],
                 "output_vocab_size, else (or tied) vocab_size"))},
            nulls(num_kv_heads="default"),
            heads={"Apertus1p5TextForCausalLM": "causal_lm", "Apertus1p5TextModel": "base"},
            checks=(_known_activation, _output_vocab_in_vocab)),
)


# DBRX's nested sub-configs: (field, sub-config key, key in it, class default, least value its model builds with).
DBRX_NESTED = (("num_kv_heads", "attn_config", "kv_n_heads", 1, 1),
               ("moe_intermediate_size", "ffn_config", "ffn_hidden_size", 3584, 0),
               ("num_experts", "ffn_config", "moe_num_experts", 4, 0),
               ("experts_per_token", "ffn_config", "moe_top_k", 1, 0))


def _nested(sub: str, key: str, default: object) -> Derived:
    def read(v):
        mapping = v[sub]
        return mapping.get(key, default) if isinstance(mapping, dict) else default
    return Derived(read, f"{sub}.{key}, else {default}")


def _dbrx(spec) -> list[Problem]:
    """What DbrxConfig and its model refuse: a sub-config that is no mapping, a size in one that is no whole number
    (DbrxAttentionConfig / DbrxFFNConfig are strict), an attn_config with no rope_theta (DbrxAttention reads it, and
    its class has none), and a tied head (validate_architecture)."""
    v = spec.values
    out = []
    for sub in ("attn_config", "ffn_config"):
        if v.get(sub) is not None and not isinstance(v[sub], dict):
            out.append(Problem("error", "LC102", f'"{sub}": expected an object (the {sub} settings) or null',
                               spec.key_span(sub) or spec.span))
    if out:
        return out
    for name, sub, key, _default, least in DBRX_NESTED:
        mapping = v.get(sub) or {}
        if key in mapping:
            value = mapping[key]
            if type(value) is not int or value < least:
                out.append(Problem("error", "LC102", f'"{sub}"."{key}": expected a whole number of at least {least}, got '
                                                     f"{json.dumps(value)}: Dbrx's config class refuses it, or its "
                                                     "model cannot be built with it", spec.key_span(sub) or spec.span))
    if "rope_theta" not in (v.get("attn_config") or {}):
        said = '"attn_config": null takes DbrxAttentionConfig\'s defaults, which have' if "attn_config" in spec.origins \
            else 'attn_config has'
        out.append(Problem("error", "LC102", f'{said} no "rope_theta": DbrxAttention reads it and DbrxAttentionConfig '
                                             "has no default, so transformers cannot build the model (DBRX checkpoints "
                                             'write "attn_config": {"rope_theta": 500000, ...})',
                           spec.key_span("attn_config") or spec.span))
    hidden, moe_hidden = v.get("hidden_size"), v.get("moe_hidden")
    if type(hidden) is int and type(moe_hidden) is int and hidden != moe_hidden:
        out.append(Problem("warning", "LC103", f"the experts and router are {moe_hidden:,} wide (d_model, copied into "
                                               f"ffn_config before {spec.key_label('hidden_size')} sets the width to "
                                               f"{hidden:,}): transformers builds the model (counted), but its forward "
                                               "pass fails (write d_model)", spec.key_span("hidden_size") or spec.span))
    if v.get("tie_embeddings"):
        out.append(Problem("error", "LC103", "tie_word_embeddings is not supported for DBRX models: DbrxConfig refuses it",
                           spec.key_span("tie_embeddings") or spec.span))
    return out


FAMILIES += (
    # DBRX: a fused Wqkv (hidden_size queries, kv_n_heads key/value heads), out_proj, bias-free LayerNorms around
    # attention (norm_attn_norm), and every layer a mixture of experts (ffn: an nn.Linear router, experts as three
    # fused w1 / v1 / w2 parameters); kv_n_heads in attn_config, the experts' sizes in ffn_config.
    # (An attribute_map alias is set after the class's own key, and wins; but DbrxConfig copies d_model into
    # ffn_config before: the experts and router are d_model wide, its default where only hidden_size is given.)
    decoder("dbrx", "DbrxForCausalLM", WRITTEN_HEAD_DIM,
            aliases(hidden_size=("hidden_size", "d_model"), num_layers=("num_hidden_layers", "n_layers"),
                    num_heads=("num_attention_heads", "n_heads")),
            d(vocab_size=32000, hidden_size=2048, num_layers=24, num_heads=16, max_positions=2048),
            MOE, FLOOR_HEADS, NO_WINDOW,
            {"attn_config": Field(("attn_config",), None, "any", null="none",
                                  doc="attention settings: kv_n_heads, rope_theta (required), clip_qkv"),
             "ffn_config": Field(("ffn_config",), None, "any", null="none",
                                 doc="mixture-of-experts settings: ffn_hidden_size, moe_num_experts, moe_top_k"),
             **{name: fixed(_nested(sub, key, default)) for name, sub, key, default, _least in DBRX_NESTED},
             "head_dim": fixed(HEAD_DIM), "intermediate_size": fixed(0),
             "norm": fixed("layer_nobias"), "layer_norms": fixed(("norm_1", "norm_2")),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(False), "q_from_hidden": fixed(True), "attn_out_from_hidden": fixed(True),
             "attn_names": fixed(("Wqkv", "out_proj")), "router_name": fixed("layer"),
             "moe_hidden": Field(("d_model",), 2048, doc="width the experts and router take (d_model as written)"),
             "max_positions": Field(("max_position_embeddings", "max_seq_len"), 2048, "int?", null="none",
                                    doc=BASE["max_positions"].doc)},
            heads={"DbrxForCausalLM": "causal_lm", "DbrxModel": "base"}, checks=(_dbrx,),
            float_keys=("max_position_embeddings",)),
)

FAMILIES += (
    # MiniCPM3: DeepSeek-V2's multi-head latent attention (biases on q_a_proj, kv_a_proj_with_mqa and o_proj by
    # attention_bias) and a dense gated MLP in every layer; v_head_dim hidden_size / heads where not given.
    decoder("minicpm3", "MiniCPM3ForCausalLM", STRICT_HEADS,
            d(vocab_size=73448, hidden_size=2560, intermediate_size=6400, num_layers=62, num_heads=40, num_kv_heads=40,
              tie_embeddings=True, max_positions=32768),
            {"head_dim": fixed(HEAD_DIM),
             "q_lora_rank": Field(("q_lora_rank",), 768, "int?",
                                  doc="rank of the low-rank query projection (null: a full q_proj)"),
             "kv_lora_rank": Field(("kv_lora_rank",), 256,
                                   doc="width of the compressed key/value latent (what the KV cache holds)"),
             "qk_nope_head_dim": Field(("qk_nope_head_dim",), 64),
             "qk_rope_head_dim": Field(("qk_rope_head_dim",), 32),
             "v_head_dim": Field(("v_head_dim",), HEAD_DIM, null="default",
                                 doc="width of each value head (null: hidden_size / num_attention_heads)"),
             # MiniCPM3Config holds qk_rope_head_dim as head_dim, which its RoPE check reads.
             "rope_head_dim": Field(("qk_rope_head_dim",), 32, doc=ROTATED_HEAD_DIM)},
            nulls(num_kv_heads=KV_HEADS),
            heads={"MiniCPM3ForCausalLM": "causal_lm", "MiniCPM3Model": "base",
                   "MiniCPM3ForSequenceClassification": "sequence_classification"}),
)


# DeepSeek-V3.2's sparse attention (DeepSeek-V3's latent attention and experts, an indexer that picks each query's
# top-k keys, from which a layer caches one more key), which GLM-MoE-DSA builds on: the fields both read, with
# DeepSeek-V3.2's defaults.
SPARSE_ATTENTION: dict[str, Field] = {
    # (num_experts: a legacy key the config classes copy into n_routed_experts, where not null)
    "num_experts": Field(("num_local_experts", "num_experts", "n_routed_experts"), 256, doc=MOE["num_experts"].doc),
    "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
    "q_lora_rank": Field(("q_lora_rank",), 1536, doc="rank of the low-rank query projection"),
    # The config classes hold qk_rope_head_dim as head_dim (a written head_dim is replaced), which their RoPE
    # check reads.
    "rope_head_dim": Field(("qk_rope_head_dim",), 64, doc=ROTATED_HEAD_DIM),
    **MLP_LAYER_TYPES_AFTER_DENSE,
    "index_n_heads": Field(("index_n_heads",), 64, doc="query heads of the sparse-attention indexer"),
    "index_head_dim": Field(("index_head_dim",), 128, doc="width of the indexer's heads (and of the key it caches per token)"),
    "sliding_window": fixed(None),
    "layer_types": Field(("layer_types",), Derived(lambda v: ("indexed_attention",) * v["num_layers"],
                                                   "indexed attention in every layer"), "strs", null="default"),
}

FAMILIES += (
    # DeepSeek-V3.2: DeepSeek-V3's latent attention (always a low-rank query) with a sparse-attention indexer in
    # every layer (wq_b, wk, a LayerNorm over its key, weights_proj), and its experts in the layers
    # mlp_layer_types calls "sparse" (from first_k_dense_replace on, by default).
    decoder("deepseek_v32", "DeepseekV32ForCausalLM", FLOOR_HEADS,
            d(vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_layers=61, num_heads=128,
              num_kv_heads=128, max_positions=163840, experts_per_token=8, moe_intermediate_size=2048,
              n_shared_experts=1, first_k_dense_replace=3),
            MOE, DEEPSEEK, SPARSE_ATTENTION,
            nulls(num_experts=("num_experts",)),
            heads={"DeepseekV32ForCausalLM": "causal_lm", "DeepseekV32Model": "base"},
            notes=("DeepSeek-V3.2 checkpoints also hold a multi-token-prediction layer that transformers does not "
                   "build; it is not counted",),
            checks=(layer_list_length("layer_types", "mlp_layer_types",
                                      allowed={"mlp_layer_types": ("sparse", "dense")}),),
            fp32_modules=("indexer.weights_proj",),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


# GLM-MoE-DSA's config class derives indexer_types (where not given) from keys it declares no field for, which
# reach its __post_init__ as written: index_topk_pattern ("F" full, "S" shared, per layer; a list is taken as it
# is), else index_topk_freq and index_skip_topk_offset (layer i runs the indexer where max(i - offset + 1, 0) is a
# multiple of max(freq, 1)).
_GLM_DSA_PATTERN = {"F": "full", "S": "shared"}


def _glm_dsa_indexer_types(v) -> tuple[str, ...]:
    pattern = v["index_topk_pattern"]
    if pattern is not None:
        types = tuple(_GLM_DSA_PATTERN[c] for c in pattern) if isinstance(pattern, str) else tuple(pattern)
        if not all(isinstance(t, str) for t in types):
            raise TypeError("indexer_types entries must be strings")
        return types
    freq, offset = max(v["index_topk_freq"], 1), v["index_skip_topk_offset"]
    return tuple("full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(v["num_layers"]))


def _dsa_schedule_check(spec, config_class: str) -> list[Problem]:
    """What ``config_class`` (GlmMoeDsaConfig, MistralLarge4TextConfig) and its model refuse in the indexer's
    schedule: an index_topk_pattern with a letter other than F or S, or that is no list of strings; an index_topk_freq
    or index_skip_topk_offset it cannot compute with (a null, a string); an indexer_types (given or derived) shorter
    than the layers (each layer reads its own). And what its forward pass refuses: a layer that reuses the previous
    layer's top-k with no indexer layer before it."""
    v = spec.values
    types, layers = v.get("indexer_types"), v.get("num_layers")

    def bad(name: str, what: str) -> list[Problem]:
        return [Problem("error", "LC102", f'"{spec.key_label(name)}": {what}: {config_class} cannot derive '
                                          "indexer_types from it", spec.key_span(name) or spec.span)]
    if types is None:
        pattern = v.get("index_topk_pattern")
        if pattern is not None:
            letters = [c for c in pattern if c not in _GLM_DSA_PATTERN] if isinstance(pattern, str) else []
            return bad("index_topk_pattern", f"{json.dumps(letters[0])} is neither \"F\" (full) nor \"S\" (shared)"
                       if letters else "expected a string of F and S or a list of strings")
        for name in ("index_topk_freq", "index_skip_topk_offset"):
            value = v.get(name)
            if value is None or isinstance(value, (str, list, tuple, dict)):
                return bad(name, "null is not a number" if value is None else "expected a number")
        return bad("index_topk_freq", "expected numbers")
    if type(layers) is not int:
        return []
    if len(types) < layers:
        name = "indexer_types" if "indexer_types" in spec.origins else "index_topk_pattern"
        return [Problem("error", "LC103", f'"{spec.key_label(name)}": {len(types)} entries for {layers} layers (each '
                                          f"decoder layer reads its own: {spec.architecture} cannot be built)",
                        spec.key_span(name) or spec.span)]
    first = next((i for i, t in enumerate(types[:layers]) if t != "shared"), layers)
    if first > 0:
        name = next((n for n in ("indexer_types", "index_topk_pattern", "index_skip_topk_offset", "index_topk_freq")
                     if n in spec.origins), "indexer_types")
        return [Problem("warning", "LC103", "layer 0 reuses the previous layer's top-k (indexer_types \"shared\") with no "
                                            "indexer layer before it: transformers builds the model (counted), but "
                                            "its forward pass fails", spec.key_span(name) or spec.span)]
    return []


def _glm_moe_dsa(spec) -> list[Problem]:
    return _dsa_schedule_check(spec, "GlmMoeDsaConfig")


# The indexer's schedule keys GlmMoeDsaConfig and MistralLarge4TextConfig read in their __post_init__ (no fields).
DSA_SCHEDULE: dict[str, Field] = {
    "index_topk_pattern": Field(("index_topk_pattern",), None, "any",
                                doc='which layers run the indexer ("F") or reuse the previous top-k ("S"), '
                                    "where indexer_types is not given"),
    "index_topk_freq": Field(("index_topk_freq",), 1, "any",
                             doc="every how many layers the indexer runs (without indexer_types or a pattern)"),
    "index_skip_topk_offset": Field(("index_skip_topk_offset",), 2, "any",
                                    doc="the layer from which index_topk_freq applies"),
    **indexer_schedule(_glm_dsa_indexer_types, "index_topk_pattern, else every index_topk_freq-th layer "
                                               "from index_skip_topk_offset")}

FAMILIES += (
    # GLM-MoE-DSA (GLM-5): DeepSeek-V3.2 with cross-layer top-k sharing: a layer whose indexer_types entry is "shared"
    # has no indexer (it reuses the previous layer's top-k) and caches no indexer key; every other layer has one.
    decoder("glm_moe_dsa", "GlmMoeDsaForCausalLM", FLOOR_HEADS,
            d(vocab_size=154880, hidden_size=6144, intermediate_size=12288, num_layers=78, num_heads=64,
              num_kv_heads=64, max_positions=202752, experts_per_token=8, moe_intermediate_size=2048,
              n_shared_experts=1, first_k_dense_replace=3, q_lora_rank=2048, qk_nope_head_dim=192, v_head_dim=256),
            MOE, DEEPSEEK, SPARSE_ATTENTION, d(index_n_heads=32), DSA_SCHEDULE,
            nulls(num_experts=("num_experts",)),
            heads={"GlmMoeDsaForCausalLM": "causal_lm", "GlmMoeDsaModel": "base"},
            notes=("GLM-5 checkpoints also hold a multi-token-prediction layer that transformers does not build; it is "
                   "not counted",),
            checks=(layer_list_length("layer_types", "mlp_layer_types", allowed={"mlp_layer_types": ("sparse", "dense")}),
                    _glm_moe_dsa),
            fp32_modules=("indexer.weights_proj",),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


# MistralLarge4TextConfig's rope_parameters where none (or a null) is given: YaRN over a 512-token window.
MISTRAL_LARGE4_ROPE = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 2048.0,
                       "original_max_position_embeddings": 512, "beta_fast": 32.0, "beta_slow": 1.0,
                       "attention_factor": 1.0}


def _mistral_large4_frequencies(v) -> int:
    """The rotary frequencies of Mistral Large 4's rotary embedding, one learned alpha each: range(0, dim, 2) over the
    rotated width dim, qk_rope_head_dim (the head_dim its config holds; hidden / heads where that is 0); its own
    "default" type rotates all of it, the others int(dim × partial_rotary_factor), the factor in rope_parameters
    first (where transformers moves a top-level one); "proportional" holds half the head whatever it rotates."""
    width = v["qk_rope_head_dim"] or v["hidden_size"] // v["num_heads"]
    _key, entry = written_rope(v)
    entry = entry if isinstance(entry, dict) else MISTRAL_LARGE4_ROPE
    rope_type = entry.get("rope_type", entry.get("type", "default"))
    factor = entry.get("partial_rotary_factor", v["partial_rotary_factor"])
    factor = 1.0 if factor is None else factor
    if rope_type == "proportional":  # (the rotated frequencies, then zeros up to half the head: both held)
        return max(int(factor * width // 2), width // 2)
    if rope_type != "default":
        width = int(width * factor)
    # (YaRN blends width // 2 ramp values into them: one rotated value gives no frequency at all)
    return 0 if rope_type == "yarn" and width == 1 else len(range(0, width, 2))


def _mistral_large4(spec) -> list[Problem]:
    """What MistralLarge4TextConfig refuses: the indexer's schedule (as GlmMoeDsaConfig does); a kv_source_layers not
    one entry per layer, or naming a later layer or one that reads another (ValueError); a no_rope_layers shorter than
    the layers (its attention reads one per layer: IndexError); a no_rope_layer_interval (read where no_rope_layers is
    not given) of 0 or that is no number."""
    v = spec.values
    out = _dsa_schedule_check(spec, "MistralLarge4TextConfig")
    layers, sources, rotary = v.get("num_layers"), v.get("kv_source_layers"), v.get("no_rope_layers")

    def error(name: str, why: str) -> Problem:
        return Problem("error", "LC102", f'"{spec.key_label(name)}": {why}: MistralLarge4TextConfig refuses the config',
                       spec.key_span(name) or spec.span)
    interval = v.get("no_rope_layer_interval")
    if "no_rope_layers" not in spec.origins or v.get("no_rope_layers") is None:  # (the interval read: no list given)
        if interval is None or isinstance(interval, (str, list, tuple, dict)):
            out.append(error("no_rope_layer_interval", "null is not a number" if interval is None else
                             "expected a number (TypeError)"))
        elif interval == 0:
            out.append(error("no_rope_layer_interval", "0 layers between NoPE layers (ZeroDivisionError)"))
    if type(layers) is not int:
        return out
    if v.get("rotary_alpha") is None and not out:  # (its Derived could not count the rotary frequencies)
        key, _entry = written_rope(v)
        key = key if key in spec.origins else "partial_rotary_factor"
        out.append(Problem("error", "LC102", f'"{spec.key_label(key)}": the rotary embedding\'s width cannot be computed '
                                             "from it (int() of an infinite or NaN factor, or no number): "
                                             "MistralLarge4TextModel cannot be built", spec.key_span(key) or spec.span))
    if isinstance(sources, tuple):
        if len(sources) != layers:
            out.append(error("kv_source_layers", f"{len(sources)} entries for {layers} layers"))
        else:
            for i, source in enumerate(sources):
                try:
                    own = sources[source] == source
                except IndexError:
                    own = False
                if source > i or not own:
                    out.append(error("kv_source_layers", f"layer {i} reads layer {source}, not an earlier layer with "
                                                         "its own latent"))
                    break
    if isinstance(rotary, tuple) and len(rotary) < layers:
        out.append(Problem("error", "LC103", f'"{spec.key_label("no_rope_layers")}": {len(rotary)} entries for {layers} '
                                             f"layers (each layer reads its own: {spec.architecture} cannot be built)",
                           spec.key_span("no_rope_layers") or spec.span))
    elif not out and isinstance(sources, tuple) and isinstance(rotary, tuple):
        out += _mistral_large4_unshared(spec, sources, rotary)
    return out


def _mistral_large4_unshared(spec, sources: tuple, rotary: tuple) -> list[Problem]:
    """A warning where a layer reads an earlier layer's latent that its forward pass cannot find: the model keeps one
    latent per kind (rotated or NoPE), stored by the layers others read, and a layer reads the one of its own kind."""
    stored = set()
    for i, source in enumerate(sources):
        if source != i and bool(rotary[i]) not in stored:
            kind = "a rotated" if rotary[i] else "a NoPE"
            return [Problem("warning", "LC103", f"layer {i} reads an earlier layer's latent (kv_source_layers) as "
                                                f"{kind} layer, and no earlier layer it could read is one: transformers "
                                                "builds the model (counted), but its forward pass fails (KeyError)",
                            spec.key_span("kv_source_layers") or spec.span)]
        if source == i and i in sources[i + 1:]:
            stored.add(bool(rotary[i]))
    return []


FAMILIES += (
    # Mistral Large 4 (MistralLarge4TextModel, no head of its own): DeepSeek-V3.2's latent attention and experts with a
    # full q_proj (no low-rank query), a learned softmax scaling per head (and per indexer head), an indexer whose
    # queries come from the input (q_input_norm, wq_b) in the layers indexer_types does not call "shared" (as GLM-5),
    # NoPE layers by no_rope_layers (every fourth by default: no rotated part in their latent), layers reading an
    # earlier layer's latent by kv_source_layers (no kv_a_proj_with_mqa nor kv_a_layernorm, nothing cached but their
    # indexer key), a learned scale per rotary frequency, and a router of one float32 weight.
    decoder("mistral_large4_text", "MistralLarge4TextModel", FLOOR_HEADS,
            d(vocab_size=204800, hidden_size=6144, intermediate_size=24576, num_layers=72, num_heads=64,
              num_kv_heads=64, max_positions=1048576, experts_per_token=4, moe_intermediate_size=6144,
              n_shared_experts=1, first_k_dense_replace=1, kv_lora_rank=512, qk_nope_head_dim=64, v_head_dim=128,
              num_experts=128),
            MOE, DEEPSEEK, SPARSE_ATTENTION, d(index_n_heads=32), DSA_SCHEDULE,
            {"q_lora_rank": fixed(None), "softmax_scaling": fixed(True), "indexer_from_hidden": fixed(True),
             "rope_parameters": replace(ROPE["rope_parameters"], default=MISTRAL_LARGE4_ROPE),
             "rotary_alpha": fixed(Derived(_mistral_large4_frequencies, "one per rotary frequency")),
             "no_rope_layer_interval": Field(("no_rope_layer_interval",), 4, "any",
                                             doc="every how many layers one rotates nothing (without no_rope_layers)"),
             "no_rope_layers": Field(("no_rope_layers",), Derived(
                 lambda v: tuple(int((i + 1) % v["no_rope_layer_interval"] != 0) for i in range(v["num_layers"])),
                 "every no_rope_layer_interval-th layer rotates nothing"), "ints", null="default",
                 doc="for each layer, 1 where it rotates part of its queries and keys, 0 where it rotates nothing"),
             "nope_layers": fixed(Derived(lambda v: tuple(not x for x in v["no_rope_layers"]),
                                          "the layers whose no_rope_layers entry is 0")),
             "kv_source_layers": Field(("kv_source_layers",), Derived(lambda v: tuple(range(v["num_layers"])),
                                                                      "every layer its own"), "ints", null="default",
                                       doc="for each layer, the layer whose latent keys and values it attends to"),
             "kv_shared_layers": fixed(Derived(lambda v: tuple(s != i for i, s in enumerate(v["kv_source_layers"])),
                                               "the layers whose kv_source_layers entry names another layer"))},
            nulls(num_experts=("num_experts",)),
            heads={"MistralLarge4TextModel": "base"},
            notes=("Mistral Large 4 checkpoints also hold a multi-token-prediction draft head that transformers does not "
                   "build; it is not counted",),
            checks=(layer_list_length("layer_types", "mlp_layer_types", allowed={"mlp_layer_types": ("sparse", "dense")}),
                    _mistral_large4),
            fp32_modules=("indexer.weights_proj",),
            fp32_modules_strict=("rotary_emb", "mlp.gate.weight")),
)

# DeepSeek-V4: DeepseekV4Config's attention layer types, and those its legacy compress_ratios (per layer) stand for.
_V4_LAYER_TYPES = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")
_V4_RATIO_TYPES = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
_V4_RATES = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}


def _v4_layer_types(v) -> tuple[str, ...]:
    """layer_types as DeepseekV4Config derives them where not given: from the legacy compress_ratios (0, 4 or 128 per
    layer), else two HCA layers, then CSA and HCA in turn; cut to the layers."""
    n = v["num_layers"]
    if v["compress_ratios"] is not None:
        return tuple(_V4_RATIO_TYPES[r] for r in v["compress_ratios"])[:n]
    return (("heavily_compressed_attention",) * min(n, 2)
            + tuple("compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(max(n - 2, 0))))


def _v4_compress_rates(v) -> dict:
    """Each compressed layer type's window: compress_rates (its default where null), the legacy compress_rate_csa and
    compress_rate_hca over it where given."""
    rates = dict(v["compress_rates_written"]) if v["compress_rates_written"] is not None else dict(_V4_RATES)
    for key, name in (("compress_rate_csa", "compressed_sparse_attention"), ("compress_rate_hca", "heavily_compressed_attention")):
        if v[key] is not None:
            rates[name] = v[key]
    return rates


def _deepseek_v4(spec) -> list[Problem]:
    """What DeepseekV4Config and its model refuse: a legacy compress_ratios entry other than 0, 4 or 128; a
    layer_types or mlp_layer_types list shorter than the layers (cut to them) or with a type it does not know; a
    compress_rates that is no mapping, or that lacks a whole-number window of at least 0 for a layer type the layers
    use; num_hash_layers that is no whole number; o_groups 0; an indexer with no heads or no width where a CSA layer
    has one. And a window of 0, which builds but whose forward pass divides by it."""
    v = spec.values
    layers = v.get("num_layers")
    if type(layers) is not int:
        return []

    def error(name: str, what: str, code: str = "LC102") -> list[Problem]:
        return [Problem("error", code, f'"{spec.key_label(name)}": {what}', spec.key_span(name) or spec.span)]
    if v.get("layer_types") is None:
        ratios = v.get("compress_ratios")
        bad = [r for r in ratios if not isinstance(r, (int, float)) or r not in _V4_RATIO_TYPES] \
            if isinstance(ratios, (list, tuple)) else [ratios]
        return error("compress_ratios", f"{json.dumps(bad[0])} is not 0, 4 or 128 (a sliding, CSA or HCA layer): "
                                        "DeepseekV4Config cannot derive layer_types from it")
    for name, allowed in (("layer_types", _V4_LAYER_TYPES), ("mlp_layer_types", ("hash_moe", "moe"))):
        types = v.get(name)
        if not isinstance(types, tuple):
            continue
        unknown = [t for t in types[:layers] if t not in allowed]
        if unknown:
            return error(name, f"{json.dumps(unknown[0])} is not one of {', '.join(map(json.dumps, allowed))}: "
                               "DeepseekV4Config refuses it", "LC103")
        if len(types) < layers:
            return error(name, f"{len(types)} entries for {layers} layers: DeepseekV4Config refuses a shorter list",
                         "LC103")
    hashes = v.get("num_hash_layers")
    if "num_hash_layers" in spec.origins and hashes is not None and v.get("mlp_layer_types_written") is None \
            and type(hashes) not in (int, bool):
        return error("num_hash_layers", f"expected a whole number, got {json.dumps(hashes)}: DeepseekV4Config cannot "
                                        "derive mlp_layer_types from it")
    written = v.get("compress_rates_written")
    if written is not None and not isinstance(written, dict):
        return error("compress_rates_written", "expected an object (a window per compressed layer type) or null")
    used = [t for t in dict.fromkeys(v["layer_types"][:layers]) if t != "sliding_attention"]  # type: ignore[index]
    rates = v.get("compress_rates") or {}
    for t in used:
        rate = rates.get(t)  # type: ignore[union-attr]
        legacy = "compress_rate_csa" if t == "compressed_sparse_attention" else "compress_rate_hca"
        where = legacy if legacy in spec.origins and v.get(legacy) is not None else "compress_rates_written"
        if type(rate) is not int or rate < 0:
            what = f"no window for {t}" if rate is None and t not in rates else f"{json.dumps(rate)} is no whole number of at least 0"  # type: ignore[operator]
            return error(where, f"{what}: {spec.architecture} cannot build its {t.replace('_', ' ')} layers", "LC103")
    if "compressed_sparse_attention" in used:
        for name in ("index_n_heads", "index_head_dim"):
            if v.get(name) == 0:
                return error(name, f"0 with a compressed sparse attention layer: its indexer's scale divides by it "
                                   f"({spec.architecture} cannot be built)", "LC103")
    if v.get("o_groups") == 0:
        return error("o_groups", f"0: the grouped output projection divides by it ({spec.architecture} cannot be built)",
                     "LC103")
    zero = [t for t in used if rates.get(t) == 0]  # type: ignore[union-attr]
    if zero:
        return [Problem("warning", "LC103", f"a window of 0 for {zero[0]}: transformers builds the model (counted), but "
                                            "its forward pass divides by it", spec.key_span("compress_rates_written") or spec.span)]
    return []


FAMILIES += (
    # DeepSeek-V4: every layer a mixture of experts (a learned router, by hash of the token for the first
    # mlp_layer_types "hash_moe" layers: the same parameters; one shared expert moe_intermediate_size wide whatever
    # n_shared_experts says), its attention by layer_types (layouts/decoder.py's _compressed_attention: a sliding
    # window, and for CSA / HCA layers a compressor), hyper-connections around each block (attn_hc, ffn_hc) and before
    # the final norm (hc_head); every norm and hyper-connection, the sinks and the position biases kept in float32.
    decoder("deepseek_v4", "DeepseekV4ForCausalLM",
            d(vocab_size=129280, hidden_size=4096, num_layers=43, num_heads=64, max_positions=1048576),
            MOE, {name: fixed(False) for name in ("q_bias", "k_bias", "v_bias", "o_bias")},
            {"num_kv_heads": Field(("num_key_value_heads",), 1, doc="key/value heads (DeepSeek-V4 reads one whatever "
                                                                    "this says)"),
             "head_dim": Field(("head_dim",), 512, doc=BASE["head_dim"].doc),
             "intermediate_size": fixed(0),
             "num_experts": Field(("num_local_experts", "n_routed_experts"), 256, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 6, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("intermediate_size", "moe_intermediate_size"), 2048,
                                            doc=MOE["moe_intermediate_size"].doc),
             "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"], "moe_intermediate_size")),
             "mlp_bias": Field(("mlp_bias",), False, "bool", doc=BASE["mlp_bias"].doc),
             "q_lora_rank": Field(("q_lora_rank",), 1024, doc="rank of the low-rank query projection"),
             "o_groups": Field(("o_groups",), 8, minimum=0, doc="head groups of the grouped output projection"),
             "o_lora_rank": Field(("o_lora_rank",), 1024, minimum=0,
                                  doc="width each head group's output projection has"),
             "index_n_heads": Field(("index_n_heads",), 64, minimum=0,
                                    doc="query heads of the compressed sparse attention's indexer"),
             "index_head_dim": Field(("index_head_dim",), 128, minimum=0, doc="width of the indexer's heads"),
             "hyper_connections": Field(("hc_mult",), 4, minimum=0,
                                        doc="residual streams of the hyper-connections (hc_mult)"),
             "sliding_window": Field(("sliding_window",), 128, doc="tokens every attention layer's sliding window sees"),
             "compressed_attention": fixed(True),
             "compress_ratios": Field(("compress_ratios",), None, "any", null="none",
                                      doc="each layer's compression (0, 4 or 128; legacy, where layer_types is not given)"),
             "layer_types": Field(("layer_types",), Derived(_v4_layer_types, "from compress_ratios, else two HCA "
                                                            "layers, then CSA and HCA in turn"), "strs", null="default",
                                  doc='"sliding_attention", "compressed_sparse_attention" or '
                                      '"heavily_compressed_attention" for each layer'),
             "compress_rates_written": Field(("compress_rates",), None, "any", null="none",
                                             doc="the tokens each window of a compressed layer type holds"),
             "compress_rate_csa": Field(("compress_rate_csa",), None, "any", null="none",
                                        doc="a CSA layer's window (legacy)"),
             "compress_rate_hca": Field(("compress_rate_hca",), None, "any", null="none",
                                        doc="an HCA layer's window (legacy)"),
             "compress_rates": fixed(Derived(_v4_compress_rates, "compress_rates, with compress_rate_csa / _hca")),
             "num_hash_layers": Field(("num_hash_layers",), None, "any", null="none",
                                      doc="how many first layers route by hash (legacy)"),
             "mlp_layer_types_written": Field(("mlp_layer_types",), None, "strs", null="none"),
             "mlp_layer_types": fixed(Derived(
                 lambda v: v["mlp_layer_types_written"] if v["mlp_layer_types_written"] is not None else
                 ("hash_moe",) * min(v["num_layers"], 3 if v["num_hash_layers"] is None else v["num_hash_layers"])
                 + ("moe",) * max(0, v["num_layers"] - (3 if v["num_hash_layers"] is None else v["num_hash_layers"])),
                 'mlp_layer_types, else num_hash_layers (3) "hash_moe" layers, then "moe"'))},
            heads={"DeepseekV4ForCausalLM": "causal_lm", "DeepseekV4Model": "base"},
            notes=("DeepSeek-V4 checkpoints also hold a multi-token-prediction layer that transformers does not build; "
                   "it is not counted",),
            checks=(_deepseek_v4,),
            fp32_modules=("self_attn.compressor.kv_proj", "self_attn.compressor.gate_proj",
                          "self_attn.compressor.indexer.kv_proj", "self_attn.compressor.indexer.gate_proj",
                          "self_attn.compressor.indexer.scorer.weights_proj"),
            fp32_modules_strict=("attn_hc", "ffn_hc", "hc_head", "sinks", "position_bias", "e_score_correction_bias",
                                 "q_a_norm", "kv_norm", "input_layernorm", "post_attention_layernorm", "norm"),
            rope=False,
            unreplaced_linears=("o_a_proj",)),  # DeepseekV4GroupedLinear: bitsandbytes does not quantize it
)


def _llama4_no_rope(v) -> tuple[int, ...]:
    written = v["no_rope_layers_written"]
    if written:  # (an empty list is as none: Llama4TextConfig then derives it)
        return tuple(written)
    return tuple(int((i + 1) % v["no_rope_layer_interval"] != 0) for i in range(v["num_layers"]))


def _llama4_lists(spec) -> list[Problem]:
    """Llama4TextAttention reads no_rope_layers[i] for every layer; with no layer_types, Llama4TextConfig derives one
    per no_rope_layers entry, which validate_layer_type then wants as many as the layers."""
    v = spec.values
    written, layers = v.get("no_rope_layers_written"), v.get("num_layers")
    if not written or type(layers) is not int or "no_rope_layers_written" not in spec.origins:
        return []
    where = spec.key_span("no_rope_layers_written") or spec.span
    if len(written) < layers:
        return [Problem("error", "LC102", f'"no_rope_layers": {len(written)} entries for {layers} layers (each '
                                          "attention layer reads its own)", where)]
    if len(written) > layers and "layer_types" not in spec.origins:
        return [Problem("error", "LC103", f'"no_rope_layers": {len(written)} entries for {layers} layers: '
                                          "Llama4TextConfig derives a layer type from each, and refuses more layer "
                                          "types than layers", where)]
    return []


FAMILIES += (
    # Llama 4 (text): Llama's attention (biases by attention_bias; its qk norms have no weights), MoE layers where
    # moe_layers says (every interleave_moe_layer_step-th by default), each with experts intermediate_size wide, an
    # nn.Linear router and a shared expert as wide; dense layers intermediate_size_mlp wide. Layers with rotary
    # positions attend in chunks of attention_chunk_size (what their cache keeps).
    decoder("llama4_text", "Llama4ForCausalLM",
            d(vocab_size=202048, hidden_size=5120, num_layers=48, num_heads=40, num_kv_heads=8,
              max_positions=131072),
            MOE,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "mlp_bias": fixed(False),
             "intermediate_size": Field(("intermediate_size_mlp",), 16384, doc="width of the dense layers' MLP"),
             "moe_intermediate_size": Field(("intermediate_size",), 8192,
                                            doc="width of each expert's MLP (and of the shared expert)"),
             "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"], "intermediate_size")),
             "num_experts": Field(("num_local_experts",), 16, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 1, doc=MOE["experts_per_token"].doc),
             "router_name": fixed("router"),
             "moe_layers": fixed("layer_list"),
             "interleave_moe_layer_step": Field(("interleave_moe_layer_step",), 1,
                                                doc="every how many layers one is MoE (where moe_layers is not given)"),
             "moe_layer_indices": Field(("moe_layers",), Derived(
                 lambda v: tuple(range(v["interleave_moe_layer_step"] - 1, v["num_layers"], v["interleave_moe_layer_step"])),
                 "every interleave_moe_layer_step-th layer"), "ints", null="default",
                 doc="which layers are a mixture of experts"),
             "no_rope_layer_interval": Field(("no_rope_layer_interval",), 4,
                                             doc="every how many layers one has no rotary positions (NoPE)"),
             "no_rope_layers_written": Field(("no_rope_layers",), (), "ints", minimum=0),
             "no_rope_layers": fixed(Derived(_llama4_no_rope, "no_rope_layers, else a NoPE layer every "
                                                              "no_rope_layer_interval layers")),
             # The chunk a chunked-attention layer attends to, which its cache keeps (as a sliding window's).
             "sliding_window": Field(("attention_chunk_size",), 8192, "int?",
                                     doc="tokens a chunked-attention layer attends to (null: every layer full)"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("chunked_attention" if rope and v["sliding_window"] is not None else "full_attention"
                                 for rope in v["no_rope_layers"]),
                 "chunked where the layer has rotary positions and attention_chunk_size is set"), "strs",
                 null="default")},
            heads={"Llama4ForCausalLM": "causal_lm", "Llama4TextModel": "base"},
            checks=(_llama4_lists, layer_list_length("layer_types"))),
)

FAMILIES += (
    # JetMoE: a mixture of attention heads (each expert a query and an output projection num_key_value_heads ×
    # kv_channels wide, one shared kv_proj, an nn.Linear router and an output bias) and a mixture of MLP experts
    # (fused input_linear, output_linear, an nn.Linear router and an output bias) in every layer; a token uses
    # num_experts_per_tok of each. JetMoeConfig sets num_attention_heads to num_key_value_heads ×
    # num_experts_per_tok, and a num_attention_heads the file gives after that (no parameters depend on it).
    decoder("jetmoe", "JetMoeForCausalLM",
            d(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_layers=12, num_kv_heads=16,
              tie_embeddings=True, max_positions=4096),
            MOE, FLOOR_HEADS, NO_WINDOW,
            {"num_experts": Field(("num_local_experts",), 8, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 2, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
             "num_heads": Field(("num_attention_heads",), Derived(lambda v: v["num_kv_heads"] * v["experts_per_token"],
                                                                  "num_key_value_heads × num_experts_per_tok"),
                                null="none", doc="query heads (num_key_value_heads × num_experts_per_tok)"),
             "head_dim": Field(("head_dim", "kv_channels"), 128, doc="width of each attention head (kv_channels)"),
             "rope_head_dim": Field(("head_dim", "kv_channels"), 128, doc="width of each attention head (kv_channels)"),
             "attention_experts": fixed(True), "experts_out_bias": fixed(True), "router_name": fixed("layer"),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(False), "mlp_names": fixed(("input_linear", "output_linear")),
             # (JetMoeConfig refuses more experts per token than experts: elsewhere only the forward pass fails)
             "top_k_over_experts": fixed("refused"), "without_experts": fixed("refused")},
            float_keys=("num_attention_heads",)),
)


def _diffllama(spec) -> list[Problem]:
    """DiffLlamaAttention refuses an odd num_key_value_heads (its two-call differential attention splits the values
    along the key/value heads) and an attention_dropout over 0."""
    v, out = spec.values, []
    kv = v.get("num_kv_heads")
    if type(kv) is int and kv % 2:
        out.append(Problem("error", "LC103", f"num_key_value_heads ({kv}) is odd: DiffLlamaAttention splits the values "
                                             "along the key/value heads in two and refuses the config (give an even "
                                             "number)", spec.key_span("num_kv_heads") or spec.key_span("num_heads")
                           or spec.span))
    dropout = v.get("attention_dropout")
    if isinstance(dropout, float) and dropout > 0:
        out.append(Problem("error", "LC103", f'"attention_dropout": {dropout}: DiffLlamaAttention refuses any dropout '
                                             "(the differential attention defines none)",
                           spec.key_span("attention_dropout") or spec.span))
    return out


NO_BIAS = {name: fixed(False) for name in ("q_bias", "k_bias", "v_bias", "o_bias", "mlp_bias")}

FAMILIES += (
    # Ministral 3 (Ministral-3-3B/8B/14B, the text model of Mistral 3's 2512 releases): Mistral's layout with no
    # biases, head_dim 128 and YaRN rotary positions by default, and every layer sliding while sliding_window is set
    # (unset by default), unless layer_types says otherwise.
    decoder("ministral3", "Ministral3ForCausalLM", d(pad_token_id=11),
            d(vocab_size=131072, intermediate_size=14336, num_layers=34, num_kv_heads=8, max_positions=262144),
            NO_BIAS,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             # Ministral3Config's rope_parameters, where none (or a null) is given: YaRN's.
             "rope_parameters": replace(ROPE["rope_parameters"], default={
                 "type": "yarn", "rope_theta": 1000000.0, "factor": 16.0, "original_max_position_embeddings": 16384,
                 "beta_fast": 32.0, "beta_slow": 1.0, "mscale_all_dim": 1.0, "mscale": 1.0,
                 "llama_4_scaling_beta": 0.1}, null="default"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: ("sliding_attention" if v["sliding_window"] is not None else "full_attention",)
                 * v["num_layers"],
                 "every layer sliding while sliding_window is set"), "strs", null="default")}),
    # MiniMax-M2: grouped-query attention with RMS norms over all heads' q and k, every layer a mixture of experts
    # as wide as intermediate_size behind a router of one weight (its score correction bias is a buffer); no
    # sliding window. (Its checkpoints' rotary_dim, which MiniMaxM2Config turns into partial_rotary_factor where the
    # file gives none, is not read: no parameters depend on it, only the odd-width RoPE check of an odd head_dim.)
    decoder("minimax_m2", "MiniMaxM2ForCausalLM",
            d(vocab_size=200064, hidden_size=3072, intermediate_size=1536, num_layers=62, num_heads=48, num_kv_heads=8,
              max_positions=196608),
            MOE, NO_BIAS, NO_WINDOW,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "qk_norm": fixed("full"),
             # (num_experts is MiniMaxM2Config's attribute_map alias: set after num_local_experts, it wins)
             "num_experts": Field(("num_experts", "num_local_experts"), 256, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": EXPERT_WIDTH_IS_MLP},
            heads={"MiniMaxM2ForCausalLM": "causal_lm", "MiniMaxM2Model": "base"}),
    # FlexOlmo: OLMo 2's block (RMS norms over all heads' q and k, norms after attention and after the MLP) with
    # every layer a mixture of experts as wide as intermediate_size behind a router of one weight.
    decoder("flex_olmo", "FlexOlmoForCausalLM", d(pad_token_id=100277), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=100352, max_positions=4096), MOE, NO_WINDOW,
            {"qk_norm": fixed("full"), "mlp_bias": fixed(False),
             "layer_norms": fixed(("post_attention_layernorm", "post_feedforward_layernorm")),
             # (num_local_experts is FlexOlmoConfig's attribute_map alias: set after num_experts, it wins)
             "num_experts": Field(("num_local_experts", "num_experts"), 7, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 5, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": EXPERT_WIDTH_IS_MLP},
            nulls(num_kv_heads="default"),
            heads={"FlexOlmoForCausalLM": "causal_lm", "FlexOlmoModel": "base"}),
    # Solar Open: Llama's attention (q/k/v biases by attention_bias, none on o_proj) and every layer GLM-4-MoE's
    # mixture of experts: a router of one float32 weight (its score correction bias a buffer), routed experts and
    # n_shared_experts shared ones, moe_intermediate_size wide; no dense MLP.
    decoder("solar_open", "SolarOpenForCausalLM",
            d(vocab_size=196608, num_layers=48, num_heads=64, num_kv_heads=8, max_positions=131072),
            MOE, NO_WINDOW,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "intermediate_size": fixed(0), "o_bias": fixed(False), "mlp_bias": fixed(False),
             # (num_local_experts is SolarOpenConfig's attribute_map alias: set after n_routed_experts, it wins)
             "num_experts": Field(("num_local_experts", "n_routed_experts"), 128, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 1280, doc=MOE["moe_intermediate_size"].doc),
             "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": shared_experts_width("n_shared_experts")},
            heads={"SolarOpenForCausalLM": "causal_lm", "SolarOpenModel": "base"},
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    # Granite with sliding windows: Granite's layout, a learned sink logit per head, and three sliding-window layers
    # of every four (the first of each four full) unless layer_types says otherwise.
    decoder("granite_swa", "GraniteSWAForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=100352, hidden_size=2560, intermediate_size=8192, num_layers=24, num_heads=20, num_kv_heads=4,
              tie_embeddings=True, max_positions=8192, sliding_window=128),
            {"attention_sinks": fixed(True),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("full_attention" if i % 4 == 0 else "sliding_attention" for i in range(v["num_layers"])),
                 "the first layer of every four full, the others sliding"), "strs", null="default")},
            nulls(num_kv_heads=KV_HEADS, sliding_window="none"),
            heads={"GraniteSWAForCausalLM": "causal_lm", "GraniteSWAModel": "base"},
            checks=(layer_list_length("layer_types"),)),
    # BitNet b1.58: Llama's layout with an RMS norm over the heads' output before o_proj (attn_sub_norm, hidden_size
    # wide) and one over the gated product before down_proj (ffn_sub_norm); biases on every attention projection by
    # attention_bias. (Its weights are ternary only in the quantized checkpoints; the count is the same.)
    decoder("bitnet", "BitNetForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=128256, hidden_size=2560, intermediate_size=6912, num_layers=30, num_heads=20, num_kv_heads=5),
            NO_WINDOW,
            {"mlp_bias": fixed(False), "attn_sub_norm": fixed(True), "mlp_sub_norm": fixed(True)},
            nulls(num_kv_heads=KV_HEADS),
            heads={"BitNetForCausalLM": "causal_lm", "BitNetModel": "base"}),
    # DiffLlama (differential attention): Llama's layout with four learned λ vectors (head_dim each) per attention
    # layer, and a group norm with no weights; biases on every attention projection by attention_bias.
    decoder("diffllama", "DiffLlamaForCausalLM", d(vocab_size=32000, hidden_size=2048, intermediate_size=8192,
                                                   num_layers=16),
            NO_WINDOW, FLOOR_HEADS,
            {"mlp_bias": fixed(False), "diff_lambdas": fixed(True),
             "attention_dropout": Field(("attention_dropout",), 0.0, "float",
                                        doc="attention dropout (DiffLlama refuses any above 0; no parameters)")},
            nulls(num_kv_heads="default", head_dim="default"), checks=(_diffllama,)),
)


FAMILIES += (
    # EXAONE MoE (K-EXAONE): EXAONE 4's attention (RMS norms over each head's q and k, no biases) with norms before
    # attention and the MLP, three sliding-window layers of every four (sliding_window_pattern), and DeepSeek-V3's
    # mixture of experts in the layers mlp_layer_types calls "sparse" (from first_k_dense_replace on, by default): a
    # router of one float32 weight (its score correction bias a buffer), routed experts and num_shared_experts
    # shared ones, moe_intermediate_size wide.
    decoder("exaone_moe", "ExaoneMoeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=102400, intermediate_size=16384, num_kv_heads=32, sliding_window=4096),
            MOE, QK_HEAD, NO_BIAS,
            {"num_experts": Field(("num_experts",), 64, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 1024, doc=MOE["moe_intermediate_size"].doc),
             "num_shared_experts": Field(("num_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": shared_experts_width("num_shared_experts"),
             "first_k_dense_replace": Field(("first_k_dense_replace",), 1, minimum=0,
                                            doc="layers before the first mixture of experts (where mlp_layer_types "
                                                "is not given)"),
             **MLP_LAYER_TYPES_AFTER_DENSE,
             **SLIDING_BUT_EVERY_PATTERN_TH},
            nulls(sliding_window="reject"),  # (ExaoneMoeConfig declares a whole number: strict, it refuses a null)
            heads={"ExaoneMoeForCausalLM": "causal_lm", "ExaoneMoeModel": "base"},
            checks=(lambda spec: _pattern_layer_types(spec, "ExaoneMoeConfig"),
                    layer_list_length("layer_types", "mlp_layer_types", allowed={"mlp_layer_types": ("sparse", "dense")})),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    # Granite MoE with sliding windows: Granite MoE Shared's layout (experts as wide as intermediate_size behind a
    # router of one weight, an optional shared MLP shared_intermediate_size wide), a learned sink logit per head, and
    # three sliding-window layers of every four (the first of each four full) unless layer_types says otherwise.
    decoder("granitemoe_swa", "GraniteMoeSWAForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS, d(sliding_window=128), MOE,
            {"moe_intermediate_size": EXPERT_WIDTH_IS_MLP, "mlp_bias": fixed(False), "router_name": fixed("router"),
             "num_experts": Field(("num_local_experts",), 8, doc=MOE["num_experts"].doc),
             "shared_intermediate_size": Field(("shared_intermediate_size",), 0, minimum=0,
                                               doc="width of the always-on shared expert (0: none)"),
             "mlp_names": fixed(("input_linear", "output_linear")), "attention_sinks": fixed(True),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("full_attention" if i % 4 == 0 else "sliding_attention" for i in range(v["num_layers"])),
                 "the first layer of every four full, the others sliding"), "strs", null="default")},
            nulls(num_kv_heads="default", experts_per_token="none", sliding_window="none"),
            heads={"GraniteMoeSWAForCausalLM": "causal_lm", "GraniteMoeSWAModel": "base"},
            checks=(layer_list_length("layer_types"),)),
)


def _afmoe_layer_types(spec) -> list[Problem]:
    """With no layer_types, AfmoeConfig derives them modulo global_attn_every_n_layers, which fails for a null or
    a 0 there."""
    n = spec.values.get("global_attn_every_n_layers")
    if "layer_types" in spec.origins or (type(n) is int and n >= 1):
        return []
    return [Problem("error", "LC102", f'"global_attn_every_n_layers": {json.dumps(n)} with no "layer_types": '
                                      "AfmoeConfig derives the layer types modulo it, which fails (give a positive "
                                      "whole number, or layer_types)",
                    spec.key_span("global_attn_every_n_layers") or spec.span)]


FAMILIES += (
    # AFMoE (Arcee Trinity): grouped-query attention with RMS norms over each head's q and k and a sigmoid gate over
    # the heads' output (its own gate_proj), norms before and after attention and the MLP, three sliding-window
    # layers of every four (global_attn_every_n_layers); dense layers first (num_dense_layers), then mixtures of
    # experts: a router of one nn.Linear (router.gate), routed experts and num_shared_experts shared ones,
    # moe_intermediate_size wide, and a float32 per-expert routing bias with no gradient.
    decoder("afmoe", "AfmoeForCausalLM",
            d(vocab_size=200192, hidden_size=2048, intermediate_size=6144, num_heads=16, max_positions=16384,
              sliding_window=1024),
            MOE, QK_HEAD,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "mlp_bias": fixed(False),
             "attn_output_gate": fixed(True), "frozen_expert_bias": fixed("expert_bias"),
             "layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "pre_mlp_layernorm",
                                   "post_mlp_layernorm")),
             "num_experts": Field(("num_experts",), 64, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 6, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 1408, doc=MOE["moe_intermediate_size"].doc),
             "num_shared_experts": Field(("num_shared_experts",), 2, minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": shared_experts_width("num_shared_experts"),
             "moe_layers": fixed("first_k_dense"),
             "first_k_dense_replace": Field(("num_dense_layers",), 1, minimum=0,
                                            doc="dense layers before the mixtures of experts"),
             "global_attn_every_n_layers": Field(("global_attn_every_n_layers",), 4, "int?", minimum=0,
                                                 doc="every how many layers one attends to the whole context"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if (i + 1) % _positive(v["global_attn_every_n_layers"])
                                 else "full_attention" for i in range(v["num_layers"])),
                 "sliding but every global_attn_every_n_layers-th layer"), "strs", null="default")},
            nulls(num_kv_heads="default", experts_per_token="none"),
            heads={"AfmoeForCausalLM": "causal_lm", "AfmoeModel": "base"},
            checks=(_afmoe_layer_types, layer_list_length("layer_types")),
            fp32_modules=("input_layernorm", "post_attention_layernorm", "pre_mlp_layernorm", "post_mlp_layernorm",
                          "q_norm", "k_norm", "norm"),
            fp32_modules_strict=("expert_bias",),
            router_holds_linear=True),  # AfmoeTokenChoiceRouter.gate: an nn.Linear
)


FAMILIES += (
    # Aria's text model (aria_text: AriaTextForCausalLM, AriaTextModel): Llama's attention; in every layer a mixture of
    # experts, intermediate_size wide each, behind a router parameter (not an nn.Linear), and moe_num_shared_experts
    # shared experts side by side as one gated MLP (built at any count: at 0 it has no width).
    decoder("aria_text", "AriaTextForCausalLM",
            d(intermediate_size=4096, max_positions=2048, pad_token_id=2), MOE, STRICT_HEADS,
            {"num_experts": Field(("moe_num_experts",), 8, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("moe_topk",), 2, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": EXPERT_WIDTH_IS_MLP,
             "num_shared_experts": Field(("moe_num_shared_experts",), 2, minimum=0,
                                         doc="shared experts (always on), intermediate_size wide each"),
             "shared_intermediate_size": fixed(Derived(lambda v: v["intermediate_size"] * v["num_shared_experts"],
                                                       "intermediate_size × moe_num_shared_experts")),
             "shared_expert_always": fixed(True)},
            nulls(num_kv_heads="default", head_dim="default"),
            heads={"AriaTextForCausalLM": "causal_lm", "AriaTextModel": "base"}),
)


# An output gate over the heads' output from the layer's input, g_proj: one gate per head where gating is true or
# "per-head", else one per channel (Step 3.7's text model, Laguna).
G_PROJ_OUTPUT_GATE: dict[str, Field] = {
    "attn_output_gate": fixed(True), "attn_output_gate_name": fixed("g_proj"),
    "gating": Field(("gating",), True, "any", doc='true or "per-head": one output gate per head, else per channel'),
    "attn_output_gate_per_head": fixed(Derived(lambda v: v["gating"] is True or v["gating"] == "per-head",
                                               'gating is true or "per-head"')),
}


def _laguna_heads(v, layer_type: str) -> int | None:
    """The query heads of Laguna's ``layer_type`` layers (num_attention_heads_per_layer); None where it has none of
    them, or where they differ (_laguna_uniform_heads refuses that)."""
    types, heads = tuple(v["layer_types"] or ()), v["heads_per_layer"]
    found = {heads[i] for i in range(min(len(types), len(heads))) if types[i] == layer_type}
    return found.pop() if len(found) == 1 else None


def _laguna_uniform_heads(spec) -> list[Problem]:
    """The layout builds a stack's full-attention layers alike and its sliding-window layers alike: per-layer head
    counts that differ within either are not modelled."""
    v = spec.values
    types, heads = v.get("layer_types"), v.get("heads_per_layer")
    if not isinstance(types, tuple) or not isinstance(heads, tuple):
        return []
    for layer_type in ("full_attention", "sliding_attention"):
        found = sorted({heads[i] for i in range(min(len(types), len(heads))) if types[i] == layer_type})
        if len(found) > 1:
            label = "full-attention" if layer_type == "full_attention" else "sliding-window"
            return [Problem("error", "LC101", f'"num_attention_heads_per_layer": the {label} layers have '
                                              f"{', '.join(map(str, found))} query heads: lsp-count counts "
                                              "per-layer heads that are one number for the full-attention layers and "
                                              "one for the sliding-window layers",
                            spec.key_span("heads_per_layer") or spec.span)]
    return []


def _laguna_gating(spec) -> list[Problem]:
    """LagunaConfig's gating is a strict ``bool | str`` field: a null or another type is refused."""
    gating = spec.values.get("gating")
    if "gating" not in spec.origins or isinstance(gating, (bool, str)):
        return []
    return [Problem("error", "LC102", f'"gating": {json.dumps(gating)} is not true, false or a text such as "per-head": '
                                      "LagunaConfig rejects it", spec.key_span("gating") or spec.span)]


FAMILIES += (
    # Laguna (Poolside): grouped-query attention with RMS norms over each head's q and k and a softplus gate over the
    # heads' output (g_proj: one gate per head where gating is true or "per-head", else one per channel); each
    # layer's query heads from num_attention_heads_per_layer (the KV heads are the same in all); full or sliding-window
    # layers (layer_types); a dense first layer, then mixtures of experts (mlp_layer_types): a router parameter with
    # a per-expert selection bias that does not train (gate.e_score_correction_bias), fused routed experts and one
    # shared expert shared_expert_intermediate_size wide.
    decoder("laguna", "LagunaForCausalLM",
            d(vocab_size=100352, hidden_size=2048, intermediate_size=8192, num_layers=40, max_positions=131072,
              sliding_window=512),
            MOE, QK_HEAD,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
             "heads_written": Field(("num_attention_heads",), 48, doc=BASE["num_heads"].doc),
             "heads_per_layer": Field(("num_attention_heads_per_layer",), Derived(
                 lambda v: (v["heads_written"],) * v["num_layers"], "num_attention_heads in every layer"), "ints",
                 null="default", doc="query heads of each layer"),
             "num_heads": fixed(Derived(lambda v: _laguna_heads(v, "full_attention") or v["heads_written"],
                                        "the full-attention layers' num_attention_heads_per_layer")),
             "sliding_num_heads": fixed(Derived(lambda v: _laguna_heads(v, "sliding_attention"),
                                                "the sliding-window layers' num_attention_heads_per_layer")),
             "layer_types": Field(("layer_types",), Derived(lambda v: ("full_attention",) * v["num_layers"],
                                                            "full attention in every layer"), "strs", null="default"),
             "mlp_bias": fixed(False),
             **G_PROJ_OUTPUT_GATE,
             "num_experts": Field(("num_experts",), 256, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 8, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("moe_intermediate_size",), 512, doc=MOE["moe_intermediate_size"].doc),
             "shared_intermediate_size": Field(("shared_expert_intermediate_size",), 512, minimum=0,
                                               doc="width of the always-on shared expert"),
             "shared_expert_always": fixed(True), "router_frozen_bias": fixed(True),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(dense_then_sparse, "dense, then sparse")},
            nulls(sliding_window="reject"),  # (a strict int field: a null is refused)
            heads={"LagunaForCausalLM": "causal_lm", "LagunaModel": "base"},
            checks=(layer_list_length("layer_types", "mlp_layer_types", "heads_per_layer"), _laguna_uniform_heads,
                    _laguna_gating),
            rope=False),
)


def _cohere2_moe_layer_types(v) -> tuple[str, ...]:
    """Cohere2MoeConfig's layer types where the file gives none: the first_k_dense_replace dense layers slide but
    every prefix_dense_sliding_window_pattern-th, the others but every sliding_window_pattern-th (counted afresh)."""
    k = min(v["first_k_dense_replace"], v["num_layers"]) if v["first_k_dense_replace"] is not None else None
    prefix, rest = _positive(v["prefix_dense_sliding_window_pattern"]), _positive(v["sliding_window_pattern"])
    return (tuple("sliding_attention" if (i + 1) % prefix else "full_attention" for i in range(_positive_or_zero(k)))
            + tuple("sliding_attention" if (i + 1) % rest else "full_attention"
                    for i in range(v["num_layers"] - _positive_or_zero(k))))


def _positive_or_zero(n: object) -> int:
    if type(n) is not int or n < 0:
        raise ValueError(n)
    return n


# The mapping Cohere2MoeConfig keeps as written is checked before anything fills it, and its rotary embedding reads
# rope_theta there for the default type.
COHERE2_WRITTEN_ROPE_TYPES = {**{t: keys for t, keys in ROPE_TYPE_REQUIRED.items() if t != "axial"},
                              "default": ("rope_theta",)}


def _cohere2_moe(spec) -> list[Problem]:
    """Cohere2MoeConfig keeps a rope_parameters as written (its rotary embedding reads rope_type there, and for the
    default type rope_theta, and fails without them, or with a null); it derives the layer types it
    is not given from first_k_dense_replace (a key it pops: null fails there) and the two window patterns (each a
    positive whole number: 0 fails), and the MLP layer types from first_k_dense_replace."""
    v = spec.values
    out = []
    rope = v.get("rope_parameters_written")
    if "rope_parameters_written" in spec.origins and not (
            isinstance(rope, dict) and "rope_type" in rope and (rope["rope_type"] != "default" or "rope_theta" in rope)):
        said = "null" if rope is None else "no rope_type" if not isinstance(rope, dict) or "rope_type" not in rope \
            else 'rope_type "default" with no rope_theta'
        out.append(Problem("error", "LC102", f'"rope_parameters": {said}: Cohere2MoeConfig keeps the mapping as '
                                             "written, and its rotary embedding reads rope_type there (and, for the "
                                             "default type, rope_theta): leave it out for rope_theta's",
                           spec.key_span("rope_parameters_written") or spec.span))
    elif isinstance(rope, dict) and (problem := rope_entry_problem(rope, COHERE2_WRITTEN_ROPE_TYPES, '"rope_parameters"',
                                                                   spec.key_span("rope_parameters_written"))):
        out.append(problem)
    elif isinstance(rope, dict) and type(v.get("head_dim")) is int:
        # (the check on the class's own parameters, hf_config._rotary_width_problems, does not see this mapping)
        factor = rope.get("partial_rotary_factor", 1.0)
        turned = int(v["head_dim"] * factor) if isinstance(factor, (int, float)) and not isinstance(factor, bool) \
            and math.isfinite(factor) else None
        unbuilt = unbuilt_rotary(rope.get("rope_type"), turned)
        if unbuilt is not None:
            kind, reason = unbuilt
            out.append(Problem("error", "LC103", f"head_dim {v['head_dim']} rotates {turned} values under {kind} "
                                                 f"(partial_rotary_factor {factor} in rope_parameters), "
                                                 + reason.format(share="partial_rotary_factor"),
                               spec.key_span("rope_parameters_written") or spec.span))
    if v.get("first_k_dense_replace") is None and ("layer_types" not in spec.origins
                                                   or "mlp_layer_types" not in spec.origins):
        out.append(Problem("error", "LC102", '"first_k_dense_replace": null: Cohere2MoeConfig derives the layer types '
                                             "from it and fails (leave it out for 0)",
                           spec.key_span("first_k_dense_replace") or spec.span))
    if "layer_types" not in spec.origins:
        for name in ("sliding_window_pattern", "prefix_dense_sliding_window_pattern"):
            if v.get(name) == 0:
                out.append(Problem("error", "LC102", f'"{spec.key_label(name)}": 0 with no "layer_types": '
                                                     "Cohere2MoeConfig derives the layer types modulo it, which fails",
                                   spec.key_span(name) or spec.span))
    return out


FAMILIES += (
    # Cohere 2 MoE (Command A MoE): Cohere 2's parallel block (one norm: an RMS norm, or where rms_norm_eps is null
    # a bias-free LayerNorm, one weight either way; biases on every attention projection by attention_bias), and
    # mixtures of experts as wide as intermediate_size behind a router of one weight, with num_shared_experts shared
    # ones as wide (none by default), in the layers mlp_layer_types calls "sparse"; the first first_k_dense_replace
    # layers dense (prefix_dense_intermediate_size wide, else intermediate_size), each with its own window pattern.
    decoder("cohere2_moe", "Cohere2MoeForCausalLM", d(pad_token_id=0),
            d(vocab_size=256000, hidden_size=8192, num_layers=40, num_heads=64, tie_embeddings=True, max_positions=8192,
              sliding_window=4096),
            MOE,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "mlp_bias": fixed(False),
             "norm": fixed("rms"), "layer_norms": fixed(("input_layernorm",)),
             "num_experts": Field(("num_experts",), 8, doc=MOE["num_experts"].doc),
             "experts_per_token": Field(("num_experts_per_tok",), 2, doc=MOE["experts_per_token"].doc),
             "moe_intermediate_size": Field(("intermediate_size",), 22528,
                                            doc="width of each expert's MLP (and of the dense layers' by default)"),
             "intermediate_size": Field(("prefix_dense_intermediate_size",), Derived(
                 lambda v: v["moe_intermediate_size"], "intermediate_size"), "int?", minimum=0, null="default",
                 doc="width of the dense layers' MLP"),
             "num_shared_experts": Field(("num_shared_experts",), 0, minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": shared_experts_width("num_shared_experts"),
             "first_k_dense_replace": Field(("first_k_dense_replace",), 0, "int?", minimum=0,
                                            doc="dense layers before the first mixture of experts (where "
                                                "mlp_layer_types is not given)"),
             **MLP_LAYER_TYPES_AFTER_DENSE,
             "sliding_window_pattern": Field(("sliding_window_pattern",), 4, minimum=0,
                                             doc="every how many layers one attends to the whole context"),
             "prefix_dense_sliding_window_pattern": Field(("prefix_dense_sliding_window_pattern",), 1, minimum=0,
                                                          doc="the same, among the first first_k_dense_replace layers"),
             "layer_types": Field(("layer_types",), Derived(_cohere2_moe_layer_types,
                                                            "from first_k_dense_replace and the window patterns"),
                                  "strs", null="default")},
            # Cohere2MoeConfig checks the rotary width (validate_rope) on the parameters it builds from rope_theta
            # alone, the whole head rotated, before a rope_parameters the file gives replaces them as written (its
            # rotary embedding then reads that mapping's rope_type and rope_theta: _cohere2_moe); it never reads
            # rope_scaling (a field of its own).
            {"rope_scaling": fixed(None), "rope_parameters": fixed(None), "partial_rotary_factor": fixed(1.0),
             "rope_parameters_written": Field(("rope_parameters",), None, "any",
                                              doc="rotary position settings, as the rotary embedding reads them "
                                                  "(rope_type required, rope_theta for the default type; no "
                                                  "parameters)")},
            nulls(num_kv_heads="default", sliding_window="none"),
            heads={"Cohere2MoeForCausalLM": "causal_lm", "Cohere2MoeModel": "base"},
            checks=(_cohere2_moe, layer_list_length("layer_types", "mlp_layer_types",
                                                    allowed={"mlp_layer_types": ("sparse", "dense")}))),
)

FAMILIES += (
    # Doge (SmallDoge): Llama's layout with RMS norms over each head's q and k, a dynamic mask from the values (dt_proj
    # to one value per key/value head, biased by attention_bias, and A), learned per-channel scales on both residual
    # branches; with is_moe, the MLP is a cross-domain MoE's shared expert beside num_experts retrieval experts (one
    # row each of down_embed and up_embed) behind a router_gate to 2·⌊√num_experts⌋ product keys. Every layer slides
    # while sliding_window is set, unless layer_types says otherwise.
    decoder("doge", "DogeForCausalLM", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=32768, hidden_size=1024, intermediate_size=2048, num_heads=8), QK_HEAD,
            {"dynamic_mask": fixed(True), "residual_scales": fixed(("input_residual", "post_attention_residual")),
             "is_moe": Field(("is_moe",), False, "bool", doc="the MLP is a cross-domain mixture of experts"),
             "moe_experts": Field(("num_experts",), 16384, minimum=0,
                                  doc="retrieval experts of the cross-domain MoE (with is_moe)"),
             "retrieval_experts": fixed(Derived(lambda v: v["moe_experts"] if v["is_moe"] else 0,
                                                "num_experts, with is_moe")),
             "experts_per_token": Field(("num_experts_per_tok",), 64, minimum=0,
                                        doc="retrieval experts each token uses (with is_moe)"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: ("sliding_attention" if v["sliding_window"] is not None else "full_attention",)
                 * v["num_layers"],
                 "every layer sliding while sliding_window is set"), "strs", null="default")},
            nulls(num_kv_heads="default")),
)


def _mistral4_rope(v) -> dict:
    """Mistral4Config's rope_parameters where the file gives none: YaRN over the rotated part of each head."""
    return {"type": "yarn", "rope_theta": 10000.0, "factor": 128.0, "original_max_position_embeddings": 8192,
            "max_position_embeddings": v["max_positions"], "beta_fast": 32.0, "beta_slow": 1.0,
            "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1,
            "partial_rotary_factor": v["qk_rope_head_dim"] / (v["qk_nope_head_dim"] + v["qk_rope_head_dim"])}


FAMILIES += (
    # Mistral Small 4 (Mistral4): DeepSeek-V3's multi-head latent attention (a low-rank query unless q_lora_rank is
    # null) and mixture of experts (shared experts, the first first_k_dense_replace layers dense), its router a bare
    # weight with no score-correction bias. Its config class holds head_dim as qk_nope_head_dim + qk_rope_head_dim
    # (a written head_dim is replaced) and rotates qk_rope_head_dim of it (YaRN by default).
    decoder("mistral4", "Mistral4ForCausalLM", FLOOR_HEADS,
            d(vocab_size=131072, hidden_size=4096, intermediate_size=12288, num_layers=36, num_heads=32,
              num_kv_heads=32, max_positions=1048576, pad_token_id=11, experts_per_token=4,
              moe_intermediate_size=2048, n_shared_experts=1, first_k_dense_replace=0, q_lora_rank=1024,
              kv_lora_rank=256, qk_nope_head_dim=64, qk_rope_head_dim=64, v_head_dim=128),
            MOE, DEEPSEEK,
            {"num_experts": Field(("n_routed_experts", "num_local_experts"), 128, doc=MOE["num_experts"].doc),
             "rope_head_dim": fixed(Derived(lambda v: v["qk_nope_head_dim"] + v["qk_rope_head_dim"],
                                            "qk_nope_head_dim + qk_rope_head_dim")),
             # (set in rope_parameters before a top-level partial_rotary_factor is read, which is then not)
             "partial_rotary_factor": fixed(Derived(
                 lambda v: v["qk_rope_head_dim"] / (v["qk_nope_head_dim"] + v["qk_rope_head_dim"]),
                 "qk_rope_head_dim / (qk_nope_head_dim + qk_rope_head_dim)")),
             "rope_parameters": Field(("rope_parameters",), Derived(_mistral4_rope, "YaRN over the rotated part"),
                                      "any", null="default", doc=ROPE["rope_parameters"].doc)},
            DEEPSEEK_NULLS,
            heads={"Mistral4ForCausalLM": "causal_lm", "Mistral4Model": "base",
                   "Mistral4ForSequenceClassification": "sequence_classification"}),
)


def _longcat_top_k(spec) -> list[Problem]:
    """LongcatFlashConfig refuses a null moe_topk (its num_experts_per_tok alias, set after its checks, keeps one)."""
    if spec.key_name("experts_per_token") == "moe_topk" and spec.values.get("experts_per_token") is None:
        return [Problem("error", "LC102", '"moe_topk": null is not a whole number: transformers\' config class '
                                          "rejects it (leaving the key out takes the default, 12)",
                        spec.key_span("experts_per_token") or spec.span)]
    return []


def _longcat_layers(v) -> int:
    """LongcatFlashConfig's decoder layers: num_layers, or half a num_hidden_layers the file gives (a property
    whose setter sets num_layers = value // 2, after num_layers: it wins)."""
    written = v["decoder_layers_written"]
    return v["num_layers_key"] if written is None else written // 2


FAMILIES += (
    # LongCat-Flash: each layer holds two attention sublayers (DeepSeek-V3's multi-head latent attention, always a
    # low-rank query; its query/key heads qk_head_dim wide), each followed by a dense MLP (ffn_hidden_size), and one
    # shortcut MoE beside them whose router (router.classifier, an nn.Linear) also scores zero_expert_num identity
    # experts with no parameters. Its config counts the attention sublayers as num_hidden_layers (2 × num_layers).
    # (Its attribute_map aliases, intermediate_size, ..., win over the keys they stand for where both are written.)
    decoder("longcat_flash", "LongcatFlashForCausalLM", FLOOR_HEADS,
            d(vocab_size=131072, hidden_size=6144, num_heads=64, max_positions=131072, q_lora_rank=1536,
              kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128),
            MOE, DEEPSEEK,
            {"num_layers_key": Field(("num_layers",), 28, doc="decoder layers (each with two attention sublayers)"),
             # (1 builds a model with no layers, which is refused here as num_layers 0 is)
             "decoder_layers_written": Field(("num_hidden_layers",), None, "int?", minimum=2, null="reject",
                                             doc="attention sublayers, two a layer (sets num_layers to half of it)"),
             "num_layers": fixed(Derived(_longcat_layers, "num_layers, or num_hidden_layers / 2")),
             "dual_sublayers": fixed(True),
             "intermediate_size": Field(("intermediate_size", "ffn_hidden_size"), 12288,
                                        doc="width of each of a layer's two dense MLPs"),
             "moe_intermediate_size": Field(("moe_intermediate_size", "expert_ffn_hidden_size"), 2048,
                                            doc=MOE["moe_intermediate_size"].doc),
             "num_experts": Field(("num_local_experts", "n_routed_experts"), 512, doc=MOE["num_experts"].doc),
             # (a null num_experts_per_tok is kept, an unknown top-k; a null moe_topk refused: _longcat_top_k)
             "experts_per_token": Field(("num_experts_per_tok", "moe_topk"), 12, null="none",
                                        doc="experts each token is routed to (top-k, zero experts included)"),
             "zero_experts": Field(("zero_expert_num",), 256, minimum=0,
                                   doc="zero-computation (identity) experts the router also scores"),
             "router_name": fixed("classifier"),
             "router_bias": Field(("router_bias",), False, "bool", null="false", doc="a bias on the router"),
             "q_lora_rank": Field(("q_lora_rank",), 1536, doc="rank of the low-rank query projection"),
             "qk_head_dim": Field(("qk_head_dim",), Derived(lambda v: v["qk_nope_head_dim"] + v["qk_rope_head_dim"],
                                                            "qk_nope_head_dim + qk_rope_head_dim"), null="default",
                                  doc="width of each query and key head"),
             "n_shared_experts": fixed(0), "first_k_dense_replace": fixed(0), "moe_layers": fixed("all"),
             "rope_head_dim": Field(("head_dim",), 64, doc=ROTATED_HEAD_DIM)},
            nulls(num_kv_heads=KV_HEADS),
            heads={"LongcatFlashForCausalLM": "causal_lm", "LongcatFlashModel": "base"},
            notes=("LongCat-Flash checkpoints also hold a multi-token-prediction layer (model.mtp) that transformers "
                   "does not build; it is not counted",
                   "its active parameters count the top-k experts as real ones; a token routed to zero experts uses "
                   "fewer"),
            checks=(_longcat_top_k,), float_keys=("num_experts_per_tok",),
            fp32_modules=("classifier.weight",)),
)


def _mimo_rope_default(v) -> dict:
    """MiMoV2FlashConfig's rope_parameters where the file gives none: one entry per attention type."""
    return {"full_attention": {"rope_type": "default", "rope_theta": 5_000_000.0, "partial_rotary_factor": 0.334},
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0, "partial_rotary_factor": 0.334}}


def _mimo_rope_layer_types(v) -> tuple[str, ...]:
    """The attention types whose rope_parameters entry the model builds a rotary embedding from: those layer_types
    holds, but where the entry is null (no rotary embedding: skipped)."""
    params = v["rope_parameters"]
    return tuple(t for t in dict.fromkeys(v["layer_types"] or ())
                 if not (isinstance(params, dict) and t in params and params[t] is None))


def rope_per_layer_type(config_class: str) -> Callable[..., list[Problem]]:
    """A check for a config class (MiMoV2FlashConfig, MellumConfig) that keeps rope_parameters (or a rope_scaling,
    which replaces it) as written, with no standardizing: its rotary embedding reads an entry for each attention type
    the layers use."""
    def check(spec) -> list[Problem]:
        return _rope_per_layer_type(spec, config_class)
    return check


def _rope_per_layer_type(spec, config_class: str) -> list[Problem]:
    v = spec.values
    if "rope_scaling_key" in spec.origins and v["rope_scaling_key"] is None:  # (a null rope_parameters is as if absent)
        return [Problem("error", "LC102", f'"rope_scaling": null is not allowed here: {config_class} takes it for '
                                          "its rope_parameters, which its rotary embedding cannot be built from",
                        spec.key_span("rope_scaling_key") or spec.span)]
    if "rope_parameters" not in spec.origins:
        return []
    params, key = v["rope_parameters"], spec.key_name("rope_parameters")
    types = tuple(dict.fromkeys(t for t in (v.get("layer_types") or ())[:v["num_layers"]]))
    missing = [t for t in types if not isinstance(params, dict) or t not in params]
    if missing:
        return [Problem("error", "LC103", f'"{key}": no entry for "{missing[0]}" ({config_class} keeps it as '
                                          "written, one mapping per attention type: its rotary embedding cannot be "
                                          "built)", spec.key_span("rope_parameters") or spec.span)]
    return []


_mimo_rope = rope_per_layer_type("MiMoV2FlashConfig")


# MiMo-V2-Flash's rope_parameters entries are read as written (no rope_theta, no original length filled in).
MIMO_ROPE_TYPES = {t: tuple(dict.fromkeys(("rope_theta",) + keys)) for t, keys in ROPE_TYPE_REQUIRED.items()
                   if t != "axial"}

FAMILIES += (
    # MiMo-V2-Flash: grouped-query attention whose values are v_head_dim wide (o_proj from num_attention_heads ×
    # v_head_dim); its sliding-window layers (layer_types: all but the first and every sixth) have twice the key/value
    # heads and a learned sink per head. Its MoE (DeepSeek-V3's router, a float32 weight, no shared experts) in the
    # layers mlp_layer_types calls "sparse" (all but the first, by default).
    decoder("mimo_v2_flash", "MiMoV2FlashForCausalLM",
            d(vocab_size=152576, hidden_size=4096, intermediate_size=16384, num_layers=48, num_heads=64,
              max_positions=131072, experts_per_token=8, moe_intermediate_size=2048),
            MOE,
            {"num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
             "head_dim": Field(("head_dim",), 192, doc="width of each query and key head"),
             "value_head_dim": Field(("v_head_dim",), 128, doc="width of each value head"),
             "o_bias": fixed(False), "mlp_bias": fixed(False),
             "num_experts": Field(("num_local_experts", "n_routed_experts"), 256, doc=MOE["num_experts"].doc),
             "sliding_kv_mult": fixed(2), "attention_sinks": fixed("sliding"),
             "sliding_window_key": Field(("sliding_window",), 129, doc="tokens a sliding-window layer sees"),
             "sliding_window_size": Field(("sliding_window_size",), None, "int?", minimum=0, null="default",
                                          doc="the window as the reference implementation counts it (one less)"),
             "sliding_window": fixed(Derived(lambda v: v["sliding_window_key"] if v["sliding_window_size"] is None
                                             else v["sliding_window_size"] + 1,
                                             "sliding_window, or sliding_window_size + 1")),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("full_attention" if i == 0 or not (i + 1) % 6 else "sliding_attention"
                                 for i in range(v["num_layers"])),
                 "full attention in the first and every sixth layer, else sliding"), "strs", null="default"),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(lambda v: ("dense",) + ("sparse",) * (v["num_layers"] - 1),
                                                "dense, then sparse"),
             # rope_parameters per attention type, as written (a rope_scaling key replaces it, even a null one).
             "rope_parameters": Field(("rope_scaling", "rope_parameters"), Derived(_mimo_rope_default,
                                                                                   "one entry per attention type"),
                                      "any", null=("rope_parameters",), doc=ROPE["rope_parameters"].doc),
             # (the share its default entries rotate; an entry the file gives rotates its own, else all)
             "rope_scaling": fixed(None), "partial_rotary_factor": fixed(0.334),
             "rope_scaling_key": Field(("rope_scaling",), None, "any",
                                       doc="rotary position settings under their old name (replace rope_parameters)"),
             "rope_scaling_layer_types": fixed(()),
             "rope_layer_types": fixed(Derived(_mimo_rope_layer_types, "the layer types with a rotary embedding")),
             "rope_types": fixed(MIMO_ROPE_TYPES)},
            heads={"MiMoV2FlashForCausalLM": "causal_lm", "MiMoV2FlashModel": "base"},
            checks=(layer_list_length("layer_types", "mlp_layer_types",
                                      allowed={"layer_types": ("full_attention", "sliding_attention"),
                                               "mlp_layer_types": ("dense", "sparse")}), _mimo_rope),
            fp32_modules_strict=("e_score_correction_bias", "mlp.gate.weight")),
)


# CWM's rope_parameters where the file gives none (or a null): Llama 3's scaling.
CWM_ROPE = {"rope_theta": 1_000_000.0, "factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192, "rope_type": "llama3"}

FAMILIES += (
    # nanochat (Karpathy): norms with no weights at all (an RMS norm of the embeddings, of each layer's two
    # branches, of each head's q and k, and the final one: none has parameters), an MLP of fc1 and fc2 (relu², no
    # gate, no biases), biases on every attention projection by attention_bias, an untied head (its logits soft-capped
    # by final_logit_softcapping: no parameters). No sliding window.
    decoder("nanochat", "NanoChatForCausalLM", d(pad_token_id=1), WRITTEN_HEAD_DIM, FLOOR_HEADS,
            d(vocab_size=50304, hidden_size=768, intermediate_size=8192, num_layers=12, num_heads=6, max_positions=2048),
            NO_WINDOW,
            {"norm": fixed("none"), "qk_norm": fixed("head"), "mlp_gated": fixed(False), "mlp_bias": fixed(False),
             "mlp_names": fixed(("fc1", "fc2"))},
            nulls(num_kv_heads="default"),
            heads={"NanoChatForCausalLM": "causal_lm", "NanoChatModel": "base"}),
    # CWM (Meta Code World Model): Llama's layout with no attention biases (CwmConfig has no attention_bias),
    # MLP biases by mlp_bias, and three sliding-window layers of every four (the first of each four full) unless
    # layer_types says otherwise; Llama 3's RoPE scaling by default.
    decoder("cwm", "CwmForCausalLM", STRICT_HEADS,
            d(vocab_size=128256, hidden_size=6144, intermediate_size=21504, num_layers=64, num_heads=48, num_kv_heads=8,
              max_positions=131072),
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             **{bias: fixed(False) for bias in ("q_bias", "k_bias", "v_bias", "o_bias")},
             # (CwmConfig turns a 0 into None, which its strict field check then refuses, as it refuses a null)
             "sliding_window": Field(("sliding_window",), 8192, doc=BASE["sliding_window"].doc),
             "rope_parameters": replace(ROPE["rope_parameters"], default=CWM_ROPE, null="default"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("full_attention" if i % 4 == 0 else "sliding_attention" for i in range(v["num_layers"])),
                 "the first layer of every four full, the others sliding"), "strs", null="default")},
            # (CwmConfig declares head_dim, num_key_value_heads and sliding_window whole numbers: strict, it refuses
            # a null)
            heads={"CwmForCausalLM": "causal_lm", "CwmModel": "base"},
            checks=(layer_list_length("layer_types"),)),
    # JAIS 2: Llama's attention (biases on every projection by attention_bias, true by default), LayerNorms with
    # biases, an MLP of up and down projections (relu², no gate) with biases by mlp_bias (true by default). No
    # sliding window.
    decoder("jais2", "Jais2ForCausalLM", STRICT_HEADS,
            d(vocab_size=150272, hidden_size=3328, intermediate_size=26624, num_layers=32, num_heads=26,
              max_positions=8192),
            NO_WINDOW,
            {"norm": fixed("layer"), "mlp_gated": fixed(False), "mlp_names": fixed(("up_proj", "down_proj")),
             **{bias: Field(("attention_bias",), True, "bool", doc="biases on the attention projections")
                for bias in ("q_bias", "k_bias", "v_bias", "o_bias")},
             "mlp_bias": Field(("mlp_bias",), True, "bool", doc=BASE["mlp_bias"].doc)},
            nulls(num_kv_heads="default", head_dim="default"),
            heads={"Jais2ForCausalLM": "causal_lm", "Jais2Model": "base"}),
)


def _hy_v3_experts(v) -> int | None:
    """HYV3Config's experts: num_local_experts where written (a whole number; anything else, a float too, None: its
    MoE layers' torch.empty takes none), else num_experts."""
    written = v["num_local_experts"]
    if written is None:
        return v["num_experts_field"]
    return written if type(written) is int and written >= 0 else None


def _hy_v3_experts_required(spec) -> list[Problem]:
    """HYV3Config takes a null num_experts and num_shared_experts, and any num_local_experts (its alias, set after
    its checks), which its MoE layers (those mlp_layer_types calls "sparse") cannot be built with unless whole
    numbers."""
    v = spec.values
    layers, types = v.get("num_layers"), v.get("mlp_layer_types")
    if type(layers) is not int or not isinstance(types, tuple) or "sparse" not in types[:layers]:
        return []
    out = []
    alias = v.get("num_local_experts")
    if "num_local_experts" in spec.origins and (alias is None or v.get("num_experts") is None):
        out.append(Problem("error", "LC102", f'"num_local_experts": {json.dumps(alias)} is not a whole number: '
                                             f"{spec.architecture} cannot build its MoE layers with it (HYV3Config "
                                             "takes it, an alias set after its checks)",
                           spec.key_span("num_local_experts") or spec.span))
    for name in ("num_experts_field", "n_shared_experts"):
        if name == "num_experts_field" and "num_local_experts" in spec.origins:
            continue  # (the alias wins)
        if v.get(name) is None and name in spec.origins:
            out.append(Problem("error", "LC102", f'"{spec.key_name(name)}": null is not a whole number: '
                                                 f"{spec.architecture} cannot build its MoE layers without it",
                               spec.key_span(name) or spec.span))
    return out


def _hy_v3_shared_width(v) -> int:
    """HYV3MoE's shared experts: moe_intermediate_size × num_shared_experts wide, or intermediate_size where that is 0
    (HYV3MLP takes a 0 width for none given)."""
    return v["moe_intermediate_size"] * v["n_shared_experts"] or v["intermediate_size"]


# Mellum's rope_parameters where the file gives none: one entry per attention type.
MELLUM_ROPE = {"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
               "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}


def _mellum_mtp_layers(spec) -> list[Problem]:
    """MellumConfig refuses more than one multi-token-prediction layer (validate_architecture)."""
    n = spec.values.get("num_mtp_layers")
    if type(n) is int and n > 1:
        return [Problem("error", "LC103", f'"{spec.key_name("num_mtp_layers")}": {n} multi-token-prediction layers: '
                                          "MellumConfig supports a single one, and refuses the config",
                        spec.key_span("num_mtp_layers") or spec.span)]
    return []


FAMILIES += (
    # Youtu-LLM: DeepSeek-V3's multi-head latent attention (a low-rank query unless q_lora_rank is null; biases on
    # q_a_proj, kv_a_proj_with_mqa and o_proj by attention_bias) and a dense gated MLP in every layer (no experts);
    # a tied head by default. Its config class holds qk_rope_head_dim as head_dim (a head_dim the file gives wins).
    decoder("youtu", "YoutuForCausalLM", FLOOR_HEADS,
            d(vocab_size=128256, hidden_size=2048, intermediate_size=6144, num_layers=32, num_heads=16, num_kv_heads=16,
              tie_embeddings=True, max_positions=131072),
            NO_WINDOW,
            {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False),
             **{bias: fixed(False) for bias in ("q_bias", "k_bias", "v_bias")},
             "o_bias": Field(("attention_bias",), False, "bool",
                             doc="biases on q_a_proj, kv_a_proj_with_mqa and o_proj"),
             "q_lora_rank": Field(("q_lora_rank",), 1536, "int?",
                                  doc="rank of the low-rank query projection (null: a full q_proj)"),
             "kv_lora_rank": Field(("kv_lora_rank",), 512,
                                   doc="width of the compressed key/value latent (what the KV cache holds)"),
             "qk_nope_head_dim": Field(("qk_nope_head_dim",), 128),
             "qk_rope_head_dim": Field(("qk_rope_head_dim",), 64),
             "v_head_dim": Field(("v_head_dim",), 128),
             "rope_head_dim": Field(("head_dim", "qk_rope_head_dim"), 64, "int?", doc=ROTATED_HEAD_DIM)},
            heads={"YoutuForCausalLM": "causal_lm", "YoutuModel": "base"}, float_keys=("head_dim",)),
    # Mellum (JetBrains): Qwen3-MoE's attention (RMS norms over each head's q and k, biases by attention_bias) with a
    # sliding window on the layers layer_types calls so (none by default), and in the layers mlp_layer_types calls
    # "sparse" (all, by default) Qwen3-MoE's experts behind a router of one weight, no shared experts; the others a
    # dense MLP intermediate_size wide. rope_parameters one entry per attention type, kept as written.
    decoder("mellum", "MellumForCausalLM",
            d(vocab_size=98304, hidden_size=2304, intermediate_size=7168, num_layers=28, num_heads=32,
              max_positions=131072, experts_per_token=8, moe_intermediate_size=896),
            MOE,
            {"num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
             "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "qk_norm": fixed("head"), "mlp_bias": fixed(False),
             # (num_experts is MellumConfig's attribute_map alias of num_local_experts)
             "num_experts": Field(("num_experts", "num_local_experts"), 64, doc=MOE["num_experts"].doc),
             "sliding_window": Field(("sliding_window",), 1024, "int?", doc=BASE["sliding_window"].doc),
             "layer_types": Field(("layer_types",), Derived(lambda v: ("full_attention",) * v["num_layers"],
                                                            "every layer full attention"), "strs", null="default"),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(lambda v: ("sparse",) * v["num_layers"], "every layer sparse"),
             "num_mtp_layers": Field(("num_mtp_layers", "num_nextn_predict_layers"), None, "int?", minimum=0,
                                     doc="multi-token-prediction layers (at most one; transformers does not build it)"),
             # (the multi-token-prediction layer's attention and MLP types: no parameters transformers builds)
             "mtp_layer_types": Field(("mtp_layer_types",), None, "any",
                                      doc="the multi-token-prediction layer's attention type (not built)"),
             "mtp_mlp_layer_types": Field(("mtp_mlp_layer_types",), None, "any",
                                          doc="the multi-token-prediction layer's MLP type (not built)"),
             "rope_parameters": Field(("rope_scaling", "rope_parameters"), MELLUM_ROPE, "any",
                                      null=("rope_parameters",), doc=ROPE["rope_parameters"].doc),
             "rope_scaling": fixed(None), "partial_rotary_factor": fixed(1.0),
             "rope_scaling_key": Field(("rope_scaling",), None, "any",
                                       doc="rotary position settings under their old name (replace rope_parameters)"),
             "rope_scaling_layer_types": fixed(()),
             "rope_layer_types": fixed(Derived(_mimo_rope_layer_types, "the layer types with a rotary embedding")),
             "rope_types": fixed(MIMO_ROPE_TYPES)},
            heads={"MellumForCausalLM": "causal_lm", "MellumModel": "base"},
            notes=("Mellum checkpoints may also hold a multi-token-prediction layer (mtp) that transformers does not "
                   "build; it is not counted",),
            checks=(layer_list_length("layer_types", "mlp_layer_types",
                                      allowed={"layer_types": ("full_attention", "sliding_attention"),
                                               "mlp_layer_types": ("dense", "sparse")}),
                    rope_per_layer_type("MellumConfig"), _mellum_mtp_layers)),
    # Hy3 (Tencent HunYuan 3, HYV3): grouped-query attention with RMS norms over each head's q and k (biases by
    # attention_bias), a gated MLP (biases by mlp_bias); in the layers mlp_layer_types calls "sparse" (all but the
    # first, by default) experts behind a router of one float32 weight (its score correction bias a buffer) and
    # num_shared_experts shared ones. No sliding window.
    decoder("hy_v3", "HYV3ForCausalLM",
            d(vocab_size=120832, hidden_size=4096, intermediate_size=13312, num_layers=80, num_heads=64,
              max_positions=131072, moe_intermediate_size=1536),
            MOE, NO_WINDOW,
            {"num_kv_heads": Field(("num_key_value_heads",), 8, doc=BASE["num_kv_heads"].doc),
             "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "qk_norm": fixed("head"),
             # num_local_experts is HYV3Config's attribute_map alias of num_experts: set after its strict field
             # checks, it wins, and any value passes there (_hy_v3_experts judges it where MoE layers read it).
             "num_experts_field": Field(("num_experts",), 192, "int?", minimum=0, doc=MOE["num_experts"].doc),
             "num_local_experts": Field(("num_local_experts",), None, "any",
                                        doc="routed experts per MoE layer, under num_experts' alias (it wins)"),
             "num_experts": fixed(Derived(_hy_v3_experts, "num_local_experts, else num_experts")),
             "experts_per_token": Field(("num_experts_per_tok",), 8, "int?", null="none",
                                        doc=MOE["experts_per_token"].doc),
             "n_shared_experts": Field(("num_shared_experts",), 1, "int?", minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": fixed(Derived(_hy_v3_shared_width,
                                                       "moe_intermediate_size × num_shared_experts, else "
                                                       "intermediate_size")),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(dense_then_sparse, "dense, then sparse")},
            heads={"HYV3ForCausalLM": "causal_lm", "HYV3Model": "base"},
            checks=(_mlp_layer_types_short, _hy_v3_experts_required),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


def _every_freq_after_dense(v) -> tuple[str, ...]:
    """A.X-K1's mlp_layer_types where the file gives none: "sparse" from first_k_dense_replace on, every
    moe_layer_freq-th layer (legacy keys its config class reads only then), else "dense"."""
    dense, freq = v["first_k_dense_replace"], v["moe_layer_freq"]
    # (evaluated as the class does: a null moe_layer_freq is read only for layers from first_k_dense_replace on)
    return tuple("sparse" if i >= dense and i % freq == 0 else "dense" for i in range(v["num_layers"]))


def legacy_mlp_keys(config_class: str) -> Callable[..., list[Problem]]:
    """A check for a config class (AXK1Config, MiniCPM5MoeConfig) that derives mlp_layer_types, where the file gives
    none, from legacy keys (first_k_dense_replace; A.X-K1's moe_layer_freq too): a null it compares a layer number
    with fails there (the derived list is then None)."""
    def check(spec) -> list[Problem]:
        v = spec.values
        if v.get("mlp_layer_types") is not None:
            return []
        key = "first_k_dense_replace" if v.get("first_k_dense_replace") is None else "moe_layer_freq"
        return [Problem("error", "LC102", f'"{key}": null is not a whole number: with no mlp_layer_types, '
                                          f"{config_class} derives each layer's MLP from it",
                        spec.key_span(key) or spec.span)]
    return check


FAMILIES += (
    # A.X-K1 (SK Telecom): DeepSeek-V3 (multi-head latent attention, always with a low-rank query; experts behind a
    # float32 router and shared experts in the layers mlp_layer_types calls "sparse") with one more RMS norm over
    # each MoE block's output (post_mlp_layernorm). The dense layers' MLP is intermediate_size wide.
    decoder("axk1", "AXK1ForCausalLM", FLOOR_HEADS,
            d(vocab_size=163840, hidden_size=7168, intermediate_size=18432, num_layers=61, num_heads=64,
              num_kv_heads=64, max_positions=32768, experts_per_token=8, moe_intermediate_size=2048,
              n_shared_experts=1),
            MOE, DEEPSEEK,
            {"num_experts": Field(("n_routed_experts", "num_local_experts"), 192, doc=MOE["num_experts"].doc),
             "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "q_lora_rank": Field(("q_lora_rank",), 1536, doc="rank of the low-rank query projection"),
             "rope_head_dim": Field(("head_dim", "qk_rope_head_dim"), 64, "int?", doc=ROTATED_HEAD_DIM),
             "moe_output_norm": fixed("post_mlp_layernorm"),
             # (legacy keys AXK1Config reads only to derive mlp_layer_types where the file gives none)
             "first_k_dense_replace": Field(("first_k_dense_replace",), 1, "int?", minimum=0,
                                            doc="how many layers first keep a dense MLP (where mlp_layer_types is "
                                                "not given)"),
             "moe_layer_freq": Field(("moe_layer_freq",), 1, "int?",
                                     doc="every how many layers one has experts (where mlp_layer_types is not given)"),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(
                 _every_freq_after_dense, "sparse from first_k_dense_replace on, every moe_layer_freq-th layer")},
            heads={"AXK1ForCausalLM": "causal_lm", "AXK1Model": "base",
                   "AXK1ForSequenceClassification": "sequence_classification"},
            checks=(_mlp_layer_types_short, legacy_mlp_keys("AXK1Config")),
            float_keys=("head_dim", "first_k_dense_replace", "moe_layer_freq"),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


def _gated_attention_required(spec) -> list[Problem]:
    """MiniCPM5MoeConfig refuses use_gated_attention false: its attention is always gated."""
    if spec.values.get("use_gated_attention") is False:
        return [Problem("error", "LC103", '"use_gated_attention": false: MiniCPM5MoeConfig supports gated attention '
                                          "only, and refuses the config", spec.key_span("use_gated_attention") or spec.span)]
    return []


FAMILIES += (
    # MiniCPM5-MoE (OpenBMB): Llama's grouped-query attention whose query projection (q_gate_proj) also yields a
    # sigmoid gate over each head's output (twice as wide; biases on every projection by attention_bias), and
    # DeepSeek-V3's experts (a float32 router, shared experts) in the layers mlp_layer_types calls "sparse" (all but
    # the first, by default: the legacy first_k_dense_replace); the others an MLP intermediate_size wide.
    decoder("minicpm5_moe", "MiniCPM5MoeForCausalLM", FLOOR_HEADS,
            d(pad_token_id=1, vocab_size=130560, hidden_size=2048, intermediate_size=8192, num_layers=28,
              num_heads=32, num_kv_heads=2, max_positions=524288, experts_per_token=16, moe_intermediate_size=512),
            MOE,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc, null=HEAD_DIM),
             "attn_names": fixed(("q_gate_proj", "k_proj", "v_proj", "o_proj")), "query_gate": fixed(True),
             "use_gated_attention": Field(("use_gated_attention",), True, "any",
                                          doc="gated attention (MiniCPM5-MoE refuses false)"),
             "mlp_bias": fixed(False),
             "num_experts": Field(("n_routed_experts", "num_local_experts"), 160, doc=MOE["num_experts"].doc),
             "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "shared_intermediate_size": shared_experts_width("n_shared_experts"),
             "first_k_dense_replace": Field(("first_k_dense_replace",), 1, "int?", minimum=0,
                                            doc="how many layers first keep a dense MLP (where mlp_layer_types is "
                                                "not given)"),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(
                 lambda v: tuple("dense" if i < v["first_k_dense_replace"] else "sparse" for i in range(v["num_layers"])),
                 "dense for the first first_k_dense_replace layers, then sparse")},
            nulls(num_kv_heads=KV_HEADS),
            heads={"MiniCPM5MoeForCausalLM": "causal_lm", "MiniCPM5MoeModel": "base"},
            checks=(_mlp_layer_types_short, legacy_mlp_keys("MiniCPM5MoeConfig"), _gated_attention_required),
            float_keys=("first_k_dense_replace",),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


def sliding_needs_window(config_class: str) -> Callable[..., list[Problem]]:
    """A check for a config class (Kolibri1Config) that refuses sliding-attention layers with no positive
    sliding_window."""
    def check(spec) -> list[Problem]:
        v = spec.values
        window, types = v.get("sliding_window"), v.get("layer_types")
        if not isinstance(types, tuple) or "sliding_attention" not in types or (type(window) is int and window > 0):
            return []
        return [Problem("error", "LC103", f'"sliding_window": {json.dumps(window)}: {config_class} refuses '
                                          "sliding-attention layers without a positive window",
                        spec.key_span("sliding_window") or spec.key_span("layer_types") or spec.span)]
    return check


# Kolibri 1's attention (EXAONE 4's: RMS norms over each head's q and k, no biases) and its layers (GLM-4's four
# norms: input, post_self_attn, post_attention, post_mlp); the fifth layer of every five full, the others sliding.
KOLIBRI1: dict[str, Field] = {
    **QK_HEAD, **NO_BIAS,
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                          "post_mlp_layernorm")),
    "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
    "num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
    # (a window under 1 is refused only where a layer slides: sliding_needs_window)
    "sliding_window": Field(("sliding_window",), 513, "int?", minimum=0, doc=BASE["sliding_window"].doc),
    "layer_types": Field(("layer_types",), Derived(
        lambda v: tuple("full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(v["num_layers"])),
        "sliding but every fifth layer"), "strs", null="default"),
    # (num_experts is the field; Kolibri1Config's attribute_map stores it as num_local_experts, which a file may
    # give too, set after the fields)
    "num_experts": Field(("num_experts", "num_local_experts"), 384, doc=MOE["num_experts"].doc),
    "experts_per_token": Field(("num_experts_per_tok",), 6, doc=MOE["experts_per_token"].doc),
    "moe_intermediate_size": Field(("moe_intermediate_size",), 512, doc=MOE["moe_intermediate_size"].doc),
    "shared_intermediate_size": Field(("shared_expert_intermediate_size",), 512, minimum=0,
                                      doc="the shared expert's width"),
    "shared_expert_always": fixed(True),
}

FAMILIES += (
    # Kolibri 1 (Aleph Alpha): in every layer DeepSeek-V3's MoE block (Qwen3-MoE's experts behind a router of one
    # weight, its score correction bias a buffer; one shared expert shared_expert_intermediate_size wide, no gate).
    # No dense MLP (Kolibri1Config has no intermediate_size).
    decoder("kolibri1", "Kolibri1ForCausalLM", FLOOR_HEADS,
            d(vocab_size=128000, hidden_size=2560, num_layers=50, num_heads=48, max_positions=262144),
            MOE, KOLIBRI1, {"intermediate_size": fixed(0)},
            heads={"Kolibri1ForCausalLM": "causal_lm", "Kolibri1Model": "base"},
            checks=(layer_list_length("layer_types"), sliding_needs_window("Kolibri1Config")),
            fp32_modules_strict=("e_score_correction_bias",)),
)

# Kolibri 1.1's layer types where the file gives none: indexed attention in every fifth layer, sliding the others.
def _kolibri1_1_layer_types(v) -> tuple[str, ...]:
    return tuple("indexed_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(v["num_layers"]))


def _indexed_layers(v) -> list[int]:
    return [i for i, t in enumerate(v["layer_types"]) if t == "indexed_attention"]


# Kolibri1_1Config's default kv_source_layers: for its first ten indexed-attention layers, which of them (by rank)
# each reads the keys and values of; it refuses a config with more indexed layers that gives none.
KOLIBRI1_1_KV_SOURCES = (0, 0, 0, 3, 4, 5, 5, 5, 5, 0)


def _kolibri1_1_kv_sources(v) -> tuple[int, ...]:
    indexed = _indexed_layers(v)
    if len(indexed) > len(KOLIBRI1_1_KV_SOURCES):
        raise ValueError("more indexed-attention layers than the default kv_source_layers covers")
    sources = list(range(len(v["layer_types"])))
    for i, rank in zip(indexed, KOLIBRI1_1_KV_SOURCES):
        sources[i] = indexed[rank]
    return tuple(sources)


def _kolibri1_1_refusals(spec) -> list[Problem]:
    """Kolibri1_1Config.validate_architecture, rule for rule (the layer types' length and names are
    layer_list_length's): what it refuses, an error on the key."""
    v = spec.values
    types, layers = v.get("layer_types"), v.get("num_layers")
    if not isinstance(types, tuple) or type(layers) is not int or len(types) != layers \
            or set(types) - {"indexed_attention", "sliding_attention"}:
        return []  # (layer_list_length's)

    def error(name: str, why: str) -> list[Problem]:
        return [Problem("error", "LC103", f'"{spec.key_name(name)}": {why}: Kolibri1_1Config refuses the config',
                        spec.key_span(name) or spec.span)]

    sizes = ("index_pool_size", "index_compression", "head_dim", "num_heads", "num_kv_heads", "index_num_heads",
             "intermediate_size")
    if any(type(v.get(name)) is not int for name in sizes) or not v["index_compression"] or not v["num_kv_heads"]:
        return []  # (a size the fields refuse)
    indexed = _indexed_layers(v)
    sources, index_layers = v.get("kv_source_layers"), v.get("index_layers")
    if sources is None:
        return error("kv_source_layers", f"{len(indexed)} indexed-attention layers and no kv_source_layers (its "
                                         f"default covers {len(KOLIBRI1_1_KV_SOURCES)})")
    if isinstance(index_layers, tuple):
        if sorted(set(index_layers)) != list(index_layers) or not set(index_layers) <= set(indexed):
            return error("index_layers", "not increasing indexed-attention layers")
        if indexed and indexed[0] not in index_layers:
            return error("index_layers", "the first indexed-attention layer is not an indexer")
    if len(sources) != len(types):
        return error("kv_source_layers", f"{len(sources)} entries for {len(types)} layers")
    for i, source in enumerate(sources):
        if types[i] == "sliding_attention" and source != i:
            return error("kv_source_layers", f"sliding-attention layer {i} reads another layer's keys and values")
        if not 0 <= source <= i or sources[source] != source:
            return error("kv_source_layers", f"layer {i} reads layer {source}, not an earlier layer with its own")
        if types[source] != types[i]:
            return error("kv_source_layers", f"layer {i} reads a layer of another attention type")
    if v["index_pool_size"] % v["index_compression"]:
        return error("index_pool_size", "not a multiple of index_compression")
    d, heads, kv = v["head_dim"], v["num_heads"], v["num_kv_heads"]
    if d % 16:
        return error("head_dim", f"{d} is not a multiple of 16 (the NVFP4 rounding of keys and values)")
    if v["index_num_heads"] > heads // kv:
        return error("index_num_heads", "more than the query heads of key head 0")
    dense = v.get("mlp_only_layers") or ()
    if not set(dense) <= set(range(layers)):
        return error("mlp_only_layers", "not layer indices")
    if dense and v["intermediate_size"] <= 0:
        return error("intermediate_size", "dense layers need a positive width")
    return []


FAMILIES += (
    # Kolibri 1.1 (Aleph Alpha): Kolibri 1's layers with indexed-attention layers (every fifth by default) in place of
    # its full ones: their indexer has no weights; the indexed layers kv_source_layers points at an earlier one attend
    # to its keys and values, with no k_proj, v_proj or k_norm of their own and nothing in the cache. Dense MLPs
    # mlp_only_intermediate_size wide in mlp_only_layers (the first two by default), Kolibri 1's experts elsewhere.
    decoder("kolibri1_1", "Kolibri1_1ForCausalLM", FLOOR_HEADS,
            d(vocab_size=128000, hidden_size=2560, num_layers=50, num_heads=48, max_positions=262144),
            MOE, KOLIBRI1,
            {"intermediate_size": Field(("mlp_only_intermediate_size",), 3584, minimum=-MAX_DIMENSION,
                                        doc="width of the dense MLPs of mlp_only_layers"),
             "moe_layers": fixed("sparse_step"), "decoder_sparse_step": fixed(1),
             "mlp_only_layers": Field(("mlp_only_layers",), Derived(
                 lambda v: tuple(i for i in (0, 1) if i < v["num_layers"]), "the first two layers"), "ints",
                 null="default", doc="layers with a dense MLP instead of experts"),
             "layer_types": Field(("layer_types",), Derived(_kolibri1_1_layer_types,
                                                            "indexed attention in every fifth layer, else sliding"),
                                  "strs", null="default"),
             "index_layers": Field(("index_layers",), Derived(
                 lambda v: tuple(x for r, x in enumerate(_indexed_layers(v)) if r in (0, 2, 3, 5)),
                 "the 1st, 3rd, 4th and 6th indexed-attention layers"), "ints", null="default",
                 doc="the indexed-attention layers that select a new pool of keys (no parameters)"),
             "kv_source_layers": Field(("kv_source_layers",), Derived(
                 _kolibri1_1_kv_sources, "Kolibri 1.1's sharing over its first ten indexed-attention layers"),
                 "ints", null="default", doc="for each layer, the layer whose keys and values it attends to"),
             "kv_shared_layers": fixed(Derived(lambda v: tuple(s != i for i, s in enumerate(v["kv_source_layers"])),
                                               "the layers whose kv_source_layers entry names another layer")),
             **{name: Field((name,), default, doc="the sparse attention's key selection (no parameters)")
                for name, default in (("index_topk", 2048), ("index_pool_size", 16384), ("index_compression", 16),
                                      ("index_num_heads", 12))}},
            heads={"Kolibri1_1ForCausalLM": "causal_lm", "Kolibri1_1Model": "base"},
            checks=(layer_list_length("layer_types",
                                      allowed={"layer_types": ("indexed_attention", "sliding_attention")}),
                    sliding_needs_window("Kolibri1_1Config"), _kolibri1_1_refusals),
            fp32_modules_strict=("e_score_correction_bias",)),
)

FAMILIES += (
    # Flint (RecursiveSI): Qwen3-MoE's attention (RMS norms over each head's q and k, biases by attention_bias) with
    # GPT-OSS's learned sink logit per head; full attention in the first two layers, every fourth from the second
    # and the last, the others sliding. Experts (a float32 router of one weight) and a shared expert
    # shared_expert_intermediate_size wide (no gate on its output) in every decoder_sparse_step-th layer but mlp_only_layers (the first two by
    # default), a dense MLP intermediate_size wide there.
    decoder("flint", "FlintForCausalLM", FLOOR_HEADS,
            d(vocab_size=150144, hidden_size=2048, intermediate_size=6144, num_layers=49, num_heads=32,
              max_positions=262144, experts_per_token=6, moe_intermediate_size=512),
            MOE, QK_HEAD,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "num_kv_heads": Field(("num_key_value_heads",), 4, doc=BASE["num_kv_heads"].doc),
             "mlp_bias": fixed(False), "attention_sinks": fixed(True),
             "num_experts": Field(("num_experts",), 256, minimum=0, doc=MOE["num_experts"].doc),
             "shared_intermediate_size": Field(("shared_expert_intermediate_size",), 1024, minimum=0,
                                               doc="the shared expert's width"),
             "shared_expert_always": fixed(True),
             "moe_layers": fixed("sparse_step"), "without_experts": fixed("dense"),
             "decoder_sparse_step": Field(("decoder_sparse_step",), 1, doc="every how many layers one has experts"),
             "mlp_only_layers": Field(("mlp_only_layers",), (0, 1), "ints", null="default",
                                      doc="layers that keep a dense MLP"),
             "sliding_window": Field(("sliding_window",), 513, doc=BASE["sliding_window"].doc),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("full_attention" if i < 2 or i % 4 == 1 or i == v["num_layers"] - 1
                                 else "sliding_attention" for i in range(v["num_layers"])),
                 "full in the first two layers, every fourth from the second and the last; the others sliding"),
                 "strs", null="default")},
            heads={"FlintForCausalLM": "causal_lm", "FlintModel": "base"},
            checks=(layer_list_length("layer_types"),),
            fp32_modules_strict=("gate.weight", "sinks")),
)


def _hrm_layers_per_stack(v) -> int:
    """HrmTextConfig's layers in each of its two stacks: num_layers_per_stack where given (a config transformers saved
    then holds num_layers_per_stack × H_cycles × (L_cycles + 1) in num_hidden_layers), else num_hidden_layers."""
    written = v["num_layers_per_stack"]
    return v["num_layers_key"] if written is None else written


def _hrm_cache_layers(v) -> int:
    """HRM-Text's cache: one layer cache per call of a layer in its forward pass, num_layers_per_stack ×
    H_cycles × (L_cycles + 1) (L_cycles calls of the low-level stack and one of the high-level stack each high-level
    cycle); none where a cycle count is negative (the loops run no cycle)."""
    return _hrm_layers_per_stack(v) * max(v["H_cycles"], 0) * (max(v["L_cycles"], 0) + 1)


FAMILIES += (
    # HRM-Text (Sapient): two stacks of layers (L_module, H_module) the forward pass runs in cycles, each layer
    # Llama's multi-head attention (no grouped key/value heads) with a sigmoid gate over the heads' output
    # (gate_proj, biased by attention_bias) and a gated MLP; its RMS norms have no weights; z_L_init, the low-level
    # state's start, a frozen parameter (requires_grad=False). The cache holds each layer call's keys and values.
    decoder("hrm_text", "HrmTextForCausalLM", STRICT_HEADS,
            d(vocab_size=151808, hidden_size=1536, intermediate_size=4096, num_heads=12, max_positions=2048),
            NO_WINDOW,
            {"num_kv_heads": fixed(KV_HEADS),
             "head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "norm": fixed("none"),
             "attn_output_gate": fixed(True),
             "attn_output_gate_bias": Field(("attention_bias",), False, "bool"),
             "num_layers_key": Field(("num_hidden_layers",), 16,
                                     doc="layers in each stack, where num_layers_per_stack is not given"),
             "num_layers_per_stack": Field(("num_layers_per_stack",), None, "int?",
                                           doc="layers in each of the two stacks (null: num_hidden_layers)"),
             "num_layers": fixed(Derived(lambda v: 2 * _hrm_layers_per_stack(v),
                                         "2 stacks × (num_layers_per_stack, else num_hidden_layers)")),
             # (any whole number builds the model; the forward pass runs no cycle for one under 1)
             "H_cycles": Field(("H_cycles",), 2, minimum=-MAX_DIMENSION, doc="high-level cycles (no parameters)"),
             "L_cycles": Field(("L_cycles",), 3, minimum=-MAX_DIMENSION,
                               doc="low-level cycles per high-level cycle (no parameters)"),
             "kv_cache_layers": fixed(Derived(_hrm_cache_layers,
                                              "num_layers_per_stack × H_cycles × (L_cycles + 1)")),
             "frozen_model_vectors": fixed(("z_L_init",))},
            heads={"HrmTextForCausalLM": "causal_lm", "HrmTextModel": "base"}),
)


# BeamConfig's rope_parameters where the file gives none: RoPE on the sliding layers, none on the full ones.
BEAM_ROPE = {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0}, "full_attention": None}

FAMILIES += (
    # Beam: Qwen3-MoE's attention (RMS norms over each head's q and k) with a sigmoid gate over the heads' output (its
    # own gate_proj, and one bias per head: gate_bias), norms before and after attention and the MLP; sliding-window
    # layers but every sixth and the last (the full ones have no rotary positions: no parameters); dense layers, then
    # mixtures of experts where mlp_layer_types says "sparse": a router (gate, float32) and routed experts, none shared.
    decoder("beam", "BeamForCausalLM", FLOOR_HEADS,
            d(vocab_size=151936, hidden_size=5120, intermediate_size=20480, num_layers=52, num_heads=48,
              num_kv_heads=8, max_positions=8192, experts_per_token=8, moe_intermediate_size=2560, sliding_window=512),
            MOE, QK_HEAD, SANDWICH,
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc), "mlp_bias": fixed(False),
             "attn_output_gate": fixed(True), "attn_output_gate_head_bias": fixed(True),
             "kv_heads_not_dividing": fixed("refused"),  # (BeamConfig refuses it)
             "num_experts": Field(("num_experts",), 256, doc=MOE["num_experts"].doc),
             "moe_layers": fixed("mlp_layer_types"),
             "mlp_layer_types": mlp_layer_types(
                 lambda v: ("dense",) * min(3, v["num_layers"]) + ("sparse",) * max(0, v["num_layers"] - 3),
                 "three dense layers, then sparse"),
             "layer_types": Field(("layer_types",), Derived(
                 lambda v: tuple("sliding_attention" if (i + 1) % 6 and i != v["num_layers"] - 1 else "full_attention"
                                 for i in range(v["num_layers"])),
                 "sliding but every sixth layer and the last"), "strs", null="default"),
             # GenericForTokenClassification: getattr(config, "token_classification_bias", True) (a null: no bias)
             "token_classification_bias": Field(("token_classification_bias",), True, "bool", null="false",
                                                doc="a bias on the token classifier's score linear"),
             # rope_parameters per attention type, as written (a rope_scaling key replaces it, even a null one); a
             # null entry: that type's layers have no rotary positions
             "rope_parameters": Field(("rope_scaling", "rope_parameters"), BEAM_ROPE, "any",
                                      null=("rope_parameters",), doc=ROPE["rope_parameters"].doc),
             "rope_scaling": fixed(None), "partial_rotary_factor": fixed(None),
             "rope_scaling_key": Field(("rope_scaling",), None, "any",
                                       doc="rotary position settings under their old name (replace rope_parameters)"),
             "rope_scaling_layer_types": fixed(()),
             "rope_layer_types": fixed(Derived(_mimo_rope_layer_types, "the layer types with a rotary embedding")),
             "rope_types": fixed(MIMO_ROPE_TYPES)},
            heads={"BeamForCausalLM": "causal_lm", "BeamModel": "base",
                   "BeamForTokenClassification": "token_classification"},
            checks=(layer_list_length("layer_types", "mlp_layer_types"), rope_per_layer_type("BeamConfig")),
            fp32_modules_strict=("e_score_correction_bias", "mlp.gate.weight")),
)


FAMILIES += (
    # A.X-K2 (SK Telecom): DeepSeek-V3.2 (latent attention with its sparse-attention indexer in every layer, experts
    # behind a float32 router and shared experts where mlp_layer_types says "sparse", derived as A.X-K1's) whose query
    # comes with an output gate from one projection (q_gate_proj, from twice q_lora_rank), and gated RMS norms (a
    # sigmoid gate from a gated_norm_rank-wide MLP over the norm's output): input_layernorm in every layer,
    # post_attention_layernorm in the MoE layers.
    decoder("axk2", "AXK2ForCausalLM", FLOOR_HEADS,
            d(vocab_size=163840, hidden_size=2048, intermediate_size=5120, num_layers=48, num_heads=32,
              num_kv_heads=32, max_positions=131072, experts_per_token=8, moe_intermediate_size=512,
              n_shared_experts=1, q_lora_rank=384, kv_lora_rank=128, qk_rope_head_dim=32, qk_nope_head_dim=64,
              v_head_dim=64, index_n_heads=16),
            MOE, DEEPSEEK, SPARSE_ATTENTION,
            {"num_experts": Field(("n_routed_experts", "num_local_experts"), 128,
                                  doc=MOE["num_experts"].doc),
             "rope_head_dim": Field(("qk_rope_head_dim",), 32, doc=ROTATED_HEAD_DIM),
             "mla_query_gate": fixed(True),
             "gated_norm_rank": Field(("gated_norm_rank",), 16, doc="rank of the gated norms' low-rank gate MLP"),
             "gated_norms": fixed(("input_layernorm",)),
             "gated_moe_norms": fixed(("post_attention_layernorm",)),
             # (legacy keys AXK2Config reads only to derive mlp_layer_types where the file gives none)
             "first_k_dense_replace": Field(("first_k_dense_replace",), 1, "int?", minimum=0,
                                            doc="how many layers first keep a dense MLP (where mlp_layer_types is "
                                                "not given)"),
             "moe_layer_freq": Field(("moe_layer_freq",), 1, "int?",
                                     doc="every how many layers one has experts (where mlp_layer_types is not given)"),
             "mlp_layer_types": mlp_layer_types(
                 _every_freq_after_dense, "sparse from first_k_dense_replace on, every moe_layer_freq-th layer"),
             "token_classification_bias": Field(("token_classification_bias",), True, "bool", null="false",
                                                doc="a bias on the token classifier's score linear")},
            nulls(num_experts=("num_experts",)),
            heads={"AXK2ForCausalLM": "causal_lm", "AXK2Model": "base",
                   "AXK2ForSequenceClassification": "sequence_classification",
                   "AXK2ForTokenClassification": "token_classification"},
            checks=(layer_list_length("layer_types", "mlp_layer_types",
                                      allowed={"mlp_layer_types": ("sparse", "dense")}), legacy_mlp_keys("AXK2Config")),
            float_keys=("first_k_dense_replace", "moe_layer_freq"),
            fp32_modules=("indexer.weights_proj",),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
)


FAMILIES += (
    # HY-V4 (Tencent Hunyuan): GLM-MoE-DSA's latent attention (its indexer in the layers indexer_types calls "full": the
    # first and every fourth from the second, by default) with a sigmoid gate over the heads' output (gate_proj) and a
    # learned sink per head; DeepSeek-V4's hyper-connections without their stream mixing (2 · hc_mult weights, two
    # scales) and its last collapse (hc_head); experts with a shared one where mlp_layer_types says "sparse" (all but
    # the first, by default).
    decoder("hy_v4", "HYV4ForCausalLM", FLOOR_HEADS,
            d(vocab_size=120832, hidden_size=2816, intermediate_size=6912, num_layers=34, num_heads=32,
              max_positions=262144, experts_per_token=8, moe_intermediate_size=768, n_shared_experts=1,
              q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64, v_head_dim=256,
              index_n_heads=16, pad_token_id=120002),
            MOE, DEEPSEEK, SPARSE_ATTENTION,
            {"num_experts": Field(("n_routed_experts", "num_local_experts"), 256,
                                  doc=MOE["num_experts"].doc),
             # (HYV4Config sets num_key_value_heads to the head count: MLA expands the latent per query head)
             "num_kv_heads": fixed(KV_HEADS),
             "attn_output_gate": fixed(True), "attention_sinks": fixed(True),
             "hyper_connections": Field(("hc_mult",), 4, minimum=0,
                                        doc="residual streams of the hyper-connections (hc_mult)"),
             "hyper_connection_comb": fixed(False),
             "first_k_dense_replace": fixed(0),  # (not HYV4Config's: mlp_layer_types alone places the experts)
             "mlp_layer_types": mlp_layer_types(dense_then_sparse, "dense, then sparse"),
             **indexer_schedule(
                 lambda v: tuple("full" if i == 0 or (i - 1) % 4 == 0 else "shared" for i in range(v["num_layers"])),
                 "full in the first layer and every fourth from the second")},
            nulls(num_experts=("num_experts",)),
            heads={"HYV4ForCausalLM": "causal_lm", "HYV4Model": "base"},
            checks=(layer_list_length("layer_types", "mlp_layer_types", allowed={"mlp_layer_types": ("sparse", "dense")}),),
            # (HYV4ForCausalLM's own list is lm_head alone; from_pretrained keeps its model's too, and each of these is
            # built in float32)
            fp32_modules_strict=("e_score_correction_bias", "gate.weight", "fn", "scale", "base", "hc_fn", "hc_scale",
                                 "hc_base", "weights_proj", "k_norm", "sinks", "lm_head")),
)
