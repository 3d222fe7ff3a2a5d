"""Random small Kimi K2.5 configs (kimi_k25, its vision tower kimi_k25_vision), written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, name_sub_config, strategy_for


def kimi_k25_vision(draw) -> dict:
    """A small Kimi_K25VisionConfig: heads that leave each head at least 4 wide (its axial rotary embedding splits
    the head in four), a position grid, a merge kernel as a list or a pair."""
    heads = draw(st.integers(1, 3))
    cfg: dict = {"model_type": "kimi_k25_vision", "hidden_size": heads * draw(st.sampled_from([4, 8])),
                 "num_attention_heads": heads, "num_hidden_layers": draw(st.integers(1, 3)),
                 "intermediate_size": draw(st.integers(1, 24)), "patch_size": draw(st.integers(1, 4)),
                 "pos_emb_height": draw(st.integers(0, 5)), "pos_emb_width": draw(st.integers(0, 5))}
    _maybe(draw, "merge_kernel_size", draw(st.sampled_from([[1, 1], [2, 2], [1, 3], [3, 2]])), cfg)
    cfg["architectures"] = ["Kimi_K25VisionModel"]
    return cfg


def kimi_k25(draw) -> dict:
    """Kimi K2.5: a DeepSeek-V3 text model (its model_type deepseek_v3, the Hub's kimi_k2, or none), its own tower
    (its model_type the tower's, the composite's or none), the projector's LayerNorm as wide as the tower mostly, the
    composite's tie (text_config's is not read)."""
    text = draw(strategy_for("deepseek_v3"))
    text.pop("architectures", None)
    name_sub_config(draw, text, ["deepseek_v3", "kimi_k2", None])
    vision = kimi_k25_vision(draw)
    vision.pop("architectures")
    name_sub_config(draw, vision, ["kimi_k25_vision", "kimi_k25", None])
    cfg: dict = {"model_type": "kimi_k25", "text_config": text, "vision_config": vision,
                 "projection_hidden_size": vision["hidden_size"] if draw(st.integers(0, 3)) else draw(st.integers(1, 9))}
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Kimi_K25ForConditionalGeneration", "Kimi_K25Model"]))]
    return cfg


STRATEGIES["kimi_k25_vision"] = kimi_k25_vision
STRATEGIES["kimi_k25"] = kimi_k25
