"""Parity for a Trainer's FSDP settings: transformers' own TrainingArguments, built in a child
process, turns each ``fsdp`` / ``fsdp_config`` into accelerate's FSDP plugin arguments; the ZeRO
stage whose memory the analysis estimates for the same script is the one that sharding holds:
parameters resharded after forward (FSDP2's ``reshard_after_forward: True``, FSDP1's full and hybrid
sharding) are ZeRO-3's, parameters kept whole until backward (``False``, ``shard_grad_op``) ZeRO-2's,
``no_shard`` nothing sharded. A DeepSpeed dict's stage is read as written (deepspeed is not installed
here: unit tests), a DeepSpeed file is said not read."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_text

pytestmark = pytest.mark.parity

pytest.importorskip("transformers")
pytest.importorskip("accelerate")

SPECS = [
    'fsdp="full_shard auto_wrap"',
    "fsdp=True",
    'fsdp=["full_shard", "offload"]',
    'fsdp="shard_grad_op"',
    'fsdp=True, fsdp_config={"reshard_after_forward": False}',
    'fsdp="hybrid_shard", fsdp_config={"version": 1}',
    'fsdp="hybrid_shard_zero2", fsdp_config={"version": 1}',
    'fsdp="no_shard", fsdp_config={"version": 1}',
]
# accelerate's resharding (FSDP2's bool, FSDP1's strategy name) as the ZeRO stage whose memory it holds
_STAGE = {True: 3, False: 2, "full_shard": 3, "hybrid_shard": 3, "shard_grad_op": 2, "hybrid_shard_zero2": 2,
          "no_shard": 0}

_REAL = textwrap.dedent("""
    import json, sys, warnings
    warnings.filterwarnings("ignore")
    from transformers import TrainingArguments
    out = {}
    for spec in json.loads(sys.argv[1]):
        args = eval(f"TrainingArguments(output_dir='out', use_cpu=True, report_to=[], {spec})")
        out[spec] = args.fsdp_plugin_args.get("reshard_after_forward", args.fsdp_plugin_args.get("sharding_strategy"))
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def resharding():
    done = subprocess.run([sys.executable, "-c", _REAL, json.dumps(SPECS)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("spec", SPECS)
def test_a_trainer_s_fsdp_is_the_zero_stage_of_its_sharding(resharding, spec):
    report = analyze_text(textwrap.dedent(f"""
        import torch.nn as nn
        from transformers import Trainer, TrainingArguments

        model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
        trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", {spec}))
    """), "train.py")
    (model,) = report.models
    real = resharding[spec]
    assert model.plan["zero"] == _STAGE[real.lower() if isinstance(real, str) else real]
    offloaded = "offload" in spec
    assert any(("CPU offload not modelled" in note) is offloaded for note in model.tree.notes if "FSDP" in note)
