"""Sizes computed by random Python expressions: hypothesis writes an expression of ints and floats
(arithmetic, floor division and modulo of negative numbers, powers, shifts and bit operations,
comparisons and conditional expressions, builtins and math's functions, ranges, indexing and
slicing) and a model whose layer
width is computed from it. Python's own evaluation of the same expression is the peer: the count
must be the layer Python would build, and an expression Python refuses (a division by zero, a
float where an int is needed) must not be counted."""

from __future__ import annotations

import math
import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

NUMBERS = st.one_of(st.integers(-40, 40), st.sampled_from([0.5, -1.5, 2.0, 3.25, -0.0, 1e-3]))
BINARY = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"]
CALLS = ["abs({})", "int({})", "round({})", "float({})", "math.floor({})", "math.ceil({})", "math.sqrt(abs({}))",
         "max({}, 3)", "min({}, -2)", "divmod({}, 7)[0]", "divmod({}, -3)[1]", "bool({})", "-{}", "~int({})",
         "math.gcd(int({}), 12)", "round({}, 1)", "len(str(int({})))", "sum([{}, 1, 2])", "pow(int({}), 2, 7)",
         "len(range(int({}), 20, 3))", "sum(range(int({}) % 10))", "[3, 1, 4, 1, 5][int({}) % 5]",
         "len([1, 2, 3, 4, 5][int({}) % 7:])", "len(list(range(10))[::int({}) or 1])", "int(str(int({})) * 2)",
         "sorted([{}, 2, 1])[0]", "math.isqrt(abs(int({})))", "math.log(abs({}) + 1, 2)", "math.prod([{}, 2])",
         "(float('inf') if {} else 1)", "[1, 2][{}]", "(1, 2, 3)[int({}):][0]"]


@st.composite
def expressions(draw, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["number", "number", "binary", "call", "ternary"] if depth < 3 else ["number"]))
    if kind == "number":
        return repr(draw(NUMBERS))
    if kind == "binary":
        op = draw(st.sampled_from(BINARY))
        left, right = draw(expressions(depth + 1)), draw(expressions(depth + 1))
        if op == "**":
            right = str(draw(st.integers(0, 3)))  # a power of a float can overflow nothing here
        elif op in ("<<", ">>"):
            right = str(draw(st.integers(-2, 8)))  # the analyser refuses sizes of thousands of bits (said so)
        return f"({left} {op} {right})"
    if kind == "call":
        return draw(st.sampled_from(CALLS)).format(draw(expressions(depth + 1)))
    test = f"{draw(expressions(depth + 1))} {draw(st.sampled_from(['<', '<=', '==', '!=', '>']))} {draw(expressions(depth + 1))}"
    return f"({draw(expressions(depth + 1))} if {test} else {draw(expressions(depth + 1))})"


def _python_width(expression: str) -> int | None:
    """What Python makes of ``int(abs(expression)) % 50 + 1``, or None where it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `[1, 2][0.5]`: Python's compiler says it first
            value = eval(f"int(abs({expression})) % 50 + 1", {"math": math})  # noqa: S307 - the test's own expression
    except (ArithmeticError, ValueError, TypeError, IndexError):
        return None
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions())
def test_a_width_computed_by_python_is_the_width_python_computes(expression: str) -> None:
    source = ("import math\n\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
              f"        super().__init__()\n        self.fc = nn.Linear(2, int(abs({expression})) % 50 + 1)\n")
    width = _python_width(expression)
    report = analyze_text(source, "net.py")
    counts = [m.tree.total for m in report.models]
    if width is None:
        assert counts == [], (expression, counts)
    else:
        assert counts == [3 * width], (expression, width, [p.message for p in report.problems])


def test_zero_shifted_any_distance_is_zero_and_a_huge_shift_of_one_is_refused_as_too_large() -> None:
    # Found by this file's search: the guard against sizes of thousands of bits refused `0 << 8192`.
    def count(expression: str) -> tuple[list[int], list[str]]:
        report = analyze_text("import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                              f"        super().__init__()\n        self.fc = nn.Linear(2, {expression})\n", "net.py")
        return [m.tree.total for m in report.models], [p.message for p in report.problems]

    assert count("(0 << (1 << 13)) + 4")[0] == [12]
    counts, problems = count("(1 << (1 << 13)) % 50 + 1")
    assert counts == [] and any("too large to be a size" in p for p in problems)
