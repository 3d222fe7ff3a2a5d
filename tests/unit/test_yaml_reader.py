"""The YAML reader: safe_load semantics, positions in code points, bounded aliases, tolerant fallback."""

from __future__ import annotations

import time

import yaml

from lsp_count.core.source import Position
from lsp_count.formats.yaml_reader import read_yaml


def test_values_match_safe_load():
    text = ("a: 1\nb: 1.5e-5\nc: yes\nd: null\ne: [1, two, {x: 3}]\nf: '007'\ng: 0x1f\n"
            "base: &b {r: 8, alpha: 16}\nderived:\n  <<: *b\n  alpha: 32\n")
    doc = read_yaml(text)
    assert doc.problems == ()
    assert doc.root.to_python() == yaml.safe_load(text)


def test_positions_are_code_points_and_keys_have_spans():
    doc = read_yaml("name: héllo wörld\nlora_r: 16\r\nsequence_len: 4096\n")
    r = doc.root.get("lora_r")
    assert r.value == 16
    assert r.key_span.start == Position(1, 0) and r.span.start == Position(1, 8) and r.span.end == Position(1, 10)
    s = doc.root.get("sequence_len")
    assert s.span.start == Position(2, 14)


def test_billion_laughs_refused_quickly():
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for prev, cur in zip("abcdefgh", "bcdefghi"):
        text += f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]\n"
    start = time.monotonic()
    doc = read_yaml(text)
    assert time.monotonic() - start < 1.0
    assert doc.root is None
    assert doc.problems[0].code == "LC001" and "refuses" in doc.problems[0].message


def test_recursive_alias_refused():
    doc = read_yaml("a: &a [*a]\n")
    assert doc.root is None and "recursive" in doc.problems[0].message


def test_python_tags_refused():
    for text in ('a: !!python/object/apply:os.system ["echo hi"]\n', "a: !!python/name:os.system x\n"):
        doc = read_yaml(text)
        assert doc.root is None
        assert doc.problems[0].severity == "error"


def test_half_typed_document_still_has_keys():
    doc = read_yaml("base_model: meta-llama/Meta-Llama-3-8B\nlora_r: 16\nmicro_batch_size: [\nsequence_len: 4096\n")
    assert doc.problems and doc.problems[0].code == "LC001"
    assert doc.root is not None
    values = doc.root.to_python()
    assert values["base_model"] == "meta-llama/Meta-Llama-3-8B" and values["lora_r"] == 16
    assert doc.root.get("lora_r").span.start == Position(1, 8)


def test_empty_and_scalar_documents():
    assert read_yaml("").problems[0].message == "empty file"
    assert read_yaml("just a string\n").root.value == "just a string"
