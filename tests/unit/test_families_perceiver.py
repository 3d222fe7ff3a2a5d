"""Idefics2 (and its vision tower and perceiver resampler), without torch: a SigLIP-like vision tower, a connector (a
gated MLP to the language model's width, then a perceiver resampler of learned latents) and a Mistral language
model. Small configs counted by hand (the arithmetic in each test), the class defaults as transformers 5.25 builds
them on the meta device (``sum(p.numel() for p in model.parameters())``, taken there once), LoRA as peft adapts
them, the KV cache of the text model, and the configs the classes refuse."""

from __future__ import annotations

import pytest

from config_models import (assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults (idefics2-8b's sizes). The vision
# tower and the resampler are built but not exported by transformers (modeling_idefics2's classes).
CLASS_DEFAULTS = {
    ("idefics2", "Idefics2ForConditionalGeneration"): 8_061_394_944,
    ("idefics2", "Idefics2Model"): 7_930_322_944,
    ("idefics2_vision", "Idefics2VisionTransformer"): 87_453_696,
    ("idefics2_perceiver", "Idefics2PerceiverResampler"): 651_468_800,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


# A vision tower 8 wide (1 layer, 2 heads, MLP 4, 8-pixel images of 4-pixel patches), a perceiver of 3 latents (2
# layers, 4 heads of 2, 2 key/value heads), a Mistral 16 wide (vocabulary 50, 1 layer, 2 heads of 8, 1 KV head, MLP 8).
VISION = {"hidden_size": 8, "intermediate_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 8,
          "patch_size": 4}
PERCEIVER = {"hidden_size": 16, "resampler_n_latents": 3, "resampler_depth": 2, "resampler_n_heads": 4,
             "resampler_head_dim": 2, "num_key_value_heads": 2}
MISTRAL = {"model_type": "mistral", "vocab_size": 50, "hidden_size": 16, "intermediate_size": 8, "num_hidden_layers": 1,
           "num_attention_heads": 2, "num_key_value_heads": 1}

# Vision: patch Conv2d 8·3·4·4 + 8, positions 2²·8 = 424; a layer: q, k, v, out_proj 4·(64 + 8), fc1 36, fc2 40, two
# LayerNorms 32 = 396; post_layernorm 16.
VISION_TOTAL = 424 + 396 + 16  # 836
# modality_projection (no biases): gate and up 8 → text_config's intermediate_size 8, down 8 → 16.
CONNECTOR_MLP = 64 + 64 + 128  # 256
# Perceiver, 16 wide (the text model's): latents 3·16; a layer: q 16·8, k and v 16·4, o 8·16 = 384, MLP 16 → 64 → 16
# gated (2·1,024 + 1,024), three RMSNorms 48 = 3,504; the final RMSNorm 16.
PERCEIVER_TOTAL = 48 + 2 * 3504 + 16  # 7,072
# Mistral (bare): embed_tokens 800, a layer (q 256, k 128, v 128, o 256, MLP 3·128, two RMSNorms 32), norm 16.
MISTRAL_TOTAL = 800 + (768 + 384 + 32) + 16  # 2,000


def idefics2(architecture: str = "Idefics2ForConditionalGeneration", **extra: object) -> dict:
    return {"model_type": "idefics2", "architectures": [architecture], "vision_config": dict(VISION),
            "perceiver_config": dict(PERCEIVER), "text_config": dict(MISTRAL), **extra}


def test_idefics2_is_the_sum_of_its_parts() -> None:
    bare = VISION_TOTAL + CONNECTOR_MLP + PERCEIVER_TOTAL + MISTRAL_TOTAL
    assert count(idefics2("Idefics2Model")).tree.total == bare == 10_164
    # lm_head 16 → 50, untied unless the composite's own tie_word_embeddings (text_config's is not read)
    assert count(idefics2()).tree.total == bare + 800
    assert count(idefics2(tie_word_embeddings=True)).tree.total == bare
    tied_text = idefics2(text_config={**MISTRAL, "tie_word_embeddings": True})
    assert count(tied_text).tree.total == bare + 800


def test_the_perceiver_is_as_wide_as_the_language_model() -> None:
    # Idefics2Config sets the perceiver's hidden_size to the text model's: a 24 written there is not read.
    assert count(idefics2(perceiver_config={**PERCEIVER, "hidden_size": 24})).tree.total == 10_164 + 800
    # On its own the resampler is its hidden_size wide.
    alone = {"model_type": "idefics2_perceiver", **PERCEIVER}
    assert count(alone).tree.total == PERCEIVER_TOTAL
    # 3 key/value heads (not dividing 4) build: k and v 16·6 each, 2·2·16 more a layer
    assert count({**alone, "num_key_value_heads": 3}).tree.total == PERCEIVER_TOTAL + 2 * 2 * 2 * 16


def test_the_vision_tower_on_its_own() -> None:
    assert count({"model_type": "idefics2_vision", **VISION}).tree.total == VISION_TOTAL


def test_the_kv_cache_is_the_text_models() -> None:
    mistral = {**MISTRAL, "architectures": ["MistralForCausalLM"]}
    assert kv_bytes(idefics2(), 100) == kv_bytes(mistral, 100) == 1 * 2 * 100 * 8 * 2  # a layer's k and v, 1 head of 8


def test_configs_the_classes_refuse() -> None:
    # Idefics2PerceiverConfig.validate_architecture: no more key/value heads than heads
    assert any("num_key_value_heads (5)" in m for m in errors(idefics2(perceiver_config={**PERCEIVER,
                                                                                        "num_key_value_heads": 5})))
    assert any("does not divide" in m for m in errors(idefics2(vision_config={**VISION, "num_attention_heads": 3})))


LORA_CASES = [(["q_proj", "v_proj"], (11316, 352)), (["gate_proj"], (11364, 400)), (["fc1", "out_proj"], (11020, 56)),
              ("all-linear", (12932, 1968))]


def test_lora_counts(tmp_path) -> None:
    assert_lora_counts(tmp_path, idefics2(), LORA_CASES)


def test_lora_counts_are_pefts() -> None:
    assert_peft_lora_counts(idefics2(), LORA_CASES)
