"""Random small configs for the MoE decoders built on DeepSeek-V3's, Qwen3-MoE's and GPT-OSS's parts (A.X-K1, ...):
the decoder strategy's sizes and switches, and each family's own keys drawn or left out."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config, draw_architecture


def axk1_config(draw, model_type: str = "axk1") -> dict:
    """A.X-K1 (and A.X-K2, ``model_type``): always a low-rank query (AXK1Config takes no null q_lora_rank);
    mlp_layer_types drawn (as many as the layers, or for A.X-K1 more) or derived from the legacy first_k_dense_replace and
    moe_layer_freq, each drawn or left out."""
    cfg = decoder_config(draw, model_type)
    layers = cfg["num_hidden_layers"]
    if cfg.get("q_lora_rank") is None:
        cfg["q_lora_rank"] = draw(st.sampled_from([8, 12]))
    if draw(st.booleans()):
        cfg.pop("first_k_dense_replace")
    _maybe(draw, "moe_layer_freq", draw(st.integers(1, 3)), cfg)
    if draw(st.booleans()):
        # (AXK2Config refuses a list longer than the layers; AXK1Config reads the first num_hidden_layers)
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers,
                                               max_size=layers + (model_type == "axk1")))
    if draw(st.booleans()):  # the experts under num_local_experts, n_routed_experts' alias
        cfg["num_local_experts"] = cfg.pop("n_routed_experts")
    return cfg


def minicpm5_moe_config(draw) -> dict:
    """MiniCPM5-MoE: shared experts, and mlp_layer_types drawn (as many as the layers or more) or derived from the
    legacy first_k_dense_replace, drawn or left out."""
    cfg = decoder_config(draw, "minicpm5_moe")
    layers = cfg["num_hidden_layers"]
    _maybe(draw, "first_k_dense_replace", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "n_shared_experts", draw(st.integers(0, 2)), cfg)
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers,
                                               max_size=layers + 1))
    if draw(st.booleans()):  # the experts under num_local_experts, n_routed_experts' alias
        cfg["num_local_experts"] = cfg.pop("n_routed_experts")
    return cfg


def kolibri1_config(draw) -> dict:
    """Kolibri 1: experts under num_experts or num_local_experts (its attribute_map's); layer_types (as many as the
    layers) drawn or derived (every fifth layer full), a positive window where a layer slides."""
    cfg = decoder_config(draw, "kolibri1")
    layers = cfg["num_hidden_layers"]
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = cfg.pop("num_experts")
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    _maybe(draw, "sliding_window", draw(st.sampled_from([4, 64])), cfg)
    return cfg


def kolibri1_1_config(draw) -> dict:
    """Kolibri 1.1: up to 11 layers (its default puts indexed attention in every fifth); a head width that is a multiple
    of 16 and index_num_heads within the query heads of key head 0 (Kolibri1_1Config refuses others); layer_types,
    index_layers, kv_source_layers (indexed layers reading an earlier indexed layer that keeps its own) and
    mlp_only_layers each drawn valid or left to the defaults."""
    cfg = decoder_config(draw, "kolibri1_1")
    layers = draw(st.integers(1, 11))
    cfg["num_hidden_layers"] = layers
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = cfg.pop("num_experts")
    cfg.pop("decoder_sparse_step", None)  # (not its key)
    dense = [i for i in cfg.pop("mlp_only_layers", []) if i < layers]
    _maybe(draw, "mlp_only_layers", dense, cfg)
    cfg["head_dim"] = draw(st.sampled_from([16, 32]))
    heads, kv = cfg["num_attention_heads"], cfg.get("num_key_value_heads", 4)
    cfg["index_num_heads"] = draw(st.integers(1, heads // kv))
    if draw(st.booleans()):
        types = draw(st.lists(st.sampled_from(["sliding_attention", "indexed_attention"]), min_size=layers,
                              max_size=layers))
        cfg["layer_types"] = types
    else:
        types = ["indexed_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(layers)]
    indexed = [i for i, t in enumerate(types) if t == "indexed_attention"]
    if indexed and draw(st.booleans()):
        cfg["index_layers"] = [indexed[0]] + sorted(draw(st.sets(st.sampled_from(indexed[1:]))) if indexed[1:] else [])
    if draw(st.booleans()) or len(indexed) > 10:
        sources = list(range(layers))
        for n, i in enumerate(indexed):
            owners = [j for j in indexed[:n] if sources[j] == j]
            sources[i] = draw(st.sampled_from(owners + [i]))
        cfg["kv_source_layers"] = sources
    _maybe(draw, "sliding_window", draw(st.sampled_from([4, 64])), cfg)
    return cfg


def flint_config(draw) -> dict:
    """Flint: layer_types (as many as the layers) drawn or derived, the window drawn or left out, mlp_only_layers
    drawn (the decoder strategy) or left to the default (the first two layers)."""
    cfg = decoder_config(draw, "flint")
    layers = cfg["num_hidden_layers"]
    if draw(st.booleans()):
        cfg.pop("mlp_only_layers")
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    _maybe(draw, "sliding_window", draw(st.sampled_from([4, 64])), cfg)
    return cfg


def axk2_config(draw) -> dict:
    """A.X-K2: A.X-K1's draws, the gated norms' rank drawn or left out, any head class."""
    cfg = axk1_config(draw, "axk2")
    _maybe(draw, "gated_norm_rank", draw(st.integers(1, 8)), cfg)
    draw_architecture(draw, "axk2", cfg)
    if cfg["architectures"] == ["AXK2ForTokenClassification"]:
        _maybe(draw, "token_classification_bias", draw(st.booleans()), cfg)
    return cfg


def hy_v4_config(draw) -> dict:
    """HY-V4: always a low-rank query (HYV4Config takes no null q_lora_rank); mlp_layer_types and indexer_types (as
    many as the layers) each drawn or derived, the streams of its hyper-connections drawn or left out."""
    cfg = decoder_config(draw, "hy_v4")
    layers = cfg["num_hidden_layers"]
    cfg.pop("first_k_dense_replace", None)  # (not its key)
    if cfg.get("q_lora_rank") is None:
        cfg["q_lora_rank"] = draw(st.sampled_from([8, 12]))
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
    if draw(st.booleans()):
        cfg["indexer_types"] = ["full"] + draw(st.lists(st.sampled_from(["full", "shared"]), min_size=layers - 1,
                                                        max_size=layers - 1))
    _maybe(draw, "hc_mult", draw(st.integers(1, 4)), cfg)
    return cfg


def beam_config(draw) -> dict:
    """Beam: layer_types and mlp_layer_types (as many as the layers) each drawn or derived, the window drawn or left
    out, at times a token classifier with or without its bias."""
    cfg = decoder_config(draw, "beam")
    layers = cfg["num_hidden_layers"]
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers,
                                               max_size=layers))
    _maybe(draw, "sliding_window", draw(st.integers(2, 64)), cfg)
    if draw(st.booleans()):
        cfg["architectures"] = ["BeamForTokenClassification"]
        _maybe(draw, "token_classification_bias", draw(st.booleans()), cfg)
    return cfg


STRATEGIES.update({"axk1": axk1_config, "minicpm5_moe": minicpm5_moe_config, "kolibri1": kolibri1_config,
                   "kolibri1_1": kolibri1_1_config,
                   "flint": flint_config, "beam": beam_config, "axk2": axk2_config,
                   "hy_v4": hy_v4_config})
