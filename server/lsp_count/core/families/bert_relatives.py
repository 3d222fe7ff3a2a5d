"""More of BERT's relatives on the encoder layout: I-BERT (RoBERTa with quantisation-aware modules), LayoutLM (BERT
with 2-D position tables for the tokens' boxes), Splinter (BERT with a question-aware span selection head),
SqueezeBERT (BERT whose layer projections are grouped 1×1 convolutions), Longformer (RoBERTa with a second query, key
and value projection per layer for its global tokens), BigBird (BERT with block-sparse attention, a bare nn.Linear
pooler in every class but question answering, a feed-forward in its question-answering head), ConvBERT
(ELECTRA-shaped, with span-based dynamic convolution beside half-width attention heads), Nyströmformer and YOSO (BERT
with a depthwise convolution over each head's values), MRA (YOSO's parameters without the convolution), TAPAS (BERT
with a token-type table per table feature, cell selection and aggregation heads) and MobileBERT (bottleneck layers
with stacked feed-forwards, trigram embeddings, an MLM head over a widened output embedding).

Defaults are transformers 5.25's config classes'. See encoders.py for the BERT-shaped switches these rows set.
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.families.common import (BIG_BIRD_ATTENTION_TYPE, check_big_bird_attention, pad_token,
                                            window_per_layer_check)
from lsp_count.core.families.decoders import FLOOR_HEADS, d, fixed
from lsp_count.core.families.encoders import (FACTORISED, NO_CROSS_ATTENTION, PAD_CHECKS, POSITIONS_UP_TO_MAX,
                                              ROBERTA_CLASSES, ROBERTA_HEADS, ROBERTA_PAD_CHECKS, ROBERTA_POSITIONS,
                                              _summary_fields, check_summary_type, text_encoder)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Field, ModelSpec

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


# --- MobileBERT: narrow (bottleneck) layers with stacked FFNs inside a hidden-wide residual stream ---------------

def _inner_width(v) -> int:
    """MobileBertConfig's true_hidden_size: intra_bottleneck_size with the bottleneck, else hidden_size."""
    return v["intra_bottleneck_size"] if v["use_bottleneck"] else v["hidden_size"]


def _mobilebert_tables(v) -> tuple:
    # The position and token-type tables are hidden_size wide, the word embedding embedding_size wide.
    return (("position_embeddings", v["max_positions"], v["hidden_size"]),
            ("token_type_embeddings", v["type_vocab_size"], v["hidden_size"]))


def check_mobilebert(spec: ModelSpec) -> list[Problem]:
    """What MobileBERT's classes refuse as they are built: a normalization_type NORM2FN has no entry for (KeyError),
    heads of no width (int(true_hidden_size / heads) = 0: its scaling 0 ** -0.5 raises) and, in the classes with an
    MLM head, an embedding_size above hidden_size (its extra output columns, hidden − embedding_size, would be a
    negative width)."""
    v = spec.values
    kind = v.get("normalization_type")
    if kind not in ("layer_norm", "no_norm"):
        return [Problem("error", "LC103", f'"normalization_type": {kind!r} is neither "layer_norm" nor "no_norm", '
                                          f"the two {spec.architecture} builds", spec.key_span("normalization_type") or spec.span)]
    if v.get("head_dim") == 0:
        return [Problem("error", "LC103", f"{v.get('num_heads')} attention heads over {_inner_width(v)} values "
                                          "(true_hidden_size) are 0 wide each, which MobileBERT's attention refuses",
                        spec.key_span("num_heads") or spec.span)]
    if spec.head in ("masked_lm", "pretraining") and v["embedding_size"] > v["hidden_size"]:
        return [Problem("error", "LC103", f"embedding_size {v['embedding_size']} is above hidden_size {v['hidden_size']}: "
                                          f"{spec.architecture}'s MLM head builds a Linear hidden − embedding_size wide",
                        spec.key_span("embedding_size") or spec.span)]
    return []


MOBILEBERT = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(0),
    # Its position table is one of its hidden-wide tables (_mobilebert_tables): the longest sequence is its rows.
    "position_limit": POSITIONS_UP_TO_MAX,
    "embedding_size": Field(("embedding_size",), 128, doc="width of the word embedding"),
    "trigram_input": Field(("trigram_input",), True, "bool",
                           doc="each token's embedding is concatenated with its neighbours' (3 × embedding_size in)"),
    "use_bottleneck": Field(("use_bottleneck",), True, "bool", doc="layers run at intra_bottleneck_size"),
    "intra_bottleneck_size": Field(("intra_bottleneck_size",), 128, doc="inner width of each layer (with use_bottleneck)"),
    "use_bottleneck_attention": Field(("use_bottleneck_attention",), False, "bool",
                                      doc="the value projection reads the bottleneck's output, not hidden_size"),
    "key_query_shared_bottleneck": Field(("key_query_shared_bottleneck",), True, "bool",
                                         doc="a second bottleneck Linear for the query and key"),
    "num_feedforward_networks": Field(("num_feedforward_networks",), 4, minimum=0, doc="feed-forwards per layer"),
    "normalization_type": Field(("normalization_type",), "no_norm", "str", null="reject",
                                doc='"no_norm" (an elementwise weight and bias) or "layer_norm"'),
    "classifier_activation": Field(("classifier_activation",), True, "bool", doc="the pooler's dense layer and tanh"),
    # MobileBertSelfAttention: int(true_hidden_size / heads) wide heads, any head count.
    **FLOOR_HEADS,
    "head_dim": fixed(Derived(lambda v: _inner_width(v) // v["num_heads"], "true_hidden_size / num_attention_heads")),
    "position_embedding": fixed(None),
    "token_types": fixed(False),
    "embed_tables": fixed(Derived(_mobilebert_tables, "position and token-type tables hidden_size wide")),
    "embed_norm_hidden": fixed(True),
    "embed_projection": fixed("embeddings.embedding_transformation"),
    "embed_projection_always": fixed(True),
    "embed_projection_in": fixed(Derived(lambda v: v["embedding_size"] * (3 if v["trigram_input"] else 1),
                                         "embedding_size × 3 with trigram_input")),
    "bottleneck_layers": fixed(True),
    "pooler": fixed(Derived(lambda v: "dense" if v["classifier_activation"] else None, "classifier_activation")),
    "mlm_output_extension": fixed("cls.predictions.dense"),
}


# --- SqueezeBERT: BERT's layer with grouped 1x1 convolutions in place of its Linears --------------------------------

_SQUEEZE_GROUPS = (("attention.query", "q_groups"), ("attention.key", "k_groups"), ("attention.value", "v_groups"),
                   ("post_attention.conv1d", "post_attention_groups"), ("intermediate.conv1d", "intermediate_groups"),
                   ("output.conv1d", "output_groups"))


def check_squeezebert(spec: ModelSpec) -> list[Problem]:
    """SqueezeBertEncoder asserts embedding_size == hidden_size (the default 768 is not derived from hidden_size), and
    nn.Conv1d refuses groups that do not divide its input and output channels."""
    v = spec.values
    if v.get("embedding_size") != v.get("hidden_size"):
        return [Problem("error", "LC103", f"embedding_size {v.get('embedding_size')} is not hidden_size "
                                          f"{v.get('hidden_size')}: SqueezeBERT's encoder asserts they are equal "
                                          "(embedding_size defaults to 768 whatever hidden_size is)",
                        spec.key_span("embedding_size") or spec.key_span("hidden_size") or spec.span)]
    h, f = v.get("hidden_size"), v.get("intermediate_size")
    for path, key in _SQUEEZE_GROUPS:
        groups = v.get(key)
        channels = (h, f) if path in ("intermediate.conv1d", "output.conv1d") else (h,)
        if isinstance(groups, int) and groups >= 1 and any(isinstance(c, int) and c % groups for c in channels):
            return [Problem("error", "LC103", f"{key} {groups} does not divide the channels of {path} "
                                              f"({' and '.join(map(str, channels))}): nn.Conv1d refuses it",
                            spec.key_span(key) or spec.span)]
    return []


SQUEEZEBERT = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(0),
    "embedding_size": Field(("embedding_size",), 768, doc="width of the embeddings (must equal hidden_size)"),
    **{key: Field((key,), default, doc=f"groups of the {path} 1×1 convolution")
       for (path, key), default in zip(_SQUEEZE_GROUPS, (4, 4, 4, 1, 4, 4))},
    "conv_linears": fixed(Derived(lambda v: tuple((path, v[key]) for path, key in _SQUEEZE_GROUPS),
                                  "each projection's groups")),
    "attn_names": fixed(("attention.query", "attention.key", "attention.value", "post_attention.conv1d")),
    "mlp_names": fixed(("intermediate.conv1d", "output.conv1d")),
    "layer_norms": fixed(("post_attention.layernorm", "output.layernorm")),
    # SqueezeBertModel always builds its pooler: every head class has it.
    "pooler_in_every_class": fixed(True),
}


# --- ConvBERT: ELECTRA's factorised embeddings and heads; attention heads of half width beside a span-based dynamic
# convolution (a separable Conv1d, a kernel generator and a convolution output projection) --------------------------

def _conv_heads(v) -> int:
    """ConvBertSelfAttention's head count: num_attention_heads // head_ratio, 1 where that is below 1."""
    return max(1, v["num_heads"] // v["head_ratio"]) if v["head_ratio"] else 1


def _conv_width(v) -> int:
    """all_head_size: the heads × ((hidden_size // heads) // 2), half the width of plain heads."""
    heads = _conv_heads(v)
    return heads * ((v["hidden_size"] // heads) // 2)


def _conv_attention_linears(v) -> tuple:
    width, kernel = _conv_width(v), v["conv_kernel_size"]
    return (("attention.self.conv_kernel_layer", width, _conv_heads(v) * kernel, True),
            ("attention.self.conv_out_layer", v["hidden_size"], width, True))


def _conv_attention_params(v) -> tuple:
    # SeparableConv1D: a depthwise Conv1d (hidden channels, one group each, no bias), a pointwise one to all_head_size
    # (no bias), and a bias parameter of all_head_size × 1.
    h, width = v["hidden_size"], _conv_width(v)
    return (("attention.self.key_conv_attn_layer.depthwise.weight", (h, 1, v["conv_kernel_size"]), "conv"),
            ("attention.self.key_conv_attn_layer.pointwise.weight", (width, h, 1), "conv"),
            ("attention.self.key_conv_attn_layer.bias", (width, 1), "bias"))


def check_convbert(spec: ModelSpec) -> list[Problem]:
    """ConvBertSelfAttention divides by head_ratio (0 raises ZeroDivisionError) and refuses a hidden_size its own head
    count (num_attention_heads // head_ratio, at least 1) does not divide."""
    v = spec.values
    ratio, h, heads = v.get("head_ratio"), v.get("hidden_size"), v.get("num_heads")
    if ratio == 0:
        return [Problem("error", "LC103", "head_ratio 0: ConvBERT's attention divides num_attention_heads by it",
                        spec.key_span("head_ratio") or spec.span)]
    if all(type(n) is int for n in (ratio, h, heads)) and h % _conv_heads(v):
        return [Problem("error", "LC103", f"ConvBERT's {_conv_heads(v)} attention heads (num_attention_heads {heads} "
                                          f"// head_ratio {ratio}) do not divide hidden_size {h}: its attention "
                                          "refuses it", spec.key_span("num_heads") or spec.span)]
    return []


CONVBERT = {
    **FACTORISED,
    **_summary_fields(declared=False),
    "pad_token_id": pad_token(1),
    "embedding_size": Field(("embedding_size",), 768,
                            doc="width of the factorised embedding (projected up to hidden_size where it differs)"),
    "head_ratio": Field(("head_ratio",), 2, minimum=-(10**9),
                        doc="num_attention_heads // head_ratio heads attend; the convolution takes the other half"),
    "conv_kernel_size": Field(("conv_kernel_size",), 9, minimum=0, doc="span of the dynamic convolution"),
    "num_groups": Field(("num_groups",), 1, doc="groups of the feed-forward's grouped linears (1: plain Linears)"),
    "head_dim": fixed(Derived(lambda v: (v["hidden_size"] // _conv_heads(v)) // 2,
                              "(hidden_size // (num_attention_heads // head_ratio)) // 2")),
    "attn_width": fixed(Derived(_conv_width, "all_head_size")),
    "attn_extra": fixed(Derived(_conv_attention_linears, "conv_kernel_layer, conv_out_layer")),
    "attn_params": fixed(Derived(_conv_attention_params, "key_conv_attn_layer")),
    "grouped_linears": fixed(Derived(lambda v: (("intermediate.dense", v["num_groups"]), ("output.dense", v["num_groups"]))
                                     if v["num_groups"] > 1 else (), "num_groups > 1")),
    # The generator's MLM head (ELECTRA's): hidden → embedding_size, LayerNorm, then the vocabulary.
    "mlm_names": fixed(("generator_predictions.dense", "generator_predictions.LayerNorm", "generator_lm_head")),
    "mlm_bias_param": fixed(False),
}


# --- Nyströmformer: BERT's layer (landmark attention has no parameters) with a depthwise Conv2d on the values -------

def check_nystromformer(spec: ModelSpec) -> list[Problem]:
    """NystromformerSelfAttention reads config["inv_init_coeff_option"] where inv_coeff_init_option is true: the config
    is not subscriptable (TypeError)."""
    if spec.values.get("inv_coeff_init_option"):
        return [Problem("error", "LC103", f"inv_coeff_init_option true: {spec.architecture}'s attention then indexes "
                                          "its config (config[...]), which transformers cannot do",
                        spec.key_span("inv_coeff_init_option") or spec.span)]
    return []


NYSTROMFORMER = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(1),
    "conv_kernel_size": Field(("conv_kernel_size",), 65, minimum=0, doc="rows of each head's depthwise value convolution"),
    "inv_coeff_init_option": Field(("inv_coeff_init_option",), False, "bool",
                                   doc="the pseudo-inverse's initial coefficients (true fails in transformers)"),
    # The position table has two rows beyond max_position_embeddings (positions start at 2): the longest sequence
    # is max_position_embeddings (its position_ids buffer holds that many).
    "position_embedding": fixed(None),
    "position_limit": POSITIONS_UP_TO_MAX,
    "token_types": fixed(False),
    "embed_tables": fixed(Derived(lambda v: (("position_embeddings", v["max_positions"] + 2, v["hidden_size"]),
                                             ("token_type_embeddings", v["type_vocab_size"], v["hidden_size"])),
                                  "max_position_embeddings + 2 positions, the token types")),
    # nn.Conv2d(heads, heads, (kernel, 1), groups=heads, bias=False).
    "attn_params": fixed(Derived(lambda v: (("attention.self.conv.weight", (v["num_heads"], 1, v["conv_kernel_size"], 1),
                                             "conv"),), "the value convolution")),
    "pooler": fixed(None),
    "classifier": fixed("dense"),
    "multiple_choice": fixed("pre_classifier"),
    # NystromformerForQuestionAnswering sets num_labels = 2 whatever the config says.
    "qa_labels": fixed(2),
}


# YOSO: Nyströmformer's parameters (its LSH attention has none), the value convolution only where conv_window is given.
YOSO = {
    **{k: f for k, f in NYSTROMFORMER.items() if k not in ("conv_kernel_size", "inv_coeff_init_option")},
    "conv_window": Field(("conv_window",), None, "int?", minimum=0,
                         doc="rows of each head's depthwise value convolution (null: none)"),
    "attn_params": fixed(Derived(lambda v: (("attention.self.conv.weight", (v["num_heads"], 1, v["conv_window"], 1),
                                              "conv"),) if v["conv_window"] is not None else (),
                                 "the value convolution where conv_window is given")),
}


# MRA: YOSO's parameters without the value convolution (its multi-resolution attention has none).
MRA = {k: f for k, f in YOSO.items() if k not in ("conv_window", "attn_params")}


# --- TAPAS: BERT with one token-type table per table feature; its question-answering class selects cells ----------

TAPAS = {
    "pad_token_id": pad_token(0),
    "type_vocab_sizes": Field(("type_vocab_sizes",), (3, 256, 256, 2, 256, 256, 10), "ints", null="reject",
                              doc="rows of each token-type table (segment, column, row, rank, ...): one table each"),
    "type_vocab_size": fixed(0),
    "token_types": fixed(False),
    "embed_tables": fixed(Derived(lambda v: tuple((f"token_type_embeddings_{i}", rows, v["hidden_size"])
                                                  for i, rows in enumerate(v["type_vocab_sizes"])),
                                  "token_type_embeddings_0, _1, ... (type_vocab_sizes)")),
    "num_aggregation_labels": Field(("num_aggregation_labels",), 0, minimum=-(10**9),
                                    doc="operators the question-answering class's aggregation_classifier predicts "
                                        "(none where 0 or fewer)"),
    "qa_head": fixed("tapas"),
    # Positions restart at each table cell and are clamped to the table's last row: any length runs.
    "positions_clamped": Field(("reset_position_index_per_cell",), True, "bool",
                               doc="positions count from each cell's first token (clamped to the table)"),
}


# --- Longformer: RoBERTa's layers, each attention with query_global, key_global and value_global beside its own -----

LONGFORMER = {
    **NO_CROSS_ATTENTION,
    "pad_token_id": pad_token(1),
    "attention_window": Field(("attention_window",), 512, "any",
                              doc="tokens each token attends to around it, per layer or for all (no parameters)"),
    # LongformerSelfAttention: the global tokens' query, key and value, each hidden × hidden with a bias.
    "attn_extra": fixed(Derived(lambda v: tuple((f"attention.self.{name}_global", v["hidden_size"], v["hidden_size"],
                                                  True) for name in ("query", "key", "value")),
                                "query_global, key_global, value_global")),
}


# --- BigBird: BERT's layers (its block-sparse attention has the same projections), the pooler an nn.Linear ---------

BIG_BIRD = {
    "pad_token_id": pad_token(0),
    "qkv_bias": Field(("use_bias",), True, "bool", doc="biases on the query, key and value projections"),
    "attention_type": BIG_BIRD_ATTENTION_TYPE,
    "pooler": fixed("linear"),
    "pooler_in_every_class": fixed("but_question_answering"),
    "classifier": fixed("dense"),
    # BigBirdForQuestionAnswering sets num_labels = 2 whatever the config says.
    "qa_head": fixed("intermediate"),
    "qa_labels": fixed(2),
}


FAMILIES = (
    # I-BERT's layers are QuantLinear (no nn.Linear: bitsandbytes leaves them in the compute dtype); its heads' are nn.Linear.
    replace(text_encoder("ibert", "IBertForMaskedLM", "IBert",
                         ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                          "ForQuestionAnswering", "ForMultipleChoice"), ROBERTA_HEADS, ROBERTA_POSITIONS, IBERT,
                         notes=("I-BERT's quantisation state (integer weights, scaling factors, activation ranges) is "
                                "buffers, not parameters",)),
            unreplaced_linears=("query", "key", "value", "attention.output.dense", "intermediate.dense", "output.dense")),
    text_encoder("layoutlm", "LayoutLMForMaskedLM", "LayoutLM",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering"), LAYOUTLM, checks=PAD_CHECKS),
    text_encoder("splinter", "SplinterForQuestionAnswering", "Splinter",
                 ("Model", "ForQuestionAnswering", "ForPreTraining"), SPLINTER, checks=PAD_CHECKS),
    text_encoder("mobilebert", "MobileBertForMaskedLM", "MobileBert",
                 ("Model", "ForMaskedLM", "ForPreTraining", "ForNextSentencePrediction", "ForSequenceClassification",
                  "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"), MOBILEBERT,
                 d(hidden_size=512, num_layers=24, num_heads=4, intermediate_size=512),
                 checks=(*PAD_CHECKS, check_mobilebert)),
    text_encoder("squeezebert", "SqueezeBertForMaskedLM", "SqueezeBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
                  "ForQuestionAnswering"), SQUEEZEBERT, checks=(*PAD_CHECKS, check_squeezebert)),
    text_encoder("convbert", "ConvBertForMaskedLM", "ConvBert",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
                  "ForQuestionAnswering"), CONVBERT, checks=(check_convbert, check_summary_type, *PAD_CHECKS)),
    text_encoder("nystromformer", "NystromformerForMaskedLM", "Nystromformer",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
                  "ForQuestionAnswering"), d(vocab_size=30000, max_positions=510), NYSTROMFORMER,
                 checks=(check_nystromformer, *PAD_CHECKS)),
    text_encoder("yoso", "YosoForMaskedLM", "Yoso",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
                  "ForQuestionAnswering"), d(vocab_size=50265, max_positions=4096, type_vocab_size=1), YOSO,
                 checks=PAD_CHECKS),
    text_encoder("mra", "MraForMaskedLM", "Mra",
                 ("Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "ForTokenClassification",
                  "ForQuestionAnswering"), d(vocab_size=50265, max_positions=512, type_vocab_size=1), MRA,
                 checks=PAD_CHECKS),
    text_encoder("tapas", "TapasForMaskedLM", "Tapas",
                 ("Model", "ForMaskedLM", "ForQuestionAnswering", "ForSequenceClassification"),
                 d(max_positions=1024), TAPAS, checks=PAD_CHECKS),
    text_encoder("longformer", "LongformerForMaskedLM", "Longformer",
                 tuple(c for c in ROBERTA_CLASSES if c != "ForCausalLM"), ROBERTA_HEADS, ROBERTA_POSITIONS, LONGFORMER,
                 notes=("Longformer's position table has max_position_embeddings rows; its checkpoints set 4098 (4096 "
                        "positions + the padding offset)",),
                 checks=(window_per_layer_check("num_layers", "layer"), *ROBERTA_PAD_CHECKS)),
    text_encoder("big_bird", "BigBirdForMaskedLM", "BigBird",
                 ("Model", "ForPreTraining", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                  "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"),
                 d(vocab_size=50358, max_positions=4096), BIG_BIRD, checks=(check_big_bird_attention, *PAD_CHECKS)),
)
