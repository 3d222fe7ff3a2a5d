"""Mixtral without head_dim under a RoPE type that reads it (dynamic, YaRN, LongRoPE): MixtralConfig keeps head_dim
None and transformers cannot build the model, so lsp-count refuses it at the RoPE key, and counts the rest
(tests/parity/test_rope_type_parity.py compares both with transformers on random configs)."""

from __future__ import annotations

import json

import pytest

from config_models import analyze, error_messages

SMALL = {"model_type": "mixtral", "vocab_size": 10, "hidden_size": 16, "intermediate_size": 8, "num_hidden_layers": 1,
         "num_attention_heads": 2, "num_key_value_heads": 1, "num_local_experts": 2}
YARN = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64, "rope_theta": 10000.0}


@pytest.mark.parametrize("key", ["rope_parameters", "rope_scaling"])
def test_yarn_without_head_dim_is_refused_at_the_rope_key(key: str) -> None:
    config = {**SMALL, key: YARN}
    text = json.dumps(config, indent=1)
    (problem,) = [p for p in analyze(config, text).problems if p.severity == "error"]
    assert problem.message == ('head_dim is not written, and MixtralConfig keeps it None: the "yarn" RoPE of '
                               f"{key} computes its width from head_dim, so transformers fails to build the model "
                               "(TypeError); write head_dim: hidden_size / num_attention_heads is 8")
    assert text.splitlines()[problem.span.start.line].strip().startswith(f'"{key}"')


def test_a_null_head_dim_is_said_so() -> None:
    (message,) = error_messages({**SMALL, "head_dim": None, "rope_parameters": {"rope_type": "dynamic", "factor": 2.0}})
    assert message.startswith('"head_dim": null, and MixtralConfig keeps it None: the "dynamic" RoPE')


@pytest.mark.parametrize("rope", [{"rope_type": "linear", "factor": 2.0},
                                  {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                   "original_max_position_embeddings": 64}])
def test_the_types_that_fall_back_to_hidden_size_over_heads_are_counted(rope: dict) -> None:
    assert not error_messages({**SMALL, "rope_parameters": {**rope, "rope_theta": 10000.0}})


def test_a_written_head_dim_is_counted() -> None:
    assert not error_messages({**SMALL, "head_dim": 8, "rope_parameters": YARN})
