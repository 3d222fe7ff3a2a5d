"""Memory estimates of the trees the Python analyser builds: a ModuleList's entries, equal ones
grouped (`0-11 ×12`), are the model's layers (gradient checkpointing keeps one input per layer,
pipeline stages split them), and a model holding peft's adapters has its LoRA activations from
the adapters it holds, as the same model without them under the same LoRA plan."""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.catalog import CATALOG_DIR
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


def test_nanogpt_s_logits_are_its_vocabulary_s_though_its_embedding_holds_the_head_s_matrix() -> None:
    # `self.transformer.wte.weight = self.lm_head.weight`: wte holds the tied matrix, made by the head's
    # nn.Linear; the logits are 50,304 wide, not the 1,024 rows of wpe, the one nn.Embedding left.
    s, b = 1024, 4
    assert _lines(_gpt(), Settings(mode="train", context=s, batch=b))["logits"] == 12 * s * b * 50_304


def test_gradient_checkpointing_keeps_each_layer_s_input_and_one_layer() -> None:
    gpt = _gpt()
    s, b, h, layers = 1024, 2, 768, 12
    plain = _lines(gpt, Settings(mode="train", context=s, batch=b, pure_precision=True))["activations"]
    checkpointed = _lines(gpt, Settings(mode="train", context=s, batch=b, pure_precision=True,
                                        gradient_checkpointing=True))["activations"]
    # Without checkpointing every layer's activations are kept, with it one layer's and each layer's input
    # (2 bytes × s·b·h, h the blocks' LayerNorm width).
    assert checkpointed == layers * 2 * s * b * h + plain // layers
    # Mixed precision's residual stream is fp32 (fp32 weights under autocast): 4 bytes a value.
    mixed = _lines(gpt, Settings(mode="train", context=s, batch=b))["activations"]
    mixed_checkpointed = _lines(gpt, Settings(mode="train", context=s, batch=b, gradient_checkpointing=True))["activations"]
    assert mixed_checkpointed == layers * 4 * s * b * h + mixed // layers


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


QWEN = "Qwen/Qwen2.5-0.5B"  # in the bundled catalog; its head is tied to the embedding


def _script(body: str) -> str:
    return textwrap.dedent("""
        import torch
        from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
        from transformers import AutoModelForCausalLM, BitsAndBytesConfig

    """) + textwrap.dedent(body)


@pytest.mark.parametrize(("quantization", "plan", "kbit"), [
    ('quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True, '
     'bnb_4bit_compute_dtype=torch.bfloat16)', {"mode": "qlora", "dtype": "nf4-dq"}, True),
    ('quantization_config={"load_in_4bit": True}', {"mode": "qlora", "dtype": "nf4"}, False),
    ("quantization_config=BitsAndBytesConfig(load_in_8bit=True)", {"mode": "lora", "dtype": "int8"}, True),
    ("", {"mode": "lora"}, False),
])
def test_a_script_s_quantized_lora_model_is_estimated_as_its_fine_tune(quantization, plan, kbit) -> None:
    # QLoRA's script: bitsandbytes' 4-bit base (marked `is_loaded_in_4bit` as transformers' quantizer
    # marks it), peft's prepare_model_for_kbit_training (which then freezes it and turns gradient
    # checkpointing on) and LoRA.
    prepare = "model = prepare_model_for_kbit_training(model)" if kbit else ""
    report = analyze_text(_script(f"""
        model = AutoModelForCausalLM.from_pretrained("{QWEN}"{", " + quantization if quantization else ""})
        {prepare}
        model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
    """), "train.py", AnalyzeOptions())
    plain = analyze_text(_script(f"""
        model = AutoModelForCausalLM.from_pretrained("{QWEN}")
        model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
    """), "plain.py", AnalyzeOptions())
    (model,), (same,) = report.models, plain.models
    assert (model.tree.total, model.tree.trainable) == (same.tree.total, same.tree.trainable)  # the same parameters
    assert model.plan == {**plan, "lora_rank": 8, **({"gradient_checkpointing": True} if kbit else {})}
    config = analyze_text((CATALOG_DIR / f"{QWEN}.json").read_text(), "config.json").models[0]
    settings = Settings(mode=plan["mode"], dtype=plan.get("dtype"), lora_rank=8, lora_targets=("q_proj", "v_proj"))
    # The frozen base in the plan's dtype weighs what the config's model does; the head's logits are kept too.
    assert _lines(model, settings)["weights"] == _lines(config, settings)["weights"]
    assert _lines(model, settings)["logits"] == _lines(config, settings)["logits"] == 12 * 4096 * 151_936


def test_a_model_loaded_in_4bit_without_adapters_is_estimated_with_its_4bit_weights() -> None:
    report = analyze_text(_script(f"""
        model = AutoModelForCausalLM.from_pretrained("{QWEN}", quantization_config=BitsAndBytesConfig(load_in_4bit=True))
    """), "infer.py", AnalyzeOptions())
    assert report.models[0].plan == {"dtype": "nf4"}
    assert "loaded with bitsandbytes in nf4" in " ".join(report.models[0].tree.notes)


LOOP = """
import inspect

import bitsandbytes as bnb
import torch
from torch import nn

from model import GPT, GPTConfig


def configure_optimizers(model, weight_decay, learning_rate):
    # nanoGPT's: two param groups, and AdamW's `fused` where its signature has it
    params = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
    groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": weight_decay},
              {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
    extra = dict(fused=True) if "fused" in inspect.signature(torch.optim.AdamW).parameters else dict()
    return torch.optim.AdamW(groups, lr=learning_rate, **extra)


if __name__ == "__main__":
    gpt = GPT(GPTConfig(block_size=256))
    optimizer = configure_optimizers(gpt, 0.1, 6e-4)
    mlp = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 16))
    sgd = torch.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9)
    head = nn.Linear(16, 4)
    head.weight.requires_grad_(False)
    eight = bnb.optim.AdamW8bit(filter(lambda p: p.requires_grad, head.parameters()))
    frozen = nn.Linear(16, 4).requires_grad_(False)
    unread = torch.optim.AdamW(frozen.parameters())
    evaluated = nn.Linear(4, 4)
"""


def test_a_training_loop_s_optimizer_makes_its_model_s_memory_a_full_fine_tune(tmp_path) -> None:
    # An optimizer the script builds over a model's trainable parameters (an iterator of them, a list,
    # param groups) trains the model: its memory is estimated for full training with that optimizer,
    # at the config's sequence length where it is under the default (nanoGPT's block_size).
    (tmp_path / "model.py").write_text((ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py").read_text())
    report = analyze_text(LOOP, str(tmp_path / "train.py"), AnalyzeOptions())
    plans = {m.name: m.plan for m in report.models}
    # (float32 parameters, no autocast and no other word of a precision in the project: float32 throughout)
    assert plans == {"gpt": {"mode": "train", "optimizer": "adamw-fp32", "context": 256, "dtype": "float32"},
                     "mlp": {"mode": "train", "optimizer": "sgd-momentum", "dtype": "float32"},
                     "head": {"mode": "train", "optimizer": "adamw-8bit", "dtype": "float32"},
                     "frozen": {}, "evaluated": {}}
    gpt = next(m for m in report.models if m.name == "gpt")
    assert "builds `torch.optim.AdamW` over its parameters" in " ".join(gpt.tree.notes)
    assert "in float32 throughout (the code has no autocast" in " ".join(gpt.tree.notes)
    assert not [p for p in report.problems if p.severity != "info"]


def test_the_optimizers_signatures_are_torch_s() -> None:
    # nanoGPT asks `inspect.signature(torch.optim.AdamW).parameters` for `fused`: the analyser's table
    # of the optimizers' signatures against the installed torch's.
    torch = pytest.importorskip("torch")
    import inspect

    from lsp_count.pymodel.interp import _OPTIMIZER_SIGNATURES

    for name, parameters in _OPTIMIZER_SIGNATURES.items():
        real = inspect.signature(getattr(torch.optim, name.rsplit(".", 1)[1])).parameters.values()
        assert [(p.name, p.kind.name) for p in real] == [(n, kind) for n, kind, _ in parameters], name
        assert [p.default for p in real][1:] == [d for _, _, d in parameters][1:], name


@pytest.mark.parametrize(("optimizer", "kind"), [
    ("torch.optim.RMSprop(model.parameters())", "sgd-momentum"),  # one state: the square average
    ("torch.optim.RMSprop(model.parameters(), 0.01, 0.99, 1e-08, 0, 0.9)", "adamw"),  # and the momentum buffer
    ("torch.optim.RMSprop(model.parameters(), momentum=0.9, centered=True)", ""),  # three: not modelled
    ("torch.optim.Adagrad(model.parameters())", "sgd-momentum"),
    ("torch.optim.SGD(model.parameters(), lr=0.1)", "sgd"),  # no momentum: no state
    ("torch.optim.SGD(model.parameters(), 0.1, 0.9)", "sgd-momentum"),
    ("torch.optim.SGD(model.parameters(), lr=0.1, momentum=len(sys.argv))", "sgd-momentum"),  # not known: the larger
    ("torch.optim.AdamW(model.parameters(), amsgrad=True)", ""),
    ("torch.optim.NAdam(model.parameters())", "adamw"),  # two: m and v
    ("torch.optim.Adadelta(model.parameters())", "adamw"),
    ("bnb.optim.PagedAdamW8bit(model.parameters())", "adamw-8bit"),
    ("torch.optim.LBFGS(model.parameters())", ""),  # its history is not modelled: AdamW's assumed, said
    ("Adafactor(model.parameters(), lr=1e-3, relative_step=False)", ""),  # transformers', read
    ("Lion(model.parameters())", ""),  # the script's own torch.optim.Optimizer
])
def test_a_loop_s_optimizer_is_modelled_by_the_states_it_keeps(optimizer, kind) -> None:
    report = analyze_text(textwrap.dedent(f"""
        import sys

        import bitsandbytes as bnb
        import torch
        from torch import nn
        from transformers.optimization import Adafactor


        class Lion(torch.optim.Optimizer):
            def __init__(self, params, lr=1e-4, betas=(0.9, 0.99)):
                super().__init__(params, dict(lr=lr, betas=betas))


        model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 64))
        optimizer = {optimizer}
    """), "train.py", AnalyzeOptions())
    (model,) = report.models
    assert model.plan == {"mode": "train", "dtype": "float32",
                          "optimizer": "adamw-fp32" if kind in ("adamw", "") else kind}
    said = " ".join(model.tree.notes)
    assert "over its parameters" in said and (kind or "states are not modelled: AdamW's are assumed" in said)


TRAINER = """
import torch
from peft import LoraConfig, get_peft_model
from transformers import (GPT2Config, GPT2LMHeadModel, HfArgumentParser, Trainer, TrainingArguments,
                          get_constant_schedule)

model = GPT2LMHeadModel(GPT2Config(n_embd=64, n_layer=2, n_head=2, n_positions=256, vocab_size=512))
{body}
"""


@pytest.mark.parametrize(("body", "plan"), [
    # its own optimizer: that one, not TrainingArguments' `optim`
    ("""optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", per_device_train_batch_size=2, fp16=True),
                  optimizers=(optimizer, get_constant_schedule(optimizer)))""",
     {"mode": "train", "batch": 2, "context": 256, "dtype": "float16", "optimizer": "sgd-momentum"}),
    # LoRA's adapters with 8-bit AdamW
    ("""model = get_peft_model(model, LoraConfig(r=4, target_modules=["c_attn"]))
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", optim="paged_adamw_8bit"))""",
     {"mode": "lora", "lora_rank": 4, "batch": 8, "context": 256, "optimizer": "adamw-8bit"}),
    # HfArgumentParser's TrainingArguments, defaults and all (transformers 5's `optim` default asks torch's version)
    ("""(arguments,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()
trainer = Trainer(model=model, args=arguments)""",
     {"mode": "train", "batch": 8, "context": 256, "dtype": "float32", "optimizer": "adamw-fp32"}),
])
def test_a_trainer_s_optimizer_is_the_one_it_uses(body, plan) -> None:
    report = analyze_text(TRAINER.format(body=body), "train.py", AnalyzeOptions())
    assert {m.name: m.plan for m in report.models} == {"model": plan}
    assert not [p for p in report.problems if p.severity != "info"]


@pytest.mark.parametrize(("cast", "dtype", "pure"), [
    ("model = model.half()", "float16", True),
    ("model = model.to(torch.bfloat16)", "bfloat16", True),
    ("model = model.bfloat16()", "bfloat16", True),
    ("model.float()", "bfloat16", False),  # bf16 autocast over float32 weights: mixed precision
    ("model.to(dtype=torch.float32)", "bfloat16", False),
])
def test_a_trainer_s_model_cast_before_training_trains_in_its_weights_dtype(cast, dtype, pure) -> None:
    # Qwen2.5's config says bfloat16, transformers 5's default "auto" loads it so; the script's cast decides.
    text = textwrap.dedent(f"""
        import torch
        from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

        model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
        {cast}
        trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", bf16=True))
        trainer.train()
    """)
    (model,) = analyze_text(text, "train.py").models
    assert (model.plan["mode"], model.plan["dtype"], model.plan.get("pure_precision", False)) == ("train", dtype, pure)
    memory = estimate_memory(model, Settings(**{k: v for k, v in model.plan.items() if k in (
        "mode", "dtype", "pure_precision", "optimizer", "batch")}))
    assert (memory.line("master_weights") is None) is pure
    per_parameter = 2 + 2 + 4 if pure else 2 + 2 + 4 + 8  # weights, gradients, (master,) AdamW's states
    static = sum(memory.line(n).bytes for n in ("weights", "gradients", "master_weights", "optimizer_states")
                 if memory.line(n) is not None)
    assert static == per_parameter * model.tree.total


@pytest.mark.parametrize(("setup", "step", "dtype", "said"), [
    # the older device-specific autocast: float16 on CUDA, as torch's default there
    ("", "with torch.cuda.amp.autocast():\n        loss = model(x).sum()", "float16", "float16 mixed precision"),
    ("", "with torch.autocast('cuda'):\n        loss = model(x).sum()", "float16", "float16 mixed precision"),
    ("", "with torch.amp.autocast('cuda', dtype=torch.bfloat16):\n        loss = model(x).sum()", "bfloat16",
     "bfloat16 mixed precision"),
    # its dtype chosen by the script (nanoGPT's `ptdtype`), followed as any value
    ("ptdtype = {'bf16': torch.bfloat16, 'fp16': torch.float16}['bf16']",
     "with torch.autocast(device_type='cuda', dtype=ptdtype):\n        loss = model(x).sum()", "bfloat16",
     "bfloat16 mixed precision"),
    # turned off: float32 parameters without autocast, but a word of a precision in the file: not read
    ("", "with torch.autocast('cuda', enabled=False):\n        loss = model(x).sum()", None, "precision are not read"),
    # two dtypes: not one precision
    ("", "with torch.autocast('cuda'):\n        loss = model(x).sum()\n"
         "    with torch.autocast('cuda', dtype=torch.bfloat16):\n        loss = model(x).sum()", None,
     "precision are not read"),
    # Accelerate's and Fabric's mixed precision: autocast in that dtype
    ("accelerator = Accelerator(mixed_precision='bf16')\nmodel, optimizer = accelerator.prepare(model, optimizer)",
     "loss = model(x).sum()", "bfloat16", "bfloat16 mixed precision"),
    ("fabric = Fabric(precision='16-mixed')\nmodel, optimizer = fabric.setup(model, optimizer)",
     "loss = model(x).sum()", "float16", "float16 mixed precision"),
    # Fabric's "bf16-true" converts the parameters in setup: trained in bf16 throughout
    ("fabric = Fabric(precision='bf16-true')\nmodel, optimizer = fabric.setup(model, optimizer)",
     "loss = model(x).sum()", "bfloat16", "its parameters in bfloat16, trained in it"),
    # an Accelerator with no precision of its own: `accelerate launch`'s config may set one, not read
    ("accelerator = Accelerator()\nmodel, optimizer = accelerator.prepare(model, optimizer)",
     "loss = model(x).sum()", None, "precision are not read"),
    # FSDP's mixed precision policy, which the analysis does not read (the word, in any case)
    ("from torch.distributed.fsdp import MixedPrecision\npolicy = MixedPrecision()", "loss = model(x).sum()", None,
     "precision are not read"),
    # "32-true" and "no" given: float32 throughout, the word "precision" notwithstanding
    ("fabric = Fabric(precision='32-true')\nmodel, optimizer = fabric.setup(model, optimizer)",
     "loss = model(x).sum()", "float32", "in float32 throughout (the precision the code sets)"),
    ("accelerator = Accelerator(mixed_precision='no')\nmodel, optimizer = accelerator.prepare(model, optimizer)",
     "loss = model(x).sum()", "float32", "in float32 throughout (the precision the code sets)"),
    # Fabric's default, "32-true": float32 throughout
    ("fabric = Fabric(devices=2)\nmodel, optimizer = fabric.setup(model, optimizer)",
     "loss = model(x).sum()", "float32", "in float32 throughout"),
    # no autocast and no word of a precision: float32 throughout
    ("", "loss = model(x).sum()", "float32", "in float32 throughout"),
    # parameters cast to 16 bits: trained in them, no master copy
    ("model.half()", "loss = model(x).sum()", "float16", "its parameters in float16, trained in it"),
])
def test_a_loop_s_precision_is_read_where_the_code_says_it(setup, step, dtype, said) -> None:
    # (tests/parity/test_loop_precision_parity.py runs such loops with torch)
    report = analyze_text(textwrap.dedent(f"""
        import torch
        from torch import nn

        model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 64))
        optimizer = torch.optim.AdamW(model.parameters())
        x = torch.randn(2, 64)
    """) + "from accelerate import Accelerator\n" * ("Accelerator" in setup)
        + "from lightning.fabric import Fabric\n" * ("Fabric" in setup) + setup + "\nfor _ in range(2):\n    " + step + "\n    loss.backward()\n", "train.py", AnalyzeOptions())
    (model,) = report.models
    assert model.plan.get("dtype") == dtype, model.tree.notes
    assert model.plan.get("pure_precision", False) is ("trained in it" in said)
    assert said in " ".join(model.tree.notes)


LIGHTNING_FIT = """
import lightning as L
import torch
from torch import nn


class Lit(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 32), nn.Linear(32, 4))

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.trainer.model.parameters(), lr=1e-3)
        # a scheduler over the run's length, which the analysis does not know: the optimizer stays
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, self.trainer.estimated_stepping_batches)
        return {{"optimizer": optimizer, "lr_scheduler": scheduler}}


if __name__ == "__main__":
    model = Lit()
    trainer = L.Trainer({arguments})
    trainer.{run}(model)
"""


@pytest.mark.parametrize(("arguments", "run", "plan"), [
    ("max_epochs=3", "fit", {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32"}),  # "32-true"
    ("precision='bf16-mixed', devices=8", "fit", {"mode": "train", "optimizer": "adamw", "dtype": "bfloat16"}),
    ("precision='16-true'", "fit", {"mode": "train", "optimizer": "adamw", "dtype": "float16", "pure_precision": True}),
    ("precision='bf16-mixed'", "test", {}),  # tested, not trained
    ("precision='32-true', accumulate_grad_batches=4", "fit",
     {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32"}),
    # arguments the analysis does not know: the module is trained all the same, what they set not read
    ("strategy=L.fabric.utilities.choose()", "fit", {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32"}),
    ("devices=L.fabric.utilities.choose()", "fit", {"mode": "train", "optimizer": "adamw-fp32", "dtype": "float32"}),
    ("precision=L.fabric.utilities.choose()", "fit", {"mode": "train", "optimizer": "adamw"}),
])
def test_a_lightning_trainer_s_fit_trains_the_module_in_its_precision(arguments, run, plan) -> None:
    # (tests/parity/test_loop_precision_parity.py runs Lightning's own Trainer)
    report = analyze_text(LIGHTNING_FIT.format(arguments=arguments, run=run), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    assert model.plan == plan, model.tree.notes
    assert model.tree.total == 32 * 32 + 32 + 32 * 4 + 4
    assert not [p for p in report.problems if p.severity != "info"], report.problems


LOADER_LOOP = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 64))
optimizer = torch.optim.AdamW(model.parameters())
dataset = TensorDataset(torch.randn(256, 64))
{setup}
"""


@pytest.mark.parametrize(("setup", "batch"), [
    # the loader a loop that trains iterates: its batch_size (a variable's, torch.utils.data's own name)
    ("size = 2 * 16\nloader = torch.utils.data.DataLoader(dataset, size, shuffle=True)\n"
     "for (x,) in loader:\n    model(x).sum().backward()\n    optimizer.step()", 32),
    # torch's default batch_size
    ("for (x,) in DataLoader(dataset):\n    model(x).sum().backward()", 1),
    # a subclass of DataLoader, with the length the loop asks before it (not known: said, not guessed)
    ("class Loader(DataLoader):\n    pass\nloader = Loader(dataset, batch_size=8)\nsteps = len(loader)\n"
     "for (x,) in loader:\n    model(x).sum().backward()", 8),
    # a loop whose body takes no step (an evaluation): not the training batch
    ("with torch.no_grad():\n    for (x,) in DataLoader(dataset, batch_size=128):\n        model(x)", None),
    # a loader built and never iterated
    ("loader = DataLoader(dataset, batch_size=8)", None),
    # a batch_size the analysis does not know
    ("import os\nloader = DataLoader(dataset, batch_size=int(os.environ['BATCH']))\n"
     "for (x,) in loader:\n    model(x).sum().backward()", None),
])
def test_a_loop_s_batch_is_its_dataloader_s(setup, batch) -> None:
    # (tests/parity/test_loop_batch_parity.py runs such loops with torch)
    report = analyze_text(LOADER_LOOP.format(setup=setup), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    assert model.plan.get("mode") == "train", notes
    assert model.plan.get("batch") == batch, notes
    assert (f"in batches of {batch} (its DataLoader's batch_size)" in notes) is (batch is not None)
    assert ("--batch" in notes) is (batch is None)
    assert not [p for p in report.problems if p.severity == "error"], report.problems


def test_a_dataloader_refuses_a_batch_sampler_with_a_batch_size_as_torch_does() -> None:
    report = analyze_text(LOADER_LOOP.format(setup="loader = DataLoader(dataset, batch_size=4, batch_sampler=[[0, 1]])"
                                             "\nfor (x,) in loader:\n    model(x).sum().backward()"),
                          "train.py", AnalyzeOptions())
    said = " ".join(p.message for p in report.problems)
    assert "batch_sampler option is mutually exclusive with batch_size" in said, report.problems


@pytest.mark.parametrize(("call", "batch"), [
    ("trainer.fit(model, DataLoader(dataset, batch_size=4))", 4),
    ("trainer.fit(model, train_dataloaders=[DataLoader(dataset, batch_size=6), DataLoader(dataset, batch_size=6)])", 6),
    ("trainer.fit(model, {'a': DataLoader(dataset, batch_size=6), 'b': DataLoader(dataset, batch_size=2)})", None),
    ("trainer.fit(model, datamodule=Data())", 16),
    ("trainer.fit(model, Data())", 16),  # a datamodule given as the train_dataloaders, as Lightning takes it
    ("trainer.fit(model)", None),  # no loader: the module defines none
    # loaders or a datamodule the analysis does not know: trained all the same, the batch not read
    ("trainer.fit(model, make_loader())", None),
    ("trainer.fit(model, datamodule=make_loader())", None),
])
def test_a_lightning_fit_s_batch_is_its_training_dataloader_s(call, batch) -> None:
    text = LIGHTNING_FIT.format(arguments="", run="fit").replace(
        "    trainer.fit(model)\n", f"    {call}\n").replace(
        "from torch import nn\n", "from torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\n"
        "from data_helpers import make_loader\n"
        "dataset = TensorDataset(torch.randn(64, 32))\n\n\nclass Data(L.LightningDataModule):\n"
        "    def train_dataloader(self):\n        return DataLoader(dataset, batch_size=16)\n")
    report = analyze_text(text, "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    assert model.plan.get("batch") == batch, model.tree.notes
    assert model.plan.get("mode") == "train"


@pytest.mark.parametrize(("wrap", "zero", "said"), [
    ("model = FSDP(model, cpu_offload=CPUOffload(offload_params=True))", 3,
     "FSDP (FULL_SHARD, its default): sharded as ZeRO-3 over the data-parallel GPUs (--gpus sets how many) "
     "(its CPU offload not modelled)"),
    ("model = FSDP(model, cpu_offload=CPUOffload(offload_params=False))", 3, "ZeRO-3 over the data-parallel GPUs"),
    ("from fsdp_helpers import choose_strategy\nmodel = FSDP(model, sharding_strategy=choose_strategy())", None,
     "FSDP with a sharding strategy the analysis does not know, whose sharding is not read (--zero sets its stage)"),
    ("fully_shard(model.layers[0])\nfully_shard(model, reshard_after_forward=False)", 2,
     "FSDP2's `fully_shard`: sharded as ZeRO-2"),
    ("model = torch.nn.parallel.DistributedDataParallel(model)", None, ""),  # DDP: nothing sharded, nothing said
])
def test_a_loop_s_fsdp_shards_its_memory(wrap, zero, said) -> None:
    # (tests/parity/test_fsdp_sharding_parity.py runs FSDP on two CPU processes)
    report = analyze_text(textwrap.dedent("""
        import os
        import torch
        from torch import nn
        from torch.distributed.fsdp import CPUOffload, FullyShardedDataParallel as FSDP, ShardingStrategy, fully_shard

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(64, 64), nn.Linear(64, 64)])

        strategies = {"full": ShardingStrategy.FULL_SHARD}
        model = Net()
    """) + wrap + "\noptimizer = torch.optim.AdamW(model.parameters())\n", "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    assert model.plan.get("mode") == "train", notes
    assert model.plan.get("zero") == zero, notes
    assert said in notes
    assert "gpus" not in model.plan  # (the world size is the launcher's)


DEEPSPEED_SCRIPT = """
import argparse

import deepspeed
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    model = Net()
    trainset = torch.utils.data.TensorDataset(torch.randn(64, 64), torch.randint(0, 10, (64,)))
    {setup}
    for x, y in loader:
        loss = nn.functional.cross_entropy(engine(x), y)
        engine.backward(loss)
        engine.step()


if __name__ == "__main__":
    main()
"""

_DS_CONFIG = ('{"train_micro_batch_size_per_gpu": 16, "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}}, '
              '"bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}')


@pytest.mark.parametrize(("setup", "files", "plan", "said"), [
    # a config dict: its optimizer, ZeRO stage, precision and micro batch (the loader it makes of the data)
    (f"engine, optimizer, loader, _ = deepspeed.initialize(args=args, model=model, "
     f"model_parameters=model.parameters(), training_data=trainset, config={_DS_CONFIG})", {},
     {"optimizer": "adamw", "zero": 2, "dtype": "bfloat16", "batch": 16},
     ["DeepSpeed makes its config's optimizer `AdamW` over its parameters", "in batches of 16",
      "in bfloat16 mixed precision", "DeepSpeed's config: sharded as ZeRO-2 over the data-parallel GPUs"]),
    # a JSON file beside the script, given as config_params, with Lion (one state), fp16 and an offload;
    # the script's own loader, without model_parameters (the model's parameters)
    ("engine, _, _, _ = deepspeed.initialize(model=model, config_params='ds.json')\n"
     "    loader = torch.utils.data.DataLoader(trainset, batch_size=4)",
     {"ds.json": '{"train_batch_size": 64, "fp16": {"enabled": true}, "optimizer": {"type": "Lion"},\n'
                 ' "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}}'},
     {"optimizer": "sgd-momentum", "zero": 3, "dtype": "float16", "batch": 4},
     ["optimizer `Lion`", "sharded as ZeRO-3", "(its CPU offload not modelled)"]),
    # torch.optim's optimizer by its name, with its options (SGD's momentum: one state); ZeRO off, float32
    ("engine, optimizer, loader, _ = deepspeed.initialize(model=model, training_data=trainset, config={"
     "'train_micro_batch_size_per_gpu': 8, 'optimizer': {'type': 'SGD', 'params': {'lr': 0.1, 'momentum': 0.9}}})",
     {}, {"optimizer": "sgd-momentum", "dtype": "float32", "batch": 8},
     ["the whole model on each device", "in float32 throughout"]),
    # the script's own optimizer wins over the config's, as DeepSpeed takes it
    ("opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
     f"    engine, optimizer, loader, _ = deepspeed.initialize(model=model, optimizer=opt, training_data=trainset, "
     f"config={_DS_CONFIG})", {},
     {"optimizer": "sgd", "zero": 2, "dtype": "bfloat16", "batch": 16}, ["the script builds `torch.optim.SGD`"]),
    # the --deepspeed_config of the command line, not known: trained all the same, what it sets said not read
    ("engine, optimizer, loader, _ = deepspeed.initialize(args=args, model=model, training_data=trainset)", {},
     {}, ["DeepSpeed makes the optimizer its config names (the config is not read)",
          "none is given (DeepSpeed requires one: --deepspeed_config names it on the command line)",
          "whose sharding is not read (--zero sets its stage)", "AdamW's are assumed",
          "--batch, --context and --dtype set them"]),
    # a config file that is missing or does not parse: said with the reason (the line and column)
    ("engine, optimizer, loader, _ = deepspeed.initialize(model=model, training_data=trainset, config='gone.json')",
     {}, {}, ["the JSON file `gone.json`: no such file beside the script or in the project"]),
    ("engine, optimizer, loader, _ = deepspeed.initialize(model=model, training_data=trainset, config='ds.json')",
     {"ds.json": '{"zero_optimization": {"stage": 3}\n "fp16": 1}'}, {},
     ["`ds.json` is not JSON (Expecting ',' delimiter at 2:2)"]),
    ("engine, optimizer, loader, _ = deepspeed.initialize(model=model, training_data=trainset, config='ds.json')",
     {"ds.json": " " * (2 * 2**20) + "{}"}, {}, ["`ds.json` is over 2 MiB, which the analyser does not read"]),
    # a stage DeepSpeed's config model refuses: not guessed
    ("engine, optimizer, loader, _ = deepspeed.initialize(model=model, training_data=trainset, config={"
     "'train_micro_batch_size_per_gpu': 2, 'zero_optimization': {'stage': 7}, 'optimizer': {'type': 'Adam'}})", {},
     {"optimizer": "adamw-fp32", "dtype": "float32", "batch": 2},
     ["its zero_optimization.stage is not one of 0-3, which DeepSpeed refuses), whose sharding is not read"]),
])
def test_a_deepspeed_engine_trains_its_model_as_its_config_says(tmp_path, setup, files, plan, said) -> None:
    # (tests/parity/test_deepspeed_config_parity.py reads the same configs with DeepSpeed's DeepSpeedConfig)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "train.py"
    path.write_text(DEEPSPEED_SCRIPT.replace("{setup}", setup))
    report = analyze_text(path.read_text(), str(path), AnalyzeOptions())
    assert [m.name for m in report.models] == ["Net", "model in main()"], report.problems
    model = report.models[1]
    notes = " ".join(model.tree.notes)
    assert model.plan.get("mode") == "train", notes
    for key in ("optimizer", "zero", "dtype", "batch"):
        assert model.plan.get(key) == plan.get(key, "adamw" if key == "optimizer" and plan else None), (key, notes)
    for words in said:
        assert words in notes
    assert "the same module is also named `engine in main()`" in notes  # (the engine holds the model: one model)
    assert not [p for p in report.problems if p.severity == "error"], report.problems


def test_a_loop_whose_batch_length_and_precision_are_all_read_says_nothing_is_left_unread() -> None:
    report = analyze_text(textwrap.dedent("""
        import deepspeed
        import torch
        from torch import nn
        from dataclasses import dataclass

        @dataclass
        class Config:
            block_size: int = 256

        class LM(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.config = config
                self.wte = nn.Embedding(100, 32)

        model = LM(Config())
        engine, _, loader, _ = deepspeed.initialize(model=model, training_data=[0], config={
            "train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": True}, "optimizer": {"type": "AdamW"}})
        for x in loader:
            engine.backward(engine(x))
    """), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    assert {k: model.plan.get(k) for k in ("batch", "context", "dtype")} == {
        "batch": 2, "context": 256, "dtype": "bfloat16"}, notes
    assert "not read" not in notes and "the loop's" not in notes, notes


def test_gpt2_s_conv1d_weights_are_linear_layers_stored_transposed() -> None:
    # transformers' Conv1D keeps its weight in × out; peft and bitsandbytes adapt it as a linear layer. A
    # model of the code's own around GPT-2 (no config of its own: the rule for any Python model) can be
    # LoRA-tuned, and its projections' inputs and outputs are the activations' linears.
    source = textwrap.dedent("""
        import torch.nn as nn
        from transformers import GPT2Config, GPT2Model


        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = GPT2Model(GPT2Config(n_embd=16, n_layer=2, n_head=2, vocab_size=50, n_positions=32))
                self.tags = nn.Linear(16, 5)


        model = Tagger()
    """)
    model = next(m for m in analyze_text(source, "tagger.py", AnalyzeOptions()).models if m.name == "model")
    assert model.spec is None
    projections = {(t.name, t.shape, t.kind) for path, t, _m, _f in model.tree.root.iter_tensors()
                   if path.rsplit(".", 1)[-1] in ("c_attn", "c_fc")}
    assert projections == {("weight", (48, 16), "linear"), ("bias", (48,), "bias"),
                           ("weight", (64, 16), "linear"), ("bias", (64,), "bias")}
    lines = _lines(model, Settings(mode="lora", lora_rank=4, context=32, batch=2))
    # one layer's linears (c_attn 16 → 48, attention c_proj 16 → 16, c_fc 16 → 64, mlp c_proj 64 → 16)
    assert lines["adapters"] == 4 * 2 * (4 * (16 + 48) + 4 * (16 + 16) + 4 * (16 + 64) + 4 * (64 + 16)) + 4 * (16 + 5) * 4


def test_a_python_model_s_notes_say_what_its_code_does_not() -> None:
    # A model defined in Python has no config.json: its notes say the code sets no dtype, and why
    # no KV cache is included, not "no torch_dtype in the config" or "the unknown layout".
    path = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"
    gpt = next(m for m in analyze_text(path.read_text(), str(path)).models if m.name == "GPT")
    notes = estimate_memory(gpt, Settings(mode="inference", context=1024)).notes
    assert "the code sets no dtype: assuming bfloat16 (--dtype, or a budget's dtype, chooses another)" in notes
    assert any(n.startswith("KV cache not included: a model defined in Python") for n in notes)
    assert not any("unknown layout" in n or "torch_dtype" in n for n in notes)
