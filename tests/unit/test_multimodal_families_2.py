"""The vision-language families on the llava layout (llava_next, llava_onevision, llava_next_video, vipllava,
paligemma, aya_vision, idefics3 / smolvlm and their towers, internvl and its tower) without torch.

Every total here is counted by hand below; the class defaults are what transformers 5.25 builds on the
meta device (taken there once), and tests/parity checks random configs of each family against it. These
tests pin the parts: each projector's shape, image_newline, the video pooler, which tie_word_embeddings
ties the head, the fixed vision config classes, and the problems a bad config gets.
"""

from __future__ import annotations

import json

import pytest

from config_models import (analyze, assert_cache_is_what_a_forward_pass_fills, assert_class_default_total, errors,
                           model)

from lsp_count.core.memory import Settings, estimate_memory

# A small Llama text model: 16 wide, 2 layers of 2 heads (one kv head of 8), MLP 32, vocab 64.
TEXT = {"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64}
# embed 64·16 + 2 × (q 16·16 + k 16·8 + v 16·8 + o 16·16 + MLP 3·16·32 + 2 norms of 16) + final norm 16
TEXT_TOTAL = 64 * 16 + 2 * (256 + 128 + 128 + 256 + 3 * 16 * 32 + 2 * 16) + 16
assert TEXT_TOTAL == 5_712
HEAD = 64 * 16  # an untied lm_head

# One vision layer's shape (CLIP's and SigLIP's, 8 wide, MLP 16): q/k/v/out_proj 4 × (8·8 + 8), fc1 8·16 + 16,
# fc2 16·8 + 8, two LayerNorms of 8 (weight and bias).
VISION_LAYER = 4 * (64 + 8) + (128 + 16) + (128 + 8) + 2 * 16
assert VISION_LAYER == 600
# A small CLIP tower: 32-pixel images of 16-pixel patches (4 patches), 2 layers.
CLIP = {"model_type": "clip_vision_model", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 16, "image_size": 32, "patch_size": 16}
# class_embedding 8 + patch conv 8·3·16·16 (no bias) + positions (4 + 1)·8 + pre_layrnorm 16 + layers + post 16
CLIP_TOTAL = 8 + 8 * 3 * 16 * 16 + 5 * 8 + 16 + 2 * VISION_LAYER + 16
assert CLIP_TOTAL == 7_424
# SigLIP's, without its pooling head: patch conv with a bias, 4 positions, no class token, no pre-norm.
SIGLIP = {**CLIP, "model_type": "siglip_vision_model", "vision_use_head": False}
SIGLIP_TOTAL = 8 * 3 * 16 * 16 + 8 + 4 * 8 + 2 * VISION_LAYER + 16
assert SIGLIP_TOTAL == 7_400
# LLaVA's projector from one vision layer: linear_1 8 → 16 and linear_2 16 → 16, biases.
MLP_PROJECTOR = (8 * 16 + 16) + (16 * 16 + 16)
assert MLP_PROJECTOR == 416


def config(model_type: str, prefix: str, head: bool = True, **keys: object) -> dict:
    arch = f"{prefix}ForConditionalGeneration" if head else f"{prefix}Model"
    return {"model_type": model_type, "architectures": [arch], "text_config": dict(TEXT), **keys}


# --- LLaVA-NeXT, LLaVA-OneVision, LLaVA-NeXT-Video: LLaVA's parts and image_newline -----------------------

def test_llava_next_is_llava_with_image_newline_and_ties_by_its_own_key_alone() -> None:
    m = model(config("llava_next", "LlavaNext", vision_config=dict(CLIP)))
    body = CLIP_TOTAL + MLP_PROJECTOR + 16 + TEXT_TOTAL  # image_newline: one vector as wide as the text model
    assert body == 13_568
    assert m.tree.total == body + HEAD == 14_592
    root = m.tree.root
    assert root.child("image_newline").total == 16
    assert root.child("vision_tower").total == CLIP_TOTAL and root.child("vision_tower").note == "clip_vision_model"
    assert root.child("projector").total == MLP_PROJECTOR and root.child("language_model").total == TEXT_TOTAL
    assert model(config("llava_next", "LlavaNext", head=False, vision_config=dict(CLIP))).tree.total == body
    # LlavaNextConfig does not forward text_config's tie (LlavaConfig does): the head stays its own.
    untied = config("llava_next", "LlavaNext", vision_config=dict(CLIP))
    untied["text_config"]["tie_word_embeddings"] = True
    assert model(untied).tree.total == body + HEAD
    assert model(config("llava_next", "LlavaNext", vision_config=dict(CLIP), tie_word_embeddings=True)).tree.total == body
    # Two feature layers widen linear_1's input (2 × 8), no bias drops 16 + 16.
    assert model(config("llava_next", "LlavaNext", vision_config=dict(CLIP), vision_feature_layer=[-2, -1],
                        multimodal_projector_bias=False)).tree.total == body + HEAD + 8 * 16 - 32 == 14_688


def test_llava_onevision_defaults_to_a_siglip_tower_and_forwards_text_config_s_tie() -> None:
    # No model_type in vision_config: LlavaOnevisionConfig's default, SigLIP.
    vision = {k: v for k, v in SIGLIP.items() if k != "model_type"}
    m = model(config("llava_onevision", "LlavaOnevision", vision_config=vision))
    assert m.tree.root.child("vision_tower").note == "siglip_vision_model"
    body = SIGLIP_TOTAL + MLP_PROJECTOR + 16 + TEXT_TOTAL
    assert m.tree.total == body + HEAD == 14_568
    tied = config("llava_onevision", "LlavaOnevision", vision_config=vision)
    tied["text_config"]["tie_word_embeddings"] = True
    assert model(tied).tree.total == body


def test_llava_next_video_s_pooler_holds_parameters_in_conv_mode_alone() -> None:
    base = config("llava_next_video", "LlavaNextVideo", vision_config=dict(CLIP))
    plain = CLIP_TOTAL + MLP_PROJECTOR + 16 + TEXT_TOTAL + HEAD
    assert model(base).tree.total == plain == 14_592
    assert model({**base, "spatial_pool_mode": "max"}).tree.total == plain
    # conv: Conv2d 8 → 8 channels, 2×2 kernel (spatial_pool_stride), with a bias.
    conv = model({**base, "spatial_pool_mode": "conv"})
    assert conv.tree.root.child("vision_resampler").total == 8 * 8 * 2 * 2 + 8 == 264
    assert conv.tree.total == plain + 264
    # Output channels (a key the config class does not declare) and a stride of 3.
    assert model({**base, "spatial_pool_mode": "conv", "spatial_pool_out_channels": 5,
                  "spatial_pool_stride": 3}).tree.total == plain + 5 * 8 * 3 * 3 + 5
    # Unread in the other modes: a float or a null there builds; in conv mode it is refused at its key.
    assert model({**base, "spatial_pool_out_channels": 5.0}).tree.total == plain
    problems = errors({**base, "spatial_pool_mode": "conv", "spatial_pool_out_channels": None})
    assert problems and '"spatial_pool_out_channels": null' in problems[0].message
    problems = errors({**base, "spatial_pool_mode": "bilinear"})
    assert problems and '"spatial_pool_mode"' in problems[0].message


# --- VipLLaVA: five feature layers and a LayerNorm ahead of the projector -------------------------------------

def test_vipllava_s_projector_reads_five_layers_by_default_and_the_alias_wins() -> None:
    # projector_layernorm over 5 × 8 (weight and bias), linear_1 40 → 16, linear_2 16 → 16, biases always.
    projector = 2 * 40 + (40 * 16 + 16) + (16 * 16 + 16)
    assert projector == 1_008
    m = model(config("vipllava", "VipLlava", vision_config=dict(CLIP)))
    assert m.tree.root.child("projector").total == projector
    assert m.tree.total == CLIP_TOTAL + projector + TEXT_TOTAL + HEAD == 15_168
    # vision_feature_layers (the attribute_map alias) is set over vision_feature_layer.
    both = config("vipllava", "VipLlava", vision_config=dict(CLIP), vision_feature_layer=-1,
                  vision_feature_layers=[-1, -2])
    one_layer = 2 * 16 + (16 * 16 + 16) + (16 * 16 + 16)
    assert model(both).tree.root.child("projector").total == one_layer == 576
    problems = errors(config("vipllava", "VipLlava", vision_config=dict(CLIP), vision_feature_layers=None))
    assert problems and '"vision_feature_layers"' in problems[0].message and "null" in problems[0].message


# --- PaliGemma: one linear to projection_dim, Gemma text models only ------------------------------------------

GEMMA = {**TEXT, "model_type": "gemma", "head_dim": 8}
GEMMA_TOTAL = TEXT_TOTAL  # Gemma's layers hold Llama's tensors (its norms are weights alone too)


def test_paligemma_projects_to_projection_dim_and_ties_by_default() -> None:
    keys = {"text_config": dict(GEMMA), "vision_config": dict(SIGLIP)}
    m = model({"model_type": "paligemma", "architectures": ["PaliGemmaForConditionalGeneration"], **keys})
    # linear 8 → 2048 (PaliGemmaConfig's projection_dim), with a bias; the head tied.
    assert m.tree.root.child("projector").total == 8 * 2048 + 2048 == 18_432
    assert m.tree.total == SIGLIP_TOTAL + 18_432 + GEMMA_TOTAL == 31_544
    assert any("PaliGemma ties" in note for note in m.tree.notes)
    untied = model({"model_type": "paligemma", "architectures": ["PaliGemmaForConditionalGeneration"], **keys,
                    "projection_dim": 16, "tie_word_embeddings": False})
    assert untied.tree.total == SIGLIP_TOTAL + (8 * 16 + 16) + GEMMA_TOTAL + HEAD == 14_280


def test_paligemma_refuses_a_text_model_without_use_bidirectional_attention() -> None:
    problems = errors({"model_type": "paligemma", "text_config": dict(TEXT), "vision_config": dict(SIGLIP)})
    assert problems and "use_bidirectional_attention" in problems[0].message and "llama" in problems[0].message


# --- Aya Vision: the SwiGLU projector over downsample_factor² patches ------------------------------------------

def test_aya_vision_s_projector_joins_patches_and_halves_its_intermediate_width() -> None:
    keys = {"text_config": {**TEXT, "model_type": "cohere2"}, "vision_config": dict(SIGLIP)}
    m = model({"model_type": "aya_vision", "architectures": ["AyaVisionForConditionalGeneration"], **keys})
    # LayerNorm over 2·2 patches of 8 (weight, bias), linear_1 32 → 16 (the text width), linear_2 8 → 16.
    projector = 2 * 32 + (32 * 16 + 16) + (8 * 16 + 16)
    assert m.tree.root.child("projector").total == projector == 736
    # Cohere2's layers: q/k/v/o as Llama's, the MLP as Llama's, one LayerNorm a layer (weight only); tied head.
    cohere2 = 64 * 16 + 2 * (256 + 128 + 128 + 256 + 3 * 16 * 32 + 16) + 16
    assert m.tree.root.child("language_model").total == cohere2 == 5_680
    assert m.tree.total == SIGLIP_TOTAL + projector + cohere2 == 13_816
    wider = model({"model_type": "aya_vision", "architectures": ["AyaVisionModel"], **keys, "downsample_factor": 1,
                   "alignment_intermediate_size": 10})
    assert wider.tree.root.child("projector").total == 2 * 8 + (8 * 10 + 10) + (5 * 16 + 16) == 202
    # AyaVisionConfig's default tower has 14 heads over 1,152: transformers cannot build it, nor count it here.
    problems = errors({"model_type": "aya_vision", "text_config": {**TEXT, "model_type": "cohere2"}})
    assert problems and "num_attention_heads (14) does not divide hidden_size (1152)" in problems[0].message


# --- Idefics3 / SmolVLM: SigLIP-shaped towers of their own and the connector -------------------------------------

def test_idefics3_and_smolvlm_connect_scale_factor_squared_patches() -> None:
    for model_type, prefix in (("idefics3", "Idefics3"), ("smolvlm", "SmolVLM")):
        # The vision config is always the composite's own class, whatever model_type it names.
        vision = {**SIGLIP, "model_type": "siglip_vision_model"}
        vision.pop("vision_use_head")
        m = model(config(model_type, prefix, vision_config=vision))
        assert m.tree.root.child("vision_tower").note == f"{model_type}_vision"
        # connector.modality_projection.proj: 2·2 patches of 8 → 16, no bias.
        assert m.tree.root.child("projector").total == 32 * 16 == 512
        assert m.tree.total == SIGLIP_TOTAL + 512 + TEXT_TOTAL + HEAD == 14_648
        assert model(config(model_type, prefix, vision_config=vision, scale_factor=3)).tree.total \
            == 14_648 + (9 - 4) * 8 * 16
        problems = errors(config(model_type, prefix, vision_config=vision, scale_factor=0))
        assert problems and '"scale_factor"' in problems[0].message
        alone = model({**vision, "model_type": f"{model_type}_vision",
                       "architectures": [f"{prefix}VisionTransformer"]})
        assert alone.tree.total == SIGLIP_TOTAL


# --- InternVL: its own tower (layer scale, optional norms and tokens) and the projector -------------------------

INTERNVL_VISION = {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16,
                   "image_size": 32, "patch_size": 16}
# Per layer: q/k/v 8·8 (no bias by default) + projection_layer 8·8 + 8, fc1 8·16 + 16, fc2 16·8 + 8, two
# LayerNorms of 8 (weight, bias), lambda_1 and lambda_2 of 8.
INTERNVL_LAYER = 3 * 64 + 72 + 144 + 136 + 2 * 16 + 2 * 8
# cls_token 8 + patch conv 8·3·16·16 + 8 + positions (4 + 1)·8 + layers (mean pooling: no final norm)
INTERNVL_TOTAL = 8 + 8 * 3 * 16 * 16 + 8 + 5 * 8 + 2 * INTERNVL_LAYER
assert (INTERNVL_LAYER, INTERNVL_TOTAL) == (592, 7_384)


def test_internvl_s_tower_and_its_switches() -> None:
    alone = {**INTERNVL_VISION, "model_type": "internvl_vision", "architectures": ["InternVLVisionModel"]}
    assert model(alone).tree.total == INTERNVL_TOTAL
    # Biases on q/k/v (3 × 8 a layer), q/k RMSNorms (2 × 8), RMSNorms for the LayerNorms (-2 × 8), a mask token,
    # a final LayerNorm (16), no position table (-40).
    switched = {**alone, "attention_bias": True, "use_qk_norm": True, "norm_type": "rms_norm", "use_mask_token": True,
                "use_mean_pooling": False, "use_absolute_position_embeddings": False}
    assert model(switched).tree.total == INTERNVL_TOTAL + 2 * (24 + 16 - 16) + 8 + 16 - 40 == 7_416
    # A patch_size list is the Conv2d's kernel whole; height and width come first.
    # (conv 8·3·16·8, half the default; 32 // 8 · 32 // 16 = 8 patches, 4 more position rows)
    assert model({**alone, "patch_size": [16, 8]}).tree.total == INTERNVL_TOTAL - 8 * 3 * 16 * 8 + 4 * 8 == 4_344
    problems = errors({**alone, "norm_type": "group_norm"})
    assert problems and '"norm_type"' in problems[0].message


def test_internvl_projects_int_one_over_downsample_ratio_squared_patches() -> None:
    keys = {"text_config": {**TEXT, "model_type": "qwen2"}, "vision_config": dict(INTERNVL_VISION)}
    m = model({"model_type": "internvl", "architectures": ["InternVLForConditionalGeneration"], **keys})
    # LayerNorm over 2·2 patches of 8, linear_1 32 → 16, linear_2 16 → 16, biases; Qwen2's q/k/v biases
    # (16 + 8 + 8 a layer); the head tied by default.
    projector = 2 * 32 + (32 * 16 + 16) + (16 * 16 + 16)
    assert m.tree.root.child("projector").total == projector == 864
    assert m.tree.total == INTERNVL_TOTAL + projector + TEXT_TOTAL + 2 * 32 == 14_024
    # 0.3: int(1 / 0.3) = 3, so 3·3 patches; an int (1) is refused, as InternVLConfig refuses it.
    wide = model({"model_type": "internvl", "architectures": ["InternVLModel"], **keys, "downsample_ratio": 0.3})
    assert wide.tree.root.child("projector").total == 2 * 72 + (72 * 16 + 16) + (16 * 16 + 16) == 1_584
    problems = errors({"model_type": "internvl", **keys, "downsample_ratio": 1})
    assert problems and '"downsample_ratio"' in problems[0].message


# --- class defaults (transformers 5.25 on the meta device) -------------------------------------------------

DEFAULTS = {
    ("llava_next", "LlavaNextForConditionalGeneration"): 7_062_906_880,
    ("llava_next", "LlavaNextModel"): 6_931_834_880,
    ("llava_onevision", "LlavaOnevisionForConditionalGeneration"): 12_469_102_112,
    ("llava_next_video", "LlavaNextVideoForConditionalGeneration"): 7_062_906_880,
    ("vipllava", "VipLlavaForConditionalGeneration"): 7_079_690_240,
    ("paligemma", "PaliGemmaForConditionalGeneration"): 2_910_390_528,
    ("idefics3", "Idefics3ForConditionalGeneration"): 6_909_685_760,
    ("idefics3_vision", "Idefics3VisionTransformer"): 152_395_776,
    ("smolvlm", "SmolVLMForConditionalGeneration"): 6_909_685_760,
    ("smolvlm_vision", "SmolVLMVisionTransformer"): 152_395_776,
    ("internvl", "InternVLForConditionalGeneration"): 11_765_025_792,
    ("internvl_vision", "InternVLVisionModel"): 303_938_560,
}


def test_class_defaults_are_transformers_s() -> None:
    for (model_type, arch), total in DEFAULTS.items():
        assert model({"model_type": model_type, "architectures": [arch]}).tree.total == total, model_type
    # With their untied heads / the conv pooler, and Aya Vision with Aya-Vision-8B's tower (its class default
    # tower cannot be built).
    assert model({"model_type": "paligemma", "architectures": ["PaliGemmaForConditionalGeneration"],
                  "tie_word_embeddings": False}).tree.total == 3_437_037_824 == 2_910_390_528 + 257_152 * 2048
    assert model({"model_type": "llava_next_video", "spatial_pool_mode": "conv",
                  "architectures": ["LlavaNextVideoForConditionalGeneration"]}).tree.total \
        == 7_067_102_208 == 7_062_906_880 + 1024 * 1024 * 4 + 1024
    aya_tower = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14,
                 "image_size": 364, "num_hidden_layers": 27, "num_attention_heads": 16, "vision_use_head": False}
    assert model({"model_type": "aya_vision", "architectures": ["AyaVisionForConditionalGeneration"],
                  "vision_config": aya_tower}).tree.total == 35_465_086_192
    assert model({"model_type": "internvl", "architectures": ["InternVLForConditionalGeneration"],
                  "tie_word_embeddings": False}).tree.total == 12_387_355_648


def test_the_kv_cache_is_the_language_model_s() -> None:
    """The cache holds the text model's layers alone: the same bytes as the text model on its own."""
    settings = Settings(mode="inference", context=1024, batch=2)
    alone = estimate_memory(model({**TEXT, "architectures": ["LlamaForCausalLM"]}), settings).line("kv_cache")
    assert alone is not None and alone.bytes > 0
    for keys in (config("llava_next", "LlavaNext", vision_config=dict(CLIP)),
                 config("idefics3", "Idefics3"),
                 {"model_type": "internvl", "text_config": dict(TEXT), "vision_config": dict(INTERNVL_VISION)}):
        line = estimate_memory(model(keys), settings).line("kv_cache")
        assert line is not None and line.bytes == alone.bytes, keys["model_type"]


def test_a_bad_key_is_refused_where_it_is_written() -> None:
    text = json.dumps(config("aya_vision", "AyaVision", vision_config=dict(SIGLIP), downsample_factor=2.0), indent=2)
    (problem,) = [p for p in analyze({}, text).problems if p.severity == "error"]
    assert '"downsample_factor"' in text.splitlines()[problem.span.start.line] and "write 2" in problem.message


def test_a_sub_config_s_architectures_are_not_read_and_draw_no_note() -> None:
    # The composite builds text_config's bare model by its model_type (AutoModel), whatever its
    # "architectures" say: SmolVLM's "VLlama3ForCausalLM" is no model lsp-count should call unmodelled,
    # and a vision_config with no "architectures" (as most are written) needs no note either.
    from config_models import analyze, catalog_config

    config = catalog_config("llava-hf/llava-1.5-7b-hf")
    plain = analyze(config)
    config["text_config"] = dict(config["text_config"], architectures=["VLlama3ForCausalLM"])
    config["vision_config"] = {k: v for k, v in config["vision_config"].items() if k != "architectures"}
    report = analyze(config)
    assert [p for p in report.problems if p.code == "LC106"] == []
    assert report.models[0].tree.total == plain.models[0].tree.total
    # The top-level file's own architectures are still read, and an unknown one still said.
    other = analyze(config | {"architectures": ["LlavaForSomethingElse"]})
    assert any(p.code == "LC106" and "LlavaForSomethingElse is not modelled" in p.message for p in other.problems)


# --- ColPali / ColQwen2: a vision-language model's bare class and a projection to retrieval embeddings ----------

def colpali(**keys: object) -> dict:
    vlm = {"model_type": "paligemma", "text_config": dict(GEMMA), "vision_config": dict(SIGLIP), "projection_dim": 16}
    return {"model_type": "colpali", "architectures": ["ColPaliForRetrieval"], "vlm_config": vlm, **keys}


def test_colpali_is_paligemma_s_bare_model_and_a_projection() -> None:
    # PaliGemmaModel (SigLIP, the projector 8 → 16 with a bias, Gemma; no lm_head); embedding_proj_layer 16 → 8.
    m = model(colpali(embedding_dim=8))
    assert m.tree.root.child("embedding_proj_layer").total == 16 * 8 + 8
    assert [c.name for c in m.tree.root.children] == ["vision_tower", "projector", "language_model",
                                                      "embedding_proj_layer"]
    assert m.tree.total == SIGLIP_TOTAL + (8 * 16 + 16) + GEMMA_TOTAL + (16 * 8 + 8) == 13_392
    # ColPaliConfig's embedding_dim: 128.
    assert model(colpali()).tree.total == 13_392 - (16 * 8 + 8) + (16 * 128 + 128)


def test_colvision_class_defaults() -> None:
    # transformers 5.25, meta device: ColPaliConfig's PaliGemma 3B, ColQwen2Config's Qwen2-VL defaults.
    assert_class_default_total("colpali", "ColPaliForRetrieval", 2_910_652_800)
    assert_class_default_total("colqwen2", "ColQwen2ForRetrieval", 72_137_303_168)


def test_colpali_refuses_a_vlm_config_without_a_text_config() -> None:
    # transformers reads vlm_config.text_config (AttributeError on a LlamaConfig).
    llama = {"model_type": "llama", "hidden_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1,
             "intermediate_size": 8, "vocab_size": 10}
    problems = errors(colpali(vlm_config=llama))
    assert problems and "no text_config" in problems[0].message


def test_colpali_s_kv_cache_is_what_its_forward_pass_fills() -> None:
    # ColPaliForRetrieval passes its keyword arguments to PaliGemmaModel, whose Gemma fills a cache (use_cache).
    assert_cache_is_what_a_forward_pass_fills(colpali(embedding_dim=8), "ColPaliForRetrieval")


def test_a_sub_config_of_a_type_not_counted_is_said_at_its_model_type() -> None:
    # The composite's error follows what was said of the sub-config: its model_type, at that key, is not counted
    # exactly (it read "llava needs a vision_config and a text_config" alone, at the file's start).
    for composite, needed in ((config("llava", "Llava", text_config={"model_type": "nonexistent"}),
                               "needs a vision_config and a text_config whose model_type"),
                              (colpali(vlm_config={"model_type": "nonexistent"}), "needs a vlm_config whose model_type")):
        report = analyze(composite)
        said = [p for p in report.problems if p.code == "LC101"]
        assert said and '"nonexistent" is not supported' in said[0].message and said[0].span.start.column > 0
        assert any(needed in p.message for p in report.problems if p.severity == "error"), report.problems


def test_colpali_s_training_estimate_runs_its_vision_tower_over_one_image_as_paligemma_s() -> None:
    # Its vision-language model's tower, over one image of 4 patches (SigLIP's 32-pixel images of 16-pixel patches),
    # as PaliGemma's own (it was left out); the activations differ by the projection's LoRA term alone.
    settings = Settings(mode="lora", context=16, batch=1)
    retriever = estimate_memory(model(colpali(embedding_dim=8)), settings).line("activations")
    vlm = colpali()["vlm_config"]
    paligemma = estimate_memory(model({**vlm, "architectures": ["PaliGemmaModel"]}), settings).line("activations")
    assert "vision tower, one image a sequence, 4 tokens" in retriever.detail, retriever.detail
    # s·b·(3·in + 2r) for embedding_proj_layer (16 → 8) at rank 16 over 16 tokens
    assert retriever.bytes - paligemma.bytes == 16 * (3 * 16 + 2 * 16)


@pytest.mark.parametrize("composite, key, needed", [
    ("blip-2", "text_config", "blip-2 needs a text_config whose model_type"),
    ("instructblip", "text_config", "instructblip needs a text_config whose model_type"),
    ("idefics2", "text_config", "needs a vision_config, a perceiver_config and a text_config whose model_type"),
    ("granite_speech", "projector_config", "needs a blip_2_qformer projector_config whose model_type"),
])
def test_q_former_and_perceiver_composites_say_the_sub_config_s_type_too(composite: str, key: str,
                                                                          needed: str) -> None:
    # As llava's: the sub-config's LC101 at its model_type, then the composite's error, which names the cause (these
    # read "blip-2 needs a text_config" alone, at the file's start).
    report = analyze({"model_type": composite, key: {"model_type": "nonexistent"}})
    said = [p for p in report.problems if p.code == "LC101"]
    assert said and '"nonexistent" is not supported' in said[0].message and said[0].span.start.column > 0
    assert any(needed in p.message for p in report.problems if p.severity == "error"), report.problems
