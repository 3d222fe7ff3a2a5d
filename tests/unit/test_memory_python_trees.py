"""Memory estimates of the trees the Python analyser builds: a ModuleList's entries, equal ones
grouped (`0-11 ×12`), are the model's layers (gradient checkpointing keeps one input per layer,
pipeline stages split them), and a model holding peft's adapters has its LoRA activations from
the adapters it holds, as the same model without them under the same LoRA plan."""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import MemoryEstimator, Settings, SettingsError, estimate_memory

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _gpt():
    path = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"
    return next(m for m in analyze_text(path.read_text(), str(path)).models if m.name == "GPT")


def _lines(model, settings) -> dict[str, int]:
    return {line.name: line.bytes for line in estimate_memory(model, settings).lines}


def test_a_python_module_list_s_entries_are_its_layers() -> None:
    gpt = _gpt()  # nanoGPT: transformer.h is 12 equal Blocks, grouped as `0-11 ×12`
    assert MemoryEstimator(gpt).layer_count == 12
    # Pipeline stages of whole layers: 4 of 12 was "more stages than the model's 1 layers".
    staged = _lines(gpt, Settings(mode="train", pp=4, gpus=4))
    whole = _lines(gpt, Settings(mode="train"))
    assert staged["weights"] < whole["weights"]


def test_gradient_checkpointing_keeps_each_layer_s_input_and_one_layer() -> None:
    gpt = _gpt()
    s, b, h, layers = 1024, 2, 768, 12
    plain = _lines(gpt, Settings(mode="train", context=s, batch=b))["activations"]
    checkpointed = _lines(gpt, Settings(mode="train", context=s, batch=b, gradient_checkpointing=True))["activations"]
    # Without checkpointing every layer's activations are kept, with it one layer's and each layer's input
    # (2 bytes × s·b·h, h the blocks' LayerNorm width).
    assert checkpointed == layers * 2 * s * b * h + plain // layers


LLAMA = """
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, LlamaConfig

config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=4,
                     num_key_value_heads=2)
model = AutoModelForCausalLM.from_config(config)
{adapt}
"""


@pytest.mark.parametrize(("rank", "targets", "written"), [
    (4, None, '"all-linear"'),
    (8, ("q_proj", "v_proj"), '["q_proj", "v_proj"]'),
])
@pytest.mark.parametrize("checkpointing", [False, True])
def test_a_model_s_own_adapters_give_the_activations_of_the_same_lora_plan(rank, targets, written,
                                                                           checkpointing) -> None:
    adapted = analyze_text(textwrap.dedent(LLAMA.format(
        adapt=f"model = get_peft_model(model, LoraConfig(r={rank}, target_modules={written}))")), "adapted.py",
        AnalyzeOptions()).models[0]
    plain = analyze_text(textwrap.dedent(LLAMA.format(adapt="")), "plain.py", AnalyzeOptions()).models[0]
    assert adapted.plan == {"mode": "lora", "lora_rank": rank}  # (its memory is a LoRA fine-tune's by default)
    settings = Settings(mode="lora", lora_rank=rank, lora_targets=targets, context=512, batch=3,
                        gradient_checkpointing=checkpointing)
    own, planned = _lines(adapted, settings), _lines(plain, settings)
    assert own["activations"] == planned["activations"]
    assert own["adapters"] == planned["adapters"]  # (the plan's count of the same adapters, checked in parity)


def test_a_plain_python_model_has_no_plan_and_keeps_its_one_layer_stack_errors() -> None:
    plain = analyze_text(textwrap.dedent(LLAMA.format(adapt="")), "plain.py", AnalyzeOptions()).models[0]
    assert plain.plan == {}
    with pytest.raises(SettingsError, match="more stages than the model's 3 layers"):
        MemoryEstimator(plain).validate(Settings(mode="train", pp=4, gpus=4))
