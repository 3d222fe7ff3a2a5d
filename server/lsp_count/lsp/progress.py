"""A progress bar in the editor for an analysis that takes a while (server-initiated ``$/progress``).

Most analyses take milliseconds, and a bar that flashes at every keystroke is noise, so one
appears only once an analysis has run ``LSP_COUNT_PROGRESS_AFTER_MS`` (500 ms unless set; 0
shows every analysis, ``off`` none). The slow ones are Python files: the first analysis of a
transformers model file reads about sixty package files, and ``execute`` imports the file with
torch in a subprocess. The bar says what the analysis is doing (the file's imports, then each
class it counts, as a share of the file's classes) and ends with what it counted. Only clients
that announce ``window.workDoneProgress`` get one.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_count.core.analyze import AnalysisProgress

if TYPE_CHECKING:
    from lsp_count.lsp.analysis import Analysis

AFTER_MS_VARIABLE = "LSP_COUNT_PROGRESS_AFTER_MS"
DEFAULT_AFTER_S = 0.5
POLL_S = 0.1  # how often a shown bar reads how far the analysis has got
CREATE_TIMEOUT_S = 5.0  # a client that never answers window/workDoneProgress/create gets no bar


def progress_delay(environ: Mapping[str, str]) -> float | None:
    """Seconds an analysis runs before its bar appears; None: never. A value that is not a whole
    number of milliseconds (nor ``off``) leaves the default."""
    raw = environ.get(AFTER_MS_VARIABLE, "").strip().lower()
    if raw in ("off", "never", "none", "false"):
        return None
    if raw.isdigit():
        return int(raw) / 1000
    return DEFAULT_AFTER_S


def client_shows_progress(capabilities: types.ClientCapabilities) -> bool:
    window = capabilities.window
    return bool(window is not None and window.work_done_progress)


def counted(analysis: Analysis) -> str:
    """The bar's last words: what the analysis found."""
    models = len(analysis.models)
    missed = sum(p.code == "LC101" for p in analysis.report.problems)
    text = f"{models} model{'' if models == 1 else 's'} counted"
    return text + (f", {missed} not counted exactly" if missed else "")


async def show_progress(server: Any, running: asyncio.Future[Analysis], name: str, progress: AnalysisProgress,
                        after_s: float, measured: bool) -> None:
    """Waits ``after_s`` for ``running``; if it is still running, shows a bar for it until it ends.
    ``measured``: the analysis says how far it has got (a Python file): the bar has a percentage.
    Never raises: a client that refuses the bar, or a connection closing, only means no bar."""
    await asyncio.wait({running}, timeout=after_s)
    if running.done():
        return
    token = f"lsp-count/{uuid.uuid4()}"
    reporter = server.work_done_progress
    try:
        await asyncio.wait_for(reporter.create_async(token), CREATE_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - the client said no, never answered or is gone: no bar
        return
    try:
        shown = progress.state  # once: what the bar begins with is what later reports are told apart from
        doing, done, total = shown
        reporter.begin(token, types.WorkDoneProgressBegin(
            title=f"lsp-count: {name}", message=doing or "analysing", cancellable=False,
            percentage=_percent(done, total) if measured else None))
        while not running.done():
            await asyncio.wait({running}, timeout=POLL_S)
            state = progress.state
            if state != shown:
                shown = state
                doing, done, total = state
                reporter.report(token, types.WorkDoneProgressReport(
                    message=doing, percentage=_percent(done, total) if measured and total else None))
        end = counted(running.result()) if not running.cancelled() and running.exception() is None else None
        reporter.end(token, types.WorkDoneProgressEnd(message=end))
    except Exception:  # noqa: BLE001 - a closed connection while shutting down: nothing to tell
        pass
    finally:
        reporter.tokens.pop(token, None)  # pygls keeps every token it was given; this one is done


def _percent(done: int, total: int) -> int:
    return min(100, done * 100 // total) if total else 0

