"""Parity for models a script builds in its own module-level statements (``model =
nn.Sequential(...)``), named by their variables: random scripts of layers, containers holding
earlier variables (shared modules count once in each), aliases, frozen parts, tied weights and a
class of the script, each variable's count against torch running the same script on the meta
device. A variable that holds no parameters (``criterion = nn.CrossEntropyLoss()``) is no model."""

from __future__ import annotations

import ast
import pathlib
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.parity

HEADER = '''import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim=4, hidden=None):
        super().__init__()
        self.up = nn.Linear(dim, hidden or 2 * dim)
        self.down = nn.Linear(hidden or 2 * dim, dim, bias=False)
        self.norm = nn.LayerNorm(dim)

'''


@st.composite
def scripts(draw) -> str:
    lines: list[str] = []
    modules: list[str] = []  # variables holding a module
    for i in range(draw(st.integers(1, 7))):
        name = f"m{i}"
        kind = draw(st.sampled_from(["linear", "embedding", "block", "sequential", "list", "alias", "freeze", "tie",
                                     "loss", "lstm", "conv"]))
        a, b = draw(st.integers(1, 12)), draw(st.integers(1, 12))
        if kind == "linear":
            lines.append(f"{name} = nn.Linear({a}, {b}, bias={draw(st.booleans())})")
        elif kind == "embedding":
            lines.append(f"{name} = nn.Embedding({a}, {b})")
        elif kind == "block":
            lines.append(f"{name} = Block({a}{', hidden=' + str(b) if draw(st.booleans()) else ''})")
        elif kind == "lstm":
            lines.append(f"{name} = nn.LSTM({a}, {b}, num_layers={draw(st.integers(1, 2))}, "
                         f"bidirectional={draw(st.booleans())})")
        elif kind == "conv":
            lines.append(f"{name} = nn.Conv2d({a}, {b}, {draw(st.integers(1, 3))}, bias={draw(st.booleans())})")
        elif kind == "loss":
            lines.append(f"{name} = nn.CrossEntropyLoss()")
        elif kind == "sequential" and modules:
            parts = draw(st.lists(st.sampled_from(modules), min_size=1, max_size=3))
            lines.append(f"{name} = nn.Sequential({', '.join(parts)}, nn.ReLU(), nn.Linear({a}, {b}))")
        elif kind == "list":
            lines.append(f"{name} = nn.ModuleList([nn.Linear({a}, {b}) for _ in range({draw(st.integers(0, 3))})])")
        elif kind == "alias" and modules:
            lines.append(f"{name} = {draw(st.sampled_from(modules))}")
        elif kind == "freeze" and modules:
            lines.append(f"{draw(st.sampled_from(modules))}.requires_grad_(False)")
            continue
        elif kind == "tie" and len(modules) > 1:
            source, target = draw(st.sampled_from(modules)), draw(st.sampled_from(modules))
            lines.append(f"if hasattr({target}, 'weight') and hasattr({source}, 'weight'):\n"
                         f"    {target}.weight = {source}.weight")
            continue
        else:
            lines.append(f"{name} = nn.Linear({a}, {b})")
        modules.append(name)
    if modules and draw(st.booleans()):
        last = draw(st.sampled_from(modules))
        lines.append(f"{last} = {last}.eval()")  # rebinding a name to the same module
    return HEADER + "\n".join(lines) + "\n"


def _one_name_each(values: dict, text: str, function: str | None) -> dict:
    """``values`` with one name per object: several names of one module (`m5 = m0`) are one model,
    which the analyser counts under the name assigned first (of names first assigned on one line,
    the one whose last assignment comes first)."""
    tree = ast.parse(text)
    body = next((s.body for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == function), None) \
        if function else tree.body
    last: dict[str, tuple[int, int]] = {}
    first: dict[str, int] = {}
    todo = list(body or ())
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            last[node.id] = max(last.get(node.id, (0, 0)), (node.lineno, node.col_offset))
            first[node.id] = min(first.get(node.id, 1 << 30), node.lineno)
        todo.extend(ast.iter_child_nodes(node))
    seen: set[int] = set()
    out = {}
    for name in sorted(values, key=lambda n: (first.get(n, 1 << 30), last.get(n, (1 << 30, 0)))):
        if id(values[name]) not in seen:
            seen.add(id(values[name]))
            out[name] = values[name]
    return out


def _torch_counts(text: str) -> dict[str, tuple[int, int]]:
    import torch

    namespace: dict = {}
    with torch.device("meta"):
        exec(compile(text, "script.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own script
    assigned = {t.id for s in ast.parse(text).body if isinstance(s, ast.Assign) for t in s.targets
                if isinstance(t, ast.Name)}
    out = {}
    for name, value in _one_name_each({n: namespace[n] for n in assigned}, text, None).items():
        if isinstance(value, torch.nn.Module):
            params = list(value.parameters())
            total = sum(p.numel() for p in params)
            if total:
                out[name] = (total, sum(p.numel() for p in params if p.requires_grad))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_a_scripts_module_level_models_count_as_torch_builds_them(text) -> None:
    from lsp_count.core.analyze import analyze_text

    want = _torch_counts(text)
    report = analyze_text(text, "script.py")
    got = {m.name: (m.tree.total, m.tree.trainable) for m in report.models if m.name != "Block"}
    assert got == want, (text, [p.message for p in report.problems])
    assert not [p for p in report.problems if p.severity != "info"], text


def test_a_script_without_a_class_is_a_model_file_when_it_builds_one() -> None:
    from lsp_count.core.analyze import analyze_text

    text = '''import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
'''
    report = analyze_text(text, "train.py")
    assert [(m.name, m.tree.total) for m in report.models] == [("model", 10 * 64 + 64 + 64 * 2 + 2)]
    assert report.models[0].span.start.line == 3 and report.models[0].span.start.column == 0
    # A file that builds nothing at module level (no torch import, or no call assigned) is not one.
    for other in ("import os\nx = os.getcwd()\n", "import torch\nSIZE = 4\n"):
        assert analyze_text(other, "util.py").recognized is False


# --- a script's entry point: `def main()` called from `if __name__ == "__main__":`, and the block itself ---

# What a training script does after building its models, which the analysis cannot or need not follow:
# the analysis skips them and keeps the models built before (torch runs them: the test's own script).
AFTERWARDS = [
    "optimizer = torch.optim.AdamW([p for p in {m}.parameters() if p.requires_grad] or [torch.zeros(1)], lr=1e-3)",
    "for step in range(20000):\n    lr = 1e-3 * min(1.0, step / 2000)",
    "state = {{k: v.shape for k, v in {m}.state_dict().items()}}",
]


def _indented(lines: str, by: str = "    ") -> str:
    return "".join(by + line + "\n" if line.strip() else "\n" for line in lines.splitlines())


def _entry_torch_counts(text: str, function: str | None, device: str = "meta") -> dict[str, tuple[int, int]]:
    """Each module variable the script's entry point leaves (``function``'s locals as it returns, else
    the module's names the block assigned), counted by torch running the script as ``__main__``."""
    import sys

    import torch

    namespace: dict = {"__name__": "__main__"}
    frames: dict = {}

    def profile(frame, event, arg):  # the followed function's locals, as it returns
        if event == "return" and frame.f_code.co_name == function and frame.f_code.co_filename == "script.py":
            frames.update(frame.f_locals)

    sys.setprofile(profile if function else None)
    try:
        with torch.device(device):
            exec(compile(text, "script.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own script
    finally:
        sys.setprofile(None)
    values = frames if function else namespace
    out = {}
    for name, value in _one_name_each(values, text, function).items():
        if isinstance(value, torch.nn.Module) and not name.startswith("__"):
            params = list(value.parameters())
            total = sum(p.numel() for p in params)
            if total:
                out[f"{name} in {function}()" if function else name] = (
                    total, sum(p.numel() for p in params if p.requires_grad))
    return out


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(scripts(), st.sampled_from(["main", "block", "sys.exit"]), st.lists(st.sampled_from(AFTERWARDS), max_size=2))
def test_a_scripts_entry_point_models_count_as_torch_builds_them(text, style, afterwards) -> None:
    # The same random statements as above, as the body of `main()` (called as `main()` or
    # `sys.exit(main())`) or of the `__main__` block itself, then what a script does next.
    from lsp_count.core.analyze import analyze_text

    header, statements = text[:len(HEADER)], text[len(HEADER):]
    first = next((line.split(" = ")[0] for line in statements.splitlines() if " = " in line and line[0] != " "), None)
    after = "".join(a.format(m=first) + "\n" for a in afterwards if first is not None and "{m}" in a or "{m}" not in a)
    body = statements + after
    if style == "block":
        script = header + "\nif __name__ == \"__main__\":\n" + _indented(body)
        function = None
    else:
        call = "main()" if style == "main" else "sys.exit(main())"
        script = header + "import sys\n\n\ndef main():\n" + _indented(body) + \
            f"\n\nif __name__ == \"__main__\":\n    {call}\n"
        function = "main"
    try:
        want = _entry_torch_counts(script, function)
    except SystemExit:  # sys.exit(main()) of main's None: exit status 0
        want = _entry_torch_counts(script.replace("sys.exit(main())", "main()"), function)
    report = analyze_text(script, "script.py")
    got = {m.name: (m.tree.total, m.tree.trainable) for m in report.models if m.name != "Block"}
    assert got == want, (script, [p.message for p in report.problems])
    assert not [p for p in report.problems if p.severity != "info"], script


SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "scripts"
CORPUS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "pymodels"


def test_a_training_scripts_main_counts_what_torch_builds(tmp_path) -> None:
    # argparse's defaults, the project's model class, a frozen part, torch.compile and a linear
    # probe, then the optimizer and the learning-rate loop: main()'s models as torch leaves them.
    import sys

    from lsp_count.core.analyze import analyze_text

    shutil.copy(CORPUS / "nanogpt.py", tmp_path / "nanogpt.py")
    script = tmp_path / "train_gpt.py"
    shutil.copy(SCRIPTS / "train_gpt.py", script)
    sys.path.insert(0, str(tmp_path))
    try:
        want = _entry_torch_counts(script.read_text(), "main")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("nanogpt", None)
    assert set(want) == {"model in main()", "probe in main()"}
    total, trainable = want["model in main()"]
    assert total - trainable == 256 * 384  # the frozen position embedding
    report = analyze_text(script.read_text(), str(script))
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want
    assert not [p for p in report.problems if p.severity != "info"]


@pytest.mark.parametrize("command_line", [
    ("--n_layer", "2", "--n_head", "4", "--n_embd", "128"),
    ("--n_layer=3", "--block_size", "64"),
    (),
])
def test_a_training_script_counts_what_torch_builds_with_its_command_line(tmp_path, command_line) -> None:
    # The same script reading its command line (`parse_args()`), run by torch with sys.argv so and
    # analysed with the same --script-args.
    import sys

    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    shutil.copy(CORPUS / "nanogpt.py", tmp_path / "nanogpt.py")
    script = tmp_path / "train_gpt.py"
    script.write_text((SCRIPTS / "train_gpt.py").read_text().replace("parser.parse_args([])", "parser.parse_args()"))
    sys.path.insert(0, str(tmp_path))
    argv = sys.argv
    sys.argv = ["train_gpt.py", *command_line]
    try:
        want = _entry_torch_counts(script.read_text(), "main")
    finally:
        sys.argv = argv
        sys.path.remove(str(tmp_path))
        sys.modules.pop("nanogpt", None)
    report = analyze_text(script.read_text(), str(script), AnalyzeOptions(script_args=command_line))
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want
    (note,) = [p.message for p in report.problems if p.code == "LC106"]
    said = f"`{' '.join(command_line)}`" if command_line else "no arguments"
    assert f"counted with the command line given (--script-args, or the project's `script-args`), {said}" in note


CONFIG_SCRIPT = """import json

import torch.nn as nn
import yaml


class Net(nn.Module):
    def __init__(self, widths, bias=True, norm=False):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b, bias=bias) for a, b in zip(widths, widths[1:])])
        self.norm = nn.LayerNorm(widths[-1]) if norm else nn.Identity()


def main():
    with open({path!r}) as f:
        cfg = {loader}
    model = Net(**cfg["model"])


if __name__ == "__main__":
    main()
"""


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(1, 64), min_size=2, max_size=5), st.booleans(), st.booleans(),
       st.sampled_from(["yaml", "json"]))
def test_a_script_s_config_file_counts_as_torch_builds_it(tmp_path, monkeypatch, widths, bias, norm, kind) -> None:
    # The script reads its model's sizes from its own YAML or JSON file (open(), yaml.safe_load /
    # json.load); torch runs it in its folder.
    import json
    import yaml

    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    config = {"model": {"widths": widths, "bias": bias, "norm": norm}}
    path = f"configs/model.{kind}"
    (tmp_path / "configs").mkdir(exist_ok=True)
    (tmp_path / path).write_text(yaml.safe_dump(config) if kind == "yaml" else json.dumps(config))
    text = CONFIG_SCRIPT.format(path=path, loader="yaml.safe_load(f)" if kind == "yaml" else "json.load(f)")
    script = tmp_path / "train.py"
    script.write_text(text)
    monkeypatch.chdir(tmp_path)
    want = _entry_torch_counts(text, "main")
    report = analyze_text(text, str(script), AnalyzeOptions())
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want, report.problems


def test_a_script_s_model_handed_to_accelerate_counts_as_accelerate_gives_it_back() -> None:
    # accelerate's Accelerator (not read: the analyser's own, shims/accelerate.py) gives the model
    # back from prepare() and unwrap_model(), as the installed accelerate does on one process.
    from lsp_count.core.analyze import analyze_text

    script = HEADER + '''import sys
from accelerate import Accelerator


def main():
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
    model = nn.Sequential(Block(6), nn.Linear(6, 3))
    model[0].norm.requires_grad_(False)
    head = nn.Linear(3, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    head = accelerator.prepare(head)
    base = accelerator.unwrap_model(model)
    accelerator.wait_for_everyone()


if __name__ == "__main__":
    main()
'''
    want = _entry_torch_counts(script, "main", "cpu")  # (accelerate moves the model to its device)
    assert set(want) == {"model in main()", "head in main()"}  # `base` is `model`: one model
    report = analyze_text(script, "script.py")
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models if m.name != "Block"} == want
    assert "the same module is also named `base in main()`" in next(
        m for m in report.models if m.name == "model in main()").tree.notes
    assert not [p for p in report.problems if p.severity != "info"]


def test_a_script_s_model_wrapped_in_distributed_data_parallel_counts_as_torch_wraps_it(tmp_path) -> None:
    # DistributedDataParallel registers the model as `module` and nothing else: built by torch in a
    # one-process gloo group (its own process: the group is global), the same counts as the analysis,
    # which counts the wrapper and the model it wraps once.
    import json
    import subprocess
    import sys

    from lsp_count.core.analyze import analyze_text

    body = '''model = nn.Sequential(Block(6), nn.BatchNorm1d(6))
model[0].up.requires_grad_(False)
model = DDP(model, device_ids=None, find_unused_parameters=True)
inner = model.module
'''
    script = HEADER + "import torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n" \
        "\ndef main():\n    dist.init_process_group('gloo', init_method=INIT, rank=0, world_size=1)\n" + \
        _indented(body) + "\n\nif __name__ == '__main__':\n    main()\n"
    runner = f'''import json, sys
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
from test_pymodel_script_parity import _entry_torch_counts
text = {script!r}.replace("INIT", {repr(repr(f"file://{tmp_path}/group"))})
print(json.dumps(_entry_torch_counts(text, "main", "cpu")))
'''
    done = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    want = {name: tuple(v) for name, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}
    assert set(want) == {"model in main()", "inner in main()"}
    report = analyze_text(script.replace("INIT", "'env://'"), "script.py")
    # The wrapper and the model it wraps hold the same parameters: one model, under the name assigned
    # first, with a note naming the other (as `base = accelerator.unwrap_model(model)`).
    assert want["model in main()"] == want["inner in main()"]
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models if m.name != "Block"} == {
        "model in main()": want["model in main()"]}
    assert "the same module is also named `inner in main()`" in next(
        m for m in report.models if m.name == "model in main()").tree.notes
