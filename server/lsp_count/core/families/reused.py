"""Families whose config class builds another family's model classes, or a near copy of them.

transformers 5 maps these model types to existing classes (``ExaoneConfig`` -> ``LlamaForCausalLM``,
``Param2MoeConfig`` -> ``Glm4MoeForCausalLM``, ``SarvamMLAConfig`` -> ``DeepseekV3ForCausalLM``, ``gpt-sw3`` ->
``GPT2Config`` and ``GPT2LMHeadModel``): the layout is the other family's, but the keys, their defaults and
aliases (attribute_map) are the config class's own. A row's ``heads`` name the classes transformers maps the type
to; hf_config.build_spec reads them from the row before the index of every family's classes (which files
``LlamaForCausalLM`` under llama).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Callable

from lsp_count.core.families.common import TEXT_ROPE_TYPES
from lsp_count.core.families.decoders import (DEEPSEEK, DEEPSEEK_NULLS, FAMILIES as DECODERS, FLOOR_HEADS, HEAD_DIM,
                                              KV_HEADS, MOE, ROTATED_HEAD_DIM, STRICT_HEADS, BASE, aliases, d, decoder,
                                              fixed, nulls, rotary_share)
from lsp_count.core.source import Problem
from lsp_count.core.spec import Derived, Family, Field

_ABSENT = "(not given)"  # the default of a field that keeps an attribute_map alias as written

LLAMA_HEADS = {"LlamaForCausalLM": "causal_lm", "LlamaModel": "base"}
GLM4_MOE_HEADS = {"Glm4MoeForCausalLM": "causal_lm", "Glm4MoeModel": "base"}


def alias(key: str, doc: str) -> Field:
    """An attribute_map alias of a field, kept apart: transformers sets it after its strict field checks, so it
    wins over the field, and any value passes there (what the model then does with it decides)."""
    return Field((key,), _ABSENT, "any", doc=doc)


def _aliased(v, name: str, field: str) -> object:
    """The value a config class holds for a field with an alias: the alias where written, else the field."""
    return v[field] if v[name] == _ABSENT else v[name]


def _whole(value: object, minimum: int = 1) -> int | None:
    """A count the model can be built with (torch.empty takes no float, no null), else None."""
    return value if type(value) is int and value >= minimum else None


def aliased_bias(field: str, name: str) -> Field:
    """A bias switch read through an alias: nn.Linear(bias=x) has a bias where x is truthy."""
    return fixed(Derived(lambda v: bool(_aliased(v, name, field)), f"{name}, else {field}"))


def _alias_problem(spec, name: str, field: str, why: str, minimum: int = 1) -> Problem | None:
    """An error where the value a class holds for a count (an alias that wins, else the field) is no whole number."""
    v = spec.values
    value = _aliased(v, name, field)
    if _whole(value, minimum) is not None:
        return None
    which = name if v[name] != _ABSENT else field
    if which == field and which not in spec.origins:
        return None
    key = spec.key_name(which) or which
    what = ("null is not a whole number" if value is None else
            f"expected a whole number of at least {minimum}, got {json.dumps(value)}")
    return Problem("error", "LC102", f'"{key}": {what}: {spec.architecture} cannot build {why} with it',
                   spec.key_span(which) or spec.span)


def moe_aliases_checked(experts: tuple[str, str], shared: tuple[str, str]) -> Callable[..., list[Problem]]:
    """A check for a DeepSeek-style config class (Param2-MoE, Sarvam) whose routed and shared expert counts have
    aliases set after its field checks (num_experts, num_local_experts, num_shared_experts): a value its MoE layers
    cannot be built with fails only where a layer is MoE (from first_k_dense_replace on)."""
    def check(spec) -> list[Problem]:
        v = spec.values
        layers, dense = v.get("num_layers"), v.get("first_k_dense_replace")
        if type(layers) is not int or type(dense) is not int or dense >= layers:
            return []
        found = (_alias_problem(spec, *experts, "its routed experts"),
                 _alias_problem(spec, *shared, "its shared experts", 0) if v[shared[0]] != _ABSENT else None)
        return [p for p in found if p is not None]
    return check


def _alias_count(name: str, field: str, minimum: int = 1) -> Field:
    """A count read through an alias (None where the model cannot be built with it: moe_aliases_checked says so)."""
    return fixed(Derived(lambda v: _whole(_aliased(v, name, field), minimum), f"{name}, else {field}"))


def _internlm3_biases(spec) -> list[Problem]:
    """InternLM3Config refuses attention biases (attention_bias, or its alias qkv_bias) other than the MLP's (mlp_bias,
    or its alias bias): Llama's layers read one switch each, and it keeps them equal (validate_architecture)."""
    v = spec.values
    attention, mlp = _aliased(v, "qkv_bias", "attention_bias"), _aliased(v, "bias", "mlp_bias")
    if attention == mlp:
        return []
    keys = [n if v[n] != _ABSENT else f for n, f in (("qkv_bias", "attention_bias"), ("bias", "mlp_bias"))]
    which = next((k for k in keys if k in spec.origins), keys[0])
    label = spec.key_name(which) or which
    return [Problem("error", "LC103", f'"{label}": {json.dumps(attention)} for the attention biases and '
                                      f"{json.dumps(mlp)} for the MLP's: InternLM3Config refuses them unequal (the "
                                      "Llama layers it builds read one switch each)",
                    spec.key_span(which) or spec.span)]


def _iquestcoder_unsupported(spec) -> list[Problem]:
    """IQuestCoderConfig refuses a clip_qkv other than null and a true use_sliding_window (validate_architecture)."""
    v = spec.values
    out = []
    if v.get("clip_qkv") is not None:
        out.append(Problem("error", "LC103", f'"clip_qkv": {json.dumps(v["clip_qkv"])}: IQuestCoderConfig refuses '
                                             "any clip_qkv (leave it out, or null)",
                           spec.key_span("clip_qkv") or spec.span))
    if v.get("use_sliding_window_refused"):
        out.append(Problem("error", "LC103", f'"use_sliding_window": {json.dumps(v["use_sliding_window_refused"])}: '
                                             "IQuestCoderConfig refuses a sliding window",
                           spec.key_span("use_sliding_window_refused") or spec.span))
    return out


# A head width the class defaults to 128, and fills from hidden_size / num_attention_heads where null (LlamaConfig's
# __post_init__).
HEAD_DIM_128 = {"head_dim": Field(("head_dim",), 128, doc=BASE["head_dim"].doc)}


def _glm4_moe_like(model_type: str, defaults: dict) -> Family:
    """Param2-MoE and Sarvam-MoE: GLM-4-MoE's classes (grouped-query attention with q/k/v biases by attention_bias and
    RMS norms over each head's q and k by use_qk_norm, true here; the first first_k_dense_replace layers dense, then
    routed experts and n_shared_experts shared ones), a head_dim of its own (64; GLM-4-MoE's config has none) and the
    whole head rotated by default. Its attribute_map aliases (num_experts and num_local_experts for n_routed_experts,
    num_shared_experts, use_qkv_bias) win over the fields, set after their checks."""
    defaults = dict(defaults)
    experts, shared = defaults.pop("num_experts"), defaults.pop("n_shared_experts")
    return decoder(
        model_type, "Glm4MoeForCausalLM", d(pad_token_id=0), d(**defaults), MOE,
        {"head_dim": Field(("head_dim",), 64, doc=BASE["head_dim"].doc),
         "attention_bias": Field(("attention_bias",), False, "bool", doc="biases on the q/k/v projections"),
         "use_qkv_bias": alias("use_qkv_bias",
                               "biases on the q/k/v projections, under attention_bias' alias (it wins)"),
         **{bias: aliased_bias("attention_bias", "use_qkv_bias") for bias in ("q_bias", "k_bias", "v_bias")},
         "o_bias": fixed(False), "mlp_bias": fixed(False),
         "use_qk_norm": Field(("use_qk_norm",), True, "bool", doc="RMS norms over each head's q and k"),
         "qk_norm": fixed(Derived(lambda v: "head" if v["use_qk_norm"] else "none", "use_qk_norm")),
         "n_routed_experts": Field(("n_routed_experts",), experts, doc=MOE["num_experts"].doc),
         # (two aliases of n_routed_experts: the one written last wins, families/attribute_maps.py)
         "num_experts_alias": Field(("num_experts", "num_local_experts"), _ABSENT, "any",
                                    doc="routed experts per MoE layer, under n_routed_experts' aliases (they win)"),
         "num_experts": _alias_count("num_experts_alias", "n_routed_experts"),
         "n_shared_field": Field(("n_shared_experts",), shared, minimum=0,
                                 doc="shared experts (always on)"),
         "num_shared_experts": alias("num_shared_experts", "shared experts, under n_shared_experts' alias (it wins)"),
         "n_shared_experts": _alias_count("num_shared_experts", "n_shared_field", minimum=0),
         "shared_intermediate_size": fixed(Derived(lambda v: v["moe_intermediate_size"] * (v["n_shared_experts"] or 0),
                                                   "moe_intermediate_size × n_shared_experts")),
         "moe_layers": fixed("first_k_dense"),
         "first_k_dense_replace": Field(("first_k_dense_replace",), 1, minimum=0)},
        rotary_share(1.0),
        heads=GLM4_MOE_HEADS,
        checks=(moe_aliases_checked(("num_experts_alias", "n_routed_experts"),
                                    ("num_shared_experts", "n_shared_field")),),
        fp32_modules_strict=("e_score_correction_bias", "gate.weight"))


# SarvamMLAConfig reads a legacy rope_scaling of type "deepseek_yarn" as YaRN (its __post_init__ converts it).
SARVAM_ROPE_TYPES = {**TEXT_ROPE_TYPES, "deepseek_yarn": TEXT_ROPE_TYPES["yarn"]}


def _sarvam_rope(spec) -> list[Problem]:
    """SarvamMLAConfig converts "deepseek_yarn" only from a rope_scaling's "type" or "rope_type"; under
    rope_parameters no rotary embedding is built from it."""
    params = spec.values.get("rope_parameters")
    scaling = spec.values.get("rope_scaling")
    if isinstance(scaling, dict) and scaling:
        return []
    if isinstance(params, dict) and params.get("rope_type", params.get("type")) == "deepseek_yarn":
        return [Problem("error", "LC103", '"rope_parameters": rope_type "deepseek_yarn" is read only from a legacy '
                                          "rope_scaling (SarvamMLAConfig converts it there): transformers cannot "
                                          "build the rotary embedding from it",
                        spec.key_span("rope_parameters") or spec.span)]
    return []


def _gpt_sw3() -> Family:
    """GPT-SW3: transformers maps gpt-sw3 to GPT2Config and GPT-2's classes: GPT-2's row under its own model_type."""
    gpt2 = next(f for f in DECODERS if f.model_type == "gpt2")
    return replace(gpt2, model_type="gpt-sw3")


FAMILIES: tuple[Family, ...] = (
    # EXAONE 3.0 / 3.5 (LG AI): LlamaForCausalLM under ExaoneConfig (its defaults; num_layers is its alias of
    # num_hidden_layers). Its Hub configs name the remote-code ExaoneForCausalLM, which transformers builds as Llama.
    decoder("exaone", "LlamaForCausalLM", d(pad_token_id=0), STRICT_HEADS,
            d(vocab_size=102400, intermediate_size=14336, num_kv_heads=8, max_positions=4096),
            aliases(num_layers=("num_hidden_layers", "num_layers")),
            nulls(num_kv_heads=KV_HEADS, head_dim="default"), heads=LLAMA_HEADS),
    # InternLM3: LlamaForCausalLM under InternLM3Config: a head width of 128, biases on every attention projection by
    # attention_bias (or its alias qkv_bias) and on the MLP by mlp_bias (or its alias bias), which it keeps equal.
    decoder("internlm3", "LlamaForCausalLM", d(pad_token_id=2), STRICT_HEADS,
            d(vocab_size=128512, intermediate_size=10240, num_layers=48, num_kv_heads=2, max_positions=32768),
            HEAD_DIM_128,
            {"attention_bias": Field(("attention_bias",), False, "bool", doc="biases on the attention projections"),
             "qkv_bias": alias("qkv_bias",
                               "biases on the attention projections, under attention_bias' alias (it wins)"),
             **{bias: aliased_bias("attention_bias", "qkv_bias") for bias in ("q_bias", "k_bias", "v_bias", "o_bias")},
             "mlp_bias_field": Field(("mlp_bias",), False, "bool", doc=BASE["mlp_bias"].doc),
             "bias": alias("bias", "biases on the MLP projections, under mlp_bias' alias (it wins)"),
             "mlp_bias": aliased_bias("mlp_bias_field", "bias")},
            nulls(num_kv_heads=KV_HEADS, head_dim=HEAD_DIM), heads=LLAMA_HEADS, checks=(_internlm3_biases,)),
    # IQuest-Coder: LlamaForCausalLM under IQuestCoderConfig (a head width of 128); it refuses clip_qkv and a sliding
    # window.
    decoder("iquestcoder", "LlamaForCausalLM", STRICT_HEADS,
            d(vocab_size=76800, hidden_size=5120, intermediate_size=27648, num_layers=80, num_heads=40, num_kv_heads=8,
              max_positions=131072),
            HEAD_DIM_128,
            {"clip_qkv": Field(("clip_qkv",), None, "any", doc="not supported: IQuestCoderConfig refuses any"),
             # (not "use_sliding_window": Qwen's switch, which the memory model reads, is not this class's)
             "use_sliding_window_refused": Field(("use_sliding_window",), False, "any",
                                                 doc="not supported: IQuestCoderConfig refuses a true one")},
            nulls(num_kv_heads=KV_HEADS, head_dim=HEAD_DIM), heads=LLAMA_HEADS, checks=(_iquestcoder_unsupported,)),
    # HyperCLOVA X SEED (Naver): Granite's layout (biases on every attention projection by attention_bias) with a
    # head_dim of its own, and by use_post_norm (true by default) an RMS norm after attention and after the MLP too.
    decoder("hyperclovax", "HyperCLOVAXForCausalLM", STRICT_HEADS,
            {"use_post_norm": Field(("use_post_norm",), True, "bool",
                                    doc="an RMS norm after attention and after the MLP (Peri-LN)"),
             "layer_norms": fixed(Derived(
                 lambda v: ("input_layernorm", "post_attention_layernorm")
                 + (("post_norm1", "post_norm2") if v["use_post_norm"] else ()), "use_post_norm"))},
            nulls(num_kv_heads="default", head_dim="default"),
            heads={"HyperCLOVAXForCausalLM": "causal_lm", "HyperCLOVAXModel": "base"}),
    # Param2-MoE (BharatGen): GLM-4-MoE's classes under Param2MoeConfig.
    _glm4_moe_like("param2moe", dict(vocab_size=128000, hidden_size=2048, intermediate_size=9216, num_layers=21,
                                     num_heads=32, num_kv_heads=8, max_positions=32768, tie_embeddings=True,
                                     moe_intermediate_size=2048, experts_per_token=6, num_experts=64,
                                     n_shared_experts=2)),
    # Sarvam-30B (Sarvam-MoE): GLM-4-MoE's classes under SarvamMoEConfig.
    _glm4_moe_like("sarvam_moe", dict(vocab_size=262144, intermediate_size=8192, num_layers=19, num_heads=64,
                                      num_kv_heads=4, max_positions=131072, moe_intermediate_size=1024,
                                      experts_per_token=6, num_experts=128, n_shared_experts=1)),
    # Sarvam-105B (Sarvam-MLA): DeepSeek-V3's classes under SarvamMLAConfig (a full q_proj by default: q_lora_rank
    # null; one dense layer). It drops a written head_dim and q_head_dim (the rotated width is qk_rope_head_dim) and
    # reads a rope_scaling of type "deepseek_yarn" as YaRN.
    decoder("sarvam_mla", "DeepseekV3ForCausalLM", FLOOR_HEADS,
            d(vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_layers=32, num_heads=64,
              max_positions=4096, experts_per_token=8, moe_intermediate_size=2048, first_k_dense_replace=1,
              q_lora_rank=None),
            MOE, DEEPSEEK,
            {"n_routed_experts": Field(("n_routed_experts",), 128, doc=MOE["num_experts"].doc),
             "num_experts_alias": Field(("num_local_experts", "num_experts"), _ABSENT, "any",
                                        doc="routed experts per MoE layer, under n_routed_experts' aliases (they win)"),
             "num_experts": _alias_count("num_experts_alias", "n_routed_experts"),
             "n_shared_field": Field(("n_shared_experts",), 1, minimum=0, doc="shared experts (always on)"),
             "num_shared_experts": alias("num_shared_experts",
                                         "shared experts, under n_shared_experts' alias (it wins)"),
             "n_shared_experts": _alias_count("num_shared_experts", "n_shared_field", minimum=0),
             "rope_head_dim": Field(("qk_rope_head_dim",), 64, doc=ROTATED_HEAD_DIM),
             # (dropped by SarvamMLAConfig, whatever they hold)
             "head_dim_dropped": Field(("head_dim",), None, "any", doc="not read (SarvamMLAConfig drops it)"),
             "q_head_dim": Field(("q_head_dim",), None, "any", doc="not read (SarvamMLAConfig drops it)"),
             "rope_types": fixed(SARVAM_ROPE_TYPES)},
            DEEPSEEK_NULLS,
            heads={"DeepseekV3ForCausalLM": "causal_lm", "DeepseekV3Model": "base"},
            checks=(moe_aliases_checked(("num_experts_alias", "n_routed_experts"),
                                        ("num_shared_experts", "n_shared_field")), _sarvam_rope),
            fp32_modules_strict=("e_score_correction_bias", "gate.weight")),
    _gpt_sw3(),
)
