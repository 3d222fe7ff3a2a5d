"""Qwen2-VL (qwen2_vl, with its qwen2_vl_text and qwen2_vl_vision sub-families) without torch.

Every total here is what transformers 5.25 builds on the meta device (checked there, and on random
configs in tests/parity/test_parity.py); these tests pin the published models, what sets Qwen2-VL's
vision tower apart from Qwen2.5-VL's, and the problems a bad config gets (the flat and nested ways of
writing the text model: test_qwen_vl_families.py).
"""

from __future__ import annotations

from config_models import QWEN_VL_TEXT_KEYS, catalog_config, errors, model

from lsp_count.core.memory import lora_adapter_breakdown, lora_adapter_params

# Qwen/Qwen2-VL-7B-Instruct's config.json as the Hub has it (the bundled catalog's): flat (the text model's
# keys at the top level), the vision tower's "hidden_size" the width its merger projects to, and "in_chans"
# (no key of transformers 5's).
QWEN2_VL_7B = catalog_config("Qwen/Qwen2-VL-7B-Instruct")
TOTAL_7B = 8_291_375_616  # Qwen2VLForConditionalGeneration, transformers 5.25 on the meta device
VISION_7B = 675_759_104
TEXT_7B = 7_070_619_136  # the same text model as Qwen2.5-VL-7B's
HEAD_7B = 152064 * 3584

# Qwen/Qwen2-VL-2B-Instruct: a tied head and a merger 1,536 wide.
QWEN2_VL_2B = catalog_config("Qwen/Qwen2-VL-2B-Instruct")
TOTAL_2B = 2_208_985_600  # transformers 5.25 on the meta device


def _vision_ours(embed: int, ratio: int, depth: int, out: int, merge: int = 2, patch: int = 14, frames: int = 2,
                 channels: int = 3) -> int:
    """The vision tower as modeling_qwen2_vl.py builds it: LayerNorms with biases, fc1 / fc2."""
    ffn = embed * ratio
    block = 2 * 2 * embed + (embed * 3 * embed + 3 * embed) + (embed * embed + embed) + (embed * ffn + ffn) \
        + (ffn * embed + embed)
    merged = embed * merge * merge
    return (channels * frames * patch * patch * embed + depth * block + 2 * embed + (merged * merged + merged)
            + (merged * out + out))


def _text_ours(h: int, ffn: int, layers: int, heads: int, kv: int, vocab: int) -> int:
    """Qwen2VLTextModel: q/k/v with biases, o_proj without, a gated MLP, two RMSNorms a layer and one at the end."""
    head_dim = h // heads
    attention = (h * heads * head_dim + heads * head_dim) + 2 * (h * kv * head_dim + kv * head_dim) + heads * head_dim * h
    return vocab * h + layers * (attention + 3 * h * ffn + 2 * h) + h


# ----------------------------------------------------------------- published sizes
def test_qwen2_vl_7b_is_what_transformers_builds() -> None:
    tree = model(QWEN2_VL_7B).tree
    assert tree.total == TOTAL_7B
    assert list(tree.components()) == ["visual", "language_model", "lm_head"]
    assert tree.components() == {"visual": VISION_7B, "language_model": TEXT_7B, "lm_head": HEAD_7B}
    assert VISION_7B == _vision_ours(1280, 4, 32, 3584)
    assert TEXT_7B == _text_ours(3584, 18944, 28, 28, 4, 152064)
    visual = tree.root.child("visual")
    assert visual.note == "qwen2_vl_vision"
    assert [c.name for c in visual.children] == ["patch_embed", "blocks", "merger"]
    assert visual.child("blocks").repeat == 32
    assert tree.root.child("language_model").note == "qwen2_vl_text"
    assert tree.root.child("language_model").child("layers").repeat == 28


def test_qwen2_vl_2b_ties_its_head() -> None:
    tree = model(QWEN2_VL_2B).tree
    assert tree.total == TOTAL_2B
    assert tree.components() == {"visual": _vision_ours(1280, 4, 32, 1536),
                                 "language_model": _text_ours(1536, 8960, 28, 12, 2, 151936), "lm_head": 0}
    assert model({**QWEN2_VL_2B, "architectures": ["Qwen2VLModel"]}).tree.total == TOTAL_2B  # tied: no head to leave out


def test_sub_models_on_their_own() -> None:
    vision = {**QWEN2_VL_7B["vision_config"], "model_type": "qwen2_vl_vision",
              "architectures": ["Qwen2VisionTransformerPretrainedModel"]}
    assert model(vision).tree.total == VISION_7B
    text = {k: QWEN2_VL_7B[k] for k in QWEN_VL_TEXT_KEYS} | {"model_type": "qwen2_vl_text", "architectures": ["Qwen2VLTextModel"]}
    assert model(text).tree.total == TEXT_7B


def test_class_defaults() -> None:
    # Qwen2VLConfig(): the 72B-sized text model and Qwen2VLVisionConfig's tower (transformers: 73,381,962,752).
    assert model({"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"]}).tree.total \
        == 73_381_962_752
    # No vision_config: Qwen2VLVisionConfig's defaults, which are the 7B's tower.
    no_vision = {k: v for k, v in QWEN2_VL_7B.items() if k != "vision_config"}
    assert model(no_vision).tree.total == TOTAL_7B


# ----------------------------------------------------------------- the vision tower's own keys
def test_the_merger_projects_to_the_vision_configs_hidden_size() -> None:
    # Qwen2-VL's vision "hidden_size" is only the merger's output width; the blocks are embed_dim wide.
    vision = QWEN2_VL_7B["vision_config"]
    wider = model({**QWEN2_VL_7B, "vision_config": {**vision, "hidden_size": 4096}}).tree
    assert wider.components()["visual"] == VISION_7B + (4096 - 3584) * (5120 + 1)
    narrower_blocks = model({**QWEN2_VL_7B, "vision_config": {**vision, "embed_dim": 640}}).tree
    assert narrower_blocks.components()["visual"] == _vision_ours(640, 4, 32, 3584)


def test_mlp_ratio_sets_the_mlp_width() -> None:
    vision = QWEN2_VL_7B["vision_config"]
    for ratio in (0, 1, 2, 4):
        tree = model({**QWEN2_VL_7B, "vision_config": {**vision, "mlp_ratio": ratio}}).tree
        assert tree.components()["visual"] == _vision_ours(1280, ratio, 32, 3584)
    fc1 = {t.name: t.shape for t in model(QWEN2_VL_7B).tree.root.child("visual").child("blocks").child("mlp").tensors}
    assert fc1 == {"fc1.weight": (5120, 1280), "fc1.bias": (5120,), "fc2.weight": (1280, 5120), "fc2.bias": (1280,)}


def test_a_fractional_mlp_ratio_is_refused() -> None:
    # Qwen2VLVisionConfig's mlp_ratio is a strict int: 2.5 fails there (int(embed_dim * 2.5) is never reached).
    problems = errors({**QWEN2_VL_7B, "vision_config": {**QWEN2_VL_7B["vision_config"], "mlp_ratio": 2.5}})
    assert problems and '"mlp_ratio"' in problems[0].message and "whole number" in problems[0].message


# ----------------------------------------------------------------- LoRA
def test_lora_adapters_are_pefts() -> None:
    tree = model(QWEN2_VL_7B).tree
    # peft's get_peft_model on the meta device: all-linear (the vision tower's too), and named targets.
    assert lora_adapter_params(tree, 16) == 51_159_040
    assert lora_adapter_params(tree, 16, ("q_proj", "v_proj")) == 5_046_272
    assert lora_adapter_params(tree, 8, ("fc1", "qkv")) == 2_949_120
    assert lora_adapter_params(tree, 8, ("mlp.0", "qkv")) == 1_392_640
    assert {"qkv", "proj", "fc1", "fc2", "mlp.0", "mlp.2", "q_proj", "gate_proj"} <= set(lora_adapter_breakdown(tree, 16))


# ----------------------------------------------------------------- bad input
def test_a_null_vision_size_is_refused() -> None:
    for key in ("embed_dim", "mlp_ratio", "hidden_size"):
        problems = errors({**QWEN2_VL_7B, "vision_config": {**QWEN2_VL_7B["vision_config"], key: None}})
        assert problems and f'"{key}": null' in problems[0].message, key
