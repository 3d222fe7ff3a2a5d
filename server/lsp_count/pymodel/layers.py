"""The torch.nn layer table: each layer's signature (as torch 2.x declares it)
and the parameter tensors it registers. Buffers (running stats) are not listed:
they are not parameters.

A builder gets the bound arguments and fills a fresh ``Inst``; shapes may hold
``Sym`` values, so a layer with an unresolved size still yields a formula.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from lsp_count.core.source import Span
from lsp_count.pymodel.values import (ExtV, Inst, Param, Raised, Sym, TensorV, Unknown, Unresolved, render, sym_add,
                                      sym_divide_exact, sym_mul, sym_opaque)

REQUIRED = object()
# What Python raises for a call that does not fit a layer's signature; the code may catch it
# (timm's create_aa: `try: aa_layer(channels=c, stride=2) except TypeError: aa_layer(2)`).
_TYPE_ERROR = ExtV("TypeError")
_VALUE_ERROR = ExtV("ValueError")
_VALUE_ERROR, _RUNTIME_ERROR, _ASSERTION_ERROR = ExtV("ValueError"), ExtV("RuntimeError"), ExtV("AssertionError")
# torch.nn's dropouts (_DropoutNd): their probability is checked when they are made.
DROPOUTS = frozenset({"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"})


def _known(v: Any) -> bool:
    """A plain number (not a formula, nor a value the analyser does not know): what torch's checks
    of a setting compare; anything else is left to torch."""
    return type(v) in (int, float)


# The constructors of torch.nn's classes without parameters (those not in LAYERS, which binds its own):
# their arguments in order, `!` where one is required, `*` before the keyword-only ones; a class that
# takes **kwargs is not here. From torch 2.13 (a test compares it with the installed torch's).
PARAMETERLESS_SIGNATURES: dict[str, str] = {
    "AlphaDropout": "p inplace", "BCELoss": "weight size_average reduce reduction",
    "BCEWithLogitsLoss": "weight size_average reduce reduction pos_weight", "CELU": "alpha inplace",
    "CTCLoss": "blank reduction zero_infinity", "ChannelShuffle": "groups!", "CircularPad1d": "padding!",
    "CircularPad2d": "padding!", "CircularPad3d": "padding!", "ConstantPad1d": "padding! value!",
    "ConstantPad2d": "padding! value!", "ConstantPad3d": "padding! value!",
    "CosineEmbeddingLoss": "margin size_average reduce reduction", "CosineSimilarity": "dim eps",
    "CrossEntropyLoss": "weight size_average ignore_index reduce reduction label_smoothing",
    "CrossMapLRN2d": "size! alpha beta k", "Dropout": "p inplace", "Dropout1d": "p inplace",
    "Dropout2d": "p inplace", "Dropout3d": "p inplace", "ELU": "alpha inplace", "FeatureAlphaDropout": "p inplace",
    "Fold": "output_size! kernel_size! dilation padding stride",
    "FractionalMaxPool2d": "kernel_size! output_size output_ratio return_indices _random_samples",
    "FractionalMaxPool3d": "kernel_size! output_size output_ratio return_indices _random_samples",
    "GELU": "approximate", "GLU": "dim", "GaussianNLLLoss": "* full eps reduction", "Hardshrink": "lambd",
    "Hardsigmoid": "inplace", "Hardswish": "inplace", "Hardtanh": "min_val max_val inplace min_value max_value",
    "HingeEmbeddingLoss": "margin size_average reduce reduction", "HuberLoss": "reduction delta",
    "KLDivLoss": "size_average reduce reduction log_target", "L1Loss": "size_average reduce reduction",
    "LPPool1d": "norm_type! kernel_size! stride ceil_mode", "LPPool2d": "norm_type! kernel_size! stride ceil_mode",
    "LPPool3d": "norm_type! kernel_size! stride ceil_mode", "LeakyReLU": "negative_slope inplace",
    "LocalResponseNorm": "size! alpha beta k", "LogSoftmax": "dim", "MSELoss": "size_average reduce reduction",
    "MarginRankingLoss": "margin size_average reduce reduction", "MaxUnpool1d": "kernel_size! stride padding",
    "MaxUnpool2d": "kernel_size! stride padding", "MaxUnpool3d": "kernel_size! stride padding", "Mish": "inplace",
    "MultiLabelMarginLoss": "size_average reduce reduction",
    "MultiLabelSoftMarginLoss": "weight size_average reduce reduction",
    "MultiMarginLoss": "p margin weight size_average reduce reduction",
    "NLLLoss": "weight size_average ignore_index reduce reduction",
    "NLLLoss2d": "weight size_average ignore_index reduce reduction", "PairwiseDistance": "p eps keepdim",
    "PixelShuffle": "upscale_factor!", "PixelUnshuffle": "downscale_factor!",
    "PoissonNLLLoss": "log_input full size_average eps reduce reduction", "RReLU": "lower upper inplace",
    "ReLU": "inplace", "ReLU6": "inplace", "ReflectionPad1d": "padding!", "ReflectionPad2d": "padding!",
    "ReflectionPad3d": "padding!", "ReplicationPad1d": "padding!", "ReplicationPad2d": "padding!",
    "ReplicationPad3d": "padding!", "SELU": "inplace", "SiLU": "inplace",
    "SmoothL1Loss": "size_average reduce reduction beta", "SoftMarginLoss": "size_average reduce reduction",
    "Softmax": "dim", "Softmin": "dim", "Softplus": "beta threshold", "Softshrink": "lambd",
    "Threshold": "threshold! value! inplace", "TripletMarginLoss": "margin p eps swap size_average reduce reduction",
    "TripletMarginWithDistanceLoss": "* distance_function margin swap reduction",
    "Unflatten": "dim! unflattened_size!", "Unfold": "kernel_size! dilation padding stride",
    "Upsample": "size scale_factor mode align_corners recompute_scale_factor",
    "UpsamplingBilinear2d": "size scale_factor", "UpsamplingNearest2d": "size scale_factor", "ZeroPad1d": "padding!",
    "ZeroPad2d": "padding!", "ZeroPad3d": "padding!",
}


def check_parameterless(name: str, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> None:
    """torch's TypeError for arguments a class without parameters does not take (`nn.GELU(inplace=True)`,
    mmcv's act_cfg for a ReLU passed to GELU; `nn.Dropout(prob=0.1)`): too many, unknown, twice, missing."""
    signature = _parameterless_signature(name)
    if signature is None:
        return
    positional, keyword_only, required = signature
    if len(args) > len(positional):
        raise Raised(f"nn.{name} takes at most {len(positional)} positional arguments, got {len(args)} (TypeError)",
                     _TYPE_ERROR)
    given = set(positional[:len(args)])
    for k in kwargs:
        if k not in positional and k not in keyword_only:
            raise Raised(f"nn.{name} got an unexpected keyword argument '{k}' (TypeError)", _TYPE_ERROR)
        if k in given:
            raise Raised(f"nn.{name} got multiple values for argument '{k}' (TypeError)", _TYPE_ERROR)
    missing = next((n for n in required if n not in given and n not in kwargs), None)
    if missing is not None:
        raise Raised(f"nn.{name} is missing the argument '{missing}' (TypeError)", _TYPE_ERROR)
    bound = dict(zip(positional, args), **kwargs)
    if name == "Hardtanh":  # torch asserts its bounds (the deprecated min_value / max_value win)
        low = bound.get("min_value") if bound.get("min_value") is not None else bound.get("min_val", -1.0)
        high = bound.get("max_value") if bound.get("max_value") is not None else bound.get("max_val", 1.0)
        if _known(low) and _known(high) and high <= low:
            raise Raised(f"max_val ({high}) must be greater than min_val ({low}) (AssertionError)", _ASSERTION_ERROR)
    elif name == "Unflatten" and "unflattened_size" in bound:  # torch's _require_tuple_int
        size = bound["unflattened_size"]
        if isinstance(size, (tuple, list)):
            wrong = next(((i, x) for i, x in enumerate(size) if type(x) in (float, str, complex) or x is None), None)
            if wrong is not None:
                raise Raised(f"unflattened_size must be tuple of ints, but found element of type "
                             f"{type(wrong[1]).__name__} at pos {wrong[0]} (TypeError)", _TYPE_ERROR)
        elif type(size) in (int, float, str) or size is None:
            raise Raised(f"unflattened_size must be a tuple of ints, but found type {type(size).__name__} (TypeError)",
                         _TYPE_ERROR)


@functools.lru_cache(maxsize=None)
def _parameterless_signature(name: str) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]] | None:
    """A PARAMETERLESS_SIGNATURES entry read once (a ReLU or a Dropout is made in every block):
    (positional names, keyword-only names, required names); None for a class not there."""
    words = PARAMETERLESS_SIGNATURES.get(name)
    if words is None:
        return None
    names = words.split()
    star = names.index("*") if "*" in names else len(names)
    return (tuple(n.rstrip("!") for n in names[:star]), frozenset(n.rstrip("!") for n in names[star + 1:]),
            tuple(n.rstrip("!") for n in names if n.endswith("!")))


def check_dropout(p: Any) -> None:
    """torch's ValueError for a dropout probability outside [0, 1]."""
    if _known(p) and not 0 <= p <= 1:
        raise Raised(f"dropout probability has to be between 0 and 1, but got {p} (ValueError)", _VALUE_ERROR)


def truth(v: Any, what: str) -> bool:
    if isinstance(v, Sym):
        raise Unresolved(f"{what} depends on {'; '.join(v.reasons())}")
    if isinstance(v, Unknown):
        raise Unresolved(f"{what} is unknown: {v.why}")
    return bool(v)


def integer_scalar(v: Any) -> int | None:
    """The int a 0-d integer tensor or numpy scalar of a known value holds; None for anything else."""
    if isinstance(v, TensorV) and v.shape == () and v.values is not None and len(v.values) == 1 and \
            type(v.values[0]) is int:
        return v.values[0]
    return None


def as_int(v: Any, what: str, floats: bool = False) -> Any:
    """An int or a Sym; anything else stops the analysis with the reason. A float is Python's and
    torch's TypeError (``nn.Linear(dim, dim * 4.0)``, ``range(n / 2)``, ``torch.zeros(d / 2)``),
    even 4.0; ``floats``: where torch takes one and converts it (GroupNorm's num_groups)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int) or isinstance(v, Sym):
        return v
    if isinstance(v, float):
        if not floats:
            raise Raised(f"{what} is {v!r}, a float where an int is needed (TypeError); `int(...)` or `//` "
                         f"makes one", _TYPE_ERROR)
        if v.is_integer():
            return int(v)  # a fraction is refused below, with the others
    if isinstance(v, Unknown):
        raise Unresolved(f"{what} is unknown: {v.why}")
    if isinstance(v, Inst) and getattr(v.cls, "enum_mixin", None) is int:
        return as_int(v.attrs["_value_"], what)  # an IntEnum member is an int
    held = integer_scalar(v)
    if held is not None:
        return held  # a 0-d integer tensor or numpy scalar (`np.array(shape).prod()`), as torch takes it
    if isinstance(v, TensorV) and v.shape == () and v.values is None:
        # a number read from a tensor or array whose values the analyser does not compute (torch takes
        # an integer one: it is not the code's mistake)
        kind = "an array's item" if v.numpy else "a 0-d tensor"
        raise Unresolved(f"{what} is {kind} whose value the analyser does not compute (it keeps the values of "
                         f"1-D arrays and tensors only)")
    raise Unresolved(f"{what} is {_describe(v)}, not an integer")


# Layers one constructor builds (num_layers); more is not a model definition the analyser should
# follow (the interpreter's loop limit, MAX_ITERATIONS, is the same number).
MAX_REPEATS = 10_000


def as_count(v: Any, what: str) -> int:
    """How many layers to build: a known int from 0 to MAX_REPEATS, else the reason."""
    n = as_int(v, what)
    if isinstance(n, Sym):
        raise Unresolved(f"{what} depends on {'; '.join(n.reasons())}")
    if n < 0:
        raise Unresolved(f"{what} is {n:,}; torch would raise")
    if n > MAX_REPEATS:
        raise Unresolved(f"{what} is {n:,}, more than the {MAX_REPEATS:,} layers the analyser builds")
    return n


def _describe(v: Any) -> str:
    """A value as the user wrote it, for messages (never a Python repr of the analyser's own objects)."""
    if isinstance(v, (str, float, list, tuple, dict)) or v is None:
        return repr(v)[:60]
    cls = getattr(v, "cls", None)
    if cls is not None and getattr(cls, "name", None):
        return f"a `{cls.name}` {'module' if getattr(v, 'is_module', False) else 'object'}"
    name = getattr(v, "name", None)
    if isinstance(name, str):
        return f"`{name}`"
    own = {"TensorV": "a tensor", "Param": "a parameter", "Inst": "an object", "RangeV": "a range",
           "IteratorV": "an iterator (a generator, map, zip, ...)", "CycleV": "an iterator (itertools.cycle)",
           "FuncV": "a function", "BoundV": "a method", "BuiltinV": "a function", "PartialV": "a function",
           "ClassV": "a class", "ModV": "a module of Python (an import)", "Sym": "a formula",
           "Unknown": "a value the analyser does not know"}
    return own.get(type(v).__name__, f"a {type(v).__name__}")


def _tuple(v: Any, n: int, what: str) -> tuple[Any, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(as_int(x, what) for x in v)
    return (as_int(v, what),) * n


def no_bool_first_size(v: Any, what: str) -> None:
    """torch's size parser takes a bool anywhere in a tensor's size but first (``torch.empty((4, True))``
    is ``(4, 1)``; ``torch.empty((True, 4))`` raises TypeError): ``v``, a size or what torch puts first
    in the size of a tensor it makes, may not start with one (``nn.Linear(256, True)``, the arguments
    swapped; ``torch.zeros(True, 4)``)."""
    if type(v) is bool or (type(v) in (list, tuple) and v and type(v[0]) is bool):
        raise Raised(f"{what} is {v!r}: torch's size parser takes no bool first in a tensor's size "
                     f"(TypeError: empty(): argument 'size' must be tuple of ints)", _TYPE_ERROR)


def _p(inst: Inst, name: str, shape: tuple[Any, ...], kind: str, origin: Span | None) -> None:
    negative = next((d for d in shape if type(d) is int and d < 0), None)
    if negative is not None:  # torch's, as it makes the tensor (a code's `except RuntimeError` may catch it)
        raise Raised(f"`{name}` would have the size {list(shape)}: torch raises RuntimeError (Trying to create "
                     f"tensor with negative dimension {negative})", ExtV("RuntimeError"))
    inst.attrs[name] = Param(shape, kind, True, origin)


def _none(inst: Inst, *names: str) -> None:
    """Parameters torch registers as None (`register_parameter("bias", None)` of a Linear built with
    bias=False): each name takes only a Parameter (or None) afterwards (Inst.none_slots)."""
    inst.none_slots = {**(inst.none_slots or {}), **dict.fromkeys(names, "parameter")}


Builder = Callable[[Inst, dict[str, Any], Span | None, Callable[..., Inst]], None]


def _linear(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    no_bool_first_size(a["out_features"], "out_features")
    i, out = as_int(a["in_features"], "in_features"), as_int(a["out_features"], "out_features")
    _p(inst, "weight", (out, i), "linear", o)
    if truth(a["bias"], "bias"):
        _p(inst, "bias", (out,), "bias", o)
    else:
        _none(inst, "bias")


def _bilinear(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    no_bool_first_size(a["out_features"], "out_features")
    out, in1 = as_int(a["out_features"], "out_features"), as_int(a["in1_features"], "in1_features")
    if type(in1) is int and in1 <= 0:  # its reset_parameters' check (in2_features of 0 is built)
        raise Raised(f"in1_features must be > 0, but got (in1_features={in1}) (ValueError)", _VALUE_ERROR)
    _p(inst, "weight", (out, in1, as_int(a["in2_features"], "in2_features")), "linear", o)
    if truth(a["bias"], "bias"):
        _p(inst, "bias", (out,), "bias", o)
    else:
        _none(inst, "bias")


def _embedding(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    if a.get("_weight") is None:  # a weight given is taken as it is (`from_pretrained`)
        no_bool_first_size(a["num_embeddings"], "num_embeddings")
    n, d = as_int(a["num_embeddings"], "num_embeddings"), as_int(a["embedding_dim"], "embedding_dim")
    padding_idx = a.get("padding_idx")
    if type(padding_idx) is int and type(n) is int and not -n <= padding_idx < n:
        raise Raised(f"padding_idx ({padding_idx}) must be within num_embeddings ({n}) (AssertionError)", _ASSERTION_ERROR)
    _p(inst, "weight", (n, d), "embedding", o)
    if truth(a.get("_freeze", False), "_freeze"):  # torch: `requires_grad=not _freeze`
        inst.attrs["weight"].requires_grad = False


def _conv(dims: int, transposed: bool) -> Builder:
    def build(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
        # weight (out, in // groups, *k), a transposed one's (in, out // groups, *k)
        no_bool_first_size(a["in_channels"] if transposed else a["out_channels"],
                            "in_channels" if transposed else "out_channels")
        cin, cout = as_int(a["in_channels"], "in_channels"), as_int(a["out_channels"], "out_channels")
        groups = as_int(a["groups"], "groups")
        if isinstance(groups, int) and groups < 1:
            raise Raised(f"groups is {groups}; torch would raise (it must be positive)", _VALUE_ERROR)
        k = _tuple(a["kernel_size"], dims, "kernel_size")
        _check_conv_options(a, dims, transposed)
        if isinstance(groups, int) and groups != 1:
            for c, what in ((cin, "in_channels"), (cout, "out_channels")):
                if isinstance(c, int) and c % groups:
                    raise Raised(f"{what} ({c}) is not divisible by groups ({groups}); torch would raise", _VALUE_ERROR)
        first, second = (cin, cout) if transposed else (cout, cin)
        if groups != 1:
            # Unresolved sizes still give a formula: a depthwise conv's `dim // dim` is 1, and
            # channels per group that no polynomial expresses become one name of their own.
            per_group = sym_divide_exact(second, groups)
            if per_group is None:
                per_group = sym_opaque(f"{render(second)}/{render(groups)}", second, groups)
            second = per_group
        _p(inst, "weight", (first, second) + k, "conv", o)
        if truth(a["bias"], "bias"):
            no_bool_first_size(a["out_channels"], "out_channels")  # a transposed conv's bias: (out,)
            _p(inst, "bias", (cout,), "bias", o)
        else:
            _none(inst, "bias")
    return build


def _norm_shape(v: Any) -> tuple[Any, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(as_int(x, "normalized_shape") for x in v)
    return (as_int(v, "normalized_shape"),)


def _batchnorm(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    features = a["num_features"]
    affine, tracked = truth(a["affine"], "affine"), truth(a["track_running_stats"], "track_running_stats")
    if not affine:
        _none(inst, "weight", "bias")
    if not (affine or tracked):
        return  # an InstanceNorm's default: no tensor of that size is made (a float size is taken)
    no_bool_first_size(features, "num_features")
    # SincNet's `nn.BatchNorm1d([n])`: torch makes its tensors of that size (torch.empty([n]))
    shape = tuple(as_int(d, "num_features") for d in features) if isinstance(features, (list, tuple)) and \
        len(features) == 1 else (as_int(features, "num_features"),)
    if affine:
        _p(inst, "weight", shape, "norm", o)
        if truth(a.get("bias", True), "bias"):
            _p(inst, "bias", shape, "norm", o)
        else:
            _none(inst, "bias")
    if tracked:
        # torch's buffers (named_buffers()), their tensors made when first read (running_stat): a
        # model has hundreds of norms, and their statistics are rarely asked for.
        inst.buffers = RUNNING_STATS


RUNNING_STATS: dict[str, None] = dict.fromkeys(("running_mean", "running_var", "num_batches_tracked"))


def running_stat(inst: Inst, name: str) -> Any:
    """A norm layer's running statistic, made on its first read and kept (one tensor, as torch's)."""
    found = inst.attrs.get(name)
    if found is None:
        if inst.layer_args is None:
            return Unknown(f"`{name}` of a module that is not a torch norm layer")
        n = as_int(inst.layer_args[1]["num_features"], "num_features")
        found = inst.attrs[name] = TensorV((), dtype="int64", floating=False) if name == "num_batches_tracked" else \
            TensorV((n,), floating=True)
    return found


def _layernorm(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    shape = _norm_shape(a["normalized_shape"])
    if truth(a["elementwise_affine"], "elementwise_affine"):
        no_bool_first_size(a["normalized_shape"], "normalized_shape")
        _p(inst, "weight", shape, "norm", o)
        if truth(a.get("bias", True), "bias"):
            _p(inst, "bias", shape, "norm", o)
        else:
            _none(inst, "bias")
    else:
        _none(inst, "weight", "bias")


def _rmsnorm(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    shape = _norm_shape(a["normalized_shape"])
    if truth(a["elementwise_affine"], "elementwise_affine"):
        no_bool_first_size(a["normalized_shape"], "normalized_shape")
        _p(inst, "weight", shape, "norm", o)  # RMSNorm has no bias
    else:
        _none(inst, "weight")


def _groupnorm(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    c, groups = as_int(a["num_channels"], "num_channels"), as_int(a["num_groups"], "num_groups", floats=True)
    if type(c) is int and type(groups) is int and (groups < 1 or c % groups):
        message = f"num_channels ({c}) must be divisible by num_groups ({groups}); torch would raise"
        if groups > 0:  # torch's ValueError (a code's `except ValueError` falls back to fewer groups)
            raise Raised(message, _VALUE_ERROR)
        raise Unresolved(message)  # fewer than 1 group: not that ValueError (0 divides by zero)
    if truth(a["affine"], "affine"):
        no_bool_first_size(a["num_channels"], "num_channels")
        _p(inst, "weight", (c,), "norm", o)
        if truth(a.get("bias", True), "bias"):
            _p(inst, "bias", (c,), "norm", o)
        else:
            _none(inst, "bias")
    else:
        _none(inst, "weight", "bias")


def _prelu(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    no_bool_first_size(a["num_parameters"], "num_parameters")
    _p(inst, "weight", (as_int(a["num_parameters"], "num_parameters"),), "other", o)


def _mha(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    no_bool_first_size(a["embed_dim"], "embed_dim")  # out_proj's (and q_proj_weight's) first size
    e, heads = as_int(a["embed_dim"], "embed_dim"), as_int(a["num_heads"], "num_heads", floats=True)
    if type(e) is int and type(heads) is int and (e < 1 or heads < 1 or e % heads):
        message = f"embed_dim ({e}) must be divisible by num_heads ({heads}), both positive; torch would raise"
        if e >= 1 and heads >= 1:
            raise Raised(message, ExtV("AssertionError"))  # torch asserts it
        raise Unresolved(message)
    kdim = e if a["kdim"] is None else as_int(a["kdim"], "kdim")
    vdim = e if a["vdim"] is None else as_int(a["vdim"], "vdim")
    bias = truth(a["bias"], "bias")
    if kdim == e and vdim == e:
        _p(inst, "in_proj_weight", (sym_mul(3, e), e), "linear", o)
    else:
        _p(inst, "q_proj_weight", (e, e), "linear", o)
        _p(inst, "k_proj_weight", (e, kdim), "linear", o)
        _p(inst, "v_proj_weight", (e, vdim), "linear", o)
    if bias:
        _p(inst, "in_proj_bias", (sym_mul(3, e),), "bias", o)
    inst.attrs["out_proj"] = make("Linear", o, in_features=e, out_features=e, bias=bias)
    if truth(a["add_bias_kv"], "add_bias_kv"):
        _p(inst, "bias_k", (1, 1, e), "bias", o)
        _p(inst, "bias_v", (1, 1, e), "bias", o)


def _linear_cross_entropy(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    # One Linear to num_classes · prod(out_features) outputs (torch keeps multi-dimensional outputs flat).
    outputs = as_int(a["num_classes"], "num_classes")
    for d in _tuple(a["out_features"], 0, "out_features"):
        outputs = sym_mul(outputs, d)
    inst.attrs["linear"] = make("Linear", o, in_features=a["in_features"], out_features=outputs, bias=a["bias"])


def _adaptive_softmax(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    """A head over the shortlist and one entry per cluster, and per cluster a projection to a
    width divided by div_value once more, then to the cluster's classes (torch's own loop)."""
    features, classes = as_int(a["in_features"], "in_features"), as_int(a["n_classes"], "n_classes")
    cutoffs = list(_tuple(a["cutoffs"], 1, "cutoffs"))
    div = a["div_value"]
    if any(isinstance(x, Sym) for x in [features, classes, *cutoffs]) or isinstance(div, (Sym, Unknown)):
        raise Unresolved("nn.AdaptiveLogSoftmaxWithLoss: in_features, n_classes, cutoffs and div_value must be known")
    if type(div) not in (int, float) or not div > 0:
        what = repr(div) if type(div) in (int, float) else _describe(div)
        raise Unresolved(f"nn.AdaptiveLogSoftmaxWithLoss: div_value is {what}, not a positive number")
    if not cutoffs or cutoffs != sorted(set(cutoffs)) or cutoffs[0] <= 0 or cutoffs[-1] > classes - 1:
        raise Raised("nn.AdaptiveLogSoftmaxWithLoss: cutoffs must be increasing, unique and between 1 and "
                     "n_classes - 1 (torch raises)", _VALUE_ERROR)
    cutoffs.append(classes)
    clusters = len(cutoffs) - 1
    inst.attrs["head"] = make("Linear", o, in_features=features, out_features=cutoffs[0] + clusters, bias=a["head_bias"])
    tail = make("ModuleList", o)
    for i in range(clusters):
        try:
            width = int(features // (div ** (i + 1)))
        except (OverflowError, ZeroDivisionError):  # a div_value of 1e300, or one so small its power is 0.0
            raise Unresolved(f"nn.AdaptiveLogSoftmaxWithLoss: div_value {div!r} makes no width torch could build")
        projection = make("Sequential", o)
        projection.attrs["0"] = make("Linear", o, in_features=features, out_features=width, bias=False)
        projection.attrs["1"] = make("Linear", o, in_features=width, out_features=cutoffs[i + 1] - cutoffs[i], bias=False)
        tail.attrs[str(i)] = projection
    inst.attrs["tail"] = tail


_CONV_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _check_conv_options(a: dict[str, Any], dims: int, transposed: bool) -> None:
    """torch's ValueErrors for a convolution's padding settings (_ConvNd / _ConvTransposeNd)."""
    padding, mode = a.get("padding"), a.get("padding_mode")
    if isinstance(padding, str) and not transposed:
        if padding not in ("valid", "same"):
            raise Raised(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}} (ValueError)",
                         _VALUE_ERROR)
        stride = a.get("stride")
        strides = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,) * dims
        if padding == "same" and any(_known(s) and s != 1 for s in strides):
            raise Raised("padding='same' is not supported for strided convolutions (ValueError)", _VALUE_ERROR)
    if isinstance(mode, str):
        if mode not in _CONV_PADDING_MODES:
            raise Raised(f"padding_mode must be one of {', '.join(map(repr, _CONV_PADDING_MODES))}, but got "
                         f"padding_mode={mode!r} (ValueError)", _VALUE_ERROR)
        if transposed and mode != "zeros":
            raise Raised(f'Only "zeros" padding mode is supported for ConvTranspose{dims}d (ValueError)', _VALUE_ERROR)


def _check_rnn_options(a: dict[str, Any], h: Any, layers: int, proj: Any) -> None:
    """torch's ValueErrors of RNNBase.__init__, in its order."""
    dropout = a.get("dropout", 0.0)
    if isinstance(dropout, bool) or (_known(dropout) and not 0 <= dropout <= 1) or isinstance(dropout, str):
        raise Raised("dropout should be a number in range [0, 1] representing the probability of an element being "
                     f"zeroed, got {dropout!r} (ValueError)", _VALUE_ERROR)
    if type(h) is int and h <= 0:
        raise Raised("hidden_size must be greater than zero (ValueError)", _VALUE_ERROR)
    if layers <= 0:
        raise Raised("num_layers must be greater than zero (ValueError)", _VALUE_ERROR)
    if type(proj) is int and proj < 0:
        raise Raised("proj_size should be a positive integer or zero to disable projections (ValueError)", _VALUE_ERROR)
    if type(proj) is int and type(h) is int and proj >= h and proj:
        raise Raised(f"proj_size ({proj}) has to be smaller than hidden_size ({h}) (ValueError)", _VALUE_ERROR)
    nonlinearity = a.get("nonlinearity", "tanh")
    if isinstance(nonlinearity, str) and nonlinearity not in ("tanh", "relu"):
        raise Raised(f"Unknown nonlinearity {nonlinearity!r}. Select from 'tanh' or 'relu'. (ValueError)", _VALUE_ERROR)


def _rnn(gates: int, has_proj: bool) -> Builder:
    def build(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
        inp, h = as_int(a["input_size"], "input_size"), as_int(a["hidden_size"], "hidden_size")
        layers = as_count(a["num_layers"], "num_layers")
        # torch takes a proj_size of 0.0 (no projection); any other float sizes a tensor: TypeError
        proj = as_int(a.get("proj_size", 0), "proj_size", floats=a.get("proj_size") == 0) if has_proj else 0
        _check_rnn_options(a, h, layers, proj)
        if gates == 1:  # an RNN's gate size is its hidden size as given; LSTM's and GRU's are 4· and 3·
            no_bool_first_size(a["hidden_size"], "hidden_size")
        if a.get("proj_size") is True:  # weight_hr: (proj_size, hidden_size)
            no_bool_first_size(True, "proj_size")
        dirs = 2 if truth(a["bidirectional"], "bidirectional") else 1
        bias = truth(a["bias"], "bias")
        real_h = proj if truth(proj, "proj_size") else h
        gate = sym_mul(gates, h)
        for layer in range(layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                layer_in = inp if layer == 0 else sym_mul(real_h, dirs)
                _p(inst, "weight_ih" + sfx, (gate, layer_in), "linear", o)
                _p(inst, "weight_hh" + sfx, (gate, real_h), "linear", o)
                if bias:
                    _p(inst, "bias_ih" + sfx, (gate,), "bias", o)
                    _p(inst, "bias_hh" + sfx, (gate,), "bias", o)
                if truth(proj, "proj_size"):
                    _p(inst, "weight_hr" + sfx, (proj, h), "linear", o)
    return build


_RNN_MODE_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_base(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    """``nn.RNNBase(mode, ...)``, which LSTM/GRU/RNN call with their mode: the gates by the mode, and
    a projection for any mode (only LSTM's own constructor refuses one for the others)."""
    mode = a["mode"]
    if not isinstance(mode, str) or mode not in _RNN_MODE_GATES:
        raise Raised(f"mode is {_describe(mode)}; torch raises ValueError (Unrecognized RNN mode; the modes are "
                     f"{', '.join(_RNN_MODE_GATES)})", _VALUE_ERROR)
    _rnn(_RNN_MODE_GATES[mode], True)(inst, a, o, make)


def _cell(gates: int) -> Builder:
    def build(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
        inp, h = as_int(a["input_size"], "input_size"), as_int(a["hidden_size"], "hidden_size")
        gate = sym_mul(gates, h)
        _p(inst, "weight_ih", (gate, inp), "linear", o)
        _p(inst, "weight_hh", (gate, h), "linear", o)
        if truth(a["bias"], "bias"):
            _p(inst, "bias_ih", (gate,), "bias", o)
            _p(inst, "bias_hh", (gate,), "bias", o)
    return build


def _encoder_layer(decoder: bool) -> Builder:
    def build(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
        # torch's own submodules, in its order, with the settings it passes them (HTDemucs reads
        # `layer.self_attn.batch_first` and `layer.norm1.eps` back).
        d, heads, ff, bias, dropout = a["d_model"], a["nhead"], a["dim_feedforward"], a["bias"], a["dropout"]
        activation = a.get("activation")
        if isinstance(activation, str) and activation not in ("relu", "gelu"):
            raise Raised(f"activation should be relu/gelu, not {activation} (RuntimeError)", _RUNTIME_ERROR)
        check_dropout(dropout)
        attention = dict(embed_dim=d, num_heads=heads, dropout=dropout, bias=bias, batch_first=a["batch_first"])
        inst.attrs["self_attn"] = make("MultiheadAttention", o, **attention)
        if decoder:
            inst.attrs["multihead_attn"] = make("MultiheadAttention", o, **attention)
        inst.attrs["linear1"] = make("Linear", o, in_features=d, out_features=ff, bias=bias)
        inst.attrs["dropout"] = make("Dropout", o, p=dropout)
        inst.attrs["linear2"] = make("Linear", o, in_features=ff, out_features=d, bias=bias)
        for i in range(1, 4 if decoder else 3):
            inst.attrs[f"norm{i}"] = make("LayerNorm", o, normalized_shape=d, eps=a["layer_norm_eps"], bias=bias)
        for i in range(1, 4 if decoder else 3):
            inst.attrs[f"dropout{i}"] = make("Dropout", o, p=dropout)
        if isinstance(activation, Inst) and activation.is_module:
            inst.attrs["activation"] = activation  # `activation=nn.PReLU()`: torch registers the module it is given
    return build


def _stack(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst], layer_key: str, clone: Callable[[Any], Any]) -> None:
    layer, n = a[layer_key], as_count(a["num_layers"], "num_layers")
    if not (isinstance(layer, Inst) and layer.is_module):
        raise Unresolved(f"{layer_key} is not a module the analyser could build")
    layers = make("ModuleList", o)
    for i in range(n):
        layers.attrs[str(i)] = clone(layer)
    inst.attrs["layers"] = layers
    if a["norm"] is not None:
        inst.attrs["norm"] = a["norm"]


def _transformer(inst: Inst, a: dict[str, Any], o: Span | None, make: Callable[..., Inst]) -> None:
    d, bias = a["d_model"], a["bias"]
    if isinstance(a["activation"], Inst) and a["activation"].is_module:
        # torch deep-copies the layer holding it into each of the encoder's and decoder's layers
        raise Unresolved("activation is a module, which torch copies into each layer: not followed")
    common = dict(d_model=d, nhead=a["nhead"], dim_feedforward=a["dim_feedforward"], dropout=a["dropout"],
                  activation=a["activation"], layer_norm_eps=a["layer_norm_eps"], batch_first=a["batch_first"],
                  norm_first=a["norm_first"], bias=bias)
    for part, layer_name, count_key, custom in (("encoder", "TransformerEncoderLayer", "num_encoder_layers", "custom_encoder"),
                                                ("decoder", "TransformerDecoderLayer", "num_decoder_layers", "custom_decoder")):
        if a[custom] is not None:
            inst.attrs[part] = a[custom]
            continue
        n = as_count(a[count_key], count_key)
        stack = make("TransformerEncoder" if part == "encoder" else "TransformerDecoder", o, _bare=True)
        layers = make("ModuleList", o)
        for i in range(n):
            layers.attrs[str(i)] = make(layer_name, o, **common)
        stack.attrs["layers"] = layers
        stack.attrs["norm"] = make("LayerNorm", o, normalized_shape=d, eps=a["layer_norm_eps"], bias=bias)
        inst.attrs[part] = stack


_CONV = [("in_channels", REQUIRED), ("out_channels", REQUIRED), ("kernel_size", REQUIRED), ("stride", 1),
         ("padding", 0), ("dilation", 1), ("groups", 1), ("bias", True), ("padding_mode", "zeros")]
_CONVT = [("in_channels", REQUIRED), ("out_channels", REQUIRED), ("kernel_size", REQUIRED), ("stride", 1),
          ("padding", 0), ("output_padding", 0), ("groups", 1), ("bias", True), ("dilation", 1), ("padding_mode", "zeros")]
_BN = [("num_features", REQUIRED), ("eps", 1e-5), ("momentum", 0.1), ("affine", True), ("track_running_stats", True)]
_IN = [("num_features", REQUIRED), ("eps", 1e-5), ("momentum", 0.1), ("affine", False), ("track_running_stats", False)]
_RNN = [("input_size", REQUIRED), ("hidden_size", REQUIRED), ("num_layers", 1), ("bias", True), ("batch_first", False),
        ("dropout", 0.0), ("bidirectional", False)]
_MAX_POOL = [("kernel_size", REQUIRED), ("stride", None), ("padding", 0), ("dilation", 1), ("return_indices", False),
             ("ceil_mode", False)]
_AVG_POOL = [("kernel_size", REQUIRED), ("stride", None), ("padding", 0), ("ceil_mode", False), ("count_include_pad", True)]
_ENC = [("d_model", REQUIRED), ("nhead", REQUIRED), ("dim_feedforward", 2048), ("dropout", 0.1), ("activation", "relu"),
        ("layer_norm_eps", 1e-5), ("batch_first", False), ("norm_first", False), ("bias", True)]

# name -> (signature, builder). Signatures follow torch 2.x positional order; device/dtype are accepted as keywords.
LAYERS: dict[str, tuple[list[tuple[str, Any]], Builder | None]] = {
    "Linear": ([("in_features", REQUIRED), ("out_features", REQUIRED), ("bias", True)], _linear),
    "Bilinear": ([("in1_features", REQUIRED), ("in2_features", REQUIRED), ("out_features", REQUIRED), ("bias", True)], _bilinear),
    "Embedding": ([("num_embeddings", REQUIRED), ("embedding_dim", REQUIRED), ("padding_idx", None), ("max_norm", None),
                   ("norm_type", 2.0), ("scale_grad_by_freq", False), ("sparse", False), ("_weight", None), ("_freeze", False)], _embedding),
    "EmbeddingBag": ([("num_embeddings", REQUIRED), ("embedding_dim", REQUIRED), ("max_norm", None), ("norm_type", 2.0),
                      ("scale_grad_by_freq", False), ("mode", "mean"), ("sparse", False), ("_weight", None),
                      ("include_last_offset", False), ("padding_idx", None)], _embedding),
    "Conv1d": (_CONV, _conv(1, False)), "Conv2d": (_CONV, _conv(2, False)), "Conv3d": (_CONV, _conv(3, False)),
    "ConvTranspose1d": (_CONVT, _conv(1, True)), "ConvTranspose2d": (_CONVT, _conv(2, True)),
    "ConvTranspose3d": (_CONVT, _conv(3, True)),
    "BatchNorm1d": (_BN, _batchnorm), "BatchNorm2d": (_BN, _batchnorm), "BatchNorm3d": (_BN, _batchnorm),
    "SyncBatchNorm": (_BN + [("process_group", None)], _batchnorm),
    "InstanceNorm1d": (_IN, _batchnorm), "InstanceNorm2d": (_IN, _batchnorm), "InstanceNorm3d": (_IN, _batchnorm),
    "LayerNorm": ([("normalized_shape", REQUIRED), ("eps", 1e-5), ("elementwise_affine", True), ("bias", True)], _layernorm),
    "RMSNorm": ([("normalized_shape", REQUIRED), ("eps", None), ("elementwise_affine", True)], _rmsnorm),
    "GroupNorm": ([("num_groups", REQUIRED), ("num_channels", REQUIRED), ("eps", 1e-5), ("affine", True)], _groupnorm),
    "PReLU": ([("num_parameters", 1), ("init", 0.25)], _prelu),
    "MultiheadAttention": ([("embed_dim", REQUIRED), ("num_heads", REQUIRED), ("dropout", 0.0), ("bias", True),
                            ("add_bias_kv", False), ("add_zero_attn", False), ("kdim", None), ("vdim", None),
                            ("batch_first", False)], _mha),
    "RNN": ([("input_size", REQUIRED), ("hidden_size", REQUIRED), ("num_layers", 1), ("nonlinearity", "tanh"), ("bias", True),
             ("batch_first", False), ("dropout", 0.0), ("bidirectional", False)], _rnn(1, False)),
    "LSTM": (_RNN + [("proj_size", 0)], _rnn(4, True)),
    "RNNBase": ([("mode", REQUIRED)] + _RNN + [("proj_size", 0)], _rnn_base),
    "GRU": (_RNN, _rnn(3, False)),
    "RNNCell": ([("input_size", REQUIRED), ("hidden_size", REQUIRED), ("bias", True), ("nonlinearity", "tanh")], _cell(1)),
    "LSTMCell": ([("input_size", REQUIRED), ("hidden_size", REQUIRED), ("bias", True)], _cell(4)),
    "GRUCell": ([("input_size", REQUIRED), ("hidden_size", REQUIRED), ("bias", True)], _cell(3)),
    "LinearCrossEntropyLoss": ([("in_features", REQUIRED), ("num_classes", REQUIRED), ("out_features", ()),
                                ("bias", False), ("reduction", "mean"), ("weight", None), ("ignore_index", None),
                                ("label_smoothing", 0.0), ("options", None)], _linear_cross_entropy),
    "AdaptiveLogSoftmaxWithLoss": ([("in_features", REQUIRED), ("n_classes", REQUIRED), ("cutoffs", REQUIRED),
                                    ("div_value", 4.0), ("head_bias", False)], _adaptive_softmax),
    "TransformerEncoderLayer": (_ENC, _encoder_layer(False)),
    "TransformerDecoderLayer": (_ENC, _encoder_layer(True)),
    # Pooling: no parameters, but settings a subclass reads back (`self.stride` after
    # super().__init__: EfficientNet-PyTorch's MaxPool2dStaticSamePadding).
    **{f"MaxPool{d}d": (_MAX_POOL, None) for d in (1, 2, 3)},
    "AvgPool1d": (_AVG_POOL, None), "AvgPool2d": (_AVG_POOL + [("divisor_override", None)], None),
    "AvgPool3d": (_AVG_POOL + [("divisor_override", None)], None),
    **{f"AdaptiveAvgPool{d}d": ([("output_size", REQUIRED)], None) for d in (1, 2, 3)},
    "Flatten": ([("start_dim", 1), ("end_dim", -1)], None),
    **{f"AdaptiveMaxPool{d}d": ([("output_size", REQUIRED), ("return_indices", False)], None) for d in (1, 2, 3)},
    "Transformer": ([("d_model", 512), ("nhead", 8), ("num_encoder_layers", 6), ("num_decoder_layers", 6),
                     ("dim_feedforward", 2048), ("dropout", 0.1), ("activation", "relu"), ("custom_encoder", None),
                     ("custom_decoder", None), ("layer_norm_eps", 1e-5), ("batch_first", False), ("norm_first", False),
                     ("bias", True)], _transformer),
}

# Layers without parameters (activations, pooling, dropout, shape ops, losses).
# The parameterless classes that keep a `weight` (a class-weight buffer, None unless given); every
# other one has no `weight` or `bias` at all (torch raises AttributeError: a test checks it).
WEIGHTED_LOSSES = frozenset({"BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "MultiLabelSoftMarginLoss",
                             "MultiMarginLoss", "NLLLoss", "NLLLoss2d"})
PARAMETERLESS = frozenset("""
Identity Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout ReLU ReLU6 GELU SiLU Mish Tanh Sigmoid
Hardtanh Hardswish Hardsigmoid LeakyReLU ELU SELU CELU GLU Softplus Softsign Softmax Softmax2d LogSoftmax Softmin
LogSigmoid Tanhshrink Softshrink Hardshrink Threshold RReLU Flatten Unflatten MaxPool1d MaxPool2d MaxPool3d AvgPool1d
AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d
AdaptiveMaxPool3d LPPool1d LPPool2d Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle PixelUnshuffle
ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d ReflectionPad1d ReflectionPad2d ReplicationPad1d
ReplicationPad2d ReplicationPad3d ChannelShuffle LocalResponseNorm CrossMapLRN2d CosineSimilarity PairwiseDistance Fold
Unfold CrossEntropyLoss MSELoss L1Loss NLLLoss BCELoss BCEWithLogitsLoss SmoothL1Loss HuberLoss KLDivLoss CTCLoss
CircularPad1d CircularPad2d CircularPad3d ReflectionPad3d FractionalMaxPool2d FractionalMaxPool3d LPPool3d MaxUnpool1d
MaxUnpool2d MaxUnpool3d CosineEmbeddingLoss GaussianNLLLoss HingeEmbeddingLoss MarginRankingLoss MultiLabelMarginLoss
MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss2d PoissonNLLLoss SoftMarginLoss TripletMarginLoss
TripletMarginWithDistanceLoss
""".split())

# The hyperparameters torch keeps on each layer (`conv.stride`, `fc.in_features`), as it keeps them:
# per layer, the constructor arguments stored as given and those torch normalizes (an int kernel
# size becomes a tuple, a negative padding_idx counts from the end). Read when code asks for one
# (layer_attribute); a test compares them with torch's for random arguments.
def _same(a: dict[str, Any], name: str) -> Any:
    return a[name]


def _conv_attributes(dims: int, transposed: bool) -> dict[str, Callable[[dict[str, Any], str], Any]]:
    def sizes(a: dict[str, Any], name: str) -> tuple[Any, ...]:
        return _tuple(a[name], dims, name)

    def padding(a: dict[str, Any], name: str) -> Any:
        return a[name] if isinstance(a[name], str) else sizes(a, name)

    return {"in_channels": _same, "out_channels": _same, "kernel_size": sizes, "stride": sizes, "padding": padding,
            "dilation": sizes, "groups": _same, "padding_mode": _same,
            "transposed": lambda a, n: transposed,
            "output_padding": sizes if transposed else (lambda a, n: (0,) * dims)}


def _padding_idx(a: dict[str, Any], name: str) -> Any:
    idx = a[name]
    if isinstance(idx, int) and not isinstance(idx, bool) and idx < 0:
        return sym_add(a["num_embeddings"], idx)
    return idx


def _rnn_attributes(mode: str | None) -> dict[str, Callable[[dict[str, Any], str], Any]]:
    def rnn_mode(a: dict[str, Any], name: str) -> Any:
        if mode is not None:
            return mode
        kind = a["nonlinearity"]
        if kind not in ("tanh", "relu"):
            raise Raised(f"nonlinearity is {_describe(kind)}; torch raises ValueError (tanh or relu)", _VALUE_ERROR)
        return "RNN_TANH" if kind == "tanh" else "RNN_RELU"

    out: dict[str, Callable[[dict[str, Any], str], Any]] = {
        name: _same for name in ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "bidirectional")}
    out.update(mode=rnn_mode, dropout=lambda a, n: float(a[n]), proj_size=lambda a, n: a.get(n, 0))
    if mode is None:
        out["nonlinearity"] = _same
    return out


_ACTIVATION_CODES = {"relu": 1, "gelu": 2}  # TransformerEncoderLayer.activation_relu_or_gelu


def _activation_name(activation: Any) -> str | None:
    """"relu" for "relu" or F.relu (torch's test), None for any other activation."""
    if isinstance(activation, str):
        return activation
    name = getattr(activation, "name", None)
    return name.rpartition(".")[2] if isinstance(name, str) and name.startswith("torch.nn.functional.") else None


def _activation(activation: Any) -> Any:
    """A transformer layer's ``activation``: F.relu / F.gelu for their names (torch raises for any
    other string), else the callable given."""
    if isinstance(activation, str):
        if activation not in _ACTIVATION_CODES:
            raise Raised(f"activation should be relu/gelu, not {activation!r} (torch raises RuntimeError)",
                         ExtV("RuntimeError"))
        return ExtV(f"torch.nn.functional.{activation}")
    return activation


def _given(*names: str) -> dict[str, Callable[[dict[str, Any], str], Any]]:
    return {name: _same for name in names}


def stride_or_kernel(a: dict[str, Any], name: str) -> Any:
    return a["kernel_size"] if a["stride"] is None else a["stride"]  # a pool's stride defaults to its window


def _single(v: Any) -> tuple[Any, ...]:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


_SHAPE = {"normalized_shape": lambda a, n: _norm_shape(a[n])}
LAYER_ATTRIBUTES: dict[str, dict[str, Callable[[dict[str, Any], str], Any]]] = {
    "Linear": _given("in_features", "out_features"),
    "Bilinear": _given("in1_features", "in2_features", "out_features"),
    "Embedding": {**_given("num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"),
                  "padding_idx": _padding_idx},
    "EmbeddingBag": {**_given("num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
                              "sparse", "include_last_offset"), "padding_idx": _padding_idx},
    **{f"Conv{d}d": _conv_attributes(d, False) for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": _conv_attributes(d, True) for d in (1, 2, 3)},
    **{name: _given("num_features", "eps", "momentum", "affine", "track_running_stats") for name in (
        "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")},
    "SyncBatchNorm": _given("num_features", "eps", "momentum", "affine", "track_running_stats", "process_group"),
    "LayerNorm": {**_SHAPE, **_given("eps", "elementwise_affine")},
    "RMSNorm": {**_SHAPE, **_given("eps", "elementwise_affine")},
    "GroupNorm": _given("num_groups", "num_channels", "eps", "affine"),
    "PReLU": _given("num_parameters", "init"),
    "MultiheadAttention": {**_given("embed_dim", "num_heads", "dropout", "batch_first", "add_zero_attn"),
                           "kdim": lambda a, n: a["embed_dim"] if a[n] is None else a[n],
                           "vdim": lambda a, n: a["embed_dim"] if a[n] is None else a[n],
                           "head_dim": lambda a, n: as_int(a["embed_dim"], "embed_dim") // as_int(
                               a["num_heads"], "num_heads", floats=True)},
    "RNN": _rnn_attributes(None), "LSTM": _rnn_attributes("LSTM"), "GRU": _rnn_attributes("GRU"),
    "RNNBase": {**_rnn_attributes("LSTM"), "mode": _same},
    **{f"MaxPool{d}d": {**_given("kernel_size", "padding", "dilation", "return_indices", "ceil_mode"),
                        "stride": stride_or_kernel} for d in (1, 2, 3)},
    # AvgPool1d keeps its sizes as 1-tuples (torch's _single); the 2-d and 3-d ones as given.
    "AvgPool1d": {"kernel_size": lambda a, n: _single(a[n]), "stride": lambda a, n: _single(stride_or_kernel(a, n)),
                  "padding": lambda a, n: _single(a[n]), **_given("ceil_mode", "count_include_pad")},
    **{f"AvgPool{d}d": {**_given("kernel_size", "padding", "ceil_mode", "count_include_pad", "divisor_override"),
                        "stride": stride_or_kernel} for d in (2, 3)},
    **{f"AdaptiveAvgPool{d}d": _given("output_size") for d in (1, 2, 3)},
    **{f"AdaptiveMaxPool{d}d": _given("output_size", "return_indices") for d in (1, 2, 3)},
    "RNNCell": _given("input_size", "hidden_size", "bias", "nonlinearity"),
    "LSTMCell": _given("input_size", "hidden_size", "bias"), "GRUCell": _given("input_size", "hidden_size", "bias"),
    "TransformerEncoderLayer": {"norm_first": _same, "activation": lambda a, n: _activation(a[n]),
                                "activation_relu_or_gelu": lambda a, n: _ACTIVATION_CODES.get(_activation_name(a["activation"]), 0)},
    "TransformerDecoderLayer": {"norm_first": _same, "activation": lambda a, n: _activation(a[n])},
    "Transformer": _given("d_model", "nhead", "batch_first"),
}
# The parameters a torch layer registers as None where its arguments leave them out (read back by
# CLIP's convert_weights: `getattr(attn, "q_proj_weight")`, `attn.bias_k is None`).
NONE_SLOTS = {"MultiheadAttention": frozenset({"in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight",
                                                "in_proj_bias", "bias_k", "bias_v"})}
# The parameters and buffers a torch.nn class registers whether or not it holds them: an absent
# one is registered as None (`nn.Linear(2, 2, bias=False).bias`), so `hasattr` is True on every
# instance (a test compares the table with the installed torch).
_NORM_SLOTS = frozenset({"weight", "bias", "running_mean", "running_var", "num_batches_tracked"})
REGISTERED_SLOTS = {
    **dict.fromkeys(("Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                     "ConvTranspose3d"), frozenset({"bias"})),
    **dict.fromkeys(("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
                     "InstanceNorm3d"), _NORM_SLOTS),
    **dict.fromkeys(("LayerNorm", "GroupNorm"), frozenset({"weight", "bias"})),
    "RMSNorm": frozenset({"weight"}),
    **dict.fromkeys(("RNNCell", "LSTMCell", "GRUCell"), frozenset({"bias_ih", "bias_hh"})),
    "MultiheadAttention": NONE_SLOTS["MultiheadAttention"],
    **dict.fromkeys(("BCELoss", "CrossEntropyLoss", "LinearCrossEntropyLoss", "MultiLabelSoftMarginLoss",
                     "MultiMarginLoss", "NLLLoss", "NLLLoss2d"), frozenset({"weight"})),
    "BCEWithLogitsLoss": frozenset({"weight", "pos_weight"}),
}
NOT_A_LAYER_ATTRIBUTE = object()
# Public names the table's layer classes add to nn.Module's (methods and properties; a test compares
# them with the installed torch's).
LAYER_CLASS_NAMES = frozenset({"all_weights", "check_forward_args", "check_hidden_size", "check_input",
                               "convert_sync_batchnorm", "flatten_parameters", "from_pretrained",
                               "generate_square_subsequent_mask", "get_expected_cell_size", "get_expected_hidden_size",
                               "log_prob", "merge_masks", "permute_hidden", "predict", "reset_parameters",
                               "reset_running_stats"})


def no_such_layer_attribute(layer: str, name: str, registered: Any) -> bool:
    """Whether torch's ``layer`` (one whose public attributes the table knows) certainly has no
    attribute ``name`` (a typo: ``fc.weihgt``), given the names registered on it; private names and
    layers the table does not describe whole are never said to lack one."""
    return layer in LAYER_ATTRIBUTES and not name.startswith("_") and name not in registered and \
        name not in LAYER_ATTRIBUTES[layer] and name not in MODULE_CLASS_ATTRIBUTES and name not in LAYER_CLASS_NAMES \
        and name not in RUNNING_STATS and name not in NONE_SLOTS.get(layer, ()) and name != "training"


def layer_attribute(layer: str, bound: dict[str, Any], name: str) -> Any:
    """``layer.<name>`` as torch has it on a layer built with ``bound``; NOT_A_LAYER_ATTRIBUTE where
    torch keeps no such hyperparameter."""
    read = LAYER_ATTRIBUTES.get(layer, {}).get(name)
    return NOT_A_LAYER_ATTRIBUTE if read is None else read(bound, name)


# torch.nn's public names besides its module classes (torch 2.13): with TORCH_NN_MODULES, all of
# `dir(torch.nn)` (a test compares them), so `getattr(nn, name, None)` and `hasattr` answer as torch.
TORCH_NN_OTHER_NAMES = frozenset("""
Buffer LinearCrossEntropyOptions Parameter UninitializedBuffer UninitializedParameter attention common_types
factory_kwargs functional grad init intrinsic modules parallel parameter qat quantizable quantized utils
""".split())

# Where torch defines each torch.nn module class (torch 2.13): Python's text of the class,
# `<class 'torch.nn.modules.linear.Linear'>`, which code may read (`str(cls.__bases__)`). A test
# compares it with the installed torch.
TORCH_NN_MODULES: dict[str, str] = {name: module for module, names in {
    "torch.nn.modules.activation": """
CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid LogSoftmax Mish
MultiheadAttention PReLU RReLU ReLU ReLU6 SELU SiLU Sigmoid Softmax Softmax2d Softmin Softplus
Softshrink Softsign Tanh Tanhshrink Threshold
""",
    "torch.nn.modules.adaptive": "AdaptiveLogSoftmaxWithLoss",
    "torch.nn.modules.batchnorm": """
BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d LazyBatchNorm3d
SyncBatchNorm
""",
    "torch.nn.modules.channelshuffle": "ChannelShuffle",
    "torch.nn.modules.container": "Container ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "torch.nn.modules.conv": """
Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d LazyConv2d
LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d
""",
    "torch.nn.modules.distance": "CosineSimilarity PairwiseDistance",
    "torch.nn.modules.dropout": "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout",
    "torch.nn.modules.flatten": "Flatten Unflatten",
    "torch.nn.modules.fold": "Fold Unfold",
    "torch.nn.modules.instancenorm": """
InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d LazyInstanceNorm2d
LazyInstanceNorm3d
""",
    "torch.nn.modules.linear": "Bilinear Identity LazyLinear Linear",
    "torch.nn.modules.loss": """
BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss GaussianNLLLoss
HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss LinearCrossEntropyLoss MSELoss MarginRankingLoss
MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss NLLLoss2d PoissonNLLLoss
SmoothL1Loss SoftMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss
""",
    "torch.nn.modules.module": "Module",
    "torch.nn.modules.normalization": "CrossMapLRN2d GroupNorm LayerNorm LocalResponseNorm RMSNorm",
    "torch.nn.modules.padding": """
CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d
ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d
""",
    "torch.nn.modules.pixelshuffle": "PixelShuffle PixelUnshuffle",
    "torch.nn.modules.pooling": """
AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d
AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d FractionalMaxPool2d FractionalMaxPool3d LPPool1d
LPPool2d LPPool3d MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d
""",
    "torch.nn.modules.rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "torch.nn.modules.sparse": "Embedding EmbeddingBag",
    "torch.nn.modules.transformer": """
Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder
TransformerEncoderLayer
""",
    "torch.nn.modules.upsampling": "Upsample UpsamplingBilinear2d UpsamplingNearest2d",
    "torch.nn.parallel.data_parallel": "DataParallel",
}.items() for name in names.split()}



# What nn.Module has beyond object's attributes (dir(nn.Module) - dir(object), torch 2.13): a class
# of the project answers `hasattr(cls, name)` through it (transformers' can_generate asks for
# prepare_inputs_for_generation). A test compares it with the installed torch.
# What each torch.nn class has beyond nn.Module's own (MODULE_CLASS_ATTRIBUTES): `hasattr(nn.BatchNorm2d, "_abbr_")`
# is False (mmcv's infer_abbr), `nn.Linear.in_features` an AttributeError (an instance's, set by __init__).
# From torch 2.13 (a test compares it with the installed torch's).
TORCH_CLASS_ATTRIBUTES: dict[str, str] = {
    "AdaptiveAvgPool1d": "__constants__", "AdaptiveAvgPool2d": "__constants__", "AdaptiveAvgPool3d": "__constants__",
    "AdaptiveLogSoftmaxWithLoss": "_get_full_log_prob log_prob predict reset_parameters",
    "AdaptiveMaxPool1d": "__constants__", "AdaptiveMaxPool2d": "__constants__", "AdaptiveMaxPool3d": "__constants__",
    "AlphaDropout": "__constants__", "AvgPool1d": "__constants__", "AvgPool2d": "__constants__",
    "AvgPool3d": "__constants__", "BCELoss": "__constants__",
    "BatchNorm1d": "__constants__ _check_input_dim reset_parameters reset_running_stats",
    "BatchNorm2d": "__constants__ _check_input_dim reset_parameters reset_running_stats",
    "BatchNorm3d": "__constants__ _check_input_dim reset_parameters reset_running_stats",
    "Bilinear": "__constants__ reset_parameters", "CELU": "__constants__", "CTCLoss": "__constants__",
    "ChannelShuffle": "__constants__", "CircularPad1d": "__constants__ _check_input_dim",
    "CircularPad2d": "__constants__ _check_input_dim", "CircularPad3d": "__constants__ _check_input_dim",
    "ConstantPad1d": "__constants__", "ConstantPad2d": "__constants__", "ConstantPad3d": "__constants__",
    "Container": "__deprecated__", "Conv1d": "__constants__ _conv_forward reset_parameters",
    "Conv2d": "__constants__ _conv_forward reset_parameters",
    "Conv3d": "__constants__ _conv_forward reset_parameters",
    "ConvTranspose1d": "__constants__ _conv_forward _output_padding reset_parameters",
    "ConvTranspose2d": "__constants__ _conv_forward _output_padding reset_parameters",
    "ConvTranspose3d": "__constants__ _conv_forward _output_padding reset_parameters",
    "CosineEmbeddingLoss": "__constants__", "CosineSimilarity": "__constants__", "CrossEntropyLoss": "__constants__",
    "DataParallel": "__class_getitem__ __orig_bases__ __parameters__ __slots__ _is_protocol gather parallel_apply replicate scatter",
    "Dropout": "__constants__", "Dropout1d": "__constants__", "Dropout2d": "__constants__",
    "Dropout3d": "__constants__", "ELU": "__constants__",
    "Embedding": "__constants__ _fill_padding_idx_with_zero from_pretrained reset_parameters",
    "EmbeddingBag": "__constants__ _fill_padding_idx_with_zero from_pretrained reset_parameters",
    "FeatureAlphaDropout": "__constants__", "Flatten": "__constants__", "Fold": "__constants__",
    "FractionalMaxPool2d": "__constants__", "FractionalMaxPool3d": "__constants__", "GELU": "__constants__",
    "GLU": "__constants__",
    "GRU": "__constants__ __jit_unused_properties__ _init_flat_weights _update_flat_weights _weights_have_changed all_weights check_forward_args check_hidden_size check_input flatten_parameters get_expected_hidden_size permute_hidden reset_parameters",
    "GRUCell": "__constants__ reset_parameters", "GaussianNLLLoss": "__constants__",
    "GroupNorm": "__constants__ reset_parameters", "Hardshrink": "__constants__", "Hardsigmoid": "__constants__",
    "Hardswish": "__constants__", "Hardtanh": "__constants__", "HingeEmbeddingLoss": "__constants__",
    "HuberLoss": "__constants__",
    "InstanceNorm1d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input reset_parameters reset_running_stats",
    "InstanceNorm2d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input reset_parameters reset_running_stats",
    "InstanceNorm3d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input reset_parameters reset_running_stats",
    "KLDivLoss": "__constants__", "L1Loss": "__constants__", "LPPool1d": "__constants__",
    "LPPool2d": "__constants__", "LPPool3d": "__constants__",
    "LSTM": "__constants__ __jit_unused_properties__ _init_flat_weights _update_flat_weights _weights_have_changed all_weights check_forward_args check_hidden_size check_input flatten_parameters get_expected_cell_size get_expected_hidden_size permute_hidden reset_parameters",
    "LSTMCell": "__constants__ reset_parameters", "LayerNorm": "__constants__ reset_parameters",
    "LazyBatchNorm1d": "__constants__ _check_input_dim _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyBatchNorm2d": "__constants__ _check_input_dim _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyBatchNorm3d": "__constants__ _check_input_dim _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyConv1d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyConv2d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyConv3d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyConvTranspose1d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook _output_padding cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyConvTranspose2d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook _output_padding cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyConvTranspose3d": "__constants__ _conv_forward _get_in_channels _get_num_spatial_dims _infer_parameters _lazy_load_hook _output_padding cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LazyInstanceNorm1d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyInstanceNorm2d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyInstanceNorm3d": "__constants__ _apply_instance_norm _check_input_dim _get_no_batch_dim _handle_no_batch_input _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters reset_running_stats",
    "LazyLinear": "__constants__ _infer_parameters _lazy_load_hook cls_to_become has_uninitialized_params initialize_parameters reset_parameters",
    "LeakyReLU": "__constants__", "Linear": "__constants__ reset_parameters",
    "LinearCrossEntropyLoss": "__constants__", "LocalResponseNorm": "__constants__", "LogSoftmax": "__constants__",
    "MSELoss": "__constants__", "MarginRankingLoss": "__constants__", "MaxPool1d": "__constants__",
    "MaxPool2d": "__constants__", "MaxPool3d": "__constants__", "Mish": "__constants__",
    "ModuleDict": "__contains__ __delitem__ __getitem__ __iter__ __len__ __setitem__ clear items keys pop update values",
    "ModuleList": "__add__ __delitem__ __getitem__ __iadd__ __iter__ __len__ __setitem__ _get_abs_string_index append extend insert pop",
    "MultiLabelMarginLoss": "__constants__", "MultiLabelSoftMarginLoss": "__constants__",
    "MultiMarginLoss": "__constants__", "MultiheadAttention": "__constants__ _reset_parameters merge_masks",
    "NLLLoss": "__constants__", "NLLLoss2d": "__constants__ __deprecated__",
    "PReLU": "__constants__ reset_parameters", "PairwiseDistance": "__constants__",
    "ParameterDict": "__contains__ __delitem__ __getitem__ __ior__ __iter__ __len__ __or__ __reversed__ __ror__ __setitem__ _key_to_attr clear copy fromkeys get items keys pop popitem setdefault update values",
    "ParameterList": "__getitem__ __iadd__ __iter__ __len__ __setitem__ _get_abs_string_index append extend",
    "PixelShuffle": "__constants__", "PixelUnshuffle": "__constants__", "PoissonNLLLoss": "__constants__",
    "RMSNorm": "__constants__ reset_parameters",
    "RNN": "__constants__ __jit_unused_properties__ _init_flat_weights _update_flat_weights _weights_have_changed all_weights check_forward_args check_hidden_size check_input flatten_parameters get_expected_hidden_size permute_hidden reset_parameters",
    "RNNBase": "__constants__ __jit_unused_properties__ _init_flat_weights _update_flat_weights _weights_have_changed all_weights check_forward_args check_hidden_size check_input flatten_parameters get_expected_hidden_size permute_hidden reset_parameters",
    "RNNCell": "__constants__ reset_parameters", "RNNCellBase": "__constants__ reset_parameters",
    "RReLU": "__constants__", "ReLU": "__constants__", "ReLU6": "__constants__", "ReflectionPad1d": "__constants__",
    "ReflectionPad2d": "__constants__", "ReflectionPad3d": "__constants__", "ReplicationPad1d": "__constants__",
    "ReplicationPad2d": "__constants__", "ReplicationPad3d": "__constants__", "SELU": "__constants__",
    "Sequential": "__add__ __delitem__ __getitem__ __iadd__ __imul__ __iter__ __len__ __mul__ __rmul__ __setitem__ _get_item_by_idx append extend insert pop",
    "SiLU": "__constants__", "SmoothL1Loss": "__constants__", "SoftMarginLoss": "__constants__",
    "Softmax": "__constants__", "Softmin": "__constants__", "Softplus": "__constants__",
    "Softshrink": "__constants__",
    "SyncBatchNorm": "__constants__ _check_input_dim _check_non_zero_input_channels convert_sync_batchnorm reset_parameters reset_running_stats",
    "Threshold": "__constants__", "Transformer": "_reset_parameters generate_square_subsequent_mask",
    "TransformerDecoder": "__constants__", "TransformerDecoderLayer": "__constants__ _ff_block _mha_block _sa_block",
    "TransformerEncoder": "__constants__", "TransformerEncoderLayer": "__constants__ _ff_block _sa_block",
    "TripletMarginLoss": "__constants__", "TripletMarginWithDistanceLoss": "__constants__",
    "Unflatten": "__constants__ _require_tuple_int", "Unfold": "__constants__", "Upsample": "__constants__",
    "UpsamplingBilinear2d": "__constants__", "UpsamplingNearest2d": "__constants__", "ZeroPad1d": "__constants__",
    "ZeroPad2d": "__constants__", "ZeroPad3d": "__constants__",
}


@functools.lru_cache(maxsize=None)
def torch_class_has(cls: str, name: str) -> bool:
    """Whether the torch.nn class ``cls`` has the attribute ``name`` (as a class: its methods and class
    attributes, nn.Module's, the type's); dunder names are not answered here."""
    return name in MODULE_CLASS_ATTRIBUTES or name == "mro" or name in TORCH_CLASS_ATTRIBUTES.get(cls, "").split()


# What nn.Module.__init__ sets on every module (`vars(nn.Module())`, torch 2.13; a test compares them).
MODULE_INSTANCE_ATTRIBUTES = frozenset("""
_backward_hooks _backward_pre_hooks _buffers _forward_hooks _forward_hooks_always_called _forward_hooks_with_kwargs
_forward_pre_hooks _forward_pre_hooks_with_kwargs _is_full_backward_hook _load_state_dict_post_hooks
_load_state_dict_pre_hooks _modules _non_persistent_buffers_set _parameters _state_dict_hooks _state_dict_pre_hooks
training""".split())

# torchmetrics' metrics that hold no parameters (their states are tensors kept by add_state, never
# parameters or submodules that have them): every class of torchmetrics.classification,
# .regression and .aggregation (torchmetrics 1.9), by their names there or at torchmetrics' top
# level (METRIC_MODULES). torchmetrics is not read: a metric built in a constructor (a Lightning
# module's `self.val_acc = Accuracy(task="multiclass", num_classes=10)`) is a module of no parameters.
# A test builds each with the installed torchmetrics.
PARAMETERLESS_METRICS = frozenset("""
AUROC Accuracy AveragePrecision BinaryAUROC BinaryAccuracy BinaryAveragePrecision BinaryCalibrationError
BinaryCohenKappa BinaryConfusionMatrix BinaryEER BinaryF1Score BinaryFBetaScore BinaryFairness BinaryGroupStatRates
BinaryHammingDistance BinaryHingeLoss BinaryJaccardIndex BinaryLogAUC BinaryMatthewsCorrCoef
BinaryNegativePredictiveValue BinaryPrecision BinaryPrecisionAtFixedRecall BinaryPrecisionRecallCurve BinaryROC
BinaryRecall BinaryRecallAtFixedPrecision BinarySensitivityAtSpecificity BinarySpecificity
BinarySpecificityAtSensitivity BinaryStatScores CalibrationError CatMetric CohenKappa ConcordanceCorrCoef
ConfusionMatrix ContinuousRankedProbabilityScore CosineSimilarity CriticalSuccessIndex EER ExactMatch
ExplainedVariance F1Score FBetaScore HammingDistance HingeLoss JaccardIndex JensenShannonDivergence KLDivergence
KendallRankCorrCoef LogAUC LogCoshError MatthewsCorrCoef MaxMetric MeanAbsoluteError MeanAbsolutePercentageError
MeanMetric MeanSquaredError MeanSquaredLogError MinMetric MinkowskiDistance MulticlassAUROC MulticlassAccuracy
MulticlassAveragePrecision MulticlassCalibrationError MulticlassCohenKappa MulticlassConfusionMatrix MulticlassEER
MulticlassExactMatch MulticlassF1Score MulticlassFBetaScore MulticlassHammingDistance MulticlassHingeLoss
MulticlassJaccardIndex MulticlassLogAUC MulticlassMatthewsCorrCoef MulticlassNegativePredictiveValue
MulticlassPrecision MulticlassPrecisionAtFixedRecall MulticlassPrecisionRecallCurve MulticlassROC MulticlassRecall
MulticlassRecallAtFixedPrecision MulticlassSensitivityAtSpecificity MulticlassSpecificity
MulticlassSpecificityAtSensitivity MulticlassStatScores MultilabelAUROC MultilabelAccuracy MultilabelAveragePrecision
MultilabelConfusionMatrix MultilabelCoverageError MultilabelEER MultilabelExactMatch MultilabelF1Score
MultilabelFBetaScore MultilabelHammingDistance MultilabelJaccardIndex MultilabelLogAUC MultilabelMatthewsCorrCoef
MultilabelNegativePredictiveValue MultilabelPrecision MultilabelPrecisionAtFixedRecall MultilabelPrecisionRecallCurve
MultilabelROC MultilabelRankingAveragePrecision MultilabelRankingLoss MultilabelRecall
MultilabelRecallAtFixedPrecision MultilabelSensitivityAtSpecificity MultilabelSpecificity
MultilabelSpecificityAtSensitivity MultilabelStatScores NegativePredictiveValue NormalizedRootMeanSquaredError
PearsonCorrCoef Precision PrecisionAtFixedRecall PrecisionRecallCurve R2Score ROC Recall RecallAtFixedPrecision
RelativeSquaredError RunningMean RunningSum SensitivityAtSpecificity SpearmanCorrCoef Specificity
SpecificityAtSensitivity StatScores SumMetric SymmetricMeanAbsolutePercentageError TweedieDevianceScore
WeightedMeanAbsolutePercentageError
""".split())
METRIC_MODULES = frozenset({"torchmetrics", "torchmetrics.classification", "torchmetrics.regression",
                            "torchmetrics.aggregation"})

MODULE_CLASS_ATTRIBUTES = frozenset("""
T_destination __annotations__ __call__ __dict__ __getattr__ __module__ __setstate__ __weakref__ _apply _call_impl
_compiled_call_impl _get_backward_hooks _get_backward_pre_hooks _get_name _load_from_state_dict
_maybe_warn_non_full_backward_hook _named_members _register_load_state_dict_pre_hook _register_state_dict_hook
_replicate_for_data_parallel _save_to_state_dict _slow_forward _version _wrapped_call_impl add_module apply bfloat16
buffers call_super_init children compile cpu cuda double dump_patches eval extra_repr float forward get_buffer
get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia named_buffers named_children
named_modules named_parameters parameters register_backward_hook register_buffer register_forward_hook
register_forward_pre_hook register_full_backward_hook register_full_backward_pre_hook
register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module register_parameter
register_state_dict_post_hook register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule share_memory
state_dict to to_empty train type xpu zero_grad
""".split())

# The public names of torch.nn.functional (torch 2.13): ``'silu' in dir(torch.nn.functional)``, as timm
# asks before choosing an activation layer. A test compares it with the installed torch.
FUNCTIONAL_NAMES = frozenset("""
BroadcastingList1 BroadcastingList2 BroadcastingList3 Callable DType GRID_SAMPLE_INTERPOLATION_MODES
GRID_SAMPLE_PADDING_MODES Optional ScalingType SwizzleType TYPE_CHECKING Tensor adaptive_avg_pool1d
adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool1d_with_indices adaptive_max_pool2d
adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices affine_grid alpha_dropout
assert_int_or_pair avg_pool1d avg_pool2d avg_pool3d batch_norm bilinear binary_cross_entropy
binary_cross_entropy_with_logits boolean_dispatch celu celu_ channel_shuffle conv1d conv2d conv3d conv_tbc
conv_transpose1d conv_transpose2d conv_transpose3d cosine_embedding_loss cosine_similarity cross_entropy ctc_loss
dataclasses dropout dropout1d dropout2d dropout3d elu elu_ embedding embedding_bag feature_alpha_dropout fold
fractional_max_pool2d fractional_max_pool2d_with_indices fractional_max_pool3d fractional_max_pool3d_with_indices
gaussian_nll_loss gelu glu grad grid_sample group_norm grouped_mm gumbel_softmax handle_torch_function hardshrink
hardsigmoid hardswish hardtanh hardtanh_ has_torch_function has_torch_function_unary has_torch_function_variadic
hinge_embedding_loss huber_loss importlib instance_norm interpolate kl_div l1_loss layer_norm leaky_relu leaky_relu_
linear linear_cross_entropy local_response_norm log_softmax logsigmoid lp_pool1d lp_pool2d lp_pool3d
margin_ranking_loss math max_pool1d max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d
max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d mish mse_loss multi_head_attention_forward
multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss native_channel_shuffle nll_loss normalize np
one_hot pad pairwise_distance pdist pixel_shuffle pixel_unshuffle poisson_nll_loss prelu relu relu6 relu_
reproducibility_notes rms_norm rrelu rrelu_ scaled_dot_product_attention scaled_grouped_mm scaled_mm selu selu_
sigmoid silu smooth_l1_loss soft_margin_loss softmax softmin softplus softshrink softsign sparse_support_notes tanh
tanhshrink tf32_notes threshold threshold_ torch triplet_margin_loss triplet_margin_with_distance_loss unfold upsample
upsample_bilinear upsample_nearest warnings
""".split())

# torch's dtypes by name, aliases to their canonical names, and what torch.finfo / torch.iinfo say of
# them (timm keeps rotary frequencies in float32 where `torch.finfo(dtype).bits < 32`). A test
# compares them with torch.
DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "short": "int16", "int": "int32",
                 "long": "int64", "cfloat": "complex64", "cdouble": "complex128"}
# Bytes per element of torch's dtypes (a test compares them with torch's element_size()).
ELEMENT_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1,
                 "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8,
                 "bool": 1, "complex64": 8, "complex128": 16}
FLOATING_DTYPES = frozenset(name for name in ELEMENT_BYTES if "float" in name)
FINFO: dict[str, dict[str, Any]] = {
    "float32": {"bits": 32, "eps": 1.1920928955078125e-07, "max": 3.4028234663852886e+38,
                "min": -3.4028234663852886e+38, "tiny": 1.1754943508222875e-38, "resolution": 1e-06},
    "float64": {"bits": 64, "eps": 2.220446049250313e-16, "max": 1.7976931348623157e+308,
                "min": -1.7976931348623157e+308, "tiny": 2.2250738585072014e-308, "resolution": 1e-15},
    "float16": {"bits": 16, "eps": 0.0009765625, "max": 65504.0, "min": -65504.0, "tiny": 6.103515625e-05,
                "resolution": 0.001},
    "bfloat16": {"bits": 16, "eps": 0.0078125, "max": 3.3895313892515355e+38, "min": -3.3895313892515355e+38,
                 "tiny": 1.1754943508222875e-38, "resolution": 0.01},
}
IINFO: dict[str, dict[str, Any]] = {
    "int8": {"bits": 8, "max": 127, "min": -128}, "uint8": {"bits": 8, "max": 255, "min": 0},
    "int16": {"bits": 16, "max": 32767, "min": -32768}, "int32": {"bits": 32, "max": 2147483647, "min": -2147483648},
    "int64": {"bits": 64, "max": 9223372036854775807, "min": -9223372036854775808},
}


def dtype_name(dotted: str) -> str | None:
    """``torch.float`` -> "float32": the canonical name of a torch dtype named so; None for any other name."""
    if not dotted.startswith("torch.") or dotted.count(".") != 1:
        return None
    name = DTYPE_ALIASES.get(dotted[6:], dotted[6:])
    return name if name in ELEMENT_BYTES else None


# Stacks that clone their layer argument (TransformerEncoder(layer, num_layers, norm)).
STACKS: dict[str, tuple[list[tuple[str, Any]], str]] = {
    "TransformerEncoder": ([("encoder_layer", REQUIRED), ("num_layers", REQUIRED), ("norm", None),
                            ("enable_nested_tensor", True), ("mask_check", True)], "encoder_layer"),
    "TransformerDecoder": ([("decoder_layer", REQUIRED), ("num_layers", REQUIRED), ("norm", None)], "decoder_layer"),
}


_SIG_NAMES: dict[int, frozenset[str]] = {}


# The layers whose constructors take ``device`` and ``dtype`` positionally after the table's arguments
# (`super().__init__(in_f, out_f, bias, device, dtype)` in QLoRA-style subclasses; a test compares
# this with the installed torch's signatures).
FACTORY_POSITIONAL = frozenset("""Linear Bilinear Embedding EmbeddingBag Conv1d Conv2d Conv3d ConvTranspose1d
ConvTranspose2d ConvTranspose3d BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm InstanceNorm1d InstanceNorm2d
InstanceNorm3d LayerNorm RMSNorm GroupNorm PReLU MultiheadAttention RNNBase RNNCell LSTMCell GRUCell
AdaptiveLogSoftmaxWithLoss TransformerEncoderLayer TransformerDecoderLayer Transformer""".split())


# Keyword-only arguments, after torch's `*` (torch 2.13's norms take `bias` so: `nn.BatchNorm2d(c, bias=False)`
# has a weight alone); the signature test compares them with torch's.
KEYWORD_ONLY: dict[str, dict[str, Any]] = {name: {"bias": True} for name in (
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "GroupNorm")}


def bind(name: str, sig: list[tuple[str, Any]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if len(args) > len(sig):
        most = len(sig) + 2 if name in FACTORY_POSITIONAL else len(sig)
        if len(args) > most:
            raise Raised(f"nn.{name} takes at most {most} positional arguments, got {len(args)}", _TYPE_ERROR)
        if any(k in kwargs for k in ("device", "dtype")[:len(args) - len(sig)]):
            raise Raised(f"nn.{name} got `device` or `dtype` twice", _TYPE_ERROR)
        args = args[:len(sig)]  # device, dtype: no size depends on them
    bound = {n: v for (n, _), v in zip(sig, args)}
    names = _SIG_NAMES.get(id(sig))
    if names is None:  # the signatures are the tables' own lists, alive as long as the module
        names = _SIG_NAMES[id(sig)] = frozenset(n for n, _ in sig)
    keyword_only = KEYWORD_ONLY.get(name, {})
    for k, v in kwargs.items():
        if k in ("device", "dtype"):
            continue
        if k not in names and k not in keyword_only:
            raise Raised(f"nn.{name} has no argument `{k}`", _TYPE_ERROR)
        if k in bound:
            raise Raised(f"nn.{name} got `{k}` twice", _TYPE_ERROR)
        bound[k] = v
    for n, default in sig:
        if n not in bound:
            if default is REQUIRED:
                raise Raised(f"nn.{name} needs `{n}`", _TYPE_ERROR)
            bound[n] = default
    for n, default in keyword_only.items():
        bound.setdefault(n, default)
    return bound


# The torch.nn classes that the tables' layers derive from, each with those layers (from their
# MRO in torch 2.13; a test compares it with the installed torch), for
# `isinstance(conv, nn.modules.conv._ConvNd)` and `issubclass(nn.LSTM, nn.RNNBase)`.
TORCH_SUBCLASSES: dict[str, frozenset[str]] = {
    "ConstantPad1d": frozenset({"ZeroPad1d"}),
    "ConstantPad2d": frozenset({"ZeroPad2d"}),
    "ConstantPad3d": frozenset({"ZeroPad3d"}),
    "Hardtanh": frozenset({"ReLU6"}),
    "NLLLoss": frozenset({"NLLLoss2d"}),
    "RNNBase": frozenset({"GRU", "LSTM", "RNN"}),
    "RNNCellBase": frozenset({"GRUCell", "LSTMCell", "RNNCell"}),
    "Upsample": frozenset({"UpsamplingBilinear2d", "UpsamplingNearest2d"}),
    "_AdaptiveAvgPoolNd": frozenset({"AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"}),
    "_AdaptiveMaxPoolNd": frozenset({"AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"}),
    "_AvgPoolNd": frozenset({"AvgPool1d", "AvgPool2d", "AvgPool3d"}),
    "_BatchNorm": frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"}),
    "_CircularPadNd": frozenset({"CircularPad1d", "CircularPad2d", "CircularPad3d"}),
    "_ConstantPadNd": frozenset({"ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
                                 "ZeroPad3d"}),
    "_ConvNd": frozenset({"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}),
    "_ConvTransposeNd": frozenset({"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}),
    "_DropoutNd": frozenset({"AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                             "FeatureAlphaDropout"}),
    "_InstanceNorm": frozenset({"InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"}),
    "_LPPoolNd": frozenset({"LPPool1d", "LPPool2d", "LPPool3d"}),
    "_Loss": frozenset({"BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
                        "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss",
                        "LinearCrossEntropyLoss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss",
                        "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss",
                        "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"}),
    "_MaxPoolNd": frozenset({"MaxPool1d", "MaxPool2d", "MaxPool3d"}),
    "_MaxUnpoolNd": frozenset({"MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"}),
    "_NormBase": frozenset({"BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
                            "InstanceNorm3d", "SyncBatchNorm"}),
    "_ReflectionPadNd": frozenset({"ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d"}),
    "_ReplicationPadNd": frozenset({"ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"}),
    "_WeightedLoss": frozenset({"BCELoss", "CrossEntropyLoss", "LinearCrossEntropyLoss",
                                "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "NLLLoss2d"}),
}
