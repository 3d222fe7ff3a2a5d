"""Core positions (code points, LSP line breaks) <-> LSP positions in the negotiated encoding.

We do not use ``TextDocument.lines`` for this: it splits on form feed, U+2028
and other characters LSP does not treat as line breaks, so columns after such
a character would drift. The core's ``LineIndex`` splits exactly as LSP does.
"""

from __future__ import annotations

from lsprotocol import types

from lsp_count.core.source import LineIndex, Position, Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(text: str, encoding: str) -> int:
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _char_units(char: str, encoding: str) -> int:
    code = ord(char)
    if encoding == UTF32:
        return 1
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 2 if code >= 0x10000 else 1


def to_lsp(lines: LineIndex, pos: Position, encoding: str) -> types.Position:
    line = min(max(pos.line, 0), lines.line_count - 1)
    text = lines.line_text(line)
    column = min(max(pos.column, 0), len(text))
    return types.Position(line=line, character=_units(text[:column], encoding))


def to_lsp_range(lines: LineIndex, span: Span | None, encoding: str) -> types.Range:
    if span is None:
        # A problem about the whole file: point at the start rather than guess a key.
        start = types.Position(line=0, character=0)
        return types.Range(start=start, end=start)
    return types.Range(start=to_lsp(lines, span.start, encoding), end=to_lsp(lines, span.end, encoding))


def from_lsp(lines: LineIndex, pos: types.Position, encoding: str) -> Position:
    """Client units -> code points; a position past the end of a line clamps to its end, as LSP says."""
    line = min(max(pos.line, 0), lines.line_count - 1)
    text = lines.line_text(line)
    units = 0
    for index, char in enumerate(text):
        if units >= pos.character:
            return Position(line, index)
        units += _char_units(char, encoding)
    return Position(line, len(text))


def encoding_of(kind: object) -> str:
    value = getattr(kind, "value", kind)
    return value if value in (UTF8, UTF16, UTF32) else UTF16
