"""Parity: the hyperparameters the analyser reads off a torch layer (``conv.stride``,
``fc.in_features``, ``emb.padding_idx``) equal what torch keeps on the same layer, for random
constructor arguments, and the table names every plain value torch keeps."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel.layers import LAYER_ATTRIBUTES, LAYERS, bind, layer_attribute

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

small = st.integers(1, 6)
flag = st.booleans()


def _sizes(dims: int) -> st.SearchStrategy:
    return st.one_of(st.integers(1, 3), st.tuples(*[st.integers(1, 3)] * dims))


@st.composite
def conv_args(draw, dims: int, transposed: bool) -> dict:
    groups = draw(st.integers(1, 3))
    kwargs = dict(in_channels=groups * draw(small), out_channels=groups * draw(small), kernel_size=draw(_sizes(dims)),
                  stride=draw(_sizes(dims)), dilation=draw(_sizes(dims)), groups=groups, bias=draw(flag))
    if transposed:
        kwargs.update(padding=draw(_sizes(dims)), output_padding=0)
    else:
        padding = draw(st.one_of(_sizes(dims), st.sampled_from(["valid", "same"])))
        if padding == "same":
            kwargs["stride"] = 1
        kwargs.update(padding=padding, padding_mode=draw(st.sampled_from(["zeros", "reflect", "replicate", "circular"])))
    return kwargs


@st.composite
def embedding_args(draw, bag: bool) -> dict:
    n = draw(st.integers(1, 10))
    kwargs = dict(num_embeddings=n, embedding_dim=draw(small), padding_idx=draw(st.one_of(st.none(), st.integers(-n, n - 1))),
                  max_norm=draw(st.sampled_from([None, 1.0])), norm_type=draw(st.sampled_from([2.0, 1.0])),
                  scale_grad_by_freq=draw(flag), sparse=draw(flag))
    if bag:
        kwargs.update(mode=draw(st.sampled_from(["sum", "mean", "max"])), include_last_offset=draw(flag))
    return kwargs


@st.composite
def mha_args(draw) -> dict:
    heads = draw(st.integers(1, 4))
    return dict(embed_dim=heads * draw(small), num_heads=heads, dropout=draw(st.sampled_from([0.0, 0.1])),
                bias=draw(flag), add_bias_kv=draw(flag), add_zero_attn=draw(flag), batch_first=draw(flag),
                kdim=draw(st.one_of(st.none(), small)), vdim=draw(st.one_of(st.none(), small)))


@st.composite
def rnn_args(draw, layer: str) -> dict:
    hidden, layers = draw(st.integers(2, 6)), draw(st.integers(1, 3))
    kwargs = dict(input_size=draw(small), hidden_size=hidden, num_layers=layers, bias=draw(flag),
                  batch_first=draw(flag), dropout=draw(st.sampled_from([0, 0.5])) if layers > 1 else 0,
                  bidirectional=draw(flag))
    if layer == "RNN":
        kwargs["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    if layer in ("LSTM", "RNNBase"):
        kwargs["proj_size"] = draw(st.integers(0, hidden - 1))
    if layer == "RNNBase":  # what LSTM, GRU and RNN call with their mode; a projection for any mode
        kwargs["mode"] = draw(st.sampled_from(["LSTM", "GRU", "RNN_TANH", "RNN_RELU"]))
    return kwargs


@st.composite
def transformer_args(draw, layer: str) -> dict:
    heads = draw(st.integers(1, 2))
    kwargs = dict(d_model=heads * draw(st.integers(1, 3)), nhead=heads, dim_feedforward=draw(small),
                  dropout=draw(st.sampled_from([0.0, 0.1])), activation=draw(st.sampled_from(["relu", "gelu"])),
                  layer_norm_eps=draw(st.sampled_from([1e-5, 1e-6])), batch_first=draw(flag), norm_first=draw(flag),
                  bias=draw(flag))
    if layer == "Transformer":
        kwargs.update(num_encoder_layers=draw(st.integers(1, 2)), num_decoder_layers=draw(st.integers(1, 2)))
    return kwargs


@st.composite
def group_norm_args(draw) -> dict:
    groups = draw(st.integers(1, 4))
    return dict(num_groups=groups, num_channels=groups * draw(small), eps=draw(st.sampled_from([1e-5, 1e-6])),
                affine=draw(flag))


def _norm(draw_shape: st.SearchStrategy, **extra: st.SearchStrategy) -> st.SearchStrategy:
    return st.fixed_dictionaries({"normalized_shape": draw_shape, "elementwise_affine": flag, **extra})


_BN = st.fixed_dictionaries({"num_features": small, "eps": st.sampled_from([1e-5, 1e-3]), "momentum": st.sampled_from([0.1, None]),
                             "affine": flag, "track_running_stats": flag})
ARGUMENTS = {
    "Linear": st.fixed_dictionaries({"in_features": small, "out_features": small, "bias": flag}),
    "Bilinear": st.fixed_dictionaries({"in1_features": small, "in2_features": small, "out_features": small, "bias": flag}),
    "Embedding": embedding_args(False), "EmbeddingBag": embedding_args(True),
    **{f"Conv{d}d": conv_args(d, False) for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": conv_args(d, True) for d in (1, 2, 3)},
    **{name: _BN for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d",
                              "InstanceNorm2d", "InstanceNorm3d")},
    "LayerNorm": _norm(st.one_of(small, st.lists(small, min_size=1, max_size=3)), eps=st.sampled_from([1e-5, 1e-6]), bias=flag),
    "RMSNorm": _norm(st.one_of(small, st.tuples(small, small)), eps=st.sampled_from([None, 1e-6])),
    "GroupNorm": group_norm_args(),
    "PReLU": st.fixed_dictionaries({"num_parameters": small, "init": st.sampled_from([0.25, 0.1])}),
    "MultiheadAttention": mha_args(),
    "RNN": rnn_args("RNN"), "LSTM": rnn_args("LSTM"), "GRU": rnn_args("GRU"), "RNNBase": rnn_args("RNNBase"),
    "RNNCell": st.fixed_dictionaries({"input_size": small, "hidden_size": small, "bias": flag,
                                      "nonlinearity": st.sampled_from(["tanh", "relu"])}),
    "LSTMCell": st.fixed_dictionaries({"input_size": small, "hidden_size": small, "bias": flag}),
    "GRUCell": st.fixed_dictionaries({"input_size": small, "hidden_size": small, "bias": flag}),
    **{name: transformer_args(name) for name in ("TransformerEncoderLayer", "TransformerDecoderLayer", "Transformer")},
    **{f"MaxPool{d}d": st.fixed_dictionaries({"kernel_size": _sizes(d), "stride": st.one_of(st.none(), _sizes(d)),
                                              "padding": st.just(0), "dilation": _sizes(d), "return_indices": flag,
                                              "ceil_mode": flag}) for d in (1, 2, 3)},
    **{f"AvgPool{d}d": st.fixed_dictionaries({"kernel_size": _sizes(d), "stride": st.one_of(st.none(), _sizes(d)),
                                              "padding": st.just(0), "ceil_mode": flag, "count_include_pad": flag,
                                              **({"divisor_override": st.sampled_from([None, 2])} if d > 1 else {})})
       for d in (1, 2, 3)},
    **{f"AdaptiveAvgPool{d}d": st.fixed_dictionaries({"output_size": _sizes(d)}) for d in (1, 2, 3)},
    **{f"AdaptiveMaxPool{d}d": st.fixed_dictionaries({"output_size": _sizes(d), "return_indices": flag})
       for d in (1, 2, 3)},
}


def test_every_layer_with_attributes_has_arguments_here() -> None:
    assert set(ARGUMENTS) == set(LAYER_ATTRIBUTES) and set(LAYER_ATTRIBUTES) <= set(LAYERS)


def _torch_layer(name: str, kwargs: dict):
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        return getattr(torch.nn, name)(**kwargs)


def _plain_attributes(layer) -> set[str]:
    """The public values torch keeps on the layer that are not parameters, buffers or submodules
    (nor the slots of optional parameters, None when absent: MultiheadAttention's bias_k)."""
    slots = set(layer._parameters) | set(layer._buffers) | set(layer._modules)
    return {k for k, v in vars(layer).items() if not k.startswith("_") and k != "training" and k not in slots
            and not isinstance(v, torch.Tensor) and not (v is None and k in ("bias_k", "bias_v"))}


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_layer_attributes_equal_torch(name: str, data) -> None:
    kwargs = data.draw(ARGUMENTS[name])
    layer = _torch_layer(name, kwargs)
    bound = bind(name, LAYERS[name][0], (), kwargs)
    assert set(LAYER_ATTRIBUTES[name]) == _plain_attributes(layer)
    for attr in LAYER_ATTRIBUTES[name]:
        ours, theirs = layer_attribute(name, bound, attr), getattr(layer, attr)
        if attr == "activation":  # torch's function, the analyser's name of it
            assert ours.name == f"torch.nn.functional.{theirs.__name__}", (ours, theirs)
            continue
        assert ours == theirs and type(ours) is type(theirs), (attr, ours, theirs)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(kwargs=rnn_args("RNNBase"))
def test_rnn_base_counts_what_torch_builds_for_each_mode(kwargs: dict) -> None:
    from lsp_count.core.analyze import analyze_text

    call = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    report = analyze_text(f"import torch.nn as nn\n\nclass R(nn.Module):\n    def __init__(self):\n"
                          f"        super().__init__()\n        self.r = nn.RNNBase({call})\n", "r.py")
    layer = _torch_layer("RNNBase", kwargs)
    assert [m.tree.total for m in report.models] == [sum(p.numel() for p in layer.parameters())]


def test_the_public_names_the_layer_classes_add_are_the_installed_torchs() -> None:
    from lsp_count.pymodel.layers import LAYER_CLASS_NAMES, PARAMETERLESS

    module_names = set(dir(torch.nn.Module))
    added = {n for name in set(LAYERS) | set(PARAMETERLESS) if hasattr(torch.nn, name)
             for n in dir(getattr(torch.nn, name)) if not n.startswith("_")} - module_names
    assert LAYER_CLASS_NAMES == added


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_layer_lacks_exactly_the_attributes_torch_lacks(name: str, data) -> None:
    # `nn.init.zeros_(fc.weihgt)` and SAGAN's `try: getattr(module, "weight_u")` are torch's AttributeError.
    from lsp_count.pymodel.layers import no_such_layer_attribute

    layer = _torch_layer(name, data.draw(ARGUMENTS[name]))
    registered = {*layer._parameters, *layer._buffers, *layer._modules}
    for attr in dir(layer):
        if _set_on_torch_by_another_library(layer, attr):
            continue  # transformers' initialize_weights sets `nn.Module.smart_apply` once a model is built here
        assert not no_such_layer_attribute(name, attr, registered), attr
    for typo in ("weihgt", "weight_u", "in_feature", "bias_" + name.lower()):
        assert no_such_layer_attribute(name, typo, registered) == (not hasattr(layer, typo)), typo


def _set_on_torch_by_another_library(layer, attr: str) -> bool:
    """Whether a class attribute of the layer is a function another library put on torch's classes
    in this process (not torch's own, which the analyser's tables follow)."""
    for cls in type(layer).__mro__:
        if attr in vars(cls):
            module = getattr(vars(cls)[attr], "__module__", None) or "torch"
            return not module.startswith("torch")
    return False


# Names `hasattr` is asked about on a layer: its registered parameters and buffers (some None where
# absent), nn.Module's own attributes, methods of some classes only, hyperparameters and typos.
HASATTR_NAMES = ("weight", "bias", "running_mean", "running_var", "num_batches_tracked", "in_proj_weight", "in_proj_bias",
                 "q_proj_weight", "bias_k", "bias_ih", "bias_hh", "pos_weight", "reset_parameters",
                 "flatten_parameters", "reset_running_stats", "forward", "training", "_parameters", "in_features",
                 "all_weights", "weihgt")


def _hasattr_total(call: str) -> int:
    """What the analyser counts for a module whose one layer's width encodes hasattr(layer, n) for
    each name n, as bits."""
    from lsp_count.core.analyze import analyze_text

    bits = " + ".join(f"hasattr(layer, {n!r}) * {2 ** i}" for i, n in enumerate(HASATTR_NAMES))
    report = analyze_text(f"import torch\nimport torch.nn as nn\n\nclass R(nn.Module):\n    def __init__(self):\n"
                          f"        super().__init__()\n        layer = {call}\n"
                          f"        self.r = nn.Linear(1, 1 + {bits}, bias=False)\n", "r.py")
    (total,) = [m.tree.total for m in report.models]
    return total - 1


def _names_had(layer) -> list[str]:
    return [n for n in HASATTR_NAMES if hasattr(layer, n)]


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
@settings(max_examples=6, deadline=None, derandomize=True)
@given(data=st.data())
def test_hasattr_of_a_layer_is_torchs(name: str, data) -> None:
    # `nn.Linear(2, 2, bias=False)` has `bias` (None); a loss with no weight has `weight` (None).
    kwargs = data.draw(ARGUMENTS[name])
    got = _hasattr_total(f"nn.{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})")
    assert [n for i, n in enumerate(HASATTR_NAMES) if got >> i & 1] == _names_had(_torch_layer(name, kwargs)), kwargs


@pytest.mark.parametrize("call", ["nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(weight=torch.ones(3))", "nn.NLLLoss()",
                                  "nn.BCELoss()", "nn.BCEWithLogitsLoss()", "nn.BCEWithLogitsLoss(pos_weight=torch.ones(2))",
                                  "nn.MultiMarginLoss()", "nn.MultiLabelSoftMarginLoss()", "nn.MSELoss()", "nn.ReLU()",
                                  "nn.Dropout(0.1)", "nn.Identity()"])
def test_hasattr_of_a_loss_or_parameterless_layer_is_torchs(call: str) -> None:
    got = _hasattr_total(call)
    assert [n for i, n in enumerate(HASATTR_NAMES) if got >> i & 1] == _names_had(eval(call, {"nn": torch.nn, "torch": torch}))


_SLOT_ARGS = {"Bilinear": [4, 4, 2], "Linear": [4, 2], "GroupNorm": [2, 4], "MultiheadAttention": [4, 2],
              **{n: [4, 2] for n in ("RNNCell", "LSTMCell", "GRUCell")},
              **{f"Conv{t}{d}d": [4, 2, 1] for t in ("", "Transpose") for d in (1, 2, 3)}}


def test_the_slots_torch_registers_even_where_absent_are_the_tables() -> None:
    from lsp_count.pymodel.layers import REGISTERED_SLOTS

    for name, slots in REGISTERED_SLOTS.items():
        for kwargs in ({}, {"bias": False}, {"affine": False, "track_running_stats": False},
                       {"elementwise_affine": False}):
            try:
                with torch.device("meta"):
                    layer = getattr(torch.nn, name)(*_SLOT_ARGS.get(name, [4] if "Norm" in name else []), **kwargs)
            except TypeError:
                continue
            registered = {*layer._parameters, *layer._buffers}
            assert slots <= registered | {"bias_k", "bias_v"}, (name, kwargs)
            assert {n for n in registered if getattr(layer, n) is None} <= slots, (name, kwargs)
