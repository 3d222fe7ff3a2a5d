"""Random small convolutional-backbone configs (ResNet, RegNet, ConvNeXt, ConvNeXt V2: layout "convnet"), written as a
config.json would be: 1 to 4 stages of any widths (ResNet's bottleneck widths below 4 too: a 0-wide middle) and
depths (ResNet's 0 included: its stage still holds one block), hidden_sizes and depths of unequal lengths where the
class takes them (ResNet zips them; ConvNeXt reads num_stages entries of each, which may leave the last ones
unread), basic or bottleneck blocks, a strided first stage, square or [h, w] patches, layer scale on or off, and
any head class of the family; RegNet's x or y blocks, any groups_width (widths its groups divide: the others are
refused, as Conv2d refuses them), widths of 2, 6 and 10 among them (the squeeze-and-excitation's round(in / 4) rounds
half to even)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture


def resnet_config(draw) -> dict:
    sizes = draw(st.lists(st.integers(1, 24), min_size=1, max_size=4))
    depths = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    cfg: dict = {"model_type": "resnet", "hidden_sizes": sizes, "depths": depths}
    draw_architecture(draw, "resnet", cfg)
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "embedding_size", draw(st.integers(1, 24)), cfg)
    _maybe(draw, "layer_type", draw(st.sampled_from(["basic", "bottleneck"])), cfg)
    _maybe(draw, "downsample_in_first_stage", draw(st.booleans()), cfg)
    _maybe(draw, "downsample_in_bottleneck", draw(st.booleans()), cfg)
    return cfg


def regnet_config(draw) -> dict:
    cfg: dict = {"model_type": "regnet"}
    draw_architecture(draw, "regnet", cfg)
    groups_width = draw(st.integers(1, 8))
    _maybe(draw, "groups_width", groups_width, cfg)
    width = groups_width if "groups_width" in cfg else 64
    # (the 3×3 convolution's groups, max(1, size // groups_width), must divide the stage's width)
    size = st.integers(1, 24).filter(lambda s: s % max(1, s // width) == 0)
    cfg["hidden_sizes"] = draw(st.lists(size, min_size=1, max_size=4))
    cfg["depths"] = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "embedding_size", draw(st.integers(1, 24)), cfg)
    _maybe(draw, "layer_type", draw(st.sampled_from(["x", "y"])), cfg)
    _maybe(draw, "downsample_in_first_stage", draw(st.booleans()), cfg)
    return cfg


def convnext_config(draw, model_type: str) -> dict:
    stages = draw(st.integers(1, 4))
    cfg: dict = {"model_type": model_type, "num_stages": stages,
                 "hidden_sizes": draw(st.lists(st.integers(1, 16), min_size=stages, max_size=stages + 1)),
                 "depths": draw(st.lists(st.integers(0, 3), min_size=stages, max_size=stages + 1))}
    draw_architecture(draw, model_type, cfg)
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "patch_size", draw(st.one_of(st.integers(1, 5), st.lists(st.integers(1, 5), min_size=2,
                                                                                 max_size=2))), cfg)
    if model_type == "convnext":
        _maybe(draw, "layer_scale_init_value", draw(st.sampled_from([0.0, 1e-6, -1.0, 0.5])), cfg)
    return cfg


STRATEGIES.update({"resnet": resnet_config, "regnet": regnet_config,
                   "convnext": lambda draw: convnext_config(draw, "convnext"),
                   "convnextv2": lambda draw: convnext_config(draw, "convnextv2")})
