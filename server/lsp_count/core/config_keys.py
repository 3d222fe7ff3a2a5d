"""Misspelt config keys: a key the config class does not read, one slip away from one it does, or
another family's name for one it does.

transformers keeps an unknown key as an attribute and builds the model with the default of the
key that was meant (``"hiden_size": 1024`` builds a 4,096-wide Llama, and so does GPT-2's
``"n_embd": 1024``). The count of such a file is exact, and surely not what its author wanted: we
say which key was probably meant.

Two kinds of key are taken for one meant otherwise, each only where the key meant is absent from
the file (a file that writes both meant both; the other is a leftover):
- a slip: a key read by no family at all, close to one this family reads;
- another family's name: a key other families read as a size this family reads under another key
  (``n_layer``, ``d_model``, ``num_local_experts``), for the sizes whose name means the same in
  every family (_SYNONYM_FIELDS).
``tests/parity/test_config_keys_parity.py`` checks that no key any config class writes is ever
taken for one, and that each key taken is one the family's class does not read.
"""

from __future__ import annotations

import difflib
from functools import lru_cache

from lsp_count.core.families import registry
from lsp_count.core.source import Problem, SourceNode
from lsp_count.core.spec import Family

# difflib's ratio above which a key is one slip from another: a letter missing, doubled or
# swapped in a key of 6 or more letters (hiden_size, num_atention_heads, vocab_sizes).
_CLOSE = 0.85
_SHORTEST = 5  # below this every key is a slip from many others (n_ctx, n_head, d_ff)
# Keys a config class saves that no family reads, near one some family does (the parity test
# test_config_keys_parity.py names any a new family brings): DeepSeek's qk_head_dim (qk_nope_head_dim +
# qk_rope_head_dim, near v_head_dim); DeepSeek's and Nemotron-H's router groups n_group (near n_groups);
# Nemotron-H's mtp_layers_block_type (near layers_block_type); TAPAS's aggregation_labels (near
# num_aggregation_labels).
_SAVED_BY_CLASSES = frozenset({"qk_head_dim", "n_group", "mtp_layers_block_type", "aggregation_labels"})
# A key starting with "_" is written by a tool, not by hand (old transformers' _num_labels,
# _name_or_path), and is not a slip.
# The canonical fields whose meaning is one in every family, so that a family's key for one is
# another's name for the same size. Not the fields whose keys mean different things in different
# families: ``intermediate_size`` is Mixtral's expert width (moe_intermediate_size), Llama 4's
# ``attention_chunk_size`` is no sliding window, DeepSeek's ``qk_rope_head_dim`` is a part of
# the head, and a seq2seq config's encoder sizes are half of what a decoder's key names.
_SYNONYM_FIELDS = frozenset({"hidden_size", "num_layers", "num_heads", "num_kv_heads", "intermediate_size", "head_dim",
                             "vocab_size", "max_positions", "num_experts", "experts_per_token", "n_shared_experts",
                             "tie_embeddings", "embedding_size"})


@lru_cache(maxsize=None)
def _read_keys(model_type: str) -> tuple[str, ...]:
    """The keys a family reads (its fields' and its sub-configs'), sorted."""
    family = registry()[model_type]
    keys = {key for f in family.fields.values() for key in f.keys}
    keys |= {key for key, _type in family.subconfigs.values()}
    return tuple(sorted(keys))


@lru_cache(maxsize=1)
def _every_family_key() -> frozenset[str]:
    return frozenset(key for model_type in registry() for key in _read_keys(model_type)) | _SAVED_BY_CLASSES


@lru_cache(maxsize=1)
def _other_names() -> dict[str, tuple[tuple[str, str], ...]]:
    """key -> (family, canonical field) for each family that reads the key as a _SYNONYM_FIELDS size."""
    found: dict[str, list[tuple[str, str]]] = {}
    for model_type, family in sorted(registry().items()):
        for name, f in family.fields.items():
            for key in f.keys:
                found.setdefault(key, []).append((model_type, name))
    # Only keys every reader reads as a _SYNONYM_FIELDS size: Switch Transformers' d_model is also
    # its experts' width, which does not keep it from being its hidden_size; Mixtral's
    # intermediate_size is its experts' width alone, which does.
    return {key: tuple((mt, name) for mt, name in readers if name in _SYNONYM_FIELDS) for key, readers in found.items()
            if {mt for mt, name in readers if name in _SYNONYM_FIELDS} == {mt for mt, _ in readers}}


@lru_cache(maxsize=4096)
def _renamed_key(model_type: str, key: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(the key ``model_type``'s family reads for what other families read ``key`` as, a family
    that names it ``key``, every key the family reads it from); None where ``key`` is this family's
    own, is another family's name for no size this family reads, or names one that other families
    read as different sizes (``attention_bias``, ``num_heads`` of a seq2seq config)."""
    family = registry()[model_type]
    readers = _other_names().get(key)
    if not readers or key in _read_keys(model_type):
        return None
    names = {name for _, name in readers}
    field = family.fields.get(next(iter(names))) if len(names) == 1 else None
    if field is None or not field.keys:
        return None
    # A family whose own first name it is (GPT-2's n_layer), the shortest named (the best known:
    # gpt2 before bloom and codegen), else the first that reads it.
    first_names = sorted((len(mt), mt) for mt, name in readers if registry()[mt].fields[name].keys[0] == key)
    named_by = first_names[0][1] if first_names else readers[0][0]
    return field.keys[0], named_by, field.keys


@lru_cache(maxsize=4096)
def _near_keys(model_type: str, key: str) -> tuple[str, ...]:
    """The keys ``model_type``'s family reads that ``key`` is one slip from, closest first. (Cached: a
    document's keys are the same at each keystroke. Keys whose lengths alone put them below _CLOSE are not
    compared: difflib's ratio is at most 2·min(len) / (len + len).)"""
    candidates = [k for k in _read_keys(model_type) if 2 * min(len(k), len(key)) >= _CLOSE * (len(k) + len(key))]
    return tuple(difflib.get_close_matches(key, candidates, n=len(candidates), cutoff=_CLOSE)) if candidates else ()


def misspelt_keys(family: Family, root: SourceNode, values: dict[str, object]) -> list[Problem]:
    """A warning on each key of ``root`` (a config mapping of ``family``) that looks like a slip
    for a key the family reads and the file does not write, naming that key and the value used
    instead. ``data`` carries the key meant (``lsp/actions.py`` offers the rename)."""
    mapping = root.value
    if not isinstance(mapping, dict):
        return []
    known = _every_family_key()
    problems = []
    for key, node in mapping.items():
        if key.startswith("_"):
            continue
        if key in known:
            renamed = _renamed_key(family.model_type, key)
            if renamed is None or any(k in mapping for k in renamed[2]):
                continue
            meant, named_by = renamed[0], renamed[1]
            said = f'"{key}" is {named_by}\'s key, not one the {family.model_type} config reads'
        else:
            if len(key) < _SHORTEST:
                continue
            meant = next((near for near in _near_keys(family.model_type, key) if near not in mapping), None)
            if meant is None:
                continue
            said = f'"{key}" is not a key the {family.model_type} config reads'
        used = next((values[name] for name, f in family.fields.items() if meant in f.keys and name in values), None)
        instead = f" (not written, so {meant} is {_shown(used)})" if used is not None else ""
        problems.append(Problem("warning", "LC107", f'{said}: did you mean "{meant}"?{instead}',
                                node.key_span or node.span, (("key", meant),)))
    return problems


def _shown(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, int):
        return f"{value:,}"
    return repr(value) if isinstance(value, str) else str(value)
