"""The ``lsp-count`` command line: count, check and serve.

Exit codes: 0 ok, 1 over budget (a model that does not fit a ``--gpu`` given; ``check``: over the
team's budget), 2 input or usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

from lsp_count import __version__
from lsp_count.core.analyze import DEFAULT_READ_PACKAGES, AnalyzeOptions, SharedTrees, analyze_path
from lsp_count.core.fit import (DEFAULT_UTILIZATION, IMAGENET_TRAIN_IMAGES, ComputeEstimate, FitVerdict,
                                estimate_compute, judge_fit)
from lsp_count.core.hardware import GPUSelection, UnknownGPU, parse_gpu_spec
from lsp_count.core.memory import (
    GiB, MODES, OPTIMIZERS, MemoryReport, Settings, SettingsError, estimate_memory, validate_settings,
)
from lsp_count.core.params import ParamNode, exact_count, short_count
from lsp_count.core.precision import DTYPES, precision_view
from lsp_count.core.report import FileReport, ModelReport

EXIT_OK, EXIT_OVER_BUDGET, EXIT_INPUT = 0, 1, 2

DESCRIPTION = """\
Exact parameter counts and GPU memory estimates for model configs (config.json,
fine-tuning and Hydra YAMLs, Python nn.Modules and training scripts), offline.

examples:
  lsp-count config.json                       table of parameters per component
  lsp-count config.json --json                the same as JSON
  lsp-count a/config.json b/config.json       several files in one call
  lsp-count config.json --gpu RTX-4090 --mode qlora --context 4096
                                              itemized memory and whether it fits
  lsp-count config.json --mode train --gpu 8xH100-80GB --zero 3
                                              per-GPU memory of ZeRO-3 training
  lsp-count config.json --precision           weight bytes in every dtype
  lsp-count model.py --function resnet50      what a model function of a Python file builds
  lsp-count configs/model/net.yaml            a Hydra model config (_target_), in the config that composes it

subcommands:
  lsp-count serve [--stdio]                   start the language server on stdio
  lsp-count check PATH...                     the pre-commit budget gate
  lsp-count gpus                              list the GPUs lsp-count knows

exit codes: 0 ok, 1 a model does not fit a --gpu given (check: over the budget),
2 input or usage error (the message names the file and line:col)
"""


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a one-line message, as argparse does, no traceback
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lsp-count", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="config.json, training YAML or Python model file")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--allow-transformers", action="store_true",
                   help="count unsupported model types by building them with transformers on the meta device "
                        "(in a subprocess; needs transformers and torch installed)")
    p.add_argument("--execute", action="store_true",
                   help="Python model files: count classes static analysis cannot follow by importing the file in a "
                        "subprocess and building them on the meta device (runs the file's code; off by default)")
    p.add_argument("--function", action="append", default=[], metavar="NAME",
                   help="Python model files: also count what the module-level function NAME returns when called "
                        "with no arguments (timm's resnet50, a file's gpt2_small); repeatable")
    p.add_argument("--read-packages", metavar="NAMES",
                   help="Python model files: the installed packages read where a file imports them, comma-separated "
                        f"(default {','.join(DEFAULT_READ_PACKAGES)}; 'none' reads none): their source, never run")
    p.add_argument("--site-packages", action="append", default=[], metavar="DIR",
                   help="Python model files: a site-packages directory to read them from (default: $VIRTUAL_ENV, "
                        "the project's .venv / venv, $CONDA_PREFIX, lsp-count's own environment); repeatable")
    p.add_argument("--script-args", metavar="ARGS",
                   help="Python scripts: the command line they are run with, as one string split as a shell splits it "
                        "(--script-args=\"--n_layer 12 --deepspeed_config ds.json\"): their argparse parse_args() and "
                        "sys.argv read it (default: none, each argument's default)")
    p.add_argument("--version", action="version", version=f"lsp-count {__version__}")
    m = p.add_argument_group("memory and fit (memory is per GPU; GiB = 2^30 bytes)")
    m.add_argument("--mode", choices=MODES, help="inference (default), train (full fine-tune), lora, qlora")
    m.add_argument("--dtype", help="storage dtype of the weights: " + ", ".join(DTYPES) +
                   " (default: the config's torch_dtype / quantization_config, else bfloat16; qlora: nf4-dq)")
    m.add_argument("--kv-dtype", dest="kv_dtype", help="KV cache dtype: bfloat16, float16, float32, float8 (default: the compute dtype)")
    m.add_argument("--context", type=_int("--context"), help="tokens per sequence (default: an image encoder's tokens per image, a text encoder's position table where "
                   "shorter, a dual encoder's text table with its images' tokens beside it, a convolutional backbone's image side in pixels, 224, else 4096)")
    m.add_argument("--batch", type=_int("--batch"), help="sequences per GPU replica (default 1)")
    m.add_argument("--optimizer", choices=OPTIMIZERS, help="adamw (mixed precision, default), adamw-fp32, adamw-8bit, sgd (no momentum: no state), "
                   "sgd-momentum (one fp32 state: SGD momentum, RMSprop, Adagrad)")
    m.add_argument("--pure-precision", dest="pure_precision", action="store_true", default=None,
                   help="train in the weights' dtype throughout: no fp32 master copy, optimizer states and LoRA "
                        "adapters in it too (torchtune, LitGPT's bf16-true); default: mixed precision")
    m.add_argument("--reference-model", dest="reference_model", choices=("bfloat16", "float16", "float32"),
                   help="training also holds a frozen copy of the model in this dtype (TRL's DPO/KTO reference "
                        "model; a script's trainer sets it); default: none")
    m.add_argument("--reference-parameters", dest="reference_parameters", type=_int("--reference-parameters"), metavar="N",
                   help="that frozen model's own parameter count, where it is not a copy of this model (a ref_model or "
                        "distillation teacher of another size; a script's trainer sets it); needs --reference-model")
    m.add_argument("--lora-rank", dest="lora_rank", type=_int("--lora-rank"), help="LoRA rank (default 16)")
    m.add_argument("--lora-targets", dest="lora_targets",
                   help="comma-separated module names (default: every linear layer but the head)")
    m.add_argument("--gradient-checkpointing", dest="gradient_checkpointing", action="store_true", default=None,
                   help="recompute activations in backward (full recomputation)")
    m.add_argument("--no-flash-attention", dest="flash_attention", action="store_false", default=None,
                   help="attention that materializes the s×s score matrices")
    m.add_argument("--zero", type=_int("--zero"), help="ZeRO stage 0-3 (3 = FSDP full sharding)")
    m.add_argument("--tp", type=_int("--tp"), help="tensor-parallel size")
    m.add_argument("--pp", type=_int("--pp"), help="pipeline-parallel size")
    m.add_argument("--gpus", type=_int("--gpus"), help="total GPUs (default: the --gpu count, else tp × pp)")
    m.add_argument("--gpu", action="append", default=[], metavar="[Nx]NAME",
                   help="judge the fit on this GPU, e.g. RTX-4090 or 8xH100-80GB (repeatable)")
    m.add_argument("--precision", action="store_true", help="show the weights in every dtype and the savings")
    m.add_argument("--tokens", type=_int("--tokens"), help="training tokens for the compute estimate (default: Chinchilla 20·N; a "
                   "convolutional backbone's or a ViT-style image encoder's: images, default one ImageNet-1k epoch, "
                   "1,281,167)")
    m.add_argument("--utilization", type=float, default=DEFAULT_UTILIZATION,
                   help=f"model FLOPs utilization for the time estimate (default {DEFAULT_UTILIZATION})")
    return p


def _int(flag: str):
    def parse(text: str) -> int:
        try:
            return int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} expects a whole number, got {text!r}") from None
    return parse


_SETTING_ARGS = ("mode", "dtype", "kv_dtype", "context", "batch", "optimizer", "pure_precision", "reference_model",
                 "reference_parameters", "lora_rank", "lora_targets", "gradient_checkpointing", "flash_attention", "zero",
                 "tp", "pp", "gpus")


def settings_from_args(args: argparse.Namespace, selections: Sequence[GPUSelection] = ()) -> tuple[Settings, bool]:
    """Settings from the flags, and whether any memory flag was given (then the itemized view is shown).

    Without --gpus the GPU count is the first --gpu's count, else tp × pp.
    """
    given = {name: getattr(args, name) for name in _SETTING_ARGS if getattr(args, name, None) is not None}
    asked = bool(given) or bool(args.gpu) or args.precision or args.tokens is not None
    if "gpus" not in given:
        given["gpus"] = selections[0].count if selections else (given.get("tp") or 1) * (given.get("pp") or 1)
    if "lora_targets" in given:
        targets = tuple(t.strip() for t in given["lora_targets"].split(",") if t.strip())
        given["lora_targets"] = None if targets in (("all",), ("all-linear",)) else targets
    settings = Settings(**given)
    validate_settings(settings)
    return settings, asked


def _problem_json(problem) -> dict:
    out = {"severity": problem.severity, "code": problem.code, "message": problem.message, "line": None, "column": None}
    if problem.span is not None:
        out["line"] = problem.span.start.line + 1
        out["column"] = problem.span.start.column + 1
    return out


def components_json(root: ParamNode) -> dict:
    return {c.name: c.total for c in root.children}


def model_json(model: ModelReport) -> dict:
    tree = model.tree
    out: dict = {
        "name": model.name,
        "model_type": model.spec.model_type if model.spec else None,
        "architecture": model.spec.architecture if model.spec else None,
        "method": model.method,
        "params": {
            "total": tree.total,
            "trainable": tree.trainable,
            "active": tree.active,
            "components": components_json(tree.root),
        },
        "notes": list(tree.notes),
    }
    return out


@dataclass(frozen=True)
class MemoryView:
    """What the memory flags asked for one model: the estimate, the verdicts, compute, precision."""

    memory: MemoryReport
    fits: tuple[FitVerdict, ...] = ()
    compute: ComputeEstimate | None = None


def memory_json(report: MemoryReport) -> dict:
    s = report.settings
    return {
        "mode": s.mode, "dtype": report.dtype, "compute_dtype": report.compute_dtype, "kv_dtype": report.kv_dtype,
        "context": s.context, "batch": s.batch, "gpus": s.gpus, "zero": s.zero, "tp": s.tp, "pp": s.pp,
        # how a training step was estimated (what a script's trainer or a YAML's plan chose, or a flag)
        "optimizer": s.optimizer, "pure_precision": s.pure_precision, "reference_model": s.reference_model,
        "reference_parameters": s.reference_parameters,
        "gradient_checkpointing": s.gradient_checkpointing, "lora_rank": s.lora_rank,
        "own_adapters": report.own_adapters,
        "weights_bytes": dict(report.weights_bytes),
        "lines": [{"name": l.name, "bytes": l.bytes, "exact": l.exact, "detail": l.detail} for l in report.lines],
        "total_bytes": report.total_bytes,
        "notes": list(report.notes),
    }


def fit_json(v: FitVerdict) -> dict:
    return {"gpu": v.gpu, "gpus": v.gpus, "fits": v.fits, "required_bytes": v.required_bytes,
            "available_bytes": v.available_bytes, "headroom_bytes": v.headroom_bytes, "max_context": v.max_context,
            "max_batch": v.max_batch, "min_gpus": v.min_gpus, "lowest_dtype": v.lowest_dtype,
            "suggestions": list(v.suggestions)}


def compute_json(c: ComputeEstimate) -> dict:
    return {"params": c.params, "train_tokens": c.train_tokens, "train_flops": c.train_flops,
            "flops_per_param_token": c.flops_per_token_factor, "inference_flops_per_token": c.inference_flops_per_token,
            "chinchilla_tokens": c.chinchilla_tokens, "utilization": c.utilization, "train_seconds": c.train_seconds,
            # (a convolutional backbone's, of image_side pixels a side, or an image transformer's, of image_tokens
            # tokens: train_tokens are images, inference_flops_per_token a forward pass per image)
            "image_side": c.image_side, "image_tokens": c.image_tokens}


def report_json(report: FileReport, views: Mapping[int, MemoryView] | None = None,
                refused: Mapping[int, SettingsError] | None = None) -> dict:
    models = []
    for m in report.models:
        out = model_json(m)
        if refused and id(m) in refused:
            out["memory_error"] = {"flag": refused[id(m)].flag, "message": refused[id(m)].message}
        view = (views or {}).get(id(m))
        if view is not None:
            out["memory"] = memory_json(view.memory)
            out["fits"] = [fit_json(v) for v in view.fits]
            if view.compute is not None:
                out["compute"] = compute_json(view.compute)
        models.append(out)
    return {
        "path": report.path,
        "models": models,
        "problems": [_problem_json(p) for p in report.problems],
    }


def gib(b: int) -> str:
    return f"{b / GiB:,.2f} GiB"


def format_memory_summary(report: MemoryReport) -> str:
    """One line under the parameter table: inference at the defaults."""
    s = report.settings
    parts = " + ".join(f"{l.name} {l.bytes / GiB:,.2f}" for l in report.lines)
    return (f"  memory ({s.mode}, {report.dtype}, context {s.context:,}, batch {s.batch}): "
            f"{gib(report.total_bytes)} = {parts}  (--gpu NAME to check a fit)")


def format_memory(report: MemoryReport) -> str:
    s = report.settings
    head = f"{s.mode}, weights {report.dtype}"
    if s.mode == "inference" and report.line("kv_cache") is not None:  # (an encoder keeps none)
        head += f", KV {report.kv_dtype}"
    head += f", context {s.context:,}, batch {s.batch}"
    if s.mode != "inference":
        head += f", {s.optimizer}" + (", pure precision" if s.pure_precision else "")
        if s.reference_model:
            head += f", reference model {s.reference_model}" + (
                f" ({s.reference_parameters:,} parameters)" if s.reference_parameters is not None else "")
        if s.mode in ("lora", "qlora"):
            head += ", the model's own adapters" if report.own_adapters else f", rank {s.lora_rank}"
        if s.gradient_checkpointing:
            head += ", gradient checkpointing"
    if s.gpus > 1 or s.tp > 1 or s.pp > 1:
        head += f"; {s.gpus} GPUs (DP {s.dp} × TP {s.tp} × PP {s.pp}" + (f", ZeRO-{s.zero}" if s.zero else "") + ")"
    lines = [f"  memory per GPU ({head})"]
    w = max(len(l.name) for l in report.lines)
    for l in report.lines:
        kind = "exact" if l.exact else "estimate"
        lines.append(f"    {l.name:<{w}}  {l.bytes / GiB:>9,.2f} GiB  {kind:<8}  {l.detail}".rstrip())
    lines.append(f"    {'total':<{w}}  {report.total_bytes / GiB:>9,.2f} GiB")
    for note in report.notes:
        lines.append(f"    note: {note}")
    return "\n".join(lines)


def format_fit(v: FitVerdict, label: str) -> str:
    avail = v.available_bytes / GiB
    if v.fits:
        head = f"  fit on {label} ({avail:,.1f} GiB usable per GPU): FITS, headroom {v.headroom_bytes / GiB:,.2f} GiB"
    else:
        head = f"  fit on {label} ({avail:,.1f} GiB usable per GPU): DOES NOT FIT, short by {-v.headroom_bytes / GiB:,.2f} GiB"
    none = "none (even 1 does not fit)"
    lines = [head,
             f"    largest context that fits: {f'{v.max_context:,}' if v.max_context is not None else none}",
             f"    largest batch that fits:   {v.max_batch if v.max_batch is not None else none}",
             f"    least quantization that fits: {v.lowest_dtype or 'none in this mode'}",
             f"    GPUs of this kind needed:  {v.min_gpus if v.min_gpus is not None else 'none found (more GPUs do not shrink what does not shard: activations, logits)'}"]
    for sug in v.suggestions:
        lines.append(f"    to fit: {sug}")
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:,.1f} min"
    if seconds < 86400 * 2:
        return f"{seconds / 3600:,.1f} h"
    return f"{seconds / 86400:,.1f} days"


def format_compute(c: ComputeEstimate, label: str | None) -> str:
    if c.image_side is not None or c.image_tokens is not None:
        image, counted = (f"{c.image_side:,} × {c.image_side:,} image", "its convolutions and pointwise layers") \
            if c.image_side is not None else (f"image of {c.image_tokens:,} tokens",
                                              "its linears, attention and patch embedding")
        epoch = " (one ImageNet-1k epoch; --tokens sets the images)" if c.train_tokens == IMAGENET_TRAIN_IMAGES else ""
        text = (f"  compute: N = {short_count(c.params)}; forward {c.inference_flops_per_token:.3g} FLOPs per {image} "
                f"({counted}); training {c.flops_per_token_factor} × forward = {c.train_flops:.3g} FLOPs for "
                f"{c.train_tokens:,} images{epoch}")
    else:
        text = (f"  compute: N = {short_count(c.params)}; training {c.flops_per_token_factor}·N·tokens = {c.train_flops:.3g} FLOPs "
                f"for {short_count(c.train_tokens)} tokens (Chinchilla 20·N = {short_count(c.chinchilla_tokens)}); "
                f"inference 2·N = {c.inference_flops_per_token:.3g} FLOPs/token")
    if c.train_seconds is not None and label:
        text += f"\n    ≈ {_duration(c.train_seconds)} on {label} at {c.utilization:.0%} utilization (estimate)"
    return text


def format_precision(model: ModelReport, compute_dtype: str) -> str:
    rows = precision_view(model.tree, compute_dtype)
    lines = [f"  precision (weights only; unquantized tensors in {compute_dtype})",
             f"    {'dtype':<12} {'GiB':>9} {'bits/param':>10} {'vs fp32':>8} {'vs bf16':>8}"]
    for r in rows:
        mark = "" if r.exact else "  (estimate: llama.cpp mix)"
        lines.append(f"    {r.dtype:<12} {r.bytes / GiB:>9,.2f} {r.bits_per_param:>10.3f} {-r.saved_vs_float32:>+8.1%} "
                     f"{-r.saved_vs_bfloat16:>+8.1%}{mark}")
    return "\n".join(lines)


def format_location(path: str, problem) -> str:
    return location(path, problem.span)


def location(path: str, span) -> str:
    """``path:line:col`` (1-based), or the path alone."""
    if span is None:
        return path
    return f"{path}:{span.start.line + 1}:{span.start.column + 1}"


def _rows(node: ParamNode, depth: int, max_depth: int, total: int, mult: int = 1) -> list[tuple[str, str, str, str]]:
    rows = []
    for child in node.children:
        count = child.total * mult
        reps = f" ×{child.repeat}" if child.repeat > 1 else ""
        label = "  " * depth + child.name + reps
        share = f"{100 * count / total:5.1f}%" if total else ""
        note = f"  ({child.note})" if child.note else ""
        rows.append((label + note, short_count(count), exact_count(count), share))
        if depth + 1 < max_depth:
            rows.extend(_rows(child, depth + 1, max_depth, total, mult * child.repeat))
    return rows


def format_model_table(model: ModelReport) -> str:
    tree = model.tree
    title = model.name
    if model.spec is not None:
        title += f"  ({model.spec.model_type}, {model.spec.architecture})"
    lines = [title]
    summary = [("total", short_count(tree.total), exact_count(tree.total), "")]
    if tree.active is not None:
        summary.append(("active per token", short_count(tree.active), exact_count(tree.active), ""))
    summary.append(("trainable", short_count(tree.trainable), exact_count(tree.trainable), ""))
    rows = summary + [("", "", "", "")] + _rows(tree.root, 0, 3, tree.total)
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    w2 = max(len(r[2]) for r in rows)
    for r in rows:
        if not any(r):
            lines.append("")
            continue
        lines.append(f"  {r[0]:<{w0}}  {r[1]:>{w1}}  {r[2]:>{w2}}  {r[3]}".rstrip())
    lines.append(f"  method: {model.method}")
    for note in tree.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _views(reports: list[FileReport], settings: Settings, selections: list[GPUSelection],
           args: argparse.Namespace, refused: dict[int, SettingsError]) -> dict[int, MemoryView]:
    """Memory, fits and compute for every model. A model that cannot have the settings (LoRA on a
    model without linear layers, more pipeline stages than layers) gets none: ``refused`` says why."""
    views: dict[int, MemoryView] = {}
    for r in reports:
        if r.has_errors:
            continue
        for m in r.models:
            s = _with_plan(settings, m, args)
            try:
                memory = estimate_memory(m, s)
            except SettingsError as exc:
                refused[id(m)] = exc
                continue
            fits = tuple(judge_fit(m, s, sel) for sel in selections)
            compute = None
            if selections or args.tokens is not None:
                compute = estimate_compute(m, s, selections[0] if selections else None, args.tokens, args.utilization)
            views[id(m)] = MemoryView(memory, fits, compute)
    return views


def _with_plan(settings: Settings, model: ModelReport, args: argparse.Namespace) -> Settings:
    """A training YAML's plan (mode, rank, sequence length, ...) under the flags: a flag given wins."""
    if not model.plan:
        return settings
    from dataclasses import replace as _replace

    from lsp_count.core.memory import settings_from_mapping

    planned = settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"})
    flagged = {name for name in _SETTING_ARGS if getattr(args, name, None) is not None}
    keep = {k: getattr(planned, k) for k in _SETTING_ARGS if k not in flagged and k in model.plan}
    if keep.get("mode", settings.mode) == "inference":
        keep.pop("zero", None)  # (a trainer's FSDP or DeepSpeed stage: its training's)
    return _replace(settings, **keep)


def _package_options(args: argparse.Namespace) -> dict[str, object]:
    """--read-packages / --site-packages / --script-args as AnalyzeOptions fields (those not given keep their
    defaults)."""
    out: dict[str, object] = {}
    if args.read_packages is not None:
        names = tuple(n.strip() for n in args.read_packages.split(",") if n.strip())
        if names == ("none",):
            names = ()
        bad = next((n for n in names if not n.isidentifier()), None)
        if bad is not None:
            raise UsageError(f"--read-packages: `{bad}` is not a package name (a top-level package: transformers, timm)")
        out["read_packages"] = names
    if args.site_packages:
        missing = next((d for d in args.site_packages if not os.path.isdir(d)), None)
        if missing is not None:
            raise UsageError(f"--site-packages: no such directory: {missing}")
        out["site_packages"] = tuple(os.path.abspath(d) for d in args.site_packages)
    if args.script_args is not None:
        try:
            out["script_args"] = tuple(shlex.split(args.script_args))
        except ValueError as exc:
            raise UsageError(f"--script-args: {args.script_args!r} does not split as a shell splits it: {exc}") from None
    return out


def run_count(args: argparse.Namespace) -> int:
    selections = [parse_gpu_spec(g) for g in args.gpu]
    settings, asked = settings_from_args(args, selections)
    functions = tuple(args.function)
    if functions:
        others = [p for p in args.paths if not p.lower().endswith(".py")]
        if others:
            raise UsageError(f"--function: counts a function of a Python file; {others[0]} is not one")
        bad = next((f for f in functions if not f.isidentifier()), None)
        if bad is not None:
            raise UsageError(f"--function: `{bad}` is not a Python name")
    options = AnalyzeOptions(allow_transformers=args.allow_transformers, execute=args.execute, functions=functions,
                             **_package_options(args))
    shared = SharedTrees()
    reports = [analyze_path(p, options, shared.memo_for(p)) for p in args.paths]
    status = EXIT_OK
    for r in reports:
        if r.has_errors or not r.models:
            status = EXIT_INPUT
    refused: dict[int, SettingsError] = {}
    views = _views(reports, settings, selections, args, refused)
    if refused:
        status = EXIT_INPUT
    elif status == EXIT_OK and any(not verdict.fits for view in views.values() for verdict in view.fits):
        status = EXIT_OVER_BUDGET  # a --gpu it does not fit: `lsp-count config.json --gpu T4 || ...` can act on it
    try:
        if args.json:
            print(json.dumps({"files": [report_json(r, views, refused) for r in reports]}, indent=2))
            return status
        for i, r in enumerate(reports):
            if i:
                print()
            for problem in r.problems:
                stream = sys.stderr if problem.severity == "error" else sys.stdout
                print(f"{format_location(r.path, problem)}: {problem.severity}: {problem.message} [{problem.code}]", file=stream)
            if r.has_errors:
                continue  # a table from a broken file would show class defaults as if they were the file's
            for m in r.models:
                print(format_model_table(m))
                if id(m) in refused:
                    exc = refused[id(m)]
                    print(f"{location(r.path, m.span)}: error: {exc.flag}: {exc.message} (`{m.name}`)", file=sys.stderr)
                view = views.get(id(m))
                if view is None:
                    continue
                if not asked and not m.plan:
                    print(format_memory_summary(view.memory))
                    continue
                print()
                print(format_memory(view.memory))
                for verdict, sel in zip(view.fits, selections):
                    print(format_fit(verdict, sel.label))
                if view.compute is not None:
                    print(format_compute(view.compute, selections[0].label if selections else None))
                if args.precision:
                    print(format_precision(m, view.memory.compute_dtype))
    except BrokenPipeError:
        pass  # `lsp-count ... | head`: the reader left; the exit status still tells the truth
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # ast.parse warns about what it reads (`1if x else 2`): the analysed code's, not a message of
    # ours, and in the language server it would only fill the editor's log.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    try:
        if argv and argv[0] == "serve":
            from lsp_count.lsp.server import main as serve_main

            return serve_main(argv[1:])
        if argv and argv[0] == "check":
            from lsp_count.check import main as check_main

            return check_main(argv[1:])
        if argv and argv[0] == "gpus":
            from lsp_count.core.hardware import all_gpus, format_gpu_table

            print(format_gpu_table(all_gpus()))
            return EXIT_OK
        args = build_parser().parse_args(argv)
        return run_count(args)
    except UsageError as exc:
        print(f"lsp-count: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SettingsError as exc:
        print(f"lsp-count: error: {exc.flag}: {exc.message}", file=sys.stderr)
        return EXIT_INPUT
    except UnknownGPU as exc:
        print(f"lsp-count: error: --gpu: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except ValueError as exc:  # a bad GPU count ("0xH100") from parse_gpu_spec
        print(f"lsp-count: error: --gpu: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
