"""Hierarchical windowed vision transformers (Swin; families/swin.py): a patch embedding, stages of windowed
attention blocks whose width doubles from stage to stage (a patch merging between stages: a LayerNorm over 4 × C and
a 4C → 2C Linear without bias), a final LayerNorm, and the head classes.

Each block's attention holds a relative position bias table of (2 × window - 1)² rows, one column per head (its
relative_position_index is a buffer, not a parameter). Tensors are named by their path in the base model (a block's
inside the block: "attention.q_proj.weight"); the stages' blocks sit under "stages" > "stage_<s>" > "blocks" so
formats/lora.py's ENCODER_PATHS can number them (encoder.layers.<s>.blocks.<i>).
"""

from __future__ import annotations

# (image_size / patch_size: one number or [height, width], read and refused as ViT's)
from lsp_count.core.layouts.encoder import _pair, path_linear, path_norm
from lsp_count.core.params import ParamNode, Tensor, node
from lsp_count.core.spec import ModelSpec, head_labels


def stage_widths(spec: ModelSpec) -> list[int]:
    """Each stage's width: embed_dim × 2^stage (the class's int(embed_dim * 2 ** stage))."""
    return [int(spec.int("embed_dim") * 2 ** s) for s in range(len(spec.values["depths"]))]  # type: ignore[arg-type]


def _embeddings(spec: ModelSpec, mask_token: bool) -> ParamNode:
    """The patch Conv2d (channels → embed_dim, patch-sized kernel and stride, a bias), its LayerNorm, learned
    positions for every patch where use_absolute_embeddings, the mask token of masked image modeling."""
    c, channels = spec.int("embed_dim"), spec.int("num_channels")
    (ih, iw), (ph, pw) = _pair(spec, "image_size"), _pair(spec, "patch_size")
    tensors = (Tensor("embeddings.patch_embeddings.projection.weight", (c, channels, ph, pw), "conv", "projection"),
               Tensor("embeddings.patch_embeddings.projection.bias", (c,), "bias", "projection"),
               *path_norm("embeddings.norm", c))
    if spec.values["use_absolute_embeddings"]:
        tensors += (Tensor("embeddings.position_embeddings", (1, (ih // ph) * (iw // pw), c), "embedding",
                           "embeddings"),)
    if mask_token:
        tensors += (Tensor("embeddings.mask_token", (1, 1, c), "embedding", "embeddings"),)
    return ParamNode("embeddings", tensors, source=spec.key_span("patch_size"), key="patch_size")


def _block(spec: ModelSpec, width: int, heads: int) -> tuple[ParamNode, ...]:
    """A windowed attention block: q/k/v (qkv_bias) and output projections, the relative position bias table, two
    LayerNorms, an MLP of int(mlp_ratio × width)."""
    window, inner = spec.int("window_size"), int(spec.values["mlp_ratio"] * width)  # type: ignore[operator]
    qkv_bias = bool(spec.values["qkv_bias"])
    tensors = tuple(t for n in ("q_proj", "k_proj", "v_proj") for t in path_linear(f"attention.{n}", width, width,
                                                                                    qkv_bias))
    tensors += path_linear("attention.o_proj", width, width)
    table = Tensor("attention.relative_position_bias.relative_position_bias_table", ((2 * window - 1) ** 2, heads),
                   "other", "relative_position_bias")
    attention = ParamNode("attention", tensors + (table,), source=spec.key_span("stage_heads"), key="stage_heads")
    mlp = ParamNode("mlp", path_linear("mlp.fc1", width, inner) + path_linear("mlp.fc2", inner, width),
                    source=spec.key_span("mlp_ratio"), key="mlp_ratio")
    norms = ParamNode("norms", path_norm("layernorm_before", width) + path_norm("layernorm_after", width))
    return attention, mlp, norms


def _stages(spec: ModelSpec) -> ParamNode:
    """Each stage's blocks, then (all but the last) its patch merging: LayerNorm(4 × width), Linear 4 × width →
    2 × width without bias."""
    depths, heads = spec.values["depths"], spec.values["stage_heads"]
    widths = stage_widths(spec)
    stages = []
    for s, width in enumerate(widths):
        merging = () if s == len(widths) - 1 else (
            path_linear(f"encoder.layers.{s}.downsample.reduction", 4 * width, 2 * width, False)
            + path_norm(f"encoder.layers.{s}.downsample.norm", 4 * width))
        blocks = node("blocks", *_block(spec, width, int(heads[s])), repeat=int(depths[s]))  # type: ignore[index]
        stages.append(node(f"stage_{s}", blocks, tensors=merging))
    return node("stages", *stages, source=spec.key_span("depths"), key="depths")


def build_swin(spec: ModelSpec) -> ParamNode:
    head = spec.head
    # (the class's int(embed_dim * 2 ** (stages - 1)): half of embed_dim where depths is empty)
    final = int(spec.int("embed_dim") * 2 ** (len(spec.values["depths"]) - 1))  # type: ignore[arg-type]
    base = (_embeddings(spec, mask_token=head == "masked_image_modeling"), _stages(spec),
            ParamNode("final_norm", path_norm("layernorm", final)))
    if head == "base":
        return node(spec.architecture, *base)
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
