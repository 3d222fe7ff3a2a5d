"""Parity on random hierarchies of module classes: hypothesis writes a base module and subclasses
of it (and of each other) that override class attributes, a factory method the base's
constructor calls (the template-method style of ResNet's `_make_layer` and timm's blocks), a
property, and the constructor itself, with `super().__init__(...)`, an explicit
`Base.__init__(self, ...)` or none; a mixin that is a plain class; `type(self)` and
`isinstance(self, ...)` in a constructor; classmethod and staticmethod factories; a cooperative
module mixin passing its arguments along the MRO; `__init_subclass__` with a class keyword; a
class decorator; a property with a setter; `super(Cls, self)`; a layer class held as a class
attribute; bases that admit no MRO, which Python refuses (TypeError). The static
count of every class, total and trainable, must be torch's count of the same class built on the
meta device. The file is run here, in the test; the analyser only reads it."""

from __future__ import annotations

import ast
import sys
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

HEADER = '''
import torch
import torch.nn as nn


class Sizes:
    """A mixin that is not a module: a size its users read."""
    scale = 2

    def widen(self, n):
        return n * self.scale


class Extra(nn.Module):
    """A cooperative module mixin: passes its arguments on along the MRO."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.extra_norm = nn.LayerNorm(3)


class Lin2(nn.Linear):
    pass


def widened(cls):
    cls.width = cls.width + 1
    return cls


'''

# Bodies of the factory method `make(self, n)`; {k} a small int. A subclass may also call its base's.
MAKES = [
    "return nn.Linear(n, self.width)",
    "return nn.Sequential(nn.Linear(n, self.width), nn.ReLU(), nn.Linear(self.width, {k}))",
    "return nn.ModuleList([nn.Linear(n, n) for _ in range(self.depth)])",
    "layer = nn.Linear(n, self.width, bias={bias})\nlayer.weight.requires_grad_({flag})\nreturn layer",
    "return nn.Conv1d(n, self.width, kernel_size={k}, groups=1)",
    "return nn.Embedding(self.width + {k}, n)",
]
SUPER_MAKES = [
    "inner = super().make(n)\nreturn nn.Sequential(inner, nn.LayerNorm({k}))",
    "return nn.ModuleDict({{'base': super().make(n + {k}), 'side': nn.Linear(n, {k})}})",
    "return nn.Sequential(super({name}, self).make(n), nn.Linear({k}, {k}))",
]
# Statements a constructor may run after its base's, with `self` built so far.
EXTRAS = [
    "self.head{i} = nn.Linear(self.width, type(self).depth + {k})",
    "self.hid{i} = nn.Linear({k}, self.hidden)",
    "if isinstance(self, {other}):\n    self.only{i} = nn.Linear({k}, 1)",
    "self.blocks{i} = nn.ModuleList(self.make({k}) for _ in range(self.depth))",
    "self.cls{i} = type(self).build({k})",
    "self.static{i} = self.norm({k})",
    "self.mix{i} = nn.Linear(self.widen({k}), 1) if isinstance(self, Sizes) else nn.Identity()",
    "self.width = self.width + {k}",
    "self.frozen{i} = self.make({k}).requires_grad_(False)",
    "self.lay{i} = self.layer_cls({k}, self.width)",
    "self.size = {k}\nself.sized{i} = nn.Linear(self.size, 1)",
    "self.ga{i} = getattr(self, 'make')({k})",
    "self.named{i} = nn.Linear(len(self.__class__.__name__), {k})",
]


@st.composite
def hierarchies(draw) -> tuple[str, list[str]]:
    count = draw(st.integers(2, 4))
    names = [f"M{i}" for i in range(count)]
    parts = []
    for i, name in enumerate(names):
        k = lambda: draw(st.integers(1, 5))  # noqa: E731 - a fresh small int at each hole
        if i == 0:
            bases = "nn.Module"
        else:
            parent = names[draw(st.integers(0, i - 1))]
            # A mixin before a parent that already has it: Python refuses the class (no MRO).
            mixin = draw(st.sampled_from(["", "Sizes, ", "Extra, "]))
            keyword = f", extra_width={k()}" if draw(st.booleans()) else ""  # __init_subclass__'s
            bases = f"{mixin}{parent}{keyword}"
        lines = ["@widened"] if i and draw(st.booleans()) else []
        lines.append(f"class {name}({bases}):")
        if i == 0 or draw(st.booleans()):
            lines.append(f"    width = {k()}")
        if i == 0 or draw(st.booleans()):
            lines.append(f"    depth = {k()}")
        if i == 0 or draw(st.booleans()):
            choices = MAKES + (SUPER_MAKES if i else [])
            body = draw(st.sampled_from(choices)).format(k=k(), bias=draw(st.booleans()), flag=draw(st.booleans()),
                                                         name=name)
            lines.append("    def make(self, n):")
            lines.extend("        " + line for line in body.splitlines())
        if i == 0 or draw(st.booleans()):
            lines.append("    @property\n    def hidden(self):\n        return self.width * %d" % k())
        if i == 0:
            lines.append("    @classmethod\n    def build(cls, n):\n        return nn.Linear(n, cls.width)")
            lines.append("    @staticmethod\n    def norm(n):\n        return nn.LayerNorm(n)")
            lines.append("    layer_cls = nn.Linear")
            lines.append("    def __init_subclass__(cls, extra_width=0, **kwargs):\n"
                         "        super().__init_subclass__(**kwargs)\n        cls.width = cls.width + extra_width")
            lines.append("    @property\n    def size(self):\n        return self._size\n"
                         "    @size.setter\n    def size(self, value):\n        self._size = value * 2")
        elif draw(st.booleans()):
            lines.append("    layer_cls = Lin2")
        if i == 0 or draw(st.booleans()):
            lines.append(f"    def __init__(self, dim={k()}):")
            if i == 0:
                lines.append("        super().__init__()")
                lines.append("        self._size = 1")
                lines.append("        self.stem = self.make(dim)")
            else:
                parent_call = draw(st.sampled_from(["super().__init__({arg})", "{parent}.__init__(self, {arg})"]))
                arg = draw(st.sampled_from(["dim", "dim + %d" % k(), "self.widen(dim)" if "Sizes" in bases else "dim * 2"]))
                lines.append("        " + parent_call.format(arg=arg, parent=parent))
            for j, extra in enumerate(draw(st.lists(st.sampled_from(EXTRAS), max_size=3))):
                other = names[draw(st.integers(0, count - 1))]
                text = extra.format(i=j, k=k(), other=other)
                lines.extend("        " + line for line in text.splitlines())
        if lines[-1].startswith("class "):
            lines.append("    pass")
        parts.append("\n".join(lines))
    return HEADER + "\n\n\n".join(parts) + "\n", names


def _torch_counts(text: str, names: list[str]) -> dict[str, tuple[int, int] | None]:
    module = types.ModuleType("class_hierarchy_program")
    sys.modules[module.__name__] = module
    counts: dict[str, tuple[int, int] | None] = {}
    try:
        # Statement by statement, as the analyser reads a file: a class statement Python refuses
        # (bases with no MRO) leaves that class undefined, and the classes built on it.
        for statement in ast.parse(text).body:
            try:
                exec(compile(ast.Module([statement], []), "class_hierarchy_program.py", "exec"),  # noqa: S102
                     module.__dict__)
            except (TypeError, NameError):  # the refused class; a class built on it
                pass
        for name in names:
            try:
                with torch.device("meta"):
                    params = list(module.__dict__[name]().parameters())
            except Exception:  # noqa: BLE001 - what torch refuses to build: nothing to count
                counts[name] = None
                continue
            counts[name] = (sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad))
    finally:
        del sys.modules[module.__name__]
    return counts


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hierarchies())
def test_each_class_of_a_hierarchy_counts_as_torch_builds_it(program: tuple[str, list[str]]) -> None:
    text, names = program
    expected = _torch_counts(text, names)
    report = analyze_text(text, "hierarchy.py")
    counted = {m.name: (m.tree.total, m.tree.trainable) for m in report.models}
    messages = [p.message for p in report.problems]
    for name in names:
        if expected[name] is None:
            assert name not in counted, (name, messages)
            assert any(m.startswith(f"`{name}`") for m in messages), (name, messages)
        else:
            assert counted.get(name) == expected[name], (name, expected[name], messages)
