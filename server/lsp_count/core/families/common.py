"""Fields every family shares."""

from __future__ import annotations

from lsp_count.core.spec import Derived, Field


def _num_labels(v):
    labels = v.get("id2label")
    return len(labels) if isinstance(labels, dict) and labels else 2


# Classification heads size themselves from id2label (transformers derives num_labels from it).
LABEL_FIELDS: dict[str, Field] = {
    "id2label": Field(("id2label",), None, "any"),
    "num_labels": Field(("num_labels",), Derived(_num_labels, "len(id2label), else 2")),
}
