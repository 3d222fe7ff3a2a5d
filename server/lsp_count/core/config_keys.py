"""Misspelt config keys: a key the config class does not read, one slip away from one it does.

transformers keeps an unknown key as an attribute and builds the model with the default of the
key that was meant (``"hiden_size": 1024`` builds a 4,096-wide Llama). The count of such a file is
exact, and surely not what its author wanted: we say which key was probably meant.

A key is taken for a slip only where it is read by no family at all (a key another config class
reads is a real word: a leftover, not a typo), is close to one this family reads, and that key is
absent from the file (a file that writes both meant both). ``tests/parity/test_config_keys_parity.py``
checks that no key any config class writes is ever taken for one.
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
# Nemotron-H's mtp_layers_block_type (near layers_block_type).
_SAVED_BY_CLASSES = frozenset({"qk_head_dim", "n_group", "mtp_layers_block_type"})
# A key starting with "_" is written by a tool, not by hand (old transformers' _num_labels,
# _name_or_path), and is not a slip.


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
        if len(key) < _SHORTEST or key.startswith("_") or key in known:
            continue
        meant = next((near for near in _near_keys(family.model_type, key) if near not in mapping), None)
        if meant is None:
            continue
        used = next((values[name] for name, f in family.fields.items() if meant in f.keys and name in values), None)
        instead = f" (not written, so {meant} is {_shown(used)})" if used is not None else ""
        problems.append(Problem(
            "warning", "LC107",
            f'"{key}" is not a key the {family.model_type} config reads: did you mean "{meant}"?{instead}',
            node.key_span or node.span, (("key", meant),)))
    return problems


def _shown(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, int):
        return f"{value:,}"
    return repr(value) if isinstance(value, str) else str(value)
