"""nanochat, CWM, JAIS 2, Mellum, Youtu-LLM and Hy3 (hy_v3), without torch: small configs counted by hand (the
arithmetic in each test), their class defaults as transformers 5.25 builds them on the meta device
(``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold (each small total checked
once against transformers' cache after a forward pass in bfloat16, and again below where transformers is installed),
and the configs their classes refuse."""

from __future__ import annotations


import pytest

from lsp_count.core.layouts.decoder import layer_indices

from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("nanochat", "NanoChatForCausalLM"): 256_573_440,
    ("nanochat", "NanoChatModel"): 217_939_968,
    ("cwm", "CwmForCausalLM"): 32_581_097_472,
    ("cwm", "CwmModel"): 31_793_092_608,
    ("jais2", "Jais2ForCausalLM"): 8_090_401_280,
    ("jais2", "Jais2Model"): 7_590_296_064,
    ("mellum", "MellumForCausalLM"): 12_149_923_072,
    ("mellum", "MellumModel"): 11_923_430_656,
    ("youtu", "YoutuForCausalLM"): 1_961_560_064,
    ("youtu", "YoutuModel"): 1_961_560_064,
    ("hy_v3", "HYV3ForCausalLM"): 295_033_528_320,
    ("hy_v3", "HYV3Model"): 294_538_600_448,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# The small models below: vocabulary 32, hidden 16, 2 query heads of 8 (one key/value head), MLPs 24 wide.
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o: 768
GATED = 3 * 16 * 24  # gate, up, down: 1,152
RMS_NORMS = 2 * 16  # a layer's two RMS norms
EDGES = 32 * 16 + 16 + 16 * 32  # embed_tokens, the final RMS norm, an untied lm_head: 1,040

# --- nanochat -------------------------------------------------------------------------------------------------------

NANOCHAT = {"model_type": "nanochat", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 2,
            "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 24}


def test_nanochat_by_hand() -> None:
    # No norm has weights (layers', q's and k's, the final one); fc1 and fc2 (relu², no gate, no biases); the head untied.
    per_layer = ATTENTION + 2 * 16 * 24
    assert count(NANOCHAT).tree.total == 2 * per_layer + 32 * 16 + 16 * 32 == 4_096
    assert count({**NANOCHAT, "architectures": ["NanoChatModel"]}).tree.total == 4_096 - 16 * 32
    # attention_bias: q 16, k 8, v 8, o 16 a layer
    assert count({**NANOCHAT, "attention_bias": True}).tree.total == 4_096 + 2 * 48
    # tied, the head is the embedding (counted once); the softcap has no parameters
    assert count({**NANOCHAT, "tie_word_embeddings": True, "final_logit_softcapping": 30.0}).tree.total == 4_096 - 512
    # a written head_dim is its heads' width (NanoChatConfig keeps the key): q and o 2·4 wide, k and v 4
    assert count({**NANOCHAT, "head_dim": 4}).tree.total == 4_096 - 2 * (2 * 128 + 2 * 64)
    # 2 layers × keys and values × 1 head × 8 × 7 tokens × batch 2 × 2 bytes
    assert kv_bytes(NANOCHAT, 7, 2) == 2 * 2 * 8 * 7 * 2 * 2 == 896


# --- CWM ------------------------------------------------------------------------------------------------------------

CWM = {"model_type": "cwm", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 5, "num_attention_heads": 2,
       "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "sliding_window": 16, "pad_token_id": 0}


def test_cwm_by_hand() -> None:
    # Llama's layout, no attention biases
    assert count(CWM).tree.total == 5 * (ATTENTION + GATED + RMS_NORMS) + EDGES == 10_800
    # mlp_bias: gate and up 24, down 16 a layer; attention_bias is not CwmConfig's key
    assert count({**CWM, "mlp_bias": True, "attention_bias": True}).tree.total == 10_800 + 5 * 64
    # head_dim 4: q and o 2·4 wide, k and v 4
    assert count({**CWM, "head_dim": 4}).tree.total == 10_800 - 5 * (2 * 128 + 2 * 64)


def test_cwm_sliding_layers() -> None:
    # the first layer of every four full (layers 0 and 4), the others (1-3) keep the last 16 tokens: at 20 tokens,
    # (2 × 20 + 3 × 16) token-layers × keys and values × 1 head × 8 × 2 bytes
    assert kv_bytes(CWM, 20) == (2 * 20 + 3 * 16) * 2 * 8 * 2 == 2_816
    assert kv_bytes({**CWM, "layer_types": ["full_attention"] * 5}, 20) == 5 * 20 * 2 * 8 * 2
    # CwmConfig turns a 0 window into None, which its strict check refuses as it refuses a null; layer_types must
    # name every layer
    assert errors({**CWM, "sliding_window": 0})
    assert errors({**CWM, "sliding_window": None})
    assert errors({**CWM, "layer_types": ["full_attention"] * 4})
    assert errors({**CWM, "num_attention_heads": 3, "num_key_value_heads": 1})  # 3 heads do not divide 16


# --- JAIS 2 ---------------------------------------------------------------------------------------------------------

JAIS2 = {"model_type": "jais2", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 1, "intermediate_size": 24, "pad_token_id": 0, "eos_token_id": 1}


def test_jais2_by_hand() -> None:
    attention = ATTENTION + 16 + 8 + 8 + 16  # biases on q, k, v and o by default
    mlp = 16 * 24 + 24 + 24 * 16 + 16  # up and down with biases (relu², no gate)
    layer_norms = 2 * 2 * 16  # two LayerNorms with biases
    edges = 32 * 16 + 2 * 16 + 16 * 32  # the final norm a LayerNorm too
    assert count(JAIS2).tree.total == 2 * (attention + mlp + layer_norms) + edges == 4_432
    assert count({**JAIS2, "attention_bias": False, "mlp_bias": False}).tree.total == 4_432 - 2 * (48 + 40)
    assert kv_bytes(JAIS2, 3) == 2 * 2 * 8 * 3 * 2 == 192


# --- Mellum ---------------------------------------------------------------------------------------------------------

MELLUM = {"model_type": "mellum", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 3,
          "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24,
          "moe_intermediate_size": 8, "num_experts": 4, "num_experts_per_tok": 2, "sliding_window": 16,
          "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
          "mlp_layer_types": ["dense", "sparse", "sparse"]}
QK_NORMS = 2 * 8  # RMS norms over each head's q and k
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj, down_proj: 384


def test_mellum_by_hand() -> None:
    attention = ATTENTION + QK_NORMS
    dense = attention + GATED + RMS_NORMS
    sparse = attention + 4 * 16 + 4 * EXPERT + RMS_NORMS  # a router of one weight, 4 experts, no shared expert
    model = count(MELLUM)
    assert model.tree.total == dense + 2 * sparse + EDGES == 7_840
    assert model.tree.active == 7_840 - 2 * 2 * EXPERT  # two of the four experts a token
    assert layer_indices(model.spec) == {"dense_layers": (0,), "moe_layers": (1, 2)}
    # num_local_experts is num_experts' alias; by default every layer has experts
    defaults = {k: v for k, v in MELLUM.items() if k not in ("mlp_layer_types", "num_experts")}
    assert count({**defaults, "num_local_experts": 4}).tree.total == 3 * sparse + EDGES
    # sliding layers 0 and 2 keep 16 tokens, layer 1 all 20: (16 + 20 + 16) × keys and values × 8 × 2 bytes
    assert kv_bytes(MELLUM, 20) == 52 * 2 * 8 * 2 == 1_664


def test_mellum_refusals() -> None:
    assert errors({**MELLUM, "num_mtp_layers": 2})  # MellumConfig supports a single MTP layer
    assert not errors({**MELLUM, "num_mtp_layers": 1})  # (not built: no parameters)
    assert count({**MELLUM, "num_mtp_layers": 1}).tree.total == 7_840
    assert errors({**MELLUM, "mlp_layer_types": ["dense", "sparse"]})
    assert errors({**MELLUM, "mlp_layer_types": ["dense", "moe", "sparse"]})
    # rope_parameters are kept as written: one entry per attention type the layers use
    assert errors({**MELLUM, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}}})


# --- Youtu-LLM ------------------------------------------------------------------------------------------------------

YOUTU = {"model_type": "youtu", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 2, "intermediate_size": 24, "q_lora_rank": 8, "kv_lora_rank": 8, "qk_nope_head_dim": 8,
         "qk_rope_head_dim": 8, "v_head_dim": 8}
# q_a 16·8, q_a_layernorm 8, q_b 8·(2·16), kv_a_proj_with_mqa 16·(8 + 8), kv_a_layernorm 8, kv_b 8·(2·(8 + 8)), o 16·16
MLA = 128 + 8 + 256 + 256 + 8 + 256 + 256


def test_youtu_by_hand() -> None:
    # a dense MLP in every layer; the head tied by default
    assert count(YOUTU).tree.total == 2 * (MLA + GATED + RMS_NORMS) + 32 * 16 + 16 == 5_232
    assert count({**YOUTU, "tie_word_embeddings": False}).tree.total == 5_232 + 16 * 32
    # attention_bias: q_a_proj 8, kv_a_proj_with_mqa 16, o_proj 16
    assert count({**YOUTU, "attention_bias": True}).tree.total == 5_232 + 2 * 40
    # a null q_lora_rank: q_proj 16·32 instead of q_a, its norm and q_b (128 + 8 + 256)
    assert count({**YOUTU, "q_lora_rank": None}).tree.total == 5_232 + 2 * (512 - 392)
    # the cache holds the latent per token and layer: kv_lora_rank 8 + qk_rope_head_dim 8, in bfloat16
    assert kv_bytes(YOUTU, 7, 2) == 2 * (8 + 8) * 2 * 7 * 2 == 896


# --- Hy3 ------------------------------------------------------------------------------------------------------------

HY_V3 = {"model_type": "hy_v3", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
         "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "moe_intermediate_size": 8,
         "num_experts": 4, "num_experts_per_tok": 2}


def test_hy_v3_by_hand() -> None:
    attention = ATTENTION + QK_NORMS
    shared = 3 * 16 * 8  # one shared expert, moe_intermediate_size wide
    sparse = attention + 4 * 16 + 4 * EXPERT + shared + RMS_NORMS  # the router a float32 weight
    dense = attention + GATED + RMS_NORMS  # the first layer, by default
    model = count(HY_V3)
    assert model.tree.total == dense + 2 * sparse + EDGES == 8_608
    assert model.tree.active == 8_608 - 2 * 2 * EXPERT
    # no shared experts: HYV3MLP then takes intermediate_size (its 0 width is no width given)
    assert count({**HY_V3, "num_shared_experts": 0}).tree.total == 8_608 + 2 * (GATED - shared)
    assert count({**HY_V3, "num_shared_experts": 2}).tree.total == 8_608 + 2 * shared
    # num_local_experts, num_experts' alias, wins
    assert count({**HY_V3, "num_local_experts": 2, "num_experts_per_tok": 1}).tree.total == 8_608 - 2 * 2 * (16 + EXPERT)
    assert count({**HY_V3, "mlp_layer_types": ["dense"] * 3}).tree.total == 3 * dense + EDGES
    assert kv_bytes(HY_V3, 20) == 3 * 20 * 2 * 8 * 2


def test_hy_v3_refusals() -> None:
    # null experts build only where no layer has experts
    assert errors({**HY_V3, "num_experts": None})
    assert not errors({**HY_V3, "num_experts": None, "mlp_layer_types": ["dense"] * 3})
    assert errors({**HY_V3, "num_shared_experts": None})
    # num_local_experts, an alias set after the strict checks, takes a float, which the experts cannot be built with
    assert errors({**HY_V3, "num_local_experts": 4.0})
    assert count({**HY_V3, "num_local_experts": 4.0, "mlp_layer_types": ["dense"] * 3}).tree.total == 3 * (
        ATTENTION + QK_NORMS + GATED + RMS_NORMS) + EDGES
    assert errors({**HY_V3, "mlp_layer_types": ["dense", "sparse"]})  # the decoder reads one per layer


# --- against transformers' cache ------------------------------------------------------------------------------------

CAUSAL_LM = {"nanochat": (NANOCHAT, "NanoChatForCausalLM"), "cwm": (CWM, "CwmForCausalLM"),
             "jais2": (JAIS2, "Jais2ForCausalLM"), "mellum": (MELLUM, "MellumForCausalLM"),
             "youtu": (YOUTU, "YoutuForCausalLM"), "hy_v3": (HY_V3, "HYV3ForCausalLM")}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_caches_are_what_a_forward_pass_fills(model_type: str) -> None:
    """The same small models' caches, filled by a forward pass in transformers (where installed), byte for byte, below
    the sliding window (transformers' dynamic cache keeps window - 1 tokens of a sliding layer, lsp-count the window,
    as a static cache and vLLM do)."""
    assert_cache_is_what_a_forward_pass_fills(*CAUSAL_LM[model_type])


# --- LoRA -----------------------------------------------------------------------------------------------------------

# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once; None: peft refuses them)
LORA = {
    "nanochat": (("all-linear", (4_864, 768)), (["q_proj", "fc1"], (4_384, 288)), (["fc2"], (4_256, 160))),
    "cwm": (("all-linear", (13_120, 2_320)), (["q_proj", "down_proj"], (11_520, 720))),
    "jais2": (("all-linear", (5_200, 768)), (["up_proj", "v_proj"], (4_688, 256))),
    # peft's v4 -> v5 conversion reaches Mellum's fused experts (gate_up_proj, down_proj) and its router (gate.weight)
    "mellum": (("all-linear", (10_240, 2_400)), (["q_proj", "gate"], (8_112, 272)),
               (["gate_proj", "up_proj", "down_proj"], (9_488, 1_648)), (["down_proj"], (8_304, 464))),
    "youtu": (("all-linear", (6_384, 1_152)), (["q_a_proj", "kv_b_proj"], (5_488, 256))),
    # Hy3's experts and router are not reached (no conversion): its router is no nn.Linear
    "hy_v3": (("all-linear", (9_808, 1_200)), (["q_proj", "gate"], None), (["down_proj"], (8_784, 176))),
}


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_adapts_what_peft_adapts(tmp_path, model_type: str) -> None:
    config, architecture = CAUSAL_LM[model_type]
    assert_lora_counts(tmp_path, {**config, "architectures": [architecture]}, LORA[model_type])


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_literals_are_peft_s(model_type: str) -> None:
    """The counts above, against peft on the meta device (where installed)."""
    config, architecture = CAUSAL_LM[model_type]
    assert_peft_lora_counts({**config, "architectures": [architecture]}, LORA[model_type])
