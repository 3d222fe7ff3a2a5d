"""Encoders: BERT-likes (DeBERTa, MPNet, GTE, NomicBERT, EuroBERT among them), ModernBERT, ALBERT, ViT, DeiT,
ViTMAE, I-JEPA, DINOv2, BEiT, Data2Vec-Vision, CLIP and SigLIP (dual tower) and their towers.

Every single-stack encoder is ``build_encoder`` with the family's switches
(``lsp_count.core.families.encoders``): embeddings by kind, one transformer
layer repeated, optional pre/final norms, pooler and a head by class.

Switches a row may leave out, with the value a family without them gets: ``norm_bias`` (True:
every LayerNorm has a bias), ``attn_out_bias`` and ``mlp_bias`` (True), ``position_embedding``
(a learned table; None: none, rotary positions), two ``attn_names`` (a fused query/key/value
projection, then the output) in place of four, ``mlp_gated`` (False; True: the first MLP
projection is a fused GLU, 2 × intermediate_size wide), ``first_layer_identity`` (none: layer 0
has every layer norm; the norms named are an nn.Identity in layer 0, ModernBERT's ``attn_norm``),
``transform_bias`` and ``decoder_bias`` (True: the MLM transform's dense layer and the decoder
have biases), and the ``classifier`` kind "transform" (every classifier class runs the MLM
head's transform, dense + norm, before its Linear).

Factorised embeddings (ELECTRA, RoFormer, RemBERT): ``embedding_size`` (the embeddings' width; absent:
hidden_size), ``embed_projection`` (the Linear from it up to hidden_size, by its path; None: none) and
``embed_projection_always`` (False: only where the two widths differ, ELECTRA's and RoFormer's
``embeddings_project``; True: always, RemBERT's), ``mlm_width`` (the MLM transform's output and the
decoder's input; absent: hidden_size). ``cross_norm`` names the cross-attention block's LayerNorm
(absent: BERT's ``crossattention.output.LayerNorm``). ``text_head``: the bare text model ends in a Linear of
that name, hidden → ``projection_size`` (SigLIP's text tower). ``sinusoidal_positions`` (RoFormer): a frozen
(requires_grad=False) sinusoidal table of max_position_embeddings × hidden_size // heads by its path.
``pretraining`` "discriminator" (ELECTRA): the pre-training class is a per-token discriminator (dense +
dense_prediction), no MLM head or pooler. ``multiple_choice`` "summary" (ELECTRA, RoFormer): the
multiple-choice class pools through a SequenceSummary (a Linear where summary_use_proj, to num_labels
where summary_proj_to_labels, else to hidden_size) before its classifier. ``qa_labels``: the question-answering
class's outputs whatever num_labels says (RoFormer's 2; absent: num_labels).

DeBERTa's parts: ``embed_norm_hidden`` (the embeddings' LayerNorm is hidden_size wide, after the
projection; absent: the embedding width), ``embed_projection_bias`` (False: the projection has no bias),
``attn_extra`` (per layer, more projections of the attention, each ``(path, in, out, bias)``: the
relative-position key and query projections, the talking-head mixers), ``attn_bias_params`` (bias
vectors of the attention width held beside a bias-less fused projection: DeBERTa's q_bias and v_bias),
``relative_rows`` (rows of the encoder's relative-position table, ``encoder.rel_embeddings``, hidden
wide; None: none) and ``relative_norm`` (its LayerNorm, ``encoder.LayerNorm``), ``conv`` ((kernel,
groups) of the encoder's Conv1d beside layer 0, with its LayerNorm; None: none), the pooler kind
"context" (DeBERTa's ContextPooler: ``pooler_hidden_size`` square), ``pooler_in_base`` (False: the bare
model has no pooler, the classifier classes do: DeBERTa, GTE, NomicBERT), ``mlm_decoder`` (False: no
decoder Linear, the head multiplies by the word embedding itself) and ``mlm_dense_is_output`` (the
transform's dense layer is the class's output embeddings, which peft's all-linear leaves out: it sits in
a node of its own, ``mlm_output``).

MPNet's relative-position bias is ``relative_rows`` at ``relative_path`` (``encoder.relative_attention_bias``),
one column per head (``relative_per_head``). GTE, NomicBERT and EuroBERT: three ``mlp_names`` (gate, up,
down, each its own Linear), ``mlp_in_bias`` (the gate's and up's biases apart from down's: GTE),
``kv_heads`` (EuroBERT: key and value projections that many heads wide), the ``classifier`` kind
"dense_classifier" (EuroBERT: ``dense`` then ``classifier``), ``mlm_names`` without a transform (None,
None, decoder: EuroBERT's lm_head alone). DINOv2: ``layer_scales`` (a hidden-wide vector per name in every
layer), the patch embedding kind "dinov2" (class token, ``mask_token`` (1 × hidden), ``register_tokens``
rows, a biased conv, positions for the class token and patches) and ``classifier_concat`` (the image
classifier reads 2 × hidden: the class token and the patches' mean). DeiT: the patch embedding kind "deit"
(ViT's with a distillation token and its position) and the head "image_classification_with_teacher"
(cls_classifier and distillation_classifier). SigLIP 2: the patch embedding kind "siglip2" (a Linear over
each flattened patch, ``num_patches`` positions; "siglip2_grid" where the table is resampled to images of any size).

BERT's relatives: ``embed_tables`` (more nn.Embedding tables in the embeddings, each ``(path, rows, width)``:
ERNIE's task types, RoCBERT's pronunciation and shape), ``embed_projection_in`` (the embedding projection's input
width where it is not embedding_size: RoCBERT's map_inputs_layer over the word, pronunciation and shape embeddings
side by side), ``layer_linears`` (more Linears in every layer, each ``(path, in, out, bias)``: X-MOD's per-language
adapters), the ``pretraining`` kind "mlm" (the pre-training class is the pooler and the MLM head, no next-sentence
classifier: RoCBERT) and the head "next_sentence" (the pooler, then ``cls.seq_relationship``, hidden → 2).

YOLOS: ``detection_tokens`` (learned tokens after the patches, each with a position), ``mid_positions`` (a position
table for every layer after the first, ``encoder.interpolation.mid_position_embeddings``) and the head
"object_detection" (class_labels_classifier and bbox_predictor, two 3-layer MLPs).
DINOv3 ViT: the patch embedding kind "dinov3" (class, mask and ``register_tokens`` tokens, a biased conv, no
position table: rotary positions), ``qkv_biases`` (the query, key and value biases each by a key of its own, in place
of ``qkv_bias``) and ``attn_hidden_wide`` (the projections are hidden_size wide whatever the heads).
BEiT and Data2Vec-Vision: the patch embedding kind "beit" (class token, ``mask_token`` (1 × 1 × hidden), a biased conv,
``absolute_positions``: a table for the class token and patches, or none), ``layer_relative_bias`` (a relative position
bias table, (2·Wh − 1)·(2·Ww − 1) + 3 rows × heads for a Wh × Ww patch grid, in every layer by its path in the layer)
and ``shared_relative_bias`` (one such table by its path in the model), ``layer_scales`` named without a dot (the
layer's own parameters, lambda_1 / lambda_2), the pooler kind "mean_norm" (pooler.layernorm: the patches' mean through
a LayerNorm), ``image_classifier_pooled`` (the image-classification class builds the pooler too) and the head
"masked_token_prediction" (a LayerNorm, then lm_head over ``vocab_size`` visual tokens).
ViTMAE and I-JEPA: ``frozen_positions`` (ViT's position table is a fixed sin-cos parameter, requires_grad=False:
counted, not trained), ``class_token`` (False: no class token, positions for the patches alone: I-JEPA) and the head
"mae_pretraining" (ViTMAEForPreTraining's decoder: decoder_embed, a mask token, a frozen position table, the encoder's
layer at ``decoder_hidden_size`` / ``decoder_num_heads`` / ``decoder_intermediate_size`` repeated
``decoder_num_layers`` times, decoder_norm, decoder_pred to patch_size² × channels).

MobileBERT: ``bottleneck_layers`` (each layer is ``bottleneck_layers``: attention and stacked MLPs at an inner
width, with Linears from and back to hidden_size around them) and ``mlm_output_extension`` (the MLM decoder reads
embedding_size values; a bias-less Linear of that path, vocab → hidden − embedding_size, is the rest of the output
embedding).

SqueezeBERT: ``conv_linears`` (layer projections that are 1×1 nn.Conv1d modules, by path → groups: a weight
out × in / groups × 1 and a bias, no nn.Linear for LoRA's all-linear).

ConvBERT: ``attn_width`` (the query, key and value projections' width where it is not heads × head_dim), ``attn_params``
(more parameters in every attention block, each ``(path, shape, kind)``: the separable convolution's depthwise and
pointwise weights and bias; ``attn_extra`` and these are in a cross-attention block too, under its name) and
``grouped_linears`` (layer projections that are grouped linears, by path → groups: a groups × in / groups ×
out / groups weight and an out-wide bias).

``attention_map_head`` (ESM's contact-prediction head): a Linear of that path over every layer's attention maps,
num_layers × num_heads inputs → 1 output with a bias, in the bare model and so in every class (None: none).

``pooler_in_every_class`` (LayoutLM): every head class builds the bare model with its pooler, the masked-LM, token
classification and question-answering classes too ("but_question_answering", BigBird: all but that one).
``qa_head`` "intermediate" (BigBird): the question-answering class's qa_classifier runs a feed-forward like a
layer's (intermediate.dense, output.dense and output.LayerNorm) before its qa_outputs; "tapas": TAPAS's cell
selection parameters (and aggregation_classifier) over the bare model with its pooler. ``span_selection``
(Splinter): the question-answering and pre-training classes end in a question-aware span selection head at that
path (four dense + LayerNorm transforms, hidden → hidden, and two bias-less hidden × hidden classifiers). XLM:
the ``classifier`` kind "summary" (the sequence classifier is a SequenceSummary alone), the ``multiple_choice`` kind
"summary_logits" (the SequenceSummary, then ``logits_proj``, num_labels → 1) and the head
"squad_question_answering" (an XLNet-style SQuAD head at ``squad_head``: start logits, end logits with a LayerNorm,
answer class).
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.params import ParamNode, Tensor, embedding, linear, node, norm
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError, head_labels


def path_linear(path: str, in_f: int, out_f: int, bias: bool = True) -> tuple[Tensor, ...]:
    """A linear layer named by its path; the module is the last part (what LoRA targets match)."""
    module = path.rsplit(".", 1)[-1]
    return tuple(replace(t, module=module) for t in linear(path, in_f, out_f, bias))


def path_norm(path: str, size: int, bias: bool = True) -> tuple[Tensor, ...]:
    """A norm named by its path; the module is the last part."""
    module = path.rsplit(".", 1)[-1]
    return tuple(replace(t, module=module) for t in norm(path, size, bias))


def layer_linear(spec: ModelSpec, path: str, in_f: int, out_f: int, bias: bool = True) -> tuple[Tensor, ...]:
    """One of a layer's projections: a Linear, or where ``conv_linears`` names its path (path → groups), a 1×1
    nn.Conv1d with that many groups (SqueezeBERT's): a weight out × in / groups × 1, a bias; or where
    ``grouped_linears`` does, a grouped linear (ConvBERT's)."""
    module = path.rsplit(".", 1)[-1]
    grouped = dict(spec.values.get("grouped_linears") or ()).get(path)  # type: ignore[call-overload]
    if grouped is not None:
        # ConvBERT's GroupedLinearLayer: a groups × in / groups × out / groups weight (floored), an out-wide bias;
        # no nn.Linear (LoRA's all-linear does not reach it).
        g = int(grouped)
        weight = Tensor(f"{path}.weight", (g, in_f // g, out_f // g), "other", module)
        return (weight, Tensor(f"{path}.bias", (out_f,), "bias", module)) if bias else (weight,)
    groups = dict(spec.values.get("conv_linears") or ()).get(path)  # type: ignore[call-overload]
    if groups is None:
        return path_linear(path, in_f, out_f, bias)
    weight = Tensor(f"{path}.weight", (out_f, in_f // int(groups), 1), "conv", module)
    return (weight, Tensor(f"{path}.bias", (out_f,), "bias", module)) if bias else (weight,)


def _norm_bias(spec: ModelSpec) -> bool:
    """Whether the family's LayerNorms have a bias (ModernBERT's norm_bias; every other family's do)."""
    return bool(spec.values.get("norm_bias", True))


def _labels(spec: ModelSpec) -> int:
    return head_labels(spec.values)


def _error(spec: ModelSpec, name: str, message: str) -> SpecError:
    return SpecError((Problem("error", "LC103", message, spec.key_span(name) or spec.span),))


def _pair(spec: ModelSpec, name: str, least: int = 1) -> tuple[int, int]:
    """image_size / patch_size: a number, or [height, width] where the class accepts a pair (ViT); each at least
    ``least`` (Kimi K2.5's merge_kernel_size builds at 0)."""
    value = spec.values[name]
    if isinstance(value, int) and not isinstance(value, bool) and value >= least:
        return value, value
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= least for x in value)):
        return int(value[0]), int(value[1])
    what = "a positive whole number" if least == 1 else f"a whole number of at least {least}"
    raise _error(spec, name, f'"{spec.key_name(name) or name}": expected {what} or [height, width], '
                             f'got {json.dumps(value, default=str)}')


def num_patches(spec: ModelSpec) -> int:
    """The patches an image of the config's image_size makes (its image_size over its patch_size, per side,
    floored): none where the patch is larger than the image on a side, as transformers builds it
    (empty_patch_grid says so)."""
    (ih, iw), (ph, pw) = _pair(spec, "image_size"), _pair(spec, "patch_size")
    return (ih // ph) * (iw // pw)


def empty_patch_grid(spec: ModelSpec) -> Problem | None:
    """A warning where an image encoder's patch is larger than its image on a side: transformers builds the
    model (its position table holds only the class and other tokens' rows, counted so), but an image of
    image_size gives its layers no patch."""
    v = spec.values
    if spec.family.layout != "encoder" or v.get("embed") in (None, "text", "siglip2", "siglip2_grid", "siglip_rotary"):
        return None
    try:
        (ih, iw), (ph, pw) = _pair(spec, "image_size"), _pair(spec, "patch_size")
    except SpecError:
        return None  # (the layout says what is wrong with them)
    if ph <= ih and pw <= iw:
        return None
    return Problem("warning", "LC103", f"patch_size {json.dumps(v['patch_size'])} is larger than image_size "
                                       f"{json.dumps(v['image_size'])}: no patch fits, so the layers see no patch of "
                                       "an image; transformers builds the model all the same (counted)",
                   spec.key_span("patch_size") or spec.span)


def image_tokens(spec: ModelSpec) -> int | None:
    """The tokens an image encoder's layers run over for one image of the config's ``image_size``,
    as its embeddings make them (_patch_embeddings): the patches and the class, distillation,
    detection or register tokens beside them. None for a model of another layout or a text encoder,
    whose sequence length is the user's to choose."""
    v = spec.values
    kind = v.get("embed")
    if spec.family.layout != "encoder" or kind in (None, "text"):
        return None
    if kind == "siglip2":  # images of any shape, resized to num_patches patches
        return spec.int("num_patches")
    if kind in ("siglip_rotary", "siglip_grid", "siglip2_grid"):  # images of any size, as many patches as they hold:
        # not known
        return None
    patches = num_patches(spec)
    ratio = v.get("mask_ratio")
    if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and 0 <= ratio < 1:
        # ViTMAE keeps int(patches · (1 − mask_ratio)) of them, at random (its pre-training decoder then runs
        # over all of them, narrower: not told apart here).
        patches = int(patches * (1 - ratio))
    if kind in ("vit", "deit"):
        return patches + bool(v.get("class_token", True)) + (kind == "deit") + int(v.get("detection_tokens") or 0)  # type: ignore[arg-type]
    if kind == "siglip":
        return patches
    if kind in ("dinov2", "dinov3"):
        return patches + 1 + int(v.get("register_tokens") or 0)  # type: ignore[arg-type]
    return patches + 1  # clip_vision, beit: a class token


def text_positions(spec: ModelSpec) -> int | None:
    """The longest sequence a text encoder's learned position table takes: its rows from the family's first
    position (``first_position``: RoBERTa's "after_pad", pad_token_id + 1; MPNet's 2; else 0). None for another
    layout, an image encoder, positions without a table (rotary, relative, sinusoidal), or a padding index that
    gives no first position, or positions past the table clamped to its last row (``positions_clamped``: TAPAS's,
    counted from each table cell's first token). A family whose table is one of its ``embed_tables`` says its
    longest sequence (``position_limit``)."""
    v = spec.values
    if spec.family.layout != "encoder" or v.get("embed") != "text" or v.get("positions_clamped"):
        return None
    limit = v.get("position_limit")  # a table among embed_tables (Nyströmformer's: rows 2 to max + 1)
    if limit is not None:
        return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else None
    if not v.get("position_embedding"):
        return None
    rows = v.get("max_positions")
    first = v.get("first_position", 0)
    if first == "after_pad":
        pad = v.get("pad_token_id")
        first = pad + 1 if isinstance(pad, int) and not isinstance(pad, bool) and pad >= 0 else None
    if not isinstance(rows, int) or not isinstance(first, int) or rows - first < 1:
        return None
    return rows - first


# --- embeddings -------------------------------------------------------------------------------


def _text_embeddings(spec: ModelSpec, dim: int) -> ParamNode:
    v = spec.values
    tensors = embedding(str(v["word_embedding"]), spec.int("vocab_size"), dim)
    if v["position_embedding"]:  # None: no learned table (ModernBERT's rotary positions)
        tensors += embedding(str(v["position_embedding"]), spec.int("max_positions"), dim)
    if v["token_types"]:
        tensors += embedding("token_type_embeddings", int(v["type_vocab_size"]), dim)
    # More tables beside them, each (path, rows, width): ERNIE's task types, RoCBERT's pronunciation and shape.
    for path, rows, width in v.get("embed_tables") or ():  # type: ignore[union-attr]
        tensors += embedding(str(path), int(rows), int(width))
    if v["embed_norm"]:
        # DeBERTa normalises after the projection up to hidden_size; the others before it, embedding-wide.
        width = spec.int("hidden_size") if v.get("embed_norm_hidden") else dim
        tensors += path_norm(str(v["embed_norm"]), width, _norm_bias(spec))
    return ParamNode("embeddings", tensors, source=spec.key_span("vocab_size"), key="vocab_size")


def _patch_embeddings(spec: ModelSpec, mask_token: bool = False) -> ParamNode:
    v = spec.values
    h, channels = spec.int("hidden_size"), spec.int("num_channels")
    kind = v["embed"]
    if kind in ("siglip2", "siglip2_grid"):  # a Linear over each flattened patch (channels × side²), positions for
        # num_patches (Cosmos3 Edge's "siglip2_grid": the table is resampled to each image's grid of patches, any size)
        side = spec.int("patch_size")
        tensors = (path_linear("embeddings.patch_embedding", channels * side * side, h)
                   + embedding("position_embedding", spec.int("num_patches"), h))
        return ParamNode("embeddings", tensors, source=spec.key_span("patch_size") or spec.key_span("num_patches"),
                         key="patch_size")
    ph, pw = _pair(spec, "patch_size")
    conv = Tensor("patch_embedding.weight", (h, channels, ph, pw), "conv", "patch_embedding")
    conv_bias = Tensor("patch_embedding.bias", (h,), "bias", "patch_embedding")
    if kind == "siglip_rotary":  # VideoLLaMA3's tower: rotary positions over images of any size, no position table
        return ParamNode("embeddings", (conv, conv_bias), source=spec.key_span("patch_size"), key="patch_size")
    patches = num_patches(spec)
    if kind in ("vit", "deit"):  # cls token + learned positions for cls + patches; conv with bias
        # DeiT: a distillation token too, and a position for it. I-JEPA: no class token (``class_token`` false),
        # positions for the patches alone.
        distilled = kind == "deit"
        cls = bool(v.get("class_token", True))
        # YOLOS: ``detection_tokens`` learned tokens after the patches, each with a position.
        detection = int(v.get("detection_tokens") or 0)  # type: ignore[arg-type]
        tensors = (Tensor("cls_token", (1, 1, h), "embedding", "embeddings"),) if cls else ()
        if "detection_tokens" in v:
            tensors += (Tensor("detection_tokens", (1, detection, h), "embedding", "embeddings"),)
        positions = (Tensor("position_embeddings", (1, patches + cls + distilled + detection, h), "embedding",
                            "embeddings"),)
        tensors += (conv, conv_bias)
        if v.get("mid_positions"):
            tensors += (_mid_positions(spec, detection),)
        if v.get("frozen_positions"):
            # ViTMAE's fixed sin-cos table: a parameter with requires_grad=False (counted, never trained).
            fixed_table = ParamNode("position_embeddings", positions, frozen=True, note="sin-cos, requires_grad=False")
            return ParamNode("embeddings", tensors, (fixed_table,), source=spec.key_span("patch_size")
                             or spec.key_span("image_size"), key="patch_size", note=f"{patches} patches")
        tensors += positions
        if distilled:
            tensors += (Tensor("distillation_token", (1, 1, h), "embedding", "embeddings"),)
        if mask_token:
            tensors += (Tensor("mask_token", (1, 1, h), "embedding", "embeddings"),)
    elif kind == "clip_vision":  # class embedding + positions for cls + patches; conv without bias
        tensors = (Tensor("class_embedding", (h,), "embedding", "embeddings"), conv)
        tensors += embedding("position_embedding", patches + 1, h)
    elif kind in ("siglip", "siglip_grid"):  # no class token; conv with bias (PaddleOCR-VL's "siglip_grid": the table
        # is resampled to each image's grid of patches, any size)
        tensors = (conv, conv_bias) + embedding("position_embedding", patches, h)
    elif kind == "dinov2":  # cls token, [mask token (1, h)], [register tokens], conv with bias, positions for cls + patches
        tensors = (Tensor("cls_token", (1, 1, h), "embedding", "embeddings"),)
        if v.get("mask_token"):
            tensors += (Tensor("mask_token", (1, h), "embedding", "embeddings"),)
        registers = v.get("register_tokens")
        if registers is not None:
            tensors += (Tensor("register_tokens", (1, int(registers), h), "embedding", "embeddings"),)  # type: ignore[arg-type]
        tensors += (replace(conv, name="patch_embeddings.projection.weight", module="projection"),
                    replace(conv_bias, name="patch_embeddings.projection.bias", module="projection"),
                    Tensor("position_embeddings", (1, patches + 1, h), "embedding", "embeddings"))
    elif kind == "beit":  # cls token, [mask token (1, 1, h)], conv with bias, [positions for cls + patches]
        # BEiT's and Data2Vec-Vision's mask token and position table are each a config key's (``mask_token``,
        # ``absolute_positions``): their relative position bias tables take the place of the positions.
        tensors = (Tensor("cls_token", (1, 1, h), "embedding", "embeddings"),)
        if v.get("mask_token"):
            tensors += (Tensor("mask_token", (1, 1, h), "embedding", "embeddings"),)
        tensors += (replace(conv, name="patch_embeddings.projection.weight", module="projection"),
                    replace(conv_bias, name="patch_embeddings.projection.bias", module="projection"))
        if v.get("absolute_positions"):
            tensors += (Tensor("position_embeddings", (1, patches + 1, h), "embedding", "embeddings"),)
    elif kind == "dinov3":  # cls token, mask token (1, 1, h), register tokens, conv with bias; no positions (RoPE)
        tensors = (Tensor("cls_token", (1, 1, h), "embedding", "embeddings"),
                   Tensor("mask_token", (1, 1, h), "embedding", "embeddings"),
                   Tensor("register_tokens", (1, spec.int("register_tokens"), h), "embedding", "embeddings"),
                   replace(conv, name="patch_embeddings.weight", module="patch_embeddings"),
                   replace(conv_bias, name="patch_embeddings.bias", module="patch_embeddings"))
    else:
        raise ValueError(f"unknown embedding kind {kind!r}")
    return ParamNode("embeddings", tensors, source=spec.key_span("patch_size") or spec.key_span("image_size"),
                     key="patch_size", note=f"{patches} patches")


def relative_bias_table(spec: ModelSpec, path: str) -> Tensor:
    """BEiT's relative position bias table (``layer_relative_bias`` / ``shared_relative_bias``, its path): a bias per
    head for every offset within the Wh × Ww patch grid, (2·Wh − 1)·(2·Ww − 1) rows, and three more (class to patch,
    patch to class, class to class)."""
    (ih, iw), (ph, pw) = _pair(spec, "image_size"), _pair(spec, "patch_size")
    rows = (2 * (ih // ph) - 1) * (2 * (iw // pw) - 1) + 3
    if rows < 0:  # a grid with no patch on one side and three or more on the other
        raise _error(spec, "patch_size", f"a grid of {ih // ph} × {iw // pw} patches gives the relative position bias "
                                         f"table {rows} rows: {spec.architecture} cannot build it")
    return Tensor(path, (rows, spec.int("num_heads")), "other", path.rsplit(".", 2)[-2])


def _mid_positions(spec: ModelSpec, detection: int) -> Tensor:
    """YOLOS's mid-position embeddings (``mid_positions``): a position table for every layer after the first, of
    1 + image height × width // patch_size² + detection tokens rows. The class reads image_size as [height, width]
    and squares patch_size: it refuses a single image side and a [height, width] patch_size."""
    image, patch = spec.values["image_size"], spec.values["patch_size"]
    if not isinstance(image, (list, tuple)):
        raise _error(spec, "image_size", f'"{spec.key_name("image_size") or "image_size"}": '
                     f"{json.dumps(image, default=str)} with use_mid_position_embeddings: {spec.architecture} reads "
                     "image_size as [height, width]")
    if not isinstance(patch, int) or isinstance(patch, bool):
        raise _error(spec, "patch_size", f'"{spec.key_name("patch_size") or "patch_size"}": '
                     f"{json.dumps(patch, default=str)} with use_mid_position_embeddings: {spec.architecture} squares "
                     "patch_size and needs one number")
    (ih, iw), _ = _pair(spec, "image_size"), _pair(spec, "patch_size")
    rows = 1 + ih * iw // patch ** 2 + detection
    return Tensor("encoder.interpolation.mid_position_embeddings", (spec.int("num_layers") - 1, 1, rows,
                                                                    spec.int("hidden_size")), "embedding", "interpolation")


# --- the transformer layer --------------------------------------------------------------------


def _attention(spec: ModelSpec, name: str, prefix: str = "") -> ParamNode:
    v = spec.values
    h, heads, d = spec.int("hidden_size"), spec.int("num_heads"), spec.int("head_dim")
    inner = heads * d
    # A cross-attention block is the self-attention block's twin under its own name: BERT's
    # attention.self.query is crossattention.self.query there (``prefix`` takes the place of "attention.").
    names = [prefix + n.removeprefix("attention.") if prefix else n for n in v["attn_names"]]  # type: ignore[union-attr]
    qkv_bias, out_bias = bool(v["qkv_bias"]), bool(v.get("attn_out_bias", True))
    # DINOv3: the query, key and value projections' biases each by a key of its own (``qkv_biases``).
    q_bias, k_bias, v_bias = (bool(b) for b in v["qkv_biases"]) if v.get("qkv_biases") else (qkv_bias,) * 3  # type: ignore[union-attr]
    # DINOv3's projections are hidden_size wide whatever the heads make (``attn_hidden_wide``); ConvBERT's are
    # ``attn_width`` wide (its own head count, not num_attention_heads).
    if v.get("attn_hidden_wide"):
        inner = h
    if "attn_width" in v:
        inner = spec.int("attn_width")
    # ALBERT's output projection is hidden × hidden even where the floored heads are narrower.
    out_in = h if v.get("attn_out_from_hidden") else inner
    if len(names) == 2:  # one fused query/key/value projection (ModernBERT's Wqkv), then the output
        tensors = path_linear(names[0], h, 3 * inner, qkv_bias)
    else:
        # EuroBERT's grouped-query attention: key and value ``kv_heads`` wide (absent: every head).
        kv_inner = spec.int("kv_heads") * d if "kv_heads" in v else inner
        tensors = (layer_linear(spec, names[0], h, inner, q_bias) + layer_linear(spec, names[1], h, kv_inner, k_bias)
                   + layer_linear(spec, names[2], h, kv_inner, v_bias))
    tensors += layer_linear(spec, names[-1], out_in, h, out_bias)
    # DeBERTa: relative-position projections and talking-head mixers (``attn_extra``); ConvBERT: its span-based
    # convolution's Linears (``attn_extra``) and parameters of other shapes (``attn_params``: (path, shape, kind)).
    # A cross-attention block (ConvBERT's) has them too, under its own name.
    def renamed(path: str) -> str:
        return prefix + path.removeprefix("attention.") if prefix else path
    for path, in_f, out_f, bias in v.get("attn_extra") or ():  # type: ignore[union-attr]
        tensors += path_linear(renamed(str(path)), int(in_f), int(out_f), bool(bias))
    for path, shape, kind in v.get("attn_params") or ():  # type: ignore[union-attr]
        tensors += (Tensor(renamed(str(path)), tuple(int(n) for n in shape), str(kind),
                           str(path).rsplit(".", 2)[-2]),)
    if not prefix:
        # DeBERTa: the q / v bias vectors beside its bias-less fused in_proj (``attn_bias_params``).
        for path in v.get("attn_bias_params") or ():  # type: ignore[union-attr]
            tensors += (Tensor(str(path), (inner,), "bias", str(path).rsplit(".", 2)[-2]),)
    return ParamNode(name, tensors, source=spec.key_span("num_heads"), key="num_heads")


def encoder_layers(spec: ModelSpec, repeat: int | None = None, note: str = "") -> ParamNode:
    """num_layers identical post/pre-norm layers: attention, [cross-attention], MLP, two LayerNorms.

    Where layer 0 has an nn.Identity for some of its norms (``first_layer_identity``), the stack
    holds two kinds: ``layer`` (layer 0, once) and ``layers`` (the others)."""
    v = spec.values
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    *ups, down = v["mlp_names"]  # type: ignore[misc]
    mlp_bias = bool(v.get("mlp_bias", True))
    # A gated MLP here is one fused projection to both halves (ModernBERT's Wi: input and gate, 2 × f), or
    # three names: a gate and an up projection of their own, then down (DINOv2's SwiGLU).
    up_width = 2 * f if v.get("mlp_gated") else f
    in_bias = bool(v.get("mlp_in_bias", mlp_bias))  # GTE: no biases on gate and up, one on down
    mlp = ParamNode("mlp", sum((layer_linear(spec, str(up), h, up_width, in_bias) for up in ups), ())
                    + layer_linear(spec, str(down), f, h, mlp_bias),
                    source=spec.key_span("intermediate_size"), key="intermediate_size")
    norm_bias = _norm_bias(spec)
    norm_names = tuple(str(n) for n in v["layer_norms"])  # type: ignore[union-attr]
    # DINOv2's layer scales: a hidden-wide vector after the attention and after the MLP (``layer_scales``).
    # BEiT's are parameters of the layer itself (lambda_1, lambda_2): their module is their own name.
    scales = tuple(Tensor(str(n), (h,), "other", str(n).rsplit(".", 2)[-2] if "." in str(n) else str(n))
                   for n in v.get("layer_scales") or ())  # type: ignore[union-attr]
    norms = ParamNode("norms", sum((path_norm(n, h, norm_bias) for n in norm_names), ()) + scales)
    cross = None
    if v.get("add_cross_attention"):
        if not v.get("is_decoder"):  # BertLayer raises: cross-attention only makes sense in a decoder
            raise _error(spec, "add_cross_attention", "add_cross_attention needs is_decoder: true "
                         f"({spec.architecture} refuses cross-attention in an encoder)")
        cross = _attention(spec, "cross_attention", "crossattention.")
        cross_norm = str(v.get("cross_norm") or "crossattention.output.LayerNorm")
        cross = replace(cross, tensors=cross.tensors + path_norm(cross_norm, h))
    attention = _attention(spec, "attention")
    # More Linears in every layer, each (path, in, out, bias): X-MOD's per-language adapters.
    extra_tensors = sum((path_linear(str(path), int(in_f), int(out_f), bool(bias))
                         for path, in_f, out_f, bias in v.get("layer_linears") or ()), ())  # type: ignore[union-attr]
    extra = ParamNode("layer_linears", extra_tensors) if extra_tensors else None
    bias_table = None
    if v.get("layer_relative_bias"):  # BEiT: a relative position bias table in every layer
        bias_table = ParamNode("relative_position_bias", (relative_bias_table(spec, str(v["layer_relative_bias"])),),
                               source=spec.key_span("use_relative_position_bias"), key="use_relative_position_bias")
    layers = spec.int("num_layers") if repeat is None else repeat
    src = spec.key_span("num_layers")
    skipped = tuple(v.get("first_layer_identity") or ())  # type: ignore[arg-type]
    if not skipped:
        return node("layers", attention, cross, mlp, extra, bias_table, norms, repeat=layers, source=src, key="num_layers", note=note)
    first_norms = ParamNode("norms", sum((path_norm(n, h, norm_bias) for n in norm_names if n not in skipped), ())
                            + scales)
    first = node("layer", attention, cross, mlp, extra, bias_table, first_norms,
                 note=f"layer 0: {', '.join(skipped)} is an nn.Identity (no parameters)")
    if layers == 1:
        return ParamNode("layers", first.tensors, first.children, source=src, key="num_layers", note=first.note)
    rest = node("layers", attention, cross, mlp, extra, bias_table, norms, repeat=layers - 1, note="layers 1 and on")
    return node("layers", first, rest, source=src, key="num_layers", note=note)


def bottleneck_layers(spec: ModelSpec) -> ParamNode:
    """MobileBERT's layer (``bottleneck_layers``): attention, an MLP and ``num_feedforward_networks`` − 1 more MLPs,
    all at the inner width t (``intra_bottleneck_size`` where ``use_bottleneck``, else hidden_size); with the
    bottleneck, Linears from hidden_size down to t in front (``bottleneck.input``, and ``bottleneck.attention`` where
    ``key_query_shared_bottleneck``) and one back up after (``output.bottleneck``). The query and key read t values,
    the value t where ``use_bottleneck_attention`` else hidden_size; the attention's output is t × t whatever
    heads × head_dim is. Every norm (LayerNorm or NoNorm) is a weight and a bias."""
    v = spec.values
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    bottleneck = bool(v["use_bottleneck"])
    t = spec.int("intra_bottleneck_size") if bottleneck else h
    inner = spec.int("num_heads") * spec.int("head_dim")
    value_in = t if v["use_bottleneck_attention"] else h
    attention = ParamNode("attention", path_linear("attention.self.query", t, inner)
                          + path_linear("attention.self.key", t, inner) + path_linear("attention.self.value", value_in, inner)
                          + path_linear("attention.output.dense", t, t) + path_norm("attention.output.LayerNorm", t),
                          source=spec.key_span("num_heads"), key="num_heads")
    mlp = path_linear("intermediate.dense", t, f) + path_linear("output.dense", f, t) + path_norm("output.LayerNorm", t)
    for i in range(spec.int("num_feedforward_networks") - 1):  # the stacked FFNs (ffn.N), none below 2
        mlp += (path_linear(f"ffn.{i}.intermediate.dense", t, f) + path_linear(f"ffn.{i}.output.dense", f, t)
                + path_norm(f"ffn.{i}.output.LayerNorm", t))
    mlps = ParamNode("mlp", mlp, source=spec.key_span("num_feedforward_networks") or spec.key_span("intermediate_size"),
                     key="num_feedforward_networks")
    projections = None
    if bottleneck:
        tensors = path_linear("bottleneck.input.dense", h, t) + path_norm("bottleneck.input.LayerNorm", t)
        if v["key_query_shared_bottleneck"]:
            tensors += path_linear("bottleneck.attention.dense", h, t) + path_norm("bottleneck.attention.LayerNorm", t)
        tensors += path_linear("output.bottleneck.dense", t, h) + path_norm("output.bottleneck.LayerNorm", h)
        projections = ParamNode("bottleneck", tensors, source=spec.key_span("intra_bottleneck_size"),
                                key="intra_bottleneck_size")
    return node("layers", attention, mlps, projections, repeat=spec.int("num_layers"), source=spec.key_span("num_layers"),
                key="num_layers")


def _norm_node(name: str, module: str | None, h: int, bias: bool = True) -> ParamNode | None:
    return ParamNode(name, path_norm(module, h, bias)) if module else None


def _pooler(spec: ModelSpec) -> ParamNode | None:
    v = spec.values
    h = spec.int("hidden_size")
    kind = v.get("pooler")
    if spec.head == "base" and v.get("pooler_in_base") is False:
        return None  # GTE's and DeBERTa's bare models have none: only the classifier classes pool
    if kind in ("dense", "linear"):
        return ParamNode("pooler", path_linear("pooler.dense" if kind == "dense" else "pooler", h, h))
    if kind == "context":  # DeBERTa's ContextPooler: the classifier classes' own, pooler_hidden_size square
        width = spec.int("pooler_hidden_size")
        return ParamNode("pooler", path_linear("pooler.dense", width, width),
                         source=spec.key_span("pooler_hidden_size"), key="pooler_hidden_size")
    if kind == "mean_norm":  # BEiT's pooler: the patches' mean through a LayerNorm
        return ParamNode("pooler", path_norm("pooler.layernorm", h), source=spec.key_span("use_mean_pooling"),
                         key="use_mean_pooling")
    if kind == "vit":  # ViTPooler: hidden -> pooler_output_size (defaults to hidden)
        return ParamNode("pooler", path_linear("pooler.dense", h, int(v.get("pooler_output_size") or h)),
                         source=spec.key_span("pooler_output_size"), key="pooler_output_size")
    return None


def _siglip_head(spec: ModelSpec) -> ParamNode | None:
    """SigLIP's multi-head attention pooling head (probe, attention, LayerNorm, MLP)."""
    if not spec.values.get("vision_use_head"):
        return None
    h, f = spec.int("hidden_size"), spec.int("intermediate_size")
    tensors = (Tensor("head.probe", (1, 1, h), "other", "head"),
               # nn.MultiheadAttention's packed q/k/v weight: a parameter, no nn.Linear (its out_proj is one).
               Tensor("head.attention.in_proj_weight", (3 * h, h), "other", "attention"),
               Tensor("head.attention.in_proj_bias", (3 * h,), "bias", "attention"))
    tensors += path_linear("head.attention.out_proj", h, h) + path_norm("head.layernorm", h)
    tensors += path_linear("head.mlp.fc1", h, f) + path_linear("head.mlp.fc2", f, h)
    return ParamNode("head", tensors, source=spec.key_span("vision_use_head"), key="vision_use_head",
                     note="attention-pooling head")


def _transform(spec: ModelSpec, in_dim: int, out_dim: int, names: tuple | None = None) -> tuple[Tensor, ...]:
    """The MLM head's transform: dense (in → out, a bias unless ``transform_bias`` is false) + LayerNorm; ``names``:
    its dense and norm where not the MLM head's (ModernBERT-Decoder's classifier transform, ``head``)."""
    v = spec.values
    dense, ln = names or v["mlm_names"][:2]  # type: ignore[index]
    return (path_linear(str(dense), in_dim, out_dim, bool(v.get("transform_bias", True)))
            + path_norm(str(ln), out_dim, _norm_bias(spec)))


def _mlm_head(spec: ModelSpec, in_dim: int, out_dim: int) -> ParamNode:
    """Transform (dense + LayerNorm), then a decoder over the vocabulary, tied to the word embedding by default."""
    v = spec.values
    vocab = spec.int("vocab_size")
    decoder = v["mlm_names"][2]  # type: ignore[index]
    tied = bool(v["tie_embeddings"])
    decoder_bias = bool(v.get("decoder_bias", True))
    # EuroBERT's head is its decoder alone (no transform: mlm_names has no dense or norm).
    tensors = _transform(spec, in_dim, out_dim) if v["mlm_names"][0] else ()  # type: ignore[index]
    output = None
    if v.get("mlm_dense_is_output"):  # DeBERTa's non-legacy head: its dense layer is the output embeddings
        dense = str(v["mlm_names"][0]) + "."  # type: ignore[index]
        output = ParamNode("mlm_output", tuple(t for t in tensors if t.name.startswith(dense)))
        tensors = tuple(t for t in tensors if t not in output.tensors)
    # BERT-likes keep a bias parameter beside the decoder; tying also ties decoder.bias to it.
    bias_param = bool(v["mlm_bias_param"])
    if bias_param:
        tensors += (Tensor(str(decoder).rsplit(".", 1)[0] + ".bias", (vocab,), "bias", "decoder"),)
    # MobileBERT: the decoder reads embedding_size values and a bias-less Linear (vocab → out_dim − embedding_size)
    # holds the output embedding's other columns (``mlm_output_extension``, its path).
    decoder_in = out_dim
    if v.get("mlm_output_extension"):
        decoder_in = spec.int("embedding_size")
        tensors += path_linear(str(v["mlm_output_extension"]), vocab, out_dim - decoder_in, False)
    # (``mlm_decoder`` false: no decoder Linear at all, the word embedding is multiplied in forward)
    if v.get("mlm_decoder", True) and not tied:
        tensors += path_linear(str(decoder), decoder_in, vocab, decoder_bias)
    elif v.get("mlm_decoder", True) and not bias_param and decoder_bias:
        tensors += (Tensor(f"{decoder}.bias", (vocab,), "bias", str(decoder)),)
    return ParamNode("mlm_head", tensors, (output,) if output else (),
                     source=spec.key_span("tie_embeddings") or spec.key_span("vocab_size"),
                     key="tie_embeddings", note="tied decoder" if tied and v.get("mlm_decoder", True) else "")


def image_classifier(spec: ModelSpec, width: int) -> ParamNode:
    """The image-classification classes' Linear (width → num_labels): ViT, CLIP, DINOv2."""
    return ParamNode("classifier", path_linear("classifier", width, _labels(spec)),
                     source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label")


def _sequence_classifier(spec: ModelSpec) -> ParamNode:
    h, labels = spec.int("hidden_size"), _labels(spec)
    kind = spec.values["classifier"]
    if kind == "dense":  # RobertaClassificationHead
        tensors = path_linear("classifier.dense", h, h) + path_linear("classifier.out_proj", h, labels)
    elif kind == "pre_classifier":  # DistilBERT
        tensors = path_linear("pre_classifier", h, h) + path_linear("classifier", h, labels)
    elif kind == "dense_classifier":  # EuroBERT: dense (h → h) then classifier, both on the class itself
        tensors = path_linear("dense", h, h) + path_linear("classifier", h, labels)
    else:
        tensors = path_linear("classifier", h, labels)
    return ParamNode("classifier", tensors, source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label")


def _sequence_summary(spec: ModelSpec) -> ParamNode | None:
    """ELECTRA's and RoFormer's SequenceSummary (multiple choice): a Linear where summary_use_proj (hidden →
    num_labels where summary_proj_to_labels and num_labels > 0, else hidden → hidden), else nothing. The
    classes read the keys where the config has them (RoFormerConfig declares none: no projection). Its
    summary_type "attn", which it refuses, is the families' check (check_summary_type)."""
    v = spec.values
    h = spec.int("hidden_size")
    if not v.get("summary_use_proj"):
        return None
    labels = v.get("num_labels")
    to_labels = bool(v.get("summary_proj_to_labels")) and isinstance(labels, int) and labels > 0
    out = int(labels) if to_labels else h  # type: ignore[arg-type]
    return ParamNode("sequence_summary", path_linear("sequence_summary.summary", h, out),
                     source=spec.key_span("summary_use_proj"), key="summary_use_proj")


_CLASSIFIER_HEADS = ("sequence_classification", "token_classification", "question_answering", "multiple_choice")


def _text_heads(spec: ModelSpec, mlm_in: int, mlm_out: int) -> tuple[ParamNode | None, ...]:
    """Pooler and head for the text-encoder classes (BERT, RoBERTa, DistilBERT, ModernBERT, ALBERT)."""
    head = spec.head
    v = spec.values
    h = spec.int("hidden_size")
    pooled = head in ("base", "pretraining", "next_sentence", "multiple_choice") or (
        head == "sequence_classification" and spec.values["classifier"] == "pooled")
    pooler = _pooler(spec) if pooled else None
    if head == "base":
        return (pooler,)
    if head in ("question_answering", "pretraining") and v.get("span_selection"):
        return (_span_selection_head(spec),)
    if head in ("masked_lm", "causal_lm"):
        return (_mlm_head(spec, mlm_in, mlm_out),)
    if head == "pretraining" and spec.values.get("pretraining") == "discriminator":
        # ELECTRA's discriminator: replaced-token detection per token (dense, then one logit); no pooler.
        return (ParamNode("discriminator", path_linear("discriminator_predictions.dense", h, h)
                          + path_linear("discriminator_predictions.dense_prediction", h, 1)),)
    if head == "pretraining" and spec.values.get("pretraining") == "mlm":
        # RoCBERT's pre-training class: the pooler and the MLM head, no next-sentence classifier.
        return (pooler, _mlm_head(spec, mlm_in, mlm_out))
    if head == "next_sentence":  # the pooler, then is-next / not-next (BERT-likes' ForNextSentencePrediction)
        return (pooler, ParamNode("nsp_head", path_linear("cls.seq_relationship", h, 2)))
    if head == "pretraining":  # MLM head + next-sentence (BERT) / sentence-order (ALBERT) classifier
        nsp_name = "sop_classifier.classifier" if spec.family.layout == "albert" else "cls.seq_relationship"
        return (pooler, _mlm_head(spec, mlm_in, mlm_out), ParamNode("nsp_head", path_linear(nsp_name, h, 2)))
    if spec.values["classifier"] == "transform" and head in _CLASSIFIER_HEADS:
        # ModernBERT: every classifier runs the MLM head's transform, then one Linear (h → labels; 1 per choice).
        # ModernBERT-Decoder: that transform is its own (``classifier_names``), the Linear's bias a switch.
        out = 1 if head == "multiple_choice" else _labels(spec)
        names = spec.values.get("classifier_names")
        return (ParamNode("head", _transform(spec, h, h, names), source=spec.key_span("hidden_size"),  # type: ignore[arg-type]
                          key="hidden_size"),
                ParamNode("classifier", path_linear("classifier", h, out, bool(spec.values.get("classifier_bias", True))),
                          source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label"))
    if head == "sequence_classification" and v["classifier"] == "summary":  # XLM: the SequenceSummary alone
        return (_sequence_summary(spec),)
    if head == "sequence_classification":
        return (pooler, _sequence_classifier(spec))
    if head == "token_classification" and v.get("token_classifier") == "score":
        # GenericForTokenClassification: score, biased unless token_classification_bias says otherwise (ESM-C)
        return (ParamNode("classifier", path_linear("score", h, _labels(spec), bool(v["token_classification_bias"]))),)
    if head == "token_classification":
        return (ParamNode("classifier", path_linear("classifier", h, _labels(spec))),)
    if head == "question_answering":  # the span's start and end logits (num_labels, 2 by default); no pooler
        # RoFormerForQuestionAnswering sets num_labels = 2 whatever the config says (``qa_labels``).
        labels = spec.int("qa_labels") if "qa_labels" in spec.values else _labels(spec)
        if v.get("qa_head") == "tapas":
            # TAPAS's cell selection (a weight vector and a scalar bias for the cells and for the columns) over the
            # bare model with its pooler, and an aggregation classifier where num_aggregation_labels > 0.
            tensors = (Tensor("output_weights", (h,), "other", "output_weights"),
                       Tensor("output_bias", (), "bias", "output_bias"),
                       Tensor("column_output_weights", (h,), "other", "column_output_weights"),
                       Tensor("column_output_bias", (), "bias", "column_output_bias"))
            aggregation = int(v.get("num_aggregation_labels") or 0)
            if aggregation > 0:
                tensors += path_linear("aggregation_classifier", h, aggregation)
            return (_pooler(spec), ParamNode("cell_selection", tensors, source=spec.key_span("num_aggregation_labels"),
                                             key="num_aggregation_labels"))
        if v.get("qa_head") == "intermediate":
            # BigBird's qa_classifier: a layer's feed-forward (intermediate, then output with its LayerNorm) before
            # qa_outputs.
            f = spec.int("intermediate_size")
            tensors = (path_linear("qa_classifier.intermediate.dense", h, f)
                       + path_linear("qa_classifier.output.dense", f, h)
                       + path_norm("qa_classifier.output.LayerNorm", h)
                       + path_linear("qa_classifier.qa_outputs", h, labels))
            return (ParamNode("qa_classifier", tensors, source=spec.key_span("intermediate_size"),
                              key="intermediate_size"),)
        return (ParamNode("qa_outputs", path_linear("qa_outputs", h, labels),
                          source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label"),)
    if head == "multiple_choice" and v.get("multiple_choice") == "summary_logits":
        # XLM: the SequenceSummary, then logits_proj from its num_labels outputs to one score per choice.
        labels = _labels(spec)
        return (_sequence_summary(spec), ParamNode("classifier", path_linear("logits_proj", labels, 1),
                                                   source=spec.key_span("num_labels") or spec.key_span("id2label"),
                                                   key="id2label"))
    if head == "squad_question_answering":
        return (_squad_head(spec),)
    if head == "multiple_choice" and spec.values.get("multiple_choice") == "summary":
        return (_sequence_summary(spec), ParamNode("classifier", path_linear("classifier", h, 1)))
    if head == "multiple_choice":  # one score per choice: the pooled output (DistilBERT's pre_classifier) → 1
        # DistilBERT's classifier kind, or the multiple-choice kind alone (Nyströmformer: a RoBERTa-style sequence
        # classifier, a pre_classifier in the multiple-choice class).
        pre = spec.values["classifier"] == "pre_classifier" or v.get("multiple_choice") == "pre_classifier"
        tensors = (path_linear("pre_classifier", h, h) if pre else ()) + path_linear("classifier", h, 1)
        return (pooler, ParamNode("classifier", tensors))
    raise ValueError(f"unknown head {head!r} for {spec.model_type}")


def _span_selection_head(spec: ModelSpec) -> ParamNode:
    """Splinter's question-aware span selection head (``span_selection``, its path): four transforms (dense, then a
    LayerNorm, hidden → hidden) for the question's start and end and the passage's, then two bias-less hidden ×
    hidden classifiers."""
    h = spec.int("hidden_size")
    path = str(spec.values["span_selection"])
    tensors: tuple[Tensor, ...] = ()
    for transform in ("query_start_transform", "query_end_transform", "start_transform", "end_transform"):
        tensors += path_linear(f"{path}.{transform}.dense", h, h) + path_norm(f"{path}.{transform}.LayerNorm", h)
    for classifier in ("start_classifier", "end_classifier"):
        tensors += path_linear(f"{path}.{classifier}", h, h, False)
    return ParamNode("span_selection", tensors, source=spec.key_span("hidden_size"), key="hidden_size")


def _squad_head(spec: ModelSpec) -> ParamNode:
    """XLM's XLNet-style SQuAD head (``squad_head``, its path): the start logits (hidden → 1), the end logits
    (2·hidden → hidden, a LayerNorm, hidden → 1) and the answer class (2·hidden → hidden, hidden → 1 without a
    bias)."""
    h = spec.int("hidden_size")
    path = str(spec.values["squad_head"])
    tensors = (path_linear(f"{path}.start_logits.dense", h, 1)
               + path_linear(f"{path}.end_logits.dense_0", 2 * h, h) + path_norm(f"{path}.end_logits.LayerNorm", h)
               + path_linear(f"{path}.end_logits.dense_1", h, 1)
               + path_linear(f"{path}.answer_class.dense_0", 2 * h, h)
               + path_linear(f"{path}.answer_class.dense_1", h, 1, False))
    return ParamNode("squad_head", tensors, source=spec.key_span("hidden_size"), key="hidden_size")


def _embedding_projection(spec: ModelSpec) -> ParamNode | None:
    """The Linear from factorised embeddings up to hidden_size (ELECTRA's and RoFormer's embeddings_project
    where the widths differ; RemBERT's encoder.embedding_hidden_mapping_in always)."""
    v = spec.values
    path = v.get("embed_projection")
    if not path:
        return None
    # RoCBERT's map_inputs_layer takes the word, pronunciation and shape embeddings side by side
    # (``embed_projection_in``, its input width; absent: embedding_size).
    width_field = "embed_projection_in" if "embed_projection_in" in v else "embedding_size"
    h, e = spec.int("hidden_size"), spec.int(width_field)
    if e == h and not v.get("embed_projection_always"):
        return None
    return ParamNode("embedding_projection", path_linear(str(path), e, h, bool(v.get("embed_projection_bias", True))),
                     source=spec.key_span(width_field), key=width_field)


def _sinusoidal_positions(spec: ModelSpec) -> ParamNode | None:
    """RoFormer's rotary table: an nn.Embedding of max_position_embeddings × hidden_size // heads, frozen."""
    path = spec.values.get("sinusoidal_positions")
    if not path:
        return None
    rows, width = spec.int("max_positions"), spec.int("hidden_size") // spec.int("num_heads")
    return ParamNode("sinusoidal_positions", embedding(str(path), rows, width), frozen=True,
                     note="sinusoidal, requires_grad=False", source=spec.key_span("max_positions"),
                     key="max_positions")


def relative_positions(spec: ModelSpec, at: str = "encoder") -> tuple[ParamNode | None, ParamNode | None]:
    """DeBERTa's encoder-level parts: the relative-position table (``relative_rows`` × hidden) with its optional
    LayerNorm, and the optional Conv1d (hidden → hidden, ``conv`` = (kernel, groups)) with its LayerNorm; ``at``: the
    path of the module holding them (SEW-D's transformer encoder is encoder.encoder)."""
    v = spec.values
    h = spec.int("hidden_size")
    rows = v.get("relative_rows")
    # MPNet's table is a bias per head (encoder.relative_attention_bias: buckets × heads), DeBERTa's hidden wide.
    width = spec.int("num_heads") if v.get("relative_per_head") else h
    path = str(v.get("relative_path") or f"{at}.rel_embeddings")
    tensors = embedding(path, int(rows), width) if rows is not None else ()  # type: ignore[arg-type]
    if v.get("relative_norm"):
        tensors += path_norm(f"{at}.LayerNorm", h)
    relative = ParamNode("relative_positions", tensors, source=spec.key_span("relative_attention"),
                         key="relative_attention") if tensors else None
    conv = None
    if v.get("conv"):
        kernel, groups = v["conv"]  # type: ignore[misc]
        conv = ParamNode("conv", (Tensor(f"{at}.conv.conv.weight", (h, h // int(groups), int(kernel)), "conv", "conv"),
                                  Tensor(f"{at}.conv.conv.bias", (h,), "bias", "conv"))
                         + path_norm(f"{at}.conv.LayerNorm", h),
                         source=spec.key_span("conv_kernel_size"), key="conv_kernel_size", note="Conv1d beside layer 0")
    return relative, conv


def _attention_map_head(spec: ModelSpec) -> ParamNode | None:
    """ESM's contact-prediction head (``attention_map_head``): a Linear over the attention maps of every layer and
    head (num_layers × num_heads → 1, a bias)."""
    path = spec.values.get("attention_map_head")
    if not path:
        return None
    maps = spec.int("num_layers") * spec.int("num_heads")
    return ParamNode("contact_head", path_linear(str(path), maps, 1), source=spec.key_span("num_layers"),
                     key="num_layers", note="a Linear over every layer's attention maps")


def _tower(spec: ModelSpec, mask_token: bool = False) -> tuple[ParamNode | None, ...]:
    """Embeddings, optional pre-norm, layers and final norm of one encoder stack."""
    v = spec.values
    h = spec.int("hidden_size")
    projection = None
    if v["embed"] == "text":
        embeddings = _text_embeddings(spec, spec.int("embedding_size") if "embedding_size" in v else h)
        projection = _embedding_projection(spec)
    else:
        embeddings = _patch_embeddings(spec, mask_token)
    bias = _norm_bias(spec)
    shared_bias = None
    if v.get("shared_relative_bias"):  # BEiT: one relative position bias table that every layer reads
        shared_bias = ParamNode("relative_positions", (relative_bias_table(spec, str(v["shared_relative_bias"])),),
                                source=spec.key_span("use_shared_relative_position_bias"),
                                key="use_shared_relative_position_bias")
    return (embeddings, projection, _norm_node("pre_norm", v.get("pre_norm"), h, bias),  # type: ignore[arg-type]
            _sinusoidal_positions(spec), *relative_positions(spec), shared_bias,
            bottleneck_layers(spec) if v.get("bottleneck_layers") else encoder_layers(spec),
            # (ESM-C's final norm alone has no bias: ``final_norm_bias``)
            _norm_node("final_norm", v.get("final_norm"), h, bool(v.get("final_norm_bias", bias))),  # type: ignore[arg-type]
            _attention_map_head(spec))


def build_encoder(spec: ModelSpec) -> ParamNode:
    """A single-stack encoder (BERT-like text, ViT, CLIP text/vision tower, SigLIP vision tower) and its head."""
    v = spec.values
    h = spec.int("hidden_size")
    head = spec.head
    if v["embed"] == "text" and "mlm_names" in v:
        mlm_width = spec.int("mlm_width") if "mlm_width" in v else h
        heads = _text_heads(spec, h, mlm_width)
        every = v.get("pooler_in_every_class")
        if every and not (every == "but_question_answering" and head == "question_answering") and \
                not any(n is not None and n.name == "pooler" for n in heads):
            heads = (_pooler(spec), *heads)  # LayoutLM: every head class builds the bare model with its pooler
        return node(spec.architecture, *_tower(spec), *heads)
    parts: list[ParamNode | None] = list(_tower(spec, mask_token=head == "masked_image_modeling"))
    if head == "base":
        parts += [_pooler(spec), _siglip_head(spec)]
        if v.get("text_head"):  # SigLIP's text model ends in its own head: hidden → projection_size, a bias
            parts.append(ParamNode("head", path_linear(str(v["text_head"]), h, spec.int("projection_size")),
                                   source=spec.key_span("projection_size"), key="projection_size"))
    elif head == "with_projection":
        parts.append(ParamNode("projection", path_linear(str(v["projection"]), h, spec.int("projection_dim"), False),
                               source=spec.key_span("projection_dim"), key="projection_dim"))
    elif head == "image_classification":
        # DINOv2's classifier reads the class token and the patches' mean side by side (2 × hidden).
        # BEiT's classifier class builds the bare model with its pooler (``image_classifier_pooled``).
        if v.get("image_classifier_pooled"):
            parts.append(_pooler(spec))
        parts.append(image_classifier(spec, 2 * h if v.get("classifier_concat") else h))
    elif head == "image_classification_with_teacher":  # DeiT: a classifier on the class token, one on the distillation token
        labels = _labels(spec)
        parts.append(ParamNode("classifier", path_linear("cls_classifier", h, labels)
                               + path_linear("distillation_classifier", h, labels),
                               source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label"))
    elif head == "object_detection":
        # YOLOS: two 3-layer MLPs on the detection tokens: the classes (num_labels + "no object") and the box (4).
        def mlp(name: str, out: int) -> tuple[Tensor, ...]:
            return (path_linear(f"{name}.layers.0", h, h) + path_linear(f"{name}.layers.1", h, h)
                    + path_linear(f"{name}.layers.2", h, out))
        parts.append(ParamNode("detection_heads", mlp("class_labels_classifier", _labels(spec) + 1)
                               + mlp("bbox_predictor", 4),
                               source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label"))
    elif head == "masked_token_prediction":  # BEiT: a LayerNorm, then logits over the visual tokens (vocab_size)
        parts.append(ParamNode("lm_head", path_norm("layernorm", h) + path_linear("lm_head", h, spec.int("vocab_size")),
                               source=spec.key_span("vocab_size"), key="vocab_size"))
    elif head == "mae_pretraining":
        parts.append(_mae_decoder(spec))
    elif head == "masked_image_modeling":  # 1×1 conv to stride² · channels, then pixel shuffle
        out = spec.int("encoder_stride") ** 2 * spec.int("num_channels")
        parts.append(ParamNode("decoder", (Tensor("decoder.0.weight", (out, h, 1, 1), "conv", "decoder"),
                                           Tensor("decoder.0.bias", (out,), "bias", "decoder"))))
    else:
        raise ValueError(f"unknown head {head!r} for {spec.model_type}")
    return node(spec.architecture, *parts)


def _mae_decoder(spec: ModelSpec) -> ParamNode:
    """ViTMAE's pre-training decoder: decoder_embed (hidden → decoder width), a mask token, a fixed sin-cos
    position table (requires_grad=False) for the class token and the patches, ``decoder_layers`` of the encoder's
    own layer at the decoder's width, heads and MLP width, decoder_norm, and decoder_pred back to one patch's
    pixels (patch_size² × channels). The layers are built from a copy of the config: a head_dim the file
    gives serves the decoder too (the attention reads it where the config has one)."""
    v = spec.values
    h, dh = spec.int("hidden_size"), spec.int("decoder_hidden_size")
    heads = spec.int("decoder_num_heads")
    head_dim = spec.int("head_dim") if "head_dim" in spec.origins else dh // heads
    decoder = replace(spec, values={**v, "hidden_size": dh, "num_layers": spec.int("decoder_num_layers"),
                                    "num_heads": heads, "head_dim": head_dim,
                                    "intermediate_size": spec.int("decoder_intermediate_size")})
    layers = encoder_layers(decoder)
    layers = replace(layers, source=spec.key_span("decoder_num_layers"), key="decoder_num_layers")
    pixels = spec.int("patch_size") ** 2 * spec.int("num_channels")
    table = ParamNode("decoder_pos_embed", (Tensor("decoder.decoder_pos_embed", (1, num_patches(spec) + 1, dh),
                                                   "embedding", "decoder"),), frozen=True,
                      note="sin-cos, requires_grad=False")
    embed = ParamNode("decoder_embed", path_linear("decoder.decoder_embed", h, dh)
                      + (Tensor("decoder.mask_token", (1, 1, dh), "embedding", "decoder"),),
                      source=spec.key_span("decoder_hidden_size"), key="decoder_hidden_size")
    out = ParamNode("decoder_out", path_norm("decoder.decoder_norm", dh) + path_linear("decoder.decoder_pred", dh, pixels))
    return node("decoder", embed, table, layers, out, note="the MAE pre-training decoder")


def build_albert(spec: ModelSpec) -> ParamNode:
    """ALBERT: factorised embeddings projected to hidden, and layer groups shared across depth."""
    h, e = spec.int("hidden_size"), spec.int("embedding_size")
    groups, inner = spec.int("num_hidden_groups"), spec.int("inner_group_num")
    embeddings = _text_embeddings(spec, e)
    mapping = ParamNode("embedding_projection", path_linear("encoder.embedding_hidden_mapping_in", e, h),
                        source=spec.key_span("embedding_size"), key="embedding_size")
    depth = spec.int("num_layers")
    layers = encoder_layers(spec, repeat=groups * inner,
                            note=f"shared by {depth} layers")
    return node(spec.architecture, embeddings, mapping, layers, *_text_heads(spec, h, e))


def as_base(sub: ModelSpec) -> ModelSpec:
    """The sub-model as a composite model builds it: its bare class (AutoModel), no head."""
    base = next((cls for cls, head in sub.family.heads.items() if head == "base"), sub.architecture)
    return replace(sub, head="base", architecture=base)


def vision_tower(sub: ModelSpec, name: str = "vision_tower") -> ParamNode:
    """A vision sub-model (CLIP or SigLIP vision tower) as a node named ``name``."""
    if sub.family.layout != "encoder" or sub.values.get("embed") in (None, "text"):
        raise SpecError((Problem("error", "LC103",
                                 f"{sub.model_type} is not a vision tower lsp-count can count here", sub.span),))
    built = build_encoder(as_base(sub))
    return ParamNode(name, children=built.children, source=sub.span, note=sub.model_type)


def build_clip(spec: ModelSpec) -> ParamNode:
    """CLIPModel (text tower, vision tower, both projections, logit scale) or CLIPForImageClassification; SigLIP's
    (``logit_bias``: no projections, a logit scale and bias)."""
    text, vision = spec.subspecs.get("text"), spec.subspecs.get("vision")
    if vision is None or (spec.head == "clip" and text is None):
        raise SpecError((Problem("error", "LC103", "CLIP needs text_config and vision_config", spec.span),))
    vision_node = vision_tower(vision, "vision_model")
    if spec.head == "image_classification":
        return node(spec.architecture, vision_node, image_classifier(spec, vision.int("hidden_size")))
    assert text is not None
    if spec.values.get("text_pooler") is False:  # ChineseCLIPModel: its BERT text model built without the pooler
        text = replace(text, values={**text.values, "pooler_in_base": False})
    text_node = build_encoder(as_base(text))
    if spec.values.get("logit_bias"):
        # SigLIP: no projections (each tower ends in its own head); a logit scale and a logit bias of one value each.
        projections = ParamNode("logits", (Tensor("logit_scale", (1,), "other", "logit_scale"),
                                           Tensor("logit_bias", (1,), "other", "logit_bias")))
    else:
        proj = spec.int("projection_dim")
        projections = ParamNode(
            "projections",
            # In the class's order (visual_projection, then text_projection: its last parameter, which bitsandbytes keeps).
            path_linear("visual_projection", vision.int("hidden_size"), proj, False)
            + path_linear("text_projection", text.int("hidden_size"), proj, False)
            + (Tensor("logit_scale", (), "other", "logit_scale"),),
            source=spec.key_span("projection_dim"), key="projection_dim",
        )
    return node(spec.architecture, ParamNode("text_model", children=text_node.children, source=text.span),
                vision_node, projections)
