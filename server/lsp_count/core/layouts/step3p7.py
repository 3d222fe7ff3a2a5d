"""Step 3.7: its vision tower (Step3p7VisionModel), the projector, the MoE text model and lm_head.

transformers 5.25's ``models/step3p7/modeling_step3p7.py``. The text model is a decoder row (``families/step3p7.py``),
built as its bare class by ``layouts/multimodal.language_model``.
"""

from __future__ import annotations

from lsp_count.core.layouts.encoder import path_linear, path_norm
from lsp_count.core.layouts.multimodal import _lm_head, _subs, language_model
from lsp_count.core.params import ParamNode, Tensor, embedding, node
from lsp_count.core.spec import ModelSpec


def step3p7_vision(spec: ModelSpec, name: str = "vision_model") -> ParamNode:
    """Step3p7VisionModel as a node named ``name``: embeddings (a Conv2d patch embedding without a bias, a position
    table of (image_size // patch_size)² rows), pre_layernorm, ``num_layers`` layers (q/k/v_proj and out_proj the
    width square with biases whatever the heads, an MLP fc1 / fc2 int(width × mlp_ratio) wide with biases,
    layernorm_before / layernorm_after, the layer-scale vectors lambda_1 / lambda_2), and two stride-2 3×3 Conv2d
    downsamplers with biases (to twice, then four times the width). The rotary embedding holds buffers only."""
    h, channels, patch = spec.int("hidden_size"), spec.int("num_channels"), spec.int("patch_size")
    ffn = int(h * float(spec.values["mlp_ratio"]))  # type: ignore[arg-type]
    positions = (spec.int("image_size") // patch) ** 2
    embeddings = ParamNode("embeddings", (Tensor("embeddings.patch_embedding.weight", (h, channels, patch, patch),
                                                 "conv", "patch_embedding"),)
                           + embedding("embeddings.position_embedding", positions, h),
                           note=f"{positions:,} patch positions", source=spec.key_span("image_size")
                           or spec.key_span("patch_size"), key="image_size")
    pre = ParamNode("pre_layernorm", path_norm("pre_layernorm", h, True))
    attention = sum((path_linear(f"self_attn.{p}_proj", h, h, True) for p in ("q", "k", "v", "out")), ())
    layers = node(
        "layers",
        ParamNode("attention", attention, source=spec.key_span("hidden_size"), key="hidden_size"),
        ParamNode("mlp", path_linear("mlp.fc1", h, ffn, True) + path_linear("mlp.fc2", ffn, h, True),
                  note=f"int({h:,} × mlp_ratio)", source=spec.key_span("mlp_ratio"), key="mlp_ratio"),
        ParamNode("norms", path_norm("layernorm_before", h, True) + path_norm("layernorm_after", h, True)
                  + (Tensor("lambda_1", (h,), "other", "lambda_1"), Tensor("lambda_2", (h,), "other", "lambda_2"))),
        repeat=spec.int("num_layers"), source=spec.key_span("num_layers"), key="num_layers",
    )
    downsamplers = ParamNode("downsamplers", (
        Tensor("downsampler1.weight", (2 * h, h, 3, 3), "conv", "downsampler1"),
        Tensor("downsampler1.bias", (2 * h,), "bias", "downsampler1"),
        Tensor("downsampler2.weight", (4 * h, 2 * h, 3, 3), "conv", "downsampler2"),
        Tensor("downsampler2.bias", (4 * h,), "bias", "downsampler2")),
        note=f"two stride-2 3×3 convolutions → {4 * h:,}", source=spec.key_span("hidden_size"), key="hidden_size")
    return node(name, embeddings, pre, layers, downsamplers, source=spec.span, note=spec.model_type)


def build_step3p7_vision(spec: ModelSpec) -> ParamNode:
    """Step3p7VisionModel on its own (a config of model_type step3p5_vision)."""
    return ParamNode(spec.architecture, children=step3p7_vision(spec).children)


def build_step3p7(spec: ModelSpec) -> ParamNode:
    """Step3p7ForConditionalGeneration (or the bare Step3p7Model): the vision tower, the projector (one linear from
    four times the tower's width, the downsamplers' output, to the text model's; a bias where projector_bias), the
    text model, lm_head (tied only by the composite's own tie_word_embeddings)."""
    vision, text = _subs(spec)
    projector = ParamNode("projector", path_linear("multi_modal_projector", 4 * vision.int("hidden_size"),
                                                   text.int("hidden_size"), bool(spec.values["projector_bias"])),
                          source=spec.key_span("projector_bias"), key="projector_bias")
    body = (step3p7_vision(vision), projector, language_model(text))
    if spec.head == "base":
        return node(spec.architecture, *body)
    return node(spec.architecture, *body, _lm_head(spec, text, bool(spec.values["tie_embeddings"])))
