"""Stable problem codes, shared by the CLI, the hook (SARIF rule ids) and the server."""

from __future__ import annotations

CODES: dict[str, str] = {
    "LC001": "syntax error",
    "LC002": "not a model config",
    "LC003": "unreadable file (binary, not UTF-8, too large)",
    "LC101": "model type not supported for exact counting",
    "LC102": "invalid value",
    "LC103": "inconsistent configuration",
    "LC104": "base model not found offline",
    "LC105": "counted by instantiating with transformers",
    "LC106": "note on how the count was made",
    "LC107": "unknown config key: close to one the config reads, or another family's name for one (a slip?)",
    "LC201": "over the memory budget",
    "LC202": "over the parameter budget",
    "LC203": "model cannot be counted exactly (strict mode)",
    "LC204": "invalid budget (budget file or budget settings)",
}
