"""YAML configs that name the model's class, opened by themselves: the model is built from the
class named and the arguments given, as the analyser counts a script's ``instantiate(cfg.model)``.

- Hydra (``configs/model/mnist.yaml``: ``_target_: src.models.mnist_module.MNISTLitModule`` and its
  arguments): the model ``hydra.utils.instantiate`` builds. The config is composed as the run that
  chooses it composes it (hydra_config.compose_for_file: the primary config beside its group,
  ``model=mnist``), so its interpolations into the rest of the config resolve.
- LightningCLI / jsonargparse (``model: {class_path: my_project.LitModel, init_args: {...}}``):
  the model ``LightningCLI(subclass_mode_model=True)`` builds, nested ``class_path`` arguments
  built first, as jsonargparse builds them.

The class is read from the project directory above the config that holds its package (``src/``
of ``src.models...``), never imported.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, Span
from lsp_count.pymodel import hydra_config
from lsp_count.pymodel.analyzer import _installed_packages, _internal_error, _name_report, _release, _unresolved
from lsp_count.pymodel.interp import Ctx, FuncV, Interpreter
from lsp_count.pymodel.syntax import may_import_project
from lsp_count.pymodel.values import ClassV, ExtV, Inst, Unresolved, why_of


def count_hydra_config(text: str, path: str, options: Any,
                       span: Span) -> tuple[ModelReport | None, list[Problem], bool]:
    """The model the config's ``_target_`` builds, named by its class; ``span``: where its
    ``_target_`` is (the lens). LC102 where the config cannot be composed, LC101 where the model
    cannot be built, with the reason. The last item: whether it is a model's config at all (a
    ``_target_`` that is not a module class of the project or torch, or a function of the project,
    is a data module's, an optimizer's, a trainer's: the editor and the gate say nothing of it)."""
    try:
        composed, package, choice = hydra_config.compose_for_file(path, text)
    except hydra_config.ConfigError as exc:
        return None, [Problem("error", "LC102", str(exc), span)], True
    node = hydra_config.node_at(composed.values, package)
    if isinstance(node, dict) and "_target_" not in node and isinstance(node.get("model"), dict):
        node = node["model"]  # an experiment config's `model:`
    target = node.get("_target_") if isinstance(node, dict) else None
    if type(target) is not str:
        return None, [Problem("info", "LC002", f"no model found: `_target_` is not a class name: {why_of(target)}",
                              span)], False
    problems = []
    if choice:
        problems.append(Problem("info", "LC106", f"counted in the config {composed.files[0]} composes with `{choice}` "
                                                 f"chosen, as on a command line (it reads "
                                                 f"{', '.join(composed.files[1:])})", span))
    elif len(composed.files) > 1:
        problems.append(Problem("info", "LC106", f"counted as Hydra composes this config with no command-line "
                                                 f"overrides (it reads {', '.join(composed.files[1:])})", span))
    return build_target_config(node, target, path, options, span, problems)


def count_lightning_cli_config(data: Any, path: str, options: Any,
                               span: Span) -> tuple[ModelReport | None, list[Problem], bool]:
    """The model a LightningCLI config's ``model: {class_path: ..., init_args: ...}`` (or a model
    config file's own ``class_path``) builds, as count_hydra_config counts a Hydra one."""
    node = data.get("model") if isinstance(data, dict) and isinstance(data.get("model"), dict) else data
    try:
        converted = _class_path_to_target(node, "model" if node is not data else "")
    except ValueError as exc:
        return None, [Problem("error", "LC102", str(exc), span)], True
    return build_target_config(converted, converted["_target_"], path, options, span, [], "class_path")


def _class_path_to_target(value: Any, where: str) -> Any:
    """jsonargparse's ``{class_path: X, init_args: {...}, dict_kwargs: {...}}`` as Hydra's
    ``{_target_: X, ...}``, nested ones too. ValueError for a key beside ``class_path`` that is not
    one of those (jsonargparse refuses ``{class_path: X, dim: 4}``)."""
    if isinstance(value, list):
        return [_class_path_to_target(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if not isinstance(value.get("class_path"), str):
        return {k: _class_path_to_target(v, f"{where}.{k}" if where else str(k)) for k, v in value.items()}
    stray = [k for k in value if k not in ("class_path", "init_args", "dict_kwargs")]
    if stray:
        raise ValueError(f"`{where or 'the config'}` has `{stray[0]}` beside its class_path: jsonargparse takes a "
                         f"class's arguments under `init_args`")
    arguments: dict[Any, Any] = {}
    for extra in ("init_args", "dict_kwargs"):
        if isinstance(value.get(extra), dict):
            arguments.update(value[extra])
    inner = f"{where}.init_args" if where else "init_args"
    return {"_target_": value["class_path"], **{k: _class_path_to_target(v, f"{inner}.{k}") for k, v in arguments.items()}}


def build_target_config(node: dict[str, Any], target: str, path: str, options: Any, span: Span,
                        problems: list[Problem], key: str = "_target_") -> tuple[ModelReport | None, list[Problem], bool]:
    """The model Hydra's instantiate builds from ``node`` (a ``_target_`` mapping), counted; see
    count_hydra_config for what it returns. ``key``: how the config names the class, for messages."""
    name = target.rsplit(".", 1)[-1]
    root = _project_root(os.path.dirname(os.path.abspath(path)), target)
    ctx = Ctx((root,), *_installed_packages(options, root))
    ctx.hf_cache = getattr(options, "hf_cache", None) if options is not None else None
    scope = ctx.new_scope(os.path.join(root, "__hydra_instantiate__.py"), None, True)
    interp = Interpreter(ctx)
    call = ast.parse("hydra.utils.instantiate(config)", mode="eval").body  # (what messages quote)
    not_a_model = [Problem("info", "LC002", f"no model found: `{key}: {target}` is not a module class of the "
                                            f"project or torch", span)]
    try:
        ctx.start_count()
        try:
            located = interp.locate(target, scope, call)
        except Unresolved:
            return None, not_a_model, False  # (a package's class: a trainer, a data module)
        if not (type(located) is ClassV and located.is_module or type(located) is FuncV or
                type(located) is ExtV and located.name.startswith("torch.nn.") and located.name.split(".")[-1][:1].isupper()):
            return None, not_a_model, False
        config = interp.config_value(node, call, scope.env)
        model = interp.call(interp.shim_class("hydra.utils.instantiate"), [config], {}, call, scope.env)
        if type(model) is not Inst or not model.is_module:
            return None, not_a_model, False
        report, problem = _name_report(ctx, name, model, span)
    except Unresolved as exc:
        problems.append(_unresolved(name, exc.reason, span))
        return None, problems, True
    except RecursionError:
        problems.append(_unresolved(name, "the model's code nests too deeply to follow", span))
        return None, problems, True
    except Exception as exc:  # noqa: BLE001 - a bug of the analyser on odd code: said, never a traceback
        problems.append(_internal_error(exc, f"`{target}`", span))
        return None, problems, True
    finally:
        _release(ctx)
    if problem is not None:
        problems.append(problem)
    return report, problems, True


def _project_root(directory: str, target: str) -> str:
    """The directory the program runs from, as far as ``_target_`` tells: the nearest one above the
    config holding the target's top package (``src`` of ``src.models.mnist_module.Net``); the
    config's own directory for a target outside the project (``torch.nn.Linear``)."""
    top = target.split(".")[0]
    if not may_import_project(target, 0):
        return directory
    here = directory
    for _ in range(8):
        if os.path.isdir(os.path.join(here, top)) or os.path.isfile(os.path.join(here, top + ".py")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return directory
