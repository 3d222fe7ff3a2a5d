"""Parity for DeepSpeed's engine (shims/deepspeed.py): what the analysis reads of a config given to
``deepspeed.initialize`` (the ZeRO stage, an offload, the precision, the optimizer, the micro batch)
is what DeepSpeed's own DeepSpeedConfig reads of it, for configs hypothesis draws (each switch in the
forms DeepSpeed's pydantic models accept) and for configs people ship. The optimizer's states are
torch's own where the config names one of torch.optim's (the optimizer built and stepped here);
DeepSpeed's own optimizers need its compiled ops, so their states are stated: two fp32 moments for
its Adam, AdamW, LAMB and MuAdam(W), one for Lion and Adagrad.

deepspeed is read in a child process (deepspeed_runner.py), from the sidecar scripts/test.sh installs."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

pytestmark = pytest.mark.parity

SIDECAR = pathlib.Path(sys.prefix) / "deepspeed-sidecar"
RUNNER = pathlib.Path(__file__).with_name("deepspeed_runner.py")

SCRIPT = """
import deepspeed
import torch
from torch import nn

model = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 4))
data = torch.utils.data.TensorDataset(torch.randn(8, 16))
engine, optimizer, loader, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                    training_data=data, config={config!r})
for (x,) in loader:
    engine.backward(engine(x).sum())
    engine.step()
"""

# DeepSpeed's own optimizers (lower-cased, as DeepSpeedConfig names them) by their fp32 states.
_DEEPSPEED_STATES = {"adam": 2, "adamw": 2, "lamb": 2, "muadam": 2, "muadamw": 2, "lion": 1, "adagrad": 1}
_BY_STATES = {0: "sgd", 1: "sgd-momentum", 2: "adamw"}
_TORCH_NAMES = ["SGD", "RMSprop", "Adamax", "NAdam"]


def _torch_states(name: str, params: dict) -> int:
    """How many full-size states torch's optimizer keeps per parameter, once it has stepped."""
    weight = torch.nn.Parameter(torch.ones(3, 3))
    optimizer = getattr(torch.optim, name)([weight], **params)
    weight.grad = torch.ones(3, 3)
    optimizer.step()
    return sum(1 for v in optimizer.state[weight].values() if torch.is_tensor(v) and v.shape == weight.shape)


def _deepspeed_reads(configs: list[dict]) -> list[dict]:
    if not (SIDECAR / "deepspeed").is_dir():
        pytest.fail(f"deepspeed is not installed in {SIDECAR} (scripts/test.sh installs it)")
    out = subprocess.run([sys.executable, str(RUNNER), str(SIDECAR)], input=json.dumps(configs),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def _check(config: dict, read: dict) -> None:
    report = analyze_text(SCRIPT.format(config=config), "train.py", AnalyzeOptions())
    model = next(m for m in report.models if m.name == "model")
    notes = " ".join(model.tree.notes)
    name = read["optimizer"]
    if name is None:  # no optimizer: DeepSpeed's engine steps none, the model is not trained
        assert model.plan.get("mode") != "train", notes
        return
    assert model.plan.get("mode") == "train", (config, notes)
    states = _DEEPSPEED_STATES[name] if name in _DEEPSPEED_STATES else _torch_states(name, read["optimizer_params"])
    kind = _BY_STATES[states]
    if kind == "adamw" and read["dtype"] == "float32":
        kind = "adamw-fp32"  # (trained in float32: its states beside float32 weights, no master copy)
    assert model.plan.get("optimizer") == kind, (config, notes)
    assert model.plan.get("zero") == (read["stage"] or None), (config, notes)
    assert model.plan.get("dtype") == read["dtype"], (config, notes)
    # the micro batch where the config gives it (else it depends on the number of GPUs, not known)
    given = config.get("train_micro_batch_size_per_gpu")
    assert model.plan.get("batch") == given, (config, notes)
    if given is not None:
        assert read["micro"] == given
    assert ("its CPU offload not modelled" in notes) is read["offload"], (config, notes)


_FLAGS = st.sampled_from([True, False, 1, 0, "true", "false", "yes", "no", "on", "off"])
_SWITCH = st.fixed_dictionaries({"enabled": _FLAGS})
_OFFLOAD = st.fixed_dictionaries({"device": st.sampled_from(["cpu", "none"])})
_ZERO = st.one_of(st.booleans(), st.fixed_dictionaries({"stage": st.integers(0, 3)}, optional={
    "offload_optimizer": _OFFLOAD, "offload_param": _OFFLOAD}))
_OPTIMIZER = st.one_of(
    st.builds(lambda t: {"type": t, "params": {"lr": 1e-3}},
              st.sampled_from(["Adam", "AdamW", "adamw", "Lamb", "MuAdam", "MuAdamW", "Lion", "lion", "Adagrad",
                               "Adamax", "NAdam"])),
    st.builds(lambda t, m: {"type": t, "params": {"lr": 1e-3, "momentum": m}},
              st.sampled_from(["SGD", "RMSprop"]), st.sampled_from([0.0, 0.9])))


@st.composite
def configs(draw) -> dict:
    config: dict = {}
    micro = draw(st.none() | st.integers(1, 64))
    if micro is None:
        config["train_batch_size"] = draw(st.sampled_from([8, 32]))
    else:
        config["train_micro_batch_size_per_gpu"] = micro
    for key, values in (("zero_optimization", _ZERO), ("optimizer", _OPTIMIZER), ("bf16", _SWITCH),
                        ("bfloat16", _SWITCH), ("fp16", _SWITCH)):
        if draw(st.booleans()):
            config[key] = draw(values)
    return config


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(configs(), min_size=10, max_size=10))
def test_the_analysis_reads_a_config_as_deepspeed_does(drawn) -> None:
    reads = _deepspeed_reads(drawn)
    checked = 0
    for config, read in zip(drawn, reads):
        if "error" in read:
            continue  # (DeepSpeed refuses it: fp16 and bf16 both enabled)
        _check(config, read)
        checked += 1
    assert checked or all("cannot be simultaneously enabled" in r["error"] for r in reads), reads


# Configs as people ship them: transformers' DeepSpeed docs' ZeRO-2 and ZeRO-3 (their "auto" values
# filled), DeepSpeedExamples' CIFAR-10, and a Lion one with the deprecated `"zero_optimization": true`.
SHIPPED = [
    {"fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
              "hysteresis": 2, "min_loss_scale": 1},
     "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0}},
     "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                           "allgather_partitions": True, "allgather_bucket_size": 2e8, "overlap_comm": True,
                           "reduce_scatter": True, "reduce_bucket_size": 2e8, "contiguous_gradients": True},
     "gradient_accumulation_steps": 1, "gradient_clipping": 1.0, "train_micro_batch_size_per_gpu": 4},
    {"bf16": {"enabled": True},
     "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "weight_decay": 0.0}},
     "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True},
                           "offload_param": {"device": "cpu", "pin_memory": True}, "overlap_comm": True,
                           "contiguous_gradients": True, "sub_group_size": 1e9, "stage3_max_live_parameters": 1e9,
                           "stage3_gather_16bit_weights_on_model_save": True},
     "gradient_accumulation_steps": 2, "train_micro_batch_size_per_gpu": 2},
    {"train_batch_size": 16, "steps_per_print": 2000,
     "optimizer": {"type": "Adam", "params": {"lr": 0.001, "betas": [0.8, 0.999], "eps": 1e-8,
                                              "weight_decay": 3e-7}},
     "gradient_clipping": 1.0, "prescale_gradients": False, "bf16": {"enabled": False},
     "fp16": {"enabled": True, "fp16_master_weights_and_grads": False, "loss_scale": 0},
     "wall_clock_breakdown": False, "zero_optimization": {"stage": 0, "allgather_partitions": True,
                                                          "reduce_scatter": True, "overlap_comm": True}},
    {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8, "zero_optimization": True,
     "optimizer": {"type": "Lion", "params": {"lr": 1e-4, "betas": [0.9, 0.99], "weight_decay": 0.1}},
     "bf16": {"enabled": True}},
]


def test_shipped_configs_are_read_as_deepspeed_reads_them() -> None:
    reads = _deepspeed_reads(SHIPPED)
    for config, read in zip(SHIPPED, reads):
        assert "error" not in read, read
        _check(config, read)
