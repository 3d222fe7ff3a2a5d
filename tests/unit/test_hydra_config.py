"""Hydra configs the analyser composes (pymodel/hydra_config.py) and the scripts that use them:
what Hydra would refuse is said with the file and line, what it takes from the command line or
the environment is not guessed, and a script's model built from a broken config is LC101 with the
reason, never a traceback."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.pymodel import hydra_config
from lsp_count.pymodel.values import Unknown

SCRIPT = '''import hydra
from omegaconf import DictConfig


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    model = hydra.utils.instantiate(cfg.model)


if __name__ == "__main__":
    main()
'''


def _project(tmp_path: pathlib.Path, config: str, model: str) -> pathlib.Path:
    (tmp_path / "conf" / "model").mkdir(parents=True)
    (tmp_path / "conf" / "config.yaml").write_text(config)
    (tmp_path / "conf" / "model" / "mlp.yaml").write_text(model)
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    return script


CONFIG = "defaults:\n  - model: mlp\n  - _self_\nwidth: 64\n"


def test_a_hydra_script_counts_its_model_and_says_where_cfg_comes_from(tmp_path: pathlib.Path) -> None:
    script = _project(tmp_path, CONFIG, "_target_: torch.nn.Linear\nin_features: ${width}\nout_features: 8\n")
    report = analyze_text(script.read_text(), str(script))
    assert [(m.name, m.tree.total) for m in report.models] == [("model in main()", 64 * 8 + 8)]
    note, = [p for p in report.problems if p.code == "LC106"]
    assert note.message == ("`cfg` is conf/config.yaml composed with conf/model/mlp.yaml, as Hydra composes it "
                            "with no command-line overrides")
    assert note.span.start.line == 4  # the @hydra.main decorator


def test_a_yaml_error_names_the_file_and_line(tmp_path: pathlib.Path) -> None:
    script = _project(tmp_path, CONFIG, "_target_: torch.nn.Linear\nin_features: [64\nout_features: 8\n")
    report = analyze_text(script.read_text(), str(script))
    assert not report.models
    failed = [p for p in report.problems if p.code == "LC101"]
    assert any("conf/model/mlp.yaml:3:" in p.message and "does not parse" in p.message for p in failed), failed
    # the model's own LC101, at `model = hydra.utils.instantiate(cfg.model)`, says the same
    assert any(p.span is not None and p.span.start.line == 6 and "mlp.yaml" in p.message for p in failed), failed


def test_a_missing_option_and_a_stray_override_are_hydras_errors(tmp_path: pathlib.Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "config.yaml").write_text("defaults:\n  - model: big\n")
    with pytest.raises(hydra_config.ConfigError, match=r"model/big.yaml does not exist"):
        hydra_config.compose(str(tmp_path), "config", "conf")
    (tmp_path / "model" / "big.yaml").write_text("dim: 1\n")
    (tmp_path / "config.yaml").write_text("defaults:\n  - model: big\n  - override data: x\n")
    with pytest.raises(hydra_config.ConfigError, match=r"Could not override 'data'"):
        hydra_config.compose(str(tmp_path), "config")
    (tmp_path / "config.yaml").write_text("defaults:\n  - model: big\n  - model: big\n")
    with pytest.raises(hydra_config.ConfigError, match=r"Multiple values for model"):
        hydra_config.compose(str(tmp_path), "config")
    (tmp_path / "config.yaml").write_text("defaults:\n  - optional model: small\n  - _self_\na: 1\n")
    assert hydra_config.compose(str(tmp_path), "config").values == {"a": 1}


def test_a_config_that_includes_itself_stops(tmp_path: pathlib.Path) -> None:
    (tmp_path / "config.yaml").write_text("defaults:\n  - config\n")
    with pytest.raises(hydra_config.ConfigError, match=r"more than 200 config files"):
        hydra_config.compose(str(tmp_path), "config")


def test_what_the_command_line_or_environment_gives_is_not_guessed() -> None:
    values = hydra_config.resolve({"a": "???", "b": "${oc.env:HOME}", "c": "${missing.key}", "d": "${d}",
                                   "e": {"f": 2, "g": "${.f}", "h": "x_${..n}"}, "n": 3, "i": "${e.g}",
                                   "j": [1, "${n}"], "k": "${j[1]}"})
    assert isinstance(values["a"], Unknown) and "command line" in values["a"].why
    assert isinstance(values["b"], Unknown) and "oc.env" in values["b"].why
    assert isinstance(values["c"], Unknown) and "InterpolationKeyError" in values["c"].why
    assert isinstance(values["d"], Unknown) and "refers to itself" in values["d"].why
    assert values["e"] == {"f": 2, "g": 2, "h": "x_3"}
    assert (values["i"], values["j"], values["k"]) == (2, [1, 3], 3)


def test_omegaconf_load_reads_the_yaml_beside_the_script(tmp_path: pathlib.Path) -> None:
    (tmp_path / "model.yaml").write_text("net:\n  _target_: torch.nn.Embedding\n  num_embeddings: 10\n"
                                         "  embedding_dim: ${dim}\ndim: 4\n")
    script = tmp_path / "build.py"
    script.write_text("import torch\nfrom omegaconf import OmegaConf\nfrom hydra.utils import instantiate\n\n"
                      "cfg = OmegaConf.load('model.yaml')\nmodel = instantiate(cfg.net)\n")
    report = analyze_text(script.read_text(), str(script))
    assert [(m.name, m.tree.total) for m in report.models] == [("model", 40)]


def test_the_cli_says_a_broken_config_without_a_traceback(tmp_path: pathlib.Path) -> None:
    script = _project(tmp_path, "defaults:\n  - model: nope\n", "_target_: torch.nn.Linear\n")
    done = subprocess.run([str(pathlib.Path(sys.executable).parent / "lsp-count"), str(script)], capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in done.stderr + done.stdout
    assert "conf/model/nope.yaml does not exist" in done.stderr + done.stdout
    assert done.returncode == 2


def test_a_yaml_bomb_is_refused_quickly(tmp_path: pathlib.Path) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (tmp_path / "config.yaml").write_text("\n".join(lines) + "\n")
    with pytest.raises(hydra_config.ConfigError, match=r"more than 100,000 values"):
        hydra_config.compose(str(tmp_path), "config")


@pytest.mark.parametrize(("value", "said"), [("${oc.env:DIM}", "`model.in_features` is `${oc.env:DIM}`, the resolver "
                                                               "`oc.env`'s value when the program runs"),
                                             ("???", "`model.in_features` is `???` in the config: a value Hydra takes "
                                                     "from the command line")])
def test_a_size_hydra_takes_at_run_time_is_explained_at_the_model(tmp_path: pathlib.Path, value: str, said: str) -> None:
    script = _project(tmp_path, CONFIG, f"_target_: torch.nn.Linear\nin_features: {value}\nout_features: 8\n")
    report = analyze_text(script.read_text(), str(script))
    assert not report.models
    problem, = [p for p in report.problems if p.code == "LC101"]
    assert problem.message.startswith("`model in main()` cannot be counted exactly: nn.Linear's in_features is "
                                      "unknown: ") and said in problem.message
    assert "hydra.py" not in problem.message  # the analyser's own shim is not what the user reads about


def test_hydra_s_compose_api_with_overrides(tmp_path: pathlib.Path) -> None:
    # a notebook's or a test's `with initialize(...): cfg = compose(config_name=..., overrides=[...])`
    _project(tmp_path, CONFIG, "_target_: torch.nn.Linear\nin_features: ${width}\nout_features: 8\n")
    (tmp_path / "conf" / "model" / "wide.yaml").write_text("_target_: torch.nn.Linear\nin_features: ${width}\n"
                                                          "out_features: 100\n")
    script = tmp_path / "notebook.py"
    script.write_text("import torch\nfrom hydra import compose, initialize\nfrom hydra.utils import instantiate\n\n"
                      "with initialize(version_base=None, config_path='conf'):\n"
                      "    cfg = compose(config_name='config', overrides=['model=wide', 'width=16'])\n\n"
                      "model = instantiate(cfg.model)\n")
    report = analyze_text(script.read_text(), str(script))
    assert [(m.name, m.tree.total) for m in report.models] == [("model", 16 * 100 + 100)]
    script.write_text(script.read_text().replace("'width=16'", "'nowhere=16'"))
    report = analyze_text(script.read_text(), str(script))
    problem, = [p for p in report.problems if p.code == "LC101"]
    assert "Could not override 'nowhere'" in problem.message
    composed = hydra_config.compose(str(tmp_path / "conf"), "config", overrides=["~width", "+depth=2"]).values
    assert composed["depth"] == 2 and "width" not in composed
    assert isinstance(composed["model"]["in_features"], Unknown)
