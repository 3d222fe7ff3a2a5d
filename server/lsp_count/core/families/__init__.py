"""The family table: every supported ``model_type`` as data.

Each family module contributes ``FAMILIES``, a tuple of ``Family`` rows. Adding a
family means adding a row (and a parity test case), not writing a counter.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Mapping

from lsp_count.core.spec import Family

# Keys under which transformers 5.25's config class takes a whole-number float (12.0), by family:
# attribute_map aliases, which it sets after its strict field checks (GPT-2's num_attention_heads is
# its n_head), and keys it does not declare, kept as they are (BLOOM's max_position_embeddings).
# Under every other size key it refuses one, and so does the count (LC102).
# tests/parity/test_config_float_parity.py checks every family's every size key against transformers.
FLOAT_KEYS: Mapping[str, tuple[str, ...]] = {
    "bart": ("num_attention_heads",), "mbart": ("num_attention_heads",), "bloom": ("num_attention_heads", "max_position_embeddings"),
    "distilbert": ("num_attention_heads",), "gpt2": ("num_attention_heads",),
    "gptj": ("num_attention_heads", "max_position_embeddings"), "qwen2_5_vl_vision": ("num_attention_heads",),
    "qwen2_vl_vision": ("num_attention_heads",),
    "whisper": ("num_attention_heads", "num_key_value_heads"),
    "switch_transformers": ("encoder_sparse_step", "decoder_sparse_step"),
}


@lru_cache(maxsize=1)
def registry() -> Mapping[str, Family]:
    from lsp_count.core.families import decoders, encoders, multimodal, seq2seq

    table: dict[str, Family] = {}
    for module in (decoders, encoders, seq2seq, multimodal):
        for family in module.FAMILIES:
            table[family.model_type] = replace(family, float_keys=FLOAT_KEYS.get(family.model_type, ()))
    return table


def find_family(model_type: str) -> Family | None:
    return registry().get(model_type)


def supported_model_types() -> tuple[str, ...]:
    return tuple(sorted(registry()))
