"""More of BERT's relatives on the encoder layout: I-BERT (RoBERTa with quantisation-aware modules), LayoutLM (BERT
with 2-D position tables for the tokens' boxes) and Splinter (BERT with a question-aware span selection head).

Defaults are transformers 5.25's config classes'. See encoders.py for the BERT-shaped switches these rows set.
"""

from __future__ import annotations

from lsp_count.core.families.common import pad_token
from lsp_count.core.families.decoders import fixed
from lsp_count.core.families.encoders import PAD_CHECKS, ROBERTA_HEADS, text_encoder
from lsp_count.core.spec import Derived, Field

# None of these layers builds a cross-attention block, whatever is_decoder and add_cross_attention say.
NO_CROSS_ATTENTION = {"is_decoder": fixed(False), "add_cross_attention": fixed(False)}


# --- I-BERT: RoBERTa's parameters; its QuantLinear / QuantEmbedding / IntLayerNorm add buffers alone --------------

IBERT = {
    **NO_CROSS_ATTENTION,
    # QuantEmbedding keeps padding_idx without nn.Embedding's range check: any pad_token_id builds.
    "pad_token_id": pad_token(1),
}


# --- LayoutLM: BERT, four 2-D position tables, and the pooler in every class ---------------------------------------

def _box_tables(v) -> tuple:
    rows, h = v["max_2d_positions"], v["hidden_size"]
    return tuple((f"{axis}_position_embeddings", rows, h) for axis in ("x", "y", "h", "w"))


LAYOUTLM = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(0),
    "max_2d_positions": Field(("max_2d_position_embeddings",), 1024, minimum=0,
                              doc="rows of each of the four 2-D position tables (x, y, height, width)"),
    "embed_tables": fixed(Derived(_box_tables, "x/y/h/w_position_embeddings")),
    # Every head class builds LayoutLMModel with its pooler (masked-LM, token classification, QA too).
    "pooler_in_every_class": fixed(True),
}


# --- Splinter: BERT without a pooler; the QA and pre-training classes end in the span selection head ------------

SPLINTER = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(0),
    "pooler": fixed(None),
    "span_selection": fixed("splinter_qass"),
    # No class has an output embedding to tie, and SplinterConfig does not declare the key: any value builds.
    "tie_embeddings": Field(("tie_word_embeddings",), True, "any", doc="nothing to tie: Splinter has no LM head"),
}


FAMILIES = (
    text_encoder("ibert", "IBertForMaskedLM", "IBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForMultipleChoice"), ROBERTA_HEADS, IBERT,
                 notes=("I-BERT's quantisation state (integer weights, scaling factors, activation ranges) is "
                        "buffers, not parameters",)),
    text_encoder("layoutlm", "LayoutLMForMaskedLM", "LayoutLM",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering"), LAYOUTLM, checks=PAD_CHECKS),
    text_encoder("splinter", "SplinterForQuestionAnswering", "Splinter",
                 ("Model", "ForQuestionAnswering", "ForPreTraining"), SPLINTER, checks=PAD_CHECKS),
)
