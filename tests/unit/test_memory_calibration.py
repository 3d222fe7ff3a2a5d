"""The memory estimates against peak GPU memory measured on an H200 (bench/gpu_memory.py made
bench/data/gpu_memory_h200*.json: transformers models from the catalog's configs, random weights;
generate for inference, two optimizer steps for training and LoRA). A formula that drifts from
what the runtime does fails here."""

from __future__ import annotations

import json
import pathlib
import statistics
import sys

import pytest

from lsp_count.core.memory import OVERHEAD_BYTES, estimate_memory

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEASURED = {path.stem: json.loads(path.read_text()) for path in sorted((ROOT / "bench" / "data").glob("gpu_memory_*.json"))}
CASES = [(stem, case) for stem, data in MEASURED.items() for case in data["cases"] if "error" not in case]

sys.path.insert(0, str(ROOT / "bench"))
try:
    import memory_calibration  # the case's model and settings, as the comparison script builds them
finally:
    sys.path.remove(str(ROOT / "bench"))


def _estimate(case: dict):
    return estimate_memory(memory_calibration.model_of(case), memory_calibration.settings_of(case))


def test_the_measurements_are_there() -> None:
    assert {"gpu_memory_h200", "gpu_memory_h200_sweep"} <= set(MEASURED)
    assert len(CASES) >= 90
    assert all(data["gpu"] == "NVIDIA H200" and data["context_bytes"] > 0 for data in MEASURED.values())


@pytest.mark.parametrize("stem, case", CASES, ids=[f"{stem}:{case['name']}" for stem, case in CASES])
def test_each_estimate_is_near_what_the_gpu_had_in_use(stem: str, case: dict) -> None:
    """The whole estimate against the CUDA context plus the allocator's reserved peak, and the
    estimate without its overhead line against the peak of allocated tensors."""
    report = _estimate(case)
    in_use = MEASURED[stem]["context_bytes"] + case["peak_reserved_bytes"]
    assert 0.80 <= report.total_bytes / in_use <= 1.15, (report.total_bytes / 2**30, in_use / 2**30)
    tensors = report.total_bytes - OVERHEAD_BYTES
    assert 0.80 <= tensors / case["peak_allocated_bytes"] <= 1.20


def test_the_estimates_are_centred_on_the_measurements() -> None:
    tensors = [(_estimate(case).total_bytes - OVERHEAD_BYTES) / case["peak_allocated_bytes"] for _, case in CASES]
    assert 0.97 <= statistics.median(tensors) <= 1.08


def test_weights_and_training_state_are_what_the_gpu_held() -> None:
    """Exact lines: the weights after the build, and after a step the weights plus AdamW's states
    (a LoRA step: the base plus the fp32 adapters and theirs; pure bf16: all in bf16)."""
    for _, case in CASES:
        lines = {line.name: line.bytes for line in _estimate(case).lines}
        if case["mode"] == "inference" or (case["mode"] == "train" and not case["pure"]):
            continue  # mixed precision's weights are fp32 on the GPU, the estimate's 16-bit copy is autocast's
        held = lines["weights"] + lines["optimizer_states"] + lines.get("adapters", 0)
        # (the allocator rounds each tensor up to 512 bytes; fused AdamW keeps a step count per tensor)
        assert abs(held - case["persistent_bytes"]) <= 0.02 * case["persistent_bytes"], case["name"]


def _per_layer(stem: str, hub_id: str, mode: str, pure: bool, checkpointing: bool) -> tuple[float, float]:
    """(measured, estimated) bytes a training step's peak grows by per layer, from the sweep's 2 and 8 layers."""
    cases = {case["layers"]: case for _, case in CASES if case.get("layers") and case["hub_id"] == hub_id
             and case["mode"] == mode and case["pure"] == pure and case["gradient_checkpointing"] == checkpointing
             and case.get("attention", "sdpa") == "sdpa"}
    low, high = cases[2], cases[8]
    measured = ((high["peak_allocated_bytes"] - high["persistent_bytes"]) -
                (low["peak_allocated_bytes"] - low["persistent_bytes"])) / 6
    # Without checkpointing, mixed precision's step also holds autocast's bf16 copy of the weights for
    # backward, its estimate's 16-bit weights line (the fp32 weights are the persistent bytes, taken out
    # of the measured growth); checkpointing recasts them layer by layer.
    names = ("activations", "weights") if mode == "train" and not pure and not checkpointing else ("activations",)
    estimated = sum(next(l.bytes for l in _estimate(high).lines if l.name == name) -
                    next(l.bytes for l in _estimate(low).lines if l.name == name) for name in names) / 6
    return measured, estimated


@pytest.mark.parametrize("hub_id", ["meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-0.5B", "HuggingFaceTB/SmolLM2-360M"])
@pytest.mark.parametrize("mode, pure, checkpointing, tolerance", [
    ("train", True, False, 0.02), ("train", False, False, 0.03), ("lora", False, False, 0.06),
    ("train", True, True, 0.02), ("train", False, True, 0.02), ("lora", False, True, 0.02)])
def test_a_layer_s_activations_are_what_a_layer_adds(hub_id, mode, pure, checkpointing, tolerance) -> None:
    """The per-layer formula against the sweep's slope: a layer of a transformers decoder keeps
    s·b·(20h + 4k + 8f) bytes in bf16 (10h more in mixed precision; LoRA's frozen projections keep
    no input, its adapters their dropout's); checkpointing keeps its input (2 bytes a value, 4 in
    mixed precision's fp32 residual)."""
    measured, estimated = _per_layer("gpu_memory_h200_sweep", hub_id, mode, pure, checkpointing)
    assert abs(estimated - measured) <= tolerance * measured, (estimated / measured)
