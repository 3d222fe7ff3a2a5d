"""NLLB-MoE (nllb-moe): M2M100's pre-norm stacks and sinusoidal position buffer, every sparse_step-th layer's
feed-forward a top-2 router over biased fc1 / fc2 experts. Hand counts, which layers are sparse, the class defaults
and the 54B checkpoint's shape (literals taken once from transformers 5.25 on the meta device); tests/parity checks
random configs, nulls, floats and LoRA against transformers and peft."""

from __future__ import annotations

import pytest

from lsp_count.core.layouts.seq2seq import layer_indices
from lsp_count.formats.common import lora_layer_indices

from config_models import assert_class_default_total, model

# d_model 8, 2 heads, 4 encoder layers (step 2: layers 1 and 3 sparse), 3 decoder layers (step 3: layer 2), 3 experts.
TINY = dict(vocab_size=50, d_model=8, encoder_layers=4, decoder_layers=3, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=12, num_experts=3, encoder_sparse_step=2,
            decoder_sparse_step=3, max_position_embeddings=20, router_bias=True)
D = 8
ATTENTION = 4 * (D * D + D)  # q, k, v, out_proj with biases: 288
LN = 2 * D


def ffn(width: int) -> int:
    return D * width + width + width * D + D  # fc1, fc2 with biases


def test_a_tiny_config_by_hand() -> None:
    router = D * 3 + 3  # router.classifier, biased (router_bias)
    encoder = 2 * (ATTENTION + ffn(16) + 2 * LN) + 2 * (ATTENTION + router + 3 * ffn(16) + 2 * LN) + LN
    decoder = 2 * (2 * ATTENTION + ffn(12) + 3 * LN) + (2 * ATTENTION + router + 3 * ffn(12) + 3 * LN) + LN
    total = 50 * D + encoder + decoder  # the shared embedding (the head tied to it); positions are a buffer
    assert total == 6_965  # transformers 5.25, NllbMoeForConditionalGeneration on the meta device
    report = model({"model_type": "nllb-moe", "architectures": ["NllbMoeForConditionalGeneration"], **TINY})
    assert report.tree.total == total
    # a token runs 2 of the 3 experts: one idle in each of the 3 sparse layers
    assert report.tree.root.active == total - 2 * ffn(16) - ffn(12)
    layers = report.tree.root.find("encoder.layers")
    assert [(c.name, c.repeat) for c in layers.children] == [("dense_layers", 2), ("sparse_layers", 2)]


def test_which_layers_are_sparse() -> None:
    # Layer i is sparse when (i + 1) % step == 0 (NllbMoeEncoder / NllbMoeDecoder), step 0 none: the counts alone
    # would not say which (step 3 and 4 of 4 layers both make one sparse layer).
    report = model({"model_type": "nllb-moe", "architectures": ["NllbMoeForConditionalGeneration"], **TINY})
    assert layer_indices(report.spec) == {"encoder.sparse_layers": (1, 3), "encoder.dense_layers": (0, 2),
                                         "decoder.sparse_layers": (2,), "decoder.dense_layers": (0, 1)}
    assert lora_layer_indices(report.spec) == layer_indices(report.spec)
    none = model({"model_type": "nllb-moe", **TINY, "encoder_sparse_step": 0, "decoder_sparse_step": 0})
    assert layer_indices(none.spec) == {} and none.tree.root.find("encoder.layers").repeat == 4


@pytest.mark.parametrize("architecture", ["NllbMoeForConditionalGeneration", "NllbMoeModel"])
def test_the_class_defaults(architecture: str) -> None:
    assert_class_default_total("nllb-moe", architecture, 6_880_712_704)


def test_the_54b_checkpoint_s_shape() -> None:
    # facebook/nllb-moe-54b: d_model 2048, 24 + 24 layers, every 4th sparse over 128 experts, 256,206 tokens.
    config = {"model_type": "nllb-moe", "architectures": ["NllbMoeForConditionalGeneration"], "d_model": 2048,
              "encoder_layers": 24, "decoder_layers": 24, "encoder_ffn_dim": 8192, "decoder_ffn_dim": 8192,
              "encoder_attention_heads": 16, "decoder_attention_heads": 16, "num_experts": 128,
              "vocab_size": 256206}
    report = model(config)
    assert report.tree.total == 54_500_569_088  # transformers 5.25 on the meta device
    assert report.tree.root.active == 3_750_785_024  # top-2 of 128 experts in 12 sparse layers
