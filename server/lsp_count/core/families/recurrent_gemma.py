"""RecurrentGemma (Griffin): recurrent (RG-LRU) and local-attention layers, cycling through ``block_types``.

Counted by the hybrid layout (``layouts/hybrid.py``): each layer's temporal block is an "rg_lru" mixer (the
recurrent block, ``layouts/recurrent_gemma.py``) or an "attention" one, its feed-forward part a gated MLP
(``mlp_block``: gate_proj, up_proj, down_proj, intermediate_size // 2 wide, with biases), its norms
``temporal_pre_norm`` and ``channel_pre_norm``; then ``final_norm``, and the head tied to the embedding by default.
As RecurrentGemmaConfig (transformers 5) reads a config:

- layer i is block_types[i % len(block_types)] ("recurrent", anything else attention); the class refuses more
  layers than 100 repeats of block_types hold (``layers_block_type`` is 100 repeats, cut to num_hidden_layers),
  and an empty list;
- the attention's head width is hidden_size // num_attention_heads (floored) unless the file writes head_dim
  (set after the class derives its own); q, k, v have biases where attention_bias, o_proj always;
  num_key_value_heads (null: the heads) may not exceed the heads;
- lru_width (null: hidden_size) is the recurrent block's width; conv1d_width its convolution's;
- RoPE turns partial_rotary_factor of each head (0.5 unless given); only the default RoPE type builds;
- ``sliding_window`` is an ``attribute_map`` alias of attention_window_size, set past the class's field checks;
  ``layer_types`` an alias of the read-only ``layers_block_type``, which the class cannot set;
- the RMSNorms' 1 + w, the embedding's √hidden_size scaling (a buffer), final_w_init_variance_scale,
  w_init_variance_scale and logits_soft_cap hold no parameters.

The memory estimate's cache (memory._mixed_cache) is what a forward pass leaves: per attention layer the last
attention_window_size - 1 tokens' keys and values, per recurrent layer its convolution's last conv1d_width - 1
inputs (lru_width channels, in the model's dtype) and its recurrent state (lru_width values in float32).
"""

from __future__ import annotations

from lsp_count.core.families.common import written_rope
from lsp_count.core.families.decoders import FLOOR_HEADS, d, fixed, nulls, rotary_share
from lsp_count.core.families.hybrids import HEAD_DIM_NULL_KEPT, hybrid
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Field

# RecurrentGemmaConfig.layers_block_type: 100 repeats of block_types, cut to num_hidden_layers.
_REPEATS = 100


_ABSENT = False  # (sliding_window_written where the file has no sliding_window key: a JSON false is no window either)


def _block_types(v) -> tuple[str, ...]:
    return (tuple(v["block_types"]) * _REPEATS)[: v["num_layers"]]


def _window(v) -> object:
    """attention_window_size, or what the file writes under its alias sliding_window (set after it, and kept
    as written: null, a float)."""
    written = v["sliding_window_written"]
    return v["attention_window_size"] if written is _ABSENT else written


def _layers_check(spec) -> list[Problem]:
    """RecurrentGemmaConfig's validate_layer_type: num_hidden_layers entries in layers_block_type (an empty
    block_types, or more layers than 100 repeats of it, fail); ``layer_types`` and ``layers_block_type`` name a
    property the class cannot set (AttributeError)."""
    v = spec.values
    out: list[Problem] = []
    if "layer_types_written" in spec.origins:
        key = spec.key_name("layer_types_written")
        said = f'"{key}": null' if v.get("layer_types_written") is None else f'"{key}"'
        out.append(Problem("error", "LC103", f"{said}: RecurrentGemmaConfig's {key} is its read-only layers_block_type "
                                             "(derived from block_types), which it cannot set: transformers refuses "
                                             "the config (write block_types)",
                           spec.key_span("layer_types_written") or spec.span))
    types, layers = v.get("block_types"), v.get("num_layers")
    if isinstance(types, tuple) and type(layers) is int and len(types) * _REPEATS < layers:
        have = len(types) * _REPEATS
        out.append(Problem("error", "LC103", f"block_types has {len(types)} entries, repeated at most {_REPEATS} times "
                                             f"({have} layers), for {layers} layers: RecurrentGemmaConfig refuses the "
                                             "config", spec.key_span("block_types") or spec.key_span("num_layers")
                           or spec.span))
    return out


def _head_check(spec) -> list[Problem]:
    """A head_dim written as a float (a float_key) is kept as it is: only the attention reads it, whose projections
    torch refuses a float size. More key/value heads than query heads RecurrentGemmaConfig refuses (fewer that do
    not divide them it takes: the generic check warns)."""
    v = spec.values
    heads, kv = v.get("num_heads"), v.get("num_kv_heads")
    if type(heads) is int and type(kv) is int and kv > heads:
        return [Problem("error", "LC103", f"num_key_value_heads ({kv}) is more than num_attention_heads ({heads}): "
                                          "RecurrentGemmaConfig refuses the config",
                        spec.key_span("num_kv_heads") or spec.span)]
    written = v.get("head_dim_written")
    if isinstance(written, float) and "attention" in (v.get("layer_mixers") or ()):
        return [Problem("error", "LC102", f'"head_dim": expected a whole number, got {written!r}: RecurrentGemma\'s '
                                          "attention cannot be built with a float head width (write "
                                          f"{int(written) if written.is_integer() else 'a whole number'})",
                        spec.key_span("head_dim_written") or spec.span)]
    return []


# RoPE types whose check in RecurrentGemmaConfig (validate_rope) reads max_position_embeddings, which the class does
# not have (AttributeError), whatever the file writes.
_ROPE_NEEDS_MAX_POSITIONS = ("yarn", "longrope", "llama3")


def _rope_check(spec) -> list[Problem]:
    """With no attention layer no rotary embedding is built (any RoPE type but those the class's own check refuses
    builds; with attention layers only the default one, which the generic check judges)."""
    v = spec.values
    if "attention" in (v.get("layer_mixers") or ()):
        return []
    key, entry = written_rope(v)
    rope_type = entry.get("rope_type", entry.get("type")) if isinstance(entry, dict) else None
    if rope_type in _ROPE_NEEDS_MAX_POSITIONS:
        return [Problem("error", "LC103", f'{key}: rope_type "{rope_type}" is checked against max_position_embeddings, '
                                          "which RecurrentGemmaConfig does not have: transformers refuses the config",
                        spec.key_span(key) or spec.span)]
    return []


def _widths_check(spec) -> list[Problem]:
    """The RG-LRU splits lru_width into num_attention_heads blocks: a width they do not divide builds, floored,
    but its forward pass fails. (More key/value heads than heads, which RecurrentGemmaConfig refuses, is the
    generic check's: they do not divide the heads.)"""
    v = spec.values
    heads, width = v.get("num_heads"), v.get("lru_width")
    if type(heads) is int and type(width) is int and width % heads:
        return [Problem("warning", "LC103", f"num_attention_heads ({heads}) does not divide lru_width ({width:,}): "
                                            f"transformers builds the RG-LRU's gates as {heads} blocks of "
                                            f"{width // heads} (counted), but its forward pass fails",
                        spec.key_span("lru_width") or spec.key_span("num_heads") or spec.span)]
    return []


RECURRENT_GEMMA = {
    **FLOOR_HEADS,
    # (head_dim is no field of the class: a written one is set after __post_init__ derives hidden_size // heads; a
    # null is kept, and fails only where there are attention layers)
    "head_dim": HEAD_DIM_NULL_KEPT,
    # (as written: a float fails only in the attention layers, _head_check)
    "head_dim_written": Field(("head_dim",), None, "any", doc="width of each attention head, as written"),
    **{b: fixed(True) for b in ("o_bias", "mlp_bias")},
    "ffn_module": fixed("mlp_block"),
    "ffn_width": fixed(Derived(lambda v: v["intermediate_size"] // 2, "intermediate_size / 2")),
    "intermediate_size": Field(("intermediate_size",), 7680, doc="twice the width of the MLP's hidden layer "
                                                                 "(each projection is intermediate_size / 2 wide)"),
    "layer_norms": fixed(("temporal_pre_norm", "channel_pre_norm")),
    "final_norm_name": fixed("final_norm"),
    "max_positions": fixed(None),
    "lru_width": Field(("lru_width",), Derived(lambda v: v["hidden_size"], "hidden_size"), null="default",
                       doc="width of the recurrent (RG-LRU) block (null: hidden_size)"),
    "conv1d_width": Field(("conv1d_width",), 4, minimum=0, doc="width of the recurrent block's causal convolution"),
    "block_types": Field(("block_types",), ("recurrent", "recurrent", "attention"), "strs", null="reject",
                         doc='the layers\' cycle: "recurrent" (RG-LRU) or "attention" (local attention)'),
    "attention_window_size": Field(("attention_window_size",), 2048, minimum=-(10**9),
                                   doc="tokens each local-attention layer sees (and caches)"),
    "sliding_window_written": Field(("sliding_window",), _ABSENT, "any",
                                    doc="attention_window_size under its alias (wins where both are written)"),
    "layer_types_written": Field(("layer_types", "layers_block_type"), None, "any",
                                 doc="not settable: RecurrentGemmaConfig derives it from block_types"),
    "layer_mixers": fixed(Derived(lambda v: tuple("rg_lru" if t == "recurrent" else "attention" for t in _block_types(v)),
                                  "block_types repeated over num_hidden_layers: recurrent (RG-LRU) or attention")),
    "layer_ffns": fixed(Derived(lambda v: ("mlp",) * len(_block_types(v)), "a gated MLP in every layer")),
    "rope_types": fixed({"default": ()}),  # RecurrentGemmaRotaryEmbedding refuses any other
    # (each attention layer builds its own rotary embedding: with none, no RoPE type is refused but by the class)
    "rotary_embedding": fixed(Derived(lambda v: "attention" in v["layer_mixers"], "where there are attention layers")),
    **rotary_share(0.5),
    # the memory estimate's cache (memory._mixed_cache): the local attention's window; each recurrent block's conv
    # state (its last conv1d_width - 1 inputs over lru_width channels) and RG-LRU state (lru_width values)
    "attention_cache_window": fixed(Derived(_window, "sliding_window, else attention_window_size")),
    "state_conv_kernel": fixed(Derived(lambda v: max(v["conv1d_width"] - 1, 0), "conv1d_width - 1")),
    "state_conv_channels": fixed(Derived(lambda v: v["lru_width"], "lru_width")),
    "state_recurrent": fixed(Derived(lambda v: v["lru_width"], "lru_width")),
}


FAMILIES = (
    hybrid("recurrent_gemma", "RecurrentGemmaForCausalLM", RECURRENT_GEMMA,
           d(vocab_size=256000, hidden_size=2560, num_layers=26, num_heads=10, tie_embeddings=True, pad_token_id=0),
           nulls(num_kv_heads="default"),
           heads={"RecurrentGemmaForCausalLM": "causal_lm", "RecurrentGemmaModel": "base"},
           checks=(_layers_check, _head_check, _rope_check, _widths_check), float_keys=("head_dim",),
           notes=("RecurrentGemma ties its output head to the embeddings by default",)),
)
