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


@st.composite
def einmix_cases(draw):
    """An EinMix layer: input axes (some grouped), output axes (some kept, new ones from the weight,
    some grouped, `...` on both sides or neither), weight and bias axes, and their lengths (now and
    then one missing or one too many, which einops rejects)."""
    axes = list(NAMES[:draw(st.integers(1, 4))])
    new = [f"n{i}" for i in range(draw(st.integers(0, 2)))]
    kept = [a for a in axes if draw(st.booleans())]
    right = list(draw(st.permutations(kept + new)))
    weight = [a for a in axes + new if (a in new or draw(st.booleans()))]
    bias = [a for a in right if draw(st.booleans())] if draw(st.booleans()) else None
    lengths = {a: draw(st.integers(1, 5)) for a in axes + new if a in weight or (bias and a in bias)}
    for a in axes:  # the lengths of a grouped input axis are given too
        lengths.setdefault(a, draw(st.integers(1, 5))) if draw(st.integers(0, 3)) == 0 else None
    if draw(st.integers(0, 9)) == 0 and lengths:
        lengths.pop(draw(st.sampled_from(sorted(lengths))))
    ellipsis = "... " if draw(st.booleans()) else ""
    pattern = f"{ellipsis}{_side(_grouped(draw, axes))} -> {ellipsis}{_side(_grouped(draw, right)) if right else ''}"
    return pattern, " ".join(weight), None if bias is None else " ".join(bias), lengths


@settings(max_examples=300, deadline=None, derandomize=True)
@given(einmix_cases())
def test_einmix_parameters_equal_einops(case) -> None:
    from einops.layers.torch import EinMix

    from lsp_count.core.analyze import analyze_text

    pattern, weight, bias, lengths = case
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = EinMix(pattern, weight_shape=weight, bias_shape=bias, **lengths)
        theirs = sum(p.numel() for p in layer.parameters())
    except einops.EinopsError:
        theirs = None
    source = ("import torch.nn as nn\nfrom einops.layers.torch import EinMix\n\n\nclass Mix(nn.Module):\n"
              "    def __init__(self):\n        super().__init__()\n"
              f"        self.mix = EinMix({pattern!r}, weight_shape={weight!r}, bias_shape={bias!r}, **{lengths!r})\n")
    report = analyze_text(source, "mix.py")
    ours = report.models[0].tree.total if report.models else None
    assert ours == theirs, (case, [p.message for p in report.problems])
