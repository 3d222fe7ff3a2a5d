"""Decoding raw bytes into text, with the checks every reader needs first."""

from __future__ import annotations

from dataclasses import dataclass

from lsp_count.core.source import Problem, Span

MAX_DOCUMENT_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class DecodedText:
    text: str | None
    problem: Problem | None


def decode_bytes(data: bytes, max_bytes: int = MAX_DOCUMENT_BYTES) -> DecodedText:
    """UTF-8 text, or the reason it is not text we read."""
    if len(data) > max_bytes:
        return DecodedText(None, Problem(
            "error", "LC003",
            f"file is {len(data) / 2**20:.1f} MiB; lsp-count reads model files up to {max_bytes // 2**20} MiB",
        ))
    if b"\x00" in data[:8192]:
        return DecodedText(None, Problem("error", "LC003", "binary file (contains NUL bytes), not a model config"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line = good.count("\n")
        col = len(good) - (good.rfind("\n") + 1)
        return DecodedText(None, Problem(
            "error", "LC003", f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            Span.at(line, col),
        ))
    if text.startswith("\ufeff"):
        text = text[1:]
    return DecodedText(text, None)
