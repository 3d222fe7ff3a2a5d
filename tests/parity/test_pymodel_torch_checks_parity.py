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

HEADER = "import copy\nimport numpy as np\nimport torch\nimport torch.nn as nn\nfrom einops.layers.torch import EinMix\n\n\n"


def _source(body: str) -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return HEADER + f"class Net(nn.Module):\n    def __init__(self, dim=8):\n        super().__init__()\n{lines}"


def _imported(source: str, tmp_path):
    """The source, written to a file and imported by Python (torch's side of each comparison)."""
    path = tmp_path / "net.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"torch_checks_{tmp_path.name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def _assert_counted_as_torch_counts(source: str, tmp_path, *names: str):
    """Each named class counted as torch builds it (total and trainable), and no other class counted;
    the report, for what else a test checks."""
    module = _imported(source, tmp_path)
    expected = []
    for name in names:
        with torch.device("meta"):
            params = list(getattr(module, name)().parameters())
        expected.append((name, sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)))
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total, m.tree.trainable) for m in report.models] == expected, \
        [p.message for p in report.problems]
    return report


def _assert_counted_as_fresh_imports_count(source: str, tmp_path, names: tuple[str, ...],
                                           arguments=lambda module: []) -> None:
    """Each named class counted as torch builds it right after its own import of the source (the
    analyser counts each class as from a fresh import: what one class's build changes in globals
    does not reach the next)."""
    expected = []
    for name in names:
        module = _imported(source, tmp_path)
        with torch.device("meta"):
            expected.append((name, sum(p.numel() for p in getattr(module, name)(*arguments(module)).parameters())))
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total) for m in report.models] == expected, [p.message for p in report.problems]


def _torch(source: str, tmp_path) -> tuple[int, int] | Exception:
    """torch's (total, trainable) of `Net`, or what it raises building it."""
    try:
        module = _imported(source, tmp_path)
        with torch.device("meta"):
            params = list(module.Net().parameters())
        return sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)
    except Exception as exc:  # noqa: BLE001 - what torch raises is the answer
        return exc


@pytest.mark.parametrize(("body", "error"), [
    ("self.fc = nn.Linear(dim, dim * 4.0)", "TypeError"),  # mlp_ratio without int()
    ("self.act = nn.Hardtanh(dim, -dim)", "AssertionError"),  # an actor's bounds swapped
    ("self.step = nn.Parameter(torch.tensor(0))", "RuntimeError"),  # an int scalar is int64
    ("self.codes = nn.Parameter(torch.randint(0, 10, (4, 4)))", "RuntimeError"),
    ("self.counts = nn.ParameterList([torch.zeros(dim, dtype=torch.long)])", "RuntimeError"),
    ("self.q = nn.Parameter(torch.empty(dim, dtype=torch.uint8), requires_grad=False)\nself.requires_grad_(True)",
     "RuntimeError"),  # a packed quantized weight unfrozen with the rest
    ("self.q = nn.Parameter(torch.empty(dim, dtype=torch.int8), requires_grad=False)\nself.q.requires_grad = True",
     "RuntimeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.fc.to(torch.int8)", "TypeError"),
    ("import copy\nself.s = nn.Sequential(nn.utils.weight_norm(nn.Linear(dim, dim)))\nself.t = copy.deepcopy(self.s)",
     "RuntimeError"),  # the hook version's weight is no graph leaf (DINO's EMA teacher)
    ("self.c = nn.utils.parametrizations.weight_norm(nn.Conv1d(dim, dim, 3))\n"
     "nn.utils.parametrize.remove_parametrizations(self.c, 'weight', leave_parametrized=False)", "ValueError"),
    ("self.act = nn.Hardtanh(max_value=-2.0)", "AssertionError"),
    ("self.up = nn.Unflatten(1, (dim, dim / 2))", "TypeError"),  # `img_hw / 8`
    ("self.up = nn.Unflatten(1, dim)", "TypeError"),
    ("self.score = nn.Bilinear(0, dim, 1)", "ValueError"),
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
    # the checks of torch's layers' settings
    ("self.conv = nn.Conv2d(dim, dim, 3, padding='same', stride=2)", "ValueError"),
    ("self.conv = nn.Conv1d(dim, dim, 3, padding='full')", "ValueError"),
    ("self.conv = nn.Conv2d(dim, dim, 3, padding_mode='mirror')", "ValueError"),
    ("self.conv = nn.ConvTranspose1d(dim, dim, 3, padding_mode='circular')", "ValueError"),
    ("self.rnn = nn.RNN(4, dim, nonlinearity='gelu')", "ValueError"),
    ("self.rnn = nn.GRU(4, dim, dropout=1.5)", "ValueError"),
    ("self.rnn = nn.LSTM(4, dim, dropout=True)", "ValueError"),
    ("self.rnn = nn.LSTM(4, dim, proj_size=dim)", "ValueError"),
    ("self.rnn = nn.GRU(4, dim, num_layers=0)", "ValueError"),
    ("self.rnn = nn.LSTM(4, dim - dim)", "ValueError"),
    ("self.drop = nn.Dropout(1.5)\nself.fc = nn.Linear(dim, dim)", "ValueError"),
    ("self.drop = nn.Dropout2d(p=-0.1)\nself.fc = nn.Linear(dim, dim)", "ValueError"),
    ("self.emb = nn.Embedding(10, dim, padding_idx=10)", "AssertionError"),
    ("self.emb = nn.EmbeddingBag(10, dim, padding_idx=-11)", "AssertionError"),
    ("self.layer = nn.TransformerEncoderLayer(dim, 2, activation='swish')", "RuntimeError"),
    ("self.layer = nn.TransformerDecoderLayer(dim, 2, dropout=2.0)", "ValueError"),
    # what nn.Module's __setattr__ / register_* refuse
    ("self.emb = nn.Embedding(10, dim)\nself.proj = nn.Linear(10, dim)\nself.proj.weight = self.emb.weight.T",
     "TypeError"),  # a tied weight must be the Parameter itself
    ("self.fc = nn.Linear(dim, dim)\nself.drop = nn.Dropout(0.1)\nself.drop = lambda x: x", "TypeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.fc = 3", "TypeError"),
    ("self.w = nn.Parameter(torch.zeros(dim))\nself.w = torch.ones(dim)", "TypeError"),
    ("self.freqs = None\nself.register_buffer('freqs', torch.zeros(dim))\nself.fc = nn.Linear(dim, dim)", "KeyError"),
    ("self.w = 3\nself.register_parameter('w', nn.Parameter(torch.zeros(dim)))", "KeyError"),
    ("self.register_parameter('w', torch.zeros(dim))", "TypeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.fc.weight.requires_grad = 0", "RuntimeError"),
    ("self.fcs = nn.ModuleList(nn.Linear(a, b) for a, b in zip((dim, 4), (4,), strict=True))", "ValueError"),
    ("self.fc = nn.Linear(dim, 4, dtype=torch.int64)", "RuntimeError"),
    # the arguments of torch's classes without parameters (mmcv's `act_cfg=dict(type='GELU', inplace=True)`)
    ("self.fc = nn.Linear(dim, dim)\nself.act = nn.GELU(inplace=True)", "TypeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.drop = nn.Dropout(prob=0.1)", "TypeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.drop = nn.Dropout(0.5, True, 1)", "TypeError"),
    ("self.fc = nn.Linear(dim, dim)\nself.up = nn.PixelShuffle()", "TypeError"),
    ("self.emb = nn.Embedding(10, dim, dtype=int)", "RuntimeError"),
    # an attribute the class never set (a freeze with a typo: the class set `self.enc`)
    ("self.enc = nn.Linear(dim, dim)\nself.encoder.requires_grad_(False)", "AttributeError"),
    # torch's ModuleList.insert reads `_modules['-1']` for any negative index; Sequential's checks the range
    ("self.layers = nn.ModuleList([nn.Linear(dim, dim)] * 2)\nself.layers.insert(-1, nn.Linear(dim, 2))", "KeyError"),
    ("self.seq = nn.Sequential(nn.Linear(dim, dim))\nself.seq.insert(2, nn.Linear(dim, 2))", "IndexError"),
    # a Sequential's slice keeps its names ('1'): inserting at 0 moves entries up by key, reading '0'
    ("self.seq = nn.Sequential(nn.Linear(dim, 5), nn.Linear(5, 1))[1:]\nself.seq.insert(0, nn.Linear(dim, 2))",
     "KeyError"),
    # a ParameterList has no __delitem__ (a ModuleList and a Sequential have)
    ("self.pl = nn.ParameterList([nn.Parameter(torch.zeros(dim)), nn.Parameter(torch.zeros(3))])\ndel self.pl[0]",
     "AttributeError"),
    # a loop that adds to the dict (or set) it walks: Python's RuntimeError at the next item
    ("widths = {'a': 2, 'b': 3}\nfor k in widths:\n    widths[k + 'x'] = 1\nself.fc = nn.Linear(dim, 2)", "RuntimeError"),
    ("seen = {1}\nfor k in seen:\n    seen.add(k + 1)\nself.fc = nn.Linear(dim, 2)", "RuntimeError"),
    # a keyword given twice through `**`, or a `**` key that is not a string: Python's TypeError
    ("cfg = {'in_features': dim}\nself.fc = nn.Linear(**cfg, in_features=dim, out_features=2)", "TypeError"),
    ("self.fc = nn.Linear(**{'out_features': 2}, **{'in_features': dim, 'out_features': 3})", "TypeError"),
    ("self.fc = nn.Linear(dim, **{1: 2})", "TypeError"),
    # iterating a module, or an object whose class defines no way to iterate (its attribute names were taken)
    ("self.fc = nn.Linear(len(list(nn.ReLU())), 2)", "TypeError"),
    ("class Plain:\n    a = 1\nself.fc = nn.Linear(len(tuple(Plain())) + 1, 2)", "TypeError"),
    # a ModuleDict's values() is a dict view, which has no indexing and no `+`
    ("self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nself.first = self.d.values()[0]", "TypeError"),
    ("self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nself.seq = nn.Sequential(*(self.d.values() + [nn.ReLU()]))",
     "TypeError"),
    # a container's special methods called by name do what their syntax does, errors included
    ("self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nfor k in self.d.__iter__():\n    self.d['b'] = nn.Linear(4, 4)",
     "RuntimeError"),
    ("self.blocks = nn.ModuleList([nn.Linear(dim, 4)])\nself.x = self.blocks.__getitem__()", "TypeError"),
    ("self.blocks = nn.ModuleList([nn.Linear(dim, 4)])\nself.blocks.__setitem__(5, nn.Linear(4, 4))", "IndexError"),
    # a ModuleList finds an index by its key `str(i)`: a module set on it by name counts in its length only
    ("self.l = nn.ModuleList([nn.Linear(dim, 4), nn.Linear(4, 5)])\nself.l.extra = nn.Linear(1, 1)\n"
     "self.x = nn.Linear(self.l[-1].out_features, 2)", "KeyError"),
    ("self.l = nn.ModuleList([nn.Linear(dim, 4), nn.Linear(4, 5)])\nself.l.extra = nn.Linear(1, 1)\nself.l.pop(-1)",
     "KeyError"),
    ("self.l = nn.ModuleList([nn.Linear(dim, 4), nn.Linear(4, 5)])\nself.l.extra = nn.Linear(1, 1)\ndel self.l[2]",
     "AttributeError"),
    # torch never resizes a parameter that requires grad, in grad mode or not
    ("self.fc = nn.Linear(dim, 4)\nself.fc.weight.resize_(3, 3)", "RuntimeError"),
    ("self.fc = nn.Linear(dim, 4)\nwith torch.no_grad():\n    self.fc.bias.resize_as_(torch.zeros(9))", "RuntimeError"),
    # Sequential's `*=` reads its modules by the keys '0', '1', ...: a Sequential of named ones has none
    ("from collections import OrderedDict\nself.s = nn.Sequential(OrderedDict(a=nn.Linear(dim, 4), b=nn.Linear(4, 5)))\n"
     "self.s *= 2", "KeyError"),
    # a parameter or submodule set to None keeps its name in torch's dict: it takes only its kind again
    ("self.fc = nn.Linear(dim, 4)\nself.fc = None\nself.fc = 5", "TypeError"),
    ("self.w = nn.Parameter(torch.zeros(dim))\nself.w = None\nself.w = torch.zeros(3)", "TypeError"),
    ("self.w = nn.Parameter(torch.zeros(dim))\nself.w = None\nself.w = nn.Linear(2, 2)", "TypeError"),
    ("self.register_parameter('w', None)\nself.w = torch.zeros(3)", "TypeError"),
    ("self.add_module('m', None)\nself.m = 3", "TypeError"),
    # torch's layers register a parameter they do not make as None (a Linear's bias with bias=False)
    ("self.fc = nn.Linear(dim, 4, bias=False)\nself.fc.bias = torch.zeros(4)", "TypeError"),
    ("self.n = nn.InstanceNorm1d(dim)\nself.n.weight = torch.ones(dim)", "TypeError"),
    ("self.g = nn.GroupNorm(2, dim, affine=False)\nself.g.weight = 3", "TypeError"),
    ("self.n = nn.LayerNorm(dim, bias=False)\nself.n.bias = nn.Linear(2, 2)", "TypeError"),
    # a dict view has no deepcopy (pickling refuses it), held by a submodule too
    ("self.b = nn.Module()\nself.b.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nself.b.items = self.b.d.items()\n"
     "self.c = copy.deepcopy(self.b)", "TypeError"),
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
    "self.conv = nn.Conv2d(dim, dim, 3, padding='same', stride=(1, 1), padding_mode='reflect')",
    "self.conv = nn.ConvTranspose2d(dim, dim, 3, padding='same')",  # torch takes it (and pads nothing)
    "self.conv = nn.Conv1d(dim, dim, 3, padding='valid', stride=2)",
    "self.rnn = nn.LSTM(4, dim, 2, dropout=0.5, proj_size=dim - 1, bidirectional=True)",
    "self.rnn = nn.RNN(4, dim, nonlinearity='relu', dropout=1)",
    "self.emb = nn.Embedding(10, dim, padding_idx=-10)",
    "self.drop = nn.Dropout(p=1.0)\nself.fc = nn.Linear(dim, dim)",
    "self.layer = nn.TransformerEncoderLayer(dim, 2, 16, activation='gelu')",
    # from torch's own settings checks, fuzzed: a module as the activation is registered; `_freeze` is truthy
    "self.enc = nn.TransformerEncoderLayer(dim, 2, 16, activation=nn.PReLU())\n"
    "self.stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 2, 16, activation=nn.PReLU()), 2)\n"
    "self.dec = nn.TransformerDecoderLayer(dim, 2, 16, activation=nn.Linear(16, 16))",
    "self.e = nn.Embedding(5, dim, _freeze=1)\nself.f = nn.Embedding(5, dim, _freeze=0)",
    "self.fc = nn.Linear(dim, dim)\nself.ok = nn.Sequential(nn.GELU(approximate='tanh'), nn.ReLU(True), "
    "nn.Dropout(0.1, inplace=False), nn.Softmax(dim=-1), nn.Upsample(scale_factor=2), nn.PixelShuffle(2), "
    "nn.Identity(54, x=1), nn.Flatten(1, -1), nn.LeakyReLU(0.2, True), nn.Hardtanh(-1, 1))",
    # a torch.nn class's attributes: mmcv's infer_abbr (`hasattr(nn.BatchNorm2d, '_abbr_')` is False)
    "abbr = 'x' if hasattr(nn.BatchNorm2d, '_abbr_') else 'bn'\nself.add_module(abbr + '1', nn.BatchNorm2d(dim))\n"
    "self.fc = nn.Linear(dim, 4 if getattr(nn.Linear, 'in_features', None) is None else 8)\n"
    "self.g = nn.Linear(dim, 2 if hasattr(nn.Linear, 'reset_parameters') and hasattr(nn.SyncBatchNorm, "
    "'convert_sync_batchnorm') else 3)",
    "self.a = nn.BatchNorm2d(dim, bias=False)\nself.b = nn.GroupNorm(2, dim, bias=False)\n"
    "self.c = nn.InstanceNorm1d(dim, affine=True, bias=False)\nself.d = nn.BatchNorm1d(dim, affine=False, bias=True)",
    "self.fc = nn.Linear(dim, dim)\nself.fc = None\nself.fc = nn.Linear(dim, 2)",  # None, then a module: taken
    "self.w = nn.Parameter(torch.zeros(dim))\nself.w = nn.Parameter(torch.zeros(2, dim))",
    "self.register_buffer('freqs', None)\nself.register_buffer('freqs', torch.zeros(dim))\nself.fc = nn.Linear(dim, 2)",
    "self.emb = nn.Embedding(10, dim)\nself.head = nn.Linear(dim, 10)\nself.head.weight = self.emb.weight",
    "self.fc = nn.Linear(dim, dim)\nself.fc.weight.requires_grad = False",
    # iterators: a generator expression is consumed once; `list.extend(range(n))`
    "g = (d * 2 for d in (3, 4, 5))\nfirst = [nn.Linear(d, 1) for d in g]\nsecond = [nn.Linear(d, 1) for d in g]\n"
    "self.layers = nn.ModuleList(first + second)",
    "g = (d for d in (dim, 2 * dim))\nself.fc = nn.Linear(next(g), next(g))",
    "ids = []\nids.extend(range(dim))\nself.fc = nn.Linear(len(ids), 2)",
    "self.fcs = nn.ModuleList(nn.Linear(a, b) for a, b in zip((dim, 4), (4, 2), strict=True))",
    # a parameter converted to what it is already is the parameter itself (registered), else a copy (not)
    "self.fc = nn.Linear(dim, dim)\nself.scale = nn.Parameter(torch.ones(dim)).type_as(self.fc.weight)\n"
    "self.shift = nn.Parameter(torch.zeros(dim)).to(self.fc.weight)\nself.gain = nn.Parameter(torch.ones(dim)).type(torch.float32)\n"
    "self.wide = nn.Parameter(torch.ones(dim)).type(torch.float64)\n"
    "self.other = nn.Parameter(torch.ones(dim)).type_as(torch.zeros(2, dtype=torch.float16))",
    # an optional import in a function the `try` calls fails as one in the `try` does (xformers: not here either)
    "def fused(d):\n    import xformers.ops\n    return nn.Linear(d, 3 * d)\n\n"
    "try:\n    self.qkv = fused(dim)\nexcept ImportError:\n    self.qkv = nn.Linear(dim, 3 * dim, bias=False)",
    # availability checks: torch and the standard library are there; flash_attn is not (here, nor for the count)
    "import importlib.util\nflash = importlib.util.find_spec('flash_attn') is not None\n"
    "self.fc = nn.Linear(dim, 3 * dim, bias=not flash and importlib.util.find_spec('math') is not None)",
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
    # numpy arrays' methods are numpy's (an MAE-style sincos table), not torch's of the same name
    "a = np.arange(24).reshape(2, 3, 4)\nself.fc = nn.Linear(a.repeat(2).shape[0], a.repeat(3, axis=1).shape[1])",
    "a = np.zeros((2, 3, 4))\nself.fc = nn.Linear(a.transpose().shape[0], a.transpose(1, 0, 2).shape[0] + "
    "a.transpose((2, 0, 1)).shape[0])",
    "a = np.arange(6).reshape(2, 3)\nself.fc = nn.Linear(len(a.max(0)), a.sum(axis=1).shape[0] + "
    "a.mean(axis=(0, 1), keepdims=True).shape[1] + a.argmax(axis=0).shape[0])",
    "a = np.arange(12).reshape(3, 4)\nself.fc = nn.Linear(len(a.cumsum()), a.cumsum(axis=1).shape[1] + "
    "len(a.ravel()) + len(a.flatten()))",
    "b = np.zeros((3, 1, 4))\nself.fc = nn.Linear(b.squeeze().shape[1], b.squeeze(1).shape[0] + b.reshape(-1, 2).shape[0])",
    "self.fc = nn.Linear(int(np.array([3, 7, 5]).max()), int(np.array([3, 7, 5]).sum()))",
    "self.fc = nn.Linear(np.array((4, 84)).prod(), 2)",  # cleanrl's width: a 0-d integer array
    "self.act = nn.Hardtanh(-dim, dim)\nself.up = nn.Unflatten(1, (dim, 2))\nself.score = nn.Bilinear(dim, 0, 1)",
    "self.c = nn.utils.parametrizations.weight_norm(nn.Conv1d(dim, dim, 3))\n"
    "nn.utils.parametrize.remove_parametrizations(self.c, 'weight')",  # the weight left as computed
    "import copy\nself.s = nn.utils.parametrizations.weight_norm(nn.Linear(dim, dim))\nself.t = copy.deepcopy(self.s)\n"
    "self.t.requires_grad_(False)",
    "self.t = nn.Parameter(torch.tensor(0.5))\nself.fc = nn.Linear(dim, dim).to(torch.bfloat16)\n"
    "self.q = nn.Parameter(torch.empty(dim, dtype=torch.uint8), requires_grad=False)\nself.fc.requires_grad_(False)",
    "self.seq = nn.Sequential(nn.Linear(dim, 1), nn.Linear(dim, 2))\nself.seq.insert(-1, nn.Linear(dim, 3))\n"
    "self.seq.insert(-3, nn.Linear(dim, 4))\nself.layers = nn.ModuleList([nn.Linear(dim, 5)])\n"
    "self.layers.insert(9, nn.Linear(dim, 6))\nself.head = nn.Linear(self.seq[1].out_features, self.seq[-1].out_features)",
    # a loop that changes values, or walks a copy of the keys
    "widths = {'a': 2, 'b': 3}\nfor k in widths:\n    widths[k] *= 2\nfor k in list(widths):\n    widths[k + 'x'] = 1\n"
    "for k, v in widths.items():\n    widths[k] = v + 1\nself.fc = nn.Linear(dim, sum(widths.values()))",
    # a Sequential's slice keeps its modules' names: an append at `str(len(self))` replaces one
    "self.seq = nn.Sequential(nn.Linear(dim, 5), nn.Linear(5, 1))\nself.seq = self.seq[1:]\n"
    "self.seq.append(nn.Linear(5, 2))",
    "self.seq = nn.Sequential(nn.Linear(dim, 5), nn.Linear(5, 1))\nself.seq = self.seq[1:]\n"
    "self.seq.insert(1, nn.Linear(3, 1))",
    # torch's insert past the end leaves a gap in the numbers ('0', '2'): an append then writes at `str(len)`
    "self.l = nn.ModuleList([nn.Linear(dim, 5)])\nself.l.note = 3\nself.l.insert(2, nn.Linear(5, 1))\n"
    "self.l.append(nn.Linear(5, 2))",
    # a shallow copy shares the container's dict; del deletes from it, then gives the container a new one
    "self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(3)])\nself.c = copy.copy(self.blocks)\n"
    "del self.blocks[0]\nself.blocks.pop(0)",
    # a ModuleDict's views: set-like keys, membership, the entries as they are when read, Python's errors caught
    "self.d = nn.ModuleDict({'a': nn.Linear(dim, 4), 'b': nn.Linear(4, 4)})\nrest = self.d.keys() - {'a'}\n"
    "both = {'a', 'z'} & self.d.keys()\nself.c = nn.Linear(len(rest) + 10 * len(both), 2 if self.d.keys() == {'a', 'b'} else 3)\n"
    "self.e = nn.Linear(2, 5 if self.d['a'] in self.d.values() and 'b' in self.d.keys() else 6)",
    "self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nitems = self.d.items()\nself.d['b'] = nn.Linear(4, 4)\n"
    "for k, m in items:\n    m.weight.requires_grad_(False)\nself.n = nn.Linear(len(items), len(self.d.values()))",
    "self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\ntry:\n    self.x = self.d.values()[0]\nexcept TypeError:\n"
    "    self.x = nn.Linear(3, 3)",
    # a container's special methods called by name
    "self.blocks = nn.ModuleList([nn.Linear(dim, 4)])\nself.blocks.__setitem__(0, nn.Linear(dim, 6))\n"
    "x = self.blocks.__getitem__(0)\nself.y = nn.Linear(x.out_features, self.blocks.__len__())\n"
    "self.blocks.__iadd__([nn.Linear(4, 4)])\nself.z = self.blocks.__add__(nn.ModuleList([nn.Linear(2, 2)]))",
    "self.s = nn.Sequential(nn.Linear(dim, 4))\nself.t = self.s.__mul__(2)\nself.u = self.s.__rmul__(2)\n"
    "self.s.__imul__(2)\nself.s.__delitem__(0)",
    "self.d = nn.ModuleDict({'a': nn.Linear(dim, 4)})\nif self.d.__contains__('a'):\n"
    "    self.d.__setitem__('b', nn.Linear(4, 4))\nself.d.__delitem__('a')",
    "self.pl = nn.ParameterList([nn.Parameter(torch.zeros(dim))])\nself.pl.__iadd__([nn.Parameter(torch.zeros(3))])\n"
    "self.pl.__setitem__(0, nn.Parameter(torch.zeros(5)))",
    # `+=` numbers the new entries from the container's length, not counting its plain attributes
    "self.l = nn.ModuleList([nn.Linear(dim, 4)])\nself.l.note = 3\nself.l += [nn.Linear(4, 4)]\n"
    "self.l.append(nn.Linear(4, 2))",
    "self.s = nn.Sequential(nn.Linear(dim, 4))\nself.s.note = 3\nother = nn.Sequential(nn.Linear(4, 4))\n"
    "other.tag = 'x'\nself.s += other\nself.s.append(nn.Linear(4, 2))",
    "self.pl = nn.ParameterList([nn.Parameter(torch.zeros(dim))])\nself.pl.note = 3\n"
    "self.pl += [nn.Parameter(torch.zeros(3))]\nself.pl.append(nn.Parameter(torch.zeros(2)))",
    "self.l = nn.ModuleList([nn.Linear(dim, 4), nn.Linear(4, 5)])\nself.l.extra = nn.Linear(1, 1)\n"
    "self.l.append(nn.Linear(2, 2))\nself.y = nn.Linear(len(self.l), 3)\nself.l[2] = nn.Linear(3, 3)\n"
    "for i, m in enumerate(self.l):\n    m.requires_grad_(i % 2 == 0)\ndel self.l[0]\nself.z = nn.Linear(len(self.l), 2)",
    # a Sequential's `*` repeats its modules (not its plain attributes); `*=` does it in place
    "self.s = nn.Sequential(nn.Linear(dim, 4), nn.Linear(4, 5))\nself.s.note = 3\nself.m = self.s * 2\n"
    "self.y = nn.Linear(len(self.m), 2)\nt = self.s\nself.s *= 3\nself.z = nn.Linear(len(t), 2)",
    # a ParameterDict's `|`, `|=` and copy(), as torch's
    "self.pd = nn.ParameterDict({'a': nn.Parameter(torch.zeros(dim))})\nq = self.pd\n"
    "self.pd = self.pd | {'b': nn.Parameter(torch.zeros(3))}\nq |= {'c': torch.zeros(5)}\n"
    "self.other = nn.ParameterDict({'z': nn.Parameter(torch.zeros(2))}) | q\n"
    "self.fromdict = nn.ParameterDict({'y': nn.Parameter(torch.zeros(7))} | self.pd)\n"
    "self.copied = self.pd.copy()\nself.copied['w'] = nn.Parameter(torch.zeros(4))\nself.n = nn.Linear(len(self.pd), len(q))",
    # a None kept in torch's dicts: a module or parameter fills it again; a submodule's None is a ModuleList's entry
    "self.fc = nn.Linear(dim, 4)\nself.fc = None\nself.fc = nn.Parameter(torch.zeros(2))\n"
    "self.register_parameter('w', None)\nself.w = nn.Parameter(torch.zeros(3))\nself.add_module('m', None)\n"
    "self.m = nn.Linear(2, 2)\nself.g = nn.Linear(dim, 4)\nself.g = None\ndel self.g\nself.g = 5",
    "self.l = nn.ModuleList([nn.Linear(dim, 4)])\nself.l.extra = nn.Linear(1, 1)\nself.l.extra = None\n"
    "self.l.append(nn.Linear(2, 2))\nself.y = nn.Linear(len(self.l), 3)",
    # ... and a del numbers it with the others (torch's `_modules` renumbered: '0' holds the None)
    "self.l = nn.ModuleList([nn.Linear(dim, 4)])\nself.l.extra = nn.Linear(1, 1)\nself.l.extra = None\n"
    "del self.l[0]\nself.x = nn.Linear(2 if self.l[0] is None else 3, 2)\nself.l.append(nn.Linear(2, 2))\n"
    "self.y = nn.Linear(len(self.l), 3)",
    "self.fc = nn.Linear(dim, 4, bias=False)\nself.fc.bias = nn.Parameter(torch.zeros(4))\n"
    "self.c = nn.Conv2d(dim, 4, 3, bias=False)\nself.c.bias = None\nself.c.bias = nn.Parameter(torch.zeros(4))\n"
    "self.r = nn.RMSNorm(dim, elementwise_affine=False)\nself.r.weight = nn.Parameter(torch.ones(dim))\n"
    "self.b = nn.BatchNorm1d(dim, affine=False)\nself.b.weight = nn.Parameter(torch.ones(dim))",
])
def test_what_torch_builds_from_the_same_arguments_is_counted_as_torch_counts(body, tmp_path):
    source = _source(body)
    built = _torch(source, tmp_path)
    assert isinstance(built, tuple), built
    report = analyze_text(source, "net.py")
    assert [(m.tree.total, m.tree.trainable) for m in report.models] == [built], [p.message for p in report.problems]


def test_a_mixin_before_a_torch_layer_reaches_the_layer(tmp_path):
    source = HEADER + (
        "class Scaled:\n    def __init__(self, *args, **kwargs):\n        super().__init__(*args, **kwargs)\n"
        "        self.scale = nn.Parameter(torch.ones(1))\n\n\n"
        "class ScaledPReLU(Scaled, nn.PReLU):\n    pass\n\n\n"
        "class ScaledLinear(Scaled, nn.Linear):\n    def __init__(self):\n        super().__init__(4, 5)\n\n\n"
        "class ScaledStack(Scaled, nn.Sequential):\n    def __init__(self):\n"
        "        super().__init__(nn.Linear(2, 3), nn.ReLU())\n")
    _assert_counted_as_torch_counts(source, tmp_path, "ScaledPReLU", "ScaledLinear", "ScaledStack")


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
        assert isinstance(built, tuple), built
        assert [(m.tree.total, m.tree.trainable) for m in report.models] == [built]
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


def test_a_mutable_default_filled_by_one_class_is_not_seen_by_the_next(tmp_path):
    # Each class is counted as in a fresh process: `extra=[]` filled while `Block` is counted (as a
    # formula: it needs `dim`) and mmcv's `cfg.pop("type")` on a default dict do not reach `Net`.
    source = HEADER + (
        "def build_norm(cfg, c):\n    kind = cfg.pop('type', 'none')\n"
        "    return nn.LayerNorm(c) if kind == 'LN' else nn.Identity()\n\n\n"
        "class Block(nn.Module):\n    def __init__(self, dim, extra=[], norm_cfg={'type': 'LN'}):\n"
        "        super().__init__()\n        extra.append(dim)\n"
        "        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in extra)\n"
        "        self.norm = build_norm(norm_cfg, dim)\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = Block(4)\n        self.b = Block(4)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")  # 20 + 8 (LN), then 40 (Identity)


def test_object_setattr_in_a_frozen_config_sets_the_field(tmp_path):
    # A frozen dataclass config derives a field in __post_init__ past its own __setattr__.
    source = HEADER + (
        "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass ModelConfig:\n"
        "    dim: int = 16\n    hidden: int = 0\n\n    def __post_init__(self):\n        if self.hidden == 0:\n"
        "            object.__setattr__(self, 'hidden', 4 * self.dim)\n\n\n"
        "class MLP(nn.Module):\n    def __init__(self, cfg: ModelConfig = ModelConfig()):\n        super().__init__()\n"
        "        self.up = nn.Linear(cfg.dim, cfg.hidden)\n\n\n"
        "class Hidden(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        object.__setattr__(self, 'fc', nn.Linear(4, 4))\n        self.head = nn.Linear(4, 2)\n")
    # on a module, torch does not register what object.__setattr__ sets: never counted
    _assert_counted_as_torch_counts(source, tmp_path, "MLP", "Hidden")


def test_an_init_only_field_goes_to_post_init(tmp_path):
    source = HEADER + (
        "from dataclasses import InitVar, dataclass\n\n\n@dataclass\nclass ModelArgs:\n    dim: int = 16\n"
        "    hidden: int = 0\n    ratio: InitVar[int] = 4\n\n    def __post_init__(self, ratio):\n"
        "        if self.hidden == 0:\n            self.hidden = ratio * self.dim\n\n\n"
        "@dataclass\nclass Wider(ModelArgs):\n    bias: bool = False\n\n\n"
        "class MLP(nn.Module):\n    def __init__(self, cfg: ModelArgs = ModelArgs(ratio=3)):\n        super().__init__()\n"
        "        self.up = nn.Linear(cfg.dim, cfg.hidden)\n        self.w = nn.Linear(2, Wider(8, 0, 2).hidden)\n"
        "        self.r = nn.Linear(2, 1 if hasattr(cfg, 'ratio') else 3)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "MLP")


def test_the_layers_whose_constructor_resets_parameters_are_torchs():
    import inspect

    from lsp_count.pymodel.interp import _RESETS_IN_INIT
    from lsp_count.pymodel.layers import LAYERS

    def resets(cls) -> bool:
        return any("self.reset_parameters()" in inspect.getsource(k.__init__) for k in cls.__mro__
                   if "__init__" in k.__dict__ and k.__module__.startswith("torch.nn"))

    assert _RESETS_IN_INIT == {name for name in LAYERS if hasattr(torch.nn, name) and resets(getattr(torch.nn, name))}


def test_a_layer_subclass_override_of_reset_parameters_runs_in_the_constructor(tmp_path):
    # nn.Linear.__init__ calls self.reset_parameters(): an override that adds or freezes a parameter does so
    source = HEADER + (
        "class GainLinear(nn.Linear):\n    def reset_parameters(self):\n        super().reset_parameters()\n"
        "        self.gain = nn.Parameter(torch.ones(self.out_features))\n        self.bias.requires_grad_(False)\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = GainLinear(8, 4)\n"
        "        self.b = nn.Embedding(10, 4, _weight=torch.zeros(10, 4))\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_registry_decorators_of_every_kind_fill_the_registry(tmp_path):
    # mmcv's `@MODELS.register_module` (a bound method, bare or called), a registry object with
    # `__call__`, `@partial(register, name=...)`; a decorator that raises (a name registered twice,
    # caught around the class statement) leaves the name as it was.
    source = HEADER + (
        "from functools import partial\n\n\nclass Registry:\n    def __init__(self):\n        self.table = {}\n\n"
        "    def register_module(self, cls=None, name=None):\n        if cls is None:\n"
        "            return partial(self.register_module, name=name)\n        key = name or cls.__name__\n"
        "        if key in self.table:\n            raise KeyError(key)\n        self.table[key] = cls\n        return cls\n\n"
        "    def __call__(self, cls):\n        return self.register_module(cls)\n\n\n"
        "MODELS = Registry()\n\n\ndef register(cls, name):\n    return MODELS.register_module(cls, name)\n\n\n"
        "@MODELS.register_module\nclass Small(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 1)\n\n\n"
        "@MODELS.register_module(name='wide')\nclass Wide(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 50)\n\n\n"
        "@MODELS\nclass Called(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 7)\n\n\n"
        "@partial(register, name='big')\nclass Big(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 100)\n\n\n"
        "try:\n    @MODELS.register_module\n    class Small(nn.Module):\n        def __init__(self):\n"
        "            super().__init__()\n            self.fc = nn.Linear(4, 1000)\nexcept KeyError:\n    pass\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.parts = nn.ModuleList(MODELS.table[k]() for k in sorted(MODELS.table))\n"
        "        self.small = Small()\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Small", "Wide", "Called", "Big", "Net")


def test_a_cached_property_is_computed_once_then_the_instances_own(tmp_path):
    # A config's derived size read twice: the second read is the first value, though its input changed.
    source = HEADER + (
        "import functools\n\n\nclass Cfg:\n    def __init__(self):\n        self.heads = 2\n\n"
        "    @functools.cached_property\n    def dim(self):\n        return self.heads * 4\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        cfg = Cfg()\n"
        "        self.a = nn.Linear(cfg.dim, 1)\n        cfg.heads = 100\n        self.b = nn.Linear(cfg.dim, 1)\n"
        "        cfg.dim = 3\n        self.c = nn.Linear(cfg.dim, 1)\n\n\n"
        "class Lazy(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = self.head\n        self.b = self.head\n\n"
        "    @functools.cached_property\n    def head(self):\n        return nn.Linear(4, 4)\n")
    # a module's cached submodule is kept in its __dict__, unregistered, until an attribute registers it
    _assert_counted_as_torch_counts(source, tmp_path, "Net", "Lazy")


def test_iterators_are_taken_from_as_python_takes_from_them(tmp_path):
    # A generator expression's or map's body runs as it is consumed (the names it reads have their
    # values then), any() stops at the first true item, a loop and next() share one iterator, a
    # break or islice leaves the rest in it, and a list's iterator sees a later append.
    source = HEADER + (
        "import itertools\n\n\n"
        "class LateName(nn.Module):\n    def __init__(self):\n        super().__init__()\n        dim = 4\n"
        "        blocks = (nn.Linear(dim, dim) for _ in range(2))\n        dim = 16\n"
        "        self.blocks = nn.ModuleList(blocks)\n\n\n"
        "class LateMap(nn.Module):\n    def __init__(self):\n        super().__init__()\n        out, dims = 3, [1, 2]\n"
        "        layers = map(lambda c: nn.Linear(c, out), dims)\n        out = 7\n        dims.append(5)\n"
        "        self.layers = nn.ModuleList(layers)\n        kept = filter(lambda d: d > out, [6, 8, 9])\n"
        "        out = 8\n        self.wide = nn.Linear(sum(kept), 1)\n\n\n"
        "class ShortCircuit(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.made = []\n"
        "        any(self.add(i) for i in range(4))\n        all(self.add(i) < 1 for i in range(4))\n"
        "        self.layers = nn.ModuleList(self.made)\n\n"
        "    def add(self, i):\n        self.made.append(nn.Linear(i + 1, 1))\n        return i >= 1\n\n\n"
        "class Tokens(nn.Module):\n    def __init__(self, spec=('L', 4, 8, 'skip', 'L', 8, 2)):\n        super().__init__()\n"
        "        it, layers = iter(spec), []\n        for tok in it:\n            if tok == 'L':\n"
        "                layers.append(nn.Linear(next(it), next(it)))\n        self.body = nn.Sequential(*layers)\n"
        "        rest = iter([1, 2, 3, 4, 5])\n        for x in rest:\n            if x == 2:\n                break\n"
        "        head = list(itertools.islice(rest, 1))\n        dims = [1, 2]\n        live = iter(dims)\n"
        "        dims.append(4)\n        self.fc = nn.Linear(sum(rest) + head[0], sum(live))\n\n\n"
        "class Twice(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        sizes = (d * 2 for d in [2, 3])\n        self.a = nn.Linear(sum(sizes), 4)\n"
        "        self.b = nn.Linear(sum(sizes) + 1, 4)\n        self.c = nn.Linear(next((d for d in [5, 6] if d > 5), 1), 2)\n"
        "        ins, outs = [2, 3], [4]\n        pairs = zip(ins, outs)\n        outs.append(5)\n"
        "        self.pairs = nn.ModuleList(nn.Linear(i, o) for i, o in pairs)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "LateName", "LateMap", "ShortCircuit", "Tokens", "Twice")


def test_an_argument_with_no_default_used_as_a_module_in_init_is_not_counted_as_nothing(tmp_path):
    source = HEADER + (
        "class Distill(nn.Module):\n    def __init__(self, student, teacher, temperature=2.0):\n"
        "        super().__init__()\n        self.student = student\n        self.teacher = teacher\n"
        "        self.teacher.requires_grad_(False)\n        self.t = temperature\n")
    report = analyze_text(source, "net.py")
    assert not report.models
    assert any("`teacher`" in p.message and "uses it as a module (line" in p.message for p in report.problems)


def test_recommender_idioms_count_as_torch_counts(tmp_path):
    # torchfm's `sum(field_dims)` and `np.cumsum(field_dims)` offsets of a numpy array, builtins over
    # its scalars, DeepCTR's named tuple whose own __new__ changes a field, DLRM's sizes parsed with
    # `np.fromstring` and its tables filled from `np.random.uniform(size=(n, m))`.
    source = HEADER + (
        "from collections import namedtuple\n\nFIELD_DIMS = np.array([10, 20, 30])\n\n\n"
        "class SparseFeat(namedtuple('SparseFeat', ['name', 'vocabulary_size', 'embedding_dim'])):\n"
        "    def __new__(cls, name, vocabulary_size, embedding_dim=4):\n"
        "        return super().__new__(cls, name, vocabulary_size + 1, embedding_dim)\n\n\n"
        "class FeaturesEmbedding(nn.Module):\n    def __init__(self, field_dims=FIELD_DIMS, embed_dim=4):\n"
        "        super().__init__()\n        self.embedding = nn.Embedding(sum(field_dims), embed_dim)\n"
        "        self.offsets = np.array((0, *np.cumsum(field_dims)[:-1]), dtype=np.int64)\n"
        "        self.widest = nn.Linear(max(field_dims), min(field_dims) + sorted(field_dims)[1])\n\n\n"
        "class UserEmbedding(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        features = [SparseFeat('user', 100, 8), SparseFeat('item', 50)]\n"
        "        self.tables = nn.ModuleList(nn.Embedding(f.vocabulary_size, f.embedding_dim) for f in features)\n\n\n"
        "class DLRM(nn.Module):\n    def __init__(self, sizes='4-3-2', m=6):\n        super().__init__()\n"
        "        ln = np.fromstring(sizes, dtype=int, sep='-')\n        self.emb_l = nn.ModuleList()\n"
        "        for i in range(ln.size):\n            n = ln[i]\n            EE = nn.EmbeddingBag(n, m, mode='sum')\n"
        "            W = np.random.uniform(low=-np.sqrt(1 / n), high=np.sqrt(1 / n), size=(n, m)).astype(np.float32)\n"
        "            EE.weight.data = torch.tensor(W, requires_grad=True)\n            self.emb_l.append(EE)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "FeaturesEmbedding", "UserEmbedding", "DLRM")


def test_a_generator_function_runs_as_its_items_are_taken(tmp_path):
    # StyleGAN2-ADA's endless `trainable_gen` stepped by next(); a body that reads what the code did
    # between items; a list comprehension over a generator; `v = yield from gen()` taking its return value.
    source = HEADER + (
        "class Disc(nn.Module):\n    def __init__(self, freeze_layers=1):\n        super().__init__()\n"
        "        self.num_layers = 0\n\n        def trainable_gen():\n            while True:\n"
        "                trainable = self.num_layers >= freeze_layers\n                self.num_layers += 1\n"
        "                yield trainable\n        it = trainable_gen()\n        self.conv0 = nn.Conv2d(8, 8, 3)\n"
        "        self.conv0.requires_grad_(next(it))\n        self.conv1 = nn.Conv2d(8, 8, 3)\n"
        "        self.conv1.requires_grad_(next(it))\n\n\n"
        "class Interleave(nn.Module):\n    def __init__(self):\n        super().__init__()\n        made = []\n\n"
        "        def gen():\n            for i in range(3):\n                if i == 2:\n                    break\n"
        "                made.append(i)\n                yield i\n            else:\n                yield 9\n\n"
        "        self.layers = nn.ModuleList([nn.Linear(len(made), 1) for _ in gen()])\n\n"
        "        def inner():\n            yield 1\n            return 5\n\n"
        "        def outer():\n            r = yield from inner()\n            yield r or 7\n\n"
        "        self.fc = nn.Linear(list(outer())[-1], 1)\n\n\n"
        "class Unused(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.made = []\n\n"
        "        def build():\n            for d in (4, 8):\n                self.made.append(nn.Linear(d, d))\n"
        "                yield d\n        build()\n        self.layers = nn.ModuleList(self.made)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Disc", "Interleave", "Unused")


@pytest.mark.parametrize("ending", ["return self", "yield self.fc", "return 0"])
def test_an_init_that_returns_a_value_is_refused_as_python_refuses_it(ending, tmp_path):
    source = _source(f"self.fc = nn.Linear(dim, dim)\n{ending}")
    raised = _torch(source, tmp_path)
    assert isinstance(raised, TypeError) and "should return None" in str(raised)
    message = next(p.message for p in analyze_text(source, "net.py").problems if p.code == "LC101")
    assert "raises TypeError: __init__() should return None" in message


@pytest.mark.parametrize("body", [
    "self.heads = nn.ModuleDict({'forward': nn.Linear(dim, dim), 'backward': nn.Linear(dim, dim)})",
    "self.gains = nn.ParameterDict({'train': nn.Parameter(torch.ones(dim))})",
    "self.heads = nn.ModuleDict()\nself.heads['values'] = nn.Linear(dim, 2)",
    "self.add_module('eval', nn.Linear(dim, 2))",
    "self.register_buffer('cuda', torch.zeros(dim))",
    "self.register_parameter('scale', nn.Parameter(torch.ones(dim)))",  # a class attribute below
    "self.scale = nn.Parameter(torch.ones(dim))",
    "self.heads = nn.ModuleDict({1: nn.Linear(dim, 2)})",
    "self.add_module(3, nn.Linear(dim, 2))",
    "self.gains = nn.ParameterDict({0: nn.Parameter(torch.ones(dim))})",
])
def test_a_name_torch_would_not_register_is_refused_with_its_error(body, tmp_path):
    source = _source(body).replace("class Net(nn.Module):\n", "class Net(nn.Module):\n    scale = None\n\n")
    raised = _torch(source, tmp_path)
    assert isinstance(raised, (KeyError, TypeError)), raised
    message = next(p.message for p in analyze_text(source, "net.py").problems if p.code == "LC101")
    assert f"raises {type(raised).__name__}" in message, message


def test_a_name_free_of_the_class_is_registered_as_torch_registers_it(tmp_path):
    # a property is free where its getter raises AttributeError; an instance's None slot is re-registered
    source = HEADER + (
        "class Net(nn.Module):\n    def __init__(self, dim=8):\n        super().__init__()\n"
        "        self.heads = nn.ModuleDict({'fwd': nn.Linear(dim, dim), 'forward_proj': nn.Linear(dim, 2)})\n"
        "        self.register_parameter('bias', None)\n        self.bias = nn.Parameter(torch.zeros(dim))\n"
        "        self.register_buffer('mask', None)\n        self.register_buffer('mask', torch.ones(dim))\n"
        "        self.gains = nn.ParameterDict({'training': nn.Parameter(torch.ones(dim))})\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_what_is_put_in_a_modules_dict_is_an_attribute_torch_does_not_count(tmp_path):
    # An RL target network hidden from parameters() with object.__setattr__, written into __dict__,
    # read back and used for sizes; diffusers' ModelMixin reading its config from __dict__ in __getattr__.
    source = HEADER + (
        "import copy\n\n\nclass Agent(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.q = nn.Linear(4, 4)\n        object.__setattr__(self, 'q_target', copy.deepcopy(self.q))\n"
        "        self.q_target.requires_grad_(False)\n        self.__dict__['teacher'] = nn.Linear(4, 8)\n"
        "        self.head = nn.Linear(self.teacher.out_features, 2)\n        self.__dict__.update({'width': 3})\n"
        "        self.proj = nn.Linear(self.width, 1)\n        assert 'q' not in self.__dict__ and 'teacher' in self.__dict__\n"
        "        self.__dict__['me'] = self\n\n\n"
        "class ModelMixin(nn.Module):\n    def __getattr__(self, name):\n"
        "        is_in_config = '_internal_dict' in self.__dict__ and name in self.__dict__['_internal_dict']\n"
        "        if is_in_config and name not in self.__dict__:\n            return self._internal_dict[name]\n"
        "        return super().__getattr__(name)\n\n\n"
        "class UNet(ModelMixin):\n    def __init__(self, ch=16):\n        super().__init__()\n"
        "        if not hasattr(self, '_internal_dict'):\n            self._internal_dict = {'ch': ch}\n"
        "        self.conv = nn.Conv2d(3, self.ch, 3)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Agent", "ModelMixin", "UNet")


def test_a_shallow_copy_of_a_module_shares_its_registries(tmp_path):
    # copy.copy shares _modules and _parameters: a part replaced, added or deleted on the copy is so
    # on the original (the "swap the head of a copy" mistake), and what both hold is counted once.
    source = HEADER + (
        "import copy\n\n\n"
        "class SwapHead(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.base = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 10))\n        self.ft = copy.copy(self.base)\n"
        "        self.ft[1] = nn.Linear(8, 2)\n\n\n"
        "class AddAndDelete(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Linear(4, 4)\n        self.b = copy.copy(self.a)\n"
        "        self.b.extra = nn.Parameter(torch.zeros(3))\n        self.c = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n"
        "        self.d = copy.copy(self.c)\n        del self.d[0]\n")
    _assert_counted_as_torch_counts(source, tmp_path, "SwapHead", "AddAndDelete")


def test_a_number_read_from_a_tensor_the_analyser_does_not_compute_is_only_refused_where_a_size_needs_it(tmp_path):
    # SchNet's ShiftedSoftplus keeps `torch.log(torch.tensor(2.0)).item()` as a setting (built on the
    # CPU here: .item() of a meta tensor raises); a size made from such a number is LC101.
    source = HEADER + (
        "class ShiftedSoftplus(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.shift = torch.log(torch.tensor(2.0)).item()\n\n\n"
        "class CFConv(nn.Module):\n    def __init__(self, num_gaussians=50, num_filters=128):\n        super().__init__()\n"
        "        self.mlp = nn.Sequential(nn.Linear(num_gaussians, num_filters), ShiftedSoftplus(), "
        "nn.Linear(num_filters, num_filters))\n\n\n"
        "class Sized(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(int(torch.randn(()).abs().item()) + 1, 2)\n")
    module = _imported(source, tmp_path)
    expected = sum(p.numel() for p in module.CFConv().parameters())
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total) for m in report.models] == [("ShiftedSoftplus", 0), ("CFConv", expected)]
    assert any(p.message.startswith("`Sized`") and "values are not known" in p.message for p in report.problems)


def test_a_cached_factory_gives_the_same_module_for_the_same_arguments(tmp_path):
    # functools.lru_cache / cache on a function defined in __init__ and on a method (keyed by `self`,
    # as Python hashes a module): the shared module is counted once.
    source = HEADER + (
        "import functools\n\n\n"
        "class Nested(nn.Module):\n    def __init__(self, d=16, n=4):\n        super().__init__()\n\n"
        "        @functools.lru_cache(maxsize=None)\n        def make_norm(dim):\n            return nn.LayerNorm(dim)\n\n"
        "        self.norms = nn.ModuleList([make_norm(d) for _ in range(n)] + [make_norm(d * 2)])\n\n\n"
        "class Method(nn.Module):\n    def __init__(self, d=16, n=3):\n        super().__init__()\n"
        "        self.norms = nn.ModuleList([self._norm(d) for _ in range(n)])\n\n"
        "    @functools.cache\n    def _norm(self, d):\n        return nn.LayerNorm(d)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Nested", "Method")


def test_state_a_build_writes_and_a_loops_list_are_seen_as_python_sees_them(tmp_path):
    # A build writing into a dict nested in a module-level config is not reused for the next build;
    # a for loop sees what its body appends to (or removes from) the list; a frozen dataclass refuses
    # an assignment (FrozenInstanceError, an AttributeError).
    source = HEADER + (
        "import dataclasses\n\nBASE = {'model': {'dim': 8}, 'classes': 4}\nSTAGES = [dict(dim=4), dict(dim=8)]\n\n\n"
        "class Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        BASE['model']['dim'] *= 2\n        self.fc = nn.Linear(BASE['model']['dim'], BASE['classes'])\n\n\n"
        "class Stage(nn.Module):\n    def __init__(self):\n        super().__init__()\n        st = STAGES[0]\n"
        "        st['dim'] += 1\n        self.fc = nn.Linear(st['dim'], 1)\n\n\n"
        "@dataclasses.dataclass(frozen=True)\nclass Frozen:\n    d: int = 4\n\n\n"
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.first, self.second = Head(), Head()\n        self.a, self.b = Stage(), Stage()\n"
        "        dims = [2, 3]\n        for d in dims:\n            if d < 8:\n                dims.append(d * 2)\n"
        "        kept = [1, 2, 3, 4]\n        for d in kept:\n            kept.remove(d)\n"
        "        f = Frozen()\n        for attempt in (AttributeError, dataclasses.FrozenInstanceError):\n"
        "            try:\n                f.d = 100\n            except attempt:\n                pass\n"
        "        self.fc = nn.Linear(len(dims) + sum(kept), f.d)\n")
    module = _imported(source, tmp_path)
    with torch.device("meta"):
        params = list(module.Model().parameters())
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total) for m in report.models if m.name == "Model"] == [
        ("Model", sum(p.numel() for p in params))], [p.message for p in report.problems]


def test_a_comprehension_in_a_class_body_sees_the_class_names_only_in_its_first_iterable(tmp_path):
    source = HEADER + (
        "class Layout:\n    period = 3\n    depth = 6\n    kinds = [i % 3 == 2 for i in range(depth)]\n\n\n"
        "class Broken:\n    period = 3\n    kinds = ['attn' if i % period == 2 else 'mamba' for i in range(6)]\n\n\n"
        "class Net(nn.Module):\n    def __init__(self, d=8):\n        super().__init__()\n"
        "        self.layers = nn.ModuleList(nn.Linear(d, d) for k in Layout.kinds if k)\n")
    with pytest.raises(NameError):
        _imported(source, tmp_path)
    _imported(source.replace("i % period", "i % 3"), tmp_path)  # Python's side of the valid part
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 144)]
    source = source.replace("Layout.kinds", "Broken.kinds")
    message = next(p.message for p in analyze_text(source, "net.py").problems if p.code == "LC101")
    assert "`period`" in message and "not defined" in message, message


def test_an_object_with_its_own_iter_is_iterated_through_it(tmp_path):
    # list(), sum(), max(), sorted(), a loop and a comprehension over a config object with __iter__
    # (they gave its attribute names, or refused it).
    source = HEADER + (
        "class Stages:\n    def __init__(self):\n        self.widths = [2, 4, 8]\n\n    def __iter__(self):\n"
        "        return iter(self.widths)\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        stages = Stages()\n"
        "        self.fc = nn.Linear(len(list(stages)) + max(stages) + sum(stages), sorted(stages)[0])\n"
        "        self.blocks = nn.ModuleList([nn.Linear(w, w) for w in stages])\n"
        "        for i, w in enumerate(stages):\n            self.add_module(f'extra{i}', nn.Linear(w, 1))\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_an_enum_with_its_own_init_gets_each_members_value_as_its_arguments(tmp_path):
    source = HEADER + (
        "import enum\n\n\nclass EnvSpec(enum.Enum):\n    CARTPOLE = (4, 2)\n    LUNAR = (8, 4)\n    ALIAS = (8, 4)\n\n"
        "    def __init__(self, obs_dim, n_actions):\n        self.obs_dim = obs_dim\n        self.n_actions = n_actions\n\n\n"
        "class QNet(nn.Module):\n    def __init__(self, env=EnvSpec.LUNAR, hidden=16):\n        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(env.obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, env.n_actions))\n"
        "        self.other = nn.Linear(EnvSpec.CARTPOLE.obs_dim, EnvSpec.ALIAS.n_actions)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "QNet")


def test_itertools_count_numbers_the_items_it_is_zipped_with(tmp_path):
    source = HEADER + (
        "import itertools\n\n\nclass Net(nn.Module):\n    def __init__(self, depth=4):\n        super().__init__()\n"
        "        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(depth))\n"
        "        for idx, layer in zip(itertools.count(start=1), self.layers):\n            if idx % 2 == 0:\n"
        "                layer.requires_grad_(False)\n"
        "        self.heads = nn.ModuleList(nn.Linear(i, 2) for i, _ in zip(itertools.count(2, 3), range(3)))\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")
    endless = HEADER + ("import itertools\n\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                        "        self.fc = nn.Linear(len(list(itertools.count())), 2)\n")
    message = next(p.message for p in analyze_text(endless, "net.py").problems if p.code == "LC101")
    assert "steps" in message  # stopped by the step budget, never a hang


def test_inspect_signature_of_a_constructor_gives_its_parameters_and_defaults(tmp_path):
    # diffusers' @register_to_config records each constructor argument from inspect.signature(init).
    source = HEADER + (
        "import functools\nimport inspect\n\n\n"
        "def register_to_config(init):\n    @functools.wraps(init)\n    def inner_init(self, *args, **kwargs):\n"
        "        signature = inspect.signature(init)\n"
        "        params = {n: p.default for i, (n, p) in enumerate(signature.parameters.items()) if i > 0}\n"
        "        new_kwargs = dict(zip(params.keys(), args))\n"
        "        new_kwargs.update({k: kwargs.get(k, d) for k, d in params.items() if k not in new_kwargs})\n"
        "        self.config = new_kwargs\n        init(self, *args, **kwargs)\n    return inner_init\n\n\n"
        "class UNet(nn.Module):\n    @register_to_config\n    def __init__(self, ch=16, mult=(1, 2), *, extra=None, out=3):\n"
        "        super().__init__()\n        self.conv = nn.Conv2d(3, self.config['ch'] * self.config['mult'][-1], 3)\n"
        "        required = [p.name for p in inspect.signature(UNet.__init__).parameters.values()\n"
        "                    if p.default is inspect.Parameter.empty and p.kind != inspect.Parameter.VAR_KEYWORD]\n"
        "        self.head = nn.Linear(len(required) + self.config['out'], 2)\n\n\n"
        "class Holder(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        kinds = [p.kind for p in inspect.signature(self.build).parameters.values()]\n"
        "        self.fc = nn.Linear(len(kinds) + (inspect.Parameter.KEYWORD_ONLY in kinds), 2)\n\n"
        "    def build(self, a, b=1, *rest, c, **kw):\n        return a\n")
    _assert_counted_as_torch_counts(source, tmp_path, "UNet", "Holder")


def test_a_context_manager_object_of_the_code_enters_and_exits_around_the_body(tmp_path):
    source = HEADER + (
        "class Widen:\n    def __init__(self, cfg):\n        self.cfg = cfg\n\n    def __enter__(self):\n"
        "        self.cfg['d'] *= 4\n        return self.cfg['d']\n\n    def __exit__(self, kind, value, tb):\n"
        "        self.cfg['d'] //= 4\n        return kind is KeyError\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        cfg = {'d': 2}\n"
        "        with Widen(cfg) as d:\n            self.a = nn.Linear(cfg['d'], d)\n        self.b = nn.Linear(cfg['d'], 1)\n"
        "        with Widen(cfg):\n            self.c = nn.Linear(cfg['d'], 1)\n            {}['missing']\n"
        "            self.never = nn.Linear(100, 100)\n        self.e = nn.Linear(cfg['d'], 3)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_build_is_not_reused_for_an_argument_that_only_took_a_freed_objects_place(tmp_path):
    # A config holding a list of lists keys a build by its inner list's identity; each short-lived
    # config was freed after its build, and the next one's list, made at the same address, took the
    # cached build of another width (8 blocks counted as 90 parameters where torch builds 180).
    source = HEADER + (
        "class Cfg:\n    def __init__(self, widths, table):\n        self.widths = widths\n        self.table = table\n\n\n"
        "class Block(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n"
        "        self.lin = nn.Linear(4, cfg.widths[0][0] + cfg.table['extra'][0])\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.blocks = nn.ModuleList([Block(Cfg([[w]], {'extra': [0]})) for w in range(1, 33)])\n"
        "        self.more = nn.ModuleList([Block(Cfg([[1]], {'extra': [w]})) for w in range(1, 33)])\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_build_is_not_reused_after_its_config_changed_in_place_at_any_depth(tmp_path):
    # The build cache keyed a config by one level of what it held: a stage list's dict, or a
    # sub-config four levels down, changed in place between two builds gave the first build again.
    source = HEADER + (
        "class Level:\n    def __init__(self, inner):\n        self.inner = inner\n\n\n"
        "class Cfg:\n    def __init__(self):\n        self.stages = [{'dim': 8}]\n"
        "        self.deep = Level(Level(Level(Level(4))))\n        self.me = self\n"
        "        self.chain = Level(None)\n        for _ in range(100):\n            self.chain = Level(self.chain)\n\n\n"
        "class Block(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n"
        "        self.lin = nn.Linear(2, cfg.stages[0]['dim'])\n"
        "        self.deep = nn.Linear(2, cfg.me.deep.inner.inner.inner.inner)\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        cfg = Cfg()\n"
        "        self.a = Block(cfg)\n        cfg.stages[0]['dim'] = 16\n        self.b = Block(cfg)\n"
        "        cfg.deep.inner.inner.inner.inner = 6\n        self.c = Block(cfg)\n"
        "        cfg.deep.inner.inner.inner.inner = 4\n        cfg.stages[0]['dim'] = 8\n        self.d = Block(cfg)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_build_is_not_reused_after_what_it_reads_outside_its_arguments_changed(tmp_path):
    # The build cache reused a build after a change it did not see: a global config object's
    # attribute, one in a global list or a class attribute, a mutable default object the build
    # itself changes, and a closure's variables (a lambda passed in, its `width` changed since).
    # Each class is still counted as from a fresh import: `Net`'s changes do not reach `After`.
    source = HEADER + (
        "class Cfg:\n    def __init__(self, width=4):\n        self.width = width\n\n\n"
        "CFG = Cfg()\nSTAGES = [Cfg()]\n\n\n"
        "class Block(nn.Module):\n    shared = Cfg()\n\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(2, CFG.width + STAGES[0].width + Block.shared.width)\n\n\n"
        "class Grow(nn.Module):\n    def __init__(self, cfg=Cfg()):\n        super().__init__()\n"
        "        cfg.width += 4\n        self.fc = nn.Linear(2, cfg.width)\n\n\n"
        "class Maker(nn.Module):\n    def __init__(self, make):\n        super().__init__()\n        self.fc = make()\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = Block()\n        CFG.width = 8\n        self.b = Block()\n        STAGES[0].width = 8\n"
        "        self.c = Block()\n        Block.shared.width = 8\n        self.d = Block()\n"
        "        self.g = nn.ModuleList([Grow(), Grow()])\n"
        "        width = 4\n        make = lambda: nn.Linear(2, width)\n        self.m = Maker(make)\n"
        "        width = 8\n        self.n = Maker(make)\n        sizes = [4]\n"
        "        self.o = Maker(lambda: nn.Linear(2, sizes[0]))\n        sizes[0] = 16\n"
        "        self.p = Maker(lambda: nn.Linear(2, sizes[0]))\n\n\n"
        "class After(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.a = Block()\n"
        "        self.g = Grow()\n")
    _assert_counted_as_fresh_imports_count(source, tmp_path, ("Block", "Grow", "Net", "After"))


def test_what_building_the_default_config_changes_outside_it_stays_for_every_class(tmp_path):
    # transformers' LightOnOcr: building its config standardises a class-level dict of sub-config
    # defaults in place (rope type "default" -> "axial"), and the vision tower refuses any other type.
    # The default config is built once per analysis; putting that change back after the first
    # class's count left the later classes a config whose dict said "default" again.
    source = HEADER + (
        "class NetConfig:\n    defaults = {'rope': {'type': 'default'}}\n\n    def __init__(self):\n"
        "        rope = NetConfig.defaults['rope']\n        if rope['type'] == 'default':\n"
        "            rope['type'] = 'axial'\n        self.rope = rope\n        self.dim = 8\n\n\n"
        "class Tower(nn.Module):\n    def __init__(self, config: NetConfig):\n        super().__init__()\n"
        "        if config.rope['type'] != 'axial':\n            raise ValueError(config.rope['type'])\n"
        "        self.fc = nn.Linear(config.dim, 2)\n\n\n"
        "class Model(nn.Module):\n    def __init__(self, config: NetConfig):\n        super().__init__()\n"
        "        self.tower = Tower(config)\n        self.head = nn.Linear(2, 2)\n")
    _assert_counted_as_fresh_imports_count(source, tmp_path, ("Tower", "Model"), lambda module: [module.NetConfig()])


def test_a_build_is_not_reused_for_a_config_holding_an_iterator_or_a_closure(tmp_path):
    # Keyed by identity, a config's iterator (each block takes its next width) and its closure (its
    # `width` changed between builds) gave the first build again: 48 counted, 108 built by torch.
    source = HEADER + (
        "import itertools\n\n\nclass Cfg:\n    pass\n\n\n"
        "class Block(nn.Module):\n    def __init__(self, cfg):\n        super().__init__()\n"
        "        self.fc = nn.Linear(2, next(cfg.widths) + next(cfg.cycle))\n        self.g = cfg.make()\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        cfg = Cfg()\n"
        "        cfg.widths = iter([4, 8, 16])\n        cfg.cycle = itertools.cycle([0, 1])\n        width = 2\n"
        "        cfg.make = lambda: nn.Linear(1, width)\n        self.a = Block(cfg)\n        width = 5\n"
        "        self.b = Block(cfg)\n        self.c = Block(cfg)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_build_that_changes_its_arguments_is_not_reused(tmp_path):
    # A copy of the first build does not change the next call's arguments: the second config kept
    # its depth, and the third build was the first one again (27 counted, 33 built by torch).
    source = HEADER + (
        "class Cfg:\n    def __init__(self):\n        self.depth = 1\n\n\n"
        "class Block(nn.Module):\n    def __init__(self, cfg, sizes):\n        super().__init__()\n"
        "        cfg.depth += 1\n        sizes.append(1)\n        self.fc = nn.Linear(2, cfg.depth + len(sizes))\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        c1, c2 = Cfg(), Cfg()\n"
        "        s1, s2 = [], []\n        self.a = Block(c1, s1)\n        self.b = Block(c2, s2)\n        self.c = Block(c2, s2)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_class_with_its_own_parameters_method_counts_what_it_registers_and_says_so(tmp_path):
    source = HEADER + (
        "class Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(dim_of(), 2)\n        self.frozen = nn.Linear(3, 3)\n\n"
        "    def parameters(self, recurse=True):\n        return self.fc.parameters()\n\n\n"
        "def dim_of():\n    return 4\n")
    module = _imported(source, tmp_path)
    with torch.device("meta"):
        head = module.Head()
    registered = sum(p.numel() for p in torch.nn.Module.parameters(head))
    assert registered != sum(p.numel() for p in head.parameters())  # the override hands out less
    (model,) = analyze_text(source, "net.py").models
    assert model.tree.total == registered
    assert any("defines its own `parameters()`" in note for note in model.tree.notes), model.tree.notes


def test_an_object_with_getitem_and_no_iter_is_iterated_by_index_until_index_error(tmp_path):
    # Python's old sequence protocol: list(), sum(), max() and a for loop take obj[0], obj[1], ...
    # until __getitem__ raises IndexError (the analyser took the object's attribute names).
    source = HEADER + (
        "class Seq:\n    def __init__(self, n):\n        self.n = n\n\n    def __len__(self):\n        return self.n\n\n"
        "    def __getitem__(self, i):\n        if i >= self.n:\n            raise IndexError(i)\n        return i * 2\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        s = Seq(3)\n"
        "        self.fc = nn.Linear(2, len(list(s)) + sum(s) + max(s) + len(tuple(s)))\n"
        "        for v in s:\n            self.add_module(f'l{v}', nn.Linear(1, v + 1))\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_a_class_decorator_runs_where_the_class_statement_runs(tmp_path):
    # Decorators were applied to module-level classes alone: in a function or a class body the
    # class was bound undecorated (a registry left empty, an attribute the decorator sets missing).
    source = HEADER + (
        "REGISTRY = {}\n\n\ndef register(cls):\n    REGISTRY[cls.__name__] = cls\n    cls.width = 6\n    return cls\n\n\n"
        "def make():\n    @register\n    class Local(nn.Module):\n        def __init__(self):\n            super().__init__()\n"
        "            self.fc = nn.Linear(2, self.width)\n    return REGISTRY['Local']()\n\n\n"
        "class Net(nn.Module):\n    @register\n    class Inner(nn.Module):\n        def __init__(self):\n"
        "            super().__init__()\n            self.fc = nn.Linear(3, self.width)\n\n"
        "    def __init__(self):\n        super().__init__()\n        self.a = make()\n        self.b = REGISTRY['Inner']()\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


def test_torchs_errors_from_layer_checks_are_caught_by_the_codes_except_as_torch_raises_them(tmp_path):
    # A fallback written around a layer torch refuses (GroupNorm's groups, Conv's groups, heads that
    # do not divide the width, a negative size): the analyser's refusal was not an exception the
    # code could catch, so the class was refused where torch builds the fallback.
    source = HEADER + (
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        try:\n            self.a = nn.Linear(2, -1)\n        except RuntimeError:\n            self.a = nn.Linear(2, 2)\n"
        "        try:\n            self.b = nn.Conv2d(4, 6, 3, groups=4)\n        except ValueError:\n"
        "            self.b = nn.Conv2d(4, 8, 3, groups=4)\n"
        "        try:\n            self.c = nn.MultiheadAttention(10, 3)\n        except AssertionError:\n"
        "            self.c = nn.MultiheadAttention(12, 3)\n"
        "        try:\n            self.n = nn.GroupNorm(32, 48)\n        except ValueError:\n            self.n = nn.GroupNorm(16, 48)\n"
        "        try:\n            self.f = nn.RNN(4, 4, nonlinearity='gelu')\n        except ValueError:\n            self.f = nn.GRU(4, 4)\n"
        "        try:\n            self.t = nn.TransformerEncoderLayer(8, 2, activation='swish')\n        except RuntimeError:\n"
        "            self.t = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)\n")
    _assert_counted_as_torch_counts(source, tmp_path, "Net")


@pytest.mark.parametrize("bases", ["Sizes, Base", "Base, Base", "object, Base", "nn.Module, Base"])
def test_a_class_statement_python_refuses_is_refused_with_its_error(bases, tmp_path):
    """Bases that repeat a class or admit no MRO: Python's TypeError where the class statement runs
    (the analyser took its own order of the bases and counted the class); a class built on it is
    refused too, and the classes before it count as torch counts them."""
    source = ("import torch.nn as nn\n\n\nclass Sizes:\n    scale = 2\n\n\nclass Base(Sizes, nn.Module):\n"
              "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 3)\n\n\n"
              f"class Net({bases}):\n    pass\n\n\nclass Sub(Net):\n    pass\n")
    with pytest.raises(TypeError) as raised:
        _imported(source, tmp_path)
    report = analyze_text(source, "net.py")
    assert [(m.name, m.tree.total) for m in report.models] == [("Base", 9)]
    refused = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}
    assert str(raised.value).split("\n")[0] in refused["Net"].replace("\n", " ")
    assert "Net" in refused["Sub"]


def _built_beside_an_outside_package(tmp_path, package: str, package_text: str, source: str,
                                     names: tuple[str, ...]) -> dict[str, int]:
    """torch's count of each named class of ``source``, imported with ``package`` (a file outside the
    analysed project, as an installed package is) on sys.path for the import only."""
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{package}.py").write_text(package_text)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    sys.path.insert(0, str(site))
    try:
        module = _imported(source, project)
        with torch.device("meta"):
            return {name: sum(p.numel() for p in getattr(module, name)().parameters()) for name in names}
    finally:
        sys.path.remove(str(site))
        sys.modules.pop(package, None)


def test_isinstance_of_an_outside_class_the_models_class_derives_from_is_true(tmp_path):
    """`isinstance(self, pkg.Mixin)` in a class that derives from `pkg.Mixin` (directly, or through a
    base of the file), `pkg` a package the analyser does not read: True, as Python answers (the
    analyser answered False, and left the layer it guards out); of a class the model's bases do not
    name, where they are all known, False; where a base from outside may derive from it, not known
    (LC101), never guessed."""
    source = ("import torch.nn as nn\nimport mixins_pkg\n\n\nclass Base(mixins_pkg.Mixin):\n    pass\n\n\n"
              + "".join(f"class {name}({bases}):\n    def __init__(self):\n        super().__init__()\n"
                        f"        self.fc = nn.Linear(2, 3)\n        if isinstance(self, mixins_pkg.{asked}):\n"
                        f"            self.extra = nn.Linear(3, 4)\n\n\n"
                        for name, bases, asked in (("Direct", "nn.Module, mixins_pkg.Mixin", "Mixin"),
                                                   ("Through", "nn.Module, Base", "Mixin"),
                                                   ("Plain", "nn.Module", "Mixin"),
                                                   ("Derived", "nn.Module, mixins_pkg.Derived", "Other"))))
    expected = _built_beside_an_outside_package(
        tmp_path, "mixins_pkg", "class Mixin:\n    pass\n\n\nclass Other:\n    pass\n\n\nclass Derived(Other):\n    pass\n",
        source, ("Direct", "Through", "Plain", "Derived"))
    assert expected == {"Direct": 25, "Through": 25, "Plain": 9, "Derived": 25}
    report = analyze_text(source, str(tmp_path / "project" / "net.py"))
    counted = {m.name: m.tree.total for m in report.models}
    assert counted == {"Direct": 25, "Through": 25, "Plain": 9}, [p.message for p in report.problems]
    assert any(p.message.startswith("`Derived`") and "mixins_pkg.Derived" in p.message for p in report.problems)


def test_super_init_reaching_a_base_not_resolved_is_not_counted_past_it(tmp_path):
    """`class Net(Unresolved, nn.Module)`: `super().__init__()` runs the unresolved base's __init__ first,
    which may build anything (here torch builds a layer the analyser cannot see): not counted (the
    analyser went on to nn.Module's and counted without it). A base not resolved after nn.Module
    (`class Plain(nn.Module, Unresolved)`) is never reached by nn.Module's __init__: counted."""
    source = ("import torch.nn as nn\nfrom factory_pkg import make_base, make_mixin\n\nBase = make_base()\n"
              "Mixin = make_mixin()\n\n\nclass Net(Base, nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.fc = nn.Linear(2, 3)\n\n\nclass Plain(nn.Module, Mixin):\n    def __init__(self):\n"
              "        super().__init__()\n        self.fc = nn.Linear(2, 3)\n")
    built = _built_beside_an_outside_package(
        tmp_path, "factory_pkg", "import torch.nn as nn\n\n\ndef make_base():\n    class Base(nn.Module):\n"
        "        def __init__(self):\n            super().__init__()\n            self.hidden = nn.Linear(4, 4)\n"
        "    return Base\n\n\ndef make_mixin():\n    class Mixin:\n        pass\n    return Mixin\n",
        source, ("Net", "Plain"))
    assert built == {"Net": 29, "Plain": 9}
    report = analyze_text(source, str(tmp_path / "project" / "net.py"))
    assert {m.name: m.tree.total for m in report.models} == {"Plain": 9}, [p.message for p in report.problems]
    assert any(p.message.startswith("`Net`") and "cannot resolve" in p.message for p in report.problems)


# torch's size parser takes a bool anywhere in a tensor's size but first: `torch.empty((4, True))` is
# (4, 1), `torch.empty((True, 4))` raises TypeError. Each layer and tensor below is built by torch
# with True in one argument; the analyser counts what torch builds and refuses what it refuses.
BOOL_SIZES = [
    "nn.Linear(@, 4)", "nn.Linear(4, @)", "nn.Bilinear(@, 2, 3)", "nn.Bilinear(2, 3, @)",
    "nn.Embedding(@, 4)", "nn.Embedding(4, @)", "nn.EmbeddingBag(@, 4)", "nn.Embedding(@, 3, _weight=torch.zeros(1, 3))",
    "nn.Conv2d(@, 4, 3)", "nn.Conv2d(4, @, 3)", "nn.Conv2d(4, 4, @)", "nn.Conv1d(2, 4, 3, groups=@)",
    "nn.ConvTranspose2d(@, 4, 3)", "nn.ConvTranspose2d(4, @, 3)", "nn.ConvTranspose2d(4, @, 3, bias=False)",
    "nn.LayerNorm(@)", "nn.LayerNorm([@, 2])", "nn.LayerNorm([2, @])", "nn.LayerNorm(@, elementwise_affine=False)",
    "nn.RMSNorm(@)", "nn.BatchNorm1d(@)", "nn.BatchNorm1d(@, affine=False, track_running_stats=False)",
    "nn.GroupNorm(@, 4)", "nn.GroupNorm(1, @)", "nn.InstanceNorm1d(@)", "nn.PReLU(@)",
    "nn.MultiheadAttention(4, @)", "nn.MultiheadAttention(@, 1)", "nn.MultiheadAttention(4, 1, kdim=@, vdim=2)",
    "nn.LSTM(@, 4)", "nn.LSTM(4, @)", "nn.GRU(4, @)", "nn.RNN(4, @)", "nn.LSTM(4, 4, proj_size=@)",
    "nn.LSTMCell(4, @)", "nn.RNNCell(3, @)", "nn.TransformerEncoderLayer(4, 1, @)", "nn.TransformerEncoderLayer(@, 1, 8)",
    "nn.Parameter(torch.zeros(@, 4))", "nn.Parameter(torch.zeros(4, @))", "nn.Parameter(torch.empty((@,)))",
    "nn.Parameter(torch.randn(@))", "nn.Parameter(torch.rand(size=(2, @)))", "nn.Parameter(torch.Tensor(@, 2))",
    "nn.Parameter(torch.full((@, 4), 0.5))", "nn.Parameter(torch.full((4, @), 0.5))", "nn.Parameter(torch.full([@], 0.5))",
    "nn.Parameter(torch.full(@, 0.5))", "nn.Parameter(torch.randint(5, (@, 4)).float())",
    "nn.Parameter(torch.randint(0, 5, (4, @)).float())",
]

# torch.full and torch.randint take the size as a tuple only (numpy's np.full takes an int); randint's
# is its last positional argument or `size=`.
SIZE_TUPLES = [
    ("nn.Parameter(torch.full(4, 0.5))", None), ("nn.Parameter(torch.randint(5, 4).float())", None),
    ("nn.Parameter(torch.randint(0, 5, size=(dim,)).float())", 8), ("nn.Parameter(torch.randint(5, size=[dim, 2]).float())", 16),
    ("nn.Parameter(torch.full(size=(dim, 3), fill_value=1.0))", 24), ("nn.Parameter(torch.full(torch.zeros(dim).shape, 2.0))", 8),
    ("nn.Parameter(torch.randint(0, 9, (dim,), dtype=torch.float32))", 8),
    ("nn.Parameter(torch.from_numpy(np.full(dim, 0.5)))", 8),
]


@pytest.mark.parametrize("expression, count", SIZE_TUPLES)
def test_a_factorys_size_is_taken_as_torch_takes_it(expression, count, tmp_path):
    source = _source(f"self.m = {expression}")
    built = _torch(source, tmp_path)
    report = analyze_text(source, "net.py")
    if count is None:
        assert isinstance(built, TypeError), built  # torch's side
        assert not report.models
        (problem,) = [p for p in report.problems if p.code == "LC101"]
        assert "TypeError" in problem.message and "must be tuple of ints" in problem.message, problem.message
    else:
        assert built == (count, count)
        assert [(m.tree.total, m.tree.trainable) for m in report.models] == [built], [p.message for p in report.problems]


@pytest.mark.parametrize("layer", BOOL_SIZES)
def test_a_bool_size_is_taken_or_refused_as_torch_takes_it(layer, tmp_path):
    source = _source(f"self.m = {layer.replace('@', 'True')}")
    built = _torch(source, tmp_path)
    report = analyze_text(source, "net.py")
    if isinstance(built, Exception):
        assert type(built).__name__ == "TypeError", built  # torch's side
        assert not report.models
        (problem,) = [p for p in report.problems if p.code == "LC101"]
        assert "TypeError" in problem.message, problem.message
    else:
        assert [(m.tree.total, m.tree.trainable) for m in report.models] == [built], [p.message for p in report.problems]
