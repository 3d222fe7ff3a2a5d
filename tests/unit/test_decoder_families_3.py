"""Ministral 3, MiniMax-M2, FlexOlmo, Solar Open, Granite SWA, BitNet, DiffLlama, EXAONE MoE, Granite MoE SWA,
AFMoE, Cohere 2 MoE and Doge, without torch: small configs counted by hand, each family's class defaults (the totals
transformers 5.25 builds on the meta device, ``sum(p.numel() for p in model.parameters())``, taken there once),
and the configs their classes refuse, refused at the key that says why."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import analyze, error_messages as errors, model as count

# transformers 5.25, meta device, each family's class with its config class's defaults.
CLASS_DEFAULTS = {
    "ministral3": ("Ministral3ForCausalLM", 8_489_553_920),
    "minimax_m2": ("MiniMaxM2ForCausalLM", 228_689_748_992),
    "flex_olmo": ("FlexOlmoForCausalLM", 33_270_665_216),
    "solar_open": ("SolarOpenForCausalLM", 102_651_793_408),
    "granite_swa": ("GraniteSWAForCausalLM", 2_144_463_840),
    "bitnet": ("BitNetForCausalLM", 2_741_155_840),
    "diffllama": ("DiffLlamaForCausalLM", 1_204_885_504),
    "exaone_moe": ("ExaoneMoeForCausalLM", 28_550_639_616),
    "granitemoe_swa": ("GraniteMoeSWAForCausalLM", 37_039_117_312),
    "afmoe": ("AfmoeForCausalLM", 19_232_600_000),
    "cohere2_moe": ("Cohere2MoeForCausalLM", 190_004_928_512),
    "doge": ("DogeForCausalLM", 403_055_872),
}

# The small model every hand count starts from: hidden 16, 2 query heads and 1 key/value head 8 wide, an MLP 8 wide,
# 2 layers, 10 tokens, an untied head.
SMALL = {"vocab_size": 10, "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
         "intermediate_size": 8, "num_hidden_layers": 2, "tie_word_embeddings": False, "pad_token_id": 0}
H, VOCAB, LAYERS = 16, 10, 2
Q = O = H * 2 * 8  # q_proj 16 → 16, o_proj 16 → 16: 256 each
KV = H * 1 * 8  # k_proj, v_proj 16 → 8: 128 each
ATTENTION = Q + 2 * KV + O  # 768
MLP = 3 * H * 8  # gate, up, down: 384
EDGES = VOCAB * H + H + H * VOCAB  # embed_tokens, the final norm, lm_head: 336


@pytest.mark.parametrize("model_type", sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str) -> None:
    architecture, total = CLASS_DEFAULTS[model_type]
    assert count({"model_type": model_type, "architectures": [architecture]}).tree.total == total


def test_ministral3_by_hand_and_every_layer_sliding_while_a_window_is_set() -> None:
    config = {"model_type": "ministral3", "architectures": ["Ministral3ForCausalLM"], **SMALL}
    model = count(config)
    # Llama's layer: attention, a gated MLP, two RMS norms
    assert model.tree.total == LAYERS * (ATTENTION + MLP + 2 * H) + EDGES == 2_704
    assert model.spec.values["layer_types"] == ("full_attention",) * 2  # no sliding_window by default
    windowed = count({**config, "sliding_window": 4})
    assert windowed.spec.values["layer_types"] == ("sliding_attention",) * 2
    # the cache: 2 layers × (keys + values) × 1 head × 8 values × 4 tokens (the window), bfloat16
    assert estimate_memory(windowed, Settings(context=100, batch=1)).line("kv_cache").bytes == 2 * 2 * 8 * 4 * 2
    # YaRN by default: 5 rotated values (0.9 of head_dim 6) cannot build its frequencies (3 of 6 can)
    assert any("YaRN" in m for m in errors({**config, "head_dim": 6, "partial_rotary_factor": 0.9}))
    assert not errors({**config, "head_dim": 6, "partial_rotary_factor": 0.5})


def test_minimax_m2_by_hand() -> None:
    config = {"model_type": "minimax_m2", "architectures": ["MiniMaxM2ForCausalLM"], **SMALL,
              "num_local_experts": 4, "num_experts_per_tok": 2}
    tree = count(config).tree
    # q/k norms over all heads (16 and 8 wide); 4 experts (gate_up 16 → 16, down 8 → 16) and a router 16 → 4
    experts = 4 * (H * 2 * 8 + 8 * H)
    layer = ATTENTION + (16 + 8) + experts + H * 4 + 2 * H
    assert tree.total == LAYERS * layer + EDGES == 5_184
    assert tree.active == tree.total - LAYERS * 2 * (H * 2 * 8 + 8 * H)  # 2 of the 4 experts a token
    # num_experts, MiniMaxM2Config's attribute_map alias, wins over num_local_experts
    assert count({**config, "num_experts": 2}).tree.total == tree.total - LAYERS * (2 * 384 + 2 * H)


def test_flex_olmo_by_hand() -> None:
    config = {"model_type": "flex_olmo", "architectures": ["FlexOlmoForCausalLM"], **SMALL, "num_experts": 3,
              "num_experts_per_tok": 1}
    tree = count(config).tree
    # OLMo 2's attention (q/k norms 16 and 8 wide) and post-norms; 3 experts of 384 and a router 16 → 3
    layer = ATTENTION + 24 + 3 * MLP + H * 3 + 2 * H
    assert tree.total == LAYERS * layer + EDGES == 4_384
    assert tree.active == tree.total - LAYERS * 2 * MLP


def test_solar_open_by_hand() -> None:
    config = {"model_type": "solar_open", "architectures": ["SolarOpenForCausalLM"], **SMALL, "n_routed_experts": 2,
              "num_experts_per_tok": 1, "moe_intermediate_size": 4, "n_shared_experts": 2}
    tree = count(config).tree
    # q/k/v biases off (attention_bias false); experts 4 wide (3 × 16 × 4 = 192 each), a float32 router 16 → 2, and
    # the shared experts as one MLP 4 × 2 = 8 wide (384)
    layer = ATTENTION + 2 * 192 + H * 2 + MLP + 2 * H
    assert tree.total == LAYERS * layer + EDGES == 3_536
    biased = count({**config, "attention_bias": True}).tree.total
    assert biased == tree.total + LAYERS * (16 + 8 + 8)  # on q, k and v; never on o_proj


def test_granite_swa_by_hand_and_its_sliding_layers() -> None:
    config = {"model_type": "granite_swa", "architectures": ["GraniteSWAForCausalLM"], **SMALL,
              "num_hidden_layers": 5, "sliding_window": 4}
    model = count(config)
    # Granite's layer and a sink logit per query head (2)
    assert model.tree.total == 5 * (ATTENTION + 2 + MLP + 2 * H) + EDGES == 6_266
    # the first layer of every four full, the others sliding: the cache keeps 2 × 100 + 3 × 4 tokens of 2 × 8 values
    assert model.spec.values["layer_types"] == ("full_attention",) + ("sliding_attention",) * 3 + ("full_attention",)
    assert estimate_memory(model, Settings(context=100, batch=1)).line("kv_cache").bytes == (2 * 100 + 3 * 4) * 16 * 2


def test_bitnet_by_hand() -> None:
    config = {"model_type": "bitnet", "architectures": ["BitNetForCausalLM"], **SMALL}
    config.pop("head_dim")  # (BitNetConfig has no head_dim: hidden_size / heads, 8)
    # Llama's layer with an RMS norm over the heads' output (16) and one over the MLP's product (8)
    assert count(config).tree.total == LAYERS * (ATTENTION + H + MLP + 8 + 2 * H) + EDGES == 2_752


def test_diffllama_by_hand_and_its_refusals() -> None:
    config = {"model_type": "diffllama", "architectures": ["DiffLlamaForCausalLM"], **SMALL,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 4}
    # q/o 16 → 16, k/v 16 → 8: as SMALL's; four λ vectors of head_dim (4) a layer; the group norm has no weights
    assert count(config).tree.total == LAYERS * (ATTENTION + 4 * 4 + MLP + 2 * H) + EDGES == 2_736
    assert any("odd" in m for m in errors({**config, "num_key_value_heads": 1}))
    assert any("attention_dropout" in m for m in errors({**config, "attention_dropout": 0.1}))


def test_exaone_moe_by_hand() -> None:
    config = {"model_type": "exaone_moe", "architectures": ["ExaoneMoeForCausalLM"], **SMALL, "num_hidden_layers": 3,
              "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 4, "num_shared_experts": 1,
              "mlp_layer_types": ["sparse", "dense", "sparse"]}
    tree = count(config).tree
    # q/k norms per head (8 each); MoE layers: 2 experts of 192, a router 16 → 2, a shared expert 4 wide (192)
    attention = ATTENTION + 2 * 8
    moe = 2 * 192 + H * 2 + 192
    assert tree.total == 3 * (attention + 2 * H) + 2 * moe + MLP + EDGES == 4_384
    assert tree.active == tree.total - 2 * 192
    # mlp_layer_types as many as the layers, of "dense" and "sparse" only; a window pattern that divides
    assert errors({**config, "mlp_layer_types": ["sparse", "dense"]})
    assert errors({**config, "mlp_layer_types": ["sparse", "moe", "sparse"]})
    assert errors({**config, "sliding_window_pattern": "LLG"})
    assert not errors({**config, "sliding_window_pattern": "LLG", "layer_types": ["sliding_attention"] * 3})


def test_granitemoe_swa_by_hand() -> None:
    config = {"model_type": "granitemoe_swa", "architectures": ["GraniteMoeSWAForCausalLM"], **SMALL,
              "num_local_experts": 2, "num_experts_per_tok": 1, "shared_intermediate_size": 4}
    tree = count(config).tree
    # sinks (2); 2 experts of 384 (intermediate_size wide) and a router 16 → 2; a shared MLP (input_linear 16 → 8,
    # output_linear 4 → 16)
    layer = ATTENTION + 2 + 2 * MLP + H * 2 + (H * 8 + 4 * H) + 2 * H
    assert tree.total == LAYERS * layer + EDGES == 3_924


def test_afmoe_by_hand_and_its_frozen_expert_bias() -> None:
    config = {"model_type": "afmoe", "architectures": ["AfmoeForCausalLM"], **SMALL, "num_hidden_layers": 3,
              "num_dense_layers": 1, "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 4,
              "num_shared_experts": 1}
    tree = count(config).tree
    # attention: q/k norms per head (8 each) and an output gate 16 → 16; four norms a layer
    attention = ATTENTION + 2 * 8 + H * 16
    # MoE layers: 2 experts of 192, a router 16 → 2, a shared expert 4 wide (192), and the expert bias (2)
    moe = 2 * 192 + H * 2 + 192 + 2
    assert tree.total == 3 * (attention + 4 * H) + MLP + 2 * moe + EDGES == 5_252
    assert tree.trainable == tree.total - 2 * 2  # the expert bias has no gradient
    # with no layer_types, global_attn_every_n_layers must divide
    assert errors({**config, "global_attn_every_n_layers": 0})
    assert not errors({**config, "global_attn_every_n_layers": 0, "layer_types": ["full_attention"] * 3})


def test_cohere2_moe_by_hand_and_its_rope_parameters() -> None:
    config = {"model_type": "cohere2_moe", "architectures": ["Cohere2MoeForCausalLM"], **SMALL,
              "num_hidden_layers": 3, "num_experts": 2, "num_experts_per_tok": 1, "num_shared_experts": 1,
              "first_k_dense_replace": 1, "prefix_dense_intermediate_size": 4}
    model = count(config)
    # one norm a layer; the dense layer's MLP 4 wide (192); MoE layers: 2 experts 8 wide (384), a router 16 → 2,
    # one shared expert as wide (384)
    moe = 2 * MLP + H * 2 + MLP
    assert model.tree.total == 3 * (ATTENTION + H) + 192 + 2 * moe + EDGES == 5_248
    # the dense prefix slides but every prefix_dense_sliding_window_pattern-th (1: none), the rest but every 4th
    assert model.spec.values["layer_types"] == ("full_attention", "sliding_attention", "sliding_attention")
    # its rotary embedding reads the written mapping's rope_type (and rope_theta, for the default type)
    assert errors({**config, "rope_parameters": {"rope_type": "default"}})
    assert not errors({**config, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}})


def test_doge_by_hand_dense_and_with_its_cross_domain_moe() -> None:
    config = {"model_type": "doge", "architectures": ["DogeForCausalLM"], **SMALL}
    # q/k norms per head (8 each), dt_proj 8 → 1 and A (1); two norms and two residual scales (16 each)
    layer = ATTENTION + 2 * 8 + 8 + 1 + MLP + 2 * H + 2 * H
    assert count(config).tree.total == LAYERS * layer + EDGES == 2_818
    # is_moe: the MLP is the shared expert; a router_gate 16 → 2 × ⌊√9⌋ = 6 and 9 experts of two 16-wide rows
    tree = count({**config, "is_moe": True, "num_experts": 9, "num_experts_per_tok": 2}).tree
    assert tree.total == LAYERS * (layer + H * 6 + 9 * 2 * H) + EDGES == 3_586
    assert tree.active == tree.total - LAYERS * 7 * 2 * H  # 2 of the 9 experts a token
    # num_experts and num_experts_per_tok are read with is_moe only
    assert count({**config, "num_experts": 9}).tree.total == 2_818


def test_the_top_k_messages_name_the_family_s_own_key() -> None:
    # ERNIE 4.5-MoE's top-k is moe_k, Gemma 4's top_k_experts: the messages say the key the file writes.
    # (a warning: transformers builds the model, and only the router's torch.topk fails)
    ernie = analyze({"model_type": "ernie4_5_moe", "moe_num_experts": 4, "moe_k": 9})
    (warning,) = [p for p in ernie.problems if "more than the" in p.message]
    assert warning.severity == "warning" and ernie.models
    assert warning.message.startswith("moe_k (9) is more than the 4 experts: transformers builds the model (counted)")
    gemma4 = analyze({"model_type": "gemma4_text", "enable_moe_block": True, "num_experts": 4, "top_k_experts": None})
    assert any(p.message.startswith("top_k_experts is not set (null)") for p in gemma4.problems)
