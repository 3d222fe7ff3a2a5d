"""Training YAMLs: which tool, the base model, exact counts and the training plan with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_count.cli import main
from lsp_count.core.analyze import AnalyzeOptions, analyze_path, analyze_text
from lsp_count.core.memory import estimate_memory, settings_from_mapping
from lsp_count.formats.architectures import torchtune_builder
from lsp_count.formats.yaml_formats import detect
from lsp_count.formats.yaml_reader import read_yaml

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "training"
LLAMA3_8B = 8_030_261_248


def only_model(path: Path):
    report = analyze_path(str(path))
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model


def settings(model):
    return settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}, strict=False)


def test_axolotl_qlora_example():
    model = only_model(ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml")
    # r=32 on q,k,v,o,gate,up,down of 32 layers: 32·32·(8192+5120+5120+8192+18432·3)
    assert model.tree.trainable == 32 * 32 * (8192 + 5120 + 5120 + 8192 + 3 * 18432) == 83_886_080
    assert model.tree.total == LLAMA3_8B + 83_886_080
    plan = model.plan
    assert (plan["mode"], plan["dtype"], plan["context"], plan["batch"], plan["lora_rank"]) == ("qlora", "nf4-dq", 4096, 2, 32)
    assert plan["gradient_checkpointing"] is True and plan["lora_targets"] == "all-linear"
    assert plan["spans"]["context"].start.line == 18  # sequence_len: 4096
    memory = estimate_memory(model, settings(model))
    weights = next(line for line in memory.lines if line.name == "weights")
    assert weights.detail.startswith("frozen base in nf4-dq")


def test_axolotl_named_targets_and_8bit():
    model = only_model(FIX / "axolotl-lora-mistral.yml")
    # q,k,v,o at r=16 on Mistral-7B: 32 · 16 · (8192 + 5120 + 5120 + 8192)
    assert model.tree.trainable == 32 * 16 * (8192 + 5120 + 5120 + 8192)
    p = model.plan
    assert (p["mode"], p["dtype"], p["optimizer"], p["zero"], p["context"]) == ("qlora", "int8", "adamw-8bit", 2, 8192)
    assert p["lora_targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]


def test_axolotl_regex_targets():
    model = only_model(FIX / "axolotl-regex-qwen.yaml")
    # Qwen2.5-0.5B: 24 layers, hidden 896, kv 128: q (896+896) and v (896+128) at r=8
    assert model.tree.trainable == 24 * 8 * ((896 + 896) + (896 + 128))
    assert model.plan["lora_targets"] == ["q_proj", "v_proj"]


def test_llamafactory_qlora_all():
    model = only_model(FIX / "llamafactory-qlora-llama3.yaml")
    assert model.tree.trainable == 32 * 8 * (8192 + 5120 + 5120 + 8192 + 3 * 18432)
    assert model.tree.total - model.tree.trainable == LLAMA3_8B
    p = model.plan
    assert (p["mode"], p["dtype"], p["context"], p["batch"], p["gradient_checkpointing"]) == ("qlora", "nf4-dq", 2048, 1, True)


def test_llamafactory_comma_targets_and_deepspeed():
    model = only_model(FIX / "llamafactory-lora-qwen-list.yaml")
    assert model.tree.trainable == 28 * 16 * ((3584 + 3584) + (3584 + 512))
    assert (model.plan["mode"], model.plan["zero"], model.plan["lora_alpha"]) == ("lora", 3, 32)


def test_torchtune_qlora_builder():
    model = only_model(FIX / "torchtune-llama3_1-8b-qlora.yaml")
    # q (4096+4096), v (4096+1024), output_proj (4096+4096), mlp w1/w2/w3 at r=8, 32 layers
    assert model.tree.trainable == 32 * 8 * (8192 + 5120 + 8192 + 3 * 18432)
    p = model.plan
    assert (p["mode"], p["dtype"], p["context"], p["batch"], p["optimizer"]) == ("qlora", "nf4-dq", 2048, 2, "adamw")


def test_torchtune_full_builder():
    model = only_model(FIX / "torchtune-qwen2_5-0_5b-full.yaml")
    assert model.tree.trainable == model.tree.total
    assert model.plan["mode"] == "train" and model.plan["gradient_checkpointing"] is False


@pytest.mark.parametrize("builder,hub,adapter", [
    ("llama3_2_1b", "meta-llama/Llama-3.2-1B", None),
    ("lora_llama2_7b", "meta-llama/Llama-2-7b-hf", "lora"),
    ("qlora_mistral_7b", "mistralai/Mistral-7B-v0.1", "qlora"),
    ("lora_qwen2_5_7b_instruct", "Qwen/Qwen2.5-7B", "lora"),
    ("gemma2_9b", "google/gemma-2-9b", None),
    ("phi3_mini", "microsoft/Phi-3-mini-4k-instruct", None),
])
def test_torchtune_table(builder, hub, adapter):
    assert torchtune_builder(builder) == (hub, adapter)
    assert torchtune_builder("lora_notamodel_3b") is None


def test_torchtune_lora_on_tied_output_refused():
    text = ("model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\n  lora_attn_modules: [q_proj]\n"
            "  apply_lora_to_output: True\n  lora_rank: 8\n")
    report = analyze_text(text, "tt.yaml")
    assert any(p.code == "LC102" and "tied" in p.message for p in report.problems)


def test_detects_each_tool():
    expected = {"axolotl-lora-mistral.yml": "axolotl", "llamafactory-qlora-llama3.yaml": "llamafactory",
                "torchtune-llama3_1-8b-qlora.yaml": "torchtune", "litgpt-model_config.yaml": "litgpt",
                "nemo-megatron-gpt-126m.yaml": "nemo", "hf-config.yaml": "hf", "not-a-model.yaml": None}
    for name, kind in expected.items():
        assert detect(read_yaml((FIX / name).read_text()).root) == kind, name


def test_not_a_model_is_unrecognized():
    report = analyze_path(str(FIX / "not-a-model.yaml"))
    assert report.recognized is False and [p.code for p in report.problems] == ["LC002"]


def test_unknown_base_model_is_located_error(tmp_path):
    report = analyze_text("base_model: acme/not-cached\nadapter: lora\nlora_r: 8\nlora_target_linear: true\n",
                          "a.yaml", AnalyzeOptions(hf_cache=str(tmp_path), base_dir=str(tmp_path)))
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert problem.code == "LC104" and problem.span.start.line == 0 and problem.span.start.column == 12
    assert report.models == ()


def test_unknown_target_module_is_a_warning_beside_others_and_an_error_alone():
    # peft adapts q_proj and ignores qkv, a name no module has; with only qkv it adapts nothing and raises.
    report = analyze_text("base_model: meta-llama/Meta-Llama-3-8B\nadapter: lora\nlora_r: 8\n"
                          "lora_target_modules: [q_proj, qkv]\n", "a.yaml")
    assert not report.has_errors, report.problems
    (problem,) = [p for p in report.problems if "qkv" in p.message]
    assert problem.severity == "warning" and "peft ignores it" in problem.message and problem.span.start.line == 3
    assert report.models[0].tree.trainable == 32 * 8 * (4096 + 4096)  # q_proj alone, r·(in + out) a layer
    report = analyze_text("base_model: meta-llama/Meta-Llama-3-8B\nadapter: lora\nlora_r: 8\n"
                          "lora_target_modules: [qkv]\n", "a.yaml")
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert "qkv" in problem.message and problem.span.start.line == 3


def test_bad_values_are_located():
    report = analyze_text("base_model: meta-llama/Meta-Llama-3-8B\nadapter: lora\nlora_r: sixteen\n"
                          "lora_target_linear: true\n", "a.yaml")
    assert any(p.code == "LC102" and p.span.start.line == 2 for p in report.problems)


def test_hf_config_as_yaml_counts_like_json():
    model = only_model(FIX / "hf-config.yaml")
    # embed + head 2·32000·512, 4 layers of q,o (512²), k,v (512·256), MLP 3·512·1376, 2 norms; final norm
    per_layer = 2 * 512 * 512 + 2 * 512 * 256 + 3 * 512 * 1376 + 2 * 512
    assert model.tree.total == 2 * 32000 * 512 + 4 * per_layer + 512


def test_half_typed_yaml_still_counts():
    report = analyze_text("base_model: meta-llama/Meta-Llama-3-8B\nadapter: qlora\nload_in_4bit: true\nlora_r: 16\n"
                          "lora_target_linear: true\nmicro_batch_size: [\n", "a.yaml")
    assert report.has_errors and report.models
    assert report.models[0].tree.total - report.models[0].tree.trainable == LLAMA3_8B


def test_cli_prints_trainable_total_and_qlora_memory(capsys):
    assert main([str(ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml")]) == 0
    out = capsys.readouterr().out
    assert "83,886,080" in out and "8,114,147,328" in out
    assert "qlora" in out and "context 4,096" in out and "batch 2" in out


def test_cli_flag_overrides_plan(capsys):
    assert main([str(ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml"), "--context", "1024"]) == 0
    out = capsys.readouterr().out
    assert "context 1,024" in out and "batch 2" in out


@pytest.mark.parametrize(("text", "optimizer"), [
    # axolotl / LLaMA-Factory: transformers' `optim` names, torch's SGD without momentum unless optim_args adds it
    ("base_model: Qwen/Qwen2.5-0.5B\noptimizer: sgd\n", "sgd"),
    ("base_model: Qwen/Qwen2.5-0.5B\noptimizer: sgd\noptim_args: momentum=0.9\n", "sgd-momentum"),
    ("base_model: Qwen/Qwen2.5-0.5B\noptimizer: sgd\noptim_args:\n  momentum: 0.9\n", "sgd-momentum"),
    ("base_model: Qwen/Qwen2.5-0.5B\noptimizer: rmsprop\noptim_args: momentum=0.9\n", "adamw"),
    ("model_name_or_path: Qwen/Qwen2.5-0.5B\nstage: sft\nfinetuning_type: full\noptim: adagrad\n", "sgd-momentum"),
    # torchtune: the component's keyword arguments
    ("model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_0_5b\noptimizer:\n  _component_: torch.optim.SGD\n"
     "  lr: 0.1\n", "sgd"),
    ("model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_0_5b\noptimizer:\n  _component_: torch.optim.SGD\n"
     "  lr: 0.1\n  momentum: 0.9\n", "sgd-momentum"),
])
def test_the_optimizer_is_read_with_the_options_that_give_it_states(text, optimizer):
    report = analyze_text(text, "train.yaml")
    (model,) = report.models
    assert model.plan["optimizer"] == optimizer, report.problems


def test_an_optimizer_with_three_states_is_said_not_modelled():
    report = analyze_text("model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_0_5b\noptimizer:\n"
                          "  _component_: torch.optim.AdamW\n  amsgrad: true\n", "tt.yaml")
    (model,) = report.models
    assert "optimizer" not in model.plan
    (note,) = [p for p in report.problems if "not modelled" in p.message]
    assert note.code == "LC106" and note.span.start.line == 3


def test_a_lora_config_s_memory_holds_the_adapters_its_tree_has_fused_experts_too():
    # Qwen3-MoE all-linear: peft adapts each fused expert tensor (490M of the 498M adapters). The
    # memory's adapters, gradients and optimizer states are those tensors, not a recount of the
    # base's linear layers, which left the experts out (7.5M). Another rank is counted from the base.
    from dataclasses import replace

    report = analyze_text("base_model: Qwen/Qwen3-30B-A3B\nadapter: lora\nlora_r: 8\nlora_target_linear: true\n"
                          "sequence_len: 512\nmicro_batch_size: 1\n", "moe.yaml")
    (model,) = report.models
    s = settings(model)
    memory = estimate_memory(model, s)
    lines = {line.name: line.bytes for line in memory.lines}
    assert model.tree.trainable == 498_253_824
    assert lines["adapters"] == lines["gradients"] == 4 * model.tree.trainable
    assert lines["optimizer_states"] == 8 * model.tree.trainable
    other = {line.name: line.bytes for line in estimate_memory(model, replace(s, lora_targets=("q_proj",))).lines}
    assert other["adapters"] < lines["adapters"]  # other targets: counted from the base's linear layers


# Each format's LoRA config at rank {r}: written at 8 and estimated at --lora-rank 16 / 4, it must hold
# what the same config written at that rank holds (whose adapters the parity tests compare with peft,
# LitGPT and torchtune): peft's fused-expert adapters, DoRA's magnitude vectors and fused qkv too.
_RANK_CONFIGS = {
    "axolotl MoE all-linear": ("moe.yaml", "base_model: Qwen/Qwen3-30B-A3B\nadapter: lora\nlora_r: {r}\n"
                                           "lora_target_linear: true\nsequence_len: 512\nmicro_batch_size: 1\n"),
    "axolotl DoRA": ("dora.yaml", "base_model: meta-llama/Llama-3.1-8B\nadapter: lora\nlora_r: {r}\npeft_use_dora: true\n"
                                  "lora_target_modules: [q_proj, v_proj]\nsequence_len: 512\nmicro_batch_size: 1\n"),
    "LLaMA-Factory": ("lf.yaml", "model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\nfinetuning_type: lora\n"
                                 "lora_rank: {r}\nlora_target: all\ncutoff_len: 512\n"),
    "LitGPT fused qkv": ("lora.yaml", "checkpoint_dir: checkpoints/meta-llama/Llama-3.2-1B\nlora_r: {r}\n"
                                      "lora_query: true\nlora_key: true\nlora_value: true\nlora_head: true\n"),
    "torchtune": ("tt.yaml", "model:\n  _component_: torchtune.models.llama3.lora_llama3_8b\n"
                             "  lora_attn_modules: [q_proj, v_proj, output_proj]\n  apply_lora_to_mlp: true\n"
                             "  lora_rank: {r}\noptimizer:\n  _component_: torch.optim.AdamW\n"),
}


@pytest.mark.parametrize("name", sorted(_RANK_CONFIGS))
@pytest.mark.parametrize("rank", [16, 4])
@pytest.mark.parametrize("tp", [1, 2])
def test_another_lora_rank_keeps_the_config_s_adapters(name, rank, tp):
    from dataclasses import replace

    path, text = _RANK_CONFIGS[name]
    (written,) = analyze_text(text.format(r=8), path).models
    (asked,) = analyze_text(text.format(r=rank), path).models
    assert written.plan["lora_rank"] == 8 and asked.plan["lora_rank"] == rank
    wanted = {line.name: line for line in estimate_memory(asked, replace(settings(asked), tp=tp, gpus=tp)).lines}
    got = {line.name: line for line in estimate_memory(written, replace(settings(written), lora_rank=rank, tp=tp, gpus=tp)).lines}
    for line in ("adapters", "gradients", "optimizer_states"):
        assert got[line].bytes == wanted[line].bytes, line
    assert f"{asked.tree.trainable:,} LoRA params (the config's adapters, rank {rank}; the config's rank is 8)" \
        in got["adapters"].detail
    if tp == 1:
        element = 2 if asked.plan.get("pure_precision") else 4
        assert got["adapters"].bytes == element * asked.tree.trainable


def test_torchtune_recipes_that_quantize_the_base_or_only_run_the_model():
    # torchtune's QDoRA config builds lora_llama3_8b with quantize_base: True (what qlora_llama3_8b is);
    # a generation / evaluation config has no optimizer: every training recipe's has one.
    qdora = only_model_text("model:\n  _component_: torchtune.models.llama3.lora_llama3_8b\n  lora_attn_modules: [q_proj, v_proj]\n"
                            "  lora_rank: 8\n  use_dora: True\n  quantize_base: True\noptimizer:\n  _component_: torch.optim.AdamW\n")
    assert (qdora.plan["mode"], qdora.plan["dtype"]) == ("qlora", "nf4-dq")
    report = analyze_text("model:\n  _component_: torchtune.models.llama2.llama2_7b\nmax_new_tokens: 300\n"
                          "prompt:\n  user: Tell me a joke.\n", "generation.yaml")
    (model,) = report.models
    assert model.plan["mode"] == "inference"
    assert any(p.code == "LC106" and "estimated for inference" in p.message for p in report.problems)


def test_a_torchtune_distillation_teacher_is_held_beside_the_student():
    # torchtune's knowledge_distillation recipes build the teacher in `dtype` (float32 where unset) and keep
    # it frozen: the memory's reference_model line, the teacher's own count (the student's report stays).
    from lsp_count.core.memory import estimate_memory, settings_from_mapping

    teacher = only_model_text("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
                              "optimizer:\n  _component_: torch.optim.AdamW\n").tree.root.total
    for dtype, held, student in (("bf16", "bfloat16", "llama3_2_1b"), ("fp32", "float32", "lora_llama3_2_1b"),
                                 (None, "float32", "llama3_2_1b")):
        text = (f"model:\n  _component_: torchtune.models.llama3_2.{student}\n  lora_attn_modules: [q_proj]\n"
                f"  lora_rank: 8\nteacher_model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
                f"optimizer:\n  _component_: torch.optim.AdamW\n" + (f"dtype: {dtype}\n" if dtype else ""))
        report = analyze_text(text, "kd.yaml")
        (model,) = report.models
        assert model.name == "meta-llama/Llama-3.2-1B" and model.tree.root.total < teacher
        assert (model.plan["reference_model"], model.plan["reference_parameters"]) == (held, teacher)
        memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
        assert memory.line("reference_model").bytes == teacher * (2 if held == "bfloat16" else 4)
        assert any(p.code == "LC106" and f"{teacher:,} parameters" in p.message for p in report.problems)
    for component, says in (("llama3_1.lora_llama3_1_8b", "is a LoRA builder"), ("llama9.llama9_1b", "not in lsp-count's")):
        report = analyze_text("model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\nteacher_model:\n"
                              f"  _component_: torchtune.models.{component}\noptimizer:\n  _component_: torch.optim.AdamW\n",
                              "kd.yaml")
        (model,) = report.models
        assert "reference_model" not in model.plan and any(says in p.message for p in report.problems)


def only_model_text(text: str):
    report = analyze_text(text, "tt.yaml")
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model


def test_torchtune_phi4_counts_as_torchtune_builds_it():
    # torchtune 0.6.1 builds phi4_14b with 14,659,507,200 parameters (transformers' Phi-4 too) and
    # lora_phi4_14b (q, v, output_proj and the MLP at rank 8) with 30,720,000 trainable of
    # 14,690,227,200: a helper's sweep of torchtune's recipe configs built them on the meta device.
    full = only_model_text("model:\n  _component_: torchtune.models.phi4.phi4_14b\noptimizer:\n"
                           "  _component_: torch.optim.AdamW\n")
    assert full.tree.total == 14_659_507_200
    lora = only_model_text("model:\n  _component_: torchtune.models.phi4.lora_phi4_14b\n"
                           "  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n"
                           "  apply_lora_to_output: False\n  lora_rank: 8\n  lora_alpha: 16\n")
    assert (lora.tree.total, lora.tree.trainable) == (14_690_227_200, 30_720_000)


def test_torchtune_and_litgpt_true_precision_train_without_a_master_copy():
    # torchtune builds the model in `dtype` and trains it so; LitGPT's "bf16-true" likewise, "bf16-mixed" not.
    full = only_model(FIX / "torchtune-qwen2_5-0_5b-full.yaml")
    assert full.plan["pure_precision"] is True and full.plan["dtype"] == "bfloat16"
    memory = estimate_memory(full, settings(full))
    assert memory.line("master_weights") is None
    for precision, pure in (("bf16-true", True), ("bf16-mixed", None)):
        report = analyze_text(f"checkpoint_dir: checkpoints/meta-llama/Llama-3.2-1B\nprecision: {precision}\n"
                              "train:\n  micro_batch_size: 1\n", "full.yaml")
        (model,) = report.models
        assert model.plan.get("pure_precision") is pure


@pytest.mark.parametrize(("text", "line", "said"), [
    ("n_layer: two\nn_embd: 64\nn_head: 4\n", 0, "n_layer must be a whole number ≥ 1, got 'two'"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nn_query_groups: 3\n", 3, "n_head 4 is not a multiple of n_query_groups 3"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nhead_size: -3\n", 3, "head_size must be a whole number ≥ 1, got -3"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nbias: maybe\n", 3, "bias must be true or false"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nmlp_class_name: LLaMAMLP\n", 3, "LLaMAMLP needs intermediate_size"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nvocab_size: 100000000000000000000\n", 3, "larger than any real model"),
    ("n_layer: 1000000000\nn_embd: 64\nn_head: 4\n", 0, "n_layer 1,000,000,000 is larger than any real model layer count"),
    ("n_layer: 2\nn_embd: 64\nn_head: 4\nlatent_attention: yes\n", 3, "latent_attention needs q_lora_rank"),
])
def test_a_litgpt_config_litgpt_refuses_is_an_error_at_its_key(text, line, said):
    report = analyze_text(text, "model_config.yaml")
    assert not report.models
    (problem,) = [p for p in report.problems if p.severity == "error"]
    assert problem.code == "LC102" and said in problem.message and problem.span.start.line == line
