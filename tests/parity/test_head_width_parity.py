"""Attention heads that do not divide the width, with no head_dim in the file, against transformers 5:
where its config class or its attention refuses them (Llama's validate_architecture, GPT-2's
ValueError), the count is an error; where the model floors hidden_size / num_attention_heads and
builds (Mistral, Qwen2, Phi-3, ViT, ALBERT, ...), the count is what it builds. Before, every
family with a derived head width refused such a config, transformers' builders included.

Random small configs of each family with heads (tests/parity/strategies.py), the width made one
more than the strategy drew and head_dim left out."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry, supported_model_types

from .meta_count import ODD_ROTARY, lsp_count_verdict, transformers_count, transformers_verdict
from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")
pytestmark = pytest.mark.parity

HEAD_FIELDS = ("num_heads", "encoder_heads", "decoder_heads")


def _families() -> list[str]:
    # (a family whose head count is derived, under no key of its own, has no written count to test: Laguna's is
    # each layer's num_attention_heads_per_layer, and its head width never derives from it)
    return [mt for mt in supported_model_types() if strategy_for(mt) is not None
            and "hidden_size" in registry()[mt].fields
            and any(f in registry()[mt].fields and registry()[mt].fields[f].keys for f in HEAD_FIELDS)]


def _uneven(config: dict, model_type: str) -> bool:
    """Make ``config``'s width one more than drawn and drop its head_dim; False where it has no
    head count over 1 at its top level (a composite's sub-configs are their own families)."""
    fields = registry()[model_type].fields
    heads = [config[key] for name in HEAD_FIELDS if name in fields for key in fields[name].keys if key in config]
    hidden = [key for key in fields["hidden_size"].keys if key in config]
    if not hidden or not any(isinstance(h, int) and h > 1 for h in heads):
        return False
    for key in hidden:
        config[key] += 1
    for key in fields["head_dim"].keys if "head_dim" in fields else ():
        config.pop(key, None)
    return True


@pytest.mark.parametrize("model_type", _families())
def test_heads_that_do_not_divide_the_width_as_transformers_builds_them(model_type: str) -> None:
    @settings(max_examples=8, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        assume(_uneven(config, model_type))
        want = transformers_verdict(config)
        got, errors = lsp_count_verdict(config)
        assert got == (None if want == ODD_ROTARY else want), (json.dumps(config), errors)
        # the reason, not another error
        if want == ODD_ROTARY:
            assert any("even rotary dimension" in e for e in errors), errors
        elif want is None:
            assert any("divide" in e for e in errors), errors

    check()


def test_a_floored_width_counts_the_narrower_attention() -> None:
    """Mistral with 6 heads of a 49 width: heads 8 wide, q/o projections 48 ⇄ 49 (the numbers
    by hand: embed 10·49, per layer q 49·48 + k, v 49·16 each + o 48·49 + MLP 3·49·20 + norms 2·49,
    final norm 49, head 49·10)."""
    config = {"model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 10,
              "hidden_size": 49, "num_attention_heads": 6, "num_key_value_heads": 2, "intermediate_size": 20,
              "num_hidden_layers": 1}
    by_hand = 10 * 49 + (49 * 48 + 2 * 49 * 16 + 48 * 49 + 3 * 49 * 20 + 2 * 49) + 49 + 49 * 10
    assert lsp_count_verdict(config) == (by_hand, [])
    assert transformers_verdict(config) == by_hand


def _forward_runs(config: dict) -> bool:
    """Whether transformers' model of ``config`` (real, tiny weights on the CPU) runs a forward pass."""
    import torch

    cfg = transformers.CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
    model = getattr(transformers, config["architectures"][0])(cfg)
    inputs = {"pixel_values": torch.zeros(1, 3, 32, 32)} if config["model_type"] == "vit" else \
        {"input_ids": torch.tensor([[1, 2, 3]])}
    try:
        with torch.no_grad():
            model(**inputs)
    except RuntimeError:
        return False
    return True


FLOORED = {
    # 3 heads of 68 are 22 wide: 66 values where the model may need 68 (68 floats: aligned rows for the experts' kernel)
    "olmoe": {"model_type": "olmoe", "architectures": ["OlmoeForCausalLM"], "vocab_size": 64, "hidden_size": 68,
              "num_attention_heads": 3, "num_key_value_heads": 1, "intermediate_size": 8, "num_experts": 4,
              "num_experts_per_tok": 2, "num_hidden_layers": 1, "pad_token_id": 0},
    "albert": {"model_type": "albert", "architectures": ["AlbertModel"], "vocab_size": 64, "hidden_size": 68,
               "num_attention_heads": 3, "intermediate_size": 8, "embedding_size": 8, "num_hidden_layers": 1,
               "pad_token_id": 0},
    "mistral": {"model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 64, "hidden_size": 68,
                "num_attention_heads": 3, "num_key_value_heads": 1, "intermediate_size": 8, "num_hidden_layers": 1,
                "pad_token_id": 0},
    "vit": {"model_type": "vit", "architectures": ["ViTForImageClassification"], "hidden_size": 68,
            "num_attention_heads": 3, "intermediate_size": 8, "num_hidden_layers": 1, "image_size": 32, "patch_size": 16},
}


@pytest.mark.parametrize("model_type", sorted(FLOORED))
@pytest.mark.parametrize("hidden", [68, 72])
def test_a_floored_width_is_said_to_fail_where_the_forward_pass_fails(model_type: str, hidden: int) -> None:
    """OLMoE (q/k norms hidden_size wide) and ALBERT (an output projection taking hidden_size
    values) build heads that do not divide the width but cannot run them: an LC103 warning says
    so exactly where transformers' forward pass fails; Mistral and ViT run them, with no warning."""
    config = {**FLOORED[model_type], "hidden_size": hidden}
    report = analyze_text(json.dumps(config, indent=2), "model/config.json")
    warned = [p.message for p in report.problems if p.code == "LC103" and "forward pass fails" in p.message]
    assert report.models and report.models[0].tree.total == transformers_count(config)[0]
    assert bool(warned) == (not _forward_runs(config)), warned


@pytest.mark.parametrize("position_embeddings_type", ["relative", "rotary", None])
@pytest.mark.parametrize(("hidden_size", "heads"), [(4, 3), (10, 4)])
def test_wav2vec2_conformer_floors_its_head_width(hidden_size: int, heads: int, position_embeddings_type) -> None:
    # Its conformer attention floors hidden_size / num_attention_heads (pos_bias_u and pos_bias_v are heads ×
    # that) and checks nothing; it was refused. (Found when the strategy's widths changed.)
    config = {"model_type": "wav2vec2-conformer", "architectures": ["Wav2Vec2ConformerForCTC"], "vocab_size": 9,
              "hidden_size": hidden_size, "num_attention_heads": heads, "num_hidden_layers": 2, "intermediate_size": 7,
              "conv_dim": [4], "conv_kernel": [2], "conv_stride": [1], "num_conv_pos_embeddings": 2,
              "num_conv_pos_embedding_groups": 1, "position_embeddings_type": position_embeddings_type}
    got, errors = lsp_count_verdict(config)
    assert got == transformers_verdict(config) is not None, errors
