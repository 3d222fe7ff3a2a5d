"""Mistral Small 4 (mistral4), LongCat-Flash (longcat_flash) and MiMo-V2-Flash (mimo_v2_flash), without torch: small
configs counted by hand (the arithmetic in each test), their class defaults as transformers 5.25 builds them on the
meta device (``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold per token
(each small total checked once against transformers' cache after a forward pass of the model in bfloat16), and the
configs their classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.layouts.decoder import layer_indices

from config_models import error_messages as errors, kv_cache_bytes as kv_bytes, model as count

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("mistral4", "Mistral4ForCausalLM"): 118_972_826_624,
    ("mistral4", "Mistral4Model"): 118_435_955_712,
    ("mistral4", "Mistral4ForSequenceClassification"): 118_435_963_904,
    ("longcat_flash", "LongcatFlashForCausalLM"): 560_664_958_976,
    ("longcat_flash", "LongcatFlashModel"): 559_859_652_608,
    ("mimo_v2_flash", "MiMoV2FlashForCausalLM"): 308_778_768_832,
    ("mimo_v2_flash", "MiMoV2FlashModel"): 308_153_817_536,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# --- Mistral Small 4 ------------------------------------------------------------------------------------------------

# hidden 8, 2 heads, 3 layers (the first dense), 2 experts of 4 wide (top 1) and one shared expert.
MISTRAL4 = {"model_type": "mistral4", "pad_token_id": 0, "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
            "num_attention_heads": 2, "intermediate_size": 12, "q_lora_rank": 4, "kv_lora_rank": 4,
            "qk_nope_head_dim": 2, "qk_rope_head_dim": 2, "v_head_dim": 2, "n_routed_experts": 2,
            "num_experts_per_tok": 1, "moe_intermediate_size": 4, "n_shared_experts": 1, "first_k_dense_replace": 1}
# q_a 8·4, q_a_layernorm 4, q_b 4·(2·(2 + 2)), kv_a_proj_with_mqa 8·(4 + 2), kv_a_layernorm 4, kv_b 4·(2·(2 + 2)),
# o 2·2·8
MLA = 32 + 4 + 32 + 48 + 4 + 32 + 32
DENSE = 3 * 8 * 12  # gate, up, down
EXPERT = 3 * 8 * 4
MOE = 2 * 8 + 2 * EXPERT + EXPERT  # the router (a bare weight, no score-correction bias), 2 experts, the shared one
NORMS = 2 * 8
EDGES = 10 * 8 + 8 + 8 * 10  # embed_tokens, the final norm, lm_head


def test_mistral4_by_hand() -> None:
    model = count(MISTRAL4)
    assert model.tree.total == EDGES + (MLA + DENSE + NORMS) + 2 * (MLA + MOE + NORMS) == 1_664
    assert model.tree.active == model.tree.total - 2 * EXPERT  # one of the two experts a token, in 2 MoE layers
    # per token and layer the cache holds the latent: kv_lora_rank 4 + qk_rope_head_dim 2, in bfloat16
    assert kv_bytes(MISTRAL4, 7, 2) == 3 * (4 + 2) * 2 * 7 * 2
    assert layer_indices(count(MISTRAL4).spec) == {"dense_layers": (0,), "moe_layers": (1, 2)}


def test_mistral4_full_query_and_head_dim() -> None:
    # a null q_lora_rank: q_proj 8·(2·4) instead of q_a, its norm and q_b (32 + 4 + 32)
    assert count({**MISTRAL4, "q_lora_rank": None}).tree.total == 1_664 + 3 * (64 - 68)
    # head_dim is qk_nope_head_dim + qk_rope_head_dim whatever the file says (the config class replaces it)
    assert count({**MISTRAL4, "head_dim": 40}).tree.total == 1_664
    # the legacy num_local_experts alias
    assert count({**{k: v for k, v in MISTRAL4.items() if k != "n_routed_experts"},
                  "num_local_experts": 3}).tree.total == 1_664 + 2 * (8 + EXPERT)


def test_mistral4_refusals() -> None:
    assert any("first_k_dense_replace" in e for e in errors({**MISTRAL4, "first_k_dense_replace": None}))
    assert any("v_head_dim" in e for e in errors({**MISTRAL4, "v_head_dim": None}))


# --- LongCat-Flash --------------------------------------------------------------------------------------------------

# hidden 16, 2 heads, 2 layers (each two attention sublayers), 4 experts of 8 wide and 2 zero experts (top 2).
LONGCAT = {"model_type": "longcat_flash", "num_layers": 2, "hidden_size": 16, "num_attention_heads": 2,
           "vocab_size": 64, "ffn_hidden_size": 24, "expert_ffn_hidden_size": 8, "n_routed_experts": 4,
           "zero_expert_num": 2, "moe_topk": 2, "kv_lora_rank": 8, "q_lora_rank": 8, "qk_rope_head_dim": 4,
           "qk_nope_head_dim": 4, "v_head_dim": 4, "head_dim": 4}
# q_a 16·8, q_a_layernorm 8, q_b 8·(2·8), kv_a_proj_with_mqa 16·(8 + 4), kv_a_layernorm 8, kv_b 8·(2·(4 + 4)), o 8·16
LC_MLA = 128 + 8 + 128 + 192 + 8 + 128 + 128
LC_MLP = 3 * 16 * 24  # each of the two dense MLPs (mlps.0, mlps.1)
LC_EXPERT = 3 * 16 * 8
LC_MOE = 16 * (4 + 2) + 4 * LC_EXPERT  # router.classifier scores the 4 experts and the 2 zero experts
LC_NORMS = 4 * 16  # input_layernorm.0/.1, post_attention_layernorm.0/.1
LC_LAYER = 2 * LC_MLA + 2 * LC_MLP + LC_NORMS + LC_MOE
LC_EDGES = 64 * 16 + 16 + 16 * 64


def test_longcat_flash_by_hand() -> None:
    model = count(LONGCAT)
    assert model.tree.total == LC_EDGES + 2 * LC_LAYER == 12_944
    assert model.tree.active == model.tree.total - 2 * 2 * LC_EXPERT  # top 2 of the 4 (zero experts: none)
    # two attention sublayers a layer, each caching its latent (8 + 4), in bfloat16
    assert kv_bytes(LONGCAT, 7, 2) == 2 * 2 * (8 + 4) * 2 * 7 * 2


def test_longcat_flash_keys() -> None:
    # num_hidden_layers counts the attention sublayers: 6 is 3 layers, and wins over num_layers
    assert count({**LONGCAT, "num_hidden_layers": 6}).tree.total == 12_944 + LC_LAYER == 18_384
    # qk_head_dim widens q_b (8·(2·12) instead of 8·(2·8)) in each of the 4 sublayers
    assert count({**LONGCAT, "qk_head_dim": 12}).tree.total == 12_944 + 4 * 64
    # no zero experts: the router scores the 4 experts alone; a bias on it with router_bias
    assert count({**LONGCAT, "zero_expert_num": 0}).tree.total == 12_944 - 2 * 16 * 2
    assert count({**LONGCAT, "router_bias": True}).tree.total == 12_944 + 2 * 6
    # attribute_map aliases win over the keys they stand for
    assert count({**LONGCAT, "intermediate_size": 40}).tree.total == 12_944 + 2 * 2 * 3 * 16 * 16


def test_longcat_flash_refusals() -> None:
    assert any("moe_topk" in e for e in errors({**LONGCAT, "moe_topk": None}))
    # a null num_experts_per_tok (the alias, set after the class's checks) is kept: the count stands, the active
    # part is not known
    kept = count({**LONGCAT, "num_experts_per_tok": None}).tree
    assert (kept.total, kept.active) == (12_944, None)
    assert any("q_lora_rank" in e for e in errors({**LONGCAT, "q_lora_rank": None}))
    assert any("zero_expert_num" in e for e in errors({**LONGCAT, "zero_expert_num": None}))
    assert any("num_hidden_layers" in e for e in errors({**LONGCAT, "num_hidden_layers": 1}))


# --- MiMo-V2-Flash --------------------------------------------------------------------------------------------------

# hidden 16, 4 heads of 6 (values 4 wide), 2 key/value heads (4 in sliding layers), 7 layers: full attention in
# layers 0 and 5, sliding in the others (window 5); a dense first layer, then 4 experts of 8 wide (top 2).
MIMO = {"model_type": "mimo_v2_flash", "num_hidden_layers": 7, "hidden_size": 16, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 6, "v_head_dim": 4, "vocab_size": 64, "intermediate_size": 24,
        "moe_intermediate_size": 8, "n_routed_experts": 4, "num_experts_per_tok": 2, "sliding_window": 5}
FULL = 16 * 24 + 16 * 12 + 16 * 8 + 16 * 16  # q 4·6, k 2·6, v 2·4, o from 4·4
SLIDING = 16 * 24 + 16 * 24 + 16 * 16 + 16 * 16 + 4  # k 4·6, v 4·4, and a sink per head
MM_DENSE = 3 * 16 * 24
MM_EXPERT = 3 * 16 * 8
MM_MOE = 4 * 16 + 4 * MM_EXPERT  # the router (a float32 weight), no shared expert
MM_NORMS = 2 * 16
MM_EDGES = 64 * 16 + 16 + 16 * 64


def test_mimo_v2_flash_by_hand() -> None:
    model = count(MIMO)
    layers = (FULL + MM_DENSE + MM_NORMS) + (FULL + MM_MOE + MM_NORMS) + 5 * (SLIDING + MM_MOE + MM_NORMS)
    assert model.tree.total == MM_EDGES + layers == 21_380
    assert model.tree.active == model.tree.total - 6 * 2 * MM_EXPERT
    assert layer_indices(model.spec) == {"dense_layers": (0,), "moe_layers": (5,), "moe_layers_sliding": (1, 2, 3, 4, 6)}
    # per token: a full layer's 2 heads × (keys 6 + values 4), a sliding one's 4 heads × 10, in bfloat16 (3 tokens:
    # what transformers' cache holds)
    assert kv_bytes(MIMO, 3) == (2 * 20 + 5 * 40) * 3 * 2
    # past the window the sliding layers hold the window (transformers' static sliding cache; its dynamic one keeps
    # window - 1, as lsp-count's other sliding-window decoders count it too)
    assert kv_bytes(MIMO, 100) == (2 * 20 * 100 + 5 * 40 * 5) * 2


def test_mimo_v2_flash_layer_types_and_window() -> None:
    # all full attention: every layer's attention as layer 0's
    full = {**MIMO, "layer_types": ["full_attention"] * 7}
    assert count(full).tree.total == 21_380 - 5 * (SLIDING - FULL)
    # sliding_window_size is the reference implementation's window, one less than transformers'
    assert kv_bytes({**MIMO, "sliding_window_size": 3}, 100) == (2 * 20 * 100 + 5 * 40 * 4) * 2
    # per-layer rotary settings: a null entry is a layer type without a rotary embedding
    rope = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}, "sliding_attention": None}
    assert count({**MIMO, "rope_parameters": rope}).tree.total == 21_380


def test_mimo_v2_flash_refusals() -> None:
    # rope_parameters is read as written: one entry per attention type the layers use, each with its rope_theta
    assert errors({**MIMO, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}})
    assert errors({**MIMO, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1.0}}})
    assert errors({**MIMO, "rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding_attention": None}})
    assert any("rope_scaling" in e for e in errors({**MIMO, "rope_scaling": None}))
    assert errors({**MIMO, "layer_types": ["full_attention", "sliding_attention"]})
    assert errors({**MIMO, "mlp_layer_types": ["dense"] + ["x"] * 6})
    assert errors({**MIMO, "num_experts_per_tok": None})
