"""Parity on random model files: hypothesis writes a model file in the styles transformers uses
(a config that a base makes a dataclass, with __post_init__, attribute_map hooks and a property
setter; a layer that extends a torch layer in one of three ways; a dict-subclass activation
table; blocks in a ModuleList), and the static count of every class must equal torch's count of
the same class built on the meta device. The file is run here, in the test; the analyser only
reads it."""

from __future__ import annotations

import ast
import pathlib
import sys
import textwrap
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# Each torch layer a subclass may extend: its constructor's arguments, from (width in, width out).
LAYERS = {
    "Linear": "{a}, {b}, bias={bias}",
    "LayerNorm": "{b}, elementwise_affine={bias}",
    "Conv1d": "{a}, {b}, kernel_size=3, bias={bias}",
    "Embedding": "{a}, {b}",
}

BASE = '''
import dataclasses
from collections import OrderedDict
from typing import dataclass_transform

import torch
import torch.nn as nn


@dataclass_transform(kw_only_default=True)
@dataclasses.dataclass
class BaseConfig:
    attribute_map = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(cls, kw_only=True)
'''

def _hook_methods() -> str:
    """BaseConfig's attribute_map hooks (__setattr__, __getattribute__), as the corpus file
    tests/fixtures/pymodels/subclassing.py writes them."""
    text = (pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels" / "subclassing.py").read_text()
    base = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "BaseConfig")
    return "".join("\n    " + ast.get_source_segment(text, f) + "\n" for f in base.body
                   if isinstance(f, ast.FunctionDef) and f.name in ("__setattr__", "__getattribute__"))


HOOKS = _hook_methods()


@st.composite
def model_files(draw) -> str:
    hidden, depth, mult = draw(st.integers(1, 48)), draw(st.integers(0, 3)), draw(st.integers(1, 4))
    layer = draw(st.sampled_from(sorted(LAYERS)))
    style = draw(st.sampled_from(["no_init", "super_init", "named_init"]))
    bias, hooks, post_init, setter = (draw(st.booleans()) for _ in range(4))
    act = draw(st.sampled_from(["prelu", "gelu", "prelu3"]))
    alias = draw(st.integers(1, 32))
    text = BASE + (HOOKS if hooks else "")
    text += textwrap.dedent(f'''

        class Config(BaseConfig):
            attribute_map = {{"width": "hidden"}} if {hooks} else {{}}
            width: int = {alias}
            hidden: int = {hidden}
            inner: int | None = None
            depth: int = {depth}
        ''')
    if post_init:
        text += textwrap.indent(textwrap.dedent(f'''
            def __post_init__(self):
                if self.inner is None:
                    self.inner = self.hidden * {mult}
            '''), "    ")
    if setter:
        text += textwrap.indent(textwrap.dedent('''
            @property
            def scale(self):
                return self.__dict__.get("_scale", 1)

            @scale.setter
            def scale(self, value):
                self._scale = 2 * value
            '''), "    ")
    args = LAYERS[layer].format(a="a", b="b", bias=bias)
    if style == "no_init":
        text += f"\n\nclass Layer(nn.{layer}):\n    def forward(self, x):\n        return super().forward(x)\n"
        make = f"Layer({LAYERS[layer].format(a='a', b='b', bias=bias)})"
    else:
        call = f"super().__init__({args})" if style == "super_init" else f"nn.{layer}.__init__(self, {args})"
        text += textwrap.dedent(f'''

            class Layer(nn.{layer}):
                def __init__(self, a=4, b=4):
                    {call}
                    self.extra = nn.Parameter(torch.zeros(b))
            ''')
        make = "Layer(a, b)"
    text += textwrap.dedent(f'''

        class ClassInstantier(OrderedDict):
            def __getitem__(self, key):
                content = super().__getitem__(key)
                cls, kwargs = content if isinstance(content, tuple) else (content, {{}})
                return cls(**kwargs)


        ACT2FN = ClassInstantier({{"prelu": nn.PReLU, "prelu3": (nn.PReLU, {{"num_parameters": 3}}), "gelu": nn.GELU}})


        def make_layer(a, b):
            return {make}


        class Model(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                if {setter}:
                    config.scale = 3
                a, b = config.width + 1, (config.inner or config.hidden) * getattr(config, "scale", 1)
                self.blocks = nn.ModuleList(make_layer(a, b) for _ in range(config.depth))
                self.act = ACT2FN["{act}"]
                self.head = nn.Linear(config.hidden, 2, bias={bias})
        ''')
    return text


def _torch_count(text: str) -> int:
    module = types.ModuleType("random_model")
    sys.modules["random_model"] = module  # dataclasses look their module up
    try:
        exec(compile(text, "random_model.py", "exec"), module.__dict__)  # noqa: S102 - the test's own generated file
        with torch.device("meta"):
            model = module.Model(module.Config())
        return sum(p.numel() for p in model.parameters())
    finally:
        del sys.modules["random_model"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model_files())
def test_random_model_files_count_as_torch_builds_them(text: str) -> None:
    report = analyze_text(text, "random_model.py")
    counted = {m.name: m.tree.total for m in report.models}
    assert "Model" in counted, [p.message for p in report.problems]
    assert counted["Model"] == _torch_count(text)
