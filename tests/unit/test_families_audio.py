"""Qwen2-Audio and Voxtral (audio-language composites) with their Whisper-shaped audio encoders, and Granite Speech
with its conformer encoder and BLIP-2's Q-Former, without torch: small
configs counted by hand (the arithmetic in each test), the class defaults as transformers 5.25 builds them on the
meta device (``sum(p.numel() for p in model.parameters())``, taken there once), Voxtral's text defaults under a
given text_config, the head that is never tied, what the memory estimate says of the audio tower, LoRA as peft
adapts them, and the configs their classes refuse."""

from __future__ import annotations

import pytest

from config_models import (assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("qwen2_audio_encoder", "Qwen2AudioEncoder"): 636_968_960,
    ("voxtral_encoder", "VoxtralEncoder"): 636_968_960,
    ("qwen2_audio", "Qwen2AudioForConditionalGeneration"): 12_692_062_208,
    ("qwen2_audio", "Qwen2AudioModel"): 12_069_732_352,
    ("voxtral", "VoxtralForConditionalGeneration"): 4_676_271_104,
    ("voxtral", "VoxtralModel"): 4_273_617_920,
    ("granite_speech_encoder", "GraniteSpeechCTCEncoder"): 274_808_106,
    ("blip_2_qformer", "Blip2QFormerModel"): 105_137_664,
    # (tied by default: the head adds nothing)
    ("granite_speech", "GraniteSpeechForConditionalGeneration"): 6_990_441_514,
    ("granite_speech", "GraniteSpeechModel"): 6_990_441_514,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


# The audio encoder below: d_model 8, 2 heads, 1 layer, fc1 12 wide, 4 mel bins, 10 positions.
CONVS = (8 * 4 * 3 + 8) + (8 * 8 * 3 + 8)  # conv1, conv2 (kernel 3, biases): 304
POSITIONS = 10 * 8  # embed_positions, requires_grad=False: 80
LAYER = (4 * 8 * 8 + 3 * 8) + (8 * 12 + 12) + (12 * 8 + 8) + 2 * 2 * 8  # q/k/v/out (k without bias), fc1, fc2, 2 LNs: 524
ENCODER = CONVS + POSITIONS + LAYER + 2 * 8  # and the final layer_norm: 924
QWEN2_AUDIO_ENCODER = {"d_model": 8, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 12,
                       "num_mel_bins": 4, "max_source_positions": 10}
VOXTRAL_ENCODER = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12,
                   "num_mel_bins": 4, "max_source_positions": 10}

# The text models: vocabulary 32, hidden 16, 2 query heads of 8 (one key/value head), 1 layer, MLP 24 wide.
TEXT = {"vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 24}
LLAMA_LAYER = (16 * 16 + 16 * 8 + 16 * 8 + 16 * 16) + 3 * 16 * 24 + 2 * 16  # attention, gated MLP, 2 RMS norms: 1,952
LLAMA = 32 * 16 + LLAMA_LAYER + 16  # embed_tokens, the layer, the final norm: 2,480
QWEN2 = LLAMA + 16 + 8 + 8  # q/k/v biases: 2,512
LM_HEAD = 16 * 32  # never tied: 512


@pytest.mark.parametrize(("model_type", "encoder"), [("qwen2_audio_encoder", QWEN2_AUDIO_ENCODER),
                                                     ("voxtral_encoder", VOXTRAL_ENCODER)])
def test_the_audio_encoders_by_hand(model_type: str, encoder: dict) -> None:
    tree = count({"model_type": model_type, **encoder}).tree
    assert tree.total == ENCODER == 924
    assert tree.trainable == ENCODER - POSITIONS  # the position table is frozen


def test_the_encoder_keys_and_their_aliases_are_one_size() -> None:
    # Qwen2AudioEncoderConfig's fields are d_model, ...; VoxtralEncoderConfig's hidden_size, ...: the other spelling
    # is each one's attribute_map alias.
    aliased = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12,
               "num_mel_bins": 4, "max_source_positions": 10}
    assert count({"model_type": "qwen2_audio_encoder", **aliased}).tree.total == ENCODER
    swapped = {"d_model": 8, "encoder_layers": 1, "encoder_attention_heads": 2, "encoder_ffn_dim": 12,
               "num_mel_bins": 4, "max_source_positions": 10}
    assert count({"model_type": "voxtral_encoder", **swapped}).tree.total == ENCODER


def test_qwen2_audio_by_hand() -> None:
    config = {"model_type": "qwen2_audio", "audio_config": QWEN2_AUDIO_ENCODER,
              "text_config": {**TEXT, "model_type": "qwen2"}}
    projector = 8 * 16 + 16  # one linear from d_model to the text model's width, with a bias: 144
    head = count({**config, "architectures": ["Qwen2AudioForConditionalGeneration"]}).tree
    assert head.total == ENCODER + projector + QWEN2 + LM_HEAD == 4_092
    assert head.trainable == 4_092 - POSITIONS
    assert count({**config, "architectures": ["Qwen2AudioModel"]}).tree.total == 3_580


def test_voxtral_by_hand() -> None:
    config = {"model_type": "voxtral", "audio_config": VOXTRAL_ENCODER, "text_config": {**TEXT, "head_dim": 8}}
    projector = 12 * 16 + 16 * 16  # linear_1 from the encoder's intermediate_size (four frames joined), linear_2: 448
    head = count({**config, "architectures": ["VoxtralForConditionalGeneration"]}).tree
    assert head.total == ENCODER + projector + LLAMA + LM_HEAD == 4_364
    assert count({**config, "architectures": ["VoxtralModel"]}).tree.total == 3_852


def test_voxtral_fills_a_given_text_config_from_its_own_defaults() -> None:
    # VoxtralConfig.__post_init__ merges Voxtral-Mini's text keys under text_config's: no vocab_size is 131,072 rows
    # (not LlamaConfig's 32,000), in embed_tokens and in lm_head.
    text = {k: v for k, v in TEXT.items() if k != "vocab_size"}
    config = {"model_type": "voxtral", "audio_config": VOXTRAL_ENCODER, "text_config": {**text, "head_dim": 8},
              "architectures": ["VoxtralForConditionalGeneration"]}
    vocab = 131_072
    assert count(config).tree.total == ENCODER + 448 + (vocab * 16 + LLAMA_LAYER + 16) + vocab * 16 == 4_197_644


@pytest.mark.parametrize("model_type", ["qwen2_audio", "voxtral"])
def test_the_head_is_never_tied(model_type: str) -> None:
    # Neither class declares tied weights: tie_word_embeddings (the composite's or text_config's) ties nothing.
    encoder = QWEN2_AUDIO_ENCODER if model_type == "qwen2_audio" else VOXTRAL_ENCODER
    base = {"model_type": model_type, "audio_config": encoder, "text_config": {**TEXT, "head_dim": 8}}
    untied = count(base).tree.total
    tied = {**base, "tie_word_embeddings": True, "text_config": {**base["text_config"], "tie_word_embeddings": True}}
    assert count(tied).tree.total == untied


def test_the_memory_estimate_counts_the_language_models_activations_and_cache() -> None:
    from lsp_count.core.memory import Settings, estimate_memory

    config = {"model_type": "qwen2_audio", "audio_config": QWEN2_AUDIO_ENCODER,
              "text_config": {**TEXT, "model_type": "qwen2"}}
    # Training: the language model's layers, over the text tokens; the audio tower runs over audio frames, whose
    # number a config does not give (as the vision-language composites' towers).
    line = estimate_memory(count(config), Settings(context=64, mode="train")).line("activations")
    assert "1 layers (the language model's; the audio tower's, over audio frames, are not counted)" in line.detail
    # The KV cache is the text model's: 1 layer × 2 × 1 key/value head × 8 wide × 64 tokens × 2 bytes.
    assert kv_bytes(config, 64) == kv_bytes({"model_type": "qwen2", **TEXT}, 64) == 2 * 8 * 64 * 2


def test_voxtrals_position_table_stays_float32() -> None:
    # VoxtralEncoder builds embed_positions in float32 (VoxtralForConditionalGeneration's strict float32 list too):
    # 80 values at 4 bytes beside the others' 2.
    from lsp_count.core.memory import Settings, estimate_memory

    weights = estimate_memory(count({"model_type": "voxtral_encoder", **VOXTRAL_ENCODER}), Settings(dtype="bfloat16"))
    assert weights.line("weights").bytes == (ENCODER - POSITIONS) * 2 + POSITIONS * 4


def test_the_configs_the_classes_refuse() -> None:
    # The attention refuses heads that do not divide d_model; the strict config classes a null or a float size.
    assert any("does not divide" in m for m in errors({"model_type": "qwen2_audio_encoder",
                                                      **QWEN2_AUDIO_ENCODER, "encoder_attention_heads": 3}))
    assert any('"d_model"' in m and "null" in m for m in errors({"model_type": "qwen2_audio_encoder", "d_model": None}))
    assert any('"hidden_size"' in m for m in errors({"model_type": "voxtral_encoder", "hidden_size": 8.0}))
    # No layers, no attention: any heads build.
    assert count({"model_type": "voxtral_encoder", **VOXTRAL_ENCODER, "num_hidden_layers": 0,
                  "num_attention_heads": 3}).tree.total == ENCODER - LAYER


# peft 0.22 on the meta device (tests/unit/config_models.peft_lora_counts), rank 2.
QWEN2_AUDIO = {"model_type": "qwen2_audio", "architectures": ["Qwen2AudioForConditionalGeneration"],
               "audio_config": QWEN2_AUDIO_ENCODER, "text_config": {**TEXT, "model_type": "qwen2"}}
VOXTRAL = {"model_type": "voxtral", "architectures": ["VoxtralForConditionalGeneration"],
           "audio_config": VOXTRAL_ENCODER, "text_config": {**TEXT, "head_dim": 8}}
LORA_CASES = {
    # all-linear: the tower's, the projector's and the text model's linears (not lm_head); q_proj and fc1 in the tower
    # (2 × (8 + 8), 2 × (8 + 12)) and the text model (2 × (16 + 16)); the projectors (2 × (8 + 16), 2 × (12 + 16)).
    "qwen2_audio": (QWEN2_AUDIO, [("all-linear", (4_812, 720)), (["q_proj", "fc1"], (4_228, 136)),
                                  (["linear_1", "linear"], (4_140, 48))]),
    "voxtral": (VOXTRAL, [("all-linear", (5_156, 792)), (["q_proj", "fc1"], (4_500, 136)),
                          (["linear_1", "linear"], (4_420, 56))]),
}


@pytest.mark.parametrize("model_type", sorted(LORA_CASES))
def test_lora_counts(tmp_path, model_type: str) -> None:
    config, cases = LORA_CASES[model_type]
    assert_lora_counts(tmp_path, config, cases)


@pytest.mark.parametrize("model_type", sorted(LORA_CASES))
def test_lora_counts_are_peft_s(model_type: str) -> None:
    config, cases = LORA_CASES[model_type]
    assert_peft_lora_counts(config, cases)


# --- Granite Speech -------------------------------------------------------------------------------------------------

# The conformer encoder: 6 input features, width 8, 2 heads of 4 (8 // 2), feed-forwards 4 × 8 wide, 5 CTC outputs,
# a context of 4 frames, 13 relative distances (2 × 6 + 1), a depthwise kernel of 3, the convolution 2 × 8 wide.
CONFORMER = {"input_dim": 6, "num_layers": 1, "hidden_dim": 8, "num_heads": 2, "output_dim": 5, "context_size": 4,
             "max_pos_emb": 6, "conv_kernel_size": 3}
FEED_FORWARD = 2 * 8 + (8 * 32 + 32) + (32 * 8 + 8)  # pre_norm, up_proj, down_proj: 568
CONFORMER_ATTENTION = 2 * 8 + 8 * 8 + 8 * 16 + (8 * 8 + 8) + 13 * 4  # pre_norm, to_q, to_kv, to_out, rel_pos_emb: 332
CONVOLUTION = 2 * 8 + (32 * 8 + 32) + 16 * 3 + 2 * 16 + (8 * 16 + 8)  # norm, up_conv, depthwise, BatchNorm, down: 520
BLOCK = 2 * FEED_FORWARD + CONFORMER_ATTENTION + CONVOLUTION + 2 * 8  # and post_norm: 2,004
CONFORMER_TOTAL = (6 * 8 + 8) + BLOCK + (8 * 5 + 5) + (5 * 8 + 8)  # input_linear, the block, out, out_mid: 2,153

# The Q-Former: width 8, 2 heads, 2 layers (layer 0 cross-attends: cross_attention_frequency 2), feed-forward 12.
QFORMER = {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
           "encoder_hidden_size": 8}
QFORMER_ATTENTION = 3 * (8 * 8 + 8) + (8 * 8 + 8) + 2 * 8  # query, key, value, output.dense, output.LayerNorm: 304
QUERY_FEED_FORWARD = (8 * 12 + 12) + (12 * 8 + 8) + 2 * 8  # intermediate_query, output_query and its LayerNorm: 228
QFORMER_TOTAL = 2 * 8 + 2 * (QFORMER_ATTENTION + QUERY_FEED_FORWARD) + QFORMER_ATTENTION  # 1,384

GRANITE_SPEECH = {"model_type": "granite_speech", "architectures": ["GraniteSpeechForConditionalGeneration"],
                  "text_config": TEXT, "encoder_config": CONFORMER, "projector_config": QFORMER}


def test_the_conformer_encoder_by_hand() -> None:
    assert count({"model_type": "granite_speech_encoder", **CONFORMER}).tree.total == CONFORMER_TOTAL == 2_153
    # dim_head given: the attention is heads × dim_head wide, the position table dim_head wide (heads need not divide).
    wide = {**CONFORMER, "num_heads": 3, "dim_head": 3}
    attention = 2 * 8 + 8 * 9 + 8 * 18 + (9 * 8 + 8) + 13 * 3  # 351
    assert count({"model_type": "granite_speech_encoder", **wide}).tree.total == CONFORMER_TOTAL - 332 + attention


def test_the_qformer_by_hand() -> None:
    assert count({"model_type": "blip_2_qformer", **QFORMER}).tree.total == QFORMER_TOTAL == 1_384
    # Five layers, every third cross-attending (0 and 3), each with the text's feed-forward too.
    five = {**QFORMER, "num_hidden_layers": 5, "cross_attention_frequency": 3, "use_qformer_text_input": True}
    layer = QFORMER_ATTENTION + 2 * QUERY_FEED_FORWARD
    assert count({"model_type": "blip_2_qformer", **five}).tree.total == 2 * 8 + 5 * layer + 2 * QFORMER_ATTENTION


def test_granite_speech_by_hand() -> None:
    projector = 3 * 8 + QFORMER_TOTAL + (8 * 16 + 16)  # 15 // 5 query tokens, the Q-Former, linear: 1,552
    tied = count(GRANITE_SPEECH).tree
    assert tied.total == CONFORMER_TOTAL + projector + LLAMA == 6_185  # the head is embed_tokens
    assert count({**GRANITE_SPEECH, "architectures": ["GraniteSpeechModel"]}).tree.total == 6_185
    # Its own tie_word_embeddings unties the head; text_config's is not read.
    assert count({**GRANITE_SPEECH, "tie_word_embeddings": False}).tree.total == 6_185 + LM_HEAD
    assert count({**GRANITE_SPEECH, "text_config": {**TEXT, "tie_word_embeddings": False}}).tree.total == 6_185
    # 7 // 2 is 3 query tokens too.
    assert count({**GRANITE_SPEECH, "window_size": 7, "downsample_rate": 2}).tree.total == 6_185


def test_granite_speechs_memory_estimate_names_its_audio_tower() -> None:
    from lsp_count.core.memory import Settings, estimate_memory

    line = estimate_memory(count(GRANITE_SPEECH), Settings(context=64, mode="train")).line("activations")
    assert "(the language model's; the audio tower's, over audio frames, are not counted)" in line.detail


def test_the_configs_granite_speech_refuses() -> None:
    # The conformer attention refuses a context outside 1..max_pos_emb (with no blocks, it builds).
    for context in (0, 7):
        assert any("context_size" in m for m in errors({"model_type": "granite_speech_encoder", **CONFORMER,
                                                         "context_size": context}))
    assert count({"model_type": "granite_speech_encoder", **CONFORMER, "num_layers": 0,
                  "context_size": 0}).tree.total == (6 * 8 + 8) + (8 * 5 + 5) + (5 * 8 + 8)
    # window_size // 0 query tokens; a Q-Former whose heads do not divide its width; layer_idx % 0.
    assert any("downsample_rate" in m for m in errors({**GRANITE_SPEECH, "downsample_rate": 0}))
    assert any("does not divide" in m for m in errors({"model_type": "blip_2_qformer", **QFORMER,
                                                      "num_attention_heads": 3}))
    assert errors({"model_type": "blip_2_qformer", **QFORMER, "cross_attention_frequency": 0})
    # The projector's Q-Former is AutoModel of projector_config, which maps no InstructBLIP Q-Former.
    assert any("blip_2_qformer projector_config" in m for m in errors({
        **GRANITE_SPEECH, "projector_config": {**QFORMER, "model_type": "instructblip_qformer"}}))


def test_the_qformers_layers_of_both_kinds_are_layer_stacks() -> None:
    from lsp_count.core.memory import Settings, _layer_count, estimate_memory

    # Layers 0 and 3 of 5 cross-attend: memory counts all five layers (each kind is a stack); a Q-Former, and
    # Granite Speech's encoder, cache no keys and values.
    five = {"model_type": "blip_2_qformer", **QFORMER, "num_hidden_layers": 5, "cross_attention_frequency": 3}
    assert _layer_count(count(five).tree.root) == 5
    for config in (five, {"model_type": "granite_speech_encoder", **CONFORMER}):
        assert "encoder model: no KV cache" in estimate_memory(count(config), Settings(context=64)).notes


GRANITE_LORA = [("all-linear", (7_753, 1_568)), (["q_proj", "to_q", "query"], (6_377, 192)),
                (["linear", "out_mid", "dense"], (6_515, 330))]


def test_granite_speech_lora_counts(tmp_path) -> None:
    assert_lora_counts(tmp_path, GRANITE_SPEECH, GRANITE_LORA)


def test_granite_speech_lora_counts_are_peft_s() -> None:
    assert_peft_lora_counts(GRANITE_SPEECH, GRANITE_LORA)
