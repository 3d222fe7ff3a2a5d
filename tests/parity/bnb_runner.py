"""Runs in a child process for test_bnb_parity.py: bitsandbytes' own loading of small models.

bitsandbytes is installed apart from the test environment (scripts/test.sh puts it in
``<venv>/bnb-sidecar``): with it importable, transformers would take other paths in every other test.

Usage: python bnb_runner.py SIDECAR < cases.json   (a JSON list of {"config", "quantization", "dtype"})
Each case's model is built from its config, saved, and loaded back with ``BitsAndBytesConfig(**quantization)``
on the CPU in ``dtype``. Prints a JSON list with, for each case, {"bytes": its parameters' bytes plus the
quantization statistics bitsandbytes keeps beside them (NF4's absmax, LLM.int8's row scales), "float": the
names of the parameters left unquantized, with their dtypes}.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import warnings


def _statistics_bytes(model) -> int:
    """The scales bitsandbytes keeps for its quantized weights, which get_memory_footprint leaves out."""
    total = 0
    for module in model.modules():
        weight = getattr(module, "weight", None)
        state = getattr(weight, "quant_state", None)
        if state is not None:
            total += state.absmax.numel() * state.absmax.element_size()
        scales = getattr(weight, "SCB", None)
        if scales is not None:
            total += scales.numel() * scales.element_size()
    return total


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    import torch
    import transformers
    from transformers import CONFIG_MAPPING, BitsAndBytesConfig

    out = []
    for case in json.load(sys.stdin):
        config = case["config"]
        cls = getattr(transformers, config["architectures"][0])
        dtype = getattr(torch, case["dtype"])
        quantization = dict(case["quantization"])
        if "bnb_4bit_compute_dtype" in quantization:
            quantization["bnb_4bit_compute_dtype"] = getattr(torch, quantization["bnb_4bit_compute_dtype"])
        model = cls(CONFIG_MAPPING[config["model_type"]].from_dict(dict(config)))
        with tempfile.TemporaryDirectory() as path:
            model.save_pretrained(path)
            loaded = cls.from_pretrained(path, quantization_config=BitsAndBytesConfig(**quantization), dtype=dtype,
                                         device_map="cpu")
        parameters = sum(p.numel() * p.element_size() for p in loaded.parameters())
        unquantized = {n: str(p.dtype).removeprefix("torch.") for n, p in loaded.named_parameters()
                       if p.dtype in (torch.float32, torch.float16, torch.bfloat16)}
        out.append({"bytes": parameters + _statistics_bytes(loaded), "float": unquantized})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
