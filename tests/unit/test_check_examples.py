"""The budget examples users copy (hooks/ and the README section) load and say what they claim."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from lsp_count.core.budget import budget_for, load_budget_config

ROOT = Path(__file__).resolve().parents[2]


def readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## pre-commit hook")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def fenced(section: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def test_budget_example_loads(tmp_path):
    config = load_budget_config(str(ROOT / "hooks" / "budget.example.toml"))
    assert [b.name for b in config.budgets] == ["training", None]
    serve = budget_for(config, str(ROOT / "hooks" / "models" / "x" / "config.json"))
    assert serve.gpu == "RTX-4090" and serve.max_params == 7 * 10**9
    assert dict(serve.settings) == {"mode": "inference", "dtype": "bf16", "context": 4096, "batch": 1}
    train = budget_for(config, str(ROOT / "hooks" / "train" / "a" / "lora.yaml"))
    assert train.gpu == "8xH100" and train.settings["mode"] == "lora" and train.settings["context"] == 8192


def test_readme_budget_loads(tmp_path):
    (toml,) = fenced(readme_section(), "toml")
    path = tmp_path / "pyproject.toml"
    path.write_text(toml, encoding="utf-8")
    config = load_budget_config(str(path))
    assert config.budgets[-1].gpu == "RTX-4090" and config.budgets[-1].max_params == 7 * 10**9


def test_readme_snippet_matches_hook_definition():
    snippet = yaml.safe_load(fenced(readme_section(), "yaml")[0])
    example = yaml.safe_load((ROOT / "hooks" / "pre-commit-config.example.yaml").read_text(encoding="utf-8"))
    assert snippet == example
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = hooks
    assert snippet["repos"][0]["hooks"][0]["id"] == hook["id"] == "lsp-count"
    assert hook["entry"] == "lsp-count check" and hook["language"] == "python" and hook["require_serial"] is True
    files = re.compile(hook["files"])
    for name in ("config.json", "models/a/config.json", "train.yaml", "t/x.yml", "model.py"):
        assert files.search(name), name
    for name in ("package.json", "myconfig.json", "README.md"):
        assert not files.search(name), name


def test_ci_example_runs_the_gate():
    workflow = yaml.safe_load((ROOT / "hooks" / "github-actions.example.yml").read_text(encoding="utf-8"))
    runs = [s.get("run", "") for s in workflow["jobs"]["budget"]["steps"]]
    assert "lsp-count check ." in runs
    assert any("--format sarif" in r for r in runs)
