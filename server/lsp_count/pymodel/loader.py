"""Reading a project file that the analysed file imports (``from .layers import Block``)."""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from lsp_count.pymodel import tree_cache
from lsp_count.pymodel.syntax import parse
from lsp_count.pymodel.values import ModV

if TYPE_CHECKING:
    from lsp_count.pymodel.interp import Interpreter

MAX_IMPORTED_BYTES = 2 * 2**20  # a project module bigger than this is not a model definition
WHOLE_BELOW_LINES = 40  # a shorter file is parsed whole: cutting would not pay
MAX_KEPT_TREES = 400  # project files' trees a language server keeps (0.45 MB each for transformers)
MAX_SIGNATURE_LINES = 40  # a def's signature longer than this keeps its body (brackets in strings?)


def load_module(interp: "Interpreter", path: str) -> ModV | None:
    """Evaluate an imported project file's definitions; None when it cannot be read or parsed."""
    tree = _parse(path, interp.ctx.trees)
    if tree is None:
        return None
    scope = interp.ctx.new_scope(path)
    saved = interp.ctx.steps
    interp.run_module(tree, scope)
    interp.ctx.steps = saved
    return ModV(os.path.splitext(os.path.basename(path))[0], scope.env.vars, path=path)


def file_stamp(path: str) -> tuple[int, int] | None:
    """(mtime, size): what says a project file is unchanged since it was read; None if it is gone."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size


def _parse(path: str, trees: dict[str, tuple[tuple[int, int], ast.Module]]) -> ast.Module | None:
    """The file's tree; ``trees`` keeps it while the file is unchanged (the interpreter alters a
    tree only by filling in a deferred body, the same for every analysis)."""
    stamp = file_stamp(path)
    if stamp is None:
        return None
    kept = trees.get(path)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    if stamp[1] > MAX_IMPORTED_BYTES:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except (OSError, ValueError):
        return None
    tree = tree_cache.load(text, path)  # an earlier run's tree of the same text
    if tree is None:
        try:
            tree = parse_deferring_bodies(text, path)
        except (SyntaxError, ValueError, RecursionError):
            return None
        tree_cache.store(text, tree)
    trees[path] = (stamp, tree)
    if len(trees) > MAX_KEPT_TREES:
        trees.pop(next(iter(trees)), None)  # the longest kept
    return tree


_ASYNC = re.compile(r"( *)async +")
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'')
_CODE_LINE = re.compile(r"^( *)[^ \r\n#]", re.M)
_TAB_INDENTED = re.compile(r"\n *\t")


class DeferredBody:
    """Where a function is in the file's text, for parsing its body when the function is first
    called (``FunctionDef.deferred``)."""

    __slots__ = ("text", "start", "end", "line", "indent", "path")

    def __init__(self, text: str, start: int, end: int, line: int, indent: int, path: str) -> None:
        # text[start:end]: the def's lines; line: its first line, 0-based; indent: its column.
        self.text, self.start, self.end, self.line, self.indent, self.path = text, start, end, line, indent, path


def parse_deferring_bodies(text: str, path: str) -> ast.Module:
    """``ast.parse(text)``, but each function's body is parsed when first called (``body_of``).

    A project file is read for a few names (a base class, a helper, a config), and most of it is
    method bodies no constructor calls (``forward``, ``generate``): building their syntax trees was
    most of the time a transformers model file spent reading the files it imports. A body is cut
    out of the text by its indentation, only where that is certain: a string, bracket or line
    continuation crossing the cut, or a tree that does not have each cut function where the text
    said, and the file is parsed whole; a body with a line indented by a tab is parsed with it.
    A body that does not parse is found when called.
    Where a statement ends is only exact for a function whose body was parsed; a class or block
    whose last statement is a function not yet parsed ends where its def line does."""
    if text.count("\n") < WHOLE_BELOW_LINES:
        return parse(text, filename=path)
    ends: dict[int, re.Pattern[str]] = {}  # indent -> the next line of code indented no deeper
    cuts: list[_Cut] = []
    done = line = 0  # text[:done] is before the last cut's end; line: the line at done, 0-based
    for def_start, indent, line_end, def_line in _def_lines(text):
        if def_start < done:
            continue  # a def inside a body already cut
        body_start = _body_start(text, line_end, def_line)
        if body_start is None:
            continue  # a body on the def line, or a signature this cannot follow: parsed as it is
        end_re = ends.get(indent)
        if end_re is None:
            # (a line indented with a tab never ends a body: only spaces say its depth here)
            end_re = ends[indent] = re.compile(r"\n {0,%d}(?=[^ \t\r\n#])" % indent)
        after = end_re.search(text, body_start - 1)
        body_end = after.start() if after is not None else len(text)
        region = text[body_start:body_end]
        first = _CODE_LINE.search(region)
        if first is None:
            continue
        if "\t" in region and _TAB_INDENTED.search("\n" + region):
            # A line indented with a tab (in a docstring, as transformers' generation/utils.py has one,
            # or code): where the body ends is not sure. This one is parsed with the file, not the others.
            continue
        # A string or a continued line crossing the cut: the positions after it are not sure. (Brackets
        # crossing it leave a closing bracket without its opening one: the stub does not parse.)
        if region.count('"""') % 2 or region.count("'''") % 2 or region.rstrip().endswith("\\"):
            return parse(text, filename=path)
        line += text.count("\n", done, def_start)
        cuts.append(_Cut(def_start, body_start, body_end, line, indent, len(first.group(1)),
                         line + text.count("\n", def_start, body_start) + 1))
        line += text.count("\n", def_start, body_end)
        done = body_end
    for _ in range(2):  # a second time without the cuts that were not functions (a def in a docstring)
        if not cuts:
            break
        stub, at = [], 0
        for cut in cuts:
            region = text[cut.body_start:cut.body_end]
            stub.append(text[at:cut.body_start])
            stub.append(" " * cut.body_indent + "..." + "\n" * region.count("\n"))
            at = cut.body_end
        stub.append(text[at:])
        try:
            tree = parse("".join(stub), filename=path)
        except SyntaxError:  # brackets crossed a cut, or the file does not parse: the whole file says which
            break
        defs = dict(_functions(tree.body))
        found = [(cut, defs.get((cut.line + 1, cut.indent))) for cut in cuts]
        kept = [cut for cut, node in found if node is not None and len(node.body) == 1 and
                node.body[0].lineno == cut.body_line]
        if len(kept) == len(cuts):
            for cut, node in found:
                node.deferred = DeferredBody(text, cut.def_start, cut.body_end, cut.line, cut.indent, path)  # type: ignore[union-attr]
            return tree
        cuts = kept  # the others were in a string, or their signature was misread
    return parse(text, filename=path)


def _def_lines(text: str) -> Iterator[tuple[int, int, int, str]]:
    """Each line that starts a function, spaces before its `def` or `async def`: (where the line
    starts, its indent, where it ends, its text from the `def` or `async`). Found with str.find,
    twice as fast as a pattern starting with a newline."""
    at = text.find("def ")
    while at != -1:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        before = text[start:at]
        if not before.strip(" "):
            yield start, len(before), end, text[at:end]
        elif (m := _ASYNC.fullmatch(before)) is not None:
            yield start, len(m.group(1)), end, text[start + len(m.group(1)):end]
        at = text.find("def ", end)  # (a def after other text on its line starts no function)


class _Cut(NamedTuple):
    """A function body to leave out of the first parse: offsets in the text, its def line
    (0-based), its column, its body's indent, and the line (1-based) of the stub's `...`."""

    def_start: int
    body_start: int
    body_end: int
    line: int
    indent: int
    body_indent: int
    body_line: int


def _body_start(text: str, end: int, line: str) -> int | None:
    """Where a function's body starts: past the line that ends its signature, which starts with
    ``line`` (ending at ``end``) and goes on while brackets are open; None where the body is on
    that line or the brackets do not close within a few lines (a bracket in a string)."""
    depth = 0
    for _ in range(MAX_SIGNATURE_LINES):
        if "'" in line or '"' in line:
            line = _STRING.sub('""', line)  # a bracket or # in a default or an annotation's string
        if "#" in line:
            line = line[:line.index("#")]
        # (str.count: str.translate with a table maps each character through Python, ten times slower)
        depth += line.count("(") + line.count("[") + line.count("{") - line.count(")") - line.count("]") - line.count("}")
        if depth <= 0:
            return end + 1 if depth == 0 and line.rstrip().endswith(":") else None
        if end >= len(text):
            return None
        following = text.find("\n", end + 1)
        following = len(text) if following < 0 else following
        line, end = text[end + 1:following], following
    return None


def _functions(body: list[ast.stmt]) -> Any:
    """(line, column) -> each function defined in the statements, at any depth of statements (a
    def is a statement: no need to walk expressions, most of a tree)."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield (stmt.lineno, stmt.col_offset), stmt
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(stmt, field, None)
            if inner:
                yield from _functions(inner)


def body_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The function's body, parsed now if parse_deferring_bodies left it for later (once: the
    tree keeps it). Raises SyntaxError where it does not parse."""
    deferred = getattr(node, "deferred", None)
    if deferred is None:
        return node.body
    lines = deferred.text[deferred.start:deferred.end]
    if deferred.indent:  # an indented def parses inside a block; `if 1:` keeps its columns
        source = "\n" * (deferred.line - 1) + "if 1:\n" + lines
    else:
        source = "\n" * deferred.line + lines
    parsed = parse(source, filename=deferred.path).body
    fn = parsed[0].body[0] if deferred.indent else parsed[0]  # type: ignore[attr-defined]
    # Two analyses sharing the tree may both get here: each sets the same values, in this order.
    node.body, node.end_lineno, node.end_col_offset = fn.body, fn.end_lineno, fn.end_col_offset
    if "yield" not in lines:
        node.lsp_count_generator = False  # type: ignore[attr-defined]  # (interp._is_generator need not walk it)
    node.deferred = None  # type: ignore[attr-defined]
    return node.body
