"""ELECTRA, CamemBERT, data2vec-text, XLM-RoBERTa-XL, RoBERTa-PreLayerNorm, Megatron-BERT, RoFormer and RemBERT
without torch: hand counts of small configs, each family's class defaults, and the configs transformers refuses.

The class-default totals were taken once from transformers 5.25 on the meta device (tests/parity checks every
family against it on random configs too).
"""

from __future__ import annotations

import pytest

from config_models import errors, model

# A small BERT-shaped body the hand counts share: hidden 8, 2 heads, MLP 12 wide, 1 layer, 20 tokens,
# 10 positions, 2 token types.
SMALL = {"hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12, "num_hidden_layers": 1,
         "vocab_size": 20, "max_position_embeddings": 10, "type_vocab_size": 2}
H, F, V, P, T = 8, 12, 20, 10, 2
ATTENTION = 4 * (H * H + H)            # query, key, value, output dense: 288
MLP = (H * F + F) + (F * H + H)        # intermediate.dense, output.dense: 212
NORM = 2 * H                           # a LayerNorm's weight and bias: 16
LAYER = ATTENTION + MLP + 2 * NORM     # two LayerNorms a layer, wherever they sit: 532
MLM_TIED = (H * H + H) + NORM + V      # transform dense + LayerNorm + the vocabulary bias: 108


@pytest.mark.parametrize("model_type, total", [
    ("electra", 13_549_057),                  # ElectraForPreTraining (the discriminator)
    ("camembert", 109_514_298),               # CamembertForMaskedLM
    ("data2vec-text", 109_514_298),           # Data2VecTextForMaskedLM
    ("xlm-roberta-xl", 3_482_741_760),        # XLMRobertaXLForMaskedLM
    ("roberta-prelayernorm", 124_698_201),    # RobertaPreLayerNormForMaskedLM
    ("megatron-bert", 333_671_808),           # MegatronBertForMaskedLM
    ("roformer", 124_197_968),                # RoFormerForMaskedLM (98,304 of it a frozen table)
    ("rembert", 993_263_548),                 # RemBertForMaskedLM
])
def test_class_defaults_equal_transformers(model_type: str, total: int) -> None:
    assert model({"model_type": model_type}).tree.total == total


def test_roformer_defaults_freeze_the_sinusoidal_table() -> None:
    tree = model({"model_type": "roformer"}).tree
    # 1,536 positions × 768 / 12 heads, requires_grad=False
    assert tree.total - tree.trainable == 1536 * 64


# ----------------------------------------------------------------- ELECTRA
def test_electra_discriminator_by_hand() -> None:
    cfg = {"model_type": "electra", **SMALL, "embedding_size": 4, "architectures": ["ElectraForPreTraining"]}
    tree = model(cfg).tree
    embeddings = (V + P + T) * 4 + 2 * 4         # word, position, token type tables 4 wide + LayerNorm(4)
    projection = 4 * H + H                       # embeddings_project: 4 -> 8
    discriminator = (H * H + H) + (H * 1 + 1)    # dense + dense_prediction (one logit a token)
    assert tree.total == embeddings + projection + LAYER + discriminator == 789
    assert "pooler" not in tree.components() and "mlm_head" not in tree.components()


def test_electra_generator_ties_a_decoder_of_the_embedding_width() -> None:
    cfg = {"model_type": "electra", **SMALL, "embedding_size": 4, "architectures": ["ElectraForMaskedLM"]}
    tied = model(cfg).tree
    embeddings, projection = (V + P + T) * 4 + 2 * 4, 4 * H + H
    # generator_predictions: dense 8 -> 4, LayerNorm(4); generator_lm_head tied to the 20 × 4 table: its bias
    generator = (H * 4 + 4) + 2 * 4 + V
    assert tied.total == embeddings + projection + LAYER + generator == 772
    untied = model({**cfg, "tie_word_embeddings": False}).tree
    assert untied.total - tied.total == 4 * V


def test_electra_projects_only_where_the_widths_differ() -> None:
    cfg = {"model_type": "electra", **SMALL, "architectures": ["ElectraModel"]}
    assert model({**cfg, "embedding_size": H}).tree.components().get("embedding_projection") is None
    assert model({**cfg, "embedding_size": 4}).tree.components()["embedding_projection"] == 4 * H + H


def test_electra_multiple_choice_sequence_summary() -> None:
    cfg = {"model_type": "electra", **SMALL, "embedding_size": H, "architectures": ["ElectraForMultipleChoice"]}
    body = (V + P + T) * H + NORM + LAYER
    # summary_use_proj (true by default): summary 8 -> 8, then the classifier 8 -> 1
    assert model(cfg).tree.total == body + (H * H + H) + (H + 1)
    assert model({**cfg, "summary_use_proj": False}).tree.total == body + (H + 1)
    three = {**cfg, "summary_proj_to_labels": True, "id2label": {"0": "a", "1": "b", "2": "c"}}
    assert model(three).tree.total == body + (H * 3 + 3) + (H + 1)


def test_electra_refuses_an_attn_summary_in_multiple_choice_only() -> None:
    cfg = {"model_type": "electra", **SMALL, "summary_type": "attn"}
    problems = errors({**cfg, "architectures": ["ElectraForMultipleChoice"]})
    assert problems and "summary_type" in problems[0].message
    assert not errors({**cfg, "architectures": ["ElectraForSequenceClassification"]})


def test_electra_floors_heads_that_do_not_divide_the_width() -> None:
    # 3 heads of 8: int(8 / 3) = 2 wide, query/key/value 8 -> 6, the output dense 8 -> 8 all the same
    cfg = {"model_type": "electra", **SMALL, "num_attention_heads": 3, "embedding_size": H,
           "architectures": ["ElectraModel"]}
    report = model(cfg)
    attention = 3 * (H * 6 + 6) + (H * H + H)
    assert report.tree.root.child("layers").child("attention").total == attention
    assert report.tree.total == (V + P + T) * H + NORM + attention + MLP + 2 * NORM


# ----------------------------------------------------------------- RoBERTa-shaped
@pytest.mark.parametrize("model_type", ["camembert", "data2vec-text"])
def test_roberta_shaped_families_count_as_roberta(model_type: str) -> None:
    cfg = {**SMALL, "architectures": [], "pad_token_id": 1}
    for suffix in ("ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice", "Model"):
        prefix = {"camembert": "Camembert", "data2vec-text": "Data2VecText"}[model_type]
        ours = model({**cfg, "model_type": model_type, "architectures": [prefix + suffix]}).tree.total
        roberta = model({**cfg, "model_type": "roberta", "architectures": ["Roberta" + suffix]}).tree.total
        assert ours == roberta


def test_xlm_roberta_xl_moves_its_norms_before_the_blocks() -> None:
    cfg = {"model_type": "xlm-roberta-xl", **SMALL, "architectures": ["XLMRobertaXLForMaskedLM"]}
    tree = model(cfg).tree
    # no LayerNorm on the embeddings; attention.self_attn_layer_norm and LayerNorm in each layer; encoder.LayerNorm
    assert tree.components()["embeddings"] == (V + P + T) * H
    assert tree.components()["final_norm"] == NORM
    assert tree.total == (V + P + T) * H + LAYER + NORM + MLM_TIED == 912
    names = {t.name for t in tree.root.child("layers").child("norms").tensors}
    assert names == {"attention.self_attn_layer_norm.weight", "attention.self_attn_layer_norm.bias",
                     "LayerNorm.weight", "LayerNorm.bias"}


def test_roberta_prelayernorm_keeps_its_embedding_norm_and_adds_a_final_one() -> None:
    cfg = {"model_type": "roberta-prelayernorm", **SMALL, "architectures": ["RobertaPreLayerNormForMaskedLM"]}
    tree = model(cfg).tree
    assert tree.total == (V + P + T) * H + NORM + LAYER + NORM + MLM_TIED == 928


def test_megatron_bert_pretraining_by_hand() -> None:
    cfg = {"model_type": "megatron-bert", **SMALL, "architectures": ["MegatronBertForPreTraining"]}
    tree = model(cfg).tree
    # embeddings without a LayerNorm, encoder.ln after the stack, pooler, MLM head, next-sentence (8 -> 2)
    assert tree.total == (V + P + T) * H + LAYER + NORM + (H * H + H) + MLM_TIED + (H * 2 + 2) == 1002


@pytest.mark.parametrize("model_type, architecture", [("xlm-roberta-xl", "XLMRobertaXLForCausalLM"),
                                                      ("megatron-bert", "MegatronBertForCausalLM"),
                                                      ("roberta-prelayernorm", "RobertaPreLayerNormForCausalLM")])
def test_pre_norm_cross_attention_has_its_own_norm(model_type: str, architecture: str) -> None:
    cfg = {"model_type": model_type, **SMALL, "architectures": [architecture], "is_decoder": True}
    plain = model(cfg).tree.total
    assert model({**cfg, "add_cross_attention": True}).tree.total - plain == ATTENTION + NORM
    problems = errors({**cfg, "is_decoder": False, "add_cross_attention": True})
    assert problems and "is_decoder" in problems[0].message


# ----------------------------------------------------------------- RoFormer
def test_roformer_by_hand() -> None:
    cfg = {"model_type": "roformer", **SMALL, "architectures": ["RoFormerForMaskedLM"]}
    tree = model(cfg).tree
    embeddings = (V + T) * H + NORM              # no learned position table
    table = P * (H // 2)                         # encoder.embed_positions: 10 × 4, frozen
    assert tree.total == embeddings + table + LAYER + MLM_TIED == 872
    assert tree.trainable == tree.total - table


def test_roformer_embedding_size_and_its_projection() -> None:
    cfg = {"model_type": "roformer", **SMALL, "embedding_size": 4, "architectures": ["RoFormerForMaskedLM"]}
    tree = model(cfg).tree
    embeddings, projection = (V + T) * 4 + 2 * 4, 4 * H + H
    mlm = (H * 4 + 4) + 2 * 4 + V                # transform 8 -> 4, LayerNorm(4), bias; decoder tied (20 × 4)
    assert tree.total == embeddings + projection + P * (H // 2) + LAYER + mlm
    assert model({**cfg, "embedding_size": None}).tree.total == 872  # null: hidden_size, as absent


def test_roformer_question_answering_has_two_outputs_whatever_num_labels_says() -> None:
    cfg = {"model_type": "roformer", **SMALL, "architectures": ["RoFormerForQuestionAnswering"]}
    five = {**cfg, "id2label": {str(i): str(i) for i in range(5)}}
    assert model(five).tree.components()["qa_outputs"] == H * 2 + 2
    bert = model({**five, "model_type": "bert", "architectures": ["BertForQuestionAnswering"]}).tree
    assert bert.components()["qa_outputs"] == H * 5 + 5


def test_roformer_multiple_choice_reads_summary_keys_it_does_not_declare() -> None:
    cfg = {"model_type": "roformer", **SMALL, "architectures": ["RoFormerForMultipleChoice"]}
    without = model(cfg).tree.total          # no summary_use_proj: no summary Linear
    assert model({**cfg, "summary_use_proj": True}).tree.total - without == H * H + H
    assert model({**cfg, "summary_use_proj": None}).tree.total == without


# ----------------------------------------------------------------- RemBERT
def test_rembert_decoupled_embeddings_by_hand() -> None:
    cfg = {"model_type": "rembert", **SMALL, "input_embedding_size": 4, "output_embedding_size": 6,
           "architectures": ["RemBertForMaskedLM"]}
    tree = model(cfg).tree
    embeddings = (V + P + T) * 4 + 2 * 4         # 4 wide, LayerNorm(4)
    mapping = 4 * H + H                          # encoder.embedding_hidden_mapping_in, always
    mlm = (H * 6 + 6) + 2 * 6 + (6 * V + V)      # dense 8 -> 6, LayerNorm(6), its own decoder 6 -> 20
    assert tree.total == embeddings + mapping + LAYER + mlm == 914
    # RemBERT ties nothing, whatever tie_word_embeddings says
    assert model({**cfg, "tie_word_embeddings": True}).tree.total == 914
    same = model({**cfg, "input_embedding_size": H, "architectures": ["RemBertModel"]}).tree
    assert same.components()["embedding_projection"] == H * H + H


def test_rembert_refuses_heads_that_do_not_divide_the_width() -> None:
    problems = errors({"model_type": "rembert", **SMALL, "num_attention_heads": 3})
    assert problems and "divide" in problems[0].message


# ----------------------------------------------------------------- padding indices
@pytest.mark.parametrize("model_type", ["electra", "megatron-bert", "roformer", "rembert", "camembert"])
def test_a_pad_token_outside_the_vocabulary_is_refused(model_type: str) -> None:
    problems = errors({"model_type": model_type, **SMALL, "pad_token_id": V})
    assert problems and "outside the vocabulary" in problems[0].message
    # negative indices count from the end (32 positions: CamemBERT pads its position table with it too)
    assert not errors({"model_type": model_type, **SMALL, "max_position_embeddings": 32, "pad_token_id": -V})


@pytest.mark.parametrize("model_type", ["camembert", "data2vec-text", "xlm-roberta-xl", "roberta-prelayernorm"])
def test_roberta_shaped_position_tables_pad_with_the_pad_token(model_type: str) -> None:
    # 10 positions: a pad token of 12 is in the 20-token vocabulary but not in the position table
    problems = errors({"model_type": model_type, **SMALL, "pad_token_id": 12})
    assert problems and "position table" in problems[0].message
    assert not errors({"model_type": "megatron-bert", **SMALL, "pad_token_id": 12})  # its positions have no padding


# ----------------------------------------------------------------- LoRA
@pytest.mark.parametrize("config, adapters", [
    # rank 2 on every linear but the MLM decoder (peft's all-linear leaves out the output embeddings, tied or
    # not): attention 4 × 2·(8 + 8), MLP 2·(8 + 12) twice, then what each family adds; peft counts the same.
    ({"model_type": "rembert", "input_embedding_size": 4, "output_embedding_size": 6,
      "architectures": ["RemBertForMaskedLM"]}, 128 + 80 + 2 * (4 + 8) + 2 * (8 + 6)),  # mapping, head dense: 260
    ({"model_type": "electra", "embedding_size": 4, "tie_word_embeddings": False,
      "architectures": ["ElectraForMaskedLM"]}, 128 + 80 + 2 * (4 + 8) + 2 * (8 + 4)),   # projection, generator: 256
    ({"model_type": "roformer", "tie_word_embeddings": False,
      "architectures": ["RoFormerForMaskedLM"]}, 128 + 80 + 2 * (8 + 8)),                 # transform dense: 240
])
def test_all_linear_lora_leaves_out_the_untied_mlm_decoder(config: dict, adapters: int) -> None:
    from lsp_count.core.memory import lora_adapter_params

    tree = model({**SMALL, **config}).tree
    assert lora_adapter_params(tree, 2) == adapters
    # named, the decoder is adapted as peft adapts a named module
    decoder = {"rembert": "decoder", "electra": "generator_lm_head", "roformer": "decoder"}[config["model_type"]]
    assert lora_adapter_params(tree, 2, (decoder,)) == 2 * ({"rembert": 6, "electra": 4}.get(config["model_type"], 8) + V)
