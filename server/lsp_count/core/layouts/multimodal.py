"""Vision-language models: vision tower + projector + language model (+ head).

The towers are the sub-families' own layouts (``layouts/encoder.py`` for the
CLIP / SigLIP vision towers, any decoder family for the language model), built
as their bare classes, as transformers' AutoModel builds them inside the composite.
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.engine import layout_builder
from lsp_count.core.layouts.encoder import vision_tower
from lsp_count.core.params import ParamNode, Tensor, linear, node, norm
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError


def _subs(spec: ModelSpec) -> tuple[ModelSpec, ModelSpec]:
    vision, text = spec.subspecs.get("vision"), spec.subspecs.get("text")
    if vision is None or text is None:  # build_spec reports why a sub-config failed; this is a guard
        raise SpecError((Problem("error", "LC103", f"{spec.model_type} needs a vision_config and a text_config", spec.span),))
    return vision, text


def language_model(text: ModelSpec) -> ParamNode:
    """The text sub-model as its bare class (LlamaModel, Gemma3TextModel, ...): no head of its own."""
    base = next((cls for cls, head in text.family.heads.items() if head == "base"), text.architecture)
    built = layout_builder(text.family.layout)(replace(text, head="base", architecture=base))
    return ParamNode("language_model", children=built.children, source=text.span, note=text.model_type)


def _lm_head(spec: ModelSpec, text: ModelSpec, tied: bool) -> ParamNode:
    h, vocab = text.int("hidden_size"), text.int("vocab_size")
    return ParamNode("lm_head", () if tied else linear("lm_head", h, vocab, False),
                     note="tied to the language model's embed_tokens (counted once)" if tied else "",
                     source=spec.key_span("tie_embeddings") or text.key_span("vocab_size"), key="tie_embeddings")


def _feature_layers(spec: ModelSpec) -> int:
    layers = spec.values.get("vision_feature_layer")
    if isinstance(layers, list):
        if not layers or not all(isinstance(x, int) and not isinstance(x, bool) for x in layers):
            raise SpecError((Problem("error", "LC102", '"vision_feature_layer": expected a layer index or a list of them',
                                     spec.key_span("vision_feature_layer") or spec.span),))
        return len(layers)
    if isinstance(layers, int) and not isinstance(layers, bool):
        return 1
    raise SpecError((Problem("error", "LC102", '"vision_feature_layer": expected a layer index or a list of them'
                             + (", got null" if layers is None else ""),
                             spec.key_span("vision_feature_layer") or spec.span),))


def build_llava(spec: ModelSpec) -> ParamNode:
    """LlavaForConditionalGeneration: vision tower, two-layer MLP projector, language model, lm_head."""
    vision, text = _subs(spec)
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    bias = bool(spec.values["projector_bias"])
    projector = ParamNode(
        "projector", linear("linear_1", vh * _feature_layers(spec), th, bias) + linear("linear_2", th, th, bias),
        source=spec.key_span("vision_feature_layer") or spec.key_span("projector_bias"), key="vision_feature_layer",
    )
    body = (vision_tower(vision), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    # LlavaConfig ties the head when either it or its text_config asks to.
    tied = bool(spec.values["tie_embeddings"]) or bool(text.values.get("tie_embeddings"))
    return node(spec.architecture, *body, _lm_head(spec, text, tied))


def build_gemma3(spec: ModelSpec) -> ParamNode:
    """Gemma3ForConditionalGeneration: SigLIP vision tower, soft-embedding norm + projection, Gemma 3 text model."""
    vision, text = _subs(spec)
    vh, th = vision.int("hidden_size"), text.int("hidden_size")
    projector = ParamNode(
        "projector",
        (Tensor("mm_input_projection_weight", (vh, th), "linear", "multi_modal_projector"),)
        + norm("mm_soft_emb_norm", vh, False),  # Gemma3RMSNorm: weight only
    )
    body = (vision_tower(vision), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    if spec.head == "sequence_classification":
        labels = int(spec.values.get("num_labels") or 2)
        return node(spec.architecture, *body, ParamNode("score", linear("score", th, labels, False)))
    # Gemma3Config's own tie_word_embeddings decides (text_config's is not consulted).
    return node(spec.architecture, *body, _lm_head(spec, text, bool(spec.values["tie_embeddings"])))
