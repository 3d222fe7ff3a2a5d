"""The hook through the real pre-commit framework, in temporary git repositories.

pre-commit builds the hook's own virtualenv from this repository (pip install
from PyPI or the local wheel index), so the first test pays a one-off install;
PRE_COMMIT_HOME is shared by the module so the others reuse it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

LLAMA = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
LLAMA_70B = {**LLAMA, "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64,
             "num_hidden_layers": 80}
LLAMA_1B = {**LLAMA, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
            "tie_word_embeddings": True}

BUDGET = '[project]\nname = "models"\nversion = "0"\n\n[tool.lsp-count]\ngpu = "RTX-4090"\ndtype = "bf16"\n' \
         'context = 4096\nmax-params = "7B"\n'


def git(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)


def _env(home: Path) -> dict:
    env = dict(os.environ)
    env.update(
        PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", NO_COLOR="1",
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
    )
    # The hook must not see this checkout's editable install: it runs from its own virtualenv.
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    return _env(tmp_path_factory.mktemp("pre-commit-home"))


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory, env) -> tuple[Path, str]:
    """This repository's working tree (what a release would ship), committed into a fresh git repo."""
    repo = tmp_path_factory.mktemp("hook-repo")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(ROOT / "server", repo / "server", ignore=ignore)
    git(repo, "init", "-q", env=env)
    git(repo, "add", ".", env=env)
    git(repo, "commit", "-q", "-m", "hook", env=env)
    return repo, git(repo, "rev-parse", "HEAD", env=env).stdout.strip()


def make_project(path: Path, env: dict) -> Path:
    path.mkdir()
    git(path, "init", "-q", env=env)
    (path / "pyproject.toml").write_text(BUDGET, encoding="utf-8")
    return path


def write_model(project: Path, rel: str, config: dict) -> str:
    p = project / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return rel


def line_of(project: Path, rel: str, key: str) -> int:
    for n, line in enumerate((project / rel).read_text(encoding="utf-8").splitlines(), 1):
        if f'"{key}"' in line:
            return n
    raise AssertionError(key)


def pre_commit(cwd: Path, env: dict, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_try_repo_refuses_70b_and_passes_1b(tmp_path, hook_repo, env):
    repo, _ = hook_repo
    project = make_project(tmp_path / "project", env)
    big = write_model(project, "models/big/config.json", LLAMA_70B)
    small = write_model(project, "models/small/config.json", LLAMA_1B)
    git(project, "add", ".", env=env)
    result = pre_commit(project, env, "try-repo", str(repo), "lsp-count", "--files", big, small)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    expected = re.compile(rf"^{re.escape(big)}:{line_of(project, big, 'num_hidden_layers')}:3: LC20[12] ", re.M)
    assert expected.search(out), out
    assert "budget from pyproject.toml" in out
    assert not re.search(rf"^{re.escape(small)}:\d+:\d+: LC\d+ (?!warning:)", out, re.M), out

    result = pre_commit(project, env, "try-repo", str(repo), "lsp-count", "--files", small)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


def readme_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## pre-commit hook"):]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def test_readme_snippet_gates_git_commit(tmp_path, hook_repo, env):
    repo, sha = hook_repo
    project = make_project(tmp_path / "project", env)
    snippet = readme_snippet()
    assert "https://github.com/lsp-count/lsp-count" in snippet
    # The snippet exactly as documented, pointed at this tree instead of the release.
    config = snippet.replace("https://github.com/lsp-count/lsp-count", str(repo))
    config = re.sub(r"rev: \S+", f"rev: {sha}", config)
    (project / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git(project, "add", ".", env=env)
    git(project, "commit", "-q", "-m", "setup", env=env)
    result = pre_commit(project, env, "install")
    assert result.returncode == 0, result.stdout + result.stderr

    small = write_model(project, "models/llama-1b/config.json", LLAMA_1B)
    git(project, "add", small, env=env)
    ok = subprocess.run(["git", "commit", "-m", "add 1B"], cwd=project, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr

    big = write_model(project, "models/llama-70b/config.json", LLAMA_70B)
    git(project, "add", big, env=env)
    refused = subprocess.run(["git", "commit", "-m", "add 70B"], cwd=project, env=env, capture_output=True, text=True)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    at = f"{big}:{line_of(project, big, 'num_hidden_layers')}:3:"
    assert re.search(rf"^{re.escape(at)} LC201 needs .* RTX-4090 has 23\.6 GiB", out, re.M), out
    assert re.search(rf"^{re.escape(at)} LC202 ", out, re.M), out
    assert git(project, "log", "--format=%s", env=env).stdout.split() .count("70B") == 0

    # Under the budget again (fewer layers), the same commit goes through.
    write_model(project, big, {**LLAMA_70B, "num_hidden_layers": 5})
    git(project, "add", big, env=env)
    ok = subprocess.run(["git", "commit", "-m", "add small 70B-wide"], cwd=project, env=env, capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_local_system_hook_with_this_venv(tmp_path, env):
    """The offline variant: a `repo: local` hook running this checkout's lsp-count."""
    exe = Path(sys.executable).with_name("lsp-count")
    if not exe.exists():
        pytest.skip("lsp-count is not installed next to this interpreter")
    project = make_project(tmp_path / "project", env)
    (project / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: lsp-count\n        name: lsp-count\n"
        f"        entry: {exe} check\n        language: system\n"
        "        files: (^|/)config\\.json$|\\.(ya?ml|py)$\n        require_serial: true\n",
        encoding="utf-8")
    big = write_model(project, "m/big/config.json", LLAMA_70B)
    small = write_model(project, "m/small/config.json", LLAMA_1B)
    git(project, "add", ".", env=env)
    result = pre_commit(project, env, "run", "--files", big, small, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{big}:{line_of(project, big, 'num_hidden_layers')}:3: LC20" in result.stdout
    result = pre_commit(project, env, "run", "--files", small, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
