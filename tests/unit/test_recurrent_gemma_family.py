"""RecurrentGemma (Griffin) without torch.

Every total here is counted by hand below; the class defaults are what transformers 5.25 builds on the meta device
(taken there once), and tests/parity (test_parity.py with strategies_recurrent_gemma.py, and
test_recurrent_gemma_parity.py for the cache and LoRA) checks random configs against it.
"""

from __future__ import annotations

from config_models import analyze, errors, model

from lsp_count.core.memory import Settings, estimate_memory

# 16 wide, 3 layers cycling recurrent, recurrent, attention (the default block_types), 2 heads of 8 (one kv head),
# intermediate_size 24 (an MLP 12 wide), lru_width 8, conv1d_width 4 (default), vocab 64.
SMALL = {"model_type": "recurrent_gemma", "architectures": ["RecurrentGemmaForCausalLM"], "vocab_size": 64,
         "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 3,
         "intermediate_size": 24, "lru_width": 8}
# linear_y / linear_x 16·8 + 8 each, linear_out 8·16 + 16, conv_1d 8·1·4 + 8; the RG-LRU: recurrent_param 8, and two
# gates of 2 blocks of 4×4 with a bias of 2×4 each
RG_LRU = 8 + 2 * (2 * 4 * 4 + 2 * 4)
RECURRENT_BLOCK = 2 * (16 * 8 + 8) + (8 * 16 + 16) + (8 * 4 + 8) + RG_LRU
assert RECURRENT_BLOCK == 544
# q 16·16, k / v 16·8 (no biases but where attention_bias), o 16·16 + 16 (always a bias)
ATTENTION = 256 + 2 * 128 + 256 + 16
# gate_proj / up_proj 16·12 + 12, down_proj 12·16 + 16 (always biases), temporal_pre_norm / channel_pre_norm 16 each
MLP_AND_NORMS = 2 * (16 * 12 + 12) + (12 * 16 + 16) + 2 * 16
TOTAL = 64 * 16 + 2 * (RECURRENT_BLOCK + MLP_AND_NORMS) + (ATTENTION + MLP_AND_NORMS) + 16  # + final_norm
assert TOTAL == 4_856  # tied head (the class default)


def test_a_small_model_by_hand() -> None:
    m = model(SMALL)
    assert m.tree.total == TOTAL
    layers = m.tree.root.child("layers")
    assert layers.child("rg_lru_mlp_layers").repeat == 2 and layers.child("attention_mlp_layers").repeat == 1
    assert layers.child("rg_lru_mlp_layers").child("temporal_block").total == RECURRENT_BLOCK
    assert model({**SMALL, "architectures": ["RecurrentGemmaModel"]}).tree.total == TOTAL
    assert model({**SMALL, "tie_word_embeddings": False}).tree.total == TOTAL + 64 * 16
    assert model({**SMALL, "attention_bias": True}).tree.total == TOTAL + 16 + 8 + 8


def test_block_types_cycle_over_the_layers() -> None:
    # attention, recurrent, attention, recurrent, attention: 3 attention layers, 2 recurrent
    five = {**SMALL, "num_hidden_layers": 5, "block_types": ["attention", "recurrent"]}
    assert model(five).tree.total == 64 * 16 + 3 * (ATTENTION + MLP_AND_NORMS) + 2 * (RECURRENT_BLOCK + MLP_AND_NORMS) \
        + 16 == 7_720
    # any type but "recurrent" is local attention
    assert model({**five, "block_types": ["local", "recurrent"]}).tree.total == 7_720


def test_widths_and_their_defaults() -> None:
    # hidden_size 17: heads of 17 // 2 = 8 (floored); the recurrent block, the MLP and norms 17 wide
    rec17 = 2 * (17 * 8 + 8) + (8 * 17 + 17) + (8 * 4 + 8) + RG_LRU
    mlp17 = 2 * (17 * 12 + 12) + (12 * 17 + 17) + 2 * 17
    att17 = 17 * 16 + 2 * 17 * 8 + (16 * 17 + 17)
    assert model({**SMALL, "hidden_size": 17}).tree.total == 64 * 17 + 2 * (rec17 + mlp17) + (att17 + mlp17) + 17 == 5_137
    # a written head_dim wins over the derived one (set after it): heads of 4
    att17_4 = 17 * 8 + 2 * 17 * 4 + (8 * 17 + 17)
    assert model({**SMALL, "hidden_size": 17, "head_dim": 4}).tree.total == \
        64 * 17 + 2 * (rec17 + mlp17) + (att17_4 + mlp17) + 17 == 4_729
    # lru_width null or absent: hidden_size (16): the gates 2 blocks of 8
    rec16 = 3 * (16 * 16 + 16) + (16 * 4 + 16) + 16 + 2 * (2 * 8 * 8 + 2 * 8)
    assert rec16 == 1_200
    no_lru = {k: v for k, v in SMALL.items() if k != "lru_width"}
    assert model(no_lru).tree.total == model({**SMALL, "lru_width": None}).tree.total == \
        TOTAL + 2 * (rec16 - RECURRENT_BLOCK)
    # num_key_value_heads null: the heads (k and v 16 wide)
    assert model({**SMALL, "num_key_value_heads": None}).tree.total == TOTAL + 2 * 16 * 8


def test_class_defaults_match_transformers() -> None:
    # RecurrentGemmaForCausalLM() on the meta device (recurrentgemma-2b's shape), the head tied; the bare model the same
    for arch in ("RecurrentGemmaForCausalLM", "RecurrentGemmaModel"):
        assert model({"model_type": "recurrent_gemma", "architectures": [arch]}).tree.total == 2_010_263_040


def test_configs_transformers_refuses() -> None:
    def said(config: dict, words: str) -> bool:
        return any(words in p.message for p in errors(config))

    # layer_types is the read-only layers_block_type's alias
    assert said({**SMALL, "layer_types": ["sliding_attention"] * 3}, "read-only layers_block_type")
    assert said({**SMALL, "block_types": []}, "RecurrentGemmaConfig refuses")
    assert said({**SMALL, "num_hidden_layers": 201, "block_types": ["recurrent", "attention"]}, "200 layers")
    assert not errors({**SMALL, "num_hidden_layers": 200, "block_types": ["recurrent", "attention"]})
    assert errors({**SMALL, "num_key_value_heads": 4})  # more than the heads
    assert said({**SMALL, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}, "not one this model takes")
    # with no attention layer no rotary embedding is built; the class still refuses the types it checks against
    # max_position_embeddings, which it does not have
    recurrent = {**SMALL, "block_types": ["recurrent"]}
    assert not errors({**recurrent, "rope_parameters": {"rope_type": "linear", "factor": 2.0}})
    assert said({**recurrent, "rope_parameters": {"rope_type": "yarn", "factor": 2.0}}, "max_position_embeddings")
    # a float head_dim is kept as written: only the attention layers cannot be built with it
    assert said({**SMALL, "head_dim": 8.0}, "float head width")
    assert model({**recurrent, "head_dim": 8.0}).tree.total == TOTAL - (ATTENTION - RECURRENT_BLOCK)
    # head_dim null: fails in the attention layers only
    assert errors({**SMALL, "head_dim": None}) and not errors({**recurrent, "head_dim": None})
    # sliding_window (attribute_map) is set past the class's checks: a null or a float there builds
    assert model({**SMALL, "sliding_window": None}).tree.total == TOTAL
    assert model({**SMALL, "sliding_window": 4.0}).tree.total == TOTAL


def test_a_width_the_heads_do_not_divide_is_a_warning() -> None:
    report = analyze({**SMALL, "lru_width": 9})
    assert not report.has_errors
    assert any("does not divide lru_width" in p.message for p in report.problems if p.severity == "warning")
    # gates of 2 blocks of 4 (floored), linear and conv over 9
    assert report.models[0].tree.total == TOTAL + 2 * ((16 + 1) * 2 + 16 + 1 * 4 + 1 + 1)


def test_the_cache_is_the_window_and_the_recurrent_states() -> None:
    """1 attention layer keeps min(context, window - 1) tokens: 2 × 1 kv head × 8 × 2 bytes each; 2 recurrent layers
    keep 8 × (4 - 1) convolution inputs in bfloat16 and 8 float32 state values, whatever the context."""
    recurrent = 2 * (8 * 3 * 2 + 8 * 4)
    m = model(SMALL)
    for context, window in ((100, 2048), (5000, 2048)):
        line = estimate_memory(m, Settings(context=context, batch=2)).line("kv_cache")
        assert line is not None and line.exact and line.bytes == 2 * (recurrent + 2 * 8 * 2 * min(context, window - 1))
    for key in ("attention_window_size", "sliding_window"):
        line = estimate_memory(model({**SMALL, key: 4}), Settings(context=100, batch=1)).line("kv_cache")
        assert line is not None and line.bytes == recurrent + 2 * 8 * 2 * 3
    # a window of 1 keeps every token (DynamicSlidingWindowLayer's slice [-1 + 1:])
    line = estimate_memory(model({**SMALL, "attention_window_size": 1}), Settings(context=100, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == recurrent + 2 * 8 * 2 * 100
    # no attention layer: the recurrent states alone (a head_dim null is read by nothing)
    only_recurrent = model({**SMALL, "block_types": ["recurrent"], "head_dim": None})
    line = estimate_memory(only_recurrent, Settings(context=100, batch=1)).line("kv_cache")
    assert line is not None and line.bytes == 3 * (8 * 3 * 2 + 8 * 4)
    # a null window builds, but cannot run: no cache line
    assert estimate_memory(model({**SMALL, "sliding_window": None}), Settings(context=100)).line("kv_cache") is None


def test_training_activations_take_the_mlp_at_the_width_it_is_built() -> None:
    # mlp_block is intermediate_size // 2 wide (768 of 1536): the activation estimate's f is that width, not
    # intermediate_size (which would overstate the MLP's share twice over).
    config = {"model_type": "recurrent_gemma", "hidden_size": 256, "intermediate_size": 1536,
              "num_hidden_layers": 3, "num_attention_heads": 4, "vocab_size": 1000}
    line = estimate_memory(model(config), Settings(mode="train", context=1024, batch=2)).line("activations")
    assert line is not None and "f 768)" in line.detail
