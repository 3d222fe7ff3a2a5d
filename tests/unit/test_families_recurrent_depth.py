"""Apertus 1.5's text model (apertus1p5_text) and the families added beside it, without torch: small configs counted
by hand (the arithmetic in each test), their class defaults as transformers 5.25 builds them on the meta device
(``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold, and the configs their
classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("apertus1p5_text", "Apertus1p5TextForCausalLM"): 8_091_086_912,
    ("apertus1p5_text", "Apertus1p5TextModel"): 6_998_470_720,
    ("hrm_text", "HrmTextForCausalLM"): 1_447_822_848,
    ("hrm_text", "HrmTextModel"): 1_214_645_760,
    ("lfm3", "Lfm3ForCausalLM"): 1_728_801_536,
    ("lfm3", "Lfm3Model"): 1_728_801_536,
    ("lara_mini", "LaraMiniForCausalLM"): 7_281_684_672,
    ("lara_mini", "LaraMiniModel"): 7_281_684_672,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# --- Apertus 1.5 (text) ---------------------------------------------------------------------------------------------

APERTUS1P5 = {"model_type": "apertus1p5_text", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 32}


def test_apertus1p5_text_by_hand() -> None:
    # embed 100·16; q/k/v/o 4·16·16; q_norm, k_norm 8 each; up_proj 16·32, down_proj 32·16, xIELU's alpha_p and
    # alpha_n; two layer norms 2·16; the final norm 16; an untied lm_head 16·100
    layer = 4 * 256 + 16 + 2 * 512 + 2 + 32
    assert count(APERTUS1P5).tree.total == 1_600 + layer + 16 + 1_600 == 5_314
    # the head pruned to the first 50 tokens: 16·50
    assert count({**APERTUS1P5, "output_vocab_size": 50}).tree.total == 5_314 - 16 * 50 == 4_514
    assert count({**APERTUS1P5, "output_vocab_size": 1}).tree.total == 5_314 - 16 * 99
    # equal to the vocabulary (or null) it is the unpruned head
    assert count({**APERTUS1P5, "output_vocab_size": 100}).tree.total == 5_314
    assert count({**APERTUS1P5, "output_vocab_size": None}).tree.total == 5_314
    # tied, the head is embed_tokens whatever output_vocab_size says (counted once)
    assert count({**APERTUS1P5, "output_vocab_size": 50, "tie_word_embeddings": True}).tree.total == 5_314 - 1_600
    assert count({**APERTUS1P5, "architectures": ["Apertus1p5TextModel"]}).tree.total == 5_314 - 1_600


def test_apertus1p5_text_logits_are_the_pruned_head_s() -> None:
    settings = Settings(mode="train", context=8, batch=2)
    full = estimate_memory(count(APERTUS1P5), settings).line("logits")
    pruned = estimate_memory(count({**APERTUS1P5, "output_vocab_size": 50}), settings).line("logits")
    tied = estimate_memory(count({**APERTUS1P5, "output_vocab_size": 50, "tie_word_embeddings": True}),
                           settings).line("logits")
    assert full is not None and pruned is not None and tied is not None
    assert pruned.bytes * 2 == full.bytes == tied.bytes


def test_apertus1p5_text_refuses_what_its_config_class_refuses() -> None:
    # Apertus1p5TextConfig.validate_output_vocab_size: 1 <= output_vocab_size <= vocab_size
    assert any("more than vocab_size" in e for e in errors({**APERTUS1P5, "output_vocab_size": 101}))
    assert any("at least 1" in e for e in errors({**APERTUS1P5, "output_vocab_size": 0}))
    assert any("whole number" in e for e in errors({**APERTUS1P5, "output_vocab_size": 50.0}))


# --- HRM-Text -------------------------------------------------------------------------------------------------------

HRM = {"model_type": "hrm_text", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 1,
       "num_attention_heads": 2, "head_dim": 8, "intermediate_size": 24}


def test_hrm_text_by_hand() -> None:
    # Each stack (L_module, H_module) one layer: q/k/v/o 4·16·16, the output gate gate_proj 16·16, a gated MLP 3·16·24;
    # no norm has weights. embed_tokens 32·16, z_L_init 16 (frozen), an untied lm_head 16·32.
    layer = 4 * 256 + 256 + 3 * 16 * 24
    model = count(HRM)
    assert model.tree.total == 512 + 2 * layer + 16 + 512 == 5_904
    assert model.tree.trainable == 5_904 - 16
    # attention_bias: biases on q, k, v, o and the gate, 16 each, in both layers
    assert count({**HRM, "attention_bias": True}).tree.total == 5_904 + 2 * 5 * 16
    assert count({**HRM, "mlp_bias": True}).tree.total == 5_904 + 2 * (24 + 24 + 16)
    assert count({**HRM, "architectures": ["HrmTextModel"]}).tree.total == 5_904 - 512
    # A config transformers saved: num_layers_per_stack the stacks' layers, num_hidden_layers 1 × 2 × (3 + 1) cache
    # slots, not read for the count
    assert count({**HRM, "num_hidden_layers": 8, "num_layers_per_stack": 1}).tree.total == 5_904
    assert count({**HRM, "num_hidden_layers": 8, "num_layers_per_stack": None}).tree.total == 5_904 + 14 * layer
    # the head width is head_dim's (128 by default), not hidden_size / heads
    assert count({k: v for k, v in HRM.items() if k != "head_dim"}).tree.total == 5_904 + 2 * 5 * 16 * (256 - 16)


def test_hrm_text_caches_every_layer_call() -> None:
    # One layer a stack, H_cycles 2 × (L_cycles 3 + 1): 8 layer calls, each caching keys and values of 2 heads × 8,
    # for 7 tokens × batch 2, in bfloat16
    assert kv_bytes(HRM, 7, 2) == 8 * 2 * 2 * 8 * 7 * 2 * 2 == 7_168
    assert kv_bytes({**HRM, "H_cycles": 1, "L_cycles": 1}, 7, 2) == 7_168 // 4
    assert kv_bytes({**HRM, "num_hidden_layers": 8, "num_layers_per_stack": 1}, 7, 2) == 7_168


def test_hrm_text_refuses_what_its_config_class_refuses() -> None:
    # HrmTextConfig.validate_architecture: hidden_size a multiple of the heads, head_dim given or not
    assert errors({**HRM, "num_attention_heads": 3})
    for key in ("head_dim", "H_cycles", "L_cycles"):
        assert any(f'"{key}": null' in e for e in errors({**HRM, key: None})), key


# --- LFM3 -----------------------------------------------------------------------------------------------------------

LFM3 = {"model_type": "lfm3", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 5, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "conv_L_cache": 3, "sliding_window": 64,
        "pad_token_id": 0}


def test_lfm3_by_hand() -> None:
    # Layers by default: conv, conv, full attention, conv, sliding attention.
    # A conv layer: conv 16·1·3, in_proj 16·48, out_proj 16·16; an attention layer: q 16·16, k and v 16·8, o 16·16,
    # q_norm and k_norm 8 each, the head gate g_proj 16·2. Every layer: a SwiGLU MLP 3·16·24 and four RMS norms
    # (operator_norm, ffn_norm, post_operator_norm, post_ffn_norm). embed_tokens 32·16, embedding_norm 16; tied head.
    conv, attention, mlp, norms = 48 + 768 + 256, 768 + 16 + 32, 3 * 16 * 24, 4 * 16
    assert count(LFM3).tree.total == 512 + 3 * (conv + mlp + norms) + 2 * (attention + mlp + norms) + 16 == 11_456
    assert count({**LFM3, "tie_word_embeddings": False}).tree.total == 11_456 + 512
    assert count({**LFM3, "use_sandwich_norm": False}).tree.total == 11_456 - 5 * 2 * 16
    assert count({**LFM3, "use_attention_gate": False}).tree.total == 11_456 - 2 * 32
    assert count({**LFM3, "conv_bias": True}).tree.total == 11_456 + 3 * (16 + 48 + 16)
    # all attention (sliding or full): 5 attention layers
    types = ["sliding_attention", "full_attention", "sliding_attention", "full_attention", "attention"]
    assert count({**LFM3, "layer_types": types}).tree.total == 512 + 5 * (attention + mlp + norms) + 16


def test_lfm3_cache_keeps_the_window_in_sliding_layers() -> None:
    # full attention: 2 (keys, values) × 1 head × 8 × 7 tokens × batch 2 × 2 bytes; the sliding layer as much under
    # its window, 4 tokens over a window of 4; each conv layer its last 3 inputs over 16 channels (bfloat16)
    attention, conv = 2 * 8 * 7 * 2 * 2, 3 * 16 * 3 * 2 * 2
    assert kv_bytes(LFM3, 7, 2) == 2 * attention + conv == 1_472
    assert kv_bytes({**LFM3, "sliding_window": 4}, 7, 2) == attention + attention * 4 // 7 + conv


def test_lfm3_refuses_what_its_config_class_refuses() -> None:
    assert any("layer_types" in e for e in errors({**LFM3, "layer_types": ["conv"] * 4}))
    assert any("layer_types" in e for e in errors({**LFM3, "layer_types": ["conv"] * 4 + ["gru"]}))
    # a flat rope_parameters: its rotary embedding reads one mapping per attention type the layers use
    assert any("no mapping" in e for e in errors({**LFM3, "rope_parameters": {"rope_type": "default"}}))
    assert not errors({**LFM3, "layer_types": ["conv"] * 5, "rope_parameters": {"rope_type": "default"}})


# --- Lara Mini ------------------------------------------------------------------------------------------------------

LARA = {"model_type": "lara_mini", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 5,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "linear_num_key_heads": 1,
        "linear_num_value_heads": 2, "linear_key_head_dim": 4, "linear_value_head_dim": 4,
        "linear_conv_kernel_dim": 4, "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
        "shared_expert_intermediate_size": 8, "sliding_window": 64}


def test_lara_mini_by_hand() -> None:
    # Layers by default: linear, sliding, linear, full, sliding attention.
    # Gated DeltaNet: conv over q, k, v (4 + 4 + 8 channels) 16·1·4, in_proj_qkv 16·16, in_proj_z 16·8, in_proj_b and
    # in_proj_a 16·2, dt_bias and A_log 2 each, its gated norm 4, out_proj 8·16. Attention: q 16·16, k and v 16·8,
    # o 16·16, q_norm and k_norm 8 each. Every layer: a router 2·16, 2 experts of gate_up 16·16 and down 8·16, an
    # ungated shared expert 3·16·8, two RMS norms. embed_tokens 32·16, the final norm 16; tied head.
    deltanet = 64 + 256 + 128 + 32 + 32 + 2 + 2 + 4 + 128
    attention = 768 + 16
    moe = 32 + 2 * (256 + 128) + 3 * 16 * 8
    model = count(LARA)
    assert model.tree.total == 512 + 2 * (deltanet + moe + 32) + 3 * (attention + moe + 32) + 16 == 10_256
    assert model.tree.active == 10_256 - 5 * 384  # one expert of two a token
    assert count({**LARA, "tie_word_embeddings": False}).tree.total == 10_256 + 512


def test_lara_mini_cache_keeps_the_window_in_sliding_layers() -> None:
    # 3 attention layers × 2 × 1 head × 8 × 7 tokens × batch 2 × 2 bytes; 2 Gated DeltaNet layers × batch 2 × (conv
    # 16 channels × 4 in bfloat16 + state 2 heads × 4 × 4 in float32)
    attention, deltanet = 2 * 8 * 7 * 2 * 2, 2 * (16 * 4 * 2 + 32 * 4)
    assert kv_bytes(LARA, 7, 2) == 3 * attention + 2 * deltanet == 2_368
    # two sliding layers of three: 4 tokens over a window of 4
    assert kv_bytes({**LARA, "sliding_window": 4}, 7, 2) == attention + 2 * attention * 4 // 7 + 2 * deltanet


def test_lara_mini_refuses_what_its_config_class_refuses() -> None:
    assert any("no multiple" in e for e in errors({**LARA, "num_key_value_heads": 3, "num_attention_heads": 4}))
    assert any("no multiple" in e for e in errors({**LARA, "linear_num_key_heads": 2, "linear_num_value_heads": 3}))
    assert any("layer_types" in e for e in errors({**LARA, "layer_types": ["full_attention"] * 4}))
    assert any('"sliding_window": null' in e for e in errors({**LARA, "sliding_window": None}))


# --- against transformers' cache ------------------------------------------------------------------------------------

CAUSAL_LM = {"hrm_text": (HRM, "HrmTextForCausalLM"), "lfm3": (LFM3, "Lfm3ForCausalLM"),
             "lara_mini": (LARA, "LaraMiniForCausalLM")}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_caches_are_what_a_forward_pass_fills(model_type: str) -> None:
    """The small models' caches, filled by a forward pass in transformers (where installed), byte for byte."""
    assert_cache_is_what_a_forward_pass_fills(*CAUSAL_LM[model_type])


# --- LoRA -----------------------------------------------------------------------------------------------------------

# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once; None: peft refuses them)
LORA = {
    # HRM-Text: both stacks' layers; gate_proj names the attention's output gate and the MLP's gate
    # (a regex sees the stacks' own paths: model.H_module.layers.0.self_attn.q_proj)
    "hrm_text": (("all-linear", (7_024, 1_120)), (["q_proj", "gate_proj"], (6_320, 416)), (["down_proj"], (6_064, 160)),
                 (r".*H_module.*\.(q_proj|gate_proj)", (6_112, 208))),
    "lfm3": (("all-linear", (13_752, 2_296)), (["q_proj", "in_proj"], (11_968, 512)), (["g_proj", "w2"], (11_928, 472))),
    # Lara Mini: peft refuses its router (gate, no nn.Linear); the experts are fused parameters it does not reach
    "lara_mini": (("all-linear", (12_112, 1_856)), (["in_proj_qkv", "down_proj"], (10_624, 368)),
                  (["gate_proj", "gate"], None)),
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
