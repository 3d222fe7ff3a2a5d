"""Random small configs of Apertus 1.5's text model and the families added beside it (HRM-Text, LFM3, Lara Mini),
written as a config.json would be: the decoder strategy's sizes and switches, and each family's own keys drawn or
left out (a pruned LM head, per-stack layer counts, layer types, linear-attention and expert sizes)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config, draw_architecture


def apertus1p5_text_config(draw) -> dict:
    """Apertus 1.5's text model: an LM head pruned to the first output_vocab_size rows (any of 1 to the vocabulary;
    equal to it or null, unpruned), drawn or left out, tied or not."""
    cfg = decoder_config(draw, "apertus1p5_text")
    vocab = cfg["vocab_size"]
    _maybe(draw, "output_vocab_size", draw(st.sampled_from([None, 1, vocab // 2 or 1, vocab])), cfg)
    return cfg


STRATEGIES.update({"apertus1p5_text": apertus1p5_text_config})


def hrm_text_config(draw) -> dict:
    """HRM-Text: multi-head attention (no key/value head count), a head_dim written or the default 128; the layers of
    each stack as num_hidden_layers, or (a config transformers saved) as num_layers_per_stack beside
    num_hidden_layers inflated by the cycles; the cycle counts and the switches drawn or left out."""
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"model_type": "hrm_text", "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
                 "vocab_size": draw(st.integers(8, 300)), "hidden_size": heads * draw(st.sampled_from([4, 8])),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(4, 96)),
                 "max_position_embeddings": draw(st.integers(16, 128))}
    _maybe(draw, "head_dim", draw(st.sampled_from([4, 8, 16])), cfg)
    for switch in ("attention_bias", "mlp_bias", "tie_word_embeddings"):
        _maybe(draw, switch, draw(st.booleans()), cfg)
    per_stack = draw(st.integers(1, 3))
    cfg["num_hidden_layers"] = per_stack
    _maybe(draw, "H_cycles", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "L_cycles", draw(st.integers(1, 3)), cfg)
    if draw(st.booleans()):
        cfg["num_layers_per_stack"] = per_stack
        cfg["num_hidden_layers"] = per_stack * cfg.get("H_cycles", 2) * (cfg.get("L_cycles", 3) + 1)
    draw_architecture(draw, "hrm_text", cfg)
    return cfg


STRATEGIES.update({"hrm_text": hrm_text_config})
