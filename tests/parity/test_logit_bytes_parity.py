"""The bytes per logit memory.py's logits line counts in training (LOSS_LOGIT_BYTES, LOSS_COPIES_UNCAST),
measured: the peak of a training step's tensor memory on the CPU (the profiler's allocation events),
for two vocabularies of an otherwise equal tiny model, less the head's gradients, per extra logit.

The step runs as the Trainer's does: the model's output (which holds the logits) is dropped before
backward, as compute_loss returns the loss alone.

- An encoder-decoder's loss (BART, T5, Marian) keeps 3 copies in the compute dtype: 6 bytes in bf16
  (memory._loss_logit_bytes).
- In fp32, under autocast (the loss in fp32) and in a causal model (transformers' loss upcasts):
  the 12 bytes measured on a GPU for Llama (bench/gpu_memory.py: 11.9–13.2).
"""

from __future__ import annotations

import logging
import warnings

import pytest
import torch
from torch.profiler import ProfilerActivity, profile
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM

from lsp_count.core.memory import LOSS_COPIES_UNCAST, LOSS_LOGIT_BYTES

logging.getLogger("transformers").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

SEQ, BATCH, WIDTH = 128, 4, 32
SMALL, LARGE = 4_000, 20_000
SMALL_SIZES = {"encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2,
               "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "d_model": WIDTH, "pad_token_id": 0,
               "decoder_start_token_id": 0}
CONFIGS = {
    "bart": dict(SMALL_SIZES, max_position_embeddings=SEQ + 2),
    "marian": dict(SMALL_SIZES, max_position_embeddings=SEQ),
    "t5": {"d_model": WIDTH, "d_kv": 16, "d_ff": 64, "num_layers": 1, "num_decoder_layers": 1, "num_heads": 2,
           "decoder_start_token_id": 0, "pad_token_id": 0},
    "llama": {"hidden_size": WIDTH, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "num_key_value_heads": 2, "tie_word_embeddings": True},
}


def _peak(step) -> int:
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step()
    events = sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_ns())
    live = peak = 0
    for event in events:
        live += event.nbytes()
        peak = max(peak, live)
    return peak


def _step_peak(model_type: str, vocab: int, dtype: torch.dtype, autocast: bool) -> int:
    torch.manual_seed(0)
    config = AutoConfig.for_model(model_type, vocab_size=vocab, **CONFIGS[model_type])
    auto = AutoModelForCausalLM if model_type == "llama" else AutoModelForSeq2SeqLM
    model = auto.from_config(config, dtype=dtype).train()
    ids = torch.randint(1, vocab, (BATCH, SEQ))

    def step() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()

    step()  # the first step's gradients and caches are allocated once; the second's peak is the steady one
    model.zero_grad(set_to_none=True)
    grads = sum(p.numel() * p.element_size() for p in model.parameters())
    return _peak(step) - grads


def _bytes_per_logit(model_type: str, dtype: torch.dtype, autocast: bool = False) -> float:
    grown = _step_peak(model_type, LARGE, dtype, autocast) - _step_peak(model_type, SMALL, dtype, autocast)
    return grown / (SEQ * BATCH * (LARGE - SMALL))


@pytest.mark.parametrize("model_type", ["bart", "marian", "t5"])
def test_an_encoder_decoder_s_loss_keeps_three_copies_in_the_compute_dtype(model_type) -> None:
    assert _bytes_per_logit(model_type, torch.bfloat16) == pytest.approx(LOSS_COPIES_UNCAST * 2, abs=0.2)
    assert _bytes_per_logit(model_type, torch.float32) == pytest.approx(LOSS_LOGIT_BYTES, abs=0.3)


@pytest.mark.parametrize("model_type", ["t5", "llama"])
def test_the_loss_under_autocast_and_a_causal_model_s_in_bf16_keep_fp32_copies(model_type) -> None:
    assert _bytes_per_logit(model_type, torch.float32, autocast=True) == pytest.approx(LOSS_LOGIT_BYTES, abs=0.3)
    if model_type == "llama":  # transformers' causal loss upcasts whatever the dtype
        assert _bytes_per_logit(model_type, torch.bfloat16) == pytest.approx(LOSS_LOGIT_BYTES, abs=0.3)
