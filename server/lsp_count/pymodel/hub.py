"""``from_pretrained("org/name")`` in a Python model file, resolved offline.

The hub id is looked up as the CLI does (``lsp_count.core.catalog``: the bundled
catalog, then the local Hugging Face cache, then a local path; never the network)
and counted by the family table, for the class the call builds:

* a class the family table knows (``LlamaForCausalLM``, ``BertForSequenceClassification``)
  is that class;
* an Auto class builds the family's class for its task (``AutoModel``: the base model,
  ``BertModel`` with its pooler, ``Qwen2Model`` without ``lm_head``;
  ``AutoModelForCausalLM``: the causal LM, ``GPT2LMHeadModel``);
* anything else (a class of another family, a task the family has no class for):
  the catalog's count of ``architectures[0]`` is shown for the id, and a class that
  builds the model stays unresolved with that reason.

Every class in the table is proven against transformers by the parity suite.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lsp_count.core.params import ParamNode

# The head each Auto class builds, as the family table names heads.
AUTO_HEADS = {
    "AutoModel": "base",
    "AutoModelForCausalLM": "causal_lm",
    "AutoModelForMaskedLM": "masked_lm",
    "AutoModelForPreTraining": "pretraining",
    "AutoModelForSequenceClassification": "sequence_classification",
    "AutoModelForTokenClassification": "token_classification",
    "AutoModelForQuestionAnswering": "question_answering",
    "AutoModelForMultipleChoice": "multiple_choice",
    "AutoModelForSeq2SeqLM": "seq2seq_lm",
    "AutoModelForSpeechSeq2Seq": "seq2seq_lm",
    "AutoModelForImageClassification": "image_classification",
    "AutoModelForMaskedImageModeling": "masked_image_modeling",
    "AutoModelForAudioClassification": "audio_classification",
    "AutoModelForImageTextToText": "conditional_generation",
    "AutoModelForVision2Seq": "conditional_generation",
}

# Loaders that build no nn.Module (their result holds no parameters).
NOT_MODULES = ("Tokenizer", "TokenizerFast", "Processor", "FeatureExtractor", "ImageProcessor", "GenerationConfig")

# Keyword arguments of from_pretrained (a model's or a config's) that say where and how to load,
# which transformers takes before the config is made: they change no parameter. Any other keyword
# sets a config attribute (``num_hidden_layers=2``, ``num_labels=5``) or goes to the model's
# __init__, and so may change the count (transformers 4 and 5 together: ``load_in_4bit`` is 4's).
LOADING_KWARGS = frozenset({
    "pretrained_model_name_or_path", "cache_dir", "force_download", "local_files_only", "proxies", "revision",
    "subfolder", "token", "use_auth_token", "resume_download", "code_revision", "_commit_hash", "trust_remote_code",
    "ignore_mismatched_sizes", "use_safetensors", "weights_only", "fusion_config", "disable_mmap", "state_dict",
    "tqdm_class", "output_loading_info", "_from_pipeline", "_from_auto", "dtype", "torch_dtype", "device_map",
    "max_memory", "offload_folder", "offload_buffers", "offload_state_dict", "quantization_config", "load_in_8bit",
    "load_in_4bit", "variant", "adapter_kwargs", "adapter_name", "generation_config", "gguf_file",
    "distributed_config", "device_mesh", "tp_plan", "tp_size", "allow_all_kernels", "use_kernels", "kernel_config",
    "key_mapping", "mirror", "_fast_init", "low_cpu_mem_usage", "from_tf", "from_flax", "attn_implementation",
    "experts_implementation", "use_flash_attention_2",
})


def config_changes(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a from_pretrained call that may change what it builds."""
    return {k: v for k, v in kwargs.items() if k not in LOADING_KWARGS}


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
    built: str = ""  # the class the loader builds, when the family table knows it ("BertModel")

    @property
    def is_config(self) -> bool:
        return loads_config(self.loader)

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
            if self.built in ("", arch):
                return f"{self.loader} builds {arch}: {self.root.total:,} parameters, exact; config from the {self.source}"
            return (f"{self.loader} builds {self.built}: {self.root.total:,} parameters, exact "
                    f"({arch}, which the config names, has {self.catalog_total:,}); config from the {self.source}")
        return f"{self.why}; config from the {self.source}"


def _class_built(loader: str, heads: dict[str, str]) -> tuple[str, str] | None:
    """(class, head) that ``loader.from_pretrained`` builds for a config of this family, if the table has it."""
    if loader in heads:
        return loader, heads[loader]
    head = AUTO_HEADS.get(loader)
    for cls, h in heads.items():
        if h == head:
            return cls, h
    return None


def loads_config(loader: str) -> bool:
    """``AutoConfig``, ``LlamaConfig``: a model's configuration (not a GenerationConfig)."""
    return loader.endswith("Config") and not loader.endswith("GenerationConfig")


def builds_module(loader: str) -> bool:
    return not loader.endswith(NOT_MODULES) and not loads_config(loader)


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
    built_cls = ""
    built = _class_built(loader, report.spec.family.heads)
    if built is not None:
        cls, head = built
        built_cls = cls
        if head == report.spec.head:
            root = tree
        else:
            # The config's family knows the loader's class: count it from the same values.
            from lsp_count.core.engine import count

            root = count(replace(report.spec, head=head, architecture=cls)).root
            root = replace(root, name=tree.name)
    elif loader == "AutoModel" or loader.startswith("AutoModelFor"):
        why = (f"`{loader}.from_pretrained(\"{hub_id}\")`: the {report.spec.family.model_type} family has no class "
               f"for it in the table; the catalog counts {arch or 'its model'} ({total:,} parameters)")
    elif builds_module(loader):
        why = (f"`{loader}.from_pretrained(\"{hub_id}\")`: the catalog counts {arch or 'the config'} "
               f"({total:,} parameters), not `{loader}`")
    return HubModel(hub_id, loader, total, arch, source, config, root, why, built_cls)


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
