"""Budgets: sizes, key spellings, budget files (with key lines in errors), globs, params verdicts."""

from __future__ import annotations

import json
import os

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.core.budget import (
    Budget,
    BudgetConfig,
    BudgetError,
    budget_for,
    budget_from_mapping,
    canonical_key,
    find_budget_file,
    glob_match,
    ignored_codes,
    judge_memory,
    judge_params,
    load_budget_config,
    parse_bytes,
    parse_count,
)

LLAMA_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
LLAMA_8B_TOTAL = 8_030_261_248


@pytest.mark.parametrize("text, expected", [
    ("7B", 7_000_000_000), ("7b", 7_000_000_000), ("500M", 500_000_000), ("1.5T", 1_500_000_000_000),
    ("7e9", 7_000_000_000), ("7_000_000_000", 7_000_000_000), ("7,000,000,000", 7_000_000_000),
    (" 7 B ", 7_000_000_000), ("125K", 125_000), (7e9, 7_000_000_000), (123, 123), ("0.5B", 500_000_000),
])
def test_parse_count(text, expected):
    assert parse_count(text) == expected


@pytest.mark.parametrize("bad", ["lots", "7 GiB", "", "-7B", "0", True, None, [7], "7BB", "nan"])
def test_parse_count_rejects(bad):
    with pytest.raises(ValueError):
        parse_count(bad)


@pytest.mark.parametrize("text, expected", [
    ("24GiB", 24 << 30), ("24 GiB", 24 << 30), ("80 GiB", 80 << 30), ("24GB", 24 * 10**9), ("24gb", 24 * 10**9),
    ("512MiB", 512 << 20), ("1.5TiB", 3 << 39), (1024, 1024), ("1e9", 10**9), ("100B", 100),
])
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == expected


def test_parse_bytes_refuses_ambiguous_g():
    with pytest.raises(ValueError, match="24GiB.*24GB"):
        parse_bytes("24G")


@pytest.mark.parametrize("key", ["max-params", "max_params", "maxParams", "MAX_PARAMS"])
def test_key_spellings(key):
    assert canonical_key(key) == "max-params"
    assert budget_from_mapping({key: "7B"}).max_params == 7 * 10**9


def test_budget_from_mapping_settings_and_errors():
    b = budget_from_mapping({"gpu": "RTX 4090", "mode": "inference", "loraRank": 8, "context": 4096})
    assert b.gpu == "RTX 4090"
    assert dict(b.settings) == {"mode": "inference", "lora-rank": 8, "context": 4096}
    with pytest.raises(BudgetError) as err:
        budget_from_mapping({"maxParam": "7B", "gpu": "RTX-4009"})
    messages = [p.message for p in err.value.problems]
    assert any("maxParam" in m and "did you mean max-params" in m for m in messages)
    assert any("RTX-4009" in m and "RTX-4090" in m for m in messages)


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return str(path)


def test_load_pyproject_and_key_lines(tmp_path):
    path = _write(tmp_path / "pyproject.toml", """\
[project]
name = "x"

[tool.lsp-count]
max-params = "lots"
gpu = "RTX-4090"
max_parms = 3

[[tool.lsp-count.budget]]
name = "train"
files = ["train/**"]
"max-memory" = "24G"
""")
    with pytest.raises(BudgetError) as err:
        load_budget_config(path)
    by_key = {p.message.split(": ")[1]: p for p in err.value.problems}
    assert by_key["tool.lsp-count.max-params"].span.start.line == 4
    assert f"{path}:5:" in by_key["tool.lsp-count.max-params"].message
    assert "lots" in by_key["tool.lsp-count.max-params"].message
    assert by_key["tool.lsp-count.max_parms"].span.start.line == 6
    assert "did you mean max-params" in by_key["tool.lsp-count.max_parms"].message
    assert by_key["tool.lsp-count.budget.[0].max-memory"].span.start.line == 11


def test_several_budgets_inherit_and_match_by_glob(tmp_path):
    path = _write(tmp_path / "pyproject.toml", """\
[tool.lsp-count]
gpu = "RTX-4090"
dtype = "bf16"
max-params = "7B"
ignore = ["legacy/**", "models/odd/config.json:LC201"]

[[tool.lsp-count.budget]]
name = "training"
files = ["train/**/*.yaml", "big/"]
gpu = "8xH100"
mode = "train"
max-params = "80B"
""")
    config = load_budget_config(path)
    assert [b.name for b in config.budgets] == ["training", None]
    train = budget_for(config, str(tmp_path / "train" / "a" / "llama.yaml"))
    assert train.name == "training" and train.gpu == "8xH100" and train.max_params == 80 * 10**9
    assert dict(train.settings) == {"dtype": "bf16", "mode": "train"}
    assert budget_for(config, str(tmp_path / "big" / "x" / "config.json")).name == "training"
    serve = budget_for(config, str(tmp_path / "models" / "a" / "config.json"))
    assert serve.name is None and serve.gpu == "RTX-4090" and serve.max_params == 7 * 10**9
    assert ignored_codes(serve, "legacy/x/config.json") is None
    assert ignored_codes(serve, "models/odd/config.json") == {"LC201"}
    assert ignored_codes(serve, "models/a/config.json") == frozenset()


def test_list_without_catch_all_leaves_other_files_unbudgeted(tmp_path):
    path = _write(tmp_path / ".lsp-count.toml", '[[budget]]\nfiles = ["serve/**"]\nmax-params = "1B"\n')
    config = load_budget_config(path)
    assert budget_for(config, str(tmp_path / "serve" / "config.json")).max_params == 10**9
    assert budget_for(config, str(tmp_path / "train" / "config.json")) is None


def test_dedicated_file_top_level_keys(tmp_path):
    path = _write(tmp_path / ".lsp-count.toml", 'max-params = "7B"\nstrict = "yes"\n')
    with pytest.raises(BudgetError) as err:
        load_budget_config(path)
    (problem,) = err.value.problems
    assert problem.span.start.line == 1 and "strict" in problem.message and "true or false" in problem.message


def test_invalid_toml_names_the_line(tmp_path):
    path = _write(tmp_path / "pyproject.toml", '[tool.lsp-count]\nmax-params = \n')
    with pytest.raises(BudgetError) as err:
        load_budget_config(path)
    assert f"{path}:2" in err.value.problems[0].message


def test_find_budget_file_walks_up_and_stops_at_repo_root(tmp_path):
    repo = tmp_path / "repo"
    deep = repo / "a" / "b"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    _write(tmp_path / "pyproject.toml", '[tool.lsp-count]\nmax-params = "1B"\n')  # above the repo: never used
    assert find_budget_file(str(deep)) is None
    _write(repo / "pyproject.toml", '[project]\nname = "x"\n')  # no table: skipped
    assert find_budget_file(str(deep)) is None
    _write(repo / "a" / "pyproject.toml", '[tool.lsp-count]\nmax-params = "1B"\n')
    assert find_budget_file(str(deep)) == str(repo / "a" / "pyproject.toml")
    _write(repo / "a" / "b" / ".lsp-count.toml", 'max-params = "1B"\n')
    assert find_budget_file(str(deep)) == str(deep / ".lsp-count.toml")


@pytest.mark.parametrize("pattern, path, expected", [
    ("models/**", "models/a/b/config.json", True),
    ("models/**", "other/models/config.json", False),
    ("config.json", "a/b/config.json", True),
    ("*.yaml", "train/x.yaml", True),
    ("train/*.yaml", "train/a/x.yaml", False),
    ("train/**/*.yaml", "train/x.yaml", True),
    ("train/**/*.yaml", "train/a/b/x.yaml", True),
    ("big/", "big/x/config.json", True),
    ("models/big", "models/big/config.json", True),
    ("models/big", "models/bigger/config.json", False),
])
def test_glob(pattern, path, expected):
    assert glob_match(pattern, path) is expected


def _model(config: dict):
    text = json.dumps(config, indent=2)
    report = analyze_text(text, "m/config.json")
    (model,) = report.models
    return model, text


def test_params_verdict_points_at_layers_and_says_what_fits():
    model, text = _model(LLAMA_8B)
    assert model.tree.total == LLAMA_8B_TOTAL
    assert judge_params(model, Budget(max_params=LLAMA_8B_TOTAL)) is None
    problem = judge_params(model, Budget(name="serving", max_params=7 * 10**9))
    assert problem.code == "LC202" and problem.severity == "error"
    line = text.splitlines()[problem.span.start.line]
    assert line.strip().startswith('"num_hidden_layers"')
    assert problem.span.start.column == line.index('"num_hidden_layers"')
    # 32 layers of 218,112,000 plus 1,050,677,248 outside them: 27 layers = 6.94B fit, 28 = 7.16B do not.
    assert 'budget "serving"' in problem.message
    assert "num_hidden_layers ≤ 27 would fit (6.94B)" in problem.message
    assert "8.03B" in problem.message


def test_params_verdict_when_no_layer_count_fits():
    model, _ = _model(LLAMA_8B)
    problem = judge_params(model, Budget(max_params=10**9))
    assert problem is not None and "would fit" not in problem.message


def test_budget_config_without_file_matches_everything():
    config = BudgetConfig((Budget(max_params=1),), None)
    assert budget_for(config, "anything/config.json").max_params == 1


def test_a_plan_s_zero_stage_is_its_training_s_and_dropped_under_inference():
    # A trainer's FSDP or DeepSpeed stage (a script's plan) under a budget or an editor's settings
    from lsp_count.core.budget import plan_under
    from lsp_count.core.memory import settings_from_mapping

    plan = {"mode": "train", "zero": 3, "batch": 8}
    assert plan_under(plan, {}) == plan
    assert plan_under(plan, {"mode": "inference"}) == {"mode": "inference", "batch": 8}
    assert settings_from_mapping(plan_under(plan, {"mode": "inference"})).zero == 0
    assert plan_under(plan, {"mode": "lora", "gpus": 8})["zero"] == 3
    assert plan_under(plan, {"mode": "inference", "zero": 2})["zero"] == 2  # (the budget's own: refused, as a flag is)


def test_the_gate_judges_an_image_model_at_its_tokens_per_image():
    # ViT-B/16 training at batch 32: 5.9 GiB at its 197 tokens (76.5 GiB at 4,096, which a team's 8 GiB limit refused).
    model, _ = _model({"model_type": "vit", "architectures": ["ViTForImageClassification"]})
    assert judge_memory(model, Budget(max_memory=8 * 2**30, settings={"mode": "train", "batch": 32})) == ()
    (over,) = judge_memory(model, Budget(max_memory=8 * 2**30, settings={"mode": "train", "batch": 32, "context": 4096}))
    assert "at 4096 tokens × batch 32" in over.message
