"""Random values in a family's keys never crash the counting core: a config.json whose keys hold
any JSON (negative, zero or huge sizes, floats, strings, booleans, null, lists of any length,
objects) is counted or refused with located problems, and a counted model's memory estimate and
precision view are made without an exception. (A SmolLM3 config whose ``no_rope_layers`` list was
shorter than its layers raised IndexError out of a derived default, a traceback in the CLI.)"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import Settings, estimate_memory
from lsp_count.core.precision import _more_bits_layers, precision_view, use_more_bits
from lsp_count.core.spec import LAYER_COUNT_FIELDS, MAX_LAYERS

SCALARS = st.one_of(
    st.integers(-3, 70), st.sampled_from([0, 1, 2, 3, 4, 7, 64, 128, 4096, 10**9, 10**12]),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), st.booleans(), st.none(),
    st.sampled_from([math.inf, -math.inf, math.nan]),  # json.dumps writes Infinity and NaN, which Python's json reads
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


def _layer_count_keys() -> list[tuple[str, str]]:
    return sorted({(model_type, key) for model_type, family in registry().items()
                   for name, f in family.fields.items() if name in LAYER_COUNT_FIELDS for key in f.keys})


def test_every_layer_count_field_is_a_field_of_some_family() -> None:
    used = {name for family in registry().values() for name, f in family.fields.items() if f.keys}
    assert LAYER_COUNT_FIELDS <= used, LAYER_COUNT_FIELDS - used


@pytest.mark.parametrize(("model_type", "key"), _layer_count_keys())
def test_a_layer_count_past_the_limit_is_refused_at_its_key_not_built(model_type: str, key: str) -> None:
    """A billion layers (a held-down key) passed the dimension limit, and the per-layer lists a
    count and its memory plan keep took minutes and every gigabyte of the machine (the fuzz test
    above drew it and was OOM-killed)."""
    text = json.dumps({"model_type": model_type, key: MAX_LAYERS + 1})
    report = analyze_text(text, "/nonexistent/config.json")
    (problem,) = [p for p in report.problems if "layer count" in p.message]
    assert problem.severity == "error" and problem.code == "LC102"
    assert problem.span.start.column == text.index(str(MAX_LAYERS + 1)), problem
    assert f"(limit {MAX_LAYERS:,})" in problem.message


def test_the_q4_k_m_layer_choice_in_closed_form_is_llama_cpp_s_loop() -> None:
    for n_layers in [*range(0, 400), 10**6 + 7]:
        assert _more_bits_layers(n_layers) == sum(1 for i in range(n_layers) if use_more_bits(i, n_layers)), n_layers


@pytest.mark.parametrize("model_type", sorted(registry()))
def test_every_key_of_a_family_holding_infinity_or_nan_is_counted_or_refused(model_type: str) -> None:
    # Python's json reads Infinity and NaN (so does transformers), and so does lsp-count: each key of each family in
    # turn, as a number and inside a list or an object, never raises (Swin's mlp_ratio, Kimi Linear's and Ling's
    # expert counts and InternVL's downsample_ratio did, where int() met an infinity or a NaN).
    keys = sorted({key for f in registry()[model_type].fields.values() for key in f.keys})
    for key in keys:
        for value in (math.inf, -math.inf, math.nan, [math.inf, 1], {"a": math.nan}):
            report = analyze_text(json.dumps({"model_type": model_type, key: value}), "/nonexistent/config.json")
            errors = [p for p in report.problems if p.severity == "error"]
            assert report.models or errors, (key, value, report.problems)
            assert all(p.span is not None for p in errors), errors
            for model in report.models:
                estimate_memory(model, Settings())
                estimate_memory(model, Settings(mode="train"))
                precision_view(model.tree)
