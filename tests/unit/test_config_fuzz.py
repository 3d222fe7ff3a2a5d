"""Random values in a family's keys never crash the counting core: a config.json whose keys hold
any JSON (negative, zero or huge sizes, floats, strings, booleans, null, lists of any length,
objects) is counted or refused with located problems, and a counted model's memory estimate and
precision view are made without an exception. (A SmolLM3 config whose ``no_rope_layers`` list was
shorter than its layers raised IndexError out of a derived default, a traceback in the CLI.)"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import Settings, estimate_memory
from lsp_count.core.precision import precision_view

SCALARS = st.one_of(
    st.integers(-3, 70), st.sampled_from([0, 1, 2, 3, 4, 7, 64, 128, 4096, 10**9, 10**12]),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), st.booleans(), st.none(),
    st.sampled_from(["", "auto", "relu", "gated-gelu", "sliding_attention", "full_attention", "x"]),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=6), st.dictionaries(st.sampled_from(["a", "0", "1"]), SCALARS,
                                                                         max_size=3))


@st.composite
def configs(draw) -> dict:
    model_type = draw(st.sampled_from(sorted(registry())))
    family = registry()[model_type]
    keys = sorted({key for f in family.fields.values() for key in f.keys})
    config: dict = {"model_type": model_type, "num_hidden_layers": draw(st.integers(1, 3))}
    for key in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True)) if keys else []:
        config[key] = draw(VALUES)
    if draw(st.booleans()):
        config["architectures"] = [draw(st.sampled_from(sorted(family.heads) or [family.architecture]))]
    return config


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_any_values_in_a_family_s_keys_are_counted_or_refused_never_raised(config: dict) -> None:
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    errors = [p for p in report.problems if p.severity == "error"]
    assert report.models or errors, report.problems
    assert all(p.span is not None for p in errors), errors
    for model in report.models:
        estimate_memory(model, Settings())
        estimate_memory(model, Settings(mode="train"))
        precision_view(model.tree)
