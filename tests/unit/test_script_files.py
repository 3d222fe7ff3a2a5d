"""A script's own config files (Interpreter.open_file, shims/files.py): ``open(path)`` of a file of
the script's folder is read, as text, and ``json.load`` / ``yaml.safe_load`` give its values, so a
model sized by its YAML or JSON config is counted. What the code writes, or reads outside that
folder, is never opened. (tests/parity/test_pymodel_script_parity.py runs such scripts with torch.)"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_path

HEADER = """
import json

import torch.nn as nn
import yaml


class Net(nn.Module):
    def __init__(self, width=8, depth=1):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])

"""


def run(tmp_path: Path, body: str, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    script = tmp_path / "train.py"
    script.write_text(HEADER + textwrap.dedent(body))
    report = analyze_path(str(script), AnalyzeOptions())
    return {m.name: m.tree.total for m in report.models if m.name != "Net"}, [p.message for p in report.problems]


def net(width: int, depth: int) -> int:
    return depth * (width * width + width)


@pytest.mark.parametrize(("body", "files", "want"), [
    # a YAML config read with `with` (and PyYAML's other loaders, read safely)
    ("with open('configs/model.yaml') as f:\n    cfg = yaml.safe_load(f)\nmodel = Net(**cfg['model'])\n",
     {"configs/model.yaml": "model:\n  width: 96\n  depth: 3\n"}, {"model": net(96, 3)}),
    ("cfg = yaml.load(open('m.yaml'), Loader=yaml.FullLoader)\nmodel = Net(cfg['w'])\n",
     {"m.yaml": "w: 12\n"}, {"model": net(12, 1)}),
    ("cfg = yaml.safe_load(open('m.yaml').read())\nmodel = Net(cfg['w'], depth=cfg['d'])\n",
     {"m.yaml": "w: 12\nd: 2\n"}, {"model": net(12, 2)}),
    # JSON; and the lines of a file, read one after another
    ("model = Net(**json.load(open('small.json', 'r', encoding='utf-8')))\n",
     {"small.json": '{"width": 40, "depth": 2}'}, {"model": net(40, 2)}),
    ("f = open('sizes.txt')\nwidth = int(f.readline())\ndepth = int(f.readline())\nmodel = Net(width, depth)\n",
     {"sizes.txt": "20\n4\n"}, {"model": net(20, 4)}),
    ("widths = [int(line) for line in open('sizes.txt')]\nmodel = nn.Sequential(*[Net(w) for w in widths])\n",
     {"sizes.txt": "20\n4\n"}, {"model": net(20, 1) + net(4, 1)}),
])
def test_a_script_s_config_file_sizes_its_model(tmp_path, body, files, want) -> None:
    counts, problems = run(tmp_path, body, files)
    assert counts == want, problems
    assert any("counted with the script's folder as it is now, where the script runs: `open(" in p
               for p in problems), problems


@pytest.mark.parametrize(("body", "files", "said"), [
    ("cfg = yaml.safe_load(open('gone.yaml'))\nmodel = Net(cfg['w'])\n", {},
     "raises FileNotFoundError: no file `gone.yaml` in the script's folder"),
    ("cfg = yaml.safe_load(open('../outside.yaml'))\nmodel = Net(cfg['w'])\n", {},
     "reads `../outside.yaml`, outside the script's folder, which the analyser does not read"),
    ("cfg = json.load(open('bad.json'))\nmodel = Net(cfg['w'])\n", {"bad.json": '{"w": 4,}'},
     "raises JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"),
    ("cfg = yaml.safe_load(open('bad.yaml'))\nmodel = Net(cfg['w'])\n", {"bad.yaml": "w: [4\n"},
     "raises YAMLError: while parsing a flow sequence"),
])
def test_a_config_file_the_analysis_cannot_read_is_said(tmp_path, body, files, said) -> None:
    (tmp_path.parent / "outside.yaml").write_text("w: 4\n")
    counts, problems = run(tmp_path, body, files)
    assert any(said in p for p in problems), problems


def test_a_file_the_script_writes_is_never_opened(tmp_path) -> None:
    # (a statement the analysis cannot run is passed over, as before: the model after it counts)
    counts, _ = run(tmp_path, "with open('out.txt', 'w') as f:\n    f.write('x')\nmodel = Net(4)\n", {})
    assert counts == {"model": net(4, 1)}
    assert not (tmp_path / "out.txt").exists()
    counts, _ = run(tmp_path, "def main():\n    with open('out.txt', 'a') as f:\n        f.write('x')\n"
                              "    model = Net(4)\n\n\nif __name__ == '__main__':\n    main()\n", {})
    assert counts == {"model in main()": net(4, 1)}
    assert not (tmp_path / "out.txt").exists()
