"""``ast.parse`` that threads may call at once.

CPython 3.11 keeps the AST converter's recursion depth in interpreter-wide state
(python/cpython#106905): two threads parsing at the same time can fail with
``SystemError: AST constructor recursion depth mismatch``. The language server analyses
documents in two worker threads, so every parse in this package goes through one lock.
"""

from __future__ import annotations

import ast
import threading

_PARSING = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    with _PARSING:
        return ast.parse(source, filename=filename)
