"""Llama 3.2 Vision (mllama) and its towers (mllama_text_model, mllama_vision_model) without torch.

Every total here is counted by hand below; the class defaults are what transformers 5.25 builds on the meta
device (taken there once), and tests/parity checks random configs of each family against it (and the KV cache
against what transformers' cache holds: tests/parity/test_mllama_cache_parity.py).
"""

from __future__ import annotations

from config_models import errors, model

from lsp_count.core.memory import Settings, estimate_memory

# A small text model: 16 wide, 3 layers of 2 heads 8 wide (one kv head), MLP 32, vocab 64; layer 1 cross-attends.
TEXT = {"vocab_size": 64, "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 32, "pad_token_id": 0, "cross_attention_layers": [1]}
# q 16·16, k and v 16·8, o 16·16 (no biases), gate / up / down 16·32, two RMSNorms of 16
SELF_LAYER = 256 + 2 * 128 + 256 + 3 * 16 * 32 + 2 * 16
assert SELF_LAYER == 2_336
# the same projections, q_norm and k_norm over the head width (8 each), cross_attn_attn_gate, cross_attn_mlp_gate
CROSS_LAYER = SELF_LAYER + 2 * 8 + 2
EMBED = (64 + 8) * 16  # embed_tokens: 8 rows more than the vocabulary
TEXT_TOTAL = EMBED + 2 * SELF_LAYER + CROSS_LAYER + 16  # + the final norm
assert TEXT_TOTAL == 8_194
HEAD = 64 * 16  # lm_head: never tied

# A small tower: 8 wide (2 heads), 2 local layers and 1 global, MLP 16, 28-pixel tiles of 14-pixel patches
# (4 patches + the class token), 4 tiles, the 8 default aspect ratios.
VISION = {"hidden_size": 8, "num_hidden_layers": 2, "num_global_layers": 1, "attention_heads": 2,
          "intermediate_size": 16, "vision_output_dim": 24, "image_size": 28, "patch_size": 14}
# q/k/v/o_proj 8·8, fc1 8·16 + 16, fc2 16·8 + 8, two LayerNorms of 8 (weight and bias)
VISION_LAYER = 4 * 64 + (128 + 16) + (128 + 8) + 2 * 16
assert VISION_LAYER == 568
POSITIONS = 2 * 2 + 1
EMBEDDINGS = (8  # class_embedding
              + 1 + POSITIONS * 8 + (8 + 1) * 4 * POSITIONS * 8  # gated_positional_embedding: gate, positions, tiles
              + 2 * ((8 + 1) * 4 * 8 + 1))  # pre_ / post_tile_positional_embedding: a row per ratio (and padding), gate
VISION_TOTAL = 8 * 3 * 14 * 14 + EMBEDDINGS + 2 * 16 + 2 * VISION_LAYER + (VISION_LAYER + 2)
assert VISION_TOTAL == 8_509
PROJECTOR = 24 * 16 + 16  # vision_output_dim → the text model's width, with a bias

MLLAMA = {"model_type": "mllama", "architectures": ["MllamaForConditionalGeneration"], "text_config": dict(TEXT),
          "vision_config": dict(VISION)}
TOTAL = VISION_TOTAL + TEXT_TOTAL + PROJECTOR + HEAD
assert TOTAL == 18_127


def test_mllama_counts_its_vision_tower_text_model_projector_and_head() -> None:
    m = model(MLLAMA)
    assert m.tree.total == TOTAL
    root = m.tree.root
    assert root.child("vision_model").total == VISION_TOTAL and root.child("vision_model").note == "mllama_vision_model"
    assert root.child("language_model").total == TEXT_TOTAL
    assert root.child("projector").total == PROJECTOR
    layers = root.child("language_model").child("layers")
    assert layers.child("cross_attention_layers").total == CROSS_LAYER
    assert layers.child("dense_layers").repeat == 2
    assert model({**MLLAMA, "architectures": ["MllamaModel"]}).tree.total == TOTAL - HEAD


def test_nothing_ties_the_head() -> None:
    for keys in ({"tie_word_embeddings": True}, {"text_config": {**TEXT, "tie_word_embeddings": True}}):
        assert model({**MLLAMA, **keys}).tree.total == TOTAL
    causal = {"model_type": "mllama_text_model", "architectures": ["MllamaForCausalLM"], **TEXT}
    assert model(causal).tree.total == TEXT_TOTAL + HEAD
    assert model({**causal, "tie_word_embeddings": True}).tree.total == TEXT_TOTAL + HEAD
    assert model({**causal, "architectures": ["MllamaTextModel"]}).tree.total == TEXT_TOTAL


def test_cross_attention_layers() -> None:
    causal = {"model_type": "mllama_text_model", "architectures": ["MllamaTextModel"], **TEXT}
    # numbers past the stack name no layer, and one listed twice is one layer
    assert model({**causal, "cross_attention_layers": [1, 1, 7]}).tree.total == TEXT_TOTAL
    assert model({**causal, "cross_attention_layers": []}).tree.total == TEXT_TOTAL - (CROSS_LAYER - SELF_LAYER)
    # left out (or null): the class's [3, 8, 13, ...], none of which a 3-layer stack has
    default = {k: v for k, v in causal.items() if k != "cross_attention_layers"}
    assert model(default).tree.total == TEXT_TOTAL - (CROSS_LAYER - SELF_LAYER)
    assert model({**causal, "cross_attention_layers": None}).tree.total == TEXT_TOTAL - (CROSS_LAYER - SELF_LAYER)


def test_the_vision_tower_alone() -> None:
    tower = {"model_type": "mllama_vision_model", "architectures": ["MllamaVisionModel"], **VISION}
    assert model(tower).tree.total == VISION_TOTAL
    # num_attention_heads is attention_heads (attribute_map); no global layers; 2 aspect ratios of 2 tiles
    assert model({**tower, "num_attention_heads": 2}).tree.total == VISION_TOTAL
    assert model({**tower, "num_global_layers": 0}).tree.total == VISION_TOTAL - VISION_LAYER - 2
    ratios = model({**tower, "supported_aspect_ratios": [[1, 1], [1, 2]], "max_num_tiles": 2}).tree.total
    assert ratios == VISION_TOTAL - EMBEDDINGS + 8 + 1 + POSITIONS * 8 + 3 * 2 * POSITIONS * 8 + 2 * (3 * 2 * 8 + 1)


def test_bad_configs() -> None:
    # the class's pad_token_id (128004) is outside a small vocabulary's embedding; vocab_size + 7 is inside
    text = {k: v for k, v in TEXT.items() if k != "pad_token_id"}
    (problem,) = errors({**MLLAMA, "text_config": text})
    assert "128004" in problem.message and "vocab_size 64 + 8" in problem.message
    assert model({**MLLAMA, "text_config": {**TEXT, "pad_token_id": 71}}).tree.total == TOTAL
    assert errors({**MLLAMA, "text_config": {**TEXT, "pad_token_id": 72}})
    # the default aspect ratios go with 4 tiles only
    (problem,) = errors({**MLLAMA, "vision_config": {**VISION, "max_num_tiles": 2}})
    assert "max_num_tiles 2" in problem.message
    assert errors({**MLLAMA, "vision_config": {**VISION, "supported_aspect_ratios": [1, 2]}})
    assert errors({**MLLAMA, "vision_config": {**VISION, "attention_heads": 9}})


def test_the_kv_cache_holds_the_image_in_the_cross_attention_layers() -> None:
    settings = Settings(mode="inference", context=1024, batch=2)
    per_position = 2 * 1 * 8 * 2  # K and V × 1 kv head × 8 wide × 2 bytes
    # 2 self-attention layers over 1,024 tokens, the cross-attention layer over one image: 4 tiles × 5 positions
    line = estimate_memory(model(MLLAMA), settings).line("kv_cache")
    assert line is not None and line.bytes == (2 * 1024 + 4 * POSITIONS) * per_position * 2
    # the text model alone runs no image: its cross-attention layers cache nothing
    causal = {"model_type": "mllama_text_model", "architectures": ["MllamaForCausalLM"], **TEXT}
    line = estimate_memory(model(causal), settings).line("kv_cache")
    assert line is not None and line.bytes == 2 * 1024 * per_position * 2


def test_class_defaults() -> None:
    # transformers 5.25 on the meta device (Llama-3.2-11B-Vision's sizes)
    assert model({"model_type": "mllama", "architectures": ["MllamaForConditionalGeneration"]}).tree.total == \
        10_642_941_475
    assert model({"model_type": "mllama_text_model", "architectures": ["MllamaForCausalLM"]}).tree.total == \
        9_775_192_080
    assert model({"model_type": "mllama_vision_model", "architectures": ["MllamaVisionModel"]}).tree.total == \
        836_288_019
