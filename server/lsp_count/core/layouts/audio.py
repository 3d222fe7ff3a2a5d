"""Audio-language models: a Whisper-shaped audio encoder, a projector and a language model (Qwen2-Audio, Voxtral).

The encoder is Whisper's encoder as these composites copy it (Qwen2AudioEncoder, VoxtralEncoder): two Conv1d over
the mel bins, a frozen position table, post-attention LayerNorm layers, a final LayerNorm (its AvgPool1d holds
nothing). Tensors are named by their module paths inside the encoder (layers.N.self_attn.q_proj), as LoRA targets
them. The language model is any decoder family's bare class (``multimodal.language_model``).
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import language_model
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
    if audio.family.layout != "audio_encoder":
        raise SpecError((Problem("error", "LC103", f"{audio.model_type} is not an audio encoder lsp-count can count in "
                                                   f"{spec.model_type} (a Whisper-shaped one)", audio.span),))
    th = text.int("hidden_size")
    if spec.values.get("projector") == "mlp":
        width = audio.int("intermediate_size")
        tensors = path_linear("linear_1", width, th, False) + path_linear("linear_2", th, th, False)
    else:
        width = audio.int("hidden_size")
        tensors = path_linear("linear", width, th, True)
    projector = ParamNode("projector", tensors, note=f"{width:,} → {th:,}", source=audio.span)
    body = (whisper_audio_encoder(audio), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    head = ParamNode("lm_head", linear("lm_head", th, text.int("vocab_size"), False),
                     note="never tied (the class declares no tied weights)", source=text.key_span("vocab_size"),
                     key="vocab_size")
    return node(spec.architecture, *body, head)
