"""EXAONE 4.5 (exaone4_5: Exaone4_5_ForConditionalGeneration, Exaone4_5_Model) and its vision tower (exaone4_5_vision:
Exaone4_5_VisionModel): class defaults from transformers 5.25 on the meta device, a small config counted by hand, the
tower's grouped key/value heads, the text model's first-release name, the head's tie, LoRA against peft, and what
the config classes refuse."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, assert_lora_counts, assert_peft_lora_counts, error_messages, model

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("exaone4_5_vision", "Exaone4_5_VisionModel"): 2_671_868_672,
                  ("exaone4_5", "Exaone4_5_ForConditionalGeneration"): 12_100_938_496,
                  ("exaone4_5", "Exaone4_5_Model"): 11_681_508_096}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"model_type": "exaone4", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 40}
VISION = {"hidden_size": 16, "depth": 1, "num_heads": 4, "num_key_value_heads": 2, "intermediate_size": 12,
          "out_hidden_size": 16, "patch_size": 2}
SMALL = {"model_type": "exaone4_5", "architectures": ["Exaone4_5_ForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION}

# Vision: Conv3d patch embedding 16·3·2·2·2 = 384; a block: qkv (4 query + 2·2 key/value heads, 16 // 4 = 4 wide)
#   16·32 + 32 = 544, proj 16·16 + 16 = 272, gated MLP 2·(16·12 + 12) + 12·16 + 16 = 616, two RMS norms 32 (1,464);
#   merger: ln_q 16, mlp.0 64·64 + 64 = 4,160, mlp.2 64·16 + 16 = 1,040 (5,216).                    -> 7,064
# Text (EXAONE 4): embeddings 40·16 = 640; a layer: q 256, k 128, v 128, o 256, q/k norms 8 + 8, MLP 3·16·8 = 384,
#   two norms 32 (1,200), two layers; final norm 16.                                                   -> 3,056
# lm_head 40·16 = 640.
VISION_TOTAL, TEXT_TOTAL = 7_064, 3_056
SMALL_TOTAL = VISION_TOTAL + TEXT_TOTAL + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 10_760
    assert model({**SMALL, "architectures": ["Exaone4_5_Model"]}).tree.total == SMALL_TOTAL - 640
    # the tower's key/value heads size its fused qkv: 2 more heads of 4, on keys and values
    assert model({**SMALL, "vision_config": {**VISION, "num_key_value_heads": 4}}).tree.total == SMALL_TOTAL + 2 * 2 * 4 * 17


def test_the_text_model_s_first_release_name_and_the_tie():
    renamed = {**SMALL, "text_config": {**TEXT, "model_type": "exaone4_5_text"}}
    assert model(renamed).tree.total == SMALL_TOTAL
    # the composite's own tie_word_embeddings ties the head; text_config's is not forwarded
    assert model({**SMALL, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == SMALL_TOTAL
    assert model({**SMALL, "tie_word_embeddings": True}).tree.total == SMALL_TOTAL - 640


LORA_CASES = [("all-linear", (12_240, 1_480)), (["q_proj", "v_proj"], (10_984, 224)),
              (r".*visual.*\.(qkv|gate_proj)", (10_912, 152)),
              (["merger.mlp.0"], (11_016, 256))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)


def test_refusals():
    no_type = {k: v for k, v in TEXT.items() if k != "model_type"}
    assert any('text_config has no "model_type"' in m for m in error_messages({**SMALL, "text_config": no_type}))
    assert any("num_key_value_heads" in m for m in error_messages({**SMALL, "vision_config": {**VISION,
                                                                                              "num_key_value_heads": 0}}))
    assert any("num_heads" in m for m in error_messages({**SMALL, "vision_config": {**VISION, "num_heads": 4.0}}))
