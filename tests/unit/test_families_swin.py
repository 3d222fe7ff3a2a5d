"""Swin and Swin V2 (layout "swin"), without torch: each head class's class defaults as transformers 5.25 builds them on the meta
device (``sum(p.numel() for p in model.parameters())``, taken there once), a small config counted by hand (the
arithmetic in each test), the configs its classes refuse, and the memory estimate's word on the cache (an encoder
keeps none)."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import error_messages, model as count

# transformers 5.25, meta device, each class with its config class's defaults (tiny: embed_dim 96, depths 2-2-6-2).
CLASS_DEFAULTS = {
    "SwinModel": 27_519_354,
    "SwinForImageClassification": 27_520_892,
    "SwinForMaskedImageModeling": 29_881_818,
    "Swinv2Model": 27_578_154,
    "Swinv2ForImageClassification": 27_579_692,
    "Swinv2ForMaskedImageModeling": 29_940_618,
    "DonutSwinModel": 27_517_818,
    "DonutSwinForImageClassification": 27_519_356,
    "MaskFormerSwinModel": 27_519_354,
    "MaskFormerSwinBackbone": 27_522_234,
}
MODEL_TYPES = {"Swin": "swin", "Swinv2": "swinv2", "DonutSwin": "donut-swin", "MaskFormerSwin": "maskformer-swin"}


def total(config: dict) -> int:
    return count(config).tree.total


@pytest.mark.parametrize("architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(architecture: str) -> None:
    model_type = MODEL_TYPES[max((p for p in MODEL_TYPES if architecture.startswith(p)), key=len)]
    assert total({"model_type": model_type, "architectures": [architecture]}) == CLASS_DEFAULTS[architecture]


# two stages of one block (widths 4 and 8, 1 and 2 heads), windows of 2, an MLP twice as wide, 8-pixel images of one
# channel in 4-pixel patches
SMALL = {"model_type": "swin", "embed_dim": 4, "depths": [1, 1], "num_heads": [1, 2], "window_size": 2,
         "mlp_ratio": 2, "image_size": 8, "patch_size": 4, "num_channels": 1}
# patch conv 4·1·4·4 + 4, its LayerNorm 4 + 4
EMBEDDINGS = 68 + 8
# q, k, v, o 4·(4·4 + 4); bias table (2·2 - 1)²·1; two LayerNorms 2·(4 + 4); fc1 4·8 + 8, fc2 8·4 + 4
STAGE_0_BLOCK = 80 + 9 + 16 + 40 + 36
# patch merging: LayerNorm over 16 (16 + 16), reduction 16 → 8 without bias (128)
MERGING = 32 + 128
# q, k, v, o 4·(8·8 + 8); bias table 9·2; two LayerNorms 2·(8 + 8); fc1 8·16 + 16, fc2 16·8 + 8
STAGE_1_BLOCK = 288 + 18 + 32 + 144 + 136
# final LayerNorm over 8
BASE = EMBEDDINGS + STAGE_0_BLOCK + MERGING + STAGE_1_BLOCK + 16


def test_small_base_counted_by_hand() -> None:
    assert BASE == 1051
    assert total({**SMALL, "architectures": ["SwinModel"]}) == BASE


def test_small_heads_counted_by_hand() -> None:
    # classifier 8 → 3 with a bias
    assert total({**SMALL, "architectures": ["SwinForImageClassification"], "num_labels": 3}) == BASE + 27
    # no classifier where num_labels is 0 (an Identity)
    assert total({**SMALL, "architectures": ["SwinForImageClassification"], "num_labels": 0}) == BASE
    # the mask token (1·1·4); the decoder's 1×1 conv 8 → 2²·1 with a bias (32 + 4)
    assert total({**SMALL, "architectures": ["SwinForMaskedImageModeling"], "encoder_stride": 2}) == BASE + 4 + 36


def test_small_switches_counted_by_hand() -> None:
    # absolute positions: (8 / 4)² patches × 4
    assert total({**SMALL, "architectures": ["SwinModel"], "use_absolute_embeddings": True}) == BASE + 16
    # no q/k/v biases: 3·4 in stage 0, 3·8 in stage 1
    assert total({**SMALL, "architectures": ["SwinModel"], "qkv_bias": False}) == BASE - 36
    # num_attention_heads is num_heads' alias
    small = {k: v for k, v in SMALL.items() if k != "num_heads"}
    assert total({**small, "architectures": ["SwinModel"], "num_attention_heads": [1, 2]}) == BASE
    # a second block in stage 1 and windows of 3 (tables of 5² rows): + STAGE_1_BLOCK + 16·2 more table rows per block
    bigger = total({**SMALL, "architectures": ["SwinModel"], "depths": [1, 2], "window_size": 3})
    assert bigger == BASE + STAGE_1_BLOCK + (25 - 9) * 1 + (25 - 9) * 2 * 2


@pytest.mark.parametrize(("change", "says"), [
    ({"num_heads": [1]}, "num_heads has 1 entries for 2 stages"),
    ({"num_heads": [1, 9]}, "stage 1 has 9 heads for a width of 8"),
    ({"num_heads": [0, 2]}, "stage 0 has 0 heads"),
])
def test_what_the_classes_refuse_is_refused(change: dict, says: str) -> None:
    messages = error_messages({**SMALL, "architectures": ["SwinModel"], **change})
    assert any(says in m for m in messages), messages


# Swin V2 on the same small config (mlp_ratio a float: its config class takes nothing else), a pre-trained window
# size per stage
SMALL_V2 = {**SMALL, "model_type": "swinv2", "mlp_ratio": 2.0, "pretrained_window_sizes": [0, 0]}
# query 4·4 + 4, key 4·4 (no bias), value 4·4 + 4, output.dense 4·4 + 4; logit scale 1; the continuous position
# bias MLP 2·512 + 512, 512·1; two LayerNorms 2·(4 + 4); intermediate.dense 4·8 + 8, output.dense 8·4 + 4
V2_STAGE_0_BLOCK = 76 + 1 + 1536 + 512 + 16 + 40 + 36
# patch merging: reduction 16 → 8 without bias (128), then a LayerNorm over 8 (8 + 8)
V2_MERGING = 128 + 16
# query 8·8 + 8, key 8·8, value 8·8 + 8, output.dense 8·8 + 8; logit scale 2; MLP 1536 + 512·2; LayerNorms 2·(8 + 8);
# intermediate.dense 8·16 + 16, output.dense 16·8 + 8
V2_STAGE_1_BLOCK = 280 + 2 + 1536 + 1024 + 32 + 144 + 136
V2_BASE = EMBEDDINGS + V2_STAGE_0_BLOCK + V2_MERGING + V2_STAGE_1_BLOCK + 16


def test_small_swinv2_counted_by_hand() -> None:
    assert V2_BASE == 5607
    assert total({**SMALL_V2, "architectures": ["Swinv2Model"]}) == V2_BASE
    # absolute positions: (8 / 4)² patches and one more, × 4
    assert total({**SMALL_V2, "architectures": ["Swinv2Model"], "use_absolute_embeddings": True}) == V2_BASE + 20
    # window sizes shape buffers only
    assert total({**SMALL_V2, "architectures": ["Swinv2Model"], "window_size": 5,
                  "pretrained_window_sizes": [3, 4]}) == V2_BASE


@pytest.mark.parametrize(("change", "says"), [
    ({"num_heads": [1, 3]}, "stage 1 has 3 heads, which do not divide its width 8"),
    ({"pretrained_window_sizes": [0]}, "pretrained_window_sizes has 1 entries for 2 stages"),
    ({"image_size": 4}, "stage 1 sees a patch grid of 0×0"),
    ({"mlp_ratio": 2}, '"mlp_ratio": 2 is not a float'),
])
def test_what_swinv2_refuses_is_refused(change: dict, says: str) -> None:
    messages = error_messages({**SMALL_V2, "architectures": ["Swinv2Model"], **change})
    assert any(says in m for m in messages), messages


def test_small_donut_swin_counted_by_hand() -> None:
    # Swin's small body under other names, less the final LayerNorm (8 + 8); positions for 4 patches and one more
    small = {**SMALL, "model_type": "donut-swin", "mlp_ratio": 2.0}
    assert total({**small, "architectures": ["DonutSwinModel"]}) == BASE - 16
    assert total({**small, "architectures": ["DonutSwinModel"], "use_absolute_embeddings": True}) == BASE - 16 + 20
    # classifier 8 → 2 (num_labels' default) with a bias
    assert total({**small, "architectures": ["DonutSwinForImageClassification"]}) == BASE - 16 + 18
    assert any("do not divide its width 8" in m for m in error_messages(
        {**small, "architectures": ["DonutSwinModel"], "num_heads": [1, 3]}))


def test_small_maskformer_swin_counted_by_hand() -> None:
    # Donut's small body with the final LayerNorm: Swin's count; positions for 4 patches and one more
    small = {**SMALL, "model_type": "maskformer-swin", "mlp_ratio": 2.0}
    assert total({**small, "architectures": ["MaskFormerSwinModel"]}) == BASE
    assert total({**small, "architectures": ["MaskFormerSwinModel"], "use_absolute_embeddings": True}) == BASE + 20
    # the backbone: a LayerNorm after each stage, 2·4 + 2·8, whatever out_features picks
    backbone = {**small, "architectures": ["MaskFormerSwinBackbone"]}
    assert total(backbone) == total({**backbone, "out_features": ["stage2"]}) == BASE + 24
    for stem in ({"out_features": ["stem", "stage1"]}, {"out_indices": [0, 1]}):
        assert any("does not return the stem" in m for m in error_messages({**backbone, **stem}))


def test_an_encoder_keeps_no_kv_cache() -> None:
    report = estimate_memory(count({**SMALL, "architectures": ["SwinForImageClassification"]}), Settings())
    assert report.line("kv_cache") is None
    assert any("no KV cache" in n for n in report.notes)


@pytest.mark.parametrize("mode", ["inference", "train"])
def test_its_activations_are_said_not_modelled_rather_than_given_per_token(mode: str) -> None:
    # Swin's tokens and widths change at each stage: the per-token activation model does not apply.
    report = estimate_memory(count({**SMALL, "architectures": ["SwinForImageClassification"]}), Settings(mode=mode))
    assert report.line("activations") is None
    assert any("hierarchical vision transformer" in n and "not modelled" in n for n in report.notes)
