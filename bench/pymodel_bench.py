"""Benchmark: static analysis of a ~5,000-line Python model file (target: well under 200 ms).

Builds a synthetic file from the corpus (nanoGPT, ResNet, LoRA, MLP, recurrent
classes, renamed so every copy is its own class) and times analyze_text: the whole
file from nothing (the CLI, the gate, a file just opened), then the language server's
re-analysis after an edit (the classes the edit cannot reach come from the last one), and a
new CLI or gate run that starts from the results an earlier run stored (memo_store.py).
Then real files: every models/*/modeling_*.py of the installed transformers (a test
dependency), each from nothing, reading the project files it imports as the analysis
does in a transformers checkout, without and with the tree cache of an earlier run; the
largest against Python importing the same module. Then timm's model files (where scripts/test.sh
installed timm beside the environment), whose largest, vision_transformer.py, is a real file of
over 5,000 lines. Last, a model of one's own on an installed transformers and on timm (their source
read from the environment, AnalyzeOptions.read_packages) against Python importing the library.
Run: .venv/bin/python bench/pymodel_bench.py
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from unittest import mock

from lsp_count.core.analyze import analyze_text
from lsp_count.pymodel.reuse import PythonMemo

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pymodels"
SOURCES = ["nanogpt.py", "resnet.py", "lora.py", "mlp.py", "recurrent.py"]


def build(target_lines: int = 5000) -> str:
    texts = [(CORPUS / name).read_text() for name in SOURCES]
    parts, copy = [], 0
    while sum(p.count("\n") for p in parts) < target_lines:
        for index, text in enumerate(texts):
            # Each copy of each file gets its own names (two corpus files both define an MLP).
            # Not after a dot: nn.LayerNorm stays torch's even where the file defines its own LayerNorm.
            names = sorted(set(re.findall(r"^(?:class|def) (\w+)", text, re.M)), key=len, reverse=True)
            suffix = f"_{copy}_{index}"
            renamed = re.sub(r"(?<![\w.])(" + "|".join(names) + r")\b", lambda m: m.group(1) + suffix, text)
            # A real file has one config class, which an unannotated `config` argument resolves to;
            # here every copy has its own, so each copy's classes name theirs.
            renamed = renamed.replace("(self, config)", f"(self, config: GPTConfig{suffix})")
            parts.append(renamed)
        copy += 1
    return "\n\n".join(parts)


def time_torch(text: str, names: list[str], runs: int) -> tuple[float, list[float]]:
    """The peer method: run the file and build each class on the meta device, as --execute,
    torchinfo or a hand-written ``sum(p.numel() ...)`` do. (seconds to import torch, ms per run)"""
    import inspect
    import types
    import warnings

    warnings.filterwarnings("ignore")
    t0 = time.perf_counter()
    import torch

    import_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "big_model.py"
        path.write_text(text)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            module = types.ModuleType("big_model")
            sys.modules["big_model"] = module  # dataclasses look their module up
            exec(compile(text, str(path), "exec"), module.__dict__)  # noqa: S102 - the bench's own generated file
            namespace = module.__dict__
            for name in names:
                cls = namespace[name]
                kwargs = {}
                for arg, p in list(inspect.signature(cls.__init__).parameters.items())[1:]:
                    if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                        ann = namespace.get(p.annotation) if isinstance(p.annotation, str) else p.annotation
                        kwargs[arg] = ann()
                with torch.device("meta"):
                    model = cls(**kwargs)
                sum(p.numel() for p in model.parameters())
            times.append((time.perf_counter() - start) * 1000)
    del sys.modules["big_model"]
    return import_s, times


def time_parse(text: str, runs: int) -> float:
    """Median ms for ``ast.parse`` of the file with the collector paused, as the analysis parses
    it (the tree is freed outside the timing, as the analysis keeps its tree until it ends)."""
    import gc

    times = []
    for _ in range(runs):
        gc.disable()
        try:
            start = time.perf_counter()
            tree = ast.parse(text)
            times.append((time.perf_counter() - start) * 1000)
        finally:
            gc.enable()
        del tree
    return statistics.median(times)


def time_edits(text: str, runs: int) -> tuple[list[float], list[float]]:
    """The language server's case: the document was analysed, then edited. (ms after a change
    inside one class, ms after a line added at the top, which moves every class)"""
    start_of = text.index("class ResNet_7_1")
    at = text.index("num_classes=1000", start_of)
    versions = [text, text[:at] + "num_classes=1001" + text[at + len("num_classes=1000"):]]
    memo = PythonMemo()
    analyze_text(text, "big_model.py", memo=memo)
    inside, moved = [], []
    for i in range(runs):
        start = time.perf_counter()
        analyze_text(versions[(i + 1) % 2], "big_model.py", memo=memo)
        inside.append((time.perf_counter() - start) * 1000)
    for i in range(runs):
        start = time.perf_counter()
        analyze_text("# moved\n" * (i % 2 + 1) + versions[0], "big_model.py", memo=memo)
        moved.append((time.perf_counter() - start) * 1000)
    return inside, moved


def time_stored(text: str, runs: int) -> tuple[list[float], list[float], list[float]]:
    """The CLI's and the gate's case, each run a new one (memo_store.py): ms for a file with no
    stored results (counted whole, then stored), the same file again (every class from the store),
    and the file with one class edited since the stored run."""
    from lsp_count.core.analyze import SharedTrees

    start_of = text.index("class ResNet_7_1")
    at = text.index("num_classes=1000", start_of)
    edited = text[:at] + "num_classes=1001" + text[at + len("num_classes=1000"):]
    first, again, after_edit = [], [], []
    with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ):
        os.environ["LSP_COUNT_CACHE_DIR"] = tmp
        path = os.path.join(tmp, "big_model.py")
        for i in range(runs):
            for entry in pathlib.Path(tmp, "memos").glob("*.memo"):
                entry.unlink()
            start = time.perf_counter()
            analyze_text(text, path, None, SharedTrees().memo_for(path))
            first.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            analyze_text(text, path, None, SharedTrees().memo_for(path))
            again.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            analyze_text(edited, path, None, SharedTrees().memo_for(path))
            after_edit.append((time.perf_counter() - start) * 1000)
    return first, again, after_edit


def transformers_modeling_files() -> list[pathlib.Path]:
    """The installed transformers' models/*/modeling_*.py (real model files; transformers is a test
    dependency), sorted; none when it is not installed. The benches' real files come from here."""
    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(pathlib.Path(spec.submodule_search_locations[0]).glob("models/*/modeling_*.py"))


def _sweep(files: list[pathlib.Path]) -> list[tuple[float, pathlib.Path, int, object]]:
    """Each file analysed once, from nothing (nothing kept between files but the tree cache)."""
    results = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        start = time.perf_counter()
        report = analyze_text(text, str(path))
        results.append(((time.perf_counter() - start) * 1000, path, text.count("\n") + 1, report))
    return results


def _times(path: pathlib.Path, runs: int) -> list[float]:
    """ms for each of ``runs`` analyses of the file, one after another."""
    text = path.read_text(encoding="utf-8")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        analyze_text(text, str(path))
        times.append((time.perf_counter() - start) * 1000)
    return times


def _summary(results: list[tuple[float, pathlib.Path, int, object]]) -> str:
    times = sorted(r[0] for r in results)
    slowest = max(results, key=lambda r: r[0])
    return (f"median {statistics.median(times):.0f} ms, 90th percentile {times[int(len(times) * 0.9)]:.0f} ms, "
            f"slowest {slowest[0]:.0f} ms ({slowest[1].parent.name}, {slowest[2]:,} lines)")


def time_transformers() -> None:
    """Every modeling file of the installed transformers, analysed from nothing: with no tree cache
    (each analysis parses the project files it imports), then with the cache of an earlier run
    (pymodel/tree_cache.py; a temporary one, filled by a first pass)."""
    files = transformers_modeling_files()
    if not files:
        print("transformers is not installed: no real files timed")
        return
    # The caller's LSP_COUNT_CACHE_DIR comes back afterwards.
    with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ):
        os.environ["LSP_COUNT_CACHE_DIR"] = "off"
        cold = _sweep(files)
        os.environ["LSP_COUNT_CACHE_DIR"] = cache
        _sweep(files)  # fills the cache
        results = _sweep(files)
        version = importlib.metadata.version("transformers")
        print(f"transformers {version}: {len(files)} modeling files from nothing, no tree cache: {_summary(cold)}")
        print(f"  the same with the project files' trees cached by an earlier run: {_summary(results)}")
        for _, path, lines, report in sorted(results, key=lambda r: -r[2])[:3]:
            again = _times(path, 5)
            module = f"transformers.models.{path.parent.name}.{path.stem}"
            code = ("import time, importlib; t = time.perf_counter(); "
                    f"importlib.import_module({module!r}); print(time.perf_counter() - t)")
            imported = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True)
            import_s = float(imported.stdout.strip() or "nan")
            print(f"  {path.parent.name}/{path.name} ({lines:,} lines, {len(report.models)} classes counted, "
                  f"{sum(p.code == 'LC101' for p in report.problems)} unresolved): median {statistics.median(again):.0f} ms "
                  f"(tree cache); Python importing it: {import_s:.2f} s ({import_s * 1000 / statistics.median(again):.0f}x)")


def timm_model_files() -> list[pathlib.Path]:
    """timm's models/*.py where scripts/test.sh installed it beside the environment (read, never imported)."""
    root = pathlib.Path(sys.prefix) / "timm-sidecar" / "timm" / "models"
    return sorted(root.glob("*.py")) if root.is_dir() else []


def time_timm() -> None:
    """Every model file of timm from nothing (no tree cache), and its largest, a real 5,000-line file
    (vision_transformer.py: the ViT class, its blocks and a few hundred model entrypoints)."""
    files = timm_model_files()
    if not files:
        print("timm is not installed beside the environment (scripts/test.sh): no timm files timed")
        return
    with mock.patch.dict(os.environ):
        os.environ["LSP_COUNT_CACHE_DIR"] = "off"
        results = _sweep(files)
        print(f"timm: {len(files)} model files from nothing, no tree cache: {_summary(results)}")
        for _, path, lines, report in sorted(results, key=lambda r: -r[2])[:2]:
            again = _times(path, 7)
            print(f"  {path.name} ({lines:,} lines, {len(report.models)} classes counted, "
                  f"{sum(p.code == 'LC101' for p in report.problems)} unresolved): median {statistics.median(again):.0f} ms, "
                  f"min {min(again):.0f} ms")


# A model of the user's own on top of an installed library (AnalyzeOptions.read_packages): the
# analysis reads the library's source from the environment; the peer method imports the library
# and builds the model on the meta device (in a fresh Python, as the first analysis starts afresh).
ON_TRANSFORMERS = """
import torch.nn as nn
from transformers import LlamaConfig, PreTrainedModel
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRMSNorm


class MyLlama(PreTrainedModel):
    config_class = LlamaConfig

    def __init__(self, config=LlamaConfig()):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(config, i) for i in range(config.num_hidden_layers)])
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
"""

ON_TIMM = """
import torch.nn as nn
import timm
from timm.models.vision_transformer import Block


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = timm.create_model("resnet50", pretrained=False, num_classes=0)
        self.blocks = nn.ModuleList([Block(768, 12) for _ in range(2)])
"""

_BUILD = """
import sys, time
t = time.perf_counter()
if len(sys.argv) > 2:
    sys.path.insert(0, sys.argv[2]); import timm_runner; timm_runner._import_timm(sys.argv[3])
import torch
namespace = {}
exec(compile(open(sys.argv[1]).read(), "user_model.py", "exec"), namespace)
with torch.device("meta"):
    for name in ("MyLlama", "Backbone"):
        if name in namespace:
            sum(p.numel() for p in namespace[name]().parameters())
print(time.perf_counter() - t)
"""


def time_installed() -> None:
    """A model written on an installed transformers and one on timm, each analysed from nothing
    (reading the library's source, no tree cache; then with the cache of an earlier run), against
    a fresh Python importing the library and building the model on the meta device."""
    from lsp_count.core.analyze import AnalyzeOptions

    sidecar = pathlib.Path(sys.prefix) / "timm-sidecar"
    cases = [("transformers", ON_TRANSFORMERS, AnalyzeOptions(), [])]
    if (sidecar / "timm").is_dir():
        runner = pathlib.Path(__file__).resolve().parents[1] / "tests" / "parity"
        cases.append(("timm", ON_TIMM, AnalyzeOptions(site_packages=(str(sidecar),)), [str(runner), str(sidecar)]))
    with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ):
        for library, text, options, extra in cases:
            path = pathlib.Path(tmp) / f"on_{library}.py"
            path.write_text(text)
            timings = {}
            for cache in ("off", str(pathlib.Path(tmp) / "cache")):
                os.environ["LSP_COUNT_CACHE_DIR"] = cache
                analyze_text(text, str(path), options)  # (fills the cache; the first of each is dropped)
                runs = []
                for _ in range(5):
                    start = time.perf_counter()
                    report = analyze_text(text, str(path), options)
                    runs.append((time.perf_counter() - start) * 1000)
                timings[cache == "off"] = statistics.median(runs)
            built = subprocess.run([sys.executable, "-W", "ignore", "-c", _BUILD, str(path), *extra],
                                   capture_output=True, text=True)
            python_s = float(built.stdout.strip().splitlines()[-1]) if built.returncode == 0 else float("nan")
            counted = ", ".join(f"{m.name} {m.tree.total:,}" for m in report.models) or "nothing"
            print(f"a model on installed {library} ({counted}): median {timings[True]:.0f} ms from nothing, "
                  f"{timings[False]:.0f} ms with the tree cache; Python importing {library} and building it on the "
                  f"meta device: {python_s:.2f} s ({python_s * 1000 / timings[False]:.1f}x the cached analysis)")


def main() -> None:
    text = build()
    lines = text.count("\n") + 1
    times = []
    report = analyze_text(text, "big_model.py")
    for _ in range(15):
        start = time.perf_counter()
        report = analyze_text(text, "big_model.py")
        times.append((time.perf_counter() - start) * 1000)
    print(f"{lines} lines, {len(report.models)} classes counted, {len(report.hints)} hints, "
          f"{sum(p.code == 'LC101' for p in report.problems)} unresolved")
    print(f"lsp-count static analysis, whole file: median {statistics.median(times):.1f} ms, min {min(times):.1f} ms, "
          f"max {max(times):.1f} ms (15 runs)")
    parse_ms = time_parse(text, 15)
    print(f"  of which CPython parsing the file (ast.parse alone, the floor of any analysis of its syntax tree): "
          f"median {parse_ms:.1f} ms ({parse_ms / statistics.median(times):.0%})")
    inside, moved = time_edits(text, 15)
    print(f"language server, again after an edit inside one class: median {statistics.median(inside):.1f} ms; "
          f"after a line added at the top (every class moves): median {statistics.median(moved):.1f} ms (15 runs each)")
    first, again, after_edit = time_stored(text, 7)
    print(f"a new CLI or gate run (memo_store.py): no stored results (counted, then stored) median "
          f"{statistics.median(first):.1f} ms; unchanged since the stored run {statistics.median(again):.1f} ms; "
          f"one class edited since {statistics.median(after_edit):.1f} ms (7 runs each)")
    import_s, torch_times = time_torch(text, [m.name for m in report.models], 3)
    print(f"torch, run the file + build the same {len(report.models)} classes on the meta device: "
          f"median {statistics.median(torch_times):.0f} ms, after importing torch once ({import_s:.2f} s)")
    print(f"ratio (median): {statistics.median(torch_times) / statistics.median(times):.1f}x")
    time_transformers()
    time_timm()
    time_installed()


if __name__ == "__main__":
    main()
