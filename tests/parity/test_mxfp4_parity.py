"""GPT-OSS in MXFP4, as its config.json's ``quantization_config`` says: the weights' bytes equal
what transformers holds for the same config, built on the meta device: its ``Mxfp4GptOssExperts``
(the experts' packed e2m1 values as uint8, two a byte, and their biases in fp32), the e8m0 scale
byte per 32 inputs the checkpoint stores beside each block (``*_scales``, one per 32 values of the
input dimension, what transformers' dequantization asserts), and every other parameter in bf16."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory
from lsp_count.core.precision import weights_bytes

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.parity


def _transformers_mxfp4_bytes(config: dict) -> int:
    from transformers.integrations.mxfp4 import Mxfp4GptOssExperts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = transformers.GptOssConfig(**{k: v for k, v in config.items() if k not in ("model_type", "architectures")})
        with torch.device("meta"):
            model = transformers.GptOssForCausalLM(cfg)
            experts = Mxfp4GptOssExperts(cfg)
    total = 0
    for name, p in model.named_parameters():
        if ".mlp.experts." not in name:
            total += p.numel() * 2  # bf16
    per_layer = sum(p.numel() * p.element_size() for p in experts.parameters())
    e, h, f = cfg.num_local_experts, cfg.hidden_size, cfg.intermediate_size
    scales = e * (2 * f) * (h // 32) + e * h * (f // 32)
    return total + cfg.num_hidden_layers * (per_layer + scales)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(hidden=st.sampled_from([64, 128, 256]), ffn=st.sampled_from([32, 64, 96]), experts=st.integers(2, 6),
       layers=st.integers(1, 3), heads=st.sampled_from([2, 4]))
def test_gpt_oss_weights_in_mxfp4_are_what_transformers_holds(hidden: int, ffn: int, experts: int, layers: int,
                                                             heads: int) -> None:
    config = {"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], "hidden_size": hidden,
              "intermediate_size": ffn, "num_local_experts": experts, "num_experts_per_tok": 1,
              "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": 1, "head_dim": 16,
              "vocab_size": 64, "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0,
              "quantization_config": {"quant_method": "mxfp4"}}
    report = analyze_text(json.dumps(config), "config.json")
    assert not report.has_errors, report.problems
    m = report.models[0]
    want = _transformers_mxfp4_bytes(config)
    assert weights_bytes(m.tree, "mxfp4") == want
    memory = estimate_memory(m, Settings())
    assert memory.dtype == "mxfp4"
    assert next(line.bytes for line in memory.lines if line.name == "weights") == want
