"""Random small Gemma 4 configs (gemma4_text; the towers gemma4_vision and gemma4_audio; the composite gemma4),
written as a config.json would be.

Layer types drawn so that the KV-sharing layers find an earlier layer of each of their types (else
Gemma4TextConfig refuses them: the class defaults are what the null and float tests check); full-attention
head widths from global_head_dim, num_global_key_value_heads with or without attention_k_eq_v, or a
per_layer_config as transformers saves one; per-layer inputs on or off (0); the MoE block with its experts;
switches left out at random so the class defaults apply.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture

SLIDING, FULL = "sliding_attention", "full_attention"


def gemma4_text_config(draw) -> dict:
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    head_dim = draw(st.sampled_from([2, 4, 8]))
    layers = draw(st.integers(1, 6))
    vocab = draw(st.integers(8, 120))
    cfg: dict = {"model_type": "gemma4_text", "vocab_size": vocab, "pad_token_id": 0, "bos_token_id": 0,
                 "eos_token_id": 0, "hidden_size": draw(st.sampled_from([8, 12, 16])), "num_attention_heads": heads,
                 "num_key_value_heads": kv, "head_dim": head_dim, "num_hidden_layers": layers,
                 "intermediate_size": draw(st.integers(4, 40))}
    types = [draw(st.sampled_from([SLIDING, FULL])) for _ in range(layers)]
    written_types = draw(st.booleans())
    if written_types:
        cfg["layer_types"] = types
    else:
        types = [SLIDING if (i + 1) % 6 else FULL for i in range(layers)]
    types[-1] = FULL
    # KV sharing: the last `shared` layers reuse; every type among all layers must appear before them.
    options = [0] + [s for s in range(1, layers + 1)
                     if s == layers or set(types[: layers - s]) == set(types)]
    shared = draw(st.sampled_from(options))
    _maybe(draw, "num_kv_shared_layers", shared, cfg, shared == 0 and None)
    _maybe(draw, "use_double_wide_mlp", draw(st.booleans()), cfg)
    _maybe(draw, "attention_k_eq_v", draw(st.booleans()), cfg)
    widths = draw(st.sampled_from(["global", "per_layer_config", "none"]))
    if widths == "global":
        cfg["global_head_dim"] = draw(st.sampled_from([2, 4, 6, 8]))
        _maybe(draw, "num_global_key_value_heads", draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
               cfg)
    elif widths == "per_layer_config":
        entry = {"head_dim": draw(st.sampled_from([2, 4, 6]))}
        if draw(st.booleans()):
            entry["num_key_value_heads"] = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
        cfg["per_layer_config"] = {str(i): dict(entry) for i, t in enumerate(types) if t == FULL}
    else:
        cfg["global_head_dim"] = draw(st.sampled_from([4, 8]))  # (the class default, 512, is too wide for tests)
    per_layer = draw(st.sampled_from([0, 2, 4]))
    cfg["hidden_size_per_layer_input"] = per_layer
    if per_layer or draw(st.booleans()):
        cfg["vocab_size_per_layer_input"] = draw(st.integers(1, 60))
    if draw(st.booleans()):
        cfg["enable_moe_block"] = True
        cfg["num_experts"] = draw(st.integers(1, 4))
        cfg["moe_intermediate_size"] = draw(st.integers(1, 12))
        _maybe(draw, "top_k_experts", draw(st.integers(1, cfg["num_experts"])), cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(1, 64)), cfg)
    _maybe(draw, "use_bidirectional_attention", draw(st.sampled_from(["all", "vision", None])), cfg)
    draw_architecture(draw, "gemma4_text", cfg)
    return cfg


def gemma4_vision_config(draw) -> dict:
    """A small Gemma4VisionConfig: key/value heads dividing the heads, a head width of its own (odd ones up to 3:
    wider odd ones transformers' RoPE check refuses), sizes 0 where the tower builds with them, the clipping bounds
    and standardize (buffers only) and the axial rope settings drawn or left out; rarely an output_proj_dims, which
    only the composite reads."""
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"model_type": "gemma4_vision", "hidden_size": draw(st.sampled_from([4, 8, 12])),
                 "num_attention_heads": heads,
                 "num_key_value_heads": draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0])),
                 "head_dim": draw(st.sampled_from([1, 2, 3, 4, 6, 8])), "num_hidden_layers": draw(st.integers(0, 3)),
                 "intermediate_size": draw(st.integers(0, 24)), "patch_size": draw(st.integers(1, 6)),
                 "position_embedding_size": draw(st.integers(0, 40))}
    _maybe(draw, "use_clipped_linears", draw(st.booleans()), cfg)
    _maybe(draw, "standardize", draw(st.booleans()), cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    _maybe(draw, "pooling_kernel_size", draw(st.integers(1, 4)), cfg)
    if draw(st.integers(0, 4)) == 0:  # not the class's key: the composite's embed_vision projects from it (getattr)
        cfg["output_proj_dims"] = draw(st.integers(0, 12))
    _maybe(draw, "rope_parameters", draw(st.sampled_from([{"rope_type": "default", "rope_theta": 100.0},
                                                          {"rope_type": "axial", "rope_theta": 10.0}])), cfg)
    cfg["architectures"] = ["Gemma4VisionModel"]
    return cfg


def gemma4_audio_config(draw) -> dict:
    """A small Gemma4AudioConfig: heads that need not divide the width (hidden_size // heads wide; never more than the
    width, which fails), two or three subsampling channel counts (0 too, a third not read), a kernel of 0 or more."""
    hidden = draw(st.integers(1, 12))
    cfg: dict = {"model_type": "gemma4_audio", "hidden_size": hidden,
                 "num_attention_heads": draw(st.integers(1, min(hidden, 4))),
                 "num_hidden_layers": draw(st.integers(0, 2)),
                 "subsampling_conv_channels": draw(st.lists(st.integers(0, 12), min_size=2, max_size=3)),
                 "conv_kernel_size": draw(st.integers(0, 5)), "output_proj_dims": draw(st.integers(0, 20))}
    _maybe(draw, "use_clipped_linears", draw(st.booleans()), cfg)
    _maybe(draw, "attention_chunk_size", draw(st.integers(1, 8)), cfg)
    cfg["architectures"] = ["Gemma4AudioModel"]
    return cfg


def gemma4_config(draw) -> dict:
    """Gemma 4 (Gemma4ForConditionalGeneration, Gemma4Model): a text_config (its model_type the family's, another or
    none: the class builds its own), a vision_config and an audio_config each given, null or left out (no tower), the
    towers' model_type left out at times, tie_word_embeddings (text_config's never read)."""
    text = gemma4_text_config(draw)
    text.pop("architectures")
    if draw(st.booleans()):
        text.pop("model_type")
    elif draw(st.booleans()):
        text["model_type"] = "gemma3_text"
    cfg: dict = {"model_type": "gemma4", "text_config": text}
    for key, drawer in (("vision_config", gemma4_vision_config), ("audio_config", gemma4_audio_config)):
        how = draw(st.sampled_from(["given", "given", "null", "absent"]))
        if how == "null":
            cfg[key] = None
        elif how == "given":
            tower = drawer(draw)
            tower.pop("architectures")
            if draw(st.booleans()):
                tower.pop("model_type")
            cfg[key] = tower
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Gemma4ForConditionalGeneration", "Gemma4Model"]))]
    return cfg


STRATEGIES["gemma4_text"] = gemma4_text_config
STRATEGIES["gemma4_vision"] = gemma4_vision_config
STRATEGIES["gemma4_audio"] = gemma4_audio_config
STRATEGIES["gemma4"] = gemma4_config
