"""The longest sequence a text encoder with a learned position table takes (layouts/encoder.text_positions: its
rows, less the padding offset where its positions start past the pad: RoBERTa's), against transformers 5: the
bare model runs on that many tokens and fails on one more, on the CPU, for random small configs of every such
family (tests/parity/strategies.py). The memory estimate takes it as the model's context where it is under 4,096
and no context is given (BERT: 512 tokens, not 4,096), and a longer one gets a note and caps the fit search."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.layouts.encoder import text_positions

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _spec(config: dict):
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    return report.models[0].spec if report.models and not report.has_errors else None


TABLE_TYPES = sorted(mt for mt, family in registry().items()
                     if family.layout == "encoder" and (spec := _spec({"model_type": mt})) is not None
                     and spec.values.get("embed") == "text"
                     and (spec.values.get("position_embedding") or spec.values.get("position_limit")))


# Keys that hold no parameter, set so that a forward pass runs on the CPU at any length: Nyströmformer's landmark
# attention reshapes the sequence into segment_means_seq_len tokens unless that is its landmark count (then it
# attends fully); YOSO's hashing without use_expectation needs its CUDA kernel.
_RUNS_AT_ANY_LENGTH = {"nystromformer": {"num_landmarks": 1, "segment_means_seq_len": 1},
                       "yoso": {"use_expectation": True}}


def _runs(model, config: dict, tokens: int) -> bool:
    # A token that is not the pad token (RoBERTa gives pad tokens the padding position, whatever their place).
    # (MPNet pads with index 1 whatever pad_token_id says)
    pads, vocab = {model.config.pad_token_id, model.get_input_embeddings().padding_idx}, model.config.vocab_size
    token = next((i for i in range(vocab) if i not in pads), 0)
    ids = torch.full((1, tokens), token, dtype=torch.long)
    inputs = {"input_ids": ids}
    if config.get("model_type") == "xmod":
        inputs["lang_ids"] = torch.zeros(1, dtype=torch.long)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model(**inputs)
        return True
    except (IndexError, RuntimeError, ValueError, AssertionError, TypeError):  # (FlauBERT with pre_norm: TypeError)
        return False


def test_the_table_families_are_found() -> None:
    assert {"bert", "roberta", "xlm-roberta", "electra", "mpnet", "camembert", "nystromformer", "yoso",
            "mra", "mobilebert", "roformer"} <= set(TABLE_TYPES)
    assert text_positions(_spec({"model_type": "bert"})) == 512
    assert text_positions(_spec({"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1})) == 512


@pytest.mark.parametrize("model_type", TABLE_TYPES)
def test_the_longest_sequence_is_the_one_transformers_runs(model_type: str) -> None:
    from transformers import CONFIG_MAPPING

    family = registry()[model_type]
    architecture = next((a for a, head in family.heads.items() if head == "base"), family.architecture)
    compared = []

    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        config = {**config, **_RUNS_AT_ANY_LENGTH.get(model_type, {}), "architectures": [architecture]}
        spec = _spec(config)
        assume(spec is not None)
        longest = text_positions(spec)
        assume(longest is not None and longest <= 256)
        built = CONFIG_MAPPING[model_type].from_dict(dict(config))
        torch.manual_seed(0)
        try:
            model = getattr(transformers, architecture)(built).eval()
        except (IndexError, RuntimeError, ValueError, AssertionError):  # sizes its initialisation cannot fill
            assume(False)
        # random sizes it cannot run (BERT with no token type rows; MPNet with one relative bucket, past one token)
        assume(_runs(model, config, min(2, longest)))
        assert _runs(model, config, longest), json.dumps(config)
        assert not _runs(model, config, longest + 1), json.dumps(config)
        compared.append(longest)

    check()
    assert compared, "no random config had a table to compare"
