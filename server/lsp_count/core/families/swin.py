"""Hierarchical windowed vision transformers: Swin, Swin V2, Donut's Swin encoder and MaskFormer's Swin backbone
(layout "swin", layouts/swin.py).

A patch embedding (a Conv2d and its LayerNorm, optional absolute positions), stages of windowed attention blocks
(``depths`` blocks with ``num_heads`` heads each, width embed_dim × 2^stage; every block a relative position bias
table of (2 × window_size - 1)² × heads), a patch merging between stages (LayerNorm over 4C, a 4C → 2C Linear),
a final LayerNorm; the image-classification and masked-image-modeling classes. Swin V2, donut-swin and
maskformer-swin differ in switches (see SWINV2_FIELDS, DONUT_SWIN_FIELDS, MASKFORMER_SWIN_FIELDS). The class defaults are transformers 5.25's configuration_swin.py and configuration_swinv2.py. Encoders keep no KV cache.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import fixed
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec

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
    # Switches of the layout (no key sets them): Swin's block.
    "position_bias": fixed("table"),
    "position_bias_table": fixed("attention.relative_position_bias.relative_position_bias_table"),
    "position_bias_mlp": fixed(None),
    "final_norm": fixed(True),
    "attn_names": fixed(("attention.q_proj", "attention.k_proj", "attention.v_proj", "attention.o_proj")),
    "mlp_names": fixed(("mlp.fc1", "mlp.fc2")),
    "key_bias": fixed(Derived(lambda v: v["qkv_bias"], "qkv_bias")),
    "merge_norm_factor": fixed(4),
    "position_extra_rows": fixed(0),
}

# Swin V2: a continuous position bias (an MLP and a logit scale per head, no table), no bias on the key, BERT-like
# module names, the merging's LayerNorm after the reduction (2C wide), one more absolute position than patches, and
# pretrained_window_sizes (one per stage; they shape buffers only).
SWINV2_FIELDS: dict[str, Field] = {
    **FIELDS,
    "pretrained_window_sizes": Field(("pretrained_window_sizes",), (0, 0, 0, 0), "ints", null="reject",
                                     doc="window size each stage was pre-trained with (buffers only; one per stage)"),
    # (typed float alone: its strict config class refuses a whole number, 4 for 4.0: check_float_mlp_ratio)
    "mlp_ratio": Field(("mlp_ratio",), 4.0, "any", doc=FIELDS["mlp_ratio"].doc),
    "position_bias": fixed("continuous"),
    "position_bias_mlp": fixed("attention.self.continuous_position_bias_mlp"),
    "attn_names": fixed(("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense")),
    "mlp_names": fixed(("intermediate.dense", "output.dense")),
    "key_bias": fixed(False),
    "merge_norm_factor": fixed(2),
    "position_extra_rows": fixed(1),
    "heads_divide_width": fixed(True),
    "windows_clip_to_grid": fixed(True),
}


def check_stages(spec: ModelSpec) -> list[Problem]:
    """Each stage reads its heads from num_heads[stage] (and Swin V2's pretrained_window_sizes[stage]): a shorter
    list fails to build (IndexError); a stage with blocks whose heads are fewer than 1 or more than its width fails
    too (its attention's head width, width // heads, is scaled by head_width ** -0.5); Swin V2's attention refuses
    heads that do not divide the width, and clips each stage's windows to its patch grid (grid // 2^stage per side),
    whose coordinate table cannot be built for a grid of no patches."""
    v = spec.values
    depths, heads, embed = v.get("depths"), v.get("stage_heads"), v.get("embed_dim")
    where = spec.key_span("stage_heads") or spec.span
    if not (isinstance(depths, tuple) and isinstance(heads, tuple)):
        return []
    if len(heads) < len(depths):
        return [Problem("error", "LC103", f"num_heads has {len(heads)} entries for {len(depths)} stages (depths): "
                                          "the model cannot be built", where)]
    windows = v.get("pretrained_window_sizes")
    if isinstance(windows, tuple) and len(windows) < len(depths):
        return [Problem("error", "LC103", f"pretrained_window_sizes has {len(windows)} entries for {len(depths)} "
                                          "stages (depths): the model cannot be built",
                        spec.key_span("pretrained_window_sizes") or spec.span)]
    for s, (depth, n) in enumerate(zip(depths, heads)):
        width = int(embed * 2 ** s) if isinstance(embed, int) else None
        if depth and width is not None and not 1 <= n <= width:
            return [Problem("error", "LC103", f"stage {s} has {n} heads for a width of {width}: its heads would have "
                                              "no width, which the attention refuses", where)]
        if depth and width is not None and v.get("heads_divide_width") and width % n:
            return [Problem("error", "LC103", f"stage {s} has {n} heads, which do not divide its width {width}: the "
                                              "attention refuses it", where)]
        grid = _grid(v)
        if depth and grid is not None and v.get("windows_clip_to_grid") and min(grid) >> s == 0:
            return [Problem("error", "LC103", f"stage {s} sees a patch grid of {grid[0] >> s}×{grid[1] >> s}: its "
                                              "windows (clipped to the grid) would be empty, which the model cannot "
                                              "build", spec.key_span("image_size") or spec.key_span("depths")
                            or spec.span)]
    return []


def _grid(v: dict) -> tuple[int, int] | None:
    """The patch grid (image_size // patch_size per side), where both are readable (the layout refuses the rest)."""
    def pair(x: object) -> tuple[int, int] | None:
        if isinstance(x, int) and not isinstance(x, bool) and x >= 1:
            return x, x
        if isinstance(x, (list, tuple)) and len(x) == 2 and all(isinstance(i, int) and i >= 1 for i in x):
            return int(x[0]), int(x[1])
        return None
    image, patch = pair(v.get("image_size")), pair(v.get("patch_size"))
    return (image[0] // patch[0], image[1] // patch[1]) if image and patch else None


def check_float_mlp_ratio(spec: ModelSpec) -> list[Problem]:
    """Swinv2Config and DonutSwinConfig type mlp_ratio as a float alone (a strict field): a whole number, a null or anything else is
    refused."""
    ratio = spec.values.get("mlp_ratio")
    if isinstance(ratio, float):
        return []
    said = "null" if ratio is None else repr(ratio)
    return [Problem("error", "LC103", f'"mlp_ratio": {said} is not a float (write {float(ratio):.1f})'
                    if isinstance(ratio, int) and not isinstance(ratio, bool) else
                    f'"mlp_ratio": {said} is not a float: the config class refuses it',
                    spec.key_span("mlp_ratio") or spec.span)]


# Donut's Swin encoder: Swin's blocks under BERT-like module names (the bias table in attention.self), one more
# absolute position than patches, heads that divide each stage's width, a float mlp_ratio, no final LayerNorm, and no
# masked-image-modeling class (no encoder_stride).
DONUT_SWIN_FIELDS: dict[str, Field] = {
    **{name: f for name, f in FIELDS.items() if name != "encoder_stride"},
    "mlp_ratio": Field(("mlp_ratio",), 4.0, "any", doc=FIELDS["mlp_ratio"].doc),
    "position_bias_table": fixed("attention.self.relative_position_bias_table"),
    "attn_names": fixed(("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense")),
    "mlp_names": fixed(("intermediate.dense", "output.dense")),
    "position_extra_rows": fixed(1),
    "heads_divide_width": fixed(True),
    "final_norm": fixed(False),
}


# MaskFormer's Swin backbone: Donut's blocks and positions with Swin's final LayerNorm; its backbone class adds a
# LayerNorm after every stage.
MASKFORMER_SWIN_FIELDS: dict[str, Field] = {
    **DONUT_SWIN_FIELDS,
    "final_norm": fixed(True),
    "out_features": Field(("out_features",), None, "strs", doc="the stages the backbone returns"),
    "out_indices": Field(("out_indices",), None, "ints", minimum=0, doc="the stages the backbone returns, by index"),
}


def check_backbone_stem(spec: ModelSpec) -> list[Problem]:
    """MaskFormerSwinBackbone refuses the stem among its outputs (out_features "stem", out_indices 0)."""
    v = spec.values
    if spec.head != "backbone":
        return []
    if "stem" in (v.get("out_features") or ()) or 0 in (v.get("out_indices") or ()):
        return [Problem("error", "LC103", f"{spec.architecture} does not return the stem (out_features \"stem\" or "
                                          "out_indices 0): its class refuses it",
                        spec.key_span("out_features") or spec.key_span("out_indices") or spec.span)]
    return []


SWIN_HEADS = {"SwinModel": "base", "SwinForImageClassification": "image_classification",
              "SwinForMaskedImageModeling": "masked_image_modeling"}

SWINV2_HEADS = {"Swinv2Model": "base", "Swinv2ForImageClassification": "image_classification",
                "Swinv2ForMaskedImageModeling": "masked_image_modeling"}

DONUT_SWIN_HEADS = {"DonutSwinModel": "base", "DonutSwinForImageClassification": "image_classification"}

MASKFORMER_SWIN_HEADS = {"MaskFormerSwinModel": "base", "MaskFormerSwinBackbone": "backbone"}

FAMILIES: tuple[Family, ...] = (
    Family("swin", "swin", "SwinForImageClassification", FIELDS, SWIN_HEADS, checks=(check_stages,)),
    Family("swinv2", "swin", "Swinv2ForImageClassification", SWINV2_FIELDS, SWINV2_HEADS,
           checks=(check_float_mlp_ratio, check_stages)),
    Family("donut-swin", "swin", "DonutSwinModel", DONUT_SWIN_FIELDS, DONUT_SWIN_HEADS,
           checks=(check_float_mlp_ratio, check_stages)),
    Family("maskformer-swin", "swin", "MaskFormerSwinModel", MASKFORMER_SWIN_FIELDS, MASKFORMER_SWIN_HEADS,
           checks=(check_float_mlp_ratio, check_stages, check_backbone_stem)),
)
