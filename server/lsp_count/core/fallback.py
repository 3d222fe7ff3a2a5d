"""Counting an unsupported model_type with transformers, only when the user asks.

The model is built on the meta device (no weights, no memory) in a subprocess so
that torch and transformers never load into the caller, with a timeout. Results
are cached by a hash of the config, since importing transformers takes seconds.
Nothing here touches the network: ``HF_HUB_OFFLINE`` is set for the child.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from lsp_count.core.child import run_json_child
from lsp_count.core.params import ParamNode, ParamTree, Tensor
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, SourceNode

TIMEOUT_SECONDS = 120

_CHILD = r"""
import json, sys, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
config = json.loads(sys.stdin.read())
try:
    import torch, transformers
    from transformers import AutoConfig
except ImportError as exc:
    print(json.dumps({"error": f"transformers/torch not installed: {exc}"})); sys.exit(0)
try:
    model_type = config.pop("model_type")
    cfg = AutoConfig.for_model(model_type, **config)
    archs = getattr(cfg, "architectures", None) or []
    cls = getattr(transformers, archs[0], None) if archs else None
    with torch.device("meta"):
        if cls is None:
            from transformers import AutoModelForCausalLM, AutoModel
            try:
                model = AutoModelForCausalLM.from_config(cfg)
            except ValueError:
                model = AutoModel.from_config(cfg)
        else:
            model = cls(cfg)
    components = {}
    for name, p in model.named_parameters():
        top = name.split(".")[0]
        components[top] = components.get(top, 0) + p.numel()
    params = list(model.parameters())
    print(json.dumps({
        "architecture": type(model).__name__,
        "total": sum(p.numel() for p in params),
        "trainable": sum(p.numel() for p in params if p.requires_grad),
        "components": components,
        "transformers": transformers.__version__,
    }))
except Exception as exc:  # report, don't crash: the parent turns this into a problem
    print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
"""


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lsp-count" / "transformers-counts"


def count_with_transformers(root: SourceNode, name: str) -> tuple[ModelReport | None, tuple[Problem, ...]]:
    config = root.to_python()
    assert isinstance(config, dict)
    payload = json.dumps(config, sort_keys=True)
    key = hashlib.sha256(payload.encode()).hexdigest()[:32]
    cache_file = _cache_dir() / f"{key}.json"
    result = None
    if cache_file.is_file():
        try:
            result = json.loads(cache_file.read_text())
        except (OSError, ValueError):
            result = None
    if result is None:
        result = run_json_child([_CHILD], timeout=TIMEOUT_SECONDS, stdin_text=payload,
                                extra_env={"TOKENIZERS_PARALLELISM": "false"})
        if "error" not in result:
            try:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                cache_file.write_text(json.dumps(result))
            except OSError:
                pass  # the cache is an optimisation only
    if "error" in result:
        return None, (Problem("error", "LC101", f"could not count with transformers: {result['error']}", root.get("model_type").span if root.get("model_type") else root.span),)
    children = tuple(ParamNode(comp, (Tensor(comp, (n,), "other", comp),)) for comp, n in result["components"].items())
    frozen = result["total"] - result["trainable"]
    tree = ParamTree(ParamNode(result["architecture"], children=children),
                     notes=(f"counted by building {result['architecture']} with transformers {result['transformers']} on the meta device",))
    if frozen:
        tree = ParamTree(ParamNode(result["architecture"], children=children + (ParamNode("frozen", (), note=f"{frozen:,} frozen"),)), tree.notes)
    report = ModelReport(name=name, tree=tree, spec=None, span=root.span, method="transformers (meta device)")
    return report, (Problem("info", "LC105", f"counted with transformers {result['transformers']} on the meta device ({result['architecture']})",
                            root.get("model_type").span if root.get("model_type") else root.span),)
