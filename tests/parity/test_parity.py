"""Parity: our count equals transformers' count of the same config on the meta device.

Random small configs (hypothesis) per supported model_type, each family's class
defaults (an almost empty config), and the bundled real configs.
"""

from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry, supported_model_types

from .meta_count import lsp_count_verdict, transformers_count, transformers_verdict
from .strategies import REQUIRED_KEYS, strategy_for

pytestmark = pytest.mark.parity
pytest.importorskip("transformers")

CATALOG = pathlib.Path(__file__).resolve().parents[2] / "server" / "lsp_count" / "catalog"


def ours(config: dict) -> tuple[int, int]:
    report = analyze_text(json.dumps(config, indent=2), "model/config.json")
    errors = [p for p in report.problems if p.severity == "error"]
    assert not errors, errors
    assert report.models, report.problems
    tree = report.models[0].tree
    return tree.total, tree.trainable


@pytest.mark.parametrize("model_type", [mt for mt in supported_model_types() if strategy_for(mt) is not None])
def test_random_configs_match_transformers(model_type: str) -> None:
    @settings(max_examples=20, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        assert ours(config) == transformers_count(config), json.dumps(config)

    check()


@pytest.mark.parametrize("model_type", supported_model_types())
def test_class_defaults_match_transformers(model_type: str) -> None:
    family = registry()[model_type]
    config = {"model_type": model_type, "architectures": [family.architecture]}
    if model_type in REQUIRED_KEYS:  # the class cannot build its own defaults: both refuse them
        report = analyze_text(json.dumps(config), "model/config.json")
        assert any(p.severity == "error" for p in report.problems), report.problems
        with pytest.raises(Exception):  # noqa: B017 - whatever transformers raises
            transformers_count(config)
        config.update(REQUIRED_KEYS[model_type])
    assert ours(config) == transformers_count(config)


def _catalog_files() -> list[pathlib.Path]:
    return sorted(CATALOG.glob("*/*.json"))


@pytest.mark.parametrize("path", _catalog_files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_real_configs_match_transformers(path: pathlib.Path) -> None:
    config = json.loads(path.read_text())
    if config.get("model_type") not in registry():
        pytest.skip(f"{config.get('model_type')} is not a supported model_type")
    import transformers

    arch = (config.get("architectures") or [None])[0]
    if arch is not None and not hasattr(transformers, arch):
        # Hub configs may name a class transformers has since dropped (t5-small: T5WithLMHeadModel);
        # lsp-count then counts, and says it counts, the family's class.
        arch = registry()[config["model_type"]].architecture
    assert ours(config) == transformers_count(config, arch)


def _classifier_families() -> list[str]:
    return [mt for mt in supported_model_types() if any(a.endswith("Classification") for a in registry()[mt].heads)]


@pytest.mark.parametrize("model_type", _classifier_families())
def test_no_labels_builds_an_empty_classifier_as_transformers_does(model_type: str) -> None:
    """An empty ``id2label`` (or ``num_labels: 0``) is 0 labels, a classifier of no outputs, not the
    default 2 (or BART's 3)."""
    import transformers

    family = registry()[model_type]
    for arch in sorted(a for a in family.heads if a.endswith("Classification") and hasattr(transformers, a)):
        for labels in ({"id2label": {}}, {"num_labels": 0}):
            config = {"model_type": model_type, "architectures": [arch], **REQUIRED_KEYS.get(model_type, {}), **labels}
            assert lsp_count_verdict(config)[0] == transformers_verdict(config), (arch, labels)


@pytest.mark.parametrize("layers", [0, 2])
def test_data2vec_audio_s_positional_convolution_groups_are_checked_only_where_it_has_one(layers: int) -> None:
    # num_conv_pos_embeddings is data2vec-audio's count of positional convolutions: with none, groups that do not
    # divide hidden_size refuse nothing (they were refused); with some, torch's Conv1d refuses them, as lsp-count does.
    config = {"model_type": "data2vec-audio", "architectures": ["Data2VecAudioModel"], "hidden_size": 5,
              "num_attention_heads": 1, "num_conv_pos_embedding_groups": 2, "num_conv_pos_embeddings": layers,
              "num_hidden_layers": 1, "intermediate_size": 3, "conv_dim": [4], "conv_kernel": [2], "conv_stride": [1]}
    got, errors = lsp_count_verdict(config)
    assert got == transformers_verdict(config), errors
    assert (got is None) == (layers > 0), errors
