"""The SSM state a Mamba or Mamba-2 model keeps while it generates, against transformers 5: its cache
holds, per layer and sequence, the convolution's last conv_kernel inputs in the model's dtype
(Mamba-2's convolution also runs over B and C, 2·n_groups·state_size more channels) and the recurrent
state in float32. The memory estimate's kv_cache line is the bytes of every tensor of that cache,
after a forward pass of a model in bfloat16 over random small configs, for any prompt length. Before,
the recurrent state was counted at the cache dtype's width and Mamba-2's B and C channels were left out."""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _cache_bytes(config: dict, batch: int, tokens: int) -> int:
    """Bytes of the tensors transformers' cache holds after one forward pass (its 0-d counters left out)."""
    from transformers import CONFIG_MAPPING

    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    model = getattr(transformers, config["architectures"][0])(CONFIG_MAPPING[config["model_type"]].from_dict(dict(config)))
    model = model.to(torch.bfloat16)
    ids = torch.randint(0, config.get("vocab_size", 8), (batch, tokens))
    with torch.no_grad():
        out = model(ids, use_cache=True)
    cache = getattr(out, "cache_params", None) or out.past_key_values
    held = []
    for layer in cache.layers:  # (transformers 5's LinearAttentionLayer keeps its states in dicts)
        for value in vars(layer).values():
            values = value.values() if isinstance(value, dict) else (value,)
            held.extend(t for t in values if torch.is_tensor(t) and t.dim() > 0)
    for value in vars(cache).values():  # (states a cache keeps beside its layers: MiniMaxCache's linear_cache list)
        if isinstance(value, list):
            held.extend(t for t in value if torch.is_tensor(t) and t.dim() > 0)
    assert held, "the cache holds no state"
    return sum(t.numel() * t.element_size() for t in held)


@pytest.mark.parametrize("model_type", ["mamba", "mamba2"])
def test_the_ssm_state_is_what_transformers_cache_holds(model_type: str) -> None:
    if model_type not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {model_type}")

    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        # (a Mamba-2 whose n_groups does not divide its heads builds but cannot run: a warning, not judged here)
        assume(config.get("num_heads", 1) % config.get("n_groups", 1) == 0)
        config = {**config, "architectures": [f"{'Mamba2' if model_type == 'mamba2' else 'Mamba'}ForCausalLM"]}
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        for batch, tokens in ((1, 3), (2, 7)):
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.bytes == _cache_bytes(config, batch, tokens), (json.dumps(config), line)

    check()
