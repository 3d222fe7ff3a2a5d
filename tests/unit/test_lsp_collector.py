"""The language server's garbage-collector policy (lsp/collector.py): analyses run with the
collector paused, what they leave is frozen, and one full collection runs when idle."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref

import pytest

from lsp_count.lsp import server as server_module
from lsp_count.lsp.collector import QuietCollector


class Cycle:
    """An object that only the cyclic collector can free."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def restored_collector():
    enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def _frozen(obj: object) -> bool:
    # gc.get_objects() lists the three generations, not the permanent one.
    return gc.is_tracked(obj) and all(o is not obj for o in gc.get_objects())


def test_run_pauses_the_collector_and_freezes_what_the_analysis_leaves():
    seen = []

    def analysis() -> list[list[int]]:
        seen.append(gc.isenabled())
        return [[i] for i in range(1000)]

    kept = QuietCollector().run(analysis)
    assert seen == [False]
    assert gc.isenabled()
    assert _frozen(kept) and _frozen(kept[500])


def test_run_leaves_a_paused_collector_paused():
    gc.disable()
    QuietCollector().run(lambda: None)
    assert not gc.isenabled()


def test_frozen_cyclic_garbage_waits_for_the_idle_collection():
    collector = QuietCollector()
    ref = weakref.ref(collector.run(Cycle))  # the result is dropped at once: garbage in a cycle
    gc.collect()
    assert ref() is not None  # frozen: a collection does not see it
    assert collector.collect()
    assert ref() is None
    assert gc.get_freeze_count() > 0  # the survivors are frozen again


def test_two_workers_keep_the_collector_paused_until_the_last_is_done():
    collector = QuietCollector()
    entered, release = threading.Event(), threading.Event()
    during = []

    def slow() -> None:
        entered.set()
        release.wait(10)

    worker = threading.Thread(target=collector.run, args=(slow,))
    worker.start()
    assert entered.wait(10)
    collector.run(lambda: None)  # the second worker finishes first
    during.append(gc.isenabled())
    assert not collector.collect()  # never while an analysis runs
    release.set()
    worker.join(10)
    assert during == [False]
    assert gc.isenabled()
    assert collector.collect()


def test_the_server_collects_once_after_the_last_analysis(monkeypatch):
    monkeypatch.setattr(server_module, "IDLE_COLLECT_S", 0.05)
    ls = server_module.LspCountServer()

    async def scenario() -> tuple[object, object]:
        ref = weakref.ref(ls.collector.run(Cycle))
        ls.collect_when_idle()
        first = ls.idle_collect
        ls.collect_when_idle()  # a second analysis finished: the timer starts again
        assert first.cancelled() and ls.idle_collect is not first
        await asyncio.sleep(0.3)
        return ref(), ls.idle_collect

    alive, pending = asyncio.run(scenario())
    assert alive is None and pending is None


def test_the_server_waits_for_a_running_analysis_before_collecting(monkeypatch):
    monkeypatch.setattr(server_module, "IDLE_COLLECT_S", 0.05)
    ls = server_module.LspCountServer()
    entered, release = threading.Event(), threading.Event()

    def analysis() -> Cycle:
        entered.set()
        release.wait(10)
        return Cycle()

    async def scenario() -> tuple[bool, object]:
        ref = weakref.ref(ls.collector.run(Cycle))
        worker = threading.Thread(target=ls.collector.run, args=(analysis,))
        worker.start()
        entered.wait(10)
        ls.collect_when_idle()
        await asyncio.sleep(0.2)  # due while the analysis runs: put off
        waiting = ls.idle_collect is not None and ref() is not None
        release.set()
        worker.join(10)
        await asyncio.sleep(0.3)
        return waiting, ref()

    waiting, alive = asyncio.run(scenario())
    assert waiting and alive is None


def test_a_python_document_analysis_runs_through_the_collector(tmp_path, monkeypatch):
    """The server's own path: the memo's syntax trees end frozen, the idle collection is due."""
    from lsprotocol import types
    from pygls.workspace import Workspace

    monkeypatch.setenv("LSP_COUNT_CACHE_DIR", "off")
    ls = server_module.LspCountServer()
    ls.protocol._workspace = Workspace(tmp_path.as_uri())
    path = tmp_path / "model.py"
    uri = path.as_uri()
    ls.workspace.put_text_document(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=(
        "import torch.nn as nn\n\n\nclass MLP(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.up = nn.Linear(64, 256)\n")))

    async def scenario() -> tuple[object, bool]:
        analysis = await ls.analysis(uri)
        return analysis, ls.idle_collect is not None

    analysis, due = asyncio.run(scenario())
    assert [m.name for m in analysis.report.models] == ["MLP"]
    statements = [s for _, block in ls.memos[uri].blocks[0].values() for s in block]
    assert statements and all(_frozen(s) for s in statements)
    assert due
