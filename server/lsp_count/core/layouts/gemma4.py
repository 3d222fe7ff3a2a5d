"""Gemma 4's text model (Gemma4ForCausalLM, Gemma4TextModel): a decoder whose layers differ one from another.

The family (``families/gemma4.py``) derives ``gemma4_layers``, per layer: its type, head width, key/value heads,
KV-sharing mode, whether it has k_proj and v_proj, its MLP's width. Layers alike are counted together, each kind a
node named by ``kind_name`` (memory.py counts these nodes' repeats as layers; ``layer_indices`` gives the numbers
transformers gives their layers, for LoRA's module names).

Per layer (Gemma4TextDecoderLayer): q_proj and o_proj (heads × head width), q_norm over one head; where the layer
computes its own keys and values, k_proj (and v_proj unless the keys serve as values) and k_norm (v_norm has no
weight); a gated MLP; four norms; with per-layer inputs, per_layer_input_gate, per_layer_projection and
post_per_layer_input_norm; with the MoE block, a router (proj, scale, per_expert_scale; its norm has no weight),
fused experts (gate_up_proj, down_proj) and three more norms. The model: embed_tokens; with per-layer inputs,
embed_tokens_per_layer (vocab_size_per_layer_input × layers·width), per_layer_model_projection and
per_layer_projection_norm; the final norm; the head (tied by default).
"""

from __future__ import annotations

from lsp_count.core.layouts.decoder import layer_stack, with_head
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec

KINDS = ("sliding", "full")


def kind_name(layer_type: str, own_kv: bool, width: int, base_width: int) -> str:
    """The node name of one kind of layer: "sliding_layers", "full_layers", "shared_sliding_layers" (reusing
    another layer's keys and values), "shared_wide_full_layers" (and a double-wide MLP)."""
    kind = "sliding" if layer_type == "sliding_attention" else "full"
    shared = "" if own_kv else ("shared_wide_" if width != base_width else "shared_")
    return f"{shared}{kind}_layers"


# Every kind's node name (memory.py's LAYER_STACK_NAMES).
STACK_NAMES = frozenset(f"{s}{k}_layers" for s in ("", "shared_", "shared_wide_") for k in KINDS)


def _plan(spec: ModelSpec) -> tuple:
    plan = spec.values.get("gemma4_layers")
    assert isinstance(plan, tuple), "the family's checks refuse a config with no layer plan"
    return plan


def _attention(spec: ModelSpec, d: int, kv: int, own_kv: bool, has_v: bool) -> ParamNode:
    h, heads = spec.int("hidden_size"), spec.int("num_heads")
    bias = bool(spec.values["attention_bias"])
    tensors = linear("q_proj", h, heads * d, bias) + norm("q_norm", d, False)
    if own_kv:
        tensors += norm("k_norm", d, False) + linear("k_proj", h, kv * d, bias)
        if has_v:
            tensors += linear("v_proj", h, kv * d, bias)
    tensors += linear("o_proj", heads * d, h, bias)
    note = "" if own_kv else "reuses an earlier layer's keys and values"
    if own_kv and not has_v:
        note = "keys serve as values (attention_k_eq_v)"
    return ParamNode("attention", tensors, source=spec.key_span("num_heads"), key="num_heads", note=note)


def _moe(spec: ModelSpec) -> ParamNode:
    h = spec.int("hidden_size")
    experts, f = spec.int("num_experts"), spec.int("moe_intermediate_size")
    top_k = spec.values.get("experts_per_token")
    active = min(top_k, experts) if isinstance(top_k, int) else None
    routed = ParamNode(
        "experts", (Tensor("gate_up_proj", (2 * f, h), "expert", "experts"),
                    Tensor("down_proj", (h, f), "expert", "experts")),
        repeat=experts, active_repeat=active,
        note=f"routed: {active} of {experts} per token" if active is not None else "routed: top_k_experts not set",
        source=spec.key_span("num_experts"), key="num_experts")
    # Gemma4TextRouter: an nn.Linear (router.proj), a scale per channel and one per expert; its norm has no weight.
    router = (linear("router.proj", h, experts, False) + (Tensor("router.scale", (h,), "other", "router"),
                                                          Tensor("router.per_expert_scale", (experts,), "other", "router")))
    norms = tuple(t for name in ("post_feedforward_layernorm_1", "post_feedforward_layernorm_2",
                                 "pre_feedforward_layernorm_2") for t in norm(name, h, False))
    return node("moe", routed, tensors=router + norms, source=spec.key_span("enable_moe_block"), key="enable_moe_block")


def _layer(spec: ModelSpec, name: str, count: int, d: int, kv: int, own_kv: bool, has_v: bool, width: int) -> ParamNode:
    v = spec.values
    h = spec.int("hidden_size")
    p = int(v["per_layer_width"])
    mlp = ParamNode("mlp", linear("gate_proj", h, width, False) + linear("up_proj", h, width, False)
                    + linear("down_proj", width, h, False), source=spec.key_span("intermediate_size"),
                    key="intermediate_size", note="" if width == spec.int("intermediate_size") else "double-wide")
    norms = ParamNode("norms", tuple(t for n in ("input_layernorm", "post_attention_layernorm",
                                                 "pre_feedforward_layernorm", "post_feedforward_layernorm")
                                     for t in norm(n, h, False)))
    per_layer = None
    if p:
        per_layer = ParamNode("per_layer_input", linear("per_layer_input_gate", h, p, False)
                              + linear("per_layer_projection", p, h, False) + norm("post_per_layer_input_norm", h, False),
                              source=spec.key_span("per_layer_width"), key="per_layer_width")
    moe = _moe(spec) if v["enable_moe_block"] else None
    return node(name, _attention(spec, d, kv, own_kv, has_v), mlp, moe, norms, per_layer, repeat=count)


def layer_kinds(spec: ModelSpec) -> dict[str, tuple[tuple, list[int]]]:
    """Kind name -> (its layers' shape: head width, kv heads, own keys, v_proj, MLP width; its layers' numbers), in
    the order the kinds first appear."""
    base = spec.int("intermediate_size")
    kinds: dict[str, tuple[tuple, list[int]]] = {}
    for i, (t, d, kv, _mode, own_kv, has_v, width) in enumerate(_plan(spec)):
        name = kind_name(t, own_kv, width, base)
        shape = (d, kv, own_kv, has_v, width)
        if name in kinds:
            assert kinds[name][0] == shape, "the family's checks keep each kind's layers alike"
            kinds[name][1].append(i)
        else:
            kinds[name] = (shape, [i])
    return kinds


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """For a stack of several kinds, each kind's node name -> its layers' numbers (model.layers.5.self_attn.q_proj);
    {} for any other model."""
    if spec is None or spec.family.layout != "gemma4" or not isinstance(spec.values.get("gemma4_layers"), tuple):
        return {}
    kinds = layer_kinds(spec)
    return {name: tuple(indices) for name, (_shape, indices) in kinds.items()} if len(kinds) > 1 else {}


def build_gemma4(spec: ModelSpec) -> ParamNode:
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    layers, p = spec.int("num_layers"), int(v["per_layer_width"])
    emb = embedding("embed_tokens", vocab, h)
    if p:
        emb += embedding("embed_tokens_per_layer", spec.int("per_layer_vocab"), layers * p)
    embeddings = ParamNode("embeddings", emb, source=spec.key_span("vocab_size"), key="vocab_size")
    projection = None
    if p:
        projection = ParamNode("per_layer_inputs", linear("per_layer_model_projection", h, layers * p, False)
                               + norm("per_layer_projection_norm", p, False),
                               source=spec.key_span("per_layer_width"), key="per_layer_width")
    kinds = [_layer(spec, name, len(indices), *shape) for name, (shape, indices) in layer_kinds(spec).items()]
    stack = layer_stack(kinds, spec.key_span("num_layers"), "num_layers")
    final = ParamNode("final_norm", norm("norm", h, False))
    return with_head(spec, node("model", embeddings, projection, stack, final), h)
