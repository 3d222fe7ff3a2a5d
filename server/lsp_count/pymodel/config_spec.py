"""The family-table spec of a transformers model that a Python file builds, from the config object
the model holds (``model.config``), for the memory estimate's shape: its layers' widths and heads
(activations as measured, the KV cache), its position limit, its sliding windows.

A model a script builds with transformers (``AutoModelForCausalLM.from_config(config)``,
``from_pretrained("gpt2")``, ``LlamaForCausalLM(LlamaConfig(...))``) is counted statically, from
transformers' code; without a spec its memory fell back on the rule for any Python model (the inputs
and outputs of its linear layers), which misses GPT-2's ``Conv1D`` layers altogether and has no KV
cache. Its config's values (what ``config.to_dict()`` holds, sub-configs included) are read as a
config.json with that content would be, and the spec is kept only where the family table counts
exactly the parameters the static analysis found, besides peft's LoRA adapters (a model peft wraps
is read through its ``base_model.model``; the memory estimate adds the adapters it holds): a model
changed after it was built otherwise (a resized embedding, a head of the code's own, peft's
``modules_to_save`` copies) keeps the rule. The spec carries no dtype
and no quantization: how the script loads the weights is the plan's (``from_pretrained(dtype=...)``),
not the config's. Its keys are placed at the model's name (they are not written in the Python file).
"""

from __future__ import annotations

import json
import math
from typing import Any

from lsp_count.core.engine import count
from lsp_count.core.hf_config import build_spec
from lsp_count.core.memory import adapter_parameters
from lsp_count.core.params import ParamNode
from lsp_count.core.readers.json_reader import read_json
from lsp_count.core.report import relocated_spec
from lsp_count.core.source import Span
from lsp_count.core.spec import ModelSpec, SpecError
from lsp_count.pymodel.interp import in_transformers, is_transformers_config
from lsp_count.pymodel.values import ClassV, ExtV, Inst, is_unknownish

_MAX_DEPTH = 4  # sub-configs of sub-configs (a composite model's thinker's text config)
_MAX_ITEMS = 50_000  # values converted in all: a config is a few hundred (a label table a few thousand)


def transformers_spec(inst: Inst, name: str, root: ParamNode, span: Span | None) -> ModelSpec | None:
    """The spec of the config of ``inst`` (or of the model it wraps) where that is a transformers
    config whose family table counts the parameters of ``root`` (the model's tree) but for peft's
    adapters; None otherwise."""
    inst = _config_holder(inst)
    if inst is None:
        return None
    config = inst.attrs["config"]
    budget = [_MAX_ITEMS]
    data = _config_data(config, _MAX_DEPTH, budget)
    if data is None or budget[0] < 0 or not isinstance(data.get("model_type"), str):
        # (a config cut short, or with a value the analysis does not know, would be read with the
        # family's defaults for what it left out: a sliding window, a position limit)
        return None
    head = _transformers_class(inst)
    if head is not None:
        data["architectures"] = [head]  # the class built, not what the checkpoint's config lists
    data.pop("dtype", None)
    data.pop("torch_dtype", None)
    data.pop("quantization_config", None)
    parsed = read_json(json.dumps(data))
    if parsed.root is None or any(p.severity == "error" for p in parsed.problems):
        return None
    try:
        spec = build_spec(parsed.root, name)
        tree = count(spec)
    except (SpecError, ValueError, KeyError, TypeError, ArithmeticError, RecursionError):
        return None
    if tree.total != root.total - adapter_parameters(root) or spec.dtype is not None or spec.quantization is not None:
        return None
    return relocated_spec(spec, span)


# What a model's config is read through: the model itself, or the model that peft wraps
# (PeftModel.base_model is the LoraModel, whose model is the transformers model).
_WRAPPED = ((), ("base_model", "model"))


def _config_holder(inst: Inst) -> Inst | None:
    for path in _WRAPPED:
        holder: Any = inst
        for attr in path:
            holder = holder.attrs.get(attr) if type(holder) is Inst else None
        if type(holder) is Inst and is_transformers_config(holder.attrs.get("config")):
            return holder
    return None


def _transformers_class(inst: Inst) -> str | None:
    """The first class of transformers' own in the model's classes (a subclass of the code's own
    is counted as the transformers class it extends)."""
    if type(inst.cls) is not ClassV:
        return None
    for c in inst.cls.mro():
        if type(c) is ClassV and c.env is not None and in_transformers(c.env.module.path):
            return c.name
    return None


_MISSING = object()


def _config_data(config: Inst, depth: int, budget: list[int]) -> dict[str, Any] | None:
    """``config.to_dict()`` as far as the values are plain data: its attributes (not the private
    ones), with ``model_type`` from its class; a value that is not plain data (a set) is left out;
    None where a value is not known."""
    data: dict[str, Any] = {}
    for key, value in config.attrs.items():
        if type(key) is not str or key.startswith("_"):
            continue
        if is_unknownish(value):
            return None
        plain = _plain(value, depth, budget)
        if plain is not _MISSING:
            data[key] = plain
    try:
        model_type = config.cls.lookup("model_type")
    except KeyError:
        model_type = None
    if isinstance(model_type, str) and model_type:
        data["model_type"] = model_type
    return data


def _plain(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        return _MISSING
    t = type(value)
    if value is None or t in (str, bool, int):
        return value
    if t is float:
        return value if math.isfinite(value) else _MISSING
    if t is ExtV and value.name.startswith("torch."):
        return value.name.rsplit(".", 1)[1]  # a dtype (`torch.bfloat16`), as to_dict writes it
    if depth <= 0:
        return _MISSING
    if t in (list, tuple):
        items = [_plain(v, depth - 1, budget) for v in value]
        return _MISSING if any(v is _MISSING for v in items) else items
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) not in (str, int):
                return _MISSING  # (an int key is written as a string, as to_dict's JSON has `id2label`)
            plain = _plain(v, depth - 1, budget)
            if plain is not _MISSING:
                out[k] = plain
        return out
    if is_transformers_config(value):
        nested = _config_data(value, depth - 1, budget)
        if nested is None:
            budget[0] = -1  # (not known: the whole config is not read)
            return _MISSING
        return nested
    return _MISSING
