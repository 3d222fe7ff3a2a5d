"""A config transformers writes whole (``config.to_dict()``, ``to_json_file(use_diff=False)``) holds every
attribute its class set, including those its __post_init__ derived or overwrote: Bailing hybrid's holds
"head_dim": 64 (its qk_rope_head_dim) beside "linear_head_dim": 128, and read back, transformers builds the
delta-attention layers at 128, as from the defaults. Each family's class-default config written whole counts as
transformers counts it read back (from_dict; Mamba-2's and its hybrids' written head counts change their model)."""

from __future__ import annotations

import logging
import math
import warnings

import pytest

from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict, transformers_verdict

transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.parity
logging.getLogger("transformers").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

FAMILIES = [mt for mt in sorted(registry()) if mt in transformers.CONFIG_MAPPING]


def _floats(value: object):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _floats(v)




@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_class_defaults_written_whole_count_as_the_defaults(model_type: str) -> None:
    architecture = registry()[model_type].architecture
    if not hasattr(transformers, architecture):
        pytest.skip(f"transformers {transformers.__version__} does not export {architecture}")
    written = {**transformers.CONFIG_MAPPING[model_type]().to_dict(), "model_type": model_type}
    written.pop("architectures", None)
    if not all(math.isfinite(x) for x in _floats(written)):
        # Mamba-2's time_step_limit (0.0, inf): json.dumps writes Infinity, which is not JSON and which lsp-count
        # refuses (LC001), as it refuses NaN.
        pytest.skip("the defaults hold a non-finite float, which a JSON file cannot")
    ours, errors = lsp_count_verdict(written)
    assert ours == transformers_verdict(written, registry()[model_type].architecture), errors
