"""``ast.parse`` that threads may call at once, and what the analyser reads off a syntax tree
without running it in more than one place.

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


def decorator_name(decorator: ast.expr) -> str:
    """The name a decorator starts with: ``register`` of ``@register``, ``@register("mlp")``,
    ``@register.block``; "" where it starts with no name (``@table[0]``)."""
    head = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(head, ast.Attribute):
        head = head.value
    return head.id if isinstance(head, ast.Name) else ""
