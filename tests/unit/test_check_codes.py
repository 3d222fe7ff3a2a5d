"""Every problem code the package emits is registered in lsp_count.core.problems.CODES.

SARIF rule ids and the README's code table come from CODES, so a code used in the
sources but missing there would reach users without a rule or a description.
"""

from __future__ import annotations

import re
from pathlib import Path

import lsp_count
from lsp_count.core.problems import CODES

PACKAGE = Path(lsp_count.__file__).resolve().parent
CODE = re.compile(r"\bLC\d{3}\b")


def _emitted_codes() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "problems.py" and path.parent.name == "core":
            continue  # the registry itself
        for code in CODE.findall(path.read_text(encoding="utf-8")):
            found.setdefault(code, []).append(str(path.relative_to(PACKAGE)))
    return found


def test_sources_use_problem_codes() -> None:
    # The scan must see the codes the gate is known to emit, or it proves nothing.
    found = _emitted_codes()
    assert {"LC001", "LC201", "LC202", "LC203", "LC204"} <= set(found)


def test_every_emitted_code_is_registered() -> None:
    missing = {code: sorted(set(paths)) for code, paths in _emitted_codes().items() if code not in CODES}
    assert not missing, f"codes used in the sources but missing from core/problems.py CODES: {missing}"


def test_budget_file_error_code_is_registered() -> None:
    assert "budget" in CODES["LC204"]
