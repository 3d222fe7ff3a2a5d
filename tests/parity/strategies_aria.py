"""Random small configs of Aria's text model (aria_text), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe


def aria_text(draw) -> dict:
    """A small AriaTextConfig: a width the heads divide (the class refuses others), key/value heads or not (then as
    many as the query heads), a head width of its own or not, experts intermediate_size wide behind moe_topk, 0 to 3
    shared experts, biases on the attention and the MLPs sometimes."""
    heads = draw(st.integers(1, 4))
    experts = draw(st.integers(1, 5))
    cfg: dict = {"model_type": "aria_text", "vocab_size": draw(st.integers(8, 200)),
                 "hidden_size": heads * draw(st.sampled_from([2, 4, 8])), "num_hidden_layers": draw(st.integers(1, 4)),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 40)),
                 "moe_num_experts": experts, "moe_topk": draw(st.integers(1, experts)), "pad_token_id": 0}
    if draw(st.booleans()):
        cfg["num_key_value_heads"] = draw(st.sampled_from([d for d in range(1, heads + 1) if heads % d == 0]))
    for key, values in (("head_dim", [2, 4, 6]), ("moe_num_shared_experts", [0, 1, 2, 3]),
                        ("attention_bias", [False, True]), ("mlp_bias", [False, True]),
                        ("tie_word_embeddings", [False, True])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["AriaTextForCausalLM", "AriaTextModel"]))]
    return cfg


STRATEGIES["aria_text"] = aria_text
