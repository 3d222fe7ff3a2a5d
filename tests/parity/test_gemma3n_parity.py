"""Gemma 3n's text model (gemma3n_text) and audio encoder (gemma3n_audio) against transformers 5 and peft: the cache
its DynamicCache holds after a forward pass (layers that reuse an earlier layer's keys and values hold none), and
LoRA on its runs of layers (named targets, all-linear, a regex naming layers), over random small configs
(tests/parity/strategies_gemma3n.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings, estimate_memory

from .strategies import strategy_for
from .test_lora_parity import analyze_yaml, peft_counts
from .test_ssm_state_parity import _cache_bytes

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])


def test_the_cache_is_what_transformers_cache_holds() -> None:
    @SETTINGS
    @given(strategy_for("gemma3n_text"))
    def check(config: dict) -> None:
        # A causal LM whose forward pass runs: the per-layer embedding as many rows as the vocabulary (the token ids
        # index it too), AltUp's active prediction there, layer types the cache knows, and a producer for every
        # sharing layer among the layers (more sharing layers than layers builds, but cannot run).
        config = {**config, "architectures": ["Gemma3nForCausalLM"], "vocab_size_per_layer_input": config["vocab_size"]}
        n = config["num_hidden_layers"]
        assume(n > 0 and config["altup_num_inputs"] > 0 and config["num_kv_shared_layers"] < n)
        assume("chunked_attention" not in config.get("layer_types", ()))
        report = analyze_text(json.dumps(config), "/nonexistent/config.json")
        assert report.models and not report.has_errors, report.problems
        window = config.get("sliding_window", 512)
        for batch, tokens in ((1, 3), (2, 7)):
            # (transformers' dynamic cache keeps window - 1 tokens of a sliding layer, lsp-count the window, as a
            # static cache and vLLM do: compared below the window)
            if tokens >= window - 1:
                continue
            line = estimate_memory(report.models[0], Settings(context=tokens, batch=batch)).line("kv_cache")
            assert line is not None and line.exact
            assert line.bytes == _cache_bytes(config, batch, tokens), (json.dumps(config), line)

    check()


@pytest.mark.parametrize("targets", [["q_proj", "k_proj", "v_proj", "o_proj"],
                                     ["gate_proj", "down_proj", "modality_router", "linear_left"],
                                     ["per_layer_input_gate", "per_layer_model_projection", "prediction_coefs",
                                      "correction_coefs", "linear_right"],
                                     ["altup_projections.0", "altup_unembed_projections.1", "up_proj"],
                                     "all-linear",
                                     r".*layers\.[02]\..*(q_proj|k_proj|v_proj|gate_proj|per_layer_input_gate)",
                                     r".*(altup_projections|altup_unembed_projections)\.\d+"])
def test_lora_matches_peft(tmp_path, targets) -> None:
    @SETTINGS
    @given(strategy_for("gemma3n_text"))
    def check(config: dict) -> None:
        config = {**config, "architectures": ["Gemma3nForCausalLM"]}
        try:
            want = peft_counts(config, 2, targets)
        except ValueError as e:  # peft: no module of the config matches the targets
            assume("not found in the base model" not in str(e) and "Target modules" not in str(e))
            raise
        if isinstance(targets, list):
            target = "lora_target_modules:\n" + "".join(f"  - {t}\n" for t in targets)
        else:
            target = "lora_target_linear: true\n" if targets == "all-linear" else f"lora_target_modules: '{targets}'\n"
        model = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 2\n{target}"
                                               "sequence_len: 64\n")
        assert (model.tree.total, model.tree.trainable) == want, json.dumps(config)

    check()


@pytest.mark.parametrize("targets", ["all-linear", ["q_proj", "pos_proj", "input_proj_linear"],
                                     r"conformer\.1\..*(q_proj|linear_start)"])
def test_lora_on_the_audio_encoder_matches_peft(tmp_path, targets) -> None:
    config = {"model_type": "gemma3n_audio", "architectures": ["Gemma3nAudioEncoder"], "hidden_size": 8,
              "conf_num_hidden_layers": 2, "conf_num_attention_heads": 2, "input_feat_size": 10,
              "sscp_conv_channel_size": [4, 2], "conf_conv_kernel_size": 3}
    if isinstance(targets, list):
        target = "lora_target_modules:\n" + "".join(f"  - {t}\n" for t in targets)
    else:
        target = "lora_target_linear: true\n" if targets == "all-linear" else f"lora_target_modules: '{targets}'\n"
    model = analyze_yaml(tmp_path, config, f"base_model: ./base\nadapter: lora\nlora_r: 2\n{target}sequence_len: 64\n")
    assert (model.tree.total, model.tree.trainable) == peft_counts(config, 2, targets)
