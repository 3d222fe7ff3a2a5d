"""Audio-language models: an audio encoder, a projector and a language model (Qwen2-Audio, Voxtral, Granite Speech).

The encoder is Whisper's encoder as these composites copy it (Qwen2AudioEncoder, VoxtralEncoder): two Conv1d over
the mel bins, a frozen position table, post-attention LayerNorm layers, a final LayerNorm (its AvgPool1d holds
nothing). Tensors are named by their module paths inside the encoder (layers.N.self_attn.q_proj), as LoRA targets
them. Granite Speech's encoder is a conformer (``conformer_encoder``) and its projector holds a BLIP-2 Q-Former
(built by layouts/qformer.py, as BLIP-2's own). The language model is any decoder family's bare class
(``multimodal.language_model``).
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import language_model, no_sub_model
from lsp_count.core.layouts.qformer import qformer_of
from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError


def whisper_audio_encoder(spec: ModelSpec, name: str = "audio_tower") -> ParamNode:
    """The audio encoder as a node named ``name``: conv1 (mel bins → hidden_size, kernel 3) and conv2 (hidden_size,
    kernel 3, stride 2), both with biases; embed_positions, max_source_positions rows built with requires_grad
    off (counted, not trainable); ``num_layers`` layers (self_attn's q/v/out_proj with biases, k_proj without,
    fc1 / fc2 with biases, two LayerNorms); the final layer_norm."""
    h, ffn, mels = spec.int("hidden_size"), spec.int("intermediate_size"), spec.int("num_mel_bins")
    convs = ParamNode("conv_frontend", (Tensor("conv1.weight", (h, mels, 3), "conv", "conv1"),
                                        Tensor("conv1.bias", (h,), "bias", "conv1"),
                                        Tensor("conv2.weight", (h, h, 3), "conv", "conv2"),
                                        Tensor("conv2.bias", (h,), "bias", "conv2")),
                      note="Conv1d 3, Conv1d 3 stride 2", source=spec.key_span("num_mel_bins"), key="num_mel_bins")
    positions = ParamNode("embed_positions", embedding("embed_positions", spec.int("max_source_positions"), h),
                          frozen=True, note="requires_grad=False", source=spec.key_span("max_source_positions"),
                          key="max_source_positions")
    attention = (path_linear("self_attn.k_proj", h, h, False) + path_linear("self_attn.v_proj", h, h, True)
                 + path_linear("self_attn.q_proj", h, h, True) + path_linear("self_attn.out_proj", h, h, True))
    layers = node(
        "layers",
        ParamNode("attention", attention, source=spec.key_span("num_heads"), key="num_heads"),
        ParamNode("mlp", path_linear("fc1", h, ffn, True) + path_linear("fc2", ffn, h, True),
                  source=spec.key_span("intermediate_size"), key="intermediate_size"),
        ParamNode("norms", path_norm("self_attn_layer_norm", h, True) + path_norm("final_layer_norm", h, True)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    final = ParamNode("final_norm", path_norm("layer_norm", h, True))
    return node(name, convs, positions, layers, final, source=spec.span, note=spec.model_type)


def build_audio_encoder(spec: ModelSpec) -> ParamNode:
    """Qwen2AudioEncoder / VoxtralEncoder on their own (a config of model_type qwen2_audio_encoder, voxtral_encoder)."""
    return ParamNode(spec.architecture, children=whisper_audio_encoder(spec).children)


def conformer_encoder(spec: ModelSpec, name: str = "audio_tower") -> ParamNode:
    """GraniteSpeechCTCEncoder as a node named ``name``: input_linear (biased), ``num_layers`` conformer blocks and
    the CTC head (out to output_dim, out_mid back; biases). A block: ff1 and ff2 (a LayerNorm, up_proj to
    feedforward_mult × the width, down_proj; biases); attn (a LayerNorm, to_q and to_kv heads × dim_head wide
    without biases, to_out with one, rel_pos_emb of 2 × max_pos_emb + 1 rows dim_head wide); conv (a LayerNorm, a
    pointwise up_conv to 2 × conv_expansion_factor × the width, a depthwise conv_kernel_size Conv1d without bias, a
    BatchNorm1d's weight and bias (its running statistics are buffers), a pointwise down_conv); post_norm."""
    h, heads = spec.int("hidden_size"), spec.int("num_heads")
    dim_head = spec.values.get("dim_head")
    dim_head = h // heads if dim_head is None else int(dim_head)  # type: ignore[call-overload]
    inner, ffn = heads * dim_head, h * spec.int("feedforward_mult")
    conv, kernel = h * spec.int("conv_expansion_factor"), spec.int("conv_kernel_size")
    out = spec.int("output_dim")

    def feed_forward(n: str) -> ParamNode:
        return ParamNode(n, path_norm(f"{n}.pre_norm", h, True) + path_linear(f"{n}.up_proj", h, ffn, True)
                         + path_linear(f"{n}.down_proj", ffn, h, True), source=spec.key_span("feedforward_mult"),
                         key="feedforward_mult")

    attention = ParamNode("attention", path_norm("attn.pre_norm", h, True) + path_linear("attn.to_q", h, inner, False)
                          + path_linear("attn.to_kv", h, 2 * inner, False) + path_linear("attn.to_out", inner, h, True)
                          + embedding("attn.rel_pos_emb", 2 * spec.int("max_pos_emb") + 1, dim_head),
                          source=spec.key_span("num_heads"), key="num_heads")
    convolution = ParamNode(
        "conv", path_norm("conv.norm", h, True)
        + (Tensor("conv.up_conv.weight", (2 * conv, h, 1), "conv", "up_conv"),
           Tensor("conv.up_conv.bias", (2 * conv,), "bias", "up_conv"),
           Tensor("conv.depth_conv.conv.weight", (conv, 1, kernel), "conv", "conv"))
        + path_norm("conv.batch_norm", conv, True)
        + (Tensor("conv.down_conv.weight", (h, conv, 1), "conv", "down_conv"),
           Tensor("conv.down_conv.bias", (h,), "bias", "down_conv")),
        note=f"depthwise Conv1d {kernel}", source=spec.key_span("conv_kernel_size"), key="conv_kernel_size")
    layers = node("layers", feed_forward("ff1"), attention, convolution, feed_forward("ff2"),
                  ParamNode("norms", path_norm("post_norm", h, True)),
                  repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers")
    return node(name, ParamNode("input_linear", path_linear("input_linear", spec.int("input_dim"), h, True),
                                source=spec.key_span("input_dim"), key="input_dim"),
                layers, ParamNode("ctc_head", path_linear("out", h, out, True) + path_linear("out_mid", out, h, True),
                                  source=spec.key_span("output_dim"), key="output_dim"),
                source=spec.span, note=spec.model_type)


def build_conformer_encoder(spec: ModelSpec) -> ParamNode:
    """GraniteSpeechCTCEncoder on its own (a config of model_type granite_speech_encoder)."""
    return ParamNode(spec.architecture, children=conformer_encoder(spec).children)


def _audio_tower(audio: ModelSpec) -> ParamNode:
    return conformer_encoder(audio) if audio.family.layout == "conformer_encoder" else whisper_audio_encoder(audio)


def build_audio_language(spec: ModelSpec) -> ParamNode:
    """Qwen2AudioForConditionalGeneration / VoxtralForConditionalGeneration (or their bare Model classes): the audio
    tower, the multi_modal_projector by the family's ``projector`` switch, the language model and lm_head. The
    switch: "linear" (Qwen2-Audio's one linear from the tower's width to the text model's, with a bias) or "mlp"
    (Voxtral's linear_1 from the tower's intermediate_size: it reshapes four frames' outputs into one, then
    linear_2, no biases). The head is never tied: neither class declares tied weights, so tie_word_embeddings
    (the composite's or text_config's) ties nothing."""
    audio, text = spec.subspecs.get("audio"), spec.subspecs.get("text")
    if audio is None or text is None:  # build_spec reports why a sub-config failed; this is a guard
        raise SpecError((Problem("error", "LC103", f"{spec.model_type} needs an audio_config and a text_config",
                                 spec.span),))
    if audio.family.layout not in ("audio_encoder", "conformer_encoder"):
        raise SpecError((Problem("error", "LC103", f"{audio.model_type} is not an audio encoder lsp-count can count in "
                                                   f"{spec.model_type} (a Whisper-shaped one)", audio.span),))
    th = text.int("hidden_size")
    kind = spec.values.get("projector")
    if kind == "qformer":
        # Granite Speech's: window_size // downsample_rate query tokens, the Q-Former, a linear (biased) to the text
        # model's width. The Q-Former is AutoModel of projector_config: of the Q-Former rows, AutoModel maps only
        # blip_2_qformer (an instructblip_qformer config fails to build), so any other is refused.
        former = spec.subspecs.get("projector")
        if former is None:
            raise no_sub_model(spec, "a blip_2_qformer projector_config")
        if former.family.model_type != "blip_2_qformer":
            raise SpecError((Problem("error", "LC103", f"{spec.model_type} needs a blip_2_qformer projector_config",
                                     former.span),))
        qh = former.int("hidden_size")
        queries = spec.int("window_size") // spec.int("downsample_rate")
        projector = node("projector", ParamNode("query", (Tensor("query", (1, queries, qh), "other", "query"),),
                                                note=f"{queries} query tokens", source=spec.key_span("window_size"),
                                                key="window_size"),
                         qformer_of(former, former.int("encoder_hidden_size")),  # (no composite sets its width)
                         ParamNode("linear", path_linear("linear", qh, th, True)))
        body = (_audio_tower(audio), projector, language_model(text))
        if spec.head == "base":
            return node(spec.architecture, *body)
        tied = bool(spec.values.get("tie_embeddings"))
        return node(spec.architecture, *body, ParamNode(
            "lm_head", () if tied else linear("lm_head", th, text.int("vocab_size"), False),
            note="tied to the language model's embed_tokens (counted once)" if tied else "",
            source=spec.key_span("tie_embeddings") or text.key_span("vocab_size"), key="tie_embeddings"))
    if kind == "mlp":
        width = audio.int("intermediate_size")
        tensors = path_linear("linear_1", width, th, False) + path_linear("linear_2", th, th, False)
    else:
        width = audio.int("hidden_size")
        tensors = path_linear("linear", width, th, True)
    projector = ParamNode("projector", tensors, note=f"{width:,} → {th:,}", source=audio.span)
    body = (_audio_tower(audio), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    head = ParamNode("lm_head", linear("lm_head", th, text.int("vocab_size"), False),
                     note="never tied (the class declares no tied weights)", source=text.key_span("vocab_size"),
                     key="vocab_size")
    return node(spec.architecture, *body, head)
