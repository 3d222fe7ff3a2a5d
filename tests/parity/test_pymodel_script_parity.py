"""Parity for models a script builds in its own module-level statements (``model =
nn.Sequential(...)``), named by their variables: random scripts of layers, containers holding
earlier variables (shared modules count once in each), aliases, frozen parts, tied weights and a
class of the script, each variable's count against torch running the same script on the meta
device. A variable that holds no parameters (``criterion = nn.CrossEntropyLoss()``) is no model."""

from __future__ import annotations

import ast

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


def _torch_counts(text: str) -> dict[str, tuple[int, int]]:
    import torch

    namespace: dict = {}
    with torch.device("meta"):
        exec(compile(text, "script.py", "exec", dont_inherit=True), namespace)  # noqa: S102 - the test's own script
    assigned = {t.id for s in ast.parse(text).body if isinstance(s, ast.Assign) for t in s.targets
                if isinstance(t, ast.Name)}
    out = {}
    for name in assigned:
        value = namespace[name]
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
