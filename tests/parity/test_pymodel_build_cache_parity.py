"""Parity of the build cache on random programs: hypothesis writes a model that builds the same
blocks again and again (twelve identical blocks are built once and copied) while the state they
read changes in between: a local or global config object's attribute, a dict in its stage list,
a sub-config two levels down, a global dict, a class attribute, a closure's variable, a fresh
config or a copy (shallow: sharing its stage list), or the block itself changing its argument. Every change a block can see must
give the build Python gives, so the static count of ``Net`` must equal torch's on the meta device.
The file is run here, in the test; the analyser only reads it."""

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

import torch.nn as nn


class Level:
    def __init__(self, inner):
        self.inner = inner


class Cfg:
    def __init__(self):
        self.width = 2
        self.stages = [{"dim": 3}, {"dim": 4}]
        self.deep = Level(Level(5))


CFG = Cfg()
TABLE = {"w": 2}


class Holder:
    size = 2


def reads(cfg):
    return cfg.width + cfg.stages[-1]["dim"] + len(cfg.stages) + cfg.deep.inner.inner + CFG.width + TABLE["w"] + Holder.size


class Block(nn.Module):
    def __init__(self, cfg, make=None):
        super().__init__()
        self.fc = nn.Linear(2, reads(cfg))
        if make is not None:
            self.extra = make()


class Grow(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        cfg.width += 1
        cfg.stages[0]["dim"] += 1
        self.fc = nn.Linear(3, reads(cfg))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = Cfg()
        width = 2
        blocks = []
'''

BUILDS = [
    "blocks.append(Block(cfg))",
    "blocks.append(Block(CFG))",
    "blocks.append(Block(Cfg()))",
    "blocks.append(Block(cfg, lambda: nn.Linear(1, width)))",
    "blocks.append(Grow(cfg))",
    "blocks.append(Grow(CFG))",
    "blocks.extend(Block(cfg) for _ in range(3))",
    "blocks.extend(Grow(cfg) for _ in range(2))",
]

CHANGES = [
    "cfg.width = {k}",
    "cfg.stages[-1]['dim'] = {k}",
    "cfg.stages.append({{'dim': {k}}})",
    "cfg.deep.inner.inner = {k}",
    "cfg.deep.inner = Level({k})",
    "CFG.width = {k}",
    "CFG.stages[-1]['dim'] = {k}",
    "TABLE['w'] = {k}",
    "Holder.size = {k}",
    "width = {k}",
    "cfg = Cfg()",
    "cfg = copy.copy(cfg)",
    "cfg = copy.deepcopy(cfg)",
]


@st.composite
def programs(draw) -> str:
    steps = draw(st.lists(st.one_of(
        st.sampled_from(BUILDS),
        st.builds(lambda change, k: change.format(k=k), st.sampled_from(CHANGES), st.integers(1, 6)),
    ), min_size=2, max_size=10))
    steps.append(draw(st.sampled_from(BUILDS)))
    body = "".join(f"        {step}\n" for step in steps)
    return HEADER + body + "        self.blocks = nn.ModuleList(blocks)\n"


def _torch_count(text: str) -> int:
    module = types.ModuleType("build_cache_program")
    sys.modules[module.__name__] = module
    try:
        exec(compile(text, "build_cache_program.py", "exec"), module.__dict__)  # noqa: S102 - the test's own program
        with torch.device("meta"):
            return sum(p.numel() for p in module.Net().parameters())
    finally:
        del sys.modules[module.__name__]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_a_block_built_again_after_a_change_it_reads_counts_as_torch_builds_it(text: str) -> None:
    report = analyze_text(text, "net.py")
    net = [m.tree.total for m in report.models if m.name == "Net"]
    assert net == [_torch_count(text)], [p.message for p in report.problems]
