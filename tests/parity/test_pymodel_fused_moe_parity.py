"""Parity of the active parameters of transformers 5's mixture-of-experts models, as a Python file
on the installed transformers builds them: their experts are fused (one module whose tensors stack
every expert on the first dimension, ``gate_up_proj`` of experts × 2·intermediate × hidden) and
their top-k is kept on the block (Mixtral), the router (Qwen3-MoE, DeepSeek-V3, GPT-OSS) or the
router's config. The analyser counts a small model of each family from the file; torch builds the
same model with random weights, runs one token forward and backward, and the expert slices whose
gradient is not all zero are the experts the token ran: the active count is every parameter but
the other slices. The file is run here, in the test; the analyser only reads it. Where lsp-count
has the family as a config.json family, the same sizes written as a config.json count the same."""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from .meta_count import run_source

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.parity

COMMON = {"hidden_size": 16, "intermediate_size": 24, "num_attention_heads": 2, "num_key_value_heads": 1,
          "head_dim": 8, "vocab_size": 64}
# family: (config class, model class, its key for the number of experts, for the top-k, other keys)
FAMILIES = {
    "mixtral": ("MixtralConfig", "MixtralForCausalLM", "num_local_experts", "num_experts_per_tok", {}),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM", "num_experts", "num_experts_per_tok",
                  {"moe_intermediate_size": 12}),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM", "num_experts", "num_experts_per_tok",
                  {"moe_intermediate_size": 12, "shared_expert_intermediate_size": 20}),
    "olmoe": ("OlmoeConfig", "OlmoeForCausalLM", "num_experts", "num_experts_per_tok", {}),
    "gpt_oss": ("GptOssConfig", "GptOssForCausalLM", "num_local_experts", "num_experts_per_tok", {}),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM", "n_routed_experts", "num_experts_per_tok",
                    {"moe_intermediate_size": 12, "q_lora_rank": 8, "kv_lora_rank": 8, "qk_rope_head_dim": 4,
                     "qk_nope_head_dim": 4, "v_head_dim": 8, "head_dim": 4, "n_group": 1, "topk_group": 1,
                     "first_k_dense_replace": 1, "n_shared_experts": 1}),
    "phimoe": ("PhimoeConfig", "PhimoeForCausalLM", "num_local_experts", "num_experts_per_tok", {}),
    "granitemoe": ("GraniteMoeConfig", "GraniteMoeForCausalLM", "num_local_experts", "num_experts_per_tok", {}),
    "jamba": ("JambaConfig", "JambaForCausalLM", "num_experts", "num_experts_per_tok",
              {"attn_layer_period": 2, "attn_layer_offset": 1, "expert_layer_period": 1, "expert_layer_offset": 0,
               "mamba_d_state": 4, "mamba_dt_rank": 4, "use_mamba_kernels": False}),
    "flex_olmo": ("FlexOlmoConfig", "FlexOlmoForCausalLM", "num_experts", "num_experts_per_tok", {"pad_token_id": 0}),
    "ernie4_5_moe": ("Ernie4_5_MoeConfig", "Ernie4_5_MoeForCausalLM", "moe_num_experts", "moe_k",
                     {"moe_intermediate_size": 12}),
    "minimax": ("MiniMaxConfig", "MiniMaxForCausalLM", "num_local_experts", "num_experts_per_tok", {}),
    "glm4_moe": ("Glm4MoeConfig", "Glm4MoeForCausalLM", "n_routed_experts", "num_experts_per_tok",
                 {"moe_intermediate_size": 12, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1}),
    "hunyuan_v1_moe": ("HunYuanMoEV1Config", "HunYuanMoEV1ForCausalLM", "num_experts", "moe_topk", {}),
}

# PhiMoE's sparsemixer routes each token to two experts whatever num_experts_per_tok says (its
# top_k argument is not read); its real configs say 2, and so do the random ones here.
FIXED_TOP_K = {"phimoe": 2}
# Jamba's one attention layer is layer 1 (attn_layer_offset): with one layer transformers' mask code
# finds none and fails, so its models have two.
MIN_LAYERS = {"jamba": 2}

SOURCE = '''
from transformers import {config}, {model}

CONFIG = {config}({kwargs})


class Small({model}):
    def __init__(self, config=CONFIG):
        super().__init__(config)
'''


def _torch_counts(source: str, experts: int) -> tuple[int, int, set[int]]:
    """(total, active, how many experts each fused tensor's token ran) by torch: one token through
    the model with random weights; an expert ran where its slice of a fused tensor got a gradient."""
    logging.getLogger("transformers").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = run_source(source, "fused_moe").Small()
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    model(input_ids=torch.tensor([[3]])).logits.float().sum().backward()
    total = sum(p.numel() for p in model.parameters())
    idle, ran = 0, set()
    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] != "experts":
            continue
        for p in module.parameters(recurse=False):
            assert p.shape[0] == experts
            used = int((p.grad.reshape(experts, -1) != 0).any(dim=1).sum())
            ran.add(used)
            idle += (experts - used) * (p.numel() // experts)
    return total, total - idle, ran


def _check(family: str, experts: int, top_k: int, layers: int) -> None:
    config, model, experts_key, top_k_key, extra = FAMILIES[family]
    kwargs = {**COMMON, "num_hidden_layers": layers, experts_key: experts, top_k_key: top_k, **extra}
    if family == "gpt_oss":
        kwargs["layer_types"] = ["sliding_attention", "full_attention"][:layers]
    source = SOURCE.format(config=config, model=model, kwargs=", ".join(f"{k}={v!r}" for k, v in kwargs.items()))
    report = analyze_text(source, "/nonexistent/small_moe.py")
    counted = next(m for m in report.models if m.name == "Small")
    total, active, ran = _torch_counts(source, experts)
    assert ran <= {top_k}  # each routed layer's token ran top-k experts (none where no layer routes)
    assert counted.tree.total == total
    assert counted.tree.active == (active if ran else None)
    if family in registry():  # the same model as a config.json: the family table's count
        config_json = json.dumps({"model_type": family, "architectures": [model], **kwargs})
        (from_json,) = analyze_text(config_json, "/nonexistent/small_moe/config.json").models
        assert (from_json.tree.total, from_json.tree.active) == (total, active if ran else None)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_s_active_parameters_are_those_a_token_runs(family: str) -> None:
    _check(family, 4, 2, 2)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(sorted(FAMILIES)), data=st.data(), layers=st.integers(1, 2))
def test_random_small_moe_models_active_parameters(family: str, data: st.DataObject, layers: int) -> None:
    fixed = FIXED_TOP_K.get(family)
    experts = data.draw(st.integers(fixed + 1 if fixed else 2, 6), label="experts")
    top_k = fixed or data.draw(st.integers(1, experts - 1), label="top_k")
    _check(family, experts, top_k, max(layers, MIN_LAYERS.get(family, 1)))
