"""LLaMA-Factory's freeze tuning: what it trains, how the tree and the memory show it, and its bad input."""

from __future__ import annotations

from pathlib import Path

from lsp_count.cli import main
from lsp_count.core.analyze import analyze_path, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

FIX = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "training"
QWEN_7B = 7_615_616_512  # Qwen2.5-7B, as transformers counts it (embeddings and head untied)
QWEN_LAYER = 233_057_792  # one of its 28 layers


def freeze(yaml: str, model: str = "Qwen/Qwen2.5-7B"):
    return analyze_text(f"model_name_or_path: {model}\nstage: sft\nfinetuning_type: freeze\n" + yaml, "lf.yaml")


def test_the_fixture_trains_its_last_two_layers():
    report = analyze_path(str(FIX / "llamafactory-freeze-qwen.yaml"))
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == (QWEN_7B, 2 * QWEN_LAYER)
    layers = next(c for c in model.tree.root.children if c.name == "layers")
    assert [(e.name, e.repeat, e.frozen) for e in layers.children] == [("0-25", 26, True), ("26-27", 2, False)]
    assert model.plan["mode"] == "train"
    assert any(".26., .27." in p.message for p in report.problems if p.code == "LC106")


def test_the_first_layers_and_named_modules():
    (first,) = freeze("freeze_trainable_layers: -1\n").models
    assert first.tree.trainable == QWEN_LAYER
    (mlp,) = freeze("freeze_trainable_modules: mlp\nfreeze_extra_modules: lm_head\n").models
    assert mlp.tree.trainable == 2 * 3 * 3584 * 18944 + 152_064 * 3584  # two MLPs, the head
    # LLaMA-Factory trains each parameter whose name holds an extra module's name: "norm" is in every layernorm's.
    (norms,) = freeze("freeze_trainable_modules: mlp\nfreeze_extra_modules: norm\n").models
    assert norms.tree.trainable == 2 * 3 * 3584 * 18944 + (28 * 2 + 1) * 3584
    (pro,) = freeze("freeze_trainable_layers: 4\nuse_llama_pro: true\n").models  # layers 6, 13, 20, 27
    assert pro.tree.trainable == 4 * QWEN_LAYER
    layers = next(c for c in pro.tree.root.children if c.name == "layers")
    assert [e.name for e in layers.children] == ["0-5", "6", "7-12", "13", "14-19", "20", "21-26", "27"]


def test_activations_are_kept_from_the_first_trained_layer():
    (model,) = analyze_path(str(FIX / "llamafactory-freeze-qwen.yaml")).models
    (full,) = freeze("freeze_trainable_layers: 28\n").models
    settings = Settings(mode="train", context=1024)
    some, every = (estimate_memory(m, settings).line("activations") for m in (model, full))
    assert "(the last 2: the backward pass stops" in some.detail and "the last" not in every.detail
    assert 0 < some.bytes < every.bytes / 10
    (embedded,) = freeze("freeze_extra_modules: embed_tokens\n").models  # the gradient reaches the embeddings
    assert estimate_memory(embedded, settings).line("activations").bytes == every.bytes


def test_bad_freeze_settings_are_errors_at_their_key():
    cases = {
        "freeze_trainable_modules: mlp,attention\n": ("freeze_trainable_modules: attention is not a module of the "
                                                      "layers (choose from input_layernorm, mlp, ", 3),
        "freeze_extra_modules: wte\n": ("freeze_extra_modules: wte is not a module outside the layers (choose from "
                                        "embed_tokens, lm_head, norm)", 3),
        "freeze_trainable_layers: 5\nuse_llama_pro: true\n": ("use_llama_pro needs freeze_trainable_layers to divide "
                                                              "the 28 layers, got 5", 3),
        "quantization_bit: 4\n": ("finetuning_type: freeze cannot train a quantized model", 3),
        "freeze_trainable_layers: two\n": ("freeze_trainable_layers must be a whole number", 3),
    }
    for yaml, (message, line) in cases.items():
        report = freeze(yaml)
        errors = [p for p in report.problems if p.severity == "error"]
        assert len(errors) == 1 and message in errors[0].message, (yaml, errors)
        assert errors[0].span.start.line == line, (yaml, errors[0].span)
        assert not report.models


def test_a_model_it_is_not_modelled_for_is_a_full_fine_tune_with_a_warning(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text(
        '{"model_type": "jamba", "architectures": ["JambaForCausalLM"], "num_hidden_layers": 4, "hidden_size": 32,'
        ' "intermediate_size": 48, "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 64,'
        ' "num_experts": 2, "attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 2,'
        ' "expert_layer_offset": 1}')
    (tmp_path / "lf.yaml").write_text("model_name_or_path: ./base\nstage: sft\nfinetuning_type: freeze\n")
    report = analyze_path(str(tmp_path / "lf.yaml"))
    (model,) = report.models
    assert model.tree.trainable == model.tree.total
    assert any(p.severity == "warning" and "freeze tuning is not modelled" in p.message and
               "counting a full fine-tune" in p.message for p in report.problems)


def test_the_cli_prints_the_frozen_runs(capsys):
    assert main([str(FIX / "llamafactory-freeze-qwen.yaml")]) == 0
    out = capsys.readouterr().out
    assert "0-25 ×26" in out and "26-27 ×2" in out and "trainable       466M" in out
