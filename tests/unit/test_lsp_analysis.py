"""The server's pure parts for Python files, training YAMLs and base models named by hub id."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace

from lsp_count.core.analyze import AnalyzeOptions
from lsp_count.core.params import short_count
from lsp_count.core.source import Position, Span
from lsp_count.lsp.analysis import (FunctionCount, HubRef, analyze_document, count_function_of, document_keys,
                                    function_at, hub_refs)

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


FUNCTIONS = '''import torch.nn as nn


def wide(width=8):
    return nn.Linear(width, width)


def helper(
    width,
    depth=2,
):
    return nn.Linear(width, width)


def keyword_only(*, width):
    return nn.Linear(width, width)


def anything(*args, **kwargs):
    return nn.Linear(8, 8)


def broken(width=
'''


def test_a_function_hover_counts_only_what_takes_no_arguments():
    analysis = analyze_document("file:///f.py", 1, FUNCTIONS, "/f.py", AnalyzeOptions())
    lines = FUNCTIONS.splitlines()

    def at(name: str):
        line = next(i for i, text in enumerate(lines) if text.startswith(f"def {name}"))
        assert function_at(analysis, Position(line, 6)) == name
        return count_function_of(analysis, name, None, line)

    assert at("wide").model is not None and at("wide").model.tree.total == 72
    assert at("anything").model is not None and at("anything").model.tree.total == 72
    # A signature over several lines, a keyword-only argument: not analysed, no model, no reason.
    assert at("helper") == FunctionCount(None, None)
    assert at("keyword_only") == FunctionCount(None, None)
    # A signature that does not parse is left to the analysis, which says why (no hover shows it).
    found = at("broken")
    assert found.model is None and found.problem is not None and found.problem.code == "LC102"
    assert function_at(analysis, Position(0, 3)) is None


def test_a_function_hover_never_executes_the_file(monkeypatch):
    # `execute` on (a trusted workspace that opted in): the document's own analysis may import the
    # file; a hover on a def must not start it again in a subprocess.
    import lsp_count.pymodel.execute as execute

    def refuse(*_args, **_kwargs):
        raise AssertionError("executed")

    monkeypatch.setattr(execute, "count_by_executing", refuse)
    text = FUNCTIONS.replace("def broken(width=\n", "class Open(nn.Module):\n    def __init__(self, d):\n"
                             "        super().__init__()\n        self.p = nn.Linear(d, d)\n")
    analysis = analyze_document("file:///f.py", 1, text, "/f.py", AnalyzeOptions(execute=True))
    found = count_function_of(analysis, "wide", None, text.splitlines().index("def wide(width=8):"))
    assert found.model is not None and found.model.tree.total == 72


QWEN_VL = """{
  "model_type": "qwen2_5_vl",
  "architectures": ["Qwen2_5_VLForConditionalGeneration"],
  "hidden_size": 64,
  "num_hidden_layers": 3,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "intermediate_size": 128,
  "vocab_size": 1000,
  "vision_config": {
    "depth": 2,
    "hidden_size": 32,
    "num_heads": 2,
    "intermediate_size": 48,
    "out_hidden_size": 64
  }
}
"""


def test_sub_config_keys_have_their_own_hints_and_hovers():
    """A composite's sub-model keys (Qwen2.5-VL's flat text keys, its vision_config's) get hints and
    hovers of the parts they make: num_hidden_layers the language model's layers, depth the vision
    blocks, though both are the num_layers field."""
    from lsp_count.lsp import hints, hover

    analysis = analyze_document("file:///m/config.json", 1, QWEN_VL, "/m/config.json", AnalyzeOptions())
    (model,) = analysis.models
    refs = {r.key: r for r in document_keys(analysis, model)}
    assert {"num_hidden_layers", "depth", "vocab_size", "intermediate_size"} <= set(refs)
    assert refs["depth"].spec is model.spec.subspecs["vision"] and refs["num_hidden_layers"].spec is model.spec.subspecs["text"]
    labels = {analysis.lines.line_text(h.position.line).split('"')[1]: h.label
              for h in hints.inlay_hints(analysis, 0, 100, "utf-16") if '"' in analysis.lines.line_text(h.position.line)}
    text = model.spec.subspecs["text"]
    (text_layers,) = [n for _p, n, _m in model.tree.root.walk() if n.key == "num_layers" and n.source == text.key_span("num_layers")]
    (blocks,) = [n for _p, n, _m in model.tree.root.walk() if n.name == "blocks"]
    assert labels["num_hidden_layers"] == f"▸ {short_count(text_layers.total)} in layers"
    assert labels["depth"] == f"▸ {short_count(blocks.total)} in blocks"
    shown = hover.key_hover(analysis, refs["depth"])
    assert "`depth`** = `2`" in shown and "blocks" in shown and "layers (" not in shown
