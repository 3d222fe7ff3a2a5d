"""The summary hover's workload rows (inference, LoRA, QLoRA, full fine-tune): each row is its own
workload under the document's settings, its base's dtype the workload's own where the document's is
the other side's (a QLoRA plan's nf4-dq is not the LoRA row's base)."""

from __future__ import annotations

import pathlib

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import Settings
from lsp_count.lsp.view import Rules, view_model, workload

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_a_qlora_plan_s_rows_are_four_workloads() -> None:
    path = ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml"
    (model,) = analyze_text(path.read_text(), str(path)).models
    assert model.plan["mode"] == "qlora" and model.plan["dtype"] == "nf4-dq"
    view = view_model(model, Rules(None, {}, None), detailed=True)
    rows = {mode: report for mode, report in view.modes.items()}
    assert rows["qlora"] is view.memory and rows["qlora"].dtype == "nf4-dq"
    # LoRA's and a full fine-tune's base is 16-bit; inference keeps the document's 4-bit weights.
    assert rows["lora"].dtype == rows["train"].dtype == "bfloat16"
    assert rows["inference"].dtype == "nf4-dq"
    assert rows["qlora"].total_bytes < rows["lora"].total_bytes  # was equal: both had the 4-bit base


def test_a_row_keeps_the_dtype_of_its_own_side() -> None:
    assert workload(Settings(mode="train", dtype="float32"), "lora").dtype == "float32"
    assert workload(Settings(mode="train", dtype="float32"), "qlora").dtype is None  # (nf4-dq, QLoRA's default)
    assert workload(Settings(mode="qlora", dtype="int8"), "qlora").dtype == "int8"
    assert workload(Settings(mode="qlora", dtype="nf4"), "train").dtype is None
    assert workload(Settings(mode="lora", dtype=None), "qlora").dtype is None
