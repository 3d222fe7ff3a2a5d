"""The KV cache of BertLMHeadModel and its relatives (the encoder-layout causal LMs of Family.decoder_cache) against
transformers 5: with is_decoder true they attend causally and keep a DynamicCache of their self-attention, every
layer's keys and values heads × head_dim wide; without it transformers turns use_cache off and they keep none. The
memory estimate's kv_cache line is the bytes of the cache after a bfloat16 forward pass over random small configs
(tests/parity/strategies.py). Before, the estimate said their cache was not modelled and left it out."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.families import registry
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

CACHING = sorted(mt for mt, family in registry().items() if family.decoder_cache == "is_decoder")


def test_the_caching_families_are_the_encoder_causal_lms_that_transformers_gives_a_cache() -> None:
    causal = {mt for mt, family in registry().items() if family.layout == "encoder" and "causal_lm" in family.heads.values()}
    assert set(CACHING) == causal - {"modernbert-decoder", "xlm", "flaubert"}
    assert registry()["modernbert-decoder"].decoder_cache == "always"
    assert registry()["xlm"].decoder_cache == registry()["flaubert"].decoder_cache == "per_forward"


@pytest.mark.parametrize("model_type", ["xlm", "flaubert"])
def test_xlm_s_forward_pass_holds_the_cache_it_builds(model_type: str) -> None:
    # XLMWithLMHeadModel's forward builds an EncoderDecoderCache when given none and returns none (its generation
    # recomputes the sequence each step): what that cache holds at the end of a forward pass, given one to fill.
    from transformers import CONFIG_MAPPING

    architecture = next(a for a, head in registry()[model_type].heads.items() if head == "causal_lm")
    compared = []

    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        config = {**config, "architectures": [architecture]}
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assume(report.models and not report.has_errors)
        built = CONFIG_MAPPING[model_type].from_dict(dict(config))
        model = getattr(transformers, architecture)(built).to(torch.bfloat16)
        for batch, tokens in ((1, 3), (2, 5)):
            cache = transformers.EncoderDecoderCache(transformers.DynamicCache(config=built),
                                                     transformers.DynamicCache(config=built))
            try:
                with torch.no_grad():
                    model(torch.randint(0, config.get("vocab_size", 8), (batch, tokens)), cache=cache)
            except (RuntimeError, IndexError, AssertionError, TypeError):  # random sizes it cannot run (and FlauBERT
                assume(False)  # with pre_norm cannot run at all in transformers 5.25: it indexes the cache by layer)
            held = sum(t.numel() * t.element_size() for c in (cache.self_attention_cache, cache.cross_attention_cache)
                       for layer in c.layers for t in vars(layer).values() if torch.is_tensor(t) and t.dim() > 0)
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact and line.bytes == held, (json.dumps(config), line)
            compared.append(tokens)

    check()
    assert len(compared) >= 6, compared


@pytest.mark.parametrize("model_type", CACHING)
def test_the_kv_cache_is_what_transformers_cache_holds(model_type: str) -> None:
    architecture = next(a for a, head in registry()[model_type].heads.items() if head == "causal_lm")
    compared = []

    @settings(max_examples=4, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for(model_type))
    def check(config: dict) -> None:
        for is_decoder in (True, False):
            written = {**config, "architectures": [architecture], "is_decoder": is_decoder}
            report = analyze_text(json.dumps(written), "/nonexistent/config.json")
            assume(report.models and not report.has_errors)  # (a config transformers refuses is the other tests' matter)
            for batch, tokens in ((1, 3), (2, 5)):
                try:
                    held = _cache_bytes(written, batch, tokens)
                except (RuntimeError, IndexError):  # builds, but its forward pass cannot run (random sizes)
                    assume(False)
                line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
                assert line is not None and line.exact
                assert line.bytes == held, (json.dumps(written), line)
                compared.append(is_decoder)

    check()
    assert compared.count(True) >= 4 and compared.count(False) >= 4, compared


def test_modernbert_decoder_s_cache_is_what_transformers_cache_holds() -> None:
    # Always a cache; its sliding layers keep local_attention // 2 tokens as a static cache holds them, where
    # transformers' dynamic cache keeps one fewer: at that many tokens or more, one token per sliding layer more.
    compared = []

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(strategy_for("modernbert-decoder"), st.sampled_from([2, 4, 5, 6, 8, 11]), st.integers(1, 3))
    def check(config: dict, local_attention: int, every: int) -> None:
        config = {**config, "architectures": ["ModernBertDecoderForCausalLM"], "local_attention": local_attention,
                  "global_attn_every_n_layers": every}
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assume(report.models and not report.has_errors)
        spec, window = report.models[0].spec, local_attention // 2
        types = spec.values.get("layer_types") or spec.values["rope_layer_types"]
        for batch, tokens in ((1, 2), (2, 5)):
            try:
                held = _cache_bytes(config, batch, tokens)
            except (RuntimeError, IndexError):
                assume(False)
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            one_token = 2 * spec.values["num_heads"] * spec.values["head_dim"] * batch * 2
            more = sum(t == "sliding_attention" for t in types) if tokens >= window else 0
            assert line is not None and line.exact
            assert line.bytes == held + more * one_token, (json.dumps(config), line)
            compared.append(more > 0)

    check()
    assert compared.count(True) >= 3 and compared.count(False) >= 3, compared


def _cache_bytes(config: dict, batch: int, tokens: int) -> int:
    """Bytes of the tensors the model's cache holds after a bfloat16 forward pass (Megatron-BERT's EncoderDecoderCache:
    both of its caches, the cross-attention one empty without an encoder); 0 where it returns none."""
    from transformers import CONFIG_MAPPING

    model = getattr(transformers, config["architectures"][0])(CONFIG_MAPPING[config["model_type"]].from_dict(dict(config)))
    model = model.to(torch.bfloat16)
    if hasattr(model, "set_default_language"):  # (X-MOD runs a language's adapters: any of its languages)
        model.set_default_language(model.config.languages[0])
    ids = torch.randint(0, config.get("vocab_size", 8), (batch, tokens))
    with torch.no_grad():
        cache = model(ids, use_cache=True).past_key_values
    if cache is None:
        return 0
    caches = (cache.self_attention_cache, cache.cross_attention_cache) if hasattr(cache, "cross_attention_cache") \
        else (cache,)
    return sum(t.numel() * t.element_size() for c in caches for layer in c.layers for t in vars(layer).values()
               if torch.is_tensor(t) and t.dim() > 0)
