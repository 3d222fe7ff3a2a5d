"""Parity for TRL's trainers (read as the analyser's own short version, shims/trl.py, as trl is not
read by default): a script hands its model, or a model id, to a trainer with a ``peft_config``; the
installed trl builds the same trainer on the CPU with a tiny Llama, a tokenizer made in memory and
a dataset of a few rows, and each model the script's ``main()`` leaves is counted by torch. A model
id is a local directory the test saves the tiny model to (nothing is downloaded)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.formats.common import optimizer_name
from .trainer_scripts import TINY, assert_counted_as_built

pytestmark = pytest.mark.parity

HEADER = '''import torch
from datasets import Dataset
from peft import LoraConfig
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, LlamaConfig, PreTrainedTokenizerFast
from trl import DPOConfig, DPOTrainer, RewardConfig, RewardTrainer, SFTConfig, SFTTrainer


def make_tokenizer():
    core = Tokenizer(WordLevel({"<pad>": 0, "<eos>": 1, "hello": 2, "world": 3}, unk_token="<pad>"))
    core.pre_tokenizer = Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<eos>")


'''

# Each case: main()'s body (OUT: the trainer's output directory; MODEL_DIR: the saved tiny model).
CASES = {
    "sft, a model and LoRA on all linear layers": f'''
tokenizer = make_tokenizer()
model = AutoModelForCausalLM.from_config({TINY})
args = SFTConfig(output_dir=OUT, report_to="none", use_cpu=True, max_steps=1)
trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_dict({{"text": ["hello world"] * 4}}),
                     processing_class=tokenizer,
                     peft_config=LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", task_type="CAUSAL_LM"))
''',
    "sft, positional arguments, LoRA on q and v with the head saved": f'''
tokenizer = make_tokenizer()
model = AutoModelForCausalLM.from_config({TINY})
trainer = SFTTrainer(model, SFTConfig(output_dir=OUT, report_to="none", use_cpu=True), None,
                     Dataset.from_dict({{"text": ["hello world"] * 4}}), None, tokenizer,
                     peft_config=LoraConfig(r=2, target_modules=["q_proj", "v_proj"], modules_to_save=["lm_head"]))
''',
    "sft, a model id: the trainer loads it": '''
args = SFTConfig(output_dir=OUT, report_to="none", use_cpu=True, model_init_kwargs={"dtype": "float32"})
trainer = SFTTrainer(model=MODEL_DIR, args=args, train_dataset=Dataset.from_dict({"text": ["hello world"] * 4}),
                     processing_class=make_tokenizer(), peft_config=LoraConfig(r=3, task_type="CAUSAL_LM"))
''',
    "reward, a model id: a classifier of one label": '''
args = RewardConfig(output_dir=OUT, report_to="none", use_cpu=True)
data = Dataset.from_dict({"chosen": ["hello world"] * 2, "rejected": ["world"] * 2})
trainer = RewardTrainer(model=MODEL_DIR, args=args, train_dataset=data, processing_class=make_tokenizer())
''',
    "dpo, a model and its reference, no adapter": f'''
tokenizer = make_tokenizer()
policy = AutoModelForCausalLM.from_config({TINY})
policy.model.embed_tokens.requires_grad_(False)
reference = AutoModelForCausalLM.from_config({TINY})
data = Dataset.from_dict({{"prompt": ["hello"] * 2, "chosen": [" world"] * 2, "rejected": [" hello"] * 2}})
trainer = DPOTrainer(policy, reference, DPOConfig(output_dir=OUT, report_to="none", use_cpu=True),
                     train_dataset=data, processing_class=tokenizer)
''',
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_trl_trainer_s_model_counts_as_the_installed_trl_builds_it(case, tmp_path) -> None:
    assert_counted_as_built(HEADER, CASES[case], tmp_path)


STEP_SCRIPT = '''from peft import LoraConfig
from transformers import AutoModelForCausalLM, LlamaConfig
from trl import DPOConfig, DPOTrainer, SFTConfig, SFTTrainer


def main():
    tuned = AutoModelForCausalLM.from_config({tiny})
    sft = SFTTrainer(model=tuned, args=SFTConfig(output_dir="out"{sft}))
    adapted = AutoModelForCausalLM.from_config({tiny})
    dpo = DPOTrainer(model=adapted, args=DPOConfig(output_dir="out"{dpo}), peft_config=LoraConfig(r=2))


if __name__ == "__main__":
    main()
'''

# What the installed trl's configs hold for what sizes a step: their defaults, or what the script set.
DEFAULTS = '''import json, sys, warnings
warnings.filterwarnings("ignore")
from trl import DPOConfig, SFTConfig
sft = SFTConfig(output_dir="out", use_cpu=True, **json.loads(sys.argv[1]))
dpo = DPOConfig(output_dir="out", use_cpu=True, **json.loads(sys.argv[2]))
print(json.dumps([[sft.per_device_train_batch_size, sft.max_length, sft.gradient_checkpointing, sft.bf16, sft.fp16,
                   str(getattr(sft.optim, "value", sft.optim))],
                  [dpo.per_device_train_batch_size, dpo.max_length, dpo.gradient_checkpointing]]))
'''


@pytest.mark.parametrize(("sft", "dpo"), [
    ({}, {}),
    ({"per_device_train_batch_size": 2, "max_length": 512, "gradient_checkpointing": False, "fp16": True,
      "optim": "adamw_8bit"},
     {"per_device_train_batch_size": 3, "max_length": 256}),
])
def test_a_trl_trainer_s_step_is_what_the_installed_trl_s_config_holds(sft, dpo, tmp_path) -> None:
    # The memory of a model a trainer trains is estimated for its config's step: the batch per device
    # (DPO's holds each example's chosen and rejected sequences: twice as many), the sequence length
    # and gradient checkpointing (on by default in trl 1.x); a model without adapters is fully
    # fine-tuned, one with them is LoRA.
    done = subprocess.run([sys.executable, "-c", DEFAULTS, json.dumps(sft), json.dumps(dpo)], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    (batch, length, checkpointing, bf16, fp16, optim), (dpo_batch, dpo_length, dpo_checkpointing) = json.loads(
        done.stdout.strip().splitlines()[-1])

    def written(values: dict) -> str:
        return "".join(f", {k}={v!r}" for k, v in values.items())

    text = STEP_SCRIPT.format(tiny=TINY, sft=written(sft), dpo=written(dpo))
    plans = {m.name: m.plan for m in analyze_text(text, str(tmp_path / "train.py")).models}
    dtype = "bfloat16" if bf16 else "float16" if fp16 else "float32"
    optimizer = optimizer_name(optim)
    assert plans["tuned in main()"] == {"mode": "train", "batch": batch, "context": length, "dtype": dtype,
                                        "optimizer": "adamw-fp32" if dtype == "float32" and optimizer == "adamw"
                                        else optimizer,
                                        **({"gradient_checkpointing": True} if checkpointing else {})}
    assert plans["adapted in main()"] == {"mode": "lora", "lora_rank": 2, "batch": 2 * dpo_batch, "context": dpo_length,
                                          **({"gradient_checkpointing": True} if dpo_checkpointing else {})}
