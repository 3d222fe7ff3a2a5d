"""A pad_token_id outside an embedding's rows: one check (families/common.pad_token_problem) for every family,
naming the embedding that refuses it and its vocabulary, at pad_token_id's key (else the vocabulary's)."""

from __future__ import annotations

import json

import pytest

from config_models import analyze


def _error(config: dict):
    problems = [p for p in analyze(config, json.dumps(config, indent=1)).problems if p.severity == "error"]
    assert len(problems) == 1, problems
    return problems[0]


@pytest.mark.parametrize(("config", "message", "key"), [
    ({"model_type": "llama", "vocab_size": 100, "pad_token_id": 200},
     "pad_token_id 200 is outside the vocabulary (vocab_size 100): the token embedding refuses it", "pad_token_id"),
    ({"model_type": "marian", "vocab_size": 300, "decoder_vocab_size": 100, "pad_token_id": 200},
     "pad_token_id 200 is outside the vocabulary (decoder_vocab_size 100): the decoder's token embedding refuses it",
     "pad_token_id"),
    ({"model_type": "gemma3n_text", "vocab_size": 300, "vocab_size_per_layer_input": 100, "pad_token_id": 200},
     "pad_token_id 200 is outside the vocabulary (vocab_size_per_layer_input 100): the per-layer embedding refuses it",
     "pad_token_id"),
    ({"model_type": "gemma4_text", "vocab_size": 300, "vocab_size_per_layer_input": 100, "pad_token_id": 200,
      "hidden_size_per_layer_input": 8},
     "pad_token_id 200 is outside the vocabulary (vocab_size_per_layer_input 100): the per-layer embedding refuses it",
     "pad_token_id"),
    # The class default pad (0 for Gemma) is in any vocabulary; a negative one counts from the end.
    ({"model_type": "gemma3n_text", "vocab_size": 300, "vocab_size_per_layer_input": 100, "pad_token_id": -150},
     "pad_token_id -150 is outside the vocabulary (vocab_size_per_layer_input 100): the per-layer embedding refuses "
     "it", "pad_token_id"),
    # Not written: the class default, located at the vocabulary that refuses it.
    ({"model_type": "mllama_text_model", "vocab_size": 8},
     "pad_token_id (class default) 128004 is outside the token embedding (vocab_size 8 + 8 rows): nn.Embedding "
     "refuses it", "vocab_size"),
])
def test_the_embedding_that_refuses_the_pad_is_named_at_the_key(config: dict, message: str, key: str) -> None:
    problem = _error(config)
    assert (problem.code, problem.message) == ("LC103", message)
    lines = json.dumps(config, indent=1).splitlines()
    assert lines[problem.span.start.line].strip().startswith(f'"{key}"')


def test_a_pad_inside_every_embedding_is_no_problem() -> None:
    config = {"model_type": "gemma3n_text", "vocab_size": 300, "vocab_size_per_layer_input": 100, "pad_token_id": 99}
    assert not [p for p in analyze(config).problems if p.severity == "error"]
