"""Fields every family shares."""

from __future__ import annotations

from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Field, ModelSpec


def _num_labels(v):
    # An empty id2label is 0 labels, as transformers builds it (num_labels is len(id2label)).
    labels = v.get("id2label")
    return 2 if labels is None else labels


# Classification heads size themselves from id2label (transformers derives num_labels from it).
LABEL_FIELDS: dict[str, Field] = {
    "id2label": Field(("id2label",), None, "entries"),
    "num_labels": Field(("num_labels",), Derived(_num_labels, "len(id2label), else 2"), minimum=0),
}


def pad_token(default: int | None) -> Field:
    return Field(("pad_token_id",), default, "int?", minimum=-(10**9), doc="padding token (index into the vocabulary)")


def check_pad_token(spec: ModelSpec) -> list[Problem]:
    """nn.Embedding(vocab, d, padding_idx=pad_token_id) asserts the index lies in the vocabulary (Marian's
    decoder builds its own, decoder_vocab_size rows, before any tying: its vocabulary must hold it too)."""
    v = spec.values
    pad = v.get("pad_token_id")
    written = "pad_token_id" if "pad_token_id" in spec.origins else "pad_token_id (class default)"
    vocabs = [("vocab_size", "vocab_size")]
    if isinstance(v.get("decoder_vocab_size"), int):
        vocabs.append(("decoder_vocab_size", "decoder_vocab_written"))
    for name, field in vocabs:
        vocab = v.get(name)
        if isinstance(pad, int) and isinstance(vocab, int) and not -vocab <= pad < vocab:
            where = next((spec.key_span(f) for f in ("pad_token_id", field, "vocab_size") if spec.key_span(f)), None)
            return [Problem("error", "LC103", f"{written} {pad} is outside the vocabulary ({name} {vocab}): "
                                              "the token embedding refuses it", where or spec.span)]
    return []
