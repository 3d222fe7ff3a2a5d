"""Source positions and the position-keeping value tree every reader produces.

Positions are 0-based lines and 0-based columns counted in Unicode code points
(Python string indexes). Lines end at ``\\n``, ``\\r\\n`` or ``\\r``, as LSP says;
front-ends convert columns to UTF-16/UTF-8 or to 1-based as they need.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
from dataclasses import dataclass, field
from typing import Iterator, NamedTuple, Union


# Named tuples, not dataclasses: a document makes one per value and key, and a frozen
# dataclass costs several times more to build. Both are immutable and order like tuples.
class Position(NamedTuple):
    line: int
    column: int


class Span(NamedTuple):
    start: Position
    end: Position

    @staticmethod
    def at(line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> "Span":
        return Span(
            Position(line, column),
            Position(line if end_line is None else end_line, column if end_column is None else end_column),
        )

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Maps string offsets (code points) to (line, column) with LSP's line breaks."""

    __slots__ = ("text", "_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            starts = [0]
            starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
        else:
            # The common case in C: a line starts one past the end of the one before.
            starts = [0, *accumulate(map((1).__add__, map(len, text.split("\n"))))]
            starts.pop()  # one past the end of the text
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self._starts, offset) - 1
        return Position(line, offset - self._starts[line])

    def span(self, start: int, end: int) -> Span:
        # Called once per key and value of a document: one search when both ends share a line.
        starts = self._starts
        first = bisect.bisect_right(starts, start) - 1
        last = first if first + 1 == len(starts) or end < starts[first + 1] else bisect.bisect_right(starts, end) - 1
        return Span(Position(first, start - starts[first]), Position(last, end - starts[last]))

    def offset(self, pos: Position) -> int:
        line = min(max(pos.line, 0), len(self._starts) - 1)
        return min(self._starts[line] + pos.column, len(self.text))

    def line_text(self, line: int) -> str:
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def lines(self) -> list[str]:
        """Every line's text, as line_text gives it."""
        if "\r" not in self.text:
            return self.text.split("\n")  # the same cuts as __init__'s, in C
        return [self.line_text(i) for i in range(len(self._starts))]


class ByteOffsets:
    """Converts UTF-8 byte offsets (tree-sitter's) to code-point offsets.

    Keeps, for each non-ASCII character, the byte offset just past it and how many
    extra bytes the text has up to there; a lookup is one binary search.
    """

    __slots__ = ("_ends", "_extra")

    def __init__(self, text: str, data: bytes) -> None:
        ends: list[int] = []
        extra: list[int] = []
        if len(text) != len(data):
            total = 0
            for m in _NON_ASCII.finditer(text):
                total += len(m.group().encode("utf-8")) - 1
                ends.append(m.end() + total)
                extra.append(total)
        self._ends = ends
        self._extra = extra

    @property
    def identity(self) -> bool:
        return not self._ends

    def to_char(self, byte_offset: int) -> int:
        i = bisect.bisect_right(self._ends, byte_offset)
        return byte_offset - (self._extra[i - 1] if i else 0)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


Scalar = Union[str, int, float, bool, None]


@dataclass(frozen=True, eq=False)
class SourceNode:
    """A value read from a document, with where it stands.

    ``value`` is a scalar, a ``dict[str, SourceNode]`` for mappings or a
    ``tuple[SourceNode, ...]`` for sequences. ``key_span`` is the span of the
    key that holds this node in its parent mapping.
    """

    value: object
    span: Span
    key_span: Span | None = None
    # Scalar text as written (for YAML plain scalars, JSON numbers); used in messages.
    raw: str | None = None

    def get(self, key: str) -> "SourceNode | None":
        if isinstance(self.value, dict):
            return self.value.get(key)
        return None

    def is_mapping(self) -> bool:
        return isinstance(self.value, dict)

    def is_null(self) -> bool:
        return self.value is None

    def entry_count(self) -> int | None:
        """How many entries a mapping or sequence holds (None for a scalar)."""
        return len(self.value) if isinstance(self.value, (dict, tuple)) else None

    def to_python(self) -> object:
        """Plain Python value (dicts, lists, scalars) without positions."""
        stack: list[tuple[SourceNode, object, object]] = []
        root: list[object] = [None]

        def place(container: object, key: object, value: object) -> None:
            if isinstance(container, list):
                if key is None:
                    container.append(value)
                else:
                    container[key] = value  # type: ignore[index]
            else:
                container[key] = value  # type: ignore[index]

        stack.append((self, root, 0))
        while stack:
            node, container, key = stack.pop()
            v = node.value
            if isinstance(v, dict):
                d: dict[str, object] = {}
                place(container, key, d)
                for k in v:
                    d[k] = None  # keep the document's key order
                for k, child in reversed(v.items()):
                    stack.append((child, d, k))
            elif isinstance(v, tuple):
                lst: list[object] = [None] * len(v)
                place(container, key, lst)
                for i, child in enumerate(v):
                    stack.append((child, lst, i))
            else:
                place(container, key, v)
        return root[0]

    def walk(self) -> Iterator[tuple[tuple[str | int, ...], "SourceNode"]]:
        stack: list[tuple[tuple[str | int, ...], SourceNode]] = [((), self)]
        while stack:
            path, node = stack.pop()
            yield path, node
            if isinstance(node.value, dict):
                for k, child in node.value.items():
                    stack.append((path + (k,), child))
            elif isinstance(node.value, tuple):
                for i, child in enumerate(node.value):
                    stack.append((path + (i,), child))


@dataclass(frozen=True)
class Problem:
    """Something to tell the user about a document.

    ``severity`` is "error", "warning" or "info"; ``code`` is a stable id
    (see ``lsp_count.core.problems``).
    """

    severity: str
    code: str
    message: str
    span: Span | None = None
    data: tuple[tuple[str, object], ...] = field(default=())


@dataclass(frozen=True)
class ParsedDocument:
    """What a reader made of a text: the root value (None if nothing parsed) and problems."""

    root: SourceNode | None
    problems: tuple[Problem, ...]
    lines: LineIndex
