"""Random small BEiT and Data2Vec-Vision configs, written as a config.json would be: ViT's sizes and image, a head
width of its own or not (BEiT's attention reads one; Data2Vec-Vision's refuses heads that do not divide the width),
each optional part by its key (mask token, position table, relative position bias tables per layer or shared, layer
scales, mean pooling) and BEiT's visual-token vocabulary."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import _architecture, _image, _sizes


def beit(model_type: str):
    def draw_config(draw) -> dict:
        cfg: dict = {"model_type": model_type}
        _sizes(draw, model_type, cfg)
        _image(draw, cfg, pairs=True)
        relative = draw(st.booleans())
        if relative and model_type == "beit" and isinstance(cfg["patch_size"], list):
            # BeitRelativePositionBias divides the image by patch_size itself: one number (a unit test checks the refusal).
            cfg["patch_size"] = cfg["patch_size"][0]
        if relative:
            # A grid with no patch on one side and three or more on the other gives the relative position table a
            # negative size, which neither side builds (test_empty_patch_grid_parity checks it): a patch a side at least.
            image, patch = cfg["image_size"], cfg["patch_size"]
            sides = image if isinstance(image, list) else [image, image]
            patches = patch if isinstance(patch, list) else [patch, patch]
            grown = [max(side, p) for side, p in zip(sides, patches)]
            cfg["image_size"] = grown if isinstance(image, list) else grown[0]
        for key in ("use_mask_token", "use_absolute_position_embeddings", "use_mean_pooling"):
            _maybe(draw, key, draw(st.booleans()), cfg)
        _maybe(draw, "use_relative_position_bias", relative and draw(st.booleans()), cfg)
        _maybe(draw, "use_shared_relative_position_bias", relative and draw(st.booleans()), cfg)
        _maybe(draw, "layer_scale_init_value", draw(st.sampled_from([0.0, -1.0, 0.1, 1.0])), cfg)
        if model_type == "beit":
            _maybe(draw, "head_dim", draw(st.integers(1, 6)), cfg)
            _maybe(draw, "vocab_size", draw(st.integers(1, 50)), cfg)
        _architecture(draw, model_type, cfg)
        return cfg

    return draw_config


STRATEGIES["beit"] = beit("beit")
STRATEGIES["data2vec-vision"] = beit("data2vec-vision")
