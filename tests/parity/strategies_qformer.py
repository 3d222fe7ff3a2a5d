"""Random small Q-Former vision-language configs (blip-2, instructblip and their vision / Q-Former sub-models),
written as a config.json would be: the vision and Q-Former configs sparse or whole, the text model an OPT
(the default, its model_type sometimes left out), a T5 (the Flan-T5 checkpoints) or a Llama."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, decoder_config
from .strategies_seq2seq import t5


def _blip_vision(draw, model_type: str) -> dict:
    heads = draw(st.integers(1, 4))
    patch = draw(st.integers(1, 6))
    cfg: dict = {"model_type": model_type, "hidden_size": heads * draw(st.sampled_from([2, 4, 8])),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 24)),
                 "num_hidden_layers": draw(st.integers(0, 3)), "patch_size": patch,
                 "image_size": patch * draw(st.integers(1, 4)) + draw(st.integers(0, patch - 1))}
    _maybe(draw, "qkv_bias", draw(st.booleans()), cfg)
    return cfg


def _qformer(draw, model_type: str) -> dict:
    heads = draw(st.integers(1, 4))
    vocab = draw(st.integers(2, 60))
    cfg: dict = {"model_type": model_type, "hidden_size": heads * draw(st.sampled_from([2, 4, 8])),
                 "num_attention_heads": heads, "intermediate_size": draw(st.integers(1, 24)),
                 "num_hidden_layers": draw(st.integers(0, 5)), "vocab_size": vocab,
                 "max_position_embeddings": draw(st.integers(1, 20)), "pad_token_id": draw(st.integers(0, vocab - 1))}
    _maybe(draw, "cross_attention_frequency", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "encoder_hidden_size", draw(st.integers(1, 24)), cfg)
    if model_type == "blip_2_qformer":
        _maybe(draw, "use_qformer_text_input", draw(st.booleans()), cfg)
    return cfg


def _text(draw) -> dict:
    kind = draw(st.sampled_from(["opt", "opt", "t5", "llama"]))
    cfg = t5(draw) if kind == "t5" else decoder_config(draw, kind)
    cfg.pop("architectures", None)
    if kind == "opt" and draw(st.booleans()):
        cfg.pop("model_type")  # the composites' default text model is OPT
    return cfg


def _composite(model_type: str, prefix: str, vision_type: str, qformer_type: str, heads: tuple[str, ...]):
    def draw_config(draw) -> dict:
        cfg: dict = {"model_type": model_type, "vision_config": _blip_vision(draw, vision_type),
                     "qformer_config": _qformer(draw, qformer_type), "text_config": _text(draw)}
        for key in ("vision_config", "qformer_config"):
            if draw(st.booleans()):
                cfg[key].pop("model_type")  # the composite's own class whatever the sub-config names
        _maybe(draw, "num_query_tokens", draw(st.integers(1, 8)), cfg)
        if model_type == "blip-2":
            _maybe(draw, "image_text_hidden_size", draw(st.integers(1, 16)), cfg)
        cfg["architectures"] = [prefix + draw(st.sampled_from(heads))]
        return cfg
    return draw_config


def _sub(drawer, model_type: str, architecture: str):
    def draw_config(draw) -> dict:
        return {**drawer(draw, model_type), "architectures": [architecture]}
    return draw_config


STRATEGIES["blip_2_vision_model"] = _sub(_blip_vision, "blip_2_vision_model", "Blip2VisionModel")
STRATEGIES["instructblip_vision_model"] = _sub(_blip_vision, "instructblip_vision_model", "InstructBlipVisionModel")
STRATEGIES["blip_2_qformer"] = _sub(_qformer, "blip_2_qformer", "Blip2QFormerModel")
STRATEGIES["instructblip_qformer"] = _sub(_qformer, "instructblip_qformer", "InstructBlipQFormerModel")
STRATEGIES["blip-2"] = _composite("blip-2", "Blip2", "blip_2_vision_model", "blip_2_qformer",
                                  ("ForConditionalGeneration", "Model", "TextModelWithProjection",
                                   "VisionModelWithProjection", "ForImageTextRetrieval"))
STRATEGIES["instructblip"] = _composite("instructblip", "InstructBlip", "instructblip_vision_model",
                                        "instructblip_qformer", ("ForConditionalGeneration", "Model"))
