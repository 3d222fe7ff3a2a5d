"""Vision-language families: a vision tower, a projector and a language model, each from a nested config.

The nested ``text_config`` / ``vision_config`` list only what differs from the
sub-model's class defaults; ``hf_config.build_spec`` resolves each through its
own family row (Qwen2.5-VL's flat configs: ``Family.flat_subconfigs``). Defaults
are the transformers (v5) config classes'. Sub-models no other family has
(Qwen2.5-VL's text model and vision tower) are rows here too.
"""

from __future__ import annotations

from lsp_count.core.families.common import LABEL_FIELDS
from lsp_count.core.families.decoders import HEAD_DIM, KV_HEADS, QKV_BIAS_ONLY, QWEN_SLIDING, d, decoder, fixed, nulls
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec


def _qwen2_5_vl_window_layers(spec: ModelSpec) -> list[Problem]:
    """With no layer_types and the window on, Qwen2_5_VLTextConfig compares each layer index with
    max_window_layers: a null there fails (with the window off it builds)."""
    v = spec.values
    window_on = bool(v.get("use_sliding_window")) and v.get("sliding_window") is not None
    if "max_window_layers" not in spec.origins or v.get("max_window_layers") is not None \
            or "layer_types" in spec.origins or not window_on:
        return []
    return [Problem("error", "LC102", '"max_window_layers": null is not a whole number: with use_sliding_window and '
                                      "no layer_types, Qwen2_5_VLTextConfig derives the layer types from it (leaving "
                                      "the key out takes the default, 80)", spec.key_span("max_window_layers") or spec.span)]


def _vision_heads_fit(spec: ModelSpec) -> list[Problem]:
    """Qwen2_5_VLVisionAttention scales by (hidden_size // num_heads) ** -0.5: more heads than the width
    make that 0 ** -0.5, which fails. (Heads that do not divide the width build: qkv is 3 × hidden_size.)"""
    hidden, heads = spec.values.get("hidden_size"), spec.values.get("num_heads")
    if type(hidden) is not int or type(heads) is not int or heads <= hidden:
        return []
    return [Problem("error", "LC103", f"num_heads ({heads}) is more than hidden_size ({hidden}): each head would be 0 wide, "
                                      "which Qwen2_5_VLVisionAttention cannot build (it scales by head_dim ** -0.5)",
                    spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span)]


def _merger_feeds_the_text_model(spec: ModelSpec) -> list[Problem]:
    """Qwen2.5-VL puts the merger's outputs where the text model's token embeddings are: a warning
    where out_hidden_size is not the text model's hidden_size (transformers builds it, counted as built)."""
    vision, text = spec.subspecs.get("vision"), spec.subspecs.get("text")
    if vision is None or text is None:
        return []
    out, hidden = vision.values.get("out_hidden_size"), text.values.get("hidden_size")
    if type(out) is not int or type(hidden) is not int or out == hidden:
        return []
    return [Problem("warning", "LC103",
                    f"vision_config's out_hidden_size ({out:,}) is not the text model's hidden_size ({hidden:,}): "
                    "transformers builds the model, but its forward pass fails (the merged image features take "
                    "the place of token embeddings); counted as built",
                    vision.key_span("out_hidden_size") or text.key_span("hidden_size") or spec.span)]


FAMILIES: tuple[Family, ...] = (
    # Qwen2.5-VL's language model (Qwen2_5_VLTextModel, the bare class: the composite below holds the
    # head), a decoder row: Qwen2's layout with q/k/v biases, the head width always hidden_size /
    # num_attention_heads (no head_dim key; its attention refuses heads that do not divide the width),
    # Qwen2_5_VLTextConfig's defaults (the 72B's sizes). That class has no tie_word_embeddings field (a
    # null there is false), reads a null use_sliding_window as false, and fails on a null
    # max_window_layers only where it derives the layer types of a window that is on.
    decoder("qwen2_5_vl_text", "Qwen2_5_VLTextModel", QKV_BIAS_ONLY, QWEN_SLIDING,
            {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False)},
            d(vocab_size=152064, hidden_size=8192, intermediate_size=29568, num_layers=80, num_heads=64, num_kv_heads=8,
              max_positions=32768, max_window_layers=80),
            nulls(num_kv_heads=KV_HEADS, tie_embeddings="false", use_sliding_window="false", max_window_layers="none"),
            heads={"Qwen2_5_VLTextModel": "base"}, checks=(_qwen2_5_vl_window_layers,)),
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
        # attribute_map: num_hidden_layers / num_attention_heads are set onto depth / num_heads after the
        # fields, so they win when both are written; the field itself is still checked (a null depth
        # fails beside num_hidden_layers), which "depth" / "heads_field" do. A null under the field's
        # name is then that one's error, not num_layers' / num_heads'.
        "num_layers": Field(("num_hidden_layers", "depth"), 32, doc="vision blocks (depth)", null=("depth",)),
        "depth": Field(("depth",), 32, doc="vision blocks (num_hidden_layers, when also written, wins)"),
        "hidden_size": Field(("hidden_size",), 3584, doc="width of the vision blocks"),
        "intermediate_size": Field(("intermediate_size",), 3420, doc="width of each block's gated MLP"),
        "num_heads": Field(("num_attention_heads", "num_heads"), 16, null=("num_heads",),
                           doc="attention heads per block (the fused qkv is 3 × hidden_size wide whatever the count)"),
        "heads_field": Field(("num_heads",), 16, doc="attention heads per block (num_attention_heads, when also written, wins)"),
        # The Hub configs' "in_chans" is no key of Qwen2_5_VLVisionConfig: transformers 5 does not read it.
        "in_channels": Field(("in_channels",), 3, doc="image channels into the patch embedding"),
        "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
        "temporal_patch_size": Field(("temporal_patch_size",), 2, doc="frames per patch"),
        "spatial_merge_size": Field(("spatial_merge_size",), 2,
                                    doc="patches per side the merger joins (its linears are hidden_size × merge² wide)"),
        "out_hidden_size": Field(("out_hidden_size",), 3584, doc="width the merger projects to (the language model's)"),
    }, {"Qwen2_5_VisionTransformerPretrainedModel": "base"}, checks=(_vision_heads_fit,)),
    # Qwen2.5-VL: the vision tower, the text model (qwen2_5_vl_text, Qwen2-shaped) and lm_head. Hub
    # configs are flat (the text model's keys at the top level, Qwen2_5_VLConfig pops them into its
    # text config when there is no text_config); newer saves nest a text_config, which then wins. Both
    # sub-configs are always its own classes, whatever model_type they name.
    Family("qwen2_5_vl", "qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (also when text_config ties)"),
    }, {"Qwen2_5_VLForConditionalGeneration": "conditional_generation", "Qwen2_5_VLModel": "base"},
        subconfigs={"vision": ("vision_config", "qwen2_5_vl_vision"), "text": ("text_config", "qwen2_5_vl_text")},
        fixed_subconfigs=("vision", "text"), flat_subconfigs=("text",), checks=(_merger_feeds_the_text_model,)),
)
