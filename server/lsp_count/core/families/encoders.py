"""Encoder and vision families: BERT-likes (BERT, RoBERTa and its kin, Megatron-BERT, ELECTRA, RoFormer, RemBERT),
DeBERTa and DeBERTa-v2, MPNet, GTE, NomicBERT, EuroBERT, DistilBERT, ModernBERT, ALBERT, ViT, DeiT, ViTMAE, YOLOS, I-JEPA,
ViT-MSN, DINOv2 (and with registers), DINOv3 ViT, BEiT, Data2Vec-Vision, CLIP and its towers, SigLIP and SigLIP 2 and their towers.

One encoder layout (``layouts/encoder.py``) counts every single-stack encoder;
the rows below say how each family names its modules and which optional parts
it has. Defaults are the transformers (v5) config classes'. See decoders.py for
the table conventions (``fixed`` switches, ``d()`` defaults, ``aliases``).
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.families.common import LABEL_FIELDS, check_pad_token, pad_token
from lsp_count.core.families.decoders import (FLOOR_HEADS, HEAD_DIM, KV_HEADS, ROPE, WRITTEN_HEAD_DIM,
                                              attention_must_be_hidden_wide, d, fixed, merge_fields, rope_by_layer_type)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

# The fields every BERT-shaped text encoder reads (BertConfig's names and defaults).
TEXT: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 30522, doc="tokens in the vocabulary: rows of the word embedding"),
    "hidden_size": Field(("hidden_size",), 768, doc="width of the hidden states"),
    "num_layers": Field(("num_hidden_layers",), 12, doc="encoder layers"),
    "num_heads": Field(("num_attention_heads",), 12, doc="attention heads per layer"),
    # BERT-likes always use hidden / heads and refuse a remainder (BertSelfAttention raises).
    "head_dim": fixed(HEAD_DIM),
    "intermediate_size": Field(("intermediate_size",), 3072, doc="width of the feed-forward layer"),
    "max_positions": Field(("max_position_embeddings",), 512, doc="rows of the learned position embedding"),
    # 0 is legal (an empty table); roberta checkpoints use 1.
    "type_vocab_size": Field(("type_vocab_size",), 2, minimum=0, doc="rows of the token-type (segment) embedding"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="the MLM decoder shares the word embedding matrix"),
    # A decoder BERT with add_cross_attention gets a cross-attention block per layer (encoder-decoder use).
    "is_decoder": Field(("is_decoder",), False, "bool"),
    "add_cross_attention": Field(("add_cross_attention",), False, "bool", doc="a cross-attention block in every layer"),
    **LABEL_FIELDS,
    # Switches: module names (what LoRA targets match) and optional parts.
    "embed": fixed("text"),
    "word_embedding": fixed("word_embeddings"),
    "position_embedding": fixed("position_embeddings"),
    "token_types": fixed(True),
    "embed_norm": fixed("LayerNorm"),
    "qkv_bias": fixed(True),
    "attn_names": fixed(("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")),
    "mlp_names": fixed(("intermediate.dense", "output.dense")),
    "layer_norms": fixed(("attention.output.LayerNorm", "output.LayerNorm")),
    "cross_attention": fixed("crossattention"),
    "pre_norm": fixed(None),
    "final_norm": fixed(None),
    # The bare model's pooler: "dense" (h×h + tanh, BERT's pooler.dense), "linear" (ALBERT's, an nn.Linear
    # itself), "vit" (h → pooler_output_size), None.
    "pooler": fixed("dense"),
    # Sequence classifier: "pooled" (Linear on the pooler), "dense" (RoBERTa's dense + out_proj),
    # "pre_classifier" (DistilBERT's pre_classifier + classifier on the first token).
    "classifier": fixed("pooled"),
    # MLM head: transform (dense + LayerNorm) then decoder; BERT-likes keep a separate bias
    # parameter that the decoder's bias is tied to (so untied, both exist).
    "mlm_names": fixed(("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.decoder")),
    "mlm_bias_param": fixed(True),
}

# A BERT-like whose layers have no cross-attention, whatever is_decoder / add_cross_attention say.
NO_CROSS_ATTENTION: dict[str, Field] = {"is_decoder": fixed(False), "add_cross_attention": fixed(False)}


def text_encoder(model_type: str, architecture: str, prefix: str, heads: tuple[str, ...],
                 *overrides: dict[str, Field], notes: tuple[str, ...] = (), checks: tuple = (),
                 float_keys: tuple[str, ...] = ()) -> Family:
    fields = merge_fields(TEXT, *overrides)
    table = {
        "Model": "base", "ForMaskedLM": "masked_lm", "ForCausalLM": "causal_lm", "LMHeadModel": "causal_lm",
        "ForPreTraining": "pretraining", "ForSequenceClassification": "sequence_classification",
        "ForTokenClassification": "token_classification", "ForQuestionAnswering": "question_answering",
        "ForMultipleChoice": "multiple_choice", "ForNextSentencePrediction": "next_sentence",
    }
    causal = any(table[suffix] == "causal_lm" for suffix in heads)
    return Family(model_type, "encoder", architecture, fields,
                  {prefix + suffix: table[suffix] for suffix in heads}, notes=notes, checks=checks, float_keys=float_keys,
                  decoder_cache="is_decoder" if causal else "")


ROBERTA_HEADS = {
    "classifier": fixed("dense"),
    "mlm_names": fixed(("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder")),
}

# RoBERTa's embeddings number the positions from the padding index + 1 (create_position_ids_from_input_ids): the
# rows before it hold no position (layouts/encoder.text_positions).
ROBERTA_POSITIONS = {"first_position": fixed("after_pad")}

ROBERTA_CLASSES = ("Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                   "ForQuestionAnswering", "ForMultipleChoice")


def _same_width(v):
    return v["hidden_size"]


def _embedding_width(v):
    return v["embedding_size"]


# ELECTRA and RoFormer: factorised embeddings (embedding_size wide, projected up to hidden_size where the
# two differ: embeddings_project), and attention built with any head count (their SelfAttention skips the
# divisibility check where the config has an embedding_size, which both classes always have): heads of
# int(hidden / heads), the output projection hidden × hidden.
FACTORISED = {
    "embed_projection": fixed("embeddings_project"),
    "mlm_width": fixed(Derived(_embedding_width, "embedding_size")),
    **FLOOR_HEADS,
    "attn_out_from_hidden": fixed(True),
    "pooler": fixed(None),
    "classifier": fixed("dense"),
    "multiple_choice": fixed("summary"),
}


_SUMMARY_TYPE_DOC = 'how the multiple-choice class pools ("attn" is not implemented)'
_SUMMARY_PROJ_DOC = "a Linear in the multiple-choice class's sequence summary"


def _summary_fields(declared: bool) -> dict[str, Field]:
    """The SequenceSummary keys ELECTRA's and RoFormer's multiple-choice class reads where the config has
    them (``hasattr``). ElectraConfig declares summary_type ("first") and summary_use_proj (true), strict
    fields that refuse a null; RoFormerConfig declares neither, and no class declares summary_proj_to_labels:
    a file's value is kept as given, and read for its truth (a null is false)."""
    if declared:
        kinds = {"summary_type": Field(("summary_type",), "first", "str", null="reject", doc=_SUMMARY_TYPE_DOC),
                 "summary_use_proj": Field(("summary_use_proj",), True, "bool", doc=_SUMMARY_PROJ_DOC)}
    else:
        kinds = {"summary_type": Field(("summary_type",), None, "any", doc=_SUMMARY_TYPE_DOC),
                 "summary_use_proj": Field(("summary_use_proj",), False, "any", doc=_SUMMARY_PROJ_DOC)}
    return {**kinds, "summary_proj_to_labels": Field(("summary_proj_to_labels",), False, "any",
                                                     doc="the summary's Linear outputs num_labels values (else hidden_size)")}


def check_summary_type(spec: ModelSpec) -> list[Problem]:
    """SequenceSummary raises NotImplementedError for summary_type "attn" (the multiple-choice class only)."""
    if spec.head != "multiple_choice" or spec.values.get("summary_type") != "attn":
        return []
    return [Problem("error", "LC103", f'summary_type "attn" is not implemented: {spec.architecture} refuses it',
                    spec.key_span("summary_type") or spec.span)]


def check_esmc_heads(spec: ModelSpec) -> list[Problem]:
    """EsmcConfig refuses grouped-query attention: num_key_value_heads must equal num_attention_heads."""
    heads, kv = spec.values.get("num_heads"), spec.values.get("kv_heads")
    if type(heads) is not int or type(kv) is not int or heads == kv:
        return []
    return [Problem("error", "LC103", f"num_key_value_heads {kv} is not num_attention_heads {heads}: ESM-C has no "
                                      "grouped-query attention and its config class refuses it",
                    spec.key_span("kv_heads") or spec.span)]


_FLOORED_ATTENTION = attention_must_be_hidden_wide("its attention output projection takes hidden_size values")


def check_pad_in_positions(spec: ModelSpec) -> list[Problem]:
    """RoBERTa-style embeddings give the position table padding_idx=pad_token_id too: nn.Embedding asserts it
    lies within max_position_embeddings rows."""
    v = spec.values
    pad, rows = v.get("pad_token_id"), v.get("max_positions")
    if not (isinstance(pad, int) and isinstance(rows, int)) or -rows <= pad < rows:
        return []
    written = "pad_token_id" if "pad_token_id" in spec.origins else "pad_token_id (class default)"
    return [Problem("error", "LC103", f"{written} {pad} is outside the position table (max_position_embeddings "
                                      f"{rows}): its padding index is the pad token, which the embedding refuses",
                    spec.key_span("pad_token_id") or spec.key_span("max_positions") or spec.span)]


# Every word table here is nn.Embedding(vocab, width, padding_idx=pad_token_id); the RoBERTa-shaped ones pad
# their position table with it as well.
PAD_CHECKS = (check_pad_token,)
ROBERTA_PAD_CHECKS = (check_pad_token, check_pad_in_positions)


# Vision towers share the transformer layer; their embeddings differ (see layouts/encoder.py).
VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 768, doc="width of the hidden states"),
    "num_layers": Field(("num_hidden_layers",), 12, doc="encoder layers"),
    "num_heads": Field(("num_attention_heads",), 12, doc="attention heads per layer"),
    "head_dim": fixed(HEAD_DIM),
    "intermediate_size": Field(("intermediate_size",), 3072, doc="width of the feed-forward layer"),
    "num_channels": Field(("num_channels",), 3, doc="input image channels"),
    "image_size": Field(("image_size",), 224, doc="input image side in pixels (rows of the position embedding follow)"),
    "patch_size": Field(("patch_size",), 16, doc="side of each square patch"),
    **LABEL_FIELDS,
    "qkv_bias": fixed(True),
    "attn_names": fixed(("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj")),
    "mlp_names": fixed(("mlp.fc1", "mlp.fc2")),
    "layer_norms": fixed(("layer_norm1", "layer_norm2")),
    **NO_CROSS_ATTENTION,
    "pre_norm": fixed(None),
    "pooler": fixed(None),
}


# ModernBertConfig (transformers 5): the layer types come from layer_types, else from
# global_attn_every_n_layers (every n-th layer global, the others sliding), which it reads only then.
MODERNBERT_LAYER_TYPES = ("full_attention", "sliding_attention")


def check_modernbert_layer_types(spec: ModelSpec) -> list[Problem]:
    """ModernBertConfig refuses layer_types whose length is not num_hidden_layers (validate_layer_type), and its
    rotary embedding has parameters only for full and sliding attention; with no layer_types it derives them
    as ``i % global_attn_every_n_layers``, which fails for 0 or anything but a number."""
    v = spec.values
    types, layers = v.get("layer_types"), v.get("num_layers")
    where = spec.key_span("layer_types") or spec.span
    if isinstance(types, tuple):
        unknown = sorted({t for t in types if t not in MODERNBERT_LAYER_TYPES})
        if unknown:
            return [Problem("error", "LC103", f'"layer_types": {", ".join(map(json.dumps, unknown))} is not one of '
                                              f'{", ".join(map(json.dumps, MODERNBERT_LAYER_TYPES))} (ModernBERT has '
                                              "rotary parameters for those alone)", where)]
        if isinstance(layers, int) and len(types) != layers:
            return [Problem("error", "LC103", f"layer_types has {len(types)} entries for {layers} layers "
                                              "(num_hidden_layers): ModernBertConfig refuses it", where)]
        return []
    every = v.get("global_attn_every_n_layers")
    if isinstance(every, (int, float)) and every:  # bool true is 1: every layer global
        return []
    written = json.dumps(every, default=str)
    return [Problem("error", "LC102", f'"global_attn_every_n_layers": {written} with no "layer_types": '
                                      "ModernBertConfig derives the layer types as layer index modulo it, which "
                                      "fails (give a positive whole number, or layer_types)",
                    spec.key_span("global_attn_every_n_layers") or spec.span)]


def _two_span_labels(spec: ModelSpec) -> list[Problem]:
    """DistilBertForQuestionAnswering raises unless num_labels is 2 (a span's start and end)."""
    labels = spec.values.get("num_labels")
    if spec.head != "question_answering" or labels in (None, 2):
        return []
    return [Problem("error", "LC103", f"{spec.architecture} needs 2 labels (a span's start and end), not {labels}: "
                                      f"transformers refuses it", spec.key_span("num_labels") or spec.span)]


# DeBERTa and DeBERTa-v2 (DebertaConfig, DebertaV2Config: the same keys, other defaults). Their modules read
# several keys the config classes do not declare (getattr with a default): embedding_size, share_att_key,
# position_buckets, norm_rel_ebd, conv_kernel_size, conv_groups, attention_head_size, talking_head and
# pooler_hidden_size. A file's value is kept as given; the checks below refuse what the modules cannot build.


def _pos_att_types(v) -> tuple:
    """pos_att_type as the config class keeps it: a string is split on "|" (lower-cased), a list kept as is."""
    kinds = v["pos_att_type"]
    if isinstance(kinds, str):
        return tuple(x.strip() for x in kinds.lower().split("|"))
    return tuple(kinds) if isinstance(kinds, (list, tuple)) else ()


def _max_relative(v) -> int:
    rows = v["max_relative_positions"]
    return v["max_positions"] if rows < 1 else rows


def _buckets(v) -> object:
    return v.get("position_buckets", -1)


def _relative_rows(v) -> int | None:
    """Rows of encoder.rel_embeddings: 2 × position_buckets where positive (DeBERTa-v2), else 2 × max_relative_positions
    (max_position_embeddings where that is below 1); none without relative_attention."""
    if not v["relative_attention"]:
        return None
    buckets = _buckets(v)
    if isinstance(buckets, (int, float)) and buckets > 0:
        return 2 * int(buckets)
    return 2 * _max_relative(v)


def _v2_attention_extra(v) -> tuple:
    """DeBERTa-v2: a position key projection for "c2p" and a position query projection for "p2c" (both with
    biases), unless share_att_key (the content projections serve)."""
    if not v["relative_attention"] or v["share_att_key"]:
        return ()
    width = v["num_heads"] * v["head_dim"]
    kinds = _pos_att_types(v)
    return tuple((path, v["hidden_size"], width, True) for kind, path in (
        ("c2p", "attention.self.pos_key_proj"), ("p2c", "attention.self.pos_query_proj")) if kind in kinds)


def _v1_attention_extra(v) -> tuple:
    """DeBERTa: the talking-head mixers (heads × heads, no bias) where talking_head; under relative attention, pos_proj
    (no bias) for "c2p" and pos_q_proj (a bias) for "p2c"."""
    heads, h = v["num_heads"], v["hidden_size"]
    width = heads * v["head_dim"]
    extra: tuple = ()
    if v["talking_head"]:
        extra += (("attention.self.head_logits_proj", heads, heads, False),
                  ("attention.self.head_weights_proj", heads, heads, False))
    if v["relative_attention"]:
        kinds = _pos_att_types(v)
        extra += tuple((path, h, width, bias) for kind, path, bias in (
            ("c2p", "attention.self.pos_proj", False), ("p2c", "attention.self.pos_q_proj", True)) if kind in kinds)
    return extra


def _conv(v) -> tuple[int, int] | None:
    kernel = v["conv_kernel_size"]
    if not isinstance(kernel, (int, float)) or not kernel > 0 or not isinstance(kernel, int) \
            or not isinstance(v["conv_groups"], int) or v["conv_groups"] < 1:
        return None  # (what the modules refuse is the family's check)
    return int(kernel), int(v["conv_groups"])


def _relative_norm(v) -> bool:
    kinds = v["norm_rel_ebd"]
    return isinstance(kinds, str) and "layer_norm" in (x.strip() for x in kinds.lower().split("|"))


def _legacy(when_legacy, otherwise, text: str) -> Field:
    return fixed(Derived(lambda v: when_legacy(v) if v["legacy"] else otherwise(v), text))


def check_deberta_keys(spec: ModelSpec) -> list[Problem]:
    """What DeBERTa's modules refuse among the keys its config classes do not declare: norm_rel_ebd not a string
    (it is lower-cased), conv_kernel_size not a number (compared with 0) or a fraction where positive (the Conv1d's
    width), conv_groups not a positive divisor of hidden_size (Conv1d), position_buckets not a number under
    relative attention or a fraction where positive (a table's rows), pooler_hidden_size not a whole number in the
    classes with a ContextPooler."""
    v = spec.values

    def bad(name: str, message: str) -> list[Problem]:
        key = spec.key_label(name)
        written = json.dumps(v.get(name), default=str)
        return [Problem("error", "LC103", f'"{key}": {written} {message}: {spec.architecture} cannot be built',
                        spec.key_span(name) or spec.span)]

    def number(x: object) -> bool:
        return isinstance(x, (int, float))

    kinds = v.get("pos_att_type")
    if not (kinds is None or isinstance(kinds, str)
            or (isinstance(kinds, (list, tuple)) and all(isinstance(k, str) for k in kinds))):
        # (the config class's field is str | list[str] | None: it refuses anything else)
        return bad("pos_att_type", 'is not a string or a list of strings ("c2p", "p2c")')
    if "norm_rel_ebd" in v and not isinstance(v["norm_rel_ebd"], str):
        return bad("norm_rel_ebd", 'is not a string ("none", "layer_norm")')
    if "conv_kernel_size" in v:
        kernel = v["conv_kernel_size"]
        if not number(kernel) or (kernel > 0 and not isinstance(kernel, int)):
            return bad("conv_kernel_size", "is not a whole number (the Conv1d's kernel)")
        groups, hidden = v["conv_groups"], v["hidden_size"]
        if kernel > 0 and not (isinstance(groups, int) and groups >= 1 and isinstance(hidden, int)
                               and hidden % groups == 0):
            return bad("conv_groups", f"is not a positive divisor of hidden_size ({hidden}): Conv1d refuses it")
    if v.get("relative_attention") and "position_buckets" in v:
        buckets = _buckets(v)
        if not number(buckets) or (buckets > 0 and not isinstance(buckets, int)):
            return bad("position_buckets", "is not a whole number (rows of the relative-position table)")
    if spec.head in ("sequence_classification", "multiple_choice"):
        width = v.get("pooler_hidden_size")
        if type(width) is not int or width < 0:
            return bad("pooler_hidden_size", "is not a whole number (the ContextPooler's width)")
    return []


DEBERTA: dict[str, Field] = {
    "pad_token_id": pad_token(0),
    "type_vocab_size": Field(("type_vocab_size",), 0, minimum=0, doc="rows of the token-type embedding (0: none)"),
    "token_types": fixed(Derived(lambda v: v["type_vocab_size"] > 0, "type_vocab_size > 0")),
    "embedding_size": Field(("embedding_size",), Derived(_same_width, "hidden_size"),
                            doc="width of the embeddings (projected up to hidden_size, no bias, where it differs)"),
    "position_biased_input": Field(("position_biased_input",), True, "bool",
                                   doc="a learned absolute position table added to the embeddings"),
    "position_embedding": fixed(Derived(lambda v: "position_embeddings" if v["position_biased_input"] else None,
                                        "position_biased_input")),
    "embed_projection": fixed("embeddings.embed_proj"),
    "embed_projection_bias": fixed(False),
    "embed_norm_hidden": fixed(True),
    **NO_CROSS_ATTENTION,
    "relative_attention": Field(("relative_attention",), False, "bool",
                                doc="disentangled relative-position attention (a relative table, position projections)"),
    "max_relative_positions": Field(("max_relative_positions",), -1, minimum=-(10**9),
                                    doc="relative distances in the table (below 1: max_position_embeddings)"),
    "pos_att_type": Field(("pos_att_type",), None, "any",
                          doc='relative attention kinds, "c2p" and / or "p2c" (a list, or a string split on "|")'),
    "relative_rows": fixed(Derived(_relative_rows, "2 × max_relative_positions (or position_buckets)")),
    "attn_out_from_hidden": fixed(True),
    "pooler": fixed("context"),
    "pooler_in_base": fixed(False),
    "pooler_hidden_size": Field(("pooler_hidden_size",), Derived(_same_width, "hidden_size"), "any", null="none",
                                doc="width of the classifier classes' ContextPooler"),
    "classifier": fixed("pooled"),
    "legacy": Field(("legacy",), True, "bool", doc="the legacy MLM head (transform, then a decoder tied to the "
                                                   "word embedding); else dense, LayerNorm and the word embedding"),
    "mlm_names": _legacy(lambda v: ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                                    "cls.predictions.decoder"),
                         lambda v: ("lm_predictions.lm_head.dense", "lm_predictions.lm_head.LayerNorm",
                                    "lm_predictions.lm_head.decoder"), "legacy"),
    "mlm_width": _legacy(_embedding_width, _same_width, "embedding_size where legacy, else hidden_size"),
    "mlm_decoder": _legacy(lambda v: True, lambda v: False, "legacy"),
    "mlm_dense_is_output": _legacy(lambda v: False, lambda v: True, "not legacy"),
    "mlm_bias_param": fixed(True),
}

DEBERTA_CHECKS = (check_deberta_keys, *PAD_CHECKS)


def check_padding_index_one(spec: ModelSpec) -> list[Problem]:
    """MPNet's word and position tables take padding_idx=1 whatever pad_token_id says: nn.Embedding asserts both
    have a second row."""
    v = spec.values
    for name in ("vocab_size", "max_positions"):
        rows = v.get(name)
        if isinstance(rows, int) and rows < 2:
            return [Problem("error", "LC103", f"{spec.key_label(name)} {rows}: MPNet's tables take padding index 1, "
                                              "which the embedding refuses in a table of fewer than 2 rows",
                            spec.key_span(name) or spec.span)]
    return []


def _mha_pooling_head(family: Family) -> Family:
    """SigLIP's attention-pooling head: its nn.MultiheadAttention's out_proj is a NonDynamicallyQuantizableLinear,
    an nn.Linear subclass that bitsandbytes leaves in the compute dtype (the layers' out_proj are nn.Linear)."""
    return replace(family, unreplaced_linears=("head.attention.out_proj",))


def vision_tower(model_type: str, architecture: str, heads: dict[str, str], *overrides: dict[str, Field],
                 notes: tuple[str, ...] = (), checks: tuple = ()) -> Family:
    fields = merge_fields(VISION, *overrides)
    return Family(model_type, "encoder", architecture, fields, heads, notes=notes, checks=checks)


VIT: dict[str, Field] = {
    # ViTAttention reads head_dim when the config carries one.
    "head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
    **FLOOR_HEADS,
    "qkv_bias": Field(("qkv_bias",), True, "bool", doc="biases on the query/key/value projections"),
    "image_size": Field(("image_size",), 224, "any", doc=VISION["image_size"].doc),
    "patch_size": Field(("patch_size",), 16, "any", doc=VISION["patch_size"].doc),
    "encoder_stride": Field(("encoder_stride",), 16, doc="upsampling factor of the masked-image decoder"),
    "pooler_output_size": Field(("pooler_output_size",), None, "int?"),
    "embed": fixed("vit"),
    "attn_names": fixed(("attention.q_proj", "attention.k_proj", "attention.v_proj", "attention.o_proj")),
    "layer_norms": fixed(("layernorm_before", "layernorm_after")),
    "final_norm": fixed("layernorm"),
    "pooler": fixed("vit"),
}


# ViTMAEConfig, IJepaConfig and ViTMSNConfig: ViT's keys, less the masked-image decoder's encoder_stride (no such class); IJepaConfig
# keeps pooler_output_size, but no I-JEPA class builds a pooler.
VIT_NO_POOLER: dict[str, Field] = {**{k: f for k, f in VIT.items() if k not in ("encoder_stride", "pooler_output_size")},
                                   "pooler": fixed(None)}

# ViTMAE's pre-training decoder (ViTMAEDecoder): its own width, heads, depth and MLP width.
MAE_DECODER: dict[str, Field] = {
    "decoder_hidden_size": Field(("decoder_hidden_size",), 512, doc="width of the pre-training decoder"),
    "decoder_num_heads": Field(("decoder_num_attention_heads",), 16, doc="attention heads per decoder layer"),
    "decoder_num_layers": Field(("decoder_num_hidden_layers",), 8, minimum=0, doc="decoder layers"),
    "decoder_intermediate_size": Field(("decoder_intermediate_size",), 2048,
                                       doc="width of the decoder layers' feed-forward"),
    # Sizes no parameter: the share of the patches the encoder drops (the tokens it runs over, image_tokens).
    "mask_ratio": Field(("mask_ratio",), 0.75, "float", doc="share of the patches masked out before the encoder"),
}


def check_mae_decoder(spec: ModelSpec) -> list[Problem]:
    """ViTMAEForPreTraining's decoder fills its position table with 2-D sin-cos values when it is built: that needs
    decoder_hidden_size divisible by 4 and a square patch grid (side int(√patches)), and it reads patch_size² (a
    number, not [height, width]). transformers refuses the others."""
    if spec.head != "mae_pretraining":
        return []
    v = spec.values
    width, patch = v.get("decoder_hidden_size"), v.get("patch_size")
    if isinstance(width, int) and width % 4:
        return [Problem("error", "LC103", f"decoder_hidden_size {width} is not divisible by 4: {spec.architecture}'s "
                                          "2-D sin-cos decoder positions need it", spec.key_span("decoder_hidden_size") or spec.span)]
    heads = v.get("decoder_num_heads")
    if isinstance(width, int) and isinstance(heads, int) and "head_dim" not in spec.origins and width < heads:
        # The decoder's heads are decoder_hidden_size // heads wide: 0 fails when the attention scales by its root.
        return [Problem("error", "LC103", f"decoder_hidden_size {width} cannot be divided among {heads} decoder heads "
                                          "(decoder_num_attention_heads): each would be 0 wide, which "
                                          f"{spec.architecture}'s attention refuses",
                        spec.key_span("decoder_num_heads") or spec.key_span("decoder_hidden_size") or spec.span)]
    if not isinstance(patch, int) or isinstance(patch, bool):
        return [Problem("error", "LC103", f'"patch_size": {json.dumps(patch, default=str)}: {spec.architecture}\'s '
                                          "decoder predicts patch_size² pixels and needs one number",
                        spec.key_span("patch_size") or spec.span)]
    image = v.get("image_size")
    sides = (image, image) if isinstance(image, int) and not isinstance(image, bool) else image
    if (isinstance(sides, (list, tuple)) and len(sides) == 2 and all(isinstance(x, int) for x in sides) and patch >= 1
            and patch <= min(sides)):
        patches = (sides[0] // patch) * (sides[1] // patch)
        grid = int(patches ** 0.5)
        if grid * grid != patches:
            return [Problem("error", "LC103", f"{patches} patches are not a square grid: {spec.architecture}'s decoder "
                                              f"builds its sin-cos positions for {grid}×{grid}, which transformers refuses",
                            spec.key_span("image_size") or spec.span)]
    return []


def check_image_size_list(spec: ModelSpec) -> list[Problem]:
    """YolosConfig types image_size as a list (or tuple) of whole numbers, a strict field: one number is refused."""
    image = spec.values.get("image_size")
    if isinstance(image, (list, tuple)):
        return []
    return [Problem("error", "LC103", f'"{spec.key_name("image_size") or "image_size"}": '
                                      f"{json.dumps(image, default=str)}: {spec.model_type}'s config class needs "
                                      "[height, width]", spec.key_span("image_size") or spec.span)]


def check_heads_not_wider_than_hidden(spec: ModelSpec) -> list[Problem]:
    """DINOv3's attention scales by (hidden_size // heads)^-0.5 when it is built: more heads than hidden_size make
    that 0 to a negative power, which fails."""
    h, heads = spec.values.get("hidden_size"), spec.values.get("num_heads")
    if not (isinstance(h, int) and isinstance(heads, int)) or heads <= h:
        return []
    return [Problem("error", "LC103", f"num_attention_heads ({heads}) cannot divide hidden_size ({h}) into heads of at "
                                      f"least one value: {spec.architecture}'s attention refuses heads 0 wide",
                    spec.key_span("num_heads") or spec.span)]


def _relative_bias_tables(in_layer: str, shared: str) -> dict[str, Field]:
    """BEiT's relative position bias tables, by their paths: one in every layer where use_relative_position_bias, one
    the model shares where use_shared_relative_position_bias (layouts/encoder.relative_bias_table)."""
    return {"layer_relative_bias": fixed(Derived(lambda v: in_layer if v["use_relative_position_bias"] else None,
                                                 "use_relative_position_bias")),
            "shared_relative_bias": fixed(Derived(lambda v: shared if v["use_shared_relative_position_bias"] else None,
                                                  "use_shared_relative_position_bias"))}


def _dinov2_mlp_width(v) -> int:
    """int(hidden_size × mlp_ratio); the SwiGLU keeps two thirds of it, rounded up to a multiple of 8."""
    width = int(v["hidden_size"] * v["mlp_ratio"])
    return (int(width * 2 / 3) + 7) // 8 * 8 if v["use_swiglu_ffn"] else width


# DINOv2 (Dinov2Config, Dinov2WithRegistersConfig): ViT-shaped, pre-norm (norm1, norm2), a layer scale after the
# attention and the MLP, the MLP int(hidden × mlp_ratio) wide or a SwiGLU; Dinov2Backbone is the bare model.
DINOV2: dict[str, Field] = {
    "head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head (read where the config has one)"),
    **FLOOR_HEADS,
    "qkv_bias": Field(("qkv_bias",), True, "bool", doc="biases on the query/key/value projections"),
    "image_size": Field(("image_size",), 224, "any", doc=VISION["image_size"].doc),
    "patch_size": Field(("patch_size",), 14, "any", doc=VISION["patch_size"].doc),
    "mlp_ratio": Field(("mlp_ratio",), 4, doc="the MLP's width as a multiple of hidden_size"),
    "use_swiglu_ffn": Field(("use_swiglu_ffn",), False, "bool",
                            doc="a SwiGLU MLP (gate, up, down; two thirds as wide, rounded up to 8)"),
    "intermediate_size": fixed(Derived(_dinov2_mlp_width, "int(hidden_size × mlp_ratio)")),
    "embed": fixed("dinov2"),
    "attn_names": fixed(("attention.q_proj", "attention.k_proj", "attention.v_proj", "attention.o_proj")),
    "mlp_names": fixed(Derived(lambda v: ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj") if v["use_swiglu_ffn"]
                               else ("mlp.fc1", "mlp.fc2"), "use_swiglu_ffn")),
    "layer_norms": fixed(("norm1", "norm2")),
    "layer_scales": fixed(("layer_scale1.lambda1", "layer_scale2.lambda1")),
    "final_norm": fixed("layernorm"),
    "classifier_concat": fixed(True),
}


# BEiT and Data2Vec-Vision (BeitConfig, Data2VecVisionConfig): ViT-shaped post-norm layers with a query and value bias
# but no key bias, layer scales (lambda_1, lambda_2) where layer_scale_init_value > 0, a mask token and a position
# table each by its key, relative position bias tables per layer or one shared, and mean pooling (a LayerNorm in the
# pooler in place of the final one).
BEIT: dict[str, Field] = {
    "image_size": Field(("image_size",), 224, "any", doc=VISION["image_size"].doc),
    "patch_size": Field(("patch_size",), 16, "any", doc=VISION["patch_size"].doc),
    "use_mask_token": Field(("use_mask_token",), False, "bool", doc="a mask token (1 × 1 × hidden) in the embeddings"),
    "use_absolute_position_embeddings": Field(("use_absolute_position_embeddings",), False, "bool",
                                              doc="a learned position table (patches + 1 rows)"),
    "use_relative_position_bias": Field(("use_relative_position_bias",), False, "bool",
                                        doc="a relative position bias table ((2·Wh−1)·(2·Ww−1)+3 × heads) in every layer"),
    "use_shared_relative_position_bias": Field(("use_shared_relative_position_bias",), False, "bool",
                                               doc="one relative position bias table that every layer reads"),
    # The config class takes a float alone (its strict field refuses 1 and 0): check_layer_scale_float.
    "layer_scale_init_value": Field(("layer_scale_init_value",), 0.1, "any", null="reject",
                                    doc="layer scales (lambda_1, lambda_2: hidden each) in every layer where > 0"),
    "use_mean_pooling": Field(("use_mean_pooling",), True, "bool",
                              doc="pool by the patches' mean through the pooler's LayerNorm (no final LayerNorm)"),
    "mask_token": fixed(Derived(lambda v: v["use_mask_token"], "use_mask_token")),
    "absolute_positions": fixed(Derived(lambda v: v["use_absolute_position_embeddings"],
                                        "use_absolute_position_embeddings")),
    "layer_scales": fixed(Derived(lambda v: ("lambda_1", "lambda_2") if _positive_float(v["layer_scale_init_value"])
                                  else (), "layer_scale_init_value > 0")),
    "qkv_biases": fixed((True, False, True)),
    "embed": fixed("beit"),
    "layer_norms": fixed(("layernorm_before", "layernorm_after")),
    "final_norm": fixed(Derived(lambda v: None if v["use_mean_pooling"] else "layernorm", "not use_mean_pooling")),
    "pooler": fixed(Derived(lambda v: "mean_norm" if v["use_mean_pooling"] else None, "use_mean_pooling")),
    "image_classifier_pooled": fixed(True),
}


def _positive_float(value: object) -> bool:
    return isinstance(value, float) and value > 0


def check_layer_scale_float(spec: ModelSpec) -> list[Problem]:
    """BeitConfig and Data2VecVisionConfig declare layer_scale_init_value a float, a strict field: a whole number (0
    or 1 written as such), a boolean or anything else is refused."""
    value = spec.values.get("layer_scale_init_value")
    if isinstance(value, float):
        return []
    return [Problem("error", "LC103", f'"layer_scale_init_value": {json.dumps(value, default=str)}: '
                                      f"{spec.model_type}'s config class takes a float (write 0.0 or 1.0)",
                    spec.key_span("layer_scale_init_value") or spec.span)]


def check_relative_bias_patch(spec: ModelSpec) -> list[Problem]:
    """BeitRelativePositionBias divides each image side by patch_size itself: a [height, width] patch_size fails
    there (Data2Vec-Vision's divides side by side and takes one)."""
    v = spec.values
    if not (v.get("use_relative_position_bias") or v.get("use_shared_relative_position_bias")):
        return []
    patch = v.get("patch_size")
    if isinstance(patch, int) and not isinstance(patch, bool):
        return []
    return [Problem("error", "LC103", f'"patch_size": {json.dumps(patch, default=str)} with relative position bias: '
                                      f"{spec.architecture} divides the image size by patch_size and needs one number",
                    spec.key_span("patch_size") or spec.span)]


# CLIP's and SigLIP's text towers: learned token and position embeddings, pre-norm layers named as the
# vision tower's (q/k/v_proj with biases, fc1 / fc2, layer_norm1 / 2), a final_layer_norm, no pooler.
TEXT_TOWER: dict[str, Field] = {
    "embed": fixed("text"),
    "word_embedding": fixed("token_embedding"),
    "position_embedding": fixed("position_embedding"),
    "token_types": fixed(False),
    "embed_norm": fixed(None),
    "qkv_bias": fixed(True),
    "attn_names": VISION["attn_names"],
    "mlp_names": VISION["mlp_names"],
    "layer_norms": VISION["layer_norms"],
    **NO_CROSS_ATTENTION,
    "pre_norm": fixed(None),
    "final_norm": fixed("final_layer_norm"),
    "pooler": fixed(None),
}

# The longest sequence of a family whose position table is not position_embedding (one of its embed_tables,
# RoFormer's frozen sinusoidal one): max_position_embeddings (layouts/encoder.text_positions).
POSITIONS_UP_TO_MAX = fixed(Derived(lambda v: v["max_positions"], "max_position_embeddings"))


# EuroBERT's and ESM-C's Llama-shaped stack run bidirectionally: embed_tokens alone (no position or token-type table,
# rotary positions), layers of self_attn.{q,k,v,o}_proj and a gated MLP between input_layernorm and
# post_attention_layernorm, a final norm, no pooler.
LLAMA_SHAPED_BODY: dict[str, Field] = {
    "type_vocab_size": fixed(0),
    "token_types": fixed(False),
    "position_embedding": fixed(None),
    "word_embedding": fixed("embed_tokens"),
    "embed_norm": fixed(None),
    **NO_CROSS_ATTENTION,
    "attn_names": fixed(("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj")),
    "mlp_names": fixed(("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")),
    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm")),
    "final_norm": fixed("norm"),
    "pooler": fixed(None),
}

FAMILIES: tuple[Family, ...] = (
    text_encoder("bert", "BertForMaskedLM", "Bert",
                 ("Model", "ForMaskedLM", "LMHeadModel", "ForPreTraining", "ForSequenceClassification",
                  "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"),
                 {"pad_token_id": pad_token(0)}, checks=PAD_CHECKS),
    text_encoder("roberta", "RobertaForMaskedLM", "Roberta",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"),
                 d(vocab_size=50265), ROBERTA_HEADS, ROBERTA_POSITIONS, {"pad_token_id": pad_token(1)},
                 notes=("RoBERTa's position table has max_position_embeddings rows; checkpoints set 514 "
                        "(512 positions + the padding offset)",), checks=ROBERTA_PAD_CHECKS),
    text_encoder("xlm-roberta", "XLMRobertaForMaskedLM", "XLMRoberta",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"),
                 ROBERTA_HEADS, ROBERTA_POSITIONS, {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
    text_encoder("electra", "ElectraForPreTraining", "Electra",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForPreTraining", "ForSequenceClassification",
                  "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"),
                 d(hidden_size=256, num_heads=4, intermediate_size=1024),
                 FACTORISED, _summary_fields(declared=True),
                 {
                     "pad_token_id": pad_token(0),
                     "embedding_size": Field(("embedding_size",), 128,
                                             doc="width of the factorised embedding (projected up to hidden_size)"),
                     # ElectraForPreTraining is the discriminator: per-token dense + dense_prediction.
                     "pretraining": fixed("discriminator"),
                     # The generator's MLM head: hidden -> embedding_size, LayerNorm, then the vocabulary.
                     "mlm_names": fixed(("generator_predictions.dense", "generator_predictions.LayerNorm",
                                         "generator_lm_head")),
                     "mlm_bias_param": fixed(False),
                 },
                 notes=("ELECTRA's embeddings are embedding_size wide, projected to hidden_size where the two "
                        "differ; ElectraForPreTraining is the discriminator, ElectraForMaskedLM the generator",),
                 checks=(_FLOORED_ATTENTION, check_summary_type, *PAD_CHECKS)),
    text_encoder("camembert", "CamembertForMaskedLM", "Camembert", ROBERTA_CLASSES, ROBERTA_HEADS,
                 ROBERTA_POSITIONS, {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
    text_encoder("data2vec-text", "Data2VecTextForMaskedLM", "Data2VecText", ROBERTA_CLASSES, ROBERTA_HEADS,
                 ROBERTA_POSITIONS, {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
    text_encoder("xlm-roberta-xl", "XLMRobertaXLForMaskedLM", "XLMRobertaXL", ROBERTA_CLASSES,
                 d(vocab_size=250880, hidden_size=2560, num_layers=36, num_heads=32, intermediate_size=10240,
                   max_positions=514, type_vocab_size=1),
                 ROBERTA_HEADS, ROBERTA_POSITIONS,
                 {
                     "pad_token_id": pad_token(1),
                     # Pre-norm: a LayerNorm before the attention (inside it) and one before the MLP, a final
                     # one after the stack; none on the embeddings.
                     "embed_norm": fixed(None),
                     "layer_norms": fixed(("attention.self_attn_layer_norm", "LayerNorm")),
                     "cross_norm": fixed("crossattention.self_attn_layer_norm"),
                     "final_norm": fixed("encoder.LayerNorm"),
                 }, checks=ROBERTA_PAD_CHECKS),
    text_encoder("roberta-prelayernorm", "RobertaPreLayerNormForMaskedLM", "RobertaPreLayerNorm", ROBERTA_CLASSES,
                 d(vocab_size=50265), ROBERTA_HEADS, ROBERTA_POSITIONS,
                 {
                     "pad_token_id": pad_token(1),
                     # Pre-norm: the attention's LayerNorm and the MLP's (in intermediate) before them, one after
                     # the stack (the model's own LayerNorm); the embeddings keep theirs.
                     "layer_norms": fixed(("attention.LayerNorm", "intermediate.LayerNorm")),
                     "cross_norm": fixed("crossattention.LayerNorm"),
                     "final_norm": fixed("LayerNorm"),
                 }, checks=ROBERTA_PAD_CHECKS),
    text_encoder("megatron-bert", "MegatronBertForMaskedLM", "MegatronBert",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForPreTraining", "ForSequenceClassification",
                  "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"),
                 d(vocab_size=29056, hidden_size=1024, num_layers=24, num_heads=16, intermediate_size=4096),
                 {
                     "pad_token_id": pad_token(0),
                     # Pre-norm: attention.ln and the layer's ln before the MLP, encoder.ln after the stack;
                     # no LayerNorm on the embeddings.
                     "embed_norm": fixed(None),
                     "layer_norms": fixed(("attention.ln", "ln")),
                     "cross_norm": fixed("crossattention.ln"),
                     "final_norm": fixed("encoder.ln"),
                 }, checks=PAD_CHECKS),
    text_encoder("roformer", "RoFormerForMaskedLM", "RoFormer", ROBERTA_CLASSES,
                 d(vocab_size=50000, max_positions=1536),
                 FACTORISED, _summary_fields(declared=False),
                 {
                     "pad_token_id": pad_token(0),
                     # RoFormerConfig: embedding_size null or absent is hidden_size.
                     "embedding_size": Field(("embedding_size",), Derived(_same_width, "hidden_size"),
                                             null="default",
                                             doc="width of the embeddings (projected up to hidden_size where it differs)"),
                     # Rotary positions: a frozen sinusoidal table (a parameter, not trained), no learned one.
                     "max_positions": Field(("max_position_embeddings",), 1536,
                                            doc="rows of the frozen sinusoidal (rotary) position table"),
                     "position_embedding": fixed(None),
                     "sinusoidal_positions": fixed("encoder.embed_positions"),
                     # The table is not regrown: a longer sequence indexes past it.
                     "position_limit": POSITIONS_UP_TO_MAX,
                     # RoFormerForQuestionAnswering sets config.num_labels = 2 (start and end) before building.
                     "qa_labels": fixed(2),
                 },
                 notes=("RoFormer's rotary positions are a frozen sinusoidal nn.Embedding "
                        "(max_position_embeddings × hidden_size / heads): counted, not trainable",),
                 checks=(_FLOORED_ATTENTION, check_summary_type, *PAD_CHECKS)),
    text_encoder("rembert", "RemBertForMaskedLM", "RemBert", ROBERTA_CLASSES,
                 d(vocab_size=250300, hidden_size=1152, num_layers=32, num_heads=18, intermediate_size=4608),
                 {
                     "pad_token_id": pad_token(0),
                     # Decoupled embeddings: input_embedding_size wide, always projected up to hidden_size;
                     # the MLM head projects down to output_embedding_size, its own decoder (never tied:
                     # RemBertForMaskedLM declares no tied weights, whatever tie_word_embeddings says).
                     "embedding_size": Field(("input_embedding_size",), 256,
                                             doc="width of the input embeddings (projected up to hidden_size)"),
                     "mlm_width": Field(("output_embedding_size",), 1664,
                                        doc="width of the MLM head's output embedding (the decoder's input)"),
                     "embed_projection": fixed("encoder.embedding_hidden_mapping_in"),
                     "embed_projection_always": fixed(True),
                     "tie_word_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                                  doc="read, but RemBERT ties no weights"),
                     "tie_embeddings": fixed(False),
                     "mlm_names": fixed(("cls.predictions.dense", "cls.predictions.LayerNorm",
                                         "cls.predictions.decoder")),
                     "mlm_bias_param": fixed(False),
                 },
                 notes=("RemBERT's MLM decoder is its own matrix (output_embedding_size × vocab): it ties "
                        "nothing",), checks=PAD_CHECKS),
    text_encoder("distilbert", "DistilBertForMaskedLM", "DistilBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
                  "ForMultipleChoice"),
                 {
                     # DistilBertConfig.attribute_map: hidden_size -> dim, num_attention_heads -> n_heads,
                     # num_hidden_layers -> n_layers.
                     "hidden_size": Field(("dim", "hidden_size"), 768, doc=TEXT["hidden_size"].doc),
                     "num_layers": Field(("n_layers", "num_hidden_layers"), 6, doc=TEXT["num_layers"].doc),
                     "num_heads": Field(("n_heads", "num_attention_heads"), 12, doc=TEXT["num_heads"].doc),
                     "intermediate_size": Field(("hidden_dim",), 3072, doc=TEXT["intermediate_size"].doc),
                     # Sinusoidal positions are still an nn.Embedding parameter (filled at init, trainable).
                     "sinusoidal_pos_embds": Field(("sinusoidal_pos_embds",), False, "bool"),
                     "type_vocab_size": fixed(0),
                     "token_types": fixed(False),
                     **NO_CROSS_ATTENTION,
                     "attn_names": fixed(("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin")),
                     "mlp_names": fixed(("ffn.lin1", "ffn.lin2")),
                     "layer_norms": fixed(("sa_layer_norm", "output_layer_norm")),
                     "pooler": fixed(None),
                     "classifier": fixed("pre_classifier"),
                     "mlm_names": fixed(("vocab_transform", "vocab_layer_norm", "vocab_projector")),
                     "mlm_bias_param": fixed(False),
                     "pad_token_id": pad_token(0),
                 }, checks=(_two_span_labels, *PAD_CHECKS), float_keys=("num_attention_heads",)),
    text_encoder("modernbert", "ModernBertForMaskedLM", "ModernBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"),
                 d(vocab_size=50368, num_layers=22, intermediate_size=1152, max_positions=8192),
                 # Rotary positions, per layer type; ModernBertConfig declares no head_dim (keeps a written one).
                 ROPE, WRITTEN_HEAD_DIM,
                 rope_by_layer_type(MODERNBERT_LAYER_TYPES, Derived(
                     lambda v: v["layer_types"] if v["layer_types"] is not None else tuple(
                         "sliding_attention" if i % v["global_attn_every_n_layers"] else "full_attention"
                         for i in range(v["num_layers"])), "layer_types, else every n-th layer full attention")),
                 {
                     # Rotary positions: max_position_embeddings sizes no table, only the longest sequence.
                     "max_positions": Field(("max_position_embeddings",), 8192,
                                            doc="longest sequence (rotary positions: no table)"),
                     "pad_token_id": pad_token(50283),
                     "norm_bias": Field(("norm_bias",), False, "bool", doc="biases on every LayerNorm"),
                     "qkv_bias": Field(("attention_bias",), False, "bool", doc="biases on Wqkv and the attention's Wo"),
                     "attn_out_bias": fixed(Derived(lambda v: v["qkv_bias"], "attention_bias")),
                     "mlp_bias": Field(("mlp_bias",), False, "bool", doc="biases on the MLP's Wi and Wo"),
                     "transform_bias": Field(("classifier_bias",), False, "bool",
                                             doc="a bias on the prediction head's dense layer (head.dense)"),
                     "decoder_bias": Field(("decoder_bias",), True, "bool", doc="a bias on the MLM decoder"),
                     "layer_types": Field(("layer_types",), None, "strs",
                                          doc="full_attention / sliding_attention per layer (rotary only: no parameters)"),
                     "global_attn_every_n_layers": Field(("global_attn_every_n_layers",), 3, "any",
                                                         doc="every n-th layer global, where no layer_types is given"),
                     "type_vocab_size": fixed(0),
                     **NO_CROSS_ATTENTION,
                     "word_embedding": fixed("tok_embeddings"),
                     "position_embedding": fixed(None),
                     "token_types": fixed(False),
                     "embed_norm": fixed("norm"),
                     "attn_names": fixed(("attn.Wqkv", "attn.Wo")),
                     # Wi: input and gate of a GLU in one projection, 2 × intermediate_size wide.
                     "mlp_gated": fixed(True),
                     "mlp_names": fixed(("mlp.Wi", "mlp.Wo")),
                     "layer_norms": fixed(("attn_norm", "mlp_norm")),
                     "first_layer_identity": fixed(("attn_norm",)),
                     "final_norm": fixed("final_norm"),
                     "pooler": fixed(None),
                     "classifier": fixed("transform"),
                     "mlm_names": fixed(("head.dense", "head.norm", "decoder")),
                     "mlm_bias_param": fixed(False),
                 },
                 notes=("ModernBERT's rotary positions have no parameters; layer 0's attention norm is an "
                        "nn.Identity",),
                 checks=(check_pad_token, check_modernbert_layer_types), float_keys=("head_dim",)),
    text_encoder("deberta-v2", "DebertaV2ForMaskedLM", "DebertaV2",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
                  "ForMultipleChoice"),
                 d(vocab_size=128100, hidden_size=1536, num_layers=24, num_heads=24, intermediate_size=6144),
                 DEBERTA,
                 {
                     # DisentangledSelfAttention refuses a remainder even where attention_head_size is given.
                     "head_dim": Field(("attention_head_size",), HEAD_DIM, doc="width of each attention head"),
                     "heads_divide_hidden": fixed(True),
                     "attn_names": fixed(("attention.self.query_proj", "attention.self.key_proj",
                                          "attention.self.value_proj", "attention.output.dense")),
                     "share_att_key": Field(("share_att_key",), False, "any",
                                            doc="the position projections are the content ones (no pos_key_proj, "
                                                "pos_query_proj)"),
                     "position_buckets": Field(("position_buckets",), -1, "any",
                                               doc="log-bucketed relative positions: the table has 2 × this many rows"),
                     "attn_extra": fixed(Derived(_v2_attention_extra, "pos_key_proj for c2p, pos_query_proj for p2c")),
                     "norm_rel_ebd": Field(("norm_rel_ebd",), "none", "any",
                                           doc='"layer_norm": a LayerNorm on the relative-position table'),
                     "relative_norm": fixed(Derived(_relative_norm, 'norm_rel_ebd has "layer_norm"')),
                     "conv_kernel_size": Field(("conv_kernel_size",), 0, "any",
                                               doc="kernel of a Conv1d beside the first layer (0: none)"),
                     "conv_groups": Field(("conv_groups",), 1, "any", doc="groups of that Conv1d"),
                     "conv": fixed(Derived(_conv, "conv_kernel_size, conv_groups")),
                 },
                 notes=("DeBERTa-v2's relative-position table (encoder.rel_embeddings) has 2 × position_buckets rows "
                        "where given, else 2 × max_relative_positions",),
                 checks=DEBERTA_CHECKS),
    text_encoder("deberta", "DebertaForMaskedLM", "Deberta",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"),
                 d(vocab_size=50265),
                 DEBERTA,
                 {
                     # One fused in_proj (no bias) with q_bias and v_bias vectors beside it.
                     "attn_names": fixed(("attention.self.in_proj", "attention.output.dense")),
                     "qkv_bias": fixed(False),
                     "attn_bias_params": fixed(("attention.self.q_bias", "attention.self.v_bias")),
                     "talking_head": Field(("talking_head",), False, "any",
                                           doc="two heads × heads mixers of the attention scores"),
                     "attn_extra": fixed(Derived(_v1_attention_extra, "talking-head mixers, pos_proj, pos_q_proj")),
                 },
                 checks=DEBERTA_CHECKS),
    text_encoder("mpnet", "MPNetForMaskedLM", "MPNet",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
                  "ForMultipleChoice"),
                 d(vocab_size=30527), ROBERTA_HEADS,
                 {
                     # Read by no module: the tables' padding index is 1 whatever it says.
                     "pad_token_id": Field(("pad_token_id",), 1, "int?", minimum=-(10**9),
                                           doc="padding token (MPNet's tables pad with index 1 whatever it says)"),
                     "first_position": fixed(2),  # its positions from padding index 1 + 1, as RoBERTa's
                     "type_vocab_size": fixed(0),
                     "token_types": fixed(False),
                     **NO_CROSS_ATTENTION,
                     "attn_names": fixed(("attention.attn.q", "attention.attn.k", "attention.attn.v",
                                          "attention.attn.o")),
                     "layer_norms": fixed(("attention.LayerNorm", "output.LayerNorm")),
                     # A relative-position bias per head in the encoder, relative_attention_num_buckets rows.
                     "relative_buckets": Field(("relative_attention_num_buckets",), 32,
                                               doc="rows of the relative-position bias (one column per head)"),
                     "relative_rows": fixed(Derived(lambda v: v["relative_buckets"], "relative_attention_num_buckets")),
                     "relative_path": fixed("encoder.relative_attention_bias"),
                     "relative_per_head": fixed(True),
                 }, checks=(check_padding_index_one,)),
    # GTE (Alibaba's gte-*-v1.5 / mGTE): rotary positions, post-norm layers with a gated MLP (gate and up without
    # biases, down with one), token types where type_vocab_size is not 0, a pooler in the classifier class only.
    text_encoder("gte", "GteForMaskedLM", "Gte",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"),
                 d(vocab_size=250048, type_vocab_size=1),
                 ROPE, WRITTEN_HEAD_DIM, ROBERTA_HEADS,
                 {
                     "pad_token_id": pad_token(1),
                     "max_positions": Field(("max_position_embeddings",), 8192,
                                            doc="longest sequence (rotary positions: no table)"),
                     "position_embedding": fixed(None),
                     "token_types": fixed(Derived(lambda v: bool(v["type_vocab_size"]), "type_vocab_size > 0")),
                     # GteAttention reads head_dim where the config has one (heads × head_dim wide, any remainder).
                     "head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
                     **FLOOR_HEADS,
                     **NO_CROSS_ATTENTION,
                     "attn_names": fixed(("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                          "self_attn.o_proj")),
                     "mlp_names": fixed(("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")),
                     "mlp_in_bias": fixed(False),
                     "layer_norms": fixed(("post_attention_layernorm", "post_mlp_layernorm")),
                     "pooler_in_base": fixed(False),
                     "classifier": fixed("pooled"),
                     "mlm_bias_param": fixed(False),
                 }, checks=PAD_CHECKS),
    # Jina Embeddings v3 (transformers' own port): XLM-RoBERTa's embeddings without a position table (rotary
    # positions), post-norm layers of a biased self_attn and a plain MLP (fc1, fc2), RoBERTa's heads under `roberta`.
    text_encoder("jina_embeddings_v3", "JinaEmbeddingsV3ForMaskedLM", "JinaEmbeddingsV3",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering"),
                 d(vocab_size=250002, hidden_size=1024, num_layers=24, num_heads=16, intermediate_size=4096,
                   type_vocab_size=1),
                 ROPE, WRITTEN_HEAD_DIM, ROBERTA_HEADS,
                 {
                     "pad_token_id": pad_token(1),
                     "max_positions": Field(("max_position_embeddings",), 8194,
                                            doc="longest sequence (rotary positions: no table)"),
                     "position_embedding": fixed(None),
                     # Its attention reads head_dim where the config has one (heads × head_dim wide, any remainder);
                     # a null there fails (None ** -0.5).
                     "head_dim": Field(("head_dim",), HEAD_DIM, null="reject", doc="width of each attention head"),
                     **FLOOR_HEADS,
                     **NO_CROSS_ATTENTION,
                     "attn_names": fixed(("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                          "self_attn.o_proj")),
                     "mlp_names": fixed(("mlp.fc1", "mlp.fc2")),
                     "layer_norms": fixed(("post_attention_layernorm", "post_mlp_layernorm")),
                 }, checks=PAD_CHECKS),
    # NomicBERT (nomic-embed-text): GTE's layer without any biases in attention or MLP, token types always, rotary
    # positions, BERT's masked-LM head (its norm named layer_norm), a pooler in the classifier class only.
    text_encoder("nomic_bert", "NomicBertForMaskedLM", "NomicBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"),
                 d(vocab_size=30528, max_positions=2048),
                 ROPE,
                 {
                     # NomicBertConfig's pad_token_id is a whole number: it refuses a null.
                     "pad_token_id": Field(("pad_token_id",), 0, "int?", minimum=-(10**9), null="reject",
                                           doc="padding token (index into the vocabulary)"),
                     "max_positions": Field(("max_position_embeddings",), 2048,
                                            doc="longest sequence (rotary positions: no table)"),
                     "position_embedding": fixed(None),
                     # NomicBertConfig does not declare it: kept as written, read for its truth (a null unties).
                     "tie_embeddings": Field(("tie_word_embeddings",), True, "any",
                                             doc="the MLM decoder shares the word embedding matrix"),
                     # NomicBertConfig: null or absent is hidden_size / num_attention_heads (any remainder).
                     "head_dim": Field(("head_dim",), HEAD_DIM, null="default", doc="width of each attention head"),
                     **FLOOR_HEADS,
                     **NO_CROSS_ATTENTION,
                     "qkv_bias": fixed(False),
                     "attn_out_bias": fixed(False),
                     "mlp_bias": fixed(False),
                     "attn_names": fixed(("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                          "self_attn.o_proj")),
                     "mlp_names": fixed(("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")),
                     "layer_norms": fixed(("post_attention_layernorm", "post_mlp_layernorm")),
                     "pooler_in_base": fixed(False),
                     "classifier": fixed("pooled"),
                     "mlm_names": fixed(("cls.predictions.transform.dense", "cls.predictions.transform.layer_norm",
                                         "cls.predictions.decoder")),
                 }, checks=PAD_CHECKS),
    # EuroBERT: a Llama-shaped stack run bidirectionally (grouped-query attention, RMSNorm, a SwiGLU MLP, rotary
    # positions), its masked-LM head the decoder alone (untied by default, a bias where mlp_bias).
    text_encoder("eurobert", "EuroBertForMaskedLM", "EuroBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"),
                 d(vocab_size=128256, max_positions=8192),
                 ROPE,
                 {
                     "pad_token_id": pad_token(128001),
                     "max_positions": Field(("max_position_embeddings",), 8192,
                                            doc="longest sequence (rotary positions: no table)"),
                     "kv_heads": Field(("num_key_value_heads",), KV_HEADS, null="default",
                                       doc="key/value heads (grouped-query attention when fewer than query heads)"),
                     "head_dim": Field(("head_dim",), HEAD_DIM, null="default", doc="width of each attention head"),
                     # EuroBertConfig refuses a remainder even where head_dim is given.
                     "heads_divide_hidden": fixed(True),
                     "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                             doc="the masked-LM head shares the embedding matrix"),
                     "qkv_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
                     "attn_out_bias": fixed(Derived(lambda v: v["qkv_bias"], "attention_bias")),
                     "mlp_bias": Field(("mlp_bias",), False, "bool",
                                       doc="biases on the MLP projections and the masked-LM head"),
                     "decoder_bias": fixed(Derived(lambda v: v["mlp_bias"], "mlp_bias")),
                     "norm_bias": fixed(False),
                     **LLAMA_SHAPED_BODY,
                     "classifier": fixed("dense_classifier"),
                     "mlm_names": fixed((None, None, "lm_head")),
                     "mlm_bias_param": fixed(False),
                 },
                 notes=("EuroBERT's norms are RMSNorms (a weight, no bias); its masked-LM head is untied by "
                        "default",), checks=PAD_CHECKS),
    # ESM-C (EvolutionaryScale's ESM Cambrian protein models): a Llama-shaped stack run bidirectionally with
    # LayerNorms (the final one without a bias), query and key LayerNorms over the hidden width (no bias), no
    # grouped-query attention; a masked-LM head of its own (dense, layer_norm, decoder: never tied, no class ties it),
    # RoBERTa's sequence classifier and GenericForTokenClassification's score.
    text_encoder("esmc", "EsmcForMaskedLM", "Esmc",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"),
                 d(vocab_size=64, hidden_size=2560, num_layers=80, num_heads=40, intermediate_size=6912),
                 ROPE,
                 {
                     # Its embedding has no padding index: any pad_token_id builds.
                     "pad_token_id": Field(("pad_token_id",), 1, "int?", minimum=-(10**9),
                                           doc="padding token (the embedding takes no padding index)"),
                     "max_positions": Field(("max_position_embeddings",), 2048,
                                            doc="longest sequence (rotary positions: no table)"),
                     "kv_heads": Field(("num_key_value_heads",), KV_HEADS, null="default",
                                       doc="key/value heads (EsmcConfig refuses any but num_attention_heads)"),
                     "head_dim": Field(("head_dim",), HEAD_DIM, null="default", doc="width of each attention head"),
                     # LlamaConfig's validate_architecture refuses a remainder whatever head_dim says.
                     "heads_divide_hidden": fixed(True),
                     "tie_embeddings": fixed(False),
                     "qkv_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
                     "attn_out_bias": fixed(Derived(lambda v: v["qkv_bias"], "attention_bias")),
                     "mlp_bias": Field(("mlp_bias",), False, "bool", doc="biases on the MLP projections"),
                     "attn_params": fixed(Derived(lambda v: tuple((f"self_attn.{n}.weight", (v["hidden_size"],), "norm")
                                                                  for n in ("q_norm", "k_norm")),
                                                  "q_norm, k_norm over hidden_size")),
                     **LLAMA_SHAPED_BODY,
                     "final_norm_bias": fixed(False),
                     "classifier": fixed("dense"),
                     "token_classifier": fixed("score"),
                     "token_classification_bias": Field(("token_classification_bias",), True, "bool", null="false",
                                                        doc="a bias on the token classifier (score)"),
                     "mlm_names": fixed(("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder")),
                     "mlm_bias_param": fixed(False),
                 },
                 notes=("ESM-C's masked-LM decoder is its own: no class ties it to the embedding",),
                 checks=(check_esmc_heads,)),
    Family("albert", "albert", "AlbertForMaskedLM", {
        **TEXT,
        "vocab_size": Field(("vocab_size",), 30000, doc=TEXT["vocab_size"].doc),
        "embedding_size": Field(("embedding_size",), 128, doc="width of the factorised embedding (projected up to hidden_size)"),
        "hidden_size": Field(("hidden_size",), 4096, doc=TEXT["hidden_size"].doc),
        "pad_token_id": pad_token(0),
        "num_heads": Field(("num_attention_heads",), 64, doc=TEXT["num_heads"].doc),
        "intermediate_size": Field(("intermediate_size",), 16384, doc=TEXT["intermediate_size"].doc),
        "num_hidden_groups": Field(("num_hidden_groups",), 1, doc="groups of layers with their own weights"),
        "inner_group_num": Field(("inner_group_num",), 1, doc="layers per group"),
        **NO_CROSS_ATTENTION,
        "attn_names": fixed(("attention.query", "attention.key", "attention.value", "attention.dense")),
        "mlp_names": fixed(("ffn", "ffn_output")),
        "layer_norms": fixed(("attention.LayerNorm", "full_layer_layer_norm")),
        "mlm_names": fixed(("predictions.dense", "predictions.LayerNorm", "predictions.decoder")),
        "pooler": fixed("linear"),
        # AlbertAttention's divisibility check is skipped where the config has an embedding_size (always);
        # its output projection is hidden_size × hidden_size whatever width the floored heads make.
        **FLOOR_HEADS,
        "attn_out_from_hidden": fixed(True),
    }, {"AlbertModel": "base", "AlbertForMaskedLM": "masked_lm", "AlbertForPreTraining": "pretraining",
        "AlbertForSequenceClassification": "sequence_classification",
        "AlbertForTokenClassification": "token_classification", "AlbertForQuestionAnswering": "question_answering",
        "AlbertForMultipleChoice": "multiple_choice"},
        notes=("ALBERT shares weights: num_hidden_groups × inner_group_num layers are stored, "
               "applied num_hidden_layers times",), checks=(attention_must_be_hidden_wide("its output projection takes hidden_size values"), *PAD_CHECKS)),
    vision_tower("vit", "ViTForImageClassification",
                 {"ViTModel": "base", "ViTForImageClassification": "image_classification",
                  "ViTForMaskedImageModeling": "masked_image_modeling"},
                 VIT),
    # DeiT: ViT with a distillation token (positions for it too); the teacher class has two classifiers.
    vision_tower("deit", "DeiTForImageClassificationWithTeacher",
                 {"DeiTModel": "base", "DeiTForImageClassification": "image_classification",
                  "DeiTForImageClassificationWithTeacher": "image_classification_with_teacher",
                  "DeiTForMaskedImageModeling": "masked_image_modeling"},
                 VIT, {"embed": fixed("deit")}),
    # ViTMAE: ViT's encoder with a fixed sin-cos position table, no pooler; the pre-training class adds its decoder.
    vision_tower("vit_mae", "ViTMAEForPreTraining",
                 {"ViTMAEModel": "base", "ViTMAEForPreTraining": "mae_pretraining"},
                 VIT_NO_POOLER, MAE_DECODER, {"frozen_positions": fixed(True)},
                 notes=("ViTMAE's position tables are fixed sin-cos values (requires_grad=False): counted, not "
                        "trained",), checks=(check_mae_decoder,)),
    # I-JEPA: ViT without a class token (positions for the patches alone) and, in every class, without a pooler.
    vision_tower("ijepa", "IJepaModel",
                 {"IJepaModel": "base", "IJepaForImageClassification": "image_classification"},
                 VIT_NO_POOLER, {"class_token": fixed(False)}),
    # ViT-MSN: ViT's embeddings, layers and final norm; no pooler in any class (ViTMSNConfig has no pooler keys).
    vision_tower("vit_msn", "ViTMSNForImageClassification",
                 {"ViTMSNModel": "base", "ViTMSNForImageClassification": "image_classification"},
                 VIT_NO_POOLER),
    # YOLOS: ViT with detection tokens and (by default) a position table per layer after the first; BERT's module
    # names; its attention refuses heads that do not divide the width.
    vision_tower("yolos", "YolosForObjectDetection",
                 {"YolosModel": "base", "YolosForObjectDetection": "object_detection"},
                 {"qkv_bias": Field(("qkv_bias",), True, "bool", doc="biases on the query/key/value projections"),
                  "image_size": Field(("image_size",), (512, 864), "any", doc="input image [height, width] in pixels"),
                  "patch_size": Field(("patch_size",), 16, "any", doc=VISION["patch_size"].doc),
                  "num_detection_tokens": Field(("num_detection_tokens",), 100, minimum=0,
                                                doc="learned detection tokens (each with a position)"),
                  "use_mid_position_embeddings": Field(("use_mid_position_embeddings",), True, "bool",
                                                       doc="a position table for every layer after the first"),
                  "detection_tokens": fixed(Derived(lambda v: v["num_detection_tokens"], "num_detection_tokens")),
                  "mid_positions": fixed(Derived(lambda v: v["use_mid_position_embeddings"],
                                                 "use_mid_position_embeddings")),
                  "embed": fixed("vit"),
                  "attn_names": fixed(("attention.attention.query", "attention.attention.key",
                                       "attention.attention.value", "attention.output.dense")),
                  "mlp_names": fixed(("intermediate.dense", "output.dense")),
                  "layer_norms": fixed(("layernorm_before", "layernorm_after")),
                  "final_norm": fixed("layernorm"),
                  "pooler": fixed("dense")},
                 notes=("YOLOS's object-detection class predicts num_labels + 1 classes (one for no object) and a "
                        "box of 4 through two 3-layer MLPs",), checks=(check_image_size_list,)),
    # DINOv3 ViT: pre-norm layers with layer scales, rotary positions (no table: no parameters), register tokens, the
    # query/key/value/output biases each by its own key, a plain or gated MLP; the backbone is the bare model.
    vision_tower("dinov3_vit", "DINOv3ViTModel",
                 {"DINOv3ViTModel": "base", "DINOv3ViTBackbone": "base"},
                 d(hidden_size=384, intermediate_size=1536, num_heads=6),
                 {"image_size": Field(("image_size",), 224, "any", doc=VISION["image_size"].doc),
                  "patch_size": Field(("patch_size",), 16, "any", doc=VISION["patch_size"].doc),
                  # Its attention is hidden_size wide and divides nothing at build time: heads of hidden // heads.
                  **FLOOR_HEADS,
                  "attn_hidden_wide": fixed(True),
                  "query_bias": Field(("query_bias",), True, "bool", doc="a bias on the query projection"),
                  "key_bias": Field(("key_bias",), False, "bool", doc="a bias on the key projection"),
                  "value_bias": Field(("value_bias",), True, "bool", doc="a bias on the value projection"),
                  "qkv_biases": fixed(Derived(lambda v: (v["query_bias"], v["key_bias"], v["value_bias"]),
                                              "query_bias, key_bias, value_bias")),
                  "attn_out_bias": Field(("proj_bias",), True, "bool", doc="a bias on the attention output projection"),
                  "mlp_bias": Field(("mlp_bias",), True, "bool", doc="biases on the MLP projections"),
                  "use_gated_mlp": Field(("use_gated_mlp",), False, "bool", doc="a gated MLP (gate, up, down)"),
                  "num_register_tokens": Field(("num_register_tokens",), 0, minimum=0,
                                               doc="register tokens (learned, hidden wide) beside the class token"),
                  "register_tokens": fixed(Derived(lambda v: v["num_register_tokens"], "num_register_tokens")),
                  "embed": fixed("dinov3"),
                  "attn_names": fixed(("attention.q_proj", "attention.k_proj", "attention.v_proj",
                                       "attention.o_proj")),
                  "mlp_names": fixed(Derived(lambda v: ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
                                             if v["use_gated_mlp"] else ("mlp.up_proj", "mlp.down_proj"),
                                             "use_gated_mlp")),
                  "layer_norms": fixed(("norm1", "norm2")),
                  "layer_scales": fixed(("layer_scale1.lambda1", "layer_scale2.lambda1")),
                  "final_norm": fixed("norm")},
                 notes=("DINOv3's positions are rotary (no parameters); its backbone class counts as the bare model",),
                 checks=(check_heads_not_wider_than_hidden,)),
    vision_tower("dinov2", "Dinov2Model",
                 {"Dinov2Model": "base", "Dinov2Backbone": "base", "Dinov2ForImageClassification": "image_classification"},
                 DINOV2,
                 {"use_mask_token": Field(("use_mask_token",), True, "bool", doc="a mask token (1 × hidden) in the "
                                                                                 "embeddings"),
                  "mask_token": fixed(Derived(lambda v: v["use_mask_token"], "use_mask_token"))},
                 notes=("DINOv2's image-classification class reads the class token and the mean patch: its "
                        "classifier takes 2 × hidden_size inputs",)),
    vision_tower("dinov2_with_registers", "Dinov2WithRegistersModel",
                 {"Dinov2WithRegistersModel": "base", "Dinov2WithRegistersBackbone": "base",
                  "Dinov2WithRegistersForImageClassification": "image_classification"},
                 DINOV2, d(patch_size=16),
                 {"num_register_tokens": Field(("num_register_tokens",), 4, minimum=0,
                                               doc="register tokens (learned, hidden wide) beside the class token"),
                  "register_tokens": fixed(Derived(lambda v: v["num_register_tokens"], "num_register_tokens")),
                  "mask_token": fixed(True)},
                 notes=("DINOv2's image-classification class reads the class token and the mean patch: its "
                        "classifier takes 2 × hidden_size inputs",)),
    # BEiT: ViT's q/k/v/o_proj and fc1 / fc2 (its attention reads a head_dim the config has); the bare model pools,
    # the masked-image-modeling class predicts visual tokens (a LayerNorm and lm_head over vocab_size).
    vision_tower("beit", "BeitForImageClassification",
                 {"BeitModel": "base", "BeitForImageClassification": "image_classification",
                  "BeitForMaskedImageModeling": "masked_token_prediction"},
                 BEIT,
                 {"vocab_size": Field(("vocab_size",), 8192, doc="visual tokens the masked-image-modeling head predicts"),
                  "head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
                  **FLOOR_HEADS,
                  "attn_names": fixed(("attention.q_proj", "attention.k_proj", "attention.v_proj", "attention.o_proj")),
                  **_relative_bias_tables("relative_position_bias.relative_position_bias_table",
                                          "shared_position_bias.relative_position_bias_table")},
                 notes=("BeitForSemanticSegmentation (UPerNet and FCN heads) and BeitBackbone are not counted",),
                 checks=(check_layer_scale_float, check_relative_bias_patch)),
    # Data2Vec-Vision: BEiT's model under BERT's module names; its attention refuses heads that do not divide the width,
    # its bare model has no pooler (the classifier class's has), the tables sit in the attention and the encoder.
    vision_tower("data2vec-vision", "Data2VecVisionForImageClassification",
                 {"Data2VecVisionModel": "base", "Data2VecVisionForImageClassification": "image_classification"},
                 BEIT,
                 {"attn_names": fixed(("attention.attention.query", "attention.attention.key",
                                       "attention.attention.value", "attention.output.dense")),
                  "mlp_names": fixed(("intermediate.dense", "output.dense")),
                  "pooler_in_base": fixed(False),
                  **_relative_bias_tables("attention.attention.relative_position_bias.relative_position_bias_table",
                                          "encoder.relative_position_bias.relative_position_bias_table")},
                 notes=("Data2VecVisionForSemanticSegmentation (UPerNet and FCN heads) is not counted",),
                 checks=(check_layer_scale_float,)),
    vision_tower("clip_vision_model", "CLIPVisionModel",
                 {"CLIPVisionModel": "base", "CLIPVisionModelWithProjection": "with_projection"},
                 d(patch_size=32),
                 {"projection_dim": Field(("projection_dim",), 512, doc="width of the shared image-text embedding"),
                  "embed": fixed("clip_vision"), "pre_norm": fixed("pre_layrnorm"), "final_norm": fixed("post_layernorm"),
                  "projection": fixed("visual_projection")}),
    _mha_pooling_head(vision_tower("siglip_vision_model", "SiglipVisionModel", {"SiglipVisionModel": "base"},
                 {"vision_use_head": Field(("vision_use_head",), True, "bool", doc="the attention-pooling head"),
                  "embed": fixed("siglip"), "final_norm": fixed("post_layernorm")})),
    Family("clip_text_model", "encoder", "CLIPTextModel", {
        "vocab_size": Field(("vocab_size",), 49408, doc=TEXT["vocab_size"].doc),
        "hidden_size": Field(("hidden_size",), 512, doc=TEXT["hidden_size"].doc),
        "num_layers": Field(("num_hidden_layers",), 12, doc=TEXT["num_layers"].doc),
        "num_heads": Field(("num_attention_heads",), 8, doc=TEXT["num_heads"].doc),
        "head_dim": fixed(HEAD_DIM),
        "intermediate_size": Field(("intermediate_size",), 2048, doc=TEXT["intermediate_size"].doc),
        "max_positions": Field(("max_position_embeddings",), 77, doc=TEXT["max_positions"].doc),
        # CLIP's configs keep a null projection_dim: only the classes with a projection need it.
        "projection_dim": Field(("projection_dim",), 512, null="none", doc="width of the shared image-text embedding"),
        **TEXT_TOWER,
        "projection": fixed("text_projection"),
    }, {"CLIPTextModel": "base", "CLIPTextModelWithProjection": "with_projection"}),
    # SigLIP 2's vision tower: a Linear patch embedding (num_channels × patch_size² → hidden) and num_patches
    # positions, whatever the image size (it takes images of any shape, resized to that many patches).
    _mha_pooling_head(vision_tower("siglip2_vision_model", "Siglip2VisionModel", {"Siglip2VisionModel": "base"},
                 {"vision_use_head": Field(("vision_use_head",), True, "bool", doc="the attention-pooling head"),
                  "num_patches": Field(("num_patches",), 256, doc="rows of the position embedding (patches per image)"),
                  "image_size": fixed(None),
                  "embed": fixed("siglip2"), "final_norm": fixed("post_layernorm")})),
    *(Family(model_type, "encoder", architecture, {
        "vocab_size": Field(("vocab_size",), 32000, doc=TEXT["vocab_size"].doc),
        "hidden_size": Field(("hidden_size",), 768, doc=TEXT["hidden_size"].doc),
        "num_layers": Field(("num_hidden_layers",), 12, doc=TEXT["num_layers"].doc),
        "num_heads": Field(("num_attention_heads",), 12, doc=TEXT["num_heads"].doc),
        "head_dim": fixed(HEAD_DIM),
        "intermediate_size": Field(("intermediate_size",), 3072, doc=TEXT["intermediate_size"].doc),
        "max_positions": Field(("max_position_embeddings",), 64, doc=TEXT["max_positions"].doc),
        # SiglipTextConfig: null or absent is hidden_size.
        "projection_size": Field(("projection_size",), Derived(_same_width, "hidden_size"), null="default",
                                 doc="width of the text head's output (the shared image-text embedding)"),
        **TEXT_TOWER,
        "text_head": fixed("head"),
    }, {architecture: "base"}) for model_type, architecture in (("siglip_text_model", "SiglipTextModel"),
                                                                ("siglip2_text_model", "Siglip2TextModel"))),
    *(Family(model_type, "clip", f"{prefix}Model", {
        **LABEL_FIELDS,
        "logit_bias": fixed(True),
    }, {f"{prefix}Model": "clip", f"{prefix}ForImageClassification": "image_classification"},
        subconfigs={"text": ("text_config", f"{model_type}_text_model"),
                    "vision": ("vision_config", f"{model_type}_vision_model")},
        # SiglipConfig (Siglip2Config) builds its own text and vision config classes whatever a nested
        # "model_type" says.
        fixed_subconfigs=("text", "vision"),
        notes=("SigLIP: each tower ends in its own head (the text model's Linear, the vision model's attention "
               "pooling where vision_use_head); the model adds a logit scale and a logit bias",))
      for model_type, prefix in (("siglip", "Siglip"), ("siglip2", "Siglip2"))),
    Family("clip", "clip", "CLIPModel", {
        "projection_dim": Field(("projection_dim",), 512, null="none", doc="width of the shared image-text embedding"),
        **LABEL_FIELDS,
        # CLIPConfig rebuilds a sub-config from "<key>_dict" when given (old checkpoints carry both);
        # the _dict values, filled with class defaults, then win.
        "text_override": fixed("text_config_dict"),
        "vision_override": fixed("vision_config_dict"),
    }, {"CLIPModel": "clip", "CLIPForImageClassification": "image_classification"},
        subconfigs={"text": ("text_config", "clip_text_model"), "vision": ("vision_config", "clip_vision_model")},
        # CLIPConfig builds CLIPTextConfig and CLIPVisionConfig whatever a nested "model_type" says.
        fixed_subconfigs=("text", "vision")),
)


def _renamed_clip(family: Family) -> Family:
    """A CLIP family as MetaCLIP 2's: transformers' MetaClip2* config and model classes subclass CLIP's and change
    nothing that holds a parameter (the text model pools at eos_token_id itself), so only the names differ."""
    def rename(name: str) -> str:
        return name.replace("CLIP", "MetaClip2").replace("clip", "metaclip_2")
    return replace(family, model_type=rename(family.model_type), architecture=rename(family.architecture),
                   heads={rename(cls): head for cls, head in family.heads.items()},
                   subconfigs={field: (key, rename(sub)) for field, (key, sub) in family.subconfigs.items()})


# MetaCLIP 2 (metaclip_2, facebook/metaclip-2-worldwide-*): CLIP's towers under new names.
FAMILIES += tuple(_renamed_clip(f) for f in FAMILIES
                  if f.model_type in ("clip", "clip_text_model", "clip_vision_model"))


def _chinese_clip() -> tuple[Family, ...]:
    """Chinese-CLIP (chinese_clip, OFA-Sys/chinese-clip-*): a BERT text tower without cross-attention, pooled only
    as the standalone ChineseCLIPTextModel (ChineseCLIPModel builds it without its pooler: ``text_pooler``), beside
    CLIP's vision tower (no projection class of its own) and CLIP's projections and logit scale."""
    clip = {f.model_type: f for f in FAMILIES}
    text = text_encoder("chinese_clip_text_model", "ChineseCLIPTextModel", "ChineseCLIPText", ("Model",),
                        {"pad_token_id": pad_token(0), **NO_CROSS_ATTENTION, "tie_embeddings": fixed(True)}, checks=PAD_CHECKS)  # (no class of it ties or reads a tie)
    vision = replace(clip["clip_vision_model"], model_type="chinese_clip_vision_model",
                     architecture="ChineseCLIPVisionModel", heads={"ChineseCLIPVisionModel": "base"})
    dual = replace(clip["clip"], model_type="chinese_clip", architecture="ChineseCLIPModel",
                   fields={**clip["clip"].fields, "text_pooler": fixed(False)}, heads={"ChineseCLIPModel": "clip"},
                   subconfigs={"text": ("text_config", "chinese_clip_text_model"),
                               "vision": ("vision_config", "chinese_clip_vision_model")})
    return text, vision, dual


FAMILIES += _chinese_clip()
