"""``packaging.version.parse`` in a model file (peft's ``is_transformers_ge_v5 = parse(v) >=
parse("5.0.0.dev0")``): versions with pre-, post-, dev and local parts are ordered, printed and
read as packaging does them, for random versions, and a file comparing them counts as Python runs it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel.values import packaging_version
from tests.parity.meta_count import file_class_counts

version = pytest.importorskip("packaging.version")

SEPARATOR = st.sampled_from(["", ".", "-", "_"])
NUMBER = st.one_of(st.just(""), st.integers(0, 12).map(str))


@st.composite
def versions(draw) -> str:
    text = draw(st.sampled_from(["", "v"])) + ".".join(map(str, draw(st.lists(st.integers(0, 12), min_size=1, max_size=4))))
    if draw(st.booleans()):
        text += draw(SEPARATOR) + draw(st.sampled_from(["a", "b", "rc", "c", "alpha", "beta", "pre", "preview"])) + \
            draw(SEPARATOR) + draw(NUMBER)
    post = draw(st.sampled_from(["", "post", "rev", "r", "dash"]))
    if post == "dash":
        text += f"-{draw(st.integers(0, 12))}"
    elif post:
        text += draw(SEPARATOR) + post + draw(SEPARATOR) + draw(NUMBER)
    if draw(st.booleans()):
        text += draw(SEPARATOR) + "dev" + draw(SEPARATOR) + draw(NUMBER)
    if draw(st.booleans()):
        text += "+" + draw(st.sampled_from(["cu121", "local.7", "abc-5", "A_b.3", "7"]))
    return text


ATTRIBUTES = ("release", "base_version", "public", "major", "minor", "micro", "is_prerelease", "is_postrelease",
              "is_devrelease", "pre", "post", "dev", "local")


@settings(max_examples=300, deadline=None)
@given(versions(), versions())
def test_versions_are_ordered_and_read_as_packaging_does(a: str, b: str) -> None:
    try:
        pa, pb = version.Version(a), version.Version(b)
    except version.InvalidVersion:
        assert packaging_version(a) is None or packaging_version(b) is None
        return
    ours_a, ours_b = packaging_version(a), packaging_version(b)
    assert ours_a is not None and ours_b is not None, (a, b)
    assert (ours_a < ours_b, ours_a == ours_b, ours_a > ours_b) == (pa < pb, pa == pb, pa > pb), (a, b)
    assert str(ours_a) == str(pa)
    assert {n: getattr(ours_a, n) for n in ATTRIBUTES} == {n: getattr(pa, n) for n in ATTRIBUTES}, a


@pytest.mark.parametrize("condition", [
    'version.parse("5.24.0") >= version.parse("5.0.0.dev0")',
    'version.parse("5.0.0rc1") < version.parse("5.0.0")',
    'version.parse("2.4.0a0").is_prerelease',
    'version.parse("1.0.post2") > version.parse("1.0")',
    'version.parse("2.1+cu121").local == "cu121"',
    'str(version.parse("v1.0alpha2")) == "1.0a2"',
    'version.Version("0.21.2").dev is None',
])
def test_a_file_comparing_versions_counts_as_python_runs_it(condition: str) -> None:
    text = f'''
import torch.nn as nn
from packaging import version


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, 3 if {condition} else 5)
'''
    want, got, messages = file_class_counts(text, "model.py", "M")
    assert want is not None and got == want, messages
