"""Random small Laguna configs (laguna), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe


def laguna(draw) -> dict:
    """A small LagunaConfig: a head width of its own, full or sliding-window layers, per-layer query heads (one count
    for the full-attention layers and one for the sliding ones: what lsp-count models), dense or sparse layers
    (mlp_layer_types, or the default: the first dense), a shared expert of any width (0 too), the output gate per head
    or per channel."""
    kv = draw(st.sampled_from([1, 2]))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 4))
    cfg: dict = {"model_type": "laguna", "vocab_size": draw(st.integers(8, 200)),
                 "hidden_size": draw(st.sampled_from([8, 12, 16])), "num_hidden_layers": layers,
                 "num_attention_heads": kv * draw(st.integers(1, 3)), "num_key_value_heads": kv,
                 "head_dim": draw(st.sampled_from([2, 4, 6])), "intermediate_size": draw(st.integers(2, 24)),
                 "moe_intermediate_size": draw(st.integers(2, 12)), "num_experts": experts,
                 "num_experts_per_tok": draw(st.integers(1, experts)),
                 "shared_expert_intermediate_size": draw(st.integers(0, 12))}
    if draw(st.booleans()):
        cfg["layer_types"] = [draw(st.sampled_from(["full_attention", "sliding_attention"])) for _ in range(layers)]
        cfg["sliding_window"] = draw(st.integers(2, 16))
    if draw(st.booleans()):
        heads = {t: kv * draw(st.integers(1, 3)) for t in ("full_attention", "sliding_attention")}
        cfg["num_attention_heads_per_layer"] = [heads[t] for t in cfg.get("layer_types", ["full_attention"] * layers)]
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = [draw(st.sampled_from(["dense", "sparse"])) for _ in range(layers)]
    for key, values in (("gating", [True, False, "per-head", "per-element"]), ("attention_bias", [False, True]),
                        ("tie_word_embeddings", [False, True])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["LagunaForCausalLM", "LagunaModel"]))]
    return cfg


STRATEGIES["laguna"] = laguna
