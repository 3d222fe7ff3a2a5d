"""Fit verdicts: every 'what would make it fit' answer is checked by re-estimating."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.fit import estimate_compute, judge_fit
from lsp_count.core.hardware import GPUSelection, find_gpu, parse_gpu_spec
from lsp_count.core.memory import Settings, SettingsError, estimate_memory

LLAMA3 = open("examples/llama-3-8b/config.json").read()


def llama3():
    return analyze_text(LLAMA3, "config.json").models[0]


def fits(model, settings, gpu):
    return estimate_memory(model, settings).total_bytes <= gpu.usable_bytes


def test_qlora_on_4090_does_not_fit_and_says_what_would():
    m, gpu = llama3(), find_gpu("RTX-4090")
    s = Settings(mode="qlora", context=4096)
    v = judge_fit(m, s, GPUSelection(gpu))
    assert not v.fits and v.headroom_bytes == v.available_bytes - v.required_bytes < 0
    assert v.required_bytes == estimate_memory(m, s).total_bytes
    # the largest context is the boundary: it fits, one more token does not
    assert fits(m, replace(s, context=v.max_context), gpu)
    assert not fits(m, replace(s, context=v.max_context + 1), gpu)
    assert any(x.startswith("--gradient-checkpointing") for x in v.suggestions)
    assert fits(m, replace(s, gradient_checkpointing=True), gpu)


def test_inference_fit_boundaries_and_lowest_dtype():
    m, gpu = llama3(), find_gpu("RTX-4090")
    v = judge_fit(m, Settings(context=8192), GPUSelection(gpu))
    assert v.fits
    assert fits(m, Settings(context=8192, batch=v.max_batch), gpu)
    assert not fits(m, Settings(context=8192, batch=v.max_batch + 1), gpu)
    # fp32 weights (32 GB) do not fit a 24 GB card; bf16 does
    assert v.lowest_dtype == "bfloat16"
    small = judge_fit(m, Settings(), parse_gpu_spec("T4"))
    assert not small.fits
    assert small.lowest_dtype in ("float8", "int8")
    assert fits(m, Settings(dtype=small.lowest_dtype), find_gpu("T4"))
    assert small.min_gpus == 2 and any("--tp 2" in x for x in small.suggestions)


def test_training_min_gpus_with_zero3():
    m = llama3()
    sel = parse_gpu_spec("H100-80GB")
    v = judge_fit(m, Settings(mode="train", context=2048), sel)
    assert not v.fits
    n = v.min_gpus
    assert n is not None and n > 1
    assert fits(m, Settings(mode="train", context=2048, zero=3, gpus=n), sel.gpu)
    assert not fits(m, Settings(mode="train", context=2048, zero=3, gpus=n - 1), sel.gpu)
    eight = judge_fit(m, Settings(mode="train", zero=3, context=2048), parse_gpu_spec("8xH100-80GB"))
    assert eight.fits and eight.gpus == 8


def test_gpu_count_must_split_into_tp_pp():
    with pytest.raises(SettingsError) as exc:
        judge_fit(llama3(), Settings(tp=4), parse_gpu_spec("2xH100"))
    assert exc.value.flag == "--gpu"


def test_compute_estimate():
    m = llama3()
    n = m.tree.total
    c = estimate_compute(m, Settings(mode="train"), parse_gpu_spec("8xH100"), tokens=10**9, utilization=0.5)
    assert c.train_flops == 6 * n * 10**9
    assert c.inference_flops_per_token == 2 * n
    assert c.chinchilla_tokens == 20 * n
    assert c.train_seconds == pytest.approx(6 * n * 1e9 / (8 * find_gpu("H100").bf16_tflops * 1e12 * 0.5))
    moe = analyze_text(json.dumps(dict(model_type="mixtral", hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                                       num_hidden_layers=2, intermediate_size=64, vocab_size=50, num_local_experts=4,
                                       num_experts_per_tok=2)), "config.json").models[0]
    assert estimate_compute(moe, Settings(mode="train")).params == moe.tree.active
    assert estimate_compute(m, Settings(mode="lora"), tokens=1).train_flops == 4 * n


def test_an_image_transformer_s_compute_is_its_forward_flops_per_image():
    # ViT-B/16 at 224 × 224: 196 patches and a class token through 12 layers (tests/parity/test_image_flops_parity.py
    # counts them as torch does): 35.1 GFLOPs an image, not 2·N = 0.17 GFLOPs a "token".
    vit = analyze_text(json.dumps({"model_type": "vit", "architectures": ["ViTForImageClassification"]}),
                       "config.json").models[0]
    n = vit.tree.total
    h, f, s, layers = 768, 3072, 197, 12
    # Layers (q, k, v, o: 4·h², MLP 2·h·f a token; attention 4·s·h a token), patches, a classifier of 2 labels.
    forward = layers * (2 * s * (4 * h * h + 2 * h * f) + 4 * s * s * h) + 2 * (3 * 16 * 16 * h) * 196 + 2 * h * 2
    c = estimate_compute(vit, Settings(mode="train"))
    assert (c.inference_flops_per_token, c.image_tokens, c.image_side, c.params) == (forward, 197, None, n)
    assert c.train_tokens == 1_281_167 and c.train_flops == 3 * forward * 1_281_167 and c.chinchilla_tokens == 0
    # Adapters alone to train skip the weights' gradients; checkpointing runs the forward pass again.
    assert estimate_compute(vit, Settings(mode="lora"), tokens=10).train_flops == 2 * forward * 10
    assert estimate_compute(vit, Settings(mode="train", gradient_checkpointing=True), tokens=10).train_flops == \
        4 * forward * 10
    # --context sets the tokens an image: the patches go with it, the class token stays.
    shorter = estimate_compute(vit, Settings(mode="train", context=50))
    assert shorter.image_tokens == 50 and shorter.inference_flops_per_token == layers * (
        2 * 50 * (4 * h * h + 2 * h * f) + 4 * 50 * 50 * h) + 2 * (3 * 16 * 16 * h) * 49 + 2 * h * 2
    # Not counted this way: masked image modeling's decoder over every patch keeps 6·N a token.
    masked = analyze_text(json.dumps({"model_type": "vit", "architectures": ["ViTForMaskedImageModeling"]}),
                          "config.json").models[0]
    assert estimate_compute(masked, Settings(mode="train")).image_tokens is None


def test_a_convolutional_backbone_s_compute_follows_its_feature_maps():
    # A convolution reuses each weight at every position: ResNet-50's forward pass at 224 × 224 is 8.17 GFLOPs
    # (tests/parity/test_feature_maps_parity.py counts them as torch does), not 2·N = 51 MFLOPs.
    resnet = analyze_text(json.dumps({"model_type": "resnet"}), "config.json").models[0]
    c = estimate_compute(resnet, Settings(mode="train"), parse_gpu_spec("A100-80GB"))
    assert c.image_side == 224 and round(c.inference_flops_per_token / 1e9, 2) == 8.17
    assert c.train_tokens == 1_281_167 and c.train_flops == 3 * c.inference_flops_per_token * 1_281_167
    assert c.chinchilla_tokens == 0 and c.train_seconds == pytest.approx(
        c.train_flops / (find_gpu("A100-80GB").bf16_tflops * 1e12 * 0.4))
    larger = estimate_compute(resnet, Settings(mode="train", context=448), tokens=1000)
    assert larger.image_side == 448 and larger.train_tokens == 1000
    assert larger.inference_flops_per_token == pytest.approx(4 * c.inference_flops_per_token, rel=0.01)
