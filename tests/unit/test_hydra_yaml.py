"""Hydra model configs opened by themselves (pymodel/hydra_model.py): a group option's file is
counted in the config its primary composes with it chosen, a primary config counts the model it
composes, a data module's or a trainer's config is no model file, and a config that cannot be
composed or built says why, at its `_target_`."""

from __future__ import annotations

import pathlib
import shutil

from lsp_count.core.analyze import analyze_text

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "hydra_project"


def _copy(tmp_path: pathlib.Path) -> pathlib.Path:
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project)
    return project


def _analyze(path: pathlib.Path, text: str | None = None):
    return analyze_text(path.read_text() if text is None else text, str(path))


def test_a_model_option_is_counted_in_its_primary_config(tmp_path: pathlib.Path) -> None:
    project = _copy(tmp_path)
    report = _analyze(project / "configs" / "model" / "mnist.yaml")
    assert [(m.name, m.tree.total) for m in report.models] == [("MNISTLitModule", 67_978)]
    note, = [p for p in report.problems if p.code == "LC106"]
    assert note.message.startswith("counted in the config configs/train.yaml composes with `model=mnist` chosen")
    assert "configs/data/mnist.yaml" in note.message  # where `${data.num_classes}` came from
    assert note.span.start.line == 0  # `_target_:`, the first line


def test_the_editor_s_unsaved_text_is_what_is_counted(tmp_path: pathlib.Path) -> None:
    project = _copy(tmp_path)
    path = project / "configs" / "model" / "mnist.yaml"
    edited = path.read_text().replace("lin2_size: 128", "lin2_size: 256")
    report = _analyze(path, edited)
    # lin2: 64*256+256, its norm 2*256, lin3: 256*64+64 (was 64*128+128, 2*128, 128*64+64)
    assert [m.tree.total for m in report.models] == [67_978 + (64 * 128 + 128 + 256 + 128 * 64)]


def test_a_primary_config_counts_the_model_it_composes(tmp_path: pathlib.Path) -> None:
    project = _copy(tmp_path)
    report = _analyze(project / "configs" / "train.yaml")
    assert [(m.name, m.tree.total) for m in report.models] == [("MNISTLitModule", 67_978)]


def test_a_data_module_or_trainer_config_is_no_model_file(tmp_path: pathlib.Path) -> None:
    project = _copy(tmp_path)
    for name in ("data/mnist.yaml", "trainer/default.yaml"):
        report = _analyze(project / "configs" / name)
        assert not report.recognized and not report.models, name
        assert report.problems[-1].message.startswith("no model found: `_target_: ")


def test_a_broken_option_or_a_missing_class_is_said_at_the_target(tmp_path: pathlib.Path) -> None:
    project = _copy(tmp_path)
    path = project / "configs" / "model" / "mnist.yaml"
    broken = _analyze(path, path.read_text().replace("lin1_size: 64", "lin1_size: [64"))
    error, = [p for p in broken.problems if p.severity == "error"]  # the document's own, at its line; nothing counted
    assert error.code == "LC001" and error.span.start.line == 19 and not broken.models
    other = project / "configs" / "data" / "mnist.yaml"  # a file the composition reads
    other.write_text(other.read_text().replace("batch_size: 128", "batch_size: [128"))
    elsewhere, = [p for p in _analyze(path).problems if p.severity == "error"]
    assert elsewhere.code == "LC102" and elsewhere.message.startswith("configs/data/mnist.yaml:4:")
    assert "does not parse" in elsewhere.message
    other.write_text(other.read_text().replace("batch_size: [128", "batch_size: 128"))
    missing = _analyze(path, path.read_text().replace("SimpleDenseNet\n", "DenseNetThatIsNot\n"))
    warning, = [p for p in missing.problems if p.code == "LC101"]
    assert warning.message.startswith("`MNISTLitModule` cannot be counted exactly: ")
    assert "DenseNetThatIsNot" in warning.message and warning.span.start.line == 0


def test_a_torch_target_needs_no_project(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "head.yaml"
    path.write_text("_target_: torch.nn.Linear\nin_features: 10\nout_features: ${.in_features}\n")
    report = _analyze(path)
    assert [(m.name, m.tree.total) for m in report.models] == [("Linear", 110)]


def test_the_gate_checks_a_hydra_model_config_and_skips_a_data_config(tmp_path: pathlib.Path) -> None:
    import subprocess
    import sys

    project = _copy(tmp_path)
    done = subprocess.run([str(pathlib.Path(sys.executable).parent / "lsp-count"), "check", "--max-params", "10K",
                           "configs/model/mnist.yaml", "configs/data/mnist.yaml"], cwd=project, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "configs/model/mnist.yaml:1:1: LC202 68.0K parameters (67,978) is over max-params 10.0K" in done.stdout
    assert "1 model file, 1 model checked: 1 over budget" in done.stdout + done.stderr


def test_an_experiment_config_is_counted_as_its_run_composes_it(tmp_path: pathlib.Path) -> None:
    # configs/experiment/example.yaml: `# @package _global_`, `override /model: mnist`, wider layers
    project = _copy(tmp_path)
    report = _analyze(project / "configs" / "experiment" / "example.yaml")
    assert [(m.name, m.tree.total) for m in report.models] == [("MNISTLitModule", 151_498)]
    note, = [p for p in report.problems if p.code == "LC106"]
    assert "`experiment=example`" in note.message
