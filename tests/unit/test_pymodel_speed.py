"""The speed work changes no result: the benchmark's many-class file counts every class as the
class's own fixture does; span, tie and frozen bookkeeping stay right; the collector is restored.
(Timing is measured by bench/pymodel_bench.py, never by a test.)"""

from __future__ import annotations

import gc
import pathlib
import re
import sys
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.source import Position

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "pymodels"


def test_bench_file_counts_each_class_as_its_own_fixture_does() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import pymodel_bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    alone: dict[tuple[str, str], tuple[int, int, tuple[str, ...]]] = {}  # (file index, class) ->
    for index, name in enumerate(pymodel_bench.SOURCES):
        report = analyze_text((CORPUS / name).read_text(), name)
        for m in report.models:
            alone[(str(index), m.name)] = (m.tree.total, m.tree.trainable, m.tree.notes)
    text = pymodel_bench.build(1500)  # several renamed copies of every fixture class in one file
    report = analyze_text(text, "big_model.py")
    assert len(report.models) > len(alone)
    for m in report.models:
        found = re.fullmatch(r"(\w+)_\d+_(\d+)", m.name)
        assert found, m.name
        base = (found.group(2), found.group(1))
        assert (m.tree.total, m.tree.trainable) == alone[base][:2], m.name
        assert len(m.tree.notes) == len(alone[base][2]), m.name


def test_ties_frozen_and_repeats_in_a_deep_model() -> None:
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self, d=8):
                super().__init__()
                self.a = nn.Linear(d, d)
                self.b = nn.Linear(d, d, bias=False)
                self.b.weight = self.a.weight
        class Deep(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(10, 8)
                self.stages = nn.Sequential(*[nn.Sequential(*[Block() for _ in range(3)]) for _ in range(2)])
                self.head = nn.Linear(8, 10, bias=False)
                self.head.weight = self.emb.weight
                self.stages[0].requires_grad_(False)
    """), "deep.py", AnalyzeOptions())
    deep = next(m for m in report.models if m.name == "Deep")
    per_block = 8 * 8 + 8  # b.weight is a.weight
    assert deep.tree.total == 80 + 6 * per_block
    assert deep.tree.trainable == 80 + 3 * per_block
    notes = " ".join(deep.tree.notes)
    assert "`head.weight` is tied to `emb.weight`" in notes and "`stages.0.0.b.weight` is tied to `stages.0.0.a.weight`" in notes
    stages = deep.tree.root.child("stages")
    assert [(c.name, c.repeat, c.frozen) for c in stages.children] == [("0", 1, True), ("1", 1, False)]
    # Each block's tie note names its own path, so the blocks are not folded into one repeated node.
    blocks = stages.children[1].children
    assert [(c.name, c.repeat) for c in blocks] == [("0", 1), ("1", 1), ("2", 1)]
    assert [c.child("b").note for c in blocks] == [f"weight tied to stages.1.{i}.a.weight" for i in range(3)]


def test_collector_state_is_restored() -> None:
    src = "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n"
    was = gc.isenabled()
    try:
        gc.enable()
        analyze_text(src, "m.py")
        assert gc.isenabled()
        gc.disable()
        analyze_text(src, "m.py")
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_spans_in_an_ascii_file_and_after_non_ascii_lines() -> None:
    src = "import torch.nn as nn\nclass A(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4096, 11008)\n"
    ((span, label),) = analyze_text(src, "a.py").hints
    assert label == "▸ 45.1M" and (span.start, span.end) == (Position(4, 18), Position(4, 40))
    # One non-ASCII character anywhere: columns are code points on its line, bytes agree elsewhere.
    src2 = src.replace("class A", "# café\nclass A").replace("nn.Linear(4096, 11008)", "nn.Linear(4096, 11008)  # ü")
    src2 = src2.replace("        self.fc", "        x = 'é'; self.fc")
    ((span2, _),) = analyze_text(src2, "a.py").hints
    assert (span2.start, span2.end) == (Position(5, 27), Position(5, 49))


def test_cached_builds_stay_independent_copies() -> None:
    # Block() is built once (its own top-level count) and copied for A and B: A's freezing and
    # retying of its copy must not reach B's, nor the Block that was counted first.
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.out = nn.Linear(4, 4)
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = Block()
                self.b.requires_grad_(False)
                self.b.out.weight = self.b.fc.weight
        class B(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = Block()
                self.c = Block()
    """), "cache.py", AnalyzeOptions())
    counts = {m.name: (m.tree.total, m.tree.trainable) for m in report.models}
    assert counts == {"Block": (40, 40), "A": (24, 0), "B": (80, 80)}


FAST_PATHS = textwrap.dedent("""
    import torch.nn as nn
    TABLE = {"small": 8, "base": 16, "large": 32}

    def width(name):
        return TABLE[name]  # a return in the body itself

    def pick(n):
        if n > 10:
            return n - 10  # a return inside a block
        return n

    class Tables(nn.Module):
        def __init__(self):
            super().__init__()
            by_width = {v: k for k, v in TABLE.items()}  # a (k, v) target over tuples
            pairs = [[1, 2], [3, 4]]  # lists: bound by the general assignment
            sums = [a + b for a, b in pairs]
            nested = [x * y for x in (1, 2) for y in (3, 4) if x * y != 4]
            named = [(name, size) for name, size in zip(("a", "b"), (5, 6))]
            self.a = nn.Linear(width(by_width[16]), pick(13))  # 16 -> 3
            self.b = nn.Linear(sums[1], sum(nested))  # 7 -> 3 + 6 + 8 = 17
            self.c = nn.Linear(named[1][1], len(by_width))  # 6 -> 3
""")


def test_fast_paths_give_what_python_gives() -> None:
    # The comprehension targets, element reads and returns that skip the general code compute
    # what Python does, and the cases they leave to it (lists, nested generators) still work.
    (model,) = analyze_text(FAST_PATHS, "tables.py").models
    assert model.tree.total == (16 * 3 + 3) + (7 * 17 + 17) + (6 * 3 + 3)


@pytest.mark.parametrize("body", [
    # 9,000 + 63,000 items: each is a step.
    "width = len([i for i in range(9000) for j in range(7)])",
    # 9,000 + 36,000 items, then 36,000 bound to (k, v): the last ones pass the budget.
    "width = len({k: v for k, v in [(i, j) for i in range(9000) for j in range(4)]})",
    # 27,000 items and 18,000 calls: the 18,000 returns pass the budget (a body's own return is
    # a step, as every statement is).
    "width = sum(one(i) for i in range(9000) for j in range(2))",
])
def test_fast_paths_keep_the_step_budget(body: str) -> None:
    report = analyze_text(textwrap.dedent(f"""
        import torch.nn as nn
        def one(i):
            return 1
        class Spin(nn.Module):
            def __init__(self):
                super().__init__()
                {body}
                self.fc = nn.Linear(width, 2)
    """), "spin.py")
    assert report.models == ()
    assert "the analysis took more than 60,000 steps" in report.problems[0].message


HOOKED = textwrap.dedent("""
    import torch.nn as nn

    class Base:
        def __getattribute__(self, key):
            if key == "width":
                key = "hidden"
            return super().__getattribute__(key)

        def bad(self):
            return super().__getattribute__("hidden", "extra")

    class Config(Base):
        def __init__(self):
            self.hidden = 8

        def __getattribute__(self, key):
            return super().__getattribute__(key)  # Base's hook, then object's

        def set_fixed(self):
            super().__setattr__("fixed", 1)

        @property
        def fixed(self):
            return 3

    class Net(nn.Module):
        def __init__(self, config: Config):
            super().__init__()
            {body}
""")


@pytest.mark.parametrize("body, outcome", [
    # super() reaches the base's hook before object's: `width` reads `hidden`.
    ("self.fc = nn.Linear(config.width, 2)", 8 * 2 + 2),
    # object's __setattr__ on a property without a setter: the message names the call's function.
    ("config.set_fixed()\n        self.fc = nn.Linear(2, 2)",
     "`super().__setattr__` sets `fixed`, a property of `Config` with no setter"),
    # Arguments that object.__getattribute__ does not take: Python's TypeError, in the user's words.
    ("config.bad()\n        self.fc = nn.Linear(2, 2)",
     "raises TypeError: it takes 1 positional argument but 2 were given"),
    # Each super() call is a step. Per outer item: 4 loop steps (it, range(2), two inner items) and
    # 2 reads of 5 (the call of Base's hook, its `if`, both hooks' returns, object's
    # __getattribute__): 14 × 4,800 pass 60,000; 12 × 4,800 would not.
    ("n = len([config.hidden for i in range(4800) for j in range(2)])\n        self.fc = nn.Linear(n, 2)",
     "the analysis took more than 60,000 steps"),
])
def test_object_hooks_through_super_as_python_runs_them(body: str, outcome: object) -> None:
    report = analyze_text(HOOKED.replace("{body}", body), "hooked.py")
    counts = {m.name: m.tree.total for m in report.models}
    messages = " ".join(p.message for p in report.problems if p.code == "LC101")
    if isinstance(outcome, int):
        assert counts == {"Net": outcome}, messages
    else:
        assert counts == {} and outcome in messages, messages


def assert_net_counts(setup: str, width: str, outcome: object) -> None:
    """``Net`` runs ``setup`` in its constructor, then builds ``nn.Linear(width, 1, bias=False)``:
    it counts ``outcome`` (an int), or is LC101 with ``outcome`` in the reason."""
    report = analyze_text(textwrap.dedent(f"""
        import torch.nn as nn
        from elsewhere import helper
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                {setup}
                self.fc = nn.Linear({width}, 1, bias=False)
    """), "net.py")
    if isinstance(outcome, int):
        assert [m.tree.total for m in report.models] == [outcome], report.problems
    else:
        assert report.models == () and outcome in report.problems[-1].message, report.problems


@pytest.mark.parametrize("expression, outcome", [
    ("len('a,b'.split(','))", 2),  # a str method
    ("{'w': 3}.get('w')", 3),  # a dict method
    ("'abc'.hidden", "`'abc'.hidden`: str has no attribute `hidden` the analyser knows"),  # a name no str has
    ("[1].nope", "`[1].nope`: list has no attribute `nope` the analyser knows"),
])
def test_plain_values_methods_and_missing_names(expression: str, outcome: object) -> None:
    # Methods of plain values are looked up before the other branches; a name they lack is a reason.
    assert_net_counts("pass", expression, outcome)


@pytest.mark.parametrize("setup, outcome", [
    ("w = 3 if 1 < 2 < 3 else 5", 3),  # a chain: each comparison with the one before
    ("w = 3 if 1 < 3 < 2 else 5", 5),
    ("w = 4 if None is None and 1 is not None else 6", 4),
    # `is None` on a value the analyser does not know is not a guess.
    ("w = helper(); w = 4 if w is None else w", "the condition `w is None` (line 7) depends on `elsewhere.helper`, which is outside"),
])
def test_comparisons_as_python_makes_them(setup: str, outcome: object) -> None:
    assert_net_counts(setup, "w", outcome)


def test_tensor_value_constructor_sets_every_field() -> None:
    # TensorV has a hand-written __init__ (speed, as ParamNode's): it must take and set exactly the fields.
    import inspect
    from dataclasses import fields, replace

    from lsp_count.pymodel.values import TensorV

    names = [f.name for f in fields(TensorV)]
    assert list(inspect.signature(TensorV.__init__).parameters)[1:] == names
    given = [(2, 3), (1.0, 2.0), False, "float64", (0.5, 0.5), True, True, "bfloat16", True]
    t = TensorV(*given)
    assert [getattr(t, n) for n in names] == given
    assert replace(t, shape=(4,)) == TensorV((4,), *given[1:])
    assert TensorV((3,)) == TensorV((3,), None, True, None, None, False, None, None, False)


@pytest.mark.parametrize("dims_a, dims_b", [(1, 1), (1, 0), (0, 1), (0, 0), (1, None), (None, 1), (0, None),
                                            (None, 0)])
def test_result_dtype_is_torch_s_promotion_rule(dims_a: int | None, dims_b: int | None) -> None:
    # result_dtype is written without its groups' lists (numpy loops over scalars call it per
    # element); the rule it states, group by group, is checked here for every pair of dtypes.
    import itertools

    from lsp_count.pymodel.tensor_values import FLOAT_DTYPES, INT_DTYPES, Values, _wider, category, result_dtype

    def by_groups(a, a_dims, b, b_dims, numpy):  # the rule as its docstring says it, group by group
        groups = [[v.dtype for v, d in ((a, a_dims), (b, b_dims)) if isinstance(v, Values) and d > 0],
                  [v.dtype for v, d in ((a, a_dims), (b, b_dims)) if isinstance(v, Values) and d == 0],
                  [{bool: "bool", int: "int64"}.get(type(v), "float64" if numpy else "float32")
                   for v in (a, b) if not isinstance(v, Values)]]
        dtype = None
        for group in groups:
            if group:
                best = group[0] if len(group) == 1 else _wider(group[0], group[1])
                if dtype is None or category(best) > category(dtype):
                    dtype = best
        return dtype

    dtypes = sorted({*FLOAT_DTYPES, *INT_DTYPES, "bool"})
    operands = {None: [True, 3, 2.5]}
    for dims in (dims_a, dims_b):
        if dims is not None:
            operands[dims] = [Values((1,), d) for d in dtypes]
    for a, b, numpy in itertools.product(operands[dims_a], operands[dims_b], (False, True)):
        a_dims, b_dims = dims_a or 0, dims_b or 0
        assert result_dtype(a, a_dims, b, b_dims, numpy) == by_groups(a, a_dims, b, b_dims, numpy), (a, b, numpy)
