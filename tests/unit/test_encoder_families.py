"""Encoder, vision and multimodal families without torch: published sizes, structure, switches, bad input.

The totals were checked against transformers on the meta device (tests/parity);
these tests pin what a reader sees and the problems a bad config gets.
"""

from __future__ import annotations

import json
import pathlib

import pytest


from config_models import analyze, errors, model

CATALOG = pathlib.Path(__file__).resolve().parents[2] / "server" / "lsp_count" / "catalog"


def catalog(name: str) -> dict:
    return json.loads((CATALOG / f"{name}.json").read_text())


# ----------------------------------------------------------------- published sizes
@pytest.mark.parametrize("name, total", [
    ("google-bert/bert-base-uncased", 109_514_298),       # BertForMaskedLM: 110M
    ("FacebookAI/roberta-base", 124_697_433),             # RobertaForMaskedLM: 125M
    ("distilbert/distilbert-base-uncased", 66_985_530),   # 67M
    ("albert/albert-base-v2", 11_221_680),                # 11M (one shared layer)
    ("google/vit-base-patch16-224", 86_567_656),          # ViT-B/16 classifier, 1000 classes
    ("openai/clip-vit-base-patch32", 151_277_313),        # CLIP ViT-B/32
    ("llava-hf/llava-1.5-7b-hf", 7_063_427_072),
    ("google/gemma-3-4b-pt", 4_300_079_472),
])
def test_published_totals(name: str, total: int) -> None:
    assert model(catalog(name)).tree.total == total


# ----------------------------------------------------------------- structure
def test_bert_components_read_as_a_bert() -> None:
    tree = model(catalog("google-bert/bert-base-uncased")).tree
    assert list(tree.components()) == ["embeddings", "layers", "mlm_head"]
    layers = tree.root.child("layers")
    assert layers.repeat == 12 and [c.name for c in layers.children] == ["attention", "mlp", "norms"]
    # word + 512 positions + 2 token types + LayerNorm
    assert tree.root.child("embeddings").total == (30522 + 512 + 2) * 768 + 2 * 768
    # tied decoder: only the transform and the vocabulary bias remain
    assert tree.root.child("mlm_head").total == 768 * 768 + 768 + 2 * 768 + 30522


def test_bert_heads_by_class() -> None:
    base = {"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
            "num_hidden_layers": 2, "vocab_size": 100}
    plain = model({**base, "architectures": ["BertModel"]}).tree
    assert "pooler" in plain.components() and plain.components()["pooler"] == 64 * 64 + 64
    mlm = model({**base, "architectures": ["BertForMaskedLM"]}).tree
    assert "pooler" not in mlm.components()
    pre = model({**base, "architectures": ["BertForPreTraining"]}).tree
    assert pre.total == mlm.total + plain.components()["pooler"] + (64 * 2 + 2)
    cls = model({**base, "architectures": ["BertForSequenceClassification"],
                 "id2label": {str(i): str(i) for i in range(5)}}).tree
    assert cls.components()["classifier"] == 64 * 5 + 5
    untied = model({**base, "architectures": ["BertForMaskedLM"], "tie_word_embeddings": False}).tree
    # untied: decoder weight and its own bias beside the separate bias parameter
    assert untied.total - mlm.total == 100 * 64 + 100


def test_cross_attention_only_in_a_decoder() -> None:
    base = {"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
            "vocab_size": 100, "architectures": ["BertLMHeadModel"]}
    with_cross = model({**base, "is_decoder": True, "add_cross_attention": True}).tree
    without = model({**base, "is_decoder": True}).tree
    assert with_cross.root.child("layers").child("cross_attention") is not None
    assert with_cross.total - without.total == 2 * (4 * (64 * 64 + 64) + 2 * 64)
    problems = errors({**base, "add_cross_attention": True})
    assert problems and "is_decoder" in problems[0].message


def test_distilbert_aliases_and_no_token_types() -> None:
    a = model({"model_type": "distilbert", "dim": 64, "n_heads": 4, "n_layers": 3, "hidden_dim": 100,
               "vocab_size": 100, "architectures": ["DistilBertModel"]}).tree
    b = model({"model_type": "distilbert", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 3,
               "hidden_dim": 100, "vocab_size": 100, "architectures": ["DistilBertModel"]}).tree
    assert a.total == b.total
    assert a.root.child("embeddings").total == (100 + 512) * 64 + 2 * 64
    assert a.root.child("layers").repeat == 3


def test_albert_stores_groups_not_depth() -> None:
    cfg = {"model_type": "albert", "hidden_size": 64, "embedding_size": 16, "num_attention_heads": 4,
           "intermediate_size": 128, "num_hidden_layers": 24, "vocab_size": 100, "architectures": ["AlbertModel"]}
    one = model(cfg).tree
    deeper = model({**cfg, "num_hidden_layers": 48}).tree
    assert one.total == deeper.total  # depth reuses the same weights
    two = model({**cfg, "num_hidden_groups": 2}).tree
    assert two.root.child("layers").repeat == 2
    assert two.total - one.total == one.root.child("layers").total
    assert one.root.child("embedding_projection").total == 16 * 64 + 64


def test_vit_patches_and_pooler() -> None:
    cfg = {"model_type": "vit", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 1,
           "intermediate_size": 128, "image_size": [32, 48], "patch_size": 16, "architectures": ["ViTModel"]}
    tree = model(cfg).tree
    patches = 2 * 3
    assert tree.root.child("embeddings").total == 64 + (patches + 1) * 64 + 64 * 3 * 16 * 16 + 64
    assert tree.components()["pooler"] == 64 * 64 + 64
    smaller = model({**cfg, "pooler_output_size": 8}).tree
    assert smaller.components()["pooler"] == 64 * 8 + 8
    no_qkv_bias = model({**cfg, "qkv_bias": False}).tree
    assert tree.total - no_qkv_bias.total == 3 * 64


def test_clip_config_dict_overrides_sub_config() -> None:
    # openai/clip-vit-large-patch14-336 carries both; CLIPConfig rebuilds from *_config_dict.
    cfg = catalog("openai/clip-vit-large-patch14-336")
    tree = model(cfg).tree
    assert [c.name for c in tree.root.children] == ["text_model", "vision_model", "projections"]
    assert tree.root.child("vision_model").child("embeddings").note == "576 patches"  # 336 / 14 = 24 per side
    assert tree.total == 427_944_193


def test_llava_without_vision_config_uses_llavas_clip_tower() -> None:
    cfg = {"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
           "text_config": {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                           "intermediate_size": 128, "num_hidden_layers": 1, "vocab_size": 100}}
    tree = model(cfg).tree
    tower = tree.root.child("vision_tower")
    layers = tower.child("layers")
    assert layers.repeat == 24  # ViT-L/14-336, not CLIPVisionConfig's 12-layer default
    assert tower.child("embeddings").note == "576 patches"
    assert tree.components()["projector"] == 1024 * 64 + 64 + 64 * 64 + 64
    assert tree.components()["lm_head"] == 64 * 100
    tied_by_text = model({**cfg, "text_config": {**cfg["text_config"], "tie_word_embeddings": True}}).tree
    assert tied_by_text.components().get("lm_head", 0) == 0


def test_llava_feature_layers_widen_the_projector() -> None:
    cfg = catalog("llava-hf/llava-1.5-7b-hf")
    one = model(cfg).tree.components()["projector"]
    two = model({**cfg, "vision_feature_layer": [-2, -1]}).tree.components()["projector"]
    assert two - one == 1024 * 4096


def test_gemma3_parts() -> None:
    tree = model(catalog("google/gemma-3-4b-pt")).tree
    assert list(tree.components()) == ["vision_tower", "projector", "language_model", "lm_head"]
    assert tree.components()["projector"] == 1152 * 2560 + 1152
    assert tree.components()["lm_head"] == 0  # tied by default
    assert tree.root.child("vision_tower").note == "siglip_vision_model"


# ----------------------------------------------------------------- bad input
def test_heads_must_divide_hidden() -> None:
    problems = errors({"model_type": "bert", "hidden_size": 100, "num_attention_heads": 3, "architectures": ["BertModel"]})
    assert problems and problems[0].code == "LC103" and problems[0].span is not None


def test_patch_larger_than_image_is_a_located_warning_and_counted() -> None:
    # transformers builds a grid of no patches: counted (the class token's position alone), with a warning
    config = {"model_type": "vit", "image_size": 16, "patch_size": 32, "hidden_size": 8, "num_attention_heads": 2,
              "intermediate_size": 8, "num_hidden_layers": 1, "architectures": ["ViTModel"]}
    report = analyze(config)
    (warning,) = [p for p in report.problems if "no patch fits" in p.message]
    assert warning.severity == "warning" and warning.span.start.line > 0
    assert warning.message.startswith("patch_size 32 is larger than image_size 16")
    embeddings = report.models[0].tree.root.child("embeddings")
    assert embeddings.total == 3 * 32 * 32 * 8 + 8 + 8 + 8  # the patch convolution, the class token, one position


@pytest.mark.parametrize("config", [
    {"model_type": "siglip_vision_model", "image_size": 1, "num_hidden_layers": 1},
    {"model_type": "idefics2_vision", "image_size": 1, "num_hidden_layers": 1},
    {"model_type": "siglip", "architectures": ["SiglipForImageClassification"],
     "vision_config": {"image_size": 1, "num_hidden_layers": 1}, "text_config": {"num_hidden_layers": 1}}])
def test_an_image_of_no_token_is_estimated_at_one(config: dict) -> None:
    """A tower with no class token over an image no patch fits runs over no token: the memory estimate takes one, and
    says so (it took the 0 as its context and stopped: "--context: must be between 1 and ..."). Found by
    test_config_fuzz."""
    from lsp_count.core.memory import Settings, estimate_memory

    (counted,) = analyze(config).models
    for mode in ("inference", "train"):
        report = estimate_memory(counted, Settings(mode=mode))
        assert report.settings.context == 1
        assert any("no patch fits the image (one token is estimated)" in n for n in report.notes), report.notes


def test_bad_image_size_value() -> None:
    assert errors({"model_type": "vit", "image_size": "big", "architectures": ["ViTModel"]})
    # CLIP's vision tower only takes a square side
    assert errors({"model_type": "clip_vision_model", "image_size": [224, 224]})


def test_llava_with_a_text_model_as_vision_tower_is_refused() -> None:
    problems = errors({"model_type": "llava", "vision_config": {"model_type": "bert"}})
    assert problems and "vision tower" in problems[0].message


def test_bad_sub_config_value_is_located_inside_it() -> None:
    text = json.dumps({"model_type": "gemma3", "vision_config": {"hidden_size": -4}}, indent=2)
    report = analyze({}, text)
    problems = [p for p in report.problems if p.severity == "error"]
    assert problems and problems[0].span.start.line == 3


def test_question_answering_and_multiple_choice_heads() -> None:
    """BertForQuestionAnswering: no pooler, qa_outputs h → 2; BertForMultipleChoice: the pooler and a
    classifier h → 1; DistilBERT's multiple choice runs its pre_classifier first, and its question
    answering refuses any but 2 labels, as transformers does."""
    from lsp_count.core.analyze import analyze_text

    h, v, layers, f = 16, 50, 1, 32
    body = v * h + 512 * h + 2 * h + 2 * h + layers * (4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h)
    base = {"hidden_size": h, "num_hidden_layers": layers, "num_attention_heads": 2, "intermediate_size": f,
            "vocab_size": v}
    qa = analyze_text(json.dumps({"model_type": "bert", "architectures": ["BertForQuestionAnswering"], **base}),
                      "m/config.json")
    assert qa.models[0].tree.total == body + (h * 2 + 2)
    mc = analyze_text(json.dumps({"model_type": "bert", "architectures": ["BertForMultipleChoice"], **base}),
                      "m/config.json")
    assert mc.models[0].tree.total == body + (h * h + h) + (h + 1)
    distil = {"model_type": "distilbert", "dim": h, "n_layers": layers, "n_heads": 2, "hidden_dim": f, "vocab_size": v}
    refused = analyze_text(json.dumps({**distil, "architectures": ["DistilBertForQuestionAnswering"],
                                       "id2label": {"0": "a", "1": "b", "2": "c"}}), "m/config.json")
    assert [p.code for p in refused.problems if p.severity == "error"] == ["LC103"] and not refused.models
    choice = analyze_text(json.dumps({**distil, "architectures": ["DistilBertForMultipleChoice"]}), "m/config.json")
    counted = analyze_text(json.dumps({**distil, "architectures": ["DistilBertModel"]}), "m/config.json")
    assert choice.models[0].tree.total == counted.models[0].tree.total + (h * h + h) + (h + 1)
