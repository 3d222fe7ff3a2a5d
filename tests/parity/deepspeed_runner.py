"""Runs in a child process for test_deepspeed_config_parity.py: DeepSpeed's own reading of each
config (its DeepSpeedConfig, as deepspeed.initialize makes it on one process).

deepspeed is installed apart from the test environment (scripts/test.sh puts it in
``<venv>/deepspeed-sidecar``, built with none of its ops): importing it sets up its accelerator and
logging, which the test process should not carry.

Usage: python deepspeed_runner.py SIDECAR < configs.json   (a JSON list of config dicts)
Prints a JSON list with, for each config, {"stage", "offload", "dtype", "optimizer", "micro"} or
{"error": message} where DeepSpeed refuses it.
"""

from __future__ import annotations

import json
import logging
import sys


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    logging.disable(logging.WARNING)
    from deepspeed.runtime.config import DeepSpeedConfig

    out = []
    for config in json.load(sys.stdin):
        try:
            read = DeepSpeedConfig(config)
        except Exception as exc:  # noqa: BLE001 - DeepSpeed's refusal is the answer
            out.append({"error": f"{type(exc).__name__}: {exc}"})
            continue
        zero = read.zero_config
        offload = any(section is not None and getattr(section.device, "value", section.device) != "none"
                      for section in (zero.offload_optimizer, zero.offload_param))
        dtype = "bfloat16" if read.bfloat16_config.enabled else "float16" if read.float16_config.enabled else "float32"
        out.append({"stage": int(read.zero_optimization_stage), "offload": offload, "dtype": dtype,
                    "optimizer": read.optimizer_name, "optimizer_params": read.optimizer_params,
                    "micro": read.train_micro_batch_size_per_gpu})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
