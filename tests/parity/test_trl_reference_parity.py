"""Parity for TRL's reference model: a tiny Llama checkpoint (and a word-level tokenizer) is saved,
and trl's DPO, KTO, GRPO and RLOO trainers are built on it in a child process, each way a script sets
them up; the bytes of the reference model each holds (none beside peft's adapters, with the
reference log-probabilities computed beforehand, or GRPO's default beta of 0) are the memory's
``reference_model`` line for the same script, analysed. So are those of a ``ref_model`` the script
loads itself (of the same model, or of a larger one, a second checkpoint) and of a distillation
trainer's teacher (the larger checkpoint, by its id or loaded by the script)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_path
from lsp_count.core.memory import estimate_memory, settings_from_mapping

pytestmark = pytest.mark.parity

pytest.importorskip("trl")
pytest.importorskip("datasets")

# (trainer, its config, the config's arguments, the trainer's other arguments, what the script does
# before; CHECKPOINT and LARGER stand for the two checkpoints' directories)
CASES = {
    "DPO": ("DPOTrainer", "DPOConfig", "", ""),
    "DPO ref_model": ("DPOTrainer", "DPOConfig", "", "ref_model=ref",
                      "ref = AutoModelForCausalLM.from_pretrained(CHECKPOINT, dtype=torch.bfloat16)"),
    "DPO larger ref_model": ("DPOTrainer", "DPOConfig", "", "ref_model=ref",
                             "ref = AutoModelForCausalLM.from_pretrained(LARGER, dtype=torch.float16)"),
    "DPO create_reference_model": ("DPOTrainer", "DPOConfig", "", "model=model, ref_model=create_reference_model(model)",
                                   "model = AutoModelForCausalLM.from_pretrained(CHECKPOINT, dtype=torch.bfloat16)"),
    "Distillation": ("DistillationTrainer", "DistillationConfig", "", "teacher_model=LARGER"),
    "Distillation float32": ("DistillationTrainer", "DistillationConfig",
                             'teacher_model_init_kwargs={"dtype": "float32"}', "teacher_model=LARGER"),
    "Distillation loaded": ("DistillationTrainer", "DistillationConfig", "", "teacher_model=teacher",
                            "teacher = AutoModelForCausalLM.from_pretrained(LARGER)"),
    "GKD": ("GKDTrainer", "GKDConfig", "", "teacher_model=LARGER, processing_class=AutoTokenizer.from_pretrained(CHECKPOINT)"),
    "GKD float16": ("GKDTrainer", "GKDConfig", 'teacher_model_init_kwargs={"dtype": "float16"}',
                    "teacher_model=LARGER, processing_class=AutoTokenizer.from_pretrained(CHECKPOINT)"),
    "DPO bf16": ("DPOTrainer", "DPOConfig", 'model_init_kwargs={"dtype": "bfloat16"}', ""),
    "DPO precomputed": ("DPOTrainer", "DPOConfig", "precompute_ref_log_probs=True", ""),
    "DPO peft": ("DPOTrainer", "DPOConfig", "", 'peft_config=LoraConfig(r=4, target_modules=["q_proj", "v_proj"])'),
    "KTO": ("KTOTrainer", "KTOConfig", "", ""),
    "GRPO": ("GRPOTrainer", "GRPOConfig", "", "reward_funcs=reward"),
    "GRPO beta": ("GRPOTrainer", "GRPOConfig", "beta=0.1", "reward_funcs=reward"),
    "RLOO": ("RLOOTrainer", "RLOOConfig", "", "reward_funcs=reward"),
}

_DATA = {"DPOTrainer": '{"prompt": ["hello a"], "chosen": [" b"], "rejected": [" c"]}',
         "KTOTrainer": '{"prompt": ["hello a", "a"], "completion": [" b", " c"], "label": [True, False]}',
         "GRPOTrainer": '{"prompt": ["hello a"]}', "RLOOTrainer": '{"prompt": ["hello a"]}',
         "DistillationTrainer": '{"prompt": ["hello a"], "completion": [" b"]}',
         "GKDTrainer": '{"messages": [[{"role": "user", "content": "hello a"}, {"role": "assistant", "content": "b"}]]}'}
# trl.experimental's trainers, imported from their own packages
_PACKAGE = {"GKDTrainer": "trl.experimental.gkd"}


def _script(checkpoint: str, case: str, real: bool) -> str:
    trainer, config, config_args, other, *before = CASES[case]
    output = f"output_dir={checkpoint + '/out'!r}" + (", use_cpu=True, report_to=[]" if real else "")
    extra = "" if trainer in ("DPOTrainer", "KTOTrainer", "GKDTrainer") else \
        ", per_device_train_batch_size=2, max_completion_length=4" if trainer == "DistillationTrainer" else \
        ", per_device_train_batch_size=2, num_generations=2, max_completion_length=4"
    model = "" if other.startswith("model=") else f"model={checkpoint!r}, "  # (or the script's own, in `other`)
    text = textwrap.dedent(f"""
        import torch
        from datasets import Dataset
        from peft import LoraConfig
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from {_PACKAGE.get(trainer, "trl")} import {trainer}, {config}
        from trl import create_reference_model

        def reward(completions, **kwargs):
            return [0.0 for _ in completions]

        dataset = Dataset.from_dict({_DATA[trainer]})
        {before[0] if before else ""}
        args = {config}({output}{extra}{", " + config_args if config_args else ""})
        trainer = {trainer}({model}args=args, train_dataset=dataset{", " + other if other else ""})
    """)
    return text.replace("CHECKPOINT", repr(checkpoint)).replace("LARGER", repr(checkpoint + "-larger"))


_REAL = textwrap.dedent("""
    import json, os, sys, warnings
    warnings.filterwarnings("ignore")
    os.environ["TRANSFORMERS_VERBOSITY"] = "error"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    import datasets, torch
    datasets.disable_progress_bars()
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    checkpoint, scripts = sys.argv[1], json.loads(sys.argv[2])
    vocab = {w: i for i, w in enumerate(["<unk>", "<eos>", "<pad>", "a", "b", "c", "hello"])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer_fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
                                             chat_template="{% for m in messages %}{{ m['content'] }}{% endfor %}")
    for where, hidden in ((checkpoint, 16), (checkpoint + "-larger", 32)):  # (a larger one: a teacher, another reference)
        tokenizer_fast.save_pretrained(where)
        config = LlamaConfig(vocab_size=16, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=2,
                             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32, dtype="bfloat16")
        torch.manual_seed(0)
        LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(where)
    out = {}
    for case, script in scripts.items():
        names = {}
        exec(compile(script, case, "exec"), names)
        ref = getattr(names["trainer"], "teacher_model", None) or getattr(names["trainer"], "ref_model", None)
        out[case] = None if ref is None else sum(p.numel() * p.element_size() for p in ref.parameters())
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def checkpoint_and_references(tmp_path_factory):
    checkpoint = str(tmp_path_factory.mktemp("tiny-llama"))
    scripts = {case: _script(checkpoint, case, real=True) for case in CASES}
    done = subprocess.run([sys.executable, "-c", _REAL, checkpoint, json.dumps(scripts)], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return checkpoint, json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", list(CASES))
def test_trl_s_reference_model_is_the_memory_s(checkpoint_and_references, tmp_path, case):
    checkpoint, references = checkpoint_and_references
    script = tmp_path / "train.py"
    script.write_text(_script(checkpoint, case, real=False))
    report = analyze_path(str(script))
    (model,) = [m for m in report.models if m.plan]  # the trained one (not a ref_model the script loads)
    memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
    line = memory.line("reference_model")
    assert (line.bytes if line is not None else None) == references[case]
    if case in ("DPO", "DPO bf16", "RLOO") or "ref" in case or "Distillation" in case or "GKD" in case:
        assert references[case]  # (the cases that hold one, held)


def test_trl_experimental_s_import_path_is_the_same_trainer(checkpoint_and_references, tmp_path):
    # `from trl.experimental.distillation import DistillationTrainer` (deprecated there, the same class)
    checkpoint, references = checkpoint_and_references
    script = tmp_path / "train.py"
    script.write_text(_script(checkpoint, "Distillation", real=False).replace(
        "from trl import", "from trl.experimental.distillation import"))
    (model,) = [m for m in analyze_path(str(script)).models if m.plan]
    memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
    assert memory.line("reference_model").bytes == references["Distillation"]
