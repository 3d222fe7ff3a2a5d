"""Encoder and vision families: BERT-likes (BERT, RoBERTa and its kin, Megatron-BERT, ELECTRA, RoFormer, RemBERT),
DistilBERT, ModernBERT, ALBERT, ViT, CLIP and its towers, SigLIP's vision tower.

One encoder layout (``layouts/encoder.py``) counts every single-stack encoder;
the rows below say how each family names its modules and which optional parts
it has. Defaults are the transformers (v5) config classes'. See decoders.py for
the table conventions (``fixed`` switches, ``d()`` defaults, ``aliases``).
"""

from __future__ import annotations

import json

from lsp_count.core.families.common import LABEL_FIELDS, check_pad_token, pad_token
from lsp_count.core.families.decoders import (FLOOR_HEADS, HEAD_DIM, ROPE, WRITTEN_HEAD_DIM, attention_must_be_hidden_wide,
                                              d, fixed, merge_fields, rope_by_layer_type)
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


def text_encoder(model_type: str, architecture: str, prefix: str, heads: tuple[str, ...],
                 *overrides: dict[str, Field], notes: tuple[str, ...] = (), checks: tuple = (),
                 float_keys: tuple[str, ...] = ()) -> Family:
    fields = merge_fields(TEXT, *overrides)
    table = {
        "Model": "base", "ForMaskedLM": "masked_lm", "ForCausalLM": "causal_lm", "LMHeadModel": "causal_lm",
        "ForPreTraining": "pretraining", "ForSequenceClassification": "sequence_classification",
        "ForTokenClassification": "token_classification", "ForQuestionAnswering": "question_answering",
        "ForMultipleChoice": "multiple_choice",
    }
    return Family(model_type, "encoder", architecture, fields,
                  {prefix + suffix: table[suffix] for suffix in heads}, notes=notes, checks=checks, float_keys=float_keys)


ROBERTA_HEADS = {
    "classifier": fixed("dense"),
    "mlm_names": fixed(("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder")),
}

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
    "is_decoder": fixed(False),
    "add_cross_attention": fixed(False),
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


def vision_tower(model_type: str, architecture: str, heads: dict[str, str], *overrides: dict[str, Field]) -> Family:
    fields = merge_fields(VISION, *overrides)
    return Family(model_type, "encoder", architecture, fields, heads)


FAMILIES: tuple[Family, ...] = (
    text_encoder("bert", "BertForMaskedLM", "Bert",
                 ("Model", "ForMaskedLM", "LMHeadModel", "ForPreTraining", "ForSequenceClassification",
                  "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"),
                 {"pad_token_id": pad_token(0)}, checks=PAD_CHECKS),
    text_encoder("roberta", "RobertaForMaskedLM", "Roberta",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"),
                 d(vocab_size=50265), ROBERTA_HEADS, {"pad_token_id": pad_token(1)},
                 notes=("RoBERTa's position table has max_position_embeddings rows; checkpoints set 514 "
                        "(512 positions + the padding offset)",), checks=ROBERTA_PAD_CHECKS),
    text_encoder("xlm-roberta", "XLMRobertaForMaskedLM", "XLMRoberta",
                 ("Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"),
                 ROBERTA_HEADS, {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
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
                 {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
    text_encoder("data2vec-text", "Data2VecTextForMaskedLM", "Data2VecText", ROBERTA_CLASSES, ROBERTA_HEADS,
                 {"pad_token_id": pad_token(1)}, checks=ROBERTA_PAD_CHECKS),
    text_encoder("xlm-roberta-xl", "XLMRobertaXLForMaskedLM", "XLMRobertaXL", ROBERTA_CLASSES,
                 d(vocab_size=250880, hidden_size=2560, num_layers=36, num_heads=32, intermediate_size=10240,
                   max_positions=514, type_vocab_size=1),
                 ROBERTA_HEADS,
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
                 d(vocab_size=50265), ROBERTA_HEADS,
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
                     "is_decoder": fixed(False),
                     "add_cross_attention": fixed(False),
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
                     "is_decoder": fixed(False),
                     "add_cross_attention": fixed(False),
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
        "is_decoder": fixed(False),
        "add_cross_attention": fixed(False),
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
                 {
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
                 }),
    vision_tower("clip_vision_model", "CLIPVisionModel",
                 {"CLIPVisionModel": "base", "CLIPVisionModelWithProjection": "with_projection"},
                 d(patch_size=32),
                 {"projection_dim": Field(("projection_dim",), 512, doc="width of the shared image-text embedding"),
                  "embed": fixed("clip_vision"), "pre_norm": fixed("pre_layrnorm"), "final_norm": fixed("post_layernorm"),
                  "projection": fixed("visual_projection")}),
    vision_tower("siglip_vision_model", "SiglipVisionModel", {"SiglipVisionModel": "base"},
                 {"vision_use_head": Field(("vision_use_head",), True, "bool", doc="the attention-pooling head"),
                  "embed": fixed("siglip"), "final_norm": fixed("post_layernorm")}),
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
        "embed": fixed("text"),
        "word_embedding": fixed("token_embedding"),
        "position_embedding": fixed("position_embedding"),
        "token_types": fixed(False),
        "embed_norm": fixed(None),
        "qkv_bias": fixed(True),
        "attn_names": VISION["attn_names"],
        "mlp_names": VISION["mlp_names"],
        "layer_norms": VISION["layer_norms"],
        "is_decoder": fixed(False),
        "add_cross_attention": fixed(False),
        "pre_norm": fixed(None),
        "final_norm": fixed("final_layer_norm"),
        "pooler": fixed(None),
        "projection": fixed("text_projection"),
    }, {"CLIPTextModel": "base", "CLIPTextModelWithProjection": "with_projection"}),
    Family("clip", "clip", "CLIPModel", {
        "projection_dim": Field(("projection_dim",), 512, null="none", doc="width of the shared image-text embedding"),
        **LABEL_FIELDS,
        # CLIPConfig rebuilds a sub-config from "<key>_dict" when given (old checkpoints carry both);
        # the _dict values, filled with class defaults, then win.
        "text_override": fixed("text_config_dict"),
        "vision_override": fixed("vision_config_dict"),
    }, {"CLIPModel": "clip", "CLIPForImageClassification": "image_classification"},
        subconfigs={"text": ("text_config", "clip_text_model"), "vision": ("vision_config", "clip_vision_model")}),
)
