"""One document version analysed: the core's FileReport plus what the editor features need.

Everything here is pure and runs in a worker thread; the server caches the
result per (uri, version), so hovers, hints, lenses and diagnostics of one
version share a single parse.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Iterator, Mapping

from lsp_count.core.analyze import AnalysisProgress, AnalyzeOptions, analyze_text
from lsp_count.core.params import ParamNode
from lsp_count.core.readers.text import MAX_DOCUMENT_BYTES
from lsp_count.core.report import FileReport, ModelReport
from lsp_count.core.source import LineIndex, Position, Problem, Span
from lsp_count.core.spec import ModelSpec

if TYPE_CHECKING:
    from lsp_count.pymodel.reuse import PythonMemo


WEIGHTS_INDEX_SUFFIX = ".safetensors.index.json"


@dataclass(frozen=True)
class HubRef:
    """A base model named in the document (``from_pretrained("org/name")``), resolved offline."""

    span: Span
    model_id: str
    total: int | None
    message: str


@dataclass(frozen=True)
class Analysis:
    uri: str
    version: int | None
    text: str
    path: str
    lines: LineIndex
    report: FileReport
    options: AnalyzeOptions
    hubs: tuple[HubRef, ...] = ()

    @property
    def models(self) -> tuple[ModelReport, ...]:
        return self.report.models

    @property
    def is_python(self) -> bool:
        return PurePath(self.path).suffix.lower() == ".py"

    @property
    def is_weights_index(self) -> bool:
        return PurePath(self.path).name.lower().endswith(WEIGHTS_INDEX_SUFFIX)


def analyze_document(uri: str, version: int | None, text: str, path: str, options: AnalyzeOptions,
                     memo: PythonMemo | None = None, progress: AnalysisProgress | None = None) -> Analysis:
    """Never raises: a document that breaks the core still gets an answer and a diagnostic.
    ``memo``: what the analysis of the document's previous version lends this one (Python files);
    ``progress``: where it says how far it has got (the server's progress bar)."""
    # len(text) bounds the UTF-8 size from below; encode only when it could be over.
    if len(text) > MAX_DOCUMENT_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_DOCUMENT_BYTES:
        size = len(text.encode("utf-8", "surrogatepass")) / 2**20
        problem = Problem("info", "LC003", f"file is {size:.1f} MiB; lsp-count analyses model files up to "
                                           f"{MAX_DOCUMENT_BYTES // 2**20} MiB, so this one is skipped")
        return Analysis(uri, version, text, path, LineIndex(text), FileReport(path, (), (problem,)), options)
    try:
        if PurePath(path).name.lower().endswith(WEIGHTS_INDEX_SUFFIX) and os.path.isfile(path):
            # Not a config: the index describes the shards beside it. Their headers (and the config.json
            # next to them) give the on-disk count; analyze_text would read it as a config and find none.
            from lsp_count.core.weights import analyze_weights_path

            report = analyze_weights_path(path, options)
        else:
            report = analyze_text(text, path, options, memo=memo, progress=progress)
    except RecursionError:
        report = FileReport(path, (), (Problem("error", "LC001", "document is nested too deeply to analyse"),))
    except Exception as exc:  # noqa: BLE001 - a core bug on odd input must not take the editor session down
        report = FileReport(path, (), (Problem("error", "LC001", f"lsp-count could not analyse this document: "
                                                                   f"{type(exc).__name__}: {exc}"),))
    # The core indexed the same text's lines already (a document's every edit): not again.
    lines = report.lines if report.lines is not None and report.lines.text is text else LineIndex(text)
    return Analysis(uri, version, text, path, lines, report, options, hub_refs(report, options))


# A small model in the styles the analyser reads (a dataclass config, a loop of blocks, a tied head),
# built into the server: analysed once at start-up so that the first Python file a user opens does
# not also wait for the analyser's import and its first-use tables (65 ms from bytecode, 330 ms
# without). No workspace file is read: the path is in no directory that exists.
_WARM_UP_SOURCE = """\
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class WarmUpConfig:
    vocab_size: int = 64
    n_embd: int = 16
    n_layer: int = 2


class WarmUpBlock(nn.Module):
    def __init__(self, config: WarmUpConfig):
        super().__init__()
        self.norm = nn.LayerNorm(config.n_embd)
        self.attn = nn.MultiheadAttention(config.n_embd, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd), nn.GELU(),
                                 nn.Linear(4 * config.n_embd, config.n_embd))

    def forward(self, x):
        x = self.norm(x)
        return x + self.mlp(x)


class WarmUpModel(nn.Module):
    def __init__(self, config: WarmUpConfig = WarmUpConfig()):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.blocks = nn.ModuleList([WarmUpBlock(config) for _ in range(config.n_layer)])
        self.head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.head.weight = self.wte.weight
        self.scale = nn.Parameter(torch.ones(config.n_embd))

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(x * self.scale)
"""
WARM_UP_PATH = os.path.join(os.sep, "nonexistent-lsp-count-warm-up", "warm_up_model.py")


def warm_up_python_analysis() -> int | None:
    """Analyse the built-in model (importing the analyser); its top-level class's count, or None
    where it could not be counted (a bug the first real file would show, not one to stop for)."""
    report = analyze_document("", None, _WARM_UP_SOURCE, WARM_UP_PATH, AnalyzeOptions()).report
    model = next((m for m in report.models if m.name == "WarmUpModel"), None)
    return model.tree.total if model is not None and model.tree is not None else None


def hub_refs(report: FileReport, options: AnalyzeOptions) -> tuple[HubRef, ...]:
    """The core's resolved ``hub_counts`` when it has them; else the ``hub_refs`` resolved here (offline)."""
    counted = getattr(report, "hub_counts", None)
    if counted:
        return tuple(HubRef(span, model_id, total, message) for span, model_id, total, message in counted)
    refs = getattr(report, "hub_refs", ())
    if not refs:
        return ()
    from lsp_count.core.catalog import analyze_model_id

    out = []
    for span, model_id in refs:
        try:
            found = analyze_model_id(model_id, options)
        except Exception as exc:  # noqa: BLE001 - one odd id must not cost the file its other features
            out.append(HubRef(span, model_id, None, f"not countable: {type(exc).__name__}: {exc}"))
            continue
        total = found.models[0].tree.total if found.models else None
        messages = [p.message for p in found.problems if total is not None or p.severity == "error"]
        out.append(HubRef(span, model_id, total, "; ".join(messages) or "not found offline"))
    return tuple(out)


# --- keys and values under the cursor -----------------------------------------------------

# After a key (JSON "key" or YAML key): the colon, then a scalar we can rewrite.
_VALUE = re.compile(r"[ \t]*:[ \t]*(?P<value>-?\d+(?:\.\d+)?|true|false|True|False)\b")


@dataclass(frozen=True)
class KeyRef:
    """A config key that shapes a model: canonical field, key as written, and where. ``spec``: the
    sub-model's spec where the key is a nested (or a flat composite's top-level) sub-config's
    (llava's text_config, Qwen2.5-VL's text keys): its field, value and doc are the sub-model's."""

    model: ModelReport
    field: str
    key: str
    span: Span
    spec: ModelSpec | None = None


# Training-plan entries (a fine-tuning YAML) a hover explains: plan name -> what it means.
PLAN_KEYS = {
    "lora_rank": "LoRA rank: every adapted matrix gets r·(in + out) trainable parameters",
    "lora_alpha": "LoRA scaling (alpha / r); it changes no parameter count",
    "lora_targets": "the modules that get LoRA adapters",
    "mode": "how the model is trained",
    "context": "tokens per sequence: activations and KV cache scale with it",
    "batch": "sequences per step on each GPU",
    "gradient_checkpointing": "recompute activations in the backward pass instead of keeping them",
    "optimizer": "the optimizer: its states are part of the training memory",
}
PLAN_PREFIX = "plan:"


def model_keys(model: ModelReport) -> Iterator[KeyRef]:
    if model.spec is None:
        return
    seen: set[tuple[int, int]] = set()
    # The composite's own keys, then its sub-configs' (a vision_config's depth, a text_config's layers).
    specs = [(model.spec, None)] + [(sub, sub) for sub in model.spec.subspecs.values()]
    for spec, sub in specs:
        for field, (key, span) in spec.origins.items():
            # Several canonical fields can share one key (attention_bias sets q/k/v/o biases).
            where = (span.start.line, span.start.column)
            if where in seen:
                continue
            seen.add(where)
            yield KeyRef(model, field, key, span, sub)


def _written_here(analysis: Analysis, ref: KeyRef) -> bool:
    """Whether the key really is at its span in this document.

    A training YAML's base model is counted from a config elsewhere (the bundled
    catalog, the HF cache), an index's from the config.json beside it; their
    key positions belong to that file and must not place hints, hovers or edits here.
    """
    if not 0 <= ref.span.start.line < analysis.lines.line_count:
        return False
    start, end = analysis.lines.offset(ref.span.start), analysis.lines.offset(ref.span.end)
    return analysis.text[start:end].strip("\"' ") == ref.key


def document_keys(analysis: Analysis, model: ModelReport) -> Iterator[KeyRef]:
    """The shaping keys written in this document, then the training-plan keys (a fine-tuning YAML)."""
    for ref in model_keys(model):
        if _written_here(analysis, ref):
            yield ref
    spans = model.plan.get("spans")
    if not isinstance(spans, Mapping):
        return
    seen: set[tuple[int, int]] = set()
    for name, span in spans.items():  # type: ignore[union-attr]
        if name not in PLAN_KEYS or not isinstance(span, Span) or not 0 <= span.start.line < analysis.lines.line_count:
            continue
        where = (span.start.line, span.start.column)
        if where in seen:
            continue
        seen.add(where)
        written = analysis.text[analysis.lines.offset(span.start):analysis.lines.offset(span.end)].strip("\"' ")
        if written:
            yield KeyRef(model, PLAN_PREFIX + name, written, span)


def key_at(analysis: Analysis, pos: Position) -> KeyRef | None:
    """The shaping key whose line the cursor is on (key or value), innermost model first."""
    best: KeyRef | None = None
    for model in analysis.models:
        for ref in document_keys(analysis, model):
            if ref.span.start.line != pos.line:
                continue
            if ref.span.contains(pos):
                return ref
            best = best or ref
    return best


def value_span(analysis: Analysis, ref: KeyRef) -> tuple[int, int, str] | None:
    """(start, end, text) offsets of the scalar written after a key, if it is one we can change."""
    return value_after(analysis, ref.span)


def value_after(analysis: Analysis, key: Span) -> tuple[int, int, str] | None:
    """(start, end, text) offsets of the scalar written after the key at ``key``, if it is one we can change."""
    start = analysis.lines.offset(key.end)
    match = _VALUE.match(analysis.text, start)
    if match is None:
        return None
    return match.start("value"), match.end("value"), match.group("value")


def nodes_for(model: ModelReport, field: str, written: Span | None = None) -> list[tuple[str, int]]:
    """(component, params) of the parts of the tree a field drives, counted as often as they occur.
    ``written``: a sub-config key's span: only the parts that key made (a composite's vision tower and
    language model both have a ``num_layers``)."""
    out: list[tuple[str, int]] = []
    if field == PLAN_PREFIX + "lora_rank":
        # The rank drives the adapters: every trainable parameter of a LoRA run.
        return [(node.name, node.total) for node in model.tree.root.children if node.name == "adapters"]
    for _path, node, mult in model.tree.root.walk():
        if node is model.tree.root:
            continue
        drives = node.key == field or (field == "vocab_size" and node.name == "lm_head")
        if drives and (written is None or node.source == written):
            out.append((node.name, node.total * mult))
    # A node inside a driven node is already counted (moe inside layers both keyed differently is fine).
    return out


def component_paths(root: ParamNode, depth: int) -> list[tuple[int, ParamNode, int]]:
    """(depth, node, occurrences) in document order, down to ``depth`` levels."""
    rows: list[tuple[int, ParamNode, int]] = []
    stack: list[tuple[int, ParamNode, int]] = [(0, c, 1) for c in reversed(root.children)]
    while stack:
        d, node, mult = stack.pop()
        rows.append((d, node, mult))
        if d + 1 < depth:
            stack.extend((d + 1, c, mult * node.repeat) for c in reversed(node.children))
    return rows


def is_summary_line(analysis: Analysis, model: ModelReport, line: int) -> bool:
    """The first line of the model (or of the file) and the model_type line show the full summary."""
    first = model.span.start.line if model.span is not None else 0
    if line in (0, first):
        return True
    if line >= analysis.lines.line_count:
        return False
    return re.search(r"""(^|["'\s])model_type["']?\s*:""", analysis.lines.line_text(line)) is not None


def class_at(analysis: Analysis, pos: Position) -> ModelReport | None:
    """A Python model file: the counted class whose ``class`` line the cursor is on."""
    for model in analysis.models:
        if model.span is not None and model.span.start.line == pos.line:
            return model
    return None


_MODULE_FUNCTION = re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)")


def function_at(analysis: Analysis, pos: Position) -> str | None:
    """A Python file: the module-level function whose ``def`` line the cursor is on (its name)."""
    if pos.line >= analysis.lines.line_count:
        return None
    found = _MODULE_FUNCTION.match(analysis.lines.line_text(pos.line))
    return found.group(1) if found else None


@dataclass(frozen=True)
class FunctionCount:
    """What calling a module-level function with no arguments builds (``resnet50()``), counted on
    demand: a model, else why it is not one."""

    model: ModelReport | None
    problem: Problem | None


def count_function_of(analysis: Analysis, name: str, memo: PythonMemo | None = None,
                      line: int | None = None) -> FunctionCount:
    """The document's text analysed again with ``name`` among the functions counted (never raises).
    ``memo``: lends the project files' parse trees, as to the document's own analysis. ``line``:
    where its ``def`` is; a function whose signature there needs arguments (a helper) is not
    analysed at all."""
    from dataclasses import replace

    if line is not None and _needs_arguments(analysis.lines, line):
        return FunctionCount(None, None)
    # Never --execute here: a hover must not start the file in a subprocess.
    again = analyze_document(analysis.uri, analysis.version, analysis.text, analysis.path,
                             replace(analysis.options, functions=(name,), execute=False, classes=False), memo)
    label = f"{name}()"
    model = next((m for m in again.models if m.name == label), None)
    # Its LC101 / LC102, or an analyser bug (LC001) that names it; not the file's other findings.
    problem = next((p for p in again.report.problems if p.message.startswith(f"`{name}`")
                    or f"`{label}`" in p.message), None)
    return FunctionCount(model, problem)


def _needs_arguments(lines: LineIndex, line: int) -> bool:
    """Whether the ``def`` on ``line`` has a parameter without default, read from its signature
    alone (its lines up to the first that parses with a body); False when it cannot be read."""
    import ast

    from lsp_count.pymodel.analyzer import required_parameters

    header: list[str] = []
    for n in range(line, min(line + 40, lines.line_count)):
        header.append(lines.line_text(n))
        try:
            tree = ast.parse("\n".join(header) + "\n pass\n")
        except SyntaxError:
            continue
        node = tree.body[0] if tree.body else None
        return isinstance(node, ast.FunctionDef) and bool(required_parameters(node.args))
    return False


def hub_at(analysis: Analysis, pos: Position) -> HubRef | None:
    """The ``from_pretrained`` hub id under the cursor, else the first one on the cursor's line."""
    on_line = [h for h in analysis.hubs if h.span.start.line <= pos.line <= h.span.end.line]
    return next((h for h in on_line if h.span.contains(pos)), on_line[0] if on_line else None)


def model_at(analysis: Analysis, pos: Position) -> ModelReport | None:
    inside = [m for m in analysis.models if m.span is not None and m.span.contains(pos)]
    if inside:
        # The innermost (latest-starting) model wins in a file that holds several.
        return max(inside, key=lambda m: m.span.start)  # type: ignore[union-attr]
    return analysis.models[0] if analysis.models else None


def recount(analysis: Analysis, ref: KeyRef, new_value: str, measure: str = "total") -> tuple[int | None, str | None]:
    """The model's ``measure`` (total or trainable) with one value rewritten: (count, None) or (None, why not).

    Re-analysing the edited text (about a millisecond) recomputes derived
    defaults and consistency checks exactly as the real edit would.
    """
    found = value_span(analysis, ref)
    if found is None:
        return None, "value is not a literal"
    start, end, _ = found
    text = analysis.text[:start] + new_value + analysis.text[end:]
    report = analyze_text(text, analysis.path, analysis.options)
    index = analysis.models.index(ref.model)
    if index < len(report.models):
        return getattr(report.models[index].tree, measure), None
    errors = [p.message for p in report.problems if p.severity == "error"]
    return None, errors[0] if errors else "not countable"
