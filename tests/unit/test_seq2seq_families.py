"""Encoder-decoder families without torch: published sizes, structure, switches and bad input.

Totals here were checked against transformers on the meta device (tests/parity); these
tests pin the structure a reader sees and the problems a bad config gets.
"""

from __future__ import annotations

import json

import pytest

from lsp_count.core.layouts.seq2seq import switch_sparse_layers

from config_models import errors, model

T5_BASE = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 768, "d_ff": 3072,
           "d_kv": 64, "num_heads": 12, "num_layers": 12, "vocab_size": 32128}
FLAN_T5_XL = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 2048, "d_ff": 5120,
              "d_kv": 64, "num_heads": 32, "num_layers": 24, "num_decoder_layers": 24, "vocab_size": 32128,
              "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}
SWITCH_BASE_8 = {"architectures": ["SwitchTransformersForConditionalGeneration"], "model_type": "switch_transformers",
                 "d_model": 768, "d_ff": 3072, "d_kv": 64, "num_heads": 12, "num_layers": 12, "num_decoder_layers": 12,
                 "num_experts": 8, "encoder_sparse_step": 2, "decoder_sparse_step": 2, "vocab_size": 32128}
BART_LARGE = {"architectures": ["BartModel"], "model_type": "bart", "d_model": 1024, "encoder_layers": 12,
              "decoder_layers": 12, "encoder_attention_heads": 16, "decoder_attention_heads": 16,
              "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "vocab_size": 50265, "max_position_embeddings": 1024}
WHISPER_LARGE_V3 = {"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "d_model": 1280,
                    "encoder_layers": 32, "decoder_layers": 32, "encoder_attention_heads": 20,
                    "decoder_attention_heads": 20, "encoder_ffn_dim": 5120, "decoder_ffn_dim": 5120,
                    "vocab_size": 51866, "num_mel_bins": 128, "max_source_positions": 1500,
                    "max_target_positions": 448, "pad_token_id": 50256}


# ----------------------------------------------------------------- published sizes
@pytest.mark.parametrize("config, total", [
    (T5_BASE, 222_903_552),
    (BART_LARGE, 406_291_456),
    (WHISPER_LARGE_V3, 1_543_490_560),
    (SWITCH_BASE_8, 619_339_008),
])
def test_published_totals(config: dict, total: int) -> None:
    assert model(config).tree.total == total


def test_t5_components_read_like_the_model() -> None:
    tree = model(T5_BASE).tree
    assert tree.components() == {"shared_embeddings": 32128 * 768, "encoder": tree.root.child("encoder").total,
                                 "decoder": tree.root.child("decoder").total, "lm_head": 0}
    dec_layers = tree.root.find("decoder.layers")
    assert dec_layers.repeat == 12
    assert [c.name for c in dec_layers.children] == ["self_attention", "cross_attention", "mlp", "norms"]
    # RMS norms: weight only, three per decoder block.
    assert dec_layers.child("norms").total == 3 * 768
    assert "tied" in tree.root.child("lm_head").note


def test_t5_relative_bias_is_in_block_0_of_each_stack_only() -> None:
    tree = model(T5_BASE).tree
    rel = [(path, t, n) for path, t, n, _ in tree.root.iter_tensors() if t.module == "relative_attention_bias"]
    assert [(p.split(".")[1], t.shape, n) for p, t, n in rel] == [("encoder", (32, 12), 1), ("decoder", (32, 12), 1)]
    more = model({**T5_BASE, "relative_attention_num_buckets": 64}).tree
    assert more.total - tree.total == 2 * 32 * 12


def test_t5_gated_gelu_adds_a_projection_per_block() -> None:
    relu = model(T5_BASE).tree
    gated = model({**T5_BASE, "feed_forward_proj": "gated-gelu"}).tree
    assert gated.total - relu.total == (12 + 12) * 768 * 3072
    names = [t.module for t in gated.root.find("encoder.layers.mlp").tensors]
    assert names == ["wi_0", "wi_1", "wo"]


def test_t5_d_kv_sets_attention_width_apart_from_d_model() -> None:
    narrow = model({**T5_BASE, "d_kv": 32}).tree
    attn = narrow.root.find("encoder.layers.self_attention")
    assert attn.total == 4 * 768 * 12 * 32


def test_t5_num_decoder_layers_defaults_to_num_layers() -> None:
    spec = model({**T5_BASE, "num_layers": 3}).spec
    assert (spec["encoder_layers"], spec["decoder_layers"]) == (3, 3)
    spec = model({**T5_BASE, "num_layers": 3, "num_decoder_layers": None}).spec
    assert spec["decoder_layers"] == 3
    # Written as the num_hidden_layers alias, T5Config derives num_decoder_layers from the class default (6).
    aliased = {k: v for k, v in T5_BASE.items() if k != "num_layers"} | {"num_hidden_layers": 3}
    spec = model(aliased).spec
    assert (spec["encoder_layers"], spec["decoder_layers"]) == (3, 6)


def test_t5_aliases_count_the_same() -> None:
    aliased = {k: v for k, v in T5_BASE.items() if k not in ("d_model", "num_heads", "d_kv")}
    aliased |= {"hidden_size": 768, "num_attention_heads": 12, "head_dim": 64}
    assert model(aliased).tree.total == model(T5_BASE).tree.total


def test_t5_untied_key_is_explained_not_counted() -> None:
    m = model(FLAN_T5_XL)
    assert m.tree.total == 2_783_959_040  # transformers 5 ties T5's head regardless of the key
    assert any("separate lm_head (65,798,144 parameters)" in n for n in m.spec.notes)


def test_t5_heads() -> None:
    full = model(T5_BASE).tree
    encoder_only = model({**T5_BASE, "architectures": ["T5EncoderModel"]}).tree
    assert encoder_only.components().keys() == {"shared_embeddings", "encoder"}
    assert encoder_only.total == full.total - full.root.child("decoder").total
    clf = model({**T5_BASE, "architectures": ["T5ForSequenceClassification"], "id2label": {"0": "a", "1": "b", "2": "c"}})
    head = clf.tree.root.child("classification_head")
    assert head.total == 768 * 768 + 768 + 768 * 3 + 3



@pytest.mark.parametrize("model_type", ["t5", "mt5", "umt5"])
def test_t5_token_classification_is_the_encoder_and_question_answering_the_whole_model(model_type: str) -> None:
    """T5ForTokenClassification wraps T5EncoderModel; T5ForQuestionAnswering has both stacks and
    qa_outputs, num_labels wide (2 where id2label is absent), with no lm_head."""
    prefix = {"t5": "T5", "mt5": "MT5", "umt5": "UMT5"}[model_type]
    config = {**T5_BASE, "model_type": model_type}
    encoder = model({**config, "architectures": [f"{prefix}EncoderModel"]}).tree
    base = model({**config, "architectures": [f"{prefix}Model"]}).tree
    labels = {"id2label": {str(i): f"tag{i}" for i in range(9)}}
    tokens = model({**config, "architectures": [f"{prefix}ForTokenClassification"], **labels})
    assert tokens.tree.components().keys() == {"shared_embeddings", "encoder", "classifier"}
    assert tokens.tree.total == encoder.total + 768 * 9 + 9
    assert tokens.spec is not None and tokens.spec.head == "token_classification"
    qa = model({**config, "architectures": [f"{prefix}ForQuestionAnswering"]}).tree
    assert qa.components().keys() == {"shared_embeddings", "encoder", "decoder", "qa_outputs"}
    assert qa.total == base.total + 768 * 2 + 2
    wide = model({**config, "architectures": [f"{prefix}ForQuestionAnswering"], **labels}).tree
    assert wide.root.child("qa_outputs").total == 768 * 9 + 9


def test_a_t5_token_classifier_has_no_decoder_to_cache() -> None:
    from lsp_count.core.memory import Settings, estimate_memory

    tokens = model({**T5_BASE, "architectures": ["T5ForTokenClassification"]})
    assert estimate_memory(tokens, Settings(context=512)).line("kv_cache") is None
    assert estimate_memory(model(T5_BASE), Settings(context=512)).line("kv_cache") is not None


# ----------------------------------------------------------------- switch transformers
def test_switch_sparse_layers_follow_the_step() -> None:
    # SwitchTransformersStack: sparse when step == 1 or i % step == 1; step 0 makes none.
    assert [len(switch_sparse_layers(12, s)) for s in (0, 1, 2, 3, 12, 13)] == [0, 12, 6, 4, 1, 1]
    assert len(switch_sparse_layers(1, 2)) == 0 and len(switch_sparse_layers(2, 5)) == 1
    for layers in range(0, 12):
        for step in range(2, 6):
            assert len(switch_sparse_layers(layers, step)) == sum(1 for i in range(layers) if i % step == 1)


def test_switch_active_params_use_one_expert() -> None:
    tree = model(SWITCH_BASE_8).tree
    expert = 2 * 768 * 3072
    sparse_layers = 6 + 6
    assert tree.active == tree.total - sparse_layers * 7 * expert
    experts = tree.root.find("encoder.layers.sparse_layers.moe.experts")
    assert (experts.repeat, experts.active_repeat) == (8, 1)


def test_switch_sparse_steps_default_from_sparse_layer_counts() -> None:
    base = {k: v for k, v in SWITCH_BASE_8.items() if not k.endswith("sparse_step")}
    spec = model({**base, "num_sparse_encoder_layers": 6, "num_sparse_decoder_layers": 4}).spec
    assert (spec["encoder_sparse_step"], spec["decoder_sparse_step"]) == (2, 3)
    spec = model(base).spec  # class default: 3 sparse layers of 12 -> every 4th
    assert spec["encoder_sparse_step"] == 4
    # A step written in the file wins over the derived one.
    assert model({**base, "num_sparse_encoder_layers": 6, "encoder_sparse_step": 1}).spec["encoder_sparse_step"] == 1


def test_switch_decoder_layers_default_is_12_and_null_means_num_layers() -> None:
    base = {k: v for k, v in SWITCH_BASE_8.items() if k != "num_decoder_layers"} | {"num_layers": 4}
    assert model(base).spec["decoder_layers"] == 12
    assert model({**base, "num_decoder_layers": None}).spec["decoder_layers"] == 4


def test_switch_sparse_layer_surprises_are_warned() -> None:
    base = {k: v for k, v in SWITCH_BASE_8.items() if not k.endswith("sparse_step")}
    m = model({**base, "num_sparse_encoder_layers": 0})
    assert any("layer 1 sparse" in n for n in m.spec.notes)
    m = model({**base, "num_sparse_decoder_layers": 20})
    assert any("no sparse decoder layer" in n for n in m.spec.notes)


# ----------------------------------------------------------------- bart / mbart
def test_bart_positions_have_two_offset_rows_and_buffers_are_not_counted() -> None:
    tree = model({**BART_LARGE, "architectures": ["BartForConditionalGeneration"]}).tree
    pos = tree.root.find("encoder.embeddings.embed_positions")
    assert pos.tensors[0].shape == (1026, 1024)
    # final_logits_bias is a buffer: the tied head adds nothing.
    assert tree.total == 406_291_456


def test_bart_untied_unties_both_stacks_and_the_head() -> None:
    config = {**BART_LARGE, "architectures": ["BartForConditionalGeneration"]}
    tied, untied = model(config).tree, model({**config, "tie_word_embeddings": False}).tree
    assert untied.total - tied.total == 3 * 50265 * 1024


def test_mbart_adds_a_final_norm_per_stack() -> None:
    bart = model(BART_LARGE).tree
    mbart = model({**BART_LARGE, "model_type": "mbart", "architectures": ["MBartModel"]}).tree
    assert mbart.total - bart.total == 2 * 2 * 1024
    assert mbart.root.find("decoder.final_norm").total == 2048


def test_bart_classifier_defaults_to_three_labels() -> None:
    clf = {**BART_LARGE, "architectures": ["BartForSequenceClassification"]}
    head = model(clf).tree.root.child("classification_head")
    assert head.total == 1024 * 1024 + 1024 + 1024 * 3 + 3
    head = model({**clf, "id2label": {"0": "neg", "1": "pos"}}).tree.root.child("classification_head")
    assert head.total == 1024 * 1024 + 1024 + 1024 * 2 + 2
    mbart = {**clf, "model_type": "mbart", "architectures": ["MBartForSequenceClassification"]}
    assert model(mbart).tree.root.child("classification_head").total == 1024 * 1024 + 1024 + 1024 * 2 + 2



@pytest.mark.parametrize("model_type", ["bart", "mbart"])
def test_bart_question_answering_has_two_labels_whatever_id2label_says(model_type: str) -> None:
    """BartForQuestionAnswering sets config.num_labels = 2 before it builds qa_outputs."""
    prefix = {"bart": "Bart", "mbart": "MBart"}[model_type]
    config = {**BART_LARGE, "model_type": model_type}
    base = model({**config, "architectures": [f"{prefix}Model"]}).tree
    for labels in ({}, {"id2label": {str(i): str(i) for i in range(5)}}):
        qa = model({**config, "architectures": [f"{prefix}ForQuestionAnswering"], **labels}).tree
        assert qa.components().keys() == {"shared_embeddings", "encoder", "decoder", "qa_outputs"}
        assert qa.total == base.total + 1024 * 2 + 2


# ----------------------------------------------------------------- whisper
def test_whisper_frozen_encoder_positions_and_tied_proj_out() -> None:
    tree = model(WHISPER_LARGE_V3).tree
    assert tree.total - tree.trainable == 1500 * 1280
    pos = tree.root.find("encoder.embeddings.embed_positions")
    assert pos.frozen and "sinusoidal" in pos.note
    conv = tree.root.find("encoder.embeddings.conv_frontend")
    assert conv.total == 1280 * 128 * 3 + 1280 + 1280 * 1280 * 3 + 1280
    assert tree.root.child("proj_out").total == 0
    untied = model({**WHISPER_LARGE_V3, "tie_word_embeddings": False}).tree
    assert untied.total - tree.total == 51866 * 1280


def test_whisper_k_proj_has_no_bias() -> None:
    attn = model(WHISPER_LARGE_V3).tree.root.find("decoder.layers.cross_attention")
    biased = {t.module for t in attn.tensors if t.kind == "bias"}
    assert biased == {"q_proj", "v_proj", "out_proj"}


def test_whisper_audio_classification_is_encoder_only() -> None:
    config = {**WHISPER_LARGE_V3, "architectures": ["WhisperForAudioClassification"], "use_weighted_layer_sum": True}
    tree = model(config).tree
    assert tree.components().keys() == {"encoder", "classifier"}
    assert tree.root.child("classifier").total == 33 + 1280 * 256 + 256 + 256 * 2 + 2


def test_kv_cache_facts_are_readable() -> None:
    spec = model(WHISPER_LARGE_V3).spec
    facts = {k: spec[k] for k in ("decoder_layers", "decoder_heads", "decoder_kv_heads", "decoder_head_dim",
                                  "encoder_layers", "max_positions", "max_source_positions")}
    assert facts == {"decoder_layers": 32, "decoder_heads": 20, "decoder_kv_heads": 20, "decoder_head_dim": 64,
                     "encoder_layers": 32, "max_positions": 448, "max_source_positions": 1500}
    t5 = model(FLAN_T5_XL).spec
    assert (t5["decoder_layers"], t5["decoder_kv_heads"], t5["decoder_head_dim"]) == (24, 32, 64)


# ----------------------------------------------------------------- bad input
def test_bad_kinds_are_located_value_errors() -> None:
    text = json.dumps({**T5_BASE, "d_model": "big"}, indent=2)
    errs = errors(text=text)
    assert [e.code for e in errs] == ["LC102"]
    assert errs[0].span.start.line == next(i for i, line in enumerate(text.splitlines()) if '"d_model"' in line)
    assert [e.code for e in errors({**SWITCH_BASE_8, "router_bias": "yes"})] == ["LC102"]
    assert [e.code for e in errors({**SWITCH_BASE_8, "num_sparse_encoder_layers": -1, "encoder_sparse_step": 2})] == ["LC102"]


def test_heads_must_divide_d_model_in_bart_and_whisper() -> None:
    text = json.dumps({**BART_LARGE, "decoder_attention_heads": 3}, indent=2)
    errs = errors(text=text)
    assert [e.code for e in errs] == ["LC103"] and "decoder_attention_heads (3)" in errs[0].message
    assert errs[0].span.start.line == next(i for i, line in enumerate(text.splitlines()) if "decoder_attention_heads" in line)
    aliased = {k: v for k, v in WHISPER_LARGE_V3.items() if k != "encoder_attention_heads"} | {"num_attention_heads": 7}
    errs = errors(aliased)
    assert len(errs) == 1 and "num_attention_heads (7)" in errs[0].message
    # T5 attention is heads × d_kv wide: no divisibility needed.
    assert not errors({**T5_BASE, "num_heads": 7})


def test_pad_token_outside_the_vocabulary_is_an_error() -> None:
    small = {**WHISPER_LARGE_V3, "vocab_size": 1000}
    small.pop("pad_token_id")
    errs = errors(small)  # class default pad_token_id 50256 does not fit a 1000-token vocabulary
    assert len(errs) == 1 and "pad_token_id (class default) 50256" in errs[0].message
    assert not errors({**small, "pad_token_id": 999}) and not errors({**small, "pad_token_id": -1})
    assert errors({**BART_LARGE, "pad_token_id": 50265})


def test_bad_feed_forward_proj_is_an_error() -> None:
    errs = errors({**T5_BASE, "feed_forward_proj": "gelu-gated"})
    assert len(errs) == 1 and errs[0].code == "LC103"
    assert not errors({**T5_BASE, "feed_forward_proj": "gated-silu"})
