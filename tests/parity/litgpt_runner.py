"""Builds LitGPT's models with the installed litgpt on the meta device and prints their counts
(a child process: litgpt is installed beside the test environment, ``<venv>/litgpt-sidecar``).

Input (stdin): a JSON list of jobs, each ``{"fields": {...} | null, "name": str | null, "lora": {...} | null}``:
``fields`` a Config's fields, or ``name`` one of litgpt.config.configs' names; ``lora`` litgpt.lora's
flags (lora_r, lora_query, ...). ``{"all": true}`` as the only job: every named config.
Output (stdout, last line): a JSON list of ``[fields, total, trainable]`` or ``[fields, "error", message]``."""

import dataclasses
import json
import sys

import torch

import litgpt.config
import litgpt.lora
from litgpt.model import GPT


def _fields(config) -> dict:
    return {k: v for k, v in dataclasses.asdict(config).items() if k not in ("hf_config",)}


def build(fields: dict, lora: dict | None):
    if lora is None:
        config = litgpt.config.Config(**fields)
        with torch.device("meta"):
            model = GPT(config)
    else:
        config = litgpt.lora.Config(**fields, **lora)
        with torch.device("meta"):
            model = litgpt.lora.GPT(config)
        litgpt.lora.mark_only_lora_as_trainable(model)
    params = list(model.parameters())
    return _fields(config), sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)


def main() -> None:
    jobs = json.load(sys.stdin)
    if jobs == [{"all": True}]:
        jobs = [{"fields": {k: v for k, v in c.items() if k != "hf_config"}, "lora": None}
                for c in litgpt.config.configs]
    out = []
    for job in jobs:
        fields = job["fields"] if job.get("fields") is not None else \
            {k: v for k, v in litgpt.config.name_to_config[job["name"]].items() if k != "hf_config"}
        try:
            out.append(list(build(fields, job.get("lora"))))
        except (AssertionError, ValueError, NotImplementedError, TypeError) as exc:
            out.append([fields, "error", f"{type(exc).__name__}: {exc}"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
