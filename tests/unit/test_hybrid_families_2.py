"""More hybrid families (qwen3_5_text, qwen3_5_moe_text, kimi_linear, bailing_hybrid, olmo_hybrid, lfm2_moe), without
torch:
small configs counted by hand (each total also what transformers 5.25 builds on the meta device), the class
defaults' totals (taken there once), configs their config classes refuse, and the cache the memory estimate holds
(what transformers' cache holds: tests/parity/test_hybrid_state_parity.py)."""

from __future__ import annotations

import pytest
from config_models import errors
from config_models import model as count

from lsp_count.core.memory import Settings, estimate_memory

# Shared sizes: vocab 50, hidden 16; 3 layers; a gated MLP 24 wide; two RMSNorms per layer; the head untied.
EMBED = 50 * 16
MLP = 3 * 16 * 24  # gate, up, down = 1,152
NORMS = 2 * 16

# Gated DeltaNet: 2 key heads of 4 (key width 8), 4 value heads of 6 (value width 24), conv kernel 3.
GDN_KEYS = dict(linear_conv_kernel_dim=3, linear_key_head_dim=4, linear_value_head_dim=6, linear_num_key_heads=2,
                linear_num_value_heads=4)
DELTANET = (40 * 3  # depthwise conv over q, k (2 × 8) and v (24), no bias
            + 16 * 40 + 16 * 24  # Qwen3.5: in_proj_qkv, in_proj_z (OLMo Hybrid: q, k, v; g)
            + 16 * 4 + 16 * 4  # in_proj_b, in_proj_a (a_proj, b_proj): one per value head
            + 4 + 4  # dt_bias, A_log
            + 6  # the gated RMSNorm over one value head
            + 24 * 16)  # out_proj (o_proj)

# Qwen3.5 (text): layers Gated DeltaNet, gated attention, Gated DeltaNet (full_attention_interval 2); attention 2 heads
# of 8, 1 key/value head, q_proj twice as wide (its gate), q/k norms over a head.
QWEN3_5 = {"model_type": "qwen3_5_text", "architectures": ["Qwen3_5ForCausalLM"], "vocab_size": 50, "hidden_size": 16,
           "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "num_hidden_layers": 3,
           "intermediate_size": 24, "full_attention_interval": 2, **GDN_KEYS}
GATED_ATTENTION = 16 * 2 * 16 + 16 * 8 + 16 * 8 + 16 * 16 + 8 + 8  # q (and its gate), k, v, o, q/k norms = 1,040
QWEN3_5_PARAMS = EMBED + 2 * (DELTANET + MLP + NORMS) + (GATED_ATTENTION + MLP + NORMS) + 16 + EMBED

# Qwen3.5-MoE (text): the same layers, each with 4 experts (top 2) 8 wide, a gated shared expert 8 wide.
QWEN3_5_MOE = {**{k: v for k, v in QWEN3_5.items() if k != "intermediate_size"}, "model_type": "qwen3_5_moe_text",
               "architectures": ["Qwen3_5MoeForCausalLM"], "num_experts": 4, "num_experts_per_tok": 2,
               "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8}
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj, down_proj = 384
QWEN3_5_EXPERTS = 4 * 16 + 4 * EXPERT + 3 * 16 * 8 + 16  # router, experts, shared expert, its gate = 2,000
QWEN3_5_MOE_PARAMS = EMBED + 2 * (DELTANET + QWEN3_5_EXPERTS + NORMS) + (GATED_ATTENTION + QWEN3_5_EXPERTS + NORMS) \
    + 16 + EMBED

# Kimi Linear: layers delta attention, latent attention, delta attention; a dense MLP in layer 0
# (first_k_dense_replace 1), experts in 1 and 2 (4, top 2, 8 wide, one shared expert 8 wide); the head never tied.
KIMI = {"model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"], "vocab_size": 50, "pad_token_id": 0,
        "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 3,
        "intermediate_size": 24, "q_lora_rank": 6, "kv_lora_rank": 8, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4,
        "v_head_dim": 4, "linear_head_dim": 4, "linear_num_heads": 2, "linear_conv_kernel_dim": 3, "num_experts": 4,
        "num_experts_per_tok": 2, "moe_intermediate_size": 8,
        "layer_types": ["linear_attention", "full_attention", "linear_attention"]}
MLA = (16 * 6 + 6  # q_a_proj, q_a_layernorm
       + 6 * 2 * (4 + 4)  # q_b_proj: 2 heads of nope 4 + rope 4
       + 16 * (8 + 4) + 8  # kv_a_proj_with_mqa (latent 8 + rope 4), kv_a_layernorm
       + 8 * 2 * (4 + 4)  # kv_b_proj: 2 heads of nope 4 + value 4
       + 2 * 4 * 16)  # o_proj
KDA = (3 * 16 * 8  # q, k, v: 2 heads of 4
       + 24 * 3  # depthwise conv over q, k and v, no bias
       + 16 * 4 + 4 * 8 + 8 + 2  # forget gate: f_a_proj, f_b_proj, dt_bias per channel, A_log per head
       + 16 * 2  # b_proj
       + 16 * 4 + 4 * 8  # g_a_proj, g_b_proj
       + 4  # the gated RMSNorm over one head
       + 8 * 16)  # o_proj
KIMI_EXPERTS = 4 * 16 + 4 * EXPERT + 3 * 16 * 8  # router (a parameter; its correction bias a buffer), experts, shared
KIMI_PARAMS = EMBED + (KDA + MLP + NORMS) + (MLA + KIMI_EXPERTS + NORMS) + (KDA + KIMI_EXPERTS + NORMS) + 16 + EMBED

# Ling's bailing hybrid: Kimi Linear's layers and sizes (delta attention 2 heads of head_dim 4, conv kernel
# short_conv_kernel_size 3), its latent attention with a gate per head (g_proj), its delta attention's forget and
# output gates one projection each (f_proj, g_proj: 16 → 8), A_log one per head.
BAILING = {**{k: v for k, v in KIMI.items() if not k.startswith("linear_")}, "model_type": "bailing_hybrid",
           "architectures": ["BailingHybridForCausalLM"], "head_dim": 4, "short_conv_kernel_size": 3,
           "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}
BAILING_KDA = 3 * 16 * 8 + 24 * 3 + 16 * 8 + 8 + 2 + 16 * 2 + 16 * 8 + 4 + 8 * 16  # = 886
BAILING_PARAMS = EMBED + (BAILING_KDA + MLP + NORMS) + (MLA + 16 * 2 + KIMI_EXPERTS + NORMS) \
    + (BAILING_KDA + KIMI_EXPERTS + NORMS) + 16 + EMBED

# OLMo Hybrid: layers Gated DeltaNet (its projections apart), attention, Gated DeltaNet; attention 2 heads of 8,
# 1 key/value head, q/k norms over all heads.
OLMO_HYBRID = {"model_type": "olmo_hybrid", "architectures": ["OlmoHybridForCausalLM"], "vocab_size": 50,
               "pad_token_id": 0, "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1,
               "num_hidden_layers": 3, "intermediate_size": 24,
               "layer_types": ["linear_attention", "full_attention", "linear_attention"], **GDN_KEYS}
OLMO_ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16 + 16 + 8  # q, k, v, o, q_norm (16), k_norm (8) = 792
OLMO_HYBRID_PARAMS = EMBED + 2 * (DELTANET + MLP + NORMS) + (OLMO_ATTENTION + MLP + NORMS) + 16 + EMBED

# LFM2-MoE: layers conv, attention, conv (layer_types); a SwiGLU MLP 24 wide in layer 0 (num_dense_layers 1), experts
# (4, top 2, 8 wide; a sigmoid router whose expert_bias is a buffer) in 1 and 2.
LFM2_MOE = {"model_type": "lfm2_moe", "architectures": ["Lfm2MoeForCausalLM"], "vocab_size": 50, "hidden_size": 16,
            "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3, "intermediate_size": 24,
            "num_dense_layers": 1, "layer_types": ["conv", "full_attention", "conv"], "num_experts": 4,
            "num_experts_per_tok": 2, "moe_intermediate_size": 8, "tie_word_embeddings": False}
SHORT_CONV = 16 * 3 + 16 * 48 + 16 * 16  # conv (kernel 3), in_proj (B, C, x), out_proj = 1,072
LFM2_ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16 + 8 + 8  # q, k, v, out_proj, q/k layernorms = 784
LFM2_EXPERTS = 4 * 16 + 4 * EXPERT
LFM2_MOE_PARAMS = EMBED + (SHORT_CONV + MLP + NORMS) + (LFM2_ATTENTION + LFM2_EXPERTS + NORMS) \
    + (SHORT_CONV + LFM2_EXPERTS + NORMS) + 16 + EMBED


def test_small_configs_counted_by_hand() -> None:
    assert DELTANET == 1_670 and MLA == 654 and KDA == 822
    assert count(QWEN3_5).tree.total == QWEN3_5_PARAMS == 9_548  # transformers: 9,548
    moe = count(QWEN3_5_MOE).tree
    assert moe.total == QWEN3_5_MOE_PARAMS == 12_092  # transformers: 12,092
    assert moe.active == QWEN3_5_MOE_PARAMS - 3 * 2 * EXPERT == 9_788  # 2 of 4 experts idle in each of 3 layers
    kimi = count(KIMI).tree
    assert kimi.total == KIMI_PARAMS == 9_130  # transformers: 9,130
    assert kimi.active == KIMI_PARAMS - 2 * 2 * EXPERT
    assert count(BAILING).tree.total == BAILING_PARAMS == 9_290  # transformers: 9,290
    assert count(OLMO_HYBRID).tree.total == OLMO_HYBRID_PARAMS == 9_300  # transformers: 9,300
    assert count(LFM2_MOE).tree.total == LFM2_MOE_PARAMS == 8_992  # transformers: 8,992


def test_layer_patterns_and_keys() -> None:
    # Qwen3.5: a layer type that is not linear_attention is gated attention (sliding_attention here)
    assert count({**QWEN3_5, "layer_types": ["sliding_attention", "linear_attention", "full_attention"]}).tree.total \
        == EMBED + (DELTANET + MLP + NORMS) + 2 * (GATED_ATTENTION + MLP + NORMS) + 16 + EMBED
    # Kimi Linear: linear_attn_config's sizes win over the top-level keys, and its layer lists (numbered from 1)
    # stand where layer_types is not given; tie_word_embeddings is not read
    nested = {k: v for k, v in KIMI.items() if k not in ("layer_types", "linear_head_dim")}
    nested.update(linear_head_dim=99, tie_word_embeddings=True,
                  linear_attn_config={"head_dim": 4, "full_attn_layers": [2], "kda_layers": [1, 3]})
    assert count(nested).tree.total == KIMI_PARAMS
    # its attribute_map spellings: num_local_experts (4 here) loses to num_experts; mlp_layer_types over
    # first_k_dense_replace (all dense: 3 MLPs)
    assert count({**KIMI, "num_local_experts": 7}).tree.total == KIMI_PARAMS
    dense = count({**KIMI, "mlp_layer_types": ["dense"] * 3, "first_k_dense_replace": 0}).tree.total
    assert dense == EMBED + 2 * (KDA + MLP + NORMS) + (MLA + MLP + NORMS) + 16 + EMBED
    # OLMo Hybrid with no layer_types: attention every fourth layer, or the last where none would be (layer 2 of 3);
    # its linear-attention widths by default: as many key and value heads as attention heads (2), keys
    # int(0.75 × 16 / 2) = 6 wide (key width 12), values twice as wide (value width 24); transformers: 9,480
    default_types = {k: v for k, v in OLMO_HYBRID.items() if k != "layer_types"}
    assert count(default_types).tree.total == OLMO_HYBRID_PARAMS
    widths = {k: v for k, v in OLMO_HYBRID.items() if not k.startswith("linear_") or k == "linear_conv_kernel_dim"}
    gdn = (48 * 3  # conv over q, k (2 × 12) and v (24)
           + 2 * 16 * 12 + 16 * 24 + 2 * 16 * 2 + 16 * 24  # q, k; v; a, b; g
           + 2 + 2 + 12 + 24 * 16)  # A_log, dt_bias, o_norm, o_proj
    assert count(widths).tree.total == EMBED + 2 * (gdn + MLP + NORMS) + (OLMO_ATTENTION + MLP + NORMS) + 16 + EMBED \
        == 9_480


def test_class_defaults() -> None:
    # transformers 5.25 on the meta device
    assert count({"model_type": "qwen3_5_text", "architectures": ["Qwen3_5ForCausalLM"]}).tree.total == 8_953_803_264
    assert count({"model_type": "qwen3_5_text",
                  "architectures": ["Qwen3_5TextForSequenceClassification"]}).tree.total == 7_936_692_736
    assert count({"model_type": "qwen3_5_moe_text",
                  "architectures": ["Qwen3_5MoeForCausalLM"]}).tree.total == 34_660_610_688
    assert count({"model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"]}).tree.total == 49_133_074_464
    assert count({"model_type": "bailing_hybrid",
                  "architectures": ["BailingHybridForCausalLM"]}).tree.total == 124_414_191_072
    assert count({"model_type": "olmo_hybrid", "architectures": ["OlmoHybridForCausalLM"]}).tree.total == 7_430_870_688
    # (Lfm2MoeConfig has no default layer_types: 32 layers, attention in every fourth)
    assert count({"model_type": "lfm2_moe", "architectures": ["Lfm2MoeForCausalLM"],
                  "layer_types": ["conv", "conv", "conv", "full_attention"] * 8}).tree.total == 11_280_731_136


@pytest.mark.parametrize("config,says", [
    ({**QWEN3_5, "full_attention_interval": None}, '"full_attention_interval": null'),
    ({**QWEN3_5_MOE, "layer_types": ["linear_attention"]}, "layer_types has 1 entries for 3 layers"),
    ({**KIMI, "layer_types": None, "linear_attn_config": None}, '"linear_attn_config": null'),
    ({**KIMI, "layer_types": None, "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [1]}},
     "must name each of the 3 layers"),
    ({**KIMI, "linear_attn_config": {"head_dim": 4.0}}, "linear_attn_config's head_dim (4.0)"),
    ({**KIMI, "num_local_experts": None}, '"num_local_experts": expected a whole number, got null'),
    ({**KIMI, "num_experts": 4.0}, '"num_experts": expected a whole number, got 4.0'),
    ({**KIMI, "mlp_layer_types": ["dense", "moe", "sparse"]}, "'moe' is not sparse or dense"),
    ({**BAILING, "layer_types": None, "layer_group_size": 0}, "layer_group_size 0 with no layer_types"),
    ({**BAILING, "swiglu_limits": [7.0, 7.0]}, "swiglu_limits must hold one limit per layer (3)"),
    ({**BAILING, "num_experts_per_tok": None}, '"num_experts_per_tok": expected a whole number, got null'),
    ({**BAILING, "qk_rope_head_dim": 5}, "even rotary dimension"),
    ({**OLMO_HYBRID, "layer_types": ["full_attention"] * 3}, "at least one linear_attention layer"),
    ({**OLMO_HYBRID, "layer_types": ["linear_attention"] * 3}, "at least one attention layer"),
    ({k: v for k, v in LFM2_MOE.items() if k != "layer_types"}, "layer_types is not set"),
])
def test_configs_transformers_refuses(config, says) -> None:
    problems = errors(config)
    assert problems and says in problems[0].message, problems


def test_nulls_and_floats_the_classes_keep() -> None:
    # Kimi Linear: num_experts (attribute_map's, set unchecked) null or a float where no layer has experts
    no_experts = {**KIMI, "mlp_layer_types": ["dense"] * 3}
    total = count(no_experts).tree.total
    assert count({**no_experts, "num_experts": None}).tree.total == total
    assert not errors({**no_experts, "num_experts": 4.0})
    # v_head_dim null where no layer is latent attention
    all_kda = {**KIMI, "layer_types": ["linear_attention"] * 3}
    assert count({**all_kda, "v_head_dim": None}).tree.total == count(all_kda).tree.total
    assert errors({**KIMI, "v_head_dim": None})
    # OLMo Hybrid: a null linear width is the class's default
    assert count({**OLMO_HYBRID, "linear_key_head_dim": None}).tree.total == \
        count({**OLMO_HYBRID, "linear_key_head_dim": 6}).tree.total


def test_the_cache_holds_each_layer_kind_s_state() -> None:
    tokens = 10
    # Qwen3.5 and OLMo Hybrid: 1 attention layer's keys and values (1 kv head × 8, bfloat16); 2 Gated DeltaNet
    # layers' conv (40 channels × 3) and state (4 value heads × 4 × 6, float32)
    gdn = 2 * (40 * 3 * 2 + 4 * 4 * 6 * 4)
    for config in (QWEN3_5, QWEN3_5_MOE, OLMO_HYBRID):
        line = estimate_memory(count(config), Settings(context=tokens, batch=1)).line("kv_cache")
        assert line is not None and line.exact and line.bytes == 2 * 8 * tokens * 2 + gdn
    # Kimi Linear: the latent attention layer caches its latent (8) and rotated key (4) per token, not keys and
    # values per head; the 2 delta-attention layers their conv (3 × 8 channels × 3) and state (2 heads × 4 × 4)
    line = estimate_memory(count(KIMI), Settings(context=tokens, batch=2)).line("kv_cache")
    assert line is not None and line.bytes == 2 * ((8 + 4) * tokens * 2 + 2 * (24 * 3 * 2 + 2 * 4 * 4 * 4))
    assert "latent attention" in line.detail
    # Ling's: the same latent (8 + 4 per token) and delta-attention states (conv 24 channels × 3, 2 heads × 4 × 4)
    line = estimate_memory(count(BAILING), Settings(context=tokens, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == (8 + 4) * tokens * 2 + 2 * (24 * 3 * 2 + 2 * 4 * 4 * 4)
    # LFM2-MoE: 1 attention layer's keys and values; 2 conv layers' last 3 inputs over the hidden width, no state
    line = estimate_memory(count(LFM2_MOE), Settings(context=tokens, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 2 * 8 * tokens * 2 + 2 * 16 * 3 * 2
