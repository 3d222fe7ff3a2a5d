"""KV cache of encoder-decoder models (self + cross attention) and Qwen's use_sliding_window, to the byte.

Hand computations for bundled catalog configs, then cross-checks against transformers: the decoder's
k/v projection widths on the meta device, the cache tensors a tiny model really fills on the CPU, and
the per-layer sliding windows transformers' Qwen configs hand their caches.
"""

from __future__ import annotations

import json

import pytest

from lsp_count.core.memory import Settings, SettingsError, estimate_memory, kv_cache, sliding_layers, sliding_window

from config_models import catalog_config, model


def kv_line(m, **settings):
    found = estimate_memory(m, Settings(**settings)).line("kv_cache")
    assert found is not None
    return found


# --- encoder-decoder: hand computation ---------------------------------------------------------------
# Per decoder layer and sequence: 2 (K, V) × kv_heads × head_dim × (decoded tokens + encoder positions) values.

def test_t5_small_self_and_cross_attention():
    m = model(catalog_config("google-t5/t5-small"))  # 6 decoder layers, 8 heads, d_kv 64
    per_token_layer = 2 * 8 * 64
    kv = kv_line(m, context=100, batch=2)  # no torch_dtype: bfloat16
    assert (kv.bytes, kv.exact) == (6 * per_token_layer * (100 + 100) * 2 * 2, True) == (6 * 1024 * 200 * 4, True)
    assert "100 decoded + 100 encoder tokens" in kv.detail
    # tensor parallel 2: 4 of the 8 heads per GPU
    assert kv_line(m, context=100, batch=2, tp=2, gpus=2).bytes == 6 * 2 * 4 * 64 * 200 * 2 * 2
    # fp8 cache: one byte per value
    assert kv_line(m, context=100, batch=2, kv_dtype="float8").bytes == 6 * per_token_layer * 200 * 2 * 1


def test_t5_num_decoder_layers_and_d_kv_set_the_cache():
    # d_kv need not be d_model / heads, and the decoder may be deeper than the encoder
    m = model(catalog_config("google-t5/t5-small", num_decoder_layers=9, d_kv=32))
    assert kv_cache(m, 10, 1, "float32").bytes == 9 * 2 * 8 * 32 * (10 + 10) * 4


def test_bart_large_and_tensor_parallel_fp8():
    m = model(catalog_config("facebook/bart-large"))  # 12 decoder layers, 16 heads, d_model 1024: head_dim 64
    assert kv_line(m, context=1024, batch=1).bytes == 12 * 2 * 16 * 64 * (1024 + 1024) * 2  # no torch_dtype: bf16
    assert kv_cache(m, 1024, 3, "float32").bytes == 12 * 2 * 16 * 64 * 2048 * 3 * 4
    kv = kv_line(m, context=1024, batch=3, tp=2, gpus=2, kv_dtype="float8")
    assert kv.bytes == 12 * 2 * 8 * 64 * 2048 * 3 * 1
    assert "8 of 16 kv heads per GPU" in kv.detail


def test_bart_decoder_heads_apart_from_encoder_heads():
    m = model(catalog_config("facebook/bart-base", decoder_attention_heads=6, decoder_layers=3))  # d_model 768
    assert kv_cache(m, 20, 1, "bfloat16").bytes == 3 * 2 * 6 * 128 * 40 * 2


def test_whisper_cross_attention_over_its_fixed_1500_frames():
    m = model(catalog_config("openai/whisper-tiny"))  # 4 decoder layers, 6 heads, d_model 384: head_dim 64
    for context in (1, 448):
        kv = kv_line(m, context=context, batch=2, kv_dtype="bfloat16")
        assert kv.bytes == 4 * 2 * 6 * 64 * (context + 1500) * 2 * 2
    assert "max_source_positions = 1,500" in kv.detail
    large = model(catalog_config("openai/whisper-large-v3"))  # 32 decoder layers, 20 heads of 64; float16
    assert kv_line(large, context=448, batch=1).bytes == 32 * 2 * 20 * 64 * (448 + 1500) * 2
    assert kv_line(large, context=448, batch=1, tp=2, gpus=2, kv_dtype="float8").bytes == 32 * 2 * 10 * 64 * 1948
    # the encoder length is the family field, read from the config
    short = model(catalog_config("openai/whisper-tiny", max_source_positions=750))
    assert kv_cache(short, 10, 1, "bfloat16").bytes == 4 * 2 * 6 * 64 * (10 + 750) * 2


def test_pipeline_stages_hold_the_decoder_layers_placed_on_them():
    m = model(catalog_config("openai/whisper-tiny"))  # 4 encoder + 4 decoder layers
    per_layer = 2 * 6 * 64 * (10 + 1500) * 2
    # pp 3: stages of 3 layers [e e e] [e d d] [d d]: at most 2 decoder layers on one GPU
    kv = kv_cache(m, 10, 1, "bfloat16", pp=3)
    assert (kv.bytes, kv.exact) == (2 * per_layer, False)
    # pp 2: [e e e e] [d d d d]
    assert kv_cache(m, 10, 1, "bfloat16", pp=2).bytes == 4 * per_layer


def test_encoder_only_heads_have_no_cache():
    for config in (catalog_config("google-t5/t5-small", architectures=["T5EncoderModel"]),
                   catalog_config("openai/whisper-tiny", architectures=["WhisperForAudioClassification"])):
        m = model(config)
        assert kv_cache(m, 100, 1) is None
        report = estimate_memory(m, Settings(context=100))
        assert report.line("kv_cache") is None
        assert "encoder model: no KV cache" in report.notes


def test_tensor_parallel_must_divide_the_heads():
    m = model(catalog_config("google-t5/t5-small"))  # 8 heads
    with pytest.raises(SettingsError) as err:
        estimate_memory(m, Settings(tp=3, gpus=3))
    assert err.value.flag == "--tp"
    # BART with 16 encoder and 6 decoder heads: tp must divide both
    bart = model(catalog_config("facebook/bart-base", decoder_attention_heads=6))  # encoder: 12 heads
    estimate_memory(bart, Settings(tp=2, gpus=2))
    with pytest.raises(SettingsError):
        estimate_memory(bart, Settings(tp=4, gpus=4))


# --- encoder-decoder: against transformers ---------------------------------------------------------

CATALOG_CLASSES = {
    "google-t5/t5-small": "T5ForConditionalGeneration",
    "facebook/bart-large": "BartForConditionalGeneration",
    "openai/whisper-tiny": "WhisperForConditionalGeneration",
    "openai/whisper-large-v3": "WhisperForConditionalGeneration",
}


def _hf_config(config: dict):
    transformers = pytest.importorskip("transformers")
    kwargs = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    return transformers.AutoConfig.for_model(config["model_type"], **kwargs)


@pytest.mark.parametrize("name", sorted(CATALOG_CLASSES))
def test_cache_width_matches_the_decoders_k_and_v_projections(name):
    """Per token and layer, self-attention caches what k/v project to; cross-attention the same per encoder position."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = catalog_config(name)
    hf = _hf_config(config)
    with torch.device("meta"):
        module = getattr(transformers, CATALOG_CLASSES[name])(hf)
    self_width = cross_width = 0
    for path, sub in module.named_modules():
        leaf = path.rsplit(".", 1)[-1]
        if "decoder" in path and isinstance(sub, torch.nn.Linear) and leaf in ("k", "v", "k_proj", "v_proj"):
            if "EncDecAttention" in path or "encoder_attn" in path:
                cross_width += sub.out_features
            else:
                self_width += sub.out_features
    context, batch = 7, 3
    encoder = hf.max_source_positions if config["model_type"] == "whisper" else context
    expected = (self_width * context + cross_width * encoder) * batch * 4
    assert kv_cache(model(config), context, batch, "float32").bytes == expected


TINY = {
    "t5": dict(model_type="t5", architectures=["T5ForConditionalGeneration"], vocab_size=50, d_model=32, d_kv=8,
               num_heads=4, num_layers=1, num_decoder_layers=3, d_ff=64),
    "bart": dict(model_type="bart", architectures=["BartForConditionalGeneration"], vocab_size=50, d_model=32,
                 encoder_layers=1, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=2,
                 encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=1),
    "whisper": dict(model_type="whisper", architectures=["WhisperForConditionalGeneration"], vocab_size=60,
                    d_model=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=4,
                    decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=6,
                    max_target_positions=16, num_mel_bins=8, pad_token_id=1, bos_token_id=2, eos_token_id=3,
                    decoder_start_token_id=2),
}


@pytest.mark.parametrize("kind", sorted(TINY))
def test_bytes_equal_the_encoder_decoder_cache_transformers_fills(kind):
    """A tiny model's forward pass with use_cache: the EncoderDecoderCache's tensors, byte for byte."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = TINY[kind]
    hf = _hf_config(config)
    torch.manual_seed(0)
    module = getattr(transformers, config["architectures"][0])(hf).eval()
    context, batch = 5, 2
    if kind == "whisper":
        inputs = {"input_features": torch.randn(batch, hf.num_mel_bins, 2 * hf.max_source_positions)}
    else:
        inputs = {"input_ids": torch.randint(4, 50, (batch, context))}
    with torch.no_grad():
        out = module(**inputs, decoder_input_ids=torch.randint(4, 50, (batch, context)), use_cache=True)
    cache = out["cache"] if "cache" in out else out["past_key_values"]
    assert type(cache).__name__ == "EncoderDecoderCache"
    filled = sum(t.numel() * t.element_size()
                 for part in (cache.self_attention_cache, cache.cross_attention_cache)
                 for layer in part.layers for t in (layer.keys, layer.values))
    assert kv_cache(model(config), context, batch, "float32").bytes == filled


# --- Qwen: use_sliding_window ------------------------------------------------------------------

QWEN2 = dict(model_type="qwen2", architectures=["Qwen2ForCausalLM"], hidden_size=64, num_attention_heads=8,
             num_key_value_heads=2, num_hidden_layers=4, intermediate_size=128, vocab_size=100,
             sliding_window=16, max_window_layers=2, torch_dtype="bfloat16")
PER_TOKEN_LAYER = 2 * 2 * 8 * 2  # K and V × 2 kv heads × head_dim 8 × 2 bytes


def test_qwen2_window_applies_only_with_use_sliding_window():
    off = model({**QWEN2, "use_sliding_window": False})
    assert kv_line(off, context=40).bytes == 4 * 40 * PER_TOKEN_LAYER
    assert sliding_window(off.spec) is None
    on = model({**QWEN2, "use_sliding_window": True})
    # layers at index >= max_window_layers (2) slide
    assert sliding_layers(on.spec) == (False, False, True, True)
    assert kv_line(on, context=40).bytes == (40 + 40 + 16 + 16) * PER_TOKEN_LAYER
    # the class default window (4096) when the key is absent
    default = model({k: v for k, v in QWEN2.items() if k != "sliding_window"} | {"use_sliding_window": True})
    assert kv_line(default, context=5000).bytes == (5000 + 5000 + 4096 + 4096) * PER_TOKEN_LAYER
    # written layer_types do not switch the window back on: Qwen2Config nulls it without use_sliding_window
    typed = model({**QWEN2, "layer_types": ["sliding_attention"] * 4})
    assert kv_line(typed, context=40).bytes == 4 * 40 * PER_TOKEN_LAYER
    assert kv_line(model({**QWEN2, "layer_types": ["sliding_attention"] * 4, "use_sliding_window": True}),
                   context=40).bytes == 4 * 16 * PER_TOKEN_LAYER


def test_qwen_catalog_configs_do_not_slide():
    for name in ("Qwen/Qwen2.5-7B", "Qwen/Qwen1.5-MoE-A2.7B", "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B"):
        spec = model(catalog_config(name)).spec
        assert spec.values["use_sliding_window"] is False
        assert not any(sliding_layers(spec)), name


QWEN_CLASSES = {"qwen2": "Qwen2Config", "qwen2_moe": "Qwen2MoeConfig", "qwen3": "Qwen3Config", "qwen3_moe": "Qwen3MoeConfig"}


@pytest.mark.parametrize("model_type", sorted(QWEN_CLASSES))
@pytest.mark.parametrize("use", [False, True])
@pytest.mark.parametrize("max_window_layers", [0, 1, 4, 9])
@pytest.mark.parametrize("window", [16, None])
def test_qwen_sliding_layers_match_transformers(model_type, use, max_window_layers, window):
    """Each layer's cached tokens: transformers' config (layer_types and the windows it gives its cache) vs ours."""
    transformers = pytest.importorskip("transformers")
    from transformers.cache_utils import get_layer_types_and_kwargs

    arch = {"qwen2": "Qwen2ForCausalLM", "qwen2_moe": "Qwen2MoeForCausalLM", "qwen3": "Qwen3ForCausalLM",
            "qwen3_moe": "Qwen3MoeForCausalLM"}[model_type]
    sizes = dict(hidden_size=64, num_attention_heads=8, num_key_value_heads=2, head_dim=8, num_hidden_layers=6,
                 intermediate_size=128, moe_intermediate_size=32, shared_expert_intermediate_size=32,
                 num_experts=4, num_experts_per_tok=2, vocab_size=100)
    switches = dict(use_sliding_window=use, sliding_window=window, max_window_layers=max_window_layers)
    hf = getattr(transformers, QWEN_CLASSES[model_type])(**sizes, **switches)
    types, kwargs = get_layer_types_and_kwargs(hf)
    context = 40
    theirs = [min(context, kw["sliding_window"]) if t == "sliding_attention" and kw.get("sliding_window") else context
              for t, kw in zip(types, kwargs)]
    m = model(dict(model_type=model_type, architectures=[arch], torch_dtype="bfloat16", **sizes, **switches))
    assert kv_cache(m, context, 1, "bfloat16").bytes == sum(theirs) * PER_TOKEN_LAYER


@pytest.mark.parametrize("model_type", sorted(QWEN_CLASSES))
@pytest.mark.parametrize("use", [False, True])
def test_a_qwen_config_as_transformers_saves_it_is_read(model_type, use):
    """What save_pretrained writes (to_dict): Qwen2-MoE's config writes `sliding_window: 0` for a window
    switched off, which was refused ("must be at least 1"); the KV cache is transformers' own."""
    transformers = pytest.importorskip("transformers")
    from transformers.cache_utils import get_layer_types_and_kwargs

    sizes = dict(hidden_size=64, num_attention_heads=8, num_key_value_heads=2, head_dim=8, num_hidden_layers=6,
                 intermediate_size=128, moe_intermediate_size=32, shared_expert_intermediate_size=32,
                 num_experts=4, num_experts_per_tok=2, vocab_size=100)
    hf = getattr(transformers, QWEN_CLASSES[model_type])(**sizes, use_sliding_window=use, sliding_window=16,
                                                         max_window_layers=4)
    saved = json.loads(hf.to_json_string())
    types, kwargs = get_layer_types_and_kwargs(hf)
    context = 40
    theirs = [min(context, kw["sliding_window"]) if t == "sliding_attention" and kw.get("sliding_window") else context
              for t, kw in zip(types, kwargs)]
    assert kv_cache(model(saved), context, 1, "bfloat16").bytes == sum(theirs) * PER_TOKEN_LAYER
