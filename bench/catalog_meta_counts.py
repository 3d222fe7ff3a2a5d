"""Count the parameters of every bundled catalog config on the meta device.

Usage:
    python bench/catalog_meta_counts.py                # the decoder-LLM entries (KNOWN below)
    python bench/catalog_meta_counts.py --all          # every catalog entry
    python bench/catalog_meta_counts.py Qwen/Qwen3-8B  # only these hub ids (or substrings)
    python bench/catalog_meta_counts.py --json out.json

(bench/catalog_meta_counts_other.py covers the encoder / seq2seq / vision entries.)

Prints one line per model: hub id, model_type, meta-device parameter count,
seconds. Ground truth is the transformers class named by ``architectures[0]``
built on the meta device (no weights, no network); ``sum(p.numel() for p in
model.parameters())`` counts a tied tensor once.  Where a published size is
known (``KNOWN`` below) the line also shows it and flags a mismatch.

Each model is built in a fresh subprocess so a failure or a large model does
not take the others down, and memory is returned between models.

DeepSeek-V3 / R1: the checkpoint also holds one multi-token-prediction layer
(``num_nextn_predict_layers: 1``, ~14B) that transformers does not build; the
count is the class's (~671.0B), not the Hub's 685B.  ``quantization_config``
(fp8 block scales) is dropped before building: only ``from_pretrained`` applies
it, and the parameter shapes are the same.
Needs torch and transformers (test / optional-runtime dependencies).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[1] / "server" / "lsp_count" / "catalog"

# Published / widely quoted parameter counts (model cards, papers).  An int is
# an exact count and is compared exactly; a string is a rounded figure in
# billions as the publisher quotes it ("46.7") and is compared to within half
# a unit of its last digit; None means no published figure to compare with.
KNOWN: dict[str, int | str | None] = {
    "meta-llama/Llama-2-7b-hf": 6_738_415_616,
    "meta-llama/Llama-2-13b-hf": 13_015_864_320,
    "meta-llama/Llama-2-70b-hf": 68_976_648_192,
    "meta-llama/Meta-Llama-3-8B": 8_030_261_248,
    "meta-llama/Meta-Llama-3-8B-Instruct": 8_030_261_248,
    "meta-llama/Meta-Llama-3-70B": 70_553_706_496,
    "meta-llama/Llama-3.1-8B": 8_030_261_248,
    "meta-llama/Llama-3.1-8B-Instruct": 8_030_261_248,
    "meta-llama/Llama-3.1-70B": 70_553_706_496,
    "meta-llama/Llama-3.1-405B": 405_853_388_800,
    "meta-llama/Llama-3.2-1B": 1_235_814_400,
    "meta-llama/Llama-3.2-3B": 3_212_749_824,
    "meta-llama/Llama-3.3-70B-Instruct": 70_553_706_496,
    "mistralai/Mistral-7B-v0.1": 7_241_732_096,
    "mistralai/Mistral-7B-Instruct-v0.3": 7_248_023_552,
    "mistralai/Mixtral-8x7B-v0.1": 46_702_792_704,
    "mistralai/Mixtral-8x22B-v0.1": "141",
    "mistralai/Mistral-Nemo-Base-2407": "12.2",
    "Qwen/Qwen2.5-0.5B": 494_032_768,
    "Qwen/Qwen2.5-1.5B": 1_543_714_304,
    "Qwen/Qwen2.5-7B": 7_615_616_512,
    "Qwen/Qwen2.5-14B": "14.8",  # Hub safetensors figure (card text rounds down to 14.7)
    "Qwen/Qwen2.5-32B": "32.8",  # Hub safetensors figure (card text says 32.5)
    "Qwen/Qwen2.5-72B": "72.7",
    "Qwen/Qwen2.5-Coder-7B": 7_615_616_512,
    "Qwen/Qwen2-0.5B": 494_032_768,
    "Qwen/Qwen2-7B": 7_615_616_512,
    "Qwen/Qwen2-57B-A14B": "57.4",
    "Qwen/Qwen1.5-MoE-A2.7B": "14.3",
    "Qwen/Qwen1.5-72B": "72.3",
    "Qwen/Qwen3-0.6B": "0.6",
    "Qwen/Qwen3-4B": 4_022_468_096,
    "Qwen/Qwen3-8B": 8_190_735_360,
    "Qwen/Qwen3-32B": "32.8",
    "Qwen/Qwen3-30B-A3B": "30.5",
    "Qwen/Qwen3-235B-A22B": "235",
    "google/gemma-2b": 2_506_172_416,
    "google/gemma-7b": 8_537_680_896,
    "google/gemma-2-2b": 2_614_341_888,
    "google/gemma-2-9b": 9_241_705_984,
    "google/gemma-2-27b": 27_227_128_320,
    "google/gemma-3-1b-pt": 999_885_952,
    "google/gemma-3-4b-pt": "4.3",
    "google/gemma-3-27b-pt": "27.4",
    "microsoft/phi-2": 2_779_683_840,
    "microsoft/Phi-3-mini-4k-instruct": 3_821_079_552,
    "microsoft/Phi-3.5-mini-instruct": 3_821_079_552,
    "microsoft/Phi-3-medium-4k-instruct": 13_960_238_080,
    "microsoft/phi-4": 14_659_507_200,
    "deepseek-ai/DeepSeek-V2-Lite": "15.7",
    "deepseek-ai/DeepSeek-V2": "236",
    "deepseek-ai/DeepSeek-V3": "671",  # without the MTP layer (Hub: 685B with it)
    "deepseek-ai/DeepSeek-R1": "671",
    "allenai/OLMo-2-1124-7B": "7.3",
    "allenai/OLMo-2-1124-13B": "13.7",
    "HuggingFaceTB/SmolLM2-135M": 134_515_008,
    "HuggingFaceTB/SmolLM2-360M": 361_821_120,
    "HuggingFaceTB/SmolLM2-1.7B": 1_711_376_384,
    "tiiuae/falcon-7b": 6_921_720_704,
    "tiiuae/falcon-40b": None,  # no exact published figure (the card says "40B")
    "openai-community/gpt2": 124_439_808,
    "openai-community/gpt2-medium": 354_823_168,
    "openai-community/gpt2-large": 774_030_080,
    "openai-community/gpt2-xl": 1_557_611_200,
    "EleutherAI/gpt-neox-20b": 20_554_567_680,
    "EleutherAI/pythia-160m": 162_322_944,
    "EleutherAI/pythia-1b": 1_011_781_632,
    "EleutherAI/gpt-j-6b": 6_050_882_784,
    "facebook/opt-125m": 125_239_296,
    "facebook/opt-1.3b": 1_315_758_080,
    "facebook/opt-6.7b": 6_658_473_984,
    "bigscience/bloom-560m": 559_214_592,
    "bigscience/bloom-7b1": 7_069_016_064,
    "bigcode/starcoder2-3b": "3.03",
    "bigcode/starcoder2-7b": "7.17",
    "bigcode/starcoder2-15b": "16",
    "ibm-granite/granite-3.1-8b-base": "8.17",
    "CohereForAI/c4ai-command-r-v01": "35",
    "state-spaces/mamba-130m-hf": 129_135_360,
    "state-spaces/mamba-1.4b-hf": 1_372_178_432,
}

_CHILD = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import torch, transformers
from transformers import AutoConfig, CONFIG_MAPPING
from transformers.utils import logging as hf_logging
hf_logging.set_verbosity_error()
raw = json.load(open(sys.argv[1]))
t0 = time.perf_counter()
d = dict(raw)
d.pop("quantization_config", None)  # only applied by from_pretrained; shapes are the bf16 ones
mt = d.pop("model_type")
cfg = CONFIG_MAPPING[mt].from_dict(d)
cls = getattr(transformers, raw["architectures"][0])
with torch.device("meta"):
    model = cls(cfg)
n = sum(p.numel() for p in model.parameters())
print(json.dumps({"model_type": mt, "count": n, "seconds": time.perf_counter() - t0,
                  "class": cls.__name__}))
"""


def entries(selectors: list[str], everything: bool = False) -> list[tuple[str, Path]]:
    out = []
    for p in sorted(CATALOG.glob("*/*.json")):
        hub = f"{p.parent.name}/{p.stem}"
        if selectors:
            if any(s == hub or s in hub for s in selectors):
                out.append((hub, p))
        elif everything or hub in KNOWN:
            out.append((hub, p))
    return out


def check(hub: str, count: int) -> str:
    want = KNOWN.get(hub)
    if want is None:
        return ""
    if isinstance(want, int):
        return "ok" if count == want else f"MISMATCH (published {want:,})"
    decimals = len(want.partition(".")[2])
    tol = 0.5 * 10 ** -decimals
    ok = abs(count / 1e9 - float(want)) <= tol + 1e-12
    return f"ok (~{want}B)" if ok else f"MISMATCH (published ~{want}B)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="hub ids or substrings; default all")
    ap.add_argument("--all", action="store_true", help="every catalog entry, not only KNOWN")
    ap.add_argument("--json", help="also write results to this file")
    args = ap.parse_args()
    results, bad = [], 0
    for hub, path in entries(args.models, args.all):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            bad += 1
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{hub:45s} ERROR {err}", flush=True)
            results.append({"hub_id": hub, "error": err})
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        verdict = check(hub, r["count"])
        bad += verdict.startswith("MISMATCH")
        print(f"{hub:45s} {r['model_type']:14s} {r['count']:>17,d} "
              f"{r['seconds']:6.2f}s  {verdict}", flush=True)
        results.append({"hub_id": hub, **r, "wall_seconds": time.perf_counter() - t0,
                        "check": verdict})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
