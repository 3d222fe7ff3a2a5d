"""What an analysis tells its progress bar (core), and when the server shows one (lsp/progress.py)."""

from __future__ import annotations

import pathlib

import pytest

from lsp_count.core.analyze import AnalysisProgress, AnalyzeOptions, analyze_text
from lsp_count.lsp.progress import DEFAULT_AFTER_S, progress_delay

NANOGPT = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels" / "nanogpt.py"


class Recorded(AnalysisProgress):
    __slots__ = ("seen",)

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, int, int]] = []

    def at(self, doing: str, done: int = 0, total: int = 0) -> None:
        super().at(doing, done, total)
        self.seen.append(self.state)


def test_a_python_analysis_says_its_imports_then_each_class_and_function_in_order():
    progress = Recorded()
    report = analyze_text(NANOGPT.read_text(), "nanogpt.py", AnalyzeOptions(functions=("missing",)), progress=progress)
    classes = ["LayerNorm", "CausalSelfAttention", "MLP", "Block", "GPT"]
    assert [m.name for m in report.models] == classes[1:]  # LayerNorm needs its sizes
    assert progress.seen == [("running the file's imports and statements", 0, 0),
                             *[(f"counting `{name}`", i, 6) for i, name in enumerate(classes)],
                             ("counting `missing()`", 5, 6)]


def test_an_execute_run_says_it_imports_the_file(tmp_path):
    # `Net` needs its width, so execute imports the file in a child (where the import it lacks fails).
    path = tmp_path / "needs_sizes.py"
    path.write_text("import torch.nn as nn\nimport not_installed_anywhere\n\n\nclass Net(nn.Module):\n"
                    "    def __init__(self, width):\n        super().__init__()\n        self.fc = nn.Linear(width, 2)\n")
    progress = Recorded()
    analyze_text(path.read_text(), str(path), AnalyzeOptions(execute=True, base_dir=str(tmp_path)), progress=progress)
    assert progress.seen[-1] == ("importing the file to count `Net` on the meta device (execute)", 1, 1)


def test_other_formats_and_no_progress_leave_the_analysis_alone():
    progress = Recorded()
    text = NANOGPT.read_text()
    assert analyze_text('{"model_type": "gpt2"}', "config.json", progress=progress).models
    assert progress.seen == []  # milliseconds: nothing to say
    plain = analyze_text(text, "nanogpt.py")
    shown = analyze_text(text, "nanogpt.py", progress=AnalysisProgress())
    assert [(m.name, m.tree.root.total) for m in plain.models] == [(m.name, m.tree.root.total) for m in shown.models]


@pytest.mark.parametrize("value, delay", [
    (None, DEFAULT_AFTER_S), ("0", 0.0), ("250", 0.25), (" 1200 ", 1.2),
    ("off", None), ("OFF", None), ("never", None),
    ("-5", DEFAULT_AFTER_S), ("half a second", DEFAULT_AFTER_S), ("", DEFAULT_AFTER_S),
])
def test_the_delay_before_a_bar_comes_from_the_environment(value, delay):
    environ = {} if value is None else {"LSP_COUNT_PROGRESS_AFTER_MS": value}
    assert progress_delay(environ) == delay
