"""Random small configs of I-BERT, LayoutLM, Splinter, SqueezeBERT, ConvBERT, Nyströmformer, YOSO, MobileBERT, MRA,
TAPAS, Longformer and BigBird, written as a config.json would be: BERT's draw (strategies_encoders.bert_like,
cross-attention keys included, which most of these layers ignore) and each family's own keys, left out at random."""

from __future__ import annotations

from math import gcd

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import _summary, bert_like


def ibert(draw) -> dict:
    cfg = bert_like("ibert")(draw)
    # QuantEmbedding has no range check on its padding index: any pad_token_id builds (or none).
    _maybe(draw, "pad_token_id", draw(st.sampled_from([None, -3, 0, 1, 500])), cfg)
    _maybe(draw, "quant_mode", draw(st.booleans()), cfg)
    _maybe(draw, "force_dequant", draw(st.sampled_from(["none", "gelu", "softmax", "layernorm", "nonlinear"])), cfg)
    return cfg


def layoutlm(draw) -> dict:
    cfg = bert_like("layoutlm")(draw)
    _maybe(draw, "max_2d_position_embeddings", draw(st.integers(0, 40)), cfg)
    return cfg


def mobilebert(draw) -> dict:
    """MobileBERT: BERT's draw, then its own widths and switches. The bottleneck width is at least the head count
    (narrower heads are 0 wide, which the attention refuses) and embedding_size at most hidden_size (the MLM head
    refuses a wider one): the unit tests check both refusals."""
    cfg = bert_like("mobilebert")(draw)
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    # Always written: the default 128 is wider than these small hiddens, which the MLM classes refuse.
    cfg["embedding_size"] = draw(st.integers(1, hidden))
    _maybe(draw, "trigram_input", draw(st.booleans()), cfg)
    _maybe(draw, "use_bottleneck", draw(st.booleans()), cfg)
    _maybe(draw, "intra_bottleneck_size", draw(st.integers(heads, heads + 12)), cfg)
    if cfg.get("use_bottleneck") is False:  # the heads divide hidden_size then: any bottleneck width is unread
        _maybe(draw, "intra_bottleneck_size", draw(st.integers(1, 20)), cfg)
    _maybe(draw, "use_bottleneck_attention", draw(st.booleans()), cfg)
    _maybe(draw, "key_query_shared_bottleneck", draw(st.booleans()), cfg)
    _maybe(draw, "num_feedforward_networks", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "normalization_type", draw(st.sampled_from(["no_norm", "layer_norm"])), cfg)
    _maybe(draw, "classifier_activation", draw(st.booleans()), cfg)
    return cfg


def squeezebert(draw) -> dict:
    """SqueezeBERT: BERT's draw, embedding_size written as hidden_size (the encoder asserts they are equal; the default
    768 is not derived), each convolution's groups a divisor of its channels (nn.Conv1d refuses others: the unit tests
    check both refusals)."""
    cfg = bert_like("squeezebert")(draw)
    hidden, ffn = cfg["hidden_size"], cfg.get("intermediate_size", 3072)
    cfg["embedding_size"] = hidden
    # Always written: the defaults (4) need not divide these small widths.
    for key in ("q_groups", "k_groups", "v_groups", "post_attention_groups"):
        cfg[key] = draw(st.sampled_from([g for g in range(1, hidden + 1) if hidden % g == 0]))
    both = gcd(hidden, ffn)
    for key in ("intermediate_groups", "output_groups"):
        cfg[key] = draw(st.sampled_from([g for g in range(1, both + 1) if both % g == 0]))
    return cfg


def convbert(draw) -> dict:
    """ConvBERT: BERT's draw (cross-attention keys included: its layer builds a whole ConvBERT attention block there),
    an embedding width of its own or hidden_size, a head_ratio whose head count (heads // ratio, at least 1) divides
    hidden_size (its attention refuses others: a unit test checks it), the convolution's span (0 builds) and the
    feed-forward's groups (floored, any count), and the sequence summary keys."""
    cfg = bert_like("convbert")(draw)
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    _maybe(draw, "embedding_size", draw(st.sampled_from([hidden, draw(st.integers(2, 24))])), cfg)
    ratios = [r for r in (-1, 1, 2, 3, 4) if hidden % max(1, heads // r) == 0]
    # Always written: the default 2 need not give a head count that divides these small widths.
    cfg["head_ratio"] = draw(st.sampled_from(ratios))
    _maybe(draw, "conv_kernel_size", draw(st.integers(0, 5)), cfg)
    _maybe(draw, "num_groups", draw(st.integers(1, 4)), cfg)
    _summary(draw, cfg, cfg["architectures"][0])
    return cfg


def nystromformer(draw) -> dict:
    """Nyströmformer: BERT's draw (cross-attention keys included, which its layer ignores), the value convolution's
    rows (0 builds) and the landmark keys, which no parameter reads."""
    cfg = bert_like("nystromformer")(draw)
    _maybe(draw, "conv_kernel_size", draw(st.integers(0, 5)), cfg)
    _maybe(draw, "num_landmarks", draw(st.integers(1, 8)), cfg)
    _maybe(draw, "segment_means_seq_len", draw(st.integers(1, 16)), cfg)
    return cfg


def yoso(draw) -> dict:
    """YOSO: BERT's draw (cross-attention keys included, which its layer ignores), a value convolution's rows or none
    (null, the default) and the hashing keys, which no parameter reads."""
    cfg = bert_like("yoso")(draw)
    _maybe(draw, "conv_window", draw(st.sampled_from([None, 0, 1, 3, 5])), cfg)
    _maybe(draw, "num_hash", draw(st.integers(1, 8)), cfg)
    _maybe(draw, "hash_code_len", draw(st.integers(1, 9)), cfg)
    _maybe(draw, "use_expectation", draw(st.booleans()), cfg)
    return cfg


def mra(draw) -> dict:
    """MRA: BERT's draw (cross-attention keys included, which its layer ignores) and the keys of its multi-resolution
    attention, which no parameter reads (max_position_embeddings sets its block count: any size builds)."""
    cfg = bert_like("mra")(draw)
    _maybe(draw, "block_per_row", draw(st.integers(0, 8)), cfg)
    _maybe(draw, "approx_mode", draw(st.sampled_from(["full", "sparse"])), cfg)
    _maybe(draw, "initial_prior_first_n_blocks", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "initial_prior_diagonal_n_blocks", draw(st.integers(0, 4)), cfg)
    return cfg


def tapas(draw) -> dict:
    """TAPAS: BERT's draw (a decoder with cross-attention too, which its layer builds), a token-type table per entry
    of type_vocab_sizes (none, or empty ones, build), the aggregation classifier's labels (none where 0 or fewer) and
    keys of its losses, which no parameter reads."""
    cfg = bert_like("tapas")(draw)
    cfg.pop("type_vocab_size", None)  # BERT's single table: TapasConfig has none
    _maybe(draw, "type_vocab_sizes", draw(st.lists(st.integers(0, 12), max_size=8)), cfg)
    _maybe(draw, "num_aggregation_labels", draw(st.integers(-1, 5)), cfg)
    _maybe(draw, "reset_position_index_per_cell", draw(st.booleans()), cfg)
    _maybe(draw, "select_one_column", draw(st.booleans()), cfg)
    _maybe(draw, "max_num_rows", draw(st.integers(1, 64)), cfg)
    return cfg


def longformer(draw) -> dict:
    """Longformer: BERT's draw (cross-attention keys included, which its layer ignores) and a window for all layers or
    one per layer (even and positive, as the model asserts), which no parameter reads."""
    cfg = bert_like("longformer")(draw)
    layers = next(cfg[k] for k in ("num_hidden_layers", "num_layers", "n_layer") if k in cfg)
    even = st.integers(1, 300).map(lambda n: 2 * n)
    _maybe(draw, "attention_window", draw(st.one_of(even, st.lists(even, min_size=layers, max_size=layers))), cfg)
    return cfg


def big_bird(draw) -> dict:
    """BigBird: BERT's draw (a decoder with cross-attention too, which makes the block-sparse attention full), either
    attention, biases on the projections or none, and the keys of the sparse pattern, which no parameter reads."""
    cfg = bert_like("big_bird")(draw)
    _maybe(draw, "attention_type", draw(st.sampled_from(["block_sparse", "original_full"])), cfg)
    _maybe(draw, "use_bias", draw(st.booleans()), cfg)
    _maybe(draw, "block_size", draw(st.integers(1, 64)), cfg)
    _maybe(draw, "num_random_blocks", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "rescale_embeddings", draw(st.booleans()), cfg)
    return cfg


STRATEGIES["ibert"] = ibert
STRATEGIES["layoutlm"] = layoutlm
STRATEGIES["splinter"] = bert_like("splinter")
STRATEGIES["mobilebert"] = mobilebert
STRATEGIES["squeezebert"] = squeezebert
STRATEGIES["convbert"] = convbert
STRATEGIES["nystromformer"] = nystromformer
STRATEGIES["yoso"] = yoso
STRATEGIES["mra"] = mra
STRATEGIES["tapas"] = tapas
STRATEGIES["longformer"] = longformer
STRATEGIES["big_bird"] = big_bird
