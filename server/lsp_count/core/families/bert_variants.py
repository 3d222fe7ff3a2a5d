"""BERT's relatives on the encoder layout: BertGeneration (BERT's stack with a bare LM head), ERNIE (BERT with
task-type embeddings), X-MOD (RoBERTa with per-language adapters in every layer), RoCBERT (BERT with
pronunciation and shape embeddings projected in with the word embedding) and ModernBERT-Decoder (ModernBERT's stack
run causally, its query, key and value projections apart).

Defaults are transformers 5.25's config classes'. See encoders.py for the BERT-shaped switches these rows set.
"""

from __future__ import annotations

import json

from lsp_count.core.families.common import check_pad_token, pad_token
from lsp_count.core.families.decoders import d, fixed, merge_fields
from lsp_count.core.families.encoders import FAMILIES as ENCODER_FAMILIES
from lsp_count.core.families.encoders import (PAD_CHECKS, ROBERTA_CLASSES, ROBERTA_HEADS, ROBERTA_PAD_CHECKS,
                                              ROBERTA_POSITIONS, TEXT, text_encoder)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

BERT_CLASSES = ("Model", "ForMaskedLM", "ForCausalLM", "ForPreTraining", "ForSequenceClassification",
                "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice")


# --- ERNIE: BERT, and a task-type table in the embeddings where use_task_id ---------------------------------------

def _task_table(v) -> tuple:
    return (("task_type_embeddings", v["task_type_vocab_size"], v["hidden_size"]),) if v["use_task_id"] else ()


ERNIE = {
    "pad_token_id": pad_token(0),
    "use_task_id": Field(("use_task_id",), False, "bool", doc="a task-type embedding table beside the token types"),
    "task_type_vocab_size": Field(("task_type_vocab_size",), 3, minimum=0,
                                  doc="rows of the task-type embedding (with use_task_id)"),
    "embed_tables": fixed(Derived(_task_table, "task_type_embeddings where use_task_id")),
}


# --- X-MOD: RoBERTa with a bottleneck adapter per language in every layer ------------------------------------------

def _languages(v) -> tuple:
    """The adapters' names: XmodOutput keys an nn.ModuleDict by str(language), so a name written twice is one."""
    return tuple(dict.fromkeys(v["languages"]))


def _xmod_adapters(v) -> tuple:
    """Per layer and language: dense1 (hidden → hidden // adapter_reduction_factor) and dense2 (back), with biases."""
    h = v["hidden_size"]
    width = h // v["adapter_reduction_factor"]
    return tuple((f"output.adapter_modules.{lang}.{name}", in_f, out_f, True) for lang in _languages(v)
                 for name, in_f, out_f in (("dense1", h, width), ("dense2", width, h)))


def check_xmod_languages(spec: ModelSpec) -> list[Problem]:
    """nn.ModuleDict refuses a key that is empty or holds a dot: XmodOutput cannot name that language's adapter."""
    bad = [lang for lang in spec.values.get("languages") or () if lang == "" or "." in lang]
    if not bad:
        return []
    return [Problem("error", "LC103", f'"languages": {json.dumps(bad[0])} cannot name an adapter module (an empty '
                                      "name or one with a dot): transformers refuses it",
                    spec.key_span("languages") or spec.span)]


XMOD = {
    "pad_token_id": pad_token(1),
    # (the config's "pre_norm" is a switch; the layout's "pre_norm" is a LayerNorm before the stack, none here)
    "pre_norm_layers": Field(("pre_norm",), False, "bool",
                             doc="LayerNorms before each sub-layer, and one after the stack (encoder.LayerNorm)"),
    "final_norm": fixed(Derived(lambda v: "encoder.LayerNorm" if v["pre_norm_layers"] else None, "pre_norm")),
    "adapter_reduction_factor": Field(("adapter_reduction_factor",), 2,
                                      doc="each adapter's bottleneck is hidden_size divided by this (floored)"),
    "adapter_layer_norm": Field(("adapter_layer_norm",), False, "bool",
                                doc="a LayerNorm of its own before the adapters in every layer"),
    "adapter_reuse_layer_norm": Field(("adapter_reuse_layer_norm",), True, "bool",
                                      doc="the output LayerNorm runs before the adapters (no parameters of its own)"),
    "languages": Field(("languages",), ("en_XX",), "strs", null="reject",
                       doc="one adapter per language in every layer"),
    "layer_linears": fixed(Derived(_xmod_adapters, "dense1 and dense2 per language")),
    "layer_norms": fixed(Derived(lambda v: ("attention.output.LayerNorm", "output.LayerNorm")
                                 + (("output.adapter_layer_norm",) if v["adapter_layer_norm"] else ()),
                                 "adapter_layer_norm")),
}


# --- RoCBERT: pronunciation and shape tables, mapped in beside the word embedding ----------------------------------

def _roc_tables(v) -> tuple:
    # Both tables are built whatever enable_pronunciation and enable_shape say (those only gate their use).
    return (("pronunciation_embed", v["pronunciation_vocab_size"], v["pronunciation_embed_dim"]),
            ("shape_embed", v["shape_vocab_size"], v["shape_embed_dim"]))


def _roc_concat_width(v) -> int:
    """map_inputs_layer's input: the word embedding, and each enabled table's width beside it."""
    return (v["hidden_size"] + (v["pronunciation_embed_dim"] if v["enable_pronunciation"] else 0)
            + (v["shape_embed_dim"] if v["enable_shape"] else 0))


def check_roc_tables_pad(spec: ModelSpec) -> list[Problem]:
    """The pronunciation and shape tables pad with pad_token_id as well: nn.Embedding asserts it lies in their rows."""
    v = spec.values
    pad = v.get("pad_token_id")
    for rows_field, key in (("pronunciation_vocab_size", "pronunciation_vocab_size"),
                            ("shape_vocab_size", "shape_vocab_size")):
        rows = v.get(rows_field)
        if isinstance(pad, int) and isinstance(rows, int) and not -rows <= pad < rows:
            written = "pad_token_id" if "pad_token_id" in spec.origins else "pad_token_id (class default)"
            return [Problem("error", "LC103", f"{written} {pad} is outside the {key} ({rows}) table: its padding "
                                              "index is the pad token, which the embedding refuses",
                            spec.key_span("pad_token_id") or spec.key_span(rows_field) or spec.span)]
    return []


ROC_BERT = {
    "pad_token_id": pad_token(0),
    "enable_pronunciation": Field(("enable_pronunciation",), True, "bool",
                                  doc="the pronunciation embedding joins the input (its table is built either way)"),
    "enable_shape": Field(("enable_shape",), True, "bool",
                          doc="the shape embedding joins the input (its table is built either way)"),
    "pronunciation_embed_dim": Field(("pronunciation_embed_dim",), 768, minimum=0,
                                     doc="width of the pronunciation embedding"),
    "pronunciation_vocab_size": Field(("pronunciation_vocab_size",), 910, minimum=0,
                                      doc="rows of the pronunciation embedding"),
    "shape_embed_dim": Field(("shape_embed_dim",), 512, minimum=0, doc="width of the shape embedding"),
    "shape_vocab_size": Field(("shape_vocab_size",), 24858, minimum=0, doc="rows of the shape embedding"),
    "concat_input": Field(("concat_input",), True, "bool",
                          doc="the embeddings are concatenated and mapped to hidden_size (map_inputs_layer)"),
    "embed_tables": fixed(Derived(_roc_tables, "pronunciation_embed, shape_embed")),
    "embed_projection": fixed(Derived(lambda v: "embeddings.map_inputs_layer" if v["concat_input"] else None,
                                      "concat_input")),
    "embed_projection_always": fixed(True),
    "embed_projection_in": fixed(Derived(_roc_concat_width, "hidden_size + the enabled tables' widths")),
    "pretraining": fixed("mlm"),
}


# --- ModernBERT-Decoder: ModernBERT's fields and layer, q/k/v apart, an LM head and a classifier of their own ------

MODERNBERT = next(f for f in ENCODER_FAMILIES if f.model_type == "modernbert")
MODERNBERT_DECODER = {
    # ModernBertDecoderConfig's pad_token_id is a whole number: it refuses a null.
    "pad_token_id": Field(("pad_token_id",), 50283, "int?", minimum=-(10**9), null="reject",
                          doc="padding token (index into the vocabulary)"),
    # ModernBertDecoderAttention refuses a remainder: heads of hidden_size / num_attention_heads.
    "attn_names": fixed(("attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.Wo")),
    "classifier_bias": Field(("classifier_bias",), False, "bool",
                             doc="biases on the prediction heads' dense layers and the classifier"),
    # The causal-LM head: lm_head.dense and lm_head.norm, then the decoder (tied; a bias where decoder_bias).
    "mlm_names": fixed(("lm_head.dense", "lm_head.norm", "decoder")),
    # The classifier class's transform is its own, named head.
    "classifier_names": fixed(("head.dense", "head.norm")),
    # The tokens a sliding layer attends to; its KV cache keeps local_attention // 2 of them (the config's
    # sliding_window). Sizes no parameter: any value is taken, the cache modelled for a whole number of 2 or more.
    "local_attention": Field(("local_attention",), 128, "any", doc="tokens a sliding-attention layer sees"),
}


FAMILIES: tuple[Family, ...] = (
    # BertGeneration: BERT's layers without token types or a pooler; the decoder class's head is its Linear alone
    # (lm_head.decoder, tied to the word embedding by default) beside a vocabulary bias (lm_head.bias).
    Family("bert-generation", "encoder", "BertGenerationEncoder", merge_fields(TEXT, d(
        vocab_size=50358, hidden_size=1024, num_layers=24, num_heads=16, intermediate_size=4096), {
            "pad_token_id": pad_token(0),
            "type_vocab_size": fixed(0),
            "token_types": fixed(False),
            "pooler": fixed(None),
            "mlm_names": fixed((None, None, "lm_head.decoder")),
        }), {"BertGenerationEncoder": "base", "BertGenerationDecoder": "causal_lm"}, checks=PAD_CHECKS,
           decoder_cache="is_decoder"),
    text_encoder("ernie", "ErnieForMaskedLM", "Ernie", BERT_CLASSES + ("ForNextSentencePrediction",), ERNIE,
                 checks=PAD_CHECKS),
    text_encoder("xmod", "XmodForMaskedLM", "Xmod", ROBERTA_CLASSES, ROBERTA_HEADS, ROBERTA_POSITIONS, XMOD,
                 notes=("X-MOD holds a bottleneck adapter per language in every layer: all of them are counted, "
                        "one runs per token",), checks=(*ROBERTA_PAD_CHECKS, check_xmod_languages)),
    text_encoder("roc_bert", "RoCBertForMaskedLM", "RoCBert", BERT_CLASSES, ROC_BERT,
                 checks=(check_pad_token, check_roc_tables_pad)),
    Family("modernbert-decoder", "encoder", "ModernBertDecoderForCausalLM",
           merge_fields(dict(MODERNBERT.fields), MODERNBERT_DECODER),
           {"ModernBertDecoderModel": "base", "ModernBertDecoderForCausalLM": "causal_lm",
            "ModernBertDecoderForSequenceClassification": "sequence_classification"},
           notes=("ModernBERT-Decoder's rotary positions have no parameters; layer 0's attention norm is an "
                  "nn.Identity",), checks=MODERNBERT.checks, float_keys=MODERNBERT.float_keys, decoder_cache="always"),
)
