"""A real editor client: Neovim (0.7, headless) opens Meta-Llama-3-8B's config.json, and a
nanoGPT model.py that it then edits.

Checks what a user sees: the hover with the exact total, the code lens, and
the budget error naming the GPU from the workspace's pyproject.toml; in the Python file, the
lenses before and after an edit, and after a project file it imports is changed and written; the
hover on a model function's `def`; the progress bar of an analysis.
Skipped only when nvim is not installed (scripts/test.sh installs it).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LLAMA = ROOT / "examples" / "llama-3-8b" / "config.json"
NANOGPT = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"
SCRIPT = pathlib.Path(__file__).with_name("nvim") / "lsp_count_check.lua"
PYTHON_SCRIPT = pathlib.Path(__file__).with_name("nvim") / "python_edit_check.lua"
IMPORT_SCRIPT = pathlib.Path(__file__).with_name("nvim") / "python_import_save_check.lua"
FUNCTION_SCRIPT = pathlib.Path(__file__).with_name("nvim") / "python_function_hover_check.lua"
PROGRESS_SCRIPT = pathlib.Path(__file__).with_name("nvim") / "python_progress_check.lua"
FACTORIES = ROOT / "tests" / "fixtures" / "pymodels" / "factories.py"

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed")


def run_nvim(workspace: pathlib.Path, settings: dict, document: pathlib.Path = LLAMA,
             script: pathlib.Path = SCRIPT, env_extra: dict[str, str] | None = None) -> dict:
    target = workspace / ("meta-llama-3-8b/config.json" if document == LLAMA else document.name)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(document, target)
    out = workspace / "result.json"
    env = {**os.environ,
           "LSP_COUNT_CMD": json.dumps([sys.executable, "-m", "lsp_count", "serve", "--stdio"]),
           "LSP_COUNT_FILE": str(target), "LSP_COUNT_OUT": str(out),
           "LSP_COUNT_SETTINGS": json.dumps(settings), "XDG_CONFIG_HOME": str(workspace / "xdg"),
           "XDG_DATA_HOME": str(workspace / "xdg"), "XDG_STATE_HOME": str(workspace / "xdg"), **(env_extra or {})}
    proc = subprocess.run(["nvim", "--headless", "--clean", "-n", "-c", f"luafile {script}"],
                          env=env, cwd=workspace, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"nvim wrote no result (rc {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(out.read_text())
    assert result["errors"] == [], result["errors"]
    assert result["initialized"] is True
    return result


def test_nvim_hover_lens_and_budget_error(tmp_path: pathlib.Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.lsp-count]\ngpu = "T4"\nmode = "inference"\ncontext = 4096\n')
    result = run_nvim(tmp_path, {})
    assert "8,030,261,248" in result["hover"]
    assert result["lens"].startswith("8.03B params · ")
    assert "bf16" in result["lens"] and "T4 ✗ needs 2×" in result["lens"]
    errors = [d for d in result["diagnostics"] if d["severity"] == 1]
    assert errors and all(d["code"] == "LC201" for d in errors), result["diagnostics"]
    assert "T4" in errors[0]["message"]


def test_nvim_pushed_settings_choose_the_gpu(tmp_path: pathlib.Path):
    # No budget file: the GPU comes from the settings Neovim 0.7 pushes after initialize.
    (tmp_path / ".git").mkdir()
    result = run_nvim(tmp_path, {"lsp-count": {"gpu": "RTX-4090"}})
    assert "8,030,261,248" in result["hover"]
    assert "fits RTX-4090 ✓" in result["lens"]


def test_nvim_python_lenses_follow_an_edit_and_added_lines(tmp_path: pathlib.Path):
    # Neovim sends each change; the server re-analyses from what it kept (the classes the edit
    # did not reach are moved, MLP and what builds it are counted again).
    (tmp_path / ".git").mkdir()
    result = run_nvim(tmp_path, {}, NANOGPT, PYTHON_SCRIPT)
    text = NANOGPT.read_text()
    line_of = {name: text.count("\n", 0, text.index(f"class {name}(")) for name in ("CausalSelfAttention", "MLP", "GPT")}
    before = {lens["line"]: lens["title"] for lens in result["before"]}
    after = {lens["line"]: lens["title"] for lens in result["after"]}
    assert before[line_of["GPT"]].startswith("124M params (124,475,904)")
    assert after[line_of["CausalSelfAttention"] + 2] == before[line_of["CausalSelfAttention"]]
    assert after[line_of["MLP"] + 2].startswith("2.36M params (2,361,600)")
    assert after[line_of["GPT"] + 2].startswith("96.1M params (96,145,920)")


def test_nvim_python_lenses_follow_a_saved_project_file(tmp_path: pathlib.Path):
    # The model's own buffer does not change: the file it imports is edited and :written.
    (tmp_path / ".git").mkdir()
    (tmp_path / "layers.py").write_text("WIDTH = 8\n")
    source = tmp_path / "src" / "uses_layers.py"
    source.parent.mkdir()
    source.write_text("import torch.nn as nn\nfrom layers import WIDTH\n\n\nclass UsesLayers(nn.Module):\n"
                      "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(WIDTH, WIDTH)\n")
    result = run_nvim(tmp_path, {}, source, IMPORT_SCRIPT, {"LSP_COUNT_OTHER": str(tmp_path / "layers.py")})
    assert [lens["title"].split(" · ")[0] for lens in result["before"]] == ["72 params (72)"]
    assert [lens["title"].split(" · ")[0] for lens in result["after"]] == ["272 params (272)"]
    assert (tmp_path / "layers.py").read_text() == "WIDTH = 16\n"


def test_nvim_python_hover_on_a_model_function_counts_what_it_builds(tmp_path: pathlib.Path):
    (tmp_path / ".git").mkdir()
    result = run_nvim(tmp_path, {}, FACTORIES, FUNCTION_SCRIPT)
    assert "### vgg11() · 133M parameters" in result["hovers"]["vgg11"]
    assert "**132,863,336** parameters" in result["hovers"]["vgg11"]
    assert result["hovers"]["_vgg"] == ""  # needs arguments: a helper, no hover
    assert result["lenses"] == []  # VGG itself needs its layer table; functions get no lens


def test_nvim_shows_the_progress_bar_of_an_analysis(tmp_path: pathlib.Path):
    # Shown at once here (the default waits 500 ms, longer than this file takes).
    (tmp_path / ".git").mkdir()
    result = run_nvim(tmp_path, {}, NANOGPT, PROGRESS_SCRIPT, {"LSP_COUNT_PROGRESS_AFTER_MS": "0"})
    kinds = [value["kind"] for value in result["values"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and set(kinds[1:-1]) <= {"report"}, result["values"]
    assert result["values"][0]["title"] == "lsp-count: nanogpt.py"
    assert result["kept"] == [{"title": "lsp-count: nanogpt.py", "message": "4 models counted, 1 not counted exactly",
                               "done": True}]
