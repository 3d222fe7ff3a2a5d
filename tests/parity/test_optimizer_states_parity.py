"""Parity for the optimizer states the memory model charges: each torch optimizer, with the options
that add a state and without, takes one step on the CPU, and the bytes of the full-size states it
then holds are what ``optimizer_state_bytes`` charges for the kind ``torch_optimizer_kind`` names.
transformers' ``optim`` names (with ``optim_args``) against the class and options its trainer picks."""

from __future__ import annotations

import pytest

from lsp_count.core.memory import TORCH_OPTIMIZER_STATES, optimizer_state_bytes, torch_optimizer_kind
from lsp_count.formats.common import optimizer_name

pytestmark = pytest.mark.parity

torch = pytest.importorskip("torch")

CASES = [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}), ("SGD", {"momentum": 0}),
    ("Adam", {}), ("AdamW", {}), ("AdamW", {"amsgrad": True}), ("NAdam", {}), ("RAdam", {}), ("Adamax", {}),
    ("Adadelta", {}), ("Rprop", {}), ("RMSprop", {}), ("RMSprop", {"momentum": 0.9}), ("RMSprop", {"centered": True}),
    ("RMSprop", {"momentum": 0.5, "centered": True}), ("Adagrad", {}), ("ASGD", {}), ("SparseAdam", {}),
]


def _state_bytes_after_a_step(name: str, options: dict, dtype=None) -> tuple[int, list[int]]:
    """(bytes of the per-parameter states, the parameters' sizes): step counters (0-d) left out."""
    torch.manual_seed(0)
    dtype = dtype or torch.float32
    sparse = name == "SparseAdam"  # it takes sparse gradients only
    model = torch.nn.Embedding(40, 6, sparse=True) if sparse else torch.nn.Sequential(
        torch.nn.Linear(6, 5), torch.nn.LayerNorm(5), torch.nn.Linear(5, 3, bias=False))
    model = model.to(dtype)
    params = list(model.parameters())
    optimizer = getattr(torch.optim, name)(params, lr=1e-2, **options)
    inputs = torch.randint(0, 40, (4,)) if sparse else torch.randn(4, 6, dtype=dtype)
    model(inputs).pow(2).sum().backward()
    optimizer.step()
    held = sum(v.numel() * v.element_size() for p in params for v in optimizer.state[p].values()
               if torch.is_tensor(v) and v.dim() > 0)
    return held, [p.numel() for p in params]


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_the_states_charged_are_those_torch_keeps(name, options) -> None:
    _assert_charged_as_held(name, options, torch_optimizer_kind(name, options))


def _assert_charged_as_held(name: str, options: dict, kind: str | None, dtype=None) -> None:
    held, sizes = _state_bytes_after_a_step(name, options, dtype)
    element = 2 if dtype == torch.bfloat16 else 4
    if kind is None:  # three states (amsgrad's maximum, RMSprop's momentum and centred): not modelled, said so
        assert held == 3 * element * sum(sizes)
    else:
        assert held == sum(optimizer_state_bytes(n, kind, element) for n in sizes), (name, options, kind)


@pytest.mark.parametrize(("name", "options"), [c for c in CASES if c[0] != "SparseAdam"],
                         ids=[f"{n}-{o}" for n, o in CASES if n != "SparseAdam"])
def test_a_pure_bf16_run_s_states_are_bf16(name, options) -> None:
    # torchtune's recipes and LitGPT's "bf16-true" train bf16 parameters: torch keeps their states
    # in the parameters' dtype (--pure-precision: 2 bytes per state element).
    _assert_charged_as_held(name, options, torch_optimizer_kind(name, options), torch.bfloat16)


def test_every_optimizer_in_the_table_is_torch_s() -> None:
    names = {n.lower(): n for n in dir(torch.optim) if isinstance(getattr(torch.optim, n), type)}
    assert set(TORCH_OPTIMIZER_STATES) <= set(names)
    assert {names[n] for n in TORCH_OPTIMIZER_STATES} == {n for n, _ in CASES}


HF_CASES = [
    ("sgd", None), ("sgd", "momentum=0.9"), ("sgd", "momentum=0.9,nesterov=True"), ("sgd", "dampening=0.1"),
    ("adagrad", None), ("rmsprop", None), ("rmsprop", "momentum=0.9"), ("rmsprop", "centered=true"),
    ("rmsprop", "momentum=0.9, centered=True"), ("adamw_torch", None), ("adamw_torch_fused", None),
]


@pytest.mark.parametrize(("optim", "optim_args"), HF_CASES)
def test_transformers_optim_names_keep_the_states_of_the_optimizer_its_trainer_builds(optim, optim_args, tmp_path) -> None:
    transformers = pytest.importorskip("transformers")
    args = transformers.TrainingArguments(output_dir=str(tmp_path), optim=optim, optim_args=optim_args, use_cpu=True)
    cls, kwargs = transformers.Trainer.get_optimizer_cls_and_kwargs(args)
    assert cls.__module__.startswith("torch.optim")
    kind = optimizer_name(optim, optim_args)
    assert kind == torch_optimizer_kind(cls.__name__, kwargs)
    _assert_charged_as_held(cls.__name__, {k: v for k, v in kwargs.items() if k not in ("lr", "fused")}, kind)
