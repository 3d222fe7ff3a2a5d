"""The whole suite, and every server, hook and CLI process it starts, keeps project files'
parse trees (pymodel/tree_cache.py) in a directory of its own, never in the user's cache."""

from __future__ import annotations

import os
import shutil
import tempfile

_OWN_CACHE: list[str] = []


def pytest_configure(config) -> None:  # noqa: ARG001 - pytest's hook signature
    if "LSP_COUNT_CACHE_DIR" not in os.environ:
        _OWN_CACHE.append(tempfile.mkdtemp(prefix="lsp-count-trees-"))
        os.environ["LSP_COUNT_CACHE_DIR"] = _OWN_CACHE[0]


def pytest_unconfigure(config) -> None:  # noqa: ARG001
    for path in _OWN_CACHE:
        shutil.rmtree(path, ignore_errors=True)
        os.environ.pop("LSP_COUNT_CACHE_DIR", None)
