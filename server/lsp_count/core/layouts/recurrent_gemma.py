"""RecurrentGemma's (Griffin's) recurrent block: the hybrid layout's "rg_lru" mixer (``layouts/hybrid.py``).

The rest of a RecurrentGemma model is the hybrid layout's: its local-attention layers are the decoder layout's
attention, each layer's MLP the decoder layout's gated MLP (``mlp_block``), its two RMSNorms (``temporal_pre_norm``,
``channel_pre_norm``) the layer's norms. The block, as ``RecurrentGemmaRecurrentBlock`` builds it
(transformers/models/recurrent_gemma/modeling_recurrent_gemma.py):

- ``linear_y`` and ``linear_x``: hidden_size → lru_width, with biases; ``linear_out``: lru_width → hidden_size, with
  a bias;
- ``conv_1d``: a depthwise ``nn.Conv1d`` over lru_width channels, conv1d_width wide, with a bias;
- ``rg_lru`` (the Real-Gated Linear Recurrent Unit): ``recurrent_param`` (lru_width values), and its input and
  recurrence gates as block-diagonal weights of num_attention_heads blocks, each block lru_width //
  num_attention_heads square (``input_gate_weight``, ``recurrent_gate_weight``: heads × block × block), with a
  bias per block row (``input_gate_bias``, ``recurrent_gate_bias``: heads × block).
"""

from __future__ import annotations

from lsp_count.core.params import ParamNode, Tensor, linear
from lsp_count.core.spec import ModelSpec


def recurrent_block(spec: ModelSpec) -> ParamNode:
    """A RecurrentGemma recurrent layer's temporal block (fields ``lru_width``, ``conv1d_width``, ``num_heads``)."""
    h, width, kernel = spec.int("hidden_size"), spec.int("lru_width"), spec.int("conv1d_width")
    heads = spec.int("num_heads")
    block = width // heads  # (floored: a width the heads do not divide builds, and its forward pass fails)
    gates: tuple[Tensor, ...] = (Tensor("rg_lru.recurrent_param", (width,), "other", "rg_lru"),)
    for gate in ("input_gate", "recurrent_gate"):
        gates += (Tensor(f"rg_lru.{gate}_weight", (heads, block, block), "other", "rg_lru"),
                  Tensor(f"rg_lru.{gate}_bias", (heads, block), "other", "rg_lru"))
    tensors = (
        linear("linear_y", h, width, True) + linear("linear_x", h, width, True) + linear("linear_out", width, h, True)
        + (Tensor("conv_1d.weight", (width, 1, kernel), "conv", "conv_1d"),
           Tensor("conv_1d.bias", (width,), "bias", "conv_1d"))
        + gates
    )
    return ParamNode("temporal_block", tensors, source=spec.key_span("lru_width") or spec.key_span("hidden_size"),
                     key="lru_width", note="RG-LRU recurrent block")
