"""Vision-language families: a vision tower, a projector and a language model, each from a nested config.

The nested ``text_config`` / ``vision_config`` list only what differs from the
sub-model's class defaults; ``hf_config.build_spec`` resolves each through its
own family row (Qwen2-VL's and Qwen2.5-VL's flat configs: ``Family.flat_subconfigs``).
Defaults are the transformers (v5) config classes'. Sub-models no other family has
(Qwen2-VL's, Qwen2.5-VL's and Qwen3-VL's text models and vision towers) are rows here too.
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import (FLOOR_HEADS, HEAD_DIM, KV_HEADS, MOE, QK_HEAD, QKV_BIAS_ONLY, QWEN_SLIDING,
                                              ROPE, WRITTEN_HEAD_DIM, d, decoder, fixed, nulls)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec


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
    return decoder(model_type, architecture, WRITTEN_HEAD_DIM, {"partial_rotary_factor": fixed(None)},
                   QKV_BIAS_ONLY, QWEN_SLIDING,
                   {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False)},
                   d(vocab_size=152064, hidden_size=8192, intermediate_size=29568, num_layers=80, num_heads=64,
                     num_kv_heads=8, max_positions=32768, max_window_layers=80),
                   nulls(num_kv_heads=KV_HEADS, tie_embeddings="false", use_sliding_window="false",
                         max_window_layers="none"),
                   heads={architecture: "base"}, checks=(_qwen_vl_window_layers,), float_keys=("head_dim",))


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
    **ROPE, **WRITTEN_HEAD_DIM,
}


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
                    "moe_layers": fixed("sparse_step"),
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


def _qwen3_vl_vision(model_type: str, architecture: str) -> Family:
    """Qwen3VLVisionModel / Qwen3VLMoeVisionModel: a Conv3d patch embedding with a bias, pos_embed,
    blocks of two LayerNorms, a fused qkv and an MLP of linear_fc1 / linear_fc2 (biases on every
    linear), the merger and one DeepStack merger per deepstack_visual_indexes entry."""
    return Family(model_type, "qwen3_vision", architecture, QWEN3_VISION, {architecture: "base"},
                  checks=(_vision_heads_fit,), float_keys=("num_attention_heads", "head_dim"))


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
    **ROPE,
}


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
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "projector_bias": Field(("multimodal_projector_bias",), False, "bool",
                                doc="biases on the projector's two linears (linear_1, linear_2)"),
        # An int picks one vision layer; a list widens linear_1's input (the tower keeps all its layers).
        "vision_feature_layer": Field(("vision_feature_layer",), -1, "any",
                                      doc="vision layer(s) fed to the projector (a list widens its input)"),
        "spatial_merge_size": Field(("spatial_merge_size",), 2, minimum=0,
                                    doc="patches per side the patch merger joins (its linear is the tower's width × merge² wide)"),
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
    Family("gemma3", "gemma3", "Gemma3ForConditionalGeneration", {
        # Gemma3Config keeps a null, which the model reads as false: the head is then its own.
        "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", null="false",
                                doc="output head shares the language model's embedding"),
        **LABEL_FIELDS,
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
    _qwen_vl("qwen2_vl", "Qwen2VLForConditionalGeneration", "Qwen2VLModel", "qwen2_vl_vision", "qwen2_vl_text"),
    _qwen3_vl_text(),
    _qwen3_vl_moe_text(),
    _qwen3_vl_vision("qwen3_vl_vision", "Qwen3VLVisionModel"),
    _qwen3_vl_vision("qwen3_vl_moe_vision", "Qwen3VLMoeVisionModel"),
    _qwen3_vl("qwen3_vl", "Qwen3VLForConditionalGeneration", "Qwen3VLModel", "qwen3_vl_vision", "qwen3_vl_text"),
    _qwen3_vl("qwen3_vl_moe", "Qwen3VLMoeForConditionalGeneration", "Qwen3VLMoeModel", "qwen3_vl_moe_vision",
              "qwen3_vl_moe_text"),
)
