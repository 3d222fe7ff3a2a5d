"""ViTMAE, YOLOS, DINOv3 ViT and I-JEPA without torch: ViT-shaped vision encoders (transformers 5.25). ViTMAE's position tables are
fixed sin-cos values (requires_grad=False) and its pre-training class adds a decoder of its own width; YOLOS adds
detection tokens, a position table per layer after the first and two detection MLPs; DINOv3 has rotary positions (no table), register tokens, layer scales and each projection's
bias by a key of its own; I-JEPA has no class token and no
pooler; ViT-MSN is ViT without a pooler. Small configs counted by hand (the arithmetic in each test), the class defaults as transformers
builds them on the meta device (``sum(p.numel() for p in model.parameters())``, taken there once) and the configs
the pre-training class refuses."""

from __future__ import annotations

import pytest

from config_models import error_messages as errors, model as count

# transformers 5.25, meta device, each class with its config class's defaults: (total, trainable).
CLASS_DEFAULTS = {
    ("vit_mae", "ViTMAEModel"): (85_798_656, 85_647_360),
    ("vit_mae", "ViTMAEForPreTraining"): (111_907_840, 111_655_680),
    ("yolos", "YolosModel"): (103_170_816, 103_170_816),
    ("yolos", "YolosForObjectDetection"): (104_947_975, 104_947_975),
    ("dinov3_vit", "DINOv3ViTModel"): (21_595_008, 21_595_008),
    ("dinov3_vit", "DINOv3ViTBackbone"): (21_595_008, 21_595_008),
    ("ijepa", "IJepaModel"): (85_797_120, 85_797_120),
    ("ijepa", "IJepaForImageClassification"): (85_798_658, 85_798_658),
    ("vit_msn", "ViTMSNModel"): (85_798_656, 85_798_656),
    ("vit_msn", "ViTMSNForImageClassification"): (85_800_194, 85_800_194),
}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type: str, architecture: str) -> None:
    tree = count({"model_type": model_type, "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == CLASS_DEFAULTS[model_type, architecture]


SMALL = {"hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 5, "num_hidden_layers": 1,
         "image_size": 12, "patch_size": 4}
# One encoder layer at width 8 (heads of 4, a bias everywhere): q, k, v 3 × (8·8 + 8) = 216, o 8·8 + 8 = 72,
# fc1 8·5 + 5 = 45, fc2 5·8 + 8 = 48, two LayerNorms 2 × 16 = 32.
LAYER = 216 + 72 + 45 + 48 + 32  # 413
CONV = 8 * 3 * 4 * 4 + 8  # the patch embedding: 3 channels, 4×4 patches, a bias: 392
PATCHES = 3 * 3  # a 12-pixel side in 4-pixel patches


def test_vit_mae_model_by_hand() -> None:
    tree = count({"model_type": "vit_mae", "architectures": ["ViTMAEModel"], **SMALL}).tree
    positions = (PATCHES + 1) * 8  # fixed sin-cos, for the class token and the patches: 80
    # class token 8, the conv, the positions, the layer, the final LayerNorm 16; no pooler.
    assert tree.total == 8 + CONV + positions + LAYER + 16 == 909
    assert tree.trainable == 909 - positions


def test_vit_mae_pretraining_decoder_by_hand() -> None:
    config = {"model_type": "vit_mae", "architectures": ["ViTMAEForPreTraining"], **SMALL, "decoder_hidden_size": 8,
              "decoder_num_attention_heads": 3, "decoder_num_hidden_layers": 1, "decoder_intermediate_size": 7}
    tree = count(config).tree
    # Decoder layer at width 8, 3 heads of 8 // 3 = 2 (6 wide): q, k, v 3 × (8·6 + 6) = 162, o 6·8 + 8 = 56,
    # fc1 8·7 + 7 = 63, fc2 7·8 + 8 = 64, two LayerNorms 32.
    decoder_layer = 162 + 56 + 63 + 64 + 32
    # decoder_embed 8·8 + 8, mask token 8, fixed positions 10 · 8, the layer, decoder_norm 16,
    # decoder_pred 8 → 4²·3 = 48 pixels: 8·48 + 48.
    decoder = 72 + 8 + 80 + decoder_layer + 16 + 432
    assert tree.total == 909 + decoder == 1894
    assert tree.trainable == 1894 - 80 - 80  # both position tables are frozen


def test_vit_mae_head_dim_serves_the_decoder_too() -> None:
    # The decoder is built from a copy of the config: a written head_dim (3) sets its heads' width as the encoder's.
    config = {"model_type": "vit_mae", "architectures": ["ViTMAEForPreTraining"], **SMALL, "head_dim": 3,
              "decoder_hidden_size": 8, "decoder_num_attention_heads": 2, "decoder_num_hidden_layers": 1,
              "decoder_intermediate_size": 7}
    # Attention 6 wide in both stacks: q, k, v 3 × (8·6 + 6) = 162, o 6·8 + 8 = 56.
    encoder = 8 + CONV + 80 + (162 + 56 + 45 + 48 + 32) + 16
    decoder = 72 + 8 + 80 + (162 + 56 + 63 + 64 + 32) + 16 + 432
    assert count(config).tree.total == encoder + decoder == 1824


@pytest.mark.parametrize("change,needle", [
    ({"decoder_hidden_size": 6}, "not divisible by 4"),
    ({"image_size": [8, 12]}, "not a square grid"),
    ({"patch_size": [4, 4]}, "needs one number"),
    ({"decoder_num_attention_heads": 16}, "cannot be divided among 16 decoder heads"),
])
def test_vit_mae_pretraining_refusals(change: dict, needle: str) -> None:
    config = {"model_type": "vit_mae", **SMALL, "decoder_hidden_size": 8, "decoder_num_attention_heads": 2, **change}
    assert any(needle in m for m in errors({**config, "architectures": ["ViTMAEForPreTraining"]}))
    # The bare model has no decoder: it builds all of them.
    assert not errors({**config, "architectures": ["ViTMAEModel"]})


def test_ijepa_by_hand() -> None:
    config = {"model_type": "ijepa", "architectures": ["IJepaForImageClassification"], **SMALL,
              "id2label": {"0": "a", "1": "b", "2": "c"}}
    # No class token, positions for the 9 patches (72), the conv, the layer, the final LayerNorm, the classifier 8·3 + 3.
    assert count(config).tree.total == 72 + CONV + LAYER + 16 + 27 == 920
    # The bare model has no pooler either (pooler_output_size is kept but never read).
    bare = {**config, "architectures": ["IJepaModel"], "pooler_output_size": 5}
    assert count(bare).tree.total == 920 - 27


def test_vit_msn_by_hand() -> None:
    config = {"model_type": "vit_msn", "architectures": ["ViTMSNForImageClassification"], **SMALL,
              "id2label": {"0": "a", "1": "b", "2": "c"}}
    # Class token 8, learned positions for it and the 9 patches 10·8 = 80, the conv, the layer, the final LayerNorm 16,
    # the classifier 8·3 + 3 = 27; no pooler in either class.
    assert count(config).tree.total == 8 + 80 + CONV + LAYER + 16 + 27 == 936
    assert count({**config, "architectures": ["ViTMSNModel"]}).tree.total == 936 - 27


YOLOS = {"model_type": "yolos", "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 5,
         "num_hidden_layers": 2, "image_size": [13, 9], "patch_size": 4, "num_detection_tokens": 3}


def test_yolos_by_hand() -> None:
    tree = count({**YOLOS, "architectures": ["YolosForObjectDetection"]}).tree
    patches = (13 // 4) * (9 // 4)  # 6
    positions = (patches + 1 + 3) * 8  # the class token, the patches and 3 detection tokens: 80
    # Mid-position tables for the 1 layer after the first: 1 + 13·9 // 4² + 3 = 11 rows of 8.
    mid = (2 - 1) * (1 + 13 * 9 // 16 + 3) * 8
    # BERT-named layers, the same sizes as ViT's: 413 each.
    body = 8 + 3 * 8 + CONV + positions + mid + 2 * LAYER + 16  # class token, detection tokens, ..., final LayerNorm
    # Two 3-layer MLPs: 8 → 8 → 8 → num_labels (2) + 1 "no object", and 8 → 8 → 8 → 4 (the box); no pooler.
    heads = (72 + 72 + 8 * 3 + 3) + (72 + 72 + 8 * 4 + 4)
    assert tree.total == body + heads == 1785
    # The bare model has a pooler (8·8 + 8) and no detection heads.
    assert count({**YOLOS, "architectures": ["YolosModel"]}).tree.total == body + 72


@pytest.mark.parametrize("change,needle", [
    ({"image_size": 13}, "needs [height, width]"),  # YolosConfig's strict field
    ({"patch_size": [4, 3]}, "squares patch_size"),  # the mid-position tables
    ({"num_attention_heads": 3}, "does not divide"),
])
def test_yolos_refusals(change: dict, needle: str) -> None:
    assert any(needle in m for m in errors({**YOLOS, **change, "architectures": ["YolosModel"]}))


def test_yolos_pair_patch_without_mid_positions() -> None:
    # Without the mid-position tables a [height, width] patch_size builds: (13 // 4)·(9 // 3) = 9 patches.
    config = {**YOLOS, "patch_size": [4, 3], "use_mid_position_embeddings": False, "num_hidden_layers": 1,
              "num_detection_tokens": 0, "architectures": ["YolosModel"]}
    conv = 8 * 3 * 4 * 3 + 8
    assert count(config).tree.total == 8 + conv + (9 + 1) * 8 + LAYER + 16 + 72 == 885


DINOV3 = {"model_type": "dinov3_vit", "architectures": ["DINOv3ViTModel"], "hidden_size": 8, "num_attention_heads": 3,
          "intermediate_size": 5, "num_hidden_layers": 2, "image_size": [13, 9], "patch_size": [4, 3],
          "num_register_tokens": 2, "use_gated_mlp": True, "key_bias": True, "proj_bias": False, "mlp_bias": False}


def test_dinov3_by_hand() -> None:
    # Class, mask and 2 register tokens (8 + 8 + 16), the conv 8·3·4·3 + 8; no position table (rotary).
    embeddings = 8 + 8 + 16 + 8 * 3 * 4 * 3 + 8
    # The attention is hidden wide whatever the 3 heads: q, k, v with biases 3 × (8·8 + 8), o without 8·8; a gated MLP
    # without biases: gate and up 2 × 8·5, down 5·8; two LayerNorms 32; two layer scales 16.
    layer = 216 + 64 + 80 + 40 + 32 + 16
    assert count(DINOV3).tree.total == embeddings + 2 * layer + 16 == 1240
    # The class defaults' biases: the key projection has none.
    plain = {**DINOV3, "key_bias": False, "use_gated_mlp": False, "mlp_bias": True}
    # 2 × 8 fewer (the key biases); the MLP up 8·5 + 5, down 5·8 + 8 in place of 120.
    assert count(plain).tree.total == 1240 - 2 * 8 - 2 * 120 + 2 * (45 + 48)


def test_dinov3_refuses_heads_wider_than_hidden() -> None:
    assert any("cannot divide hidden_size (8)" in m for m in errors({**DINOV3, "num_attention_heads": 9}))
