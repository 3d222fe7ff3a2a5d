"""The cyclic garbage collector in a long-lived language server.

An analysis of a Python document leaves its syntax trees in the document's PythonMemo, for
the next edit to reuse: about 280,000 objects for a 5,000-line file, all of them young. The
core pauses the collector while it analyses (pymodel/analyzer.py); left at that, the first
allocation afterwards scans all of those objects (about 45 ms on the benchmark file), and
they are scanned again as they age into the older generations: pauses of 50-100 ms on
edits, and on opening a file.

``gc.freeze()`` is Python's answer for long-lived data: objects in the permanent generation
are not scanned. What reference counting frees (the trees of a memo an edit replaced) is
still freed at once. Only cyclic garbage frozen with them waits, until the server has been
idle a while and ``collect`` runs one full collection.
"""

from __future__ import annotations

import gc
import threading
from typing import Any, Callable, TypeVar

T = TypeVar("T")


class QuietCollector:
    """Runs analyses with the collector paused and freezes what they leave; one per server
    (the collector is process-wide). The server's worker threads may analyse at once: the
    collector stays paused until the last of them is done."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was_enabled = False

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            if self._running == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._running += 1
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    gc.freeze()
                    if self._was_enabled:
                        gc.enable()

    def collect(self) -> bool:
        """One full collection, frozen objects included, then what survives is frozen again.
        False, doing nothing, while an analysis runs."""
        with self._lock:
            if self._running:
                return False
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            return True
