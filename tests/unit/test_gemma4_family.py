"""Gemma 4's text model (gemma4_text), without torch: small configs counted by hand (each total also what
transformers 5.25 builds on the meta device), the class defaults' total (taken there once), configs its config class
refuses, and the KV cache the memory estimate holds (what transformers' cache holds:
tests/parity/test_gemma4_parity.py)."""

from __future__ import annotations

from config_models import analyze, errors
from config_models import model as count

from lsp_count.core.memory import Settings, estimate_memory

# vocab 10, hidden 4, a gated MLP 6 wide, 2 layers (default types: sliding, then the last forced full), 1 head and 1
# key/value head; sliding layers' heads 2 wide, full layers' (global_head_dim) 4 wide; no per-layer inputs; tied.
BASE = {"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"], "vocab_size": 10, "hidden_size": 4,
        "intermediate_size": 6, "num_hidden_layers": 2, "num_attention_heads": 1, "num_key_value_heads": 1,
        "head_dim": 2, "global_head_dim": 4, "hidden_size_per_layer_input": 0}
EMBED = 10 * 4
MLP = 3 * 4 * 6  # gate, up, down = 72
NORMS = 4 * 4  # input, post-attention, pre- and post-feedforward
SLIDING_ATTN = 4 * 2 + 2 + 2 + 4 * 2 + 4 * 2 + 2 * 4  # q, q_norm, k_norm, k, v, o = 36
FULL_ATTN = 4 * 4 + 4 + 4 + 4 * 4 + 4 * 4 + 4 * 4  # the same 4 wide = 72
FINAL = 4
BASE_PARAMS = EMBED + (SLIDING_ATTN + MLP + NORMS) + (FULL_ATTN + MLP + NORMS) + FINAL  # 328


def test_a_small_config_by_hand() -> None:
    assert BASE_PARAMS == 328
    assert count(BASE).tree.total == 328
    assert count({**BASE, "tie_word_embeddings": False}).tree.total == 328 + EMBED
    assert count({**BASE, "architectures": ["Gemma4TextModel"], "tie_word_embeddings": False}).tree.total == 328


def test_keys_as_values_drop_the_full_layers_v_proj() -> None:
    # attention_k_eq_v: the full layer has no v_proj (4 × 4); the sliding layer keeps its own.
    assert count({**BASE, "attention_k_eq_v": True}).tree.total == 328 - 16
    # ... and its key/value heads from num_global_key_value_heads (2 heads of 4: k_proj 4 × 8), only then.
    assert count({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2}).tree.total == \
        328 + (4 * 2 + 2 * 4) + (4 * 4 + 4 * 4)  # q and o twice as wide in both layers
    assert count({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2,
                  "attention_k_eq_v": True}).tree.total == 328 + 16 + 32 - 16 + 16


def test_kv_sharing_layers_and_their_double_wide_mlp() -> None:
    # Two full layers; the last reuses the first's keys and values: no k_norm, k_proj, v_proj; MLP 12 wide.
    config = {**BASE, "layer_types": ["full_attention", "full_attention"], "num_kv_shared_layers": 1,
              "use_double_wide_mlp": True}
    shared = (4 * 4 + 4 + 4 * 4) + 3 * 4 * 12 + NORMS  # q, q_norm, o; the MLP; norms = 196
    assert count(config).tree.total == EMBED + (FULL_ATTN + MLP + NORMS) + shared + FINAL == 400
    assert count({**config, "use_double_wide_mlp": False}).tree.total == 400 - 3 * 4 * 6


def test_per_layer_inputs() -> None:
    # 3 per-layer values per layer over a 5-token per-layer vocabulary: the packed embedding 5 × (2 × 3), the
    # projection 4 → 6 and its norm (3); per layer a gate 4 → 3, a projection 3 → 4 and a norm (4).
    config = {**BASE, "hidden_size_per_layer_input": 3, "vocab_size_per_layer_input": 5}
    assert count(config).tree.total == 328 + (5 * 6 + 4 * 6 + 3) + 2 * (12 + 12 + 4) == 441


def test_the_moe_block() -> None:
    # 3 experts 2 wide, top 1: per layer the router (proj 4 → 3, scale 4, per-expert scale 3), the experts
    # (gate_up 4 × 4 and down 2 × 4 each) and three norms.
    config = {**BASE, "enable_moe_block": True, "num_experts": 3, "moe_intermediate_size": 2, "top_k_experts": 1}
    per_layer = (12 + 4 + 3) + 3 * (16 + 8) + 3 * 4
    assert count(config).tree.total == 328 + 2 * per_layer == 534
    assert count(config).tree.active == 534 - 2 * 2 * (16 + 8)


def test_per_layer_config_as_transformers_saves_it() -> None:
    # The file's per_layer_config wins over global_head_dim: the full layer's heads 2 wide here, as the sliding one's.
    config = {**BASE, "per_layer_config": {"1": {"head_dim": 2}}}
    assert count(config).tree.total == EMBED + 2 * (SLIDING_ATTN + MLP + NORMS) + FINAL
    assert count({**BASE, "per_layer_config": None}).tree.total == EMBED + 2 * (SLIDING_ATTN + MLP + NORMS) + FINAL


def test_class_defaults() -> None:
    # Gemma4TextConfig() on the meta device: 5,077,177,856 (Gemma4ForCausalLM, tied).
    assert count({"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"]}).tree.total == 5_077_177_856


def test_configs_transformers_refuses() -> None:
    # The sharing layers' types must all appear among the earlier layers (Gemma4TextConfig.kv_sharing_modes).
    assert errors({**BASE, "num_kv_shared_layers": 1})
    assert errors({**BASE, "num_kv_shared_layers": 3})
    assert errors({**BASE, "enable_moe_block": True})  # no num_experts / moe_intermediate_size
    assert errors({**BASE, "hidden_size_per_layer_input": 3, "vocab_size_per_layer_input": 5, "pad_token_id": 7})
    assert errors({**BASE, "global_head_dim": None})
    assert errors({**BASE, "attention_k_eq_v": True, "num_global_key_value_heads": 2.0})
    assert not errors({**BASE, "num_global_key_value_heads": 2.0})  # (not read without attention_k_eq_v)
    assert errors({**BASE, "layer_types": ["sliding_attention"]})
    # The rotary embedding reads one head width per layer type: two sliding layers must agree (an override equal to
    # the global head_dim is dropped).
    three = {**BASE, "num_hidden_layers": 3}
    assert errors({**three, "per_layer_config": {"0": {"head_dim": 4}}})
    assert not errors({**three, "per_layer_config": {"0": {"head_dim": 2}}})
    assert errors({**BASE, "per_layer_config": {"1": {"intermediate_size": 4}}})
    assert errors({**BASE, "use_bidirectional_attention": "text"})


def _kv(config: dict, context: int, batch: int = 1) -> int:
    line = estimate_memory(count(config), Settings(context=context, batch=batch)).line("kv_cache")
    assert line is not None and line.exact
    return line.bytes


def test_the_kv_cache() -> None:
    # bfloat16, 100 tokens: the sliding layer 2 × 1 head × 2 × 100 × 2 bytes, the full one 4 wide.
    assert _kv(BASE, 100) == 2 * 2 * 100 * 2 + 2 * 4 * 100 * 2 == 2400
    # A window of 16: the sliding layer holds 16 tokens.
    assert _kv({**BASE, "sliding_window": 16}, 100) == 2 * 2 * 16 * 2 + 1600
    # ... halved (+ 1) with bidirectional attention everywhere: 9 tokens.
    assert _kv({**BASE, "sliding_window": 16, "use_bidirectional_attention": "all"}, 100) == 2 * 2 * 9 * 2 + 1600
    # A layer reusing another's keys and values caches nothing.
    shared = {**BASE, "layer_types": ["full_attention", "full_attention"], "num_kv_shared_layers": 1}
    assert _kv(shared, 100, batch=3) == 3 * 1600
    # Keys serving as values are cached twice all the same; num_global_key_value_heads sets the full layer's heads.
    assert _kv({**BASE, "num_attention_heads": 2, "num_global_key_value_heads": 2, "attention_k_eq_v": True}, 100) == \
        800 + 2 * 2 * 4 * 100 * 2


def test_num_experts_without_the_moe_block_draws_no_top_k_warning() -> None:
    # enable_moe_block off: no experts are built, so no missing top_k_experts to warn about; on, the warning stands.
    dense = {**BASE, "num_experts": 3, "moe_intermediate_size": 2}
    assert not [p for p in analyze(dense).problems if p.code == "LC103"]
    assert [p for p in analyze({**dense, "enable_moe_block": True}).problems if p.code == "LC103"]


def test_lora_note_names_no_router_peft_adapts() -> None:
    # Gemma 4's router holds an nn.Linear (router.proj), which peft adapts; gpt-oss's router is no nn.Linear.
    config = {**BASE, "enable_moe_block": True, "num_experts": 3, "moe_intermediate_size": 2, "top_k_experts": 1}
    notes = estimate_memory(count(config), Settings(mode="lora")).notes
    assert "peft leaves gemma4_text's fused experts (3-D parameters) without adapters" in notes
    gpt_oss = count({"model_type": "gpt_oss", "num_hidden_layers": 1})
    assert "peft leaves gpt_oss's fused experts (3-D parameters) and its router (not an nn.Linear) without adapters" \
        in estimate_memory(gpt_oss, Settings(mode="lora")).notes
