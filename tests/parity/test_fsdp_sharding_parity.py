"""Parity for a training loop's FSDP sharding: the ZeRO stage the analysis reads from an FSDP
wrapper's ``sharding_strategy`` or from FSDP2's ``fully_shard`` gives the gradients and optimizer
states one rank holds.
Each script runs on two CPU processes (gloo) with torch's own FSDP for two steps; the bytes of the
gradients and optimizer states rank 0 holds must equal the estimate's gradients and
optimizer-states lines over those 2 GPUs, as the analysis of the same file plans them. (The
weights are not compared: at rest both ZeRO-2 and ZeRO-3 hold a shard; ZeRO-2's whole weights are
those kept from the forward pass to the backward, a peak this measure does not see.)"""

from __future__ import annotations

import json
import socket
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
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy, fully_shard


def main():
    model = nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.Linear(64, 32))
{wrap}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(2):
        model(torch.randn(4, 64)).sum().backward()
        optimizer.step()
    return model, optimizer


if __name__ == "__main__":
    main()
"""

CASES = {
    "FSDP, its default (FULL_SHARD)": ("model = FSDP(model, device_id=torch.device('cpu'))", 3),
    "FSDP SHARD_GRAD_OP": ("model = FSDP(model, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP, "
                           "device_id=torch.device('cpu'))", 2),
    "FSDP NO_SHARD": ("model = FSDP(model, sharding_strategy=ShardingStrategy.NO_SHARD, device_id=torch.device('cpu'))",
                      0),
    "FSDP2 per layer, then the root": ("mesh = init_device_mesh('cpu', (2,))\nfor layer in model:\n"
                                       "    fully_shard(layer, mesh=mesh)\nfully_shard(model, mesh=mesh)", 3),
    "FSDP2 reshard_after_forward=False": ("mesh = init_device_mesh('cpu', (2,))\n"
                                          "fully_shard(model, mesh=mesh, reshard_after_forward=False)", 2),
}

# Two gloo processes run main(); rank 0 writes what it holds.
_HELD = textwrap.dedent("""
    import json, os, runpy, sys, warnings
    warnings.simplefilter("ignore")
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp

    def local(t):
        return t.to_local() if hasattr(t, "to_local") else t  # (FSDP2's DTensors: this rank's shard)

    def worker(rank, script, port, out):
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=str(rank), WORLD_SIZE="2")
        dist.init_process_group("gloo", rank=rank, world_size=2)
        model, optimizer = runpy.run_path(script)["main"]()
        params = list(model.parameters())
        held = sum(local(p.grad).numel() * local(p.grad).element_size() for p in params if p.grad is not None)
        held += sum(v.numel() * v.element_size() for p in params for v in map(local, optimizer.state[p].values())
                    if torch.is_tensor(v) and v.dim() > 0)
        if rank == 0:
            with open(out, "w") as handle:
                json.dump(held, handle)
        dist.barrier()  # (neither rank tears down while the other's collectives still run)
        dist.destroy_process_group()

    if __name__ == "__main__":
        mp.spawn(worker, args=tuple(sys.argv[1:]), nprocs=2)
""")


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


@pytest.mark.parametrize("case", list(CASES))
def test_fsdp_s_sharding_gives_what_a_rank_holds(tmp_path, case) -> None:
    wrap, stage = CASES[case]
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT).format(wrap=textwrap.indent(wrap, "    ")))
    runner = tmp_path / "run.py"
    runner.write_text(_HELD)
    out = tmp_path / "held.json"
    for _ in range(4):
        out.unlink(missing_ok=True)
        done = subprocess.run([sys.executable, str(runner), str(script), _free_port(), str(out)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        # (gloo's threads can abort a process as it exits, once in a while: "terminate called
        # without an active exception", twice in a row in one CI run of 2026-12-04. The run is made
        # again then, up to four times, and one must succeed; any other failure fails at once.)
        if done.returncode == 0 or "terminated with signal SIGABRT" not in done.stderr:
            break
    assert done.returncode == 0, done.stderr[-3000:]
    held = json.loads(out.read_text())

    (model,) = [m for m in analyze_path(str(script)).models if m.name == "model in main()"]
    notes = " ".join(model.tree.notes)
    assert model.plan.get("zero", 0) == stage, notes
    assert (f"sharded as ZeRO-{stage}" if stage else "the whole model on each device") in notes
    plan = {k: v for k, v in model.plan.items() if k != "spans"}
    memory = estimate_memory(model, settings_from_mapping({**plan, "gpus": 2}))
    assert memory.line("gradients").bytes + memory.line("optimizer_states").bytes == held, (case, plan, memory.lines)


def test_every_sharding_strategy_of_torch_s_has_its_stage() -> None:
    from torch.distributed.fsdp import ShardingStrategy

    from lsp_count.pymodel.interp import _SHARDING_STRATEGY_STAGES

    assert set(_SHARDING_STRATEGY_STAGES) == set(ShardingStrategy.__members__)
