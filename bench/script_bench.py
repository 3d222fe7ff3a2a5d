"""Benchmark: a training script's models (its ``__main__`` block and the ``main()`` it calls).

The script is tests/fixtures/scripts/train_gpt.py beside the nanoGPT model file it imports
(tests/fixtures/pymodels/nanogpt.py): argparse, the project's GPT, a frozen part, torch.compile, the
optimizer and a learning-rate loop. Timed: lsp-count's static analysis of it in a fresh process
(the CLI and the gate), the same analysis again in one process after an edit inside main() (the
language server, whose project files are read once), against the peer method: Python running the
script's main() with torch on the meta device, in a fresh process (torchinfo-style counting, or
--execute).
Run: .venv/bin/python bench/script_bench.py
"""

from __future__ import annotations

import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
RUNS = 7


def fresh_process(code: str, cwd: str) -> float:
    """Seconds a fresh interpreter takes to run ``code`` (interpreter start included)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=cwd, check=True, capture_output=True, timeout=600)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(FIXTURES / "pymodels" / "nanogpt.py", pathlib.Path(tmp) / "nanogpt.py")
        script = pathlib.Path(tmp) / "train_gpt.py"
        shutil.copy(FIXTURES / "scripts" / "train_gpt.py", script)
        text = script.read_text()

        sys.path.insert(0, str(ROOT / "server"))
        from lsp_count.core.analyze import analyze_text

        report = analyze_text(text, str(script))
        counts = ", ".join(f"{m.name} {m.tree.total:,}" for m in report.models)
        analyse = (f"from lsp_count.core.analyze import analyze_text; "
                   f"analyze_text(open({str(script)!r}).read(), {str(script)!r})")
        cli = [fresh_process(analyse, tmp) for _ in range(RUNS)]
        edits = []
        for i in range(RUNS):
            edited = text.replace("lr=1e-3)", f"lr={i + 2}e-3)")  # a change inside main()
            start = time.perf_counter()
            analyze_text(edited, str(script))
            edits.append(time.perf_counter() - start)
        run_main = ("import sys, torch\nsys.argv = ['train_gpt.py']\nwith torch.device('meta'):\n"
                    f"    exec(compile(open({str(script)!r}).read(), 'train_gpt.py', 'exec'), "
                    "{'__name__': '__main__'})\n")
        torch_runs = [fresh_process(run_main, tmp) for _ in range(3)]
    cli_ms, edit_ms, torch_ms = (statistics.median(t) * 1000 for t in (cli, edits, torch_runs))
    print(f"training script tests/fixtures/scripts/train_gpt.py ({counts})")
    print(f"lsp-count static analysis, fresh process (interpreter start included): median {cli_ms:.0f} ms "
          f"({RUNS} runs)")
    print(f"language server, again after an edit inside main(): median {edit_ms:.1f} ms ({RUNS} runs)")
    print(f"Python running its main() with torch on the meta device, fresh process: median {torch_ms:.0f} ms "
          f"(3 runs)")
    print(f"ratio (median, fresh processes): {torch_ms / cli_ms:.1f}x")


if __name__ == "__main__":
    main()
