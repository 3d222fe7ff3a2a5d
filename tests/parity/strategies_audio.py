"""Random small audio-language configs (qwen2_audio, voxtral and their audio encoders), written as a config.json
would be: either spelling of each encoder size (the field or its attribute_map alias), a text_config of any decoder
family the composites are published with, keys left out so the class defaults apply where they are small."""

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


STRATEGIES.update({"qwen2_audio_encoder": qwen2_audio_encoder, "voxtral_encoder": voxtral_encoder,
                   "qwen2_audio": qwen2_audio, "voxtral": voxtral})
