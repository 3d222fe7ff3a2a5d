"""Zamba and Zamba2: a Mamba (Zamba2: Mamba-2) stack with shared transformer blocks (families/zamba.py).

Each layer is a Mamba-2 mixer and its input norm (Zamba2MambaDecoderLayer); a hybrid layer (Zamba2HybridLayer) adds
a linear of its own (hidden → hidden) and a use of a shared transformer block (Zamba2AttentionDecoderLayer). Block
``b`` (the hybrid layers take blocks 0, 1, ..., num_mem_blocks - 1 in turn) holds: an RMSNorm over the attention's
input, ``attention_hidden`` (2 × hidden_size) wide; q, k and v from that width, o back to hidden_size (no biases);
where use_shared_attention_adapter, for each adapter slot ``i`` of ``hybrid_layer_ids`` with i % num_mem_blocks == b,
a pair of linears (attention_hidden → adapter_rank → attention_hidden) beside each of q, k and v; an RMSNorm; the MLP's
gate_up_proj (hidden → 2 × intermediate) and down_proj (biases where add_bias_linear) and, per such slot, an adapter
pair (hidden → adapter_rank → 2 × intermediate) beside gate_up_proj. transformers ties every use of a block to its
first where tie_word_embeddings (``_tied_weights_keys``, dropped when the embeddings are not tied): the blocks are
then counted once each, else once per hybrid layer.

Zamba (``zamba_mixer`` "mamba", ``zamba_mlp`` "gated"): one shared block (``shared_transf``), no adapters, a gated
MLP of three projections; its layers' mixer is Mamba's, split into n_mamba_heads heads (x_proj and dt_proj are
parameters per head, no nn.Linear).
"""

from __future__ import annotations

from lsp_count.core.layouts.decoder import layer_stack, mamba2_mixer, with_head
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec


def _zamba_mixer(spec: ModelSpec) -> tuple[Tensor, ...]:
    """ZambaMambaMixer: in_proj to x and the gate, a depthwise conv over x, then per head (n_mamba_heads of
    inner / n_mamba_heads channels) x_proj to dt, B and C, dt_proj and its bias, A_log and D; out_proj."""
    v = spec.values
    h, inner, state = spec.int("hidden_size"), spec.int("ssm_inner"), spec.int("ssm_state")
    heads, rank, bias = spec.int("ssm_heads"), spec.int("ssm_dt_rank"), bool(v["ssm_bias"])
    width = inner // heads
    return (
        linear("in_proj", h, 2 * inner, bias)
        + (Tensor("conv1d.weight", (inner, 1, spec.int("ssm_conv_kernel")), "conv", "conv1d"),)
        + ((Tensor("conv1d.bias", (inner,), "bias", "conv1d"),) if v["ssm_conv_bias"] else ())
        + (Tensor("x_proj_weight", (heads, rank + 2 * state, width), "other", "mamba"),
           Tensor("dt_proj_weight", (heads, width, rank), "other", "mamba"),
           Tensor("dt_proj_bias", (heads, width), "other", "mamba"),
           Tensor("A_log", (heads, width, state), "other", "mamba"),
           Tensor("D", (heads, width), "other", "mamba"))
        + linear("out_proj", inner, h, bias)
    )


def _mamba_layer(spec: ModelSpec) -> tuple[ParamNode, ParamNode]:
    """A layer's mixer (Zamba2's Mamba-2, whose convolution always has a bias; Zamba's multi-head Mamba) and input
    norm."""
    v = spec.values
    h = spec.int("hidden_size")
    if v["zamba_mixer"] == "mamba":
        mixer, note = _zamba_mixer(spec), "Mamba mixer"
    else:
        mixer = mamba2_mixer(h, spec.int("ssm_inner"), spec.int("ssm_state"), spec.int("ssm_conv_kernel"),
                             spec.int("ssm_heads"), spec.int("ssm_groups"), bool(v["ssm_bias"]), True)
        note = "Mamba-2 mixer"
    return (ParamNode("mamba", mixer, source=spec.key_span("ssm_state"), key="ssm_state", note=note),
            ParamNode("norms", norm("input_layernorm", h, False)))


def _adapter(name: str, width_in: int, rank: int, width_out: int):
    return linear(f"{name}.0", width_in, rank, False) + linear(f"{name}.1", rank, width_out, False)


def _shared_block(spec: ModelSpec, block: int) -> ParamNode:
    """Shared transformer block ``block``, with the adapters of its slots."""
    v = spec.values
    h, wide = spec.int("hidden_size"), spec.int("attention_hidden")
    heads, kv, d = spec.int("num_heads"), spec.int("num_kv_heads"), spec.int("head_dim")
    f, bias = spec.int("intermediate_size"), bool(v["ssm_bias"])
    blocks, rank, uses = spec.int("num_mem_blocks"), int(v["adapter_rank"]), spec.int("zamba_uses")
    slots = [i for i in range(uses) if i % blocks == block]
    ffn_key = "zamba_ffn_written" if "zamba_ffn_written" in v else "intermediate_size"
    attn = (linear("q_proj", wide, heads * d, False) + linear("k_proj", wide, kv * d, False)
            + linear("v_proj", wide, kv * d, False) + linear("o_proj", heads * d, h, False))
    if v["shared_attn_adapter"]:
        for i in slots:
            for proj in ("q", "k", "v"):
                attn += _adapter(f"linear_{proj}_adapter_list.{i}", wide, rank, wide)
    if v["zamba_mlp"] == "gated":  # Zamba: gate_proj, up_proj, down_proj, no biases
        mlp = linear("gate_proj", h, f, False) + linear("up_proj", h, f, False) + linear("down_proj", f, h, False)
    else:
        mlp = linear("gate_up_proj", h, 2 * f, bias) + linear("down_proj", f, h, bias)
    for i in slots:
        mlp += _adapter(f"gate_up_proj_adapter_list.{i}", h, rank, 2 * f)
    return node(f"block_{block}",
                ParamNode("self_attn", attn, source=spec.key_span("num_heads"), key="num_heads"),
                ParamNode("feed_forward", mlp, source=spec.key_span(ffn_key), key=ffn_key),
                ParamNode("norms", norm("input_layernorm", wide, False) + norm("pre_ff_layernorm", h, False)))


def _shared_blocks(spec: ModelSpec, hybrids: int) -> ParamNode | None:
    """The shared blocks: each once where transformers ties their uses, else as often as hybrid layers use it."""
    if not hybrids:
        return None
    blocks = spec.int("num_mem_blocks")
    tied = bool(spec.values["tie_embeddings"])
    uses = [sum(1 for k in range(hybrids) if k % blocks == b) for b in range(min(blocks, hybrids))]
    children = [_shared_block(spec, b) for b in range(len(uses))]
    # Tied, each hybrid layer still holds a module of its own (its tensors the block's first): one peft adapts.
    children = [ParamNode(c.name, c.tensors, c.children, **({"instances": n} if tied else {"repeat": n}))
                for c, n in zip(children, uses)]
    return node(str(spec.values["zamba_block_name"]), *children, source=spec.key_span("num_mem_blocks"),
                key="num_mem_blocks", note="tied: counted once per block" if tied else "untied: one per hybrid layer")


def build_zamba(spec: ModelSpec) -> ParamNode:
    """Zamba and Zamba2: embeddings, the Mamba layers (the hybrid ones with their linear), the shared blocks, final
    norm, head."""
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    types = spec["zamba_types"]
    assert isinstance(types, tuple)
    hybrids = sum(1 for t in types if t == "hybrid")
    mixer, norms = _mamba_layer(spec)
    plain, hybrid = spec["zamba_kind_names"]  # type: ignore[misc]  (the kinds' node names: memory.py's layer stacks)
    kinds = []
    if len(types) - hybrids:
        kinds.append(node(plain, mixer, norms, repeat=len(types) - hybrids))
    if hybrids:
        # (its Mamba layer under mamba_decoder, the linear back into it on the layer: model.layers.N.linear)
        kinds.append(node(hybrid, node("mamba_decoder", mixer, norms), tensors=linear("linear", h, h, False),
                          repeat=hybrids, note="hybrid: a use of a shared block, then the Mamba layer"))
    embeddings = ParamNode("embeddings", embedding("embed_tokens", vocab, h), source=spec.key_span("vocab_size"),
                           key="vocab_size")
    stack = layer_stack(kinds, spec.key_span("num_layers"), "num_layers") if kinds else None
    body = node("model", embeddings, stack, _shared_blocks(spec, hybrids),
                ParamNode("final_norm", norm("final_layernorm", h, False)))
    return with_head(spec, body, h)


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """The layers' own numbers (model.layers.5.mamba.in_proj), for apply_lora's layer_indices: each layer kind's
    node name -> its layers' (where both kinds are built), and each shared block's node, ``<blocks node>.block_b``
    -> the hybrid layers that use it (model.layers.5.shared_transformer.self_attn.q_proj: each use is a module of
    its own, which formats/lora places in that layer); {} for any other model."""
    if spec is None or spec.family.layout != "zamba" or not isinstance(spec.values.get("zamba_types"), tuple):
        return {}
    types = spec.values["zamba_types"]
    plain, hybrid = spec["zamba_kind_names"]  # type: ignore[misc]
    hybrids = tuple(i for i, t in enumerate(types) if t == "hybrid")
    out: dict[str, tuple[int, ...]] = {}
    if hybrids and len(hybrids) < len(types):
        out[str(plain)] = tuple(i for i, t in enumerate(types) if t != "hybrid")
        out[str(hybrid)] = hybrids
    blocks = spec.int("num_mem_blocks") if hybrids else 0
    for b in range(min(blocks, len(hybrids))):
        out[f"{spec.values['zamba_block_name']}.block_{b}"] = hybrids[b::blocks]
    return out

