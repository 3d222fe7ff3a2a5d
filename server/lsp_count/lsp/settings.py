"""The client's ``lsp-count`` settings section, read defensively.

Clients send this object three ways (``initializationOptions``, a
``workspace/configuration`` answer, a pushed ``workspace/didChangeConfiguration``),
nested (``{"inlayHints": {"enabled": false}}``) or flat (``{"inlayHints.enabled": false}``),
sometimes wrapped in ``{"lsp-count": {...}}``. A wrong value is dropped with a
warning instead of failing the server: the user's other settings still apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

SECTION = "lsp-count"

# The memory/budget keys the client may override, in the CLI and budget file vocabulary.
_OVERRIDES = ("gpu", "mode", "dtype", "context", "batch")


@dataclass(frozen=True)
class ClientSettings:
    gpu: str | None = None
    mode: str | None = None
    dtype: str | None = None
    context: int | None = None
    batch: int | None = None
    inlay_hints: bool = True
    code_lens: bool = True
    execute: bool = False
    # Python model files: the installed packages read (None: the budget file's, else the default)
    # and the site-packages directories they are read from (None: the environments found).
    read_packages: tuple[str, ...] | None = None
    site_packages: tuple[str, ...] | None = None

    def overrides(self) -> dict[str, object]:
        """The memory settings the user set, to lay over the workspace budget's."""
        return {k: getattr(self, k) for k in _OVERRIDES if k != "gpu" and getattr(self, k) is not None}


def _lookup(raw: Mapping[str, object], dotted: str) -> object:
    if dotted in raw:
        return raw[dotted]
    node: object = raw
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _section(raw: object) -> Mapping[str, object] | None:
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    # Flat "lsp-count.gpu" keys, as some clients push them.
    flat = {k[len(SECTION) + 1:]: v for k, v in raw.items() if isinstance(k, str) and k.startswith(SECTION + ".")}
    return flat or raw


def parse_client_settings(raw: object) -> tuple[ClientSettings, tuple[str, ...]]:
    """Settings from whatever the client sent; warnings name each value that was ignored."""
    section = _section(raw)
    if section is None:
        return ClientSettings(), ()
    warnings: list[str] = []
    values: dict[str, object] = {}

    def text(key: str) -> None:
        v = _lookup(section, key)
        if v is None or v == "":  # VS Code sends "" for "not set"
            return
        if isinstance(v, str):
            values[key] = v.strip()
        else:
            warnings.append(f"{SECTION}.{key}: expected a string, got {v!r}")

    def whole(key: str) -> None:
        v = _lookup(section, key)
        if v is None or v == "":
            return
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 1:
            values[key] = v
        else:
            warnings.append(f"{SECTION}.{key}: expected a whole number ≥ 1, got {v!r}")

    def flag(key: str, name: str) -> None:
        v = _lookup(section, key)
        if v is None:
            return
        if isinstance(v, bool):
            values[name] = v
        else:
            warnings.append(f"{SECTION}.{key}: expected true or false, got {v!r}")

    def strings(key: str, name: str, check: str) -> None:
        v = _lookup(section, key)
        if v is None:
            return
        if isinstance(v, list) and all(isinstance(x, str) and x and (check != "package" or x.isidentifier()) for x in v):
            values[name] = tuple(v)
        else:
            what = "package names" if check == "package" else "directories"
            warnings.append(f"{SECTION}.{key}: expected a list of {what}, got {v!r}")

    for key in ("gpu", "mode", "dtype"):
        text(key)
    for key in ("context", "batch"):
        whole(key)
    flag("inlayHints.enabled", "inlay_hints")
    flag("codeLens.enabled", "code_lens")
    flag("execute", "execute")
    strings("readPackages", "read_packages", "package")
    strings("sitePackages", "site_packages", "directory")
    return ClientSettings(**values), tuple(warnings)  # type: ignore[arg-type]
