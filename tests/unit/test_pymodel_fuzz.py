"""Any text an edit can leave in a model file gets a report, never an exception: the corpus with
random tokens deleted, repeated, swapped or replaced by ones that tend to break things
(a fuzzing run of this kind found num_layers=10**9 hanging, groups=0 and range(10**30) raising)."""

from __future__ import annotations

import pathlib
import re
import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

CORPUS = sorted((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels").glob("*.py"))
TOKEN = re.compile(r"\w+|[^\w\s]|\s+")
TROUBLE = ["self", "None", "0", "-1", "10**9", "nn.Linear", "(", ")", "[", "]", "*", "**", "super", "lambda: 1",
           ".", ",", "=", ":", "\n", "    ", "yield", "del self", "global g", "1.5", "'s'", "True", "range(10**30)",
           "del", "+=", "|=", "._modules", "torch.log", "torch.pow", "1e308", "-0.0", ".int()", "torch.unique",
           "next(", "re.compile", ".named_buffers(remove_duplicate=False)", "any(", "all(", "nn.Buffer", "@",
           ".is_floating_point()", "{", "}", " for x in ", "except KeyError:", "except Exception:", "try:",
           ".pop(", "{self: 1}[", "[1] + (2,)"]

_EDIT = st.tuples(st.sampled_from(["delete", "repeat", "swap", "trouble"]), st.integers(0, 10**6), st.integers(0, 10**6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CORPUS), st.lists(_EDIT, min_size=1, max_size=5))
def test_a_broken_model_file_gets_a_report_not_an_exception(path: pathlib.Path, edits) -> None:
    tokens = TOKEN.findall(path.read_text())
    for kind, a, b in edits:
        i, j = a % len(tokens), b % len(tokens)
        if kind == "delete":
            del tokens[i]
        elif kind == "repeat":
            tokens.insert(i, tokens[j])
        elif kind == "swap":
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:
            tokens[i] = TROUBLE[j % len(TROUBLE)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # "invalid decimal literal" from ast.parse
        report = analyze_text("".join(tokens), path.name)
    assert report.path == path.name
