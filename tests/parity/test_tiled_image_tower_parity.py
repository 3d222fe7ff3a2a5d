"""LLaVA-NeXT's any-resolution images in the memory estimate (core/memory.image_tower, _tiled_passes): the
families with ``image_grid_pinpoints`` (LLaVA-NeXT, LLaVA-NeXT-Video, LLaVA-OneVision) run their vision tower
once per tile of the grid pinpoint an image is resized to and once over the whole image. Against transformers
5: for an image of each pinpoint's size, the model's get_image_features hands its vision tower that many images
of the tower's image_size (a hook stops it there), on the meta device, for the class defaults and for pinpoints
written in the config; the estimate's passes are the most of them. Before, the tower's activations were "not
counted" for these families: LLaVA-OneVision's 37 passes of 729 tokens an image."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import image_tower

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

TILED_TYPES = sorted(mt for mt, family in registry().items() if "image_grid_pinpoints" in family.fields)


class _Stop(Exception):
    """Raised by the tower's hook: what it was handed is all the test needs."""


def _tower_images(model, pixels, size: list[int]) -> tuple[int, int]:
    """(images, their side) that get_image_features hands the vision tower for one image of ``size``."""
    seen = []

    def hook(_module, args, kwargs):
        given = kwargs.get("pixel_values", args[0] if args else None)
        seen.append((given.shape[0], given.shape[-1]))
        raise _Stop

    handle = model.model.vision_tower.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        with torch.no_grad(), pytest.raises(_Stop):
            model.model.get_image_features(pixel_values=pixels, image_sizes=[size])
    finally:
        handle.remove()
    return seen[0]


def test_the_tiled_families_are_found() -> None:
    assert TILED_TYPES == ["llava_next", "llava_next_video", "llava_onevision"]


@pytest.mark.parametrize("pinpoints", [None, [[224, 448], [448, 224]], [[500, 300], [224, 224]]],
                         ids=["class default", "two pinpoints", "not multiples of the side"])
@pytest.mark.parametrize("model_type", TILED_TYPES)
def test_the_tower_runs_once_per_tile_and_once_over_the_whole_image(model_type: str, pinpoints) -> None:
    from transformers import CONFIG_MAPPING

    family = registry()[model_type]
    written = {"model_type": model_type}
    if pinpoints is not None:  # on a tower of 224-pixel images, which the class's default pinpoints do not fit
        written.update(image_grid_pinpoints=pinpoints, vision_config={
            "model_type": family.subconfigs["vision"][1], "image_size": 224, "patch_size": 14})
    tower = image_tower(_model(written))
    assert tower is not None
    config = CONFIG_MAPPING[model_type](**{k: v for k, v in written.items() if k != "model_type"})
    side = config.vision_config.image_size
    with torch.device("meta"):
        model = getattr(transformers, family.architecture)(config)
    most = 0
    for size in config.image_grid_pinpoints:
        # More tiles than any pinpoint here makes: the model takes as many as the image's size gives it.
        pixels = torch.zeros(1, 64, 3, side, side, device="meta")
        images, their_side = _tower_images(model, pixels, list(size))
        assert their_side == side
        most = max(most, images)
    assert tower.passes == most, (tower.passes, most)
    assert tower.tokens == model.model.vision_tower(
        pixel_values=torch.zeros(1, 3, side, side, device="meta")).last_hidden_state.shape[1]
    # The estimate's tower is the tree's: the same parameters as transformers' tower.
    assert tower.model.tree.root.total == sum(p.numel() for p in model.model.vision_tower.parameters())


@pytest.mark.parametrize("pinpoints", ["672x672", [], [[672]], [[672.0, 672]]])
def test_pinpoints_transformers_cannot_tile_by_leave_the_tower_unmodelled(pinpoints) -> None:
    from transformers.models.llava_next.modeling_llava_next import image_size_to_num_patches

    with pytest.raises((TypeError, ValueError)):
        image_size_to_num_patches([672, 672], pinpoints, 336)
    _says_not_counted(pinpoints)


@pytest.mark.parametrize("pinpoints", [[[672, 0]], [[True, 672]], [[672, -336]]])
def test_pinpoints_that_are_no_image_size_leave_the_tower_unmodelled(pinpoints) -> None:
    # transformers tiles by them without a word (True is 1 pixel; a side of 0 or less makes no tile), but no
    # image is resized to them: not a size to estimate by.
    _says_not_counted(pinpoints)


def _says_not_counted(pinpoints) -> None:
    from lsp_count.core.memory import Settings, estimate_memory

    report = _model({"model_type": "llava_next", "image_grid_pinpoints": pinpoints})
    assert image_tower(report) is None
    line = next(x for x in estimate_memory(report, Settings(mode="train")).lines if x.name == "activations")
    assert "the vision tower's, over image patches, are not counted" in line.detail


def _model(config: dict):
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    assert report.models and not report.has_errors, report.problems
    return report.models[0]
