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
from lsp_count.core.families import registry
from lsp_count.formats.common import lora_layer_indices

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


@pytest.mark.parametrize("targets", [["q_proj", "v_porj"], ["q_proj", "self_attn.v_porj", "down_proj"]])
def test_a_name_reaching_no_module_is_ignored_as_peft_ignores_it(tmp_path, targets):
    """peft adapts what a list's other names reach and ignores a name that reaches nothing (a typo): the count is
    peft's, and a warning names it."""
    config = random_config(random.Random(0), "llama")
    listed = "\n".join(f"  - {t}" for t in targets)
    report = analyze_any(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 4\nlora_target_modules:\n{listed}\n")
    assert not report.has_errors, report.problems
    assert any("peft ignores" in p.message for p in report.problems if p.severity == "warning"), report.problems
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 4, targets)


@pytest.mark.parametrize("targets", [["v_porj"], ["q_proj", "input_layernorm"], ["q_proj", "self_attn"],
                                     ["q_proj", "v_porj", "post_attention_layernorm"]])
def test_a_list_peft_refuses_is_refused(tmp_path, targets):
    """No name reaching a linear layer, or one reaching a norm or a container: peft raises, lsp-count says why."""
    config = random_config(random.Random(0), "llama")
    assert isinstance(peft_outcome(config, 4, targets), str)
    listed = "\n".join(f"  - {t}" for t in targets)
    report = analyze_any(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 4\nlora_target_modules:\n{listed}\n")
    assert report.has_errors, report.problems


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


# --- transformers 5 fused MoE experts ---------------------------------------------------------------


def peft_outcome(config: dict, rank: int, targets):
    """peft's (total, trainable), or the ValueError text when peft refuses the targets."""
    try:
        return peft_counts(config, rank, targets)
    except ValueError as exc:
        return str(exc)


def lora_yaml(rank: int, targets) -> str:
    """An axolotl LoRA YAML on ./base: ``targets`` "all-linear" (or None), a list of names, or a regex."""
    if targets is None or targets == "all-linear":
        return f"base_model: ./base\nadapter: lora\nlora_r: {rank}\nlora_target_linear: true\n"
    written = json.dumps(targets) if isinstance(targets, list) else f"'{targets}'"
    return f"base_model: ./base\nadapter: lora\nlora_r: {rank}\nlora_target_modules: {written}\n"


def analyze_any(tmp_path, config: dict, yaml_text: str):
    (tmp_path / "base").mkdir(exist_ok=True)
    (tmp_path / "base" / "config.json").write_text(json.dumps(config))
    return analyze_text(yaml_text, str(tmp_path / "train.yaml"),
                        AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))


def moe_config(rng: random.Random, model_type: str) -> dict:
    kv = rng.choice([1, 2])
    heads = kv * rng.choice([1, 2])
    head_dim = rng.choice([8, 16])
    experts = rng.choice([2, 4, 8])
    cfg = dict(model_type=model_type, hidden_size=heads * head_dim, num_attention_heads=heads, num_key_value_heads=kv,
               num_hidden_layers=rng.randint(2, 3), intermediate_size=rng.choice([24, 40]),
               vocab_size=rng.randint(50, 300), tie_word_embeddings=rng.choice([True, False]),
               num_experts_per_tok=rng.randint(1, experts))
    if model_type == "mixtral":
        cfg.update(architectures=["MixtralForCausalLM"], num_local_experts=experts)
    elif model_type in ("qwen2_moe", "qwen3_moe"):
        cfg.update(num_experts=experts, moe_intermediate_size=rng.choice([8, 12]), decoder_sparse_step=1,
                   architectures=["Qwen2MoeForCausalLM" if model_type == "qwen2_moe" else "Qwen3MoeForCausalLM"])
        if model_type == "qwen2_moe":
            cfg["shared_expert_intermediate_size"] = rng.choice([16, 32])
        else:
            cfg["head_dim"] = head_dim
    elif model_type == "olmoe":
        cfg.update(architectures=["OlmoeForCausalLM"], num_experts=experts)
    elif model_type == "granitemoe":  # a router of one weight (not an nn.Linear)
        cfg.update(architectures=["GraniteMoeForCausalLM"], num_local_experts=experts)
    elif model_type == "phimoe":  # an nn.Linear router; two experts a token whatever num_experts_per_tok says
        cfg.update(architectures=["PhimoeForCausalLM"], num_local_experts=experts, num_experts_per_tok=2)
    elif model_type == "gpt_oss":  # experts with biases and a router with a bias: neither an nn.Linear
        cfg.update(architectures=["GptOssForCausalLM"], num_local_experts=experts, head_dim=head_dim)
    elif model_type == "hunyuan_v1_moe":  # an nn.Linear router in the gate (gate.wg), a shared MLP (shared_mlp)
        cfg.update(architectures=["HunYuanMoEV1ForCausalLM"], num_experts=experts, head_dim=head_dim)
    elif model_type == "beam":  # a dense first layer, then experts; an output gate in every attention
        cfg.update(architectures=["BeamForCausalLM"], num_experts=experts, moe_intermediate_size=rng.choice([8, 12]),
                   head_dim=head_dim, mlp_layer_types=["dense"] + ["sparse"] * (cfg["num_hidden_layers"] - 1),
                   n_group=1, topk_group=1)
    elif model_type == "laguna":  # a router parameter with a frozen bias, a shared expert, g_proj, sliding layers
        layers = cfg["num_hidden_layers"]
        types = [rng.choice(["full_attention", "sliding_attention"]) for _ in range(layers)]
        cfg.update(architectures=["LagunaForCausalLM"], num_experts=experts, moe_intermediate_size=rng.choice([8, 12]),
                   head_dim=head_dim, shared_expert_intermediate_size=rng.choice([0, 16]), layer_types=types,
                   num_attention_heads_per_layer=[heads if t == "full_attention" else 2 * heads for t in types],
                   gating=rng.choice([True, "per-element"]))
    elif model_type == "aria_text":  # experts intermediate_size wide behind a router parameter, shared experts
        cfg.update(architectures=["AriaTextForCausalLM"], moe_num_experts=experts, moe_topk=cfg.pop("num_experts_per_tok"),
                   moe_num_shared_experts=rng.choice([0, 1, 2]))
    elif model_type in ("glm4_moe", "param2moe", "sarvam_moe"):  # DeepSeek-V3's experts, plain attention
        cfg.update(architectures=["Glm4MoeForCausalLM"], n_routed_experts=experts, moe_intermediate_size=rng.choice([8, 12]),
                   first_k_dense_replace=1, n_shared_experts=rng.choice([1, 2]), n_group=1, topk_group=1)
    else:  # deepseek_v2 / deepseek_v3: multi-head latent attention, dense first layer, shared experts
        cfg.update(architectures=["DeepseekV2ForCausalLM" if model_type == "deepseek_v2" else "DeepseekV3ForCausalLM"],
                   n_routed_experts=experts, moe_intermediate_size=rng.choice([8, 12]), first_k_dense_replace=1,
                   n_shared_experts=rng.choice([1, 2]), kv_lora_rank=8, q_lora_rank=rng.choice([None, 8]),
                   qk_rope_head_dim=4, qk_nope_head_dim=4, v_head_dim=4, n_group=1, topk_group=1,
                   num_key_value_heads=heads)
    return cfg


MOE_FAMILIES = ["mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "olmoe", "glm4_moe", "gpt_oss",
                "granitemoe", "phimoe", "hunyuan_v1_moe", "param2moe", "sarvam_moe", "sarvam_mla", "beam", "laguna",
                "aria_text"]
# Regexes naming layer 1's fused experts by their full names (its experts' parameters, the v4 names fused into them,
# its router): peft keeps their leaf names, which then reach every layer.
_LAYER_1_EXPERT_REGEXES = [r"model\.layers\.1\.mlp\.experts\.(gate_up_proj|down_proj)",
                           r"model\.layers\.1\.mlp\.experts\.(gate_proj|up_proj)",
                           r"model\.layers\.1\.mlp\.(gate|experts\.down_proj)"]
MOE_TARGETS = {
    "mixtral": [["q_proj", "w2"], ["w1", "w3", "gate"], ["w1"], r".*\.(v_proj|w2|w3|w1)", r"model\.layers\.0\..*_proj",
                *_LAYER_1_EXPERT_REGEXES],
    "qwen2_moe": [["q_proj", "down_proj"], ["gate_proj", "up_proj", "shared_expert_gate"], ["gate"], r".*mlp\..*"],
    "qwen3_moe": [["gate_proj", "up_proj"], ["down_proj", "gate", "k_proj"], ["up_proj"], r".*\.(gate|o_proj)",
                  ["mlp.gate", "mlp.down_proj"], ["layers.0.mlp.gate", "v_proj"], *_LAYER_1_EXPERT_REGEXES],
    "deepseek_v2": [["gate_proj", "up_proj", "down_proj", "o_proj"], ["kv_b_proj", "gate"], r".*\.(gate_proj|up_proj)"],
    "deepseek_v3": [["down_proj", "kv_b_proj"], ["gate", "gate_proj", "up_proj"], r"model\.layers\.1\..*",
                    # dotted names: peft 0.22 keeps their prefix in the parameter target (layer 1's router alone)
                    ["layers.1.mlp.gate", "q_a_proj"], ["mlp.experts.down_proj", "o_proj"],
                    ["shared_experts.gate_proj", "shared_experts.up_proj"], ["mlp.down_proj"],
                    *_LAYER_1_EXPERT_REGEXES],
    "olmoe": [["q_proj", "down_proj"], ["gate_proj", "up_proj", "gate"], ["up_proj"], r".*\.(gate|o_proj)"],
    "glm4_moe": [["gate_proj", "up_proj", "down_proj", "o_proj"], ["gate", "k_proj"], r".*mlp\..*"],
    # GLM-4-MoE's and DeepSeek-V3's classes under other config classes: peft converts sarvam_mla's, not the others'
    "param2moe": [["gate_proj", "up_proj", "down_proj", "o_proj"], ["gate", "k_proj"], r".*mlp\..*"],
    "sarvam_moe": [["gate_proj", "up_proj", "q_proj"], ["gate"], r".*\.(gate|o_proj)"],
    "sarvam_mla": [["down_proj", "kv_b_proj"], ["gate", "gate_proj", "up_proj"], r"model\.layers\.1\..*"],
    "gpt_oss": [["q_proj", "o_proj"], ["router"], ["down_proj"], r".*\.(k_proj|v_proj)"],
    # Beam: its attention's own gate_proj beside the dense MLPs' gate_proj and the experts' fused gate_up_proj
    "beam": [["gate_proj", "up_proj", "down_proj", "o_proj"], ["gate", "q_proj"], r".*self_attn\..*", r".*mlp\..*"],
    "granitemoe": [["q_proj", "o_proj"], ["router"], ["down_proj"], r".*\.(k_proj|v_proj)"],
    # Laguna: a router parameter (gate: not an nn.Linear) beside the dense MLPs and the shared expert's projections
    "laguna": [["q_proj", "g_proj"], ["gate_proj", "up_proj", "down_proj"], ["gate", "o_proj"], r".*mlp\..*",
               r".*self_attn\..*"],
    # Aria's text model: its router (mlp.router) a parameter, its shared experts (mlp.shared_experts) gated MLPs
    "aria_text": [["q_proj", "down_proj"], ["gate_proj", "up_proj"], ["router", "o_proj"], r".*mlp\..*"],
    "phimoe": [["q_proj", "router"], ["router"], ["down_proj"], r".*\.(router|v_proj)"],
    "hunyuan_v1_moe": [["wg", "q_proj"], ["gate"], ["gate_proj", "up_proj"], ["down_proj", "o_proj"], ["gate_proj"],
                       r".*\.(gate|o_proj)", r".*\.gate\.wg", r".*mlp\..*", r"model\.layers\.0\..*_proj"],
}


@pytest.mark.parametrize("model_type", MOE_FAMILIES)
@pytest.mark.parametrize("seed", range(3))
def test_moe_all_linear_matches_peft(tmp_path, model_type, seed):
    """all-linear on transformers 5 fused experts: peft adapts experts and router for the families its v4->v5
    conversion covers (mixtral, qwen3_moe, deepseek), and leaves qwen2_moe's alone."""
    rng = random.Random(300 + seed)
    config = moe_config(rng, model_type)
    rank = rng.choice([1, 2, 4])
    text = (f"base_model: ./base\nadapter: lora\nlora_r: {rank}\nlora_target_linear: true\n" if seed % 2 else
            f"model_name_or_path: ./base\nfinetuning_type: lora\nlora_rank: {rank}\nlora_target: all\n")
    model = analyze_yaml(tmp_path, config, text)
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, rank, "all-linear")


def counted_as_peft(tmp_path, config: dict, targets):
    """LoRA ``targets`` (rank 2) on ``config`` as lsp-count reads an axolotl YAML, checked against peft: an error
    where peft refuses the targets, else peft's (total, trainable). The model's report; None where peft refuses."""
    expected = peft_outcome(config, 2, targets)
    report = analyze_any(tmp_path, config, lora_yaml(2, targets))
    if isinstance(expected, str):
        assert report.has_errors, (targets, expected)
        return None
    assert not report.has_errors, (targets, report.problems)
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == expected, targets
    return model


@pytest.mark.parametrize("model_type", MOE_FAMILIES)
def test_moe_named_and_regex_targets_match_peft(tmp_path, model_type):
    for i, targets in enumerate(MOE_TARGETS[model_type]):
        counted_as_peft(tmp_path, moe_config(random.Random(400 + i), model_type), targets)


_DENSE_ONLY = {"vocab_size": 64, "hidden_size": 16, "intermediate_size": 24, "num_hidden_layers": 2,
               "num_attention_heads": 2, "num_key_value_heads": 1, "tie_word_embeddings": False,
               "moe_intermediate_size": 8, "num_experts_per_tok": 1}
# Configs of families peft's v4->v5 conversion covers whose layers all keep the dense MLP.
_NO_EXPERT_LAYER = {
    "deepseek_v3": {"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], **_DENSE_ONLY,
                    "n_routed_experts": 4, "first_k_dense_replace": 2, "q_lora_rank": 8, "kv_lora_rank": 8,
                    "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4, "n_group": 1, "topk_group": 1},
    "dots1": {"model_type": "dots1", "architectures": ["Dots1ForCausalLM"], **_DENSE_ONLY, "n_routed_experts": 4,
              "first_k_dense_replace": 2},
    "qwen3_moe": {"model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], **_DENSE_ONLY, "num_experts": 4,
                  "mlp_only_layers": [0, 1]},
}


@pytest.mark.parametrize("model_type", sorted(_NO_EXPERT_LAYER))
@pytest.mark.parametrize("targets", ["all-linear", ["q_proj", "v_proj", "gate_proj", "up_proj", "down_proj"],
                                     ["gate_proj", "up_proj", "down_proj"], ["gate_proj"], ["q_proj"]])
def test_moe_conversion_keeps_the_dense_mlps_where_no_layer_has_experts_as_peft_does(tmp_path, model_type, targets):
    """peft converts a family's targets by its model_type, whatever its layers hold; since 0.22 a name that reaches
    only nn.Linear modules stays a module target. In a config whose layers all keep the dense MLP
    (first_k_dense_replace, mlp_only_layers) gate_proj / up_proj / down_proj adapt the dense MLPs, and nothing says
    they were dropped (peft 0.21 dropped them; found by a sweep of all-linear over random configs, Beam)."""
    model = counted_as_peft(tmp_path, _NO_EXPERT_LAYER[model_type], targets)
    if model is None:
        return
    assert not [n for n in model.tree.notes if "no layer of this config has experts" in n], model.tree.notes
    adapted = [c.name for c in model.tree.root.children if c.name == "adapters" for c in c.children]
    assert any(name.endswith("mlp.gate_proj") for name in adapted) == (targets != ["q_proj"]), adapted


def test_moe_conversion_table_is_peft_s():
    """lora.PEFT_MOE_CONVERSION lists exactly the counted MoE families peft's v4->v5 conversion rewrites."""
    from peft.utils import transformers_weight_conversion as conv

    from lsp_count.formats.lora import _MOE_STYLES, PEFT_MOE_CONVERSION

    for model_type in MOE_FAMILIES:
        style = conv._MODEL_TO_CONVERSION_PATTERN.get(model_type)
        converted = (conv.get_checkpoint_conversion_mapping(model_type) is not None
                     and style in conv._MOE_TARGET_MODULE_MAPPING and style in conv._MOE_FUSED_TARGETS)
        assert PEFT_MOE_CONVERSION.get(model_type) == (style if converted else None), model_type
    for style, (mapping, fused) in _MOE_STYLES.items():
        assert dict(mapping) == conv._MOE_TARGET_MODULE_MAPPING[style]
        assert list(fused) == conv._MOE_FUSED_TARGETS[style]["gate_up_proj"]


# --- regex targets on each family's module paths ----------------------------------------------------

GPT2 = dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], n_layer=3, n_embd=16, n_head=2, vocab_size=100,
            n_positions=64)
LLAMA = dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=16, num_attention_heads=2,
             num_key_value_heads=1, num_hidden_layers=3, intermediate_size=40, vocab_size=120, tie_word_embeddings=False)


@pytest.mark.parametrize("config,pattern", [
    (GPT2, r"transformer\.h\.[0-9]+\.attn\.c_attn"),
    (GPT2, r"transformer\.h\.[12]\.mlp\.c_(fc|proj)"),
    (GPT2, r".*\.h\.0\..*"),
    (GPT2, r".*attn\.c_proj"),
    (LLAMA, r"model\.layers\.[02]\.self_attn\.(q|k)_proj"),
    (LLAMA, r"model\.layers\.1\.mlp\..*_proj|lm_head"),
    (LLAMA, r"model\.layers\.1\.self_attn"),
    # A norm matched beside linears: peft refuses it ("Target module LlamaRMSNorm() is not supported").
    (LLAMA, r".*(q_proj|input_layernorm)"),
    (LLAMA, r"model\.norm|lm_head"),
    (GPT2, r".*\.(ln_1|c_attn)"),
])
def test_regex_on_family_paths_matches_peft(tmp_path, config, pattern):
    """The regex sees transformers' module names (gpt2: transformer.h.N.attn.c_attn); one that also matches a
    container (transformer.h.0.attn) is refused, as peft refuses it."""
    expected = peft_outcome(config, 4, pattern)
    report = analyze_any(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 4\n"
                                           f"lora_target_modules: '{pattern}'\n")
    if isinstance(expected, str):
        assert report.has_errors and "not a linear layer" in str(report.problems), expected
        return
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert model.tree.trainable > 0
    assert (model.tree.total, model.tree.trainable) == expected


FAMILY_CONFIGS = {
    "gpt2": dict(n_layer=2, n_embd=16, n_head=2, vocab_size=64),
    "gpt_neox": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32),
    "gpt_neox_japanese": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64,
                              intermediate_multiple_size=2, tie_word_embeddings=False),
    "gptj": dict(n_layer=2, n_embd=16, n_head=2, vocab_size=64, rotary_dim=4),
    "falcon": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64),
    "bloom": dict(n_layer=2, hidden_size=16, n_head=2, vocab_size=64),
    "opt": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, ffn_dim=32,
                word_embed_proj_dim=8),
    "phi": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32),
    "phi3": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                 pad_token_id=0, bos_token_id=0, eos_token_id=0),
    "starcoder2": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32),
    "mamba": dict(num_hidden_layers=2, hidden_size=16, vocab_size=64),
    "mamba2": dict(num_hidden_layers=2, hidden_size=16, vocab_size=64, num_heads=4, head_dim=8, n_groups=2,
                   state_size=4),
    "gemma": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                  head_dim=8, num_key_value_heads=1),
    "qwen2_moe": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                      num_experts=4, moe_intermediate_size=8, shared_expert_intermediate_size=8, num_experts_per_tok=2,
                      num_key_value_heads=1),
    "gpt_bigcode": dict(n_layer=2, n_embd=16, n_head=2, vocab_size=64),
    "stablelm": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, vocab_size=64,
                     intermediate_size=32, qk_layernorm=True),
    "helium": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                   vocab_size=64, intermediate_size=32),
    "ernie4_5": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, head_dim=8, vocab_size=64,
                     intermediate_size=32, use_bias=True),
    "glm": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, head_dim=8, vocab_size=64, pad_token_id=0,
                intermediate_size=32),
    "nemotron": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, vocab_size=64,
                     intermediate_size=32, attention_bias=True),
    "granitemoe": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                       num_local_experts=4),
    "phimoe": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, vocab_size=64,
                   intermediate_size=32, num_local_experts=4),
    "ministral": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                      vocab_size=64, intermediate_size=32),
    "hunyuan_v1_dense": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1,
                             head_dim=8, vocab_size=64, intermediate_size=32, attention_bias=True),
    "hunyuan_v1_moe": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                           vocab_size=64, intermediate_size=32, num_experts=4, moe_topk=2),
    "deepseek_v3": dict(num_hidden_layers=3, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                        n_routed_experts=4, moe_intermediate_size=8, first_k_dense_replace=1, n_shared_experts=1,
                        kv_lora_rank=8, q_lora_rank=8, qk_rope_head_dim=4, qk_nope_head_dim=4, v_head_dim=4,
                        n_group=1, topk_group=1, num_experts_per_tok=2),
    # config classes of their own over another family's classes (families/reused.py)
    "gpt-sw3": dict(n_layer=2, n_embd=16, n_head=2, vocab_size=64),
    "exaone": dict(num_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, vocab_size=64,
                   intermediate_size=32),
    "hyperclovax": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1,
                        vocab_size=64, intermediate_size=32),
    "sarvam_mla": dict(num_hidden_layers=3, hidden_size=16, num_attention_heads=2, vocab_size=64, intermediate_size=32,
                       n_routed_experts=4, moe_intermediate_size=8, kv_lora_rank=8, qk_rope_head_dim=4,
                       qk_nope_head_dim=4, v_head_dim=4, num_experts_per_tok=2),
    "param2moe": dict(num_hidden_layers=3, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8,
                      vocab_size=64, intermediate_size=32, num_experts=4, moe_intermediate_size=8,
                      num_experts_per_tok=2),
    "apertus1p5_text": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, vocab_size=64,
                            intermediate_size=32, output_vocab_size=40),
    "hrm_text": dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, head_dim=8, vocab_size=64,
                     intermediate_size=32),
}


MAMBA2 = dict(model_type="mamba2", architectures=["Mamba2ForCausalLM"], num_hidden_layers=3, hidden_size=16,
              vocab_size=64, num_heads=4, head_dim=8, n_groups=2, state_size=4, tie_word_embeddings=False)


@pytest.mark.parametrize("targets", ["all-linear", ["in_proj"], ["in_proj", "lm_head"], ["out_proj", "lm_head"],
                                     r"backbone\.layers\.[02]\.mixer\.in_proj", r".*\.out_proj"])
def test_mamba2_targets_match_peft(tmp_path, targets):
    """Mamba-2's linear layers (each mixer's in_proj and out_proj, the untied lm_head): LoRA's parameters as peft's,
    and peft's refusal of out_proj (all-linear included) on a Mamba-based model as an error."""
    text = lora_yaml(4, targets)
    expected = peft_outcome(MAMBA2, 4, targets)
    report = analyze_any(tmp_path, MAMBA2, text)
    if isinstance(expected, str):  # peft refuses out_proj (all-linear included) on Mamba-based models
        assert "incompatible with Mamba" in expected
        assert report.has_errors and "peft refuses LoRA on out_proj" in str(report.problems), report.problems
        return
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert model.tree.trainable > 0
    assert (model.tree.total, model.tree.trainable) == expected


@pytest.mark.parametrize("model_type", sorted(FAMILY_CONFIGS))
def test_module_paths_are_transformers_s(model_type):
    """Every linear module lsp-count adapts has the full name transformers gives it (what a regex sees)."""
    import torch
    from transformers import AutoModelForCausalLM, CONFIG_MAPPING
    from transformers.pytorch_utils import Conv1D

    from lsp_count.core.hf_config import count_config
    from lsp_count.formats import lora

    logging.getLogger("transformers").setLevel(logging.ERROR)
    cfg = CONFIG_MAPPING[model_type](**FAMILY_CONFIGS[model_type])
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg)
    theirs = {n for n, m in model.named_modules() if isinstance(m, (torch.nn.Linear, Conv1D))}
    if model.get_output_embeddings() is not None and cfg.tie_word_embeddings:
        theirs.discard("lm_head")  # tied: counted once, as the embedding
    from lsp_count.core.source import SourceNode

    root = SourceNode({k: SourceNode(v, None) for k, v in {"model_type": model_type, **FAMILY_CONFIGS[model_type]}.items()},
                      None)
    report, _ = count_config(root, model_type)
    tree = report.tree
    offsets = lora._layer_offsets(tree)
    paths = lora.MODULE_PATHS.get(model_type, lora._LLAMA)
    ours = set()
    # PhiMoE's router is an nn.Linear (LINEAR_ROUTER_FAMILIES); the other families' are not.
    is_router = (lambda _p, _t: False) if model_type in lora.LINEAR_ROUTER_FAMILIES else lora.is_bare_router
    for path, t, mult, _f in tree.root.iter_tensors():
        if lora._is_adaptable(t, path, is_router):
            group = next((g for g in offsets if f".{g}" in path), None)
            ours.update(lora._hf_paths(path, t.module, mult, paths, offsets.get(group, 0)))
    assert ours == theirs


# --- single-stack encoders: their modules' full names, and regex / dotted targets on them ------------------

def _linear_names(model) -> set[str]:
    """The full names of a built model's nn.Linear modules, a tied output head left out (counted once, as the
    embedding)."""
    import torch

    names = {n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    out = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if out is not None and out.weight is model.get_input_embeddings().weight:
        names -= {n for n, m in model.named_modules() if m is out}
    return names


def _adapted_names(config: dict, full_names) -> list[str]:
    """The full names lsp-count gives the linear layers LoRA adapts in ``config``'s tree (``full_names(path,
    tensor, occurrences)``), one per occurrence."""
    from lsp_count.formats import lora

    (report,) = analyze_text(json.dumps(config), "model/config.json").models,
    # (a router that is an nn.Linear, LINEAR_ROUTER_FAMILIES': Llama 4's composite's)
    is_router = (lambda _p, _t: False) if config.get("model_type") in lora.LINEAR_ROUTER_FAMILIES else lora.is_bare_router
    return [name for path, t, mult, _f in report[0].tree.root.iter_tensors() if lora._is_adaptable(t, path, is_router)
            for name in full_names(path, t, mult)]


ENCODER_CONFIGS = {
    "bert": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50),
    "roberta": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                    pad_token_id=1),
    "xlm-roberta": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                        vocab_size=50, pad_token_id=1),
    "distilbert": dict(dim=16, n_layers=2, n_heads=2, hidden_dim=32, vocab_size=50),
    **{mt: dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                pad_token_id=1) for mt in ("camembert", "data2vec-text", "xlm-roberta-xl", "roberta-prelayernorm",
                                           "megatron-bert")},
    # A factorised embedding projected up (embeddings_project, embedding_hidden_mapping_in), summary Linears.
    "electra": dict(hidden_size=16, embedding_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                    vocab_size=50),
    "roformer": dict(hidden_size=16, embedding_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                     vocab_size=50, summary_use_proj=True),
    "rembert": dict(hidden_size=16, input_embedding_size=8, output_embedding_size=12, num_hidden_layers=2,
                    num_attention_heads=2, intermediate_size=32, vocab_size=50),
    "vit": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                patch_size=16),
    "modernbert": dict(hidden_size=16, num_hidden_layers=3, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                       pad_token_id=0, bos_token_id=0, eos_token_id=0, cls_token_id=0, sep_token_id=0),
    "albert": dict(hidden_size=16, embedding_size=8, num_hidden_layers=5, num_hidden_groups=2, inner_group_num=3,
                   num_attention_heads=2, intermediate_size=32, vocab_size=50),
    # The speech encoders: wav2vec2's, HuBERT's and UniSpeech's pre-norm layers with attention adapters (linear_1, linear_2).
    **{model_type: dict(hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=12,
                        conv_dim=[4, 4], conv_kernel=[3, 2], conv_stride=[2, 2], num_conv_pos_embeddings=3,
                        num_conv_pos_embedding_groups=2, num_codevector_groups=2, num_codevectors_per_group=3,
                        codevector_dim=4, proj_codevector_dim=5, tdnn_dim=[3, 5], tdnn_kernel=[2, 1],
                        xvector_output_dim=4, **extra)
       for model_type, extra in (("wav2vec2", {"do_stable_layer_norm": True, "adapter_attn_dim": 3}),
                                 ("hubert", {"do_stable_layer_norm": True, "adapter_attn_dim": 3}),
                                 ("data2vec-audio", {}), ("wavlm", {"num_buckets": 10}),
                                 ("unispeech", {"do_stable_layer_norm": True, "adapter_attn_dim": 3}),
                                 ("unispeech-sat", {"do_stable_layer_norm": True, "adapter_attn_dim": 3}),
                                 ("sew", {"squeeze_factor": 3}),
                                 # (own position projections, pos_key_proj and pos_query_proj)
                                 ("sew-d", {"squeeze_factor": 3, "share_att_key": False, "position_buckets": 4}),
                                 ("wav2vec2-conformer", {"conv_depthwise_kernel_size": 3, "vocab_size": 7}),
                                 ("wav2vec2-bert", {"conv_depthwise_kernel_size": 3, "vocab_size": 7,
                                                    "feature_projection_input_dim": 6}))},
    **{f"{prefix}_vision_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                      image_size=32, patch_size=16, projection_dim=8)
       for prefix in ("clip", "metaclip_2")},
    **{f"{prefix}_text_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                    vocab_size=50, max_position_embeddings=16, projection_dim=8, bos_token_id=0,
                                    eos_token_id=1, pad_token_id=1) for prefix in ("clip", "metaclip_2")},
    "siglip_vision_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                image_size=32, patch_size=16),
    "pixtral": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, patch_size=4),
    # Gemma 4's towers: clippable linears (their nn.Linear is q_proj.linear), the patch embedder's input_proj, the audio
    # tower's subsampling input_proj_linear, relative_k_proj and output_proj.
    "gemma4_vision": dict(hidden_size=8, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=4,
                          intermediate_size=12, patch_size=4, position_embedding_size=10),
    "gemma4_audio": dict(hidden_size=8, num_hidden_layers=2, num_attention_heads=2, subsampling_conv_channels=[8, 4],
                         conv_kernel_size=3, output_proj_dims=12),
    # Gemma 3n's audio encoder: conformer.N.attention.attn.q_proj, subsample_conv_projection.input_proj_linear, ...
    "gemma3n_audio": dict(hidden_size=8, conf_num_hidden_layers=2, conf_num_attention_heads=2,
                          sscp_conv_channel_size=[4, 2], input_feat_size=10, conf_conv_kernel_size=3),
    # Llama 4's tower: model.layers.N.self_attn.q_proj, the unfold patch embedding's linear, the adapter's fc1 / fc2.
    "llama4_vision_model": dict(hidden_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=12,
                                image_size=28, patch_size=14, projector_input_dim=8, projector_output_dim=6),
    "internvl_vision": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                            image_size=32, patch_size=16, use_qk_norm=True, attention_bias=True, use_mean_pooling=False),
    "idefics3_vision": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                            image_size=32, patch_size=16),
    "smolvlm_vision": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                           image_size=32, patch_size=16),
    # Relative attention with both position projections (v2: pos_key_proj, pos_query_proj; v1: pos_proj, pos_q_proj),
    # a factorised embedding (embeddings.embed_proj), v1's talking heads.
    "deberta-v2": dict(hidden_size=16, embedding_size=8, num_hidden_layers=2, num_attention_heads=2,
                       intermediate_size=32, vocab_size=50, relative_attention=True, pos_att_type=["c2p", "p2c"],
                       conv_kernel_size=3),
    "deberta": dict(hidden_size=16, embedding_size=8, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                    vocab_size=50, relative_attention=True, pos_att_type="c2p|p2c", talking_head=True),
    "mpnet": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50),
    "gte": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50),
    "nomic_bert": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                       vocab_size=50),
    "eurobert": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                     intermediate_size=32, vocab_size=50, pad_token_id=0),
    "dinov2": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, image_size=32, patch_size=16,
                   use_swiglu_ffn=True),
    "dinov2_with_registers": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, image_size=32,
                                  patch_size=16),
    "deit": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                 patch_size=16),
    # ViTMAE's pre-training decoder: decoder.decoder_embed, decoder.decoder_layers.N.attention.q_proj, decoder_pred.
    "vit_mae": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                    patch_size=16, decoder_hidden_size=8, decoder_num_attention_heads=2, decoder_num_hidden_layers=2,
                    decoder_intermediate_size=12),
    "ijepa": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                  patch_size=16),
    "vit_msn": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                    patch_size=16),
    # YOLOS: BERT's module names under vit., the detection heads' MLPs (class_labels_classifier.layers.N, bbox_predictor).
    # DINOv3: model.layer.N.attention.q_proj, a gated MLP (gate_proj, up_proj, down_proj).
    "dinov3_vit": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                       patch_size=16, use_gated_mlp=True, num_register_tokens=2),
    # BEiT's masked-image-modeling head (lm_head, its own Linear), the relative position bias tables (no Linear).
    **{mt: dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=32,
                patch_size=16, use_relative_position_bias=True, use_shared_relative_position_bias=True,
                use_mask_token=True) for mt in ("beit", "data2vec-vision")},
    "yolos": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, image_size=[32, 48],
                  patch_size=16, num_detection_tokens=3),
    "chinese_clip_text_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                    vocab_size=50, max_position_embeddings=16, pad_token_id=0),
    "chinese_clip_vision_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                      image_size=32, patch_size=16),
    "siglip_text_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                              vocab_size=50, max_position_embeddings=16, projection_size=8),
    "siglip2_text_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                               vocab_size=50, max_position_embeddings=16, projection_size=8),
    # A Linear patch embedding (embeddings.patch_embedding), which all-linear adapts.
    "siglip2_vision_model": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                                 patch_size=4, num_patches=9),
    # The contact head (contact_head.regression) in every class, the bare model's pooler.
    "esm": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=33,
                position_embedding_type="rotary"),
    "bert-generation": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                            vocab_size=50),
    # The task-type table, two adapters per layer (dense1, dense2 per language), the concatenated inputs' map.
    "ernie": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                  use_task_id=True),
    "xmod": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                 pad_token_id=1, languages=["en_XX", "de_DE"], pre_norm=True),
    "roc_bert": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                     pronunciation_vocab_size=12, pronunciation_embed_dim=8, shape_vocab_size=14, shape_embed_dim=4),
    "modernbert-decoder": dict(hidden_size=16, num_hidden_layers=3, num_attention_heads=2, intermediate_size=32,
                               vocab_size=50, pad_token_id=0, bos_token_id=0, eos_token_id=0, cls_token_id=0,
                               sep_token_id=0, classifier_bias=True),
    # The pooler in every head class (layoutlm.pooler.dense), the span selection head's transforms and classifiers.
    "layoutlm": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                     max_2d_position_embeddings=12),
    "splinter": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50),
    # Swin's stages: encoder.layers.S.blocks.N.attention.q_proj, mlp.fc1, the merging's encoder.layers.S.downsample.reduction.
    "swin": dict(embed_dim=8, depths=[1, 2, 3], num_heads=[2, 2, 4], window_size=2, image_size=32, patch_size=4),
    # Swin V2: attention.self.query, attention.output.dense, the continuous position bias MLP's two Linears.
    "swinv2": dict(embed_dim=8, depths=[1, 2, 3], num_heads=[2, 2, 4], window_size=2, image_size=32, patch_size=4,
                   pretrained_window_sizes=[0, 0, 0]),
    # Donut's: the head class's body is donut. (donut.encoder.layers.S.blocks.N.attention.self.query, output.dense)
    "donut-swin": dict(embed_dim=8, depths=[1, 2, 3], num_heads=[2, 2, 4], window_size=2, image_size=32, patch_size=4),
    # MaskFormer's: the backbone class holds the model under model. (model.encoder.layers.S.blocks.N...)
    "maskformer-swin": dict(embed_dim=8, depths=[1, 2, 3], num_heads=[2, 2, 4], window_size=2, image_size=32,
                            patch_size=4),
    # MobileBERT: the bottleneck Linears, stacked FFNs (ffn.N.intermediate.dense), the embedding transformation and
    # the MLM head's extra output columns (cls.predictions.dense, vocab → hidden − embedding_size).
    # ConvBERT: the convolution's Linears (conv_kernel_layer, conv_out_layer) beside query/key/value; grouped
    # feed-forwards (num_groups > 1) are no nn.Linear.
    "convbert": dict(hidden_size=16, embedding_size=8, num_hidden_layers=2, num_attention_heads=4, intermediate_size=32,
                     vocab_size=50, conv_kernel_size=3, num_groups=2),
    # Nyströmformer: BERT's names, no pooler, a pre_classifier in the multiple-choice class.
    "nystromformer": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                          vocab_size=50, conv_kernel_size=3),
    "yoso": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                 conv_window=3),
    # MRA: YOSO's names (no pooler, a pre_classifier in the multiple-choice class).
    "mra": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50),
    # TAPAS: BERT's names; its question-answering class's aggregation_classifier is a linear of its own.
    "tapas": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                  num_aggregation_labels=3),
    # Jina Embeddings v3: its stack under `roberta` at layers.N (self_attn.q_proj, mlp.fc1), RoBERTa's heads.
    "jina_embeddings_v3": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                               vocab_size=50),
    # ESM-C: its stack under `esmc` at layers.N (self_attn.q_proj beside q_norm, mlp.gate_proj), its own MLM head, the
    # token classifier's score.
    "esmc": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                 attention_bias=True),
    # Longformer: RoBERTa's names, and query_global / key_global / value_global beside each layer's query, key, value.
    "longformer": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                       attention_window=[4, 8]),
    # BigBird: BERT's names under `bert`, its pooler an nn.Linear itself, its QA head's feed-forward in qa_classifier.
    "big_bird": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                     attention_type="original_full"),
    # SqueezeBERT: its layer projections are nn.Conv1d (no Linear for all-linear); the pooler, heads and MLM transform.
    "squeezebert": dict(hidden_size=16, embedding_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, vocab_size=50),
    "mobilebert": dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, vocab_size=50,
                       embedding_size=8, intra_bottleneck_size=8, num_feedforward_networks=3),
    # The Whisper-shaped audio encoders: layers.N.self_attn.q_proj, layers.N.fc1 (the convolutions are no Linear).
    **{mt: dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, num_mel_bins=4,
                max_source_positions=8) for mt in ("qwen2_audio_encoder", "voxtral_encoder")},
}


def _encoder_cases() -> list[tuple[str, str]]:
    import transformers

    from lsp_count.core.families import registry
    from lsp_count.formats import lora

    assert set(ENCODER_CONFIGS) == set(lora.ENCODER_PATHS)
    return [(mt, arch) for mt in sorted(ENCODER_CONFIGS) for arch in registry()[mt].heads if hasattr(transformers, arch)]


@pytest.mark.parametrize("model_type,architecture", _encoder_cases())
def test_encoder_module_paths_are_transformers_s(model_type, architecture):
    """Every linear module of an encoder lsp-count adapts has the full name transformers gives it, in the
    bare class (the stack at the top) and the head classes (under bert., roberta., model., ...)."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    from lsp_count.formats import lora

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    config = {"model_type": model_type, "architectures": [architecture], **ENCODER_CONFIGS[model_type]}
    with torch.device("meta"):
        model = getattr(transformers, architecture)(CONFIG_MAPPING[model_type](**ENCODER_CONFIGS[model_type]))
    groups = ENCODER_CONFIGS[model_type].get("num_hidden_groups", 1)
    ours = _adapted_names(config, lambda path, t, mult: lora._encoder_paths(path, t.name, mult,
                                                                             lora.ENCODER_PATHS[model_type], groups))
    assert len(ours) == len(set(ours))
    assert set(ours) == _linear_names(model)


@pytest.mark.parametrize("model_type,architecture", [
    ("bert", "BertLMHeadModel"), ("roberta", "RobertaForCausalLM"), ("xlm-roberta-xl", "XLMRobertaXLForCausalLM"),
    ("roberta-prelayernorm", "RobertaPreLayerNormForCausalLM"), ("megatron-bert", "MegatronBertForCausalLM"),
    ("electra", "ElectraForCausalLM"), ("roformer", "RoFormerForCausalLM"), ("bert-generation", "BertGenerationDecoder"),
    ("ernie", "ErnieForCausalLM"), ("xmod", "XmodForCausalLM"), ("roc_bert", "RoCBertForCausalLM"),
    ("convbert", "ConvBertForMaskedLM")])
def test_encoder_cross_attention_module_paths_are_transformers_s(model_type, architecture):
    """A decoder with add_cross_attention: its cross-attention block's linears are crossattention.self.query, ...
    (the self-attention block's names under crossattention), as transformers names them."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    from lsp_count.formats import lora

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    keys = {**ENCODER_CONFIGS[model_type], "is_decoder": True, "add_cross_attention": True}
    with torch.device("meta"):
        model = getattr(transformers, architecture)(CONFIG_MAPPING[model_type](**keys))
    config = {"model_type": model_type, "architectures": [architecture], **keys}
    ours = _adapted_names(config, lambda path, t, mult: lora._encoder_paths(path, t.name, mult,
                                                                             lora.ENCODER_PATHS[model_type]))
    assert any(".crossattention.self.query" in name for name in ours)
    assert len(ours) == len(set(ours))
    assert set(ours) == _linear_names(model)


@pytest.mark.parametrize("model_type", ["bert", "roberta", "distilbert", "modernbert", "albert", "camembert",
                                        "xlm-roberta-xl", "megatron-bert", "electra", "roformer", "rembert",
                                        "deberta-v2", "deberta", "mpnet", "gte", "eurobert",
                                        "nomic_bert", "esm", "ernie", "xmod", "roc_bert", "layoutlm",
                                        "mobilebert", "squeezebert", "convbert",
                                        "nystromformer", "yoso", "mra", "tapas", "longformer", "big_bird",
                                        "jina_embeddings_v3", "esmc"])
@pytest.mark.parametrize("tied", [True, False])
def test_encoder_all_linear_leaves_out_the_mlm_decoder_as_peft_does(tmp_path, model_type, tied):
    """all-linear on a masked-LM class: peft leaves out the output embeddings (an untied cls.predictions.decoder,
    generator_lm_head, vocab_projector) as it leaves out lm_head, and adapts the transform's dense layer."""
    import transformers

    from lsp_count.core.families import registry

    arch = next(a for a, head in registry()[model_type].heads.items() if head == "masked_lm")
    assert hasattr(transformers, arch)
    config = {"model_type": model_type, "architectures": [arch], **ENCODER_CONFIGS[model_type],
              "tie_word_embeddings": tied}
    report = analyze_any(tmp_path, config, lora_yaml(2, "all-linear"))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 2, "all-linear")


@pytest.mark.parametrize("model_type", ["deberta-v2", "deberta"])
@pytest.mark.parametrize("tied", [True, False])
def test_deberta_non_legacy_head_leaves_out_its_dense_as_peft_does(tmp_path, model_type, tied):
    """DeBERTa's non-legacy masked-LM head has no decoder: its get_output_embeddings() is the head's dense layer
    (lm_predictions.lm_head.dense), which peft's all-linear leaves out."""
    arch = next(a for a, head in registry()[model_type].heads.items() if head == "masked_lm")
    config = {"model_type": model_type, "architectures": [arch], **ENCODER_CONFIGS[model_type], "legacy": False,
              "tie_word_embeddings": tied}
    report = analyze_any(tmp_path, config, lora_yaml(2, "all-linear"))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 2, "all-linear")


ENCODER_TARGETS = {
    "bert": [r"bert\.encoder\.layer\.\d+\.attention\.self\.(query|value)", ["attention.output.dense", "key"],
             r".*layer\.1\..*dense"],
    "roberta": [r"roberta\.encoder\.layer\.0\..*", ["self.query", "classifier.dense"]],
    "electra": [r"electra\.encoder\.layer\.\d+\.attention\.self\.(query|value)", ["embeddings_project", "out_proj"]],
    "xlm-roberta-xl": [r"roberta\.encoder\.layer\.1\..*dense", ["attention.output.dense", "classifier.dense"]],
    "distilbert": [r"distilbert\.transformer\.layer\.1\.ffn\.lin[12]", ["attention.q_lin", "pre_classifier"]],
    "vit": [r"vit\.layers\.\d+\.attention\.(q|v)_proj", ["mlp.fc1"]],
    "modernbert": [r"model\.layers\.[02]\.attn\.Wqkv", ["attn.Wo", "head.dense"], r"model\.layers\.\d+\.mlp\.W.*"],
    "albert": [r"albert\.encoder\.albert_layer_groups\.1\.albert_layers\.\d+\.attention\.(query|value)",
               [r"ffn_output", "albert_layers.2.ffn", "embedding_hidden_mapping_in"], r".*albert_layers\.0\..*dense"],
    **{f"{prefix}_vision_model": [r"vision_model\.encoder\.layers\.\d+\.self_attn\.(q|v)_proj",
                                  ["visual_projection", "fc1"]] for prefix in ("clip", "metaclip_2")},
    **{f"{prefix}_text_model": [r"text_model\.encoder\.layers\.0\.self_attn\.k_proj", ["text_projection"]]
       for prefix in ("clip", "metaclip_2")},
    "chinese_clip_text_model": [r"encoder\.layer\.\d+\.attention\.self\.(query|value)",
                                ["pooler.dense", "output.dense"]],
    "chinese_clip_vision_model": [r"encoder\.layers\.1\.self_attn\.(q|v)_proj", ["fc1"]],
    "siglip_vision_model": [r"encoder\.layers\.\d+\.mlp\.fc[12]", ["head.mlp.fc1", "out_proj"]],
    "pixtral": [r"transformer\.layers\.\d+\.attention\.(q|v)_proj", ["feed_forward.gate_proj", "o_proj"],
                r".*layers\.1\..*_proj"],
    "esm": [r"esm\.encoder\.layer\.\d+\.attention\.self\.(query|value)", ["contact_head.regression", "out_proj"],
            r"esm\.contact_head\.regression"],
    "xmod": [r"roberta\.encoder\.layer\.\d+\.output\.adapter_modules\.de_DE\.dense[12]", ["dense1", "out_proj"]],
    "roc_bert": [r"roc_bert\.embeddings\.map_inputs_layer", ["self.query", "map_inputs_layer"]],
    "modernbert-decoder": [r"model\.layers\.[02]\.attn\.(q|v)_proj", ["attn.Wo", "head.dense"]],
    "layoutlm": [r"layoutlm\.pooler\.dense", ["self.query", "pooler.dense"]],
    "splinter": [r"splinter_qass\..*_transform\.dense", ["start_classifier", "self.value"]],
    "swin": [r"swin\.encoder\.layers\.1\.blocks\.\d+\.attention\.(q|v)_proj", ["downsample.reduction", "mlp.fc2"],
             "all-linear"],
    "swinv2": [r"swinv2\.encoder\.layers\.\d+\.blocks\.\d+\.attention\.self\.continuous_position_bias_mlp\.[02]",
               ["self.query", "output.dense"], "all-linear"],
    "donut-swin": [r"donut\.encoder\.layers\.[01]\.blocks\.\d+\.intermediate\.dense", ["self.key", "reduction"],
                   "all-linear"],
    "maskformer-swin": [r"model\.encoder\.layers\.2\.blocks\.\d+\.attention\.self\.(query|value)",
                        ["intermediate.dense", "reduction"], "all-linear"],
    "convbert": [r"convbert\.encoder\.layer\.\d+\.attention\.self\.conv_.*_layer", ["conv_out_layer", "query"]],
    "mobilebert": [r"mobilebert\.encoder\.layer\.\d+\.ffn\.1\..*dense", ["bottleneck.input.dense", "embedding_transformation"]],
    # BEiT's masked-image-modeling head: its get_output_embeddings() is None, so all-linear adapts lm_head too.
    "beit": [r"beit\.layers\.\d+\.attention\.(q|v)_proj", ["lm_head", "mlp.fc1"], "all-linear"],
    "data2vec-vision": [r"data2vec_vision\.encoder\.layer\.1\..*dense", ["attention.query", "classifier"],
                        "all-linear"],
}
ENCODER_HEADS = {"bert": "BertForSequenceClassification", "roberta": "RobertaForSequenceClassification",
                 "electra": "ElectraForSequenceClassification", "xlm-roberta-xl": "XLMRobertaXLForSequenceClassification",
                 "distilbert": "DistilBertForSequenceClassification", "vit": "ViTForImageClassification",
                 "modernbert": "ModernBertForSequenceClassification", "albert": "AlbertForSequenceClassification",
                 "clip_vision_model": "CLIPVisionModelWithProjection", "clip_text_model": "CLIPTextModelWithProjection",
                 "metaclip_2_vision_model": "MetaClip2VisionModelWithProjection",
                 "chinese_clip_text_model": "ChineseCLIPTextModel",
                 "chinese_clip_vision_model": "ChineseCLIPVisionModel",
                 "metaclip_2_text_model": "MetaClip2TextModelWithProjection",
                 "siglip_vision_model": "SiglipVisionModel", "pixtral": "PixtralVisionModel",
                 "esm": "EsmForSequenceClassification", "xmod": "XmodForSequenceClassification",
                 "roc_bert": "RoCBertForSequenceClassification",
                 "modernbert-decoder": "ModernBertDecoderForSequenceClassification",
                 "layoutlm": "LayoutLMForTokenClassification", "splinter": "SplinterForQuestionAnswering",
                 "swin": "SwinForImageClassification", "swinv2": "Swinv2ForImageClassification",
                 "donut-swin": "DonutSwinForImageClassification", "maskformer-swin": "MaskFormerSwinBackbone",
                 "mobilebert": "MobileBertForSequenceClassification",
                 "convbert": "ConvBertForSequenceClassification", "beit": "BeitForMaskedImageModeling",
                 "data2vec-vision": "Data2VecVisionForImageClassification"}


@pytest.mark.parametrize("model_type", sorted(ENCODER_TARGETS))
def test_encoder_regex_and_dotted_targets_match_peft(tmp_path, model_type):
    """A regex on an encoder's module names and dotted name targets adapt what peft adapts (they matched
    nothing where the names were taken for Llama's: model.layers.N.self_attn.query)."""
    config = {"model_type": model_type, "architectures": [ENCODER_HEADS[model_type]], **ENCODER_CONFIGS[model_type]}
    for targets in ENCODER_TARGETS[model_type]:
        text = lora_yaml(2, targets)
        expected = peft_outcome(config, 2, targets)
        report = analyze_any(tmp_path, config, text)
        if isinstance(expected, str):  # peft refuses a regex that matches a container (roberta.encoder.layer.0)
            assert report.has_errors and "not a linear layer" in str(report.problems), (targets, expected)
            continue
        assert not report.has_errors, (targets, report.problems)
        (model,) = report.models
        assert (model.tree.total, model.tree.trainable) == expected, targets


# --- vision-language models: the language model, the vision tower and the projector by their names ---------

_LLAVA_TEXT = {"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
               "intermediate_size": 32, "vocab_size": 64}
_LLAVA_CLIP = {"model_type": "clip_vision_model", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
               "intermediate_size": 16, "image_size": 32, "patch_size": 16, "projection_dim": 8}
_LLAVA_SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
                 "intermediate_size": 16, "image_size": 32, "patch_size": 16}
_QWEN3_5_TEXT = {"vocab_size": 50, "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
                 "num_hidden_layers": 4, "intermediate_size": 8, "linear_num_key_heads": 1, "linear_num_value_heads": 2,
                 "linear_key_head_dim": 4, "linear_value_head_dim": 4,
                 "layer_types": ["linear_attention", "full_attention", "linear_attention", "linear_attention"]}
_QWEN3_5_VISION = {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 8, "out_hidden_size": 16,
                   "num_position_embeddings": 4}
COMPOSITE_CONFIGS = {
    "llava": {"text_config": {"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
                              "intermediate_size": 32, "vocab_size": 64},
              "vision_config": {"model_type": "clip_vision_model", "hidden_size": 8, "num_hidden_layers": 2,
                                "num_attention_heads": 2, "intermediate_size": 16, "image_size": 32, "patch_size": 16,
                                "projection_dim": 8}},
    "gemma3": {"text_config": {"model_type": "gemma3_text", "hidden_size": 16, "num_hidden_layers": 2,
                               "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 32,
                               "vocab_size": 64},
               "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 8, "num_hidden_layers": 1,
                                 "num_attention_heads": 2, "intermediate_size": 16, "image_size": 32, "patch_size": 16},
               "mm_tokens_per_image": 4},
    "mistral3": {"text_config": {"model_type": "mistral", "hidden_size": 16, "num_hidden_layers": 2,
                                 "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 32,
                                 "vocab_size": 64},
                 "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
                                   "intermediate_size": 16, "patch_size": 4},
                 "multimodal_projector_bias": True, "tie_word_embeddings": False},
    "qwen2_5_vl": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                   "intermediate_size": 32, "vocab_size": 64,
                   "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 16,
                                     "out_hidden_size": 16}},
    "qwen2_vl": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                 "intermediate_size": 32, "vocab_size": 64,
                 "vision_config": {"depth": 2, "embed_dim": 8, "num_heads": 2, "mlp_ratio": 2, "hidden_size": 16}},
    "qwen3_vl": {"text_config": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
                                 "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 32, "vocab_size": 64},
                 "vision_config": {"depth": 3, "hidden_size": 8, "num_heads": 2, "intermediate_size": 16,
                                   "out_hidden_size": 16, "num_position_embeddings": 4,
                                   "deepstack_visual_indexes": [0, 2]}},
    # peft leaves the fused experts and the router alone (no v4 -> v5 conversion for qwen3_vl_moe)
    "qwen3_vl_moe": {"text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                                     "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64,
                                     "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8},
                     "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 16,
                                       "out_hidden_size": 16, "num_position_embeddings": 4,
                                       "deepstack_visual_indexes": [1]}},
    # Qwen3.5: hybrid text models (Gated DeltaNet layers 0, 2, 3; gated attention layer 1), Qwen3-VL's tower
    # without DeepStack mergers; peft leaves the MoE one's fused experts and router alone.
    "qwen3_5": {"text_config": _QWEN3_5_TEXT, "vision_config": _QWEN3_5_VISION},
    "qwen3_5_moe": {"text_config": {**{k: v for k, v in _QWEN3_5_TEXT.items() if k != "intermediate_size"},
                                    "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                                    "shared_expert_intermediate_size": 8},
                    "vision_config": _QWEN3_5_VISION},
    "glm4v": {"text_config": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
                              "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64},
              "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 12,
                                "out_hidden_size": 16, "image_size": 28, "attention_bias": True}},
    # Step 3.7: layers 0 and 2 full, 1 sliding with its own heads; layer 0 dense, 1 and 2 MoE with a shared expert.
    "step3p7": {"text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                                "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 32, "vocab_size": 64,
                                "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8,
                                "share_expert_dim": 8, "mlp_layer_types": ["dense", "sparse", "sparse"],
                                "layer_types": ["full_attention", "sliding_attention", "full_attention"],
                                "sliding_window": 4, "num_sliding_attention_heads": 4},
                "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
                                  "image_size": 28, "patch_size": 14}},
    # GLM-4.6V: GLM-4.5V's MoE text model (named: Glm46VConfig resolves it) under GLM-4.1V's tower.
    "glm46v": {"text_config": {"model_type": "glm4v_moe_text", "hidden_size": 16, "num_hidden_layers": 3,
                               "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 32,
                               "vocab_size": 64, "n_routed_experts": 4, "num_experts_per_tok": 2,
                               "moe_intermediate_size": 8},
               "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 12,
                                 "out_hidden_size": 16, "image_size": 28}},
    # GLM-4.5V: layer 0 dense, layers 1 and 2 MoE (peft converts the fused experts: glm4v_moe's v4 -> v5 mapping).
    "glm4v_moe": {"text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                                  "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64,
                                  "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 8},
                  "vision_config": {"depth": 2, "hidden_size": 8, "num_heads": 2, "intermediate_size": 12,
                                    "out_hidden_size": 16, "image_size": 28}},
    # Llama 3.2 Vision: layer 1 cross-attends; 2 local and 1 global vision layers; the projector a Linear of its own.
    "mllama": {"text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                               "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64, "pad_token_id": 0,
                               "cross_attention_layers": [1]},
               "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_global_layers": 1,
                                 "attention_heads": 2, "intermediate_size": 16, "vision_output_dim": 24,
                                 "image_size": 28, "patch_size": 14}},
    # The classes built on the llava layout (LLaVA's tower and text model; their projectors and extra parts).
    "llava_next": {"text_config": _LLAVA_TEXT, "vision_config": _LLAVA_CLIP},
    "llava_onevision": {"text_config": {**_LLAVA_TEXT, "model_type": "qwen2", "num_key_value_heads": 1},
                        "vision_config": _LLAVA_SIGLIP, "vision_feature_layer": [-2, -1]},
    "llava_next_video": {"text_config": _LLAVA_TEXT, "vision_config": _LLAVA_CLIP, "spatial_pool_mode": "conv"},
    "vipllava": {"text_config": _LLAVA_TEXT, "vision_config": _LLAVA_CLIP, "vision_feature_layers": [-1, -2]},
    "paligemma": {"text_config": {**_LLAVA_TEXT, "model_type": "gemma", "head_dim": 8, "num_key_value_heads": 1},
                  "vision_config": _LLAVA_SIGLIP, "projection_dim": 16, "tie_word_embeddings": False},
    "aya_vision": {"text_config": {**_LLAVA_TEXT, "model_type": "cohere2"}, "vision_config": _LLAVA_SIGLIP,
                   "alignment_intermediate_size": 12, "tie_word_embeddings": False},
    "cohere2_vision": {"text_config": {**_LLAVA_TEXT, "model_type": "cohere2"}, "vision_config": _LLAVA_SIGLIP,
                       "alignment_intermediate_size": 12, "tie_word_embeddings": False},
    "deepseek_vl": {"text_config": _LLAVA_TEXT, "vision_config": _LLAVA_SIGLIP, "tie_word_embeddings": False},
    # GOT-OCR2: two vision layers (layer 1 global), the neck and the projector's convolutions (no linears) and its linear.
    "got_ocr2": {"text_config": {**_LLAVA_TEXT, "model_type": "qwen2", "num_key_value_heads": 1},
                 "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "mlp_dim": 16,
                                   "output_channels": 4, "image_size": 32, "patch_size": 8, "window_size": 2,
                                   "global_attn_indexes": [1]}, "tie_word_embeddings": False},
    # LFM2-VL: an LFM2 text model of conv and attention layers, a SigLIP-2 tower, the projector's LayerNorm and linears.
    "lfm2_vl": {"text_config": {"model_type": "lfm2", "hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                                "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64,
                                "layer_types": ["conv", "full_attention", "conv"]},
                "vision_config": {"model_type": "siglip2_vision_model", "hidden_size": 8, "num_hidden_layers": 2,
                                  "num_attention_heads": 2, "intermediate_size": 16, "patch_size": 4, "num_patches": 9},
                "projector_hidden_size": 12, "tie_word_embeddings": False},
    "internvl": {"text_config": {**_LLAVA_TEXT, "model_type": "qwen2", "num_key_value_heads": 1},
                 "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
                                   "intermediate_size": 16, "image_size": 32, "patch_size": 16, "use_qk_norm": True},
                 "tie_word_embeddings": False},
    "idefics3": {"text_config": _LLAVA_TEXT, "vision_config": {**_LLAVA_SIGLIP, "model_type": "idefics3_vision"}},
    "smolvlm": {"text_config": {**_LLAVA_TEXT, "tie_word_embeddings": True}, "scale_factor": 1,
                "vision_config": {**_LLAVA_SIGLIP, "model_type": "smolvlm_vision"}, "tie_word_embeddings": False},
    "clip": {"text_config": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32,
                             "vocab_size": 50, "max_position_embeddings": 16, "bos_token_id": 0, "eos_token_id": 1,
                             "pad_token_id": 1},
             "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                               "intermediate_size": 16, "image_size": 32, "patch_size": 16},
             "projection_dim": 8},
}
# Gemma 4: a text model of two kinds of layer (sliding and full), per-layer inputs and the MoE block, both towers
# (their clippable linears: q_proj.linear) and the embedders' embedding_projection.
COMPOSITE_CONFIGS["gemma4"] = {
    "text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
                    "head_dim": 8, "global_head_dim": 4, "intermediate_size": 32, "vocab_size": 64,
                    "hidden_size_per_layer_input": 4, "vocab_size_per_layer_input": 64,
                    "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
                    "enable_moe_block": True, "num_experts": 2, "moe_intermediate_size": 4, "top_k_experts": 1},
    "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                      "head_dim": 4, "intermediate_size": 12, "patch_size": 4, "position_embedding_size": 10},
    "audio_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "subsampling_conv_channels": [8, 4],
                     "conv_kernel_size": 3, "output_proj_dims": 12}}
# MetaCLIP 2: CLIP's classes under new names. Chinese-CLIP: a BERT text tower.
COMPOSITE_CONFIGS["metaclip_2"] = COMPOSITE_CONFIGS["clip"]
COMPOSITE_CONFIGS["chinese_clip"] = {**COMPOSITE_CONFIGS["clip"], "text_config": {
    "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 50,
    "max_position_embeddings": 16, "pad_token_id": 0}}
COMPOSITE_CONFIGS["siglip"] = {
    "text_config": {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32,
                    "vocab_size": 50, "max_position_embeddings": 16, "projection_size": 8},
    "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16,
                      "image_size": 32, "patch_size": 16}}
COMPOSITE_CONFIGS["siglip2"] = {
    "text_config": COMPOSITE_CONFIGS["siglip"]["text_config"],
    "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16,
                      "patch_size": 4, "num_patches": 9}}
COMPOSITE_CLASSES = {"siglip": ("SiglipModel", "SiglipForImageClassification"),
                     "siglip2": ("Siglip2Model", "Siglip2ForImageClassification"),
                     "llava": ("LlavaForConditionalGeneration", "LlavaModel"),
                     "gemma3": ("Gemma3ForConditionalGeneration", "Gemma3Model"),
                     "mistral3": ("Mistral3ForConditionalGeneration", "Mistral3Model"),
                     "qwen2_5_vl": ("Qwen2_5_VLForConditionalGeneration", "Qwen2_5_VLModel"),
                     "qwen2_vl": ("Qwen2VLForConditionalGeneration", "Qwen2VLModel"),
                     "qwen3_vl": ("Qwen3VLForConditionalGeneration", "Qwen3VLModel"),
                     "qwen3_vl_moe": ("Qwen3VLMoeForConditionalGeneration", "Qwen3VLMoeModel"),
                     "qwen3_5": ("Qwen3_5ForConditionalGeneration", "Qwen3_5Model", "Qwen3_5ForSequenceClassification",
                                 "Qwen3_5ForTokenClassification"),
                     "qwen3_5_moe": ("Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeModel"),
                     "glm4v": ("Glm4vForConditionalGeneration", "Glm4vModel"),
                     "mllama": ("MllamaForConditionalGeneration", "MllamaModel"),
                     "gemma4": ("Gemma4ForConditionalGeneration", "Gemma4Model"),
                     "glm4v_moe": ("Glm4vMoeForConditionalGeneration", "Glm4vMoeModel"),
                     "glm46v": ("Glm46VForConditionalGeneration", "Glm46VModel"),
                     "step3p7": ("Step3p7ForConditionalGeneration", "Step3p7Model"),
                     "clip": ("CLIPModel", "CLIPForImageClassification"),
                     "metaclip_2": ("MetaClip2Model", "MetaClip2ForImageClassification"),
                     "chinese_clip": ("ChineseCLIPModel",),
                     **{mt: (f"{prefix}ForConditionalGeneration", f"{prefix}Model") for mt, prefix in (
                         ("llava_next", "LlavaNext"), ("llava_onevision", "LlavaOnevision"),
                         ("llava_next_video", "LlavaNextVideo"), ("vipllava", "VipLlava"), ("paligemma", "PaliGemma"),
                         ("aya_vision", "AyaVision"), ("idefics3", "Idefics3"), ("smolvlm", "SmolVLM"),
                         ("internvl", "InternVL"), ("cohere2_vision", "Cohere2Vision"), ("lfm2_vl", "Lfm2Vl"),
                         ("deepseek_vl", "DeepseekVL"), ("got_ocr2", "GotOcr2"))}}
# The composites of session 66, their small configs as their unit tests count them by hand.
_QWEN3_TEXT = {"model_type": "qwen3", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
               "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8, "vocab_size": 40}
COMPOSITE_CONFIGS.update({
    # Aria: an Idefics3 tower, the projector's cross-attention (its nn.MultiheadAttention's out_proj a Linear), MoE text.
    "aria": {"text_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8,
                             "moe_num_experts": 2, "moe_topk": 1, "vocab_size": 40, "pad_token_id": 0},
             "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                               "intermediate_size": 12, "image_size": 28, "patch_size": 14}},
    "exaone4_5": {"text_config": {"model_type": "exaone4", "hidden_size": 16, "num_hidden_layers": 2,
                                  "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 8,
                                  "vocab_size": 40},
                  "vision_config": {"hidden_size": 16, "depth": 1, "num_heads": 4, "num_key_value_heads": 2,
                                    "intermediate_size": 12, "out_hidden_size": 16, "patch_size": 2}},
    "glm_ocr": {"text_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                                "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 40},
                "vision_config": {"hidden_size": 16, "depth": 1, "num_heads": 4, "intermediate_size": 12,
                                  "out_hidden_size": 16, "patch_size": 2}},
    "lighton_ocr": {"text_config": _QWEN3_TEXT,
                    "vision_config": {"model_type": "pixtral", "hidden_size": 16, "num_hidden_layers": 1,
                                      "num_attention_heads": 2, "intermediate_size": 12, "head_dim": 8,
                                      "patch_size": 2, "image_size": 8}},
    "llava_onevision1_5": {"text_config": _QWEN3_TEXT,
                           "vision_config": {"hidden_size": 16, "depth": 1, "num_heads": 2, "intermediate_size": 12,
                                             "out_hidden_size": 16, "patch_size": 2}},
    "qianfan_ocr": {"text_config": _QWEN3_TEXT,
                    "vision_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                                      "intermediate_size": 12, "image_size": 28, "patch_size": 14}},
    "video_llama_3": {"text_config": {**_QWEN3_TEXT, "model_type": "qwen2"},
                      "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                        "intermediate_size": 12, "patch_size": 2}},
    # Kimi K2.5: its tower's layers (attn.q_proj, mlp.fc1), mm_projector, a DeepSeek-V3 text model (a dense layer, then
    # experts: their shared experts' linears, the router a parameter).
    "kimi_k25": {"text_config": {"model_type": "deepseek_v3", "hidden_size": 16, "num_hidden_layers": 2,
                                 "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 8,
                                 "moe_intermediate_size": 4, "n_routed_experts": 2, "num_experts_per_tok": 1,
                                 "first_k_dense_replace": 1, "vocab_size": 40, "kv_lora_rank": 4, "q_lora_rank": None,
                                 "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4, "n_group": 1,
                                 "topk_group": 1},
                 "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                   "intermediate_size": 12, "patch_size": 2, "pos_emb_height": 3, "pos_emb_width": 4},
                 "projection_hidden_size": 8},
    "paddleocr_vl": {"text_config": {k: v for k, v in _QWEN3_TEXT.items() if k != "model_type"},
                     "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                       "intermediate_size": 12, "patch_size": 2, "image_size": 8}},
    # Mistral Large 4 (session 67): layers with and without an indexer (its wq_b, wk, weights_proj), one reading
    # layer 0's latent (no kv_a_proj_with_mqa), a NoPE one, dense and MoE (fused experts, a parameter router).
    "mistral_large4": {"text_config": {"hidden_size": 16, "num_hidden_layers": 3, "num_attention_heads": 2,
                                       "num_key_value_heads": 2, "intermediate_size": 8, "vocab_size": 40,
                                       "moe_intermediate_size": 4, "n_routed_experts": 2, "num_experts_per_tok": 1,
                                       "kv_lora_rank": 4, "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4,
                                       "index_n_heads": 2, "index_head_dim": 4, "index_topk_pattern": "FSF",
                                       "kv_source_layers": [0, 0, 2], "no_rope_layers": [1, 1, 0]},
                       "vision_config": {"hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                                         "intermediate_size": 12, "head_dim": 8, "patch_size": 2, "image_size": 8}},
    # Cosmos3 Edge (session 67): its text model's fc1 / fc2, the tower at visual, the projector's linear_fc1 / fc2.
    "cosmos3_edge": {"text_config": {**{k: v for k, v in _QWEN3_TEXT.items() if k != "model_type"},
                                     "rope_parameters": {"mrope_section": [2, 1, 1]}},
                     "vision_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                       "intermediate_size": 12, "patch_size": 2, "num_patches": 16},
                     "projector_hidden_size": 6},
})
COMPOSITE_CLASSES.update({
    "aria": ("AriaForConditionalGeneration", "AriaModel"),
    "exaone4_5": ("Exaone4_5_ForConditionalGeneration", "Exaone4_5_Model"),
    "glm_ocr": ("GlmOcrForConditionalGeneration", "GlmOcrModel"),
    "lighton_ocr": ("LightOnOcrForConditionalGeneration", "LightOnOcrModel"),
    "llava_onevision1_5": ("LlavaOnevision15ForConditionalGeneration", "LlavaOnevision15Model"),
    "qianfan_ocr": ("QianfanOCRForConditionalGeneration", "QianfanOCRModel"),
    "video_llama_3": ("VideoLlama3ForConditionalGeneration", "VideoLlama3Model"),
    "kimi_k25": ("Kimi_K25ForConditionalGeneration", "Kimi_K25Model"),
    "paddleocr_vl": ("PaddleOCRVLForConditionalGeneration", "PaddleOCRVLModel"),
    "cosmos3_edge": ("Cosmos3EdgeForConditionalGeneration", "Cosmos3EdgeModel"),
    "mistral_large4": ("MistralLarge4ForConditionalGeneration", "MistralLarge4Model"),
})
# Llama 4: the whole Llama4ForCausalLM at the class's top (language_model.model.layers.N..., language_model.lm_head),
# layers 1 and 3 MoE (their shared expert and nn.Linear router), the tower (vision_model.model.layers.N..., its
# patch_embedding.linear and vision_adapter.mlp.fc1 / fc2) and multi_modal_projector.linear_1.
COMPOSITE_CONFIGS["llama4"] = {
    "text_config": {"hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 1,
                    "head_dim": 8, "intermediate_size": 8, "intermediate_size_mlp": 24, "vocab_size": 64,
                    "num_local_experts": 3, "interleave_moe_layer_step": 2, "pad_token_id": 0},
    "vision_config": {"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 12,
                      "image_size": 28, "patch_size": 14, "projector_input_dim": 8, "projector_output_dim": 6,
                      "vision_output_dim": 10}}
COMPOSITE_CLASSES["llama4"] = ("Llama4ForConditionalGeneration",)
# Qwen2-Audio / Voxtral: the Whisper-shaped audio tower, the projector (Qwen2-Audio's linear, Voxtral's linear_1 from
# the tower's intermediate_size and linear_2), the text model.
_AUDIO_TOWER = {"d_model": 8, "encoder_layers": 2, "encoder_attention_heads": 2, "encoder_ffn_dim": 12, "num_mel_bins": 4,
                "max_source_positions": 8}
COMPOSITE_CONFIGS["qwen2_audio"] = {"text_config": {**_LLAVA_TEXT, "model_type": "qwen2", "num_key_value_heads": 1},
                                    "audio_config": _AUDIO_TOWER}
COMPOSITE_CONFIGS["voxtral"] = {"text_config": {**_LLAVA_TEXT, "num_key_value_heads": 1, "head_dim": 8},
                                "audio_config": _AUDIO_TOWER}
COMPOSITE_CLASSES.update({"qwen2_audio": ("Qwen2AudioForConditionalGeneration", "Qwen2AudioModel"),
                          "voxtral": ("VoxtralForConditionalGeneration", "VoxtralModel")})
# Granite Speech: the conformer encoder, the Q-Former (layers 0 and 3 cross-attend of 5) and its linear, Granite's text.
COMPOSITE_CONFIGS["granite_speech"] = {
    "text_config": {**_LLAVA_TEXT, "model_type": "granite", "num_key_value_heads": 1},
    "encoder_config": {"input_dim": 6, "num_layers": 2, "hidden_dim": 8, "num_heads": 2, "output_dim": 5,
                       "context_size": 4, "max_pos_emb": 6, "conv_kernel_size": 3},
    "projector_config": {"hidden_size": 8, "num_hidden_layers": 5, "num_attention_heads": 2, "intermediate_size": 12,
                         "encoder_hidden_size": 8, "cross_attention_frequency": 3}}
COMPOSITE_CLASSES["granite_speech"] = ("GraniteSpeechForConditionalGeneration", "GraniteSpeechModel")


@pytest.mark.parametrize("model_type,architecture",
                         [(mt, arch) for mt in sorted(COMPOSITE_CLASSES) for arch in COMPOSITE_CLASSES[mt]])
def test_composite_module_paths_are_transformers_s(model_type, architecture):
    """Every linear module of a vision-language model lsp-count adapts has transformers' full name
    (model.language_model.layers.N.self_attn.q_proj, model.vision_tower.encoder.layers.N..., model.visual.blocks.N.attn.qkv),
    and what transformers holds as a bare parameter (Gemma 3's mm_input_projection_weight, SigLIP's packed in_proj) is no
    linear layer here either."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    from lsp_count.formats import lora

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    retrievers = {mt for mt, family in registry().items() if family.layout == "retrieval"}
    assert set(COMPOSITE_CONFIGS) == set(lora.COMPOSITE_PATHS) | retrievers
    config = {"model_type": model_type, "architectures": [architecture], **COMPOSITE_CONFIGS[model_type]}
    with torch.device("meta"):
        model = getattr(transformers, architecture)(CONFIG_MAPPING[model_type].from_dict(dict(config)))
    built = analyze_text(json.dumps(config), "model/config.json").models[0]
    indices = lora_layer_indices(built.spec)  # a hybrid text model's kinds of layer (Qwen3.5's)
    vlm_type = lora.vlm_model_type(built.spec)
    if vlm_type is not None:  # (a vision-language model's bare class under vlm: its own model_type's names)
        namer = lora.module_namer(built.tree, model_type, layer_indices=indices, vlm_type=vlm_type)
        ours = _adapted_names(config, lambda path, t, mult: namer(path, t.module, mult, t.name))
    else:
        ours = _adapted_names(config, lambda path, t, mult: lora._composite_paths(
            path, t.name, mult, lora.COMPOSITE_PATHS[model_type], indices))
    assert len(ours) == len(set(ours))
    assert set(ours) == _linear_names(model)


_QWEN3_5_TARGETS = (r"model\.language_model\.layers\.[13]\.(linear_attn|self_attn)\.(in_proj_qkv|q_proj|out_proj|o_proj)",
                    r"model\.language_model\.layers\.1\.self_attn\.[qk]_proj", ["in_proj_z", "in_proj_b", "linear_fc1"],
                    r"model\.visual\.(blocks\.1|merger)\.linear_fc\d")
VLM_TARGETS = (None, ["q_proj", "v_proj"], r"model\.language_model\.layers\.\d+\.self_attn\.(q|v)_proj",
               r".*language_model.*\.(q_proj|v_proj|down_proj)", r"model\.language_model\.layers\.\d+\.mlp\..*_proj")
# CLIPModel: a regex over one tower (text_model.encoder.layers.N..., vision_model...), and the projections by name.
COMPOSITE_TARGETS = {**{mt: (None, ["q_proj", "v_proj"], r"text_model\.encoder\.layers\.\d+\.self_attn\.(q|v)_proj",
                             r".*vision_model.*\.(q_proj|fc2)", ["visual_projection", "text_projection", "fc1"])
                        for mt in ("clip", "metaclip_2")},
                     "chinese_clip": (None, ["query", "v_proj"],
                                      r"text_model\.encoder\.layer\.\d+\.attention\.self\.key",
                                      ["visual_projection", "text_projection", "intermediate.dense"]),
                     # SigLIP: the towers' own heads (text_model.head, the vision pooling head's out_proj and MLP).
                     **{mt: (None, ["q_proj", "v_proj"], r"text_model\.encoder\.layers\.\d+\.self_attn\.(q|v)_proj",
                             r".*vision_model.*\.(q_proj|fc2)", ["text_model.head", "out_proj", "fc1"])
                        for mt in ("siglip", "siglip2")},
                     "siglip2": (r"vision_model\.embeddings\.patch_embedding", ["patch_embedding", "q_proj"]),
                     # Qwen3-VL: the DeepStack mergers (and the merger) by regex and by name; Qwen3-VL-MoE's MLPs
                     # are fused experts here, which no mlp.*_proj regex reaches (peft refuses it as matching nothing).
                     # Mistral 3: the Pixtral tower's and the projector's linears by regex and by name.
                     # GLM-4.5V: peft's MoE conversion turns the fused experts' names into parameter targets, and a
                     # regex into the leaf names it matches (blocks.1's qkv: every block's). (Not all-linear, nor a
                     # name or regex reaching "proj": converted to names, "proj" also reaches the tower's Conv3d
                     # patch_embed.proj, which peft adapts by name and lsp-count says it leaves out:
                     # test_a_convolution_peft_adapts_is_said_and_only_it_left_out.)
                     "glm46v": VLM_TARGETS[1:] + (["q_proj", "gate_proj", "up_proj", "down_proj"],
                                                  r"model\.visual\.blocks\.1\.attn\.qkv"),
                     "glm4v_moe": VLM_TARGETS[1:] + (["q_proj", "gate_proj", "up_proj", "down_proj"],
                                                     r"model\.visual\.blocks\.1\.attn\.qkv"),
                     "mistral3": VLM_TARGETS + (r"model\.vision_tower\.transformer\.layers\.\d+\.attention\.(q|o)_proj",
                                                r"model\.multi_modal_projector\.(linear_\d|patch_merger\.merging_layer)",
                                                ["merging_layer", "linear_1"]),
                     "qwen3_vl": VLM_TARGETS + (r"model\.visual\.deepstack_merger_list\.\d+\.linear_fc\d", ["linear_fc2"]),
                     # The llava layout's: a regex over the tower, the projector's linears by regex and by name.
                     **{mt: VLM_TARGETS + (r"model\.vision_tower\.encoder\.layers\.\d+\.self_attn\.(q|out)_proj",
                                           r"model\.multi_modal_projector\.linear.*", [name, "fc1"])
                        for mt, name in (("llava_next", "linear_1"), ("llava_onevision", "linear_2"),
                                         ("llava_next_video", "linear_1"), ("vipllava", "linear_1"),
                                         ("paligemma", "linear"), ("aya_vision", "linear_2"),
                                         ("cohere2_vision", "linear_1"))},
                     # GOT-OCR2: its tower's layers (attn.qkv / proj, mlp.lin1 / lin2), the projector's linear.
                     "got_ocr2": VLM_TARGETS + (r"model\.vision_tower\.layers\.\d+\.attn\.(qkv|proj)",
                                                r"model\.multi_modal_projector\.multimodal_projector", ["lin1", "qkv"]),
                     # DeepSeek-VL: the tower at vision_model, the aligner's linear1 / linear2.
                     "deepseek_vl": VLM_TARGETS + (r"model\.vision_model\.encoder\.layers\.\d+\.self_attn\.(q|out)_proj",
                                                   r"model\.aligner\.linear\d", ["linear1", "fc1"]),
                     # LFM2-VL: its text model's conv and attention layers (numbered across their kinds) and feed_forward.
                     "lfm2_vl": VLM_TARGETS[:4] + (r"model\.language_model\.layers\.[01]\.(conv|self_attn)\.(in_proj|out_proj|q_proj)",
                                                   r"model\.language_model\.layers\.\d+\.feed_forward\.w\d",
                                                   r"model\.vision_tower\.encoder\.layers\.\d+\.self_attn\.(q|out)_proj",
                                                   r"model\.multi_modal_projector\.linear.*", ["linear_2", "w1", "in_proj"]),
                     # Idefics3 / SmolVLM: vision_model, the connector's proj, text_model.
                     **{mt: (None, ["q_proj", "v_proj"], r"model\.text_model\.layers\.\d+\.self_attn\.(q|v)_proj",
                             r".*text_model.*\.(q_proj|v_proj|down_proj)",
                             r"model\.vision_model\.encoder\.layers\.\d+\.(self_attn\.q_proj|mlp\.fc2)",
                             r"model\.connector\.modality_projection\.proj", ["proj", "out_proj"])
                        for mt in ("idefics3", "smolvlm")},
                     "internvl": VLM_TARGETS + (r"model\.vision_tower\.encoder\.layer\.\d+\.attention\.(q_proj|projection_layer)",
                                                r"model\.multi_modal_projector\.linear_\d", ["projection_layer", "fc2"]),
                     # Qwen3.5: layers numbered across their kinds (layer 1 the attention one), the Gated DeltaNet's
                     # projections, the tower's linears; the MoE one's shared expert (mlp.shared_expert.*).
                     "qwen3_5": VLM_TARGETS + _QWEN3_5_TARGETS,
                     "qwen3_5_moe": VLM_TARGETS + _QWEN3_5_TARGETS + (r".*layers\.[13]\.mlp\.shared_expert\.(gate|down)_proj",
                                                                      ["shared_expert_gate", "up_proj"]),
                     "qwen3_vl_moe": VLM_TARGETS[:4] + (r"model\.visual\.(deepstack_merger_list\.1|merger)\.linear_fc1",
                                                        ["linear_fc1", "o_proj"]),
                     # Gemma 4: q_proj and v_proj by name also reach the towers' Gemma4ClippableLinear modules, which
                     # peft refuses (tests/parity/test_gemma4_parity.py): the towers' nn.Linear ("linear") by name and
                     # regex, the text model's layers by regex (numbered across its kinds), the projections by name.
                     "gemma4": (None, VLM_TARGETS[2], VLM_TARGETS[3], VLM_TARGETS[4], ["linear", "relative_k_proj"],
                                r"model\.language_model\.layers\.[12]\.(self_attn\.q_proj|router\.proj|per_layer_input_gate)",
                                r"model\.(vision|audio)_tower\..*\.(q_proj|ffw_layer_1|linear_start)\.linear",
                                ["embedding_projection", "input_proj", "input_proj_linear", "output_proj"])}
# Llama 4: its modules sit at the class's top (no model.): regexes over the text model's layers (dense and MoE), the
# tower and the projector; names reaching the router, the adapter and the head.
COMPOSITE_TARGETS["llama4"] = (
    None, ["q_proj", "v_proj"], r"language_model\.model\.layers\.\d+\.self_attn\.(q|v)_proj",
    r".*language_model.*\.(q_proj|v_proj|down_proj)", r"language_model\.model\.layers\.[12]\.feed_forward\..*_proj",
    r"vision_model\.model\.layers\.\d+\.(self_attn\.q_proj|mlp\.fc2)",
    r"multi_modal_projector\.linear_1|vision_model\.(patch_embedding\.linear|vision_adapter\.mlp\.fc\d)",
    ["linear_1", "fc1", "router", "lm_head"], r"language_model\.lm_head")
# A regex over the audio tower, the projector's linears by regex and by name (the tower's fc1 by name too).
COMPOSITE_TARGETS.update({mt: VLM_TARGETS + (r"model\.audio_tower\.layers\.\d+\.self_attn\.(k|out)_proj",
                                             r"model\.multi_modal_projector\.linear.*", [name, "fc1"])
                          for mt, name in (("qwen2_audio", "linear"), ("voxtral", "linear_2"))})
# Granite Speech: regexes over the encoder's blocks and the Q-Former's layers of both kinds; names of their linears.
# Cosmos3 Edge: its text model's MLP is fc1 / fc2 (no *_proj); the tower at visual (its patch embedding a Linear), the
# projector's linear_fc1 / linear_fc2.
COMPOSITE_TARGETS["cosmos3_edge"] = VLM_TARGETS[:4] + (
    r"model\.language_model\.layers\.\d+\.mlp\.fc\d", r"model\.visual\.encoder\.layers\.\d+\.(self_attn\.q_proj|mlp\.fc2)",
    r"model\.projector\.linear_fc\d|model\.visual\.embeddings\.patch_embedding", ["linear_fc1", "fc1", "lm_head"])
# Mistral Large 4: its latent attention's and indexer's linears by regex and by name, the projector's merging layer.
COMPOSITE_TARGETS["mistral_large4"] = VLM_TARGETS[:2] + (
    r"model\.language_model\.layers\.\d+\.self_attn\.(q_proj|kv_a_proj_with_mqa|kv_b_proj)",
    r".*language_model.*\.(indexer\.(wq_b|wk|weights_proj)|down_proj)", r"model\.language_model\.layers\.\d+\.mlp\..*_proj",
    ["merging_layer", "linear_1", "wq_b", "o_proj"])
COMPOSITE_TARGETS["granite_speech"] = VLM_TARGETS + (
    r"model\.encoder\.layers\.\d+\.(attn\.to_q|ff2\.up_proj)|model\.encoder\.out_mid",
    r"model\.projector\.qformer\.encoder\.layer\.[134]\.(attention|crossattention)\.attention\.(key|value)",
    ["to_kv", "query", "dense", "linear"])


# GLM-4.1V-Thinking's own model_type: GLM-4.6V's classes (not among the types peft's MoE conversion covers).
COMPOSITE_CONFIGS["glmga"] = COMPOSITE_CONFIGS["glm46v"]
COMPOSITE_CLASSES["glmga"] = COMPOSITE_CLASSES["glm46v"]
COMPOSITE_TARGETS["glmga"] = COMPOSITE_TARGETS["glm46v"]
# ColPali / ColQwen2: a vision-language model's bare class at vlm (vlm.language_model.layers.N...), its projection
# embedding_proj_layer at the top; colpali-engine's own pattern among the regexes.
_COLVISION_TARGETS = (None, ["q_proj", "v_proj"], r"vlm\.language_model\.layers\.\d+\.self_attn\.(q|v)_proj",
                      r"(.*(language_model).*(down_proj|gate_proj|up_proj|k_proj|q_proj|v_proj|o_proj).*$"
                      r"|.*(embedding_proj_layer).*$)")
for _retriever, _vlm, _architecture, _names in (
        ("colpali", "paligemma", "ColPaliForRetrieval", ["embedding_proj_layer", "out_proj"]),
        ("colqwen2", "qwen2_vl", "ColQwen2ForRetrieval", ["embedding_proj_layer", "qkv"])):
    COMPOSITE_CONFIGS[_retriever] = {"vlm_config": {"model_type": _vlm, **COMPOSITE_CONFIGS[_vlm]}, "embedding_dim": 8}
    COMPOSITE_CLASSES[_retriever] = (_architecture,)
    COMPOSITE_TARGETS[_retriever] = _COLVISION_TARGETS + (_names,)
# PP-Chart2Table: GOT-OCR2's classes.
COMPOSITE_CONFIGS["pp_chart2table"] = COMPOSITE_CONFIGS["got_ocr2"]
COMPOSITE_CLASSES["pp_chart2table"] = COMPOSITE_CLASSES["got_ocr2"]
COMPOSITE_TARGETS["pp_chart2table"] = COMPOSITE_TARGETS["got_ocr2"]


@pytest.mark.parametrize("model_type", sorted(COMPOSITE_CONFIGS))
def test_composite_targets_match_peft(tmp_path, model_type):
    """all-linear, names, and the regexes that keep LoRA off the vision tower (axolotl's multimodal pattern:
    model.language_model.layers...) adapt what peft adapts; the regexes matched nothing before."""
    config = {"model_type": model_type, "architectures": [COMPOSITE_CLASSES[model_type][0]],
              **COMPOSITE_CONFIGS[model_type]}
    for targets in COMPOSITE_TARGETS.get(model_type, VLM_TARGETS):
        text = lora_yaml(2, targets)
        expected = peft_outcome(config, 2, "all-linear" if targets is None else targets)
        report = analyze_any(tmp_path, config, text)
        assert not isinstance(expected, str), (targets, expected)
        assert not report.has_errors, (targets, report.problems)
        (model,) = report.models
        assert (model.tree.total, model.tree.trainable) == expected, targets


@pytest.mark.parametrize("pattern", [r"model\.language_model\.layers\.[02]\.mlp\..*_proj",
                                     r"model\.language_model\.layers\.[12]\.(self_attn\.q_proj|mlp\.gate_proj)"])
def test_a_regex_naming_layers_of_a_vision_language_text_stack_of_two_kinds(tmp_path, pattern):
    """Qwen3-VL-MoE's dense layers (mlp_only_layers 0 and 2) between its MoE ones: a regex naming layer numbers adapts
    those layers' modules (model.language_model.layers.2.mlp.gate_proj), numbered as transformers numbers them, not
    each kind's from 0."""
    config = {"model_type": "qwen3_vl_moe", "architectures": ["Qwen3VLMoeForConditionalGeneration"],
              "text_config": {**COMPOSITE_CONFIGS["qwen3_vl_moe"]["text_config"], "num_hidden_layers": 4,
                              "mlp_only_layers": [0, 2]},
              "vision_config": COMPOSITE_CONFIGS["qwen3_vl_moe"]["vision_config"]}
    report = analyze_any(tmp_path, config, lora_yaml(2, pattern))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 2, pattern)


@pytest.mark.parametrize("model_type, keys", [
    ("qwen2_moe", {"decoder_sparse_step": 2, "mlp_only_layers": [3]}),
    ("ernie4_5_moe", {"moe_layer_start_index": 1, "moe_layer_end_index": -1, "moe_layer_interval": 2}),
    ("llama4_text", {"moe_layers": [1, 2]}),
])
@pytest.mark.parametrize("pattern", [r".*layers\.1\.(self_attn|mlp|feed_forward)\..*_proj",
                                     r".*layers\.[02]\.(mlp|feed_forward)\..*_proj", r".*\.(0|3)\.self_attn\.[qv]_proj"])
def test_a_regex_naming_layers_of_an_interleaved_moe_stack_adapts_those_layers(tmp_path, model_type, keys, pattern):
    """Dense and MoE layers interleave (every second one, an interval, a list): a regex naming layer numbers
    adapts the modules of those layers, as peft matches transformers' names (model.layers.1.mlp.gate_proj)."""
    config = {"model_type": model_type, "architectures": [registry()[model_type].architecture], "hidden_size": 16,
              "intermediate_size": 32, "moe_intermediate_size": 8, "shared_expert_intermediate_size": 8,
              "intermediate_size_mlp": 32, "num_hidden_layers": 4, "num_attention_heads": 2,
              "num_key_value_heads": 1, "head_dim": 8, "vocab_size": 64, "num_experts": 4, "num_local_experts": 4,
              "num_experts_per_tok": 2, "moe_num_experts": 4, "moe_k": 2, "pad_token_id": 0, **keys}
    config = {k: v for k, v in config.items() if k in _accepted_keys(model_type) or k in ("model_type", "architectures")}
    report = analyze_any(tmp_path, config, lora_yaml(2, pattern))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 2, pattern)


def _accepted_keys(model_type: str) -> set[str]:
    """The keys ``model_type``'s config class saves (so a shared dict of keys gives each class its own)."""
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[model_type]
    return set(cls().to_dict()) | set(getattr(cls, "attribute_map", {}))


@pytest.mark.parametrize("model_type,targets", [("glm4v_moe", None), ("glm4v", ["proj", "q_proj"]),
                                                ("qwen2_vl", ["proj"]), ("qwen2_5_vl", r".*visual\.patch_embed\.proj|.*q_proj")])
def test_a_convolution_peft_adapts_is_said_and_only_it_left_out(tmp_path, model_type, targets):
    """A name or regex reaching a convolution (the vision towers' Conv3d patch_embed.proj; GLM-4.5V's all-linear, which
    peft's MoE conversion turns into names, "proj" among them): peft adapts it with LoRA convolutions, which lsp-count
    says it leaves out; the rest of the count is peft's."""
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    config = {"model_type": model_type, "architectures": [COMPOSITE_CLASSES[model_type][0]],
              **COMPOSITE_CONFIGS[model_type]}
    with torch.device("meta"):
        model = getattr(transformers, config["architectures"][0])(CONFIG_MAPPING[model_type].from_dict(dict(config)))
        peft_model = get_peft_model(model, LoraConfig(r=2, target_modules="all-linear" if targets is None else targets))
    trainable = {name: p.numel() for name, p in peft_model.named_parameters() if p.requires_grad}
    conv = sum(n for name, n in trainable.items() if "patch_embed.proj.lora_" in name)
    assert conv > 0
    report = analyze_any(tmp_path, config, lora_yaml(2, targets))
    assert not report.has_errors, report.problems
    assert any("peft also adapts model.visual.patch_embed.proj, a convolution" in p.message
               for p in report.problems if p.severity == "warning"), report.problems
    (ours,) = report.models
    assert ours.tree.trainable == sum(trainable.values()) - conv
