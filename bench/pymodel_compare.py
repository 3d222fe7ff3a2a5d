"""Compare the Python analyser of this checkout with another's on real files: the same reports, and how long.

Every transformers `models/*/modeling_*.py`, every timm `models/*.py` (where scripts/test.sh installed
timm beside the environment) and the corpus (`tests/fixtures/**/*.py`) are analysed from nothing (no
tree cache) by each checkout, in a fresh process each, one checkout after the other, rounds alternating
which goes first. Reports are compared whole: the models' counts and notes, the findings with their
places, the inlay hints and the hub counts; any file whose report differs is printed with what differs.
Times are each file's, per group: median, 90th percentile, mean, and the median of the per-file ratios.

Run: git worktree add /tmp/base <commit> && .venv/bin/python bench/pymodel_compare.py --base /tmp/base
(--every N takes every Nth file of each group; --rounds R runs R rounds.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]


def groups(every: int) -> dict[str, list[pathlib.Path]]:
    from pymodel_bench import timm_model_files, transformers_modeling_files  # (this directory's)

    out = {"transformers": transformers_modeling_files(), "timm": timm_model_files(),
           "corpus": sorted((HERE / "tests" / "fixtures").rglob("*.py"))}
    return {name: files[::every] for name, files in out.items() if files}


def report_of(report) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What a user sees of a file's report, as plain values."""
    return {
        "models": [(m.name, m.tree.root.total, m.tree.root.trainable, list(m.tree.notes)) for m in report.models],
        "problems": [(p.code, p.severity, p.message, str(p.span)) for p in report.problems],
        "hints": [(str(span), label) for span, label in report.hints],
        "hubs": [(str(span), hub, n, why) for span, hub, n, why in report.hub_counts],
    }


def worker(files: list[str], out: str) -> None:
    """Analyse each file (this process imports the checkout PYTHONPATH names) and write one JSON line each."""
    os.environ["LSP_COUNT_CACHE_DIR"] = "off"
    from lsp_count.core.analyze import analyze_text

    with open(out, "w", encoding="utf-8") as fh:
        for path in files:
            text = pathlib.Path(path).read_text(encoding="utf-8")
            start = time.perf_counter()
            report = analyze_text(text, path)
            ms = (time.perf_counter() - start) * 1000
            seen = report_of(report)
            digest = hashlib.sha256(json.dumps(seen, default=str).encode()).hexdigest()
            fh.write(json.dumps({"file": path, "ms": ms, "digest": digest, "report": seen}, default=str) + "\n")


def run(root: pathlib.Path, files: list[str], out: str) -> dict[str, dict[str, object]]:
    env = dict(os.environ, PYTHONPATH=str(root / "server"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as listing:
        json.dump(files, listing)
    try:
        subprocess.run([sys.executable, __file__, "--worker", listing.name, out], env=env, check=True, cwd=root)
    finally:
        os.unlink(listing.name)
    with open(out, encoding="utf-8") as fh:
        return {row["file"]: row for row in map(json.loads, fh)}


def differences(a: dict[str, object], b: dict[str, object]) -> list[str]:
    out = []
    for key in a:
        if a[key] != b[key]:
            only_a = [x for x in a[key] if x not in b[key]][:2]  # type: ignore[union-attr, operator]
            only_b = [x for x in b[key] if x not in a[key]][:2]  # type: ignore[union-attr, operator]
            out.append(f"  {key}: base only {only_a}; this checkout only {only_b}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=pathlib.Path, help="the other checkout's root (a git worktree)")
    parser.add_argument("--every", type=int, default=1, help="every Nth file of each group (default: all)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(json.loads(pathlib.Path(args.worker[0]).read_text()), args.worker[1])
        return 0
    if args.base is None or not (args.base / "server" / "lsp_count").is_dir():
        parser.error("--base must be a checkout of lsp-count (git worktree add /tmp/base <commit>)")
    by_group = groups(args.every)
    files = [str(p) for paths in by_group.values() for p in paths]
    times: dict[str, dict[str, list[float]]] = {"base": {f: [] for f in files}, "this": {f: [] for f in files}}
    changed: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            order = [("base", args.base), ("this", HERE)]
            results = {}
            for label, root in order if round_ % 2 == 0 else order[::-1]:
                print(f"round {round_ + 1}: {label} ({root}), {len(files)} files ...", flush=True)
                results[label] = run(root, files, os.path.join(tmp, f"{label}.jsonl"))
                for f in files:
                    times[label][f].append(results[label][f]["ms"])  # type: ignore[arg-type]
            for f in files:
                a, b = results["base"][f], results["this"][f]
                if a["digest"] != b["digest"] and f not in changed:
                    changed.add(f)
                    print(f"differs: {f}")
                    print("\n".join(differences(a["report"], b["report"])))  # type: ignore[arg-type]
    print(f"{len(files)} files: {len(changed)} with a different report")
    for name, paths in by_group.items():
        base = [statistics.median(times["base"][str(p)]) for p in paths]
        this = [statistics.median(times["this"][str(p)]) for p in paths]
        ratios = [t / b for t, b in zip(this, base) if b > 0]
        b_sorted, t_sorted = sorted(base), sorted(this)
        ninetieth = int(len(paths) * 0.9)
        print(f"{name} ({len(paths)} files): median {statistics.median(base):.0f} -> {statistics.median(this):.0f} ms, "
              f"90th percentile {b_sorted[ninetieth]:.0f} -> {t_sorted[ninetieth]:.0f} ms, mean "
              f"{statistics.mean(base):.0f} -> {statistics.mean(this):.0f} ms; median per-file ratio "
              f"{statistics.median(ratios):.3f}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
