"""Qianfan-OCR (qianfan_ocr: QianfanOCRForConditionalGeneration, QianfanOCRModel) and its vision tower
(qianfan_ocr_vision): class defaults from transformers 5.25 on the meta device and a small config counted by hand."""

from __future__ import annotations

import pytest

from config_models import (SMALL_QWEN3_TEXT, assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           model)

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("qianfan_ocr_vision", "QianfanOCRVisionModel"): 304_012_288,
                  ("qianfan_ocr", "QianfanOCRForConditionalGeneration"): 12_387_044_352,
                  ("qianfan_ocr", "QianfanOCRModel"): 11_764_714_496}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = SMALL_QWEN3_TEXT
VISION = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12,
          "image_size": 28, "patch_size": 14}
SMALL = {"model_type": "qianfan_ocr", "architectures": ["QianfanOCRForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision (InternVL's): cls_token 16, patch conv 16·3·14·14 + 16 = 9,424, positions (2·2 + 1)·16 = 80; a layer:
#   q/k/v with biases 3·(16·16 + 16) = 816, projection_layer 272, layer scales 2·16, two LayerNorms 64, fc1 16·12 + 12
#   = 204, fc2 12·16 + 16 = 208 (1,596); mean pooling, no final norm.                                   -> 11,116
# Projector: 2·2 patches side by side (64): LayerNorm 128, linear_1 64·16 + 16, linear_2 16·16 + 16.   -> 1,440
# Text (Qwen3): embeddings 640; a layer q 256, k 128, v 128, o 256, q/k norms 16, MLP 384, norms 32; final norm 16. -> 1,856
# lm_head 40·16 = 640 (not tied by default).
SMALL_TOTAL = 11_116 + 1_440 + 1_856 + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 15_052
    assert model({**SMALL, "vision_config": {**VISION, "attention_bias": False}}).tree.total == SMALL_TOTAL - 48
    # text_config's tie_word_embeddings is not read; the composite's own ties the head
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == SMALL_TOTAL
    assert model({**SMALL, "tie_word_embeddings": True}).tree.total == SMALL_TOTAL - 640


# peft's counts at rank 2, the tower's layers at vision_tower.layers (no encoder), the projector at multi_modal_projector
LORA_CASES = [(r".*vision_tower.*\.(q_proj|fc1)", (15_172, 120)),
              (["multi_modal_projector.linear_1"], (15_212, 160))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)
