"""ModelSpec: what a config says about a model's architecture, with where it says it.

Families are data (``lsp_count.core.families``): each canonical field lists the
config keys that may hold it (aliases, first found wins) and the default the
transformers config class uses when the file omits it. ``resolve_spec`` reads
a config mapping through that table, validates every number, and remembers the
source span of each key it used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Mapping

from lsp_count.core.source import Problem, SourceNode, Span

# The largest dimension we accept; beyond this a config is a typo or hostile.
MAX_DIMENSION = 10**9
MAX_TOTAL = 10**18
# Layer counts are repeated structure: the count and the memory plan keep per-layer lists (layer
# types, sliding windows), as transformers builds one module per layer. The deepest real models
# have a few hundred layers; a billion is a held-down key, which would take minutes and gigabytes.
MAX_LAYERS = 100_000
# The canonical fields (every family's) that count layers or blocks.
LAYER_COUNT_FIELDS = frozenset({"num_layers", "encoder_layers", "decoder_layers", "decoder_layers_written", "depth",
                                "num_layers_key", "num_layers_per_stack"})


def size_limit(name: str) -> tuple[int, str]:
    """The largest value a size field accepts, and what a message calls it."""
    return (MAX_LAYERS, "layer count") if name in LAYER_COUNT_FIELDS else (MAX_DIMENSION, "dimension")


@dataclass(frozen=True)
class Derived:
    """A default computed from other fields (``head_dim = hidden_size // num_attention_heads``)."""

    fn: Callable[[Mapping[str, object]], object]
    text: str


@dataclass(frozen=True)
class Field:
    """One architectural number or switch, and how a config spells it.

    ``kind``: "int" (a size, ≥ ``minimum``), "int?" (a size or null), "int|auto"
    (a size, or the string "auto" for the default), "bool",
    "float", "str", "ints" (a list of ints), "strs" (a list of strings), "entries" (how many
    entries a mapping has: id2label counts only by its length), "any".
    ``keys`` empty means a fixed switch of the family, not read from the file.
    ``null``: what a key written as null means, as transformers 5.25 reads it. "" (by kind): an
    error for "int", "int|auto", "bool" and "float" (the config class rejects it, or keeps a None
    its model cannot be built with), None for "int?", "str" and "strs", no entries for "ints";
    "reject": an error for any kind; "default": as if the key were absent (the config class fills
    it: ``num_key_value_heads`` null is ``num_attention_heads``); "false": false (the class keeps
    the None, which the model reads as false); "none": None (an unknown the count does without,
    as ``num_experts_per_tok`` for the active count); a tuple of keys: those keys' null as absent
    (legacy aliases the class pops, Falcon's ``n_embed``), an error in the others; a ``Derived``:
    the value the class fills a null with where it is not the default (SmolLM3's
    ``num_key_value_heads``: 4 when absent, ``num_attention_heads`` when null).
    ``tests/parity/test_config_null_parity.py`` checks every family's every key against transformers.
    """

    keys: tuple[str, ...] = ()
    default: object = None
    kind: str = "int"
    minimum: int = 1
    doc: str = ""
    null: str | tuple[str, ...] | Derived = ""

    def __post_init__(self) -> None:
        # Families are data: a misspelt kind fails when the table is built, not on some config later.
        if self.kind not in FIELD_KINDS:
            raise ValueError(f"unknown field kind {self.kind!r} (kinds: {', '.join(FIELD_KINDS)})")
        if isinstance(self.null, str) and self.null not in NULL_MEANINGS:
            raise ValueError(f"unknown null meaning {self.null!r} (meanings: {', '.join(map(repr, NULL_MEANINGS))})")

    def default_text(self) -> str:
        """The default as a message says it: the rule of a derived one, else its JSON."""
        return self.default.text if isinstance(self.default, Derived) else json.dumps(self.default)

    def null_meaning(self, key: str) -> str:
        """What a null under ``key`` means: "default", "derived" (Field.null is the value), "reject",
        "false", "none" or "" (by kind)."""
        if isinstance(self.null, tuple):
            return "default" if key in self.null else "reject"
        return "derived" if isinstance(self.null, Derived) else self.null


FIELD_KINDS = ("int", "int?", "int|auto", "bool", "float", "str", "ints", "strs", "entries", "any")
NULL_MEANINGS = ("", "reject", "default", "false", "none")


@dataclass(frozen=True)
class Family:
    """A model family: its layout (which engine builder counts it) and its fields."""

    model_type: str
    layout: str
    architecture: str  # the class counted when the config names none
    fields: Mapping[str, Field]
    # transformers class name -> head variant the layout builds ("causal_lm", "base", ...).
    heads: Mapping[str, str] = field(default_factory=dict)
    # Nested configs: field name -> (config key, model_type used when the sub-config names none).
    subconfigs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # Sub-configs (field names of ``subconfigs``) whose class the composite's config class fixes:
    # transformers builds them as that class whatever the nested mapping's "model_type" says (a
    # ``sub_configs_defaults`` entry naming a config class, not AutoConfig; Qwen2.5-VL's old
    # checkpoints write "qwen2_5_vl" there). Their "model_type" and "architectures" keys are not
    # read: they resolve through the model_type ``subconfigs`` names.
    fixed_subconfigs: tuple[str, ...] = ()
    # Sub-configs (field names of ``subconfigs``) read from the composite's own top-level keys when
    # their key is absent or null (Qwen2.5-VL's Hub configs are flat: Qwen2_5_VLConfig pops the text
    # config's keys from the top level when there is no text_config). Every top-level key goes to
    # the sub-config but the composite's own fields' keys (tie_word_embeddings stays the
    # composite's), the sub-configs' keys, "model_type" and "architectures". A nested mapping, when
    # given, wins: the top-level keys are then not the sub-model's.
    flat_subconfigs: tuple[str, ...] = ()
    # Sub-configs (field names of ``subconfigs``) a null or absent key leaves out: transformers builds no such
    # sub-model (``SubConfigSpec(optional=True)``: Gemma 4's vision_config and audio_config). No sub-spec then.
    optional_subconfigs: tuple[str, ...] = ()
    # model_types the composite's config class renames in a nested sub-config before it reads it (EXAONE 4.5's first
    # releases' text_config "exaone4_5_text", read as exaone4): the name written -> the family read.
    subconfig_renames: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    # Keys under which the config class takes a whole-number float (12.0): attribute_map aliases,
    # which it sets after its strict field checks (GPT-2's num_attention_heads is its n_head), and
    # keys it does not declare (BLOOM's max_position_embeddings). Under every other size key a
    # float is refused, as the class refuses it (tests/parity/test_config_float_parity.py).
    float_keys: tuple[str, ...] = ()
    # transformers' _keep_in_fp32_modules (kept in float32 when the weights are float16) and
    # _keep_in_fp32_modules_strict (float16 and bfloat16): patterns searched in each tensor's name.
    fp32_modules: tuple[str, ...] = ()
    fp32_modules_strict: tuple[str, ...] = ()
    # Linear layers (tensor module names) whose class is not nn.Linear itself: a subclass (Falcon's FalconLinear) or
    # a layer of its own (DeepSeek-V4's grouped o_a_proj). transformers' bitsandbytes integration replaces
    # ``type(module) is nn.Linear`` alone, so it leaves them in the compute dtype.
    unreplaced_linears: tuple[str, ...] = ()
    # The MoE router module holds a plain nn.Linear under the name a bare router's weight has (AFMoE's router.gate),
    # which bitsandbytes quantizes (precision.is_bare_router takes a ``router`` node's gate for a bare parameter).
    router_holds_linear: bool = False
    # A causal LM on the encoder layout that keeps a KV cache as a decoder does: "is_decoder" where transformers gives
    # it one only when its config's is_decoder is true (BertLMHeadModel and its relatives), "always" where it always
    # does (ModernBERT's decoder, whose sliding layers keep local_attention // 2 tokens), "per_forward" where its
    # forward pass builds one and drops it (XLM: generation keeps none between steps, each step recomputes the whole
    # sequence, and a step's keys and values are held while it runs); "" where it is not modelled.
    decoder_cache: str = ""
    # Family-specific consistency checks, ``check(spec) -> list[Problem]``, run after the generic ones.
    checks: tuple[Callable[["ModelSpec"], list[Problem]], ...] = ()
    # Keys of the fields that the config class takes as keyword arguments beside its dataclass fields (attribute_map
    # aliases): transformers sets them after the fields, so written beside a field's name such a key wins, and of two
    # such keys the one written last. The registry fills it from families/attribute_maps.py.
    keys_set_after_fields: frozenset[str] = frozenset()
    # Fields a head's classes never read (head -> field names): BartForCausalLM builds no encoder. Written under one of
    # keys_set_after_fields, which the config class does not check, any value is taken (and not used).
    unread_by_head: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: canonical values, where each came from, and nested specs."""

    name: str
    family: Family
    architecture: str
    head: str
    values: Mapping[str, object]
    # canonical field -> (config key used, span of the key) for values read from the file.
    origins: Mapping[str, tuple[str, Span]]
    # Fields whose key the file writes as null and whose value is what the class fills it with
    # (a Derived Field.null): their origin is the null's key, their value not the file's.
    filled_nulls: frozenset[str] = frozenset()
    subspecs: Mapping[str, "ModelSpec"] = field(default_factory=dict)
    span: Span | None = None
    dtype: str | None = None
    # The quantization_config mapping as written, if any.
    quantization: Mapping[str, object] | None = None
    # What resolving found that does not stop the count (warnings, info), located in the document.
    problems: tuple[Problem, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(p.message for p in self.problems)

    @property
    def model_type(self) -> str:
        return self.family.model_type

    def __getitem__(self, name: str) -> object:
        return self.values[name]

    def int(self, name: str) -> int:
        value = self.values[name]
        if value is None and name in self.origins:  # a null the config class keeps (Field.null "none")
            key, span = self.origins[name]
            raise SpecError((Problem(
                "error", "LC102", f'"{key}": null is not a whole number: {self.architecture} needs one here '
                                  f'(leaving the key out takes the default, {self.family.fields[name].default_text()})',
                span),))
        assert isinstance(value, int), name
        return value

    def key_span(self, name: str) -> Span | None:
        origin = self.origins.get(name)
        return origin[1] if origin else None

    def key_name(self, name: str) -> str | None:
        origin = self.origins.get(name)
        return origin[0] if origin else None

    def key_label(self, name: str) -> str:
        """The config key a field was read from, or where the file does not give it, its first spelling
        (its own name for a field no key sets): what a message calls it."""
        return self.key_name(name) or next(iter(self.family.fields[name].keys), name)


def head_labels(values: dict[str, object]) -> int:
    """A classification head's outputs: num_labels (0 where id2label is written empty, as
    transformers builds it), 2 where nothing says."""
    labels = values.get("num_labels")
    return 2 if labels is None else int(labels)  # type: ignore[call-overload]


class SpecError(Exception):
    """A config that cannot be counted, with the problems that say why."""

    def __init__(self, problems: tuple[Problem, ...]) -> None:
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (dict,)):
        return "an object"
    if isinstance(value, tuple):
        return "a list"
    return type(value).__name__


_KIND_WORDS = {"int": "a whole number", "int|auto": "a whole number or \"auto\"", "bool": "true or false",
               "float": "a number"}


def _check(name: str, key: str, f: Field, node: SourceNode, float_ok: bool = False,
           kept_by_class: bool = False) -> tuple[object, Problem | None]:
    """Validate one value; return (value, problem). ``float_ok``: a whole-number float is the int.
    ``kept_by_class``: the config class sets the key past its field checks (a float there is its model's to refuse)."""
    if f.kind == "any":
        return node.to_python(), None
    if f.kind == "entries":
        return (node.entry_count() if node.is_mapping() else None), None
    value = node.value
    where = node.span

    def bad(msg: str, data: tuple[tuple[str, object], ...] = ()) -> tuple[object, Problem]:
        return None, Problem("error", "LC102", f'"{key}": {msg}', where, data)

    kind = f.kind
    meaning = f.null_meaning(key) if value is None else ""
    if meaning == "false":
        return False, None
    if meaning == "none":
        return None, None
    if value is None and (meaning == "reject" or kind in _KIND_WORDS):
        return bad(f"null is not {_KIND_WORDS.get(kind, 'allowed here')}: transformers' config class rejects it, or its model cannot be "
                   f"built with it (leaving the key out takes the default, {f.default_text()})")
    if kind == "int|auto" and value == "auto":
        return None, None
    if kind in ("int", "int?", "int|auto"):
        if value is None and kind == "int?":
            return None, None
        if isinstance(value, float) and value.is_integer() and float_ok:
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            # (the editor's quick fix writes the replacement: lsp/actions.py)
            refuses = "the model fails to build with" if kept_by_class else "transformers' config class refuses"
            return bad(f"expected a whole number, got {value!r}: {refuses} a float here (write {int(value)})",
                       (("replacement", str(int(value))),))
        if isinstance(value, bool) or not isinstance(value, int):
            return bad(f"expected a whole number, got {_type_name(value)}")
        if value < f.minimum:
            return bad(f"must be at least {f.minimum}, got {value}")
        limit, what = size_limit(name)
        if value > limit:
            return bad(f"{value:,} is larger than any real model {what} (limit {limit:,})")
        return value, None
    if kind == "bool":
        if not isinstance(value, bool):
            return bad(f"expected true or false, got {_type_name(value)}")
        return value, None
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return bad(f"expected a number, got {_type_name(value)}")
        return float(value), None
    if kind == "str":
        if value is None:
            return None, None
        if not isinstance(value, str):
            return bad(f"expected a string, got {_type_name(value)}")
        return value, None
    if kind == "ints":
        if value is None:
            return (), None
        if not isinstance(value, tuple) or not all(
            isinstance(v.value, int) and not isinstance(v.value, bool) and 0 <= v.value <= MAX_DIMENSION for v in value
        ):
            return bad("expected a list of whole numbers")
        return tuple(v.value for v in value), None
    if kind == "strs":
        if value is None:
            return None, None
        if not isinstance(value, tuple) or not all(isinstance(v.value, str) for v in value):
            return bad("expected a list of strings")
        return tuple(v.value for v in value), None
    raise AssertionError(kind)  # Field.__post_init__ admits only the kinds above


def _unread_spellings(read: tuple[str, SourceNode], written: list[tuple[str, SourceNode]],
                      by_class: bool) -> list[Problem]:
    """A warning at each other spelling of a field the config writes at another value than the one read
    (``by_class``: the one read is what transformers' config class keeps, a key it sets after its fields)."""
    key, child = read
    value = json.dumps(child.to_python())
    why = f" (transformers' config class keeps `{key}`: it sets it after its own fields)" if by_class else ""
    return [Problem("warning", "LC103", f"`{other}` ({json.dumps(node.to_python())}) is overridden by `{key}` "
                                        f"({value}), written too: both name the same setting{why}",
                    node.key_span or node.span)
            for other, node in written if other != key and node.to_python() != child.to_python()]


def experts_float_kept(family: Family, name: str, key: str) -> bool:
    """Whether a whole-number float under ``key`` of field ``name`` is the decoder's experts count written under a
    key its config class sets past its field checks (an attribute_map alias): the class keeps the float, read here
    as the int, and whether the model builds any experts with it is judged after (hf_config._kept_float_experts)."""
    return name == "num_experts" and key in family.keys_set_after_fields and family.layout == "decoder"


def resolve_values(
    family: Family, config: SourceNode, head: str = ""
) -> tuple[dict[str, object], dict[str, tuple[str, Span]], list[Problem], frozenset[str]]:
    """Read the family's fields from a config mapping; defaults fill what is absent. Also returns
    the fields filled from a null (ModelSpec.filled_nulls). ``head``: the class's head (Family.unread_by_head)."""
    values: dict[str, object] = {}
    origins: dict[str, tuple[str, Span]] = {}
    filled_nulls: set[str] = set()
    problems: list[Problem] = []
    derived: list[tuple[str, Derived]] = []
    mapping = config.value if isinstance(config.value, dict) else {}
    late = family.keys_set_after_fields
    order = {key: i for i, key in enumerate(mapping)} if late else {}
    unread = family.unread_by_head.get(head, frozenset())
    for name, f in family.fields.items():
        found = None
        written = []
        for key in f.keys:
            child = mapping.get(key)
            # A null the config class fills with its default is as good as no key (Field.null).
            if child is not None and not (child.is_null() and f.null_meaning(key) == "default"):
                written.append((key, child))
                # Two spellings written: a key the class sets after its fields wins, the later in the file of two.
                if found is None or (key in late and (found[0] not in late or order[key] > order[found[0]])):
                    found = (key, child)
        if len(written) > 1:
            assert found is not None
            problems.extend(_unread_spellings(found, written, by_class=any(k in late for k, _ in written)))
        if found is not None and found[1].is_null() and isinstance(f.null, Derived):
            derived.append((name, f.null))  # the value the class fills this null with
            origins[name] = (found[0], found[1].key_span or found[1].span)
            filled_nulls.add(name)
            continue
        if found is not None and name in unread and found[0] in late:
            found = None  # unchecked by the config class and unread by the model: as if absent
        if found is None:
            if isinstance(f.default, Derived):
                derived.append((name, f.default))
            else:
                values[name] = f.default
            continue
        key, child = found
        value, problem = _check(name, key, f, child, key in family.float_keys or experts_float_kept(family, name, key),
                                key in late)
        if problem:
            problems.append(problem)
            if isinstance(f.default, Derived):
                derived.append((name, f.default))
            else:
                values[name] = f.default
            continue
        if value is None and isinstance(f.default, Derived) and not (child.is_null() and f.null_meaning(key) == "none"):
            derived.append((name, f.default))
        else:
            values[name] = value
        origins[name] = (key, child.key_span or child.span)
    # Derived defaults may depend on each other; evaluate in declaration order, repeatedly.
    for _ in range(3):
        pending = []
        for name, d in derived:
            try:
                values[name] = d.fn(values)
            except (KeyError, TypeError, ArithmeticError, IndexError, ValueError):  # (an infinite factor: int())
                # Not yet computable (a value it reads is derived later), or the config's values do not
                # allow it (a list shorter than the layers): None after three rounds, which the
                # family's checks or the layout report.
                pending.append((name, d))
        derived = pending
        if not derived:
            break
    for name, d in derived:
        values[name] = None
    return values, origins, problems, frozenset(filled_nulls)
