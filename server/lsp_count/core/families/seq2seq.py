"""seq2seq families (see decoders.py for the table format)."""

from __future__ import annotations

from lsp_count.core.spec import Family

FAMILIES: tuple[Family, ...] = ()
