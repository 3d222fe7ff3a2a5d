"""Encoder-decoder models: the decoder's position limit (note and fit-search cap) and their layer stacks.

Whisper's decoder has a learned table of max_target_positions (448) positions, BART/mBART one of
max_position_embeddings (1024, plus 2 offset rows that are not usable positions); T5 and Switch use
relative position buckets and have no limit. Pipeline stages and ZeRO-3's gathered layer count every
encoder and decoder layer, Switch's sparse layers included.
"""

from __future__ import annotations

import json

import pytest

from lsp_count.core.catalog import CATALOG_DIR
from lsp_count.core.fit import judge_fit
from lsp_count.core.hardware import GPUSelection, find_gpu
from lsp_count.core.memory import MemoryEstimator, Settings, SettingsError, estimate_memory

from config_models import catalog_config, model


def beyond_notes(m, **settings) -> list[str]:
    return [n for n in estimate_memory(m, Settings(**settings)).notes if "is beyond" in n]


def fits(m, settings: Settings, gpu) -> bool:
    return estimate_memory(m, settings).total_bytes <= gpu.usable_bytes


# --- the decoder's position limit -------------------------------------------------------------------

def test_whisper_context_beyond_max_target_positions_is_noted():
    m = model(catalog_config("openai/whisper-tiny"))
    assert beyond_notes(m, context=1000) == ["context 1,000 is beyond max_target_positions (448)"]
    assert beyond_notes(m, context=448) == []
    assert beyond_notes(m, context=1000, mode="train") == ["context 1,000 is beyond max_target_positions (448)"]


def test_whisper_fit_search_proposes_no_context_past_448():
    m, gpu = model(catalog_config("openai/whisper-tiny")), find_gpu("T4")
    s = Settings(context=1000, batch=768)
    # memory alone would allow 700 tokens: the cap, not the GPU, stops the search at 448
    assert not fits(m, s, gpu) and fits(m, Settings(context=700, batch=768), gpu)
    v = judge_fit(m, s, GPUSelection(gpu))
    assert not v.fits and v.max_context == 448
    assert "--context 448 fits" in v.suggestions
    # a context that already fits is searched up to the limit, not past it
    assert judge_fit(m, Settings(context=100), GPUSelection(gpu)).max_context == 448


def test_bart_limit_is_max_position_embeddings_not_its_table_rows():
    m = model(catalog_config("facebook/bart-large"))  # 1024 positions, a 1026-row table
    assert m.spec.values["position_rows"] == 1026
    assert beyond_notes(m, context=1024) == []
    assert beyond_notes(m, context=1025) == ["context 1,025 is beyond max_position_embeddings (1,024)"]
    gpu = find_gpu("T4")
    s = Settings(context=2048, batch=64)
    assert not fits(m, s, gpu) and fits(m, Settings(context=1500, batch=64), gpu)
    v = judge_fit(m, s, GPUSelection(gpu))
    assert v.max_context == 1024 and "--context 1,024 fits" in v.suggestions


def test_mbart_reads_its_own_max_position_embeddings():
    m = model(catalog_config("facebook/mbart-large-50", max_position_embeddings=512))
    assert beyond_notes(m, context=600) == ["context 600 is beyond max_position_embeddings (512)"]
    assert judge_fit(m, Settings(context=100), GPUSelection(find_gpu("H100-80GB"))).max_context == 512


@pytest.mark.parametrize("name", ["google-t5/t5-small", "google/switch-base-8"])
def test_relative_position_models_have_no_limit(name):
    m = model(catalog_config(name))
    assert beyond_notes(m, context=8192) == []
    v = judge_fit(m, Settings(context=8192), GPUSelection(find_gpu("H100-80GB")))
    assert v.fits and v.max_context > 8192


def test_encoder_only_heads_have_no_decoder_limit():
    m = model(catalog_config("openai/whisper-tiny", architectures=["WhisperForAudioClassification"]))
    assert beyond_notes(m, context=1000) == []


# --- layer stacks: every encoder and decoder layer -------------------------------------------------

SEQ2SEQ_CATALOG = ["google-t5/t5-small", "google/flan-t5-base", "google/switch-base-8", "google/switch-base-16",
                   "facebook/bart-large", "facebook/mbart-large-50", "openai/whisper-tiny", "openai/whisper-large-v3"]


@pytest.mark.parametrize("name", SEQ2SEQ_CATALOG)
def test_layer_count_is_encoder_plus_decoder_layers(name):
    m = model(catalog_config(name))
    layers = m.spec.int("encoder_layers") + m.spec.int("decoder_layers")
    assert MemoryEstimator(m).layer_count == layers
    # pipeline parallel takes one stage per layer at most
    estimate_memory(m, Settings(pp=layers, gpus=layers))
    with pytest.raises(SettingsError, match=f"model's {layers} layers"):
        estimate_memory(m, Settings(pp=layers + 1, gpus=layers + 1))


def test_switch_stack_with_a_single_sparse_layer_counts_it():
    # one sparse layer per stack: step = 12, layer 1 sparse, 11 dense
    m = model(catalog_config("google/switch-base-8", num_sparse_encoder_layers=1, num_sparse_decoder_layers=1))
    assert MemoryEstimator(m).layer_count == 24


def test_switch_pipeline_stages_split_24_layers():
    m = model(catalog_config("google/switch-base-8"))  # vocab 32128, d_model 768, 32 buckets × 12 heads per stack
    shared = 32128 * 768
    outside = shared + 2 * 32 * 12 + 2 * 768  # shared embedding, both bucket tables, both final norms
    stack = 2 * (m.tree.total - outside)  # bf16 bytes of the 24 layers
    w = estimate_memory(m, Settings(pp=5, gpus=5, dtype="bfloat16")).line("weights").bytes
    # first stage: what precedes the encoder layers (shared embedding, encoder bucket table)
    # + ceil(24 / 5) = 5 of the 24 layers (12 counted layers would give 3 of 12)
    assert w == 2 * (shared + 32 * 12) + -(-stack * 5 // 24)


def test_switch_zero3_gathers_the_largest_layer_a_sparse_decoder_layer():
    m = model(catalog_config("google/switch-base-8"))  # d_model 768, d_ff 3072, 12 heads of 64, 8 experts
    h, f, experts = 768, 3072, 8
    attention = 4 * h * h
    sparse_decoder_layer = 2 * attention + h * experts + experts * 2 * h * f + 3 * h  # self + cross, router, norms
    s = Settings(mode="train", zero=3, gpus=8, dtype="bfloat16")
    weights = estimate_memory(m, s).line("weights").bytes
    assert weights - -(-2 * m.tree.total // 8) == 2 * sparse_decoder_layer


def test_a_single_dense_layer_in_a_mixed_decoder_stack_counts_too():
    # The same rule in a decoder-only model: DeepSeek-V2-Lite's first_k_dense_replace 1 + 26 MoE layers
    m = model(catalog_config("deepseek-ai/DeepSeek-V2-Lite"))
    assert MemoryEstimator(m).layer_count == m.spec.int("num_layers") == 27


def test_decoder_only_limits_name_their_key_and_learned_tables_cap_the_search():
    # GPT-2 and OPT learn one embedding row per position: no longer sequence runs. Rotary models run past
    # max_position_embeddings (scaled or degraded): noted, not capped.
    gpt2 = model(catalog_config("openai-community/gpt2"))
    assert beyond_notes(gpt2, context=2048) == ["context 2,048 is beyond n_positions (1,024)"]
    assert judge_fit(gpt2, Settings(context=2048), GPUSelection(find_gpu("H100-80GB"))).max_context == 1024
    opt = model(catalog_config("facebook/opt-125m"))
    assert beyond_notes(opt, context=4096) == ["context 4,096 is beyond max_position_embeddings (2,048)"]
    llama = model(json.loads((CATALOG_DIR.parents[2] / "examples" / "llama-3-8b" / "config.json").read_text()))
    assert beyond_notes(llama, context=16384) == ["context 16,384 is beyond max_position_embeddings (8,192)"]
    # soft: the context asked for stays a candidate past the limit
    assert judge_fit(llama, Settings(context=16384), GPUSelection(find_gpu("H100-80GB"))).max_context == 16384
