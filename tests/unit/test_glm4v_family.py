"""GLM-4.1V (glm4v) and its towers (glm4v_vision, glm4v_text) without torch.

Every total here is counted by hand below; the class defaults are what transformers 5.25 builds on the meta
device (taken there once), and tests/parity checks random configs of each family against it.
"""

from __future__ import annotations

from config_models import analyze, assert_class_default_total, errors, model

from lsp_count.core.memory import Settings, estimate_memory

# A small text model: 16 wide, 2 layers of 2 heads 8 wide (one kv head), MLP 32, vocab 64.
TEXT = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
        "intermediate_size": 32, "vocab_size": 64}
# q 16·16 + 16, k and v 16·8 + 8 (biases always), o 16·16 (none), gate_up 16·64, down 32·16, four RMSNorms of 16
LAYER = (256 + 16) + 2 * (128 + 8) + 256 + 16 * 64 + 32 * 16 + 4 * 16
assert LAYER == 2_400
TEXT_TOTAL = 64 * 16 + 2 * LAYER + 16  # embed_tokens, the layers, the final norm
assert TEXT_TOTAL == 5_840
HEAD = 64 * 16  # an untied lm_head

# A small tower: 2 blocks 8 wide (2 heads), its gated MLP out_hidden_size 16 wide, the merger's 12, 28-pixel
# images of 14-pixel patches, 2 frames a patch, 2×2 merged, a qkv bias.
VISION = {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 12, "out_hidden_size": 16,
          "image_size": 28, "attention_bias": True}
POSITIONS = (28 // 14) ** 2 * 8  # embeddings.position_embedding: 4 patches × 8
PATCH_EMBED = 8 * 3 * 2 * 14 * 14 + 8  # Conv3d 3 → 8 channels, 2×14×14, with a bias
# qkv 8·24 + 24, proj 8·8, gate_proj / up_proj 8·16, down_proj 16·8, norm1 / norm2 8
BLOCK = (8 * 24 + 24) + 64 + 3 * 128 + 2 * 8
assert BLOCK == 680
DOWNSAMPLE = 16 * 8 * 2 * 2 + 16  # Conv2d 8 → 16 channels, 2×2, with a bias
# proj 16·16, post_projection_norm (a LayerNorm) 2·16, gate_proj / up_proj 16·12, down_proj 12·16
MERGER = 256 + 32 + 3 * 16 * 12
VISION_TOTAL = POSITIONS + PATCH_EMBED + 2 * BLOCK + 8 + DOWNSAMPLE + MERGER + 8  # + post_conv / post_layernorm
assert VISION_TOTAL == 12_216

GLM4V = {"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"], "text_config": dict(TEXT),
         "vision_config": dict(VISION)}
TOTAL = VISION_TOTAL + TEXT_TOTAL + HEAD
assert TOTAL == 19_080


def test_glm4v_counts_its_vision_tower_text_model_and_head() -> None:
    m = model(GLM4V)
    assert m.tree.total == TOTAL
    root = m.tree.root
    assert root.child("visual").total == VISION_TOTAL and root.child("visual").note == "glm4v_vision"
    assert root.child("language_model").total == TEXT_TOTAL and root.child("language_model").note == "glm4v_text"
    assert root.child("visual").child("merger").total == MERGER
    assert model({**GLM4V, "architectures": ["Glm4vModel"]}).tree.total == TOTAL - HEAD


def test_the_towers_alone() -> None:
    tower = {"model_type": "glm4v_vision", "architectures": ["Glm4vVisionModel"], **VISION}
    assert model(tower).tree.total == VISION_TOTAL
    # attribute_map: num_hidden_layers / num_attention_heads set depth / num_heads (and win beside them).
    assert model({**tower, "num_hidden_layers": 1}).tree.total == VISION_TOTAL - BLOCK
    assert model({**tower, "attention_bias": False}).tree.total == VISION_TOTAL - 2 * 24
    text = {"model_type": "glm4v_text", "architectures": ["Glm4vTextModel"], **TEXT}
    assert model(text).tree.total == TEXT_TOTAL
    # Heads that do not divide the width are floored: 3 heads of 17 are 5 wide (q 17·15 + 15, o 15·17).
    odd = model({**text, "hidden_size": 17, "num_attention_heads": 3, "num_key_value_heads": 1}).tree.total
    layer = (17 * 15 + 15) + 2 * (17 * 5 + 5) + 15 * 17 + 17 * 64 + 32 * 17 + 4 * 17
    assert odd == 64 * 17 + 2 * layer + 17


def test_the_head_ties_by_either_tie_word_embeddings() -> None:
    assert model({**GLM4V, "tie_word_embeddings": True}).tree.total == TOTAL - HEAD
    # Glm4vConfig forwards text_config's (pre-v5 saves)
    assert model({**GLM4V, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == TOTAL - HEAD
    # the text config is always Glm4vTextConfig, whatever model_type it names; top-level text keys are not read
    assert model({**GLM4V, "text_config": {**TEXT, "model_type": "llama"}}).tree.total == TOTAL
    assert model({**GLM4V, "hidden_size": 64, "num_hidden_layers": 7}).tree.total == TOTAL


def test_bad_configs() -> None:
    problems = errors({**GLM4V, "vision_config": {**VISION, "num_heads": 9}})
    assert problems and "num_heads (9)" in problems[0].message
    assert errors({**GLM4V, "vision_config": {**VISION, "image_size": [28, 28]}})
    assert errors({**GLM4V, "vision_config": {**VISION, "rope_parameters": {"rope_type": "yarn", "factor": 2.0}}})
    report = analyze({**GLM4V, "vision_config": {**VISION, "out_hidden_size": 24}})
    assert not report.has_errors
    assert any(p.code == "LC103" and "out_hidden_size (24)" in p.message for p in report.problems)


def test_the_kv_cache_is_the_text_model_s() -> None:
    settings = Settings(mode="inference", context=1024, batch=2)
    line = estimate_memory(model(GLM4V), settings).line("kv_cache")
    # 2 layers × K and V × 1 kv head × 8 × 1,024 tokens × batch 2 × 2 bytes
    assert line is not None and line.bytes == 2 * 2 * 1 * 8 * 1024 * 2 * 2


# GLM-4.5V's MoE text model: layer 0 dense, layers 1 and 2 of 4 experts (top 2) 8 wide and one shared expert.
MOE_TEXT = {**TEXT, "num_hidden_layers": 3, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8}
ATTENTION = (256 + 16) + 2 * (128 + 8) + 256  # q/k/v biases by attention_bias (true), none on o_proj
DENSE_LAYER = ATTENTION + 3 * 16 * 32 + 2 * 16  # gate_proj / up_proj / down_proj, two RMSNorms (no q/k norms)
EXPERT = 2 * 8 * 16 + 16 * 8  # one expert's share of the fused gate_up_proj and down_proj
MOE_LAYER = ATTENTION + 4 * 16 + 4 * EXPERT + 3 * 16 * 8 + 2 * 16  # router weight, experts, shared expert, norms
MOE_TEXT_TOTAL = 64 * 16 + DENSE_LAYER + 2 * MOE_LAYER + 16
assert MOE_TEXT_TOTAL == 9_040
GLM4V_MOE = {"model_type": "glm4v_moe", "architectures": ["Glm4vMoeForConditionalGeneration"],
             "text_config": dict(MOE_TEXT), "vision_config": dict(VISION)}


def test_glm4v_moe_counts_its_experts_and_the_active_part() -> None:
    tree = model(GLM4V_MOE).tree
    assert tree.total == VISION_TOTAL + MOE_TEXT_TOTAL + HEAD == 22_280
    assert tree.active == tree.total - 2 * 2 * EXPERT  # 2 of 4 experts run per token in each MoE layer
    # num_local_experts is n_routed_experts (attribute_map); first_k_dense_replace makes layers dense
    alias = {**{k: v for k, v in MOE_TEXT.items() if k != "n_routed_experts"}, "num_local_experts": 4}
    assert model({**GLM4V_MOE, "text_config": alias}).tree.total == tree.total
    dense = {**MOE_TEXT, "first_k_dense_replace": 3}
    assert model({**GLM4V_MOE, "text_config": dense}).tree.total == tree.total + 2 * (DENSE_LAYER - MOE_LAYER)
    # the alias written as a float builds only where no layer is MoE (transformers sets it past its checks)
    floated = {**alias, "num_local_experts": 4.0}
    (problem,) = errors({**GLM4V_MOE, "text_config": floated})
    assert '"num_local_experts"' in problem.message and "float" in problem.message
    assert model({**GLM4V_MOE, "text_config": {**floated, "first_k_dense_replace": 3}}).tree.total == \
        tree.total + 2 * (DENSE_LAYER - MOE_LAYER)
    # a head_dim of the file's own is the heads' width (its attention reads it)
    wide = model({"model_type": "glm4v_moe_text", "architectures": ["Glm4vMoeTextModel"], **MOE_TEXT, "head_dim": 16})
    assert wide.tree.total == MOE_TEXT_TOTAL + 3 * ((256 + 16) + 2 * (128 + 8) + 256)


def test_class_defaults() -> None:
    # transformers 5.25 on the meta device (GLM-4.1V-9B's sizes)
    assert model({"model_type": "glm4v", "architectures": ["Glm4vForConditionalGeneration"]}).tree.total == 10_292_777_472
    assert model({"model_type": "glm4v", "architectures": ["Glm4vModel"]}).tree.total == 9_672_020_480
    assert model({"model_type": "glm4v_vision", "architectures": ["Glm4vVisionModel"]}).tree.total == 892_498_432
    assert model({"model_type": "glm4v_text", "architectures": ["Glm4vTextModel"]}).tree.total == 8_779_522_048
    # GLM-4.5V's sizes
    assert model({"model_type": "glm4v_moe", "architectures": ["Glm4vMoeForConditionalGeneration"]}).tree.total == \
        104_372_866_880
    assert model({"model_type": "glm4v_moe", "architectures": ["Glm4vMoeModel"]}).tree.total == 103_752_634_176
    assert model({"model_type": "glm4v_moe_vision", "architectures": ["Glm4vMoeVisionModel"]}).tree.total == 892_498_432
    assert model({"model_type": "glm4v_moe_text", "architectures": ["Glm4vMoeTextModel"]}).tree.total == \
        102_860_135_744


# --- GLM-4.6V (glm46v): GLM-4.1V's classes over sub-configs resolved by the model_type they name ----------------

GLM46V = {**GLM4V, "model_type": "glm46v", "architectures": ["Glm46VForConditionalGeneration"]}


def test_glm46v_class_defaults() -> None:
    # transformers 5.25, meta device, Glm46VConfig's defaults (Glm4vTextConfig's and Glm4vVisionConfig's).
    assert model({"model_type": "glm46v", "architectures": ["Glm46VForConditionalGeneration"]}).tree.total \
        == 10_292_777_472
    assert model({"model_type": "glm46v", "architectures": ["Glm46VModel"]}).tree.total == 9_672_020_480


def test_glm46v_is_glm4v_s_shape_and_ties_by_its_own_key_alone() -> None:
    assert model(GLM46V).tree.total == TOTAL == 19_080
    assert model({**GLM46V, "architectures": ["Glm46VModel"]}).tree.total == TOTAL - HEAD
    assert model({**GLM46V, "tie_word_embeddings": True}).tree.total == TOTAL - HEAD
    # Glm46VConfig does not forward text_config's tie_word_embeddings.
    assert model({**GLM46V, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == TOTAL


def test_glmga_is_glm46v_under_its_own_model_type() -> None:
    # GLM-4.1V-Thinking's GlmgaConfig (Glm46VConfig's fields): transformers 5.25 builds it with GLM-4.6V's classes;
    # class defaults on the meta device.
    assert_class_default_total("glmga", "Glm46VForConditionalGeneration", 10_292_777_472)
    assert_class_default_total("glmga", "Glm46VModel", 9_672_020_480)
    glmga = {**GLM46V, "model_type": "glmga"}
    assert model(glmga).tree.total == TOTAL
    assert model({**glmga, "tie_word_embeddings": True}).tree.total == TOTAL - HEAD
    assert model({**glmga, "text_config": {**TEXT, "tie_word_embeddings": True}}).tree.total == TOTAL


def test_glm46v_resolves_the_text_model_it_names() -> None:
    # A Llama text model: q/k/v/o without biases 256 + 128 + 128 + 256, MLP 3·16·32, two RMSNorms of 16 a layer.
    llama = 64 * 16 + 2 * (768 + 3 * 16 * 32 + 2 * 16) + 16
    assert llama == 5_712
    assert model({**GLM46V, "text_config": {**TEXT, "model_type": "llama"}}).tree.total \
        == VISION_TOTAL + llama + HEAD == 18_952
    # A tower lsp-count has no GLM shape for is refused (transformers would build a SigLIP one there).
    assert errors({**GLM46V, "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 8}})
