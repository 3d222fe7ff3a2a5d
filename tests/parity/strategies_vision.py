"""Random small configs for the ViT-shaped vision families added beside ViT: vit_mae (the encoder and, for
ViTMAEForPreTraining, its decoder), yolos, dinov3_vit, ijepa and vit_msn, written as a config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_encoders import _architecture, _image, _sizes


def vit_mae(draw) -> dict:
    """ViTMAE: ViT's sizes, a head width of its own or not, and the decoder's width, heads, depth (0 allowed) and MLP
    width. The pre-training class refuses a decoder width that 4 does not divide, a [height, width] patch_size and
    a patch grid that is not square (the unit tests check those refusals): it is drawn with one number for each side
    and a decoder width of a multiple of 4 (at least its head count)."""
    cfg: dict = {"model_type": "vit_mae"}
    pretraining = draw(st.booleans())
    _sizes(draw, "vit_mae", cfg)
    if pretraining:
        patch = draw(st.integers(2, 8))
        cfg["patch_size"], cfg["image_size"] = patch, patch * draw(st.integers(1, 4)) + draw(st.integers(0, patch - 1))
        _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    else:
        _image(draw, cfg, pairs=True)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "head_dim", draw(st.integers(1, 6)), cfg)
    _maybe(draw, "decoder_hidden_size", 4 * draw(st.integers(1, 4)), cfg)
    # Always written: the class default (16 heads) would leave a small decoder heads of no width, which it refuses.
    cfg["decoder_num_attention_heads"] = draw(st.integers(1, 4))
    _maybe(draw, "decoder_num_hidden_layers", draw(st.integers(0, 2)), cfg)
    _maybe(draw, "decoder_intermediate_size", draw(st.integers(4, 24)), cfg)
    cfg["architectures"] = ["ViTMAEForPreTraining" if pretraining else "ViTMAEModel"]
    return cfg


def ijepa(draw) -> dict:
    """I-JEPA: ViT's sizes without a class token or pooler (pooler_output_size written or not: no class reads it)."""
    cfg: dict = {"model_type": "ijepa"}
    hidden = _sizes(draw, "ijepa", cfg)
    _image(draw, cfg, pairs=True)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "head_dim", draw(st.integers(1, 6)), cfg)
    _maybe(draw, "pooler_output_size", draw(st.sampled_from([None, 3, hidden])), cfg)
    _architecture(draw, "ijepa", cfg)
    return cfg


def yolos(draw) -> dict:
    """YOLOS: ViT's sizes (heads dividing the width: its attention refuses others), detection tokens (0 allowed), the
    mid-position tables or not; image_size always [height, width] (its config class refuses one number), patch_size
    one number where the mid-position tables are built (they square it), else a number or a pair."""
    cfg: dict = {"model_type": "yolos"}
    _sizes(draw, "yolos", cfg)
    mid = draw(st.booleans())
    _maybe(draw, "use_mid_position_embeddings", mid, cfg)
    mid = cfg.get("use_mid_position_embeddings", True)
    patch = [draw(st.integers(2, 6)), draw(st.integers(2, 6))] if not mid and draw(st.booleans()) \
        else draw(st.integers(2, 6))
    ph, pw = (patch, patch) if isinstance(patch, int) else patch
    cfg["patch_size"] = patch
    cfg["image_size"] = [ph * draw(st.integers(1, 3)) + draw(st.integers(0, ph - 1)),
                         pw * draw(st.integers(1, 3)) + draw(st.integers(0, pw - 1))]
    _maybe(draw, "num_channels", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "num_detection_tokens", draw(st.integers(0, 5)), cfg)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _architecture(draw, "yolos", cfg)
    return cfg


def dinov3_vit(draw) -> dict:
    """DINOv3 ViT: any head count up to the width (its attention is hidden_size wide and divides nothing), each
    projection's bias, a plain or gated MLP, register tokens (0 allowed), image and patch sides or pairs."""
    cfg: dict = {"model_type": "dinov3_vit"}
    hidden = draw(st.integers(4, 24))
    cfg["hidden_size"], cfg["num_attention_heads"] = hidden, draw(st.integers(1, 4))
    cfg["num_hidden_layers"] = draw(st.integers(1, 3))
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _image(draw, cfg, pairs=True)
    for key in ("query_bias", "key_bias", "value_bias", "proj_bias", "mlp_bias", "use_gated_mlp"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    _maybe(draw, "num_register_tokens", draw(st.integers(0, 5)), cfg)
    _architecture(draw, "dinov3_vit", cfg)
    return cfg


def vit_msn(draw) -> dict:
    """ViT-MSN: ViT's sizes, image and patch ([height, width] pairs too), a head width of its own or not; no pooler."""
    cfg: dict = {"model_type": "vit_msn"}
    _sizes(draw, "vit_msn", cfg)
    _image(draw, cfg, pairs=True)
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    _maybe(draw, "head_dim", draw(st.integers(1, 6)), cfg)
    _architecture(draw, "vit_msn", cfg)
    return cfg


STRATEGIES["vit_mae"] = vit_mae
STRATEGIES["dinov3_vit"] = dinov3_vit
STRATEGIES["yolos"] = yolos
STRATEGIES["ijepa"] = ijepa
STRATEGIES["vit_msn"] = vit_msn
