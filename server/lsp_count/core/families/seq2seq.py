"""Encoder-decoder families (t5, mt5, umt5, longt5, switch_transformers, bart, mbart, plbart, mvp, pegasus,
marian, blenderbot, blenderbot-small, m2m_100, led, bigbird_pegasus, fsmt, whisper) as data.

Defaults are the transformers (v5) config classes'; every key the config class
accepts for a field is listed, ``attribute_map`` aliases included (T5
``hidden_size`` -> ``d_model``, Whisper ``num_key_value_heads`` ->
``encoder_attention_heads``, ...). Fixed switches are properties of the
modelling code. One layout (``lsp_count.core.layouts.seq2seq``) counts them all.

Canonical names in ``spec.values`` (what the memory model reads):

``vocab_size``, ``hidden_size``
    token rows; width of the residual stream (``d_model``).
``decoder_vocab_size``
    Marian and FSMT (tgt_vocab_size): rows of the decoder's own token embedding (and of its untied head
    where the stacks do not share one embedding); elsewhere the decoder reads ``vocab_size``.
``encoder_layers``, ``decoder_layers``
    layers of each stack. There is no ``num_layers``: decoder-only code must not
    mistake T5's ``num_layers`` (encoder) for the decoder's depth.
``encoder_heads``, ``decoder_heads``, ``decoder_kv_heads``
    attention heads per layer; no family here groups key/value heads, so
    ``decoder_kv_heads == decoder_heads``. The decoder caches, per layer and
    token, 2 × decoder_kv_heads × decoder_head_dim for self-attention, and the
    same per *encoder* token for cross-attention.
``encoder_head_dim``, ``decoder_head_dim``
    width of one head (T5 ``d_kv``; else hidden_size / heads).
``encoder_intermediate_size``, ``decoder_intermediate_size``
    MLP hidden width (T5 ``d_ff``; BART/Whisper ``*_ffn_dim``).
``max_positions``
    longest decoder sequence with a position table, learned or sinusoidal (None: relative buckets).
``max_source_positions``
    encoder positions (Whisper: 1500 audio frames after the stride-2 conv; LED: its encoder's own table).
``num_experts``, ``experts_per_token``
    switch_transformers only: experts per sparse layer, experts each token uses.
"""

from __future__ import annotations

import dataclasses

from lsp_count.core.families.common import (BIG_BIRD_ATTENTION_TYPE, LABEL_FIELDS, PaddedEmbedding,
                                            check_big_bird_attention, check_pad_token, num_labels_field, pad_token,
                                            pad_token_problem, window_per_layer_check)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

FIXED = ()


def fixed(value: object, kind: str = "any") -> Field:
    return Field(FIXED, value, kind)


def same_as(name: str) -> Derived:
    return Derived(lambda v: v[name], name)


def _per_head(heads: str) -> Derived:
    return Derived(lambda v: v["hidden_size"] // v[heads], f"hidden_size / {heads}")


# pad_token_id is an index into the token embedding (BART/Whisper pass it as padding_idx);
# nn.Embedding accepts negative indexes from the end, so only the range is checked.
# --------------------------------------------------------------------- checks
def _problem(spec: ModelSpec, severity: str, code: str, message: str, *fields: str) -> Problem:
    where = next((spec.key_span(f) for f in fields if spec.key_span(f) is not None), None)
    return Problem(severity, code, message, where or spec.span)


def check_heads_divide(spec: ModelSpec) -> list[Problem]:
    """BART/Whisper attention raise ValueError unless heads divide d_model (the decoder's only where
    the class builds a decoder: WhisperForAudioClassification is the encoder alone; the encoder's only where it
    builds one: BartForCausalLM is the decoder alone)."""
    v = spec.values
    out = []
    hidden = v.get("hidden_size")
    built = ("encoder_heads",) if spec.head == "audio_classification" else ("decoder_heads",) \
        if spec.head == "causal_lm" else ("encoder_heads", "decoder_heads")
    for heads_field in built:
        heads = v.get(heads_field)
        if isinstance(hidden, int) and isinstance(heads, int) and hidden % heads:
            key = spec.key_label(heads_field)
            out.append(_problem(spec, "error", "LC103",
                                f"{key} ({heads}) does not divide d_model ({hidden}): transformers refuses it",
                                heads_field, "hidden_size"))
    return out


def check_t5(spec: ModelSpec) -> list[Problem]:
    v = spec.values
    out = []
    proj = v.get("feed_forward_proj")
    if isinstance(proj, str):
        parts = proj.split("-")
        # T5Config.validate_architecture: "{act}" or "gated-{act}".
        if (len(parts) > 1 and parts[0] != "gated") or len(parts) > 2:
            out.append(_problem(spec, "error", "LC103",
                                f'feed_forward_proj "{proj}" is not "ACT" or "gated-ACT" (e.g. "relu", "gated-gelu")',
                                "feed_forward_proj"))
    if v.get("written_tie") is False and spec.model_type in _FORCED_TIE and spec.head in ("seq2seq_lm",):
        vocab, hidden = v.get("vocab_size"), v.get("hidden_size")
        extra = f" ({vocab * hidden:,} parameters)" if isinstance(vocab, int) and isinstance(hidden, int) else ""
        name, effect = _FORCED_TIE[spec.model_type]
        out.append(_problem(spec, "info", "LC106",
                            f"tie_word_embeddings: false — transformers 5 ties {name}'s lm_head to the shared "
                            f"embedding anyway ({effect}), so the head is counted once; "
                            f"the original checkpoint stores a separate lm_head{extra}", "written_tie"))
    return out


# Config classes that force tie_word_embeddings to True (model_type -> (name, what the written key still does)).
# T5Config and UMT5Config turn it into scale_decoder_outputs; MT5Config drops it, and MT5 never scales.
_FORCED_TIE = {
    "t5": ("T5", "the key only turns off output scaling"),
    "mt5": ("MT5", "the key is not read"),
    "umt5": ("UMT5", "the key only turns off output scaling"),
    "longt5": ("LongT5", "the key only turns off output scaling"),
}


def _sparse_check(which: str, layers_field: str) -> object:
    def check(spec: ModelSpec) -> list[Problem]:
        v = spec.values
        sparse, layers = v.get(f"num_sparse_{which}_layers"), v.get(layers_field)
        if f"{which}_sparse_step" in spec.origins or not isinstance(sparse, int) or not isinstance(layers, int):
            return []
        if sparse > layers:
            return [_problem(spec, "warning", "LC103",
                             f"num_sparse_{which}_layers ({sparse}) is more than the {layers} {which} layers: "
                             f"transformers builds no sparse {which} layer", f"num_sparse_{which}_layers")]
        if sparse == 0 and layers > 1:
            return [_problem(spec, "warning", "LC103",
                             f"num_sparse_{which}_layers is 0, yet transformers makes {which} layer 1 sparse "
                             "(its sparse step becomes the layer count, and layer i is sparse when i % step == 1)",
                             f"num_sparse_{which}_layers")]
        return []
    return check


# --------------------------------------------------------------------- T5 / Switch
def _t5_fields(vocab: int, d_model: int, d_ff: int, layers: int, heads: int) -> dict[str, Field]:
    return {
        "vocab_size": Field(("vocab_size",), vocab, doc="tokens in the vocabulary: rows of the shared embedding"),
        "hidden_size": Field(("d_model", "hidden_size"), d_model, doc="width of the residual stream (d_model)"),
        "encoder_layers": Field(("num_layers", "num_hidden_layers"), layers, doc="encoder blocks (num_layers)"),
        # The config's __post_init__ derives num_decoder_layers (and Switch's sparse steps) from num_layers
        # before attribute_map aliases are applied: written as num_hidden_layers, the class default is used.
        "num_layers_key": Field(("num_layers",), layers),
        "encoder_heads": Field(("num_heads", "num_attention_heads"), heads, doc="attention heads per layer"),
        "decoder_heads": fixed(same_as("encoder_heads")),
        "decoder_kv_heads": fixed(same_as("encoder_heads")),
        "encoder_intermediate_size": Field(("d_ff",), d_ff, doc="width of the feed-forward layer (d_ff)"),
        "decoder_intermediate_size": fixed(same_as("encoder_intermediate_size")),
        "relative_buckets": Field(("relative_attention_num_buckets",), 32,
                                  doc="relative-position buckets (a buckets × heads table in block 0 of each stack)"),
        # T5: only block 0's self-attention holds the table (later blocks reuse its bias); UMT5: every block's.
        "relative_bias_every_layer": fixed(False),
        "norm": fixed("rms"),
        "attn_names": fixed(("q", "k", "v", "o")),
        "mlp_names": fixed(Derived(lambda v: ("wi_0", "wi_1", "wo") if v["mlp_gated"] else ("wi", "wo"), "mlp_gated")),
        "encoder_norm_names": fixed(("layer.0.layer_norm", "layer.1.layer_norm")),
        "decoder_norm_names": fixed(("layer.0.layer_norm", "layer.1.layer_norm", "layer.2.layer_norm")),
        "final_norm_name": fixed("final_layer_norm"),
        "lm_head_name": fixed("lm_head"),
        "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
        "mlp_bias": fixed(False),
        "shared_embedding": fixed(True),
        "encoder_input": fixed("tokens"),
        "position_rows": fixed(0),
        "embed_norm": fixed(False),
        "final_norm": fixed(True),
        "max_positions": fixed(None),
        "max_source_positions": fixed(None),
        "written_tie": Field(("tie_word_embeddings",), None, "bool"),
        "num_experts": fixed(0),
        **LABEL_FIELDS,
        "qa_labels": fixed(same_as("num_labels")),  # T5ForQuestionAnswering's qa_outputs: num_labels wide
    }


def _t5_family(model_type: str, prefix: str, defaults: tuple[int, int, int, int, int], feed_forward: str,
               written_tie: Field, every_layer: bool) -> Family:
    """T5 and its multilingual variants (MT5, UMT5): one modelling code, the config class defaults apart.

    ``written_tie``: the tie_word_embeddings key as the config class takes it. Every class forces the
    tie to True in ``__post_init__``, so the written value never unties the head.
    """
    return Family(model_type, "seq2seq", f"{prefix}ForConditionalGeneration", {
        **_t5_fields(*defaults),
        "encoder_head_dim": Field(("d_kv", "head_dim"), 64,
                                  doc="width of each attention head (d_kv); heads × d_kv need not be d_model"),
        "decoder_head_dim": fixed(same_as("encoder_head_dim")),
        "decoder_layers": Field(("num_decoder_layers",), same_as("num_layers_key"), null="default",
                                doc="decoder blocks (null: num_layers)"),
        "feed_forward_proj": Field(("feed_forward_proj",), feed_forward, "str", null="reject",
                                   doc='"relu" (T5) or "gated-gelu" (T5 v1.1, flan-t5, mT5, umT5)'),
        "mlp_gated": fixed(Derived(lambda v: str(v["feed_forward_proj"]).split("-")[0] == "gated", "feed_forward_proj")),
        # The config class forces tie_word_embeddings to True: every class ties lm_head to shared.
        "tie_embeddings": fixed(True),
        "written_tie": written_tie,
        "relative_bias_every_layer": fixed(every_layer),
        **({"relative_buckets": Field(("relative_attention_num_buckets",), 32, doc=(
            "relative-position buckets (a buckets × heads table in every block's self-attention)"))}
           if every_layer else {}),
    }, {
        f"{prefix}ForConditionalGeneration": "seq2seq_lm", f"{prefix}Model": "base",
        f"{prefix}EncoderModel": "encoder", f"{prefix}ForSequenceClassification": "sequence_classification",
        f"{prefix}ForTokenClassification": "token_classification",
        f"{prefix}ForQuestionAnswering": "question_answering",
    }, checks=(check_t5,), fp32_modules=("wo",))  # T5's wo overflows in float16: transformers keeps it in float32


# T5Config and UMT5Config pop tie_word_embeddings (into scale_decoder_outputs): a null is as if absent.
_POPPED_TIE = Field(("tie_word_embeddings",), None, "bool", null="default")
T5 = _t5_family("t5", "T5", (32128, 512, 2048, 6, 8), "relu", _POPPED_TIE, every_layer=False)
# MT5Config / UMT5Config: mt5-small's sizes, gated-gelu, a 250,112-token vocabulary. MT5Config declares
# tie_word_embeddings a strict bool (default true), so a null is refused.
MT5 = _t5_family("mt5", "MT5", (250112, 512, 1024, 8, 6), "gated-gelu",
                 Field(("tie_word_embeddings",), True, "bool"), every_layer=False)
# UMT5Block gives every block's self-attention its own relative_attention_bias table.
UMT5 = _t5_family("umt5", "UMT5", (250112, 512, 1024, 8, 6), "gated-gelu", _POPPED_TIE, every_layer=True)

# LongT5: T5's blocks (no float32 wo), its encoder's self-attention local or transient-global. Transient-global
# gives every encoder block's attention a global_input_layer_norm, and block 0 a second relative-position table
# (global_relative_attention_bias). Its config class forces the tie as T5Config does; three head classes.
_LONGT5_ENCODER_ATTENTION = {"local": "LocalSelfAttention", "transient-global": "TransientGlobalSelfAttention"}


def _longt5_encoder_attention(v: dict) -> str:
    return _LONGT5_ENCODER_ATTENTION.get(str(v["encoder_attention_type"]), "LocalSelfAttention")


def _check_encoder_attention_type(spec: ModelSpec) -> list[Problem]:
    kind = spec.values.get("encoder_attention_type")
    if kind in _LONGT5_ENCODER_ATTENTION:
        return []
    return [_problem(spec, "error", "LC103", f"encoder_attention_type {kind!r} is not \"local\" or \"transient-global\": "
                     "transformers refuses it", "encoder_attention_type")]


# LongT5Config declares tie_word_embeddings a strict bool (a null is refused) before it moves it into
# scale_decoder_outputs and forces the tie.
_LONGT5_BASE = _t5_family("longt5", "LongT5", (32128, 512, 2048, 6, 8), "relu",
                          Field(("tie_word_embeddings",), True, "bool"), every_layer=False)
LONGT5 = dataclasses.replace(_LONGT5_BASE, fields={
    **_LONGT5_BASE.fields,
    "encoder_attention_type": Field(("encoder_attention_type",), "local", "str", null="reject",
                                    doc='"local" or "transient-global" attention in the encoder'),
    # The encoder's self-attention sits at layer.0.<LocalSelfAttention|TransientGlobalSelfAttention>.
    "encoder_attn_names": fixed(Derived(lambda v: tuple(f"{_longt5_encoder_attention(v)}.{n}" for n in "qkvo"),
                                        "encoder_attention_type")),
    "encoder_norm_names": fixed(Derived(lambda v: ("layer.0.layer_norm", "layer.1.layer_norm") + (
        ("layer.0.TransientGlobalSelfAttention.global_input_layer_norm",)
        if v["encoder_attention_type"] == "transient-global" else ()), "encoder_attention_type")),
    "encoder_global_relative_bias": fixed(Derived(lambda v: v["encoder_attention_type"] == "transient-global",
                                                  "encoder_attention_type")),
}, heads={"LongT5ForConditionalGeneration": "seq2seq_lm", "LongT5Model": "base", "LongT5EncoderModel": "encoder"},
    checks=(check_t5, _check_encoder_attention_type), fp32_modules=())

SWITCH = Family("switch_transformers", "seq2seq", "SwitchTransformersForConditionalGeneration", {
    **_t5_fields(32128, 768, 2048, 12, 12),
    "encoder_head_dim": Field(("d_kv",), 64, doc="width of each attention head (d_kv)"),
    "decoder_head_dim": fixed(same_as("encoder_head_dim")),
    # SwitchTransformersConfig defaults num_decoder_layers to 12 when absent, to num_layers when null.
    "decoder_layers_written": Field(("num_decoder_layers",), 12, "int?", doc="decoder blocks (absent: 12; null: num_layers)"),
    "decoder_layers": fixed(Derived(
        lambda v: v["num_layers_key"] if v["decoder_layers_written"] is None else v["decoder_layers_written"],
        "num_decoder_layers")),
    "mlp_gated": fixed(False),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="lm_head and both stacks share one embedding"),
    "num_experts": Field(("num_experts",), 8, doc="experts in each sparse feed-forward layer"),
    # (0 experts: the sparse layers keep a router of no outputs and no experts, as SwitchTransformersSparseMLP builds them)
    "without_experts": fixed("moe"),
    # Top-1 routing (SwitchTransformersTop1Router); num_selected_experts in some configs is not read.
    "experts_per_token": fixed(1),
    "router_bias": Field(("router_bias",), False, "bool"),
    "num_sparse_encoder_layers": Field(("num_sparse_encoder_layers",), 3, minimum=0),
    "num_sparse_decoder_layers": Field(("num_sparse_decoder_layers",), 3, minimum=0),
    # The config derives the steps from the sparse layer counts, but a step written in the file wins.
    # A null step is kept (SwitchTransformersConfig): only a stack that has sparse layers needs it.
    "encoder_sparse_step": Field(("encoder_sparse_step",), null="none", default=Derived(
        lambda v: v["num_layers_key"] // v["num_sparse_encoder_layers"] if v["num_sparse_encoder_layers"] > 0
        else v["num_layers_key"], "num_layers // num_sparse_encoder_layers"), minimum=0,
        doc="every how many encoder layers one is sparse (layer i is sparse when i % step == 1, or always for step 1)"),
    "decoder_sparse_step": Field(("decoder_sparse_step",), null="none", default=Derived(
        lambda v: v["decoder_layers"] // v["num_sparse_decoder_layers"] if v["num_sparse_decoder_layers"] > 0
        else v["decoder_layers"], "num_decoder_layers // num_sparse_decoder_layers"), minimum=0,
        doc="every how many decoder layers one is sparse"),
}, {
    "SwitchTransformersForConditionalGeneration": "seq2seq_lm", "SwitchTransformersModel": "base",
    "SwitchTransformersEncoderModel": "encoder",
}, checks=(check_t5, _sparse_check("encoder", "encoder_layers"), _sparse_check("decoder", "decoder_layers")),
    float_keys=("encoder_sparse_step", "decoder_sparse_step"))


# --------------------------------------------------------------------- BART / mBART / Whisper
def _bart_like(vocab: int, d_model: int, layers: int, heads: int, ffn: int, pad: int | None) -> dict[str, Field]:
    return {
        "vocab_size": Field(("vocab_size",), vocab, doc="tokens in the vocabulary: rows of the token embedding"),
        "hidden_size": Field(("d_model", "hidden_size"), d_model, doc="width of the residual stream (d_model)"),
        "encoder_layers": Field(("encoder_layers", "num_hidden_layers"), layers, doc="encoder layers"),
        "decoder_layers": Field(("decoder_layers",), layers, doc="decoder layers"),
        "encoder_heads": Field(("encoder_attention_heads", "num_attention_heads"), heads, doc="encoder attention heads"),
        "decoder_heads": Field(("decoder_attention_heads",), heads, doc="decoder attention heads"),
        "decoder_kv_heads": fixed(same_as("decoder_heads")),
        "encoder_head_dim": fixed(_per_head("encoder_heads")),
        "decoder_head_dim": fixed(_per_head("decoder_heads")),
        "encoder_intermediate_size": Field(("encoder_ffn_dim",), ffn, doc="width of the encoder MLP"),
        "decoder_intermediate_size": Field(("decoder_ffn_dim",), ffn, doc="width of the decoder MLP"),
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                                doc="the output head and the token embeddings share one matrix"),
        "pad_token_id": pad_token(pad),
        "norm": fixed("layer"),
        "attn_names": fixed(("q_proj", "k_proj", "v_proj", "out_proj")),
        "mlp_names": fixed(("fc1", "fc2")),
        "encoder_norm_names": fixed(("self_attn_layer_norm", "final_layer_norm")),
        "decoder_norm_names": fixed(("self_attn_layer_norm", "encoder_attn_layer_norm", "final_layer_norm")),
        "final_norm_name": fixed("layer_norm"),
        "lm_head_name": fixed("lm_head"),
        "q_bias": fixed(True), "k_bias": fixed(True), "v_bias": fixed(True), "o_bias": fixed(True),
        "mlp_bias": fixed(True),
        "mlp_gated": fixed(False),
        "relative_buckets": fixed(0),
        "num_experts": fixed(0),
        **LABEL_FIELDS,
    }


# The ForCausalLM classes (BartForCausalLM, WhisperForCausalLM) build the decoder alone: the encoder's sizes are
# never read (under an attribute_map alias, which the config class does not check, any value builds).
CAUSAL_LM_UNREAD = {"causal_lm": frozenset({"encoder_layers", "encoder_heads", "encoder_intermediate_size"})}

# The head classes a BART-like family has (each family's own subset).
_BART_HEADS = {"ForConditionalGeneration": "seq2seq_lm", "Model": "base",
               "ForSequenceClassification": "sequence_classification",
               "ForQuestionAnswering": "question_answering", "ForCausalLM": "causal_lm"}


def _bart_family(model_type: str, prefix: str, defaults: tuple[int, int, int, int, int, int | None, int], *,
                 positions: str, embed_norm: bool, final_norm: bool, num_labels_default: int = 2,
                 heads: tuple[str, ...] = tuple(_BART_HEADS), lm_class: str = "",
                 extra: dict[str, Field] | None = None, checks: tuple = ()) -> Family:
    """A BART-like encoder-decoder: one shared token embedding, learned or sinusoidal positions, post- or
    pre-LayerNorm (a LayerNorm after the embeddings, one at the end of each stack).

    ``defaults``: vocab_size, d_model, layers, heads, ffn dim, pad_token_id, max_position_embeddings.
    ``positions``: "offset" (BartLearnedPositionalEmbedding: max_position_embeddings + 2 learned rows),
    "learned" (max_position_embeddings rows), "sinusoidal" (max_position_embeddings frozen rows:
    an nn.Embedding built with _freeze=True, counted by transformers, never trained) or "buffer" (a
    sinusoidal table held as a buffer: no parameters; the extra fields say what limit, if any, it sets).
    ``embed_norm``: layernorm_embedding in each stack (post-norm models: BART, PLBart, MVP, BlenderbotSmall);
    ``final_norm``: a layer_norm at the end of each stack (pre-norm models: mBART, Pegasus, Blenderbot).
    """
    vocab, d_model, layers, n_heads, ffn, pad, max_positions = defaults
    rows = {
        "offset": Derived(lambda v: v["max_positions"] + 2, "max_position_embeddings + 2"),
        "learned": same_as("max_positions"),
        "sinusoidal": same_as("max_positions"),
        "buffer": 0,
    }[positions]
    fields = {
        **_bart_like(vocab, d_model, layers, n_heads, ffn, pad),
        "max_positions": Field(("max_position_embeddings",), max_positions, doc={
            "offset": "longest sequence (learned positions, + 2 offset rows)",
            "learned": "longest sequence (learned positions)",
            "sinusoidal": "longest sequence (a fixed sinusoidal table, not trained)",
            "buffer": "longest sequence"}[positions]),
        "max_source_positions": fixed(same_as("max_positions")),
        "shared_embedding": fixed(True),
        "encoder_input": fixed("tokens"),
        "position_rows": fixed(rows),
        "sinusoidal_positions": fixed(positions == "sinusoidal"),
        "embed_norm": fixed(embed_norm),
        "final_norm": fixed(final_norm),
        "num_labels": num_labels_field(num_labels_default),
        # The question-answering classes set config.num_labels = 2 before they build qa_outputs.
        "qa_labels": fixed(2),
        **(extra or {}),
    }
    head_classes = {f"{prefix}{suffix}": _BART_HEADS[suffix] for suffix in heads}
    if lm_class:  # Marian's seq2seq LM is MarianMTModel
        head_classes = {(lm_class if kind == "seq2seq_lm" else name): kind for name, kind in head_classes.items()}
    architecture = next(name for name, kind in head_classes.items() if kind == "seq2seq_lm")
    return Family(model_type, "seq2seq", architecture, fields, head_classes,
                  checks=(check_heads_divide, check_pad_token, *checks), float_keys=("num_attention_heads",),
                  notes=(f"{prefix}'s positions are a fixed sinusoidal table (requires_grad=False): counted, "
                         "not trainable",) if positions == "sinusoidal" else (),
                  unread_by_head=CAUSAL_LM_UNREAD)


_LM_AND_BASE = ("ForConditionalGeneration", "Model")
_LM_BASE_AND_CAUSAL = _LM_AND_BASE + ("ForCausalLM",)

# BartConfig defaults num_labels to 3 when the file has no id2label; the others keep the usual 2.
# BART is post-norm (layernorm_embedding, no final norm); mBART pre-norm with both.
BART = _bart_family("bart", "Bart", (50265, 1024, 12, 16, 4096, 1, 1024), positions="offset",
                    embed_norm=True, final_norm=False, num_labels_default=3, extra={
    # BartConfig types the encoder's sizes `int | None`: a null is kept, and fails only a class that builds the encoder.
    "encoder_layers": Field(("encoder_layers", "num_hidden_layers"), 12, "int?", doc="encoder layers"),
    "encoder_heads": Field(("encoder_attention_heads", "num_attention_heads"), 16, "int?",
                           doc="encoder attention heads"),
    "encoder_intermediate_size": Field(("encoder_ffn_dim",), 4096, "int?", doc="width of the encoder MLP"),
})
MBART = _bart_family("mbart", "MBart", (50265, 1024, 12, 16, 4096, 1, 1024), positions="offset",
                     embed_norm=True, final_norm=True)
# PLBart: BART's modules (ScaledWordEmbedding scales in forward only), no question-answering class.
PLBART = _bart_family("plbart", "PLBart", (50005, 768, 6, 12, 3072, 1, 1024), positions="offset",
                      embed_norm=True, final_norm=False, heads=_LM_BASE_AND_CAUSAL + ("ForSequenceClassification",))
# Pegasus: pre-norm, a final layer_norm per stack, no layernorm_embedding, sinusoidal positions.
PEGASUS = _bart_family("pegasus", "Pegasus", (50265, 1024, 12, 16, 4096, 0, 1024), positions="sinusoidal",
                       embed_norm=False, final_norm=True, heads=_LM_BASE_AND_CAUSAL)
# Marian: post-norm without layernorm_embedding, sinusoidal positions. share_encoder_decoder_embeddings false
# gives the stacks their own token embeddings (the decoder's decoder_vocab_size rows, the lm_head tied to it);
# true gives one shared matrix (vocab_size rows, the decoder's own size unused while it is tied).
MARIAN = _bart_family("marian", "Marian", (58101, 1024, 12, 16, 4096, 58100, 1024), positions="sinusoidal",
                      embed_norm=False, final_norm=False, heads=_LM_BASE_AND_CAUSAL, lm_class="MarianMTModel", extra={
    "shared_embedding": Field(("share_encoder_decoder_embeddings",), True, "bool",
                              doc="encoder and decoder read one token embedding (`shared`)"),
    # MarianConfig: decoder_vocab_size = decoder_vocab_size or vocab_size (null and 0 alike).
    "decoder_vocab_written": Field(("decoder_vocab_size",), None, "int?", minimum=0,
                                   doc="rows of the decoder's own token embedding (absent, null or 0: vocab_size)"),
    "decoder_vocab_size": fixed(Derived(lambda v: v["decoder_vocab_written"] or v["vocab_size"],
                                        "decoder_vocab_size or vocab_size")),
})
# Blenderbot: pre-norm with a final layer_norm, learned positions without BART's offset rows; a 2-layer
# encoder and a 24-layer decoder by default.
BLENDERBOT = _bart_family("blenderbot", "Blenderbot", (8008, 2560, 2, 32, 10240, 0, 128), positions="learned",
                          embed_norm=False, final_norm=True, heads=_LM_BASE_AND_CAUSAL, extra={
    "decoder_layers": Field(("decoder_layers",), 24, doc="decoder layers"),
})
# BlenderbotSmall: post-norm with layernorm_embedding, learned positions without offset rows.
BLENDERBOT_SMALL = _bart_family("blenderbot-small", "BlenderbotSmall", (50265, 512, 8, 16, 2048, 0, 512),
                                positions="learned", embed_norm=True, final_norm=False, heads=_LM_BASE_AND_CAUSAL)
# MVP: BART's modules, plus with use_prompt two prompts (MvpPrompt) in the decoder (self and cross attention):
# each prompt_length × d_model embeddings, d_model -> prompt_mid_dim -> decoder_layers × 2 × d_model. The
# encoder gets none in transformers 5.25 (MvpModel passes use_prompt where MvpEncoder takes embed_tokens).
# The prompts' keys and values are joined after the cache update: nothing more is cached.
MVP = _bart_family("mvp", "Mvp", (50267, 1024, 12, 16, 4096, 1, 1024), positions="offset",
                   embed_norm=True, final_norm=False, extra={
    "use_prompt": Field(("use_prompt",), False, "bool", doc="layer-wise prompts in the decoder's attention"),
    "prompt_length": Field(("prompt_length",), 100, minimum=0, doc="prompt tokens (rows of each prompt embedding)"),
    "prompt_mid_dim": Field(("prompt_mid_dim",), 800, minimum=0, doc="width of each prompt's middle layer"),
})

# M2M100 / NLLB-200 dense: pre-norm (a final layer_norm per stack, no layernorm_embedding). Its sinusoidal
# positions are a non-persistent buffer (nn.Buffer), no parameter, rebuilt larger when a sequence outgrows it:
# no position rows are counted and no length is refused. The table (max_position_embeddings + 2 rows) takes
# pad_token_id as its padding index and zeroes that row at construction: a pad outside it raises IndexError.
# Its frequencies divide by d_model // 2 - 1: a d_model under 4 raises ZeroDivisionError.
def _check_sinusoidal_buffer(spec: ModelSpec) -> list[Problem]:
    out = []
    hidden = spec.values.get("hidden_size")
    if isinstance(hidden, int) and hidden < 4:
        out.append(_problem(spec, "error", "LC103", f"d_model ({hidden}) is under 4: the sinusoidal position "
                            "table divides by d_model // 2 - 1, and transformers fails to build it", "hidden_size"))
    problem = pad_token_problem(spec, [PaddedEmbedding("sinusoidal position table", "position_table", "position_table",
                                                       extra_rows=2, label="max_position_embeddings")])
    return out + ([problem] if problem is not None else [])


M2M_100 = _bart_family("m2m_100", "M2M100", (128112, 1024, 12, 16, 4096, 1, 1024), positions="buffer",
                       embed_norm=False, final_norm=True, heads=_LM_AND_BASE, extra={
    "position_table": Field(("max_position_embeddings",), 1024,
                            doc="rows of the sinusoidal position buffer (+ 2 offset rows; not parameters, regrown)"),
    "max_positions": fixed(None),
}, checks=(_check_sinusoidal_buffer,))

# NLLB-MoE: M2M100's pre-norm stacks and sinusoidal position buffer; every encoder_sparse_step-th
# (decoder_sparse_step-th) layer's feed-forward a top-2 router over num_experts biased fc1 / fc2 experts (layer i
# sparse when (i + 1) % step == 0; step 0: none), the rest a dense fc1 / fc2, under ffn; norms self_attn_layer_norm,
# cross_attention_layer_norm, ff_layer_norm. No head class but the LM (tied to `shared`) and the bare model.
NLLB_MOE = _bart_family("nllb-moe", "NllbMoe", (128112, 1024, 12, 16, 4096, 1, 1024), positions="buffer",
                        embed_norm=False, final_norm=True, heads=_LM_AND_BASE, extra={
    "position_table": M2M_100.fields["position_table"],
    "max_positions": fixed(None),
    "num_experts": Field(("num_experts",), 128, minimum=0, doc="experts in each sparse feed-forward layer"),
    # (0 experts: the sparse layers keep a router of no outputs and no experts, as NllbMoeSparseMLP builds them)
    "without_experts": fixed("moe"),
    "experts_per_token": fixed(2),  # NllbMoeTop2Router: the second expert may be dropped, at most two run
    "router_bias": Field(("router_bias",), False, "bool"),
    "encoder_sparse_step": Field(("encoder_sparse_step",), 4, minimum=0,
                                 doc="every how many encoder layers one is sparse (layer i when (i + 1) % step == 0)"),
    "decoder_sparse_step": Field(("decoder_sparse_step",), 4, minimum=0,
                                 doc="every how many decoder layers one is sparse"),
    "sparse_rule": fixed("every_step"),
    "encoder_norm_names": fixed(("self_attn_layer_norm", "ff_layer_norm")),
    "decoder_norm_names": fixed(("self_attn_layer_norm", "cross_attention_layer_norm", "ff_layer_norm")),
}, checks=(_check_sinusoidal_buffer,))


# LED: BART (post-norm, learned positions without offset rows) whose encoder self-attention is Longformer's:
# query/key/value, a second query/key/value set for global tokens, and an output projection, all biased; the
# encoder's position table is max_encoder_position_embeddings long, the decoder's max_decoder_position_embeddings.
# The encoder's windowed attention caches nothing: only the decoder's cache is BART's.
LED = _bart_family("led", "LED", (50265, 1024, 12, 16, 4096, 1, 1024), positions="learned",
                   embed_norm=True, final_norm=False,
                   heads=("ForConditionalGeneration", "Model", "ForQuestionAnswering"), extra={
    "max_positions": Field(("max_decoder_position_embeddings",), 1024,
                           doc="longest decoded sequence (the decoder's learned positions)"),
    "max_source_positions": Field(("max_encoder_position_embeddings",), 16384,
                                  doc="longest input (the encoder's learned positions)"),
    "encoder_position_rows": fixed(same_as("max_source_positions")),
    "encoder_attn_names": fixed(("longformer_self_attn.query", "longformer_self_attn.key",
                                 "longformer_self_attn.value", "output")),
    "encoder_global_attn_names": fixed(("longformer_self_attn.query_global", "longformer_self_attn.key_global",
                                        "longformer_self_attn.value_global")),
    "attention_window": Field(("attention_window",), 512, "any",
                              doc="local attention window of the encoder: one for all layers, or one per layer"),
}, checks=(window_per_layer_check("encoder_layers", "encoder layer"),))


# BigBird-Pegasus: Pegasus's pre-norm stacks (their last LayerNorm named layernorm_embedding), learned positions
# without offset rows, and an encoder self-attention that is BigBird's (self.query / self.key / self.value, then
# output; block-sparse or full, the same projections); every attention projection biased as use_bias says (no bias by
# default), the feed-forwards always biased. Its encoder attention sizes its projections with num_attention_heads as
# written: a whole-number float there (12.0, which BART's classes take) fails to build.
_BIGBIRD_PEGASUS = _bart_family("bigbird_pegasus", "BigBirdPegasus", (96103, 1024, 16, 16, 4096, 0, 4096),
                                positions="learned", embed_norm=True, final_norm=False, extra={
    **{f"{part}_bias": Field(("use_bias",), False, "bool", doc="biases on every attention projection")
       for part in ("q", "k", "v", "o")},
    "encoder_attn_names": fixed(("self.query", "self.key", "self.value", "output")),
    "attention_type": BIG_BIRD_ATTENTION_TYPE,
    # BigBirdPegasusForCausalLM declares no tie: its lm_head is its own whatever tie_word_embeddings says.
    "causal_lm_never_tied": fixed(True),
}, checks=(check_big_bird_attention,))
BIGBIRD_PEGASUS = dataclasses.replace(_BIGBIRD_PEGASUS, float_keys=())


def _check_fsmt_pad_token(spec: ModelSpec) -> list[Problem]:
    """FSMT's pad token is the padding index of the source and target token embeddings and of both position
    tables (max_position_embeddings + pad_token_id + 1 rows: a negative pad shortens them)."""
    problem = pad_token_problem(spec, [
        PaddedEmbedding("encoder's token embedding", "src_vocab_size", "src_vocab_size"),
        PaddedEmbedding("decoder's token embedding", "tgt_vocab_size", "tgt_vocab_size"),
    ])
    if problem is not None:
        return [problem]
    v = spec.values
    pad, table, rows = v.get("pad_token_id"), v.get("position_table"), v.get("position_rows")
    if isinstance(pad, int) and isinstance(rows, int) and not -rows <= pad < rows:
        return [_problem(spec, "error", "LC103", f"pad_token_id {pad} is outside the position tables (max_position_embeddings "
                         f"{table} + pad_token_id {pad} + 1 = {rows} rows): nn.Embedding refuses it",
                         "pad_token_id", "position_table")]
    return []


# FSMT (FairSeq MT): post-norm, no layernorm_embedding or final norm, the source and target vocabularies apart
# (encoder.embed_tokens src_vocab_size rows, decoder.embed_tokens tgt_vocab_size rows, the decoder's own
# output_projection tgt_vocab_size wide, in FSMTModel too). tie_word_embeddings (default false) ties the encoder's
# embedding and the output projection to the decoder's embedding: one matrix of tgt_vocab_size rows is left,
# expressed as the layout's shared embedding. Each stack's positions are an nn.Embedding of
# max_position_embeddings + pad_token_id + 1 rows, trainable as built (sinusoidal values only at weight init) and
# regrown past that length in forward: no length is refused.
_FSMT_BASE = _bart_family("fsmt", "FSMT", (42024, 1024, 12, 16, 4096, 1, 1024), positions="learned",
                          embed_norm=False, final_norm=False, heads=_LM_AND_BASE)
FSMT = dataclasses.replace(_FSMT_BASE, fields={
    **_FSMT_BASE.fields,
    "src_vocab_size": Field(("src_vocab_size",), 42024, doc="source tokens: rows of the encoder's token embedding"),
    "tgt_vocab_size": Field(("tgt_vocab_size", "vocab_size"), 42024,
                            doc="target tokens: rows of the decoder's token embedding and its output projection"),
    "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                            doc="the encoder's embedding and the output projection are the decoder's embedding"),
    "shared_embedding": fixed(same_as("tie_embeddings")),
    "vocab_size": fixed(Derived(lambda v: v["tgt_vocab_size"] if v["tie_embeddings"] else v["src_vocab_size"],
                                "tgt_vocab_size if tie_word_embeddings else src_vocab_size")),
    "decoder_vocab_size": fixed(same_as("tgt_vocab_size")),
    # The position tables' padding index: a null cannot size them (transformers fails on None + 1).
    "pad_token_id": Field(("pad_token_id",), 1, minimum=-(10**9), doc="padding token (index into both vocabularies)"),
    "position_table": Field(("max_position_embeddings",), 1024,
                            doc="positions of each stack's table (+ pad_token_id + 1 rows; regrown past it)"),
    "position_rows": fixed(Derived(lambda v: max(v["position_table"] + v["pad_token_id"] + 1, 0),
                                   "max_position_embeddings + pad_token_id + 1")),
    "max_positions": fixed(None),
    "lm_head_name": fixed("output_projection"),
}, heads={"FSMTForConditionalGeneration": "seq2seq_lm", "FSMTModel": "seq2seq_lm"},
    checks=(check_heads_divide, _check_fsmt_pad_token))


def _check_decoder_pad_token(spec: ModelSpec) -> list[Problem]:
    """Whisper's pad token pads the decoder's token embedding: WhisperForAudioClassification, the encoder
    alone, has none to refuse it."""
    return [] if spec.head == "audio_classification" else check_pad_token(spec)


WHISPER = Family("whisper", "seq2seq", "WhisperForConditionalGeneration", {
    **_bart_like(51865, 384, 4, 6, 1536, 50256),
    "encoder_heads": Field(("encoder_attention_heads", "num_attention_heads", "num_key_value_heads"), 6,
                           doc="encoder attention heads"),
    "num_mel_bins": Field(("num_mel_bins",), 80, doc="mel channels into the first convolution"),
    "max_positions": Field(("max_target_positions",), 448, doc="longest decoded sequence (learned positions)"),
    "max_source_positions": Field(("max_source_positions",), 1500,
                                  doc="audio frames after the convolutions (sinusoidal positions, frozen)"),
    # Whisper's k_proj has no bias; q, v and out do.
    "k_bias": fixed(False),
    "lm_head_name": fixed("proj_out"),
    "shared_embedding": fixed(False),
    "encoder_input": fixed("audio_conv"),
    "position_rows": fixed(Derived(lambda v: v["max_positions"], "max_target_positions")),
    "embed_norm": fixed(False),
    "final_norm": fixed(True),
    "classifier_proj_size": Field(("classifier_proj_size",), 256, doc="width of the audio classifier's projector"),
    "use_weighted_layer_sum": Field(("use_weighted_layer_sum",), False, "bool"),
}, {
    "WhisperForConditionalGeneration": "seq2seq_lm", "WhisperModel": "base",
    "WhisperForAudioClassification": "audio_classification",
    "WhisperForCausalLM": "causal_lm",
}, checks=(check_heads_divide, _check_decoder_pad_token), float_keys=("num_attention_heads", "num_key_value_heads"),
    notes=("Whisper's encoder positions are a fixed sinusoidal table (requires_grad=False): counted, not trainable",),
    unread_by_head=CAUSAL_LM_UNREAD)

FAMILIES: tuple[Family, ...] = (T5, MT5, UMT5, SWITCH, BART, MBART, WHISPER, PEGASUS, MARIAN, BLENDERBOT,
                                BLENDERBOT_SMALL, PLBART, MVP, M2M_100, NLLB_MOE, LED, BIGBIRD_PEGASUS, LONGT5, FSMT)
