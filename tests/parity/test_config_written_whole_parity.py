"""A config transformers writes whole (``to_json_string(use_diff=False)``, ``to_json_file(use_diff=False)``) holds every
attribute its class set, including those its __post_init__ derived or overwrote: Bailing hybrid's holds
"head_dim": 64 (its qk_rope_head_dim) beside "linear_head_dim": 128, and read back, transformers builds the
delta-attention layers at 128, as from the defaults. Each family's class-default config written whole counts as
transformers counts it read back (from_dict; Mamba-2's and its hybrids' written head counts change their model;
their non-finite time_step_limit is written as transformers 5 writes it, {"__float__": "Infinity"})."""

from __future__ import annotations

import json
import logging
import warnings

import pytest

from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict, transformers_verdict

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.parity
logging.getLogger("transformers").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

FAMILIES = [mt for mt in sorted(registry()) if mt in transformers.CONFIG_MAPPING]




@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_class_defaults_written_whole_count_as_the_defaults(model_type: str) -> None:
    architecture = registry()[model_type].architecture
    if not hasattr(transformers, architecture):
        pytest.skip(f"transformers {transformers.__version__} does not export {architecture}")
    # As save_pretrained writes a config whole: Mamba-2's time_step_limit (0.0, inf) as [0.0, {"__float__": "Infinity"}].
    written = {**json.loads(transformers.CONFIG_MAPPING[model_type]().to_json_string(use_diff=False)),
               "model_type": model_type}
    written.pop("architectures", None)
    ours, errors = lsp_count_verdict(written)
    # (from_pretrained reads the file with _dict_from_json_file, which decodes the tags; from_dict does not)
    read_back = transformers.PreTrainedConfig._decode_special_floats(written)
    assert ours == transformers_verdict(read_back, registry()[model_type].architecture), errors


def _non_finite(value: object) -> bool:
    if isinstance(value, float):
        return value != value or value in (float("inf"), float("-inf"))
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v) for v in value)
    return isinstance(value, dict) and any(_non_finite(v) for v in value.values())


NON_FINITE = [mt for mt in FAMILIES if any(_non_finite(v) for v in transformers.CONFIG_MAPPING[mt]().to_dict().values())]


@pytest.mark.parametrize("model_type", NON_FINITE)
def test_a_config_python_s_json_wrote_with_infinity_counts_as_transformers_reads_it(model_type: str) -> None:
    # transformers 4 (and any json.dump of a config dict) wrote Mamba-2's time_step_limit as [0.0, Infinity]:
    # not JSON, but Python's json reads it, and from_pretrained with it. lsp-count reads it too, with a warning.
    from lsp_count.core.analyze import analyze_text

    architecture = registry()[model_type].architecture
    if not hasattr(transformers, architecture):
        pytest.skip(f"transformers {transformers.__version__} does not export {architecture}")
    config = {**transformers.CONFIG_MAPPING[model_type]().to_dict(), "model_type": model_type}
    config.pop("architectures", None)
    text = json.dumps(config, indent=2)
    assert "Infinity" in text or "NaN" in text
    report = analyze_text(text, "model/config.json")
    assert not [p for p in report.problems if p.severity == "error"], report.problems
    warned = [p for p in report.problems if p.severity == "warning" and "not standard JSON" in p.message]
    assert warned and all(p.span is not None for p in warned)
    assert report.models[0].tree.total == transformers_verdict(json.loads(text), architecture)


def test_some_family_has_a_non_finite_default() -> None:
    assert "mamba2" in NON_FINITE  # (the test above must not pass over nothing)
