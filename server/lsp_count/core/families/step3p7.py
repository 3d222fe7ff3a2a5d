"""Step 3.7 (``step3p7``: Step3p7ForConditionalGeneration, Step3p7Model): its own vision tower, a projector and an MoE
text model, from nested configs only.

transformers 5.25's ``models/step3p7/`` is the ground truth. Step3p7Config builds both sub-configs as its own classes
(it drops the model_type a nested mapping names: the Hub's files are remote-code ones) and has no
tie_word_embeddings field: the head is tied only where the composite's file writes a true one (text_config's does not
tie it). The sub-models are rows of their own too: ``step3p5`` (Step3p7TextConfig: Step3p7TextModel) and
``step3p5_vision`` (Step3p7VisionConfig: Step3p7VisionModel), counted by ``layouts/step3p7.py``.
"""

from __future__ import annotations

import json

from lsp_count.core.families.decoders import (BASE, G_PROJ_OUTPUT_GATE, MOE, QK_HEAD, ROPE, d, decoder, fixed,
                                              merge_fields, nulls)
from lsp_count.core.families.multimodal import AXIAL_ROPE_TYPES
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field

FULL, SLIDING = "full_attention", "sliding_attention"


def _trimmed(written: object, v) -> tuple | None:
    """A per-layer list as Step3p7TextConfig keeps it: the Hub's files pad it with num_nextn_predict_layers entries for
    the multi-token-prediction layers, which the class cuts off (a list of any other length is kept as written)."""
    if not isinstance(written, tuple):
        return None
    layers, extra = v["num_layers"], v["num_nextn_predict_layers"]
    return written[:layers] if extra and len(written) == layers + extra else written


def _layer_types(v) -> tuple[str, ...]:
    written = _trimmed(v["layer_types_written"], v)
    return written if written is not None else (FULL,) * v["num_layers"]


def _enum_layers(enum: object) -> set[int] | None:
    """The layer numbers a legacy moe_layers_enum names, as Step3p7TextConfig reads them (int() of each entry of a
    list, or of a comma-separated string); None where that fails (it fails in the config class too)."""
    try:
        items = enum.split(",") if isinstance(enum, str) else enum
        return {int(i) for i in items if str(i).strip()}  # type: ignore[union-attr]
    except (TypeError, ValueError, OverflowError):
        return None


def _unreadable_enum(spec) -> list[Problem]:
    v = spec.values
    if v.get("mlp_layer_types_written") is not None or v.get("moe_layers_enum") is None \
            or _enum_layers(v["moe_layers_enum"]) is not None:
        return []
    return [Problem("error", "LC102", f'"moe_layers_enum": {json.dumps(v["moe_layers_enum"])} is not a list of layer '
                                      "numbers (nor a comma-separated string of them): Step3p7TextConfig cannot read it",
                    spec.key_span("moe_layers_enum") or spec.span)]


def _mlp_ratio(spec) -> list[Problem]:
    """Step3p7VisionConfig sets intermediate_size to int(width × mlp_ratio): an infinite or NaN ratio fails there, a
    negative width fails to build the MLP."""
    v = spec.values
    ratio, width = v.get("mlp_ratio"), v.get("hidden_size")
    if not isinstance(ratio, (int, float)) or type(width) is not int:
        return []
    product = width * ratio
    if product == product and abs(product) != float("inf") and int(product) >= 0:
        return []
    return [Problem("error", "LC102", f'"mlp_ratio": {json.dumps(ratio)} makes the MLP int({width} × {json.dumps(ratio)}) '
                                      "wide, which Step3p7VisionConfig cannot compute or its model cannot build",
                    spec.key_span("mlp_ratio") or spec.span)]


def _mlp_layer_types(v) -> tuple[str, ...]:
    """mlp_layer_types as written (trimmed), else from the legacy moe_layers_enum (the MoE layers' numbers: a
    comma-separated string or a list), else sparse from the fourth layer on."""
    written = _trimmed(v["mlp_layer_types_written"], v)
    if written is not None:
        return written
    enum = v["moe_layers_enum"]
    sparse = set(range(3, v["num_layers"])) if enum is None else _enum_layers(enum) or set()
    return tuple("sparse" if i in sparse else "dense" for i in range(v["num_layers"]))


def _sliding_heads(v) -> int:
    """num_sliding_attention_heads, else the legacy attention_other_setting's num_attention_heads, else
    num_attention_heads."""
    if v["sliding_heads_written"] is not None:
        return v["sliding_heads_written"]
    other = v["attention_other_setting"]
    if isinstance(other, dict) and other:
        return other.get("num_attention_heads", v["num_heads"])
    return v["num_heads"]


def _per_layer_lengths(spec) -> list[Problem]:
    """validate_layer_type refuses a layer_types or mlp_layer_types list (once cut of the multi-token-prediction
    layers' entries) of another length than num_hidden_layers."""
    layers = spec.values.get("num_layers")
    for name, written in (("layer_types", "layer_types_written"), ("mlp_layer_types", "mlp_layer_types_written")):
        kept = spec.values.get(name)
        if written not in spec.origins or not isinstance(kept, tuple) or type(layers) is not int or len(kept) == layers:
            continue
        return [Problem("error", "LC103", f'"{name}": {len(kept)} entries for {layers} layers (with '
                                          "num_nextn_predict_layers more, the class cuts those off): Step3p7TextConfig "
                                          "refuses a list of another length", spec.key_span(written) or spec.span)]
    return []


def _sparse_layer_aliases(spec) -> list[Problem]:
    """moe_num_experts and share_expert_dims are set past the strict field checks: a whole-number float there builds
    where every layer is dense, and fails to build the experts or the shared expert of a sparse layer."""
    if "sparse" not in (spec.values.get("mlp_layer_types") or ()):
        return []
    for name, key in (("experts_alias", "moe_num_experts"), ("shared_alias", "share_expert_dims")):
        raw = spec.values.get(name)
        if name in spec.origins and type(raw) is not int:
            what = "null" if raw is None else f"a float ({json.dumps(raw)})" if isinstance(raw, float) else json.dumps(raw)
            return [Problem("error", "LC102", f'"{key}": {what} is not a whole number: {spec.architecture} cannot '
                                              "build its sparse layers with it", spec.key_span(name) or spec.span)]
    return []


def _step3p5_text() -> Family:
    """Step3p7TextModel (the bare class; the composite holds the head): grouped-query attention with RMS norms over
    each head's q and k and a sigmoid gate over the heads' output (g_proj: one gate per head where gating is true or
    "per-head", else one per channel), the sliding-window layers (layer_types) num_sliding_attention_heads query
    heads; dense MLPs or, in the layers mlp_layer_types calls "sparse", a router parameter, fused routed experts
    and one shared expert share_expert_dim wide (the router's e_score_correction_bias is a buffer)."""
    return decoder(
        "step3p5", "Step3p7TextModel", MOE, QK_HEAD,
        {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc),
         "num_kv_heads": Field(("num_key_value_heads", "num_attention_groups"), 8, doc=BASE["num_kv_heads"].doc),
         "mlp_bias": Field(("mlp_bias",), False, "bool", doc="biases on the dense MLPs and the shared expert"),
         **G_PROJ_OUTPUT_GATE,
         "num_experts": Field(("n_routed_experts", "moe_num_experts"), 288, null=("moe_num_experts",),
                             doc=MOE["num_experts"].doc),
         # (the aliases as written: a float or a null there builds only where no layer is sparse)
         "experts_alias": Field(("moe_num_experts",), None, "any", doc="routed experts (n_routed_experts' alias)"),
         "shared_alias": Field(("share_expert_dims",), None, "any", doc="the shared expert's width (its alias)"),
         "experts_per_token": Field(("num_experts_per_tok", "moe_top_k"), 8, null=("moe_top_k",),
                                    doc=MOE["experts_per_token"].doc),
         "moe_intermediate_size": Field(("moe_intermediate_size",), 1280, doc=MOE["moe_intermediate_size"].doc),
         "shared_intermediate_size": Field(("share_expert_dim", "share_expert_dims"), 1280, minimum=0,
                                           null=("share_expert_dims",),
                                           doc="width of the always-on shared expert"),
         "shared_expert_always": fixed(True),
         "num_nextn_predict_layers": Field(("num_nextn_predict_layers",), 0, minimum=0,
                                           doc="multi-token-prediction layers (not built; per-layer lists padded "
                                               "with theirs are cut)"),
         "layer_types_written": Field(("layer_types",), None, "strs"),
         "layer_types": fixed(Derived(_layer_types, "full attention in every layer")),
         "moe_layers": fixed("mlp_layer_types"),
         "moe_layers_enum": Field(("moe_layers_enum",), None, "any", doc="the MoE layers' numbers (legacy)"),
         "mlp_layer_types_written": Field(("mlp_layer_types",), None, "strs"),
         "mlp_layer_types": fixed(Derived(_mlp_layer_types, "dense for the first three layers, then sparse")),
         "sliding_heads_written": Field(("num_sliding_attention_heads",), None, "int?",
                                        doc="query heads of the sliding-window layers"),
         "attention_other_setting": Field(("attention_other_setting",), None, "any",
                                          doc="the sliding-window layers' settings (legacy)"),
         "sliding_num_heads": fixed(Derived(_sliding_heads, "num_attention_heads"))},
        d(vocab_size=128815, hidden_size=4096, intermediate_size=11264, num_layers=45, num_heads=64,
          max_positions=128000, pad_token_id=1),
        nulls(pad_token_id="reject"),  # (a strict int field: a null is refused)
        heads={"Step3p7TextModel": "base"}, float_keys=("moe_top_k", "moe_num_experts", "share_expert_dims"),
        checks=(_per_layer_lengths, _sparse_layer_aliases, _unreadable_enum), rope=False,
        notes=("Step 3.7 checkpoints also hold multi-token-prediction layers (num_nextn_predict_layers) that "
               "transformers does not build; they are not counted",))


# Step3p7VisionConfig: SigLIP's keys with Step 3.7's defaults; width / layers / heads / ls_init_value are legacy
# names it pops before its fields are checked (they win), and intermediate_size is always int(width × mlp_ratio).
STEP3P5_VISION: dict[str, Field] = {
    "hidden_size": Field(("hidden_size", "width"), 1536, doc="width of the vision layers"),
    "num_layers": Field(("num_hidden_layers", "layers"), 47, doc="vision layers"),
    "num_heads": Field(("num_attention_heads", "heads"), 16, doc="attention heads per layer (q/k/v are the width "
                                                                 "whatever the count)"),
    "mlp_ratio": Field(("mlp_ratio",), 8960 / 1536, "float", doc="each MLP's width over the layer's"),
    "num_channels": Field(("num_channels",), 3, doc="image channels into the patch embedding"),
    "image_size": Field(("image_size",), 728, minimum=0,
                        doc="input image side in pixels (the position table has (image_size // patch_size)² rows)"),
    "patch_size": Field(("patch_size",), 14, doc="pixels per side of a patch"),
    **{k: ROPE[k] for k in ("rope_parameters", "rope_scaling")}, "rope_types": fixed(AXIAL_ROPE_TYPES),
}


FAMILIES: tuple[Family, ...] = (
    _step3p5_text(),
    Family("step3p5_vision", "step3p7_vision", "Step3p7VisionModel", merge_fields(STEP3P5_VISION),
           {"Step3p7VisionModel": "base"}, checks=(_mlp_ratio,)),
    Family("step3p7", "step3p7", "Step3p7ForConditionalGeneration", {
        "tie_embeddings": Field(("tie_word_embeddings",), False, "bool", null="false",
                                doc="output head shares the language model's embedding (text_config's does not tie it)"),
        "projector_bias": Field(("projector_bias",), False, "bool", doc="a bias on the projector"),
    }, {"Step3p7ForConditionalGeneration": "conditional_generation", "Step3p7Model": "base"},
        subconfigs={"vision": ("vision_config", "step3p5_vision"), "text": ("text_config", "step3p5")},
        fixed_subconfigs=("vision", "text")),
)
