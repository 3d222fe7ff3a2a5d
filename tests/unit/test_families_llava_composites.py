"""Cohere2-Vision, LFM2-VL, DeepSeek-VL and GOT-OCR2 (and its tower) on the llava layout (families/multimodal.py),
without torch.

Class defaults are what transformers 5.25 builds on the meta device (taken there once); the small configs are
counted by hand below; tests/parity checks random configs of each against transformers. Pinned here: the
projectors (Cohere2-Vision's SwiGLU one without Aya Vision's LayerNorm; LFM2-VL's over joined patches with its
optional LayerNorm and biases; DeepSeek-VL's aligner; GOT-OCR2's convolutions), GOT-OCR2's SAM-style tower
(windowed and global layers' relative positions), which key ties the head (LFM2-VL's tie_embedding over tie_word_embeddings), the
cache of their text models, the configs their config classes refuse, and LoRA's counts against peft.
"""

from __future__ import annotations

import pytest
from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_class_default_total, assert_lora_counts,
                           assert_peft_lora_counts, error_messages, kv_cache_bytes, model)

# transformers 5.25, meta device, each class with its config class's defaults (parameters() counts a tied head once).
CLASS_DEFAULTS = {
    ("cohere2_vision", "Cohere2VisionForConditionalGeneration"): 35_651_000_064,
    ("cohere2_vision", "Cohere2VisionModel"): 35_651_000_064,
    ("lfm2_vl", "Lfm2VlForConditionalGeneration"): 2_812_857_088,
    ("lfm2_vl", "Lfm2VlModel"): 2_812_857_088,
    ("deepseek_vl", "DeepseekVLForConditionalGeneration"): 6_720_158_976,
    ("deepseek_vl", "DeepseekVLModel"): 6_720_158_976,
    ("got_ocr2", "GotOcr2ForConditionalGeneration"): 560_528_640,
    ("got_ocr2", "GotOcr2Model"): 560_528_640,
    ("got_ocr2_vision", "GotOcr2VisionEncoder"): 89_670_912,
    # PP-Chart2Table: GOT-OCR2's classes over PPChart2TableConfig / PPChart2TableVisionConfig
    ("pp_chart2table", "GotOcr2ForConditionalGeneration"): 560_528_640,
    ("pp_chart2table", "GotOcr2Model"): 560_528_640,
    ("pp_chart2table_vision", "GotOcr2VisionEncoder"): 89_670_912,
}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[model_type, architecture])


# A small SigLIP tower without its pooling head: 8 wide, 2 layers of 2 heads, MLP 16, 32-pixel images of 16-pixel
# patches (4 patches). Patch conv 8·3·16·16 + 8, positions 4·8, per layer q/k/v/out_proj 4 × (8·8 + 8), fc1 8·16 + 16,
# fc2 16·8 + 8, two LayerNorms 2 × 16; post_layernorm 16.
SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 16, "image_size": 32, "patch_size": 16, "vision_use_head": False}
VISION_LAYER = 4 * (64 + 8) + (128 + 16) + (128 + 8) + 2 * 16
SIGLIP_TOTAL = 8 * 3 * 16 * 16 + 8 + 4 * 8 + 2 * VISION_LAYER + 16
assert (VISION_LAYER, SIGLIP_TOTAL) == (600, 7_400)
# A small Cohere2 text model: 16 wide, 2 layers of 2 heads (one kv head of 8), MLP 32, vocab 64, no biases; one
# LayerNorm (weight only) a layer. Embed 64·16 + 2 × (q 16·16 + k 16·8 + v 16·8 + o 16·16 + MLP 3·16·32 + norm 16)
# + final norm 16.
COHERE2 = {"model_type": "cohere2", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
           "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64}
COHERE2_TOTAL = 64 * 16 + 2 * (256 + 128 + 128 + 256 + 3 * 16 * 32 + 16) + 16
assert COHERE2_TOTAL == 5_680
HEAD = 64 * 16  # an untied lm_head


def cohere2_vision(head: bool = True, **keys: object) -> dict:
    arch = "Cohere2VisionForConditionalGeneration" if head else "Cohere2VisionModel"
    return {"model_type": "cohere2_vision", "architectures": [arch], "text_config": dict(COHERE2),
            "vision_config": dict(SIGLIP), "alignment_intermediate_size": 12, **keys}


def test_cohere2_vision_s_projector_is_aya_s_without_its_layernorm() -> None:
    # 2×2 patches joined (8·4 = 32 wide), linear_1 32 → 12, SwiGLU halves it, linear_2 6 → 16; biases.
    projector = (32 * 12 + 12) + (6 * 16 + 16)
    assert projector == 508
    m = model(cohere2_vision(tie_word_embeddings=False))
    assert m.tree.root.child("projector").total == projector
    assert m.tree.total == SIGLIP_TOTAL + projector + COHERE2_TOTAL + HEAD == 14_612
    # Tied by default (Cohere2VisionConfig's own key; text_config's is not forwarded).
    assert model(cohere2_vision()).tree.total == 14_612 - HEAD == 13_588
    assert model(cohere2_vision(text_config={**COHERE2, "tie_word_embeddings": False})).tree.total == 13_588
    # One patch, an odd width: linear_1 8 → 13, linear_2 reads 13 // 2 = 6.
    odd = model(cohere2_vision(head=False, downsample_factor=1, alignment_intermediate_size=13))
    assert odd.tree.total == SIGLIP_TOTAL + (8 * 13 + 13) + (6 * 16 + 16) + COHERE2_TOTAL == 13_309


def test_cohere2_vision_refuses_what_its_config_class_refuses() -> None:
    assert error_messages(cohere2_vision(alignment_intermediate_size=None))
    assert error_messages(cohere2_vision(downsample_factor=2.0))


# A small SigLIP-2 tower without its pooling head: a Linear over each 4×4×3 patch (48 → 8, a bias), 9 positions,
# the same 2 layers, post_layernorm 16.
SIGLIP2 = {"model_type": "siglip2_vision_model", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
           "intermediate_size": 16, "patch_size": 4, "num_patches": 9, "vision_use_head": False}
SIGLIP2_TOTAL = (48 * 8 + 8) + 9 * 8 + 2 * VISION_LAYER + 16
assert SIGLIP2_TOTAL == 1_680
# A small LFM2 text model: 16 wide, layers conv / attention / conv, MLP 32 (not auto-adjusted), vocab 64.
# Conv layer: conv.weight 16·1·3 (depthwise, conv_L_cache 3), in_proj 16 → 48, out_proj 16·16, feed_forward
# w1 / w3 16 → 32 and w2 32 → 16, operator_norm and ffn_norm 16 each. Attention layer: q 16·16, k 16·8, v 16·8,
# out_proj 16·16, q_layernorm / k_layernorm 8 each, the same feed_forward and norms. Embed 64·16, embedding_norm 16.
LFM2 = {"model_type": "lfm2", "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64,
        "layer_types": ["conv", "full_attention", "conv"], "block_auto_adjust_ff_dim": False}
FEED_FORWARD = 3 * 16 * 32
CONV_LAYER = 16 * 3 + 16 * 48 + 256 + FEED_FORWARD + 32
ATTENTION_LAYER = 256 + 128 + 128 + 256 + 16 + FEED_FORWARD + 32
LFM2_TOTAL = 64 * 16 + 2 * CONV_LAYER + ATTENTION_LAYER + 16
assert (CONV_LAYER, ATTENTION_LAYER, LFM2_TOTAL) == (2_640, 2_352, 8_672)


def lfm2_vl(head: bool = True, **keys: object) -> dict:
    arch = "Lfm2VlForConditionalGeneration" if head else "Lfm2VlModel"
    return {"model_type": "lfm2_vl", "architectures": [arch], "text_config": dict(LFM2),
            "vision_config": dict(SIGLIP2), "projector_hidden_size": 12, **keys}


def test_lfm2_vl_s_projector_joins_patches_under_its_layernorm() -> None:
    # 2×2 patches joined (32 wide), a LayerNorm over them (weight and bias), linear_1 32 → 12, linear_2 12 → 16.
    projector = 2 * 32 + (32 * 12 + 12) + (12 * 16 + 16)
    assert projector == 668
    m = model(lfm2_vl(tie_word_embeddings=False))
    assert m.tree.root.child("projector").total == projector
    assert m.tree.total == SIGLIP2_TOTAL + projector + LFM2_TOTAL + HEAD == 12_044
    # No LayerNorm, no biases: 32·12 + 12·16.
    bare = model(lfm2_vl(head=False, projector_use_layernorm=False, projector_bias=False))
    assert bare.tree.total == SIGLIP2_TOTAL + 32 * 12 + 12 * 16 + LFM2_TOTAL == 10_928


def test_lfm2_vl_s_tie_embedding_wins_over_tie_word_embeddings() -> None:
    # Lfm2VlConfig pops the Hub configs' tie_embedding over tie_word_embeddings (true by default).
    untied = 1_680 + 668 + 8_672 + HEAD
    assert model(lfm2_vl()).tree.total == untied - HEAD
    assert model(lfm2_vl(tie_word_embeddings=True, tie_embedding=False)).tree.total == untied
    assert model(lfm2_vl(tie_word_embeddings=False, tie_embedding=True)).tree.total == untied - HEAD


def test_lfm2_vl_refuses_what_its_config_class_refuses() -> None:
    for keys in ({"projector_hidden_size": None}, {"downsample_factor": 1.5}, {"projector_use_layernorm": None}):
        assert error_messages(lfm2_vl(**keys)), keys


def test_the_cache_is_the_text_model_s() -> None:
    # Cohere2: 2 layers × keys and values × 2 sequences × 7 tokens × one kv head of 8, bfloat16.
    assert kv_cache_bytes(cohere2_vision(), 7, 2) == 2 * 2 * 2 * 7 * 8 * 2 == 896
    # LFM2: the attention layer's keys and values (448), each conv layer's state 2 sequences × 16 × conv_L_cache 3.
    assert kv_cache_bytes(lfm2_vl(), 7, 2) == 2 * 2 * 7 * 8 * 2 + 2 * (2 * 16 * 3 * 2) == 832


@pytest.mark.parametrize("config", [cohere2_vision(), lfm2_vl()], ids=["cohere2_vision", "lfm2_vl"])
def test_the_cache_is_what_a_forward_pass_fills(config: dict) -> None:
    keys = {k: v for k, v in config.items() if k != "architectures"}
    assert_cache_is_what_a_forward_pass_fills(keys, config["architectures"][0])


# A small Llama text model: 16 wide, 2 layers of 2 heads (one kv head of 8), MLP 32, vocab 64.
# Embed 64·16 + 2 × (q 16·16 + k 16·8 + v 16·8 + o 16·16 + MLP 3·16·32 + 2 norms of 16) + final norm 16.
LLAMA = {**COHERE2, "model_type": "llama"}
LLAMA_TOTAL = 64 * 16 + 2 * (256 + 128 + 128 + 256 + 3 * 16 * 32 + 2 * 16) + 16
assert LLAMA_TOTAL == 5_712


def deepseek_vl(head: bool = True, **keys: object) -> dict:
    arch = "DeepseekVLForConditionalGeneration" if head else "DeepseekVLModel"
    return {"model_type": "deepseek_vl", "architectures": [arch], "text_config": dict(LLAMA),
            "vision_config": dict(SIGLIP), **keys}


def test_deepseek_vl_s_aligner_maps_the_tower_to_the_text_model() -> None:
    # linear1 8 → 16 and linear2 16 → 16, biases.
    aligner = (8 * 16 + 16) + (16 * 16 + 16)
    assert aligner == 416
    m = model(deepseek_vl(tie_word_embeddings=False))
    assert m.tree.root.child("projector").total == aligner
    assert m.tree.total == SIGLIP_TOTAL + aligner + LLAMA_TOTAL + HEAD == 14_552
    assert model(deepseek_vl()).tree.total == 14_552 - HEAD  # tied by default
    # SigLIP's pooling head where the tower keeps it (SiglipVisionConfig's default): probe 8, in_proj 3·8·8 + 24,
    # out_proj 8·8 + 8, a LayerNorm 16, fc1 8·16 + 16, fc2 16·8 + 8.
    pooling_head = 8 + (192 + 24) + 72 + 16 + 144 + 136
    with_head = model(deepseek_vl(head=False, vision_config={**SIGLIP, "vision_use_head": True}))
    assert with_head.tree.total == SIGLIP_TOTAL + pooling_head + aligner + LLAMA_TOTAL == 14_120


# A small GOT-OCR2 tower: 8 wide, 2 layers of 2 heads (4 wide), MLP 16, 32-pixel images of 8-pixel patches (a 4×4
# grid), windows of 2, layer 1 global, a neck of 4 channels.
GOT_VISION = {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 16, "output_channels": 4,
              "image_size": 32, "patch_size": 8, "window_size": 2, "global_attn_indexes": [1]}
GOT_LAYER = (8 * 24 + 24) + (64 + 8) + (8 * 16 + 16) + (16 * 8 + 8) + 2 * 16  # qkv, proj, lin1, lin2, two LayerNorms
WINDOWED, GLOBAL = 2 * (2 * 2 - 1) * 4, 2 * (2 * 4 - 1) * 4  # rel_pos_h / rel_pos_w: 2·side − 1 rows, 4 wide
NECK = 4 * 8 + 8 + 4 * 4 * 9 + 8  # conv1 1×1, a LayerNorm, conv2 3×3, a LayerNorm
GOT_TOWER = (8 * 3 * 8 * 8 + 8) + 4 * 4 * 8 + 2 * GOT_LAYER + WINDOWED + GLOBAL + NECK  # patch conv, pos_embed, ...
assert (GOT_LAYER, WINDOWED, GLOBAL, NECK, GOT_TOWER) == (600, 24, 56, 192, 3_144)
# A small Qwen2 text model: Llama's shape with biases on q, k and v.
QWEN2_TOTAL = LLAMA_TOTAL + 2 * (16 + 8 + 8)
assert QWEN2_TOTAL == 5_776


def got_ocr2(head: bool = True, **keys: object) -> dict:
    arch = "GotOcr2ForConditionalGeneration" if head else "GotOcr2Model"
    return {"model_type": "got_ocr2", "architectures": [arch], "text_config": {**LLAMA, "model_type": "qwen2"},
            "vision_config": dict(GOT_VISION), **keys}


def test_got_ocr2_s_tower_and_convolutional_projector() -> None:
    tower = model({"model_type": "got_ocr2_vision", "architectures": ["GotOcr2VisionEncoder"], **GOT_VISION})
    assert tower.tree.total == GOT_TOWER
    # conv_upsampler1 4 → 8 channels 3×3, conv_upsampler2 8 → 16 3×3 (no biases), multimodal_projector 16·16 + 16.
    projector = 8 * 4 * 9 + 16 * 8 * 9 + (16 * 16 + 16)
    assert projector == 1_712
    m = model(got_ocr2(tie_word_embeddings=False))
    assert m.tree.root.child("projector").total == projector
    assert m.tree.total == GOT_TOWER + projector + QWEN2_TOTAL + HEAD == 11_656
    assert model(got_ocr2()).tree.total == 11_656 - HEAD  # tied by default
    # Its own vision config class whatever model_type vision_config names.
    assert model(got_ocr2(vision_config={**GOT_VISION, "model_type": "siglip_vision_model"})).tree.total == 11_656 - HEAD


def test_pp_chart2table_is_got_ocr2_under_its_own_model_types() -> None:
    chart = {**got_ocr2(tie_word_embeddings=False), "model_type": "pp_chart2table"}
    assert model(chart).tree.total == 11_656
    assert model({**chart, "vision_config": {**GOT_VISION, "model_type": "pp_chart2table_vision"}}).tree.total == 11_656
    assert model({**chart, "tie_word_embeddings": True}).tree.total == 11_656 - HEAD
    tower = {"model_type": "pp_chart2table_vision", "architectures": ["GotOcr2VisionEncoder"], **GOT_VISION}
    assert model(tower).tree.total == GOT_TOWER


def test_got_ocr2_s_relative_positions_follow_the_windows() -> None:
    keys = {"model_type": "got_ocr2_vision", "architectures": ["GotOcr2VisionEncoder"], **GOT_VISION}
    # A 0 window makes every layer global; no relative or absolute positions; out-of-range global indexes are no layers.
    assert model({**keys, "window_size": 0}).tree.total == GOT_TOWER - WINDOWED + GLOBAL
    assert model({**keys, "use_rel_pos": False, "use_abs_pos": False}).tree.total == GOT_TOWER - WINDOWED - GLOBAL - 128
    assert model({**keys, "global_attn_indexes": [5]}).tree.total == GOT_TOWER - GLOBAL + WINDOWED
    # No patch grid (image smaller than a patch): a global layer's relative positions would have -1 rows, which
    # transformers fails to build; without relative positions, or with every layer windowed, it builds.
    assert error_messages({**keys, "image_size": 4})
    assert model({**keys, "image_size": 4, "use_rel_pos": False}).tree.total == GOT_TOWER - WINDOWED - GLOBAL - 128
    assert model({**keys, "image_size": 4, "global_attn_indexes": []}).tree.total == GOT_TOWER - GLOBAL + WINDOWED - 128
    assert error_messages({**keys, "global_attn_indexes": None})


# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once)
LORA = {
    "cohere2_vision": (cohere2_vision(), (("all-linear", (15_192, 1_604)), (["q_proj", "linear_1"], (13_868, 280)),
                                          (["in_proj", "w2", "linear_2"], (13_632, 44)))),
    "lfm2_vl": (lfm2_vl(), (("all-linear", (13_196, 2_176)), (["q_proj", "linear_1"], (11_236, 216)),
                            (["in_proj", "w2", "linear_2"], (11_620, 600)))),
    "deepseek_vl": (deepseek_vl(), (("all-linear", (15_112, 1_584)), (["q_proj", "linear1"], (13_768, 240)),
                                    (["linear2", "fc1"], (13_688, 160)))),
}


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_counts(tmp_path, model_type: str) -> None:
    config, cases = LORA[model_type]
    assert_lora_counts(tmp_path, config, cases)


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_counts_are_peft_s(model_type: str) -> None:
    assert_peft_lora_counts(*LORA[model_type])
