"""The tensor shapes the analyser computes (pymodel/shapes.py) against torch's, on random shapes
and arguments: the same shape, or ShapeError exactly where torch raises. The examples are
derandomized, so that CI is repeatable (drop ``derandomize`` to explore more)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel import shapes

torch = pytest.importorskip("torch")

sizes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)
small = st.integers(-5, 5)
index_items = st.one_of(st.integers(-5, 5), st.none(), st.just(Ellipsis),
                        st.builds(slice, st.none() | small, st.none() | small, st.none() | st.integers(1, 3)))


def _torch(shape, fn):
    try:
        return tuple(fn(torch.empty(shape, device="meta")).shape)
    except (RuntimeError, IndexError, ValueError, TypeError):
        return "raises"


def _ours(fn):
    try:
        return fn()
    except shapes.ShapeError:
        return "raises"


def _agree(shape, theirs, ours):
    want, got = _torch(shape, theirs), _ours(ours)
    assert got == want or got is None, (shape, got, want)  # None: the analyser says it does not know


@settings(max_examples=400, deadline=None, derandomize=True)
@given(shape=sizes, key=st.lists(index_items, min_size=1, max_size=4).map(tuple))
def test_indexing(shape, key):
    _agree(shape, lambda t: t[key], lambda: shapes.index_shape(shape, key))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(shape=sizes, new=st.lists(st.integers(-1, 6), min_size=0, max_size=4).map(tuple))
def test_view_and_reshape(shape, new):
    _agree(shape, lambda t: t.reshape(new), lambda: shapes.view_shape(shape, (new,)))
    if new:
        _agree(shape, lambda t: t.view(*new), lambda: shapes.view_shape(shape, new))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(shape=sizes, new=st.lists(st.integers(-1, 4).filter(bool), min_size=0, max_size=5).map(tuple))
def test_expand(shape, new):  # (torch on the meta device lets a 0 size carry a leading -1 through)
    _agree(shape, lambda t: t.expand(*new), lambda: shapes.expand_shape(shape, new))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(shape=sizes, reps=st.lists(st.integers(0, 3), min_size=0, max_size=5).map(tuple))
def test_repeat(shape, reps):
    _agree(shape, lambda t: t.repeat(*reps), lambda: shapes.repeat_shape(shape, reps))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(shape=sizes, a=small, b=small, dims=st.permutations(range(4)))
def test_unsqueeze_transpose_permute_flatten(shape, a, b, dims):
    _agree(shape, lambda t: t.unsqueeze(a), lambda: shapes.unsqueeze_shape(shape, a))
    _agree(shape, lambda t: t.transpose(a, b), lambda: shapes.transpose_shape(shape, a, b))
    order = tuple(d for d in dims if d < len(shape))
    _agree(shape, lambda t: t.permute(*order), lambda: shapes.permute_shape(shape, order))
    _agree(shape, lambda t: t.flatten(a, b), lambda: shapes.flatten_shape(shape, a, b))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(a=sizes, b=sizes)
def test_broadcast_and_matmul(a, b):
    _agree(a, lambda t: t + torch.empty(b, device="meta"), lambda: shapes.broadcast_shape(a, b))
    _agree(a, lambda t: t @ torch.empty(b, device="meta"), lambda: shapes.matmul_shape(a, b))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(shape=sizes)
def test_t(shape):
    _agree(shape, lambda t: t.t(), lambda: shapes.t_shape(shape))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(parts=st.lists(sizes, min_size=0, max_size=3), dim=st.integers(-4, 4), same=st.booleans())
def test_cat_and_stack(parts, dim, same):
    if same and parts:  # mostly shapes that fit, else torch only raises
        parts = [parts[0]] * len(parts)
    tensors = lambda: [torch.empty(p, device="meta") for p in parts]  # noqa: E731
    _agree((), lambda _: torch.cat(tensors(), dim), lambda: shapes.cat_shape(parts, dim))
    _agree((), lambda _: torch.stack(tensors(), dim), lambda: shapes.stack_shape(parts, dim))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(a=sizes, b=sizes, dim=st.integers(-3, 3))
def test_cat_of_two_shapes_that_differ_along_one_dimension(a, b, dim):
    if a and len(a) == len(b):
        b = tuple(x if i == dim % len(a) else y for i, (x, y) in enumerate(zip(b, a)))
    _agree((), lambda _: torch.cat([torch.empty(a, device="meta"), torch.empty(b, device="meta")], dim),
           lambda: shapes.cat_shape([a, b], dim))


@pytest.mark.parametrize("parts", [[(0,), (2, 3)], [(0,), (0,)], [(0,), (3,)], [(2, 0), (2, 3)], [(0, 2), (1, 2)]])
def test_cat_leaves_out_empty_1d_tensors_as_torch_does(parts):
    _agree((), lambda _: torch.cat([torch.empty(p, device="meta") for p in parts]), lambda: shapes.cat_shape(parts, 0))


@pytest.mark.parametrize("equation, operands", [
    ("...,f->...f", [(3, 4), (5,)]), ("...ij,...jk->...ik", [(2, 3, 4), (1, 4, 5)]), ("i...->...", [(3, 4, 5)]),
    ("...ii->...i", [(2, 3, 3)]), ("bn...,bn->b...", [(2, 3, 4, 5), (2, 3)]), ("...", [(2, 3)]),
    ("i,...->i...", [(3,), (4, 5)]), ("a...b", [(2, 3, 4)]), ("...i,...i->...", [(5, 1, 3), (4, 3)]),
])
def test_einsum_with_an_ellipsis_is_torch_s(equation: str, operands: list[tuple[int, ...]]) -> None:
    torch = pytest.importorskip("torch")
    expected = tuple(torch.einsum(equation, *[torch.zeros(s) for s in operands]).shape)
    assert shapes.einsum_shape(equation, operands) == expected
