"""Hybrid decoders: attention layers and recurrent layers (Mamba, Mamba-2, Gated DeltaNet, short convolutions)
in one stack (Jamba, Bamba, Granite 4 hybrid, Nemotron-H, Falcon-H1, Qwen3-Next, LFM2).

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
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec

# "attention+mamba2": Falcon-H1's layers run both side by side.
# "gated_attention": Qwen3-Next's, whose q_proj also yields a gate per query value; "gated_deltanet": its linear
# attention (Gated DeltaNet).
# "short_conv": LFM2's gated short convolution.
MIXERS = ("attention", "gated_attention", "mamba", "mamba2", "gated_deltanet", "short_conv", "attention+mamba2", "none")
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
    RMSNorm over one value head's width, out_proj."""
    h = spec.int("hidden_size")
    key_dim = spec.int("linear_key_heads") * spec.int("linear_key_head_dim")
    v_heads = spec.int("linear_value_heads")
    v_dim = spec.int("linear_value_head_dim")
    value_dim = v_heads * v_dim
    channels = 2 * key_dim + value_dim
    return (
        (Tensor("conv1d.weight", (channels, 1, spec.int("ssm_conv_kernel")), "conv", "conv1d"),)
        + linear("in_proj_qkvz", h, 2 * key_dim + 2 * value_dim, False)
        + linear("in_proj_ba", h, 2 * v_heads, False)
        + tuple(Tensor(name, (v_heads,), "other", "linear_attn") for name in ("dt_bias", "A_log"))
        + norm("norm", v_dim, False)
        + linear("out_proj", value_dim, h, False)
    )


def _mixer(spec: ModelSpec, kind: str) -> ParamNode | None:
    if kind == "none":
        return None
    if kind == "attention":
        return attention(spec)
    if kind == "gated_attention":
        return _gated_attention(spec)
    if kind == "short_conv":  # LFM2: in_proj to B, C and x, a depthwise conv over the hidden width, out_proj
        h, bias = spec.int("hidden_size"), bool(spec.values["ssm_conv_bias"])
        tensors = ((Tensor("conv.weight", (h, 1, spec.int("ssm_conv_kernel")), "conv", "conv"),)
                   + ((Tensor("conv.bias", (h,), "bias", "conv"),) if bias else ())
                   + linear("in_proj", h, 3 * h, bias) + linear("out_proj", h, h, bias))
        return ParamNode("conv", tensors, source=spec.key_span("ssm_conv_kernel"), key="ssm_conv_kernel",
                         note="short convolution")
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


def hybrid_stack(spec: ModelSpec) -> ParamNode:
    h = spec.int("hidden_size")
    norms_tensors: tuple[Tensor, ...] = ()
    for name in spec["layer_norms"]:  # type: ignore[union-attr]
        norms_tensors += norm(name, h, False)
    norms = ParamNode("norms", norms_tensors) if norms_tensors else None
    src, key = spec.key_span("num_layers"), "num_layers"
    kinds = [node(stack_name(m, f), *_mixers(spec, m), *_ffns(spec, f), norms, repeat=n)
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
