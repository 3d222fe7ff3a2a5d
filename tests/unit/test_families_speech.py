"""The speech encoders (layout "speech_encoder": wav2vec2, hubert, data2vec-audio, wavlm, unispeech, unispeech-sat,
sew, sew-d, wav2vec2-conformer, wav2vec2-bert), without torch: each head
class's class defaults as transformers 5.25 builds them on the meta device (``sum(p.numel() for p in
model.parameters())``, taken there once), small configs counted by hand (the arithmetic in each test), the configs
their classes refuse, and the memory estimate's word on the cache (an encoder keeps none). LoRA against peft where
peft is installed."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import Settings, estimate_memory

from config_models import error_messages, lora_counts, model as count, peft_lora_counts

# transformers 5.25, meta device, each class with its config class's defaults.
CLASS_DEFAULTS = {
    ("wav2vec2", "Wav2Vec2Model"): 94_371_712,
    ("wav2vec2", "Wav2Vec2ForCTC"): 94_396_320,
    ("wav2vec2", "Wav2Vec2ForSequenceClassification"): 94_569_090,
    ("wav2vec2", "Wav2Vec2ForAudioFrameClassification"): 94_373_250,
    ("wav2vec2", "Wav2Vec2ForXVector"): 100_482_908,
    ("wav2vec2", "Wav2Vec2ForPreTraining"): 95_044_608,
    ("hubert", "HubertModel"): 94_371_712,
    ("hubert", "HubertForCTC"): 94_396_320,
    ("hubert", "HubertForSequenceClassification"): 94_569_090,
    ("data2vec-audio", "Data2VecAudioModel"): 93_164_288,
    ("data2vec-audio", "Data2VecAudioForCTC"): 93_188_896,
    ("data2vec-audio", "Data2VecAudioForSequenceClassification"): 93_361_666,
    ("data2vec-audio", "Data2VecAudioForAudioFrameClassification"): 93_165_826,
    ("data2vec-audio", "Data2VecAudioForXVector"): 99_275_484,
    ("wavlm", "WavLMModel"): 94_381_936,
    ("wavlm", "WavLMForCTC"): 94_406_544,
    ("wavlm", "WavLMForSequenceClassification"): 94_579_314,
    ("wavlm", "WavLMForAudioFrameClassification"): 94_383_474,
    ("wavlm", "WavLMForXVector"): 100_493_132,
    ("unispeech", "UniSpeechModel"): 94_371_712,
    ("unispeech", "UniSpeechForCTC"): 94_396_320,
    ("unispeech", "UniSpeechForSequenceClassification"): 94_569_090,
    ("unispeech", "UniSpeechForPreTraining"): 95_106_640,
    ("unispeech-sat", "UniSpeechSatModel"): 94_371_712,
    ("unispeech-sat", "UniSpeechSatForCTC"): 94_396_320,
    ("unispeech-sat", "UniSpeechSatForSequenceClassification"): 94_569_090,
    ("unispeech-sat", "UniSpeechSatForAudioFrameClassification"): 94_373_250,
    ("unispeech-sat", "UniSpeechSatForXVector"): 100_482_908,
    ("unispeech-sat", "UniSpeechSatForPreTraining"): 95_535_872,
    ("sew", "SEWModel"): 93_196_416,
    ("sew", "SEWForCTC"): 93_221_024,
    ("sew", "SEWForSequenceClassification"): 93_393_794,
    ("sew-d", "SEWDModel"): 93_589_632,
    ("sew-d", "SEWDForCTC"): 93_614_240,
    ("sew-d", "SEWDForSequenceClassification"): 93_787_010,
    ("wav2vec2-conformer", "Wav2Vec2ConformerModel"): 179_730_304,
    ("wav2vec2-conformer", "Wav2Vec2ConformerForSequenceClassification"): 179_927_682,
    ("wav2vec2-conformer", "Wav2Vec2ConformerForAudioFrameClassification"): 179_731_842,
    ("wav2vec2-conformer", "Wav2Vec2ConformerForXVector"): 185_841_500,
    ("wav2vec2-conformer", "Wav2Vec2ConformerForPreTraining"): 180_403_200,
    ("wav2vec2-bert", "Wav2Vec2BertModel"): 580_493_120,
    ("wav2vec2-bert", "Wav2Vec2BertForSequenceClassification"): 581_281_858,
    ("wav2vec2-bert", "Wav2Vec2BertForAudioFrameClassification"): 580_495_170,
    ("wav2vec2-bert", "Wav2Vec2BertForXVector"): 586_735_388,
}
# (its config class has no vocab_size: the CTC head needs one given)
CONFORMER_CTC_WITH_32_TOKENS = 179_754_912
W2V_BERT_CTC_WITH_32_TOKENS = 580_525_920


def total(config: dict) -> int:
    return count(config).tree.total


@pytest.mark.parametrize(("model_type", "architecture"), sorted(CLASS_DEFAULTS))
def test_class_defaults_are_transformers_totals(model_type: str, architecture: str) -> None:
    assert total({"model_type": model_type, "architectures": [architecture]}) == CLASS_DEFAULTS[(model_type, architecture)]


# width 8, 2 heads, 1 layer, a feed-forward 4 wide, two feature convolutions of 4 channels, a positional
# convolution 3 wide in 2 groups, SpecAugment off (no mask vector)
SMALL = {"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 4,
         "conv_dim": [4, 4], "conv_kernel": [3, 2], "conv_stride": [2, 2], "num_conv_pos_embeddings": 3,
         "num_conv_pos_embedding_groups": 2, "mask_time_prob": 0}
# conv 0: 4·1·3, its GroupNorm 4 + 4; conv 1: 4·4·2 (no biases: conv_bias false)
FEATURES = 12 + 8 + 32
# feature projection: LayerNorm 4 + 4, Linear 4·8 + 8
PROJECTION = 8 + 40
# weight-normed positional conv: weight_g 1·1·3, weight_v 8·(8 / 2)·3, bias 8
POSITIONAL = 3 + 96 + 8
# q, k, v, out 4·(8·8 + 8); intermediate_dense 8·4 + 4, output_dense 4·8 + 8; layer_norm, final_layer_norm 2·(8 + 8)
LAYER = 288 + 36 + 40 + 32
BASE = FEATURES + PROJECTION + POSITIONAL + LAYER + 16  # and the encoder's LayerNorm 8 + 8


def test_wav2vec2_by_hand() -> None:
    w = {"model_type": "wav2vec2", **SMALL}
    assert BASE == 619
    assert total({**w, "architectures": ["Wav2Vec2Model"]}) == BASE
    assert total({**w, "architectures": ["Wav2Vec2Model"], "mask_time_prob": 0.05}) == BASE + 8  # masked_spec_embed
    assert total({**w, "architectures": ["Wav2Vec2ForCTC"], "vocab_size": 10}) == BASE + 8 * 10 + 10
    # "layer": a LayerNorm (4 + 4) after each convolution in place of the one GroupNorm; and conv biases 4 + 4
    assert total({**w, "architectures": ["Wav2Vec2Model"], "feat_extract_norm": "layer", "conv_bias": True}) == \
        BASE + 8 + 8
    # pre-norm layers with attention adapters: LayerNorm 8 + 8, linear_1 8·3 + 3, linear_2 3·8 + 8
    assert total({**w, "architectures": ["Wav2Vec2Model"], "do_stable_layer_norm": True, "adapter_attn_dim": 3}) == \
        BASE + 16 + 27 + 32
    # (post-norm layers hold no adapter)
    assert total({**w, "architectures": ["Wav2Vec2Model"], "adapter_attn_dim": 3}) == BASE
    # the convolutional adapter 5 wide: proj 8·5 + 5 and its LayerNorm 5 + 5, 2 convolutions 5 → 10, kernel 3, biased;
    # the CTC head reads its width
    adapter = 45 + 10 + 2 * (10 * 5 * 3 + 10)
    assert total({**w, "architectures": ["Wav2Vec2ForCTC"], "vocab_size": 10, "add_adapter": True,
                  "output_hidden_size": 5, "num_adapter_layers": 2}) == BASE + adapter + 5 * 10 + 10


def test_wav2vec2_heads_by_hand() -> None:
    w = {"model_type": "wav2vec2", **SMALL, "id2label": {"0": "a", "1": "b", "2": "c"}}
    # layer_weights (1 layer + the embeddings), projector 8·6 + 6, classifier 6·3 + 3
    assert total({**w, "architectures": ["Wav2Vec2ForSequenceClassification"], "classifier_proj_size": 6,
                  "use_weighted_layer_sum": True}) == BASE + 2 + 54 + 21
    assert total({**w, "architectures": ["Wav2Vec2ForAudioFrameClassification"]}) == BASE + 8 * 3 + 3
    # projector 8·2 + 2; TDNN kernels (2·3)·2 + 2 and (2·1)·5 + 5; feature_extractor (5·2)·4 + 4; classifier 4·4 + 4;
    # the AM-softmax weight 4 × 3 labels
    assert total({**w, "architectures": ["Wav2Vec2ForXVector"], "tdnn_dim": [2, 5], "tdnn_kernel": [3, 1],
                  "xvector_output_dim": 4}) == BASE + 18 + 14 + 15 + 44 + 20 + 12
    # codevectors 1 × (2 groups · 3) × (4 / 2), weight_proj 4·6 + 6, project_hid 8·5 + 5, project_q 4·5 + 5
    assert total({**w, "architectures": ["Wav2Vec2ForPreTraining"], "num_codevector_groups": 2,
                  "num_codevectors_per_group": 3, "codevector_dim": 4, "proj_codevector_dim": 5}) == \
        BASE + 12 + 30 + 45 + 25


def test_kin_by_hand() -> None:
    # HuBERT: no projection LayerNorm (feat_proj_layer_norm false); a BatchNorm1d (8 + 8) before a plain positional
    # convolution 8·4·3 + 8 in place of the weight norm
    h = {"model_type": "hubert", **SMALL, "architectures": ["HubertModel"]}
    assert total(h) == BASE
    assert total({**h, "feat_proj_layer_norm": False, "conv_pos_batch_norm": True}) == BASE - 8 - POSITIONAL + 16 + 104
    # data2vec-audio: a LayerNorm after every convolution; 2 plain positional convolutions 5 wide (8·4·5 + 8 each)
    d = {"model_type": "data2vec-audio", **SMALL, "architectures": ["Data2VecAudioModel"],
         "num_conv_pos_embeddings": 2, "conv_pos_kernel_size": 5}
    assert total(d) == BASE + 8 - POSITIONAL + 2 * 168
    # WavLM: per layer gru_rel_pos_const 2 and gru_rel_pos_linear (8 / 2)·8 + 8; layer 0's rel_attn_embed 10 × 2
    wl = {"model_type": "wavlm", **SMALL, "architectures": ["WavLMModel"], "num_buckets": 10, "num_hidden_layers": 2}
    assert total(wl) == BASE + LAYER + 2 * (2 + 40) + 20


def test_unispeech_by_hand() -> None:
    quantizer = {"num_codevector_groups": 2, "num_codevectors_per_group": 3, "codevector_dim": 4,
                 "proj_codevector_dim": 5}
    u = {"model_type": "unispeech", **SMALL, **quantizer}
    assert total({**u, "architectures": ["UniSpeechModel"]}) == BASE
    # codevectors 1 × (2 groups · 3) × (4 / 2), weight_proj (from conv_dim[-1]) 4·6 + 6, project_q 4·5 + 5,
    # project_hid back to the width 5·8 + 8, ctc_proj 8·6 + 6 over 6 phonetic classes
    assert total({**u, "architectures": ["UniSpeechForPreTraining"], "num_ctc_classes": 6}) == \
        BASE + 12 + 30 + 25 + 48 + 54
    # UniSpeech-SAT: the mask vector (8) whatever SpecAugment says
    s = {"model_type": "unispeech-sat", **SMALL, **quantizer}
    assert total({**s, "architectures": ["UniSpeechSatModel"]}) == BASE + 8
    # codevectors 12, weight_proj (from hidden_size) 8·6 + 6, project_hid 8·5 + 5, project_q 4·5 + 5,
    # speaker_proj 8·4 + 4, label_embeddings_concat 7 clusters × 4, layer_norm_for_extract 8 + 8
    assert total({**s, "architectures": ["UniSpeechSatForPreTraining"], "num_clusters": 7}) == \
        BASE + 8 + 12 + 54 + 45 + 25 + 36 + 28 + 16
    # the CTC head reads add_adapter and output_hidden_size, the model builds no adapter: lm_head 5·10 + 10
    assert total({**s, "architectures": ["UniSpeechSatForCTC"], "vocab_size": 10, "add_adapter": True,
                  "output_hidden_size": 5}) == BASE + 8 + 60


def test_sew_by_hand() -> None:
    s = {"model_type": "sew", **SMALL, "architectures": ["SEWModel"], "squeeze_factor": 2}
    # the model's LayerNorm over the features 4 + 4 and feature_projection 4·8 + 8 (as wav2vec 2.0's pair); the
    # upsampling Linear 8·(8·2) + 16
    assert total(s) == BASE + 144
    assert total({**s, "squeeze_factor": 3}) == BASE + 8 * 24 + 24
    # conv_dim[-1] equal to hidden_size: no feature_projection; conv 1 is 8·4·2, the model's LayerNorm 8 + 8
    assert total({**s, "conv_dim": [4, 8]}) == (12 + 8 + 64) + 16 + POSITIONAL + LAYER + 16 + 144
    assert total({**s, "architectures": ["SEWForCTC"], "vocab_size": 10}) == BASE + 144 + 8 * 10 + 10


def test_sew_d_by_hand() -> None:
    s = {"model_type": "sew-d", **SMALL, "architectures": ["SEWDModel"], "squeeze_factor": 2, "position_buckets": 4}
    # SEW's model (its LayerNorm and feature_projection as wav2vec 2.0's pair, the upsampling Linear 8·16 + 16) with
    # DeBERTa-v2's layer: query_proj, key_proj, value_proj, attention.output.dense 4·(8·8 + 8), intermediate 8·4 + 4,
    # output 4·8 + 8, two LayerNorms 2·(8 + 8) (as wav2vec 2.0's); the relative table 2·4 rows × 8 and its LayerNorm
    # 8 + 8 (norm_rel_ebd "layer_norm"); no final LayerNorm
    outside = FEATURES + PROJECTION + POSITIONAL + 144
    assert total(s) == outside + LAYER + 64 + 16 == 827
    # own position projections (share_att_key false): pos_key_proj for c2p and pos_query_proj for p2c, 8·8 + 8 each
    assert total({**s, "share_att_key": False}) == 827 + 2 * 72
    assert total({**s, "share_att_key": False, "pos_att_type": ["c2p"]}) == 827 + 72
    # no relative attention: no table, the LayerNorm still there; norm_rel_ebd "none": no LayerNorm
    assert total({**s, "relative_attention": False}) == 827 - 64
    assert total({**s, "norm_rel_ebd": "none"}) == 827 - 16
    # no buckets: 2 × max_relative_positions rows, or 2 × max_position_embeddings where that is below 1
    assert total({**s, "position_buckets": 0, "max_relative_positions": 5}) == 827 - 64 + 10 * 8
    assert total({**s, "position_buckets": -1, "max_position_embeddings": 3}) == 827 - 64 + 6 * 8
    # attention_head_size 2: query, key and value 3·(8·2·2 + 4); the output dense stays hidden wide
    assert total({**s, "attention_head_size": 2}) == 827 - 3 * 72 + 3 * 36
    # a Conv1d beside layer 0 (3 wide, 2 groups: 8·4·3 + 8) and its LayerNorm 8 + 8 (hidden_dropout_prob given)
    assert total({**s, "conv_kernel_size": 3, "conv_groups": 2, "hidden_dropout_prob": 0.1}) == 827 + 104 + 16
    # no layers: no head width read (a null one builds), the table and its LayerNorm stay
    assert total({**s, "num_hidden_layers": 0, "attention_head_size": None}) == 827 - LAYER
    assert total({**s, "architectures": ["SEWDForCTC"], "vocab_size": 10}) == 827 + 8 * 10 + 10


def test_conformer_by_hand() -> None:
    c = {"model_type": "wav2vec2-conformer", **SMALL, "architectures": ["Wav2Vec2ConformerModel"],
         "conv_depthwise_kernel_size": 3}
    # a conformer block: linear_q/k/v/out 4·(8·8 + 8); relative positions: linear_pos 8·8 (no bias), pos_bias_u and
    # pos_bias_v 2·(2 heads × 4); ffn1, ffn2 2·(8·4 + 4 + 4·8 + 8); the convolution module: LayerNorm 8 + 8,
    # pointwise_conv1 16·8·1, depthwise_conv 8·1·3, BatchNorm1d 8 + 8, pointwise_conv2 8·8·1 (no biases);
    # ffn1_layer_norm, self_attn_layer_norm, ffn2_layer_norm, final_layer_norm 4·(8 + 8)
    attention, feed_forwards, convolution, norms = 288, 152, 16 + 128 + 24 + 16 + 64, 64
    outside = FEATURES + PROJECTION + POSITIONAL + 16
    assert total(c) == outside + attention + 64 + 16 + feed_forwards + convolution + norms
    # rotary positions (or none) hold no parameters
    assert total({**c, "position_embeddings_type": "rotary"}) == outside + attention + feed_forwards + convolution + \
        norms
    assert total({**c, "position_embeddings_type": None}) == total({**c, "position_embeddings_type": "rotary"})
    assert total({"model_type": "wav2vec2-conformer", "architectures": ["Wav2Vec2ConformerForCTC"],
                  "vocab_size": 32}) == CONFORMER_CTC_WITH_32_TOKENS


def test_wav2vec2_bert_by_hand() -> None:
    w = {"model_type": "wav2vec2-bert", "architectures": ["Wav2Vec2BertModel"], "hidden_size": 8,
         "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 4, "feature_projection_input_dim": 6,
         "conv_depthwise_kernel_size": 3, "mask_time_prob": 0}
    # no feature encoder, no positional convolution: the projection's LayerNorm 6 + 6 and Linear 6·8 + 8
    projection = 12 + 56
    # a conformer block: linear_q/k/v/out 4·(8·8 + 8); "relative_key": a distance embedding of 64 + 8 + 1 rows, a head
    # (8 / 2) wide; ffn1, ffn2 2·(8·4 + 4 + 4·8 + 8); the convolution module: LayerNorm 8 + 8, pointwise_conv1 16·8,
    # depthwise_conv 8·1·3, depthwise_layer_norm 8 + 8, pointwise_conv2 8·8; four LayerNorms 4·(8 + 8); no final
    # norm
    attention, distances, feed_forwards, convolution, norms = 288, 73 * 4, 152, 16 + 128 + 24 + 16 + 64, 64
    layer = attention + distances + feed_forwards + convolution + norms
    assert total(w) == projection + layer == 1_112
    assert total({**w, "mask_time_prob": 0.05}) == 1_112 + 8  # masked_spec_embed
    # "relative": linear_pos 8·8 and pos_bias_u, pos_bias_v 2·(2 × 4) in place of the distances; rotary or none:
    # nothing
    assert total({**w, "position_embeddings_type": "relative"}) == 1_112 - distances + 64 + 16
    assert total({**w, "position_embeddings_type": "rotary"}) == total({**w, "position_embeddings_type": None}) == \
        1_112 - distances
    assert total({**w, "left_max_position_embeddings": 2, "right_max_position_embeddings": 1}) == \
        1_112 - distances + 4 * 4
    # the attention floors the head width: 3 heads of 8 hold 2 columns each
    assert total({**w, "num_attention_heads": 3}) == 1_112 - distances + 73 * 2
    # the adapter at width 8, one layer: residual_layer_norm 16, residual_conv 16·8·3 + 16, self_attn_layer_norm 16,
    # self_attn_conv 16·8·3 + 16, linear_q/k/v/out 4·(8·8 + 8), ffn_layer_norm 16, ffn 8·4 + 4 + 4·8 + 8
    adapter = 16 + 400 + 16 + 400 + 288 + 16 + 76
    assert total({**w, "add_adapter": True}) == 1_112 + adapter
    # at width 6: proj 8·6 + 6 and proj_layer_norm 6 + 6; two layers of 12 + (12·6·3 + 12) + 12 + (12·6·3 + 12) +
    # 4·(6·6 + 6) + 12 + (6·4 + 4 + 4·6 + 6); the feed-forward before it 8·4 + 4 + 4·8 + 8; the CTC head 6·7 + 7
    at_6 = 12 + 228 + 12 + 228 + 168 + 12 + 58
    assert total({**w, "architectures": ["Wav2Vec2BertForCTC"], "vocab_size": 7, "add_adapter": True,
                  "output_hidden_size": 6, "num_adapter_layers": 2, "use_intermediate_ffn_before_adapter": True}) == \
        1_112 + 54 + 12 + 2 * at_6 + 76 + 49
    assert total({"model_type": "wav2vec2-bert", "architectures": ["Wav2Vec2BertForCTC"], "vocab_size": 32}) == \
        W2V_BERT_CTC_WITH_32_TOKENS


def test_no_layers_build_whatever_the_heads() -> None:
    """Only the layers' attention checks that the heads divide the width: with none, the model builds."""
    config = {"model_type": "unispeech", **SMALL, "architectures": ["UniSpeechModel"], "num_attention_heads": 3}
    assert error_messages(config)
    assert total({**config, "num_hidden_layers": 0}) == BASE - LAYER


@pytest.mark.parametrize(("config", "needle"), [
    ({"model_type": "wav2vec2", "conv_kernel": [10, 3]}, "as long as each other"),
    ({"model_type": "wav2vec2", "feat_extract_norm": "batch"}, 'neither "group" nor "layer"'),
    ({"model_type": "wav2vec2", "num_conv_pos_embedding_groups": 5}, "does not divide hidden_size"),
    ({"model_type": "wav2vec2", "conv_dim": [], "conv_kernel": [], "conv_stride": []}, "conv_dim is empty"),
    ({"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForPreTraining"], "codevector_dim": 255},
     "not a multiple of num_codevector_groups"),
    ({"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForXVector"], "tdnn_kernel": [5]}, "tdnn_kernel has 1"),
    ({"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForSequenceClassification"], "add_adapter": True},
     "does not take an adapter"),
    ({"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForCTC"], "vocab_size": None}, '"vocab_size": null'),
    ({"model_type": "hubert", "architectures": ["HubertForCTC"], "add_adapter": True}, "output_hidden_size is not given"),
    ({"model_type": "hubert", "do_stable_layer_norm": True, "adapter_attn_dim": 3.0}, "is not a whole number"),
    ({"model_type": "wavlm", "num_attention_heads": 5}, "does not divide hidden_size"),
    ({"model_type": "wav2vec2-conformer", "architectures": ["Wav2Vec2ConformerForCTC"]}, "vocab_size is not given"),
    ({"model_type": "wav2vec2-conformer", "conv_depthwise_kernel_size": 4}, "is even"),
    ({"model_type": "wav2vec2-conformer", "hidden_size": 9, "num_attention_heads": 3,
      "num_conv_pos_embedding_groups": 3}, "is odd"),
    ({"model_type": "unispeech", "architectures": ["UniSpeechForPreTraining"], "num_codevector_groups": 3},
     "not a multiple of num_codevector_groups"),
    ({"model_type": "unispeech-sat", "architectures": ["UniSpeechSatForCTC"], "add_adapter": True},
     "output_hidden_size is not given"),
    ({"model_type": "unispeech-sat", "architectures": ["UniSpeechSatForCTC"], "vocab_size": None},
     '"vocab_size": null'),
    ({"model_type": "wav2vec2-bert", "architectures": ["Wav2Vec2BertForCTC"]}, "vocab_size is not given"),
    ({"model_type": "wav2vec2-bert", "use_intermediate_ffn_before_adapter": True}, "add_adapter is not"),
    ({"model_type": "wav2vec2-bert", "conv_depthwise_kernel_size": 4}, "is even"),
    ({"model_type": "wav2vec2-bert", "hidden_size": 9, "num_attention_heads": 3,
      "position_embeddings_type": "relative"}, "is odd"),
    ({"model_type": "wav2vec2-bert", "architectures": ["Wav2Vec2BertForAudioFrameClassification"],
      "add_adapter": True}, "does not take an adapter"),
    ({"model_type": "sew-d", "num_attention_heads": 5}, "does not divide hidden_size"),
    ({"model_type": "sew-d", "hidden_size": 15, "num_attention_heads": 2, "num_conv_pos_embedding_groups": 1,
      "attention_head_size": 4}, "does not divide hidden_size"),
    ({"model_type": "sew-d", "pos_att_type": "c2p|p2c"}, "expected a list of strings"),
    ({"model_type": "sew-d", "norm_rel_ebd": None}, '"norm_rel_ebd": null'),
    ({"model_type": "sew-d", "max_relative_positions": None}, "is not a number"),
    ({"model_type": "sew-d", "position_buckets": 0, "max_relative_positions": 2.5}, "nn.Embedding refuses"),
    ({"model_type": "sew-d", "attention_head_size": 4.0}, "is not a whole number"),
    ({"model_type": "sew-d", "conv_kernel_size": 3}, "hidden_dropout_prob"),
    ({"model_type": "sew-d", "conv_kernel_size": 3, "conv_groups": 5, "hidden_dropout_prob": 0.1},
     "not a positive divisor"),
    ({"model_type": "sew-d", "architectures": ["SEWDForSequenceClassification"], "add_adapter": True},
     "does not take an adapter"),
])
def test_refused_as_transformers_refuses(config: dict, needle: str) -> None:
    messages = error_messages(config)
    assert any(needle in m for m in messages), messages


def test_no_kv_cache() -> None:
    estimate = estimate_memory(count({"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForCTC"]}),
                               Settings(context=1000, batch=1))
    assert estimate.line("kv_cache") is None
    assert "encoder model: no KV cache" in estimate.notes


@pytest.mark.parametrize(("model_type", "architecture"), [
    ("wav2vec2", "Wav2Vec2ForCTC"), ("wav2vec2", "Wav2Vec2Model"), ("wav2vec2", "Wav2Vec2ForSequenceClassification"),
    ("wav2vec2", "Wav2Vec2ForPreTraining"), ("hubert", "HubertForCTC"), ("wavlm", "WavLMForCTC"),
    ("unispeech", "UniSpeechForPreTraining"), ("unispeech-sat", "UniSpeechSatForPreTraining"), ("sew", "SEWForCTC"),
    ("wav2vec2-conformer", "Wav2Vec2ConformerForCTC")])
@pytest.mark.parametrize("targets", [
    ["q_proj", "v_proj", "lm_head"], ["linear_1", "gru_rel_pos_linear", "projection"], "all-linear",
    r".*\.layers\.0\.attention\.(q|v)_proj", r".*encoder\.layers\.\d+\.feed_forward\.intermediate_dense",
    r"wav2vec2\.feature_projection\.projection", r".*adapter_layer\.linear_1",
    r"sew\.(feature_projection|encoder\.upsample.*)", ["linear_q", "linear_pos", "intermediate_dense"],
    r"(classifier|projector|project_q|ctc_proj|speaker_proj)"])
def test_lora_matches_peft(tmp_path, model_type: str, architecture: str, targets) -> None:
    """peft adapts the CTC head's lm_head under all-linear (the class has no output embeddings); regexes reach the
    modules by their full names (the base model under wav2vec2 / hubert / wavlm / unispeech / unispeech_sat / sew /
    wav2vec2_conformer in the head classes)."""
    pytest.importorskip("peft")
    config = {"model_type": model_type, "architectures": [architecture], **SMALL, "num_hidden_layers": 2}
    if model_type == "wav2vec2-conformer":  # (no default vocabulary; an odd depthwise kernel)
        config.update(vocab_size=7, conv_depthwise_kernel_size=3)
    if model_type in ("wav2vec2", "unispeech", "unispeech-sat"):
        config.update(do_stable_layer_norm=True, adapter_attn_dim=3)
    assert lora_counts(tmp_path, config, targets) == peft_lora_counts(config, targets)


@pytest.mark.parametrize("architecture", ["SEWDModel", "SEWDForCTC", "SEWDForSequenceClassification"])
@pytest.mark.parametrize("targets", [
    "all-linear", ["query_proj", "pos_key_proj", "pos_query_proj", "lm_head"], ["dense", "projection"],
    r"sew_d\.encoder\.encoder\.layer\.\d+\.attention\.self\.value_proj", r".*layer\.1\.(intermediate|output)\.dense"])
def test_sew_d_lora_matches_peft(tmp_path, architecture: str, targets) -> None:
    """SEW-D's layers are DeBERTa-v2's, under encoder.encoder.layer (sew_d.encoder.encoder.layer.N.attention.self.
    query_proj in the head classes); its own position projections where share_att_key is false."""
    pytest.importorskip("peft")
    config = {"model_type": "sew-d", "architectures": [architecture], **SMALL, "num_hidden_layers": 2,
              "share_att_key": False, "position_buckets": 4, "vocab_size": 7}
    assert lora_counts(tmp_path, config, targets) == peft_lora_counts(config, targets)


@pytest.mark.parametrize(("architecture", "extra"), [
    ("Wav2Vec2BertForCTC", {"add_adapter": True, "output_hidden_size": 6, "num_adapter_layers": 2,
                            "use_intermediate_ffn_before_adapter": True}),
    ("Wav2Vec2BertModel", {"add_adapter": True, "num_adapter_layers": 2, "position_embeddings_type": "relative"}),
    ("Wav2Vec2BertForXVector", {"tdnn_dim": [3, 5], "tdnn_kernel": [2, 1], "xvector_output_dim": 4})])
@pytest.mark.parametrize("targets", [
    "all-linear", ["linear_q", "linear_out", "intermediate_dense", "linear_pos"], ["lm_head", "proj", "projection"],
    r".*adapter\.layers\.1\.self_attn\.linear_v", r"wav2vec2_bert\.intermediate_ffn\.output_dense"])
def test_wav2vec2_bert_lora_matches_peft(tmp_path, architecture: str, extra: dict, targets) -> None:
    """Wav2Vec2-BERT's adapter layers hold Linears (adapter.layers.N.self_attn.linear_q, ffn.intermediate_dense), each
    layer under its own index; the feed-forward before the adapter is the base model's (intermediate_ffn)."""
    pytest.importorskip("peft")
    config = {"model_type": "wav2vec2-bert", "architectures": [architecture], "vocab_size": 7, "hidden_size": 8,
              "num_attention_heads": 2, "num_hidden_layers": 2, "intermediate_size": 4,
              "feature_projection_input_dim": 6, "conv_depthwise_kernel_size": 3, **extra}
    assert lora_counts(tmp_path, config, targets) == peft_lora_counts(config, targets)
