"""A size written as a whole-number float in a config.json (``"hidden_size": 4096.0``), for every
size key of every family, against transformers 5: its config classes are strict dataclasses whose
int fields refuse a float, so the count is an LC102 error on that key; under the few keys the class
takes one (attribute_map aliases and undeclared keys, a family's ``float_keys``) the count is what transformers builds.
Before, every whole-number float was read as the int, and a config transformers refuses to load
was counted."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict as _ours, transformers_count
from .strategies import REQUIRED_KEYS, strategy_for

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

SIZE_KINDS = ("int", "int?", "int|auto")


def _transformers(config: dict, head: str) -> int | None:
    try:
        return transformers_count(config, head)[0]
    except Exception:  # noqa: BLE001 - transformers refuses the config or cannot build the model
        return None


@pytest.mark.parametrize("model_type", sorted(registry()))
def test_a_whole_number_float_is_read_as_transformers_reads_it(model_type: str) -> None:
    if model_type not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type}")
    family = registry()[model_type]
    head = next(name for name in (family.architecture, *family.heads) if hasattr(transformers, name))
    base = {"model_type": model_type, "architectures": [head], **REQUIRED_KEYS.get(model_type, {})}
    defaults = transformers.CONFIG_MAPPING[model_type].from_dict(dict(base))
    # (Gemma 4's config holds head_dim per layer, and refuses a plain read of the global one unless allowed)
    defaults.allow_global_per_layer_attribute_access = True
    wrong, checked = [], 0
    for f in family.fields.values():
        if f.kind not in SIZE_KINDS:
            continue
        for key in f.keys:
            value = base.get(key, getattr(defaults, key, None))
            if type(value) is not int:  # no whole number to write as a float (None, or a derived default)
                continue
            config = {**base, key: float(value)}
            want = _transformers(config, head)
            if want is not None and _transformers({**base, key: value}, head) is None:
                continue  # the int itself does not build: nothing to compare
            got, errors = _ours(config)
            checked += 1
            if got != want:
                wrong.append(f"{key}: {value}.0: transformers {want}, lsp-count {got} {errors[:1]}")
            elif want is None and not any(f'"{key}"' in e and "float" in e for e in errors):
                wrong.append(f"{key}: the error does not name the key and the float: {errors[:1]}")
    assert not wrong, "\n".join(wrong)
    assert checked or not any(f.kind in SIZE_KINDS and f.keys for f in family.fields.values()), "no key was checked"


@pytest.mark.parametrize("model_type", [mt for mt in sorted(registry()) if strategy_for(mt) is not None])
def test_a_whole_number_float_in_a_random_small_config_is_read_as_transformers_reads_it(model_type: str) -> None:
    """The same on random small configs, which give the keys whose class default is None or
    derived (``head_dim``, ``intermediate_size`` of some families) a number to write as a float."""
    sizes = {key for f in registry()[model_type].fields.values() if f.kind in SIZE_KINDS for key in f.keys}

    @settings(max_examples=2, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        want_base = _transformers(base, base["architectures"][0])
        if want_base is None:
            return
        wrong = []
        for key in sorted(sizes):
            if type(base.get(key)) is not int:
                continue
            config = {**base, key: float(base[key])}
            want = _transformers(config, base["architectures"][0])
            got, errors = _ours(config)
            if got != want:
                wrong.append(f"{key}: transformers {want}, lsp-count {got} {errors[:1]}")
        assert not wrong, json.dumps(base) + "\n" + "\n".join(wrong)

    check()


@pytest.mark.parametrize(("experts", "expert_offset"), [(0.0, 0), (1.0, 0), (2.0, 0), (4.0, 0), (4.0, 3), (4, 0)])
def test_jamba_keeps_a_float_under_its_experts_alias_where_no_expert_layer_needs_it(experts: float,
                                                                                     expert_offset: int) -> None:
    """JambaConfig sets num_local_experts (an attribute_map alias) past its field checks: 0.0 or 1.0 experts
    make dense MLPs, which build, more cannot be built from a float, and any float builds where no layer is an
    expert layer (offset 3 of period 4 in 2 layers). Found by a fuzz run of the random small configs."""
    config = {"model_type": "jamba", "architectures": ["JambaForCausalLM"], "vocab_size": 16, "hidden_size": 8,
              "intermediate_size": 12, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
              "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 4,
              "expert_layer_offset": expert_offset, "num_experts_per_tok": 1, "mamba_d_state": 2, "mamba_d_conv": 2,
              "mamba_expand": 1, "num_local_experts": experts}
    want = _transformers(config, "JambaForCausalLM")
    got, errors = _ours(config)
    assert got == want, errors
    assert (want is None) == (type(experts) is float and experts > 1 and expert_offset == 0)
    if want is None:
        assert any('"num_local_experts"' in e and "float" in e for e in errors), errors


_LATE_EXPERTS = sorted(mt for mt, family in registry().items()
                       if family.layout == "decoder" and strategy_for(mt) is not None and "num_experts" in family.fields
                       and set(family.fields["num_experts"].keys) & family.keys_set_after_fields)


@pytest.mark.parametrize("model_type", _LATE_EXPERTS)
def test_a_whole_number_float_under_a_late_experts_key_builds_where_no_layer_has_experts(model_type: str) -> None:
    """A decoder's experts count under a key its config class sets past its field checks (an attribute_map alias:
    Dots1's num_local_experts, Mixtral's num_experts) is kept as the float: transformers builds the model where no
    layer has routed experts, and fails on a MoE layer's experts. Random small configs, the key written as 1.0,
    2.0, the drawn count as a float, and 0.0 where the family takes no experts. Found by a fuzz run of the test above (Dots1, seed 78)."""
    family = registry()[model_type]
    late = [key for key in family.fields["num_experts"].keys if key in family.keys_set_after_fields][0]

    @settings(max_examples=3, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        head = base["architectures"][0]
        if _transformers(base, head) is None:
            return
        drawn = next((base[k] for k in family.fields["num_experts"].keys if type(base.get(k)) is int), 2)
        wrong = []
        # (0.0 only where the family takes no experts: elsewhere 0 is refused, written as an int too)
        for value in sorted({*((0.0,) if family.fields["num_experts"].minimum == 0 else ()), 1.0, 2.0, float(drawn)}):
            config = {**base, late: value}
            want = _transformers(config, head)
            got, errors = _ours(config)
            if got != want:
                wrong.append(f"{late}: {value}: transformers {want}, lsp-count {got} {errors[:1]}")
        assert not wrong, json.dumps(base) + "\n" + "\n".join(wrong)

    check()
