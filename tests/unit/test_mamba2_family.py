"""Mamba-2 (mamba2: Mamba2ForCausalLM / Mamba2Model), without torch: totals transformers 5.25 builds on the meta
device (each number below was taken from ``sum(p.numel() for p in model.parameters())`` there first, and the
parity tests check random configs against it), the config Mamba2Config refuses refused at the key, and the
memory lines of the layout it shares with mamba (an SSM state, no KV cache)."""

from __future__ import annotations

import json

import pytest
from config_models import analyze, model as count

from lsp_count.core.memory import Settings, estimate_memory

# hidden 16, expand 2 (the mixer 32 wide), 4 heads of 8, 2 groups of state 4, conv kernel 4 (default), 2 layers,
# vocab 50; use_bias false, use_conv_bias true, tie_word_embeddings false (the class defaults).
SMALL = {"model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"], "hidden_size": 16, "expand": 2,
         "num_heads": 4, "head_dim": 8, "n_groups": 2, "state_size": 4, "num_hidden_layers": 2, "vocab_size": 50,
         "torch_dtype": "bfloat16"}
CHANNELS = 32 + 2 * 2 * 4  # the conv's: x (32) + B and C (n_groups · state_size each)
MIXER = (16 * (32 + CHANNELS + 4)  # in_proj: gate, x·B·C, dt (one per head); no bias
         + CHANNELS * 4 + CHANNELS  # depthwise conv1d, weight (48, 1, 4) and bias
         + 3 * 4  # dt_bias, A_log, D: one per head
         + 32  # the gated RMSNorm over the mixer's width
         + 32 * 16)  # out_proj
SMALL_PARAMS = 50 * 16 + 2 * (MIXER + 16) + 16 + 50 * 16  # embeddings, blocks (mixer + RMSNorm), norm_f, lm_head


def written(config: dict):
    """(the config.json text, its report), for the positions a problem names."""
    text = json.dumps(config, indent=2)
    return text, analyze(config, text)


def test_a_small_config_counted_by_hand() -> None:
    model = count(SMALL)
    assert MIXER == 2140
    assert model.tree.total == SMALL_PARAMS == 5_928  # transformers: 5,928
    assert model.tree.components() == {"embeddings": 800, "layers": 4312, "final_norm": 16, "lm_head": 800}
    mixer = model.tree.root.find("layers.mixer")
    assert {t.name: t.shape for t in mixer.tensors} == {
        "in_proj.weight": (84, 16), "conv1d.weight": (CHANNELS, 1, 4), "conv1d.bias": (CHANNELS,),
        "dt_bias": (4,), "A_log": (4,), "D": (4,), "norm.weight": (32,), "out_proj.weight": (16, 32)}
    # Every parameter trains; no experts, so no active part apart from the total.
    assert model.tree.trainable == model.tree.total
    assert model.tree.active is None


def test_switches_tie_and_the_bare_model() -> None:
    # per layer, use_bias: in_proj (84) and out_proj (16); no conv bias (48): transformers 6,032
    assert count({**SMALL, "use_bias": True, "use_conv_bias": False}).tree.total == SMALL_PARAMS + 2 * (84 + 16 - 48) == 6_032
    assert count({**SMALL, "tie_word_embeddings": True}).tree.total == SMALL_PARAMS - 800 == 5_128
    assert count({**SMALL, "architectures": ["Mamba2Model"]}).tree.total == SMALL_PARAMS - 800
    # n_groups need not divide the heads: the model builds (transformers 6,264)
    assert count({**SMALL, "n_groups": 3}).tree.total == 6_264


def test_class_defaults_are_codestral_mamba_s() -> None:
    # Mamba2Config's defaults (Mamba-Codestral-7B's sizes): transformers 7,285,403,648; Mamba2Model 7,151,185,920
    assert count({"model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"]}).tree.total == 7_285_403_648
    assert count({"model_type": "mamba2", "architectures": ["Mamba2Model"]}).tree.total == 7_151_185_920
    # intermediate_size is not a key of Mamba2Config: the mixer is expand × hidden_size wide whatever it says
    assert count({**SMALL, "intermediate_size": 5}).tree.total == SMALL_PARAMS


def test_heads_that_are_not_the_mixer_s_width_are_refused_at_the_key() -> None:
    text, report = written({**SMALL, "head_dim": 4})  # 4 × 4 = 16, not 2 × 16: Mamba2Config refuses it
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert problem.code == "LC103"
    assert "num_heads (4) × head_dim (4) is 16, not expand (2) × hidden_size (16) = 32" in problem.message
    line = next(i for i, row in enumerate(text.splitlines()) if '"num_heads"' in row)
    assert (problem.span.start.line, problem.span.start.column) == (line, text.splitlines()[line].index('"num_heads"'))


@pytest.mark.parametrize("key,value,what", [("expand", 2.0, "float"), ("n_groups", None, "null"),
                                            ("time_step_rank", "x", "whole number")])
def test_values_the_config_class_refuses(key, value, what) -> None:
    text, report = written({**SMALL, key: value})
    errors = [p for p in report.problems if p.severity == "error"]
    assert errors and f'"{key}"' in errors[0].message and what in errors[0].message, errors
    line = next(i for i, row in enumerate(text.splitlines()) if f'"{key}"' in row)
    assert errors[0].span.start.line == line


def test_inference_memory_has_an_ssm_state_and_no_kv_cache() -> None:
    model = count(SMALL)
    lines = {}
    for context in (100, 100_000):
        r = estimate_memory(model, Settings(context=context, batch=2))
        lines[context] = {l.name: l for l in r.lines}
        assert r.total_bytes == sum(l.bytes for l in r.lines)
    assert lines[100]["weights"].bytes == 2 * SMALL_PARAMS and lines[100]["weights"].exact
    # The SSM state does not grow with the context: transformers 5.25's cache holds per layer and sequence
    # conv_states (intermediate + 2·n_groups·state_size, conv_kernel) in the model's dtype and
    # recurrent_states (num_heads, head_dim, state_size) in float32 (tests/parity/test_ssm_state_parity.py).
    assert lines[100]["kv_cache"].bytes == lines[100_000]["kv_cache"].bytes == 2 * 2 * (CHANNELS * 4 * 2 + 4 * 8 * 4 * 4)
    assert "SSM state" in lines[100]["kv_cache"].detail


def test_heads_that_n_groups_does_not_divide_build_but_cannot_run() -> None:
    _text, report = written({**SMALL, "n_groups": 3, "num_heads": 4})
    assert report.models[0].tree.total and not report.has_errors
    (warning,) = [p for p in report.problems if p.code == "LC103"]
    assert warning.severity == "warning" and "n_groups (3) does not divide num_heads (4)" in warning.message


def test_training_memory() -> None:
    n = SMALL_PARAMS
    r = estimate_memory(count(SMALL), Settings(mode="train", context=100, batch=2))
    assert [(l.name, l.bytes) for l in r.lines[:4]] == [
        ("weights", 2 * n), ("gradients", 2 * n), ("master_weights", 4 * n), ("optimizer_states", 8 * n)]
    assert all(l.exact for l in r.lines[:4])
    assert r.line("activations").bytes > 0 and "kv_cache" not in {l.name for l in r.lines}
    assert r.total_bytes == sum(l.bytes for l in r.lines)
