"""A dual encoder's memory (CLIP, SigLIP, SigLIP 2) at each tower's own tokens (core/memory.dual_towers): the text
tower at its position table's length (CLIP's 77, SigLIP's 64), the vision tower at one image's tokens (CLIP ViT-B/32's
50), against transformers 5: the dual model, given that many text tokens and one image of the vision config's size,
returns hidden states of those lengths, and one more text token fails, for the class defaults (meta device) and random
small configs (CPU; tests/parity/strategies.py). Before, both towers were estimated at 4,096 tokens: CLIP ViT-B/32
training at batch 32 showed 67.5 GiB of activations instead of 1.8."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import dual_towers, estimate_memory, position_limit, Settings

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

DUAL_TYPES = ("clip", "metaclip_2", "chinese_clip", "siglip", "siglip2")
ARCHITECTURES = {"clip": "CLIPModel", "metaclip_2": "MetaClip2Model", "chinese_clip": "ChineseCLIPModel",
                 "siglip": "SiglipModel", "siglip2": "Siglip2Model"}


def _model(config: dict):
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    return report.models[0] if report.models and not report.has_errors else None


def _tokens(model) -> dict[str, int | None]:
    return {t.name: t.tokens for t in dual_towers(model)}


def _inputs(model_type: str, built, text_tokens: int, device: str) -> dict:
    vision = built.vision_config
    ids = torch.ones(1, text_tokens, dtype=torch.long, device=device)
    if model_type == "siglip2":  # images of any shape, given as num_patches flattened patches
        patch = vision.patch_size
        return {"input_ids": ids,
                "pixel_values": torch.zeros(1, vision.num_patches, vision.num_channels * patch * patch, device=device),
                "pixel_attention_mask": torch.ones(1, vision.num_patches, dtype=torch.long, device=device),
                "spatial_shapes": torch.tensor([[1, vision.num_patches]])}
    return {"input_ids": ids,
            "pixel_values": torch.zeros(1, vision.num_channels, vision.image_size, vision.image_size, device=device)}


def _lengths(model_type: str, config: dict, text_tokens: int, device: str) -> tuple[int, int]:
    """(text, vision) lengths of the hidden states the towers of transformers' dual model return for
    ``text_tokens`` tokens and one image."""
    from transformers import CONFIG_MAPPING

    built = CONFIG_MAPPING[model_type].from_dict(dict(config))
    with torch.device(device), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(transformers, ARCHITECTURES[model_type])(built).eval()
    inputs = _inputs(model_type, built, text_tokens, device)
    # Each tower as the dual model runs it (its forward also needs the pooled outputs that a config may drop:
    # SigLIP's vision_use_head).
    with torch.no_grad():
        text = model.text_model(input_ids=inputs.pop("input_ids"))
        vision = model.vision_model(**inputs)
    return text.last_hidden_state.shape[1], vision.last_hidden_state.shape[1]


@pytest.mark.parametrize("model_type", DUAL_TYPES)
def test_the_class_defaults_towers_run_over_transformers_lengths(model_type: str) -> None:
    model = _model({"model_type": model_type})
    tokens = _tokens(model)
    device = "cpu" if model_type == "siglip2" else "meta"  # (SigLIP 2 reads its input's spatial_shapes' values)
    assert (tokens["text"], tokens["vision"]) == _lengths(model_type, {"model_type": model_type}, tokens["text"], device)
    report = estimate_memory(model, Settings())
    assert report.settings.context == tokens["text"]
    assert any(f"context {tokens['text']}: " in note and f"{tokens['vision']} tokens of one image" in note
               for note in report.notes)
    limit = position_limit(model)
    assert limit is not None and limit.hard and limit.tokens == tokens["text"]


@pytest.mark.parametrize("model_type", DUAL_TYPES)
def test_random_configs_towers_run_over_transformers_lengths(model_type: str) -> None:
    compared = []

    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        model = _model(config)
        assume(model is not None)
        tokens = _tokens(model)
        assume(tokens.get("text") is not None and tokens.get("vision") is not None and tokens["text"] <= 256)
        torch.manual_seed(0)
        try:
            lengths = _lengths(model_type, config, tokens["text"], "cpu")
        except (RuntimeError, ValueError, TypeError, IndexError):  # random sizes transformers cannot run
            assume(False)
        assert (tokens["text"], tokens["vision"]) == lengths, json.dumps(config)
        with pytest.raises((RuntimeError, IndexError, ValueError)):  # no position past the text tower's table
            _lengths(model_type, config, tokens["text"] + 1, "cpu")
        compared.append(lengths)

    check()
    assert compared, "no random config ran"
