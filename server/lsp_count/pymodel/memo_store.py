"""A Python model file's per-class results kept on disk between runs.

Within one language server, the analysis after an edit counts only the classes the edit can
reach (reuse.py). This keeps the same results between runs: ``lsp-count model.py`` and the gate
start afresh each time, and so does an editor session that opens a file it showed before. A run
that finds the file's stored results counts only the classes whose code, or the code they reach,
changed since they were stored; the others come back as they were, their positions moved with
their blocks (reuse.ReusePlan decides, as after an edit). The conditions are the server's own:
the project files the classes read are unchanged (mtime and size), and so are the installed
paths a library's probes read (a package `find_spec` found, the site-packages directories a
version was read from), the module files their imports looked for are still missing, and a count
that read a data file, a config or the HF cache is never kept (see Ctx.disk_reads).

An entry is stored under a hash of the file's path, the Python version, a digest of lsp-count's
own source and where the analysis reads installed packages from; anything else finds no entry.
The cache lives beside the parse trees (tree_cache.cache_dir(), in ``memos/``), never in a
workspace; ``LSP_COUNT_CACHE_DIR=off`` turns both off. Loading makes lsp-count's result records
and nothing else: an entry that names any other class or function is refused, not run. An entry
that cannot be read or written only makes the run count every class.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from lsp_count.pymodel.tree_cache import cache_dir, write_entry

MAX_ENTRIES = 1024  # a 5,000-line file of 300 classes takes about 1.4 MB; most files take a few KB
_FORMAT = 1
_ALLOWED_BUILTINS = frozenset({"frozenset", "set", "complex", "slice"})


@functools.lru_cache(maxsize=1)
def _code_key() -> bytes:
    """The Python version and lsp-count's own source: results another version counted are not read."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{_FORMAT} {sys.version_info[0]}.{sys.version_info[1]}".encode())
    for path in sorted(root.rglob("*.py")):
        try:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.digest()


def _entry(directory: Path, path: str, context: tuple[Any, ...]) -> Path:
    digest = hashlib.blake2b(repr((os.path.abspath(path), context)).encode("utf-8", "surrogatepass"),
                             digest_size=20, key=_code_key())
    return directory / "memos" / f"{digest.hexdigest()}.memo"


class _ResultUnpickler(pickle.Unpickler):
    """Makes lsp-count's report records (lsp_count.core's dataclasses, reuse.ClassResult) and plain
    values; a stored file that names anything else fails to load instead of running it."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("lsp_count.core.") or module == "lsp_count.pymodel.reuse":
            imported = sys.modules.get(module)
            cls = getattr(imported, name, None) if imported is not None else None
            if isinstance(cls, type) and (module != "lsp_count.pymodel.reuse" or name == "ClassResult"):
                return cls
        elif module == "builtins" and name in _ALLOWED_BUILTINS:
            return getattr(builtins, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not one of lsp-count's result records")


def load(path: str, context: tuple[Any, ...]) -> tuple[dict[Any, Any], dict[str, Any]] | None:
    """The classes' results and the files they depend on (PythonMemo.classes, .files) stored for
    the file at ``path``, analysed in ``context``; None when there are none."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        with open(_entry(directory, path, context), "rb") as fh:
            classes, files = _ResultUnpickler(io.BytesIO(fh.read())).load()
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is a miss: every class is counted
        return None
    if not isinstance(classes, dict) or not isinstance(files, dict):
        return None
    return classes, files


def store(path: str, context: tuple[Any, ...], classes: dict[Any, Any], files: dict[str, Any]) -> None:
    """Keep the results for the next run that analyses the file at ``path`` in ``context``."""
    directory = cache_dir()
    if directory is None:
        return
    try:
        blob = pickle.dumps((classes, files), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - results pickle cannot take are not kept
        return
    write_entry(_entry(directory, path, context), blob, MAX_ENTRIES)
