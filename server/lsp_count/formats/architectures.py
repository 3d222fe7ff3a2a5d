"""Architectures that training tools describe in their own words, mapped onto HF families.

* torchtune names the architecture by a builder function
  (``torchtune.models.llama3_1.lora_llama3_1_8b``); the table below maps the
  builder's size to the Hugging Face checkpoint torchtune converts from.
* LitGPT ``model_config.yaml`` (litgpt.Config fields) is counted as LitGPT's one model builds it
  (formats/litgpt.py), with a transformers config of the same shapes for the memory model.
* NeMo/Megatron GPT ``model:`` sections are rewritten as the equivalent transformers config
  (llama-, gpt_neox- or gpt2-shaped) and counted by the family table; a combination no
  transformers class has is refused with a clear problem rather than approximated.
"""

from __future__ import annotations

import re
from dataclasses import replace

from lsp_count.core.hf_config import count_config
from lsp_count.core.params import ParamTree
from lsp_count.core.report import ModelReport
from lsp_count.core.source import Problem, SourceNode, Span
from lsp_count.formats.litgpt import LitGPTConfigError, LitLora, litgpt_tree, lora_adapters, spec_hf
from lsp_count.formats.lora import attach_adapters
from lsp_count.formats.nemo_peft import nemo_shape

# torchtune builder stem (after an optional lora_/qlora_ prefix, without _base/_instruct) -> hub id.
TORCHTUNE_BUILDERS: dict[str, str] = {
    "llama2_7b": "meta-llama/Llama-2-7b-hf",
    "llama2_13b": "meta-llama/Llama-2-13b-hf",
    "llama2_70b": "meta-llama/Llama-2-70b-hf",
    "llama3_8b": "meta-llama/Meta-Llama-3-8B",
    "llama3_70b": "meta-llama/Meta-Llama-3-70B",
    "llama3_1_8b": "meta-llama/Llama-3.1-8B",
    "llama3_1_70b": "meta-llama/Llama-3.1-70B",
    "llama3_1_405b": "meta-llama/Llama-3.1-405B",
    "llama3_2_1b": "meta-llama/Llama-3.2-1B",
    "llama3_2_3b": "meta-llama/Llama-3.2-3B",
    "llama3_3_70b": "meta-llama/Llama-3.3-70B-Instruct",
    "mistral_7b": "mistralai/Mistral-7B-v0.1",
    "qwen2_0_5b": "Qwen/Qwen2-0.5B",
    "qwen2_7b": "Qwen/Qwen2-7B",
    "qwen2_5_0_5b": "Qwen/Qwen2.5-0.5B",
    "qwen2_5_1_5b": "Qwen/Qwen2.5-1.5B",
    "qwen2_5_7b": "Qwen/Qwen2.5-7B",
    "qwen2_5_14b": "Qwen/Qwen2.5-14B",
    "qwen2_5_32b": "Qwen/Qwen2.5-32B",
    "qwen2_5_72b": "Qwen/Qwen2.5-72B",
    "gemma_2b": "google/gemma-2b",
    "gemma_7b": "google/gemma-7b",
    "gemma2_2b": "google/gemma-2-2b",
    "gemma2_9b": "google/gemma-2-9b",
    "gemma2_27b": "google/gemma-2-27b",
    "phi3_mini": "microsoft/Phi-3-mini-4k-instruct",
    "phi4_14b": "microsoft/phi-4",
}
# torchtune's attention module names -> transformers'.
TORCHTUNE_MODULES = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "output_proj": "o_proj"}
# LitGPT LoRA switches -> the transformers module names of the matrices they adapt. LitGPT's fused
# qkv LoRA holds r·in per enabled matrix in lora_A and the enabled outputs in lora_B: the same count.
LITGPT_LORA_KEYS = (("lora_query", "q_proj"), ("lora_key", "k_proj"), ("lora_value", "v_proj"),
                    ("lora_projection", "o_proj"), ("lora_head", "lm_head"))


def torchtune_builder(builder: str) -> tuple[str, str | None] | None:
    """(hub id, adapter kind None | "lora" | "qlora") for a builder name."""
    adapter = None
    stem = builder
    for prefix, kind in (("qlora_", "qlora"), ("lora_", "lora")):
        if stem.startswith(prefix):
            stem, adapter = stem[len(prefix):], kind
            break
    stem = re.sub(r"_(base|instruct)$", "", stem)
    hub = TORCHTUNE_BUILDERS.get(stem)
    return (hub, adapter) if hub else None


def torchtune_families() -> list[str]:
    return sorted(TORCHTUNE_BUILDERS)


def _node(value: object, src: SourceNode | None, fallback: Span) -> SourceNode:
    """A value for the synthetic HF config that points at the YAML key it came from."""
    if src is None:
        return SourceNode(value, fallback)
    return SourceNode(value, src.span, src.key_span, raw=src.raw)


def _count(hf: dict[str, tuple[object, SourceNode | None]], root_span: Span, name: str,
           problems: list[Problem], method: str) -> ModelReport | None:
    mapping = {k: _node(v, src, root_span) for k, (v, src) in hf.items()}
    report, count_problems = count_config(SourceNode(mapping, root_span), name)
    problems.extend(count_problems)
    if report is None:
        return None
    return ModelReport(report.name, report.tree, report.spec, root_span, method=f"{report.method}; {method}")


# --- LitGPT ----------------------------------------------------------------------------------------


def _pad(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def litgpt_fields(r) -> dict[str, object]:
    """A model_config.yaml's fields as Python values."""
    root = r.root.to_python()
    return dict(root) if isinstance(root, dict) else {}


def litgpt_model(r, name: str, problems: list[Problem], lora: LitLora | None = None) -> ModelReport | None:
    """LitGPT's model for a ``model_config.yaml`` (litgpt.Config fields), counted as
    ``litgpt.model.GPT`` builds it (formats/litgpt.py); the memory model's spec from the same
    fields. With ``lora``, the base frozen and litgpt.lora's adapters beside it."""
    fields = litgpt_fields(r)
    display = str(fields.get("name") or name)
    try:
        root = litgpt_tree(fields, display, lora)
        hf = spec_hf(fields)
        adapters, modules = lora_adapters(fields, lora) if lora is not None else ([], [])
    except LitGPTConfigError as exc:
        problems.append(Problem("error", "LC102", f"LitGPT config: {exc}", r.span(exc.key) or r.root.span))
        return None
    spec_problems: list[Problem] = []
    spec_report = _count({k: (v, r.node(_LITGPT_KEYS.get(k, k))) for k, v in hf.items()}, r.root.span, display,
                         spec_problems, "LitGPT config")
    if spec_report is None or spec_report.spec is None:
        # The transformers-shaped spec's own keys are not the file's: say why, at the file's root.
        why = next((p.message for p in spec_problems if p.severity == "error"), "")
        problems.append(Problem("error", "LC101", "the LitGPT config's shapes have no memory model" + (f" ({why})" if why else ""),
                                r.root.span))
        return None
    spec = replace(spec_report.spec, name=display, architecture="litgpt.GPT")
    tree = ParamTree(root)
    method = "exact (litgpt.model.GPT from its config fields)"
    if lora is not None:
        if not adapters:
            problems.append(Problem("error", "LC102", "no LoRA targets: every lora_* flag is false", r.root.span))
            return None
        tree = attach_adapters(tree, adapters, f"LoRA r={lora.r}")
        method += f"; LoRA adapters exact (litgpt.lora: fused qkv adapter, r={lora.r})"
    report = ModelReport(display, tree, spec, r.root.span, method=method)
    return report if lora is None else replace(report, plan={"lora_targets": modules})


# model_config.yaml's keys for the spec's fields, for the spans hovers point at.
_LITGPT_KEYS = {"hidden_size": "n_embd", "num_hidden_layers": "n_layer", "num_attention_heads": "n_head",
                "num_key_value_heads": "n_query_groups", "head_dim": "head_size", "intermediate_size": "intermediate_size",
                "vocab_size": "padded_vocab_size", "max_position_embeddings": "block_size", "num_local_experts": "n_expert",
                "num_experts_per_tok": "n_expert_per_token"}


# --- NeMo / Megatron GPT ---------------------------------------------------------------------------

# Tokenizers NeMo/Megatron YAMLs name, with their vocabulary size (before padding).
TOKENIZER_VOCAB = {
    "gpt2bpetokenizer": 50257,
    "gpt2": 50257,
    "bertwordpiecelowercase": 30522,
    "bertwordpiececase": 28996,
    "megatron-gpt-345m": 50257,
    "megatron-bert-345m-uncased": 30522,
    "megatron-bert-345m-cased": 28996,
}


def nemo_vocab(r, options, problems: list[Problem]) -> tuple[int | None, SourceNode | None]:
    tok_type = r.str("model.tokenizer.type")
    library = (r.str("model.tokenizer.library") or "").lower()
    node = r.node("model.tokenizer.type") or r.node("model.tokenizer")
    if tok_type and tok_type.lower() in TOKENIZER_VOCAB:
        return TOKENIZER_VOCAB[tok_type.lower()], node
    if library == "huggingface" and tok_type:
        from lsp_count.core.catalog import resolve_model

        found = resolve_model(tok_type, options.hf_cache, options.base_dir).found
        vocab = found.root.get("vocab_size") if found else None
        if vocab is not None and isinstance(vocab.value, int):
            return vocab.value, node
    explicit = r.int("model.tokenizer.vocab_size") or r.int("model.vocab_size")
    if explicit:
        return explicit, r.node("model.tokenizer.vocab_size") or r.node("model.vocab_size")
    problems.append(Problem("error", "LC102", f"the vocabulary size comes from the tokenizer ({tok_type or 'none named'}), "
                            "which lsp-count cannot open; name a known tokenizer type (e.g. GPT2BPETokenizer) or a "
                            "Hugging Face tokenizer whose config is in the catalog or the HF cache", r.span("model.tokenizer")))
    return None, None


def nemo_model(r, name: str, problems: list[Problem], options) -> ModelReport | None:
    m = "model."
    shape = nemo_shape(r)
    if shape is None:
        return None
    layers, hidden, heads, ffn = shape.layers, shape.hidden, shape.heads, shape.ffn
    groups, kv_channels, activation = shape.groups, shape.kv_channels, shape.activation
    norm = (r.str(m + "normalization") or "layernorm").lower()
    position = (r.str(m + "position_embedding_type") or "learned_absolute").lower()
    bias = r.bool(m + "bias")
    bias = True if bias is None else bias
    shared = r.bool(m + "share_embeddings_and_output_weights")
    shared = True if shared is None else shared
    max_pos = r.int(m + "max_position_embeddings") or r.int(m + "encoder_seq_length") or 2048
    vocab, vocab_src = nemo_vocab(r, options, problems)
    if vocab is None:
        return None
    divisible = r.int(m + "make_vocab_size_divisible_by") or 128
    tp = r.int(m + "tensor_model_parallel_size") or 1
    padded = _pad(vocab, divisible * tp)
    note = f"vocab {vocab:,} from the tokenizer, padded to {padded:,} (multiple of {divisible} × TP {tp})"
    src = lambda key: r.node(m + key)  # noqa: E731
    gated = activation in ("swiglu", "fast-swiglu", "geglu", "fast-geglu", "reglu", "fast-reglu")
    if gated and norm == "rmsnorm" and position in ("rope", "none"):
        hf: dict[str, tuple[object, SourceNode | None]] = {
            "model_type": ("llama", None), "hidden_size": (hidden, src("hidden_size")),
            "num_hidden_layers": (layers, src("num_layers")), "num_attention_heads": (heads, src("num_attention_heads")),
            "num_key_value_heads": (groups, src("num_query_groups")), "head_dim": (kv_channels, src("kv_channels")),
            "intermediate_size": (ffn, src("ffn_hidden_size")), "vocab_size": (padded, vocab_src),
            "tie_word_embeddings": (shared, src("share_embeddings_and_output_weights")),
            "attention_bias": (bias, src("bias")), "mlp_bias": (bias, src("bias")),
            "max_position_embeddings": (max_pos, src("max_position_embeddings")),
        }
        report = _count(hf, r.root.span, name, problems, "NeMo model mapped to llama")
    elif not gated and norm in ("layernorm", "layernorm1p") and bias and groups == heads and kv_channels * heads == hidden:
        if position == "learned_absolute" and shared:
            hf = {"model_type": ("gpt2", None), "n_embd": (hidden, src("hidden_size")), "n_layer": (layers, src("num_layers")),
                  "n_head": (heads, src("num_attention_heads")), "n_inner": (ffn, src("ffn_hidden_size")),
                  "vocab_size": (padded, vocab_src), "n_positions": (max_pos, src("max_position_embeddings"))}
            report = _count(hf, r.root.span, name, problems, "NeMo model mapped to gpt2")
        elif position == "rope" and not shared:
            hf = {"model_type": ("gpt_neox", None), "hidden_size": (hidden, src("hidden_size")),
                  "num_hidden_layers": (layers, src("num_layers")), "num_attention_heads": (heads, src("num_attention_heads")),
                  "intermediate_size": (ffn, src("ffn_hidden_size")), "vocab_size": (padded, vocab_src),
                  "tie_word_embeddings": (False, None), "max_position_embeddings": (max_pos, src("max_position_embeddings")),
                  "rotary_pct": (r.value(m + "rotary_percentage") or 1.0, src("rotary_percentage"))}
            report = _count(hf, r.root.span, name, problems, "NeMo model mapped to gpt_neox")
        else:
            report = None
            problems.append(Problem("error", "LC101", f"NeMo GPT with {position} positions and share_embeddings_and_output_weights: "
                                    f"{str(shared).lower()} is not mapped to a transformers family", r.span("model")))
    else:
        report = None
        problems.append(Problem("error", "LC101", f"NeMo GPT with activation {activation}, normalization {norm}, "
                                f"bias {str(bias).lower()} is not mapped to a transformers family", r.span("model")))
    if report is None:
        return None
    problems.append(Problem("info", "LC106", note, vocab_src.span if vocab_src is not None else None))
    return report
