"""Beam, A.X-K2 and HY-V4, without torch. Beam: Qwen3-MoE's attention with a sigmoid output gate (gate_proj and one bias per
head), four norms a layer, sliding-window layers (every sixth and the last full, with no rotary positions), dense
layers then experts (mlp_layer_types), and a token classifier. A.X-K2: DeepSeek-V3.2 with the query and an output gate
from one projection (q_gate_proj) and gated RMS norms (a low-rank sigmoid gate over the norm's output). HY-V4:
GLM-MoE-DSA's latent attention with an output gate and sinks, and DeepSeek-V4's hyper-connections without their stream
mixing. Small configs
counted by hand (the arithmetic in each test), the class defaults as transformers 5.25 builds them on the meta device
(``sum(p.numel() for p in model.parameters())``, taken there once), what the caches hold (checked against
transformers' cache after a forward pass where it is installed), LoRA as peft adapts them, and the configs their
classes refuse."""

from __future__ import annotations

import pytest

from config_models import (assert_lora_counts, assert_peft_lora_counts, error_messages as errors, forward_cache_bytes,
                           kv_cache_bytes as kv_bytes, lora_counts, model as count, peft_lora_counts)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("beam", "BeamForCausalLM"): 501_267_599_808,
    ("beam", "BeamModel"): 500_489_687_488,
    ("beam", "BeamForTokenClassification"): 500_489_697_730,
    ("axk2", "AXK2ForCausalLM"): 20_314_494_976,
    ("axk2", "AXK2Model"): 19_978_950_656,
    ("axk2", "AXK2ForSequenceClassification"): 19_978_954_752,
    ("axk2", "AXK2ForTokenClassification"): 19_978_954_754,
    ("hy_v4", "HYV4ForCausalLM"): 58_278_193_133,
    ("hy_v4", "HYV4Model"): 57_937_930_221,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert count({"model_type": model_type, "architectures": [architecture]}).tree.total == \
        CLASS_DEFAULTS[(model_type, architecture)]


# Vocabulary 100, hidden 16, 2 query heads of 8 (one key/value head), 4 layers: by default the first three dense
# (MLPs 24 wide), the last a mixture of 4 experts 8 wide.
BEAM = {"model_type": "beam", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "num_experts": 4, "moe_intermediate_size": 8,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "sliding_window": 16}
# q 16·16, k 16·8, v 16·8, o 16·16, q_norm and k_norm 8 each, the output gate's gate_proj 16·16 and gate_bias 2
ATTENTION = 256 + 128 + 128 + 256 + 8 + 8 + 256 + 2  # 1,042
NORMS = 4 * 16  # input, post_attention, pre_feedforward, post_feedforward
DENSE = 3 * 16 * 24  # gate, up, down: 1,152
EXPERTS = 4 * 16 + 4 * (2 * 8 * 16 + 16 * 8)  # the router (gate, 4 × 16), each expert's gate_up_proj and down_proj: 1,600


def test_beam_by_hand() -> None:
    layers = 3 * (ATTENTION + NORMS + DENSE) + (ATTENTION + NORMS + EXPERTS)  # 6,774 + 2,706
    body = 100 * 16 + layers + 16  # embed_tokens, the layers, the final norm
    assert count({**BEAM, "architectures": ["BeamForCausalLM"]}).tree.total == body + 100 * 16 == 12_696
    assert count({**BEAM, "architectures": ["BeamModel"]}).tree.total == body == 11_096
    # GenericForTokenClassification: a score linear to 2 labels with a bias (none where token_classification_bias
    # is false)
    assert count({**BEAM, "architectures": ["BeamForTokenClassification"]}).tree.total == body + 16 * 2 + 2
    assert count({**BEAM, "architectures": ["BeamForTokenClassification"],
                  "token_classification_bias": False}).tree.total == body + 16 * 2


def test_beam_layer_lists_by_hand() -> None:
    """mlp_layer_types as written: experts in two layers instead of one."""
    config = {**BEAM, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"], "architectures": ["BeamModel"]}
    assert count(config).tree.total == 100 * 16 + 2 * (ATTENTION + NORMS + DENSE) + 2 * (
        ATTENTION + NORMS + EXPERTS) + 16


def test_beam_refusals() -> None:
    assert any("3 entries for 4 layers" in m for m in errors({**BEAM, "layer_types": ["full_attention"] * 3}))
    assert any("3 entries for 4 layers" in m for m in errors({**BEAM, "mlp_layer_types": ["dense"] * 3}))
    assert any("must divide" in m for m in errors({**BEAM, "num_attention_heads": 4, "num_key_value_heads": 3}))
    # rope_parameters is read per attention type, as written: a null rope_scaling replaces it, an entry lacks
    # rope_theta, a type the layers use has no entry
    assert errors({**BEAM, "rope_scaling": None})
    assert errors({**BEAM, "rope_parameters": {"sliding_attention": {"rope_type": "default"}, "full_attention": None}})
    assert errors({**BEAM, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}}})


def test_beam_cache_by_hand() -> None:
    """Three sliding layers (window 16) and the last full one, each one key/value head of 8 in bfloat16: keys and
    values, 2 × 8 × 2 bytes a token; under the window all four hold the context."""
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 7, 2) == 4 * 2 * 7 * 2 * 8 * 2
    long_context = 3 * 16 + 100  # the sliding layers hold the window, the full one all 100 tokens
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 100, 1) == long_context * 2 * 8 * 2


def test_beam_cache_is_what_a_forward_pass_fills() -> None:
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 7, 2) == \
        forward_cache_bytes(BEAM, "BeamForCausalLM")


def test_small_totals_are_transformers_s() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for architecture in ("BeamForCausalLM", "BeamModel", "BeamForTokenClassification"):
        hf = transformers.CONFIG_MAPPING["beam"](**{k: v for k, v in BEAM.items() if k != "model_type"})
        with torch.device("meta"):
            built = getattr(transformers, architecture)(hf)
        assert count({**BEAM, "architectures": [architecture]}).tree.total == \
            sum(p.numel() for p in built.parameters()), architecture


# (targets, peft 0.22's (total, trainable) for rank 2, taken once; None: peft refuses them). peft's v4 -> v5 MoE
# conversion runs for beam: gate_proj and up_proj keep the dense MLPs' and the attention's own gate_proj and name the
# experts' fused gate_up_proj as well (both halves, or a refusal); gate names the router.
LORA = (("all-linear", (15_312, 2_616)), (["gate_proj", "up_proj", "o_proj"], (14_200, 1_504)),
        (["gate"], (12_736, 40)), (["k_proj", "down_proj"], (13_320, 624)), (["gate_proj", "q_proj"], None))


def test_lora_adapts_what_peft_adapts(tmp_path) -> None:
    assert_lora_counts(tmp_path, {**BEAM, "architectures": ["BeamForCausalLM"]}, LORA)


def test_lora_literals_are_peft_s() -> None:
    assert_peft_lora_counts({**BEAM, "architectures": ["BeamForCausalLM"]}, LORA)


# --- A.X-K2 ---------------------------------------------------------------------------------------------------------

# Vocabulary 100, hidden 16, 2 heads (queries and keys 4 + 2 wide, values 4), query rank 8, latent 4, an indexer of 2
# heads of 4, gated norms of rank 2; 2 layers: by default the first dense (MLP 24 wide), the second a mixture of 4
# experts 8 wide and one shared expert.
AXK2 = {"model_type": "axk2", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 2, "intermediate_size": 24, "n_routed_experts": 4, "moe_intermediate_size": 8,
        "num_experts_per_tok": 2, "n_shared_experts": 1, "q_lora_rank": 8, "kv_lora_rank": 4, "qk_nope_head_dim": 4,
        "qk_rope_head_dim": 2, "v_head_dim": 4, "index_n_heads": 2, "index_head_dim": 4, "gated_norm_rank": 2,
        "bos_token_id": 0, "eos_token_id": 0}
# q_a_proj 16·8, q_a_layernorm 8, q_gate_proj (2·8)·(2·(6 + 4)), kv_a_proj_with_mqa 16·(4 + 2), kv_a_layernorm 4,
# kv_b_proj 4·(2·(4 + 4)), o_proj (2·4)·16; the indexer: wq_b 8·(2·4), wk 16·4, k_norm (a LayerNorm) 2·4,
# weights_proj 16·2
MLA_ATTENTION = 128 + 8 + 320 + 96 + 4 + 64 + 128 + (64 + 64 + 8 + 32)  # 916
GATED_NORM = 16 + 16 * 2 + 2 * 16  # the norm, its gate MLP's fc1 and fc2: 80
# the router (gate, 4 × 16), 4 experts (gate_up_proj 16·16, down_proj 8·16), the shared expert (3 × 16·8)
AXK2_MOE = 64 + 4 * (16 * 16 + 8 * 16) + 3 * 16 * 8  # 1,984


def test_axk2_by_hand() -> None:
    dense = MLA_ATTENTION + GATED_NORM + 16 + 3 * 16 * 24  # a plain post_attention_layernorm: 2,164
    sparse = MLA_ATTENTION + 2 * GATED_NORM + AXK2_MOE  # both norms gated: 3,060
    body = 100 * 16 + dense + sparse + 16
    assert count({**AXK2, "architectures": ["AXK2ForCausalLM"]}).tree.total == body + 100 * 16 == 8_440
    assert count({**AXK2, "architectures": ["AXK2Model"]}).tree.total == body == 6_840
    assert count({**AXK2, "architectures": ["AXK2ForSequenceClassification"]}).tree.total == body + 16 * 2
    assert count({**AXK2, "architectures": ["AXK2ForTokenClassification"]}).tree.total == body + 16 * 2 + 2
    # mlp_layer_types from the legacy keys: dense from first_k_dense_replace 2 on
    assert count({**AXK2, "first_k_dense_replace": 2, "architectures": ["AXK2Model"]}).tree.total == \
        100 * 16 + 2 * dense + 16


def test_axk2_refusals() -> None:
    assert any("3 entries for 2 layers" in m for m in errors({**AXK2, "mlp_layer_types": ["dense"] * 3}))
    assert any('"bogus" is not one of' in m for m in errors({**AXK2, "mlp_layer_types": ["dense", "bogus"]}))
    assert any('"moe_layer_freq": null' in m for m in errors({**AXK2, "moe_layer_freq": None}))


def test_axk2_cache_by_hand() -> None:
    """Per token and layer the latent (4 + 2) and the indexer's key (4), in bfloat16."""
    assert kv_bytes({**AXK2, "architectures": ["AXK2ForCausalLM"]}, 7, 2) == 2 * 7 * 2 * (6 + 4) * 2 == 560


def test_axk2_cache_is_what_a_forward_pass_fills() -> None:
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    assert kv_bytes({**AXK2, "architectures": ["AXK2ForCausalLM"]}, 7, 2) == \
        forward_cache_bytes(AXK2, "AXK2ForCausalLM")


def test_axk2_small_totals_are_transformers_s() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for architecture in ("AXK2ForCausalLM", "AXK2Model", "AXK2ForSequenceClassification", "AXK2ForTokenClassification"):
        hf = transformers.CONFIG_MAPPING["axk2"](**{k: v for k, v in AXK2.items() if k != "model_type"})
        with torch.device("meta"):
            built = getattr(transformers, architecture)(hf)
        assert count({**AXK2, "architectures": [architecture]}).tree.total == \
            sum(p.numel() for p in built.parameters()), architecture


# (targets, peft 0.22's (total, trainable) for rank 2, taken once; None: peft refuses them). peft's MoE conversion
# does not run for axk2 (no conversion pattern): the router gate is no nn.Linear, and the gated norms' fc1 and fc2 are.
AXK2_LORA = (("all-linear", (9_760, 1_320)), (["q_gate_proj", "fc1"], (8_692, 252)),
             (["gate_proj", "up_proj", "down_proj"], (8_824, 384)), (["fc2", "o_proj", "wq_b"], (8_708, 268)),
             (["gate", "kv_b_proj"], None))


def test_axk2_lora_adapts_what_peft_adapts(tmp_path) -> None:
    for targets, expected in AXK2_LORA:
        assert lora_counts(tmp_path, {**AXK2, "architectures": ["AXK2ForCausalLM"]}, targets) == expected, targets


def test_axk2_lora_literals_are_peft_s() -> None:
    for module in ("torch", "transformers", "peft"):
        pytest.importorskip(module)
    for targets, expected in AXK2_LORA:
        assert peft_lora_counts({**AXK2, "architectures": ["AXK2ForCausalLM"]}, targets) == expected, targets


# --- HY-V4 ----------------------------------------------------------------------------------------------------------

# Vocabulary 100, hidden 16, 2 heads (queries and keys 4 + 2 wide, values 4), query rank 8, latent 4, an indexer of 2
# heads of 4, 2 hyper-connection streams; 2 layers: the first dense (MLP 24 wide), the second 4 experts 8 wide and a
# shared one; by default both run their own indexer (indexer_types: the first and every fourth from the second).
HY_V4 = {"model_type": "hy_v4", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 24, "n_routed_experts": 4, "moe_intermediate_size": 8, "num_experts_per_tok": 2,
         "n_shared_experts": 1, "q_lora_rank": 8, "kv_lora_rank": 4, "qk_nope_head_dim": 4, "qk_rope_head_dim": 2,
         "v_head_dim": 4, "index_n_heads": 2, "index_head_dim": 4, "hc_mult": 2, "pad_token_id": 0, "bos_token_id": 0,
         "eos_token_id": 0}
INDEXER = 64 + 64 + 8 + 32  # wq_b 8·(2·4), wk 16·4, k_norm (a LayerNorm) 2·4, weights_proj 16·2
# q_a_proj 16·8, q_a_layernorm 8, q_b_proj 8·(2·6), kv_a_proj_with_mqa 16·6, kv_a_layernorm 4, kv_b_proj 4·(2·8),
# o_proj 8·16, the output gate's gate_proj 16·(2·4), sinks 2
HY_ATTENTION = 128 + 8 + 96 + 96 + 4 + 64 + 128 + 128 + 2  # 654
# attn_hc and ffn_hc: fn (2·2) × (2·16), base 2·2, scale 2 (no stream mixing: DeepSeek-V4's are (2 + 2)·2 wide, 3 scales)
HYPER = 2 * (4 * 32 + 4 + 2)  # 268


def test_hy_v4_by_hand() -> None:
    dense = HY_ATTENTION + INDEXER + HYPER + 2 * 16 + 3 * 16 * 24  # 2,274
    sparse = HY_ATTENTION + INDEXER + HYPER + 2 * 16 + AXK2_MOE  # 3,106
    hc_head = 2 * 32 + 2 + 1  # hc_fn, hc_base, hc_scale
    body = 100 * 16 + dense + sparse + hc_head + 16
    assert count({**HY_V4, "architectures": ["HYV4ForCausalLM"]}).tree.total == body + 100 * 16 == 8_663
    assert count({**HY_V4, "architectures": ["HYV4Model"]}).tree.total == body == 7_063
    # a third (MoE) layer that reuses the previous layer's top-k: no indexer of its own
    assert count({**HY_V4, "num_hidden_layers": 3, "architectures": ["HYV4Model"]}).tree.total == \
        body + sparse - INDEXER


def test_hy_v4_refusals() -> None:
    assert errors({**HY_V4, "q_lora_rank": None})
    assert any("3 entries for 2 layers" in m for m in errors({**HY_V4, "mlp_layer_types": ["dense"] * 3}))


def test_hy_v4_cache_by_hand() -> None:
    """Per token and layer the latent (4 + 2) and, in a layer with its own indexer, its key (4), in bfloat16."""
    assert kv_bytes({**HY_V4, "architectures": ["HYV4ForCausalLM"]}, 7, 2) == 2 * 7 * 2 * (6 + 4) * 2 == 560
    assert kv_bytes({**HY_V4, "num_hidden_layers": 3, "architectures": ["HYV4ForCausalLM"]}, 7, 2) == 560 + 7 * 2 * 6 * 2


def test_hy_v4_caches_are_what_a_forward_pass_fills() -> None:
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    for layers in (2, 3):
        config = {**HY_V4, "num_hidden_layers": layers}
        assert kv_bytes({**config, "architectures": ["HYV4ForCausalLM"]}, 7, 2) == \
            forward_cache_bytes(config, "HYV4ForCausalLM"), layers


def test_hy_v4_small_totals_are_transformers_s() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for layers in (2, 3):
        for architecture in ("HYV4ForCausalLM", "HYV4Model"):
            config = {**HY_V4, "num_hidden_layers": layers}
            hf = transformers.CONFIG_MAPPING["hy_v4"](**{k: v for k, v in config.items() if k != "model_type"})
            with torch.device("meta"):
                built = getattr(transformers, architecture)(hf)
            assert count({**config, "architectures": [architecture]}).tree.total == \
                sum(p.numel() for p in built.parameters()), architecture


# (targets, peft 0.22's (total, trainable) for rank 2, taken once; None: peft refuses them; no MoE conversion runs)
HY_V4_LORA = (("all-linear", (9_799, 1_136)), (["gate_proj", "q_b_proj"], (8_967, 304)),
              (["up_proj", "down_proj", "o_proj"], (9_015, 352)), (["gate", "kv_b_proj"], None))


def test_hy_v4_lora_adapts_what_peft_adapts(tmp_path) -> None:
    for targets, expected in HY_V4_LORA:
        assert lora_counts(tmp_path, {**HY_V4, "architectures": ["HYV4ForCausalLM"]}, targets) == expected, targets


def test_hy_v4_lora_literals_are_peft_s() -> None:
    for module in ("torch", "transformers", "peft"):
        pytest.importorskip(module)
    for targets, expected in HY_V4_LORA:
        assert peft_lora_counts({**HY_V4, "architectures": ["HYV4ForCausalLM"]}, targets) == expected, targets
