"""Two spellings of one key in a config.json (GPT-2's ``n_embd`` and ``hidden_size``, T5's ``num_layers`` and
``num_hidden_layers``, Qwen3-MoE's ``num_experts`` and ``num_local_experts``) with different values are read as
transformers 5 reads them: a key the config class sets after its dataclass fields (an attribute_map alias) wins
over a field's name, whatever the order in the file, and of two such keys the one written last.

- families/attribute_maps.py lists, for every family, the keys its fields read that its config class sets after
  its fields: the test derives them from the class (attribute_map, dataclass fields) and compares.
- For every family with such keys, a random small config with two of a field's spellings written at different
  values, in both orders, counts what transformers counts on the meta device.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from transformers import CONFIG_MAPPING

from lsp_count.core.families import registry
from lsp_count.core.families.attribute_maps import KEYS_SET_AFTER_FIELDS

from .meta_count import lsp_count_verdict, transformers_verdict
from .strategies import strategy_for

pytestmark = pytest.mark.parity
logging.getLogger("transformers").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

FAMILIES = [mt for mt in sorted(registry()) if mt in CONFIG_MAPPING]


def _set_after_fields(model_type: str) -> set[str]:
    """The keys the family's fields read (those with two spellings or more) that its config class takes as keyword
    arguments beside its dataclass fields: attribute_map aliases, and attributes its __post_init__ sets (Bailing
    hybrid's linear_head_dim, which a config it writes whole holds)."""
    cls = CONFIG_MAPPING[model_type]
    attribute_map = getattr(cls, "attribute_map", {}) or {}
    fields = {f.name for f in dataclasses.fields(cls)}
    named = set(attribute_map) | set(attribute_map.values()) | set(cls().to_dict()) | _popped_in_post_init(cls)
    spelt = {key for f in registry()[model_type].fields.values() if len(f.keys) > 1 for key in f.keys}
    return {key for key in spelt if key in named and key not in fields}


def _popped_in_post_init(cls: type) -> set[str]:
    """Legacy keys a config class's __post_init__ takes from its keyword arguments and sets a field from, after the
    fields (Step 3.7's vision tower: ``self.hidden_size = kwargs.pop("width", self.hidden_size)``)."""
    try:
        source = inspect.getsource(cls.__post_init__)
    except (OSError, TypeError, AttributeError):
        return set()
    return set(re.findall(r"kwargs\.pop\(\s*[\"'](\w+)[\"']", source))


def test_the_table_lists_the_keys_each_config_class_sets_after_its_fields() -> None:
    derived = {mt: keys for mt in FAMILIES if (keys := _set_after_fields(mt))}
    assert {mt: set(keys) for mt, keys in KEYS_SET_AFTER_FIELDS.items()} == derived


def _base_config(model_type: str) -> dict:
    drawn: list[dict] = []

    @settings(max_examples=1, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def draw(config: dict) -> None:
        drawn.append(config)

    draw()
    return drawn[0]


def _spelt_sizes(model_type: str) -> list[tuple[object, list[str]]]:
    """(field, the keys of it the config class reads) for each size field read under two spellings or more."""
    cls = CONFIG_MAPPING[model_type]
    attribute_map = getattr(cls, "attribute_map", {}) or {}
    read = set(attribute_map) | set(attribute_map.values()) | {f.name for f in dataclasses.fields(cls)} \
        | _popped_in_post_init(cls)
    found = []
    for field in registry()[model_type].fields.values():
        keys = [key for key in field.keys if key in read]
        if len(keys) > 1 and field.kind in ("int", "int?"):
            found.append((field, keys))
    return found


# (The families whose keys set after the fields are lists alone, Jamba's layer types, are the table's test's.)
@pytest.mark.parametrize("model_type", [mt for mt in sorted(KEYS_SET_AFTER_FIELDS) if _spelt_sizes(mt)])
def test_two_spellings_of_one_key_count_as_transformers_reads_them(model_type: str) -> None:
    base = _base_config(model_type)
    defaults = CONFIG_MAPPING[model_type]()
    compared, wrong = 0, []
    for field, keys in _spelt_sizes(model_type):
        value = next((base[key] for key in field.keys if key in base), None)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:  # (a random config's 0 experts)
            value = getattr(defaults, keys[0], None)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            continue
        for first, second in ((keys[0], keys[1]), (keys[1], keys[0])):
            config = {key: v for key, v in base.items() if key not in field.keys}
            config[first], config[second] = value, 2 * value
            want = transformers_verdict(config)
            got, errors = lsp_count_verdict(config)
            if got is None and (want is None or errors):
                continue  # refused by both, or refused here for a reason of its own (tests/parity/test_parity.py)
            compared += 1
            if got != want:
                wrong.append(f"{first}={value} then {second}={2 * value}: transformers {want}, lsp-count {got}")
    assert not wrong, wrong
    assert compared, f"no config of {model_type} with two spellings was counted by both"
