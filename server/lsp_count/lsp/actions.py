"""Quick fixes for a budget violation: the largest layer count, context or a precision that fits;
for a size written as a float, the whole number; for a misspelt config key, the key meant; for
key/value heads that do not divide the query heads, the most that do.

Each budget fix is checked, not guessed: the edited document is recounted and judged
against the same budget before the fix is offered.
"""

from __future__ import annotations

import re

from lsprotocol import types

from lsp_count.core.analyze import analyze_text
from lsp_count.core.budget import judge
from lsp_count.core.source import Span

from lsp_count.lsp.analysis import Analysis, KeyRef, document_keys, value_after, value_span
from lsp_count.lsp.positions import to_lsp, to_lsp_range
from lsp_count.lsp.view import ModelView, Rules

BUDGET_CODES = ("LC201", "LC202")
# Keys a training file uses for its sequence length (the context the memory estimate uses).
_CONTEXT_KEYS = ("sequence_len", "max_seq_length", "max_seq_len", "seq_length", "seq_len", "cutoff_len",
                 "max_length", "encoder_seq_length")
_TORCH_DTYPES = ("float32", "bfloat16", "float16")
_DTYPE_KEY = re.compile(r"""(["']?(?:torch_dtype|dtype)["']?\s*:\s*)(["']?)(float32|bfloat16|float16)\2""")


def _range_key(r: types.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def _problem_fixes(analysis: Analysis, diagnostics: list[types.Diagnostic], encoding: str) -> list[types.CodeAction]:
    """The fixes a problem carries in its ``data`` (spec.py's Problem.data), for the problem this
    version's analysis has at the diagnostic's range:
    - LC102 ``replacement``: "Write 4096" for a ``4096.0`` the config class refuses;
    - LC107 ``key``: rename a misspelt key to the one it is close to (core/config_keys.py), in the
      file's own quoting;
    - LC103 ``divisor``: key/value heads that do not divide the query heads, the most that do written as the
      value after the key the diagnostic marks."""
    problems = {(_range_key(to_lsp_range(analysis.lines, p.span, encoding)), p.code): p
                for p in analysis.report.problems if p.span is not None and p.data}
    out = []
    for diagnostic in diagnostics:
        problem = problems.get((_range_key(diagnostic.range), diagnostic.code))
        data = dict(problem.data) if problem is not None else {}
        where = diagnostic.range
        if diagnostic.code == "LC103" and "divisor" in data:
            value = _value_after(analysis, problem.span, encoding)
            if value is None:
                continue
            where = value
            new, title = data["divisor"], f"Write {data['divisor']} (divides the {data['heads']} query heads)"
        elif diagnostic.code == "LC102" and "replacement" in data:
            new, title = data["replacement"], f"Write {data['replacement']} (a whole number: the config class refuses a float)"
        elif diagnostic.code == "LC107" and "key" in data:
            start, end = problem.span.start, problem.span.end
            written = analysis.lines.line_text(start.line)[start.column:end.column] if start.line == end.line else ""
            quote = written[0] if written[:1] in ("\"", "'") else ""
            new, title = f"{quote}{data['key']}{quote}", f"Rename to {data['key']}"
        else:
            continue
        out.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], is_preferred=True,
            edit=types.WorkspaceEdit(changes={analysis.uri: [types.TextEdit(range=where, new_text=new)]})))
    return out


def _value_after(analysis: Analysis, key: Span, encoding: str) -> types.Range | None:
    """The range of the number written after the key at ``key`` (``"num_key_value_heads": 5``); None where the
    value is no plain number."""
    found = value_after(analysis, key)
    if found is None or not found[2].isdigit():
        return None
    return _edit(analysis, found[0], found[1], "", encoding).range


def _passes(analysis: Analysis, index: int, start: int, end: int, new: str, rules: Rules) -> bool:
    text = analysis.text[:start] + new + analysis.text[end:]
    report = analyze_text(text, analysis.path, analysis.options)
    if index >= len(report.models) or rules.budget is None:
        return False
    return not any(p.code in BUDGET_CODES for p in judge(report.models[index], rules.budget))


def _edit(analysis: Analysis, start: int, end: int, new: str, encoding: str) -> types.TextEdit:
    lines = analysis.lines
    return types.TextEdit(range=types.Range(start=to_lsp(lines, lines.position(start), encoding),
                                            end=to_lsp(lines, lines.position(end), encoding)), new_text=new)


def _largest(analysis: Analysis, index: int, ref: KeyRef, rules: Rules) -> tuple[int, int, int] | None:
    """(start, end, value): the largest smaller value of an integer key that passes the budget."""
    found = value_span(analysis, ref)
    if found is None or not found[2].isdigit():
        return None
    start, end, written = found
    current = int(written)
    lo, hi = 0, current - 1  # lo: known to pass (0 = none found yet)
    if hi < 1 or not _passes(analysis, index, start, end, "1", rules):
        return None
    lo = 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _passes(analysis, index, start, end, str(mid), rules):
            lo = mid
        else:
            hi = mid - 1
    return start, end, lo


def _context_refs(analysis: Analysis) -> list[tuple[str, int, int, int]]:
    out = []
    for key in _CONTEXT_KEYS:
        for m in re.finditer(rf"""(?m)^\s*["']?{key}["']?\s*:\s*(\d+)""", analysis.text):
            out.append((key, m.start(1), m.end(1), int(m.group(1))))
    return out


def quick_fixes(analysis: Analysis, rules: Rules, views: tuple[ModelView, ...], diagnostics: list[types.Diagnostic],
                encoding: str) -> list[types.CodeAction]:
    actions = _problem_fixes(analysis, diagnostics, encoding)
    wanted = [d for d in diagnostics if d.code in BUDGET_CODES]
    if not wanted or rules.budget is None:
        return actions
    first_budget_fix = len(actions)

    def offer(title: str, edit: types.TextEdit, preferred: bool = False) -> None:
        actions.append(types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=wanted, is_preferred=preferred,
            edit=types.WorkspaceEdit(changes={analysis.uri: [edit]})))

    for index, view in enumerate(views):
        if not any(p.code in BUDGET_CODES for p in view.problems):
            continue
        fit = view.fit
        # A precision the config itself declares.
        if fit is not None and fit.lowest_dtype in _TORCH_DTYPES:
            m = _DTYPE_KEY.search(analysis.text)
            if m is not None and m.group(3) != fit.lowest_dtype:
                start, end = m.start(3), m.end(3)
                if _passes(analysis, index, start, end, fit.lowest_dtype, rules):
                    offer(f"Use {fit.lowest_dtype} (fits the budget)", _edit(analysis, start, end, fit.lowest_dtype, encoding))
        # The sequence length a training file sets.
        for key, start, end, current in _context_refs(analysis):
            if fit is not None and fit.max_context and fit.max_context < current:
                new = str(fit.max_context)
                if _passes(analysis, index, start, end, new, rules):
                    offer(f"Set {key} to {fit.max_context:,} (largest context that fits)",
                          _edit(analysis, start, end, new, encoding))
        # The layer count: the key that drives most of the model.
        for ref in document_keys(analysis, view.model):
            if ref.field != "num_layers":
                continue
            found = _largest(analysis, index, ref, rules)
            if found is not None:
                start, end, value = found
                offer(f"Set {ref.key} to {value} (largest layer count that fits)",
                      _edit(analysis, start, end, str(value), encoding), preferred=len(actions) == first_budget_fix)
    return actions
