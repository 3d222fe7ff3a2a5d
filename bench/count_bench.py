"""Benchmark: counting configs with lsp-count vs building them with transformers on the meta device.

Both methods run in this one process on the same configs, so the ratio is fair on a
shared machine. Also times a cold `lsp-count config.json` process (it must not import
torch or transformers) against a cold process doing the meta-device count.

    .venv/bin/python bench/count_bench.py [FOLDER_OF_CONFIGS] [--repeat N]

Without a folder it uses the bundled catalog (server/lsp_count/catalog).
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import statistics
import subprocess
import sys
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
CATALOG = ROOT / "server" / "lsp_count" / "catalog"


def load_configs(folder: pathlib.Path) -> list[tuple[pathlib.Path, str, dict]]:
    from lsp_count.core.families import registry

    out = []
    for path in sorted(folder.rglob("*.json")):
        text = path.read_text()
        config = json.loads(text)
        if isinstance(config, dict) and config.get("model_type") in registry():
            out.append((path, text, config))
    return out


def time_ours(configs, repeat: int) -> list[float]:
    """Seconds per config (best of ``repeat``), in catalog order."""
    from lsp_count.core.analyze import analyze_text

    out = []
    for path, text, _config in configs:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            report = analyze_text(text, str(path))
            best = min(best, time.perf_counter() - start)
        assert report.models, (path, report.problems)
        out.append(best)
    return out


def time_meta(configs) -> tuple[float, list[float]]:
    """(seconds to import torch + transformers, seconds per config)."""
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    t0 = time.perf_counter()
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    from lsp_count.core.families import registry

    import_seconds = time.perf_counter() - t0
    out = []
    for _path, _text, config in configs:
        start = time.perf_counter()
        cfg = CONFIG_MAPPING[config["model_type"]].from_dict(dict(config))
        # t5-small names "T5WithLMHeadModel", a class transformers no longer has: use the family's.
        arch = (config.get("architectures") or [None])[0]
        cls = getattr(transformers, arch or "", None) or getattr(transformers, registry()[config["model_type"]].architecture)
        with torch.device("meta"):
            model = cls(cfg)
        sum(p.numel() for p in model.parameters())
        out.append(time.perf_counter() - start)
    return import_seconds, out


def cold_process(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default=str(CATALOG))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    configs = load_configs(pathlib.Path(args.folder))
    if not configs:
        sys.exit(f"no supported configs under {args.folder}")
    print(f"{len(configs)} configs from {args.folder}")
    ours = time_ours(configs, args.repeat)
    import_s, meta = time_meta(configs)
    ratios = [m / o for m, o in zip(meta, ours)]
    print(f"warm, mean per config:   lsp-count {statistics.mean(ours) * 1e3:7.3f} ms   "
          f"meta-device {statistics.mean(meta) * 1e3:7.1f} ms   ratio of means {statistics.mean(meta) / statistics.mean(ours):,.0f}x")
    print(f"warm, median per config: lsp-count {statistics.median(ours) * 1e3:7.3f} ms   "
          f"meta-device {statistics.median(meta) * 1e3:7.1f} ms   median per-config ratio {statistics.median(ratios):,.0f}x "
          f"(lowest {min(ratios):,.0f}x)")
    slowest = max(range(len(ours)), key=ours.__getitem__)
    print(f"slowest for lsp-count: {configs[slowest][0].name if configs[slowest][0].name != 'config.json' else configs[slowest][0]} "
          f"{ours[slowest] * 1e3:.1f} ms")
    print(f"transformers+torch import (paid once by the meta-device method): {import_s:.2f} s")
    sample = configs[0][0]
    cold_ours = cold_process([sys.executable, "-m", "lsp_count", str(sample)], 5)
    meta_script = (
        "import json,sys,torch,transformers;from transformers import CONFIG_MAPPING as M;"
        f"c=json.load(open({str(sample)!r}));cfg=M[c['model_type']].from_dict(c);"
        "torch.set_default_device('meta');m=getattr(transformers,c['architectures'][0])(cfg);"
        "print(sum(p.numel() for p in m.parameters()))"
    )
    cold_meta = cold_process([sys.executable, "-c", meta_script], 2)
    print(f"cold process, {sample.relative_to(ROOT) if sample.is_relative_to(ROOT) else sample}: "
          f"lsp-count {cold_ours:.3f} s   meta-device {cold_meta:.2f} s   ratio {cold_meta / cold_ours:.0f}x")


if __name__ == "__main__":
    main()
