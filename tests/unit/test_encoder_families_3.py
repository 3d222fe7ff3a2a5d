"""DeBERTa-v2, DeBERTa, MPNet, GTE, NomicBERT, EuroBERT, DINOv2 (and with registers), DeiT, SigLIP and SigLIP 2 (their text and
vision towers, the dual-tower models) without torch: hand counts of small configs, each family's class defaults,
and the configs transformers refuses.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks every
family against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import errors, model
from small_encoder import F, H, LINEAR, MLP, NORM, P, SMALL, V


@pytest.mark.parametrize("model_type, architecture, total", [
    ("deberta-v2", "DebertaV2ForMaskedLM", 879_999_588),
    ("deberta-v2", "DebertaV2Model", 877_507_584),
    ("deberta-v2", "DebertaV2ForSequenceClassification", 879_871_490),
    ("deberta", "DebertaForMaskedLM", 124_685_913),
    ("deberta", "DebertaModel", 124_043_520),
    ("mpnet", "MPNetForMaskedLM", 109_516_991),
    ("mpnet", "MPNetModel", 109_484_928),
    ("gte", "GteForMaskedLM", 306_210_496),
    ("gte", "GteModel", 305_368_320),
    ("nomic_bert", "NomicBertForMaskedLM", 137_354_304),
    ("nomic_bert", "NomicBertModel", 136_731_648),
    ("eurobert", "EuroBertForMaskedLM", 310_266_624),
    ("eurobert", "EuroBertModel", 211_766_016),
    ("dinov2", "Dinov2Model", 85_725_696),
    ("dinov2", "Dinov2ForImageClassification", 85_728_770),
    ("dinov2_with_registers", "Dinov2WithRegistersModel", 85_820_928),
    ("deit", "DeiTForImageClassificationWithTeacher", 85_803_268),
    ("deit", "DeiTModel", 86_390_784),
    ("siglip", "SiglipModel", 203_155_970),
    ("siglip_text_model", "SiglipTextModel", 110_271_744),
    ("siglip2", "Siglip2Model", 203_202_050),
    ("siglip2_vision_model", "Siglip2VisionModel", 92_930_304),
    ("siglip2_text_model", "Siglip2TextModel", 110_271_744),
])
def test_class_defaults_equal_transformers(model_type: str, architecture: str, total: int) -> None:
    assert model({"model_type": model_type, "architectures": [architecture]}).tree.total == total


# ----------------------------------------------------------------- DeBERTa-v2
# DeBERTa-v3's shape: relative attention over log buckets, a LayerNorm on the relative table, position
# projections shared with the content ones, no absolute position table, no token types.
V3 = {"model_type": "deberta-v2", **SMALL, "relative_attention": True, "position_buckets": 4,
      "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p", "position_biased_input": False,
      "type_vocab_size": 0}
V3_EMBEDDINGS = V * H + NORM           # word table + LayerNorm: 176 (no position table, no token types)
V3_RELATIVE = 2 * 4 * H + NORM         # rel_embeddings: 2 × position_buckets rows, + encoder.LayerNorm: 80
V3_LAYER = 4 * LINEAR + MLP + 2 * NORM  # query/key/value_proj + output dense, MLP, two LayerNorms: 532


def test_deberta_v3_shape_by_hand() -> None:
    base = model({**V3, "architectures": ["DebertaV2Model"]}).tree
    assert base.total == V3_EMBEDDINGS + V3_RELATIVE + V3_LAYER == 788
    assert "pooler" not in base.components()  # the ContextPooler is the classifier classes' own
    mlm = model({**V3, "architectures": ["DebertaV2ForMaskedLM"]}).tree
    # legacy head: transform dense + LayerNorm, the decoder tied to the word table, a vocabulary bias
    assert mlm.total == 788 + LINEAR + NORM + V == 896
    classifier = model({**V3, "architectures": ["DebertaV2ForSequenceClassification"]}).tree
    assert classifier.total == 788 + LINEAR + (H * 2 + 2) == 878  # pooler.dense + classifier (2 labels)
    choice = model({**V3, "architectures": ["DebertaV2ForMultipleChoice"]}).tree
    assert choice.total == 788 + LINEAR + (H + 1) == 869


def test_deberta_v2_position_projections_unless_shared() -> None:
    unshared = model({**V3, "share_att_key": False, "architectures": ["DebertaV2Model"]}).tree
    assert unshared.total == 788 + 2 * LINEAR  # pos_key_proj (c2p) and pos_query_proj (p2c), each 8 → 8
    only_c2p = model({**V3, "share_att_key": False, "pos_att_type": ["c2p"], "architectures": ["DebertaV2Model"]})
    assert only_c2p.tree.total == 788 + LINEAR


def test_deberta_v2_relative_table_rows() -> None:
    # No buckets: 2 × max_relative_positions, or 2 × max_position_embeddings where that is below 1.
    no_buckets = {**V3, "position_buckets": -1, "architectures": ["DebertaV2Model"]}
    assert model({**no_buckets, "max_relative_positions": 3}).tree.total == 788 - 2 * 4 * H + 2 * 3 * H
    assert model(no_buckets).tree.total == 788 - 2 * 4 * H + 2 * P * H
    # Without relative attention the table is gone, its LayerNorm (norm_rel_ebd) is not.
    assert model({**V3, "relative_attention": False, "architectures": ["DebertaV2Model"]}).tree.total == 788 - 2 * 4 * H


def test_deberta_v2_conv_layer_and_factorised_embeddings() -> None:
    conv = model({**V3, "conv_kernel_size": 3, "conv_groups": 2, "architectures": ["DebertaV2Model"]}).tree
    assert conv.total == 788 + (H * (H // 2) * 3 + H) + NORM == 908  # Conv1d(8, 8, 3, groups=2) + LayerNorm
    # embedding_size 4: a 4-wide word table, embed_proj 4 → 8 without a bias, the LayerNorm 8 wide after it;
    # the legacy MLM transform maps 8 → 4 and its tied decoder is 4 wide.
    narrow = model({**V3, "embedding_size": 4, "architectures": ["DebertaV2ForMaskedLM"]}).tree
    body = V * 4 + 4 * H + NORM + V3_RELATIVE + V3_LAYER
    assert narrow.total == body + (H * 4 + 4) + 2 * 4 + V == 804


def test_deberta_v2_non_legacy_head_multiplies_by_the_word_table() -> None:
    # lm_predictions.lm_head: dense 8 → 8, LayerNorm, a vocabulary bias; no decoder, tied or not.
    for tie in (True, False):
        tree = model({**V3, "legacy": False, "tie_word_embeddings": tie, "architectures": ["DebertaV2ForMaskedLM"]}).tree
        assert tree.total == 788 + LINEAR + NORM + V == 896
    untied_legacy = model({**V3, "tie_word_embeddings": False, "architectures": ["DebertaV2ForMaskedLM"]}).tree
    assert untied_legacy.total == 896 + V * H + V  # its own decoder weight and bias


def test_deberta_v2_refusals() -> None:
    assert errors({**V3, "hidden_size": 9})  # DisentangledSelfAttention: heads must divide hidden_size
    assert errors({**V3, "hidden_size": 9, "attention_head_size": 4})  # even with a head width given
    assert errors({**V3, "conv_kernel_size": 3, "conv_groups": 3})  # Conv1d: groups must divide the channels
    assert errors({**V3, "norm_rel_ebd": None})  # lower-cased: a string
    assert errors({**V3, "position_buckets": None})  # compared with 0 under relative attention
    assert not errors({**V3, "relative_attention": False, "position_buckets": None})  # not read without it
    assert errors({**V3, "pooler_hidden_size": None, "architectures": ["DebertaV2ForSequenceClassification"]})
    assert not errors({**V3, "pooler_hidden_size": None, "architectures": ["DebertaV2ForTokenClassification"]})
    assert errors({**V3, "pad_token_id": 20})  # the word table's padding index


# ----------------------------------------------------------------- DeBERTa
def test_deberta_relative_attention_by_hand() -> None:
    cfg = {"model_type": "deberta", **SMALL, "relative_attention": True, "pos_att_type": ["c2p", "p2c"],
           "architectures": ["DebertaModel"]}
    embeddings = V * H + P * H + NORM        # word + position tables (no token types by default) + LayerNorm: 256
    relative = 2 * P * H                     # max_relative_positions -1: 2 × max_position_embeddings rows: 160
    # in_proj 8 → 24 without a bias, q_bias and v_bias, output dense; pos_proj (c2p, no bias), pos_q_proj (p2c)
    attention = H * 3 * H + 2 * H + LINEAR + H * H + LINEAR
    assert attention == 416
    assert model(cfg).tree.total == embeddings + relative + attention + MLP + 2 * NORM == 1076
    # talking heads: two 2 × 2 mixers without biases
    assert model({**cfg, "talking_head": True}).tree.total == 1076 + 2 * 2 * 2


def test_deberta_without_relative_attention_has_no_position_projections() -> None:
    cfg = {"model_type": "deberta", **SMALL, "pos_att_type": ["c2p", "p2c"], "architectures": ["DebertaModel"]}
    assert model(cfg).tree.total == (V * H + P * H + NORM) + (H * 3 * H + 2 * H + LINEAR) + MLP + 2 * NORM == 780


# ----------------------------------------------------------------- MPNet
def test_mpnet_by_hand() -> None:
    cfg = {"model_type": "mpnet", **SMALL}
    embeddings = V * H + P * H + NORM      # word + position tables (no token types) + LayerNorm: 256
    relative = 32 * 2                      # encoder.relative_attention_bias: 32 buckets × 2 heads
    layer = 4 * LINEAR + MLP + 2 * NORM    # attn.q/k/v/o, MLP, attention.LayerNorm + output.LayerNorm: 532
    assert model({**cfg, "architectures": ["MPNetModel"]}).tree.total == embeddings + relative + layer + LINEAR == 924
    # The masked-LM class has no pooler; lm_head: dense + layer_norm, the decoder tied, a vocabulary bias.
    masked = model({**cfg, "architectures": ["MPNetForMaskedLM"]}).tree
    assert masked.total == embeddings + relative + layer + LINEAR + NORM + V == 960
    assert model({**cfg, "relative_attention_num_buckets": 5, "architectures": ["MPNetModel"]}).tree.total == 924 - 64 + 10


def test_mpnet_pads_with_index_one() -> None:
    assert errors({"model_type": "mpnet", **SMALL, "vocab_size": 1})  # padding_idx=1 in a one-row table
    assert not errors({"model_type": "mpnet", **SMALL, "pad_token_id": 50})  # pad_token_id is not read


# ----------------------------------------------------------------- GTE
def test_gte_by_hand() -> None:
    cfg = {"model_type": "gte", **SMALL, "type_vocab_size": 2}
    embeddings = V * H + 2 * H + NORM      # word + token-type tables (rotary positions: no table) + LayerNorm: 192
    mlp = 2 * H * F + (F * H + H)          # gate_proj and up_proj without biases, down_proj with one: 296
    layer = 4 * LINEAR + mlp + 2 * NORM    # 616
    assert model({**cfg, "architectures": ["GteModel"]}).tree.total == embeddings + layer == 808  # no pooler
    assert model({**cfg, "architectures": ["GteForMaskedLM"]}).tree.total == 808 + LINEAR + NORM + V == 916
    # The classifier class builds the pooler: dense 8 → 8, then the classifier.
    assert model({**cfg, "architectures": ["GteForSequenceClassification"]}).tree.total == 808 + LINEAR + 18 == 898
    assert model({**cfg, "type_vocab_size": 0, "architectures": ["GteModel"]}).tree.total == 808 - 2 * H


# ----------------------------------------------------------------- NomicBERT
def test_nomic_bert_by_hand() -> None:
    cfg = {"model_type": "nomic_bert", **SMALL, "type_vocab_size": 2}
    layer = 4 * H * H + 3 * H * F + 2 * NORM  # q/k/v/o and gate/up/down without biases, two LayerNorms: 576
    base = V * H + 2 * H + NORM + layer        # word + token-type tables, LayerNorm (rotary: no table): 768
    assert model({**cfg, "architectures": ["NomicBertModel"]}).tree.total == base == 768
    assert model({**cfg, "architectures": ["NomicBertForMaskedLM"]}).tree.total == base + LINEAR + NORM + V == 876
    classifier = model({**cfg, "architectures": ["NomicBertForSequenceClassification"]}).tree
    assert classifier.total == base + LINEAR + (H * 2 + 2) == 858  # pooler, classifier
    # tie_word_embeddings is not declared: a null is kept, and unties the decoder (its own weight and bias).
    untied = model({**cfg, "tie_word_embeddings": None, "architectures": ["NomicBertForMaskedLM"]}).tree
    assert untied.total == 876 + V * H + V


# ----------------------------------------------------------------- EuroBERT
def test_eurobert_by_hand() -> None:
    cfg = {"model_type": "eurobert", **SMALL, "num_key_value_heads": 1, "pad_token_id": 0}
    attention = H * H + 2 * (H * 4) + H * H   # q, k and v 1 head of 4 wide (grouped), o; no biases: 192
    mlp = 3 * H * F                           # gate, up, down without biases: 288
    layer = attention + mlp + 2 * H           # two RMSNorms (a weight each): 496
    base = V * H + layer + H                  # embed_tokens, the layer, the final norm: 664
    assert model({**cfg, "architectures": ["EuroBertModel"]}).tree.total == base == 664
    # untied by default: lm_head is its own 8 → 20 matrix; no transform
    assert model({**cfg, "architectures": ["EuroBertForMaskedLM"]}).tree.total == base + V * H == 824
    tied = {**cfg, "tie_word_embeddings": True, "mlp_bias": True, "architectures": ["EuroBertForMaskedLM"]}
    assert model(tied).tree.total == base + (2 * F + H) + V == 716  # MLP biases, lm_head's bias (mlp_bias)
    classifier = model({**cfg, "architectures": ["EuroBertForSequenceClassification"]}).tree
    assert classifier.total == base + LINEAR + (H * 2 + 2) == 754  # dense, then classifier


def test_eurobert_refuses_a_remainder_even_with_head_dim() -> None:
    assert errors({"model_type": "eurobert", **SMALL, "hidden_size": 9, "head_dim": 4, "pad_token_id": 0})


# ----------------------------------------------------------------- DINOv2
IMAGE = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "image_size": 8, "patch_size": 4}
CONV = 8 * 3 * 4 * 4 + 8                  # a 4 × 4 patch conv over 3 channels, with a bias: 392
PATCHES = 4                               # (8 // 4)²


def test_dinov2_by_hand() -> None:
    cfg = {"model_type": "dinov2", **IMAGE, "mlp_ratio": 2, "architectures": ["Dinov2Model"]}
    embeddings = H + H + CONV + (PATCHES + 1) * H   # cls token, mask token (1 × 8), conv, positions: 448
    mlp = (H * 16 + 16) + (16 * H + H)              # fc1 8 → 16 (mlp_ratio 2), fc2: 280
    layer = 4 * LINEAR + 2 * NORM + 2 * H + mlp     # q/k/v/o, norm1 + norm2, two layer scales: 616
    assert model(cfg).tree.total == embeddings + layer + NORM == 1080
    assert model({**cfg, "use_mask_token": False}).tree.total == 1080 - H
    # The classifier reads the class token and the mean patch: 16 inputs.
    classifier = model({**cfg, "architectures": ["Dinov2ForImageClassification"]}).tree
    assert classifier.total == 1080 + (2 * H * 2 + 2) == 1114
    # SwiGLU: int(16 × 2 / 3) = 10, rounded up to 16; gate, up and down, all with biases.
    swiglu = model({**cfg, "use_swiglu_ffn": True}).tree
    assert swiglu.total == 1080 - mlp + 2 * (H * 16 + 16) + (16 * H + H) == 1224


def test_dinov2_with_registers_by_hand() -> None:
    cfg = {"model_type": "dinov2_with_registers", **IMAGE, "mlp_ratio": 2, "num_register_tokens": 3,
           "architectures": ["Dinov2WithRegistersModel"]}
    assert model(cfg).tree.total == 1080 + 3 * H  # DINOv2's, with 3 register tokens; its mask token always


# ----------------------------------------------------------------- DeiT
def test_deit_by_hand() -> None:
    cfg = {"model_type": "deit", **IMAGE, "intermediate_size": F}
    embeddings = H + H + CONV + (PATCHES + 2) * H   # cls and distillation tokens, conv, positions for both: 456
    body = embeddings + 4 * LINEAR + MLP + 2 * NORM + NORM  # one ViT layer and the final layernorm: 1004
    assert model({**cfg, "architectures": ["DeiTModel"]}).tree.total == body + LINEAR == 1076  # + pooler
    teacher = model({**cfg, "architectures": ["DeiTForImageClassificationWithTeacher"]}).tree
    assert teacher.total == body + 2 * (H * 2 + 2) == 1040  # cls_classifier + distillation_classifier


# ----------------------------------------------------------------- SigLIP, SigLIP 2
TEXT_TOWER = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": F,
              "vocab_size": V, "max_position_embeddings": P, "projection_size": 4}
VISION_TOWER = {**IMAGE, "intermediate_size": F, "vision_use_head": False}
TOWER_LAYER = 4 * LINEAR + MLP + 2 * NORM       # 532


def test_siglip_text_tower_by_hand() -> None:
    tree = model({"model_type": "siglip_text_model", **TEXT_TOWER}).tree
    # token + position tables, a layer, final_layer_norm, head 8 → 4 with a bias
    assert tree.total == V * H + P * H + TOWER_LAYER + NORM + (H * 4 + 4) == 824


def test_siglip_model_by_hand() -> None:
    cfg = {"model_type": "siglip", "text_config": TEXT_TOWER, "vision_config": VISION_TOWER}
    vision = CONV + PATCHES * H + TOWER_LAYER + NORM  # conv, positions (no class token), a layer, post_layernorm: 972
    assert model(cfg).tree.total == 824 + vision + 2 == 1798  # + logit_scale and logit_bias
    # The vision tower's attention-pooling head: probe, packed q/k/v, out_proj, layernorm, MLP.
    head = H + (3 * H * H + 3 * H) + LINEAR + NORM + MLP
    with_head = {**cfg, "vision_config": {**VISION_TOWER, "vision_use_head": True}}
    assert model(with_head).tree.total == 1798 + head == 2322
    classifier = {**with_head, "architectures": ["SiglipForImageClassification"]}
    assert model(classifier).tree.total == vision + head + (H * 2 + 2)


def test_siglip2_model_by_hand() -> None:
    vision_cfg = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": F,
                  "patch_size": 4, "num_patches": 9, "vision_use_head": False}
    # A Linear over each flattened 3 × 4 × 4 patch, 9 positions, a layer, post_layernorm.
    vision = (3 * 4 * 4 * H + H) + 9 * H + TOWER_LAYER + NORM
    assert model({"model_type": "siglip2_vision_model", **vision_cfg}).tree.total == vision == 1012
    cfg = {"model_type": "siglip2", "text_config": TEXT_TOWER, "vision_config": vision_cfg}
    assert model(cfg).tree.total == 824 + 1012 + 2
