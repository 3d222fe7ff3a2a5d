"""LLaMA-Factory's freeze tuning (``finetuning_type: freeze``): some layers trained in full, the rest frozen.

What LLaMA-Factory's code does (src/llamafactory/model/adapter.py, ``_setup_freeze_tuning``): from the config's
``num_hidden_layers`` it takes the layers to train, the last ``freeze_trainable_layers`` (2 by default), the first
ones where that is negative, or with ``use_llama_pro`` every stride-th one (the last of each of
``freeze_trainable_layers`` equal blocks). A parameter is trained where its name holds ``.{layer}.{module}`` for one
of those layers and one of ``freeze_trainable_modules`` ("all" by default: ``.{layer}.``), or one of
``freeze_extra_modules`` (modules outside the layers: ``embed_tokens``, ``lm_head``); every other parameter is frozen.
Names it does not know are errors there, as here: a trainable module must be one of the layers' own modules (what
follows ``.0.`` or ``.1.`` in a parameter's name), an extra one a module outside the layers.

The rule is on transformers' parameter names, which formats/lora.py's module_namer gives each tensor of the tree,
layer by layer; the parity test compares the counts with the same rule over the names of the model transformers
builds. A stack whose layers differ (some trained) is shown as its runs of equal layers, ``0-29`` and ``30-31``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lsp_count.core.params import ParamNode, ParamTree, Tensor
from lsp_count.core.spec import ModelSpec
from lsp_count.core.memory import LAYER_STACK_NAMES
from lsp_count.formats.common import lora_layer_indices
from lsp_count.formats.lora import layer_groups, module_namer, vlm_model_type

# The tree nodes that stack layers (a repeated node, or one kind of a mixed stack: DeepSeek's dense and MoE layers).
_STACKS = frozenset({"layers", "dense_layers", "moe_layers"})
_LAYER_NUMBER = re.compile(r"\.\d+\.")


@dataclass(frozen=True)
class FreezeTuning:
    """LLaMA-Factory's FreezeArguments."""

    trainable_layers: int = 2
    modules: tuple[str, ...] = ("all",)
    extra: tuple[str, ...] = ()
    llama_pro: bool = False


@dataclass(frozen=True)
class Frozen:
    tree: ParamTree | None  # None where an error says why
    trained: tuple[str, ...] = ()  # what LLaMA-Factory logs: the name parts a trained parameter holds
    error: str = ""
    which: str = ""  # the error's setting: "freeze_trainable_layers", "freeze_trainable_modules", ...


def freeze_tuning(tree: ParamTree, spec: ModelSpec | None, setting: FreezeTuning) -> Frozen:
    """The tree with LLaMA-Factory's freeze tuning: the layers and modules it trains trainable, the rest frozen."""
    if spec is None or spec.family.layout != "decoder":
        what = spec.family.layout if spec is not None else "an unknown layout"
        return Frozen(None, error=f"freeze tuning is not modelled for {what} models (only for decoder-only language "
                                  f"models)", which="finetuning_type")
    other = next((n.name for _p, n, _m in tree.root.walk() if n.name in LAYER_STACK_NAMES - _STACKS), None)
    if other is not None:  # (a hybrid's kinds of layers interleave: not modelled)
        return Frozen(None, error=f"freeze tuning is not modelled for a stack of {other}", which="finetuning_type")
    layers = spec.values.get("num_layers")
    if not isinstance(layers, int) or layers < 1:
        return Frozen(None, error="the model's config gives no layer count, which freeze tuning needs",
                      which="finetuning_type")
    n = setting.trainable_layers
    if setting.llama_pro:
        if n < 1 or layers % n:
            return Frozen(None, error=f"use_llama_pro needs freeze_trainable_layers to divide the {layers} layers, "
                                      f"got {n}", which="freeze_trainable_layers")
        stride = layers // n
        ids = range(stride - 1, layers + stride - 1, stride)
    elif n > 0:
        ids = range(max(0, layers - n), layers)
    else:
        ids = range(min(-n, layers))
    namer = module_namer(tree, spec.family.model_type, layer_groups(spec), lora_layer_indices(spec),
                         vlm_model_type(spec))
    names = _parameter_names(tree.root, namer)
    every = [name for per_layer in names.values() for name in per_layer]
    hidden, outside = set(), set()
    for name in every:
        for marker in (".0.", ".1."):  # (as LLaMA-Factory: "MoD starts from layer 1")
            if marker in name:
                hidden.add(name.split(marker)[-1].split(".")[0])
                break
        if _LAYER_NUMBER.search(name) is None:
            outside.add(name.split(".")[-2] if "." in name else name)
    trained: list[str] = []
    for module in setting.modules:
        if module != "all" and module not in hidden:
            return Frozen(None, error=f"freeze_trainable_modules: {module} is not a module of the layers "
                                      f"(choose from {', '.join(sorted(hidden))}, or all)",
                          which="freeze_trainable_modules")
        trained += [f".{i}.{module if module != 'all' else ''}" for i in ids]
    for module in setting.extra:
        if module not in outside:
            return Frozen(None, error=f"freeze_extra_modules: {module} is not a module outside the layers "
                                      f"(choose from {', '.join(sorted(outside))})", which="freeze_extra_modules")
        trained.append(module)
    flags = {key: tuple(any(t in name for t in trained) for name in per_layer) for key, per_layer in names.items()}
    return Frozen(replace(tree, root=_marked(tree.root, tree.root.name, flags, None)), tuple(trained))


def _parameter_names(root: ParamNode, namer) -> dict[tuple[str, str], list[str]]:
    """Each tensor's transformers parameter names, one per layer of the stack it is in (one outside the stacks),
    keyed by (tree path, tensor name)."""
    names: dict[tuple[str, str], list[str]] = {}

    def walk(node: ParamNode, path: str, layers: int) -> None:
        if node.name in _STACKS and node.repeat > 1:
            layers = node.repeat  # (within a layer, a repeated node, fused experts, is one module each layer)
        for t in node.tensors:
            modules = namer(path, t.module, layers, t.name)
            if "." in t.name:  # "q_proj.weight": the weight of the module q_proj
                names[(path, t.name)] = [f"{m}.{t.name.rsplit('.', 1)[-1]}" for m in modules]
            else:  # "down_proj" of fused experts, "sinks": a parameter the node's own module holds
                holders = [m[:-len(t.module)].rstrip(".") if m.endswith(t.module) else m for m in modules]
                names[(path, t.name)] = [f"{h}.{t.name}" if h else t.name for h in holders]
        for c in node.children:
            walk(c, f"{path}.{c.name}", layers)

    walk(root, root.name, 1)
    return names


def _marked(node: ParamNode, path: str, flags: dict[tuple[str, str], tuple[bool, ...]], layer: int | None) -> ParamNode:
    """``node`` with each tensor trainable or frozen as ``flags`` says (for layer ``layer`` of its stack, or its
    only occurrence outside one); a stack whose layers differ split into its runs of equal layers."""
    if node.name in _STACKS and node.repeat > 1 and layer is None:
        signatures = [_signature(node, path, flags, i) for i in range(node.repeat)]
        runs: list[tuple[int, int]] = []
        for i, signature in enumerate(signatures):
            if runs and signatures[runs[-1][0]] == signature:
                runs[-1] = (runs[-1][0], i)
            else:
                runs.append((i, i))
        if len(runs) == 1:
            return _marked_copy(node, path, flags, 0)
        entries = tuple(replace(_marked_copy(node, path, flags, a), name=f"{a}-{b}" if b > a else str(a),
                                repeat=b - a + 1) for a, b in runs)
        return ParamNode(node.name, children=entries, note=node.note, source=node.source, key=node.key)
    return _marked_copy(node, path, flags, layer)


def _marked_copy(node: ParamNode, path: str, flags: dict[tuple[str, str], tuple[bool, ...]],
                 layer: int | None) -> ParamNode:
    trained: list[Tensor] = []
    frozen: list[Tensor] = []
    for t in node.tensors:
        per_layer = flags[(path, t.name)]
        (trained if per_layer[layer or 0] else frozen).append(t)
    children = tuple(_marked(c, f"{path}.{c.name}", flags, layer) for c in node.children)
    if not trained and all(c.frozen for c in children):
        return replace(node, children=children, frozen=True)
    frozen_nodes = tuple(ParamNode(t.name, (t,), frozen=True, note="frozen") for t in frozen)
    # (LLaMA-Factory sets requires_grad on what it trains, a tensor the model keeps frozen too: Laguna's router bias)
    return replace(node, tensors=tuple(trained), children=frozen_nodes + children, frozen=False)


def _signature(node: ParamNode, path: str, flags: dict[tuple[str, str], tuple[bool, ...]], layer: int) -> tuple:
    """Which of a stack's tensors layer ``layer`` trains."""
    out = []
    for t in node.tensors:
        out.append(flags[(path, t.name)][layer])
    for c in node.children:
        out.append(_signature(c, f"{path}.{c.name}", flags, layer))
    return tuple(out)
