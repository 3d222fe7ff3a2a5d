"""Random small configs per model_type, written as a config.json would be.

Sizes are small so that the transformers model builds in milliseconds; switches
and optional keys are drawn or left out, so defaults are exercised too.
"""

from __future__ import annotations

from typing import Callable

from hypothesis import strategies as st

from lsp_count.core.families import find_family

Draw = Callable


# Keys a family's config class has no usable default for (NemotronConfig's num_key_value_heads is None,
# which its attention divides by): the class defaults plus these are the smallest config it builds.
# MinistralConfig and the HunYuan configs keep head_dim None, which their attention cannot be built with.
REQUIRED_KEYS: dict[str, dict] = {"nemotron": {"num_key_value_heads": 8}, "ministral": {"head_dim": 128},
                                  "hunyuan_v1_dense": {"head_dim": 128}, "hunyuan_v1_moe": {"head_dim": 128},
                                  # Dots1Config keeps n_routed_experts and n_shared_experts None (dots.llm1's: 128, 2).
                                  "dots1": {"n_routed_experts": 128, "n_shared_experts": 2},
                                  # DbrxAttention reads attn_config.rope_theta, which DbrxAttentionConfig lacks.
                                  "dbrx": {"attn_config": {"rope_theta": 500000}}}


def _maybe(draw, key: str, value, cfg: dict, p_omit: bool | None = None) -> None:
    """Set cfg[key] = value, or leave it out (the class default then applies)."""
    omit = draw(st.booleans()) if p_omit is None else p_omit
    if not omit:
        cfg[key] = value


def name_sub_config(draw, sub: dict, kinds: list) -> None:
    """Name ``sub``, a composite's sub-config, as one of ``kinds``: a model_type the composite reads it under (its
    own, another family's, the composite's as old checkpoints write it), or None: no model_type at all (the
    composite's default then applies)."""
    kind = draw(st.sampled_from(kinds))
    if kind is None:
        sub.pop("model_type", None)
    else:
        sub["model_type"] = kind


def draw_architecture(draw, model_type: str, cfg: dict) -> None:
    """Any head class of the family transformers has, written as the config's architecture."""
    import transformers

    family = find_family(model_type)
    assert family is not None
    arch = draw(st.sampled_from(sorted(a for a in family.heads if hasattr(transformers, a))))
    cfg["architectures"] = [arch]
    if arch.endswith("Classification") and draw(st.booleans()):
        # Classifiers size their output from id2label; left out, the class default applies (BART: 3).
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}


def decoder_config(draw, model_type: str) -> dict:
    family = find_family(model_type)
    assert family is not None
    fields = family.fields
    heads = draw(st.sampled_from([1, 2, 4, 6]))
    kv = draw(st.sampled_from([k for k in (1, 2, 3, 4, 6) if heads % k == 0]))
    head_dim = draw(st.sampled_from([4, 8, 16]))
    cfg: dict = {"model_type": model_type, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
    explicit_head_dim = bool(fields["head_dim"].keys) if "head_dim" in fields else False
    if explicit_head_dim and draw(st.booleans()):
        if fields["heads_divide_hidden"].default:
            hidden = heads * draw(st.sampled_from([2, 4, 8]))
        else:
            hidden = draw(st.sampled_from([16, 24, 32, 48]))
        cfg["head_dim"] = head_dim
    else:
        hidden = heads * head_dim
        # Written or left out: some classes default head_dim to a fixed 128/256, others derive it
        # from hidden_size / heads (Arcee's default 80 is 2,560 / 32, not a constant).
        if explicit_head_dim and ("head_dim" in REQUIRED_KEYS.get(model_type, {}) or draw(st.booleans())):
            cfg["head_dim"] = hidden // heads
    arch_keys = {name: f.keys for name, f in fields.items()}
    k = lambda name: draw(st.sampled_from(arch_keys[name]))  # noqa: E731 - any alias the class accepts
    cfg[k("vocab_size")] = draw(st.integers(8, 300))
    cfg[k("hidden_size")] = hidden
    layers = draw(st.integers(1, 4))
    cfg[k("num_layers")] = layers
    if "num_heads" in fields:
        cfg[k("num_heads")] = heads
    if fields.get("num_kv_heads") and fields["num_kv_heads"].keys:
        # Left out half the time: some classes derive it from the head count, others fix it
        # (left out only where the fixed default makes a valid model).
        default = fields["num_kv_heads"].default
        can_omit = default is not None and (not isinstance(default, int) or heads % default == 0)
        _maybe(draw, "num_key_value_heads", kv, cfg, None if can_omit else False)
    if fields.get("intermediate_size") and fields["intermediate_size"].keys:
        cfg[fields["intermediate_size"].keys[0]] = draw(st.integers(4, 96))
    for name, f in fields.items():
        if f.kind == "bool" and f.keys:
            _maybe(draw, f.keys[0], draw(st.booleans()), cfg)
    if "max_positions" in fields and fields["max_positions"].keys:
        cfg[k("max_positions")] = draw(st.integers(16, 128))
    if fields.get("num_experts") and fields["num_experts"].keys:
        experts = draw(st.integers(1, 5))
        cfg[fields["num_experts"].keys[0]] = experts
        cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
        if "moe_topk" in fields and draw(st.booleans()):  # HunYuan-MoE: one top-k per layer (its gate's list)
            del cfg["num_experts_per_tok"]
            cfg["moe_topk"] = draw(st.lists(st.integers(1, experts), min_size=layers, max_size=layers + 1))
        cfg["moe_intermediate_size"] = draw(st.integers(4, 48))
        if "shared_intermediate_size" in fields and fields["shared_intermediate_size"].keys:
            cfg["shared_expert_intermediate_size"] = draw(st.integers(4, 48))
        if "decoder_sparse_step" in fields:
            cfg["decoder_sparse_step"] = draw(st.integers(1, 3))
            cfg["mlp_only_layers"] = draw(st.lists(st.integers(0, 3), max_size=2, unique=True))
        if "first_k_dense_replace" in fields:
            cfg["first_k_dense_replace"] = draw(st.integers(0, 3))
            cfg["n_shared_experts"] = draw(st.sampled_from([1, 2]))
    if "kv_lora_rank" in fields:
        cfg["q_lora_rank"] = draw(st.sampled_from([None, 8, 12]))
        cfg["kv_lora_rank"] = draw(st.sampled_from([4, 8]))
        cfg["qk_nope_head_dim"] = draw(st.sampled_from([4, 8]))
        cfg["qk_rope_head_dim"] = draw(st.sampled_from([2, 4]))
        cfg["v_head_dim"] = draw(st.sampled_from([4, 8]))
        cfg["num_key_value_heads"] = heads
    if model_type == "falcon":
        new = draw(st.booleans())
        cfg["new_decoder_architecture"] = new
        _maybe(draw, "num_kv_heads", kv, cfg)
        _maybe(draw, "num_ln_in_parallel_attn", draw(st.sampled_from([None, 1, 2])), cfg)
        cfg.pop("num_key_value_heads", None)
        _maybe(draw, "ffn_hidden_size", draw(st.integers(4, 96)), cfg)
    if model_type == "opt":
        _maybe(draw, "word_embed_proj_dim", draw(st.sampled_from([hidden, 8, 12])), cfg)
    if model_type in ("gpt2", "gptj"):
        cfg["n_inner"] = draw(st.sampled_from([None, 8, 40]))
    if model_type == "mamba":
        cfg["state_size"] = draw(st.integers(1, 8))
        cfg["expand"] = draw(st.integers(1, 3))
        _maybe(draw, "intermediate_size", draw(st.integers(4, 64)), cfg)
        cfg["conv_kernel"] = draw(st.integers(1, 4))
        cfg["time_step_rank"] = draw(st.sampled_from(["auto", 2, 5]))
        cfg.pop("num_attention_heads", None)
    import transformers

    arch = draw(st.sampled_from([a for a in family.heads if hasattr(transformers, a)]))
    cfg["architectures"] = [arch]
    if arch.endswith("ForSequenceClassification"):
        cfg["num_labels"] = draw(st.integers(1, 5))
        cfg.pop("num_labels")  # num_labels is not a config.json key; id2label is
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}
    return cfg


def mamba2_config(draw) -> dict:
    """Mamba-2: num_heads × head_dim must equal expand × hidden_size (Mamba2Config refuses others); n_groups
    need not divide the heads (the model builds either way); switches and time_step_rank drawn or left out."""
    hidden = draw(st.sampled_from([4, 6, 8, 12, 16]))
    expand = draw(st.integers(1, 3))
    inner = hidden * expand
    head_dim = draw(st.sampled_from([d for d in range(1, inner + 1) if inner % d == 0]))
    cfg: dict = {"model_type": "mamba2", "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
                 "vocab_size": draw(st.integers(8, 300)), "hidden_size": hidden, "expand": expand,
                 "num_heads": inner // head_dim, "head_dim": head_dim, "num_hidden_layers": draw(st.integers(1, 4)),
                 "state_size": draw(st.integers(1, 8)), "n_groups": draw(st.integers(1, 4)),
                 "conv_kernel": draw(st.integers(1, 4))}
    _maybe(draw, "time_step_rank", draw(st.sampled_from(["auto", 2, 5])), cfg)
    for key in ("use_bias", "use_conv_bias", "tie_word_embeddings"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    cfg["architectures"] = [draw(st.sampled_from(["Mamba2ForCausalLM", "Mamba2Model"]))]
    return cfg


def gpt_neo_config(draw) -> dict:
    """GPT-Neo: attention_types must expand to one entry per layer (GPTNeoConfig refuses others)."""
    cfg = decoder_config(draw, "gpt_neo")
    layers = cfg.get("num_layers", cfg.get("num_hidden_layers"))
    kinds = draw(st.lists(st.sampled_from(["global", "local"]), min_size=layers, max_size=layers))
    cfg["attention_types"] = [[[kind], 1] for kind in kinds]
    return cfg


def glm4_moe_lite_config(draw) -> dict:
    """GLM-4-MoE-Lite: mlp_layer_types drawn (one entry per layer, at least one "sparse") or left to the default
    (dense, then sparse) where that has a MoE layer. (With none, the class builds whatever num_local_experts says,
    a null or a float: lsp-count refuses those.)"""
    cfg = decoder_config(draw, "glm4_moe_lite")
    layers = cfg.get("num_hidden_layers")
    if layers == 1 or draw(st.booleans()):
        kinds = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers + 1))
        cfg["mlp_layer_types"] = kinds if "sparse" in kinds[:layers] else ["sparse"] + kinds[1:]
    cfg.pop("first_k_dense_replace", None)  # not its key
    return cfg


def ernie4_5_moe_config(draw) -> dict:
    """ERNIE 4.5 MoE: experts under moe_num_experts or its alias num_experts (which wins), top-k under moe_k or
    num_experts_per_tok, shared experts, and the MoE layers' interval and index range drawn or left out."""
    cfg = decoder_config(draw, "ernie4_5_moe")
    layers = cfg["num_hidden_layers"]
    experts = draw(st.integers(1, 5))
    cfg[draw(st.sampled_from(["moe_num_experts", "num_experts"]))] = experts
    cfg[draw(st.sampled_from(["moe_k", "num_experts_per_tok"]))] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "moe_num_shared_experts", draw(st.integers(0, 2)), cfg)
    _maybe(draw, "moe_layer_interval", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "moe_layer_start_index", draw(st.integers(0, layers)), cfg)
    _maybe(draw, "moe_layer_end_index", draw(st.sampled_from([-1, *range(layers)])), cfg)
    return cfg


def dbrx_config(draw) -> dict:
    """DBRX: its sizes under d_model / n_heads / n_layers (or their attribute_map aliases), kv_n_heads and the
    required rope_theta in attn_config, the experts' sizes in ffn_config (each drawn or left out); no tied head."""
    cfg = decoder_config(draw, "dbrx")
    heads = cfg.get("n_heads", cfg.get("num_attention_heads"))
    attn = {"rope_theta": 10000.0}
    _maybe(draw, "kv_n_heads", draw(st.sampled_from([k for k in (1, 2, 3, 4, 6) if heads % k == 0])), attn)
    cfg["attn_config"] = attn
    experts = draw(st.integers(1, 5))
    ffn: dict = {}
    _maybe(draw, "ffn_hidden_size", draw(st.integers(4, 48)), ffn)
    _maybe(draw, "moe_num_experts", experts, ffn)
    _maybe(draw, "moe_top_k", draw(st.integers(1, min(experts, 4))), ffn)
    _maybe(draw, "ffn_config", ffn, cfg)
    cfg["tie_word_embeddings"] = False
    return cfg


def deepseek_v32_config(draw, model_type: str = "deepseek_v32") -> dict:
    """DeepSeek-V3.2 (and GLM-MoE-DSA): always a low-rank query (DeepseekV32Config takes no null q_lora_rank), a
    small indexer, and mlp_layer_types drawn or derived from first_k_dense_replace."""
    cfg = decoder_config(draw, model_type)
    if cfg.get("q_lora_rank") is None:
        cfg["q_lora_rank"] = draw(st.sampled_from([8, 12]))
    _maybe(draw, "index_n_heads", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "index_head_dim", draw(st.sampled_from([4, 8])), cfg)
    layers = cfg["num_hidden_layers"]
    if cfg["first_k_dense_replace"] >= layers or draw(st.booleans()):
        # (at least one MoE layer: with none, the class builds whatever num_local_experts says, a float too)
        kinds = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
        cfg["mlp_layer_types"] = kinds if "sparse" in kinds else ["sparse"] + kinds[1:]
    if draw(st.booleans()):  # the experts under the legacy num_experts, or n_routed_experts
        cfg[draw(st.sampled_from(["num_experts", "n_routed_experts"]))] = cfg.pop("num_local_experts")
    return cfg


def glm_moe_dsa_config(draw) -> dict:
    """GLM-MoE-DSA: DeepSeek-V3.2's draws, and which layers run the indexer (dsa_schedule)."""
    return dsa_schedule(draw, deepseek_v32_config(draw, "glm_moe_dsa"))


def dsa_schedule(draw, cfg: dict) -> dict:
    """Which layers run the indexer (GlmMoeDsaConfig's and MistralLarge4TextConfig's keys): indexer_types, an
    index_topk_pattern of F and S (or a list), or index_topk_freq and index_skip_topk_offset, each drawn or left out."""
    layers = cfg["num_hidden_layers"]
    kinds = draw(st.lists(st.sampled_from(["full", "shared"]), min_size=layers, max_size=layers + 1))
    schedule = draw(st.sampled_from(["types", "pattern", "pattern_list", "freq", "none"]))
    if schedule == "types":
        cfg["indexer_types"] = kinds
    elif schedule == "pattern":
        cfg["index_topk_pattern"] = "".join("F" if k == "full" else "S" for k in kinds)
    elif schedule == "pattern_list":
        cfg["index_topk_pattern"] = kinds
    elif schedule == "freq":
        _maybe(draw, "index_topk_freq", draw(st.integers(-1, 4)), cfg)
        _maybe(draw, "index_skip_topk_offset", draw(st.integers(-2, 4)), cfg)
    return cfg


def deepseek_v4_config(draw) -> dict:
    """DeepSeek-V4: the attention layer types drawn (layer_types or the legacy compress_ratios, as many as the layers
    or one more) or derived, the windows (compress_rates, or the legacy compress_rate_csa / _hca), the grouped output
    projection, the indexer, the hyper-connections' streams and the hash-routed layers, each drawn or left out."""
    cfg = decoder_config(draw, "deepseek_v4")
    layers = cfg["num_hidden_layers"]
    types = ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"]
    kinds = draw(st.lists(st.sampled_from(types), min_size=layers, max_size=layers + 1))
    schedule = draw(st.sampled_from(["types", "ratios", "none"]))
    if schedule == "types":
        cfg["layer_types"] = kinds
    elif schedule == "ratios":
        cfg["compress_ratios"] = [{types[0]: 0, types[1]: 4, types[2]: 128}[k] for k in kinds]
    rates = {types[1]: draw(st.integers(0, 6)), types[2]: draw(st.integers(0, 9))}
    how = draw(st.sampled_from(["dict", "legacy", "none"]))
    if how == "dict":
        cfg["compress_rates"] = rates
    elif how == "legacy":
        _maybe(draw, "compress_rate_csa", rates[types[1]], cfg)
        _maybe(draw, "compress_rate_hca", rates[types[2]], cfg)
    cfg["q_lora_rank"] = draw(st.integers(1, 12))
    cfg["o_groups"] = draw(st.integers(1, 4))
    _maybe(draw, "o_lora_rank", draw(st.integers(0, 8)), cfg)
    cfg["index_n_heads"] = draw(st.integers(1, 4))
    cfg["index_head_dim"] = draw(st.sampled_from([2, 4, 8]))
    _maybe(draw, "hc_mult", draw(st.integers(0, 4)), cfg)
    cfg["sliding_window"] = draw(st.integers(1, 16))
    _maybe(draw, "num_hash_layers", draw(st.integers(0, layers)), cfg)
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["hash_moe", "moe"]), min_size=layers, max_size=layers))
    return cfg


def llama4_text_config(draw) -> dict:
    """Llama 4 text: the dense width under intermediate_size_mlp, the experts' (and shared expert's) under
    intermediate_size; MoE layers by moe_layers or interleave_moe_layer_step, NoPE layers by no_rope_layers or
    no_rope_layer_interval, and the attention chunk, each drawn or left out."""
    cfg = decoder_config(draw, "llama4_text")
    layers = cfg["num_hidden_layers"]
    cfg.pop("moe_intermediate_size", None)  # not its key
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "interleave_moe_layer_step", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "moe_layers", draw(st.lists(st.integers(0, layers), max_size=3, unique=True)), cfg)
    _maybe(draw, "no_rope_layer_interval", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "no_rope_layers", draw(st.lists(st.integers(0, 1), min_size=layers, max_size=layers)), cfg)
    _maybe(draw, "attention_chunk_size", draw(st.sampled_from([None, 4, 16])), cfg)
    return cfg


def jetmoe_config(draw) -> dict:
    """JetMoE: the head width under kv_channels or its alias head_dim, any hidden_size, experts and top-k for both
    mixtures; num_attention_heads (which JetMoeConfig derives, and a written one replaces) drawn or left out."""
    import transformers

    experts = draw(st.integers(1, 5))
    cfg: dict = {"model_type": "jetmoe", "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
                 "vocab_size": draw(st.integers(8, 300)), "hidden_size": draw(st.sampled_from([8, 12, 16, 24])),
                 "num_hidden_layers": draw(st.integers(1, 4)), "intermediate_size": draw(st.integers(4, 48)),
                 "num_local_experts": experts, "num_experts_per_tok": draw(st.integers(1, experts)),
                 "max_position_embeddings": draw(st.integers(16, 128))}
    _maybe(draw, "num_key_value_heads", draw(st.integers(1, 4)), cfg)
    _maybe(draw, draw(st.sampled_from(["kv_channels", "head_dim"])), draw(st.sampled_from([4, 8, 16])), cfg)
    _maybe(draw, "num_attention_heads", draw(st.integers(1, 6)), cfg)
    _maybe(draw, "tie_word_embeddings", draw(st.booleans()), cfg)
    arch = draw(st.sampled_from([a for a in find_family("jetmoe").heads if hasattr(transformers, a)]))
    cfg["architectures"] = [arch]
    if arch.endswith("ForSequenceClassification"):
        cfg["id2label"] = {str(i): f"L{i}" for i in range(draw(st.integers(1, 5)))}
    return cfg


def diffllama_config(draw) -> dict:
    """DiffLlama: an even num_key_value_heads (DiffLlamaAttention refuses an odd one), written or, where the head
    count is even, left out (it is then the head count)."""
    cfg = decoder_config(draw, "diffllama")
    heads = cfg["num_attention_heads"]
    evens = [k for k in (2, 4, 6) if heads % k == 0]
    if "num_key_value_heads" in cfg or heads % 2:
        if not evens:  # a single query head: two instead (as wide each, where the heads set the width)
            cfg["num_attention_heads"] = 2 * heads
            if "head_dim" not in cfg:
                cfg["hidden_size"] *= 2
            evens = [2]
        cfg["num_key_value_heads"] = draw(st.sampled_from(evens))
    return cfg


def exaone_moe_config(draw) -> dict:
    """EXAONE MoE: shared experts, and mlp_layer_types drawn (as many as the layers, at least one "sparse") or derived
    from first_k_dense_replace where that leaves a MoE layer; layer_types drawn or derived from the window pattern."""
    cfg = decoder_config(draw, "exaone_moe")
    layers = cfg["num_hidden_layers"]
    cfg.pop("n_shared_experts", None)  # not its key
    _maybe(draw, "num_shared_experts", draw(st.integers(0, 2)), cfg)
    if cfg["first_k_dense_replace"] >= layers or draw(st.booleans()):
        kinds = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
        cfg["mlp_layer_types"] = kinds if "sparse" in kinds else ["sparse"] + kinds[1:]
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    else:
        _maybe(draw, "sliding_window_pattern", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(2, 64)), cfg)
    return cfg


def afmoe_config(draw) -> dict:
    """AFMoE: dense layers first (num_dense_layers), shared experts, the head width, and layer_types drawn or
    derived from global_attn_every_n_layers, each drawn or left out."""
    cfg = decoder_config(draw, "afmoe")
    layers = cfg["num_hidden_layers"]
    for key in ("first_k_dense_replace", "n_shared_experts"):  # not its keys
        cfg.pop(key, None)
    _maybe(draw, "num_dense_layers", draw(st.integers(0, layers)), cfg)
    _maybe(draw, "num_shared_experts", draw(st.integers(0, 2)), cfg)
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    else:
        _maybe(draw, "global_attn_every_n_layers", draw(st.integers(1, 4)), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(2, 64)), cfg)
    return cfg


def cohere2_moe_config(draw) -> dict:
    """Cohere 2 MoE: the experts' width under intermediate_size, the dense layers' under
    prefix_dense_intermediate_size; shared experts, first_k_dense_replace, mlp_layer_types (as many as the layers),
    and layer_types or the two window patterns, each drawn or left out."""
    cfg = decoder_config(draw, "cohere2_moe")
    layers = cfg["num_hidden_layers"]
    for key in ("moe_intermediate_size", "first_k_dense_replace", "n_shared_experts"):  # not its keys
        cfg.pop(key, None)
    cfg["intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "prefix_dense_intermediate_size", draw(st.integers(4, 48)), cfg)
    _maybe(draw, "num_shared_experts", draw(st.integers(0, 2)), cfg)
    _maybe(draw, "first_k_dense_replace", draw(st.integers(0, layers)), cfg)
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    else:
        _maybe(draw, "sliding_window_pattern", draw(st.integers(1, 4)), cfg)
        _maybe(draw, "prefix_dense_sliding_window_pattern", draw(st.integers(1, 3)), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(2, 64)), cfg)
    return cfg


def doge_config(draw) -> dict:
    """Doge: the cross-domain MoE's experts and top-k (read with is_moe only), and a sliding window, each drawn or
    left out."""
    cfg = decoder_config(draw, "doge")
    _maybe(draw, "num_experts", draw(st.integers(0, 20)), cfg)
    _maybe(draw, "num_experts_per_tok", draw(st.integers(0, 4)), cfg)
    _maybe(draw, "sliding_window", draw(st.sampled_from([None, 4, 16])), cfg)
    return cfg


def longcat_flash_config(draw) -> dict:
    """LongCat-Flash: its layers as num_layers or as num_hidden_layers (two attention sublayers a layer; written,
    it wins), always a low-rank query, zero experts, the MoE sizes under their own keys or their attribute_map
    aliases, and a qk_head_dim drawn or derived."""
    heads = draw(st.sampled_from([1, 2, 4]))
    cfg: dict = {"model_type": "longcat_flash", "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
                 "vocab_size": draw(st.integers(8, 300)), "hidden_size": heads * draw(st.sampled_from([4, 8])),
                 "num_attention_heads": heads}
    if draw(st.booleans()):
        cfg["num_layers"] = draw(st.integers(1, 3))
    if draw(st.booleans()) or "num_layers" not in cfg:
        cfg["num_hidden_layers"] = draw(st.integers(2, 6))
    experts = draw(st.integers(1, 5))
    cfg[draw(st.sampled_from(["n_routed_experts", "num_local_experts"]))] = experts
    cfg["zero_expert_num"] = draw(st.integers(0, 3))
    cfg[draw(st.sampled_from(["moe_topk", "num_experts_per_tok"]))] = draw(st.integers(1, experts))
    cfg[draw(st.sampled_from(["ffn_hidden_size", "intermediate_size"]))] = draw(st.integers(4, 48))
    cfg[draw(st.sampled_from(["expert_ffn_hidden_size", "moe_intermediate_size"]))] = draw(st.integers(4, 24))
    cfg["q_lora_rank"] = draw(st.sampled_from([8, 12]))
    cfg["kv_lora_rank"] = draw(st.sampled_from([4, 8]))
    cfg["qk_nope_head_dim"] = draw(st.sampled_from([4, 8]))
    cfg["qk_rope_head_dim"] = draw(st.sampled_from([2, 4]))
    cfg["v_head_dim"] = draw(st.sampled_from([4, 8]))
    _maybe(draw, "qk_head_dim", draw(st.sampled_from([None, 6, 12])), cfg)
    _maybe(draw, "head_dim", draw(st.sampled_from([4, 8])), cfg)
    for key in ("attention_bias", "router_bias", "tie_word_embeddings"):
        _maybe(draw, key, draw(st.booleans()), cfg)
    cfg["max_position_embeddings"] = draw(st.integers(16, 128))
    draw_architecture(draw, "longcat_flash", cfg)
    return cfg


def mimo_v2_flash_config(draw) -> dict:
    """MiMo-V2-Flash: at least one MoE layer (with none, the class builds whatever num_local_experts says, a null
    or a float too), its sliding layers' window drawn or left out."""
    cfg = decoder_config(draw, "mimo_v2_flash")
    cfg["num_hidden_layers"] = max(cfg["num_hidden_layers"], 2)
    _maybe(draw, "v_head_dim", draw(st.sampled_from([4, 8, 12])), cfg)
    _maybe(draw, "sliding_window", draw(st.integers(1, 16)), cfg)
    return cfg


def cwm_config(draw) -> dict:
    """CWM: layer_types (as many as the layers) drawn or derived (the first of every four full), the window drawn
    or left out."""
    cfg = decoder_config(draw, "cwm")
    layers = cfg["num_hidden_layers"]
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    _maybe(draw, "sliding_window", draw(st.sampled_from([4, 64])), cfg)
    return cfg


def mellum_config(draw) -> dict:
    """Mellum: experts under num_experts or its alias num_local_experts; layer_types and mlp_layer_types (as many as
    the layers) drawn or left to their defaults (full attention, experts in every layer), the window drawn or left
    out."""
    cfg = decoder_config(draw, "mellum")
    layers = cfg["num_hidden_layers"]
    experts = cfg.pop("num_experts")
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
    if draw(st.booleans()):
        cfg["layer_types"] = draw(st.lists(st.sampled_from(["sliding_attention", "full_attention"]),
                                           min_size=layers, max_size=layers))
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers, max_size=layers))
    _maybe(draw, "sliding_window", draw(st.sampled_from([None, 4, 64])), cfg)
    return cfg


def hy_v3_config(draw) -> dict:
    """Hy3: experts under num_experts or its alias num_local_experts, shared experts (0: one intermediate_size wide),
    and mlp_layer_types (at least as many as the layers) drawn or left to the default (dense, then sparse)."""
    cfg = decoder_config(draw, "hy_v3")
    layers = cfg["num_hidden_layers"]
    experts = draw(st.integers(1, 5))
    cfg[draw(st.sampled_from(["num_experts", "num_local_experts"]))] = experts
    cfg["num_experts_per_tok"] = draw(st.integers(1, experts))
    cfg["moe_intermediate_size"] = draw(st.integers(4, 48))
    _maybe(draw, "num_shared_experts", draw(st.integers(0, 2)), cfg)
    if draw(st.booleans()):
        cfg["mlp_layer_types"] = draw(st.lists(st.sampled_from(["dense", "sparse"]), min_size=layers,
                                               max_size=layers + 1))
    return cfg


# model_type -> drawer(draw) -> config dict. Other family modules' strategies register here too.
STRATEGIES: dict[str, Callable] = {"mamba2": mamba2_config, "gpt_neo": gpt_neo_config,
                                   "glm4_moe_lite": glm4_moe_lite_config, "ernie4_5_moe": ernie4_5_moe_config,
                                   "dbrx": dbrx_config, "deepseek_v32": deepseek_v32_config,
                                   "glm_moe_dsa": glm_moe_dsa_config, "deepseek_v4": deepseek_v4_config,
                                   "llama4_text": llama4_text_config, "jetmoe": jetmoe_config,
                                   "diffllama": diffllama_config, "exaone_moe": exaone_moe_config,
                                   "afmoe": afmoe_config, "cohere2_moe": cohere2_moe_config,
                                   "doge": doge_config, "longcat_flash": longcat_flash_config,
                                   "mimo_v2_flash": mimo_v2_flash_config, "cwm": cwm_config,
                                   "mellum": mellum_config, "hy_v3": hy_v3_config}


def strategy_for(model_type: str):
    drawer = STRATEGIES.get(model_type)
    family = find_family(model_type)
    if drawer is None and family is not None and family.layout in ("decoder", "mamba"):
        return st.composite(lambda draw: decoder_config(draw, model_type))()
    if drawer is None:
        return None
    return st.composite(drawer)()


def _load_family_strategies() -> None:
    """Each family module's strategies live in strategies_<group>.py and fill STRATEGIES."""
    import importlib
    import pathlib

    here = pathlib.Path(__file__).parent
    for path in sorted(here.glob("strategies_*.py")):
        importlib.import_module(f"{__package__}.{path.stem}")


_load_family_strategies()
