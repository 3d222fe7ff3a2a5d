"""lora_adapter_params against peft on the meta device (dense families)."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import lora_adapter_params

pytestmark = pytest.mark.parity

CASES = [
    dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=64, num_attention_heads=8,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=96, vocab_size=100),
    dict(model_type="qwen3", architectures=["Qwen3ForCausalLM"], hidden_size=64, num_attention_heads=4,
         num_key_value_heads=2, head_dim=24, num_hidden_layers=2, intermediate_size=96, vocab_size=100),
    dict(model_type="phi3", architectures=["Phi3ForCausalLM"], hidden_size=64, num_attention_heads=4,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=96, vocab_size=100, pad_token_id=0),
    dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], n_embd=64, n_head=4, n_layer=2, vocab_size=100),
]


def peft_count(config: dict, rank: int, targets) -> int:
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model
    from transformers import CONFIG_MAPPING

    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(cfg)
    peft_model = get_peft_model(model, LoraConfig(r=rank, target_modules=targets))
    return sum(p.numel() for n, p in peft_model.named_parameters() if "lora_" in n)


@pytest.mark.parametrize("config", CASES, ids=lambda c: c["model_type"])
@pytest.mark.parametrize("rank", [4, 8])
def test_all_linear_matches_peft(config, rank):
    if config["model_type"] == "gpt2":
        pytest.skip("GPT-2 uses Conv1D, which peft's all-linear does not select")
    tree = analyze_text(json.dumps(config), "config.json").models[0].tree
    assert lora_adapter_params(tree, rank) == peft_count(config, rank, "all-linear")


@pytest.mark.parametrize("config", CASES, ids=lambda c: c["model_type"])
def test_named_targets_match_peft(config):
    tree = analyze_text(json.dumps(config), "config.json").models[0].tree
    names = {"phi3": ["qkv_proj", "down_proj"], "gpt2": ["c_attn"]}.get(config["model_type"], ["q_proj", "v_proj", "down_proj"])
    assert lora_adapter_params(tree, 4, tuple(names)) == peft_count(config, 4, names)
