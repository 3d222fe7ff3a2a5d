"""A config.json that writes two spellings of one key (families/attribute_maps.py): the count takes the one
transformers' config class keeps, and the other spelling, where its value differs, is an LC103 warning at its key.
(tests/parity/test_config_alias_parity.py compares the counts with transformers for every family.)"""

from __future__ import annotations

import json

from lsp_count.core.analyze import analyze_text

# GPT-2 with one 16-wide layer, 10 tokens, 4 positions: wte 10·16 + wpe 4·16, ln_1 and ln_2 2·(2·16), c_attn 16·48 + 48,
# attn.c_proj 16·16 + 16, mlp.c_fc 16·64 + 64, mlp.c_proj 64·16 + 16, ln_f 2·16.
GPT2_16 = 160 + 64 + 64 + (768 + 48) + (256 + 16) + (1024 + 64) + (1024 + 16) + 32
GPT2 = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_head": 2, "n_layer": 1, "vocab_size": 10,
        "n_positions": 4}


def _analyze(pairs: list[tuple[str, object]]):
    text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "\n}"
    return analyze_text(text, "model/config.json")


def test_the_attribute_map_alias_wins_in_either_order_and_the_other_spelling_is_a_warning_at_its_key() -> None:
    assert GPT2_16 == 3536
    for pairs in ([*GPT2.items(), ("n_embd", 8), ("hidden_size", 16)],
                  [("hidden_size", 16), *GPT2.items(), ("n_embd", 8)]):
        report = _analyze(pairs)
        assert report.models[0].tree.total == GPT2_16
        [warning] = [p for p in report.problems if p.code == "LC103"]
        assert warning.severity == "warning"
        assert warning.message.startswith("`n_embd` (8) is overridden by `hidden_size` (16), written too")
        assert "transformers' config class keeps `hidden_size`" in warning.message
        line = [k for k, _ in pairs].index("n_embd") + 1  # (the text's line of the key, 0-based after the brace)
        assert (warning.span.start.line, warning.span.start.column) == (line, 2)


def test_two_spellings_at_one_value_say_nothing() -> None:
    report = _analyze([*GPT2.items(), ("n_embd", 16), ("hidden_size", 16)])
    assert report.models[0].tree.total == GPT2_16
    assert not [p for p in report.problems if p.code == "LC103"]


def test_of_two_keys_the_class_sets_after_its_fields_the_later_in_the_file_wins() -> None:
    # Zamba2Config takes both head_dim and attention_head_dim as keywords beside its fields: the later one is kept.
    base = {"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 16,
            "num_attention_heads": 2, "num_key_value_heads": 2, "num_hidden_layers": 2,
            "layers_block_type": ["mamba", "hybrid"], "vocab_size": 16, "mamba_d_state": 4, "n_mamba_heads": 2,
            "intermediate_size": 8}
    first = _analyze([*base.items(), ("head_dim", 8), ("attention_head_dim", 16)])
    second = _analyze([*base.items(), ("attention_head_dim", 16), ("head_dim", 8)])
    assert not first.has_errors and not second.has_errors, (first.problems, second.problems)
    assert first.models[0].tree.total != second.models[0].tree.total
    # one warning, at the spelling not counted
    [warning] = [p.message for p in first.problems if p.code == "LC103"]
    assert warning.startswith("`head_dim` (8) is overridden by `attention_head_dim` (16)")
    [warning] = [p.message for p in second.problems if p.code == "LC103"]
    assert warning.startswith("`attention_head_dim` (16) is overridden by `head_dim` (8)")
