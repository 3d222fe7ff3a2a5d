"""GLM-MoE-DSA (GLM-5) and DeepSeek-V4, without torch: small configs counted by hand (the arithmetic in each test),
their class defaults as transformers 5.25 builds them on the meta device (``sum(p.numel() for p in
model.parameters())``, taken there once), what their caches hold (GLM-MoE-DSA: an indexer key only in the layers with
an indexer; DeepSeek-V4: a sliding window and its compressors' state; each total taken once from transformers'
cache after a forward pass of the model as transformers loads it in bfloat16), and the configs their classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.layouts.decoder import layer_indices
from lsp_count.core.memory import Settings, estimate_memory

from config_models import analyze, model as count

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("glm_moe_dsa", "GlmMoeDsaForCausalLM"): 743_911_199_232,
    ("glm_moe_dsa", "GlmMoeDsaModel"): 742_959_616_512,
    ("deepseek_v4", "DeepseekV4ForCausalLM"): 284_325_869_015,
    ("deepseek_v4", "DeepseekV4Model"): 283_796_338_135,
}


def problems(config: dict, severity: str) -> list[str]:
    return [p.message for p in analyze(config).problems if p.severity == severity]


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# hidden 8, 2 heads, 3 layers (the first dense), 2 experts of 4 wide (top 1) and one shared, an indexer of 2 heads 4 wide.
GLM = {"model_type": "glm_moe_dsa", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
       "num_attention_heads": 2, "num_key_value_heads": 2, "intermediate_size": 12, "q_lora_rank": 4,
       "kv_lora_rank": 4, "qk_nope_head_dim": 2, "qk_rope_head_dim": 2, "v_head_dim": 2, "index_n_heads": 2,
       "index_head_dim": 4, "n_routed_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 4,
       "n_shared_experts": 1, "first_k_dense_replace": 1}
# q_a 8·4, q_a_layernorm 4, q_b 4·(2·(2 + 2)), kv_a_proj_with_mqa 8·(4 + 2), kv_a_layernorm 4, kv_b 4·(2·(2 + 2)), o 4·8
MLA = 32 + 4 + 32 + 48 + 4 + 32 + 32
# the indexer: wq_b 4·(2·4), wk 8·4, k_norm (a LayerNorm) 2·4, weights_proj 8·2
INDEXER = 32 + 32 + 8 + 16
DENSE = 3 * 8 * 12  # gate, up, down
EXPERT = 3 * 8 * 4
MOE = 2 * 8 + 2 * EXPERT + EXPERT  # the router, 2 experts, the shared expert
NORMS = 2 * 8
EDGES = 10 * 8 + 8 + 8 * 10  # embed_tokens, the final norm, lm_head


def test_glm_moe_dsa_by_hand_every_layer_with_its_indexer() -> None:
    # (index_topk_freq 1, the default: every layer runs its own indexer)
    model = count(GLM)
    layers = (MLA + INDEXER + DENSE + NORMS) + 2 * (MLA + INDEXER + MOE + NORMS)
    assert model.tree.total == EDGES + layers == 1_928
    assert model.tree.active == model.tree.total - 2 * EXPERT  # one of the two experts a token, in 2 MoE layers
    # per token and layer the cache holds the latent (4 + 2) and the indexer's key (4), in bfloat16
    assert estimate_memory(model, Settings(context=100, batch=1)).line("kv_cache").bytes == 3 * (6 + 4) * 2 * 100
    assert layer_indices(model.spec) == {"dense_layers": (0,), "moe_layers": (1, 2)}


def test_glm_moe_dsa_shared_layers_have_no_indexer_and_cache_no_indexer_key() -> None:
    model = count({**GLM, "indexer_types": ["full", "shared", "full"]})
    # layer 1 (a MoE layer) reuses layer 0's top-k: no indexer of its own
    assert model.tree.total == 1_928 - INDEXER == 1_840
    # its cache holds the latent alone: 3 layers × 6 + 2 layers × 4 values per token, in bfloat16, for 2 × 50 tokens
    assert estimate_memory(model, Settings(context=50, batch=2)).line("kv_cache").bytes == (3 * 6 + 2 * 4) * 2 * 100
    assert layer_indices(model.spec) == {"dense_layers": (0,), "moe_layers": (2,), "moe_layers_no_indexer": (1,)}


def test_glm_moe_dsa_indexer_schedules_its_config_class_derives() -> None:
    # index_topk_freq 2 from index_skip_topk_offset 1: layer i runs the indexer where max(i - 1 + 1, 0) % 2 == 0,
    # layers 0 and 2; index_topk_pattern "FSS": layer 0 only
    assert count({**GLM, "index_topk_freq": 2, "index_skip_topk_offset": 1}).tree.total == 1_928 - INDEXER
    assert count({**GLM, "index_topk_pattern": "FSS"}).tree.total == 1_928 - 2 * INDEXER
    # the default offset (2) with freq 3: layers 0 and 1 (max(i - 1, 0) is 0), not layer 2
    assert count({**GLM, "index_topk_freq": 3}).tree.total == 1_928 - INDEXER
    # num_experts (a legacy key the class copies into n_routed_experts) wins over n_routed_experts
    assert count({**GLM, "num_experts": 3}).tree.total == 1_928 + 2 * (8 + EXPERT)


def test_glm_moe_dsa_configs_its_class_refuses() -> None:
    assert any('"index_topk_pattern": "X" is neither' in e for e in problems({**GLM, "index_topk_pattern": "FSX"}, "error"))
    assert any('"index_topk_freq": null' in e for e in problems({**GLM, "index_topk_freq": None}, "error"))
    assert any('"indexer_types": 2 entries for 3 layers' in e
               for e in problems({**GLM, "indexer_types": ["full", "full"]}, "error"))
    assert any('"index_topk_pattern": 2 entries for 3 layers' in e
               for e in problems({**GLM, "index_topk_pattern": "FS"}, "error"))
    # built (and counted), but the forward pass fails: the first layer has no top-k to reuse
    config = {**GLM, "indexer_types": ["shared", "full", "full"]}
    assert count(config).tree.total == 1_928 - INDEXER
    assert any("its forward pass fails" in w for w in problems(config, "warning"))


# hidden 8, 2 heads 8 wide, a query rank 4, 2 output groups of rank 3, 2 experts of 4 wide (top 1), 2 streams, a window
# of 4; layer 0 sliding, layer 1 CSA (a window of 2 tokens), layer 2 HCA (3 tokens).
V4 = {"model_type": "deepseek_v4", "vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3, "num_attention_heads": 2,
      "head_dim": 8, "q_lora_rank": 4, "n_routed_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 4,
      "o_groups": 2, "o_lora_rank": 3, "index_n_heads": 2, "index_head_dim": 4, "sliding_window": 4, "hc_mult": 2,
      "layer_types": ["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
      "compress_rates": {"compressed_sparse_attention": 2, "heavily_compressed_attention": 3}}
# q_a 8·4, q_a_norm 4, q_b 4·(2·8), kv_proj 8·8, kv_norm 8, o_a (2·3)·(2·8 / 2), o_b (2·3)·8, sinks 2
V4_ATTENTION = 32 + 4 + 64 + 64 + 8 + 48 + 48 + 2
# HCA's compressor: kv_proj and gate_proj 8·8, position_bias 3·8, kv_norm 8
HCA = 64 + 64 + 24 + 8
# CSA's: kv_proj and gate_proj 8·16, position_bias 2·16, kv_norm 8; its indexer: kv_proj and gate_proj 8·(2·4),
# position_bias 2·8, kv_norm 4, q_b_proj 4·(2·4), weights_proj 8·2
CSA = (128 + 128 + 32 + 8) + (64 + 64 + 16 + 4 + 32 + 16)
V4_EXPERT = 3 * 8 * 4
V4_MOE = 2 * 8 + 2 * V4_EXPERT + V4_EXPERT  # the router, 2 experts, the shared expert (whatever n_shared_experts says)
# attn_hc and ffn_hc: fn ((2 + 2)·2) × (2·8), base (2 + 2)·2, scale 3
HYPER = 2 * (8 * 16 + 8 + 3)
V4_LAYER = V4_ATTENTION + V4_MOE + 2 * 8 + HYPER
# embed_tokens, the final norm, hc_head (hc_fn 2 × 2·8, hc_base 2, hc_scale 1), lm_head
V4_EDGES = 80 + 8 + (32 + 2 + 1) + 80


def test_deepseek_v4_by_hand() -> None:
    model = count(V4)
    assert model.tree.total == 3 * V4_LAYER + CSA + HCA + V4_EDGES == 3_459
    assert model.tree.active == 3_459 - 3 * V4_EXPERT
    assert layer_indices(model.spec) == {"sliding_attention_layers": (0,), "compressed_sparse_attention_layers": (1,),
                                         "heavily_compressed_attention_layers": (2,)}
    # the legacy compress_ratios name the same layers (0: sliding, 4: CSA, 128: HCA), legacy windows the same rates
    legacy = {k: v for k, v in V4.items() if k not in ("layer_types", "compress_rates")}
    assert count({**legacy, "compress_ratios": [0, 4, 128], "compress_rate_csa": 2,
                  "compress_rate_hca": 3}).tree.total == 3_459
    # with no layer_types: two HCA layers, then HCA and CSA in turn (HCA first), so three HCA layers here
    assert count({**legacy, "compress_rate_csa": 2, "compress_rate_hca": 3}).tree.total == 3 * V4_LAYER + 3 * HCA + V4_EDGES


def test_deepseek_v4_cache_by_hand() -> None:
    # after 7 tokens of one sequence, in bfloat16: every layer keeps the last sliding_window - 1 = 3 tokens' keys
    # (8 wide), the sliding layer its values beside them. CSA (window 2): 1 token left over (kv and gate, 16 wide
    # each), 3 compressed entries (8 wide), the last window's first series (2 × 8, its gate in float32); its indexer
    # the same at 4 wide. HCA (window 3): 1 token left over (kv and gate, 8 wide), 2 entries (8 wide).
    model = count(V4)
    sliding = 2 * 3 * 8 * 2
    csa = 3 * 8 * 2 + sum((2 * 1 * 2 * w + 3 * w) * 2 + 2 * w * (2 + 4) for w in (8, 4))
    hca = 3 * 8 * 2 + (2 * 1 * 8 + 2 * 8) * 2
    line = estimate_memory(model, Settings(context=7, batch=1)).line("kv_cache")
    assert line.bytes == sliding + csa + hca == 568  # transformers' cache holds 568 bytes there
    assert line.exact


def test_deepseek_v4_configs_its_class_refuses() -> None:
    assert any('"compress_rates": no window for heavily_compressed_attention' in e
               for e in problems({**V4, "compress_rates": {"compressed_sparse_attention": 2}}, "error"))
    assert any('"compress_ratios": 8 is not 0, 4 or 128' in e
               for e in problems({k: v for k, v in V4.items() if k != "layer_types"} | {"compress_ratios": [0, 8, 4]},
                                 "error"))
    assert any('"layer_types": 2 entries for 3 layers' in e
               for e in problems({**V4, "layer_types": ["sliding_attention"] * 2}, "error"))
    assert any('"o_groups": 0' in e for e in problems({**V4, "o_groups": 0}, "error"))
    # a longer list is cut to the layers
    assert count({**V4, "layer_types": V4["layer_types"] + ["sliding_attention"]}).tree.total == 3_459
