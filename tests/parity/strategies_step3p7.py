"""Random small Step 3.7 configs (step3p7, its text model step3p5 and its vision tower step3p5_vision), written as a
config.json would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe


def step3p5(draw) -> dict:
    """A small Step3p7TextConfig: a head width of its own, full or sliding layers (the sliding ones with their own
    query heads, under the field or the legacy attention_other_setting), dense or sparse layers (mlp_layer_types,
    the legacy moe_layers_enum, or the default: sparse from the fourth layer), per-layer lists padded with the
    multi-token-prediction layers' entries sometimes, experts and the rest under either spelling, the output gate
    per head or per channel."""
    kv = draw(st.sampled_from([1, 2]))
    heads = kv * draw(st.integers(1, 3))
    layers = draw(st.integers(1, 5))
    experts = draw(st.integers(1, 4))
    cfg: dict = {"model_type": "step3p5", "vocab_size": draw(st.integers(8, 200)),
                 "hidden_size": draw(st.sampled_from([8, 12, 16])), "num_hidden_layers": layers,
                 "num_attention_heads": heads, draw(st.sampled_from(["num_key_value_heads", "num_attention_groups"])): kv,
                 "head_dim": draw(st.sampled_from([2, 4, 6])), "intermediate_size": draw(st.integers(2, 24)),
                 "moe_intermediate_size": draw(st.integers(2, 12)),
                 draw(st.sampled_from(["n_routed_experts", "moe_num_experts"])): experts,
                 draw(st.sampled_from(["num_experts_per_tok", "moe_top_k"])): draw(st.integers(1, experts)),
                 draw(st.sampled_from(["share_expert_dim", "share_expert_dims"])): draw(st.integers(0, 12)),
                 "pad_token_id": 0}
    extra = draw(st.sampled_from([0, 0, 1, 2]))
    if extra:
        cfg["num_nextn_predict_layers"] = extra
    padded = layers + extra
    if draw(st.booleans()):
        cfg["layer_types"] = [draw(st.sampled_from(["full_attention", "sliding_attention"])) for _ in range(padded)]
        cfg["sliding_window"] = draw(st.integers(2, 16))
        sliding = kv * draw(st.integers(1, 3))
        how = draw(st.sampled_from(["field", "legacy", None]))
        if how == "field":
            cfg["num_sliding_attention_heads"] = sliding
        elif how == "legacy":
            cfg["attention_other_setting"] = {"num_attention_heads": sliding}
    how = draw(st.sampled_from(["list", "enum", None]))
    if how == "list":
        cfg["mlp_layer_types"] = [draw(st.sampled_from(["dense", "sparse"])) for _ in range(padded)]
    elif how == "enum":
        chosen = sorted(draw(st.sets(st.integers(0, padded - 1))))
        cfg["moe_layers_enum"] = ",".join(map(str, chosen)) if draw(st.booleans()) else chosen
    for key, values in (("gating", [True, False, "per-head", "full"]), ("attention_bias", [False, True]),
                        ("mlp_bias", [False, True])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    cfg["architectures"] = ["Step3p7TextModel"]
    return cfg


def step3p5_vision(draw) -> dict:
    """A small Step3p7VisionConfig: the SigLIP names or the legacy width / layers / heads (which win), an MLP
    int(width × mlp_ratio) wide, a position table of (image_size // patch_size)² rows."""
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"model_type": "step3p5_vision", "architectures": ["Step3p7VisionModel"],
                 draw(st.sampled_from(["hidden_size", "width"])): heads * draw(st.sampled_from([4, 8])),
                 draw(st.sampled_from(["num_hidden_layers", "layers"])): draw(st.integers(1, 3)),
                 draw(st.sampled_from(["num_attention_heads", "heads"])): heads,
                 "image_size": draw(st.sampled_from([0, 14, 28, 45])), "patch_size": draw(st.sampled_from([7, 14]))}
    for key, values in (("mlp_ratio", [1.0, 2.5, 8960 / 1536]), ("num_channels", [1, 3]),
                        ("layer_scale_init_value", [0.0, 0.1])):
        _maybe(draw, key, draw(st.sampled_from(values)), cfg)
    return cfg


def step3p7(draw) -> dict:
    """Step 3.7: both sub-configs nested (their model_type named or not: the composite drops it), a projector bias
    and the composite's tie_word_embeddings sometimes, text_config's tie_word_embeddings too (not read)."""
    text = step3p5(draw)
    vision = step3p5_vision(draw)
    for sub in (text, vision):
        sub.pop("architectures")
        if draw(st.booleans()):
            sub.pop("model_type")
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), text)
    cfg: dict = {"model_type": "step3p7", "text_config": text, "vision_config": vision}
    for key in ("projector_bias", "tie_word_embeddings"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Step3p7ForConditionalGeneration", "Step3p7Model"]))]
    return cfg


STRATEGIES["step3p5"] = step3p5
STRATEGIES["step3p5_vision"] = step3p5_vision
STRATEGIES["step3p7"] = step3p7
