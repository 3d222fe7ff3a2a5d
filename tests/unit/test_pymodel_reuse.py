"""Re-analysis after an edit (reuse.py): whatever the edit, the analysis that takes unchanged
classes and blocks from the previous one equals a fresh analysis of the new text."""

from __future__ import annotations

import ast
import pathlib
import textwrap
from unittest import mock

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.pymodel import reuse
from lsp_count.pymodel.reuse import PythonMemo, identifiers, split_blocks

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels"
SOURCES = ["nanogpt.py", "resnet.py", "lora.py", "mlp.py", "recurrent.py", "shared_modules.py", "registry_style.py",
           "class_decorators.py"]


def outcome(report) -> tuple:
    """Everything a client sees: counts, trees with their positions, problems, hints."""
    models = [(m.name, m.tree.total, m.tree.trainable, m.tree.notes, m.span,
               [(path, n.total, n.trainable, n.repeat, n.note, n.frozen, n.source, n.tensors)
                for path, n, _ in m.tree.root.walk()]) for m in report.models]
    return models, [(p.severity, p.code, p.message, p.span) for p in report.problems], report.hints, report.hub_refs


def corpus_text(names: tuple[str, ...] = ("nanogpt.py", "resnet.py", "lora.py", "shared_modules.py")) -> str:
    return "\n\n".join((CORPUS / name).read_text() for name in names)


def analysed(text: str) -> PythonMemo:
    """The memo a first analysis of ``text`` leaves."""
    memo = PythonMemo()
    analyze_text(text, "model.py", memo=memo)
    return memo


EDIT_IN_ATTENTION = ("self.n_head = config.n_head", "self.n_head = config.n_head  # heads")


def counted_classes(monkeypatch) -> list[str]:
    """The names of the classes the analyses from now on count (not take from a memo), in order."""
    counted: list[str] = []
    real = reuse.ReusePlan.remember

    def spy(plan, stmt, *args):
        counted.append(stmt.name)
        return real(plan, stmt, *args)

    monkeypatch.setattr(reuse.ReusePlan, "remember", spy)
    return counted


def test_an_edit_in_one_class_recounts_that_class_and_what_uses_it(monkeypatch) -> None:
    text = corpus_text()
    memo = analysed(text)
    counted = counted_classes(monkeypatch)
    edited = text.replace(*EDIT_IN_ATTENTION, 1)
    report = analyze_text(edited, "model.py", memo=memo)
    assert sorted(counted) == ["Block", "CausalSelfAttention", "GPT"]
    assert outcome(report) == outcome(analyze_text(edited, "model.py"))


@pytest.mark.parametrize("name, old, new, reader", [
    # Zoo never names patchnet_small: the function's decorator puts it in the registry Zoo reads.
    ("registry_style.py", "**dict(dict(width=24), **kwargs)", "**dict(dict(width=40), **kwargs)", "Zoo"),
    # Stack never names MlpBlock: its decorators put it in the table Stack reads, with its expansion.
    ("class_decorators.py", "@expands(4)", "@expands(2)", "Stack"),
])
def test_an_edit_in_a_registered_definition_recounts_a_class_that_reads_the_registry(
        name: str, old: str, new: str, reader: str) -> None:
    text = (CORPUS / name).read_text()
    memo = analysed(text)
    edited = text.replace(old, new, 1)
    assert edited != text
    report = analyze_text(edited, "model.py", memo=memo)
    assert outcome(report) == outcome(analyze_text(edited, "model.py"))
    assert {m.name: m.tree.total for m in report.models}[reader] != {
        m.name: m.tree.total for m in analyze_text(text, "model.py").models}[reader]


def test_an_edit_in_a_class_that_an_imported_decorator_registers_recounts_its_readers() -> None:
    # LookedUp never names WideMlp: a decorator imported from block_registry.py puts it in the table.
    path = str(CORPUS / "imported_decorators.py")
    text = (CORPUS / "imported_decorators.py").read_text()
    memo = PythonMemo()
    analyze_text(text, path, memo=memo)
    edited = text.replace("@widened(4)", "@widened(2)", 1)
    assert edited != text
    report = analyze_text(edited, path, memo=memo)
    assert outcome(report) == outcome(analyze_text(edited, path))
    assert {m.name: m.tree.total for m in report.models}["LookedUp"] != {
        m.name: m.tree.total for m in analyze_text(text, path).models}["LookedUp"]


def test_lines_added_above_move_every_position_of_the_reused_classes() -> None:
    text = corpus_text()
    memo = analysed(text)
    moved = "# notes\n\n\n" + text
    report = analyze_text(moved, "model.py", memo=memo)
    fresh = analyze_text(moved, "model.py")
    assert outcome(report) == outcome(fresh)
    gpt = next(m for m in report.models if m.name == "GPT")
    assert gpt.span.start.line == moved.splitlines().index(next(l for l in moved.splitlines() if l.startswith("class GPT(")))


def test_an_edit_parses_only_its_block_and_added_lines_parse_nothing_again(monkeypatch) -> None:
    text = corpus_text()
    memo = analysed(text)
    parsed: list[str] = []
    real = reuse.parse
    monkeypatch.setattr(reuse, "parse", lambda source, *a, **k: parsed.append(source) or real(source, *a, **k))
    edited = text.replace(*EDIT_IN_ATTENTION, 1)
    analyze_text(edited, "model.py", memo=memo)
    assert len(parsed) == 1 and parsed[0].startswith("class CausalSelfAttention(")
    parsed.clear()
    report = analyze_text("# one\n# two\n" + edited, "model.py", memo=memo)
    assert len(parsed) == 1 and parsed[0].startswith("# one\n# two\n")  # the first block only (comments, docstring)
    assert outcome(report) == outcome(analyze_text("# one\n# two\n" + edited, "model.py"))


USES_WIDTH = textwrap.dedent("""
    import torch.nn as nn
    from layers import WIDTH
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(WIDTH, WIDTH)
""")


def test_a_project_file_that_changes_is_read_again(tmp_path) -> None:
    (tmp_path / "layers.py").write_text("import torch.nn as nn\nWIDTH = 8\n")
    model = tmp_path / "model.py"
    text = USES_WIDTH
    options = AnalyzeOptions(base_dir=str(tmp_path))
    memo = PythonMemo()
    first = analyze_text(text, str(model), options, memo=memo)
    assert first.models[0].tree.total == 72
    (tmp_path / "layers.py").write_text("import torch.nn as nn\nWIDTH = 16  # wider\n")
    second = analyze_text(text, str(model), options, memo=memo)
    assert second.models[0].tree.total == 272


# A second class, which an edit changes while the first is kept.
HEAD = """

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
"""


def test_a_kept_class_still_watches_the_project_file_it_read_when_it_was_counted(tmp_path) -> None:
    """Imports are read when first used: after an edit elsewhere, the kept class's file is not
    read again, yet a later change to it must still recount the class."""
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    model = tmp_path / "model.py"
    text = USES_WIDTH + HEAD
    options = AnalyzeOptions(base_dir=str(tmp_path))
    memo = PythonMemo()
    analyze_text(text, str(model), options, memo=memo)
    edited = text.replace("nn.Linear(2, 2)", "nn.Linear(3, 3)")
    second = analyze_text(edited, str(model), options, memo=memo)  # Net is kept; layers.py is not read
    assert [m.tree.total for m in second.models] == [72, 12]
    (tmp_path / "layers.py").write_text("WIDTH = 16  # wider\n")
    third = analyze_text(edited, str(model), options, memo=memo)
    assert [m.tree.total for m in third.models] == [272, 12]


def test_a_kept_class_is_recounted_once_a_module_it_imports_that_was_missing_is_created(tmp_path) -> None:
    """Found in session 33: creating the missing `helpers.py` left `Net` unresolved after an
    edit elsewhere, where a fresh analysis counts it."""
    model = tmp_path / "model.py"
    text = textwrap.dedent("""
        import torch.nn as nn
        from helpers import Wide


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = Wide()
    """) + HEAD
    options = AnalyzeOptions(base_dir=str(tmp_path))
    memo = PythonMemo()
    first = analyze_text(text, str(model), options, memo=memo)
    assert [m.name for m in first.models] == ["Head"]
    (tmp_path / "helpers.py").write_text("import torch.nn as nn\nclass Wide(nn.Module):\n    def __init__(self):\n"
                                         "        super().__init__()\n        self.fc = nn.Linear(10, 10)\n")
    edited = text.replace("nn.Linear(2, 2)", "nn.Linear(3, 3)")
    second = analyze_text(edited, str(model), options, memo=memo)
    assert outcome(second) == outcome(analyze_text(edited, str(model), options))
    assert [(m.name, m.tree.total) for m in second.models] == [("Net", 110), ("Head", 12)]


def test_a_class_that_read_a_data_file_is_counted_again_after_an_edit_elsewhere(tmp_path) -> None:
    """A package data file is read by no import: the count that read it is not kept."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "widths.txt").write_text("12")
    model = tmp_path / "pkg" / "model.py"
    text = textwrap.dedent("""
        import pkgutil
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(int(pkgutil.get_data(__name__, "widths.txt").decode()), 1, bias=False)
    """) + HEAD
    memo = PythonMemo()
    assert [m.tree.total for m in analyze_text(text, str(model), AnalyzeOptions(), memo=memo).models] == [12, 6]
    (tmp_path / "pkg" / "widths.txt").write_text("20")
    edited = text.replace("nn.Linear(2, 2)", "nn.Linear(3, 3)")
    assert [m.tree.total for m in analyze_text(edited, str(model), AnalyzeOptions(), memo=memo).models] == [20, 12]


def test_a_recounted_class_reads_an_unchanged_project_file_without_parsing_it_again(tmp_path) -> None:
    layers = tmp_path / "layers.py"
    layers.write_text("import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self, n):\n"
                      "        super().__init__()\n        self.fc = nn.Linear(n, n)\n")
    text = "import torch.nn as nn\nfrom layers import Block\nclass Net(nn.Module):\n" \
           "    def __init__(self):\n        super().__init__()\n        self.b = Block(4)\n"
    options, memo = AnalyzeOptions(base_dir=str(tmp_path)), PythonMemo()
    model = str(tmp_path / "model.py")
    assert analyze_text(text, model, options, memo=memo).models[0].tree.total == 20
    (key, (_, tree)), = memo.trees.items()
    assert analyze_text(text.replace("Block(4)", "Block(5)"), model, options, memo=memo).models[0].tree.total == 30
    assert memo.trees[key][1] is tree  # Net was counted again, from the same parse of layers.py
    layers.write_text(layers.read_text().replace("nn.Linear(n, n)", "nn.Linear(n, n, bias=False)"))
    assert analyze_text(text, model, options, memo=memo).models[0].tree.total == 16
    assert memo.trees[key][1] is not tree


def test_documents_that_share_trees_parse_a_project_file_once(tmp_path) -> None:
    """The language server hands every document's memo one dict of project files' trees."""
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    shared: dict = {}
    options = AnalyzeOptions(base_dir=str(tmp_path))
    first = analyze_text(USES_WIDTH, str(tmp_path / "a.py"), options, memo=PythonMemo(shared))
    (key, (_, tree)), = shared.items()
    second = analyze_text(USES_WIDTH.replace("WIDTH, WIDTH", "WIDTH, 1"), str(tmp_path / "b.py"), options,
                          memo=PythonMemo(shared))
    assert [m.tree.total for m in first.models + second.models] == [72, 9]
    assert shared[key][1] is tree


def test_one_cli_or_gate_run_parses_a_shared_project_file_once(tmp_path, monkeypatch, capsys) -> None:
    """The CLI and the gate analyse each file from nothing but lend the next file the project
    files' trees (a memo that keeps nothing else)."""
    from lsp_count import check, cli
    from lsp_count.core.budget import BudgetConfig
    from lsp_count.pymodel import loader

    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", "off")  # the sharing within one run (tree_cache: between runs)
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    models = [tmp_path / "a.py", tmp_path / "b.py"]
    models[0].write_text(USES_WIDTH)
    models[1].write_text(USES_WIDTH.replace("class Net(", "class Other("))
    parsed: list[str] = []
    real = loader.parse
    monkeypatch.setattr(loader, "parse", lambda source, filename="<unknown>": parsed.append(filename) or
                        real(source, filename))
    assert cli.main([str(m) for m in models]) == 0
    assert capsys.readouterr().out.count("72") >= 2  # each file's class: Linear(8, 8)
    assert [pathlib.Path(f).name for f in parsed] == ["layers.py"]
    parsed.clear()
    results = check.check_files([str(m) for m in models], BudgetConfig(), jobs=1)
    assert [[m.params for m in r.models] for r in results] == [[72], [72]]
    assert [pathlib.Path(f).name for f in parsed] == ["layers.py"]


def test_a_memo_that_only_lends_trees_keeps_nothing_else(tmp_path) -> None:
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    memo = PythonMemo(reuse=False)
    report = analyze_text(USES_WIDTH, str(tmp_path / "a.py"), AnalyzeOptions(base_dir=str(tmp_path)), memo=memo)
    assert [m.tree.total for m in report.models] == [72]
    assert memo.classes == {} and memo.blocks == ({}, 0) and memo.files == {} and len(memo.trees) == 1


def test_identifiers_cover_every_name_the_code_uses_and_skip_strings_and_comments() -> None:
    for name in SOURCES:
        tree = ast.parse((CORPUS / name).read_text())
        lines = (CORPUS / name).read_text().split("\n")
        for stmt in tree.body:
            first = min([d.lineno for d in getattr(stmt, "decorator_list", ())] + [stmt.lineno])
            text = "\n".join(lines[first - 1:stmt.end_lineno])
            names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
            assert names <= identifiers(text), (name, stmt.lineno)
    assert identifiers('"""GPT-style"""\nx = f"{Block(1)}" + "MLP"  # Norm') == {"x", "f", "Block"}


def test_a_quote_left_open_in_a_line_that_does_not_parse_hides_no_dependency() -> None:
    # Read as one text, the unclosed quote pairs with the docstring in Net: the constructor that
    # calls `width` looks like a string. Net must still depend on `width`.
    text = textwrap.dedent('''
        import torch.nn as nn


        def oops():
            s = """never closed


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(width(), 2)

            def extra_repr(self):
                """Nothing more."""
                return ""


        def width():
            return 8
    ''')
    memo = analysed(text)
    assert [m.tree.total for m in analyze_text(text, "model.py").models] == [18]
    wider = text.replace("return 8", "return 16")
    assert [m.tree.total for m in analyze_text(wider, "model.py", memo=memo).models] == [34]


def test_blocks_split_before_top_level_statements_and_keep_decorators_else_and_docstrings() -> None:
    lines = ["import a", "", "@dataclass", "class C:", "    x = 1", "try:", "    import b", "except ImportError:",
             "    b = None", "# note", "def f():", "    pass"]
    assert split_blocks(lines) == [(0, 2), (2, 5), (5, 10), (10, 12)]
    docstrings = ['"""Module doc,', "continued at column 0", '"""', "import x", "s = \'\'\'", "class A: pass", "\'\'\'",
                  '# """ in a comment', "def f(): pass"]
    assert split_blocks(docstrings) == [(0, 3), (3, 4), (4, 8), (8, 9)]
    # A decorator's call over several lines (transformers' `@auto_docstring(custom_intro="""...""")`)
    # and the decorators stacked on it belong to the class after them.
    decorated = ["import a", "@auto_docstring(", '    custom_intro="""', "Doc at column 0.", '    """', ")",
                 "@other", "class C:", "    x = 1", "y = 2"]
    assert split_blocks(decorated) == [(0, 1), (1, 9), (9, 10)]


def test_an_edit_parses_only_its_block_where_classes_have_decorators_over_several_lines() -> None:
    text = "import torch.nn as nn\n" + "".join(
        f'@decorate(\n    doc="""\nText.\n"""\n)\nclass Net{i}(nn.Module):\n    def __init__(self):\n'
        f'        super().__init__()\n        self.fc = nn.Linear({i + 1}, 2)\n\n' for i in range(6)) + \
        "def decorate(doc):\n    return lambda cls: cls\n"
    memo = analysed(text)
    parsed: list[str] = []
    real_parse = reuse.parse

    def counting_parse(source: str, filename: str = "<unknown>") -> ast.Module:
        parsed.append(source)
        return real_parse(source, filename)

    edited = text.replace("nn.Linear(3, 2)", "nn.Linear(3, 5)")
    with mock.patch.object(reuse, "parse", counting_parse):
        report = analyze_text(edited, "model.py", memo=memo)
    assert [len(s.split("\n")) for s in parsed] == [10] and "Linear(3, 5)" in parsed[0]
    assert report.models == analyze_text(edited, "model.py").models


_EDITS = st.sampled_from(["number", "blank_line", "delete_line", "break", "rename", "comment", "dedent", "duplicate",
                          "import", "new_block", "move_block"])


def edited(text: str, kind: str, seed: int) -> str:
    """``text`` with one edit of the kind a user makes while typing (_EDITS)."""
    lines = text.split("\n")
    i = seed % len(lines)
    if kind == "number":
        digits = [j for j, ln in enumerate(lines) if any(c.isdigit() for c in ln) and not ln.lstrip().startswith("#")]
        j = digits[seed % len(digits)]
        k = next(p for p, c in enumerate(lines[j]) if c.isdigit())
        lines[j] = lines[j][:k] + str(seed % 7 + 1) + lines[j][k + 1:]
    elif kind == "blank_line":
        lines.insert(i, "")
    elif kind == "delete_line":
        del lines[i]
    elif kind == "break":
        lines[i] = lines[i] + " ("  # a syntax error in the middle of a block
    elif kind == "rename":
        lines = [ln.replace("class MLP(", "class MLP2(") for ln in lines]
    elif kind == "dedent":
        lines[i] = lines[i].lstrip()  # a line of a method becomes a top-level statement, or breaks
    elif kind == "duplicate":
        lines[i:i] = lines[i:i + seed % 12]
    elif kind == "new_block":  # a helper defined between two classes
        at = next((j for j in range(i, len(lines)) if lines[j].startswith("class ")), len(lines))
        lines[at:at] = ["def helper(d):", "    return d * 2", ""]
    elif kind == "move_block":  # the first class moved to the end of the file
        starts = [j for j, ln in enumerate(lines) if ln.startswith("class ")]
        if len(starts) > 1:
            block = lines[starts[0]:starts[1]]
            lines = lines[:starts[0]] + lines[starts[1]:] + [""] + block
    elif kind == "import":
        lines = [ln.replace("import torch.nn as nn", "import torch.nn as nn  # torch", 1) for ln in lines]
    else:
        lines.insert(i, "# a comment")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_EDITS, st.integers(0, 10**6)), min_size=1, max_size=6))
def test_any_sequence_of_edits_gives_what_a_fresh_analysis_gives(edits) -> None:
    text = corpus_text(tuple(SOURCES))  # two classes named MLP, two config classes: the odd cases too
    memo = analysed(text)
    for kind, seed in edits:
        text = edited(text, kind, seed)
        assert outcome(analyze_text(text, "model.py", memo=memo)) == outcome(analyze_text(text, "model.py"))
