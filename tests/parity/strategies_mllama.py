"""Random small Llama 3.2 Vision configs (mllama, mllama_text_model, mllama_vision_model), written as a config.json
would be."""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe
from .strategies_multimodal import nested_text


def mllama_text(draw) -> dict:
    """A small MllamaTextConfig: heads that need not divide the width (floored), cross_attention_layers any list
    (numbers past the stack name no layer; left out: the class's [3, 8, ...]), a pad token inside the embedding
    (vocab_size + 8 rows; the class's 128004 is not), tie_word_embeddings sometimes (never read)."""
    heads = draw(st.sampled_from([1, 2, 3, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    hidden = heads * draw(st.sampled_from([2, 4, 8])) + (draw(st.integers(0, heads - 1)) if draw(st.booleans()) else 0)
    vocab = draw(st.integers(8, 200))
    layers = draw(st.integers(1, 5))
    cfg: dict = {"model_type": "mllama_text_model", "vocab_size": vocab, "hidden_size": hidden,
                 "num_attention_heads": heads, "num_key_value_heads": kv, "num_hidden_layers": layers,
                 "intermediate_size": draw(st.integers(4, 40)),
                 "pad_token_id": draw(st.integers(0, vocab + 7)), "bos_token_id": 0, "eos_token_id": 0}
    _maybe(draw, "cross_attention_layers", draw(st.lists(st.integers(0, 6), max_size=4)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "max_position_embeddings", draw(st.integers(16, 128)), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["MllamaForCausalLM", "MllamaTextModel"]))]
    return cfg


def mllama_vision(draw) -> dict:
    """A small MllamaVisionConfig: local and gated global layers (0 global too), heads under either spelling (both:
    the alias wins) that need not divide the width, tiles and aspect ratios (the default ratios with 4 tiles only)."""
    heads = draw(st.sampled_from([1, 2, 3, 4]))
    cfg: dict = {"model_type": "mllama_vision_model",
                 "hidden_size": heads * draw(st.sampled_from([2, 4])) + draw(st.integers(0, heads - 1)),
                 "num_hidden_layers": draw(st.integers(1, 3)), "num_global_layers": draw(st.integers(0, 2)),
                 "intermediate_size": draw(st.integers(4, 24)), "vision_output_dim": draw(st.integers(4, 40)),
                 "image_size": draw(st.sampled_from([14, 28, 30, 56])), "patch_size": draw(st.sampled_from([7, 14]))}
    spelling = draw(st.sampled_from(["attention_heads", "num_attention_heads", "both"]))
    if spelling == "both":
        cfg["attention_heads"], cfg["num_attention_heads"] = heads + 1, heads  # the alias wins
    else:
        cfg[spelling] = heads
    if draw(st.booleans()):
        cfg["supported_aspect_ratios"] = draw(st.sampled_from([[[1, 1]], [[1, 1], [1, 2], [2, 1]], []]))
        _maybe(draw, "max_num_tiles", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "num_channels", draw(st.sampled_from([1, 3])), cfg)
    _maybe(draw, "intermediate_layers_indices", draw(st.sampled_from([[0], [0, 1]])), cfg)
    cfg["architectures"] = ["MllamaVisionModel"]
    return cfg


def mllama(draw) -> dict:
    """Llama 3.2 Vision: both sub-configs nested (their model_type the family's, another, or none), sometimes a
    tie_word_embeddings anywhere (never read); rarely no vision_config (the class's 448-pixel tower, 0.8B)."""
    text = mllama_text(draw)
    text.pop("architectures")
    cfg = nested_text(draw, "mllama", text, "llama", flat_keys=False)
    if draw(st.integers(0, 9)):
        vision = mllama_vision(draw)
        vision.pop("architectures")
        if draw(st.booleans()):
            vision.pop("model_type")
        cfg["vision_config"] = vision
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    cfg["image_token_index"] = 0
    cfg["architectures"] = [draw(st.sampled_from(["MllamaForConditionalGeneration", "MllamaModel"]))]
    return cfg


STRATEGIES["mllama_text_model"] = mllama_text
STRATEGIES["mllama_vision_model"] = mllama_vision
STRATEGIES["mllama"] = mllama
