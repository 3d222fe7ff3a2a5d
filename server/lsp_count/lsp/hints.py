"""Inlay hints after the values of the keys that shape the model, and after a Python model's layers."""

from __future__ import annotations

import re

from lsprotocol import types

from lsp_count.core.params import short_count
from lsp_count.core.source import Position

from lsp_count.lsp.analysis import PLAN_PREFIX, Analysis, document_keys, nodes_for, value_span
from lsp_count.lsp.positions import to_lsp

# Component names as a hint reads best ("525M embed + 525M head").
_SHORT_NAMES = {"embeddings": "embed", "lm_head": "head"}
_MODEL_TYPE = re.compile(r"""["']?model_type["']?\s*:\s*("[^"\n]*"|'[^'\n]*'|[^\s,#}]+)""")


def hint_label(parts: list[tuple[str, int]]) -> str | None:
    shown = []
    for name, params in parts:
        short = _SHORT_NAMES.get(name, name)
        if params == 0 and name == "lm_head":
            shown.append("head tied")
        elif params:
            shown.append(f"{short_count(params)} {short}" if short in ("embed", "head") else f"{short_count(params)} in {short}")
    return "▸ " + " + ".join(shown) if shown else None


def inlay_hints(analysis: Analysis, first_line: int, last_line: int, encoding: str) -> list[types.InlayHint]:
    hints: list[types.InlayHint] = []

    def add(pos: Position, label: str) -> None:
        if first_line <= pos.line <= last_line:
            hints.append(types.InlayHint(position=to_lsp(analysis.lines, pos, encoding), label=label,
                                         padding_left=True))

    # A Python model file: the core labels each layer constructor call ("▸ 45.1M").
    for span, label in analysis.report.hints:
        add(span.end, label)
    for model in analysis.models:
        for ref in document_keys(analysis, model):
            if ref.field.startswith(PLAN_PREFIX):
                parts = nodes_for(model, ref.field)
                label = f"▸ {short_count(parts[0][1])} trainable" if parts and parts[0][1] else None
            else:
                label = hint_label(nodes_for(model, ref.field, ref.span if ref.spec is not None else None))
            if label is None:
                continue
            found = value_span(analysis, ref)
            add(analysis.lines.position(found[1]) if found else ref.span.end, label)
        if model.span is not None:
            # The total sits after model_type: the line everyone reads first.
            start = analysis.lines.offset(model.span.start)
            end = analysis.lines.offset(model.span.end)
            match = _MODEL_TYPE.search(analysis.text, start, end)
            if match is not None:
                label = f"▸ {short_count(model.tree.total)} params"
                if model.tree.active is not None:
                    label += f" ({short_count(model.tree.active)} active)"
                add(analysis.lines.position(match.end(1)), label)
    hints.sort(key=lambda h: (h.position.line, h.position.character))
    return hints
