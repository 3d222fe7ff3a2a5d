"""A training script's models: what its entry point builds, where Python runs it as a script.

People build the model they train in the script that trains it::

    def main():
        config = GPTConfig(n_layer=24, n_head=16, n_embd=1024)
        model = GPT(config)
        ...

    if __name__ == "__main__":
        main()

The analyser imports nothing and runs no ``__main__`` block while it counts the file's classes
(their counts are what importing the file gives). Then it follows the file's top-level
``if __name__ == "__main__":`` blocks, and the module-level functions of the file they call
(``main()``, ``sys.exit(main())``, ``train(args)``), statement by statement, skipping what it
cannot follow (a dataset, the training loop: see ``Interpreter.run_entry``). Each name such an
entry point assigns a module last is a model: ``model`` for the block's own names, ``model in
main()`` for a function's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from lsp_count.pymodel.interp import Env, FuncV, Interpreter, ModuleScope
from lsp_count.pymodel.values import Unknown
from lsp_count.pymodel.syntax import child_blocks, last_name


@dataclass(frozen=True)
class EntryName:
    """A name an entry point assigns, once the entry point has run."""

    name: str  # `model`
    label: str  # `model`, or `model in main()`
    assigned: tuple[tuple[ast.Name, ast.expr | None], ...]  # its assignments (see assignments)
    found: Any  # the name's value at the end (a module's Inst, an Unknown saying why, ...)
    scope: tuple[ast.stmt, ...]  # the statements that assign it: the `__main__` blocks, or the function


def main_blocks(body: list[ast.stmt]) -> list[ast.If]:
    """The module's ``if __name__ == "__main__":`` statements (either side of the ``==``)."""
    return [stmt for stmt in body if isinstance(stmt, ast.If) and _is_main_test(stmt.test)]


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def run_entry_points(interp: Interpreter, body: list[ast.stmt], scope: ModuleScope) -> list[EntryName]:
    """Runs the file's ``__main__`` blocks (the ones whose test is the only thing between them and
    Python running them) and the module-level functions of the file they call; the names they
    assign, in the order of their last assignments (the block's first, then each function's)."""
    run = _EntryRun(interp, scope, {id(s) for s in body if isinstance(s, ast.FunctionDef)})
    blocks = main_blocks(body)
    interp.ctx.end_count()  # (the last class's count's changes, undone)
    for block in blocks:
        interp.run_entry(block.body, scope.env, run.follow)
    names = [EntryName(name, name, tuple(assigned), scope.env.vars.get(name), tuple(blocks))
             for name, assigned in assignments([s for b in blocks for s in b.body]).items()]
    for fn, local, function_body in run.followed:
        names.extend(EntryName(name, f"{name} in {fn.name}()", tuple(assigned), local.vars.get(name), (fn.node,))
                     for name, assigned in assignments(function_body).items())
    return names


class _EntryRun:
    """What a ``__main__`` block's statements are followed into (a class, not a closure: a closure
    that passes itself on holds itself, a cycle that would keep the analysis alive)."""

    def __init__(self, interp: Interpreter, scope: ModuleScope, functions: set[int]) -> None:
        self.interp, self.scope, self.functions = interp, scope, functions
        self.followed: list[tuple[FuncV, Env, list[ast.stmt]]] = []

    def follow(self, stmt: ast.stmt) -> bool:
        """Runs the statement where it holds an entry call (Interpreter.run_entry's ``follow``);
        False, having run nothing, for any other."""
        interp, env = self.interp, self.scope.env
        if isinstance(stmt, ast.With) and _calls_an_entry(stmt):
            # `with wandb.init(): main()`: the block's statements as the entry point's own (the
            # context managers not entered: nothing they do is a model's size)
            for item in stmt.items:
                for name in ([item.optional_vars] if isinstance(item.optional_vars, ast.Name) else []):
                    env.vars[name.id] = Unknown(f"`{name.id}` is what a context manager gives, which the "
                                                f"analyser does not follow here")
            interp.run_entry(stmt.body, env, self.follow)
            return True
        if isinstance(stmt, ast.If) and _calls_an_entry(stmt):
            # `if args.train: main()`: the branch Python takes, as the entry point's own statements
            interp.run_entry(interp.branch(stmt.test, stmt.body, stmt.orelse, env), env, self.follow)
            return True
        call = _entry_call(stmt)
        if call is None:
            return False
        fn = interp.ev(call.func, env)
        if type(fn) is not FuncV or id(fn.node) not in self.functions or any(f is fn for f, _, _ in self.followed):
            return False
        args, kwargs = interp.call_arguments(call, env)
        local = Env(fn.env.module, fn.env)
        local.vars = interp.bind_args(fn, args, kwargs, call)
        function_body = fn.node.body if getattr(fn.node, "deferred", None) is None else interp.deferred_body(fn)
        self.followed.append((fn, local, function_body))
        interp.run_entry(function_body, local)
        return True


def _calls_an_entry(stmt: ast.If | ast.With) -> bool:
    """Whether a block statement of the ``__main__`` block holds an entry call (``_entry_call``) in
    its own blocks, nested ``if`` / ``with`` / ``try`` ones included."""
    return any(_entry_call(inner) is not None or (isinstance(inner, (ast.If, ast.With, ast.Try)) and
                                                   _calls_an_entry(inner))  # type: ignore[arg-type]
               for block in child_blocks(stmt) for inner in block)


def _entry_call(stmt: ast.stmt) -> ast.Call | None:
    """The call of a function of the file a statement of a ``__main__`` block makes: ``main()``,
    ``main(args)``, ``sys.exit(main())``, ``exit(main())``, ``raise SystemExit(main())``,
    ``fire.Fire(main)``, ``typer.run(main)``."""
    value = stmt.value if isinstance(stmt, ast.Expr) else stmt.exc if isinstance(stmt, ast.Raise) else None
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Name) and value.func.id in ("exit", "quit", "SystemExit") or \
            isinstance(value.func, ast.Attribute) and value.func.attr == "exit" and \
            isinstance(value.func.value, ast.Name) and value.func.value.id == "sys":
        if len(value.args) != 1 or value.keywords or not isinstance(value.args[0], ast.Call):
            return None
        value = value.args[0]
    elif isinstance(stmt, ast.Raise):
        return None
    elif last_name(value.func) in ("Fire", "run") and isinstance(value.func, ast.Attribute) and \
            last_name(value.func.value) in ("fire", "typer") and len(value.args) == 1 and \
            isinstance(value.args[0], ast.Name):
        # `fire.Fire(main)`, `typer.run(main)`: main called with what the command line gives, none
        # here: its defaults (one that needs an argument is not followed)
        return ast.copy_location(ast.Call(func=value.args[0], args=[], keywords=[]), value)
    return value if isinstance(value.func, ast.Name) and value.func.id != "exit" else None


def assignments(body: list[ast.stmt]) -> dict[str, list[tuple[ast.Name, ast.expr | None]]]:
    """Each name the statements assign (in their nested blocks too: ``with torch.device("meta"):
    model = GPT(config)``, nanoGPT's ``if init_from == "scratch": model = GPT(gptconf)``; not in a
    ``def`` or ``class`` they hold, nor in a ``__main__`` block, which is not run at import), with
    each assignment's target and value (None for an item of an unpacking) in source order; the
    names in the order of their last assignments."""
    found: dict[str, list[tuple[ast.Name, ast.expr | None]]] = {}
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or \
                isinstance(stmt, ast.If) and _is_main_test(stmt.test):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, ast.AnnAssign) and stmt.value is not None else []
        for target in targets:
            items = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]  # `model, tok = load()`
            for item in items:
                if isinstance(item, ast.Name):
                    _add(found, item.id, [(item, stmt.value if item is target else None)])  # type: ignore[union-attr]
        for block in child_blocks(stmt):
            for name, assigned in assignments(block).items():
                _add(found, name, assigned)
    return found


def _add(found: dict[str, list[tuple[ast.Name, ast.expr | None]]], name: str,
         assigned: list[tuple[ast.Name, ast.expr | None]]) -> None:
    earlier = found.pop(name, [])  # (its place is its last assignment's)
    found[name] = earlier + assigned
