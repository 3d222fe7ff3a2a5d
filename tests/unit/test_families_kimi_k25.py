"""Kimi K2.5 (kimi_k25: Kimi_K25ForConditionalGeneration, Kimi_K25Model) and its vision tower (kimi_k25_vision): class
defaults from transformers 5.25 on the meta device, a small config counted by hand, the Hub's kimi_k2 text type, the
tie, LoRA against peft, and what the tower cannot build."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, assert_lora_counts, assert_peft_lora_counts, error_messages, model

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25 (DeepSeek-V3's text
# model at its class defaults, the head tied).
CLASS_DEFAULTS = {("kimi_k25_vision", "Kimi_K25VisionModel"): 416_866_032,
                  ("kimi_k25", "Kimi_K25ForConditionalGeneration"): 670_570_869_232,
                  ("kimi_k25", "Kimi_K25Model"): 670_570_869_232}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"model_type": "deepseek_v3", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 2, "intermediate_size": 8, "moe_intermediate_size": 4, "n_routed_experts": 2,
        "num_experts_per_tok": 1, "first_k_dense_replace": 1, "vocab_size": 40, "kv_lora_rank": 4, "q_lora_rank": None,
        "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4, "n_group": 1, "topk_group": 1}
VISION = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "patch_size": 2,
          "pos_emb_height": 3, "pos_emb_width": 4}
SMALL = {"model_type": "kimi_k25", "architectures": ["Kimi_K25ForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION, "projection_hidden_size": 8}

# Vision: Conv2d patch embedding 8·3·2·2 + 8 = 104, a 3×4 position grid 96; a layer: q/k/v_proj and proj 4·(8·8 + 8)
#   = 288, fc1 8·12 + 12 = 108, fc2 12·8 + 8 = 104, two LayerNorms 32 (532); final_layernorm 16.          -> 748
# Projector: pre_norm 2·8 = 16, in_proj over 2×2 patches 32·32 + 32 = 1,056, out_proj 32·16 + 16 = 528.  -> 1,600
# Text: DeepSeek-V3's small model, 2,872 (its family's tests prove DeepSeek-V3's counts); lm_head tied (the default).
VISION_TOTAL, PROJECTOR, TEXT_TOTAL = 748, 1_600, 2_872
SMALL_TOTAL = VISION_TOTAL + PROJECTOR + TEXT_TOTAL


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 5_220
    assert model({**SMALL, "vision_config": VISION | {"model_type": "kimi_k25_vision"}}).tree.total == SMALL_TOTAL
    text_alone = {**TEXT, "architectures": ["DeepseekV3Model"]}
    assert model(text_alone).tree.total == TEXT_TOTAL
    # a 1×3 merge kernel: in_proj 24·24 + 24, out_proj 24·16 + 16
    kernel = {**SMALL, "vision_config": {**VISION, "merge_kernel_size": [1, 3]}}
    assert model(kernel).tree.total == SMALL_TOTAL - PROJECTOR + 16 + 600 + 400


def test_the_hub_s_kimi_k2_text_type_and_the_tie():
    assert model({**SMALL, "text_config": {**TEXT, "model_type": "kimi_k2"}}).tree.total == SMALL_TOTAL
    # the composite's own tie_word_embeddings (true by default) decides; text_config's is not read
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": False}}).tree.total == SMALL_TOTAL
    assert model({**SMALL, "tie_word_embeddings": False}).tree.total == SMALL_TOTAL + 40 * 16


# peft's counts at rank 2 (fc1 2·(8 + 12) + fc2 2·(12 + 8); the projector's in_proj 2·(32 + 32), out_proj 2·(32 + 16);
# the tower's q_proj 2·(8 + 8) and fc1)
LORA_CASES = [(["fc1", "fc2"], (5_300, 80)), (["in_proj", "out_proj"], (5_444, 224)),
              (r".*vision_tower.*\.(q_proj|fc1)", (5_292, 72)), (["mm_projector.in_proj"], (5_348, 128))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)


def test_what_the_tower_cannot_build():
    assert any("is odd" in m for m in error_messages({**SMALL, "vision_config": {**VISION, "hidden_size": 9}}))
    assert any('"merge_kernel_size"' in m for m in error_messages({**SMALL, "vision_config": {
        **VISION, "merge_kernel_size": None}}))
