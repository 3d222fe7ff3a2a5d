"""GLM-4.1V / GLM-4.5V (``glm4v``): GLM-4V's own vision tower, a GLM-4 text model, lm_head.

transformers 5.25's ``models/glm4v/`` is the ground truth. The composite config (Glm4vConfig) reads only its
nested ``vision_config`` / ``text_config`` (no flat keys; both always its own classes, whatever model_type they
name) and ties lm_head by its own tie_word_embeddings, or (its BC forward of pre-v5 saves) by text_config's.
The towers are rows of their own too (``glm4v_vision``: Glm4vVisionModel; ``glm4v_text``: Glm4vTextModel).
"""

from __future__ import annotations

import json
from dataclasses import replace

from lsp_count.core.families.decoders import (FLOOR_HEADS, HEAD_DIM, KV_HEADS, MOE, QKV_BIAS_ONLY, WRITTEN_HEAD_DIM, d,
                                              decoder, fixed, nulls, rotary_share, shared_experts_width)
from lsp_count.core.families.multimodal import QWEN_VISION, _axial_rope, _merger_feeds_the_text_model, _vision_heads_fit
from lsp_count.core.source import Problem
from lsp_count.core.spec import Family, Field, ModelSpec

# Glm4vMoePreTrainedModel's _keep_in_fp32_modules_strict (every class of GLM-4.5V's: the router's weight; its
# e_score_correction_bias is a buffer).
GLM4V_MOE_FP32 = ("e_score_correction_bias", "gate.weight")


def _glm4v_text(model_type: str, architecture: str) -> Family:
    """Glm4vTextModel (the bare class; the composite holds the head): GLM-4's layer (q/k/v biases always, no
    o_proj bias, a fused gate_up_proj, four RMSNorms: input, post_self_attn, post_attention, post_mlp), heads
    always hidden_size / num_attention_heads wide (floored; a head_dim key is only kept, for the RoPE check),
    no sliding window, Glm4vTextConfig's defaults. Its config class moves a top-level partial_rotary_factor
    into rope_parameters (the rotary embedding's share, no parameters)."""
    return decoder(model_type, architecture, WRITTEN_HEAD_DIM, FLOOR_HEADS, QKV_BIAS_ONLY,
                   {"head_dim": fixed(HEAD_DIM), "mlp_bias": fixed(False),
                    "mlp_names": fixed(("gate_up_proj", "down_proj")),
                    "layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                                          "post_mlp_layernorm")),
                    "sliding_window": fixed(None), "layer_types": fixed(None)},
                   d(vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_layers=40, num_heads=32,
                     num_kv_heads=2, max_positions=32768),
                   nulls(num_kv_heads=KV_HEADS, tie_embeddings="false"),
                   heads={architecture: "base"}, float_keys=("head_dim",))


def _experts_alias(spec: ModelSpec) -> list[Problem]:
    """Glm4vMoeTextConfig sets its attribute_map alias num_local_experts onto n_routed_experts past its strict checks:
    a null there builds where every layer is dense (first_k_dense_replace), and fails to build the experts of any
    MoE layer. (A whole-number float there: hf_config._kept_float_experts, as for every decoder.)"""
    v = spec.values
    raw = v.get("experts_alias")
    layers, dense = v.get("num_layers"), v.get("first_k_dense_replace")
    if "experts_alias" not in spec.origins or type(raw) in (int, float) or type(layers) is not int \
            or type(dense) is not int or dense >= layers:
        return []
    what = "null" if raw is None else json.dumps(raw)
    return [Problem("error", "LC102", f'"num_local_experts": {what} is not a whole number of experts: '
                                      f"{spec.architecture} cannot build the experts of its MoE layers with it",
                    spec.key_span("experts_alias") or spec.span)]


def _glm4v_moe_text(model_type: str, architecture: str) -> Family:
    """Glm4vMoeTextModel (GLM-4.5V's; the composite holds the head): GLM-4.5's MoE layers (q/k/v biases by
    attention_bias, true by default, none on o_proj; two RMSNorms; dense MLPs in the first first_k_dense_replace
    layers, then fused routed experts, a float32 router weight and n_shared_experts shared experts side by side),
    no q/k norms, heads hidden_size / num_attention_heads wide (floored) unless the file gives a head_dim (its
    attention reads the one it is given), no sliding window, Glm4vMoeTextConfig's defaults (a rotary share of
    0.5 unless given). num_local_experts is n_routed_experts (attribute_map)."""
    return decoder(model_type, architecture, WRITTEN_HEAD_DIM, FLOOR_HEADS,
                   d(vocab_size=151424, intermediate_size=10944, num_layers=46, num_heads=96, num_kv_heads=8,
                     max_positions=65536, experts_per_token=8, moe_intermediate_size=1408),
                   MOE, {"num_experts": Field(("num_local_experts", "n_routed_experts"), 128, null=("num_local_experts",),
                                              doc=MOE["num_experts"].doc),
                         # (the alias as written: a null there builds only where no layer is MoE)
                         "experts_alias": Field(("num_local_experts",), None, "any",
                                                doc="routed experts per MoE layer (n_routed_experts' attribute_map alias)"),
                         "q_bias": Field(("attention_bias",), True, "bool", doc="biases on the q/k/v projections"),
                         "k_bias": Field(("attention_bias",), True, "bool"),
                         "v_bias": Field(("attention_bias",), True, "bool"),
                         "o_bias": fixed(False), "mlp_bias": fixed(False),
                         "n_shared_experts": Field(("n_shared_experts",), 1, minimum=0),
                         "shared_intermediate_size": shared_experts_width("n_shared_experts"),
                         "moe_layers": fixed("first_k_dense"),
                         "first_k_dense_replace": Field(("first_k_dense_replace",), 1, minimum=0),
                         "sliding_window": fixed(None), "layer_types": fixed(None)},
                   rotary_share(0.5),
                   heads={architecture: "base"}, checks=(_experts_alias,),
                   notes=("GLM-4.5V checkpoints also hold a multi-token-prediction layer that transformers does not "
                          "build; it is not counted",),
                   fp32_modules_strict=GLM4V_MOE_FP32)


# Glm4vVisionConfig's fields: Qwen2.5-VL's tower keys (depth / num_heads with their attribute_map aliases,
# in_channels, patch_size, temporal_patch_size, spatial_merge_size, axial RoPE) with GLM-4V's defaults, a
# learned position table over the (image_size // patch_size)² patches, and attention_bias on the fused qkv.
GLM4V_VISION: dict[str, Field] = {
    **QWEN_VISION,
    "num_layers": replace(QWEN_VISION["num_layers"], default=24),
    "depth": replace(QWEN_VISION["depth"], default=24),
    "num_heads": replace(QWEN_VISION["num_heads"], default=12),
    "heads_field": replace(QWEN_VISION["heads_field"], default=12),
    "hidden_size": Field(("hidden_size",), 1536, doc="width of the vision blocks"),
    "out_hidden_size": Field(("out_hidden_size",), 4096,
                             doc="width of each block's gated MLP, of the downsample and of the merger (the language "
                                 "model's)"),
    "intermediate_size": Field(("intermediate_size",), 13696, doc="width of the merger's gated MLP"),
    # A whole number: the position table is (image_size // patch_size)² rows (a list fails to build).
    "image_size": Field(("image_size",), 336, minimum=0,
                        doc="input image side in pixels (the position table has (image_size // patch_size)² rows)"),
    "attention_bias": Field(("attention_bias",), False, "bool", doc="a bias on each block's fused qkv"),
    "tower_variant": fixed("glm4v"),
}
# GlmOcrVisionConfig: Glm4vVisionConfig's fields with GLM-OCR's defaults; its tower (layouts/glm4v) keeps no position
# table, biases its blocks' linears by attention_bias and norms each head's q and k.
GLM_OCR_VISION: dict[str, Field] = {
    **GLM4V_VISION,
    "num_heads": replace(QWEN_VISION["num_heads"], default=16),
    "heads_field": replace(QWEN_VISION["heads_field"], default=16),
    "hidden_size": Field(("hidden_size",), 1024, doc="width of the vision blocks"),
    "out_hidden_size": Field(("out_hidden_size",), 1536,
                             doc="width of the downsample and of the merger (the language model's); its gated MLP is "
                                 "out_hidden_size × in_channels wide"),
    "intermediate_size": Field(("intermediate_size",), 4096, doc="width of each block's gated MLP"),
    "attention_bias": Field(("attention_bias",), True, "bool", doc="biases on each block's qkv, proj and MLP"),
    "tower_variant": fixed("glm_ocr"),
}


def _glm4v_vision(model_type: str, architecture: str, fp32_modules_strict: tuple[str, ...] = (),
                  fields: dict[str, Field] = GLM4V_VISION,
                  float_keys: tuple[str, ...] = ("num_attention_heads", "head_dim")) -> Family:
    """Glm4vVisionModel: a position table, a Conv3d patch embedding (with a bias), blocks of two RMSNorms, a
    fused qkv (bias by attention_bias), proj and a gated MLP out_hidden_size wide (no biases), then an RMSNorm,
    a Conv2d downsample over spatial_merge_size² patches to out_hidden_size, and the merger (GLM-OCR's:
    GLM_OCR_VISION)."""
    return Family(model_type, "glm4v_vision", architecture, fields, {architecture: "base"},
                  checks=(_vision_heads_fit, _axial_rope), float_keys=float_keys,
                  fp32_modules_strict=fp32_modules_strict)


def _glm4v(model_type: str, architecture: str, bare: str, vision_type: str, text_type: str,
           fp32_modules_strict: tuple[str, ...] = ()) -> Family:
    """GLM-4.1V: the vision tower, the text model and lm_head, from nested configs only (both sub-configs always
    the composite's own classes). The head is tied by the composite's tie_word_embeddings, or text_config's
    (Glm4vConfig forwards a true one)."""
    return Family(model_type, "glm4v", architecture, {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (also when text_config ties)"),
    }, {architecture: "conditional_generation", bare: "base"},
        subconfigs={"vision": ("vision_config", vision_type), "text": ("text_config", text_type)},
        fixed_subconfigs=("vision", "text"), checks=(_merger_feeds_the_text_model,),
        fp32_modules_strict=fp32_modules_strict)


def _glm46v(model_type: str) -> Family:
    """GLM-4.6V's classes (Glm46VForConditionalGeneration, Glm46VModel): GLM-4.1V's shape over sub-configs resolved by
    the model_type they name, the head tied by the composite's own tie_word_embeddings alone."""
    return Family(model_type, "glm4v", "Glm46VForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "text_config_ties": fixed(False),
    }, {"Glm46VForConditionalGeneration": "conditional_generation", "Glm46VModel": "base"},
        subconfigs={"vision": ("vision_config", "glm4v_vision"), "text": ("text_config", "glm4v_text")},
        checks=(_merger_feeds_the_text_model,))


FAMILIES: tuple[Family, ...] = (
    _glm4v_text("glm4v_text", "Glm4vTextModel"),
    _glm4v_vision("glm4v_vision", "Glm4vVisionModel"),
    _glm4v("glm4v", "Glm4vForConditionalGeneration", "Glm4vModel", "glm4v_vision", "glm4v_text"),
    # GLM-4.5V: GLM-4.1V's tower (Glm4vMoeVisionModel, the same but for its name) and an MoE text model.
    _glm4v_moe_text("glm4v_moe_text", "Glm4vMoeTextModel"),
    _glm4v_vision("glm4v_moe_vision", "Glm4vMoeVisionModel", GLM4V_MOE_FP32),
    _glm4v("glm4v_moe", "Glm4vMoeForConditionalGeneration", "Glm4vMoeModel", "glm4v_moe_vision", "glm4v_moe_text",
           GLM4V_MOE_FP32),
    # GLM-4.6V: GLM-4.1V's classes over sub-configs Glm46VConfig resolves by the model_type they name (AutoConfig:
    # glm4v_text / glm4v_vision by default; GLM-4.6V's own files name glm4v_moe_text), each built by AutoModel.
    # Only the composite's tie_word_embeddings ties the head (Glm46VConfig does not forward text_config's).
    # GLM-OCR: GLM-4.1V's composite over its own tower (GLM_OCR_VISION) and text model (GLM-4V's layer with no q/k/v
    # biases, heads head_dim wide where the file gives one: its attention reads it).
    decoder("glm_ocr_text", "GlmOcrTextModel", WRITTEN_HEAD_DIM, FLOOR_HEADS,
            {"head_dim": Field(("head_dim",), HEAD_DIM, doc="width of each attention head"),
             "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
             "mlp_bias": fixed(False), "mlp_names": fixed(("gate_up_proj", "down_proj")),
             "layer_norms": fixed(("input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                                   "post_mlp_layernorm")),
             "sliding_window": fixed(None), "layer_types": fixed(None)},
            d(vocab_size=59392, hidden_size=1024, intermediate_size=4096, num_layers=16, num_heads=16, num_kv_heads=8,
              max_positions=131072),
            nulls(tie_embeddings="false"),  # (num_key_value_heads a strict int; head_dim sizes the projections)
            heads={"GlmOcrTextModel": "base"}),
    # (its q/k norms are hidden_size // num_heads wide: a float head count fails to build them)
    _glm4v_vision("glm_ocr_vision", "GlmOcrVisionModel", fields=GLM_OCR_VISION, float_keys=()),
    _glm4v("glm_ocr", "GlmOcrForConditionalGeneration", "GlmOcrModel", "glm_ocr_vision", "glm_ocr_text"),
    _glm46v("glm46v"),
    # GLM-4.1V-Thinking's own model_type (GlmgaConfig, the same fields as Glm46VConfig): GLM-4.6V's classes build it.
    _glm46v("glmga"),
)
