"""Beam, without torch: Qwen3-MoE's attention with a sigmoid output gate (gate_proj and one bias per head), four norms
a layer, sliding-window layers (every sixth and the last full, with no rotary positions), dense layers then experts
(mlp_layer_types), and a token classifier. Small configs counted by hand (the arithmetic in each test), the class
defaults as transformers 5.25 builds them on the meta device (``sum(p.numel() for p in model.parameters())``, taken
there once), what the cache holds (checked against transformers' cache after a forward pass where it is installed),
LoRA as peft adapts it, and the configs its class refuses."""

from __future__ import annotations

import pytest

from config_models import (error_messages as errors, forward_cache_bytes, kv_cache_bytes as kv_bytes, lora_counts,
                           model as count, peft_lora_counts)

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("beam", "BeamForCausalLM"): 501_267_599_808,
    ("beam", "BeamModel"): 500_489_687_488,
    ("beam", "BeamForTokenClassification"): 500_489_697_730,
}


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert count({"model_type": model_type, "architectures": [architecture]}).tree.total == \
        CLASS_DEFAULTS[(model_type, architecture)]


# Vocabulary 100, hidden 16, 2 query heads of 8 (one key/value head), 4 layers: by default the first three dense
# (MLPs 24 wide), the last a mixture of 4 experts 8 wide.
BEAM = {"model_type": "beam", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 4, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 24, "num_experts": 4, "moe_intermediate_size": 8,
        "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1, "sliding_window": 16}
# q 16·16, k 16·8, v 16·8, o 16·16, q_norm and k_norm 8 each, the output gate's gate_proj 16·16 and gate_bias 2
ATTENTION = 256 + 128 + 128 + 256 + 8 + 8 + 256 + 2  # 1,042
NORMS = 4 * 16  # input, post_attention, pre_feedforward, post_feedforward
DENSE = 3 * 16 * 24  # gate, up, down: 1,152
EXPERTS = 4 * 16 + 4 * (2 * 8 * 16 + 16 * 8)  # the router (gate, 4 × 16), each expert's gate_up_proj and down_proj: 1,600


def test_beam_by_hand() -> None:
    layers = 3 * (ATTENTION + NORMS + DENSE) + (ATTENTION + NORMS + EXPERTS)  # 6,774 + 2,706
    body = 100 * 16 + layers + 16  # embed_tokens, the layers, the final norm
    assert count({**BEAM, "architectures": ["BeamForCausalLM"]}).tree.total == body + 100 * 16 == 12_696
    assert count({**BEAM, "architectures": ["BeamModel"]}).tree.total == body == 11_096
    # GenericForTokenClassification: a score linear to 2 labels with a bias (none where token_classification_bias
    # is false)
    assert count({**BEAM, "architectures": ["BeamForTokenClassification"]}).tree.total == body + 16 * 2 + 2
    assert count({**BEAM, "architectures": ["BeamForTokenClassification"],
                  "token_classification_bias": False}).tree.total == body + 16 * 2


def test_beam_layer_lists_by_hand() -> None:
    """mlp_layer_types as written: experts in two layers instead of one."""
    config = {**BEAM, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"], "architectures": ["BeamModel"]}
    assert count(config).tree.total == 100 * 16 + 2 * (ATTENTION + NORMS + DENSE) + 2 * (
        ATTENTION + NORMS + EXPERTS) + 16


def test_beam_refusals() -> None:
    assert any("3 entries for 4 layers" in m for m in errors({**BEAM, "layer_types": ["full_attention"] * 3}))
    assert any("3 entries for 4 layers" in m for m in errors({**BEAM, "mlp_layer_types": ["dense"] * 3}))
    assert any("must divide" in m for m in errors({**BEAM, "num_attention_heads": 4, "num_key_value_heads": 3}))
    # rope_parameters is read per attention type, as written: a null rope_scaling replaces it, an entry lacks
    # rope_theta, a type the layers use has no entry
    assert errors({**BEAM, "rope_scaling": None})
    assert errors({**BEAM, "rope_parameters": {"sliding_attention": {"rope_type": "default"}, "full_attention": None}})
    assert errors({**BEAM, "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e4}}})


def test_beam_cache_by_hand() -> None:
    """Three sliding layers (window 16) and the last full one, each one key/value head of 8 in bfloat16: keys and
    values, 2 × 8 × 2 bytes a token; under the window all four hold the context."""
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 7, 2) == 4 * 2 * 7 * 2 * 8 * 2
    long_context = 3 * 16 + 100  # the sliding layers hold the window, the full one all 100 tokens
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 100, 1) == long_context * 2 * 8 * 2


def test_beam_cache_is_what_a_forward_pass_fills() -> None:
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    assert kv_bytes({**BEAM, "architectures": ["BeamForCausalLM"]}, 7, 2) == \
        forward_cache_bytes(BEAM, "BeamForCausalLM")


def test_small_totals_are_transformers_s() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    for architecture in ("BeamForCausalLM", "BeamModel", "BeamForTokenClassification"):
        hf = transformers.CONFIG_MAPPING["beam"](**{k: v for k, v in BEAM.items() if k != "model_type"})
        with torch.device("meta"):
            built = getattr(transformers, architecture)(hf)
        assert count({**BEAM, "architectures": [architecture]}).tree.total == \
            sum(p.numel() for p in built.parameters()), architecture


# (targets, peft 0.21's (total, trainable) for rank 2, taken once; None: peft refuses them). peft's v4 -> v5 MoE
# conversion runs for beam: gate_proj and up_proj name the experts' fused gate_up_proj (both halves, or a refusal)
# beside the dense MLPs' and the attention's own gate_proj; gate names the router.
LORA = (("all-linear", (14_336, 1_640)), (["gate_proj", "up_proj", "o_proj"], (13_464, 768)),
        (["gate"], (12_736, 40)), (["k_proj", "down_proj"], (13_080, 384)), (["gate_proj", "q_proj"], None))


def test_lora_adapts_what_peft_adapts(tmp_path) -> None:
    for targets, expected in LORA:
        assert lora_counts(tmp_path, {**BEAM, "architectures": ["BeamForCausalLM"]}, targets) == expected, targets


def test_lora_literals_are_peft_s() -> None:
    for module in ("torch", "transformers", "peft"):
        pytest.importorskip(module)
    for targets, expected in LORA:
        assert peft_lora_counts({**BEAM, "architectures": ["BeamForCausalLM"]}, targets) == expected, targets
