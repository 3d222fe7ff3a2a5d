"""Qwen3-VL and Qwen3-VL-MoE (qwen3_vl, qwen3_vl_moe, their text models and vision towers), on small
literal configs counted by hand: the vision tower (a Conv3d with a bias, the learned pos_embed, LayerNorm
blocks with a linear_fc1 / linear_fc2 MLP, the merger and one DeepStack merger per index), the Qwen3-like
text model (q/k norms over the head width), nested text configs only (top-level text keys are not read),
the head tied by the composite's tie_word_embeddings alone, the MoE model's active count, and the memory
estimate's training activations over the language model's layers. tests/parity checks every family
against transformers (class defaults, random configs, nulls, floats, LoRA)."""

from __future__ import annotations

import json

from config_models import analyze, errors, model

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

TEXT = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
        "intermediate_size": 32, "vocab_size": 64}
VISION = {"depth": 3, "hidden_size": 8, "num_heads": 2, "intermediate_size": 16, "out_hidden_size": 16,
          "num_position_embeddings": 4, "deepstack_visual_indexes": [0, 2]}
QWEN3_VL = {"model_type": "qwen3_vl", "architectures": ["Qwen3VLForConditionalGeneration"], "text_config": TEXT,
            "vision_config": VISION, "torch_dtype": "bfloat16"}

# By hand. The text model: embed_tokens, 2 layers (q 16×16, k and v 16×8, o 16×16; q_norm and k_norm 8 each;
# gate/up/down 16×32; two RMSNorms), the final norm.
LAYER = (256 + 128 + 128 + 256) + 2 * 8 + 3 * 16 * 32 + 2 * 16
TEXT_PARAMS = 64 * 16 + 2 * LAYER + 16
# The vision tower: Conv3d 3 channels × 2 frames × 16 × 16 into 8 (and its bias), pos_embed 4 × 8, 3 blocks
# (qkv 8 → 24, proj, linear_fc1 8 → 16, linear_fc2, two LayerNorms; biases everywhere), the merger (a LayerNorm
# over 8, 32 → 32 → 16 with biases) and two DeepStack mergers (their LayerNorm over the 32 merged).
BLOCK = (8 * 24 + 24) + (8 * 8 + 8) + (8 * 16 + 16) + (16 * 8 + 8) + 2 * (8 + 8)
MERGER_LINEARS = (32 * 32 + 32) + (32 * 16 + 16)
DEEPSTACK_MERGER = 2 * 32 + MERGER_LINEARS
VISION_PARAMS = (8 * 3 * 2 * 16 * 16 + 8) + 4 * 8 + 3 * BLOCK + (2 * 8 + MERGER_LINEARS) + 2 * DEEPSTACK_MERGER
HEAD = 64 * 16
TOTAL = TEXT_PARAMS + VISION_PARAMS + HEAD  # 25,792, as transformers 5.25 counts it

# Qwen3-VL-MoE: every layer an MoE block of 4 experts (8 wide) and a router; head_dim from the width (16 / 2).
MOE_TEXT = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
            "intermediate_size": 32, "vocab_size": 64, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 8}
MOE_VISION = {**VISION, "depth": 2, "deepstack_visual_indexes": [1]}
QWEN3_VL_MOE = {"model_type": "qwen3_vl_moe", "architectures": ["Qwen3VLMoeForConditionalGeneration"],
                "text_config": MOE_TEXT, "vision_config": MOE_VISION, "torch_dtype": "bfloat16"}
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj and down_proj of one expert
MOE_LAYER = (256 + 128 + 128 + 256) + 2 * 8 + 2 * 16 + 4 * 16 + 4 * EXPERT
MOE_TOTAL = (64 * 16 + 2 * MOE_LAYER + 16) + ((8 * 3 * 2 * 16 * 16 + 8) + 4 * 8 + 2 * BLOCK + (2 * 8 + MERGER_LINEARS)
                                              + DEEPSTACK_MERGER) + HEAD  # 23,672
MOE_ACTIVE = MOE_TOTAL - 2 * 2 * EXPERT  # two of the four experts run per token


def test_qwen3_vl_counts_its_vision_tower_text_model_and_head() -> None:
    tree = model(QWEN3_VL).tree
    assert tree.total == TOTAL == 25_792
    assert tree.root.child("visual").total == VISION_PARAMS
    assert tree.root.child("language_model").total == TEXT_PARAMS
    assert tree.root.child("language_model").note == "qwen3_vl_text"
    assert model({**QWEN3_VL, "architectures": ["Qwen3VLModel"]}).tree.total == TOTAL - HEAD


def test_each_deepstack_index_adds_a_merger_whatever_it_is() -> None:
    for indexes, mergers in (([], 0), ([5], 1), ([8, 16, 24], 3)):
        config = {**QWEN3_VL, "vision_config": {**VISION, "deepstack_visual_indexes": indexes}}
        assert model(config).tree.total == TOTAL + (mergers - 2) * DEEPSTACK_MERGER, indexes
    # Left out: Qwen3VLVisionConfig's (8, 16, 24), three mergers.
    unset = {k: v for k, v in VISION.items() if k != "deepstack_visual_indexes"}
    assert model({**QWEN3_VL, "vision_config": unset}).tree.total == TOTAL + DEEPSTACK_MERGER
    assert errors({**QWEN3_VL, "vision_config": {**VISION, "deepstack_visual_indexes": None}})


def test_the_text_model_is_read_from_text_config_only() -> None:
    # Qwen3VLConfig has no flat form (unlike Qwen2-VL's): text keys at the top level are not read.
    flat_beside = {**QWEN3_VL, "hidden_size": 64, "num_hidden_layers": 5, "vocab_size": 100}
    assert model(flat_beside).tree.total == TOTAL
    flat_only = {k: v for k, v in flat_beside.items() if k != "text_config"}
    no_text = {k: v for k, v in QWEN3_VL.items() if k != "text_config"}
    defaults = model(no_text).tree.total  # Qwen3VLTextConfig's defaults (4096 wide, 32 layers)
    assert model(flat_only).tree.total == defaults == model({**QWEN3_VL, "text_config": None}).tree.total
    assert defaults > 10**10


def test_the_text_config_is_the_familys_whatever_model_type_it_names() -> None:
    for kind in ("qwen3", "qwen3_vl_text", "llama"):
        tree = model({**QWEN3_VL, "text_config": {**TEXT, "model_type": kind}}).tree
        assert tree.total == TOTAL and tree.root.child("language_model").note == "qwen3_vl_text", kind
    # Old checkpoints name the vision config after the composite.
    for kind in ("qwen3_vl", "qwen3_vl_vision", "qwen2_vl"):
        assert model({**QWEN3_VL, "vision_config": {**VISION, "model_type": kind}}).tree.total == TOTAL, kind


def test_only_the_composites_tie_word_embeddings_ties_the_head() -> None:
    assert model({**QWEN3_VL, "tie_word_embeddings": True}).tree.total == TOTAL - HEAD
    # text_config's is not forwarded (Qwen2-VL's is): the Qwen3-VL-MoE text config even defaults it to true.
    tied_text = {**QWEN3_VL, "text_config": {**TEXT, "tie_word_embeddings": True}}
    assert model(tied_text).tree.total == TOTAL
    assert model({**tied_text, "tie_word_embeddings": False}).tree.total == TOTAL


def test_the_vision_tower_alone_and_its_aliases() -> None:
    tower = model({"model_type": "qwen3_vl_vision", "architectures": ["Qwen3VLVisionModel"], **VISION}).tree
    assert tower.total == VISION_PARAMS
    moe_tower = model({"model_type": "qwen3_vl_moe_vision", "architectures": ["Qwen3VLMoeVisionModel"], **VISION})
    assert moe_tower.tree.total == VISION_PARAMS
    # attribute_map: num_hidden_layers sets depth (and wins beside it); in_chans is no key of the class.
    two = {**QWEN3_VL, "vision_config": {**VISION, "num_hidden_layers": 2}}
    assert model(two).tree.total == TOTAL - BLOCK
    assert model({**QWEN3_VL, "vision_config": {**VISION, "in_chans": 1}}).tree.total == TOTAL
    one = {**QWEN3_VL, "vision_config": {**VISION, "in_channels": 1}}
    assert model(one).tree.total == TOTAL - 8 * 2 * 2 * 16 * 16


def test_bad_vision_configs() -> None:
    problems = errors({**QWEN3_VL, "vision_config": {**VISION, "num_heads": 9}})
    assert problems and "num_heads (9)" in problems[0].message and "hidden_size (8)" in problems[0].message
    report = analyze({**QWEN3_VL, "vision_config": {**VISION, "out_hidden_size": 24}})
    assert not report.has_errors
    assert any(p.code == "LC103" and "out_hidden_size (24)" in p.message for p in report.problems)


def test_the_moe_model_counts_its_experts_and_the_active_part() -> None:
    tree = model(QWEN3_VL_MOE).tree
    assert tree.total == MOE_TOTAL == 23_672
    assert tree.active == MOE_ACTIVE
    assert tree.root.child("language_model").note == "qwen3_vl_moe_text"
    # num_local_experts is the same key (attribute_map); mlp_only_layers and decoder_sparse_step make layers dense.
    alias = {**MOE_TEXT, "num_local_experts": 4}
    del alias["num_experts"]
    assert model({**QWEN3_VL_MOE, "text_config": alias}).tree.total == MOE_TOTAL
    dense_layer = (64 * 16 + 2 * MOE_LAYER + 16) - MOE_LAYER + (MOE_LAYER - 4 * 16 - 4 * EXPERT + 3 * 16 * 32)
    for change in ({"mlp_only_layers": [0]}, {"decoder_sparse_step": 2}):
        config = {**QWEN3_VL_MOE, "text_config": {**MOE_TEXT, **change}}
        assert model(config).tree.root.child("language_model").total == dense_layer, change
    # A null num_key_value_heads is refused (a plain int there), as a null head_dim is the width over the heads.
    assert errors({**QWEN3_VL_MOE, "text_config": {**MOE_TEXT, "num_key_value_heads": None}})
    assert model({**QWEN3_VL_MOE, "text_config": {**MOE_TEXT, "head_dim": None}}).tree.total == MOE_TOTAL


def test_training_activations_run_through_the_language_models_layers() -> None:
    for config, text_type in ((QWEN3_VL, "qwen3_vl_text"), (QWEN3_VL_MOE, "qwen3_vl_moe_text")):
        composite = analyze_text(json.dumps(config), "config.json").models[0]
        text_only = model({**config["text_config"], "model_type": text_type, "torch_dtype": "bfloat16"})
        settings = Settings(mode="train", context=256, batch=2)
        ours = estimate_memory(composite, settings).line("activations")
        alone = estimate_memory(text_only, settings).line("activations")
        assert ours is not None and alone is not None
        assert ours.bytes == alone.bytes, text_type
        assert "the language model's; the vision tower's, over image patches, are not counted" in ours.detail
