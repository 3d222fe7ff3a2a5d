"""Measure real peak GPU memory, for calibrating lsp-count's memory estimates.

Builds transformers models from the catalog's config.json files (random weights: nothing is
downloaded) on a CUDA GPU and runs what the estimate describes:

* ``inference``: ``generate`` of two tokens after a prompt of ``context`` tokens × ``batch``, in bf16,
  PyTorch's SDPA attention (FlashAttention kernels on a recent GPU);
* ``train``: two optimizer steps of full fine-tuning, fp32 weights under bf16 autocast with fused
  AdamW (what the Hugging Face Trainer does with ``bf16=True``), optionally gradient checkpointing;
  ``pure`` keeps weights, gradients and AdamW's states in bf16 (torchtune, LitGPT's "bf16-true");
* ``lora``: peft's LoRA, rank 16 on every linear layer but the head, dropout 0.05, on a bf16 base
  under bf16 autocast, AdamW on the adapters.

For each case it records the weights' bytes after the build, ``torch.cuda.max_memory_allocated``
(the tensors at their peak) and ``max_memory_reserved`` (the caching allocator's peak), and, once,
the CUDA context (what the device has in use beyond what PyTorch reserved, after cuBLAS has loaded).
The figures go to a JSON file, one record per case, written after each case.

On the GPU machine:   python3 bench/gpu_memory.py --out measured.json
A check of the script on the CPU, with tiny models:   python bench/gpu_memory.py --cpu-smoke --out /tmp/m.json
``bench/memory_calibration.py`` compares the records with lsp-count's estimates.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import traceback
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[1] / "server" / "lsp_count" / "catalog"

# (name, hub id, mode, context, batch, gradient checkpointing, pure bf16)
CASES = [
    ("qwen2.5-0.5b-infer-2k", "Qwen/Qwen2.5-0.5B", "inference", 2048, 1, False, False),
    ("qwen2.5-0.5b-infer-8k-b4", "Qwen/Qwen2.5-0.5B", "inference", 8192, 4, False, False),
    ("qwen3-0.6b-infer-4k-b2", "Qwen/Qwen3-0.6B", "inference", 4096, 2, False, False),
    ("llama3.2-1b-infer-4k", "meta-llama/Llama-3.2-1B", "inference", 4096, 1, False, False),
    ("llama3.2-1b-infer-16k", "meta-llama/Llama-3.2-1B", "inference", 16384, 1, False, False),
    ("gpt2-medium-infer-1k-b8", "openai-community/gpt2-medium", "inference", 1022, 8, False, False),
    ("llama3-8b-infer-4k", "meta-llama/Meta-Llama-3-8B", "inference", 4096, 1, False, False),
    ("llama3-8b-infer-8k-b8", "meta-llama/Meta-Llama-3-8B", "inference", 8192, 8, False, False),
    ("mistral-7b-infer-8k", "mistralai/Mistral-7B-v0.1", "inference", 8192, 1, False, False),
    ("smollm2-360m-train-2k-b4", "HuggingFaceTB/SmolLM2-360M", "train", 2048, 4, False, False),
    ("smollm2-360m-train-2k-b4-gc", "HuggingFaceTB/SmolLM2-360M", "train", 2048, 4, True, False),
    ("qwen2.5-0.5b-train-2k-b2", "Qwen/Qwen2.5-0.5B", "train", 2048, 2, False, False),
    ("llama3.2-1b-train-2k-b2", "meta-llama/Llama-3.2-1B", "train", 2048, 2, False, False),
    ("llama3.2-1b-train-4k-b4-gc", "meta-llama/Llama-3.2-1B", "train", 4096, 4, True, False),
    ("gpt2-medium-train-1k-b8", "openai-community/gpt2-medium", "train", 1024, 8, False, False),
    ("llama3.2-1b-train-2k-b2-pure", "meta-llama/Llama-3.2-1B", "train", 2048, 2, False, True),
    ("llama3.2-1b-lora-2k-b4", "meta-llama/Llama-3.2-1B", "lora", 2048, 4, False, False),
    ("llama3.2-1b-lora-2k-b4-gc", "meta-llama/Llama-3.2-1B", "lora", 2048, 4, True, False),
    ("qwen2.5-0.5b-lora-4k-b2", "Qwen/Qwen2.5-0.5B", "lora", 4096, 2, False, False),
    ("llama3-8b-lora-2k-b2", "meta-llama/Meta-Llama-3-8B", "lora", 2048, 2, False, False),
    ("llama3-8b-lora-4k-b1-gc", "meta-llama/Meta-Llama-3-8B", "lora", 4096, 1, True, False),
]

# The sweep: training runs of each model at 2, 4 and 8 layers. Activations grow with the layer
# count and the logits do not, so the slope per layer and the rest can be told apart.
SWEEP_MODELS = ("meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-0.5B", "openai-community/gpt2-medium",
                "HuggingFaceTB/SmolLM2-360M")
SWEEP = [(f"{hub.split('/')[1].lower()}-L{layers}-{mode}{'-pure' if pure else ''}{'-gc' if gc else ''}",
          hub, mode, *((1024, 4) if "gpt2" in hub else (2048, 2)), gc, pure, layers)  # GPT-2 has 1,024 positions
         for hub in SWEEP_MODELS for mode, pure in (("train", False), ("train", True), ("lora", False))
         for gc in (False, True) for layers in (2, 4, 8)]
SWEEP += [("llama-3.2-1b-L4-train-pure-eager", "meta-llama/Llama-3.2-1B", "train", 2048, 2, False, True, 4, "eager"),
          ("llama-3.2-1b-L4-infer-eager", "meta-llama/Llama-3.2-1B", "inference", 2048, 2, False, False, 4, "eager"),
          ("llama-3.2-1b-L8-infer-eager", "meta-llama/Llama-3.2-1B", "inference", 2048, 2, False, False, 8, "eager")]

# More layouts: a Python model of one's own (nanoGPT, bench/nanogpt_model.py), MoE, Gemma-2, Phi-3.
SWEEP2 = [(f"nanogpt-L{layers}-train{'-pure' if pure else ''}", "nanogpt", "train", 1024, 4, False, pure, layers)
          for pure in (False, True) for layers in (2, 4, 8)]
# (Gemma-2's softcapping has no SDPA path in transformers: eager attention, as its users get.)
SWEEP2 += [(f"{hub.split('/')[1].lower()}-L{layers}-{mode}{'-pure' if pure else ''}", hub, mode, 2048, 2, False, pure,
            layers, "eager" if "gemma" in hub else "sdpa")
           for hub in ("Qwen/Qwen1.5-MoE-A2.7B", "google/gemma-2-2b", "microsoft/Phi-3-mini-4k-instruct")
           for mode, pure in (("train", True), ("lora", False)) for layers in (2, 4)]
SWEEP2 += [("qwen1.5-moe-a2.7b-L4-infer-4k", "Qwen/Qwen1.5-MoE-A2.7B", "inference", 4096, 1, False, False, 4),
           ("gemma-2-2b-infer-8k-b2", "google/gemma-2-2b", "inference", 8190, 2, False, False, None, "eager"),
           ("phi-3-mini-infer-4k-b4", "microsoft/Phi-3-mini-4k-instruct", "inference", 4094, 4, False, False)]

LORA_RANK = 16


def load_config(hub_id: str, smoke: bool, layers: int | None = None):
    from transformers import AutoConfig

    data = json.loads((CATALOG / f"{hub_id}.json").read_text())
    model_type = data.pop("model_type")
    if smoke:  # a tiny model of the same family: checks the script, not the figures
        for key, value in (("num_hidden_layers", 2), ("n_layer", 2), ("hidden_size", 64), ("n_embd", 64),
                           ("intermediate_size", 128), ("num_attention_heads", 4), ("n_head", 4),
                           ("num_key_value_heads", 2), ("head_dim", 16), ("vocab_size", 512)):
            if key in data:
                data[key] = value
        data["pad_token_id"] = None
    if layers is not None:
        data["n_layer" if "n_layer" in data else "num_hidden_layers"] = layers
    return AutoConfig.for_model(model_type, **data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--cpu-smoke", action="store_true", help="tiny models on the CPU: checks the script runs")
    parser.add_argument("--only", default="", help="substrings of the names of the cases to run, comma-separated")
    parser.add_argument("--sweep", action="store_true", help="the layer sweep (SWEEP) instead of CASES")
    parser.add_argument("--sweep2", action="store_true", help="more layouts (SWEEP2) instead of CASES")
    args = parser.parse_args()

    import torch
    import transformers

    smoke = args.cpu_smoke
    device = torch.device("cpu" if smoke else "cuda")
    cuda = device.type == "cuda"
    record: dict = {"torch": torch.__version__, "transformers": transformers.__version__, "cases": []}
    try:
        import peft

        record["peft"] = peft.__version__
    except ImportError:
        record["peft"] = None
    if cuda:
        torch.cuda.init()
        a = torch.randn(256, 256, device=device, dtype=torch.bfloat16)
        (a @ a).sum().item()  # loads cuBLAS: its handle and workspace are part of every real run
        torch.nn.functional.scaled_dot_product_attention(a[None, None], a[None, None], a[None, None]).sum().item()
        del a
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        free, total = torch.cuda.mem_get_info()
        record["gpu"] = torch.cuda.get_device_name()
        record["total_bytes"] = total
        record["context_bytes"] = total - free - torch.cuda.memory_reserved()
        print(f"{record['gpu']}: {total / 2**30:.1f} GiB, CUDA context {record['context_bytes'] / 2**20:.0f} MiB",
              flush=True)

    out = Path(args.out)
    for case in SWEEP if args.sweep else SWEEP2 if args.sweep2 else CASES:
        name = case[0]
        if args.only and not any(part in name for part in args.only.split(",")):
            continue
        start = time.perf_counter()
        try:
            result = run_case(case, device, smoke)
        except Exception as exc:  # noqa: BLE001 - one case's failure is recorded, the others still run
            result = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()[-2000:]}
            if cuda and isinstance(exc, torch.cuda.OutOfMemoryError):
                result["oom"] = True
        result.update(dict(zip(("name", "hub_id", "mode", "context", "batch", "gradient_checkpointing", "pure",
                                "layers", "attention"), case)))
        result["seconds"] = round(time.perf_counter() - start, 2)
        if cuda:
            free, total = torch.cuda.mem_get_info()
            result["device_used_bytes"] = total - free
        record["cases"].append(result)
        out.write_text(json.dumps(record, indent=1))
        gib = 2**30
        if "error" in result:
            print(f"{name:34s} ERROR {result['error'][:200]}", flush=True)
        else:
            print(f"{name:34s} weights {result['weights_bytes'] / gib:7.2f}  peak {result['peak_allocated_bytes'] / gib:7.2f}"
                  f"  reserved {result['peak_reserved_bytes'] / gib:7.2f} GiB  {result['seconds']:.1f} s", flush=True)
        cleanup(torch, cuda)


def cleanup(torch, cuda: bool) -> None:
    gc.collect()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def run_case(case: tuple, device, smoke: bool) -> dict:
    import torch
    from transformers import AutoModelForCausalLM

    name, hub_id, mode, context, batch, checkpointing, pure = case[:7]
    layers = case[7] if len(case) > 7 else None
    attention = case[8] if len(case) > 8 else "sdpa"
    cuda = device.type == "cuda"
    if smoke:
        context, batch = min(context, 64), min(batch, 2)

    def allocated() -> int:
        return torch.cuda.memory_allocated() if cuda else 0

    mixed = mode == "train" and not pure
    dtype = torch.float32 if mixed else torch.bfloat16
    cleanup(torch, cuda)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    before = allocated()
    if hub_id == "nanogpt":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import nanogpt_model

        config = nanogpt_model.GPTConfig(n_layer=layers or 12, **({"n_embd": 64, "n_head": 4, "vocab_size": 512}
                                                                   if smoke else {}))
        with device:
            model = nanogpt_model.GPT(config).to(dtype)
        vocab = config.vocab_size
    else:
        config = load_config(hub_id, smoke, layers)
        with device:
            model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=attention)
        vocab = config.get_text_config().vocab_size
    weights = allocated() - before
    parameters = sum(p.numel() for p in model.parameters())
    ids = torch.randint(0, vocab, (batch, context), device=device)
    result: dict = {"parameters": parameters, "weights_bytes": weights}

    if mode == "inference":
        model.eval()
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            made = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=2, min_new_tokens=2,
                                  do_sample=False, pad_token_id=0)
        assert made.shape == (batch, context + 2), made.shape
    else:
        if checkpointing:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if hub_id != "nanogpt":
            model.config.use_cache = False
        if mode == "lora":
            from peft import LoraConfig, get_peft_model

            if checkpointing:
                model.enable_input_require_grads()
            model = get_peft_model(model, LoraConfig(r=LORA_RANK, lora_alpha=2 * LORA_RANK, lora_dropout=0.05,
                                                     target_modules="all-linear", task_type="CAUSAL_LM"))
            result["adapter_parameters"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
            result["adapter_dtype"] = str(next(p.dtype for p in model.parameters() if p.requires_grad))
        model.train()
        trainable = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(trainable, lr=1e-5, fused=cuda)
        autocast = mixed or mode == "lora"
        steps = []
        for _ in range(2):
            if cuda:
                torch.cuda.reset_peak_memory_stats()
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
                loss = model(ids, ids) if hub_id == "nanogpt" else model(input_ids=ids, labels=ids, use_cache=False).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            del loss
            steps.append((torch.cuda.max_memory_allocated() if cuda else 0,
                          torch.cuda.max_memory_reserved() if cuda else 0))
        result["persistent_bytes"] = allocated() - before  # weights + optimizer states after the step
        result["step_peaks"] = steps
        del optimizer, trainable
    if cuda:
        torch.cuda.synchronize()
        peak_allocated = max([torch.cuda.max_memory_allocated()] + [s[0] for s in result.get("step_peaks", [])])
        peak_reserved = max([torch.cuda.max_memory_reserved()] + [s[1] for s in result.get("step_peaks", [])])
    else:
        peak_allocated = peak_reserved = 0
    result["peak_allocated_bytes"] = peak_allocated - before
    result["peak_reserved_bytes"] = peak_reserved
    del model, ids
    return result


if __name__ == "__main__":
    sys.exit(main())
