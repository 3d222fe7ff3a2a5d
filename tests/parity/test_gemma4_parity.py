"""Gemma 4's text model (gemma4_text) against transformers 5 and peft: the cache its DynamicCache holds after a
forward pass (layers that reuse an earlier layer's keys and values hold none; full-attention layers their own head
width and key/value heads), and LoRA on its layers (named targets, all-linear, a regex naming layers), over random
small configs (tests/parity/strategies_gemma4.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_lora_parity import analyze_yaml, peft_counts
from .test_ssm_state_parity import _cache_bytes

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _runs(config: dict) -> dict:
    """The config as a causal LM whose forward pass runs here (experts one by one: torch's grouped_mm wants
    16-byte strides on a CPU; the per-layer embedding as many rows as the vocabulary, which the token ids index too)."""
    return {**config, "architectures": ["Gemma4ForCausalLM"], "experts_implementation": "eager",
            "vocab_size_per_layer_input": config["vocab_size"]}


def test_the_cache_is_what_transformers_cache_holds() -> None:
    @SETTINGS
    @given(strategy_for("gemma4_text"))
    def check(config: dict) -> None:
        config = _runs(config)
        # Sharing layers read their keys and values from an earlier layer: a stack of only those cannot run.
        assume(config.get("num_kv_shared_layers", 0) < config["num_hidden_layers"])
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        window = config.get("sliding_window", 512)
        if config.get("use_bidirectional_attention") == "all":
            window = window // 2 + 1
        for batch, tokens in ((1, 3), (2, 7)):
            # (transformers' dynamic cache keeps window - 1 tokens of a sliding layer, lsp-count the window, as a
            # static cache and vLLM do: compared below the window)
            if tokens >= window - 1:
                continue
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            assert line.bytes == _cache_bytes(config, batch, tokens), (json.dumps(config), line)

    check()


def _lora_base(config: dict) -> dict:
    return {**config, "architectures": ["Gemma4ForCausalLM"]}


@pytest.mark.parametrize("targets", [["q_proj", "k_proj", "v_proj", "o_proj"], ["gate_proj", "down_proj"],
                                     ["per_layer_input_gate", "per_layer_projection", "proj"],
                                     ["per_layer_model_projection", "up_proj"]])
def test_named_targets_match_peft(tmp_path, targets) -> None:
    @settings(max_examples=8, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
    @given(strategy_for("gemma4_text"))
    def check(config: dict) -> None:
        config = _lora_base(config)
        listed = "\n".join(f"  - {t}" for t in targets)
        try:
            want = peft_counts(config, 4, targets)
        except ValueError as e:  # peft: no module of the config matches the targets
            assume("not found in the base model" not in str(e))
            raise
        yaml_text = f"base_model: ./base\nadapter: lora\nlora_r: 4\nlora_target_modules:\n{listed}\nsequence_len: 64\n"
        (tmp_path / "base").mkdir(exist_ok=True)
        (tmp_path / "base" / "config.json").write_text(json.dumps(config))
        report = analyze_text(yaml_text, str(tmp_path / "train.yaml"),
                              AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
        # A target that names no module of this config (no v_proj where the keys serve as values, no k_proj in
        # sharing layers, no per-layer inputs, no MoE): peft adapts the others, lsp-count refuses it.
        assume(not any("no linear layer named" in p.message for p in report.problems if p.severity == "error"))
        assert not report.has_errors, report.problems
        (model,) = report.models
        assert (model.tree.total, model.tree.trainable) == want, json.dumps(config)

    check()


@pytest.mark.parametrize("pattern", [None, r".*layers\.[02]\..*(q_proj|k_proj|v_proj|gate_proj|per_layer_input_gate)",
                                     r".*layers\.(1|3|5)\.(self_attn|mlp|router)\.\w*proj"])
def test_all_linear_and_regex_targets_match_peft(tmp_path, pattern) -> None:
    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(strategy_for("gemma4_text"))
    def check(config: dict) -> None:
        config = _lora_base(config)
        target = "lora_target_linear: true\n" if pattern is None else f"lora_target_modules: '{pattern}'\n"
        try:
            want = peft_counts(config, 2, "all-linear" if pattern is None else pattern)
        except ValueError as e:
            assume("not found in the base model" not in str(e) and "Target modules" not in str(e))
            raise
        model = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 2\n{target}"
                                               "sequence_len: 64\n")
        assert (model.tree.total, model.tree.trainable) == want, json.dumps(config)

    check()


# --- the composite (gemma4: Gemma4ForConditionalGeneration, Gemma4Model) -------------------------------------------

COMPOSITE_TARGETS = [None, ["q_proj", "v_proj"], ["linear", "embedding_projection"], r".*language_model.*\.(q_proj|v_proj)",
                     r"model\.(vision|audio)_tower\..*\.(q_proj|o_proj|post)", r"model\.vision_tower\..*\.linear",
                     ["relative_k_proj", "input_proj", "output_proj", "per_layer_model_projection"]]


@pytest.mark.parametrize("targets", COMPOSITE_TARGETS, ids=lambda t: str(t))
def test_lora_on_the_composite_matches_peft(tmp_path, targets) -> None:
    """LoRA on random small Gemma 4 composites (towers given, null or left out) adapts what peft adapts, and is refused
    where peft refuses: a name or regex reaching a tower's Gemma4ClippableLinear (q_proj, o_proj, post), which holds
    the nn.Linear peft adapts (q_proj.linear) and is not one."""
    from .test_lora_parity import lora_yaml, peft_outcome

    @settings(max_examples=8, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(strategy_for("gemma4"))
    def check(config: dict) -> None:
        want = peft_outcome(config, 2, "all-linear" if targets is None else targets)
        if isinstance(want, str):
            # (a regex matching no module at all, a name list reaching none: not what this test judges)
            assume("not found in the base model" not in want and "Target modules" not in want)
        (tmp_path / "base").mkdir(exist_ok=True)
        (tmp_path / "base" / "config.json").write_text(json.dumps(config))
        report = analyze_text(lora_yaml(2, targets), str(tmp_path / "train.yaml"),
                              AnalyzeOptions(base_dir=str(tmp_path), hf_cache=str(tmp_path / "no-cache")))
        if isinstance(want, str):
            assert report.has_errors and "not a linear layer" in str(report.problems) or \
                "which holds a linear layer" in str(report.problems), (json.dumps(config), want, report.problems)
            return
        # (a name that reaches no module of this config: peft adapts the others, lsp-count refuses it)
        assume(not any("no linear layer named" in p.message for p in report.problems if p.severity == "error"))
        assert not report.has_errors, (json.dumps(config), report.problems)
        (model,) = report.models
        assert (model.tree.total, model.tree.trainable) == want, json.dumps(config)

    check()
