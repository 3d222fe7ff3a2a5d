"""Cosmos3 Edge (cosmos3_edge: Cosmos3EdgeForConditionalGeneration, Cosmos3EdgeModel), its text model
(cosmos3_edge_text) and vision tower (cosmos3_edge_vision): class defaults from transformers 5.25 on the meta device,
a small config counted by hand, the head that is never tied, the rotary sections its text config checks, the image
tokens it leaves to the user, and LoRA against peft."""

from __future__ import annotations

import pytest

from config_models import (analyze, assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages, model)
from lsp_count.core.layouts.encoder import image_tokens

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("cosmos3_edge_text", "Cosmos3EdgeTextModel"): 1_677_838_336,
                  ("cosmos3_edge_vision", "Cosmos3EdgeVisionModel"): 412_649_712,
                  ("cosmos3_edge", "Cosmos3EdgeForConditionalGeneration"): 2_435_616_496,
                  ("cosmos3_edge", "Cosmos3EdgeModel"): 2_167_181_040}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
        "intermediate_size": 8, "vocab_size": 40, "rope_parameters": {"mrope_section": [2, 1, 1]}}
VISION = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "patch_size": 2,
          "num_patches": 16}
SMALL = {"model_type": "cosmos3_edge", "architectures": ["Cosmos3EdgeForConditionalGeneration"], "text_config": TEXT,
         "vision_config": VISION, "projector_hidden_size": 6}

# Vision (SigLIP 2's): patch Linear 3·2·2 → 8: 96 + 8 = 104, a position table 16 · 8 = 128; a layer: q/k/v/out
#   4·(8·8 + 8) = 288, fc1 8·12 + 12 = 108, fc2 12·8 + 8 = 104, two LayerNorms 32 (532); post_layernorm 16.   -> 780
# Projector: norm 16, linear_fc1 over 2×2 patches 32·6 + 6 = 198, linear_fc2 6·16 + 16 = 112.              -> 326
# Text (Llama's attention, no biases): embeddings 640; q 256, k 128, v 128, o 256, fc1 16·8 = 128, fc2 8·16 = 128,
#   norms 32; final norm 16.                                                                           -> 1,712
# lm_head 40·16, never tied.                                                                             -> 640
SMALL_TOTAL = 780 + 326 + 1_712 + 640


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 3_458
    assert model({**SMALL, "architectures": ["Cosmos3EdgeModel"]}).tree.total == SMALL_TOTAL - 640
    # biases on the text model's attention and MLP: q 16, k 8, v 8, o 16, fc1 8, fc2 16
    biased = {**SMALL, "text_config": {**TEXT, "attention_bias": True, "mlp_bias": True}}
    assert model(biased).tree.total == SMALL_TOTAL + 16 + 8 + 8 + 16 + 8 + 16


def test_the_head_is_never_tied():
    # The class names no tied weights: tie_word_embeddings, the composite's or text_config's, ties nothing.
    for tied in ({"tie_word_embeddings": True}, {"text_config": {**TEXT, "tie_word_embeddings": True}}):
        assert model({**SMALL, **tied}).tree.total == SMALL_TOTAL


def test_the_sub_configs_are_always_its_own():
    # Cosmos3EdgeConfig builds its own config classes whatever model_type the sub-configs name.
    named = {**SMALL, "text_config": {**TEXT, "model_type": "llama"},
             "vision_config": {**VISION, "model_type": "siglip2_vision_model"}}
    assert model(named).tree.total == SMALL_TOTAL


@pytest.mark.parametrize("written,said", [
    ({"head_dim": 64}, "mrope_section [24, 20, 20] must be three sections summing to half of head_dim (32)"),
    ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "mrope_section": [24, 20, 20]}},
     'requires rope_type "default", got "linear"'),
    ({"rope_parameters": {"rope_theta": 10000.0}}, 'no "mrope_section"'),
    ({"rope_scaling": {"mrope_section": [20, 20, 20, 4]}}, '"rope_scaling": mrope_section [20, 20, 20, 4] must be'),
    ({"rope_parameters": {"mrope_section": "abc"}}, "raises TypeError"),
])
def test_rotary_sections_the_config_class_refuses(written, said):
    messages = error_messages({"model_type": "cosmos3_edge_text", **written})
    assert any(said in m for m in messages), messages


def test_rotary_sections_it_takes():
    for written in ({"head_dim": 64, "rope_parameters": {"mrope_section": [10, 10, 12]}},
                    {"rope_parameters": {"rope_type": "default", "mrope_section": [24.0, 20, 20]}},
                    {"rope_parameters": None}, {"rope_theta": 5.0}):
        assert not error_messages({"model_type": "cosmos3_edge_text", **written}), written


def test_its_tower_takes_images_of_any_size():
    # The position table is resampled to each image's grid: the tokens an image makes are not the config's.
    assert image_tokens(analyze({"model_type": "cosmos3_edge_vision"}).models[0].spec) is None


# peft's counts at rank 2 (3,458): linear_fc1 2·(32 + 6), linear_fc2 2·(6 + 16); the tower's q_proj 2·(8 + 8) and fc1
# 2·(8 + 12); all-linear adds the tower's patch embedding and the text model's fc1 / fc2.
LORA_CASES = [(["linear_fc1", "linear_fc2"], (3_578, 120)), (r".*visual.*\.(q_proj|fc1)", (3_530, 72)),
              (["projector.linear_fc1"], (3_534, 76)), ("all-linear", (4_146, 688))]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, SMALL, LORA_CASES)


def test_lora_is_peft_s():
    assert_peft_lora_counts(SMALL, LORA_CASES)
