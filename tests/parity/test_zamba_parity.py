"""Zamba2 and Zamba against transformers 5 and peft: the cache, and LoRA on the layers' and the shared blocks' modules.

The cache each keeps while it generates: per hybrid layer the keys and values of its use of a shared block (2 ·
kv_heads · head_dim per token, head_dim the shared attention's, 2 × hidden_size / num_attention_heads where not
written), in the model's dtype; per layer, hybrid or not, the Mamba mixer's convolution state (its last mamba_d_conv
inputs over mamba_expand × hidden_size channels, Zamba2's Mamba-2 also over 2 · mamba_ngroups · mamba_d_state more,
in the model's dtype) and its recurrent state (mamba_expand × hidden_size × mamba_d_state values in float32), whatever
the prompt's length. The memory estimate's kv_cache line is the bytes of every tensor of transformers' cache after a
forward pass in bfloat16, on random small configs that run, for several prompt lengths and batches."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_ssm_state_parity import _cache_bytes

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _runs(config: dict) -> dict:
    """The config as a causal LM whose forward pass runs: layers_block_type written (Zamba2: its hybrid_layer_ids the
    hybrid layers', which the forward pass looks each use's adapters up by), the head width and attention width
    derived, key/value heads that divide the query heads (as many, with Zamba2's attention adapters), at least two
    hybrid layers (Zamba ties one only with another)."""
    model_type = config["model_type"]
    kinds = config.get("layers_block_type") or config.get("layer_types") or ["hybrid", "mamba"]
    if kinds.count("hybrid") < 2:
        kinds = ["hybrid", "hybrid", *kinds]
    out = {k: v for k, v in config.items() if k not in ("layer_types", "hybrid_layer_ids", "head_dim",
                                                         "attention_head_dim", "attention_hidden_size")}
    arch = "Zamba2ForCausalLM" if model_type == "zamba2" else "ZambaForCausalLM"
    out.update(layers_block_type=kinds, num_hidden_layers=len(kinds), architectures=[arch])
    if out.get("use_shared_attention_adapter"):  # (k's and v's adapters are as wide as all heads: no fewer kv heads)
        out["num_key_value_heads"] = out["num_attention_heads"]
    return out


@pytest.mark.parametrize("model_type", ["zamba2", "zamba"])
def test_the_zamba_cache_is_what_transformers_cache_holds(model_type: str) -> None:
    @settings(max_examples=10, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        config = _runs(config)
        assume(config.get("n_mamba_heads", 2) % config.get("mamba_ngroups", 1) == 0)
        assume(config["num_attention_heads"] % config.get("num_key_value_heads", 1) == 0)
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        for batch, tokens in ((1, 3), (2, 7)):
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            assert line.bytes == _cache_bytes(config, batch, tokens), (json.dumps(config), line)

    check()


def test_a_hand_counted_zamba2_cache() -> None:
    """3 layers, the middle one hybrid; hidden 8, 2 heads of 8 (2 × 8 / 2), 1 key/value head; Mamba-2 16 wide (expand
    2), 2 heads, 1 group, state 4, kernel 3. Per sequence of 5 tokens in bfloat16: keys and values 1 layer × 2 × 1 × 8
    × 5 tokens × 2 bytes = 160; conv 3 layers × (16 + 2 · 4) channels × 3 × 2 bytes = 432; recurrent 3 × 16 × 4 × 4
    bytes (float32) = 768: 1,360."""
    config = {"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "vocab_size": 32, "hidden_size": 8,
              "num_attention_heads": 2, "num_key_value_heads": 1, "layers_block_type": ["mamba", "hybrid", "mamba"],
              "num_hidden_layers": 3, "mamba_expand": 2, "n_mamba_heads": 2, "mamba_d_state": 4, "mamba_d_conv": 3,
              "adapter_rank": 2, "intermediate_size": 16}
    report = analyze_text(json.dumps(config), "/nonexistent/config.json")
    line = estimate_memory(report.models[0], Settings(context=5, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 160 + 432 + 768 == _cache_bytes(config, 1, 5)


# Regexes over transformers' module names, numbered layers included (each use of a shared block is in the layer
# that uses it: model.layers.5.shared_transformer.self_attn.q_proj; Zamba's is shared_transf).
REGEXES = (r"model\.layers\.[0-2]\..*_proj", r".*layers\.\d+\.(linear|shared_\w+\.self_attn\.q_proj)",
           r".*shared_\w+\.feed_forward\.down_proj", r"model\.layers\.\d*[13579]\.mamba(_decoder\.mamba)?\.in_proj")


@pytest.mark.parametrize("model_type", ["zamba2", "zamba"])
def test_lora_on_the_layers_and_the_shared_blocks_is_peft_s(tmp_path, model_type: str) -> None:
    """LoRA on the modules every layer has of its own (the mixers' in_proj and out_proj, the hybrid layers' linear;
    peft's Mamba check does not cover Zamba, whose out_proj it adapts) and on the shared blocks' (their attention,
    MLP and Zamba2's adapters), named, all-linear and by regexes over numbered layers, tied embeddings or not:
    lsp-count's count is peft's, in a
    training YAML and in the memory estimate's --lora-targets. Tied, a block's modules are still each hybrid
    layer's own (their weights the block's first use's): peft adapts every use."""
    from lsp_count.core.memory import lora_adapter_params

    from .test_lora_parity import analyze_yaml, peft_counts

    mlp = ["gate_up_proj", "down_proj"] if model_type == "zamba2" else ["gate_proj", "down_proj"]

    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(strategy_for(model_type))
    def check(base: dict) -> None:
        for tied in (True, False):
            config = {**_runs(base), "tie_word_embeddings": tied}
            for targets in (["in_proj", "linear"], ["out_proj"], ["q_proj", "v_proj"], mlp, "all-linear", *REGEXES):
                listed = "lora_target_linear: true\n" if targets == "all-linear" else \
                    f"lora_target_modules: '{targets}'\n" if isinstance(targets, str) else \
                    "lora_target_modules:\n" + "".join(f"  - {t}\n" for t in targets)
                m = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 4\n{listed}"
                                                   "sequence_len: 512\n")
                want = peft_counts(dict(config), 4, targets)
                assert (m.tree.total, m.tree.trainable) == want, (json.dumps(config), targets)
                if targets in REGEXES:
                    continue  # (--lora-targets takes names)
                base_model = analyze_text(json.dumps(config), "config.json").models[0]
                cli = lora_adapter_params(base_model.tree, 4, None if targets == "all-linear" else tuple(targets))
                assert cli == want[1], (json.dumps(config), targets)

    check()
