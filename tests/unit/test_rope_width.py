"""An odd head width under rotary positions, without torch: transformers 5 refuses a config whose
head_dim is odd, over 4 and fully rotated (its RoPE turns pairs of values), and cannot build YaRN's
rotary embedding for an odd number of rotated values over 4, so lsp-count gives an LC103 error at the
key that says so instead of a count (tests/parity/test_rope_odd_width_parity.py
judges every family against transformers). Each total below was taken from transformers 5.25 on
the meta device first."""

from __future__ import annotations

import json
import pathlib

from config_models import analyze as report_of, errors, model

from lsp_count.core.analyze import analyze_text
from lsp_count.core.catalog import CATALOG_DIR

LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 64, "hidden_size": 32,
         "num_attention_heads": 4, "intermediate_size": 16, "num_hidden_layers": 1}


def analyze(config: dict):
    """(the config.json text, its report), for the positions a problem names."""
    text = json.dumps(config, indent=2)
    return text, report_of(config, text)


def total(config: dict) -> int:
    return model(config).tree.total


def test_a_written_odd_head_dim_is_refused_at_its_key() -> None:
    text = """{
  "model_type": "llama",
  "architectures": ["LlamaForCausalLM"],
  "hidden_size": 4096,
  "num_attention_heads": 32,
    "head_dim": 127
}"""
    report = analyze_text(text, "model/config.json")
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.code == "LC103" and not report.models
    assert (error.span.start.line, error.span.start.column) == (5, 4)  # the "head_dim" key
    assert error.message == (
        "head_dim 127 is odd and fully rotated (partial_rotary_factor 1.0): transformers' RoPE needs an even "
        "rotary dimension and refuses the config (give an even head_dim, or a partial_rotary_factor under 1)")


def test_an_odd_derived_head_width_is_refused_at_the_head_count() -> None:
    # 4,095 / 35 = 117, which LlamaConfig holds as its head_dim.
    text, report = analyze({**LLAMA, "hidden_size": 4095, "num_attention_heads": 35})
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.message.startswith("the head width 117 (hidden_size 4095 / num_attention_heads 35) is odd")
    assert text.splitlines()[error.span.start.line][error.span.start.column:].startswith('"num_attention_heads"')


def test_a_null_head_dim_that_the_class_fills_with_an_odd_width_says_so() -> None:
    # Seed-OSS: a null head_dim is hidden_size / num_attention_heads, 4,096 / 80 = 51.
    (error,) = errors({"model_type": "seed_oss", "architectures": ["SeedOssForCausalLM"], "head_dim": None})
    assert error.message.startswith('"head_dim": null, which the config class fills with 51, is odd')


def test_a_partly_rotated_odd_head_counts() -> None:
    # Phi rotates half of each head (int(9 × 0.5) = 4): its odd heads build; written 1.0, the whole head turns.
    phi = {"model_type": "phi", "architectures": ["PhiForCausalLM"], "vocab_size": 64, "hidden_size": 36,
           "num_attention_heads": 4, "intermediate_size": 16, "num_hidden_layers": 1}
    assert total(phi) == 11_348
    assert total({**phi, "head_dim": 9}) == 11_348
    (error,) = errors({**phi, "head_dim": 9, "partial_rotary_factor": 1.0})
    assert error.message.startswith("head_dim 9 is odd and fully rotated")
    # Llama rotates whole heads unless the file says otherwise, at the top level or in rope_parameters.
    assert total({**LLAMA, "head_dim": 9, "partial_rotary_factor": 0.5}) == 10_336
    assert total({**LLAMA, "head_dim": 9, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.5}}) \
        == 10_336
    # GPT-NeoX's share is its rotary_pct (0.25 unless given).
    neox = {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "vocab_size": 64, "hidden_size": 36,
            "num_attention_heads": 4, "intermediate_size": 16, "num_hidden_layers": 1, "head_dim": 9}
    assert total(neox) == 11_356
    (error,) = errors({**neox, "rotary_pct": 1.0})
    assert error.message.endswith("(give an even head_dim, or a rotary_pct under 1)")


def test_a_width_of_at_most_4_and_an_even_width_count() -> None:
    # transformers lets odd widths up to 4 through (tiny test checkpoints), and every even one.
    assert total({**LLAMA, "head_dim": 3}) == 7_264
    assert total({**LLAMA, "hidden_size": 12}) == 2_724  # 3 wide, derived
    assert total({**LLAMA, "head_dim": 128}) == 71_264
    assert total({**LLAMA, "hidden_size": 36, "num_attention_heads": 2}) == 11_628  # 18 wide


def test_a_class_that_holds_no_head_dim_builds_an_odd_derived_width() -> None:
    # Qwen2Config keeps a head_dim only where the file gives one: 36 / 4 = 9 is not checked, and builds.
    qwen2 = {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 64, "hidden_size": 36,
             "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 16, "num_hidden_layers": 1}
    assert total(qwen2) == 11_736
    (error,) = errors({**qwen2, "head_dim": 9})
    assert error.message.startswith("head_dim 9 is odd")


def test_per_layer_type_rope_parameters_are_checked_for_each_layer_type() -> None:
    # Gemma 3's two layers are sliding ones: the sliding entry's share is what counts.
    gemma3 = {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "vocab_size": 64, "hidden_size": 32,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 9, "intermediate_size": 16,
              "num_hidden_layers": 2}
    (error,) = errors({**gemma3, "rope_parameters": {"full_attention": {"rope_type": "default",
                                                                         "partial_rotary_factor": 0.5}}})
    assert "(partial_rotary_factor 1.0 for sliding_attention layers)" in error.message
    assert 'rope_parameters["sliding_attention"]' in error.message
    halves = {t: {"rope_type": "default", "partial_rotary_factor": 0.5}
              for t in ("full_attention", "sliding_attention")}
    assert total({**gemma3, "rope_parameters": halves}) == 12_356


def test_an_odd_number_of_rotated_values_under_yarn_is_refused() -> None:
    # GPT-OSS's rotary positions are YaRN's unless the file says otherwise: half of a head 10 wide is 5
    # values, for which YaRN's frequencies do not build (3 of a head 6 wide would).
    oss = {"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], "vocab_size": 64, "hidden_size": 32,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 10, "intermediate_size": 16,
           "num_hidden_layers": 1, "num_local_experts": 2, "num_experts_per_tok": 1}
    assert total(oss) == 11_414
    text, report = analyze({**oss, "partial_rotary_factor": 0.5})
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.message.startswith('head_dim 10 rotates 5 values under YaRN (rope_type "yarn", '
                                    "partial_rotary_factor 0.5), an odd number")
    assert text.splitlines()[error.span.start.line][error.span.start.column:].startswith('"head_dim"')
    assert total({**oss, "partial_rotary_factor": 0.6}) == 11_414  # 6 values
    assert total({**oss, "partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "default"}}) == 11_414


def test_two_rotated_values_under_dynamic_scaling_are_refused() -> None:
    # Dynamic NTK scaling raises the base to the power dim / (dim - 2): a head 4 wide, half of it rotated, divides
    # by zero as transformers builds the model; 4 rotated values build. Cohere2-MoE's rope_parameters, which its
    # class keeps as written, is judged by the same rule.
    llama = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 10, "hidden_size": 8,
             "intermediate_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
             "head_dim": 4, "rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}}
    assert total(llama) == 2 * 10 * 8 + 8 + (64 + 32 + 32 + 64) + 3 * 8 * 8 + 2 * 8  # 568: embeddings, norm, attention, MLP
    halved = {**llama, "rope_parameters": {**llama["rope_parameters"], "partial_rotary_factor": 0.5}}
    text, report = analyze(halved)
    (error,) = [p for p in report.problems if p.severity == "error"]
    assert error.message == ('head_dim 4 rotates 2 values under dynamic NTK scaling (rope_type "dynamic", '
                             "partial_rotary_factor 0.5), which transformers raises the RoPE base to the power "
                             "dim / (dim - 2) with, dividing by zero as it builds the model (give a head width and "
                             "partial_rotary_factor that rotate more than 2)")
    assert text.splitlines()[error.span.start.line][error.span.start.column:].startswith('"head_dim"')
    cohere = {"model_type": "cohere2_moe", "vocab_size": 12, "hidden_size": 8, "num_hidden_layers": 1,
              "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 2,
              "rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}}
    (message,) = [p.message for p in errors(cohere)]
    assert message.startswith("head_dim 2 rotates 2 values under dynamic NTK scaling (partial_rotary_factor 1.0 in "
                              "rope_parameters), which transformers raises")


def test_no_bundled_hub_config_has_an_odd_rotary_width() -> None:
    paths = sorted(pathlib.Path(CATALOG_DIR).rglob("*.json"))
    assert len(paths) > 100
    refused = [str(p) for p in paths
               if any("even rotary dimension" in q.message for q in analyze_text(p.read_text(), str(p)).problems)]
    assert not refused
