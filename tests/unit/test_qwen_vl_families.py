"""What Qwen2-VL and Qwen2.5-VL share (one composite row and builder, `_qwen_vl`, over each family's text
model and vision tower), checked on both published 7B configs: the text model written flat, nested or with a null text_config
(and the 2B / 3B nested), the bare class, the text config whatever
model_type it names, the old checkpoints' vision model_type, the vision tower's aliases, the tie a text
config forwards, and the problems a bad config gets. Each family's own file pins its sizes."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from config_models import analyze, check_flat_and_nested_text_configs, errors, model, nested_text_config

import test_qwen2_5_vl_family as qwen2_5_vl
import test_qwen2_vl_family as qwen2_vl

CASES = [
    SimpleNamespace(id="qwen2_5_vl", config=qwen2_5_vl.QWEN2_5_VL_7B, total=qwen2_5_vl.TOTAL_7B, head=qwen2_5_vl.HEAD_7B,
                    small=qwen2_5_vl.QWEN2_5_VL_3B, small_total=qwen2_5_vl.TOTAL_3B,
                    bare="Qwen2_5_VLModel", text_type="qwen2_5_vl_text", text_class="Qwen2_5_VLTextConfig",
                    old_vision_types=("qwen2_5_vl",), width="hidden_size", merger="out_hidden_size"),
    SimpleNamespace(id="qwen2_vl", config=qwen2_vl.QWEN2_VL_7B, total=qwen2_vl.TOTAL_7B, head=qwen2_vl.HEAD_7B,
                    small=qwen2_vl.QWEN2_VL_2B, small_total=qwen2_vl.TOTAL_2B,
                    bare="Qwen2VLModel", text_type="qwen2_vl_text", text_class="Qwen2VLTextConfig",
                    old_vision_types=("qwen2_vl", "qwen2_vl_vision", "qwen2_5_vl_vision", "llava"),
                    width="embed_dim", merger="hidden_size"),
]
each_family = pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)


def _vision(case, **changes) -> dict:
    return {**case.config, "vision_config": {**case.config["vision_config"], **changes}}


@each_family
def test_flat_nested_and_null_text_configs_count_the_same(case) -> None:
    check_flat_and_nested_text_configs(case.config, case.total)
    assert model(nested_text_config(case.small)).tree.total == case.small_total


@each_family
def test_the_bare_model_has_no_head(case) -> None:
    assert model({**case.config, "architectures": [case.bare]}).tree.total == case.total - case.head


@each_family
def test_the_text_config_is_the_familys_whatever_model_type_it_names(case) -> None:
    # The composite config builds its own text config class from any text_config: its defaults, not
    # Qwen2Config's (8 key/value heads, where Qwen2's 32 would not divide these 16 heads).
    text = {"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 16, "num_hidden_layers": 1,
            "intermediate_size": 32, "vocab_size": 100}
    tree = model({**case.config, "text_config": text}).tree
    assert tree.root.child("language_model").note == case.text_type
    eight = model({**case.config, "text_config": {**text, "num_key_value_heads": 8}}).tree
    assert tree.total == eight.total
    assert not [p for p in analyze({**case.config, "text_config": text}).problems if "architectures" in p.message]


@each_family
def test_old_checkpoints_vision_model_type(case) -> None:
    # Old checkpoints name the vision config after the composite; transformers builds its own vision
    # config class whatever the mapping names.
    for kind in case.old_vision_types:
        assert model(_vision(case, model_type=kind)).tree.total == case.total, kind


@each_family
def test_vision_aliases(case) -> None:
    # attribute_map: num_hidden_layers / num_attention_heads set depth / num_heads, and win beside them.
    assert model(_vision(case, num_hidden_layers=2)).tree.root.child("visual").child("blocks").repeat == 2
    # in_chans is no key of the vision config classes: in_channels (3) is what the Conv3d takes.
    assert model(_vision(case, in_chans=1)).tree.total == case.total
    assert model(_vision(case, in_channels=1)).tree.total == case.total - 2 * 2 * 14 * 14 * 1280


@each_family
def test_tie_word_embeddings_in_text_config_ties_the_head(case) -> None:
    nested = nested_text_config(case.config)
    tied = {**nested, "text_config": {**nested["text_config"], "tie_word_embeddings": True}}
    assert model(tied).tree.total == case.total - case.head  # the BC forward to the composite's tie
    # A null there is no tie (the text config class has no such field; the composite reads it as false).
    null_tie = {**nested, "text_config": {**nested["text_config"], "tie_word_embeddings": None}}
    assert model(null_tie).tree.total == case.total
    # The composite's own true ties a flat config.
    assert model({**case.config, "tie_word_embeddings": True}).tree.total == case.total - case.head


@each_family
def test_a_null_size_at_the_top_level_is_the_text_models_error(case) -> None:
    problem = errors({**case.config, "hidden_size": None})[0]
    assert problem.code == "LC102" and '"hidden_size": null' in problem.message and problem.span is not None


@each_family
def test_text_heads_must_divide_the_width(case) -> None:
    problems = errors({**case.config, "hidden_size": 3585})
    assert problems and "divide" in problems[0].message


@each_family
def test_a_null_max_window_layers_fails_only_with_the_window_on(case) -> None:
    assert model({**case.config, "max_window_layers": None}).tree.total == case.total
    problems = errors({**case.config, "max_window_layers": None, "use_sliding_window": True})
    assert problems and '"max_window_layers": null' in problems[0].message and case.text_class in problems[0].message


@each_family
def test_more_vision_heads_than_width_is_refused(case) -> None:
    # The heads split the blocks' width (Qwen2-VL's embed_dim, not its vision hidden_size).
    problems = errors(_vision(case, **{case.width: 8}))
    assert problems and "num_heads (16)" in problems[0].message and f"{case.width} (8)" in problems[0].message


@each_family
def test_a_merger_narrower_than_the_text_model_is_a_warning(case) -> None:
    report = analyze(_vision(case, **{case.merger: 2048}))
    assert not report.has_errors
    assert any(p.code == "LC103" and f"{case.merger} (2,048)" in p.message for p in report.problems)


@each_family
def test_a_bad_vision_value_is_located_inside_vision_config(case) -> None:
    key = "depth" if case.width == "hidden_size" else case.width
    text = json.dumps({**case.config, "vision_config": {key: -1}}, indent=2)
    (problem,) = [p for p in analyze({}, text).problems if p.severity == "error"]
    line = next(i for i, row in enumerate(text.splitlines()) if f'"{key}": -1' in row)
    assert f'"{key}"' in problem.message and problem.span.start.line == line
