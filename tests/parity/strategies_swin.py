"""Random small Swin configs (layout "swin"), written as a config.json would be: 1 to 4 stages of 0 to 3 blocks
each, heads per stage (a num_heads list as long as depths or longer, under either spelling), any window size, an
mlp_ratio of a whole or fractional value, image and patch sizes as one number or [height, width], with or without
absolute positions and query/key/value biases, and any head class of the family."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture
from .strategies_encoders import _image


def swin_config(draw, model_type: str) -> dict:
    stages = draw(st.integers(1, 4))
    cfg: dict = {"model_type": model_type,
                 "depths": draw(st.lists(st.integers(0, 3), min_size=stages, max_size=stages)),
                 "embed_dim": draw(st.integers(1, 12))}
    # (heads at most the first stage's width: a head of no width fails to build, which check_stages refuses)
    heads = draw(st.lists(st.integers(1, min(4, cfg["embed_dim"])), min_size=stages, max_size=stages + draw(st.integers(0, 1))))
    cfg[draw(st.sampled_from(["num_heads", "num_attention_heads"]))] = heads
    draw_architecture(draw, model_type, cfg)
    _image(draw, cfg, pairs=True)
    _maybe(draw, "window_size", draw(st.integers(1, 9)), cfg)
    _maybe(draw, "mlp_ratio", draw(st.sampled_from([1, 2.0, 2.5, 4.0, 0.5])), cfg)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "use_absolute_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "encoder_stride", draw(st.integers(1, 8)), cfg)
    return cfg


STRATEGIES.update({"swin": lambda draw: swin_config(draw, "swin")})
