"""Parity: what torch refuses to build, the analyser refuses too (LC101, with torch's error), and
what torch builds from the same kind of argument it counts as torch does. Each snippet is built
by torch here, so the test proves torch's side: sizes given as floats (``dim * 4.0``: a
TypeError even when whole, except where torch converts one), integer tensors made parameters,
einops' EinMix, builtins the analyser follows (Swin's ``slice`` mask, ``repr``, ``!r``)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

torch = pytest.importorskip("torch")
pytest.importorskip("einops")
pytestmark = pytest.mark.parity

HEADER = "import torch\nimport torch.nn as nn\nfrom einops.layers.torch import EinMix\n\n\n"


def _source(body: str) -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return HEADER + f"class Net(nn.Module):\n    def __init__(self, dim=8):\n        super().__init__()\n{lines}"


def _torch(source: str, tmp_path) -> int | Exception:
    path = tmp_path / "net.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("torch_checks_net", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        with torch.device("meta"):
            net = module.Net()
        return sum(p.numel() for p in net.parameters())
    except Exception as exc:  # noqa: BLE001 - what torch raises is the answer
        return exc
    finally:
        del sys.modules[spec.name]


@pytest.mark.parametrize(("body", "error"), [
    ("self.fc = nn.Linear(dim, dim * 4.0)", "TypeError"),  # mlp_ratio without int()
    ("self.fc = nn.Linear(dim / 2, dim)", "TypeError"),
    ("self.conv = nn.Conv2d(dim, dim / 2, 3)", "TypeError"),
    ("self.conv = nn.Conv2d(dim, dim, 3.0)", "TypeError"),
    ("self.conv = nn.ConvTranspose1d(dim, dim, (2, 2.0)[1])", "TypeError"),
    ("self.emb = nn.Embedding(10, dim / 2)", "TypeError"),
    ("self.norm = nn.BatchNorm2d(dim / 2)", "TypeError"),
    ("self.norm = nn.LayerNorm(dim / 2)", "TypeError"),
    ("self.norm = nn.InstanceNorm1d(dim / 2, affine=True)", "TypeError"),
    ("self.norm = nn.InstanceNorm1d(dim / 2, track_running_stats=True)", "TypeError"),
    ("self.rnn = nn.LSTM(4, dim / 2)", "TypeError"),
    ("self.rnn = nn.GRU(4, 4, num_layers=2.0)", "TypeError"),
    ("self.rnn = nn.LSTM(4, dim, proj_size=2.0)", "TypeError"),
    ("self.layer = nn.TransformerEncoderLayer(dim * 1.0, 2)", "TypeError"),
    ("self.p = nn.Parameter(torch.zeros(dim / 2))", "TypeError"),
    ("self.p = nn.Parameter(torch.randn(2, dim / 4))", "TypeError"),
    ("self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(dim / 2)])", "TypeError"),
    ("self.p = nn.Parameter(torch.arange(dim))", "RuntimeError"),  # integer tensors have no gradient
    ("self.p = nn.Parameter(torch.tensor([1, 2, 3]))", "RuntimeError"),
    ("self.p = nn.Parameter(torch.zeros(dim, dtype=torch.long))", "RuntimeError"),
    ("self.mix = EinMix('b t c -> b t c2', weight_shape='c c2', c=dim)", "EinopsError"),
    ("self.mix = EinMix('b (h w) c -> b c', weight_shape='c', c=dim)", "EinopsError"),
])
def test_what_torch_refuses_is_refused_with_its_error(body, error, tmp_path):
    source = _source(body)
    built = _torch(source, tmp_path)
    assert isinstance(built, Exception) and error in type(built).__name__, built  # torch's side
    report = analyze_text(source, "net.py")
    assert not report.models
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    assert error in problem.message, problem.message


@pytest.mark.parametrize("body", [
    "self.norm = nn.GroupNorm(2.0, dim)",  # torch takes a float where it only divides by it
    "self.attn = nn.MultiheadAttention(dim, 2.0)",
    "self.layer = nn.TransformerEncoderLayer(dim, 2.0, 16)",
    "self.norm = nn.InstanceNorm1d(dim / 2)",  # no tensor of that size is made
    "self.rnn = nn.LSTM(4, dim, proj_size=0.0)",
    "self.conv = nn.Conv2d(dim, dim, 3, stride=2.0, padding=1.0, dilation=1.0)",
    "self.p = nn.Parameter(torch.arange(dim).float())",
    "self.p = nn.Parameter(torch.arange(dim), requires_grad=False)",
    "self.p = nn.Parameter(torch.arange(0.0, dim))",  # a float range: a float tensor
    "self.mix = EinMix('b t c -> b hid c', weight_shape='t hid', bias_shape='hid', t=4, hid=dim)",
    "self.mix = EinMix('b (h w) c -> b (h w) c2', 'c c2', 'c2', c=dim, c2=3, h=2)",
    "self.mix = EinMix('... t (h d) -> ... t h d2', weight_shape='h d d2', bias_shape='h d2', h=2, d=4, d2=5)",
    # Swin's shifted-window mask names its regions with slice()
    "mask = torch.zeros((1, dim, dim, 1))\ncnt = 0\nfor h in (slice(0, -4), slice(-4, -2), slice(-2, None)):\n"
    "    for w in (slice(0, -4), slice(-4, -2), slice(-2, None)):\n        mask[:, h, w, :] = cnt\n        cnt += 1\n"
    "self.proj = nn.Linear(cnt, dim)",
    "names = [f'{x!r}' for x in ('a', 1)] + [repr((1, 'b')), ascii('é'), f\"{'é'!a}\"]\n"
    "self.heads = nn.ModuleList([nn.Linear(len(n), 2) for n in names])",
])
def test_what_torch_builds_from_the_same_arguments_is_counted_as_torch_counts(body, tmp_path):
    source = _source(body)
    built = _torch(source, tmp_path)
    assert isinstance(built, int), built
    report = analyze_text(source, "net.py")
    assert [m.tree.total for m in report.models] == [built], [p.message for p in report.problems]


BEFORE_INIT = {  # class bodies: what torch says when a module is set before nn.Module.__init__ has run
    "a submodule first": ("    def __init__(self, dim=8):\n        self.fc = nn.Linear(dim, dim)\n"
                          "        super().__init__()\n", "AttributeError"),
    "no super().__init__()": ("    def __init__(self, dim=8):\n        self.fc = nn.Linear(dim, dim)\n", "AttributeError"),
    "a parameter first": ("    def __init__(self, dim=8):\n        self.w = nn.Parameter(torch.zeros(dim))\n"
                          "        nn.Module.__init__(self)\n", "AttributeError"),
    "a buffer first": ("    def __init__(self, dim=8):\n        self.register_buffer('b', torch.zeros(dim))\n"
                       "        super().__init__()\n        self.fc = nn.Linear(dim, dim)\n", "AttributeError"),
    "plain values first": ("    def __init__(self, dim=8):\n        self.dim = dim\n        self.widths = [dim] * 2\n"
                           "        super(Net, self).__init__()\n        self.fc = nn.Linear(self.dim, 2)\n", None),
    "through a mixin": ("    def __init__(self, dim=8):\n        super().__init__()\n        self.fc = nn.Linear(dim, dim)\n",
                        None),
}


@pytest.mark.parametrize("case", sorted(BEFORE_INIT))
def test_a_module_set_before_nn_module_init_is_refused_as_torch_refuses_it(case, tmp_path):
    body, error = BEFORE_INIT[case]
    bases = "Base, nn.Module" if case == "through a mixin" else "nn.Module"
    mixin = "class Base:\n    def __init__(self):\n        super().__init__()\n\n\n" if case == "through a mixin" else ""
    source = HEADER + mixin + f"class Net({bases}):\n" + body
    built = _torch(source, tmp_path)
    report = analyze_text(source, "net.py")
    if error is None:
        assert isinstance(built, int), built
        assert [m.tree.total for m in report.models] == [built]
    else:
        assert isinstance(built, Exception) and type(built).__name__ == error, built
        assert not report.models
        assert any(error in p.message and "before Module.__init__()" in p.message for p in report.problems)


def _release(numbers: list[int]) -> tuple[int, ...]:
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers = numbers[:-1]
    return tuple(numbers)


@st.composite
def versions(draw):
    """A version to compare torch's with: 1 to 3 numbers around torch's (2.13), now and then a
    pre-release, post, dev or local part, or a tuple; never torch's own release (there only the
    local part decides: `+cpu` here, none in another install)."""
    numbers = draw(st.lists(st.integers(0, 15), min_size=1, max_size=3).filter(lambda n: _release(n) != (2, 13)))
    if draw(st.integers(0, 4)) == 0:
        return tuple(numbers)
    text = ".".join(map(str, numbers))
    return text + draw(st.sampled_from(["", "", "", "a0", "rc1", ".post1", ".dev0", "+cu121"]))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(versions(), st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
def test_torch_version_compares_as_torch_compares_it(other, op):
    # Informer's `if torch.__version__ >= "1.5.0"`; FlexAttention's `>= "2.5"` (as text "2.13" < "2.5")
    real = eval(f"torch.__version__ {op} other", {"torch": torch, "other": other})  # noqa: S307 - the test's own
    source = (HEADER + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              f"        self.fc = nn.Linear(4, 8) if torch.__version__ {op} {other!r} else nn.Linear(4, 4)\n")
    report = analyze_text(source, "net.py")
    assert [m.tree.total for m in report.models] == [40 if real else 20], [p.message for p in report.problems]
