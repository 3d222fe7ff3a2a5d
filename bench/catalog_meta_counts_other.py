"""Meta-device parameter counts for the encoder, encoder-decoder, vision and multimodal catalog configs.

Usage:
    python bench/catalog_meta_counts_other.py                 # every model listed in MODELS
    python bench/catalog_meta_counts_other.py openai/whisper  # only hub ids containing these substrings
    python bench/catalog_meta_counts_other.py --json out.json

Prints one line per model: hub id, model_type, architecture, meta-device
parameter count, seconds, and a verdict against the published size.
Ground truth is the transformers class named by ``architectures[0]``, built on
the meta device (no weights, no network); ``sum(p.numel() for p in
model.parameters())`` counts a tied tensor once.

Each model is built in a fresh subprocess so one failure does not take the
others down.  Needs torch and transformers (test / optional-runtime deps).

Published sizes: an int is an exact count (model card, paper or a widely
reproduced ``num_parameters()``) and is compared exactly; a string is a
rounded figure in millions as usually quoted ("406") and is compared within
1.5 % (model cards round loosely: whisper-tiny "39M" counts 37.8M).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[1] / "server" / "lsp_count" / "catalog"

# Hub id -> published size.  These are the catalog entries this script owns.
MODELS: dict[str, int | str] = {
    "google-bert/bert-base-uncased": 109_514_298,  # BertForMaskedLM ("110M")
    "google-bert/bert-base-cased": "108",
    "google-bert/bert-large-uncased": "335",
    "google-bert/bert-base-multilingual-cased": "178",
    "FacebookAI/roberta-base": 124_697_433,  # RobertaForMaskedLM ("125M")
    "FacebookAI/roberta-large": "355",
    "FacebookAI/xlm-roberta-base": "278",
    "distilbert/distilbert-base-uncased": "67",
    # AlbertForMaskedLM has no pooler; the quoted 12M/18M/223M are AlbertModel
    # (with pooler).  Exact counts derived by hand from the layer shapes.
    "albert/albert-base-v2": 11_221_680,
    "albert/albert-large-v2": 16_795_824,
    "albert/albert-xxlarge-v2": 206_368_944,
    "sentence-transformers/all-MiniLM-L6-v2": 22_713_216,
    "google-t5/t5-small": 60_506_624,
    "google-t5/t5-base": 222_903_552,
    "google-t5/t5-large": 737_668_096,
    "google/flan-t5-small": 76_961_152,
    "google/flan-t5-base": 247_577_856,
    "google/flan-t5-large": 783_150_080,
    "google/flan-t5-xl": 2_849_757_184,
    "google/t5-v1_1-base": 247_577_856,
    "google/switch-base-8": "620",
    "google/switch-base-16": "1073",
    "facebook/bart-base": "139",
    "facebook/bart-large": "406",
    "facebook/bart-large-cnn": "406",
    "facebook/mbart-large-cc25": "611",
    "facebook/mbart-large-50": "611",
    "openai/whisper-tiny": "37.8",
    "openai/whisper-base": "72.6",
    "openai/whisper-small": "242",
    "openai/whisper-medium": "764",
    "openai/whisper-large-v3": "1543",
    "google/vit-base-patch16-224": "86.6",
    "google/vit-large-patch16-224": "304",
    "google/vit-base-patch16-224-in21k": "86.4",
    "openai/clip-vit-base-patch32": 151_277_313,
    "openai/clip-vit-base-patch16": "149.6",
    "openai/clip-vit-large-patch14": "427.6",
    "openai/clip-vit-large-patch14-336": "428",
    "llava-hf/llava-1.5-7b-hf": 7_063_427_072,
    # Llama-2-13b 13,015,864,320 + 64 extra vocab rows x 5120 x 2 + projector
    # 31,467,520 + CLIP-L/336 tower 303,507,456 (the same tower as the 7b).
    "llava-hf/llava-1.5-13b-hf": 13_351_494_656,
}

# The T5 v1.1 family (flan-t5-*, t5-v1_1-*) publishes `tie_word_embeddings:
# false` and its checkpoints hold a separate `lm_head.weight`.  transformers 5's
# T5Config reinterprets that key as "do not scale decoder outputs" and forces
# `tie_word_embeddings = True`, so the class built from the config ties the
# head (from_pretrained unties it again when the checkpoint's head differs).
# The meta count is then short by d_model x vocab; the published sizes are the
# checkpoint's.  The child reports the head it tied as `forced_tied_head`, and
# the verdict compares `count + forced_tied_head` with the published size.

# Published `architectures` entries that are not (or no longer) transformers
# classes: the hub's google-t5/t5-* configs still name the pre-2020 class.
LEGACY_CLASSES = {"T5WithLMHeadModel": "T5ForConditionalGeneration"}

_CHILD = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import torch, transformers
from transformers import CONFIG_MAPPING
from transformers.utils import logging as hf_logging
hf_logging.set_verbosity_error()
raw = json.load(open(sys.argv[1]))
legacy = json.loads(sys.argv[2])
t0 = time.perf_counter()
d = dict(raw)
mt = d.pop("model_type")
cfg = CONFIG_MAPPING[mt].from_dict(d)
arch = raw["architectures"][0]
cls = getattr(transformers, legacy.get(arch, arch))
with torch.device("meta"):
    model = cls(cfg)
n = sum(p.numel() for p in model.parameters())
forced = 0
if raw.get("tie_word_embeddings") is False:
    try:  # not every class has one input embedding (CLIPModel raises)
        out, inp = model.get_output_embeddings(), model.get_input_embeddings()
    except NotImplementedError:
        out = inp = None
    if out is not None and inp is not None and out.weight is inp.weight:
        forced = out.weight.numel()
print(json.dumps({"model_type": mt, "architecture": arch, "class": cls.__name__, "count": n,
                  "forced_tied_head": forced, "seconds": time.perf_counter() - t0}))
"""


def check(want: int | str, count: int) -> str:
    if isinstance(want, int):
        return "ok" if count == want else f"MISMATCH (published {want:,})"
    ok = abs(count / 1e6 - float(want)) <= 0.015 * float(want)
    return f"ok (~{want}M)" if ok else f"MISMATCH (published ~{want}M)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="hub ids or substrings; default all")
    ap.add_argument("--json", help="also write results to this file")
    args = ap.parse_args()
    results, bad = [], 0
    for hub, want in MODELS.items():
        if args.models and not any(s in hub for s in args.models):
            continue
        path = CATALOG / f"{hub}.json"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _CHILD, str(path), json.dumps(LEGACY_CLASSES)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            bad += 1
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{hub:42s} ERROR {err}", flush=True)
            results.append({"hub_id": hub, "error": err})
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        verdict = check(want, r["count"] + r["forced_tied_head"])
        if r["forced_tied_head"]:
            verdict += f"  [config forced a tied head: checkpoint = count + {r['forced_tied_head']:,}]"
        bad += verdict.startswith("MISMATCH")
        arch = r["architecture"] + ("" if r["class"] == r["architecture"] else f"->{r['class']}")
        print(f"{hub:42s} {r['model_type']:19s} {arch:44s} {r['count']:>15,d} "
              f"{r['seconds']:6.2f}s  {verdict}", flush=True)
        results.append({"hub_id": hub, **r, "wall_seconds": time.perf_counter() - t0, "check": verdict})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
