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

A main() decorated with ``@hydra.main(config_path=..., config_name=...)`` gets the config Hydra
composes from its YAML files (hydra_config.py) as ``cfg``; a function of the file main() calls that
cannot be followed to its end (``train(cfg)``, whose ``trainer.fit`` is not followed) is followed
statement by statement too.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Any

from lsp_count.pymodel import hydra_config
from lsp_count.pymodel.interp import FABRIC_SHIM, BoundV, Env, FuncV, Interpreter, ModuleScope
from lsp_count.pymodel.values import ExtV, Unknown, Unresolved, why_of
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


def run_entry_points(interp: Interpreter, body: list[ast.stmt],
                     scope: ModuleScope) -> tuple[list[EntryName], list[tuple[ast.AST, str, bool]]]:
    """Runs the file's ``__main__`` blocks (the ones whose test is the only thing between them and
    Python running them) and the module-level functions of the file they call; the names they
    assign, in the order of their last assignments (the block's first, then each function's), and
    the notes on what they were given: (node, message, whether it is a failure), where a Hydra
    config was composed for one."""
    run = _EntryRun(interp, scope, {s.name: s for s in body if isinstance(s, ast.FunctionDef)})
    blocks = main_blocks(body)
    interp.ctx.end_count()  # (the last class's count's changes, undone)
    for block in blocks:
        interp.run_entry(block.body, scope.env, run.follow)
    names = [EntryName(name, name, tuple(assigned), scope.env.vars.get(name), tuple(blocks))
             for name, assigned in assignments([s for b in blocks for s in b.body]).items()]
    for fn, local, function_body in run.followed:
        names.extend(EntryName(name, f"{name} in {fn.name}()", tuple(assigned), local.vars.get(name), (fn.node,))
                     for name, assigned in assignments(function_body).items())
    return names, run.notes


class _EntryRun:
    """What a ``__main__`` block's statements are followed into (a class, not a closure: a closure
    that passes itself on holds itself, a cycle that would keep the analysis alive)."""

    def __init__(self, interp: Interpreter, scope: ModuleScope, functions: dict[str, ast.FunctionDef]) -> None:
        self.interp, self.scope, self.functions = interp, scope, functions  # (the file's functions, by name)
        self.followed: list[tuple[FuncV, Env, list[ast.stmt]]] = []
        self.notes: list[tuple[ast.AST, str, bool]] = []

    def follow(self, stmt: ast.stmt, env: Env) -> bool:
        """Runs the statement where it holds an entry call (Interpreter.run_entry's ``follow``);
        False, having run nothing, for any other."""
        interp = self.interp
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
        if self.spawned(stmt, env):
            return True
        call = _entry_call(stmt)
        if call is None:
            return False
        fn = interp.ev(call.func, env)
        if type(fn) is not FuncV or fn.node is not self.functions.get(fn.name) or \
                any(f is fn for f, _, _ in self.followed):
            return False
        args, kwargs = interp.call_arguments(call, env)
        if not args and not kwargs and (hydra := _hydra_main(interp, fn.node, env)) is not None:
            # `@hydra.main(...) def main(cfg)`, called as `main()`: the config Hydra composes for it
            config, note = hydra_main_config(interp, hydra, self.scope)
            args = [config]
            self.notes.append((hydra, note, type(config) is Unknown))
        self.follow_function(fn, args, kwargs, call)
        return True

    def follow_inner(self, stmt: ast.stmt, env: Env) -> bool:
        """A statement of a followed function that calls another function of the file. A call whose
        result is dropped (``main_worker(args.gpu, ngpus_per_node, args)`` in pytorch/examples'
        imagenet) is a function run for what it does, followed statement by statement as main()'s
        body is, its models reported as ``model in main_worker()``. One whose result is assigned
        (``metric_dict, _ = train(cfg)`` in lightning-hydra-template's main) is run as Python runs
        it; where the call cannot be followed to its end (``trainer.fit(...)``), the called
        function's body is followed so too, and what the statement assigns is not known. Either
        way the called function's own decorators are left out."""
        interp = self.interp
        if isinstance(stmt, ast.If) and _calls_a_function(stmt, self.functions):
            # `if args.multiprocessing_distributed: mp.spawn(...) else: main_worker(...)` (imagenet):
            # the branch Python takes, statement by statement as the function's own
            try:
                taken = interp.branch(stmt.test, stmt.body, stmt.orelse, env)
            except Unresolved:
                return False
            interp.run_entry(taken, env, self.follow_inner)
            return True
        if self.spawned(stmt, env):
            return True
        call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return False
        node = self.functions.get(call.func.id)
        if node is None or call.func.id in env.vars or any(f.node is node for f, _, _ in self.followed):
            return False  # (a local of that name is another function)
        if isinstance(stmt, ast.Expr):
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(node)):
                return False  # a generator function: the call makes a generator and runs none of it
            self.follow_function(interp.make_function(node, self.scope.env), *interp.call_arguments(call, env), call)
            return True
        try:
            interp.exec_stmt(stmt, env)
            return True
        except Unresolved as exc:
            reason = exc.reason
        self.follow_function(interp.make_function(node, self.scope.env), *interp.call_arguments(call, env), call)
        raise Unresolved(f"`{call.func.id}()` is followed statement by statement: {reason}")

    def spawned(self, stmt: ast.stmt, env: Env) -> bool:
        """A function of the file another starts, followed as the first of its processes runs it,
        its models reported as ``model in train()``, and said in a note:
        ``mp.spawn(train, args=(world_size,), nprocs=world_size)`` (torch.multiprocessing, DDP's
        tutorial) runs ``train(0, *args)``; Lightning Fabric's ``fabric.launch(train, *args)``
        runs ``train(fabric, *args)``. False, having run nothing, for any other statement."""
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(call, ast.Call) or last_name(call.func) not in ("spawn", "launch"):
            return False
        interp = self.interp
        try:
            starter = interp.ev(call.func, env)
            if type(starter) is ExtV and starter.name in _SPAWNS:
                args, kwargs = interp.call_arguments(call, env)
                fn = args[0] if args else kwargs.get("fn")
                given = args[1] if len(args) > 1 else kwargs.get("args", ())
                first = [0, *given] if type(given) in (tuple, list) else None
                how = f"in its first process (`{getattr(fn, 'name', '')}(0, ...)`, rank 0)"
            elif type(starter) is BoundV and type(starter.func) is FuncV and starter.func.name == "launch" and \
                    starter.func.env.module.path == FABRIC_SHIM:
                args, kwargs = interp.call_arguments(call, env)
                fn = args[0] if args else kwargs.pop("function", None)
                first = [starter.self_obj, *args[1:]]
                how = f"(`{getattr(fn, 'name', '')}(fabric, ...)`)"
            else:
                return False
        except Unresolved:
            return False
        if type(fn) is not FuncV or fn.node is not self.functions.get(fn.name) or \
                any(f is fn for f, _, _ in self.followed) or first is None:
            return False
        self.notes.append((call, f"`{fn.name}` is followed as `{ast.unparse(call.func)}` runs it {how}", False))
        self.follow_function(fn, first, kwargs if type(starter) is BoundV else {}, call)
        return True

    def follow_function(self, fn: FuncV, args: list[Any], kwargs: dict[str, Any], call: ast.Call) -> None:
        """The file's function ``fn``, called by ``call`` with ``args`` and ``kwargs``, followed
        statement by statement (its models reported as ``model in fn()``)."""
        interp = self.interp
        node = fn.node
        local = Env(fn.env.module, fn.env)
        local.vars = interp.bind_args(fn, args, kwargs, call)
        body = node.body if getattr(node, "deferred", None) is None else interp.deferred_body(fn)
        self.followed.append((fn, local, body))
        interp.run_entry(body, local, self.follow_inner)


# What starts a function in processes of its own, the first given its index 0 (torch.multiprocessing).
_SPAWNS = frozenset({"torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn"})


def _hydra_main(interp: Interpreter, node: ast.AST, env: Env) -> ast.Call | None:
    """The ``@hydra.main(...)`` decorator of an entry function (``from hydra import main`` too)."""
    for decorator in getattr(node, "decorator_list", ()):
        if isinstance(decorator, ast.Call) and any(
                v.name == "hydra.main" for v in interp.decorator_names([decorator], env)):
            return decorator
    return None


def hydra_main_config(interp: Interpreter, decorator: ast.Call, scope: ModuleScope) -> tuple[Any, str]:
    """The ``cfg`` Hydra passes the function it decorates, run with no command-line overrides: the
    config ``config_name`` composed from ``config_path`` (beside the script; hydra_config.py), as
    OmegaConf's DictConfig (shims/hydra.py), and a note saying what it was composed from; an
    Unknown saying why where it cannot be composed, and the same words."""
    arguments: dict[str, Any] = dict(zip(("config_path", "config_name", "version_base"), decorator.args))
    arguments.update({k.arg: k.value for k in decorator.keywords if k.arg})
    values: dict[str, Any] = {}
    for name in ("config_path", "config_name"):
        try:
            value = interp.ev(arguments[name], scope.env) if name in arguments else None
        except Unresolved as exc:
            value = Unknown(exc.reason)
        if value is not None and type(value) is not str:
            why = (f"`cfg` is the config @hydra.main composes, and its {name} is not a known string: "
                   f"{why_of(value) or repr(value)}")
            return Unknown(why), why
        values[name] = value
    config_path, config_name = values["config_path"], values["config_name"]
    if config_name is None:
        return interp.config_value({}, decorator, scope.env), "`cfg` is an empty config (no config_name)"
    if config_path is None or config_path.startswith("pkg://"):
        why = (f"`cfg` is the config `{config_name}` @hydra.main composes "
               f"{'from a package' if config_path else 'with no config_path'}, which the analyser does not read")
        return Unknown(why), why
    script_dir = os.path.dirname(os.path.abspath(scope.path))
    config_dir = os.path.normpath(os.path.join(script_dir, config_path))
    try:
        composed = hydra_config.compose(config_dir, config_name, os.path.normpath(config_path))
    except hydra_config.ConfigError as exc:
        why = f"`cfg` is the config `{config_name}` Hydra composes from {config_path}, which fails: {exc}"
        return Unknown(why), why
    files = composed.files
    note = (f"`cfg` is {files[0]}" + (f" composed with {', '.join(files[1:])}" if len(files) > 1 else "") +
            ", as Hydra composes it with no command-line overrides")
    return interp.config_value(composed.values, decorator, scope.env), note


def _calls_a_function(stmt: ast.If, functions: dict[str, ast.FunctionDef]) -> bool:
    """Whether a branch of an ``if`` of a followed function calls a function of the file by name, in
    a statement of its own (``main_worker(...)``, ``metrics = train(cfg)``), nested ``if``s included."""
    for block in (stmt.body, stmt.orelse):
        for inner in block:
            value = inner.value if isinstance(inner, (ast.Expr, ast.Assign)) else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in functions:
                return True
            if isinstance(inner, ast.If) and _calls_a_function(inner, functions):
                return True
    return False


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
