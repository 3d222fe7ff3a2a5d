"""A NeMo 1.x fine-tuning YAML's ``model.peft``: the adapters NeMo's code builds beside the frozen base.

``peft_scheme`` names one scheme, or several joined by commas, each of which NeMo builds ("ptuning,lora").
What each builds, from NeMo's code (nemo/collections/nlp/parts/peft_config.py, its *PEFTConfig classes, and
nemo/collections/nlp/modules/common/megatron/adapters/parallel_adapters.py):

- ``lora`` (``lora_tuning``): a ParallelLinearAdapter per targeted Megatron linear of every selected layer,
  a linear_in (in × adapter_dim) and a linear_out (adapter_dim × out), no bias, no norm:

      attention_qkv    hidden -> kv_channels·(heads + 2·query_groups)
      attention_dense  hidden -> hidden                  (NeMo sizes it hidden × hidden)
      mlp_fc1          hidden -> ffn, 2·ffn for fast-swiglu / fast-geglu / fast-reglu (the fused gate+up)
      mlp_fc2          ffn -> hidden

  ``variant: canonical`` splits two of them: attention_qkv into LoraUnfusedKQVAdapter's q adapter
  (hidden -> hidden) and k and v adapters (hidden -> kv_channels·query_groups each), mlp_fc1 into
  LoraUnfusedHto4HAdapter's gate and up adapters (hidden -> half of fc1's width each).
- ``ia3`` (``ia3_tuning``): InfusedAdapter scalers in every selected layer: the keys' and the values'
  (kv_channels·query_groups each) and the MLP's (ffn, after the activation).
- ``adapter`` (``adapter_tuning``): two ParallelLinearAdapters in every selected layer (adapter_1 after the
  attention, adapter_2 after the MLP), hidden -> adapter_dim -> hidden without bias, each with a LayerNorm of
  hidden (weight and bias) where ``norm_position`` is pre (the default) or post.
- ``ptuning`` (``p_tuning``): one PromptEncoderAdapter at the embedding: an Embedding of virtual_tokens ×
  embedding_dim, a Linear embedding_dim -> bottleneck_dim and a Linear bottleneck_dim -> hidden, both with
  bias (the table it keeps for inference is a buffer, no parameter).

NeMo is not installable here. The parity tests check LoRA's adapters (fused and canonical) and IA3's
against peft on transformers classes with the same layers; the adapter and p-tuning modules rest on
NeMo's code alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from lsp_count.core.params import ParamNode, Tensor
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem
from lsp_count.formats.lora import attach_adapters, fuse_linears

LORA_MODULES = ("attention_qkv", "attention_dense", "mlp_fc1", "mlp_fc2")
LORA_GROUPS = {"attention": LORA_MODULES[:2], "mlp": LORA_MODULES[2:], "all": LORA_MODULES}
LORA_VARIANTS = ("nemo", "canonical")
FAST_GLU = ("fast-geglu", "fast-swiglu", "fast-reglu")
# The same layers in the tree of the transformers family the NeMo model is counted as (for the memory plan's
# targets). A llama-mapped model under PEFT is shown with Megatron's fused layers (linear_qkv, linear_proj,
# linear_fc1, linear_fc2), so that r·(in+out) over them is NeMo's fused adapter count.
MEGATRON_FUSED = {"linear_qkv": ("q_proj", "k_proj", "v_proj"), "linear_proj": ("o_proj",),
                  "linear_fc1": ("gate_proj", "up_proj"), "linear_fc2": ("down_proj",)}
TARGET_MODULES = {
    "llama": {"attention_qkv": ("linear_qkv",), "attention_dense": ("linear_proj",),
              "mlp_fc1": ("linear_fc1",), "mlp_fc2": ("linear_fc2",)},
    "gpt2": {"attention_qkv": ("c_attn",), "attention_dense": ("c_proj",), "mlp_fc1": ("c_fc",), "mlp_fc2": ("c_proj",)},
    "gpt_neox": {"attention_qkv": ("query_key_value",), "attention_dense": ("dense",),
                 "mlp_fc1": ("dense_h_to_4h",), "mlp_fc2": ("dense_4h_to_h",)},
}
PEFT = "model.peft."


@dataclass(frozen=True)
class NemoShape:
    """The Megatron GPT's sizes the adapters are built from (model.*, with NeMo's defaults)."""

    layers: int
    hidden: int
    heads: int
    ffn: int
    groups: int
    kv_channels: int
    activation: str

    @property
    def kv_width(self) -> int:
        return self.kv_channels * self.groups


@dataclass(frozen=True)
class LoraPlan:
    """What the memory plan takes from a LoRA scheme: its rank, alpha and targets."""

    dim: int
    alpha: object
    targets: tuple[str, ...]


def nemo_shape(r: Any) -> NemoShape | None:
    m = "model."
    layers, hidden, heads = r.int(m + "num_layers"), r.int(m + "hidden_size"), r.int(m + "num_attention_heads")
    if layers is None or hidden is None or heads is None:
        return None
    return NemoShape(layers, hidden, heads, r.int(m + "ffn_hidden_size") or 4 * hidden,
                     r.int(m + "num_query_groups") or heads, r.int(m + "kv_channels") or hidden // heads,
                     (r.str(m + "activation") or "gelu").lower())


def nemo_peft(r: Any, report: ModelReport, problems: list[Problem]) -> ModelReport:
    """The NeMo model with its ``model.peft`` adapters, or as it was (full fine-tuning) where there are none,
    a scheme is not modelled (a warning), or the section is wrong (an error)."""
    scheme_node = r.node(PEFT + "peft_scheme")
    written = (r.str(PEFT + "peft_scheme") or "").strip().lower()
    if scheme_node is None or written in ("", "none", "null"):
        return report
    span = r.span(PEFT + "peft_scheme")
    names = [s.strip() for s in written.split(",")]
    if not isinstance(scheme_node.value, str) or not all(names):  # NeMo splits the text at commas
        problems.append(Problem("error", "LC102", f"model.peft.peft_scheme must name a scheme ({', '.join(_SCHEMES)}), "
                                f"or several joined by commas, got {_written(scheme_node)}", scheme_node.span))
        return report
    schemes = list(dict.fromkeys(names))
    unknown = [s for s in schemes if s not in _SCHEMES]
    if unknown:
        problems.append(Problem("warning", "LC106", f"peft_scheme: {', '.join(unknown)} is not modelled (modelled: "
                                f"{', '.join(_SCHEMES)}); counting the base model as if fully fine-tuned", span))
        return report
    shape = nemo_shape(r)
    assert shape is not None  # nemo_model counted the base from the same keys
    # Only adapters that are all LoRA's are the memory plan's LoRA (its rank scales them); any other mix is the
    # model's own trainable tensors beside its frozen base.
    kind = "lora" if schemes == ["lora"] else "linear"
    adapters: list[ParamNode] = []
    lora_plan: LoraPlan | None = None
    for scheme in schemes:
        built = _SCHEMES[scheme](r, shape, problems, kind)
        if built is None:
            return report
        nodes, plan = built
        adapters.extend(nodes)
        lora_plan = plan or lora_plan
    base_tree = report.tree
    if report.spec is not None and report.spec.family.model_type == "llama":
        base_tree = fuse_linears(base_tree, MEGATRON_FUSED)
    what = " + ".join(schemes)
    tree = attach_adapters(base_tree, adapters, f"NeMo PEFT: {what}")
    problems.append(Problem("info", "LC106", f"NeMo PEFT ({what}) counted as NeMo's code builds its adapters "
                            f"({'; '.join(_BUILDS[s] for s in schemes)}); NeMo is not installed to check against", span))
    plan: dict[str, object] = {"mode": "lora"}
    spans = {"mode": span}
    family = report.spec.family.model_type if report.spec is not None else ""
    if lora_plan is not None and kind == "lora":
        lt = PEFT + "lora_tuning."
        modules = [m for t in lora_plan.targets for m in TARGET_MODULES.get(family, {}).get(t, ())]
        alpha = lora_plan.alpha
        plan.update({"lora_rank": lora_plan.dim, "lora_targets": list(dict.fromkeys(modules)),
                     "lora_alpha": alpha if isinstance(alpha, (int, float)) and not isinstance(alpha, bool)
                     else lora_plan.dim})
        spans.update({k: s for k, s in (("lora_rank", r.span(lt + "adapter_dim")),
                                        ("lora_targets", r.span(lt + "target_modules"))) if s is not None})
    m = "model."
    context = r.int(m + "encoder_seq_length", minimum=1) if r.node(m + "encoder_seq_length") is not None else None
    batch = r.int(m + "micro_batch_size") if r.node(m + "micro_batch_size") is not None else None
    if context:
        plan["context"], spans["context"] = context, r.span(m + "encoder_seq_length")
    if batch:
        plan["batch"], spans["batch"] = batch, r.span(m + "micro_batch_size")
    plan["spans"] = spans
    method = report.method + f"; NeMo PEFT adapters ({what}) as NeMo's code builds them"
    return replace(report, tree=tree, method=method, plan=plan)


Built = tuple[list[ParamNode], "LoraPlan | None"]


def _lora(r: Any, shape: NemoShape, problems: list[Problem], kind: str) -> Built | None:
    lt = PEFT + "lora_tuning."
    dim = _required_int(r, lt + "adapter_dim", "lora", "the LoRA rank", problems)
    if dim is None:
        return None
    variant_node = r.node(lt + "variant")
    variant = (r.str(lt + "variant") or "nemo").strip().lower()
    if variant not in LORA_VARIANTS or (variant_node is not None and variant_node.value is not None
                                        and not isinstance(variant_node.value, str)):
        written = _written(variant_node) if variant_node is not None else variant
        problems.append(Problem("error", "LC102", f"lora_tuning.variant: {written} is none of NeMo's (nemo: fused "
                                f"adapters; canonical: q, k, v and gate, up adapted apart)", r.span(lt + "variant")))
        return None
    if _weight_tying(r, lt, problems):
        return None
    targets: list[str] = []
    for name in r.strs(lt + "target_modules") or ("attention_qkv",):  # LoraPEFTConfig's default
        for t in LORA_GROUPS.get(name, (name,)):
            if t not in LORA_MODULES:
                problems.append(Problem("error", "LC102", f"unknown NeMo LoRA target {t} (known: "
                                        f"{', '.join(LORA_MODULES + tuple(LORA_GROUPS))})",
                                        r.span(lt + "target_modules")))
                return None
            if t not in targets:
                targets.append(t)
    layers = _selected_layers(r, lt, shape.layers, problems)
    if layers is None:
        return None
    h, ffn, canonical = shape.hidden, shape.ffn, variant == "canonical"
    fc1_out = 2 * ffn if shape.activation in FAST_GLU else ffn
    # Each target's adapters: (the adapter's name inside the target, in, out).
    parts: dict[str, list[tuple[str, int, int]]] = {
        "attention_qkv": [("q_adapter.", h, h), ("k_adapter.", h, shape.kv_width), ("v_adapter.", h, shape.kv_width)]
        if canonical else [("", h, shape.kv_channels * shape.heads + 2 * shape.kv_width)],
        "attention_dense": [("", h, h)],
        "mlp_fc1": [("gate_adapter.", h, fc1_out // 2), ("up_adapter.", h, fc1_out // 2)] if canonical
        else [("", h, fc1_out)],
        "mlp_fc2": [("", ffn, h)],
    }
    span = r.span(lt + "target_modules")
    m = "model."
    if shape.activation.endswith("glu") and shape.activation not in FAST_GLU and "mlp_fc1" in targets:
        problems.append(Problem("warning", "LC106", f"activation: {shape.activation} fuses fc1 to 2×ffn ({2 * ffn:,}) "
                                f"wide, but NeMo's LoraPEFTConfig sizes the mlp_fc1 adapter 2×ffn only for fast-* "
                                f"activations: it builds it {ffn:,} wide (counted so), which cannot be added to fc1's output",
                                r.span(m + "activation")))
    elif canonical and "mlp_fc1" in targets and fc1_out % 2:
        problems.append(Problem("warning", "LC106", f"variant: canonical splits the mlp_fc1 adapter into gate and up "
                                f"adapters of {fc1_out // 2:,} each, {fc1_out - 1:,} together, one short of fc1's "
                                f"{fc1_out:,} (counted so: NeMo builds them, its forward pass cannot add them)", span))
    projection = shape.kv_channels * shape.heads
    # NeMo sizes the dense adapter, and canonical's query adapter, hidden × hidden whatever the attention's width.
    for t, which in (("attention_dense", "the adapter"), ("attention_qkv", "the query adapter")):
        if projection != h and t in targets and (canonical or t == "attention_dense"):
            problems.append(Problem("warning", "LC106", f"{t}: NeMo sizes {which} hidden × hidden ({h:,}) while the "
                                    f"attention's width is kv_channels × heads ({projection:,}); counted as NeMo "
                                    f"builds it", span))
    adapters = []
    for t in targets:
        tensors = tuple(tensor for prefix, in_f, out_f in parts[t]
                        for tensor in (Tensor(f"{t}.{prefix}linear_in.weight", (dim, in_f), kind, t),
                                       Tensor(f"{t}.{prefix}linear_out.weight", (out_f, dim), kind, t)))
        note = " + ".join(f"{in_f}→{dim}→{out_f}" for _p, in_f, out_f in parts[t])
        adapters.append(ParamNode(f"layers.{t}", tensors=tensors, repeat=layers, note=f"dim={dim}: {note}",
                                  source=span, key="target_modules"))
    return adapters, LoraPlan(dim, r.value(lt + "alpha"), tuple(targets))


def _ia3(r: Any, shape: NemoShape, problems: list[Problem], kind: str) -> Built | None:
    section = PEFT + "ia3_tuning."
    layers = _selected_layers(r, section, shape.layers, problems)
    if layers is None:
        return None
    kv = shape.kv_width
    tensors = (Tensor("key_infused_adapter.scalers", (kv,), "other", "key_infused_adapter"),
               Tensor("value_infused_adapter.scalers", (kv,), "other", "value_infused_adapter"),
               Tensor("mlp_infused_adapter.scalers", (shape.ffn,), "other", "mlp_infused_adapter"))
    return [ParamNode("layers.ia3", tensors=tensors, repeat=layers,
                      note=f"scalers: keys {kv:,}, values {kv:,}, MLP {shape.ffn:,}",
                      source=r.span(PEFT + "peft_scheme"))], None


def _adapter(r: Any, shape: NemoShape, problems: list[Problem], kind: str) -> Built | None:
    section = PEFT + "adapter_tuning."
    dim = _required_int(r, section + "adapter_dim", "adapter", "the bottleneck width", problems)
    if dim is None or _weight_tying(r, section, problems):
        return None
    # adapter_tuning_cfg.get("norm_position", "pre"): a key written null is None, no norm.
    position = (r.str(section + "norm_position") or "").lower() if r.node(section + "norm_position") is not None \
        else "pre"
    norm_type = (r.str(section + "norm_type") or "").lower() if r.node(section + "norm_type") is not None \
        else "mixedfusedlayernorm"
    normed = position in ("pre", "post")
    if normed and norm_type not in ("mixedfusedlayernorm", "layernorm"):
        problems.append(Problem("error", "LC102", f"adapter_tuning.norm_type: {norm_type or 'null'} is none NeMo builds "
                                f"(mixedfusedlayernorm or layernorm; ParallelLinearAdapter raises NotImplementedError)",
                                r.span(section + "norm_type")))
        return None
    layers = _selected_layers(r, section, shape.layers, problems)
    if layers is None:
        return None
    h = shape.hidden
    adapters = []
    for name, where in (("adapter_1", "after the attention"), ("adapter_2", "after the MLP")):
        tensors = [Tensor(f"{name}.linear_in.weight", (dim, h), kind, name),
                   Tensor(f"{name}.linear_out.weight", (h, dim), kind, name)]
        if normed:
            tensors += [Tensor(f"{name}.layer_norm.weight", (h,), "norm", name),
                        Tensor(f"{name}.layer_norm.bias", (h,), "norm", name)]
        adapters.append(ParamNode(f"layers.{name}", tensors=tuple(tensors), repeat=layers,
                                  note=f"{where}: {h}→{dim}→{h}" + (f", {position}-LayerNorm" if normed else ""),
                                  source=r.span(section + "adapter_dim"), key="adapter_dim"))
    return adapters, None


def _ptuning(r: Any, shape: NemoShape, problems: list[Problem], kind: str) -> Built | None:
    section = PEFT + "p_tuning."
    sizes = [_required_int(r, section + key, "ptuning", what, problems)
             for key, what in (("virtual_tokens", "the prompt's length"), ("bottleneck_dim", "the encoder's width"),
                               ("embedding_dim", "the virtual tokens' width"))]
    if None in sizes:
        return None
    tokens, bottleneck, width = sizes
    assert tokens is not None and bottleneck is not None and width is not None
    tensors = (Tensor("embedding.weight", (tokens, width), "embedding", "embedding"),
               Tensor("first.weight", (bottleneck, width), kind, "first"), Tensor("first.bias", (bottleneck,), "bias", "first"),
               Tensor("second.weight", (shape.hidden, bottleneck), kind, "second"),
               Tensor("second.bias", (shape.hidden,), "bias", "second"))
    return [ParamNode("ptuning_adapter", tensors=tensors,
                      note=f"{tokens} virtual tokens of {width}, {width}→{bottleneck}→{shape.hidden}",
                      source=r.span(section + "virtual_tokens"), key="virtual_tokens")], None


_SCHEMES: dict[str, Callable[[Any, NemoShape, list[Problem], str], Built | None]] = {
    "lora": _lora, "ia3": _ia3, "adapter": _adapter, "ptuning": _ptuning}
_BUILDS = {
    "lora": "lora: a ParallelLinearAdapter per targeted linear, dim·(in+out), no bias",
    "ia3": "ia3: key, value and MLP scalers per layer",
    "adapter": "adapter: two bottleneck adapters per layer, with their LayerNorms",
    "ptuning": "ptuning: a PromptEncoderAdapter at the embedding",
}


def _written(node: Any) -> str:
    """How a problem names what a key holds: its text, or what kind of value it is."""
    if isinstance(node.value, tuple):
        return "a list"
    if isinstance(node.value, dict):
        return "a mapping"
    return repr(node.value) if isinstance(node.value, str) else node.raw or repr(node.value)


def _required_int(r: Any, path: str, scheme: str, what: str, problems: list[Problem]) -> int | None:
    """A whole number the scheme needs (NeMo reads it unguarded); an LC102 error where it is not written (an
    invalid one has its own from the reader)."""
    value = r.int(path)
    if value is None and r.node(path) is None:
        problems.append(Problem("error", "LC102", f"peft_scheme: {scheme} needs {path} ({what})",
                                r.span(PEFT + "peft_scheme")))
    return value


def _weight_tying(r: Any, section: str, problems: list[Problem]) -> bool:
    """True (with an LC101 error) where the section ties its adapters' weights, which is not modelled."""
    if not r.bool(section + "weight_tying"):
        return False
    problems.append(Problem("error", "LC101", f"{section.removeprefix(PEFT).rstrip('.')}.weight_tying (one adapter shared "
                            f"by all layers, plus position embeddings) is not modelled", r.span(section + "weight_tying")))
    return True


def _selected_layers(r: Any, section: str, layers: int, problems: list[Problem]) -> int | None:
    """How many layers get the section's adapters: all, or those its ``layer_selection`` names (Megatron's layer
    numbers count from 1); None, with an LC102 error, where it names none of the model's."""
    selection = r.value(section + "layer_selection")
    if selection is None:
        return layers
    if not isinstance(selection, tuple):
        problems.append(Problem("error", "LC102", f"{section}layer_selection must be a list of layer numbers (counting "
                                f"from 1) or null", r.span(section + "layer_selection")))
        return None
    chosen = {c.value for c in selection if isinstance(c.value, int) and not isinstance(c.value, bool)}
    selected = sum(1 for n in chosen if 1 <= n <= layers)
    if not selected:
        problems.append(Problem("error", "LC102", "layer_selection names no layer of this model (layers count from 1)",
                                r.span(section + "layer_selection")))
        return None
    return selected
