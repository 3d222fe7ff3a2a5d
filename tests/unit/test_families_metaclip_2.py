"""MetaCLIP 2 (metaclip_2 and its towers): transformers' MetaClip2* classes subclass CLIP's and hold the same
parameters, so the family rows are CLIP's renamed. The class defaults are literals taken once from transformers 5.25 on the meta
device; tests/parity checks random configs of every class against transformers itself."""

from __future__ import annotations

import pytest

from config_models import assert_class_default_total, model


@pytest.mark.parametrize("model_type, architecture, total", [
    ("metaclip_2", "MetaClip2Model", 151_277_313),
    ("metaclip_2", "MetaClip2ForImageClassification", 87_457_538),
    ("metaclip_2_text_model", "MetaClip2TextModel", 63_165_952),
    ("metaclip_2_text_model", "MetaClip2TextModelWithProjection", 63_428_096),
    ("metaclip_2_vision_model", "MetaClip2VisionModel", 87_456_000),
    ("metaclip_2_vision_model", "MetaClip2VisionModelWithProjection", 87_849_216),
])
def test_the_class_defaults(model_type: str, architecture: str, total: int) -> None:
    assert_class_default_total(model_type, architecture, total)


def test_a_worldwide_huge_config_counts_as_clip_s_classes_count_it() -> None:
    # facebook/metaclip-2-worldwide-huge-quickgelu's shape: a ViT-H/14 tower and a 1024-wide text tower over a
    # 901,629-token vocabulary; its nested configs name their own model types.
    text = dict(hidden_size=1024, intermediate_size=4096, num_attention_heads=16, num_hidden_layers=24,
                vocab_size=901_629, max_position_embeddings=77, projection_dim=1024)
    vision = dict(hidden_size=1280, intermediate_size=5120, num_attention_heads=16, num_hidden_layers=32,
                  patch_size=14, image_size=224, projection_dim=1024)
    meta = model({"model_type": "metaclip_2", "architectures": ["MetaClip2Model"], "projection_dim": 1024,
                  "text_config": {"model_type": "metaclip_2_text_model", **text},
                  "vision_config": {"model_type": "metaclip_2_vision_model", **vision}})
    clip = model({"model_type": "clip", "architectures": ["CLIPModel"], "projection_dim": 1024,
                  "text_config": text, "vision_config": vision})
    assert meta.tree.root.name == "MetaClip2Model"
    assert meta.tree.total == clip.tree.total == 1_858_783_745  # transformers 5.25, MetaClip2Model on the meta device
    # by hand: the vocabulary's embedding, the towers' layers and the projections
    assert meta.tree.root.find("text_model.embeddings").total == (901_629 + 77) * 1024
    assert meta.tree.root.find("projections").total == 1280 * 1024 + 1024 * 1024 + 1  # both, no biases; logit_scale
