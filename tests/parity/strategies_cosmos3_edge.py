"""Random small Cosmos3 Edge configs (cosmos3_edge, its text model cosmos3_edge_text and its vision tower
cosmos3_edge_vision), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config, name_sub_config
from .strategies_encoders import siglip2_vision


def _mrope(draw, head_dim: int) -> list[int]:
    """Three rotary sections that sum to half of head_dim (Cosmos3EdgeTextConfig refuses any other)."""
    half = head_dim // 2
    first = draw(st.integers(0, half))
    second = draw(st.integers(0, half - first))
    return [first, second, half - first - second]


def cosmos3_edge_text(draw) -> dict:
    """A decoder row's draw with the rotary sections its head width needs: head_dim, where not written, is the
    class's 128 (not hidden / heads), whose sections the default rope_parameters already hold."""
    cfg = decoder_config(draw, "cosmos3_edge_text")
    head_dim = cfg.get("head_dim", 128)
    if head_dim != 128 or draw(st.booleans()):
        rope = {"mrope_section": _mrope(draw, head_dim), "rope_theta": draw(st.sampled_from([1e4, 1e8]))}
        _maybe(draw, "rope_type", "default", rope)
        cfg[draw(st.sampled_from(["rope_parameters", "rope_parameters", "rope_scaling"]))] = rope
    cfg["architectures"] = ["Cosmos3EdgeTextModel"]
    return cfg


def cosmos3_edge_vision(draw) -> dict:
    """SigLIP 2's tower keys (no pooling head: a vision_use_head written is kept and builds nothing) and the
    projector's spatial_merge_size."""
    cfg = siglip2_vision(draw)
    cfg["model_type"] = "cosmos3_edge_vision"
    _maybe(draw, "spatial_merge_size", draw(st.integers(1, 3)), cfg)
    cfg["architectures"] = ["Cosmos3EdgeVisionModel"]
    return cfg


def cosmos3_edge(draw) -> dict:
    """Cosmos3 Edge: its own text model and tower (named, named otherwise or not at all: the class reads its own
    config classes), the projector's hidden width, and a tie_word_embeddings that never ties."""
    text = cosmos3_edge_text(draw)
    text.pop("architectures")
    vision = cosmos3_edge_vision(draw)
    vision.pop("architectures")
    name_sub_config(draw, text, ["cosmos3_edge_text", "llama", None])
    name_sub_config(draw, vision, ["cosmos3_edge_vision", "siglip2_vision_model", None])
    cfg: dict = {"model_type": "cosmos3_edge", "text_config": text, "vision_config": vision}
    _maybe(draw, "projector_hidden_size", draw(st.integers(1, 40)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Cosmos3EdgeForConditionalGeneration", "Cosmos3EdgeModel"]))]
    return cfg


STRATEGIES["cosmos3_edge_text"] = cosmos3_edge_text
STRATEGIES["cosmos3_edge_vision"] = cosmos3_edge_vision
STRATEGIES["cosmos3_edge"] = cosmos3_edge
