"""Aria's text model (aria_text: AriaTextForCausalLM, AriaTextModel): class defaults from transformers 5.25 on the meta
device, a small config counted by hand, its shared experts at any count, its KV cache, and the widths its config class
refuses."""

from __future__ import annotations

import pytest

from config_models import assert_cache_is_what_a_forward_pass_fills, error_messages, model

# sum(p.numel() for p in cls(AriaTextConfig()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {"AriaTextForCausalLM": 18_517_069_824, "AriaTextModel": 18_385_997_824}


@pytest.mark.parametrize("architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(architecture):
    assert model({"model_type": "aria_text", "architectures": [architecture]}).tree.total == CLASS_DEFAULTS[architecture]


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
