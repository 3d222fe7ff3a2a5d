"""Random small Mistral Large 4 configs (mistral_large4_text; the composite mistral_large4), written as a config.json
would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, deepseek_v32_config, dsa_schedule, name_sub_config
from .strategies_multimodal import pixtral_subconfig


def _kv_sources(draw, layers: int) -> list[int]:
    """For each layer, itself or an earlier layer that reads its own latent (what MistralLarge4TextConfig takes)."""
    sources: list[int] = []
    for i in range(layers):
        owners = [j for j, s in enumerate(sources) if s == j]
        sources.append(draw(st.sampled_from([i, *owners])))
    return sources


def mistral_large4_text(draw) -> dict:
    """DeepSeek-V3.2's draws (a q_lora_rank written is a key the class keeps and nothing reads), GLM-5's indexer
    schedule, layers reading an earlier layer's latent, NoPE layers by list or interval, and the rotary settings that
    size the learned frequency scales (a partial factor, the class's own default type)."""
    cfg = dsa_schedule(draw, deepseek_v32_config(draw, "mistral_large4_text"))
    if draw(st.booleans()):
        cfg.pop("q_lora_rank")
    layers = cfg["num_hidden_layers"]
    _maybe(draw, "kv_source_layers", _kv_sources(draw, layers), cfg)
    rotary = draw(st.sampled_from(["list", "interval", "none"]))
    if rotary == "list":
        cfg["no_rope_layers"] = draw(st.lists(st.sampled_from([0, 1]), min_size=layers, max_size=layers + 1))
    elif rotary == "interval":
        cfg["no_rope_layer_interval"] = draw(st.integers(1, 4))
    rope = draw(st.sampled_from(["default_type", "partial", "none"]))
    if rope == "default_type":
        cfg["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0}
        _maybe(draw, "partial_rotary_factor", 0.5, cfg)  # (the class's default type rotates all of it)
    elif rope == "partial":
        cfg["partial_rotary_factor"] = draw(st.sampled_from([0.5, 1.0]))
    _maybe(draw, "qk_rope_head_dim", draw(st.sampled_from([2, 4, 6])), cfg, None)
    cfg["architectures"] = ["MistralLarge4TextModel"]
    return cfg


def mistral_large4(draw) -> dict:
    """Mistral Large 4: its own text model (named as it, otherwise or not at all: the class reads its own config
    class), a Pixtral tower (rarely none: the composite's own sizes, big), the patch merge, the projector's biases and
    feature layer, the composite's tie_word_embeddings and text_config's (which it does not read)."""
    text = mistral_large4_text(draw)
    text.pop("architectures")
    name_sub_config(draw, text, ["mistral_large4_text", "mistral", None])
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), text)
    cfg: dict = {"model_type": "mistral_large4", "text_config": text}
    pixtral_subconfig(draw, cfg)
    _maybe(draw, "spatial_merge_size", draw(st.sampled_from([1, 2, 3])), cfg)
    _maybe(draw, "multimodal_projector_bias", draw(st.booleans()), cfg)
    _maybe(draw, "vision_feature_layer", draw(st.sampled_from([-1, -2, [-1, -2]])), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["MistralLarge4ForConditionalGeneration", "MistralLarge4Model"]))]
    return cfg


STRATEGIES["mistral_large4_text"] = mistral_large4_text
STRATEGIES["mistral_large4"] = mistral_large4
