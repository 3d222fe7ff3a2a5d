"""Gemma 3n's text model (gemma3n_text: Gemma3nForCausalLM, Gemma3nTextModel), without torch: small configs counted
by hand (each total also what transformers 5.25 builds on the meta device), the class defaults' total (taken there
once), configs its config class refuses, the KV cache the memory estimate holds (layers that reuse an earlier layer's
keys and values hold none) and the LoRA module names of its runs of layers."""

from __future__ import annotations

from config_models import errors
from config_models import model as count

from lsp_count.core.memory import Settings, estimate_memory
from lsp_count.formats.common import lora_layer_indices

# vocab 50, hidden 8, 4 layers (default types: every fifth full, so all four sliding) of 2 heads 4 wide and 1
# key/value head, MLPs 12 wide, a per-layer vocabulary of 30 and per-layer inputs 2 wide, Laurel of rank 3, AltUp of
# 3 predictions, no KV sharing; tied.
BASE = {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"], "vocab_size": 50, "hidden_size": 8,
        "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
        "intermediate_size": 12, "vocab_size_per_layer_input": 30, "hidden_size_per_layer_input": 2,
        "laurel_rank": 3, "altup_num_inputs": 3, "num_kv_shared_layers": 0}
EMBED = 50 * 8 + 30 * (4 * 2)  # embed_tokens; embed_tokens_per_layer (layers × per-layer width) = 640
PER_LAYER_MODEL = 8 * (4 * 2) + 2  # per_layer_model_projection, per_layer_projection_norm = 66
ALTUP_MODEL = 2 * (3 - 1) * 8 * 8  # altup_projections and altup_unembed_projections, 2 each = 256
OWN_KV = 4  # k_norm (v_norm has no weight)
KV = 8 * 4 + 8 * 4 + OWN_KV  # k_proj, v_proj, k_norm = 68
ATTN = 8 * 8 + 4 + KV + 8 * 8  # q_proj, q_norm, (k, v, k_norm), o_proj = 200
MLP = 3 * 8 * 12  # gate, up, down = 288
ALTUP = 8 + 3 * 3 + 3 * 9 + 8 * 3 + 8  # correct_output_scale, correction_coefs, prediction_coefs, router, its norm = 76
LAUREL = 8 * 3 + 3 * 8 + 8  # linear_left, linear_right, post_laurel_norm = 56
PER_LAYER = 8 * 2 + 2 * 8 + 8  # per_layer_input_gate, per_layer_projection, post_per_layer_input_norm = 40
NORMS = 4 * 8
LAYER = ATTN + MLP + ALTUP + LAUREL + PER_LAYER + NORMS  # 692
FINAL = 8
BASE_PARAMS = EMBED + PER_LAYER_MODEL + ALTUP_MODEL + 4 * LAYER + FINAL  # 3,738


def test_a_small_config_by_hand() -> None:
    assert (LAYER, BASE_PARAMS) == (692, 3738)
    assert count(BASE).tree.total == 3738
    assert count({**BASE, "tie_word_embeddings": False}).tree.total == 3738 + 50 * 8
    assert count({**BASE, "architectures": ["Gemma3nTextModel"], "tie_word_embeddings": False}).tree.total == 3738
    assert count({**BASE, "attention_bias": True}).tree.total == 3738 + 4 * (8 + 4 + 4 + 8)  # q, k, v, o biases


def test_kv_sharing_layers_have_no_keys_and_values_of_their_own() -> None:
    # The last two layers reuse layer 1's keys and values: no k_proj, v_proj, k_norm.
    assert count({**BASE, "num_kv_shared_layers": 2}).tree.total == 3738 - 2 * KV == 3602
    # More sharing layers than layers (5 of 4): kv_sharing_modes indexes from the end (modes[-2]): layer 2 keeps its own.
    assert count({**BASE, "num_kv_shared_layers": 5}).tree.total == 3738 - 3 * KV == 3534


def test_an_mlp_width_per_layer() -> None:
    assert count({**BASE, "intermediate_size": [1, 2, 2, 4]}).tree.total == 3738 - MLP * 4 + 3 * 8 * (1 + 2 + 2 + 4)


def test_altup_laurel_and_per_layer_inputs_at_zero() -> None:
    # No AltUp predictions: no projections, and each layer's AltUp is its two hidden-wide vectors and its router of 0.
    assert count({**BASE, "altup_num_inputs": 0}).tree.total == 3738 - ALTUP_MODEL - 4 * (ALTUP - 16) == 3242
    assert count({**BASE, "laurel_rank": 0}).tree.total == 3738 - 4 * (LAUREL - 8)
    # 0-wide per-layer inputs: the embedding and the projections hold nothing; the norms stay.
    assert count({**BASE, "hidden_size_per_layer_input": 0}).tree.total == \
        3738 - 30 * 8 - (8 * 8 + 2) - 4 * (PER_LAYER - 8) == 3304
    assert count({**BASE, "num_hidden_layers": 0}).tree.total == 50 * 8 + 2 + ALTUP_MODEL + FINAL == 666


def test_class_defaults() -> None:
    # Gemma3nTextConfig() on the meta device: 6,835,235,568 (Gemma3nForCausalLM, tied; Gemma3nTextModel the same).
    assert count({"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"]}).tree.total == 6_835_235_568
    assert count({"model_type": "gemma3n_text", "architectures": ["Gemma3nTextModel"]}).tree.total == 6_835_235_568


def test_configs_transformers_refuses() -> None:
    # Every layer the sharing layers' types must appear among the earlier layers (kv_sharing_modes).
    assert errors({**BASE, "num_kv_shared_layers": 4})
    assert errors({**BASE, "num_kv_shared_layers": -1})
    assert errors({**BASE, "intermediate_size": [1, 2, 3]})
    assert errors({**BASE, "intermediate_size": [1.0, 2, 3, 4]})
    assert errors({**BASE, "intermediate_size": None})
    assert errors({**BASE, "activation_sparsity_pattern": [0.5, 0.5, 0.5]})
    assert errors({**BASE, "activation_sparsity_pattern": [1, 0.5, 0.0, 0.0]})  # (floats alone)
    assert errors({**BASE, "activation_sparsity_pattern": 0.5})
    assert not errors({**BASE, "activation_sparsity_pattern": [0.95, 0.5, 0.0, 0.0]})
    assert errors({**BASE, "layer_types": ["sliding_attention"] * 3})
    # Another layer type transformers takes builds where rope_parameters has an entry for it (with a rope_theta).
    chunked = {**BASE, "layer_types": ["chunked_attention"] + ["sliding_attention"] * 3}
    assert errors(chunked)
    assert errors({**chunked, "rope_parameters": {"chunked_attention": {"rope_type": "default"}}})
    assert count({**chunked, "rope_parameters": {"chunked_attention": {"rope_theta": 10.0}}}).tree.total == 3738
    assert errors({**BASE, "layer_types": ["mlp"] + ["sliding_attention"] * 3, "rope_parameters": {"mlp": None}})
    assert errors({**BASE, "pad_token_id": 40})  # outside the per-layer vocabulary (30)
    assert errors({**BASE, "hidden_size": 9})  # 2 heads do not divide it, head_dim or not
    assert errors({**BASE, "final_logit_softcapping": 30})
    assert errors({**BASE, "final_logit_softcapping": None})
    assert errors({**BASE, "head_dim": 5, "hidden_size": 10, "num_hidden_layers": 0})  # an odd head turned whole


def _kv(config: dict, context: int, batch: int = 1) -> int:
    line = estimate_memory(count(config), Settings(context=context, batch=batch)).line("kv_cache")
    assert line is not None and line.exact
    return line.bytes


def test_the_kv_cache() -> None:
    # bfloat16: each layer 2 × 1 head × 4 × tokens × 2 bytes; the sliding window (512) caps the tokens.
    assert _kv(BASE, 100) == 4 * 2 * 4 * 100 * 2 == 6400
    assert _kv(BASE, 1000) == 4 * 2 * 4 * 512 * 2
    # The two sharing layers cache nothing; a full layer holds the whole context.
    assert _kv({**BASE, "num_kv_shared_layers": 2}, 100, batch=3) == 3 * 2 * 2 * 4 * 100 * 2
    full = {**BASE, "layer_types": ["sliding_attention", "full_attention"] * 2, "sliding_window": 16}
    assert _kv(full, 100) == 2 * (2 * 4 * 16 * 2) + 2 * (2 * 4 * 100 * 2)


def test_runs_of_layers_are_numbered_for_lora() -> None:
    shared = count({**BASE, "num_kv_shared_layers": 2})
    assert [c.name for c in shared.tree.root.children if c.name == "layers"] == ["layers"]
    assert lora_layer_indices(shared.spec) == {"0-1": (0, 1), "2-3": (2, 3)}
    assert lora_layer_indices(count(BASE).spec) == {}  # one run: the usual "layers" node


# --- the audio encoder (gemma3n_audio: Gemma3nAudioEncoder) ---------------------------------------------------------

# hidden 8, 2 heads (4 wide), 1 conformer block, 10 mel channels, subsampling channels 4 and 2 (3×3 kernels, stride
# 2: 10 frequencies padded to 12 → 5, padded to 7 → 3), a depthwise kernel of 3.
AUDIO = {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 8,
         "conf_num_hidden_layers": 1, "conf_num_attention_heads": 2, "input_feat_size": 10,
         "sscp_conv_channel_size": [4, 2], "conf_conv_kernel_size": 3}
SUBSAMPLING = 4 * 1 * 3 * 3 + 4 + 2 * 4 * 3 * 3 + 2 + (2 * 3) * 8  # two convs, their norms, input_proj_linear = 162
FEED_FORWARD = 8 + 8 * 32 + 32 * 8 + 8  # pre norm, ffw_layer_1, ffw_layer_2 (4 × wide), post norm = 528
AUDIO_ATTENTION = 8 + 8 * 8 + 4 + 3 * 8 * 8 + 8 * 8 + 8  # norm, pos_proj, per_dim_scale, q/k/v, post, post_norm = 340
LCONV = 8 + 8 * 16 + 8 * 1 * 3 + 8 + 8 * 8  # pre norm, linear_start, depthwise conv, conv_norm, linear_end = 232
BLOCK = 2 * FEED_FORWARD + AUDIO_ATTENTION + LCONV + 8  # ... and the block's norm = 1,636


def test_the_audio_encoder_by_hand() -> None:
    assert (SUBSAMPLING, BLOCK) == (162, 1636)
    assert count(AUDIO).tree.total == SUBSAMPLING + BLOCK == 1798
    assert count({**AUDIO, "conf_num_hidden_layers": 0}).tree.total == 162
    # 3 heads of a width of 8: each 2 wide, q/k/v and pos_proj 6 wide, per_dim_scale 2.
    assert count({**AUDIO, "conf_num_attention_heads": 3}).tree.total == 1798 - 4 * 8 * 2 - 2 == 1732
    # A third channel count: input_proj_linear takes the last (3 × 3 frequencies), the convolutions the first two.
    assert count({**AUDIO, "sscp_conv_channel_size": [4, 2, 3]}).tree.total == 1798 + 3 * 8
    # A frequency kernel of 8 in the second convolution: 5 padded to 7 → 0 frequencies left; its weight 2 × 4 × 3 × 8.
    assert count({**AUDIO, "sscp_conv_kernel_size": [[3, 3], [3, 8]]}).tree.total == 1798 + 2 * 4 * 3 * 5 - 48 == 1870


def test_audio_class_defaults() -> None:
    # Gemma3nAudioConfig() on the meta device: 681,348,640.
    assert count({"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"]}).tree.total == 681_348_640


def test_audio_configs_transformers_refuses() -> None:
    assert errors({**AUDIO, "conf_num_attention_heads": 9})  # heads 0 wide
    assert not errors({**AUDIO, "conf_num_attention_heads": 9, "conf_num_hidden_layers": 0})  # (no block built)
    assert errors({**AUDIO, "sscp_conv_channel_size": [4]})
    assert errors({**AUDIO, "sscp_conv_kernel_size": [[3, 3], [3, 30]]})  # a negative number of frequencies
    assert errors({**AUDIO, "sscp_conv_kernel_size": [[3.0, 3], [3, 3]]})
    assert errors({**AUDIO, "sscp_conv_stride_size": [[2, 2], [2, 0]]})  # the frequencies divided by 0
    assert not errors({**AUDIO, "sscp_conv_stride_size": [[0, 2], [2, 2]]})  # (the time stride is not read so)
    assert errors({**AUDIO, "conf_attention_chunk_size": -1})
    assert errors({**AUDIO, "conf_attention_chunk_size": 0, "conf_attention_context_left": 0,
                   "conf_attention_context_right": -1})
    assert errors({**AUDIO, "conf_conv_kernel_size": -1})
