"""``analyze_python``: a Python source file in, a FileReport with one ModelReport per
``nn.Module`` subclass that counts exactly, out.

Each module class is built with its constructor defaults by the interpreter
(``interp.py``); nothing of the file is imported or run. A class whose count
depends on something the code does not pin down gets an LC101 warning that
says what, with the count as a formula where one exists.
"""

from __future__ import annotations

import ast
import bisect
import functools
import gc
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, Sequence

from lsp_count.core.analyze import DEFAULT_READ_PACKAGES
from lsp_count.core.memory import DEFAULT_CONTEXT
from lsp_count.core.params import ParamNode, ParamTree, Tensor, short_count
from lsp_count.core.precision import FLOAT_BYTES, SIXTEEN_BIT
from lsp_count.core.report import FileReport, ModelReport, PositionLimit, unrecognized
from lsp_count.core.source import LineIndex, Position, Problem, Span
from lsp_count.core.spec import MAX_DIMENSION
from lsp_count.formats.common import PRECISIONS, optimizer_name
from lsp_count.pymodel.environments import discover_site_packages, unread_package_note
from lsp_count.pymodel.interp import (DEEPSPEED_SHIM, FUNCTION_STEPS, LIGHTNING_SHIM, SHIM_DIR, SHIMS, TORCH_VERSION,
                                      TRL_SHIM, Ctx, FuncV, Interpreter, LazyImport, ModuleScope, clone, count_of,
                                      foreign_base, module_attributes, params_of, signature_function,
                                      unfollowed_reason)
from lsp_count.pymodel.config_spec import transformers_spec
from lsp_count.pymodel.hub import builds_module
from lsp_count.pymodel import memo_store
from lsp_count.pymodel.loader import body_of
from lsp_count.pymodel.script import assignments, main_blocks, run_entry_points
from lsp_count.pymodel.reuse import LineMap, PythonMemo, ReusePlan, parse_blocks, remember_blocks, split_blocks
from lsp_count.pymodel.syntax import child_blocks, last_name, may_import_project, parse
from lsp_count.pymodel.values import ClassV, ExtV, Inst, ModV, Param, Sym, Unknown, Unresolved, render, why_of

MAX_PARAMETERS = 10**15  # a thousand times the largest models; more is a mistake in the code
_CONFIG_NAME = re.compile(r"conf|cfg|args|param|hparams|opt", re.I)
_CLASS_NAME = re.compile(r"class\s+(\w+)")
_FUNCTION_NAME = re.compile(r"def\s+(\w+)")
# A config class's name (GPTConfig, ModelArgs; not TransformersKwargs). The one rule: --execute's
# child and the parity tests pick config classes by it too.
CONFIG_CLASS_NAME = re.compile(r"config|(?<!kw)args", re.I)


class _Positions:
    """ast (1-based line, UTF-8 byte column) to the core's (0-based line, code point column)."""

    def __init__(self, lines: LineIndex) -> None:
        self.lines = lines
        self._ascii = lines.text.isascii()  # byte columns are code point columns: no per-line decoding
        # A node's span is asked for more than once (the layer's origin, then its hint anchor);
        # the dict also keeps the nodes alive, so a key is never a reused id.
        self._spans: dict[ast.AST, Span] = {}
        self._raw_lines: list[str] | None = None
        self.line_map: LineMap | None = None

    def raw_lines(self) -> list[str]:
        """Every line's text (made once)."""
        if self._raw_lines is None:
            self._raw_lines = self.lines.lines()
        return self._raw_lines

    def line(self, lineno: int) -> int:
        """A node's line number (1-based) in the file: statements kept from an earlier parse of the
        document are numbered as they were then (see reuse.LineMap)."""
        return lineno if self.line_map is None else self.line_map.line(lineno)

    def pos(self, lineno: int, col: int) -> Position:
        if self.line_map is not None:
            lineno = self.line_map.line(lineno)
        line = max(lineno - 1, 0)
        if line >= self.lines.line_count:
            return Position(self.lines.line_count - 1, 0)
        if not self._ascii:
            text = self.lines.line_text(line)
            if not text.isascii():
                col = len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return Position(line, col)

    def span(self, node: ast.AST) -> Span:
        cached = self._spans.get(node)
        if cached is not None:
            return cached
        start = self.pos(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.pos(end_line, end_col) if end_col is not None else start
        span = self._spans[node] = Span(start, end)
        return span

    def class_name(self, node: ast.ClassDef) -> Span:
        return self._name(node, _CLASS_NAME)

    def function_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Span:
        return self._name(node, _FUNCTION_NAME)

    def _name(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, keyword: re.Pattern[str]) -> Span:
        line = self.line(node.lineno) - 1
        text = self.lines.line_text(line)
        m = keyword.search(text)
        if m is None:
            return self.span(node)
        return Span(Position(line, m.start(1)), Position(line, m.end(1)))


def parse_tolerant(text: str, positions: _Positions | None = None) -> tuple[list[ast.stmt], list[Problem], _Positions,
                                                                            set[int]]:
    """Parse the file; when it does not parse, parse each top-level block on its own so that
    a half-typed class does not hide the others (an editor buffer is rarely valid).
    ``positions``: the file's, when the caller has made them already."""
    positions = positions or _Positions(LineIndex(text))
    try:
        return parse(text).body, [], positions, set()
    except (SyntaxError, ValueError) as exc:
        first = exc
    problems = [_syntax_problem(first, positions)]
    body: list[ast.stmt] = []
    repaired: set[int] = set()  # 1-based lines replaced by `pass`: what they built is missing
    raw = positions.raw_lines()
    starts = [i for i, line in enumerate(raw) if line[:1] and (line[0].isalpha() or line[0] in "_@")]
    # A decorator belongs to the block that follows it.
    blocks: list[int] = []
    for i in starts:
        if blocks and raw[blocks[-1]].startswith("@") and all(raw[j].startswith("@") or not raw[j].strip()
                                                                for j in range(blocks[-1], i)):
            continue
        blocks.append(i)
    for n, start in enumerate(blocks):
        end = blocks[n + 1] if n + 1 < len(blocks) else len(raw)
        chunk = raw[start:end]
        for _ in range(4):
            try:
                body.extend(parse("\n" * start + "\n".join(chunk)).body)
                break
            except (SyntaxError, ValueError) as exc:
                bad = (getattr(exc, "lineno", None) or 0) - 1 - start
                if not 0 <= bad < len(chunk) or chunk[bad].strip() == "pass":
                    break
                # Stand-in for the broken line, so the rest of the block still parses.
                indent = len(chunk[bad]) - len(chunk[bad].lstrip())
                chunk = chunk[:bad] + [" " * indent + "pass"] + chunk[bad + 1:]
                repaired.add(start + bad + 1)
    return body, problems, positions, repaired


def _parse_with(memo: PythonMemo, text: str) -> tuple[list[ast.stmt], list[Problem], _Positions, set[int]]:
    """parse_tolerant, taking the blocks that have not changed since the memo's last parse from it."""
    positions = _Positions(LineIndex(text))
    lines = positions.raw_lines()
    blocks = split_blocks(lines)
    found = parse_blocks(memo, lines, blocks)
    if found is not None:
        body, positions.line_map = found
        return body, [], positions, set()
    body, problems, positions, repaired = parse_tolerant(text, positions)
    if problems:
        memo.blocks = ({}, 0)
    else:
        remember_blocks(memo, lines, blocks, body)
    return body, problems, positions, repaired


def _syntax_problem(exc: Exception, positions: _Positions) -> Problem:
    lineno = getattr(exc, "lineno", None) or 1
    col = max((getattr(exc, "offset", None) or 1) - 1, 0)
    msg = getattr(exc, "msg", None) or str(exc)
    start = Position(max(lineno - 1, 0), 0)
    if lineno - 1 < positions.lines.line_count:
        start = Position(lineno - 1, min(col, len(positions.lines.line_text(lineno - 1))))
    return Problem("error", "LC001", f"syntax error: {msg} (the blocks that parse are still analysed)",
                   Span(start, start))


def analyze_python(text: str, path: str, options: Any = None, memo: PythonMemo | None = None,
                   progress: Any = None) -> FileReport:
    """``memo``: what the last analysis of the same document (an earlier version of ``text``) left;
    the classes an edit cannot have changed are taken from it (see reuse.py). ``progress``: an
    ``analyze.AnalysisProgress`` told what the analysis is doing (the module's imports, then each
    class it counts)."""
    # The analysis allocates hundreds of thousands of small objects (AST nodes, values, spans)
    # that all live until it ends; the cyclic collector would rescan them many times over for
    # nothing (a third of the run time on a 5,000-line file). It runs again once we are done.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyze_python(text, path, options, memo, progress)
    finally:
        if was_enabled:
            gc.enable()


def _analyze_python(text: str, path: str, options: Any, memo: PythonMemo | None, progress: Any) -> FileReport:
    if memo is not None and memo.reuse:
        body, problems, positions, repaired = _parse_with(memo, text)
    else:
        body, problems, positions, repaired = parse_tolerant(text)
    lines = positions.lines
    functions = getattr(options, "functions", ()) if options is not None else ()
    if not functions and not any(isinstance(s, ast.ClassDef) for s in body) and not _may_build_a_model(body):
        return _no_model(path, problems, lines)
    base_dir = getattr(options, "base_dir", None) if options is not None else None
    ctx = Ctx((base_dir,) if base_dir else (), *_installed_packages(options, base_dir or os.path.dirname(path)))
    if memo is not None:
        ctx.trees = memo.trees
    ctx.hf_cache = getattr(options, "hf_cache", None) if options is not None else None
    ctx.script_args = getattr(options, "script_args", None) if options is not None else None
    scope = ctx.new_scope(path, positions.span, True, positions.line)
    scope.text = text
    if memo is not None and memo.reuse and (memo.from_disk or memo.to_disk):
        # Where the installed packages are read from is part of the key: another environment's
        # results are not this one's.
        memo.disk_key = (os.path.abspath(path), (ctx.base_dirs, tuple(sorted(ctx.read_packages)), ctx.site_packages,
                                                 *((ctx.script_args,) if ctx.script_args is not None else ())))
        if memo.from_disk:
            memo.from_disk = False  # the first analysis only: later ones start from the one before
            stored = memo_store.load(*memo.disk_key)
            if stored is not None:
                memo.classes, memo.files = stored
    try:
        return _interpret(text, path, options, body, problems, positions, repaired, ctx, scope, memo, progress)
    finally:
        _release(ctx)


def _installed_packages(options: Any, directory: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The installed packages the file's imports may read, and the site-packages directories
    they are read from (AnalyzeOptions.read_packages, .site_packages)."""
    names = getattr(options, "read_packages", DEFAULT_READ_PACKAGES) if options is not None else DEFAULT_READ_PACKAGES
    if not names:
        return frozenset(), ()
    sites = getattr(options, "site_packages", None) if options is not None else None
    return frozenset(names), tuple(sites) if sites is not None else discover_site_packages(directory or None)


def _no_model(path: str, problems: list[Problem], lines: LineIndex, script: bool = False) -> FileReport:
    """A Python file that defines no nn.Module class: not a model file (the editor and the gate say
    nothing about it; the CLI, asked to count it, says why it counts nothing). ``script``: it has a
    ``__main__`` block, which was followed and built no model."""
    what = "the file defines no nn.Module class" + (
        ", and its `if __name__ == \"__main__\":` block builds no model the analyser can follow" if script else "")
    return unrecognized(path, problems, f"no model found: {what} (a function that builds one is counted with "
                                        f"--function NAME)", Span(Position(0, 0), Position(0, 0)), lines)


def _release(ctx: Ctx) -> None:
    """Break the interpreter's reference cycles, so that reference counting frees the analysis
    at once (a test checks that it leaves no cyclic garbage):
    - each module scope and its global names hold each other;
    - a module's classes hold their module (the names their methods see) and their hooks,
      which hold them; a dataclass holds itself, the class its __init__ comes from;
    - a function defined in a function or a class body is held by the names it sees, as is a
      generator expression's or map's iterator by its source's frame;
    - an instance may hold itself (``self.act = self._gelu``, ``self.inner.owner = self``);
    - an enum holds its members, which are instances of it.
    Left to the cyclic collector, the 30,000 objects a transformers model file left (its project
    files' classes held their syntax trees) cost a collection at some later allocation; in the
    language server, whose collector is frozen between analyses (lsp/collector.py), they would
    wait until the server is idle."""
    for scope in ctx.scopes:
        for value in scope.env.vars.values():
            if type(value) is ClassV:
                _release_class(value)
        for cls in scope.classes:
            _release_class(cls)
        scope.classes.clear()
        scope.env.vars.clear()
        scope.env.module = None  # type: ignore[assignment]
        scope.span_of = None
    for fn in ctx.closures:
        fn.env = None  # type: ignore[assignment]
    for iterator in ctx.lazy_iterators:
        iterator.source = None  # a generator expression's frame holds its scope, which may hold it
    for inst in ctx.cycle_holders:
        inst.attrs.clear()
        if type(inst) is Inst:  # (an OrderedDict's attributes are its attrs alone)
            inst.unregistered = None
    ctx.scopes.clear()
    ctx.closures.clear()
    ctx.lazy_iterators.clear()
    ctx.cycle_holders.clear()
    ctx.loaded.clear()
    ctx.built.clear()
    ctx.default_configs.clear()
    ctx.failed.clear()
    ctx.state_containers.clear()
    ctx.hint_insts.clear()
    ctx.training_plans.clear()
    ctx.optimizers.clear()
    ctx.step_batches.clear()
    ctx.step_shardings.clear()
    ctx.counted.clear()
    ctx.submodules.clear()


def _release_class(cls: ClassV) -> None:
    cls.namespace.clear()
    cls.enum_members = None  # its members are instances of it
    cls.dataclass_init = cls.getattribute_hook = cls.setattr_hook = cls.new_method = cls.env = None
    cls.decorated = None  # a subclass its decorator made holds it as a base
    cls.annotations = None  # may name the class itself


def _interpret(text: str, path: str, options: Any, body: list[ast.stmt], problems: list[Problem],
               positions: "_Positions", repaired: set[int], ctx: Ctx, scope: ModuleScope,
               memo: PythonMemo | None = None, progress: Any = None) -> FileReport:
    lines = positions.lines
    interp = Interpreter(ctx)
    if progress is not None:
        progress.at("running the file's imports and statements")
    try:
        interp.run_module(ast.Module(body=body, type_ignores=[]), scope)
    except RecursionError:
        problems.append(Problem("error", "LC001", "the file is nested too deeply to analyse"))
        return FileReport(path, (), tuple(problems), recognized=True, lines=lines)
    except Exception as exc:  # noqa: BLE001 - a bug of the analyser on odd code: said, never a traceback
        problems.append(_internal_error(exc, "this file", None))
        return FileReport(path, (), tuple(problems), recognized=True, lines=lines)
    top = {id(s) for s in body}
    direct = frozenset(top)
    guarded = _guarded_classes(body)
    # A class under `if`/`try`/`with` at module level is the module's where Python ran its statement
    # (`try: from apex import FusedNorm` / `except ImportError: class FusedNorm(nn.Module)`).
    if guarded:
        bound = {id(v.node) for v in scope.env.vars.values() if type(v) is ClassV}
        top.update(id(node) for node in guarded if id(node) in bound)
    functions = getattr(options, "functions", ()) if options is not None else ()
    counts_classes = getattr(options, "classes", True) if options is not None else True
    classes = [c for c in scope.classes if c.is_module and id(c.node) in top] if counts_classes or not functions else []
    unreached = _unreached_classes(guarded, scope, positions) if counts_classes or not functions else []
    problems.extend(problem for _, problem in unreached)
    unfollowed_bases = [c for c in scope.classes if not c.is_module and id(c.node) in top and _may_be_module(c, body)]
    problems.extend(_unresolved(c.name, _unknown_base(c, ctx), positions.class_name(c.node)) for c in unfollowed_bases)
    assigned = assignments(body)
    variables = _module_models(assigned, scope) if counts_classes or not functions else []
    unbuilt = _unbuilt_module_models(assigned, body, scope, positions) if counts_classes or not functions else []
    problems.extend(unbuilt)
    runs_entry = bool(main_blocks(body)) and (counts_classes or not functions)
    nothing_else = not classes and not functions and not unreached and not unfollowed_bases and not variables \
        and not unbuilt
    if nothing_else and not runs_entry:
        return _no_model(path, problems, lines)
    if ctx.environment:  # read by the file's own statements, at import
        span = next((read[3] for read in ctx.environment if read[3] is not None), None)
        problems.append(Problem("info", "LC106", f"the file's code at import: {environment_note(ctx.environment)}",
                                span))
    # The file's config classes: those named so (GPTConfig, ModelArgs); else its dataclasses (a
    # file whose dataclasses are outputs, transformers' ModelOutput, has its config named).
    plain = [c for c in scope.classes if not c.is_module and id(c.node) in top]
    config_classes = [c for c in plain if CONFIG_CLASS_NAME.search(c.name)] or _imported_configs(
        interp, scope) or [c for c in plain if c.is_dataclass]
    models: list[ModelReport] = []
    unresolved: list[str] = []
    hint_counts = [_hint_counts(ctx)]  # built by the module's own statements
    plan = None
    if memo is not None and memo.reuse and (ctx.disk_reads or ctx.hub_lookups):
        # The module's own statements read a data file, a config or the HF cache, which every class
        # may depend on and no key records: nothing is kept, and nothing earlier is taken.
        memo.classes, memo.files = {}, {}
    elif memo is not None and memo.reuse and not getattr(options, "execute", False):
        parsed = not any(p.code == "LC001" for p in problems)
        plan = ReusePlan(memo, body, positions.raw_lines(), options, tuple(c.name for c in config_classes),
                         positions.line, None if parsed else repaired)
    unresolved.extend(name for name, _ in unreached)
    unresolved.extend(c.name for c in unfollowed_bases)
    steps = len(classes) + len(functions)
    problems.extend(_import_raises(ctx, positions))
    for done, cls in enumerate(classes):
        if progress is not None:
            progress.at(f"counting `{cls.name}`", done, steps)
        name_span = positions.class_name(cls.node)
        broken = _broken_lines(repaired, (cls.node,), positions)
        if broken:
            problems.append(_unresolved(cls.name, f"line {broken[0]} does not parse yet", name_span))
            unresolved.append(cls.name)
            continue
        reused = plan.reuse(cls.node) if plan is not None and id(cls.node) in direct else None
        if reused is not None:
            report, problem = reused.report, reused.problem
            hint_counts.append(dict(reused.hints))
        else:
            ctx.hint_insts = {}
            hub_lookups, disk_reads = ctx.hub_lookups, ctx.disk_reads
            try:
                report, problem = count_class(interp, cls, config_classes, name_span, scope)
            except Exception as exc:  # noqa: BLE001 - a bug of the analyser loses this class, not the file's others
                report, problem = None, _internal_error(exc, f"`{cls.name}`", name_span)
            hint_counts.append(_hint_counts(ctx))
            # A count that read the HF cache or a file besides the project's modules is not kept: they may change.
            if plan is not None and ctx.hub_lookups == hub_lookups and ctx.disk_reads == disk_reads:
                plan.remember(cls.node, report, problem, hint_counts[-1])
        if report is not None:
            models.append(report)
        if problem is not None:
            problems.append(problem)
            if report is None:
                unresolved.append(cls.name)
    # `model = nn.Sequential(...)`: built by the module's own statements; `net = model` names the same
    # module, counted once under its first name.
    by_name = {v[0]: (v, v[2], assigned[v[0].partition(".")[0]][0][0].lineno) for v in variables}
    for variable, also in _distinct_modules([(v, v[2], v[0]) for v in variables]):
        (name, target, inst), also = _first_named(variable, also, by_name, variable[0])
        report, problem = _name_report(ctx, name, inst, positions.span(target), also)
        if report is not None:
            models.append(report)
        if problem is not None:
            problems.append(problem)
    if runs_entry:
        if progress is not None:
            progress.at("following the script's `__main__` block", len(classes), steps)
        ctx.hint_insts = {}
        read = len(ctx.environment)
        entry_models, entry_problems = _entry_models(interp, body, scope, positions, repaired)
        hint_counts.append(_hint_counts(ctx))
        # What its models were counted with (the command line, its files), where the script's own code
        # asks (what a library it calls asks is the library's business, as at import)
        # (and the command line given, which LightningCLI reads in its shim: said at the block)
        reads = [r for r in ctx.environment[read:] if r[3] is not None or r[0] == "arguments"]
        if entry_models and reads:
            span = next((r[3] for r in reads if r[3] is not None), None) or positions.span(main_blocks(body)[0])
            entry_problems.append(Problem("info", "LC106", f"the script's `__main__` block: {environment_note(reads)}",
                                          span))
        # A module-level name the block assigns again (`model = model.half()`) is the block's model.
        again = {m.name for m in entry_models} & {name for name, _, _ in variables}
        models[:] = [m for m in models if m.name not in again]
        models.extend(entry_models)
        problems.extend(entry_problems)
        if nothing_else and not entry_models and not entry_problems:
            return _no_model(path, problems, lines, script=True)  # (a script that builds no model: not a model file)
    for done, name in enumerate(functions, len(classes)):
        if progress is not None:
            progress.at(f"counting `{name}()`", done, steps)
        try:
            report, problem = count_function(interp, name, body, scope, positions)
        except Exception as exc:  # noqa: BLE001 - as for a class: said, never a traceback
            report, problem = None, _internal_error(exc, f"`{name}()`", None)
        if report is not None:
            models.append(report)
        if problem is not None:
            problems.append(problem)
    if unresolved and options is not None and getattr(options, "execute", False):
        from lsp_count.pymodel.execute import count_by_executing

        if progress is not None:
            some = "`" + unresolved[0] + "`" + (f" and {len(unresolved) - 1} more" if len(unresolved) > 1 else "")
            progress.at(f"importing the file to count {some} on the meta device (execute)", steps, steps)
        base_dir = getattr(options, "base_dir", None)
        executed, exec_problems = count_by_executing(path, unresolved, base_dir, {c.name: positions.class_name(c.node) for c in classes})
        done = {m.name for m in executed}
        problems = [p for p in problems if not (p.code == "LC101" and any(p.message.startswith(f"`{n}`") for n in done))]
        problems.extend(exec_problems)
        models.extend(executed)
        models.sort(key=lambda m: (m.span.start.line if m.span else 0))
    if plan is not None:
        plan.finish([*ctx.loaded, *sorted(ctx.watched)], ctx.missing)
        if memo is not None and memo.to_disk and memo.disk_key is not None and plan.remembered:
            memo_store.store(*memo.disk_key, memo.classes, memo.files)
    refs = _hub_calls(body, positions) if "from_pretrained" in text else []
    return FileReport(path, tuple(models), tuple(problems), recognized=True, lines=lines, hints=_hints(hint_counts),
                      hub_refs=tuple((span, hub) for span, hub, *_ in refs),
                      hub_counts=tuple(_hub_count(ctx, *ref) for ref in refs))


def _may_build_a_model(body: list[ast.stmt]) -> bool:
    """A file with no class may still build a model in its own statements (a script's
    ``model = nn.Sequential(...)``, in a branch too, a training script's ``if __name__ ==
    "__main__":`` block): one that imports torch and assigns a call's result at module level or has
    such a block is run; any other (most of a project's files) is not a model file, at no cost."""
    imports_torch = any(
        isinstance(stmt, ast.Import) and any(a.name.split(".")[0] in _MODEL_LIBRARIES for a in stmt.names) or
        isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and (stmt.module or "").split(".")[0] in _MODEL_LIBRARIES
        for stmt in body)
    calls = [value for assigned in assignments(body).values() for _, value in assigned if isinstance(value, ast.Call)]
    if imports_torch:
        return bool(main_blocks(body)) or bool(calls)
    # A script that builds its model from the project's own class and never imports torch itself
    # (`from model import RNNModel` ... `net = RNNModel(...)`): a class, by its name, imported from
    # a module that may be the project's, called at module level.
    project_classes = {a.asname or a.name for stmt in body if isinstance(stmt, ast.ImportFrom)
                       and may_import_project(stmt.module, stmt.level) for a in stmt.names if a.name[:1].isupper()}
    return any(isinstance(call.func, ast.Name) and call.func.id in project_classes for call in calls)


_MODEL_LIBRARIES = frozenset({"torch", "transformers", "timm", "torchvision", "lightning", "pytorch_lightning", "hydra",
                              "omegaconf", "trl"})


def _module_models(assigned: dict[str, list[tuple[ast.Name, ast.expr | None]]],
                   scope: ModuleScope) -> list[tuple[str, ast.Name, Inst]]:
    """The file's module-level names (``assigned``: script.assignments of its statements) that hold a
    module once its statements have run, each with the name of its last assignment (``model =
    GPT(config)``; ``model = model.to(device)``)."""
    out = []
    for name, assignments_of_name in assigned.items():
        value = scope.env.vars.get(name)
        if type(value) is Inst and value.is_module:
            out.append((name, assignments_of_name[-1][0], value))
    named = [inst for _, _, inst in out]
    for name, assignments_of_name in assigned.items():
        held = _object_model(scope.env.vars.get(name), named)
        if held is not None:
            out.append((f"{name}.model", assignments_of_name[-1][0], held))
    out.sort(key=lambda v: (v[1].lineno, v[1].col_offset))
    return out


def _object_model(value: Any, named: list[Inst]) -> Inst | None:
    """The module an object that is not one holds as its ``model`` (a TRL trainer given a model id:
    ``trainer = SFTTrainer(model="Qwen/Qwen2.5-0.5B", ...)``), counted as ``trainer.model``; None
    where it holds none, or holds a module some name of the script holds or holds inside it (``trainer
    = SFTTrainer(model=model, peft_config=...)``: `model` is counted, the adapters peft put in it too)."""
    if type(value) is not Inst or value.is_module:
        return None
    model = value.attrs.get("model")
    if type(model) is not Inst or not model.is_module:
        return None
    ids = {id(inst) for inst in named}
    if id(model) in ids or any(id(v) in ids for _, _, _, v in module_attributes(model)):
        return None
    return model


def _entry_models(interp: Interpreter, body: list[ast.stmt], scope: ModuleScope, positions: "_Positions",
                  repaired: set[int]) -> tuple[list[ModelReport], list[Problem]]:
    """The models a script's entry point builds (script.py), each counted as a module-level
    name is; LC101 for a name it assigns a model the analyser could not follow, with the reason,
    and for one of a block or function with a line that does not parse yet (as a class's)."""
    models, problems = [], []
    try:
        names, notes = run_entry_points(interp, body, scope)
    except RecursionError:
        return [], [Problem("warning", "LC101", "the script's `__main__` block nests too deeply to follow")]
    except Exception as exc:  # noqa: BLE001 - a bug of the analyser on odd code: said, never a traceback
        return [], [_internal_error(exc, "the script's `__main__` block", None)]
    problems.extend(Problem("warning" if failed else "info", "LC101" if failed else "LC106", note,
                            positions.span(node)) for node, note, failed in notes)
    named = [n.found for n in names if type(n.found) is Inst and n.found.is_module]
    for n in list(names):
        held = _object_model(n.found, named)
        if held is not None:
            names.append(replace(n, label=f"{n.name}.model{n.label[len(n.name):]}", found=held))
    by_label = {n.label: (n, n.found, n.assigned[0][0].lineno) for n in names}
    used: dict[int, Callable[[], frozenset[str]]] = {}  # _used_as_modules of each scope, by its id, walked once if asked
    for name, also in _distinct_modules([(n, n.found, n.label) for n in names]):
        name, also = _first_named(name, also, by_label, name.label)
        span = positions.span(name.assigned[-1][0])
        if type(name.found) is Inst and name.found.is_module:
            report, problem = _name_report(interp.ctx, name.label, name.found, span, also)
            found = [problem] if problem is not None else []
        else:
            if id(name.scope) not in used:
                used[id(name.scope)] = functools.cache(functools.partial(_used_as_modules, name.scope, positions))
            report, found = None, _unbuilt(name.label, name.name, name.assigned, name.found, scope, positions,
                                           used[id(name.scope)])
        broken = _broken_lines(repaired, name.scope, positions)
        if broken and (report is not None or found):
            problems.append(_unresolved(name.label, f"line {broken[0]} does not parse yet", span))
            continue
        if report is not None:
            models.append(report)
        problems.extend(found)
    # (a statement that assigns a model and raises: the name's own problem says it)
    said = {p.span.start.line for p in problems if p.code == "LC101" and p.span is not None}
    problems.extend(p for p in _entry_raises(interp.ctx, positions) if p.span.start.line not in said)
    return models, problems


def _first_named(item: Any, also: list[str], by_label: dict[str, tuple[Any, Any, int]],
                 label: str) -> tuple[Any, list[str]]:
    """Of the names of one module (``item``, named ``label``, and ``also``), the one the script
    gave it first (``by_label``: each name's item, module and first assignment's line), with the
    others: nanoGPT's `model`, not the `unoptimized_model = model` it keeps before `model =
    torch.compile(model)`, which is assigned last."""
    _, module, line = by_label[label]
    first = min(((other, by_label[other][2]) for other in also if by_label[other][1] is module),
                key=lambda pair: pair[1], default=None)
    if first is None or first[1] >= line:
        return item, also
    return by_label[first[0]][0], [label, *(other for other in also if other != first[0])]


def _distinct_modules(named: list[tuple[Any, Any, str]]) -> list[tuple[Any, list[str]]]:
    """(item, the module it holds, its name), in order -> each item whose module no earlier item
    holds, with the names of the later items that hold it too (``net = model``: one model, `model`;
    ``ddp_model = DDP(model)``, ``FSDP(model)``: torch's data-parallel wrappers hold the same parameters)."""
    first: dict[int, list[str]] = {}
    out = []
    for item, value, label in named:
        if type(value) is Inst and value.is_module:
            inner = value
            while (wrapped := _wrapped_model(inner)) is not None:
                inner = wrapped
            if id(value) in first or id(inner) in first:
                first[id(value) if id(value) in first else id(inner)].append(label)
                continue
            also: list[str] = []
            first[id(value)] = first[id(inner)] = also
        else:
            also = []
        out.append((item, also))
    return out


# torch's data-parallel wrappers, each with the attribute that holds the model it wraps
_DATA_PARALLEL = {"DataParallel": "module", "DistributedDataParallel": "module",
                  "FullyShardedDataParallel": "_fsdp_wrapped_module"}


def _wrapped_model(inst: Inst) -> Inst | None:
    """The model a wrapper holds (torch's data-parallel wrappers; DeepSpeed's engine, shims/deepspeed.py);
    None for any other module."""
    if type(inst.cls) is str:
        held = inst.attrs.get(_DATA_PARALLEL.get(inst.cls, ""))
    elif type(inst.cls) is ClassV and inst.cls.name == "DeepSpeedEngine" and inst.cls.path == DEEPSPEED_SHIM:
        held = inst.attrs.get("module")
    else:
        return None
    return held if type(held) is Inst else None


def _also_named(report: ModelReport, names: Sequence[str]) -> ModelReport:
    """The report with a note naming the other names that hold the same module."""
    if not names:
        return report
    note = "the same module is also named " + ", ".join(f"`{n}`" for n in names)
    return replace(report, tree=replace(report.tree, notes=(*report.tree.notes, note)))


def _name_report(ctx: Ctx, label: str, inst: Inst, span: Span,
                 also: Sequence[str] = ()) -> tuple[ModelReport | None, Problem | None]:
    """A module a name of a script holds, counted (``model``, ``model in main()``): no report where
    it holds no parameters and nothing is said of it (``criterion = nn.CrossEntropyLoss()``); a bug of
    the analyser said, never a traceback, as for a class. ``also``: the other names that hold it."""
    try:
        report, problem = _model_report(ctx, label, inst, [], {}, span)
        if report is not None:
            report = _also_named(report, also)
    except Exception as exc:  # noqa: BLE001
        return None, _internal_error(exc, f"`{label}`", span)
    return (report if report is not None and (report.tree.total or problem is not None) else None), problem


def _broken_lines(repaired: set[int], nodes: tuple[ast.AST, ...], positions: "_Positions") -> list[int]:
    """The lines the tolerant parse repaired within the statements (and the line after each), in
    order: a class or an entry point there is not counted until they parse."""
    return sorted(n for n in repaired for node in nodes if positions.line(node.lineno) <= n <=  # type: ignore[attr-defined]
                  positions.line(node.end_lineno or node.lineno) + 1)  # type: ignore[attr-defined]


def _unbuilt_module_models(assigned: dict[str, list[tuple[ast.Name, ast.expr | None]]], body: list[ast.stmt],
                           scope: ModuleScope, positions: "_Positions") -> list[Problem]:
    """LC101 for each module-level name the file assigns a model the analyser could not follow (a
    script's ``model = get_peft_model(model, config)``; nanoGPT's train.py, whose ``model =
    GPT(gptconf)`` depends on the dataset's vocabulary), said with the reason, where the file was "no
    model found"."""
    out = []
    # Walked only if a name's value is not known: a walk of the whole file costs more than the rest.
    used = functools.cache(functools.partial(_used_as_modules, body, positions))
    for name, assignments_of_name in assigned.items():
        out.extend(_unbuilt(name, name, assignments_of_name, scope.env.vars.get(name), scope, positions, used))
    return out


def _unbuilt(label: str, name: str, assigned: list[tuple[ast.Name, ast.expr | None]] | tuple[Any, ...], found: Any,
             scope: ModuleScope, positions: "_Positions",
             used: Callable[[], frozenset[str]] = frozenset) -> list[Problem]:
    """LC101 at the assignment that builds a model (the first of the name's), where the name's value
    in the end is not known. A model is what a call of a module class of the file, a torch layer
    or container, or a model loader or wrapper (``from_pretrained``, ``from_config``,
    ``get_peft_model``, ``create_model``) makes, or any call's where the code then uses the name
    as a module (``used()``, _used_as_modules: ``model.parameters()``, ``torch.compile(model)``; a
    class of a module the analysis did not find); any other call's value (a dataset, a tokenizer)
    is not one."""
    if type(found) is not Unknown:
        return []
    building = next((target for target, value in assigned if isinstance(value, ast.Call) and (
        _builds_a_model(value, scope) or _calls_a_model_function(value, scope) or name in used())), None)
    if building is None:
        return []
    why = unfollowed_reason(name, found.why)
    return [_unresolved(label, why, positions.span(building))]


# What only a module has (an optimizer has `state_dict` and `zero_grad` too): a name whose value
# these are called on, or which these are called with, holds a model (`model.parameters()`,
# `torch.compile(model)`). (peft's `get_peft_model(base, ...)` is not one: its own value is the
# model said, once.)
_ONLY_MODULE_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules",
                                  "named_modules", "children", "named_children"})
_MODULE_TAKERS = frozenset({"compile", "DistributedDataParallel", "DataParallel", "FullyShardedDataParallel"})


def _used_as_modules(statements: Sequence[ast.AST], positions: "_Positions") -> frozenset[str]:
    """The names the statements use as a module (see _ONLY_MODULE_METHODS). Only the nodes whose
    lines hold one of the names above are walked into (a node none of whose lines holds one calls
    none of them): a walk of a whole file of a few thousand lines (asked by `_logger =
    logging.getLogger(...)`, a value not followed) cost 7% of its analysis."""
    lines, text = positions.lines, positions.lines.text
    found: set[int] = set()
    for word in _ONLY_MODULE_METHODS | _MODULE_TAKERS:
        at = text.find(word)
        while at != -1:
            found.add(lines.position(at).line + 1)  # 1-based, as the nodes' lines
            at = text.find(word, at + len(word))
    if not found:
        return frozenset()
    word_lines = sorted(found)

    def holds_a_word(node: ast.AST) -> bool:
        first = positions.line(node.lineno)  # type: ignore[attr-defined]
        at = bisect.bisect_left(word_lines, first)
        return at < len(word_lines) and word_lines[at] <= positions.line(node.end_lineno or node.lineno)  # type: ignore[attr-defined]

    used: set[str] = set()
    stack = [stmt for stmt in statements if holds_a_word(stmt)]
    while stack:
        node = stack.pop()
        if type(node) is ast.Call:
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _ONLY_MODULE_METHODS and \
                    isinstance(func.value, ast.Name):
                used.add(func.value.id)
            elif last_name(func) in _MODULE_TAKERS and node.args and isinstance(node.args[0], ast.Name):
                used.add(node.args[0].id)
        # (nodes without lines, an operator or a comprehension, are walked into)
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if getattr(child, "lineno", None) is None or holds_a_word(child))
    return frozenset(used)


_MODEL_WRAPPERS = frozenset({"get_peft_model", "create_model", "prepare_model_for_kbit_training", "LightningCLI"})
_MODEL_LOADERS = frozenset({"from_pretrained", "from_config", "_from_config"})


# Module methods that give the module back (`model = build().to(device)`): what their receiver is.
_MODULE_RETURNING = frozenset({"to", "cuda", "cpu", "half", "float", "bfloat16", "double", "eval", "train",
                               "requires_grad_", "to_empty"})


def _calls_a_model_function(call: ast.Call, scope: ModuleScope) -> bool:
    """Whether ``call`` is a function of the analysed file whose own statements build a model
    (`def build_model(): model = models.resnet50(...)`), or one of the module methods above on its
    result (`build_model().to(device)`)."""
    func = _receiver_call(call).func
    value = scope.env.vars.get(func.id) if isinstance(func, ast.Name) else None
    if type(value) is not FuncV or value.env is None or value.env.module is not scope or \
            getattr(value.node, "deferred", None) is not None:
        return False
    return any(isinstance(node, ast.Call) and _builds_a_model(node, scope) for node in ast.walk(value.node))


def _receiver_call(call: ast.Call) -> ast.Call:
    """The call whose module the module methods above give back (`models.resnet50()` of
    `models.resnet50().to(device)`); ``call`` itself where it is none of them."""
    while isinstance(call.func, ast.Attribute) and call.func.attr in _MODULE_RETURNING and \
            isinstance(call.func.value, ast.Call):
        call = call.func.value
    return call


def _builds_a_model(call: ast.Call, scope: ModuleScope) -> bool:
    """Whether ``call`` makes a model (see _unbuilt_module_models)."""
    func = _receiver_call(call).func
    if isinstance(func, ast.Name):
        value = _as_read(scope.env.vars.get(func.id))  # `from model import GPT`: what it names
        if func.id == "instantiate" or type(value) is ExtV and value.name == "hydra.utils.instantiate":
            return _names_a_model(call)
        return func.id in _MODEL_WRAPPERS or (type(value) is ClassV and value.is_module) or _library_builder(value)
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in _MODEL_WRAPPERS:
        return True
    if func.attr == "instantiate":
        return _names_a_model(call)
    if func.attr in _MODEL_LOADERS:
        return builds_module(last_name(func.value))
    chain = ast.unparse(func.value)
    if chain in ("nn", "torch.nn") and func.attr[:1].isupper():
        return True
    # `net.Net(ntokens)` of `import net` (a module class of a project module the analysis read);
    # `models.resnet18()` of `import torchvision.models as models` (a model library's builder).
    parts = chain.split(".")
    held: Any = _as_read(scope.env.vars.get(parts[0]))
    for part in parts[1:]:
        if type(held) is ExtV:
            held = ExtV(f"{held.name}.{part}")  # `torchvision.models.vit_b_16()` of `import torchvision`
        else:
            held = _as_read(held.names.get(part)) if isinstance(held, ModV) and isinstance(held.names, dict) else None
    if isinstance(held, ModV) and isinstance(held.names, dict):
        found = _as_read(held.names.get(func.attr))
        return (type(found) is ClassV and found.is_module) or _library_builder(found)
    return type(held) is ExtV and _library_builder(ExtV(f"{held.name}.{func.attr}"))


def _library_builder(value: Any) -> bool:
    """A model library's builder or model class (torchvision's `resnet50`, `timm.create_model`), or a
    TRL trainer, which loads or takes a model (shims/trl.py): by its name where the library is not
    read, by the file it is defined in where it is."""
    if type(value) is ExtV:
        return value.name.startswith(_MODEL_LIBRARY_BUILDERS) or (
            SHIMS.get(value.name, ("", ""))[0] == TRL_SHIM and value.name.endswith("Trainer"))
    module = value.env.module if type(value) is FuncV and value.env is not None else None
    path = module.path.replace(os.sep, "/") if module is not None and module.path else ""
    return any(f"/{where.rstrip('.').replace('.', '/')}" in path for where in _MODEL_LIBRARY_BUILDERS)


def _as_read(value: Any) -> Any:
    """What an import names, where the analysis read it (a LazyImport's value); any other value as it is."""
    return value.value if type(value) is LazyImport else value


# Where a model library's model classes and builders live (torchvision, timm): a call of one makes a model.
_MODEL_LIBRARY_BUILDERS = ("torchvision.models.", "timm.models.", "timm.create_model", "transformers.models.")


# The config keys a Hydra project gives its model (`instantiate(cfg.model)`, `cfg.model.net`): an
# instantiate of any other (the data, the optimizer, the trainer) builds no model.
_MODEL_CONFIG_KEYS = frozenset({"model", "net", "network", "module", "backbone", "encoder", "decoder"})


def _names_a_model(call: ast.Call) -> bool:
    """Whether a Hydra ``instantiate(cfg.model)``'s config is a model's, by its key."""
    if not call.args:
        return False
    config = call.args[0]
    key = config.attr if isinstance(config, ast.Attribute) else config.slice.value if isinstance(
        config, ast.Subscript) and isinstance(config.slice, ast.Constant) else None
    return isinstance(key, str) and key.lower() in _MODEL_CONFIG_KEYS


def _import_raises(ctx: Ctx, positions: "_Positions") -> list[Problem]:
    """A warning at each module-level statement of the file that raises Python's error (a class
    statement's is its class's problem). Python stops importing the file at the first; the
    analysis reads on, as it reads past a class Python refuses, so one broken line does not hide
    the file's other counts (a class that reads what the statement would have set is LC101)."""
    out = []
    for stmt, reason in ctx.import_raises:
        first = positions.pos(stmt.lineno, stmt.col_offset)
        end = Position(first.line, len(positions.lines.line_text(first.line)))
        out.append(Problem("warning", "LC101", f"importing the file raises here: {reason} (Python stops importing "
                                               f"the file at this line; the counts read on as if it had not raised)",
                           Span(first, end)))
    return out


def _entry_raises(ctx: Ctx, positions: "_Positions") -> list[Problem]:
    """A warning at each statement of the script's entry point that raises Python's error (an
    `assert` that fails, a trainer given neither a model nor `model_init`). Python stops the script
    at the first; the analysis reads on, so the models built after it are still counted. Where the
    script had asked of the machine before it (`torch.cuda.device_count()`, answered as on a machine
    without a GPU), what it raises may be the machine's, not the script's: an LC106 note, saying so."""
    out = []
    for stmt, reason, reads in ctx.entry_raises:
        first = positions.pos(stmt.lineno, stmt.col_offset)
        span = Span(first, Position(first.line, len(positions.lines.line_text(first.line))))
        how = "(Python stops the script at this line; the analysis reads on as if it had not raised)"
        if reads:
            out.append(Problem("info", "LC106", f"running the script raises here: {reason}; it asked of the machine "
                                                f"first ({environment_note(ctx.environment[:reads])}), so where it "
                                                f"runs it may not {how}", span))
        else:
            out.append(Problem("warning", "LC101", f"running the script raises here: {reason} {how}", span))
    return out


def _module_function(body: list[ast.stmt], name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level ``def name`` Python binds last."""
    return next((s for s in reversed(body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name),
                None)


def _imported_configs(interp: Interpreter, scope: ModuleScope) -> list[ClassV]:
    """The config classes the file imports from its project (transformers' modeling files import
    their ``configuration_*`` classes: ``from .configuration_qwen2 import Qwen2Config``)."""
    out = []
    for name, value in list(scope.env.vars.items()):
        if not CONFIG_CLASS_NAME.search(name) or not isinstance(value, (LazyImport, ClassV)):
            continue
        try:
            value = interp.read_lazy(value) if isinstance(value, LazyImport) else value
        except Unresolved:
            continue
        if isinstance(value, ClassV) and not value.is_module and value.path != scope.path and value not in out:
            out.append(value)
    return out


def _hint_counts(ctx: Ctx) -> dict[Span, frozenset[int | None]]:
    """The sizes built at each constructor call since the hint anchors were last reset (one class's
    count); None for a size that is not a number."""
    out: dict[Span, frozenset[int | None]] = {}
    counted = ctx.counted
    for span, insts in ctx.hint_insts.items():
        counts: set[int | None] = set()
        for inst in insts:
            known = counted.get(id(inst))
            n = known[1] if known is not None and known[0] is inst else count_of(inst)
            counts.add(n if type(n) is int else None)
        out[span] = frozenset(counts)
    return out


def _hints(groups: list[dict[Span, frozenset[int | None]]]) -> tuple[tuple[Span, str], ...]:
    """One label per constructor call; a call that builds different sizes (a helper called
    with several widths) gets none rather than a misleading one."""
    merged: dict[Span, set[int | None]] = {}
    for group in groups:
        for span, counts in group.items():
            merged.setdefault(span, set()).update(counts)
    out = []
    for span, counts in merged.items():
        if len(counts) == 1:
            n = next(iter(counts))
            if n is not None and n > 0:
                out.append((span, f"▸ {short_count(n)}"))
    out.sort(key=lambda h: (h[0].start.line, h[0].start.column))
    return tuple(out)


def hub_refs(body: list[ast.stmt], positions: _Positions) -> tuple[tuple[Span, str], ...]:
    return tuple((span, hub) for span, hub, *_ in _hub_calls(body, positions))


def _hub_calls(body: list[ast.stmt], positions: _Positions) -> list[tuple[Span, str, str, tuple[str, ...]]]:
    """Each ``X.from_pretrained("org/name")``: span of the id string, the id, ``X`` (the loader),
    and the call's keywords that may change what it builds (``num_hidden_layers``; ``**kwargs`` as
    written)."""
    from lsp_count.pymodel.hub import LOADING_KWARGS

    lines = [i + 1 for i, line in enumerate(positions.raw_lines()) if "from_pretrained" in line]
    out = []
    for node in _nodes_on_lines(body, lines, positions.line):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "from_pretrained":
            arg = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "pretrained_model_name_or_path"), None)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                loader = last_name(node.func.value)
                changes = tuple(k.arg or f"**{ast.unparse(k.value)}" for k in node.keywords if k.arg not in LOADING_KWARGS)
                out.append((positions.span(arg), arg.value, loader, changes))
    out.sort(key=lambda r: (r[0].start.line, r[0].start.column))
    return out


def _nodes_on_lines(body: list[Any], lines: list[int], line_of: Any) -> Any:
    """The nodes of the statements that span one of ``lines`` (the file's, 1-based, sorted),
    without walking the others: "from_pretrained" in a docstring should not cost a walk of the
    whole file."""
    for stmt in body:
        if hasattr(stmt, "end_lineno"):  # match_case has no position: its parts are looked at
            k = bisect.bisect_left(lines, line_of(stmt.lineno))
            if k == len(lines) or lines[k] > line_of(stmt.end_lineno or stmt.lineno):
                continue
        yield stmt
        for _, value in ast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], (ast.stmt, ast.excepthandler, ast.match_case)):
                yield from _nodes_on_lines(value, lines, line_of)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        yield from ast.walk(item)
            elif isinstance(value, ast.AST):
                yield from ast.walk(value)


def _hub_count(ctx: Ctx, span: Span, hub: str, loader: str, changes: tuple[str, ...] = ()) -> tuple[Span, str, int | None, str]:
    """What the server shows on the id: the exact count of what the call builds when the catalog
    knows it; for a config loader, the count of the model it describes; else None and why. A call
    whose keywords may change the config (``num_hidden_layers=2``) builds something else: the
    id's own count is named in the message, not shown as the call's."""
    from lsp_count.pymodel.hub import builds_module

    found = ctx.hub_model(loader, hub)
    if changes and (found.is_config or builds_module(loader)) and found.catalog_total is not None:
        named = ", ".join(f"`{k}`" if k.startswith("**") else f"`{k}=`" for k in changes)
        return span, hub, None, (f"{found.message()}. This call's {named} may change that: the class that makes "
                                 f"it is counted with {'it' if len(changes) == 1 else 'them'}")
    if found.is_config or not builds_module(loader):
        if not builds_module(loader) and not found.is_config:
            return span, hub, None, f"{loader} builds no parameters"
        return span, hub, found.catalog_total, found.message()
    return span, hub, found.total, found.message()


def constructor_arguments(cls: ClassV, config_classes: list[ClassV], interp: Interpreter,
                          scope: ModuleScope) -> tuple[dict[str, Any], list[str], dict[Sym, tuple[str, str | None]]]:
    """What to build a class with: its defaults; a dataclass-annotated argument gets the
    dataclass's defaults; an argument with neither is a named unknown (a formula atom).
    Also the atoms of the arguments whose annotation does not rule out a module (see _held_argument)."""
    try:
        init = cls.lookup("__init__")
    except KeyError:
        return {}, [], {}
    if not isinstance(init, FuncV):
        return {}, [], {}
    init = signature_function(init)  # a constructor a decorator wrapped: the parameters it wraps
    a = init.node.args
    params = (a.posonlyargs + a.args)[1:]
    first_default = len(params) - len(init.defaults)
    kwargs: dict[str, Any] = {}
    notes: list[str] = []
    # The atom -> its argument's name, and its annotation where that names a module class.
    open_arguments: dict[Sym, tuple[str, str | None]] = {}
    required = [p for i, p in enumerate(params) if i < first_default]
    required += [p for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    for p in required:
        ann = None
        if p.annotation is not None:
            try:
                ann = interp.ev(p.annotation, init.env)
            except Unresolved:
                ann = None
        candidate = ann if isinstance(ann, ClassV) and not ann.is_module else None
        how = f"annotated `{p.arg}: {candidate.name}`" if candidate else ""
        if candidate is None and p.annotation is None and _CONFIG_NAME.search(p.arg) and len(config_classes) == 1:
            candidate = config_classes[0]
            how = f"`{p.arg}` has no annotation; `{candidate.name}` is the file's only config class"
        why = f"the constructor argument `{p.arg}` with no default"
        if candidate is not None:
            try:
                # The default config is built once per analysis; each class gets its own copy, as
                # `Config()` would make (a constructor that changes its config changes no other
                # class's). Equal copies key the same cached builds (the interpreter keys a config
                # by what it holds).
                key = ("config", id(candidate))
                defaults = interp.ctx.default_configs.get(key)
                if defaults is not None:
                    kwargs[p.arg] = clone(defaults)
                else:
                    interp.raise_if_failed(key)
                    holders, started = len(interp.ctx.cycle_holders), interp.ctx.steps
                    # `GPTConfig()`, where the class statement is: what a message about the call names.
                    call = ast.copy_location(ast.Call(ast.Name(candidate.name, ast.Load()), [], []), candidate.node)
                    # What building it changes beyond itself (transformers' configs standardise a
                    # class-level dict of sub-config defaults in place) is kept, as the config is:
                    # not put back when this class's count ends (Ctx.end_count).
                    undo, interp.ctx.undo = interp.ctx.undo, None
                    try:
                        defaults = interp.call(candidate, [], {}, call, scope.env)
                    except Unresolved as exc:
                        interp.keep_failure(key, exc, started, [candidate])
                        raise
                    finally:
                        interp.ctx.undo = undo
                    if len(interp.ctx.cycle_holders) == holders:
                        interp.ctx.default_configs[key] = defaults
                        kwargs[p.arg] = clone(defaults)
                    else:  # it holds itself: a copy would hold a cycle that nothing breaks (_release)
                        kwargs[p.arg] = defaults
                notes.append(f"counted with `{candidate.name}()` defaults for `{p.arg}` ({how})")
                continue
            except Unresolved as exc:
                why = (f"the constructor argument `{p.arg}` with no default (`{candidate.name}()`, whose defaults it "
                       f"would be counted with, cannot be built: {exc.reason})")
        kwargs[p.arg] = atom = Sym.atom(p.arg, why)
        if not _plain_classes_only(p.annotation, init.env):
            module_class = ann if _is_module_class(ann) else None
            open_arguments[atom] = (p.arg, ast.unparse(p.annotation) if module_class is not None else None)
    return kwargs, notes, open_arguments


# Annotations that say an argument is no module: builtin values, typing's wrappers of them,
# a callable (a layer factory such as ``norm_layer``), torch's dtype and device.
_NOT_MODULE_NAMES = frozenset({
    "int", "float", "bool", "str", "bytes", "complex", "tuple", "list", "dict", "set", "frozenset", "None",
    "Optional", "Union", "Tuple", "List", "Dict", "Set", "FrozenSet", "Sequence", "Iterable", "Mapping", "Literal",
    "Callable", "Type", "type", "dtype", "device", "Size"})


def _plain_classes_only(annotation: ast.expr | None, env: Any) -> bool:
    """True when every type the annotation names is a value's, one of _NOT_MODULE_NAMES (``int``,
    ``Optional[tuple[int, int]]``, ``"float | None"``), or a class of the code that is not a module
    (F5-TTS's `processor: JointAttnProcessor | AttnProcessor`); False without one."""
    if annotation is None:
        return False
    names = list(_type_names(annotation, 0))
    for name in names:
        if name in _NOT_MODULE_NAMES:
            continue
        try:
            value = env.lookup(name)
        except KeyError:
            return False
        if type(value) is not ClassV or value.is_module:
            return False
    return bool(names)


def _type_names(node: ast.expr, depth: int) -> Any:
    """The names of the types an annotation is made of ("?" for what is not a type's name)."""
    if depth > 20:
        yield "?"
    elif isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr  # typing.Optional, torch.dtype
    elif isinstance(node, ast.Subscript):
        yield from _type_names(node.value, depth + 1)
        # What a Literal holds is values; a Callable's signature and a Type's class are not the value's type.
        if last_name(node.value) not in ("Literal", "Callable", "Type", "type"):
            yield from _type_names(node.slice, depth + 1)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            yield from _type_names(elt, depth + 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from _type_names(node.left, depth + 1)
        yield from _type_names(node.right, depth + 1)
    elif isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis):
        yield "None"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # a forward reference: "int | None"
        try:
            yield from _type_names(ast.parse(node.value, mode="eval").body, depth + 1)
        except (SyntaxError, ValueError, RecursionError):
            yield "?"
    else:
        yield "?"


def count_class(interp: Interpreter, cls: ClassV, config_classes: list[ClassV], name_span: Span,
                scope: ModuleScope) -> tuple[ModelReport | None, Problem | None]:
    ctx = interp.ctx
    ctx.start_count()
    read = len(ctx.environment)
    failed_imports = len(ctx.failed_imports)
    name = cls.name  # the class statement's, whatever its decorators made
    if cls.decorated is not None:  # its name is what its decorators made of it: that is what the code builds
        if type(cls.decorated) is not ClassV or not cls.decorated.is_module:
            made = "a class that is not a module" if type(cls.decorated) is ClassV else "a function, not a class"
            return None, _unresolved(name, f"its decorators make `{name}` {made}", name_span)
        cls = cls.decorated
    if ctx.import_errors:
        return None, _unresolved(name, f"importing the file fails: {ctx.import_errors[0]}", name_span)
    try:
        kwargs, notes, open_arguments = constructor_arguments(cls, config_classes, interp, scope)
        # Only read from here on (counted, walked): the build cache can keep it without a copy.
        inst = interp.instantiate(cls, [], kwargs, cls.node, scope.env, snapshot=False)
        if type(inst) is Inst and (hook := _configure_model(inst)) is not None:
            # A LightningModule meant to be sharded builds its layers in `configure_model()`, which
            # Lightning's Trainer calls before training: the model is what that makes. (A copy:
            # the cached build stays as constructed.)
            constructed = count_of(inst)
            inst = clone(inst)
            interp.call_function(hook, [inst], {}, cls.node)
            notes = [*notes, f"its layers made by `{name}.configure_model()`, which Lightning's Trainer calls "
                             f"before training" + (f" (the constructor alone makes {constructed:,} parameters)"
                                                   if type(constructed) is int else "")]
        if len(ctx.environment) > read:
            notes = [*notes, environment_note(ctx.environment[read:])]
    except Unresolved as exc:
        # An ImportError that follows from an optional import taken as failing says so (transformers'
        # requires_backends raises one where `PIL` is missing).
        raised = getattr(exc, "kind", None)
        packages = ctx.failed_imports[failed_imports:] if isinstance(raised, ExtV) and raised.name in (
            "ImportError", "ModuleNotFoundError") else []
        return None, _unresolved(name, exc.reason + (f" ({environment_note(packages)})" if packages else ""), name_span)
    except RecursionError:
        return None, _unresolved(name, "the construction nests too deeply to follow (recursion?)", name_span)
    if isinstance(inst, Unknown):
        return None, _unresolved(name, inst.why, name_span)
    return _model_report(ctx, name, inst, notes, open_arguments, name_span)


def _configure_model(inst: Inst) -> FuncV | None:
    """The ``configure_model`` a LightningModule's class of the code defines (Lightning's own does
    nothing); None for any other module."""
    if type(inst.cls) is not ClassV:
        return None
    mro = inst.cls.mro()
    if not any(c.path == LIGHTNING_SHIM for c in mro):
        return None
    for c in mro:
        if c.path == LIGHTNING_SHIM:
            return None
        hook = c.namespace.get("configure_model")
        if type(hook) is FuncV:
            return hook
    return None


def count_function(interp: Interpreter, name: str, body: list[ast.stmt], scope: ModuleScope,
                   positions: "_Positions") -> tuple[ModelReport | None, Problem | None]:
    """What calling the module-level function ``name`` with no arguments returns, counted as a
    model named ``name()`` (timm's ``resnet50()``, a file's ``gpt2_small()``): after the module's
    own code ran, so decorators and registries are as Python leaves them at import. An
    LC102 error when there is no such function, needs arguments or returns no module."""
    label = f"{name}()"
    node = _module_function(body, name)
    if node is None:
        return None, Problem("error", "LC102", f"`{name}` is not a module-level function of the file (or its "
                                               f"`def` does not parse)")
    span = positions.function_name(node)
    if isinstance(node, ast.AsyncFunctionDef):
        return None, Problem("error", "LC102", f"`{name}` is `async`: calling it makes a coroutine, not a model", span)
    required = required_parameters(node.args)
    if required:
        return None, Problem("error", "LC102", f"`{name}` needs the argument{'s' if len(required) > 1 else ''} "
                                               f"{', '.join(f'`{r}`' for r in required)}: only a function that "
                                               f"builds a model with no arguments is counted", span)
    ctx = interp.ctx
    ctx.start_count(FUNCTION_STEPS)  # asked for by name: a larger budget than a class's
    ctx.hint_insts = {}
    read = len(ctx.environment)
    try:
        fn = scope.env.vars.get(name)
        if fn is None:
            raise Unresolved(f"`{name}` is not defined once the module has run")
        result = interp.call(interp.read_lazy(fn) if isinstance(fn, LazyImport) else fn, [], {}, node, scope.env)
    except Unresolved as exc:
        return None, _unresolved(label, exc.reason, span)
    except RecursionError:
        return None, _unresolved(label, "the calls nest too deeply to follow (recursion?)", span)
    if isinstance(result, Unknown):
        return None, _unresolved(label, result.why, span)
    if not (isinstance(result, Inst) and result.is_module):
        what = type(result).__name__ if not isinstance(result, Inst) else f"a `{result.cls.name}`" \
            if isinstance(result.cls, ClassV) else "an object"
        return None, Problem("error", "LC102", f"`{label}` returns {'None' if result is None else what}, "
                                               f"not an nn.Module", span)
    notes = [environment_note(ctx.environment[read:])] if len(ctx.environment) > read else []
    return _model_report(ctx, label, result, notes, {}, span)


def required_parameters(args: ast.arguments) -> list[str]:
    """The parameters a call must pass: positional ones before the first default, keyword-only
    ones without one."""
    positional = [*args.posonlyargs, *args.args]
    without = positional[:len(positional) - len(args.defaults)]
    return [a.arg for a in without] + [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


def _model_report(ctx: Any, name: str, inst: Inst, notes: list[str], open_arguments: dict[Sym, tuple[str, str | None]],
                  name_span: Span) -> tuple[ModelReport | None, Problem | None]:
    """A built module counted into a report (``name``: the class, or ``fn()`` for a function)."""
    walk = _Walk(ctx.counted, strict=True)
    try:
        # The usual case in one walk: every size a number and every submodule known.
        root = _node(name, inst, "", walk)
    except _Irregular:
        root = None
    if root is None:
        problem = _why_not_counted(name, inst, name_span, open_arguments, ctx)
        if problem is not None:
            return None, problem
        walk = _Walk(ctx.counted)
        root = _node(name, inst, "", walk)
    if root.total > MAX_PARAMETERS:  # sizes each under the limit can still multiply past what floats hold
        size = f"{root.total:,}" if root.total < 10**21 else f"about 10^{len(str(root.total)) - 1}"
        return None, _unresolved(name, f"{size} parameters is more than any model holds (limit {MAX_PARAMETERS:,})",
                                 name_span)
    held = _held_argument(inst, open_arguments) if open_arguments else ""
    if held:
        return None, _unresolved(name, f"{held}; the rest of `{name}` has {root.total:,} "
                                       f"parameter{'' if root.total == 1 else 's'}", name_span)
    frozen = root.total - root.trainable
    tree_notes = list(notes) + [f"{t}: counted once" for t in walk.ties]
    if frozen:
        tree_notes.append(f"{frozen:,} parameters are frozen (requires_grad=False): not trainable")
    tree_notes.extend(_plain_lists(inst))
    walker = _own_parameter_walk(inst)
    if walker:
        tree_notes.append(f"`{walker[0]}` defines its own `{walker[1]}()`: counted are the parameters registered on "
                          f"the modules (what the state dict and memory hold); what `{walker[1]}()` yields may differ")
    plan = _memory_plan(ctx, inst, root, tree_notes)
    spec = transformers_spec(inst, name, root, name_span)
    report = ModelReport(name, ParamTree(root, tuple(tree_notes)), span=name_span, method="static analysis (exact)",
                         plan=plan, spec=spec, positions=_position_limit(inst) if spec is None else None)
    problem = None
    if notes:
        problem = Problem("info", "LC106", f"`{name}`: " + "; ".join(notes), name_span)
    return report, problem


# The keys under which a model's config says the longest sequence it takes (transformers'
# max_position_embeddings, GPT-2's n_positions, nanoGPT's and LitGPT's block_size, llama2.c's
# max_seq_len), and the attributes a model keeps its config in.
_SEQUENCE_KEYS = ("max_position_embeddings", "n_positions", "block_size", "max_seq_len")
_CONFIG_ATTRIBUTES = ("config", "cfg", "params", "args")


def _position_limit(inst: Inst) -> PositionLimit | None:
    """The longest sequence a Python model takes, where it says so: a positive int under one of
    _SEQUENCE_KEYS on the model itself (minGPT's ``self.block_size``) or on the config object it
    keeps (nanoGPT's ``self.config``, llama2.c's ``self.params``). The memory estimate notes a
    context beyond it and the fit search stops there, as for a config.json's ``n_positions``.

    Hard (no longer sequence runs) where the model holds a learned table of exactly that many
    positions: a ``(1, tokens, width)`` parameter (minGPT's ``pos_emb``), or an ``nn.Embedding``
    (or a 2-D parameter) of ``tokens`` rows beside another table, the tokens' (nanoGPT's ``wpe``
    beside ``wte``; a model's only table is its tokens' even where the vocabulary has as many
    rows). Else soft: rotary positions run past it."""
    found = _kept_int(inst, _SEQUENCE_KEYS)
    if found is None:
        return None
    tokens, key = found
    rows: list[Any] = []  # each table's row count
    for _path, _holder, _name, value in module_attributes(inst):
        if type(value) is Inst and value.layer_args is not None and value.layer_args[0] == "Embedding":
            rows.append(value.layer_args[1].get("num_embeddings"))
        elif type(value) is Param and value.kind == "other" and type(value.shape) is tuple:
            shape = value.shape
            if len(shape) == 3 and shape[0] == 1 and shape[1] == tokens:
                return PositionLimit(tokens, key, hard=True)
            if len(shape) == 2:
                rows.append(shape[0])
    return PositionLimit(tokens, key, hard=tokens in rows and len(rows) > 1)


def _kept_int(inst: Inst, keys: tuple[str, ...]) -> tuple[int, str] | None:
    """(the positive int, where) a module keeps under the first of ``keys`` it has: on itself
    (``block_size``), else on the config object it keeps (``config.block_size``,
    _CONFIG_ATTRIBUTES); None where it keeps none."""
    found = _first_positive_int(inst.attrs, "", keys)
    for name in _CONFIG_ATTRIBUTES:
        if found is not None:
            break
        config = inst.attrs.get(name)
        if type(config) is Inst and not config.is_module:
            found = _first_positive_int(config.attrs, f"{name}.", keys)
    return found


def _first_positive_int(attrs: dict[str, Any], prefix: str, keys: tuple[str, ...]) -> tuple[int, str] | None:
    for key in keys:
        n = attrs.get(key)
        if type(n) is int and n > 0:
            return n, prefix + key
    return None


def _memory_plan(ctx: Any, inst: Inst, root: ParamNode, tree_notes: list[str]) -> dict[str, object]:
    """How the script runs the model, as a fine-tuning YAML's plan says it (a flag or the budget's
    setting wins): LoRA with peft's adapters on a frozen base (QLoRA on a 4-bit one), the weights'
    dtype of a bitsandbytes base, a trainer's step (batch, sequence length; a model it trains
    without adapters is fully fine-tuned) and gradient checkpointing; each said in a tree note."""
    adapters = _adapter_plan(root)
    trained = _trainer_plan(ctx, inst)
    walk_all = bool(adapters) or trained is not None
    quantized, checkpointing = _loaded_as(inst, walk_all) if walk_all or ctx.quantized_loads else (None, False)
    plan: dict[str, object] = dict(adapters)
    if adapters:
        mode = "QLoRA" if quantized and quantized != "int8" else "LoRA"
        tree_notes.append(f"peft's LoRA adapters (rank {adapters['lora_rank']}) on a frozen base"
                          + (f" loaded in {quantized}" if quantized else "") +
                          f": its memory is estimated for {mode} fine-tuning (--mode, or a budget's mode, chooses "
                          f"another)")
        if mode == "QLoRA":
            plan["mode"] = "qlora"
    elif quantized:
        tree_notes.append(f"loaded with bitsandbytes in {quantized}: its memory is estimated with {quantized} weights "
                          f"(--dtype chooses another)")
    if trained is not None:
        trainer, step = trained
        full = not plan and root.trainable and not quantized
        if full:
            plan["mode"] = "train"  # a trainer trains it: all of it, where it holds no adapters
        if plan:
            checkpointing = checkpointing or step.get("gradient_checkpointing") is True
            # `Trainer(optimizers=(torch.optim.SGD(...), scheduler))`: that one, not `optim`'s
            own = _optimized_by(ctx, inst) if step.get("given_optimizer") else None
            settings, how = _step_settings(step, full, own)
            if full:
                _trained_in_weights_dtype(inst, settings, how)
            _reference_model(inst, step, settings, how)
            longest = _sequence_bound(inst) if "context" not in step else None
            if longest is not None:
                settings["context"] = longest[0]
                how.insert(0, f"sequences of the config's {longest[1]}, {longest[0]:,} tokens (the script sets no "
                              f"length; --context sets one)")
            plan.update(settings)
            tree_notes.append(_trainer_note(trainer, step, checkpointing, how, longest is not None))
    elif not plan and root.trainable and not quantized and (optimized := _optimized_by(ctx, inst)) is not None:
        kind, name = optimized
        plan["mode"] = "train"
        if kind:
            plan["optimizer"] = kind
        longest = _sequence_bound(inst)
        if longest is not None:
            plan["context"] = longest[0]
        precision = _loop_precision(ctx, inst, plan)
        batch = _step_batch(ctx, inst)
        if batch is not None:
            plan["batch"] = batch
        sharded = _step_sharding(ctx, inst, plan)
        unread = ([] if batch else [("batch", "--batch")]) + ([] if longest else [("sequence length", "--context")]) + \
            ([] if precision else [("precision", "--dtype")])
        # (a framework's optimizer, made of its config, is named by the phrase its shim gives: "DeepSpeed makes ...")
        code_built = _DOTTED.fullmatch(name) is not None
        whose = f"`{name}`'s" if code_built else "its"
        tree_notes.append((f"the script builds `{name}`" if code_built else name) + " over its parameters: its memory "
                          "is estimated for full training with it" +
                          (f", in batches of {batch} (its DataLoader's batch_size)" if batch else "") +
                          (f", at the config's {longest[1]}, {longest[0]:,} tokens" if longest
                           else "") + (f", {precision}" if precision else "") + (f", {sharded}" if sharded else "") +
                          ("" if kind else f" ({whose} states are not modelled: AdamW's are assumed)") +
                          (f" (the loop's {_and(w for w, _ in unread)} {'are' if len(unread) > 1 else 'is'} not "
                           f"read: {_and(f for _, f in unread)} {'set them' if len(unread) > 1 else 'sets it'})"
                           if unread else ""))
    if plan and checkpointing:
        plan["gradient_checkpointing"] = True
        if trained is None:
            tree_notes.append("gradient checkpointing is on (`gradient_checkpointing_enable()`): its memory is "
                              "estimated with it")
    if quantized:
        plan["dtype"] = quantized
    return plan


def _step_settings(step: dict[str, Any], full: bool,
                   own: tuple[str, str] | None = None) -> tuple[dict[str, object], list[str]]:
    """The memory settings a trainer's step gives (shims/trl.py, shims/transformers_trainer.py), and
    what the note says of its precision and optimizer: the batch and sequence length always; for a
    full fine-tune, the weights' dtype (bf16 or fp16 mixed precision; float32 where it sets neither,
    as transformers then trains) and the optimizer its ``optim`` names (AdamW where it is not known:
    TrainingArguments' default); for LoRA's adapters, the optimizer ``optim`` names, in the model's
    own dtype. ``own``: the optimizer the script gave the trainer (_optimized_by), used instead."""
    settings: dict[str, object] = {k: step[k] for k in ("batch", "context", "zero") if k in step}
    how: list[str] = [str(step["sharding"])] if "sharding" in step else []
    raw = step.get("optimizer")
    precision = step.get("precision") if full else None
    if precision in ("bf16", "fp16"):
        settings["dtype"] = PRECISIONS[precision]
        how.append(f"{precision} mixed precision")
    elif precision == "fp32":
        settings["dtype"] = "float32"
        how.append("float32 (neither bf16 nor fp16)")
    if own is not None:
        if own[0]:
            settings["optimizer"] = own[0]
        how.append(f"the script's `{own[1]}`" + ("" if own[0] else " (its states not modelled: AdamW's assumed)"))
    elif not full:
        if raw is not None and (adapters_optimizer := optimizer_name(raw, step.get("optim_args"))) is not None:
            settings["optimizer"] = adapters_optimizer
            how.append(f"optimizer `{raw}`")
    else:
        optimizer = optimizer_name(raw, step.get("optim_args")) if raw is not None else "adamw"  # (the default `optim`)
        if precision == "fp32" and optimizer in (None, "adamw"):
            optimizer = "adamw-fp32"
        if optimizer is not None:
            settings["optimizer"] = optimizer
            how.append(f"optimizer `{raw}`" if raw is not None else "AdamW (the default `optim`)")
        elif raw is not None:
            how.append(f"optimizer `{raw}`, which is not modelled: AdamW's states are assumed")
    return settings, how


def _trainable_dtype(inst: Inst) -> str | None:
    """The one dtype of the module's trainable parameters; None where they have several (or none)."""
    dtypes = {p.declared for _, p in params_of(inst) if p.requires_grad}
    return next(iter(dtypes)) if len(dtypes) == 1 else None


def _trained_in_weights_dtype(inst: Inst, settings: dict[str, object], how: list[str]) -> None:
    """A trainer's model whose trainable parameters are all 16-bit (``from_pretrained(...,
    dtype=torch.bfloat16)``, ``model.half()``) trains in that dtype throughout: bf16 / fp16
    autocast keeps them so, no fp32 master copy is made, and torch's optimizers keep their states
    in each parameter's dtype (the optimizer-states parity test steps them on bf16 parameters).
    The step's settings and what the note says of its precision are changed so."""
    dtype = _trainable_dtype(inst)
    if dtype not in SIXTEEN_BIT:
        return
    settings["dtype"] = dtype
    settings["pure_precision"] = True
    if settings.get("optimizer") == "adamw-fp32":
        settings["optimizer"] = "adamw"  # (AdamW's states are the parameters' dtype here, not fp32)
    how[:] = [h for h in how if not h.endswith("mixed precision") and not h.startswith("float32 (")]
    how.insert(0, f"weights loaded in {dtype} and trained in it (no fp32 master copy; the optimizer's states in "
                  f"{dtype}, as torch keeps them in each parameter's dtype)")


# Words of a script that may set its precision some way the analysis does not read (an
# Accelerator's, which `accelerate launch`'s config may set; a DeepSpeed config's; a `.half()`, a
# dtype option): where none is in the files of the project it reads, a loop of float32 parameters
# without autocast trains in float32.
_PRECISION_WORDS = re.compile(r"autocast|GradScaler|\bamp\b|precision|bfloat16|float16|\bhalf\b|bf16|fp16|"
                              r"dtype|(?-i:Accelerator)|deepspeed", re.IGNORECASE)  # (FSDP's `MixedPrecision`)


_DOTTED = re.compile(r"[\w.]+")  # an optimizer the code names (`torch.optim.AdamW`, a class of its own)


def _and(words: Iterable[str]) -> str:
    """Words joined as prose: "a", "a and b", "a, b and c"."""
    words = list(words)
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _step_batch(ctx: Any, inst: Inst) -> int | None:
    """The batch of each training step of ``inst``: the batch_size of the DataLoaders Lightning's
    ``Trainer.fit`` trains it on, else of those the script's own training loops iterate (a loop
    whose body takes a step; interp._trains), where they all have one and the same; None where
    there are none, or their sizes are not known or differ (a loop over several loaders)."""
    batches = [b for model, b in ctx.step_batches if model is not None and (
        model is inst or any(v is inst for _, _, _, v in module_attributes(model)))]
    if not batches:
        batches = [b for model, b in ctx.step_batches if model is None]
    return batches[0] if batches and batches[0] is not None and len(set(batches)) == 1 else None


def _step_sharding(ctx: Any, inst: Inst, plan: dict[str, object]) -> str:
    """How the training of ``inst`` is sharded (the last of Lightning's Trainer.fit strategy, an FSDP
    wrapper or FSDP2's fully_shard of it, of a module it holds or of one that holds it), set in
    ``plan`` (the ZeRO stage; the devices where the code says how many), and said; "" where none is."""
    held = {id(v) for _, _, _, v in module_attributes(inst)}
    found = next((s for s in reversed(ctx.step_shardings) if s[0] is inst or id(s[0]) in held or any(
        v is inst for _, _, _, v in module_attributes(s[0]))), None)
    if found is None:
        return ""
    _, stage, said, offload, devices = found
    if stage is None:
        return f"{said}, whose sharding is not read (--zero sets its stage)"
    if devices is not None:
        plan["gpus"] = devices
    over = f" over its {devices} device{'s' if devices > 1 else ''}" if devices is not None else \
        " over the data-parallel GPUs (--gpus sets how many)"
    if stage:
        plan["zero"] = stage
    return f"{said}: " + (f"sharded as ZeRO-{stage}{over}" if stage else
                          f"the whole model on each device{over if devices else ''}") + (
        " (its CPU offload not modelled)" if offload else "")


def _loop_precision(ctx: Any, inst: Inst, plan: dict[str, object]) -> str:
    """The precision a training loop of the script's own runs in, set in ``plan``, and said so; ""
    where it is not known. Trainable parameters all 16-bit (`model.to(torch.bfloat16)`) train in that
    dtype throughout (no fp32 master copy, the optimizer's states in it: torch keeps them in each
    parameter's dtype); float32 ones under the code's autocast regions, all of one 16-bit dtype, in
    that mixed precision; float32 ones where the code sets float32 (the shims' autocast to it) or
    none, in float32, where no file of the project the analysis read has a word that may set a
    precision otherwise (_PRECISION_WORDS)."""
    dtype = _trainable_dtype(inst)
    if dtype in SIXTEEN_BIT:
        plan.update(dtype=dtype, pure_precision=True)
        return f"its parameters in {dtype}, trained in it (no fp32 master copy; the optimizer's states in {dtype})"
    if dtype != "float32":
        return ""
    casts = set(ctx.autocasts)
    if len(casts) == 1 and (cast := next(iter(casts))) in SIXTEEN_BIT:
        plan["dtype"] = cast
        return f"in {cast} mixed precision (the code's autocast, or its framework's precision, over float32 parameters)"
    # (an autocast to float32 only: Fabric's or Lightning's "32-true", Accelerate's "no", given)
    given = casts == {"float32"}
    if not given and (casts or not _no_precision_words(ctx)):
        return ""
    plan["dtype"] = "float32"
    if plan.get("optimizer", "adamw") == "adamw":
        plan["optimizer"] = "adamw-fp32"
    return "in float32 throughout (" + ("the precision the code sets" if given else
                                        "the code has no autocast, and nothing else sets a precision") + ")"


def _no_precision_words(ctx: Any) -> bool:
    """Whether no file of the project the analysis read (the analysed file's text, its project files
    on disk; installed packages aside) has one of _PRECISION_WORDS."""
    outside = tuple(os.path.join(d, "") for d in (*ctx.site_packages, SHIM_DIR))
    for scope in ctx.scopes:
        if scope.is_main is False and (scope.path or "").startswith(outside):
            continue  # (an installed package's file, or the analyser's own shims)
        text = scope.text
        if text is None and not scope.path:
            continue  # (the analyser's own scope for what it calls, of no file)
        if text is None:
            try:
                with open(scope.path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except (OSError, TypeError, ValueError):
                return False
        if _PRECISION_WORDS.search(text):
            return False
    return True


def _reference_model(inst: Inst, step: dict[str, Any], settings: dict[str, object], how: list[str]) -> None:
    """The frozen model TRL holds beside the policy for the loss (shims/trl.py): the policy loaded again,
    in the policy's dtype (trl passes ``self.model.dtype``; DPO and KTO where the script gives none, GRPO
    and RLOO with a `beta`; never beside peft's adapters), or the ``ref_model`` or distillation teacher the
    script gives, in its own size and dtype."""
    given, role = next(((step[k], k) for k in ("given_reference", "teacher") if step.get(k) is not None), (None, ""))
    if given is not None:
        name = "ref_model" if role == "given_reference" else "teacher_model"
        size = count_of(given) if type(given) is Inst and given.is_module else None
        dtype = _float_dtype(given) if type(size) is int else None
        if type(size) is not int or dtype not in FLOAT_BYTES:
            known = "size" if type(size) is not int else "dtype"
            how.append(f"the `{name}` the script gives, whose {known} is not known (not counted in memory; "
                       f"--reference-model and --reference-parameters set it)")
            return
        settings["reference_model"] = dtype
        settings["reference_parameters"] = size
        how.append(f"the `{name}` the script gives, {size:,} parameters in {dtype}, held frozen beside it")
        return
    if not step.get("reference"):
        return
    dtype = _float_dtype(inst)
    if dtype not in FLOAT_BYTES:
        how.append("a reference model, whose dtype is not known (not counted in memory; --reference-model sets it)")
        return
    settings["reference_model"] = dtype
    how.append(f"a frozen reference copy of the model in {dtype}, which trl loads beside it")


def _float_dtype(inst: Inst) -> str | None:
    """The one dtype a module's floating-point parameters were declared in; None for none or several."""
    dtypes = {p.declared for _, p in params_of(inst) if p.floating}
    return next(iter(dtypes)) if len(dtypes) == 1 else None


def _sequence_bound(inst: Inst) -> tuple[int, str] | None:
    """(length, key) of the longest sequence the model's config takes (transformers'
    ``max_position_embeddings``, GPT-2's ``n_positions``, nanoGPT's ``block_size``), from its
    outermost ``config`` that says it, where that is under the estimate's default sequence length:
    a script that does not say its length (a tokenizer's max_length, a loop's slices) trains at
    most that (BERT: 512 tokens, where the default would make 8 times the activations)."""
    best: tuple[int, int, str] | None = None
    for path, _holder, name, value in module_attributes(inst):
        if name == "config" and type(value) is Inst:
            found = _first_positive_int(value.attrs, "", _SEQUENCE_KEYS)
            if found is not None and (best is None or path.count(".") < best[0]):
                best = (path.count("."), *found)
    return (best[1], best[2]) if best is not None and best[1] < DEFAULT_CONTEXT else None


def _trainer_note(trainer: str, step: dict[str, Any], checkpointing: bool, how: list[str],
                  bounded: bool = False) -> str:
    parts = []
    if "batch" in step:
        parts.append(f"{step['batch']} ({step['batch'] // 2} chosen and rejected pairs)" if step.get("pairs")
                     else str(step["batch"]))
    if "context" in step:
        parts.append(f"{step['context']:,} tokens")
    said = [f"batches of {' × '.join(parts)} per device"] if parts else []
    if "context" not in step and not bounded:
        said.append("a sequence length the script does not set (--context sets it)")
    said.append(f"gradient checkpointing {'on' if checkpointing else 'off'}")
    said.extend(how)
    library = str(step.get("library", "trl"))
    return (f"trained by `{trainer}` with {', '.join(said)} (its arguments, {library}'{'' if library.endswith('s') else 's'} "
            f"defaults where it sets none): its memory is estimated so")


def _optimized_by(ctx: Any, inst: Inst) -> tuple[str, str] | None:
    """(the memory model's name, the code's) of the last optimizer the code built over trainable
    parameters of ``inst`` (interp.Interpreter.record_optimizer); None where none was."""
    if not ctx.optimizers:
        return None
    trainable = {id(v) for _, _, _, v in module_attributes(inst) if type(v) is Param and v.requires_grad}
    for ids, kind, name in reversed(ctx.optimizers):
        if not trainable.isdisjoint(ids):
            return kind, name
    return None


def _trainer_plan(ctx: Any, inst: Inst) -> tuple[str, dict[str, Any]] | None:
    """(the trainer's class, what its config says of a step) for the last trainer of the script
    (shims/trl.py) that trains ``inst``, or a module that holds it (peft's PeftModel around the
    script's `model`); None where none does."""
    for model, trainer, step in reversed(ctx.training_plans):
        if model is inst or any(v is inst for _, _, _, v in module_attributes(model)):
            return trainer, step
    return None


def _loaded_as(inst: Inst, walk_all: bool) -> tuple[str | None, bool]:
    """How a model (or the model a wrapper holds: peft's PeftModel) is set up to run: the weights'
    dtype where from_pretrained loaded it with bitsandbytes (interp._loaded_quantized; the outermost
    module so marked): "nf4-dq" with double quantization, "nf4" (NF4 or FP4, the same bytes), "int8",
    else None; and, with ``walk_all`` (every module, not the few outer ones a loader marks), whether
    a module of it has gradient checkpointing on (transformers' `gradient_checkpointing_enable()`,
    which peft's prepare_model_for_kbit_training calls)."""
    marked: tuple[int, Inst, str] | None = None  # (depth, the module, "4" / "8")
    checkpointing = False
    for path, holder, name, value in module_attributes(inst):
        depth = path.count(".")
        if value is not True or not (walk_all or depth <= _WRAPPER_DEPTH):
            continue
        if name in ("is_loaded_in_4bit", "is_loaded_in_8bit") and (marked is None or depth < marked[0]):
            marked = (depth, holder, name[len("is_loaded_in_")])
        checkpointing = checkpointing or name == "gradient_checkpointing"
    if marked is None:
        return None, checkpointing
    _, module, bits = marked
    if bits == "8":
        return "int8", checkpointing
    config = module.attrs.get("config")
    quantization = config.attrs.get("quantization_config") if type(config) is Inst else None
    double = quantization.attrs.get("bnb_4bit_use_double_quant") if type(quantization) is Inst else \
        quantization.get("bnb_4bit_use_double_quant") if isinstance(quantization, dict) else None
    return ("nf4-dq" if double is True else "nf4"), checkpointing


# How deep in a model the module from_pretrained made may be: peft's PeftModel → base_model (its
# LoraModel) → model.
_WRAPPER_DEPTH = 2


def _adapter_plan(root: ParamNode) -> dict[str, object]:
    """A model with peft's LoRA adapters (``lora_A``, ``lora_embedding_A``) on a partly frozen base
    is set up for LoRA fine-tuning: its memory is estimated so, with the adapters' rank (their
    first matrix's rows), as a fine-tuning YAML's plan is; a flag or the budget's mode wins."""
    if root.trainable == 0 or root.trainable == root.total:
        return {}
    for _path, node, _times in root.walk():
        if node.name in ("lora_A", "lora_embedding_A"):
            for _at, tensor, _count, _frozen in node.iter_tensors():
                if tensor.shape and tensor.shape[0] > 0:
                    return {"mode": "lora", "lora_rank": tensor.shape[0]}
    return {}


def _own_parameter_walk(inst: Inst) -> tuple[str, str] | None:
    """(class, method) where the model's class or a base of the code overrides nn.Module's
    ``parameters`` or ``named_parameters`` (to hand an optimizer a part of the model)."""
    if type(inst.cls) is not ClassV:
        return None
    for cls in inst.cls.mro():
        for method in ("parameters", "named_parameters"):
            if type(cls.namespace.get(method)) is FuncV:
                return cls.name, method
    return None


class _Irregular(Exception):
    """A size that is not a number, or a submodule the analyser could not build: the strict
    walk stops and the class is explained (or counted) by the slower checks."""


def _why_not_counted(model: str, inst: Inst, name_span: Span,
                     open_arguments: dict[Sym, tuple[str, str | None]] | None = None, ctx: Any = None) -> Problem | None:
    """The first submodule not built, else the size that is unknown or only a formula; None
    when everything is countable after all (a size written as a float, 4.0)."""
    missing = _unknown_modules(inst, ctx)
    if missing:
        return _unresolved(model, missing, name_span)
    for name, p in params_of(inst):
        for d in p.shape:
            if isinstance(d, (int, float)) and d < 0:
                return _unresolved(model, f"`{name}` has a size of {d:,}; torch would not build it", name_span)
            if isinstance(d, (int, float)) and d > MAX_DIMENSION:
                return _unresolved(model, f"`{name}` has a size of {d:,}, larger than any real model dimension "
                                        f"(limit {MAX_DIMENSION:,})", name_span)
    total = count_of(inst)
    if isinstance(total, Unknown):
        return _unresolved(model, total.why, name_span)
    if isinstance(total, Sym):
        reasons = "; ".join(total.reasons())
        held = _held_argument(inst, open_arguments) if open_arguments else ""
        # A module passed in (`PreNorm(dim, fn)`) is not in the formula: its parameters count too.
        return _unresolved(model, f"{reasons}; parameters = {total.render()}" + (f", and {held}" if held else ""),
                           name_span)
    for name, p in params_of(inst):  # a known total, but a size that is not: a tensor with a 0 beside it
        if not all(isinstance(d, (int, float)) for d in p.shape):
            unknown = next(d for d in p.shape if not isinstance(d, (int, float)))
            shape = ", ".join(render(d) for d in p.shape)
            return _unresolved(model, f"`{name}` has the shape ({shape}): {why_of(unknown) or 'a size is unresolved'}",
                               name_span)
    return None


def environment_note(reads: list[tuple[str, str, str, Span | None]]) -> str:
    """What the analysis assumed of the machine: the environment variables the code read unset, the
    packages its optional imports name not installed (each once, in order)."""
    notes = []
    for kind in ("variable", "package", "version", "accelerator", "distributed", "command line", "arguments", "file",
                 "torch"):
        first: dict[str, str] = {}
        for read_kind, name, where, _ in reads:
            if read_kind == kind:
                first.setdefault(name, where)
        if not first:
            continue
        # (an empty command line given: its one "name" is "")
        names = ", ".join((f"`{name}`" if name else "no arguments") + (f" ({where})" if where else "")
                          for name, where in first.items())
        plural = len(first) > 1
        if kind == "variable":
            notes.append(f"counted with the environment variable{'s' if plural else ''} {names} unset")
        elif kind == "package":
            notes.append(f"counted as on a machine without the optional package{'s' if plural else ''} {names}")
        elif kind == "version":
            notes.append(f"counted with the installed version{'s' if plural else ''} in the environment the analysis "
                         f"reads: {names}")
        elif kind == "accelerator":
            notes.append(f"counted as on a machine without a GPU, as the code asks: {names}")
        elif kind == "distributed":
            notes.append(f"counted as built in one process, without torch.distributed's process group: {names}")
        elif kind == "command line":
            notes.append(f"counted with the arguments' defaults, as for a command line that gives none (--script-args "
                         f"gives one): {names}")
        elif kind == "arguments":
            notes.append(f"counted with the command line given (--script-args, or the project's `script-args`), "
                         f"{names}")
        elif kind == "file":
            notes.append(f"counted with the script's folder as it is now, where the script runs: {names}")
        else:
            notes.append(f"counted with torch {TORCH_VERSION}, the torch whose layers the analyser follows: {names}")
    return "; ".join(notes)


def _internal_error(exc: Exception, what: str, span: Span | None) -> Problem:
    return Problem("error", "LC001", f"lsp-count could not analyse {what}: {type(exc).__name__}: {exc} (a bug in "
                                     f"lsp-count; please report it with the file)", span)


_GUARDING_STATEMENTS = (ast.If, ast.Try, ast.With, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _guarded_classes(body: list[ast.stmt]) -> list[ast.ClassDef]:
    """The class statements under the module's own ``if``/``try``/``with`` blocks (not in functions
    or classes)."""
    found: list[ast.ClassDef] = []
    stack = [s for s in body if isinstance(s, _GUARDING_STATEMENTS)]
    while stack:
        for block in child_blocks(stack.pop()):
            for inner in block:
                if isinstance(inner, ast.ClassDef):
                    found.append(inner)
                elif isinstance(inner, _GUARDING_STATEMENTS):
                    stack.append(inner)
    found.sort(key=lambda node: node.lineno)
    return found


def _unreached_classes(guarded: list[ast.ClassDef], scope: ModuleScope,
                       positions: "_Positions") -> list[tuple[str, Problem]]:
    """The guarded classes whose block the analyser could not follow (``if torch.__version__ >=
    ...``): whether Python defines them is not known. Said, never silently left out."""
    made = {id(c.node) for c in scope.classes}
    out: list[tuple[str, Problem]] = []
    for node in guarded:
        value = scope.env.vars.get(node.name)
        if id(node) not in made and isinstance(value, Unknown) and _defines_module(node):
            why = unfollowed_reason(node.name, value.why)
            out.append((node.name, _unresolved(node.name, f"whether Python defines it is not known: it is under "
                                                          f"a block the analyser cannot follow: {why}",
                                               positions.class_name(node))))
    return out


def _may_be_module(cls: ClassV, body: list[ast.stmt] = ()) -> bool:  # type: ignore[assignment]
    """A class with a base the analyser could not evaluate (``class Sub(A if torch.__version__ >= "2"
    else nn.Module)``) or from a package it does not read (``class Net(pl.LightningModule)``) whose
    body builds layers: it may well be a module. So may one whose unresolved base is named like a
    module class the file (``body``) defines under a condition (diffusers' `class LayerNorm(nn.Module)`
    where torch is older, and `class Sub(LayerNorm)` with no layer of its own)."""
    unresolved = [node.id for b, node in zip(cls.bases, cls.node.bases) if type(b) is Unknown and isinstance(node, ast.Name)]
    foreign = foreign_base(cls)
    if not unresolved and not any(type(b) is Unknown for b in cls.bases) and foreign is None:
        return False
    if foreign is not None and foreign.name.startswith("torch."):
        return True  # torch's own module classes the tables lack (`_ConvNd`, `_BatchNorm`): modules
    return _defines_module(cls.node) or bool(unresolved and _module_class_names(body, frozenset(unresolved)))


def _module_class_names(body: list[ast.stmt], wanted: frozenset[str]) -> frozenset[str]:
    """Those of the ``wanted`` names that name a class statement of the file reading like a module's,
    at any depth of its module-level `if` / `try` blocks."""
    names = set()
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.ClassDef):
            if stmt.name in wanted and _defines_module(stmt):
                names.add(stmt.name)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for block in child_blocks(stmt):
                stack.extend(block)
    return frozenset(names)


def _foreign_object(v: Inst, ctx: Any = None) -> str:
    """Why a module's attribute that the analyser built as a plain object may be a submodule: its
    class extends one from a package the analyser does not read (``class Fused(SwiGLU)`` of
    xformers), and neither name says config. "" where it is a plain object for all it knows.
    ``ctx``: the analysis, whose installed packages the message may name (_outside)."""
    cls = v.cls
    if type(cls) is not ClassV or v.is_module or CONFIG_CLASS_NAME.search(cls.name):
        return ""
    base = foreign_base(cls)
    if base is None or CONFIG_CLASS_NAME.search(base.name.rpartition(".")[2]):
        return ""
    return (f"a `{cls.name}`, whose base `{base.name}` {_outside(base, ctx)}: whether it is a module, and whose "
            f"parameters count, is not known")


def _outside(base: ExtV, ctx: Any = None) -> str:
    """Where a base the analyser does not read comes from, as a clause; with the analysis' ``ctx``,
    what would have it read (its package is installed: name it in read-packages)."""
    if base.name.startswith("torch."):
        return "is a torch class the analyser has no table for"
    note = unread_package_note(base.name.partition(".")[0], ctx.read_packages, ctx.site_packages) if ctx else ""
    return "is outside the file and torch (" + (note or "the analyser reads the project's files, and the installed "
                                                        "packages `read-packages` names where it finds them") + ")"


def _defines_module(node: ast.ClassDef) -> bool:
    """Whether a class statement reads like a module's: a ``forward``, or ``nn.`` / ``torch.`` in its body."""
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "forward":
            return True
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("nn", "torch")
               for stmt in node.body for n in ast.walk(stmt)) or any(
        isinstance(b, ast.Attribute) and isinstance(b.value, ast.Name) and b.value.id == "nn" for b in node.bases)


def _unknown_base(cls: ClassV, ctx: Any = None) -> str:
    unknown = next((b for b in cls.bases if type(b) is Unknown), None)
    if unknown is None:
        base = foreign_base(cls)
        if base.name.startswith("torch."):  # type: ignore[union-attr]
            return f"it extends `{base.name}`, a torch module class the analyser has no table for"  # type: ignore[union-attr]
        return f"whether it is a module is not known: it extends `{base.name}`, which {_outside(base, ctx)}"  # type: ignore[union-attr]
    return f"whether it is a module is not known: its base cannot be followed: {unknown.why}"


def _unresolved(name: str, reason: str, span: Span) -> Problem:
    return Problem("warning", "LC101", f"`{name}` cannot be counted exactly: {reason}", span)


def _unknown_modules(inst: Inst, ctx: Any = None) -> str:
    """The first submodule slot the analyser could not build (a call into code it does not follow),
    or module whose parts a method it does not follow may have changed."""
    if inst.unfollowed:
        return inst.unfollowed
    for path, _, _, v in module_attributes(inst):
        if isinstance(v, Unknown) and v.maybe_module:
            return f"`{path}`: {v.why}"
        if type(v) is Inst and v.unfollowed:
            return f"`{path}`: {v.unfollowed}"
        if type(v) is Inst and not v.is_module:
            foreign = _foreign_object(v, ctx)
            if foreign:
                return f"`{path}` is {foreign}"
    return ""


def _held_argument(inst: Inst, open_arguments: dict[Sym, tuple[str, str | None]]) -> str:
    """The first module attribute that is a constructor argument kept as it was passed
    (``self.box_head = box_head``) and that is a module, for all the analyser knows: annotated as
    one, or used as one by the class that holds it (called, ``self.box_head(x)``, or looped over).
    With no default, what it holds is unknown, and its parameters count. An argument kept and
    never used so (``self.layer_idx = layer_idx``) is a number or a setting: not a reason."""
    for path, owner, name, v in module_attributes(inst):
        if type(v) is not Sym or v not in open_arguments:
            continue
        arg, module_class = open_arguments[v]
        if module_class is not None:
            return (f"`{path}` is the constructor argument `{arg}: {module_class}`, which has no default: the "
                    f"parameters of the module passed there count")
        used = _module_uses(owner.cls).get(name) if isinstance(owner.cls, ClassV) else None
        if used is not None:
            return (f"`{path}` is the constructor argument `{arg}`, which has no default, and `{owner.type_name}` "
                    f"uses it as a module ({used}): the parameters of the module passed there count")
    return ""


def _is_module_class(v: Any) -> bool:
    """A class whose instances are modules: one of the code's, or torch.nn's."""
    if isinstance(v, ClassV):
        return v.is_module
    return isinstance(v, ExtV) and v.name.startswith("torch.nn.") and v.name.split(".")[-1][:1].isupper()


def _module_uses(cls: ClassV) -> dict[str, str]:
    """The attributes that the methods of the class and its bases use as modules: ``self.x(...)``,
    ``self.x[i](...)``, ``for m in self.x`` (also through enumerate, zip, reversed, iter, list),
    ``self.x.requires_grad_(False)`` (nn.Module's methods), each with where it is first used
    ("line 12 of model.py"). Found once per class statement."""
    uses: dict[str, str] = {}
    for c in reversed(cls.mro()):  # a subclass's own use is the one named
        found = getattr(c.node, "lsp_count_module_uses", None)
        if found is None:
            found = c.node.lsp_count_module_uses = _module_uses_in(c.node, os.path.basename(c.path))  # type: ignore[attr-defined]
        uses.update(found)
    return uses


_ITERATED_THROUGH = frozenset({"enumerate", "zip", "reversed", "iter", "list", "tuple"})
# nn.Module's methods: `self.teacher.requires_grad_(False)` uses `teacher` as a module.
_MODULE_METHODS = frozenset({
    "requires_grad_", "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules",
    "children", "named_children", "eval", "train", "apply", "zero_grad", "state_dict", "load_state_dict",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook", "get_submodule",
    "get_parameter"})


def _module_uses_in(node: ast.ClassDef, file: str) -> dict[str, str]:
    uses: dict[str, str] = {}
    for fn in node.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.args.args:
            continue
        me = fn.args.args[0].arg
        try:
            body = body_of(fn)  # a project file's method body is parsed when first needed
        except (SyntaxError, ValueError, RecursionError):
            continue

        # A local that holds one of the module's attributes (`f = self.fn`, then `f(x)`) uses it as
        # the attribute would be used.
        aliases = {n.targets[0].id: n.value.attr for stmt in body for n in ast.walk(stmt)
                   if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                   and isinstance(n.value, ast.Attribute) and isinstance(n.value.value, ast.Name)
                   and n.value.value.id == me}

        def own(e: Any) -> str | None:
            if isinstance(e, ast.Name):
                return aliases.get(e.id)
            return e.attr if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == me else None

        def iterated(e: Any) -> list[str | None]:
            """The attributes whose items iterating ``e`` gives: ``self.x``, or through enumerate, zip, ...
            (``list(zip(self.layers, args))``)."""
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _ITERATED_THROUGH:
                return [name for a in e.args for name in iterated(a)]
            return [own(e)]

        # A local that holds such an iteration (linformer's `pairs = list(zip(self.layers, args))`,
        # then `for f, g in pairs`) iterates the attributes as the loop over it would.
        iterations = {n.targets[0].id: iterated(n.value) for stmt in body for n in ast.walk(stmt)
                      if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                      and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                      and n.value.func.id in _ITERATED_THROUGH}

        for stmt in body:
            for n in ast.walk(stmt):
                names: list[str | None] = []
                if isinstance(n, ast.Call):
                    target = n.func.value if isinstance(n.func, ast.Subscript) else n.func
                    names.append(own(target))
                    if isinstance(target, ast.Attribute) and target.attr in _MODULE_METHODS:
                        names.append(own(target.value))
                elif isinstance(n, (ast.For, ast.comprehension)):
                    it = n.iter
                    names.extend(iterations[it.id] if isinstance(it, ast.Name) and it.id in iterations else iterated(it))
                for name in names:
                    if name is not None and name not in uses:
                        uses[name] = f"line {getattr(n, 'lineno', fn.lineno)} of {file}"
    return uses


def _plain_lists(inst: Inst) -> list[str]:
    out = []
    for name, v in inst.attrs.items():
        items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else ()
        if any(isinstance(x, Inst) and x.is_module for x in items):
            out.append(f"`{name}` is a plain {type(v).__name__}: torch does not register the modules in it, "
                       f"so they are not counted (nn.ModuleList / nn.ModuleDict would be)")
    return out


_CONTAINERS = ("list", "seq", "plist", "dict", "pdict")


class _Walk:
    """One class's walk into a ParamNode tree.

    ``seen``: each tensor's first place (module path, attribute): a second sight is a tie;
    ``ties``: the notes that say so; ``open``: the modules on the path from the root, so that
    one holding an enclosing module (``self.me = self``) does not enter it again (torch's
    ``named_modules`` visits each module once); ``strict``: raise _Irregular at a size that is
    not an int or a submodule not built (the usual case is then one walk)."""

    __slots__ = ("seen", "ties", "open", "strict", "skips", "counted")

    def __init__(self, counted: dict[int, tuple[Inst, int]], strict: bool = False) -> None:
        self.seen: dict[int, Any] = {}
        self.ties: list[str] = []
        self.open: set[int] = set()
        self.strict = strict
        # Tensors and modules not counted where they are held (ties, enclosing modules): a subtree
        # with none is the module's own count (``count_of``), kept in ``counted`` for the hints.
        self.skips = 0
        self.counted = counted


def _node(name: str, inst: Inst, path: str, walk: _Walk) -> ParamNode:
    """``path`` is the node's dotted path in the model ("" for the model itself)."""
    seen, strict = walk.seen, walk.strict
    if strict and inst.unfollowed:
        raise _Irregular
    skips = walk.skips
    trainable: list[Tensor] = []
    frozen: list[Tensor] = []
    own_trainable = own_frozen = 0
    notes: list[str] = []
    modules: list[tuple[str, Inst]] = []
    for attr, v in inst.attrs.items():
        t = type(v)  # the value classes have no subclasses: exact types
        if t is not Param:
            if t is Inst:
                if not v.is_module:
                    if strict and _foreign_object(v):
                        raise _Irregular
                    continue
                if v is inst or id(v) in walk.open:
                    walk.skips += 1
                    notes.append(f"{attr} is an enclosing module, counted once")
                else:
                    modules.append((attr, v))
            elif strict and t is Unknown and v.maybe_module:
                raise _Irregular
            continue
        shape = v.shape
        n = 1
        exact = type(shape) is tuple
        for d in shape:
            if type(d) is not int or not 0 <= d <= MAX_DIMENSION:
                if strict:
                    raise _Irregular
                d = int(d)  # a size written as a float (4.0)
                exact = False
            n *= d
        vid = id(v)
        if vid in seen:
            first = seen[vid]
            first = first if isinstance(first, str) else f"{first[0]}.{first[1]}" if first[0] else first[1]
            full = f"{path}.{attr}" if path else attr
            walk.skips += 1
            walk.ties.append(f"`{full}` is tied to `{first}`")
            notes.append(f"{attr} tied to {first}")
            continue
        seen[vid] = (path, attr)  # the dotted path, formatted only if a tie names it
        kind = v.kind
        if kind == "other":
            if attr.endswith("bias") and len(shape) == 1:
                kind = "bias"
            elif attr == "weight" and len(shape) == 2 and _transposed_linear(inst):
                kind, shape = "linear", (shape[1], shape[0])  # kept in × out: as a linear's, out × in
        tensor = Tensor(attr, shape if exact else tuple(map(int, shape)), kind, name)
        if v.requires_grad:
            trainable.append(tensor)
            own_trainable += n
        else:
            frozen.append(tensor)
            own_frozen += n
    # A module with no parameters and no submodules (ReLU, Dropout, pooling) would be a node of
    # total 0 with no note, dropped just below: do not build it.
    children_total = children_trainable = 0
    if modules:
        walk.open.add(id(inst))
        try:
            if inst.kind in _CONTAINERS and len(modules) > 1:
                children = _container_children(modules, path, walk)
            else:
                children = [_node(attr, v, f"{path}.{attr}" if path else attr, walk)
                            for attr, v in modules if not _bare(v, strict)]
        finally:
            walk.open.discard(id(inst))
        children = [c for c in children if c.total > 0 or c.note]  # dropout, activations: nothing to show
        if inst.kind in _CONTAINERS:
            children = _group(children)
        elif "experts" in inst.attrs:
            children = _routed(children, inst)
        for c in children:
            children_total += c.total
            children_trainable += c.trainable
    else:
        children = []
    own = own_trainable + own_frozen
    if not trainable and (frozen or children) and children_trainable == 0 and (frozen or children_total):
        node = ParamNode(name, tuple(frozen), tuple(children), frozen=True, note="frozen", source=inst.origin)
        node.given_sizes(own, own + children_total, 0)
    else:
        frozen_nodes = tuple(ParamNode(t.name, (t,), frozen=True, note="frozen").given_sizes(t.numel, t.numel, 0)
                             for t in frozen)
        node = ParamNode(name, tuple(trainable), frozen_nodes + tuple(children), note="; ".join(notes),
                         source=inst.origin)
        node.given_sizes(own_trainable, own + children_total, own_trainable + children_trainable)
    if walk.skips == skips:
        walk.counted[id(inst)] = (inst, node.total)
    return node


# The attributes in which a mixture-of-experts block keeps how many experts a token is routed to
# (Mixtral's and Megablocks' top_k, DeepSeek's num_experts_per_tok, Gemma 4's top_k_experts), on
# the block, its router or their config.
_TOP_K_KEYS = ("top_k", "num_experts_per_tok", "num_experts_per_token", "n_activated_experts", "moe_top_k",
               "top_k_experts")


def _routed(children: list[ParamNode], inst: Inst) -> list[ParamNode]:
    """A mixture-of-experts block's children, its ``experts`` marked as routed: each token runs
    ``top_k`` of them, so the model's active parameters per token are the rest plus ``top_k``
    experts. The experts are a ModuleList of equal experts (one node repeated) or one module whose
    tensors hold them all, stacked on their first dimension (transformers 5's fused experts:
    ``gate_up_proj`` of experts × 2·intermediate × hidden), which becomes one expert's tensors
    repeated. Unchanged where the experts are not all equal (which ones run is then not known),
    a fused module holds a tensor of another first size, or no top-k is kept (_top_k)."""
    k = _top_k(inst)
    if k is None:
        return children
    out = []
    for c in children:
        if c.name == "experts" and c.repeat == 1:
            group = c.children[0] if len(c.children) == 1 and not c.tensors else None
            if group is not None and group.active_repeat is None and 0 < k < group.repeat:
                c = replace(c, children=(_routed_node(group, k, f"routed: {k} of {group.repeat} per token"),))
            elif c.tensors and not c.children:
                c = _fused_experts(c, k) or c
        out.append(c)
    return out


# Routers whose class routes a fixed number of experts and keeps no top-k: Switch Transformers'
# top-1 and NLLB-MoE's top-2 (whose second expert its policy may drop: at most two run). (class
# name, the file that defines it): experts per token.
_FIXED_TOP_K_ROUTERS = {
    ("SwitchTransformersTop1Router", "/transformers/models/switch_transformers/modeling_switch_transformers.py"): 1,
    ("NllbMoeTop2Router", "/transformers/models/nllb_moe/modeling_nllb_moe.py"): 2,
}


def _top_k(inst: Inst) -> int | None:
    """The top-k the block keeps (_kept_int), else the one a module beside its experts keeps: the
    router (transformers 5 keeps ``top_k`` on the router, Gemma 4 on the router's config), or the
    one its router's class fixes (_FIXED_TOP_K_ROUTERS)."""
    found = _kept_int(inst, _TOP_K_KEYS)
    for attr, v in inst.attrs.items():
        if found is not None:
            break
        if attr != "experts" and type(v) is Inst and v.is_module:
            found = _kept_int(v, _TOP_K_KEYS)
            if found is None and (fixed := _library_class_entry(v, _FIXED_TOP_K_ROUTERS)) is not None:
                return fixed
    return found[0] if found is not None else None


def _fused_experts(node: ParamNode, k: int) -> ParamNode | None:
    """A fused experts module's node as one expert's tensors repeated, ``k`` of them active (a
    per-expert scale of shape (experts,) is a scalar per expert); None where its tensors do not
    all stack the same number of experts, more than ``k``."""
    shapes = [t.shape for t in node.tensors]
    experts = shapes[0][0] if shapes[0] else 0
    if not k < experts or any(not s or s[0] != experts for s in shapes):
        return None
    tensors = tuple(Tensor(t.name, t.shape[1:], t.kind, t.module) for t in node.tensors)
    return _routed_node(node, k, f"{experts} experts stacked in each tensor; routed: {k} of {experts} per token",
                        tensors=tensors, repeat=experts)


def _routed_node(node: ParamNode, k: int, note: str, **changes: Any) -> ParamNode:
    """``node`` (with ``changes``) of which a token runs ``k`` repeats, ``note`` added to its own."""
    return replace(node, active_repeat=k, note="; ".join(x for x in (node.note, note) if x), **changes)


# Layers of the libraries read that are linear layers with the weight stored transposed (in × out):
# transformers' Conv1D (GPT-2, GPT, CTRL's projections), which its bitsandbytes and peft integrations
# adapt as linear layers. (class name, the file that defines it): True
_TRANSPOSED_LINEARS = {("Conv1D", "/transformers/pytorch_utils.py"): True}


def _transposed_linear(inst: Inst) -> bool:
    return _library_class_entry(inst, _TRANSPOSED_LINEARS) is not None


def _library_class_entry(inst: Inst, table: dict[tuple[str, str], Any]) -> Any:
    """The entry of ``table`` ((class name, the file that defines it) → value) for the class of
    ``inst``, a library's class read from that file; None where it has none."""
    cls = inst.cls
    if type(cls) is not ClassV or cls.env is None:
        return None
    path = cls.env.module.path.replace(os.sep, "/")
    return next((value for (name, where), value in table.items() if cls.name == name and path.endswith(where)), None)


def _container_children(modules: list[tuple[str, Inst]], path: str, walk: _Walk) -> list[ParamNode]:
    """A ModuleList's entries. Twelve copies of a block give twelve equal nodes but for their
    names: an entry equal to the one before it (same layers, sizes, flags and call site, no
    tensor shared with anything seen) reuses that entry's node under its own name."""
    children: list[ParamNode] = []
    previous: tuple[Any, ParamNode] | None = None
    strict, seen = walk.strict, walk.seen
    for i, (attr, v) in enumerate(modules):
        if _bare(v, strict):
            continue
        child_path = f"{path}.{attr}" if path else attr
        params: list[tuple[int, str, str]] = []
        # Only entries built by the same call as a neighbour can be equal to it.
        key = _reuse_key(v, walk, set(), params, "") if (
            _same_call(v, modules[i - 1][1]) if i else False) or (
            i + 1 < len(modules) and _same_call(v, modules[i + 1][1])) else None
        if key is not None and previous is not None and previous[0] == key:
            for vid, rel, param_attr in params:
                seen[vid] = (f"{child_path}.{rel}" if rel else child_path, param_attr)
            children.append(previous[1].renamed(attr))
            walk.counted[id(v)] = (v, previous[1].total)
            continue
        node = _node(attr, v, child_path, walk)
        children.append(node)
        previous = (key, node) if key is not None else None
    return children


def _same_call(a: Inst, b: Inst) -> bool:
    return a.cls is b.cls and a.origin == b.origin


def _reuse_key(inst: Inst, walk: _Walk, ids: set[int], params: list[tuple[int, str, str]],
               rel: str) -> tuple[Any, ...] | None:
    """All that the module's node depends on besides its name; None when it cannot be reused
    (a tensor or module seen or shared, which makes path-dependent notes, a size that is not
    an int, an unbuilt submodule, own frozen tensors, which carry the module's name)."""
    ids.add(id(inst))
    parts: list[Any] = [inst.kind, inst.origin]
    for attr, v in inst.attrs.items():
        t = type(v)
        if t is Param:
            vid = id(v)
            if vid in walk.seen or vid in ids or (not v.requires_grad and not rel):
                return None
            shape = v.shape
            for d in shape:
                if type(d) is not int:
                    return None
            ids.add(vid)
            params.append((vid, rel, attr))
            parts.append((attr, shape, v.kind, v.requires_grad))
        elif t is Inst:
            if v.is_module:
                if id(v) in ids or id(v) in walk.open:
                    return None
                key = _reuse_key(v, walk, ids, params, f"{rel}.{attr}" if rel else attr)
                if key is None:
                    return None
                parts.append((attr, key))
        elif t is Unknown and v.maybe_module:
            return None
    return tuple(parts)


def _bare(inst: Inst, strict: bool = False) -> bool:
    if strict and inst.unfollowed:
        return False  # empty as far as the analyser knows; a call it did not follow may have filled it
    for v in inst.attrs.values():
        t = type(v)
        if t is Param or (t is Inst and v.is_module):
            return False
        if strict and t is Unknown and v.maybe_module:
            return False  # the strict walk must reach it to stop there
    return True


def _group(children: list[ParamNode]) -> list[ParamNode]:
    """Consecutive identical entries of a ModuleList / Sequential become one node repeated."""
    out: list[ParamNode] = []
    i = 0
    while i < len(children):
        j = i + 1
        first = children[i]
        while j < len(children) and first.same_structure(children[j]):
            j += 1
        if j - i > 1:
            out.append(ParamNode(f"{first.name}-{children[j - 1].name}", first.tensors, first.children, repeat=j - i,
                                 frozen=first.frozen, note=first.note, source=first.source))
        else:
            out.append(first)
        i = j
    return out
