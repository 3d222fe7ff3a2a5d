"""The server's pure parts for Python files, training YAMLs and base models named by hub id."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace

from lsp_count.core.analyze import AnalyzeOptions
from lsp_count.core.source import Position, Span
from lsp_count.lsp.analysis import HubRef, analyze_document, document_keys, hub_refs

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_yaml_keeps_only_keys_written_in_it():
    path = ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml"
    analysis = analyze_document("file:///q.yml", 1, path.read_text(), str(path), AnalyzeOptions())
    (model,) = analysis.models
    # The base model's spec has origins in the bundled catalog's JSON, not in this YAML.
    assert model.spec is not None and model.spec.origins
    refs = list(document_keys(analysis, model))
    assert refs and all(r.field.startswith("plan:") for r in refs)
    assert ("plan:lora_rank", "lora_r") in [(r.field, r.key) for r in refs]


def test_hub_counts_from_the_core_win_over_resolving_here():
    span = Span(Position(3, 10), Position(3, 20))
    core = SimpleNamespace(hub_counts=((span, "org/name", 42, "from the catalog"),), hub_refs=((span, "org/name"),))
    assert hub_refs(core, AnalyzeOptions()) == (HubRef(span, "org/name", 42, "from the catalog"),)
    only_refs = SimpleNamespace(hub_refs=((span, "meta-llama/Meta-Llama-3-8B"),))
    (ref,) = hub_refs(only_refs, AnalyzeOptions())
    assert ref.total == 8_030_261_248
    (missing,) = hub_refs(SimpleNamespace(hub_refs=((span, "nobody/nothing"),)), AnalyzeOptions())
    assert missing.total is None and "not found offline" in missing.message
