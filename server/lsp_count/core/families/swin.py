"""Hierarchical windowed vision transformers: Swin (layout "swin", layouts/swin.py).

A patch embedding (a Conv2d and its LayerNorm, optional absolute positions), stages of windowed attention blocks
(``depths`` blocks with ``num_heads`` heads each, width embed_dim × 2^stage; every block a relative position bias
table of (2 × window_size - 1)² × heads), a patch merging between stages (LayerNorm over 4C, a 4C → 2C Linear),
a final LayerNorm; the image-classification and masked-image-modeling classes. The class defaults are transformers
5.25's configuration_swin.py. Encoders keep no KV cache.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec

FIELDS: dict[str, Field] = {
    "image_size": Field(("image_size",), 224, "any", doc="input image side in pixels, or [height, width]"),
    "patch_size": Field(("patch_size",), 4, "any", doc="side of each patch, or [height, width]"),
    "num_channels": Field(("num_channels",), 3, doc="input image channels"),
    "embed_dim": Field(("embed_dim",), 96, doc="width of the first stage (each later stage doubles it)"),
    "depths": Field(("depths",), (2, 2, 6, 2), "ints", null="reject", doc="blocks of each stage"),
    # (num_attention_heads is an attribute_map alias, set after the fields: attribute_maps.py)
    "stage_heads": Field(("num_heads", "num_attention_heads"), (3, 6, 12, 24), "ints", null="reject",
                         doc="attention heads of each stage's blocks (at least one entry per stage)"),
    "window_size": Field(("window_size",), 7, doc="side of the attention windows (the bias table has (2w-1)² rows)"),
    "mlp_ratio": Field(("mlp_ratio",), 4.0, "float", doc="each block's MLP width over its stage's width"),
    "qkv_bias": Field(("qkv_bias",), True, "bool", doc="biases on the query/key/value projections"),
    "use_absolute_embeddings": Field(("use_absolute_embeddings",), False, "bool",
                                     doc="a learned position for every patch"),
    "encoder_stride": Field(("encoder_stride",), 32, doc="upsampling factor of the masked-image decoder"),
    **LABEL_FIELDS,
}


def check_stages(spec: ModelSpec) -> list[Problem]:
    """Each stage reads its heads from num_heads[stage]: a shorter list fails to build (IndexError); a stage with
    blocks whose heads are fewer than 1 or more than its width fails too (its attention's head width, width // heads,
    is scaled by head_width ** -0.5)."""
    v = spec.values
    depths, heads, embed = v.get("depths"), v.get("stage_heads"), v.get("embed_dim")
    where = spec.key_span("stage_heads") or spec.span
    if not (isinstance(depths, tuple) and isinstance(heads, tuple)):
        return []
    if len(heads) < len(depths):
        return [Problem("error", "LC103", f"num_heads has {len(heads)} entries for {len(depths)} stages (depths): "
                                          "the model cannot be built", where)]
    for s, (depth, n) in enumerate(zip(depths, heads)):
        width = int(embed * 2 ** s) if isinstance(embed, int) else None
        if depth and width is not None and not 1 <= n <= width:
            return [Problem("error", "LC103", f"stage {s} has {n} heads for a width of {width}: its heads would have "
                                              "no width, which the attention refuses", where)]
    return []


SWIN_HEADS = {"SwinModel": "base", "SwinForImageClassification": "image_classification",
              "SwinForMaskedImageModeling": "masked_image_modeling"}

FAMILIES: tuple[Family, ...] = (
    Family("swin", "swin", "SwinForImageClassification", FIELDS, SWIN_HEADS, checks=(check_stages,)),
)
