"""Q-Former vision-language models (BLIP-2, InstructBLIP): a BLIP vision tower, a Q-Former whose learned
queries cross-attend to the tower's patches every ``cross_attention_frequency`` layers, a projection to the
language model's width, and the language model from text_config, counted through its own family (a decoder
as its ForCausalLM class, a seq2seq model as its ForConditionalGeneration class, or bare).

The Q-Former row's switch: ``qformer_embeddings`` (True: it embeds the instruction itself, word and position
tables and a LayerNorm, and every layer has the text tokens' feed-forward too, InstructBLIP's; False: a bare
LayerNorm on its input, the text feed-forward by use_qformer_text_input, BLIP-2's). The composite's:
``bare_language_model`` (the base class holds the text model
without its head: InstructBlipModel's AutoModel; False: with it, Blip2Model's AutoModelForCausalLM).
"""

from __future__ import annotations

from dataclasses import replace

from lsp_count.core.engine import layout_builder
from lsp_count.core.families.common import PaddedEmbedding, pad_token_problem
from lsp_count.core.layouts.encoder import as_base, path_linear, path_norm
from lsp_count.core.layouts.multimodal import no_sub_model
from lsp_count.core.params import LANGUAGE_MODEL_NODE, ParamNode, Tensor, embedding, linear, node
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError

# Text families transformers (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, v5) builds as a ForCausalLM class lsp-count
# does not model (the decoder half of a seq2seq model): refused rather than counted as another class.
_CAUSAL_LM_NOT_MODELLED = frozenset({"bart", "mbart", "pegasus", "marian", "blenderbot", "blenderbot-small", "plbart",
                                     "mvp", "whisper"})
# Families with a causal-LM class here that transformers' causal-LM mapping does not list: the composite then takes
# AutoModelForSeq2SeqLM, which has no class for them (it fails to build).
_NOT_IN_CAUSAL_LM_MAPPING = frozenset({"mistral4", "mllama_text_model", "flaubert"})


def blip_vision(spec: ModelSpec, name: str = "vision_model") -> ParamNode:
    """Blip2VisionModel / InstructBlipVisionModel as a node named ``name``: embeddings (class_embedding, a
    Conv2d patch embedding with a bias over 3 channels, a position table of the patches + 1), ``num_layers``
    layers (a fused qkv without a bias of its own, given one 3 × hidden wide where qkv_bias, projection, fc1 /
    fc2 with biases, two LayerNorms) and post_layernorm."""
    h, ffn = spec.int("hidden_size"), spec.int("intermediate_size")
    image, patch = spec.int("image_size"), spec.int("patch_size")
    patches = (image // patch) ** 2
    embeddings = ParamNode("embeddings", (
        Tensor("embeddings.class_embedding", (1, 1, h), "other", "embeddings"),
        Tensor("embeddings.patch_embedding.weight", (h, 3, patch, patch), "conv", "patch_embedding"),
        Tensor("embeddings.patch_embedding.bias", (h,), "bias", "patch_embedding"),
        Tensor("embeddings.position_embedding", (1, patches + 1, h), "embedding", "embeddings"),
    ), note=f"{patches:,} patches + the class token", source=spec.key_span("patch_size") or spec.key_span("image_size"),
        key="patch_size")
    # Blip2Attention sets qkv.bias to cat(q_bias, 0, v_bias): one parameter 3 × hidden wide.
    attention = path_linear("self_attn.qkv", h, 3 * h, bool(spec.values["qkv_bias"])) \
        + path_linear("self_attn.projection", h, h)
    layers = node(
        "layers",
        ParamNode("self_attn", attention, source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("mlp", path_linear("mlp.fc1", h, ffn) + path_linear("mlp.fc2", ffn, h),
                  source=spec.key_span("intermediate_size"), key="intermediate_size"),
        ParamNode("norms", path_norm("layer_norm1", h) + path_norm("layer_norm2", h)),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    return node(name, embeddings, layers, ParamNode("post_layernorm", path_norm("post_layernorm", h)),
                source=spec.span, note=spec.model_type)


def _qformer_attention(prefix: str, h: int, kv_width: int) -> tuple[Tensor, ...]:
    """Blip2QFormerAttention: query, key, value (keys and values from ``kv_width``), output.dense, output.LayerNorm."""
    return path_linear(f"{prefix}.attention.query", h, h) + path_linear(f"{prefix}.attention.key", kv_width, h) \
        + path_linear(f"{prefix}.attention.value", kv_width, h) + path_linear(f"{prefix}.output.dense", h, h) \
        + path_norm(f"{prefix}.output.LayerNorm", h)


def _feed_forward(prefix: str, h: int, ffn: int) -> tuple[Tensor, ...]:
    """An intermediate (dense to ``ffn``) and output (dense back, LayerNorm) pair."""
    suffix = prefix.removeprefix("intermediate")
    return path_linear(f"{prefix}.dense", h, ffn) + path_linear(f"output{suffix}.dense", ffn, h) \
        + path_norm(f"output{suffix}.LayerNorm", h)


def qformer(spec: ModelSpec, encoder_width: int, text_layers: bool, embeddings: bool,
            name: str = "qformer") -> ParamNode:
    """The Q-Former as a node named ``name``: its input (``embeddings``: word and position tables and a
    LayerNorm; else a LayerNorm), and ``num_layers`` layers of self-attention, the queries' feed-forward
    (intermediate_query / output_query), the text's where ``text_layers``, and in layers 0, f, 2f, ...
    (f: cross_attention_frequency) cross-attention whose keys and values come from ``encoder_width``. Heads
    divide the width (checked), so every attention is hidden_size wide."""
    h, ffn, layers = spec.int("hidden_size"), spec.int("intermediate_size"), spec.int("num_layers")
    every = spec.int("cross_attention_frequency")
    crossing = (layers + every - 1) // every  # layer_idx % cross_attention_frequency == 0
    if embeddings:
        head = ParamNode("embeddings", embedding("embeddings.word_embeddings", spec.int("vocab_size"), h)
                         + embedding("embeddings.position_embeddings", spec.int("max_positions"), h)
                         + path_norm("embeddings.layernorm", h), source=spec.key_span("vocab_size"), key="vocab_size")
    else:
        head = ParamNode("layernorm", path_norm("layernorm", h))
    own = _qformer_attention("attention", h, h) + _feed_forward("intermediate_query", h, ffn) \
        + (_feed_forward("intermediate", h, ffn) if text_layers else ())
    where = dict(source=spec.key_span("cross_attention_frequency") or spec.key_span("num_layers"),
                 key="cross_attention_frequency")
    with_cross = node("layers_with_cross_attention", tensors=own + _qformer_attention("crossattention", h, encoder_width),
                      repeat=crossing, note=f"every {every} from layer 0", **where)  # type: ignore[arg-type]
    without = node("layers_without_cross_attention", tensors=own, repeat=layers - crossing,
                   **where)  # type: ignore[arg-type]
    return node(name, head, with_cross, without, source=spec.span, note=spec.model_type)


# The Q-Former's two kinds of layer: memory counts both as layer stacks, and LoRA numbers each kind's layers by
# layer_indices (neither is named "layers", which a composite's text model holds).
STACK_NAMES = frozenset({"layers_with_cross_attention", "layers_without_cross_attention"})


def layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """The layers' own numbers of each kind of a composite's Q-Former projector (Granite Speech's projector_config),
    for apply_lora's layer_indices: with cross-attention 0, f, 2f, ... (f: cross_attention_frequency), without
    it the others; {} for any other model."""
    former = spec.subspecs.get("projector") if spec is not None else None
    if former is None or former.family.layout != "qformer":
        return {}
    layers, every = former.int("num_layers"), former.int("cross_attention_frequency")
    return {"layers_with_cross_attention": tuple(range(0, layers, every)),
            "layers_without_cross_attention": tuple(i for i in range(layers) if i % every)}


def language_model_with_head(spec: ModelSpec, text: ModelSpec) -> ParamNode:
    """The text model with its head, as the composite builds it: AutoModelForCausalLM where transformers maps
    text_config's type to a causal-LM class, else AutoModelForSeq2SeqLM (T5's ForConditionalGeneration). Its
    own family counts it, its own config ties (or not) its output head."""
    causal = next((cls for cls, head in text.family.heads.items() if head == "causal_lm"), None)
    seq2seq = next((cls for cls, head in text.family.heads.items() if head == "seq2seq_lm"), None)
    chosen = None if text.model_type in _CAUSAL_LM_NOT_MODELLED | _NOT_IN_CAUSAL_LM_MAPPING else causal or seq2seq
    if chosen is None:
        raise SpecError((Problem("error", "LC103", f"text_config is {text.model_type}: lsp-count does not model the "
                                                   f"causal-LM or seq2seq-LM class {spec.architecture} builds from it",
                                 text.span or spec.span),))
    built = layout_builder(text.family.layout)(replace(text, head=text.family.heads[chosen], architecture=chosen))
    return ParamNode(LANGUAGE_MODEL_NODE, children=built.children, tensors=built.tensors, source=text.span,
                     note=f"{text.model_type}, with its own output head, tied as text_config says")


def _bare_language_model(text: ModelSpec) -> ParamNode:
    built = layout_builder(text.family.layout)(as_base(text))
    return ParamNode(LANGUAGE_MODEL_NODE, children=built.children, tensors=built.tensors, source=text.span,
                     note=text.model_type)


def _subs(spec: ModelSpec) -> tuple[ModelSpec, ModelSpec]:
    vision, former = spec.subspecs.get("vision"), spec.subspecs.get("qformer")
    if vision is None or former is None:
        raise no_sub_model(spec, "a vision_config and a qformer_config")
    return vision, former


def build_blip2(spec: ModelSpec) -> ParamNode:
    """Blip2ForConditionalGeneration / InstructBlipForConditionalGeneration and the classes beside them: the
    vision tower, query_tokens (num_query_tokens × the Q-Former's width), the Q-Former (its cross-attention
    reads the tower's width: the composite config sets encoder_hidden_size to it), then by head:
    language_projection and the language model (its head too unless ``bare_language_model`` on the base
    class); BLIP-2's retrieval classes: the Q-Former's text embeddings (word and position tables), and
    vision_projection / text_projection to image_text_hidden_size, itm_head (2 outputs)."""
    vision, former = _subs(spec)
    qh = former.int("hidden_size")
    queries = ParamNode("query_tokens", (Tensor("query_tokens", (1, spec.int("num_query_tokens"), qh), "other",
                                                "query_tokens"),),
                        source=spec.key_span("num_query_tokens"), key="num_query_tokens")
    body = (queries, qformer_of(former, vision.int("hidden_size")))
    if spec.head in ("conditional_generation", "base"):
        text = spec.subspecs.get("text")
        if text is None:
            raise no_sub_model(spec, "a text_config")
        bare = spec.head == "base" and bool(spec.values.get("bare_language_model"))
        projection = ParamNode("language_projection", linear("language_projection", qh, text.int("hidden_size"), True))
        language = _bare_language_model(text) if bare else language_model_with_head(spec, text)
        return node(spec.architecture, blip_vision(vision), *body, projection, language)
    width = spec.int("image_text_hidden_size")
    padded = pad_token_problem(former, (PaddedEmbedding("Q-Former's word embedding", "vocab_size", "vocab_size"),))
    if padded is not None:  # Blip2TextEmbeddings takes the Q-Former's pad_token_id as its padding index
        raise SpecError((padded,))
    text_embeddings = ParamNode("embeddings", embedding("embeddings.word_embeddings", former.int("vocab_size"), qh)
                                + embedding("embeddings.position_embeddings", former.int("max_positions"), qh))
    vision_projection = ParamNode("vision_projection", linear("vision_projection", qh, width, True),
                                  source=spec.key_span("image_text_hidden_size"), key="image_text_hidden_size")
    text_projection = ParamNode("text_projection", linear("text_projection", qh, width, True),
                                source=spec.key_span("image_text_hidden_size"), key="image_text_hidden_size")
    if spec.head == "text_with_projection":
        return node(spec.architecture, body[0], text_embeddings, body[1], text_projection)
    if spec.head == "vision_with_projection":
        return node(spec.architecture, blip_vision(vision), *body, vision_projection)
    # image_text_retrieval
    return node(spec.architecture, blip_vision(vision), body[0], text_embeddings, body[1], vision_projection,
                text_projection, ParamNode("itm_head", linear("itm_head", qh, 2, True)))


def build_blip_vision(spec: ModelSpec) -> ParamNode:
    """Blip2VisionModel / InstructBlipVisionModel on its own."""
    return ParamNode(spec.architecture, children=blip_vision(spec).children)


def qformer_of(spec: ModelSpec, encoder_width: int, name: str = "qformer") -> ParamNode:
    """The Q-Former by its row's switches (``qformer_embeddings``; the text feed-forward with them, or by
    use_qformer_text_input), its cross-attention reading ``encoder_width`` (BLIP-2's tower's, or the Q-Former's own
    encoder_hidden_size where no composite sets it: Granite Speech's projector)."""
    embeddings = bool(spec.values.get("qformer_embeddings"))
    text_layers = embeddings or bool(spec.values.get("use_qformer_text_input"))
    return qformer(spec, encoder_width, text_layers, embeddings, name)


def build_qformer(spec: ModelSpec) -> ParamNode:
    """Blip2QFormerModel / InstructBlipQFormerModel on its own: cross-attention from its encoder_hidden_size."""
    return ParamNode(spec.architecture, children=qformer_of(spec, spec.int("encoder_hidden_size")).children)
