"""Problems from the core, the settings and the budget, as LSP diagnostics."""

from __future__ import annotations

from lsprotocol import types

from lsp_count.core.problems import CODES
from lsp_count.core.source import Problem

from lsp_count.lsp.analysis import Analysis
from lsp_count.lsp.positions import to_lsp_range
from lsp_count.lsp.view import Rules

SOURCE = "lsp-count"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


def to_diagnostic(analysis: Analysis, problem: Problem, encoding: str) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_lsp_range(analysis.lines, problem.span, encoding),
        message=problem.message,
        severity=_SEVERITY.get(problem.severity, types.DiagnosticSeverity.Information),
        code=problem.code,
        source=SOURCE,
        data={"code": problem.code, "title": CODES.get(problem.code, "")},
    )


def document_problems(analysis: Analysis, rules: Rules | None, verdicts: tuple[tuple[Problem, ...], ...]) -> list[Problem]:
    report = analysis.report
    if not report.recognized:
        # Not a model file (package.json, tsconfig.json): nothing of ours to say about it.
        return []
    problems = list(report.problems)
    if rules is not None and analysis.models:
        problems.extend(rules.problems)
    for found in verdicts:
        problems.extend(found)
    return problems


def diagnostics(analysis: Analysis, rules: Rules | None, verdicts: tuple[tuple[Problem, ...], ...],
                encoding: str) -> list[types.Diagnostic]:
    return [to_diagnostic(analysis, p, encoding) for p in document_problems(analysis, rules, verdicts)]
