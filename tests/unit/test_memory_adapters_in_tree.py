"""A LoRA YAML's tree already holds its adapters: they must not also be stored as base weights."""

from __future__ import annotations

import pathlib

from lsp_count.core.analyze import analyze_path
from lsp_count.core.memory import Settings, estimate_memory

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_weights_line_is_the_base_alone() -> None:
    yaml_model = analyze_path(str(ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml")).models[0]
    config_model = analyze_path(str(ROOT / "examples" / "llama-3-8b" / "config.json")).models[0]
    settings = Settings(mode="qlora", lora_rank=32, context=4096, batch=2, gradient_checkpointing=True)
    from_yaml = {line.name: line.bytes for line in estimate_memory(yaml_model, settings).lines}
    from_config = {line.name: line.bytes for line in estimate_memory(config_model, settings).lines}
    assert from_yaml["weights"] == from_config["weights"]
    assert from_yaml["adapters"] == 83_886_080 * 4
