"""An analysis leaves no cyclic garbage: reference counting frees all of it when it ends
(analyzer._release). The language server freezes the collector between analyses
(lsp/collector.py), so anything left in a cycle would stay until the server is idle; the CLI
and the gate would pay a collection for it."""

from __future__ import annotations

import collections
import gc
import importlib.util
import pathlib
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.pymodel.reuse import PythonMemo

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels"


def cyclic_garbage(analysis) -> collections.Counter[str]:
    """What only the cyclic collector would free after ``analysis()``, by type. Run once
    before, so that first-use imports (their own cycles) are not counted."""
    analysis()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        analysis()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.py")))
def test_corpus_files_leave_no_cycles(name):
    # nanogpt's GPTConfig is a dataclass: the class its __init__ comes from is itself.
    path = CORPUS / name
    assert cyclic_garbage(lambda: analyze_text(path.read_text(), str(path), AnalyzeOptions(base_dir=str(CORPUS)))) == {}


def test_closures_bound_methods_and_project_files_leave_no_cycles(tmp_path):
    (tmp_path / "blocks.py").write_text(textwrap.dedent("""
        import torch.nn as nn

        class Act(nn.Module):
            def __init__(self):
                super().__init__()
                self.fn = self._gelu  # an instance holding its own bound method

            def _gelu(self, x):
                return x

        class Loss(nn.Module):
            def __init__(self):
                super().__init__()
                self.terms = {"l1": self.l1}  # its bound methods in a dict
                self.scale = nn.Linear(1, 1)

            def l1(self, x):
                return x

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.act = Act()
                self.loss = Loss()
                self.proj = nn.Linear(dim, dim)
    """))
    text = textwrap.dedent("""
        from dataclasses import dataclass

        import torch.nn as nn
        from blocks import Block

        def stack(dim, n):
            def one(i):  # a function defined in a function: its environment holds it
                return Block(dim)
            widths = lambda: [dim] * n
            return nn.ModuleList([one(i) for i, _ in enumerate(widths())])

        def local_class(dim):
            class Local(nn.Module):  # a class made in a function: the names it sees hold it
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(dim, dim)
            return Local()

        @dataclass
        class Settings:
            width: int = 4

            def __post_init__(self):
                self.root = self  # set after the constructor: still a cycle

        class Uses(nn.Module):
            def __init__(self, settings: Settings):
                super().__init__()
                self.fc = nn.Linear(settings.width, 1)

        class AlsoUses(nn.Module):  # gets its own Settings() built, not a copy of the first's
            def __init__(self, settings: Settings):
                super().__init__()
                self.fc = nn.Linear(settings.width, 2)

        class Loop(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
                self.me = self

        class Model(nn.Module):
            def __init__(self, dim=64, n=2):
                super().__init__()
                self.layers = stack(dim, n)
                self.loops = nn.ModuleList([Loop(), Loop()])  # the same build twice: not a copy of a cycle
                self.local = local_class(dim)
    """)
    path = str(tmp_path / "model.py")
    report = analyze_text(text, path, AnalyzeOptions(base_dir=str(tmp_path)))
    assert [(m.name, m.tree.total) for m in report.models] == [
        ("Uses", 5), ("AlsoUses", 10), ("Loop", 72), ("Model", 2 * (64 * 64 + 64 + 2) + 2 * 72 + 64 * 64 + 64)]
    assert cyclic_garbage(lambda: analyze_text(text, path, AnalyzeOptions(base_dir=str(tmp_path)))) == {}


def test_an_edit_that_moves_every_class_leaves_no_cycles():
    text = (CORPUS / "resnet.py").read_text()
    memo = PythonMemo()
    analyze_text(text, "resnet.py", memo=memo)
    versions = iter(range(1, 100))
    # Lines added at the top: each kept result is moved (reuse._Mover), none is counted again.
    assert cyclic_garbage(lambda: analyze_text("#\n" * next(versions) + text, "resnet.py", memo=memo)) == {}


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers is not installed")
@pytest.mark.parametrize("model", ["llama", "llava"])
def test_a_transformers_modeling_file_leaves_no_cycles(model):
    # Its project files' classes (hooks, closures, activations holding their methods) held their
    # syntax trees in cycles: about 30,000 objects per analysis. LLaVA builds its parts through
    # AutoModel, whose mapping and its table of names hold each other.
    spec = importlib.util.find_spec("transformers")
    path = pathlib.Path(spec.submodule_search_locations[0]) / "models" / model / f"modeling_{model}.py"
    assert cyclic_garbage(lambda: analyze_text(path.read_text(), str(path))) == {}


def test_a_scripts_entry_point_leaves_no_cycles(tmp_path):
    # main()'s own frame, a closure defined in it, the models it built and the ones it skipped.
    (tmp_path / "nanogpt.py").write_text((CORPUS / "nanogpt.py").read_text())
    script = tmp_path / "train.py"
    script.write_text((CORPUS.parent / "scripts" / "train_gpt.py").read_text() + textwrap.dedent("""

        def other():
            model = GPT(GPTConfig(n_layer=1, n_embd=32, n_head=2))
            scale = lambda x: x * model.config.n_embd
            blocks = {"first": model.transformer.h[0], "all": [model]}
            data = torch.load("missing.pt")


        if __name__ == "__main__":
            other()
    """))
    report = None

    def analysis():
        nonlocal report
        report = analyze_text(script.read_text(), str(script), AnalyzeOptions(base_dir=str(tmp_path)))

    assert cyclic_garbage(analysis) == {}
    assert [m.name for m in report.models] == ["probe in main()", "model in main()", "model in other()"]
