"""Misspelt config keys (LC107, core/config_keys.py): a key no config class reads, close to one the
family reads and the file does not write, is a warning naming the key meant; the count is what
transformers builds (the default of the key meant), and nothing else is taken for a slip."""

from __future__ import annotations

import subprocess
import sys

from config_models import analyze, catalog_config, model

LLAMA = catalog_config("meta-llama/Llama-3.2-1B")


def _slips(config: dict) -> list:
    return [p for p in analyze(config).problems if p.code == "LC107"]


def test_a_misspelt_key_is_a_warning_at_the_key_naming_the_key_meant_and_the_value_used() -> None:
    config = {k: v for k, v in LLAMA.items() if k != "hidden_size"} | {"hiden_size": 1024}
    (slip,) = _slips(config)
    assert slip.severity == "warning"
    assert slip.message == ('"hiden_size" is not a key the llama config reads: did you mean "hidden_size"? '
                            '(not written, so hidden_size is 4,096)')
    assert dict(slip.data) == {"key": "hidden_size"}
    text = analyze(config).lines.line_text(slip.span.start.line)
    assert text[slip.span.start.column:slip.span.end.column] == '"hiden_size"'
    # Counted as transformers builds it: 4,096 wide, as if the key were absent.
    absent = {k: v for k, v in LLAMA.items() if k != "hidden_size"}
    assert model(config).tree.total == model(absent).tree.total != model(LLAMA).tree.total


def test_no_slip_where_the_key_meant_is_written_too() -> None:
    assert _slips(LLAMA | {"hiden_size": 1024}) == []


def test_keys_of_tools_short_ones_and_other_families_leftovers_are_not_slips() -> None:
    # n_layer beside num_hidden_layers is a leftover (both written: the file meant both); Llama
    # has no experts, so num_experts_per_tok names nothing it reads.
    others = {"n_layer": 3, "num_experts_per_tok": 2, "_num_labels": 3, "_name_or_path": "x", "n_ctx": 8}
    config = {k: v for k, v in LLAMA.items() if k != "num_attention_heads"} | others
    assert _slips(config) == []


def test_another_family_s_name_for_a_size_is_a_warning_naming_this_family_s_key() -> None:
    config = {k: v for k, v in LLAMA.items() if k not in ("num_hidden_layers", "hidden_size")}
    first, second = _slips(config | {"n_layer": 3, "d_model": 512})
    assert first.message == ('"n_layer" is gpt2\'s key, not one the llama config reads: did you mean '
                             '"num_hidden_layers"? (not written, so num_hidden_layers is 32)')
    assert dict(first.data) == {"key": "num_hidden_layers"}
    assert second.message.startswith('"d_model" is ') and second.message.endswith(
        'did you mean "hidden_size"? (not written, so hidden_size is 4,096)')
    # Counted as transformers builds it: the class's 32 layers, 4,096 wide.
    assert model(config | {"n_layer": 3, "d_model": 512}).tree.total == model(config).tree.total


def test_an_alias_of_this_family_s_own_is_no_other_family_s_name() -> None:
    # GPT-2 reads hidden_size through its attribute_map (its n_embd): not a foreign key there.
    config = {"model_type": "gpt2", "hidden_size": 64, "n_layer": 2, "n_head": 2, "vocab_size": 100}
    assert _slips(config) == []
    # OPT's ffn_dim is what GPT-2 calls n_inner. (Not intermediate_size, which Mixtral reads as
    # its experts' width: a key whose meaning differs between families is never taken.)
    assert _slips(config | {"intermediate_size": 256}) == []
    (slip,) = _slips(config | {"ffn_dim": 256})
    assert 'did you mean "n_inner"?' in slip.message


def test_a_slip_in_a_nested_text_config_is_found_there() -> None:
    config = catalog_config("llava-hf/llava-1.5-7b-hf")
    text = dict(config.get("text_config") or {})
    text.pop("num_hidden_layers", None)
    (slip,) = _slips(config | {"text_config": text | {"num_hiden_layers": 2}})
    assert 'did you mean "num_hidden_layers"' in slip.message


def test_the_cli_prints_the_warning_with_file_and_line_and_exits_0(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama",\n  "vocab_sise": 1000}\n')
    done = subprocess.run([sys.executable, "-m", "lsp_count", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f'{path}:2:3: warning: "vocab_sise" is not a key the llama config reads: did you mean "vocab_size"? ' \
           f'(not written, so vocab_size is 32,000) [LC107]' in done.stdout + done.stderr
