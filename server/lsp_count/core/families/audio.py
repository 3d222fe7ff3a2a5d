"""Audio-language families (layouts/audio.py): Qwen2-Audio and Voxtral with their Whisper-shaped audio encoders, and
Granite Speech with its conformer encoder and its Q-Former projector (BLIP-2's: families/qformer.py's blip_2_qformer
row, built by layouts/qformer.py).

Each composite holds an audio encoder (its own model_type: qwen2_audio_encoder, voxtral_encoder), a projector and a
language model resolved through its own family row (Qwen2-Audio's default text model is qwen2, Voxtral's llama).
Defaults are transformers 5.25's config classes'. The encoders' keys: Qwen2AudioEncoderConfig's fields are
d_model, encoder_layers, ... (hidden_size, num_hidden_layers, ... its attribute_map aliases); VoxtralEncoderConfig's
the other way round (families/attribute_maps.py lists the aliases each sets after its fields).
"""

from __future__ import annotations

from lsp_count.core.families.decoders import fixed
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec


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


def _context_fits(spec: ModelSpec) -> list[Problem]:
    """GraniteSpeechConformerAttention refuses a context_size of 0 or less, or past max_pos_emb (in its layers:
    with none, any builds)."""
    v = spec.values
    context, most = v.get("context_size"), v.get("max_pos_emb")
    if v.get("num_layers") == 0 or type(context) is not int or type(most) is not int or 0 < context <= most:
        return []
    return [Problem("error", "LC103", f"context_size ({context}) is not between 1 and max_pos_emb ({most}): the conformer "
                                      "attention refuses it", spec.key_span("context_size") or spec.span)]


def _queries(spec: ModelSpec) -> list[Problem]:
    """GraniteSpeechEncoderProjector's query tokens are window_size // downsample_rate: a rate of 0 fails."""
    if spec.values.get("downsample_rate") != 0:
        return []
    return [Problem("error", "LC103", "downsample_rate 0: the projector's window_size // downsample_rate query tokens "
                                      "cannot be built", spec.key_span("downsample_rate") or spec.span)]


# Granite Speech's encoder (GraniteSpeechCTCEncoder, which transformers 5.25 builds but does not export): input_linear
# from input_dim, conformer blocks (two half-step feed-forwards, Shaw relative-position attention over context_size
# frames, a convolution module with a BatchNorm), the CTC head out / out_mid. GraniteSpeechEncoderConfig's defaults.
GRANITE_SPEECH_ENCODER = Family("granite_speech_encoder", "conformer_encoder", "GraniteSpeechCTCEncoder", {
    "input_dim": Field(("input_dim",), 160, doc="features per frame into input_linear"),
    "hidden_size": Field(("hidden_dim",), 1024, doc="width of the conformer blocks"),
    "num_layers": Field(("num_layers",), 10, minimum=0, doc="conformer blocks"),
    "num_heads": Field(("num_heads",), 8, doc="attention heads per block"),
    # A null or absent dim_head is hidden_dim // num_heads (floored: heads need not divide the width).
    "dim_head": Field(("dim_head",), None, "int?", doc="width of each head (default: hidden_dim // num_heads)"),
    "feedforward_mult": Field(("feedforward_mult",), 4, minimum=0, doc="each feed-forward is hidden_dim × this wide"),
    "output_dim": Field(("output_dim",), 42, minimum=0, doc="CTC outputs (out, and out_mid back to the width)"),
    "context_size": Field(("context_size",), 200, minimum=-(10**9), doc="frames each attention block attends over"),
    "max_pos_emb": Field(("max_pos_emb",), 512, minimum=0,
                         doc="relative distances of the position table (2 × max_pos_emb + 1 rows, dim_head wide)"),
    "conv_kernel_size": Field(("conv_kernel_size",), 15, doc="kernel of the depthwise convolution"),
    "conv_expansion_factor": Field(("conv_expansion_factor",), 2, minimum=0,
                                   doc="the convolution module is hidden_dim × this wide"),
}, {"GraniteSpeechCTCEncoder": "base"}, checks=(_context_fits,))

# Granite Speech: the conformer encoder (its config class fixed), the Q-Former projector (query tokens, the Q-Former,
# a linear to the text model's width), a Granite language model; the head tied by the composite's own
# tie_word_embeddings (true by default; text_config's is not read).
GRANITE_SPEECH = Family("granite_speech", "audio_language", "GraniteSpeechForConditionalGeneration", {
    "projector": fixed("qformer"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                            doc="output head shares the language model's embedding (text_config's does not tie it)"),
    "window_size": Field(("window_size",), 15, minimum=0, doc="encoder frames the Q-Former reads at a time"),
    "downsample_rate": Field(("downsample_rate",), 5, minimum=0,
                             doc="window_size // downsample_rate query tokens per window"),
}, {"GraniteSpeechForConditionalGeneration": "conditional_generation", "GraniteSpeechModel": "base"},
    subconfigs={"audio": ("encoder_config", "granite_speech_encoder"), "projector": ("projector_config", "blip_2_qformer"),
                "text": ("text_config", "granite")},
    fixed_subconfigs=("audio",), checks=(_queries,),
    notes=("Granite Speech ties its output head to the language model's embeddings unless the config's own "
           "tie_word_embeddings is false (text_config's is not read)",))

FAMILIES: tuple[Family, ...] = (_QWEN2_AUDIO_ENCODER, _VOXTRAL_ENCODER, QWEN2_AUDIO, VOXTRAL, GRANITE_SPEECH_ENCODER,
                                GRANITE_SPEECH)
