"""Random small classic-decoder configs (GPT-1, CTRL, XGLM, BioGPT: layout "classic"), written as a config.json
would be: the decoder strategy's sizes under any alias the config class takes (n_embd or hidden_size, ...), its
switches drawn or left out, any head class we model; and each family's own keys: GPT-1's multiple-choice summary
switches and type, XGLM's cross-attention, a pad_token_id XGLM and BioGPT take (their vocabularies are 8 or more,
their tables 18 rows or more), CTRL's width not a multiple of its heads (its attention floors the head width and
builds)."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config


def openai_gpt_config(draw) -> dict:
    cfg = decoder_config(draw, "openai-gpt")
    cfg.pop("pad_token_id")  # (GPT-1's embedding takes no padding index: any pad builds)
    _maybe(draw, "pad_token_id", draw(st.integers(-5, 400)), cfg)
    # (OpenAIGPTDoubleHeadsModel refuses "attn", as lsp-count does: a config both refuse is no parity example)
    kinds = ["cls_index", "last", "first", "mean"] + ([] if "DoubleHeads" in cfg["architectures"][0] else ["attn"])
    _maybe(draw, "summary_type", draw(st.sampled_from(kinds)), cfg)
    return cfg


def ctrl_config(draw) -> dict:
    cfg = decoder_config(draw, "ctrl")
    if draw(st.booleans()):
        key = "n_embd" if "n_embd" in cfg else "hidden_size"
        cfg[key] += draw(st.integers(1, 3))
    return cfg


def xglm_config(draw) -> dict:
    cfg = decoder_config(draw, "xglm")
    _maybe(draw, "pad_token_id", draw(st.sampled_from([None, -1, 1, 5, 7])), cfg)
    return cfg


def biogpt_config(draw) -> dict:
    cfg = decoder_config(draw, "biogpt")
    _maybe(draw, "pad_token_id", draw(st.sampled_from([None, -8, -1, 1, 5, 7])), cfg)
    return cfg


STRATEGIES.update({"openai-gpt": openai_gpt_config, "ctrl": ctrl_config, "xglm": xglm_config,
                   "biogpt": biogpt_config})
