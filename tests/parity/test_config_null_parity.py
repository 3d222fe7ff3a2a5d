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

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry

from .meta_count import transformers_count

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _cases(model_type: str) -> list[tuple[str, str]]:
    family = registry()[model_type]
    keys = sorted({key for f in family.fields.values() for key in f.keys})
    heads = [name for name in family.heads if hasattr(transformers, name)]
    return [(key, head) for key in keys for head in heads]


def _ours(config: dict) -> tuple[int | None, list[str]]:
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    errors = [f"{p.code} {p.message}" for p in report.problems if p.severity == "error"]
    return (report.models[0].tree.total if report.models and not errors else None), errors


@pytest.mark.parametrize("model_type", sorted(registry()))
def test_a_null_key_is_read_as_transformers_reads_it(model_type: str) -> None:
    if model_type not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type}")
    wrong = []
    for key, head in _cases(model_type):
        config = {"model_type": model_type, "architectures": [head], key: None}
        try:
            want = transformers_count(config, head)[0]
        except Exception:  # noqa: BLE001 - transformers refuses the config or cannot build the model
            want = None
        got, errors = _ours(config)
        if got != want:
            wrong.append(f"{key} ({head}): transformers {want}, lsp-count {got} {errors[:1]}")
        elif want is None and not any(f'"{key}"' in e and "null" in e for e in errors):
            wrong.append(f"{key} ({head}): the error does not name the null key: {errors[:1]}")
    assert not wrong, "\n".join(wrong)
