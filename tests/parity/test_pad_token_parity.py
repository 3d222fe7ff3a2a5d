"""A pad_token_id outside the vocabulary is refused where transformers refuses it: the token embedding's
padding index (nn.Embedding asserts it lies within its rows, negative ones counting from the end), in every
family whose embedding takes one; counted where the family's embedding takes none (GPT-2, Falcon, ...).
Random small configs of every family, the pad written just inside, at, and past either end of the
vocabulary, or left to the class default (GLM's 151,329, Phi-3's 32,000, SmolLM3's 128,004 in a small
vocabulary)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.families import supported_model_types

from .meta_count import ODD_ROTARY, lsp_count_verdict, transformers_verdict
from .strategies import strategy_for

TYPES = [mt for mt in supported_model_types() if strategy_for(mt) is not None]


@pytest.mark.parametrize("model_type", TYPES)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_pad_token_id_is_refused_where_the_embedding_refuses_it(model_type, data) -> None:
    config = data.draw(strategy_for(model_type))
    vocab = config.get("vocab_size")
    if not isinstance(vocab, int):
        return  # a composite's vocabulary is its text model's: the text model's own family checks it
    where = data.draw(st.sampled_from(["default", -vocab - 1, -vocab, -1, vocab - 1, vocab, vocab + 3]))
    config = {k: v for k, v in config.items() if k != "pad_token_id"}
    if where != "default":
        config["pad_token_id"] = where
    theirs = transformers_verdict(config)
    ours, errors = lsp_count_verdict(config)
    if theirs == ODD_ROTARY:
        return  # refused for its RoPE width (test_rope_odd_width_parity.py)
    assert (ours is None) == (theirs is None), (config, theirs, ours, errors)
    assert ours == theirs, (config, theirs, ours, errors)
