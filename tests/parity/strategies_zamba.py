"""Random small Zamba2 and Zamba configs, written as a config.json would be: the layer kinds (under layers_block_type, or its
alias layer_types, or left to the class's 54 layers), shared blocks, adapters, the Mamba-2 mixer's sizes, each drawn
or left out; a written head width, attention width or hybrid_layer_ids now and then (they win over what the class
derives). Widths are kept even where rotated (Zamba2Config checks the RoPE width whatever use_mem_rope says)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture


def zamba2_config(draw) -> dict:
    heads = draw(st.sampled_from([1, 2, 4]))
    hidden = heads * draw(st.sampled_from([2, 4, 8]))  # 2 × hidden / heads: an even head width
    cfg: dict = {"model_type": "zamba2", "vocab_size": draw(st.integers(8, 200)), "pad_token_id": 0,
                 "bos_token_id": 0, "eos_token_id": 0, "hidden_size": hidden, "num_attention_heads": heads}
    _maybe(draw, "num_key_value_heads", draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    if draw(st.sampled_from([False, False, False, True])):
        cfg[draw(st.sampled_from(["head_dim", "attention_head_dim"]))] = draw(st.sampled_from([2, 4, 6]))
    if draw(st.sampled_from([False, False, False, True])):
        cfg["attention_hidden_size"] = draw(st.sampled_from([4, 8, 2 * hidden]))
    layers = draw(st.integers(1, 6))
    kinds = draw(st.lists(st.sampled_from(["mamba", "linear_attention", "hybrid", "hybrid"]), min_size=layers,
                          max_size=layers))
    where = draw(st.sampled_from(["layers_block_type", "layers_block_type", "layer_types", None]))
    if where is None:  # the class's 54 layers
        layers = 54
    else:
        cfg[where] = kinds
    cfg["num_hidden_layers"] = layers
    if draw(st.sampled_from([False, False, True])):
        cfg["hybrid_layer_ids"] = draw(st.lists(st.integers(0, layers), max_size=4, unique=True))
    _maybe(draw, "num_mem_blocks", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "use_shared_attention_adapter", draw(st.booleans()), cfg)
    cfg["adapter_rank"] = draw(st.integers(1, 4))
    _maybe(draw, "intermediate_size", draw(st.sampled_from([0, 4, 12, 24])), cfg)
    expand = draw(st.integers(1, 2))
    inner = expand * hidden
    mamba_heads = draw(st.sampled_from([n for n in range(1, 9) if inner % n == 0]))
    cfg["mamba_expand"] = expand
    cfg["n_mamba_heads"] = mamba_heads
    _maybe(draw, "mamba_ngroups", draw(st.sampled_from([g for g in (1, 2) if mamba_heads % g == 0])), cfg)
    cfg["mamba_d_state"] = draw(st.integers(1, 8))
    cfg["mamba_d_conv"] = draw(st.integers(1, 4))
    for key in ("add_bias_linear", "use_conv_bias", "use_mem_rope"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "zamba2", cfg)
    return cfg


STRATEGIES.update({"zamba2": zamba2_config})


def zamba_config(draw) -> dict:
    """Zamba: its layers written (with none, one untied, or several hybrid layers: one tied hybrid layer transformers
    cannot build) or its default pattern (period and offset drawn); the mixer's heads dividing its width."""
    heads = draw(st.sampled_from([1, 2, 4]))
    hidden = heads * draw(st.sampled_from([2, 4, 8]))
    cfg: dict = {"model_type": "zamba", "vocab_size": draw(st.integers(8, 200)), "pad_token_id": 0,
                 "bos_token_id": 0, "eos_token_id": 0, "hidden_size": hidden, "num_attention_heads": heads,
                 "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
                 "intermediate_size": draw(st.integers(4, 24)), "tie_word_embeddings": draw(st.booleans())}
    if draw(st.sampled_from([False, False, False, True])):
        cfg[draw(st.sampled_from(["head_dim", "attention_head_dim"]))] = draw(st.sampled_from([2, 3, 4]))
    _maybe(draw, "attention_hidden_size", draw(st.sampled_from([4, 8, 2 * hidden])), cfg,
           draw(st.sampled_from([True, True, False])))
    if draw(st.booleans()):
        layers = draw(st.integers(1, 6))
        kinds = draw(st.lists(st.sampled_from(["mamba", "linear_attention", "hybrid"]), min_size=layers,
                              max_size=layers))
        if kinds.count("hybrid") == 1 and cfg["tie_word_embeddings"]:
            kinds = ["hybrid" if k == "mamba" else k for k in kinds] + ["hybrid"]
            layers = len(kinds)
        cfg[draw(st.sampled_from(["layers_block_type", "layer_types"]))] = kinds
    else:
        period = draw(st.integers(1, 3))
        cfg["attn_layer_period"] = period
        cfg["attn_layer_offset"] = draw(st.integers(0, period - 1))
        layers = draw(st.integers(3 + period, 8))  # (at least two hybrid layers: the third and one after)
    cfg["num_hidden_layers"] = layers
    expand = draw(st.integers(1, 2))
    cfg["mamba_expand"] = expand
    cfg["n_mamba_heads"] = draw(st.sampled_from([n for n in range(1, 5) if expand * hidden % n == 0]))
    cfg["mamba_d_state"] = draw(st.integers(1, 8))
    cfg["mamba_d_conv"] = draw(st.integers(1, 4))
    _maybe(draw, "mamba_dt_rank", draw(st.sampled_from(["auto", 1, 3])), cfg)
    for key in ("mamba_conv_bias", "mamba_proj_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "zamba", cfg)
    return cfg


STRATEGIES.update({"zamba": zamba_config})
