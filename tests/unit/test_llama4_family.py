"""Llama 4's composite (llama4: Llama4ForConditionalGeneration, the released checkpoints' config.json) and its vision
tower alone (llama4_vision_model: Llama4VisionModel), without torch: small configs counted by hand (each total also
what transformers 5.25 builds on the meta device), the class defaults' totals (taken there once), configs
transformers refuses or cannot build, and the KV cache (the text model's: chunked and NoPE layers as llama4_text's)."""

from __future__ import annotations

from config_models import analyze, errors
from config_models import model as count

from lsp_count.core.memory import Settings, estimate_memory

# The tower: 2 layers 12 wide of 3 heads (each 4 wide), an MLP 16 wide, 3 channels, 28-pixel images of 14-pixel
# patches, the adapter's fc1 to 8 and fc2 6 × 6.
VISION = {"num_hidden_layers": 2, "hidden_size": 12, "intermediate_size": 16, "num_attention_heads": 3,
          "projector_input_dim": 8, "projector_output_dim": 6, "vision_output_dim": 10, "image_size": 28,
          "patch_size": 14}
PATCH = 3 * 14 * 14 * 12  # the unfold patch embedding's linear, no bias = 7,056
EMBEDDINGS = 12 + ((28 // 14) ** 2 + 1) * 12  # class_embedding, positional_embedding_vlm (5 positions) = 72
LAYERNORMS = 2 * (12 + 12)  # layernorm_pre, layernorm_post = 48
VISION_LAYER = 4 * (12 * 12 + 12) + (12 * 16 + 16) + (16 * 12 + 12) + 2 * (12 + 12)  # q/k/v/o, fc1, fc2, 2 norms
ADAPTER = 16 * 8 + 6 * 6  # vision_adapter.mlp.fc1 (from intermediate_size), fc2; no biases = 164
VISION_PARAMS = PATCH + EMBEDDINGS + LAYERNORMS + 2 * VISION_LAYER + ADAPTER

# The text model: 4 layers 16 wide, 2 heads and 1 key/value head of 8; every second layer (1 and 3) MoE of 3 experts
# 8 wide with a shared expert as wide and an nn.Linear router; layers 0 and 2 dense, 24 wide; vocab 50.
TEXT = {"num_hidden_layers": 4, "vocab_size": 50, "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1,
        "head_dim": 8, "intermediate_size": 8, "intermediate_size_mlp": 24, "num_local_experts": 3,
        "interleave_moe_layer_step": 2, "pad_token_id": 0}
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o (its qk norm has no weight) = 768
NORMS = 2 * 16
DENSE = 3 * 16 * 24
MOE = 3 * 16 * 2 * 8 + 3 * 8 * 16 + 16 * 3 + 3 * 16 * 8  # experts' gate_up and down, router, shared expert = 1,584
TEXT_MODEL = 50 * 16 + 4 * (ATTENTION + NORMS) + 2 * DENSE + 2 * MOE + 16  # embed_tokens ... final norm
LM_HEAD = 16 * 50
PROJECTOR = 10 * 16  # multi_modal_projector.linear_1: vision_output_dim → the text width, no bias

LLAMA4 = {"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"], "vision_config": VISION,
          "text_config": TEXT}


def test_the_vision_tower_by_hand() -> None:
    assert VISION_PARAMS == 9508
    assert count({"model_type": "llama4_vision_model", **VISION}).tree.total == 9508
    # No layers and one channel: the patch embedding 1 × 14 × 14 × 12, the rest but the layers as before.
    assert count({"model_type": "llama4_vision_model", **VISION, "num_hidden_layers": 0,
                  "num_channels": 1}).tree.total == 9508 - 2 * VISION_LAYER - 2 * 14 * 14 * 12
    # Heads need not divide the width: 5 heads of 12 // 5 = 2, q/k/v 12 → 10 and o 10 → 12.
    five = {"model_type": "llama4_vision_model", **VISION, "num_attention_heads": 5}
    assert count(five).tree.total == 9508 - 2 * (4 * (12 * 12 + 12) - 3 * (12 * 10 + 10) - (10 * 12 + 12)) == 9304


def test_the_composite_by_hand() -> None:
    assert TEXT_MODEL == 9488
    assert count(LLAMA4).tree.total == VISION_PARAMS + PROJECTOR + TEXT_MODEL + LM_HEAD == 19956
    # text_config's tie_word_embeddings ties the head; the composite's own is not read.
    assert count({**LLAMA4, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == 19956 - LM_HEAD
    assert count({**LLAMA4, "tie_word_embeddings": True}).tree.total == 19956
    # The sub-configs are always Llama 4's own classes, whatever model_type they name.
    assert count({**LLAMA4, "text_config": {**TEXT, "model_type": "llama"},
                  "vision_config": {**VISION, "model_type": "clip_vision_model"}}).tree.total == 19956


def test_the_composite_active_parameters() -> None:
    # A token uses 1 of the 3 experts in each MoE layer.
    tree = count(LLAMA4).tree
    assert tree.active == 19956 - 2 * 2 * (16 * 2 * 8 + 8 * 16)


def test_class_defaults_are_transformers_totals() -> None:
    # Llama4Config's defaults (its docs' checkpoint meta-llama/Llama-4-Scout-17B-16E: the text model's 48 MoE layers
    # of 16 experts), with Llama4VisionConfig's 768-wide tower, as transformers 5.25 builds them on the meta device.
    assert count({"model_type": "llama4"}).tree.total == 108_225_039_360
    assert count({"model_type": "llama4_vision_model"}).tree.total == 415_856_640
    # The composite is the text model (llama4_text's class defaults), the tower and the projector (7,680 → 5,120).
    assert 108_225_039_360 == 107_769_861_120 + 415_856_640 + 7680 * 5120


def test_configs_transformers_refuses() -> None:
    vision = {"model_type": "llama4_vision_model", **VISION}
    assert errors({**vision, "image_size": 10})  # no patch fits: the rotary embedding indexes none
    assert errors({**vision, "num_attention_heads": 13})  # heads 0 wide
    assert errors({**vision, "pixel_shuffle_ratio": 1})  # a float only
    assert errors({**vision, "pixel_shuffle_ratio": 0.0})  # the adapter divides by its square
    assert not errors({**vision, "pixel_shuffle_ratio": 2.0})
    assert errors({**vision, "patch_size": [14, 14]})
    # Its config class's RoPE check fails on the types reading max_position_embeddings; its rotary embedding reads
    # rope_theta alone.
    assert errors({**vision, "rope_parameters": {"rope_type": "yarn", "factor": 2.0,
                                                 "original_max_position_embeddings": 16}})
    assert errors({**vision, "rope_parameters": {"rope_type": "default", "rope_theta": None}})
    assert not errors({**vision, "rope_parameters": {"rope_type": "linear", "factor": 2.0}})
    assert errors({**LLAMA4, "tie_word_embeddings": None})
    assert errors({**LLAMA4, "vision_config": {**VISION, "image_size": 10}})


def test_the_kv_cache_is_the_text_model_s() -> None:
    # bfloat16, 100 tokens, batch 1: layers 0-2 have rotary positions and attend in chunks (8,192 by default, more
    # than the context), layer 3 is NoPE (no_rope_layer_interval 4) and full: 4 × 2 × 1 head × 8 × 100 × 2 bytes.
    def kv(config: dict) -> int:
        line = estimate_memory(count(config), Settings(context=100, batch=1)).line("kv_cache")
        assert line is not None and line.exact
        return line.bytes

    assert kv(LLAMA4) == 4 * 2 * 8 * 100 * 2 == kv({"model_type": "llama4_text", **TEXT})
    # Chunks of 16: the three chunked layers hold 16 tokens, the NoPE one all 100.
    chunked = {**TEXT, "attention_chunk_size": 16}
    assert kv({**LLAMA4, "text_config": chunked}) == 3 * 2 * 8 * 16 * 2 + 2 * 8 * 100 * 2 \
        == kv({"model_type": "llama4_text", **chunked})


def test_a_causal_lm_architecture_is_not_the_composite_s() -> None:
    # Llama4ForCausalLM is llama4_text's class (transformers cannot build it from the composite config): named in a
    # config of model_type llama4, the composite is counted, and lsp-count says so.
    report = analyze({**LLAMA4, "architectures": ["Llama4ForCausalLM"]})
    assert report.models[0].tree.total == 19956
    assert any("Llama4ForCausalLM is not modelled" in p.message for p in report.problems)
