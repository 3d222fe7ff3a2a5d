"""The BART-likes' and Whisper's ForCausalLM classes (BartForCausalLM, ..., WhisperForCausalLM): the decoder alone,
wrapped as model.decoder, its cross-attention built but never fed, then an output head tied to the decoder's token
embedding as the config says (BigBirdPegasusForCausalLM declares no tie). Hand counts, the class defaults (literals
taken once from transformers 5.25 on the meta device; tests/parity checks random configs of every head class), the
KV cache against a real forward pass, and the logits.
"""

from __future__ import annotations

import pytest

from lsp_count.core.memory import LOSS_LOGIT_BYTES, Settings, estimate_memory, kv_cache

from config_models import assert_class_default_total, forward_cache_bytes, model

# d_model 8, 2 heads, 2 decoder layers (the encoder's sizes are not built), a vocabulary of 20.
TINY = dict(d_model=8, encoder_attention_heads=2, decoder_attention_heads=2, encoder_layers=3, decoder_layers=2,
            encoder_ffn_dim=16, decoder_ffn_dim=12, vocab_size=20, max_position_embeddings=10, pad_token_id=0)
D = 8
ATTENTION = 4 * (D * D + D)  # q, k, v, out projections with biases: 288
LN = 2 * D
# self- and cross-attention, fc1, fc2, 3 norms: 836
DECODER_LAYER = 2 * ATTENTION + (D * 12 + 12) + (12 * D + D) + 3 * LN
EMBED = 20 * D


def tiny(model_type: str, architecture: str, **extra: object) -> dict:
    return {"model_type": model_type, "architectures": [architecture], **TINY, **extra}


def test_bart_s_causal_lm_is_its_decoder_with_a_tied_head() -> None:
    # embed_tokens, BART's 10 + 2 offset position rows, layernorm_embedding, 2 decoder layers; lm_head tied.
    total = EMBED + 12 * D + LN + 2 * DECODER_LAYER
    assert total == 1944
    tree = model(tiny("bart", "BartForCausalLM")).tree
    assert (tree.total, tree.trainable) == (total, total)
    assert [c.name for c in tree.root.children] == ["decoder", "lm_head"]
    assert tree.root.find("decoder").find("layers").repeat == 2
    assert "tied to decoder.embed_tokens" in tree.root.find("lm_head").note
    untied = model(tiny("bart", "BartForCausalLM", tie_word_embeddings=False)).tree
    assert untied.total == total + 20 * D  # lm_head: vocab × d_model, no bias


def test_marian_s_tied_head_is_as_wide_as_its_decoder_s_vocabulary() -> None:
    # MarianDecoder's embed_tokens has decoder_vocab_size rows; tied, lm_head is that matrix, else vocab_size rows.
    marian = dict(decoder_vocab_size=12, share_encoder_decoder_embeddings=False, decoder_start_token_id=0)
    base = 2 * DECODER_LAYER + 10 * D  # (no layernorm_embedding, no final norm; 10 frozen sinusoidal rows)
    tied = model(tiny("marian", "MarianForCausalLM", **marian)).tree
    assert (tied.total, tied.trainable) == (base + 12 * D, base + 12 * D - 10 * D)
    untied = model(tiny("marian", "MarianForCausalLM", tie_word_embeddings=False, **marian)).tree
    assert untied.total == base + 12 * D + 20 * D


def test_mvp_s_causal_lm_has_no_prompts_and_bigbird_pegasus_s_never_ties() -> None:
    # MvpForCausalLM builds MvpDecoder(config), whose use_prompt defaults to False.
    prompted = tiny("mvp", "MvpForCausalLM", use_prompt=True, prompt_length=3, prompt_mid_dim=5)
    assert model(prompted).tree.total == model(tiny("mvp", "MvpForCausalLM")).tree.total
    # BigBirdPegasusForCausalLM declares no tied weights: its lm_head is its own even under tie_word_embeddings.
    tree = model(tiny("bigbird_pegasus", "BigBirdPegasusForCausalLM", attention_type="original_full")).tree
    head = tree.root.find("lm_head")
    assert head.total == 20 * D and "never tied" in head.note


@pytest.mark.parametrize("model_type, architecture, total", [
    ("bart", "BartForCausalLM", 254_084_096),
    ("mbart", "MBartForCausalLM", 254_086_144),
    ("plbart", "PLBartForCausalLM", 95_904_000),
    ("pegasus", "PegasusForCausalLM", 254_082_048),
    ("marian", "MarianForCausalLM", 262_104_064),
    ("blenderbot", "BlenderbotForCausalLM", 2_538_583_040),
    ("blenderbot-small", "BlenderbotSmallForCausalLM", 59_631_104),
    ("mvp", "MvpForCausalLM", 254_086_144),
    ("bigbird_pegasus", "BigBirdPegasusForCausalLM", 469_630_976),
    ("whisper", "WhisperForCausalLM", 29_552_256),
])
def test_the_class_defaults(model_type: str, architecture: str, total: int) -> None:
    assert_class_default_total(model_type, architecture, total)


@pytest.mark.parametrize("model_type, architecture, extra", [
    ("bart", "BartForCausalLM", {"vocab_size": 40}),  # (the forward pass draws ids under 32)
    ("whisper", "WhisperForCausalLM", {"vocab_size": 40, "max_target_positions": 16, "num_mel_bins": 8,
                                       "max_source_positions": 16,
                                       "bos_token_id": 0, "eos_token_id": 0, "decoder_start_token_id": 0}),
])
def test_the_kv_cache_is_the_decoder_s_self_attention_alone(model_type: str, architecture: str, extra: dict) -> None:
    # No encoder output: the cross-attention runs on nothing and caches nothing (transformers keeps a DynamicCache).
    pytest.importorskip("torch")
    config = tiny(model_type, architecture, **extra)
    cache = kv_cache(model(config), 7, 2, "bfloat16")
    assert cache.bytes == 2 * 2 * 2 * 4 * 7 * 2 * 2  # layers × K,V × heads × head_dim × tokens × batch × 2 bytes
    assert "no encoder" in cache.detail
    assert cache.bytes == forward_cache_bytes(config, architecture, tokens=7, batch=2)


def test_training_keeps_the_head_s_logits() -> None:
    config = tiny("marian", "MarianForCausalLM", decoder_vocab_size=12, share_encoder_decoder_embeddings=False,
                  decoder_start_token_id=0, tie_word_embeddings=False)
    logits = estimate_memory(model(config), Settings(mode="train", context=16, batch=2)).line("logits")
    assert logits.bytes == LOSS_LOGIT_BYTES * 16 * 2 * 20  # the untied head's vocab_size rows


def test_auto_model_for_causal_lm_on_a_bart_checkpoint_is_its_causal_lm_class(tmp_path) -> None:
    # transformers maps bart to BartForCausalLM in AutoModelForCausalLM; the catalog's config, counted as that class.
    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    text = ('from transformers import AutoModelForCausalLM\n\n'
            'model = AutoModelForCausalLM.from_pretrained("facebook/bart-large")\n')
    report = analyze_text(text, str(tmp_path / "load.py"), AnalyzeOptions(read_packages=(), hf_cache=str(tmp_path)))
    assert not report.problems, report.problems
    (counted,) = report.models
    assert counted.tree.total == 254_084_096  # BartForCausalLM at bart-large's sizes (its class defaults)
