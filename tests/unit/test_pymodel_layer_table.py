"""The torch.nn layer table against the installed torch, and what the analyser says where it
cannot follow a layer, a reparametrization (weight_norm, spectral_norm) or a tensor's value or
shape. Counts are compared with torch in tests/parity (the corpus files vocoder.py, heads.py,
idioms.py and stochastic_depth.py)."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_text
from lsp_count.pymodel.interp import CONTAINERS
from lsp_count.pymodel.layers import (DTYPE_ALIASES, FACTORY_POSITIONAL, FINFO, FUNCTIONAL_NAMES, IINFO, KEYWORD_ONLY,
                                      LAYERS, MODULE_CLASS_ATTRIBUTES, MODULE_INSTANCE_ATTRIBUTES, PARAMETERLESS, PARAMETERLESS_SIGNATURES, STACKS,
                                      TORCH_CLASS_ATTRIBUTES, TORCH_NN_MODULES, TORCH_SUBCLASSES)

torch = pytest.importorskip("torch")

# torch.nn classes the analyser does not build, each for a reason it gives.
NOT_BUILT = {
    "Module": "the base class itself",
    "Container": "deprecated base class",
    "RNNCellBase": "the base of the cells",
    "DataParallel": "a wrapper, built apart (Interpreter.data_parallel): its model registered as `module`",
}


def _torch_modules() -> dict[str, type]:
    return {n: c for n, c in vars(torch.nn).items() if inspect.isclass(c) and issubclass(c, torch.nn.Module)}


def test_the_layers_taking_device_and_dtype_positionally_are_the_installed_torchs():
    # `super().__init__(in_features, out_features, bias, device, dtype)` in a Linear subclass (QLoRA).
    positional = set()
    for name, (sig, _) in LAYERS.items():
        cls = getattr(torch.nn, name, None)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:] if cls is not None else []
        names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY)]
        if names == [n for n, _ in sig] + ["device", "dtype"]:
            positional.add(name)
    assert FACTORY_POSITIONAL == positional
    report = analyze_text(_model("self.a = nn.Linear(4, 2, True, None, torch.float32)\n"
                                 "self.b = nn.LayerNorm(4, 1e-5, True, True, 'cpu')"), "model.py")
    assert [m.tree.total for m in report.models] == [10 + 8]
    assert "at most 5 positional arguments, got 6" in _unresolved("self.a = nn.Linear(4, 2, True, None, None, 1)")


def test_the_layers_keyword_only_arguments_are_the_installed_torchs():
    # torch 2.13's norms take `bias` after `*`: `nn.BatchNorm2d(c, bias=False)` (was refused: "no argument").
    found = {}
    for name, (sig, _) in LAYERS.items():
        cls = getattr(torch.nn, name, None)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:] if cls is not None else []
        listed = {n for n, _ in sig}  # LinearCrossEntropyLoss's table lists its keyword-only ones
        keyword_only = {p.name: p.default for p in params if p.kind == p.KEYWORD_ONLY and p.name not in listed
                        and p.name not in ("device", "dtype")}
        if keyword_only:
            found[name] = keyword_only
    assert KEYWORD_ONLY == found
    report = analyze_text(_model("self.a = nn.BatchNorm2d(4, bias=False)\nself.b = nn.GroupNorm(2, 4, bias=False)\n"
                                 "self.c = nn.InstanceNorm1d(4, affine=True, bias=False)"), "model.py")
    assert [m.tree.total for m in report.models] == [4 + 4 + 4]


def test_the_signatures_of_classes_without_parameters_are_the_installed_torchs():
    # `nn.GELU(inplace=True)` (mmcv's act_cfg of a ReLU given to GELU) is torch's TypeError.
    expected = {}
    for name in PARAMETERLESS - set(LAYERS):
        cls = getattr(torch.nn, name, None)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:] if cls is not None else None
        if params is None or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            continue
        words = []
        for p in params:
            if p.kind == p.KEYWORD_ONLY and "*" not in words:
                words.append("*")
            words.append(p.name + ("!" if p.default is p.empty else ""))
        expected[name] = " ".join(words)
    assert PARAMETERLESS_SIGNATURES == expected


def test_every_torch_nn_module_is_in_the_table():
    known = set(LAYERS) | PARAMETERLESS | set(CONTAINERS) | set(STACKS) | set(NOT_BUILT)
    missing = sorted(n for n in _torch_modules() if n not in known and not n.startswith("Lazy"))
    assert missing == []  # a new torch.nn class: its parameters, or PARAMETERLESS


def test_the_attributes_nn_module_gives_a_class_are_the_installed_torch_ones():
    # hasattr(cls, name) on a class of the project that derives from nn.Module answers from this.
    # In a fresh process: transformers, once imported by other tests, adds a method to nn.Module.
    code = "import json, torch.nn as nn; print(json.dumps(sorted(set(dir(nn.Module)) - set(dir(object)))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert MODULE_CLASS_ATTRIBUTES == set(json.loads(out))


def test_the_attributes_nn_module_init_sets_are_the_installed_torch_ones():
    # a name among them is taken: `nn.ModuleDict({"training": ...})` raises KeyError
    code = "import json, torch.nn as nn; print(json.dumps(sorted(vars(nn.Module()))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert MODULE_INSTANCE_ATTRIBUTES == set(json.loads(out))


def test_the_attributes_each_torch_nn_class_adds_are_the_installed_torchs():
    # `hasattr(nn.BatchNorm2d, "_abbr_")` (mmcv's infer_abbr) answers from this; in a fresh process, as above.
    code = ("import inspect, json, torch.nn as nn; base = set(dir(nn.Module)); print(json.dumps({n: ' '.join(sorted("
            "set(dir(c)) - base)) for n, c in vars(nn).items() if inspect.isclass(c) and issubclass(c, nn.Module) "
            "and n != 'Module' and set(dir(c)) - base}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert TORCH_CLASS_ATTRIBUTES == json.loads(out)


def test_where_torch_defines_its_module_classes_is_the_installed_torch():
    # `str(cls.__bases__)` writes torch's classes as Python does: `<class 'torch.nn.modules.linear.Linear'>`.
    assert TORCH_NN_MODULES == {name: cls.__module__ for name, cls in _torch_modules().items()}


def test_the_torch_classes_the_layers_derive_from_are_the_installed_torchs():
    # `isinstance(conv, nn.modules.conv._ConvNd)` answers from this (encodec's norm choice).
    layers = {n: c for n, c in _torch_modules().items() if n in set(LAYERS) | PARAMETERLESS | set(STACKS) | set(CONTAINERS)}
    derived: dict[str, set[str]] = {}
    for name, cls in layers.items():
        for base in cls.__mro__[1:]:
            if base.__module__.startswith("torch.nn") and base is not torch.nn.Module:
                derived.setdefault(base.__name__, set()).add(name)
    assert TORCH_SUBCLASSES == derived


def test_the_public_names_of_torch_nn_functional_are_the_installed_torch_ones():
    # `'silu' in dir(torch.nn.functional)` answers from this (timm chooses activation layers by it).
    assert FUNCTIONAL_NAMES == {n for n in dir(torch.nn.functional) if not n.startswith("_")}


def test_the_dtype_tables_are_torch_finfo_and_iinfo():
    for name, info in FINFO.items():
        found = torch.finfo(getattr(torch, name))
        assert info == {k: getattr(found, k) for k in info}, name
    for name, info in IINFO.items():
        found = torch.iinfo(getattr(torch, name))
        assert info == {k: getattr(found, k) for k in info}, name
    for alias, name in DTYPE_ALIASES.items():
        assert getattr(torch, alias) is getattr(torch, name)


def test_the_parameterless_ones_have_no_parameters():
    built = 0
    for name in sorted(PARAMETERLESS & set(_torch_modules())):
        cls = _torch_modules()[name]
        required = [p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                    if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        args = [2] * len(required)  # sizes, kernel sizes, dims, thresholds
        try:
            with torch.device("meta"):
                module = cls(*args)
        except (TypeError, ValueError, RuntimeError):
            continue  # needs arguments of other kinds; its own tests cover the common ones
        assert sum(p.numel() for p in module.parameters()) == 0, name
        built += 1
    assert built >= len(PARAMETERLESS) * 3 // 4


def _model(body: str) -> str:
    # Helpers from a package the analyser does not read stand for values it cannot know (on one line:
    # the messages' line numbers stay).
    return "import torch\nimport torch.nn as nn\nfrom torch.nn.utils import parametrizations, remove_weight_norm, weight_norm; " \
        "from model_helpers import load, load_size, load_vectors, make_layer\n\n\n" + \
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n" + \
        textwrap.indent(textwrap.dedent(body), " " * 8)


def _unresolved(body: str) -> str:
    report = analyze_text(_model(body), "model.py")
    assert not report.models
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    return problem.message


@pytest.mark.parametrize(("body", "reason"), [
    ("self.a = weight_norm(weight_norm(nn.Linear(4, 4)))", "`weight` has a weight_norm already (torch raises RuntimeError)"),
    ("self.a = nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 4)))", "has a spectral_norm already"),
    ("self.a = weight_norm(nn.Linear(4, 4), dim=2)", "dim 2 is out of range for a 2-dimensional parameter"),
    ("self.a = nn.Linear(4, 4)\nremove_weight_norm(self.a)", "`weight` has no weight_norm to remove"),
    ("self.a = weight_norm(nn.Linear(4, 4), name='scale')", "the module has no parameter `scale`"),
    ("self.a = parametrizations.weight_norm(nn.ReLU())", "the module has no parameter `weight`"),
    ("self.a = weight_norm(nn.Linear(4, 4), 'weight', 0, 1)", "nn.utils.weight_norm takes at most 3 positional"),
    ("self.a = weight_norm(4)", "`nn.utils.weight_norm` is given no module"),
    ("self.a = weight_norm(nn.LazyLinear(4))", "`nn.LazyLinear` sizes itself on the first forward pass"),
    ("self.a = nn.AdaptiveLogSoftmaxWithLoss(8, 100, [50, 10])", "cutoffs must be increasing"),
    ("self.a = nn.AdaptiveLogSoftmaxWithLoss(8, 100, [10], div_value=0)", "div_value is 0, not a positive number"),
    ("self.a = nn.AdaptiveLogSoftmaxWithLoss(8, 100, [10], div_value=nn)", "not a positive number"),
    ("self.a = nn.AdaptiveLogSoftmaxWithLoss(8, 100, [10, 20], div_value=1e300)", "makes no width torch could build"),
    ("self.a = nn.Embedding.from_pretrained(torch.zeros(3))", "the embeddings are 1-D; torch needs 2-D"),
    ("self.a = nn.Embedding.from_pretrained(load_vectors())", "the embeddings must be a 2-D tensor of known shape"),
    ("self.a = nn.Embedding.from_pretrained(torch.zeros(3, 4), True, 0)", "pass from_pretrained's options by name"),
    # Tensors: values and shapes the analyser does not know, and what torch would raise.
    ("self.a = nn.Linear(int(torch.randn(3).sum().item()), 2)", "in_features is unknown"),
    ("self.a = nn.Linear(int(torch.linspace(0, 1, 3)), 2)", "only a one-element tensor of known value"),
    ("self.a = nn.ModuleList([nn.Linear(2, 2) for x in torch.randn(())])", "raises TypeError: iteration over a 0-d tensor"),
    ("self.a = nn.Linear(int(torch.arange(3)[5]) + 1, 2)", "index out of range"),
    ("self.a = nn.Parameter(torch.zeros(4, 2).unfold(0, 2, 1))", "does not follow a tensor's `unfold`"),
    ("self.a = nn.Parameter(torch.zeros(4, 2).chunk(0)[0])", "chunk expects `chunks` to be greater than 0 (torch raises)"),
    ("self.a = nn.Parameter(torch.zeros(4, 2)[torch.ones(2)])", "does not follow this index into a tensor"),
    ("self.a = nn.Parameter(torch.zeros(4, 2).view(3, -1))", "shape [3, -1] is invalid for input of size 8 (torch raises)"),
    ("self.a = nn.Parameter(torch.zeros(4, 2)[0, 0, 0])", "too many indices for a tensor of 2 dimensions"),
    ("self.a = nn.Parameter(torch.zeros(4).unsqueeze_(0))", "does not follow a tensor's `unsqueeze_`"),
    ("self.a = nn.Parameter(torch.zeros(4, 3) @ torch.zeros(4, 3))", "mat1 and mat2 shapes cannot be multiplied"),
    ("self.a = nn.Parameter(torch.zeros(4) + torch.zeros(3))", "must match the size of tensor b (3)"),
    # map and filter call the code's functions:
    ("self.a = nn.ModuleList(map(lambda d: nn.Linear(d, 2)))", "map takes a function and iterables"),
    ("self.a = nn.ModuleList(filter(lambda d: load(d), [nn.Linear(2, 2)]))", "whether to keep an item depends on"),
    ("self.a = nn.Linear(4, 2) if callable(load()) else None",
     "the condition `callable(load())` (line 9) depends on `model_helpers.load`, which is outside this file"),
    # What fuzzing found raising inside the analyser:
    ("self.a = nn.Parameter(torch.arange())", "range expected at least 1 argument, got 0 (torch raises)"),
    ("self.a = nn.Parameter(torch.zeros(2).repeat(nn.Linear))", "a size is `torch.nn.Linear`, not an integer"),
    ("self.a = nn.Parameter(torch.zeros(2).view(len, 2))", "not an integer"),
    ("self.a = nn.Parameter(torch.arange(0, 4, 0))", "must not be zero (torch raises)"),
    ("self.a = nn.ModuleDict({'x': nn.Linear(2, 2)})[1:]", "no key slice(1, None, None)"),
    ("import functools\nself.a = functools.partial()", "partial needs the function it binds"),
])
def test_what_cannot_be_followed_says_why(body, reason):
    assert reason in _unresolved(body)


@pytest.mark.parametrize("body", [
    "import math\nself.a = nn.Linear(math.ceil(load_size()), 2)",
    "self.a = nn.ModuleList([nn.Linear(2, 2) for _ in range(max(1, load_size()))])",
    "import math\nself.a = nn.Linear(-math.log(load_size()), 2)",
])
def test_an_unknown_value_in_a_formula_gives_its_reason(body):
    # It showed the analyser's own object and no reason: "unresolved; parameters = 2·ceil(Unknown(why=...)) + 2".
    message = _unresolved(body)
    assert "`model_helpers.load_size`, which is outside this file" in message or \
        "`model_helpers.load_size` is outside this file" in message
    assert "Unknown(" not in message and "unresolved" not in message and "TypeError" not in message


def test_a_module_the_analyser_could_not_build_stays_unknown():
    message = _unresolved("self.a = weight_norm(make_layer())")
    assert "`a`" in message and "make_layer" in message


def test_linspace_values_are_torchs_to_the_last_bits():
    from lsp_count.pymodel.interp import _linspace

    for start, end, steps in [(0, 0.1, 12), (0, 0.2, 24), (-2, 0.3, 16), (0.5, 0.5, 3), (1, 0, 7), (0, 1, 1)]:
        want = torch.linspace(start, end, steps).tolist()
        got = _linspace(start, end, steps)
        assert len(got) == len(want) and got[0] == want[0] and got[-1] == want[-1]
        assert all(abs(a - b) <= 1e-7 * max(1.0, abs(b)) for a, b in zip(got, want))
    assert _linspace(0, "x", 3) is None and _linspace(0, 1, 10**6) is None


def test_the_element_sizes_and_dtype_names_are_torch_s() -> None:
    from lsp_count.pymodel.layers import DTYPE_ALIASES, ELEMENT_BYTES, FLOATING_DTYPES, dtype_name

    for name, size in ELEMENT_BYTES.items():
        dtype = getattr(torch, name)
        assert torch.empty(0, dtype=dtype).element_size() == size == dtype.itemsize, name
        assert (name in FLOATING_DTYPES) == dtype.is_floating_point, name
    for alias, name in DTYPE_ALIASES.items():
        assert getattr(torch, alias) is getattr(torch, name) and dtype_name(f"torch.{alias}") == name


def test_which_parameterless_classes_keep_a_weight_is_torch_s() -> None:
    from lsp_count.pymodel.layers import PARAMETERLESS, WEIGHTED_LOSSES

    checked = 0
    for name in sorted(PARAMETERLESS):
        cls = getattr(torch.nn, name)
        required = [p for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
                    if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
        for args, kwargs in (([2] * len(required), {}), ([(2,)] * len(required), {}), ([2], {"output_size": 2})):
            try:
                module = cls(*args, **kwargs)
                break
            except Exception:  # noqa: BLE001 - the next way to build it
                continue
        else:
            raise AssertionError(f"nn.{name} could not be built to check")
        assert (hasattr(module, "weight") or hasattr(module, "bias")) == (name in WEIGHTED_LOSSES), name
        checked += 1
    assert checked == len(PARAMETERLESS)


def test_the_functional_functions_taken_as_keeping_their_input_s_shape_do() -> None:
    from lsp_count.pymodel.interp import _FUNCTIONAL_SAME_SHAPE

    x = torch.randn(2, 4, 6)
    extra = {"layer_norm": ((6,),), "rms_norm": ((6,),), "group_norm": (2,), "threshold": (0.1, 0.0),
             "local_response_norm": (2,), "batch_norm": (torch.zeros(4), torch.ones(4))}
    for name in sorted(_FUNCTIONAL_SAME_SHAPE):
        fn = getattr(torch.nn.functional, name)
        kwargs = {"dim": -1} if name in ("softmax", "log_softmax", "softmin") else {}
        assert fn(x, *extra.get(name, ()), **kwargs).shape == x.shape, name
