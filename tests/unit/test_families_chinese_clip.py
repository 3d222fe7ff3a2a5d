"""Chinese-CLIP (chinese_clip and its towers): a BERT text tower (pooled only as the standalone ChineseCLIPTextModel)
beside CLIP's vision tower and projections. The class defaults are literals taken once from transformers 5.25 on the
meta device; tests/parity checks random configs of every class against transformers itself."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, model


@pytest.mark.parametrize("model_type, architecture, total", [
    ("chinese_clip", "ChineseCLIPModel", 197_134_081),
    ("chinese_clip_text_model", "ChineseCLIPTextModel", 109_482_240),
    ("chinese_clip_vision_model", "ChineseCLIPVisionModel", 87_456_000),
])
def test_the_class_defaults(model_type: str, architecture: str, total: int) -> None:
    assert_class_default_total(model_type, architecture, total)


def test_the_dual_model_builds_its_text_tower_without_the_pooler() -> None:
    # A tiny BERT: 20 tokens, 6 positions, 2 token types, width 4, one layer with an MLP of 8.
    text = dict(vocab_size=20, max_position_embeddings=6, hidden_size=4, num_hidden_layers=1, num_attention_heads=2,
                intermediate_size=8)
    embeddings = (20 + 6 + 2) * 4 + 2 * 4  # three tables and a LayerNorm
    layer = 4 * (4 * 4 + 4) + 2 * 4 + (4 * 8 + 8) + (8 * 4 + 4) + 2 * 4  # q, k, v, out; LayerNorm; MLP; LayerNorm
    pooler = 4 * 4 + 4
    alone = model({"model_type": "chinese_clip_text_model", "architectures": ["ChineseCLIPTextModel"], **text})
    assert alone.tree.total == embeddings + layer + pooler == 312  # (transformers 5.25 counts 312)
    dual = model({"model_type": "chinese_clip", "architectures": ["ChineseCLIPModel"], "projection_dim": 3,
                  "text_config": text, "vision_config": dict(hidden_size=4, num_hidden_layers=1, num_attention_heads=2,
                                                             intermediate_size=8, image_size=4, patch_size=2)})
    assert dual.tree.root.find("text_model").total == embeddings + layer
    assert dual.tree.root.find("text_model.pooler") is None
    assert dual.tree.root.find("projections").total == 4 * 3 + 4 * 3 + 1  # visual, text, logit_scale
