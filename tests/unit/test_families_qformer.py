"""BLIP-2 and InstructBLIP (and their vision towers and Q-Formers), without torch: a BLIP vision tower, a Q-Former
of num_query_tokens queries with cross-attention every cross_attention_frequency layers, a projection and the
language model of text_config counted through its own family (OPT, T5, Llama). Small configs counted by hand (the
arithmetic in each test), the class defaults as transformers 5.25 builds them on the meta device (``sum(p.numel()
for p in model.parameters())``, taken there once), LoRA as peft adapts them, the KV cache of the text model, and the
configs the classes refuse."""

from __future__ import annotations

import pytest

from config_models import (assert_class_default_total, assert_lora_counts, assert_peft_lora_counts,
                           error_messages as errors, kv_cache_bytes as kv_bytes, model as count)

# transformers 5.25, meta device, each class with its config class's defaults (blip2-opt-2.7b's sizes).
CLASS_DEFAULTS = {
    ("blip-2", "Blip2ForConditionalGeneration"): 1_216_944_384,
    ("blip-2", "Blip2Model"): 1_216_944_384,
    ("blip-2", "Blip2TextModelWithProjection"): 129_193_216,
    ("blip-2", "Blip2VisionModelWithProjection"): 1_091_311_360,
    ("blip-2", "Blip2ForImageTextRetrieval"): 1_115_343_874,
    ("blip_2_vision_model", "Blip2VisionModel"): 985_952_256,
    ("blip_2_qformer", "Blip2QFormerModel"): 105_137_664,
    ("instructblip", "InstructBlipForConditionalGeneration"): 1_297_466_112,
    ("instructblip", "InstructBlipModel"): 1_297_466_112,
    ("instructblip_vision_model", "InstructBlipVisionModel"): 985_952_256,
    ("instructblip_qformer", "InstructBlipQFormerModel"): 185_659_392,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


# The small models: a vision tower 8 wide (2 layers, 2 heads, MLP 4, 8-pixel images of 4-pixel patches), a Q-Former
# 12 wide (3 layers, 2 heads, feed-forward 4, vocabulary 10, 6 positions), 3 queries, an OPT 16 wide.
VISION = {"hidden_size": 8, "intermediate_size": 4, "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": 8,
          "patch_size": 4}
QFORMER = {"hidden_size": 12, "intermediate_size": 4, "num_hidden_layers": 3, "num_attention_heads": 2,
           "vocab_size": 10, "max_position_embeddings": 6}
OPT = {"model_type": "opt", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 1, "ffn_dim": 8,
       "num_attention_heads": 2, "word_embed_proj_dim": 16, "max_position_embeddings": 20}
T5 = {"model_type": "t5", "vocab_size": 50, "d_model": 16, "d_kv": 4, "d_ff": 8, "num_layers": 1, "num_heads": 2}

# Vision: class_embedding 8 + patch Conv2d 8·3·4·4 + 8 + positions (2² patches + 1)·8 = 440; a layer: qkv 8·24 + its
# 24-wide bias, projection 64 + 8, fc1 32 + 4, fc2 32 + 8, two LayerNorms 32 = 396; post_layernorm 16.
VISION_TOTAL = 440 + 2 * 396 + 16  # 1,248
# Q-Former (cross-attention from the tower's 8): self-attention q, k, v, output.dense (156 each) + LayerNorm 24 = 648;
# the queries' feed-forward 12·4 + 4, 4·12 + 12, LayerNorm 24 = 136; cross-attention query 156, key and value 8·12 + 12,
# dense 156, LayerNorm 24 = 552. Layers 0 and 2 cross-attend (frequency 2), layer 1 does not.
SELF, FFN, CROSS = 648, 136, 552
BLIP2_QFORMER = 24 + 2 * (SELF + FFN + CROSS) + (SELF + FFN)  # its input LayerNorm, then the layers: 3,480
# InstructBLIP's: word 10·12 + positions 6·12 + LayerNorm 24, and the text's feed-forward in every layer too.
INSTRUCT_QFORMER = 216 + 2 * (SELF + 2 * FFN + CROSS) + (SELF + 2 * FFN)  # 4,080
QUERIES, PROJECTION = 3 * 12, 12 * 16 + 16  # query_tokens; language_projection to the OPT's 16
# OPT: embed_tokens 50·16, positions (20 + 2)·16, a layer (q, k, v, out 4·272, fc1 136, fc2 144, two LayerNorms 64),
# the final LayerNorm 32; lm_head tied.
OPT_TOTAL = 800 + 352 + (1088 + 136 + 144 + 64) + 32  # 2,616


def blip2(architecture: str = "Blip2ForConditionalGeneration", text: dict | None = None, **extra: object) -> dict:
    return {"model_type": "blip-2", "architectures": [architecture], "vision_config": dict(VISION),
            "qformer_config": dict(QFORMER), "num_query_tokens": 3, "text_config": dict(text or OPT), **extra}


def instructblip(architecture: str = "InstructBlipForConditionalGeneration", text: dict | None = None) -> dict:
    return {**blip2(text=text), "model_type": "instructblip", "architectures": [architecture]}


def test_blip2_with_opt_is_the_sum_of_its_parts() -> None:
    assert count(blip2()).tree.total == VISION_TOTAL + QUERIES + BLIP2_QFORMER + PROJECTION + OPT_TOTAL == 7_588
    # Blip2Model holds the language model with its head too (AutoModelForCausalLM): untied, the head is 50·16 more.
    untied = dict(OPT, tie_word_embeddings=False)
    assert count(blip2("Blip2Model", untied)).tree.total == 7_588 + 800
    assert count(blip2(text=untied)).tree.total == 7_588 + 800


def test_the_sub_models_on_their_own() -> None:
    assert count({"model_type": "blip_2_vision_model", **VISION}).tree.total == VISION_TOTAL
    assert count({"model_type": "instructblip_vision_model", **VISION, "qkv_bias": False}).tree.total == VISION_TOTAL - 2 * 24
    # On its own the Q-Former's cross-attention reads its encoder_hidden_size (the composite overwrites it).
    alone = {"model_type": "blip_2_qformer", **QFORMER, "encoder_hidden_size": 8}
    assert count(alone).tree.total == BLIP2_QFORMER
    assert count({**alone, "encoder_hidden_size": 10}).tree.total == BLIP2_QFORMER + 2 * 2 * 2 * 12  # key, value: 2 rows more
    assert count({**alone, "use_qformer_text_input": True}).tree.total == BLIP2_QFORMER + 3 * FFN
    assert count({"model_type": "instructblip_qformer", **QFORMER, "encoder_hidden_size": 8}).tree.total == INSTRUCT_QFORMER


def test_cross_attention_every_nth_layer_from_the_first() -> None:
    # Frequency 3 over 3 layers: layer 0 alone cross-attends (one fewer than frequency 2's layers 0 and 2); 1: all three.
    config = blip2()
    config["qformer_config"]["cross_attention_frequency"] = 3
    assert count(config).tree.total == 7_588 - CROSS
    config["qformer_config"]["cross_attention_frequency"] = 1
    assert count(config).tree.total == 7_588 + CROSS


def test_the_composite_sets_the_q_formers_cross_attention_width_to_the_towers() -> None:
    config = blip2()
    config["qformer_config"]["encoder_hidden_size"] = 999
    assert count(config).tree.total == 7_588
    # the vision and Q-Former configs are always the composite's own classes, whatever model_type they name
    config["vision_config"]["model_type"] = "clip_vision_model"
    assert count(config).tree.total == 7_588


def test_blip2_retrieval_classes() -> None:
    # Q-Former text embeddings (word 10·12 + positions 6·12, no LayerNorm), projections 12 → 5, itm_head 12 → 2.
    embeddings, projection, itm = 192, 12 * 5 + 5, 12 * 2 + 2
    config = {"image_text_hidden_size": 5}
    assert count(blip2("Blip2TextModelWithProjection", **config)).tree.total \
        == QUERIES + embeddings + BLIP2_QFORMER + projection == 3_773
    assert count(blip2("Blip2VisionModelWithProjection", **config)).tree.total \
        == VISION_TOTAL + QUERIES + BLIP2_QFORMER + projection == 4_829
    assert count(blip2("Blip2ForImageTextRetrieval", **config)).tree.total \
        == VISION_TOTAL + QUERIES + embeddings + BLIP2_QFORMER + 2 * projection + itm == 5_112


def test_instructblip() -> None:
    assert count(instructblip()).tree.total == VISION_TOTAL + QUERIES + INSTRUCT_QFORMER + PROJECTION + OPT_TOTAL == 8_188
    untied = dict(OPT, tie_word_embeddings=False)
    assert count(instructblip(text=untied)).tree.total == 8_188 + 800
    # InstructBlipModel holds the bare language model (AutoModel): no head, tied or not.
    assert count(instructblip("InstructBlipModel", untied)).tree.total == 8_188


def test_a_t5_language_model_is_its_own_familys_count() -> None:
    t5 = count({**T5, "architectures": ["T5ForConditionalGeneration"]}).tree.total
    assert count(blip2(text=T5)).tree.total == VISION_TOTAL + QUERIES + BLIP2_QFORMER + PROJECTION + t5
    assert count(instructblip(text=T5)).tree.total == VISION_TOTAL + QUERIES + INSTRUCT_QFORMER + PROJECTION + t5


def test_the_kv_cache_is_the_text_models() -> None:
    opt = {**OPT, "num_hidden_layers": 3, "architectures": ["OPTForCausalLM"]}
    t5 = {**T5, "num_layers": 2, "architectures": ["T5ForConditionalGeneration"]}
    assert kv_bytes(blip2(text=opt), 100) == kv_bytes(opt, 100) == 3 * 2 * 100 * 16 * 2
    assert kv_bytes(instructblip(text=t5), 100) == kv_bytes(t5, 100) > 0


def test_configs_the_classes_refuse() -> None:
    assert any("does not divide" in m for m in errors(blip2(vision_config={**VISION, "num_attention_heads": 3})))
    assert any("does not divide" in m for m in errors(blip2(qformer_config={**QFORMER, "num_attention_heads": 5})))
    # layer_idx % 0 fails
    assert any("cross_attention_frequency" in m for m in errors(blip2(qformer_config={**QFORMER,
                                                                                      "cross_attention_frequency": 0})))
    # (image_size // patch_size) ** 2 of two lists fails
    assert errors(blip2(vision_config={**VISION, "image_size": [8, 8]}))
    # InstructBLIP's Q-Former embeds text: its padding index must lie in its vocabulary
    config = instructblip()
    config["qformer_config"]["pad_token_id"] = 10
    assert any("pad_token_id 10" in m for m in errors(config))
    # BART as the text model: transformers builds BartForCausalLM, which lsp-count does not model
    assert any("BartForCausalLM" in m or "causal-LM" in m for m in errors(blip2(text={"model_type": "bart"})))


LORA_CASES = [(["q_proj", "v_proj"], (7716, 128)), (["query", "value"], (8052, 464)), (["qkv"], (7716, 128)),
              ("all-linear", (9404, 1816))]


def test_lora_counts(tmp_path) -> None:
    config = blip2(vision_config={**VISION}, qformer_config={**QFORMER})
    config["text_config"] = dict(OPT)
    assert_lora_counts(tmp_path, config, LORA_CASES)


def test_lora_counts_are_pefts() -> None:
    assert_peft_lora_counts(blip2(), LORA_CASES)


@pytest.mark.parametrize("architecture", ["Blip2ForImageTextRetrieval", "Blip2TextModelWithProjection",
                                          "Blip2VisionModelWithProjection"])
def test_heads_that_hold_no_language_model_have_no_kv_cache(architecture: str) -> None:
    from lsp_count.core.memory import Settings, estimate_memory

    # Their config has a text_config (OPT by default), but the class builds no language model: nothing generates.
    report = estimate_memory(count({"model_type": "blip-2", "architectures": [architecture]}), Settings())
    assert report.line("kv_cache") is None, [line.name for line in report.lines]
    generating = estimate_memory(count({"model_type": "blip-2", "architectures": ["Blip2ForConditionalGeneration"]}),
                                 Settings())
    assert generating.line("kv_cache") is not None
