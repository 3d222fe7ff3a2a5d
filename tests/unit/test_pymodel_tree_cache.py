"""Project files' parse trees kept on disk (tree_cache.py): the same counts from a stored tree as
from a parse, a changed file parsed again, and a damaged, foreign or unwritable cache only slower."""

from __future__ import annotations

import os
import pickle
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.pymodel import loader, tree_cache

# A project module long enough to have its function bodies cut out (loader.WHOLE_BELOW_LINES).
LAYERS = textwrap.dedent('''
    import torch.nn as nn


    def width(n):
        return n * 2


    def broken():
        return (1 +


    class Unused(nn.Module):
        def forward(self, x):
            return x
''') + "".join(f"\n\ndef helper_{i}(x):\n    y = x + {i}\n    return y\n" for i in range(12)) + textwrap.dedent('''


    class Block(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, width(dim))

        def forward(self, x):
            return self.fc(x)
''')

MAIN = textwrap.dedent('''
    import torch.nn as nn
    from .layers import Block, broken


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block(4)
            self.b = Block()


    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(broken(), 2)
''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", str(cache))
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "layers.py").write_text(LAYERS)
    (package / "model.py").write_text(MAIN)
    return package, cache


def analyse(package):
    report = analyze_text(MAIN, str(package / "model.py"), AnalyzeOptions(base_dir=str(package.parent)))
    return ({m.name: m.tree.total for m in report.models},
            sorted((p.code, p.message) for p in report.problems))


def test_a_stored_tree_counts_as_a_parse_does(project, monkeypatch) -> None:
    package, cache = project
    parsed = analyse(package)
    assert parsed[0] == {"Model": 4 * 8 + 8 + 8 * 16 + 16}
    # The body that does not parse is found when it is called, naming its file and line.
    assert any("`broken` does not parse" in m and "line 10 of" in m and "layers.py" in m for _, m in parsed[1])
    assert len(list(cache.glob("*.tree"))) == 1  # layers.py (the analysed file itself is not stored)

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed again although the tree was stored")

    monkeypatch.setattr(loader, "parse_deferring_bodies", no_parse)
    assert analyse(package) == parsed


def test_a_changed_file_is_parsed_again(project) -> None:
    package, cache = project
    analyse(package)
    (package / "layers.py").write_text(LAYERS.replace("return n * 2", "return n * 3"))
    assert analyse(package)[0] == {"Model": 4 * 12 + 12 + 8 * 24 + 24}
    assert len(list(cache.glob("*.tree"))) == 2


def test_a_damaged_entry_is_a_miss(project) -> None:
    package, cache = project
    expected = analyse(package)
    (entry,) = cache.glob("*.tree")
    entry.write_bytes(entry.read_bytes()[:100])
    assert analyse(package) == expected


class _Runs:
    """What a tampered cache might hold: an object whose unpickling would run a command."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_foreign_entry_is_refused_not_run(project, tmp_path) -> None:
    package, cache = project
    expected = analyse(package)
    (entry,) = cache.glob("*.tree")
    marker = tmp_path / "ran"
    entry.write_bytes(pickle.dumps((_Runs(str(marker)), [])))
    assert analyse(package) == expected
    assert not marker.exists()


def test_off_and_unwritable_caches_only_parse(project, monkeypatch, tmp_path) -> None:
    package, cache = project
    expected = analyse(package)
    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", "off")
    assert tree_cache.cache_dir() is None
    assert analyse(package) == expected
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", str(blocked / "trees"))
    assert analyse(package) == expected


def test_the_default_place_is_the_user_cache(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("LSP_COUNT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tree_cache.cache_dir() == tmp_path / "lsp-count" / "trees"


def test_the_cache_stays_bounded(project, monkeypatch) -> None:
    package, cache = project
    monkeypatch.setattr(tree_cache, "MAX_ENTRIES", 8)
    cache.mkdir()
    for i in range(12):
        (cache / f"{i:040x}.tree").write_bytes(b"old")
        os.utime(cache / f"{i:040x}.tree", (i, i))
    analyse(package)
    left = sorted(p.name for p in cache.glob("*.tree"))
    assert len(left) == 13 - 13 // 4
    assert f"{0:040x}.tree" not in left and f"{11:040x}.tree" in left


def test_a_failed_store_leaves_no_partial_file(project, monkeypatch) -> None:
    package, cache = project

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tree_cache.os, "replace", full_disk)
    expected_counts = analyse(package)[0]
    assert expected_counts == {"Model": 4 * 8 + 8 + 8 * 16 + 16}
    assert list(cache.iterdir()) == []
