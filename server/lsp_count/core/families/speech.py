"""Speech encoders: wav2vec 2.0, HuBERT, data2vec-audio, WavLM, UniSpeech, UniSpeech-SAT, SEW, SEW-D and
wav2vec2-conformer (layout "speech_encoder", layouts/speech.py).

A convolutional feature encoder over the raw waveform (one Conv1d per entry of conv_dim; the first normed by a
GroupNorm, or every one by a LayerNorm, per feat_extract_norm), a feature projection (LayerNorm and Linear from
conv_dim[-1] to hidden_size), a weight-normed positional convolution (its weight_g and weight_v), a transformer
encoder (post-norm, or pre-norm where do_stable_layer_norm, whose layers may carry attention adapters), a learned
mask vector where SpecAugment masks anything, an optional convolutional adapter; and the head classes (CTC,
sequence and frame classification, x-vector, pre-training's quantizer). The class defaults are transformers 5.25's
configuration_<wav2vec2|hubert|data2vec_audio|wavlm|unispeech|unispeech_sat|sew|sew_d|wav2vec2_conformer>.py.
Encoders keep no KV cache.

The kin differ in switches (fields no key sets where the family has no such choice): ``feature_projection_norm``
(HuBERT's feat_proj_layer_norm: the projection's LayerNorm), ``pos_conv_layers`` and ``pos_conv_kernel`` (data2vec's
positional embedding is a stack of plain convolutions, each followed by a LayerNorm without parameters),
``pos_conv_weight_norm`` and ``pos_conv_batch_norm`` (HuBERT's conv_pos_batch_norm: a BatchNorm1d before a plain
convolution in place of the weight norm), ``conv_adapter`` (whether the bare model builds the convolutional adapter
add_adapter asks for: HuBERT's CTC head reads add_adapter and output_hidden_size but its model has no adapter), and
``relative_buckets`` (WavLM's gated relative position bias: every layer's gru_rel_pos_const and gru_rel_pos_linear,
layer 0's rel_attn_embed of num_buckets rows; None: none), ``mask_vector_always`` (UniSpeech-SAT's model holds the
mask vector whatever SpecAugment masks) and ``pretraining`` (what the pre-training class holds beside the quantizer:
"contrastive", wav2vec 2.0's; "phonetic_ctc", UniSpeech's; "speaker", UniSpeech-SAT's; layouts/speech.py),
``bare_feature_projection`` (SEW's: the model's own LayerNorm over the feature encoder's output, then a bare Linear
only where conv_dim[-1] differs from hidden_size), ``squeeze_factor`` (SEW's upsampling Linear, hidden →
hidden × squeeze_factor; None: no squeezing), ``conformer_layers`` (wav2vec2-conformer's conformer blocks in place
of the transformer layers) and ``disentangled_layers`` (SEW-D's: DeBERTa-v2's layers with disentangled attention,
built by the encoder layout from the row's DeBERTa fields, under encoder.encoder with the relative-position table, its
LayerNorm and the optional Conv1d beside layer 0; no final LayerNorm). Wav2Vec2-BERT's: ``feature_encoder`` (false:
the model reads feature frames, no convolutions; the projection reads feature_projection_input_dim), ``pos_conv_layers``
0 (no positional convolution), ``encoder_final_norm`` (false: no encoder.layer_norm), ``conformer_conv_norm`` (the
conformer convolution module's norm by name: a BatchNorm1d "batch_norm", or a LayerNorm "depthwise_layer_norm", the
same count), ``adapter_kind`` ("conv": wav2vec 2.0's convolutions; "conformer": Wav2Vec2-BERT's adapter layers of
convolutions, self-attention and a feed-forward) and ``intermediate_ffn`` (a feed-forward before the adapter).
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import HEAD_DIM, fixed
from lsp_count.core.families.encoders import _conv as _deberta_conv
from lsp_count.core.families.encoders import _relative_norm, _relative_rows, _v2_attention_extra
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

_LISTS = ("conv_dim", "conv_stride", "conv_kernel")

FIELDS: dict[str, Field] = {
    "vocab_size": Field(("vocab_size",), 32, "int?", null="none",
                        doc="characters or tokens the CTC head scores (rows of lm_head)"),
    "hidden_size": Field(("hidden_size",), 768, doc="width of the transformer encoder"),
    "num_layers": Field(("num_hidden_layers",), 12, minimum=0, doc="transformer encoder layers (0 builds)"),
    "num_heads": Field(("num_attention_heads",), 12, doc="attention heads per layer"),
    "head_dim": fixed(Derived(lambda v: v["hidden_size"] // v["num_heads"], "hidden_size / num_attention_heads")),
    "heads_divide_hidden": fixed(True),
    # (the config classes do not check the heads; each layer's attention does: no layer, no check)
    "heads_checked_in_layers": fixed(True),
    "intermediate_size": Field(("intermediate_size",), 3072, doc="width of each layer's feed-forward"),
    "feat_extract_norm": Field(("feat_extract_norm",), "group", "str", null="reject",
                               doc='"group": a GroupNorm after the first convolution; "layer": a LayerNorm after each'),
    "conv_dim": Field(("conv_dim",), (512,) * 7, "ints", null="reject",
                      doc="output channels of each feature-encoder convolution"),
    "conv_stride": Field(("conv_stride",), (5, 2, 2, 2, 2, 2, 2), "ints", null="reject",
                         doc="stride of each feature-encoder convolution (as many as conv_dim)"),
    "conv_kernel": Field(("conv_kernel",), (10, 3, 3, 3, 3, 2, 2), "ints", null="reject",
                         doc="kernel width of each feature-encoder convolution (as many as conv_dim)"),
    "conv_bias": Field(("conv_bias",), False, "bool", doc="the feature-encoder convolutions have biases"),
    "pos_conv_kernel": Field(("num_conv_pos_embeddings",), 128, doc="kernel width of the positional convolution"),
    "pos_conv_layers": fixed(1),
    "pos_conv_weight_norm": fixed(True),
    "pos_conv_batch_norm": fixed(False),
    "feature_projection_norm": fixed(True),
    "conv_adapter": fixed(True),
    "relative_buckets": fixed(None),
    "mask_vector_always": fixed(False),
    "bare_feature_projection": fixed(False),
    "squeeze_factor": fixed(None),
    "conformer_layers": fixed(False),
    "disentangled_layers": fixed(False),
    "feature_encoder": fixed(True),
    "encoder_final_norm": fixed(True),
    "conformer_conv_norm": fixed("batch_norm"),
    "adapter_kind": fixed("conv"),
    "intermediate_ffn": fixed(False),
    "pretraining": fixed("contrastive"),
    "num_conv_pos_embedding_groups": Field(("num_conv_pos_embedding_groups",), 16,
                                           doc="groups of the positional convolution (must divide hidden_size)"),
    "do_stable_layer_norm": Field(("do_stable_layer_norm",), False, "bool",
                                  doc="pre-norm encoder layers (the attention adapters live only there)"),
    "mask_time_prob": Field(("mask_time_prob",), 0.05, "float",
                            doc="SpecAugment time masking: above 0, the model holds a learned mask vector"),
    "mask_feature_prob": Field(("mask_feature_prob",), 0.0, "float",
                               doc="SpecAugment feature masking: above 0, the model holds a learned mask vector"),
    "add_adapter": Field(("add_adapter",), False, "bool", doc="a convolutional adapter after the encoder"),
    # (the config class fills hidden_size for a None or a 0: ``output_hidden_size or hidden_size``)
    "output_hidden_size": Field(("output_hidden_size",), None, "int?", minimum=0,
                                doc="the adapter's width (absent, null or 0: hidden_size)"),
    "adapter_kernel_size": Field(("adapter_kernel_size",), 3, doc="kernel width of the adapter's convolutions"),
    "num_adapter_layers": Field(("num_adapter_layers",), 3, minimum=0, doc="the adapter's convolutions"),
    "adapter_attn_dim": Field(("adapter_attn_dim",), None, "int?", minimum=0,
                              doc="width of each pre-norm layer's attention adapter (null: none)"),
    "use_weighted_layer_sum": Field(("use_weighted_layer_sum",), False, "bool",
                                    doc="the classification heads learn a weight per layer output"),
    "classifier_proj_size": Field(("classifier_proj_size",), 256,
                                  doc="the sequence classifier's projection before pooling"),
    "tdnn_dim": Field(("tdnn_dim",), (512, 512, 512, 512, 1500), "ints", null="reject",
                      doc="output width of each TDNN layer of the x-vector head"),
    "tdnn_kernel": Field(("tdnn_kernel",), (5, 3, 3, 1, 1), "ints", null="reject",
                         doc="kernel width of each TDNN layer (at least as many as tdnn_dim)"),
    "xvector_output_dim": Field(("xvector_output_dim",), 512, doc="width of the x-vector embedding"),
    "num_codevectors_per_group": Field(("num_codevectors_per_group",), 320,
                                       doc="entries of each codebook of the pre-training quantizer"),
    "num_codevector_groups": Field(("num_codevector_groups",), 2, doc="codebooks of the pre-training quantizer"),
    "codevector_dim": Field(("codevector_dim",), 256, doc="width of a quantized vector (all groups together)"),
    "proj_codevector_dim": Field(("proj_codevector_dim",), 256,
                                 doc="width pre-training projects hidden states and codevectors to"),
    **LABEL_FIELDS,
}


def check_speech(spec: ModelSpec) -> list[Problem]:
    """What the config class or the model refuses: conv_dim, conv_stride and conv_kernel of unequal lengths
    (validate_architecture), no convolution at all (the feature projection reads conv_dim[-1]), a feat_extract_norm
    other than "group" or "layer", positional-convolution groups that do not divide hidden_size (Conv1d), a
    codevector_dim the codebooks do not divide (the quantizer), a TDNN kernel list shorter than tdnn_dim, and an
    adapter under the classification heads (their classes refuse add_adapter)."""
    v = spec.values
    out: list[Problem] = []

    def refuse(message: str, *fields: str) -> None:
        where = next((spec.key_span(f) for f in fields if spec.key_span(f)), None) or spec.span
        out.append(Problem("error", "LC103", message, where))

    lengths = {name: len(v[name]) for name in _LISTS if isinstance(v.get(name), tuple)}  # type: ignore[arg-type]
    if len(set(lengths.values())) > 1:
        said = ", ".join(f"{n} {k}" for n, k in lengths.items())
        refuse(f"conv_dim, conv_stride and conv_kernel must be as long as each other ({said}): transformers' "
               "config class refuses them", *_LISTS)
    elif lengths.get("conv_dim") == 0:
        refuse("conv_dim is empty: the feature projection reads its last entry, and the model cannot be built",
               "conv_dim")
    elif lengths.get("conv_dim") and v.get("feat_extract_norm") == "group" and not v["conv_dim"][0]:  # type: ignore[index]
        refuse("conv_dim[0] is 0: the GroupNorm after the first convolution would have 0 groups, which torch refuses",
               "conv_dim")
    if v["feature_encoder"] and v.get("feat_extract_norm") not in ("group", "layer"):
        refuse(f'feat_extract_norm {v.get("feat_extract_norm")!r} is neither "group" nor "layer": the feature '
               "encoder refuses it", "feat_extract_norm")
    hidden, groups = v.get("hidden_size"), v.get("num_conv_pos_embedding_groups")
    # (data2vec-audio's num_conv_pos_embeddings of 0 makes no positional convolution to refuse them)
    if isinstance(hidden, int) and isinstance(groups, int) and hidden % groups and v.get("pos_conv_layers"):
        refuse(f"num_conv_pos_embedding_groups ({groups}) does not divide hidden_size ({hidden}): the positional "
               "convolution (Conv1d) refuses it", "num_conv_pos_embedding_groups", "hidden_size")
    if spec.head == "pretraining" and v["codevector_dim"] % v["num_codevector_groups"]:  # type: ignore[operator]
        refuse(f"codevector_dim ({v['codevector_dim']}) is not a multiple of num_codevector_groups "
               f"({v['num_codevector_groups']}): the quantizer refuses it", "codevector_dim", "num_codevector_groups")
    if spec.head == "xvector":
        dims, kernels = v.get("tdnn_dim"), v.get("tdnn_kernel")
        if not dims:
            refuse("tdnn_dim is empty: the x-vector head reads its first entry", "tdnn_dim")
        elif isinstance(kernels, tuple) and len(kernels) < len(dims):  # type: ignore[arg-type]
            refuse(f"tdnn_kernel has {len(kernels)} entries for {len(dims)} TDNN layers (tdnn_dim): the x-vector "  # type: ignore[arg-type]
                   "head cannot be built", "tdnn_kernel", "tdnn_dim")
    if spec.head == "ctc" and v.get("add_adapter") and not v["conv_adapter"] and v.get("output_hidden_size") is None:
        refuse(f"add_adapter is true and output_hidden_size is not given: {spec.architecture}'s head is "
               "output_hidden_size wide then, which its config class does not fill in (transformers cannot build it)",
               "add_adapter", "output_hidden_size")
    for name, used in (("adapter_attn_dim", bool(v["do_stable_layer_norm"])),
                       ("output_hidden_size", spec.head == "ctc" and bool(v.get("add_adapter")))):
        width = v.get(name)
        if used and width is not None and (not isinstance(width, int) or isinstance(width, bool) or width < 0):
            refuse(f"{spec.key_label(name)} {width!r} is not a whole number: {spec.architecture} builds a Linear that "
                   "wide with it, which torch refuses", name)
    if spec.head == "ctc" and v.get("vocab_size") is None and "vocab_size" not in spec.origins:
        refuse(f"vocab_size is not given and {spec.architecture}'s config class has no default: its CTC head "
               "needs it (transformers cannot build it)", "vocab_size")
    positions = v.get("position_embeddings_type") if v["conformer_layers"] else None
    hidden_size = v.get("hidden_size")
    # (a width of 1 builds: its one sine column broadcasts into the zero cosine columns)
    if positions == "relative" and isinstance(hidden_size, int) and hidden_size % 2 and hidden_size > 1:
        refuse(f"hidden_size ({hidden_size}) is odd: 2 does not divide it, which the relative position encoding "
               "(sines and cosines in alternate columns) needs", "hidden_size", "position_embeddings_type")
    kernel = v.get("conv_depthwise_kernel_size")
    if v["conformer_layers"] and v.get("num_layers") and isinstance(kernel, int) and (kernel - 1) % 2:
        refuse(f"conv_depthwise_kernel_size ({kernel}) is even: the conformer's convolution module refuses it "
               "(it pads for an odd one)", "conv_depthwise_kernel_size")
    if spec.head in ("sequence_classification", "audio_frame_classification") and v.get("add_adapter"):
        refuse(f"{spec.architecture} does not take an adapter (add_adapter true): its class refuses it",
               "add_adapter")
    return out


def speech(model_type: str, prefix: str, heads: tuple[str, ...], *overrides: dict[str, Field],
           without: tuple[str, ...] = (), notes: tuple[str, ...] = (), checks: tuple = ()) -> Family:
    """A speech-encoder row: its head classes are ``<prefix><suffix>``; ``without``: the fields its config class
    does not have (none of its classes reads them); ``checks``: the family's own, after check_speech."""
    fields = {name: f for name, f in FIELDS.items() if name not in without}
    for o in overrides:
        fields.update(o)
    return Family(model_type, "speech_encoder", f"{prefix}ForCTC", fields,
                  {f"{prefix}{suffix}": HEADS[suffix] for suffix in heads}, checks=(check_speech, *checks), notes=notes)


HEADS = {"Model": "base", "ForCTC": "ctc", "ForSequenceClassification": "sequence_classification",
         "ForAudioFrameClassification": "audio_frame_classification", "ForXVector": "xvector",
         "ForPreTraining": "pretraining"}
_QUANTIZER = ("num_codevectors_per_group", "num_codevector_groups", "codevector_dim", "proj_codevector_dim")
_XVECTOR = ("tdnn_dim", "tdnn_kernel", "xvector_output_dim")
# (wav2vec 2.0's config class alone takes a null vocab_size: its CTC head then refuses it)
_STRICT_VOCAB = {"vocab_size": Field(("vocab_size",), 32, doc=FIELDS["vocab_size"].doc)}

# Kin whose config class declares neither add_adapter nor adapter_attn_dim, but keeps them where a file writes them,
# and whose classes read them: the pre-norm layers' attention adapters, the CTC head's width (no convolutional
# adapter in the model).
_NO_MODEL_ADAPTER = {
    # (undeclared: the class keeps whatever a file writes, a null read as false, a float as a float, which
    # fails only where the model builds with it: check_speech)
    "adapter_attn_dim": Field(("adapter_attn_dim",), None, "any", doc=FIELDS["adapter_attn_dim"].doc),
    "output_hidden_size": Field(("output_hidden_size",), None, "any",
                                doc="the CTC head's width where add_adapter (no default: give it then)"),
    "add_adapter": Field(("add_adapter",), False, "bool", null="false",
                         doc="widens the CTC head to output_hidden_size (the model builds no adapter)"),
    "conv_adapter": fixed(False),
}
_MODEL_ADAPTER = ("adapter_kernel_size", "num_adapter_layers")

def check_sew_d(spec: ModelSpec) -> list[Problem]:
    """What SEW-D's modules refuse among the keys its config class does not declare (read with getattr, kept as a
    file writes them): max_relative_positions not a number (compared with 1 in every attention), a relative-position
    table of a fractional or negative row count (nn.Embedding), conv_kernel_size not a number (compared with 0), or a
    fraction where positive, conv_groups not a positive divisor of hidden_size (Conv1d), a Conv1d asked for without
    hidden_dropout_prob (its ConvLayer reads that key, which SEWDConfig does not have), and, where there are layers,
    an attention_head_size that is not a whole number."""
    v = spec.values
    out: list[Problem] = []

    def refuse(name: str, message: str) -> None:
        written = json.dumps(v.get(name), default=str)
        out.append(Problem("error", "LC103", f'"{spec.key_label(name)}": {written} {message}: {spec.architecture} '
                                             "cannot be built", spec.key_span(name) or spec.span))

    def number(x: object) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    width = v.get("head_dim")
    if v.get("num_layers") and not (isinstance(width, int) and not isinstance(width, bool) and width >= 0):
        refuse("head_dim", "is not a whole number (each layer's query, key and value projections are "
                           "num_attention_heads × attention_head_size wide)")
    relative = v.get("max_relative_positions")
    if v.get("relative_attention") and not number(relative):
        refuse("max_relative_positions", "is not a number (each attention compares it with 1)")
    elif v.get("relative_attention"):
        rows = _relative_rows(v)
        if not isinstance(rows, int) or rows < 0:
            refuse("max_relative_positions", f"makes a relative-position table of {rows!r} rows (2 × "
                                             "max_relative_positions, or max_position_embeddings below 1), which "
                                             "nn.Embedding refuses")
    kernel, groups, hidden = v.get("conv_kernel_size"), v.get("conv_groups"), v.get("hidden_size")
    if not number(kernel) or (kernel > 0 and not isinstance(kernel, int)):  # type: ignore[operator]
        refuse("conv_kernel_size", "is not a whole number (the Conv1d's kernel)")
    elif kernel > 0:  # type: ignore[operator]
        if not (isinstance(groups, int) and not isinstance(groups, bool) and groups >= 1 and isinstance(hidden, int)
                and hidden % groups == 0):
            refuse("conv_groups", f"is not a positive divisor of hidden_size ({hidden}): Conv1d refuses it")
        elif "hidden_dropout_prob" not in spec.origins:
            refuse("conv_kernel_size", "asks for a Conv1d beside the first layer, whose ConvLayer reads "
                                       "hidden_dropout_prob, which the file does not give (SEWDConfig has none)")
    return out


def check_wav2vec2_bert(spec: ModelSpec) -> list[Problem]:
    """Wav2Vec2BertConfig refuses use_intermediate_ffn_before_adapter without add_adapter (validate_architecture)."""
    v = spec.values
    if v.get("intermediate_ffn") and not v.get("add_adapter"):
        return [Problem("error", "LC103", "use_intermediate_ffn_before_adapter is true and add_adapter is not: "
                                          "transformers' config class refuses it",
                        spec.key_span("intermediate_ffn") or spec.key_span("add_adapter") or spec.span)]
    return []


# The conformer blocks' keys that wav2vec2-conformer and Wav2Vec2-BERT share: read to build buffers and the
# depthwise convolution.
CONFORMER_BLOCK_FIELDS = {
    "max_source_positions": Field(("max_source_positions",), 5000, minimum=0,
                                  doc="length of the relative position encoding (a buffer)"),
    "rotary_embedding_base": Field(("rotary_embedding_base",), 10000, minimum=0,
                                   doc="base of the rotary embedding's frequencies (a buffer)"),
    "conv_depthwise_kernel_size": Field(("conv_depthwise_kernel_size",), 31,
                                        doc="kernel width of each conformer block's depthwise convolution (odd)"),
}

FAMILIES: tuple[Family, ...] = (
    speech("wav2vec2", "Wav2Vec2", tuple(HEADS)),
    # HuBERT: wav2vec 2.0's model without the quantizer, the x-vector and frame heads or the convolutional adapter
    # (its config class declares neither add_adapter nor adapter_attn_dim, but keeps them where a file writes
    # them, and its classes read them); the projection's LayerNorm may go, and a BatchNorm1d may replace the weight
    # norm of the positional convolution.
    speech("hubert", "Hubert", ("Model", "ForCTC", "ForSequenceClassification"),
           {"feature_projection_norm": Field(("feat_proj_layer_norm",), True, "bool",
                                             doc="a LayerNorm before the feature projection"),
            "pos_conv_batch_norm": Field(("conv_pos_batch_norm",), False, "bool",
                                         doc="a BatchNorm1d before a plain positional convolution, in place of its "
                                             "weight norm"),
            "pos_conv_weight_norm": fixed(Derived(lambda v: not v["pos_conv_batch_norm"], "not conv_pos_batch_norm")),
            **_NO_MODEL_ADAPTER},
           _STRICT_VOCAB, without=(*_QUANTIZER, *_XVECTOR, *_MODEL_ADAPTER)),
    # data2vec-audio: a LayerNorm after every feature convolution, a stack of num_conv_pos_embeddings plain
    # positional convolutions conv_pos_kernel_size wide, post-norm layers only (no attention adapters).
    speech("data2vec-audio", "Data2VecAudio", ("Model", "ForCTC", "ForSequenceClassification",
                                               "ForAudioFrameClassification", "ForXVector"),
           {"feat_extract_norm": fixed("layer"), "do_stable_layer_norm": fixed(False), "adapter_attn_dim": fixed(None),
            "pos_conv_layers": Field(("num_conv_pos_embeddings",), 5, minimum=0,
                                     doc="positional convolutions, one after another"),
            "pos_conv_kernel": Field(("conv_pos_kernel_size",), 19, doc="kernel width of each positional convolution"),
            "pos_conv_weight_norm": fixed(False)},
           _STRICT_VOCAB, without=_QUANTIZER),
    # WavLM: wav2vec 2.0's model with a gated relative position bias in every attention (and its table in layer 0's),
    # no attention adapters, and no pre-training class.
    speech("wavlm", "WavLM", ("Model", "ForCTC", "ForSequenceClassification", "ForAudioFrameClassification",
                              "ForXVector"),
           {"adapter_attn_dim": fixed(None),
            "relative_buckets": Field(("num_buckets",), 320, doc="rows of layer 0's relative-position table")},
           _STRICT_VOCAB, without=_QUANTIZER),
    # UniSpeech: HuBERT's model (no convolutional adapter) with wav2vec 2.0's projection norm and weight-normed
    # positional convolution; its pre-training class projects quantized features back to hidden_size and scores
    # num_ctc_classes phonetic classes (ctc_proj).
    speech("unispeech", "UniSpeech", ("Model", "ForCTC", "ForSequenceClassification", "ForPreTraining"),
           _NO_MODEL_ADAPTER,
           {"pretraining": fixed("phonetic_ctc"),
            "num_ctc_classes": Field(("num_ctc_classes",), 80, minimum=0,
                                     doc="phonetic classes the pre-training class's ctc_proj scores")},
           _STRICT_VOCAB, without=(*_XVECTOR, *_MODEL_ADAPTER)),
    # UniSpeech-SAT: the same model, which always holds the mask vector; every wav2vec 2.0 head class; its
    # pre-training class quantizes the encoder's output and adds a speaker projection, the cluster label table and a
    # LayerNorm.
    speech("unispeech-sat", "UniSpeechSat", tuple(HEADS), _NO_MODEL_ADAPTER,
           {"mask_vector_always": fixed(True), "pretraining": fixed("speaker"),
            "num_clusters": Field(("num_clusters",), 504, minimum=0,
                                  doc="rows of the pre-training class's cluster label table")},
           _STRICT_VOCAB, without=_MODEL_ADAPTER),
    # SEW: a squeezed encoder (the positional convolution strides squeeze_factor frames, the layers run on pooled
    # frames, a Linear upsamples them), post-norm layers only, the feature encoder's output normed by the model's
    # own LayerNorm and projected only where its width differs from hidden_size; the model builds no adapter.
    speech("sew", "SEW", ("Model", "ForCTC", "ForSequenceClassification"),
           {**_NO_MODEL_ADAPTER, "adapter_attn_dim": fixed(None), "do_stable_layer_norm": fixed(False),
            "bare_feature_projection": fixed(True),
            "squeeze_factor": Field(("squeeze_factor",), 2, doc="frames the encoder pools into one (and upsamples)"),
            # (its own feature encoder: 13 convolutions, 64 to 512 channels)
            "conv_dim": replace(FIELDS["conv_dim"], default=(64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512,
                                                             512)),
            "conv_stride": replace(FIELDS["conv_stride"], default=(5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1)),
            "conv_kernel": replace(FIELDS["conv_kernel"], default=(10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1))},
           _STRICT_VOCAB, without=(*_QUANTIZER, *_XVECTOR, *_MODEL_ADAPTER)),
    # SEW-D: SEW's model with DeBERTa-v2's layers (disentangled attention: position projections where share_att_key
    # is false, a relative-position table of 2 × position_buckets rows with its LayerNorm where norm_rel_ebd says so,
    # an optional Conv1d beside layer 0) under encoder.encoder, and no final LayerNorm.
    speech("sew-d", "SEWD", ("Model", "ForCTC", "ForSequenceClassification"),
           {**_NO_MODEL_ADAPTER, "adapter_attn_dim": fixed(None), "do_stable_layer_norm": fixed(False),
            "bare_feature_projection": fixed(True), "disentangled_layers": fixed(True),
            "squeeze_factor": Field(("squeeze_factor",), 2, doc="frames the encoder pools into one (and upsamples)"),
            "conv_dim": replace(FIELDS["conv_dim"], default=(64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512,
                                                             512)),
            "conv_stride": replace(FIELDS["conv_stride"], default=(5, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1)),
            "conv_kernel": replace(FIELDS["conv_kernel"], default=(10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1)),
            # (DisentangledSelfAttention reads attention_head_size where a file gives it, and refuses heads that do
            # not divide hidden_size either way; undeclared, it is kept as written, read by the layers alone)
            "head_dim": Field(("attention_head_size",), HEAD_DIM, "any", null="none",
                              doc="width of each attention head"),
            # The encoder layout's layer (DeBERTa-v2's names)
            "attn_names": fixed(("attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj",
                                 "attention.output.dense")),
            "qkv_bias": fixed(True),
            "attn_out_from_hidden": fixed(True),
            "mlp_names": fixed(("intermediate.dense", "output.dense")),
            "layer_norms": fixed(("attention.output.LayerNorm", "output.LayerNorm")),
            "relative_attention": Field(("relative_attention",), True, "bool",
                                        doc="disentangled relative-position attention (a relative table, and position "
                                            "projections where share_att_key is false)"),
            "share_att_key": Field(("share_att_key",), True, "bool",
                                   doc="the position projections are the content ones (no pos_key_proj, "
                                       "pos_query_proj)"),
            "pos_att_type": Field(("pos_att_type",), ("p2c", "c2p"), "strs", null="reject",
                                  doc='relative attention kinds: "c2p" (pos_key_proj), "p2c" (pos_query_proj)'),
            "position_buckets": Field(("position_buckets",), 256, minimum=-(10**9),
                                      doc="log-bucketed relative positions: the table has 2 × this many rows (below "
                                          "1: 2 × max_relative_positions)"),
            "max_relative_positions": Field(("max_relative_positions",), -1, "any",
                                            doc="relative distances where position_buckets is below 1 (below 1: "
                                                "max_position_embeddings)"),
            "max_positions": Field(("max_position_embeddings",), 512, minimum=-(10**9),
                                   doc="relative distances where neither position_buckets nor max_relative_positions "
                                       "is given"),
            "relative_rows": fixed(Derived(_relative_rows, "2 × position_buckets (or max_relative_positions)")),
            "attn_extra": fixed(Derived(_v2_attention_extra, "pos_key_proj for c2p, pos_query_proj for p2c")),
            "norm_rel_ebd": Field(("norm_rel_ebd",), "layer_norm", "str", null="reject",
                                  doc='"layer_norm": a LayerNorm on the relative-position table'),
            "relative_norm": fixed(Derived(_relative_norm, 'norm_rel_ebd has "layer_norm"')),
            "conv_kernel_size": Field(("conv_kernel_size",), 0, "any",
                                      doc="kernel of a Conv1d beside the first layer (0: none)"),
            "conv_groups": Field(("conv_groups",), 1, "any", doc="groups of that Conv1d"),
            "hidden_dropout_prob": Field(("hidden_dropout_prob",), None, "any",
                                        doc="read by the Conv1d's module alone (which needs it given)"),
            "conv": fixed(Derived(_deberta_conv, "conv_kernel_size, conv_groups"))},
           _STRICT_VOCAB, without=(*_QUANTIZER, *_XVECTOR, *_MODEL_ADAPTER), checks=(check_sew_d,)),
    # Wav2Vec2-BERT: log-mel features in (no feature encoder: a LayerNorm and a Linear from
    # feature_projection_input_dim), no positional convolution, wav2vec2-conformer's blocks (their convolution
    # module's norm a LayerNorm; positions "relative_key" by default: a distance embedding in each attention), no final
    # LayerNorm, a conformer adapter, and a feed-forward before it where use_intermediate_ffn_before_adapter.
    speech("wav2vec2-bert", "Wav2Vec2Bert", ("Model", "ForCTC", "ForSequenceClassification",
                                             "ForAudioFrameClassification", "ForXVector"),
           {"vocab_size": replace(FIELDS["vocab_size"], default=None),  # (its CTC head needs one given)
            "hidden_size": replace(FIELDS["hidden_size"], default=1024),
            "num_layers": replace(FIELDS["num_layers"], default=24),
            "num_heads": replace(FIELDS["num_heads"], default=16),
            "intermediate_size": replace(FIELDS["intermediate_size"], default=4096),
            "classifier_proj_size": replace(FIELDS["classifier_proj_size"], default=768),
            "num_adapter_layers": replace(FIELDS["num_adapter_layers"], default=1),
            # (its attention floors hidden_size / num_attention_heads, and checks nothing)
            "heads_divide_hidden": fixed(False), "floor_head_dim": fixed(True),
            "feature_encoder": fixed(False), "pos_conv_layers": fixed(0), "encoder_final_norm": fixed(False),
            "conformer_layers": fixed(True), "conformer_conv_norm": fixed("depthwise_layer_norm"),
            "adapter_kind": fixed("conformer"), "do_stable_layer_norm": fixed(False), "adapter_attn_dim": fixed(None),
            "feature_projection_input_dim": Field(("feature_projection_input_dim",), 160,
                                                  doc="width of each input feature frame (the projection's input)"),
            "intermediate_ffn": Field(("use_intermediate_ffn_before_adapter",), False, "bool",
                                      doc="a feed-forward between the encoder and the adapter (needs add_adapter)"),
            "position_embeddings_type": Field(("position_embeddings_type",), "relative_key", "str",
                                              doc='"relative_key": a distance embedding in each attention; '
                                                  '"relative": linear_pos, pos_bias_u and pos_bias_v; "rotary" or '
                                                  "null: no parameters"),
            "left_max_position_embeddings": Field(("left_max_position_embeddings",), 64, minimum=0,
                                                  doc="distances to the left the relative_key embedding holds"),
            "right_max_position_embeddings": Field(("right_max_position_embeddings",), 8, minimum=0,
                                                   doc="distances to the right the relative_key embedding holds"),
            **CONFORMER_BLOCK_FIELDS},
           without=(*_QUANTIZER, *_LISTS, "feat_extract_norm", "conv_bias", "pos_conv_kernel",
                    "num_conv_pos_embedding_groups"),
           checks=(check_wav2vec2_bert,)),
    # wav2vec2-conformer: wav2vec 2.0's model and heads with conformer blocks in place of its layers (no pre-norm
    # variant, no attention adapters); relative positions add parameters to each attention, rotary ones none.
    speech("wav2vec2-conformer", "Wav2Vec2Conformer", tuple(HEADS),
           {"vocab_size": replace(FIELDS["vocab_size"], default=None),  # (its CTC head needs one given)
            # (its conformer attention floors hidden_size / num_attention_heads, and checks nothing)
            "heads_divide_hidden": fixed(False), "floor_head_dim": fixed(True),
            "conformer_layers": fixed(True), "do_stable_layer_norm": fixed(False), "adapter_attn_dim": fixed(None),
            "position_embeddings_type": Field(("position_embeddings_type",), "relative", "str",
                                              doc='"relative": each attention\'s linear_pos, pos_bias_u and pos_bias_v; '
                                                  '"rotary" or anything else: no parameters'),
            **CONFORMER_BLOCK_FIELDS}),
)
