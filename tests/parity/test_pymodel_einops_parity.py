"""Parity: the shapes the analyser gives einops' rearrange / repeat / reduce (a buffer or a
parameter made in a constructor: mamba's ``repeat(torch.arange(1, n + 1), "n -> d n", d=d)``)
equal what einops gives the same tensor, and a pattern einops rejects is rejected. Random
patterns: axes grouped and split, permuted, new axes repeated, axes reduced, ``...``, ``1``."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel import shapes

torch = pytest.importorskip("torch")
einops = pytest.importorskip("einops")
pytestmark = pytest.mark.parity

NAMES = "abcdef"


def _side(groups: list[list[str]]) -> str:
    return " ".join(g[0] if len(g) == 1 and g[0] != "1" else f"({' '.join(g)})" if g != ["1"] else "1" for g in groups)


def _grouped(draw, axes: list[str]) -> list[list[str]]:
    groups, i = [], 0
    while i < len(axes):
        width = draw(st.integers(1, min(2, len(axes) - i)))
        groups.append(axes[i:i + width])
        i += width
    return groups


@st.composite
def cases(draw):
    operation = draw(st.sampled_from(["rearrange", "repeat", "reduce"]))
    n = draw(st.integers(1, 4))
    axes = list(NAMES[:n])
    sizes = {a: draw(st.integers(1, 4)) for a in axes}
    left = _grouped(draw, axes)
    ellipsis = draw(st.booleans())
    extra = tuple(draw(st.lists(st.integers(1, 3), max_size=2))) if ellipsis else ()
    shape = extra + tuple(__import__("math").prod(sizes[a] for a in g) for g in left)
    lengths = {}
    for g in left:  # every axis of a group but one needs its length (sometimes all, sometimes a wrong one)
        for a in g[:-1] if len(g) > 1 and not draw(st.booleans()) else (g if len(g) > 1 else []):
            lengths[a] = sizes[a] + (1 if draw(st.integers(0, 9)) == 0 else 0)
    kept = list(draw(st.permutations(axes)))
    if operation == "reduce":
        kept = [a for a in kept if draw(st.booleans())]
    if operation == "repeat":
        kept.insert(draw(st.integers(0, len(kept))), "r")
        lengths["r"] = draw(st.integers(1, 3))
    right = _grouped(draw, kept) if kept else []
    if draw(st.booleans()):
        right.insert(draw(st.integers(0, len(right))), ["1"])
    if draw(st.integers(0, 9)) == 0 and operation == "rearrange" and n > 1:
        right = right[1:]  # an axis dropped in a rearrange: einops' error
    pattern = (("... " if ellipsis else "") + _side(left) + " -> " + ("... " if ellipsis else "") + _side(right))
    return operation, shape, pattern, lengths


@settings(max_examples=400, deadline=None, derandomize=True)
@given(cases())
def test_einops_shapes_equal_einops(case) -> None:
    operation, shape, pattern, lengths = case
    tensor = torch.empty(shape, device="meta")
    extra = ("sum",) if operation == "reduce" else ()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = tuple(getattr(einops, operation)(tensor, pattern, *extra, **lengths).shape)
    except einops.EinopsError:
        theirs = None
    try:
        ours = shapes.einops_shape(operation, shape, pattern, lengths)
    except shapes.ShapeError:
        ours = None
    assert ours == theirs, (operation, shape, pattern, lengths)
