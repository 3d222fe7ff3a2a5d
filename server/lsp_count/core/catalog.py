"""Base models named by hub id, resolved offline.

Order: a directory of that name holding config.json (transformers' from_pretrained
takes a local directory first), the catalog bundled with lsp-count
(``lsp_count/catalog/<org>/<name>.json``, real config.json files), then the local
Hugging Face cache (``$HF_HUB_CACHE`` or ``$HF_HOME/hub`` or
``~/.cache/huggingface/hub``: ``models--org--name/snapshots/<commit>/config.json``),
then a local path (the config file itself). A legacy one-part id (``gpt2``) is also
looked up under the organisations its model moved to (LEGACY_ORGS). Nothing is ever
fetched from a network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_count.core.readers.json_reader import read_json
from lsp_count.core.readers.text import MAX_DOCUMENT_BYTES, decode_bytes
from lsp_count.core.source import Problem, SourceNode, Span

if TYPE_CHECKING:
    from lsp_count.core.report import FileReport

CATALOG_DIR = Path(__file__).resolve().parent.parent / "catalog"

# The Hub's first models had no organisation (``gpt2``, ``bert-base-uncased``, ``t5-small``). They
# moved to these organisations under the same names, and the Hub redirects the old ids, which
# tutorials and scripts still use: a one-part id is looked up in each of them, in this order.
LEGACY_ORGS = ("openai-community", "google-bert", "distilbert", "FacebookAI", "albert", "google-t5", "xlnet")


@dataclass(frozen=True)
class ResolvedModel:
    name: str
    root: SourceNode  # the config mapping
    source: str  # "bundled catalog", "Hugging Face cache", "local path"
    path: str  # the config.json read


@dataclass(frozen=True)
class Lookup:
    found: ResolvedModel | None
    searched: tuple[str, ...]  # where it looked, for the "not found" message
    problems: tuple[Problem, ...] = ()


def hub_cache_dirs(hf_cache: str | None = None) -> tuple[Path, ...]:
    """Hub cache directories, most specific first (the rules huggingface_hub follows)."""
    dirs: list[Path] = []
    if hf_cache:
        # Accept either HF_HOME-like (has hub/) or the hub directory itself.
        dirs += [Path(hf_cache) / "hub", Path(hf_cache)]
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]))
    if os.environ.get("HF_HOME"):
        dirs.append(Path(os.environ["HF_HOME"]) / "hub")
    xdg = os.environ.get("XDG_CACHE_HOME")
    dirs.append(Path(xdg) / "huggingface" / "hub" if xdg else Path.home() / ".cache" / "huggingface" / "hub")
    seen: list[Path] = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return tuple(seen)


def looks_like_hub_id(name: str) -> bool:
    parts = name.split("/")
    return 1 <= len(parts) <= 2 and all(parts) and not name.startswith((".", "/", "~")) and \
        not name.endswith((".json", ".yaml", ".yml", ".py", ".safetensors"))


def catalog_ids() -> tuple[str, ...]:
    return tuple(sorted(f"{p.parent.name}/{p.stem}" for p in CATALOG_DIR.glob("*/*.json")))


def _read_config(path: Path, name: str, source: str) -> tuple[ResolvedModel | None, tuple[Problem, ...]]:
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            return None, (Problem("error", "LC104", f"{path} is too large to be a config.json"),)
        decoded = decode_bytes(path.read_bytes())
    except OSError as exc:
        return None, (Problem("error", "LC104", f"cannot read {path}: {exc.strerror or exc}"),)
    if decoded.text is None:
        return None, (decoded.problem,) if decoded.problem else ()
    doc = read_json(decoded.text)
    if doc.root is None or not doc.root.is_mapping() or any(p.severity == "error" for p in doc.problems):
        return None, (Problem("error", "LC104", f"{path} is not a valid config.json"),)
    return ResolvedModel(name, doc.root, source, str(path)), ()


def _hub_names(name: str) -> tuple[str, ...]:
    """The repository ids a hub id may be stored under: itself, and for a one-part (legacy)
    id, the organisations its model moved to."""
    return (name,) if "/" in name else (name,) + tuple(f"{org}/{name}" for org in LEGACY_ORGS)


def _catalog_path(name: str) -> Path | None:
    if "/" not in name:
        return next((p for p in map(_catalog_path, _hub_names(name)[1:]) if p is not None), None)
    org, model = name.split("/", 1)
    exact = CATALOG_DIR / org / f"{model}.json"
    if exact.is_file():
        return exact
    # Hub ids are case-insensitive on the Hub; be as forgiving.
    lowered = name.lower()
    for p in CATALOG_DIR.glob("*/*.json"):
        if f"{p.parent.name}/{p.stem}".lower() == lowered:
            return p
    return None


def _cache_snapshot(hub: Path, name: str) -> Path | None:
    repo = hub / ("models--" + name.replace("/", "--"))
    if not repo.is_dir():
        return None
    snapshots = repo / "snapshots"
    ref = repo / "refs" / "main"
    if ref.is_file():
        commit = ref.read_text(encoding="utf-8", errors="replace").strip()
        candidate = snapshots / commit / "config.json"
        if candidate.is_file():
            return candidate
    # No refs/main (a revision was pinned): take the newest snapshot that has a config.
    found = sorted((p for p in snapshots.glob("*/config.json") if p.is_file()), key=lambda p: p.stat().st_mtime, reverse=True)
    return found[0] if found else None


def resolve_model(name: str, hf_cache: str | None = None, base_dir: str | None = None) -> Lookup:
    """Find the config of the model ``name`` (hub id or path) without any network access."""
    searched: list[str] = []
    problems: list[Problem] = []
    local = Path(os.path.expanduser(name))
    if not local.is_absolute() and base_dir:
        local = Path(base_dir) / local
    if looks_like_hub_id(name) and (local / "config.json").is_file():
        # A directory of that name comes first, as transformers' from_pretrained takes it (a
        # model saved as `gpt2/` beside the file is that model, not the Hub's).
        found, probs = _read_config(local / "config.json", name, "local path")
        if found:
            return Lookup(found, (f"local path {local}",))
    if looks_like_hub_id(name):
        searched.append("the bundled catalog")
        cat = _catalog_path(name)
        if cat is not None:
            found, probs = _read_config(cat, name, "bundled catalog")
            if found:
                return Lookup(found, tuple(searched))
            problems += probs
        for hub in hub_cache_dirs(hf_cache):
            searched.append(str(hub))
            for stored in _hub_names(name):  # `gpt2` downloaded as `gpt2` or as `openai-community/gpt2`
                snap = _cache_snapshot(hub, stored)
                if snap is not None:
                    found, probs = _read_config(snap, name, "Hugging Face cache")
                    if found:
                        return Lookup(found, tuple(searched))
                    problems += probs
    searched.append(f"local path {local}")
    target = local / "config.json" if local.is_dir() else local
    if target.is_file():
        found, probs = _read_config(target, name, "local path")
        if found:
            return Lookup(found, tuple(searched))
        problems += probs
    return Lookup(None, tuple(searched), tuple(problems))


def not_found_problem(name: str, lookup: Lookup, span: Span | None) -> Problem:
    where = "; ".join(lookup.searched)
    return Problem(
        "error", "LC104",
        f"base model \"{name}\" not found offline (looked in: {where}). lsp-count never downloads: "
        f"download it once with `huggingface-cli download {name} config.json` (into the HF cache), "
        "or name a local directory that holds its config.json",
        span,
    )


def analyze_model_id(name: str, options) -> FileReport:
    """A FileReport for a model named by hub id (``lsp-count meta-llama/Meta-Llama-3-8B``)."""
    from lsp_count.core.hf_config import count_config
    from lsp_count.core.report import FileReport, relocated

    lookup = resolve_model(name, options.hf_cache, options.base_dir)
    if lookup.found is None:
        return FileReport(name, (), lookup.problems + (not_found_problem(name, lookup, None),))
    report, problems = count_config(lookup.found.root, name)
    info = Problem("info", "LC106", f"{name}: config from the {lookup.found.source} ({lookup.found.path})")
    # The config's positions are in the catalog file, not in anything the user named.
    return FileReport(name, (relocated(report, None),) if report else (), (info,) + tuple(replace(p, span=None) for p in problems))
