"""The context an image encoder's memory estimate takes where the user gives none: the tokens its layers run over
for one image of the config's image_size (layouts/encoder.image_tokens: the patches and the class, distillation,
detection or register tokens beside them), against the sequence length of the hidden states transformers 5's
model returns for such an image, on the meta device, for each image family's class defaults and random configs
(tests/parity/strategies.py). Before, every model was estimated at 4,096 tokens unless told otherwise: ViT-B/16
training at batch 32 needed 76.5 GiB by the estimate instead of 5.9."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.layouts.encoder import image_tokens
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _spec(config: dict):
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    if not report.models or report.has_errors:
        return None, None
    return report.models[0], report.models[0].spec


IMAGE_TYPES = sorted(mt for mt, family in registry().items()
                     if family.layout == "encoder" and (spec := _spec({"model_type": mt})[1]) is not None
                     and image_tokens(spec) is not None)


def _sequence_length(model_type: str, config: dict) -> int:
    """The length of the last hidden states transformers' bare model returns for one image of image_size."""
    from transformers import CONFIG_MAPPING

    family = registry()[model_type]
    architecture = next((a for a, head in family.heads.items() if head == "base"), next(iter(family.heads)))
    built = CONFIG_MAPPING[model_type].from_dict(dict(config))
    if model_type == "siglip2_vision_model":  # images of any shape, given as num_patches flattened patches
        patch = built.patch_size
        inputs = {"pixel_values": torch.zeros(1, built.num_patches, built.num_channels * patch * patch, device="meta"),
                  "pixel_attention_mask": torch.ones(1, built.num_patches, dtype=torch.long, device="meta"),
                  "spatial_shapes": torch.tensor([[1, built.num_patches]])}
    else:
        size = built.image_size if not isinstance(built.image_size, int) else (built.image_size, built.image_size)
        inputs = {"pixel_values": torch.zeros(1, built.num_channels, *size, device="meta")}
    try:
        with torch.device("meta"):
            model = getattr(transformers, architecture)(built)
        with torch.no_grad():
            out = model(**inputs, output_hidden_states=True)
    except RuntimeError as exc:  # a model that reads a value of its input (Idefics 2's patch positions): on the CPU
        if "meta tensors" not in str(exc):
            raise
        model = getattr(transformers, architecture)(built)
        inputs = {k: torch.zeros_like(t, device="cpu") if t.is_floating_point() else torch.ones_like(t, device="cpu")
                  if t.device.type == "meta" else t for k, t in inputs.items()}
        with torch.no_grad():
            out = model(**inputs, output_hidden_states=True)
    return out.hidden_states[-1].shape[1]


def test_the_image_families_are_found() -> None:
    assert {"vit", "deit", "dinov2", "beit", "clip_vision_model", "siglip_vision_model", "yolos"} <= set(IMAGE_TYPES)
    assert image_tokens(_spec({"model_type": "bert"})[1]) is None


@pytest.mark.parametrize("model_type", IMAGE_TYPES)
def test_the_class_defaults_image_tokens_are_transformers_sequence(model_type: str) -> None:
    model, spec = _spec({"model_type": model_type})
    assert image_tokens(spec) == _sequence_length(model_type, {"model_type": model_type})
    report = estimate_memory(model, Settings())
    assert report.settings.context == image_tokens(spec)
    assert estimate_memory(model, Settings(context=77)).settings.context == 77  # the user's, where given


@pytest.mark.parametrize("model_type", IMAGE_TYPES)
def test_random_configs_image_tokens_are_transformers_sequence(model_type: str) -> None:
    compared = []

    @settings(max_examples=5, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        _, spec = _spec(config)
        assume(spec is not None)
        try:
            length = _sequence_length(model_type, config)
        except (RuntimeError, ValueError, TypeError, NotImplementedError):  # random sizes transformers cannot run
            assume(False)
        assert image_tokens(spec) == length, json.dumps(config)
        compared.append(length)

    check()
    assert compared, "no random config ran"
