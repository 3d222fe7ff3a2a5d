"""Helpers the unit tests share: analyse a config mapping as a config.json, read a bundled one."""

from __future__ import annotations

import json

from lsp_count.core.analyze import analyze_text
from lsp_count.core.catalog import CATALOG_DIR


def analyze(config: dict, text: str | None = None):
    """The FileReport for ``config`` written as a config.json (or for ``text`` as given)."""
    return analyze_text(text if text is not None else json.dumps(config, indent=2), "m/config.json")


def model(config: dict):
    """The one model counted from ``config``; fails the test on any error."""
    report = analyze(config)
    assert not report.has_errors, report.problems
    return report.models[0]


def errors(config: dict | None = None, text: str | None = None):
    return [p for p in analyze(config or {}, text).problems if p.severity == "error"]


def catalog_config(name: str, **overrides: object) -> dict:
    """A bundled catalog config ("google-t5/t5-small"), with keys overridden."""
    return {**json.loads((CATALOG_DIR / f"{name}.json").read_text()), **overrides}
