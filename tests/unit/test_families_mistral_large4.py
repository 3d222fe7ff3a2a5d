"""Mistral Large 4 (mistral_large4: MistralLarge4ForConditionalGeneration, MistralLarge4Model) and its text model
(mistral_large4_text: MistralLarge4TextModel): class defaults from transformers 5.25 on the meta device, a small text
config counted by hand (layers reading an earlier layer's latent, a NoPE layer, layers with and without an indexer,
dense and MoE), its KV cache, the learned rotary scales, what its config class refuses, and LoRA against peft."""

from __future__ import annotations

import pytest

from config_models import (analyze, assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages, kv_cache_bytes, model)

# sum(p.numel() for p in cls(config_class()).parameters()) on the meta device, transformers 5.25.
CLASS_DEFAULTS = {("mistral_large4_text", "MistralLarge4TextModel"): 1_048_859_911_712,
                  ("mistral_large4", "MistralLarge4ForConditionalGeneration"): 1_051_822_421_536,
                  ("mistral_large4", "MistralLarge4Model"): 1_050_564_130_336}


@pytest.mark.parametrize("model_type,architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(model_type, architecture):
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


TEXT = {"model_type": "mistral_large4_text", "architectures": ["MistralLarge4TextModel"], "vocab_size": 40,
        "hidden_size": 16, "intermediate_size": 12, "moe_intermediate_size": 6, "num_hidden_layers": 4,
        "num_attention_heads": 2, "num_key_value_heads": 2, "n_routed_experts": 3, "num_experts_per_tok": 1,
        "kv_lora_rank": 4, "qk_rope_head_dim": 4, "v_head_dim": 4, "qk_nope_head_dim": 2, "index_head_dim": 4,
        "index_n_heads": 2, "first_k_dense_replace": 1, "kv_source_layers": [0, 0, 2, 2], "no_rope_layers": [1, 1, 0, 1],
        "index_topk_pattern": "FSFS"}

# Attention, every layer: q_proj 16 → 2·(2 + 4): 192, o_proj 8 → 16: 128, softmax scaling 2 + 2.
# Layers 0 and 2 read their own latent: kv_a_proj_with_mqa 16 → 4 + 4: 128 (layer 2's, a NoPE layer with no rotated
#   key, 16 → 4: 64), kv_a_layernorm 4; layers 1 and 3 read layer 0's (rotated, as they are) and have none.
#   kv_b_proj 4 → 2·(2 + 4): 48, but layer 2's (its rotary part unrotated) 4 → 2·(6 + 4): 80.
# Indexer, layers 0 and 2 ("F"): wq_b 16 → 2·4: 128, wk 16 → 4: 64, k_norm 8, weights_proj 16 → 2: 32,
#   q_input_norm 32, softmax scaling 4: 268.
# Layer 0: 192 + 132 + 48 + 128 + 4 + 268 = 772, a dense MLP 3·16·12 = 576, norms 32            -> 1,380
# Experts (layers 1-3): 3·(12·16 + 16·6) = 864, the router 48, a shared expert 3·16·6 = 288: 1,200.
# Layers 1 and 3: 192 + 48 + 128 + 4 = 372, 1,200, 32 -> 1,604 each;
#   layer 2: 192 + 68 + 80 + 128 + 4 + 268 = 740, 1,200, 32 -> 1,972.
# Embeddings 640, final norm 16, the rotary embedding's alpha: one per frequency of 4 rotated values, 2.
TEXT_TOTAL = 640 + 1_380 + 1_604 + 1_972 + 1_604 + 16 + 2


def test_small_text_config_by_hand():
    assert model(TEXT).tree.total == TEXT_TOTAL == 7_218


def test_its_kv_cache_by_hand():
    # Layer 0 caches its latent (4 + 4) and indexer key (4), layer 2 its latent with no rotated key (4) and indexer
    # key; layers 1 and 3 read layer 0's and have no indexer.
    assert kv_cache_bytes(TEXT, context=3) == (12 + 0 + 8 + 0) * 2 * 3
    # Without sharing, layers 1 and 3 cache their own latent (8).
    assert kv_cache_bytes({**TEXT, "kv_source_layers": [0, 1, 2, 3]}, context=3) == (12 + 8 + 8 + 8) * 2 * 3


@pytest.mark.parametrize("written,alphas", [({}, 2), ({"qk_rope_head_dim": 6}, 3), ({"partial_rotary_factor": 0.5}, 1),
                                            # the class's own default type rotates the whole width
                                            ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4,
                                                                  "partial_rotary_factor": 0.5}}, 2),
                                            # one rotated value under YaRN: no frequency at all
                                            ({"qk_rope_head_dim": 2, "partial_rotary_factor": 0.5}, 0)])
def test_the_rotary_embedding_learns_a_scale_per_frequency(written, alphas):
    tree = model({**TEXT, **written}).tree
    (alpha,) = [t for _p, t, _m, _f in tree.root.iter_tensors() if t.name == "rotary_emb.alpha"]
    assert alpha.shape == (alphas,)


@pytest.mark.parametrize("written,said", [
    ({"kv_source_layers": [0, 0, 1, 2]}, '"kv_source_layers": layer 2 reads layer 1, not an earlier layer'),
    ({"kv_source_layers": [0, 0]}, '"kv_source_layers": 2 entries for 4 layers'),
    ({"no_rope_layers": [1, 1]}, '"no_rope_layers": 2 entries for 4 layers'),
    ({"no_rope_layers": None, "no_rope_layer_interval": 0}, "(ZeroDivisionError)"),
    ({"no_rope_layers": None, "no_rope_layer_interval": None}, '"no_rope_layer_interval": null is not a number'),
    ({"index_topk_pattern": "FXFS"}, '"X" is neither "F" (full) nor "S" (shared): MistralLarge4TextConfig'),
    # (YaRN's int(width × factor) raises: no rotary embedding, no model)
    ({"partial_rotary_factor": float("inf")}, "\"partial_rotary_factor\": the rotary embedding's width cannot be"),
])
def test_what_its_config_class_refuses(written, said):
    messages = error_messages({**TEXT, **written})
    assert any(said in m for m in messages), messages


def test_a_latent_its_forward_pass_cannot_find_is_a_warning():
    # Layer 3 is a NoPE layer reading layer 2's latent, and only rotated ones are kept (layer 0's): the model keeps one
    # latent of each kind. transformers builds it: counted (layer 2 rotated: 772 + 1,200 + 32; layer 3's kv_b_proj 80
    # wide: 404 + 1,200 + 32).
    report = analyze({**TEXT, "no_rope_layers": [1, 1, 1, 0]})
    warnings = [p.message for p in report.problems if p.severity == "warning"]
    assert any("layer 3 reads an earlier layer's latent" in w and "KeyError" in w for w in warnings), warnings
    assert report.models[0].tree.total == TEXT_TOTAL - 1_972 + 2_004 - 1_604 + 1_636
    assert not [p for p in analyze(TEXT).problems if p.severity == "warning"]


COMPOSITE = {"model_type": "mistral_large4", "architectures": ["MistralLarge4ForConditionalGeneration"],
             "text_config": {k: v for k, v in TEXT.items() if k != "architectures"},
             "vision_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                               "intermediate_size": 12, "head_dim": 8, "patch_size": 2, "image_size": 8}}

# Pixtral's tower: patch conv 16·3·2·2 = 192, ln_pre 16; a layer: q/k/v/o 4·256 = 1,024, a gated MLP 3·16·12 = 576,
#   two RMS norms 32 (1,632)                                                                       -> 1,840
# Projector: norm 16, patch_merger's merging_layer 64 → 16: 1,024, linear_1 16·16 = 256, linear_2 256 -> 1,552
# lm_head 40·16 (not tied by default)                                                              -> 640
COMPOSITE_TOTAL = 1_840 + 1_552 + TEXT_TOTAL + 640


def test_the_composite_by_hand():
    assert model(COMPOSITE).tree.total == COMPOSITE_TOTAL
    assert model({**COMPOSITE, "tie_word_embeddings": True}).tree.total == COMPOSITE_TOTAL - 640
    # its own text model whatever model_type text_config names
    named = {**COMPOSITE, "text_config": {**COMPOSITE["text_config"], "model_type": "mistral"}}
    assert model(named).tree.total == COMPOSITE_TOTAL


# peft's counts at rank 2 on the text model (7,218): q_proj 4·2·(16 + 12); kv_a_proj_with_mqa in layers 0 and 2,
# 2·(16 + 8) + 2·(16 + 4); kv_b_proj 3·2·(4 + 12) + 2·(4 + 20) (layer 2's wider); the indexers' wq_b 2·(16 + 8) and
# weights_proj 2·(16 + 2) in layers 0 and 2.
LORA_CASES = [(["q_proj"], (7_442, 224)), (["kv_a_proj_with_mqa"], (7_306, 88)), (["kv_b_proj"], (7_362, 144)),
              (["wq_b", "weights_proj"], (7_386, 168)), ("all-linear", None)]


def _cases():
    from config_models import peft_lora_counts

    pytest.importorskip("peft")
    return [(t, c if c is not None else peft_lora_counts(TEXT, t)) for t, c in LORA_CASES]


def test_lora(tmp_path):
    assert_lora_counts(tmp_path, TEXT, _cases())


def test_lora_is_peft_s():
    assert_peft_lora_counts(TEXT, _cases())
