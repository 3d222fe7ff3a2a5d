"""Vision-language models: vision tower + projector + language model (+ head).

The towers are the sub-families' own layouts (``layouts/encoder.py`` for the
CLIP / SigLIP vision towers, any decoder family for the language model), built
as their bare classes, as transformers' AutoModel builds them inside the composite.
"""

from __future__ import annotations

import json
from typing import Callable

from lsp_count.core.engine import layout_builder
from lsp_count.core.layouts.encoder import _pair, as_base, path_linear, path_norm, vision_tower
from lsp_count.core.params import LANGUAGE_MODEL_NODE, ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Problem
from lsp_count.core.spec import MAX_DIMENSION, ModelSpec, SpecError, head_labels


def _subs(spec: ModelSpec) -> tuple[ModelSpec, ModelSpec]:
    vision, text = spec.subspecs.get("vision"), spec.subspecs.get("text")
    if vision is None or text is None:
        raise no_sub_model(spec, "a vision_config and a text_config")
    return vision, text


def no_sub_model(spec: ModelSpec, needed: str) -> SpecError:
    """A composite without a sub-config it builds: what build_spec said of the sub-config (a model_type lsp-count does
    not count exactly: its LC101), then the error."""
    return SpecError((*spec.problems, Problem("error", "LC103", f"{spec.model_type} needs {needed} whose model_type "
                                                                f"lsp-count counts exactly", spec.span)))


def language_model(text: ModelSpec) -> ParamNode:
    """The text sub-model as its bare class (LlamaModel, Gemma3TextModel, ...): no head of its own."""
    built = layout_builder(text.family.layout)(as_base(text))
    return ParamNode(LANGUAGE_MODEL_NODE, children=built.children, source=text.span, note=text.model_type)


# A ColVision retriever's projection of each token (layout "retrieval"), beside its vision-language model's nodes.
RETRIEVAL_PROJECTION_NODE = "embedding_proj_layer"


def retriever_vlm(spec: ModelSpec | None) -> ModelSpec | None:
    """A ColVision retriever's (layout "retrieval") vision-language model, its vlm_config's spec; None for another
    model."""
    return spec.subspecs.get("vlm") if spec is not None and spec.family.layout == "retrieval" else None


def build_retrieval(spec: ModelSpec) -> ParamNode:
    """ColPali / ColQwen2 (``<X>ForRetrieval``): the vision-language model of vlm_config as its bare class (AutoModel:
    PaliGemmaModel, Qwen2VLModel, ...), which transformers holds at ``vlm`` (its sub-models are the tree's top-level
    nodes, as a composite's are: its text model is found where a composite's is), and embedding_proj_layer, a linear
    with a bias from its text model's width to embedding_dim."""
    vlm = retriever_vlm(spec)
    if vlm is None:
        raise no_sub_model(spec, "a vlm_config")
    text = vlm.subspecs.get("text")
    if "base" not in vlm.family.heads.values() or text is None:
        # transformers reads vlm_config.text_config (AttributeError without one) and builds AutoModel's class.
        what = "no text_config" if text is None else "no bare model class lsp-count counts"
        raise SpecError((Problem("error", "LC102", f'"vlm_config": a {vlm.model_type} config has {what}: '
                                                   f"{spec.architecture} cannot be built on it",
                                 vlm.span or spec.span),))
    built = layout_builder(vlm.family.layout)(as_base(vlm))
    projection = linear(RETRIEVAL_PROJECTION_NODE, text.int("hidden_size"), spec.int("embedding_dim"), True)
    return node(spec.architecture, *built.children,
                ParamNode(RETRIEVAL_PROJECTION_NODE, projection, source=spec.key_span("embedding_dim"),
                          key="embedding_dim"))


def _lm_head(spec: ModelSpec, text: ModelSpec, tied: bool) -> ParamNode:
    h, vocab = text.int("hidden_size"), text.int("vocab_size")
    return ParamNode("lm_head", () if tied else linear("lm_head", h, vocab, False),
                     note="tied to the language model's embed_tokens (counted once)" if tied else "",
                     source=spec.key_span("tie_embeddings") or text.key_span("vocab_size"), key="tie_embeddings")


def _feature_layers(spec: ModelSpec) -> int:
    layers = spec.values.get("vision_feature_layer")
    key = spec.key_label("vision_feature_layer")  # VipLLaVA's alias, vision_feature_layers, where the file writes it
    if isinstance(layers, (list, tuple)):
        if not layers or not all(isinstance(x, int) and not isinstance(x, bool) for x in layers):
            raise SpecError((Problem("error", "LC102", f'"{key}": expected a layer index or a list of them',
                                     spec.key_span("vision_feature_layer") or spec.span),))
        return len(layers)
    if isinstance(layers, int) and not isinstance(layers, bool):
        return 1
    raise SpecError((Problem("error", "LC102", f'"{key}": expected a layer index or a list of them'
                             + (", got null" if layers is None else ""),
                             spec.key_span("vision_feature_layer") or spec.span),))


def build_llava(spec: ModelSpec) -> ParamNode:
    """LlavaForConditionalGeneration and the classes built as it is (LLaVA-NeXT, LLaVA-OneVision,
    LLaVA-NeXT-Video, VipLLaVA, PaliGemma, Aya Vision, Cohere2-Vision, LFM2-VL, DeepSeek-VL, GOT-OCR2, Idefics3,
    SmolVLM, InternVL): vision tower (a CLIP / SigLIP / SigLIP-2 one, or InternVL's or GOT-OCR2's own), projector,
    language model, lm_head. The family's switches:
    ``projector`` (the projector's shape: ``_llava_projector``), ``projector_norm`` (VipLLaVA's
    projector_layernorm before linear_1), ``image_newline`` (a bare parameter as wide as the text model),
    ``spatial_pool_mode`` (LLaVA-NeXT-Video's vision_resampler: a Conv2d in "conv" mode alone) and
    ``text_config_ties`` (whether text_config's tie_word_embeddings ties the head too, as LlavaConfig
    forwards it)."""
    vision, text = _subs(spec)
    th = text.int("hidden_size")
    projector = _llava_projector(spec, vision, text)
    newline = ParamNode("image_newline", (Tensor("image_newline", (th,), "other", "image_newline"),),
                        note="one learned vector between image rows") if spec.values.get("image_newline") else None
    towers = {"internvl_vision": internvl_vision, "got_ocr2_vision": got_ocr2_vision}
    tower = towers.get(vision.family.layout, vision_tower)(vision)
    body = (tower, projector, newline, language_model(text), _video_pool(spec, vision))
    if spec.head == "base":
        return node(spec.architecture, *body)
    # LlavaConfig ties the head when either it or its text_config asks to (the families whose config class
    # does not forward text_config's fix "text_config_ties" false).
    text_ties = spec.values.get("text_config_ties", True)
    tied = bool(spec.values["tie_embeddings"]) or (bool(text_ties) and bool(text.values.get("tie_embeddings")))
    return node(spec.architecture, *body, _lm_head(spec, text, tied))


def _merging_projector(spec: ModelSpec, vision: ModelSpec, th: int, names: tuple[str, str, str],
                       middle_key: str | None) -> ParamNode:
    """A projector over the tower's spatial_merge_size² patches side by side: a LayerNorm over the tower's width, a
    linear from the merged patches to a middle width (the composite's ``middle_key``, else as wide as they are), a
    linear to the text model's width, biases; ``names``: the norm's and the two linears'."""
    vh, merge = vision.int("hidden_size"), vision.int("spatial_merge_size")
    width = vh * merge * merge
    middle = spec.int(middle_key) if middle_key else width
    key = middle_key or "spatial_merge_size"
    source = (spec.key_span(middle_key) if middle_key else None) or vision.key_span("spatial_merge_size") or spec.span
    return ParamNode("projector", path_norm(names[0], vh) + path_linear(names[1], width, middle)
                     + path_linear(names[2], middle, th), note=f"{merge}×{merge} patches merged", source=source, key=key)


def _aria_projector(spec: ModelSpec, vh: int, th: int) -> ParamNode:
    """Aria's projector: as many learned queries as its projector_patch_to_query_dict's largest entry (query), which
    cross-attend to the tower's patches (cross_attn: LayerNorms over the queries and over the patches, q/k/v_proj with
    no bias, an nn.MultiheadAttention over the tower's width, a linear with a bias), a LayerNorm, then the feed-forward
    linear_in to the text model's width and linear_out, no biases."""
    cross = (path_linear("cross_attn.q_proj", vh, vh, False) + path_linear("cross_attn.k_proj", vh, vh, False)
             + path_linear("cross_attn.v_proj", vh, vh, False)
             # nn.MultiheadAttention's packed q/k/v weight: a parameter, no nn.Linear (its out_proj is one)
             + (Tensor("cross_attn.multihead_attn.in_proj_weight", (3 * vh, vh), "other", "multihead_attn"),
                Tensor("cross_attn.multihead_attn.in_proj_bias", (3 * vh,), "bias", "multihead_attn"))
             + path_linear("cross_attn.multihead_attn.out_proj", vh, vh) + path_linear("cross_attn.linear", vh, vh)
             + path_norm("cross_attn.layer_norm", vh) + path_norm("cross_attn.layer_norm_kv", vh))
    return ParamNode("projector", (Tensor("query", (spec.int("projector_queries"), vh), "other", "projector"),) + cross
                     + path_norm("layer_norm", vh) + path_linear("feed_forward.linear_in", vh, th, False)
                     + path_linear("feed_forward.linear_out", th, th, False),
                     source=spec.key_span("projector_queries"), key="projector_queries",
                     note="learned queries cross-attend to the patches")


def _llava_projector(spec: ModelSpec, vision: ModelSpec, text: ModelSpec) -> ParamNode:
    """The multi_modal_projector by the family's ``projector`` switch: "mlp" (LLaVA's linear_1 from the
    tower's width × the feature layers, linear_2, biases where projector_bias; VipLLaVA's
    projector_layernorm, weight and bias, first where ``projector_norm``), "linear" (PaliGemma's one
    linear to the composite's projection_dim, with a bias), "connector" (Idefics3's and SmolVLM's
    connector.modality_projection.proj: scale_factor² patches side by side to the text model's width, no
    bias), "internvl" (InternVL's LayerNorm, linear_1 and linear_2 over int(1 / downsample_ratio)²
    patches, biases), "swiglu" (Aya Vision's and Cohere2-Vision's: downsample_factor² patches side by
    side, a LayerNorm over them where ``projector_norm`` (Aya's; Cohere2-Vision has none), linear_1 to
    alignment_intermediate_size, linear_2 from half of it to the text model's width, biases) or
    "joined_mlp" (LFM2-VL's: downsample_factor² patches side by side, a LayerNorm where ``projector_norm``,
    linear_1 to projector_hidden_size, linear_2 to the text model's width, biases where projector_bias) or
    "aligner" (DeepSeek-VL's linear1 and linear2 from the tower's width to the text model's, biases) or
    "conv_upsampler" (GOT-OCR2's two convolutions from the tower's output_channels and a linear), "aria"
    (_aria_projector), "readout" (VideoLLaMA3's two linears with biases), "merge_mlp" (PaddleOCR-VL's) or
    "patch_merger" (Cosmos3 Edge's)."""
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    kind = spec.values.get("projector", "mlp")
    if kind == "aria":
        return _aria_projector(spec, vh, th)
    if kind == "merge_mlp":  # PaddleOCR-VL's: pre_norm, linear_1 as wide as the merged patches, linear_2
        return _merging_projector(spec, vision, th, ("pre_norm", "linear_1", "linear_2"), None)
    if kind == "patch_merger":  # Cosmos3 Edge's (Qwen3.5's merger): norm, linear_fc1 to projector_hidden_size, linear_fc2
        return _merging_projector(spec, vision, th, ("norm", "linear_fc1", "linear_fc2"), "projector_hidden_size")
    if kind == "readout":  # VideoLLaMA3's projector: readout.0 from the tower's width to the text model's, readout.2
        return ParamNode("projector", linear("readout.0", vh, th, True) + linear("readout.2", th, th, True),
                         source=spec.span, key="vision_config")
    if kind == "linear":
        return ParamNode("projector", linear("linear", vh, spec.int("projection_dim"), True),
                         source=spec.key_span("projection_dim"), key="projection_dim")
    if kind == "connector":
        factor = spec.int("scale_factor")
        return ParamNode("projector", linear("proj", vh * factor * factor, th, False),
                         note=f"{factor}×{factor} patches joined", source=spec.key_span("scale_factor"), key="scale_factor")
    if kind == "internvl":
        # InternVLMultiModalProjector: int(1 / downsample_ratio)² patches side by side, a LayerNorm over them,
        # linear_1 to the text model's width, linear_2; biases.
        ratio = spec.values.get("downsample_ratio")
        if type(ratio) is not float or ratio == 0 or ratio != ratio:  # (NaN: int(1 / ratio) raises)
            raise SpecError((Problem("error", "LC102", f'"downsample_ratio": expected a non-zero number with a decimal '
                                                       f'point (InternVLConfig takes a float only), got {json.dumps(ratio)}',
                                     spec.key_span("downsample_ratio") or spec.span),))
        factor = int(1 / ratio)
        width = vh * factor * factor
        return ParamNode("projector", norm("layer_norm", width, True) + linear("linear_1", width, th, True)
                         + linear("linear_2", th, th, True), note=f"{factor}×{factor} patches joined",
                         source=spec.key_span("downsample_ratio"), key="downsample_ratio")
    if kind == "swiglu":
        factor = spec.int("downsample_factor")
        width = vh * factor * factor
        middle = spec.values.get("alignment_intermediate_size")  # not a field of AyaVisionConfig: getattr's default
        middle = th if middle is None else middle
        layernorm = norm("layernorm", width, True) if spec.values.get("projector_norm") else ()
        return ParamNode("projector", layernorm + linear("linear_1", width, middle, True)
                         + linear("linear_2", middle // 2, th, True), note=f"{factor}×{factor} patches joined",
                         source=spec.key_span("downsample_factor") or spec.key_span("alignment_intermediate_size"),
                         key="downsample_factor")
    if kind == "aligner":
        # DeepSeek-VL's aligner: linear1 from the tower's last layer to the text model's width, linear2; biases.
        return ParamNode("projector", linear("linear1", vh, th, True) + linear("linear2", th, th, True),
                         source=text.key_span("hidden_size") or vision.key_span("hidden_size"), key="hidden_size")
    if kind == "conv_upsampler":
        # GOT-OCR2's: two stride-2 3×3 Conv2d (no biases) from the tower's neck channels to twice them, then to the
        # text model's width, and multimodal_projector (a linear with a bias).
        out = vision.int("output_channels")
        return ParamNode("projector", (Tensor("conv_upsampler1.weight", (2 * out, out, 3, 3), "conv", "conv_upsampler1"),
                                       Tensor("conv_upsampler2.weight", (th, 2 * out, 3, 3), "conv", "conv_upsampler2"))
                         + linear("multimodal_projector", th, th, True), note="two stride-2 convolutions",
                         source=vision.key_span("output_channels") or text.key_span("hidden_size"), key="output_channels")
    if kind == "joined_mlp":
        # downsample_factor² patches side by side, a LayerNorm over them where projector_norm, linear_1 to
        # projector_hidden_size, linear_2 to the text model's width; biases where projector_bias.
        factor, middle = spec.int("downsample_factor"), spec.int("projector_hidden_size")
        width, bias = vh * factor * factor, bool(spec.values["projector_bias"])
        layernorm = norm("layer_norm", width, True) if spec.values.get("projector_norm") else ()
        return ParamNode("projector", layernorm + linear("linear_1", width, middle, bias)
                         + linear("linear_2", middle, th, bias), note=f"{factor}×{factor} patches joined",
                         source=spec.key_span("downsample_factor") or spec.key_span("projector_hidden_size"),
                         key="downsample_factor")
    bias = bool(spec.values["projector_bias"])
    width = vh * _feature_layers(spec)
    layernorm = norm("projector_layernorm", width, True) if spec.values.get("projector_norm") else ()
    return ParamNode("projector", layernorm + linear("linear_1", width, th, bias) + linear("linear_2", th, th, bias),
                     source=spec.key_span("vision_feature_layer") or spec.key_span("projector_bias"),
                     key="vision_feature_layer")


def _video_pool(spec: ModelSpec, vision: ModelSpec) -> ParamNode | None:
    """LLaVA-NeXT-Video's vision_resampler (LlavaNextVideoPooler): average and max pooling hold no
    parameters; "conv" is a Conv2d from the tower's width to spatial_pool_out_channels (the tower's
    width unless given), spatial_pool_stride square, with a bias. Any other mode fails to build."""
    if "spatial_pool_mode" not in spec.values:
        return None
    mode = spec.values["spatial_pool_mode"]
    where = spec.key_span("spatial_pool_mode") or spec.span
    if mode not in ("average", "max", "conv"):
        raise SpecError((Problem("error", "LC102", f'"spatial_pool_mode": {json.dumps(mode)} is not "average", "max" or '
                                                   '"conv": the pooler refuses it', where),))
    if mode != "conv":
        return None
    vh, stride = vision.int("hidden_size"), spec.int("spatial_pool_stride")
    out = spec.values.get("spatial_pool_out_channels")
    if "spatial_pool_out_channels" not in spec.origins:
        out = vh
    elif type(out) is not int or not 0 <= out <= MAX_DIMENSION:
        # Read by getattr in "conv" mode alone (no field of the config class: a float or a null elsewhere builds).
        key = spec.key_name("spatial_pool_out_channels")
        raise SpecError((Problem("error", "LC102", f'"{key}": {json.dumps(out)} is not a whole number of channels: the '
                                                   '"conv" pooler cannot be built with it',
                                 spec.key_span("spatial_pool_out_channels")),))
    return ParamNode("vision_resampler", (Tensor("pool.weight", (out, vh, stride, stride), "conv", "pool"),
                                          Tensor("pool.bias", (out,), "bias", "pool")),
                     note=f"Conv2d {stride}×{stride}", source=where, key="spatial_pool_mode")


def build_gemma3(spec: ModelSpec) -> ParamNode:
    """Gemma3ForConditionalGeneration: SigLIP vision tower, soft-embedding norm + projection, Gemma 3 text model."""
    vision, text = _subs(spec)
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    projector = ParamNode(
        "projector",
        # A bare nn.Parameter (matmul'd in forward), no nn.Linear: peft's all-linear and bitsandbytes pass it by.
        (Tensor("mm_input_projection_weight", (vh, th), "other", "multi_modal_projector"),)
        + norm("mm_soft_emb_norm", vh, False),  # Gemma3RMSNorm: weight only
    )
    body = (vision_tower(vision), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    if spec.head == "sequence_classification":
        labels = head_labels(spec.values)
        return node(spec.architecture, *body, ParamNode("score", linear("score", th, labels, False)))
    # Gemma3Config's own tie_word_embeddings decides (text_config's is not consulted).
    return node(spec.architecture, *body, _lm_head(spec, text, bool(spec.values["tie_embeddings"])))


def _vision_blocks(spec: ModelSpec, name: str, attention: tuple[Tensor, ...], mlp: ParamNode,
                   norm_bias: bool = True) -> ParamNode:
    """``num_layers`` blocks of a Qwen-VL-style vision tower, as a node named ``name`` (Qwen-VL's and RICE-ViT's
    "blocks", Kimi K2.5's "layers"): the ``attention`` tensors (their width is hidden_size's), the ``mlp`` node, and
    two LayerNorms norm1 / norm2 (biases where ``norm_bias``)."""
    h = spec.int("hidden_size")
    return node(name, ParamNode("attention", attention, source=spec.key_span("hidden_size"), key="hidden_size"), mlp,
                ParamNode("norms", norm("norm1", h, norm_bias) + norm("norm2", h, norm_bias)),
                repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers")


def _two_linear_mlp(spec: ModelSpec, fc1: str, fc2: str) -> ParamNode:
    """A vision block's MLP of two biased linears, hidden_size → intermediate_size → hidden_size."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    return ParamNode("mlp", linear(fc1, h, ffn, True) + linear(fc2, ffn, h, True),
                     source=spec.key_span("intermediate_size"), key="intermediate_size")


def _qwen_vision(spec: ModelSpec, name: str, mlp: ParamNode, norm_bias: bool) -> ParamNode:
    """The vision tower Qwen2-VL and Qwen2.5-VL share the shape of, as a node named ``name``: the Conv3d
    patch embedding (no bias), ``num_layers`` blocks (two norms, a fused qkv and proj with biases, the
    block's ``mlp``), and the merger (a norm, then hidden_size·merge² → hidden_size·merge² → out_hidden_size,
    biases). ``norm_bias``: LayerNorms (Qwen2-VL) rather than RMSNorms (Qwen2.5-VL). ``hidden_size`` is
    the blocks' width (Qwen2-VL's embed_dim), ``out_hidden_size`` the merger's (Qwen2-VL's hidden_size)."""
    h = spec.int("hidden_size")
    channels, patch, frames = spec.int("in_channels"), spec.int("patch_size"), spec.int("temporal_patch_size")
    merge, out = spec.int("spatial_merge_size"), spec.int("out_hidden_size")
    patch_embed = ParamNode("patch_embed", (Tensor("proj.weight", (h, channels, frames, patch, patch), "conv", "proj"),),
                            note=f"Conv3d {frames}×{patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    qkv = 3 * h  # as wide whatever the heads
    kv = spec.values.get("vision_kv_heads")
    if kv is not None:  # EXAONE 4.5: grouped key/value heads, hidden_size // num_heads wide each
        heads = spec.int("num_heads")
        qkv = (heads + 2 * int(kv)) * (h // heads)  # type: ignore[call-overload]
    blocks = _vision_blocks(spec, "blocks", linear("qkv", h, qkv, True) + linear("proj", h, h, True), mlp, norm_bias)
    merged = h * merge * merge  # spatial_merge_size² patches side by side
    merger = ParamNode("merger", norm("ln_q", h, norm_bias) + linear("mlp.0", merged, merged, True)
                       + linear("mlp.2", merged, out, True), note=f"{merge}×{merge} patches → {out:,}",
                       source=spec.key_span("out_hidden_size") or spec.key_span("spatial_merge_size"), key="out_hidden_size")
    return node(name, patch_embed, blocks, merger, source=spec.span, note=spec.model_type)


def qwen2_5_vision(spec: ModelSpec, name: str = "visual") -> ParamNode:
    """Qwen2_5_VisionTransformerPretrainedModel as a node named ``name``: RMSNorms (weight only) and a
    gated MLP (gate_proj, up_proj, down_proj, intermediate_size wide, biases)."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    mlp = ParamNode("mlp", linear("gate_proj", h, ffn, True) + linear("up_proj", h, ffn, True)
                    + linear("down_proj", ffn, h, True), source=spec.key_span("intermediate_size"), key="intermediate_size")
    return _qwen_vision(spec, name, mlp, norm_bias=False)


def qwen2_vision(spec: ModelSpec, name: str = "visual") -> ParamNode:
    """Qwen2VisionTransformerPretrainedModel as a node named ``name``: LayerNorms (weight and bias) and an
    MLP of fc1 and fc2 (embed_dim → mlp_ratio × embed_dim → embed_dim, biases)."""
    h = spec.int("hidden_size")
    ffn = h * spec.int("mlp_ratio")  # int(embed_dim * mlp_ratio), both whole numbers
    mlp = ParamNode("mlp", linear("fc1", h, ffn, True) + linear("fc2", ffn, h, True),
                    note=f"{spec.int('mlp_ratio')} × {h:,}", source=spec.key_span("mlp_ratio"), key="mlp_ratio")
    return _qwen_vision(spec, name, mlp, norm_bias=True)


def rice_vision(spec: ModelSpec, name: str = "visual") -> ParamNode:
    """LLaVA-OneVision-1.5's RICE-ViT (LlavaOnevision15VisionModel) as a node named ``name``: a Conv2d patch embedding
    (no bias), a class embedding and its rotary slot (hidden_size // num_heads // 2), pre_layernorm, ``num_layers``
    blocks (two LayerNorms, a fused qkv and proj, an MLP fc1 / fc2, biases on every linear), and the merger (a
    LayerNorm over one patch, then hidden_size·merge² → hidden_size·merge² → out_hidden_size, biases)."""
    h, mlp, heads = spec.int("hidden_size"), _two_linear_mlp(spec, "fc1", "fc2"), spec.int("num_heads")
    channels, patch = spec.int("in_channels"), spec.int("patch_size")
    merge, out = spec.int("spatial_merge_size"), spec.int("out_hidden_size")
    patch_embed = ParamNode("patch_embed", (Tensor("proj.weight", (h, channels, patch, patch), "conv", "proj"),),
                            note=f"Conv2d {patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    cls = ParamNode("cls_embeddings", (Tensor("class_embedding", (h,), "other", "cls_embeddings"),
                                       Tensor("class_pos_emb", (1, h // heads // 2), "other", "cls_embeddings")))
    pre = ParamNode("pre_layernorm", norm("pre_layernorm", h, True))
    blocks = _vision_blocks(spec, "blocks", linear("qkv", h, 3 * h, True) + linear("proj", h, h, True), mlp)
    merged = h * merge * merge
    merger = ParamNode("merger", norm("norm", h, True) + linear("linear_fc1", merged, merged, True)
                       + linear("linear_fc2", merged, out, True), note=f"{merge}×{merge} patches → {out:,}",
                       source=spec.key_span("out_hidden_size") or spec.key_span("spatial_merge_size"), key="out_hidden_size")
    return node(name, patch_embed, cls, pre, blocks, merger, source=spec.span, note=spec.model_type)


def build_rice_vision(spec: ModelSpec) -> ParamNode:
    """LlavaOnevision15VisionModel on its own (a config of model_type llava_onevision1_5_vision)."""
    return ParamNode(spec.architecture, children=rice_vision(spec).children)


def build_llava_onevision1_5(spec: ModelSpec) -> ParamNode:
    """LlavaOnevision15ForConditionalGeneration (or the bare LlavaOnevision15Model): RICE-ViT, text model, lm_head."""
    return _qwen_vl(spec, rice_vision)


def kimi_k25_vision(spec: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """Kimi K2.5's vision tower (Kimi_K25VisionModel) as a node named ``name``: patch_embed (a Conv2d over 3 channels
    with a bias, and a learned pos_emb_height × pos_emb_width position grid), ``num_layers`` layers (two LayerNorms,
    q/k/v_proj and proj, an MLP fc1 / fc2, biases on every linear), final_layernorm."""
    h, mlp = spec.int("hidden_size"), _two_linear_mlp(spec, "fc1", "fc2")
    patch = spec.int("patch_size")
    rows, cols = spec.int("pos_emb_height"), spec.int("pos_emb_width")
    patch_embed = ParamNode("patch_embed", (Tensor("proj.weight", (h, 3, patch, patch), "conv", "proj"),
                                            Tensor("proj.bias", (h,), "bias", "proj"),
                                            Tensor("pos_emb.position_embeddings", (rows, cols, h), "embedding", "pos_emb")),
                            note=f"Conv2d {patch}×{patch}, a {rows}×{cols} position grid", source=spec.key_span("patch_size"),
                            key="patch_size")
    attention = sum((linear(f"{p}_proj", h, h, True) for p in "qkv"), ()) + linear("proj", h, h, True)
    layers = _vision_blocks(spec, "layers", attention, mlp)
    return node(name, patch_embed, layers, ParamNode("final_layernorm", norm("final_layernorm", h, True)),
                source=spec.span, note=spec.model_type)


def build_kimi_k25_vision(spec: ModelSpec) -> ParamNode:
    """Kimi_K25VisionModel on its own (a config of model_type kimi_k25_vision)."""
    return ParamNode(spec.architecture, children=kimi_k25_vision(spec).children)


def build_kimi_k25(spec: ModelSpec) -> ParamNode:
    """Kimi_K25ForConditionalGeneration (or the bare Kimi_K25Model): the vision tower, the text model, the projector
    (mm_projector: a LayerNorm projection_hidden_size wide, in_proj over merge_kernel_size patches side by side, out_proj
    to the text model's width, biases) and lm_head (tied by the composite's own tie_word_embeddings)."""
    vision, text = _subs(spec)
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    k0, k1 = _pair(vision, "merge_kernel_size", least=0)
    width = vh * k0 * k1
    projector = ParamNode("projector", norm("pre_norm", spec.int("projection_hidden_size"), True)
                          + linear("in_proj", width, width, True) + linear("out_proj", width, th, True),
                          note=f"{k0}×{k1} patches merged", source=spec.key_span("projection_hidden_size"),
                          key="projection_hidden_size")
    body = (kimi_k25_vision(vision), language_model(text), projector)
    if spec.head == "base":
        return node(spec.architecture, *body)
    return node(spec.architecture, *body, _lm_head(spec, text, bool(spec.values["tie_embeddings"])))


def build_qwen2_5_vision(spec: ModelSpec) -> ParamNode:
    """Qwen2_5_VisionTransformerPretrainedModel on its own (a config of model_type qwen2_5_vl_vision)."""
    return ParamNode(spec.architecture, children=qwen2_5_vision(spec).children)


def build_qwen2_vision(spec: ModelSpec) -> ParamNode:
    """Qwen2VisionTransformerPretrainedModel on its own (a config of model_type qwen2_vl_vision)."""
    return ParamNode(spec.architecture, children=qwen2_vision(spec).children)


def _qwen_vl(spec: ModelSpec, tower: Callable[[ModelSpec], ParamNode]) -> ParamNode:
    """Qwen2-VL / Qwen2.5-VL / Qwen3-VL / Qwen3.5 (the head class or the bare model): vision ``tower``, text
    model, lm_head; or (Qwen3.5's GenericForSequenceClassification / GenericForTokenClassification over the bare
    composite) a score linear from the text model's width to num_labels, with a bias for tokens where
    token_classification_bias (read by getattr, true unless the file says otherwise)."""
    vision, text = _subs(spec)
    body = (tower(vision), language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    if spec.head in ("sequence_classification", "token_classification"):
        labels = head_labels(spec.values)
        bias = spec.head == "token_classification" and bool(spec.values.get("token_classification_bias", True))
        return node(spec.architecture, *body,
                    ParamNode("score", linear("score", text.int("hidden_size"), labels, bias),
                              source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label"))
    # The composite config ties the head when it asks to, or (Qwen2-VL's and Qwen2.5-VL's BC forward of
    # pre-v5 saves; the family's "text_config_ties") its text_config does.
    text_ties = spec.values.get("text_config_ties", True)
    tied = bool(spec.values["tie_embeddings"]) or (bool(text_ties) and bool(text.values.get("tie_embeddings")))
    return node(spec.architecture, *body, _lm_head(spec, text, tied))


def build_qwen2_5_vl(spec: ModelSpec) -> ParamNode:
    """Qwen2_5_VLForConditionalGeneration (or the bare Qwen2_5_VLModel): vision tower, text model, lm_head."""
    return _qwen_vl(spec, qwen2_5_vision)


def build_qwen2_vl(spec: ModelSpec) -> ParamNode:
    """Qwen2VLForConditionalGeneration (or the bare Qwen2VLModel): vision tower, text model, lm_head."""
    return _qwen_vl(spec, qwen2_vision)


def _qwen3_merger(spec: ModelSpec, postshuffle: bool) -> tuple[Tensor, ...]:
    """Qwen3VLVisionPatchMerger: a LayerNorm over one patch (or, ``postshuffle``, over the merge² patches
    side by side, as the DeepStack mergers have it), then hidden_size·merge² → hidden_size·merge² →
    out_hidden_size, biases."""
    h, merge, out = spec.int("hidden_size"), spec.int("spatial_merge_size"), spec.int("out_hidden_size")
    merged = h * merge * merge
    return norm("norm", merged if postshuffle else h, True) + linear("linear_fc1", merged, merged, True) \
        + linear("linear_fc2", merged, out, True)


def qwen3_vision(spec: ModelSpec, name: str = "visual") -> ParamNode:
    """Qwen3VLVisionModel (and the MoE model's, the same) as a node named ``name``: the Conv3d patch
    embedding (with a bias), pos_embed (num_position_embeddings × hidden_size), ``num_layers`` blocks
    (two LayerNorms, a fused qkv and proj, an MLP of linear_fc1 / linear_fc2, biases on every linear),
    the merger, and one DeepStack merger per deepstack_visual_indexes entry."""
    h, mlp = spec.int("hidden_size"), _two_linear_mlp(spec, "linear_fc1", "linear_fc2")
    channels, patch, frames = spec.int("in_channels"), spec.int("patch_size"), spec.int("temporal_patch_size")
    merge, out = spec.int("spatial_merge_size"), spec.int("out_hidden_size")
    patch_embed = ParamNode("patch_embed", (Tensor("proj.weight", (h, channels, frames, patch, patch), "conv", "proj"),
                                            Tensor("proj.bias", (h,), "bias", "proj")),
                            note=f"Conv3d {frames}×{patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    positions = ParamNode("pos_embed", embedding("pos_embed", spec.int("num_position_embeddings"), h),
                          source=spec.key_span("num_position_embeddings"), key="num_position_embeddings")
    # (qkv as wide whatever the heads)
    blocks = _vision_blocks(spec, "blocks", linear("qkv", h, 3 * h, True) + linear("proj", h, h, True), mlp)
    where = spec.key_span("out_hidden_size") or spec.key_span("spatial_merge_size")
    merger = ParamNode("merger", _qwen3_merger(spec, False), note=f"{merge}×{merge} patches → {out:,}",
                       source=where, key="out_hidden_size")
    deepstack = spec.values.get("deepstack_visual_indexes") or ()
    mergers = node("deepstack_merger_list", tensors=_qwen3_merger(spec, True), repeat=len(deepstack),  # type: ignore[arg-type]
                   note=f"{len(deepstack)} DeepStack mergers", source=spec.key_span("deepstack_visual_indexes"),
                   key="deepstack_visual_indexes") if deepstack else None
    return node(name, patch_embed, positions, blocks, merger, mergers, source=spec.span, note=spec.model_type)


def build_qwen3_vision(spec: ModelSpec) -> ParamNode:
    """Qwen3VLVisionModel / Qwen3VLMoeVisionModel on its own (a config of model_type qwen3_vl_vision / qwen3_vl_moe_vision)."""
    return ParamNode(spec.architecture, children=qwen3_vision(spec).children)


def build_qwen3_vl(spec: ModelSpec) -> ParamNode:
    """Qwen3VLForConditionalGeneration / Qwen3VLMoeForConditionalGeneration, Qwen3_5ForConditionalGeneration /
    Qwen3_5MoeForConditionalGeneration (whose vision towers have no DeepStack mergers), or the bare models, or
    Qwen3.5's classifiers: vision tower, text model, lm_head (or score)."""
    return _qwen_vl(spec, qwen3_vision)


def pixtral_vision(spec: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """PixtralVisionModel as a node named ``name``: the Conv2d patch embedding (no bias), ln_pre (an
    RMSNorm), and ``num_layers`` blocks (transformer.layers.N: attention_norm, q/k/v/o_proj hidden_size ×
    hidden_size whatever the heads, ffn_norm, a gated feed_forward; no biases). The rotary embedding
    holds buffers only. Tensor names are the module paths inside a block (attention.q_proj.weight)."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    channels, patch = spec.int("num_channels"), spec.int("patch_size")
    patch_conv = ParamNode("patch_conv", (Tensor("patch_conv.weight", (h, channels, patch, patch), "conv", "patch_conv"),),
                           note=f"Conv2d {patch}×{patch}", source=spec.key_span("patch_size"), key="patch_size")
    ln_pre = ParamNode("ln_pre", path_norm("ln_pre", h, False))
    attention = sum((path_linear(f"attention.{p}_proj", h, h, False) for p in "qkvo"), ())
    layers = node(
        "layers",
        ParamNode("attention", attention, source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("feed_forward", path_linear("feed_forward.gate_proj", h, ffn, False)
                  + path_linear("feed_forward.up_proj", h, ffn, False) + path_linear("feed_forward.down_proj", ffn, h, False),
                  source=spec.key_span("intermediate_size"), key="intermediate_size"),
        ParamNode("norms", path_norm("attention_norm", h, False) + path_norm("ffn_norm", h, False)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    return node(name, patch_conv, ln_pre, layers, source=spec.span, note=spec.model_type)


def build_pixtral(spec: ModelSpec) -> ParamNode:
    """PixtralVisionModel on its own (a config of model_type pixtral)."""
    return ParamNode(spec.architecture, children=pixtral_vision(spec).children)


def build_mistral3(spec: ModelSpec) -> ParamNode:
    """Mistral3ForConditionalGeneration (or the bare Mistral3Model): the Pixtral vision tower, the
    projector (norm: an RMSNorm over the tower's width; patch_merger.merging_layer: merge² patches →
    the tower's width, no bias; linear_1 from the tower's width × the feature layers, linear_2, biases
    where multimodal_projector_bias), the language model and lm_head."""
    vision, text = _subs(spec)
    if vision.family.layout != "pixtral":
        raise SpecError((Problem("error", "LC103", f"{vision.model_type} is not a vision tower lsp-count can count in "
                                                   f"{spec.model_type} (a pixtral one)", vision.span),))
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    merge = spec.int("spatial_merge_size")
    bias = bool(spec.values["projector_bias"])
    projector = ParamNode(
        "projector",
        path_norm("norm", vh, False) + path_linear("patch_merger.merging_layer", vh * merge * merge, vh, False)
        + path_linear("linear_1", vh * _feature_layers(spec), th, bias) + path_linear("linear_2", th, th, bias),
        note=f"{merge}×{merge} patches merged", source=spec.key_span("vision_feature_layer")
        or spec.key_span("spatial_merge_size") or spec.key_span("projector_bias"), key="vision_feature_layer",
    )
    body = (pixtral_vision(vision), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    # Mistral3Config's own tie_word_embeddings decides (text_config's is not consulted).
    return node(spec.architecture, *body, _lm_head(spec, text, bool(spec.values["tie_embeddings"])))


def _internvl_sides(spec: ModelSpec, name: str, least: int) -> tuple[int, ...]:
    """InternVLVisionConfig's image_size / patch_size: a whole number (both sides), or a list whose first two
    entries are the height and width (the patch embedding's Conv2d takes a patch_size list whole as its kernel)."""
    value = spec.values.get(name)
    sides = (value, value) if type(value) is int else tuple(value) if isinstance(value, (list, tuple)) else ()
    if len(sides) < 2 or not all(type(x) is int and (least if i < 2 else 0) <= x <= MAX_DIMENSION
                                 for i, x in enumerate(sides)):
        raise SpecError((Problem("error", "LC102", f'"{name}": expected a whole number (at least {least}) or a list of '
                                                   f"them, height and width first; got {json.dumps(value)}",
                                 spec.key_span(name) or spec.span),))
    return sides


def internvl_vision(spec: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """InternVLVisionModel as a node named ``name``: embeddings (cls_token; mask_token where use_mask_token;
    the Conv2d patch embedding with a bias; a position table of the patches + 1 where
    use_absolute_position_embeddings), ``num_layers`` layers (q/k/v_proj with biases where attention_bias,
    projection_layer with a bias, q_norm / k_norm RMSNorms where use_qk_norm, an MLP of fc1 / fc2, two
    norms of norm_type, the layer-scale vectors lambda_1 / lambda_2), and a final LayerNorm unless
    use_mean_pooling. Tensor names are the module paths inside the model (attention.q_proj.weight)."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    channels = spec.int("num_channels")
    image, patch = _internvl_sides(spec, "image_size", 0), _internvl_sides(spec, "patch_size", 1)
    patches = (image[1] // patch[1]) * (image[0] // patch[0])
    norm_type = spec.values.get("norm_type")
    if norm_type not in ("layer_norm", "rms_norm"):
        raise SpecError((Problem("error", "LC102", f'"norm_type": {json.dumps(norm_type)} is not "layer_norm" or '
                                                   '"rms_norm": InternVL\'s vision layers cannot be built with it',
                                 spec.key_span("norm_type") or spec.span),))
    tensors = (Tensor("embeddings.cls_token", (1, 1, h), "other", "embeddings"),)
    if spec.values.get("use_mask_token"):
        tensors += (Tensor("embeddings.mask_token", (1, 1, h), "other", "embeddings"),)
    tensors += (Tensor("embeddings.patch_embeddings.projection.weight", (h, channels, *patch), "conv", "projection"),
                Tensor("embeddings.patch_embeddings.projection.bias", (h,), "bias", "projection"))
    if spec.values.get("use_absolute_position_embeddings"):
        tensors += (Tensor("embeddings.position_embeddings", (1, patches + 1, h), "embedding", "embeddings"),)
    embeddings = ParamNode("embeddings", tensors, note=f"{patches:,} patches + the class token",
                           source=spec.key_span("patch_size") or spec.key_span("image_size"), key="patch_size")
    bias, layer_norm = bool(spec.values.get("attention_bias")), norm_type == "layer_norm"
    attention = sum((path_linear(f"attention.{p}_proj", h, h, bias) for p in "qkv"), ()) \
        + path_linear("attention.projection_layer", h, h, True)
    if spec.values.get("use_qk_norm"):
        attention += path_norm("attention.q_norm", h, False) + path_norm("attention.k_norm", h, False)
    layers = node(
        "layers",
        ParamNode("attention", attention, source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("mlp", path_linear("mlp.fc1", h, ffn, True) + path_linear("mlp.fc2", ffn, h, True),
                  source=spec.key_span("intermediate_size"), key="intermediate_size"),
        ParamNode("norms", path_norm("layernorm_before", h, layer_norm) + path_norm("layernorm_after", h, layer_norm)
                  + (Tensor("lambda_1", (h,), "other", "lambda_1"), Tensor("lambda_2", (h,), "other", "lambda_2")),
                  source=spec.key_span("norm_type"), key="norm_type"),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    final = None if spec.values.get("use_mean_pooling") else ParamNode(
        "final_norm", path_norm("layernorm", h, True), source=spec.key_span("use_mean_pooling"), key="use_mean_pooling")
    return node(name, embeddings, layers, final, source=spec.span, note=spec.model_type)


def build_internvl_vision(spec: ModelSpec) -> ParamNode:
    """InternVLVisionModel on its own (a config of model_type internvl_vision)."""
    return ParamNode(spec.architecture, children=internvl_vision(spec).children)


def got_ocr2_vision(spec: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """GotOcr2VisionEncoder (SAM's ViT) as a node named ``name``: the Conv2d patch embedding (with a bias), pos_embed
    ((image_size // patch_size)² × hidden_size) where use_abs_pos, ``num_layers`` layers (layer_norm1 / layer_norm2,
    attn.qkv with a bias where qkv_bias, attn.proj, mlp.lin1 / lin2 with biases, and where use_rel_pos the relative
    positions rel_pos_h / rel_pos_w, 2·size − 1 rows of the head width: size the window in windowed layers, the patch
    grid's side in global ones, global_attn_indexes or a 0 window), and the neck (a 1×1 and a 3×3 Conv2d to
    output_channels, no biases, each followed by a LayerNorm)."""
    h, heads, ffn, out = spec.int("hidden_size"), spec.int("num_heads"), spec.int("mlp_dim"), spec.int("output_channels")
    channels, patch, layers = spec.int("num_channels"), spec.int("patch_size"), spec.int("num_layers")
    side, window, head_dim = spec.int("image_size") // patch, spec.int("window_size"), h // heads
    indexes = spec.values.get("global_attn_indexes") or ()
    global_layers = sum(1 for i in range(layers) if window == 0 or i in indexes)
    tensors = (Tensor("patch_embed.projection.weight", (h, channels, patch, patch), "conv", "projection"),
               Tensor("patch_embed.projection.bias", (h,), "bias", "projection"))
    if spec.values.get("use_abs_pos"):
        tensors += (Tensor("pos_embed", (1, side, side, h), "embedding", "pos_embed"),)
    embeddings = ParamNode("embeddings", tensors, note=f"{side}×{side} patches",
                           source=spec.key_span("patch_size") or spec.key_span("image_size"), key="patch_size")
    use_rel_pos = bool(spec.values.get("use_rel_pos"))
    if use_rel_pos and global_layers and side == 0:
        raise SpecError((Problem("error", "LC102", f"patch_size ({patch}) is more than image_size "
                                                   f"({spec.int('image_size')}): the global layers' relative positions "
                                                   "would have -1 rows, which transformers cannot build",
                                 spec.key_span("patch_size") or spec.span),))
    body = node(
        "layers",
        ParamNode("attention", path_linear("attn.qkv", h, 3 * h, bool(spec.values.get("qkv_bias")))
                  + path_linear("attn.proj", h, h, True), source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("mlp", path_linear("mlp.lin1", h, ffn, True) + path_linear("mlp.lin2", ffn, h, True),
                  source=spec.key_span("mlp_dim"), key="mlp_dim"),
        ParamNode("norms", path_norm("layer_norm1", h, True) + path_norm("layer_norm2", h, True)),
        repeat=layers, source=spec.key_span("num_layers"), key="num_layers",
    )

    def relative(size: int, count: int, what: str) -> ParamNode | None:
        if not use_rel_pos or not count:
            return None
        rows = 2 * size - 1
        return node(f"{what}_relative_positions", tensors=(Tensor("attn.rel_pos_h", (rows, head_dim), "other", "attn"),
                                                           Tensor("attn.rel_pos_w", (rows, head_dim), "other", "attn")),
                    repeat=count, note=f"{count} {what} layers, {rows} rows", source=spec.key_span("use_rel_pos"),
                    key="use_rel_pos")

    positions = (relative(window, layers - global_layers, "windowed"), relative(side, global_layers, "global"))
    neck = ParamNode("neck", (Tensor("neck.conv1.weight", (out, h, 1, 1), "conv", "conv1"),)
                     + path_norm("neck.layer_norm1", out, True)
                     + (Tensor("neck.conv2.weight", (out, out, 3, 3), "conv", "conv2"),)
                     + path_norm("neck.layer_norm2", out, True),
                     source=spec.key_span("output_channels"), key="output_channels")
    return node(name, embeddings, body, *positions, neck, source=spec.span, note=spec.model_type)


def build_got_ocr2_vision(spec: ModelSpec) -> ParamNode:
    """GotOcr2VisionEncoder on its own (a config of model_type got_ocr2_vision)."""
    return ParamNode(spec.architecture, children=got_ocr2_vision(spec).children)
