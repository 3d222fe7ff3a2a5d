"""``lsp-count check``: the budget gate behind the pre-commit hook and CI.

Every model found in the given files is judged against the budget (the nearest
``[tool.lsp-count]`` / ``.lsp-count.toml`` walking up from the working
directory, overridden by flags). Output is one line per finding,
``path:line:col: LC### message``, then a summary line.

Exit status: 0 clean (warnings allowed), 1 a finding of error severity (over
budget, a malformed model file, an inexact count under --strict), 2 the gate
could not run (bad flag, malformed budget file).

Verdicts are per file: pre-commit may split the file list over several
invocations, so nothing here depends on seeing every file at once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Iterator, Sequence

from lsp_count import __version__
from lsp_count.core.analyze import AnalyzeOptions, SharedTrees, analyze_text, format_for
from lsp_count.core.budget import (
    Budget,
    BudgetConfig,
    BudgetError,
    budget_for,
    canonical_key,
    find_budget_file,
    ignored_codes,
    judge,
    load_budget_config,
    parse_bytes,
    parse_count,
    relative_to_config,
)
from lsp_count.core.problems import CODES
from lsp_count.core.readers.text import MAX_DOCUMENT_BYTES, decode_bytes
from lsp_count.core.source import Span

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

# Analysis problems that mean "this model was not counted exactly": a warning
# by default (never a silent pass), an error under --strict.
INEXACT_CODES = frozenset({"LC101", "LC104"})
# How a model was counted, when the count is exact: the family table (and what formats add to it),
# the Python analyser, and a build on the meta device (the file executed, or transformers).
EXACT_METHODS = ("exact", "static analysis (exact)", "executed (meta device)")

# Directories never worth walking when a directory is given (``lsp-count check .`` in CI).
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache",
                        ".pytest_cache", "build", "dist", "site-packages"})

# `# lsp-count: ignore`, `# lsp-count: ignore[LC201, LC202]`, `# lsp-count: ignore-file`.
_IGNORE = re.compile(r"#\s*lsp-count:\s*ignore(-file)?(?:\[([A-Z0-9,\s]+)\])?", re.IGNORECASE)

USAGE_EXAMPLES = """\
examples:
  lsp-count check models/*/config.json          budget from pyproject.toml [tool.lsp-count]
  lsp-count check --gpu RTX-4090 --dtype bf16 --context 4096 config.json
  lsp-count check --max-params 7B .             every model file under the current directory
  lsp-count check --format sarif . > lsp-count.sarif

escape hatches:
  # lsp-count: ignore            on the flagged line (YAML, Python): skip that finding
  # lsp-count: ignore[LC201]     ... only that code
  # lsp-count: ignore-file       anywhere in the file: skip the file
  ignore = ["legacy/**", "models/big/config.json:LC201"]   in the budget file (any format, JSON too)
"""


@dataclass(frozen=True)
class Finding:
    path: str
    code: str
    severity: str  # "error" | "warning"
    message: str
    span: Span | None = None
    model: str | None = None


@dataclass(frozen=True)
class ModelSummary:
    name: str
    params: int
    method: str


@dataclass(frozen=True)
class FileResult:
    # Plain values only: results cross process boundaries (the spec's family table holds lambdas).
    path: str
    budget: Budget | None
    models: tuple[ModelSummary, ...]
    findings: tuple[Finding, ...]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with one line, never a traceback
        self.print_usage(sys.stderr)
        raise _UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lsp-count check", description="Check model files against a parameter / GPU memory budget.",
                epilog=USAGE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help="model files (config.json, YAML, Python) or directories")
    p.add_argument("--config", metavar="FILE", help="budget file (default: nearest pyproject.toml [tool.lsp-count] "
                                                   "or .lsp-count.toml, walking up from the working directory)")
    p.add_argument("--no-config", action="store_true", help="ignore budget files; use the flags only")
    p.add_argument("--max-params", metavar="N", help="parameter limit: 7B, 500M, 7e9")
    p.add_argument("--max-memory", metavar="SIZE", help="memory limit: 24GiB (binary), 24GB (decimal)")
    p.add_argument("--gpu", metavar="GPU", help="GPU the model must fit: RTX-4090, 2xA100-80GB ('lsp-count gpus')")
    p.add_argument("--mode", choices=("inference", "train", "lora", "qlora"))
    p.add_argument("--dtype", metavar="DTYPE", help="bf16, fp16, fp32, fp8, int8, int4, ...")
    p.add_argument("--context", metavar="TOKENS", type=_positive_int, help="sequence length (default: an image encoder's tokens per image, a text encoder's position "
                   "table where shorter, a dual encoder's text table with its images' tokens beside it, a convolutional backbone's image side in pixels, 224, else 4096)")
    p.add_argument("--batch", metavar="N", type=_positive_int, help="batch size (default 1)")
    p.add_argument("--strict", action="store_true", default=None,
                   help="a model that cannot be counted exactly is an error, not a warning")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--jobs", "-j", metavar="N", type=_positive_int,
                   help="worker processes for many files (default: CPUs, at most 8; 1 = serial)")
    p.add_argument("--version", action="version", version=f"lsp-count {__version__}")
    return p


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# --- budget: file, then flags ----------------------------------------------------------


def load_config(args: argparse.Namespace, cwd: str) -> BudgetConfig:
    if args.no_config:
        config = BudgetConfig((), None)
    elif args.config:
        if not os.path.isfile(args.config):
            raise _UsageError(f"--config: no such file: {args.config}")
        config = load_budget_config(args.config)
    else:
        found = find_budget_file(cwd)
        config = load_budget_config(_display_path(found, cwd)) if found else BudgetConfig((), None)
    return apply_flags(config, args)


def _display_path(path: str, cwd: str) -> str:
    # Messages read best with the path the user would type; globs still resolve against its directory.
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def apply_flags(config: BudgetConfig, args: argparse.Namespace) -> BudgetConfig:
    """Flags override every budget in the file (and make one when there is none)."""
    fields: dict[str, object] = {}
    try:
        if args.max_params is not None:
            fields["max_params"] = parse_count(args.max_params)
        if args.max_memory is not None:
            fields["max_memory"] = parse_bytes(args.max_memory)
    except ValueError as exc:
        flag = "--max-params" if "max_params" not in fields and args.max_params is not None else "--max-memory"
        raise _UsageError(f"{flag}: {exc}") from None
    if args.gpu is not None:
        from lsp_count.core.hardware import parse_gpu_spec

        try:
            parse_gpu_spec(args.gpu)
        except ValueError as exc:
            raise _UsageError(f"--gpu: {exc}") from None
        fields["gpu"] = args.gpu
    if args.strict:
        fields["strict"] = True
    settings = {k: v for k, v in (("mode", args.mode), ("dtype", args.dtype), ("context", args.context),
                                  ("batch", args.batch)) if v is not None}
    if not fields and not settings:
        return config
    budgets = config.budgets or (Budget(),)
    out = []
    for b in budgets:
        b = replace(b, **fields, settings={**b.settings, **settings})  # type: ignore[arg-type]
        out.append(b)
    if settings:
        _check_flag_settings(out[0].settings, settings)
    return replace(config, budgets=tuple(out))


def _check_flag_settings(all_settings: dict[str, object], flags: dict[str, object]) -> None:
    try:
        from lsp_count.core.memory import SettingsError, settings_from_mapping
    except ImportError:
        return
    try:
        settings_from_mapping(all_settings)
    except SettingsError as exc:
        flag = canonical_key(str(getattr(exc, "flag", "") or ""))
        name = f"--{flag}" if flag in flags else f"{flag or 'settings'} (from the budget, with the flags given)"
        raise _UsageError(f"{name}: {getattr(exc, 'message', exc)}") from None


# --- files ---------------------------------------------------------------------------------


def iter_files(paths: Sequence[str]) -> Iterator[str]:
    """Files as given; directories walked for files a model could be in (config.json, YAML, Python)."""
    for path in paths:
        if not os.path.isdir(path):
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                if name == "config.json" or name.endswith((".yaml", ".yml", ".py")):
                    yield os.path.join(root, name)


def _directives(text: str, fmt: str | None) -> tuple[bool, dict[int, frozenset[str] | None]]:
    """(skip the whole file, line -> codes ignored there; None = all) from `# lsp-count:` comments."""
    if fmt is None or fmt.endswith("analyze_json") or "lsp-count:" not in text:
        # JSON has no comments; a "#" inside a JSON string is data, not a directive.
        return False, {}
    per_line: dict[int, frozenset[str] | None] = {}
    lines = text.splitlines()
    for n, line in enumerate(lines):
        m = _IGNORE.search(line)
        if not m:
            continue
        if m.group(1):
            return True, {}
        codes = frozenset(c.strip().upper() for c in m.group(2).split(",") if c.strip()) if m.group(2) else None
        targets = [n]
        if line.lstrip().startswith("#"):  # a comment on its own line covers the next line
            targets.append(n + 1)
        for t in targets:
            per_line[t] = codes
    return False, per_line


def _suppressed(finding: Finding, per_line: dict[int, frozenset[str] | None], ignored: frozenset[str]) -> bool:
    if finding.code in ignored:
        return True
    if finding.span is None:
        return False
    line = finding.span.start.line
    if line not in per_line:
        return False
    codes = per_line[line]
    return codes is None or finding.code in codes


def check_file(path: str, config: BudgetConfig, options: AnalyzeOptions = AnalyzeOptions(),
               shared: SharedTrees | None = None) -> FileResult | None:
    """The findings for one file, or None when it is skipped (not a model file, or ignored)."""
    fmt = format_for(path)
    if fmt is None:
        return None  # neither JSON, YAML nor Python: nothing a model could be in
    budget = budget_for(config, path)
    ignored: frozenset[str] = frozenset()
    if budget is not None:
        codes = ignored_codes(budget, relative_to_config(config, path))
        if codes is None:
            return None
        ignored = codes
    try:
        if os.path.getsize(path) > MAX_DOCUMENT_BYTES:
            # Big JSON/YAML files are data, not model configs.
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return FileResult(path, budget, (), (Finding(path, "LC003", "error", exc.strerror or str(exc)),))
    decoded = decode_bytes(data)
    if decoded.text is None:
        return None  # binary or not UTF-8: not a model config, and YAML/JSON in a repo mostly is not one
    skip_file, per_line = _directives(decoded.text, fmt)
    if skip_file:
        return None
    if options.base_dir is None:
        options = replace(options, base_dir=os.path.dirname(os.path.abspath(path)))
    options = config.reading_options(options, path)
    report = analyze_text(decoded.text, path, options, shared.memo_for(path) if shared is not None else None)
    if not report.recognized:
        return None
    strict = budget.strict if budget is not None else False
    findings: list[Finding] = []
    for p in report.problems:
        if p.code in INEXACT_CODES:
            findings.append(Finding(path, "LC203", "error" if strict else "warning",
                                    f"cannot be counted exactly, so the budget was not checked: {p.message}", p.span))
        elif p.severity == "error":
            findings.append(Finding(path, p.code, "error", p.message, p.span))
    for model in report.models:
        if not model.method.startswith(EXACT_METHODS) and "transformers" not in model.method:
            findings.append(Finding(path, "LC203", "error" if strict else "warning",
                                    f"{model.name}: counted by {model.method}, not exactly", model.span, model.name))
        if budget is None or not budget.has_limits:
            continue
        for p in judge(model, budget):
            severity = "error" if p.code == "LC203" and strict else p.severity
            findings.append(Finding(path, p.code, severity, p.message, p.span, model.name))
    kept = tuple(f for f in findings if not _suppressed(f, per_line, ignored))
    models = tuple(ModelSummary(m.name, m.tree.total, m.method) for m in report.models)
    return FileResult(path, budget, models, kept)


# Below this many files a worker pool costs more (start-up, pickling) than it saves.
PARALLEL_MIN_FILES = 64


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def check_files(paths: Sequence[str], config: BudgetConfig, jobs: int | None = None) -> list[FileResult | None]:
    """``check_file`` over ``paths``, in order; over a worker pool when there are many files.

    Files are independent (verdicts are per file), so they parallelise without changing any result.
    """
    jobs = default_jobs() if jobs is None else max(1, jobs)
    if jobs == 1 or len(paths) < PARALLEL_MIN_FILES:
        shared = SharedTrees()
        return [check_file(p, config, shared=shared) for p in paths]
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, len(paths) // (jobs * 4))
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(_check_one, [(p, config) for p in paths], chunksize=chunk))
    except (OSError, ImportError):  # no process support (some sandboxes): the serial path gives the same answer
        return [check_file(p, config) for p in paths]


def _check_one(item: tuple[str, BudgetConfig]) -> FileResult | None:
    return check_file(*item)


# --- output --------------------------------------------------------------------------------


def _location(f: Finding) -> str:
    if f.span is None:
        return f"{f.path}:1:1"
    return f"{f.path}:{f.span.start.line + 1}:{f.span.start.column + 1}"


def format_text(f: Finding) -> str:
    severity = "" if f.severity == "error" else f"{f.severity}: "
    return f"{_location(f)}: {f.code} {severity}{f.message}"


@dataclass(frozen=True)
class Summary:
    files: int
    models: int
    errors: int
    warnings: int
    over_budget: int
    budget_findings: int
    source: str | None
    budgeted: bool

    def line(self) -> str:
        files = f"{self.files} model file{'s' if self.files != 1 else ''}"
        models = f"{self.models} model{'s' if self.models != 1 else ''}"
        if not self.budgeted:
            where = "no budget set (add [tool.lsp-count] to pyproject.toml or pass --max-params / --gpu)"
        else:
            where = f"budget from {self.source}" if self.source else "budget from flags"
        parts = []
        if self.over_budget:
            parts.append(f"{self.over_budget} over budget")
        other = self.errors - self.budget_findings
        if other:
            parts.append(f"{other} error{'s' if other != 1 else ''}")
        if self.warnings:
            parts.append(f"{self.warnings} warning{'s' if self.warnings != 1 else ''}")
        verdict = ", ".join(parts) if parts else "all within budget" if self.budgeted else "no problems"
        return f"lsp-count: {files}, {models} checked: {verdict} ({where})"


def summarize(results: Sequence[FileResult], config: BudgetConfig) -> Summary:
    findings = [f for r in results for f in r.findings]
    return Summary(
        files=len(results),
        models=sum(len(r.models) for r in results),
        errors=sum(1 for f in findings if f.severity == "error"),
        warnings=sum(1 for f in findings if f.severity != "error"),
        # Models over budget, not findings: one model can break both the memory and the params rule.
        over_budget=len({(f.path, f.model) for f in findings if f.code in ("LC201", "LC202")}),
        budget_findings=sum(1 for f in findings if f.code in ("LC201", "LC202")),
        source=config.source,
        budgeted=any(b.has_limits for b in config.budgets),
    )


def _finding_json(f: Finding) -> dict:
    out: dict = {"path": f.path, "code": f.code, "severity": f.severity, "message": f.message,
                 "line": None, "column": None, "end_line": None, "end_column": None, "model": f.model}
    if f.span is not None:
        out.update(line=f.span.start.line + 1, column=f.span.start.column + 1,
                   end_line=f.span.end.line + 1, end_column=f.span.end.column + 1)
    return out


def results_json(results: Sequence[FileResult], config: BudgetConfig, status: int) -> dict:
    s = summarize(results, config)
    return {
        "version": __version__,
        "budget_file": config.source,
        "files": [{
            "path": r.path,
            "budget": (r.budget.name or "default") if r.budget is not None else None,
            "models": [{"name": m.name, "params": m.params, "method": m.method} for m in r.models],
            "findings": [_finding_json(f) for f in r.findings],
        } for r in results],
        "summary": {"files": s.files, "models": s.models, "errors": s.errors, "warnings": s.warnings,
                    "over_budget": s.over_budget},
        "exit_code": status,
    }


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return rel.replace(os.sep, "/").replace(" ", "%20")


def results_sarif(results: Sequence[FileResult]) -> dict:
    """SARIF 2.1.0, as GitHub code scanning reads it. Rule ids are the stable LC codes."""
    codes = sorted(CODES)
    rules = [{
        "id": code,
        "name": "".join(w.capitalize() for w in re.findall(r"[a-z0-9]+", CODES[code].lower())),
        "shortDescription": {"text": CODES[code]},
        "helpUri": "https://github.com/lsp-count/lsp-count#pre-commit-hook",
    } for code in codes]
    out_results = []
    for r in results:
        for f in r.findings:
            region: dict = {"startLine": 1, "startColumn": 1}
            if f.span is not None:
                region = {"startLine": f.span.start.line + 1, "startColumn": f.span.start.column + 1,
                          "endLine": f.span.end.line + 1, "endColumn": f.span.end.column + 1}
            out_results.append({
                "ruleId": f.code,
                "ruleIndex": codes.index(f.code) if f.code in CODES else -1,
                "level": "error" if f.severity == "error" else "warning",
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.path)}, "region": region}}],
            })
    for res in out_results:
        if res["ruleIndex"] < 0:
            del res["ruleIndex"]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "lsp-count", "version": __version__,
                                "informationUri": "https://github.com/lsp-count/lsp-count", "rules": rules}},
            "results": out_results,
        }],
    }


# --- entry point -----------------------------------------------------------------------------


def run(args: argparse.Namespace, cwd: str) -> int:
    config = load_config(args, cwd)
    results = [r for r in check_files(list(iter_files(args.paths)), config, args.jobs) if r is not None]
    status = EXIT_FINDINGS if any(f.severity == "error" for r in results for f in r.findings) else EXIT_OK
    if args.format == "json":
        print(json.dumps(results_json(results, config, status), indent=2, ensure_ascii=False))
    elif args.format == "sarif":
        print(json.dumps(results_sarif(results), indent=2, ensure_ascii=False))
    else:
        for r in results:
            for f in sorted(r.findings, key=lambda f: (f.span.start if f.span else Span.at(0, 0).start, f.code)):
                print(format_text(f))
        print(summarize(results, config).line())
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if not args.paths:
            # pre-commit runs the hook with no files when none match; that is a pass.
            return EXIT_OK
        return run(args, os.getcwd())
    except _UsageError as exc:
        print(f"lsp-count check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BudgetError as exc:
        for p in exc.problems:
            print(f"lsp-count check: error: {p.message}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
