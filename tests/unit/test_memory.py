"""Memory lines: exact ones to the byte against hand-computed cases, estimated ones against their formulas."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from config_models import catalog_config, nested_text_config

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import (
    OVERHEAD_BYTES, Settings, SettingsError, estimate_memory, kv_cache, lora_adapter_breakdown,
    lora_adapter_params, settings_from_mapping, sliding_layers, validate_settings,
)
from lsp_count.core.precision import (
    dtype_from_config, normalize_dtype, quantized_bytes, tensor_bytes, weights_bytes,
)
from lsp_count.core.params import Tensor


def model(**config):
    report = analyze_text(json.dumps(config), "config.json")
    assert not report.has_errors, report.problems
    return report.models[0]


# hidden 64, 8 heads of 8, 2 kv heads, 3 layers, vocab 100, ffn 128: 117,696 parameters (by hand below).
LLAMA = dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=64, num_attention_heads=8,
             num_key_value_heads=2, num_hidden_layers=3, intermediate_size=128, vocab_size=100,
             tie_word_embeddings=False, torch_dtype="bfloat16")
LLAMA_PARAMS = 100 * 64 + 3 * (64 * 64 * 2 + 64 * 16 * 2 + 3 * 64 * 128 + 2 * 64) + 64 + 100 * 64

MIXTRAL = dict(model_type="mixtral", architectures=["MixtralForCausalLM"], hidden_size=32, num_attention_heads=4,
               num_key_value_heads=2, num_hidden_layers=2, intermediate_size=64, vocab_size=50,
               num_local_experts=4, num_experts_per_tok=2, torch_dtype="bfloat16")
MIXTRAL_PARAMS = 50 * 32 + 2 * (1024 + 512 + 512 + 1024 + 32 * 4 + 4 * (2 * 64 * 32 + 32 * 64) + 64) + 32 + 50 * 32
MIXTRAL_ACTIVE = 50 * 32 + 2 * (3072 + 128 + 2 * 6144 + 64) + 32 + 50 * 32

DEEPSEEK = dict(model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], hidden_size=64,
                num_attention_heads=4, num_hidden_layers=2, intermediate_size=128, moe_intermediate_size=32,
                n_routed_experts=4, num_experts_per_tok=2, first_k_dense_replace=1, n_shared_experts=1,
                q_lora_rank=16, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16,
                vocab_size=100, n_group=1, topk_group=1, torch_dtype="bfloat16")

MAMBA = dict(model_type="mamba", architectures=["MambaForCausalLM"], hidden_size=32, num_hidden_layers=3,
             state_size=8, expand=2, conv_kernel=4, vocab_size=100, torch_dtype="bfloat16")

GEMMA2 = dict(model_type="gemma2", architectures=["Gemma2ForCausalLM"], hidden_size=32, num_attention_heads=4,
              num_key_value_heads=2, head_dim=8, num_hidden_layers=4, intermediate_size=64, vocab_size=100,
              sliding_window=16, torch_dtype="bfloat16")


def line(report, name):
    found = report.line(name)
    assert found is not None, [l.name for l in report.lines]
    return found


# --- exact lines --------------------------------------------------------------------------------

def test_weights_bf16_and_fp32_exact():
    m = model(**LLAMA)
    assert m.tree.total == LLAMA_PARAMS == 117_696
    r = estimate_memory(m, Settings())
    w = line(r, "weights")
    assert (w.bytes, w.exact) == (2 * 117_696, True)
    assert estimate_memory(m, Settings(dtype="fp32")).line("weights").bytes == 4 * 117_696
    assert r.weights_bytes["float32"] == 4 * 117_696


def test_kv_cache_gqa_uses_kv_heads_and_head_dim():
    m = model(**LLAMA)
    kv = line(estimate_memory(m, Settings(context=10, batch=3)), "kv_cache")
    # 3 layers × 2 (k, v) × 2 kv heads × head_dim 8 × 10 tokens × batch 3 × 2 bytes
    assert (kv.bytes, kv.exact) == (3 * 2 * 2 * 8 * 10 * 3 * 2, True) == (5760, True)
    # head_dim set apart from hidden/heads (qwen3): 32, not 64/8
    q = model(model_type="qwen3", architectures=["Qwen3ForCausalLM"], hidden_size=64, num_attention_heads=8,
              num_key_value_heads=2, head_dim=32, num_hidden_layers=3, intermediate_size=128, vocab_size=100)
    assert line(estimate_memory(q, Settings(context=10, batch=3)), "kv_cache").bytes == 3 * 2 * 2 * 32 * 10 * 3 * 2
    # fp8 KV: one byte per value
    assert line(estimate_memory(m, Settings(context=10, batch=3, kv_dtype="fp8")), "kv_cache").bytes == 2880


def test_kv_cache_sliding_window_gemma2_pattern():
    m = model(**GEMMA2)
    assert sliding_layers(m.spec) == (True, False, True, False)
    per_token_layer = 2 * 2 * 8 * 2
    # layers 0, 2 hold the 16-token window, layers 1, 3 the whole 40-token context
    assert line(estimate_memory(m, Settings(context=40)), "kv_cache").bytes == (16 + 40 + 16 + 40) * per_token_layer == 7168
    assert line(estimate_memory(m, Settings(context=10)), "kv_cache").bytes == 4 * 10 * per_token_layer


def test_kv_cache_sliding_every_layer_and_explicit_layer_types():
    mistral = model(model_type="mistral", architectures=["MistralForCausalLM"], hidden_size=32, num_attention_heads=4,
                    num_key_value_heads=2, num_hidden_layers=3, intermediate_size=64, vocab_size=100, sliding_window=16)
    assert line(estimate_memory(mistral, Settings(context=40, batch=2)), "kv_cache").bytes == 3 * 16 * 2 * 2 * 8 * 2 * 2
    # Mistral configs that null the window attend to everything
    full = model(model_type="mistral", architectures=["MistralForCausalLM"], hidden_size=32, num_attention_heads=4,
                 num_key_value_heads=2, num_hidden_layers=3, intermediate_size=64, vocab_size=100, sliding_window=None)
    assert line(estimate_memory(full, Settings(context=40, batch=2)), "kv_cache").bytes == 3 * 40 * 2 * 2 * 8 * 2 * 2
    typed = model(model_type="qwen3", architectures=["Qwen3ForCausalLM"], hidden_size=64, num_attention_heads=8,
                  num_key_value_heads=2, head_dim=8, num_hidden_layers=2, intermediate_size=128, vocab_size=100,
                  use_sliding_window=True, sliding_window=16, layer_types=["sliding_attention", "full_attention"])
    assert line(estimate_memory(typed, Settings(context=40)), "kv_cache").bytes == (16 + 40) * 2 * 2 * 8 * 2
    # qwen2 without use_sliding_window: the window key alone does not make layers slide
    qwen2 = model(model_type="qwen2", architectures=["Qwen2ForCausalLM"], hidden_size=64, num_attention_heads=8,
                  num_key_value_heads=2, num_hidden_layers=2, intermediate_size=128, vocab_size=100, sliding_window=16)
    assert line(estimate_memory(qwen2, Settings(context=40)), "kv_cache").bytes == 2 * 40 * 2 * 2 * 8 * 2


def test_kv_cache_mla_holds_the_latent():
    m = model(**DEEPSEEK)
    kv = line(estimate_memory(m, Settings(context=100, batch=2)), "kv_cache")
    # 2 layers × (kv_lora_rank 32 + rope 8) × 100 tokens × batch 2 × 2 bytes — not 2·heads·head_dim
    assert (kv.bytes, kv.exact) == (2 * 40 * 100 * 2 * 2, True)


def test_ssm_state_is_constant_in_context():
    m = model(**MAMBA)
    # 3 layers × batch 2 × (conv inner 64 × 4 in bfloat16 + state 64 × 8 in float32), whatever the context
    expected = 3 * 2 * (64 * 4 * 2 + 64 * 8 * 4)
    for context in (10, 100_000):
        kv = line(estimate_memory(m, Settings(context=context, batch=2)), "kv_cache")
        assert (kv.bytes, kv.exact) == (expected, True)


def test_lora_on_a_mamba_model_leaves_out_what_peft_refuses():
    # peft refuses LoRA on a Mamba-based model's out_proj and conv1d, all-linear included
    # (tests/parity/test_lora_parity.py's test_mamba2_targets_match_peft checks peft says so).
    for config in (MAMBA, dict(MAMBA, model_type="mamba2", architectures=["Mamba2ForCausalLM"], num_heads=4,
                                head_dim=16, n_groups=1)):
        m = model(**config)
        for targets, said in ((None, ", which every linear layer includes: name the others (--lora-targets "),
                              (("in_proj", "out_proj"), ": name the others (--lora-targets in_proj)")):
            with pytest.raises(SettingsError) as exc:
                estimate_memory(m, Settings(mode="lora", lora_targets=targets))
            assert exc.value.flag == "--lora-targets"
            assert exc.value.message.startswith(f"peft refuses LoRA on out_proj of a Mamba-based model ({config['model_type']})"
                                                f"{said}"), exc.value.message
        report = estimate_memory(m, Settings(mode="lora", lora_targets=("in_proj",)))
        assert line(report, "adapters").bytes > 0


def test_kv_cache_tensor_parallel_splits_or_replicates_kv_heads():
    m = model(**LLAMA)  # 2 kv heads
    assert kv_cache(m, 10, 1, "bfloat16", tp=2).bytes == 3 * 2 * 1 * 8 * 10 * 2
    assert kv_cache(m, 10, 1, "bfloat16", tp=4).bytes == 3 * 2 * 1 * 8 * 10 * 2  # max(kv/TP, 1): replicated


def test_moe_counts_and_training_lines():
    m = model(**MIXTRAL)
    assert (m.tree.total, m.tree.active) == (MIXTRAL_PARAMS, MIXTRAL_ACTIVE) == (58_912, 34_336)
    r = estimate_memory(m, Settings(mode="train", context=8))
    n = MIXTRAL_PARAMS
    assert [(l.name, l.bytes) for l in r.lines[:4]] == [
        ("weights", 2 * n), ("gradients", 2 * n), ("master_weights", 4 * n), ("optimizer_states", 8 * n)]
    assert all(l.exact for l in r.lines[:4])
    # 2 + 2 + 4 + 8 = 16 bytes per parameter, not 8 and not fp16-only
    assert sum(l.bytes for l in r.lines[:4]) == 16 * n
    kv = line(estimate_memory(m, Settings(context=10)), "kv_cache")
    assert kv.bytes == 2 * 2 * 2 * 8 * 10 * 2


def test_pure_precision_trains_in_the_weights_dtype_without_a_master_copy():
    # torchtune's recipes, LitGPT's bf16-true: bf16 weights and gradients, AdamW's m and v in bf16
    # (torch keeps states in the parameters' dtype: tests/parity/test_optimizer_states_parity.py),
    # no fp32 copy; LoRA's adapters, their gradients and states in bf16 too.
    m = model(**LLAMA)
    n = LLAMA_PARAMS
    pure = estimate_memory(m, Settings(mode="train", pure_precision=True))
    assert (line(pure, "weights").bytes, line(pure, "gradients").bytes, line(pure, "optimizer_states").bytes) == \
        (2 * n, 2 * n, 4 * n)
    assert pure.line("master_weights") is None
    mixed = estimate_memory(m, Settings(mode="train"))
    assert line(mixed, "master_weights").bytes == 4 * n and line(mixed, "optimizer_states").bytes == 8 * n
    momentum = estimate_memory(m, Settings(mode="train", optimizer="sgd-momentum", pure_precision=True))
    assert line(momentum, "optimizer_states").bytes == 2 * n
    lora = estimate_memory(m, Settings(mode="lora", pure_precision=True))
    lora_mixed = estimate_memory(m, Settings(mode="lora"))
    assert 2 * line(lora, "adapters").bytes == line(lora_mixed, "adapters").bytes
    assert 2 * line(lora, "optimizer_states").bytes == line(lora_mixed, "optimizer_states").bytes
    fp32 = estimate_memory(m, Settings(mode="train", optimizer="adamw-fp32", pure_precision=True))
    assert line(fp32, "optimizer_states").bytes == 8 * n  # float32 weights: fp32 states either way
    assert settings_from_mapping({"pure-precision": "true"}).pure_precision is True


def test_optimizers():
    m = model(**LLAMA)
    n = LLAMA_PARAMS
    fp32 = estimate_memory(m, Settings(mode="train", optimizer="adamw-fp32"))
    assert (line(fp32, "weights").bytes, line(fp32, "gradients").bytes, line(fp32, "optimizer_states").bytes) == (4 * n, 4 * n, 8 * n)
    assert fp32.line("master_weights") is None
    sgd = estimate_memory(m, Settings(mode="train", optimizer="sgd"))  # torch's SGD without momentum keeps none
    assert line(sgd, "optimizer_states").bytes == 0
    momentum = estimate_memory(m, Settings(mode="train", optimizer="sgd-momentum"))
    assert line(momentum, "optimizer_states").bytes == 4 * n
    eight = estimate_memory(m, Settings(mode="train", optimizer="adamw-8bit"))
    # bitsandbytes Optimizer2State: tensors ≥ 4096 elements keep two uint8 states and two fp32 absmax
    # scales per block of 256; smaller ones (norms of 64, k/v of 64×16) keep fp32 states
    small = 3 * 2 * 64 + 64 + 3 * 2 * 64 * 16
    blocks = sum(mult * -(-t.numel // 256) for _p, t, mult, _f in m.tree.root.iter_tensors() if t.numel >= 4096)
    assert line(eight, "optimizer_states").bytes == 2 * (n - small) + 8 * small + 2 * 4 * blocks
    assert line(eight, "optimizer_states").exact


def test_zero_stages_shard_per_gpu():
    m = model(**MIXTRAL)
    n = MIXTRAL_PARAMS
    z1 = estimate_memory(m, Settings(mode="train", zero=1, gpus=4))
    assert (line(z1, "gradients").bytes, line(z1, "master_weights").bytes, line(z1, "optimizer_states").bytes) == (2 * n, n, 2 * n)
    z2 = estimate_memory(m, Settings(mode="train", zero=2, gpus=4))
    assert line(z2, "gradients").bytes == n // 2
    z3 = estimate_memory(m, Settings(mode="train", zero=3, gpus=4))
    layer = 27_840 * 2  # one gathered layer in bf16
    assert line(z3, "weights").bytes == 2 * n // 4 + layer


def test_lora_adapter_params_by_hand():
    m = model(**LLAMA)
    # r·(in + out) per adapted linear: q 64→64, k 64→16, v 64→16, o 64→64, gate/up 64→128, down 128→64
    per_layer = 4 * ((64 + 64) + (64 + 16) * 2 + (64 + 64) + 3 * (64 + 128))
    assert lora_adapter_params(m.tree, 4) == 3 * per_layer == 11_904
    assert lora_adapter_breakdown(m.tree, 4, ("q_proj", "v_proj")) == {"q_proj": 3 * 4 * 128, "v_proj": 3 * 4 * 80}
    r = estimate_memory(m, Settings(mode="lora", lora_rank=4))
    assert line(r, "adapters").bytes == 4 * 11_904
    assert line(r, "gradients").bytes == 4 * 11_904
    assert line(r, "optimizer_states").bytes == 8 * 11_904
    assert line(r, "weights").bytes == 2 * LLAMA_PARAMS  # frozen base at its storage precision
    assert r.line("master_weights") is None
    # 8-bit AdamW keeps fp32 states for adapter matrices under 4,096 elements (all of them at r=4 here) and
    # 8-bit states + absmax scales for larger ones (r=64: lora_A of q is 64×64 = 4,096)
    assert line(estimate_memory(m, Settings(mode="lora", lora_rank=4, optimizer="adamw-8bit")),
                "optimizer_states").bytes == 8 * 11_904

    def bnb(n):
        return 2 * n + 8 * -(-n // 256) if n >= 4096 else 8 * n
    shapes = [(64, 64), (64, 16), (64, 16), (64, 64), (64, 128), (64, 128), (128, 64)]  # (in, out) per layer
    expected = 3 * sum(bnb(64 * i) + bnb(64 * o) for i, o in shapes)
    assert line(estimate_memory(m, Settings(mode="lora", lora_rank=64, optimizer="adamw-8bit")),
                "optimizer_states").bytes == expected


def test_qlora_base_in_nf4_double_quant():
    m = model(**LLAMA)
    r = estimate_memory(m, Settings(mode="qlora", lora_rank=4))
    assert r.dtype == "nf4-dq"

    def nf4dq(n):
        blocks = -(-n // 64)
        return n // 2 + blocks + 4 * -(-blocks // 256) + 4
    per_layer = nf4dq(4096) * 2 + nf4dq(1024) * 2 + nf4dq(64 * 128) * 3 + 2 * 64 * 2
    # embeddings, head and norms stay bf16 under bitsandbytes
    assert line(r, "weights").bytes == 3 * per_layer + 2 * (6400 + 64 + 6400)


# --- estimated lines: the documented formulas ----------------------------------------------------

def test_activation_formulas():
    m = model(**LLAMA)
    s, b, h, a, L, V = 32, 2, 64, 8, 3, 100
    k, f = 2 * (64 // 8), 128  # two KV heads of 8; the MLP's width
    layer = 20 * h + 4 * k + 8 * f  # bytes per token a transformers decoder layer keeps for backward
    pure = estimate_memory(m, Settings(mode="train", context=s, batch=b, pure_precision=True))
    assert line(pure, "activations").bytes == L * s * b * layer
    assert not line(pure, "activations").exact
    mixed = estimate_memory(m, Settings(mode="train", context=s, batch=b))  # fp32 norms under autocast
    assert line(mixed, "activations").bytes == L * s * b * (layer + 10 * h)
    eager = estimate_memory(m, Settings(mode="train", context=s, batch=b, pure_precision=True, flash_attention=False))
    assert line(eager, "activations").bytes == L * (s * b * layer + 6 * a * s * s * b)
    ckpt = estimate_memory(m, Settings(mode="train", context=s, batch=b, pure_precision=True,
                                       gradient_checkpointing=True))
    assert line(ckpt, "activations").bytes == L * 2 * s * b * h + s * b * layer
    ckpt_mixed = estimate_memory(m, Settings(mode="train", context=s, batch=b, gradient_checkpointing=True))
    assert line(ckpt_mixed, "activations").bytes == L * 4 * s * b * h + s * b * (layer + 10 * h)  # an fp32 residual
    lora = estimate_memory(m, Settings(mode="lora", context=s, batch=b, lora_rank=4))
    adapted = 3 * h + h + 2 * h + f  # q, k, v, o, gate, up: h in; down: f in
    assert line(lora, "activations").bytes == L * s * b * (layer - 6 * h - 2 * f) + L * s * b * (3 * adapted + 7 * 2 * 4)
    assert line(pure, "logits").bytes == 12 * s * b * V
    assert line(pure, "overhead").bytes == OVERHEAD_BYTES
    tp = estimate_memory(m, Settings(mode="train", context=s, batch=b, tp=2, gpus=2, pure_precision=True))
    assert line(tp, "activations").bytes == L * s * b * layer // 2


def test_inference_activations_without_flash_attention_hold_one_layer_s_scores():
    m = model(**LLAMA)
    s, b, a = 64, 2, 8
    flash = estimate_memory(m, Settings(context=s, batch=b))
    eager = estimate_memory(m, Settings(context=s, batch=b, flash_attention=False))
    assert line(eager, "activations").bytes - line(flash, "activations").bytes == a * s * s * b * 10


def test_total_is_the_sum_of_lines():
    for cfg in (LLAMA, MIXTRAL, DEEPSEEK, MAMBA, GEMMA2):
        # (peft refuses LoRA on Mamba's out_proj, which every linear layer includes: its others named)
        targets = ("in_proj", "x_proj") if cfg is MAMBA else None
        for s in (Settings(), Settings(mode="train"), Settings(mode="qlora", lora_rank=4, lora_targets=targets)):
            r = estimate_memory(model(**cfg), s)
            assert r.total_bytes == sum(l.bytes for l in r.lines)


def test_tensor_and_pipeline_parallel_weights():
    m = model(**LLAMA)
    tp = line(estimate_memory(m, Settings(tp=2, gpus=2)), "weights").bytes
    norms = 3 * 2 * 64 + 64
    assert tp == (LLAMA_PARAMS - norms) + 2 * norms  # linear and embeddings halved (×2 bytes), norms replicated
    pp = line(estimate_memory(m, Settings(pp=3, gpus=3)), "weights").bytes
    per_layer = 2 * 34_944
    assert pp == per_layer + 2 * max(6400, 64 + 6400)


# --- precision --------------------------------------------------------------------------------

def test_quantized_layouts_per_tensor():
    t = Tensor("q_proj.weight", (4096, 4096), "linear", "q_proj")
    n = 4096 * 4096
    assert quantized_bytes(t, "nf4") == n // 2 + 4 * n // 64
    assert quantized_bytes(t, "nf4-dq") == n // 2 + n // 64 + 4 * (n // 64 // 256) + 4
    assert quantized_bytes(t, "int8-row") == n + 4 * 4096
    assert quantized_bytes(t, "q8_0") == 34 * n // 32
    assert quantized_bytes(t, "gptq") == n // 2 + 2 * 32 * 4096 + 32 * 4096 // 2 + 4 * 4096
    assert quantized_bytes(t, "fp8-block") == n + 4 * 32 * 32
    # bits per weight including scales, as the design notes quote them
    assert quantized_bytes(t, "nf4-dq") * 8 / n == pytest.approx(4.127, abs=0.001)
    assert quantized_bytes(t, "awq") * 8 / n == pytest.approx(4.156, abs=0.001)
    norm = Tensor("norm.weight", (4096,), "norm", "norm")
    assert tensor_bytes(norm, "nf4") == 2 * 4096
    assert tensor_bytes(norm, "gguf-q8_0") == 4 * 4096  # GGUF keeps 1-D tensors f32


def test_gguf_q4_k_m_matches_llama3_8b_file_size():
    report = analyze_text(open("examples/llama-3-8b/config.json").read(), "config.json")
    tree = report.models[0].tree
    # llama.cpp's Meta-Llama-3-8B Q4_K_M is 4.92 GB and Q8_0 8.54 GB (incl. a few MB of metadata)
    assert weights_bytes(tree, "gguf-q4_k_m") / 1e9 == pytest.approx(4.91, abs=0.02)
    assert weights_bytes(tree, "gguf-q8_0") / 1e9 == pytest.approx(8.53, abs=0.02)


def test_dtype_reading():
    assert normalize_dtype("torch.bfloat16") == "bfloat16"
    assert normalize_dtype("BF16") == "bfloat16"
    assert normalize_dtype("fp8") == "float8"
    bnb = {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
           "bnb_4bit_use_double_quant": True}
    assert dtype_from_config("float16", bnb)[0] == "nf4-dq"
    assert dtype_from_config("float16", {"quant_method": "gptq", "bits": 4})[0] == "gptq-4bit"
    assert dtype_from_config("float16", {"quant_method": "bitsandbytes", "load_in_8bit": True})[0] == "int8"
    assert dtype_from_config("torch.float16", None)[0] == "float16"
    m = model(**{**LLAMA, "torch_dtype": "float16", "quantization_config": {"quant_method": "awq", "bits": 4}})
    r = estimate_memory(m, Settings())
    assert r.dtype == "awq-4bit" and r.compute_dtype == "float16"


# --- settings -----------------------------------------------------------------------------------

# ViT-B/16 at 224: 14 × 14 patches and a class token (transformers' sequence: tests/parity/test_image_tokens_parity.py).
VIT = dict(model_type="vit", architectures=["ViTForImageClassification"], image_size=224, patch_size=16)


def test_an_image_encoder_s_context_is_its_tokens_per_image_unless_the_user_gives_one():
    vit = model(**VIT)
    report = estimate_memory(vit, Settings(mode="train", batch=32))
    assert report.settings.context == 14 * 14 + 1
    assert any(n.startswith("context 197: the tokens of one image") for n in report.notes), report.notes
    # Training activations scale with the tokens: 4,096 made ViT-B/16 at batch 32 need 76.5 GiB.
    at_4096 = estimate_memory(vit, Settings(mode="train", batch=32, context=4096))
    assert at_4096.settings.context == 4096 and not any(n.startswith("context ") for n in at_4096.notes)
    assert line(at_4096, "activations").bytes == line(report, "activations").bytes * 4096 // 197
    assert report.total_bytes < 6.5 * 2 ** 30 < 70 * 2 ** 30 < at_4096.total_bytes
    # DeiT adds a distillation token; DINOv2 with registers its register tokens; ViTMAE keeps a quarter of the patches.
    assert estimate_memory(model(model_type="deit", image_size=224, patch_size=16), Settings()).settings.context == 198
    assert estimate_memory(model(model_type="dinov2_with_registers", image_size=224, patch_size=14,
                                 num_register_tokens=4), Settings()).settings.context == 256 + 1 + 4
    assert estimate_memory(model(model_type="vit_mae", image_size=224, patch_size=16, mask_ratio=0.5),
                           Settings()).settings.context == 98 + 1


def test_a_text_encoder_s_context_is_its_position_table_where_that_is_shorter():
    # transformers runs no longer sequence (tests/parity/test_text_positions_parity.py): BERT's 512 rows, RoBERTa's
    # 514 less its padding offset (positions from pad_token_id + 1).
    bert = model(model_type="bert", architectures=["BertForSequenceClassification"])
    report = estimate_memory(bert, Settings(mode="train", batch=32))
    assert report.settings.context == 512
    assert "context 512: the longest sequence its position table takes; --context sets another" in report.notes
    roberta = model(model_type="roberta", max_position_embeddings=514, pad_token_id=1)
    assert estimate_memory(roberta, Settings()).settings.context == 512
    beyond = estimate_memory(roberta, Settings(context=4096))
    assert "context 4,096 is beyond max_position_embeddings less the padding offset (512)" in beyond.notes
    assert estimate_memory(bert, Settings(context=600)).notes[-1] == "context 600 is beyond max_position_embeddings (512)"
    # A table longer than the default, or none (ModernBERT's rotary positions): the default.
    assert estimate_memory(model(model_type="bert", max_position_embeddings=8192), Settings()).settings.context == 4096
    assert estimate_memory(model(model_type="modernbert"), Settings()).settings.context == 4096


# CLIP ViT-B/32: a 77-row text position table, 7 × 7 patches and a class token per image
# (transformers' lengths: tests/parity/test_dual_encoder_tokens_parity.py).
CLIP = dict(model_type="clip", architectures=["CLIPModel"])


def test_a_dual_encoder_s_towers_run_over_their_own_tokens():
    clip = model(**CLIP)
    settings = Settings(mode="train", batch=32)
    report = estimate_memory(clip, settings)
    assert report.settings.context == 77
    assert ("context 77: the longest sequence the text tower's position table takes (the vision tower runs over "
            "the 50 tokens of one image); --context sets another") in report.notes
    # Each tower's activations are those of the tower as a model of its own at its tokens; training keeps both,
    # inference runs one after the other. At 4,096 tokens for both, training needed 67.5 GiB of activations.
    text = model(model_type="clip_text_model", architectures=["CLIPTextModel"])
    vision = model(model_type="clip_vision_model", architectures=["CLIPVisionModel"])
    alone = [line(estimate_memory(m, settings), "activations").bytes for m in (text, vision)]
    assert estimate_memory(vision, settings).settings.context == 50
    assert line(report, "activations").bytes == sum(alone) < 2 * 2 ** 30
    assert line(report, "activations").detail.startswith("sum of text tower, 77 tokens: ")
    inference = [line(estimate_memory(m, Settings(batch=64)), "activations").bytes for m in (text, vision)]
    assert line(estimate_memory(clip, Settings(batch=64)), "activations").bytes == max(inference)
    # --context sets the text tower's tokens (the vision tower's stay one image's), no further than its table.
    longer = estimate_memory(clip, Settings(mode="train", batch=32, context=100))
    assert line(longer, "activations").bytes > line(report, "activations").bytes
    assert "context 100 is beyond text_config.max_position_embeddings (77)" in longer.notes
    # SigLIP's text table is 64 rows, its vision tower's 14 × 14 patches carry no class token.
    assert estimate_memory(model(model_type="siglip"), Settings()).settings.context == 64
    # CLIPForImageClassification has the vision tower alone.
    classifier = model(model_type="clip", architectures=["CLIPForImageClassification"])
    assert estimate_memory(classifier, Settings()).settings.context == 50


# LLaVA 1.5 on a small CLIP tower (224 / 16: 196 patches and a class token) and a small Llama.
LLAVA_VISION = dict(model_type="clip_vision_model", hidden_size=64, intermediate_size=256, num_hidden_layers=2,
                    num_attention_heads=4, image_size=224, patch_size=16)
LLAVA = dict(model_type="llava", architectures=["LlavaForConditionalGeneration"], vision_config=LLAVA_VISION,
             text_config={k: v for k, v in LLAMA.items() if k not in ("architectures", "torch_dtype")})


def test_a_vision_language_model_s_vision_tower_runs_over_one_image_a_sequence():
    llava = model(**LLAVA)
    vision = model(**LLAVA_VISION, architectures=["CLIPVisionModel"])
    text = model(**{**LLAMA, "architectures": ["LlamaModel"]})
    for mode, lora_targets in (("train", None), ("lora", None), ("lora", ("q_proj", "v_proj"))):
        settings = Settings(mode=mode, batch=4, context=1024, lora_targets=lora_targets)
        both = line(estimate_memory(llava, settings), "activations")
        tower = line(estimate_memory(vision, replace(settings, context=197)), "activations")
        lm = line(estimate_memory(text, settings), "activations")
        # Training keeps the tower's beside the language model's (each as the model alone would), at 197 tokens;
        # LoRA on every linear also adapts the projector's two (3·in + 2r per token each, r = 16).
        projector = 2 * (3 * 64 + 2 * 16) * 4 * 1024 if mode == "lora" and lora_targets is None else 0
        assert both.bytes == lm.bytes + tower.bytes + projector, mode
        assert "vision tower, one image a sequence, 197 tokens: " in both.detail
        assert "not counted" not in both.detail
    # A LoRA plan with no adapter in the tower (Llama's gate_proj; CLIP's MLP is fc1/fc2): frozen, it keeps nothing.
    frozen = line(estimate_memory(llava, Settings(mode="lora", batch=4, context=1024, lora_targets=("gate_proj",))),
                  "activations")
    assert frozen.bytes == line(estimate_memory(text, Settings(mode="lora", batch=4, context=1024,
                                                               lora_targets=("gate_proj",))), "activations").bytes
    assert "vision tower: no LoRA adapter in it" in frozen.detail
    # Inference runs the tower before the prefill: the larger of the two.
    served = Settings(batch=64, context=16)
    assert line(estimate_memory(llava, served), "activations").bytes == max(
        line(estimate_memory(vision, replace(served, context=197)), "activations").bytes,
        line(estimate_memory(model(**LLAMA), served), "activations").bytes)
    # Images of any size (Idefics 3's splits, set by its processor): the tower is not modelled, and the line says so.
    idefics = model(model_type="idefics3")
    assert "are not counted" in line(estimate_memory(idefics, Settings(mode="train")), "activations").detail


def test_llava_next_s_tower_runs_over_every_tile_of_its_largest_grid_pinpoint_and_the_whole_image():
    # 448 × 672 on 224-pixel tiles: 2 · 3 tiles and the whole image, each pass 197 tokens, as one batch of 6 + 1.
    nexts = model(**{**LLAVA, "model_type": "llava_next", "architectures": ["LlavaNextForConditionalGeneration"],
                     "image_grid_pinpoints": [[224, 448], [448, 672], [448, 224]]})
    vision = model(**LLAVA_VISION, architectures=["CLIPVisionModel"])
    text = model(**{**LLAMA, "architectures": ["LlamaModel"]})
    for mode in ("train", "lora"):
        settings = Settings(mode=mode, batch=3, context=1024, lora_targets=("q_proj", "v_proj"))
        both = line(estimate_memory(nexts, settings), "activations")
        tower = line(estimate_memory(vision, replace(settings, context=197, batch=3 * 7)), "activations")
        assert both.bytes == line(estimate_memory(text, settings), "activations").bytes + tower.bytes, mode
        assert ("vision tower, one image a sequence, up to 7 passes (6 tiles of its largest grid pinpoint, 448 × 672, "
                "and the whole image) of 197 tokens: ") in both.detail
    served = Settings(batch=2, context=16)
    assert line(estimate_memory(nexts, served), "activations").bytes == line(
        estimate_memory(vision, replace(served, context=197, batch=2 * 7)), "activations").bytes


def test_a_resnet_s_activations_are_its_feature_maps_per_image():
    # What autograd keeps, tensor by tensor (tests/parity/test_feature_maps_parity.py), at 224 × 224 by default.
    from lsp_count.core.layouts.convnet import feature_maps

    resnet = model(model_type="resnet", architectures=["ResNetForImageClassification"], num_labels=1000)
    train = estimate_memory(resnet, Settings(mode="train", batch=256))
    maps = feature_maps(resnet.spec, 224)
    assert train.settings.context == 224
    assert "context 224: a square image's side in pixels (ImageNet's; the config fixes none); --context sets another" \
        in train.notes
    assert line(train, "activations").bytes == 256 * (2 * maps.saved + 8 * maps.indices)
    assert 10 * 2 ** 30 < line(train, "activations").bytes < 11 * 2 ** 30  # ResNet-50, bf16, batch 256: 10.5 GiB
    assert not any("not modelled" in n for n in train.notes)
    # Larger images keep more; inference holds one layer's maps at a time.
    assert line(estimate_memory(resnet, Settings(mode="train", batch=256, context=320)), "activations").bytes > \
        2 * line(train, "activations").bytes
    served = estimate_memory(resnet, Settings(batch=256))
    assert line(served, "activations").bytes == 256 * 2 * maps.peak < line(train, "activations").bytes // 5
    # ConvNeXt's blocks too; not followed: a LoRA step (adapters on convolutions), Swin's stages.
    convnext = model(model_type="convnext")
    assert line(estimate_memory(convnext, Settings(mode="train", batch=8)), "activations").bytes == \
        8 * 2 * feature_maps(convnext.spec, 224).saved
    assert any("activations of a convolutional backbone (feature maps per image) in a LoRA step are not modelled yet"
               in n for n in estimate_memory(resnet, Settings(mode="lora")).notes)
    assert estimate_memory(model(model_type="swin"), Settings(mode="train")).line("activations") is None


def test_inference_keeps_the_logits_its_head_returns():
    # LlamaModel returns hidden states; LlamaForCausalLM keeps the last token's fp32 logits while it generates.
    bare = line(estimate_memory(model(**{**LLAMA, "architectures": ["LlamaModel"]}), Settings()), "activations")
    head = line(estimate_memory(model(**LLAMA), Settings()), "activations")
    assert head.bytes - bare.bytes == 4 * 100 and "logits" in head.detail and "logits" not in bare.detail
    # BertForMaskedLM returns every position's logits, in the compute dtype (a fill-mask batch of 64 × 512 tokens
    # over BERT's 30,522 words: 1.9 GiB); a classifier one score per label, no vocabulary's.
    served = Settings(batch=64, context=512)
    masked = line(estimate_memory(model(model_type="bert", architectures=["BertForMaskedLM"]), served), "activations")
    encoder = line(estimate_memory(model(model_type="bert", architectures=["BertModel"]), served), "activations")
    scores = line(estimate_memory(model(model_type="bert", architectures=["BertForSequenceClassification"]), served),
                  "activations")
    assert masked.bytes - encoder.bytes == 64 * 512 * 30522 * 2 and "V = 30,522" in masked.detail
    assert scores.bytes == encoder.bytes and "logits" not in scores.detail


def test_a_text_model_s_context_is_the_default_where_none_is_given():
    assert estimate_memory(model(**LLAMA), Settings()).settings.context == 4096
    assert Settings().context is None  # filled by the estimate (with_context), not before
    assert validate_settings(Settings(), model(**LLAMA)) is None



def test_settings_from_mapping_accepts_any_case():
    s = settings_from_mapping({"mode": "qlora", "kv-dtype": "fp8", "loraRank": 8, "lora_targets": "q_proj,v_proj",
                               "gradientCheckpointing": True, "context": "2048", "gpu": "RTX-4090"})
    assert (s.mode, s.kv_dtype, s.lora_rank, s.lora_targets, s.gradient_checkpointing, s.context) == (
        "qlora", "fp8", 8, ("q_proj", "v_proj"), True, 2048)
    with pytest.raises(SettingsError) as exc:
        settings_from_mapping({"batchSize": 1, "batch": -1})
    assert exc.value.flag == "batch"
    with pytest.raises(SettingsError) as exc:
        settings_from_mapping({"flash-attention": "maybe"})
    assert exc.value.flag == "flash-attention"
    with pytest.raises(SettingsError):
        settings_from_mapping({"gpu": "H100"}, strict=True)


@pytest.mark.parametrize("settings, flag", [
    (Settings(context=0), "--context"),
    (Settings(batch=-1), "--batch"),
    (Settings(mode="fly"), "--mode"),
    (Settings(dtype="int3"), "--dtype"),
    (Settings(kv_dtype="nf4"), "--kv-dtype"),
    (Settings(zero=4), "--zero"),
    (Settings(zero=3), "--zero"),  # inference has no training state to shard
    (Settings(mode="train", dtype="nf4"), "--dtype"),
    (Settings(mode="qlora", dtype="bfloat16"), "--dtype"),
    (Settings(tp=2), "--gpus"),
])
def test_impossible_settings_name_the_flag(settings, flag):
    with pytest.raises(SettingsError) as exc:
        validate_settings(settings)
    assert exc.value.flag == flag


def test_model_dependent_settings():
    m = model(**LLAMA)
    for s, flag in ((Settings(tp=3, gpus=3), "--tp"), (Settings(pp=4, gpus=4), "--pp"),
                    (Settings(mode="lora", lora_rank=17, lora_targets=("k_proj",)), "--lora-rank"),
                    (Settings(mode="lora", lora_targets=("query",)), "--lora-targets")):
        with pytest.raises(SettingsError) as exc:
            estimate_memory(m, s)
        assert exc.value.flag == flag
    # TP 4 over 2 kv heads replicates them: allowed
    estimate_memory(m, Settings(tp=4, gpus=4))


def test_a_one_layer_stack_is_one_layer():
    # num_hidden_layers: 1 gives a stack node that is not repeated: it is the layer (pipeline stages, ZeRO-3's
    # gathered layer); before, such a model had "0 layers".
    one = model(**{**LLAMA, "num_hidden_layers": 1})
    layer = 64 * 64 * 2 + 64 * 16 * 2 + 3 * 64 * 128 + 2 * 64
    with pytest.raises(SettingsError, match="more stages than the model's 1 layer$"):
        estimate_memory(one, Settings(pp=2, gpus=2))
    z3 = estimate_memory(one, Settings(mode="train", zero=3, gpus=2))
    n = 100 * 64 * 2 + layer + 64
    assert line(z3, "weights").bytes == 2 * n // 2 + 2 * layer


def test_lora_of_a_model_that_holds_its_own_adapters_takes_them_not_a_second_plan():
    # A Python file's get_peft_model (here written out: a frozen base, trainable adapters): under
    # --mode lora its frozen part is the base and its trainable tensors the adapters; no default
    # rank-16 plan is added on top of them.
    report = analyze_text("""
import torch.nn as nn


class Adapted(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(64, 64)
        self.base.requires_grad_(False)
        self.lora_A = nn.Linear(64, 4, bias=False)
        self.lora_B = nn.Linear(4, 64, bias=False)
""", "adapted.py")
    (m,) = report.models
    frozen, trainable = 64 * 64 + 64, 2 * 64 * 4
    assert (m.tree.total, m.tree.trainable) == (frozen + trainable, trainable)
    lora = estimate_memory(m, Settings(mode="lora"))
    assert lora.line("weights").bytes == 2 * frozen  # bfloat16
    assert lora.line("adapters").bytes == 4 * trainable and lora.line("gradients").bytes == 4 * trainable
    assert lora.line("optimizer_states").bytes == 8 * trainable
    assert "its own adapters" in lora.line("adapters").detail
    full = estimate_memory(m, Settings(mode="train"))  # unchanged: the trainable ones in training state
    assert full.line("gradients").bytes == 2 * trainable


def test_mxfp4_from_a_gpt_oss_config():
    """GPT-OSS checkpoints say quant_method mxfp4: the experts in MXFP4, the rest bf16; with
    ``dequantize`` transformers loads the experts as bf16."""
    assert dtype_from_config("bfloat16", {"quant_method": "mxfp4"})[0] == "mxfp4"
    assert dtype_from_config("bfloat16", {"quant_method": "mxfp4", "dequantize": True})[0] == "bfloat16"
    assert normalize_dtype("MXFP4") == "mxfp4"
    expert = Tensor("gate_up_proj", (2 * 2880, 2880), "expert", "experts")
    n = 2 * 2880 * 2880
    assert quantized_bytes(expert, "mxfp4") == n // 2 + n // 32  # 4.25 bits a weight
    assert tensor_bytes(expert, "mxfp4", 3) == 3 * (n // 2 + n // 32)
    assert tensor_bytes(Tensor("gate_up_proj_bias", (5760,), "bias", "experts"), "mxfp4") == 4 * 5760
    # attention and dense projections are not MXFP4 in transformers: only GPT-OSS's experts
    assert tensor_bytes(Tensor("q_proj.weight", (4096, 2880), "linear", "q_proj"), "mxfp4") == 2 * 4096 * 2880


def test_the_precision_view_shows_mxfp4_for_a_mixture_of_experts_model_alone():
    from lsp_count.core.precision import precision_view

    dense = {row.dtype for row in precision_view(model(**LLAMA).tree)}
    moe = {row.dtype for row in precision_view(model(model_type="gpt_oss", num_hidden_layers=1).tree)}
    assert "mxfp4" not in dense and "mxfp4" in moe


def test_exaone4_s_own_string_pattern_is_read_beside_its_layer_types():
    """EXAONE 4.0's configs write sliding_window_pattern "LLLG" with layer_types: the layer types
    say which layers slide; with no layer_types the class fails on a pattern that is no number."""
    types = ["sliding_attention"] * 3 + ["full_attention"]
    m = model(model_type="exaone4", num_hidden_layers=4, sliding_window_pattern="LLLG", layer_types=types)
    assert sliding_layers(m.spec) == (True, True, True, False)
    report = analyze_text(json.dumps({"model_type": "exaone4", "sliding_window_pattern": "LLLG"}), "config.json")
    assert not report.models and "LLLG" in report.problems[-1].message
    types = ["full_attention"] * 4  # Cohere2Config reads its pattern only where layer_types is absent too
    assert model(model_type="cohere2", num_hidden_layers=4, sliding_window_pattern=0, layer_types=types).tree.total
    report = analyze_text(json.dumps({"model_type": "cohere2", "sliding_window_pattern": 0}), "config.json")
    assert not report.models and "Cohere2Config" in report.problems[-1].message


@pytest.mark.parametrize("name", ["llava-hf/llava-1.5-7b-hf", "google/gemma-3-4b-pt", "Qwen/Qwen2-VL-7B-Instruct",
                                  "Qwen/Qwen2.5-VL-7B-Instruct"])
@pytest.mark.parametrize("checkpointing", [False, True])
def test_a_vision_language_model_trains_its_text_tokens_through_its_language_model_s_layers(name, checkpointing):
    """A training step's text tokens run through the language model's layers; the vision tower's
    blocks (over image patches, which a config does not count) were counted as text layers: 60
    for Qwen2-VL-7B's 28, doubling its activations."""
    config = catalog_config(name)
    composite = analyze_text(json.dumps(config), "config.json").models[0]
    text = composite.spec.subspecs["text"]
    text_only = model(**_text_config(config, text.model_type))
    settings = Settings(mode="train", context=1024, batch=2, gradient_checkpointing=checkpointing)
    ours = line(estimate_memory(composite, settings), "activations")
    alone = line(estimate_memory(text_only, settings), "activations")
    if not composite.spec.values.get("one_pass_per_image"):  # images of any size (Qwen2-VL): not modelled
        assert ours.bytes == alone.bytes
        assert "the language model's; the vision tower's, over image patches, are not counted" in ours.detail
        return
    # LLaVA 1.5's and Gemma 3's towers run once per image (one a sequence here), each as the tower alone would at
    # its own tokens (its context by default): LLaVA's 577 (336 / 14, a class token), Gemma 3's 4,096 (896 / 14).
    vision = model(**config["vision_config"])
    tower = estimate_memory(vision, replace(settings, context=None))
    assert tower.settings.context == {"llava-hf/llava-1.5-7b-hf": 577, "google/gemma-3-4b-pt": 4096}[name]
    assert ours.bytes == alone.bytes + line(tower, "activations").bytes
    assert ours.detail.startswith("language model: ") and "(the language model's); vision tower" in ours.detail


def _text_config(config: dict, model_type: str) -> dict:
    """The composite's text model as a config of its own (Qwen-VL's text keys are at the top level)."""
    nested = config.get("text_config") or nested_text_config(config)["text_config"]
    return {**nested, "model_type": model_type, "torch_dtype": config.get("torch_dtype", "bfloat16")}


@pytest.mark.parametrize("mode", ["train", "lora"])
def test_albert_keeps_activations_for_every_application_of_its_shared_layers(mode):
    """ALBERT stores num_hidden_groups × inner_group_num layers and applies them num_hidden_layers times;
    each application keeps its own activations for the backward pass (the estimate had one layer's)."""
    config = catalog_config("albert/albert-base-v2")
    settings = Settings(mode=mode, context=512, batch=2)
    twelve = line(estimate_memory(model(**config), settings), "activations")
    six = line(estimate_memory(model(**{**config, "num_hidden_layers": 6}), settings), "activations")
    assert twelve.bytes == 2 * six.bytes
    assert "× 12 layers (ALBERT's shared layers, as often as they are applied)" in twelve.detail
    one_stored = model(**config).tree.root.child("layers")
    assert one_stored.repeat == 1


@pytest.mark.parametrize(("dtype", "scheme"), [("nf4", None), ("nf4-dq", None), ("int8", None), ("awq-4bit", None),
                                              ("float8", None), ("gptq-4bit", "gptq")])
def test_t5_wo_stays_unquantized_where_transformers_quantizer_leaves_keep_in_fp32_modules(dtype, scheme):
    """bitsandbytes, AWQ and fp8 pass a class's _keep_in_fp32_modules to get_modules_to_not_convert: T5's wo
    stays in the compute dtype, float32 when that is float16 (the dtype plan); GPTQ's path quantizes it."""
    from lsp_count.core.precision import quantized_bytes

    t5 = model(model_type="t5", num_layers=2, d_model=64, d_ff=128, num_heads=2, d_kv=32, vocab_size=100)
    tensors = [(t, n) for _p, t, n, _f in t5.tree.root.iter_tensors()]
    wo = [(t, n) for t, n in tensors if t.module == "wo"]
    assert wo and all(t.keep_fp32 == ("float16",) for t, _n in wo)
    for compute, element in (("bfloat16", 2), ("float16", 4)):
        rest = sum(tensor_bytes(t, dtype, n, compute) for t, n in tensors if t.module != "wo")
        kept = sum(n * (quantized_bytes(t, scheme) if scheme else t.numel * element) for t, n in wo)
        assert weights_bytes(t5.tree, dtype, compute) == rest + kept, compute


def test_bitsandbytes_leaves_falcons_linear_subclass_in_the_compute_dtype_and_says_so() -> None:
    # FalconLinear subclasses nn.Linear; transformers' bitsandbytes integration replaces nn.Linear itself alone, so a
    # 4-bit Falcon keeps every projection in bfloat16 (tests/parity/test_bnb_parity.py loads one).
    # 2 layers: query_key_value 64·(64 + 2·16), dense 64·64, dense_h_to_4h and dense_4h_to_h 64·256 each.
    falcon = {"model_type": "falcon", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
              "vocab_size": 100}
    tree = analyze_text(json.dumps(falcon), "/nonexistent/config.json").models[0].tree
    projections = 2 * (64 * 96 + 64 * 64 + 2 * 64 * 256)
    assert weights_bytes(tree, "nf4", "bfloat16") == weights_bytes(tree, "bfloat16") == 2 * tree.total
    assert sum(t.numel * m for _p, t, m, _f in tree.root.iter_tensors()
               if t.module in tree.unreplaced_linears) == projections
    model = analyze_text(json.dumps(falcon), "/nonexistent/config.json").models[0]
    report = estimate_memory(model, Settings(mode="qlora"))
    assert any("bitsandbytes leaves dense, dense_4h_to_h, dense_h_to_4h, query_key_value in bfloat16" in n
               for n in report.notes), report.notes


def test_no_family_s_default_model_says_its_kv_cache_is_not_modelled_for_want_of_a_layout() -> None:
    # Every layout is either generating (a KV cache) or an encoder (text, vision and audio towers, Q-Formers,
    # resamplers: "encoder model: no KV cache"); a tower on its own used to read "KV cache for the pixtral layout is
    # not modelled yet". (Causal LMs on the encoder layout have their caches: _decoder_mode_cache.)
    from lsp_count.core.families import registry

    unmodelled = {}
    for model_type in registry():
        report = analyze_text(json.dumps({"model_type": model_type}), "/nonexistent/config.json")
        if not report.models:
            continue
        notes = estimate_memory(report.models[0], Settings()).notes
        said = [n for n in notes if "layout is not modelled yet" in n]
        if said:
            unmodelled[model_type] = said
    assert not unmodelled
    tower = analyze_text(json.dumps({"model_type": "pixtral"}), "/nonexistent/config.json").models[0]
    assert "encoder model: no KV cache" in estimate_memory(tower, Settings()).notes


def test_bert_as_a_decoder_caches_its_self_attention_and_without_is_decoder_nothing() -> None:
    # BertLMHeadModel with is_decoder: transformers' DynamicCache holds every layer's keys and values, 12 heads × 64
    # wide; without it transformers turns use_cache off. (tests/parity/test_decoder_mode_cache_parity.py: against the
    # cache of a forward pass, for the 15 families that behave so.)
    def cache(is_decoder: bool, **settings: int):
        config = {"model_type": "bert", "architectures": ["BertLMHeadModel"], "is_decoder": is_decoder}
        model = analyze_text(json.dumps(config), "/nonexistent/config.json").models[0]
        return estimate_memory(model, Settings(context=4096, **settings)).line("kv_cache")

    assert cache(True).bytes == 12 * 2 * 12 * 64 * 4096 * 2 and cache(True).exact
    assert cache(True, batch=3, tp=4, gpus=4).bytes == 12 * 2 * 3 * 64 * 4096 * 3 * 2
    assert cache(True, pp=5, gpus=5).bytes == 3 * 2 * 12 * 64 * 4096 * 2 and not cache(True, pp=5, gpus=5).exact
    assert cache(False).bytes == 0 and "unless the config's is_decoder is true" in cache(False).detail


def test_xlm_s_forward_pass_holds_a_cache_that_its_generation_does_not_keep() -> None:
    # XLMWithLMHeadModel builds a cache inside each forward pass and returns none: at the peak of a forward pass over
    # the context, every layer's keys and values (12 layers, 16 heads × 128), said so in the line.
    model = analyze_text(json.dumps({"model_type": "xlm"}), "/nonexistent/config.json").models[0]
    line = estimate_memory(model, Settings(context=4096)).line("kv_cache")
    assert line.bytes == 12 * 2 * 16 * 128 * 4096 * 2 and line.exact
    assert line.detail.endswith("(held while a forward pass runs: generation keeps none between steps)")
