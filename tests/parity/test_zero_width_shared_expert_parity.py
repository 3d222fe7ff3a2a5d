"""A shared expert of no width (shared_expert_intermediate_size 0), in the decoder families that build their shared
expert whatever its width (the row switch shared_expert_always: Qwen2-MoE, Flint, Kolibri 1 and 1.1, Step 3.7's text
model, Laguna): the model counts what transformers builds (projections of no parameters; Qwen2-MoE's shared gate),
and LoRA's all-linear adapts those projections as peft does (lora_A of rank × hidden_size, lora_B of hidden_size ×
rank around a width of 0). Qwen2-MoE, Flint and Kolibri refused the 0 before; LoRA left the projections out."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.families import registry

from .meta_count import transformers_count
from .strategies import strategy_for
from .test_lora_parity import analyze_any, lora_yaml, peft_outcome

pytest.importorskip("transformers")
pytest.importorskip("peft")
pytestmark = pytest.mark.parity

FAMILIES = sorted(mt for mt, fam in registry().items() if fam.fields.get("shared_expert_always") is not None
                  and fam.fields["shared_intermediate_size"].keys and strategy_for(mt) is not None)


def test_the_families_are_the_ones_that_build_it() -> None:
    assert FAMILIES == ["flint", "kolibri1", "kolibri1_1", "laguna", "qwen2_moe", "step3p5"]


@pytest.mark.parametrize("model_type", FAMILIES)
def test_a_shared_expert_of_no_width_counts_and_takes_adapters_as_transformers_and_peft_build_it(
        tmp_path, model_type: str) -> None:
    family = registry()[model_type]
    keys = family.fields["shared_intermediate_size"].keys

    @settings(max_examples=4, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        for key in keys:
            config.pop(key, None)
        config[keys[0]] = 0
        # (the language-model class: peft's all-linear with no task type adapts a classifier's head, lsp-count not)
        config["architectures"] = [family.architecture]
        total = transformers_count(config)[0]
        report = analyze_any(tmp_path, config, lora_yaml(2, "all-linear"))
        assert not report.has_errors, (report.problems, json.dumps(config))
        (model,) = report.models
        assert model.tree.total - sum(n.total for p, n, _ in model.tree.root.walk() if p.endswith(".adapters")) \
            == total
        assert (model.tree.total, model.tree.trainable) == peft_outcome(config, 2, "all-linear"), json.dumps(config)

    check()
