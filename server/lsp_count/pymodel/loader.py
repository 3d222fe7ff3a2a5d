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

    try:
        if os.path.getsize(path) > MAX_IMPORTED_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        tree = ast.parse(text, filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    scope = ModuleScope(path, None, False)
    saved = interp.ctx.steps
    interp.run_module(tree, scope)
    interp.ctx.steps = saved
    return ModV(os.path.splitext(os.path.basename(path))[0], scope.env.vars)
