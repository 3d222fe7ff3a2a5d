"""GPT-Neo, CodeGen, MPT, DBRX, VaultGemma, dots.llm1, ERNIE 4.5 MoE, GLM-4.7-Flash, GraniteMoE-shared, JetMoE,
Persimmon, Apertus, MiniCPM3, DeepSeek-V3.2 and Llama 4 (text), without torch: small configs counted by hand (the arithmetic
in each test), each family's class defaults as transformers 5.25 builds them on the meta device (each number below
was taken from ``sum(p.numel() for p in model.parameters())`` there first), and configs their classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import analyze, model as count


def errors(config: dict) -> list[str]:
    report = analyze(config)
    found = [p.message for p in report.problems if p.severity == "error"]
    assert found and not report.models, report.problems
    return found


def warnings(config: dict) -> list[str]:
    report = analyze(config)
    assert report.models and not report.has_errors, report.problems
    return [p.message for p in report.problems if p.severity == "warning"]


# Class defaults (only the keys a class cannot build without): transformers' totals (and trainable, where a
# parameter has no gradient) on the meta device.
CLASS_DEFAULTS = {
    "gpt_neo": ({}, 1_315_575_808),
    "codegen": ({}, 6_050_882_784),
    "mpt": ({}, 1_311_213_568),
    "dbrx": ({"attn_config": {"rope_theta": 500000}}, 2_459_207_680),
    "vaultgemma": ({}, 2_614_222_080),
    "dots1": ({"n_routed_experts": 128, "n_shared_experts": 2}, 163_585_920_960),
    "ernie4_5_moe": ({}, 21_825_437_888),
    "glm4_moe_lite": ({}, 29_943_390_976),
    "granitemoeshared": ({}, 37_039_116_288),
    "persimmon": ({}, 9_397_175_296),
    "apertus": ({}, 6_979_596_352),
    "minicpm3": ({}, 4_073_875_968),
    "deepseek_v32": ({}, 671_877_929_216),
    "llama4_text": ({}, 107_769_861_120),
    "jetmoe": ({}, 4_293_888_000),
}


@pytest.mark.parametrize("model_type", sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str) -> None:
    extra, total = CLASS_DEFAULTS[model_type]
    assert count({"model_type": model_type, **extra}).tree.total == total


def test_class_defaults_active_parameters() -> None:
    # Llama 4 Scout's shape: 48 MoE layers of 16 experts, each 3 × 5,120 × 8,192, of which a token uses one.
    tree = count({"model_type": "llama4_text"}).tree
    assert tree.active == tree.total - 48 * 15 * 3 * 5120 * 8192 == 17_172_894_720
    # ERNIE 4.5 MoE: layers 1-27 MoE, 6 of 64 experts (3 × 2,560 × 1,536 each); its (1, 64) score-correction
    # biases are parameters with no gradient.
    tree = count({"model_type": "ernie4_5_moe"}).tree
    assert tree.active == tree.total - 27 * 58 * 3 * 2560 * 1536 == 3_352_150_208
    assert tree.trainable == tree.total - 27 * 64 == 21_825_436_160


def test_gpt_neo_by_hand() -> None:
    config = {"model_type": "gpt_neo", "vocab_size": 10, "hidden_size": 8, "num_layers": 2, "num_heads": 2,
              "max_position_embeddings": 16, "attention_types": [[["global", "local"], 1]]}
    # wte 10·8 + wpe 16·8; per layer ln_1 16, q/k/v 3·64 (no bias), out_proj 64 + 8, ln_2 16,
    # c_fc 8·32 + 32 (intermediate_size null: 4·8), c_proj 32·8 + 8; ln_f 16; head tied
    per_layer = 16 + 3 * 64 + 72 + 16 + (8 * 32 + 32) + (32 * 8 + 8)
    assert count(config).tree.total == 80 + 128 + 2 * per_layer + 16 == 1920
    # attention_types must expand to one type per layer, each global or local
    assert any("expands to 4 layers" in e for e in errors({**config, "attention_types": [[["global", "local"], 2]]}))
    assert any('"sparse"' in e for e in errors({**config, "attention_types": [[["global", "sparse"], 1]]}))


def test_codegen_by_hand() -> None:
    config = {"model_type": "codegen", "vocab_size": 10, "n_embd": 8, "n_layer": 1, "n_head": 2, "rotary_dim": 2}
    # wte 80; ln_1 16, qkv_proj 8·24, out_proj 8·8 (no biases), fc_in 8·32 + 32, fc_out 32·8 + 8; ln_f 16;
    # lm_head (untied) 8·10 + a bias of 10
    layer = 16 + 8 * 24 + 64 + (8 * 32 + 32) + (32 * 8 + 8)
    assert count(config).tree.total == 80 + layer + 16 + 90 == 1010


def test_mpt_by_hand_and_a_floored_head_width() -> None:
    config = {"model_type": "mpt", "vocab_size": 10, "d_model": 8, "n_layers": 1, "n_heads": 2}
    # wte 80; norm_1 8 (no bias), Wqkv 8·24, out_proj 8·8, norm_2 8, up_proj 8·32, down_proj 32·8
    # (4 × d_model: expansion_ratio is not read); norm_f 8; head tied
    assert count(config).tree.total == 80 + (8 + 192 + 64 + 8 + 256 + 256) + 8 == 872
    assert count({**config, "expansion_ratio": 7}).tree.total == 872
    # 2 heads of a 9 width: Wqkv and out_proj stay 9 wide (the model builds; its forward pass fails)
    odd = {**config, "d_model": 9}
    assert count(odd).tree.total == 90 + (9 + 9 * 27 + 81 + 9 + 2 * 9 * 36) + 9 == 1089
    assert any("forward pass fails" in w for w in warnings(odd))


def test_dbrx_by_hand() -> None:
    config = {"model_type": "dbrx", "vocab_size": 10, "d_model": 8, "n_layers": 1, "n_heads": 2,
              "attn_config": {"rope_theta": 10000, "kv_n_heads": 1},
              "ffn_config": {"ffn_hidden_size": 4, "moe_num_experts": 3, "moe_top_k": 1}}
    # wte 80; norm_1 8, Wqkv 8·(8 + 2·1·4), out_proj 8·8, norm_2 8; router.layer 8·3; experts w1, v1, w2 3·4 × 8
    # each; norm_f 8; lm_head 8·10
    tree = count(config).tree
    assert tree.total == 80 + 8 + 128 + 64 + 8 + 24 + 3 * 3 * 4 * 8 + 8 + 80 == 688
    assert tree.active == 688 - 2 * 3 * 4 * 8 == 496  # one of three experts a token
    # hidden_size (the attribute_map alias) sets the width after DbrxConfig copied d_model (2,048 by default) into
    # ffn_config: the router and experts are 2,048 wide
    aliased = {k: v for k, v in config.items() if k != "d_model"} | {"hidden_size": 8}
    assert count(aliased).tree.total == 688 - 24 - 288 + 2048 * 3 + 3 * 3 * 4 * 2048 == 80248
    assert any("forward pass fails" in w for w in warnings(aliased))
    assert any("rope_theta" in e for e in errors({**config, "attn_config": {"kv_n_heads": 1}}))
    assert any("kv_n_heads" in e for e in errors({**config, "attn_config": {"rope_theta": 1, "kv_n_heads": 1.0}}))
    assert any("tie_word_embeddings" in e for e in errors({**config, "tie_word_embeddings": True}))


def test_vaultgemma_by_hand() -> None:
    config = {"model_type": "vaultgemma", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 6}
    # embed 80; per layer q 8·8, k, v 8·4, o 8·8, MLP 3·8·6, two norms (input, pre-feedforward) 2·8; norm 8; tied
    model = count(config)
    assert model.tree.total == 80 + 2 * (64 + 32 + 32 + 64 + 144 + 16) + 8 == 792
    assert model.spec.values["layer_types"] == ("sliding_attention", "full_attention")
    assert any("2 entries for 3 layers" in e for e in errors({**config, "num_hidden_layers": 3,
                                                              "layer_types": ["full_attention"] * 2}))


def test_dots1_by_hand() -> None:
    config = {"model_type": "dots1", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
              "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 12, "attention_bias": True,
              "first_k_dense_replace": 1, "n_routed_experts": 4, "moe_intermediate_size": 2, "n_shared_experts": 1,
              "num_experts_per_tok": 2}
    # attention (heads 4 wide, biases): q 8·8 + 8, k, v 8·4 + 4, o 8·8 + 8, q_norm / k_norm 4 each; norms 16
    attention = 72 + 36 + 36 + 72 + 8
    dense = attention + 16 + 3 * 8 * 12
    moe = attention + 16 + 4 * 8 + 4 * 3 * 2 * 8 + 3 * 8 * 2  # router, 4 experts, one shared expert
    tree = count(config).tree
    assert tree.total == 80 + dense + moe + 8 + 80 == 1208
    assert tree.active == 1208 - 2 * 3 * 2 * 8 == 1112
    # Dots1Config has no default for the experts: a model with MoE layers cannot be built without them
    missing = {k: v for k, v in config.items() if k != "n_routed_experts"}
    assert any("n_routed_experts is not set" in e for e in errors(missing))
    assert count({**missing, "first_k_dense_replace": 2}).tree.total == 80 + 2 * dense + 8 + 80


def test_ernie4_5_moe_by_hand() -> None:
    config = {"model_type": "ernie4_5_moe", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
              "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 12, "moe_num_experts": 4,
              "moe_k": 2, "moe_intermediate_size": 2, "moe_num_shared_experts": 1}
    # attention 8·8 + 8·4 + 8·4 + 8·8; norms 16; dense MLP 3·8·12; MoE: router 4·8, a (1, 4) frozen score
    # correction, 4 experts 3·2·8, a shared expert 3·8·2; layers 1 and 2 MoE (start 1, end -1: the last)
    attention, norms = 192, 16
    dense, moe = attention + norms + 288, attention + norms + 32 + 4 + 192 + 48
    tree = count(config).tree
    assert tree.total == 80 + dense + 2 * moe + 8 == 1552  # head tied by default
    assert tree.trainable == 1552 - 2 * 4
    assert tree.active == 1552 - 2 * 2 * 48 == 1360
    assert count({**config, "moe_layer_interval": 2}).tree.total == 80 + 2 * dense + moe + 8 == 1564
    # num_experts (the attribute_map alias) wins over moe_num_experts
    assert count({**config, "num_experts": 2}).tree.total == 1552 - 2 * (2 * 8 + 2 + 2 * 48)
    assert any("single MTP layer" in e for e in errors({**config, "num_nextn_predict_layers": 2}))
    assert any('"moe_layer_start_index": null' in e for e in errors({**config, "moe_layer_start_index": None}))


MLA = {"q_lora_rank": 4, "kv_lora_rank": 4, "qk_nope_head_dim": 2, "qk_rope_head_dim": 2, "v_head_dim": 2}
# q_a 8·4, q_a_layernorm 4, q_b 4·(2·4), kv_a_proj_with_mqa 8·(4 + 2), kv_a_layernorm 4, kv_b 4·(2·(2 + 2)), o 4·8
MLA_PARAMS = 32 + 4 + 32 + 48 + 4 + 32 + 32
MOE = {"n_routed_experts": 4, "moe_intermediate_size": 2, "n_shared_experts": 1, "num_experts_per_tok": 2}
MOE_PARAMS = 4 * 8 + 4 * 3 * 2 * 8 + 3 * 8 * 2  # router, 4 experts, one shared expert


def test_glm4_moe_lite_by_hand() -> None:
    config = {"model_type": "glm4_moe_lite", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
              "num_attention_heads": 2, "intermediate_size": 12, **MLA, **MOE}
    # mlp_layer_types by default: dense, then sparse
    tree = count(config).tree
    assert tree.total == 80 + (MLA_PARAMS + 16 + 288) + (MLA_PARAMS + 16 + MOE_PARAMS) + 8 + 80 == 1128
    assert tree.active == 1128 - 2 * 48
    assert count({**config, "mlp_layer_types": ["sparse", "sparse"]}).tree.total == 80 + 2 * (MLA_PARAMS + 16 + MOE_PARAMS) + 88
    # head_dim is qk_rope_head_dim's attribute_map alias
    assert count({**config, "head_dim": 4}).tree.total == count({**config, "qk_rope_head_dim": 4}).tree.total
    assert any("1 entries for 2 layers" in e for e in errors({**config, "mlp_layer_types": ["dense"]}))


def test_granitemoeshared_by_hand() -> None:
    config = {"model_type": "granitemoeshared", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 4, "num_local_experts": 3, "num_experts_per_tok": 1,
              "shared_intermediate_size": 6}
    # attention 4·8·8; norms 16; router 8·3; experts 3 · 3·4·8; shared_mlp input_linear 8·12, output_linear 6·8
    tree = count(config).tree
    assert tree.total == 80 + (256 + 16 + 24 + 288 + 96 + 48) + 8 + 80 == 896
    assert tree.active == 896 - 2 * 96
    assert count({**config, "shared_intermediate_size": 0}).tree.total == 896 - 144


def test_persimmon_by_hand() -> None:
    config = {"model_type": "persimmon", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 12}
    # embed 80; LayerNorms 2·16; query_key_value 8·24 + 24; dense 8·8 + 8; q/k LayerNorms (4 wide) 2·8;
    # dense_h_to_4h 8·12 + 12, dense_4h_to_h 12·8 + 8; final LayerNorm 16; lm_head 8·10
    assert count(config).tree.total == 80 + (32 + 216 + 72 + 16 + 108 + 104) + 16 + 80 == 724
    assert count({**config, "qk_layernorm": False}).tree.total == 724 - 16


def test_apertus_by_hand() -> None:
    config = {"model_type": "apertus", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 12}
    # embed 80; q/k/v/o 4·64; q_norm, k_norm 4 each; up_proj 8·12, down_proj 12·8, xIELU's alpha_p and alpha_n;
    # norms 16; norm 8; lm_head 80
    assert count(config).tree.total == 80 + (256 + 8 + 96 + 96 + 2 + 16) + 8 + 80 == 642
    assert count({**config, "hidden_act": "prelu"}).tree.total == 641  # PReLU's one weight
    assert count({**config, "hidden_act": "silu"}).tree.total == 640
    assert any('"hidden_act": "swiglu"' in e for e in errors({**config, "hidden_act": "swiglu"}))


def test_minicpm3_by_hand_and_its_latent_cache() -> None:
    config = {"model_type": "minicpm3", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 12, **{**MLA, "v_head_dim": None}}
    # v_head_dim null: 8 / 2 = 4, so kv_b 4·(2·(2 + 4)) and o_proj (2·4)·8; embed 80, norms 16, MLP 288; tied head
    attention = 32 + 4 + 32 + 48 + 4 + 48 + 64
    model = count(config)
    assert model.tree.total == 80 + attention + 16 + 288 + 8 == 624
    # the cache holds the latent: (kv_lora_rank 4 + rope 2) values per token and layer, in bfloat16
    assert estimate_memory(model, Settings(context=100, batch=1)).line("kv_cache").bytes == 6 * 2 * 100


def test_deepseek_v32_by_hand_and_its_indexer_cache() -> None:
    config = {"model_type": "deepseek_v32", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
              "num_attention_heads": 2, "intermediate_size": 12, "first_k_dense_replace": 1, "index_n_heads": 2,
              "index_head_dim": 4, **MLA, **MOE}
    # the indexer: wq_b 4·(2·4), wk 8·4, k_norm (a LayerNorm) 2·4, weights_proj 8·2
    attention = MLA_PARAMS + 32 + 32 + 8 + 16
    model = count(config)
    assert model.tree.total == 80 + (attention + 16 + 288) + (attention + 16 + MOE_PARAMS) + 8 + 80 == 1304
    assert model.tree.active == 1304 - 2 * 48
    # per token and layer the cache holds the latent (4 + 2) and the indexer's key (4), in bfloat16
    assert estimate_memory(model, Settings(context=100, batch=1)).line("kv_cache").bytes == 2 * (6 + 4) * 2 * 100
    assert any("3 entries for 2 layers" in e for e in errors({**config, "mlp_layer_types": ["dense"] * 3}))


def test_llama4_text_by_hand() -> None:
    config = {"model_type": "llama4_text", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 2,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 2,
              "intermediate_size_mlp": 12, "num_local_experts": 4, "num_experts_per_tok": 1,
              "interleave_moe_layer_step": 2}
    # attention 8·8 + 2·8·4 + 8·8 (its qk norms have no weights); norms 16; layer 0 dense, intermediate_size_mlp
    # wide (3·8·12); layer 1 MoE: router 8·4, 4 experts 3·2·8, a shared expert as wide (3·8·2)
    tree = count(config).tree
    assert tree.total == 80 + (192 + 16 + 288) + (192 + 16 + 32 + 192 + 48) + 8 + 80 == 1144
    assert tree.active == 1144 - 3 * 48
    assert count({**config, "moe_layers": [0, 1]}).tree.total == 1144 - 288 + (32 + 192 + 48)
    assert any('"no_rope_layers": 1 entries' in e for e in errors({**config, "no_rope_layers": [1]}))


def test_jetmoe_by_hand() -> None:
    config = {"model_type": "jetmoe", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
              "num_key_value_heads": 2, "kv_channels": 2, "intermediate_size": 3, "num_local_experts": 3,
              "num_experts_per_tok": 1}
    # attention: kv_proj 8·(2·2·2), an output bias 8, router 8·3, 3 experts of a query (4·8) and an output (8·4)
    # projection; MLP: an output bias 8, router 8·3, 3 experts of input_linear (2·3·8) and output_linear (8·3);
    # norms 16; final norm 8; embed 80, tied head
    attention, mlp = 64 + 8 + 24 + 3 * 64, 8 + 24 + 3 * 72
    tree = count(config).tree
    assert tree.total == 80 + attention + mlp + 16 + 8 == 640
    assert tree.active == 640 - 2 * 64 - 2 * 72  # one of three experts of each mixture
    # num_attention_heads (num_key_value_heads × num_experts_per_tok unless given) shapes no parameter
    assert count({**config, "num_attention_heads": 3}).tree.total == 640


def test_interleaved_moe_layers_keep_transformers_layer_numbers() -> None:
    """The tree holds a stack's dense layers before its MoE layers; layer_indices gives each kind's layer numbers,
    which a LoRA regex on module names needs where they interleave (Llama 4's interleave_moe_layer_step)."""
    from lsp_count.core.layouts.decoder import layer_indices
    from lsp_count.formats.lora import LoraTargets, apply_lora

    config = {"model_type": "llama4_text", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 4,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "intermediate_size": 2,
              "intermediate_size_mlp": 12, "num_local_experts": 4, "interleave_moe_layer_step": 2}
    model = count(config)
    indices = layer_indices(model.spec)
    assert indices == {"dense_layers": (0, 2), "moe_layers": (1, 3)}
    # layer 1's shared expert gate_proj (8 → 2): lora_A 2·8 + lora_B 2·2
    adapted = apply_lora(model.tree, 2, LoraTargets(pattern=r"model\.layers\.1\.feed_forward\.shared_expert\.gate_proj"),
                         model_type="llama4_text", layer_indices=indices)
    assert not adapted.errors and adapted.tree.trainable == 2 * 8 + 2 * 2
    # a stack of one kind (every layer MoE) needs none
    assert layer_indices(count({**config, "interleave_moe_layer_step": 1}).spec) == {}
