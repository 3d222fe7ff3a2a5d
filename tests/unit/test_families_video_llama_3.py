"""VideoLLaMA3 (video_llama_3: VideoLlama3ForConditionalGeneration, VideoLlama3Model) and its vision tower
(video_llama_3_vision): class defaults from transformers 5.25 on the meta device, a small config counted by hand, the
tie, LoRA against peft, and the tower's images of any size."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, assert_lora_counts, assert_peft_lora_counts, model

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("video_llama_3_vision", "VideoLlama3VisionModel"): 85_646_592,
                  ("video_llama_3", "VideoLlama3ForConditionalGeneration"): 12_155_424_000,
                  ("video_llama_3", "VideoLlama3Model"): 11_533_094_144}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"model_type": "qwen2", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 40}
VISION = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "patch_size": 2}
SMALL = {"model_type": "video_llama_3", "architectures": ["VideoLlama3ForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision: Conv2d patch embedding 8·3·2·2 + 8 = 104 (no position table); a layer: q/k/v/out 4·(8·8 + 8) = 288, fc1
#   8·12 + 12 = 108, fc2 12·8 + 8 = 104, two LayerNorms 32 (532); post_layernorm 16.                    -> 652
# Projector: readout.0 8·16 + 16 = 144, readout.2 16·16 + 16 = 272.                                     -> 416
# Text (Qwen2): embeddings 640; a layer q 256 + 16, k 128 + 8, v 128 + 8, o 256, MLP 384, norms 32; final 16. -> 1,872
# lm_head 40·16 = 640.
SMALL_TOTAL = 652 + 416 + 1_872 + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 3_580
    # an image_size is no key of the tower's class (images of any size): nothing changes
    assert model({**SMALL, "vision_config": {**VISION, "image_size": 4}}).tree.total == SMALL_TOTAL
    # text_config's true tie_word_embeddings is forwarded to the composite
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == SMALL_TOTAL - 640


# peft's counts at rank 2 (q_proj: the tower's 2·(8 + 8) and the text model's 2·(16 + 16); readout.0 2·(8 + 16))
LORA_CASES = [("all-linear", (4_268, 688)), (["q_proj", "readout.0"], (3_724, 144)),
              (r".*vision_model.*\.(q_proj|fc1)", (3_652, 72)),
              (["projector.readout.2"], (3_644, 64))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)
