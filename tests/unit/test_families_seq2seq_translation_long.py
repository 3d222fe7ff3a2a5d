"""M2M100 (NLLB-200 dense), LED, BigBird-Pegasus, LongT5 and FSMT: hand counts, class defaults, the configs
transformers refuses, position limits.

The hand counts are worked out in the comments; the class-default totals were taken once from transformers 5.25
on the meta device (tests/parity checks random configs, every head, nulls and floats against transformers itself).
"""

from __future__ import annotations

import pytest

from lsp_count.core.memory import position_limit

from config_models import error_messages, forward_seq2seq_cache_bytes, model

# A tiny BART-like body: d_model 8, 2 heads, 1 encoder and 2 decoder layers.
TINY = dict(d_model=8, encoder_attention_heads=2, decoder_attention_heads=2, encoder_layers=1, decoder_layers=2,
            encoder_ffn_dim=16, decoder_ffn_dim=12)
D = 8
ATTENTION = 4 * (D * D + D)  # q, k, v, out projections with biases: 288
LN = 2 * D  # a LayerNorm's weight and bias
ENCODER_LAYER = ATTENTION + (D * 16 + 16) + (16 * D + D) + 2 * LN  # self-attn, fc1, fc2, 2 norms: 600
DECODER_LAYER = 2 * ATTENTION + (D * 12 + 12) + (12 * D + D) + 3 * LN  # + cross-attn, 3 norms: 836
LAYERS = ENCODER_LAYER + 2 * DECODER_LAYER  # 2,272


def counts(config: dict) -> tuple[int, int]:
    tree = model(config).tree
    return tree.total, tree.trainable


# ----------------------------------------------------------------- M2M100
M2M = dict(model_type="m2m_100", vocab_size=20, max_position_embeddings=10, pad_token_id=0, **TINY)


@pytest.mark.parametrize("architecture", ["M2M100ForConditionalGeneration", "M2M100Model"])
def test_m2m_100_positions_are_a_buffer_not_parameters(architecture: str) -> None:
    # Pre-norm: a final layer_norm per stack, no layernorm_embedding; the shared embedding (20 × 8), the head tied.
    # The sinusoidal positions are a non-persistent buffer: nothing counted.
    total = 20 * D + LAYERS + 2 * LN
    assert total == 2464
    assert counts({**M2M, "architectures": [architecture]}) == (total, total)


def test_m2m_100_untied_head() -> None:
    # tie_word_embeddings false: the stacks' embeddings and lm_head each their own (3 × 160 for 1 × 160).
    assert counts({**M2M, "tie_word_embeddings": False})[0] == 2464 + 3 * 20 * D


def test_m2m_100_has_no_position_limit() -> None:
    # The table is rebuilt larger when a sequence outgrows it.
    assert position_limit(model(M2M)) is None


def test_m2m_100_refusals() -> None:
    # The position table (max_position_embeddings + 2 rows) takes the pad token as its padding index.
    assert any("sinusoidal position table (max_position_embeddings 10 + 2 rows)" in m
               for m in error_messages({**M2M, "pad_token_id": 12}))
    assert not error_messages({**M2M, "pad_token_id": 11})
    # Its frequencies divide by d_model // 2 - 1.
    assert any("d_model (2) is under 4" in m for m in error_messages({**M2M, "d_model": 2, "encoder_attention_heads": 1,
                                                                       "decoder_attention_heads": 1}))
    assert any("does not divide d_model" in m for m in error_messages({**M2M, "encoder_attention_heads": 3}))


# ----------------------------------------------------------------- LED
LED = dict(model_type="led", vocab_size=20, max_encoder_position_embeddings=12, max_decoder_position_embeddings=10,
           attention_window=4, pad_token_id=0, **TINY)
# Longformer's encoder self-attention: query/key/value, their *_global twins and output, all biased (7 × 72).
LED_ENCODER_LAYER = 7 * (D * D + D) + (D * 16 + 16) + (16 * D + D) + 2 * LN  # 816
LED_TOTAL = 20 * D + 12 * D + 10 * D + 2 * LN + LED_ENCODER_LAYER + 2 * DECODER_LAYER  # 2,856


@pytest.mark.parametrize("architecture", ["LEDForConditionalGeneration", "LEDModel"])
def test_led_encoder_holds_global_projections_and_its_own_position_table(architecture: str) -> None:
    # shared 160, encoder positions 12 × 8, decoder positions 10 × 8 (no offset rows), 2 layernorm_embedding.
    assert LED_TOTAL == 2856
    assert counts({**LED, "architectures": [architecture]}) == (LED_TOTAL, LED_TOTAL)


def test_led_question_answering() -> None:
    # qa_outputs: d_model -> 2 (start, end) with bias.
    assert counts({**LED, "architectures": ["LEDForQuestionAnswering"]})[0] == LED_TOTAL + D * 2 + 2


def test_led_position_limit_is_the_decoder_s() -> None:
    limit = position_limit(model(LED))
    assert (limit.tokens, limit.key, limit.hard) == (10, "max_decoder_position_embeddings", True)


def test_led_attention_window() -> None:
    assert not error_messages({**LED, "attention_window": [4, 8][:1]})  # one layer, one window
    assert any("lists 2 windows for 1 encoder layer:" in m for m in error_messages({**LED, "attention_window": [4, 8]}))
    assert any("not an even, positive whole number" in m for m in error_messages({**LED, "attention_window": 3}))
    assert any("not an even, positive whole number" in m for m in error_messages({**LED, "attention_window": [0]}))
    assert any("not an even, positive whole number" in m for m in error_messages({**LED, "attention_window": [4.0]}))
    assert any("not a whole number or a list" in m for m in error_messages({**LED, "attention_window": 4.0}))
    assert any("not a whole number or a list" in m for m in error_messages({**LED, "attention_window": None}))



# ----------------------------------------------------------------- BigBird-Pegasus
BIGBIRD_PEGASUS = dict(model_type="bigbird_pegasus", vocab_size=20, max_position_embeddings=10, pad_token_id=0, **TINY)
# No attention bias by default (use_bias false): 4 × 64 per attention; fc1, fc2 biased as BART's.
BP_ATTENTION = 4 * D * D  # 256
BP_LAYERS = LAYERS - 5 * 4 * D  # one encoder and two decoder self-attentions, two cross-attentions: 160 biases fewer
BP_TOTAL = 20 * D + 2 * 10 * D + BP_LAYERS + 2 * LN  # shared, two position tables (no offset), layernorm_embedding


@pytest.mark.parametrize("architecture", ["BigBirdPegasusForConditionalGeneration", "BigBirdPegasusModel"])
def test_bigbird_pegasus_by_hand(architecture: str) -> None:
    assert BP_TOTAL == 160 + 160 + 2112 + 32 == 2464
    assert counts({**BIGBIRD_PEGASUS, "architectures": [architecture]}) == (BP_TOTAL, BP_TOTAL)
    # use_bias: every attention projection biased (5 attentions × 4 × 8); either encoder attention, the same.
    assert counts({**BIGBIRD_PEGASUS, "use_bias": True, "attention_type": "original_full",
                   "architectures": [architecture]})[0] == BP_TOTAL + 5 * 4 * D


def test_bigbird_pegasus_heads() -> None:
    qa = {**BIGBIRD_PEGASUS, "architectures": ["BigBirdPegasusForQuestionAnswering"]}
    assert counts(qa)[0] == BP_TOTAL + D * 2 + 2
    classifier = {**BIGBIRD_PEGASUS, "architectures": ["BigBirdPegasusForSequenceClassification"]}
    assert counts(classifier)[0] == BP_TOTAL + (D * D + D) + (D * 2 + 2)  # dense, out_proj


def test_bigbird_pegasus_refusals() -> None:
    assert any('attention_type "sparse"' in m for m in error_messages({**BIGBIRD_PEGASUS, "attention_type": "sparse"}))
    # Its encoder attention sizes its projections with the float: transformers fails to build it.
    assert any('"num_attention_heads": expected a whole number, got 2.0: the model fails to build with a float here'
               in m for m in error_messages({**BIGBIRD_PEGASUS, "num_attention_heads": 2.0}))
    refused = error_messages({**BIGBIRD_PEGASUS, "encoder_attention_heads": 3})
    assert any("does not divide d_model" in m for m in refused)


# ----------------------------------------------------------------- LongT5
LONGT5 = dict(model_type="longt5", vocab_size=20, d_model=8, d_kv=4, num_heads=2, d_ff=16, num_layers=1,
              num_decoder_layers=2, relative_attention_num_buckets=4)
T5_ATTENTION = 4 * D * 8  # q, k, v, o without bias (2 heads × d_kv 4 = 8 wide): 256
T5_ENCODER_LAYER = T5_ATTENTION + 2 * D * 16 + 2 * D  # wi, wo, 2 RMS norms: 528
T5_DECODER_LAYER = 2 * T5_ATTENTION + 2 * D * 16 + 3 * D  # 792
BUCKETS = 4 * 2  # one relative-position table: buckets × heads
LONGT5_LOCAL = 20 * D + T5_ENCODER_LAYER + 2 * T5_DECODER_LAYER + 2 * D + 2 * BUCKETS  # 2,304
# Transient-global: block 0's global_relative_attention_bias, each encoder block's global_input_layer_norm.
LONGT5_GLOBAL = LONGT5_LOCAL + BUCKETS + D  # 2,320


@pytest.mark.parametrize("architecture", ["LongT5ForConditionalGeneration", "LongT5Model"])
def test_longt5_local_is_t5_and_transient_global_adds_a_table_and_norms(architecture: str) -> None:
    assert (LONGT5_LOCAL, LONGT5_GLOBAL) == (2304, 2320)
    assert counts({**LONGT5, "architectures": [architecture]}) == (LONGT5_LOCAL, LONGT5_LOCAL)
    config = {**LONGT5, "architectures": [architecture], "encoder_attention_type": "transient-global"}
    assert counts(config) == (LONGT5_GLOBAL, LONGT5_GLOBAL)


def test_longt5_encoder_model() -> None:
    local = 20 * D + T5_ENCODER_LAYER + D + BUCKETS  # 704
    assert counts({**LONGT5, "architectures": ["LongT5EncoderModel"]})[0] == local == 704
    assert counts({**LONGT5, "architectures": ["LongT5EncoderModel"], "num_layers": 3,
                   "encoder_attention_type": "transient-global"})[0] == local + 2 * T5_ENCODER_LAYER + BUCKETS + 3 * D


def test_longt5_gated_and_forced_tie() -> None:
    # gated-gelu: wi_0, wi_1, wo in each of the three blocks (+ 8 × 16 each).
    assert counts({**LONGT5, "feed_forward_proj": "gated-gelu"})[0] == LONGT5_LOCAL + 3 * D * 16
    # LongT5Config forces the tie as T5Config does: tie_word_embeddings false adds no head.
    assert counts({**LONGT5, "tie_word_embeddings": False})[0] == LONGT5_LOCAL
    assert position_limit(model(LONGT5)) is None


def test_longt5_refusals() -> None:
    assert any('is not "local" or "transient-global"' in m
               for m in error_messages({**LONGT5, "encoder_attention_type": "global"}))
    assert any('is not "ACT" or "gated-ACT"' in m for m in error_messages({**LONGT5, "feed_forward_proj": "a-b"}))


# ----------------------------------------------------------------- FSMT
FSMT = dict(model_type="fsmt", src_vocab_size=20, tgt_vocab_size=24, max_position_embeddings=10, pad_token_id=1,
            **TINY)
# Each stack's positions: max_position_embeddings + pad_token_id + 1 = 12 rows, trainable as built.
FSMT_POSITIONS = 2 * 12 * D  # 192
FSMT_UNTIED = 20 * D + 24 * D + 24 * D + FSMT_POSITIONS + LAYERS  # source, target, output projection: 3,008
FSMT_TIED = 24 * D + FSMT_POSITIONS + LAYERS  # the encoder's embedding and the projection are the decoder's: 2,656


@pytest.mark.parametrize("architecture", ["FSMTForConditionalGeneration", "FSMTModel"])
def test_fsmt_vocabularies_apart_and_the_projection_in_both_classes(architecture: str) -> None:
    assert (FSMT_UNTIED, FSMT_TIED) == (3008, 2656)
    assert counts({**FSMT, "architectures": [architecture]}) == (FSMT_UNTIED, FSMT_UNTIED)
    assert counts({**FSMT, "architectures": [architecture], "tie_word_embeddings": True}) == (FSMT_TIED, FSMT_TIED)


def test_fsmt_vocab_size_is_the_target_s_and_the_pad_sizes_the_positions() -> None:
    assert counts({**{k: v for k, v in FSMT.items() if k != "tgt_vocab_size"}, "vocab_size": 24})[0] == FSMT_UNTIED
    # pad 3: 14 rows per position table (+ 2 × 2 × 8).
    assert counts({**FSMT, "pad_token_id": 3})[0] == FSMT_UNTIED + 2 * 2 * D
    assert position_limit(model(FSMT)) is None


def test_fsmt_refusals() -> None:
    assert any("null is not a whole number" in m for m in error_messages({**FSMT, "pad_token_id": None}))
    assert any("src_vocab_size 20" in m for m in error_messages({**FSMT, "pad_token_id": 22}))
    assert any("tgt_vocab_size 24" in m for m in error_messages({**FSMT, "src_vocab_size": 30, "pad_token_id": 26}))
    # pad -6: 10 - 6 + 1 = 5 rows, and -6 is not within them.
    assert any("position tables (max_position_embeddings 10 + pad_token_id -6 + 1 = 5 rows)" in m
               for m in error_messages({**FSMT, "pad_token_id": -6}))
    assert not error_messages({**FSMT, "pad_token_id": -5})


# ----------------------------------------------------------------- class defaults (transformers 5.25, meta device)
CLASS_DEFAULTS = {
    ("m2m_100", "M2M100ForConditionalGeneration"): 483_905_536,
    ("m2m_100", "M2M100Model"): 483_905_536,
    ("led", "LEDForConditionalGeneration"): 459_801_600,
    ("led", "LEDModel"): 459_801_600,
    ("led", "LEDForQuestionAnswering"): 459_803_650,
    ("longt5", "LongT5ForConditionalGeneration"): 60_506_624,
    ("longt5", "LongT5Model"): 60_506_624,
    ("longt5", "LongT5EncoderModel"): 35_330_816,
    ("fsmt", "FSMTForConditionalGeneration"): 483_913_728,
    ("fsmt", "FSMTModel"): 483_913_728,
}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_s(model_type: str, architecture: str) -> None:
    total = CLASS_DEFAULTS[model_type, architecture]
    assert counts({"model_type": model_type, "architectures": [architecture]}) == (total, total)


def test_longt5_transient_global_defaults() -> None:
    # 6 encoder blocks × a 512-wide global_input_layer_norm + block 0's 32 × 8 global table: + 3,328.
    config = {"model_type": "longt5", "encoder_attention_type": "transient-global"}
    assert counts({**config, "architectures": ["LongT5ForConditionalGeneration"]})[0] == 60_509_952
    assert counts({**config, "architectures": ["LongT5EncoderModel"]})[0] == 35_334_144


# ----------------------------------------------------------------- the decoder's cache after a forward pass
_CACHE_BODY = dict(d_model=32, encoder_attention_heads=2, decoder_attention_heads=2, encoder_layers=1, decoder_layers=2,
                   encoder_ffn_dim=16, decoder_ffn_dim=16, pad_token_id=1)
CACHE_CASES = {
    "m2m_100": dict(model_type="m2m_100", architectures=["M2M100ForConditionalGeneration"], vocab_size=64,
                    **_CACHE_BODY),
    "led": dict(model_type="led", architectures=["LEDForConditionalGeneration"], vocab_size=64, attention_window=4,
                **_CACHE_BODY),
    "fsmt": dict(model_type="fsmt", architectures=["FSMTForConditionalGeneration"], src_vocab_size=64,
                 tgt_vocab_size=64, **_CACHE_BODY),
    "longt5": dict(model_type="longt5", architectures=["LongT5ForConditionalGeneration"], vocab_size=64, d_model=32,
                   d_kv=16, num_heads=2, d_ff=16, num_layers=1, num_decoder_layers=2,
                   encoder_attention_type="transient-global"),
}


@pytest.mark.parametrize("name", sorted(CACHE_CASES))
def test_kv_cache_is_the_encoder_decoder_cache_transformers_fills(name: str) -> None:
    """Self + cross attention, 2 heads × 16 wide per decoder layer and token (the encoders' local and global
    attention caches nothing), byte for byte with transformers' cache after a forward pass."""
    from lsp_count.core.memory import kv_cache

    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    config = CACHE_CASES[name]
    context, batch = 5, 2
    filled = forward_seq2seq_cache_bytes(config, context, batch)
    assert filled == 2 * 2 * 2 * 16 * (context + context) * batch * 4
    assert kv_cache(model(config), context, batch, "float32").bytes == filled
