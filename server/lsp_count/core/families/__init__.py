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
            family = replace(family, keys_set_after_fields=frozenset(late)) if late else family
            table[family.model_type] = _takes_no_experts(family)
    return table


def _takes_no_experts(family: Family) -> Family:
    """A family whose ``without_experts`` switch says how its model is built with 0 experts ("moe", "dense") takes
    0 under its experts keys, which a size field's minimum of 1 would refuse."""
    experts, switch = family.fields.get("num_experts"), family.fields.get("without_experts")
    if experts is None or switch is None or switch.default not in ("moe", "dense") or experts.minimum != 1:
        return family
    return replace(family, fields={**family.fields, "num_experts": replace(experts, minimum=0)})


def find_family(model_type: str) -> Family | None:
    return registry().get(model_type)


def supported_model_types() -> tuple[str, ...]:
    return tuple(sorted(registry()))
