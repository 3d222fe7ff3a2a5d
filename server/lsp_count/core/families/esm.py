"""ESM (ESM-2, ESM-1b, ESM-1v): protein language models, BERT-shaped encoders (EsmConfig, modeling_esm.py).

ESM is counted by the encoder layout (``layouts/encoder.py``) with BERT's module names and these differences:
pre-norm layers (``attention.LayerNorm`` before the attention, ``LayerNorm`` before the MLP), a final
``encoder.emb_layer_norm_after``, no token-type table, a position table only where position_embedding_type is
"absolute" (ESM-2's "rotary" has none: its inverse frequencies are a buffer), an embeddings ``layer_norm`` only
where emb_layer_norm_before, and the contact-prediction head every class holds (``contact_head.regression``, a
Linear over num_hidden_layers × num_attention_heads attention maps: the layout's ``attention_map_head``).
The masked-LM head is lm_head.dense, lm_head.layer_norm and a bias-less lm_head.decoder tied to the word
embedding (tie_word_embeddings), beside its own lm_head.bias; the bare model has a pooler (pooler.dense), the
head classes none; the sequence classifier is RoBERTa's (classifier.dense, classifier.out_proj).

ESMFold (``is_folding_model``: EsmForProteinFolding, the ESM-2 stem plus a folding trunk) is not counted: such a
config is refused rather than counted as its stem alone.
"""

from __future__ import annotations

from lsp_count.core.families.common import check_pad_token, pad_token
from lsp_count.core.families.decoders import d, fixed, required
from lsp_count.core.families.encoders import check_pad_in_positions, text_encoder
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Field, ModelSpec


def _position_table(v) -> str | None:
    """EsmEmbeddings builds position_embeddings only where position_embedding_type is "absolute" (not "rotary",
    not any other string, not null)."""
    return "position_embeddings" if v["position_embedding_type"] == "absolute" else None


def check_esm_pad_in_positions(spec: ModelSpec) -> list[Problem]:
    """The absolute position table takes padding_idx=pad_token_id as well (RoBERTa's check); rotary has no table."""
    return check_pad_in_positions(spec) if spec.values.get("position_embedding") else []


def check_not_folding(spec: ModelSpec) -> list[Problem]:
    """is_folding_model true is ESMFold, which lsp-count does not count (not its stem alone either: the file is
    the folding model's)."""
    if spec.values.get("is_folding_model") is not True:
        return []
    return [Problem("error", "LC103",
                    "is_folding_model: true is ESMFold (EsmForProteinFolding: the ESM-2 stem plus a folding trunk), "
                    "which lsp-count does not count; transformers' EsmModel / EsmForMaskedLM built from this config "
                    "would be the stem alone (set is_folding_model to false to count that)",
                    spec.key_span("is_folding_model") or spec.span)]


ESM_CHECKS = (required("vocab_size", "vocab_size", "EsmConfig's vocab_size defaults to None: ESM-2's is 33"),
              check_pad_token, check_esm_pad_in_positions, check_not_folding)


FAMILIES = (
    text_encoder("esm", "EsmForMaskedLM", "Esm",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"),
                 d(max_positions=1026),
                 {
                     # EsmConfig: vocab_size has no default (None), which the word embedding cannot be built with.
                     "vocab_size": Field(("vocab_size",), None, "int?",
                                         doc="tokens in the vocabulary: rows of the word embedding (ESM-2: 33)"),
                     "pad_token_id": pad_token(None),
                     "max_positions": Field(("max_position_embeddings",), 1026,
                                            doc="longest sequence (rows of the position table where absolute)"),
                     "position_embedding_type": Field(("position_embedding_type",), "absolute", "str",
                                                      doc='"absolute" (a learned position table) or "rotary" '
                                                          "(no parameters)"),
                     "position_embedding": fixed(Derived(_position_table, 'position_embedding_type "absolute"')),
                     # EsmConfig keeps a null of these: the model reads None as false.
                     "emb_layer_norm_before": Field(("emb_layer_norm_before",), None, "bool", null="false",
                                                    doc="a LayerNorm on the embeddings (ESM-1b)"),
                     "embed_norm": fixed(Derived(lambda v: "layer_norm" if v["emb_layer_norm_before"] else None,
                                                 "emb_layer_norm_before")),
                     "is_decoder": Field(("is_decoder",), False, "bool", null="false"),
                     "add_cross_attention": Field(("add_cross_attention",), False, "bool", null="false",
                                                  doc="a cross-attention block in every layer"),
                     "is_folding_model": Field(("is_folding_model",), False, "bool", null="false",
                                               doc="ESMFold (EsmForProteinFolding), which lsp-count does not count"),
                     "type_vocab_size": fixed(0),
                     "token_types": fixed(False),
                     "layer_norms": fixed(("attention.LayerNorm", "LayerNorm")),
                     "cross_norm": fixed("crossattention.LayerNorm"),
                     "final_norm": fixed("encoder.emb_layer_norm_after"),
                     "attention_map_head": fixed("contact_head.regression"),
                     "classifier": fixed("dense"),
                     "mlm_names": fixed(("lm_head.dense", "lm_head.layer_norm", "lm_head.decoder")),
                     "decoder_bias": fixed(False),
                 },
                 notes=("ESM's every class holds the contact-prediction head (a Linear over num_hidden_layers × "
                        "num_attention_heads attention maps); rotary ESM (ESM-2) has no position table",),
                 checks=ESM_CHECKS),
)
