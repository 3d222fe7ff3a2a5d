"""A base model counted from another config is reported at the line that names it."""

from __future__ import annotations

from lsp_count.check import main as check_main

YAML = """# fine-tune
base_model: meta-llama/Llama-3.1-70B
adapter: qlora
load_in_4bit: true
lora_r: 16
lora_target_linear: true
sequence_len: 4096
micro_batch_size: 1
"""


def test_budget_finding_points_at_base_model_not_at_catalog_lines(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.yaml").write_text(YAML)
    assert check_main(["--max-params", "7B", "train.yaml"]) == 1
    finding = capsys.readouterr().out.splitlines()[0]
    assert finding.startswith("train.yaml:2:13: LC202"), finding
    assert "num_hidden_layers ≤ 5 would fit" in finding
