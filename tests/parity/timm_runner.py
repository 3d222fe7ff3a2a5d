"""Runs in a child process for test_timm_parity.py: the static count of each class the analysis
counts in a file of timm (or torchvision), and the package's own count of the class built on the
meta device.

timm and torchvision are installed apart from the test environment (scripts/test.sh puts them in
``<venv>/timm-sidecar``): PyPI's torchvision wheel is built for CUDA torch, and with the CPU torch
its compiled operators do not load, so importing it raises while it registers their meta kernels.
Building a model never calls those operators; here that registration is skipped. In the test
process itself a torchvision that cannot be imported would change what transformers imports.

Usage: python timm_runner.py SIDECAR PACKAGE FILE [FILE ...]   (PACKAGE: timm or torchvision; FILE:
relative to the package, or "all" for timm's models/ and layers/)
Prints one JSON object per file: {"file", "counted": [[name, static total, static trainable,
package total, package trainable] or [name, ..., "error"]], "unresolved": {name: LC101 message}}.

With PACKAGE "timm-entrypoints", FILE names model files (or "all": timm's models/*.py) and the
rows are their registered model functions (``@register_model def resnet50(pretrained=False,
**kwargs)``): each is counted statically as the file's model function (``AnalyzeOptions(functions=)``,
what ``lsp-count FILE --function resnet50`` and the hover on its ``def`` count) and built by timm with
no arguments.
A FILE may end in ``:N`` to take its first N model functions.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import pathlib
import re
import sys
import types
import warnings


_USED = re.compile(r"counted with `(\w+)\(\)` defaults for `(\w+)`")


def _import_timm(sidecar: str):
    sys.path.insert(0, sidecar)
    try:
        importlib.import_module("torchvision")
    except RuntimeError as exc:
        if "torchvision::" not in str(exc):
            raise
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
        sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")
    return importlib.import_module("timm")


def compared(name: str, model, build, torch) -> list:
    """One row: the static count of ``model`` beside what ``build()`` makes on the meta device, or
    why it could not be built."""
    try:
        try:
            with torch.device("meta"):
                params = list(build().parameters())
        except NotImplementedError as exc:
            if "meta tensor" not in str(exc):
                raise
            params = list(_built_on_cpu(build, torch).parameters())
    except Exception as exc:  # noqa: BLE001 - e.g. a class whose arguments are all annotated numbers
        return [name, model.tree.total, model.tree.trainable, f"{type(exc).__name__}: {exc}"[:160]]
    return [name, model.tree.total, model.tree.trainable, sum(p.numel() for p in params),
            sum(p.numel() for p in params if p.requires_grad)]


def _built_on_cpu(build, torch):
    """A model whose constructor reads the values of tensors it computes (RegNet's widths), which
    a meta tensor has none of: built on the CPU, without filling its weights (the initialisers do
    nothing), which a count does not need."""
    from unittest import mock

    names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    with mock.patch.multiple(torch.nn.init, **{n: (lambda tensor, *a, **k: tensor) for n in names}):
        return build()


def _no_downloads(build):
    """``build`` as called with no arguments, without the weights it would download: torchvision's
    detection and segmentation models load ImageNet weights into their backbone by default
    (``weights_backbone``), and choose its layers by that (frozen batch norms). The model is built
    as with those weights, which are not loaded: loading never changes a count."""
    def without_weights():
        from unittest import mock

        import torch
        from torchvision.models._api import WeightsEnum

        with mock.patch.object(WeightsEnum, "get_state_dict", lambda self, *a, **k: {}), \
                mock.patch.object(torch.nn.Module, "load_state_dict", lambda self, *a, **k: None):
            return build()
    return without_weights


def model_functions(source: str) -> list[str]:
    """The functions a timm model file registers (``@register_model``), in file order."""
    import ast

    def named(decorator: ast.expr) -> str:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")

    return [node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)
            and any(named(d) == "register_model" for d in node.decorator_list)]


def entrypoints(package, torch, files: list[str]) -> None:
    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    root = pathlib.Path(package.__file__).parent / "models"
    if files == ["all"]:
        files = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py")) if not p.name.startswith("_")]
    for spec in files:
        rel, _, first = spec.partition(":")
        functions = model_functions((root / rel).read_text(encoding="utf-8"))[:int(first) if first else None]
        rows: list[list] = []
        unresolved: dict[str, str] = {}
        if functions:
            module = importlib.import_module(f"{package.__name__}.models." + rel[:-3].replace("/", "."))
            path = root / rel
            report = analyze_text(path.read_text(encoding="utf-8"), str(path), AnalyzeOptions(functions=tuple(functions)))
            unresolved = {p.message.split("`")[1][:-2]: p.message for p in report.problems
                          if p.code == "LC101" and p.message.split("`")[1].endswith("()")}
            for model in report.models:
                if model.name.endswith("()"):
                    build = getattr(module, model.name[:-2])
                    rows.append(compared(model.name[:-2], model, build if package.__name__ == "timm" else
                                         _no_downloads(build), torch))
        print(json.dumps({"file": rel, "functions": len(functions), "counted": rows, "unresolved": unresolved}),
              flush=True)


def main() -> None:
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    os.environ.setdefault("LSP_COUNT_CACHE_DIR", "off")
    import torch

    from lsp_count.core.analyze import analyze_text

    timm = _import_timm(sys.argv[1])
    if sys.argv[2].endswith("-entrypoints"):
        package = timm if sys.argv[2] == "timm-entrypoints" else importlib.import_module(sys.argv[2].split("-")[0])
        entrypoints(package, torch, sys.argv[3:])
        return
    package = importlib.import_module(sys.argv[2]) if sys.argv[2] != "timm" else timm
    root = pathlib.Path(package.__file__).parent
    names = sys.argv[3:]
    if names == ["all"]:
        names = [str(p.relative_to(root)) for sub in ("models", "layers") for p in sorted((root / sub).glob("*.py"))]
    for rel in names:
        path = root / rel
        report = analyze_text(path.read_text(encoding="utf-8"), str(path))
        rows = []
        module = None
        if report.models:
            try:
                module = importlib.import_module(f"{sys.argv[2]}." + rel[:-3].replace("/", "."))
            except Exception as exc:  # noqa: BLE001 - reported per class below
                rows = [[m.name, m.tree.total, m.tree.trainable, f"import: {type(exc).__name__}: {exc}"]
                        for m in report.models]
        notes = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC106"}
        for model in report.models if module is not None else ():
            # The config classes the analysis says it built with their defaults (LC106).
            used = _USED.findall(notes.get(model.name, ""))
            rows.append(compared(model.name, model, lambda model=model, used=used: getattr(module, model.name)(
                **{arg: getattr(module, cfg)() for cfg, arg in used}), torch))
        unresolved = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}
        print(json.dumps({"file": rel, "counted": rows, "unresolved": unresolved}), flush=True)


if __name__ == "__main__":
    main()
