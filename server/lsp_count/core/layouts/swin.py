"""Hierarchical windowed vision transformers (Swin, Swin V2; families/swin.py): a patch embedding, stages of windowed
attention blocks whose width doubles from stage to stage (a patch merging between stages: a LayerNorm over 4 × C and
a 4C → 2C Linear without bias), a final LayerNorm, and the head classes.

Each block's attention holds a relative position bias: Swin's table of (2 × window - 1)² rows, one column per head
(its relative_position_index is a buffer, not a parameter), or Swin V2's continuous one (an MLP and a logit scale). Tensors are named by their path in the base model (a block's
inside the block: "attention.q_proj.weight"); the stages' blocks sit under "stages" > "stage_<s>" > "blocks" so
formats/lora.py's ENCODER_PATHS can number them (encoder.layers.<s>.blocks.<i>).
"""

from __future__ import annotations

import math

# (image_size / patch_size: one number or [height, width], read and refused as ViT's)
from lsp_count.core.layouts.encoder import _pair, path_linear, path_norm
from lsp_count.core.params import ParamNode, Tensor, node
from lsp_count.core.source import Problem
from lsp_count.core.spec import ModelSpec, SpecError, head_labels


def stage_widths(spec: ModelSpec) -> list[int]:
    """Each stage's width: embed_dim × 2^stage (the class's int(embed_dim * 2 ** stage))."""
    return [int(spec.int("embed_dim") * 2 ** s) for s in range(len(spec.values["depths"]))]  # type: ignore[arg-type]


def _embeddings(spec: ModelSpec, mask_token: bool) -> ParamNode:
    """The patch Conv2d (channels → embed_dim, patch-sized kernel and stride, a bias), its LayerNorm, learned
    positions for every patch (and ``position_extra_rows`` more: Swin V2's one) where use_absolute_embeddings, the
    mask token of masked image modeling."""
    c, channels = spec.int("embed_dim"), spec.int("num_channels")
    (ih, iw), (ph, pw) = _pair(spec, "image_size"), _pair(spec, "patch_size")
    tensors = (Tensor("embeddings.patch_embeddings.projection.weight", (c, channels, ph, pw), "conv", "projection"),
               Tensor("embeddings.patch_embeddings.projection.bias", (c,), "bias", "projection"),
               *path_norm("embeddings.norm", c))
    if spec.values["use_absolute_embeddings"]:
        rows = (ih // ph) * (iw // pw) + spec.int("position_extra_rows")
        tensors += (Tensor("embeddings.position_embeddings", (1, rows, c), "embedding", "embeddings"),)
    if mask_token:
        tensors += (Tensor("embeddings.mask_token", (1, 1, c), "embedding", "embeddings"),)
    return ParamNode("embeddings", tensors, source=spec.key_span("patch_size"), key="patch_size")


def _position_bias(spec: ModelSpec, heads: int) -> tuple[Tensor, ...]:
    """A block's relative position bias: "table", (2 × window - 1)² rows of one value per head (Swin); "continuous",
    a logit scale per head and an MLP from a relative (y, x) to one value per head, 2 → 512 (a bias) → heads (none)
    (Swin V2: its coordinate table and index are buffers, so window sizes add no parameters)."""
    v = spec.values
    if v["position_bias"] == "table":
        window = spec.int("window_size")
        return (Tensor(str(v["position_bias_table"]), ((2 * window - 1) ** 2, heads), "other",
                       "relative_position_bias_table"),)
    mlp = str(v["position_bias_mlp"])
    return (Tensor(f"{mlp.rsplit('.', 1)[0]}.logit_scale", (heads, 1, 1), "other", "logit_scale"),
            *path_linear(f"{mlp}.0", 2, 512), *path_linear(f"{mlp}.2", 512, heads, False))


def _block(spec: ModelSpec, width: int, heads: int) -> tuple[ParamNode, ...]:
    """A windowed attention block: query/key/value (query and value biased by qkv_bias, the key by key_bias) and
    output projections, the relative position bias, two LayerNorms, an MLP of int(mlp_ratio × width); the module
    names are the family's (attn_names, mlp_names)."""
    v = spec.values
    ratio = v["mlp_ratio"]
    if isinstance(ratio, float) and not math.isfinite(ratio):  # (a config.json's Infinity or NaN: int() raises)
        raise SpecError((Problem("error", "LC102", f'"mlp_ratio": {ratio!r} gives the MLP no width (the model '
                                                   "builds int(mlp_ratio × width) features)",
                                 spec.key_span("mlp_ratio") or spec.span),))
    inner = int(ratio * width)  # type: ignore[operator]
    q, k, val, out = v["attn_names"]  # type: ignore[misc]
    qkv_bias, key_bias = bool(v["qkv_bias"]), bool(v["key_bias"])
    tensors = (path_linear(q, width, width, qkv_bias) + path_linear(k, width, width, key_bias)
               + path_linear(val, width, width, qkv_bias) + path_linear(out, width, width))
    attention = ParamNode("attention", tensors + _position_bias(spec, heads), source=spec.key_span("stage_heads"),
                          key="stage_heads")
    fc1, fc2 = v["mlp_names"]  # type: ignore[misc]
    mlp = ParamNode("mlp", path_linear(fc1, width, inner) + path_linear(fc2, inner, width),
                    source=spec.key_span("mlp_ratio"), key="mlp_ratio")
    norms = ParamNode("norms", path_norm("layernorm_before", width) + path_norm("layernorm_after", width))
    return attention, mlp, norms


def _stages(spec: ModelSpec) -> ParamNode:
    """Each stage's blocks, then (all but the last) its patch merging: a LayerNorm (over merge_norm_factor × width:
    Swin's 4, before the reduction; Swin V2's 2, after it), a Linear 4 × width → 2 × width without bias."""
    depths, heads = spec.values["depths"], spec.values["stage_heads"]
    widths, factor = stage_widths(spec), spec.int("merge_norm_factor")
    stages = []
    for s, width in enumerate(widths):
        merging = () if s == len(widths) - 1 else (
            path_linear(f"encoder.layers.{s}.downsample.reduction", 4 * width, 2 * width, False)
            + path_norm(f"encoder.layers.{s}.downsample.norm", factor * width))
        blocks = node("blocks", *_block(spec, width, int(heads[s])), repeat=int(depths[s]))  # type: ignore[index]
        stages.append(node(f"stage_{s}", blocks, tensors=merging))
    return node("stages", *stages, source=spec.key_span("depths"), key="depths")


def build_swin(spec: ModelSpec) -> ParamNode:
    head = spec.head
    # (the class's int(embed_dim * 2 ** (stages - 1)): half of embed_dim where depths is empty)
    final = int(spec.int("embed_dim") * 2 ** (len(spec.values["depths"]) - 1))  # type: ignore[arg-type]
    # (Donut's encoder ends without the final LayerNorm)
    base = (_embeddings(spec, mask_token=head == "masked_image_modeling"), _stages(spec),
            ParamNode("final_norm", path_norm("layernorm", final)) if spec.values["final_norm"] else None)
    if head == "base":
        return node(spec.architecture, *base)
    if head == "backbone":  # (MaskFormer's: a LayerNorm after every stage, whatever out_features picks)
        norms = tuple(t for s, width in enumerate(stage_widths(spec))
                      for t in path_norm(f"hidden_states_norms.{s}", width))
        return node(spec.architecture, *base, ParamNode("stage_norms", norms, source=spec.key_span("depths"),
                                                        key="depths"))
    if head == "image_classification":  # (no Linear where num_labels is 0: an Identity)
        labels = head_labels(spec.values)
        classifier = ParamNode("classifier", path_linear("classifier", final, labels) if labels > 0 else (),
                               source=spec.key_span("num_labels") or spec.key_span("id2label"), key="id2label")
        return node(spec.architecture, *base, classifier)
    if head == "masked_image_modeling":  # a 1×1 conv to encoder_stride² × channels, then a pixel shuffle
        out = spec.int("encoder_stride") ** 2 * spec.int("num_channels")
        return node(spec.architecture, *base, ParamNode("decoder", (
            Tensor("decoder.0.weight", (out, final, 1, 1), "conv", "decoder"),
            Tensor("decoder.0.bias", (out,), "bias", "decoder")), source=spec.key_span("encoder_stride"),
            key="encoder_stride"))
    raise AssertionError(head)
