"""What one analysis of a Python model file lends the next analysis of the same document.

The language server re-analyses a file after each edit. A class's count depends only on
the text of its own top-level block and of the blocks it can reach by name (its bases,
the helpers and classes it calls, the module's other statements: imports, constants), so
after an edit inside one class, every class that cannot reach that class is taken from
the previous analysis instead of being built again. Blocks that moved (lines added above
them) keep their results, with every position moved by as many lines, and only blocks whose
text is new are parsed again.

The set of reachable blocks is found from the identifiers in each block's text, a
superset of the names the code can look up: a dependency is never missed, at worst one
is assumed that does not exist.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, replace
from typing import Any

from lsp_count.core.params import ParamNode
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Position, Problem, Span
from lsp_count.pymodel.loader import file_stamp
from lsp_count.pymodel.syntax import decorator_name, documentation_decorator, may_import_project, parse

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# Comments and string literals, whose words are not names the code looks up (a docstring saying
# "GPT-style model" does not make every class depend on GPT). Every alternative starts with one
# of # ' ", which the regex engine scans for quickly; _code_only looks at a string's prefix.
_NOT_CODE = re.compile(r"""\#[^\n]*|\"\"\"[\s\S]*?\"\"\"|'\'\'[\s\S]*?'\'\'|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""")


def _code_only(text: str) -> str:
    """``text`` with comments and strings blanked, line for line; an f-string is kept (the
    expressions in it are code)."""
    def blank(m: re.Match[str]) -> str:
        found = m.group(0)
        if found[0] != "#":
            i = m.start() - 1
            while i >= 0 and m.start() - i <= 3 and text[i] in "rRbBuUfF":
                if text[i] in "fF":
                    return found
                i -= 1
        return "\n" * found.count("\n") or " "
    return _NOT_CODE.sub(blank, text)


def identifiers(text: str) -> frozenset[str]:
    """The words of a block that can be names: a superset of the names its code looks up."""
    return frozenset(_IDENTIFIER.findall(_code_only(text)))


# A message that names a line ("the while loop on line 12") cannot be moved by rewriting positions.
_NAMES_A_LINE = re.compile(r"\blines? \d")

Hints = dict[Span, frozenset[int | None]]


@dataclass(frozen=True)
class ClassResult:
    """One class's results and what they were computed from."""

    key: tuple[Any, ...]  # the options, the file's config classes, and the texts of the blocks it depends on
    # Where those blocks were: (first line, line after the last), 0-based; the blocks every class
    # depends on (one tuple for all the classes of an analysis), then the class's own.
    shared_ranges: tuple[tuple[int, int], ...]
    own_ranges: tuple[tuple[int, int], ...]
    report: ModelReport | None
    problem: Problem | None
    hints: tuple[tuple[Span, frozenset[int | None]], ...]
    names_a_line: bool


class PythonMemo:
    """Kept by the caller (the language server keeps one per open document) and handed to each
    analysis of that document; it is replaced whole at the end of an analysis, so an analysis
    reads a consistent memo even when two overlap."""

    def __init__(self, trees: dict[str, tuple[tuple[int, int], ast.Module]] | None = None,
                 reuse: bool = True, from_disk: bool = False, to_disk: bool = False) -> None:
        """``trees``: project files' parse trees shared with other documents' memos (the language
        server keeps one for all: the files of a package import the same modules). ``reuse``:
        False for a memo that only lends those trees. ``from_disk``: the first analysis starts
        from the results an earlier run stored (memo_store.py); ``to_disk``: each analysis that
        counted a class stores them (the CLI and the gate; the language server stores a
        document's when it is saved or closed, not at each keystroke)."""
        self.reuse = reuse
        self.from_disk = from_disk
        self.to_disk = to_disk
        # Where the results are stored (memo_store.load's arguments), once an analysis has run.
        self.disk_key: tuple[str, tuple[Any, ...]] | None = None
        self.classes: dict[tuple[str, int], ClassResult] = {}
        # Project files the last analysis read: (mtime, size); None for a module file its imports
        # looked for and did not find (it must still be missing).
        self.files: dict[str, tuple[int, int] | None] = {}
        self.identifiers: dict[str, frozenset[str]] = {}  # block text -> identifiers in it
        # The parsed blocks: (block text, how many earlier blocks have the same text) -> (its first
        # line in the statements' own numbering, its statements), and where the next block parsed
        # alone is numbered from (past all of them). A block keeps its statements when lines are
        # added above it: their line numbers are then not the file's, and a LineMap says which.
        # One attribute, set at once: two analyses of a document may run at the same time.
        self.blocks: tuple[dict[tuple[str, int], tuple[int, list[ast.stmt]]], int] = ({}, 0)
        # The project files' parse trees, by path: ((mtime, size), tree). An edit that recounts a
        # class built from another file's classes reads that file again, but need not parse it.
        self.trees: dict[str, tuple[tuple[int, int], ast.Module]] = trees if trees is not None else {}


class LineMap:
    """Lines of blocks that moved -> where they are now, each block by its own amount: the
    statements' line numbers (1-based, as ast gives them; blocks parsed at different times are
    numbered apart) -> the file's, and a kept result's old lines -> its new ones."""

    def __init__(self, pieces: list[tuple[int, int, int]]) -> None:
        pieces.sort()
        self.starts = [first for first, _, _ in pieces]
        self.pieces = pieces  # (first line, line after the last, what to add)
        self.identity = all(delta == 0 for _, _, delta in pieces)

    @staticmethod
    def between(old: tuple[tuple[int, int], ...], new: tuple[tuple[int, int], ...]) -> "LineMap":
        """From where blocks were, (first, after the last), to where the same blocks are now."""
        return LineMap([(a[0], a[1], b[0] - a[0]) for a, b in zip(old, new)])

    def moved(self, lineno: int) -> int | None:
        """Where the line is now; None for a line in none of the blocks."""
        i = bisect.bisect_right(self.starts, lineno) - 1
        if i < 0 or lineno >= self.pieces[i][1]:
            return None
        return lineno + self.pieces[i][2]

    def line(self, lineno: int) -> int:
        """The file's line of a statement's line (a line in no block is left as it is: never asked for)."""
        if self.identity:
            return lineno
        moved = self.moved(lineno)
        return lineno if moved is None else moved


# A top-level block starts at a line that starts with a name or a decorator; these go on a block.
_CONTINUES = ("else", "elif", "except", "finally")
_DEFINITIONS = ("class", "def", "async")
_TRIPLE_OR_COMMENT = re.compile(r"\"\"\"|'''|#")


def split_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """The file cut before each line that can start a top-level statement: (first line, line after
    the last), 0-based. A cut inside a string or brackets makes a block that does not parse, and
    the caller then parses the file whole, so a wrong cut costs time, never a wrong tree."""
    starts: list[int] = []
    open_quote: str | None = None  # inside a triple-quoted string (a docstring's lines start anywhere)
    for i, line in enumerate(lines):
        inside = open_quote is not None
        if '"""' in line or "'''" in line:
            for m in _TRIPLE_OR_COMMENT.finditer(line):
                mark = m.group(0)
                if open_quote is None:
                    if mark == "#":
                        break  # the rest of the line is a comment
                    open_quote = mark
                elif mark == open_quote:
                    open_quote = None
        if inside:
            continue
        c = line[:1]
        if not (c.isalpha() or c == "_" or c == "@"):
            continue
        if line.startswith(_CONTINUES) and line.split(None, 1)[0].rstrip(":") in _CONTINUES:
            continue
        if starts and lines[starts[-1]].startswith("@") and not any(
                lines[j].startswith(_DEFINITIONS) for j in range(starts[-1] + 1, i)):
            # A decorator belongs to the definition after it, its call's lines too
            # (transformers' `@auto_docstring(custom_intro="""...""")`).
            continue
        starts.append(i)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # the module docstring, comments and blank lines at the top
    return [(a, b) for a, b in zip(starts, starts[1:] + [len(lines)])]


def _block_keys(lines: list[str], blocks: list[tuple[int, int]]) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    keys = []
    for a, b in blocks:
        text = "\n".join(lines[a:b])
        k = seen.get(text, 0)
        seen[text] = k + 1
        keys.append((text, k))
    return keys


def parse_blocks(memo: PythonMemo, lines: list[str], blocks: list[tuple[int, int]]) -> tuple[list[ast.stmt], LineMap] | None:
    """The module's statements, parsing only the blocks (split_blocks) whose text is new since the
    last call (the others keep the statements parsed then, wherever they are now); None when a
    block does not parse on its own or most of the file must be parsed anyway: the caller parses
    the whole file."""
    cached, next_line = memo.blocks
    keys = _block_keys(lines, blocks)
    todo = sum(b - a for (a, b), key in zip(blocks, keys) if key not in cached)
    if todo * 2 > len(lines):
        return None
    body: list[ast.stmt] = []
    parsed: dict[tuple[str, int], tuple[int, list[ast.stmt]]] = {}
    pieces: list[tuple[int, int, int]] = []
    for (a, b), key in zip(blocks, keys):
        found = cached.get(key)
        if found is None:
            try:
                stmts = parse(key[0]).body
            except (SyntaxError, ValueError):
                return None
            for stmt in stmts:  # numbered past every other block, so that no two blocks share a line
                ast.increment_lineno(stmt, next_line)
            found = (next_line, stmts)
            next_line += b - a + 1
        first, stmts = found
        parsed[key] = found
        pieces.append((first + 1, first + 1 + (b - a), a - first))
        body.extend(stmts)
    memo.blocks = (parsed, next_line)
    return body, LineMap(pieces)


def remember_blocks(memo: PythonMemo, lines: list[str], blocks: list[tuple[int, int]], body: list[ast.stmt]) -> None:
    """After a whole-file parse: each block's statements, for the next parse_blocks (when every
    statement lies within one block)."""
    parsed: dict[tuple[str, int], tuple[int, list[ast.stmt]]] = {}
    i = 0
    for (a, b), key in zip(blocks, _block_keys(lines, blocks)):
        stmts = []
        while i < len(body) and body[i].lineno - 1 < b:
            stmt = body[i]
            first = min([d.lineno for d in getattr(stmt, "decorator_list", ())] + [stmt.lineno]) - 1
            if first < a or (stmt.end_lineno or stmt.lineno) > b:
                memo.blocks = ({}, 0)
                return
            stmts.append(stmt)
            i += 1
        parsed[key] = (a, stmts)
    memo.blocks = (parsed, len(lines) + 1)


def _project_imports(stmt: ast.stmt) -> list[str]:
    """The names a module-level statement imports from the project (in a `try` or an `if` too)."""
    names: list[str] = []
    for node in ast.walk(stmt) if isinstance(stmt, ast.Try | ast.If | ast.With) else (stmt,):
        if isinstance(node, ast.ImportFrom) and may_import_project(node.module, node.level):
            names.extend(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names if may_import_project(a.name, 0))
    return names


class ReusePlan:
    """One analysis's view of the memo: which classes can be taken from it, and the results
    that the next analysis will find in it."""

    def __init__(self, memo: PythonMemo, body: list[ast.stmt], lines: list[str], options_key: Any,
                 config_names: tuple[str, ...], line_of: Any = None, repaired: set[int] | None = None) -> None:
        """``line_of``: a statement's line number -> the file's (LineMap.line; identity by default).
        ``repaired``: None when the file parsed; else the lines (1-based) the tolerant parse replaced."""
        line_of = line_of or (lambda n: n)
        self.memo = memo
        self.previous = memo.classes
        if any(file_stamp(path) != stamp for path, stamp in memo.files.items()):
            self.previous = {}  # a project file the classes import has changed: count them all again
        self.results: dict[tuple[str, int], ClassResult] = {}
        self.reused_any = False
        self.remembered = 0  # classes counted by this analysis and kept
        self.ranges: list[tuple[int, int]] = []
        self.texts: list[str] = []
        self.defined: dict[str, list[int]] = {}
        self.context: list[int] = []
        self.index: dict[int, int] = {}  # id(stmt) -> its position in body
        self.slots: dict[int, tuple[str, int]] = {}  # id(stmt) -> (name, how many earlier blocks define it)
        words: dict[str, frozenset[str]] = {}
        # The functions defined so far and the names imported from the project: a class's decorators among them.
        functions: set[str] = set()
        code_lines: list[str] | None = None  # the whole file's code, when most blocks are new
        for i, stmt in enumerate(body):
            first = line_of(min([d.lineno for d in getattr(stmt, "decorator_list", ())] + [stmt.lineno])) - 1
            last = line_of(stmt.end_lineno or stmt.lineno)
            text = "\n".join(lines[first:last])
            self.ranges.append((first, last))
            self.texts.append(text)
            self.index[id(stmt)] = i
            # When the file does not parse, a quote in the lines that do not (or in the blocks
            # dropped) can open a "string" that hides the code after it: a statement that parsed has
            # its strings closed, and one with a replaced line is read with its strings and comments.
            if repaired and any(first < n <= last for n in repaired):
                found = frozenset(_IDENTIFIER.findall(text))
            else:
                found = memo.identifiers.get(text)
                if found is None and repaired is not None:
                    found = identifiers(text)
            if found is None:
                if code_lines is None and len(memo.identifiers) < len(body) // 2:
                    # No string or comment spans two statements: the file's code, cut by statement,
                    # is each statement's code.
                    code_lines = _code_only("\n".join(lines)).split("\n")
                if code_lines is not None:
                    found = frozenset(_IDENTIFIER.findall("\n".join(code_lines[first:last])))
                else:
                    found = identifiers(text)
            words[text] = found
            if isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                # A file may define a name twice: the second MLP is ("MLP", 1).
                self.slots[id(stmt)] = (stmt.name, len(self.defined.get(stmt.name, ())))
                self.defined.setdefault(stmt.name, []).append(i)
                if stmt.name in config_names:
                    self.context.append(i)
                elif not isinstance(stmt, ast.ClassDef) and stmt.decorator_list:
                    # The project's decorators run when the module does (timm's @register_model fills
                    # a registry that code which never names the function reads): a statement.
                    self.context.append(i)
                elif isinstance(stmt, ast.ClassDef) and any(decorator_name(d) in functions and not documentation_decorator(d)
                                                            for d in stmt.decorator_list):
                    # So do a class's project decorators (Interpreter.decorate_class).
                    self.context.append(i)
                if not isinstance(stmt, ast.ClassDef):
                    functions.add(stmt.name)
            else:
                self.context.append(i)
                functions.update(_project_imports(stmt))
        memo.identifiers = words  # only the blocks the document has now
        names = set(self.defined)
        # The blocks each block names, then all that the module's own statements reach: every class
        # depends on those; a class adds what it reaches itself.
        self.direct = [[j for name in words[text] & names for j in self.defined[name]] for text in self.texts]
        shared = self._reach(self.context, set())
        self.shared = shared
        self.shared_key = (options_key, config_names, tuple(self.texts[i] for i in sorted(shared)))
        self.shared_ranges = tuple(self.ranges[i] for i in sorted(shared))
        self.shared_maps: dict[int, tuple[tuple[tuple[int, int], ...], LineMap]] = {}
        self.shared_equal: dict[int, tuple[tuple[Any, ...], bool]] = {}

    def _reach(self, start: list[int], known: set[int]) -> set[int]:
        seen: set[int] = set()
        todo = list(start)
        while todo:
            i = todo.pop()
            if i in seen or i in known:
                continue
            seen.add(i)
            todo.extend(self.direct[i])
        return seen

    def key_of(self, stmt: ast.stmt) -> tuple[tuple[Any, ...], tuple[tuple[int, int], ...]]:
        """What the class's count depends on, and where the class's own blocks are."""
        own = sorted(self._reach([self.index[id(stmt)]], self.shared))
        return (self.shared_key, tuple(self.texts[i] for i in own)), tuple(self.ranges[i] for i in own)

    def _same_shared(self, old: tuple[Any, ...]) -> bool:
        """Whether an old key's shared part (one object for all the classes of an analysis, and
        hundreds of texts long) is this analysis's: compared once per object."""
        found = self.shared_equal.get(id(old))
        if found is None or found[0] is not old:
            found = self.shared_equal[id(old)] = (old, old == self.shared_key)
        return found[1]

    def _shared_lines(self, old: tuple[tuple[int, int], ...]) -> LineMap:
        found = self.shared_maps.get(id(old))
        if found is None or found[0] is not old:
            found = self.shared_maps[id(old)] = (old, LineMap.between(old, self.shared_ranges))
        return found[1]

    def reuse(self, stmt: ast.ClassDef) -> ClassResult | None:
        """The class's results from the previous analysis, moved to where its blocks are now;
        None when it must be counted (something it depends on changed, or never counted)."""
        key, own_ranges = self.key_of(stmt)
        old = self.previous.get(self.slots[id(stmt)])
        if old is None or old.key[1] != key[1] or not self._same_shared(old.key[0]):
            return None
        if old.own_ranges != own_ranges or old.shared_ranges != self.shared_ranges:
            if old.names_a_line:
                return None
            old = _moved(old, self.shared_ranges, own_ranges, self._shared_lines(old.shared_ranges))
            if old is None:
                return None
        if old.key[0] is not self.shared_key:  # one shared object again for the next analysis to compare once
            old = replace(old, key=key)
        self.results[self.slots[id(stmt)]] = old
        self.reused_any = True
        return old

    def remember(self, stmt: ast.ClassDef, report: ModelReport | None, problem: Problem | None,
                 hints: Hints) -> None:
        key, own_ranges = self.key_of(stmt)
        self.remembered += 1
        names_a_line = problem is not None and bool(_NAMES_A_LINE.search(problem.message))
        self.results[self.slots[id(stmt)]] = ClassResult(key, self.shared_ranges, own_ranges, report, problem,
                                                         tuple(hints.items()), names_a_line)

    def finish(self, loaded_files: list[str], missing_files: set[str] | frozenset[str] = frozenset()) -> None:
        """``loaded_files``: the project files this analysis read; ``missing_files``: those its
        imports looked for and did not find (one created since changes what an import reads: kept
        with the stamp None, which a file that exists never has). Imports are read when first
        used, so a kept class's files may not be among them: while anything is kept, the files
        the earlier analyses read stay watched (they were unchanged, or nothing would be kept)."""
        self.memo.classes = self.results
        files = dict(self.memo.files) if self.reused_any else {}
        files.update((path, stamp) for path in loaded_files if (stamp := file_stamp(path)) is not None)
        files.update((path, None) for path in missing_files)
        self.memo.files = files


def _moved(old: ClassResult, shared_ranges: tuple[tuple[int, int], ...], own_ranges: tuple[tuple[int, int], ...],
           shared_lines: LineMap) -> ClassResult | None:
    """The results with each position moved as its block moved; None if a position is in none of
    the blocks (it cannot be placed)."""
    mover = _Mover(LineMap.between(old.own_ranges, own_ranges), shared_lines)
    span, node = mover.span, mover.node
    try:
        report = old.report
        if report is not None:
            report = replace(report, span=span(report.span), tree=replace(report.tree, root=node(report.tree.root)))
        problem = old.problem
        if problem is not None:
            problem = replace(problem, span=span(problem.span))
        hints = tuple((span(s), counts) for s, counts in old.hints)
    except _Unplaceable:
        return None
    return ClassResult(old.key, shared_ranges, own_ranges, report, problem, hints,  # type: ignore[arg-type]
                       old.names_a_line)


class _Mover:
    """Moves one kept result's positions. A class, not closures: a recursive closure holds
    itself, a reference cycle that would keep the moved nodes for the cyclic collector."""

    def __init__(self, own_lines: LineMap, shared_lines: LineMap) -> None:
        self.own_lines, self.shared_lines = own_lines, shared_lines
        self.spans: dict[Span, Span] = {}
        self.nodes: dict[int, ParamNode] = {}  # a stack's entries share their children: each is moved once

    def line(self, n: int) -> int | None:
        moved = self.own_lines.moved(n)
        return moved if moved is not None else self.shared_lines.moved(n)

    def span(self, s: Span | None) -> Span | None:
        if s is None:
            return None
        found = self.spans.get(s)
        if found is None:
            a, b = self.line(s.start.line), self.line(s.end.line)
            if a is None or b is None:
                raise _Unplaceable
            found = self.spans[s] = Span(Position(a, s.start.column), Position(b, s.end.column))
        return found

    def node(self, n: ParamNode) -> ParamNode:
        found = self.nodes.get(id(n))
        if found is None:
            found = self.nodes[id(n)] = n.moved(self.span(n.source), tuple(self.node(c) for c in n.children))
        return found


class _Unplaceable(Exception):
    pass
