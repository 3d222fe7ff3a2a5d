"""Qwen2.5-VL (qwen2_5_vl, with its qwen2_5_vl_text and qwen2_5_vl_vision sub-families) without torch.

Every total here is what transformers 5.25 builds on the meta device (checked there, and on random
configs in tests/parity/test_parity.py); these tests pin the published models and the problems a bad
config gets (the flat and nested ways of writing the text model: test_qwen_vl_families.py).
"""

from __future__ import annotations

from config_models import QWEN_VL_TEXT_KEYS, catalog_config, errors, model

from lsp_count.core.memory import lora_adapter_breakdown, lora_adapter_params

# Qwen/Qwen2.5-VL-7B-Instruct's config.json as the Hub has it (the bundled catalog's): flat, the text
# model's keys at the top level.
QWEN2_5_VL_7B = catalog_config("Qwen/Qwen2.5-VL-7B-Instruct")
TOTAL_7B = 8_292_166_656  # Qwen2_5_VLForConditionalGeneration, transformers 5.25 on the meta device
VISION_7B = 676_550_144
TEXT_7B = 7_070_619_136
HEAD_7B = 152064 * 3584

# Qwen/Qwen2.5-VL-3B-Instruct: a tied head and a 2,048-wide merger.
QWEN2_5_VL_3B = catalog_config("Qwen/Qwen2.5-VL-3B-Instruct")
TOTAL_3B = 3_754_622_976


def _vision_ours(h: int, ffn: int, depth: int, out: int, merge: int = 2, patch: int = 14, frames: int = 2,
                 channels: int = 3) -> int:
    """The vision tower as modeling_qwen2_5_vl.py builds it."""
    block = 2 * h + (h * 3 * h + 3 * h) + (h * h + h) + 2 * (h * ffn + ffn) + (ffn * h + h)
    merged = h * merge * merge
    return channels * frames * patch * patch * h + depth * block + h + (merged * merged + merged) + (merged * out + out)


# ----------------------------------------------------------------- published sizes
def test_qwen2_5_vl_7b_is_what_transformers_builds() -> None:
    tree = model(QWEN2_5_VL_7B).tree
    assert tree.total == TOTAL_7B
    assert list(tree.components()) == ["visual", "language_model", "lm_head"]
    assert tree.components() == {"visual": VISION_7B, "language_model": TEXT_7B, "lm_head": HEAD_7B}
    assert VISION_7B == _vision_ours(1280, 3420, 32, 3584)
    visual = tree.root.child("visual")
    assert visual.note == "qwen2_5_vl_vision"
    assert [c.name for c in visual.children] == ["patch_embed", "blocks", "merger"]
    assert visual.child("blocks").repeat == 32
    assert tree.root.child("language_model").child("layers").repeat == 28


def test_qwen2_5_vl_3b_ties_its_head() -> None:
    tree = model(QWEN2_5_VL_3B).tree
    assert tree.total == TOTAL_3B
    assert tree.components()["lm_head"] == 0


def test_sub_models_on_their_own() -> None:
    vision = {**QWEN2_5_VL_7B["vision_config"], "model_type": "qwen2_5_vl_vision",
              "architectures": ["Qwen2_5_VisionTransformerPretrainedModel"]}
    assert model(vision).tree.total == VISION_7B
    text = {k: QWEN2_5_VL_7B[k] for k in QWEN_VL_TEXT_KEYS} | {"model_type": "qwen2_5_vl_text",
                                                       "architectures": ["Qwen2_5_VLTextModel"]}
    assert model(text).tree.total == TEXT_7B


def test_class_defaults() -> None:
    # Qwen2_5_VLConfig(): the 72B-sized text model and a 3,584-wide vision tower (transformers: 75,789,228,800).
    assert model({"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"]}).tree.total \
        == 75_789_228_800
    # No vision_config: Qwen2_5_VLVisionConfig's defaults (hidden_size 3,584), the 7B's text model.
    no_vision = {k: v for k, v in QWEN2_5_VL_7B.items() if k != "vision_config"}
    tree = model(no_vision).tree
    assert tree.total == 10_698_641_664
    assert tree.components()["visual"] == _vision_ours(3584, 3420, 32, 3584)


# ----------------------------------------------------------------- LoRA
def test_lora_adapters_are_pefts() -> None:
    tree = model(QWEN2_5_VL_7B).tree
    # peft's get_peft_model on the meta device: all-linear (the vision tower's too), and named targets.
    assert lora_adapter_params(tree, 16) == 51_824_640
    assert lora_adapter_params(tree, 16, ("q_proj", "v_proj")) == 5_046_272
    assert lora_adapter_params(tree, 8, ("mlp.0", "qkv")) == 1_392_640
    assert {"qkv", "proj", "mlp.0", "mlp.2", "q_proj", "gate_proj"} <= set(lora_adapter_breakdown(tree, 16))


# ----------------------------------------------------------------- bad input
def test_a_text_config_that_is_not_an_object_is_refused() -> None:
    (problem,) = errors({**QWEN2_5_VL_7B, "text_config": [1]})
    assert problem.code == "LC102" and '"text_config"' in problem.message
