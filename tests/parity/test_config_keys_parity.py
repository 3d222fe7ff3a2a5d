"""A key lsp-count takes for a misspelling (LC107, core/config_keys.py) is one transformers does not
read, and a key transformers saves is never taken for one.

- Every key each family's config class saves (its ``to_dict()``, nested sub-configs included) and
  every alias of its ``attribute_map``, written alone in a file, is no LC107.
- Every key any transformers 5 config class saves that LC107 does take for a slip in some family
  is not read by that family's class: the class built with it keeps the key it names at the
  value it has without it.
- A slip of a family's key (a letter dropped, doubled or two swapped) is taken for one, and that
  class does not read it either.
- Every key any family reads, written alone in another family's config, is taken for that
  family's name for the same size only where that family's class does not read it.
"""

from __future__ import annotations

import logging
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import CONFIG_MAPPING

from lsp_count.core.config_keys import _other_names, misspelt_keys
from lsp_count.core.families import registry
from lsp_count.core.source import SourceNode, Span

logging.getLogger("transformers").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")

FAMILIES = [mt for mt in sorted(registry()) if mt in CONFIG_MAPPING]
PROBE = 1_234_567  # a value no class defaults any key to: read into a key, it shows


def _slips(model_type: str, keys) -> dict[str, str]:
    """key -> the key LC107 says was meant, for each of ``keys`` alone in a ``model_type`` config."""
    family = registry()[model_type]
    found = {}
    for key in keys:
        root = SourceNode({key: SourceNode(PROBE, Span.at(0, 0))}, Span.at(0, 0))
        for problem in misspelt_keys(family, root, {}):
            found[key] = dict(problem.data)["key"]
    return found


def _saved(model_type: str, config: dict) -> list[tuple[str, set[str]]]:
    """(model_type, keys) for a config's dict and each nested sub-config the family reads."""
    family = registry()[model_type]
    cls = CONFIG_MAPPING[model_type]
    out = [(model_type, set(config) | set(getattr(cls, "attribute_map", {})))]
    for key, default_type in family.subconfigs.values():
        nested = config.get(key)
        if isinstance(nested, dict):
            sub_type = nested.get("model_type") or default_type
            if sub_type in registry() and sub_type in CONFIG_MAPPING:
                out.extend(_saved(sub_type, nested))
    return out


def _every_saved_key() -> list[str]:
    keys: set[str] = set()
    for model_type in CONFIG_MAPPING:
        try:
            keys |= set(CONFIG_MAPPING[model_type]().to_dict())
        except Exception:  # noqa: BLE001 - a class without usable defaults saves nothing here
            continue
    return sorted(keys)


def _read_by_class(model_type: str, key: str, meant: str) -> bool:
    """Whether ``model_type``'s config class reads ``key`` into ``meant`` (the value shows there)."""
    try:
        config = CONFIG_MAPPING[model_type](**{key: PROBE})
    except Exception:  # noqa: BLE001 - a class that refuses the key does not read it as the one meant
        return False
    # (Gemma 4's config holds head_dim per layer and refuses a plain read of the global one unless allowed)
    config.allow_global_per_layer_attribute_access = True
    return getattr(config, meant, None) == PROBE


@pytest.mark.parametrize("model_type", FAMILIES)
def test_no_key_a_config_class_saves_is_taken_for_a_misspelling(model_type) -> None:
    for sub_type, keys in _saved(model_type, CONFIG_MAPPING[model_type]().to_dict()):
        assert _slips(sub_type, keys) == {}, sub_type


def test_a_key_of_another_class_taken_for_a_slip_is_not_read_by_the_family_s_class() -> None:
    keys = _every_saved_key()
    assert len(keys) > 1000  # the scan sees transformers' classes, or it proves nothing
    taken = 0
    for model_type in FAMILIES:
        for key, meant in _slips(model_type, keys).items():
            taken += 1
            assert not _read_by_class(model_type, key, meant), (model_type, key, meant)
    assert taken > 100  # near keys of other classes exist (hidden_sizes, num_experts_per_token, ...)


def _slip(key: str, kind: str, at: int) -> str:
    at = 1 + at % (len(key) - 2)  # not the first or last letter
    if kind == "drop":
        return key[:at] + key[at + 1:]
    if kind == "double":
        return key[:at] + key[at] + key[at:]
    return key[:at] + key[at + 1] + key[at] + key[at + 2:]  # swap


def _long_keys(model_type: str) -> list[str]:
    return sorted(k for f in registry()[model_type].fields.values() for k in f.keys
                  if len(k) >= 9 and not k.startswith("_"))  # a "_" key is never taken for a slip


@settings(max_examples=150, deadline=None)
@given(model_type=st.sampled_from([mt for mt in FAMILIES if _long_keys(mt)]), pick=st.integers(0, 10**6),
       kind=st.sampled_from(["drop", "double", "swap"]), at=st.integers(0, 10**6))
def test_a_slip_of_a_family_key_is_taken_for_one_and_the_class_ignores_it(model_type, pick, kind, at) -> None:
    keys = _long_keys(model_type)
    key = keys[pick % len(keys)]
    slip = _slip(key, kind, at)
    if slip == key or slip in {k for f in registry().values() for field in f.fields.values() for k in field.keys}:
        return  # the key itself ("ll" swapped), or a key some family reads: a real word, not a slip
    found = _slips(model_type, [slip])
    assert slip in found, (model_type, key, slip)
    assert not _read_by_class(model_type, slip, found[slip])


def test_another_family_s_key_taken_for_this_family_s_is_not_read_by_this_family_s_class() -> None:
    keys = sorted({key for family in registry().values() for f in family.fields.values() for key in f.keys})
    taken = 0
    for model_type in FAMILIES:
        for key, meant in _slips(model_type, keys).items():
            if key in _other_names():
                taken += 1
                assert not _read_by_class(model_type, key, meant), (model_type, key, meant)
    assert taken > 1000  # n_layer, d_model, dim, ffn_dim, num_local_experts ... across the families
