"""Laguna (laguna: LagunaForCausalLM, LagunaModel): class defaults from transformers 5.25 on the meta device, a small
config counted by hand, per-layer query heads, the router's frozen bias, a shared expert of no width, the KV cache of
its sliding-window layers, and the configs lsp-count or the class refuses."""

from __future__ import annotations

import copy
import importlib.util

import pytest

from config_models import (analyze, assert_cache_is_what_a_forward_pass_fills, errors, forward_cache_bytes,
                           kv_cache_bytes, model)

# sum(p.numel() for p in cls(LagunaConfig()).parameters()) on the meta device, transformers 5.25 (40 layers, the
# first dense; 256 experts of which 8 a token; the router bias of each MoE layer, 256 values, does not train).
CLASS_DEFAULTS = {"LagunaForCausalLM": 33_189_975_808, "LagunaModel": 32_984_454_912}


@pytest.mark.parametrize("architecture", sorted(CLASS_DEFAULTS))
def test_class_defaults(architecture):
    tree = model({"model_type": "laguna", "architectures": [architecture]}).tree
    assert tree.total == CLASS_DEFAULTS[architecture]
    assert tree.total - tree.trainable == 39 * 256


# hidden 8, 1 kv head, head_dim 4; layer 0 full attention with 2 query heads and a dense MLP, layer 1 sliding with 4
# query heads and experts.
SMALL = {"model_type": "laguna", "architectures": ["LagunaForCausalLM"], "vocab_size": 10, "hidden_size": 8,
         "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
         "intermediate_size": 6, "moe_intermediate_size": 2, "num_experts": 2, "num_experts_per_tok": 1,
         "shared_expert_intermediate_size": 3, "layer_types": ["full_attention", "sliding_attention"],
         "sliding_window": 4, "num_attention_heads_per_layer": [2, 4]}

# Layer 0: q 8·8 + k 8·4 + v 8·4 + o 8·8 + q/k norms 4 + 4 + g_proj (one gate per head) 8·2 = 216;
#          gated MLP 3·8·6 = 144; two norms 16.                                                         -> 376
# Layer 1: q 8·16 + k 32 + v 32 + o 16·8 + norms 8 + g_proj 8·4 = 360; router 2·8 = 16 and its bias 2 (frozen),
#          experts 2·(2·2·8 + 8·2) = 96, shared expert 3·8·3 = 72; two norms 16.                      -> 562
# Embeddings 10·8 = 80, final norm 8, lm_head 10·8 = 80.
SMALL_TOTAL = 80 + 376 + 562 + 8 + 80


def test_small_config_by_hand():
    tree = model(SMALL).tree
    assert (tree.total, tree.trainable) == (SMALL_TOTAL, SMALL_TOTAL - 2) == (1_106, 1_104)
    kinds = {path.rsplit(".", 1)[-1] for path, node, _ in tree.root.walk() if path.count(".") == 2}
    assert kinds == {"dense_layers", "moe_layers_sliding"}


def test_the_bare_model_and_a_gate_per_channel():
    assert model({**SMALL, "architectures": ["LagunaModel"]}).tree.total == SMALL_TOTAL - 80
    for gating, extra in ((True, 0), ("per-head", 0), ("per-element", 8 * 8 - 16 + 8 * 16 - 32), (False, 144)):
        assert model({**SMALL, "gating": gating}).tree.total == SMALL_TOTAL + extra, gating


def test_heads_per_layer_default_to_num_attention_heads():
    cfg = {k: v for k, v in SMALL.items() if k != "num_attention_heads_per_layer"}
    assert model(cfg).tree.total == SMALL_TOTAL - (8 * 8 + 8 * 8 + 8 * 2)  # layer 1's q, o and g_proj at 2 heads


def test_a_shared_expert_of_no_width_is_built_and_counts_nothing():
    tree = model({**SMALL, "shared_expert_intermediate_size": 0}).tree
    assert tree.total == SMALL_TOTAL - 72
    shared = [node for path, node, _ in tree.root.walk() if path.endswith("shared_experts")]
    assert shared and shared[0].total == 0 and "0 wide" in shared[0].note


def test_the_sliding_layers_cache_their_window():
    # (the forward pass's token ids are under 32; its bfloat16 matrix products on the CPU want rows 16 bytes wide)
    cfg = {**SMALL, "vocab_size": 32, "head_dim": 8, "moe_intermediate_size": 8, "intermediate_size": 8}
    # 7 tokens, a window of 4: the full-attention layer keeps every token, the sliding one its window, keys and
    # values of 1 head 8 wide, 2 sequences, bfloat16. (transformers' dynamic cache keeps window - 1 after the pass;
    # the attention holds the whole window while it runs, which the estimate counts)
    assert kv_cache_bytes(cfg, 7, 2) == 2 * 2 * 1 * 8 * 2 * (7 + 4)
    if importlib.util.find_spec("torch") and importlib.util.find_spec("transformers"):
        assert forward_cache_bytes(cfg, "LagunaForCausalLM") == 2 * 2 * 1 * 8 * 2 * (7 + 3)
    assert_cache_is_what_a_forward_pass_fills({**cfg, "sliding_window": 16}, "LagunaForCausalLM")


def test_refusals():
    cfg = copy.deepcopy(SMALL)
    cfg["layer_types"] = ["sliding_attention", "sliding_attention"]  # two sliding layers of 2 and 4 heads
    (problem,) = errors(cfg)
    assert problem.code == "LC101" and "the sliding-window layers have 2, 4 query heads" in problem.message
    text = analyze(cfg).problems[0]
    assert text.span is not None and text.span.start.line > 0  # at the key
    assert any('"num_attention_heads_per_layer": 3 entries for 2 layers' in e.message
               for e in errors({**SMALL, "num_attention_heads_per_layer": [2, 4, 4]}))
    assert any('"gating": 1 is not true, false or a text' in e.message for e in errors({**SMALL, "gating": 1}))
    assert any('"gating": null' in e.message for e in errors({**SMALL, "gating": None}))
    assert any('"sliding_window": null' in e.message for e in errors({**SMALL, "sliding_window": None}))
