"""Gemma 3n's text model (Gemma3nForCausalLM, Gemma3nTextModel): a decoder whose layers differ one from another; its
audio encoder (Gemma3nAudioEncoder) at the end of this file.

The family (``families/gemma3n.py``) derives the per-layer plan (``gemma4_layers``, in Gemma 4's form): whether a
layer computes its own keys and values, its MLP's width. Consecutive layers alike are counted together: where all
layers are alike, the usual "layers" node; else a "layers" node of entries named by their layers' numbers ("0-19",
"20-34"), as a ModuleList's equal entries are grouped (memory.py counts each entry's repeats as layers;
``layer_indices`` gives LoRA the numbers transformers gives them).

Per layer (Gemma3nTextDecoderLayer): q_proj and o_proj (heads × head_dim), q_norm over one head; where the layer
computes its own keys and values, k_proj, v_proj and k_norm (v_norm has no weight); a gated MLP of its own width;
AltUp (correct_output_scale, correction_coefs n → n, prediction_coefs n → n², modality_router, router_norm; n =
altup_num_inputs); Laurel (linear_left, linear_right of laurel_rank, post_laurel_norm); the per-layer input
(per_layer_input_gate, per_layer_projection, post_per_layer_input_norm); four norms. The model: embed_tokens,
embed_tokens_per_layer (vocab_size_per_layer_input × layers·width), per_layer_model_projection and
per_layer_projection_norm, altup_projections and altup_unembed_projections (n - 1 each, hidden × hidden), the final
norm, the head (tied by default).
"""

from __future__ import annotations

from lsp_count.core.layouts.decoder import layer_stack, with_head
from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec


def _plan(spec: ModelSpec) -> tuple:
    plan = spec.values.get("gemma4_layers")
    assert isinstance(plan, tuple), "the family's checks refuse a config with no layer plan"
    return plan


def _attention(spec: ModelSpec, own_kv: bool) -> ParamNode:
    h, heads = spec.int("hidden_size"), spec.int("num_heads")
    kv, d = spec.int("num_kv_heads"), spec.int("head_dim")
    bias = bool(spec.values["attention_bias"])
    tensors = linear("q_proj", h, heads * d, bias) + norm("q_norm", d, False)
    if own_kv:
        tensors += linear("k_proj", h, kv * d, bias) + linear("v_proj", h, kv * d, bias) + norm("k_norm", d, False)
    tensors += linear("o_proj", heads * d, h, bias)
    return ParamNode("attention", tensors, source=spec.key_span("num_heads"), key="num_heads",
                     note="" if own_kv else "reuses an earlier layer's keys and values")


def _layer(spec: ModelSpec, name: str, count: int, own_kv: bool, width: int) -> ParamNode:
    v = spec.values
    h, p = spec.int("hidden_size"), int(v["per_layer_width"])
    n, r = int(v["altup_num_inputs"]), int(v["laurel_rank"])
    # (ParamNode, not node(): a 0-wide linear is still a module peft adapts)
    mlp = ParamNode("mlp", linear("gate_proj", h, width, False) + linear("up_proj", h, width, False)
                    + linear("down_proj", width, h, False), source=spec.key_span("intermediate_size_written"),
                    key="intermediate_size_written")
    altup = ParamNode("altup", (Tensor("correct_output_scale", (h,), "other", "altup"),)
                      + linear("correction_coefs", n, n, False) + linear("prediction_coefs", n, n * n, False)
                      + linear("modality_router", h, n, False) + norm("router_norm", h, False),
                      source=spec.key_span("altup_num_inputs"), key="altup_num_inputs")
    laurel = ParamNode("laurel", linear("linear_left", h, r, False) + linear("linear_right", r, h, False)
                       + norm("post_laurel_norm", h, False), source=spec.key_span("laurel_rank"), key="laurel_rank")
    per_layer = ParamNode("per_layer_input", linear("per_layer_input_gate", h, p, False)
                          + linear("per_layer_projection", p, h, False) + norm("post_per_layer_input_norm", h, False),
                          source=spec.key_span("per_layer_width"), key="per_layer_width")
    norms = ParamNode("norms", tuple(t for m in ("input_layernorm", "post_attention_layernorm",
                                                 "pre_feedforward_layernorm", "post_feedforward_layernorm")
                                     for t in norm(m, h, False)))
    children = (_attention(spec, own_kv), mlp, altup, laurel, per_layer, norms)
    return ParamNode(name, children=children, repeat=count)


def layer_runs(spec: ModelSpec) -> list[tuple[int, int, bool, int]]:
    """Runs of consecutive layers alike: (first, last, own keys and values, MLP width)."""
    runs: list[tuple[int, int, bool, int]] = []
    for i, (_t, _d, _kv, _mode, own_kv, _has_v, width) in enumerate(_plan(spec)):
        if runs and runs[-1][2:] == (own_kv, width):
            runs[-1] = (runs[-1][0], i, own_kv, width)
        else:
            runs.append((i, i, own_kv, width))
    return runs


def _entry(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """For a stack of several runs, each entry's node name ("0-19") -> its layers' numbers
    (model.layers.5.self_attn.q_proj); {} for any other model."""
    if spec is None or spec.family.layout != "gemma3n" or not isinstance(spec.values.get("gemma4_layers"), tuple):
        return {}
    runs = layer_runs(spec)
    if len(runs) < 2:
        return {}
    return {_entry(a, b): tuple(range(a, b + 1)) for a, b, _own, _w in runs}


def build_gemma3n(spec: ModelSpec) -> ParamNode:
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    layers, p, n = spec.int("num_layers"), int(v["per_layer_width"]), int(v["altup_num_inputs"])
    embeddings = ParamNode("embeddings", embedding("embed_tokens", vocab, h)
                           + embedding("embed_tokens_per_layer", spec.int("per_layer_vocab"), layers * p),
                           source=spec.key_span("vocab_size"), key="vocab_size")
    projection = ParamNode("per_layer_inputs", linear("per_layer_model_projection", h, layers * p, False)
                           + norm("per_layer_projection_norm", p, False),
                           source=spec.key_span("per_layer_width"), key="per_layer_width",
                           note="0 wide (hidden_size_per_layer_input 0)" if not p else "")
    altup = ParamNode("altup", tuple(t for kind in ("altup_projections", "altup_unembed_projections")
                                     for j in range(n - 1) for t in linear(f"{kind}.{j}", h, h, False)),
                      source=spec.key_span("altup_num_inputs"), key="altup_num_inputs",
                      note=f"{n - 1} projections in and out of the AltUp predictions" if n > 1 else "")
    runs = layer_runs(spec)
    src = spec.key_span("num_layers")
    if len(runs) == 1:
        _a, _b, own_kv, width = runs[0]
        stack = layer_stack([_layer(spec, "layers", layers, own_kv, width)], src, "num_layers")
    else:
        stack = ParamNode("layers", children=tuple(_layer(spec, _entry(a, b), b - a + 1, own_kv, width)
                                                   for a, b, own_kv, width in runs), source=src, key="num_layers")
    final = ParamNode("final_norm", norm("norm", h, False))
    # In the class's order: the AltUp projections after the final norm (their last is the last parameter, which
    # bitsandbytes leaves unconverted).
    return with_head(spec, node("model", embeddings, projection, stack, final, altup), h)


# --- the audio encoder (Gemma3nAudioEncoder) -------------------------------------------------------------------------
# Its tensors are named by their path inside a layer or the model (attention.attn.q_proj.weight), as an encoder's are:
# formats/lora.py's ENCODER_PATHS places the layers at conformer.N.


def build_gemma3n_audio(spec: ModelSpec) -> ParamNode:
    """Gemma3nAudioEncoder: the subsampling (two Conv2d without biases, each followed by a cumulative group norm with
    a weight per channel, then input_proj_linear), and ``num_layers`` conformer blocks: two feed-forwards
    (ffw_layer_start, ffw_layer_end: 4 × hidden_size wide, an RMSNorm before and after), the attention (its norm
    before; q/k/v_proj heads × (hidden_size // heads) wide, the relative positions' pos_proj as wide, per_dim_scale
    over a head; post and post_norm), the light convolution (pre_layer_norm, linear_start to 2 × hidden_size, a
    depthwise Conv1d of conf_conv_kernel_size, conv_norm, linear_end), and a last norm. The masks, the relative
    positions' timescales and the clipping bounds are buffers."""
    h, heads, layers = spec.int("hidden_size"), spec.int("num_heads"), spec.int("num_layers")
    kernel = spec.int("conv_kernel_size")
    shapes = spec.values.get("sscp_shapes")
    assert isinstance(shapes, tuple), "the family's checks refuse a subsampling that cannot be built"
    conv0, conv1, in_features = shapes
    sub = "subsample_conv_projection"
    subsampling = ParamNode(
        sub, (Tensor(f"{sub}.conv_0.conv.weight", conv0, "conv", "conv"),)
        + path_norm(f"{sub}.conv_0.norm", conv0[0], False)
        + (Tensor(f"{sub}.conv_1.conv.weight", conv1, "conv", "conv"),)
        + path_norm(f"{sub}.conv_1.norm", conv1[0], False)
        + path_linear(f"{sub}.input_proj_linear", in_features, h, False),
        note=f"Conv2d ×2 ({conv0[0]}, {conv1[0]} channels)", source=spec.key_span("sscp_conv_channel_size"),
        key="sscp_conv_channel_size")
    if not layers:  # (the family's checks judge the heads, kernel and mask only where a block builds them)
        return ParamNode(spec.architecture, children=(subsampling,))
    width = heads * (h // heads)

    def feed_forward(n: str) -> ParamNode:
        return ParamNode(n, path_norm(f"{n}.pre_layer_norm", h, False)
                         + path_linear(f"{n}.ffw_layer_1", h, 4 * h, False)
                         + path_linear(f"{n}.ffw_layer_2", 4 * h, h, False)
                         + path_norm(f"{n}.post_layer_norm", h, False),
                         source=spec.key_span("hidden_size"), key="hidden_size")

    attention = ParamNode(
        "attention", path_norm("attention.pre_attn_norm", h, False)
        + path_linear("attention.attn.relative_position_embedding.pos_proj", h, width, False)
        + (Tensor("attention.attn.per_dim_scale", (h // heads,), "other", "attn"),)
        + path_linear("attention.attn.q_proj", h, width, False) + path_linear("attention.attn.k_proj", h, width, False)
        + path_linear("attention.attn.v_proj", h, width, False) + path_linear("attention.post", h, h, False)
        + path_norm("attention.post_norm", h, False),
        source=spec.key_span("num_heads"), key="num_heads")
    conv = ParamNode("lconv1d", path_norm("lconv1d.pre_layer_norm", h, False)
                     + path_linear("lconv1d.linear_start", h, 2 * h, False)
                     + (Tensor("lconv1d.depthwise_conv1d.weight", (h, 1, kernel), "conv", "depthwise_conv1d"),)
                     + path_norm("lconv1d.conv_norm", h, False) + path_linear("lconv1d.linear_end", h, h, False),
                     note=f"depthwise Conv1d {kernel}", source=spec.key_span("conv_kernel_size"),
                     key="conv_kernel_size")
    norms = ParamNode("norms", path_norm("norm", h, False))
    stack = ParamNode("layers", children=(feed_forward("ffw_layer_start"), attention, conv,
                                          feed_forward("ffw_layer_end"), norms),
                      repeat=layers, source=spec.key_span("num_layers"), key="num_layers")
    return ParamNode(spec.architecture, children=(subsampling, stack))
