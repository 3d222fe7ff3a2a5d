"""Parity for a training loop of the script's own: the precision the analysis reads from it (the
parameters' dtype, the code's autocast, Fabric's or Accelerate's precision, or none) gives the
memory of the states one step holds.
Each script runs in a child process with torch on the CPU for two steps; the bytes of its
parameters, their gradients and the optimizer's states must equal the estimate's exact lines
(weights + gradients + master weights + optimizer states), as the analysis of the same file
plans them. A mixed-precision run's float32 parameters and gradients are the estimate's 16-bit
weights, 16-bit gradients and float32 master copy in total (4 + 4 = 2 + 2 + 4 bytes a parameter)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_path
from lsp_count.core.memory import estimate_memory, settings_from_mapping

pytestmark = pytest.mark.parity

torch = pytest.importorskip("torch")

SCRIPT = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 24)
        self.hidden = nn.Linear(24, 48)
        self.norm = nn.LayerNorm(48)
        self.out = nn.Linear(48, 50, bias=False)

    def forward(self, ids):
        return self.out(self.norm(self.hidden(self.embed(ids)).relu()))


def main(steps=2):
    model = {build}
    optimizer = {optimizer}
    {setup}
    for _ in range(steps):
        ids = torch.randint(0, 50, (4, 8))
        {step}
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
    return model, optimizer


if __name__ == "__main__":
    main()
"""

PLAIN_STEP = "model(ids).float().logsumexp(-1).mean().backward()"
AUTOCAST_STEP = ("with {cast}:\n            loss = model(ids).float().logsumexp(-1).mean()\n"
                 "        loss.backward()")

FABRIC = ("from lightning.fabric import Fabric\n    fabric = Fabric(accelerator='cpu', devices=1, precision='{precision}')"
          "\n    model, optimizer = fabric.setup(model, optimizer)")
FABRIC_STEP = "fabric.backward(model(ids).float().logsumexp(-1).mean())"

CASES = {
    # float32 parameters, no autocast: float32 throughout
    "float32 AdamW": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)", PLAIN_STEP),
    "float32 SGD momentum": ("Net()", "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)", PLAIN_STEP),
    # bf16 parameters: trained in bf16, the states in bf16
    "bf16 parameters": ("Net().to(torch.bfloat16)", "torch.optim.AdamW(model.parameters(), lr=1e-3)", PLAIN_STEP),
    "half() parameters": ("Net().half()", "torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)", PLAIN_STEP),
    # float32 parameters under bf16 autocast (on the CPU here; "cuda" is the same to the analysis)
    "bf16 autocast": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)",
                      AUTOCAST_STEP.format(cast='torch.autocast(device_type="cpu", dtype=torch.bfloat16)')),
    "cpu.amp autocast": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)",
                         AUTOCAST_STEP.format(cast="torch.cpu.amp.autocast()")),
    # Lightning Fabric's and Accelerate's precision, run by them on the CPU
    "Fabric bf16-mixed": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)", FABRIC_STEP, FABRIC.format(
        precision="bf16-mixed")),
    "Fabric bf16-true": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)", FABRIC_STEP, FABRIC.format(
        precision="bf16-true")),
    "Accelerate bf16": ("Net()", "torch.optim.AdamW(model.parameters(), lr=1e-3)", FABRIC_STEP.replace(
        "fabric", "accelerator"), "from accelerate import Accelerator\n    accelerator = Accelerator(cpu=True, "
        "mixed_precision='bf16')\n    model, optimizer = accelerator.prepare(model, optimizer)"),
}

_HELD = textwrap.dedent("""
    import json, runpy, sys
    import torch
    names = runpy.run_path(sys.argv[1])
    model, optimizer = names["main"]()
    optimizer = getattr(optimizer, "optimizer", optimizer)  # (Fabric's and Accelerate's wrappers)
    params = list(model.parameters())
    held = sum(p.numel() * p.element_size() for p in params)
    held += sum(p.grad.numel() * p.grad.element_size() for p in params)
    held += sum(v.numel() * v.element_size() for p in params for v in optimizer.state[p].values()
                if torch.is_tensor(v) and v.dim() > 0)
    print(json.dumps(held))
""")


def _script(case: str) -> str:
    build, optimizer, step, *setup = CASES[case]
    return textwrap.dedent(SCRIPT).format(build=build, optimizer=optimizer, step=step, setup="".join(setup))


@pytest.mark.parametrize("case", list(CASES))
def test_a_loop_s_precision_gives_the_states_torch_holds(tmp_path, case) -> None:
    script = tmp_path / "train.py"
    script.write_text(_script(case))
    done = subprocess.run([sys.executable, "-c", _HELD, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    held = json.loads(done.stdout.strip().splitlines()[-1])

    (model,) = [m for m in analyze_path(str(script)).models if m.name == "model in main()"]
    assert "dtype" in model.plan, model.tree.notes  # the precision is read, not assumed
    memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
    states = [memory.line(name) for name in ("weights", "gradients", "master_weights", "optimizer_states")]
    assert all(line is None or line.exact for line in states)
    assert sum(line.bytes for line in states if line is not None) == held, (case, model.plan, memory.lines)


LIGHTNING_SCRIPT = """
import lightning as L
import torch
import torch.nn as nn


class LitNet(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 24)
        self.hidden = nn.Linear(24, 48)
        self.out = nn.Linear(48, 50, bias=False)

    def training_step(self, batch, batch_idx):
        (ids,) = batch
        return self.out(self.hidden(self.embed(ids)).relu()).float().logsumexp(-1).mean()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main(callbacks=()):
    model = LitNet()
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randint(0, 50, (16, 8))), batch_size=4)
    trainer = L.Trainer({precision}accelerator="cpu", devices=1, max_steps=2, logger=False, callbacks=list(callbacks),
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, data)
    return model


if __name__ == "__main__":
    main()
"""

# What one step holds, measured by Lightning itself before the second optimizer step (the first
# made the states): the parameters, their gradients and the optimizer's states.
_LIGHTNING_HELD = textwrap.dedent("""
    import json, runpy, sys, warnings
    warnings.simplefilter("ignore")
    import lightning as L
    import torch
    held = []

    class Measure(L.Callback):
        def on_before_optimizer_step(self, trainer, module, optimizer):
            if trainer.global_step == 1:
                params = list(module.parameters())
                held.append(sum(p.numel() * p.element_size() for p in params)
                            + sum(p.grad.numel() * p.grad.element_size() for p in params)
                            + sum(v.numel() * v.element_size() for p in params for v in optimizer.state[p].values()
                                  if torch.is_tensor(v) and v.dim() > 0))

    runpy.run_path(sys.argv[1])["main"]([Measure()])
    print(json.dumps(held[0]))
""")


@pytest.mark.parametrize("precision", [None, "32-true", "bf16-mixed", "bf16-true"])
def test_a_lightning_trainer_s_precision_gives_the_states_it_holds(tmp_path, precision) -> None:
    pytest.importorskip("lightning")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(LIGHTNING_SCRIPT).format(
        precision="" if precision is None else f"precision={precision!r}, "))
    done = subprocess.run([sys.executable, "-c", _LIGHTNING_HELD, str(script)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    held = json.loads(done.stdout.strip().splitlines()[-1])

    (model,) = [m for m in analyze_path(str(script)).models if m.name == "model in main()"]
    assert model.plan.get("dtype") == {None: "float32", "32-true": "float32", "bf16-mixed": "bfloat16",
                                       "bf16-true": "bfloat16"}[precision]
    memory = estimate_memory(model, settings_from_mapping({k: v for k, v in model.plan.items() if k != "spans"}))
    states = [memory.line(name) for name in ("weights", "gradients", "master_weights", "optimizer_states")]
    assert sum(line.bytes for line in states if line is not None) == held, (precision, model.plan, memory.lines)
