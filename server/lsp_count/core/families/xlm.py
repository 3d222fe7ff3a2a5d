"""XLM and FlauBERT (XLM's architecture under its own config class) on the encoder layout: a word, a position and
(with several languages) a language table, a LayerNorm on the embeddings, post-norm layers kept in parallel lists
(attentions.N.q_lin, layer_norm1.N, ffns.N.lin1, layer_norm2.N) whose MLP is 4 × emb_dim wide, no pooler, and heads
of their own: the LM head's projection (tied to the word table), a SequenceSummary classifier, and an XLNet-style
SQuAD head.

Defaults are transformers 5.25's config classes' (XLMConfig's and FlaubertConfig's are the same). FlauBERT's
pre_norm moves the same LayerNorms before each sub-layer and its layerdrop skips layers: neither changes a parameter.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS, check_pad_token
from lsp_count.core.families.decoders import HEAD_DIM, fixed, merge_fields
from lsp_count.core.families.encoders import NO_CROSS_ATTENTION, TEXT
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec


def _language_table(v) -> tuple:
    """lang_embeddings: one row per language, only where there are several and use_lang_emb."""
    return (("lang_embeddings", v["n_langs"], v["hidden_size"]),) if v["n_langs"] > 1 and v["use_lang_emb"] else ()


XLM: dict[str, Field] = merge_fields(TEXT, {
    # XLMConfig.attribute_map: hidden_size -> emb_dim, num_attention_heads -> n_heads, num_hidden_layers ->
    # n_layers, n_words -> vocab_size, pad_index -> pad_token_id.
    "vocab_size": Field(("vocab_size", "n_words"), 30145, doc=TEXT["vocab_size"].doc),
    "hidden_size": Field(("emb_dim", "hidden_size"), 2048, doc=TEXT["hidden_size"].doc),
    "num_layers": Field(("n_layers", "num_hidden_layers"), 12, doc=TEXT["num_layers"].doc),
    "num_heads": Field(("n_heads", "num_attention_heads"), 16, doc=TEXT["num_heads"].doc),
    "head_dim": fixed(HEAD_DIM),  # MultiHeadAttention asserts emb_dim % n_heads == 0
    # TransformerFFN is 4 × emb_dim wide: the config has no key for it.
    "intermediate_size": fixed(Derived(lambda v: 4 * v["hidden_size"], "4 × emb_dim")),
    "pad_token_id": Field(("pad_token_id", "pad_index"), 2, "int?", minimum=-(10**9),
                          doc="padding token (index into the vocabulary)"),
    "n_langs": Field(("n_langs",), 1, minimum=0, doc="languages: a language embedding where more than one"),
    "use_lang_emb": Field(("use_lang_emb",), True, "bool", doc="a language embedding table (with n_langs > 1)"),
    # Sinusoidal positions are still the nn.Embedding parameter (filled at init, trainable).
    "sinusoidal_embeddings": Field(("sinusoidal_embeddings",), False, "bool"),
    "is_encoder": Field(("is_encoder",), True, "bool", doc="XLMModel refuses false (encoder use only)"),
    "asm": Field(("asm",), False, "bool", doc="an adaptive softmax for the LM head (not counted: refused there)"),
    "summary_type": Field(("summary_type",), "first", "str", null="reject",
                          doc='how the classifiers pool ("attn" is refused)'),
    "summary_use_proj": Field(("summary_use_proj",), True, "bool", doc="a Linear in the sequence summary"),
    "summary_proj_to_labels": Field(("summary_proj_to_labels",), True, "bool",
                                    doc="the summary's Linear outputs num_labels values (else emb_dim)"),
    **LABEL_FIELDS,
    "type_vocab_size": fixed(0),
    "token_types": fixed(False),
    **NO_CROSS_ATTENTION,
    "word_embedding": fixed("embeddings"),
    "embed_tables": fixed(Derived(_language_table, "lang_embeddings where n_langs > 1 and use_lang_emb")),
    "embed_norm": fixed("layer_norm_emb"),
    "attn_names": fixed(("attentions.q_lin", "attentions.k_lin", "attentions.v_lin", "attentions.out_lin")),
    "mlp_names": fixed(("ffns.lin1", "ffns.lin2")),
    "layer_norms": fixed(("layer_norm1", "layer_norm2")),
    "pooler": fixed(None),
    # The LM head is pred_layer.proj alone (tied to the word table: its bias is left), no transform.
    "mlm_names": fixed((None, None, "pred_layer.proj")),
    "mlm_bias_param": fixed(False),
    "classifier": fixed("summary"),
    "multiple_choice": fixed("summary_logits"),
    "squad_head": fixed("qa_outputs"),
})


def check_xlm(spec: ModelSpec) -> list[Problem]:
    """What XLMModel and its heads refuse: is_encoder false (NotImplementedError), summary_type "attn" in the
    classifiers' SequenceSummary; and the adaptive-softmax LM head, which lsp-count does not count."""
    v = spec.values
    if v.get("is_encoder") is False:
        return [Problem("error", "LC103", f"is_encoder false: {spec.architecture} can only be used as an encoder "
                                          "(transformers raises NotImplementedError)",
                        spec.key_span("is_encoder") or spec.span)]
    if spec.head in ("sequence_classification", "multiple_choice") and v.get("summary_type") == "attn":
        return [Problem("error", "LC103", f'summary_type "attn" is not implemented: {spec.architecture} refuses it',
                        spec.key_span("summary_type") or spec.span)]
    if spec.head == "causal_lm" and v.get("asm"):
        return [Problem("error", "LC103", f"asm: {spec.architecture}'s adaptive-softmax head "
                                          "(nn.AdaptiveLogSoftmaxWithLoss over asm_cutoffs) is not counted by "
                                          "lsp-count", spec.key_span("asm") or spec.span)]
    return []


# FlauBERT's config class declares pad_index as a field of its own before pad_token_id, which the attribute_map
# sends it to: pad_token_id (given or its default) then overwrites it, so pad_index is never read (a whole number:
# a null is refused).
FLAUBERT: dict[str, Field] = merge_fields(XLM, {
    "pad_token_id": Field(("pad_token_id",), 2, "int?", minimum=-(10**9), doc="padding token (index into the vocabulary)"),
    "pad_index": Field(("pad_index",), 2, "int", minimum=-(10**9), null="reject",
                       doc="overwritten by pad_token_id (FlaubertConfig sets both)"),
})


def _xlm_family(model_type: str, prefix: str, fields: dict[str, Field]) -> Family:
    heads = {"Model": "base", "WithLMHeadModel": "causal_lm", "ForSequenceClassification": "sequence_classification",
             "ForMultipleChoice": "multiple_choice", "ForTokenClassification": "token_classification",
             "ForQuestionAnsweringSimple": "question_answering", "ForQuestionAnswering": "squad_question_answering"}
    return Family(model_type, "encoder", f"{prefix}WithLMHeadModel", fields,
                  {prefix + suffix: head for suffix, head in heads.items()}, checks=(check_pad_token, check_xlm),
                  # (an n_heads written through its alias is not validated: 16.0 builds, emb_dim % 16.0 == 0)
                  float_keys=("num_attention_heads",), decoder_cache="per_forward")


FAMILIES: tuple[Family, ...] = (
    _xlm_family("xlm", "XLM", XLM),
    _xlm_family("flaubert", "Flaubert", FLAUBERT),
)
