"""Pegasus, Marian, Blenderbot, BlenderbotSmall, PLBart and MVP: hand counts, class defaults, switches,
bad input and the KV cache.

The hand counts below are worked out in the comments; the class-default totals were taken once from
transformers 5.25 on the meta device (tests/parity checks every family's defaults, random configs,
nulls and floats against transformers itself).
"""

from __future__ import annotations

import pytest

from lsp_count.core.memory import kv_cache, position_limit

from config_models import errors, forward_seq2seq_cache_bytes, model

# One tiny BART-like body shared by the hand counts: d_model 8, 2 heads, 1 encoder and 2 decoder layers.
TINY = dict(d_model=8, encoder_attention_heads=2, decoder_attention_heads=2, encoder_layers=1, decoder_layers=2,
            encoder_ffn_dim=16, decoder_ffn_dim=12, vocab_size=20, max_position_embeddings=10, pad_token_id=0)
D = 8
ATTENTION = 4 * (D * D + D)  # q, k, v, out projections with biases: 288
LN = 2 * D  # a LayerNorm's weight and bias
ENCODER_LAYER = ATTENTION + (D * 16 + 16) + (16 * D + D) + 2 * LN  # self-attn, fc1, fc2, 2 norms: 600
DECODER_LAYER = 2 * ATTENTION + (D * 12 + 12) + (12 * D + D) + 3 * LN  # + cross-attn, 3 norms: 836
LAYERS = ENCODER_LAYER + 2 * DECODER_LAYER  # 2,272
SHARED = 20 * D  # the shared token embedding; every head here is tied to it by default
POSITIONS = 10 * D  # one stack's position table (max_position_embeddings rows)


def tiny(model_type: str, architecture: str, **extra: object) -> dict:
    return {"model_type": model_type, "architectures": [architecture], **TINY, **extra}


def counts(config: dict) -> tuple[int, int]:
    tree = model(config).tree
    return tree.total, tree.trainable


# ----------------------------------------------------------------- hand counts
def test_pegasus_is_pre_norm_with_frozen_sinusoidal_positions() -> None:
    # Two sinusoidal tables (counted, requires_grad=False), a final layer_norm per stack, no layernorm_embedding.
    total = SHARED + LAYERS + 2 * POSITIONS + 2 * LN
    assert total == 2624
    assert counts(tiny("pegasus", "PegasusForConditionalGeneration")) == (total, total - 2 * POSITIONS)
    tree = model(tiny("pegasus", "PegasusForConditionalGeneration")).tree
    # Tied to `shared`, the stack's one embedding is its position table (shown by name, not nested).
    positions = tree.root.find("encoder.embed_positions")
    assert positions.frozen and "sinusoidal" in positions.note
    assert tree.root.find("encoder.final_norm").total == LN
    assert not any(t.module == "layernorm_embedding" for _p, t, _n, _f in tree.root.iter_tensors())


def test_marian_is_post_norm_with_sinusoidal_positions_and_no_stack_norms() -> None:
    total = SHARED + LAYERS + 2 * POSITIONS
    assert total == 2592
    assert counts(tiny("marian", "MarianMTModel", decoder_start_token_id=0)) == (total, total - 2 * POSITIONS)
    tree = model(tiny("marian", "MarianMTModel", decoder_start_token_id=0)).tree
    assert tree.root.find("encoder").child("final_norm") is None


def test_marian_unshared_embeddings_and_decoder_vocabulary() -> None:
    base = tiny("marian", "MarianMTModel", decoder_start_token_id=0, decoder_vocab_size=12)
    frozen = 2 * POSITIONS
    # Shared and tied: one vocab_size matrix; the decoder's own size is unused while it is tied.
    assert counts(base)[0] == SHARED + LAYERS + frozen == 2592
    # Unshared: the encoder's 20 rows, the decoder's 12; the head tied to the decoder's.
    unshared = {**base, "share_encoder_decoder_embeddings": False}
    assert counts(unshared) == (20 * D + 12 * D + LAYERS + frozen, 20 * D + 12 * D + LAYERS) == (2688, 2528)
    # ... untied: an lm_head of the decoder's 12 rows too.
    assert counts({**unshared, "tie_word_embeddings": False})[0] == 2688 + 12 * D == 2784
    # Shared but untied: shared (20) + encoder (20) + decoder (12) + lm_head (20 rows, as wide as shared).
    assert counts({**base, "tie_word_embeddings": False})[0] == 3 * SHARED + 12 * D + LAYERS + frozen == 3008
    # decoder_vocab_size null or 0 is vocab_size (MarianConfig: decoder_vocab_size or vocab_size).
    for written in (None, 0):
        assert counts({**unshared, "decoder_vocab_size": written})[0] == 2 * SHARED + LAYERS + frozen


def test_blenderbot_and_blenderbot_small_positions_have_no_offset_rows() -> None:
    # Blenderbot: pre-norm, final layer_norm per stack, no layernorm_embedding, learned positions (trainable).
    total = SHARED + LAYERS + 2 * POSITIONS + 2 * LN
    assert counts(tiny("blenderbot", "BlenderbotForConditionalGeneration")) == (total, total) == (2624, 2624)
    bb = model(tiny("blenderbot", "BlenderbotForConditionalGeneration")).tree
    assert bb.root.find("decoder.final_norm") is not None
    # BlenderbotSmall: post-norm, layernorm_embedding per stack instead of a final norm.
    small = model(tiny("blenderbot-small", "BlenderbotSmallForConditionalGeneration")).tree
    assert (small.total, small.trainable) == (total, total)
    assert small.root.find("decoder").child("final_norm") is None
    assert small.root.find("decoder.embeddings.layernorm_embedding").total == LN
    assert small.root.find("decoder.embeddings.embed_positions").tensors[0].shape == (10, D)


def test_blenderbot_decoder_depth_defaults_apart_from_the_encoder_s() -> None:
    spec = model({"model_type": "blenderbot"}).spec
    assert (spec["encoder_layers"], spec["decoder_layers"]) == (2, 24)


def test_plbart_is_bart_with_two_offset_position_rows() -> None:
    positions = 2 * (10 + 2) * D
    total = SHARED + LAYERS + positions + 2 * LN
    assert counts(tiny("plbart", "PLBartForConditionalGeneration")) == (total, total) == (2656, 2656)
    # Sequence classification over 3 labels: dense (8 -> 8) and out_proj (8 -> 3), with biases.
    clf = tiny("plbart", "PLBartForSequenceClassification", id2label={"0": "a", "1": "b", "2": "c"})
    assert counts(clf)[0] == total + (D * D + D) + (D * 3 + 3) == 2755


def test_mvp_prompts_are_the_decoder_s_self_and_cross_attention_prompts() -> None:
    base = tiny("mvp", "MvpForConditionalGeneration")
    plain = SHARED + LAYERS + 2 * (10 + 2) * D + 2 * LN
    assert counts(base)[0] == plain == 2656
    # A prompt: embedding 3 × 8, Linear(8 -> 5), Linear(5 -> 2 decoder layers × 2 × 8), with biases: 261.
    prompt = 3 * D + (D * 5 + 5) + (5 * 2 * 2 * D + 2 * 2 * D)
    assert prompt == 261
    prompted = {**base, "use_prompt": True, "prompt_length": 3, "prompt_mid_dim": 5}
    assert counts(prompted) == (plain + 2 * prompt, plain + 2 * prompt) == (3178, 3178)
    tree = model(prompted).tree
    assert [c.name for c in tree.root.child("decoder").children][-2:] == ["self_attn_prompt", "cross_attn_prompt"]
    assert not any("prompt" in c.name for c in tree.root.child("encoder").children)
    # Question answering: qa_outputs 8 -> 2 whatever num_labels says.
    qa = tiny("mvp", "MvpForQuestionAnswering", id2label={str(i): str(i) for i in range(5)})
    assert counts(qa)[0] == plain + D * 2 + 2 == 2674


# ----------------------------------------------------------------- class defaults and published sizes
@pytest.mark.parametrize("model_type, total, trainable", [
    ("pegasus", 406_287_360, 404_190_208),
    ("marian", 414_307_328, 412_210_176),
    ("blenderbot", 2_696_268_800, 2_696_268_800),
    ("blenderbot-small", 85_113_344, 85_113_344),
    ("plbart", 139_220_736, 139_220_736),
    ("mvp", 406_293_504, 406_293_504),
])
def test_class_defaults_are_transformers_s(model_type: str, total: int, trainable: int) -> None:
    assert counts({"model_type": model_type}) == (total, trainable)


OPUS_MT = {"architectures": ["MarianMTModel"], "model_type": "marian", "d_model": 512, "encoder_layers": 6,
           "decoder_layers": 6, "encoder_attention_heads": 8, "decoder_attention_heads": 8, "encoder_ffn_dim": 2048,
           "decoder_ffn_dim": 2048, "vocab_size": 58101, "decoder_vocab_size": 58101, "max_position_embeddings": 512,
           "pad_token_id": 58100, "decoder_start_token_id": 58100, "scale_embedding": True,
           "share_encoder_decoder_embeddings": True}
PEGASUS_XSUM = {"architectures": ["PegasusForConditionalGeneration"], "model_type": "pegasus", "d_model": 1024,
                "encoder_layers": 16, "decoder_layers": 16, "encoder_attention_heads": 16,
                "decoder_attention_heads": 16, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096,
                "vocab_size": 96103, "max_position_embeddings": 512, "pad_token_id": 0}
BLENDERBOT_400M = {"architectures": ["BlenderbotForConditionalGeneration"], "model_type": "blenderbot",
                   "d_model": 1280, "encoder_layers": 2, "decoder_layers": 12, "encoder_attention_heads": 32,
                   "decoder_attention_heads": 32, "encoder_ffn_dim": 5120, "decoder_ffn_dim": 5120,
                   "vocab_size": 8008, "max_position_embeddings": 128}


@pytest.mark.parametrize("config, total, trainable", [
    (OPUS_MT, 74_410_496, 73_886_208),  # opus-mt-en-de's sizes: 2 × 512 × 512 frozen sinusoidal rows
    (PEGASUS_XSUM, 569_748_480, 568_699_904),
    (BLENDERBOT_400M, 364_802_560, 364_802_560),
])
def test_published_sizes(config: dict, total: int, trainable: int) -> None:
    assert counts(config) == (total, trainable)
    assert total - trainable == (2 * 512 * config["d_model"] if config["model_type"] != "blenderbot" else 0)


# ----------------------------------------------------------------- bad input
def test_pad_token_must_lie_in_marian_s_decoder_vocabulary_too() -> None:
    config = tiny("marian", "MarianMTModel", decoder_start_token_id=0, decoder_vocab_size=12, pad_token_id=15)
    found = errors(config)
    assert found and "decoder_vocab_size 12" in found[0].message
    # Marian's class default pad_token_id (58100) does not fit a smaller decoder vocabulary.
    assert errors({"model_type": "marian", "decoder_vocab_size": 1000})
    assert not errors({**config, "pad_token_id": 11})


@pytest.mark.parametrize("model_type", ["pegasus", "marian", "blenderbot", "blenderbot-small", "plbart", "mvp"])
def test_heads_must_divide_d_model(model_type: str) -> None:
    assert any("does not divide d_model" in p.message
               for p in errors({"model_type": model_type, "decoder_attention_heads": 7}))


# ----------------------------------------------------------------- memory
def test_positions_limit_the_decoded_length() -> None:
    for config in (tiny("pegasus", "PegasusForConditionalGeneration"), tiny("plbart", "PLBartModel"),
                   tiny("blenderbot", "BlenderbotModel")):
        limit = position_limit(model(config))
        assert limit is not None and (limit.tokens, limit.hard) == (10, True)


TINY_CACHE = dict(vocab_size=50, d_model=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=4,
                  decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
                  pad_token_id=1, decoder_start_token_id=2)
CACHE_CASES = {
    "pegasus": dict(model_type="pegasus", architectures=["PegasusForConditionalGeneration"]),
    "marian-unshared": dict(model_type="marian", architectures=["MarianMTModel"],
                            share_encoder_decoder_embeddings=False, decoder_vocab_size=60),
    "blenderbot": dict(model_type="blenderbot", architectures=["BlenderbotForConditionalGeneration"]),
    "blenderbot-small": dict(model_type="blenderbot-small", architectures=["BlenderbotSmallForConditionalGeneration"]),
    "plbart": dict(model_type="plbart", architectures=["PLBartForConditionalGeneration"]),
    "mvp-prompt": dict(model_type="mvp", architectures=["MvpForConditionalGeneration"], use_prompt=True,
                       prompt_length=4, prompt_mid_dim=8),
}


@pytest.mark.parametrize("name", sorted(CACHE_CASES))
def test_kv_cache_is_the_encoder_decoder_cache_transformers_fills(name: str) -> None:
    """A tiny model's forward pass with use_cache: self + cross attention, 2 × 2 heads × 16 wide per decoder
    layer and token, byte for byte (MVP's prompts are joined after the cache: not cached)."""
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    config = {**TINY_CACHE, **CACHE_CASES[name]}
    context, batch = 5, 2
    filled = forward_seq2seq_cache_bytes(config, context, batch)
    assert filled == 2 * 2 * 2 * 16 * (context + context) * batch * 4
    assert kv_cache(model(config), context, batch, "float32").bytes == filled
