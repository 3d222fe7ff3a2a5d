"""Audio-language families (layouts/audio.py): Qwen2-Audio and Voxtral, and their Whisper-shaped audio encoders.

Each composite holds an audio encoder (its own model_type: qwen2_audio_encoder, voxtral_encoder), a projector and a
language model resolved through its own family row (Qwen2-Audio's default text model is qwen2, Voxtral's llama).
Defaults are transformers 5.25's config classes'. The encoders' keys: Qwen2AudioEncoderConfig's fields are
d_model, encoder_layers, ... (hidden_size, num_hidden_layers, ... its attribute_map aliases); VoxtralEncoderConfig's
the other way round (families/attribute_maps.py lists the aliases each sets after its fields).
"""

from __future__ import annotations

from lsp_count.core.families.decoders import fixed
from lsp_count.core.spec import Derived, Family, Field


def _audio_encoder(model_type: str, architecture: str, names: dict[str, tuple[str, str]],
                   fp32_positions: bool = False) -> Family:
    """A Whisper-shaped audio encoder (Qwen2AudioEncoder, VoxtralEncoder); ``names``: each size's (field, alias)
    keys; ``fp32_positions``: the position table is built in float32 whatever the model's dtype (VoxtralEncoder's
    dtype=torch.float32). The attention refuses heads that do not divide the width (in its layers: none, no check); a whole-number
    float under the heads' alias builds (set past the strict checks, the widths stay whole), under any other size key not."""
    return Family(model_type, "audio_encoder", architecture, {
        "hidden_size": Field(names["hidden_size"], 1280, doc="width of the encoder (d_model)"),
        "num_layers": Field(names["num_layers"], 32, minimum=0, doc="encoder layers"),
        "num_heads": Field(names["num_heads"], 20, doc="attention heads per layer (they must divide the width)"),
        "head_dim": fixed(Derived(lambda v: v["hidden_size"] // v["num_heads"], "hidden_size / num_attention_heads")),
        "heads_divide_hidden": fixed(True),
        "heads_checked_in_layers": fixed(True),
        "intermediate_size": Field(names["intermediate_size"], 5120, doc="width of each layer's MLP (fc1, fc2)"),
        "num_mel_bins": Field(("num_mel_bins",), 128, doc="mel channels into conv1"),
        "max_source_positions": Field(("max_source_positions",), 1500,
                                      doc="audio frames after conv2's stride (rows of the frozen position table)"),
    }, {architecture: "base"}, float_keys=(names["num_heads"][1],),
        fp32_modules_strict=("embed_positions",) if fp32_positions else (),
        notes=(f"{architecture}'s position table is built with requires_grad=False: counted, not trainable",))


_QWEN2_AUDIO_ENCODER = _audio_encoder("qwen2_audio_encoder", "Qwen2AudioEncoder", {
    "hidden_size": ("d_model", "hidden_size"), "num_layers": ("encoder_layers", "num_hidden_layers"),
    "num_heads": ("encoder_attention_heads", "num_attention_heads"),
    "intermediate_size": ("encoder_ffn_dim", "intermediate_size")})
_VOXTRAL_ENCODER = _audio_encoder("voxtral_encoder", "VoxtralEncoder", {
    "hidden_size": ("hidden_size", "d_model"), "num_layers": ("num_hidden_layers", "encoder_layers"),
    "num_heads": ("num_attention_heads", "encoder_attention_heads"),
    "intermediate_size": ("intermediate_size", "encoder_ffn_dim")}, fp32_positions=True)

# Qwen2-Audio: the encoder, one linear (with a bias) to the text model's width, a Qwen2 language model (Qwen2Config's
# defaults when text_config is absent).
QWEN2_AUDIO = Family("qwen2_audio", "audio_language", "Qwen2AudioForConditionalGeneration", {
    "projector": fixed("linear"),
}, {"Qwen2AudioForConditionalGeneration": "conditional_generation", "Qwen2AudioModel": "base"},
    subconfigs={"audio": ("audio_config", "qwen2_audio_encoder"), "text": ("text_config", "qwen2")},
    notes=("Qwen2-Audio's lm_head is its own: the class ties no weights, whatever tie_word_embeddings says",))

# Voxtral: the encoder, linear_1 from the encoder's intermediate_size (four frames joined) and linear_2, no biases; a
# Llama language model. VoxtralConfig fills a given text_config's missing keys from its own text defaults
# (Voxtral-Mini's: its __post_init__), and builds them alone when text_config is absent.
_VOXTRAL_TEXT = {"vocab_size": 131072, "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 30,
                 "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "use_cache": True,
                 "rope_theta": 100000000.0, "head_dim": 128}
VOXTRAL = Family("voxtral", "audio_language", "VoxtralForConditionalGeneration", {
    "projector": fixed("mlp"),
    "text_defaults": fixed(_VOXTRAL_TEXT),
    "text_fills": fixed(_VOXTRAL_TEXT),
}, {"VoxtralForConditionalGeneration": "conditional_generation", "VoxtralModel": "base"},
    subconfigs={"audio": ("audio_config", "voxtral_encoder"), "text": ("text_config", "llama")},
    fp32_modules_strict=("embed_positions",),  # (its encoder's, built in float32 in VoxtralModel too)
    notes=("Voxtral's lm_head is its own: the class ties no weights, whatever tie_word_embeddings says",))

FAMILIES: tuple[Family, ...] = (_QWEN2_AUDIO_ENCODER, _VOXTRAL_ENCODER, QWEN2_AUDIO, VOXTRAL)
