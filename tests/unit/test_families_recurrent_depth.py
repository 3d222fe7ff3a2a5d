"""Apertus 1.5's text model (apertus1p5_text) and the families added beside it, without torch: small configs counted
by hand (the arithmetic in each test), their class defaults as transformers 5.25 builds them on the meta device
(``sum(p.numel() for p in model.parameters())``, taken there once), what their caches hold, and the configs their
classes refuse."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import errors as error_problems, model as count

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("apertus1p5_text", "Apertus1p5TextForCausalLM"): 8_091_086_912,
    ("apertus1p5_text", "Apertus1p5TextModel"): 6_998_470_720,
}


def errors(config: dict) -> list[str]:
    return [p.message for p in error_problems(config)]


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    model = count({"model_type": model_type, "architectures": [architecture]})
    assert model.tree.total == CLASS_DEFAULTS[(model_type, architecture)]


# --- Apertus 1.5 (text) ---------------------------------------------------------------------------------------------

APERTUS1P5 = {"model_type": "apertus1p5_text", "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 1,
              "num_attention_heads": 2, "intermediate_size": 32}


def test_apertus1p5_text_by_hand() -> None:
    # embed 100·16; q/k/v/o 4·16·16; q_norm, k_norm 8 each; up_proj 16·32, down_proj 32·16, xIELU's alpha_p and
    # alpha_n; two layer norms 2·16; the final norm 16; an untied lm_head 16·100
    layer = 4 * 256 + 16 + 2 * 512 + 2 + 32
    assert count(APERTUS1P5).tree.total == 1_600 + layer + 16 + 1_600 == 5_314
    # the head pruned to the first 50 tokens: 16·50
    assert count({**APERTUS1P5, "output_vocab_size": 50}).tree.total == 5_314 - 16 * 50 == 4_514
    assert count({**APERTUS1P5, "output_vocab_size": 1}).tree.total == 5_314 - 16 * 99
    # equal to the vocabulary (or null) it is the unpruned head
    assert count({**APERTUS1P5, "output_vocab_size": 100}).tree.total == 5_314
    assert count({**APERTUS1P5, "output_vocab_size": None}).tree.total == 5_314
    # tied, the head is embed_tokens whatever output_vocab_size says (counted once)
    assert count({**APERTUS1P5, "output_vocab_size": 50, "tie_word_embeddings": True}).tree.total == 5_314 - 1_600
    assert count({**APERTUS1P5, "architectures": ["Apertus1p5TextModel"]}).tree.total == 5_314 - 1_600


def test_apertus1p5_text_logits_are_the_pruned_head_s() -> None:
    settings = Settings(mode="train", context=8, batch=2)
    full = estimate_memory(count(APERTUS1P5), settings).line("logits")
    pruned = estimate_memory(count({**APERTUS1P5, "output_vocab_size": 50}), settings).line("logits")
    tied = estimate_memory(count({**APERTUS1P5, "output_vocab_size": 50, "tie_word_embeddings": True}),
                           settings).line("logits")
    assert full is not None and pruned is not None and tied is not None
    assert pruned.bytes * 2 == full.bytes == tied.bytes


def test_apertus1p5_text_refuses_what_its_config_class_refuses() -> None:
    # Apertus1p5TextConfig.validate_output_vocab_size: 1 <= output_vocab_size <= vocab_size
    assert any("more than vocab_size" in e for e in errors({**APERTUS1P5, "output_vocab_size": 101}))
    assert any("at least 1" in e for e in errors({**APERTUS1P5, "output_vocab_size": 0}))
    assert any("whole number" in e for e in errors({**APERTUS1P5, "output_vocab_size": 50.0}))
