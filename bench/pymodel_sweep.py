"""A sweep of the Python analyser over real code, for its errors rather than its speed.

Analyses, each from nothing, every Python file under the given directories that mentions
``torch.nn`` (by default the installed packages that define models: transformers, timm,
torchmetrics, Lightning, peft, trl, accelerate, and torch's own ``nn``), with a time limit per
file, and reports each file where the analysis raised, ran past the limit, or reported an error
of its own ("a bug in lsp-count"). The files are read, never imported.

    .venv/bin/python bench/pymodel_sweep.py [DIR ...] [--limit-s 60]

Exits 1 when a file raised, timed out or hit an internal error.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import signal
import statistics
import sys
import time
import traceback

from lsp_count.core.analyze import analyze_text

DEFAULT_PACKAGES = ("transformers", "timm", "torchmetrics", "lightning", "pytorch_lightning", "peft", "trl",
                    "accelerate", "torch/nn")


class _Timeout(Exception):
    pass


def _on_alarm(_signum: int, _frame: object) -> None:
    raise _Timeout


def default_roots() -> list[pathlib.Path]:
    """The default packages where they are installed: the environment's site-packages, and the
    sidecars scripts/test.sh installs beside it (timm)."""
    roots = []
    for site in map(pathlib.Path, sys.path):
        for name in DEFAULT_PACKAGES:
            if (site / name).is_dir():
                roots.append(site / name)
    sidecar = pathlib.Path(sys.prefix) / "timm-sidecar" / "timm"
    if sidecar.is_dir():
        roots.append(sidecar)
    return sorted(set(roots))


def model_files(roots: list[pathlib.Path]) -> list[pathlib.Path]:
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "torch.nn" in text or "nn.Module" in text:
                found.append(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", type=pathlib.Path, help="directories to sweep (default: installed packages)")
    parser.add_argument("--limit-s", type=int, default=60, help="time limit per file (default 60)")
    args = parser.parse_args()
    os.environ["LSP_COUNT_CACHE_DIR"] = "off"  # each file from nothing
    roots = args.dirs or default_roots()
    files = model_files(roots)
    print(f"{len(files)} files under {len(roots)} directories", flush=True)
    signal.signal(signal.SIGALRM, _on_alarm)
    times: list[float] = []
    failures = models = 0
    for n, path in enumerate(files, 1):
        text = path.read_text(encoding="utf-8")
        start = time.perf_counter()
        signal.alarm(args.limit_s)
        try:
            report = analyze_text(text, str(path))
        except _Timeout:
            failures += 1
            print(f"{path}: over {args.limit_s} s", flush=True)
            continue
        except Exception:  # noqa: BLE001 - what the sweep is looking for
            failures += 1
            print(f"{path}: raised\n{traceback.format_exc()}", flush=True)
            continue
        finally:
            signal.alarm(0)
        times.append(time.perf_counter() - start)
        models += len(report.models)
        for problem in report.problems:
            if "a bug in lsp-count" in problem.message:
                failures += 1
                print(f"{path}: {problem.message}", flush=True)
        if n % 250 == 0:
            print(f"  {n} files ...", flush=True)
    if times:
        print(f"{len(times)} analysed, {models:,} classes counted: median {statistics.median(times) * 1000:.0f} ms, "
              f"slowest {max(times):.2f} s; {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
