"""Reading a project file that the analysed file imports (``from .layers import Block``)."""

from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING, Any

from lsp_count.pymodel.values import ModV

if TYPE_CHECKING:
    from lsp_count.pymodel.interp import Interpreter

MAX_IMPORTED_BYTES = 2 * 2**20  # a project module bigger than this is not a model definition
WHOLE_BELOW_LINES = 40  # a shorter file is parsed whole: cutting would not pay


def load_module(interp: "Interpreter", path: str) -> ModV | None:
    """Evaluate an imported project file's definitions; None when it cannot be read or parsed."""
    from lsp_count.pymodel.interp import ModuleScope

    tree = _parse(path, interp.ctx.trees)
    if tree is None:
        return None
    scope = ModuleScope(path, None, False)
    saved = interp.ctx.steps
    interp.run_module(tree, scope)
    interp.ctx.steps = saved
    return ModV(os.path.splitext(os.path.basename(path))[0], scope.env.vars)


def _parse(path: str, trees: dict[str, tuple[tuple[int, int], ast.Module]]) -> ast.Module | None:
    """The file's tree; ``trees`` keeps it while the file is unchanged (the interpreter never
    alters a tree)."""
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size)
        kept = trees.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        if st.st_size > MAX_IMPORTED_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        tree = parse_deferring_bodies(text, path)
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    trees[path] = (stamp, tree)
    return tree


_DEF = re.compile(r"([ ]*)(?:async[ ]+)?def[ ]")
_OPEN = str.maketrans("", "", "([{")
_CLOSE = str.maketrans("", "", ")]}")


class DeferredBody:
    """Where a function's body is in the file's text, for parsing it when the function is first
    called (``FunctionDef.deferred``)."""

    __slots__ = ("lines", "start", "end", "indent", "path")

    def __init__(self, lines: list[str], start: int, end: int, indent: int, path: str) -> None:
        self.lines, self.start, self.end, self.indent, self.path = lines, start, end, indent, path


def parse_deferring_bodies(text: str, path: str) -> ast.Module:
    """``ast.parse(text)``, but each function's body is parsed when first called (``body_of``).

    A project file is read for a few names (a base class, a helper, a config), and most of it is
    method bodies no constructor calls (``forward``, ``generate``): building their syntax trees was
    most of the time a transformers model file spent reading the files it imports. A body is cut
    out of the text by its indentation, only where that is certain: a string, bracket or line
    continuation crossing the cut, a tab, or a tree that does not have each cut function where the
    text said, and the file is parsed whole. A body that does not parse is found when called.
    Where a statement ends is only exact for a function whose body was parsed; a class or block
    whose last statement is a function not yet parsed ends where its def line does."""
    lines = text.split("\n")
    if "\t" in text or len(lines) < WHOLE_BELOW_LINES:
        return ast.parse(text, filename=path)
    cuts: list[tuple[int, int, int, int]] = []  # (def line, first body line, line after the body, indent), 0-based
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if "def" not in line or not (m := _DEF.match(line)):
            i += 1
            continue
        header = line.split("#")[0] if "#" in line and "'" not in line and '"' not in line else line
        header = header.rstrip()
        if not header.endswith(":") or len(header) - len(header.translate(_OPEN)) != \
                len(header) - len(header.translate(_CLOSE)):
            i += 1  # a signature over several lines, or a body on the def line: parsed as it is
            continue
        indent = len(m.group(1))
        j, first = i + 1, None
        while j < n:
            stripped = lines[j].lstrip(" ")
            if stripped and stripped[0] != "#":
                if len(lines[j]) - len(stripped) <= indent:
                    break
                if first is None:
                    first = j
            j += 1
        if first is None:
            i += 1
            continue
        region = "\n".join(lines[i + 1:j])
        last = region.rstrip()
        # A string or a continued line crossing the cut: the positions after it are not sure. (Brackets
        # crossing it leave a closing bracket without its opening one: the stub does not parse.)
        if region.count('"""') % 2 or region.count("\'\'\'") % 2 or last.endswith("\\"):
            return ast.parse(text, filename=path)
        cuts.append((i, first, j, indent))
        i = j
    if not cuts:
        return ast.parse(text, filename=path)
    stub = list(lines)
    for start, first, end, _ in cuts:
        body_indent = len(stub[first]) - len(stub[first].lstrip(" "))
        for k in range(start + 1, end):
            stub[k] = ""
        stub[start + 1] = " " * body_indent + "..."
    try:
        tree = ast.parse("\n".join(stub), filename=path)
    except SyntaxError:  # brackets crossed a cut, or the file does not parse: the whole file says which
        return ast.parse(text, filename=path)
    defs = dict(_functions(tree.body))
    for start, _, end, indent in cuts:
        node = defs.get((start + 1, indent))
        if node is None:  # the def line was inside a string
            return ast.parse(text, filename=path)
        node.deferred = DeferredBody(lines, start, end, indent, path)  # type: ignore[attr-defined]
    return tree


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
    lines = deferred.lines[deferred.start:deferred.end]
    if deferred.indent:  # an indented def parses inside a block; `if 1:` keeps its columns
        source = "\n" * (deferred.start - 1) + "if 1:\n" + "\n".join(lines)
    else:
        source = "\n" * deferred.start + "\n".join(lines)
    parsed = ast.parse(source, filename=deferred.path).body
    fn = parsed[0].body[0] if deferred.indent else parsed[0]  # type: ignore[attr-defined]
    node.body, node.end_lineno, node.end_col_offset = fn.body, fn.end_lineno, fn.end_col_offset
    del node.deferred
    return node.body
