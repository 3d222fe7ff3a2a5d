"""LightOnOCR (lighton_ocr: LightOnOcrForConditionalGeneration, LightOnOcrModel): class defaults from transformers 5.25
on the meta device (its sub_configs_defaults' Pixtral tower and Qwen3 text model), a small config counted by hand,
the head's tie, and LoRA against peft."""

from __future__ import annotations

from config_models import SMALL_QWEN3_TEXT, assert_lora_counts, assert_peft_lora_counts, error_messages, model

# sum(p.numel() for p in cls(LightOnOcrConfig()).parameters()) on the meta device, transformers 5.25 (tied head).
CLASS_DEFAULT = 1_005_647_872

TEXT = SMALL_QWEN3_TEXT
VISION = {"model_type": "pixtral", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 12, "head_dim": 8, "patch_size": 2, "image_size": 8}
SMALL = {"model_type": "lighton_ocr", "architectures": ["LightOnOcrForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision (Pixtral): patch conv 16·3·2·2 = 192, ln_pre 16; a layer q/k/v/o 4·16·16 = 1,024, gated MLP 3·16·12 = 576,
#   two norms 32 (1,632).                                                                              -> 1,840
# Projector: norm 16, patch_merger.merging_layer 2·2·16 → 16: 1,024, linear_1 16·16, linear_2 16·16, no biases. -> 1,552
# Text (Qwen3): embeddings 40·16 = 640; a layer q 256, k 128, v 128, o 256, q/k norms 16, MLP 3·16·8 = 384, two
#   norms 32 (1,200); final norm 16.                                                                   -> 1,856
# lm_head: tied to the embeddings by default.
SMALL_TOTAL = 1_840 + 1_552 + 1_856


def test_class_defaults():
    for architecture in ("LightOnOcrForConditionalGeneration", "LightOnOcrModel"):
        assert model({"model_type": "lighton_ocr", "architectures": [architecture]}).tree.total == CLASS_DEFAULT


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 5_248
    assert model({**SMALL, "tie_word_embeddings": False}).tree.total == SMALL_TOTAL + 640
    # text_config's tie_word_embeddings is not read; a merge of 3 widens the merging layer to 9 patches
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": False}}).tree.total == SMALL_TOTAL
    assert model({**SMALL, "spatial_merge_size": 3}).tree.total == SMALL_TOTAL + 5 * 16 * 16


# peft's counts at rank 2 (q_proj: the tower's and the text model's, 2 × (2·16 + 16·2) = 128)
LORA_CASES = [("all-linear", (6_328, 1_080)), (["linear_1", "linear_2", "merging_layer"], (5_536, 288)),
              (["q_proj"], (5_376, 128)),
              (r".*vision_encoder.*\.(q_proj|gate_proj)", (5_368, 120)),
              (["vision_projection.linear_1"], (5_312, 64))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)


def test_a_vision_tower_other_than_pixtral_is_refused():
    assert any("pixtral" in m for m in error_messages({**SMALL, "vision_config": {"model_type": "siglip_vision_model"}}))
