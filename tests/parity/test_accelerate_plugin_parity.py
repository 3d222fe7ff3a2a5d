"""Parity for accelerate's sharding plugins (shims/accelerate.py): the ZeRO stage the analysis
shards a model that ``accelerator.prepare`` takes as, under ``Accelerator(fsdp_plugin=...)`` or
``Accelerator(deepspeed_plugin=...)``, is the one accelerate's own plugin configures for the same
arguments (its FSDP sharding strategy, FSDP2's ``reshard_after_forward``, its DeepSpeed config's
ZeRO stage), and an offload it configures is said. Both plugins are built here, on the CPU, with
no ``accelerate launch`` environment (its FSDP_* / ACCELERATE_* variables unset)."""

from __future__ import annotations

import os
import textwrap
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

pytestmark = pytest.mark.parity

accelerate_utils = pytest.importorskip("accelerate.utils")
from torch.distributed.fsdp import ShardingStrategy  # noqa: E402

SCRIPT = """
import torch
from torch import nn
from torch.distributed.fsdp import ShardingStrategy
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin, FullyShardedDataParallelPlugin

model = nn.Sequential(nn.Linear(32, 32), nn.Linear(32, 4))
optimizer = torch.optim.AdamW(model.parameters())
accelerator = Accelerator({plugin})
model, optimizer = accelerator.prepare(model, optimizer)
"""

# torch's FSDP sharding strategies as the ZeRO stage whose memory they hold per device
_STAGES = {"FULL_SHARD": 3, "SHARD_GRAD_OP": 2, "NO_SHARD": 0, "HYBRID_SHARD": 3, "_HYBRID_SHARD_ZERO2": 2}


@pytest.fixture(autouse=True)
def no_launcher_environment(monkeypatch):
    for name in list(os.environ):
        if name.startswith(("FSDP_", "ACCELERATE_")):
            monkeypatch.delenv(name)


def _plan(plugin: str):
    report = analyze_text(textwrap.dedent(SCRIPT).format(plugin=plugin), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    return model.plan, " ".join(model.tree.notes)


def _call(name: str, kwargs: dict) -> str:
    return f"{name}(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"


_STRATEGY = st.sampled_from(["'full_shard'", "'SHARD_GRAD_OP'", "'No_Shard'", "'hybrid_shard'", "'HYBRID_SHARD_ZERO2'",
                             "1", "2", "3", "4", "5", "'2'", *(f"ShardingStrategy.{s.name}" for s in ShardingStrategy)])


@st.composite
def fsdp_arguments(draw) -> dict:
    kwargs: dict = {}
    version = draw(st.sampled_from([None, 1, 2]))
    if version is not None:
        kwargs["fsdp_version"] = str(version)
    if version == 2:
        reshard = draw(st.sampled_from([None, "True", "False", "'false'", "'true'"]))
        if reshard is not None:
            kwargs["reshard_after_forward"] = reshard
    elif draw(st.booleans()):
        kwargs["sharding_strategy"] = draw(_STRATEGY)
    offload = draw(st.sampled_from([None, "True", "False"]))
    if offload is not None:
        kwargs["cpu_offload"] = offload
    return kwargs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fsdp_arguments())
def test_an_fsdp_plugin_shards_as_accelerate_configures_it(kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = eval(_call("FullyShardedDataParallelPlugin", kwargs),  # noqa: S307 - the test's own arguments
                    {"FullyShardedDataParallelPlugin": accelerate_utils.FullyShardedDataParallelPlugin,
                     "ShardingStrategy": ShardingStrategy})
    if made.fsdp_version == 2:
        stage = 3 if made.reshard_after_forward else 2
        offload = type(made.cpu_offload).__name__ == "CPUOffloadPolicy"
    else:
        # (an int is kept as given, torch's ShardingStrategy value, which FSDP takes)
        strategy = made.sharding_strategy
        stage = _STAGES[(ShardingStrategy(strategy) if isinstance(strategy, int) else strategy).name]
        offload = made.cpu_offload.offload_params
    plan, notes = _plan("fsdp_plugin=" + _call("FullyShardedDataParallelPlugin", kwargs))
    assert plan.get("zero", 0) == stage, (kwargs, notes)
    assert ("sharded as ZeRO-" in notes) is (stage > 0) and "accelerate's FSDP" in notes, notes
    assert ("CPU offload not modelled" in notes) is offload, (kwargs, notes)


@st.composite
def deepspeed_arguments(draw) -> dict:
    kwargs: dict = {}
    if draw(st.booleans()):
        kwargs["zero_stage"] = str(draw(st.integers(0, 3)))
    for key in ("offload_optimizer_device", "offload_param_device"):
        if draw(st.booleans()):
            kwargs[key] = repr(draw(st.sampled_from(["cpu", "none"])))
    if draw(st.booleans()):
        zero = {"stage": draw(st.sampled_from([0, 1, 2, 3, "auto"]))}
        if draw(st.booleans()):
            zero["offload_param"] = {"device": draw(st.sampled_from(["cpu", "none"]))}
        kwargs["hf_ds_config"] = repr({"zero_optimization": zero, "train_micro_batch_size_per_gpu": "auto"})
    return kwargs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(deepspeed_arguments())
def test_a_deepspeed_plugin_shards_as_accelerate_configures_it(kwargs) -> None:
    made = eval(_call("DeepSpeedPlugin", kwargs), {"DeepSpeedPlugin": accelerate_utils.DeepSpeedPlugin})  # noqa: S307
    zero = made.deepspeed_config["zero_optimization"]
    offload = any(isinstance(zero.get(k), dict) and zero[k].get("device", "none") != "none"
                  for k in ("offload_optimizer", "offload_param"))
    plan, notes = _plan("deepspeed_plugin=" + _call("DeepSpeedPlugin", kwargs))
    assert plan.get("zero", 0) == zero["stage"], (kwargs, notes)
    assert "accelerate's DeepSpeed plugin" in notes, notes
    assert ("CPU offload not modelled" in notes) is offload, (kwargs, zero, notes)


def test_without_a_plugin_nothing_is_sharded() -> None:
    plan, notes = _plan("mixed_precision='bf16'")
    assert "zero" not in plan and "plugin" not in notes, notes


# accelerate's no_trainer examples pick the optimizer by what the DeepSpeed plugin's config holds.
NO_TRAINER_SCRIPT = """
import torch
from torch import nn
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin, DummyOptim

model = nn.Sequential(nn.Linear(32, 32), nn.Linear(32, 4))
accelerator = Accelerator({plugin})
optimizer_cls = (
    torch.optim.AdamW
    if accelerator.state.deepspeed_plugin is None
    or "optimizer" not in accelerator.state.deepspeed_plugin.deepspeed_config
    else DummyOptim
)
optimizer = optimizer_cls(model.parameters(), lr=1e-3)
model, optimizer = accelerator.prepare(model, optimizer)
"""


@st.composite
def no_trainer_plugins(draw) -> dict | None:
    kwargs = draw(st.one_of(st.none(), deepspeed_arguments()))
    if kwargs is not None and "hf_ds_config" in kwargs and draw(st.booleans()):
        config = eval(kwargs["hf_ds_config"])  # noqa: S307 - the strategy's own literal
        config["optimizer"] = {"type": draw(st.sampled_from(["Adam", "AdamW", "Lion", "SGD"])), "params": {"lr": "auto"}}
        kwargs["hf_ds_config"] = repr(config)
    return kwargs


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(no_trainer_plugins())
def test_a_script_picks_the_optimizer_as_the_deepspeed_plugins_config_says(kwargs) -> None:
    # accelerate's own plugin says whether its config names an optimizer; where it does, the script's
    # DummyOptim is DeepSpeed's optimizer of that type, made at `prepare`; else torch's AdamW trains it.
    named = None
    if kwargs is not None:
        made = eval(_call("DeepSpeedPlugin", kwargs), {"DeepSpeedPlugin": accelerate_utils.DeepSpeedPlugin})  # noqa: S307
        optimizer = made.deepspeed_config.get("optimizer")
        named = optimizer["type"] if optimizer is not None else None
    plugin = "" if kwargs is None else "deepspeed_plugin=" + _call("DeepSpeedPlugin", kwargs)
    report = analyze_text(textwrap.dedent(NO_TRAINER_SCRIPT).format(plugin=plugin), "train.py", AnalyzeOptions())
    assert not report.problems, [p.message for p in report.problems]
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    assert model.plan["mode"] == "train", notes
    if named is None:
        assert "the script builds `torch.optim.AdamW`" in notes, (kwargs, notes)
    elif named == "SGD":  # (not one of DeepSpeed's own: torch's, as DeepSpeed makes it)
        assert "`torch.optim.SGD`" in notes and model.plan["optimizer"] == "sgd", (kwargs, notes)
    else:
        assert f"DeepSpeed makes its config's optimizer `{named}`" in notes, (kwargs, notes)
