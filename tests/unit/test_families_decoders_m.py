"""Kolibri 1.1 (kolibri1_1), without torch: small configs counted by hand (the arithmetic in each test), the class
defaults as transformers 5.25 builds them on the meta device (``sum(p.numel() for p in model.parameters())``, taken
there once), what the cache holds (checked against transformers' cache after a forward pass where transformers is
installed), LoRA as peft 0.22 adapts the small models, and the configs the classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.layouts.decoder import layer_indices

from config_models import (assert_cache_is_what_a_forward_pass_fills, assert_class_default_total, assert_lora_counts,
                           assert_peft_lora_counts, error_messages as errors, kv_cache_bytes as kv_bytes,
                           model as count)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("kolibri1_1", "Kolibri1_1ForCausalLM"): 75_112_646_912,
    ("kolibri1_1", "Kolibri1_1Model"): 74_784_966_912,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert_class_default_total(model_type, architecture, CLASS_DEFAULTS[(model_type, architecture)])


# --- Kolibri 1.1 ----------------------------------------------------------------------------------------------------

# Vocabulary 32, hidden 16, ten layers, 2 query heads and 1 key/value head of 16 (Kolibri1_1Config wants a multiple of
# 16), dense MLPs 24 wide, 4 experts 8 wide (2 a token) and a shared expert 8 wide.
KOLIBRI1_1 = {"model_type": "kolibri1_1", "vocab_size": 32, "hidden_size": 16, "num_hidden_layers": 10,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16, "index_num_heads": 2,
              "mlp_only_intermediate_size": 24, "moe_intermediate_size": 8, "num_experts": 4, "num_experts_per_tok": 2,
              "shared_expert_intermediate_size": 8, "sliding_window": 16}
Q_O = 16 * 32 + 32 * 16  # q_proj, o_proj: 1,024
K_V = 2 * 16 * 16  # k_proj, v_proj: 512
QK_NORMS = 2 * 16  # RMS norms over each head's q and k
NORMS = 4 * 16  # Kolibri 1's (GLM-4's) four norms a layer
GATED = 3 * 16 * 24  # a dense MLP: 1,152
EXPERT = 2 * 8 * 16 + 16 * 8  # gate_up_proj, down_proj: 384
MOE = 4 * 16 + 4 * EXPERT + 3 * 16 * 8  # a router of one weight, 4 experts, the shared expert: 1,984
EDGES = 32 * 16 + 16 + 16 * 32  # embed_tokens, the final norm, an untied lm_head: 1,040


def test_kolibri1_1_by_hand() -> None:
    # Layers 4 and 9 indexed (every fifth), the others sliding; by the default kv_source_layers layer 9 (the second
    # indexed layer) attends to layer 4's keys and values: no k_proj, v_proj or k_norm. The first two layers dense.
    own = Q_O + K_V + QK_NORMS
    shared = Q_O + 16  # q_norm alone
    model = count(KOLIBRI1_1)
    assert model.tree.total == 2 * (own + GATED + NORMS) + 7 * (own + MOE + NORMS) + (shared + MOE + NORMS) \
        + EDGES == 35_008
    assert model.tree.active == 35_008 - 8 * 2 * EXPERT
    assert layer_indices(model.spec) == {"dense_layers": (0, 1), "moe_layers": (2, 3, 4, 5, 6, 7, 8),
                                         "moe_layers_kv_shared": (9,)}
    # every layer its own keys and values
    assert count({**KOLIBRI1_1, "kv_source_layers": list(range(10))}).tree.total == 35_008 + K_V + 16
    # no dense layer; num_local_experts is num_experts' alias (set after the fields: it wins)
    assert count({**KOLIBRI1_1, "mlp_only_layers": []}).tree.total == 35_008 + 2 * (MOE - GATED)
    assert count({**KOLIBRI1_1, "num_local_experts": 2, "num_experts_per_tok": 1}).tree.total == 35_008 - 8 * 2 * (
        16 + EXPERT)
    assert count({**KOLIBRI1_1, "architectures": ["Kolibri1_1Model"]}).tree.total == 35_008 - 16 * 32


def test_kolibri1_1_cache() -> None:
    # At 20 tokens: 8 sliding layers keep the last 16, layer 4 all 20, layer 9 none (it reads layer 4's):
    # (8 × 16 + 20) token-layers × keys and values × 1 head × 16 × 2 bytes
    assert kv_bytes(KOLIBRI1_1, 20) == (8 * 16 + 20) * 2 * 16 * 2 == 9_472
    assert kv_bytes({**KOLIBRI1_1, "kv_source_layers": list(range(10))}, 20) == 9_472 + 20 * 2 * 16 * 2


def test_kolibri1_1_refusals() -> None:
    assert errors({**KOLIBRI1_1, "head_dim": 8})  # not a multiple of 16
    assert errors({**KOLIBRI1_1, "index_num_heads": 3})  # more than the 2 query heads of key head 0
    assert errors({**KOLIBRI1_1, "layer_types": ["full_attention"] * 10})  # Kolibri 1's type, not 1.1's
    assert errors({**KOLIBRI1_1, "layer_types": ["sliding_attention"] * 9})
    assert errors({**KOLIBRI1_1, "kv_source_layers": [0, 0] + list(range(2, 10))})  # a sliding layer cannot read
    assert errors({**KOLIBRI1_1, "kv_source_layers": list(range(9)) + [3]})  # another attention type
    assert errors({**KOLIBRI1_1, "kv_source_layers": list(range(10))[:9]})
    assert errors({**KOLIBRI1_1, "index_layers": [9]})  # the first indexed layer must be an indexer
    assert not errors({**KOLIBRI1_1, "index_layers": [4, 9]})
    assert errors({**KOLIBRI1_1, "mlp_only_layers": [10]})
    assert errors({**KOLIBRI1_1, "mlp_only_intermediate_size": 0})
    assert not errors({**KOLIBRI1_1, "mlp_only_intermediate_size": 0, "mlp_only_layers": []})
    assert errors({**KOLIBRI1_1, "index_pool_size": 100})  # not a multiple of index_compression (16)
    assert errors({**KOLIBRI1_1, "sliding_window": None})
    # eleven indexed layers: the default kv_source_layers covers ten
    many = {**KOLIBRI1_1, "num_hidden_layers": 55, "mlp_only_layers": []}
    assert errors(many)
    assert not errors({**many, "kv_source_layers": list(range(55))})


# --- against transformers' cache ------------------------------------------------------------------------------------

CAUSAL_LM = {"kolibri1_1": (KOLIBRI1_1, "Kolibri1_1ForCausalLM")}


@pytest.mark.parametrize("model_type", sorted(CAUSAL_LM))
def test_caches_are_what_a_forward_pass_fills(model_type: str) -> None:
    """The same small models' caches, filled by a forward pass in transformers (where installed), byte for byte, below
    the sliding window."""
    assert_cache_is_what_a_forward_pass_fills(*CAUSAL_LM[model_type])


# --- LoRA -----------------------------------------------------------------------------------------------------------

# (targets, peft 0.22's (total, trainable) for rank 2 on the small models above, taken once; None: peft refuses them)
LORA = {
    "kolibri1_1": (("all-linear", (39_712, 4_704)), (["k_proj", "down_proj"], (36_128, 1_120)), (["gate"], None)),
}


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_adapts_what_peft_adapts(tmp_path, model_type: str) -> None:
    config, architecture = CAUSAL_LM[model_type]
    assert_lora_counts(tmp_path, {**config, "architectures": [architecture]}, LORA[model_type])


@pytest.mark.parametrize("model_type", sorted(LORA))
def test_lora_literals_are_peft_s(model_type: str) -> None:
    """The counts above, against peft on the meta device (where installed)."""
    config, architecture = CAUSAL_LM[model_type]
    assert_peft_lora_counts({**config, "architectures": [architecture]}, LORA[model_type])
