"""The cache a hybrid SSM / attention model (Jamba, Bamba, Granite 4 hybrid, Nemotron-H, Falcon-H1, Qwen3-Next,
Qwen3.5 and Qwen3.5-MoE text, Kimi Linear, Ling's bailing hybrid, OLMo Hybrid, LFM2, LFM2-MoE, MiniMax) or a Mamba
variant (Falcon-Mamba) keeps while it generates, against transformers 5: per attention layer its keys and values (2 ·
kv_heads · head_dim per token, in the model's dtype; a latent attention its latent and rotated key), per recurrent
layer its convolution's last inputs (in the model's dtype) and its recurrent state (in float32; LFM2's short
convolutions keep none; MiniMax's lightning attention no convolution, its state in the model's dtype), whatever the
prompt's length. The memory estimate's kv_cache line is the bytes of every tensor of transformers' cache after a
forward pass of a model in bfloat16, over random small configs, for several prompt lengths and batches; and it grows
with the context only by the attention layers. Also LoRA on these families against peft: the module names its
targets see, layers numbered across kinds."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_ssm_state_parity import _cache_bytes

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

FAMILIES = ["jamba", "bamba", "granitemoehybrid", "nemotron_h", "falcon_h1", "qwen3_next", "lfm2", "falcon_mamba",
            "qwen3_5_text", "qwen3_5_moe_text", "kimi_linear", "lfm2_moe", "olmo_hybrid",
            "bailing_hybrid", "minimax", "lfm3", "lara_mini"]


def _generates(config: dict) -> dict:
    """The config as a causal LM whose forward pass runs here: its LM class; experts run one by one (torch's
    grouped_mm wants 16-byte strides on a CPU); Mamba-2 groups that divide the heads."""
    from lsp_count.core.families import find_family

    family = find_family(config["model_type"])
    arch = next(a for a, head in family.heads.items() if head == "causal_lm")  # (Qwen3.5: not the base's prefix)
    return {**config, "architectures": [arch], "experts_implementation": "eager"}


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_hybrid_cache_is_what_transformers_cache_holds(model_type: str) -> None:
    if model_type not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type}")

    @settings(max_examples=8, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        config = _generates(config)
        heads = config.get("mamba_n_heads", config.get("mamba_num_heads", 1))
        groups = config.get("mamba_n_groups", config.get("n_groups", 1))
        assume(isinstance(heads, int) and isinstance(groups, int) and heads % groups == 0)
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        for batch, tokens in ((1, 3), (2, 7)):
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            try:
                held = _cache_bytes(config, batch, tokens)
            except (ValueError, AttributeError) as e:
                # transformers 5.25 builds a hybrid with no attention layer, but its forward pass fails making
                # the attention mask from a cache of linear-attention layers only; and a Nemotron-H whose first
                # block is an MLP or experts (a cache layer that holds nothing): not judged here.
                assume("can only be called on Attention layers" not in str(e) and "DummyLayer" not in str(e))
                raise
            assert line.bytes == held, (json.dumps(config), line)

    check()


def test_only_the_attention_layers_grow_with_the_context() -> None:
    """Jamba with one attention layer in four: 8 layers, 2 of them attention (2 kv heads of 4 wide), 6 Mamba
    (16 wide mixer, state 3, kernel 4). Per sequence: attention 2 layers × 2 × 2 × 4 values per token × 2 bytes;
    Mamba 6 × (16 × 4 × 2 bytes of conv state + 16 × 3 × 4 bytes of float32 recurrent state)."""
    config = {"model_type": "jamba", "architectures": ["JambaForCausalLM"], "vocab_size": 64, "hidden_size": 8,
              "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 8, "intermediate_size": 16,
              "attn_layer_period": 4, "attn_layer_offset": 1, "num_experts": 2, "mamba_d_state": 3,
              "mamba_d_conv": 4, "mamba_expand": 2}
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    (model,) = report.models
    ssm = 6 * (16 * 4 * 2 + 16 * 3 * 4)
    for tokens in (1, 100, 4096):
        line = estimate_memory(model, Settings(context=tokens, batch=3)).line("kv_cache")
        assert line is not None and line.bytes == 3 * (ssm + 2 * 2 * 2 * 4 * 2 * tokens)


# --- LoRA on the hybrids: the module names peft sees (model.layers.N.<mixer or feed-forward>.<linear>) ---------------

LORA_CONFIGS = {
    "jamba": dict(architectures=["JambaForCausalLM"], vocab_size=64, hidden_size=16, num_attention_heads=2,
                  num_key_value_heads=1, num_hidden_layers=4, intermediate_size=24, attn_layer_period=2,
                  attn_layer_offset=1, num_experts=4, mamba_d_state=4, tie_word_embeddings=False),
    "bamba": dict(architectures=["BambaForCausalLM"], vocab_size=64, hidden_size=16, num_attention_heads=2,
                  num_key_value_heads=1, num_hidden_layers=3, intermediate_size=24, attn_layer_indices=[1],
                  mamba_n_heads=4, mamba_d_state=4, mamba_n_groups=2),
    "granitemoehybrid": dict(architectures=["GraniteMoeHybridForCausalLM"], vocab_size=64, hidden_size=16,
                             num_attention_heads=2, num_key_value_heads=1, num_hidden_layers=3, intermediate_size=24,
                             layer_types=["mamba", "attention", "mamba"], mamba_n_heads=4, mamba_d_state=4,
                             num_local_experts=4, shared_intermediate_size=8),
    "nemotron_h": dict(architectures=["NemotronHForCausalLM"], vocab_size=64, hidden_size=16, num_attention_heads=2,
                       num_key_value_heads=1, head_dim=8, intermediate_size=24, mamba_num_heads=4, mamba_head_dim=6,
                       n_groups=2, ssm_state_size=3, n_routed_experts=4, moe_intermediate_size=8,
                       moe_shared_expert_intermediate_size=8, hybrid_override_pattern="M*-E", moe_latent_size=4),
    "falcon_h1": dict(architectures=["FalconH1ForCausalLM"], vocab_size=64, hidden_size=16, num_attention_heads=2,
                      num_key_value_heads=1, num_hidden_layers=2, intermediate_size=24, mamba_d_ssm=24,
                      mamba_n_heads=4, mamba_n_groups=2, mamba_d_state=3),
    "qwen3_next": dict(architectures=["Qwen3NextForCausalLM"], vocab_size=50, hidden_size=16, num_attention_heads=2,
                       num_key_value_heads=1, head_dim=8, num_hidden_layers=3, intermediate_size=24,
                       linear_conv_kernel_dim=3, linear_key_head_dim=4, linear_value_head_dim=6,
                       linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4, num_experts_per_tok=2,
                       moe_intermediate_size=8, shared_expert_intermediate_size=8, full_attention_interval=2,
                       mlp_only_layers=[2]),
    "qwen3_5_text": dict(architectures=["Qwen3_5ForCausalLM"], vocab_size=50, hidden_size=16, num_attention_heads=2,
                         num_key_value_heads=1, head_dim=8, num_hidden_layers=3, intermediate_size=24,
                         linear_conv_kernel_dim=3, linear_key_head_dim=4, linear_value_head_dim=6,
                         linear_num_key_heads=2, linear_num_value_heads=4, full_attention_interval=2),
    "qwen3_5_moe_text": dict(architectures=["Qwen3_5MoeForCausalLM"], vocab_size=50, hidden_size=16,
                             num_attention_heads=2, num_key_value_heads=1, head_dim=8, num_hidden_layers=3,
                             linear_conv_kernel_dim=3, linear_key_head_dim=4, linear_value_head_dim=6,
                             linear_num_key_heads=2, linear_num_value_heads=4, num_experts=4, num_experts_per_tok=2,
                             moe_intermediate_size=8, shared_expert_intermediate_size=8,
                             layer_types=["linear_attention", "full_attention", "linear_attention"]),
    "kimi_linear": dict(architectures=["KimiLinearForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16,
                        num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=3, intermediate_size=24,
                        q_lora_rank=6, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4,
                        linear_head_dim=4, linear_num_heads=2, linear_conv_kernel_dim=3, num_experts=4,
                        num_experts_per_tok=2, moe_intermediate_size=8,
                        layer_types=["linear_attention", "full_attention", "linear_attention"]),
    "bailing_hybrid": dict(architectures=["BailingHybridForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16,
                           num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=3, intermediate_size=24,
                           q_lora_rank=6, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4,
                           head_dim=4, short_conv_kernel_size=3, num_experts=4, num_experts_per_tok=2,
                           moe_intermediate_size=8, n_group=1, topk_group=1, first_k_dense_replace=1,
                           layer_types=["linear_attention", "full_attention", "linear_attention"]),
    "lfm2": dict(architectures=["Lfm2ForCausalLM"], vocab_size=50, hidden_size=16, num_attention_heads=2,
                 num_key_value_heads=1, num_hidden_layers=3, intermediate_size=24, full_attn_idxs=[1],
                 block_multiple_of=4, tie_word_embeddings=False),
    "lfm2_moe": dict(architectures=["Lfm2MoeForCausalLM"], vocab_size=50, hidden_size=16, num_attention_heads=2,
                     num_key_value_heads=1, num_hidden_layers=3, intermediate_size=24, num_dense_layers=1,
                     layer_types=["conv", "full_attention", "conv"], num_experts=4, num_experts_per_tok=2,
                     moe_intermediate_size=8, tie_word_embeddings=False),
    "olmo_hybrid": dict(architectures=["OlmoHybridForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16,
                        num_attention_heads=2, num_key_value_heads=1, num_hidden_layers=3, intermediate_size=24,
                        layer_types=["linear_attention", "full_attention", "linear_attention"], linear_num_key_heads=2,
                        linear_num_value_heads=4, linear_key_head_dim=4, linear_value_head_dim=6,
                        linear_conv_kernel_dim=3),
    "minimax": dict(architectures=["MiniMaxForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16,
                    num_attention_heads=2, num_key_value_heads=1, head_dim=8, num_hidden_layers=3, intermediate_size=24,
                    num_local_experts=4, num_experts_per_tok=2, block_size=4,
                    layer_types=["linear_attention", "full_attention", "linear_attention"]),
    "falcon_mamba": dict(architectures=["FalconMambaForCausalLM"], vocab_size=64, hidden_size=16, num_hidden_layers=2,
                         tie_word_embeddings=False),
    "lfm3": dict(architectures=["Lfm3ForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16, num_attention_heads=2,
                 num_key_value_heads=1, head_dim=8, num_hidden_layers=5, intermediate_size=24, conv_L_cache=3,
                 tie_word_embeddings=False),
    "lara_mini": dict(architectures=["LaraMiniForCausalLM"], vocab_size=50, pad_token_id=0, hidden_size=16,
                      num_attention_heads=2, num_key_value_heads=1, head_dim=8, num_hidden_layers=5,
                      linear_num_key_heads=1, linear_num_value_heads=2, linear_key_head_dim=4, linear_value_head_dim=4,
                      linear_conv_kernel_dim=3, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=8,
                      shared_expert_intermediate_size=8),
}


@pytest.mark.parametrize("model_type", sorted(LORA_CONFIGS))
def test_lora_on_the_hybrids_is_peft_s(tmp_path, model_type: str) -> None:
    """all-linear, and a regex naming each linear module by its full name (the layers numbered as transformers
    numbers them, whatever kind each is) or a few layers: LoRA's parameters as peft's, or peft's refusal (out_proj
    and conv1d on its Mamba-based model types) as an error."""
    import re

    from transformers import CONFIG_MAPPING

    from .test_lora_parity import analyze_any, lora_yaml, peft_outcome

    config = {"model_type": model_type, **LORA_CONFIGS[model_type]}
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(CONFIG_MAPPING[model_type].from_dict(dict(config)))
    names = sorted({n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)} - {"lm_head"})
    targets = ["all-linear", *(re.escape(n) for n in names), r"model\.layers\.[01]\..*", r".*\.layers\.(1|2)\..*_proj"]
    for target in targets:
        expected = peft_outcome(config, 2, target)
        report = analyze_any(tmp_path, config, lora_yaml(2, target))
        if isinstance(expected, str):
            assert report.has_errors, (target, expected)
            continue
        assert not report.has_errors, (target, report.problems)
        (adapted,) = report.models
        assert (adapted.tree.total, adapted.tree.trainable) == expected, target
