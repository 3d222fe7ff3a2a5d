"""A key written as null in a config.json, for every key of every family and every class the
family counts, against transformers 5: where its config class rejects the null (most sizes and
switches: its fields are strict dataclass fields) or its model cannot be built with it, the count
is an LC102 error on that key; where the class fills the default (``num_key_value_heads``) or keeps
a None the model reads as false (Falcon's ``multi_query``), the count is what transformers builds
on the meta device. Before, every null was taken as the default: ``"hidden_size": null`` counted
a Llama of 4,096 wide, which transformers refuses, and Gemma 3's ``"tie_word_embeddings": null``
was tied where transformers unties it."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.families import registry

from .meta_count import lsp_count_verdict, transformers_count
from .strategies import REQUIRED_KEYS, strategy_for

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _cases(model_type: str) -> list[tuple[str, str]]:
    family = registry()[model_type]
    keys = sorted({key for f in family.fields.values() for key in f.keys})
    heads = [name for name in family.heads if hasattr(transformers, name)]
    return [(key, head) for key in keys for head in heads]


def _transformers(config: dict, head: str | None = None) -> int | None:
    """transformers' count; None where it refuses the config or cannot build the model."""
    try:
        return transformers_count(config, head)[0]
    except Exception:  # noqa: BLE001 - transformers refuses the config or cannot build the model
        return None


@pytest.mark.parametrize("model_type", sorted(registry()))
def test_a_null_key_is_read_as_transformers_reads_it(model_type: str) -> None:
    if model_type not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type}")
    wrong = []
    for key, head in _cases(model_type):
        config = {"model_type": model_type, "architectures": [head], **REQUIRED_KEYS.get(model_type, {}), key: None}
        want = _transformers(config, head)
        got, errors = lsp_count_verdict(config)
        if got != want:
            wrong.append(f"{key} ({head}): transformers {want}, lsp-count {got} {errors[:1]}")
        elif want is None and not any(f'"{key}"' in e and "null" in e for e in errors):
            wrong.append(f"{key} ({head}): the error does not name the null key: {errors[:1]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("model_type", [mt for mt in sorted(registry()) if strategy_for(mt) is not None])
def test_a_null_key_in_a_random_small_config_is_read_as_transformers_reads_it(model_type: str) -> None:
    """The same on random small configs, whose sizes are not the class defaults: a null the class
    fills from another key (``num_key_value_heads`` from ``num_attention_heads``) shows there."""
    fields = registry()[model_type].fields.values()
    keys = sorted({key for f in fields for key in f.keys})

    def spelt_otherwise(key: str, base: dict) -> bool:
        """The config gives the key's field under another spelling (BART's d_model for hidden_size):
        which of two spellings wins is not what this test judges."""
        return any(key in f.keys and any(k != key and k in base for k in f.keys) for f in fields)

    @settings(max_examples=3, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        wrong = []
        for key in keys:
            if spelt_otherwise(key, base):
                continue
            config = {**base, key: None}
            want = _transformers(config)
            got, errors = lsp_count_verdict(config)
            if got != want:
                # Where both read the null as no key at all, the null is read right: what differs is
                # the key left out, which is not what this test judges.
                absent = {k: v for k, v in base.items() if k != key}
                if not (want == _transformers(absent) and (got, errors) == lsp_count_verdict(absent)):
                    wrong.append(f"{key}: transformers {want}, lsp-count {got} {errors[:1]}")
        assert not wrong, json.dumps(base) + "\n" + "\n".join(wrong)

    check()
