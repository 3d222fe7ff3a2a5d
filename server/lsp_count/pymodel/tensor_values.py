"""The values of small 1-D (or 0-d) tensors made from known numbers, computed as torch computes
them on the CPU, for the constructors that derive sizes from them: RegNet's block widths are
``torch.round(torch.log(widths / w0) / math.log(wm))`` and the like, in float32.

- Each value has torch's dtype (type promotion with Python numbers and other tensors as torch's:
  an int64 tensor times a float is float32, true division of ints is float32).
- float32 is emulated exactly for + - * / and sqrt: each is computed in double precision and
  rounded to float32, which gives the correctly rounded float32 result torch's CPU kernels give.
- log, exp and pow are computed by torch's vectorised kernels (SLEEF, within one unit in the last
  place), not always the correctly rounded value. Their results carry an error bound, carried on
  through later arithmetic. Rounding such a value (round, floor, int(), ...) is decided only when
  the rounded result is the same anywhere within the bound; otherwise the analysis says it cannot
  decide. A value with an error bound never leaves as a Python number (``.tolist()``).
Pure functions; ValueError (Undecidable) says why a value cannot be computed exactly."""

from __future__ import annotations

import math
import operator
import struct
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

FLOAT_DTYPES = ("float32", "float64")
INT_DTYPES = {"int64": 63, "int32": 31, "int16": 15, "int8": 7, "uint8": 8}
_ULP = 2.0 ** -23  # float32's unit in the last place, relative


class Undecidable(ValueError):
    """A value torch computes that the analyser cannot reproduce exactly (the reason)."""


@dataclass(frozen=True)
class Values:
    """A tensor's values: ``items`` in ``dtype``; ``errors`` None when exact, else for each value
    a bound on its distance from torch's."""

    items: tuple[Any, ...]
    dtype: str
    errors: tuple[float, ...] | None = None


def f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # past float32's range: torch's infinity
        return math.copysign(math.inf, x)


def cast_number(x: Any, dtype: str) -> Any:
    """A Python number as a value of ``dtype`` (a float to an int truncates, as torch's casts)."""
    if dtype == "float32":
        return f32(float(x))
    if dtype == "float64":
        return float(x)
    if dtype in INT_DTYPES:
        if isinstance(x, float) and not math.isfinite(x):
            raise Undecidable(f"{x} has no {dtype} value")
        v = int(x)  # toward zero
        _check_range(v, dtype)
        return v
    if dtype == "bool":
        return bool(x)
    raise Undecidable(f"values of dtype {dtype} are not computed")


def _check_range(v: int, dtype: str) -> None:
    bits = INT_DTYPES[dtype]
    low, high = (0, 2**bits - 1) if dtype == "uint8" else (-(2**bits), 2**bits - 1)
    if not low <= v <= high:
        raise Undecidable(f"{v} overflows {dtype}")


def category(dtype: str) -> int:
    return 2 if dtype in FLOAT_DTYPES else 1 if dtype in INT_DTYPES else 0


def number_dtype(x: Any) -> str:
    """The dtype a Python number takes beside a tensor of a lower category."""
    return "bool" if isinstance(x, bool) else "int64" if isinstance(x, int) else "float32"


def _wider(a: str, b: str) -> str:
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    if a in FLOAT_DTYPES:
        return "float64" if "float64" in (a, b) else "float32"
    if a in INT_DTYPES:
        if "uint8" in (a, b) and a != b:
            other = b if a == "uint8" else a
            return "int16" if other == "int8" else other
        return a if INT_DTYPES[a] >= INT_DTYPES[b] else b
    return a


def result_dtype(a: Values | Any, a_dims: int, b: Values | Any, b_dims: int, numpy: bool = False) -> str:
    """torch's type promotion for two operands, each a tensor (Values, with its number of
    dimensions) or a Python number: dimensioned tensors decide the dtype; a 0-d tensor, then a
    Python number, only raises its category (a number to the default float32 / int64).
    ``numpy``: numpy's (NEP 50), the same but that a float raises it to float64, numpy's default."""
    default_float = "float64" if numpy else "float32"
    rank_a, dtype_a = _promotion_rank(a, a_dims, default_float)
    rank_b, dtype_b = _promotion_rank(b, b_dims, default_float)
    if rank_a == rank_b:
        return _wider(dtype_a, dtype_b)
    first, second = (dtype_a, dtype_b) if rank_a < rank_b else (dtype_b, dtype_a)
    return second if category(second) > category(first) else first


def _promotion_rank(v: Values | Any, dims: int, default_float: str) -> tuple[int, str]:
    """Which of result_dtype's groups an operand is in (0: a dimensioned tensor, 1: a 0-d one, 2: a
    Python number) and its dtype there. (Per element of numpy loops over scalars: no lists made.)"""
    if isinstance(v, Values):
        return (0 if dims > 0 else 1), v.dtype
    number = number_dtype(v)
    return 2, number if number in ("bool", "int64") else default_float


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
}


def binary(op: str, a: Values | Any, a_dims: int, b: Values | Any, b_dims: int, numpy: bool = False) -> Values:
    """``a op b`` elementwise (one side may be a Python number; a 1-element side broadcasts).
    ``rdiv``: Python's ``number / tensor``, which torch computes as ``tensor.reciprocal() * number``
    (numpy divides). ``numpy``: numpy's arrays, with numpy's promotion (result_dtype)."""
    if op == "rdiv":
        if numpy:
            return binary("div", a, a_dims, b, b_dims, True)
        return binary("mul", binary("div", 1.0, 0, b, b_dims), b_dims, a, a_dims)
    dtype = result_dtype(a, a_dims, b, b_dims, numpy)
    if op == "div" and dtype not in FLOAT_DTYPES:
        dtype = "float64" if numpy else "float32"  # true division of integers
    if dtype not in FLOAT_DTYPES and dtype not in INT_DTYPES:
        raise Undecidable(f"`{op}` on {dtype} values is not computed")
    xs, ex = _operand(a, dtype)
    ys, ey = _operand(b, dtype)
    n = max(len(xs), len(ys))
    if len(xs) not in (1, n) or len(ys) not in (1, n):
        raise Undecidable(f"tensors of {len(xs)} and {len(ys)} values do not broadcast")
    items, errors = [], []
    inexact = ex is not None or ey is not None or (op == "pow" and dtype in FLOAT_DTYPES)
    for i in range(n):
        x, y = xs[i if len(xs) > 1 else 0], ys[i if len(ys) > 1 else 0]
        v = _compute(op, x, y, dtype)
        items.append(v)
        if inexact:
            dx = ex[i if len(ex) > 1 else 0] if ex is not None else 0.0
            dy = ey[i if len(ey) > 1 else 0] if ey is not None else 0.0
            errors.append(0.0 if op == "pow" and not (dx or dy) and _exact_power(x, y, v) else
                          _propagated(op, x, dx, y, dy, v, dtype, NUMPY_ULPS if numpy else 2))
    return Values(tuple(items), dtype, tuple(errors) if any(errors) else None)


def _exact_power(x: float, y: float, v: float) -> bool:
    """Whether ``x ** y`` is an integer power whose exact value ``v`` is: torch's pow returns such
    a value exactly (RegNet's ``2.25 ** 3 = 11.390625``; measured on 183,663 random cases, and
    checked by tests/parity/test_pymodel_tensor_values_parity.py)."""
    if not (float(y).is_integer() and 0 <= y <= 64 and math.isfinite(x) and math.isfinite(v)):
        return False
    return Fraction(x) ** int(y) == Fraction(v)


def _operand(v: Values | Any, dtype: str) -> tuple[list[Any], tuple[float, ...] | None]:
    if isinstance(v, Values):
        return [cast_number(x, dtype) for x in v.items], v.errors
    return [cast_number(v, dtype)], None


def _compute(op: str, x: Any, y: Any, dtype: str) -> Any:
    if dtype in INT_DTYPES:
        if op in ("floordiv", "mod") and y == 0:
            raise Undecidable("integer division by zero (torch raises)")
        if op == "pow" and y < 0:
            raise Undecidable("integers to negative integer powers (torch raises)")
        if op == "pow" and abs(x) > 1 and y * math.log2(abs(x)) > 64:
            raise Undecidable(f"{x} ** {y} overflows {dtype}")
        v = _BINARY[op](x, y)
        _check_range(v, dtype)
        return v
    if op in ("div", "floordiv", "mod") and y == 0:
        raise Undecidable("division by zero")
    if op == "floordiv":
        raise Undecidable("floor division of floats is not computed")
    if op == "pow":
        try:
            v = math.pow(x, y)
        except (OverflowError, ValueError):
            raise Undecidable(f"{x} ** {y} is not computed")
    else:
        v = _BINARY[op](x, y)
    return f32(v) if dtype == "float32" else v


def _last_place(v: float, dtype: str) -> float:
    """One unit in the last place of ``v`` in ``dtype`` (float32's, or float64's)."""
    if dtype == "float64":
        return abs(v) * 2.0 ** -52
    return max(abs(v) * _ULP, 2.0 ** -149)


def _propagated(op: str, x: Any, dx: float, y: Any, dy: float, v: Any, dtype: str, ulps: int = 2) -> float:
    """A bound on |torch's result - ours| given bounds on the operands' (first order, plus a
    unit in the last place for rounding a different result, ``ulps`` for pow's own error)."""
    if not isinstance(v, float):
        if dx or dy:
            raise Undecidable("integer arithmetic on values torch may compute differently")
        return 0.0
    if op in ("add", "sub"):
        bound = dx + dy
    elif op == "mul":
        bound = dx * abs(y) + dy * abs(x) + dx * dy
    elif op == "div":
        if abs(y) <= dy:
            raise Undecidable("a division by a value that may be zero")
        bound = (dx + abs(x / y) * dy) / (abs(y) - dy)
    elif op == "pow":
        # torch's pow is within a unit in the last place of the true value; ours may round the other way.
        if x <= 0 and (dx or dy):
            raise Undecidable("a power of a value that may not be positive")
        bound = ulps * _last_place(v, dtype)
        if dx:
            bound += abs(v * y / x) * dx
        if dy:
            bound += abs(v * math.log(x)) * dy
    else:
        raise Undecidable(f"`{op}` of values torch may compute differently")
    return bound + _last_place(v, dtype) if bound else bound


# Elementwise functions of one tensor.
_UNARY: dict[str, Callable[[float], float]] = {
    "log": math.log, "log2": math.log2, "log10": math.log10, "exp": math.exp, "sqrt": math.sqrt,
    "neg": operator.neg, "abs": abs,
}
_ROUNDING: dict[str, Callable[[float], float]] = {
    "round": lambda x: float(round(x)), "floor": lambda x: float(math.floor(x)),
    "ceil": lambda x: float(math.ceil(x)), "trunc": lambda x: float(math.trunc(x)),
}
UNARY_FUNCTIONS = frozenset(_UNARY) | frozenset(_ROUNDING)


# numpy's float64 log / exp / power (its own vectorised routines on some machines) are taken to
# be within this many units in the last place (as for numpy's scalars, interp._numpy_float).
NUMPY_ULPS = 8


def unary(fn: str, t: Values, numpy: bool = False) -> Values:
    """``torch.<fn>(t)`` (log, exp, sqrt, round, ...): floats stay in their dtype, integers become
    float32 (log of an int64 tensor) or stay integers (round, abs). ``numpy``: ``np.<fn>(a)`` of an
    array, whose integers become float64."""
    if fn in _ROUNDING:
        if t.dtype in INT_DTYPES:
            return t
        rounded = tuple(decided(_ROUNDING[fn], x, e) for x, e in zip(t.items, t.errors or (0.0,) * len(t.items)))
        return Values(rounded, t.dtype)
    f = _UNARY[fn]
    if t.dtype in INT_DTYPES and fn in ("neg", "abs"):
        return Values(tuple(f(x) for x in t.items), t.dtype)
    dtype = t.dtype if t.dtype in FLOAT_DTYPES else "float64" if numpy else "float32"
    items, errors = [], []
    for x, e in zip(cast_values(t, dtype).items, t.errors or (0.0,) * len(t.items)):
        try:
            v = f(x)
        except (ValueError, OverflowError):
            raise Undecidable(f"`{fn}` of {x} is not computed")
        v = f32(v) if dtype == "float32" else v
        items.append(v)
        if fn in ("neg", "abs"):
            errors.append(e)
        else:  # log / exp / sqrt: torch's kernels are within a unit in the last place; ours may round the other way
            if fn == "sqrt":
                if x - e < 0 or (e and x - e == 0):
                    raise Undecidable("the square root of a value that may be negative")
                slope = 1 / (2 * math.sqrt(x - e)) if e else 0.0
            elif fn.startswith("log"):
                if x - e <= 0:
                    raise Undecidable(f"`{fn}` of a value that may not be positive")
                slope = 1 / ((x - e) * (1.0 if fn == "log" else math.log(2 if fn == "log2" else 10)))
            else:
                slope = math.exp(x + e)
            errors.append(e * slope + (NUMPY_ULPS if numpy else 2) * _last_place(v, dtype))
    return Values(tuple(items), dtype, tuple(errors) if any(errors) else None)


def decided(rounding: Callable[[float], float], x: float, error: float) -> float:
    """``rounding(x)`` where torch's x may lie anywhere within ``error`` of ours: the same result
    over that whole interval, else Undecidable."""
    if not math.isfinite(x):
        raise Undecidable(f"{x} cannot be rounded")
    v = rounding(x)
    if error and (rounding(x - error) != v or rounding(x + error) != v):
        raise Undecidable(f"{x!r} is within the rounding error of a rounding boundary: the value torch or numpy "
                          f"computes could round either way")
    return v


def cast_values(t: Values, dtype: str) -> Values:
    """``t.to(dtype)`` (``.int()``, ``.float()``): floats to integers truncate, decided where the
    values carry an error bound."""
    if dtype == t.dtype:
        return t
    if dtype in INT_DTYPES and t.dtype in FLOAT_DTYPES:
        items = tuple(cast_number(decided(lambda x: float(math.trunc(x)), x, e), dtype)
                      for x, e in zip(t.items, t.errors or (0.0,) * len(t.items)))
        return Values(items, dtype)
    items = tuple(cast_number(x, dtype) for x in t.items)
    errors = None
    if t.errors is not None:
        errors = tuple(e + (_last_place(v, dtype) if dtype == "float32" else 0.0) for e, v in zip(t.errors, items))
    return Values(items, dtype, errors)


def exact_items(t: Values, what: str) -> tuple[Any, ...]:
    """The values as Python numbers, for code that reads them (``.tolist()``, a loop, an index):
    only when exact."""
    if t.errors is not None:
        raise Undecidable(f"{what} reads values computed with torch's float32 log / exp / pow, whose last "
                          f"bits the analyser does not reproduce")
    return t.items


def unique(t: Values) -> tuple[Values, Values]:
    """``torch.unique(t, return_counts=True)``: the sorted distinct values and how often each occurs."""
    items = exact_items(t, "torch.unique")
    distinct = sorted(set(items))
    return Values(tuple(distinct), t.dtype), Values(tuple(items.count(v) for v in distinct), "int64")


def reduce(fn: str, t: Values) -> Values:
    """``t.max()`` / ``t.min()`` / ``t.sum()`` of a 1-D tensor: a 0-d one (max and min keep the bound)."""
    if not t.items:
        raise Undecidable(f"`{fn}` of an empty tensor (torch raises)")
    if fn in ("max", "min"):
        pick = max if fn == "max" else min
        index = t.items.index(pick(t.items))
        return Values((t.items[index],), t.dtype, (max(t.errors),) if t.errors is not None else None)
    items = exact_items(t, f"`{fn}`")
    if fn == "prod":  # cleanrl's `np.array(obs_shape).prod()`: exact for integers
        if t.dtype not in INT_DTYPES:
            raise Undecidable("a product of floats is not computed")
        return Values((math.prod(items),), "int64")
    if fn == "sum":
        dtype = t.dtype if t.dtype in FLOAT_DTYPES else "int64"
        if dtype == "float32":
            # Whole numbers whose magnitudes add up to at most 2**24 sum exactly in any order (EDM's
            # resample filter [1, 3, 3, 1]); other float32 sums depend on torch's order of addition.
            if all(float(x).is_integer() for x in items) and sum(abs(x) for x in items) <= 2**24:
                return Values((float(sum(items)),), dtype)
            raise Undecidable("a float32 sum depends on torch's order of addition")
        return Values((sum(items),), dtype)
    raise Undecidable(f"`{fn}` is not computed")


def cumsum(t: Values) -> Values:
    """``t.cumsum(0)`` of integers (int64, as torch sums them; floats are accumulated in a wider
    type than they are stored in, which is not reproduced)."""
    if t.dtype not in INT_DTYPES:
        raise Undecidable("a cumulative sum of floats depends on how torch accumulates it")
    out, total = [], 0
    for x in t.items:
        total += x
        _check_range(total, "int64")
        out.append(total)
    return Values(tuple(out), "int64")  # torch sums integers into int64


def diff(t: Values) -> Values:
    """``torch.diff(t)``: each value minus the one before."""
    return binary("sub", Values(t.items[1:], t.dtype, t.errors[1:] if t.errors else None), 1,
                  Values(t.items[:-1], t.dtype, t.errors[:-1] if t.errors else None), 1) if len(t.items) > 1 else \
        Values((), t.dtype)
