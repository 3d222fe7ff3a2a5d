"""RecurrentGemma (Griffin) against transformers 5 and peft: the cache its forward pass leaves, and LoRA's modules.

Cache: RecurrentGemmaModel makes a DynamicCache from its config (``generate`` passes one in), whose local-attention
layers (DynamicSlidingWindowLayer) keep the last attention_window_size - 1 tokens' keys and values (every token for
a window of 1); each recurrent block keeps its own states, outside that cache: the convolution's last conv1d_width -
1 inputs over lru_width channels in the model's dtype (``conv1d_state``) and the RG-LRU's state, lru_width values in
float32 (``rg_lru.recurrent_states``). The memory estimate's kv_cache line is the bytes of all of them after a
forward pass of a model in bfloat16 over random small configs (tests/parity/strategies_recurrent_gemma.py), for
prompts shorter and longer than the window.

LoRA: the modules peft adapts (model.layers.N.temporal_block.{q_proj, linear_x, ...}, ...mlp_block.gate_proj),
layers numbered across the two kinds, by name, by regex and all-linear, against get_peft_model's count; a name
reaching the recurrent block's convolution (conv_1d) is said and left out, as for the other convolutions.
"""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_lora_parity import analyze_any, lora_yaml, peft_counts

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _cache_bytes(config: dict, batch: int, tokens: int) -> int:
    """Bytes of what a RecurrentGemma forward pass over ``tokens`` tokens leaves for the next: the tensors of the
    DynamicCache it is given, and each recurrent block's convolution and recurrent states."""
    from transformers import CONFIG_MAPPING, DynamicCache

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    model = transformers.RecurrentGemmaForCausalLM(CONFIG_MAPPING["recurrent_gemma"].from_dict(dict(config)))
    model = model.to(torch.bfloat16)
    cache = DynamicCache(config=model.config)
    with torch.no_grad():
        model(torch.randint(0, config["vocab_size"], (batch, tokens)), use_cache=True, cache=cache)
    held = [t for layer in cache.layers for t in vars(layer).values() if torch.is_tensor(t) and t.dim() > 0]
    for layer in model.model.layers:
        block = layer.temporal_block
        if hasattr(block, "rg_lru"):
            held += [block.conv1d_state, block.rg_lru.recurrent_states]
    return sum(t.numel() * t.element_size() for t in held)


def test_the_cache_is_what_a_forward_pass_leaves() -> None:
    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for("recurrent_gemma"))
    def check(config: dict) -> None:
        config = {**config, "architectures": ["RecurrentGemmaForCausalLM"]}
        # (a width the heads do not divide builds, but the RG-LRU's forward pass fails: a warning, not judged here)
        assume(config.get("lru_width", config["hidden_size"]) % config["num_attention_heads"] == 0)
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        for batch, tokens in ((1, 3), (2, 7), (1, 12)):
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            try:
                held = _cache_bytes(config, batch, tokens)
            except ValueError as e:
                # transformers 5.25 builds a RecurrentGemma with no attention layer, but its forward pass fails making
                # the attention mask from a cache of linear-attention layers only: not judged here.
                assume("can only be called on Attention layers" not in str(e))
                raise
            assert line.bytes == held, (json.dumps(config), tokens, line)

    check()


def test_only_the_attention_layers_grow_and_only_up_to_the_window() -> None:
    """5 layers cycling recurrent, recurrent, attention (r r a r r): 1 attention layer (1 kv head of 8), 4 recurrent
    (lru_width 16, conv1d_width 4). Per sequence: attention 1 layer × 2 × 1 × 8 values × min(tokens, 6 - 1) × 2 bytes;
    recurrent 4 × (16 × 3 × 2 bytes of convolution state + 16 × 4 bytes of float32 state)."""
    config = {"model_type": "recurrent_gemma", "architectures": ["RecurrentGemmaForCausalLM"], "vocab_size": 64,
              "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 5,
              "intermediate_size": 24, "attention_window_size": 6, "lru_width": 16, "conv1d_width": 4}
    (model,) = analyze_text(json.dumps(config), "/nonexistent/config.json").models
    recurrent = 4 * (16 * 3 * 2 + 16 * 4)
    for tokens in (1, 5, 6, 4096):
        line = estimate_memory(model, Settings(context=tokens, batch=3)).line("kv_cache")
        assert line is not None and line.bytes == 3 * (recurrent + 1 * 2 * 1 * 8 * min(tokens, 5) * 2)


CONFIG = dict(model_type="recurrent_gemma", architectures=["RecurrentGemmaForCausalLM"], vocab_size=64, hidden_size=16,
              num_attention_heads=2, num_key_value_heads=1, num_hidden_layers=4, intermediate_size=24, lru_width=8,
              block_types=["recurrent", "attention"], tie_word_embeddings=False)


@pytest.mark.parametrize("targets", ["all-linear", ["q_proj", "linear_x", "down_proj"], ["linear_out", "o_proj"],
                                     r".*temporal_block\.(q_proj|linear_y)", r"model\.layers\.(1|2)\..*_proj",
                                     r".*\.3\.mlp_block\.gate_proj"])
def test_lora_targets_match_peft(tmp_path, targets) -> None:
    report = analyze_any(tmp_path, CONFIG, lora_yaml(2, targets))
    assert not report.has_errors, report.problems
    (model,) = report.models
    assert model.tree.trainable > 0
    assert (model.tree.total, model.tree.trainable) == peft_counts(CONFIG, 2, targets)


def test_a_name_reaching_the_convolution_is_said_and_left_out(tmp_path) -> None:
    """peft adapts the recurrent block's nn.Conv1d (conv_1d) named as a target with LoRA convolutions, which
    lsp-count says it leaves out; the rest is peft's count. (The convolution is depthwise, lru_width groups: peft
    takes only a rank they divide, here 8.)"""
    from peft import LoraConfig, get_peft_model
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    with torch.device("meta"):
        model = transformers.RecurrentGemmaForCausalLM(CONFIG_MAPPING["recurrent_gemma"].from_dict(dict(CONFIG)))
        peft_model = get_peft_model(model, LoraConfig(r=8, target_modules=["conv_1d", "q_proj"]))
    trainable = {name: p.numel() for name, p in peft_model.named_parameters() if p.requires_grad}
    conv = sum(n for name, n in trainable.items() if "conv_1d.lora_" in name)
    assert conv > 0
    report = analyze_any(tmp_path, CONFIG, lora_yaml(8, ["conv_1d", "q_proj"]))
    assert not report.has_errors, report.problems
    assert any("peft also adapts model.layers.0.temporal_block.conv_1d" in p.message for p in report.problems
               if p.severity == "warning"), report.problems
    (ours,) = report.models
    assert ours.tree.trainable == sum(trainable.values()) - conv
