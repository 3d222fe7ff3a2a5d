"""Older decoders on the llama-shaped decoder layout: GPT-NeoX-Japanese (GPT-NeoX's fused attention without biases,
an MLP intermediate_multiple_size × hidden wide, and an attention bias vector in the last layer alone).

Defaults are transformers 5.25's config classes'. See decoders.py for the table conventions.
"""

from __future__ import annotations

from lsp_count.core.families.decoders import FLOOR_HEADS, GPT_STYLE, HEAD_DIM, KV_HEADS, WRITTEN_HEAD_DIM, d, decoder, fixed
from lsp_count.core.spec import Derived, Family, Field

GPT_NEOX_JAPANESE = {
    "num_kv_heads": fixed(KV_HEADS),
    "head_dim": fixed(HEAD_DIM),
    # query_key_value (hidden → 3 × hidden) and dense (hidden → hidden) whatever width the heads floor to.
    "q_from_hidden": fixed(True), "kv_from_hidden": fixed(True),
    "q_bias": fixed(False), "k_bias": fixed(False), "v_bias": fixed(False), "o_bias": fixed(False),
    "mlp_bias": fixed(False),
    "intermediate_multiple_size": Field(("intermediate_multiple_size",), 4, minimum=0,
                                        doc="the MLP's width as a multiple of hidden_size"),
    "intermediate_size": fixed(Derived(lambda v: v["hidden_size"] * v["intermediate_multiple_size"],
                                       "hidden_size × intermediate_multiple_size")),
    "attn_names": fixed(("query_key_value", "dense")), "mlp_names": fixed(("dense_h_to_4h", "dense_4h_to_h")),
    # GPTNeoXJapaneseLayer: only the last layer's attention has a bias, a vector added after dense.
    "last_layer_vectors": fixed(("attention.dense_bias",)),
    "lm_head_name": fixed("embed_out"),
    "tie_embeddings": Field(("tie_word_embeddings",), True, "bool", doc="output head shares the embedding matrix"),
    # The config class rotates rotary_pct of each head (its own key, into rope_parameters).
    "partial_rotary_factor": Field(("rotary_pct",), 1.0, "float", null="reject",
                                   doc="share of each head's width the rotary positions turn (no parameters)"),
    "sliding_window": fixed(None),
    "layer_types": fixed(None),
}

FAMILIES: tuple[Family, ...] = (
    decoder("gpt_neox_japanese", "GPTNeoXJapaneseForCausalLM", WRITTEN_HEAD_DIM,
            d(vocab_size=32000, hidden_size=2560, num_layers=32, num_heads=32), GPT_STYLE, FLOOR_HEADS, GPT_NEOX_JAPANESE,
            heads={"GPTNeoXJapaneseForCausalLM": "causal_lm", "GPTNeoXJapaneseModel": "base"},
            notes=("GPT-NeoX-Japanese's last layer alone has an attention bias (dense_bias, hidden_size wide)",),
            float_keys=("head_dim",), pads=False),
)
