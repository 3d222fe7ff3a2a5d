"""Compare lsp-count's memory estimates with peak GPU memory measured on a real GPU.

The measurements are ``bench/data/gpu_memory_*.json``, made by ``bench/gpu_memory.py`` on a CUDA
machine (transformers models built from the catalog's configs, random weights). For each case
this prints, in GiB: PyTorch's peak of allocated tensors against the estimate without its
overhead line, and what the GPU had in use at the peak (the CUDA context plus the allocator's
reserved peak) against the whole estimate, with ratios. tests/unit/test_memory_calibration.py
builds its estimates with settings_of and model_of.

Run: .venv/bin/python bench/memory_calibration.py [MEASURED.json ...]   (default: every bench/data/gpu_memory_*.json)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from lsp_count.core.analyze import analyze_json, analyze_text  # noqa: E402
from lsp_count.core.memory import Settings, estimate_memory  # noqa: E402

CATALOG = ROOT / "server" / "lsp_count" / "catalog"
GIB = 2**30


def settings_of(case: dict) -> Settings:
    """The estimate's settings for a measured case (bench/gpu_memory.py says what each mode ran)."""
    return Settings(mode=case["mode"], dtype="bfloat16", context=case["context"], batch=case["batch"],
                    gradient_checkpointing=case["gradient_checkpointing"], pure_precision=case["pure"],
                    lora_rank=16, flash_attention=case.get("attention") != "eager")


def model_of(case: dict):
    """The catalog's config as the case built it (the sweep's cases change the layer count); for
    ``nanogpt``, lsp-count's static count of bench/nanogpt_model.py with the case's layer count."""
    if case["hub_id"] == "nanogpt":
        source = (ROOT / "bench" / "nanogpt_model.py").read_text()
        source = source.replace("n_layer: int = 12", f"n_layer: int = {case['layers'] or 12}")
        return next(m for m in analyze_text(source, str(ROOT / "bench" / "nanogpt_model.py")).models if m.name == "GPT")
    data = json.loads((CATALOG / f"{case['hub_id']}.json").read_text())
    if case.get("layers") is not None:
        data["n_layer" if "n_layer" in data else "num_hidden_layers"] = case["layers"]
    return analyze_json(json.dumps(data), "config.json").models[0]


def compare(measured: dict) -> list[dict]:
    rows = []
    for case in measured["cases"]:
        if "error" in case:
            continue
        model = model_of(case)
        report = estimate_memory(model, settings_of(case))
        overhead = sum(line.bytes for line in report.lines if line.name == "overhead")
        rows.append({
            "name": case["name"],
            "tensors": (case["peak_allocated_bytes"], report.total_bytes - overhead),
            "device": (measured["context_bytes"] + case["peak_reserved_bytes"], report.total_bytes),
        })
    return rows


def main() -> None:
    for path in [Path(p) for p in sys.argv[1:]] or sorted((ROOT / "bench" / "data").glob("gpu_memory_*.json")):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        show(json.loads(path.read_text()))
        print()


def show(measured: dict) -> None:
    print(f"{measured.get('gpu')} · torch {measured['torch']} · transformers {measured['transformers']} · "
          f"peft {measured.get('peft')} · CUDA context {measured['context_bytes'] / GIB:.2f} GiB")
    print(f"{'case':32s} {'tensors: measured':>18s} {'estimate':>9s} {'ratio':>6s}   {'in use: measured':>17s} "
          f"{'estimate':>9s} {'ratio':>6s}")
    ratios = {"tensors": [], "device": []}
    for row in compare(measured):
        t, d = row["tensors"], row["device"]
        ratios["tensors"].append(t[1] / t[0])
        ratios["device"].append(d[1] / d[0])
        print(f"{row['name']:32s} {t[0] / GIB:18.2f} {t[1] / GIB:9.2f} {t[1] / t[0]:6.2f}   {d[0] / GIB:17.2f} "
              f"{d[1] / GIB:9.2f} {d[1] / d[0]:6.2f}")
    for key, values in ratios.items():
        print(f"estimate / measured, {key}: median {statistics.median(values):.2f}, "
              f"min {min(values):.2f}, max {max(values):.2f}")


if __name__ == "__main__":
    main()
