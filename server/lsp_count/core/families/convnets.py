"""Convolutional vision backbones: ResNet, RegNet, ConvNeXt and ConvNeXt V2 (layout "convnet", layouts/convnet.py).

ResNet: a 7×7 stem convolution with a BatchNorm, then stages of basic (two 3×3) or bottleneck (1×1, 3×3, 1×1 at a
quarter of the width) blocks with 1×1 shortcut convolutions where the width or stride changes; every convolution
without a bias, every BatchNorm holding a weight and a bias (running statistics are buffers). RegNet: ResNet's shape
with a 3×3 stem and its own blocks (1×1, a grouped 3×3 of max(1, width // groups_width) groups, 1×1, all at the
stage's width; "y" blocks add a squeeze-and-excitation of two 1×1 convolutions with biases). ConvNeXt: a patchify
stem (Conv2d and LayerNorm), stages of depthwise 7×7 convolutions, LayerNorms and pointwise Linears (layer scale in
V1, GRN in V2), a LayerNorm and 2×2 convolution between stages, a final LayerNorm. The class defaults are
transformers 5.25's configuration_<resnet|regnet|convnext|convnextv2>.py. A vision backbone keeps no KV cache.
``hidden_act`` and ResNet's ``downsample_in_bottleneck`` size no parameter: the memory estimate reads them
(layouts/convnet.feature_maps).

Switches no key sets: ``stem`` ("conv" for ResNet's and RegNet's, "patchify" for ConvNeXt's), ``stem_kernel`` (the
conv stem's kernel: ResNet's 7, RegNet's 3), ``grn`` (V2's Global Response Normalization) and ``layer_scale`` (V1's
layer-scale vector). The conv stem's blocks are by layer_type: "basic" or "bottleneck" (ResNet's), "x" or "y"
(RegNet's).
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import fixed
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec

_COMMON: dict[str, Field] = {
    "num_channels": Field(("num_channels",), 3, doc="input image channels"),
    **LABEL_FIELDS,
}

RESNET_FIELDS: dict[str, Field] = {
    **_COMMON,
    "stem": fixed("conv"),
    "stem_kernel": fixed(7),
    "embedding_size": Field(("embedding_size",), 64, doc="width of the stem convolution"),
    "hidden_sizes": Field(("hidden_sizes",), (256, 512, 1024, 2048), "ints", null="reject",
                          doc="output width of each stage"),
    "depths": Field(("depths",), (3, 4, 6, 3), "ints", null="reject",
                    doc="blocks in each stage (a stage of depth 0 still holds its first block)"),
    "layer_type": Field(("layer_type",), "bottleneck", "str", null="reject",
                        doc='"basic" (two 3×3 convolutions) or "bottleneck" (1×1, 3×3, 1×1)'),
    "downsample_in_first_stage": Field(("downsample_in_first_stage",), False, "bool",
                                       doc="the first stage strides by 2 (a shortcut convolution then)"),
    # Neither sizes a parameter; both size what a training step keeps (layouts/convnet.feature_maps).
    "hidden_act": Field(("hidden_act",), "relu", "str", null="reject",
                        doc="activation after the convolutions (ReLU keeps its output for the backward pass, "
                            "others their input)"),
    "downsample_in_bottleneck": Field(("downsample_in_bottleneck",), False, "bool",
                                      doc="a bottleneck strides in its first 1×1 convolution, not its 3×3"),
}

# RegNet: ResNet's stem and stages (hidden_sizes and depths zipped, a stage of depth 0 holding its first block)
# with its own blocks; "x" or "y" blocks (y: squeeze-and-excitation).
REGNET_FIELDS: dict[str, Field] = {
    **{k: f for k, f in RESNET_FIELDS.items() if k not in ("layer_type", "downsample_in_bottleneck")},
    "stem_kernel": fixed(3),
    "embedding_size": replace(RESNET_FIELDS["embedding_size"], default=32),
    "hidden_sizes": replace(RESNET_FIELDS["hidden_sizes"], default=(128, 192, 512, 1088)),
    "depths": replace(RESNET_FIELDS["depths"], default=(2, 6, 12, 2)),
    "layer_type": Field(("layer_type",), "y", "str", null="reject",
                        doc='"x" (1×1, grouped 3×3, 1×1) or "y" (the same with squeeze-and-excitation)'),
    "groups_width": Field(("groups_width",), 64,
                          doc="channels per group of each block's 3×3 convolution (max(1, width // groups_width) "
                              "groups)"),
    "downsample_in_first_stage": replace(RESNET_FIELDS["downsample_in_first_stage"], default=True),
}

CONVNEXT_FIELDS: dict[str, Field] = {
    **_COMMON,
    "stem": fixed("patchify"),
    "patch_size": Field(("patch_size",), 4, "any", doc="the stem convolution's kernel and stride ([h, w] or one)"),
    "num_stages": Field(("num_stages", "num_hidden_layers"), 4, minimum=0, doc="stages (hidden_sizes/depths entries read)"),
    "hidden_sizes": Field(("hidden_sizes",), (96, 192, 384, 768), "ints", null="reject",
                          doc="width of each stage (the final LayerNorm and classifier read the last)"),
    "depths": Field(("depths",), (3, 3, 9, 3), "ints", null="reject", doc="blocks in each stage"),
    "layer_scale": fixed(True),
    "layer_scale_init_value": Field(("layer_scale_init_value",), 1e-6, "float",
                                    doc="a learned per-channel scale in each block where > 0"),
    "grn": fixed(False),
    "hidden_act": Field(("hidden_act",), "gelu", "str", null="reject",
                        doc="activation between each block's pointwise layers (sizes no parameter: the memory "
                            "estimate reads it)"),
}

CONVNEXTV2_FIELDS: dict[str, Field] = {
    **{k: f for k, f in CONVNEXT_FIELDS.items() if k != "layer_scale_init_value"},
    "layer_scale": fixed(False), "layer_scale_init_value": fixed(0.0), "grn": fixed(True),
}


def _refuse(spec: ModelSpec, out: list[Problem], message: str, *fields: str) -> None:
    where = next((spec.key_span(f) for f in fields if spec.key_span(f)), None) or spec.span
    out.append(Problem("error", "LC103", message, where))


def check_resnet(spec: ModelSpec) -> list[Problem]:
    """What ResNetConfig or ResNetModel refuses: a layer_type other than "basic" or "bottleneck"
    (validate_layer_type), and an empty hidden_sizes or depths (the first stage reads their first entries)."""
    v = spec.values
    out: list[Problem] = []
    if v.get("layer_type") not in ("basic", "bottleneck"):
        _refuse(spec, out, f'layer_type {v.get("layer_type")!r} is neither "basic" nor "bottleneck": transformers\' '
                           "config class refuses it", "layer_type")
    for name in ("hidden_sizes", "depths"):
        if v.get(name) == ():
            _refuse(spec, out, f"{name} is empty: the first stage reads its first entry, and the model cannot be "
                               "built", name)
    return out


def check_regnet(spec: ModelSpec) -> list[Problem]:
    """What RegNetConfig or RegNetModel refuses: a layer_type other than "x" or "y" (validate_architecture), an empty
    hidden_sizes or depths (the first stage reads their first entries), and a stage width its 3×3 convolution's
    groups (max(1, width // groups_width)) do not divide (Conv2d refuses it)."""
    v = spec.values
    out: list[Problem] = []
    if v.get("layer_type") not in ("x", "y"):
        _refuse(spec, out, f'layer_type {v.get("layer_type")!r} is neither "x" nor "y": transformers\' config class '
                           "refuses it", "layer_type")
    sizes, depths, width = v.get("hidden_sizes"), v.get("depths"), v.get("groups_width")
    for name, entries in (("hidden_sizes", sizes), ("depths", depths)):
        if entries == ():
            _refuse(spec, out, f"{name} is empty: the first stage reads its first entry, and the model cannot be "
                               "built", name)
    if isinstance(sizes, tuple) and isinstance(depths, tuple) and depths and isinstance(width, int):
        for size in sizes[:len(depths)]:  # (the stages built: hidden_sizes zipped with depths)
            groups = max(1, size // width)
            if size % groups:
                _refuse(spec, out, f"hidden_sizes entry {size} is not a multiple of its 3×3 convolution's {groups} "
                                   f"groups (max(1, {size} // groups_width {width})): torch's Conv2d refuses it",
                        "hidden_sizes", "groups_width")
                break
    return out


def check_convnext(spec: ModelSpec) -> list[Problem]:
    """What ConvNeXt's classes refuse: fewer hidden_sizes or depths than num_stages (each stage reads its
    entries), an empty hidden_sizes (the stem reads the first, the final LayerNorm the last), and a patch_size that
    is neither a whole number nor a [height, width] pair of them."""
    v = spec.values
    out: list[Problem] = []
    stages, sizes, depths = v.get("num_stages"), v.get("hidden_sizes"), v.get("depths")
    if sizes == ():
        _refuse(spec, out, "hidden_sizes is empty: the stem reads its first entry, and the model cannot be built",
                "hidden_sizes")
    for name, entries in (("hidden_sizes", sizes), ("depths", depths)):
        if isinstance(stages, int) and isinstance(entries, tuple) and len(entries) < stages:
            _refuse(spec, out, f"{name} has {len(entries)} entries for {stages} stages (num_stages): the model "
                               "cannot be built", name, "num_stages")
    p = v.get("patch_size")
    pair = isinstance(p, list) and len(p) == 2 and all(type(x) is int and x > 0 for x in p)
    if p is None:
        _refuse(spec, out, '"patch_size": null is not a whole number: the stem convolution cannot be built with it '
                           "(leaving the key out takes the default, 4)", "patch_size")
    elif not pair and not (type(p) is int and p > 0):
        _refuse(spec, out, f"patch_size {p!r} is neither a whole number nor a [height, width] pair: the stem "
                           "convolution cannot be built with it", "patch_size")
    return out


FAMILIES: tuple[Family, ...] = (
    Family("resnet", "convnet", "ResNetForImageClassification", RESNET_FIELDS,
           {"ResNetModel": "base", "ResNetForImageClassification": "image_classification",
            "ResNetBackbone": "backbone"}, checks=(check_resnet,)),
    Family("regnet", "convnet", "RegNetForImageClassification", REGNET_FIELDS,
           {"RegNetModel": "base", "RegNetForImageClassification": "image_classification"}, checks=(check_regnet,)),
    Family("convnext", "convnet", "ConvNextForImageClassification", CONVNEXT_FIELDS,
           {"ConvNextModel": "base", "ConvNextForImageClassification": "image_classification"},
           checks=(check_convnext,)),
    Family("convnextv2", "convnet", "ConvNextV2ForImageClassification", CONVNEXTV2_FIELDS,
           {"ConvNextV2Model": "base", "ConvNextV2ForImageClassification": "image_classification"},
           checks=(check_convnext,)),
)
