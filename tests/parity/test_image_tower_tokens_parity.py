"""A vision-language model's vision tower in the memory estimate (core/memory.image_tower): for the families whose
tower runs once per image at its config's image_size (the row key one_pass_per_image), one image's tokens, against
transformers 5: the vision tower the model holds returns hidden states of that length for one image, on the meta
device, for each family's class defaults. Before, a vision-language model's vision tower kept no activations in the
estimate: LLaVA 1.5's 577 tokens through 24 CLIP layers per image."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import image_tower

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

ONE_PASS_TYPES = sorted(mt for mt, family in registry().items()
                        if "one_pass_per_image" in family.fields)


def _model(config: dict):
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    assert report.models and not report.has_errors, report.problems
    return report.models[0]


def test_the_one_pass_families_are_found() -> None:
    assert {"llava", "vipllava", "paligemma", "gemma3", "deepseek_vl"} <= set(ONE_PASS_TYPES)
    # Tiled by the processor's settings, or any-size images: not modelled (LLaVA-NeXT's tiles, which its config
    # gives: tests/parity/test_tiled_image_tower_parity.py).
    assert image_tower(_model({"model_type": "idefics3"})) is None
    assert image_tower(_model({"model_type": "qwen2_vl"})) is None


@pytest.mark.parametrize("model_type", ONE_PASS_TYPES)
def test_the_vision_tower_runs_over_one_image_s_tokens(model_type: str) -> None:
    from transformers import CONFIG_MAPPING

    family = registry()[model_type]
    tower = image_tower(_model({"model_type": model_type}))
    assert tower is not None
    built = CONFIG_MAPPING[model_type]()
    vision = built.vision_config
    with torch.device("meta"):
        model = getattr(transformers, family.architecture)(built)
    pixels = torch.zeros(1, vision.num_channels, vision.image_size, vision.image_size, device="meta")
    held = getattr(model.model, "vision_tower", None) or model.model.vision_model  # (DeepSeek-VL's name)
    with torch.no_grad():
        out = held(pixel_values=pixels)
    assert out.last_hidden_state.shape[1] == tower.tokens
    # The estimate's tower is the tree's: the same parameters as transformers' tower.
    assert tower.model.tree.root.total == sum(p.numel() for p in held.parameters())
