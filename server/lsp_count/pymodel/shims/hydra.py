"""What the analyser reads for OmegaConf's configs and Hydra's ``instantiate``, where the installed
packages are not read (``read-packages``). It is never imported.

A ``DictConfig`` is a dict read by key or attribute (a key it lacks is OmegaConf's error), a
``ListConfig`` a plain list. ``OmegaConf.load`` reads a YAML file as data (``lsp_count_shim.read_yaml``,
the analyser's own, in hydra_config.py: OmegaConf's loading rules, interpolations resolved);
``create``, ``merge``, ``to_container`` and ``to_object`` are written out as OmegaConf does them
for plain data. ``instantiate`` / ``call`` are Hydra 1.3's ``_instantiate2``: ``_target_`` located
(``lsp_count_shim.locate``: a class or function of the project, torch's, or the named package's),
``_args_``, ``_recursive_``, ``_partial_``, ``_convert_``, and the keyword arguments given merged
over the config. ``initialize`` / ``initialize_config_dir`` and ``compose(config_name, overrides)``
are Hydra's compose API (``lsp_count_shim.hydra_compose``: hydra_config.compose). The parity tests
compare it with the installed Hydra. ``kind`` is what a value is ("DictConfig",
"dict", "ListConfig" for any list, or ""), where ``isinstance`` would stop at a value the analyser does not
know (``${oc.env:DATA}``): such values are passed on, as Hydra passes them.
"""

import functools

from lsp_count_shim import hydra_compose, hydra_initialize, kind, locate, read_yaml


class DictConfig(dict):
    def __getattr__(self, key):
        if key in self:
            return self[key]
        raise AttributeError(f"Missing key {key}")

    def __setattr__(self, key, value):
        self[key] = _wrap(value)

    def __delattr__(self, key):
        del self[key]


ListConfig = list  # (a list subclass is not followed: a config's lists are lists here)


def _wrap(value):
    what = kind(value)
    if what == "dict":
        return DictConfig({key: _wrap(item) for key, item in value.items()})
    if what == "ListConfig":
        return [_wrap(item) for item in value]
    return value


def _plain(value):
    what = kind(value)
    if what == "DictConfig" or what == "dict":
        return {key: _plain(item) for key, item in value.items()}
    if what == "ListConfig":
        return [_plain(item) for item in value]
    return value


def _merged(base, update):
    if kind(base) == "dict" and kind(update) == "dict":
        out = dict(base)
        for key, value in update.items():
            out[key] = _merged(out[key], value) if key in out else value
        return out
    return update


class OmegaConf:
    @staticmethod
    def create(obj=None, parent=None, flags=None):
        if obj is None:
            obj = {}
        return _wrap(obj)

    @staticmethod
    def load(file_):
        return read_yaml(file_)  # (made a DictConfig by the analyser)

    @staticmethod
    def merge(*configs):
        out = {}
        for config in configs:
            out = _merged(out, _plain(config))
        return _wrap(out)

    @staticmethod
    def unsafe_merge(*configs):
        return OmegaConf.merge(*configs)

    @staticmethod
    def to_container(cfg, resolve=False, throw_on_missing=False, enum_to_str=False, structured_config_mode=None):
        return _plain(cfg)

    @staticmethod
    def to_object(cfg):
        return _plain(cfg)

    @staticmethod
    def is_config(obj):
        return kind(obj) in ("DictConfig", "ListConfig")

    @staticmethod
    def is_dict(obj):
        return kind(obj) == "DictConfig"

    @staticmethod
    def is_list(obj):
        return kind(obj) == "ListConfig"

    @staticmethod
    def set_struct(conf, value):
        pass

    @staticmethod
    def set_readonly(conf, value):
        pass

    @staticmethod
    def resolve(cfg):
        pass

    @staticmethod
    def select(cfg, key, default=None, throw_on_missing=False):
        node = cfg
        for part in key.split("."):
            if kind(node) in ("DictConfig", "dict") and part in node:
                node = node[part]
            else:
                return default
        return node


_KEYS = ("_target_", "_convert_", "_recursive_", "_partial_")


def instantiate(config, *args, **kwargs):
    if config is None:
        return None
    if kind(config) in ("dict", "ListConfig"):
        config = _wrap(config)
    what = kind(config)
    if what == "DictConfig":
        if kwargs:
            config = _wrap(_merged(_plain(config), _plain(kwargs)))
        else:
            config = DictConfig({key: value for key, value in config.items()})
        recursive = config.pop("_recursive_", True)
        convert = config.pop("_convert_", "none")
        partial = config.pop("_partial_", False)
        return _instantiate_node(config, *args, recursive=recursive, convert=convert, partial=partial)
    if what == "ListConfig":
        recursive = kwargs.pop("_recursive_", True)
        convert = kwargs.pop("_convert_", "none")
        partial = kwargs.pop("_partial_", False)
        if partial:
            raise ValueError("The _partial_ keyword is not compatible with top-level list instantiation")
        return _instantiate_node(config, *args, recursive=recursive, convert=convert, partial=partial)
    raise ValueError("Top level config has to be OmegaConf DictConfig/ListConfig, plain dict/list, "
                     "or a Structured Config class or instance.")


call = instantiate


def _instantiate_node(node, *args, convert="none", recursive=True, partial=False):
    what = kind(node)  # (None, a number, a value the analyser does not know: "")
    if what != "DictConfig" and what != "ListConfig":
        return node
    if what == "DictConfig":
        convert = node["_convert_"] if "_convert_" in node else convert
        recursive = node["_recursive_"] if "_recursive_" in node else recursive
        partial = node["_partial_"] if "_partial_" in node else partial
    if what == "ListConfig":
        items = [_instantiate_node(item, convert=convert, recursive=recursive) for item in node]
        return items
    if "_target_" in node:
        target = node["_target_"]
        if isinstance(target, str):
            target = locate(target)
        kwargs = {}
        for key in node.keys():
            if key not in _KEYS:
                value = node[key]
                if recursive:
                    value = _instantiate_node(value, convert=convert, recursive=recursive)
                kwargs[key] = _convert_node(value, convert)
        return _call_target(target, partial, args, kwargs)
    if convert == "all" or convert == "partial":
        return {key: _instantiate_node(value, convert=convert, recursive=recursive) for key, value in node.items()}
    return DictConfig({key: _instantiate_node(value, convert=convert, recursive=recursive)
                       for key, value in node.items()})


def _convert_node(value, convert):
    if convert in ("all", "partial", "object") and kind(value) in ("DictConfig", "ListConfig"):
        return _plain(value)
    return value


def _call_target(target, partial, args, kwargs):
    config_args = kwargs.pop("_args_", ())
    if len(args) > 0:
        config_args = args
    if partial:
        return functools.partial(target, *config_args, **kwargs)
    return target(*config_args, **kwargs)


def get_class(path):
    return locate(path)


def get_method(path):
    return locate(path)


def get_object(path):
    return locate(path)


class initialize:
    """Hydra's compose API: the config directory, relative to the file that calls it."""

    def __init__(self, version_base=None, config_path=None, job_name=None, caller_stack_depth=1):
        hydra_initialize(config_path, False)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        hydra_initialize(None, True)
        return False


class initialize_config_dir(initialize):
    def __init__(self, config_dir, version_base=None, job_name=None):
        hydra_initialize(config_dir, True)


def compose(config_name=None, overrides=None, return_hydra_config=False, strict=None):
    if overrides is None:
        overrides = []
    return hydra_compose(config_name, overrides)
