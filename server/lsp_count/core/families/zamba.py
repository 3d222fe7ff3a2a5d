"""Zamba2 and Zamba (Zyphra): a Mamba-2 (Zamba: Mamba) stack with shared transformer blocks (layouts/zamba.py).

Every layer is a Mamba-2 layer; a "hybrid" layer (``layers_block_type``) first runs a shared transformer block over
the concatenation of its input and the embeddings (2 × hidden_size wide) and maps the block's output back into the
layer with a linear of its own. The shared blocks (num_mem_blocks of them, taken in turn by the hybrid layers) hold
attention from that doubled width, a gated MLP and, per use (``hybrid_layer_ids``), LoRA-like adapters: always on
the MLP's gate_up_proj, on q, k and v where use_shared_attention_adapter. transformers ties the blocks' uses
together only where tie_word_embeddings (its tie mapping is dropped otherwise: each hybrid layer then holds a block
of its own). Defaults are transformers 5's Zamba2Config's.

Zamba2Config sets its attribute_map aliases and the keys it does not declare after its ``__post_init__``: a written
head_dim / attention_head_dim, attention_hidden_size and hybrid_layer_ids win over what it derives, and a written
``layer_types`` replaces the layer kinds after ``hybrid_layer_ids`` was taken from ``layers_block_type`` (or its
default).

Zamba: one shared block (``shared_transf``), no adapters, a gated MLP of three projections, Mamba mixers split into
n_mamba_heads heads; its hybrid layers, where layers_block_type is not written, are the third and every
attn_layer_period-th from attn_layer_offset after the first three. A written head_dim wins over attention_head_dim.
"""

from __future__ import annotations

from collections.abc import Sized

from lsp_count.core.families.common import LABEL_FIELDS, check_pad_token, pad_token
from lsp_count.core.families.decoders import KV_HEADS, ROPE, causal_heads, fixed
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field

# transformers' configuration_utils: the legacy layer-type names it remaps, and the layer types it accepts.
_LEGACY = {"mamba": "linear_attention", "attention": "full_attention",
           "deepseek_sparse_attention": "indexed_attention", "qwen_sparse_attention": "indexed_attention"}
_ALLOWED = frozenset({"full_attention", "sliding_attention", "chunked_attention", "window_attention",
                      "indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
                      "minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding", "reference_sliding_attention",
                      "linear_attention"})
# Zamba2Config's default layers: 54, a shared block in the 7th, 13th, ..., 43rd, 48th and 52nd.
ZAMBA2_DEFAULT_TYPES = tuple(["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7
                             + ["linear_attention"] * 4 + ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"]
                             + ["linear_attention"] * 2)


def _block_types(v) -> tuple[str, ...]:
    """The layers_block_type __post_init__ sees: the file's, else the class's 54 layers."""
    written = v["zamba_block_types"]
    return ZAMBA2_DEFAULT_TYPES if written is None else tuple(_LEGACY.get(t, t) for t in written)


def _layer_types(v) -> tuple[str, ...]:
    """The layer kinds the model is built from: a written layer_types (set after __post_init__), else the above."""
    written = v["zamba_layer_types"]
    return tuple(_LEGACY.get(t, t) for t in written) if written is not None else _block_types(v)


def _layer_mixers(ssm: str, name: str) -> Field:
    """layer_mixers (the memory estimate's cache, memory._mixed_cache): attention and the ``ssm`` mixer in the
    hybrid layers, the mixer alone elsewhere."""
    return fixed(Derived(lambda v: tuple(f"attention+{ssm}" if t == "hybrid" else ssm for t in v["zamba_types"]),
                         f"attention and {name} in hybrid layers, {name} elsewhere"))


def _uses(v) -> int:
    """len(hybrid_layer_ids): the adapter slots of every shared block (the written list's, else the hybrid layers of
    layers_block_type)."""
    written = v["hybrid_layer_ids"]
    if written is None:
        return sum(1 for t in _block_types(v) if t == "hybrid")
    if isinstance(written, Sized):
        return len(written)
    raise TypeError("hybrid_layer_ids has no length")


def _layer_problems(spec, config_class: str) -> list[Problem]:
    """What the config class refuses of the layer kinds (validate_layer_type: a known kind per layer, one per
    num_hidden_layers)."""
    v = spec.values
    types, n = v.get("zamba_types"), v.get("num_layers")
    where = next((k for k in ("zamba_layer_types", "zamba_block_types") if k in spec.origins), "num_layers")
    label = spec.key_label(where)
    if not isinstance(types, tuple) or not isinstance(n, int):
        return []
    bad = [t for t in types if t not in _ALLOWED]
    if bad:
        return [Problem("error", "LC103", f"{label}: {bad[0]!r} is not a layer type {config_class} accepts (\"hybrid\": "
                                          "a shared transformer block before the Mamba layer; \"mamba\" / "
                                          "\"linear_attention\": the Mamba layer alone)",
                        spec.key_span(where) or spec.span)]
    if len(types) != n:
        said = f"{label} lists {len(types)} layers" if where != "num_layers" and v.get(where) is not None else \
            f"the default layers_block_type lists {len(types)} layers"
        return [Problem("error", "LC103", f"{said}, num_hidden_layers is {n}: {config_class} refuses the config",
                        spec.key_span(where) or spec.span)]
    return []


def _hybrids(spec) -> int:
    types = spec.values.get("zamba_types")
    return sum(1 for t in types if t == "hybrid") if isinstance(types, tuple) else 0


def _zamba2_check(spec) -> list[Problem]:
    """Zamba2Config's layer check, and what its model cannot be built with: a hybrid layer with num_mem_blocks 0, or
    a hybrid_layer_ids with no length."""
    problems = _layer_problems(spec, "Zamba2Config")
    if problems:
        return problems
    v = spec.values
    hybrids = _hybrids(spec)
    if hybrids and v.get("num_mem_blocks") == 0:
        return [Problem("error", "LC103", "num_mem_blocks is 0 but there are hybrid layers: transformers cannot build "
                                          "their shared transformer blocks", spec.key_span("num_mem_blocks") or spec.span)]
    if hybrids and (v.get("zamba_uses") is None
                    or ("hybrid_layer_ids" in spec.origins and v.get("hybrid_layer_ids") is None)):
        return [Problem("error", "LC102", '"hybrid_layer_ids": transformers builds the shared blocks\' adapters from its '
                                          "length (a null has none): a list of the hybrid layers' indices, or leave it "
                                          "out",
                        spec.key_span("hybrid_layer_ids") or spec.span)]
    return _zamba2_warnings(spec, hybrids)


def _zamba2_warnings(spec, hybrids: int) -> list[Problem]:
    """Configs transformers builds (counted) but whose forward pass fails: Mamba-2 heads that do not divide the
    mixer's width, groups that do not divide the heads, attention adapters (as wide as the attention's input) beside
    narrower keys and values."""
    v = spec.values
    inner, heads, groups = v.get("ssm_inner"), v.get("ssm_heads"), v.get("ssm_groups")
    said = "transformers builds the model (counted), but its forward pass fails"
    if type(inner) is int and type(heads) is int and inner % heads:
        return [Problem("warning", "LC103", f"n_mamba_heads ({heads}) does not divide mamba_expand × hidden_size "
                                            f"({inner:,}): {said}", spec.key_span("ssm_heads") or spec.span)]
    if type(heads) is int and type(groups) is int and heads % groups:
        return [Problem("warning", "LC103", f"mamba_ngroups ({groups}) does not divide n_mamba_heads ({heads}): {said}",
                        spec.key_span("ssm_groups") or spec.span)]
    q, kv, d, wide = v.get("num_heads"), v.get("num_kv_heads"), v.get("head_dim"), v.get("attention_hidden")
    if hybrids and v.get("shared_attn_adapter") and all(type(n) is int for n in (q, kv, d, wide)) and \
            (q * d != wide or kv * d != wide):
        return [Problem("warning", "LC103", f"use_shared_attention_adapter: the q, k and v adapters are {wide:,} wide "
                                            f"(the attention's input), the queries {q} × {d} and the keys and values "
                                            f"{kv} × {d}: {said}", spec.key_span("shared_attn_adapter") or spec.span)]
    return []


def _zamba_check(spec) -> list[Problem]:
    """ZambaConfig's layer check and validate_architecture (n_mamba_heads divides the mixer's width), and what its
    model cannot be built with: a head_dim written null or 0 where there is a hybrid layer (its attention divides by
    it), or a single hybrid layer with tied embeddings (the tie of the shared block's other uses then finds none, and
    transformers raises)."""
    problems = _layer_problems(spec, "ZambaConfig")
    if problems:
        return problems
    v = spec.values
    inner, heads = v.get("ssm_inner"), v.get("ssm_heads")
    if type(inner) is int and type(heads) is int and inner % heads:
        return [Problem("error", "LC103", f"n_mamba_heads ({heads}) does not divide mamba_expand × hidden_size "
                                          f"({inner:,}): ZambaConfig refuses the config",
                        spec.key_span("ssm_heads") or spec.span)]
    hybrids = _hybrids(spec)
    if hybrids and "zamba_head_dim_alias" in spec.origins and not v.get("zamba_head_dim_alias"):
        said = "null" if v.get("zamba_head_dim_alias") is None else "0"
        return [Problem("error", "LC102", f'"head_dim": {said} is the shared attention\'s head width (head_dim is '
                                          "attention_head_dim, set after the class fills it): its attention cannot be "
                                          "built with it (leaving the key out takes 2 × hidden_size / "
                                          "num_attention_heads)", spec.key_span("zamba_head_dim_alias") or spec.span)]
    if hybrids == 1 and v.get("tie_embeddings"):
        where = next((k for k in ("zamba_layer_types", "zamba_block_types") if k in spec.origins), "num_layers")
        return [Problem("error", "LC103", "one hybrid layer with tie_word_embeddings: transformers ties the shared "
                                          "block's other uses to it, finds none and refuses to build the model (give "
                                          "several hybrid layers, or tie_word_embeddings false)",
                        spec.key_span(where) or spec.span)]
    return []


ZAMBA2: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 32000, doc="tokens in the vocabulary: rows of the embedding (and of the "
                                                    "output head unless tied)"),
    "pad_token_id": pad_token(0),
    "hidden_size": Field(("hidden_size",), 2560, doc="width of the residual stream (the shared blocks' attention "
                                                     "reads twice this: the layer's input and the embeddings)"),
    "num_layers": Field(("num_hidden_layers",), 54, doc="Mamba-2 layers (the hybrid ones with a shared block before)"),
    "num_heads": Field(("num_attention_heads",), 32, doc="query heads of the shared blocks' attention"),
    "num_kv_heads": Field(("num_key_value_heads",), KV_HEADS, "int?", null="default",
                          doc="key/value heads of the shared blocks' attention"),
    # (attribute_map: head_dim is attention_head_dim; either written wins over the derived 2 × hidden / heads. A null
    # is kept, as attention_hidden_size's: only a shared block reads them)
    "head_dim": Field(("head_dim", "attention_head_dim"),
                      Derived(lambda v: 2 * v["hidden_size"] // v["num_heads"], "2 × hidden_size / num_attention_heads"),
                      "int?", null="none", doc="width of each head of the shared attention"),
    "attention_hidden": Field(("attention_hidden_size",), Derived(lambda v: 2 * v["hidden_size"], "2 × hidden_size"),
                              "int?", null="none", doc="the shared attention's input width (its input norm's too)"),
    "floor_head_dim": fixed(True),
    # (Zamba2Config saves kv_channels, hidden_size / num_attention_heads, and reads it nowhere: this family's own key,
    # not another's name for head_dim)
    "zamba_kv_channels": Field(("kv_channels",), None, "any", doc="read by nothing (saved by Zamba2Config)"),
    # (int | None; a null or 0 is 4 × hidden_size: `intermediate_size or 4 * hidden_size`)
    "zamba_ffn_written": Field(("intermediate_size",), None, "int?", minimum=0,
                               doc="width of the shared blocks' MLP (0 or left out: 4 × hidden_size)"),
    "intermediate_size": fixed(Derived(lambda v: v["zamba_ffn_written"] or 4 * v["hidden_size"],
                                       "intermediate_size, else 4 × hidden_size")),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                            doc="output head shares the embedding matrix (and the hybrid layers share their blocks)"),
    "max_positions": Field(("max_position_embeddings",), 4096, doc="longest sequence (16,384 with use_long_context)"),
    # Mamba-2 mixer (every layer)
    "ssm_expand": Field(("mamba_expand",), 2, doc="the Mamba-2 mixer's width: mamba_expand × hidden_size"),
    "ssm_inner": fixed(Derived(lambda v: v["ssm_expand"] * v["hidden_size"], "mamba_expand × hidden_size")),
    "ssm_heads": Field(("n_mamba_heads",), 8, doc="SSM heads"),
    "ssm_groups": Field(("mamba_ngroups",), 1, doc="groups of the B and C state projections"),
    "ssm_state": Field(("mamba_d_state",), 64, doc="SSM state size per head channel"),
    "ssm_conv_kernel": Field(("mamba_d_conv",), 4, doc="width of the mixer's causal convolution"),
    "ssm_bias": Field(("add_bias_linear",), False, "bool",
                      doc="biases on the mixer's in_proj and out_proj and the shared MLP's projections"),
    "ssm_conv_bias_written": Field(("use_conv_bias",), True, "bool",
                                   doc="(read by nothing: Zamba2's mixer convolution always has a bias)"),
    # shared blocks
    "num_mem_blocks": Field(("num_mem_blocks",), 1, minimum=0, doc="shared transformer blocks the hybrid layers "
                                                                   "take in turn"),
    "shared_attn_adapter": Field(("use_shared_attention_adapter",), False, "bool",
                                 doc="adapters on the shared attention's q, k and v, one per hybrid layer"),
    "adapter_rank": Field(("adapter_rank",), 128, minimum=0, doc="rank of the shared blocks' adapters"),
    "zamba_block_types": Field(("layers_block_type",), None, "strs",
                               doc="each layer's kind: hybrid (a shared block, then Mamba-2) or mamba"),
    "zamba_layer_types": Field(("layer_types",), None, "strs", null="reject",
                               doc="layers_block_type under its alias (set after the class derived hybrid_layer_ids)"),
    "hybrid_layer_ids": Field(("hybrid_layer_ids",), None, "any",
                              doc="indices of the hybrid layers: each shared block has an adapter slot per entry"),
    "zamba_types": fixed(Derived(_layer_types, "layer_types, else layers_block_type, else the class's 54 layers")),
    "zamba_uses": fixed(Derived(_uses, "len(hybrid_layer_ids), else the hybrid layers of layers_block_type")),
    # the memory estimate's cache (memory._mixed_cache): keys and values per hybrid layer, Mamba-2 state per layer
    "layer_mixers": _layer_mixers("mamba2", "Mamba-2"),
    # the layout's switches: Mamba-2 mixers, a fused gate_up_proj, the blocks under shared_transformer
    "zamba_mixer": fixed("mamba2"),
    "zamba_mlp": fixed("fused"),
    "zamba_block_name": fixed("shared_transformer"),
    "zamba_kind_names": fixed(("mamba2_layers", "attention_mamba2_layers")),
    # RoPE (in the shared attention where use_mem_rope; Zamba2Config checks the width whatever it says)
    **ROPE,
    # (the width validate_rope reads: head_dim, i.e. attention_head_dim, the attention's own, 2 × hidden / heads where
    # not written)
    "rope_head_dim": Field(("head_dim", "attention_head_dim"),
                           Derived(lambda v: 2 * v["hidden_size"] // v["num_heads"], "2 × hidden_size / num_attention_heads"),
                           "int?", null="none", doc="width of each head of the shared attention, as RoPE reads it"),
    "rotary_embedding": Field(("use_mem_rope",), False, "bool", doc="rotary positions in the shared attention"),
    **LABEL_FIELDS,
}


def _zamba_default_types(v) -> tuple[str, ...]:
    """ZambaConfig's default layers: Mamba, Mamba, hybrid, then hybrid where i % attn_layer_period ==
    attn_layer_offset among the rest."""
    return ("linear_attention", "linear_attention", "hybrid") + tuple(
        "hybrid" if i % v["attn_layer_period"] == v["attn_layer_offset"] else "linear_attention"
        for i in range(v["num_layers"] - 3))


def _zamba_types(v) -> tuple[str, ...]:
    """The layer kinds: a written layer_types (set after __post_init__), else layers_block_type, else the default."""
    written = v["zamba_layer_types"] if v["zamba_layer_types"] is not None else v["zamba_block_types"]
    return tuple(_LEGACY.get(t, t) for t in written) if written is not None else _zamba_default_types(v)


def _zamba_head_dim(v) -> int:
    """A written head_dim (attribute_map: attention_head_dim, set after __post_init__) wins; else
    attention_head_dim, where not null or 0; else 2 × hidden_size / num_attention_heads."""
    if v["zamba_head_dim_alias"] is not None:
        return v["zamba_head_dim_alias"]
    return v["zamba_head_dim_field"] or 2 * v["hidden_size"] // v["num_heads"]


ZAMBA: dict[str, Field] = {
    "vocab_size": ZAMBA2["vocab_size"],
    "pad_token_id": pad_token(0),
    "hidden_size": Field(("hidden_size",), 3712, doc=ZAMBA2["hidden_size"].doc),
    "num_layers": Field(("num_hidden_layers",), 76, doc="Mamba layers (the hybrid ones with the shared block before)"),
    "num_heads": Field(("num_attention_heads",), 16, doc="query heads of the shared block's attention"),
    "num_kv_heads": Field(("num_key_value_heads",), 16, doc="key/value heads of the shared block's attention"),
    # head_dim (an attribute_map alias, set after __post_init__) wins, a null or 0 too; attention_head_dim (declared:
    # a null or 0 is the derived width) else
    "zamba_head_dim_alias": Field(("head_dim",), None, "int?", minimum=0, null="none",
                                  doc="width of each head of the shared attention (wins over attention_head_dim)"),
    "zamba_head_dim_field": Field(("attention_head_dim",), None, "int?", minimum=0,
                                  doc="width of each head of the shared attention (null or 0: 2 × hidden_size / "
                                      "num_attention_heads)"),
    "head_dim": fixed(Derived(_zamba_head_dim, "head_dim, else attention_head_dim, else 2 × hidden_size / "
                                               "num_attention_heads")),
    "zamba_attention_hidden": Field(("attention_hidden_size",), None, "int?", minimum=0,
                                    doc="the shared attention's input width (null or 0: 2 × hidden_size)"),
    "attention_hidden": fixed(Derived(lambda v: v["zamba_attention_hidden"] or 2 * v["hidden_size"],
                                      "attention_hidden_size, else 2 × hidden_size")),
    "floor_head_dim": fixed(True),
    "intermediate_size": Field(("intermediate_size",), 14848, minimum=0, doc="width of the shared block's MLP"),
    "tie_embeddings": ZAMBA2["tie_embeddings"],
    "max_positions": Field(("max_position_embeddings",), 4096, doc="longest sequence"),
    # Mamba mixer (every layer), split into n_mamba_heads heads
    "ssm_expand": ZAMBA2["ssm_expand"],
    "ssm_inner": ZAMBA2["ssm_inner"],
    "ssm_heads": Field(("n_mamba_heads",), 2, doc="heads of the Mamba mixer (they must divide its width)"),
    "ssm_groups": fixed(None),
    "ssm_state": Field(("mamba_d_state",), 16, doc="SSM state size per channel"),
    "ssm_conv_kernel": ZAMBA2["ssm_conv_kernel"],
    "ssm_dt_rank": Field(("mamba_dt_rank",), Derived(lambda v: -(-v["hidden_size"] // 16), "ceil(hidden_size / 16)"),
                         "int|auto", doc="rank of the time-step projection (\"auto\": ceil(hidden_size / 16))"),
    "ssm_bias": Field(("mamba_proj_bias",), False, "bool", doc="biases on the mixer's in_proj and out_proj"),
    "ssm_conv_bias": Field(("mamba_conv_bias",), True, "bool", doc="a bias on the mixer's convolution"),
    # the shared block: one, no adapters
    "num_mem_blocks": fixed(1),
    "shared_attn_adapter": fixed(False),
    "adapter_rank": fixed(0),
    "zamba_uses": fixed(0),
    "attn_layer_period": Field(("attn_layer_period",), 6, doc="one hybrid layer in this many (after the first three; "
                                                             "where layers_block_type is not written)"),
    "attn_layer_offset": Field(("attn_layer_offset",), 4, minimum=-(10**9), doc="index of the first such hybrid layer "
                                                                               "(counted from the fourth layer)"),
    "zamba_block_types": Field(("layers_block_type",), None, "strs",
                               doc="each layer's kind: hybrid (the shared block, then Mamba) or mamba"),
    "zamba_layer_types": Field(("layer_types",), None, "strs", null="reject",
                               doc="layers_block_type under its alias (set after the class's own)"),
    "zamba_types": fixed(Derived(_zamba_types, "layer_types, else layers_block_type, else the class's pattern")),
    "layer_mixers": _layer_mixers("mamba", "Mamba"),
    "zamba_mixer": fixed("mamba"),
    "zamba_mlp": fixed("gated"),
    "zamba_block_name": fixed("shared_transf"),
    "zamba_kind_names": fixed(("mamba_layers", "attention_layers")),
    **LABEL_FIELDS,
}


FAMILIES: tuple[Family, ...] = (
    # Zamba2 (Zyphra; 1.2B, 2.7B, 7B): Mamba-2 layers, shared transformer blocks with per-use adapters.
    Family("zamba2", "zamba", "Zamba2ForCausalLM", dict(ZAMBA2), causal_heads("Zamba2ForCausalLM"),
           checks=(_zamba2_check, check_pad_token),
           notes=("Zamba2's shared transformer blocks are counted once where tie_word_embeddings (transformers ties "
                  "their uses together), once per hybrid layer otherwise; LoRA adapts every hybrid layer's use of a "
                  "block (each a module of its own, tied or not), as peft does",)),
    # Zamba (Zyphra, 7B): multi-head Mamba layers, one shared transformer block (a gated MLP, no adapters).
    Family("zamba", "zamba", "ZambaForCausalLM", dict(ZAMBA), causal_heads("ZambaForCausalLM"),
           checks=(_zamba_check, check_pad_token),
           notes=("Zamba's shared transformer block is counted once where tie_word_embeddings (transformers ties its "
                  "uses together), once per hybrid layer otherwise; LoRA adapts every hybrid layer's use of the block "
                  "(each a module of its own, tied or not), as peft does",)),
)
