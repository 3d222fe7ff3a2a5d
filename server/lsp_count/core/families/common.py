"""Fields every family shares."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Sequence

from lsp_count.core.source import Problem, Span
from lsp_count.core.spec import Derived, Field, ModelSpec


def num_labels_field(default: int = 2) -> Field:
    """num_labels: len(id2label) where the file gives one (an empty one is 0 labels, as transformers builds it),
    else the config class's ``default``."""
    return Field(("num_labels",), Derived(lambda v: default if v.get("id2label") is None else v["id2label"],
                                          f"len(id2label), else {default}"), minimum=0)


# Classification heads size themselves from id2label (transformers derives num_labels from it).
LABEL_FIELDS: dict[str, Field] = {
    "id2label": Field(("id2label",), None, "entries"),
    "num_labels": num_labels_field(),
}


def pad_token(default: int | None) -> Field:
    return Field(("pad_token_id",), default, "int?", minimum=-(10**9), doc="padding token (index into the vocabulary)")


def check_pad_token(spec: ModelSpec) -> list[Problem]:
    """nn.Embedding(vocab, d, padding_idx=pad_token_id) asserts the index lies in the vocabulary (Marian's
    decoder builds its own, decoder_vocab_size rows, before any tying: its vocabulary must hold it too), or in
    the embedding's rows where it has more (Mllama's text model: extra_embedding_rows for the image tokens)."""
    v = spec.values
    embeddings = [PaddedEmbedding("token embedding", "vocab_size", "vocab_size", int(v.get("extra_embedding_rows") or 0))]
    if isinstance(v.get("decoder_vocab_size"), int):
        embeddings.append(PaddedEmbedding("decoder's token embedding", "decoder_vocab_size", "decoder_vocab_written"))
    problem = pad_token_problem(spec, embeddings)
    return [problem] if problem is not None else []


@dataclass(frozen=True)
class PaddedEmbedding:
    """An embedding that takes pad_token_id as its padding index: what it is, the value holding its vocabulary
    (said as ``label``, else as the value's name), the field whose key locates it, and the rows it has beyond."""

    what: str
    vocabulary: str
    field: str
    extra_rows: int = 0
    label: str = ""


def pad_token_problem(spec: ModelSpec, embeddings: Sequence[PaddedEmbedding]) -> Problem | None:
    """The LC103 error for a pad_token_id outside the rows of the first of ``embeddings`` that refuses it (at
    pad_token_id's key, else the vocabulary's), or None."""
    v = spec.values
    pad = v.get("pad_token_id")
    if not isinstance(pad, int):
        return None
    written = "pad_token_id" if "pad_token_id" in spec.origins else "pad_token_id (class default)"
    for e in embeddings:
        vocab, extra = v.get(e.vocabulary), e.extra_rows
        if isinstance(vocab, int) and not -(vocab + extra) <= pad < vocab + extra:
            where = next((spec.key_span(f) for f in ("pad_token_id", e.field, "vocab_size") if spec.key_span(f)), None)
            label = e.label or e.vocabulary
            said = (f"the {e.what} ({label} {vocab} + {extra} rows): nn.Embedding refuses it" if extra else
                    f"the vocabulary ({label} {vocab}): the {e.what} refuses it")
            return Problem("error", "LC103", f"{written} {pad} is outside {said}", where or spec.span)
    return None


# The RoPE types transformers 5 knows (modeling_rope_utils: a _validate_<type>_rope_parameters and, but for the
# unscaled ones, a ROPE_INIT_FUNCTIONS entry), each with the keys its check requires of a mapping
# (_check_received_keys: a KeyError without them).
ROPE_TYPE_REQUIRED: dict[str, tuple[str, ...]] = {
    "default": (), "axial": (), "proportional": ("rope_theta",),
    "linear": ("factor",), "dynamic": ("factor",), "yarn": ("factor", "original_max_position_embeddings"),
    "longrope": ("short_factor", "long_factor", "original_max_position_embeddings"),
    "llama3": ("factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor", "rope_theta"),
}
# The keys a config class's own mapping needs: standardize_rope_params, run before the check, fills rope_theta and,
# for llama3, yarn and longrope, original_max_position_embeddings.
ROPE_TYPE_KEYS: dict[str, tuple[str, ...]] = {
    t: tuple(k for k in keys if k not in ("rope_theta", "original_max_position_embeddings"))
    for t, keys in ROPE_TYPE_REQUIRED.items()}
# The types a text model's rotary embedding builds: all but axial, which ROPE_INIT_FUNCTIONS has no entry for (the
# vision towers' own embeddings take it). A family whose classes take fewer (Phi-3's default and longrope) has its
# own table (Family field "rope_types").
TEXT_ROPE_TYPES = {t: keys for t, keys in ROPE_TYPE_KEYS.items() if t != "axial"}


def unbuilt_rotary(rope_type: object, turned: int | None) -> tuple[str, str] | None:
    """Why transformers cannot build the rotary embedding of ``rope_type`` over ``turned`` rotated values: (the
    type as said, the reason, with what to give instead), or None. YaRN's ramp has turned // 2 entries for
    ceil(turned / 2) frequencies (those of 3 and 1 broadcast); dynamic NTK scaling raises the base to the power
    dim / (dim - 2)."""
    if turned is None:
        return None
    if rope_type == "yarn" and turned > 4 and turned % 2:
        return "YaRN", ("an odd number: transformers cannot build its rotary embedding, which needs an even rotary "
                        "dimension (give a head width and {share} that rotate an even number)")
    if rope_type == "dynamic" and turned == 2:
        return "dynamic NTK scaling", ("which transformers raises the RoPE base to the power dim / (dim - 2) with, "
                                       "dividing by zero as it builds the model (give a head width and {share} that "
                                       "rotate more than 2)")
    return None


def written_rope(values: Mapping) -> tuple[str, object]:
    """The key a config's rotary settings are read from, and its value: the legacy rope_scaling where it is a
    non-empty mapping (it replaces rope_parameters), else rope_parameters."""
    scaling = values.get("rope_scaling")
    if isinstance(scaling, dict) and scaling:
        return "rope_scaling", scaling
    return "rope_parameters", values.get("rope_parameters")


def rope_entry_problem(entry: Mapping, types: Mapping[str, tuple[str, ...]], label: str, where: Span | None,
                       built: bool = True) -> Problem | None:
    """A rope_parameters entry transformers refuses: a type without a key it needs (its config class raises
    KeyError), a value its config class's check computes with that is null or not a number, or, where the model
    builds a rotary embedding (``built``), a type ``types`` does not hold (one transformers does not know, or this
    model does not take) or a value the embedding is computed from that is unusable. ``label``: the key, as the
    message names it."""
    rope_type = entry.get("rope_type", entry.get("type", "default"))
    taken = isinstance(rope_type, str) and rope_type in types
    if built and not taken:
        if isinstance(rope_type, str) and rope_type in ROPE_TYPE_REQUIRED:
            listed = ", ".join(f'"{t}"' for t in types)
            return Problem("error", "LC103", f'{label}: rope_type "{rope_type}" is not one this model takes '
                                             f"({listed}): transformers refuses it", where)
        known = ", ".join(f'"{t}"' for t in ROPE_TYPE_REQUIRED)
        return Problem("error", "LC103", f"{label}: rope_type {json.dumps(rope_type)} is not one transformers knows "
                                         f"({known}): its model cannot build the rotary embedding", where)
    needed = types[rope_type] if taken else ROPE_TYPE_KEYS.get(rope_type, ()) if isinstance(rope_type, str) else ()
    missing = [k for k in needed if k not in entry]
    if missing:
        needs = " and ".join(f'"{k}"' for k in missing)
        return Problem("error", "LC103", f'{label}: rope_type "{rope_type}" needs {needs}: transformers\' config '
                                         "class refuses it without (KeyError)", where)
    # The config class's check computes with some values (YaRN divides by its original length), and the rotary
    # embedding its frequencies with more as the model is built: a null or a string there fails.
    checked = _CHECKED_FROM.get(rope_type, ())
    for key in (*checked, *((*_BUILT_FROM.get(rope_type, ()), "rope_theta") if built else ())):
        value = entry.get(key)
        if key not in entry or _usable(rope_type, key, value):
            continue
        wanted = "a list of numbers" if key == "short_factor" else "a number other than 0" if value == 0 else "a number"
        what = "transformers' config class checks" if key in checked else "the rotary embedding is built from"
        return Problem("error", "LC103", f'{label}: "{key}" is {json.dumps(value)}, not {wanted}: {what} it '
                                         f"({rope_type}), and fails", where)
    return None


# The values each type's check in the config class computes with (_validate_yarn_rope_parameters divides
# max_position_embeddings by the original length; _validate_llama3_rope_parameters compares the others).
_CHECKED_FROM: dict[str, tuple[str, ...]] = {
    "yarn": ("original_max_position_embeddings",),
    "llama3": ("low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}


# The keys each type's frequencies are computed from as the model is built (modeling_rope_utils'
# _compute_*_parameters), besides rope_theta; longrope's long_factor is read only past the original length.
_BUILT_FROM: dict[str, tuple[str, ...]] = {
    "linear": ("factor",), "dynamic": ("factor",), "yarn": ("factor", "original_max_position_embeddings"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "longrope": ("short_factor", "original_max_position_embeddings", "factor"),
}
# Where a null is read as not given: longrope's factor (max_position_embeddings / the original length instead).
_NULL_TAKEN = frozenset({("longrope", "factor")})


def _usable(rope_type: object, key: str, value: object) -> bool:
    if key == "short_factor":
        return isinstance(value, list) and all(_is_number(x) for x in value)
    if rope_type == "yarn" and key == "original_max_position_embeddings" and value == 0:
        return False  # (the YaRN check divides by it)
    return _is_number(value) or (value is None and (rope_type, key) in _NULL_TAKEN)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float))


def window_per_layer_check(layers_field: str, layers_word: str):
    """A check of a Longformer-style ``attention_window`` (Longformer's and LED's encoder): one whole number for every
    layer, or a list of one per layer (its length that of ``layers_field``, the layers said as ``layers_word``); each
    even and positive (transformers raises ValueError, or asserts it in the layer's attention). Anything else fails to
    build: the config class's strict field check refuses a float, a bool, a string or a null."""
    def check(spec: ModelSpec) -> list[Problem]:
        v = spec.values
        window, layers = v.get("attention_window"), v.get(layers_field)
        at = spec.key_span("attention_window") or spec.span
        if isinstance(window, int) and not isinstance(window, bool):
            windows = [window]
        elif isinstance(window, list):
            if isinstance(layers, int) and len(window) != layers:
                return [Problem("error", "LC103", f"attention_window lists {len(window)} window"
                                                  f"{'' if len(window) == 1 else 's'} for {layers} {layers_word}"
                                                  f"{'' if layers == 1 else 's'}: transformers refuses it", at)]
            windows = window
        else:
            said = '"attention_window": null' if window is None else f"attention_window {json.dumps(window)}"
            return [Problem("error", "LC103", f"{said} is not a whole number or a list of one per {layers_word}: "
                                              "transformers cannot build the model", at)]
        # The config class takes a list of whole numbers only (512.0 in the list is refused).
        bad = [w for w in windows if isinstance(w, bool) or not isinstance(w, int) or w <= 0 or w % 2]
        if bad:
            return [Problem("error", "LC103", f"attention_window {json.dumps(bad[0])} is not an even, positive whole "
                                              "number: transformers refuses it", at)]
        return []
    return check


# BigBird's and BigBird-Pegasus's encoder attention: the block-sparse and the full one hold the same projections.
BIG_BIRD_ATTENTION_TYPE = Field(("attention_type",), "block_sparse", "str", null="reject",
                                doc='"block_sparse" or "original_full" attention (the same projections)')


def check_big_bird_attention(spec: ModelSpec) -> list[Problem]:
    """BigBird's attention builds one of two kinds and raises ValueError for any other attention_type."""
    kind = spec.values.get("attention_type")
    if kind in ("original_full", "block_sparse"):
        return []
    return [Problem("error", "LC103", f"attention_type {json.dumps(kind)}: {spec.architecture} builds "
                                      f"\"original_full\" or \"block_sparse\" attention and refuses any other",
                    spec.key_span("attention_type") or spec.span)]
