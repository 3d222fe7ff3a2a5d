"""A Hydra application's config, composed from its YAML files as Hydra composes it, without Hydra.

A training script built on Hydra gets its config from a directory of YAML files::

    @hydra.main(version_base=None, config_path="conf", config_name="config")
    def main(cfg: DictConfig):
        model = hydra.utils.instantiate(cfg.model)

    # conf/config.yaml                  # conf/model/mlp.yaml
    defaults:                           _target_: models.MLP
      - model: mlp                      dim: ${width}
      - _self_                          hidden: 128
    width: 64

``compose`` reads the primary config and its defaults list (config groups, nested defaults lists,
``_self_``, ``override``, ``optional``, ``group@package``, ``# @package`` headers, lists of
options), merges them as OmegaConf merges and resolves the ``${...}`` interpolations, as Hydra does
for a run with no command-line overrides. The files are read as data (YAML, OmegaConf's own
loading rules); nothing is imported or run. What Hydra would take from the command line, the
environment or a custom resolver (``???``, ``${oc.env:HOME}``, ``${eval:...}``) is an ``Unknown``
saying so. The parity tests compose random config trees with the installed Hydra and compare.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from lsp_count.pymodel.values import Unknown

_MAX_FILES = 200  # config files read for one composition (a defaults list that includes itself)


class ConfigError(Exception):
    """Hydra would fail composing the config (a missing file, an override of a group not in the
    defaults, YAML it cannot read); the message names the file, and the line where there is one."""


def _yaml_loader() -> type:
    """OmegaConf's YAML loading: PyYAML's safe loader, with ``1e-3`` a float, no timestamps, and a
    key given twice an error (omegaconf._utils.get_yaml_loader)."""

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.Node, deep: bool = False) -> Any:
            keys = set()
            for key_node, _ in node.value:
                if key_node.tag != yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG:
                    continue
                if key_node.value in keys:
                    raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                            f"found duplicate key {key_node.value}", key_node.start_mark)
                keys.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

    Loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"""^(?:
         [-+]?[0-9]+(?:_[0-9]+)*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+)
        |\.[0-9]+(?:_[0-9]+)*(?:[eE][-+][0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""", re.X), list("-+0123456789."))
    return Loader


_LOADER = _yaml_loader()
_PACKAGE_HEADER = re.compile(r"^#\s*@package\s+(\S*)\s*$")


def read_yaml(path: str, shown: str | None = None, text: str | None = None) -> Any:
    """A YAML file's data as OmegaConf loads it (``text``: its text where it is given, an editor's
    unsaved document); ConfigError naming ``shown`` (the path as the user knows it) and the
    line:col of a YAML error."""
    shown = shown or path
    if text is None:
        text = _read_text(path, shown)
    try:
        data = yaml.load(text, Loader=_LOADER)  # noqa: S506 - a SafeLoader subclass: data only
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{shown}:{mark.line + 1}:{mark.column + 1}" if mark is not None else shown
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: the YAML does not parse: {problem}") from None
    if _too_many_values(data):
        raise ConfigError(f"{shown} holds more than {MAX_VALUES:,} values once its anchors are expanded; "
                          f"the analyser does not read it")
    return data


def _read_text(path: str, shown: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{shown} cannot be read ({getattr(exc, 'strerror', None) or exc})") from None


MAX_VALUES = 100_000  # a config's values, its aliases expanded (YAML anchors nested in anchors grow exponentially)


def _too_many_values(data: Any) -> bool:
    """Whether the data, each alias counted where it is used, holds more than MAX_VALUES values."""
    stack, seen = [data], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return True
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def package_header(text: str) -> str | None:
    """The ``# @package NAME`` line among the file's first comment lines (Hydra reads it there)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return None
        match = _PACKAGE_HEADER.match(stripped)
        if match:
            return match.group(1)
    return None


@dataclass
class _Composition:
    config_dir: str
    shown_dir: str
    overrides: dict[str, Any] = field(default_factory=dict)  # group path -> the option the `override` entries chose
    used_overrides: set[str] = field(default_factory=set)
    chosen: dict[str, str] = field(default_factory=dict)  # group path@package -> the config that gave it
    files: list[str] = field(default_factory=list)  # the files read, for the message of a hover
    parts: list[tuple[str, Any, str]] = field(default_factory=list)  # (package, content, file), in merge order
    overlay: dict[str, str] = field(default_factory=dict)  # path -> text, for a file open in the editor
    packages: dict[str, str] = field(default_factory=dict)  # each file read (its path) -> its package


@dataclass(frozen=True)
class ComposedConfig:
    values: Any  # the config's data, its interpolations resolved (dicts, lists, scalars, Unknowns)
    files: tuple[str, ...]  # the files it was composed from, as shown (``conf/model/mlp.yaml``)
    packages: dict[str, str] = field(default_factory=dict)  # each file read (its path) -> where it was merged


class NotInDefaults(ConfigError):
    """A group chosen (``model=big``) that the defaults list does not have."""


def compose(config_dir: str, config_name: str | None, shown_dir: str | None = None,
            choices: dict[str, str] | None = None, overlay: dict[str, str] | None = None,
            overrides: list[str] | tuple[str, ...] = ()) -> ComposedConfig:
    """The config ``@hydra.main(config_path=..., config_name=...)`` gives the function, with no
    command-line overrides. ``config_dir``: the config directory (config_path made absolute);
    ``shown_dir``: how messages name it; ``choices``: group options chosen as a command line's
    ``model=mnist`` chooses them; ``overlay``: the texts of files open in the editor, by path;
    ``overrides``: a command line's (Hydra's ``compose(overrides=[...])``): ``group=option``,
    ``+group=option``, ``key.path=value``, ``+key=value``, ``++key=value``, ``~key``. ConfigError
    where Hydra would fail."""
    comp = _Composition(config_dir, shown_dir if shown_dir is not None else config_dir,
                        overlay=dict(overlay or {}))
    values, appended = _parse_overrides(overrides, config_dir)
    chosen = dict(choices or {})
    for group, option in values.pop("choices", {}).items():
        chosen[group] = option
    for group, option in chosen.items():
        comp.overrides[group] = option
    if config_name:
        name = config_name[:-5] if config_name.endswith(".yaml") else config_name
        comp.parts = _expand_config(comp, name, "", "", primary=True, appended=appended)
    unused = set(comp.overrides) - comp.used_overrides
    if unused:
        group = sorted(unused)[0]
        if group in chosen:
            raise NotInDefaults(f"Could not override '{group}': no match in the defaults list (to append to the "
                                f"defaults list, Hydra takes +{group}=...)")
        raise ConfigError(f"Could not override '{group}': no match in the defaults list (as Hydra says)")
    merged: Any = {}
    for package, content, _ in comp.parts:
        merged = _merge_at(merged, package.split(".") if package else [], content)
    if isinstance(merged, dict):
        merged.pop("hydra", None)  # Hydra's own settings are not the application's config
        for kind, key, value in values["values"]:
            _apply_value(merged, kind, key, value)
    # the files in the order they are merged, the primary first (Hydra reads them from the list's end)
    files = list(dict.fromkeys([*comp.files[:1], *(shown for _, _, shown in comp.parts)]))
    return ComposedConfig(resolve(merged), tuple(files), comp.packages)


def _parse_overrides(overrides: list[str] | tuple[str, ...], config_dir: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A command line's overrides: the groups chosen, the groups appended, and the values set
    (kind "=", "+", "++", "~"; the key; the value, read as YAML)."""
    choices: dict[str, str] = {}
    appended: list[tuple[str, str]] = []
    values: list[tuple[str, str, Any]] = []
    for override in overrides:
        if not isinstance(override, str):
            raise ConfigError(f"an override is not a string: {override!r}")
        text = override.strip()
        kind = "~" if text.startswith("~") else "++" if text.startswith("++") else "+" if text.startswith("+") else "="
        body = text[len(kind) if kind != "=" else 0:]
        key, sep, raw = body.partition("=")
        key = key.strip()
        if not key or (not sep and kind != "~") or not re.fullmatch(r"[\w./@-]+", key):
            raise ConfigError(f"Hydra cannot parse the override '{override}'")
        is_group = "@" not in key and os.path.isdir(os.path.join(config_dir, *key.split("/")))
        if is_group and kind in ("=", "+") and sep:
            option = raw.strip()
            if option in ("null", "~", ""):
                raise ConfigError(f"'{override}': a config group's option is a name (Hydra: \"Config group "
                                  f"override must be a string or a list\"; `~{key}` leaves the group out)")
            if kind == "+":
                appended.append((key, option))
            else:
                choices[key] = option
            continue
        try:
            value = yaml.load(raw, Loader=_LOADER) if sep else None  # noqa: S506 - a SafeLoader subclass
        except yaml.YAMLError:
            value = raw
        values.append((kind, key.replace("/", "."), value))
    return {"choices": choices, "values": values}, appended


def _apply_value(config: dict[str, Any], kind: str, key: str, value: Any) -> None:
    """One value override on the merged config, as Hydra applies it (a key that is not there is an
    error without ``+``; with ``+``, one that is there is)."""
    *parents, last = key.split(".")
    node: Any = config
    for part in parents:
        if not isinstance(node, dict) or part not in node:
            if kind in ("+", "++") and isinstance(node, dict):
                node[part] = {}
            else:
                raise ConfigError(f"Could not override '{key}': the config has no `{part}` (Hydra's ConfigKeyError)")
        node = node[part]
    if not isinstance(node, dict):
        raise ConfigError(f"Could not override '{key}': `{'.'.join(parents)}` is not a mapping")
    if kind == "~":
        if last not in node:
            raise ConfigError(f"Could not delete '{key}': the config has no such key")
        del node[last]
    elif kind == "=" and last not in node:
        raise ConfigError(f"Could not override '{key}': the config has no such key (to add it, Hydra takes +{key}=...)")
    elif kind == "+" and last in node:
        raise ConfigError(f"Could not append to the config: '{key}' is there already (Hydra takes ++{key}=... to "
                          f"force it)")
    else:
        node[last] = merge(node.get(last), value) if isinstance(value, dict) and kind != "=" else value


def _load(comp: _Composition, path_in_dir: str, optional: bool = False) -> tuple[Any, str | None] | None:
    path = os.path.join(comp.config_dir, *path_in_dir.split("/")) + ".yaml"
    shown = os.path.join(comp.shown_dir, *path_in_dir.split("/")) + ".yaml" if comp.shown_dir else path_in_dir + ".yaml"
    text = comp.overlay.get(os.path.normpath(path))
    if text is None and not os.path.isfile(path):
        if optional:
            return None
        raise ConfigError(f"{shown} does not exist (Hydra's MissingConfigException)")
    if len(comp.files) >= _MAX_FILES:
        raise ConfigError(f"the defaults lists read more than {_MAX_FILES} config files (one includes itself?)")
    comp.files.append(shown)
    if text is None:
        text = _read_text(path, shown)
    data = read_yaml(path, shown, text)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: a config file holds a mapping, not a {type(data).__name__}")
    return data, package_header(text)


def _join_package(parent: str, package: str) -> str:
    """Hydra's InputDefault._get_final_package: ``package`` under ``parent``, where ``_global_`` in
    it starts again at the top."""
    joined = package if parent == "" else parent if package == "" else f"{parent}.{package}"
    at = joined.rfind("_global_")
    return joined if at == -1 else joined[at + len("_global_") + 1:]


def _absolute_header(header: str | None, group_path: str) -> str | None:
    """A ``# @package`` header is absolute (Hydra 1.2+): ``_global_.NAME``; ``_group_`` is the group."""
    if header is None:
        return None
    header = header.replace("_group_", group_path.replace("/", "."))
    if header in ("", "_global_"):
        return "_global_"
    return header if header.startswith("_global_.") else f"_global_.{header}"


def _expand_config(comp: _Composition, path_in_dir: str, parent_package: str, package: str,
                   primary: bool = False, optional: bool = False, explicit_package: str | None = None,
                   relative_group: str = "", parent_key_package: str = "",
                   appended: list[tuple[str, str]] | None = None) -> list[tuple[str, Any, str]]:
    """One config of the defaults tree: its defaults, and its own content where ``_self_`` is, as
    (package, content) in merge order. Hydra expands a defaults list from its last entry to its
    first, so an `override` in a config listed later (an experiment's `override /model: big`)
    applies to a group listed before it.
    ``parent_key_package``: the package its parent's groups are keyed by for ``override`` (Hydra's
    get_override_key reads packages without the ``# @package`` headers, which start at the top)."""
    if path_in_dir.endswith(".yaml"):  # `- data: mnist.yaml`: Hydra adds the extension only where it is missing
        path_in_dir = path_in_dir[:-len(".yaml")]
    loaded = _load(comp, path_in_dir, optional)
    if loaded is None:
        return []
    data, header = loaded
    at = len(comp.files) - 1  # (the file just read)
    base_dir = path_in_dir.rsplit("/", 1)[0] if "/" in path_in_dir else ""
    if explicit_package is not None:
        final = _join_package(parent_package, explicit_package)
    elif header is not None:
        final = _join_package(parent_package, _absolute_header(header, base_dir) or "")
    else:
        final = _join_package(parent_package, relative_group.replace("/", ".")) if not primary else package
    key_final = "" if header is not None and explicit_package is None else _join_package(
        parent_key_package, explicit_package if explicit_package is not None else relative_group.replace("/", "."))
    defaults = data.pop("defaults", None)
    entries = _defaults_entries(defaults, path_in_dir, comp)
    if not any(kind == "self" for kind, *_ in entries):
        entries.append(("self", None, None, False, False, None))  # Hydra 1.1+: _self_ last where not written
    entries.extend(("group", group, option, False, False, None) for group, option in appended or ())  # `+db=mysql`
    comp.packages[os.path.normpath(os.path.join(comp.config_dir, *path_in_dir.split("/")) + ".yaml")] = final
    expanded: list[list[tuple[str, Any, str]]] = []
    for kind, group, value, is_override, is_optional, package_override in reversed(entries):
        if is_override:
            continue
        if kind == "self":
            expanded.append([(final, data, comp.files[at])])
        elif kind == "config":  # `- db/mysql`, `- /abs/name`: a config by its path
            absolute = group.startswith("/")
            target = group[1:] if absolute else (f"{base_dir}/{group}" if base_dir else group)
            relative = (group[1:] if absolute else group).rsplit("/", 1)[0] if "/" in group.lstrip("/") else ""
            expanded.append(_expand_config(comp, target, final, "", optional=is_optional,
                                           explicit_package=package_override, relative_group=relative,
                                           parent_key_package=key_final))
        else:
            expanded.append(_expand_group(comp, group, value, base_dir, final, key_final, is_optional,
                                          package_override, path_in_dir))
    return [part for parts in reversed(expanded) for part in parts]


def _expand_group(comp: _Composition, group: str, value: Any, base_dir: str, parent_package: str,
                  parent_key_package: str, is_optional: bool, package_override: str | None,
                  where: str) -> list[tuple[str, Any, str]]:
    absolute = group.startswith("/")
    relative = group[1:] if absolute else group
    group_path = relative if absolute or not base_dir else f"{base_dir}/{relative}"
    # Hydra's get_override_key: the group, and the package where it is not the group's own
    key_package = _join_package(parent_key_package, package_override if package_override is not None
                                else relative.replace("/", "."))
    key = group_path if key_package == group_path.replace("/", ".") else f"{group_path}@{key_package or '_global_'}"
    if key in comp.overrides:
        value = comp.overrides[key]
        comp.used_overrides.add(key)
    if value is None:
        return []  # `model: null`: no config of the group
    if isinstance(value, str) and value == "???":
        raise ConfigError(f"the config group '{group_path}' has no default option (`???` in {where}.yaml): Hydra "
                          f"asks for one on the command line")
    options = value if isinstance(value, list) else [value]
    final_key = f"{group_path}@{_join_package(parent_package, package_override or relative.replace('/', '.'))}"
    if final_key in comp.chosen:
        raise ConfigError(f"Multiple values for {group_path} (in {comp.chosen[final_key]}.yaml and {where}.yaml): "
                          f"Hydra needs `override {group}: ...` to change a group chosen before")
    comp.chosen[final_key] = where
    expanded: list[list[tuple[str, Any, str]]] = []
    for option in reversed(options):
        if not isinstance(option, (str, int, float, bool)) or isinstance(option, bool):
            raise ConfigError(f"{where}.yaml: the option of '{group}' is not a config name: {option!r}")
        option = str(option)
        if "${" in option:
            raise ConfigError(f"{where}.yaml: the option of '{group}' is an interpolation ({option}), which the "
                              f"analyser does not follow")
        expanded.append(_expand_config(comp, f"{group_path}/{option}", parent_package, "", optional=is_optional,
                                       explicit_package=package_override, relative_group=relative,
                                       parent_key_package=parent_key_package))
    return [part for parts in reversed(expanded) for part in parts]


def _defaults_entries(defaults: Any, where: str, comp: _Composition) -> list[tuple[Any, ...]]:
    """The defaults list's entries as (kind, group or path, option, override, optional, package);
    the `override` ones registered in ``comp.overrides``."""
    if defaults is None:
        return []
    if not isinstance(defaults, list):
        raise ConfigError(f"{where}.yaml: `defaults` is a list, not a {type(defaults).__name__}")
    entries: list[tuple[Any, ...]] = []
    for item in defaults:
        if isinstance(item, str):
            if item == "_self_":
                entries.append(("self", None, None, False, False, None))
                continue
            path, _, package = item.partition("@")
            optional = False
            if path.startswith("optional "):
                optional, path = True, path[len("optional "):].strip()
            entries.append(("config", path, None, False, optional, package or None))
        elif isinstance(item, dict) and len(item) == 1:
            (key, value), = item.items()
            if not isinstance(key, str):
                raise ConfigError(f"{where}.yaml: a defaults entry's group is not a name: {key!r}")
            words = key.split()
            flags = set(words[:-1])
            if not words or flags - {"override", "optional"}:
                raise ConfigError(f"{where}.yaml: a defaults entry Hydra does not read: {key!r}")
            group, _, package = words[-1].partition("@")
            if group.lstrip("/").startswith("hydra"):
                continue  # `override hydra/job_logging: disabled`: Hydra's own groups
            if "override" in flags:
                path = group.lstrip("/") if group.startswith("/") or "/" not in where else \
                    f"{where.rsplit('/', 1)[0]}/{group}"
                comp.overrides.setdefault(f"{path}@{package}" if package else path, value)
                entries.append(("group", group, value, True, False, package or None))
                continue
            entries.append(("group", group, value, False, "optional" in flags, package or None))
        else:
            raise ConfigError(f"{where}.yaml: a defaults entry Hydra does not read: {item!r}")
    return entries


def _merge_at(target: Any, path: list[str], content: Any) -> Any:
    """``content`` merged into ``target`` at the dotted ``path`` (OmegaConf.merge)."""
    if not path:
        return merge(target, content)
    if not isinstance(target, dict):
        target = {}
    head = path[0]
    target[head] = _merge_at(target.get(head, {}), path[1:], content)
    return target


def merge(base: Any, update: Any) -> Any:
    """OmegaConf.merge of two containers' data: mappings merged key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(update, dict):
        out = dict(base)
        for key, value in update.items():
            out[key] = merge(out[key], value) if key in out else _copy(value)
        return out
    return _copy(update)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# --- interpolation ---------------------------------------------------------------------------

_WHOLE = re.compile(r"^\$\{([^${}]*)\}$")
_INNER = re.compile(r"\$\{([^${}]*)\}")


def resolve(root: Any) -> Any:
    """The data with each ``${...}`` replaced by what it names (OmegaConf.to_container(resolve=True)):
    ``${a.b}``, ``${a[0]}``, ``${.sibling}``, ``${..up}``, and inside strings (``run_${name}``); an
    interpolation of a resolver (``${oc.env:HOME}``) or of a key that is not there is an Unknown
    saying so, as is a ``???`` value."""
    return _Resolver(root).node(root, ())


class _Resolver:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.active: set[tuple[Any, ...]] = set()

    def node(self, value: Any, path: tuple[Any, ...]) -> Any:
        if isinstance(value, dict):
            return {k: self.node(v, (*path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self.node(v, (*path, i)) for i, v in enumerate(value)]
        return self.scalar(value, path)

    def scalar(self, value: Any, path: tuple[Any, ...]) -> Any:
        key = ".".join(map(str, path))
        if value == "???" and type(value) is str:
            return Unknown(f"`{key}` is `???` in the config: a value Hydra takes from the command line")
        if type(value) is not str or "${" not in value:
            return value
        if path in self.active:
            return Unknown(f"`{key}` is an interpolation that refers to itself ({value})")
        self.active.add(path)
        try:
            whole = _WHOLE.match(value)
            if whole:
                return self.reference(whole.group(1).strip(), path, value)
            if _INNER.sub("", value).count("${"):
                return Unknown(f"`{key}` is `{value}`: a nested interpolation, which the analyser does not follow")
            pieces: list[str] = []
            last = 0
            for match in _INNER.finditer(value):
                found = self.reference(match.group(1).strip(), path, value)
                if isinstance(found, Unknown):
                    return found
                pieces.append(value[last:match.start()])
                pieces.append(_as_text(found))
                last = match.end()
            pieces.append(value[last:])
            return "".join(pieces)
        finally:
            self.active.discard(path)

    def reference(self, ref: str, path: tuple[Any, ...], text: str) -> Any:
        key = ".".join(map(str, path))
        if ":" in ref.split(".")[0] or ":" in ref and not ref.startswith("."):
            resolver = ref.split(":", 1)[0]
            return Unknown(f"`{key}` is `{text}`, the resolver `{resolver}`'s value when the program runs, "
                           f"which the analyser does not know")
        if ref.startswith("."):
            dots = len(ref) - len(ref.lstrip("."))
            start = list(path[:-1])
            up = dots - 1
            if up > len(start):
                return Unknown(f"`{key}` is `{text}`, which goes above the config's top")
            start = start[:len(start) - up]
            ref = ref[dots:]
        else:
            start = []
        steps = _key_steps(ref) if ref else []
        if steps is None:
            return Unknown(f"`{key}` is `{text}`, a key the analyser does not read")
        target_path = (*start, *steps)
        node: Any = self.root
        walked: list[Any] = []
        for step in target_path:
            if isinstance(node, dict) and step in node:
                node = node[step]
            elif isinstance(node, dict) and isinstance(step, int) and str(step) in node:
                node = node[str(step)]
                step = str(step)
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                node = node[step]
            elif isinstance(node, list) and isinstance(step, str) and step.isdigit() and int(step) < len(node):
                step = int(step)
                node = node[step]
            else:
                return Unknown(f"`{key}` is `{text}`, and the config has no `{'.'.join(map(str, target_path))}` "
                               f"(OmegaConf's InterpolationKeyError)")
            walked.append(step)
        return self.node(node, tuple(walked))


def _key_steps(ref: str) -> list[Any] | None:
    """``a.b[0].c`` as ["a", "b", 0, "c"]; None for a key the analyser does not read."""
    steps: list[Any] = []
    for part in ref.split("."):
        match = re.fullmatch(r"([^\[\]]*)((?:\[\d+\])*)", part)
        if match is None:
            return None
        name, indexes = match.groups()
        if name:
            steps.append(int(name) if name.isdigit() else name)
        elif not indexes:
            return None
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", indexes))
    return steps


def _as_text(value: Any) -> str:
    """A value inside a string interpolation, as OmegaConf writes it."""
    return str(value)


# --- a config file opened by itself ------------------------------------------------------------

_PRIMARY_NAMES = ("train", "config", "main", "default", "defaults")  # looked at first


def compose_for_file(path: str, text: str | None = None) -> tuple[ComposedConfig, str, str]:
    """The config a group option's file (``configs/model/mnist.yaml``) takes part in, and the package
    it is merged at: a primary config beside its group directory (``configs/train.yaml``, whose
    defaults list has a ``model`` entry) composed with the file's option chosen, as
    ``python train.py model=mnist`` composes it; the interpolations into the rest of the config
    (``${data.num_classes}``) resolve so. A file no primary config composes is composed by itself.
    ``text``: the file's text in the editor. The last item: the choice (``model=mnist``), "" for a
    file composed by itself. ConfigError where the file itself cannot be read."""
    path = os.path.normpath(os.path.abspath(path))
    overlay = {path: text} if text is not None else {}
    first_error: ConfigError | None = None
    directory = os.path.dirname(path)
    for _ in range(3):  # the config directory is at most three groups up
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
        relative = os.path.relpath(path, directory)[:-len(".yaml")].replace(os.sep, "/")
        group, _, option = relative.rpartition("/")
        for primary in _primary_candidates(directory, group.split("/")[0]):
            try:
                composed = compose(directory, primary, os.path.basename(directory), {group: option}, overlay)
            except NotInDefaults:
                continue  # (its text named the group elsewhere than in its defaults list)
            except ConfigError as exc:
                first_error = first_error or exc
                continue
            if path in composed.packages:
                return composed, composed.packages[path], f"{group.replace('/', '.')}={option}"
    if first_error is not None:
        raise first_error  # a primary config that composes the file fails: what Hydra would say
    # the file as a primary config of its own directory (its own defaults list read)
    return compose(os.path.dirname(path), os.path.basename(path)[:-len(".yaml")], "", overlay=overlay), "", ""


def _primary_candidates(directory: str, group: str) -> list[str]:
    """The YAML files directly in ``directory`` whose defaults list names ``group`` (a cheap look at
    their text first), the usual primary names first."""
    try:
        names = sorted(n[:-5] for n in os.listdir(directory) if n.endswith(".yaml"))
    except OSError:
        return []
    names.sort(key=lambda n: (_PRIMARY_NAMES.index(n) if n in _PRIMARY_NAMES else len(_PRIMARY_NAMES), n))
    found = []
    for name in names[:50]:
        try:
            with open(os.path.join(directory, name + ".yaml"), encoding="utf-8") as handle:
                text = handle.read(200_000)
        except (OSError, UnicodeDecodeError):
            continue
        if "defaults" in text and re.search(rf"^\s*-\s*(?:override\s+|optional\s+)*/?{re.escape(group)}\b", text, re.M):
            found.append(name)
    return found


def node_at(values: Any, package: str) -> Any:
    """The composed config's node at a dotted package ("" for the whole config)."""
    node = values
    for part in package.split(".") if package else []:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
