"""Parity for the memory of a model trained by transformers' ``Trainer`` in the dtype it was loaded
in: a tiny Llama checkpoint is saved, loaded by a script with each way of naming a dtype, and
analysed; transformers then runs the same load and one real training step on the CPU (bf16 mixed
precision), in a child process. The analysis's weights, gradients and optimizer states are the
bytes the step's parameters and AdamW's states hold: a 16-bit load trains without an fp32 master
copy, its states in the parameters' dtype (pure precision); a float32 load is mixed precision."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_path
from lsp_count.core.memory import estimate_memory, settings_from_mapping

pytestmark = pytest.mark.parity

pytest.importorskip("transformers")
pytest.importorskip("accelerate")

# how the script loads it: (the dtype transformers loads, whether it trains in it throughout)
LOADS = {
    "dtype=torch.bfloat16": ("bfloat16", True),
    "torch_dtype=torch.float16": ("float16", True),
    'dtype="auto"': ("bfloat16", True),  # the checkpoint's config says bfloat16
    "": ("bfloat16", True),  # transformers 5's default is "auto"
    'dtype="bfloat16"': ("bfloat16", True),
    "dtype=torch.float32": ("float32", False),  # bf16 autocast over float32 weights: mixed precision
}

_REAL_STEP = textwrap.dedent("""
    import json, os, sys, warnings
    warnings.filterwarnings("ignore")
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments
    checkpoint, loads = sys.argv[1], json.loads(sys.argv[2])
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=1, max_position_embeddings=32, dtype="bfloat16")
    torch.manual_seed(0)
    LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(checkpoint)
    out = {}
    for load in loads:
        model = eval(f"AutoModelForCausalLM.from_pretrained(checkpoint, {load})")
        data = [{"input_ids": torch.arange(8), "labels": torch.arange(8)}]
        args = TrainingArguments(output_dir=checkpoint + "/out", per_device_train_batch_size=1, max_steps=1, bf16=True,
                                 report_to=[], use_cpu=True, save_strategy="no", disable_tqdm=True)
        trainer = Trainer(model=model, args=args, train_dataset=data)
        trainer.train()
        params = list(model.parameters())
        out[load] = {
            "dtypes": sorted({str(p.dtype).removeprefix("torch.") for p in params}),
            "weights": sum(p.numel() * p.element_size() for p in params),
            "states": sum(v.numel() * v.element_size() for s in trainer.optimizer.state.values() for v in s.values()
                          if torch.is_tensor(v) and v.dim() > 0),
        }
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def real_steps(tmp_path_factory):
    checkpoint = tmp_path_factory.mktemp("tiny-llama")
    done = subprocess.run([sys.executable, "-c", _REAL_STEP, str(checkpoint), json.dumps(list(LOADS))],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return checkpoint, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("load", list(LOADS), ids=lambda load: load or "no dtype")
def test_a_trainer_s_model_trains_in_the_dtype_it_was_loaded_in(real_steps, tmp_path, load):
    checkpoint, real = real_steps
    dtype, pure = LOADS[load]
    assert real[load]["dtypes"] == [dtype]  # (transformers loaded it so, and the step kept it so)
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        import torch
        from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

        model = AutoModelForCausalLM.from_pretrained({str(checkpoint)!r}, {load})
        args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, bf16=True)
        trainer = Trainer(model=model, args=args)
        trainer.train()
    """))
    report = analyze_path(str(script))
    (model,) = report.models
    # (mixed precision is estimated as 16-bit weights beside an fp32 master copy, at autocast's dtype)
    assert model.plan["mode"] == "train" and model.plan["dtype"] == (dtype if pure else "bfloat16")
    assert model.plan.get("pure_precision", False) is pure
    memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
    lines = {line.name: line.bytes for line in memory.lines}
    assert lines["optimizer_states"] == real[load]["states"]
    if pure:
        assert lines["weights"] == lines["gradients"] == real[load]["weights"]
        assert "master_weights" not in lines
    else:  # bf16 mixed precision: 16-bit weights and gradients beside the fp32 master copy, the same bytes in all
        assert lines["weights"] + lines["gradients"] + lines["master_weights"] == 2 * real[load]["weights"]
