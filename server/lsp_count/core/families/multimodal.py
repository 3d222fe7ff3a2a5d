"""Vision-language families: a vision tower, a projector and a language model, each from a nested config.

The nested ``text_config`` / ``vision_config`` list only what differs from the
sub-model's class defaults; ``hf_config.build_spec`` resolves each through its
own family row (Qwen2-VL's and Qwen2.5-VL's flat configs: ``Family.flat_subconfigs``).
Defaults are the transformers (v5) config classes'. Sub-models no other family has
(Qwen2-VL's, Qwen2.5-VL's and Qwen3-VL's text models and vision towers, Qwen3.5's vision towers) are rows
here too.
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.families.common import LABEL_FIELDS, TEXT_ROPE_TYPES, written_rope
from lsp_count.core.families.decoders import (BASE, FLOOR_HEADS, HEAD_DIM, KV_HEADS, MOE, QK_HEAD, QKV_BIAS_ONLY,
                                              QWEN_SLIDING, ROPE, STRICT_HEADS, WRITTEN_HEAD_DIM, d, decoder, fixed,
                                              merge_fields, nulls)
from lsp_count.core.families.encoders import VISION, vision_tower
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field, ModelSpec


def _qwen_vl_window_layers(spec: ModelSpec) -> list[Problem]:
    """With no layer_types and the window on, Qwen2VLTextConfig / Qwen2_5_VLTextConfig compare each layer
    index with max_window_layers: a null there fails (with the window off it builds)."""
    v = spec.values
    window_on = bool(v.get("use_sliding_window")) and v.get("sliding_window") is not None
    if "max_window_layers" not in spec.origins or v.get("max_window_layers") is not None \
            or "layer_types" in spec.origins or not window_on:
        return []
    config_class = spec.family.architecture.removesuffix("Model") + "Config"  # Qwen2VLTextModel -> Qwen2VLTextConfig
    return [Problem("error", "LC102", '"max_window_layers": null is not a whole number: with use_sliding_window and '
                                      f"no layer_types, {config_class} derives the layer types from it (leaving "
                                      "the key out takes the default, 80)", spec.key_span("max_window_layers") or spec.span)]


def _vision_heads_fit(spec: ModelSpec) -> list[Problem]:
    """Qwen2-VL's and Qwen2.5-VL's (and Pixtral's) vision attention scales by (width // num_heads) ** -0.5: more
    heads than the width make that 0 ** -0.5, which fails. (Heads that do not divide the width build: qkv is 3 ×
    the width.) The width is Qwen2.5-VL's hidden_size, Qwen2-VL's embed_dim (its hidden_size is the merger's output)."""
    hidden, heads = spec.values.get("hidden_size"), spec.values.get("num_heads")
    if type(hidden) is not int or type(heads) is not int or heads <= hidden:
        return []
    width, heads_key = spec.key_label("hidden_size"), spec.key_name("num_heads") or "num_heads"
    return [Problem("error", "LC103", f"{heads_key} ({heads}) is more than {width} ({hidden}): each head would be 0 wide, "
                                      f"which {spec.family.architecture}'s attention cannot build (it scales by "
                                      "head_dim ** -0.5)",
                    spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span)]


def _head_dim_times_heads(spec: ModelSpec) -> list[Problem]:
    """A config class with head_dim, num_heads and embed_dim (Qwen2VLVisionConfig, once a file gives head_dim)
    refuses head_dim × num_heads ≠ embed_dim (PreTrainedConfig.validate_architecture), a null head_dim too."""
    v = spec.values
    width, heads, hidden = v.get("rope_head_dim"), v.get("num_heads"), v.get("hidden_size")
    if "rope_head_dim" not in spec.origins or type(heads) is not int or type(hidden) is not int \
            or (type(width) is int and width * heads == hidden):
        return []
    return [Problem("error", "LC103", f'"{spec.key_name("rope_head_dim")}": {json.dumps(width)} × num_heads ({heads}) '
                                      f"is not {spec.key_label('hidden_size')} ({hidden}): {spec.architecture}'s config "
                                      "class refuses it (leave head_dim out)", spec.key_span("rope_head_dim"))]


def _merger_feeds_the_text_model(spec: ModelSpec) -> list[Problem]:
    """Qwen2-VL and Qwen2.5-VL put the merger's outputs where the text model's token embeddings are: a
    warning where the merger's width (vision_config's out_hidden_size; Qwen2-VL's hidden_size) is not the
    text model's hidden_size (transformers builds it, counted as built)."""
    vision, text = spec.subspecs.get("vision"), spec.subspecs.get("text")
    if vision is None or text is None:
        return []
    out, hidden = vision.values.get("out_hidden_size"), text.values.get("hidden_size")
    if type(out) is not int or type(hidden) is not int or out == hidden:
        return []
    return [Problem("warning", "LC103",
                    f"vision_config's {vision.key_label('out_hidden_size')} ({out:,}) is not the text model's hidden_size "
                    f"({hidden:,}): transformers builds the model, but its forward pass fails (the merged image "
                    "features take the place of token embeddings); counted as built",
                    vision.key_span("out_hidden_size") or text.key_span("hidden_size") or spec.span)]


def _qwen_vl_text(model_type: str, architecture: str) -> Family:
    """Qwen2-VL's / Qwen2.5-VL's language model (Qwen2VLTextModel, Qwen2_5_VLTextModel: the bare class, the
    composite holds the head), a decoder row: Qwen2's layout with q/k/v biases, the head width always
    hidden_size / num_attention_heads (a head_dim key is only kept, for the RoPE check; its attention refuses
    heads that do not divide the width), the text config class's defaults (the 72B's sizes; the two classes are the same but for their
    names). That class has no tie_word_embeddings field (a null there is false), reads a null
    use_sliding_window as false, and fails on a null max_window_layers only where it derives the layer
    types of a window that is on."""
    # (Its config class does not read a top-level partial_rotary_factor: only rope_parameters' own.)
    # (It takes the Hub configs' legacy "mrope" type as the default one: convert_rope_params_to_dict.)
    return decoder(model_type, architecture, WRITTEN_HEAD_DIM, {"partial_rotary_factor": fixed(None),
                                                                "rope_types": fixed({**TEXT_ROPE_TYPES, "mrope": ()})},
                   QKV_BIAS_ONLY, QWEN_SLIDING,
                   {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False)},
                   d(vocab_size=152064, hidden_size=8192, intermediate_size=29568, num_layers=80, num_heads=64,
                     num_kv_heads=8, max_positions=32768, max_window_layers=80),
                   nulls(num_kv_heads=KV_HEADS, tie_embeddings="false", use_sliding_window="false",
                         max_window_layers="none"),
                   heads={architecture: "base"}, checks=(_qwen_vl_window_layers,), float_keys=("head_dim",))


# The vision towers' rotary embeddings take axial rotation only ("... supports only axial rope"), which their config
# classes make of the default type.
AXIAL_ROPE_TYPES = {"default": (), "axial": ()}

# The vision towers' fields Qwen2VLVisionConfig and Qwen2_5_VLVisionConfig share (their defaults too).
QWEN_VISION: dict[str, Field] = {
    # attribute_map: num_hidden_layers / num_attention_heads are set onto depth / num_heads after the
    # fields, so they win when both are written; the field itself is still checked (a null depth
    # fails beside num_hidden_layers), which "depth" / "heads_field" do. A null under the field's
    # name is then that one's error, not num_layers' / num_heads'.
    "num_layers": Field(("num_hidden_layers", "depth"), 32, doc="vision blocks (depth)", null=("depth",)),
    "depth": Field(("depth",), 32, doc="vision blocks (num_hidden_layers, when also written, wins)"),
    "num_heads": Field(("num_attention_heads", "num_heads"), 16, null=("num_heads",),
                       doc="attention heads per block (the fused qkv is 3 × the block width whatever the count)"),
    "heads_field": Field(("num_heads",), 16, doc="attention heads per block (num_attention_heads, when also written, wins)"),
    # The Hub configs' "in_chans" is no key of these config classes: transformers 5 does not read it.
    "in_channels": Field(("in_channels",), 3, doc="image channels into the patch embedding"),
    "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
    "temporal_patch_size": Field(("temporal_patch_size",), 2, doc="frames per patch"),
    "spatial_merge_size": Field(("spatial_merge_size",), 2,
                                doc="patches per side the merger joins (its linears are the block width × merge² wide)"),
    # Rotary positions (axial): these config classes declare no head_dim, and keep one the file gives.
    **ROPE, **WRITTEN_HEAD_DIM, "rope_types": fixed(AXIAL_ROPE_TYPES),
}


def _exaone4_5_text_type(spec: ModelSpec) -> list[Problem]:
    """Exaone4_5_Config reads a given text_config's model_type (to rename its first releases' exaone4_5_text): a
    text_config without one fails there."""
    text = spec.values.get("text_config_written")
    if not isinstance(text, dict) or "model_type" in text:
        return []
    return [Problem("error", "LC102", 'text_config has no "model_type": Exaone4_5_Config reads it (give "exaone4" for '
                                      "EXAONE 4.5's text model)", spec.key_span("text_config_written") or spec.span)]


def _kimi_k25_vision(spec: ModelSpec) -> list[Problem]:
    """Kimi_K25VisionConfig's strict merge_kernel_size takes a list or pair (no null); its tower's time position table
    joins sin and cos halves of the width, which fails to build for an odd hidden_size."""
    kernel = spec.values.get("merge_kernel_size")
    if "merge_kernel_size" in spec.origins and not isinstance(kernel, (list, tuple)):
        return [Problem("error", "LC102", f'"merge_kernel_size": {json.dumps(kernel)} is not a list of two whole numbers: '
                                          "Kimi_K25VisionConfig rejects it", spec.key_span("merge_kernel_size") or spec.span)]
    hidden = spec.values.get("hidden_size")
    if type(hidden) is int and hidden % 2:
        return [Problem("error", "LC103", f"{spec.key_label('hidden_size')} ({hidden}) is odd: the tower's time position "
                                          "table joins sin and cos halves of it, which 2 must divide; transformers fails "
                                          "to build it", spec.key_span("hidden_size") or spec.span)]
    return []


def _rice_heads(spec: ModelSpec) -> list[Problem]:
    """LlavaOnevision15VisionConfig refuses a width that 4 × num_heads does not divide (its 2-D rotary positions)."""
    hidden, heads = spec.values.get("hidden_size"), spec.values.get("num_heads")
    if type(hidden) is not int or type(heads) is not int or (heads > 0 and hidden % (4 * heads) == 0):
        return []
    return [Problem("error", "LC103", f"4 × {spec.key_name('num_heads') or 'num_heads'} ({heads}) does not divide "
                                      f"{spec.key_label('hidden_size')} ({hidden}): LlavaOnevision15VisionConfig refuses "
                                      "it (its 2-D rotary positions need it)",
                    spec.key_span("hidden_size") or spec.key_span("num_heads") or spec.span)]


def _merger_is_the_text_model_s_width(spec: ModelSpec) -> list[Problem]:
    """LlavaOnevision15Config refuses a vision_config whose out_hidden_size is not text_config's hidden_size."""
    problems = _merger_feeds_the_text_model(spec)
    return [replace(p, severity="error", message=p.message.split(": transformers builds")[0]
                    + f": {spec.family.architecture}'s config class refuses it") for p in problems]


def _qwen_vl(model_type: str, architecture: str, bare: str, vision_type: str, text_type: str) -> Family:
    """Qwen2-VL / Qwen2.5-VL: the vision tower, the text model and lm_head. Hub configs are flat (the text
    model's keys at the top level, the composite config class pops them into its text config when there is
    no text_config); newer saves nest a text_config, which then wins. Both sub-configs are always the
    composite's own classes, whatever model_type they name (old checkpoints name the vision config
    after the composite)."""
    return Family(model_type, model_type, architecture, {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (also when text_config ties)"),
        # A flat config's head_dim stays the composite's: its class hands the text config only the keys that
        # class declares (and the rope ones), and it declares no head_dim (nor checks one).
        "flat_head_dim": Field(("head_dim",), None, "any",
                               doc="not read: the text model's heads are hidden_size / num_attention_heads wide"),
    }, {architecture: "conditional_generation", bare: "base"},
        subconfigs={"vision": ("vision_config", vision_type), "text": ("text_config", text_type)},
        fixed_subconfigs=("vision", "text"), flat_subconfigs=("text",), checks=(_merger_feeds_the_text_model,))


# Qwen3-VL (dense and MoE). The text models are Qwen3's layout (q/k RMS norms over the head width) with
# mrope, and no sliding window (their config classes have no sliding_window / layer_types; the MoE one
# nulls the window). The composite configs take no flat keys (Qwen3VLConfig reads only text_config) and
# tie lm_head by their own tie_word_embeddings alone (text_config's is not forwarded).
_NO_WINDOW = {"sliding_window": fixed(None), "layer_types": fixed(None)}


def _qwen3_vl_text() -> Family:
    """Qwen3VLTextModel (the bare class; the composite holds the head): a head_dim of its own (128 by
    default), attention_bias on all four projections, Qwen3VLTextConfig's defaults."""
    return decoder("qwen3_vl_text", "Qwen3VLTextModel", QK_HEAD, _NO_WINDOW,
                   {"head_dim": Field(("head_dim",), 128, doc="width of each attention head"), "mlp_bias": fixed(False)},
                   d(vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_layers=32, num_heads=32,
                     num_kv_heads=32, max_positions=128000),
                   nulls(num_kv_heads=KV_HEADS, tie_embeddings="false"),
                   heads={"Qwen3VLTextModel": "base"})


def _qwen3_vl_moe_text() -> Family:
    """Qwen3VLMoeTextModel: Qwen3-MoE's layers (fused experts, a router parameter, sparse every
    decoder_sparse_step-th layer but mlp_only_layers), head_dim null or absent as hidden_size //
    num_attention_heads, Qwen3VLMoeTextConfig's defaults (num_experts is its num_local_experts too). A
    whole-number float is refused under both spellings: under num_local_experts (an attribute_map alias,
    set past the strict checks) transformers takes 0.0 (every layer dense) but fails to build any other."""
    return decoder("qwen3_vl_moe_text", "Qwen3VLMoeTextModel", FLOOR_HEADS, MOE, QK_HEAD, _NO_WINDOW,
                   {"head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
                    "mlp_bias": fixed(False),
                    "num_experts": Field(("num_experts", "num_local_experts"), 60, minimum=0, doc=MOE["num_experts"].doc),
                    "experts_per_token": Field(("num_experts_per_tok",), 4, doc=MOE["experts_per_token"].doc),
                    "moe_intermediate_size": Field(("moe_intermediate_size",), 1408, doc=MOE["moe_intermediate_size"].doc),
                    "moe_layers": fixed("sparse_step"), "without_experts": fixed("dense"),
                    "decoder_sparse_step": Field(("decoder_sparse_step",), 1),
                    "mlp_only_layers": Field(("mlp_only_layers",), (), "ints")},
                   d(vocab_size=151936, hidden_size=2048, intermediate_size=5632, num_layers=24, num_heads=16,
                     num_kv_heads=16, max_positions=128000, tie_embeddings=True),
                   nulls(head_dim="default"),  # its num_key_value_heads is a plain int: a null is refused
                   heads={"Qwen3VLMoeTextModel": "base"})


# Qwen3-VL's vision tower fields (Qwen3VLVisionConfig's and Qwen3VLMoeVisionConfig's, which are the same
# but for their names): Qwen2.5-VL's keys with 27 blocks of 16-pixel patches, a learned position grid,
# and the DeepStack mergers.
QWEN3_VISION: dict[str, Field] = {
    **QWEN_VISION,
    "num_layers": replace(QWEN_VISION["num_layers"], default=27),
    "depth": replace(QWEN_VISION["depth"], default=27),
    "patch_size": replace(QWEN_VISION["patch_size"], default=16),
    "hidden_size": Field(("hidden_size",), 1152, doc="width of the vision blocks"),
    "intermediate_size": Field(("intermediate_size",), 4304, doc="width of each block's MLP (linear_fc1, linear_fc2)"),
    "out_hidden_size": Field(("out_hidden_size",), 3584, doc="width the mergers project to (the language model's)"),
    "num_position_embeddings": Field(("num_position_embeddings",), 2304,
                                     doc="rows of the learned position embedding (pos_embed), resampled to each image"),
    # One patch merger (with its LayerNorm after the 2×2 shuffle) per entry, whatever the indexes are.
    "deepstack_visual_indexes": Field(("deepstack_visual_indexes",), (8, 16, 24), "ints", null="reject",
                                      doc="vision blocks whose outputs a DeepStack merger feeds to the language model"),
}


def _axial_rope(spec: ModelSpec) -> list[Problem]:
    """Qwen3-VL's and Qwen3.5's vision rotary embedding takes the axial type alone (its config class reads a
    "default" one, or none, as axial; a legacy "type" as rope_type; a non-empty rope_scaling replaces
    rope_parameters): any other type fails to build (YaRN's already in the config class, which has no
    max_position_embeddings)."""
    v = spec.values
    scaling = v.get("rope_scaling")
    field = "rope_scaling" if isinstance(scaling, dict) and scaling else "rope_parameters"
    rope = v.get(field)
    if not isinstance(rope, dict):
        return []
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind in ("default", "axial"):
        return []
    return [Problem("error", "LC103", f'"{spec.key_label(field)}": rope_type {json.dumps(kind)}: '
                                      f"{spec.architecture}'s rotary embedding supports only axial RoPE, and "
                                      "transformers refuses the config", spec.key_span(field) or spec.span)]


def _qwen3_vl_vision(model_type: str, architecture: str) -> Family:
    """Qwen3VLVisionModel / Qwen3VLMoeVisionModel: a Conv3d patch embedding with a bias, pos_embed,
    blocks of two LayerNorms, a fused qkv and an MLP of linear_fc1 / linear_fc2 (biases on every
    linear), the merger and one DeepStack merger per deepstack_visual_indexes entry."""
    return Family(model_type, "qwen3_vision", architecture, QWEN3_VISION, {architecture: "base"},
                  checks=(_vision_heads_fit, _axial_rope), float_keys=("num_attention_heads", "head_dim"))


def _qwen3_vl(model_type: str, architecture: str, bare: str, vision_type: str, text_type: str) -> Family:
    """Qwen3-VL / Qwen3-VL-MoE: the vision tower, the text model and lm_head, from nested configs only (both
    sub-configs always the composite's own classes, whatever model_type they name: old checkpoints name
    the vision config after the composite). Only the composite's tie_word_embeddings ties the head."""
    return Family(model_type, model_type, architecture, {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool", doc="output head shares the language model's embedding"),
        "text_config_ties": fixed(False),  # text_config's tie_word_embeddings does not tie the head
    }, {architecture: "conditional_generation", bare: "base"},
        subconfigs={"vision": ("vision_config", vision_type), "text": ("text_config", text_type)},
        fixed_subconfigs=("vision", "text"), checks=(_merger_feeds_the_text_model,))


# Qwen3.5 (dense and MoE: Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration, the released
# checkpoints' class). The vision tower is Qwen3-VL's without the DeepStack mergers (Qwen3_5VisionConfig has no
# deepstack_visual_indexes: a file's, the Hub's "[]" too, is kept but not read); the text models are the hybrid
# rows qwen3_5_text / qwen3_5_moe_text (Gated DeltaNet and gated attention layers), whose cache the memory
# report takes (memory._decoder_spec: the composite's hybrid text sub-spec). The composite configs read only
# text_config (no flat keys), build both sub-configs as their own classes whatever model_type they name, and
# tie lm_head by their own tie_word_embeddings alone.
QWEN3_5_VISION: dict[str, Field] = {**QWEN3_VISION, "deepstack_visual_indexes": fixed(())}


def _qwen3_5_vision(model_type: str, architecture: str) -> Family:
    """Qwen3_5VisionModel / Qwen3_5MoeVisionModel (the same but for their names): Qwen3-VL's tower (a Conv3d
    patch embedding with a bias, pos_embed, LayerNorm blocks with a fused qkv and linear_fc1 / linear_fc2, the
    merger), no DeepStack mergers."""
    return Family(model_type, "qwen3_vision", architecture, QWEN3_5_VISION, {architecture: "base"},
                  checks=(_vision_heads_fit, _axial_rope), float_keys=("num_attention_heads", "head_dim"))


_QWEN3_5_MTP = ("Qwen3.5 checkpoints also hold multi-token-prediction layers (mtp.*, text_config's "
                "mtp_num_hidden_layers) that transformers does not build; they are not counted")


def _qwen3_5(model_type: str, prefix: str, vision_type: str, text_type: str, classifiers: bool) -> Family:
    """Qwen3.5 / Qwen3.5-MoE: the vision tower, the hybrid text model and lm_head (the head class), or the bare
    model. ``classifiers``: Qwen3_5ForSequenceClassification (a score linear over the text model's width, no
    bias) and Qwen3_5ForTokenClassification (the same with a bias unless the composite's
    token_classification_bias, a key its config class does not declare, is false or null), both over the
    bare composite model; the MoE composite has none."""
    architecture = f"{prefix}ForConditionalGeneration"
    fields: dict[str, Field] = {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool", doc="output head shares the language model's embedding"),
        "text_config_ties": fixed(False),  # text_config's tie_word_embeddings does not tie the head
    }
    heads = {architecture: "conditional_generation", f"{prefix}Model": "base"}
    if classifiers:
        fields.update(LABEL_FIELDS)
        # GenericForTokenClassification: getattr(config, "token_classification_bias", True), read as nn.Linear's bias
        # (a null: no bias).
        fields["token_classification_bias"] = Field(("token_classification_bias",), True, "bool", null="false",
                                                    doc="a bias on the token classifier's score linear")
        heads.update({f"{prefix}ForSequenceClassification": "sequence_classification",
                      f"{prefix}ForTokenClassification": "token_classification"})
    return Family(model_type, "qwen3_vl", architecture, fields, heads,
                  subconfigs={"vision": ("vision_config", vision_type), "text": ("text_config", text_type)},
                  fixed_subconfigs=("vision", "text"), checks=(_merger_feeds_the_text_model,), notes=(_QWEN3_5_MTP,))


# Pixtral's vision tower (PixtralVisionModel; Mistral 3's vision_config): a Conv2d patch embedding (no
# bias), an RMSNorm (ln_pre), and blocks of two RMSNorms, q/k/v/o projections hidden_size × hidden_size
# (no biases, as wide whatever the heads) and a gated MLP (no biases). Defaults are PixtralVisionConfig's.
PIXTRAL: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1024, doc="width of the vision blocks"),
    "intermediate_size": Field(("intermediate_size",), 4096, doc="width of each block's gated MLP"),
    "num_layers": Field(("num_hidden_layers",), 24, doc="vision blocks"),
    "num_heads": Field(("num_attention_heads",), 16,
                       doc="attention heads per block (the projections are as wide whatever the count)"),
    "num_channels": Field(("num_channels",), 3, doc="image channels into the patch embedding"),
    "patch_size": Field(("patch_size",), 16, doc="pixels per side of a patch"),
    # PixtralVisionConfig sets head_dim = hidden_size // num_attention_heads, then a written head_dim (a
    # key it does not declare) over it: a null one is kept, which the RoPE check skips. Only the axial
    # rotary embedding reads it (no parameters); the attention is hidden_size / num_attention_heads wide.
    "head_dim": Field(("head_dim",), HEAD_DIM, "int?", minimum=0, null="none",
                      doc="width the axial rotary positions turn (no parameters)"),
    # Heads need not divide the width: the projections are hidden_size wide, the class floors the head width.
    **FLOOR_HEADS,
    **ROPE, "rope_types": fixed(AXIAL_ROPE_TYPES),
}


# LLaVA's vision tower when a LLaVA-style config has no vision_config (its sub_configs_defaults
# init_kwargs: CLIP ViT-L/14-336), which LLaVA-NeXT, LLaVA-NeXT-Video and VipLLaVA share.
_CLIP_336 = {"intermediate_size": 4096, "hidden_size": 1024, "patch_size": 14, "image_size": 336,
             "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 32000, "projection_dim": 768}
# LLaVA-OneVision's and Aya Vision's (SigLIP so400m/14-384 without its pooling head; Aya's 14 heads).
_SIGLIP_384 = {"hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14, "image_size": 384,
               "num_hidden_layers": 26, "num_attention_heads": 16, "vision_use_head": False}


# The vision tower runs once per image, over one image at its config's image_size (no tiles or crops by default in
# the family's processor): the memory estimate counts its activations for one image per sequence.
ONE_PASS_PER_IMAGE = {"one_pass_per_image": fixed(True)}


def _grid_pinpoints(default: list[list[int]]) -> dict[str, Field]:
    """LLaVA-NeXT's any-resolution images: the processor resizes an image to the grid pinpoint (height, width)
    that fits it best and cuts it into tiles of the tower's image_size; the tower runs over each tile and over the
    whole image resized (transformers' image_size_to_num_patches). The memory estimate takes the pinpoint of the
    most tiles. A null is the class's default list."""
    return {"image_grid_pinpoints": Field(("image_grid_pinpoints",), default, "any", null="default",
                                          doc="the [height, width] grids an image is tiled to (the tower runs "
                                              "once per tile and once over the whole image)")}


_NEXT_PINPOINTS = _grid_pinpoints([[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]])


# InternVLVisionConfig's fields and defaults (InternViT-300M's sizes).
INTERNVL_VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size",), 1024, doc="width of the vision layers"),
    "num_layers": Field(("num_hidden_layers",), 24, doc="vision layers"),
    "num_heads": Field(("num_attention_heads",), 16, doc="attention heads per layer (they must divide the width)"),
    "head_dim": fixed(HEAD_DIM),
    "intermediate_size": Field(("intermediate_size",), 4096, doc="width of each layer's MLP (fc1, fc2)"),
    "num_channels": Field(("num_channels",), 3, doc="image channels into the patch embedding"),
    # A whole number, or a list (height and width first): checked by the layout.
    "image_size": Field(("image_size",), (448, 448), "any", doc="input image side(s) in pixels (the position table follows)"),
    "patch_size": Field(("patch_size",), (14, 14), "any", doc="patch side(s) in pixels (the patch embedding's kernel)"),
    "attention_bias": Field(("attention_bias",), False, "bool", doc="biases on q_proj, k_proj, v_proj"),
    "use_qk_norm": Field(("use_qk_norm",), False, "bool", doc="RMSNorms over the queries and keys (q_norm, k_norm)"),
    "norm_type": Field(("norm_type",), "layer_norm", "str", null="reject",
                       doc='the layers\' norms: "layer_norm" (weight and bias) or "rms_norm" (weight)'),
    "use_mask_token": Field(("use_mask_token",), False, "bool", doc="a learned mask token beside the class token"),
    "use_absolute_position_embeddings": Field(("use_absolute_position_embeddings",), True, "bool",
                                              doc="a learned position table (the patches + 1 rows)"),
    "use_mean_pooling": Field(("use_mean_pooling",), True, "bool",
                              doc="pool by the mean (no final LayerNorm); false adds the final layernorm"),
}


def _llava_like(model_type: str, prefix: str, fields: dict[str, Field], vision_type: str, text_type: str,
                notes: tuple[str, ...] = (), checks: tuple = (), fixed_vision: bool = False) -> Family:
    """A composite built on the llava layout: the head class <prefix>ForConditionalGeneration, the bare
    <prefix>Model, the vision and text sub-configs resolved through their own families (AutoConfig: the
    model_type they name, else ``vision_type`` / ``text_type``; ``fixed_vision``: the vision config is
    always the composite's own class, ``vision_type``)."""
    architecture = f"{prefix}ForConditionalGeneration"
    return Family(model_type, "llava", architecture, fields, {architecture: "conditional_generation", f"{prefix}Model": "base"},
                  subconfigs={"vision": ("vision_config", vision_type), "text": ("text_config", text_type)},
                  fixed_subconfigs=("vision",) if fixed_vision else (), notes=notes, checks=checks)


def _got_ocr2_vision(model_type: str) -> Family:
    """GOT-OCR2's vision tower (GotOcr2VisionEncoder: SAM's ViT with windowed and global layers and a neck),
    GotOcr2VisionConfig's defaults. A list image_size / patch_size is refused (transformers builds one only
    without absolute and global positions)."""
    return Family(model_type, "got_ocr2_vision", "GotOcr2VisionEncoder", {
        "hidden_size": Field(("hidden_size",), 768, doc="width of the vision layers"),
        "output_channels": Field(("output_channels",), 256, doc="channels of the neck's convolutions (the projector's input)"),
        "num_layers": Field(("num_hidden_layers",), 12, doc="vision layers"),
        "num_heads": Field(("num_attention_heads",), 12, doc="attention heads per layer (the relative positions are "
                                                             "hidden_size // heads wide)"),
        "num_channels": Field(("num_channels",), 3, doc="image channels into the patch embedding"),
        "image_size": Field(("image_size",), 1024, minimum=0, doc="input image side in pixels (the position grid follows)"),
        "patch_size": Field(("patch_size",), 16, doc="pixels per side of a patch"),
        "qkv_bias": Field(("qkv_bias",), True, "bool", doc="a bias on each layer's fused qkv"),
        "use_abs_pos": Field(("use_abs_pos",), True, "bool", doc="a learned position grid (pos_embed)"),
        "use_rel_pos": Field(("use_rel_pos",), True, "bool", doc="learned relative positions in each layer"),
        "window_size": Field(("window_size",), 14, minimum=0, doc="side of the windowed layers' attention windows"),
        "global_attn_indexes": Field(("global_attn_indexes",), (2, 5, 8, 11), "ints", null="reject",
                                     doc="layers attending globally (their relative positions span the patch grid)"),
        "mlp_dim": Field(("mlp_dim",), 3072, doc="width of each layer's MLP (lin1, lin2)"),
    }, {"GotOcr2VisionEncoder": "base"}, checks=(_vision_heads_fit,))


def _got_ocr2(model_type: str, vision_type: str) -> Family:
    """GOT-OCR2's composite (GotOcr2ForConditionalGeneration, GotOcr2Model): its own tower config class, the
    convolutional projector, a Qwen2 text model with GotOcr2Config's sizes where text_config is absent."""
    return _llava_like(model_type, "GotOcr2", {
        **_tie(True, False), "projector": fixed("conv_upsampler"),
        "text_defaults": fixed({"vocab_size": 151860, "hidden_size": 1024, "intermediate_size": 2816,
                                "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
                                "hidden_act": "silu", "max_position_embeddings": 32768, "initializer_range": 0.02,
                                "rms_norm_eps": 1e-6, "use_cache": True, "tie_word_embeddings": True,
                                "rope_theta": 1000000.0, "rope_parameters": None, "use_sliding_window": False,
                                "sliding_window": 4096, "max_window_layers": 21, "attention_dropout": 0.0}),
    }, vision_type, "qwen2", fixed_vision=True,
        notes=("GOT-OCR2 ties its output head to the language model's embeddings unless the config's own "
               "tie_word_embeddings is false",))


def _idefics3_vision(model_type: str, architecture: str, hidden_size: int = 1152, num_heads: int = 16) -> Family:
    """Idefics3VisionTransformer / SmolVLMVisionTransformer (Idefics3VisionConfig's / SmolVLMVisionConfig's
    defaults, the two the same) and Idefics2VisionTransformer (768 wide, 12 heads): SigLIP's vision tower
    without its pooling head (a Conv2d patch embedding with a bias, (image_size // patch_size)² positions,
    q/k/v/out_proj and fc1/fc2 with biases, two LayerNorms a layer, post_layernorm). Its attention refuses
    heads that do not divide the width."""
    return Family(model_type, "encoder", architecture, merge_fields(VISION, d(
        hidden_size=hidden_size, intermediate_size=3072, num_layers=12, num_heads=num_heads, image_size=224,
        patch_size=32), {"embed": fixed("siglip"), "final_norm": fixed("post_layernorm")}), {architecture: "base"})


def _idefics3(model_type: str, prefix: str, vision_type: str) -> Family:
    """Idefics3 / SmolVLM: the vision tower (always the composite's own config class), the connector
    (scale_factor² patches side by side, one linear to the text model's width, no bias), a Llama text
    model by default (text_model), lm_head tied by the composite's own key alone."""
    return _llava_like(model_type, prefix, {
        **_tie(False, False), "projector": fixed("connector"),
        "scale_factor": Field(("scale_factor",), 2, doc="patches per side the connector joins (its linear is the "
                                                        "tower's width × scale_factor² wide)"),
    }, vision_type, "llama", fixed_vision=True)


def _tie(default: bool, forwarded: bool) -> dict[str, Field]:
    """The composite's tie_word_embeddings, and whether its config class forwards text_config's
    (LlavaConfig's BC workaround: a false tie takes text_config's true one)."""
    doc = "output head shares the language model's embedding" + (
        " (also when text_config ties)" if forwarded else " (text_config's does not tie it)")
    return {"tie_embeddings": Field(("tie_word_embeddings",), default, "bool", doc=doc),
            "text_config_ties": fixed(forwarded)}


def _feature_layer(default: object, *aliases: str) -> dict[str, Field]:
    # An int picks one vision layer; a list concatenates several, widening the projector's input.
    return {"vision_feature_layer": Field((*aliases, "vision_feature_layer"), default, "any",
                                          doc="vision layer(s) fed to the projector (a list widens its input)")}


_PROJECTOR_BIAS = {"projector_bias": Field(("multimodal_projector_bias",), True, "bool",
                                           doc="biases on the projector's two linears")}
_NEWLINE = {"image_newline": fixed(True)}  # a bare nn.Parameter as wide as the text model


# Cosmos3EdgeTextConfig's rope_parameters where none (or a null) is given: the default type, with the multimodal
# sections its rotary embedding splits each head's frequencies into (temporal, height, width).
COSMOS3_EDGE_ROPE = {"rope_type": "default", "rope_theta": 100_000_000.0, "mrope_section": [24, 20, 20]}


def _cosmos3_edge_rope(spec: ModelSpec) -> list[Problem]:
    """What Cosmos3EdgeTextConfig's validate_architecture refuses in its rotary settings (rope_parameters, or a
    non-empty legacy rope_scaling, which replaces it): a type other than "default" (ValueError), no mrope_section
    (KeyError), and one that is not three numbers summing to head_dim / 2 (ValueError; TypeError where not numbers)."""
    v = spec.values
    key, entry = written_rope(v)
    if entry is None:
        entry = COSMOS3_EDGE_ROPE
    if not isinstance(entry, dict):
        return []
    where = spec.key_span(key) or spec.span
    rope_type = entry.get("rope_type", entry.get("type", "default"))
    if rope_type != "default":
        return [Problem("error", "LC102", f'"{key}": Cosmos3 Edge requires rope_type "default", got '
                                          f"{json.dumps(rope_type)} (Cosmos3EdgeTextConfig raises ValueError)", where)]
    if "mrope_section" not in entry:
        return [Problem("error", "LC102", f'"{key}": no "mrope_section": Cosmos3EdgeTextConfig reads it (KeyError); '
                                          "write three sections summing to half of head_dim, e.g. [24, 20, 20]", where)]
    section, head_dim = entry["mrope_section"], v.get("head_dim")
    numbers = isinstance(section, (list, tuple)) and all(type(x) in (int, float, bool) for x in section)
    if type(head_dim) is not int or (numbers and len(section) == 3 and sum(section) == head_dim // 2):
        return []
    return [Problem("error", "LC102", f'"{key}": mrope_section {json.dumps(section)} must be three sections summing '
                                      f"to half of head_dim ({head_dim // 2}): Cosmos3EdgeTextConfig raises "
                                      f"{'ValueError' if numbers else 'TypeError'}", where)]


def _mistral3_fields(tie: bool) -> dict[str, Field]:
    """Mistral3Config's keys (Mistral Large 4's config class takes them too): the head tied by the composite's own
    tie_word_embeddings (``tie`` by default), the projector's biases, the vision layers it reads, the patch merge."""
    return {"tie_embeddings": Field(("tie_word_embeddings",), tie, "bool",
                                    doc="output head shares the language model's embedding (text_config's does not tie it)"),
            "projector_bias": Field(("multimodal_projector_bias",), False, "bool",
                                    doc="biases on the projector's two linears (linear_1, linear_2)"),
            # An int picks one vision layer; a list widens linear_1's input (the tower keeps all its layers).
            "vision_feature_layer": Field(("vision_feature_layer",), -1, "any",
                                          doc="vision layer(s) fed to the projector (a list widens its input)"),
            "spatial_merge_size": Field(("spatial_merge_size",), 2, minimum=0,
                                        doc="patches per side the patch merger joins (its linear is the tower's width × "
                                            "merge² wide)")}


def _paligemma_text(spec: ModelSpec) -> list[Problem]:
    """PaliGemmaConfig reads text_config's use_bidirectional_attention, which only the Gemma config
    classes declare: any other text model fails to build (unless its file writes the key, which
    lsp-count does not see: it then refuses a config transformers builds)."""
    text = spec.subspecs.get("text")
    if text is None or text.model_type in ("gemma", "gemma2", "gemma3_text"):
        return []
    return [Problem("error", "LC103", f"text_config is {text.model_type}: PaliGemmaConfig reads its "
                                      "use_bidirectional_attention, which only Gemma's config classes (gemma, gemma2, "
                                      "gemma3_text) have", text.span or spec.span)]


def _aria_queries(v) -> int:
    """The projector's learned queries: max_value_projector_patch_to_query_dict where the file writes it (a key
    AriaConfig sets after its fields, over the one it derives), else the largest value of
    projector_patch_to_query_dict (AriaConfig reads each key and value with int()), 256 where it gives none;
    ValueError where it cannot (_aria_config says so)."""
    saved = v["saved_max_queries"]
    if saved is not None:
        if type(saved) is not int or saved < 0:
            raise ValueError(saved)
        return saved
    table = v["patch_to_query"]
    if table is None:
        return 256
    if not isinstance(table, dict) or not table:
        raise ValueError(table)
    return max(int(x) for x in table.values())


def _aria_config(spec: ModelSpec) -> list[Problem]:
    """AriaConfig's strict vision_feature_layer takes a whole number or a list of them (no null); it turns
    projector_patch_to_query_dict into whole numbers and takes the largest value: an empty or non-mapping value, or
    an entry int() cannot read, fails there."""
    layer = spec.values.get("vision_feature_layer")
    if "vision_feature_layer" in spec.origins and not (type(layer) is int or (
            isinstance(layer, tuple) and all(type(x) is int for x in layer))):
        return [Problem("error", "LC102", f'"vision_feature_layer": {json.dumps(layer)} is not a layer number or a list '
                                          "of them: AriaConfig rejects it",
                        spec.key_span("vision_feature_layer") or spec.span)]
    saved = spec.values.get("saved_max_queries")
    if "saved_max_queries" in spec.origins and (type(saved) is not int or saved < 0):
        return [Problem("error", "LC102", f'"max_value_projector_patch_to_query_dict": {json.dumps(saved)} is not a '
                                          "whole number: AriaConfig sets it after its fields, and the projector cannot "
                                          "make that many queries", spec.key_span("saved_max_queries") or spec.span)]
    table = spec.values.get("patch_to_query")
    if "patch_to_query" not in spec.origins or table is None:
        return []
    try:
        if not isinstance(table, dict) or not table:
            raise ValueError(table)
        for key, value in table.items():
            int(key), int(value)
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise ValueError(value)
        if max(int(x) for x in table.values()) < 0:
            raise ValueError(table)
    except (TypeError, ValueError, OverflowError):
        return [Problem("error", "LC102", f'"projector_patch_to_query_dict": {json.dumps(table)} is not a non-empty '
                                          "mapping of whole numbers (patches to queries): AriaConfig cannot read it",
                        spec.key_span("patch_to_query") or spec.span)]
    return []


# Aria (rhymes-ai/Aria): an Idefics3 vision tower by default (any vision config it names), a projector of learned
# queries cross-attending to the patches, and Aria's MoE text model (text_config is always AriaTextConfig).
ARIA = Family("aria", "llava", "AriaForConditionalGeneration", {
    **_tie(False, False), "projector": fixed("aria"), **_feature_layer(-1),
    "patch_to_query": Field(("projector_patch_to_query_dict",), None, "any", null="default",
                            doc="image patches → the projector's queries (the largest sizes its learned queries)"),
    # (saved by AriaConfig; written, it is set after the fields, over the one derived from the table)
    "saved_max_queries": Field(("max_value_projector_patch_to_query_dict",), None, "any",
                               doc="the projector's learned queries (else the largest value of "
                                   "projector_patch_to_query_dict)"),
    "projector_queries": fixed(Derived(_aria_queries, "the largest value of projector_patch_to_query_dict (256)")),
}, {"AriaForConditionalGeneration": "conditional_generation", "AriaModel": "base"},
    subconfigs={"vision": ("vision_config", "idefics3_vision"), "text": ("text_config", "aria_text")},
    fixed_subconfigs=("text",), checks=(_aria_config,),
    unreplaced_linears=("cross_attn.multihead_attn.out_proj",))  # (NonDynamicallyQuantizableLinear: bnb keeps it)


LLAVA_LIKE: tuple[Family, ...] = (
    # LLaVA-NeXT (LLaVA-1.6): LLaVA's tower, projector and language model, and image_newline; its config
    # class does not forward text_config's tie_word_embeddings.
    _llava_like("llava_next", "LlavaNext", {
        **_tie(False, False), **_PROJECTOR_BIAS, **_feature_layer(-2), **_NEWLINE, **_NEXT_PINPOINTS,
        "vision_defaults": fixed(_CLIP_336),
    }, "clip_vision_model", "llama"),
    # LLaVA-OneVision: LLaVA-NeXT's shape on a SigLIP tower and a Qwen2 language model (its defaults),
    # the last vision layer; text_config's tie forwarded as LlavaConfig forwards it.
    _llava_like("llava_onevision", "LlavaOnevision", {
        **_tie(False, True), **_PROJECTOR_BIAS, **_feature_layer(-1), **_NEWLINE,
        **_grid_pinpoints([[384 * i, 384 * j] for i in range(1, 7) for j in range(1, 7)]),  # up to 2304 × 2304
        "vision_defaults": fixed(_SIGLIP_384),
    }, "siglip_vision_model", "qwen2"),
    # LLaVA-NeXT-Video: LLaVA-NeXT's shape (text_config's tie forwarded) and the vision_resampler, whose
    # "conv" mode is a Conv2d (the average and max pools hold nothing).
    _llava_like("llava_next_video", "LlavaNextVideo", {
        **_tie(False, True), **_PROJECTOR_BIAS, **_feature_layer(-2), **_NEWLINE, **_NEXT_PINPOINTS,
        "spatial_pool_mode": Field(("spatial_pool_mode",), "average", "str", null="reject",
                                   doc='the video pooler: "average", "max" or "conv" (a Conv2d)'),
        "spatial_pool_stride": Field(("spatial_pool_stride",), 2, minimum=0,
                                     doc="the pooler's kernel and stride (the Conv2d's is stride × stride)"),
        # Not a field of LlavaNextVideoConfig: the "conv" pooler reads it where the file gives it (a null or a float
        # elsewhere builds), else takes the tower's width.
        "spatial_pool_out_channels": Field(("spatial_pool_out_channels",), None, "any",
                                           doc="the \"conv\" pooler's output channels (default: the tower's width)"),
        "vision_defaults": fixed(_CLIP_336),
    }, "clip_vision_model", "llama"),
    # VipLLaVA: five vision layers by default, a LayerNorm before linear_1, biases always; its attribute_map
    # sets vision_feature_layers over vision_feature_layer. No forwarded tie.
    _llava_like("vipllava", "VipLlava", {
        **_tie(False, False), **_feature_layer((-2, -5, -8, -11, 6), "vision_feature_layers"),
        "projector_bias": fixed(True), "projector_norm": fixed(True),
        "vision_defaults": fixed(_CLIP_336), **ONE_PASS_PER_IMAGE,
    }, "clip_vision_model", "llama"),
    # PaliGemma (1 and 2): a SigLIP tower without its head, one linear to projection_dim, a Gemma language
    # model (PaliGemmaConfig's sizes when text_config is absent); the head tied by the composite's own key.
    _llava_like("paligemma", "PaliGemma", {
        **_tie(True, False), "projector": fixed("linear"), **ONE_PASS_PER_IMAGE,
        "projection_dim": Field(("projection_dim",), 2048, minimum=0, doc="width of the projector's output (the text model's)"),
        "vision_defaults": fixed({"intermediate_size": 4096, "hidden_size": 1152, "patch_size": 14, "image_size": 224,
                                  "num_hidden_layers": 27, "num_attention_heads": 16, "vocab_size": 257152,
                                  "vision_use_head": False}),
        "text_defaults": fixed({"hidden_size": 2048, "num_hidden_layers": 18, "intermediate_size": 16384,
                                "num_attention_heads": 8, "num_key_value_heads": 1, "is_encoder_decoder": False,
                                "vocab_size": 257152}),
    }, "siglip_vision_model", "gemma", notes=("PaliGemma ties its output head to the language model's embeddings "
                                              "unless the config's own tie_word_embeddings is false",),
        checks=(_paligemma_text,)),
    # Aya Vision: a SigLIP tower, a SwiGLU projector over downsample_factor² patches (a LayerNorm, linear_1 to
    # alignment_intermediate_size, linear_2 from half of it) and a Cohere2 language model; tied by default.
    _llava_like("aya_vision", "AyaVision", {
        **_tie(True, False), "projector": fixed("swiglu"), "projector_norm": fixed(True),
        "downsample_factor": Field(("downsample_factor",), 2, minimum=0,
                                   doc="patches per side the projector joins (its input is the tower's width × factor²)"),
        # Not a field of AyaVisionConfig: read when the file gives it, else the text model's width.
        "alignment_intermediate_size": Field(("alignment_intermediate_size",), None, "int?", minimum=0, null="reject",
                                             doc="width of the projector's linear_1 (default: the text model's width)"),
        "vision_defaults": fixed({**_SIGLIP_384, "num_attention_heads": 14}),
    }, "siglip_vision_model", "cohere2", notes=("Aya Vision ties its output head to the language model's embeddings "
                                                "unless the config's own tie_word_embeddings is false",)),
    # Cohere2-Vision (Command A Vision): Aya Vision's SwiGLU projector without its LayerNorm, its intermediate
    # width a field of the config class (36,864), a SigLIP tower (its own default sizes when vision_config is
    # absent) and a Cohere2 language model; the head tied by the composite's own key (true by default).
    _llava_like("cohere2_vision", "Cohere2Vision", {
        **_tie(True, False), "projector": fixed("swiglu"), "projector_norm": fixed(False),
        "downsample_factor": Field(("downsample_factor",), 2, minimum=0,
                                   doc="patches per side the projector joins (its input is the tower's width × factor²)"),
        "alignment_intermediate_size": Field(("alignment_intermediate_size",), 36864, minimum=0,
                                             doc="width of the projector's linear_1 (linear_2 reads half of it)"),
        "vision_defaults": fixed({"hidden_size": 1152, "intermediate_size": 3072, "image_size": 512,
                                  "num_hidden_layers": 27, "num_attention_heads": 12}),
    }, "siglip_vision_model", "cohere2", notes=("Cohere2-Vision ties its output head to the language model's "
                                                "embeddings unless the config's own tie_word_embeddings is false",)),
    # LFM2-VL: a SigLIP-2 NaFlex tower, a projector over downsample_factor² patches (a LayerNorm where
    # projector_use_layernorm, linear_1 to projector_hidden_size, linear_2 to the text model's width, biases where
    # projector_bias) and an LFM2 language model; the head tied by the composite's own key (true by default),
    # which the Hub configs' tie_embedding replaces (Lfm2VlConfig pops it over tie_word_embeddings).
    _llava_like("lfm2_vl", "Lfm2Vl", {
        "tie_embeddings": Field(("tie_embedding", "tie_word_embeddings"), True, "bool",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "text_config_ties": fixed(False),
        "projector": fixed("joined_mlp"),
        "projector_norm": Field(("projector_use_layernorm",), True, "bool", doc="a LayerNorm over the joined patches"),
        "projector_bias": Field(("projector_bias",), True, "bool", doc="biases on the projector's two linears"),
        "projector_hidden_size": Field(("projector_hidden_size",), 2560, minimum=0, doc="width of the projector's linear_1"),
        "downsample_factor": Field(("downsample_factor",), 2, minimum=0,
                                   doc="patches per side the projector joins (its input is the tower's width × factor²)"),
    }, "siglip2_vision_model", "lfm2", notes=("LFM2-VL ties its output head to the language model's embeddings "
                                             "unless the config's own tie_word_embeddings (or tie_embedding) is false",)),
    # DeepSeek-VL: a SigLIP tower (SiglipVisionConfig's own defaults, its pooling head too) at vision_model, the aligner
    # (linear1 and linear2 to the text model's width, biases) and a Llama language model; the head tied by the
    # composite's own key (true by default).
    _llava_like("deepseek_vl", "DeepseekVL", {**_tie(True, False), "projector": fixed("aligner"), **ONE_PASS_PER_IMAGE},
                "siglip_vision_model", "llama", notes=("DeepSeek-VL ties its output head to the language model's "
                                                       "embeddings unless the config's own tie_word_embeddings is false",)),
    # ColPali / ColQwen2 (ColVision retrievers): the bare model of a vision-language config (vlm_config: PaliGemma's /
    # Qwen2-VL's by default, any exact one by its model_type) and a projection of each token to embedding_dim.
    *(Family(model_type, "retrieval", architecture, {
        "embedding_dim": Field(("embedding_dim",), 128, doc="width of each token's multi-vector retrieval embedding"),
    }, {architecture: "base"}, subconfigs={"vlm": ("vlm_config", vlm_type)})
      for model_type, architecture, vlm_type in (("colpali", "ColPaliForRetrieval", "paligemma"),
                                                 ("colqwen2", "ColQwen2ForRetrieval", "qwen2_vl"))),
    # GOT-OCR2: its vision tower, and the composite (the head tied by the composite's own key, true by default).
    _got_ocr2_vision("got_ocr2_vision"),
    _got_ocr2("got_ocr2", "got_ocr2_vision"),
    # PP-Chart2Table: GOT-OCR2's classes (GotOcr2ForConditionalGeneration, GotOcr2Model, GotOcr2VisionEncoder) over
    # PPChart2TableConfig / PPChart2TableVisionConfig, the same fields and defaults as GOT-OCR2's.
    _got_ocr2_vision("pp_chart2table_vision"),
    _got_ocr2("pp_chart2table", "pp_chart2table_vision"),
    # InternVL's vision tower (InternVLVisionModel): InternVLVisionConfig's defaults (InternViT-300M's sizes).
    Family("internvl_vision", "internvl_vision", "InternVLVisionModel", INTERNVL_VISION,
           {"InternVLVisionModel": "base"}),
    # Qianfan-OCR's tower (QianfanOCRVisionModel): InternVL's, biases on q_proj, k_proj and v_proj by default.
    Family("qianfan_ocr_vision", "internvl_vision", "QianfanOCRVisionModel", {
        **INTERNVL_VISION, "attention_bias": replace(INTERNVL_VISION["attention_bias"], default=True),
    }, {"QianfanOCRVisionModel": "base"}),
    # InternVL (InternVL3 / 3.5, -hf): the InternVL tower (always the composite's own config class), the projector
    # over int(1 / downsample_ratio)² patches, a Qwen2 language model by default; tied by its own key alone.
    _llava_like("internvl", "InternVL", {
        **_tie(True, False), "projector": fixed("internvl"),
        # InternVLConfig takes a float alone (an int is refused); the layout checks it.
        "downsample_ratio": Field(("downsample_ratio",), 0.5, "any",
                                  doc="the projector joins int(1 / downsample_ratio)² patches side by side"),
    }, "internvl_vision", "qwen2", fixed_vision=True,
        notes=("InternVL ties its output head to the language model's embeddings unless the config's own "
               "tie_word_embeddings is false",)),
    # Qianfan-OCR: InternVL's shape, its tower's layers biased on q/k/v by default, a Qwen3 text model by default, the
    # head tied by its own key (false by default).
    _llava_like("qianfan_ocr", "QianfanOCR", {
        **_tie(False, False), "projector": fixed("internvl"),
        "downsample_ratio": Field(("downsample_ratio",), 0.5, "any",
                                  doc="the projector joins int(1 / downsample_ratio)² patches side by side"),
    }, "qianfan_ocr_vision", "qwen3", fixed_vision=True),
    # PaddleOCR-VL's tower (PaddleOCRVisionModel): SigLIP's embeddings (its position table resampled to each image's
    # grid: images of any size), layers and post_layernorm, no pooling head; spatial_merge_size sizes the projector.
    vision_tower("paddleocr_vl_vision", "PaddleOCRVisionModel", {"PaddleOCRVisionModel": "base"},
                 d(hidden_size=1152, intermediate_size=4304, num_layers=27, num_heads=16, image_size=384, patch_size=14),
                 {"embed": fixed("siglip_grid"), "final_norm": fixed("post_layernorm"),
                  "spatial_merge_size": Field(("spatial_merge_size",), 2, minimum=0,
                                              doc="patches per side the projector joins")}),
    # PaddleOCR-VL: its tower and text model (always its own config classes; the Hub's flat text keys read where
    # there is no text_config), the projector (merge_mlp), the head tied by its own key or text_config's.
    Family("paddleocr_vl", "llava", "PaddleOCRVLForConditionalGeneration", {
        **_tie(True, True), "projector": fixed("merge_mlp"),
    }, {"PaddleOCRVLForConditionalGeneration": "conditional_generation", "PaddleOCRVLModel": "base"},
        subconfigs={"vision": ("vision_config", "paddleocr_vl_vision"), "text": ("text_config", "paddleocr_vl_text")},
        fixed_subconfigs=("vision", "text"), flat_subconfigs=("text",)),
    # Cosmos3 Edge's text model (Cosmos3EdgeTextModel, no head of its own): Llama's attention, an MLP of fc1 and fc2
    # (relu², no gate), the multimodal rotary sections in rope_parameters (no parameters; checked).
    decoder("cosmos3_edge_text", "Cosmos3EdgeTextModel", STRICT_HEADS,
            d(vocab_size=131072, hidden_size=2048, intermediate_size=9216, num_layers=28, num_heads=16, num_kv_heads=8,
              max_positions=131072, pad_token_id=0),
            {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
             "mlp_gated": fixed(False), "mlp_names": fixed(("fc1", "fc2")),
             "rope_parameters": replace(ROPE["rope_parameters"], default=COSMOS3_EDGE_ROPE)},
            nulls(num_kv_heads=KV_HEADS),
            heads={"Cosmos3EdgeTextModel": "base"}, checks=(_cosmos3_edge_rope,)),
    # Cosmos3 Edge's tower (Cosmos3EdgeVisionModel): SigLIP 2's (a Linear patch embedding, num_patches positions
    # resampled to each image's grid: images of any size), no pooling head; spatial_merge_size sizes the projector.
    vision_tower("cosmos3_edge_vision", "Cosmos3EdgeVisionModel", {"Cosmos3EdgeVisionModel": "base"},
                 d(hidden_size=1152, intermediate_size=4304, num_layers=27, num_heads=16, patch_size=16),
                 {"num_patches": Field(("num_patches",), 256, doc="rows of the position embedding"),
                  "image_size": fixed(None), "embed": fixed("siglip2_grid"), "final_norm": fixed("post_layernorm"),
                  "spatial_merge_size": Field(("spatial_merge_size",), 2, minimum=0,
                                              doc="patches per side the projector joins")}),
    # Cosmos3 Edge: its tower and text model (always its own config classes), the projector (patch_merger); the head is
    # never tied (the class ties no weights, whatever tie_word_embeddings says).
    Family("cosmos3_edge", "llava", "Cosmos3EdgeForConditionalGeneration", {
        "tie_embeddings": fixed(False), "text_config_ties": fixed(False),
        "tie_word_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                     doc="kept, but never ties the head: the model class ties no weights"),
        "projector": fixed("patch_merger"),
        "projector_hidden_size": Field(("projector_hidden_size",), 11520,
                                       doc="width of the projector's hidden layer (linear_fc1's output)"),
    }, {"Cosmos3EdgeForConditionalGeneration": "conditional_generation", "Cosmos3EdgeModel": "base"},
        subconfigs={"vision": ("vision_config", "cosmos3_edge_vision"), "text": ("text_config", "cosmos3_edge_text")},
        fixed_subconfigs=("vision", "text")),
    # VideoLLaMA3's tower (VideoLlama3VisionModel): SigLIP's layers and post_layernorm over a Conv2d patch embedding
    # with rotary positions (no position table, no image_size: images of any size), no pooling head.
    vision_tower("video_llama_3_vision", "VideoLlama3VisionModel", {"VideoLlama3VisionModel": "base"},
                 {"embed": fixed("siglip_rotary"), "final_norm": fixed("post_layernorm"), "image_size": fixed(None)}),
    # VideoLLaMA3: its tower (always its own config class), a projector of two linears (readout), a Qwen2 text model
    # by default; the head tied by its own key or text_config's (its config class forwards a true one).
    _llava_like("video_llama_3", "VideoLlama3", {
        **_tie(False, True), "projector": fixed("readout"),
    }, "video_llama_3_vision", "qwen2", fixed_vision=True),
    _idefics3_vision("idefics2_vision", "Idefics2VisionTransformer", hidden_size=768, num_heads=12),
    _idefics3_vision("idefics3_vision", "Idefics3VisionTransformer"),
    _idefics3("idefics3", "Idefics3", "idefics3_vision"),
    _idefics3_vision("smolvlm_vision", "SmolVLMVisionTransformer"),
    _idefics3("smolvlm", "SmolVLM", "smolvlm_vision"),
)


FAMILIES: tuple[Family, ...] = (
    _qwen_vl_text("qwen2_5_vl_text", "Qwen2_5_VLTextModel"),
    _qwen_vl_text("qwen2_vl_text", "Qwen2VLTextModel"),
    Family("llava", "llava", "LlavaForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (also when text_config ties)"),
        "projector_bias": Field(("multimodal_projector_bias",), True, "bool", doc="biases on the projector's two linears"),
        # An int picks one vision layer; a list concatenates several, widening the projector's input.
        "vision_feature_layer": Field(("vision_feature_layer",), -2, "any",
                                      doc="vision layer(s) fed to the projector (a list widens its input)"),
        **ONE_PASS_PER_IMAGE,
        # With no vision_config at all, LlavaConfig builds this CLIP ViT-L/14-336 tower
        # (its sub_configs_defaults init_kwargs), not CLIPVisionConfig's own defaults.
        "vision_defaults": fixed({
            "intermediate_size": 4096, "hidden_size": 1024, "patch_size": 14, "image_size": 336,
            "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 32000, "projection_dim": 768,
        }),
    }, {"LlavaForConditionalGeneration": "conditional_generation", "LlavaModel": "base"},
        subconfigs={"vision": ("vision_config", "clip_vision_model"), "text": ("text_config", "llama")}),
    Family("pixtral", "pixtral", "PixtralVisionModel", PIXTRAL, {"PixtralVisionModel": "base"},
           checks=(_vision_heads_fit,), float_keys=("head_dim",)),
    # Mistral 3 (Mistral-Small-3.1 / 3.2): a Pixtral tower, a projector (an RMSNorm, the patch merger's
    # linear from spatial_merge_size² patches back to the tower's width, two linears to the text model's
    # width) and the language model, whatever family text_config names (AutoConfig: "mistral" when it
    # names none). Mistral3Config hands neither sub-config anything and ties the head by its own
    # tie_word_embeddings alone, which defaults to true (text_config's is not read).
    Family("mistral3", "mistral3", "Mistral3ForConditionalGeneration", {
        **_mistral3_fields(tie=True),
        # With no vision_config / text_config at all, Mistral3Config builds these (its sub_configs_defaults
        # init_kwargs: Mistral-Small-3.1's), not the sub-config classes' own defaults.
        "vision_defaults": fixed({
            "intermediate_size": 4096, "hidden_size": 1024, "patch_size": 14, "image_size": 1540,
            "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 32000, "head_dim": 64,
            "hidden_act": "gelu",
        }),
        "text_defaults": fixed({
            "attention_dropout": 0.0, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
            "initializer_range": 0.02, "intermediate_size": 32768, "max_position_embeddings": 131072,
            "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-05, "rope_theta": 1000000000.0, "sliding_window": None, "use_cache": True,
            "vocab_size": 131072,
        }),
    }, {"Mistral3ForConditionalGeneration": "conditional_generation", "Mistral3Model": "base"},
        subconfigs={"vision": ("vision_config", "pixtral"), "text": ("text_config", "mistral")},
        notes=("Mistral 3 ties its output head to the language model's embeddings unless the config's own "
               "tie_word_embeddings is false (text_config's is not read)",)),
    # Mistral Large 4 (MistralLarge4ForConditionalGeneration, MistralLarge4Model): Mistral 3's shape over its own text
    # model (always its config class), a Pixtral tower (Mistral Small 3.1's sizes, a SiLU MLP, where vision_config is
    # absent), the head tied by its own tie_word_embeddings (false by default).
    Family("mistral_large4", "mistral3", "MistralLarge4ForConditionalGeneration", {
        **_mistral3_fields(tie=False),
        "vision_defaults": fixed({"hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 30,
                                  "num_attention_heads": 16, "patch_size": 14, "image_size": 1540, "hidden_act": "silu"}),
    }, {"MistralLarge4ForConditionalGeneration": "conditional_generation", "MistralLarge4Model": "base"},
        subconfigs={"vision": ("vision_config", "pixtral"), "text": ("text_config", "mistral_large4_text")},
        fixed_subconfigs=("text",),
        # (one model class serves the composite and its text model: the same float32 lists)
        fp32_modules=("indexer.weights_proj",), fp32_modules_strict=("rotary_emb", "mlp.gate.weight"),
        notes=("Mistral Large 4 checkpoints also hold a multi-token-prediction draft head that transformers does not "
               "build; it is not counted",)),
    # LightOnOCR (LightOnOcrForConditionalGeneration, LightOnOcrModel): Mistral 3's shape, its projector's linears
    # with no bias and fed the tower's last layer, a Pixtral tower and a Qwen3 text model by default (its
    # sub_configs_defaults init_kwargs where a sub-config is absent), the head tied by its own tie_word_embeddings.
    Family("lighton_ocr", "mistral3", "LightOnOcrForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "projector_bias": fixed(False), "vision_feature_layer": fixed(-1),
        "spatial_merge_size": Field(("spatial_merge_size",), 2, minimum=0,
                                    doc="patches per side the patch merger joins (its linear is the tower's width × merge² wide)"),
        "vision_defaults": fixed({
            "attention_dropout": 0.0, "head_dim": 64, "hidden_act": "silu", "hidden_size": 1024, "image_size": 1540,
            "initializer_range": 0.02, "intermediate_size": 4096, "num_attention_heads": 16, "num_channels": 3,
            "num_hidden_layers": 24, "patch_size": 14, "rope_parameters": {"rope_type": "default", "rope_theta": 10000},
        }),
        "text_defaults": fixed({
            "attention_dropout": 0.0, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024,
            "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 40960,
            "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-6, "rope_theta": 1000000, "sliding_window": None, "use_cache": True,
            "vocab_size": 151936,
        }),
    }, {"LightOnOcrForConditionalGeneration": "conditional_generation", "LightOnOcrModel": "base"},
        subconfigs={"vision": ("vision_config", "pixtral"), "text": ("text_config", "qwen3")}),
    Family("gemma3", "gemma3", "Gemma3ForConditionalGeneration", {
        # Gemma3Config keeps a null, which the model reads as false: the head is then its own.
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", null="false",
                                doc="output head shares the language model's embedding"),
        **LABEL_FIELDS,
        **ONE_PASS_PER_IMAGE,  # (pan-and-scan crops only where the processor is told to)
    }, {"Gemma3ForConditionalGeneration": "conditional_generation", "Gemma3Model": "base",
        "Gemma3ForSequenceClassification": "sequence_classification"},
        subconfigs={"vision": ("vision_config", "siglip_vision_model"), "text": ("text_config", "gemma3_text")},
        notes=("Gemma 3 ties its output head to the language model's embeddings by default",)),
    # Qwen2.5-VL's vision tower (Qwen2_5_VisionTransformerPretrainedModel): a Conv3d patch embedding
    # (no bias) over temporal_patch_size frames, blocks of two RMSNorms, a fused qkv and a gated MLP
    # (biases on every linear), and the patch merger (an RMSNorm, then two linears from
    # spatial_merge_size² patches to out_hidden_size). Defaults are Qwen2_5_VLVisionConfig's.
    Family("qwen2_5_vl_vision", "qwen2_5_vision", "Qwen2_5_VisionTransformerPretrainedModel", {
        **QWEN_VISION,
        "hidden_size": Field(("hidden_size",), 3584, doc="width of the vision blocks"),
        "intermediate_size": Field(("intermediate_size",), 3420, doc="width of each block's gated MLP"),
        "out_hidden_size": Field(("out_hidden_size",), 3584, doc="width the merger projects to (the language model's)"),
    }, {"Qwen2_5_VisionTransformerPretrainedModel": "base"}, checks=(_vision_heads_fit,),
        float_keys=("num_attention_heads", "head_dim")),
    # Qwen2-VL's vision tower (Qwen2VisionTransformerPretrainedModel, which transformers 5 builds but does
    # not export): Qwen2.5-VL's shape with LayerNorms (weight and bias) for its RMSNorms and a plain MLP
    # (fc1, fc2: embed_dim → mlp_ratio × embed_dim → embed_dim, biases) for the gated one. The blocks are
    # embed_dim wide; its "hidden_size" is the width the merger projects to (Qwen2.5-VL's out_hidden_size).
    # Defaults are Qwen2VLVisionConfig's.
    Family("qwen2_vl_vision", "qwen2_vision", "Qwen2VisionTransformerPretrainedModel", {
        **QWEN_VISION,
        "hidden_size": Field(("embed_dim",), 1280, doc="width of the vision blocks"),
        # int(embed_dim * mlp_ratio): the class takes a whole number only; 0 builds (an fc1 of no rows).
        "mlp_ratio": Field(("mlp_ratio",), 4, minimum=0, doc="each block's MLP (fc1, fc2) is mlp_ratio × embed_dim wide"),
        "out_hidden_size": Field(("hidden_size",), 3584, doc="width the merger projects to (the language model's)"),
    }, {"Qwen2VisionTransformerPretrainedModel": "base"}, checks=(_vision_heads_fit, _head_dim_times_heads),
        float_keys=("num_attention_heads", "head_dim")),
    _qwen_vl("qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", "Qwen2_5_VLModel", "qwen2_5_vl_vision",
             "qwen2_5_vl_text"),
    # Kimi K2.5's vision tower (Kimi_K25VisionModel): a Conv2d patch embedding over RGB with a learned position grid,
    # LayerNorm layers with q/k/v_proj, proj, fc1 / fc2 (biases), final_layernorm; axial rotary positions.
    Family("kimi_k25_vision", "kimi_k25_vision", "Kimi_K25VisionModel", {
        "hidden_size": Field(("hidden_size",), 1152, doc="width of the vision layers"),
        "num_layers": Field(("num_hidden_layers",), 27, doc="vision layers"),
        "num_heads": Field(("num_attention_heads",), 16, doc="attention heads per layer (q/k/v are the width whatever "
                                                             "the count)"),
        "intermediate_size": Field(("intermediate_size",), 4304, doc="width of each layer's MLP (fc1, fc2)"),
        "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
        "pos_emb_height": Field(("pos_emb_height",), 64, minimum=0, doc="rows of the learned position grid"),
        "pos_emb_width": Field(("pos_emb_width",), 64, minimum=0, doc="columns of the learned position grid"),
        "merge_kernel_size": Field(("merge_kernel_size",), (2, 2), "any",
                                   doc="patches the projector joins (rows, columns)"),
        **{k: ROPE[k] for k in ("rope_parameters", "rope_scaling")}, "rope_types": fixed(AXIAL_ROPE_TYPES),
    }, {"Kimi_K25VisionModel": "base"}, checks=(_kimi_k25_vision,)),
    # Kimi K2.5 / K2.6: its vision tower (always its own config class), a DeepSeek-V3 text model by default (the Hub's
    # remote-code kimi_k2 read as deepseek_v3, as its config class renames it), the projector, the head tied by the
    # composite's own tie_word_embeddings (true by default).
    Family("kimi_k25", "kimi_k25", "Kimi_K25ForConditionalGeneration", {
        **_tie(True, False),
        "projection_hidden_size": Field(("projection_hidden_size",), 1152,
                                        doc="width of the projector's LayerNorm (the vision tower's)"),
    }, {"Kimi_K25ForConditionalGeneration": "conditional_generation", "Kimi_K25Model": "base"},
        subconfigs={"vision": ("vision_config", "kimi_k25_vision"), "text": ("text_config", "deepseek_v3")},
        fixed_subconfigs=("vision",), subconfig_renames={"kimi_k2": "deepseek_v3"}),
    # LLaVA-OneVision-1.5's RICE-ViT (LlavaOnevision15VisionModel): Qwen2.5-VL's tower keys, LayerNorms and an MLP
    # fc1 / fc2 with biases, a class embedding, pre_layernorm, and Qwen3-VL's merger over one patch's norm.
    Family("llava_onevision1_5_vision", "rice_vision", "LlavaOnevision15VisionModel", {
        **{k: f for k, f in QWEN_VISION.items() if k != "temporal_patch_size"},  # (a Conv2d: no frames)
        "num_layers": replace(QWEN_VISION["num_layers"], default=24),
        "depth": replace(QWEN_VISION["depth"], default=24),
        "hidden_size": Field(("hidden_size",), 1024, doc="width of the vision blocks"),
        "intermediate_size": Field(("intermediate_size",), 4096, doc="width of each block's MLP (fc1, fc2)"),
        "out_hidden_size": Field(("out_hidden_size",), 4096, doc="width the merger projects to (the language model's)"),
    }, {"LlavaOnevision15VisionModel": "base"}, checks=(_rice_heads,)),
    # LLaVA-OneVision-1.5: Qwen2.5-VL's composite over RICE-ViT (always its own config class) and any text model
    # text_config names (Qwen3 by default); its config class refuses a merger not as wide as the text model.
    Family("llava_onevision1_5", "llava_onevision1_5", "LlavaOnevision15ForConditionalGeneration", {
        **_tie(False, False),
    }, {"LlavaOnevision15ForConditionalGeneration": "conditional_generation", "LlavaOnevision15Model": "base"},
        subconfigs={"vision": ("vision_config", "llava_onevision1_5_vision"), "text": ("text_config", "qwen3")},
        fixed_subconfigs=("vision",), checks=(_merger_is_the_text_model_s_width,)),
    # EXAONE 4.5's vision tower (Exaone4_5_VisionModel): Qwen2.5-VL's, its attention's keys and values in
    # num_key_value_heads grouped heads (the fused qkv (num_heads + 2 × kv heads) × hidden_size // num_heads wide).
    Family("exaone4_5_vision", "qwen2_5_vision", "Exaone4_5_VisionModel", {
        **QWEN_VISION,
        "hidden_size": Field(("hidden_size",), 3584, doc="width of the vision blocks"),
        "intermediate_size": Field(("intermediate_size",), 3420, doc="width of each block's gated MLP"),
        "out_hidden_size": Field(("out_hidden_size",), 3584, doc="width the merger projects to (the language model's)"),
        "vision_kv_heads": Field(("num_key_value_heads",), 8, doc="key/value heads of each block's attention"),
    }, {"Exaone4_5_VisionModel": "base"}, checks=(_vision_heads_fit,)),  # (a float head count sizes qkv: refused)
    # EXAONE 4.5 (Exaone4_5_ForConditionalGeneration, Exaone4_5_Model): its vision tower (always its own config
    # class), any text model text_config names (EXAONE 4 by default; the first releases' exaone4_5_text is read as
    # exaone4), lm_head.
    Family("exaone4_5", "qwen2_5_vl", "Exaone4_5_ForConditionalGeneration", {
        **_tie(False, False),
        "text_config_written": Field(("text_config",), None, "any", doc="the text model's config"),
    }, {"Exaone4_5_ForConditionalGeneration": "conditional_generation", "Exaone4_5_Model": "base"},
        subconfigs={"vision": ("vision_config", "exaone4_5_vision"), "text": ("text_config", "exaone4")},
        fixed_subconfigs=("vision",), subconfig_renames={"exaone4_5_text": "exaone4"},
        checks=(_merger_feeds_the_text_model, _exaone4_5_text_type)),
    _qwen_vl("qwen2_vl", "Qwen2VLForConditionalGeneration", "Qwen2VLModel", "qwen2_vl_vision", "qwen2_vl_text"),
    _qwen3_vl_text(),
    _qwen3_vl_moe_text(),
    _qwen3_vl_vision("qwen3_vl_vision", "Qwen3VLVisionModel"),
    _qwen3_vl_vision("qwen3_vl_moe_vision", "Qwen3VLMoeVisionModel"),
    _qwen3_vl("qwen3_vl", "Qwen3VLForConditionalGeneration", "Qwen3VLModel", "qwen3_vl_vision", "qwen3_vl_text"),
    _qwen3_vl("qwen3_vl_moe", "Qwen3VLMoeForConditionalGeneration", "Qwen3VLMoeModel", "qwen3_vl_moe_vision",
              "qwen3_vl_moe_text"),
    _qwen3_5_vision("qwen3_5_vision", "Qwen3_5VisionModel"),
    _qwen3_5_vision("qwen3_5_moe_vision", "Qwen3_5MoeVisionModel"),
    _qwen3_5("qwen3_5", "Qwen3_5", "qwen3_5_vision", "qwen3_5_text", classifiers=True),
    _qwen3_5("qwen3_5_moe", "Qwen3_5Moe", "qwen3_5_moe_vision", "qwen3_5_moe_text", classifiers=False),
    *LLAVA_LIKE, ARIA,
)
