"""MiniMax (MiniMax-Text-01: lightning attention and attention layers, experts in every layer), without torch: small
configs counted by hand (each total also what transformers 5.25 builds on the meta device), the class defaults'
totals (taken there once), configs its config class refuses, the cache (keys and values for the attention layers,
a head_dim × head_dim state per head for the lightning layers, in the model's dtype) and LoRA on the lightning
attention's projections."""

from __future__ import annotations

import json

import pytest
from config_models import errors
from config_models import model as count

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

# vocab 50, hidden 16; 2 heads of 8, 1 key/value head; experts 24 wide; layers: lightning, attention, lightning.
MINIMAX = {"model_type": "minimax", "architectures": ["MiniMaxForCausalLM"], "vocab_size": 50, "pad_token_id": 0,
           "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
           "num_hidden_layers": 3, "intermediate_size": 24, "num_local_experts": 4, "num_experts_per_tok": 2,
           "block_size": 4, "layer_types": ["linear_attention", "full_attention", "linear_attention"]}
EMBED = 50 * 16
# the lightning attention: an RMSNorm over the 2 × 8 heads' output, qkv_proj 16 → 3 × 16, out_proj 16 → 16,
# output_gate 16 → 16 (no biases; its decay factors are buffers)
LIGHTNING = 16 + 16 * 48 + 16 * 16 + 16 * 16  # 1,296
ATTENTION = 16 * 16 + 16 * 8 + 16 * 8 + 16 * 16  # q, k, v, o = 768
EXPERTS = 4 * 16 + 4 * (2 * 24 * 16 + 16 * 24)  # router (4 × 16) + 4 experts (gate_up 48 × 16, down 16 × 24) = 4,672
NORMS = 2 * 16  # input_layernorm, post_attention_layernorm
PARAMS = EMBED + 2 * (LIGHTNING + EXPERTS + NORMS) + (ATTENTION + EXPERTS + NORMS) + 16 + EMBED  # + norm, lm_head


def test_small_configs_counted_by_hand() -> None:
    assert count(MINIMAX).tree.total == PARAMS == 19_088  # transformers: 19,088
    assert count({**MINIMAX, "architectures": ["MiniMaxModel"]}).tree.total == PARAMS - EMBED == 18_288
    assert count({**MINIMAX, "tie_word_embeddings": True}).tree.total == PARAMS - EMBED
    # no layer_types: attention at even layers, lightning at odd ones (4 layers: 2 of each)
    no_types = {k: v for k, v in MINIMAX.items() if k != "layer_types"}
    assert count({**no_types, "num_hidden_layers": 4}).tree.total == \
        EMBED + 2 * (ATTENTION + EXPERTS + NORMS) + 2 * (LIGHTNING + EXPERTS + NORMS) + 16 + EMBED == 24_560
    # legacy names remapped ("mamba" is lightning, "attention" attention); any other accepted type is attention
    legacy = {**MINIMAX, "layer_types": ["mamba", "attention", "sliding_attention"]}
    assert count(legacy).tree.total == \
        EMBED + (LIGHTNING + EXPERTS + NORMS) + 2 * (ATTENTION + EXPERTS + NORMS) + 16 + EMBED == 18_560
    # no head_dim: hidden_size / heads = 9 (width 18): lightning 18 + 18 × 54 + 2 × 18 × 18, attention
    # 2 × 18 × 18 + 2 × 18 × 9, experts 4 × 18 + 4 × (48 × 18 + 18 × 24)
    wide = {**MINIMAX, "hidden_size": 18, "head_dim": None}
    lightning, attention = 18 + 18 * 54 + 2 * 18 * 18, 2 * 18 * 18 + 2 * 18 * 9
    experts = 4 * 18 + 4 * (48 * 18 + 18 * 24)
    assert count(wide).tree.total == \
        50 * 18 + 2 * (lightning + experts + 36) + (attention + experts + 36) + 18 + 50 * 18 == 21_942
    # the num_experts alias; zero experts build (a router and experts of no parameters)
    alias = {**{k: v for k, v in MINIMAX.items() if k != "num_local_experts"}, "num_experts": 4}
    assert count(alias).tree.total == PARAMS
    assert count({**MINIMAX, "num_local_experts": 0, "num_experts_per_tok": 1}).tree.total == PARAMS - 3 * EXPERTS
    # the residual factors, block_size and sliding_window have no parameters
    assert count({**MINIMAX, "block_size": 0, "sliding_window": 2, "mlp_alpha_factor": 0.5}).tree.total == PARAMS
    # with head_dim written, YaRN builds
    yarn = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 16}
    assert count({**MINIMAX, "rope_parameters": yarn}).tree.total == PARAMS


def test_class_defaults() -> None:
    # transformers 5.25, MiniMaxConfig() on the meta device
    assert count({"model_type": "minimax", "architectures": ["MiniMaxForCausalLM"]}).tree.total == 47_373_946_880
    assert count({"model_type": "minimax", "architectures": ["MiniMaxModel"]}).tree.total == 47_242_874_880
    assert count({"model_type": "minimax",
                  "architectures": ["MiniMaxForSequenceClassification"]}).tree.total == 47_242_883_072


@pytest.mark.parametrize("config", [
    {**MINIMAX, "layer_types": ["linear_attention", "full_attention"]},  # validate_layer_type: one per layer
    {**MINIMAX, "layer_types": ["linear_attention", "full_attention", "lightning"]},  # a type it does not know
    {**MINIMAX, "block_size": -1},  # its decay buffers cannot be built
    {**MINIMAX, "num_key_value_heads": None},  # an int field of the strict config class
    {**MINIMAX, "num_local_experts": None},
    {**{k: v for k, v in MINIMAX.items() if k != "num_local_experts"}, "num_experts": None},  # the experts' width
    {**MINIMAX, "num_local_experts": 4.0},
    # no head_dim (MiniMaxConfig keeps None): YaRN's parameters read it as it is and fail
    {**{k: v for k, v in MINIMAX.items() if k != "head_dim"},
     "rope_parameters": {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 16}},
])
def test_configs_transformers_refuses(config: dict) -> None:
    assert errors(config)


def test_the_cache_holds_keys_for_attention_and_a_fixed_state_for_lightning_layers() -> None:
    # the attention layer: 2 × 1 kv head × 8 × tokens values; each lightning layer 2 heads × 8 × 8 (no convolution),
    # all in bfloat16, every token kept whatever sliding_window says (MiniMaxCache is a DynamicCache with no config)
    for config in (MINIMAX, {**MINIMAX, "sliding_window": 4}):
        for tokens, batch in ((10, 1), (100, 3)):
            line = estimate_memory(count(config), Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            assert line.bytes == batch * (2 * 1 * 8 * tokens * 2 + 2 * (2 * 8 * 8 * 2))
    # a float32 model keeps the lightning state in float32, the keys and values in the cache dtype
    line = estimate_memory(count(MINIMAX), Settings(context=10, batch=1, dtype="float32",
                                                    kv_dtype="bfloat16")).line("kv_cache")
    assert line is not None and line.bytes == 2 * 1 * 8 * 10 * 2 + 2 * (2 * 8 * 8 * 4)


def test_lora_on_the_lightning_attention(tmp_path) -> None:
    # rank 2 on qkv_proj (16 → 48: 2 × 16 + 48 × 2), out_proj and output_gate (16 → 16: 2 × 16 + 16 × 2 each) of the
    # 2 lightning layers; the attention layer's o_proj is not out_proj
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "config.json").write_text(json.dumps(MINIMAX))
    report = analyze_text("base_model: ./base\nadapter: lora\nlora_r: 2\n"
                          'lora_target_modules: ["qkv_proj", "out_proj", "output_gate"]\n',
                          str(tmp_path / "train.yaml"),
                          AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
    assert not report.has_errors, report.problems
    (adapted,) = report.models
    assert adapted.tree.trainable == 2 * ((2 * 16 + 48 * 2) + 2 * (2 * 16 + 16 * 2)) == 512
