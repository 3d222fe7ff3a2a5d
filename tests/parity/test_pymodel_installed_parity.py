"""Parity for models written on top of an installed transformers (AnalyzeOptions.read_packages):
a user's ``PreTrainedModel`` subclass built from a family's decoder layers and norm, with random
small configs, counted statically (the analyser reads transformers' source from the environment
the tests run in) and by torch on the meta device (the test's own file run here)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.parity.meta_count import file_class_counts

pytestmark = pytest.mark.parity
pytest.importorskip("transformers")

# (module, config class, decoder layer, norm): each family's own layer and norm classes.
FAMILIES = [
    ("llama", "LlamaConfig", "LlamaDecoderLayer", "LlamaRMSNorm"),
    ("mistral", "MistralConfig", "MistralDecoderLayer", "MistralRMSNorm"),
    ("qwen2", "Qwen2Config", "Qwen2DecoderLayer", "Qwen2RMSNorm"),
    ("qwen3", "Qwen3Config", "Qwen3DecoderLayer", "Qwen3RMSNorm"),
    ("gemma", "GemmaConfig", "GemmaDecoderLayer", "GemmaRMSNorm"),
    ("phi3", "Phi3Config", "Phi3DecoderLayer", "Phi3RMSNorm"),
]

TEMPLATE = '''
import torch.nn as nn
from transformers import PreTrainedModel
from transformers.models.{module}.configuration_{module} import {config}
from transformers.models.{module}.modeling_{module} import {layer}, {norm}

CONFIG = {config}(hidden_size={hidden}, intermediate_size={intermediate}, num_attention_heads={heads},
                  num_key_value_heads={kv_heads}, num_hidden_layers={layers}, vocab_size={vocab}{extra})


class MyModel(PreTrainedModel):
    config_class = {config}

    def __init__(self, config={config_arg}):
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([{layer}(config, i) for i in range(config.num_hidden_layers)])
        self.norm = {norm}(config.hidden_size, eps=config.rms_norm_eps)
        self.head = nn.Linear(config.hidden_size, config.vocab_size, bias={head_bias})
        if {tie}:
            self.head.weight = self.embed.weight
        self.post_init()
'''


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(FAMILIES), head_dim=st.sampled_from([8, 16]), kv_heads=st.sampled_from([1, 2]),
       groups=st.integers(1, 3), intermediate=st.integers(4, 96), layers=st.integers(1, 3), vocab=st.integers(2, 300),
       tie=st.booleans(), head_bias=st.booleans(), explicit_head_dim=st.booleans(), as_default=st.booleans())
def test_a_model_on_installed_transformers_layers_counts_as_torch_builds_it(
        family, head_dim, kv_heads, groups, intermediate, layers, vocab, tie, head_bias, explicit_head_dim,
        as_default) -> None:
    module, config, layer, norm = family
    heads = kv_heads * groups
    hidden = heads * head_dim if not explicit_head_dim else heads * head_dim + 8
    extra = f", head_dim={head_dim}" if explicit_head_dim or module in ("qwen3", "gemma") else ""
    text = TEMPLATE.format(module=module, config=config, layer=layer, norm=norm, hidden=hidden,
                           intermediate=intermediate, heads=heads, kv_heads=kv_heads, layers=layers, vocab=vocab,
                           extra=extra, tie=tie, head_bias=head_bias,
                           config_arg="CONFIG" if as_default else f"{config}(**CONFIG.to_dict())")
    want, got, messages = file_class_counts(text, "user_model.py", "MyModel")
    assert want is not None, "torch must build the test's own model"
    assert got == want, (text, messages)
