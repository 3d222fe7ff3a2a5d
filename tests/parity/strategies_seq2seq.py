"""Random small encoder-decoder configs (t5, mt5, umt5, switch_transformers, bart, mbart, whisper, pegasus,
marian, blenderbot, blenderbot-small, plbart, mvp, m2m_100, nllb-moe, led, longt5, fsmt).

Written as a config.json would be: any alias the config class accepts, optional
keys and switches left out at random so the class defaults are exercised, an
``architectures[0]`` drawn among the heads we model, token ids inside the vocab.
"""

from __future__ import annotations

from hypothesis import strategies as st

from lsp_count.core.families import find_family

from .strategies import STRATEGIES, _maybe, draw_architecture


def _key(draw, model_type: str, field: str) -> str:
    """Any spelling the config class accepts for a canonical field."""
    return draw(st.sampled_from(find_family(model_type).fields[field].keys))  # type: ignore[union-attr]


def _token_ids(draw, cfg: dict, vocab: int) -> None:
    for key in ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id"):
        cfg[key] = draw(st.integers(0, vocab - 1))


def _t5_common(draw, model_type: str) -> dict:
    cfg: dict = {"model_type": model_type}
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    cfg[_key(draw, model_type, "hidden_size")] = draw(st.sampled_from([8, 12, 16, 24, 32]))
    # T5 attention is heads × d_kv wide, independent of d_model.
    cfg[_key(draw, model_type, "encoder_heads")] = draw(st.integers(1, 4))
    cfg[_key(draw, model_type, "encoder_head_dim")] = draw(st.sampled_from([2, 4, 8]))
    cfg["d_ff"] = draw(st.integers(4, 64))
    layers = draw(st.integers(1, 5))
    cfg[_key(draw, model_type, "encoder_layers")] = layers
    _maybe(draw, "num_decoder_layers", draw(st.sampled_from([None, 1, 2, 3, 5])), cfg)
    _maybe(draw, "relative_attention_num_buckets", draw(st.integers(1, 40)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    _token_ids(draw, cfg, vocab)
    return cfg


def _t5_like(draw, model_type: str) -> dict:
    """T5 and its multilingual variants: the same keys, the config class defaults apart."""
    cfg = _t5_common(draw, model_type)
    _maybe(draw, "feed_forward_proj", draw(st.sampled_from(["relu", "gated-gelu", "gelu", "gated-silu"])), cfg)
    draw_architecture(draw, model_type, cfg)
    return cfg


def t5(draw) -> dict:
    return _t5_like(draw, "t5")


def mt5(draw) -> dict:
    return _t5_like(draw, "mt5")


def umt5(draw) -> dict:
    # umT5 gives every block's self-attention its own relative_attention_bias table.
    return _t5_like(draw, "umt5")


def longt5(draw) -> dict:
    """LongT5: T5's keys, the encoder's attention local or transient-global (its window sizes count nothing)."""
    cfg = _t5_common(draw, "longt5")
    _maybe(draw, "feed_forward_proj", draw(st.sampled_from(["relu", "gated-gelu", "gelu", "gated-silu"])), cfg)
    _maybe(draw, "encoder_attention_type", draw(st.sampled_from(["local", "transient-global"])), cfg)
    _maybe(draw, "local_radius", draw(st.integers(1, 8)), cfg)
    _maybe(draw, "global_block_size", draw(st.integers(1, 8)), cfg)
    draw_architecture(draw, "longt5", cfg)
    return cfg


def switch_transformers(draw) -> dict:
    cfg = _t5_common(draw, "switch_transformers")
    experts = draw(st.integers(1, 4))
    cfg["num_experts"] = experts
    _maybe(draw, "router_bias", draw(st.booleans()), cfg)
    _maybe(draw, "num_sparse_encoder_layers", draw(st.integers(0, 6)), cfg)
    _maybe(draw, "num_sparse_decoder_layers", draw(st.integers(0, 6)), cfg)
    # Published configs also write the derived steps; when present they win over the sparse counts.
    _maybe(draw, "encoder_sparse_step", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "decoder_sparse_step", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "num_selected_experts", 1, cfg)
    draw_architecture(draw, "switch_transformers", cfg)
    return cfg


def _bart_like(draw, model_type: str) -> dict:
    cfg: dict = {"model_type": model_type}
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    enc_heads = draw(st.integers(1, 4))
    dec_heads = draw(st.integers(1, 4))
    # d_model must be a multiple of both head counts (the attention refuses otherwise).
    lcm = enc_heads * dec_heads // _gcd(enc_heads, dec_heads)
    cfg[_key(draw, model_type, "hidden_size")] = lcm * draw(st.sampled_from([2, 4, 8]))
    cfg[_key(draw, model_type, "encoder_heads")] = enc_heads
    cfg["decoder_attention_heads"] = dec_heads
    cfg[_key(draw, model_type, "encoder_layers")] = draw(st.integers(1, 4))
    cfg["decoder_layers"] = draw(st.integers(1, 4))
    cfg["encoder_ffn_dim"] = draw(st.integers(4, 64))
    cfg["decoder_ffn_dim"] = draw(st.integers(4, 64))
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "scale_embedding", draw(st.booleans()), cfg)
    _token_ids(draw, cfg, vocab)
    return cfg


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def bart(draw) -> dict:
    cfg = _bart_like(draw, "bart")
    cfg["max_position_embeddings"] = draw(st.integers(4, 64))
    draw_architecture(draw, "bart", cfg)
    return cfg


def mbart(draw) -> dict:
    cfg = _bart_like(draw, "mbart")
    cfg["max_position_embeddings"] = draw(st.integers(4, 64))
    draw_architecture(draw, "mbart", cfg)
    return cfg


def _bart_like_positions(draw, model_type: str) -> dict:
    """A BART-like family with learned (BART, PLBart, MVP, Blenderbot) or sinusoidal (Pegasus, Marian) positions."""
    cfg = _bart_like(draw, model_type)
    _maybe(draw, "max_position_embeddings", draw(st.integers(1, 64)), cfg)
    return cfg


def _bart_like_plain(model_type: str):
    """The strategy of a BART-like family with no keys of its own (Pegasus, Blenderbot, BlenderbotSmall, PLBart)."""
    def draw_config(draw) -> dict:
        cfg = _bart_like_positions(draw, model_type)
        draw_architecture(draw, model_type, cfg)
        return cfg
    return draw_config


def marian(draw) -> dict:
    """Marian: shared or separate encoder/decoder embeddings, a decoder vocabulary of its own (absent, null
    or 0: vocab_size), the head tied or not."""
    cfg = _bart_like_positions(draw, "marian")
    _maybe(draw, "share_encoder_decoder_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "decoder_vocab_size", draw(st.sampled_from([None, 0, 5, cfg["vocab_size"], 301])), cfg)
    if cfg.get("decoder_vocab_size"):  # the decoder's own embedding takes pad_token_id as its padding index
        cfg["pad_token_id"] = draw(st.integers(0, min(cfg["vocab_size"], cfg["decoder_vocab_size"]) - 1))
    draw_architecture(draw, "marian", cfg)
    return cfg


def mvp(draw) -> dict:
    """MVP: with use_prompt, the decoder's two prompts, sized by its depth (transformers 5.25's encoder gets none)."""
    cfg = _bart_like_positions(draw, "mvp")
    _maybe(draw, "use_prompt", draw(st.booleans()), cfg)
    _maybe(draw, "prompt_length", draw(st.integers(0, 12)), cfg)
    _maybe(draw, "prompt_mid_dim", draw(st.integers(0, 24)), cfg)
    draw_architecture(draw, "mvp", cfg)
    return cfg


def m2m_100(draw) -> dict:
    """M2M100: its sinusoidal position buffer (max_position_embeddings + 2 rows, no parameters) takes the pad
    token as its padding index too, so the pad lies inside both tables; its frequencies need d_model ≥ 4."""
    cfg = _bart_like_positions(draw, "m2m_100")
    width = next(k for k in ("d_model", "hidden_size") if k in cfg)
    cfg[width] *= 1 if cfg[width] >= 4 else 2 * draw(st.integers(1, 3))
    rows = cfg.get("max_position_embeddings", 1024) + 2
    cfg["pad_token_id"] = draw(st.integers(0, min(cfg["vocab_size"], rows) - 1))
    draw_architecture(draw, "m2m_100", cfg)
    return cfg


def nllb_moe(draw) -> dict:
    """NLLB-MoE: M2M100's stacks and position buffer, sparse layers every step (0: none) over 0 to 4 experts with a
    top-2 router, biased or not."""
    cfg = _bart_like_positions(draw, "nllb-moe")
    width = next(k for k in ("d_model", "hidden_size") if k in cfg)
    cfg[width] *= 1 if cfg[width] >= 4 else 2 * draw(st.integers(1, 3))
    rows = cfg.get("max_position_embeddings", 1024) + 2
    cfg["pad_token_id"] = draw(st.integers(0, min(cfg["vocab_size"], rows) - 1))
    cfg["num_experts"] = draw(st.integers(0, 4))
    for key in ("encoder_sparse_step", "decoder_sparse_step"):
        _maybe(draw, key, draw(st.integers(0, 4)), cfg)
    _maybe(draw, "router_bias", draw(st.booleans()), cfg)
    draw_architecture(draw, "nllb-moe", cfg)
    return cfg


def led(draw) -> dict:
    """LED: the encoder's and the decoder's position tables apart, the encoder's window one for all layers or
    one per layer (even and positive)."""
    cfg = _bart_like(draw, "led")
    _maybe(draw, "max_encoder_position_embeddings", draw(st.integers(1, 64)), cfg)
    _maybe(draw, "max_decoder_position_embeddings", draw(st.integers(1, 64)), cfg)
    layers = cfg[next(k for k in ("encoder_layers", "num_hidden_layers") if k in cfg)]
    even = st.integers(1, 8).map(lambda w: 2 * w)
    _maybe(draw, "attention_window", draw(st.one_of(even, st.lists(even, min_size=layers, max_size=layers))), cfg)
    draw_architecture(draw, "led", cfg)
    return cfg


def bigbird_pegasus(draw) -> dict:
    """BigBird-Pegasus: either encoder attention, biased projections or none, and the sparse pattern's keys, which
    no parameter reads."""
    cfg = _bart_like_positions(draw, "bigbird_pegasus")
    _maybe(draw, "attention_type", draw(st.sampled_from(["block_sparse", "original_full"])), cfg)
    _maybe(draw, "use_bias", draw(st.booleans()), cfg)
    _maybe(draw, "block_size", draw(st.integers(1, 64)), cfg)
    _maybe(draw, "num_random_blocks", draw(st.integers(0, 4)), cfg)
    draw_architecture(draw, "bigbird_pegasus", cfg)
    return cfg


def fsmt(draw) -> dict:
    """FSMT: source and target vocabularies apart (the target's under either spelling), tied or not; the pad
    token inside both (and so inside the position tables, max_position_embeddings + pad + 1 rows)."""
    cfg = _bart_like_positions(draw, "fsmt")
    target = cfg.pop("vocab_size")
    cfg[draw(st.sampled_from(["tgt_vocab_size", "vocab_size"]))] = target
    cfg["src_vocab_size"] = draw(st.integers(8, 300))
    cfg["pad_token_id"] = draw(st.integers(0, min(target, cfg["src_vocab_size"]) - 1))
    draw_architecture(draw, "fsmt", cfg)
    return cfg


def whisper(draw) -> dict:
    cfg = _bart_like(draw, "whisper")
    cfg["num_mel_bins"] = draw(st.integers(1, 16))
    cfg["max_source_positions"] = draw(st.integers(2, 64))
    cfg["max_target_positions"] = draw(st.integers(2, 64))
    _maybe(draw, "classifier_proj_size", draw(st.integers(1, 16)), cfg)
    _maybe(draw, "use_weighted_layer_sum", draw(st.booleans()), cfg)
    draw_architecture(draw, "whisper", cfg)
    return cfg


STRATEGIES.update({
    "t5": t5,
    "mt5": mt5,
    "umt5": umt5,
    "switch_transformers": switch_transformers,
    "bart": bart,
    "mbart": mbart,
    "whisper": whisper,
    **{mt: _bart_like_plain(mt) for mt in ("pegasus", "blenderbot", "blenderbot-small", "plbart")},
    "marian": marian,
    "mvp": mvp,
    "m2m_100": m2m_100,
    "nllb-moe": nllb_moe,
    "led": led,
    "bigbird_pegasus": bigbird_pegasus,
    "longt5": longt5,
    "fsmt": fsmt,
})
