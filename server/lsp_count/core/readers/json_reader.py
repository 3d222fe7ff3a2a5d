"""Error-tolerant JSON reading with tree-sitter.

A half-typed document still yields every pair that parses (the editor shows
hints for those); syntax errors come back as problems with their range.
"""

from __future__ import annotations

import json
import math
import re

from lsp_count.core.source import ByteOffsets, LineIndex, ParsedDocument, Problem, SourceNode, Span

MAX_NESTING = 256
_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def _parser():
    # Imported here so that importing the core stays cheap for callers that never read JSON.
    import tree_sitter_json
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_json.language()))


def read_json(text: str) -> ParsedDocument:
    lines = LineIndex(text)
    if not text.strip():
        return ParsedDocument(None, (Problem("error", "LC001", "empty file"),), lines)
    return _read_clean(text, lines) or read_json_tolerant(text, lines)


def read_json_tolerant(text: str, lines: LineIndex) -> ParsedDocument:
    """Read any document with tree-sitter: every pair that parses, and the syntax errors."""
    original = text
    parser = _parser()
    data = text.encode("utf-8")
    tree = parser.parse(_plus_exponents_unsigned(data))
    had_error = tree.root_node.has_error
    if had_error:
        # A document cut off mid-way (the usual state while typing at the end) makes
        # tree-sitter give up on the whole object. Closing what is open, after the end,
        # keeps every complete pair at its original position.
        suffix = _closing_suffix(text)
        if suffix:
            repaired = (text + suffix).encode("utf-8")
            repaired_tree = parser.parse(_plus_exponents_unsigned(repaired))
            if _pair_count(repaired_tree.root_node) >= _pair_count(tree.root_node):
                text, data, tree = text + suffix, repaired, repaired_tree
    offsets = ByteOffsets(text, data)

    to_char = offsets.to_char
    line_span = lines.span

    def span(ts_node) -> Span:
        if offsets.identity:  # ASCII: byte offsets are character offsets
            return line_span(ts_node.start_byte, ts_node.end_byte)
        return line_span(to_char(ts_node.start_byte), to_char(ts_node.end_byte))

    problems: list[Problem] = []
    roots: list[SourceNode] = []
    # Work stack of (tree-sitter node, sink, slot, key_span, depth). A sink is a dict or a list;
    # containers take their slot when first seen, so key order is the document's.
    stack: list[tuple[object, object, object, Span | None, int]] = []
    for child in reversed(tree.root_node.children):
        stack.append((child, roots, None, None, 0))
    pending: list[tuple[object, object, object, object, Span | None, int]] = []
    too_deep = False
    ts_errors: list[Problem] = []

    def finish_until(depth: int) -> None:
        while pending and pending[-1][5] >= depth:
            container, ts_node, sink, slot, key_span, _ = pending.pop()
            value = container if isinstance(container, dict) else tuple(container)
            sink[slot] = SourceNode(value, span(ts_node), key_span)  # type: ignore[index]

    def reserve(sink: object, key: str | None) -> object:
        if isinstance(sink, dict):
            sink[key] = None
            return key
        sink.append(None)  # type: ignore[attr-defined]
        return len(sink) - 1  # type: ignore[arg-type]

    while stack:
        ts_node, sink, key, key_span, depth = stack.pop()
        finish_until(depth + 1)
        kind = ts_node.type
        if ts_node.is_missing:
            ts_errors.append(Problem("error", "LC001", f"expected {kind!r}", span(ts_node)))
            continue
        if kind == "comment":
            problems.append(Problem("warning", "LC001", "comments are not valid JSON", span(ts_node)))
            continue
        if kind == "ERROR" or ts_node.is_error:
            ts_errors.append(Problem("error", "LC001", _error_message(ts_node, data), span(ts_node)))
            continue
        if not ts_node.is_named:
            continue  # punctuation
        if depth > MAX_NESTING:
            if not too_deep:
                problems.append(Problem("error", "LC001", f"nesting deeper than {MAX_NESTING} levels", span(ts_node)))
                too_deep = True
            continue
        if kind == "object":
            d: dict[str, SourceNode] = {}
            pending.append((d, ts_node, sink, reserve(sink, key), key_span, depth))
            for pair in reversed(ts_node.children if had_error else ts_node.named_children):
                if pair.type != "pair":
                    stack.append((pair, d, None, None, depth + 1))
                    continue
                k_node = pair.child_by_field_name("key")
                v_node = pair.child_by_field_name("value")
                if had_error:  # a clean tree has no MISSING or ERROR nodes to report
                    for part in pair.children:
                        if part.is_missing or part.type == "ERROR":
                            stack.append((part, d, None, None, depth + 1))
                if k_node is None or k_node.is_missing:
                    continue
                k_text = _string_value(k_node, data)
                if v_node is None or v_node.is_missing:
                    ts_errors.append(Problem("error", "LC001", f"missing value for {k_text!r}", span(k_node)))
                    continue
                stack.append((v_node, d, k_text, span(k_node), depth + 1))
            continue
        if kind == "array":
            lst: list[SourceNode] = []
            pending.append((lst, ts_node, sink, reserve(sink, key), key_span, depth))
            # Punctuation is only worth visiting in a tree with errors (MISSING "]" is unnamed).
            for item in reversed(ts_node.children if had_error else ts_node.named_children):
                stack.append((item, lst, None, None, depth + 1))
            continue
        raw = data[ts_node.start_byte:ts_node.end_byte].decode("utf-8", errors="replace")
        if kind == "string":
            value: object = _string_value(ts_node, data)
        elif kind == "number":
            value = int(raw) if _INT.match(raw) else float(raw)
            if isinstance(value, float) and not math.isfinite(value):
                problems.append(_non_finite(raw, span(ts_node)))
        elif kind == "true":
            value = True
        elif kind == "false":
            value = False
        elif kind == "null":
            value = None
        else:
            ts_errors.append(Problem("error", "LC001", f"unexpected {kind}", span(ts_node)))
            continue
        sink[reserve(sink, key)] = SourceNode(value, span(ts_node), key_span, raw)  # type: ignore[index]
    finish_until(0)
    roots = [r for r in roots if r is not None]
    if ts_errors or had_error:
        # The stdlib scanner names the first error most precisely; tree-sitter's recovery
        # gives the rest of the document.
        problems.append(_stdlib_error(original, lines) or (ts_errors[0] if ts_errors else
                        Problem("error", "LC001", "syntax error")))

    root = None
    if len(roots) == 1:
        root = roots[0]
    elif len(roots) > 1:
        root = roots[0]
        problems.append(Problem("error", "LC001", "more than one top-level value", roots[1].span))
    if root is None and not problems:
        problems.append(Problem("error", "LC001", "no JSON value found"))
    problems.sort(key=lambda p: (p.span.start if p.span else lines.position(0)))
    return ParsedDocument(root, tuple(problems), lines)


def _non_finite(raw: str, where: Span) -> Problem:
    """``NaN``, ``Infinity``, ``-Infinity`` or a number too large for a float (``1e999``): not JSON,
    but Python's json module reads them, and so transformers' ``from_pretrained`` (configs that
    Python's ``json.dump`` wrote hold them: Mamba-2's ``time_step_limit``). Read as Python reads
    them, with a warning."""
    value = float(raw)
    if raw.lstrip("-") in ("NaN", "Infinity"):
        why = f"{raw} is not standard JSON"
    else:
        why = f"{raw} is beyond the range of a float"
    return Problem("warning", "LC001", f"{why}: Python's json module and transformers read it as "
                   f"float({str(value)!r}), other JSON readers refuse it", where)


def _read_clean(text: str, lines: LineIndex) -> ParsedDocument | None:
    """The usual case, a valid JSON document, read by the stdlib's C scanner.

    The top-level object is walked key by key (each value one C scan); a nested
    container's offsets are found (again a C scan per value) only when its children
    are first asked for, so a 1,000-label ``id2label`` costs one scan unless
    something reads into it. Returns None for what the tree-sitter walk must report
    on: invalid JSON, non-finite numbers, or nesting that could exceed ``MAX_NESTING``.
    """
    if text.count("{") + text.count("[") > MAX_NESTING:
        return None
    non_finite: list[bool] = []

    def constant(raw: str) -> float:
        non_finite.append(True)
        return float(raw)

    def number(raw: str) -> float:
        value = float(raw)
        if not math.isfinite(value):
            non_finite.append(True)
        return value

    doc = _CleanDocument(text, lines, json.JSONDecoder(parse_constant=constant, parse_float=number).scan_once)
    start = _WHITESPACE.match(text).end()
    try:
        if text.startswith("{", start):
            members, end = doc.members(start)
            root = _CleanNode(doc, {k: m[0] for k, m in members.items()}, start, end, None, doc.children(members))
        else:
            value, end = doc.scan(text, start)
            root = _CleanNode(doc, value, start, end, None)
    except (ValueError, IndexError, StopIteration, RecursionError):
        return None
    if _WHITESPACE.match(text, end).end() != len(text):
        return None  # several top-level values, or trailing text
    if non_finite:
        return ParsedDocument(root, tuple(_non_finite_values(root, text)), lines)
    return ParsedDocument(root, (), lines)


def _non_finite_values(root: SourceNode, text: str) -> list[Problem]:
    """A warning at each non-finite number of the document (_non_finite), in the document's order."""
    found: list[Problem] = []
    stack = [root]
    while stack:
        node = stack.pop()
        value = node.value
        if isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, tuple):
            stack.extend(reversed(value))
        elif isinstance(value, float) and not math.isfinite(value):
            found.append(_non_finite(node.raw or str(value), node.span))
    return found


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_Member = tuple[object, int, int, int, int]  # value, key start, key end, value start, value end


class _CleanDocument:
    """What the lazy nodes of one document share: its text, lines and scanner."""

    __slots__ = ("text", "lines", "scan")

    def __init__(self, text: str, lines: LineIndex, scan) -> None:
        self.text, self.lines, self.scan = text, lines, scan

    def members(self, start: int) -> tuple[dict[str, _Member], int]:
        """The members of the object at ``start``, and the offset past it; ValueError if invalid."""
        text, scan, ws = self.text, self.scan, _WHITESPACE.match
        out: dict[str, _Member] = {}
        pos = ws(text, start + 1).end()
        if text[pos] == "}":
            return out, pos + 1
        while True:
            if text[pos] != '"':
                raise ValueError(pos)
            key, key_end = json.decoder.scanstring(text, pos + 1)
            colon = ws(text, key_end).end()
            if text[colon] != ":":
                raise ValueError(colon)
            value_start = ws(text, colon + 1).end()
            value, value_end = scan(text, value_start)
            out[key] = (value, pos, key_end, value_start, value_end)  # a repeated key: the last wins, as in json
            pos = ws(text, value_end).end()
            if text[pos] == "}":
                return out, pos + 1
            if text[pos] != ",":
                raise ValueError(pos)
            pos = ws(text, pos + 1).end()

    def items(self, start: int) -> list[tuple[object, int, int]]:
        """(value, start, end) of each item of the valid array at ``start``."""
        text, scan, ws = self.text, self.scan, _WHITESPACE.match
        out: list[tuple[object, int, int]] = []
        pos = ws(text, start + 1).end()
        while text[pos] != "]":
            value, end = scan(text, pos)
            out.append((value, pos, end))
            pos = ws(text, end).end()
            if text[pos] == ",":
                pos = ws(text, pos + 1).end()
        return out

    def children(self, members: dict[str, _Member]) -> dict[str, SourceNode]:
        return {k: _CleanNode(self, v, vs, ve, (ks, ke)) for k, (v, ks, ke, vs, ve) in members.items()}


class _CleanNode(SourceNode):
    """A node of a valid JSON document whose children and spans are made when first asked for."""

    __slots__ = ("_doc", "_py", "_start", "_end", "_key", "_children")

    def __init__(self, doc: _CleanDocument, py: object, start: int, end: int, key: tuple[int, int] | None,
                 children: dict[str, SourceNode] | None = None) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "_doc", doc)
        setattr_(self, "_py", py)
        setattr_(self, "_start", start)
        setattr_(self, "_end", end)
        setattr_(self, "_key", key)
        setattr_(self, "_children", children)  # made on first use unless the reader already has them

    @property  # type: ignore[override]
    def value(self) -> object:
        py = self._py
        if not isinstance(py, (dict, list)):
            return py
        children = self._children
        if children is None:
            doc = self._doc
            if isinstance(py, dict):
                children = doc.children(doc.members(self._start)[0])
            else:
                children = tuple(_CleanNode(doc, v, s, e, None) for v, s, e in doc.items(self._start))
            object.__setattr__(self, "_children", children)
        return children

    def get(self, key: str) -> SourceNode | None:
        py = self._py
        if isinstance(py, dict) and key in py:
            return self.value[key]  # type: ignore[index]
        return None

    def is_mapping(self) -> bool:
        return isinstance(self._py, dict)

    def is_null(self) -> bool:
        return self._py is None

    def entry_count(self) -> int | None:
        return len(self._py) if isinstance(self._py, (dict, list)) else None

    def to_python(self) -> object:
        return _copy(self._py)

    @property  # type: ignore[override]
    def span(self) -> Span:
        return self._doc.lines.span(self._start, self._end)

    @property  # type: ignore[override]
    def key_span(self) -> Span | None:
        key = self._key
        return self._doc.lines.span(*key) if key is not None else None

    @property  # type: ignore[override]
    def raw(self) -> str | None:
        return None if isinstance(self._py, (dict, list)) else self._doc.text[self._start:self._end]


def _copy(value: object) -> object:
    """A fresh copy of a JSON value (callers may change what ``to_python`` returns)."""
    if isinstance(value, dict):
        return {k: _copy(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


_PLUS_EXPONENT = re.compile(rb"(?<=[0-9][eE])\+(?=[0-9])")


_CONSTANT_BYTES = re.compile(rb'(?<![\w"])(-?Infinity|NaN)(?![\w"])')


def _plus_exponents_unsigned(data: bytes) -> bytes:
    """``1e+16`` written as ``1e016`` (same value, same length): tree-sitter-json 0.24
    rejects a plus sign in an exponent. ``NaN``, ``Infinity`` and ``-Infinity`` (which
    Python's json reads) become numbers of their length for the same reason. Values are
    still read from the original bytes."""
    if b"+" in data:
        data = _PLUS_EXPONENT.sub(b"0", data)
    if b"NaN" in data or b"Infinity" in data:
        data = _CONSTANT_BYTES.sub(lambda m: b"9" * len(m.group()), data)
    return data


def _closing_suffix(text: str) -> str:
    """Characters that close the strings, arrays and objects left open at the end of ``text``."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack and stack[-1] == ch:
            stack.pop()
    suffix = '"' if in_string else ""
    return suffix + "".join(reversed(stack))


def _pair_count(ts_node) -> int:
    """Pairs and array items tree-sitter recovered (iteratively: documents may nest deeply)."""
    count, stack = 0, [ts_node]
    while stack and count < 100_000:
        node = stack.pop()
        if node.type in ("pair", "number", "string", "true", "false", "null"):
            count += 1
        stack.extend(node.children)
    return count


def _stdlib_error(text: str, lines: LineIndex) -> Problem | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        pos = lines.position(exc.pos)
        return Problem("error", "LC001", exc.msg, Span(pos, pos))
    except RecursionError:
        return None
    return None


def _string_value(ts_node, data: bytes) -> str:
    raw_bytes = data[ts_node.start_byte:ts_node.end_byte]
    if b"\\" not in raw_bytes and len(raw_bytes) >= 2 and raw_bytes[:1] == raw_bytes[-1:] == b'"':
        return raw_bytes[1:-1].decode("utf-8", errors="replace")  # no escapes: the text is the value
    raw = raw_bytes.decode("utf-8", errors="replace")
    try:
        value = json.loads(raw)
        return value if isinstance(value, str) else raw
    except ValueError:
        return raw.strip('"')


def _error_message(ts_node, data: bytes) -> str:
    raw = data[ts_node.start_byte:ts_node.end_byte].decode("utf-8", errors="replace")
    snippet = raw.strip().splitlines()[0][:40] if raw.strip() else ""
    if not snippet or snippet in {",", "}", "]"}:
        return "syntax error" + (f": unexpected {snippet!r}" if snippet else "")
    return f"syntax error near {snippet!r}"
