"""The code lens on a model's first line: params · memory · fit."""

from __future__ import annotations

from lsprotocol import types

from lsp_count.core.params import short_count
from lsp_count.core.source import Position

from lsp_count.lsp.analysis import Analysis
from lsp_count.lsp.positions import to_lsp
from lsp_count.lsp.text import dtype_label, gib
from lsp_count.lsp.view import ModelView


def lens_title(view: ModelView) -> str:
    tree = view.model.tree
    parts = [f"{short_count(tree.total)} params"]
    if tree.active is not None:
        parts[0] += f" ({short_count(tree.active)} active)"
    if view.memory is not None:
        parts.append(f"{gib(view.memory.total_bytes)} {dtype_label(view.memory.dtype)}")
        if view.settings is not None and view.settings.mode != "inference":
            parts[-1] += f" {view.settings.mode}"
    fit, selection = view.fit, view.selection
    if fit is not None and selection is not None:
        if fit.fits:
            parts.append(f"fits {selection.label} ✓")
        elif fit.min_gpus:
            parts.append(f"{selection.label} ✗ needs {fit.min_gpus}×")
        else:
            parts.append(f"{selection.label} ✗ does not fit")
    return " · ".join(parts)


def code_lenses(analysis: Analysis, views: tuple[ModelView, ...], encoding: str) -> list[types.CodeLens]:
    lenses = []
    for view in views:
        start = view.model.span.start if view.model.span is not None else Position(0, 0)
        pos = to_lsp(analysis.lines, Position(start.line, 0), encoding)
        # An empty command id: clients show the title as text; there is nothing to run.
        lenses.append(types.CodeLens(range=types.Range(start=pos, end=pos),
                                     command=types.Command(title=lens_title(view), command="")))
    return lenses
