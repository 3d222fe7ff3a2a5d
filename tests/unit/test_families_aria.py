"""Aria (aria: AriaForConditionalGeneration, AriaModel) and its text model (aria_text: AriaTextForCausalLM,
AriaTextModel): class defaults from transformers 5.25 on the meta device, small configs counted by hand, the text
model's shared experts at any count, its KV cache, the projector's learned queries, LoRA against peft, and what the
config classes refuse."""

from __future__ import annotations

import pytest

from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_class_default_total, assert_lora_counts,
                           assert_peft_lora_counts, error_messages, model)

# sum(p.numel() for p in cls(AriaTextConfig()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("aria_text", "AriaTextForCausalLM"): 18_517_069_824, ("aria_text", "AriaTextModel"): 18_385_997_824,
                  ("aria", "AriaForConditionalGeneration"): 18_701_885_824, ("aria", "AriaModel"): 18_570_813_824}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


SMALL = {"model_type": "aria_text", "architectures": ["AriaTextForCausalLM"], "vocab_size": 32, "hidden_size": 8,
         "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 6,
         "moe_num_experts": 2, "moe_topk": 1, "moe_num_shared_experts": 2, "pad_token_id": 0}

# Layer: q 8·8 + k 8·4 + v 8·4 + o 8·8 = 192; router 2·8 = 16; experts 2·(8·12 + 6·8) = 288; shared experts as one
# gated MLP 2·6 = 12 wide, 3·8·12 = 288; two norms 16.                                                  -> 800
# Embeddings 32·8 = 256, final norm 8, lm_head 32·8 = 256.
SMALL_TOTAL = 256 + 800 + 8 + 256


def test_small_config_by_hand():
    tree = model(SMALL).tree
    assert tree.total == SMALL_TOTAL == 1_320
    assert tree.active == SMALL_TOTAL - 144  # one expert of two a token


@pytest.mark.parametrize("shared,change", [(0, -288), (1, -144), (3, 144)])
def test_shared_experts_side_by_side(shared, change):
    assert model({**SMALL, "moe_num_shared_experts": shared}).tree.total == SMALL_TOTAL + change


def test_the_cache_is_what_a_forward_pass_fills():
    # (its bfloat16 matrix products on the CPU want rows 16 bytes wide)
    assert_cache_is_what_a_forward_pass_fills({**SMALL, "hidden_size": 16, "intermediate_size": 8}, "AriaTextForCausalLM")


def test_heads_that_do_not_divide_the_width_are_refused():
    assert any("divide" in m for m in error_messages({**SMALL, "num_attention_heads": 3}))


TEXT = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "moe_num_experts": 2,
        "moe_topk": 1, "vocab_size": 40, "pad_token_id": 0}
VISION = {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 12, "image_size": 28,
          "patch_size": 14}
COMPOSITE = {"model_type": "aria", "architectures": ["AriaForConditionalGeneration"], "text_config": TEXT,
             "vision_config": VISION}

# Vision (an Idefics3 tower): patch conv 8·3·14·14 + 8 = 4,712, positions (28 // 14)² · 8 = 32; a layer q/k/v/out
#   4·(8·8 + 8) = 288, fc1 8·12 + 12 = 108, fc2 12·8 + 8 = 104, norms 32 (532); post_layernorm 16.     -> 5,292
# Projector: 256 queries · 8 = 2,048; q/k/v_proj 3·64 = 192; the nn.MultiheadAttention's in_proj 3·64 + 24 = 216
#   and out_proj 64 + 8 = 72; linear 72; three LayerNorms 48; linear_in 8·16 = 128; linear_out 16·16 = 256. -> 3,032
# Text: embeddings 40·16 = 640; a layer: q/k/v/o 4·16·16 = 1,024, router 2·16 = 32, experts 2·(16·16 + 8·16) = 768,
#   two shared experts 16 wide 3·16·16 = 768, norms 32 (2,624); final norm 16.                       -> 3,280
# lm_head 40·16 = 640.
PROJECTOR = 3_032
COMPOSITE_TOTAL = 5_292 + PROJECTOR + 3_280 + 640


def test_a_small_composite_by_hand():
    assert model(COMPOSITE).tree.total == COMPOSITE_TOTAL == 12_244
    assert model({**COMPOSITE, "architectures": ["AriaModel"]}).tree.total == COMPOSITE_TOTAL - 640
    assert model({**COMPOSITE, "tie_word_embeddings": True}).tree.total == COMPOSITE_TOTAL - 640


def test_the_projector_s_queries():
    # the table's largest value (keys and values read with int()), else the saved largest value, which wins
    assert model({**COMPOSITE, "projector_patch_to_query_dict": {"4": "7", "9": 3}}).tree.total \
        == COMPOSITE_TOTAL - (256 - 7) * 8
    assert model({**COMPOSITE, "max_value_projector_patch_to_query_dict": 5}).tree.total == COMPOSITE_TOTAL - 251 * 8


# all-linear: every nn.Linear of the tower, the projector (the attention's out_proj too) and the text model but lm_head
LORA_CASES = [("all-linear", (13_172, 928)), (["linear_in", "linear_out"], (12_356, 112)), (["out_proj"], (12_308, 64)),
              # regex and dotted targets over the modules' full names (the tower at vision_tower)
              (r".*vision_tower.*\.(q_proj|fc1)", (12_316, 72)),
              (["cross_attn.q_proj"], (12_276, 32))]


def test_lora_on_the_composite(tmp_path):
    assert_lora_counts(tmp_path, COMPOSITE, LORA_CASES)


def test_lora_on_the_composite_is_peft_s():
    assert_peft_lora_counts(COMPOSITE, LORA_CASES)


@pytest.mark.parametrize("key,value", [("projector_patch_to_query_dict", {}), ("projector_patch_to_query_dict", {"a": 1}),
                                       ("max_value_projector_patch_to_query_dict", None),
                                       ("vision_feature_layer", None)])
def test_what_aria_config_refuses(key, value):
    assert any(f'"{key}"' in m for m in error_messages({**COMPOSITE, key: value}))
