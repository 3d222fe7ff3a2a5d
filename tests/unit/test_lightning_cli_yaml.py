"""LightningCLI configs (jsonargparse's ``class_path`` / ``init_args``; pymodel/class_configs.py):
the model's class and arguments counted, a file that is only the model's part (``--model
model.yaml``) too, a data module's config is no model file, and what jsonargparse refuses is said
at the ``class_path``."""

from __future__ import annotations

import pathlib

from lsp_count.core.analyze import analyze_text

NETS = '''import torch.nn as nn


class Net(nn.Module):
    def __init__(self, dim: int, depth: int = 2, head: nn.Module | None = None):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        self.head = head


class Data:
    def __init__(self, batch_size: int = 8):
        self.batch_size = batch_size
'''


def _write(tmp_path: pathlib.Path, name: str, text: str) -> pathlib.Path:
    (tmp_path / "nets.py").write_text(NETS)
    path = tmp_path / name
    path.write_text(text)
    return path


def _analyze(path: pathlib.Path):
    return analyze_text(path.read_text(), str(path))


def test_a_fit_config_counts_its_model(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path, "config.yaml", "seed_everything: 1\ntrainer:\n  max_epochs: 2\nmodel:\n"
                                           "  class_path: nets.Net\n  init_args:\n    dim: 8\n    head:\n"
                                           "      class_path: torch.nn.Linear\n      init_args:\n"
                                           "        in_features: 8\n        out_features: 3\n")
    report = _analyze(path)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 2 * (8 * 8 + 8) + 8 * 3 + 3)]
    assert report.models[0].span.start.line == 4  # the lens: the model's class_path


def test_a_model_only_file_counts_with_its_class_defaults(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path, "model.yaml", "class_path: nets.Net\ninit_args:\n  dim: 4\n  depth: 3\n")
    assert [(m.name, m.tree.total) for m in _analyze(path).models] == [("Net", 3 * (4 * 4 + 4))]


def test_a_data_module_config_is_no_model_file(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path, "data.yaml", "class_path: nets.Data\ninit_args:\n  batch_size: 4\n")
    report = _analyze(path)
    assert not report.recognized and not report.models
    assert report.problems[-1].message == "no model found: `class_path: nets.Data` is not a module class of the project or torch"


def test_an_argument_beside_class_path_is_jsonargparse_s_error(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path, "config.yaml", "model:\n  class_path: nets.Net\n  init_args:\n    dim: 4\n    head:\n"
                                           "      class_path: torch.nn.Linear\n      in_features: 4\n")
    report = _analyze(path)
    assert not report.models
    error, = report.problems
    assert error.code == "LC102" and error.message == (
        "`model.init_args.head` has `in_features` beside its class_path: jsonargparse takes a class's arguments "
        "under `init_args`")


def test_a_missing_argument_is_said_at_the_model(tmp_path: pathlib.Path) -> None:
    path = _write(tmp_path, "config.yaml", "model:\n  class_path: nets.Net\n  init_args:\n    depth: 1\n")
    problem, = _analyze(path).problems
    assert problem.code == "LC101" and problem.message.startswith("`Net` cannot be counted exactly: ")
    assert "dim" in problem.message
