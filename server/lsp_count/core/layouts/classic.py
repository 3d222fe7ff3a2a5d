"""Classic decoders (GPT-1, CTRL, XGLM, BioGPT; families/classic.py): plain attention and MLP blocks with biases,
LayerNorms, a token embedding and, where learned, a position table; the head classes those models have.

The tree's node names are the decoder layout's ("embeddings", "layers" > "attention" / "mlp" / "norms",
"final_norm", "lm_head", "score") so that the memory estimate and LoRA read it alike; the tensors carry the
module names the model classes give them (c_attn, Wq, ffn.0, out_proj, ...).
"""

from __future__ import annotations

from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.spec import ModelSpec, head_labels


def _attention(spec: ModelSpec, name: str, source_key: str) -> ParamNode:
    """A layer's attention: every projection hidden_size × hidden_size with a bias (GPT-1's q/k/v fused in c_attn)."""
    h = spec.int("hidden_size")
    names = spec["attn_names"]
    if len(names) == 2:  # fused q/k/v (a Conv1D: the same numbers as a Linear's transpose), then the output
        tensors = linear(names[0], h, 3 * h, True) + linear(names[1], h, h, True)
    else:
        tensors = tuple(t for n in names for t in linear(n, h, h, True))  # type: ignore[union-attr]
    return ParamNode(name, tensors, source=spec.key_span(source_key), key=source_key)


def _layer(spec: ModelSpec) -> tuple[ParamNode | None, ...]:
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    up, down = spec["mlp_names"]  # type: ignore[misc]
    attn = _attention(spec, "attention", "num_heads")
    cross = _attention(spec, "cross_attention", "cross_attention") if spec["cross_attention"] else None
    mlp = ParamNode("mlp", linear(up, h, f, True) + linear(down, f, h, True), source=spec.key_span("intermediate_size"),
                    key="intermediate_size")
    names = tuple(spec["layer_norms"])  # type: ignore[arg-type]
    if cross is not None:  # XGLM: encoder_attn_layer_norm before the cross-attention
        names += ("encoder_attn_layer_norm",)
    norms = ParamNode("norms", tuple(t for n in names for t in norm(n, h, True)))
    return attn, cross, mlp, norms


def build_classic(spec: ModelSpec) -> ParamNode:
    """A classic decoder: token (and learned position) embeddings, layers, final norm (where it has one), head."""
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    emb = embedding(str(v["tokens_name"]), vocab, h)
    rows = int(v["position_rows"] or 0)  # type: ignore[call-overload]
    if rows:
        emb += embedding(str(v["positions_name"]), rows, h)
    embeddings = ParamNode("embeddings", emb, source=spec.key_span("vocab_size"), key="vocab_size",
                           note="" if rows else "sinusoidal positions: a buffer, no parameters")
    layers = node("layers", *_layer(spec), repeat=spec.int("num_layers"), source=spec.key_span("num_layers"),
                  key="num_layers")
    final_name = v.get("final_norm_name")
    final = ParamNode("final_norm", norm(str(final_name), h, True)) if final_name else None
    body = node("model", embeddings, layers, final)
    if spec.head == "base":
        return ParamNode(spec.architecture, children=body.children)
    if spec.head == "sequence_classification":
        return node(spec.architecture, *body.children,
                    ParamNode("score", linear(str(v["score_name"]), h, head_labels(v), False)))  # type: ignore[arg-type]
    if spec.head == "token_classification":  # BioGPT: a classifier over every token, with a bias
        return node(spec.architecture, *body.children,
                    ParamNode("classifier", linear("classifier", h, head_labels(v), True)))  # type: ignore[arg-type]
    head = _lm_head(spec)
    if spec.head == "double_heads":  # GPT-1: the LM head and a multiple-choice summary (num_labels forced to 1)
        summary = None
        if v.get("summary_use_proj"):
            out = 1 if v.get("summary_proj_to_labels") else h
            summary = ParamNode("multiple_choice_head", linear("summary", h, out, True),
                                source=spec.key_span("summary_use_proj"), key="summary_use_proj")
        return node(spec.architecture, *body.children, head, summary)
    return node(spec.architecture, *body.children, head)


def _lm_head(spec: ModelSpec) -> ParamNode:
    """The LM head over the vocabulary: tied to the token embedding where tie_word_embeddings (CTRL's bias is
    its own all the same)."""
    v = spec.values
    h, vocab = spec.int("hidden_size"), spec.int("vocab_size")
    name = str(v["head_name"])
    tied = bool(v["tie_embeddings"])
    bias = bool(v.get("head_bias"))
    if tied:
        tensors: tuple[Tensor, ...] = (Tensor(f"{name}.bias", (vocab,), "bias", name),) if bias else ()
    else:
        tensors = linear(name, h, vocab, bias)
    return ParamNode("lm_head", tensors, note=f"tied to {v['tokens_name']} (counted once)" if tied else "",
                     source=spec.key_span("tie_embeddings") or spec.key_span("vocab_size"), key="tie_embeddings")
