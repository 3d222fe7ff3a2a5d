"""torch.nn.utils' reparametrizations: they replace a module's parameter with others, which
changes what the module registers and so its count.

* ``weight_norm`` (the hook version): ``weight`` becomes ``weight_g`` (the norm: size 1 on every
  axis but ``dim``; a scalar for ``dim=None`` or ``-1``) and ``weight_v`` (the direction, the
  weight's shape), new parameters, trainable.
* ``spectral_norm`` (the hook version): ``weight`` becomes ``weight_orig``, the same tensor.
* ``parametrizations.weight_norm`` / ``spectral_norm`` / ``orthogonal``: the module gets a
  ``parametrizations`` ModuleDict whose entry for the parameter holds ``original0`` and
  ``original1`` (weight norm's g and v) or ``original``, as trainable as the parameter was. A
  second parametrization of the same parameter registers nothing new.
* ``remove_weight_norm`` / ``remove_spectral_norm``: ``weight`` again, a new parameter.
* ``parametrize.register_parametrization(module, name, p)``: the same ``parametrizations`` entry,
  ``original`` and the parametrization module ``p`` (its own parameters count: StableCascade's and
  other LoRA layers); a second one is appended. ``is_parametrized`` reads it and
  ``remove_parametrizations`` takes it away (``name`` a parameter again).

Audio models (HiFi-GAN, EnCodec, wav2vec2's positional convolution) use these everywhere. Shapes,
names and flags are torch 2.x's; a parity test builds each with torch.
"""

from __future__ import annotations

from typing import Any

from lsp_count.core.source import Span
from lsp_count.pymodel.layers import REQUIRED, as_int, bind
from lsp_count.pymodel.values import (ExtV, Inst, Param, Raised, Sym, TensorV, Unknown, Unresolved, is_unknownish,
                                      why_of)

_UTILS = "torch.nn.utils."
# Dotted name (without "torch.nn.utils.") -> its signature, as torch declares it.
SIGNATURES: dict[str, list[tuple[str, Any]]] = {
    "weight_norm": [("module", REQUIRED), ("name", "weight"), ("dim", 0)],
    "spectral_norm": [("module", REQUIRED), ("name", "weight"), ("n_power_iterations", 1), ("eps", 1e-12),
                      ("dim", None)],
    "remove_weight_norm": [("module", REQUIRED), ("name", "weight")],
    "remove_spectral_norm": [("module", REQUIRED), ("name", "weight")],
    "parametrizations.weight_norm": [("module", REQUIRED), ("name", "weight"), ("dim", 0)],
    "parametrizations.spectral_norm": [("module", REQUIRED), ("name", "weight"), ("n_power_iterations", 1),
                                       ("eps", 1e-12), ("dim", None)],
    "parametrizations.orthogonal": [("module", REQUIRED), ("name", "weight"), ("orthogonal_map", None),
                                    ("use_trivialization", True)],
    "parametrize.register_parametrization": [("module", REQUIRED), ("tensor_name", REQUIRED),
                                             ("parametrization", REQUIRED), ("unsafe", False)],
    "parametrize.remove_parametrizations": [("module", REQUIRED), ("tensor_name", REQUIRED),
                                            ("leave_parametrized", True)],
    "parametrize.is_parametrized": [("module", REQUIRED), ("tensor_name", None)],
}


def reparametrization(dotted: str) -> str | None:
    """The table's name for a dotted function name (``torch.nn.utils.weight_norm``, or
    ``torch.nn.utils.weight_norm.weight_norm``, the function in its module); None if it is none."""
    if not dotted.startswith(_UTILS):
        return None
    key = dotted[len(_UTILS):]
    if key == "weight_norm.WeightNorm.apply":
        key = "weight_norm"  # the class's apply(module, name, dim), which the function calls (Baseline++'s head)
    parts = key.split(".")
    if len(parts) > 1 and parts[-1] == parts[-2]:
        key = ".".join(parts[:-1])
    return key if key in SIGNATURES else None


def reparametrize(key: str, args: list[Any], kwargs: dict[str, Any], origin: Span | None) -> Any:
    """What ``torch.nn.utils.<key>(*args, **kwargs)`` does to its module; returns the module."""
    a = bind(f"utils.{key}", SIGNATURES[key], tuple(args), kwargs)
    if key.startswith("parametrize."):
        return _registered_parametrization(key, a, origin)
    module, name = a["module"], a["name"]
    call = f"nn.utils.{key}"
    if is_unknownish(module):
        return _not_built(call, module)
    _check_module(module, call)
    if not isinstance(name, str):
        raise Unresolved(f"`{call}`: the parameter's name is not a known string")
    attrs = module.attrs
    if key.startswith("remove_"):
        kept = ("_g", "_v") if key == "remove_weight_norm" else ("_orig",)
        if not all(name + suffix in attrs for suffix in kept):
            what = "weight_norm" if key == "remove_weight_norm" else "spectral_norm"
            raise Raised(f"`{call}`: `{name}` has no {what} to remove (torch raises ValueError)", ExtV("ValueError"))
        direction = attrs[name + kept[-1]]  # weight_v, weight_orig: the weight's shape and kind
        for suffix in kept:
            del attrs[name + suffix]
        attrs[name] = Param(direction.shape, direction.kind, True, origin)
        return module
    if key.startswith("parametrizations."):
        return _parametrize(module, key.split(".")[1], name, a, origin, call)
    if key == "weight_norm":
        if name + "_g" in attrs:
            raise Raised(f"`{call}`: `{name}` has a weight_norm already (torch raises RuntimeError)", ExtV("RuntimeError"))
        p = _param(module, name, call)
        g = _norm_shape(p.shape, a["dim"], call)
        del attrs[name]
        attrs[name + "_g"] = Param(g, "other", True, origin)
        attrs[name + "_v"] = Param(p.shape, p.kind, True, origin)
        attrs[name] = TensorV(tuple(p.shape))  # the weight computed from them, a plain tensor (TCN's `.weight.data`)
    else:  # spectral_norm: the same tensor under another name
        if name + "_orig" in attrs:
            raise Raised(f"`{call}`: `{name}` has a spectral_norm already (torch raises RuntimeError)",
                         ExtV("RuntimeError"))
        p = _param(module, name, call)
        del attrs[name]
        attrs[name + "_orig"] = p
        attrs[name] = TensorV(tuple(p.shape))  # its data, a plain tensor
    return module


def _parametrize(module: Inst, kind: str, name: str, a: dict[str, Any], origin: Span | None, call: str) -> Inst:
    holder = module.attrs.get("parametrizations")
    if isinstance(holder, Inst) and name in holder.attrs:
        return module  # appended to the parameter's parametrizations: its originals stay as they are
    p = _param(module, name, call)
    entry = Inst("ParametrizationList", "module", True, origin)
    if kind == "weight_norm":
        entry.attrs["original0"] = Param(_norm_shape(p.shape, a["dim"], call), "other", p.requires_grad, origin)
        entry.attrs["original1"] = Param(p.shape, p.kind, p.requires_grad, origin)
    else:
        entry.attrs["original"] = Param(p.shape, p.kind, p.requires_grad, origin)
    return _installed(module, holder, name, entry, p, origin)


def _registered_parametrization(key: str, a: dict[str, Any], origin: Span | None) -> Any:
    """torch.nn.utils.parametrize's register_parametrization, remove_parametrizations and
    is_parametrized, on a module the analyser built."""
    module, name = a["module"], a["tensor_name"]
    call = f"nn.utils.{key}"
    if is_unknownish(module):
        return _not_built(call, module)
    _check_module(module, call)
    holder = module.attrs.get("parametrizations")
    if key.endswith("is_parametrized"):
        if not isinstance(holder, Inst):
            return False
        return bool(holder.attrs) if name is None else name in holder.attrs
    if not isinstance(name, str):
        raise Unresolved(f"`{call}`: the tensor's name is not a known string")
    if key.endswith("remove_parametrizations"):
        if not isinstance(holder, Inst) or name not in holder.attrs:
            raise Raised(f"`{call}`: `{name}` has no parametrization to remove (torch raises ValueError)",
                         ExtV("ValueError"))
        entry = holder.attrs.pop(name)
        original = entry.attrs.get("original")
        if not isinstance(original, Param) and isinstance(entry.attrs.get("original1"), Param):
            # weight_norm's (g, v): removed, the weight is left as computed, in v's shape
            if a["leave_parametrized"] is False:
                raise Raised(f"`{call}` raises ValueError: Cannot leave unparametrized (`leave_parametrized=False`) "
                             f"a tensor that is parametrized in terms of a sequence of tensors.", ExtV("ValueError"))
            original = entry.attrs["original1"]
        if not isinstance(original, Param):
            raise Unresolved(f"`{call}`: the parametrization of `{name}` has no single original the analyser keeps")
        module.attrs[name] = Param(original.shape, original.kind, original.requires_grad, origin) if \
            a["leave_parametrized"] is not False else original
        if not holder.attrs:
            del module.attrs["parametrizations"]
        return module
    parametrization = a["parametrization"]
    if is_unknownish(parametrization):
        raise Unresolved(f"`{call}`'s parametrization is not known: {why_of(parametrization)}")
    if not isinstance(parametrization, Inst) or not parametrization.is_module:
        raise Raised(f"`{call}`: the parametrization is not a module (torch raises)", ExtV("TypeError"))
    cls = parametrization.cls
    if not isinstance(cls, str) and cls.find("right_inverse", None) is not None:
        raise Unresolved(f"`{call}`: a parametrization with its own right_inverse (which sets the originals) is "
                         f"not followed")
    if isinstance(holder, Inst) and name in holder.attrs:
        entry = holder.attrs[name]
        entry.attrs[str(sum(1 for k in entry.attrs if k.isdigit()))] = parametrization
        return module
    p = _param(module, name, call)
    entry = Inst("ParametrizationList", "list", True, origin)
    entry.attrs["0"] = parametrization
    entry.attrs["original"] = p  # the tensor itself, kept as the parametrization's input
    return _installed(module, holder, name, entry, p, origin)


def _installed(module: Inst, holder: Any, name: str, entry: Inst, p: Param, origin: Span | None) -> Inst:
    """The parameter's ParametrizationList put in the module's ``parametrizations``, in its place."""
    if not isinstance(holder, Inst):
        holder = module.attrs["parametrizations"] = Inst("ModuleDict", "dict", True, origin)
    del module.attrs[name]
    holder.attrs[name] = entry
    module.attrs[name] = TensorV(tuple(p.shape))  # what the parametrization computes: read, never a parameter
    return module


def _not_built(call: str, module: Any) -> Unknown:
    return Unknown(f"`{call}` is given a module the analyser could not build: {why_of(module)}", maybe_module=True)


def _check_module(module: Any, call: str) -> None:
    if not isinstance(module, Inst) or not module.is_module:
        raise Unresolved(f"`{call}` is given no module")


def _param(module: Inst, name: str, call: str) -> Param:
    p = module.attrs.get(name)
    if not isinstance(p, Param):
        raise Unresolved(f"`{call}`: the module has no parameter `{name}`")
    return p


def _norm_shape(shape: tuple[Any, ...], dim: Any, call: str) -> tuple[Any, ...]:
    """The shape of weight norm's g: the norm over every axis but ``dim`` (torch.norm_except_dim;
    ``None`` and ``-1`` take the norm over all, a scalar)."""
    if dim is None:
        return ()
    d = as_int(dim, f"`{call}`'s dim")
    if isinstance(d, Sym):
        raise Unresolved(f"`{call}`'s dim depends on {why_of(d)}")
    if d == -1:
        return ()
    if d < 0:
        d += len(shape)
    if not 0 <= d < len(shape):
        raise Unresolved(f"`{call}`: dim {dim} is out of range for a {len(shape)}-dimensional parameter (torch raises)")
    return tuple(size if i == d else 1 for i, size in enumerate(shape))

