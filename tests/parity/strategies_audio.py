"""Random small audio-language configs (qwen2_audio, voxtral and their audio encoders; granite_speech and its
conformer encoder, its projector_config a BLIP-2 Q-Former's, whose own configs strategies_qformer draws), written as a
config.json would be: either spelling of each encoder size (the field or its attribute_map alias), a text_config of
any decoder family the composites are published with, keys left out so the class defaults apply where they are
small."""

from __future__ import annotations

from hypothesis import strategies as st

from lsp_count.core.families import find_family

from .strategies import STRATEGIES, _maybe, draw_architecture
from .strategies_multimodal import _text


def _audio(draw, model_type: str) -> dict:
    """A small Whisper-shaped audio encoder config (every size given: the class defaults are 600M)."""
    fields = find_family(model_type).fields  # type: ignore[union-attr]
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"model_type": model_type}
    for name, value in (("hidden_size", heads * draw(st.sampled_from([2, 4, 8]))), ("num_heads", heads),
                        ("num_layers", draw(st.integers(0, 3))), ("intermediate_size", draw(st.integers(1, 40)))):
        cfg[draw(st.sampled_from(fields[name].keys))] = value
    cfg["num_mel_bins"] = draw(st.integers(1, 16))
    cfg["max_source_positions"] = draw(st.integers(1, 64))
    return cfg


def qwen2_audio_encoder(draw) -> dict:
    cfg = _audio(draw, "qwen2_audio_encoder")
    draw_architecture(draw, "qwen2_audio_encoder", cfg)
    return cfg


def voxtral_encoder(draw) -> dict:
    cfg = _audio(draw, "voxtral_encoder")
    draw_architecture(draw, "voxtral_encoder", cfg)
    return cfg


def _composite(draw, model_type: str, audio_type: str, text_types: list[str]) -> dict:
    cfg: dict = {"model_type": model_type}
    cfg["audio_config"] = _audio(draw, audio_type)
    if draw(st.booleans()):
        cfg["audio_config"].pop("model_type")  # the composite's default encoder applies
    text_type = draw(st.sampled_from(text_types))
    cfg["text_config"] = _text(draw, text_type)
    if text_type == text_types[0] and draw(st.booleans()):
        cfg["text_config"].pop("model_type")  # the composite's default text model
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)  # ties nothing: neither class declares tied weights
    draw_architecture(draw, model_type, cfg)
    return cfg


def qwen2_audio(draw) -> dict:
    return _composite(draw, "qwen2_audio", "qwen2_audio_encoder", ["qwen2", "llama"])


def voxtral(draw) -> dict:
    cfg = _composite(draw, "voxtral", "voxtral_encoder", ["llama", "mistral"])
    if draw(st.booleans()):
        # VoxtralConfig fills the keys text_config leaves out from its own (Voxtral-Mini's head_dim of 128 among them)
        for key in ("head_dim", "num_key_value_heads"):
            cfg["text_config"].pop(key, None)
        cfg["text_config"]["num_attention_heads"] = 8
        cfg["text_config"]["hidden_size"] = 32
    return cfg


def _conformer(draw) -> dict:
    heads = draw(st.integers(1, 4))
    most = draw(st.integers(1, 12))
    cfg: dict = {"input_dim": draw(st.integers(1, 12)), "num_layers": draw(st.integers(0, 2)),
                 "hidden_dim": draw(st.sampled_from([4, 6, 8, 12])), "num_heads": heads,
                 "output_dim": draw(st.integers(1, 8)), "max_pos_emb": most, "context_size": draw(st.integers(1, most)),
                 "conv_kernel_size": draw(st.integers(1, 5))}
    _maybe(draw, "dim_head", draw(st.integers(1, 6)), cfg)
    _maybe(draw, "feedforward_mult", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "conv_expansion_factor", draw(st.integers(1, 3)), cfg)
    return cfg


def granite_speech_encoder(draw) -> dict:
    cfg = {"model_type": "granite_speech_encoder", **_conformer(draw)}
    draw_architecture(draw, "granite_speech_encoder", cfg)
    return cfg


def _qformer(draw) -> dict:
    """Granite Speech's projector_config (Blip2QFormerConfig): a small Q-Former, its encoder width set by the caller."""
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"hidden_size": heads * draw(st.sampled_from([2, 4])), "num_attention_heads": heads,
                 "num_hidden_layers": draw(st.integers(0, 4)), "intermediate_size": draw(st.integers(1, 24)),
                 "encoder_hidden_size": draw(st.integers(1, 16))}
    _maybe(draw, "cross_attention_frequency", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "use_qformer_text_input", draw(st.booleans()), cfg)
    return cfg


def granite_speech(draw) -> dict:
    cfg: dict = {"model_type": "granite_speech", "encoder_config": _conformer(draw), "projector_config": _qformer(draw)}
    cfg["projector_config"]["encoder_hidden_size"] = cfg["encoder_config"]["hidden_dim"]
    if draw(st.booleans()):
        cfg["projector_config"]["model_type"] = "blip_2_qformer"
    if draw(st.integers(0, 3)) == 0:  # the Q-Former reads its own encoder_hidden_size, not the encoder's width
        cfg["projector_config"]["encoder_hidden_size"] = draw(st.integers(1, 16))
    cfg["text_config"] = _text(draw, "granite")
    if draw(st.booleans()):
        cfg["text_config"].pop("model_type")  # GraniteSpeechConfig's default text model is granite
    _maybe(draw, "window_size", draw(st.integers(0, 20)), cfg)
    _maybe(draw, "downsample_rate", draw(st.integers(1, 6)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    draw_architecture(draw, "granite_speech", cfg)
    return cfg


def _export_granite_speech_encoder() -> None:
    """transformers 5.25 builds Granite Speech's encoder (model.encoder) as GraniteSpeechCTCEncoder but does not export
    it at its top level; the parity helpers look a family's class up there (as strategies_multimodal's
    _export_qwen2_vision does for Qwen2-VL's tower)."""
    try:
        from transformers.models.granite_speech import modeling_granite_speech
    except ImportError:  # the parity tests skip without transformers (or torch)
        return
    import transformers

    if not hasattr(transformers, "GraniteSpeechCTCEncoder"):
        setattr(transformers, "GraniteSpeechCTCEncoder", modeling_granite_speech.GraniteSpeechCTCEncoder)


_export_granite_speech_encoder()
STRATEGIES.update({"qwen2_audio_encoder": qwen2_audio_encoder, "voxtral_encoder": voxtral_encoder,
                   "qwen2_audio": qwen2_audio, "voxtral": voxtral, "granite_speech_encoder": granite_speech_encoder,
                   "granite_speech": granite_speech})
