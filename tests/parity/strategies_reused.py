"""Random small configs of the families whose config class builds another family's classes (families/reused.py):
the decoder strategy's sizes, and each config class's own spellings: InternLM3's biases (equal, as its class wants
them, under attention_bias / qkv_bias and mlp_bias / bias), Param2-MoE's and Sarvam's experts and shared experts
under their field or an alias (num_experts, num_local_experts, num_shared_experts), their q/k norms and q/k/v biases
(use_qkv_bias), Sarvam-MLA's latent attention with a dropped head_dim now and then, GPT-SW3's GPT-2 sizes."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config


def internlm3_config(draw) -> dict:
    cfg = decoder_config(draw, "internlm3")
    for key in ("attention_bias", "mlp_bias"):
        cfg.pop(key, None)
    if draw(st.booleans()):
        on = draw(st.booleans())
        cfg[draw(st.sampled_from(["attention_bias", "qkv_bias"]))] = on
        cfg[draw(st.sampled_from(["mlp_bias", "bias"]))] = on
    return cfg


def _experts(draw, cfg: dict) -> None:
    """Routed experts under n_routed_experts or an alias, top-k, expert width, shared experts under either spelling,
    the dense layers first."""
    experts = draw(st.integers(1, 4))
    cfg[draw(st.sampled_from(["n_routed_experts", "num_experts", "num_local_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 24))
    _maybe(draw, draw(st.sampled_from(["n_shared_experts", "num_shared_experts"])), draw(st.integers(0, 2)), cfg)
    cfg["first_k_dense_replace"] = draw(st.integers(0, 2))
    cfg["n_group"] = cfg["topk_group"] = 1


def glm4_moe_like_config(model_type: str):
    def draw_config(draw) -> dict:
        cfg = decoder_config(draw, model_type)
        cfg.pop("n_shared_experts", None)
        _experts(draw, cfg)
        if draw(st.booleans()):
            cfg.pop("attention_bias", None)
            cfg["use_qkv_bias"] = draw(st.booleans())
        _maybe(draw, "partial_rotary_factor", draw(st.sampled_from([0.5, 1.0])), cfg)
        return cfg
    return draw_config


def sarvam_mla_config(draw) -> dict:
    cfg = decoder_config(draw, "sarvam_mla")
    cfg.pop("n_shared_experts", None)
    _experts(draw, cfg)
    _maybe(draw, "head_dim", draw(st.sampled_from([None, 3, 64])), cfg)  # (dropped by SarvamMLAConfig)
    return cfg


def gpt_sw3_config(draw) -> dict:
    cfg = decoder_config(draw, "gpt-sw3")
    cfg["n_inner"] = draw(st.sampled_from([None, 8, 40]))
    return cfg


STRATEGIES.update({"internlm3": internlm3_config, "param2moe": glm4_moe_like_config("param2moe"),
                   "sarvam_moe": glm4_moe_like_config("sarvam_moe"), "sarvam_mla": sarvam_mla_config,
                   "gpt-sw3": gpt_sw3_config})
