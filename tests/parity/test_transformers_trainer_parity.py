"""Parity for transformers' ``Trainer`` (read as the analyser's own short version,
shims/transformers_trainer.py, and ``TrainingArguments`` with its ``__post_init__`` replaced): a
script hands its model, or a ``model_init``, to a trainer; the installed transformers builds the same
trainer on the CPU with a tiny Llama, and each model the script's ``main()`` leaves is counted by
torch. Then the step the plan takes from ``TrainingArguments`` against the installed
transformers' own values, defaults and given ones."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.formats.common import optimizer_name
from .trainer_scripts import TINY, assert_counted_as_built, script

pytestmark = pytest.mark.parity

HEADER = '''import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, LlamaConfig, Trainer, TrainingArguments


class LoggingTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        return super().compute_loss(model, inputs, return_outputs=return_outputs, **kwargs)


def build():
    return AutoModelForCausalLM.from_config(''' + TINY + ''')


'''

ARGS = 'TrainingArguments(output_dir=OUT, report_to="none", use_cpu=True)'
CASES = {
    "a model": f'''
model = build()
trainer = Trainer(model=model, args={ARGS})
''',
    "model_init: the trainer builds the model": f'''
trainer = Trainer(args={ARGS}, model_init=build)
''',
    "a peft model, part frozen": f'''
model = get_peft_model(build(), LoraConfig(r=2, target_modules=["q_proj", "v_proj"]))
trainer = Trainer(model=model, args={ARGS})
''',
    "a subclass of Trainer, no args": '''
model = build()
model.model.embed_tokens.requires_grad_(False)
trainer = LoggingTrainer(model)
''',
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_trainer_s_model_counts_as_the_installed_transformers_builds_it(case, tmp_path) -> None:
    assert_counted_as_built(HEADER, CASES[case], tmp_path)


def test_a_trainer_without_a_model_raises_as_transformers_does(tmp_path) -> None:
    # (A name the failed statement assigns is not known, for the trainer's reason.)
    text = script(HEADER, f"trainer = Trainer(args={ARGS})\nhead = torch.nn.Linear(trainer.args.per_device_train_batch_size, 2)",
                  str(tmp_path / "out"), "")
    report = analyze_text(text, str(tmp_path / "train.py"))
    assert not report.models
    messages = [p.message for p in report.problems if p.code == "LC101"]
    assert messages and "`Trainer` requires either a `model` or `model_init` argument" in messages[0]


STEP_SCRIPT = '''from transformers import AutoModelForCausalLM, LlamaConfig, Trainer, TrainingArguments


def main():
    model = AutoModelForCausalLM.from_config({tiny})
    trainer = Trainer(model=model, args=TrainingArguments(output_dir="out"{given}))


if __name__ == "__main__":
    main()
'''

# What the installed transformers' TrainingArguments hold for what sizes a step, and the tiny
# model's positions (the longest sequence it takes, which a script that sets none is estimated at).
VALUES = '''import json, sys, warnings
warnings.filterwarnings("ignore")
from transformers import LlamaConfig, TrainingArguments
args = TrainingArguments(output_dir="out", use_cpu=True, **json.loads(sys.argv[1]))
print(json.dumps([args.per_device_train_batch_size, bool(args.gradient_checkpointing), args.bf16, args.fp16,
                  str(getattr(args.optim, "value", args.optim)), args.optim_args, LlamaConfig().max_position_embeddings]))
'''


@pytest.mark.parametrize("given", [
    {},
    {"per_device_train_batch_size": 2, "gradient_checkpointing": True, "bf16": True},
    {"per_device_train_batch_size": 4, "fp16": False, "optim": "adamw_bnb_8bit"},
    {"optim": "sgd", "fp16": True},
    {"optim": "sgd", "optim_args": "momentum=0.9", "bf16": True},  # transformers' SGD with a momentum buffer
])
def test_a_trainer_s_step_is_what_the_installed_transformers_arguments_hold(given, tmp_path) -> None:
    # A model the trainer trains without adapters is fully fine-tuned: the batch per device,
    # checkpointing, the optimizer its `optim` names and the precision (float32 where neither bf16
    # nor fp16 is set, as transformers trains then), at the model's longest sequence.
    done = subprocess.run([sys.executable, "-c", VALUES, json.dumps(given)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    batch, checkpointing, bf16, fp16, optim, optim_args, positions = json.loads(done.stdout.strip().splitlines()[-1])
    dtype = "bfloat16" if bf16 else "float16" if fp16 else "float32"
    optimizer = optimizer_name(optim, optim_args)  # (against what its trainer builds: test_optimizer_states_parity.py)
    if dtype == "float32" and optimizer == "adamw":
        optimizer = "adamw-fp32"
    text = STEP_SCRIPT.format(tiny=TINY, given="".join(f", {k}={v!r}" for k, v in given.items()))
    plans = {m.name: m.plan for m in analyze_text(text, str(tmp_path / "train.py")).models}
    assert plans["model in main()"] == {"mode": "train", "batch": batch, "context": min(positions, 4096),
                                        "dtype": dtype, "optimizer": optimizer,
                                        **({"gradient_checkpointing": True} if checkpointing else {})}


def test_a_trainer_where_transformers_is_not_read_takes_the_same_step(tmp_path) -> None:
    # `read-packages` without transformers: Trainer and TrainingArguments are the shim's own
    # (transformers' defaults where the script sets none), a subclass of Trainer too.
    text = '''import torch
from transformers import Trainer, TrainingArguments


class MyTrainer(Trainer):
    pass


def main():
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Linear(64, 2))
    trainer = MyTrainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=4, fp16=True))
    trainer.train()
    other = torch.nn.Linear(8, 8)
    Trainer(other)


if __name__ == "__main__":
    main()
'''
    report = analyze_text(text, str(tmp_path / "train.py"), AnalyzeOptions(read_packages=()))
    plans = {m.name: m.plan for m in report.models}
    assert plans == {"model in main()": {"mode": "train", "batch": 4, "dtype": "float16", "optimizer": "adamw"},
                     "other in main()": {"mode": "train", "batch": 8, "dtype": "float32", "optimizer": "adamw-fp32"}}
    assert not [p for p in report.problems if p.severity != "info"]
