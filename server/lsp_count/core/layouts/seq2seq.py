"""Encoder-decoder transformers: T5, mT5, umT5, LongT5, Switch Transformers, the BART-likes (BART, mBART, PLBart,
MVP, Pegasus, Marian, Blenderbot, BlenderbotSmall, M2M100, NLLB-MoE, LED, FSMT), Whisper; and the decoder alone, as
the BART-likes' and Whisper's ForCausalLM classes build it.

One builder walks the switches in ``lsp_count.core.families.seq2seq``: norm kind,
projection biases, gated MLP, relative-position buckets (block 0 of each stack,
or every block's self-attention for umT5), learned
positions (BART's +2 offset rows) or frozen sinusoidal ones (Pegasus, Marian),
Whisper's convolutional front-end and frozen sinusoidal encoder positions,
Switch's and NLLB-MoE's sparse layers, MVP's prompts, the encoder's own attention names, global
projections and position table (LED's Longformer attention, LongT5's local or
transient-global one), and how the token embedding is shared between the encoder,
the decoder and the output head (Marian, FSMT: optionally not, with a decoder
vocabulary of their own).
"""

from __future__ import annotations

from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Span
from lsp_count.core.spec import ModelSpec

# Heads built without the decoder (the memory estimate: nothing generated, nothing cached).
ENCODER_ONLY_HEADS = frozenset({"encoder", "audio_classification", "token_classification"})


def _norm(spec: ModelSpec, module: str) -> tuple[Tensor, ...]:
    return norm(module, spec.int("hidden_size"), bias=spec["norm"] == "layer")


def attention(spec: ModelSpec, name: str, stack: str) -> ParamNode:
    """q/k/v/o projections: d_model -> heads × head_dim and back (T5's d_kv need not be d_model / heads).

    The encoder's self-attention may name its projections apart (``encoder_attn_names``) and hold a second
    query/key/value set for globally attending tokens (``encoder_global_attn_names``: LED's Longformer
    attention), biased as the first."""
    v = spec.values
    h = spec.int("hidden_size")
    inner = spec.int(f"{stack}_heads") * spec.int(f"{stack}_head_dim")
    own = name == "self_attention" and stack == "encoder"
    q, k, val, o = (own and v.get("encoder_attn_names")) or v["attn_names"]  # type: ignore[misc]
    tensors = (linear(q, h, inner, bool(v["q_bias"])) + linear(k, h, inner, bool(v["k_bias"]))
               + linear(val, h, inner, bool(v["v_bias"])) + linear(o, inner, h, bool(v["o_bias"])))
    if own and v.get("encoder_global_attn_names"):
        gq, gk, gv = v["encoder_global_attn_names"]  # type: ignore[misc]
        tensors += (linear(gq, h, inner, bool(v["q_bias"])) + linear(gk, h, inner, bool(v["k_bias"]))
                    + linear(gv, h, inner, bool(v["v_bias"])))
    return ParamNode(name, tensors, source=spec.key_span(f"{stack}_heads"), key=f"{stack}_heads")


def mlp(spec: ModelSpec, stack: str) -> ParamNode:
    v = spec.values
    h, f = spec.int("hidden_size"), spec.int(f"{stack}_intermediate_size")
    bias = bool(v["mlp_bias"])
    names = v["mlp_names"]
    if v["mlp_gated"]:  # T5 v1.1 gated-gelu: wi_0, wi_1 (d -> f), wo (f -> d)
        tensors = linear(names[0], h, f, bias) + linear(names[1], h, f, bias) + linear(names[2], f, h, bias)
    else:
        tensors = linear(names[0], h, f, bias) + linear(names[1], f, h, bias)
    key = f"{stack}_intermediate_size"
    return ParamNode("mlp", tensors, source=spec.key_span(key), key=key)


def sparse_mlp(spec: ModelSpec, stack: str) -> ParamNode:
    """Switch Transformers' and NLLB-MoE's: a router (top-1, top-2) and num_experts ungated expert MLPs named and
    biased as the family's dense one (Switch's wi, wo; NLLB-MoE's biased fc1, fc2)."""
    v = spec.values
    h, f = spec.int("hidden_size"), spec.int(f"{stack}_intermediate_size")
    experts, top_k = spec.int("num_experts"), spec.int("experts_per_token")
    up, down = v["mlp_names"]  # type: ignore[misc]
    bias = bool(v["mlp_bias"])
    router = ParamNode("router", linear("classifier", h, experts, bool(v["router_bias"])))
    routed = ParamNode(
        "experts", linear(up, h, f, bias) + linear(down, f, h, bias), repeat=experts,
        active_repeat=min(top_k, experts), note=f"routed: {min(top_k, experts)} of {experts} per token",
        source=spec.key_span("num_experts"), key="num_experts",
    )
    return node("moe", router, routed, source=spec.key_span("num_experts"), key="num_experts")


def switch_sparse_layers(layers: int, step: int) -> tuple[int, ...]:
    """SwitchTransformersStack: layer i is sparse when step == 1 or i % step == 1; step 0 makes none."""
    return tuple(i for i in range(layers) if step == 1 or (step > 1 and i % step == 1))


def sparse_layers(spec: ModelSpec, stack: str) -> tuple[int, ...]:
    """Which of a stack's layers are sparse, by the family's ``sparse_rule``: Switch's (switch_sparse_layers), or
    "every_step" (NLLB-MoE's: layer i is sparse when (i + 1) % step == 0; step 0 makes none); none where the stack
    has no experts."""
    v = spec.values
    if not (v.get("num_experts") or v.get("without_experts") == "moe"):  # (0: blocks of no experts)
        return ()
    count, step = spec.int(f"{stack}_layers"), spec.int(f"{stack}_sparse_step")
    if v.get("sparse_rule") == "every_step":
        return tuple(i for i in range(count) if step > 0 and (i + 1) % step == 0)
    return switch_sparse_layers(count, step)


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """The layers of each kind, by "stack.kind" (the tree's dense_layers / sparse_layers), for module names: the
    tree keeps how many of each, not which (Switch's step 4 and step 5 both make 3 of 12 layers sparse, NLLB-MoE's
    step 3 and step 4 one of 4)."""
    if spec is None or spec.family.layout != "seq2seq":
        return {}
    out: dict[str, tuple[int, ...]] = {}
    for stack in ("encoder", "decoder"):
        if stack == "decoder" and spec.head in ENCODER_ONLY_HEADS:
            continue
        sparse = sparse_layers(spec, stack)
        if sparse:
            out[f"{stack}.sparse_layers"] = sparse
            out[f"{stack}.dense_layers"] = tuple(i for i in range(spec.int(f"{stack}_layers")) if i not in sparse)
    return out


def _layers_origin(spec: ModelSpec, stack: str) -> tuple[object, str]:
    """Where the layer count was written (Switch keeps a written num_decoder_layers apart from its default)."""
    for name in (f"{stack}_layers", f"{stack}_layers_written"):
        if spec.key_span(name) is not None:
            return spec.key_span(name), name
    return None, f"{stack}_layers"


def _relative_bias(spec: ModelSpec, stack: str, note: str, name: str = "relative_attention_bias") -> ParamNode | None:
    """The relative-position table of a self-attention: buckets × heads (none where the family has no buckets)."""
    buckets = int(spec.values.get("relative_buckets") or 0)
    if not buckets:
        return None
    return ParamNode(
        name,
        (Tensor(f"{name}.weight", (buckets, spec.int(f"{stack}_heads")), "embedding", name),),
        note=note, source=spec.key_span("relative_buckets"), key="relative_buckets")


def _layers(spec: ModelSpec, stack: str) -> ParamNode:
    count = spec.int(f"{stack}_layers")
    parts: list[ParamNode | None] = [attention(spec, "self_attention", stack)]
    if spec.values.get("relative_bias_every_layer"):  # umT5: each block's self-attention has its own table
        parts.append(_relative_bias(spec, stack, "every block"))
    if stack == "decoder":
        parts.append(attention(spec, "cross_attention", stack))
    norms = ParamNode("norms", sum((_norm(spec, n) for n in spec[f"{stack}_norm_names"]), ()))  # type: ignore[union-attr]
    src, key = _layers_origin(spec, stack)
    sparse = len(sparse_layers(spec, stack))
    dense = count - sparse
    if not sparse:
        return node("layers", *parts, mlp(spec, stack), norms, repeat=count, source=src, key=key)
    kinds = []
    if dense:
        kinds.append(node("dense_layers", *parts, mlp(spec, stack), norms, repeat=dense))
    kinds.append(node("sparse_layers", *parts, sparse_mlp(spec, stack), norms, repeat=sparse,
                      source=spec.key_span(f"{stack}_sparse_step"), key=f"{stack}_sparse_step"))
    return node("layers", *kinds, source=src, key=key)


def decoder_vocab(spec: ModelSpec) -> int:
    """Rows of the decoder's own token embedding: vocab_size, or Marian's decoder_vocab_size."""
    rows = spec.values.get("decoder_vocab_size")
    return rows if isinstance(rows, int) else spec.int("vocab_size")


def _token_embedding(spec: ModelSpec, tied_to_shared: bool, stack: str) -> ParamNode | None:
    """A stack's own embed_tokens: absent when it is the shared matrix (counted once, at the top)."""
    if tied_to_shared:
        return None
    key = "decoder_vocab_written" if stack == "decoder" and spec.key_span("decoder_vocab_written") else "vocab_size"
    rows = decoder_vocab(spec) if stack == "decoder" else spec.int("vocab_size")
    return ParamNode("embed_tokens", embedding("embed_tokens", rows, spec.int("hidden_size")),
                     source=spec.key_span(key), key=key)


def _prompts(spec: ModelSpec, stack: str) -> list[ParamNode | None]:
    """MVP's layer-wise prompts (use_prompt): the decoder's self- and cross-attention prompts. Each is an
    embedding (prompt_length × d_model) and a two-layer MLP d_model -> prompt_mid_dim -> layers × 2 ×
    d_model (a key and a value prefix per layer). The encoder has none: MvpModel passes use_prompt as
    MvpEncoder's second argument, which is embed_tokens (transformers 5.25), so its use_prompt stays False."""
    # MvpForCausalLM builds MvpDecoder(config), whose use_prompt defaults to False: no prompts.
    if not spec.values.get("use_prompt") or stack != "decoder" or spec.head == "causal_lm":
        return []
    h, length, mid = spec.int("hidden_size"), spec.int("prompt_length"), spec.int("prompt_mid_dim")
    out = h * 2 * spec.int(f"{stack}_layers")
    names = ("self_attn_prompt", "cross_attn_prompt")
    return [ParamNode(name, embedding(f"{name}.prompt_embedding", length, h)
                      + linear(f"{name}.prompt_trans.0", h, mid, True)
                      + linear(f"{name}.prompt_trans.2", mid, out, True),
                      source=spec.key_span("use_prompt"), key="use_prompt")
            for name in names]


def _positions(spec: ModelSpec, rows: int, frozen: bool, key: str) -> ParamNode | None:
    """A position table; ``frozen``: a sinusoidal one (Whisper's encoder, Pegasus, Marian), built as an
    nn.Embedding whose weight does not require grad: counted, not trainable."""
    if not rows:
        return None
    note = "sinusoidal, requires_grad=False" if frozen else "learned"
    return ParamNode("embed_positions", embedding("embed_positions", rows, spec.int("hidden_size")),
                     frozen=frozen, note=note, source=spec.key_span(key), key=key)


def encoder(spec: ModelSpec, shared: bool) -> ParamNode:
    v = spec.values
    h = spec.int("hidden_size")
    front: list[ParamNode | None] = []
    if v["encoder_input"] == "audio_conv":
        # Whisper: Conv1d(mels, d, 3) then Conv1d(d, d, 3, stride 2), both with bias.
        mels = spec.int("num_mel_bins")
        conv = (Tensor("conv1.weight", (h, mels, 3), "conv", "conv1"), Tensor("conv1.bias", (h,), "bias", "conv1"),
                Tensor("conv2.weight", (h, h, 3), "conv", "conv2"), Tensor("conv2.bias", (h,), "bias", "conv2"))
        front.append(ParamNode("conv_frontend", conv, source=spec.key_span("num_mel_bins"), key="num_mel_bins"))
        front.append(_positions(spec, int(v["max_source_positions"]), True, "max_source_positions"))  # type: ignore[arg-type]
    else:
        front.append(_token_embedding(spec, shared, "encoder"))
        # A table of the encoder's own length (LED: max_encoder_position_embeddings), else the decoder's.
        own_rows = v.get("encoder_position_rows")
        front.append(_positions(spec, int((v["position_rows"] if own_rows is None else own_rows) or 0),
                                bool(v.get("sinusoidal_positions")),
                                "max_positions" if own_rows is None else "max_source_positions"))
    if v["embed_norm"]:
        front.append(ParamNode("layernorm_embedding", _norm(spec, "layernorm_embedding")))
    return _stack(spec, "encoder", front)


def decoder(spec: ModelSpec, shared: bool) -> ParamNode:
    v = spec.values
    front: list[ParamNode | None] = [
        _token_embedding(spec, shared, "decoder"),
        _positions(spec, int(v["position_rows"] or 0), bool(v.get("sinusoidal_positions")), "max_positions"),
    ]
    if v["embed_norm"]:
        front.append(ParamNode("layernorm_embedding", _norm(spec, "layernorm_embedding")))
    return _stack(spec, "decoder", front)


def _stack(spec: ModelSpec, stack: str, front: list[ParamNode | None]) -> ParamNode:
    v = spec.values
    embeddings = node("embeddings", *front)
    if len(embeddings.children) == 1:  # one embedding: show it by name, not nested
        embeddings = embeddings.children[0]
    # T5: only block 0's self-attention holds the table; later blocks reuse its bias (umT5: in _layers).
    relative = None if v.get("relative_bias_every_layer") else _relative_bias(spec, stack, "block 0 only")
    # LongT5's transient-global encoder: block 0 holds a second table for the global tokens' bias.
    global_relative = (_relative_bias(spec, stack, "block 0 only (global tokens)", "global_relative_attention_bias")
                       if stack == "encoder" and v.get("encoder_global_relative_bias") else None)
    final = ParamNode("final_norm", _norm(spec, str(v["final_norm_name"]))) if v["final_norm"] else None
    src, key = _layers_origin(spec, stack)
    return node(stack, embeddings, relative, global_relative, _layers(spec, stack), final, *_prompts(spec, stack),
                source=src, key=key)


def _causal_lm_tied(spec: ModelSpec) -> bool:
    """Whether a ForCausalLM class ties its head to the decoder's token embedding: as the config says, where the
    class declares the tie (BigBirdPegasusForCausalLM declares none: ``causal_lm_never_tied``)."""
    return bool(spec.values["tie_embeddings"]) and not spec.values.get("causal_lm_never_tied")


def causal_lm_rows(spec: ModelSpec) -> int:
    """Rows of a decoder-alone causal LM's head (BartForCausalLM's lm_head, WhisperForCausalLM's proj_out): the
    decoder's token embedding where it is tied to it (Marian's decoder_vocab_size), else vocab_size."""
    return decoder_vocab(spec) if _causal_lm_tied(spec) else spec.int("vocab_size")


def _causal_lm(spec: ModelSpec) -> ParamNode:
    """The ForCausalLM classes (BartForCausalLM, WhisperForCausalLM, ...): the decoder alone, wrapped (model.decoder),
    with its own token embedding and its cross-attention built but never fed, then an output head tied to that
    embedding or not."""
    tied = _causal_lm_tied(spec)
    name = str(spec.values["lm_head_name"])
    head = ParamNode(name, () if tied else linear(name, spec.int("hidden_size"), causal_lm_rows(spec), False),
                     note="tied to decoder.embed_tokens (counted once)" if tied else
                     "never tied (the class declares no tie)" if spec.values.get("causal_lm_never_tied") else "",
                     source=_head_source(spec), key="tie_embeddings")
    return node(spec.architecture, decoder(spec, False), head)


def _head_source(spec: ModelSpec) -> Span | None:
    """Where an output head's tie is written: tie_word_embeddings, the key the family reads it from, else vocab_size."""
    return spec.key_span("tie_embeddings") or spec.key_span("written_tie") or spec.key_span("vocab_size")


def build_seq2seq(spec: ModelSpec) -> ParamNode:
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    tied = bool(v["tie_embeddings"])
    head_kind = spec.head
    if head_kind == "causal_lm":
        return _causal_lm(spec)
    has_shared = bool(v["shared_embedding"])
    top: list[ParamNode | None] = []
    if has_shared:
        top.append(ParamNode("shared_embeddings", embedding("shared", vocab, h), source=spec.key_span("vocab_size"),
                             key="vocab_size", note="shared by encoder and decoder" if tied else ""))
    # transformers ties the stacks' embed_tokens to `shared` through the same switch as the head.
    stacks_share = has_shared and tied
    top.append(encoder(spec, stacks_share))
    if head_kind not in ENCODER_ONLY_HEADS:
        top.append(decoder(spec, stacks_share))
    if head_kind == "seq2seq_lm":
        name = str(v["lm_head_name"])
        target = "shared" if has_shared else "decoder.embed_tokens"
        # The head is as wide as what it is tied to (Marian unshared: decoder_vocab_size).
        rows = vocab if has_shared else decoder_vocab(spec)
        top.append(ParamNode(
            name, () if tied else linear(name, h, rows, False),
            note=f"tied to {target} (counted once)" if tied else "",
            source=_head_source(spec), key="tie_embeddings"))
    elif head_kind == "sequence_classification":
        labels = spec.int("num_labels")
        top.append(ParamNode("classification_head", linear("dense", h, h, True) + linear("out_proj", h, labels, True),
                             source=spec.key_span("num_labels"), key="num_labels"))
    elif head_kind == "token_classification":  # T5ForTokenClassification: the encoder, a label per token
        top.append(ParamNode("classifier", linear("classifier", h, spec.int("num_labels"), True),
                             source=spec.key_span("num_labels"), key="num_labels"))
    elif head_kind == "question_answering":  # the span's start and end logits over the decoder's output
        labels = spec.int("qa_labels")
        top.append(ParamNode("qa_outputs", linear("qa_outputs", h, labels, True),
                             source=spec.key_span("num_labels"), key="num_labels"))
    elif head_kind == "audio_classification":
        proj, labels = spec.int("classifier_proj_size"), spec.int("num_labels")
        tensors = linear("projector", h, proj, True) + linear("classifier", proj, labels, True)
        if v["use_weighted_layer_sum"]:  # one weight per encoder layer plus the input embeddings
            tensors = (Tensor("layer_weights", (spec.int("encoder_layers") + 1,), "other", "layer_weights"),) + tensors
        top.append(ParamNode("classifier", tensors, source=spec.key_span("num_labels"), key="num_labels"))
    return node(spec.architecture, *top)
