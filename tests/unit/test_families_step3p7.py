"""Step 3.7 (step3p7) and its sub-models (step3p5: Step3p7TextModel; step3p5_vision: Step3p7VisionModel): class
defaults from transformers 5.25 on the meta device, a small config counted by hand, and the configs the classes
refuse."""

from __future__ import annotations

import copy

import pytest

from config_models import errors, model

# sum(p.numel() for p in cls(Config()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {
    ("step3p7", "Step3p7ForConditionalGeneration"): 197_824_847_872,
    ("step3p7", "Step3p7Model"): 197_297_221_632,
    ("step3p5", "Step3p7TextModel"): 195_316_206_848,
    ("step3p5_vision", "Step3p7VisionModel"): 1_955_848_960,
}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    report = model({"model_type": model_type, "architectures": [architecture]})
    assert report.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# Text: hidden 8, heads 2 (sliding layers 4), 1 kv head, head_dim 4; layer 0 full and dense, layer 1 sliding and MoE.
SMALL = {"model_type": "step3p7", "architectures": ["Step3p7ForConditionalGeneration"],
         "text_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                         "head_dim": 4, "intermediate_size": 6, "moe_intermediate_size": 2, "n_routed_experts": 2,
                         "num_experts_per_tok": 1, "share_expert_dim": 3, "vocab_size": 10, "pad_token_id": 0,
                         "layer_types": ["full_attention", "sliding_attention"], "sliding_window": 4,
                         "num_sliding_attention_heads": 4, "mlp_layer_types": ["dense", "sparse"]},
         "vision_config": {"hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28,
                           "patch_size": 14, "mlp_ratio": 2.0}}

# Layer 0: q 8·8 + k 8·4 + v 8·4 + o 8·8 + q/k norms 4 + 4 + g_proj (one gate per head) 8·2 = 216;
#          gated MLP 3·8·6 = 144; two norms 16.                                                         -> 376
# Layer 1: q 8·16 + k 32 + v 32 + o 16·8 + norms 8 + g_proj 8·4 = 360; router 2·8 = 16,
#          experts 2·(2·2·8 + 8·2) = 96, shared expert 3·8·3 = 72; two norms 16.                      -> 560
# Text model: embeddings 10·8 = 80 + 376 + 560 + final norm 8 = 1,024.
# Vision: patch conv 4·3·14·14 = 2,352; positions (28 // 14)² · 4 = 16; pre_layernorm 8;
#         layer: q/k/v/out 4·(4·4 + 4) = 80, fc1 4·8 + 8 = 40, fc2 8·4 + 4 = 36, norms 16, lambdas 8 = 180;
#         downsampler1 8·4·9 + 8 = 296, downsampler2 16·8·9 + 16 = 1,168.                           -> 4,020
# Projector 16·8 = 128 (no bias); lm_head 10·8 = 80.
SMALL_TOTAL = 1_024 + 4_020 + 128 + 80


def test_small_config_by_hand():
    assert model(SMALL).tree.total == SMALL_TOTAL == 5_252


def test_the_bare_model_has_no_head_and_only_the_composite_ties_it():
    bare = {**copy.deepcopy(SMALL), "architectures": ["Step3p7Model"]}
    assert model(bare).tree.total == SMALL_TOTAL - 80
    text_ties = copy.deepcopy(SMALL)
    text_ties["text_config"]["tie_word_embeddings"] = True  # not read: Step3p7Config has no such forward
    assert model(text_ties).tree.total == SMALL_TOTAL
    assert model({**copy.deepcopy(SMALL), "tie_word_embeddings": True}).tree.total == SMALL_TOTAL - 80


def test_a_gate_per_channel_unless_gating_is_true_or_per_head():
    for gating, extra in ((True, 0), ("per-head", 0), ("full", 8 * 8 - 16 + 8 * 16 - 32), (False, 144)):
        cfg = copy.deepcopy(SMALL)
        cfg["text_config"]["gating"] = gating
        assert model(cfg).tree.total == SMALL_TOTAL + extra, gating


def test_legacy_keys_and_padded_lists():
    """attention_other_setting gives the sliding heads, moe_layers_enum the MoE layers, and per-layer lists padded
    with num_nextn_predict_layers entries are cut; the vision tower's width / layers / heads win over the fields."""
    cfg = copy.deepcopy(SMALL)
    text = cfg["text_config"]
    del text["num_sliding_attention_heads"], text["mlp_layer_types"]
    text.update(attention_other_setting={"num_attention_heads": 4}, moe_layers_enum="1,2", num_nextn_predict_layers=1,
                layer_types=["full_attention", "sliding_attention", "full_attention"])
    cfg["vision_config"].update(hidden_size=64, width=4)
    assert model(cfg).tree.total == SMALL_TOTAL


def test_refusals():
    cfg = copy.deepcopy(SMALL)
    cfg["text_config"]["layer_types"] = ["full_attention"] * 3  # neither the layers nor layers + MTP layers
    assert any('"layer_types": 3 entries for 2 layers' in e.message for e in errors(cfg))
    cfg = copy.deepcopy(SMALL)
    cfg["text_config"]["moe_num_experts"] = 2.0  # set past the strict checks: the sparse layer cannot be built
    assert any('"moe_num_experts": a float (2.0)' in e.message for e in errors(cfg))
    cfg["text_config"]["mlp_layer_types"] = ["dense", "dense"]  # no sparse layer: it builds
    assert not errors(cfg)
