"""Hybrid SSM / attention families (jamba, bamba, granitemoehybrid, nemotron_h, falcon_h1, qwen3_next,
lfm2) and Falcon-Mamba, without torch: small
configs counted by hand (each total also what transformers 5.25 builds on the meta device), the class
defaults' totals (taken there once), configs their config classes refuse, and the cache the memory estimate
holds: keys and values for the attention layers only, a fixed SSM state for the Mamba layers."""

from __future__ import annotations

import pytest
from config_models import errors
from config_models import model as count

from lsp_count.core.memory import Settings, estimate_memory

# Shared sizes: vocab 50, hidden 16; attention 2 heads of 8, 1 key/value head (no biases); MLP 24 wide (gated).
EMBED = 50 * 16
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o = 768
MLP = 3 * 16 * 24  # gate, up, down = 1,152
EXPERTS_4 = 4 * 16 + 4 * (2 * 24 * 16 + 16 * 24)  # router (4 × 16) + 4 experts (gate_up, down) = 4,672
NORMS = 2 * 16  # two RMSNorms per layer

# Jamba: 4 layers, attention at i % 2 == 1 (1 and 3), Mamba at 0 and 2; experts (4, top 2) at i % 2 == 1 (the
# default expert period 2, offset 1), a gated MLP elsewhere. The Mamba mixer: expand 2 (32 wide), state 4,
# conv kernel 4, dt rank ceil(16 / 16) = 1, conv bias, no projection bias.
JAMBA = {"model_type": "jamba", "architectures": ["JambaForCausalLM"], "vocab_size": 50, "hidden_size": 16,
         "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 4, "intermediate_size": 24,
         "attn_layer_period": 2, "attn_layer_offset": 1, "num_experts": 4, "mamba_d_state": 4}
JAMBA_MIXER = (16 * 64  # in_proj: x and the gate
               + 32 * 4 + 32  # depthwise conv1d and its bias
               + 32 * (1 + 2 * 4)  # x_proj: dt, B, C
               + 1 * 32 + 32  # dt_proj with its bias
               + 32 * 4 + 32  # A_log, D
               + 32 * 16  # out_proj
               + 1 + 4 + 4)  # RMS norms over dt, B and C
JAMBA_PARAMS = EMBED + 2 * (JAMBA_MIXER + MLP + NORMS) + 2 * (ATTENTION + EXPERTS_4 + NORMS) + 16 + EMBED

# Bamba: 3 layers, attention at 1, Mamba-2 at 0 and 2 (4 heads of 32 / 4 = 8, 2 groups of state 4, kernel 4).
BAMBA = {"model_type": "bamba", "architectures": ["BambaForCausalLM"], "vocab_size": 50, "hidden_size": 16,
         "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3, "intermediate_size": 24,
         "attn_layer_indices": [1], "mamba_n_heads": 4, "mamba_n_groups": 2, "mamba_d_state": 4}
BAMBA_CHANNELS = 32 + 2 * 2 * 4  # the conv's: x, B, C = 48


def mamba2_mixer(channels: int) -> int:
    return (16 * (32 + channels + 4)  # in_proj: gate, x·B·C, dt per head
            + channels * 4 + channels  # depthwise conv1d and its bias
            + 3 * 4  # dt_bias, A_log, D per head
            + 32  # the gated RMSNorm
            + 32 * 16)  # out_proj


BAMBA_PARAMS = EMBED + 2 * (mamba2_mixer(BAMBA_CHANNELS) + MLP + NORMS) + (ATTENTION + MLP + NORMS) + 16 + EMBED

# Granite 4 hybrid: layer_types mamba, attention, mamba (legacy names); Mamba-2 of 1 group; every layer 4 experts
# (top 2) as wide as intermediate_size beside a shared MLP 8 wide (input_linear 16 → 2 × 8, output_linear 8 → 16).
GRANITE = {"model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"], "vocab_size": 50,
           "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
           "intermediate_size": 24, "layer_types": ["mamba", "attention", "mamba"], "mamba_n_heads": 4,
           "mamba_d_state": 4, "num_local_experts": 4, "shared_intermediate_size": 8}
SHARED = 16 * 16 + 8 * 16
GRANITE_FFN = EXPERTS_4 + SHARED
GRANITE_PARAMS = EMBED + 2 * (mamba2_mixer(32 + 2 * 4) + GRANITE_FFN + NORMS) + (ATTENTION + GRANITE_FFN + NORMS) + 16 + EMBED

# Falcon-Mamba: 2 blocks of a Mamba mixer (expand 2, state 4; its dt/B/C norms have no weights) and an RMSNorm,
# the head tied by default.
FALCON_MAMBA = {"model_type": "falcon_mamba", "architectures": ["FalconMambaForCausalLM"], "vocab_size": 50,
                "hidden_size": 16, "num_hidden_layers": 2, "state_size": 4}
FALCON_MAMBA_PARAMS = EMBED + 2 * (JAMBA_MIXER - 9 + 16) + 16


# Nemotron-H: its default blocks M, E, *, - (Mamba-2, experts, attention, MLP), each behind one RMSNorm. Mamba-2:
# 4 heads of 6 (24 wide), 2 groups of state 3; experts: 4 (top 2) of up 16 → 8 and down 8 → 16 (no gate) beside a
# shared MLP 8 wide; the MLP: up and down 24 wide (squared ReLU, no gate); the head never tied.
NEMOTRON_H = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"], "vocab_size": 50,
              "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
              "intermediate_size": 24, "mamba_num_heads": 4, "mamba_head_dim": 6, "n_groups": 2, "ssm_state_size": 3,
              "n_routed_experts": 4, "moe_intermediate_size": 8, "moe_shared_expert_intermediate_size": 8}
NEMOTRON_MIXER = 16 * (24 + 36 + 4) + 36 * 4 + 36 + 3 * 4 + 24 + 24 * 16  # channels 24 + 2·2·3 = 36
NEMOTRON_EXPERTS = 4 * 16 + 4 * (8 * 16 + 16 * 8) + (16 * 8 + 8 * 16)  # router, experts, shared MLP
NEMOTRON_H_PARAMS = EMBED + (NEMOTRON_MIXER + 16) + (NEMOTRON_EXPERTS + 16) + (ATTENTION + 16) + (2 * 16 * 24 + 16) \
    + 16 + EMBED

# Falcon-H1: 2 layers, each attention and a Mamba-2 mixer side by side (mamba_d_ssm 24: 4 heads of 6, 2 groups of
# state 3; its gated RMSNorm by mamba_rms_norm, out_proj's bias by projectors_bias), then a gated MLP.
FALCON_H1 = {"model_type": "falcon_h1", "architectures": ["FalconH1ForCausalLM"], "vocab_size": 50, "hidden_size": 16,
             "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 2, "intermediate_size": 24,
             "mamba_d_ssm": 24, "mamba_n_heads": 4, "mamba_n_groups": 2, "mamba_d_state": 3, "mamba_rms_norm": True,
             "projectors_bias": True}
FALCON_H1_PARAMS = EMBED + 2 * (ATTENTION + NEMOTRON_MIXER + 16 + MLP + NORMS) + 16 + EMBED


# Qwen3-Next: layers Gated DeltaNet, gated attention, Gated DeltaNet (full_attention_interval 2); experts (4, top 2,
# 8 wide, a gated shared expert 8 wide) but in mlp_only_layers [2]. Gated DeltaNet: 2 key heads of 4, 4 value
# heads of 6, conv kernel 3.
QWEN3_NEXT = {"model_type": "qwen3_next", "architectures": ["Qwen3NextForCausalLM"], "vocab_size": 50,
              "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
              "num_hidden_layers": 3, "intermediate_size": 24, "linear_conv_kernel_dim": 3, "linear_key_head_dim": 4,
              "linear_value_head_dim": 6, "linear_num_key_heads": 2, "linear_num_value_heads": 4, "num_experts": 4,
              "num_experts_per_tok": 2, "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8,
              "full_attention_interval": 2, "mlp_only_layers": [2]}
DELTANET = (40 * 3  # conv over q, k (2 × 8) and v (24): no bias
            + 16 * (2 * 8 + 2 * 24)  # in_proj_qkvz
            + 16 * 2 * 4  # in_proj_ba
            + 4 + 4  # dt_bias, A_log
            + 6  # the gated RMSNorm over one value head
            + 24 * 16)  # out_proj
GATED_ATTENTION = 16 * 2 * 16 + 16 * 8 + 16 * 8 + 16 * 16 + 8 + 8  # q (and its gate), k, v, o, q/k norms
QWEN3_NEXT_MOE = 4 * 16 + 4 * (2 * 8 * 16 + 16 * 8) + 3 * 16 * 8 + 16  # router, experts, shared expert and its gate
QWEN3_NEXT_PARAMS = EMBED + (DELTANET + QWEN3_NEXT_MOE + NORMS) + (GATED_ATTENTION + QWEN3_NEXT_MOE + NORMS) \
    + (DELTANET + MLP + NORMS) + 16 + EMBED


# LFM2: 3 layers, attention at 1 (full_attn_idxs), short convolutions at 0 and 2 (kernel 3, no biases); its MLP
# int(2 × 24 / 3) = 16 wide (× 1.0, rounded up to a multiple of 4); the head tied by default.
LFM2 = {"model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"], "vocab_size": 50, "hidden_size": 16,
        "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3, "intermediate_size": 24,
        "full_attn_idxs": [1], "conv_L_cache": 3, "block_multiple_of": 4}
LFM2_CONV = 16 * 3 + 16 * 48 + 16 * 16  # conv, in_proj (B, C, x), out_proj
LFM2_PARAMS = EMBED + 2 * (LFM2_CONV + 3 * 16 * 16 + NORMS) + (ATTENTION + 8 + 8 + 3 * 16 * 16 + NORMS) + 16


def test_small_configs_counted_by_hand() -> None:
    assert JAMBA_MIXER == 2_217 and mamba2_mixer(BAMBA_CHANNELS) == 2_140
    jamba = count(JAMBA).tree
    assert jamba.total == JAMBA_PARAMS == 19_362  # transformers: 19,362
    # routed experts: 2 of 4 run per token, in each of the 2 MoE layers
    assert jamba.active == JAMBA_PARAMS - 2 * 2 * (2 * 24 * 16 + 16 * 24) == 14_754
    assert count(BAMBA).tree.total == BAMBA_PARAMS == 10_216  # transformers: 10,216
    assert count(GRANITE).tree.total == GRANITE_PARAMS == 21_592  # transformers: 21,592
    assert count(FALCON_MAMBA).tree.total == FALCON_MAMBA_PARAMS == 5_264  # transformers: 5,264
    assert NEMOTRON_MIXER == 1_624
    nemotron = count(NEMOTRON_H).tree
    assert nemotron.total == NEMOTRON_H_PARAMS == 6_184  # transformers: 6,184
    assert nemotron.active == NEMOTRON_H_PARAMS - 2 * (8 * 16 + 16 * 8) == 5_672
    assert count(FALCON_H1).tree.total == FALCON_H1_PARAMS == 8_800  # transformers: 8,800
    assert DELTANET == 1_670
    assert count(LFM2).tree.total == LFM2_PARAMS == 6_144  # transformers: 6,144
    qwen = count(QWEN3_NEXT).tree
    assert qwen.total == QWEN3_NEXT_PARAMS == 11_244  # transformers: 11,244
    assert qwen.active == QWEN3_NEXT_PARAMS - 2 * 2 * (2 * 8 * 16 + 16 * 8) == 9_708


def test_nemotron_h_blocks() -> None:
    # hybrid_override_pattern where layers_block_type is not given (transformers 8,032 with a latent width 4 and
    # MLP biases); num_hidden_layers is not read, nor tie_word_embeddings
    latent = {**NEMOTRON_H, "hybrid_override_pattern": "MEM*-E", "moe_latent_size": 4, "mlp_bias": True}
    assert count(latent).tree.total == 8_032
    assert count({**NEMOTRON_H, "num_hidden_layers": 9, "tie_word_embeddings": True}).tree.total == NEMOTRON_H_PARAMS
    # legacy names, the mamba_ spellings winning (1 group, kernel 2), biases on in_proj and out_proj: 5,456
    legacy = {**NEMOTRON_H, "layers_block_type": ["mamba", "attention", "mamba"], "mamba_n_groups": 1,
              "mamba_d_conv": 2, "use_bias": True}
    assert count(legacy).tree.total == 5_456
    assert errors({**NEMOTRON_H, "hybrid_override_pattern": "M?"})
    assert errors({**NEMOTRON_H, "layers_block_type": ["mamba", "sliding_attention"]})


def test_layer_patterns() -> None:
    # Jamba: attention everywhere (period 1) and no experts (one expert is a dense MLP): a llama of 4 layers
    llama_like = {**JAMBA, "attn_layer_period": 1, "attn_layer_offset": 0, "num_experts": 1}
    assert count(llama_like).tree.total == EMBED + 4 * (ATTENTION + MLP + NORMS) + 16 + EMBED
    # Bamba with no attn_layer_indices: all Mamba-2; an index past the last layer is no layer
    assert count({**BAMBA, "attn_layer_indices": [7]}).tree.total == \
        EMBED + 3 * (mamba2_mixer(BAMBA_CHANNELS) + MLP + NORMS) + 16 + EMBED
    # Granite without layer_types: every layer Mamba-2; without experts: the shared MLP alone
    no_types = {k: v for k, v in GRANITE.items() if k != "layer_types"}
    assert count(no_types).tree.total == EMBED + 3 * (mamba2_mixer(40) + GRANITE_FFN + NORMS) + 16 + EMBED
    assert count({**GRANITE, "num_local_experts": 0}).tree.total == GRANITE_PARAMS - 3 * EXPERTS_4
    # The bare models have no head; Falcon-Mamba's intermediate_size, when written, is the mixer's width
    assert count({**JAMBA, "architectures": ["JambaModel"]}).tree.total == JAMBA_PARAMS - EMBED
    assert count({**FALCON_MAMBA, "intermediate_size": 32}).tree.total == FALCON_MAMBA_PARAMS


def test_class_defaults() -> None:
    # transformers 5.25 on the meta device
    assert count({"model_type": "jamba", "architectures": ["JambaForCausalLM"]}).tree.total == 51_570_323_328
    assert count({"model_type": "jamba", "architectures": ["JambaForSequenceClassification"]}).tree.total == 51_301_896_064
    assert count({"model_type": "bamba", "architectures": ["BambaForCausalLM"]}).tree.total == 9_992_765_440
    assert count({"model_type": "granitemoehybrid",
                  "architectures": ["GraniteMoeHybridForCausalLM"]}).tree.total == 38_601_064_448
    assert count({"model_type": "falcon_mamba", "architectures": ["FalconMambaForCausalLM"]}).tree.total == 159_308_544
    assert count({"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"]}).tree.total == 1_968_355_712
    assert count({"model_type": "falcon_h1", "architectures": ["FalconH1ForCausalLM"]}).tree.total == 8_514_961_408
    assert count({"model_type": "qwen3_next", "architectures": ["Qwen3NextForCausalLM"]}).tree.total == 79_674_391_296
    assert count({"model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"]}).tree.total == 2_705_497_600


@pytest.mark.parametrize("config,says", [
    ({**JAMBA, "attn_layer_offset": 2}, "attn_layer_offset (2) must be smaller than attn_layer_period (2)"),
    ({**JAMBA, "expert_layer_offset": 3}, "expert_layer_offset (3) must be smaller than expert_layer_period (2)"),
    ({**JAMBA, "num_experts": None}, '"num_experts": null'),
    ({**BAMBA, "mamba_n_heads": 5}, "mamba_n_heads (5) does not divide"),
    ({**BAMBA, "mamba_d_head": 4}, "mamba_d_head (4) × mamba_n_heads (4) is not mamba_expand × hidden_size (32)"),
    ({**GRANITE, "layer_types": ["mamba", "attention"]}, "layer_types has 2 entries for 3 layers"),
    ({**GRANITE, "layer_types": ["mamba", "attention", "dense"]}, "'dense' is not a layer type"),
    ({**BAMBA, "head_dim": None}, '"head_dim": null'),  # read by its attention layer
])
def test_configs_transformers_refuses(config, says) -> None:
    problems = errors(config)
    assert problems and says in problems[0].message, problems


def test_a_null_read_only_by_absent_layers_is_kept() -> None:
    # Bamba with no attention layer never reads head_dim; Jamba with no expert layer never reads num_local_experts
    assert count({**BAMBA, "attn_layer_indices": [], "head_dim": None}).tree.total == \
        EMBED + 3 * (mamba2_mixer(BAMBA_CHANNELS) + MLP + NORMS) + 16 + EMBED
    no_experts = {**JAMBA, "num_hidden_layers": 1, "num_local_experts": None}
    no_experts.pop("num_experts")
    assert count(no_experts).tree.total == EMBED + JAMBA_MIXER + MLP + NORMS + 16 + EMBED


def test_the_cache_keys_attention_layers_and_a_fixed_state_for_ssm_layers() -> None:
    model = count(BAMBA)
    # per sequence: 1 attention layer × 2 (k, v) × 1 kv head × 8 × tokens × 2 bytes; 2 Mamba-2 layers × (conv 48
    # channels × 4 × 2 bytes + recurrent 32 × 4 state in float32)
    ssm = 2 * (BAMBA_CHANNELS * 4 * 2 + 32 * 4 * 4)
    for context, batch in ((100, 1), (10_000, 3)):
        line = estimate_memory(model, Settings(context=context, batch=batch)).line("kv_cache")
        assert line is not None and line.exact
        assert line.bytes == batch * (ssm + 2 * 8 * context * 2)
        assert "1 attention layers" in line.detail and "2 recurrent layers" in line.detail
    # Falcon-H1: every layer both, keys and values and a Mamba-2 state (conv 36 × 4, state 4 × 6 × 3)
    line = estimate_memory(count(FALCON_H1), Settings(context=10, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 2 * (2 * 8 * 10 * 2 + 36 * 4 * 2 + 24 * 3 * 4)
    # Nemotron-H: its MLP and experts blocks cache nothing
    line = estimate_memory(count(NEMOTRON_H), Settings(context=10, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 2 * 8 * 10 * 2 + 36 * 4 * 2 + 24 * 3 * 4
    # Qwen3-Next: 1 attention layer's keys and values; 2 Gated DeltaNet layers' conv (40 × 3) and state (4 value
    # heads × 4 × 6, float32)
    line = estimate_memory(count(QWEN3_NEXT), Settings(context=10, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 2 * 8 * 10 * 2 + 2 * (40 * 3 * 2 + 4 * 4 * 6 * 4)
    # LFM2: 1 attention layer's keys and values; 2 conv layers' last 3 inputs over the hidden width, no state
    line = estimate_memory(count(LFM2), Settings(context=10, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 2 * 8 * 10 * 2 + 2 * 16 * 3 * 2
    # Falcon-Mamba: the mamba layout's state alone (conv 32 × 4 in bfloat16, state 32 × 4 in float32 per layer)
    line = estimate_memory(count(FALCON_MAMBA), Settings(context=5_000, batch=2)).line("kv_cache")
    assert line is not None and line.bytes == 2 * 2 * (32 * 4 * 2 + 32 * 4 * 4)


def test_a_float8_kv_cache_leaves_the_convolution_state_in_the_model_s_dtype() -> None:
    # --kv-dtype float8 quantizes the attention layers' keys and values (1 byte); the Mamba layers' convolution
    # state stays bfloat16 (2 bytes), their recurrent state float32.
    line = estimate_memory(count(BAMBA), Settings(context=100, batch=1, kv_dtype="float8")).line("kv_cache")
    assert line is not None and line.bytes == 2 * (BAMBA_CHANNELS * 4 * 2 + 32 * 4 * 4) + 2 * 8 * 100 * 1
    assert f"conv {BAMBA_CHANNELS:,}×4 in bfloat16" in line.detail
    line = estimate_memory(count(FALCON_MAMBA), Settings(context=5_000, batch=2, kv_dtype="float8")).line("kv_cache")
    assert line is not None and line.bytes == 2 * 2 * (32 * 4 * 2 + 32 * 4 * 4)
    # an fp32 model keeps it in float32
    line = estimate_memory(count({**FALCON_MAMBA, "torch_dtype": "float32"}),
                           Settings(context=10, batch=1, mode="inference", kv_dtype="float8")).line("kv_cache")
    assert line is not None and line.bytes == 2 * (32 * 4 * 4 + 32 * 4 * 4)


def test_the_layers_are_counted_for_training_memory() -> None:
    # every layer of every kind is a layer of the stack (pipeline stages, checkpointing)
    from lsp_count.core.memory import _layer_count

    assert _layer_count(count(JAMBA).tree.root) == 4
    assert _layer_count(count(GRANITE).tree.root) == 3
    r = estimate_memory(count(JAMBA), Settings(mode="train", context=64, batch=2))
    assert r.line("activations").bytes > 0 and r.total_bytes == sum(l.bytes for l in r.lines)
