"""Parity for Lightning's strategies (shims/lightning_trainer.py): the ZeRO stage the analysis
shards a `Trainer.fit`'s training as is the one Lightning's own strategy registry configures for
each registered name (FSDP's sharding strategy, DeepSpeed's stage, DDP's none), and a strategy
object's is the one its arguments give; the devices are the world size Lightning's Trainer makes.
FSDP and DeepSpeed need a GPU (and deepspeed) to build, so their registry entries are read, not
run."""

from __future__ import annotations

import inspect
import textwrap
import warnings

import pytest
import torch

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

pytestmark = pytest.mark.parity

L = pytest.importorskip("lightning")
strategies = pytest.importorskip("lightning.pytorch.strategies")

SCRIPT = """
import lightning as L
import torch
from torch import nn
from lightning.pytorch.strategies import DDPStrategy, DeepSpeedStrategy, FSDPStrategy


class Lit(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 32), nn.Linear(32, 4))

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    model = Lit()
    trainer = L.Trainer({arguments})
    trainer.fit(model)
"""

# FSDP's sharding strategies as the ZeRO stage whose memory they hold per device.
_FSDP = {"FULL_SHARD": 3, "HYBRID_SHARD": 3, "SHARD_GRAD_OP": 2, "_HYBRID_SHARD_ZERO2": 2, "NO_SHARD": 0}


def _default(cls, name):
    return inspect.signature(cls.__init__).parameters[name].default


def _registered() -> dict[str, tuple[int, bool]]:
    """Lightning's registered DDP / FSDP / DeepSpeed strategies: (the ZeRO stage, whether it offloads)."""
    found = {}
    for name in strategies.StrategyRegistry.available_strategies():
        entry = strategies.StrategyRegistry[name]
        cls, params = entry["strategy"], entry["init_params"]
        if issubclass(cls, strategies.XLAStrategy):
            continue  # (TPUs' DDP: not a GPU's memory)
        if issubclass(cls, strategies.FSDPStrategy):
            found[name] = (_FSDP[params.get("sharding_strategy", _default(cls, "sharding_strategy"))],
                           bool(params.get("cpu_offload")))
        elif issubclass(cls, strategies.DeepSpeedStrategy):
            found[name] = (params.get("stage", _default(cls, "stage")),
                           bool(params.get("offload_optimizer") or params.get("offload_parameters")))
        elif issubclass(cls, strategies.DDPStrategy):
            found[name] = (0, False)
    return found


def _plan(arguments: str):
    return _plan_with(arguments, "")


def _plan_with(arguments: str, imports: str):
    report = analyze_text(imports + textwrap.dedent(SCRIPT).format(arguments=arguments), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    return model.plan, " ".join(model.tree.notes)


def test_the_registry_has_the_strategies_people_name() -> None:
    assert {"ddp", "fsdp", "deepspeed", "deepspeed_stage_2", "deepspeed_stage_3_offload"} <= set(_registered())


@pytest.mark.parametrize("name", sorted(_registered()))
def test_a_registered_strategy_shards_as_lightning_configures_it(name) -> None:
    stage, offload = _registered()[name]
    plan, notes = _plan(f"strategy={name!r}, devices=8")
    assert plan.get("zero", 0) == stage, notes
    assert plan.get("gpus") == 8
    assert (f"sharded as ZeRO-{stage} over its 8 devices" if stage else "the whole model on each device") in notes
    assert ("CPU offload not modelled" in notes) is offload


@pytest.mark.parametrize(("strategy", "stage"), [
    *[(f"FSDPStrategy(sharding_strategy={s!r})", _FSDP[s]) for s in ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD",
                                                                      "HYBRID_SHARD")],
    ("FSDPStrategy()", _FSDP[_default(strategies.FSDPStrategy, "sharding_strategy")]),
    *[(f"DeepSpeedStrategy(stage={k})", k) for k in (1, 2, 3)],
    ("DeepSpeedStrategy()", _default(strategies.DeepSpeedStrategy, "stage")),
    ("DDPStrategy(find_unused_parameters=True)", 0),
])
def test_a_strategy_object_shards_as_its_arguments_say(strategy, stage) -> None:
    plan, notes = _plan(f"strategy={strategy}, devices=2")
    assert plan.get("zero", 0) == stage, notes


@pytest.mark.parametrize(("devices", "num_nodes"), [(3, 2), (1, 1), (4, 1)])
def test_the_devices_are_the_world_size_lightning_makes(devices, num_nodes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = L.Trainer(accelerator="cpu", strategy="ddp", devices=devices, num_nodes=num_nodes, logger=False)
    plan, notes = _plan(f"strategy='ddp', devices={devices}, num_nodes={num_nodes}")
    assert plan.get("gpus") == trainer.world_size, notes


@pytest.mark.parametrize("arguments", ["", "strategy='auto', devices=4", "strategy='fsdp', devices='auto'",
                                       "strategy='fsdp', devices=-1", "strategy=some_strategy()"])
def test_a_strategy_or_devices_not_known_are_not_guessed(arguments) -> None:
    plan, notes = _plan(arguments.replace("some_strategy()", "__import__('os').environ['STRATEGY']"))
    assert "gpus" not in plan, notes
    if "fsdp" in arguments:
        assert plan.get("zero") == 3 and "--gpus sets how many" in notes
    else:
        assert "zero" not in plan and "Lightning's strategy" not in notes


@pytest.mark.parametrize("given", ["'shard_grad_op'", "'Hybrid_Shard'", "ShardingStrategy.SHARD_GRAD_OP",
                                   "ShardingStrategy.NO_SHARD", "ShardingStrategy.FULL_SHARD"])
def test_an_fsdp_strategy_s_sharding_is_the_one_lightning_makes_of_it(given) -> None:
    from torch.distributed.fsdp import ShardingStrategy

    # (a wrap policy: Lightning refuses a hybrid sharding without one)
    made = strategies.FSDPStrategy(sharding_strategy=eval(given, {"ShardingStrategy": ShardingStrategy}),
                                   auto_wrap_policy={torch.nn.Linear})
    plan, notes = _plan_with(f"strategy=FSDPStrategy(sharding_strategy={given}, auto_wrap_policy={{nn.Linear}}), "
                             f"devices=2", "from torch.distributed.fsdp import ShardingStrategy")
    assert plan.get("zero", 0) == _FSDP[made.sharding_strategy.name], notes


@pytest.mark.parametrize(("config", "stage", "offload"), [
    ({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}}, 3, True),
    ({"zero_optimization": {"stage": 1}}, 1, False),
    ({"train_micro_batch_size_per_gpu": 1}, 0, False),  # (no ZeRO section: DeepSpeed's default, none)
])
def test_a_deepspeed_strategy_s_own_config_gives_its_stage(config, stage, offload) -> None:
    plan, notes = _plan(f"strategy=DeepSpeedStrategy(config={config!r}), devices=2")
    assert plan.get("zero", 0) == stage, notes
    assert ("CPU offload not modelled" in notes) is offload


def test_a_deepspeed_strategy_without_zero_shards_nothing() -> None:
    plan, notes = _plan("strategy=DeepSpeedStrategy(zero_optimization=False, stage=3), devices=2")
    assert "zero" not in plan and "the whole model on each device" in notes, notes
