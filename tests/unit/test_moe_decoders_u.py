"""A.X-K1 (axk1), MiniCPM5-MoE (minicpm5_moe), Kolibri 1 (kolibri1) and Flint (flint), without torch: small configs
counted by hand (the arithmetic in each test), their class defaults as transformers 5.25 builds them on the meta
device (``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold (each small total
checked once against transformers' cache after a forward pass in bfloat16, and again below where transformers is
installed), LoRA as peft 0.22 adapts them, and the configs their classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.layouts.decoder import layer_indices

from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("axk1", "AXK1ForCausalLM"): 518_983_052_288,
    ("axk1", "AXK1Model"): 517_808_647_168,
    ("axk1", "AXK1ForSequenceClassification"): 517_808_661_504,
    ("minicpm5_moe", "MiniCPM5MoeForCausalLM"): 15_002_552_320,
    ("minicpm5_moe", "MiniCPM5MoeModel"): 14_735_165_440,
    ("kolibri1", "Kolibri1ForCausalLM"): 78_103_055_360,
    ("kolibri1", "Kolibri1Model"): 77_775_375_360,
    ("flint", "FlintForCausalLM"): 39_785_287_456,
    ("flint", "FlintModel"): 39_477_792_544,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# The small models below: vocabulary 32, hidden 16, 2 query heads of 8, MLPs 24 wide, 4 experts 8 wide (2 a token).
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o with one key/value head: 768
GATED = 3 * 16 * 24  # gate, up, down: 1,152
RMS_NORMS = 2 * 16  # a layer's two RMS norms
QK_NORMS = 2 * 8  # RMS norms over each head's q and k
ROUTER = 4 * 16  # a router of one weight (float32), its score correction bias a buffer
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj, down_proj: 384
SHARED = 3 * 16 * 8  # one shared expert 8 wide: 384
EDGES = 32 * 16 + 16 + 16 * 32  # embed_tokens, the final RMS norm, an untied lm_head: 1,040

# --- A.X-K1 ---------------------------------------------------------------------------------------------------------

AXK1 = {"model_type": "axk1", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 2, "intermediate_size": 24, "moe_intermediate_size": 8, "n_routed_experts": 4,
        "num_experts_per_tok": 2, "n_shared_experts": 1, "n_group": 1, "topk_group": 1, "q_lora_rank": 8,
        "kv_lora_rank": 8, "qk_nope_head_dim": 8, "qk_rope_head_dim": 8, "v_head_dim": 8}
# q_a 16·8, q_a_layernorm 8, q_b 8·(2·16), kv_a_proj_with_mqa 16·(8 + 8), kv_a_layernorm 8, kv_b 8·(2·(8 + 8)), o 16·16
MLA = 128 + 8 + 256 + 256 + 8 + 256 + 256


def test_axk1_by_hand() -> None:
    dense = MLA + GATED + RMS_NORMS  # the first layer (first_k_dense_replace 1 by default)
    sparse = MLA + ROUTER + 4 * EXPERT + SHARED + 16 + RMS_NORMS  # + post_mlp_layernorm over the MoE block's output
    model = count(AXK1)
    assert model.tree.total == dense + 2 * sparse + EDGES == 9_792
    assert model.tree.active == 9_792 - 2 * 2 * EXPERT
    assert layer_indices(model.spec) == {"dense_layers": (0,), "moe_layers": (1, 2)}
    # the legacy moe_layer_freq (read where mlp_layer_types is not given): experts in layers ≥ 1 and even, layer 2 only
    assert count({**AXK1, "moe_layer_freq": 2}).tree.total == 2 * dense + sparse + EDGES == 8_944
    assert count({**AXK1, "mlp_layer_types": ["dense", "sparse", "dense"], "moe_layer_freq": 1}).tree.total == 8_944
    # attention_bias: q_a_proj 8, kv_a_proj_with_mqa 16, o_proj 16 a layer
    assert count({**AXK1, "attention_bias": True}).tree.total == 9_792 + 3 * 40
    # num_local_experts, n_routed_experts' alias, wins
    assert count({**AXK1, "num_local_experts": 2, "num_experts_per_tok": 1}).tree.total == 9_792 - 2 * 2 * (16 + EXPERT)
    # the cache holds the latent per token and layer: kv_lora_rank 8 + qk_rope_head_dim 8, in bfloat16
    assert kv_bytes(AXK1, 7, 2) == 3 * (8 + 8) * 2 * 7 * 2 == 1_344


def test_axk1_refusals() -> None:
    assert errors({**AXK1, "q_lora_rank": None})  # always a low-rank query
    assert errors({**AXK1, "n_shared_experts": None})
    assert errors({**AXK1, "mlp_layer_types": ["dense", "sparse"]})  # each layer reads its own
    assert errors({**AXK1, "first_k_dense_replace": None})  # compared with each layer number
    assert not errors({**AXK1, "first_k_dense_replace": None, "mlp_layer_types": ["dense", "sparse", "sparse"]})


# --- MiniCPM5-MoE ---------------------------------------------------------------------------------------------------

MINICPM5 = {"model_type": "minicpm5_moe", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 3,
            "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24,
            "moe_intermediate_size": 8, "n_routed_experts": 4, "num_experts_per_tok": 2, "pad_token_id": 0}


def test_minicpm5_moe_by_hand() -> None:
    attention = ATTENTION + 16 * 16  # q_gate_proj: the queries and their output gate, 2 · 16 wide
    dense = attention + GATED + RMS_NORMS  # the first layer (the legacy first_k_dense_replace, 1 by default)
    sparse = attention + ROUTER + 4 * EXPERT + SHARED + RMS_NORMS
    model = count(MINICPM5)
    assert model.tree.total == dense + 2 * sparse + EDGES == 9_328
    assert model.tree.active == 9_328 - 2 * 2 * EXPERT
    assert count({**MINICPM5, "first_k_dense_replace": 0}).tree.total == 3 * sparse + EDGES == 10_160
    assert count({**MINICPM5, "mlp_layer_types": ["dense"] * 3}).tree.total == 3 * dense + EDGES == 7_664
    assert count({**MINICPM5, "n_shared_experts": 2}).tree.total == 9_328 + 2 * SHARED
    # attention_bias: q_gate_proj 32, k 8, v 8, o 16 a layer
    assert count({**MINICPM5, "attention_bias": True}).tree.total == 9_328 + 3 * 64
    # a null head_dim is hidden_size / heads (8 here)
    assert count({**MINICPM5, "head_dim": None}).tree.total == 9_328
    assert kv_bytes(MINICPM5, 7, 2) == 3 * 2 * 8 * 7 * 2 * 2 == 1_344


def test_minicpm5_moe_refusals() -> None:
    assert errors({**MINICPM5, "use_gated_attention": False})  # MiniCPM5MoeConfig supports gated attention only
    assert not errors({**MINICPM5, "use_gated_attention": True})
    assert errors({**MINICPM5, "mlp_layer_types": ["dense", "sparse"]})
    assert errors({**MINICPM5, "first_k_dense_replace": None})


# --- Kolibri 1 ------------------------------------------------------------------------------------------------------

KOLIBRI1 = {"model_type": "kolibri1", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 5,
            "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "moe_intermediate_size": 8,
            "num_experts": 4, "num_experts_per_tok": 2, "shared_expert_intermediate_size": 8, "sliding_window": 16}


def test_kolibri1_by_hand() -> None:
    # experts in every layer (no dense MLP), GLM-4's four norms a layer
    layer = ATTENTION + QK_NORMS + ROUTER + 4 * EXPERT + SHARED + 4 * 16
    model = count(KOLIBRI1)
    assert model.tree.total == 5 * layer + EDGES == 15_200
    assert model.tree.active == 15_200 - 5 * 2 * EXPERT
    # num_local_experts is where Kolibri1Config keeps num_experts (its attribute_map), set after the fields: it wins
    assert count({**KOLIBRI1, "num_local_experts": 2, "num_experts_per_tok": 1}).tree.total == 15_200 - 5 * 2 * (
        16 + EXPERT)
    # intermediate_size is no key of Kolibri1Config's: nothing reads it
    assert count({**KOLIBRI1, "intermediate_size": 100}).tree.total == 15_200


def test_kolibri1_sliding_layers() -> None:
    # the fifth layer of every five full, the others keep the last 16 tokens: at 20 tokens,
    # (4 × 16 + 20) token-layers × keys and values × 1 head × 8 × 2 bytes
    assert kv_bytes(KOLIBRI1, 20) == (4 * 16 + 20) * 2 * 8 * 2 == 2_688
    assert kv_bytes({**KOLIBRI1, "layer_types": ["full_attention"] * 5}, 20) == 5 * 20 * 2 * 8 * 2
    # sliding layers need a positive window; layer_types must name every layer
    assert errors({**KOLIBRI1, "sliding_window": None})
    assert errors({**KOLIBRI1, "sliding_window": 0})
    assert not errors({**KOLIBRI1, "sliding_window": None, "layer_types": ["full_attention"] * 5})
    assert errors({**KOLIBRI1, "layer_types": ["full_attention"] * 4})


# --- Flint ----------------------------------------------------------------------------------------------------------

FLINT = {"model_type": "flint", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
         "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "moe_intermediate_size": 8,
         "num_experts": 4, "num_experts_per_tok": 2, "shared_expert_intermediate_size": 8, "sliding_window": 16}


def test_flint_by_hand() -> None:
    attention = ATTENTION + QK_NORMS + 2  # a learned sink logit per head
    dense = attention + GATED + RMS_NORMS  # mlp_only_layers: the first two, by default
    sparse = attention + ROUTER + 4 * EXPERT + SHARED + RMS_NORMS
    model = count(FLINT)
    assert model.tree.total == 2 * dense + 2 * sparse + EDGES == 10_584
    assert model.tree.active == 10_584 - 2 * 2 * EXPERT
    assert layer_indices(model.spec) == {"dense_layers": (0, 1), "moe_layers": (2, 3)}
    assert count({**FLINT, "num_experts": 0}).tree.total == 4 * dense + EDGES == 8_920
    # every second layer from the first with experts (1 and 3), none kept dense
    assert count({**FLINT, "decoder_sparse_step": 2, "mlp_only_layers": []}).tree.total == 10_584
    assert layer_indices(count({**FLINT, "decoder_sparse_step": 2, "mlp_only_layers": []}).spec) == {
        "dense_layers": (0, 2), "moe_layers": (1, 3)}
    # attention_bias: q 16, k 8, v 8, o 16 a layer
    assert count({**FLINT, "attention_bias": True}).tree.total == 10_584 + 4 * 48


def test_flint_sliding_layers() -> None:
    # full attention in the first two layers, every fourth from the second (1) and the last (3): layer 2 slides
    assert kv_bytes(FLINT, 20) == (3 * 20 + 16) * 2 * 8 * 2 == 2_432
    assert errors({**FLINT, "sliding_window": None})  # FlintConfig's sliding_window is a whole number
    assert errors({**FLINT, "layer_types": ["full_attention"] * 3})


# --- against transformers' cache ------------------------------------------------------------------------------------

CAUSAL_LM = {"axk1": (AXK1, "AXK1ForCausalLM"), "minicpm5_moe": (MINICPM5, "MiniCPM5MoeForCausalLM"),
             "kolibri1": (KOLIBRI1, "Kolibri1ForCausalLM"), "flint": (FLINT, "FlintForCausalLM")}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_caches_are_what_a_forward_pass_fills(model_type: str) -> None:
    """The same small models' caches, filled by a forward pass in transformers (where installed), byte for byte, below
    the sliding window (transformers' dynamic cache keeps window - 1 tokens of a sliding layer, lsp-count the window,
    as a static cache and vLLM do)."""
    assert_cache_is_what_a_forward_pass_fills(*CAUSAL_LM[model_type])


# --- LoRA -----------------------------------------------------------------------------------------------------------

# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once; None: peft refuses them).
# None of these four is in peft's v4 -> v5 MoE conversion: the experts are not reached, and the router, no nn.Linear,
# is refused.
LORA = {
    "axk1": (("all-linear", (11_328, 1_536)), (["q_a_proj", "kv_b_proj"], (10_176, 384)),
             (["gate_proj", "down_proj"], (10_144, 352)), (["gate"], None)),
    "minicpm5_moe": (("all-linear", (10_624, 1_296)), (["q_gate_proj", "v_proj"], (9_760, 432)),
                     (["gate_proj", "up_proj", "down_proj"], (9_856, 528)), (["gate"], None)),
    "kolibri1": (("all-linear", (17_040, 1_840)), (["q_proj", "down_proj"], (15_760, 560)), (["gate"], None)),
    # Flint's shared expert is mlp.shared_expert (one)
    "flint": (("all-linear", (12_248, 1_664)), (["k_proj", "up_proj"], (11_032, 448)), (["down_proj"], (10_840, 256)),
              (["gate"], None)),
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
