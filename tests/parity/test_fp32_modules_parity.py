"""Weights transformers keeps in float32 when a model is loaded in float16 or bfloat16: its model
classes' _keep_in_fp32_modules (float16 only: T5's wo, GPT-OSS's norms) and
_keep_in_fp32_modules_strict (both: DeepSeek's and GLM-4-MoE's routers), and HunYuan-MoE's router,
which it builds in float32. The weights' bytes lsp-count gives equal those of the model
``from_pretrained(dtype=...)`` loads from a saved checkpoint, on random small configs of the families
that keep some, and the family rows name every class's lists."""

from __future__ import annotations

import logging
import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, given, settings

from lsp_count.core.families import registry
from lsp_count.core.precision import weights_bytes

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

_T5 = dict(num_layers=2, d_model=8, d_ff=16, num_heads=2, d_kv=4, vocab_size=10)
_MOE = dict(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, num_key_value_heads=1, vocab_size=10,
            intermediate_size=16, num_experts_per_tok=2)
# A config per family with the tensors its class keeps in float32.
KEEPING = {
    "t5": dict(model_type="t5", architectures=["T5ForConditionalGeneration"], **_T5),
    "mt5": dict(model_type="mt5", architectures=["MT5ForConditionalGeneration"], **_T5),
    "umt5": dict(model_type="umt5", architectures=["UMT5ForConditionalGeneration"], **_T5),
    "deepseek_v2": dict(model_type="deepseek_v2", architectures=["DeepseekV2ForCausalLM"], **_MOE, first_k_dense_replace=1,
                        n_routed_experts=4, moe_intermediate_size=8, q_lora_rank=None, kv_lora_rank=8,
                        qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4),
    "deepseek_v3": dict(model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], **_MOE, first_k_dense_replace=1,
                        n_routed_experts=4, moe_intermediate_size=8, n_group=1, topk_group=1, q_lora_rank=8,
                        kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4),
    "glm4_moe": dict(model_type="glm4_moe", architectures=["Glm4MoeForCausalLM"], **_MOE, first_k_dense_replace=1,
                     n_routed_experts=4, moe_intermediate_size=8, n_group=1, topk_group=1, head_dim=8),
    "gpt_oss": dict(model_type="gpt_oss", architectures=["GptOssForCausalLM"], **_MOE, head_dim=8, num_local_experts=4),
    "hunyuan_v1_moe": dict(model_type="hunyuan_v1_moe", architectures=["HunYuanMoEV1ForCausalLM"], **_MOE, head_dim=8,
                           num_experts=4),
    # Lists that name the tensors by their place in a layer (self_attn.compressor.kv_proj, mlp.gate.weight).
    "deepseek_v4": dict(model_type="deepseek_v4", architectures=["DeepseekV4ForCausalLM"], vocab_size=10, hidden_size=16,
                        num_hidden_layers=3, num_attention_heads=2, head_dim=8, q_lora_rank=4, n_routed_experts=2,
                        num_experts_per_tok=1, moe_intermediate_size=8, o_groups=2, o_lora_rank=3, index_n_heads=2,
                        index_head_dim=4, sliding_window=4, hc_mult=2,
                        layer_types=["sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"],
                        compress_rates={"compressed_sparse_attention": 2, "heavily_compressed_attention": 3}),
    "mimo_v2_flash": dict(model_type="mimo_v2_flash", architectures=["MiMoV2FlashForCausalLM"], num_hidden_layers=3,
                          hidden_size=16, num_attention_heads=4, num_key_value_heads=2, head_dim=6, v_head_dim=4,
                          vocab_size=64, intermediate_size=24, moe_intermediate_size=8, n_routed_experts=4,
                          num_experts_per_tok=2, sliding_window=5),
    # BLIP-2 keeps its whole Q-Former and the query tokens in float32 (under float16).
    "blip-2": dict(model_type="blip-2", architectures=["Blip2ForConditionalGeneration"], num_query_tokens=3,
                   vision_config=dict(hidden_size=8, intermediate_size=4, num_hidden_layers=2, num_attention_heads=2,
                                      image_size=8, patch_size=4),
                   qformer_config=dict(hidden_size=12, intermediate_size=4, num_hidden_layers=3, num_attention_heads=2,
                                       vocab_size=10, max_position_embeddings=6),
                   text_config=dict(model_type="opt", vocab_size=50, hidden_size=16, num_hidden_layers=1, ffn_dim=8,
                                    num_attention_heads=2, word_embed_proj_dim=16, max_position_embeddings=20)),
    "beam": dict(model_type="beam", architectures=["BeamForCausalLM"], vocab_size=100, hidden_size=16, num_hidden_layers=4,
                 num_attention_heads=2, num_key_value_heads=1, head_dim=8, intermediate_size=24, num_experts=4,
                 moe_intermediate_size=8, num_experts_per_tok=2, n_group=1, topk_group=1, sliding_window=16),
    # Mistral Large 4: its rotary embedding's learned scales and its routers (strict), the indexer's weights_proj
    # (float16); the composite's class keeps the same lists.
    "mistral_large4_text": dict(model_type="mistral_large4_text", architectures=["MistralLarge4TextModel"], **_MOE,
                                first_k_dense_replace=1, n_routed_experts=4, moe_intermediate_size=8, kv_lora_rank=8,
                                qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4, index_n_heads=2, index_head_dim=4),
}
# Kept in float32 by the modelling code itself, not by a list (HunYuanMoEV1Gate's nn.Linear(dtype=torch.float32)).
BUILT_IN_FLOAT32 = {"hunyuan_v1_moe": (r"\bwg\.weight",),
                    # HY-V4 builds these in float32 (dtype=torch.float32); HYV4ForCausalLM's list is lm_head alone
                    "hy_v4": ("e_score_correction_bias", "gate.weight", "fn", "scale", "base", "hc_fn", "hc_scale",
                              "hc_base", "weights_proj", "k_norm", "sinks", "lm_head"),
                    # VoxtralEncoder builds its position table in float32 (VoxtralModel too: only the head class lists it)
                    "voxtral": ("embed_positions",), "voxtral_encoder": ("embed_positions",)}

# Classes whose float16 training step fails in transformers itself, or that take more than token ids.
NO_FLOAT16_STEP = {"blip-2": "Blip2ForConditionalGeneration's forward needs pixel values beside the token ids",
                   "mistral_large4_text": "MistralLarge4TextModel has no head: no loss to train on",
                   "deepseek_v4": "DeepSeek-V4's compressor multiplies its float32 kv_proj by float16 states (transformers "
                                  "5.25 raises: expected m1 and m2 to have the same dtype)"}


def _loaded(config: dict, dtype):
    """The model of ``config``, saved and loaded with ``from_pretrained(dtype=dtype)``."""
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    cls = getattr(transformers, config["architectures"][0])
    model = cls(CONFIG_MAPPING[config["model_type"]].from_dict(dict(config)))
    with tempfile.TemporaryDirectory() as path:
        model.save_pretrained(path)
        return cls.from_pretrained(path, dtype=dtype)


def _loaded_bytes(config: dict, dtype) -> int:
    return sum(p.numel() * p.element_size() for p in _loaded(config, dtype).parameters())


@pytest.mark.parametrize("model_type", sorted(KEEPING))
def test_the_weights_a_float16_or_bfloat16_load_keeps_in_float32_are_counted_in_float32(model_type: str) -> None:
    import json

    from lsp_count.core.analyze import analyze_text

    @settings(max_examples=2, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        _check_bytes(report.models[0].tree, config)

    check()
    # And a config that has what its class keeps (a random one may have no MoE layer, so no router).
    report = analyze_text(json.dumps(KEEPING[model_type]), "/nonexistent/config.json")
    tree = report.models[0].tree
    assert any(t.keep_fp32 for _p, t, _m, _f in tree.root.iter_tensors()), "no tensor is kept in float32"
    _check_bytes(tree, KEEPING[model_type])


def _check_bytes(tree, config: dict) -> None:
    kept = sorted({t.name for _p, t, _m, _f in tree.root.iter_tensors() if t.keep_fp32})
    for name, dtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        assert weights_bytes(tree, name) == _loaded_bytes(config, dtype), (name, kept)


@pytest.mark.parametrize("model_type", sorted(registry()))
def test_each_family_names_its_classes_float32_lists(model_type: str) -> None:
    family = registry()[model_type]
    classes = [getattr(transformers, name) for name in (family.architecture, *family.heads) if hasattr(transformers, name)]
    if not classes:
        pytest.skip(f"transformers {transformers.__version__} exports no class of {model_type}")
    for cls in classes:
        assert set(cls._keep_in_fp32_modules or ()) == set(family.fp32_modules), cls.__name__
        strict = set(cls._keep_in_fp32_modules_strict or ()) | set(BUILT_IN_FLOAT32.get(model_type, ()))
        assert strict == set(family.fp32_modules_strict), cls.__name__


def _trained_bytes(config: dict, dtype) -> tuple[int, int]:
    """(gradient bytes, AdamW state bytes) after one training step of the model loaded in ``dtype``
    (pure precision: no master copy, torch's AdamW keeps each state in its parameter's dtype);
    a parameter no token reached (an expert not routed to) has the gradient its dtype would give."""
    loaded = _loaded(config, dtype)
    torch.manual_seed(0)
    ids = torch.randint(0, config["vocab_size"], (1, 6))
    extra = {"decoder_input_ids": ids} if loaded.config.is_encoder_decoder else {}
    loaded(input_ids=ids, labels=ids, **extra).loss.backward()
    params = [p for p in loaded.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    optimizer.step()
    grads = sum(p.numel() * (p.grad.element_size() if p.grad is not None else p.element_size()) for p in params)
    for p in params:
        assert p.grad is None or p.grad.dtype == p.dtype
    states = sum(v.numel() * v.element_size() for p in params for v in optimizer.state[p].values()
                 if torch.is_tensor(v) and v.dim() > 0)
    unreached = sum(2 * p.numel() * p.element_size() for p in params if not optimizer.state[p])
    return grads, states + unreached


@pytest.mark.parametrize("model_type", sorted(KEEPING))
def test_a_pure_precision_run_keeps_the_gradients_and_states_of_float32_weights_in_float32(model_type: str) -> None:
    import json

    from lsp_count.core.analyze import analyze_text
    from lsp_count.core.memory import Settings, estimate_memory

    if model_type in NO_FLOAT16_STEP:
        pytest.skip(NO_FLOAT16_STEP[model_type])
    config = dict(KEEPING[model_type])
    if "kv_lora_rank" in config:  # MLA's forward needs as many key/value heads as heads (as real DeepSeeks have)
        config["num_key_value_heads"] = config["num_attention_heads"]
    model = analyze_text(json.dumps(config), "/nonexistent/config.json").models[0]
    for name, dtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        report = estimate_memory(model, Settings(mode="train", dtype=name, pure_precision=True, optimizer="adamw",
                                                 context=6))
        grads, states = _trained_bytes(config, dtype)
        assert (report.line("gradients").bytes, report.line("optimizer_states").bytes) == (grads, states), name
