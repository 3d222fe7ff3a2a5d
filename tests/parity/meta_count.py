"""Ground truth: what transformers counts for a config, built on the meta device."""

from __future__ import annotations

import copy
import json
import logging
import sys
import types
import warnings

# What transformers 5's RoPE check (validate_rope) says when it refuses an odd, fully rotated head width.
ODD_ROTARY = "RoPE requires an even rotary dimension"


def transformers_count(config: dict, architecture: str | None = None) -> tuple[int, int]:
    """(total, trainable) parameters of the transformers class for ``config`` (meta device).

    ``sum(p.numel() for p in model.parameters())`` counts a tied tensor once.
    """
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    arch = architecture or (config.get("architectures") or [None])[0]
    cls = getattr(transformers, arch)
    with torch.device("meta"):
        model = cls(cfg)
    params = list(model.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


def transformers_verdict(config: dict, architecture: str | None = None) -> int | str | None:
    """transformers' count of ``config``; ODD_ROTARY where its RoPE check refuses the config, None where
    it refuses it otherwise or cannot build the model. (Counted from a copy: config classes fill nested
    mappings in place.)"""
    try:
        return transformers_count(copy.deepcopy(config), architecture)[0]
    except Exception as exc:  # noqa: BLE001 - transformers refuses the config or cannot build the model
        return ODD_ROTARY if ODD_ROTARY in str(exc) else None


def lsp_count_verdict(config: dict) -> tuple[int | None, list[str]]:
    """lsp-count's total of ``config`` read as a config.json (None where it gives an error), and its errors."""
    from lsp_count.core.analyze import analyze_text

    report = analyze_text(json.dumps(config, indent=2), "model/config.json")
    errors = [f"{p.code} {p.message}" for p in report.problems if p.severity == "error"]
    return (report.models[0].tree.total if report.models and not errors else None), errors


def file_class_counts(text: str, path: str, name: str) -> tuple[int | None, int | None, list[str]]:
    """(torch's count of class ``name`` of the source ``text``, built on the meta device, None where
    torch rejects it; the static count, None where the analysis refuses it; the analysis' messages).
    The file is the test's own, run here; the analyser only reads it."""
    import torch

    from lsp_count.core.analyze import analyze_text

    namespace: dict = {}
    try:
        with torch.device("meta"):
            # dont_inherit: the file runs as written, not under this module's `from __future__ import annotations`
            exec(compile(text, path, "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own file
            built = namespace[name]()
        want = sum(p.numel() for p in built.parameters())
    except Exception:  # noqa: BLE001 - torch rejects it: so must the analysis
        want = None
    report = analyze_text(text, path)
    got = report.models[0].tree.total if report.models else None
    return want, got, [p.message for p in report.problems]


def run_source(source: str, name: str) -> types.ModuleType:
    """The module a test's own model source makes, run as Python runs a file (registered in
    sys.modules while it runs: dataclasses look their module up), for torch to build from."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, f"{name}.py", "exec"), module.__dict__)  # noqa: S102 - the test's own source
    finally:
        del sys.modules[name]
    return module
