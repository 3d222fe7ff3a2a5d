"""The README's `console` examples are what the CLI prints: each `$ lsp-count ...` block is run
and compared line for line (a block may start with "(parameter table as above)" for the table
the first example shows)."""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

from lsp_count import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
ELIDED = "  (parameter table as above)\n"
EXAMPLES = re.findall(r"```console\n\$ (lsp-count [^\n]*)\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"),
                      re.S)


def test_the_readme_has_cli_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("command, shown", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_a_readme_console_example_is_what_the_cli_prints(command, shown, capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "200")
    status = cli.main(shlex.split(command)[1:])
    printed = capsys.readouterr().out
    if shown.startswith(ELIDED):
        table_end = printed.index("method: exact (family table)\n\n") + len("method: exact (family table)\n\n")
        printed = ELIDED + printed[table_end:]
    assert printed == shown
    assert status == (1 if "DOES NOT FIT" in shown else 0)  # a --gpu the model misses: exit 1
