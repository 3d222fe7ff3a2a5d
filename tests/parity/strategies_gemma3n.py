"""Random small Gemma 3n configs (the text model gemma3n_text; the audio encoder gemma3n_audio), written as a
config.json would be.

Layer types drawn (at times one of another type transformers takes, given a rope_parameters entry), or left to the
class (every fifth full), so that the KV-sharing layers find an earlier layer of
each of their types (else Gemma3nTextConfig refuses them: the class defaults are what the null and float tests
check), or more sharing layers than there are layers (which the class builds as its indexing reads them);
intermediate_size one for all or one per layer; the activation sparsity per layer, or the class's; AltUp with 0 to 4
predictions, Laurel and the per-layer inputs 0 wide or more; switches left out at random so the class defaults apply.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .strategies import STRATEGIES, _maybe, draw_architecture

SLIDING, FULL = "sliding_attention", "full_attention"


def _builds(types: list[str], shared: int) -> bool:
    """Whether Gemma3nTextConfig.kv_sharing_modes takes ``shared`` sharing layers over ``types``."""
    n = len(types)
    if shared == 0:
        return True
    first = n - shared
    unshared = types[0:first][::-1]
    if sorted(set(unshared)) != sorted(set(types)):
        return False
    return all(-n <= first - 1 - unshared.index(k) < n for k in set(types))


def gemma3n_text_config(draw) -> dict:
    heads = draw(st.sampled_from([1, 2, 4]))
    kv = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    layers = draw(st.integers(0, 7))
    vocab = draw(st.integers(8, 120))
    cfg: dict = {"model_type": "gemma3n_text", "vocab_size": vocab, "pad_token_id": 0, "bos_token_id": 0,
                 "eos_token_id": 0, "hidden_size": heads * draw(st.sampled_from([2, 4, 6])),
                 "num_attention_heads": heads, "num_key_value_heads": kv,
                 "head_dim": draw(st.sampled_from([2, 4, 8])), "num_hidden_layers": layers,
                 "vocab_size_per_layer_input": draw(st.integers(1, 60))}
    if draw(st.booleans()):
        cfg["intermediate_size"] = [draw(st.integers(0, 24)) for _ in range(layers)]
    else:
        cfg["intermediate_size"] = draw(st.integers(0, 40))
    if draw(st.booleans()):
        types = [draw(st.sampled_from([SLIDING, FULL])) for _ in range(layers)]
        if layers and draw(st.integers(0, 5)) == 0:  # another type transformers takes, with a rope entry of its own
            types[draw(st.integers(0, layers - 1))] = "chunked_attention"
            cfg["rope_parameters"] = {"chunked_attention": {"rope_type": "default", "rope_theta": 100.0}}
        cfg["layer_types"] = types
    else:
        types = [FULL if (i + 1) % 5 == 0 else SLIDING for i in range(layers)]
    options = [s for s in range(0, layers + 3) if _builds(types, s)]
    cfg["num_kv_shared_layers"] = draw(st.sampled_from(options))
    if draw(st.booleans()):
        cfg["activation_sparsity_pattern"] = [draw(st.sampled_from([0.0, 0.5, 0.95])) for _ in range(layers)]
    cfg["hidden_size_per_layer_input"] = draw(st.sampled_from([0, 2, 4]))
    cfg["laurel_rank"] = draw(st.integers(0, 6))
    cfg["altup_num_inputs"] = draw(st.integers(0, 4))
    _maybe(draw, "altup_active_idx", 0, cfg)
    _maybe(draw, "attention_bias", draw(st.booleans()), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(1, 64)), cfg)
    _maybe(draw, "final_logit_softcapping", draw(st.sampled_from([30.0, 20.0])), cfg)
    draw_architecture(draw, "gemma3n_text", cfg)
    return cfg


def gemma3n_audio_config(draw) -> dict:
    """A small Gemma3nAudioConfig: heads that need not divide the width (never more than it, which fails), two or
    three subsampling channel counts (0 too; the last is what input_proj_linear reads), kernels and strides that
    leave 0 or more frequencies (a time stride of 0 too, which the model does not read as it is built), local
    attention contexts that build, a depthwise kernel of 0 or more."""
    hidden = draw(st.integers(1, 12))
    cfg: dict = {"model_type": "gemma3n_audio", "hidden_size": hidden,
                 "conf_num_attention_heads": draw(st.integers(1, min(hidden, 4))),
                 "conf_num_hidden_layers": draw(st.integers(0, 2)),
                 "sscp_conv_channel_size": draw(st.lists(st.integers(0, 6), min_size=2, max_size=3)),
                 "conf_conv_kernel_size": draw(st.integers(0, 5)), "input_feat_size": draw(st.integers(0, 16))}
    if draw(st.booleans()):
        cfg["sscp_conv_kernel_size"] = [[draw(st.integers(0, 4)), draw(st.integers(0, 3))] for _ in range(2)]
    if draw(st.booleans()):
        cfg["sscp_conv_stride_size"] = [[draw(st.integers(0, 3)), draw(st.integers(1, 3))] for _ in range(2)]
    chunk = draw(st.integers(0, 8))
    _maybe(draw, "conf_attention_chunk_size", chunk, cfg)
    _maybe(draw, "conf_attention_context_left", draw(st.integers(0, 14)), cfg)
    _maybe(draw, "conf_attention_context_right", draw(st.integers(0, 3)), cfg)
    _maybe(draw, "conf_reduction_factor", draw(st.integers(1, 4)), cfg)
    cfg["architectures"] = ["Gemma3nAudioEncoder"]
    return cfg


STRATEGIES["gemma3n_text"] = gemma3n_text_config
STRATEGIES["gemma3n_audio"] = gemma3n_audio_config
