"""The command line a training script is run with (AnalyzeOptions.script_args): its argparse
``parse_args()`` and ``sys.argv`` read it, from the CLI's ``--script-args`` or the project's
``[tool.lsp-count.script-args]`` (the gate's and the editor's). Without one, each argument's
default, as before. (tests/parity/test_pymodel_script_parity.py runs such a script with torch; a wrong
`script-args` table is among test_pymodel_installed_packages.py's wrong budget file keys.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.budget import load_budget_config

SCRIPT = """
import argparse
import sys

import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--deep", action="store_true")
    args = parser.parse_args()
    layers = [nn.Linear(args.width, args.width) for _ in range(4 if args.deep else 1)]
    model = nn.Sequential(*layers)
    head = nn.Linear(args.width, 2 if len(sys.argv) < 4 else 3)


if __name__ == "__main__":
    main()
"""


def _counts(options: AnalyzeOptions) -> tuple[dict[str, int], str]:
    """Each model's count, and the LC106 note of what the script's `__main__` block was counted with."""
    report = analyze_text(SCRIPT, "train.py", options)
    (note,) = [p.message for p in report.problems if p.code == "LC106"]
    assert note.startswith("the script's `__main__` block: ")
    return {m.name: m.tree.total for m in report.models}, note


def test_a_script_is_counted_with_the_command_line_given() -> None:
    counts, notes = _counts(AnalyzeOptions())
    assert counts == {"model in main()": 64 * 64 + 64, "head in main()": 64 * 2 + 2}
    assert "as for a command line that gives none (--script-args gives one): `parse_args()` (line 12), " \
           "`sys.argv` (line 15)" in notes
    counts, notes = _counts(AnalyzeOptions(script_args=("--width", "32", "--deep")))
    assert counts == {"model in main()": 4 * (32 * 32 + 32), "head in main()": 32 * 3 + 3}  # sys.argv: 4 items
    assert "counted with the command line given (--script-args, or the project's `script-args`), " \
           "`--width 32 --deep` (line 12)" in notes
    assert "gives none" not in notes


def test_a_command_line_the_script_refuses_is_said_as_argparse_would() -> None:
    report = analyze_text(SCRIPT, "train.py", AnalyzeOptions(script_args=("--width",)))
    said = " ".join(p.message for p in report.problems)
    assert "argparse exits: `--width` expects one argument" in said, said
    report = analyze_text(SCRIPT, "train.py", AnalyzeOptions(script_args=("--height", "3")))
    assert "not `--height`" in " ".join(p.message for p in report.problems)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LSP_COUNT_CACHE_DIR": "off"}
    return subprocess.run([sys.executable, "-m", "lsp_count", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_cli_gives_the_script_its_command_line(tmp_path) -> None:
    write(tmp_path / "train.py", SCRIPT)
    out = cli("train.py", "--json", "--script-args=--width 16 --deep", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    models = {m["name"]: m["params"]["total"] for m in json.loads(out.stdout)["files"][0]["models"]}
    assert models["model in main()"] == 4 * (16 * 16 + 16)
    # (a value with a space, as argparse takes it after the flag)
    assert cli("train.py", "--script-args", "--width 16", cwd=tmp_path).returncode == 0
    bad = cli("train.py", "--script-args=--width '16", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith("--script-args: \"--width '16\" does not split as a shell splits it: "
                                       "No closing quotation")
    assert "Traceback" not in bad.stderr


def test_the_gate_gives_each_script_the_command_line_its_glob_names(tmp_path) -> None:
    write(tmp_path / "pyproject.toml", """
        [tool.lsp-count]
        max-params = "10K"

        [tool.lsp-count.script-args]
        "big/*.py" = "--width 128 --deep"
        "small/train.py" = ["--width", "8"]
    """)
    write(tmp_path / "big" / "train.py", SCRIPT)
    write(tmp_path / "small" / "train.py", SCRIPT)
    big = cli("check", "big/train.py", cwd=tmp_path)
    assert big.returncode == 1 and "over" in big.stdout, big.stdout + big.stderr  # 66,048 parameters
    small = cli("check", "small/train.py", cwd=tmp_path)
    assert small.returncode == 0, small.stdout + small.stderr  # 72 parameters
    config = load_budget_config(str(tmp_path / "pyproject.toml"))
    assert config.script_args == (("big/*.py", ("--width", "128", "--deep")), ("small/train.py", ("--width", "8")))
    options = config.reading_options(AnalyzeOptions(), str(tmp_path / "big" / "train.py"))
    assert options.script_args == ("--width", "128", "--deep")
    assert config.reading_options(AnalyzeOptions(), str(tmp_path / "other.py")).script_args is None
