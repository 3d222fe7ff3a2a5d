"""EXAONE 3, InternLM3, IQuest-Coder, HyperCLOVA X, Param2-MoE, Sarvam-MoE, Sarvam-MLA and GPT-SW3, without torch:
their config classes build another family's classes (Llama's, GLM-4-MoE's, DeepSeek-V3's, GPT-2's; HyperCLOVA X a
near copy of Granite's) from keys, defaults and aliases of their own. Small configs counted by hand (the arithmetic in
each test), their class defaults as transformers 5.25 builds them on the meta device (``sum(p.numel() for p in
model.parameters())``, taken there once), what their caches hold (checked against transformers' cache after a forward
pass where it is installed), LoRA as peft adapts them, and the configs their classes refuse."""

from __future__ import annotations

import pytest

from config_models import (analyze, assert_cache_is_what_a_forward_pass_fills, assert_class_default_total,
                           assert_lora_counts, assert_peft_lora_counts, error_messages as errors,
                           kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("exaone", "LlamaForCausalLM"): 7_818_448_896,
    ("exaone", "LlamaModel"): 7_399_018_496,
    ("internlm3", "LlamaForCausalLM"): 8_804_241_408,
    ("internlm3", "LlamaModel"): 8_277_856_256,
    ("iquestcoder", "LlamaForCausalLM"): 39_794_283_520,
    ("iquestcoder", "LlamaModel"): 39_401_067_520,
    ("hyperclovax", "HyperCLOVAXForCausalLM"): 6_738_677_760,
    ("hyperclovax", "HyperCLOVAXModel"): 6_607_605_760,
    ("param2moe", "Glm4MoeForCausalLM"): 17_151_124_096,
    ("param2moe", "Glm4MoeModel"): 17_151_124_096,
    ("sarvam_moe", "Glm4MoeForCausalLM"): 32_152_648_064,
    ("sarvam_moe", "Glm4MoeModel"): 31_078_906_240,
    ("sarvam_mla", "DeepseekV3ForCausalLM"): 106_031_763_456,
    ("sarvam_mla", "DeepseekV3Model"): 104_958_021_632,
    ("gpt-sw3", "GPT2LMHeadModel"): 124_439_808,
    ("gpt-sw3", "GPT2Model"): 124_439_808,
    ("gpt-sw3", "GPT2ForSequenceClassification"): 124_441_344,
}


def warnings(config: dict) -> list[str]:
    return [p.message for p in analyze(config).problems if p.severity == "warning"]


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


# The small models below: vocabulary 32, hidden 16, 2 query heads of 8 (one key/value head), MLPs 24 wide.
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o: 768
GATED = 3 * 16 * 24  # gate, up, down: 1,152
RMS_NORMS = 2 * 16  # a layer's two RMS norms
EDGES = 32 * 16 + 16 + 16 * 32  # embed_tokens, the final RMS norm, an untied lm_head: 1,040
SMALL = {"vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 1, "intermediate_size": 24}

# --- EXAONE 3 -------------------------------------------------------------------------------------------------------

EXAONE = {"model_type": "exaone", **SMALL}


def test_exaone_by_hand() -> None:
    assert count(EXAONE).tree.total == 2 * (ATTENTION + GATED + RMS_NORMS) + EDGES == 4_944
    assert count({**EXAONE, "architectures": ["LlamaModel"]}).tree.total == 4_944 - 16 * 32
    # num_layers is ExaoneConfig's alias of num_hidden_layers: set after the fields, it wins
    assert count({**EXAONE, "num_hidden_layers": 5, "num_layers": 2}).tree.total == 4_944
    assert count({**EXAONE, "num_layers": 3}).tree.total == 4_944 + ATTENTION + GATED + RMS_NORMS
    # attention_bias: q 16, k 8, v 8, o 16 a layer
    assert count({**EXAONE, "attention_bias": True}).tree.total == 4_944 + 2 * 48
    # the Hub's EXAONE configs name the remote-code class: transformers builds Llama's (said, and counted)
    report = analyze({**EXAONE, "architectures": ["ExaoneForCausalLM"]})
    assert report.models[0].tree.total == 4_944
    assert any("ExaoneForCausalLM is not modelled; counting LlamaForCausalLM" in w
               for w in warnings({**EXAONE, "architectures": ["ExaoneForCausalLM"]}))
    # (2 layers × keys and values × 1 head × 8 × 7 tokens × batch 2 × 2 bytes)
    assert kv_bytes(EXAONE, 7, 2) == 2 * 2 * 8 * 7 * 2 * 2 == 896
    assert errors({**EXAONE, "num_attention_heads": 3})  # (LlamaConfig: the heads must divide hidden_size)


def test_a_llama_config_still_counts_as_llama() -> None:
    """The classes several families share stay llama's where a config names no model_type."""
    report = analyze({k: v for k, v in EXAONE.items() if k != "model_type"} | {"architectures": ["LlamaForCausalLM"]})
    assert report.models[0].spec.model_type == "llama"


# --- InternLM3 ------------------------------------------------------------------------------------------------------

INTERNLM3 = {"model_type": "internlm3", **SMALL, "head_dim": 8}
MLP_BIASES = 24 + 24 + 16  # gate, up, down


def test_internlm3_by_hand() -> None:
    assert count(INTERNLM3).tree.total == 4_944
    # head_dim defaults to 128 (not hidden_size / heads): q and o 16·256, k and v 16·128
    wide = 16 * 256 + 16 * 128 + 16 * 128 + 256 * 16
    assert count({k: v for k, v in INTERNLM3.items() if k != "head_dim"}).tree.total == \
        2 * (wide + GATED + RMS_NORMS) + EDGES == 27_984
    # a null head_dim is hidden_size / heads (LlamaConfig's __post_init__)
    assert count({**INTERNLM3, "head_dim": None}).tree.total == 4_944
    # qkv_bias and bias (its aliases of attention_bias and mlp_bias) win; the class wants them equal
    biased = 4_944 + 2 * (48 + MLP_BIASES)
    assert count({**INTERNLM3, "qkv_bias": True, "bias": True}).tree.total == biased == 5_168
    assert count({**INTERNLM3, "attention_bias": True, "mlp_bias": True}).tree.total == biased
    assert count({**INTERNLM3, "attention_bias": False, "qkv_bias": True, "bias": True}).tree.total == biased
    assert count({**INTERNLM3, "qkv_bias": None, "bias": None}).tree.total == 4_944  # (both kept None: no biases)
    for unequal in ({"qkv_bias": True}, {"attention_bias": True}, {"bias": True, "mlp_bias": False},
                    {"qkv_bias": None}):
        assert any("InternLM3Config refuses them unequal" in e for e in errors({**INTERNLM3, **unequal})), unequal


# --- IQuest-Coder ---------------------------------------------------------------------------------------------------

IQUEST = {"model_type": "iquestcoder", **SMALL, "head_dim": 8}


def test_iquestcoder_by_hand() -> None:
    assert count(IQUEST).tree.total == 4_944
    assert count({**IQUEST, "clip_qkv": None, "use_sliding_window": False, "sliding_window": 4}).tree.total == 4_944
    assert any("IQuestCoderConfig refuses any clip_qkv" in e for e in errors({**IQUEST, "clip_qkv": 8}))
    assert any("IQuestCoderConfig refuses a sliding window" in e
               for e in errors({**IQUEST, "use_sliding_window": True}))
    # (sliding_window is not refused: where layer_types calls layers sliding, their cache keeps the window, 4 tokens)
    assert kv_bytes({**IQUEST, "sliding_window": 4, "layer_types": ["sliding_attention"] * 2}, 7, 2) == 896 * 4 // 7


# --- HyperCLOVA X ---------------------------------------------------------------------------------------------------

HYPERCLOVAX = {"model_type": "hyperclovax", **SMALL}


def test_hyperclovax_by_hand() -> None:
    # use_post_norm (true by default): post_norm1 and post_norm2 beside the two pre-norms
    assert count(HYPERCLOVAX).tree.total == 2 * (ATTENTION + GATED + 2 * RMS_NORMS) + EDGES == 5_008
    assert count({**HYPERCLOVAX, "use_post_norm": False}).tree.total == 4_944
    # attention_bias: all four projections (Granite's attention)
    assert count({**HYPERCLOVAX, "attention_bias": True}).tree.total == 5_008 + 2 * 48
    assert count({**HYPERCLOVAX, "head_dim": 4}).tree.total == 5_008 - 2 * (ATTENTION // 2)
    assert errors({**HYPERCLOVAX, "num_attention_heads": 3})  # (its validate_architecture)


# --- Param2-MoE and Sarvam-MoE (GLM-4-MoE's classes) ----------------------------------------------------------------

GLM_MOE_SMALL = {**SMALL, "head_dim": 8, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 6,
                 "n_shared_experts": 1, "n_group": 1, "topk_group": 1}
PARAM2 = {"model_type": "param2moe", **GLM_MOE_SMALL}
SARVAM_MOE = {"model_type": "sarvam_moe", **GLM_MOE_SMALL}
QK_NORMS = 2 * 8  # use_qk_norm, true here: an RMS norm over each head's q and one over its k
# 4 experts × (gate_up 2·6·16 + down 16·6), the router 4·16 (its score correction bias a buffer), one shared expert
# 6 wide
MOE_BLOCK = 4 * (2 * 6 * 16 + 16 * 6) + 4 * 16 + 3 * 16 * 6  # 1,504
TIED_EDGES = 32 * 16 + 16


def test_param2moe_by_hand() -> None:
    # the first layer dense (first_k_dense_replace 1), the second MoE; the head tied by default
    assert count(PARAM2).tree.total == 2 * (ATTENTION + QK_NORMS + RMS_NORMS) + GATED + MOE_BLOCK + TIED_EDGES == 4_816
    assert count({**PARAM2, "use_qk_norm": False}).tree.total == 4_816 - 2 * QK_NORMS
    # attention_bias or its alias use_qkv_bias (which wins): q, k and v (16 + 8 + 8), no o_proj bias
    assert count({**PARAM2, "use_qkv_bias": True}).tree.total == 4_816 + 2 * 32
    assert count({**PARAM2, "attention_bias": True, "use_qkv_bias": False}).tree.total == 4_816
    assert count({**PARAM2, "use_qkv_bias": None}).tree.total == 4_816  # (kept None: no biases)
    # num_experts, num_local_experts and num_shared_experts: its aliases, which win
    assert count({**PARAM2, "num_experts": 2}).tree.total == 4_816 - 2 * (288 + 16)
    assert count({**PARAM2, "num_local_experts": 2}).tree.total == 4_816 - 2 * (288 + 16)
    assert count({**PARAM2, "num_shared_experts": 0}).tree.total == 4_816 - 288
    assert count({**PARAM2, "num_shared_experts": 2}).tree.total == 4_816 + 288
    # an alias the MoE layers cannot be built with fails only where a layer is MoE
    assert any('"num_experts": null' in e for e in errors({**PARAM2, "num_experts": None}))
    assert any('"num_shared_experts": expected a whole number' in e
               for e in errors({**PARAM2, "num_shared_experts": 1.0}))
    assert count({**PARAM2, "num_experts": None, "first_k_dense_replace": 2}).tree.total == \
        2 * (ATTENTION + QK_NORMS + RMS_NORMS + GATED) + TIED_EDGES
    assert errors({**PARAM2, "n_routed_experts": None})  # (a field: its strict check refuses the null)
    assert errors({**PARAM2, "head_dim": None})
    # (2 layers × keys and values × 1 head × 8 × 7 tokens × batch 2 × 2 bytes)
    assert kv_bytes(PARAM2, 7, 2) == 896


def test_sarvam_moe_by_hand() -> None:
    # Param2-MoE's model, the head untied by default
    assert count(SARVAM_MOE).tree.total == 4_816 + 16 * 32
    assert count({**SARVAM_MOE, "tie_word_embeddings": True}).tree.total == 4_816


# --- Sarvam-MLA (DeepSeek-V3's classes) -----------------------------------------------------------------------------

SARVAM_MLA = {"model_type": "sarvam_mla", **SMALL, "num_key_value_heads": 2, "kv_lora_rank": 8, "qk_nope_head_dim": 8,
              "qk_rope_head_dim": 8, "v_head_dim": 8, "n_routed_experts": 4, "num_experts_per_tok": 2,
              "moe_intermediate_size": 6, "n_group": 1, "topk_group": 1}
# q_lora_rank null by default: q_proj 16·(2·16); kv_a_proj_with_mqa 16·(8 + 8), kv_a_layernorm 8,
# kv_b 8·(2·(8 + 8)), o 16·16
MLA_FULL_Q = 512 + 256 + 8 + 256 + 256  # 1,288


def test_sarvam_mla_by_hand() -> None:
    # one dense layer (first_k_dense_replace 1), then MoE with one shared expert; the head untied
    assert count(SARVAM_MLA).tree.total == 2 * (MLA_FULL_Q + RMS_NORMS) + GATED + MOE_BLOCK + EDGES == 6_336
    # q_lora_rank 8: q_a 16·8, q_a_layernorm 8, q_b 8·32 instead of q_proj
    assert count({**SARVAM_MLA, "q_lora_rank": 8}).tree.total == 6_336 - 2 * (512 - (128 + 8 + 256))
    # a written head_dim (and q_head_dim) is dropped: the rotated width is qk_rope_head_dim, whatever it says
    assert count({**SARVAM_MLA, "head_dim": 3, "q_head_dim": "x"}).tree.total == 6_336
    assert count({**SARVAM_MLA, "num_experts": 2, "num_shared_experts": 0}).tree.total == 6_336 - 2 * (288 + 16) - 288
    # a legacy rope_scaling of type deepseek_yarn is read as YaRN; under rope_parameters it builds nothing
    yarn = {"type": "deepseek_yarn", "factor": 4.0, "mscale": 1.0, "mscale_all_dim": 1.0, "beta_fast": 32,
            "beta_slow": 1}
    assert count({**SARVAM_MLA, "rope_scaling": yarn}).tree.total == 6_336
    assert errors({**SARVAM_MLA, "rope_parameters": {"rope_type": "deepseek_yarn", "factor": 4.0}})
    assert errors({**SARVAM_MLA, "rope_scaling": {"rope_type": "deepseek_yarn"}})  # (YaRN needs its factor)
    # the cache holds the latent per token and layer: kv_lora_rank 8 + qk_rope_head_dim 8, in bfloat16
    assert kv_bytes(SARVAM_MLA, 7, 2) == 2 * (8 + 8) * 2 * 7 * 2 == 896


# --- GPT-SW3 (GPT-2's classes) --------------------------------------------------------------------------------------

GPT_SW3 = {"model_type": "gpt-sw3", "vocab_size": 32, "n_embd": 16, "n_layer": 2, "n_head": 2, "n_positions": 16}


def test_gpt_sw3_by_hand() -> None:
    # ln_1 32, c_attn 16·48 + 48, c_proj 16·16 + 16, ln_2 32, c_fc 16·64 + 64 (n_inner null: 4 × n_embd),
    # mlp.c_proj 64·16 + 16
    layer = 32 + 816 + 272 + 32 + 1_088 + 1_040
    # wte 32·16 (the head tied to it), wpe 16·16, ln_f 32
    assert count(GPT_SW3).tree.total == 2 * layer + 512 + 256 + 32 == 7_360
    assert count({**GPT_SW3, "architectures": ["GPT2LMHeadModel"]}).tree.total == 7_360
    assert not warnings({**GPT_SW3, "architectures": ["GPT2LMHeadModel"]})
    # n_inner 8: c_fc 56 rows fewer (weights and biases), mlp.c_proj 56 columns fewer
    assert count({**GPT_SW3, "n_inner": 8}).tree.total == 7_360 - 2 * (56 * 16 + 56 + 56 * 16) == 3_664


# --- against transformers' cache ------------------------------------------------------------------------------------

CAUSAL_LM = {"exaone": (EXAONE, "LlamaForCausalLM"), "internlm3": (INTERNLM3, "LlamaForCausalLM"),
             "iquestcoder": (IQUEST, "LlamaForCausalLM"), "hyperclovax": (HYPERCLOVAX, "HyperCLOVAXForCausalLM"),
             "param2moe": (PARAM2, "Glm4MoeForCausalLM"), "sarvam_moe": (SARVAM_MOE, "Glm4MoeForCausalLM"),
             "sarvam_mla": (SARVAM_MLA, "DeepseekV3ForCausalLM")}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_caches_are_what_a_forward_pass_fills(model_type: str) -> None:
    """The same small models' caches, filled by a forward pass in transformers (where installed), byte for byte.
    (The experts 8 wide: grouped_mm in bfloat16 wants strides of 16 bytes; the cache does not depend on them.)"""
    config, architecture = CAUSAL_LM[model_type]
    if "moe_intermediate_size" in config:
        config = {**config, "moe_intermediate_size": 8}
    assert_cache_is_what_a_forward_pass_fills(config, architecture)


def test_small_totals_are_transformers_s() -> None:
    """The hand counts above, against transformers on the meta device (where installed)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for config, architecture in [*CAUSAL_LM.values(), (GPT_SW3, "GPT2LMHeadModel")]:
        hf = transformers.CONFIG_MAPPING[config["model_type"]](**{k: v for k, v in config.items() if k != "model_type"})
        with torch.device("meta"):
            built = getattr(transformers, architecture)(hf)
        assert count({**config, "architectures": [architecture]}).tree.total == \
            sum(p.numel() for p in built.parameters()), config["model_type"]


# --- LoRA -----------------------------------------------------------------------------------------------------------

# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once)
LORA = {
    "exaone": (("all-linear", (5_872, 928)), (["q_proj", "down_proj"], (5_232, 288))),
    # GLM-4-MoE's fused experts under Param2MoeConfig: peft's v4 -> v5 conversion does not run for param2moe
    "param2moe": (("all-linear", (5_636, 820)), (["q_proj", "gate_proj"], (5_068, 252))),
    # DeepSeek-V3's under SarvamMLAConfig: it runs for sarvam_mla (fused experts and router reached)
    "sarvam_mla": (("all-linear", (7_980, 1_644)), (["kv_b_proj", "gate"], (6_536, 200))),
    "gpt-sw3": (("all-linear", (8_384, 1_024)), (["c_attn"], (7_616, 256))),
}


def _config(model_type: str) -> dict:
    config, architecture = {**CAUSAL_LM, "gpt-sw3": (GPT_SW3, "GPT2LMHeadModel")}[model_type]
    return {**config, "architectures": [architecture]}


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_adapts_what_peft_adapts(tmp_path, model_type: str) -> None:
    assert_lora_counts(tmp_path, _config(model_type), LORA[model_type])


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_literals_are_peft_s(model_type: str) -> None:
    """The counts above, against peft on the meta device (where installed)."""
    assert_peft_lora_counts(_config(model_type), LORA[model_type])
