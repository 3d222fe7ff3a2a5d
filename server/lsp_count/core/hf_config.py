"""Hugging Face ``config.json`` (or the same keys in YAML) -> ModelSpec -> counts."""

from __future__ import annotations

import difflib

import json
from dataclasses import replace
from functools import lru_cache
from typing import Mapping

from lsp_count.core.config_keys import misspelt_keys
from lsp_count.core.engine import count
from lsp_count.core.families import find_family, registry
from lsp_count.core.families.common import TEXT_ROPE_TYPES, rope_entry_problem, unbuilt_rotary, written_rope
from lsp_count.core.layouts.decoder import moe_layer_flags
from lsp_count.core.layouts.encoder import empty_patch_grid
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, SourceNode, Span
from lsp_count.core.spec import Derived, Family, ModelSpec, SpecError, experts_float_kept, resolve_values

# Keys that mark a mapping as a model config even without model_type/architectures.
_CONFIG_HINTS = ("hidden_size", "num_hidden_layers", "n_embd", "d_model", "n_layer")


def looks_like_config(root: SourceNode | None) -> bool:
    if root is None or not root.is_mapping():
        return False
    mapping = root.value
    assert isinstance(mapping, dict)
    if "model_type" in mapping or "architectures" in mapping:
        return True
    return sum(1 for k in _CONFIG_HINTS if k in mapping) >= 2


@lru_cache(maxsize=1)
def _architecture_index() -> Mapping[str, tuple[str, str]]:
    """Class name -> (model_type, head) for every head every family knows."""
    index: dict[str, tuple[str, str]] = {}
    for family in registry().values():
        for cls_name, head in family.heads.items():
            index.setdefault(cls_name, (family.model_type, head))
    return index


def _text(node: SourceNode | None) -> str | None:
    return node.value if node is not None and isinstance(node.value, str) else None


def _first_architecture(root: SourceNode) -> tuple[str | None, Span | None]:
    archs = root.get("architectures")
    if archs is not None and isinstance(archs.value, tuple) and archs.value:
        first = archs.value[0]
        if isinstance(first.value, str):
            return first.value, first.span
    return None, None


def _nearest_supported(model_type: str) -> str:
    """The supported model types nearest an unsupported one (those it starts or is started by, then the closest
    spellings: Gemma 3n's gemma3n_text beside gemma3n), and how many there are in all, for its message."""
    from lsp_count.core.families import supported_model_types

    supported = supported_model_types()
    stem = model_type.lower().replace("-", "_")
    names = {t: t.replace("-", "_") for t in supported}
    longer = [t for t, n in names.items() if len(stem) >= 3 and n.startswith(stem)]
    shorter = sorted((t for t, n in names.items() if len(n) >= 3 and stem.startswith(n)), key=len, reverse=True)
    related = longer + shorter
    close = difflib.get_close_matches(model_type, supported, n=5, cutoff=0.6)
    nearest = list(dict.fromkeys(related + close))[:6]
    return (f" (nearest supported: {', '.join(nearest)}; " if nearest else " (") + \
        f"{len(supported)} model types in all: README.md, \"Exact, and proven\")"


def build_spec(root: SourceNode, name: str, model_type_hint: str | None = None, *, sub_config: bool = False) -> ModelSpec:
    """Resolve a config mapping into a ModelSpec. Raises SpecError with located problems.

    ``sub_config``: a composite's sub-config (text_config, vision_config), from which the composite
    builds the sub-model's bare class by its model_type (AutoModel), whatever its "architectures" say
    (SmolVLM's "VLlama3ForCausalLM"): no note about them, or about their absence."""
    mt_node = root.get("model_type")
    model_type = _text(mt_node) or model_type_hint
    arch, arch_span = _first_architecture(root)
    index = _architecture_index()
    if model_type is None and arch in index:
        model_type = index[arch][0]
    if model_type is None:
        raise SpecError((Problem("error", "LC101", "no \"model_type\" and no known \"architectures\" entry: cannot tell which model this is", root.span),))
    family = find_family(model_type)
    if family is None:
        where = mt_node.span if mt_node is not None else arch_span
        raise SpecError((Problem(
            "info", "LC101",
            f"model_type \"{model_type}\" is not supported for exact counting{_nearest_supported(model_type)}; "
            "lsp-count --allow-transformers counts it with transformers if installed",
            where,
        ),))
    problems: list[Problem] = []
    head = None
    if arch is not None:
        # The family's own table first: a config class may build another family's classes (ExaoneConfig builds
        # LlamaForCausalLM), which the index files under the family that registered them first.
        known = (model_type, family.heads[arch]) if arch in family.heads else index.get(arch)
        if known and known[0] == model_type:
            head = known[1]
        elif not sub_config:
            problems.append(Problem(
                "warning", "LC106",
                f"{arch} is not modelled; counting {family.architecture} instead", arch_span,
            ))
    architecture = arch if head else family.architecture
    if head is None:
        head = family.heads.get(family.architecture) or index.get(family.architecture, (model_type, "causal_lm"))[1]
        if arch is None and not sub_config:
            problems.append(Problem("info", "LC106", f"no \"architectures\" in the config: counted {family.architecture}",
                                    root.span))
    values, origins, value_problems, filled_nulls = resolve_values(family, root, head)
    problems.extend(value_problems)
    problems.extend(misspelt_keys(family, root, values))
    subspecs: dict[str, ModelSpec] = {}
    for field_name, (key, default_type) in family.subconfigs.items():
        sub = root.get(key)
        if sub is not None and not sub.is_null() and not sub.is_mapping():
            # transformers' composite config classes take a mapping, a config or null here, nothing else.
            problems.append(Problem("error", "LC102", f'"{key}": expected an object (the sub-model\'s config) or null',
                                    sub.span))
            continue
        # A family may name a key that replaces the sub-config when present (CLIP's "text_config_dict").
        override = family.fields.get(f"{field_name}_override")
        if override is not None and isinstance(override.default, str):
            replacement = root.get(override.default)
            if replacement is not None and replacement.is_mapping():
                sub = replacement
        nested = sub is not None and not sub.is_null()
        if not nested and field_name in family.optional_subconfigs:
            continue  # no such sub-model (Family.optional_subconfigs)
        if not nested and field_name in family.flat_subconfigs:
            sub = _flat_subconfig(family, root)  # a flat Hub config: the sub-model's keys at the top level
        elif sub is None or not sub.is_mapping():
            sub = SourceNode(dict(_default_subconfig(family, field_name)), root.span)
        fills = family.fields.get(f"{field_name}_fills")
        if nested and fills is not None and isinstance(fills.default, dict):
            # The composite's config class fills a given mapping's missing keys from its own defaults (VoxtralConfig's
            # __post_init__ merges its text defaults under text_config): those first, the file's keys over them.
            mapping = sub.value
            assert isinstance(mapping, dict)
            sub = SourceNode({**{k: SourceNode(v, Span.at(0, 0)) for k, v in fills.default.items()}, **mapping},
                             sub.span, sub.key_span)
        fixed = field_name in family.fixed_subconfigs
        if fixed:
            sub = _without(sub, ("model_type", "architectures"))
        elif nested and (renamed := family.subconfig_renames.get(_text(sub.get("model_type")) or "")) is not None:
            sub, default_type = _without(sub, ("model_type",)), renamed
        try:
            subspecs[field_name] = build_spec(sub, f"{name}:{key}", default_type, sub_config=True)
            problems.extend(subspecs[field_name].problems)
            if nested and field_name in family.flat_subconfigs:
                problems.extend(_unread_flat_keys(family, root, key, subspecs[field_name]))
        except SpecError as exc:
            problems.extend(exc.problems)
    spec = ModelSpec(
        name=name, family=family, architecture=architecture, head=head, values=values, origins=origins,
        filled_nulls=filled_nulls, subspecs=subspecs, span=root.span, dtype=_text(root.get("torch_dtype")) or _text(root.get("dtype")),
        quantization=_mapping(root.get("quantization_config")),
    )
    problems.extend(consistency_problems(spec))
    problems.extend(_kept_float_experts(spec, root))
    # Two fields reading one key (an alias and the field it sets) say the same of a bad value once.
    problems = list({(p.severity, p.code, p.message, p.span): p for p in reversed(problems)}.values())[::-1]
    errors = tuple(p for p in problems if p.severity == "error")
    if errors:
        raise SpecError(tuple(problems))
    return replace(spec, problems=tuple(problems))


def _routes(spec: ModelSpec) -> bool:
    """Whether a layer of the model routes tokens to experts: a decoder whose layers are all dense (Dots1's first
    first_k_dense_replace layers, all of them) builds no router, and takes any top-k."""
    if spec.family.layout != "decoder":
        return True
    try:
        return any(moe_layer_flags(spec))
    except (KeyError, TypeError, ValueError, AssertionError, SpecError, ZeroDivisionError):
        return True  # the layout cannot say (the family's checks report why)


def _kept_float_experts(spec: ModelSpec, root: SourceNode) -> list[Problem]:
    """A whole-number float under a decoder's experts key that its config class sets past its field checks (an
    attribute_map alias: Dots1's num_local_experts): the class keeps the float, and the model builds where no layer
    has routed experts (counted with the int), but not the experts of a MoE layer."""
    origin = spec.origins.get("num_experts")
    if origin is None or not experts_float_kept(spec.family, "num_experts", origin[0]):
        return []
    raw = root.get(origin[0])
    value = raw.value if raw is not None else None
    if not isinstance(value, float):
        return []
    if not _routes(spec):
        return []
    return [Problem("error", "LC102", f'"{origin[0]}": expected a whole number, got {value!r}: {spec.architecture}\'s '
                                      f"config class keeps the float (it sets {origin[0]} past its field checks), and "
                                      f"its MoE layers cannot be built with it (write {int(value)})", origin[1])]


def _default_subconfig(family: Family, field_name: str) -> Mapping[str, SourceNode]:
    defaults = family.fields.get(f"{field_name}_defaults")
    raw = defaults.default if defaults is not None else {}
    return {k: _default_node(v) for k, v in (raw or {}).items()}  # type: ignore[union-attr]


def _default_node(value: object) -> SourceNode:
    """A default value as the node a parsed file would give it (a mapping's values nodes too: LightOnOCR's
    rope_parameters)."""
    if isinstance(value, dict):
        return SourceNode({k: _default_node(v) for k, v in value.items()}, Span.at(0, 0))
    return SourceNode(value, Span.at(0, 0))


def _without(node: SourceNode, keys: tuple[str, ...]) -> SourceNode:
    """A mapping node without ``keys`` (the same node when it has none of them)."""
    mapping = node.value
    assert isinstance(mapping, dict)
    if not any(k in mapping for k in keys):
        return node
    return SourceNode({k: v for k, v in mapping.items() if k not in keys}, node.span, node.key_span)


def _flat_subconfig(family: Family, root: SourceNode) -> SourceNode:
    """A flat config's sub-model (Family.flat_subconfigs): its top-level keys but the composite's own."""
    own = {key for f in family.fields.values() for key in f.keys}
    own |= {key for key, _type in family.subconfigs.values()} | {"model_type", "architectures"}
    mapping = root.value
    assert isinstance(mapping, dict)
    return SourceNode({k: v for k, v in mapping.items() if k not in own}, root.span, root.key_span)


def _unread_flat_keys(family: Family, root: SourceNode, key: str, sub: ModelSpec) -> list[Problem]:
    """Top-level keys of a flat sub-model's (Family.flat_subconfigs) whose value the nested ``key``
    mapping, which transformers builds the sub-model from, does not share: the file says two things."""
    flat = _flat_subconfig(family, root).value
    assert isinstance(flat, dict)
    differ = [*dict.fromkeys(k for name, f in sub.family.fields.items() for k in f.keys
              if k in flat and not isinstance(flat[k].value, (dict, tuple)) and flat[k].value != sub.values.get(name))]
    if not differ:
        return []
    first = flat[differ[0]]
    listed = ", ".join(f'"{k}"' for k in differ)
    return [Problem("warning", "LC106", f"{listed} at the top level {'is' if len(differ) == 1 else 'are'} not read: "
                                        f'"{key}" is given, and the {sub.model_type} model is built from it alone',
                    first.key_span or first.span)]


def _mapping(node: SourceNode | None) -> Mapping[str, object] | None:
    if node is None or not node.is_mapping():
        return None
    value = node.to_python()
    return value if isinstance(value, dict) else None


def _built_or_refused(spec: ModelSpec, switch: str, what: str, failure: str, span: Span | None,
                      data: tuple[tuple[str, object], ...] = ()) -> Problem:
    """An LC103 on a config transformers builds but whose forward pass cannot run (``failure``): a warning, the model
    counted; an error where the family's row says its config class refuses the config (``switch`` "refused")."""
    refused = spec.values.get(switch) == "refused"
    return Problem("error" if refused else "warning", "LC103", f"{what}: " + (
        f"{spec.architecture}'s config class refuses the config" if refused else
        f"transformers builds the model (counted), but {failure}"), span, data)


def consistency_problems(spec: ModelSpec) -> list[Problem]:
    """Configs whose numbers contradict each other (the model class would fail or misbehave)."""
    v = spec.values
    out: list[Problem] = []
    hidden, heads = v.get("hidden_size"), v.get("num_heads")
    # (where only the layers' attention checks the heads, a model of no layers builds whatever they are)
    unchecked = bool(v.get("heads_checked_in_layers")) and v.get("num_layers") == 0
    if isinstance(hidden, int) and isinstance(heads, int) and "head_dim" in spec.family.fields and not unchecked:
        # A head width the file gives, or the class fixes (Seed-OSS: 128 for 80 heads of 4,096), need not divide.
        # GLM-4-MoE's default 96 heads of a 4,096 width: its class floors the head width (42), and the
        # model runs, its attention 4,032 wide (floor_head_dim).
        derived_width = isinstance(spec.family.fields["head_dim"].default, Derived) and not v.get("floor_head_dim")
        if hidden % heads and (("head_dim" not in spec.origins and derived_width) or v.get("heads_divide_hidden")):
            out.append(Problem(
                "error", "LC103",
                f"num_attention_heads ({heads}) does not divide hidden_size ({hidden})"
                + (f" ({spec.family.model_type} requires it even with head_dim)" if "head_dim" in spec.origins else
                   " and no head_dim is given"),
                spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span,
            ))
    kv = v.get("num_kv_heads")
    # MLA (DeepSeek) has no key/value heads of its own: num_key_value_heads is unused there; JetMoE's mixture
    # of attention heads repeats its key/value heads for each expert a token uses, whatever num_attention_heads says.
    # Key/value heads that do not divide the query heads: transformers builds the model (its attention's forward pass
    # cannot share them); a family's config class may refuse it (the field "kv_heads_not_dividing": Beam's).
    if isinstance(kv, int) and isinstance(heads, int) and heads % kv and not v.get("kv_lora_rank") \
            and not v.get("attention_experts"):
        where = spec.key_span("num_kv_heads")
        # (the editor's quick fix writes the most key/value heads, up to these, that divide the query heads)
        divisor = max((d for d in range(1, min(kv, heads) + 1) if heads % d == 0), default=1)
        out.append(_built_or_refused(
            spec, "kv_heads_not_dividing", f"num_key_value_heads ({kv}) must divide num_attention_heads ({heads})",
            f"its attention's forward pass cannot share {kv} key/value heads among {heads} query heads",
            where or spec.span, (("divisor", str(divisor)), ("heads", str(heads))) if where else ()))
    experts, top_k = v.get("num_experts"), v.get("experts_per_token")
    if isinstance(experts, int) and isinstance(top_k, int) and top_k > experts and _routes(spec) \
            and v.get("routes_experts", True):
        # transformers builds the model: only its router's torch.topk, in the forward pass, fails; a family's
        # config class may refuse it (the field "top_k_over_experts": JetMoE's).
        # (a top-k the family fixes, no key of the config: Switch's top-1 router, NLLB-MoE's top-2)
        fixed_top_k = not spec.family.fields["experts_per_token"].keys
        out.append(_built_or_refused(
            spec, "top_k_over_experts",
            (f"its router's top-{top_k}" if fixed_top_k else f"{spec.key_label('experts_per_token')} ({top_k})")
            + f" is more than the {experts} experts",
            f"its forward pass fails (its router cannot choose {top_k} of {experts})",
            spec.key_span("experts_per_token") or spec.key_span("num_experts") or spec.span))
    # (A derived top-k, HunYuan-MoE's per-layer moe_topk, is judged by the family's own check.)
    top_k_field = spec.family.fields.get("experts_per_token")
    # ``routes_experts``: a family whose experts are switched off by another key (Gemma 4's enable_moe_block)
    # builds none, whatever num_experts says.
    if top_k_field is not None and top_k_field.keys and top_k is None and experts and v.get("routes_experts", True):
        out.append(Problem(
            "warning", "LC103",
            f"{spec.key_label('experts_per_token')} is not set (null): transformers builds the model, but its forward "
            "pass needs it "
            "(torch.topk's k); the count has no active part, and the memory estimate leaves out the routed experts' "
            "activations",
            spec.key_span("experts_per_token") or spec.key_span("num_experts") or spec.span,
        ))
    out.extend(_rotary_width_problems(spec))
    out.extend(_rope_type_problems(spec))
    if (grid := empty_patch_grid(spec)) is not None:
        out.append(grid)
    for check in spec.family.checks:
        out.extend(check(spec))
    return out


# The entries of a rope_parameters nested by layer type (Family fields "rope_scaling_layer_types",
# "rope_layer_types"): the config classes that nest them fill these two.
_ROPE_ENTRIES = ("full_attention", "sliding_attention")


def _rope_entries(spec: ModelSpec) -> list[tuple[str, dict]]:
    """(layer type, rope_parameters entry) for each entry transformers 5 checks, as its config class fills
    them: the file's rope_parameters (the legacy rope_scaling replaces it where a non-empty mapping), its
    partial_rotary_factor else the top-level one or the class's own, else 1.0."""
    v = spec.values
    params, scaling = v.get("rope_parameters"), v.get("rope_scaling")
    scaled_types = v.get("rope_scaling_layer_types")
    if scaled_types is None:  # one rope_parameters for every layer
        _key, written = written_rope(v)
        rope = dict(written if isinstance(written, dict) else {})
        top = v.get("partial_rotary_factor")
        rope.setdefault("partial_rotary_factor", 1.0 if top is None else top)
        return [("full_attention", rope)]
    # One entry per layer type, the file's or an empty one; rope_scaling updates some of them.
    entries = {t: dict(params[t]) if isinstance(params, dict) and isinstance(params.get(t), dict) else {}
               for t in _ROPE_ENTRIES}
    if isinstance(scaling, dict):
        for t in scaled_types:
            entries[t].update(scaling)
    present = v.get("rope_layer_types") or ()
    return [(t, {"partial_rotary_factor": 1.0, **entry}) for t, entry in entries.items() if t in present]


def _rotary_built(v, layer_type: str) -> bool:
    """Whether the model builds a rotary embedding from the ``layer_type`` entry: Family field "rotary_embedding",
    a switch, or the layer types it builds one for (LFM3's, those its layers use); true where the field is absent."""
    rotary = v.get("rotary_embedding", True)
    return layer_type in rotary if isinstance(rotary, tuple) else bool(rotary)


def _rope_type_problems(spec: ModelSpec) -> list[Problem]:
    """The rope_parameters (or rope_scaling) entries transformers checks, judged by rope_entry_problem against the
    family's RoPE types (Family field "rope_types", else a text model's)."""
    v = spec.values
    key, _written = written_rope(v)
    types = v.get("rope_types") or TEXT_ROPE_TYPES
    for layer_type, entry in _rope_entries(spec):
        of = f" (for {layer_type} layers)" if v.get("rope_scaling_layer_types") is not None else ""
        problem = rope_entry_problem(entry, types, key + of, spec.key_span(key) or spec.span,
                                     _rotary_built(v, layer_type)) or \
            _longrope_length_problem(spec, entry, key + of)
        if problem is not None:
            return [problem]
    return []


def _longrope_length_problem(spec: ModelSpec, entry: dict, label: str) -> Problem | None:
    """Phi-3's config class (Family field "longrope_lengths": "exact") checks longrope's factor lists whatever the
    type: each a list of numbers, one per rotated pair of hidden_size / num_attention_heads × partial_rotary_factor
    (its validate_rope). (Other models fail only as they build the rotary embedding, over the width their config
    class holds, which each reads its own way: not judged here.)"""
    v = spec.values
    hidden, heads = v.get("hidden_size"), v.get("num_heads")
    if v.get("longrope_lengths") != "exact" or type(hidden) is not int or type(heads) is not int or heads <= 0:
        return None
    turned = _rotated(hidden // heads, entry.get("partial_rotary_factor", 1.0))
    if turned is None:
        return None
    where = spec.key_span(written_rope(v)[0]) or spec.span
    for name in ("short_factor", "long_factor"):
        factors = entry.get(name)
        if factors is None:
            continue  # (a null passes its check)
        if not isinstance(factors, list) or not all(isinstance(x, (int, float)) for x in factors):
            return Problem("error", "LC103", f'{label}: "{name}" is {json.dumps(factors)}, not a list of numbers: '
                                             "Phi-3's config class checks it, and refuses the config", where)
        if len(factors) != turned // 2:
            return Problem("error", "LC103", f'{label}: "{name}" holds {len(factors)} numbers, not {turned // 2}: '
                                             "Phi-3's config class checks it holds one per rotated pair of the "
                                             f"{turned}-wide rotary dimension, and refuses the config", where)
    return None


def _rotated(width: int, factor: object) -> int | None:
    """How many values of a head ``width`` wide RoPE turns, int(width × factor) as transformers counts them;
    None for a factor that is no number (not judged here)."""
    try:
        return int(width * factor) if isinstance(factor, (int, float)) else None
    except (OverflowError, ValueError):  # an infinite or NaN factor
        return None


def _rotary_width_problems(spec: ModelSpec) -> list[Problem]:
    """An odd rotary width transformers 5 refuses: a head width (the head_dim its config class holds: Family
    field "rope_head_dim") odd, over 4 and fully rotated (its RoPE check, validate_rope, as RoPE turns pairs
    of values), or an odd number over 4 of rotated values under YaRN (whose frequencies then do not build), or
    2 rotated values under dynamic NTK scaling (whose base it raises to dim / (dim - 2))."""
    v = spec.values
    held, hidden, heads = v.get("rope_head_dim"), v.get("hidden_size"), v.get("num_heads")
    # The rotary embedding's width: the head_dim held, else hidden_size / num_attention_heads.
    width = held if type(held) is int else \
        hidden // heads if type(hidden) is int and type(heads) is int and heads > 0 else None
    if width is None:
        return []
    entries = [(t, e, _rotated(width, e["partial_rotary_factor"])) for t, e in _rope_entries(spec)]
    checked = type(held) is int and width > 4 and width % 2
    refused = next(((t, e, turned) for t, e, turned in entries if checked and turned == width), None)
    # A type whose frequencies do not build over that many rotated values (unbuilt_rotary), where the model builds a
    # rotary embedding from that entry (_rotary_built: not Granite 4 hybrid without position_embedding_type "rope",
    # whose config class still refuses an odd fully rotated width, above).
    unbuilt = next(((t, e, turned) for t, e, turned in entries
                    if unbuilt_rotary(e.get("rope_type", e.get("type")), turned) and _rotary_built(v, t)), None)
    if refused is None and unbuilt is None:
        return []
    layer_type, entry, turned = refused or unbuilt
    factor = entry["partial_rotary_factor"]
    written = next((name for name in ("rope_head_dim", "head_dim") if name in spec.origins), None)
    if written is not None and type(held) is int:
        key = spec.key_name(written)
        said = f'"{key}": null, which the config class fills with {width},' if written in spec.filled_nulls \
            else f"{key} {width}"
        where, even = spec.key_span(written), key
    else:  # hidden_size / num_attention_heads
        said = f"the head width {width}"
        if type(hidden) is int and type(heads) is int and heads > 0 and hidden // heads == width:
            said += f" ({spec.key_label('hidden_size')} {hidden} / {spec.key_label('num_heads')} {heads})"
        where = spec.key_span("num_heads") or spec.key_span("hidden_size") or spec.span
        even = "head_dim" if any("head_dim" in f.keys for f in spec.family.fields.values()) else "head width"
    if v.get("rope_scaling_layer_types") is not None:  # rope_parameters per layer type
        of, share = f" for {layer_type} layers", f'partial_rotary_factor in rope_parameters["{layer_type}"]'
    else:
        share_field = spec.family.fields.get("partial_rotary_factor")
        of, share = "", share_field.keys[0] if share_field and share_field.keys else "partial_rotary_factor"
    if refused is not None:
        message = (f"{said} is odd and fully rotated (partial_rotary_factor {factor}{of}): transformers' RoPE "
                   f"needs an even rotary dimension and refuses the config (give an even {even}, or a {share} "
                   "under 1)")
    else:
        rope_type = entry.get("rope_type", entry.get("type"))
        kind, reason = unbuilt_rotary(rope_type, turned)  # type: ignore[misc]
        message = (f'{said} rotates {turned} values under {kind} (rope_type "{rope_type}", partial_rotary_factor '
                   f"{factor}{of}), " + reason.format(share=share))
    return [Problem("error", "LC103", message, where)]


def count_config(root: SourceNode, name: str) -> tuple[ModelReport | None, tuple[Problem, ...]]:
    """Count one config mapping; problems explain anything that stopped or qualifies the count."""
    try:
        spec = build_spec(root, name)
        tree = count(spec)
    except SpecError as exc:
        return None, exc.problems
    # Warnings and notes found on the way travel with the report, located in the config.
    return ModelReport(name=name, spec=spec, tree=tree, span=root.span), spec.problems
