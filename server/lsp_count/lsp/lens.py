"""The code lens on a model's first line (each class of a Python model file): params · memory · fit."""

from __future__ import annotations

from lsprotocol import types

from lsp_count.core.params import exact_count, short_count
from lsp_count.core.source import Position

from lsp_count.lsp.analysis import Analysis
from lsp_count.lsp.positions import to_lsp
from lsp_count.lsp.text import dtype_label, gib
from lsp_count.lsp.view import ModelView


def lens_title(view: ModelView, exact: bool = False) -> str:
    """``exact``: add the exact total (a Python file's classes, where small modules differ in the last digits)."""
    tree = view.model.tree
    parts = [f"{short_count(tree.total)} params"]
    if exact:
        parts[0] += f" ({exact_count(tree.total)})"
    if tree.active is not None:
        parts[0] += f" ({short_count(tree.active)} active)"
    if tree.trainable != tree.total:
        parts.append(f"{short_count(tree.trainable)} trainable")
    memory = view.memory
    if memory is not None:
        # The weights in the precision used: the number people compare with a checkpoint's size.
        weights = memory.weights_bytes.get(memory.dtype)
        if weights is None:
            weights = next((line.bytes for line in memory.lines if line.name == "weights"), memory.total_bytes)
        parts.append(f"{gib(weights)} {dtype_label(memory.dtype)}")
        if view.settings is not None and view.settings.mode != "inference":
            parts.append(f"{gib(memory.total_bytes)} to {view.settings.mode}")
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
                                     command=types.Command(title=lens_title(view, analysis.is_python), command="")))
    return lenses
