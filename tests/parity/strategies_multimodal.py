"""Random small vision-language configs (llava, gemma3, qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5,
qwen3_5_moe, pixtral, mistral3, the llava-layout composites), written as a config.json would be.

Nested sub-configs are sparse, as published ones are: keys left out take the
sub-model class's defaults, and a missing ``vision_config`` takes the composite
class's default tower.
"""

from __future__ import annotations

import importlib

from hypothesis import strategies as st

from .strategies import REQUIRED_KEYS, STRATEGIES, _maybe, name_sub_config
from .strategies_encoders import clip_vision, siglip2_vision
from .strategies_hybrids import lfm2_config, qwen3_5_moe_text_config, qwen3_5_text_config


def _text(draw, model_type: str) -> dict:
    """A small decoder text_config; every size given (the sub-class defaults are billions)."""
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    head_dim = draw(st.sampled_from([4, 8]))
    vocab = draw(st.integers(8, 300))
    cfg: dict = {"model_type": model_type, "vocab_size": vocab, "hidden_size": heads * head_dim,
                 "num_attention_heads": heads, "num_key_value_heads": kv,
                 "num_hidden_layers": draw(st.integers(1, 3)), "intermediate_size": draw(st.integers(4, 48)),
                 "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
    if model_type.startswith("gemma") or model_type == "qwen3":
        cfg["head_dim"] = head_dim  # these classes default head_dim to a fixed 128/256
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    return cfg


def _vision(draw, model_type: str) -> dict:
    cfg = clip_vision(draw, model_type)
    if draw(st.booleans()):
        cfg.pop("model_type")  # the composite's default vision model_type applies
    return cfg


def llava(draw) -> dict:
    cfg: dict = {"model_type": "llava"}
    text_type = draw(st.sampled_from(["llama", "mistral", "qwen2", "gemma2"]))
    cfg["text_config"] = _text(draw, text_type)
    if text_type == "llama" and draw(st.booleans()):
        cfg["text_config"].pop("model_type")  # LlavaConfig's default text model is llama
    vision_type = draw(st.sampled_from(["clip_vision_model", "siglip_vision_model"]))
    if vision_type == "clip_vision_model" and draw(st.integers(0, 9)) == 0:
        pass  # no vision_config: LlavaConfig's CLIP ViT-L/14-336 tower (big, so drawn rarely)
    else:
        cfg["vision_config"] = _vision(draw, vision_type)
        if vision_type == "siglip_vision_model":
            cfg["vision_config"]["model_type"] = vision_type
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2, [-2, -1], [-3, -2, -1]])), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["image_token_index"] = 0
    cfg["architectures"] = [draw(st.sampled_from(["LlavaForConditionalGeneration", "LlavaModel"]))]
    return cfg


def gemma3(draw) -> dict:
    cfg: dict = {"model_type": "gemma3"}
    text = _text(draw, "gemma3_text")
    if draw(st.booleans()):
        text.pop("model_type")  # Gemma3Config always builds a Gemma3TextConfig
    cfg["text_config"] = text
    cfg["vision_config"] = _vision(draw, "siglip_vision_model")
    # The projector pools patches_per_image² patches down to mm_tokens_per_image; keep the pool legal.
    vision = cfg["vision_config"]
    vision["image_size"] = max(vision["image_size"], vision["patch_size"])  # a patch at least to pool
    per_side = vision["image_size"] // vision["patch_size"]
    cfg["mm_tokens_per_image"] = draw(st.integers(1, per_side)) ** 2
    for key in ("boi_token_index", "eoi_token_index", "image_token_index"):
        cfg[key] = draw(st.integers(0, text["vocab_size"] - 1))
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    arch = draw(st.sampled_from(["Gemma3ForConditionalGeneration", "Gemma3Model", "Gemma3ForSequenceClassification"]))
    cfg["architectures"] = [arch]
    if arch.endswith("Classification") and draw(st.booleans()):
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}
    return cfg


STRATEGIES["llava"] = llava
STRATEGIES["gemma3"] = gemma3


def _qwen_vision(draw, model_type: str, width: str, mlp, extra: tuple) -> dict:
    """A small Qwen2-VL / Qwen2.5-VL vision config, the blocks ``width`` wide (Qwen2.5-VL's hidden_size,
    Qwen2-VL's embed_dim), ``mlp(draw, cfg)`` adding the MLP's keys; the aliases the classes map onto
    depth / num_heads (num_hidden_layers / num_attention_heads) sometimes, beside them too."""
    cfg: dict = {"model_type": model_type, width: draw(st.sampled_from([8, 12, 16, 24]))}
    mlp(draw, cfg)
    depth = draw(st.integers(1, 3))
    spelling = draw(st.sampled_from(["depth", "num_hidden_layers", "both"]))
    if spelling == "both":
        cfg["depth"], cfg["num_hidden_layers"] = depth + 1, depth  # the alias wins
    else:
        cfg[spelling] = depth
    # Left out only where the classes' 16 heads are each at least one wide.
    _maybe(draw, draw(st.sampled_from(["num_heads", "num_attention_heads"])), draw(st.sampled_from([1, 2, 3, 4])), cfg,
           None if cfg[width] >= 16 else False)
    for key, values in (("in_channels", [1, 3]), ("patch_size", [1, 2, 3, 14]), ("temporal_patch_size", [1, 2]),
                        ("spatial_merge_size", [1, 2, 3])) + extra:
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    if "in_channels" not in cfg and draw(st.booleans()):
        cfg["in_chans"] = 1  # the Hub configs' key, which transformers 5 does not read
    return cfg


def qwen2_5_vl_vision(draw) -> dict:
    """A small Qwen2_5_VLVisionConfig, as a vision_config or a config of its own."""
    cfg = _qwen_vision(draw, "qwen2_5_vl_vision", "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("window_size", [112]),
                        ("fullatt_block_indexes", [[0], [7, 15, 23, 31]])))
    cfg["architectures"] = ["Qwen2_5_VisionTransformerPretrainedModel"]
    return cfg


def qwen2_vl_vision(draw) -> dict:
    """A small Qwen2VLVisionConfig: blocks embed_dim wide, an MLP mlp_ratio × as wide (0 builds), the
    merger projecting to hidden_size."""
    cfg = _qwen_vision(draw, "qwen2_vl_vision", "embed_dim",
                       lambda draw, cfg: _maybe(draw, "mlp_ratio", draw(st.integers(0, 4)), cfg),
                       (("hidden_size", [8, 16, 20]),))
    cfg["architectures"] = ["Qwen2VisionTransformerPretrainedModel"]
    return cfg


def _qwen_vl(draw, model_type: str, vision_drawer, out_key: str, architectures: list[str]) -> dict:
    """Qwen2-VL / Qwen2.5-VL: the text model's keys at the top level (the Hub's flat configs), or in a
    nested text_config (which wins over top-level keys written beside it); the vision_config's model_type
    as old checkpoints write it (the composite's), the new one, or none; rarely no vision_config. The
    merger (vision_config's ``out_key``) mostly as wide as the text model."""
    text = _text(draw, f"{model_type}_text")
    for key in ("use_sliding_window", "max_window_layers"):
        _maybe(draw, key, draw(st.booleans()) if key == "use_sliding_window" else draw(st.integers(0, 3)), text)
    _maybe(draw, "sliding_window", draw(st.sampled_from([None, 4, 16])), text)
    text_tie = text.pop("tie_word_embeddings", None)
    cfg: dict = {"model_type": model_type}
    layout = draw(st.sampled_from(["flat", "nested", "both"]))
    if layout in ("flat", "both"):
        flat = {k: v for k, v in text.items() if k != "model_type"}
        if layout == "both":  # other sizes at the top level, which transformers does not read
            flat.update(hidden_size=text["hidden_size"] * 2, vocab_size=text["vocab_size"] + 7,
                        num_hidden_layers=text["num_hidden_layers"] + 1)
        cfg.update(flat)
    if layout in ("nested", "both"):
        nested = dict(text)
        if draw(st.booleans()):
            nested.pop("model_type")
        elif draw(st.booleans()):
            nested["model_type"] = "qwen2"  # the composite builds its own text config whatever it names
        if text_tie is not None:
            nested["tie_word_embeddings"] = text_tie  # pre-v5 saves: the BC tie inside text_config
        cfg["text_config"] = nested
    return _qwen_vl_rest(draw, cfg, model_type, vision_drawer, out_key, text, architectures)


def nested_text(draw, model_type: str, text: dict, other_type: str, flat_keys: bool = True) -> dict:
    """A composite's config holding ``text`` as its text_config, whose model_type is the family's, ``other_type``
    (the composite builds its own text config whatever it names) or none; with ``flat_keys``, sometimes text keys
    at the top level too, which the composite config does not read."""
    if draw(st.booleans()):
        text.pop("model_type")
    elif draw(st.booleans()):
        text["model_type"] = other_type
    cfg: dict = {"model_type": model_type, "text_config": text}
    if flat_keys and draw(st.integers(0, 3)) == 0:
        cfg.update(hidden_size=text["hidden_size"] * 2, num_hidden_layers=text["num_hidden_layers"] + 1)
    return cfg


def _qwen_vl_rest(draw, cfg: dict, model_type: str, vision_drawer, out_key: str, text: dict,
                  architectures: list[str]) -> dict:
    """A Qwen-VL composite's vision_config (mostly; its merger as wide as the text model, mostly; named
    as the composite, as its tower or not at all), tie, token ids and architectures."""
    if draw(st.integers(0, 9)):
        vision = vision_drawer(draw)
        vision.pop("architectures")
        vision[out_key] = text["hidden_size"] if draw(st.integers(0, 3)) else vision.get(out_key, 8)
        name_sub_config(draw, vision, [model_type, f"{model_type}_vision", None])
        cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    for key in ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id"):
        cfg[key] = draw(st.integers(0, text["vocab_size"] - 1))
    cfg["architectures"] = [draw(st.sampled_from(architectures))]
    return cfg


def qwen2_5_vl(draw) -> dict:
    return _qwen_vl(draw, "qwen2_5_vl", qwen2_5_vl_vision, "out_hidden_size",
                    ["Qwen2_5_VLForConditionalGeneration", "Qwen2_5_VLModel"])


def qwen2_vl(draw) -> dict:
    return _qwen_vl(draw, "qwen2_vl", qwen2_vl_vision, "hidden_size", ["Qwen2VLForConditionalGeneration", "Qwen2VLModel"])


def _export_unexported(module: str, name: str) -> None:
    """transformers 5.25 builds some towers as classes it does not export at its top level: Qwen2-VL's (model.visual,
    Qwen2VisionTransformerPretrainedModel: modeling_qwen2_vl's __all__ leaves it out; Qwen2.5-VL's is exported) and
    GOT-OCR2's (GotOcr2VisionEncoder). The parity helpers look a family's class up there (meta_count.transformers_count,
    the heads the null test judges), so the class transformers builds is made reachable by its name for them."""
    try:
        modeling = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    except ImportError:  # the parity tests skip without transformers (or torch)
        return
    import transformers  # after the modeling import, which puts a new transformers module in sys.modules

    if not hasattr(transformers, name):
        setattr(transformers, name, getattr(modeling, name))


_export_unexported("qwen2_vl", "Qwen2VisionTransformerPretrainedModel")
STRATEGIES["qwen2_5_vl_vision"] = qwen2_5_vl_vision
STRATEGIES["qwen2_5_vl"] = qwen2_5_vl
STRATEGIES["qwen2_vl_vision"] = qwen2_vl_vision
STRATEGIES["qwen2_vl"] = qwen2_vl


def _qwen3_vl_vision(draw, model_type: str) -> dict:
    """A small Qwen3VLVisionConfig / Qwen3VLMoeVisionConfig: blocks hidden_size wide with a linear_fc1 /
    linear_fc2 MLP, a learned position grid, and as many DeepStack mergers as indexes (any indexes)."""
    cfg = _qwen_vision(draw, model_type, "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("num_position_embeddings", [1, 4, 9, 16, 30]),
                        ("deepstack_visual_indexes", [[], [0], [0, 1, 2], [5, 11, 17]])))
    cfg["architectures"] = ["Qwen3VLMoeVisionModel" if "moe" in model_type else "Qwen3VLVisionModel"]
    return cfg


def qwen3_vl_vision(draw) -> dict:
    return _qwen3_vl_vision(draw, "qwen3_vl_vision")


def qwen3_vl_moe_vision(draw) -> dict:
    return _qwen3_vl_vision(draw, "qwen3_vl_moe_vision")


def qwen3_vl_text(draw, model_type: str = "qwen3_vl_text") -> dict:
    """A small Qwen3VLTextConfig / Qwen3VLMoeTextConfig (their head_dim: 128 / hidden_size over the heads
    unless given; the MoE model's experts, sparse step and dense layers)."""
    cfg = _text(draw, model_type)
    head_dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    if model_type == "qwen3_vl_text" or draw(st.booleans()):
        cfg["head_dim"] = draw(st.sampled_from([head_dim, 2 * head_dim, 6]))
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    if model_type == "qwen3_vl_moe_text":
        experts = draw(st.integers(0, 4))  # 0: every layer dense
        # num_local_experts (the alias) only from 1: written 0.0 it builds in transformers, which lsp-count
        # refuses as it refuses every float there (any other float fails to build).
        cfg["num_experts" if experts == 0 or draw(st.booleans()) else "num_local_experts"] = experts
        cfg["moe_intermediate_size"] = draw(st.integers(2, 16))
        cfg["num_experts_per_tok"] = draw(st.integers(1, max(1, experts)))
        _maybe(draw, "decoder_sparse_step", draw(st.integers(1, 3)), cfg)
        _maybe(draw, "mlp_only_layers", draw(st.sampled_from([[], [0], [1, 2]])), cfg)
    cfg["architectures"] = ["Qwen3VLMoeTextModel" if "moe" in model_type else "Qwen3VLTextModel"]
    return cfg


def qwen3_vl_moe_text(draw) -> dict:
    return qwen3_vl_text(draw, "qwen3_vl_moe_text")


def _qwen3_vl(draw, model_type: str, architectures: list[str]) -> dict:
    """Qwen3-VL / Qwen3-VL-MoE: the text model nested (its model_type the family's, another, or none;
    sometimes its tie_word_embeddings, which does not tie the head) and sometimes text keys at the top
    level too, which the composite config does not read; the vision_config's model_type as old
    checkpoints write it (the composite's), the new one, or none; rarely no vision_config."""
    text = (qwen3_vl_moe_text if "moe" in model_type else qwen3_vl_text)(draw)
    text.pop("architectures")
    cfg = nested_text(draw, model_type, text, "qwen3")
    return _qwen_vl_rest(draw, cfg, model_type, lambda d: _qwen3_vl_vision(d, f"{model_type}_vision"), "out_hidden_size",
                         text, architectures)


def qwen3_vl(draw) -> dict:
    return _qwen3_vl(draw, "qwen3_vl", ["Qwen3VLForConditionalGeneration", "Qwen3VLModel"])


def qwen3_vl_moe(draw) -> dict:
    return _qwen3_vl(draw, "qwen3_vl_moe", ["Qwen3VLMoeForConditionalGeneration", "Qwen3VLMoeModel"])


STRATEGIES["qwen3_vl_vision"] = qwen3_vl_vision
STRATEGIES["qwen3_vl_moe_vision"] = qwen3_vl_moe_vision
STRATEGIES["qwen3_vl_text"] = qwen3_vl_text
STRATEGIES["qwen3_vl_moe_text"] = qwen3_vl_moe_text
STRATEGIES["qwen3_vl"] = qwen3_vl
STRATEGIES["qwen3_vl_moe"] = qwen3_vl_moe


def _qwen3_5_vision(draw, model_type: str) -> dict:
    """A small Qwen3_5VisionConfig / Qwen3_5MoeVisionConfig: Qwen3-VL's tower keys; deepstack_visual_indexes
    sometimes written (the Hub's configs write "[]"), which these classes do not read (no DeepStack mergers)."""
    cfg = _qwen_vision(draw, model_type, "hidden_size",
                       lambda draw, cfg: cfg.update(intermediate_size=draw(st.integers(4, 40))),
                       (("out_hidden_size", [8, 16, 20]), ("num_position_embeddings", [1, 4, 9, 16, 30]),
                        ("deepstack_visual_indexes", [[], [0], [5, 11, 17]])))
    cfg["architectures"] = ["Qwen3_5MoeVisionModel" if "moe" in model_type else "Qwen3_5VisionModel"]
    return cfg


def qwen3_5_vision(draw) -> dict:
    return _qwen3_5_vision(draw, "qwen3_5_vision")


def qwen3_5_moe_vision(draw) -> dict:
    return _qwen3_5_vision(draw, "qwen3_5_moe_vision")


def _qwen3_5(draw, model_type: str, architectures: list[str]) -> dict:
    """Qwen3.5 / Qwen3.5-MoE: the hybrid text model nested (strategies_hybrids' Qwen3.5 text configs: layer_types or
    full_attention_interval, the Gated DeltaNet's sizes; its model_type the family's, another, or none; sometimes
    its tie_word_embeddings, which does not tie the head), sometimes text keys at the top level too, which the
    composite config does not read; the vision_config named as the composite (the released checkpoints' name),
    as its tower or not at all; rarely none; the classifiers' labels and token_classification_bias."""
    text = (qwen3_5_moe_text_config if "moe" in model_type else qwen3_5_text_config)(draw)
    text.pop("architectures")
    cfg = nested_text(draw, model_type, text, "qwen3_next")
    cfg = _qwen_vl_rest(draw, cfg, model_type, lambda d: _qwen3_5_vision(d, f"{model_type}_vision"), "out_hidden_size",
                        text, architectures)
    if cfg["architectures"][0].endswith("Classification"):
        _maybe(draw, "id2label", {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}, cfg)
        _maybe(draw, "token_classification_bias", draw(st.sampled_from([False, True, None])), cfg)
    return cfg


def qwen3_5(draw) -> dict:
    return _qwen3_5(draw, "qwen3_5", ["Qwen3_5ForConditionalGeneration", "Qwen3_5Model",
                                      "Qwen3_5ForSequenceClassification", "Qwen3_5ForTokenClassification"])


def qwen3_5_moe(draw) -> dict:
    return _qwen3_5(draw, "qwen3_5_moe", ["Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeModel"])


STRATEGIES["qwen3_5_vision"] = qwen3_5_vision
STRATEGIES["qwen3_5_moe_vision"] = qwen3_5_moe_vision
STRATEGIES["qwen3_5"] = qwen3_5
STRATEGIES["qwen3_5_moe"] = qwen3_5_moe


def pixtral(draw) -> dict:
    """A small PixtralVisionConfig: heads that need not divide the width (the class floors the head width;
    the projections are as wide whatever the heads), a head width the axial RoPE can turn (even, or at most
    4), sometimes a head_dim of the file's own (kept over the derived one; null kept as None)."""
    heads = draw(st.sampled_from([1, 2, 3, 4]))
    width = draw(st.sampled_from([2, 3, 4, 6, 8]))
    cfg: dict = {"model_type": "pixtral", "hidden_size": heads * width + draw(st.integers(0, heads - 1)),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(4, 40)),
                 "num_hidden_layers": draw(st.integers(1, 3))}
    _maybe(draw, "head_dim", draw(st.sampled_from([None, 2, 4, 8, 16])), cfg)
    for key, values in (("num_channels", [1, 3]), ("patch_size", [1, 2, 3, 14]), ("image_size", [28, 1540]),
                        ("rope_theta", [10000.0]), ("hidden_act", ["gelu", "silu"])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = ["PixtralVisionModel"]
    return cfg


def pixtral_subconfig(draw, cfg: dict) -> None:
    """A Pixtral vision_config for a Mistral 3-shaped composite, named or not (the composite's default vision
    model_type applies); rarely none (the composite's own tower, big)."""
    if draw(st.integers(0, 9)):
        vision = pixtral(draw)
        vision.pop("architectures")
        if draw(st.booleans()):
            vision.pop("model_type")
        cfg["vision_config"] = vision


def mistral3(draw) -> dict:
    """Mistral 3: any decoder text model (mistral when text_config names none), a Pixtral tower (mostly;
    rarely none: Mistral3Config's Mistral-Small-3.1 tower, big), the projector's switches and the merge."""
    cfg: dict = {"model_type": "mistral3"}
    text_type = draw(st.sampled_from(["mistral", "llama", "qwen2", "ministral"]))
    text = _text(draw, text_type)
    if text_type == "ministral":
        text["head_dim"] = text["hidden_size"] // text["num_attention_heads"]  # MinistralConfig's default is 128
    if text_type == "mistral" and draw(st.booleans()):
        text.pop("model_type")  # Mistral3Config's default text model is mistral
    cfg["text_config"] = text
    pixtral_subconfig(draw, cfg)
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2, 0, [-2, -1], [-3, -2, -1]])), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    _maybe(draw, "spatial_merge_size", draw(st.sampled_from([1, 2, 3])), cfg)
    _maybe(draw, "projector_hidden_act", draw(st.sampled_from(["gelu", "silu"])), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["image_token_index"] = 0
    cfg["architectures"] = [draw(st.sampled_from(["Mistral3ForConditionalGeneration", "Mistral3Model"]))]
    return cfg


STRATEGIES["pixtral"] = pixtral
STRATEGIES["mistral3"] = mistral3


# --- LLaVA-style composites (llava layout): LLaVA-NeXT, LLaVA-OneVision, LLaVA-NeXT-Video, VipLLaVA,
# PaliGemma, Aya Vision ---------------------------------------------------------------------------------

def _llava_style(draw, model_type: str, prefix: str, text_types: list[str], vision_types: list[str]) -> dict:
    """A LLaVA-style composite: a small text model of ``text_types`` (the first is the class's default,
    left unnamed sometimes), a small vision tower of ``vision_types`` (the first the default, unnamed
    sometimes; rarely none at all: the composite's default tower, big), the head class or the bare model,
    a tie on the composite (and text_config's, which some forward)."""
    cfg: dict = {"model_type": model_type}
    text_type = draw(st.sampled_from(text_types))
    text = _text(draw, text_type)
    if text_type == text_types[0] and draw(st.booleans()):
        text.pop("model_type")
    cfg["text_config"] = text
    vision_type = draw(st.sampled_from(vision_types))
    if not (vision_type == vision_types[0] and draw(st.integers(0, 9)) == 0):
        vision = clip_vision(draw, vision_type)
        if vision_type == vision_types[0] and draw(st.booleans()):
            vision.pop("model_type")
        cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from([f"{prefix}ForConditionalGeneration", f"{prefix}Model"]))]
    return cfg


_FEATURE_LAYERS = [-1, -2, [-2, -1], [-3, -2, -1]]


def llava_next(draw) -> dict:
    cfg = _llava_style(draw, "llava_next", "LlavaNext", ["llama", "mistral", "qwen2"],
                       ["clip_vision_model", "siglip_vision_model"])
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from(_FEATURE_LAYERS)), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    return cfg


def llava_onevision(draw) -> dict:
    cfg = _llava_style(draw, "llava_onevision", "LlavaOnevision", ["qwen2", "llama"],
                       ["siglip_vision_model", "clip_vision_model"])
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from(_FEATURE_LAYERS)), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    return cfg


def llava_next_video(draw) -> dict:
    """LLaVA-NeXT-Video: LLaVA-NeXT's keys and the video pooler's (a Conv2d in "conv" mode; a 0 stride
    builds it empty but for its bias; its output channels a key the config class does not declare)."""
    cfg = _llava_style(draw, "llava_next_video", "LlavaNextVideo", ["llama", "mistral"],
                       ["clip_vision_model", "siglip_vision_model"])
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from(_FEATURE_LAYERS)), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    _maybe(draw, "spatial_pool_mode", draw(st.sampled_from(["average", "max", "conv"])), cfg)
    _maybe(draw, "spatial_pool_stride", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "spatial_pool_out_channels", draw(st.integers(0, 12)), cfg)
    return cfg


def vipllava(draw) -> dict:
    """VipLLaVA: feature layers under either spelling (vision_feature_layers, the attribute_map alias, wins)."""
    cfg = _llava_style(draw, "vipllava", "VipLlava", ["llama", "mistral"], ["clip_vision_model"])
    for key in ("vision_feature_layer", "vision_feature_layers"):
        _maybe(draw, key, draw(st.sampled_from([-1, [-2, -1], [-2, -5, -1], [0, 1, 2, 3]])), cfg)
    _maybe(draw, "projector_layernorm_eps", 1e-6, cfg)
    return cfg


def paligemma(draw) -> dict:
    """PaliGemma: a Gemma text model (Gemma 2's for PaliGemma 2), a SigLIP tower (with or without its
    head), the projector's width (mostly the text model's, as it must be to run)."""
    cfg = _llava_style(draw, "paligemma", "PaliGemma", ["gemma", "gemma2", "gemma3_text"],
                       ["siglip_vision_model", "clip_vision_model"])
    text = cfg["text_config"]
    if "model_type" in text and text["model_type"] != "gemma":
        text["head_dim"] = text["hidden_size"] // text["num_attention_heads"]
    hidden = text["hidden_size"]
    _maybe(draw, "projection_dim", draw(st.sampled_from([hidden, hidden, 8])), cfg, None if hidden == 2048 else False)
    _maybe(draw, "hidden_size", hidden, cfg)  # the composite's own: not a size of anything it builds
    return cfg


def aya_vision(draw) -> dict:
    """Aya Vision: a Cohere2 (or another) text model, a SigLIP tower, the projector's downsample factor
    (0 builds it empty) and its intermediate width (a key the config class does not declare; even or odd)."""
    cfg = _llava_style(draw, "aya_vision", "AyaVision", ["cohere2", "llama", "cohere"], ["siglip_vision_model"])
    if "vision_config" not in cfg:  # AyaVisionConfig's default tower has 14 heads over 1,152: it cannot build
        cfg["vision_config"] = clip_vision(draw, "siglip_vision_model")
    _maybe(draw, "downsample_factor", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "alignment_intermediate_size", draw(st.integers(0, 20)), cfg)
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2, [-2, -1]])), cfg)
    return cfg


# AyaVisionConfig's default tower (14 heads over 1,152) cannot build: Aya-Vision-8B's is the smallest change.
REQUIRED_KEYS["aya_vision"] = {"vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152,
                                                 "intermediate_size": 4304, "patch_size": 14, "image_size": 364,
                                                 "num_hidden_layers": 27, "num_attention_heads": 16,
                                                 "vision_use_head": False}}
for _drawer in (llava_next, llava_onevision, llava_next_video, vipllava, paligemma, aya_vision):
    STRATEGIES[_drawer.__name__] = _drawer


def _idefics3_vision(model_type: str):
    def draw_config(draw) -> dict:
        """A small Idefics3VisionConfig / SmolVLMVisionConfig: SigLIP's keys (heads divide the width)."""
        cfg = clip_vision(draw, model_type)
        cfg["architectures"] = ["SmolVLMVisionTransformer" if model_type.startswith("smolvlm") else
                                "Idefics3VisionTransformer"]
        return cfg

    return draw_config


def _idefics3(model_type: str, prefix: str):
    def draw_config(draw) -> dict:
        """Idefics3 / SmolVLM: any decoder text model (llama by default), the composite's own vision config
        class whatever model_type the vision_config names (its own, the composite's, another, or none),
        the connector's scale_factor."""
        cfg = _llava_style(draw, model_type, prefix, ["llama", "mistral", "qwen2"], [f"{model_type}_vision"])
        vision = cfg.get("vision_config")
        if vision is not None and draw(st.booleans()):
            vision["model_type"] = draw(st.sampled_from([model_type, "siglip_vision_model"]))  # not read
        _maybe(draw, "scale_factor", draw(st.integers(1, 3)), cfg)
        return cfg

    return draw_config


STRATEGIES["idefics3_vision"] = _idefics3_vision("idefics3_vision")
STRATEGIES["smolvlm_vision"] = _idefics3_vision("smolvlm_vision")
STRATEGIES["idefics3"] = _idefics3("idefics3", "Idefics3")
STRATEGIES["smolvlm"] = _idefics3("smolvlm", "SmolVLM")


def internvl_vision(draw) -> dict:
    """A small InternVLVisionConfig: heads that divide the width, image and patch sides as a number or a list
    (height and width first; a longer patch list is the Conv2d's whole kernel), every switch."""
    heads = draw(st.integers(1, 4))
    cfg: dict = {"model_type": "internvl_vision", "hidden_size": heads * draw(st.sampled_from([2, 4, 8])),
                 "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
                 "intermediate_size": draw(st.integers(4, 40))}
    patch = draw(st.integers(1, 6))
    cfg["patch_size"] = draw(st.sampled_from([patch, [patch, patch + 1], [patch, 2, 2]]))
    cfg["image_size"] = draw(st.sampled_from([patch * 3, 0, [patch * 2, patch * 3], [7, 9, 4]]))
    for key, values in (("num_channels", [1, 3]), ("attention_bias", [False, True]), ("use_qk_norm", [False, True]),
                        ("norm_type", ["layer_norm", "rms_norm"]), ("use_mask_token", [False, True]),
                        ("use_absolute_position_embeddings", [False, True]), ("use_mean_pooling", [False, True]),
                        ("layer_scale_init_value", [0.0, 1.0])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = ["InternVLVisionModel"]
    return cfg


def _own_vision_config(draw, cfg: dict, tower, names: list[str]) -> None:
    """A composite whose config class builds its own tower whatever model_type the vision_config names: where one
    was drawn (another tower's keys), the own tower's keys (``tower``'s draw) under one of ``names`` or none."""
    if "vision_config" not in cfg:
        return
    vision = tower(draw)
    vision.pop("architectures")
    name_sub_config(draw, vision, [*names, None])
    cfg["vision_config"] = vision


def internvl(draw) -> dict:
    """InternVL: a Qwen2 (or Qwen3, Llama) text model, the composite's own vision config class whatever
    model_type it names, the projector's downsample_ratio (a float: 0.5, 0.25, or ones that floor)."""
    cfg = _llava_style(draw, "internvl", "InternVL", ["qwen2", "qwen3", "llama"], ["internvl_vision"])
    _own_vision_config(draw, cfg, internvl_vision, ["internvl_vision", "internvl"])  # (the drawn tower is CLIP's keys)
    _maybe(draw, "downsample_ratio", draw(st.sampled_from([0.5, 0.25, 1.0, 0.3, 2.0, -0.5])), cfg)
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2])), cfg)
    return cfg


STRATEGIES["internvl_vision"] = internvl_vision
STRATEGIES["internvl"] = internvl


def cohere2_vision(draw) -> dict:
    """Cohere2-Vision: a Cohere2 (or another) text model, a SigLIP tower (rarely none: the class's 27-layer
    default), the SwiGLU projector's downsample factor (0 builds it empty) and intermediate width (even or odd)."""
    cfg = _llava_style(draw, "cohere2_vision", "Cohere2Vision", ["cohere2", "llama", "cohere"], ["siglip_vision_model"])
    _maybe(draw, "downsample_factor", draw(st.integers(0, 3)), cfg)
    # Its 36,864 default is drawn rarely: linear_1 is then the tower's width × factor² × 36,864.
    _maybe(draw, "alignment_intermediate_size", draw(st.integers(0, 20)), cfg, None if "vision_config" in cfg else False)
    return cfg


def lfm2_vl(draw) -> dict:
    """LFM2-VL: a small LFM2 text model (its conv and attention layers), a SigLIP-2 (or SigLIP) tower, the
    projector's factor (0 builds it empty), width, LayerNorm and biases, the tie under either spelling."""
    cfg = _llava_style(draw, "lfm2_vl", "Lfm2Vl", ["lfm2", "llama"], ["siglip2_vision_model", "siglip_vision_model"])
    if cfg["text_config"].get("model_type", "lfm2") == "lfm2":
        text = lfm2_config(draw)
        text.pop("architectures", None)
        if draw(st.booleans()):
            text.pop("model_type")
        cfg["text_config"] = text
    vision = cfg.get("vision_config")
    if vision is not None and vision.get("model_type", "siglip2_vision_model") == "siglip2_vision_model":
        named = "model_type" in vision
        vision = siglip2_vision(draw)
        if not named:
            vision.pop("model_type")
        cfg["vision_config"] = vision
    _maybe(draw, "downsample_factor", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "projector_hidden_size", draw(st.integers(0, 20)), cfg, None if "vision_config" in cfg else False)
    _maybe(draw, "projector_use_layernorm", draw(st.booleans()), cfg)
    _maybe(draw, "projector_bias", draw(st.booleans()), cfg)
    if draw(st.booleans()):
        cfg["tie_embedding"] = draw(st.booleans())
    return cfg


def deepseek_vl(draw) -> dict:
    """DeepSeek-VL: a Llama (or another) text model, a SigLIP tower (with or without its pooling head; rarely none:
    SiglipVisionConfig's defaults), the aligner."""
    return _llava_style(draw, "deepseek_vl", "DeepseekVL", ["llama", "qwen2", "mistral"],
                        ["siglip_vision_model", "clip_vision_model"])


STRATEGIES["deepseek_vl"] = deepseek_vl
STRATEGIES["cohere2_vision"] = cohere2_vision
STRATEGIES["lfm2_vl"] = lfm2_vl


def got_ocr2_vision(draw, model_type: str = "got_ocr2_vision") -> dict:
    """A small GotOcr2VisionConfig (or PPChart2TableVisionConfig, the same fields): heads that divide the width (or not: the relative positions floor it), a patch
    grid of 1 to 4 a side, windows of 0 (every layer global) to 3, global layers anywhere (out of range too), each
    switch."""
    heads = draw(st.integers(1, 4))
    cfg: dict = {"model_type": model_type, "hidden_size": heads * draw(st.sampled_from([2, 4])) + draw(st.integers(0, 1)),
                 "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
                 "mlp_dim": draw(st.integers(4, 24)), "output_channels": draw(st.integers(1, 8))}
    patch = draw(st.integers(1, 6))
    cfg["patch_size"] = patch
    # (At least a patch: with no grid the global layers' relative positions fail to build; tests/unit pins that.)
    cfg["image_size"] = patch * draw(st.integers(1, 4)) + draw(st.integers(0, patch - 1))
    for key, values in (("num_channels", [1, 3]), ("qkv_bias", [False, True]), ("use_abs_pos", [False, True]),
                        ("use_rel_pos", [False, True]), ("window_size", [0, 1, 2, 3]),
                        ("global_attn_indexes", [[], [0], [1, 2], [0, 5]])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = ["GotOcr2VisionEncoder"]
    return cfg


def got_ocr2(draw) -> dict:
    """GOT-OCR2: a Qwen2 (or another) text model, its own vision config class whatever model_type the vision_config
    names, rarely none (GotOcr2VisionConfig's 12 layers over 1,024-pixel images)."""
    cfg = _llava_style(draw, "got_ocr2", "GotOcr2", ["qwen2", "llama"], ["siglip_vision_model"])
    _own_vision_config(draw, cfg, got_ocr2_vision, ["got_ocr2_vision", "got_ocr2"])  # (the drawn tower is SigLIP's keys)
    return cfg


def pp_chart2table_vision(draw) -> dict:
    return got_ocr2_vision(draw, "pp_chart2table_vision")


def pp_chart2table(draw) -> dict:
    """PP-Chart2Table: GOT-OCR2's classes over its own config classes, drawn as GOT-OCR2's."""
    cfg = _llava_style(draw, "pp_chart2table", "GotOcr2", ["qwen2", "llama"], ["siglip_vision_model"])
    _own_vision_config(draw, cfg, pp_chart2table_vision, ["pp_chart2table_vision", "got_ocr2_vision"])
    return cfg


_export_unexported("got_ocr2", "GotOcr2VisionEncoder")
STRATEGIES["got_ocr2_vision"] = got_ocr2_vision
STRATEGIES["got_ocr2"] = got_ocr2
STRATEGIES["pp_chart2table_vision"] = pp_chart2table_vision
STRATEGIES["pp_chart2table"] = pp_chart2table


def _colvision(draw, model_type: str, architecture: str, vlms: list[tuple[str, object]]) -> dict:
    """A ColVision retriever: a small vision-language config of one of ``vlms`` ((model_type, its strategy); the first
    the class's default, unnamed sometimes; rarely none at all, the default one, big) and embedding_dim sometimes."""
    cfg: dict = {"model_type": model_type, "architectures": [architecture]}
    if draw(st.integers(0, 9)):
        vlm_type, strategy = draw(st.sampled_from(vlms))
        vlm = strategy(draw)
        vlm.pop("architectures", None)
        if vlm_type == vlms[0][0] and draw(st.booleans()):
            vlm.pop("model_type")
        cfg["vlm_config"] = vlm
    _maybe(draw, "embedding_dim", draw(st.integers(1, 24)), cfg)
    return cfg


def colpali(draw) -> dict:
    return _colvision(draw, "colpali", "ColPaliForRetrieval", [("paligemma", paligemma), ("qwen2_vl", qwen2_vl)])


def colqwen2(draw) -> dict:
    return _colvision(draw, "colqwen2", "ColQwen2ForRetrieval", [("qwen2_vl", qwen2_vl), ("qwen2_5_vl", qwen2_5_vl)])


STRATEGIES["colpali"] = colpali
STRATEGIES["colqwen2"] = colqwen2
