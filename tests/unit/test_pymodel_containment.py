"""A bug of the analyser on odd code costs the class it hit, not the file: the other classes are
counted and the class gets an LC001 error saying so (the CLI and the gate print it; no traceback).
The bug is injected here: the fuzzers find real ones, and each is fixed with its own test."""

from __future__ import annotations

import textwrap

from lsp_count.cli import main
from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.pymodel import analyzer, interp

SOURCE = textwrap.dedent("""
    import torch.nn as nn

    class Good(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
""")


def test_a_bug_in_one_class_leaves_the_others_counted(monkeypatch) -> None:
    real = analyzer.count_class

    def count_class(interpreter, cls, *args):
        if cls.name == "Broken":
            raise TypeError("an injected bug")
        return real(interpreter, cls, *args)

    monkeypatch.setattr(analyzer, "count_class", count_class)
    report = analyze_text(SOURCE, "model.py", AnalyzeOptions())
    assert {m.name: m.tree.total for m in report.models} == {"Good": 20}
    [problem] = [p for p in report.problems if p.code == "LC001"]
    assert problem.severity == "error" and problem.span is not None
    assert problem.message == ("lsp-count could not analyse `Broken`: TypeError: an injected bug (a bug in lsp-count; "
                               "please report it with the file)")


def test_a_bug_in_the_module_level_code_is_an_error_not_a_traceback(monkeypatch, tmp_path, capsys) -> None:
    def run_module(self, tree, scope):
        raise KeyError("injected")

    monkeypatch.setattr(interp.Interpreter, "run_module", run_module)
    report = analyze_text(SOURCE, "model.py", AnalyzeOptions())
    assert report.models == ()
    assert [p.message for p in report.problems] == [
        "lsp-count could not analyse this file: KeyError: 'injected' (a bug in lsp-count; please report it with the file)"]
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    code = main([str(path)])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    assert "could not analyse this file" in out.out + out.err
    assert code == 2
