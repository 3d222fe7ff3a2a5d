"""Unit tests for the server's pure parts: position conversion and client settings."""

from __future__ import annotations

import pytest
from lsprotocol import types

from lsp_count.core.source import LineIndex, Position
from lsp_count.lsp.positions import from_lsp, to_lsp
from lsp_count.lsp.settings import ClientSettings, parse_client_settings

TEXT = 'a\n{"é😀": 1, "k": 2}\r\nx\u2028y\fz\n'


@pytest.mark.parametrize("encoding,units", [("utf-16", 11), ("utf-8", 14), ("utf-32", 10)])
def test_positions_round_trip_in_each_encoding(encoding, units):
    lines = LineIndex(TEXT)
    column = lines.line_text(1).index('"k"')  # after é (2 UTF-8 bytes) and 😀 (2 UTF-16 units, 4 bytes)
    lsp = to_lsp(lines, Position(1, column), encoding)
    assert lsp == types.Position(line=1, character=units)
    assert from_lsp(lines, lsp, encoding) == Position(1, column)


def test_lsp_line_breaks_only():
    # U+2028 and form feed are not LSP line breaks: "z" is on line 2, as the client counts.
    lines = LineIndex(TEXT)
    assert to_lsp(lines, Position(2, 4), "utf-16") == types.Position(line=2, character=4)
    assert from_lsp(lines, types.Position(line=2, character=99), "utf-16") == Position(2, 5)


def test_settings_nested_flat_and_wrapped():
    nested = {"gpu": "RTX-4090", "context": 8192, "inlayHints": {"enabled": False}}
    assert parse_client_settings(nested)[0] == ClientSettings(gpu="RTX-4090", context=8192, inlay_hints=False)
    assert parse_client_settings({"lsp-count": nested})[0] == parse_client_settings(nested)[0]
    flat = {"lsp-count.gpu": "RTX-4090", "lsp-count.codeLens.enabled": False}
    assert parse_client_settings(flat)[0] == ClientSettings(gpu="RTX-4090", code_lens=False)


def test_settings_empty_strings_mean_unset_and_bad_values_warn():
    settings, warnings = parse_client_settings({"gpu": "", "dtype": "", "context": "big", "batch": 0,
                                                "execute": "yes"})
    assert settings == ClientSettings()
    assert len(warnings) == 3 and any("context" in w for w in warnings)
    assert parse_client_settings(None) == (ClientSettings(), ())
    assert ClientSettings(gpu="T4", mode="train", context=2048).overrides() == {"mode": "train", "context": 2048}
