"""Hover: a key's meaning, share and what-if recounts; the model summary on its first line (a Python
class's name); a ``from_pretrained`` base model's count; a weights index's on-disk facts."""

from __future__ import annotations

from pathlib import PurePath

from lsp_count.core.params import exact_count, short_count
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem

from lsp_count.lsp.analysis import (PLAN_KEYS, PLAN_PREFIX, Analysis, HubRef, KeyRef, component_paths, nodes_for,
                                    recount, value_span)
from lsp_count.lsp.text import bar, both, dtype_label, gib, signed, table
from lsp_count.lsp.view import ModelView


def totals_line(model: ModelReport) -> str:
    tree = model.tree
    text = f"**Model total:** {both(tree.total)}"
    if tree.active is not None:
        text += f" · active per token {both(tree.active)}"
    if tree.trainable != tree.total:
        text += f" · trainable {both(tree.trainable)}"
    return text


def key_hover(analysis: Analysis, ref: KeyRef) -> str:
    if ref.field.startswith(PLAN_PREFIX):
        return plan_hover(analysis, ref)
    model = ref.model
    spec = ref.spec or model.spec
    assert spec is not None
    field = spec.family.fields.get(ref.field)
    doc = field.doc if field is not None and field.doc else ""
    found = value_span(analysis, ref)
    value = spec.values.get(ref.field)
    head = f"**`{ref.key}`** = `{found[2] if found else value}`" + (f" — {doc}" if doc else "")
    total = model.tree.total
    rows: list[tuple[str, str]] = []
    for name, params in nodes_for(model, ref.field, ref.span if ref.spec is not None else None):
        share = f"{100 * params / total:.1f}%" if total else "—"
        rows.append((f"{name} ({share} of the model)", both(params)))
    if found is not None:
        for label, new in _what_ifs(found[2]):
            new_total, why = recount(analysis, ref, new)
            if new_total is None:
                rows.append((f"{label} → `{new}`", f"not countable: {why}"))
            else:
                rows.append((f"{label} → `{new}`", f"{signed(new_total - total)} → {short_count(new_total)}"))
    parts = [head]
    if rows:
        parts.append(table(("", "parameters"), rows, "lr"))
    parts.append(totals_line(model))
    return "\n\n".join(parts)


def plan_hover(analysis: Analysis, ref: KeyRef) -> str:
    """A training-plan key (a fine-tuning YAML): what it means; for the LoRA rank, the trainable count and what-ifs."""
    model = ref.model
    name = ref.field[len(PLAN_PREFIX):]
    found = value_span(analysis, ref)
    if found is not None:
        shown = found[2]
    else:  # as written (`optimizer: paged_adamw_32bit`), not as the plan normalised it
        rest = analysis.lines.line_text(ref.span.end.line)[ref.span.end.column:]
        shown = rest.split("#", 1)[0].strip().lstrip(":").strip().strip("\"'") or model.plan.get(name)
    parts = [f"**`{ref.key}`** = `{shown}` — {PLAN_KEYS.get(name, name)}"]
    tree = model.tree
    rows: list[tuple[str, str]] = []
    for component, params in nodes_for(model, ref.field):
        share = f"{100 * params / tree.total:.2f}%" if tree.total else "—"
        rows.append((f"{component}: trainable ({share} of the model)", both(params)))
    if rows and found is not None:
        for label, new in _what_ifs(found[2]):
            new_trainable, why = recount(analysis, ref, new, "trainable")
            if new_trainable is None:
                rows.append((f"{label} → `{new}`", f"not countable: {why}"))
            else:
                rows.append((f"{label} → `{new}`",
                             f"{signed(new_trainable - tree.trainable)} → {short_count(new_trainable)} trainable"))
    if rows:
        parts.append(table(("", "parameters"), rows, "lr"))
    parts.append(totals_line(model))
    return "\n\n".join(parts)


def hub_hover(hub: HubRef) -> str:
    """A base model named by hub id (``from_pretrained``), counted from the offline catalog or the HF cache."""
    if hub.total is None:
        return f"**`{hub.model_id}`** — not counted: {hub.message}"
    parts = [f"### {hub.model_id} · {short_count(hub.total)} parameters",
             f"**{exact_count(hub.total)}** parameters (`from_pretrained`, resolved offline)"]
    if hub.message:
        parts.append(f"_{hub.message}_")
    return "\n\n".join(parts)


def function_not_counted(name: str, problem: Problem) -> str:
    """A model function whose build the analysis cannot follow (LC101): why."""
    reason = problem.message.split(": ", 1)[1] if problem.message.startswith(f"`{name}()`") else problem.message
    return f"**`{name}()`** — not counted: {reason}"


def weights_hover(analysis: Analysis) -> str:
    """A ``model.safetensors.index.json``: what the shards on disk hold, beside the architectural count."""
    parts = [f"### On disk · {PurePath(analysis.path).name or analysis.path}"]
    facts = [p.message for p in analysis.report.problems]
    if facts:
        parts.append("\n".join(f"- {fact}" for fact in facts))
    return "\n\n".join(parts)


def _what_ifs(written: str) -> list[tuple[str, str]]:
    if written in ("true", "false", "True", "False"):
        flipped = {"true": "false", "false": "true", "True": "False", "False": "True"}[written]
        return [("if", flipped)]
    try:
        value = int(written)
    except ValueError:
        return []
    return [("+1", str(value + 1)), ("×2", str(value * 2))]


def summary_hover(view: ModelView) -> str:
    model = view.model
    tree = model.tree
    spec = model.spec
    title = f"### {model.name} · {short_count(tree.total)} parameters"
    kind = f"{spec.model_type} · {spec.architecture} · " if spec is not None else ""
    parts = [title, f"**{exact_count(tree.total)}** parameters — {kind}{model.method}", totals_line(model)]
    rows = []
    for depth, node, mult in component_paths(tree.root, 2):
        count = node.total * mult
        label = ("· " * depth) + node.name + (f" ×{node.repeat}" if node.repeat > 1 else "")
        if node.note:
            label += f" ({node.note})"
        share = f"{100 * count / tree.total:.1f}%" if tree.total else ""
        rows.append((label, short_count(count), exact_count(count), share))
    parts.append(table(("component", "params", "exact", "share"), rows, "lrrr"))
    parts.append(memory_section(view))
    for note in tree.notes:
        parts.append(f"_note: {note}_")
    return "\n\n".join(p for p in parts if p)


def memory_section(view: ModelView) -> str:
    memory, settings = view.memory, view.settings
    if memory is None or settings is None:
        return f"_Memory not estimated: {view.unavailable}_" if view.unavailable else ""
    settings = memory.settings  # its context filled (an image encoder's own, where none was set)
    parts = [f"**Memory — {settings.mode}, {dtype_label(memory.dtype)}, context {settings.context:,} × batch "
             f"{settings.batch}: {gib(memory.total_bytes)}**"]
    rows = []
    for line in memory.lines:
        share = line.bytes / memory.total_bytes if memory.total_bytes else 0.0
        rows.append((line.name, gib(line.bytes), bar(share), "exact" if line.exact else "estimate"))
    parts.append(table(("", "memory", "split", ""), rows, "lrll"))
    if memory.weights_bytes:
        parts.append(table(("weights in", "memory"),
                           [(dtype_label(d), gib(b)) for d, b in memory.weights_bytes.items()], "lr"))
    kv = [line for line in memory.lines if "kv" in line.name.lower()]
    if kv:
        parts.append(f"**KV cache at {settings.context:,} tokens × batch {settings.batch}:** "
                     f"{gib(sum(line.bytes for line in kv))}")
    if view.modes:
        parts.append(table(("workload", "memory"),
                           [(mode, gib(report.total_bytes) if not isinstance(report, str) else f"n/a: {report}")
                            for mode, report in view.modes.items()], "lr"))
    fit = view.fit
    if fit is not None and view.selection is not None:
        label = view.selection.label
        if fit.fits:
            text = f"**Fits {label} ✓** — needs {gib(fit.required_bytes)} of {gib(fit.available_bytes)}, " \
                   f"{gib(fit.headroom_bytes)} spare"
        else:
            text = f"**Does not fit {label} ✗** — needs {gib(fit.required_bytes)}, has {gib(fit.available_bytes)}"
            if fit.min_gpus:
                text += f"; needs {fit.min_gpus}× {view.selection.gpu.name}"
            if fit.lowest_dtype:
                text += f"; fits in {fit.lowest_dtype}"
        extras = []
        if fit.max_context:
            extras.append(f"max context {fit.max_context:,}")
        if fit.max_batch:
            extras.append(f"max batch {fit.max_batch:,}")
        if extras:
            text += " (" + ", ".join(extras) + ")"
        parts.append(text)
        if fit.suggestions:
            parts.append("\n".join(f"- {s}" for s in fit.suggestions))
    return "\n\n".join(parts)
