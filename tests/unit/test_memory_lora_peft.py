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
    *(dict(model_type=t, architectures=[a], hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
           num_hidden_layers=2, intermediate_size=96, vocab_size=100, pad_token_id=0, bos_token_id=0, eos_token_id=0)
      for t, a in (("olmo", "OlmoForCausalLM"), ("olmo3", "Olmo3ForCausalLM"), ("smollm3", "SmolLM3ForCausalLM"),
                   ("glm4", "Glm4ForCausalLM"), ("arcee", "ArceeForCausalLM"), ("seed_oss", "SeedOssForCausalLM"),
                   ("cohere2", "Cohere2ForCausalLM"), ("exaone4", "Exaone4ForCausalLM"), ("helium", "HeliumForCausalLM"),
                   ("ernie4_5", "Ernie4_5ForCausalLM"), ("stablelm", "StableLmForCausalLM"), ("glm", "GlmForCausalLM"),
                   ("nemotron", "NemotronForCausalLM"))),
    dict(model_type="gpt_bigcode", architectures=["GPTBigCodeForCausalLM"], n_embd=64, n_head=4, n_layer=2, vocab_size=100),
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
    # (GPT-2's Conv1D projections too: peft's all-linear selects them)
    tree = analyze_text(json.dumps(config), "config.json").models[0].tree
    assert lora_adapter_params(tree, rank) == peft_count(config, rank, "all-linear")


@pytest.mark.parametrize("config", CASES, ids=lambda c: c["model_type"])
def test_named_targets_match_peft(config):
    tree = analyze_text(json.dumps(config), "config.json").models[0].tree
    names = {"phi3": ["qkv_proj", "down_proj"], "gpt2": ["c_attn"], "glm4": ["q_proj", "v_proj", "gate_up_proj"],
             "glm": ["q_proj", "v_proj", "gate_up_proj"], "gpt_bigcode": ["c_attn", "c_fc"],
             "nemotron": ["q_proj", "v_proj", "up_proj"]}.get(config["model_type"], ["q_proj", "v_proj", "down_proj"])
    assert lora_adapter_params(tree, 4, tuple(names)) == peft_count(config, 4, names)


MOE_CASES = [
    dict(model_type="mixtral", architectures=["MixtralForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48, vocab_size=100, num_local_experts=4,
         num_experts_per_tok=2),
    dict(model_type="qwen3_moe", architectures=["Qwen3MoeForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, head_dim=8, num_hidden_layers=2, intermediate_size=48, moe_intermediate_size=24,
         vocab_size=100, num_experts=4, num_experts_per_tok=2),
    dict(model_type="qwen2_moe", architectures=["Qwen2MoeForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48, moe_intermediate_size=24,
         shared_expert_intermediate_size=40, vocab_size=100, num_experts=4, num_experts_per_tok=2),
    dict(model_type="olmoe", architectures=["OlmoeForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48, vocab_size=100, num_experts=4,
         num_experts_per_tok=2, pad_token_id=0, bos_token_id=0, eos_token_id=0),
    dict(model_type="gpt_oss", architectures=["GptOssForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, head_dim=8, num_hidden_layers=2, intermediate_size=48, vocab_size=100,
         num_local_experts=4, num_experts_per_tok=2, pad_token_id=0, bos_token_id=0, eos_token_id=0),
    dict(model_type="glm4_moe", architectures=["Glm4MoeForCausalLM"], hidden_size=32, num_attention_heads=4,
         num_key_value_heads=2, num_hidden_layers=2, intermediate_size=48, moe_intermediate_size=24, vocab_size=100,
         n_routed_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1, first_k_dense_replace=1,
         pad_token_id=0, bos_token_id=0, eos_token_id=0),
]


@pytest.mark.parametrize("config", MOE_CASES, ids=lambda c: c["model_type"])
@pytest.mark.parametrize("rank", [4, 8])
def test_lora_mode_on_a_moe_model_plans_the_adapters_peft_makes(config, rank):
    # peft 0.22 on transformers 5 adapts Mixtral's, Qwen2-MoE's and Qwen3-MoE's fused experts and router under
    # all-linear (its v4 -> v5 conversion), GLM-4-MoE's and DeepSeek's beside their dense and shared-expert MLPs:
    # `--mode lora` on the config trains
    # exactly those adapters (the linear layers alone were 288 of Mixtral's 2,976 at hidden 8).
    from lsp_count.core.memory import Settings, estimate_memory

    model = analyze_text(json.dumps(config), "config.json").models[0]
    report = estimate_memory(model, Settings(mode="lora", lora_rank=rank, context=16, batch=1))
    assert report.line("adapters").bytes == 4 * peft_count(config, rank, "all-linear")
    assert report.line("gradients").bytes == report.line("adapters").bytes


@pytest.mark.parametrize("config", MOE_CASES, ids=lambda c: c["model_type"])
def test_lora_mode_on_a_python_file_s_moe_model_plans_the_adapters_peft_makes(config):
    # Its tree, from transformers' code, marks no fused experts: the plan is made on its config's
    # family spec (pymodel/config_spec.py), which counts the same parameters.
    from lsp_count.core.analyze import AnalyzeOptions
    from lsp_count.core.memory import Settings, estimate_memory
    from transformers import CONFIG_MAPPING

    config_class = type(CONFIG_MAPPING[config["model_type"]]()).__name__
    arguments = ", ".join(f"{k}={v!r}" for k, v in config.items() if k not in ("model_type", "architectures"))
    source = (f"from transformers import {config_class}, {config['architectures'][0]}\n"
              f"model = {config['architectures'][0]}({config_class}({arguments}))\n")
    model = analyze_text(source, "model.py", AnalyzeOptions()).models[0]
    assert model.spec is not None
    report = estimate_memory(model, Settings(mode="lora", lora_rank=4, context=16, batch=1))
    assert report.line("adapters").bytes == 4 * peft_count(config, 4, "all-linear")


MHA_MODEL = """
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(100, d)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(d, heads, 64, batch_first=True) for _ in range(layers)])
        self.head = nn.Linear(d, 10)
"""


def test_a_python_model_s_multihead_attention_keeps_its_packed_projection_out_of_all_linear():
    """peft's all-linear adapts nn.MultiheadAttention's out_proj (an nn.Linear), not its packed
    in_proj_weight (a parameter): the plan counted an adapter on it (12,960 where peft makes 8,864)."""
    tree = analyze_text(MHA_MODEL, "mha_model.py").models[0].tree
    for rank in (4, 16):
        assert lora_adapter_params(tree, rank) == _peft_on_source(MHA_MODEL, "Encoder", rank)


def _peft_on_source(source: str, name: str, rank: int) -> int:
    import torch
    from peft import LoraConfig, get_peft_model

    namespace: dict = {}
    exec(compile(source, "mha_model.py", "exec"), namespace)  # noqa: S102 - the test's own source
    with torch.device("meta"):
        model = namespace[name]()
    peft_model = get_peft_model(model, LoraConfig(r=rank, target_modules="all-linear"))
    return sum(p.numel() for n, p in peft_model.named_parameters() if "lora_" in n)
