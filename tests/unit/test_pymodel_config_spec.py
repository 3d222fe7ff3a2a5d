"""A transformers model that a Python file builds gets its config's family spec (pymodel/config_spec.py):
its memory is the one the same config gets as a config.json, whichever file describes the model."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

# (config class, model class, model_type, the config's keys for: width, layers, heads, vocabulary, kv heads, ffn)
_FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                   "vocab_size", "num_key_value_heads", "intermediate_size")),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                   "vocab_size", "num_key_value_heads", "intermediate_size")),
    "mistral": ("MistralConfig", "MistralModel", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                   "vocab_size", "num_key_value_heads", "intermediate_size")),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                         "vocab_size", "num_key_value_heads", "intermediate_size")),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                             "vocab_size", "num_key_value_heads", "moe_intermediate_size")),
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", ("n_embd", "n_layer", "n_head", "vocab_size", None, "n_inner")),
    "bert": ("BertConfig", "BertForMaskedLM", ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                "vocab_size", None, "intermediate_size")),
}

_SETTINGS = (
    Settings(mode="inference", context=256, batch=2),
    Settings(mode="train", context=128, batch=3),
    Settings(mode="train", context=128, batch=1, gradient_checkpointing=True, pure_precision=True),
    Settings(mode="lora", context=64, batch=2, lora_rank=4),
)


def _lines(model, s: Settings) -> dict[str, int]:
    return {line.name: line.bytes for line in estimate_memory(model, s).lines}


def _python_model(family: str, values: dict[str, int], build: str = "{model}({config}({args}))"):
    config_class, model_class, _ = _FAMILIES[family]
    args = ", ".join(f"{k}={v}" for k, v in values.items())
    source = textwrap.dedent(f"""
        from transformers import AutoModelForCausalLM, {config_class}, {model_class}

        model = {build.format(model=model_class, config=config_class, args=args)}
    """)
    report = analyze_text(source, "model.py", AnalyzeOptions())
    assert not [p for p in report.problems if p.severity != "info"], [p.message for p in report.problems]
    return next(m for m in report.models if m.name == "model")


def _config_json_model(family: str, values: dict[str, int], model_class: str | None = None):
    model_class = model_class or _FAMILIES[family][1]
    text = json.dumps({"model_type": family, "architectures": [model_class], **values})
    return analyze_text(text, "config.json").models[0]


@st.composite
def _configs(draw, family: str) -> dict[str, int]:
    width_key, layers_key, heads_key, vocab_key, kv_key, ffn_key = _FAMILIES[family][2]
    heads = draw(st.sampled_from([2, 4]))
    values = {width_key: heads * draw(st.sampled_from([4, 8])), layers_key: draw(st.integers(1, 3)),
              heads_key: heads, vocab_key: draw(st.integers(16, 80))}
    if kv_key is not None:  # (Mistral's default, 8, divides no head count drawn here)
        values[kv_key] = draw(st.sampled_from([h for h in (1, 2, 4) if heads % h == 0]))
    if draw(st.booleans()):
        values[ffn_key] = draw(st.integers(8, 40))
    return values


@pytest.mark.parametrize("family", sorted(_FAMILIES))
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_python_file_s_transformers_model_has_its_config_json_s_memory(family, data) -> None:
    values = data.draw(_configs(family))
    python, config_json = _python_model(family, values), _config_json_model(family, values)
    assert python.tree.total == config_json.tree.total
    assert python.spec is not None and python.spec.model_type == family
    for s in _SETTINGS:
        assert _lines(python, s) == _lines(config_json, s), (s, family, values)


def test_gpt2_s_conv1d_layers_have_activations_and_a_kv_cache() -> None:
    # Before the spec: the rule for any Python model counted nn.Linear's inputs and outputs, and
    # GPT-2's Conv1D projections are none; and there was no KV cache line.
    values = {"n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100, "n_positions": 128}
    model = _python_model("gpt2", values)
    train = _lines(model, Settings(mode="train", context=128, batch=2))
    assert train["activations"] > 0 and train == _lines(_config_json_model("gpt2", values),
                                                        Settings(mode="train", context=128, batch=2))
    assert _lines(model, Settings(mode="inference", context=128, batch=2))["kv_cache"] == 2 * 2 * 128 * 2 * 64 * 2


def test_a_model_changed_after_it_was_built_keeps_the_rule_for_any_python_model() -> None:
    # A head of the code's own beside the transformers model: the family table does not count it.
    values = {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "vocab_size": 32,
              "intermediate_size": 24}
    source = textwrap.dedent(f"""
        import torch.nn as nn
        from transformers import LlamaConfig, LlamaModel


        class Classifier(nn.Module):
            def __init__(self):
                super().__init__()
                self.config = LlamaConfig({", ".join(f"{k}={v}" for k, v in values.items())})
                self.body = LlamaModel(self.config)
                self.head = nn.Linear(16, 3)


        model = Classifier()
    """)
    model = next(m for m in analyze_text(source, "model.py", AnalyzeOptions()).models if m.name == "model")
    body = _config_json_model("llama", values, "LlamaModel").tree.total
    assert model.spec is None and model.tree.total == body + 16 * 3 + 3


def test_the_spec_s_keys_point_at_the_model_not_into_a_file_that_has_none() -> None:
    model = _python_model("llama", {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
                                    "vocab_size": 32})
    assert model.spec is not None and model.spec.origins
    assert {span for _key, span in model.spec.origins.values()} == {model.span}
    assert model.spec.dtype is None and model.spec.quantization is None  # (the script's loading says the dtype)


@pytest.mark.parametrize("build", [
    "AutoModelForCausalLM.from_config({config}({args}))",
    "{model}._from_config({config}({args}))",
    "{model}({config}({args})).to('cpu')",
])
def test_the_spec_follows_the_ways_a_script_builds_the_model(build) -> None:
    values = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 32}
    model = _python_model("llama", values, build)
    assert model.spec is not None and model.spec.architecture == "LlamaForCausalLM"
