"""Benchmark: a Hydra project's model (tests/fixtures/hydra_project, lightning-hydra-template's layout).

Timed: lsp-count counting the model config configs/model/mnist.yaml (composed in configs/train.yaml
with `model=mnist`; the LightningModule and SimpleDenseNet read from src/) and the training script
src/train.py (`@hydra.main`, `train(cfg)`), each in a fresh process (the CLI and the gate) and
again in one process (the language server's re-analysis of an open document), against the peer
method: a fresh Python composing the config with Hydra, instantiating `cfg.model` and summing
`p.numel()` (imports of torch, lightning and hydra included, as they are for anyone who runs it).
Run: .venv/bin/python bench/hydra_bench.py
"""

from __future__ import annotations

import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tests" / "fixtures" / "hydra_project"
RUNS = 7


def fresh_process(code: str) -> float:
    """Seconds a fresh interpreter takes to run ``code`` (interpreter start included)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=PROJECT, check=True, capture_output=True, timeout=600,
                   env={"PROJECT_ROOT": str(PROJECT), "PATH": "/usr/bin:/bin"})
    return time.perf_counter() - start


def main() -> None:
    sys.path.insert(0, str(ROOT / "server"))
    from lsp_count.core.analyze import analyze_text

    peer = ("import sys, os; sys.path.insert(0, '.')\n"
            "from hydra import compose, initialize_config_dir\nfrom hydra.utils import instantiate\n"
            "with initialize_config_dir(version_base='1.3', config_dir=os.path.abspath('configs')):\n"
            "    cfg = compose(config_name='train.yaml')\n"
            "    print(sum(p.numel() for p in instantiate(cfg.model).parameters()))\n")
    peer_ms = statistics.median(fresh_process(peer) for _ in range(3)) * 1000
    for name in ("configs/model/mnist.yaml", "src/train.py"):
        path = PROJECT / name
        text = path.read_text()
        counts = ", ".join(f"{m.name} {m.tree.total:,}" for m in analyze_text(text, str(path)).models)
        analyse = (f"from lsp_count.core.analyze import analyze_text; "
                   f"analyze_text(open({str(path)!r}).read(), {str(path)!r})")
        cli_ms = statistics.median(fresh_process(analyse) for _ in range(RUNS)) * 1000
        again = []
        for _ in range(RUNS):
            start = time.perf_counter()
            analyze_text(text, str(path))
            again.append(time.perf_counter() - start)
        again_ms = statistics.median(again) * 1000
        print(f"{name} ({counts})")
        print(f"  lsp-count, fresh process (interpreter start included): median {cli_ms:.0f} ms ({RUNS} runs)")
        print(f"  lsp-count, again in one process (the language server): median {again_ms:.1f} ms ({RUNS} runs)")
        print(f"  ratio to the peer (median, fresh processes): {peer_ms / cli_ms:.1f}x")
    print(f"peer: Hydra composing train.yaml, instantiating cfg.model, torch counting, fresh process: median "
          f"{peer_ms:.0f} ms (3 runs)")


if __name__ == "__main__":
    main()
