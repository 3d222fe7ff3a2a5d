"""safetensors headers and index files: exact on-disk counts, read without tensor data."""

from __future__ import annotations

import json

import pytest

from lsp_count.core.analyze import analyze_path
from lsp_count.core.weights import WeightsError, read_safetensors_header, read_weights

GPT2_TINY = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 8, "n_layer": 1, "n_head": 2,
             "vocab_size": 10, "n_positions": 4}


def gpt2_state(n_positions: int = 4):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(**{k: v for k, v in GPT2_TINY.items() if k not in ("model_type", "architectures")}))
    return model, {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}


def test_header_matches_safetensors_library(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    state = {"a": torch.zeros(3, 4, dtype=torch.bfloat16), "b": torch.zeros(5, dtype=torch.float32),
             "c": torch.zeros(2, 2, 2, dtype=torch.int8)}
    save_file(state, str(tmp_path / "m.safetensors"), metadata={"format": "pt"})
    entries = {e.name: (e.dtype, e.shape) for e in read_safetensors_header(tmp_path / "m.safetensors")}
    assert entries == {"a": ("BF16", (3, 4)), "b": ("F32", (5,)), "c": ("I8", (2, 2, 2))}


def test_index_with_shards_and_config_explains_buffers(tmp_path):
    pytest.importorskip("torch")
    from safetensors.torch import save_file

    model, state = gpt2_state()
    keys = sorted(state)
    half = len(keys) // 2
    save_file({k: state[k] for k in keys[:half]}, str(tmp_path / "model-00001-of-00002.safetensors"))
    save_file({k: state[k] for k in keys[half:]}, str(tmp_path / "model-00002-of-00002.safetensors"))
    total_bytes = sum(v.numel() * v.element_size() for v in state.values())
    weight_map = {k: ("model-00001-of-00002.safetensors" if i < half else "model-00002-of-00002.safetensors")
                  for i, k in enumerate(keys)}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": total_bytes},
                                                                       "weight_map": weight_map}))
    (tmp_path / "config.json").write_text(json.dumps(GPT2_TINY))
    info = read_weights(str(tmp_path / "model.safetensors.index.json"))
    assert info.params == sum(v.numel() for v in state.values())
    assert info.data_bytes == total_bytes
    report = analyze_path(str(tmp_path / "model.safetensors.index.json"))
    arch = sum(p.numel() for p in model.parameters())
    assert report.models[0].tree.total == arch
    messages = " ".join(p.message for p in report.problems)
    assert "not a parameter count" in messages
    buffers = info.params - arch
    if buffers:  # transformers versions differ on whether attention-mask buffers are saved
        assert "buffers" in messages


def test_bad_headers_are_refused(tmp_path):
    (tmp_path / "short.safetensors").write_bytes(b"\x01")
    with pytest.raises(WeightsError):
        read_safetensors_header(tmp_path / "short.safetensors")
    (tmp_path / "huge.safetensors").write_bytes((10**12).to_bytes(8, "little") + b"{}")
    with pytest.raises(WeightsError):
        read_safetensors_header(tmp_path / "huge.safetensors")
    report = analyze_path(str(tmp_path / "huge.safetensors"))
    assert report.has_errors and report.problems[0].code == "LC003"


def test_index_without_shards_reports_bytes_not_params(tmp_path):
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 16060522496}, "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors"}}))
    report = analyze_path(str(tmp_path / "model.safetensors.index.json"))
    messages = " ".join(p.message for p in report.problems)
    assert "16,060,522,496 bytes" in messages and "not next to the index" in messages
