"""PaddleOCR-VL (paddleocr_vl: PaddleOCRVLForConditionalGeneration, PaddleOCRVLModel), its vision tower
(paddleocr_vl_vision) and text model (paddleocr_vl_text): class defaults from transformers 5.25 on the meta device, a
small config counted by hand, the Hub's flat configs, the tie, and LoRA against peft."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, assert_lora_counts, assert_peft_lora_counts, error_messages, model

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25 (the head tied).
CLASS_DEFAULTS = {("paddleocr_vl_vision", "PaddleOCRVisionModel"): 412_987_248,
                  ("paddleocr_vl_text", "PaddleOCRTextModel"): 360_748_032,
                  ("paddleocr_vl", "PaddleOCRVLForConditionalGeneration"): 799_695_472,
                  ("paddleocr_vl", "PaddleOCRVLModel"): 799_695_472}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
        "intermediate_size": 8, "vocab_size": 40}
VISION = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "patch_size": 2,
          "image_size": 8}
SMALL = {"model_type": "paddleocr_vl", "architectures": ["PaddleOCRVLForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision (SigLIP's): patch conv 8·3·2·2 + 8 = 104, a position table (8 // 2)² · 8 = 128; a layer: q/k/v/out
#   4·(8·8 + 8) = 288, fc1 8·12 + 12 = 108, fc2 12·8 + 8 = 104, two LayerNorms 32 (532); post_layernorm 16.  -> 780
# Projector: pre_norm 16, linear_1 over 2×2 patches 32·32 + 32 = 1,056, linear_2 32·16 + 16 = 528.         -> 1,600
# Text (ERNIE 4.5's layer, no biases): embeddings 640; q 256, k 128, v 128, o 256, MLP 3·16·8 = 384, norms 32;
#   final norm 16.                                                                                      -> 1,840
# lm_head: tied by default.
SMALL_TOTAL = 780 + 1_600 + 1_840


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 4_220
    # the Hub's flat configs: the text model's keys at the top level
    flat = {k: v for k, v in SMALL.items() if k != "text_config"} | TEXT
    assert model(flat).tree.total == SMALL_TOTAL
    # old checkpoints name the vision config after the composite; biases on the text model's projections
    assert model({**SMALL, "vision_config": {**VISION, "model_type": "paddleocr_vl"},
                  "text_config": {**TEXT, "use_bias": True}}).tree.total == SMALL_TOTAL + 16 + 8 + 8 + 16 + 2 * 8 + 16
    # the head is its own only where neither the composite nor text_config ties it
    untied = {**SMALL, "tie_word_embeddings": False, "text_config": {**TEXT, "tie_word_embeddings": False}}
    assert model(untied).tree.total == SMALL_TOTAL + 640
    assert model({**SMALL, "tie_word_embeddings": False}).tree.total == SMALL_TOTAL


# peft's counts at rank 2 on the untied model (4,860): linear_1 2·(32 + 32), linear_2 2·(32 + 16); the tower's q_proj
# 2·(8 + 8) and fc1 2·(8 + 12)
LORA_CASES = [(["linear_1", "linear_2"], (5_084, 224)), (r".*visual.*\.(q_proj|fc1)", (4_932, 72)),
              (["projector.linear_1"], (4_988, 128)), ("all-linear", (5_660, 800))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, {**SMALL, "tie_word_embeddings": False, "text_config": {
        **TEXT, "tie_word_embeddings": False}}, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts({**SMALL, "tie_word_embeddings": False, "text_config": {
        **TEXT, "tie_word_embeddings": False}}, LORA_CASES)


def test_a_null_layer_types_is_refused():
    assert any('"layer_types"' in m for m in error_messages({"model_type": "paddleocr_vl_text", "layer_types": None}))
