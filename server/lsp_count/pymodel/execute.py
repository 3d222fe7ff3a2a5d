"""Opt-in exact mode: import the file in a subprocess and count each class on the meta device.

Runs only when the user asked (``--execute`` / AnalyzeOptions.execute; the server
refuses it in untrusted workspaces). The child has a timeout and no network
variables set; its only output is one JSON line.
"""

from __future__ import annotations

import json
import os

from lsp_count.core.child import run_json_child
from lsp_count.core.params import ParamNode, ParamTree, Tensor
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, Span
from lsp_count.pymodel.analyzer import CONFIG_CLASS_NAME

TIMEOUT_SECONDS = 60

_CHILD = r"""
import dataclasses, importlib.util, inspect, json, re, sys, warnings
warnings.filterwarnings("ignore")
path, names, config_name = sys.argv[1], json.loads(sys.argv[2]), re.compile(sys.argv[3], re.I)
out = {}
try:
    import torch
    spec = importlib.util.spec_from_file_location("lsp_count_executed", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
except BaseException as exc:
    print(json.dumps({"error": f"{type(exc).__name__}: {exc}"})); sys.exit(0)
plain = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__
         and not issubclass(c, torch.nn.Module)]
# As the static analysis picks them: classes named config/args, else the dataclasses.
configs = [c for c in plain if config_name.search(c.__name__)] or [
    c for c in plain if dataclasses.is_dataclass(c)]
for name in names:
    try:
        cls = getattr(module, name)
        kwargs = {}
        for arg, p in list(inspect.signature(cls.__init__).parameters.items())[1:]:
            if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                annotated = p.annotation is not p.empty and isinstance(p.annotation, type)  # `empty` is a class too
                ann = p.annotation if annotated else (configs[0] if len(configs) == 1 else None)
                if ann is None:
                    raise TypeError(f"the constructor argument `{arg}` has no default")
                kwargs[arg] = ann()
        with torch.device("meta"):
            model = cls(**kwargs)
        params = list(model.parameters())
        comps = {}
        for n, p in model.named_parameters():
            pair = comps.setdefault(n.split(".")[0], [0, 0])
            pair[0 if p.requires_grad else 1] += p.numel()
        out[name] = {"total": sum(p.numel() for p in params),
                     "trainable": sum(p.numel() for p in params if p.requires_grad), "components": comps}
    except BaseException as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
print(json.dumps(out))
"""


def count_by_executing(path: str, names: list[str], base_dir: str | None,
                       spans: dict[str, Span]) -> tuple[list[ModelReport], list[Problem]]:
    cwd = base_dir or os.path.dirname(os.path.abspath(path)) or "."
    pythonpath = os.pathsep.join(filter(None, [cwd, os.environ.get("PYTHONPATH", "")]))
    result = run_json_child([_CHILD, os.path.abspath(path), json.dumps(names), CONFIG_CLASS_NAME.pattern],
                            timeout=TIMEOUT_SECONDS,
                            cwd=cwd, extra_env={"PYTHONPATH": pythonpath})
    if "error" in result and not isinstance(result["error"], dict):
        return [], [Problem("error", "LC105", f"--execute could not import the file: {result['error']}")]
    models, problems = [], []
    for name in names:
        entry = result.get(name, {"error": "not reported"})
        span = spans.get(name)
        if "error" in entry:
            problems.append(Problem("warning", "LC101", f"`{name}` cannot be counted by executing it: {entry['error']}", span))
            continue
        children = []
        for comp, (trainable, frozen) in entry["components"].items():
            parts = ((ParamNode("frozen", (Tensor("frozen", (frozen,)),), frozen=True, note="frozen"),) if frozen else ())
            children.append(ParamNode(comp, (Tensor(comp, (trainable,), "other", comp),) if trainable else (), parts))
        tree = ParamTree(ParamNode(name, children=tuple(children)),
                         notes=("counted by executing the file: the class built on the meta device",))
        models.append(ModelReport(name, tree, span=span, method="executed (meta device)"))
        problems.append(Problem("info", "LC105", f"`{name}` counted by executing the file on the meta device", span))
    return models, problems
