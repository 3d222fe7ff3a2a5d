"""Random small speech-encoder configs (wav2vec 2.0, HuBERT, data2vec-audio, WavLM, UniSpeech, UniSpeech-SAT, SEW,
SEW-D, wav2vec2-conformer, Wav2Vec2-BERT: layout "speech_encoder"), written as a config.json would be: a feature
encoder of 1 to 4 convolutions (group or layer norm, with or without biases), an encoder of any width the heads and
positional-convolution groups divide, pre- or post-norm layers with or without attention adapters, SpecAugment
probabilities that do or do not hold the mask vector, the convolutional adapter, and each head class's own sizes (TDNN
layers, the quantizer's codebooks), with any head class of the family; and each kin's own keys (HuBERT's projection
norm and positional batch norm, data2vec's positional-convolution stack, WavLM's buckets, UniSpeech's phonetic classes,
UniSpeech-SAT's clusters, SEW's squeeze factor, SEW-D's disentangled attention (shared or own position projections,
either kind, buckets or relative distances or positions sizing its table, its LayerNorm, the head width, the Conv1d
beside layer 0), the conformer's positions and depthwise kernel, Wav2Vec2-BERT's input width, distance embedding and
the feed-forward before its adapter). Keys a family's config class lacks are written to all alike: the class keeps
them unread."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import REQUIRED_KEYS, STRATEGIES, _maybe, draw_architecture

# (wav2vec2-conformer's config class has no vocab_size: its CTC head, the family's architecture, needs one)
REQUIRED_KEYS["wav2vec2-conformer"] = {"vocab_size": 32}
REQUIRED_KEYS["wav2vec2-bert"] = {"vocab_size": 32}  # (the same)


_UNFILLED_OUTPUT_WIDTH = ("hubert", "unispeech", "unispeech-sat", "sew", "sew-d")


def speech_config(draw, model_type: str) -> dict:
    heads = draw(st.integers(1, 4))
    groups = draw(st.sampled_from([1, 2, 4]))
    hidden = heads * groups * draw(st.integers(1, 6))
    layers = draw(st.integers(1, 4))
    cfg: dict = {"model_type": model_type, "hidden_size": hidden, "num_attention_heads": heads,
                 "num_conv_pos_embedding_groups": groups, "num_hidden_layers": draw(st.integers(0, 3)),
                 "intermediate_size": draw(st.integers(1, 40)),
                 "num_conv_pos_embeddings": draw(st.integers(1, 9)),
                 "conv_dim": draw(st.lists(st.integers(1, 24), min_size=layers, max_size=layers)),
                 "conv_kernel": draw(st.lists(st.integers(1, 5), min_size=layers, max_size=layers)),
                 "conv_stride": draw(st.lists(st.integers(1, 3), min_size=layers, max_size=layers))}
    draw_architecture(draw, model_type, cfg)
    arch = cfg["architectures"][0]
    if arch.endswith("ForCTC") and "vocab_size" in REQUIRED_KEYS.get(model_type, {}):  # (no vocabulary by default)
        cfg["vocab_size"] = draw(st.integers(1, 60))
    else:
        _maybe(draw, "vocab_size", draw(st.integers(1, 60)), cfg)
    _maybe(draw, "feat_extract_norm", draw(st.sampled_from(["group", "layer"])), cfg)
    _maybe(draw, "conv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "do_stable_layer_norm", draw(st.booleans()), cfg)
    _maybe(draw, "mask_time_prob", draw(st.sampled_from([0.0, 0.05, 0.5])), cfg)
    _maybe(draw, "mask_feature_prob", draw(st.sampled_from([0.0, 0.1])), cfg)
    _maybe(draw, "adapter_attn_dim", draw(st.sampled_from([None, 1, 7])), cfg)
    _maybe(draw, "use_weighted_layer_sum", draw(st.booleans()), cfg)
    _maybe(draw, "classifier_proj_size", draw(st.integers(1, 20)), cfg)
    if not arch.endswith("Classification"):  # (the classification classes refuse an adapter)
        _maybe(draw, "add_adapter", draw(st.booleans()), cfg)
        # (HuBERT's and UniSpeech's config classes do not fill output_hidden_size: their CTC heads need it with
        # add_adapter)
        unfilled = model_type in _UNFILLED_OUTPUT_WIDTH
        _maybe(draw, "output_hidden_size", draw(st.sampled_from([hidden, 5] if unfilled else [None, hidden, 5])), cfg,
               False if unfilled else None)
        _maybe(draw, "adapter_kernel_size", draw(st.integers(1, 4)), cfg)
        _maybe(draw, "num_adapter_layers", draw(st.integers(0, 3)), cfg)
    if model_type == "hubert":
        _maybe(draw, "feat_proj_layer_norm", draw(st.booleans()), cfg)
        _maybe(draw, "conv_pos_batch_norm", draw(st.booleans()), cfg)
    if model_type == "data2vec-audio":  # (num_conv_pos_embeddings counts its positional convolutions)
        cfg["num_conv_pos_embeddings"] = draw(st.integers(0, 3))
        _maybe(draw, "conv_pos_kernel_size", draw(st.integers(1, 7)), cfg)
    if model_type == "wavlm":
        _maybe(draw, "num_buckets", draw(st.integers(1, 40)), cfg)
    if model_type in ("sew", "sew-d"):  # (conv_dim[-1] equal to hidden_size: no feature projection)
        _maybe(draw, "squeeze_factor", draw(st.integers(1, 4)), cfg)
        if draw(st.booleans()):
            cfg["conv_dim"][-1] = hidden
    if model_type == "sew-d":
        _maybe(draw, "relative_attention", draw(st.booleans()), cfg)
        _maybe(draw, "share_att_key", draw(st.booleans()), cfg)
        _maybe(draw, "pos_att_type", draw(st.sampled_from([[], ["c2p"], ["p2c"], ["p2c", "c2p"]])), cfg)
        _maybe(draw, "position_buckets", draw(st.sampled_from([-1, 0, 3, 16])), cfg)
        _maybe(draw, "max_relative_positions", draw(st.sampled_from([-1, 0, 5])), cfg)
        _maybe(draw, "max_position_embeddings", draw(st.integers(0, 20)), cfg)
        _maybe(draw, "norm_rel_ebd", draw(st.sampled_from(["layer_norm", "none", "Layer_Norm|x"])), cfg)
        _maybe(draw, "attention_head_size", draw(st.integers(1, 6)), cfg)
        if draw(st.booleans()):  # (its ConvLayer reads hidden_dropout_prob, which SEWDConfig lacks)
            cfg.update(conv_kernel_size=draw(st.sampled_from([0, 1, 3])), hidden_dropout_prob=0.1)
            _maybe(draw, "conv_groups", draw(st.sampled_from([g for g in (1, 2, 3) if hidden % g == 0])), cfg)
    if model_type == "wav2vec2-conformer":
        # (relative positions, the default, need an even width: sines and cosines in alternate columns)
        kinds = ["rotary", None] + (["relative"] if hidden % 2 == 0 or hidden == 1 else [])
        if "relative" not in kinds:
            cfg["position_embeddings_type"] = draw(st.sampled_from(kinds))
        else:
            _maybe(draw, "position_embeddings_type", draw(st.sampled_from(kinds)), cfg)
        _maybe(draw, "conv_depthwise_kernel_size", draw(st.sampled_from([1, 3, 5])), cfg)
        _maybe(draw, "rotary_embedding_base", draw(st.sampled_from([100, 10000])), cfg)
        _maybe(draw, "max_source_positions", draw(st.integers(1, 50)), cfg)
    if model_type == "wav2vec2-bert":
        # (relative positions need an even width: sines and cosines in alternate columns)
        kinds = ["relative_key", "rotary", None] + (["relative"] if hidden % 2 == 0 or hidden == 1 else [])
        if "relative" not in kinds:
            cfg["position_embeddings_type"] = draw(st.sampled_from(kinds))
        else:
            _maybe(draw, "position_embeddings_type", draw(st.sampled_from(kinds)), cfg)
        _maybe(draw, "conv_depthwise_kernel_size", draw(st.sampled_from([1, 3, 5])), cfg)
        _maybe(draw, "feature_projection_input_dim", draw(st.integers(1, 12)), cfg)
        _maybe(draw, "left_max_position_embeddings", draw(st.integers(0, 5)), cfg)
        _maybe(draw, "right_max_position_embeddings", draw(st.integers(0, 5)), cfg)
        if cfg.get("add_adapter"):
            _maybe(draw, "use_intermediate_ffn_before_adapter", draw(st.booleans()), cfg)
        if arch.endswith("ForCTC"):  # (no default vocabulary)
            cfg["vocab_size"] = draw(st.integers(1, 60))
    if model_type == "unispeech":
        _maybe(draw, "num_ctc_classes", draw(st.integers(0, 12)), cfg)
    if model_type == "unispeech-sat":
        _maybe(draw, "num_clusters", draw(st.integers(0, 12)), cfg)
    tdnn = draw(st.integers(1, 3))
    _maybe(draw, "tdnn_dim", draw(st.lists(st.integers(1, 12), min_size=tdnn, max_size=tdnn)), cfg)
    _maybe(draw, "tdnn_kernel", draw(st.lists(st.integers(1, 4), min_size=5, max_size=6)), cfg)
    _maybe(draw, "xvector_output_dim", draw(st.integers(1, 16)), cfg)
    codebooks = draw(st.sampled_from([1, 2, 4]))  # (each divides the default codevector_dim, 256, where it is absent)
    _maybe(draw, "num_codevector_groups", codebooks, cfg)
    _maybe(draw, "codevector_dim", codebooks * draw(st.integers(1, 8)) if "num_codevector_groups" in cfg else 2 * 4,
           cfg)
    _maybe(draw, "num_codevectors_per_group", draw(st.integers(1, 12)), cfg)
    _maybe(draw, "proj_codevector_dim", draw(st.integers(1, 12)), cfg)
    return cfg


STRATEGIES.update({"wav2vec2": lambda draw: speech_config(draw, "wav2vec2"),
                   "hubert": lambda draw: speech_config(draw, "hubert"),
                   "data2vec-audio": lambda draw: speech_config(draw, "data2vec-audio"),
                   "wavlm": lambda draw: speech_config(draw, "wavlm"),
                   "unispeech": lambda draw: speech_config(draw, "unispeech"),
                   "unispeech-sat": lambda draw: speech_config(draw, "unispeech-sat"),
                   "sew": lambda draw: speech_config(draw, "sew"),
                   "sew-d": lambda draw: speech_config(draw, "sew-d"),
                   "wav2vec2-conformer": lambda draw: speech_config(draw, "wav2vec2-conformer"),
                   "wav2vec2-bert": lambda draw: speech_config(draw, "wav2vec2-bert")})
