"""The ``lsp-count`` command line: count, check and serve.

Exit codes: 0 ok, 1 over budget, 2 input or usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from lsp_count import __version__
from lsp_count.core.analyze import AnalyzeOptions, analyze_path
from lsp_count.core.params import ParamNode, exact_count, short_count
from lsp_count.core.report import FileReport, ModelReport

EXIT_OK, EXIT_OVER_BUDGET, EXIT_INPUT = 0, 1, 2

DESCRIPTION = """\
Exact parameter counts and GPU memory estimates for model configs (config.json,
fine-tuning YAMLs, Python nn.Modules), offline.

examples:
  lsp-count config.json                       table of parameters per component
  lsp-count config.json --json                the same as JSON
  lsp-count a/config.json b/config.json       several files in one call

subcommands:
  lsp-count serve [--stdio]                   start the language server on stdio
  lsp-count check PATH...                     the pre-commit budget gate
  lsp-count gpus                              list the GPUs lsp-count knows
"""


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, as argparse does, no traceback
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lsp-count", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="config.json, training YAML or Python model file")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--allow-transformers", action="store_true",
                   help="count unsupported model types by building them with transformers on the meta device "
                        "(in a subprocess; needs transformers and torch installed)")
    p.add_argument("--version", action="version", version=f"lsp-count {__version__}")
    return p


def _problem_json(problem, lines) -> dict:
    out = {"severity": problem.severity, "code": problem.code, "message": problem.message, "line": None, "column": None}
    if problem.span is not None:
        out["line"] = problem.span.start.line + 1
        out["column"] = problem.span.start.column + 1
    return out


def components_json(root: ParamNode) -> dict:
    return {c.name: c.total for c in root.children}


def model_json(model: ModelReport) -> dict:
    tree = model.tree
    out: dict = {
        "name": model.name,
        "model_type": model.spec.model_type if model.spec else None,
        "architecture": model.spec.architecture if model.spec else None,
        "method": model.method,
        "params": {
            "total": tree.total,
            "trainable": tree.trainable,
            "active": tree.active,
            "components": components_json(tree.root),
        },
        "notes": list(tree.notes),
    }
    return out


def report_json(report: FileReport) -> dict:
    return {
        "path": report.path,
        "models": [model_json(m) for m in report.models],
        "problems": [_problem_json(p, report.lines) for p in report.problems],
    }


def format_location(path: str, problem) -> str:
    if problem.span is None:
        return path
    return f"{path}:{problem.span.start.line + 1}:{problem.span.start.column + 1}"


def _rows(node: ParamNode, depth: int, max_depth: int, total: int, mult: int = 1) -> list[tuple[str, str, str, str]]:
    rows = []
    for child in node.children:
        count = child.total * mult
        reps = f" ×{child.repeat}" if child.repeat > 1 else ""
        label = "  " * depth + child.name + reps
        share = f"{100 * count / total:5.1f}%" if total else ""
        note = f"  ({child.note})" if child.note else ""
        rows.append((label + note, short_count(count), exact_count(count), share))
        if depth + 1 < max_depth:
            rows.extend(_rows(child, depth + 1, max_depth, total, mult * child.repeat))
    return rows


def format_model_table(model: ModelReport) -> str:
    tree = model.tree
    title = model.name
    if model.spec is not None:
        title += f"  ({model.spec.model_type}, {model.spec.architecture})"
    lines = [title]
    summary = [("total", short_count(tree.total), exact_count(tree.total), "")]
    if tree.active is not None:
        summary.append(("active per token", short_count(tree.active), exact_count(tree.active), ""))
    summary.append(("trainable", short_count(tree.trainable), exact_count(tree.trainable), ""))
    rows = summary + [("", "", "", "")] + _rows(tree.root, 0, 3, tree.total)
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    for r in rows:
        if not any(r):
            lines.append("")
            continue
        lines.append(f"  {r[0]:<{w0}}  {r[1]:>{w1}}  {r[2]:>{w2}}  {r[3]}".rstrip())
    lines.append(f"  method: {model.method}")
    for note in tree.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def run_count(args: argparse.Namespace) -> int:
    options = AnalyzeOptions(allow_transformers=args.allow_transformers)
    reports = [analyze_path(p, options) for p in args.paths]
    status = EXIT_OK
    for r in reports:
        if r.has_errors or not r.models:
            status = EXIT_INPUT
    try:
        if args.json:
            print(json.dumps({"files": [report_json(r) for r in reports]}, indent=2))
            return status
        for i, r in enumerate(reports):
            if i:
                print()
            for problem in r.problems:
                stream = sys.stderr if problem.severity == "error" else sys.stdout
                print(f"{format_location(r.path, problem)}: {problem.severity}: {problem.message} [{problem.code}]", file=stream)
            if r.has_errors:
                continue  # a table from a broken file would show class defaults as if they were the file's
            for m in r.models:
                print(format_model_table(m))
    except BrokenPipeError:
        pass  # `lsp-count ... | head`: the reader left; the exit status still tells the truth
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "serve":
            from lsp_count.lsp.server import main as serve_main

            return serve_main(argv[1:])
        if argv and argv[0] == "check":
            from lsp_count.check import main as check_main

            return check_main(argv[1:])
        if argv and argv[0] == "gpus":
            from lsp_count.core.hardware import all_gpus, format_gpu_table

            print(format_gpu_table(all_gpus()))
            return EXIT_OK
        args = build_parser().parse_args(argv)
        return run_count(args)
    except UsageError as exc:
        print(f"lsp-count: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
