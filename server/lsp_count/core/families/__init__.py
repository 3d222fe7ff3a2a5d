"""The family table: every supported ``model_type`` as data.

Each family module contributes ``FAMILIES``, a tuple of ``Family`` rows. Adding a
family means adding a row (and a parity test case), not writing a counter.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Mapping

from lsp_count.core.spec import Family


@lru_cache(maxsize=1)
def registry() -> Mapping[str, Family]:
    from lsp_count.core.families import (audio, bert_relatives, bert_variants, classic, convnets, decoders, encoders, esm,
                                         gemma3n, gemma4, glm4v, hybrids, llama4, mllama, multimodal, older_decoders,
                                         perceiver, qformer, recurrent_gemma, reused, seq2seq, speech, step3p7, swin, xlm,
                                         zamba)
    from lsp_count.core.families.attribute_maps import KEYS_SET_AFTER_FIELDS

    table: dict[str, Family] = {}
    # (reused last: its rows build other families' classes, which the class index keeps under the family first seen)
    for module in (decoders, encoders, seq2seq, multimodal, hybrids, gemma3n, gemma4, glm4v, step3p7, mllama, esm,
                   recurrent_gemma, zamba, llama4, classic, bert_variants, bert_relatives, xlm, older_decoders,
                   speech, convnets, swin, qformer, perceiver, audio, reused):
        for family in module.FAMILIES:
            late = KEYS_SET_AFTER_FIELDS.get(family.model_type)
            table[family.model_type] = replace(family, keys_set_after_fields=frozenset(late)) if late else family
    return table


def find_family(model_type: str) -> Family | None:
    return registry().get(model_type)


def supported_model_types() -> tuple[str, ...]:
    return tuple(sorted(registry()))
