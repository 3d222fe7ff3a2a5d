"""Reading project files (loader.py): function bodies parsed when first called give the same
tree as parsing the file whole."""

from __future__ import annotations

import ast
import pathlib
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.pymodel import loader
from lsp_count.pymodel.loader import body_of, parse_deferring_bodies

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"


def filled(tree: ast.Module) -> tuple[ast.Module, int]:
    """The tree with every deferred body parsed, and how many there were."""
    deferred = 0
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and hasattr(node, "deferred"):
            deferred += 1
            body_of(node)
        stack.extend(ast.iter_child_nodes(node))
    return tree, deferred


def positions(tree: ast.Module) -> list[tuple[str, int, int, int | None, int | None]]:
    """Every node's place; a block's end (class, if, try, except: where its last statement
    ends) is not kept while that statement is a function whose body was not parsed."""
    out = []
    for node in ast.walk(tree):
        if hasattr(node, "lineno"):
            block = isinstance(node, (ast.stmt, ast.excepthandler)) and hasattr(node, "body") and not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef))  # an `except` handler is a block too
            out.append((type(node).__name__, node.lineno, node.col_offset,
                        None if block else node.end_lineno, None if block else node.end_col_offset))
    return out


def same_as_whole(text: str) -> int:
    tree, deferred = filled(parse_deferring_bodies(text, "m.py"))
    whole = ast.parse(text)
    assert ast.dump(tree) == ast.dump(whole)
    assert positions(tree) == positions(whole)
    return deferred


def installed_sources() -> list[pathlib.Path]:
    """Real project files: the installed torch.nn and transformers (what users' models import)."""
    files: list[pathlib.Path] = sorted(FIXTURES.rglob("*.py"))
    for package, pattern in (("torch", "nn/**/*.py"), ("transformers", "*.py"), ("transformers", "models/*/modeling_*.py")):
        try:
            root = pathlib.Path(__import__(package).__file__).parent
        except ImportError:
            continue
        files += sorted(root.glob(pattern))[::7]
    return files


def test_real_files_give_the_whole_file_tree() -> None:
    files = installed_sources()
    deferred = sum(same_as_whole(path.read_text(encoding="utf-8")) for path in files)
    assert deferred > 100  # most bodies were left for later


CUT_TRAPS = {
    "a docstring holding a def": '''
        class A:
            def f(self):
                """Example:

            def g(x):
                return x
                """
                return 1
    ''',
    "a string at column 0": '''
        class A:
            def f(self):
                s = """
        text
        """
                return s

            def g(self):
                return 2
    ''',
    "brackets crossing the cut": '''
        class A:
            def f(self):
                x = dict(
        a=1)
                return x
    ''',
    "a continued line": '''
        class A:
            def f(self):
                x = 1 + \\
        2
                return x
    ''',
    "a body on the def line, comments and decorators": '''
        import functools
        class A:
            def f(self): return 1
            @functools.cache
            def g(self):  # about g
        # a comment at column 0
                return 2
            async def h(self):
                async with x:
                    pass
            def i(self,
                  y):
                return y
    ''',
    "signatures over several lines": '''
        class A:
            def forward(
                self,
                x: "Tensor(",  # an unclosed bracket in a string
                y=[1,
                   2],
            ) -> dict[
                str, int
            ]:
                return {"a": x}

            def other(self, a=")"):
                return a

            def commented(self, a):  # (
                return a

            def inline(self, a=(1,
                                2)): return a
    ''',
    "nested functions and classes": '''
        def outer(n):
            def inner(m):
                class Local:
                    def method(self):
                        return m
                return Local
            return inner(n)
        if True:
            def conditional():
                return 3
        try:
            def guarded():
                return 4
        except ImportError:
            pass
    ''',
}


@pytest.mark.parametrize("name", sorted(CUT_TRAPS))
def test_cuts_that_could_go_wrong_give_the_whole_file_tree(name: str, monkeypatch) -> None:
    monkeypatch.setattr(loader, "WHOLE_BELOW_LINES", 0)
    same_as_whole(textwrap.dedent(CUT_TRAPS[name]))


def test_a_def_in_a_docstring_is_left_in_it_and_the_other_bodies_deferred(monkeypatch) -> None:
    monkeypatch.setattr(loader, "WHOLE_BELOW_LINES", 0)
    text = textwrap.dedent('''
        class Kwargs:
            """How to use it:

            ```python
            class Model:
                def __call__(self, x):
                    y = x
            ```
            """

            def real(self):
                return 1
    ''')
    assert same_as_whole(text) == 1  # `real` only; the docstring keeps its text


def test_a_body_with_a_line_indented_by_a_tab_is_parsed_with_the_file_and_the_others_deferred(monkeypatch) -> None:
    # transformers' generation/utils.py has tab-indented lines in one docstring: the whole file was
    # parsed for them (a fifth of a modeling file's reading).
    monkeypatch.setattr(loader, "WHOLE_BELOW_LINES", 0)
    docstring = 'class A:\n    def f(self):\n        """\n\t\tsaid with tabs\n\t\t"""\n        return 1\n\n' \
        '    def g(self):\n        return 2\n'
    assert same_as_whole(docstring) == 1  # g
    code = 'class A:\n    def f(self):\n        x = dict(\n\t\ta=1)\n        return x\n\n    def g(self):\n        return 2\n'
    assert same_as_whole(code) == 1
    # A tab after spaces, a body whose first line is indented by a tab, a def at column 0 with tab-indented lines
    mixed = 'def f():\n    y = [\n    \t1]\n    return y\n\ndef g():\n    return 2\n'
    assert same_as_whole(mixed) == 1
    assert same_as_whole('def f():\n\treturn 1\n\ndef g():\n    return 2\n') == 1
    # The lines after a tab-indented one still end the body they close.
    assert same_as_whole('if True:\n\tz = 1\ndef h():\n    return 3\nw = h()\n') == 1


def test_generation_utils_of_transformers_defers_its_bodies() -> None:
    transformers = pytest.importorskip("transformers")
    path = pathlib.Path(transformers.__file__).parent / "generation" / "utils.py"
    text = path.read_text(encoding="utf-8")
    assert "\t" in text  # what made the whole file parse before; if it is gone, this checks nothing more
    assert same_as_whole(text) > 30


def test_def_lines_are_the_lines_a_pattern_from_a_newline_finds() -> None:
    # _def_lines replaced re.finditer of this pattern (twice as slow): the same lines, on odd text and real files.
    import re

    pattern = re.compile(r"\n( *)(def [^\n]*|async +def [^\n]*)")

    def by_pattern(text: str) -> list[tuple[int, int, int, str]]:
        return [(m.start(1) - 1, len(m.group(1)), m.end() - 1, m.group(2)) for m in pattern.finditer("\n" + text)]

    odd = ["def f(): pass", "x = 1; def g(): pass\n", "  async   def f():\n    pass\n", "\tdef f():\n", "undef x\n",
           "define = 1\ndef", "  def f(): pass  # def g():\ndef h():\n", "asyncdef f():\n", "xasync def f():\n",
           "\n\n    def a():\n        def b():\n            return 1\r\n", ""]
    texts = odd + [path.read_text(encoding="utf-8") for path in installed_sources()]
    assert [list(loader._def_lines(t)) for t in texts] == [by_pattern(t) for t in texts]


def test_tabs_and_short_files_parse_whole() -> None:
    assert same_as_whole("class A:\n\tdef f(self):\n\t\treturn 1\n" * 20) == 0
    assert same_as_whole("class A:\n    def f(self):\n        return 1\n" * 12) == 0
    assert same_as_whole("class A:\n    def f(self):\n        return 1\n" * 14) == 14


def with_helpers(tmp_path: pathlib.Path, functions: str, model: str):
    """The report of ``model`` (a file's text), beside a project file helpers.py that holds
    ``functions`` after thirty others, long enough for its bodies to be parsed when called."""
    helpers = "import torch.nn as nn\n" + "".join(f"def unused_{i}():\n    return {i}\n" for i in range(30)) + functions
    (tmp_path / "helpers.py").write_text(helpers)
    return analyze_text(textwrap.dedent(model), str(tmp_path / "model.py"), AnalyzeOptions())


def test_a_body_that_does_not_parse_is_found_when_called(tmp_path) -> None:
    report = with_helpers(tmp_path, "def make(n):\n    return nn.Linear(n, n\n\ndef fine(n):\n    return nn.Linear(n, n)\n", """
        import torch.nn as nn
        from helpers import make, fine
        class Broken(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = make(3)
        class Fine(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = fine(3)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Fine", 12)]
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    assert "`Broken`" in problem.message and "`make` does not parse: '(' was never closed (line 63 of helpers.py)" \
        in problem.message


def test_a_generator_in_a_deferred_body_is_run_as_one(tmp_path) -> None:
    # A body parsed on its first call is known to be no generator when its text has no `yield`; one
    # that yields (directly, or only in a function it defines) is walked as any other body.
    functions = "def widths(n):\n    for i in range(n):\n        yield 2 ** i\n\n" \
        "def plain(n):\n    def inner():\n        yield n\n    return [n, n]\n"
    report = with_helpers(tmp_path, functions, """
        import torch.nn as nn
        from helpers import widths, plain
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fcs = nn.ModuleList([nn.Linear(w, 1, bias=False) for w in widths(3)])
                self.head = nn.Linear(len(plain(5)), 1, bias=False)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 1 + 2 + 4 + 2)], report.problems


def test_two_analyses_may_fill_the_same_body_at_once() -> None:
    """The language server's worker threads share project files' trees."""
    import sys
    import threading

    text = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(60))
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as Python allows
    try:
        for _ in range(20):
            tree = parse_deferring_bodies(text, "m.py")
            errors: list[BaseException] = []

            def fill() -> None:
                try:
                    for node in tree.body:
                        body_of(node)  # type: ignore[arg-type]
                except BaseException as exc:  # noqa: BLE001 - the test reports it
                    errors.append(exc)

            threads = [threading.Thread(target=fill) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert errors == []
            assert ast.dump(tree) == ast.dump(ast.parse(text))
    finally:
        sys.setswitchinterval(previous)


def test_threads_may_parse_at_once_while_the_collector_runs_finalizers() -> None:
    """CPython 3.11's AST converter keeps its recursion depth in interpreter-wide state: a
    finalizer run by the collector mid-parse hands the GIL to another parsing thread, and the
    first one fails with SystemError (python/cpython#106905). syntax.parse takes a lock."""
    import gc
    import threading
    import time

    from lsp_count.pymodel.syntax import parse

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            time.sleep(0)  # lets another thread run

    text = "".join(f"def f{i}(x):\n    return [x + {i} for _ in range(3)]\n" for i in range(200))
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(100):
            for _ in range(20):
                Cycle()
            try:
                parse(text)
            except SystemError as exc:
                errors.append(exc)

    threshold = gc.get_threshold()
    gc.set_threshold(50)
    try:
        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        gc.set_threshold(*threshold)
    assert errors == []
