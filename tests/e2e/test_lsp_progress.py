"""The language server's progress bar ($/progress) for analyses that take a while, end to end.

The server shows a bar only for an analysis still running after LSP_COUNT_PROGRESS_AFTER_MS
(500 ms by default). Two servers here are started with 0, so every analysis shows one (but
not to a client that does not announce window.workDoneProgress); under the default, quick
analyses show none.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from test_lsp_server import LLAMA, SERVER, change_doc, open_doc, utf8_push, wait_for_diagnostics

ROOT = pathlib.Path(__file__).resolve().parents[2]
NANOGPT = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"
AT_ONCE = {**os.environ, "LSP_COUNT_PROGRESS_AFTER_MS": "0"}


def with_progress(capabilities: types.ClientCapabilities) -> types.ClientCapabilities:
    capabilities.window = types.WindowClientCapabilities(work_done_progress=True)
    return capabilities


@pytest.fixture(scope="module")
def progress_ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("progress")
    (root / ".git").mkdir()
    shutil.copy(NANOGPT, root / "nanogpt.py")
    shutil.copy(LLAMA, root / "config.json")
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=AT_ONCE), scope="module")
async def shown(lsp_client: LanguageClient, progress_ws):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=with_progress(utf8_push()), root_uri=progress_ws.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def default_delay(lsp_client: LanguageClient, progress_ws):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=with_progress(utf8_push()), root_uri=progress_ws.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=AT_ONCE), scope="module")
async def no_capability(lsp_client: LanguageClient, progress_ws):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=utf8_push(), root_uri=progress_ws.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def opened(client: LanguageClient, path: pathlib.Path, language: str) -> str:
    uri = path.as_uri()
    open_doc(client, uri, path.read_text(encoding="utf-8"), language=language)
    await wait_for_diagnostics(client, uri, lambda _items: True, timeout=30)
    return uri


async def finished_bars(client: LanguageClient, count: int, timeout: float = 10.0) -> list[list]:
    """The client's progress bars once ``count`` of them have ended (each: its values in order)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bars = [values for values in client.progress_reports.values()
                if values and isinstance(values[-1], types.WorkDoneProgressEnd)]
        if len(bars) >= count:
            return bars
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} progress bars did not end within {timeout}s: {client.progress_reports}")


async def test_a_python_file_shows_a_bar_with_a_share_and_ends_with_what_it_counted(shown: LanguageClient,
                                                                                   progress_ws):
    await opened(shown, progress_ws / "nanogpt.py", "python")
    [bar] = await finished_bars(shown, 1)
    begin, *reports, end = bar
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "lsp-count: nanogpt.py" and begin.cancellable is False
    assert begin.percentage is not None and 0 <= begin.percentage <= 100  # a Python file says how far it is
    shares = [begin.percentage] + [r.percentage for r in reports if r.percentage is not None]
    assert shares == sorted(shares) and all(0 <= p <= 100 for p in shares), bar
    assert all(isinstance(r, types.WorkDoneProgressReport) and r.message for r in reports), bar
    assert end.message == "4 models counted, 1 not counted exactly"  # LayerNorm(ndim, bias) needs its sizes


async def test_a_config_shows_a_bar_without_a_share(shown: LanguageClient, progress_ws):
    before = len(shown.progress_reports)
    await opened(shown, progress_ws / "config.json", "json")
    bars = await finished_bars(shown, before + 1)
    begin, end = bars[-1][0], bars[-1][-1]
    assert begin.title == "lsp-count: config.json" and begin.percentage is None
    assert end.message == "1 model counted"


async def test_quick_analyses_show_no_bar_by_default(default_delay: LanguageClient, progress_ws):
    # The default waits 500 ms. The first analyses also import the analyser (which a loaded machine
    # may take a while over), so the test is on the next ones: an edit of each document.
    for name, language in (("config.json", "json"), ("nanogpt.py", "python")):
        await opened(default_delay, progress_ws / name, language)
    await asyncio.sleep(0.6)
    before = set(default_delay.progress_reports)
    for name in ("config.json", "nanogpt.py"):
        uri = (progress_ws / name).as_uri()
        default_delay.diagnostics.pop(uri, None)
        change_doc(default_delay, uri, (progress_ws / name).read_text() + "\n", 2)
        await wait_for_diagnostics(default_delay, uri, lambda _items: True, timeout=30)
    await asyncio.sleep(0.6)
    assert set(default_delay.progress_reports) == before


async def test_a_client_without_the_capability_gets_no_bar(no_capability: LanguageClient, progress_ws):
    await opened(no_capability, progress_ws / "nanogpt.py", "python")
    await asyncio.sleep(0.3)
    assert no_capability.progress_reports == {}
