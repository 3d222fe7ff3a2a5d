"""The core's front door: a document's text in, a FileReport out.

Formats are dispatched by file name; each format module provides
``analyze(text, path, options) -> FileReport``.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from lsp_count.core.readers.json_reader import read_json
from lsp_count.core.readers.text import MAX_DOCUMENT_BYTES, decode_bytes
from lsp_count.core.report import FileReport, unrecognized
from lsp_count.core.source import Problem

if TYPE_CHECKING:  # the core imports no format module until a document needs it
    from lsp_count.pymodel.reuse import PythonMemo

# The installed model libraries a Python model file's imports are read from, statically, as the
# project's own files are (their model files are compared with torch in the tests).
DEFAULT_READ_PACKAGES = ("transformers", "timm", "peft", "torchvision")


@dataclass(frozen=True)
class AnalyzeOptions:
    # Count unknown model types by instantiating them with transformers in a subprocess.
    allow_transformers: bool = False
    # Execute Python model files (meta device, subprocess). Off unless the user opts in.
    execute: bool = False
    # Where to look for base models named by hub id (None: HF_HOME / ~/.cache/huggingface).
    hf_cache: str | None = None
    # Directory relative paths in a document are resolved against.
    base_dir: str | None = None
    # Python files: module-level functions also counted as models, each by what calling it with no
    # arguments returns (timm's ``resnet50()``); reported as ``name()``.
    functions: tuple[str, ...] = ()
    # Python files: False counts the functions alone (the hover on a function's `def`: the file's
    # classes were counted by the document's own analysis).
    classes: bool = True
    # Python files: the installed packages read where the file imports them (none: `()`).
    read_packages: tuple[str, ...] = DEFAULT_READ_PACKAGES
    # Python files: the site-packages directories they are read from; None finds the project's
    # environments (pymodel/environments.py: $VIRTUAL_ENV, the project's .venv, lsp-count's own).
    site_packages: tuple[str, ...] | None = None
    # Python scripts: the command line they are run with (``("--n_layer", "12")``), which their
    # argparse ``parse_args()`` and ``sys.argv`` read; None: a command line that gives none.
    script_args: tuple[str, ...] | None = None


class AnalysisProgress:
    """How far a running analysis has got, for a caller on another thread to show (the language
    server's progress bar). The analysis writes ``state``, the caller reads it whenever it likes:
    one attribute holding an immutable tuple, so a reader never sees half of an update."""

    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state: tuple[str, int, int] = ("", 0, 0)  # (what it is doing, steps done, steps in all)

    def at(self, doing: str, done: int = 0, total: int = 0) -> None:
        self.state = (doing, done, total)


# suffix -> "module:function"
FORMATS: dict[str, str] = {
    ".json": "lsp_count.core.analyze:analyze_json",
    ".yaml": "lsp_count.formats.yaml_formats:analyze_yaml",
    ".yml": "lsp_count.formats.yaml_formats:analyze_yaml",
    ".py": "lsp_count.pymodel.analyzer:analyze_python",
}


def format_for(path: str) -> str | None:
    return FORMATS.get(PurePath(path).suffix.lower())


def analyze_text(text: str, path: str, options: AnalyzeOptions = AnalyzeOptions(),
                 memo: PythonMemo | None = None, progress: AnalysisProgress | None = None) -> FileReport:
    """``memo``: for a Python file, a ``PythonMemo`` that successive analyses of one document share
    (the language server's); classes an edit cannot have changed are taken from it. ``progress``:
    where a Python file's analysis says which class it is counting (the other formats take
    milliseconds and say nothing)."""
    target = format_for(path) or FORMATS[".json"]
    module, func = target.split(":")
    try:
        analyzer = getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError):
        return FileReport(path, (), (Problem("info", "LC002", f"{PurePath(path).suffix} files are not supported yet"),),
                          recognized=False)
    if target == FORMATS[".py"] and (memo is not None or progress is not None):
        return analyzer(text, path, options, memo, progress)
    return analyzer(text, path, options)


class SharedTrees:
    """Lends the parse trees of the project files one Python file's analysis read to the next
    file's, within one run of the CLI or the gate (a package's model files import the same
    modules), and starts each Python file from the per-class results an earlier run stored
    (pymodel/memo_store.py): only the classes whose code changed since are counted."""

    def __init__(self) -> None:
        self.trees: dict[str, Any] = {}

    def memo_for(self, path: str) -> PythonMemo | None:
        if format_for(path) != FORMATS[".py"]:
            return None
        from lsp_count.pymodel.reuse import PythonMemo

        return PythonMemo(self.trees, from_disk=True, to_disk=True)


def analyze_bytes(data: bytes, path: str, options: AnalyzeOptions = AnalyzeOptions(),
                  memo: PythonMemo | None = None) -> FileReport:
    decoded = decode_bytes(data)
    if decoded.text is None:
        assert decoded.problem is not None
        return FileReport(path, (), (decoded.problem,))
    return analyze_text(decoded.text, path, options, memo)


def analyze_path(path: str, options: AnalyzeOptions = AnalyzeOptions(), memo: PythonMemo | None = None) -> FileReport:
    from lsp_count.core.catalog import analyze_model_id, looks_like_hub_id

    if not os.path.exists(path) and looks_like_hub_id(path):
        # Not a file: a model named by hub id, resolved offline (catalog, then the HF cache).
        return analyze_model_id(path, options)
    if path.endswith((".safetensors", ".safetensors.index.json")):
        # Headers only: a checkpoint is gigabytes and never read whole.
        from lsp_count.core.weights import analyze_weights_path

        return analyze_weights_path(path, options)
    try:
        size = os.path.getsize(path)
        if size > MAX_DOCUMENT_BYTES:
            return FileReport(path, (), (Problem(
                "error", "LC003", f"file is {size / 2**20:.1f} MiB; lsp-count reads model files up to {MAX_DOCUMENT_BYTES // 2**20} MiB"),))
        with open(path, "rb") as fh:
            data = fh.read()
    except IsADirectoryError:
        return FileReport(path, (), (Problem("error", "LC003", "is a directory"),))
    except OSError as exc:
        return FileReport(path, (), (Problem("error", "LC003", exc.strerror or str(exc)),))
    if options.base_dir is None:
        options = AnalyzeOptions(**{**options.__dict__, "base_dir": os.path.dirname(os.path.abspath(path))})
    return analyze_bytes(data, path, options, memo)


def analyze_json(text: str, path: str, options: AnalyzeOptions = AnalyzeOptions()) -> FileReport:
    from lsp_count.core.hf_config import count_config, looks_like_config

    doc = read_json(text)
    problems = list(doc.problems)
    root = doc.root
    if root is None:
        return FileReport(path, (), tuple(problems), recognized=bool(problems), lines=doc.lines)
    if not root.is_mapping():
        return unrecognized(path, problems, "no model config recognized: the document is not a JSON object",
                            root.span, doc.lines)
    if not looks_like_config(root):
        return unrecognized(path, problems,
                            "no model config recognized (no \"model_type\", \"architectures\" or model sizes)",
                            root.span, doc.lines)
    name = _model_name(path)
    report, count_problems = count_config(root, name)
    problems.extend(count_problems)
    if report is None and options.allow_transformers and any(p.code == "LC101" for p in count_problems):
        from lsp_count.core.fallback import count_with_transformers

        report, fallback_problems = count_with_transformers(root, name)
        problems = [p for p in problems if p.code != "LC101"] + list(fallback_problems)
    return FileReport(path, (report,) if report else (), tuple(problems), lines=doc.lines)


def _model_name(path: str) -> str:
    p = PurePath(path)
    if p.name == "config.json" and p.parent.name:
        return p.parent.name
    return p.stem if p.name else path

