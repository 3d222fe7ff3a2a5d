"""Reading a project file that the analysed file imports (``from .layers import Block``)."""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

from lsp_count.pymodel.values import ModV

if TYPE_CHECKING:
    from lsp_count.pymodel.interp import Interpreter

MAX_IMPORTED_BYTES = 2 * 2**20  # a project module bigger than this is not a model definition


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
        tree = ast.parse(text, filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    trees[path] = (stamp, tree)
    return tree
