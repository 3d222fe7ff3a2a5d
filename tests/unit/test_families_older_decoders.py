"""GPT-NeoX-Japanese without torch: its classes' defaults, a small config counted by hand, the configs transformers
refuses, and its KV cache (the plain decoder's: every head a key/value head).

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks every
family against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import errors, model
from lsp_count.core.memory import Settings, estimate_memory

# hidden 8, 2 heads, 2 layers, 20 tokens; the MLP intermediate_multiple_size (2) × hidden wide: 16.
SMALL = {"model_type": "gpt_neox_japanese", "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 2,
         "vocab_size": 20, "intermediate_multiple_size": 2}


@pytest.mark.parametrize("architecture, total", [
    ("GPTNeoXJapaneseForCausalLM", 2_598_837_760),  # tied: the head is the embedding
    ("GPTNeoXJapaneseModel", 2_598_837_760),
])
def test_class_defaults_equal_transformers(architecture: str, total: int) -> None:
    assert model({"model_type": "gpt_neox_japanese", "architectures": [architecture]}).tree.total == total


def test_gpt_neox_japanese_by_hand() -> None:
    # query_key_value 8 → 24 and dense 8 → 8, no biases (256); dense_h_to_4h and dense_4h_to_h, 8 ↔ 16, no biases
    # (256); two LayerNorms (32): 544 a layer.
    layer = 8 * 24 + 8 * 8 + 2 * 8 * 16 + 2 * 16
    tied = model({**SMALL, "architectures": ["GPTNeoXJapaneseForCausalLM"]}).tree
    # embed_in, two layers, the last layer's attention.dense_bias (8), final_layer_norm (16); the head tied.
    assert tied.total == 20 * 8 + 2 * layer + 8 + 16 == 1272
    untied = model({**SMALL, "architectures": ["GPTNeoXJapaneseForCausalLM"], "tie_word_embeddings": False}).tree
    assert untied.total == 1272 + 20 * 8 == 1432  # embed_out, no bias
    # Heads that do not divide the width: the projections stay hidden wide (9 → 27, 9 → 9), the model builds.
    assert model({**SMALL, "hidden_size": 9}).tree.total == 1575


def test_gpt_neox_japanese_refuses_a_null_rotary_share() -> None:
    assert errors({**SMALL, "rotary_pct": None})


def test_gpt_neox_japanese_kv_cache_is_every_head_s() -> None:
    line = estimate_memory(model(SMALL), Settings(context=100, batch=1)).line("kv_cache")
    assert line.bytes == 2 * 2 * 2 * 4 * 100 * 2  # layers × (k, v) × heads × head width × tokens × bf16
