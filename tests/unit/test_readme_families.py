"""The README's list of exactly counted model_types is the family table: a family added without
a mention there, or a README naming one the table lacks, fails here."""

from __future__ import annotations

import pathlib
import re

from lsp_count.core.families import supported_model_types

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The paragraph between "built on the meta device:" and the sentence after the list.
LISTED = README.split("built on the meta device:\n\n", 1)[1].split("\n\n", 1)[0]


def _names(paragraph: str) -> set[str]:
    """The model_types a paragraph names: its words spelled as a model_type is (lower case,
    digits, `_` and `-`), less the prose around them (the text in parentheses and after the
    list's closing full stop)."""
    listed = re.sub(r"\([^)]*\)", "", paragraph.split(". ", 1)[0])
    return set(re.findall(r"(?<![\w-])[a-z][a-z0-9_-]*(?![\w-])", listed)) - {"and"}


def test_the_readme_names_every_family_the_table_counts() -> None:
    missing = sorted(set(supported_model_types()) - _names(LISTED))
    assert not missing, f"README.md's exact list lacks {missing}"


def test_every_model_type_the_readme_lists_is_in_the_table() -> None:
    unknown = sorted(_names(LISTED) - set(supported_model_types()))
    assert not unknown, f"README.md lists {unknown}, which the family table does not count"
