"""Qwen3.5 and Qwen3.5-MoE as their released checkpoints are (qwen3_5, qwen3_5_moe: Qwen3_5ForConditionalGeneration
and Qwen3_5MoeForConditionalGeneration, a vision tower and the hybrid text model), and their vision towers alone
(qwen3_5_vision, qwen3_5_moe_vision), without torch: small literal configs counted by hand (each total also what
transformers 5.25 builds on the meta device), the class defaults' totals (taken there once), the classifier heads,
the tie, the cache the memory estimate holds (the text model's: Gated DeltaNet states and the attention layers'
keys and values) and LoRA targets numbered across the layer kinds. tests/parity checks every family against
transformers (class defaults, random configs, nulls, floats, LoRA against peft)."""

from __future__ import annotations

import json

import pytest
from config_models import analyze, errors, model

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

# The text model (Qwen3_5TextModel): vocab 50, hidden 16, 3 layers (full_attention_interval 2: Gated DeltaNet,
# gated attention, Gated DeltaNet), a gated MLP 24 wide, two RMSNorms a layer, the final norm.
TEXT = {"vocab_size": 50, "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
        "num_hidden_layers": 3, "intermediate_size": 24, "full_attention_interval": 2, "linear_conv_kernel_dim": 3,
        "linear_key_head_dim": 4, "linear_value_head_dim": 6, "linear_num_key_heads": 2, "linear_num_value_heads": 4}
EMBED = 50 * 16
# Gated DeltaNet: 2 key heads of 4 (key width 8), 4 value heads of 6 (value width 24), conv kernel 3.
DELTANET = (40 * 3  # depthwise conv over q, k (2 × 8) and v (24), no bias
            + 16 * 40 + 16 * 24  # in_proj_qkv, in_proj_z
            + 16 * 4 + 16 * 4  # in_proj_b, in_proj_a: one per value head
            + 4 + 4  # dt_bias, A_log
            + 6  # the gated RMSNorm over one value head
            + 24 * 16)  # out_proj
# Gated attention: q_proj twice as wide (its output gate), k and v one head of 8, o_proj, q/k norms over a head.
ATTENTION = 16 * 2 * 16 + 16 * 8 + 16 * 8 + 16 * 16 + 8 + 8
MLP = 3 * 16 * 24  # gate, up, down
NORMS = 2 * 16
TEXT_PARAMS = EMBED + 2 * (DELTANET + MLP + NORMS) + (ATTENTION + MLP + NORMS) + 16  # 8,748

# The vision tower (Qwen3-VL's without DeepStack mergers): a Conv3d 3 channels × 2 frames × 16 × 16 into 8 with a
# bias, pos_embed 4 × 8, 2 blocks (qkv 8 → 24, proj, linear_fc1 8 → 16, linear_fc2, two LayerNorms; biases
# everywhere), the merger (a LayerNorm over one patch of 8, then 2 × 2 patches: 32 → 32 → 16, biases).
VISION = {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 16, "out_hidden_size": 16,
          "num_position_embeddings": 4}
BLOCK = (8 * 24 + 24) + (8 * 8 + 8) + (8 * 16 + 16) + (16 * 8 + 8) + 2 * (8 + 8)
MERGER = 2 * 8 + (32 * 32 + 32) + (32 * 16 + 16)
VISION_PARAMS = (8 * 3 * 2 * 16 * 16 + 8) + 4 * 8 + 2 * BLOCK + MERGER  # 15,128
HEAD = 50 * 16

QWEN3_5 = {"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"], "text_config": TEXT,
           "vision_config": VISION, "torch_dtype": "bfloat16"}
TOTAL = TEXT_PARAMS + VISION_PARAMS + HEAD

# Qwen3.5-MoE: every layer 4 experts (top 2) 8 wide, a router, a shared expert 8 wide and its gate; the head tied.
MOE_TEXT = {**{k: v for k, v in TEXT.items() if k != "intermediate_size"}, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8}
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj, down_proj of one expert
MOE_BLOCK = 4 * 16 + 4 * EXPERT + 3 * 16 * 8 + 16  # router, experts, shared expert, its gate = 2,000
MOE_TEXT_PARAMS = EMBED + 2 * (DELTANET + MOE_BLOCK + NORMS) + (ATTENTION + MOE_BLOCK + NORMS) + 16
QWEN3_5_MOE = {"model_type": "qwen3_5_moe", "architectures": ["Qwen3_5MoeForConditionalGeneration"],
               "text_config": MOE_TEXT, "vision_config": VISION, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}


def test_qwen3_5_counts_its_vision_tower_hybrid_text_model_and_head() -> None:
    tree = model(QWEN3_5).tree
    assert (TEXT_PARAMS, VISION_PARAMS) == (8_748, 15_128)
    assert tree.total == TOTAL == 24_676
    assert tree.root.child("visual").total == VISION_PARAMS
    assert tree.root.child("language_model").total == TEXT_PARAMS
    assert tree.root.child("language_model").note == "qwen3_5_text"
    assert model({**QWEN3_5, "architectures": ["Qwen3_5Model"]}).tree.total == TOTAL - HEAD
    # The text model alone (the hybrid family) holds the same layers.
    text_only = {**TEXT, "model_type": "qwen3_5_text", "architectures": ["Qwen3_5TextModel"]}
    assert model(text_only).tree.total == TEXT_PARAMS
    assert any("multi-token-prediction" in note for note in tree.notes)


def test_the_classifiers_score_the_text_models_width() -> None:
    # GenericForSequenceClassification over the bare composite: score 16 → 2 labels, no bias.
    sequence = {**QWEN3_5, "architectures": ["Qwen3_5ForSequenceClassification"]}
    assert model(sequence).tree.total == TOTAL - HEAD + 16 * 2
    # GenericForTokenClassification: with a bias unless token_classification_bias (not a key of the class) says not.
    token = {**QWEN3_5, "architectures": ["Qwen3_5ForTokenClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}}
    assert model(token).tree.total == TOTAL - HEAD + 16 * 3 + 3
    for off in (False, None):
        assert model({**token, "token_classification_bias": off}).tree.total == TOTAL - HEAD + 16 * 3, off


def test_only_the_composites_tie_word_embeddings_ties_the_head() -> None:
    assert model({**QWEN3_5, "tie_word_embeddings": True}).tree.total == TOTAL - HEAD
    tied_text = {**QWEN3_5, "text_config": {**TEXT, "tie_word_embeddings": True}}
    assert model(tied_text).tree.total == TOTAL


def test_the_sub_configs_are_the_composites_own_classes() -> None:
    # Text keys at the top level are not read (Qwen3_5Config reads text_config alone).
    assert model({**QWEN3_5, "hidden_size": 64, "num_hidden_layers": 5}).tree.total == TOTAL
    for kind in ("qwen3_5_text", "qwen3_next", "llama"):
        tree = model({**QWEN3_5, "text_config": {**TEXT, "model_type": kind}}).tree
        assert tree.total == TOTAL and tree.root.child("language_model").note == "qwen3_5_text", kind
    # The released checkpoints name the vision config after the composite ("qwen3_5", "qwen3_5_moe").
    for kind in ("qwen3_5", "qwen3_5_vision", "qwen3_vl"):
        assert model({**QWEN3_5, "vision_config": {**VISION, "model_type": kind}}).tree.total == TOTAL, kind


def test_the_vision_tower_has_no_deepstack_mergers() -> None:
    # Qwen3_5VisionConfig has no deepstack_visual_indexes: written (the Hub's "[]", or indexes), it is not read.
    for indexes in ([], [0, 1], [8, 16, 24]):
        config = {**QWEN3_5, "vision_config": {**VISION, "deepstack_visual_indexes": indexes}}
        assert model(config).tree.total == TOTAL, indexes
    for model_type, arch in (("qwen3_5_vision", "Qwen3_5VisionModel"), ("qwen3_5_moe_vision", "Qwen3_5MoeVisionModel")):
        tower = model({"model_type": model_type, "architectures": [arch], **VISION, "deepstack_visual_indexes": [0]})
        assert tower.tree.total == VISION_PARAMS, model_type
    # attribute_map: num_hidden_layers sets depth (and wins beside it).
    assert model({**QWEN3_5, "vision_config": {**VISION, "num_hidden_layers": 1}}).tree.total == TOTAL - BLOCK


def test_bad_vision_configs() -> None:
    problems = errors({**QWEN3_5, "vision_config": {**VISION, "num_heads": 9}})
    assert problems and "num_heads (9)" in problems[0].message
    # Its rotary embedding is axial only ("default" is read as axial).
    assert model({**QWEN3_5, "vision_config": {**VISION, "rope_parameters": {"rope_type": "default"}}}).tree.total == TOTAL
    problems = errors({**QWEN3_5, "vision_config": {**VISION, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}})
    assert problems and "axial" in problems[0].message
    report = analyze({**QWEN3_5, "vision_config": {**VISION, "out_hidden_size": 24}})
    assert not report.has_errors
    assert any(p.code == "LC103" and "out_hidden_size (24)" in p.message for p in report.problems)


def test_the_moe_model_counts_its_experts_and_the_active_part() -> None:
    tree = model(QWEN3_5_MOE).tree
    assert tree.total == MOE_TEXT_PARAMS + VISION_PARAMS == 26_420  # the head tied to embed_tokens
    assert tree.active == tree.total - 3 * 2 * EXPERT  # two of the four experts run per token, in each layer
    assert tree.root.child("language_model").note == "qwen3_5_moe_text"
    untied = model({**QWEN3_5_MOE, "tie_word_embeddings": False}).tree.total
    assert untied == tree.total + HEAD
    assert model({**QWEN3_5_MOE, "architectures": ["Qwen3_5MoeModel"]}).tree.total == tree.total


@pytest.mark.parametrize("config, total", [
    ({"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"]}, 9_407_453_936),
    ({"model_type": "qwen3_5", "architectures": ["Qwen3_5Model"]}, 8_390_335_216),
    ({"model_type": "qwen3_5", "architectures": ["Qwen3_5ForSequenceClassification"]}, 8_390_343_408),
    ({"model_type": "qwen3_5", "architectures": ["Qwen3_5ForTokenClassification"]}, 8_390_343_410),
    ({"model_type": "qwen3_5_moe", "architectures": ["Qwen3_5MoeForConditionalGeneration"]}, 35_114_261_360),
    ({"model_type": "qwen3_5_moe", "architectures": ["Qwen3_5MoeModel"]}, 34_605_702_000),
    ({"model_type": "qwen3_5_vision", "architectures": ["Qwen3_5VisionModel"]}, 453_650_672),
    ({"model_type": "qwen3_5_moe_vision", "architectures": ["Qwen3_5MoeVisionModel"]}, 453_650_672),
])
def test_class_defaults(config, total) -> None:
    """The config classes' defaults, as transformers 5.25 counts them on the meta device."""
    assert model(config).tree.total == total


def test_the_cache_is_the_hybrid_text_models() -> None:
    # 1 attention layer's keys and values (1 kv head × 8, bfloat16); 2 Gated DeltaNet layers' conv (40 channels × 3,
    # bfloat16) and state (4 value heads × 4 × 6, float32), whatever the context (what transformers' cache holds
    # after a forward pass of the composite too).
    gdn = 2 * (40 * 3 * 2 + 4 * 4 * 6 * 4)
    text_only = model({**TEXT, "model_type": "qwen3_5_text", "architectures": ["Qwen3_5ForCausalLM"],
                       "torch_dtype": "bfloat16"})
    for config in (QWEN3_5, QWEN3_5_MOE):
        for tokens, batch in ((10, 1), (100, 3)):
            settings = Settings(context=tokens, batch=batch)
            line = estimate_memory(model(config), settings).line("kv_cache")
            assert line is not None and line.exact and line.bytes == batch * (2 * 8 * tokens * 2 + gdn)
            alone = estimate_memory(text_only, settings).line("kv_cache")
            assert alone is not None and alone.bytes == line.bytes
            assert "recurrent" in line.detail


def test_training_activations_run_through_the_language_models_layers() -> None:
    for config, text_type in ((QWEN3_5, "qwen3_5_text"), (QWEN3_5_MOE, "qwen3_5_moe_text")):
        settings = Settings(mode="train", context=256, batch=2)
        ours = estimate_memory(model(config), settings).line("activations")
        text_only = model({**config["text_config"], "model_type": text_type, "torch_dtype": "bfloat16"})
        alone = estimate_memory(text_only, settings).line("activations")
        assert ours is not None and alone is not None
        assert ours.bytes == alone.bytes, text_type
        assert "the language model's; the vision tower's, over image patches, are not counted" in ours.detail


def test_lora_targets_are_numbered_across_the_layer_kinds(tmp_path) -> None:
    """Layer 1 is the attention layer (model.language_model.layers.1.self_attn): a regex naming it adapts q_proj
    (16 → 32) and v_proj (16 → 8) at rank 2, 2 · (16 + 32) + 2 · (16 + 8) = 144; naming layer 0 or 2 (Gated
    DeltaNet layers) adapts nothing, which is refused; the Gated DeltaNet's projections of layers 0 and 2 by
    regex: in_proj_qkv (16 → 40) and out_proj (24 → 16), 2 layers × (2 · 56 + 2 · 40) = 384."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text(json.dumps(QWEN3_5))

    def adapters(pattern: str):
        text = f"base_model: ./base\nadapter: lora\nlora_r: 2\nlora_target_modules: '{pattern}'\n"
        return analyze_text(text, str(tmp_path / "train.yaml"),
                            AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))

    report = adapters(r"model\.language_model\.layers\.1\.self_attn\.(q|v)_proj")
    assert not report.has_errors, report.problems
    assert report.models[0].tree.trainable == 144
    assert adapters(r"model\.language_model\.layers\.[02]\.self_attn\.(q|v)_proj").has_errors
    report = adapters(r"model\.language_model\.layers\.\d+\.linear_attn\.(in_proj_qkv|out_proj)")
    assert not report.has_errors, report.problems
    assert report.models[0].tree.trainable == 2 * (2 * (16 + 40) + 2 * (24 + 16))
