"""``from_pretrained("org/name")`` in a Python model file, resolved offline.

The hub id is looked up as the CLI does (``lsp_count.core.catalog``: the bundled
catalog, then the local Hugging Face cache, then a local path; never the network)
and counted by the family table. That count is of the class the config names in
``architectures[0]``; it is the count of the class the code builds only when the
two agree:

* ``LlamaForCausalLM.from_pretrained`` / ``AutoModelForCausalLM.from_pretrained``
  on a ``LlamaForCausalLM`` config (or ``GPT2LMHeadModel``): the same class, exact;
* ``AutoModel.from_pretrained`` (the base model, no task head) on a decoder whose
  tree is embeddings + layers + final norm + ``lm_head``: exact without the head;
* anything else (an encoder's base model adds a pooler the table does not count, a
  task head the config does not name): the catalog total is shown for the id, and
  a class that builds the model stays unresolved with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsp_count.core.params import ParamNode

# Loaders that build no nn.Module (their result holds no parameters).
NOT_MODULES = ("Tokenizer", "TokenizerFast", "Processor", "FeatureExtractor", "ImageProcessor", "GenerationConfig")
_DECODER_PARTS = {"embeddings", "layers", "final_norm", "lm_head"}


@dataclass(frozen=True)
class HubModel:
    """What ``<loader>.from_pretrained(hub_id)`` gives, as far as the offline catalog knows."""

    hub_id: str
    loader: str  # the class named before .from_pretrained ("AutoModel", "LlamaForCausalLM", "AutoConfig")
    catalog_total: int | None  # count of architectures[0]; None when not found or not countable
    architecture: str  # architectures[0] of the config, "" when absent
    source: str  # "bundled catalog (path)", or "" when not found
    config: dict[str, Any] | None  # the config.json mapping (for AutoConfig and `.config.hidden_size`)
    root: ParamNode | None  # the tree of what the loader builds, when that is exact
    why: str  # why the loader's model is not counted exactly ("" when it is)

    @property
    def is_config(self) -> bool:
        return self.loader.endswith("Config") and not self.loader.endswith("GenerationConfig")

    @property
    def total(self) -> int | None:
        """The exact count of what the loader builds, or None."""
        return self.root.total if self.root is not None else None

    def message(self) -> str:
        """One line for a hover or hint: what was counted, from where (or why nothing was)."""
        if self.catalog_total is None:
            return self.why
        arch = self.architecture or "the config's model"
        if self.is_config:
            return f"config of {arch} ({self.catalog_total:,} parameters), from the {self.source}"
        if self.root is not None:
            if self.root.total == self.catalog_total:
                return f"{self.loader} builds {arch}: {self.root.total:,} parameters, exact; config from the {self.source}"
            head = self.catalog_total - self.root.total
            return (f"{self.loader} builds the base model: {arch}'s {self.catalog_total:,} parameters without its "
                    f"lm_head ({head:,}) = {self.root.total:,}, exact; config from the {self.source}")
        return f"{self.why}; config from the {self.source}"


def builds_module(loader: str) -> bool:
    return not loader.endswith(NOT_MODULES) and not (loader.endswith("Config") and not loader.endswith("GenerationConfig"))


def resolve(loader: str, hub_id: str, hf_cache: str | None, base_dir: str | None) -> HubModel:
    from lsp_count.core.catalog import not_found_problem, resolve_model
    from lsp_count.core.hf_config import count_config

    lookup = resolve_model(hub_id, hf_cache, base_dir)
    if lookup.found is None:
        why = not_found_problem(hub_id, lookup, None).message
        return HubModel(hub_id, loader, None, "", "", None, None, why)
    found = lookup.found
    raw = found.root.to_python()
    config = raw if isinstance(raw, dict) else {}
    archs = config.get("architectures")
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else ""
    source = f"{found.source} ({found.path})"
    report, problems = count_config(found.root, hub_id)
    if report is None:
        reasons = "; ".join(p.message for p in problems if p.severity == "error") or "its config cannot be counted"
        return HubModel(hub_id, loader, None, arch, source, config, None,
                        f"\"{hub_id}\" was found in the {source} but not counted: {reasons}")
    tree = report.tree.root
    total = tree.total
    root: ParamNode | None = None
    why = ""
    task = loader[len("AutoModel"):] if loader.startswith("AutoModel") else ""
    if loader == arch or (task.startswith("For") and arch.endswith(task)) or (
            task == "ForCausalLM" and arch.endswith("LMHeadModel")) or (
            loader == "AutoModel" and arch.endswith("Model") and "For" not in arch):
        root = tree
    elif loader == "AutoModel" or (arch and "For" in arch and loader == arch.split("For")[0] + "Model"):
        names = {c.name for c in tree.children}
        if names <= _DECODER_PARTS and "lm_head" in names:
            root = ParamNode(tree.name, tree.tensors, tuple(c for c in tree.children if c.name != "lm_head"))
        else:
            why = (f"`{loader}` builds the base model of \"{hub_id}\", and the catalog counts {arch or 'its model'} "
                   f"({total:,} parameters), whose head and pooler differ from the base model's")
    elif builds_module(loader):
        why = (f"`{loader}.from_pretrained(\"{hub_id}\")`: the catalog counts {arch or 'the config'} "
               f"({total:,} parameters), not `{loader}`")
    return HubModel(hub_id, loader, total, arch, source, config, root, why)


MAX_EXPANDED = 4096  # modules built for one repeated node; beyond it its tensors are stacked


def to_inst(root: ParamNode, origin: Any, inst_cls: Any, param_cls: Any) -> Any:
    """The counted tree as interpreter values: one module per node, a ModuleList for a repeated
    node (so the report shows ``layers 0-31 ×32`` as for a model written out), and exact totals.
    A node repeated more than MAX_EXPANDED times in all (experts × layers) gets its tensors
    stacked along a leading dimension instead: the same count without thousands of objects."""

    def modules_in(n: ParamNode) -> int:
        return 1 + sum(c.repeat * modules_in(c) for c in n.children)

    def build(n: ParamNode) -> Any:
        inst = inst_cls(n.name, "layer", True, origin)
        for t in n.tensors:
            inst.attrs[t.name] = param_cls(t.shape, t.kind, not n.frozen, origin)
        for c in n.children:
            if c.repeat == 1:
                inst.attrs[c.name] = build(c)
            elif c.repeat * modules_in(c) <= MAX_EXPANDED:
                lst = inst_cls("ModuleList", "list", True, origin)
                for i in range(c.repeat):
                    lst.attrs[str(i)] = build(c)
                inst.attrs[c.name] = lst
            else:
                inst.attrs[c.name] = stacked(c, c.repeat)
        return inst

    def stacked(n: ParamNode, times: int) -> Any:
        inst = inst_cls(n.name, "layer", True, origin)
        for t in n.tensors:
            inst.attrs[t.name] = param_cls((times,) + tuple(t.shape), t.kind, not n.frozen, origin)
        for c in n.children:
            inst.attrs[c.name] = stacked(c, times * c.repeat)
        return inst

    return build(root) if root.repeat == 1 else stacked(root, root.repeat)
