"""An image encoder whose patch is larger than its image on a side, against transformers 5: it builds the model
with a grid of no patches (a position table of the class and other tokens' rows alone), so lsp-count counts it,
with a warning on patch_size, where it used to refuse the config. Found by a fuzz run of the vision strategies."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict, transformers_count

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_IMAGE_ENCODERS = sorted(mt for mt, family in registry().items()
                         if family.layout == "encoder" and mt in transformers.CONFIG_MAPPING
                         and "patch_size" in {k for f in family.fields.values() for k in f.keys}
                         and "image_size" in {k for f in family.fields.values() for k in f.keys})


def _built(config: dict) -> int | None:
    try:
        return transformers_count(config, config["architectures"][0])[0]
    except Exception:  # noqa: BLE001 - transformers refuses the config or cannot build the model
        return None


@pytest.mark.parametrize("model_type", _IMAGE_ENCODERS)
@pytest.mark.parametrize("sizes", [(8, 16), (20, 16), ([8, 32], 16), ([32, 8], 16)])
def test_a_patch_larger_than_the_image_is_counted_as_transformers_builds_it(model_type: str, sizes: tuple) -> None:
    family = registry()[model_type]
    head = next((name for name in (family.architecture, *family.heads) if hasattr(transformers, name)), None)
    if head is None:
        pytest.skip(f"transformers {transformers.__version__} exports no class of {model_type}")
    image, patch = sizes
    small = {"model_type": model_type, "architectures": [head], "hidden_size": 8, "num_hidden_layers": 1,
             "num_attention_heads": 2, "intermediate_size": 8, "patch_size": patch}
    if _built({**small, "image_size": [32, 32] if isinstance(image, list) else 32}) is None:
        pytest.skip(f"transformers does not build {head} with this image_size's form at all")
    config = {**small, "image_size": image}
    want = _built(config)
    got, errors = lsp_count_verdict(config)
    assert got == want, errors
    problems = analyze_text(json.dumps(config), "model/config.json").problems
    empty = image < patch if isinstance(image, int) else min(image) < patch
    warned = [p for p in problems if p.severity == "warning" and "no patch fits" in p.message]
    assert bool(warned) == (empty and want is not None), [p.message for p in problems]


@pytest.mark.parametrize("model_type", ["beit", "data2vec-vision"])
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize(("image", "builds"), [(8, True), ([8, 16], True), ([8, 32], True), ([8, 48], False),
                                               ([64, 8], False)])
def test_relative_position_bias_over_a_grid_of_no_patches(model_type: str, shared: bool, image: object,
                                                          builds: bool) -> None:
    """BEiT's relative position bias over a window with a side of no patches: (2·Wh − 1)·(2·Ww − 1) + 3 rows, which
    transformers builds down to 0 rows (a 0 × 2 grid), and cannot below (0 × 3: −2 rows). Found by a fuzz run."""
    config = {"model_type": model_type, "architectures": [registry()[model_type].architecture], "hidden_size": 8,
              "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 8, "patch_size": 16,
              "image_size": image, "use_relative_position_bias": not shared,
              "use_shared_relative_position_bias": shared}
    want = _built(config)
    got, errors = lsp_count_verdict(config)
    assert (want is not None) == builds
    assert got == want, errors
    if not builds:
        assert any("relative position bias table" in e for e in errors), errors
