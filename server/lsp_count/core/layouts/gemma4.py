"""Gemma 4's text model (Gemma4ForCausalLM, Gemma4TextModel): a decoder whose layers differ one from another; its
vision and audio towers, and the composite (Gemma4ForConditionalGeneration, Gemma4Model), at the end of this file.

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

import json

from lsp_count.core.layouts.decoder import layer_stack, with_head
from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import language_model, no_sub_model
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Problem
from lsp_count.core.spec import MAX_DIMENSION, ModelSpec, SpecError

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


# --- the vision tower, the audio tower and the composite (Gemma4VisionModel, Gemma4AudioModel,
# Gemma4ForConditionalGeneration / Gemma4Model) ------------------------------------------------------------------
# Their linear layers are Gemma4ClippableLinear modules holding an nn.Linear (q_proj.linear): the tensors are named
# by their path inside a layer (self_attn.q_proj.linear.weight), the module LoRA adapts being the inner "linear"
# (peft refuses the wrapper, q_proj, as a target).


def _whole(name: str, *children: ParamNode | None, **kw: object) -> ParamNode:
    """A node of the children given, those of no parameters kept too (node() drops them): a linear layer 0 wide is
    still a module peft adapts (a patch embedder of 0-pixel patches: input_proj 0 → hidden_size)."""
    return ParamNode(name, children=tuple(c for c in children if c is not None), **kw)  # type: ignore[arg-type]


def _clipped(path: str, in_f: int, out_f: int) -> tuple[Tensor, ...]:
    """A Gemma4ClippableLinear at ``path``: its nn.Linear (no bias) is ``path``.linear. (Its clipping bounds, with
    use_clipped_linears, are buffers.)"""
    return path_linear(f"{path}.linear", in_f, out_f, False)


def gemma4_vision(spec: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """Gemma4VisionModel as a node named ``name``: the patch embedder (input_proj from 3 × patch_size² values, no
    bias; the x and y position tables, a (2, position_embedding_size, hidden_size) parameter), and ``num_layers``
    encoder layers (q/k/v/o_proj clippable linears, heads × head_dim and key/value heads × head_dim wide; q_norm and
    k_norm over head_dim, v_norm without a weight; a gated MLP of clippable linears; four RMSNorms). The rotary
    embedding and the pooler hold no parameters; standardize's std_bias / std_scale are buffers."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    heads, kv, d = spec.int("num_heads"), spec.int("num_kv_heads"), spec.int("head_dim")
    patch, positions = spec.int("patch_size"), spec.int("position_embedding_size")
    embedder = ParamNode(
        "patch_embedder", path_linear("patch_embedder.input_proj", 3 * patch * patch, h, False)
        + (Tensor("patch_embedder.position_embedding_table", (2, positions, h), "other", "patch_embedder"),),
        note=f"{patch}×{patch} patches; x and y position tables of {positions:,}",
        source=spec.key_span("patch_size") or spec.key_span("position_embedding_size"), key="patch_size")
    attention = ParamNode(
        "attention", _clipped("self_attn.q_proj", h, heads * d) + _clipped("self_attn.k_proj", h, kv * d)
        + _clipped("self_attn.v_proj", h, kv * d) + _clipped("self_attn.o_proj", heads * d, h)
        + path_norm("self_attn.q_norm", d, False) + path_norm("self_attn.k_norm", d, False),
        source=spec.key_span("num_heads"), key="num_heads")
    mlp = ParamNode("mlp", _clipped("mlp.gate_proj", h, ffn) + _clipped("mlp.up_proj", h, ffn)
                    + _clipped("mlp.down_proj", ffn, h), source=spec.key_span("intermediate_size"), key="intermediate_size")
    norms = ParamNode("norms", sum((path_norm(n, h, False) for n in ("input_layernorm", "post_attention_layernorm",
                                                                     "pre_feedforward_layernorm",
                                                                     "post_feedforward_layernorm")), ()))
    layers = _whole("layers", attention, mlp, norms, repeat=spec.int("num_layers"), source=spec.key_span("num_layers"),
                    key="num_layers")
    return _whole(name, embedder, layers, source=spec.span, note=spec.model_type)


def gemma4_audio(spec: ModelSpec, name: str = "audio_tower") -> ParamNode:
    """Gemma4AudioModel as a node named ``name``: the subsampling (two 3×3 Conv2d without biases, each followed by a
    LayerNorm with a weight alone, then input_proj_linear from (channels[0] // 4) × channels[1] values), and
    ``num_layers`` conformer layers (two feed-forwards of clippable linears 4 × hidden_size wide with two RMSNorms
    each; the chunked attention: q/k/v_proj heads × (hidden_size // heads) wide and post hidden_size wide, clippable,
    relative_k_proj an nn.Linear, per_dim_scale over a head; the light convolution: linear_start to 2 × hidden_size,
    a depthwise Conv1d of conv_kernel_size, linear_end, two RMSNorms; three RMSNorms), then output_proj (with a
    bias) to output_proj_dims. The relative positions are buffers."""
    h, heads, layers = spec.int("hidden_size"), spec.int("num_heads"), spec.int("num_layers")
    c0, c1 = spec.values["subsampling_conv_channels"][:2]  # type: ignore[index] # (the family refuses fewer)
    kernel, out = spec.int("conv_kernel_size"), spec.int("output_proj_dims")
    width = heads * (h // heads)
    subsampling = ParamNode(
        "subsample_conv_projection",
        (Tensor("subsample_conv_projection.layer0.conv.weight", (c0, 1, 3, 3), "conv", "conv"),)
        + path_norm("subsample_conv_projection.layer0.norm", c0, False)
        + (Tensor("subsample_conv_projection.layer1.conv.weight", (c1, c0, 3, 3), "conv", "conv"),)
        + path_norm("subsample_conv_projection.layer1.norm", c1, False)
        + path_linear("subsample_conv_projection.input_proj_linear", (c0 // 4) * c1, h, False),
        note=f"Conv2d 3×3 ×2 ({c0}, {c1} channels)", source=spec.key_span("subsampling_conv_channels"),
        key="subsampling_conv_channels")

    def feed_forward(n: str) -> ParamNode:
        return ParamNode(n, _clipped(f"{n}.ffw_layer_1", h, 4 * h) + _clipped(f"{n}.ffw_layer_2", 4 * h, h)
                         + path_norm(f"{n}.pre_layer_norm", h, False) + path_norm(f"{n}.post_layer_norm", h, False),
                         source=spec.key_span("hidden_size"), key="hidden_size")

    attention = ParamNode(
        "attention", _clipped("self_attn.q_proj", h, width) + _clipped("self_attn.k_proj", h, width)
        + _clipped("self_attn.v_proj", h, width) + _clipped("self_attn.post", h, h)
        + path_linear("self_attn.relative_k_proj", h, width, False)
        + (Tensor("self_attn.per_dim_scale", (h // heads,), "other", "self_attn"),),
        source=spec.key_span("num_heads"), key="num_heads")
    conv = ParamNode("lconv1d", _clipped("lconv1d.linear_start", h, 2 * h) + _clipped("lconv1d.linear_end", h, h)
                     + (Tensor("lconv1d.depthwise_conv1d.weight", (h, 1, kernel), "conv", "depthwise_conv1d"),)
                     + path_norm("lconv1d.pre_layer_norm", h, False) + path_norm("lconv1d.conv_norm", h, False),
                     note=f"depthwise Conv1d {kernel}", source=spec.key_span("conv_kernel_size"), key="conv_kernel_size")
    norms = ParamNode("norms", sum((path_norm(n, h, False) for n in ("norm_pre_attn", "norm_post_attn", "norm_out")),
                                   ()))
    stack = _whole("layers", feed_forward("feed_forward1"), attention, conv, feed_forward("feed_forward2"), norms,
                   repeat=layers, source=spec.key_span("num_layers"), key="num_layers")
    output = ParamNode("output_proj", path_linear("output_proj", h, out, True), source=spec.key_span("output_proj_dims"),
                       key="output_proj_dims")
    return _whole(name, subsampling, stack, output, source=spec.span, note=spec.model_type)


def build_gemma4_vision(spec: ModelSpec) -> ParamNode:
    """Gemma4VisionModel on its own (a config of model_type gemma4_vision)."""
    return ParamNode(spec.architecture, children=gemma4_vision(spec).children)


def build_gemma4_audio(spec: ModelSpec) -> ParamNode:
    """Gemma4AudioModel on its own (a config of model_type gemma4_audio)."""
    return ParamNode(spec.architecture, children=gemma4_audio(spec).children)


def _embedder(name: str, tower: ModelSpec, width: int, text_width: int) -> ParamNode:
    """Gemma4MultimodalEmbedder: a linear from the tower's output ``width`` to the text model's (no bias); its
    pre-projection RMSNorm has no weight."""
    return ParamNode(name, path_linear("embedding_projection", width, text_width, False),
                     note=f"{tower.model_type} → the language model", source=tower.span)


def _vision_output(vision: ModelSpec) -> int:
    """The width embed_vision projects from: getattr(vision_config, "output_proj_dims", hidden_size), a key its class
    does not declare but keeps where the file gives it (a whole number, true and false as 1 and 0, as nn.Linear
    takes them; anything else fails to build)."""
    if "output_proj_dims" not in vision.origins:
        return vision.int("hidden_size")
    width = vision.values.get("output_proj_dims")
    if not isinstance(width, int) or not 0 <= width <= MAX_DIMENSION:
        key, where = vision.origins["output_proj_dims"]
        raise SpecError((Problem("error", "LC102", f'"{key}": {json.dumps(width)}: the vision_config\'s output_proj_dims '
                                                   "is the width embed_vision projects from (Gemma4MultimodalEmbedder "
                                                   "reads it): a whole number, or leave it out (hidden_size)", where),))
    return int(width)


def build_gemma4_multimodal(spec: ModelSpec) -> ParamNode:
    """Gemma4ForConditionalGeneration (or the bare Gemma4Model): the vision tower where there is a vision_config, the
    language model (Gemma4TextModel), the audio tower where there is an audio_config, embed_vision (from the vision
    tower's hidden_size, or the output_proj_dims its config keeps) and embed_audio (from its output_proj_dims) into
    the text width, and lm_head (tied by the composite's tie_word_embeddings)."""
    text = spec.subspecs.get("text")
    if text is None:
        raise no_sub_model(spec, "a text_config")
    vision, audio = spec.subspecs.get("vision"), spec.subspecs.get("audio")
    th = text.int("hidden_size")
    body = (
        gemma4_vision(vision) if vision is not None else None,
        language_model(text),
        gemma4_audio(audio) if audio is not None else None,
        _embedder("embed_vision", vision, _vision_output(vision), th) if vision is not None else None,
        _embedder("embed_audio", audio, audio.int("output_proj_dims"), th) if audio is not None else None,
    )
    if spec.head == "base":
        return _whole(spec.architecture, *body)
    tied, vocab = bool(spec.values["tie_embeddings"]), text.int("vocab_size")
    head = ParamNode("lm_head", () if tied else linear("lm_head", th, vocab, False),
                     note="tied to the language model's embed_tokens (counted once)" if tied else "",
                     source=spec.key_span("tie_embeddings") or text.key_span("vocab_size"), key="tie_embeddings")
    return _whole(spec.architecture, *body, head)
