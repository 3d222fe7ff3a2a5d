"""LoRA adapters as parameters in the tree, counted as peft counts them.

peft wraps each targeted ``nn.Linear(in, out)`` with ``lora_A`` (``r × in``) and
``lora_B`` (``out × r``), no biases: ``r·(in + out)`` trainable parameters per
adapted matrix (DoRA adds a magnitude vector of ``out``). The base model's
parameters stay and are frozen, so ``total`` = base + adapters (what
``sum(p.numel() for p in peft_model.parameters())`` gives) and ``trainable`` =
adapters.

Targets as the tools spell them:

* a list of module names: peft matches a module whose dotted name equals the
  target or ends with ``.target``;
* a string: peft ``re.fullmatch``es it against the full module name
  (``model.layers.0.self_attn.q_proj``);
* "all linear": every linear layer but the output head (peft ``all-linear``,
  axolotl ``lora_target_linear``, LLaMA-Factory ``lora_target: all``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lsp_count.core.params import ParamNode, ParamTree, Tensor

# The output layer "all linear" leaves out (peft: the model's output embeddings).
HEAD_MODULES = frozenset({"lm_head", "score", "embed_out", "output_layer"})
# Tree node names -> the attribute names transformers' llama-shaped classes use, for full module paths.
_HF_SEGMENTS = {"attention": "self_attn", "mlp": "mlp", "moe": "mlp", "norms": "", "final_norm": "model",
                "embeddings": "model"}
ADAPTER_NODE = "adapters"
MAX_REGEX_LENGTH = 2000


@dataclass(frozen=True)
class LoraTargets:
    """What to adapt: ``names`` (module names), ``pattern`` (a regex), or neither for all linear layers."""

    names: tuple[str, ...] | None = None
    pattern: str | None = None

    @property
    def all_linear(self) -> bool:
        return self.names is None and self.pattern is None


@dataclass(frozen=True)
class AdaptedModel:
    tree: ParamTree
    adapter_params: int
    modules: tuple[str, ...]  # module names adapted, in model order
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()


def _hf_paths(tree_path: str, module: str, occurrences: int) -> list[str]:
    """Full module names transformers gives this tensor's module (one per layer)."""
    parts = tree_path.split(".")[1:]  # drop the class name
    out_parts: list[str] = []
    layered = False
    for p in parts:
        if p in ("layers", "dense_layers", "moe_layers"):
            out_parts += ["model", "layers", "{i}"]
            layered = True
        elif p in _HF_SEGMENTS:
            if _HF_SEGMENTS[p] and _HF_SEGMENTS[p] not in out_parts:
                out_parts.append(_HF_SEGMENTS[p])
        else:
            out_parts.append(p)
    if module in HEAD_MODULES:
        out_parts = []
    template = ".".join(out_parts + [module])
    if layered:
        return [template.replace("{i}", str(i)) for i in range(occurrences)]
    return [template] * occurrences


def _is_adaptable(t: Tensor) -> bool:
    # Fused MoE experts (kind "expert") are parameters, not nn.Linear modules: LoRA target names do not reach them.
    return t.kind == "linear" and len(t.shape) == 2


def apply_lora(tree: ParamTree, rank: int, targets: LoraTargets, dora: bool = False) -> AdaptedModel:
    """The tree with its base frozen and an ``adapters`` node holding every lora_A / lora_B."""
    regex = None
    errors: list[str] = []
    notes: list[str] = []
    if targets.pattern is not None:
        if len(targets.pattern) > MAX_REGEX_LENGTH:
            return AdaptedModel(tree, 0, (), errors=("the target regex is too long",))
        try:
            regex = re.compile(targets.pattern)
        except re.error as exc:
            return AdaptedModel(tree, 0, (), errors=(f"the target regex does not compile: {exc}",))
    wanted = set(targets.names or ())
    matched_names: set[str] = set()
    adapters: list[ParamNode] = []
    modules: list[str] = []
    partial: set[str] = set()
    for path, t, mult, _frozen in tree.root.iter_tensors():
        if not _is_adaptable(t):
            continue
        if targets.all_linear:
            hits = 0 if t.module in HEAD_MODULES else mult
        elif regex is not None:
            hits = sum(1 for full in _hf_paths(path, t.module, mult) if regex.fullmatch(full))
            if 0 < hits < mult:
                partial.add(t.module)
        else:
            names = [n for n in wanted if n == t.module or
                     (("." in n) and _hf_paths(path, t.module, 1)[0].endswith("." + n))]
            matched_names.update(names)
            hits = mult if names else 0
        if not hits:
            continue
        out_f, in_f = t.shape
        tensors = (Tensor(f"{t.module}.lora_A.weight", (rank, in_f), "lora", t.module),
                   Tensor(f"{t.module}.lora_B.weight", (out_f, rank), "lora", t.module))
        if dora:
            tensors += (Tensor(f"{t.module}.lora_magnitude_vector", (out_f,), "lora", t.module),)
        label = path.split(".", 1)[1] + "." + t.module if "." in path else t.module
        adapters.append(ParamNode(label, tensors=tensors, repeat=hits, note=f"r={rank}: {in_f}→{rank}→{out_f}"))
        if t.module not in modules:
            modules.append(t.module)
    if targets.names is not None:
        missing = sorted(wanted - matched_names)
        if missing:
            errors.append(f"no linear layer named {', '.join(missing)} in this model "
                          f"(its linear layers: {', '.join(_linear_names(tree))})")
    if partial:
        notes.append(f"the target regex adapts {', '.join(sorted(partial))} in some layers only")
    if not adapters and not errors:
        errors.append("the LoRA targets match no linear layer of this model")
    root = tree.root
    base_children = tuple(replace(c, frozen=True) for c in root.children)
    if root.tensors:
        base_children = (ParamNode("base", tensors=root.tensors, frozen=True),) + base_children
    adapter_node = ParamNode(ADAPTER_NODE, children=tuple(adapters),
                             note=f"LoRA r={rank}" + (" + DoRA magnitude" if dora else ""))
    new_root = replace(root, tensors=(), children=base_children + ((adapter_node,) if adapters else ()))
    n_adapt = adapter_node.total
    return AdaptedModel(ParamTree(new_root, tree.notes + tuple(notes)), n_adapt, tuple(modules), tuple(notes), tuple(errors))


def _linear_names(tree: ParamTree) -> list[str]:
    seen: list[str] = []
    for _p, t, _m, _f in tree.root.iter_tensors():
        if _is_adaptable(t) and t.module not in seen:
            seen.append(t.module)
    return seen


def freeze(tree: ParamTree) -> ParamTree:
    """The whole model frozen (a base whose adapters are elsewhere)."""
    return ParamTree(replace(tree.root, frozen=True), tree.notes)
