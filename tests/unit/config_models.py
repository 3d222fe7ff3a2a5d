"""Helpers the unit tests share: analyse a config mapping as a config.json, read a bundled one."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.catalog import CATALOG_DIR


# A small Qwen3 text_config the composites' unit tests count by hand: embeddings 640, q 256, k 128, v 128, o 256,
# a gated MLP 3·16·8 = 384, q/k norms 16, two layer norms 32, the final norm 16.
SMALL_QWEN3_TEXT = {"model_type": "qwen3", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                    "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8, "vocab_size": 40}


def analyze(config: dict, text: str | None = None):
    """The FileReport for ``config`` written as a config.json (or for ``text`` as given)."""
    return analyze_text(text if text is not None else json.dumps(config, indent=2), "m/config.json")


def model(config: dict):
    """The one model counted from ``config``; fails the test on any error."""
    report = analyze(config)
    assert not report.has_errors, report.problems
    return report.models[0]


def errors(config: dict | None = None, text: str | None = None):
    return [p for p in analyze(config or {}, text).problems if p.severity == "error"]


def error_messages(config: dict) -> list[str]:
    """The messages of the errors ``config`` gets."""
    return [p.message for p in analyze(config).problems if p.severity == "error"]


def kv_cache_bytes(config: dict, context: int, batch: int = 1) -> int:
    """The KV cache bytes the memory estimate gives ``config``'s model for ``batch`` sequences of ``context``."""
    from lsp_count.core.memory import Settings, estimate_memory

    line = estimate_memory(model(config), Settings(context=context, batch=batch)).line("kv_cache")
    assert line is not None
    return line.bytes


def forward_cache_bytes(config: dict, architecture: str, tokens: int = 7, batch: int = 2) -> int:
    """The bytes transformers' cache holds after a forward pass of ``batch`` sequences of ``tokens`` random ids
    (under 32) through ``config``'s ``architecture`` in bfloat16: each layer's keys and values, a sparse-attention
    indexer's keys, and a recurrent layer's convolution and recurrent states. Needs torch and transformers."""
    import torch
    import transformers

    hf = transformers.CONFIG_MAPPING[config["model_type"]](**{k: v for k, v in config.items()
                                                             if k not in ("model_type", "architectures")})
    module = getattr(transformers, architecture)(hf).to(torch.bfloat16).eval()
    with torch.no_grad():
        out = module(input_ids=torch.randint(0, 32, (batch, tokens)), use_cache=True)
    cache = out.get("cache", out.get("past_key_values"))
    filled = 0
    for layer in cache.layers:
        for name in ("keys", "values", "indexer_keys", "conv_states", "recurrent_states"):
            held = getattr(layer, name, None)
            for t in held.values() if isinstance(held, dict) else held if isinstance(held, list) else [held]:
                filled += t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0
    return filled


def forward_seq2seq_cache_bytes(config: dict, context: int = 5, batch: int = 2) -> int:
    """The bytes an encoder-decoder's EncoderDecoderCache holds after a float32 forward pass of ``batch`` pairs of
    ``context`` source and ``context`` target tokens (random ids 4..49) through ``config``'s architecture: the
    decoder layers' self- and cross-attention keys and values. Needs torch and transformers."""
    import torch
    import transformers

    hf = transformers.CONFIG_MAPPING[config["model_type"]](**{k: v for k, v in config.items() if k != "model_type"})
    torch.manual_seed(0)
    module = getattr(transformers, config["architectures"][0])(hf).eval()
    with torch.no_grad():
        out = module(input_ids=torch.randint(4, 50, (batch, context)),
                     decoder_input_ids=torch.randint(4, 50, (batch, context)), use_cache=True)
    cache = out["cache"] if "cache" in out else out["past_key_values"]
    assert type(cache).__name__ == "EncoderDecoderCache"
    return sum(t.numel() * t.element_size() for part in (cache.self_attention_cache, cache.cross_attention_cache)
               for layer in part.layers for t in (layer.keys, layer.values))


def lora_counts(tmp_path, config: dict, targets: str | list[str]) -> tuple[int, int] | None:
    """(total, trainable) of ``config``'s model under a LoRA of rank 2 on ``targets`` ("all-linear" or module
    names), as an axolotl YAML beside it asks; None where lsp-count refuses the targets."""
    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    (tmp_path / "base").mkdir(exist_ok=True)
    (tmp_path / "base" / "config.json").write_text(json.dumps(config))
    chosen = "lora_target_linear: true" if targets == "all-linear" else f"lora_target_modules: {json.dumps(targets)}"
    report = analyze_text(f"base_model: ./base\nadapter: lora\nlora_r: 2\n{chosen}\n", str(tmp_path / "train.yaml"),
                          AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
    if report.has_errors:
        return None
    (counted,) = report.models
    return counted.tree.total, counted.tree.trainable


def peft_lora_counts(config: dict, targets: str | list[str]) -> tuple[int, int] | None:
    """The same from peft: the class ``config["architectures"][0]`` built on the meta device and adapted by
    ``get_peft_model``; None where peft refuses the targets (ValueError). Needs torch, transformers and peft."""
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model

    model_type, architecture = config["model_type"], config["architectures"][0]
    hf_config = transformers.CONFIG_MAPPING[model_type](**{k: v for k, v in config.items()
                                                          if k not in ("model_type", "architectures")})
    with torch.device("meta"):
        model = getattr(transformers, architecture)(hf_config)
        try:
            adapted = get_peft_model(model, LoraConfig(r=2, target_modules=targets))
        except ValueError:
            return None
    params = list(adapted.parameters())
    return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


def catalog_config(name: str, **overrides: object) -> dict:
    """A bundled catalog config ("google-t5/t5-small"), with keys overridden."""
    return {**json.loads((CATALOG_DIR / f"{name}.json").read_text()), **overrides}


# A Qwen-VL config's text model keys: flat at the top level (the Hub's configs) or nested in a text_config.
QWEN_VL_TEXT_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                     "num_key_value_heads", "max_position_embeddings", "max_window_layers", "sliding_window",
                     "use_sliding_window")


def nested_text_config(config: dict) -> dict:
    """The same Qwen-VL model saved the newer way: the text model's keys in a text_config."""
    flat = {k: v for k, v in config.items() if k not in QWEN_VL_TEXT_KEYS}
    return {**flat, "text_config": {k: config[k] for k in QWEN_VL_TEXT_KEYS if k in config}}


def check_flat_and_nested_text_configs(flat: dict, total: int) -> None:
    """A Qwen-VL config counts the same flat, nested and with a null text_config; a nested text_config
    wins over top-level text keys, which a warning says are not read (and says nothing where they agree)."""
    assert model(nested_text_config(flat)).tree.total == total
    assert model({**flat, "text_config": None}).tree.total == total
    both = {**nested_text_config(flat), "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100}
    report = analyze(both)
    assert not report.has_errors, report.problems
    assert report.models[0].tree.total == total
    (warning,) = [p for p in report.problems if p.code == "LC106" and p.severity == "warning"]
    assert '"vocab_size", "hidden_size", "num_hidden_layers"' in warning.message and "text_config" in warning.message
    same = {**nested_text_config(flat), **{k: flat[k] for k in QWEN_VL_TEXT_KEYS if k in flat}}
    assert not [p for p in analyze(same).problems if p.severity == "warning"]


def assert_cache_is_what_a_forward_pass_fills(config: dict, architecture: str) -> None:
    """lsp-count's KV cache for ``config``'s ``architecture`` over 2 sequences of 7 tokens equals what transformers'
    cache holds after the same forward pass (forward_cache_bytes); skipped where torch or transformers is missing."""
    for module in ("torch", "transformers"):
        pytest.importorskip(module)
    assert kv_cache_bytes({**config, "architectures": [architecture]}, 7, 2) == forward_cache_bytes(config, architecture)


def assert_lora_counts(tmp_path, config: dict, cases) -> None:
    """Each (targets, (total, trainable) or None) of ``cases`` is what lsp-count gives (lora_counts)."""
    for targets, expected in cases:
        assert lora_counts(tmp_path, config, targets) == expected, targets


def assert_peft_lora_counts(config: dict, cases) -> None:
    """The same cases are peft's (peft_lora_counts); skipped where torch, transformers or peft is missing."""
    for module in ("torch", "transformers", "peft"):
        pytest.importorskip(module)
    for targets, expected in cases:
        assert peft_lora_counts(config, targets) == expected, targets


def assert_class_default_total(model_type: str, architecture: str, total: int) -> None:
    """The class ``architecture`` of ``model_type`` with its config class's defaults counts ``total`` (a literal taken
    from transformers on the meta device), without errors, and as this family's own class (no LC106 "another
    family's class" warning)."""
    report = analyze({"model_type": model_type, "architectures": [architecture]})
    assert not report.has_errors, report.problems
    assert not [p for p in report.problems if p.code == "LC106"], report.problems
    assert report.models[0].tree.total == total
