"""ResNet, ConvNeXt and ConvNeXt V2 on the convnet layout (families/convnets.py): the class defaults of every head
class (transformers 5.25 on the meta device), small configs counted by hand, the configs the classes refuse."""

from __future__ import annotations

import pytest

from config_models import errors, model

CLASS_DEFAULTS = {
    ("resnet", "ResNetModel"): 23_508_032,
    ("resnet", "ResNetForImageClassification"): 23_512_130,
    ("resnet", "ResNetBackbone"): 23_508_032,
    ("convnext", "ConvNextModel"): 27_820_128,
    ("convnext", "ConvNextForImageClassification"): 27_821_666,
    ("convnextv2", "ConvNextV2Model"): 27_866_496,
    ("convnextv2", "ConvNextV2ForImageClassification"): 27_868_034,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type: str, architecture: str) -> None:
    got = model({"model_type": model_type, "architectures": [architecture]}).tree.total
    assert got == CLASS_DEFAULTS[model_type, architecture]


def test_small_basic_resnet_by_hand() -> None:
    config = {"model_type": "resnet", "architectures": ["ResNetForImageClassification"], "num_channels": 3,
              "embedding_size": 4, "hidden_sizes": [4, 8], "depths": [1, 0], "layer_type": "basic", "num_labels": 3}
    stem = 3 * 4 * 49 + 2 * 4  # 7x7 conv without a bias, BatchNorm weight and bias
    stage0 = 2 * (4 * 4 * 9 + 2 * 4)  # 4 -> 4, stride 1: two 3x3 convs, no shortcut
    stage1 = (4 * 8 + 2 * 8) + (4 * 8 * 9 + 2 * 8) + (8 * 8 * 9 + 2 * 8)  # depth 0 still builds one block: shortcut
    head = 8 * 3 + 3
    assert model(config).tree.total == stem + stage0 + stage1 + head


def test_small_bottleneck_resnet_by_hand() -> None:
    config = {"model_type": "resnet", "architectures": ["ResNetModel"], "num_channels": 1, "embedding_size": 8,
              "hidden_sizes": [8], "depths": [1], "downsample_in_first_stage": True}
    stem = 1 * 8 * 49 + 2 * 8
    block = (8 * 8 + 2 * 8) + (8 * 2 + 2 * 2) + (2 * 2 * 9 + 2 * 2) + (2 * 8 + 2 * 8)  # strided shortcut, 8 // 4 = 2
    assert model(config).tree.total == stem + block


@pytest.mark.parametrize(("model_type", "per_block_extra"), [("convnext", 4), ("convnextv2", 2 * 16)])
def test_small_convnext_by_hand(model_type: str, per_block_extra: int) -> None:
    config = {"model_type": model_type, "architectures": [f"{'ConvNextV2' if model_type == 'convnextv2' else 'ConvNext'}"
                                                          "ForImageClassification"],
              "num_channels": 3, "patch_size": [2, 3], "num_stages": 2, "hidden_sizes": [4, 4], "depths": [1, 0],
              "num_labels": 2}
    stem = 3 * 4 * 6 + 4 + 2 * 4  # patchify conv with a bias, LayerNorm
    block = (4 * 49 + 4) + 2 * 4 + (4 * 16 + 16) + (16 * 4 + 4) + per_block_extra  # layer scale (v1) or GRN (v2)
    down = 2 * 4 + (4 * 4 * 4 + 4)  # stage 1 strides: LayerNorm and a 2x2 conv
    assert model(config).tree.total == stem + block + down + 2 * 4 + (4 * 2 + 2)


@pytest.mark.parametrize("config", [
    {"model_type": "resnet", "layer_type": "wide"},
    {"model_type": "resnet", "depths": []},
    {"model_type": "convnext", "num_stages": 5},
    {"model_type": "convnextv2", "hidden_sizes": [8, 8], "depths": [1, 1], "num_stages": 3},
    {"model_type": "convnext", "patch_size": [2, 2, 2]},
])
def test_refused_configs(config: dict) -> None:
    assert errors(config)
