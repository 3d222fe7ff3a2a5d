"""What every training-format reader shares: typed reads with positions, OmegaConf
interpolations, base models, the training plan and the LoRA report."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lsp_count.core.catalog import not_found_problem, resolve_model
from lsp_count.core.hf_config import count_config
from lsp_count.core.layouts import decoder as decoder_layout
from lsp_count.core.layouts import gemma3n as gemma3n_layout
from lsp_count.core.layouts import gemma4 as gemma4_layout
from lsp_count.core.layouts import hybrid as hybrid_layout
from lsp_count.core.layouts import qformer as qformer_layout
from lsp_count.core.layouts import seq2seq as seq2seq_layout
from lsp_count.core.layouts import zamba as zamba_layout
from lsp_count.core.memory import TORCH_OPTIMIZER_STATES, torch_optimizer_kind
from lsp_count.core.report import ModelReport, relocated
from lsp_count.core.source import Problem, SourceNode, Span
from lsp_count.core.spec import ModelSpec
from lsp_count.formats.lora import LoraTargets, apply_lora, layer_groups, vlm_model_type

# ${a.b.c}, ${.sibling}: OmegaConf node interpolations we can resolve inside the document.
_INTERP = re.compile(r"\$\{\s*([A-Za-z0-9_.\-\[\]]+)\s*\}\Z")
MAX_INTERP_DEPTH = 16

# HF TrainingArguments ``optim`` / torchtune ``_component_`` -> the memory model's optimizer.
OPTIMIZERS = {
    "adamw_torch": "adamw", "adamw_torch_fused": "adamw", "adamw_hf": "adamw", "adamw_apex_fused": "adamw",
    "adamw_torch_xla": "adamw", "adamw_torch_npu_fused": "adamw", "adamw_anyprecision": "adamw",
    "paged_adamw_32bit": "adamw", "adamw": "adamw", "adam": "adamw", "adamw_32bit": "adamw",
    "adamw_bnb_8bit": "adamw-8bit", "adamw_8bit": "adamw-8bit", "paged_adamw_8bit": "adamw-8bit",
    "adam8bit": "adamw-8bit", "bnb_adamw_8bit": "adamw-8bit",
    "bitsandbytes.optim.pagedadamw": "adamw",
    "bitsandbytes.optim.pagedadamw8bit": "adamw-8bit", "bitsandbytes.optim.adamw8bit": "adamw-8bit",
    "torchao.optim.adamw8bit": "adamw-8bit", "torchao.prototype.low_bit_optim.adamw8bit": "adamw-8bit",
}
# transformers' `optim` names of torch's optimizers whose `optim_args` it passes on (trainer_optimizer.py),
# which are torch's own names: those and torchtune's `torch.optim.*` components go by the states they keep.
_HF_TORCH_OPTIMIZERS = frozenset({"sgd", "adagrad", "rmsprop"})
PRECISIONS = {"bf16": "bfloat16", "bfloat16": "bfloat16", "fp16": "float16", "float16": "float16", "half": "float16",
              "fp32": "float32", "float32": "float32", "32": "float32", "16": "float16",
              "bf16-true": "bfloat16", "bf16-mixed": "bfloat16", "16-true": "float16", "16-mixed": "float16",
              "32-true": "float32"}


@dataclass
class Reader:
    """Reads typed values from a document's root, collecting problems (one per bad key)."""

    root: SourceNode
    problems: list[Problem] = field(default_factory=list)

    def node(self, path: str) -> SourceNode | None:
        n: SourceNode | None = self.root
        parts = path.split(".")
        for part in parts:
            n = n.get(part) if n is not None else None
        return self._resolve(n, tuple(parts[:-1]), 0)

    def _lookup(self, parts: tuple[str, ...]) -> SourceNode | None:
        n: SourceNode | None = self.root
        for part in parts:
            n = n.get(part) if n is not None else None
        return n

    def _resolve(self, n: SourceNode | None, parent: tuple[str, ...], depth: int) -> SourceNode | None:
        if n is None or not isinstance(n.value, str) or depth > MAX_INTERP_DEPTH:
            return n
        m = _INTERP.match(n.value.strip())
        if not m:
            return n  # resolver interpolations (${oc.env:...}) and string templates are left as written
        ref = m.group(1)
        if ref.startswith("."):
            # ${.x} is a sibling, ${..x} one level up (OmegaConf relative interpolation).
            dots = len(ref) - len(ref.lstrip("."))
            base = parent[: len(parent) - (dots - 1)] if dots - 1 <= len(parent) else None
            if base is None:
                return n
            parts = base + tuple(ref.lstrip(".").split("."))
        else:
            parts = tuple(ref.split("."))
        target = self._lookup(parts)
        if target is None:
            return n
        resolved = self._resolve(target, parts[:-1], depth + 1)
        # Keep where the user wrote the reference: that is the line to point at.
        return SourceNode(resolved.value, n.span, n.key_span, raw=n.raw) if resolved is not None else n

    def span(self, path: str) -> Span | None:
        n = self.node(path)
        return (n.key_span or n.span) if n is not None else None

    def value(self, path: str) -> object:
        n = self.node(path)
        return None if n is None else n.value

    def int(self, path: str, minimum: int = 1) -> int | None:
        n = self.node(path)
        if n is None or n.value is None:
            return None
        v = n.value
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            self.problems.append(Problem("error", "LC102", f"{path} must be a whole number ≥ {minimum}, got {n.raw or v!r}", n.span))
            return None
        return v

    def bool(self, path: str) -> bool | None:
        n = self.node(path)
        if n is None or n.value is None:
            return None
        if isinstance(n.value, bool):
            return n.value
        if isinstance(n.value, str) and n.value.lower() in ("true", "false"):
            return n.value.lower() == "true"
        self.problems.append(Problem("error", "LC102", f"{path} must be true or false, got {n.raw or n.value!r}", n.span))
        return None

    def str(self, path: str) -> str | None:
        n = self.node(path)
        if n is None or n.value is None:
            return None
        if isinstance(n.value, str):
            return n.value
        return str(n.value)

    def options(self, path: str) -> dict[str, object] | str | None:
        """A mapping's scalar entries (torchtune's optimizer kwargs) or a text (``optim_args``)."""
        n = self.node(path)
        if n is None or n.value is None:
            return None
        if isinstance(n.value, dict):
            return {k: v.value for k, v in n.value.items() if not isinstance(v.value, (dict, tuple))}
        return str(n.value)

    def strs(self, path: str) -> tuple[str, ...] | None:
        n = self.node(path)
        if n is None or n.value is None:
            return None
        if isinstance(n.value, tuple):
            return tuple(str(c.value) for c in n.value if c.value is not None)
        if isinstance(n.value, str):
            return tuple(p.strip() for p in n.value.split(",") if p.strip())
        self.problems.append(Problem("error", "LC102", f"{path} must be a list of names", n.span))
        return None


@dataclass(frozen=True)
class Lora:
    rank: int
    alpha: float | None
    targets: LoraTargets
    targets_span: Span | None
    dora: bool = False


class Plan:
    """The training plan (ModelReport.plan): Settings-compatible values plus where each was written."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.spans: dict[str, Span] = {}

    def set(self, key: str, value: object, span: Span | None = None) -> None:
        if value is None:
            return
        self.values[key] = value
        if span is not None:
            self.spans[key] = span

    def as_mapping(self) -> dict[str, object]:
        out = dict(self.values)
        if self.spans:
            out["spans"] = dict(self.spans)
        return out


def optimizer_name(raw: str | None, options: Mapping[str, Any] | str | None = None) -> str | None:
    """The memory model's optimizer for an `optim` name (transformers') or a `_component_`
    (torchtune's ``torch.optim.SGD``), with the options it is given: transformers' ``optim_args``
    text ("momentum=0.9,nesterov=True") or a mapping of keyword arguments. None: not modelled."""
    if raw is None:
        return None
    key = raw.strip().lower()
    torch_name = key.removeprefix("torch.optim.") if key.startswith("torch.optim.") or key in _HF_TORCH_OPTIMIZERS else None
    if torch_name in TORCH_OPTIMIZER_STATES:
        return torch_optimizer_kind(torch_name, optim_args(options) if isinstance(options, str) else options or {})
    return OPTIMIZERS.get(key)


def optim_args(text: str) -> dict[str, Any]:
    """transformers' ``optim_args`` ("momentum=0.9, centered=true"): its values as the trainer reads
    them, numbers as floats and booleans from "true" / "1" / "yes"."""
    out: dict[str, Any] = {}
    for item in text.replace(" ", "").split(","):
        name, _, value = item.partition("=")
        if not name:
            continue
        try:
            out[name] = float(value)
        except ValueError:
            out[name] = value.lower() in ("true", "1", "yes")
    return out


def zero_stage_from(deepspeed: str | None) -> int | None:
    """ZeRO stage from a DeepSpeed config name as the tools ship them (zero3_bf16.json, ds_z2_config.json)."""
    if not deepspeed:
        return None
    m = re.search(r"(?:zero|_z)[_-]?([0-3])", deepspeed.lower())
    return int(m.group(1)) if m else None


# FSDP's sharding strategies (transformers' FSDPOption) as the ZeRO stage whose memory they hold:
# the parameters sharded too (3), or kept whole between forward and backward (2).
FSDP_STAGES = {"full_shard": 3, "hybrid_shard": 3, "shard_grad_op": 2, "hybrid_shard_zero2": 2, "no_shard": 0}
_OVER_GPUS = " over the data-parallel GPUs (--gpus sets how many)"


def sharding_stage(fsdp: Any, fsdp_config: Any, deepspeed: Any) -> tuple[int | None, str] | None:
    """(ZeRO stage, what says so) of a TrainingArguments' ``fsdp`` (True, "full_shard auto_wrap", a list),
    its ``fsdp_config`` (a dict: FSDP2's ``reshard_after_forward: False`` keeps the parameters whole,
    stage 2) or its ``deepspeed`` (a dict's ``zero_optimization.stage``; a file's by its name, as the
    fine-tuning YAMLs' ``deepspeed:`` (zero_stage_from), else no stage, said); None where none is set.
    Offloading to the CPU is said, not modelled."""
    said: list[str] = []
    stage = None
    if isinstance(deepspeed, dict):
        zero = deepspeed.get("zero_optimization")
        if isinstance(zero, dict) and type(zero.get("stage")) is int and 0 <= zero["stage"] <= 3:
            stage = zero["stage"]
            said.append(f"DeepSpeed ZeRO-{stage}" + _OVER_GPUS * (stage > 0))
            if zero.get("offload_optimizer") or zero.get("offload_param"):
                said.append("its CPU offload not modelled")
    elif isinstance(deepspeed, str):
        stage = zero_stage_from(deepspeed)
        said.append(f"the DeepSpeed config `{deepspeed}`, " + (
            f"ZeRO-{stage} by its name{_OVER_GPUS}" if stage is not None else "which is not read (--zero sets its stage)"))
    if fsdp is True or (isinstance(fsdp, (str, list, tuple)) and fsdp):
        items = [] if fsdp is True else fsdp.split() if isinstance(fsdp, str) else [x for x in fsdp if type(x) is str]
        stages = [FSDP_STAGES[x] for x in items if x in FSDP_STAGES]
        stage = stages[0] if stages else 3  # (`fsdp=True`, "auto_wrap": FSDP2's full sharding)
        config = fsdp_config if isinstance(fsdp_config, dict) else {}
        if config.get("reshard_after_forward", config.get("fsdp_reshard_after_forward")) is False and stage == 3:
            stage = 2
        said.append(f"FSDP ({' '.join(items) if items else 'full sharding'}): "
                    + (f"sharded as ZeRO-{stage}{_OVER_GPUS}" if stage else "nothing sharded"))
        if "offload" in items or config.get("cpu_offload", config.get("fsdp_cpu_offload")) is True:
            said.append("its CPU offload not modelled")
    return (stage, ", ".join(said)) if said else None


def base_model(reader: Reader, key: str, options, problems: list[Problem], name: str | None = None,
               untied: bool = False) -> ModelReport | None:
    """Resolve and count the base model named at ``key`` (offline); ``untied``: with its own output
    head where the config ties it to the embedding (LitGPT's model never ties)."""
    node = reader.node(key)
    model_id = name or (node.value if node is not None and isinstance(node.value, str) else None)
    span = (node.span if node is not None else None)
    if not model_id:
        problems.append(Problem("error", "LC102", f"{key} must name a model (a hub id or a local path)", span))
        return None
    lookup = resolve_model(model_id, options.hf_cache, options.base_dir)
    if lookup.found is None:
        problems.extend(replace(p, span=span) for p in lookup.problems)
        problems.append(not_found_problem(model_id, lookup, span))
        return None
    report, count_problems = count_config(lookup.found.root, model_id)
    root = lookup.found.root
    if untied and report is not None and report.spec is not None and report.spec.values.get("tie_embeddings") \
            and isinstance(root.value, dict):
        untie = SourceNode({**root.value, "tie_word_embeddings": SourceNode(False, root.span)}, root.span)
        report, count_problems = count_config(untie, model_id)
    if report is None:
        problems.extend(
            Problem(p.severity, p.code, f"{model_id} ({lookup.found.source}): {p.message}", span) for p in count_problems)
        return None
    problems.append(Problem("info", "LC106", f"{model_id}: config from the {lookup.found.source} ({lookup.found.path})", span))
    problems.extend(Problem(p.severity, p.code, f"{model_id}: {p.message}", span) for p in count_problems)
    return relocated(report, span)


def lora_layer_indices(spec: ModelSpec | None) -> dict[str, tuple[int, ...]]:
    """A stack of several layer kinds (dense and MoE, attention and Mamba): each kind's layers' own numbers, for
    apply_lora's layer_indices (NLLB-MoE's sparse and dense layers too); a vision-language model's are its text
    model's (Qwen3.5's Gated DeltaNet and attention layers), or its Q-Former projector's (Granite Speech's layers
    with and without cross-attention)."""
    text = spec.subspecs.get("text") if spec is not None else None
    stack = decoder_layout.layer_indices(spec) or hybrid_layout.layer_indices(spec) \
        or decoder_layout.layer_indices(text) or hybrid_layout.layer_indices(text) \
        or gemma4_layout.layer_indices(spec) or gemma4_layout.layer_indices(text) or zamba_layout.layer_indices(spec) \
        or gemma3n_layout.layer_indices(spec) or seq2seq_layout.layer_indices(spec)
    # (beside the text model's kinds: the Q-Former's node names are its own)
    return {**stack, **qformer_layout.layer_indices(spec)}


def finish(base: ModelReport, lora: Lora | None, plan: Plan, problems: list[Problem], span: Span | None,
           method_note: str = "") -> ModelReport:
    """The model report: base frozen + adapters when training LoRA, the plan attached."""
    tree = base.tree
    method = base.method + (f"; {method_note}" if method_note else "")
    if lora is not None:
        model_type = base.spec.family.model_type if base.spec is not None else None
        adapted = apply_lora(tree, lora.rank, lora.targets, lora.dora, model_type, layer_groups(base.spec),
                             lora_layer_indices(base.spec), vlm_model_type(base.spec))
        for err in adapted.errors:
            problems.append(Problem("error", "LC102", err, lora.targets_span))
        for note in adapted.notes:
            problems.append(Problem("warning", "LC106", note, lora.targets_span))
        if not adapted.errors:
            tree = adapted.tree
            plan.set("lora_targets", list(adapted.modules) if not lora.targets.all_linear else "all-linear")
            if lora.targets_span is not None:
                plan.spans["lora_targets"] = lora.targets_span
            method += f"; LoRA adapters exact (peft: r·(in+out) per adapted matrix, r={lora.rank})"
    return ModelReport(name=base.name, tree=tree, spec=base.spec, span=span or base.span, method=method,
                       plan=plan.as_mapping())
