"""What analysing a document produces: models found and problems, with positions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from lsp_count.core.params import ParamTree
from lsp_count.core.source import LineIndex, Problem, Span
from lsp_count.core.spec import ModelSpec


@dataclass(frozen=True)
class ModelReport:
    """One model found in a document, counted exactly."""

    name: str
    tree: ParamTree
    spec: ModelSpec | None = None
    span: Span | None = None
    # How the count was made when not by the family table ("transformers meta-device", "static analysis").
    method: str = "exact (family table)"
    # Training settings read from the document (a fine-tuning YAML): mode, lora rank, seq len, ...
    plan: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class FileReport:
    path: str
    models: tuple[ModelReport, ...]
    problems: tuple[Problem, ...]
    # False when the document is not a model file at all (skipped by the hook).
    recognized: bool = True
    lines: LineIndex | None = None
    # Inlay-hint anchors: (span of a layer constructor call, label such as "▸ 45.1M"); Python model files.
    hints: tuple[tuple[Span, str], ...] = ()
    # Base models named in the document: (span of the hub id string, hub id), e.g. from_pretrained("org/name").
    hub_refs: tuple[tuple[Span, str], ...] = ()
    # The same references resolved offline (bundled catalog, then the local HF cache): (span of the hub id,
    # hub id, parameters of what the call builds or None when unknown, one line saying what was counted or why not).
    hub_counts: tuple[tuple[Span, str, int | None, str], ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(p.severity == "error" for p in self.problems)


def unrecognized(path: str, problems: list[Problem], message: str, span: Span | None,
                 lines: LineIndex | None, severity: str = "error") -> FileReport:
    """A document that is not a model file: its problems plus one LC002 saying why (the gate skips it)."""
    return FileReport(path, (), tuple(problems) + (Problem(severity, "LC002", message, span),),
                      recognized=False, lines=lines)
