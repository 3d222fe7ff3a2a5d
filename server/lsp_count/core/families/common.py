"""Fields every family shares."""

from __future__ import annotations

from lsp_count.core.spec import Derived, Field


def _num_labels(v):
    return v.get("id2label") or 2


# Classification heads size themselves from id2label (transformers derives num_labels from it).
LABEL_FIELDS: dict[str, Field] = {
    "id2label": Field(("id2label",), None, "entries"),
    "num_labels": Field(("num_labels",), Derived(_num_labels, "len(id2label), else 2")),
}
