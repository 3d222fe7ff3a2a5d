"""Fit verdicts: does a model fit a GPU (or N of them) in a mode, and what would make it fit.

Every "what would make it fit" figure is found by re-running ``estimate_memory``
with one setting changed, so it follows the same itemized model as the main
answer (binary search where memory grows monotonically with the setting).

Compute: training ≈ 6·N·tokens FLOPs (forward 2N + backward 4N per token;
Kaplan et al. 2020), with N the *active* parameters for MoE; LoRA/QLoRA skip
the frozen weights' gradients, ≈ 4·N·tokens; gradient checkpointing adds one
more forward (+2·N). Inference ≈ 2·N FLOPs per token. Chinchilla-optimal
training tokens ≈ 20·N (Hoffmann et al. 2022). Time = FLOPs / (GPUs × peak
bf16 dense FLOP/s × utilization); the utilization (MFU) is the user's
assumption, 40% by default. A convolutional backbone's and a ViT-style image encoder's compute is
counted per image instead (their forward FLOPs through every layer, as torch's FlopCounterMode counts them), over
one ImageNet-1k epoch unless told the images.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lsp_count.core.hardware import GPUSelection
from lsp_count.core.layouts.convnet import feature_maps
from lsp_count.core.layouts.encoder import image_tokens, num_patches
from lsp_count.core.memory import (
    GiB, MAX_BATCH, MemoryEstimator, Settings, SettingsError, _attention_heads, _in_stack, position_limit, with_context,
)
from lsp_count.core.precision import DTYPES, normalize_dtype
from lsp_count.core.report import ModelReport
from lsp_count.core.spec import ModelSpec

# Largest GPU count min_gpus searches (a bigger answer is "not with this GPU").
MAX_SEARCH_GPUS = 1024
# Tensor parallel stays inside one node (NVLink); beyond that, pipeline stages.
MAX_TP = 8
INFERENCE_LADDER = ("float32", "bfloat16", "float8", "int8", "nf4", "nf4-dq", "gguf-q4_k_m")
ADAPTER_LADDER = ("bfloat16", "int8", "nf4", "nf4-dq")
DEFAULT_UTILIZATION = 0.4
CHINCHILLA_TOKENS_PER_PARAM = 20
# The images a convolutional backbone's compute estimate trains on where --tokens gives none: one epoch of ImageNet-1k.
IMAGENET_TRAIN_IMAGES = 1_281_167


@dataclass(frozen=True)
class FitVerdict:
    gpu: str
    gpus: int
    fits: bool
    required_bytes: int  # per GPU
    available_bytes: int  # per GPU (usable, as the runtime reports it)
    headroom_bytes: int  # available − required; negative when it does not fit
    max_context: int | None  # largest context that fits with the other settings; None if even 1 token does not
    max_batch: int | None
    min_gpus: int | None  # fewest GPUs of this kind that fit (ZeRO-3 for training, TP/PP for inference)
    lowest_dtype: str | None  # the highest-precision storage dtype that fits (the least quantization needed)
    suggestions: tuple[str, ...]


# The searches below take a MemoryEstimator (``est``) for the model: the same reports as
# estimate_memory, each distinct setting estimated once, the tree walked once.


def _required(est: MemoryEstimator, s: Settings) -> int:
    return est(s).total_bytes


def _fits(est: MemoryEstimator, s: Settings, available: int) -> bool:
    try:
        return _required(est, s) <= available
    except SettingsError:
        return False


def _largest(est: MemoryEstimator, s: Settings, available: int, name: str, cap: int) -> int | None:
    """Largest value of setting ``name`` in [1, cap] that fits (memory grows with it)."""
    if not _fits(est, replace(s, **{name: 1}), available):
        return None
    lo, hi = 1, cap
    if _fits(est, replace(s, **{name: hi}), available):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits(est, replace(s, **{name: mid}), available):
            lo = mid
        else:
            hi = mid
    return lo


def _context_cap(model: ModelReport, s: Settings) -> int:
    """Largest context the fit search tries.

    Up to the position limit, or the user's own context when that is longer (a rotary limit is soft);
    a learned position table's size (Whisper's decoder, BART) is the cap itself: nothing longer runs.
    """
    limit = position_limit(model)
    if limit is None:
        return max(s.context, 1 << 20)
    return limit.tokens if limit.hard else max(s.context, limit.tokens)


def _ladder(s: Settings) -> tuple[tuple[str, Settings], ...]:
    if s.mode == "inference":
        return tuple((d, replace(s, dtype=d)) for d in INFERENCE_LADDER)
    if s.mode == "train":
        return (("bfloat16", replace(s, dtype="bfloat16")),) if s.optimizer != "adamw-fp32" else ()
    return tuple((d, replace(s, dtype=d, mode="lora" if not DTYPES[d].quantized else "qlora")) for d in ADAPTER_LADDER)


def _valid_tps(model: ModelReport) -> tuple[int, ...]:
    heads, kv = _attention_heads(model)
    if heads is None:
        return (1,)
    return tuple(t for t in range(1, MAX_TP + 1)
                 if heads % t == 0 and (kv is None or kv % t == 0 or t % kv == 0))


def _min_gpus(est: MemoryEstimator, s: Settings, available: int) -> tuple[int | None, Settings | None]:
    """Fewest GPUs that fit, and the settings that get there."""
    model = est.model
    layers = max(1, est.layer_count)
    if s.mode != "inference":
        # Data parallel with ZeRO-3 over N GPUs (the user's TP and PP kept): per-GPU memory falls with N.
        unit = s.tp * s.pp
        base = replace(s, zero=3)
        candidates = [n for n in range(unit, MAX_SEARCH_GPUS + 1, unit)]
        if not _fits(est, replace(base, gpus=candidates[-1]), available):
            return None, None
        lo, hi = 0, len(candidates) - 1
        if _fits(est, replace(s, gpus=candidates[0]), available):
            return candidates[0], replace(s, gpus=candidates[0])
        while lo < hi:
            mid = (lo + hi) // 2
            if _fits(est, replace(base, gpus=candidates[mid]), available):
                hi = mid
            else:
                lo = mid + 1
        n = candidates[lo]
        return n, replace(base, gpus=n)
    tps = _valid_tps(model)
    for n in range(1, MAX_SEARCH_GPUS + 1):
        for t in sorted(tps, reverse=True):
            if n % t or n // t > layers:
                continue
            trial = replace(s, tp=t, pp=n // t, gpus=n)
            if _fits(est, trial, available):
                return n, trial
    return None, None


def _gib(b: int) -> str:
    return f"{b / GiB:,.1f} GiB"


def judge_fit(model: ModelReport, settings: Settings, selection: GPUSelection,
              estimator: MemoryEstimator | None = None) -> FitVerdict:
    """Fit of ``model`` under ``settings`` on ``selection`` (its count is the total GPU count).

    ``estimator``: a MemoryEstimator for ``model`` to share estimates with the caller's.
    """
    est = estimator if estimator is not None and estimator.model is model else MemoryEstimator(model)
    s = with_context(model, replace(settings, gpus=selection.count))
    if s.gpus % (s.tp * s.pp):
        raise SettingsError("--gpu", f"{selection.label} cannot be split into tensor parallel {s.tp} × pipeline parallel {s.pp}")
    est.validate(s)
    report = est(s)
    available = selection.gpu.usable_bytes
    required = report.total_bytes
    fits = required <= available
    max_context = _largest(est, s, available, "context", _context_cap(model, s))
    max_batch = _largest(est, s, available, "batch", MAX_BATCH)
    lowest = next((d for d, trial in _ladder(s) if _fits(est, trial, available)), None)
    min_gpus, min_settings = _min_gpus(est, s, available)
    suggestions: list[str] = []
    if not fits:
        if max_context is not None and max_context < s.context:
            suggestions.append(f"--context {max_context:,} fits")
        if max_batch is not None and max_batch < s.batch:
            suggestions.append(f"--batch {max_batch} fits")
        if s.mode != "inference" and not s.gradient_checkpointing:
            trial = replace(s, gradient_checkpointing=True)
            if _fits(est, trial, available):
                suggestions.append(f"--gradient-checkpointing fits ({_gib(_required(est, trial))})")
        if s.mode == "inference" and (s.kv_dtype is None or normalize_dtype(s.kv_dtype) != "float8"):
            trial = replace(s, kv_dtype="float8")
            if _fits(est, trial, available):
                suggestions.append(f"--kv-dtype float8 fits ({_gib(_required(est, trial))})")
        if lowest is not None and lowest != report.dtype:
            mode = next(t.mode for d, t in _ladder(s) if d == lowest)
            flag = f"--dtype {lowest}" + (f" --mode {mode}" if mode != s.mode else "")
            suggestions.append(f"{flag} fits ({_gib(_required(est, next(t for d, t in _ladder(s) if d == lowest)))})")
        if s.mode == "train":
            if s.optimizer != "adamw-8bit" and _fits(est, replace(s, optimizer="adamw-8bit"), available):
                suggestions.append("--optimizer adamw-8bit fits")
            for mode in ("lora", "qlora"):
                trial = replace(s, mode=mode, dtype=None, gradient_checkpointing=True)
                if _fits(est, trial, available):
                    suggestions.append(f"--mode {mode} --gradient-checkpointing fits ({_gib(_required(est, trial))})")
                    break
        if min_gpus is not None and min_settings is not None and min_gpus != s.gpus:
            how = ("--zero 3" if s.mode != "inference" else
                   " ".join(x for x in (f"--tp {min_settings.tp}" if min_settings.tp > 1 else "",
                                        f"--pp {min_settings.pp}" if min_settings.pp > 1 else "") if x))
            suggestions.append(f"--gpu {min_gpus}x{selection.gpu.name} {how}".rstrip() + " fits")
        if not suggestions:
            suggestions.append(f"no single change makes it fit {selection.label}")
    return FitVerdict(selection.gpu.name, selection.count, fits, required, available, available - required,
                      max_context, max_batch, min_gpus, lowest, tuple(suggestions))


@dataclass(frozen=True)
class ComputeEstimate:
    params: int  # N: active parameters per token (total for dense models)
    train_tokens: int
    train_flops: float
    inference_flops_per_token: float
    chinchilla_tokens: int
    utilization: float
    train_seconds: float | None  # on the selection, at ``utilization``; None without a GPU
    flops_per_token_factor: int  # 6 full training, 4 adapters, +2 with checkpointing
    # A convolutional backbone's: the images' side, its forward FLOPs per image (then inference_flops_per_token is
    # per image, train_tokens are images and flops_per_token_factor multiplies the forward pass's FLOPs).
    image_side: int | None = None
    # An image transformer's (image_encoder_flops): the same per image, of this many tokens.
    image_tokens: int | None = None


def estimate_compute(model: ModelReport, settings: Settings, selection: GPUSelection | None = None,
                     tokens: int | None = None, utilization: float = DEFAULT_UTILIZATION) -> ComputeEstimate:
    """Training and inference FLOPs, Chinchilla tokens and a time estimate (see the module docstring)."""
    if not 0 < utilization <= 1:
        raise SettingsError("--utilization", f"must be in (0, 1], got {utilization}")
    if tokens is not None and tokens < 1:
        raise SettingsError("--tokens", f"must be at least 1, got {tokens}")
    tree = model.tree
    n = tree.active if tree.active is not None else tree.total
    if model.spec is not None and model.spec.family.layout == "convnet":
        # A convolution reuses each weight at every position: FLOPs follow the feature maps, not 2·N per token. The
        # backward pass costs twice the forward (input and weight gradients).
        side = with_context(model, settings).context
        assert side is not None
        return _per_image(n, feature_maps(model.spec, side).flops, 3, tokens, selection, utilization, image_side=side)
    factor = 6 if settings.mode in ("train", "inference") else 4
    if settings.gradient_checkpointing and settings.mode != "inference":
        factor += 2
    counted = model.spec is not None and _flops_counted(model.spec)
    sequence = with_context(model, settings).context if counted else None
    per_image = image_encoder_flops(model, sequence) if sequence is not None else None
    if per_image is not None:
        # Per image, as for a convolution: a step's passes are the forward's, the backward's two (one, with
        # adapters alone to train) and the recomputed forward's with checkpointing.
        return _per_image(n, per_image, factor // 2, tokens, selection, utilization, image_tokens=sequence)
    chinchilla = CHINCHILLA_TOKENS_PER_PARAM * n
    train_tokens = tokens if tokens is not None else chinchilla
    flops = float(factor) * n * train_tokens
    return ComputeEstimate(n, train_tokens, flops, 2.0 * n, chinchilla, utilization,
                           _train_seconds(flops, selection, utilization), factor)


# Image transformers whose forward FLOPs image_encoder_flops counts (layouts/encoder.py's embed kinds), with the
# heads that read one vector an image (the class token, the pooled one, both of DeiT's), checked against torch's
# FlopCounterMode in tests/parity/test_image_flops_parity.py. Not these: YOLOS's detection tokens, ViTMAE's masking
# and decoder, masked image modeling's per-patch decoder.
_FLOP_COUNTED_EMBEDS = frozenset({"vit", "deit", "dinov2", "dinov3", "clip_vision", "siglip", "beit"})
_FLOP_COUNTED_HEADS = frozenset({"base", "image_classification", "image_classification_with_teacher",
                                 "with_projection"})


# The query projection's weight, as the layouts name it (its rows are the attention's width).
_QUERY_WEIGHTS = ("q_proj.weight", "query.weight")


def _flops_counted(spec: ModelSpec) -> bool:
    """Whether image_encoder_flops counts the model (_FLOP_COUNTED_EMBEDS, _FLOP_COUNTED_HEADS)."""
    v = spec.values
    return spec.family.layout == "encoder" and spec.head in _FLOP_COUNTED_HEADS and \
        v.get("embed") in _FLOP_COUNTED_EMBEDS and not v.get("detection_tokens") and v.get("mask_ratio") is None


def image_encoder_flops(model: ModelReport, tokens: int) -> int | None:
    """A ViT-style image encoder's forward FLOPs for one image whose layers run over ``tokens`` tokens (its
    config's image: layouts/encoder.image_tokens): each linear of its layers once a token (2·in·out), the
    attention's scores and weighted sum 4·s·q a token and layer (s tokens, q the query projection's width), the
    patch embedding once a patch, and each linear after the layers (pooler, classifier, projection) once an
    image. None for another model (_flops_counted)."""
    spec = model.spec
    fixed = image_tokens(spec) if spec is not None and _flops_counted(spec) else None
    if spec is None or fixed is None:
        return None
    patches = max(0, tokens - (fixed - num_patches(spec)))  # the class, distillation and register tokens stay
    flops = 0
    for path, t, mult, _frozen in model.tree.root.iter_tensors():
        in_layers = _in_stack(path)
        if t.kind == "conv":
            flops += 2 * t.numel * mult * patches
        elif t.kind == "linear":
            flops += 2 * t.numel * mult * (tokens if in_layers else 1)
            if in_layers and t.name.endswith(_QUERY_WEIGHTS):
                flops += 4 * tokens * tokens * t.shape[0] * mult
        elif t.name.endswith("attention.in_proj_weight") and not in_layers:
            # SigLIP's attention-pooling head: nn.MultiheadAttention of a probe's one query over every token (its
            # packed q, k, v projection: q for the query, k and v for each token; the scores and weighted sum).
            width = t.shape[1]
            flops += (2 * width * width * (1 + 2 * tokens) + 4 * tokens * width) * mult
    return flops


def _per_image(n: int, forward: int, passes: int, images: int | None, selection: GPUSelection | None,
               utilization: float, **size: int | None) -> ComputeEstimate:
    """An image model's compute: ``passes`` × its ``forward`` FLOPs per image over ``images`` (one ImageNet-1k epoch
    where None); ``size``: image_side or image_tokens, what the forward pass is per."""
    images = images if images is not None else IMAGENET_TRAIN_IMAGES
    flops = float(passes) * forward * images
    return ComputeEstimate(n, images, flops, float(forward), 0, utilization,
                           _train_seconds(flops, selection, utilization), passes, **size)


def _train_seconds(flops: float, selection: GPUSelection | None, utilization: float) -> float | None:
    """``flops`` on the selection's GPUs at their peak bf16 dense rate × ``utilization``; None without a GPU."""
    if selection is None:
        return None
    return flops / (selection.count * selection.gpu.bf16_tflops * 1e12 * utilization)
