"""Random small encoder and vision configs (bert, roberta, xlm-roberta, camembert, data2vec-text, xlm-roberta-xl,
roberta-prelayernorm, megatron-bert, electra, roformer, rembert, distilbert, modernbert, albert, vit, clip and its
towers, siglip_vision_model, deberta-v2, deberta, mpnet,
dinov2, dinov2_with_registers, deit, gte, nomic_bert, eurobert, siglip and siglip2 and their towers), written as a config.json would be.

Any alias the config class accepts, optional keys and switches left out at
random (the class defaults then apply), ``architectures[0]`` drawn among the
heads we model, token ids inside the vocabulary.
"""

from __future__ import annotations

from hypothesis import strategies as st

from lsp_count.core.families import find_family

from .strategies import STRATEGIES, _maybe


def _key(draw, model_type: str, field: str) -> str:
    """Any spelling the config class accepts for a canonical field."""
    return draw(st.sampled_from(find_family(model_type).fields[field].keys))  # type: ignore[union-attr]


def _architecture(draw, model_type: str, cfg: dict) -> str:
    import transformers

    family = find_family(model_type)
    assert family is not None
    arch = draw(st.sampled_from(sorted(a for a in family.heads if hasattr(transformers, a))))
    cfg["architectures"] = [arch]
    if ("Classification" in arch or "QuestionAnswering" in arch) and draw(st.booleans()):
        # DistilBertForQuestionAnswering refuses any but 2 labels (a test of its own checks that lsp-count does too).
        labels = 2 if arch == "DistilBertForQuestionAnswering" else draw(st.integers(1, 5))
        cfg["id2label"] = {str(i): f"L{i}" for i in range(labels)}
    return arch


def _sizes(draw, model_type: str, cfg: dict) -> int:
    """Heads, hidden (a multiple of the heads: these classes refuse a remainder), layers, ffn."""
    heads = draw(st.integers(1, 4))
    hidden = heads * draw(st.sampled_from([2, 4, 8]))
    cfg[_key(draw, model_type, "num_heads")] = heads
    cfg[_key(draw, model_type, "hidden_size")] = hidden
    cfg[_key(draw, model_type, "num_layers")] = draw(st.integers(1, 3))
    cfg[_key(draw, model_type, "intermediate_size")] = draw(st.integers(4, 48))
    return hidden


def _text(draw, model_type: str) -> dict:
    cfg: dict = {"model_type": model_type}
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    _sizes(draw, model_type, cfg)
    # RoBERTa-likes pad with id 1 and use it as the position table's padding index too.
    cfg["pad_token_id"] = draw(st.integers(0, 1))
    _maybe(draw, "max_position_embeddings", draw(st.integers(4, 130)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    return cfg


def bert_like(model_type: str):
    def draw_config(draw) -> dict:
        cfg = _text(draw, model_type)
        _maybe(draw, "type_vocab_size", draw(st.integers(0, 4)), cfg)
        arch = _architecture(draw, model_type, cfg)
        # Decoder use (BertLMHeadModel, RobertaForCausalLM) may add cross-attention to every layer.
        if draw(st.booleans()):
            cfg["is_decoder"] = True
            _maybe(draw, "add_cross_attention", draw(st.booleans()), cfg)
        elif arch.endswith(("LMHeadModel", "ForCausalLM")):
            _maybe(draw, "is_decoder", False, cfg)
        return cfg

    return draw_config


def _summary(draw, cfg: dict, arch: str) -> None:
    """The SequenceSummary keys ELECTRA's and RoFormer's multiple-choice class reads, where the config has them."""
    _maybe(draw, "summary_type", draw(st.sampled_from(["first", "last", "mean", "cls_index"])), cfg)
    _maybe(draw, "summary_use_proj", draw(st.booleans()), cfg)
    _maybe(draw, "summary_proj_to_labels", draw(st.booleans()), cfg)
    if arch.endswith("ForMultipleChoice") and draw(st.booleans()):
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}


def factorised(model_type: str):
    """ELECTRA and RoFormer: an embedding width of its own (or, RoFormer, none: hidden_size), the sequence summary
    keys; RemBERT: input and output embedding widths."""
    base = bert_like(model_type)

    def draw_config(draw) -> dict:
        cfg = base(draw)
        arch = cfg["architectures"][0]
        hidden = cfg["hidden_size"]
        if model_type == "rembert":
            _maybe(draw, "input_embedding_size", draw(st.sampled_from([hidden, draw(st.integers(2, 24))])), cfg)
            _maybe(draw, "output_embedding_size", draw(st.integers(2, 24)), cfg)
            return cfg
        width = draw(st.sampled_from([hidden, draw(st.integers(2, 24))] + ([None] if model_type == "roformer" else [])))
        _maybe(draw, "embedding_size", width, cfg)
        if model_type == "roformer":
            _maybe(draw, "rotary_value", draw(st.booleans()), cfg)
        _summary(draw, cfg, arch)
        return cfg

    return draw_config


def distilbert(draw) -> dict:
    cfg = _text(draw, "distilbert")
    _maybe(draw, "sinusoidal_pos_embds", draw(st.booleans()), cfg)
    _architecture(draw, "distilbert", cfg)
    return cfg


def albert(draw) -> dict:
    cfg = _text(draw, "albert")
    _maybe(draw, "embedding_size", draw(st.integers(2, 24)), cfg)
    _maybe(draw, "type_vocab_size", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "num_hidden_groups", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "inner_group_num", draw(st.integers(1, 3)), cfg)
    _architecture(draw, "albert", cfg)
    return cfg


def modernbert(draw, model_type: str = "modernbert") -> dict:
    """ModernBERT: no position table or token types; norm, attention, MLP, prediction-head and decoder
    biases each a switch; the layer types (rotary only) given, or derived from global_attn_every_n_layers.
    (ModernBERT-Decoder, ``model_type`` "modernbert-decoder", takes the same keys.)"""
    cfg: dict = {"model_type": model_type}
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    _sizes(draw, model_type, cfg)
    # The class default pad_token_id (50283) is outside a small vocabulary: the embedding refuses it.
    cfg["pad_token_id"] = draw(st.integers(-vocab, vocab - 1))
    _maybe(draw, "max_position_embeddings", draw(st.integers(4, 130)), cfg)
    for key in ("tie_word_embeddings", "norm_bias", "attention_bias", "mlp_bias", "classifier_bias", "decoder_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    if draw(st.booleans()):
        types = ("full_attention", "sliding_attention")
        cfg["layer_types"] = [draw(st.sampled_from(types)) for _ in range(cfg["num_hidden_layers"])]
    else:
        _maybe(draw, "global_attn_every_n_layers", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "local_attention", draw(st.sampled_from([2, 8, 128])), cfg)
    _architecture(draw, model_type, cfg)
    return cfg


def deberta(model_type: str):
    """DeBERTa and DeBERTa-v2: relative attention (its table sized by max_relative_positions, position_buckets or
    the position count), the position projections by pos_att_type (a list or a "|" string), the absolute table or
    none, a factorised embedding width, the legacy MLM head or not; v2's shared keys, attention_head_size, the
    relative table's LayerNorm and the Conv1d; v1's talking heads. Keys the modules read by getattr, written or
    not."""
    def draw_config(draw) -> dict:
        cfg = _text(draw, model_type)
        hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
        _maybe(draw, "type_vocab_size", draw(st.integers(0, 3)), cfg)
        _maybe(draw, "relative_attention", draw(st.booleans()), cfg)
        _maybe(draw, "max_relative_positions", draw(st.sampled_from([-1, 0, 3, 7])), cfg)
        kinds = draw(st.sampled_from([None, ["c2p"], ["p2c"], ["p2c", "c2p"], "c2p|P2C", "p2c", "none"]))
        _maybe(draw, "pos_att_type", kinds, cfg)
        _maybe(draw, "position_biased_input", draw(st.booleans()), cfg)
        _maybe(draw, "embedding_size", draw(st.sampled_from([hidden, draw(st.integers(2, 24))])), cfg)
        _maybe(draw, "legacy", draw(st.booleans()), cfg)
        if model_type == "deberta-v2":
            _maybe(draw, "position_buckets", draw(st.sampled_from([-1, 0, 4, 16])), cfg)
            _maybe(draw, "share_att_key", draw(st.booleans()), cfg)
            _maybe(draw, "norm_rel_ebd", draw(st.sampled_from(["none", "layer_norm", "Layer_Norm|none"])), cfg)
            _maybe(draw, "conv_kernel_size", draw(st.sampled_from([0, 1, 3, 5])), cfg)
            _maybe(draw, "conv_groups", draw(st.sampled_from([g for g in (1, 2, 4) if hidden % g == 0])), cfg)
            _maybe(draw, "attention_head_size", draw(st.sampled_from([hidden // heads, 3])), cfg)
        else:
            _maybe(draw, "talking_head", draw(st.booleans()), cfg)
        _maybe(draw, "pooler_hidden_size", draw(st.sampled_from([hidden, draw(st.integers(2, 24))])), cfg)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


def mpnet(draw) -> dict:
    """MPNet: no token types, a relative-position bias per head (its bucket count), padding index 1 whatever
    pad_token_id says."""
    cfg = _text(draw, "mpnet")
    _maybe(draw, "relative_attention_num_buckets", draw(st.integers(1, 40)), cfg)
    _architecture(draw, "mpnet", cfg)
    return cfg


def gte(draw) -> dict:
    """GTE: rotary positions (no table), token types or none (type_vocab_size 0), a head width of its own or not."""
    cfg = _text(draw, "gte")
    _maybe(draw, "type_vocab_size", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 6])), cfg)
    _architecture(draw, "gte", cfg)
    return cfg


def jina_embeddings_v3(draw) -> dict:
    """Jina Embeddings v3: rotary positions (no table), token types, a head width of its own or not, and heads that
    do not divide the width (its attention floors the head width and checks nothing)."""
    cfg = _text(draw, "jina_embeddings_v3")
    _maybe(draw, "type_vocab_size", draw(st.integers(0, 3)), cfg)
    if draw(st.booleans()):
        cfg["hidden_size"] += draw(st.integers(1, 3))
    _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 6])), cfg)
    _architecture(draw, "jina_embeddings_v3", cfg)
    return cfg


def esmc(draw) -> dict:
    """ESM-C: no grouped-query attention (num_key_value_heads, where written, is num_attention_heads), a head width of
    its own or not, attention and MLP biases, the token classifier's bias; any pad_token_id (no padding index)."""
    cfg = _text(draw, "esmc")
    _maybe(draw, "pad_token_id", draw(st.sampled_from([None, -1, 0, 1, 500])), cfg)
    _maybe(draw, "num_key_value_heads", cfg["num_attention_heads"], cfg)
    _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 8])), cfg)
    for key in ("attention_bias", "mlp_bias", "token_classification_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    _architecture(draw, "esmc", cfg)
    return cfg


def eurobert(draw) -> dict:
    """EuroBERT: grouped-query attention (any key/value head count: its class divides without checking), a head
    width of its own or not, attention and MLP biases, tied or not; the class default pad_token_id lies outside a
    small vocabulary."""
    cfg = _text(draw, "eurobert")
    vocab = cfg["vocab_size"]
    cfg["pad_token_id"] = draw(st.integers(0, vocab - 1))
    _maybe(draw, "num_key_value_heads", draw(st.integers(1, cfg["num_attention_heads"])), cfg)
    _maybe(draw, "head_dim", draw(st.sampled_from([2, 4, 8])), cfg)
    for key in ("attention_bias", "mlp_bias"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    _architecture(draw, "eurobert", cfg)
    return cfg


def _image(draw, cfg: dict, pairs: bool) -> None:
    """image_size / patch_size: a side, or (ViT only) [height, width]; a side smaller than the patch too (a grid
    of no patches, which transformers builds)."""
    patch = draw(st.integers(2, 8))
    side = max(1, patch * draw(st.integers(0, 4)) + draw(st.integers(0, patch - 1)))
    if pairs and draw(st.booleans()):
        cfg["patch_size"] = [patch, draw(st.integers(2, 8))]
        cfg["image_size"] = [side, max(1, cfg["patch_size"][1] * draw(st.integers(0, 4)))]
    else:
        cfg["patch_size"] = patch
        cfg["image_size"] = side
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)


def vit(draw, model_type: str = "vit") -> dict:
    """ViT and DeiT (ViT with a distillation token)."""
    cfg: dict = {"model_type": model_type}
    hidden = _sizes(draw, model_type, cfg)
    _image(draw, cfg, pairs=True)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "pooler_output_size", draw(st.sampled_from([None, 3, hidden])), cfg)
    _maybe(draw, "encoder_stride", draw(st.integers(1, 4)), cfg)
    _architecture(draw, model_type, cfg)
    return cfg


def dinov2(model_type: str):
    """DINOv2 (and with registers): the MLP by mlp_ratio or a SwiGLU, a head width of its own or not, image and
    patch sides or [height, width] pairs, the mask token (DINOv2) or the register count."""
    def draw_config(draw) -> dict:
        cfg: dict = {"model_type": model_type}
        heads = draw(st.integers(1, 4))
        hidden = heads * draw(st.sampled_from([2, 4, 8]))
        cfg["num_attention_heads"], cfg["hidden_size"] = heads, hidden
        cfg["num_hidden_layers"] = draw(st.integers(1, 3))
        _maybe(draw, "mlp_ratio", draw(st.integers(1, 5)), cfg)
        _maybe(draw, "use_swiglu_ffn", draw(st.booleans()), cfg)
        _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
        _maybe(draw, "head_dim", draw(st.integers(1, 6)), cfg)
        _image(draw, cfg, pairs=True)
        if model_type == "dinov2":
            _maybe(draw, "use_mask_token", draw(st.booleans()), cfg)
        else:
            _maybe(draw, "num_register_tokens", draw(st.integers(0, 5)), cfg)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


def clip_vision(draw, model_type: str = "clip_vision_model") -> dict:
    cfg: dict = {"model_type": model_type}
    _sizes(draw, model_type, cfg)
    _image(draw, cfg, pairs=False)
    if model_type == "clip_vision_model":
        _maybe(draw, "projection_dim", draw(st.integers(2, 24)), cfg)
    if model_type == "siglip_vision_model":
        _maybe(draw, "vision_use_head", draw(st.booleans()), cfg)
    return cfg


def clip_text(draw) -> dict:
    cfg: dict = {"model_type": "clip_text_model"}
    _sizes(draw, "clip_text_model", cfg)
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    for key in ("pad_token_id", "bos_token_id", "eos_token_id"):
        cfg[key] = draw(st.integers(0, vocab - 1))
    _maybe(draw, "max_position_embeddings", draw(st.integers(2, 80)), cfg)
    _maybe(draw, "projection_dim", draw(st.integers(2, 24)), cfg)
    return cfg


def siglip_text(draw) -> dict:
    """SigLIP's text tower: token and position tables, its head to projection_size (null or absent: hidden)."""
    cfg: dict = {"model_type": "siglip_text_model"}
    _sizes(draw, "siglip_text_model", cfg)
    vocab = draw(st.integers(8, 300))
    cfg["vocab_size"] = vocab
    for key in ("pad_token_id", "bos_token_id", "eos_token_id"):
        cfg[key] = draw(st.integers(0, vocab - 1))
    _maybe(draw, "max_position_embeddings", draw(st.integers(2, 80)), cfg)
    _maybe(draw, "projection_size", draw(st.sampled_from([None, draw(st.integers(2, 24))])), cfg)
    return cfg


def siglip2_vision(draw) -> dict:
    """SigLIP 2's vision tower: a Linear over each patch (its side), num_patches positions."""
    cfg: dict = {"model_type": "siglip2_vision_model"}
    _sizes(draw, "siglip2_vision_model", cfg)
    cfg["patch_size"] = draw(st.integers(1, 6))
    _maybe(draw, "num_patches", draw(st.integers(1, 40)), cfg)
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "vision_use_head", draw(st.booleans()), cfg)
    return cfg


def siglip(draw, model_type: str = "siglip") -> dict:
    """SiglipModel and Siglip2Model (their towers' configs written or not, with or without their model_type)."""
    cfg: dict = {"model_type": model_type}
    text = siglip_text if model_type == "siglip" else lambda d: {**siglip_text(d), "model_type": "siglip2_text_model"}
    vision = (lambda d: clip_vision(d, "siglip_vision_model")) if model_type == "siglip" else siglip2_vision
    for key, sub in (("text_config", text), ("vision_config", vision)):
        part = sub(draw)
        if draw(st.booleans()):
            part.pop("model_type")  # SiglipConfig knows its sub-config classes
        _maybe(draw, key, part, cfg, p_omit=draw(st.integers(0, 5)) == 0)
    _architecture(draw, model_type, cfg)
    return cfg


def _tower(model_type: str):
    def draw_config(draw) -> dict:
        if model_type == "clip_text_model":
            cfg = clip_text(draw)
        elif model_type in ("siglip_text_model", "siglip2_text_model"):
            cfg = {**siglip_text(draw), "model_type": model_type}
        elif model_type == "siglip2_vision_model":
            cfg = siglip2_vision(draw)
        else:
            cfg = clip_vision(draw, model_type)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


def _dual(model_type: str, text, vision):
    """A CLIP-shaped dual encoder's config: its towers' configs (their model_type written or not), and now and then
    "<key>_dict" copies, which old checkpoints carry and CLIPConfig (ChineseCLIPConfig) rebuilds the sub-config from."""
    def draw_config(draw) -> dict:
        cfg: dict = {"model_type": model_type}
        for key, sub in (("text_config", text), ("vision_config", vision)):
            part = sub(draw)
            if draw(st.booleans()):
                part.pop("model_type")  # the config class knows its sub-config classes
            if draw(st.integers(0, 4)) == 0:
                cfg[key + "_dict"] = sub(draw)
            cfg[key] = part
        _maybe(draw, "projection_dim", draw(st.integers(2, 24)), cfg)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


clip = _dual("clip", clip_text, clip_vision)


for _mt in ("bert", "roberta", "xlm-roberta", "camembert", "data2vec-text", "xlm-roberta-xl", "roberta-prelayernorm",
            "megatron-bert"):
    STRATEGIES[_mt] = bert_like(_mt)
for _mt in ("electra", "roformer", "rembert"):
    STRATEGIES[_mt] = factorised(_mt)
STRATEGIES["distilbert"] = distilbert
STRATEGIES["modernbert"] = modernbert
STRATEGIES["albert"] = albert
STRATEGIES["vit"] = vit
STRATEGIES["clip"] = clip
for _mt in ("clip_vision_model", "clip_text_model", "siglip_vision_model", "siglip_text_model", "siglip2_text_model",
            "siglip2_vision_model"):
    STRATEGIES[_mt] = _tower(_mt)


def _as_metaclip_2(config: dict) -> dict:
    """A CLIP config as MetaCLIP 2's: its model types and classes renamed, nested configs too."""
    out: dict = {}
    for key, value in config.items():
        if isinstance(value, dict):
            value = _as_metaclip_2(value)
        elif key == "model_type":
            value = value.replace("clip", "metaclip_2")
        elif key == "architectures":
            value = [a.replace("CLIP", "MetaClip2") for a in value]
        out[key] = value
    return out


def _metaclip_2(strategy):
    def draw_config(draw) -> dict:
        return _as_metaclip_2(strategy(draw))

    return draw_config


STRATEGIES["metaclip_2"] = _metaclip_2(clip)
for _mt in ("clip_vision_model", "clip_text_model"):
    STRATEGIES[_mt.replace("clip", "metaclip_2")] = _metaclip_2(_tower(_mt))


def chinese_clip_text(draw) -> dict:
    """Chinese-CLIP's BERT text tower (no decoder use: its layers have no cross-attention)."""
    cfg = _text(draw, "chinese_clip_text_model")
    cfg.pop("tie_word_embeddings", None)
    _maybe(draw, "type_vocab_size", draw(st.integers(0, 4)), cfg)
    return cfg


def chinese_clip_vision(draw) -> dict:
    return clip_vision(draw, "chinese_clip_vision_model")


# ChineseCLIPModel: a BERT text tower (built without its pooler), CLIP's vision tower and projections.
chinese_clip = _dual("chinese_clip", chinese_clip_text, chinese_clip_vision)


def _with_architecture(model_type: str, strategy):
    def draw_config(draw) -> dict:
        cfg = strategy(draw)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


STRATEGIES["chinese_clip"] = chinese_clip
STRATEGIES["chinese_clip_text_model"] = _with_architecture("chinese_clip_text_model", chinese_clip_text)
STRATEGIES["chinese_clip_vision_model"] = _with_architecture("chinese_clip_vision_model", chinese_clip_vision)
for _mt in ("deberta-v2", "deberta"):
    STRATEGIES[_mt] = deberta(_mt)
STRATEGIES["mpnet"] = mpnet
STRATEGIES["gte"] = gte
STRATEGIES["jina_embeddings_v3"] = jina_embeddings_v3
STRATEGIES["esmc"] = esmc
STRATEGIES["nomic_bert"] = bert_like("nomic_bert")
STRATEGIES["eurobert"] = eurobert
STRATEGIES["siglip"] = siglip
STRATEGIES["siglip2"] = lambda draw: siglip(draw, "siglip2")
STRATEGIES["deit"] = lambda draw: vit(draw, "deit")
for _mt in ("dinov2", "dinov2_with_registers"):
    STRATEGIES[_mt] = dinov2(_mt)
