"""Convolutional vision backbones (ResNet, RegNet, ConvNeXt, ConvNeXt V2; families/convnets.py): a stem, stages of
residual blocks, and the head classes (image classification, backbone).

Stages differ from each other (their widths, strides and first blocks), so every block is its own node under
"stages" (a ConvNeXt of 36 blocks is 36 small nodes). Tensors are named by their path in the base model
("encoder.stages.1.layers.0.pwconv1.weight"), their module by its last part, as the speech layout's; formats/lora.py's
ENCODER_PATHS puts the head classes' full names together. BatchNorm running statistics are buffers, not parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.params import ParamNode, Tensor, node
from lsp_count.core.spec import ModelSpec, head_labels


def _conv2d(path: str, out_c: int, in_per_group: int, kernel: tuple[int, int], bias: bool) -> tuple[Tensor, ...]:
    """A Conv2d named by its path; the module is the last part (as path_linear's)."""
    module = path.rsplit(".", 1)[-1]
    ts = (Tensor(f"{path}.weight", (out_c, in_per_group, *kernel), "conv", module),)
    return ts + ((Tensor(f"{path}.bias", (out_c,), "bias", module),) if bias else ())


def _resnet_conv(path: str, in_c: int, out_c: int, kernel: int) -> tuple[Tensor, ...]:
    """ResNetConvLayer / ResNetShortCut: a Conv2d without a bias, then a BatchNorm2d (weight and bias; its running
    statistics are buffers)."""
    return _conv2d(f"{path}.convolution", out_c, in_c, (kernel, kernel), False) + path_norm(
        f"{path}.normalization", out_c)


def _resnet_block(path: str, spec: ModelSpec, in_c: int, out_c: int, stride: int) -> ParamNode:
    """A basic block (two 3×3 convolutions) or a bottleneck (1×1 to out_c // 4, 3×3, 1×1 back); a 1×1 shortcut
    where the width or the stride changes. (Where the bottleneck strides changes no shape.)"""
    tensors = _resnet_conv(f"{path}.shortcut", in_c, out_c, 1) if in_c != out_c or stride != 1 else ()
    if spec.values["layer_type"] == "bottleneck":
        r = out_c // 4
        tensors += (_resnet_conv(f"{path}.layer.0", in_c, r, 1) + _resnet_conv(f"{path}.layer.1", r, r, 3)
                    + _resnet_conv(f"{path}.layer.2", r, out_c, 1))
    else:
        tensors += _resnet_conv(f"{path}.layer.0", in_c, out_c, 3) + _resnet_conv(f"{path}.layer.1", out_c, out_c, 3)
    return ParamNode(path.rsplit(".", 1)[-1], tensors)


def _regnet_block(path: str, spec: ModelSpec, in_c: int, out_c: int, stride: int) -> ParamNode:
    """RegNet's X block: a 1×1 convolution in_c → out_c, a 3×3 one of max(1, out_c // groups_width) groups, a 1×1
    one, each with its BatchNorm; a Y block puts a squeeze-and-excitation before the last (two 1×1 convolutions with
    biases, out_c → round(in_c / 4) → out_c); a 1×1 shortcut where the width or the stride changes."""
    tensors = _resnet_conv(f"{path}.shortcut", in_c, out_c, 1) if in_c != out_c or stride != 1 else ()
    groups = max(1, out_c // spec.int("groups_width"))
    tensors += _resnet_conv(f"{path}.layer.0", in_c, out_c, 1) + _conv2d(
        f"{path}.layer.1.convolution", out_c, out_c // groups, (3, 3), False) + path_norm(
        f"{path}.layer.1.normalization", out_c)
    last = 2
    if spec.values["layer_type"] == "y":
        reduced = int(round(in_c / 4))  # (Python's round: half to even, as RegNetYLayer's)
        tensors += _conv2d(f"{path}.layer.2.attention.0", reduced, out_c, (1, 1), True) + _conv2d(
            f"{path}.layer.2.attention.2", out_c, reduced, (1, 1), True)
        last = 3
    tensors += _resnet_conv(f"{path}.layer.{last}", out_c, out_c, 1)
    return ParamNode(path.rsplit(".", 1)[-1], tensors)


def _resnet_base(spec: ModelSpec) -> tuple[ParamNode, ...]:
    """The stem (a stem_kernel-wide convolution and its BatchNorm), then one stage per hidden_sizes entry that has a
    depth: the first from embedding_size (strided where downsample_in_first_stage), each later one from the one before,
    strided by 2. A stage holds max(depth, 1) blocks (its first is built whatever the depth) of ResNet's kinds or, where
    layer_type is "x" or "y", RegNet's."""
    v = spec.values
    sizes, depths = v["hidden_sizes"], v["depths"]
    emb = spec.int("embedding_size")
    stem = ParamNode("embeddings", _resnet_conv("embedder.embedder", spec.int("num_channels"), emb,
                                                spec.int("stem_kernel")),
                     source=spec.key_span("embedding_size"), key="embedding_size")
    block = _regnet_block if v["layer_type"] in ("x", "y") else _resnet_block
    stages = []
    widths = list(zip((emb, *sizes), sizes, depths))  # type: ignore[misc, arg-type]
    for i, (in_c, out_c, depth) in enumerate(widths):
        stride = 2 if i or v["downsample_in_first_stage"] else 1
        path = f"encoder.stages.{i}.layers"
        blocks = [block(f"{path}.0", spec, in_c, out_c, stride)]
        blocks += [block(f"{path}.{j}", spec, out_c, out_c, 1) for j in range(1, depth)]
        stages.append(ParamNode(str(i), children=tuple(blocks)))
    encoder = ParamNode("stages", children=tuple(stages), source=spec.key_span("depths"), key="depths")
    return stem, encoder


def _convnext_block(path: str, spec: ModelSpec, dim: int) -> ParamNode:
    """A ConvNeXt block: a depthwise 7×7 convolution with a bias, a LayerNorm, two pointwise Linears (dim → 4·dim →
    dim) and, in V1, a layer-scale vector where layer_scale_init_value > 0; in V2 a GRN (weight and bias of 4·dim)."""
    v = spec.values
    tensors = (_conv2d(f"{path}.dwconv", dim, 1, (7, 7), True) + path_norm(f"{path}.layernorm", dim)
               + path_linear(f"{path}.pwconv1", dim, 4 * dim))
    if v["grn"]:
        tensors += (Tensor(f"{path}.grn.weight", (1, 1, 1, 4 * dim), "norm", "grn"),
                    Tensor(f"{path}.grn.bias", (1, 1, 1, 4 * dim), "norm", "grn"))
    tensors += path_linear(f"{path}.pwconv2", 4 * dim, dim)
    if v["layer_scale"] and v["layer_scale_init_value"] > 0:  # type: ignore[operator]
        tensors += (Tensor(f"{path}.layer_scale_parameter", (dim,), "other", "layer_scale_parameter"),)
    return ParamNode(path.rsplit(".", 1)[-1], tensors)


def _patch(spec: ModelSpec) -> tuple[int, int]:
    p = spec.values["patch_size"]
    return (p[0], p[1]) if isinstance(p, (list, tuple)) else (p, p)  # type: ignore[return-value]


def _convnext_base(spec: ModelSpec) -> tuple[ParamNode, ...]:
    """The patchify stem (a Conv2d patch_size wide and strided, with a bias, and a LayerNorm), num_stages stages
    (stage i: hidden_sizes[i] wide, depths[i] blocks; a LayerNorm and a 2×2 strided Conv2d before it where i > 0 or
    the width changes), and the final LayerNorm over hidden_sizes[-1] (the last entry, whatever num_stages says)."""
    v = spec.values
    sizes, depths = v["hidden_sizes"], v["depths"]
    first = sizes[0]  # type: ignore[index]
    stem = ParamNode("embeddings", _conv2d("embeddings.patch_embeddings", first, spec.int("num_channels"),
                                           _patch(spec), True) + path_norm("embeddings.layernorm", first),
                     source=spec.key_span("patch_size"), key="patch_size")
    stages, prev = [], first
    for i in range(spec.int("num_stages")):
        out_c, path = sizes[i], f"encoder.stages.{i}"  # type: ignore[index]
        down = path_norm(f"{path}.downsampling_layer.0", prev) + _conv2d(
            f"{path}.downsampling_layer.1", out_c, prev, (2, 2), True) if prev != out_c or i > 0 else ()
        blocks = tuple(_convnext_block(f"{path}.layers.{j}", spec, out_c) for j in range(depths[i]))  # type: ignore[index]
        stages.append(ParamNode(str(i), down, blocks))
        prev = out_c
    encoder = ParamNode("stages", children=tuple(stages), source=spec.key_span("depths"), key="depths")
    return stem, encoder


def _stage_names(spec: ModelSpec) -> list[str]:
    return ["stem", *(f"stage{i}" for i in range(1, len(spec.values["depths"]) + 1))]  # type: ignore[arg-type]


def backbone_features(spec: ModelSpec) -> list[str]:
    """The stages a Backbone class returns (BackboneConfigMixin): out_features, else the stages out_indices names,
    else the last stage."""
    v, names = spec.values, _stage_names(spec)
    if v.get("out_features") is not None:
        return list(v["out_features"])  # type: ignore[arg-type]
    if v.get("out_indices") is not None:
        return [names[i] for i in v["out_indices"]]  # type: ignore[union-attr]
    return [names[-1]]


def build_convnet(spec: ModelSpec) -> ParamNode:
    v = spec.values
    sizes = v["hidden_sizes"]
    convnext = v["stem"] == "patchify"
    base = _convnext_base(spec) if convnext else _resnet_base(spec)
    last = sizes[-1]  # type: ignore[index]
    if spec.head == "backbone":
        if not convnext:  # (ResNetBackbone: the model's stem and stages, no pooler)
            return node(spec.architecture, *base)
        # ConvNeXt's: a LayerNorm on every stage it returns (the stem's the width of the first stage's)
        widths = dict(zip(_stage_names(spec), (sizes[0], *sizes)))  # type: ignore[index, misc]
        norms = tuple(t for f in backbone_features(spec) for t in path_norm(f"hidden_states_norms.{f}", widths[f]))
        return node(spec.architecture, *base, ParamNode("hidden_states_norms", norms))
    final = ParamNode("final_norm", path_norm("layernorm", last)) if convnext else None
    if spec.head == "base":
        return node(spec.architecture, *base, final)
    labels = head_labels(v)  # type: ignore[arg-type]
    # (ResNet's and RegNet's classifier is a Sequential: Flatten, then the Linear; none where num_labels is 0)
    name = "classifier" if convnext else "classifier.1"
    head = ParamNode("classifier", path_linear(name, last, labels) if labels > 0 else (),
                     source=spec.key_span("num_labels") or spec.key_span("id2label"), key="num_labels")
    return node(spec.architecture, *base, final, head)


# --- what a forward pass keeps ------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureMaps:
    """What one image's forward pass through a convolutional backbone holds, in elements: ``saved``, what torch's
    autograd keeps for the backward pass (each op's saved inputs or outputs, a tensor once however many ops keep
    it, the image included; BatchNorm's per-channel mean and inverse deviation), ``indices``, max pooling's int64
    indices, and ``peak``, the most that inference holds at once (an op's input and output and the block's input
    kept for its shortcut); ``flops``, the forward pass's multiply-adds of its convolutions and pointwise layers,
    two FLOPs each (what torch's FlopCounterMode counts)."""

    saved: int
    indices: int
    peak: int
    flops: int


# Activations whose backward reads their output (torch saves its result); the others (GELU, SiLU, ...) read their input.
_KEEPS_OUTPUT = frozenset({"relu", "sigmoid", "tanh"})


def _out_side(n: int, kernel: int, stride: int, padded: bool = True) -> int:
    """A convolution's or pooling's output side, padded by kernel // 2 (as transformers' ResNet and RegNet pad) or,
    ``padded`` false, not at all (ConvNeXt's patchify and downsampling convolutions)."""
    return (n + (2 * (kernel // 2) if padded else 0) - kernel) // stride + 1


class _Tape:
    """A forward pass of one image, tensor by tensor: each tensor an id and its (channels, height, width)."""

    def __init__(self) -> None:
        self.saved: dict[int, int] = {}
        self.indices = 0
        self.peak = 0
        self.held = 0  # a block's input, alive for its shortcut
        self.stats = 0  # BatchNorm's saved mean and inverse deviation, per channel
        self.flops = 0
        self._ids = 0

    def tensor(self, c: int, h: int, w: int) -> tuple[int, int, int, int]:
        self._ids += 1
        return (self._ids, c, h, w)

    def keep(self, t: tuple[int, int, int, int]) -> None:
        self.saved[t[0]] = t[1] * t[2] * t[3]

    def op(self, x: tuple[int, int, int, int], out: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        self.peak = max(self.peak, x[1] * x[2] * x[3] + out[1] * out[2] * out[3] + self.held)
        return out

    def conv(self, x: tuple[int, int, int, int], out_c: int, kernel: int | tuple[int, int],
             stride: int | tuple[int, int] = 1, groups: int = 1, padded: bool = True) -> tuple[int, int, int, int]:
        """A convolution (or a pointwise Linear, as a 1×1 one); kernel and stride square, or (height, width)
        (ConvNeXt's patchify stem)."""
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        sh, sw = (stride, stride) if isinstance(stride, int) else stride
        self.keep(x)  # (for the weight's gradient)
        out = self.op(x, self.tensor(out_c, _out_side(x[2], kh, sh, padded), _out_side(x[3], kw, sw, padded)))
        self.flops += 2 * out_c * out[2] * out[3] * (x[1] // groups) * kh * kw
        return out

    def norm(self, x: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        self.keep(x)
        self.stats += 2 * x[1]
        return self.op(x, self.tensor(*x[1:]))

    def act(self, x: tuple[int, int, int, int], kind: str) -> tuple[int, int, int, int]:
        out = self.op(x, self.tensor(*x[1:]))
        self.keep(out if kind in _KEEPS_OUTPUT else x)
        return out

    def conv_layer(self, x: tuple[int, int, int, int], out_c: int, kernel: int, stride: int,
                   act: str | None, groups: int = 1) -> tuple[int, int, int, int]:
        """ResNetConvLayer / RegNetConvLayer / their shortcuts: a convolution, a BatchNorm, the activation if any."""
        y = self.norm(self.conv(x, out_c, kernel, stride, groups))
        return self.act(y, act) if act else y

    def pool(self, x: tuple[int, int, int, int], kernel: int, stride: int) -> tuple[int, int, int, int]:
        """Max pooling, padding kernel // 2: it keeps its input and an int64 index per output."""
        self.keep(x)
        out = self.op(x, self.tensor(x[1], _out_side(x[2], kernel, stride), _out_side(x[3], kernel, stride)))
        self.indices += out[1] * out[2] * out[3]
        return out

    def mean_pool(self, x: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        # (average pooling to 1 × 1 is a mean, whose backward reads no input)
        return self.op(x, self.tensor(x[1], 1, 1))


def _resnet_block_maps(tape: _Tape, x: tuple[int, int, int, int], spec: ModelSpec, out_c: int,
                       stride: int) -> tuple[int, int, int, int]:
    v, act = spec.values, str(spec.values["hidden_act"])
    tape.held = x[1] * x[2] * x[3]
    kind = v["layer_type"]
    # (a ResNet block's inner convolutions are followed by ReLU whatever hidden_act says: ResNetConvLayer's default)
    if kind == "bottleneck":
        r, early = out_c // 4, bool(v.get("downsample_in_bottleneck"))
        h = tape.conv_layer(x, r, 1, stride if early else 1, "relu")
        h = tape.conv_layer(h, r, 3, 1 if early else stride, "relu")
        h = tape.conv_layer(h, out_c, 1, 1, None)
    elif kind == "basic":
        h = tape.conv_layer(tape.conv_layer(x, out_c, 3, stride, "relu"), out_c, 3, 1, None)
    else:  # RegNet's x or y: 1×1, the grouped 3×3 (strided), squeeze-and-excitation (y), 1×1
        groups = max(1, out_c // spec.int("groups_width"))
        h = tape.conv_layer(tape.conv_layer(x, out_c, 1, 1, act), out_c, 3, stride, act, groups)
        if kind == "y":
            reduced = int(round(x[1] / 4))
            squeezed = tape.act(tape.conv(tape.mean_pool(h), reduced, 1), "relu")
            tape.act(tape.conv(squeezed, out_c, 1), "sigmoid")  # the gate: its output, which the product keeps too
            tape.keep(h)  # the product's other factor
            h = tape.op(h, tape.tensor(*h[1:]))
        h = tape.conv_layer(h, out_c, 1, 1, None)
    if x[1] != out_c or stride != 1:
        tape.conv_layer(x, out_c, 1, stride, None)  # the shortcut
    tape.held = 0
    out = tape.op(h, tape.tensor(*h[1:]))  # h + the shortcut's (an addition keeps nothing)
    return tape.act(out, act)


def _layer_norm(tape: _Tape, x: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """ConvNeXt's LayerNorm over the channels at each position: it keeps its input and a mean and an inverse
    deviation per position."""
    tape.keep(x)
    tape.stats += 2 * x[2] * x[3]
    return tape.op(x, tape.tensor(*x[1:]))


def _convnext_block_maps(tape: _Tape, x: tuple[int, int, int, int], spec: ModelSpec) -> tuple[int, int, int, int]:
    """ConvNextLayer: the depthwise 7×7 convolution, a LayerNorm, pwconv1 (a Linear to 4·dim), the activation, in V2 a
    GRN, pwconv2, in V1 the layer scale, the residual sum."""
    v, c = spec.values, x[1]
    tape.held = c * x[2] * x[3]
    h = _layer_norm(tape, tape.conv(x, c, 7, groups=c))
    h = tape.conv(h, 4 * c, 1)  # (pwconv1: a Linear keeps its input as a convolution does)
    h = tape.act(h, str(v["hidden_act"]))
    if v["grn"]:
        # ||h|| over the positions keeps h and the norms (4·dim); dividing them by their mean keeps the mean (one
        # value); h times the ratio keeps the ratio (4·dim); the GRN's weight times that product keeps the product.
        tape.keep(h)
        tape.stats += 2 * 4 * c + 1
        product = tape.op(h, tape.tensor(*h[1:]))
        tape.keep(product)
        h = tape.op(product, tape.tensor(*h[1:]))
    h = tape.conv(h, c, 1)  # pwconv2
    if v["layer_scale"] and v["layer_scale_init_value"] > 0:  # type: ignore[operator]
        tape.keep(h)  # (the scale's product keeps its other factor)
        h = tape.op(h, tape.tensor(*h[1:]))
    tape.held = 0
    return tape.op(h, tape.tensor(*h[1:]))  # the residual sum keeps nothing


def _convnext_maps(tape: _Tape, spec: ModelSpec, side: int) -> None:
    """ConvNeXt's patchify stem (a convolution patch_size wide and strided, unpadded, and a LayerNorm), its stages
    (a LayerNorm and a 2×2 strided convolution before each but an unchanged first) and the final LayerNorm on the
    pooled features."""
    v = spec.values
    ph, pw = _patch(spec)
    first = v["hidden_sizes"][0]  # type: ignore[index]
    pixels = tape.tensor(spec.int("num_channels"), side, side)
    x = _layer_norm(tape, tape.conv(pixels, first, (ph, pw), (ph, pw), padded=False))
    prev = first
    for i in range(spec.int("num_stages")):
        out_c = v["hidden_sizes"][i]  # type: ignore[index]
        if prev != out_c or i > 0:
            x = tape.conv(_layer_norm(tape, x), out_c, 2, 2, padded=False)
        for _ in range(v["depths"][i]):  # type: ignore[index]
            x = _convnext_block_maps(tape, x, spec)
        prev = out_c
    # The mean over the positions keeps nothing; the final LayerNorm keeps the pooled features and its two statistics.
    tape.stats += x[1] + 2


def _resnet_maps(tape: _Tape, spec: ModelSpec, side: int) -> None:
    """ResNet's and RegNet's conv stem (ResNet's then max pooling), their stages and the mean over the positions."""
    v = spec.values
    act = str(v["hidden_act"])
    x = tape.tensor(spec.int("num_channels"), side, side)
    x = tape.conv_layer(x, spec.int("embedding_size"), spec.int("stem_kernel"), 2, act)
    if v["layer_type"] not in ("x", "y"):
        x = tape.pool(x, 3, 2)  # ResNet's stem ends in a 3×3 max pooling of stride 2; RegNet's does not
    for i, (out_c, depth) in enumerate(zip(v["hidden_sizes"], v["depths"])):  # type: ignore[call-overload]
        stride = 2 if i or v["downsample_in_first_stage"] else 1
        x = _resnet_block_maps(tape, x, spec, out_c, stride)
        for _ in range(1, depth):
            x = _resnet_block_maps(tape, x, spec, out_c, 1)
    tape.mean_pool(x)


def feature_maps(spec: ModelSpec, side: int) -> FeatureMaps:
    """What one ``side`` × ``side`` image's forward pass keeps (FeatureMaps) through the stem, stages and pooling of
    ResNet, RegNet or ConvNeXt (V2), as transformers 5 builds them (_resnet_base, _convnext_base)."""
    tape = _Tape()
    (_convnext_maps if spec.values.get("stem") == "patchify" else _resnet_maps)(tape, spec, side)
    return FeatureMaps(sum(tape.saved.values()) + tape.stats, tape.indices, tape.peak, tape.flops)
