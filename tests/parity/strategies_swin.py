"""Random small Swin, Swin V2, donut-swin and maskformer-swin configs (layout "swin"), written as a config.json would be: 1 to 4 stages of 0 to 3 blocks
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
    if model_type in ("swinv2", "donut-swin", "maskformer-swin"):
        # (their attention refuses heads that do not divide a stage's width: powers of two dividing embed_dim)
        cfg["embed_dim"] = 4 * draw(st.integers(1, 3))
        cfg.pop("num_heads", None), cfg.pop("num_attention_heads", None)
        cfg[draw(st.sampled_from(["num_heads", "num_attention_heads"]))] = draw(
            st.lists(st.sampled_from([1, 2, 4]), min_size=stages, max_size=stages + draw(st.integers(0, 1))))
        _maybe(draw, "mlp_ratio", draw(st.sampled_from([2.0, 2.5, 4.0, 0.5])), cfg, "mlp_ratio" not in cfg)
        # (a grid of at least one patch at every stage: Swin V2 clips the windows to the grid, and refuses an empty one)
        patch = draw(st.integers(1, 4))
        sides = [patch * 2 ** (stages - 1) * draw(st.integers(1, 3)) + draw(st.integers(0, patch - 1))
                 for _ in range(2)]
        cfg["patch_size"] = patch if draw(st.booleans()) else [patch, patch]
        cfg["image_size"] = sides[0] if draw(st.booleans()) else sides
        if model_type == "swinv2":
            cfg["pretrained_window_sizes"] = draw(st.lists(st.integers(0, 8), min_size=stages, max_size=stages + 1))
        if model_type == "maskformer-swin" and draw(st.booleans()):  # (any stage but the stem)
            cfg["out_features"] = [f"stage{s}" for s in range(1, stages + 1) if draw(st.booleans())] or ["stage1"]
    return cfg


STRATEGIES.update({"swin": lambda draw: swin_config(draw, "swin"),
                   "swinv2": lambda draw: swin_config(draw, "swinv2"),
                   "donut-swin": lambda draw: swin_config(draw, "donut-swin"),
                   "maskformer-swin": lambda draw: swin_config(draw, "maskformer-swin")})
