"""Random small configs of Apertus 1.5's text model and the families added beside it (HRM-Text, LFM3, Lara Mini),
written as a config.json would be: the decoder strategy's sizes and switches, and each family's own keys drawn or
left out (a pruned LM head, per-stack layer counts, layer types, linear-attention and expert sizes)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config, draw_architecture
from .strategies_hybrids import _attention, _common, _gated_delta_net


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


def lfm3_config(draw) -> dict:
    """LFM3: layer_types (conv, full or sliding attention; "attention", the legacy name) drawn or derived, the window,
    the short convolution's width and bias, the attention gate and the sandwich norms drawn or left out."""
    cfg = _common(draw, "lfm3")
    _attention(draw, cfg, kv_omit=False)  # (its default 4 key/value heads divide no fewer query heads)
    layers = draw(st.integers(1, 6))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["conv", "full_attention", "sliding_attention", "attention"]),
                                           min_size=layers, max_size=layers))
    # (windows over the hybrid cache test's prompts: transformers' dynamic cache keeps window - 1 tokens of a sliding
    # layer, the estimate the window, as a static cache does)
    _maybe(draw, "sliding_window", draw(st.sampled_from([None, 8, 64])), cfg)
    cfg["conv_L_cache"] = draw(st.integers(1, 4))
    for switch in ("conv_bias", "use_attention_gate", "use_sandwich_norm", "attention_bias"):
        _maybe(draw, switch, draw(st.booleans()), cfg)
    draw_architecture(draw, "lfm3", cfg)
    return cfg


def lara_mini_config(draw) -> dict:
    """Lara Mini: layer_types (Gated DeltaNet, full or sliding attention) drawn or derived, the Gated DeltaNet's
    heads (value heads a multiple of the key heads), experts and the shared expert's width."""
    cfg = _common(draw, "lara_mini")
    _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 6))
    cfg["num_hidden_layers"] = layers
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention", "sliding_attention",
                                                            "mamba", "attention"]), min_size=layers, max_size=layers))
    _maybe(draw, "sliding_window", draw(st.sampled_from([8, 64])), cfg)  # (over the cache test's prompts, as LFM3's)
    _gated_delta_net(draw, cfg)
    experts = draw(st.integers(1, 4))
    cfg["num_experts"] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    cfg["shared_expert_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "lara_mini", cfg)
    return cfg


STRATEGIES.update({"lfm3": lfm3_config, "lara_mini": lara_mini_config})
