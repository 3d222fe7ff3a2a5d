"""GLM-OCR (glm_ocr: GlmOcrForConditionalGeneration, GlmOcrModel), its vision tower (glm_ocr_vision) and text model
(glm_ocr_text): class defaults from transformers 5.25 on the meta device, a small config counted by hand, what differs
from GLM-4.1V, and LoRA against peft."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, assert_lora_counts, assert_peft_lora_counts, error_messages, model

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("glm_ocr_vision", "GlmOcrVisionModel"): 434_120_192, ("glm_ocr_text", "GlmOcrTextModel"): 312_542_208,
                  ("glm_ocr", "GlmOcrForConditionalGeneration"): 807_479_808, ("glm_ocr", "GlmOcrModel"): 746_662_400}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 8, "vocab_size": 40}
VISION = {"hidden_size": 16, "depth": 1, "num_heads": 4, "intermediate_size": 12, "out_hidden_size": 16, "patch_size": 2}
SMALL = {"model_type": "glm_ocr", "architectures": ["GlmOcrForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision: Conv3d patch embedding 16·3·2·2·2 + 16 = 400 (no position table); a block: qkv 16·48 + 48 = 816, proj
#   16·16 + 16 = 272, q/k norms 4 + 4, gated MLP 12 wide with biases 2·(16·12 + 12) + 12·16 + 16 = 616, two norms
#   32 (1,744); downsample Conv2d 16·16·2·2 + 16 = 1,040; merger: proj 16·16, LayerNorm 32, gated MLP 16 × 3
#   channels = 48 wide 3·16·48 = 2,304 (2,592); post_layernorm 16.                                     -> 5,792
# Text: embeddings 40·16 = 640; a layer: q 256, k 128, v 128, o 256 (no biases), gate_up 16·16 + down 8·16 = 384,
#   four norms 64 (1,216); final norm 16.                                                               -> 1,872
# lm_head 40·16 = 640.
SMALL_TOTAL = 5_792 + 1_872 + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 8_304
    # no biases in the blocks: qkv 48, proj 16, MLP 12 + 12 + 16
    assert model({**SMALL, "vision_config": {**VISION, "attention_bias": False}}).tree.total == SMALL_TOTAL - 104
    # one channel: the patch embedding 16·2·2·2 fewer twice over, the merger's MLP 16 wide
    one = model({**SMALL, "vision_config": {**VISION, "in_channels": 1}}).tree.total
    assert one == SMALL_TOTAL - 2 * 16 * 8 - 3 * 16 * 32
    # a head_dim of its own widens the text model's heads (its attention reads it)
    assert model({**SMALL, "text_config": {**TEXT, "head_dim": 16}}).tree.total == SMALL_TOTAL + 2 * 256 + 2 * 128
    # text_config's tie_word_embeddings ties the head (GLM-4.1V's config class forwards it)
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == SMALL_TOTAL - 640


LORA_CASES = [("all-linear", (9_448, 1_144)), (["gate_proj", "down_proj"], (8_720, 416)),
              (r".*visual.*\.(qkv|gate_proj)", (8_616, 312)),
              (["merger.gate_proj"], (8_432, 128))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)


def test_what_the_config_classes_refuse():
    assert any("num_key_value_heads" in m for m in error_messages({**SMALL, "text_config": {
        **TEXT, "num_key_value_heads": None}}))
    assert any("num_heads" in m for m in error_messages({**SMALL, "vision_config": {**VISION, "num_heads": 4.0}}))
