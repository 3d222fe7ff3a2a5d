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


def parse_expression(source: str) -> ast.Expression:
    """``ast.parse(source, mode="eval")``, under the same lock."""
    with _PARSING:
        return ast.parse(source, mode="eval")


def decorator_name(decorator: ast.expr) -> str:
    """The name a decorator starts with: ``register`` of ``@register``, ``@register("mlp")``,
    ``@register.block``; "" where it starts with no name (``@table[0]``)."""
    head = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(head, ast.Attribute):
        head = head.value
    return head.id if isinstance(head, ast.Name) else ""


# Imports of these name code outside the project (their values come from the torch table or builtins).
EXTERNAL_IMPORTS = frozenset({"torch", "math", "dataclasses", "typing", "collections", "copy", "functools",
                              "itertools", "os", "sys", "typing_extensions", "einops", "numpy", "operator"})
# Class decorators that only write documentation: transformers puts `@auto_docstring` on every
# class, and following it reads a module of thousands of lines for nothing a count depends on.
DOCUMENTATION_DECORATORS = frozenset({"auto_docstring", "add_start_docstrings", "add_end_docstrings",
                                      "add_start_docstrings_to_model_forward", "replace_return_docstrings",
                                      "add_code_sample_docstrings"})


def may_import_project(module: str | None, level: int) -> bool:
    """Whether an import may name a file of the project (the interpreter looks for it there)."""
    return bool(level) or (module or "").split(".")[0] not in EXTERNAL_IMPORTS


def last_name(node: ast.expr) -> str:
    """The name an expression ends with: ``b`` of ``a.b``, ``a`` of ``a``; "" for anything else."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def documentation_decorator(decorator: ast.expr) -> bool:
    """``@auto_docstring``, ``@auto_docstring(custom_intro=...)``, ``@utils.add_start_docstrings(...)``."""
    return last_name(decorator.func if isinstance(decorator, ast.Call) else decorator) in DOCUMENTATION_DECORATORS


def applied_class_decorators(node: ast.ClassDef) -> list[ast.expr]:
    """The class statement's decorators the analyser follows: all but the documentation ones
    (their names are not even read: that would load the module they come from)."""
    return [d for d in node.decorator_list if not documentation_decorator(d)]


def child_blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds: its body, ``else``, ``finally``, each
    ``except`` handler's and each ``case``'s (none for a simple statement)."""
    blocks = [getattr(stmt, name) for name in ("body", "orelse", "finalbody") if getattr(stmt, name, None)]
    blocks.extend(handler.body for handler in getattr(stmt, "handlers", ()))
    blocks.extend(case.body for case in getattr(stmt, "cases", ()))
    return blocks
