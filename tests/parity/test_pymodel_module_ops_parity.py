"""Parity of module surgery on random programs: hypothesis strings together what code does to
modules while it builds them (ModuleList append / extend / insert / pop / del, Sequential's
append and `+`, ModuleDict update / pop / item assignment, add_module, register_parameter,
weight tying, a module held twice, None over a module, bias removed, deepcopy, requires_grad
turned off and on, delattr), and the static count of ``Net`` must be torch's on the meta device,
total and trainable. The file is run here, in the test; the analyser only reads it."""

from __future__ import annotations

import sys
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

HEADER = '''
import copy

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 3)
        self.b = nn.Linear(3, 4)
        self.blocks = nn.ModuleList([nn.Linear(4, 4)])
        self.seq = nn.Sequential(nn.Linear(4, 5))
        self.d = nn.ModuleDict({"x": nn.Linear(5, 6)})
        self.p = nn.Parameter(torch.zeros(7))
'''

OPERATIONS = [
    "self.blocks.append(nn.Linear({k}, 4))",
    "self.blocks.extend([nn.Linear(1, {k}), self.a])",
    "self.blocks.insert({k} % (len(self.blocks) + 1), nn.Linear(2, {k}))",
    "if len(self.blocks) > 1:\n    del self.blocks[{k} % len(self.blocks)]",
    "if len(self.blocks):\n    self.blocks.pop(-1)",
    "self.blocks = nn.ModuleList(list(self.blocks)[::-1])",
    "self.shared = nn.ModuleList([self.a] * {k})",
    "self.seq.append(nn.Linear(5, {k}))",
    "self.seq = self.seq + nn.Sequential(nn.Linear({k}, 1))",
    "self.d.update({{'y{k}': nn.Linear({k}, 2)}})",
    "self.d['x'] = nn.Linear(1, {k})",
    "if 'x' in self.d:\n    self.d.pop('x')",
    "self.add_module('m{k}', nn.Linear({k}, 3))",
    "if hasattr(self, 'm{k}'):\n    delattr(self, 'm{k}')",
    "self.register_parameter('q{k}', nn.Parameter(torch.ones({k})))",
    "self.b.weight = self.a.weight",
    "self.tied = self.a",
    "self.b = None",
    "self.a.requires_grad_(False)",
    "self.blocks.requires_grad_({k} % 2 == 0)",
    "self.p.requires_grad = {k} % 2 == 1",
    "self.c = copy.deepcopy(self.a)",
    "for m in list(self.children()):\n    if isinstance(m, nn.Linear):\n        m.bias = None",
    "self.e = nn.Embedding({k} + 1, 3, padding_idx=0)",
    "self.a.weight.requires_grad_(False)",
    "self.w = nn.Parameter(torch.randn({k}, 2), requires_grad={k} % 2 == 0)",
    "self.a = nn.Linear({k}, {k})",
    "for name, child in list(self.named_children()):\n    if isinstance(child, nn.ModuleList) and len(child) > 2:\n"
    "        setattr(self, name, child[:2])",
    "self.seq[0] = nn.Linear(4, {k})",
    "self.p = None",
    # torch's walks are generators over the live `_modules`: what the body changes changes what comes next
    "for name, m in self.named_modules():\n    if isinstance(m, nn.ModuleList):\n        m.append(nn.Linear({k}, 2))\n"
    "    elif isinstance(m, nn.Linear) and {k} % 2:\n        m.weight.requires_grad_(False)",
    "for name, m in self.named_children():\n    if isinstance(m, nn.Linear) and name != 'a':\n"
    "        setattr(self, name, nn.Sequential(m, nn.Linear(m.out_features, {k})))",
    "for name, m in self.named_children():\n    if name == 'a':\n        self.add_module('z{k}', nn.Linear({k}, 1))",
    "for m in self.children():\n    if isinstance(m, nn.ModuleDict):\n        m['n{k}'] = nn.Linear({k}, 1)",
    "for n, p in self.named_parameters():\n    if n.endswith('bias') and {k} % 2:\n        p.requires_grad_(False)",
    "for p in self.parameters():\n    if p.dim() == 2 and p.shape[0] == {k}:\n        self.blocks.append(nn.Linear({k}, 1))",
    "for m in self.blocks:\n    if len(self.blocks) < {k}:\n        self.blocks.append(nn.Linear(4, {k}))",
    "for i, m in enumerate(self.seq):\n    m.requires_grad_(i == {k} % 2)",
    "self.seq.insert({k} % (len(self.seq) + 1), nn.Linear(3, {k}))",
    "if len(self.seq) > 1:\n    del self.seq[{k} % len(self.seq)]",
    "self.seq.extend([nn.Linear({k}, 1)])",
    "self.blocks += [nn.Linear({k}, 2)]",
    "self.blocks.extend(self.seq)",
    "self.seq = self.seq[{k} % 3:]",
    "self.d = nn.ModuleDict(self.d)",
    "self.c = copy.copy(self.blocks)",
    "if isinstance(getattr(self, 'c', None), nn.ModuleList):\n    self.c.append(nn.Linear({k}, 1))",
    "self.pl = nn.ParameterList([nn.Parameter(torch.zeros({k})) for _ in range({k} % 3)])",
    "self.register_buffer('buf{k}', torch.zeros({k}))",
    "for m in self.modules():\n    if isinstance(m, nn.Linear) and m.out_features == {k}:\n        m.requires_grad_(False)",
    "self.apply(lambda m: m.requires_grad_(False) if isinstance(m, nn.Linear) and m.in_features == {k} else None)",
    # a ModuleDict's keys(), values() and items() are its dict's live views
    "self.view = self.d.items()",
    "self.d['v{k}'] = nn.Linear({k}, 3)",
    "for name, m in getattr(self, 'view', self.d.items()):\n    m.requires_grad_(name == 'x' or {k} % 2 == 0)",
    "for m in self.d.values():\n    if len(self.d) < {k}:\n        self.d['w' + str(len(self.d))] = nn.Linear(2, {k})",
    "if len(self.d.keys() - {{'x'}}) < {k}:\n    self.extra{k} = nn.Linear(len(self.d.values()), {k})",
    # a container's plain attributes are not its entries (an append or `+=` numbers from its length)
    "self.blocks.flag{k} = {k}",
    "self.blocks.named{k} = nn.Linear({k}, 2)",
    "if len(self.seq) < 6:\n    self.seq *= 2",
    "if len(self.seq) < 6:\n    self.seq2 = self.seq * 2",
    "if len(self.blocks):\n    self.blocks[-1] = nn.Linear({k}, 1)",
    "if len(self.blocks):\n    self.last = nn.Linear(self.blocks[-1].out_features, {k})",
    "self.seq.tag = {k}",
    "self.seq += nn.Sequential(nn.Linear({k}, 2))",
    "self.blocks.__setitem__({k} % (len(self.blocks) + 1), nn.Linear(1, {k}))",
]

# Walks whose body changes what they walk, against torch (which raises where a module or parameter
# is added to or deleted from the dict it is iterating, and walks a module as it is when reached).
WALKS = [
    "for name, m in self.named_children():\n    if name == 'a':\n        self.add_module('z3', nn.Linear(3, 1))",
    "for name, m in self.named_modules():\n    if isinstance(m, nn.ModuleList):\n        m.append(nn.Linear(3, 2))\n"
    "    elif isinstance(m, nn.Linear):\n        m.weight.requires_grad_(False)",
    "for m in self.children():\n    if isinstance(m, nn.ModuleList):\n        self.extra3 = nn.Linear(1, 1)",
    "for name, m in self.named_modules():\n    if name == 'blocks.0':\n        self.blocks.append(nn.Linear(2, 2))",
    "for name, m in self.named_modules():\n    if name == 'blocks':\n        m.append(nn.Linear(2, 2))\n"
    "    if isinstance(m, nn.Linear):\n        m.requires_grad_(False)",
    "for name, m in self.named_children():\n    if name == 'a':\n        self.b = None",
    "for name, m in self.named_children():\n    if name == 'b':\n        del self.a",
    "for name, m in self.named_modules():\n    if name == 'seq':\n        self.seq = nn.Sequential(nn.Linear(9, 9), nn.Linear(9, 9))\n"
    "    if isinstance(m, nn.Linear):\n        m.weight.requires_grad_(False)",
    "for m in self.blocks.children():\n    self.blocks.insert(0, nn.Linear(2, 2))",
    "it = self.named_children()\nnext(it)\nself.q = nn.Linear(2, 2)\nnext(it)",
    "for name, m in self.named_children():\n    if isinstance(m, nn.Linear) and name != 'a':\n"
    "        setattr(self, name, nn.Sequential(m, nn.Linear(m.out_features, 3)))",
    # parameters() and named_parameters() walk each module's live `_parameters` the same way
    "for n, p in self.named_parameters():\n    if n == 'a.weight':\n"
    "        self.a.register_parameter('extra', nn.Parameter(torch.zeros(3)))",
    "for n, p in self.named_parameters():\n    if n == 'a.weight':\n"
    "        self.b.register_parameter('extra', nn.Parameter(torch.zeros(7)))",
    "for n, p in self.named_parameters():\n    if n == 'a.weight':\n"
    "        self.b.weight = nn.Parameter(torch.zeros(7, 3), requires_grad=False)",
    "for n, p in self.named_parameters():\n    if n == 'a.weight':\n        self.b.bias = None",
    "for n, p in self.named_parameters():\n    if n == 'a.weight':\n        del self.b.bias",
    "for p in self.parameters():\n    if p.shape == (3, 2):\n        self.blocks.append(nn.Linear(4, 9))\n"
    "    p.requires_grad_(False)",
    "for n, p in self.named_parameters():\n    if n.startswith('a.'):\n        self.a.weight = nn.Parameter(torch.zeros(3, 2))\n"
    "    p.requires_grad_(False)",
    "it = self.parameters()\nnext(it)\nself.a.bias = nn.Parameter(torch.zeros(50), requires_grad=False)\n"
    "for p in it:\n    p.requires_grad_(False)",
    "ps = self.parameters()\nself.q = nn.Parameter(torch.zeros(11))\nfor p in ps:\n    p.requires_grad_(False)",
    "for n, p in self.named_parameters(recurse=False):\n    self.r = nn.Parameter(torch.zeros(2))",
    "for n, p in self.named_parameters(prefix='net', remove_duplicate=False):\n    if n == 'net.b.weight':\n"
    "        self.blocks.append(self.a)\n    p.requires_grad_(False)",
    # A ModuleList's or Sequential's del and pop replace `_modules` by an OrderedDict, whose iterator
    # ends once it has handed out its last key (a dict's raises at the next step)
    "self.blocks.append(nn.Linear(4, 4))\ndel self.blocks[0]\nfor name, m in self.named_modules():\n"
    "    if name == 'blocks.0':\n        self.blocks.append(nn.Linear(2, 2))\n    if isinstance(m, nn.Linear):\n"
    "        m.requires_grad_(False)",
    "self.blocks.append(nn.Linear(4, 4))\nself.blocks.append(nn.Linear(4, 4))\ndel self.blocks[0]\n"
    "for name, m in self.named_modules():\n    if name == 'blocks.0':\n        self.blocks.append(nn.Linear(2, 2))",
    "self.blocks.append(nn.Linear(4, 4))\nself.blocks.pop(0)\nfor name, m in self.named_modules():\n"
    "    if name == 'blocks.0':\n        del self.blocks[0]\n    if isinstance(m, nn.Linear):\n        m.requires_grad_(False)",
    "self.seq.append(nn.Linear(5, 5))\nself.seq.pop(0)\nfor m in self.seq.children():\n    self.seq.append(nn.Linear(1, 1))",
    "for name, m in self.named_modules():\n    if name == 'blocks.0':\n        del self.blocks[0]",
    "self.blocks.append(nn.Linear(4, 4))\nfor name, m in self.named_modules():\n    if name == 'blocks.0':\n"
    "        del self.blocks[0]\n        self.blocks.append(nn.Linear(3, 3))",
    "self.blocks.append(nn.Linear(4, 4))\ndel self.blocks[0]\nfor name, m in self.named_modules():\n"
    "    if name == 'blocks.0':\n        del self.blocks[0]\n        self.blocks.append(nn.Linear(3, 3))\n"
    "    if isinstance(m, nn.Linear):\n        m.requires_grad_(False)",
    "self.blocks.append(nn.Linear(4, 4))\ndel self.blocks[0]\nself.c = copy.deepcopy(self.blocks)\n"
    "for name, m in self.c.named_children():\n    self.c.append(nn.Linear(2, 2))",
    # a container's own iteration (a for loop, iter, enumerate, zip) and apply's walk are live too
    "for m in self.blocks:\n    if len(self.blocks) < 4:\n        self.blocks.append(nn.Linear(4, 7))",
    "for i, m in enumerate(self.seq):\n    if i == 0:\n        self.seq.append(nn.Linear(5, 5))",
    "for m, n in zip(self.blocks, range(3)):\n    self.blocks.append(nn.Linear(4, 7))",
    "for k in self.d:\n    self.d['z'] = nn.Linear(3, 3)",
    "it = iter(self.seq)\nnext(it)\nself.seq.append(nn.Linear(5, 9))\nfor m in it:\n    m.requires_grad_(False)",
    "def grow(m):\n    if m is self.a:\n        self.blocks.append(nn.Linear(2, 2))\n    m.requires_grad_(False)\n"
    "self.apply(grow)",
    "def grow(m):\n    if isinstance(m, nn.Linear) and m.in_features == 4:\n        self.blocks.append(nn.Linear(2, 2))\n"
    "self.apply(grow)",
    "self.blocks.append(nn.Linear(4, 4))\ndel self.blocks[0]\nfor m in self.blocks:\n    if len(self.blocks) < 3:\n"
    "        self.blocks.append(nn.Linear(4, 7))",
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))})\nfor k in self.pd:\n"
    "    self.pd['b' + k] = nn.Parameter(torch.zeros(2))",
    "self.pl = nn.ParameterList([nn.Parameter(torch.zeros(2))])\nfor p in self.pl:\n    if len(self.pl) < 3:\n"
    "        self.pl.append(nn.Parameter(torch.zeros(3), requires_grad=False))",
    # a container's iterator reads its dict when it is made (a generator function's walk, when first taken from)
    "it = iter(self.blocks)\nself.blocks.append(nn.Linear(1, 7))\nfor m in it:\n    m.requires_grad_(False)",
    "it = self.named_modules()\nself.blocks.append(nn.Linear(1, 7))\nfor n, m in it:\n    m.requires_grad_(False)",
    "it = iter(self.seq)\nnext(it)\nself.seq[0] = nn.Linear(4, 3)\nfor m in it:\n    m.requires_grad_(False)",
    # a ParameterDict's items() and values() are generators over its live keys
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))})\nfor k, v in self.pd.items():\n"
    "    self.pd['b' + k] = nn.Parameter(torch.zeros(2))",
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))})\nit = self.pd.values()\n"
    "self.pd['z'] = nn.Parameter(torch.zeros(2))\nfor v in it:\n    v.requires_grad_(False)",
    # a ModuleDict's keys(), values() and items(), and a ParameterDict's keys(), are its dict's live views
    "for k, m in self.d.items():\n    self.d[k + 'x'] = nn.Linear(3, 3)",
    "for k in self.d.keys():\n    self.d.pop(k)",
    "for m in self.d.values():\n    self.d['x'] = nn.Linear(2, 2)\n    m.requires_grad_(False)",
    "items = self.d.items()\nself.d['z'] = nn.Linear(4, 4)\nfor k, m in items:\n    m.weight.requires_grad_(False)",
    "values = self.d.values()\nself.d['z'] = nn.Linear(4, 4)\nself.seq2 = nn.Sequential(*values)",
    "for i, (k, m) in enumerate(self.d.items()):\n    self.d['z' + k] = nn.Linear(2, 2)",
    "it = iter(self.d.values())\nself.d['z'] = nn.Linear(4, 4)\nfor m in it:\n    m.requires_grad_(False)",
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))})\nkeys = self.pd.keys()\n"
    "self.pd['b'] = nn.Parameter(torch.zeros(5))\nfor k in keys:\n    self.pd[k].requires_grad_(False)",
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(2))})\nfor k in self.pd.keys():\n"
    "    self.pd[k + 'b'] = nn.Parameter(torch.zeros(2))",
]


@st.composite
def programs(draw) -> str:
    chosen = draw(st.lists(st.tuples(st.sampled_from(OPERATIONS), st.integers(1, 6)), min_size=1, max_size=10))
    lines = "\n".join(op.format(k=k) for op, k in chosen)
    return HEADER + "".join(f"        {line}\n" for line in lines.splitlines())


def _torch_counts(text: str) -> tuple[int, int] | None:
    module = types.ModuleType("module_ops_program")
    sys.modules[module.__name__] = module
    try:
        exec(compile(text, "module_ops_program.py", "exec"), module.__dict__)  # noqa: S102 - the test's own program
        with torch.device("meta"):
            params = list(module.Net().parameters())
    except Exception:  # noqa: BLE001 - what torch refuses to build: nothing to count
        return None
    finally:
        del sys.modules[module.__name__]
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_module_surgery_counts_as_torch_builds_it(text: str) -> None:
    expected = _torch_counts(text)
    report = analyze_text(text, "net.py")
    counts = [(m.tree.total, m.tree.trainable) for m in report.models]
    assert counts == ([] if expected is None else [expected]), [p.message for p in report.problems]


@pytest.mark.parametrize("walk", WALKS)
def test_a_walk_whose_body_changes_the_modules_counts_as_torch_builds_it(walk: str) -> None:
    text = HEADER + "".join(f"        {line}\n" for line in walk.splitlines())
    expected = _torch_counts(text)
    report = analyze_text(text, "net.py")
    counts = [(m.tree.total, m.tree.trainable) for m in report.models]
    assert counts == ([] if expected is None else [expected]), [p.message for p in report.problems]
    if expected is None:  # torch's RuntimeError, said as such
        assert any("RuntimeError" in p.message for p in report.problems)
