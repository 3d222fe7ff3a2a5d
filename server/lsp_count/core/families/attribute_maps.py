"""The keys a family field reads that its config class takes as keyword arguments beside its dataclass fields
(an ``attribute_map`` alias, or the attribute an alias names where that is not a field): GPT-2's ``hidden_size``
beside its field ``n_embd``, Qwen3-MoE's ``num_local_experts`` beside its field ``num_experts``. transformers sets
such keys after the class's fields, so where a config writes a field's name and such a key, the key wins whatever
their order in the file, and of two such keys the one written last (spec.resolve_values).

Data copied from transformers 5.25's config classes, and checked against them:
``tests/parity/test_config_alias_parity.py`` compares this table with each class's attribute_map and counts configs
that write both spellings with different values. A new family whose field reads an alias needs its entry here.
"""

from __future__ import annotations

KEYS_SET_AFTER_FIELDS: dict[str, tuple[str, ...]] = {
    "bailing_hybrid": ("model_max_length", "num_experts", "num_experts_per_token", "num_shared_experts",
                       "swiglu_limits", "swiglu_limits_shared"),
    "bart": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "blenderbot": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "blenderbot-small": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "bloom": ("num_attention_heads", "num_hidden_layers"),
    "codegen": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "ctrl": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "dbrx": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "deepseek_v2": ("num_experts",),
    "deepseek_v3": ("num_local_experts",),
    "deepseek_v32": ("num_local_experts",),
    "deepseek_v4": ("intermediate_size", "num_local_experts"),
    "distilbert": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "dots1": ("num_local_experts",),
    "ernie4_5_moe": ("num_experts_per_tok", "num_nextn_predict_layers"),
    "flex_olmo": ("num_local_experts",),
    "glm4_moe_lite": ("head_dim", "num_local_experts"),
    "glm4v_moe_text": ("num_local_experts",),
    "glm4v_moe_vision": ("num_attention_heads", "num_hidden_layers"),
    "glm4v_vision": ("num_attention_heads", "num_hidden_layers"),
    "glm_moe_dsa": ("num_local_experts",),
    "gpt2": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "gpt_bigcode": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "gpt_neo": ("num_attention_heads", "num_hidden_layers"),
    "gptj": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "granitemoehybrid": ("layers_block_type",),
    "hunyuan_v1_moe": ("num_experts_per_tok", "num_local_experts"),
    "jamba": ("num_local_experts",),
    "jetmoe": ("head_dim",),
    "kimi_linear": ("model_max_length", "num_experts", "num_experts_per_token", "num_shared_experts"),
    "longcat_flash": ("intermediate_size", "moe_intermediate_size", "num_experts_per_tok", "num_local_experts"),
    "marian": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "mbart": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "mellum": ("num_local_experts", "num_nextn_predict_layers"),
    "mimo_v2_flash": ("num_local_experts",),
    "minimax_m2": ("num_experts",),
    "mistral4": ("num_local_experts",),
    "mixtral": ("num_experts",),
    "mllama_vision_model": ("num_attention_heads",),
    "mpt": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "mt5": ("head_dim", "hidden_size", "num_attention_heads", "num_hidden_layers"),
    "mvp": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "nemotron_h": ("layer_types", "num_local_experts"),
    "openai-gpt": ("hidden_size", "max_position_embeddings", "num_attention_heads", "num_hidden_layers"),
    "pegasus": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "plbart": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "qwen2_5_vl_vision": ("num_attention_heads", "num_hidden_layers"),
    "qwen2_vl_vision": ("num_attention_heads", "num_hidden_layers"),
    "qwen3_5_moe_vision": ("num_attention_heads", "num_hidden_layers"),
    "qwen3_5_vision": ("num_attention_heads", "num_hidden_layers"),
    "qwen3_moe": ("num_local_experts",),
    "qwen3_vl_moe_text": ("num_local_experts",),
    "qwen3_vl_moe_vision": ("num_attention_heads", "num_hidden_layers"),
    "qwen3_vl_vision": ("num_attention_heads", "num_hidden_layers"),
    "recurrent_gemma": ("layer_types", "layers_block_type"),
    "solar_open": ("num_local_experts",),
    "switch_transformers": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "t5": ("head_dim", "hidden_size", "num_attention_heads", "num_hidden_layers"),
    "umt5": ("head_dim", "hidden_size", "num_attention_heads", "num_hidden_layers"),
    "vipllava": ("vision_feature_layers",),
    "whisper": ("hidden_size", "num_attention_heads", "num_hidden_layers", "num_key_value_heads"),
    "xglm": ("hidden_size", "num_attention_heads", "num_hidden_layers"),
    "zamba2": ("attention_head_dim", "head_dim"),
}
