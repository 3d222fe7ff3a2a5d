"""Parity: the values of small tensors the analyser computes (tensor_values.py) against torch's on
the CPU, for random tensors and chains of operations. Where the analyser keeps an error bound
(after log, exp, sqrt, pow), torch's value lies within it; where it has none, the values are equal;
a rounding it decides (round, floor, int()) gives torch's result."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel import tensor_values as tv

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_OPS = ["add", "sub", "mul", "div", "rdiv", "pow_base", "log", "exp", "sqrt", "round", "floor", "ceil", "int", "float"]


def _torch_step(t, op: str, scalar):
    if op == "add":
        return t + scalar
    if op == "sub":
        return t - scalar
    if op == "mul":
        return t * scalar
    if op == "div":
        return torch.divide(t, scalar)
    if op == "rdiv":
        return scalar / t
    if op == "pow_base":
        return torch.pow(scalar, t)
    if op == "int":
        return t.int()
    if op == "float":
        return t.float()
    return getattr(torch, op)(t)


def _our_step(v: tv.Values, op: str, scalar) -> tv.Values:
    if op in ("add", "sub", "mul", "div"):
        return tv.binary(op, v, 1, scalar, 0)
    if op == "rdiv":
        return tv.binary("rdiv", scalar, 0, v, 1)
    if op == "pow_base":
        return tv.binary("pow", scalar, 0, v, 1)
    if op in ("int", "float"):
        return tv.cast_values(v, "int32" if op == "int" else "float32")
    return tv.unary(op, v)


def _within(ours: tv.Values, theirs) -> None:
    assert str(theirs.dtype).replace("torch.", "") == ours.dtype
    for i, (a, b) in enumerate(zip(ours.items, theirs.tolist())):
        bound = ours.errors[i] if ours.errors is not None else 0.0
        if isinstance(b, float) and math.isnan(b):
            assert isinstance(a, float) and math.isnan(a)
        else:
            assert a == b or abs(a - b) <= bound, (a, b, bound)


def _random_items(data, ints: bool) -> list:
    """1 to 24 positive numbers, integers or floats."""
    n = data.draw(st.integers(1, 24))
    numbers = st.integers(1, 400) if ints else st.floats(0.05, 400.0)
    return data.draw(st.lists(numbers, min_size=n, max_size=n))


@settings(max_examples=400, deadline=None)
@given(ints=st.booleans(), data=st.data(),
       ops=st.lists(st.tuples(st.sampled_from(_OPS), st.one_of(st.integers(1, 16), st.floats(0.5, 40.0))),
                    min_size=1, max_size=5))
def test_chains_of_operations_match_torch_within_the_bound(ints: bool, data, ops) -> None:
    items = _random_items(data, ints)
    t = torch.tensor(items, dtype=None if ints else torch.float32)
    ours = tv.Values(tuple(t.tolist()), "int64" if ints else "float32")
    for op, scalar in ops:
        try:
            nxt = _our_step(ours, op, scalar)
        except tv.Undecidable:
            return  # the analyser says it cannot reproduce torch here: nothing to compare
        t = _torch_step(t, op, scalar)
        ours = nxt
        _within(ours, t)
        if not all(math.isfinite(x) and abs(x) < 1e30 for x in ours.items):
            return


@settings(max_examples=300, deadline=None)
@given(w0=st.sampled_from([8, 16, 24, 32, 48, 56, 64, 80, 96, 128, 168, 232]), wa=st.floats(4.0, 250.0),
       wm=st.floats(1.5, 3.0), depth=st.integers(1, 40))
def test_regnet_widths_are_torchs_or_refused(w0: int, wa: float, wm: float, depth: int) -> None:
    """torchvision's RegNet width rule, which decides the model's sizes."""
    widths_cont = torch.arange(depth) * wa + w0
    capacity = torch.round(torch.log(widths_cont / w0) / math.log(wm))
    theirs = (torch.round(torch.divide(w0 * torch.pow(wm, capacity), 8)) * 8).int().tolist()
    try:
        v = tv.binary("add", tv.binary("mul", tv.Values(tuple(range(depth)), "int64"), 1, wa, 0), 1, w0, 0)
        cap = tv.unary("round", tv.binary("div", tv.unary("log", tv.binary("div", v, 1, w0, 0)), 1, math.log(wm), 0))
        widths = tv.binary("mul", tv.unary("round", tv.binary("div", tv.binary("mul", w0, 0, tv.binary(
            "pow", wm, 0, cap, 1), 1), 1, 8, 0)), 1, 8, 0)
        ours = tv.exact_items(tv.cast_values(widths, "int32"), "widths")
    except tv.Undecidable:
        return
    assert list(ours) == theirs


@settings(max_examples=300, deadline=None)
@given(mantissa=st.integers(1, 255), exponent=st.integers(-6, 6), divisor=st.sampled_from([1, 3, 5, 7]),
       powers=st.lists(st.integers(0, 12), min_size=1, max_size=20))
def test_torch_returns_exactly_representable_powers_exactly(mantissa: int, exponent: int, divisor: int,
                                                           powers: list[int]) -> None:
    """The assumption tensor_values._exact_power makes of torch's pow kernel."""
    base = tv.f32(mantissa * 2.0 ** exponent / divisor)
    theirs = torch.pow(base, torch.tensor(powers, dtype=torch.float32)).tolist()
    ours = tv.binary("pow", base, 0, tv.Values(tuple(float(k) for k in powers), "float32"), 1)
    for k, value, a, bound in zip(powers, theirs, ours.items, ours.errors or (0.0,) * len(powers)):
        if not math.isfinite(value):
            assert a == value  # past float32's range
        elif Fraction(tv.f32(float(Fraction(base) ** k))) == Fraction(base) ** k:
            assert value == a and bound == 0.0
        else:
            assert abs(value - a) <= bound


def test_type_promotion_is_torchs() -> None:
    cases = [(torch.tensor([1, 2]), 2.5), (torch.tensor([1, 2]), 3), (torch.tensor([1.0, 2.0]), 3),
             (torch.tensor([1, 2], dtype=torch.int32), 3), (torch.tensor([1, 2], dtype=torch.int32), torch.tensor(3)),
             (torch.tensor([1, 2], dtype=torch.int32), torch.tensor(3.0, dtype=torch.float64)),
             (torch.tensor([1.0], dtype=torch.float64), 2.0), (torch.tensor([1, 2], dtype=torch.uint8), 3)]
    for t, other in cases:
        a = tv.Values(tuple(t.tolist()), str(t.dtype)[6:])
        b = tv.Values((other.item(),), str(other.dtype)[6:]) if isinstance(other, torch.Tensor) else other
        for op, theirs in (("add", t + other), ("mul", t * other), ("div", t / other)):
            ours = tv.binary(op, a, 1, b, 0)
            assert ours.dtype == str(theirs.dtype)[6:], (t.dtype, other, op)
            assert list(ours.items) == theirs.tolist()
    for left, right in [(torch.int32, torch.int64), (torch.int64, torch.int16), (torch.uint8, torch.int8),
                        (torch.float32, torch.float64), (torch.int64, torch.float32)]:
        t, u = torch.tensor([3, 4], dtype=left), torch.tensor([5, 6], dtype=right)
        ours = tv.binary("add", tv.Values(tuple(t.tolist()), str(left)[6:]), 1, tv.Values(tuple(u.tolist()), str(right)[6:]), 1)
        assert ours.dtype == str((t + u).dtype)[6:], (left, right)


@settings(max_examples=100, deadline=None)
@given(items=st.lists(st.integers(-1000, 1000), min_size=1, max_size=30),
       dtype=st.sampled_from(["int64", "int32", "uint8"]))
def test_unique_diff_and_cumsum_of_integers_are_torchs(items: list[int], dtype: str) -> None:
    if dtype == "uint8":
        items = [abs(x) % 256 for x in items]
    t = torch.tensor(items, dtype=getattr(torch, dtype))
    v = tv.Values(tuple(items), dtype)
    distinct, counts = tv.unique(v)
    theirs, their_counts = torch.unique(t, return_counts=True)
    assert (list(distinct.items), list(counts.items)) == (theirs.tolist(), their_counts.tolist())
    assert list(tv.cumsum(v).items) == t.cumsum(0).tolist() and tv.cumsum(v).dtype == str(t.cumsum(0).dtype)[6:]
    if len(items) > 1 and dtype != "uint8":  # uint8 differences wrap around in torch
        assert list(tv.diff(v).items) == torch.diff(t).tolist()


def _numpy_step(np, a, op: str, scalar):
    if op in ("add", "sub", "mul"):
        return {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, scalar)
    if op == "div":
        return a / scalar
    if op == "rdiv":
        return scalar / a
    if op == "pow_base":
        return np.power(scalar, a)
    if op in ("int", "float"):
        return a.astype(np.int32 if op == "int" else np.float64)
    return getattr(np, op)(a)


@settings(max_examples=400, deadline=None)
@given(ints=st.booleans(), data=st.data(),
       ops=st.lists(st.tuples(st.sampled_from(_OPS), st.one_of(st.integers(1, 16), st.floats(0.5, 40.0))),
                    min_size=1, max_size=5))
def test_chains_of_numpy_operations_match_numpy_within_the_bound(ints: bool, data, ops) -> None:
    """The same for numpy's arrays: numpy's promotion (an integer array times a float is float64)
    and numpy's own log / exp / power, within tensor_values.NUMPY_ULPS."""
    np = pytest.importorskip("numpy")
    items = _random_items(data, ints)
    a = np.array(items)
    ours = tv.Values(tuple(items), "int64" if ints else "float64")
    for op, scalar in ops:
        try:
            if op in ("add", "sub", "mul", "div"):
                nxt = tv.binary(op, ours, 1, scalar, 0, True)
            elif op == "rdiv":
                nxt = tv.binary("rdiv", scalar, 0, ours, 1, True)
            elif op == "pow_base":
                nxt = tv.binary("pow", scalar, 0, ours, 1, True)
            elif op in ("int", "float"):
                nxt = tv.cast_values(ours, "int32" if op == "int" else "float64")
            else:
                nxt = tv.unary(op, ours, True)
        except tv.Undecidable:
            return
        with np.errstate(all="ignore"):
            a = _numpy_step(np, a, op, scalar)
        ours = nxt
        _within(ours, a)
        if not all(math.isfinite(x) and abs(x) < 1e30 for x in ours.items):
            return


@settings(max_examples=400, deadline=None)
@given(start=st.one_of(st.integers(-50, 50), st.floats(-100, 100)), stop=st.one_of(st.integers(-50, 50), st.floats(-100, 100)),
       num=st.integers(0, 30), endpoint=st.booleans())
def test_numpy_linspace_values_are_numpys(start, stop, num: int, endpoint: bool) -> None:
    np = pytest.importorskip("numpy")
    from lsp_count.pymodel.interp import _numpy_linspace

    assert _numpy_linspace(start, stop, num, endpoint) == tuple(float(x) for x in np.linspace(start, stop, num,
                                                                                              endpoint=endpoint))
