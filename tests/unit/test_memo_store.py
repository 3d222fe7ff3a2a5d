"""Per-class results kept on disk between runs (memo_store.py): a run that starts from them
gives what a fresh analysis gives, counts only what changed, and never trusts a foreign entry."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, SharedTrees, analyze_text
from lsp_count.pymodel import memo_store
from lsp_count.pymodel.reuse import PythonMemo

from test_pymodel_reuse import _EDITS, SOURCES, corpus_text, counted_classes, edited, outcome


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", str(directory))
    return directory


def run(text: str, path: str, options: AnalyzeOptions = AnalyzeOptions()):
    """One run of the CLI or the gate: a new memo that starts from the stored results and stores its own."""
    return analyze_text(text, path, options, SharedTrees().memo_for(path))


def test_a_second_run_counts_nothing_again_and_an_edit_counts_its_classes(cache, tmp_path, monkeypatch) -> None:
    text = corpus_text()
    path = str(tmp_path / "model.py")
    first = run(text, path)
    assert list((cache / "memos").glob("*.memo"))
    counted = counted_classes(monkeypatch)
    again = run(text, path)
    assert counted == [] and outcome(again) == outcome(first)
    change = text.replace("self.n_head = config.n_head", "self.n_head = config.n_head  # heads", 1)
    report = run(change, path)
    assert sorted(counted) == ["Block", "CausalSelfAttention", "GPT"]
    assert outcome(report) == outcome(analyze_text(change, path))
    moved = "# a line above every class\n" + change  # every kept position moves
    assert outcome(run(moved, path)) == outcome(analyze_text(moved, path))


def test_a_project_file_changed_between_runs_is_read_again(cache, tmp_path) -> None:
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    path = str(tmp_path / "model.py")
    text = textwrap.dedent("""
        import torch.nn as nn
        from layers import WIDTH


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(WIDTH, WIDTH)
    """)
    options = AnalyzeOptions(base_dir=str(tmp_path))
    assert run(text, path, options).models[0].tree.total == 72
    (tmp_path / "layers.py").write_text("WIDTH = 16  # wider\n")
    assert run(text, path, options).models[0].tree.total == 272
    (tmp_path / "layers.py").unlink()
    assert not run(text, path, options).models


def test_results_stored_for_one_environment_are_not_read_in_another(cache, tmp_path, monkeypatch) -> None:
    path = str(tmp_path / "model.py")
    text = corpus_text(("mlp.py",))
    run(text, path, AnalyzeOptions(site_packages=()))
    counted = counted_classes(monkeypatch)
    run(text, path, AnalyzeOptions(site_packages=(str(tmp_path),)))
    assert counted  # another key: nothing to start from
    counted.clear()
    run(text, path, AnalyzeOptions(site_packages=(str(tmp_path),)))
    assert counted == []


def test_a_package_installed_or_upgraded_between_runs_changes_what_a_librarys_probes_find(cache, tmp_path) -> None:
    # transformers 5.25's `is_kernels_available()`: find_spec, then the version; installing the
    # package (or another version of it) between runs must not leave the earlier result kept.
    site = tmp_path / "site"
    (site / "fastlib").mkdir(parents=True)
    (site / "fastlib" / "__init__.py").write_text(textwrap.dedent("""
        import importlib.metadata
        import importlib.util
        import torch.nn as nn

        FAST = importlib.util.find_spec("kernelpkg") is not None and importlib.metadata.version("kernelpkg") >= "2"


        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8) if FAST else nn.Identity()
    """))
    path = str(tmp_path / "model.py")
    text = "import torch.nn as nn\nfrom fastlib import Block\n\n\nclass Net(nn.Module):\n    def __init__(self):\n" \
           "        super().__init__()\n        self.block = Block()\n"
    options = AnalyzeOptions(read_packages=("fastlib",), site_packages=(str(site),))
    assert run(text, path, options).models[0].tree.total == 0
    (site / "kernelpkg").mkdir()
    (site / "kernelpkg" / "__init__.py").write_text("")
    (site / "kernelpkg-1.0.dist-info").mkdir()
    assert run(text, path, options).models[0].tree.total == 0  # too old
    (site / "kernelpkg-1.0.dist-info").rename(site / "kernelpkg-2.0.dist-info")
    assert run(text, path, options).models[0].tree.total == 72
    assert run(text, path, options).models[0].tree.total == 72


def test_an_entry_that_names_anything_but_result_records_is_refused_not_run(cache, tmp_path, monkeypatch) -> None:
    path = str(tmp_path / "model.py")
    text = corpus_text(("mlp.py",))
    expected = outcome(run(text, path))
    [entry] = (cache / "memos").glob("*.memo")
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    entry.write_bytes(pickle.dumps(({"x": Payload()}, {}), protocol=pickle.HIGHEST_PROTOCOL))
    counted = counted_classes(monkeypatch)
    assert outcome(run(text, path)) == expected and counted and not marker.exists()
    entry.write_bytes(b"not a pickle")
    assert outcome(run(text, path)) == expected


def test_no_cache_directory_means_nothing_is_stored(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", "off")
    path = str(tmp_path / "model.py")
    text = corpus_text(("mlp.py",))
    run(text, path)
    counted = counted_classes(monkeypatch)
    run(text, path)
    assert counted and memo_store.load(path, ((), (), ())) is None


def test_a_read_only_cache_only_costs_the_recount(cache, tmp_path, monkeypatch) -> None:
    cache.mkdir()
    (cache / "memos").write_text("a file where the directory would be")
    path = str(tmp_path / "model.py")
    text = corpus_text(("mlp.py",))
    assert outcome(run(text, path)) == outcome(analyze_text(text, path))


def test_the_cli_reuses_a_stored_run_and_says_the_same(cache, tmp_path) -> None:
    model = tmp_path / "model.py"
    model.write_text(corpus_text())
    command = [sys.executable, "-m", "lsp_count", "--json", str(model)]
    env = {**os.environ, "LSP_COUNT_CACHE_DIR": str(cache)}
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert list((cache / "memos").glob("*.memo"))
    second = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert second.stdout == first.stdout and '"total"' in first.stdout


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_EDITS, st.integers(0, 10**6)), min_size=1, max_size=4))
# Two copies of a docstring's first line leave a quote open; then a class the registry uses breaks.
@example([("duplicate", 15236), ("duplicate", 15236), ("break", 657950)])
def test_any_sequence_of_edits_between_runs_gives_what_a_fresh_analysis_gives(cache, tmp_path, edits) -> None:
    text = corpus_text(tuple(SOURCES))
    path = str(tmp_path / "model.py")
    for entry in (cache / "memos").glob("*.memo") if (cache / "memos").is_dir() else ():
        entry.unlink()
    run(text, path)
    for kind, seed in edits:
        text = edited(text, kind, seed)
        assert outcome(run(text, path)) == outcome(analyze_text(text, path))
