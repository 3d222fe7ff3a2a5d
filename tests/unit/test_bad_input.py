"""Hostile files: a clear message naming file and line:col, exit 2, no traceback, fast."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lsp_count.core.analyze import analyze_bytes

CASES = {
    "empty": (b"", "empty file", None),
    "binary": (b"\x00\x01\x02binary", "binary file", None),
    "invalid_utf8": (b'{"a": "\xff\xfe"}', "invalid UTF-8", (1, 8)),
    "truncated": (b'{"model_type": "llama", "hidden_size": 4096', "Expecting", (1, 44)),
    "invalid_json": (b'{"model_type": "llama",, }', "Expecting", (1, 24)),
    "not_object": (b"[1, 2, 3]", "not a JSON object", (1, 1)),
    # Python's json reads NaN and Infinity (so transformers does); as a size they are no whole number.
    "nan": (b'{"model_type": "llama", "hidden_size": NaN}', '"hidden_size": expected a whole number, got the number nan',
            (1, 40)),
    "infinity": (b'{"model_type": "llama",\n "hidden_size": -Infinity}',
                 '"hidden_size": expected a whole number, got the number -inf', (2, 17)),
    "string_for_number": (b'{"model_type": "llama", "hidden_size": "4096"}', 'expected a whole number, got the string', (1, 40)),
    "negative": (b'{"model_type": "llama", "num_hidden_layers": -3}', "must be at least 1, got -3", (1, 46)),
    "zero": (b'{"model_type": "llama", "num_attention_heads": 0}', "must be at least 1, got 0", (1, 48)),
    "bool_for_number": (b'{"model_type": "llama", "vocab_size": true}', "got a boolean", (1, 39)),
    "float_for_number": (b'{"model_type": "llama", "vocab_size": 3.5}', "whole number", (1, 39)),
    "whole_float_for_number": (b'{"model_type": "llama", "vocab_size": 32000.0}',
                               "got 32000.0: transformers' config class refuses a float here (write 32000)", (1, 39)),
    "heads_not_dividing": (b'{"model_type": "llama",\n  "hidden_size": 4001,\n  "num_attention_heads": 32}',
                           "does not divide hidden_size (4001) and no head_dim is given", (3, 3)),
    # (Llama builds such a model, counted with a warning; Beam's config class refuses it)
    "kv_not_dividing": (b'{"model_type": "beam", "num_attention_heads": 32, "num_key_value_heads": 5}',
                        "must divide num_attention_heads (32): BeamForCausalLM's config class refuses", (1, 51)),
    "absurd_dimension": (b'{"model_type": "llama", "hidden_size": 10000000000}', "larger than any real model dimension", (1, 40)),
    # A billion layers passes the dimension limit but is no model: per-layer lists would take minutes and gigabytes.
    "absurd_layer_count": (b'{"model_type": "qwen2", "num_hidden_layers": 1000000000}',
                           "1,000,000,000 is larger than any real model layer count (limit 100,000)", (1, 46)),
    "absurd_total": (b'{"model_type": "llama", "hidden_size": 900000000, "intermediate_size": 900000000, '
                     b'"num_attention_heads": 1, "num_hidden_layers": 100000}', "beyond any real model", (1, 1)),
    "null_for_number": (b'{"model_type": "llama", "hidden_size": null}', '"hidden_size": null is not a whole number',
                        (1, 40)),
    "short_per_layer_list": (b'{"model_type": "smollm3", "no_rope_layers": [1], "use_sliding_window": true, '
                             b'"sliding_window": 64}', '"no_rope_layers": 1 entries for 36 layers', (1, 27)),
    "not_a_model": (b'{"name": "my-app", "version": 3}', "no model config recognized", (1, 1)),
    "unknown_model_type": (b'{"model_type": "my_new_arch", "hidden_size": 64}', "not supported for exact counting", (1, 16)),
    "deep_nesting": (b"[" * 200_000 + b"]" * 200_000, "nesting deeper than", (1, 258)),
    "deep_nesting_in_object": (b'{"model_type": "llama", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nesting deeper than", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_is_a_located_problem(name: str) -> None:
    data, message, where = CASES[name]
    report = analyze_bytes(data, f"{name}.json")
    assert not report.models or report.has_errors or name == "unknown_model_type"
    problem = next((p for p in report.problems if message in p.message), None)
    assert problem is not None, [p.message for p in report.problems]
    if where is not None:
        assert problem.span is not None
        assert (problem.span.start.line + 1, problem.span.start.column + 1) == where


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_exits_2_with_file_and_position_and_no_traceback(tmp_path, name: str) -> None:
    data, message, where = CASES[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "lsp_count", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "Traceback" not in out
    assert message in out
    expected_location = f"{path}:{where[0]}:{where[1]}:" if where else f"{path}:"
    assert expected_location in out


def test_json_output_lists_problems_with_1_based_positions(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama",\n  "hidden_size": "big"}')
    done = subprocess.run([sys.executable, "-m", "lsp_count", "--json", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    payload = json.loads(done.stdout)
    (problem,) = [p for p in payload["files"][0]["problems"] if p["severity"] == "error"]
    assert (problem["line"], problem["column"], problem["code"]) == (2, 18, "LC102")


def test_missing_file_and_directory_are_input_errors(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "lsp_count", str(tmp_path / "nope.json"), str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "No such file" in done.stderr and "is a directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_error_exits_2() -> None:
    done = subprocess.run([sys.executable, "-m", "lsp_count", "--no-such-flag", "x.json"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "unrecognized arguments" in done.stderr and "Traceback" not in done.stderr


def test_one_good_and_one_bad_file_reports_both(tmp_path) -> None:
    good = tmp_path / "good" / "config.json"
    good.parent.mkdir()
    good.write_text('{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}')
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = subprocess.run([sys.executable, "-m", "lsp_count", "--json", str(good), str(bad)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    files = json.loads(done.stdout)["files"]
    assert files[0]["models"][0]["params"]["total"] == 124_439_808
    assert files[1]["problems"][0]["severity"] == "error"


def test_python_warnings_about_the_analysed_code_are_not_printed(tmp_path) -> None:
    """`1if x else 2` makes ast.parse warn (SyntaxWarning); that is the user's code, not a message
    of ours: stderr stays empty and the class is counted."""
    path = tmp_path / "model.py"
    path.write_text("import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n"
                    "        super().__init__()\n        self.fc = nn.Linear(1if True else 2, 2)\n")
    done = subprocess.run([sys.executable, "-m", "lsp_count", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "Net" in done.stdout and "4" in done.stdout


@pytest.mark.parametrize("text", ["", "import os\nx = 1\n", "class Plain:\n    pass\n"])
def test_a_python_file_without_a_model_says_so(tmp_path, text: str) -> None:
    # It exited 2 with nothing printed: exit 2 always comes with a located message.
    path = tmp_path / "utils.py"
    path.write_text(text)
    done = subprocess.run([sys.executable, "-m", "lsp_count", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"{path}:1:1: error: no model found: the file defines no nn.Module class (a function that "
                           f"builds one is counted with --function NAME) [LC002]\n")
