"""Decoder-only transformers (llama, qwen, gemma, gpt2, falcon, deepseek, ...) and mamba (1 and 2).

Every decoder family is this one builder with different switches; see
``lsp_count.core.families.decoders`` for the table.
"""

from __future__ import annotations

import math

from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Span
from lsp_count.core.spec import ModelSpec, head_labels


def _norm(spec: ModelSpec, module: str, size: int) -> tuple[Tensor, ...]:
    kind = spec["norm"]
    if kind == "none":
        return ()
    return norm(module, size, bias=(kind == "layer"))


def attention(spec: ModelSpec, indexer: bool = True, sliding: bool = False, kv_shared: bool = False,
              nope: bool = False) -> ParamNode:
    """A layer's attention; ``indexer``: whether it has its own sparse-attention indexer, where the family has one
    (GLM-MoE-DSA's layers that reuse the previous layer's top-k have none); ``sliding``: whether it is a
    sliding-window layer's, where the family's sliding layers' attention differs (``sliding_kv_mult``);
    ``kv_shared``: whether the layer attends to an earlier layer's keys and values (``kv_shared_layers``), with no key
    and value projections (nor key norm) of its own; ``nope``: whether the layer rotates nothing (``nope_layers``:
    Mistral Large 4's latent attention then keeps its rotary part unrotated)."""
    v = spec.values
    h = spec.int("hidden_size")
    if v.get("kv_lora_rank"):
        return _mla_attention(spec, indexer, kv_shared, nope)
    if v.get("compressed_attention"):
        return _compressed_attention(spec, "sliding_attention")
    if v.get("attention_experts"):
        return _moa_attention(spec)
    heads, kv, d = spec.int("num_heads"), spec.int("num_kv_heads"), spec.int("head_dim")
    if sliding and v.get("sliding_kv_mult"):  # MiMo-V2-Flash: its sliding layers have more key/value heads
        kv *= int(v["sliding_kv_mult"])  # type: ignore[call-overload]
    if sliding and v.get("sliding_num_heads") is not None:  # Step 3.7: its sliding layers have their own query heads
        heads = spec.int("sliding_num_heads")
    q_out, kv_out = heads * d, kv * d
    # DBRX and MPT: the queries (MPT: keys and values too) are hidden_size wide whatever the heads floor to.
    if v.get("q_from_hidden"):
        q_out = h
    if v.get("kv_from_hidden"):
        kv_out = h
    # MiMo-V2-Flash: values (and the heads' output) value_head_dim wide, narrower than the queries and keys.
    vd = v.get("value_head_dim")
    v_out, o_in = (kv * int(vd), heads * int(vd)) if vd else (kv_out, q_out)  # type: ignore[call-overload]
    names = v["attn_names"]
    tensors: tuple[Tensor, ...] = ()
    if len(names) == 2:  # fused q/k/v projection, then output projection
        qkv_name, o_name = names
        tensors += linear(qkv_name, h, q_out + 2 * kv_out, bool(v["q_bias"]))
    else:
        q_name, k_name, v_name, o_name = names
        # MiniCPM5-MoE: the query projection also yields a sigmoid gate over each head's output, as wide again
        tensors += linear(q_name, h, 2 * q_out if v.get("query_gate") else q_out, bool(v["q_bias"]))
        if not kv_shared:
            tensors += linear(k_name, h, kv_out, bool(v["k_bias"]))
            tensors += linear(v_name, h, v_out, bool(v["v_bias"]))
    # Helium and StableLM: o_proj is hidden_size × hidden_size whatever width the heads make.
    tensors += linear(o_name, h if v.get("attn_out_from_hidden") else o_in, h, bool(v["o_bias"]))
    sinks = v.get("attention_sinks")
    if sinks and (sinks != "sliding" or sliding):  # GPT-OSS: a learned sink logit per head (MiMo: sliding layers')
        tensors += (Tensor("sinks", (heads,), "other", "self_attn"),)
    if v.get("attn_output_gate"):  # AFMoE: a sigmoid gate over the heads' output, its own projection from the input
        # (HRM-Text's has a bias by attention_bias: attn_output_gate_bias; Step 3.7's, g_proj, one gate per head where
        # attn_output_gate_per_head, else one per channel)
        gate_width = heads if v.get("attn_output_gate_per_head") else q_out
        tensors += linear(str(v.get("attn_output_gate_name") or "gate_proj"), h, gate_width,
                          bool(v.get("attn_output_gate_bias")))
        if v.get("attn_output_gate_head_bias"):  # Beam: one learned bias per head on that gate (gate_bias)
            tensors += (Tensor("gate_bias", (heads,), "bias", "self_attn"),)
    if v.get("dynamic_mask"):  # Doge: a dynamic mask from the values, dt_proj (one per key/value head) and A
        tensors += linear("dt_proj", kv_out, kv, bool(v["v_bias"])) + (Tensor("A", (kv,), "other", "self_attn"),)
    if v.get("attn_sub_norm"):  # BitNet: a norm over the heads' output before o_proj, hidden_size wide
        tensors += _norm(spec, "attn_sub_norm", h)
    if v.get("diff_lambdas"):  # DiffLlama: λ_q1, λ_k1, λ_q2, λ_k2, head_dim each (its groupnorm has no weights)
        tensors += tuple(Tensor(f"lambda_{n}", (d,), "other", "self_attn") for n in ("q1", "k1", "q2", "k2"))
    qk_norm = v["qk_norm"]
    if qk_norm == "head":  # one norm over head_dim, shared by all heads (qwen3, gemma3)
        q_norm, k_norm = v.get("qk_norm_names") or ("q_norm", "k_norm")  # HunYuan: query_ / key_layernorm
        tensors += _norm(spec, q_norm, d) + (() if kv_shared else _norm(spec, k_norm, d))
    elif qk_norm == "head_layernorm":  # phi: LayerNorm(hidden_size / heads) with bias, whatever head_dim says
        tensors += norm("q_layernorm", h // heads, True) + norm("k_layernorm", h // heads, True)
    elif qk_norm == "per_head_layernorm":  # stablelm: a LayerNorm(head_dim) with no bias for each head
        tensors += norm("q_layernorm", q_out, False) + norm("k_layernorm", kv_out, False)
    elif qk_norm == "full":  # olmo2 and cohere: per-channel norms over all heads
        tensors += _norm(spec, "q_norm", q_out) + _norm(spec, "k_norm", kv_out)
    elif qk_norm == "full_hidden":  # olmoe: the same, sized from hidden_size whatever head_dim says
        tensors += _norm(spec, "q_norm", h) + _norm(spec, "k_norm", h // heads * kv)
    return ParamNode("attention", tensors, source=spec.key_span("num_heads"), key="num_heads")


def _mla_attention(spec: ModelSpec, indexer: bool = True, kv_shared: bool = False, nope_layer: bool = False) -> ParamNode:
    """DeepSeek multi-head latent attention: low-rank q and compressed kv. ``kv_shared``: the layer reads an earlier
    layer's latent, with no kv_a_proj_with_mqa nor kv_a_layernorm; ``nope_layer``: a layer that rotates nothing
    (Mistral Large 4's), whose compressed kv has no rotary part and whose keys take it as unrotated width."""
    v = spec.values
    h, heads = spec.int("hidden_size"), spec.int("num_heads")
    nope, rope, vd = spec.int("qk_nope_head_dim"), spec.int("qk_rope_head_dim"), spec.int("v_head_dim")
    kv_rank = spec.int("kv_lora_rank")
    q_rank = v.get("q_lora_rank")
    bias = bool(v["o_bias"])
    # LongCat-Flash: the queries' and keys' head width as its config says (qk_head_dim), else nope + rope.
    qk = int(v.get("qk_head_dim") or nope + rope)  # type: ignore[call-overload]
    tensors: tuple[Tensor, ...] = ()
    if q_rank and v.get("mla_query_gate"):
        # A.X-K2: one projection from twice the low rank yields each head's query and its output gate (v_head_dim)
        tensors += linear("q_a_proj", h, q_rank, bias) + norm("q_a_layernorm", q_rank, False)
        tensors += linear("q_gate_proj", 2 * q_rank, heads * (qk + vd), False)
    elif q_rank:
        tensors += linear("q_a_proj", h, q_rank, bias) + norm("q_a_layernorm", q_rank, False)
        tensors += linear("q_b_proj", q_rank, heads * qk, False)
    else:
        tensors += linear("q_proj", h, heads * qk, False)
    # A NoPE layer's latent has no rotated key, and its keys take that width unrotated (the queries keep qk).
    if nope_layer:
        nope, rope = nope + rope, 0
    if not kv_shared:
        tensors += linear("kv_a_proj_with_mqa", h, kv_rank + rope, bias) + norm("kv_a_layernorm", kv_rank, False)
    tensors += linear("kv_b_proj", kv_rank, heads * (nope + vd), False)
    tensors += linear("o_proj", heads * vd, h, bias)
    if v.get("softmax_scaling"):  # Mistral Large 4: a learned scale and bias per head over log(position + 1)
        tensors += _softmax_scaling("softmax_scaling", heads)
    if v.get("attn_output_gate"):  # HY-V4: a sigmoid gate over the heads' output (v_head_dim each), from the input
        tensors += linear("gate_proj", h, heads * vd, False)
    if v.get("attention_sinks"):  # HY-V4: a learned sink logit per head
        tensors += (Tensor("sinks", (heads,), "other", "self_attn"),)
    if v.get("index_n_heads") and indexer:  # DeepSeek-V3.2's sparse-attention indexer: its own queries, one key, head weights
        ih, idim = spec.int("index_n_heads"), spec.int("index_head_dim")
        # (indexer_from_hidden, Mistral Large 4's, with no low-rank query to read: a LayerNorm over the input, wq_b
        # from it, and a softmax scaling per indexer head)
        from_hidden = bool(v.get("indexer_from_hidden"))
        tensors += (linear("indexer.wq_b", h if from_hidden else int(q_rank or 0), ih * idim, False)
                    + linear("indexer.wk", h, idim, False)
                    + norm("indexer.k_norm", idim, True) + linear("indexer.weights_proj", h, ih, False))
        if from_hidden:
            tensors += norm("indexer.q_input_norm", h, True) + _softmax_scaling("indexer.softmax_scaling", ih)
    return ParamNode("attention", tensors, source=spec.key_span("kv_lora_rank"), key="kv_lora_rank",
                     note="multi-head latent attention")


# DeepSeek-V4's attention layer types (layer_types) and the compressor each has: none (sliding-window attention
# alone), a compressed sparse attention's (CSA: overlapping windows, with its lightning indexer) or a heavily
# compressed attention's (HCA).
COMPRESSED_LAYER_TYPES = ("sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention")


def _softmax_scaling(module: str, heads: int) -> tuple[Tensor, ...]:
    """Mistral Large 4's query scaling: a learned scale and bias per head (scale · log(position + 1) + bias)."""
    return tuple(Tensor(f"{module}.{name}", (heads,), "other", module.rsplit(".", 1)[-1]) for name in ("scale", "bias"))


def _compressed_attention(spec: ModelSpec, layer_type: str) -> ParamNode:
    """DeepSeek-V4's attention: a low-rank query (q_a_proj, an RMS norm q_a_norm, q_b_proj), one key/value head
    (kv_proj and its norm kv_norm, read as both key and value), a grouped low-rank output projection (o_a_proj, an
    nn.Linear of o_groups blocks: num_heads × head_dim / o_groups → o_groups × o_lora_rank; o_b_proj), a learned sink
    per head; and by ``layer_type`` a compressor (``compress_rates`` its window): an HCA's kv_proj and gate_proj
    (head_dim wide), a position bias per window slot and kv_norm; a CSA's twice as wide (two overlapping series) and
    its indexer (the same at index_head_dim, its own q_b_proj, and the scorer's weights_proj)."""
    v = spec.values
    h, heads, d = spec.int("hidden_size"), spec.int("num_heads"), spec.int("head_dim")
    q_rank, groups, o_rank = spec.int("q_lora_rank"), spec.int("o_groups"), spec.int("o_lora_rank")
    tensors = (linear("q_a_proj", h, q_rank, False) + norm("q_a_norm", q_rank, False)
               + linear("q_b_proj", q_rank, heads * d, False) + linear("kv_proj", h, d, False) + norm("kv_norm", d, False)
               + linear("o_a_proj", heads * d // groups, groups * o_rank, False)
               + linear("o_b_proj", groups * o_rank, h, False) + (Tensor("sinks", (heads,), "other", "self_attn"),))
    rates = dict(v.get("compress_rates") or ())  # type: ignore[arg-type]
    if layer_type == "heavily_compressed_attention":
        rate = int(rates[layer_type])
        tensors += (linear("compressor.kv_proj", h, d, False) + linear("compressor.gate_proj", h, d, False)
                    + (Tensor("compressor.position_bias", (rate, d), "other", "compressor"),)
                    + norm("compressor.kv_norm", d, False))
    elif layer_type == "compressed_sparse_attention":
        rate = int(rates[layer_type])
        ih, idim = spec.int("index_n_heads"), spec.int("index_head_dim")
        tensors += (linear("compressor.kv_proj", h, 2 * d, False) + linear("compressor.gate_proj", h, 2 * d, False)
                    + (Tensor("compressor.position_bias", (rate, 2 * d), "other", "compressor"),)
                    + norm("compressor.kv_norm", d, False)
                    + linear("compressor.indexer.kv_proj", h, 2 * idim, False)
                    + linear("compressor.indexer.gate_proj", h, 2 * idim, False)
                    + (Tensor("compressor.indexer.position_bias", (rate, 2 * idim), "other", "indexer"),)
                    + norm("compressor.indexer.kv_norm", idim, False)
                    + linear("compressor.indexer.q_b_proj", q_rank, ih * idim, False)
                    + linear("compressor.indexer.scorer.weights_proj", h, ih, False))
    return ParamNode("attention", tensors, source=spec.key_span("layer_types") or spec.key_span("num_heads"),
                     key="layer_types", note=layer_type.replace("_", " "))


def hyper_connections(spec: ModelSpec, names: tuple[str, ...]) -> ParamNode | None:
    """DeepSeek-V4's manifold-constrained hyper-connections (where the family's ``hyper_connections`` gives their
    streams, hc_mult): per name, a projection of the hc_mult streams (fn: (2 + hc_mult) · hc_mult × hc_mult ·
    hidden_size), its bias (base) and three scales; None for a family without them."""
    streams = spec.values.get("hyper_connections")
    if streams is None:
        return None
    n, h = int(streams), spec.int("hidden_size")  # type: ignore[call-overload]
    # HY-V4's (hyper_connection_comb false) drop the n × n stream mixing: their pre and post weights alone, two scales
    comb = spec.values.get("hyper_connection_comb", True)
    width, scales = ((2 + n) * n, 3) if comb else (2 * n, 2)
    tensors: tuple[Tensor, ...] = ()
    for name in names:
        tensors += (Tensor(f"{name}.fn", (width, n * h), "other", name), Tensor(f"{name}.base", (width,), "other", name),
                    Tensor(f"{name}.scale", (scales,), "other", name))
    return ParamNode("hyper_connections", tensors, source=spec.key_span("hyper_connections"), key="hyper_connections")


def _moa_attention(spec: ModelSpec) -> ParamNode:
    """JetMoE's mixture of attention heads: one kv_proj shared by all; per expert a query projection
    (input_linear) and an output projection (output_linear), num_kv_heads × head_dim wide, of which a token uses
    top-k; an nn.Linear router (experts.router.layer) and an output bias (experts.bias)."""
    v = spec.values
    h, kv, d = spec.int("hidden_size"), spec.int("num_kv_heads"), spec.int("head_dim")
    experts = spec.int("num_experts")
    top_k = v.get("experts_per_token")
    active = min(top_k, experts) if isinstance(top_k, int) else None
    width = kv * d
    routed = ParamNode("attention_experts", (Tensor("input_linear", (width, h), "expert", "experts"),
                                             Tensor("output_linear", (h, width), "expert", "experts")),
                       repeat=experts, active_repeat=active,
                       note=f"routed: {active} of {experts} per token" if active is not None else
                       "routed: num_experts_per_tok not set", source=spec.key_span("num_experts"), key="num_experts")
    router = ParamNode("attention_router", linear(str(v.get("router_name") or "gate"), h, experts, False))
    return ParamNode("attention", linear("kv_proj", h, 2 * width, False) + (Tensor("bias", (h,), "bias", "experts"),),
                     (router, routed), source=spec.key_span("num_kv_heads"), key="num_kv_heads",
                     note="mixture of attention heads")


def mlp(spec: ModelSpec, ffn: int, name: str = "mlp", key: str = "intermediate_size") -> ParamNode:
    v = spec.values
    h = spec.int("hidden_size")
    bias = bool(v["mlp_bias"])
    names = v["mlp_names"]
    if v["mlp_gated"]:
        if len(names) == 2:  # fused gate_up projection (phi3)
            tensors = linear(names[0], h, 2 * ffn, bias) + linear(names[1], ffn, h, bias)
        else:
            tensors = linear(names[0], h, ffn, bias) + linear(names[1], h, ffn, bias) + linear(names[2], ffn, h, bias)
    else:
        tensors = linear(names[0], h, ffn, bias) + linear(names[1], ffn, h, bias)
    if v.get("mlp_sub_norm"):  # BitNet: a norm over the gated product before down_proj, ffn wide
        tensors += _norm(spec, "ffn_sub_norm", ffn)
    # Apertus: an activation with learned scalars (xIELU's alpha_p and alpha_n, PReLU's weight), one each.
    tensors += tuple(Tensor(f"act_fn.{p}", (1,), "other", "act_fn") for p in v.get("act_params") or ())
    experts = _retrieval_experts(spec) if name == "mlp" else None
    if experts is not None:  # Doge's CDMoE: the MLP above is its shared expert
        tensors += experts[0]
    return ParamNode(name, tensors, experts[1:] if experts is not None else (), source=spec.key_span(key), key=key)


def _retrieval_experts(spec: ModelSpec) -> tuple | None:
    """Doge's cross-domain MoE (where the family's "retrieval_experts" says): a router_gate to 2·⌊√experts⌋ product
    keys, and per expert one row of down_embed and one of up_embed (nn.Embedding, hidden_size wide), of which a token
    uses top-k: (the router's tensors, the experts' node); None where the layer has none."""
    v = spec.values
    if not v.get("retrieval_experts"):
        return None
    h, experts = spec.int("hidden_size"), int(v["retrieval_experts"])
    top_k = v.get("experts_per_token")
    active = min(top_k, experts) if isinstance(top_k, int) else None
    routed = ParamNode("experts", (Tensor("down_embed", (h,), "embedding", "down_embed"),
                                   Tensor("up_embed", (h,), "embedding", "up_embed")),
                       repeat=experts, active_repeat=active,
                       note=f"routed: {active} of {experts} per token" if active is not None else
                       "routed: num_experts_per_tok not set", source=spec.key_span("retrieval_experts"),
                       key="retrieval_experts")
    return linear("router_gate", h, 2 * math.isqrt(experts), False), routed


def moe(spec: ModelSpec) -> ParamNode:
    v = spec.values
    # DBRX: the experts and router take the width d_model had when the config copied it into ffn_config.
    h = spec.int("moe_hidden") if v.get("moe_hidden") else spec.int("hidden_size")
    experts, f = spec.int("num_experts"), spec.int("moe_intermediate_size")
    top_k = v.get("experts_per_token")  # None: not set (DeepSeek-V2's default), which experts run is not known
    gated = bool(v["mlp_gated"])
    expert_tensors = (
        (Tensor("gate_up_proj", (2 * f, h), "expert", "experts"), Tensor("down_proj", (h, f), "expert", "experts"))
        if gated else
        (Tensor("fc1", (f, h), "expert", "experts"), Tensor("fc2", (h, f), "expert", "experts"))
    )
    if v.get("expert_bias"):  # GPT-OSS: each expert's projections have biases
        expert_tensors += (Tensor("gate_up_proj_bias", (2 * f,), "bias", "experts"),
                           Tensor("down_proj_bias", (h,), "bias", "experts"))
    active = min(top_k, experts) if isinstance(top_k, int) else None
    # LongCat-Flash: the router also scores zero_experts identity experts (no parameters), which a token may be routed to.
    zero = int(v.get("zero_experts") or 0)  # type: ignore[call-overload]
    routed = ParamNode(
        "experts", expert_tensors, repeat=experts, active_repeat=active,
        note=(f"routed: up to {active} of {experts} per token (the rest of the top {top_k} to {zero} zero experts)"
              if zero and active is not None else
              f"routed: {active} of {experts} per token" if active is not None else "routed: num_experts_per_tok not set"),
        source=spec.key_span("num_experts"), key="num_experts",
    )
    # The router's module: "gate" (Mixtral, Qwen, DeepSeek), "router" (PhiMoE's nn.Linear, GraniteMoE's).
    router_tensors = linear(str(v.get("router_name") or "gate"), h, experts + zero, bool(v.get("router_bias")))
    statics = None
    if v.get("router_statics"):  # ERNIE 4.5: a (1, experts) score correction bias, a parameter with no gradient
        statics = ParamNode("moe_statics", (Tensor("e_score_correction_bias", (1, experts), "other", "moe_statics"),),
                            frozen=True)
    elif v.get("router_frozen_bias"):  # Laguna: the router's per-expert selection bias, a parameter with no gradient
        statics = ParamNode("selection_bias", (Tensor("gate.e_score_correction_bias", (experts,), "other", "gate"),),
                            frozen=True)
    router = ParamNode("router", router_tensors, (statics,) if statics else ())
    shared = None
    shared_ffn = v.get("shared_intermediate_size")
    # (shared_expert_always: the family builds its shared expert whatever its width, Laguna's, Qwen2-MoE's, Aria's...:
    # at 0, projections of no parameters, which LoRA adapts all the same)
    if shared_ffn:
        shared = mlp(spec, int(shared_ffn), "shared_experts", "shared_intermediate_size")
    elif shared_ffn == 0 and v.get("shared_expert_always"):
        empty = mlp(spec, 0, "shared_experts", "shared_intermediate_size")
        shared = ParamNode(empty.name, empty.tensors, source=empty.source, key=empty.key,
                           note="0 wide: no parameters (LoRA adapts its projections all the same)")
    shared_gate = ParamNode("shared_expert_gate", linear("shared_expert_gate", h, 1, False)) if v.get("shared_expert_gate") else None
    # JetMoE: one bias (hidden_size wide) on the experts' sum.
    block_tensors = (Tensor("bias", (h,), "bias", "moe"),) if v.get("experts_out_bias") else ()
    if v.get("moe_output_norm"):  # A.X-K1: a norm (its module's name) over the block's output, routed plus shared
        block_tensors += _norm(spec, str(v["moe_output_norm"]), h)
    # AFMoE: a per-expert routing bias on the block (expert_bias), a parameter with no gradient.
    score_bias = None
    if v.get("frozen_expert_bias"):
        name = str(v["frozen_expert_bias"])
        score_bias = ParamNode(name, (Tensor(name, (experts,), "other", "moe"),), frozen=True)
    return node("moe", router, routed, shared, shared_gate, score_bias, tensors=block_tensors,
                source=spec.key_span("num_experts"), key="num_experts")


def _layer_norms(spec: ModelSpec, moe: bool = False) -> ParamNode | None:
    """A layer's norms; ``moe``: whether it is a MoE layer, where the family gates more of them (gated_moe_norms)."""
    v = spec.values
    h = spec.int("hidden_size")
    gated = set(v.get("gated_norms") or ()) | (set(v.get("gated_moe_norms") or ()) if moe else set())  # type: ignore[arg-type]
    tensors: tuple[Tensor, ...] = ()
    for name in spec["layer_norms"]:  # type: ignore[union-attr]
        if name in gated:  # A.X-K2: the norm, then a sigmoid gate from a low-rank MLP (fc1, fc2) over its output
            r = spec.int("gated_norm_rank")
            tensors += (_norm(spec, f"{name}.norm", h) + linear(f"{name}.mlp.fc1", h, r, False)
                        + linear(f"{name}.mlp.fc2", r, h, False))
        else:
            tensors += _norm(spec, name, h)
    return ParamNode("norms", tensors) if tensors else None


def moe_layer_count(spec: ModelSpec) -> int:
    """How many decoder layers use routed experts instead of a dense MLP."""
    return sum(moe_layer_flags(spec))


def moe_layer_flags(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it uses routed experts instead of a dense MLP."""
    v = spec.values
    layers = spec.int("num_layers")
    experts = v.get("num_experts")
    # (0 experts: MoE blocks with none where the family builds them so, else the dense MLP; without_experts)
    if experts is None or (not experts and v.get("without_experts") != "moe"):
        return (False,) * layers
    rule = v["moe_layers"]
    if rule == "all":
        return (True,) * layers
    if rule == "sparse_step":  # qwen2_moe / qwen3_moe: (i + 1) % step == 0 and i not in mlp_only_layers
        step = spec.int("decoder_sparse_step")
        only_dense = set(v.get("mlp_only_layers") or ())  # type: ignore[arg-type]
        return tuple((i + 1) % step == 0 and i not in only_dense for i in range(layers))
    if rule == "first_k_dense":  # deepseek: layers from first_k_dense_replace on
        return tuple(i >= int(v.get("first_k_dense_replace") or 0) for i in range(layers))
    if rule == "layer_list":  # Llama 4: the layers moe_layers names (else every interleave_moe_layer_step-th)
        listed = set(v.get("moe_layer_indices") or ())  # type: ignore[arg-type]
        return tuple(i in listed for i in range(layers))
    if rule == "interval_range":  # ERNIE 4.5: every moe_layer_interval-th layer from start to end index (-1: the last)
        step, start, end = v["moe_layer_interval"], v["moe_layer_start_index"], v["moe_layer_end_index"]
        end = layers - 1 if end == -1 else end
        return tuple((i + 1) % step == 0 and i >= start and i <= end for i in range(layers))  # type: ignore[operator]
    if rule == "mlp_layer_types":  # GLM-4.7-Flash, DeepSeek-V3.2: the layers whose mlp_layer_types entry is "sparse"
        types = tuple(v.get("mlp_layer_types") or ())  # type: ignore[arg-type]
        return tuple(i < len(types) and types[i] == "sparse" for i in range(layers))
    raise ValueError(f"unknown moe layer rule {rule!r}")


# The layer kinds of a stack whose layers differ in whether they have their own sparse-attention indexer
# (``indexer_layers``: GLM-MoE-DSA's layers that reuse the previous one's top-k have none), beside "dense_layers" and
# "moe_layers" (memory.py counts these nodes' repeats as layers).
NO_INDEXER = "_no_indexer"
# Layers that attend to an earlier layer's keys and values (``kv_shared_layers``), whose attention has no key/value
# projections: "dense_layers_kv_shared", "moe_layers_no_indexer_kv_shared", ...
KV_SHARED = "_kv_shared"
# DeepSeek-V4's layers by their attention's layer type (layer_types): "sliding_attention_layers", ...
COMPRESSED_KINDS = tuple(t + "_layers" for t in COMPRESSED_LAYER_TYPES)
# Mllama's text model: the layers its ``cross_attention_layers`` lists attend to the image (cross_attention_layer).
CROSS_ATTENTION_KIND = "cross_attention_layers"
# MiMo-V2-Flash (``sliding_kv_mult``) and Step 3.7 (``sliding_num_heads``): its sliding-window layers (layer_types),
# whose attention differs, apart.
SLIDING = "_sliding"
# Mistral Large 4's layers that rotate nothing (``nope_layers``), whose latent attention is shaped otherwise:
# "dense_layers_nope", "moe_layers_kv_shared_nope", ...
NOPE = "_nope"


def _flagged_kinds(base: str) -> tuple[str, ...]:
    """``base`` ("dense_layers", "moe_layers") with each combination of the per-layer flags, in the tree's order."""
    return tuple(f"{base}{i}{s}{n}" for i in ("", NO_INDEXER) for s in ("", KV_SHARED) for n in ("", NOPE))


# Every kind, in the order the stack's node holds them.
_KIND_ORDER = (*_flagged_kinds("dense_layers"), "dense_layers" + SLIDING, *_flagged_kinds("moe_layers"),
               "moe_layers" + SLIDING, *COMPRESSED_KINDS, CROSS_ATTENTION_KIND)
STACK_NAMES = frozenset(_KIND_ORDER)


def indexer_layer_flags(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it has its own sparse-attention indexer (where the family has one): the
    family's ``indexer_layers``, else every layer."""
    layers = spec.int("num_layers")
    flags = spec.values.get("indexer_layers")
    flags = tuple(flags[:layers]) if isinstance(flags, tuple) else ()
    return flags + (True,) * (layers - len(flags))


def layer_kind_names(spec: ModelSpec) -> tuple[str, ...]:
    """Each decoder layer's kind: "dense_layers" or "moe_layers", "_no_indexer" added where the layer lacks the
    indexer its family's other layers have, "_kv_shared" where it reads an earlier layer's keys and values, "_nope"
    where it rotates nothing (its latent attention shaped otherwise)."""
    if spec.values.get("compressed_attention"):  # DeepSeek-V4: every layer a MoE one, kinds by attention type
        return tuple(f"{t}_layers" for t in spec["layer_types"][:spec.int("num_layers")])  # type: ignore[index]
    crossed = cross_attention_flags(spec)
    if any(crossed):
        return tuple(CROSS_ATTENTION_KIND if cross else "dense_layers" for cross in crossed)
    # MiMo-V2-Flash (more key/value heads) and Step 3.7 (its own query heads): dense or MoE, and sliding or not
    if spec.values.get("sliding_kv_mult") or spec.values.get("sliding_num_heads") is not None:
        types = tuple(spec.values.get("layer_types") or ())
        return tuple(("moe_layers" if moe else "dense_layers") + (SLIDING if i < len(types) and types[i] ==
                                                                  "sliding_attention" else "")
                     for i, moe in enumerate(moe_layer_flags(spec)))
    flags = zip(moe_layer_flags(spec), indexer_layer_flags(spec), kv_shared_layer_flags(spec), nope_layer_flags(spec))
    return tuple(("moe_layers" if moe else "dense_layers") + ("" if indexed else NO_INDEXER)
                 + (KV_SHARED if shared else "") + (NOPE if nope else "") for moe, indexed, shared, nope in flags)


def nope_layer_flags(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it rotates nothing (the family's ``nope_layers``: Mistral Large 4's layers
    whose no_rope_layers entry is 0); none where the family has no such layers."""
    layers = spec.int("num_layers")
    flags = spec.values.get("nope_layers")
    flags = tuple(bool(f) for f in flags[:layers]) if isinstance(flags, tuple) else ()
    return flags + (False,) * (layers - len(flags))


def kv_shared_layer_flags(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it attends to an earlier layer's keys and values (the family's
    ``kv_shared_layers``: Kolibri 1.1's layers whose kv_source_layers entry names another layer), with no key/value
    projections of its own and nothing in the cache; none where the family has no such layers."""
    layers = spec.int("num_layers")
    flags = spec.values.get("kv_shared_layers")
    flags = tuple(bool(f) for f in flags[:layers]) if isinstance(flags, tuple) else ()
    return flags + (False,) * (layers - len(flags))


def cross_attention_flags(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it is a cross-attention layer (the family's ``cross_attention_layers``, a
    list of layer numbers: Mllama's text model; a number outside the stack names no layer)."""
    listed = spec.values.get("cross_attention_layers")
    layers = spec.int("num_layers")
    if not isinstance(listed, (list, tuple)):
        return (False,) * layers
    crossed = {x for x in listed if type(x) is int}
    return tuple(i in crossed for i in range(layers))


def cross_attention(spec: ModelSpec) -> ParamNode:
    """Mllama's cross_attn: q/k/v/o_proj as its self-attention's, and q_norm / k_norm over the head width."""
    d = spec.int("head_dim")
    own = attention(spec)
    return ParamNode("cross_attention", own.tensors + _norm(spec, "q_norm", d) + _norm(spec, "k_norm", d),
                     source=spec.key_span("cross_attention_layers"), key="cross_attention_layers",
                     note="attends to the image")


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """A decoder stack of several layer kinds (dense and MoE layers; with and without an indexer): each kind's node
    ("dense_layers", "moe_layers", ...) -> the numbers transformers gives its layers (model.layers.3.mlp.gate), for
    formats/lora.apply_lora's ``layer_indices``; {} for a stack of one kind. (The tree holds the dense layers first:
    where the kinds interleave, as with Qwen2-MoE's decoder_sparse_step, ERNIE 4.5's interval or Llama 4's
    moe_layers, only these numbers place them.)"""
    if spec is None or spec.family.layout != "decoder":
        return {}
    out: dict[str, list[int]] = {}
    for i, name in enumerate(layer_kind_names(spec)):
        out.setdefault(name, []).append(i)
    return {name: tuple(out[name]) for name in sorted(out, key=_KIND_ORDER.index)} if len(out) > 1 else {}


def decoder_stack(spec: ModelSpec) -> ParamNode:
    v = spec.values
    names = layer_kind_names(spec)
    norms = _layer_norms(spec)
    src, key = spec.key_span("num_layers"), "num_layers"
    kinds: list[ParamNode] = []
    # Doge: learned per-channel scales on each residual branch (input_residual, post_attention_residual).
    scales = tuple(Tensor(name, (spec.int("hidden_size"),), "other", "layer") for name in v.get("residual_scales") or ())
    scales_node = ParamNode("residual_scales", scales) if scales else None
    hyper = hyper_connections(spec, ("attn_hc", "ffn_hc"))
    for name in _KIND_ORDER:
        repeat = names.count(name)
        if not repeat:
            continue
        gates = None
        if name in COMPRESSED_KINDS:
            attn = _compressed_attention(spec, name[: -len("_layers")])
        elif name == CROSS_ATTENTION_KIND:  # Mllama: tanh gates (one number each) on the layer's two branches
            attn = cross_attention(spec)
            gates = ParamNode("gates", tuple(Tensor(g, (1,), "other", g)
                                             for g in ("cross_attn_attn_gate", "cross_attn_mlp_gate")))
        else:
            attn = attention(spec, NO_INDEXER not in name, name.endswith(SLIDING), KV_SHARED in name, name.endswith(NOPE))
        ffn = moe(spec) if name.startswith("moe") or name in COMPRESSED_KINDS else mlp(spec, spec.int("intermediate_size"))
        if v.get("dual_sublayers"):  # LongCat-Flash
            kinds.append(_dual_sublayer_layer(spec, name, attn, ffn, repeat))
            continue
        if v.get("gated_moe_norms"):  # A.X-K2: its MoE layers' norms differ from its dense layers'
            norms = _layer_norms(spec, name.startswith("moe"))
        kinds.append(node(name, attn, ffn, norms, gates, scales_node, hyper, repeat=repeat))
    return layer_stack(kinds, src, key)


def _dual_sublayer_layer(spec: ModelSpec, name: str, attn: ParamNode, ffn: ParamNode, repeat: int) -> ParamNode:
    """LongCat-Flash's layer (the family's ``dual_sublayers``): two attention sublayers (self_attn.0 and .1), each
    followed by a dense MLP (mlps.0 and .1), with input_layernorm.0/.1 and post_attention_layernorm.0/.1, and one
    shortcut MoE (``ffn``: mlp) beside them."""
    f = spec.int("intermediate_size")
    h = spec.int("hidden_size")
    sublayers = []
    for i in (0, 1):
        sublayers.append(ParamNode(f"attention_{i}", attn.tensors, attn.children, source=attn.source, key=attn.key,
                                   note=attn.note))
    for i in (0, 1):
        sublayers.append(mlp(spec, f, f"mlp_{i}"))
    norms = ParamNode("norms", tuple(t for n in ("input_layernorm", "post_attention_layernorm") for i in (0, 1)
                                     for t in _norm(spec, f"{n}.{i}", h)))
    return node(name, *sublayers, ffn, norms, repeat=repeat)


def layer_stack(kinds: list[ParamNode], src: Span | None, key: str) -> ParamNode:
    """The "layers" node of a stack whose layers come in ``kinds`` (each a node repeated as often as there are
    layers of that kind): the kind itself, renamed, where all layers are alike."""
    if len(kinds) == 1:
        only = kinds[0]
        return ParamNode("layers", only.tensors, only.children, repeat=only.repeat, source=src, key=key)
    return node("layers", *kinds, source=src, key=key)


def build_decoder(spec: ModelSpec) -> ParamNode:
    """A decoder-only language model: embeddings, layers, final norm, head."""
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    embed_dim = int(v.get("embed_dim") or h)
    # (Mllama's text model: special image tokens, extra_embedding_rows more rows than the vocabulary)
    emb_tensors = embedding("embed_tokens", vocab + int(v.get("extra_embedding_rows") or 0), embed_dim)
    positions = v.get("position_rows") or 0
    if positions:
        emb_tensors += embedding("embed_positions", int(positions), h)
    if v.get("embed_norm"):
        emb_tensors += norm("embed_layernorm", h, True)
    embeddings = ParamNode("embeddings", emb_tensors, source=spec.key_span("vocab_size"), key="vocab_size")
    project = None
    if embed_dim != h:  # OPT-350m: embeddings narrower than the model, projected in and out
        project = ParamNode("projections", linear("project_in", embed_dim, h, False) + linear("project_out", h, embed_dim, False))
    final = ParamNode("final_norm", _norm(spec, "norm", h)) if v["final_norm"] else None
    head_hc = None
    if v.get("hyper_connections") is not None:  # DeepSeek-V4: the streams' last collapse (hc_head) before the norm
        n = int(v["hyper_connections"])  # type: ignore[call-overload]
        head_hc = ParamNode("hc_head", (Tensor("hc_head.hc_fn", (n, n * h), "other", "hc_head"),
                                        Tensor("hc_head.hc_base", (n,), "other", "hc_head"),
                                        Tensor("hc_head.hc_scale", (1,), "other", "hc_head")))
    # GPT-NeoX-Japanese: hidden-wide vectors the last layer alone holds (its attention's dense_bias).
    last = tuple(Tensor(str(name), (h,), "bias", str(name).rsplit(".", 2)[-2]) for name in v.get("last_layer_vectors") or ())
    last_layer = ParamNode("last_layer", last, note="the last layer's alone") if last else None
    # HRM-Text: hidden_size-wide vectors on the model that do not train (requires_grad=False: its z_L_init)
    frozen = tuple(Tensor(str(name), (h,), "other", str(name))
                   for name in v.get("frozen_model_vectors") or ())  # type: ignore[attr-defined]
    states = ParamNode("frozen_vectors", frozen, frozen=True) if frozen else None
    # Mistral Large 4 (LeRoPE): a learned log-scale per rotary frequency on the rotary embedding
    freqs = v.get("rotary_alpha")
    alpha = Tensor("rotary_emb.alpha", (int(freqs),), "other", "rotary_emb") if freqs is not None else None  # type: ignore[call-overload]
    rotary = ParamNode("rotary_emb", (alpha,), note="learned per-frequency scales") if alpha is not None else None
    body = node("model", embeddings, project, decoder_stack(spec), last_layer, head_hc, final, states, rotary)
    return with_head(spec, body, embed_dim)


def with_head(spec: ModelSpec, body: ParamNode, width: int) -> ParamNode:
    """The architecture's node: the model ``body`` alone (the base class), or with its score (sequence
    classification) or lm_head (tied to embed_tokens where tie_embeddings; a bias of its own where
    head_bias) over ``width`` values."""
    v = spec.values
    vocab = spec.int("vocab_size")
    if spec.head == "base":
        return ParamNode(spec.architecture, children=body.children)
    if spec.head == "sequence_classification":
        labels = head_labels(v)
        head = ParamNode("score", linear("score", width, labels, False))
    elif spec.head == "token_classification":  # GenericForTokenClassification: biased by token_classification_bias
        labels = head_labels(v)
        head = ParamNode("score", linear("score", width, labels, bool(v.get("token_classification_bias", True))))
    else:
        tied = bool(v["tie_embeddings"])
        # (Apertus 1.5: a head pruned to the first lm_head_rows tokens; tied, it is embed_tokens all the same)
        rows = int(v.get("lm_head_rows") or vocab)  # type: ignore[call-overload]
        name = str(v.get("lm_head_name") or "lm_head")  # GPT-NeoX-Japanese's is embed_out
        head = ParamNode(
            "lm_head", () if tied else linear(name, width, rows, bool(v.get("head_bias"))),
            note="tied to embed_tokens (counted once)" if tied else "",
            source=spec.key_span("tie_embeddings") or spec.key_span("vocab_size"), key="tie_embeddings",
        )
        if tied and v.get("head_bias"):
            head = ParamNode("lm_head", (Tensor("lm_head.bias", (vocab,), "bias", "lm_head"),), note=head.note,
                             source=head.source, key=head.key)
    return node(spec.architecture, *body.children, head)


def mamba_mixer(h: int, inner: int, state: int, kernel: int, dt_rank: int, use_bias: bool, conv_bias: bool,
                norms: bool = False) -> tuple[Tensor, ...]:
    """MambaMixer: in_proj to x and the gate, a depthwise conv over x, x_proj to dt and B, C, dt_proj, A_log
    and D per channel, out_proj; ``norms``: Jamba's RMS norms over dt, B and C."""
    return (
        linear("in_proj", h, 2 * inner, use_bias)
        + (Tensor("conv1d.weight", (inner, 1, kernel), "conv", "conv1d"),)
        + ((Tensor("conv1d.bias", (inner,), "bias", "conv1d"),) if conv_bias else ())
        + linear("x_proj", inner, dt_rank + 2 * state, False)
        + linear("dt_proj", dt_rank, inner, True)
        + (Tensor("A_log", (inner, state), "other", "mixer"), Tensor("D", (inner,), "other", "mixer"))
        + linear("out_proj", inner, h, use_bias)
        + ((norm("dt_layernorm", dt_rank, False) + norm("b_layernorm", state, False)
            + norm("c_layernorm", state, False)) if norms else ())
    )


def mamba2_mixer(h: int, inner: int, state: int, kernel: int, heads: int, groups: int, use_bias: bool,
                 conv_bias: bool, out_bias: bool | None = None, gated_norm: bool = True) -> tuple[Tensor, ...]:
    """Mamba2Mixer: in_proj to the gate, the conv's channels (x, B, C) and dt; a depthwise conv over x, B and C;
    dt_bias, A_log and D per head; a gated RMSNorm over the mixer's width (Falcon-H1: only where
    ``gated_norm``); out_proj (its bias ``out_bias``, else ``use_bias``)."""
    channels = inner + 2 * groups * state
    return (
        linear("in_proj", h, inner + channels + heads, use_bias)
        + (Tensor("conv1d.weight", (channels, 1, kernel), "conv", "conv1d"),)
        + ((Tensor("conv1d.bias", (channels,), "bias", "conv1d"),) if conv_bias else ())
        + tuple(Tensor(name, (heads,), "other", "mixer") for name in ("dt_bias", "A_log", "D"))
        + (norm("norm", inner, False) if gated_norm else ())
        + linear("out_proj", inner, h, use_bias if out_bias is None else out_bias)
    )


def build_mamba(spec: ModelSpec) -> ParamNode:
    """Mamba (selective state space) language model; Mamba-2's mixer where the family says (mixer "mamba2")."""
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    inner, state, kernel = spec.int("intermediate_size"), spec.int("state_size"), spec.int("conv_kernel")
    use_bias, conv_bias = bool(v["use_bias"]), bool(v["use_conv_bias"])
    if v.get("mixer") == "mamba2":
        mixer = mamba2_mixer(h, inner, state, kernel, spec.int("num_heads"), spec.int("n_groups"), use_bias, conv_bias)
    else:
        mixer = mamba_mixer(h, inner, state, kernel, spec.int("time_step_rank"), use_bias, conv_bias)
    layers = node(
        "layers", ParamNode("mixer", mixer, source=spec.key_span("state_size"), key="state_size"),
        ParamNode("norms", norm("norm", h, False)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    embeddings = ParamNode("embeddings", embedding("embeddings", vocab, h), source=spec.key_span("vocab_size"), key="vocab_size")
    tied = bool(v["tie_embeddings"])
    head = ParamNode("lm_head", () if tied else linear("lm_head", h, vocab, False),
                     note="tied to embeddings (counted once)" if tied else "", key="tie_embeddings",
                     source=spec.key_span("tie_embeddings"))
    if spec.head == "base":
        head = None
    return node(spec.architecture, embeddings, layers, ParamNode("final_norm", norm("norm_f", h, False)), head)
