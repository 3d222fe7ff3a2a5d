"""Random small hybrid SSM / attention configs (jamba, bamba, granitemoehybrid, nemotron_h, falcon_h1, qwen3_next,
qwen3_5_text, qwen3_5_moe_text, kimi_linear, bailing_hybrid, olmo_hybrid, lfm2, lfm2_moe, minimax) and Mamba variants
(falcon_mamba).

Written as a config.json would be: optional keys and switches left out at random so the class defaults
are exercised, layer patterns drawn so that both kinds of layer (and of feed-forward) appear, an
``architectures[0]`` drawn among the heads we model.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import REQUIRED_KEYS, STRATEGIES, _maybe, draw_architecture


def _gated_delta_net(draw, cfg: dict) -> None:
    """A Gated DeltaNet's linear-attention keys (Qwen3-Next's, Qwen3.5's, OLMo-Hybrid's, Lara Mini's): its
    convolution kernel, key heads, value heads (a multiple of them) and head widths, small."""
    cfg["linear_conv_kernel_dim"] = draw(st.integers(1, 4))
    cfg["linear_num_key_heads"] = draw(st.integers(1, 3))
    cfg["linear_num_value_heads"] = cfg["linear_num_key_heads"] * draw(st.integers(1, 2))
    cfg["linear_key_head_dim"] = draw(st.sampled_from([2, 4]))
    cfg["linear_value_head_dim"] = draw(st.sampled_from([2, 4, 6]))


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
    _gated_delta_net(draw, cfg)
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


def _qwen3_5_common(draw, model_type: str) -> dict:
    """Qwen3.5's text configs: Qwen3-Next's attention and Gated DeltaNet keys, layer_types or
    full_attention_interval."""
    cfg = _common(draw, model_type)
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["hidden_size"] = draw(st.sampled_from([8, 12, 16]))
    cfg["num_attention_heads"] = heads
    cfg["num_key_value_heads"] = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    cfg["head_dim"] = draw(st.sampled_from([2, 4, 8]))
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention", "mamba", "attention"]),
                                           min_size=layers, max_size=layers))
    else:
        _maybe(draw, "full_attention_interval", draw(st.integers(1, 4)), cfg)
    _gated_delta_net(draw, cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    return cfg


def qwen3_5_text_config(draw) -> dict:
    cfg = _qwen3_5_common(draw, "qwen3_5_text")
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    draw_architecture(draw, "qwen3_5_text", cfg)
    return cfg


def qwen3_5_moe_text_config(draw) -> dict:
    cfg = _qwen3_5_common(draw, "qwen3_5_moe_text")
    experts = draw(st.integers(1, 4))
    cfg["num_experts"] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    cfg["shared_expert_intermediate_size"] = draw(st.integers(4, 24))
    draw_architecture(draw, "qwen3_5_moe_text", cfg)
    return cfg


def kimi_linear_config(draw) -> dict:
    cfg = _common(draw, "kimi_linear")
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["hidden_size"] = draw(st.sampled_from([8, 12, 16]))
    cfg["num_attention_heads"] = heads
    # (its latent attention's forward pass repeats the keys and values heads / num_key_value_heads times over the
    # heads it already expanded them to: it runs only where the two are equal; null: the head count)
    cfg["num_key_value_heads"] = draw(st.sampled_from([heads, None]))
    layers = draw(st.integers(1, 6))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "q_lora_rank", draw(st.sampled_from([None, 4, 6])), cfg)
    cfg["kv_lora_rank"] = draw(st.integers(2, 8))
    cfg["qk_nope_head_dim"] = draw(st.integers(1, 6))
    cfg["qk_rope_head_dim"] = draw(st.sampled_from([2, 4]))
    cfg["v_head_dim"] = draw(st.integers(1, 6))
    head_dim, kda_heads, kernel = draw(st.sampled_from([2, 4])), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    how = draw(st.sampled_from(["top", "nested", "both"]))
    if how in ("top", "both"):
        cfg.update(linear_head_dim=head_dim, linear_num_heads=kda_heads, linear_conv_kernel_dim=kernel)
    if how in ("nested", "both"):
        nested = {"head_dim": draw(st.sampled_from([2, 4])), "num_heads": draw(st.integers(1, 3)),
                  "short_conv_kernel_size": draw(st.integers(1, 4))}
        if draw(st.booleans()):
            full = draw(st.lists(st.integers(1, layers), unique=True, max_size=layers))
            nested["full_attn_layers"] = full
            nested["kda_layers"] = [i for i in range(1, layers + 1) if i not in full]
        cfg["linear_attn_config"] = nested
        if how == "nested":  # (the top-level keys still need a small default)
            cfg.update(linear_head_dim=2, linear_num_heads=1)
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers,
                                           max_size=layers))
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
    else:
        _maybe(draw, "first_k_dense_replace", draw(st.integers(0, 3)), cfg)
    experts = draw(st.integers(2, 5))  # (its router's forward pass takes the top 2 of each group)
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
    cfg[draw(st.sampled_from(["num_experts_per_tok", "num_experts_per_token"]))] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, draw(st.sampled_from(["n_shared_experts", "num_shared_experts"])), draw(st.integers(0, 2)), cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "kimi_linear", cfg)
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


def lfm2_moe_config(draw) -> dict:
    cfg = _common(draw, "lfm2_moe")
    _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    cfg["layer_types"] = draw(st.lists(st.sampled_from(["conv", "full_attention", "attention"]), min_size=layers,
                                       max_size=layers))
    cfg["conv_L_cache"] = draw(st.integers(1, 4))
    _maybe(draw, "conv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "num_dense_layers", draw(st.integers(0, 3)), cfg)
    experts = draw(st.integers(1, 4))
    cfg["num_experts"] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, "use_expert_bias", draw(st.booleans()), cfg)
    if draw(st.booleans()):
        cfg.pop("tie_word_embeddings", None)
        cfg["tie_embedding"] = draw(st.booleans())
    draw_architecture(draw, "lfm2_moe", cfg)
    return cfg


def bailing_hybrid_config(draw) -> dict:
    cfg = _common(draw, "bailing_hybrid")
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg["hidden_size"] = draw(st.sampled_from([8, 12, 16]))
    cfg["num_attention_heads"] = heads
    # (its latent attention's forward pass runs only where the key/value heads are the heads; null: the head count)
    cfg["num_key_value_heads"] = draw(st.sampled_from([heads, None]))
    layers = draw(st.integers(1, 6))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "q_lora_rank", draw(st.sampled_from([None, 4, 6])), cfg)
    cfg["kv_lora_rank"] = draw(st.integers(2, 8))
    cfg["qk_nope_head_dim"] = draw(st.integers(1, 6))
    cfg["qk_rope_head_dim"] = draw(st.sampled_from([2, 4]))
    cfg["v_head_dim"] = draw(st.integers(1, 6))
    cfg["head_dim"] = draw(st.sampled_from([2, 4]))  # (the delta attention's head width)
    cfg["short_conv_kernel_size"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["linear_attention", "full_attention"]), min_size=layers,
                                           max_size=layers))
    else:
        _maybe(draw, "layer_group_size", draw(st.integers(1, 4)), cfg)
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
    else:
        _maybe(draw, "first_k_dense_replace", draw(st.integers(0, 3)), cfg)
    experts = draw(st.integers(2, 5))  # (its router's forward pass takes the top 2 of each group)
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
    cfg[draw(st.sampled_from(["num_experts_per_tok", "num_experts_per_token"]))] = draw(st.integers(1, experts))
    cfg["n_group"], cfg["topk_group"] = 1, 1
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, draw(st.sampled_from(["n_shared_experts", "num_shared_experts"])), draw(st.integers(0, 2)), cfg)
    _maybe(draw, "swiglu_limits", [draw(st.sampled_from([0, 7.0]))] * layers, cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "bailing_hybrid", cfg)
    return cfg


def olmo_hybrid_config(draw) -> dict:
    cfg = _common(draw, "olmo_hybrid")
    _attention(draw, cfg)
    layers = draw(st.integers(2, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    if draw(st.booleans()):  # (at least one layer of each kind: OlmoHybridConfig refuses the others)
        kinds = ["linear_attention", draw(st.sampled_from(["full_attention", "attention"]))]
        kinds += draw(st.lists(st.sampled_from(["linear_attention", "full_attention", "mamba", "attention"]),
                               min_size=layers - 2, max_size=layers - 2))
        cfg["layer_types"] = draw(st.permutations(kinds))
    # (written: the class's derived widths, 0.75 × hidden_size / heads, are 0 or 1 here, which its forward pass
    # cannot run with; the class defaults' are what the null and float tests check)
    _gated_delta_net(draw, cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "olmo_hybrid", cfg)
    return cfg


def minimax_config(draw) -> dict:
    cfg = _common(draw, "minimax")
    # (its key/value heads default to 8, which the drawn head counts do not divide: written always)
    _attention(draw, cfg, kv_omit=False)
    layers = draw(st.integers(1, 5))
    cfg["num_hidden_layers"] = layers
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    if draw(st.booleans()):  # (legacy names too: "mamba" is linear_attention, "attention" full_attention)
        kinds = st.sampled_from(["linear_attention", "full_attention", "mamba", "attention"])
        cfg["layer_types"] = draw(st.lists(kinds, min_size=layers, max_size=layers))
    experts = draw(st.integers(1, 4))
    cfg[draw(st.sampled_from(["num_local_experts", "num_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    _maybe(draw, "block_size", draw(st.integers(1, 8)), cfg)
    # (the attention's mask slides, its cache keeps every token)
    _maybe(draw, "sliding_window", draw(st.integers(1, 4)), cfg)
    draw_architecture(draw, "minimax", cfg)
    return cfg


# Lfm2MoeConfig has no default layer_types (its class defaults do not build): 32 layers, attention in every fourth.
REQUIRED_KEYS["lfm2_moe"] = {"layer_types": ["conv", "conv", "conv", "full_attention"] * 8}

STRATEGIES.update({"jamba": jamba_config, "bamba": bamba_config, "granitemoehybrid": granitemoehybrid_config,
                   "nemotron_h": nemotron_h_config, "falcon_h1": falcon_h1_config, "qwen3_next": qwen3_next_config,
                   "lfm2": lfm2_config, "falcon_mamba": falcon_mamba_config, "qwen3_5_text": qwen3_5_text_config,
                   "qwen3_5_moe_text": qwen3_5_moe_text_config, "kimi_linear": kimi_linear_config,
                   "lfm2_moe": lfm2_moe_config, "olmo_hybrid": olmo_hybrid_config,
                   "bailing_hybrid": bailing_hybrid_config, "minimax": minimax_config})
