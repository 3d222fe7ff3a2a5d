"""Benchmark: static analysis of a ~5,000-line Python model file (target: well under 200 ms).

Builds a synthetic file from the corpus (nanoGPT, ResNet, LoRA, MLP, recurrent
classes, renamed so every copy is its own class) and times analyze_text.
Run: .venv/bin/python bench/pymodel_bench.py
"""

from __future__ import annotations

import pathlib
import re
import statistics
import time

from lsp_count.core.analyze import analyze_text

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pymodels"
SOURCES = ["nanogpt.py", "resnet.py", "lora.py", "mlp.py", "recurrent.py"]


def build(target_lines: int = 5000) -> str:
    texts = [(CORPUS / name).read_text() for name in SOURCES]
    parts, copy = [], 0
    while sum(p.count("\n") for p in parts) < target_lines:
        for index, text in enumerate(texts):
            # Each copy of each file gets its own names (two corpus files both define an MLP).
            # Not after a dot: nn.LayerNorm stays torch's even where the file defines its own LayerNorm.
            names = sorted(set(re.findall(r"^(?:class|def) (\w+)", text, re.M)), key=len, reverse=True)
            suffix = f"_{copy}_{index}"
            renamed = re.sub(r"(?<![\w.])(" + "|".join(names) + r")\b", lambda m: m.group(1) + suffix, text)
            # A real file has one config class, which an unannotated `config` argument resolves to;
            # here every copy has its own, so each copy's classes name theirs.
            renamed = renamed.replace("(self, config)", f"(self, config: GPTConfig{suffix})")
            parts.append(renamed)
        copy += 1
    return "\n\n".join(parts)


def main() -> None:
    text = build()
    lines = text.count("\n") + 1
    times = []
    report = analyze_text(text, "big_model.py")
    for _ in range(7):
        start = time.perf_counter()
        report = analyze_text(text, "big_model.py")
        times.append((time.perf_counter() - start) * 1000)
    print(f"{lines} lines, {len(report.models)} classes counted, {len(report.hints)} hints, "
          f"{sum(p.code == 'LC101' for p in report.problems)} unresolved")
    print(f"analyze_text: median {statistics.median(times):.1f} ms, min {min(times):.1f} ms, max {max(times):.1f} ms")


if __name__ == "__main__":
    main()
