"""LLaVA-OneVision-1.5 (llava_onevision1_5: LlavaOnevision15ForConditionalGeneration, LlavaOnevision15Model) and its
RICE-ViT tower (llava_onevision1_5_vision): class defaults from transformers 5.25 on the meta device, a small config
counted by hand, the tie, LoRA against peft, and what the config classes refuse."""

from __future__ import annotations

import pytest

from config_models import (SMALL_QWEN3_TEXT, assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages, model)

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("llava_onevision1_5_vision", "LlavaOnevision15VisionModel"): 336_479_264,
                  ("llava_onevision1_5", "LlavaOnevision15ForConditionalGeneration"): 12_385_940_512,
                  ("llava_onevision1_5", "LlavaOnevision15Model"): 11_763_610_656}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = SMALL_QWEN3_TEXT
VISION = {"hidden_size": 16, "depth": 1, "num_heads": 2, "intermediate_size": 12, "out_hidden_size": 16, "patch_size": 2}
SMALL = {"model_type": "llava_onevision1_5", "architectures": ["LlavaOnevision15ForConditionalGeneration"],
         "text_config": TEXT, "vision_config": VISION}

# Vision: Conv2d patch embedding 16·3·2·2 = 192 (no bias); class embedding 16 and its rotary slot 16 // 2 // 2 = 4;
#   pre_layernorm 32; a block: qkv 16·48 + 48 = 816, proj 272, fc1 16·12 + 12 = 204, fc2 12·16 + 16 = 208, two
#   LayerNorms 64 (1,564); merger: LayerNorm 32, linear_fc1 64·64 + 64 = 4,160, linear_fc2 64·16 + 16 = 1,040.  -> 7,040
# Text (Qwen3): embeddings 640; a layer q 256, k 128, v 128, o 256, q/k norms 16, MLP 384, norms 32; final norm 16. -> 1,856
# lm_head 40·16 = 640.
SMALL_TOTAL = 7_040 + 1_856 + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 9_536
    assert model({**SMALL, "architectures": ["LlavaOnevision15Model"]}).tree.total == SMALL_TOTAL - 640
    # the published checkpoints' vision model_type, read as the tower's; text_config's tie is not forwarded
    legacy = {**SMALL, "vision_config": {**VISION, "model_type": "rice_vit"},
              "text_config": {**TEXT, "tie_word_embeddings": True}}
    assert model(legacy).tree.total == SMALL_TOTAL
    assert model({**SMALL, "tie_word_embeddings": True}).tree.total == SMALL_TOTAL - 640


# peft's counts at rank 2 (fc1 2·(16 + 12) + fc2 2·(12 + 16) and the text model's q_proj 2·(16 + 16): 176)
LORA_CASES = [("all-linear", (10_624, 1_088)), (["fc1", "fc2", "q_proj"], (9_712, 176)),
              (r".*visual.*\.(qkv|fc1)", (9_720, 184)),
              (["merger.linear_fc1"], (9_792, 256))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)


def test_what_the_config_classes_refuse():
    assert any("does not divide" in m for m in error_messages({**SMALL, "vision_config": {**VISION, "num_heads": 3}}))
    assert any("out_hidden_size" in m for m in error_messages({**SMALL, "vision_config": {**VISION,
                                                                                           "out_hidden_size": 8}}))
