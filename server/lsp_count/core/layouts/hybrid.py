"""Hybrid decoders: attention layers and recurrent layers (Mamba, Mamba-2, Gated DeltaNet, Kimi Delta Attention,
short convolutions) in one stack (Jamba, Bamba, Granite 4 hybrid, Nemotron-H, Falcon-H1, Qwen3-Next, Qwen3.5, Kimi
Linear, Ling's bailing hybrid, OLMo Hybrid, LFM2, LFM2-MoE, MiniMax-Text-01).

Each layer has a mixer (``layer_mixers``: one of ``MIXERS``; "attention+mamba2" runs both side by side, "none"
neither) and a feed-forward part (``layer_ffns``: "mlp", "moe" or "none"), per layer, as the family's config
class lays them out; layers of the same kind are counted together, each kind a node named by ``stack_name``
(which memory.py counts as layers). The attention, MLP and mixture-of-experts parts are the decoder layout's
(``layouts/decoder.py``), read from the same canonical fields; the recurrent mixers read their own
(``ssm_inner``, ``ssm_state``, ``ssm_conv_kernel``, ``ssm_heads``, ``ssm_groups``, ``linear_*``, ...), since a
hybrid's ``intermediate_size`` and ``num_heads`` are its MLP's and its attention's.
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.layouts.decoder import attention, layer_stack, mamba2_mixer, mamba_mixer, mlp, moe, with_head
from lsp_count.core.layouts.recurrent_gemma import recurrent_block
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec

# "attention+mamba2": Falcon-H1's layers run both side by side.
# "gated_attention": Qwen3-Next's, whose q_proj also yields a gate per query value; "gated_deltanet": its linear
# attention (Gated DeltaNet).
# "short_conv": LFM2's gated short convolution.
# "kda": Kimi Linear's delta attention (Kimi Delta Attention), in the layer's self_attn like its attention.
# "rg_lru": RecurrentGemma's (Griffin's) recurrent block (layouts/recurrent_gemma.py).
# "lightning": MiniMax's lightning attention (linear attention), in the layer's self_attn like its attention.
MIXERS = ("attention", "gated_attention", "mamba", "mamba2", "gated_deltanet", "short_conv", "kda", "attention+mamba2",
          "rg_lru", "lightning", "none")
FFNS = ("mlp", "moe", "none")


def stack_name(mixer: str, ffn: str) -> str:
    """The node name of the layers of one (mixer, feed-forward) kind: "attention_moe_layers", "mamba2_layers",
    "mlp_layers" (Nemotron-H's blocks hold a mixer or a feed-forward part), "attention_mamba2_mlp_layers"."""
    return "_".join(part.replace("+", "_") for part in (mixer, ffn) if part != "none") + "_layers"


# Every kind's node name: memory.py counts these nodes' repeats as layers (its LAYER_STACK_NAMES).
STACK_NAMES = frozenset(stack_name(m, f) for m in MIXERS for f in FFNS if (m, f) != ("none", "none"))


def _mamba_mixer(spec: ModelSpec) -> tuple[Tensor, ...]:
    """Mamba's selective-scan mixer (Jamba's, with RMS norms over dt, B and C where ``ssm_norms``)."""
    v = spec.values
    return mamba_mixer(spec.int("hidden_size"), spec.int("ssm_inner"), spec.int("ssm_state"), spec.int("ssm_conv_kernel"),
                       spec.int("ssm_dt_rank"), bool(v["ssm_bias"]), bool(v["ssm_conv_bias"]), bool(v.get("ssm_norms")))


def _mamba2_mixer(spec: ModelSpec) -> tuple[Tensor, ...]:
    """Mamba-2's mixer (Falcon-H1: out_proj's bias by its own switch, and the gated RMSNorm only where
    mamba_rms_norm)."""
    v = spec.values
    return mamba2_mixer(spec.int("hidden_size"), spec.int("ssm_inner"), spec.int("ssm_state"),
                        spec.int("ssm_conv_kernel"), spec.int("ssm_heads"), spec.int("ssm_groups"), bool(v["ssm_bias"]),
                        bool(v["ssm_conv_bias"]), bool(v["ssm_out_bias"]) if "ssm_out_bias" in v else None,
                        bool(v["ssm_gated_norm"]) if "ssm_gated_norm" in v else True)


def _mixers(spec: ModelSpec, kind: str) -> tuple[ParamNode | None, ...]:
    return tuple(_mixer(spec, part) for part in kind.split("+"))


def _gated_attention(spec: ModelSpec) -> ParamNode:
    """Attention whose q_proj is twice as wide: each query value and its output gate."""
    plain = attention(spec)
    tensors = tuple(Tensor(t.name, (2 * t.shape[0], *t.shape[1:]), t.kind, t.module) if t.module == "q_proj" else t
                    for t in plain.tensors)
    return ParamNode(plain.name, tensors, source=plain.source, key=plain.key, note="gated: q_proj also yields the gate")


def _gated_deltanet(spec: ModelSpec) -> tuple[Tensor, ...]:
    """Gated DeltaNet (Qwen3-Next's linear attention): q, k, v and the gate z from in_proj_qkvz, b and a per value
    head from in_proj_ba, a depthwise conv (no bias) over q, k and v, dt_bias and A_log per value head, a gated
    RMSNorm over one value head's width, out_proj. ``deltanet_projections`` names the projections where they are
    split: "qkv_z_b_a" (Qwen3.5: in_proj_qkv, in_proj_z, in_proj_b, in_proj_a), "separate" (OLMo Hybrid: q_proj,
    k_proj, v_proj, a_proj, b_proj, the gate g_proj; its norm o_norm, its output o_proj)."""
    h = spec.int("hidden_size")
    key_dim = spec.int("linear_key_heads") * spec.int("linear_key_head_dim")
    v_heads = spec.int("linear_value_heads")
    v_dim = spec.int("linear_value_head_dim")
    value_dim = v_heads * v_dim
    channels = 2 * key_dim + value_dim
    style = spec.values.get("deltanet_projections") or "fused"
    norm_name, out_name = ("o_norm", "o_proj") if style == "separate" else ("norm", "out_proj")
    if style == "qkv_z_b_a":
        projections = (linear("in_proj_qkv", h, channels, False) + linear("in_proj_z", h, value_dim, False)
                       + linear("in_proj_b", h, v_heads, False) + linear("in_proj_a", h, v_heads, False))
    elif style == "separate":
        projections = (linear("q_proj", h, key_dim, False) + linear("k_proj", h, key_dim, False)
                       + linear("v_proj", h, value_dim, False) + linear("a_proj", h, v_heads, False)
                       + linear("b_proj", h, v_heads, False) + linear("g_proj", h, value_dim, False))
    else:
        projections = (linear("in_proj_qkvz", h, 2 * key_dim + 2 * value_dim, False)
                       + linear("in_proj_ba", h, 2 * v_heads, False))
    return (
        (Tensor("conv1d.weight", (channels, 1, spec.int("ssm_conv_kernel")), "conv", "conv1d"),)
        + projections
        + tuple(Tensor(name, (v_heads,), "other", "linear_attn") for name in ("dt_bias", "A_log"))
        + norm(norm_name, v_dim, False)
        + linear(out_name, value_dim, h, False)
    )


def _kda(spec: ModelSpec) -> tuple[Tensor, ...]:
    """Kimi Delta Attention: q, k and v projections (linear_num_heads × linear_head_dim each), a depthwise conv (no
    bias) over the three; a forget gate (f_a_proj to one head's width, f_b_proj back to all, dt_bias per channel,
    A_log per head); b_proj (a value per head); an output gate (g_a_proj, g_b_proj); a gated RMSNorm over one head's
    width; o_proj. ``kda_full_rank_gates`` (Ling's): the forget gate one f_proj and the output gate one g_proj, each
    hidden_size → all heads, A_log a vector."""
    h = spec.int("hidden_size")
    heads, d = spec.int("linear_num_heads"), spec.int("linear_head_dim")
    width = heads * d
    if spec.values.get("kda_full_rank_gates"):
        forget = linear("forget_gate.f_proj", h, width, False)
        a_log = (heads,)
        out_gate = linear("g_proj", h, width, False)
    else:
        forget = linear("forget_gate.f_a_proj", h, d, False) + linear("forget_gate.f_b_proj", d, width, False)
        a_log = (1, 1, heads, 1)
        out_gate = linear("g_a_proj", h, d, False) + linear("g_b_proj", d, width, False)
    return (
        linear("q_proj", h, width, False) + linear("k_proj", h, width, False) + linear("v_proj", h, width, False)
        + (Tensor("conv1d.weight", (3 * width, 1, spec.int("ssm_conv_kernel")), "conv", "conv1d"),)
        + forget
        + (Tensor("forget_gate.dt_bias", (width,), "other", "forget_gate"),
           Tensor("forget_gate.A_log", a_log, "other", "forget_gate"))
        + linear("b_proj", h, heads, False)
        + out_gate
        + norm("o_norm", d, False)
        + linear("o_proj", width, h, False)
    )


def _lightning(spec: ModelSpec) -> tuple[Tensor, ...]:
    """Lightning attention (MiniMax-Text-01's linear attention): q, k and v from one qkv_proj (num_attention_heads ×
    head_dim each), an RMSNorm over all heads' output, a sigmoid output_gate from the layer's input, out_proj; no
    biases. Its decay factors (slope_rate, query_decay, key_decay, diagonal_decay) are buffers, not parameters."""
    h = spec.int("hidden_size")
    width = spec.int("num_heads") * spec.int("head_dim")
    return (norm("norm", width, False) + linear("qkv_proj", h, 3 * width, False) + linear("out_proj", width, h, False)
            + linear("output_gate", h, width, False))


def _mixer(spec: ModelSpec, kind: str) -> ParamNode | None:
    if kind == "none":
        return None
    if kind == "lightning":
        return ParamNode("self_attn", _lightning(spec), source=spec.key_span("num_heads"), key="num_heads",
                         note="lightning attention (linear attention)")
    if kind == "rg_lru":
        return recurrent_block(spec)
    if kind == "attention":
        plain = attention(spec)
        if not spec.values.get("attention_head_gate"):
            return plain
        # Ling's latent attention: g_proj, a sigmoid gate per head over the attention's output
        return ParamNode(plain.name, plain.tensors + linear("g_proj", spec.int("hidden_size"), spec.int("num_heads"),
                                                            False),
                         plain.children, source=plain.source, key=plain.key, note=plain.note)
    if kind == "gated_attention":
        return _gated_attention(spec)
    if kind == "short_conv":  # LFM2: in_proj to B, C and x, a depthwise conv over the hidden width, out_proj
        h, bias = spec.int("hidden_size"), bool(spec.values["ssm_conv_bias"])
        tensors = ((Tensor("conv.weight", (h, 1, spec.int("ssm_conv_kernel")), "conv", "conv"),)
                   + ((Tensor("conv.bias", (h,), "bias", "conv"),) if bias else ())
                   + linear("in_proj", h, 3 * h, bias) + linear("out_proj", h, h, bias))
        return ParamNode("conv", tensors, source=spec.key_span("ssm_conv_kernel"), key="ssm_conv_kernel",
                         note="short convolution")
    if kind == "kda":
        return ParamNode("self_attn", _kda(spec), source=spec.key_span("linear_num_heads"), key="linear_num_heads",
                         note="Kimi Delta Attention")
    if kind == "gated_deltanet":
        return ParamNode("linear_attn", _gated_deltanet(spec), source=spec.key_span("linear_value_heads"),
                         key="linear_value_heads", note="Gated DeltaNet")
    tensors = _mamba_mixer(spec) if kind == "mamba" else _mamba2_mixer(spec)
    return ParamNode(str(spec.values.get("ssm_module") or "mamba"), tensors, source=spec.key_span("ssm_state"),
                     key="ssm_state", note="Mamba-2 mixer" if kind == "mamba2" else "Mamba mixer")


def _ffn(spec: ModelSpec, kind: str) -> ParamNode | None:
    if kind == "mlp":  # (Granite 4 hybrid with no experts: its shared MLP alone, ffn_width wide)
        width = "ffn_width" if "ffn_width" in spec.values else "intermediate_size"
        return mlp(spec, spec.int(width), str(spec.values.get("ffn_module") or "mlp"), width)
    if kind == "moe":
        return _latent_moe(spec) if "moe_latent_size" in spec.values else moe(spec)
    return None


def _ffns(spec: ModelSpec, kind: str) -> tuple[ParamNode | None, ...]:
    """The feed-forward part; Granite 4 hybrid's shared MLP (``shared_mlp_beside``) sits beside its experts' block,
    not in it."""
    if kind == "moe" and spec.values.get("shared_mlp_beside"):
        routed = moe(replace(spec, values={**spec.values, "shared_intermediate_size": 0}))
        return routed, mlp(spec, spec.int("shared_intermediate_size"), "shared_mlp", "shared_intermediate_size")
    return (_ffn(spec, kind),)


def _latent_moe(spec: ModelSpec) -> ParamNode:
    """Nemotron-H's mixture of experts: a router of one weight (gate), experts of an up and a down projection
    (no gate) over moe_latent_size values where set (projected in and out by fc1 / fc2_latent_proj), else
    over hidden_size, and an always-on shared MLP."""
    v = spec.values
    h = spec.int("hidden_size")
    experts, f = spec.int("num_experts"), spec.int("moe_intermediate_size")
    latent = v.get("moe_latent_size")
    width = int(latent) if isinstance(latent, int) else h
    top_k = v.get("experts_per_token")
    active = min(top_k, experts) if isinstance(top_k, int) else None
    routed = ParamNode(
        "experts", (Tensor("up_proj", (f, width), "expert", "experts"), Tensor("down_proj", (width, f), "expert", "experts")),
        repeat=experts, active_repeat=active,
        note=f"routed: {active} of {experts} per token" if active is not None else "routed: num_experts_per_tok not set",
        source=spec.key_span("num_experts"), key="num_experts")
    router = ParamNode("router", linear(str(v.get("router_name") or "gate"), h, experts, False))
    bias = bool(v["mlp_bias"])
    projections = None
    if isinstance(latent, int):
        projections = ParamNode("latent_projections", linear("fc1_latent_proj", h, latent, bias)
                                + linear("fc2_latent_proj", latent, h, bias), source=spec.key_span("moe_latent_size"),
                                key="moe_latent_size")
    shared = mlp(spec, spec.int("shared_intermediate_size"), "shared_experts", "shared_intermediate_size")
    return node("moe", router, routed, projections, shared, source=spec.key_span("num_experts"), key="num_experts")


def layer_kinds(spec: ModelSpec) -> list[tuple[tuple[str, str], int]]:
    """(mixer, feed-forward) kinds in the order they first appear, with how many layers each has."""
    mixers, ffns = spec["layer_mixers"], spec["layer_ffns"]
    assert isinstance(mixers, tuple) and isinstance(ffns, tuple) and len(mixers) == len(ffns)
    counts: dict[tuple[str, str], int] = {}
    for kind in zip(mixers, ffns):
        counts[kind] = counts.get(kind, 0) + 1
    return list(counts.items())


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """For a stack of several kinds, each kind's node name -> the indices of its layers (what transformers numbers
    them in its module names: model.layers.5.mamba.in_proj); {} for any other model."""
    if spec is None or spec.family.layout != "hybrid":
        return {}
    mixers, ffns = spec.values.get("layer_mixers"), spec.values.get("layer_ffns")
    if not isinstance(mixers, tuple) or not isinstance(ffns, tuple):
        return {}
    out: dict[str, list[int]] = {}
    for i, (m, f) in enumerate(zip(mixers, ffns)):
        out.setdefault(stack_name(m, f), []).append(i)
    return {name: tuple(indices) for name, indices in out.items()} if len(out) > 1 else {}


def _norms(spec: ModelSpec, mixer: str) -> ParamNode | None:
    """A layer's RMSNorms: ``layer_norms``, or where the family names them by mixer (OLMo Hybrid's attention layers
    norm after the attention and the MLP, its linear-attention layers before), ``layer_norms_by_mixer``'s."""
    h = spec.int("hidden_size")
    by_mixer = dict(spec.values.get("layer_norms_by_mixer") or ())  # (pairs: mixer, its norms)
    names = by_mixer.get(mixer, spec["layer_norms"])  # type: ignore[union-attr]
    tensors: tuple[Tensor, ...] = ()
    for name in names:
        tensors += norm(name, h, False)
    return ParamNode("norms", tensors) if tensors else None


def hybrid_stack(spec: ModelSpec) -> ParamNode:
    src, key = spec.key_span("num_layers"), "num_layers"
    kinds = [node(stack_name(m, f), *_mixers(spec, m), *_ffns(spec, f), _norms(spec, m), repeat=n)
             for (m, f), n in layer_kinds(spec)]
    return layer_stack(kinds, src, key)


def build_hybrid(spec: ModelSpec) -> ParamNode:
    """A hybrid decoder language model: embeddings, the mixed layer stack, final norm, head."""
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    embeddings = ParamNode("embeddings", embedding(str(v.get("embed_name") or "embed_tokens"), vocab, h),
                           source=spec.key_span("vocab_size"), key="vocab_size")
    final = ParamNode("final_norm", norm(str(v["final_norm_name"]), h, False))
    return with_head(spec, node("model", embeddings, hybrid_stack(spec), final), h)
