"""Random small hybrid SSM / attention configs (jamba, bamba, granitemoehybrid, nemotron_h, falcon_h1, qwen3_next,
lfm2) and Mamba variants (falcon_mamba).

Written as a config.json would be: optional keys and switches left out at random so the class defaults
are exercised, layer patterns drawn so that both kinds of layer (and of feed-forward) appear, an
``architectures[0]`` drawn among the heads we model.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture


def _attention(draw, cfg: dict, kv_omit: bool = True) -> int:
    """Heads, key/value heads and head width (written, or hidden_size / heads); returns hidden_size."""
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    head_dim = draw(st.sampled_from([2, 4, 8]))
    if draw(st.booleans()):
        hidden = draw(st.sampled_from([8, 12, 16]))
        cfg["head_dim"] = head_dim
    else:
        hidden = heads * head_dim
    cfg["hidden_size"] = hidden
    cfg["num_attention_heads"] = heads
    _maybe(draw, "num_key_value_heads", kv, cfg, None if kv_omit else False)
    return hidden


def _common(draw, model_type: str) -> dict:
    vocab = draw(st.integers(8, 200))
    cfg: dict = {"model_type": model_type, "vocab_size": vocab, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    return cfg


def jamba_config(draw) -> dict:
    cfg = _common(draw, "jamba")
    # (Jamba's head count is fixed at 8 key/value heads by default: written whenever the heads do not divide by it)
    _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 6))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    period = draw(st.integers(1, 4))
    cfg["attn_layer_period"] = period
    cfg["attn_layer_offset"] = draw(st.integers(0, period - 1))
    period = draw(st.integers(1, 3))
    cfg["expert_layer_period"] = period
    cfg["expert_layer_offset"] = draw(st.integers(0, period - 1))
    experts = draw(st.integers(0, 4))
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, max(experts, 1)))
    cfg["mamba_d_state"] = draw(st.integers(1, 8))
    cfg["mamba_d_conv"] = draw(st.integers(1, 4))
    _maybe(draw, "mamba_expand", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "mamba_dt_rank", draw(st.sampled_from(["auto", 1, 3])), cfg)
    for key in ("mamba_conv_bias", "mamba_proj_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "jamba", cfg)
    return cfg


def _mamba2_keys(draw, cfg: dict, hidden: int) -> None:
    expand = draw(st.integers(1, 3))
    inner = expand * hidden
    heads = draw(st.sampled_from([n for n in range(1, inner + 1) if inner % n == 0 and n <= 12]))
    cfg["mamba_expand"] = expand
    cfg["mamba_n_heads"] = heads
    _maybe(draw, "mamba_d_head", draw(st.sampled_from(["auto", inner // heads])), cfg)
    cfg["mamba_n_groups"] = draw(st.sampled_from([g for g in (1, 2, 3) if heads % g == 0]))
    cfg["mamba_d_state"] = draw(st.integers(1, 8))
    cfg["mamba_d_conv"] = draw(st.integers(1, 4))
    for key in ("mamba_conv_bias", "mamba_proj_bias", "attention_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)


def bamba_config(draw) -> dict:
    cfg = _common(draw, "bamba")
    hidden = _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _mamba2_keys(draw, cfg, hidden)
    # (mostly given: with no attention layer, transformers builds the model but its forward pass fails)
    _maybe(draw, "attn_layer_indices", draw(st.lists(st.integers(0, layers), min_size=1, max_size=3, unique=True)), cfg,
           draw(st.sampled_from([False, False, False, True])))
    _maybe(draw, "mlp_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "bamba", cfg)
    return cfg


def granitemoehybrid_config(draw) -> dict:
    cfg = _common(draw, "granitemoehybrid")
    hidden = _attention(draw, cfg)
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _mamba2_keys(draw, cfg, hidden)
    if draw(st.sampled_from([True, True, True, False])):  # (left out: every layer Mamba-2)
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["mamba", "attention", "linear_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    experts = draw(st.integers(0, 4))
    cfg["num_local_experts"] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, max(experts, 1)))
    _maybe(draw, "shared_intermediate_size", draw(st.integers(4, 48)), cfg)
    _maybe(draw, "position_embedding_type", draw(st.sampled_from([None, "rope"])), cfg)
    draw_architecture(draw, "granitemoehybrid", cfg)
    return cfg


def falcon_mamba_config(draw) -> dict:
    cfg = _common(draw, "falcon_mamba")
    cfg["hidden_size"] = draw(st.sampled_from([4, 6, 8, 12, 16]))
    cfg["num_hidden_layers"] = draw(st.integers(1, 4))
    cfg["state_size"] = draw(st.integers(1, 8))
    cfg["expand"] = draw(st.integers(1, 3))
    cfg["conv_kernel"] = draw(st.integers(1, 4))
    _maybe(draw, "intermediate_size", draw(st.integers(4, 64)), cfg)
    _maybe(draw, "time_step_rank", draw(st.sampled_from(["auto", 2, 5])), cfg)
    for key in ("use_bias", "use_conv_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "falcon_mamba", cfg)
    return cfg


def nemotron_h_config(draw) -> dict:
    cfg = _common(draw, "nemotron_h")
    cfg.pop("tie_word_embeddings", None)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)  # (not read: the head is never tied)
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["hidden_size"] = draw(st.sampled_from([8, 12, 16]))
    cfg["num_attention_heads"] = heads
    cfg["num_key_value_heads"] = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    cfg["head_dim"] = draw(st.sampled_from([2, 4, 8]))
    blocks = draw(st.lists(st.sampled_from("ME*-"), min_size=1, max_size=6))
    how = draw(st.sampled_from(["list", "alias", "legacy", "pattern", "default"]))
    names = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
    if how == "list":
        cfg["layers_block_type"] = [names[c] for c in blocks]
    elif how == "alias":
        cfg["layer_types"] = [names[c] for c in blocks]
    elif how == "legacy":
        cfg["layers_block_type"] = [{"M": "mamba", "*": "attention"}.get(c, names[c]) for c in blocks]
    elif how == "pattern":
        cfg["hybrid_override_pattern"] = "".join(blocks)
    _maybe(draw, "num_hidden_layers", draw(st.integers(1, 6)), cfg)  # (not read: the blocks' count)
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    heads = draw(st.integers(1, 6))
    cfg["mamba_num_heads"] = heads
    cfg["mamba_head_dim"] = draw(st.integers(1, 6))
    cfg[draw(st.sampled_from(["n_groups", "mamba_n_groups"]))] = draw(st.sampled_from([g for g in (1, 2, 3) if heads % g == 0]))
    cfg["ssm_state_size"] = draw(st.integers(1, 8))
    _maybe(draw, draw(st.sampled_from(["conv_kernel", "mamba_d_conv"])), draw(st.integers(1, 4)), cfg)
    experts = draw(st.integers(2, 5))  # (its router's forward pass takes the top 2 of each group)
    cfg[draw(st.sampled_from(["n_routed_experts", "num_local_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    cfg["moe_shared_expert_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, "moe_latent_size", draw(st.sampled_from([None, 4, 6])), cfg)
    cfg["n_group"], cfg["topk_group"] = 1, 1
    for key in ("mlp_bias", "use_bias", "use_conv_bias", "attention_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "nemotron_h", cfg)
    return cfg


def falcon_h1_config(draw) -> dict:
    cfg = _common(draw, "falcon_h1")
    hidden = _attention(draw, cfg, kv_omit=False)
    cfg["num_hidden_layers"] = draw(st.integers(1, 4))
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    expand = draw(st.integers(1, 3))
    inner = draw(st.sampled_from([None, expand * hidden, 12, 24]))
    _maybe(draw, "mamba_expand", expand, cfg, inner is not None and draw(st.booleans()))
    cfg["mamba_d_ssm"] = inner  # (null: mamba_expand × hidden_size)
    width = inner if inner is not None else expand * hidden
    heads = draw(st.sampled_from([n for n in range(1, width + 1) if width % n == 0 and n <= 12]))
    cfg["mamba_n_heads"] = heads
    _maybe(draw, "mamba_d_head", draw(st.sampled_from(["auto", width // heads])), cfg)
    cfg["mamba_n_groups"] = draw(st.sampled_from([g for g in (1, 2, 3) if heads % g == 0]))
    cfg["mamba_d_state"] = draw(st.integers(1, 8))
    cfg["mamba_d_conv"] = draw(st.integers(1, 4))
    for key in ("mamba_conv_bias", "mamba_proj_bias", "projectors_bias", "mamba_rms_norm", "attention_bias", "mlp_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    draw_architecture(draw, "falcon_h1", cfg)
    return cfg


def qwen3_next_config(draw) -> dict:
    cfg = _common(draw, "qwen3_next")
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["hidden_size"] = draw(st.sampled_from([8, 12, 16]))
    cfg["num_attention_heads"] = heads
    cfg["num_key_value_heads"] = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    cfg["head_dim"] = draw(st.sampled_from([2, 4, 8]))
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention", "mamba", "attention"]),
                                           min_size=layers, max_size=layers))
    else:
        _maybe(draw, "full_attention_interval", draw(st.integers(1, 4)), cfg)
    cfg["linear_conv_kernel_dim"] = draw(st.integers(1, 4))
    cfg["linear_num_key_heads"] = draw(st.integers(1, 3))
    cfg["linear_num_value_heads"] = cfg["linear_num_key_heads"] * draw(st.integers(1, 2))
    cfg["linear_key_head_dim"] = draw(st.sampled_from([2, 4]))
    cfg["linear_value_head_dim"] = draw(st.sampled_from([2, 4, 6]))
    experts = draw(st.integers(0, 4))
    cfg["num_experts"] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, max(experts, 1)))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    cfg["shared_expert_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, "decoder_sparse_step", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "mlp_only_layers", draw(st.lists(st.integers(0, 4), max_size=2, unique=True)), cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "qwen3_next", cfg)
    return cfg


def lfm2_config(draw) -> dict:
    cfg = _common(draw, "lfm2")
    _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg[draw(st.sampled_from(["intermediate_size", "block_ff_dim"]))] = draw(st.integers(4, 48))
    how = draw(st.sampled_from(["types", "idxs", "none"]))
    if how == "types":
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["conv", "full_attention"]), min_size=layers, max_size=layers))
    elif how == "idxs":
        cfg["full_attn_idxs"] = draw(st.lists(st.integers(0, layers), max_size=3, unique=True))
    cfg["conv_L_cache"] = draw(st.integers(1, 4))
    _maybe(draw, "conv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "block_auto_adjust_ff_dim", draw(st.booleans()), cfg)
    _maybe(draw, "block_ffn_dim_multiplier", draw(st.sampled_from([1.0, 1.5, 0.5, 2])), cfg)
    cfg["block_multiple_of"] = draw(st.integers(1, 8))
    if draw(st.booleans()):
        cfg.pop("tie_word_embeddings", None)
        cfg["tie_embedding"] = draw(st.booleans())
    draw_architecture(draw, "lfm2", cfg)
    return cfg


STRATEGIES.update({"jamba": jamba_config, "bamba": bamba_config, "granitemoehybrid": granitemoehybrid_config,
                   "nemotron_h": nemotron_h_config, "falcon_h1": falcon_h1_config, "qwen3_next": qwen3_next_config,
                   "lfm2": lfm2_config, "falcon_mamba": falcon_mamba_config})
