"""Benchmark: the budget gate (`lsp-count check`) over a repository of 1,000 config files.

Builds a temporary git-less repository whose pyproject.toml holds the README's
budget (one RTX 4090, bf16, 4k context, ≤ 7B params), fills it with 1,000
config.json files cycled from the bundled catalog (every family, small to
235B, so a realistic share is over budget and gets the full "what would fit"
search), and times:

* the command as pre-commit runs it: one `lsp-count check` process over all
  files (interpreter start-up and imports included), best of N runs;
* the same in-process (`lsp_count.check.main`), to separate start-up from work;
* Python model files: 60 modeling files of the installed transformers (where it is installed),
  checked in one run that lends each file the project files' trees the previous ones read,
  against each file analysed alone.

Target: under 2 s for the whole gate. Usage: python bench/check_bench.py [--files 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "server" / "lsp_count" / "catalog"
BUDGET = '[tool.lsp-count]\ngpu = "RTX-4090"\ndtype = "bf16"\ncontext = 4096\nmax-params = "7B"\n'


def build_repo(root: Path, n_files: int) -> list[str]:
    sources = sorted(CATALOG.rglob("*.json"))
    if not sources:
        raise SystemExit("no catalog configs found")
    (root / "pyproject.toml").write_text(BUDGET, encoding="utf-8")
    paths = []
    for i in range(n_files):
        src = sources[i % len(sources)]
        rel = f"models/{i:04d}-{src.stem}/config.json"
        dst = root / rel
        dst.parent.mkdir(parents=True)
        shutil.copyfile(src, dst)
        paths.append(rel)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    exe = Path(sys.executable).with_name("lsp-count")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "lsp_count"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = build_repo(root, args.files)
        # The file list goes through an argument list as pre-commit passes it.
        walls = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            proc = subprocess.run([*cmd, "check", *paths], cwd=root, capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"lsp-count check failed ({proc.returncode}):\n{proc.stderr}")
        summary = proc.stdout.strip().splitlines()[-1]
        findings = len(proc.stdout.strip().splitlines()) - 1

        from lsp_count.check import main as check_main
        from lsp_count.core.analyze import analyze_path
        from lsp_count.core.budget import budget_for, judge, load_budget_config

        # Where the time goes, serially: reading + counting, then judging (estimate + fit search).
        config = load_budget_config(str(root / "pyproject.toml"))
        t0 = time.perf_counter()
        models = [(m, p) for p in paths for m in analyze_path(str(root / p)).models]
        t_analyze = time.perf_counter() - t0
        t_pass = t_fail = 0.0
        n_fail = 0
        for m, p in models:
            t0 = time.perf_counter()
            over = judge(m, budget_for(config, str(root / p)))
            dt = time.perf_counter() - t0
            if over:
                t_fail, n_fail = t_fail + dt, n_fail + 1
            else:
                t_pass += dt

        here = os.getcwd()
        os.chdir(root)
        try:
            inproc = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    check_main(paths)
                inproc.append(time.perf_counter() - t0)
        finally:
            os.chdir(here)
    best, best_in = min(walls), min(inproc)
    print(f"files: {args.files} config.json ({len(set(p.split('-', 1)[1] for p in paths))} distinct catalog configs)")
    print(f"findings: {findings}; {summary}")
    print(f"lsp-count check, one process (as pre-commit runs it): best {best:.2f} s of {args.runs} "
          f"(runs: {', '.join(f'{w:.2f}' for w in walls)}); {1000 * best / args.files:.2f} ms/file")
    print(f"in-process (no start-up): best {best_in:.2f} s; {1000 * best_in / args.files:.2f} ms/file")
    n_pass = len(models) - n_fail
    print(f"serial breakdown: read+count {t_analyze:.2f} s ({1000 * t_analyze / args.files:.2f} ms/file); "
          f"judge {n_pass} within budget {t_pass:.2f} s ({1000 * t_pass / max(n_pass, 1):.2f} ms each), "
          f"{n_fail} over budget (with the what-would-fit search) {t_fail:.2f} s "
          f"({1000 * t_fail / max(n_fail, 1):.1f} ms each); workers: {os.cpu_count()} CPUs")
    print(f"target < 2 s: {'met' if best < 2.0 else 'NOT met'}")
    time_python_models()


def time_python_models(count: int = 60) -> None:
    """Python model files of one package checked in one run: the files share the project files
    they import (SharedTrees) against each analysed alone, in the same run."""
    from lsp_count import check
    from lsp_count.core import analyze
    from lsp_count.core.budget import BudgetConfig
    from lsp_count.pymodel.reuse import PythonMemo
    from pymodel_bench import transformers_modeling_files  # bench/ is on the path when run as a script

    files = [str(p) for p in transformers_modeling_files()[:count]]
    if not files:
        print("transformers is not installed: no Python model files timed")
        return

    def run() -> float:
        start = time.perf_counter()
        check.check_files(files, BudgetConfig(), jobs=1)
        return time.perf_counter() - start

    with mock.patch.dict(os.environ, {"LSP_COUNT_CACHE_DIR": "off"}):  # restored afterwards
        # The sharing within one run, without the tree cache; the cache is timed after.
        run()  # imports
        shared = min(run() for _ in range(2))
        memo_for = analyze.SharedTrees.memo_for
        analyze.SharedTrees.memo_for = lambda self, path: None  # type: ignore[method-assign]
        try:
            alone = min(run() for _ in range(2))
        finally:
            analyze.SharedTrees.memo_for = memo_for  # type: ignore[method-assign]
        with tempfile.TemporaryDirectory() as cache:
            os.environ["LSP_COUNT_CACHE_DIR"] = cache
            # The parse trees of an earlier run alone (no per-class results: memo_store.py not read).
            analyze.SharedTrees.memo_for = lambda self, path: PythonMemo(self.trees, reuse=False)  # type: ignore
            try:
                run()  # an earlier run fills the tree cache
                cached = min(run() for _ in range(2))
            finally:
                analyze.SharedTrees.memo_for = memo_for  # type: ignore[method-assign]
            first = run()  # stores each file's per-class results
            again = min(run() for _ in range(2))  # the files unchanged since: every class from the store
    print(f"{len(files)} transformers modeling files in one serial run: {shared:.2f} s sharing the project files' "
          f"trees ({1000 * shared / len(files):.0f} ms/file), {alone:.2f} s each alone "
          f"({1000 * alone / len(files):.0f} ms/file): {alone / shared:.1f}x; with the tree cache of an earlier run "
          f"{cached:.2f} s ({1000 * cached / len(files):.0f} ms/file); storing each file's per-class results "
          f"{first:.2f} s, then again with the files unchanged {again:.2f} s ({1000 * again / len(files):.0f} ms/file)")


if __name__ == "__main__":
    main()
