"""BEiT and Data2Vec-Vision without torch (transformers 5.25): ViT-shaped post-norm encoders with a query and value
bias but no key bias, layer scales (lambda_1, lambda_2) where layer_scale_init_value > 0, a mask token and a position
table each by its key, relative position bias tables ((2·Wh−1)·(2·Ww−1)+3 rows × heads for a Wh × Ww patch grid) in
every layer or one shared, and mean pooling (the pooler's LayerNorm in place of the final one). BEiT's bare model
pools, Data2Vec-Vision's does not (their classifier classes do); BEiT's masked-image-modeling class predicts visual
tokens. Small configs counted by hand (the arithmetic in each test), the class defaults as transformers builds them on
the meta device (``sum(p.numel() for p in model.parameters())``, taken there once) and the configs the classes
refuse."""

from __future__ import annotations

import pytest

from config_models import error_messages as errors, model as count

# transformers 5.25, meta device, each class with its config class's defaults: (total, trainable).
CLASS_DEFAULTS = {
    ("beit", "BeitModel"): (85_656_576, 85_656_576),
    ("beit", "BeitForImageClassification"): (85_658_114, 85_658_114),
    ("beit", "BeitForMaskedImageModeling"): (91_956_224, 91_956_224),
    ("data2vec-vision", "Data2VecVisionModel"): (85_655_040, 85_655_040),
    ("data2vec-vision", "Data2VecVisionForImageClassification"): (85_658_114, 85_658_114),
}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type: str, architecture: str) -> None:
    tree = count({"model_type": model_type, "architectures": [architecture]}).tree
    assert (tree.total, tree.trainable) == CLASS_DEFAULTS[model_type, architecture]


SMALL = {"hidden_size": 4, "num_attention_heads": 2, "intermediate_size": 6, "num_hidden_layers": 1,
         "image_size": 8, "patch_size": 4, "num_channels": 1}
# The embeddings: the class token 4, the patch convolution 4·1·4·4 + 4 = 68 (a 2 × 2 grid of 4 patches).
EMBED = 4 + 68
# One layer at width 4: q 4·4 + 4 = 20, k 4·4 = 16 (no bias), v 20, o 20; fc1 4·6 + 6 = 30, fc2 6·4 + 4 = 28; two
# LayerNorms 2 × 8 = 16; lambda_1 and lambda_2 4 each (layer_scale_init_value 0.1 by default).
LAYER = 20 + 16 + 20 + 20 + 30 + 28 + 16 + 8  # 158
NORM = 8  # the final LayerNorm or the pooler's
TABLE = ((2 * 2 - 1) * (2 * 2 - 1) + 3) * 2  # a relative position bias table: 12 rows × 2 heads = 24


def _count(model_type: str, architecture: str, **keys) -> int:
    return count({"model_type": model_type, "architectures": [architecture], **SMALL, **keys}).tree.total


def test_beit_model_pools_through_a_layernorm() -> None:
    # Mean pooling (the default): no final LayerNorm, the pooler's. Without it: the final LayerNorm, no pooler's.
    assert _count("beit", "BeitModel") == EMBED + LAYER + NORM == 238
    assert _count("beit", "BeitModel", use_mean_pooling=False) == 238


def test_beit_optional_parts_by_their_keys() -> None:
    # The mask token 4, the position table (4 patches + 1) × 4 = 20, a table in the layer and a shared one 24 each.
    every = _count("beit", "BeitModel", use_mask_token=True, use_absolute_position_embeddings=True,
                   use_relative_position_bias=True, use_shared_relative_position_bias=True)
    assert every == 238 + 4 + 20 + TABLE + TABLE == 310
    # Two layers: two tables in the layers, still one shared.
    assert _count("beit", "BeitModel", num_hidden_layers=2, use_relative_position_bias=True,
                  use_shared_relative_position_bias=True) == 238 + LAYER + 2 * TABLE + TABLE == 468


def test_relative_table_follows_the_patch_grid() -> None:
    # A 12 × 8 image in 4-pixel patches: a 3 × 2 grid, (2·3 − 1)·(2·2 − 1) + 3 = 18 rows × 2 heads; 6 patches.
    conv_grid = _count("beit", "BeitModel", image_size=[12, 8])
    assert _count("beit", "BeitModel", image_size=[12, 8], use_relative_position_bias=True) == conv_grid + 18 * 2
    # Data2Vec-Vision divides each side by its own patch side: [4, 2] patches make a 2 × 4 grid, 3·7 + 3 = 24 rows.
    d2v = _count("data2vec-vision", "Data2VecVisionModel", patch_size=[4, 2])
    assert _count("data2vec-vision", "Data2VecVisionModel", patch_size=[4, 2],
                  use_shared_relative_position_bias=True) == d2v + 24 * 2


def test_layer_scales_only_above_zero() -> None:
    assert _count("beit", "BeitModel", layer_scale_init_value=0.0) == 238 - 8
    assert _count("beit", "BeitModel", layer_scale_init_value=-1.0) == 238 - 8
    assert _count("data2vec-vision", "Data2VecVisionModel", layer_scale_init_value=1.0) == EMBED + LAYER


def test_beit_heads() -> None:
    # The classifier class builds the pooler too: + 4·2 + 2 (num_labels 2).
    assert _count("beit", "BeitForImageClassification") == 238 + 10 == 248
    # Masked image modeling: no pooler; a LayerNorm 8 and lm_head over 10 visual tokens 4·10 + 10 = 50.
    assert _count("beit", "BeitForMaskedImageModeling", vocab_size=10) == EMBED + LAYER + 8 + 50 == 288
    assert _count("beit", "BeitForMaskedImageModeling", vocab_size=10, use_mean_pooling=False) == 288 + NORM


def test_data2vec_vision_bare_model_does_not_pool() -> None:
    assert _count("data2vec-vision", "Data2VecVisionModel") == EMBED + LAYER == 230
    assert _count("data2vec-vision", "Data2VecVisionModel", use_mean_pooling=False) == 230 + NORM
    # Its classifier class does: the pooler's LayerNorm 8, the classifier 10.
    assert _count("data2vec-vision", "Data2VecVisionForImageClassification") == 230 + NORM + 10 == 248


def test_beit_reads_a_head_dim_and_floors_others() -> None:
    # head_dim 3 (BeitAttention reads it where the config has one): q, v 4·6 + 6 = 30, k 24, o 6·4 + 4 = 28.
    assert _count("beit", "BeitModel", head_dim=3) == 238 - (20 + 16 + 20 + 20) + (30 + 24 + 30 + 28)
    # Width 5 over 2 heads: heads of 2, q, v 5·4 + 4 = 24, k 20, o 4·5 + 5 = 25.
    assert not errors({"model_type": "beit", "architectures": ["BeitModel"], **SMALL, "hidden_size": 5})


@pytest.mark.parametrize("config,needle", [
    # BeitRelativePositionBias divides the image size by patch_size itself.
    ({"model_type": "beit", "patch_size": [4, 4], "use_relative_position_bias": True}, "patch_size"),
    ({"model_type": "beit", "patch_size": [4, 4], "use_shared_relative_position_bias": True}, "patch_size"),
    # The config classes' strict float field: a whole number is refused.
    ({"model_type": "beit", "layer_scale_init_value": 1}, "layer_scale_init_value"),
    ({"model_type": "data2vec-vision", "layer_scale_init_value": 0}, "layer_scale_init_value"),
    ({"model_type": "data2vec-vision", "layer_scale_init_value": None}, "layer_scale_init_value"),
    # Data2Vec-Vision's attention refuses heads that do not divide the width.
    ({"model_type": "data2vec-vision", "hidden_size": 5}, "hidden_size"),
])
def test_refusals(config: dict, needle: str) -> None:
    messages = errors({**SMALL, **config})
    assert messages and any(needle in m for m in messages), messages


def test_a_list_patch_builds_without_relative_tables() -> None:
    assert _count("beit", "BeitModel", patch_size=[4, 4]) == 238
