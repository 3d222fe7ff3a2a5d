"""LitGPT's one model, counted from its ``Config`` fields as ``litgpt.model.GPT`` (and, with LoRA,
``litgpt.lora.GPT``) builds it.

LitGPT has a single parametric architecture (litgpt/model.py): an embedding ``wte``, ``n_layer``
blocks of a fused ``qkv`` attention (or multi-head latent attention) and one MLP class, optional
pre/post norms, a final norm and a head that is never tied to the embedding. A ``model_config.yaml``
LitGPT writes beside a checkpoint holds those fields; the tree here follows each one (``norm_qk``,
``post_attention_norm``, ``shared_attention_norm``, ``n_shared_expert``, ``first_k_dense_replace``,
``latent_attention``, ...), so no field is left unread. The memory model's spec (layers, heads,
KV heads, head size, vocabulary) is taken from the same fields through the nearest transformers
family (``spec_hf``), which counts nothing here.

Tests: tests/parity/test_litgpt_parity.py builds every named LitGPT config, random ones and LoRA
variants with the installed litgpt on the meta device and compares the counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from lsp_count.core.params import ParamNode, Tensor
from lsp_count.core.spec import MAX_DIMENSION, size_limit

# litgpt.Config's defaults (litgpt/config.py), for the fields a model_config.yaml may leave out.
DEFAULTS: dict[str, Any] = {
    "name": "", "block_size": 4096, "n_layer": 16, "n_embd": 4096, "vocab_size": 50254, "padding_multiple": 512,
    "padded_vocab_size": None, "norm_class_name": "LayerNorm", "norm_qk": False, "norm_qk_type": "default",
    "post_attention_norm": False, "post_mlp_norm": False, "parallel_residual": True, "shared_attention_norm": False,
    "n_head": 32, "head_size": None, "n_query_groups": None, "attn_bias": False, "intermediate_size": None,
    "moe_intermediate_size": None, "bias": True, "mlp_class_name": "GptNeoxMLP", "n_expert": 0,
    "n_shared_expert": None, "n_expert_groups": None, "n_expert_per_token": 0, "first_k_dense_replace": None,
    "lm_head_bias": False, "norm_1": True, "norm_2": True, "latent_attention": None,
}
# The whole-number fields and their least values (None allowed where the default is None).
_SIZES = {"n_layer": 1, "n_embd": 1, "n_head": 1, "vocab_size": 1, "padding_multiple": 1, "block_size": 1,
          "padded_vocab_size": 1, "head_size": 1, "n_query_groups": 1, "intermediate_size": 1,
          "moe_intermediate_size": 1, "n_expert": 0, "n_expert_per_token": 0, "n_shared_expert": 0,
          "n_expert_groups": 1, "first_k_dense_replace": 0}
_REQUIRED = frozenset({"n_layer", "n_embd", "n_head", "vocab_size", "padding_multiple", "block_size", "n_expert",
                       "n_expert_per_token"})
_SWITCHES = ("bias", "attn_bias", "lm_head_bias", "norm_qk", "post_attention_norm", "post_mlp_norm", "norm_1",
             "norm_2", "parallel_residual", "shared_attention_norm")
MLP_CLASSES = ("GptNeoxMLP", "LLaMAMLP", "GemmaMLP", "LLaMAMoE")
NORM_CLASSES = ("LayerNorm", "RMSNorm")


class LitGPTConfigError(ValueError):
    """A config litgpt.Config refuses (its __post_init__'s checks), with the field to point at."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class LitLora:
    """litgpt.lora.Config's LoRA fields (finetune/lora.py: query and value on by default)."""

    r: int
    query: bool = True
    key: bool = False
    value: bool = True
    projection: bool = False
    mlp: bool = False
    head: bool = False


def resolved(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The config as litgpt.Config.__post_init__ leaves it: head size, padded vocabulary, query
    groups and the MLP width filled in, and its checks (LitGPTConfigError)."""
    c = {**DEFAULTS, **{k: v for k, v in fields.items() if k in DEFAULTS}}
    for key in _SIZES:
        value = c[key]
        if value is None and key not in _REQUIRED:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < _SIZES[key]:
            raise LitGPTConfigError(key, f"{key} must be a whole number ≥ {_SIZES[key]}, got {value!r}")
        limit, what = size_limit("num_layers" if key == "n_layer" else key)
        if value > limit:
            raise LitGPTConfigError(key, f"{key} {value:,} is larger than any real model {what} (limit {limit:,})")
    for key in _SWITCHES:
        if not isinstance(c[key], bool):
            raise LitGPTConfigError(key, f"{key} must be true or false, got {c[key]!r}")
    if c["mlp_class_name"] not in MLP_CLASSES:
        raise LitGPTConfigError("mlp_class_name", f"mlp_class_name must be one of {', '.join(MLP_CLASSES)}, "
                                                  f"got {c['mlp_class_name']!r}")
    if c["norm_class_name"] not in NORM_CLASSES:
        raise LitGPTConfigError("norm_class_name", f"norm_class_name must be LayerNorm or RMSNorm, "
                                                   f"got {c['norm_class_name']!r}")
    if c["head_size"] is None:
        if c["n_embd"] % c["n_head"]:
            raise LitGPTConfigError("n_head", f"n_embd {c['n_embd']} is not a multiple of n_head {c['n_head']} "
                                              "(litgpt's assertion; set head_size)")
        c["head_size"] = c["n_embd"] // c["n_head"]
    if c["padded_vocab_size"] is None:
        c["padded_vocab_size"] = -(-c["vocab_size"] // c["padding_multiple"]) * c["padding_multiple"]
    if c["n_query_groups"] is None:
        c["n_query_groups"] = c["n_head"]
    elif c["n_head"] % c["n_query_groups"]:
        raise LitGPTConfigError("n_query_groups", f"n_head {c['n_head']} is not a multiple of n_query_groups "
                                                  f"{c['n_query_groups']} (litgpt's assertion)")
    if c["intermediate_size"] is None:
        if c["mlp_class_name"] == "LLaMAMLP":
            raise LitGPTConfigError("mlp_class_name", "LLaMAMLP needs intermediate_size (litgpt raises ValueError)")
        c["intermediate_size"] = 4 * c["n_embd"]
    if not c["parallel_residual"] and c["shared_attention_norm"]:
        raise LitGPTConfigError("shared_attention_norm", "shared_attention_norm without parallel_residual: litgpt "
                                                         "raises NotImplementedError")
    if c["mlp_class_name"] == "LLaMAMoE" and not c["n_expert"]:
        raise LitGPTConfigError("n_expert", "LLaMAMoE needs n_expert")
    if c["first_k_dense_replace"] is not None and c["mlp_class_name"] != "LLaMAMoE":
        raise LitGPTConfigError("first_k_dense_replace", "first_k_dense_replace needs mlp_class_name LLaMAMoE "
                                                         "(litgpt's assertion)")
    if c["n_expert_groups"] is not None:
        groups, experts = c["n_expert_groups"], c["n_expert"]
        top_k = fields.get("n_topk_groups"), fields.get("n_topk_scores_per_group")
        if groups < 2 or experts % groups or top_k[0] is None or top_k[1] is None or \
                not isinstance(top_k[1], int) or top_k[1] > experts // groups:
            raise LitGPTConfigError("n_expert_groups", "n_expert_groups must be above 1 and divide n_expert, with "
                                                       "n_topk_groups and n_topk_scores_per_group set (litgpt's "
                                                       "assertions)")
    if c["latent_attention"] is not None:
        mla = c["latent_attention"]
        needed = ("q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")
        if not isinstance(mla, Mapping) or not all(type(mla.get(k)) is int and 0 < mla[k] <= MAX_DIMENSION for k in needed):
            raise LitGPTConfigError("latent_attention", f"latent_attention needs {', '.join(needed)}")
        if c["n_query_groups"] != c["n_head"]:
            raise LitGPTConfigError("latent_attention", "latent attention does not support MQA/GQA (litgpt's assertion)")
    return c


def _linear(name: str, out_f: int, in_f: int, bias: bool) -> tuple[Tensor, ...]:
    weight = Tensor(f"{name}.weight", (out_f, in_f), "linear", name)
    return (weight, Tensor(f"{name}.bias", (out_f,), "bias", name)) if bias else (weight,)


def _norm(c: dict[str, Any], name: str, size: int) -> tuple[Tensor, ...]:
    """RMSNorm: a weight; torch's LayerNorm: weight and bias, none for OLMo's (elementwise_affine=False)."""
    if c["norm_class_name"] == "RMSNorm":
        return (Tensor(f"{name}.weight", (size,), "norm", name),)
    if "OLMo" in str(c["name"]):
        return ()
    return Tensor(f"{name}.weight", (size,), "norm", name), Tensor(f"{name}.bias", (size,), "norm", name)


def _mlp(c: dict[str, Any], width: int, cls: str) -> tuple[Tensor, ...]:
    n, bias = c["n_embd"], c["bias"]
    if cls == "GptNeoxMLP":
        return _linear("fc", width, n, bias) + _linear("proj", n, width, bias)
    return _linear("fc_1", width, n, bias) + _linear("fc_2", width, n, bias) + _linear("proj", n, width, bias)


def _attention(c: dict[str, Any], lora: LitLora | None) -> tuple[Tensor, ...]:
    n, hs, heads, groups = c["n_embd"], c["head_size"], c["n_head"], c["n_query_groups"]
    mla = c["latent_attention"]
    if mla is not None and lora is None:  # (litgpt.lora's Block builds the plain attention)
        qk = mla["qk_rope_head_dim"] + mla["qk_nope_head_dim"]
        return (_linear("q_a_proj", mla["q_lora_rank"], n, c["attn_bias"])
                + (Tensor("q_a_norm.weight", (mla["q_lora_rank"],), "norm", "q_a_norm"),)
                + _linear("q_b_proj", heads * qk, mla["q_lora_rank"], c["bias"])
                + _linear("kv_a_proj_with_mqa", mla["kv_lora_rank"] + mla["qk_rope_head_dim"], n, c["attn_bias"])
                + (Tensor("kv_a_norm.weight", (mla["kv_lora_rank"],), "norm", "kv_a_norm"),)
                + _linear("kv_b_proj", groups * (mla["qk_nope_head_dim"] + mla["v_head_dim"]), mla["kv_lora_rank"],
                          c["bias"])
                + _linear("proj", n, heads * mla["v_head_dim"], c["bias"]))
    tensors = _linear("qkv", (heads + 2 * groups) * hs, n, c["bias"] or c["attn_bias"]) + \
        _linear("proj", n, hs * heads, c["bias"])
    if c["norm_qk"]:
        olmo2 = c["norm_qk_type"] == "olmo2"
        tensors += _norm(c, "norm_q", heads * hs if olmo2 else hs) + _norm(c, "norm_k", groups * hs if olmo2 else hs)
    return tensors


def _block_norms(c: dict[str, Any]) -> tuple[Tensor, ...]:
    n = c["n_embd"]
    out: tuple[Tensor, ...] = ()
    if c["norm_1"]:
        out += _norm(c, "norm_1", n)
    if c["post_attention_norm"]:
        out += _norm(c, "post_attention_norm", n)
    if c["norm_2"] and not c["shared_attention_norm"]:
        out += _norm(c, "norm_2", n)
    if c["post_mlp_norm"]:
        out += _norm(c, "post_mlp_norm", n)
    return out


def _layer(c: dict[str, Any], moe: bool, lora: LitLora | None) -> tuple[ParamNode, ...]:
    children = [ParamNode("attention", _attention(c, lora))]
    if moe:
        experts, width = c["n_expert"], c["moe_intermediate_size"] or c["intermediate_size"]
        router = _linear("gate", experts, c["n_embd"], False) if not c["n_expert_groups"] or lora is not None else \
            (Tensor("gate.weight", (experts, c["n_embd"]), "linear", "gate"),)  # GroupedTopkRouter's own weight
        parts = [ParamNode("router", router),
                 ParamNode("experts", _mlp(c, width, "LLaMAMLP"), repeat=experts, active_repeat=c["n_expert_per_token"],
                           note=f"routed: {c['n_expert_per_token']} of {experts} per token")]
        if c["n_shared_expert"] and lora is None:  # (litgpt.lora's LLaMAMoE builds no shared experts)
            parts.append(ParamNode("shared_experts", _mlp(c, width * c["n_shared_expert"], "LLaMAMLP")))
        children.append(ParamNode("moe", children=tuple(parts)))
    else:
        children.append(ParamNode("mlp", _mlp(c, c["intermediate_size"], c["mlp_class_name"])))
    norms = _block_norms(c)
    if norms:
        children.append(ParamNode("norms", norms))
    return tuple(children)


def litgpt_tree(fields: Mapping[str, Any], name: str, lora: LitLora | None = None) -> ParamNode:
    """The model ``litgpt.model.GPT(Config(**fields))`` builds (``litgpt.lora.GPT`` with ``lora``,
    its base only: see lora_adapters), as a tree in the counting core's layout."""
    c = resolved(fields)
    n, vocab, layers = c["n_embd"], c["padded_vocab_size"], c["n_layer"]
    moe = c["mlp_class_name"] == "LLaMAMoE"
    if moe and c["n_shared_expert"] and c["moe_intermediate_size"] is None and lora is None:
        # (every block builds its MoE first, a dense one then replacing it: first_k_dense_replace too)
        raise LitGPTConfigError("n_shared_expert", "shared experts need moe_intermediate_size (litgpt multiplies it "
                                                   "by n_shared_expert: TypeError)")
    dense = c["first_k_dense_replace"] or 0 if moe and lora is None else 0  # (litgpt.lora: every block's MLP is the MoE)
    dense = min(dense, layers)
    stacks: list[ParamNode] = []
    if dense:
        stacks.append(ParamNode("dense_layers", children=_layer(c, False, lora), repeat=dense, key="first_k_dense_replace"))
    if layers - dense:
        stacks.append(ParamNode("moe_layers" if dense else "layers", children=_layer(c, moe, lora), repeat=layers - dense,
                                key="n_layer"))
    layer_nodes = stacks if len(stacks) == 1 else [ParamNode("layers", children=tuple(stacks))]
    children = [ParamNode("embeddings", (Tensor("wte.weight", (vocab, n), "embedding", "wte"),), key="padded_vocab_size"),
                *layer_nodes]
    final = _norm(c, "ln_f", n)
    if final:
        children.append(ParamNode("final_norm", final))
    children.append(ParamNode("lm_head", _linear("lm_head", vocab, n, c["lm_head_bias"]), key="lm_head"))
    return ParamNode(name, children=tuple(children))


def lora_adapters(fields: Mapping[str, Any], lora: LitLora) -> tuple[list[ParamNode], list[str]]:
    """The adapters ``litgpt.lora.GPT`` adds and trains (mark_only_lora_as_trainable), by layer,
    and the modules they adapt. The fused ``qkv``: one lora_A of ``r`` rows per enabled matrix
    and one lora_B over the enabled matrices' outputs (LoRAQKVLinear); any other linear layer
    ``r·(in + out)``; ``lora_mlp`` adapts the MLP's layers, each expert's and the router."""
    c = resolved(fields)
    r, n, hs, heads, groups = lora.r, c["n_embd"], c["head_size"], c["n_head"], c["n_query_groups"]
    layers, moe = c["n_layer"], c["mlp_class_name"] == "LLaMAMoE"
    adapters: list[ParamNode] = []
    modules: list[str] = []

    def add(label: str, module: str, in_f: int, out_f: int, rows: int, repeat: int, note: str = "") -> None:
        tensors = (Tensor(f"{module}.lora_A", (rows, in_f), "lora", module), Tensor(f"{module}.lora_B", (out_f, r), "lora", module))
        adapters.append(ParamNode(label, tensors=tensors, repeat=repeat, note=note or f"r={r}: {in_f}→{r}→{out_f}"))
        if module not in modules:
            modules.append(module)

    enabled = [(lora.query, heads * hs, "query"), (lora.key, groups * hs, "key"), (lora.value, groups * hs, "value")]
    on = [(size, what) for flag, size, what in enabled if flag]
    if on:
        add("layers.attention.qkv", "qkv", n, sum(size for size, _ in on), r * len(on), layers,
            f"r={r} × {len(on)} ({', '.join(what for _, what in on)}): {n}→{r * len(on)}→{sum(s for s, _ in on)}")
    if lora.projection:
        add("layers.attention.proj", "proj", hs * heads, n, r, layers)
    if lora.mlp:
        if moe:
            width = c["moe_intermediate_size"] or c["intermediate_size"]
            add("layers.moe.router.gate", "gate", n, c["n_expert"], r, layers)
            for module, in_f, out_f in (("fc_1", n, width), ("fc_2", n, width), ("proj", width, n)):
                add(f"layers.moe.experts.{module}", module, in_f, out_f, r, layers * c["n_expert"],
                    f"r={r}: {in_f}→{r}→{out_f} per expert")
        else:
            width = c["intermediate_size"]
            names = (("fc", n, width), ("proj", width, n)) if c["mlp_class_name"] == "GptNeoxMLP" else \
                (("fc_1", n, width), ("fc_2", n, width), ("proj", width, n))
            for module, in_f, out_f in names:
                add(f"layers.mlp.{module}", module, in_f, out_f, r, layers)
    if lora.head:
        add("lm_head", "lm_head", n, c["padded_vocab_size"], r, 1)
    return adapters, modules


def spec_hf(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A transformers config of the same shapes for the memory model's spec (layers, hidden size,
    heads, KV heads, head size, vocabulary, MLP width, experts, longest sequence); the counts are
    litgpt_tree's."""
    c = resolved(fields)
    moe = c["mlp_class_name"] == "LLaMAMoE"
    hf: dict[str, Any] = {
        "model_type": "mixtral" if moe else "llama", "hidden_size": c["n_embd"], "num_hidden_layers": c["n_layer"],
        "num_attention_heads": c["n_head"], "num_key_value_heads": c["n_query_groups"], "head_dim": c["head_size"],
        "intermediate_size": (c["moe_intermediate_size"] or c["intermediate_size"]) if moe else c["intermediate_size"],
        "vocab_size": c["padded_vocab_size"], "tie_word_embeddings": False,
        "max_position_embeddings": c["block_size"],
    }
    if c["mlp_class_name"] == "GptNeoxMLP" and c["n_query_groups"] == c["n_head"] and \
            c["head_size"] * c["n_head"] == c["n_embd"]:
        hf["model_type"] = "gpt_neox"  # (pythia's shapes: the family the report names)
        del hf["num_key_value_heads"], hf["head_dim"]
    if moe:
        hf["num_local_experts"] = c["n_expert"]
        hf["num_experts_per_tok"] = max(1, c["n_expert_per_token"])
    return hf
