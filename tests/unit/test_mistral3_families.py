"""Mistral 3 (mistral3: Mistral-Small-3.1 / 3.2) and its Pixtral vision tower (pixtral) without torch.

Every total here is counted by hand below and is what transformers 5.25 builds on the meta device
(checked there, and on random configs in tests/parity/test_parity.py); these tests pin the parts, the
text model resolved through its own family, the projector's switches, the tie, the class defaults and
the problems a bad config gets.
"""

from __future__ import annotations

import json

from config_models import analyze, errors, model

from lsp_count.core.memory import Settings, estimate_memory

# A small text model: Mistral, 16 wide, 2 layers of 2 heads (one kv head of 8), MLP 32, vocab 64.
TEXT = {"model_type": "mistral", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 1, "intermediate_size": 32, "vocab_size": 64}
# embed 64·16 + 2 × (q 16·16 + k 16·8 + v 16·8 + o 16·16 + MLP 3·16·32 + 2 norms of 16) + final norm 16
TEXT_TOTAL = 64 * 16 + 2 * (256 + 128 + 128 + 256 + 3 * 16 * 32 + 2 * 16) + 16
assert TEXT_TOTAL == 5_712

# A small Pixtral tower: 8 wide, 2 blocks of 2 heads, MLP 16, 4-pixel patches of 3 channels.
VISION = {"model_type": "pixtral", "hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 16, "patch_size": 4}
# patch_conv 8·3·4·4 (no bias) + ln_pre 8 + 2 × (q/k/v/o 4·8·8 + gated MLP 3·8·16 + 2 RMSNorms of 8)
VISION_TOTAL = 8 * 3 * 4 * 4 + 8 + 2 * (4 * 8 * 8 + 3 * 8 * 16 + 2 * 8)
assert VISION_TOTAL == 1_704

# The projector: norm 8 + patch_merger.merging_layer (2·2 patches of 8 → 8, no bias) + linear_1 8 → 16
# + linear_2 16 → 16 (no biases by default).
PROJECTOR = 8 + 4 * 8 * 8 + 8 * 16 + 16 * 16
assert PROJECTOR == 648
HEAD = 64 * 16

# Mistral3ForConditionalGeneration with Mistral3Config's defaults (no sub-configs: Mistral-Small-3.1's
# sizes from its sub_configs_defaults), transformers 5.25 on the meta device: its lm_head tied (the
# class's tie_word_embeddings defaults to true), and untied.
DEFAULT_TIED = 23_340_272_640
DEFAULT_UNTIED = 24_011_361_280
PIXTRAL_DEFAULT = 403_489_792  # PixtralVisionModel with PixtralVisionConfig's defaults


def mistral3(arch: str = "Mistral3ForConditionalGeneration", **keys: object) -> dict:
    return {"model_type": "mistral3", "architectures": [arch], "text_config": dict(TEXT),
            "vision_config": dict(VISION), **keys}


def test_parts_are_the_tower_the_projector_the_text_model_and_a_tied_head() -> None:
    m = model(mistral3())
    root = m.tree.root
    assert m.tree.total == TEXT_TOTAL + VISION_TOTAL + PROJECTOR == 8_064
    assert root.child("vision_tower").total == VISION_TOTAL
    assert root.child("vision_tower").note == "pixtral"
    assert root.child("projector").total == PROJECTOR
    assert root.child("language_model").total == TEXT_TOTAL
    assert root.child("language_model").note == "mistral"
    # Mistral3Config ties by default; the bare Mistral3Model has no head at all.
    assert model(mistral3("Mistral3Model")).tree.total == 8_064
    assert any("ties its output head" in note for note in m.tree.notes)


def test_only_the_composite_s_tie_word_embeddings_unties_the_head() -> None:
    assert model(mistral3(tie_word_embeddings=False)).tree.total == 8_064 + HEAD == 9_088
    # text_config's own tie_word_embeddings is not read (Mistral3Config forwards nothing).
    untied_text = {**mistral3(), "text_config": {**TEXT, "tie_word_embeddings": False}}
    assert model(untied_text).tree.total == 8_064


def test_projector_with_and_without_bias_and_its_feature_layers_and_merge() -> None:
    assert model(mistral3(tie_word_embeddings=False, multimodal_projector_bias=True)).tree.total \
        == 9_088 + 16 + 16 == 9_120
    # Two feature layers: linear_1 takes 2 × 8 (the tower keeps every layer).
    assert model(mistral3(vision_feature_layer=[-1, -2])).tree.total == 8_064 + 8 * 16 == 8_192
    # spatial_merge_size 3: the merging layer takes 3·3 patches of 8.
    assert model(mistral3(spatial_merge_size=3)).tree.total == 8_064 + (9 - 4) * 8 * 8 == 8_384
    projector = model(mistral3(multimodal_projector_bias=True)).tree.root.child("projector")
    names = {t.name for t in projector.tensors}
    assert names == {"norm.weight", "patch_merger.merging_layer.weight", "linear_1.weight", "linear_1.bias",
                     "linear_2.weight", "linear_2.bias"}


def test_the_text_model_resolves_through_the_family_its_model_type_names() -> None:
    # No model_type: Mistral3Config's AutoConfig default, mistral.
    bare = {**mistral3(), "text_config": {k: v for k, v in TEXT.items() if k != "model_type"}}
    assert model(bare).tree.root.child("language_model").note == "mistral"
    assert model(bare).tree.total == 8_064
    # Llama's layout here is Mistral's; Qwen2's adds q/k/v biases (16 + 8 + 8 per layer).
    llama = model({**mistral3(), "text_config": {**TEXT, "model_type": "llama"}})
    assert llama.tree.root.child("language_model").note == "llama" and llama.tree.total == 8_064
    qwen2 = model({**mistral3(), "text_config": {**TEXT, "model_type": "qwen2"}})
    assert qwen2.tree.root.child("language_model").note == "qwen2"
    assert qwen2.tree.total == 8_064 + 2 * (16 + 8 + 8) == 8_128


def test_the_vision_tower_alone() -> None:
    m = model({**VISION, "architectures": ["PixtralVisionModel"]})
    assert m.tree.total == VISION_TOTAL
    assert {c.name for c in m.tree.root.children} == {"patch_conv", "ln_pre", "layers"}
    attention = m.tree.root.child("layers").child("attention")
    assert {t.name for t in attention.tensors} == {f"attention.{p}_proj.weight" for p in "qkvo"}
    # Heads that do not divide the width build (the projections are hidden_size wide whatever the heads).
    assert model({**VISION, "hidden_size": 10, "num_attention_heads": 3}).tree.total == 2_290
    # PixtralVisionConfig's defaults.
    assert model({"model_type": "pixtral", "architectures": ["PixtralVisionModel"]}).tree.total == PIXTRAL_DEFAULT


def test_class_defaults_are_mistral_small_3_1_s_sizes() -> None:
    default = {"model_type": "mistral3", "architectures": ["Mistral3ForConditionalGeneration"]}
    assert model(default).tree.total == DEFAULT_TIED
    assert model({**default, "tie_word_embeddings": False}).tree.total == DEFAULT_UNTIED
    assert DEFAULT_UNTIED - DEFAULT_TIED == 131072 * 5120
    # No vision_config: Mistral3Config's Mistral-Small-3.1 tower (14-pixel patches), not Pixtral's defaults.
    no_vision = model({"model_type": "mistral3", "architectures": ["Mistral3Model"], "text_config": dict(TEXT)})
    assert no_vision.tree.root.child("vision_tower").total == PIXTRAL_DEFAULT - 1024 * 3 * (16 * 16 - 14 * 14)


def test_bad_configs_are_refused_at_their_keys() -> None:
    text = json.dumps({"model_type": "mistral3", "vision_config": {"hidden_size": -4}}, indent=2)
    (problem,) = [p for p in analyze({}, text).problems if p.severity == "error"]
    assert problem.code == "LC102" and problem.span.start.line == 3 and "hidden_size" in problem.message

    text = json.dumps(mistral3(spatial_merge_size=2.0), indent=2)
    (problem,) = [p for p in analyze({}, text).problems if p.severity == "error"]
    line = text.splitlines()[problem.span.start.line]
    assert line[problem.span.start.column:].startswith("2.0") and '"spatial_merge_size"' in line
    assert "write 2" in problem.message

    problems = errors(mistral3(vision_feature_layer=None))
    assert problems and "vision_feature_layer" in problems[0].message and "null" in problems[0].message
    problems = errors(mistral3(multimodal_projector_bias=None))
    assert problems and '"multimodal_projector_bias": null' in problems[0].message


def test_bad_vision_towers_are_refused() -> None:
    # More heads than the width: each head 0 wide, which PixtralAttention cannot build.
    problems = errors({**VISION, "num_attention_heads": 9, "architectures": ["PixtralVisionModel"]})
    assert problems and "num_attention_heads (9) is more than hidden_size (8)" in problems[0].message
    # An odd head width the axial RoPE turns whole: PixtralVisionConfig's validate_rope refuses it.
    text = json.dumps({**mistral3(), "vision_config": {**VISION, "hidden_size": 18}}, indent=2)
    (problem,) = [p for p in analyze({}, text).problems if p.severity == "error"]
    assert "even rotary dimension" in problem.message and "hidden_size 18 / num_attention_heads 2" in problem.message
    assert text.splitlines()[problem.span.start.line].strip().startswith('"num_attention_heads"')
    # A written even head_dim is what the class holds (the attention stays hidden_size / heads wide).
    # Tower: patch_conv 18·3·4·4 + ln_pre 18 + 2 × (4·18·18 + 3·18·16 + 2·18); projector: norm 18 +
    # merging 4·18·18 + linear_1 18·16 + linear_2 16·16; the text model as before.
    wide = 18 * 48 + 18 + 2 * (4 * 18 * 18 + 3 * 18 * 16 + 2 * 18) + 18 + 4 * 18 * 18 + 18 * 16 + 16 * 16 + TEXT_TOTAL
    assert wide == 12_844
    assert model({**mistral3(), "vision_config": {**VISION, "hidden_size": 18, "head_dim": 8}}).tree.total == wide
    # A tower of another family (transformers' AutoModel would build it) is not modelled here: refused, not
    # counted as a Pixtral one.
    clip = {**mistral3(), "vision_config": {"model_type": "clip_vision_model", "hidden_size": 8, "num_attention_heads": 2,
                                            "num_hidden_layers": 1, "intermediate_size": 16, "image_size": 32,
                                            "patch_size": 16}}
    problems = errors(clip)
    assert problems and "pixtral" in problems[0].message


def test_training_activations_are_the_language_model_s_layers() -> None:
    """A training step's text tokens run through the language model's layers alone: the estimate's
    activations are those of the text model on its own, not of the tower's blocks too."""
    settings = Settings(mode="train", context=1024, batch=2)
    composite = model(mistral3())
    alone = model({**TEXT, "architectures": ["MistralForCausalLM"]})
    ours, theirs = estimate_memory(composite, settings).line("activations"), \
        estimate_memory(alone, settings).line("activations")
    assert ours is not None and theirs is not None
    assert ours.bytes == theirs.bytes
    assert "the language model's; the vision tower's, over image patches, are not counted" in ours.detail
    # Four vision blocks instead of two change nothing there.
    deeper = model({**mistral3(), "vision_config": {**VISION, "num_hidden_layers": 4}})
    assert estimate_memory(deeper, settings).line("activations").bytes == ours.bytes
