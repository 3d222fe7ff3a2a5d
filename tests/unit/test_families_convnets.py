"""ResNet, RegNet, ConvNeXt and ConvNeXt V2 on the convnet layout (families/convnets.py): the class defaults of every
head class (transformers 5.25 on the meta device), small configs counted by hand, the configs the classes refuse."""

from __future__ import annotations

import pytest

from config_models import errors, model

CLASS_DEFAULTS = {
    ("resnet", "ResNetModel"): 23_508_032,
    ("resnet", "ResNetForImageClassification"): 23_512_130,
    ("resnet", "ResNetBackbone"): 23_508_032,
    ("regnet", "RegNetModel"): 19_557_656,
    ("regnet", "RegNetForImageClassification"): 19_559_834,
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


def test_small_regnet_y_by_hand() -> None:
    config = {"model_type": "regnet", "architectures": ["RegNetForImageClassification"], "num_channels": 3,
              "embedding_size": 4, "hidden_sizes": [6, 8], "depths": [1, 2], "groups_width": 2, "layer_type": "y",
              "num_labels": 3}
    stem = 3 * 4 * 9 + 2 * 4  # 3x3 conv without a bias, BatchNorm weight and bias
    # 4 -> 6, strided (downsample_in_first_stage defaults true): shortcut, 1x1, 3x3 of max(1, 6 // 2) = 3 groups,
    # squeeze-and-excitation 6 -> round(4 / 4) = 1 -> 6 with biases, 1x1
    stage0 = (4 * 6 + 12) + (4 * 6 + 12) + (6 * 2 * 9 + 12) + (6 * 1 + 1 + 1 * 6 + 6) + (6 * 6 + 12)
    se8 = 8 * 2 + 2 + 2 * 8 + 8  # round(6 / 4) = round(1.5) = 2; round(8 / 4) = 2
    block1 = (6 * 8 + 16) + (6 * 8 + 16) + (8 * 2 * 9 + 16) + se8 + (8 * 8 + 16)  # 4 groups of 2
    block2 = (8 * 8 + 16) + (8 * 2 * 9 + 16) + se8 + (8 * 8 + 16)  # 8 -> 8, stride 1: no shortcut
    head = 8 * 3 + 3
    assert model(config).tree.total == stem + stage0 + block1 + block2 + head == 1_174


def test_small_regnet_rounds_half_to_even_and_x_has_no_excitation() -> None:
    y = {"model_type": "regnet", "architectures": ["RegNetModel"], "num_channels": 1, "embedding_size": 2,
         "hidden_sizes": [2], "depths": [0], "layer_type": "y", "downsample_in_first_stage": False}
    # depth 0 still builds one block; 2 -> 2 unstrided: no shortcut; round(2 / 4) = round(0.5) = 0: the excitation
    # holds only its second convolution's bias
    assert model(y).tree.total == (1 * 2 * 9 + 4) + (2 * 2 + 4) + (2 * 2 * 9 + 4) + (0 + 0 + 0 + 2) + (2 * 2 + 4)
    x = {"model_type": "regnet", "architectures": ["RegNetModel"], "num_channels": 1, "embedding_size": 10,
         "hidden_sizes": [4], "depths": [1], "layer_type": "x"}
    assert model(x).tree.total == (1 * 10 * 9 + 20) + (10 * 4 + 8) + (10 * 4 + 8) + (4 * 4 * 9 + 8) + (4 * 4 + 8)


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
    {"model_type": "regnet", "layer_type": "bottleneck"},
    {"model_type": "regnet", "hidden_sizes": []},
    {"model_type": "regnet", "groups_width": 0},
    {"model_type": "regnet", "hidden_sizes": [9], "depths": [1], "groups_width": 4},  # 2 groups do not divide 9
    {"model_type": "convnext", "num_stages": 5},
    {"model_type": "convnextv2", "hidden_sizes": [8, 8], "depths": [1, 1], "num_stages": 3},
    {"model_type": "convnext", "patch_size": [2, 2, 2]},
])
def test_refused_configs(config: dict) -> None:
    assert errors(config)
