"""Model functions: a module-level function of a Python file counted as the model that calling
it with no arguments returns (``AnalyzeOptions(functions=...)``, ``--function``, the hover on its
``def``). Counts that torch gives are checked in tests/parity/test_pymodel_parity.py; here, the
refusals, the positions and the CLI's exit codes."""

from __future__ import annotations

import json
import textwrap

import pytest

from lsp_count.cli import main
from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.source import Position

FACTORIES = "tests/fixtures/pymodels/factories.py"

SOURCE = textwrap.dedent('''\
    import torch.nn as nn


    def wide():
        return nn.Linear(8, 8)


    def builder(width):
        return nn.Linear(width, width)


    def kw_only(*, width):
        return nn.Linear(width, width)


    async def later():
        return nn.Linear(8, 8)


    def width():
        return 8


    def fails():
        raise ValueError("no such variant")


    def imported():
        from elsewhere import Backbone
        return Backbone()
''')


def analyse(*functions: str):
    return analyze_text(SOURCE, "factories.py", AnalyzeOptions(functions=functions))


def test_a_function_with_no_arguments_is_counted_under_its_name_on_its_def() -> None:
    report = analyse("wide")
    assert report.recognized  # no class in the file: the function alone makes it a model file
    [model] = report.models
    assert (model.name, model.tree.total, model.span.start, model.span.end) == ("wide()", 72, Position(3, 4),
                                                                                Position(3, 8))
    assert analyze_text(SOURCE, "factories.py").models == ()  # only when asked


@pytest.mark.parametrize("name, code, message", [
    ("builder", "LC102", "`builder` needs the argument `width`: only a function that builds a model with no "
                         "arguments is counted"),
    ("kw_only", "LC102", "`kw_only` needs the argument `width`"),
    ("later", "LC102", "`later` is `async`: calling it makes a coroutine, not a model"),
    ("width", "LC102", "`width()` returns int, not an nn.Module"),
    ("missing", "LC102", "`missing` is not a module-level function of the file (or its `def` does not parse)"),
    ("fails", "LC101", "`fails()` cannot be counted exactly: the code raises on line 25: "
                       "`ValueError('no such variant')`"),
    ("imported", "LC101", "`imported()` cannot be counted exactly: "),
])
def test_a_function_that_builds_no_model_says_why(name: str, code: str, message: str) -> None:
    report = analyse(name)
    assert report.models == ()
    [problem] = [p for p in report.problems if p.code == code]
    assert problem.message.startswith(message), problem.message
    assert problem.severity == ("error" if code == "LC102" else "warning")


def test_the_cli_counts_a_function_and_exits_by_the_usual_codes(capsys) -> None:
    assert main([FACTORIES, "--function", "vgg11", "--function", "tied_pair", "--json"]) == 0
    models = {m["name"]: m for m in json.loads(capsys.readouterr().out)["files"][0]["models"]}
    assert models["vgg11()"]["params"]["total"] == 132_863_336
    assert models["tied_pair()"]["params"]["total"] == 1_600  # 100 × 16: the tied weight once
    assert main([FACTORIES, "--function", "layer_table"]) == 2
    err = capsys.readouterr().err
    assert f"{FACTORIES}:69:5: error: `layer_table()` returns list, not an nn.Module [LC102]" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["examples/llama-3-8b/config.json", "--function", "vgg11"],
     "--function: counts a function of a Python file; examples/llama-3-8b/config.json is not one"),
    ([FACTORIES, "--function", "vgg-11"], "--function: `vgg-11` is not a Python name"),
])
def test_the_cli_refuses_a_function_it_cannot_look_for(capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    assert f"lsp-count: error: {message}" in capsys.readouterr().err


def test_a_function_asked_for_by_name_has_a_larger_step_budget_than_a_class() -> None:
    # The largest variants of a model family build every block (timm's efficientnet_l2, maxvit_large):
    # a little over a class's budget of 60,000 steps; a function asked for may take 200,000.
    source = textwrap.dedent('''\
        import torch.nn as nn


        def spin(n):
            total = 0
            for _ in range(n):
                for _ in range(n):
                    total += 1
            return total


        class Slow(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(spin(200), 1)


        def slow():
            return Slow()


        def endless():
            spin(400)
            return Slow()
    ''')
    report = analyze_text(source, "slow.py", AnalyzeOptions(functions=("slow", "endless")))
    assert {m.name: m.tree.total for m in report.models} == {"slow()": 40_001}  # 200 × 200 steps, twice
    messages = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}
    assert "took more than 60,000 steps" in messages["Slow"]
    assert "took more than 200,000 steps" in messages["endless()"]


def test_the_functions_alone_are_counted_when_the_classes_are_not_asked_for() -> None:
    """The hover on a function's `def` asks for that function alone: the document's own analysis
    counted its classes."""
    text = SOURCE + textwrap.dedent('''
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)


        class Open(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = nn.Linear(width, 4)
    ''')
    both = analyze_text(text, "factories.py", AnalyzeOptions(functions=("wide",)))
    alone = analyze_text(text, "factories.py", AnalyzeOptions(functions=("wide",), classes=False))
    assert [m.name for m in both.models] == ["Head", "wide()"] and [m.name for m in alone.models] == ["wide()"]
    assert alone.models[0].tree.total == both.models[1].tree.total == 72
    assert any(p.message.startswith("`Open`") for p in both.problems)
    assert not any(p.message.startswith("`Open`") for p in alone.problems)  # its LC101 is the document's
    # Without functions asked for, the option changes nothing: the classes are what is counted.
    assert [m.name for m in analyze_text(text, "factories.py", AnalyzeOptions(classes=False)).models] == ["Head"]
