"""An encoder-decoder's training logits (memory._loss_logit_bytes, output_vocab): transformers' seq2seq
heads (BART, T5, Marian, Whisper) compute CrossEntropyLoss on the logits as they are, with no fp32
upcast, so a pure 16-bit run keeps 3 copies in the compute dtype; under autocast, which runs the loss
in fp32, and in fp32, they weigh what a causal model's do. tests/parity/test_logit_bytes_parity.py
measures those byte counts on the CPU."""

from __future__ import annotations

from lsp_count.core.memory import LOSS_LOGIT_BYTES, Settings, estimate_memory

from config_models import catalog_config, model


def _logits(config: dict, **settings):
    return estimate_memory(model(config), Settings(mode="train", **settings)).line("logits")


def test_a_seq2seq_lm_s_logits_are_counted_in_training() -> None:
    s, b, V = 512, 8, 32_128  # flan-t5-base: T5ForConditionalGeneration, vocabulary 32,128
    config = catalog_config("google/flan-t5-base")
    mixed = _logits(config, context=s, batch=b)
    assert (mixed.bytes, mixed.exact) == (LOSS_LOGIT_BYTES * s * b * V, False)
    assert mixed.detail == "12·s·b·V: the loss's fp32 logits, log-softmax and gradient (V = 32,128)"
    pure = _logits(config, context=s, batch=b, pure_precision=True)
    assert pure.bytes == 3 * 2 * s * b * V  # 3 bf16 copies: log-softmax, its gradient and the logits'
    assert "in the compute dtype" in pure.detail
    fp32 = _logits(config, context=s, batch=b, dtype="float32", pure_precision=True)
    assert fp32.bytes == LOSS_LOGIT_BYTES * s * b * V


def test_a_seq2seq_model_without_an_lm_head_keeps_no_logits() -> None:
    assert _logits(catalog_config("facebook/bart-large"), context=128, batch=1) is None  # BartModel


def test_an_unshared_marian_s_logits_are_its_decoder_s_vocabulary() -> None:
    config = {"model_type": "marian", "architectures": ["MarianMTModel"], "vocab_size": 1000,
              "decoder_vocab_size": 3000, "share_encoder_decoder_embeddings": False, "d_model": 64,
              "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2,
              "encoder_ffn_dim": 128, "decoder_ffn_dim": 128, "pad_token_id": 0, "torch_dtype": "bfloat16"}
    assert _logits(config, context=16, batch=2).bytes == LOSS_LOGIT_BYTES * 16 * 2 * 3000
    inference = estimate_memory(model(config), Settings(context=16, batch=2)).line("activations")
    shared = estimate_memory(model(config | {"share_encoder_decoder_embeddings": True, "decoder_vocab_size": None}),
                             Settings(context=16, batch=2)).line("activations")
    assert inference.bytes - shared.bytes == 4 * 2 * (3000 - 1000)  # the last token's fp32 logits


def test_a_causal_model_s_loss_upcasts_in_a_pure_run_too() -> None:
    config = catalog_config("meta-llama/Llama-3.2-1B")
    assert _logits(config, context=64, batch=1, pure_precision=True).bytes == LOSS_LOGIT_BYTES * 64 * 128_256


def test_a_vision_language_model_s_logits_are_its_text_model_s() -> None:
    # Qwen2-VL's ForConditionalGeneration computes transformers' causal loss over its text model's vocabulary.
    config = catalog_config("Qwen/Qwen2-VL-7B-Instruct")
    V = config["vocab_size"] if "vocab_size" in config else config["text_config"]["vocab_size"]
    found = _logits(config, context=1024, batch=2)
    assert (found.bytes, found.exact) == (LOSS_LOGIT_BYTES * 1024 * 2 * V, False)
    assert _logits(config | {"architectures": ["Qwen2VLModel"]}, context=1024, batch=2) is None  # no head
