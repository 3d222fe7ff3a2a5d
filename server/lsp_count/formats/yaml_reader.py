"""YAML to SourceNode, with positions, safely.

A valid document is composed by PyYAML (``yaml.compose`` with a SafeLoader
subclass: the composer never constructs Python objects, so no tag can run
code) and converted to SourceNodes here, expanding aliases against a node
budget: a "billion laughs" file stops at the budget with an error instead of
taking the machine. Scalars are resolved with SafeLoader's rules (yaml.safe_load
semantics). A document PyYAML rejects (half typed in an editor) is read again
with tree-sitter-yaml, which recovers, so the keys that parse still count.
"""

from __future__ import annotations

from lsp_count.core.source import ByteOffsets, LineIndex, ParsedDocument, Problem, SourceNode, Span

# Values a document may expand to (aliases included). Real training YAMLs hold a few hundred.
MAX_NODES = 100_000
MAX_DEPTH = 128

_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"


_SAFE_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"})


class _TooBig(Exception):
    pass


def _refuse_large(top, max_nodes: int) -> None:
    """Count what the node graph expands to (memoized per node, so a billion laughs costs its size on disk)."""
    sizes: dict[int, int] = {}
    # Iterative post-order walk; "on_path" catches an alias inside its own anchor.
    on_path: set[int] = set()
    stack: list[tuple[object, bool]] = [(top, False)]
    while stack:
        n, done = stack.pop()
        key = id(n)
        if done:
            on_path.discard(key)
            children = _children(n)
            total = 1 + sum(sizes[id(c)] for c in children)
            if total > max_nodes:
                raise _TooBig(f"the document expands to more than {max_nodes:,} values (aliases that repeat aliases?); "
                              "lsp-count refuses it")
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _TooBig("an alias refers to the value that contains it (recursive anchor)")
        on_path.add(key)
        stack.append((n, True))
        for c in _children(n):
            if id(c) in on_path:
                raise _TooBig("an alias refers to the value that contains it (recursive anchor)")
            if id(c) not in sizes:
                stack.append((c, False))


def _children(n) -> list:
    import yaml

    if isinstance(n, yaml.SequenceNode):
        return list(n.value)
    if isinstance(n, yaml.MappingNode):
        return [x for pair in n.value for x in pair]
    return []


def _loader_class():
    # Imported lazily: importing the core must stay cheap.
    import yaml

    class _PositionLoader(yaml.SafeLoader):
        """SafeLoader that only composes; construction of scalars goes through SafeConstructor."""

    return _PositionLoader


def read_yaml(text: str, max_nodes: int = MAX_NODES) -> ParsedDocument:
    lines = LineIndex(text)
    if not text.strip():
        return ParsedDocument(None, (Problem("error", "LC001", "empty file"),), lines)
    import yaml

    loader = _loader_class()(text)
    try:
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = lines.span(mark.index, mark.index) if mark is not None else None
        message = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        problem = Problem("error", "LC001", message, where)
        root, _ = read_yaml_tolerant(text, lines, max_nodes)
        return ParsedDocument(root, (problem,), lines)
    except yaml.YAMLError as exc:
        root, _ = read_yaml_tolerant(text, lines, max_nodes)
        return ParsedDocument(root, (Problem("error", "LC001", str(exc)),), lines)
    if node is None:
        return ParsedDocument(None, (Problem("error", "LC001", "the document holds no value"),), lines)
    try:
        root = _convert(node, lines, max_nodes)
    except _TooBig as exc:
        return ParsedDocument(None, (Problem("error", "LC001", str(exc), lines.span(node.start_mark.index, node.start_mark.index)),), lines)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = lines.span(mark.index, mark.index) if mark is not None else None
        return ParsedDocument(None, (Problem("error", "LC001", getattr(exc, "problem", None) or str(exc), where),), lines)
    return ParsedDocument(root, (), lines)


def _convert(top, lines: LineIndex, max_nodes: int) -> SourceNode:
    """PyYAML node graph -> SourceNode tree, aliases expanded within ``max_nodes``."""
    import yaml

    constructor = yaml.SafeLoader("")  # only its construct_* methods are used
    _refuse_large(top, max_nodes)
    spans: dict[int, Span] = {}

    def span(n) -> Span:
        # An aliased node is converted once per use; its span is computed once.
        got = spans.get(id(n))
        if got is None:
            got = spans[id(n)] = lines.span(n.start_mark.index, n.end_mark.index)
        return got

    def scalar(n) -> object:
        if n.tag == _STR_TAG:
            return n.value
        value = constructor.construct_object(n, deep=True)
        if isinstance(value, (str, int, float, bool)) or value is None:
            return value
        # Timestamps, binary: keep the text; no model size is a date.
        return n.value

    def build(n, key_span: Span | None, depth: int) -> SourceNode:
        if depth > MAX_DEPTH:
            raise _TooBig(f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(n, yaml.ScalarNode):
            return SourceNode(scalar(n), span(n), key_span, raw=n.value)
        if n.tag not in _SAFE_COLLECTION_TAGS:
            raise yaml.constructor.ConstructorError(
                None, None, f"tag {n.tag} is not allowed (lsp-count reads YAML as yaml.safe_load does)", n.start_mark)
        if isinstance(n, yaml.SequenceNode):
            return SourceNode(tuple(build(c, None, depth + 1) for c in n.value), span(n), key_span)
        assert isinstance(n, yaml.MappingNode)
        out: dict[str, SourceNode] = {}
        merged: dict[str, SourceNode] = {}
        for k, v in n.value:
            if k.tag == _MERGE_TAG:
                # "<<: *base" merges keys the mapping does not set itself (yaml.safe_load semantics).
                sources = v.value if isinstance(v, yaml.SequenceNode) else [v]
                for src in sources:
                    if not isinstance(src, yaml.MappingNode):
                        raise yaml.constructor.ConstructorError(None, None, "a merge key (<<) needs a mapping", src.start_mark)
                    built = build(src, None, depth + 1)
                    assert isinstance(built.value, dict)
                    for mk, mv in built.value.items():
                        merged.setdefault(mk, mv)
                continue
            if not isinstance(k, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(None, None, "a mapping key must be a scalar", k.start_mark)
            key = scalar(k)
            out[str(key).lower() if isinstance(key, bool) else str(key)] = build(v, span(k), depth + 1)
        for mk, mv in merged.items():
            out.setdefault(mk, mv)
        return SourceNode(out, span(n), key_span)

    return build(top, None, 0)


# --- tree-sitter fallback for documents PyYAML rejects -------------------------------------------

_PAIRS = ("block_mapping_pair", "flow_pair")
_MAPPINGS = ("block_mapping", "flow_mapping")
_SEQUENCES = ("block_sequence", "flow_sequence")
_SCALARS = ("plain_scalar", "double_quote_scalar", "single_quote_scalar", "block_scalar")


def read_yaml_tolerant(text: str, lines: LineIndex | None = None, max_nodes: int = MAX_NODES) -> tuple[SourceNode | None, tuple[Problem, ...]]:
    """Whatever mapping keys parse, from a broken document (tree-sitter-yaml recovers)."""
    import tree_sitter_yaml
    from tree_sitter import Language, Parser

    lines = lines or LineIndex(text)
    data = text.encode("utf-8")
    tree = Parser(Language(tree_sitter_yaml.language())).parse(data)
    offsets = ByteOffsets(text, data)
    budget = [max_nodes]

    def span(n) -> Span:
        return lines.span(offsets.to_char(n.start_byte), offsets.to_char(n.end_byte))

    def node_text(n) -> str:
        return data[n.start_byte:n.end_byte].decode("utf-8", errors="replace")

    def unwrap(n):
        while n is not None and n.type in ("flow_node", "block_node", "document", "stream") and n.named_child_count:
            named = [c for c in n.named_children if c.type not in ("comment", "anchor", "tag")]
            if len(named) != 1:
                break
            n = named[0]
        return n

    def scalar_value(n) -> object:
        raw = node_text(n)
        if n.type == "plain_scalar":
            import yaml

            try:
                value = yaml.safe_load(raw)
            except yaml.YAMLError:
                return raw
            return value if isinstance(value, (str, int, float, bool)) or value is None else raw
        if n.type == "double_quote_scalar":
            import json

            try:
                return json.loads(raw)
            except ValueError:
                return raw[1:-1]
        if n.type == "single_quote_scalar":
            return raw[1:-1].replace("''", "'")
        return raw

    def build(n, key_span: Span | None, depth: int) -> SourceNode | None:
        budget[0] -= 1
        if budget[0] < 0 or depth > MAX_DEPTH:
            return None
        n = unwrap(n)
        if n is None or n.is_missing:
            return None
        if n.type in _SCALARS:
            return SourceNode(scalar_value(n), span(n), key_span, raw=node_text(n))
        if n.type in _SEQUENCES:
            items = []
            for c in n.named_children:
                target = c.named_children[0] if c.type == "block_sequence_item" and c.named_child_count else c
                if c.type == "block_sequence_item" and not c.named_child_count:
                    continue
                built = build(target, None, depth + 1)
                if built is not None:
                    items.append(built)
            return SourceNode(tuple(items), span(n), key_span)
        pairs = [c for c in n.named_children if c.type in _PAIRS]
        if n.type in _MAPPINGS or n.type == "ERROR" or pairs:
            out: dict[str, SourceNode] = {}
            for c in _pairs_of(n):
                k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                k = unwrap(k)
                if k is None or k.type not in _SCALARS:
                    continue
                key = scalar_value(k)
                if v is None:
                    continue  # "micro_batch_size:" still being typed
                built = build(v, span(k), depth + 1)
                if built is not None:
                    out.setdefault(str(key), built)
            return SourceNode(out, span(n), key_span)
        return None

    def _pairs_of(n):
        # ERROR nodes wrap the pairs they could still read, sometimes one level down.
        for c in n.named_children:
            if c.type in _PAIRS:
                yield c
            elif c.type in ("ERROR",) + _MAPPINGS or (c.type in ("block_node", "flow_node") and unwrap(c).type in _MAPPINGS):
                yield from _pairs_of(unwrap(c) if c.type != "ERROR" else c)

    root = tree.root_node
    docs = [c for c in root.named_children if c.type in ("document", "ERROR")] or [root]
    for doc in docs:
        built = build(doc, None, 0)
        if built is not None:
            return built, ()
    return None, ()
