"""The family table: every supported ``model_type`` as data.

Each family module contributes ``FAMILIES``, a tuple of ``Family`` rows. Adding a
family means adding a row (and a parity test case), not writing a counter.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping

from lsp_count.core.spec import Family


@lru_cache(maxsize=1)
def registry() -> Mapping[str, Family]:
    from lsp_count.core.families import (classic, decoders, encoders, esm, gemma3n, gemma4, glm4v, hybrids, llama4,
                                         mllama, multimodal, recurrent_gemma, seq2seq, zamba)

    table: dict[str, Family] = {}
    for module in (decoders, encoders, seq2seq, multimodal, hybrids, gemma3n, gemma4, glm4v, mllama, esm,
                   recurrent_gemma, zamba, llama4, classic):
        for family in module.FAMILIES:
            table[family.model_type] = family
    return table


def find_family(model_type: str) -> Family | None:
    return registry().get(model_type)


def supported_model_types() -> tuple[str, ...]:
    return tuple(sorted(registry()))
