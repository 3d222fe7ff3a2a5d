"""The tolerant JSON reader: values, key order, positions in code points, recovery."""

from __future__ import annotations

from lsp_count.core.readers.json_reader import read_json
from lsp_count.core.source import LineIndex, Position


def test_values_and_key_order() -> None:
    doc = read_json('{"b": 1, "a": [true, null, -1.5e3], "c": {"x": "\\u00e9"}}')
    assert doc.problems == ()
    assert doc.root.to_python() == {"b": 1, "a": [True, None, -1500.0], "c": {"x": "é"}}
    assert list(doc.root.to_python()) == ["b", "a", "c"]


def test_positions_count_code_points_after_non_ascii() -> None:
    text = '{"名前": "ラマ", "hidden_size": 4096}'
    node = read_json(text).root.get("hidden_size")
    assert node.key_span.start == Position(0, text.index('"hidden_size"'))
    assert node.span.start == Position(0, text.index("4096"))


def test_positions_with_crlf_and_lone_cr_line_breaks() -> None:
    text = '{\r\n"a": 1,\r"b": 2,\n"c": 3}'
    root = read_json(text).root
    assert root.get("a").key_span.start == Position(1, 0)
    assert root.get("b").key_span.start == Position(2, 0)
    assert root.get("c").span.start == Position(3, 5)


def test_half_typed_document_keeps_what_parses() -> None:
    doc = read_json('{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": ')
    assert doc.root.get("hidden_size").value == 4096
    assert doc.root.get("model_type").value == "llama"
    assert any(p.severity == "error" for p in doc.problems)


def test_duplicate_root_values_are_an_error() -> None:
    doc = read_json('{"a": 1} {"b": 2}')
    assert doc.root.to_python() == {"a": 1}
    assert any("more than one top-level value" in p.message for p in doc.problems)


def test_line_index_round_trip() -> None:
    text = "ab\r\ncd\ref\ngh"
    index = LineIndex(text)
    assert index.line_count == 4
    for offset in range(len(text) + 1):
        assert index.offset(index.position(offset)) == offset or text[offset - 1] in "\r\n"
    assert index.line_text(1) == "cd"


def test_document_cut_off_at_the_end_keeps_its_pairs() -> None:
    for text in ('{"model_type": "llama", "hidden_size": 4096,',
                 '{"model_type": "llama",\n "hidden_size": 4096,\n "num_hid',
                 '{"model_type": "llama", "hidden_size": 4096, "rope": {"a": [1, 2'):
        doc = read_json(text)
        assert doc.root is not None, text
        assert doc.root.get("hidden_size").value == 4096
        assert doc.root.get("hidden_size").span.start.line == text[: text.index("4096")].count("\n")
        assert any(p.severity == "error" for p in doc.problems), text


def test_key_without_value_is_not_given_a_value() -> None:
    doc = read_json('{"model_type": "llama", "hidden_size":')
    assert doc.root.get("hidden_size") is None
    assert doc.root.get("model_type").value == "llama"


def test_byte_to_character_offsets_across_multibyte_text() -> None:
    from lsp_count.core.source import ByteOffsets

    for text in ("abc", "a名前b", "é" * 5 + "x", "x😀y\nzé", ""):
        offsets = ByteOffsets(text, text.encode("utf-8"))
        for i in range(len(text) + 1):
            assert offsets.to_char(len(text[:i].encode("utf-8"))) == i
