"""Project files' parse trees kept on disk between runs, as Python keeps their bytecode.

Most of what analysing a model file costs is reading the files it imports: a transformers model
reads ``modeling_utils.py``, ``configuration_utils.py`` and a dozen more, the same for every model,
and parsing them was about a third of a run. A tree is stored under a hash of the file's text (so
a changed file is parsed again, and an unchanged one is found wherever it is), the Python
version (its syntax tree classes) and this package's reading code.

The cache lives in the user's cache directory (``$XDG_CACHE_HOME/lsp-count/trees``, else
``~/.cache/lsp-count/trees``), never in a workspace. ``LSP_COUNT_CACHE_DIR`` moves it, and
``LSP_COUNT_CACHE_DIR=off`` turns it off. Loading is restricted to syntax tree classes: a file
that names anything else is refused, not run. A cache that cannot be read or written is only
slower: the file is parsed.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import io
import os
import pickle
import sys
import threading
from pathlib import Path
from typing import Any

MAX_ENTRIES = 4096  # about 60 KB each (transformers' 5,000-line modeling_utils.py: 0.13 MB)
_ALLOWED_BUILTINS = frozenset({"Ellipsis", "complex"})  # constants a tree holds besides str, int, ...


def cache_dir() -> Path | None:
    """Where trees are kept; None when the cache is off."""
    chosen = os.environ.get("LSP_COUNT_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "false", "no") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lsp-count" / "trees"


@functools.lru_cache(maxsize=1)
def _reader_key() -> bytes:
    """What else a stored tree depends on: the Python version and the code that made it (the
    loader's source, so that a changed way of cutting bodies never meets an old tree)."""
    from lsp_count.pymodel import loader

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{sys.version_info[0]}.{sys.version_info[1]}".encode())
    for module in (loader, sys.modules[__name__]):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.digest()


def _entry(directory: Path, text: str) -> Path:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20, key=_reader_key())
    return directory / f"{digest.hexdigest()}.tree"


class _TreeUnpickler(pickle.Unpickler):
    """Makes syntax tree nodes and nothing else: a stored file that names any other class or
    function (a tampered cache) fails to load instead of running it."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "ast":
            cls = getattr(ast, name, None)
            if isinstance(cls, type) and issubclass(cls, ast.AST):
                return cls
        elif module == "builtins" and name in _ALLOWED_BUILTINS:
            return getattr(builtins, name)
        elif module == "lsp_count.pymodel.loader" and name == "DeferredBody":
            from lsp_count.pymodel.loader import DeferredBody

            return DeferredBody
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a syntax tree")


def load(text: str, path: str) -> ast.Module | None:
    """The stored tree of ``text`` (a file at ``path``), or None."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        with open(_entry(directory, text), "rb") as fh:
            tree, deferred = _TreeUnpickler(io.BytesIO(fh.read())).load()
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss; the file is parsed
        return None
    if not isinstance(tree, ast.Module) or not isinstance(deferred, list):
        return None
    for body in deferred:  # the text and path are not stored: this file's are given back
        body.text, body.path = text, path
    return tree


def store(text: str, tree: ast.Module) -> None:
    """Keep ``tree`` (``text``'s, as parse_deferring_bodies made it) for the next run."""
    directory = cache_dir()
    if directory is None:
        return
    from lsp_count.pymodel.loader import DeferredBody

    deferred = [node.deferred for node in ast.walk(tree)
                if isinstance(getattr(node, "deferred", None), DeferredBody)]
    saved = [(body.text, body.path) for body in deferred]
    try:
        for body in deferred:
            body.text = body.path = None  # type: ignore[assignment]  # the text is the key, not stored twice
        blob = pickle.dumps((tree, deferred), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a tree pickle cannot take is not kept
        return
    finally:
        for body, (text_of, path_of) in zip(deferred, saved):
            body.text, body.path = text_of, path_of
    write_entry(_entry(directory, text), blob, MAX_ENTRIES)


def write_entry(entry: Path, blob: bytes, max_entries: int) -> None:
    """Write one cache entry whole (a reader never sees half of it) and keep the entries of its
    directory with its suffix at most ``max_entries``. A read-only or full disk writes nothing:
    the next run only does the work again. Shared with memo_store.py."""
    # The language server's two worker threads and the gate's processes may store one file at once.
    partial = entry.with_name(f"{entry.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial.write_bytes(blob)
        os.replace(partial, entry)
    except OSError:
        try:
            partial.unlink()
        except OSError:
            pass
        return
    _prune(entry.parent, entry.suffix, max_entries)


def _prune(directory: Path, suffix: str, max_entries: int) -> None:
    """Keep the cache bounded: past ``max_entries``, the least recently written quarter goes."""
    try:
        entries = [e for e in os.scandir(directory) if e.name.endswith(suffix)]
    except OSError:
        return
    if len(entries) <= max_entries:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for entry in entries[:len(entries) // 4]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
