"""The tolerant JSON reader: values, key order, positions in code points, recovery."""

from __future__ import annotations

import math

import pytest

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


# --- the fast path for valid documents agrees with the tree-sitter walk ---------------------

import json as _json  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lsp_count.core.readers.json_reader import read_json_tolerant  # noqa: E402

_scalars = (st.none() | st.booleans() | st.integers(-(10**20), 10**20)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=25)


def _shape(node) -> object:
    """Everything a reader promises about a node: value, spans and raw text, recursively."""
    value = node.value
    if isinstance(value, dict):
        inner: object = {k: _shape(v) for k, v in value.items()}
    elif isinstance(value, tuple):
        inner = [_shape(v) for v in value]
    else:
        inner = value
    return (inner, node.span, node.key_span, node.raw, node.is_mapping(), node.is_null())


@settings(max_examples=300, deadline=None)
@given(_values, st.sampled_from([None, 0, 2, "\t"]), st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_valid_documents_read_the_same_by_both_paths(value, indent, ascii_only, newline) -> None:
    text = _json.dumps(value, indent=indent, ensure_ascii=ascii_only).replace("\n", newline)
    fast = read_json(text)
    assert fast.problems == ()
    assert type(fast.root).__name__ == "_CleanNode"  # the fast path was taken
    assert fast.root.to_python() == _json.loads(text)
    slow = read_json_tolerant(text, LineIndex(text))
    assert slow.problems == ()
    assert _shape(fast.root) == _shape(slow.root)


def test_exponents_with_a_plus_sign_are_valid_on_both_paths() -> None:
    doc = read_json('{"rope_theta": 1e+16, "s": "1e+5"}')
    assert doc.problems == ()
    assert doc.root.get("rope_theta").value == 1e16
    assert doc.root.get("rope_theta").raw == "1e+16"
    # tree-sitter-json 0.24 rejects "1e+16"; a half-typed document keeps it all the same
    half = read_json('{"rope_theta": 1E+16, "s": "1e+5", "hidden_size": ')
    assert half.root.get("rope_theta").value == 1e16
    assert half.root.get("rope_theta").raw == "1E+16"
    assert half.root.get("s").value == "1e+5"


def test_what_the_fast_path_declines_is_still_reported() -> None:
    for text, message in (('{"a": NaN}', "NaN is not standard JSON"), ('{"a": 1e999}', "beyond the range of a float"),
                          ('{"a": 1} // c', "comment"),
                          ('{"a": 1,}', ""), ("[" * 300 + "]" * 300, "nesting")):
        doc = read_json(text)
        assert doc.problems, text
        assert message in " ".join(p.message for p in doc.problems), (text, doc.problems)


def test_to_python_returns_a_fresh_copy() -> None:
    root = read_json('{"a": {"b": [1, 2]}}').root
    root.to_python()["a"]["b"].append(3)
    assert root.to_python() == {"a": {"b": [1, 2]}}


@settings(max_examples=300, deadline=None)
@given(_values, st.integers(0, 400), st.text(max_size=3), st.integers(0, 400))
def test_any_edit_of_a_document_reads_without_raising(value, cut, inserted, at) -> None:
    # What an editor sends while typing: a valid document cut short, with a few characters typed
    # somewhere. Either path may read it; neither may raise, and every span lies in the text.
    text = _json.dumps({"model_type": "llama", "x": value}, indent=1)
    text = text[:max(len(text) - cut, 0)]
    text = text[:at] + inserted + text[at:]
    doc = read_json(text)
    lines = LineIndex(text)
    if doc.root is not None:
        doc.root.to_python()
        for _path, node in doc.root.walk():
            for span in (node.span, node.key_span):
                if span is not None:
                    assert lines.offset(span.start) <= lines.offset(span.end) <= len(text)
    for p in doc.problems:
        assert p.severity in ("error", "warning", "info") and p.message


@pytest.mark.parametrize("tail", ["}", ', "cut": '])  # a whole document (the fast path), one cut short (tree-sitter's)
def test_nan_and_infinity_read_as_python_s_json_reads_them_with_a_warning(tail: str) -> None:
    # json.dump wrote Mamba-2's time_step_limit as [0.0, Infinity] (transformers 4); json.load and
    # from_pretrained read it. The same words inside a string are text.
    text = '{"time_step_limit": [0.0, Infinity],\n "low": -Infinity, "x": NaN, "big": 1e999, "s": "NaN -Infinity"' + tail
    doc = read_json(text)
    values = doc.root.to_python()
    assert values["time_step_limit"] == [0.0, math.inf] and values["low"] == -math.inf and values["big"] == math.inf
    assert math.isnan(values["x"]) and values["s"] == "NaN -Infinity"
    warned = [(p.span.start.line, p.span.start.column, p.span.end.column) for p in doc.problems if p.severity == "warning"]
    assert warned == [(0, 26, 34), (1, 8, 17), (1, 24, 27), (1, 36, 41)]
    assert all("Python's json module and transformers read it as float(" in p.message
               for p in doc.problems if p.severity == "warning")
    assert [p.severity for p in doc.problems if p.severity == "error"] == ([] if tail == "}" else ["error"])
