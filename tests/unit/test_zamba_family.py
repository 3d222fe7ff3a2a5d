"""Zamba2 and Zamba (Zyphra's Mamba stacks with shared transformer blocks) without torch.

Every total here is counted by hand below; the class defaults are what transformers 5.25 builds on the meta device
(taken there once), and tests/parity checks random configs of both families (and their caches) against it.
"""

from __future__ import annotations

from config_models import errors, model

from lsp_count.core.memory import Settings, estimate_memory

# Zamba2: 8 wide, 4 layers (the 2nd and 4th hybrid), vocab 32; the shared attention reads 2 × 8 = 16 values, 2 heads
# of 2 × 8 / 2 = 8 (as many kv heads); its MLP 16 wide; Mamba-2 16 wide (expand 2), 2 heads, 1 group, state 4,
# kernel 3; adapters of rank 2.
ZAMBA2 = {"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 8, "vocab_size": 32,
          "num_hidden_layers": 4, "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
          "num_attention_heads": 2, "intermediate_size": 16, "mamba_expand": 2, "n_mamba_heads": 2,
          "mamba_d_state": 4, "mamba_d_conv": 3, "adapter_rank": 2}
# in_proj 8 → 16 + (16 + 2·4) + 2, conv (24 channels × 3, its bias always), dt_bias / A_log / D per head, the gated
# norm 16, out_proj 16 → 8; the layer's input norm 8
MAMBA2_LAYER = 8 * 42 + (24 * 3 + 24) + 3 * 2 + 16 + 16 * 8 + 8
assert MAMBA2_LAYER == 590
LINEAR = 8 * 8  # each hybrid layer's own linear back into the layer
ATTENTION = 3 * 16 * 16 + 16 * 8  # q, k, v: 16 → 2 × 8; o: 16 → 8
MLP = 8 * 32 + 16 * 8  # gate_up_proj 8 → 2 × 16, down_proj 16 → 8
MLP_ADAPTER = 8 * 2 + 2 * 32  # per adapter slot (one per hybrid layer): 8 → 2 → 2 × 16
ATTN_ADAPTERS = 3 * (16 * 2 + 2 * 16)  # per slot, with use_shared_attention_adapter: q, k and v, 16 → 2 → 16
BLOCK_NORMS = 16 + 8  # input_layernorm over the 16 values, pre_ff_layernorm
BLOCK = ATTENTION + MLP + 2 * MLP_ADAPTER + BLOCK_NORMS  # one block, both hybrid layers' adapter slots
assert BLOCK == 1_464
ZAMBA2_TOTAL = 32 * 8 + 4 * MAMBA2_LAYER + 2 * LINEAR + BLOCK + 8  # embeddings, layers, the tied block, final norm
assert ZAMBA2_TOTAL == 4_216


def test_zamba2_counts_its_shared_block_once_where_tied() -> None:
    m = model(ZAMBA2)
    assert m.tree.total == ZAMBA2_TOTAL
    assert m.tree.root.child("shared_transformer").total == BLOCK
    assert model({**ZAMBA2, "architectures": ["Zamba2Model"]}).tree.total == ZAMBA2_TOTAL
    assert model({**ZAMBA2, "architectures": ["Zamba2ForSequenceClassification"]}).tree.total == ZAMBA2_TOTAL + 8 * 2
    # adapters on q, k and v too, one set per hybrid layer
    assert model({**ZAMBA2, "use_shared_attention_adapter": True}).tree.total == ZAMBA2_TOTAL + 2 * ATTN_ADAPTERS


def test_zamba2_unties_its_blocks_with_its_embeddings() -> None:
    """transformers ties the blocks' uses only where tie_word_embeddings: untied, each hybrid layer holds a block of
    its own (with both adapter slots), and the head is its own."""
    assert model({**ZAMBA2, "tie_word_embeddings": False}).tree.total == ZAMBA2_TOTAL + BLOCK + 32 * 8


def test_zamba2_blocks_take_turns() -> None:
    """num_mem_blocks 2: the hybrid layers take blocks 0 and 1, each with one adapter slot (i % 2 == its id)."""
    one = ATTENTION + MLP + MLP_ADAPTER + BLOCK_NORMS
    assert model({**ZAMBA2, "num_mem_blocks": 2}).tree.total == ZAMBA2_TOTAL - BLOCK + 2 * one
    # a third block no hybrid layer uses is not built
    assert model({**ZAMBA2, "num_mem_blocks": 3}).tree.total == ZAMBA2_TOTAL - BLOCK + 2 * one


def test_zamba2_written_widths_win() -> None:
    """Zamba2Config sets head_dim (attention_head_dim), attention_hidden_size and hybrid_layer_ids after deriving
    them: the file's win; intermediate_size 0 or null is 4 × hidden_size."""
    narrow = 3 * 16 * 2 * 4 + 2 * 4 * 8  # head_dim 4: q, k, v 16 → 8, o 8 → 8
    assert model({**ZAMBA2, "head_dim": 4}).tree.total == ZAMBA2_TOTAL - ATTENTION + narrow
    assert model({**ZAMBA2, "attention_head_dim": 4}).tree.total == ZAMBA2_TOTAL - ATTENTION + narrow
    # attention_hidden_size 8: q, k, v 8 → 16 and the input norm 8 wide
    assert model({**ZAMBA2, "attention_hidden_size": 8}).tree.total == ZAMBA2_TOTAL - 3 * 8 * 16 - 8
    # five adapter slots: three more on the block's MLP
    assert model({**ZAMBA2, "hybrid_layer_ids": [1, 3, 5, 7, 9]}).tree.total == ZAMBA2_TOTAL + 3 * MLP_ADAPTER
    assert model({**ZAMBA2, "intermediate_size": 0}).tree.total == model({**ZAMBA2, "intermediate_size": 32}).tree.total


def test_zamba2_layer_types_replace_the_kinds_after_hybrid_layer_ids() -> None:
    """layer_types (layers_block_type's alias) is set after the class took hybrid_layer_ids from layers_block_type:
    the layers are layer_types', the adapter slots the other's hybrid layers'."""
    kinds = ["hybrid", "hybrid", "hybrid", "mamba"]
    config = {**ZAMBA2, "layer_types": kinds}
    assert model(config).tree.total == ZAMBA2_TOTAL + LINEAR  # one more hybrid layer, still 2 slots


def test_zamba2_refusals() -> None:
    assert errors({**ZAMBA2, "layers_block_type": ["mamba", "hybrid"]})  # 2 kinds for 4 layers
    assert errors({**ZAMBA2, "layers_block_type": ["mamba", "hybrid", "mamba", "shared"]})
    assert errors({**ZAMBA2, "num_mem_blocks": 0})
    assert not errors({**ZAMBA2, "num_mem_blocks": 0, "layers_block_type": ["mamba"] * 4})
    assert errors({**ZAMBA2, "hybrid_layer_ids": None})
    assert errors({**ZAMBA2, "mamba_expand": 1.5})


def test_zamba2_cache_keys_and_values_per_hybrid_layer_state_per_layer() -> None:
    """5 tokens, batch 1, bfloat16: keys and values 2 hybrid layers × 2 × 2 kv heads × 8 × 5 tokens × 2 bytes; every
    layer its conv state (24 channels × 3, 2 bytes) and recurrent state (16 × 4 values in float32)."""
    line = estimate_memory(model(ZAMBA2), Settings(context=5, batch=1)).line("kv_cache")
    assert line is not None and line.exact
    assert line.bytes == 2 * 2 * 2 * 8 * 5 * 2 + 4 * (24 * 3 * 2 + 16 * 4 * 4)


# Zamba: 8 wide, 3 layers (the last two hybrid), vocab 32; the shared attention 16 wide, 2 heads of 8; its gated MLP
# 12 wide; the Mamba mixer 16 wide in 2 heads of 8, state 4, kernel 3, dt rank ceil(8 / 16) = 1.
ZAMBA = {"model_type": "zamba", "architectures": ["ZambaForCausalLM"], "hidden_size": 8, "vocab_size": 32,
         "num_hidden_layers": 3, "layers_block_type": ["mamba", "hybrid", "hybrid"], "num_attention_heads": 2,
         "num_key_value_heads": 2, "intermediate_size": 12, "mamba_expand": 2, "n_mamba_heads": 2,
         "mamba_d_state": 4, "mamba_d_conv": 3}
# in_proj 8 → 2 × 16, conv 16 × 3 + bias, x_proj_weight 2 × (1 + 2·4) × 8, dt_proj_weight 2 × 8 × 1, dt_proj_bias 16,
# A_log 2 × 8 × 4, D 16, out_proj 16 → 8; the input norm 8
MAMBA_LAYER = 8 * 32 + (16 * 3 + 16) + 2 * 9 * 8 + 16 + 16 + 2 * 8 * 4 + 16 + 16 * 8 + 8
assert MAMBA_LAYER == 712
ZAMBA_BLOCK = ATTENTION + 2 * 8 * 12 + 12 * 8 + BLOCK_NORMS  # gate_proj, up_proj, down_proj
assert ZAMBA_BLOCK == 1_208
ZAMBA_TOTAL = 32 * 8 + 3 * MAMBA_LAYER + 2 * LINEAR + ZAMBA_BLOCK + 8
assert ZAMBA_TOTAL == 3_736


def test_zamba_counts_its_one_shared_block() -> None:
    m = model(ZAMBA)
    assert m.tree.total == ZAMBA_TOTAL
    assert m.tree.root.child("shared_transf").total == ZAMBA_BLOCK
    assert model({**ZAMBA, "tie_word_embeddings": False}).tree.total == ZAMBA_TOTAL + ZAMBA_BLOCK + 32 * 8
    # head_dim (an alias set after the class fills attention_head_dim) wins over attention_head_dim; a 0 or null
    # attention_head_dim is 2 × hidden / heads
    narrow = 3 * 16 * 8 + 8 * 8
    assert model({**ZAMBA, "head_dim": 4, "attention_head_dim": 6}).tree.total == ZAMBA_TOTAL - ATTENTION + narrow
    assert model({**ZAMBA, "attention_head_dim": 0}).tree.total == ZAMBA_TOTAL
    assert errors({**ZAMBA, "head_dim": 0})


def test_zamba_default_layers_and_refusals() -> None:
    """Without layers_block_type: Mamba, Mamba, hybrid, then hybrid where i % attn_layer_period == attn_layer_offset
    (here 7 layers, period 2, offset 1: the 3rd, 5th and 7th)."""
    config = {k: v for k, v in ZAMBA.items() if k != "layers_block_type"}
    config.update(num_hidden_layers=7, attn_layer_period=2, attn_layer_offset=1)
    assert model(config).tree.total == 32 * 8 + 7 * MAMBA_LAYER + 3 * LINEAR + ZAMBA_BLOCK + 8
    # one hybrid layer, tied: transformers' tie of the block's other uses finds none and raises
    assert errors({**ZAMBA, "layers_block_type": ["mamba", "mamba", "hybrid"]})
    assert not errors({**ZAMBA, "layers_block_type": ["mamba", "mamba", "hybrid"], "tie_word_embeddings": False})
    assert errors({**ZAMBA, "n_mamba_heads": 3})  # 16 channels in 3 heads


def test_class_defaults_are_transformers() -> None:
    """What transformers 5.25 builds of each class's defaults (Zamba2: the 2.7B's 54 layers, 9 hybrid; Zamba: 7B's
    76 layers), on the meta device."""
    assert model({"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"]}).tree.total == 2_481_848_336
    assert model({"model_type": "zamba2", "architectures": ["Zamba2ForSequenceClassification"]}).tree.total == \
        2_481_853_456
    assert model({"model_type": "zamba", "architectures": ["ZambaForCausalLM"]}).tree.total == 7_232_490_496
