"""BertGeneration, ERNIE, X-MOD, RoCBERT and ModernBERT-Decoder without torch: each class's defaults, small configs counted by hand, and
the configs transformers refuses.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks every
family against it on random configs too).
"""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import errors, model
from small_encoder import BERT_EMBEDDINGS, H, LAYER, LINEAR, NORM, P, SMALL, V


@pytest.mark.parametrize("model_type, architecture, total", [
    ("bert-generation", "BertGenerationEncoder", 354_402_304),
    ("bert-generation", "BertGenerationDecoder", 354_452_662),
    ("ernie", "ErnieModel", 109_482_240),
    ("ernie", "ErnieForMaskedLM", 109_514_298),
    ("ernie", "ErnieForCausalLM", 109_514_298),
    ("ernie", "ErnieForPreTraining", 110_106_428),
    ("ernie", "ErnieForNextSentencePrediction", 109_483_778),
    ("ernie", "ErnieForSequenceClassification", 109_483_778),
    ("ernie", "ErnieForTokenClassification", 108_893_186),
    ("ernie", "ErnieForQuestionAnswering", 108_893_186),
    ("ernie", "ErnieForMultipleChoice", 109_483_009),
    ("xmod", "XmodModel", 116_573_952),
    ("xmod", "XmodForMaskedLM", 116_606_010),
    ("xmod", "XmodForCausalLM", 116_606_010),
    ("xmod", "XmodForSequenceClassification", 116_575_490),
    ("xmod", "XmodForTokenClassification", 115_984_898),
    ("xmod", "XmodForQuestionAnswering", 115_984_898),
    ("xmod", "XmodForMultipleChoice", 116_574_721),
    ("roc_bert", "RoCBertModel", 124_482_048),
    ("roc_bert", "RoCBertForMaskedLM", 124_514_106),
    ("roc_bert", "RoCBertForCausalLM", 124_514_106),
    ("roc_bert", "RoCBertForPreTraining", 125_104_698),
    ("roc_bert", "RoCBertForSequenceClassification", 124_483_586),
    ("roc_bert", "RoCBertForTokenClassification", 123_892_994),
    ("roc_bert", "RoCBertForQuestionAnswering", 123_892_994),
    ("roc_bert", "RoCBertForMultipleChoice", 124_482_817),
    ("modernbert-decoder", "ModernBertDecoderModel", 149_014_272),
    ("modernbert-decoder", "ModernBertDecoderForCausalLM", 149_655_232),
    ("modernbert-decoder", "ModernBertDecoderForSequenceClassification", 149_606_400),
])
def test_class_defaults_equal_transformers(model_type: str, architecture: str, total: int) -> None:
    assert model({"model_type": model_type, "architectures": [architecture]}).tree.total == total


# ----------------------------------------------------------------- BertGeneration

def test_bert_generation_by_hand() -> None:
    config = {"model_type": "bert-generation", **SMALL}
    # No token types and no pooler: word, position, LayerNorm (256), then the layer.
    encoder = model({**config, "architectures": ["BertGenerationEncoder"]}).tree
    assert encoder.total == V * H + P * H + NORM + LAYER == 788
    # The decoder's head: lm_head.decoder tied to the word table, and the vocabulary bias lm_head.bias.
    decoder = model({**config, "architectures": ["BertGenerationDecoder"]}).tree
    assert decoder.total == 788 + V == 808
    untied = model({**config, "architectures": ["BertGenerationDecoder"], "tie_word_embeddings": False}).tree
    assert untied.total == 808 + (V * H + V) == 988  # the decoder's own weight and bias beside lm_head.bias
    # A decoder with cross-attention: query, key, value, output.dense and a LayerNorm more per layer.
    cross = model({**config, "architectures": ["BertGenerationDecoder"], "is_decoder": True,
                   "add_cross_attention": True}).tree
    assert cross.total == 808 + 4 * LINEAR + NORM == 1112


def test_bert_generation_refuses_heads_that_do_not_divide_the_width() -> None:
    assert errors({"model_type": "bert-generation", **SMALL, "hidden_size": 9})


# ----------------------------------------------------------------- ERNIE

def test_ernie_task_types_by_hand() -> None:
    config = {"model_type": "ernie", **SMALL, "architectures": ["ErnieModel"]}
    # BERT's model (embeddings, the layer, the pooler) where use_task_id is off, whatever the table's size says.
    assert model({**config, "task_type_vocab_size": 7}).tree.total == BERT_EMBEDDINGS + LAYER + LINEAR == 876
    assert model({**config, "use_task_id": True}).tree.total == 876 + 3 * H == 900  # task_type_embeddings, 3 rows
    # Next-sentence prediction: the pooler, then cls.seq_relationship (8 → 2).
    nsp = model({**config, "use_task_id": True, "architectures": ["ErnieForNextSentencePrediction"]}).tree
    assert nsp.total == 900 + (H * 2 + 2) == 918


# ----------------------------------------------------------------- X-MOD

ADAPTER = (H * 4 + 4) + (4 * H + H)     # dense1 (8 → 8 // 2) and dense2 (back), with biases: 76


def test_xmod_adapters_by_hand() -> None:
    config = {"model_type": "xmod", **SMALL, "pad_token_id": 1, "architectures": ["XmodModel"]}
    # One adapter per distinct language in every layer (an nn.ModuleDict: en_XX written twice is one).
    two = model({**config, "languages": ["en_XX", "de_DE", "en_XX"]}).tree
    assert two.total == BERT_EMBEDDINGS + LAYER + 2 * ADAPTER + LINEAR == 1028
    # pre_norm: a LayerNorm after the stack (encoder.LayerNorm); adapter_layer_norm: one more in every layer.
    normed = model({**config, "languages": ["en_XX", "de_DE"], "pre_norm": True, "adapter_layer_norm": True}).tree
    assert normed.total == 1028 + NORM + NORM == 1060
    # A reduction beyond the width: a bottleneck of 0, dense2's bias left (8).
    assert model({**config, "adapter_reduction_factor": 16}).tree.total == 876 + H == 884
    assert model({**config, "languages": []}).tree.total == 876


@pytest.mark.parametrize("language", ["en.XX", ""])
def test_xmod_refuses_a_language_no_module_can_be_named(language: str) -> None:
    found = errors({"model_type": "xmod", **SMALL, "pad_token_id": 1, "languages": [language]})
    assert found and "cannot name an adapter module" in found[0].message


# ----------------------------------------------------------------- RoCBERT

ROC = {"model_type": "roc_bert", **SMALL, "pronunciation_vocab_size": 6, "pronunciation_embed_dim": 4,
       "shape_vocab_size": 5, "shape_embed_dim": 3}
ROC_TABLES = 6 * 4 + 5 * 3              # pronunciation_embed and shape_embed: 39


def test_roc_bert_by_hand() -> None:
    config = {**ROC, "architectures": ["RoCBertModel"]}
    # map_inputs_layer: word, pronunciation and shape side by side (8 + 4 + 3) → 8, a bias.
    mapped = (H + 4 + 3) * H + H
    assert model(config).tree.total == BERT_EMBEDDINGS + ROC_TABLES + mapped + LAYER + LINEAR == 1043
    # No concatenation: no map, the tables stay.
    assert model({**config, "concat_input": False}).tree.total == 1043 - mapped == 915
    # A disabled table is built but not mapped in: 12 → 8.
    assert model({**config, "enable_shape": False}).tree.total == 915 + (12 * H + H) == 1019
    # Pre-training: the pooler and the MLM head (transform dense + LayerNorm, a bias; tied decoder), no NSP.
    pre = model({**ROC, "architectures": ["RoCBertForPreTraining"]}).tree
    assert pre.total == 1043 + LINEAR + NORM + V == 1151


def test_roc_bert_refuses_a_pad_token_outside_its_tables() -> None:
    found = errors({**ROC, "pad_token_id": 7})  # inside the vocabulary (20), outside pronunciation's 6 rows
    assert found and "pronunciation_vocab_size" in found[0].message


# ----------------------------------------------------------------- ModernBERT-Decoder

DECODER = {"model_type": "modernbert-decoder", "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
           "num_hidden_layers": 2, "vocab_size": 20, "pad_token_id": 0}


def test_modernbert_decoder_by_hand() -> None:
    # No biases by default (norms included: a LayerNorm is its weight, 8). Layer: q, k, v and Wo (4 × 64), Wi (8 → 2 × 12,
    # 192), Wo (12 → 8, 96), mlp_norm, and attn_norm from layer 1 on (an nn.Identity in layer 0).
    layer0 = 4 * 64 + 192 + 96 + H
    base = model({**DECODER, "architectures": ["ModernBertDecoderModel"]}).tree
    assert base.total == (V * H + H) + layer0 + (layer0 + H) + H == 1288  # embeddings + norm, two layers, final_norm
    # The causal LM: lm_head.dense and lm_head.norm, the decoder tied to the word table and its bias (decoder_bias).
    lm = model({**DECODER, "architectures": ["ModernBertDecoderForCausalLM"]}).tree
    assert lm.total == 1288 + 64 + H + V == 1380
    # Untied, with classifier_bias and norm_bias: five norms gain a bias (40), the dense one (8), the decoder its weight.
    untied = model({**DECODER, "architectures": ["ModernBertDecoderForCausalLM"], "tie_word_embeddings": False,
                    "classifier_bias": True, "norm_bias": True}).tree
    assert untied.total == 1288 + 5 * H + (72 + 2 * H) + (V * H + V) == 1596
    # The classifier class: head.dense and head.norm, then the classifier (2 labels), a bias on each Linear where
    # classifier_bias.
    for bias, total in ((False, 1288 + 64 + H + 2 * H), (True, 1288 + 72 + H + 2 * H + 2)):
        classifier = model({**DECODER, "architectures": ["ModernBertDecoderForSequenceClassification"],
                            "classifier_bias": bias}).tree
        assert classifier.total == total


def test_modernbert_decoder_refuses_what_its_class_refuses() -> None:
    assert errors({**DECODER, "hidden_size": 9})  # heads must divide the width
    assert errors({**DECODER, "layer_types": ["full_attention"]})  # one type per layer
    assert errors({**DECODER, "pad_token_id": None})  # a whole number, no null


def test_modernbert_decoder_caches_its_full_layers_whole_and_its_sliding_layers_at_half_the_local_window() -> None:
    """ModernBertDecoderForCausalLM always caches (no is_decoder gate): layer_types, else every
    global_attn_every_n_layers-th layer full and the others sliding, which keep local_attention // 2 tokens."""
    def cache(**config: object):
        report = estimate_memory(model({**DECODER, "architectures": ["ModernBertDecoderForCausalLM"], **config}),
                                 Settings(context=100))
        return report.line("kv_cache"), report.notes

    line, _ = cache(local_attention=16, global_attn_every_n_layers=2, num_hidden_layers=4)
    spec = model({**DECODER, "architectures": ["ModernBertDecoderForCausalLM"], "num_hidden_layers": 4}).spec
    heads, d = spec.values["num_heads"], spec.values["head_dim"]
    assert line.exact and line.bytes == (100 + 8 + 100 + 8) * 2 * heads * d * 2, line
    line, _ = cache(local_attention=16, num_hidden_layers=2, layer_types=["sliding_attention", "sliding_attention"])
    assert line.bytes == (8 + 8) * 2 * heads * d * 2
    line, notes = cache(local_attention=None)  # (transformers' attention cannot run without a window)
    assert line is None
    assert "ModernBertDecoderForCausalLM's sliding layers have no window of a whole number of tokens (local_attention " \
           "// 2; transformers' attention cannot run); not included" in notes, notes