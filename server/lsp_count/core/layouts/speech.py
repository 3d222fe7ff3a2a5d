"""Speech encoders (wav2vec 2.0 and its kin; families/speech.py): a convolutional feature encoder over the
waveform, a feature projection, a positional convolution, a transformer encoder, an optional adapter, and the
head classes.

Node names follow the encoder layout's ("embeddings", "layers" > "attention" / "mlp" / "norms", "final_norm") so
the memory estimate and LoRA read it alike; tensors are named by their path in the base model (inside a layer for
the layers': "attention.q_proj"), their module by its last part, as the encoder layout's (formats/lora.py's
ENCODER_PATHS puts the full names together).
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.layouts.encoder import encoder_layers, path_linear, path_norm, relative_positions
from lsp_count.core.params import ADAPTABLE_HEAD_NODE, ParamNode, Tensor, embedding, linear, node
from lsp_count.core.spec import ModelSpec, head_labels


def _conv(path: str, out_c: int, in_per_group: int, kernel: int, bias: bool) -> tuple[Tensor, ...]:
    """A Conv1d named by its path; the module is the last part (as path_linear's)."""
    module = path.rsplit(".", 1)[-1]
    ts = (Tensor(f"{path}.weight", (out_c, in_per_group, kernel), "conv", module),)
    return ts + ((Tensor(f"{path}.bias", (out_c,), "bias", module),) if bias else ())


def _feature_encoder(spec: ModelSpec) -> ParamNode | None:
    """One Conv1d per conv_dim entry (1 input channel first); a GroupNorm of conv_dim[0] channels after the first
    ("group"), or a LayerNorm after each ("layer"). None where the model reads features, not a waveform
    (``feature_encoder`` false: Wav2Vec2-BERT's log-mel input)."""
    v = spec.values
    if not v["feature_encoder"]:
        return None
    dims, kernels = v["conv_dim"], v["conv_kernel"]
    bias, per_layer_norm = bool(v["conv_bias"]), v["feat_extract_norm"] == "layer"
    tensors: list[Tensor] = []
    for i, (out_c, kernel) in enumerate(zip(dims, kernels)):  # type: ignore[call-overload]
        name = f"feature_extractor.conv_layers.{i}"
        tensors += _conv(f"{name}.conv", out_c, dims[i - 1] if i else 1, kernel, bias)  # type: ignore[index]
        if per_layer_norm or i == 0:
            tensors += path_norm(f"{name}.layer_norm", out_c)
    return ParamNode("feature_encoder", tuple(tensors), source=spec.key_span("conv_dim"), key="conv_dim")


def _positional_conv(spec: ModelSpec) -> ParamNode | None:
    """The positional Conv1d (hidden → hidden, pos_conv_kernel wide, grouped, with a bias): weight-normed over dim 2
    (weight_g (1, 1, kernel) and weight_v in place of the weight), or plain after a BatchNorm1d (HuBERT's
    conv_pos_batch_norm); data2vec's is pos_conv_layers plain convolutions (their LayerNorms hold no parameters)."""
    v = spec.values
    if v["pos_conv_layers"] == 0 and not v["feature_encoder"]:  # (Wav2Vec2-BERT: positions in the attention alone)
        return None
    h, kernel = spec.int("hidden_size"), spec.int("pos_conv_kernel")
    groups, layers = spec.int("num_conv_pos_embedding_groups"), spec.int("pos_conv_layers")
    shape = (h, h // groups, kernel)
    if layers != 1 or not v["pos_conv_weight_norm"]:
        if layers != 1:  # (a ModuleList, even of one)
            conv = _conv("encoder.pos_conv_embed.layers.conv", h, h // groups, kernel, True)
            return ParamNode("positional_conv", children=(ParamNode("layers", conv, repeat=layers),),
                             source=spec.key_span("pos_conv_layers"), key="pos_conv_layers")
        conv = _conv("encoder.pos_conv_embed.conv", h, h // groups, kernel, True)
        tensors = path_norm("encoder.pos_conv_embed.batch_norm", h) + conv if v["pos_conv_batch_norm"] else conv
        return ParamNode("positional_conv", tensors, source=spec.key_span("pos_conv_kernel"), key="pos_conv_kernel")
    path, name = "encoder.pos_conv_embed.conv", "conv"
    return ParamNode("positional_conv", (
        Tensor(f"{path}.parametrizations.weight.original0", (1, 1, kernel), "conv", name),
        Tensor(f"{path}.parametrizations.weight.original1", shape, "conv", name),
        Tensor(f"{path}.bias", (h,), "bias", name)), source=spec.key_span("pos_conv_kernel"), key="pos_conv_kernel")


def _conformer_layer(spec: ModelSpec) -> tuple[ParamNode | None, ...]:
    """A conformer block (wav2vec2-conformer, Wav2Vec2-BERT): self-attention (linear_q/k/v/out with biases; where
    relative positions, linear_pos without one and the per-head biases pos_bias_u and pos_bias_v; where "relative_key",
    a distance embedding), two half-step feed-forwards (ffn1, ffn2), a convolution module (a LayerNorm, pointwise
    hidden → 2 × hidden, depthwise conv_depthwise_kernel_size wide, a norm by ``conformer_conv_norm`` (a BatchNorm1d,
    or Wav2Vec2-BERT's LayerNorm), pointwise hidden → hidden; no biases), and four LayerNorms."""
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    heads = spec.int("num_heads")
    tensors = tuple(t for n in ("linear_q", "linear_k", "linear_v", "linear_out")
                    for t in path_linear(f"self_attn.{n}", h, h))
    positions = spec.values["position_embeddings_type"]
    if positions == "relative":
        tensors += (*path_linear("self_attn.linear_pos", h, h, bias=False),
                    *(Tensor(f"self_attn.{n}", (heads, h // heads), "other", n) for n in ("pos_bias_u", "pos_bias_v")))
    elif positions == "relative_key":  # (Wav2Vec2-BERT: a distance embedding, left + right + 1 rows a head wide)
        rows = spec.int("left_max_position_embeddings") + spec.int("right_max_position_embeddings") + 1
        tensors += tuple(replace(t, module="distance_embedding") for t in embedding(
            "self_attn.distance_embedding", rows, h // heads))
    attn = ParamNode("attention", tensors, source=spec.key_span("num_heads"), key="num_heads")
    mlp = ParamNode("mlp", tuple(t for ffn in ("ffn1", "ffn2") for t in path_linear(
        f"{ffn}.intermediate_dense", h, f) + path_linear(f"{ffn}.output_dense", f, h)),
                    source=spec.key_span("intermediate_size"), key="intermediate_size")
    kernel = spec.int("conv_depthwise_kernel_size")
    conv = ParamNode("conv_module", (
        *path_norm("conv_module.layer_norm", h), *_conv("conv_module.pointwise_conv1", 2 * h, h, 1, False),
        *_conv("conv_module.depthwise_conv", h, 1, kernel, False),
        *path_norm(f"conv_module.{spec.values['conformer_conv_norm']}", h),
        *_conv("conv_module.pointwise_conv2", h, h, 1, False)),
                     source=spec.key_span("conv_depthwise_kernel_size"), key="conv_depthwise_kernel_size")
    norms = ParamNode("norms", tuple(t for n in ("ffn1_layer_norm", "self_attn_layer_norm", "ffn2_layer_norm",
                                                 "final_layer_norm") for t in path_norm(n, h)))
    return attn, mlp, conv, norms


def _layer(spec: ModelSpec) -> tuple[ParamNode | None, ...]:
    """An encoder layer: q/k/v/out projections with biases, a two-Linear feed-forward, two LayerNorms; a pre-norm
    layer may hold an attention adapter (LayerNorm, then hidden → adapter_attn_dim → hidden)."""
    v = spec.values
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    tensors = tuple(t for n in ("q_proj", "k_proj", "v_proj", "out_proj") for t in path_linear(f"attention.{n}", h, h))
    if v["relative_buckets"] is not None:  # WavLM's gate: a constant per head and a Linear from a head's width to 8
        heads = spec.int("num_heads")
        tensors += (Tensor("attention.gru_rel_pos_const", (1, heads, 1, 1), "other", "gru_rel_pos_const"),
                    *path_linear("attention.gru_rel_pos_linear", h // heads, 8))
    attn = ParamNode("attention", tensors, source=spec.key_span("num_heads"), key="num_heads")
    mlp = ParamNode("mlp", path_linear("feed_forward.intermediate_dense", h, f) + path_linear(
        "feed_forward.output_dense", f, h),
                    source=spec.key_span("intermediate_size"), key="intermediate_size")
    norms = ParamNode("norms", path_norm("layer_norm", h) + path_norm("final_layer_norm", h))
    width = v.get("adapter_attn_dim")
    adapter = None
    if v["do_stable_layer_norm"] and width is not None:
        a = int(width)  # type: ignore[call-overload]
        adapter = ParamNode("attention_adapter", path_norm("adapter_layer.norm", h) + path_linear(
            "adapter_layer.linear_1", h, a) + path_linear("adapter_layer.linear_2", a, h),
            source=spec.key_span("adapter_attn_dim"), key="adapter_attn_dim")
    return attn, mlp, norms, adapter


def _output_width(spec: ModelSpec) -> int:
    """The adapter's width: output_hidden_size, else hidden_size (where the config class fills it, for a 0 too:
    the families that build the adapter; HuBERT's keeps a 0)."""
    width = spec.values.get("output_hidden_size")
    if width is None or (width == 0 and spec.values["conv_adapter"]):
        return spec.int("hidden_size")
    return int(width)  # type: ignore[call-overload]


def _adapter(spec: ModelSpec) -> ParamNode | None:
    """The convolutional adapter after the encoder: a projection (and its LayerNorm) where its width differs from
    hidden_size, then num_adapter_layers Conv1d of width → 2 × width (a GLU halves them) with biases."""
    if not (spec.values["add_adapter"] and spec.values["conv_adapter"]):
        return None
    h, o, kernel = spec.int("hidden_size"), _output_width(spec), spec.int("adapter_kernel_size")
    proj = path_linear("adapter.proj", h, o) + path_norm("adapter.proj_layer_norm", o) if o != h else ()
    if spec.values["adapter_kind"] == "conformer":
        # Wav2Vec2-BERT's adapter layers (each its own node: their Linears' paths carry the index): a residual and a
        # self-attention Conv1d, width → 2 × width with biases (a GLU halves them), each after a LayerNorm;
        # self-attention at the adapter's width (linear_q/k/v/out with biases, no positions); a feed-forward after a
        # LayerNorm (width → intermediate_size → width).
        f = spec.int("intermediate_size")
        adapter_layers = tuple(ParamNode(str(i), (
            *path_norm(f"{p}.residual_layer_norm", o), *_conv(f"{p}.residual_conv", 2 * o, o, kernel, True),
            *path_norm(f"{p}.self_attn_layer_norm", o), *_conv(f"{p}.self_attn_conv", 2 * o, o, kernel, True),
            *(t for n in ("linear_q", "linear_k", "linear_v", "linear_out") for t in path_linear(f"{p}.self_attn.{n}",
                                                                                                  o, o)),
            *path_norm(f"{p}.ffn_layer_norm", o), *_feed_forward(f"{p}.ffn", o, f)))
            for i, p in ((i, f"adapter.layers.{i}") for i in range(spec.int("num_adapter_layers"))))
        return node("adapter", ParamNode("adapter_layers", children=adapter_layers), tensors=proj,
                    source=spec.key_span("add_adapter"), key="add_adapter")
    layers = ParamNode("adapter_layers", _conv("adapter.layers.conv", 2 * o, o, kernel, True),
                       repeat=spec.int("num_adapter_layers"))
    return node("adapter", layers, tensors=proj, source=spec.key_span("add_adapter"), key="add_adapter")


def _base(spec: ModelSpec) -> tuple[ParamNode | None, ...]:
    v = spec.values
    # (the feature projection reads the feature encoder's last width, or the input features' where there is none)
    h = spec.int("hidden_size")
    last = v["conv_dim"][-1] if v["feature_encoder"] else \
        spec.int("feature_projection_input_dim")  # type: ignore[index]
    if v["bare_feature_projection"]:  # (SEW: the model's own LayerNorm; a Linear only where the widths differ)
        projection = path_norm("layer_norm", last) + (path_linear("feature_projection", last, h) if last != h else ())
    else:
        projection = path_linear("feature_projection.projection", last, h)
        if v["feature_projection_norm"]:
            projection = path_norm("feature_projection.layer_norm", last) + projection
    masked = (Tensor("masked_spec_embed", (h,), "other", "masked_spec_embed"),) \
        if v["mask_vector_always"] or v["mask_time_prob"] > 0 or v["mask_feature_prob"] > 0 else ()  # type: ignore[operator]
    positional = _positional_conv(spec)
    embeddings = ParamNode("embeddings", projection + masked, (positional,) if positional else (),
                           source=spec.key_span("hidden_size"), key="hidden_size")
    if v["disentangled_layers"]:
        # (SEW-D: DeBERTa-v2's layers, relative-position table and optional Conv1d under encoder.encoder, the encoder
        # layout's; no final LayerNorm. No layer, no head width read.)
        relative, conv = relative_positions(spec, "encoder.encoder")
        layers = encoder_layers(spec) if spec.int("num_layers") else None
        return _feature_encoder(spec), embeddings, relative, layers, conv, _upsample(spec), _adapter(spec)
    layers = node("layers", *(_conformer_layer(spec) if v["conformer_layers"] else _layer(spec)), repeat=spec.int("num_layers"), source=spec.key_span("num_layers"),
                  key="num_layers")
    final = ParamNode("final_norm", path_norm("encoder.layer_norm", h)) if v["encoder_final_norm"] else None
    return (_feature_encoder(spec), embeddings, _relative_bias(spec), layers, final, _upsample(spec),
            _intermediate_ffn(spec), _adapter(spec))


def _feed_forward(path: str, width: int, inner: int) -> tuple[Tensor, ...]:
    """A feed-forward: intermediate_dense width → inner, output_dense back, with biases."""
    return path_linear(f"{path}.intermediate_dense", width, inner) + path_linear(f"{path}.output_dense", inner, width)


def _intermediate_ffn(spec: ModelSpec) -> ParamNode | None:
    """Wav2Vec2-BERT's feed-forward between the encoder and the adapter (use_intermediate_ffn_before_adapter)."""
    if not spec.values["intermediate_ffn"]:
        return None
    return ParamNode("intermediate_ffn", _feed_forward("intermediate_ffn", spec.int("hidden_size"),
                                                       spec.int("intermediate_size")),
                     source=spec.key_span("intermediate_ffn"), key="intermediate_ffn")


def _upsample(spec: ModelSpec) -> ParamNode | None:
    """A squeezed encoder's upsampling (SEW: the encoder runs on frames pooled squeeze_factor at a time; a Linear
    hidden → hidden × squeeze_factor spreads each back over as many frames)."""
    squeeze = spec.values["squeeze_factor"]
    if squeeze is None:
        return None
    h = spec.int("hidden_size")
    return ParamNode("upsample", path_linear("encoder.upsample.projection", h, h * int(squeeze)),  # type: ignore[call-overload]
                     source=spec.key_span("squeeze_factor"), key="squeeze_factor")


def _relative_bias(spec: ModelSpec) -> ParamNode | None:
    """WavLM's relative position bias: an embedding of relative_buckets rows, one column per head, in layer 0's
    attention alone (rel_attn_embed; no layer, no table)."""
    buckets = spec.values["relative_buckets"]
    if buckets is None or not spec.int("num_layers"):
        return None
    table = embedding("encoder.layers.0.attention.rel_attn_embed", int(buckets),  # type: ignore[call-overload]
                      spec.int("num_heads"))
    return ParamNode("relative_position_bias", tuple(replace(t, module="rel_attn_embed") for t in table),
                     source=spec.key_span("relative_buckets"), key="relative_buckets")


def _layer_weights(spec: ModelSpec) -> ParamNode | None:
    """The classification heads' learned weight per hidden state (the layers' and the embeddings')."""
    if not spec.values["use_weighted_layer_sum"]:
        return None
    return ParamNode("layer_weights", (Tensor("layer_weights", (spec.int("num_layers") + 1,), "other",
                                              "layer_weights"),), source=spec.key_span("use_weighted_layer_sum"),
                     key="use_weighted_layer_sum")


def build_speech_encoder(spec: ModelSpec) -> ParamNode:
    v = spec.values
    base = _base(spec)
    if spec.head == "base":
        return node(spec.architecture, *base)
    h, labels = spec.int("hidden_size"), head_labels(v)  # type: ignore[arg-type]
    if spec.head == "ctc":
        width = _output_width(spec) if v["add_adapter"] else h
        # (the class has no output embeddings: peft's all-linear adapts lm_head, which the node name says)
        head = ParamNode(ADAPTABLE_HEAD_NODE, linear("lm_head", width, spec.int("vocab_size"), True),
                         source=spec.key_span("vocab_size"), key="vocab_size")
        return node(spec.architecture, *base, head)
    if spec.head == "sequence_classification":
        proj = spec.int("classifier_proj_size")
        head = ParamNode("score", linear("projector", h, proj, True) + linear("classifier", proj, labels, True))
        return node(spec.architecture, *base, _layer_weights(spec), head)
    if spec.head == "audio_frame_classification":
        return node(spec.architecture, *base, _layer_weights(spec), ParamNode("score", linear("classifier", h, labels,
                                                                                              True)))
    if spec.head == "xvector":
        dims, kernels = v["tdnn_dim"], v["tdnn_kernel"]
        out = spec.int("xvector_output_dim")
        tensors = linear("projector", h, dims[0], True)  # type: ignore[index]
        for i, width in enumerate(dims):  # type: ignore[arg-type]
            tensors += path_linear(f"tdnn.{i}.kernel", dims[i - 1 if i else 0] * kernels[i], width)  # type: ignore[index]
        tensors += linear("feature_extractor", dims[-1] * 2, out, True) + linear("classifier", out, out, True)  # type: ignore[index]
        tensors += (Tensor("objective.weight", (out, labels), "other", "objective"),)
        return node(spec.architecture, *base, _layer_weights(spec), ParamNode("score", tensors))
    if spec.head == "pretraining":
        return node(spec.architecture, *base, ParamNode("pretraining_head", _pretraining_head(spec)))
    raise AssertionError(spec.head)


def _pretraining_head(spec: ModelSpec) -> tuple[Tensor, ...]:
    """The pre-training class's own tensors: a Gumbel quantizer (its codebooks and a Linear choosing entries, over the
    feature encoder's output, or the encoder's width where "speaker") and project_q (codevectors → proj); then, by
    ``pretraining``: "contrastive" (wav2vec 2.0: project_hid hidden → proj), "phonetic_ctc" (UniSpeech: project_hid
    proj → hidden, then ctc_proj hidden → num_ctc_classes), "speaker" (UniSpeech-SAT: project_hid hidden → proj,
    speaker_proj hidden → codevector_dim, the cluster label table num_clusters × codevector_dim, and
    layer_norm_for_extract over hidden)."""
    v, kind = spec.values, spec.values["pretraining"]
    h = spec.int("hidden_size")
    groups, per_group = spec.int("num_codevector_groups"), spec.int("num_codevectors_per_group")
    dim, proj = spec.int("codevector_dim"), spec.int("proj_codevector_dim")
    quantized_width = h if kind == "speaker" else v["conv_dim"][-1]  # type: ignore[index]
    tensors = (Tensor("quantizer.codevectors", (1, groups * per_group, dim // groups), "other", "quantizer"),
               *path_linear("quantizer.weight_proj", quantized_width, groups * per_group))  # type: ignore[arg-type]
    if kind == "phonetic_ctc":
        return tensors + linear("project_q", dim, proj, True) + linear("project_hid", proj, h, True) + linear(
            "ctc_proj", h, spec.int("num_ctc_classes"), True)
    tensors += linear("project_hid", h, proj, True) + linear("project_q", dim, proj, True)
    if kind == "speaker":
        tensors += linear("speaker_proj", h, dim, True) + (
            Tensor("label_embeddings_concat", (spec.int("num_clusters"), dim), "other", "label_embeddings_concat"),
            *path_norm("layer_norm_for_extract", h))
    return tensors
