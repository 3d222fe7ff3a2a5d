"""The output shape of a torch layer (or a Sequential of them) run on a tensor of known shape in a
constructor: the "dry run" that sizes a classifier after a convolution stack (DQN's
``self.conv(torch.zeros(1, *shape)).size()``), as torch computes it. Only torch's own layers,
whose forward the layer table describes; a module of the code has a forward of its own, which
the analyser does not run.

``output_shape`` returns the shape, or None where it is not known (a layer this table does not
describe, a size that is a formula); it raises ShapeError where torch would raise.
"""

from __future__ import annotations

import math
from typing import Any

from lsp_count.pymodel.layers import stride_or_kernel
from lsp_count.pymodel.shapes import ShapeError
from lsp_count.pymodel.values import Inst

# Layers whose output has their input's shape.
SAME_SHAPE = frozenset("""
Identity Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout ReLU ReLU6 GELU SiLU Mish Tanh Sigmoid
Hardtanh Hardswish Hardsigmoid LeakyReLU ELU SELU CELU Softplus Softsign Softmax Softmax2d LogSoftmax Softmin
LogSigmoid Tanhshrink Softshrink Hardshrink Threshold RReLU PReLU BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm
InstanceNorm1d InstanceNorm2d InstanceNorm3d LayerNorm GroupNorm RMSNorm LocalResponseNorm
""".split())


def output_shape(module: Inst, shape: tuple[Any, ...]) -> tuple[int, ...] | None:
    if not all(type(d) is int for d in shape):
        return None
    if type(module.cls) is not str and module.cls.find("forward", None) is not None:
        return None  # a class of the code with a forward of its own
    if module.kind == "seq":
        for part in module.attrs.values():
            if part is None:
                continue
            if type(part) is not Inst or not part.is_module:
                return None
            shape = output_shape(part, shape)  # type: ignore[assignment]
            if shape is None:
                return None
        return shape
    name = module.layer_args[0] if module.layer_args is not None else module.cls if type(module.cls) is str else None
    if name is None:
        return None
    if name in SAME_SHAPE and (module.layer_args is not None or type(module.cls) is str):
        if module.layer_args is not None:
            _check_norm(name, module, shape)
        return shape
    if module.layer_args is None:
        return None
    bound = module.layer_args[1]
    if name == "Linear":
        if not shape or shape[-1] != bound["in_features"]:
            raise ShapeError(f"nn.Linear takes {bound['in_features']} features, the input has "
                             f"{shape[-1] if shape else 'none'}")
        return shape[:-1] + (bound["out_features"],)
    if name == "Flatten":
        start, end = bound["start_dim"], bound["end_dim"]
        n = len(shape)
        start, end = start + n if start < 0 else start, end + n if end < 0 else end
        if not 0 <= start <= end < max(n, 1):
            raise ShapeError("nn.Flatten's dimensions are out of range")
        return shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:]
    for dims in (1, 2, 3):
        if name in (f"Conv{dims}d", f"ConvTranspose{dims}d"):
            return _conv(shape, bound, dims, name.startswith("ConvTranspose"))
        if name in (f"MaxPool{dims}d", f"AvgPool{dims}d"):
            return _pool(shape, bound, dims, name.startswith("Max"))
        if name in (f"AdaptiveAvgPool{dims}d", f"AdaptiveMaxPool{dims}d"):
            return _adaptive(shape, bound["output_size"], dims)
    return None


def _check_norm(name: str, module: Inst, shape: tuple[int, ...]) -> None:
    """What torch's normalisation layers check of their input before they run."""
    a = module.layer_args[1]  # type: ignore[index]
    training = module.attrs.get("training", True) is not False
    if name.startswith("BatchNorm") or name == "SyncBatchNorm":
        ranks = {"BatchNorm1d": (2, 3), "BatchNorm2d": (4,), "BatchNorm3d": (5,)}.get(name, tuple(range(2, 6)))
        if len(shape) not in ranks or shape[1] != a["num_features"]:
            raise ShapeError(f"nn.{name} takes a {' or '.join(f'{r}-d' for r in ranks)} input of {a['num_features']} "
                             f"channels, not {shape}")
        if training and shape[0] * math.prod(shape[2:]) == 1:
            raise ShapeError(f"nn.{name} in training needs more than one value per channel")
    elif name.startswith("InstanceNorm"):
        if len(shape) < 2 or (a["affine"] and shape[-int(name[-2]) - 1] != a["num_features"]):
            raise ShapeError(f"nn.{name} takes {a['num_features']} channels")
        if math.prod(shape[-int(name[-2]):]) == 1 and (training or not a["track_running_stats"]):
            raise ShapeError(f"nn.{name} needs more than one spatial element")
    elif name == "GroupNorm":
        if len(shape) < 2 or shape[1] != a["num_channels"]:
            raise ShapeError(f"nn.GroupNorm takes {a['num_channels']} channels, the input has {shape}")
    elif name in ("LayerNorm", "RMSNorm"):
        normalized = a["normalized_shape"]
        normalized = tuple(normalized) if isinstance(normalized, (tuple, list)) else (normalized,)
        if shape[len(shape) - len(normalized):] != normalized:
            raise ShapeError(f"nn.{name} normalises the last dimensions {normalized}, the input is {shape}")


def _sizes(v: Any, dims: int) -> tuple[int, ...] | None:
    out = tuple(v) if isinstance(v, (tuple, list)) else (v,) * dims
    return out if len(out) == dims and all(type(x) is int for x in out) else None


def _batched(shape: tuple[int, ...], dims: int, what: str) -> tuple[tuple[int, ...], int]:
    """(the leading sizes, the channels) of an input with or without its batch dimension."""
    if len(shape) not in (dims + 1, dims + 2):
        raise ShapeError(f"{what} takes a {dims + 1}-d or {dims + 2}-d input, not {len(shape)}-d")
    return shape[:-dims - 1], shape[-dims - 1]


def _conv(shape: tuple[int, ...], a: dict[str, Any], dims: int, transposed: bool) -> tuple[int, ...] | None:
    lead, channels = _batched(shape, dims, "a convolution")
    if channels != a["in_channels"]:
        raise ShapeError(f"the convolution takes {a['in_channels']} channels, the input has {channels}")
    kernel, stride, dilation = _sizes(a["kernel_size"], dims), _sizes(a["stride"], dims), _sizes(a["dilation"], dims)
    if kernel is None or stride is None or dilation is None or type(a["out_channels"]) is not int:
        return None
    spatial = shape[-dims:]
    if a["padding"] in ("same", "valid") and not transposed:
        if a["padding"] == "same":
            return lead + (a["out_channels"],) + spatial
        padding: tuple[int, ...] | None = (0,) * dims
    else:
        padding = _sizes(a["padding"], dims)
    if padding is None:
        return None
    if transposed:
        extra = _sizes(a["output_padding"], dims)
        if extra is None:
            return None
        out = tuple((n - 1) * s - 2 * p + d * (k - 1) + e + 1
                    for n, k, s, p, d, e in zip(spatial, kernel, stride, padding, dilation, extra))
    else:
        out = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                    for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation))
    # torch's checks: a convolution's every output size is at least 1; a transposed one's, one of
    # them, and none negative.
    too_small = any(n < 0 for n in out) or (not transposed and any(n < 1 for n in out)) or (
        transposed and all(n < 1 for n in out))
    if too_small:
        raise ShapeError(f"the convolution's output would be {out}: the input is too small")
    return lead + (a["out_channels"],) + out


def _pool(shape: tuple[int, ...], a: dict[str, Any], dims: int, is_max: bool) -> tuple[int, ...] | None:
    lead, channels = _batched(shape, dims, "pooling")
    kernel = _sizes(a["kernel_size"], dims)
    stride = _sizes(stride_or_kernel(a, "stride"), dims)
    padding = _sizes(a["padding"], dims)
    dilation = _sizes(a.get("dilation", 1), dims) if is_max else (1,) * dims
    if kernel is None or stride is None or padding is None or dilation is None:
        return None
    if not is_max and dims == 3 and any(n < k for n, k in zip(shape[-dims:], kernel)):
        raise ShapeError("the input is smaller than the 3-d average pool's kernel")  # torch's avg_pool3d check
    out = []
    for n, k, s, p, d in zip(shape[-dims:], kernel, stride, padding, dilation):
        if p > k // 2:
            raise ShapeError("pooling's padding must be at most half its kernel")
        span = n + 2 * p - d * (k - 1) - 1
        size = (-(-span // s) if a["ceil_mode"] else span // s) + 1
        if a["ceil_mode"] and (size - 1) * s >= n + p:
            size -= 1  # the last window must start inside the input or its left padding
        out.append(size)
    if any(n < 1 for n in out):
        raise ShapeError(f"pooling's output would be {tuple(out)}: the input is too small")
    return lead + (channels,) + tuple(out)


def _adaptive(shape: tuple[int, ...], size: Any, dims: int) -> tuple[int, ...] | None:
    lead, channels = _batched(shape, dims, "adaptive pooling")
    sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,) * dims
    if len(sizes) != dims:
        raise ShapeError(f"adaptive pooling's output size needs {dims} sizes")
    out = tuple(n if s is None else s for n, s in zip(shape[-dims:], sizes))
    return lead + (channels,) + out if all(type(x) is int for x in out) else None
