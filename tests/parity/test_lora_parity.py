"""Training-YAML LoRA counts against peft on the meta device.

Each case writes a small random base config to a local directory, names it
from an axolotl / LLaMA-Factory YAML, and compares lsp-count's total
(base + adapters) and trainable (adapters) with
``get_peft_model(model, LoraConfig(r=..., target_modules=...))``.
"""

from __future__ import annotations

import json
import logging
import random
import warnings

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

pytestmark = pytest.mark.parity


def peft_counts(config: dict, rank: int, targets, use_dora: bool = False) -> tuple[int, int]:
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(cfg)
        peft_model = get_peft_model(model, LoraConfig(r=rank, target_modules=targets, use_dora=use_dora))
    params = list(peft_model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


def random_config(rng: random.Random, model_type: str) -> dict:
    kv = rng.choice([1, 2, 4])
    heads = kv * rng.choice([1, 2])
    head_dim = rng.choice([8, 16])
    cfg = dict(model_type=model_type, hidden_size=heads * head_dim, num_attention_heads=heads,
               num_key_value_heads=kv, num_hidden_layers=rng.randint(1, 3), intermediate_size=rng.choice([24, 40, 96]),
               vocab_size=rng.randint(50, 300), tie_word_embeddings=rng.choice([True, False]))
    cfg["architectures"] = [{"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM",
                             "mistral": "MistralForCausalLM", "qwen3": "Qwen3ForCausalLM"}[model_type]]
    if model_type == "qwen3":
        cfg["head_dim"] = rng.choice([8, 12])
    return cfg


def analyze_yaml(tmp_path, config: dict, yaml_text: str):
    (tmp_path / "base").mkdir(exist_ok=True)
    (tmp_path / "base" / "config.json").write_text(json.dumps(config))
    report = analyze_text(yaml_text, str(tmp_path / "train.yaml"),
                          AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
    assert not report.has_errors, report.problems
    (model,) = report.models
    return model


SEEDS = range(8)
FAMILIES = ["llama", "qwen2", "mistral", "qwen3"]


@pytest.mark.parametrize("seed", SEEDS)
def test_axolotl_named_targets_match_peft(tmp_path, seed):
    rng = random.Random(seed)
    config = random_config(rng, FAMILIES[seed % len(FAMILIES)])
    rank = rng.choice([1, 2, 4, 8])
    targets = rng.sample(["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"], rng.randint(1, 7))
    listed = "\n".join(f"  - {t}" for t in targets)
    model = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: {rank}\n"
                                           f"lora_target_modules:\n{listed}\nsequence_len: 512\n")
    total, trainable = peft_counts(config, rank, targets)
    assert (model.tree.total, model.tree.trainable) == (total, trainable)


@pytest.mark.parametrize("seed", SEEDS)
def test_all_linear_matches_peft(tmp_path, seed):
    rng = random.Random(100 + seed)
    config = random_config(rng, FAMILIES[seed % len(FAMILIES)])
    rank = rng.choice([2, 4, 8])
    if seed % 2:
        text = f"base_model: ./base\nadapter: qlora\nload_in_4bit: true\nlora_r: {rank}\nlora_target_linear: true\n"
    else:
        text = f"model_name_or_path: ./base\nfinetuning_type: lora\nlora_rank: {rank}\nlora_target: all\n"
    model = analyze_yaml(tmp_path, config, text)
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, rank, "all-linear")


@pytest.mark.parametrize("seed", range(4))
def test_regex_targets_match_peft(tmp_path, seed):
    rng = random.Random(200 + seed)
    config = random_config(rng, FAMILIES[seed % len(FAMILIES)])
    config["num_hidden_layers"] = 3
    pattern = [r"model\.layers\.[0-9]+\.self_attn\.(q|v)_proj", r"model\.layers\.[01]\.mlp\.(gate|up)_proj",
               r".*\.(k|o)_proj", r"model\.layers\.2\..*_proj"][seed]
    model = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 4\n"
                                           f"lora_target_modules: '{pattern}'\n")
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 4, pattern)


def test_dora_matches_peft(tmp_path):
    config = random_config(random.Random(7), "llama")
    model = analyze_yaml(tmp_path, config, "base_model: ./base\nadapter: lora\nlora_r: 4\npeft_use_dora: true\n"
                                           "lora_target_modules: [q_proj, v_proj]\n")
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 4, ["q_proj", "v_proj"], use_dora=True)


def test_lm_head_target_matches_peft(tmp_path):
    config = random_config(random.Random(3), "llama")
    config["tie_word_embeddings"] = False
    model = analyze_yaml(tmp_path, config, "base_model: ./base\nadapter: lora\nlora_r: 4\n"
                                           "lora_target_modules: [q_proj, lm_head]\n")
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 4, ["q_proj", "lm_head"])


def test_llama3_8b_qlora_example_matches_peft():
    """The bundled example: Llama-3-8B (catalog config), r=32, every linear layer."""
    from pathlib import Path

    from lsp_count.core.analyze import analyze_path
    from lsp_count.core.catalog import CATALOG_DIR

    example = Path(__file__).resolve().parents[2] / "examples" / "axolotl-qlora-llama3-8b.yaml"
    (model,) = analyze_path(str(example)).models
    config = json.loads((CATALOG_DIR / "meta-llama" / "Meta-Llama-3-8B.json").read_text())
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 32, "all-linear")
    assert model.tree.total - model.tree.trainable == 8_030_261_248
