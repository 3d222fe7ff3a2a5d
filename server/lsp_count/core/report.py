"""What analysing a document produces: models found and problems, with positions."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from lsp_count.core.params import ParamNode, ParamTree
from lsp_count.core.source import LineIndex, Problem, Span
from lsp_count.core.spec import ModelSpec


@dataclass(frozen=True)
class PositionLimit:
    """The longest sequence the generating stack's positions cover."""

    tokens: int
    key: str  # the config key the "beyond" note names
    hard: bool  # a learned table of exactly ``tokens`` positions: no longer sequence runs at all


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
    # A model with no spec (a Python class): the longest sequence its config names, read by the
    # analysis (a model with a spec has the spec's: core/memory.py's position_limit).
    positions: PositionLimit | None = None


def relocated(model: ModelReport, span: Span | None) -> ModelReport:
    """The model as seen from another document: every position points at ``span``.

    A base model resolved from the catalog or the HF cache carries positions in *that*
    config; findings in the YAML that names it must point at the name, not at lines the
    YAML does not have.
    """
    spec = relocated_spec(model.spec, span) if model.spec is not None else None
    tree = replace(model.tree, root=_relocated_node(model.tree.root, span))
    return replace(model, tree=tree, spec=spec, span=span)


def relocated_spec(spec: ModelSpec, span: Span | None) -> ModelSpec:
    """The spec with every position at ``span``. Key names stay (messages say "num_hidden_layers ≤ 5
    would fit"); only positions move. (Module functions, not closures of relocated: a recursive
    closure holds itself in a cycle, left for the collector at each call.)"""
    return replace(spec, origins={f: (key, span) for f, (key, _) in spec.origins.items()} if span else {},
                   span=span, problems=tuple(replace(p, span=span) for p in spec.problems),
                   subspecs={k: relocated_spec(v, span) for k, v in spec.subspecs.items()})


def _relocated_node(node: ParamNode, span: Span | None) -> ParamNode:
    return replace(node, source=span if node.source is not None else None,
                   children=tuple(_relocated_node(c, span) for c in node.children))


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
