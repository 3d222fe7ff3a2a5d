"""Random small configs of Apertus 1.5's text model and the families added beside it (HRM-Text, LFM3, Lara Mini),
written as a config.json would be: the decoder strategy's sizes and switches, and each family's own keys drawn or
left out (a pruned LM head, per-stack layer counts, layer types, linear-attention and expert sizes)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config


def apertus1p5_text_config(draw) -> dict:
    """Apertus 1.5's text model: an LM head pruned to the first output_vocab_size rows (any of 1 to the vocabulary;
    equal to it or null, unpruned), drawn or left out, tied or not."""
    cfg = decoder_config(draw, "apertus1p5_text")
    vocab = cfg["vocab_size"]
    _maybe(draw, "output_vocab_size", draw(st.sampled_from([None, 1, vocab // 2 or 1, vocab])), cfg)
    return cfg


STRATEGIES.update({"apertus1p5_text": apertus1p5_text_config})
