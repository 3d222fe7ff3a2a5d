"""GPU memory per GPU: weights, KV cache, activations, training state, overhead — itemized.

Each line says whether it is exact (a byte count that follows from the
architecture and the storage layout) or an estimate (a documented formula for
what the runtime does). The estimates were compared with the peak memory of real
runs on an H200 (``bench/gpu_memory.py`` measures, ``bench/memory_calibration.py``
compares; the figures are in ``bench/data/``).

Sources:

* Training state per trainable parameter, mixed-precision AdamW: 2 (bf16
  weight) + 2 (bf16 gradient) + 4 (fp32 master) + 8 (fp32 m, v) = 16 bytes
  (Rajbhandari et al. 2020, "ZeRO", §3.1). Pure fp32 AdamW: 4 + 4 + 8. SGD
  with momentum: one fp32 state (4). 8-bit Adam (bitsandbytes
  ``Optimizer2State.init_state``): two uint8 states (2 bytes) plus two fp32
  absmax scales per block of 256 for tensors of ≥ 4096 elements, fp32 states
  below that (``min_8bit_size``); the quantization maps are shared.
* ZeRO-1 shards optimizer states and fp32 master weights, ZeRO-2 also
  gradients, ZeRO-3 (FSDP) also the 16-bit weights, over the data-parallel
  ranks; ZeRO-3 also gathers one layer's full weights at a time.
* Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in
  Large Transformer Models" (arXiv 2205.05198), counted for transformers'
  decoder layers, which keep no dropout masks: per layer ``s·b·(20h + 4k + 8f)``
  bytes with 16-bit activations (the paper's ``34h`` for GPT-3's layer; h the
  hidden size, k the key/value width, f the MLP's width), measured on an H200
  within 1% for three models (training_activations says what each term is);
  mixed precision with fp32 weights under autocast adds the norms' fp32 outputs
  (10h); FlashAttention never stores the attention matrices, eager attention
  keeps 6 bytes a score (its fp32 softmax and 16-bit probabilities); tensor
  parallelism with sequence parallelism divides by ``t`` (eq. 5); pipeline
  parallelism leaves the first stage holding ``L`` layers' worth (p
  microbatches × L/p layers, §4.2.3). Full recomputation (gradient
  checkpointing) keeps the layer input, ``2·s·b·h`` per layer (4 bytes in
  mixed precision's fp32 residual), plus one layer recomputed in full during
  backward. Logits: ``12·s·b·V`` bytes at the peak (the loss's fp32 copy,
  log-softmax's output and its gradient; 11.9–13.2 measured), over ``t`` with
  a vocab-parallel head.
* KV cache: per attention layer ``2·kv_heads·head_dim`` values per token
  (``max(kv_heads/TP, 1)`` heads per GPU); sliding-window layers hold at most
  the window (transformers' static sliding cache and vLLM; its dynamic cache
  keeps ``window − 1``); DeepSeek MLA caches the compressed latent
  ``kv_lora_rank + qk_rope_head_dim`` per token per layer as vLLM and SGLang
  do (transformers' eager MLA caches the decompressed K/V instead; a layer
  reading an earlier layer's latent caches none, a NoPE layer's has no
  rotated key: Mistral Large 4's); Mamba
  layers hold ``intermediate·(conv_kernel + state_size)`` per sequence
  whatever the context. Qwen applies ``sliding_window`` only with
  ``use_sliding_window`` (transformers' Qwen2Config nulls it otherwise).
  Encoder-decoder models hold transformers' ``EncoderDecoderCache``: per
  decoder layer ``2·kv_heads·head_dim`` values per decoded token
  (``self_attention_cache``) plus the same per encoder position
  (``cross_attention_cache``); Whisper's encoder always yields
  ``max_source_positions`` (1500) positions.
* Overhead: the CUDA context (cuBLAS loaded: 0.68 GiB measured on an H200
  with CUDA 13 and torch 2.11; not visible to ``torch.cuda.memory_allocated``,
  see PyTorch "CUDA semantics: memory management") plus the caching
  allocator's reserved-but-unused blocks (measured 0.15–4.8 GiB at the peak,
  more in training). One constant, ``OVERHEAD_BYTES``, 1 GiB; never a fudge
  factor on the other lines.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from lsp_count.core.layouts.decoder import (STACK_NAMES as DECODER_STACK_NAMES, cross_attention_flags,
                                            indexer_layer_flags, kv_shared_layer_flags, nope_layer_flags)
from lsp_count.core.layouts.convnet import feature_maps
from lsp_count.core.layouts.encoder import as_base, image_tokens, text_positions
from lsp_count.core.layouts.gemma4 import STACK_NAMES as GEMMA4_STACK_NAMES
from lsp_count.core.layouts.hybrid import STACK_NAMES as HYBRID_STACK_NAMES
from lsp_count.core.layouts.multimodal import retriever_vlm
from lsp_count.core.layouts.qformer import STACK_NAMES as QFORMER_STACK_NAMES
from lsp_count.core.layouts.seq2seq import ENCODER_ONLY_HEADS, causal_lm_rows
from lsp_count.core.params import ADAPTABLE_HEAD_NODE, LANGUAGE_MODEL_NODE, ParamNode, ParamTree, Tensor, holds_text_model
from lsp_count.core.precision import (
    DTYPES, FLOAT_BYTES, HEAD_MODULES, SIXTEEN_BIT, UnknownDType, dtype_from_config, normalize_dtype,
    LINEAR_MODULES_ONLY, skip_modules_from_config, stored_bytes,
)
from lsp_count.core.report import ModelReport, PositionLimit
from lsp_count.core.engine import count
from lsp_count.core.spec import ModelSpec, SpecError

GiB = 1 << 30
MiB = 1 << 20

MODES = ("inference", "train", "lora", "qlora")
# By the fp32 states they keep per trainable parameter: "sgd" none (torch's SGD without momentum,
# its default), "sgd-momentum" one (SGD's momentum buffer; RMSprop's, Adagrad's, Lion's one state),
# "adamw" / "adamw-fp32" two (m and v), "adamw-8bit" bitsandbytes' two 8-bit states.
OPTIMIZERS = ("adamw", "adamw-fp32", "adamw-8bit", "sgd", "sgd-momentum")
# torch.optim's optimizers by the full-size states they keep per parameter (their step counters are
# scalars) and the options that add one, as their _init_group makes them: SGD's momentum buffer,
# RMSprop's momentum buffer and centred average, Adam(W)'s amsgrad maximum.
TORCH_OPTIMIZER_STATES: dict[str, tuple[int, tuple[str, ...]]] = {
    "sgd": (0, ("momentum",)), "adam": (2, ("amsgrad",)), "adamw": (2, ("amsgrad",)), "nadam": (2, ()),
    "radam": (2, ()), "adamax": (2, ()), "adadelta": (2, ()), "rprop": (2, ()), "sparseadam": (2, ()),
    "rmsprop": (1, ("momentum", "centered")), "adagrad": (1, ()), "asgd": (1, ()),
}
# The memory model's optimizers (OPTIMIZERS) by that number of fp32 states.
_BY_STATES = {0: "sgd", 1: "sgd-momentum", 2: "adamw"}
KV_DTYPES = ("bfloat16", "float16", "float32", "float8")
LINE_NAMES = ("weights", "kv_cache", "activations", "gradients", "master_weights", "optimizer_states",
              "adapters", "overhead", "logits")

# CUDA context (0.68 GiB measured on an H200 with CUDA 13 and cuBLAS loaded) + caching-allocator slack.
OVERHEAD_BYTES = 1 * GiB
# Bytes per logit (s·b·V) at a training step's peak: transformers' loss upcasts the logits to fp32,
# log_softmax keeps its fp32 output, and backward makes its fp32 gradient (bench/gpu_memory.py).
LOSS_LOGIT_BYTES = 12
# An encoder-decoder's loss (BART, T5, Marian, Whisper: CrossEntropyLoss on the logits as they are)
# upcasts nothing: in a pure 16-bit run, log_softmax's output and, in backward, its gradient and the
# logits' are 3 copies in the compute dtype; under autocast, which runs the loss in fp32, and in fp32
# it costs what the causal loss does. Measured as the Trainer runs a step (the model's output dropped
# before backward) by tests/parity/test_logit_bytes_parity.py from the CPU profiler's allocation
# events: 5.9 bytes per logit pure bf16, 11.9 under autocast and 11.75 in fp32, for BART, T5 and
# Marian; Llama's loss 11.9 in bf16 there, against 11.9–13.2 on a GPU.
LOSS_COPIES_UNCAST = 3
# Tensors below this many elements keep fp32 states in bitsandbytes' 8-bit optimizers (min_8bit_size).
BNB_MIN_8BIT_SIZE = 4096
# Families whose config class applies ``sliding_window`` to every layer when it is set.
ALL_LAYERS_SLIDING = frozenset({"mistral", "mixtral", "phi3", "starcoder2"})
# Node names that hold the repeated layer stack (for pipeline and ZeRO-3 layer granularity). The seq2seq
# layout's encoder and decoder stacks are "layers" too; Switch Transformers splits each into
# "dense_layers" and "sparse_layers".
# A layout's layers of one kind are a stack too: a hybrid's (attention_moe_layers, mamba_mlp_layers, ...), a
# decoder's with no sparse-attention indexer (GLM-MoE-DSA's moe_layers_no_indexer), Gemma 4's (sliding_layers,
# shared_full_layers, ...), a Q-Former's (layers_with_cross_attention, layers_without_cross_attention).
LAYER_STACK_NAMES = frozenset({"layers", "dense_layers", "moe_layers", "sparse_layers", "layer", "h", "blocks"}) \
    | HYBRID_STACK_NAMES | DECODER_STACK_NAMES | GEMMA4_STACK_NAMES | QFORMER_STACK_NAMES
# The entries of a ModuleList as the Python analyser names them: `3`, or equal ones grouped, `0-11`.
_ENTRY_NAME = re.compile(r"\d+(?:-\d+)?")
# Limits that catch typos (a context of 10^12 tokens is not a setting, it is a slip).
MAX_CONTEXT = 1 << 30
MAX_BATCH = 1 << 24
MAX_PARALLEL = 4096
MAX_PARAMETERS = 10 ** 15
# Tokens per sequence where neither the user nor the model says (a text model's context is the user's choice).
DEFAULT_CONTEXT = 4096
# The images a convolutional backbone is estimated at where no --context gives their side: ImageNet's 224 × 224.
CONVNET_IMAGE_SIDE = 224


@dataclass(frozen=True)
class Settings:
    """What the user asks about. Memory is reported per GPU."""

    mode: str = "inference"  # inference | train | lora | qlora
    dtype: str | None = None  # None: the config's dtype / quantization_config, else bfloat16 (qlora: nf4-dq)
    kv_dtype: str | None = None  # None: the 16-bit compute dtype; "float8" allowed
    # None: the model's own where it fixes one (model_context: an image encoder's tokens per image, a
    # text encoder's shorter position table), else DEFAULT_CONTEXT; with_context fills it before use.
    context: int | None = None
    batch: int = 1  # per data-parallel replica (micro-batch)
    optimizer: str = "adamw"  # adamw (mixed precision) | adamw-fp32 | adamw-8bit | sgd | sgd-momentum
    # False: mixed precision, an fp32 master copy and fp32 optimizer states beside 16-bit weights
    # (AMP, DeepSpeed); True: the weights, gradients and states all in the weights' dtype, no master
    # copy (torchtune's recipes, LitGPT's "bf16-true"), LoRA's adapters in it too (not fp32).
    pure_precision: bool = False
    # A frozen copy of the whole model held beside it for the loss, in this float dtype (TRL's reference
    # model: DPO's and KTO's, GRPO's and RLOO's with a KL term); None: no copy.
    reference_model: str | None = None
    # That frozen model's own parameter count, where it is not a copy of this one (a `ref_model` or a
    # distillation teacher a script builds); None: a copy. Held in reference_model's dtype.
    reference_parameters: int | None = None
    lora_rank: int = 16
    lora_targets: tuple[str, ...] | None = None  # module names; None = every linear layer but the head
    gradient_checkpointing: bool = False
    flash_attention: bool = True
    zero: int = 0  # 0..3
    tp: int = 1
    pp: int = 1
    gpus: int = 1  # data-parallel world size × tp × pp

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object], strict: bool = False) -> "Settings":
        return settings_from_mapping(mapping, strict)

    @property
    def dp(self) -> int:
        return max(1, self.gpus // (self.tp * self.pp))


class SettingsError(ValueError):
    """An impossible or unknown setting; ``flag`` names the CLI flag (or mapping key) at fault."""

    def __init__(self, flag: str, message: str) -> None:
        super().__init__(f"{flag}: {message}")
        self.flag = flag
        self.message = message


FLAGS = {
    "mode": "--mode", "dtype": "--dtype", "kv_dtype": "--kv-dtype", "context": "--context", "batch": "--batch",
    "optimizer": "--optimizer", "lora_rank": "--lora-rank", "lora_targets": "--lora-targets",
    "gradient_checkpointing": "--gradient-checkpointing", "flash_attention": "--flash-attention",
    "zero": "--zero", "tp": "--tp", "pp": "--pp", "gpus": "--gpus", "pure_precision": "--pure-precision",
    "reference_model": "--reference-model", "reference_parameters": "--reference-parameters",
}


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


_KEYS = {_norm_key(name): name for name in FLAGS}


def settings_from_mapping(mapping: Mapping[str, object], strict: bool = False) -> Settings:
    """Settings from a budget mapping with kebab-, snake- or camelCase keys.

    Keys that are not settings (a budget's ``gpu``, ``max-gib``) are ignored
    unless ``strict``. A bad value raises SettingsError naming the key as given.
    """
    values: dict[str, object] = {}
    for raw_key, value in mapping.items():
        name = _KEYS.get(_norm_key(str(raw_key)))
        if name is None:
            if strict:
                raise SettingsError(str(raw_key), f"unknown setting (known: {', '.join(f.replace('_', '-') for f in FLAGS)})")
            continue
        values[name] = _coerce(name, str(raw_key), value)
    settings = Settings(**values)  # type: ignore[arg-type]
    try:
        validate_settings(settings)
    except SettingsError as exc:
        raw = next((k for k in mapping if FLAGS.get(_KEYS.get(_norm_key(str(k)), "")) == exc.flag), exc.flag)
        raise SettingsError(str(raw), exc.message) from None
    return settings


def _coerce(name: str, key: str, value: object) -> object:
    kind = {f.name: f.type for f in fields(Settings)}[name]
    if value is None and "None" in str(kind):
        return None
    if name in ("gradient_checkpointing", "flash_attention", "pure_precision"):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
            return value.lower() in ("true", "yes", "on", "1")
        raise SettingsError(key, f"expected true or false, got {value!r}")
    if name in ("context", "batch", "lora_rank", "zero", "tp", "pp", "gpus", "reference_parameters"):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(key, f"expected a whole number, got {value!r}")
        return value
    if name == "lora_targets":
        if isinstance(value, str):
            parts = tuple(p.strip() for p in value.split(",") if p.strip())
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            parts = tuple(value)
        else:
            raise SettingsError(key, f"expected module names (a list or comma-separated), got {value!r}")
        if len(parts) == 1 and parts[0].lower() in ("all", "all-linear"):
            return None
        return parts
    if not isinstance(value, str):
        raise SettingsError(key, f"expected a string, got {value!r}")
    return value


@dataclass(frozen=True)
class MemoryLine:
    name: str
    bytes: int
    exact: bool
    detail: str = ""


@dataclass(frozen=True)
class MemoryReport:
    settings: Settings
    dtype: str  # the storage dtype the weights line uses
    lines: tuple[MemoryLine, ...]
    total_bytes: int
    weights_bytes: Mapping[str, int]  # whole-model weight bytes per dtype, for the precision view
    compute_dtype: str = "bfloat16"
    kv_dtype: str = "bfloat16"
    notes: tuple[str, ...] = ()
    # LoRA or QLoRA training adapters of the model's own that are not peft's LoRA (a NeMo YAML's IA3 or bottleneck
    # adapters, a Python module's frozen base beside trainable layers): no LoRA rank or targets apply.
    own_adapters: bool = False

    def line(self, name: str) -> MemoryLine | None:
        return next((l for l in self.lines if l.name == name), None)


# --- resolving what the settings mean for this model -------------------------------------------


@dataclass(frozen=True)
class _Plan:
    storage: str  # dtype of the (frozen or trained) base weights
    compute: str  # 16-bit (or fp32) dtype activations and unquantized tensors use
    kv: str
    skip_modules: frozenset[str]
    notes: tuple[str, ...]


def _config_dtype(model: ModelReport) -> tuple[str | None, str, frozenset[str]]:
    spec = model.spec
    if spec is None:
        return None, "", frozenset()
    name, how = dtype_from_config(spec.dtype, spec.quantization)
    return name, how, skip_modules_from_config(spec.quantization)


def _plan(model: ModelReport, s: Settings) -> _Plan:
    notes: list[str] = []
    cfg_dtype, how, skip = _config_dtype(model)
    spec_float = None
    if model.spec is not None and model.spec.dtype:
        try:
            spec_float = normalize_dtype(model.spec.dtype)
        except UnknownDType:
            spec_float = None
    if s.dtype is not None:
        storage = normalize_dtype(s.dtype)
    elif s.mode == "qlora":
        storage = cfg_dtype if cfg_dtype and DTYPES[cfg_dtype].quantized else "nf4-dq"
    elif s.mode == "train" and s.optimizer == "adamw-fp32":
        storage = "float32"
    elif s.mode in ("train", "lora") and cfg_dtype and DTYPES[cfg_dtype].quantized:
        # A quantized checkpoint cannot be fully fine-tuned; train its 16-bit original.
        storage = spec_float if spec_float in FLOAT_BYTES else "bfloat16"
        notes.append(f"the config is {cfg_dtype}; {s.mode} uses its {storage} original")
    elif s.mode == "train" and cfg_dtype == "float32":
        # fp32 checkpoints (gpt2, bert) are fine-tuned in bf16 mixed precision unless asked otherwise.
        storage = "bfloat16"
    else:
        storage = cfg_dtype or "bfloat16"
        if how and cfg_dtype:
            notes.append(f"dtype {storage} from {how}")
        elif not cfg_dtype:
            # A model defined in Python (no spec) has no config.json to name a torch_dtype.
            notes.append("no torch_dtype in the config: assuming bfloat16" if model.spec is not None else
                         "the code sets no dtype: assuming bfloat16 (--dtype, or a budget's dtype, chooses another)")
    if storage in FLOAT_BYTES:
        compute = storage
    elif spec_float in SIXTEEN_BIT:
        compute = spec_float
    else:
        compute = "bfloat16"
    kv = normalize_dtype(s.kv_dtype) if s.kv_dtype else (compute if compute in FLOAT_BYTES else "bfloat16")
    unreplaced = model.tree.unreplaced_linears
    if unreplaced and DTYPES[storage].scheme in LINEAR_MODULES_ONLY:
        notes.append(f"bitsandbytes leaves {', '.join(sorted(unreplaced))} in {compute}: their class is not nn.Linear "
                     "itself, and transformers replaces nn.Linear alone")
    return _Plan(storage, compute, kv, skip if DTYPES[storage].quantized else frozenset(), tuple(notes))


# --- settings validation ------------------------------------------------------------------------


# The layouts of the models that generate text (the spec _decoder_spec finds: KV cache, logits, position limit).
GENERATING_LAYOUTS = ("decoder", "mamba", "hybrid", "gemma4", "gemma3n", "zamba", "classic")
# Encoders on their own (text, vision and audio towers, Q-Formers, resamplers): no KV cache.
ENCODER_LAYOUTS = frozenset({
    "encoder", "albert", "vit", "clip", "speech_encoder", "audio_encoder", "conformer_encoder", "qformer", "convnet",
    "swin", "blip_vision", "perceiver", "pixtral", "qwen2_vision", "qwen2_5_vision", "qwen3_vision", "internvl_vision",
    "got_ocr2_vision", "glm4v_vision", "step3p7_vision", "mllama_vision", "llama4_vision", "gemma4_vision", "gemma4_audio",
    "gemma3n_audio", "rice_vision", "kimi_k25_vision"})


def _decoder_spec(model: ModelReport) -> ModelSpec | None:
    """The spec whose attention / SSM layers generate text: the model's, or a nested text model's."""
    spec = model.spec
    if spec is None:
        return None
    if spec.family.layout in GENERATING_LAYOUTS:
        return spec
    if not holds_text_model(model.tree.root):
        return None
    for sub in spec.subspecs.values():
        if sub.family.layout in GENERATING_LAYOUTS:
            return sub
    vlm = retriever_vlm(spec)
    if vlm is not None:  # a ColVision retriever: its vision-language model's text model (one forward pass's cache)
        return next((sub for sub in vlm.subspecs.values() if sub.family.layout in GENERATING_LAYOUTS), None)
    return None


def _loss_logit_bytes(seq2seq: bool, pure: bool, compute_bytes: int) -> tuple[int, str]:
    """Bytes per logit at a training step's peak, and what they hold (LOSS_LOGIT_BYTES, LOSS_COPIES_UNCAST)."""
    if seq2seq and pure and compute_bytes < 4:
        return LOSS_COPIES_UNCAST * compute_bytes, "log-softmax, its gradient and the logits', in the compute dtype"
    return LOSS_LOGIT_BYTES, "the loss's fp32 logits, log-softmax and gradient"


def output_vocab(spec: ModelSpec) -> object:
    """The width of an encoder-decoder's LM head: the decoder's own vocabulary where its embeddings are not
    shared with the encoder's (Marian's decoder_vocab_size), else vocab_size."""
    v = spec.values
    if v.get("shared_embedding") is False and isinstance(v.get("decoder_vocab_size"), int):
        return v["decoder_vocab_size"]
    return v.get("vocab_size")


def _seq2seq_spec(model: ModelReport) -> ModelSpec | None:
    """The spec of an encoder-decoder model that has its decoder (and so a KV cache): the model's, or a nested
    text model's (BLIP-2's and InstructBLIP's Flan-T5)."""
    spec = model.spec
    if spec is not None and spec.family.layout != "seq2seq":
        spec = spec.subspecs.get("text") if holds_text_model(model.tree.root) else None
    if spec is None or spec.family.layout != "seq2seq" or spec.head in ENCODER_ONLY_HEADS:
        return None
    return spec


def position_limit(model: ModelReport) -> PositionLimit | None:
    """The decoder's position limit: a decoder-only model's, or an encoder-decoder's decoder's, or a text
    encoder's learned table (layouts/encoder.text_positions); None if none.

    A learned position table (GPT-2, OPT, BART/mBART's max_position_embeddings, Whisper's
    max_target_positions: position_rows > 0; BART's 2 offset rows are not usable positions) has no
    row past the limit: hard. Rotary and ALiBi models run past it (rope scaling, or degraded): soft.
    T5 and Switch use relative position buckets, which no length exceeds (max_positions is None).
    A model with no spec (a Python class) has the limit its analysis read from its config, if any.
    """
    if model.spec is None:
        return model.positions
    text = next((t for t in dual_towers(model) if t.name == "text" and t.tokens is not None), None)
    if text is not None and text.model.spec is not None:  # a dual encoder's text tower (CLIP's 77)
        assert text.tokens is not None
        return PositionLimit(text.tokens, f"text_config.{text.model.spec.key_label('max_positions')}", hard=True)
    longest = text_positions(model.spec)
    if longest is not None:  # a text encoder's learned table (RoBERTa's less its padding offset)
        key = model.spec.key_label("max_positions")
        return PositionLimit(longest, key if longest == model.spec.values.get("max_positions") else
                             f"{key} less the padding offset", hard=True)
    spec = _seq2seq_spec(model) or _decoder_spec(model)
    tokens = spec.values.get("max_positions") if spec is not None else None
    if spec is None or not isinstance(tokens, int):
        return None
    key = spec.key_label("max_positions")
    # (CTRL's sinusoidal table is a buffer of fixed rows it indexes: "fixed_positions")
    return PositionLimit(tokens, key, hard=bool(spec.values.get("position_rows") or spec.values.get("fixed_positions")))


def _seq2seq_heads(spec: ModelSpec) -> tuple[int | None, int | None]:
    v = spec.values
    enc, dec, kv = v.get("encoder_heads"), v.get("decoder_heads"), v.get("decoder_kv_heads")
    if spec.head == "causal_lm":  # the decoder alone (BartForCausalLM)
        return (dec, kv if isinstance(kv, int) else dec) if isinstance(dec, int) else (None, None)
    if not isinstance(enc, int):
        return None, None
    if spec.head in ENCODER_ONLY_HEADS or not isinstance(dec, int):
        return enc, enc
    # Tensor parallel splits both stacks' heads: it must divide both, i.e. their gcd (equal in every real config).
    return math.gcd(enc, dec), (kv if isinstance(kv, int) else dec)


def _attention_heads(model: ModelReport) -> tuple[int | None, int | None]:
    spec = _decoder_spec(model) or model.spec
    if spec is None:
        return None, None
    if spec.family.layout == "seq2seq":
        return _seq2seq_heads(spec)
    heads = spec.values.get("num_heads")
    kv = spec.values.get("num_kv_heads")
    if spec.values.get("kv_lora_rank"):
        kv = None  # MLA: one latent shared by all heads, replicated under TP
    return (heads if isinstance(heads, int) else None), (kv if isinstance(kv, int) else None)


def validate_settings(settings: Settings, model: ModelReport | None = None) -> None:
    """Raise SettingsError (naming the flag) for settings no run could have."""
    _validate(settings, model, _TreeFacts(model.tree) if model is not None else None)


def _validate(settings: Settings, model: ModelReport | None, facts: "_TreeFacts | None") -> None:
    s = settings
    if s.mode not in MODES:
        raise SettingsError("--mode", f'"{s.mode}" is not a mode (choose {", ".join(MODES)})')
    storage = None
    if s.dtype is not None:
        try:
            storage = normalize_dtype(s.dtype)
        except UnknownDType as exc:
            raise SettingsError("--dtype", str(exc)) from None
    if s.kv_dtype is not None:
        try:
            kv = normalize_dtype(s.kv_dtype)
        except UnknownDType as exc:
            raise SettingsError("--kv-dtype", str(exc)) from None
        if kv not in KV_DTYPES:
            raise SettingsError("--kv-dtype", f'the KV cache is stored in {", ".join(KV_DTYPES)}, not {kv}')
    if s.optimizer not in OPTIMIZERS:
        raise SettingsError("--optimizer", f'"{s.optimizer}" is not an optimizer (choose {", ".join(OPTIMIZERS)})')
    if not isinstance(s.pure_precision, bool):
        raise SettingsError("--pure-precision", f"expected true or false, got {s.pure_precision!r}")
    if s.reference_model is not None and s.reference_model not in FLOAT_BYTES:
        raise SettingsError("--reference-model", f'the reference copy is held in {", ".join(FLOAT_BYTES)}, not '
                                                 f'{s.reference_model!r}')
    if s.reference_parameters is not None:
        if isinstance(s.reference_parameters, bool) or not isinstance(s.reference_parameters, int):
            raise SettingsError("--reference-parameters", f"expected a whole number, got {s.reference_parameters!r}")
        if not 1 <= s.reference_parameters <= MAX_PARAMETERS:
            raise SettingsError("--reference-parameters",
                                f"must be between 1 and {MAX_PARAMETERS:,}, got {s.reference_parameters:,}")
        if s.reference_model is None:
            raise SettingsError("--reference-parameters", "needs --reference-model, the dtype that model is held in")
    for name, lo, hi in (("context", 1, MAX_CONTEXT), ("batch", 1, MAX_BATCH), ("lora_rank", 1, 1 << 20),
                         ("zero", 0, 3), ("tp", 1, MAX_PARALLEL), ("pp", 1, MAX_PARALLEL), ("gpus", 1, MAX_PARALLEL)):
        value = getattr(s, name)
        if name == "context" and value is None:
            continue  # the model's own (with_context)
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(FLAGS[name], f"expected a whole number, got {value!r}")
        if not lo <= value <= hi:
            raise SettingsError(FLAGS[name], f"must be between {lo:,} and {hi:,}, got {value:,}")
    if s.gpus % (s.tp * s.pp):
        raise SettingsError("--gpus", f"{s.gpus} GPUs cannot be split into tensor parallel {s.tp} × pipeline parallel {s.pp}")
    if s.zero and s.mode == "inference":
        raise SettingsError("--zero", "ZeRO shards training state; inference has none (use --tp or --pp to split a model)")
    if storage is not None:
        quantized = DTYPES[storage].quantized
        if s.mode == "train" and quantized:
            raise SettingsError("--dtype", f"full fine-tuning needs float weights, not {storage}; use --mode qlora to train adapters on a {storage} base")
        if s.mode == "qlora" and not quantized:
            raise SettingsError("--dtype", f"qlora trains adapters on a quantized base; {storage} is not quantized (use --mode lora)")
        if s.mode != "inference" and storage.startswith("gguf"):
            raise SettingsError("--dtype", f"{storage} is an inference format (llama.cpp); it cannot be trained")
        if s.mode == "train" and s.optimizer == "adamw-fp32" and storage != "float32":
            raise SettingsError("--optimizer", f"adamw-fp32 trains float32 weights, but --dtype is {storage}")
    if s.lora_targets is not None and not s.lora_targets:
        raise SettingsError("--lora-targets", "name at least one module (or leave it out for every linear layer)")
    if model is None:
        return
    heads, kv = _attention_heads(model)
    if s.tp > 1:
        if heads is None:
            raise SettingsError("--tp", "this model has no attention heads to split over tensor-parallel GPUs")
        if heads % s.tp:
            raise SettingsError("--tp", f"tensor parallel {s.tp} does not divide the {heads} attention heads")
        if kv is not None and kv % s.tp and s.tp % kv:
            raise SettingsError("--tp", f"tensor parallel {s.tp} neither divides nor is a multiple of the {kv} key/value heads")
    assert facts is not None
    layers = facts.layer_count
    if s.pp > 1 and s.pp > layers:
        raise SettingsError("--pp", f"pipeline parallel {s.pp} is more stages than the model's {layers} "
                                    f"layer{'s' if layers != 1 else ''}")
    if s.mode in ("lora", "qlora") and not _peft_adapters(facts):  # (peft's own adapters: no plan to check)
        modules = facts.memo(("lora", s.lora_rank, s.lora_targets),
                             lambda: lora_adapter_breakdown(model.tree, s.lora_rank, s.lora_targets))
        if not modules:
            known = ", ".join(sorted(linear_modules(model.tree)))
            if not known:
                raise SettingsError("--lora-targets", "the model has no linear layers for LoRA to adapt")
            what = ", ".join(s.lora_targets) if s.lora_targets else "linear layers"
            raise SettingsError("--lora-targets", f"no module matches {what} (linear modules: {known})")
        spec = _decoder_spec(model)
        model_type = spec.model_type if spec is not None else None
        refused = sorted(m for m in modules if peft_refuses_lora(model_type, m))
        if refused:
            others = sorted(m for m in modules if not peft_refuses_lora(model_type, m))
            raise SettingsError("--lora-targets", f"peft refuses LoRA on {', '.join(refused)} of a Mamba-based model "
                                                  f"({model_type})" + (", which every linear layer includes"
                                                                            if s.lora_targets is None else "")
                                + (f": name the others (--lora-targets {','.join(others)})" if others else ""))
        if s.lora_targets is not None:
            targets = s.lora_targets
            holders = facts.memo(("holders",), lambda: _linear_holders(model.tree))
            held = next((t for t in targets if t in holders), None)
            if held is not None:
                raise SettingsError("--lora-targets", f"{held} also names {holders[held][0]}, a module that holds the "
                                                      f"linear layer {holders[held][1]} and is not one: peft refuses it "
                                                      "as a target (name the linear layers inside it)")
            for module, (in_f, out_f) in facts.memo(("dims", targets), lambda: _target_dims(model.tree, targets)).items():
                if s.lora_rank > min(in_f, out_f):
                    raise SettingsError("--lora-rank", f"rank {s.lora_rank} is larger than {module} ({in_f}→{out_f}); the adapter cannot exceed min(in, out) = {min(in_f, out_f)}")


# --- LoRA -------------------------------------------------------------------------------------

_PEFT_REFUSED_MAMBA_MODULES = frozenset({"out_proj", "conv1d"})
_PEFT_MAMBA_TYPES = frozenset({"mamba", "mamba2", "falcon_mamba", "falcon_h1", "nemotron_h"})


def peft_refuses_lora(model_type: str | None, module: str) -> bool:
    """Whether peft refuses LoRA on ``module`` (a leaf name) of a ``model_type`` model: a Mamba-based model's
    out_proj and conv1d (tuners_utils._check_lora_target_modules_mamba), all-linear included, with a
    ValueError, not a module skipped."""
    return model_type in _PEFT_MAMBA_TYPES and module in _PEFT_REFUSED_MAMBA_MODULES


def linear_modules(tree: ParamTree) -> frozenset[str]:
    """Module names of the model's linear layers (what LoRA targets name), the head excluded."""
    return frozenset(t.module for _p, t, _m, _f in tree.root.iter_tensors()
                     if t.is_linear_weight and t.module not in HEAD_MODULES)


# An encoder's untied MLM decoder over the vocabulary (layouts/encoder.py's mlm_head: cls.predictions.decoder,
# lm_head.decoder, ELECTRA's generator_lm_head, DistilBERT's vocab_projector) is the model's output embeddings.
MLM_OUTPUT_MODULES = frozenset({"decoder", "generator_lm_head", "vocab_projector"})


def is_mlm_output(path: str, t: Tensor) -> bool:
    """Whether ``t`` (at tree ``path``) is an encoder's MLM decoder, which peft's "all-linear" leaves out as
    it leaves out lm_head (the model's get_output_embeddings()). DeBERTa's non-legacy MLM head has no decoder:
    its get_output_embeddings() is the transform's dense layer, which the layout holds in an ``mlm_output`` node."""
    node = path.rsplit(".", 1)[-1]
    return (node == "mlm_head" and t.module in MLM_OUTPUT_MODULES) or node == "mlm_output"


def is_output_head(path: str, t: Tensor, heads: frozenset[str] = HEAD_MODULES) -> bool:
    """Whether ``t`` (at tree ``path``) is the output layer peft's all-linear leaves out: a head module (``heads``;
    formats/lora.py names more of them) but in an ``adaptable_head`` node, or an encoder's MLM decoder."""
    if t.module in heads:
        return path.rsplit(".", 1)[-1] != ADAPTABLE_HEAD_NODE
    return is_mlm_output(path, t)


def _is_target(t: Tensor, targets: tuple[str, ...] | None, path: str = "") -> bool:
    if not t.is_linear_weight:
        return False
    if targets is None:  # peft "all-linear": every linear layer but the output layer
        return not is_output_head(path, t)
    return t.module in targets


def _adapter_matrices(t: Tensor, rank: int, targets: tuple[str, ...] | None,
                      path: str = "") -> tuple[int, int] | None:
    """Elements of peft's ``lora_A`` (r × in) and ``lora_B`` (out × r) on ``t``'s linear, if it is targeted."""
    if not _is_target(t, targets, path):
        return None
    assert t.in_features is not None and t.out_features is not None
    return rank * t.in_features, rank * t.out_features


def _target_dims(tree: ParamTree, targets: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Smallest (in, out) seen for each targeted module name."""
    out: dict[str, tuple[int, int]] = {}
    for p, t, _m, _f in tree.root.iter_tensors():
        if _is_target(t, targets, p):
            assert t.in_features is not None and t.out_features is not None
            dims = (t.in_features, t.out_features)
            if t.module not in out or min(dims) < min(out[t.module]):
                out[t.module] = dims
    return out


def lora_adapter_breakdown(tree: ParamTree, rank: int, targets: tuple[str, ...] | None = None) -> dict[str, int]:
    """LoRA parameters per targeted module name, summed over every occurrence.

    peft's LoRA on a linear ``in → out`` adds ``lora_A (r × in)`` and
    ``lora_B (out × r)``: ``r·(in + out)`` parameters. ``targets`` None means
    every linear layer except the output head (peft's "all-linear"). Fused
    expert weights (kind "expert") are not nn.Linear modules and are not
    adapted here.
    """
    out: dict[str, int] = {}
    for path, t, mult, _frozen in tree.root.iter_tensors(instances=True):  # (a tied module's each use: its own)
        matrices = _adapter_matrices(t, rank, targets, path)
        if matrices is not None:
            out[t.module] = out.get(t.module, 0) + mult * sum(matrices)
    return out


def _linear_holders(tree: ParamTree) -> dict[str, tuple[str, str]]:
    """The modules that hold a linear layer inside a node (a tensor's dotted name above its module: Gemma 4's towers'
    Gemma4ClippableLinear ``q_proj``, whose nn.Linear is ``q_proj.linear``), by name: (the holder's dotted name,
    the linear layer's). peft refuses a target name that reaches one."""
    out: dict[str, tuple[str, str]] = {}
    for _path, t, _mult, _frozen in tree.root.iter_tensors():
        if t.kind == "linear" and len(t.shape) == 2:
            parts = t.name.split(".")[:-1]  # the module's dotted name, less the parameter
            for i in range(len(parts) - 1):
                out.setdefault(parts[i], (".".join(parts[:i + 1]), ".".join(parts)))
    return out


def lora_adapter_params(tree: ParamTree, rank: int, targets: tuple[str, ...] | None = None) -> int:
    return sum(lora_adapter_breakdown(tree, rank, targets).values())


# --- parameter placement over tensor and pipeline parallel GPUs ---------------------------------


def _layer_kinds(stack: ParamNode) -> tuple[ParamNode, ...]:
    """The layer kinds a mixed stack holds (DeepSeek's dense + MoE layers, Switch's dense + sparse), else ()."""
    if stack.repeat != 1:
        return ()
    return tuple(c for c in stack.children if c.name in LAYER_STACK_NAMES)


def _layer_stacks(root: ParamNode) -> Iterator[tuple[ParamNode, int]]:
    """(node, occurrences) for each node whose repeat counts layers.

    A repeated stack node, or one kind inside a mixed stack even when it is a single layer (DeepSeek-V2's
    first dense layer, a Switch stack with one sparse layer); the mixed stack itself is only a container.
    """
    for path, n, mult in root.walk():
        if n.name not in LAYER_STACK_NAMES:
            continue
        kinds = _layer_kinds(n)
        if n.repeat > 1:
            yield n, mult
        elif n.children and all(_ENTRY_NAME.fullmatch(c.name) for c in n.children):
            # A Python module's ModuleList (the static analysis's trees): its entries, equal ones
            # grouped (`0-11 ×12`), are the layers.
            for entry in n.children:
                yield entry, mult
        elif not kinds and not any(part in LAYER_STACK_NAMES for part in path.split(".")[1:-1]):
            yield n, mult  # a stack of one layer (num_hidden_layers: 1) is that layer
        for kind in kinds:
            # (repeated kinds, and kinds shown as runs of equal layers (freeze tuning's), are yielded as stacks of
            # their own)
            if kind.repeat == 1 and not (kind.children and all(_ENTRY_NAME.fullmatch(c.name) for c in kind.children)):
                yield kind, mult


def layers_the_backward_reaches(tree: ParamTree) -> int | None:
    """The layers from the first one that holds a trainable parameter to the last (LLaMA-Factory's freeze tuning of
    the last layers: autograd keeps nothing for the frozen layers before them, whose inputs need no gradient);
    None where every layer is reached: a trainable tensor before the stacks (the embeddings), or no trainable layer
    (the trainable tensors elsewhere: an adapters node, a head), where the estimate keeps them all."""
    stacks = list(_layer_stacks(tree.root))
    if not stacks:
        return None
    first = stacks[0][0]
    for _path, node, _mult in tree.root.walk():
        if node is first:
            break
        if node.own and not node.frozen and node.trainable:
            return None  # (a trainable tensor before the layers: the gradient runs through them all)
    before = 0
    for node, mult in stacks:
        if node.trainable:
            return sum(n.repeat * m for n, m in stacks) - before
        before += node.repeat * mult
    return None


def _layer_count(root: ParamNode) -> int:
    """Layers in the model (an encoder-decoder's encoder + decoder layers): the repeats of every layer stack."""
    return sum(n.repeat * mult for n, mult in _layer_stacks(root))


def _activation_layers(model: ModelReport, facts: "_TreeFacts") -> tuple[int, int, str]:
    """(the layers a step's tokens run through, each keeping its activations; the stored layers the
    tree's per-layer sums cover; what the estimate's line says of them). Every layer stack's layers,
    but ALBERT's shared ones as often as it applies them (num_hidden_layers), and in a vision-language
    model its language model's alone (layouts/multimodal.py's ``language_model`` node): its vision
    tower runs over image patches, whose number a config does not give."""
    spec = model.spec
    stored = max(1, facts.layer_count)
    if spec is not None and spec.family.layout == "albert":
        return spec.int("num_layers"), stored, " (ALBERT's shared layers, as often as they are applied)"
    text = _decoder_spec(model)
    lm = next((c for c in model.tree.root.children if c.name == LANGUAGE_MODEL_NODE), None)
    if spec is None or text is None or text is spec or lm is None:
        return stored, stored, ""
    layers = max(1, _layer_count(lm))
    # The towers the composite holds (Gemma 4's are optional: a config may build neither).
    names = [c.name for c in model.tree.root.children if c is not lm]
    towers = [what for what, words in (("vision", ("vision", "visual")), ("audio", ("audio",)))
              if any(w in name for name in names for w in words)
              and not (what == "vision" and image_tower(model) is not None)]  # (that one is estimated on its own)
    over = {"vision": "image patches", "audio": "audio frames"}
    if not towers:
        return layers, layers, " (the language model's)"
    whose = f"the {' and '.join(towers)} tower{'s' if len(towers) > 1 else ''}'{'' if len(towers) > 1 else 's'}"
    return layers, layers, f" (the language model's; {whose}, over {' and '.join(over[t] for t in towers)}, are not counted)"


# A dual encoder's towers (layout "clip": CLIP's, SigLIP's): (sub-config, the tree's node).
_DUAL_TOWERS = (("text", "text_model"), ("vision", "vision_model"))


@dataclass(frozen=True)
class Tower:
    """One tower of a dual encoder, as a model of its own: its sub-config's spec and its subtree."""

    name: str  # "text" or "vision"
    model: ModelReport
    # The tokens it runs over where the model fixes them: the text tower's position table, the vision
    # tower's tokens for one image at its image_size (layouts/encoder.text_positions, image_tokens).
    tokens: int | None
    # A vision-language model's tower runs this many times over each image (LLaVA-NeXT's tiles and the whole
    # image), each pass over ``tokens``; ``passes_why`` says where the number comes from.
    passes: int = 1
    passes_why: str = ""


def dual_towers(model: ModelReport) -> tuple[Tower, ...]:
    """The towers of a dual encoder (CLIP, SigLIP; CLIPForImageClassification has the vision one
    alone), each to be estimated at its own tokens: the text at the context, the vision at one
    image's. Empty for any other model."""
    spec = model.spec
    if spec is None or spec.family.layout != "clip":
        return ()
    nodes = {c.name: c for c in model.tree.root.children}
    towers = []
    for key, node_name in _DUAL_TOWERS:
        sub, held = spec.subspecs.get(key), nodes.get(node_name)
        if sub is None or held is None:
            continue
        towers.append(_tower(model, key, sub, held, text_positions(sub) if key == "text" else image_tokens(sub)))
    return tuple(towers)


def _tower(model: ModelReport, name: str, sub: ModelSpec, held: ParamNode, tokens: int | None) -> Tower:
    """The sub-model ``sub`` that the tree holds as ``held``, as the model of its bare class."""
    return Tower(name, replace(model, name=held.name, spec=as_base(sub), tree=replace(model.tree, root=held)), tokens)


# The node of a vision-language model's tree that holds its vision tower (layouts/multimodal.py).
IMAGE_TOWER_NODE = "vision_tower"


def image_tower(model: ModelReport) -> Tower | None:
    """A vision-language model's vision tower where it runs over images of its config's image_size, with one
    image's tokens: once per image (the family row's ``one_pass_per_image``: LLaVA 1.5, VipLLaVA, PaliGemma,
    Gemma 3, DeepSeek-VL), or once per tile and once over the whole image (LLaVA-NeXT, LLaVA-NeXT-Video,
    LLaVA-OneVision: _tiled_passes). None for another model, or one whose images are of any size or tiled by its
    processor's settings (Idefics 3, Qwen2-VL). A ColVision retriever's is its vision-language model's."""
    spec = retriever_vlm(model.spec) or model.spec
    if spec is None:
        return None
    pinpoints = spec.values.get("image_grid_pinpoints")
    if not spec.values.get("one_pass_per_image") and pinpoints is None:
        return None
    sub = spec.subspecs.get("vision")
    held = next((c for c in model.tree.root.children if c.name == IMAGE_TOWER_NODE), None)
    tokens = image_tokens(sub) if sub is not None else None
    if sub is None or held is None or tokens is None:
        return None
    tower = _tower(model, "vision", sub, held, tokens)
    if pinpoints is None:
        return tower
    side = sub.values.get("image_size")
    passes = _tiled_passes(pinpoints, side) if type(side) is int and side > 0 else None
    return replace(tower, passes=passes[0], passes_why=passes[1]) if passes is not None else None


def _tiled_passes(pinpoints: object, side: int) -> tuple[int, str] | None:
    """(the most times LLaVA-NeXT's tower runs over one image, why): an image resized to the grid pinpoint
    (height, width) that fits it best is cut into ceil(height / side) · ceil(width / side) tiles of the tower's
    image_size, and the whole image resized makes one pass more (transformers' image_size_to_num_patches); an
    image of a pinpoint's own size gets that pinpoint, so the pinpoint of the most tiles is the most. None where
    the pinpoints are not a list of [height, width] pairs of positive ints (transformers cannot tile by them)."""
    if not isinstance(pinpoints, (list, tuple)) or not pinpoints:
        return None
    best: tuple[int, int, int] | None = None
    for point in pinpoints:
        if not isinstance(point, (list, tuple)) or len(point) != 2 or \
                any(type(d) is not int or d <= 0 for d in point):
            return None
        height, width = point
        tiles = -(-height // side) * -(-width // side)
        if best is None or tiles > best[0]:
            best = (tiles, height, width)
    assert best is not None
    tiles, height, width = best
    return tiles + 1, (f"{tiles} tile{'s' if tiles != 1 else ''} of its largest grid pinpoint, {height} × {width}, "
                       f"and the whole image")


def _image_tower_activations(model: ModelReport, s: Settings, facts: "_TreeFacts",
                             estimate: Callable[[ModelReport, Settings, "_TreeFacts"], tuple[int, str]],
                             lora: bool) -> tuple[int, str] | None:
    """A vision-language model's vision tower's activations (image_tower) for one image per sequence, by
    ``estimate`` at one image's tokens; in a LoRA step, nothing where no adapter is in the tower (frozen
    throughout, it keeps nothing for the backward pass). None where the tower is not modelled."""
    tower = facts.memo(("image_tower",), lambda: image_tower(model))
    if tower is None:
        return None
    assert tower.tokens is not None
    tower_facts = facts.memo(("tower_facts", "image"), lambda: _TreeFacts(tower.model.tree))
    if lora and not facts.memo(("tower_adapted", s.lora_targets), lambda: any(
            _is_target(t, s.lora_targets, p) for p, t, _m, _f, _s in tower_facts.flat)):
        return 0, f"vision tower: no LoRA adapter in it ({tower.tokens:,} tokens an image): keeps nothing"
    # Every pass of every image goes through the tower as one batch (transformers concatenates LLaVA-NeXT's tiles).
    total, source = estimate(tower.model, replace(s, context=tower.tokens, batch=s.batch * tower.passes), tower_facts)
    passes = f"up to {tower.passes} passes ({tower.passes_why}) of " if tower.passes > 1 else ""
    return total, f"vision tower, one image a sequence, {passes}{tower.tokens:,} tokens: {source}"


def _towers_activations(model: ModelReport, s: Settings, facts: "_TreeFacts",
                        estimate: Callable[[ModelReport, Settings, "_TreeFacts"], tuple[int, str]],
                        training: bool) -> tuple[int, str] | None:
    """A dual encoder's activations, each tower's by ``estimate`` at its own tokens (the text tower
    at the context, the vision tower at one image's): their sum in training, which keeps both for
    the backward pass; their larger in inference, where one tower runs after the other. None for
    another model."""
    towers = facts.memo(("towers",), lambda: dual_towers(model))
    if not towers:
        return None
    parts = []
    for tower in towers:
        own = s if tower.name == "text" or tower.tokens is None else replace(s, context=tower.tokens)
        tower_facts = facts.memo(("tower_facts", tower.name), lambda: _TreeFacts(tower.model.tree))
        total, source = estimate(tower.model, own, tower_facts)
        parts.append((total, f"{tower.name} tower, {own.context:,} tokens: {source}"))
    total = sum(b for b, _ in parts) if training else max(b for b, _ in parts)
    return total, ("sum of " if training else "larger of ") + "; ".join(source for _, source in parts) \
        if len(parts) > 1 else parts[0][1]


def _feature_map_activations(model: ModelReport, s: Settings, compute: str, training: bool) -> tuple[int, str] | None:
    """A ResNet's, RegNet's or ConvNeXt's activations for ``s.batch`` images of ``s.context`` × ``s.context`` pixels
    (layouts/convnet.feature_maps: what torch's autograd saves, tensor by tensor, exact against it in fp32,
    tests/parity/test_feature_maps_parity.py): in training, the values it keeps for the backward pass, in the
    compute dtype, and max pooling's int64 indices; in inference, the most one op holds at once. None in a LoRA
    step (adapters on convolutions: not modelled)."""
    assert model.spec is not None and s.context is not None
    if s.mode not in ("train", "inference"):
        return None
    maps = feature_maps(model.spec, s.context)
    cb = FLOAT_BYTES.get(compute, 2)
    images = f"{s.batch} image{'s' if s.batch != 1 else ''} of {s.context:,} × {s.context:,} pixels"
    if training:
        return s.batch * (maps.saved * cb + 8 * maps.indices), (
            f"{images}: {maps.saved:,} values an image kept for the backward pass, {cb} bytes each"
            + (f", + {maps.indices:,} max-pooling indices (int64)" if maps.indices else "")
            + ", as torch's autograd saves them")
    return s.batch * maps.peak * cb, (f"{images}: the most one layer holds at once, its input, its output and its "
                                      f"block's input ({maps.peak:,} values an image)")


def _in_stack(path: str) -> bool:
    return any(part in LAYER_STACK_NAMES for part in path.split(".")[1:])


TensorBytes = Callable[[str, Tensor, int, bool], int]


def _tp_split(t: Tensor, b: int, tp: int) -> int:
    # Megatron splits linear layers (column/row parallel), experts and the vocab-parallel embedding; norms and biases are
    # replicated. A LoRA adapter's matrices go with the layer they adapt.
    if tp > 1 and t.kind in ("linear", "expert", "embedding", "lora"):
        return -(-b // tp)
    return b


def per_gpu_bytes(tree: ParamTree, fn: TensorBytes, tp: int = 1, pp: int = 1) -> int:
    """Bytes one GPU holds of a per-tensor quantity, under tensor and pipeline parallelism.

    Pipeline stages take ``ceil(L/pp)`` layers each; the first also holds what
    precedes the layer stack (embeddings), the last what follows (final norm,
    head); the larger of the two is the per-GPU figure.
    """
    flat = [(p, t, m, f, _in_stack(p)) for p, t, m, f in tree.root.iter_tensors()]
    values = [fn(p, t, m, f) for p, t, m, f, _s in flat]
    return _pipeline(_split_bytes(flat, values, tp), pp, tree.root if pp > 1 else None)


def _split_bytes(flat: Iterable[tuple[str, Tensor, int, bool, bool]], values: Iterable[int],
                 tp: int) -> tuple[int, int, int]:
    """(before the layer stack, the stack, after it) bytes per GPU under tensor parallel ``tp``,
    from each tensor's bytes (``values``, in ``flat``'s order)."""
    first = last = layers = 0
    seen_stack = False
    for (_path, t, _mult, _frozen, in_stack), value in zip(flat, values):
        b = _tp_split(t, value, tp)
        if in_stack:
            layers += b
            seen_stack = True
        elif seen_stack:
            last += b
        else:
            first += b
    return first, layers, last


def _pipeline(split: tuple[int, int, int], pp: int, root: ParamNode | None, n_layers: int | None = None) -> int:
    first, layers, last = split
    if pp == 1:
        return first + layers + last
    n = max(1, n_layers if n_layers is not None else _layer_count(root))  # type: ignore[arg-type]
    return max(first, last) + -(-layers * -(-n // pp) // n)


class _TreeFacts:
    """Aggregates of one parameter tree that every estimate would otherwise recompute by walking it.

    The fit searches estimate the same model under dozens of settings; what depends only on the
    tree (and the few settings named in each memo key) is computed once per ``_TreeFacts``.
    """

    def __init__(self, tree: ParamTree) -> None:
        self.tree = tree
        self._flat: tuple[tuple[str, Tensor, int, bool, bool], ...] | None = None
        self._memo: dict[tuple, object] = {}
        self._layers: int | None = None

    @property
    def flat(self) -> tuple[tuple[str, Tensor, int, bool, bool], ...]:
        """(path, tensor, occurrences, frozen, in the layer stack) in ``iter_tensors`` order."""
        if self._flat is None:
            self._flat = tuple((p, t, m, f, _in_stack(p)) for p, t, m, f in self.tree.root.iter_tensors())
        return self._flat

    def memo(self, key: tuple, compute: Callable[[], object]) -> Any:
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = compute()
            return value

    @property
    def layer_count(self) -> int:
        if self._layers is None:
            self._layers = _layer_count(self.tree.root)
        return self._layers

    def per_gpu(self, key: tuple, fn: TensorBytes, tp: int, pp: int) -> int:
        """``per_gpu_bytes(tree, fn, tp, pp)`` for an ``fn`` that ``key`` fully determines."""
        split = self.memo(("split", key, tp), lambda: self._split(key, fn, tp))
        return _pipeline(split, pp, None, self.layer_count if pp > 1 else None)

    def _split(self, key: tuple, fn: TensorBytes, tp: int) -> tuple[int, int, int]:
        # fn's value per tensor does not depend on tp: computed once per key, then split per tp.
        values = self.memo(("values", key), lambda: tuple(fn(p, t, m, f) for p, t, m, f, _s in self.flat))
        return _split_bytes(self.flat, values, tp)


def _largest_layer_bytes(tree: ParamTree, fn: TensorBytes) -> int:
    """Bytes of one layer (the largest kind), the unit ZeRO-3 gathers at a time."""
    best = 0
    for n, _mult in _layer_stacks(tree.root):
        one = 0
        for p, t, m, f in ParamNode(n.name, n.tensors, n.children).iter_tensors():
            one += fn(p, t, m, f)
        best = max(best, one)
    return best


# --- KV cache ---------------------------------------------------------------------------------


def sliding_window(spec: ModelSpec) -> int | None:
    """The window sliding layers keep, or None: unset, or switched off (Qwen's ``use_sliding_window: false``)."""
    v = spec.values
    if v.get("use_sliding_window") is False:
        return None  # Qwen2Config and kin null sliding_window in __post_init__: attention and cache see everything
    window = v.get("sliding_window")
    return window if isinstance(window, int) and window > 0 else None


def sliding_layers(spec: ModelSpec) -> tuple[bool, ...]:
    """For each decoder layer, whether it is a sliding-window layer."""
    v = spec.values
    n = int(v.get("num_layers") or 0)
    window = sliding_window(spec)
    types = v.get("layer_types")
    if isinstance(types, tuple) and len(types) == n:
        return tuple(t in ("sliding_attention", "chunked_attention") and bool(window) for t in types)
    if not window:
        return (False,) * n
    pattern = v.get("sliding_pattern")
    if isinstance(pattern, int) and pattern > 0:
        # transformers: layer i is sliding when (i + 1) % pattern != 0 (gemma2: 2, gemma3: 6).
        return tuple((i + 1) % pattern != 0 for i in range(n))
    if spec.model_type in ALL_LAYERS_SLIDING:
        return (True,) * n
    return (False,) * n


@dataclass(frozen=True)
class KVCache:
    bytes: int
    exact: bool
    detail: str


def _cache_element_bytes(dtype: str) -> int:
    return 1 if dtype == "float8" else FLOAT_BYTES[dtype]  # fp8 caches keep one scale per tensor, not per value


def kv_cache(model: ModelReport, context: int, batch: int, kv_dtype: str = "bfloat16", tp: int = 1, pp: int = 1,
             conv_dtype: str | None = None) -> KVCache | None:
    """KV cache (or SSM state) bytes per GPU for ``batch`` sequences of ``context`` tokens; None if not modelled.
    ``conv_dtype``: the dtype a recurrent layer's convolution state is kept in, the model's (a float8 KV cache
    quantizes the attention layers' keys and values, not that state); ``kv_dtype``'s where not given.

    An encoder-decoder model caches for ``context`` decoded tokens and ``context`` encoder positions
    (Whisper: its fixed ``max_source_positions``); see ``seq2seq_kv_cache``.
    """
    conv_dtype = conv_dtype or kv_dtype
    elem_bytes, conv_bytes = _cache_element_bytes(kv_dtype), _cache_element_bytes(conv_dtype)
    seq2seq = _seq2seq_spec(model)
    if seq2seq is not None:
        return seq2seq_kv_cache(seq2seq, context, batch, kv_dtype, elem_bytes, tp, pp)
    if model.spec is not None and model.spec.family.decoder_cache and model.spec.head == "causal_lm":
        return _decoder_mode_cache(model.spec, context, batch, kv_dtype, elem_bytes, tp, pp)
    spec = _decoder_spec(model)
    if spec is None:
        return None
    v = spec.values
    n = int(v.get("num_layers") or 0)
    stage = -(-n // pp)
    mixers = v.get("layer_mixers")
    if isinstance(mixers, tuple):  # a stack whose layers differ in what they cache (hybrid SSM / attention)
        return _mixed_cache(spec, mixers, context, batch, kv_dtype, elem_bytes, tp, pp, conv_dtype, conv_bytes)
    if v.get("kv_cache") is False:  # (GPT-1: its model takes no cache; each step recomputes the sequence)
        return KVCache(0, True, f"no KV cache: {spec.architecture} keeps none (each generated token recomputes the "
                                "whole sequence)")
    if spec.family.layout == "mamba":
        # transformers' cache per layer and sequence: the last conv_kernel inputs of the convolution, in
        # the model's dtype (Mamba-2's convolution also runs over B and C: 2·n_groups·state_size more
        # channels), and the recurrent state, intermediate × state_size (Mamba-2's heads × head_dim are
        # the intermediate width), which it keeps in float32.
        inner, state, kernel = spec.int("intermediate_size"), spec.int("state_size"), spec.int("conv_kernel")
        groups = v.get("n_groups")
        channels = inner + 2 * groups * state if isinstance(groups, int) else inner
        per_layer = -(-channels // tp) * kernel * conv_bytes + -(-inner // tp) * state * 4
        total = min(stage, n) * per_layer * batch
        conv = f"conv {channels:,}×{kernel} in {conv_dtype}"
        return KVCache(total, pp == 1, f"SSM state: {n} layers × ({conv} + state {inner:,}×{state} in float32) per "
                                       "sequence, independent of context")
    if isinstance(v.get("gemma4_layers"), tuple):
        return _gemma4_cache(spec, context, batch, kv_dtype, elem_bytes, tp, pp)
    if v.get("compressed_attention"):
        return _compressed_cache(spec, context, batch, kv_dtype, elem_bytes, pp)
    if v.get("kv_lora_rank"):
        latent = spec.int("kv_lora_rank") + spec.int("qk_rope_head_dim")
        # DeepSeek-V3.2: its indexer caches one index_head_dim-wide key per token and layer beside the latent;
        # GLM-MoE-DSA's only in the layers that have their own indexer (indexer_layers).
        indexer = spec.int("index_head_dim") if v.get("index_n_heads") else 0
        indexed = indexer_layer_flags(spec) if indexer else (False,) * n
        # LongCat-Flash (dual_sublayers): two attention sublayers a layer, each caching its own latent.
        sublayers = 2 if v.get("dual_sublayers") else 1
        # Mistral Large 4: a layer reading an earlier layer's latent (kv_shared_layers) caches none of its own (its
        # indexer key still, where it has an indexer); a NoPE layer's latent has no rotated key (nope_layers).
        shared, unrotated = kv_shared_layer_flags(spec), nope_layer_flags(spec)
        rope = spec.int("qk_rope_head_dim")
        per_layer = [sublayers * ((0 if own_kv else latent - (rope if nope else 0)) + (indexer if own else 0))
                     * elem_bytes for own, own_kv, nope in zip(indexed, shared, unrotated)]
        total = max(sum(per_layer[i:i + stage]) for i in range(0, n, stage)) * context * batch
        on = "" if all(indexed) else f" on {sum(indexed)} of them"
        sharing = (f", {sum(shared)} of them reusing an earlier layer's latent" if any(shared) else "") + (
            f", {sum(unrotated)} NoPE layers with no rotated key" if any(unrotated) else "")
        return KVCache(total, pp == 1, f"MLA latent: {n} layers"
                                       + (f" × {sublayers} attention sublayers" if sublayers > 1 else "")
                                       + f" × (kv_lora_rank {spec.int('kv_lora_rank')} + rope {rope}"
                                       + (f" + indexer key {indexer}{on}" if any(indexed) else "")
                                       + f"){sharing} × {context:,} tokens × batch {batch}; {kv_dtype}")
    kv, d = spec.int("num_kv_heads"), spec.int("head_dim")
    heads_here = max(kv // tp, 1)
    sliding = sliding_layers(spec)
    window = sliding_window(spec)
    tokens = [min(context, window) if s and window else context for s in sliding]
    crossed, image = _cross_attention_cache(model, spec)
    tokens = [image if cross else t for t, cross in zip(tokens, crossed)] if crossed else tokens
    slots = v.get("kv_cache_layers")
    if isinstance(slots, int):  # HRM-Text: its cache holds a layer's keys and values per call of the layer
        per_call = 2 * heads_here * d * elem_bytes
        return KVCache(-(-slots // pp) * context * per_call * batch, pp == 1,
                       f"{slots:,} layer calls (each cached apart) × 2 × {kv} kv heads × head_dim {d} × {context:,} "
                       f"tokens × batch {batch}; {kv_dtype}" + (f", {heads_here} of {kv} kv heads per GPU" if tp > 1 else ""))
    # Each layer's bytes per token: keys head_dim and values value_head_dim wide (MiMo-V2-Flash's are narrower),
    # sliding_kv_mult times the key/value heads in the sliding layers of layer_types (MiMo's too).
    vd, mult = v.get("value_head_dim"), int(v.get("sliding_kv_mult") or 1)  # type: ignore[call-overload]
    types = tuple(v.get("layer_types") or ())
    # (a layer attending to an earlier layer's keys and values, kv_shared_layers, caches none: Kolibri 1.1's)
    shared = kv_shared_layer_flags(spec)
    widths = [0 if shared[i] else max(kv * (mult if i < len(types) and types[i] == "sliding_attention" else 1) // tp, 1)
              * (d + int(vd or d)) * elem_bytes for i in range(n)]  # type: ignore[call-overload]
    stages = [sum(t * w for t, w in zip(tokens[i:i + stage], widths[i:i + stage])) for i in range(0, n, stage)]
    total = max(stages or [0]) * batch
    n_sliding = sum(sliding)
    where = f"{n} layers" if not n_sliding else f"{n - n_sliding} full + {n_sliding} sliding (window {window:,})"
    if any(shared):
        where += f", {sum(shared)} of them reusing an earlier layer's keys and values (caching none)"
    if vd or mult > 1:
        per_type = sorted({(types[i] if i < len(types) else "full_attention", w) for i, w in enumerate(widths)})
        widths_note = ", ".join(f"{t.split('_')[0]} {w // elem_bytes} values a token" for t, w in per_type)
        return KVCache(total, pp == 1, f"{where} × keys (head_dim {d}) and values (v_head_dim {vd or d}): "
                                       f"{widths_note} × {context:,} tokens × batch {batch}; {kv_dtype}")
    if any(crossed):
        n_cross = sum(crossed)
        where = f"{n - n_cross} self-attention layers" if n_cross < n else "no self-attention layers"
        kv_note = (f"; {n_cross} cross-attention layers × one image's {image:,} positions" if image else
                   f"; {n_cross} cross-attention layers cache nothing (no image: the text model alone)")
    else:
        kv_note = ""
    tp_note = f", {heads_here} of {kv} kv heads per GPU" if tp > 1 else ""
    return KVCache(total, pp == 1, f"{where} × 2 × {kv} kv heads × head_dim {d} × {context:,} tokens{kv_note} × batch "
                                   f"{batch}; {kv_dtype}{tp_note}")


def _cross_attention_cache(model: ModelReport, spec: ModelSpec) -> tuple[tuple[bool, ...], int]:
    """Mllama's text model: for each layer, whether it is one of its cross_attention_layers (none: ()), and the
    positions such a layer caches per sequence. Those layers cache the image's keys and values, not the text's:
    after a forward over one image, its max_num_tiles tiles of (image_size // patch_size)² + 1 positions each (what
    generate's static cache allocates them for one image); the text model alone (MllamaForCausalLM) runs no image,
    and skips them: they cache nothing."""
    crossed = cross_attention_flags(spec)
    if not any(crossed):
        return (), 0
    vision = model.spec.subspecs.get("vision") if model.spec is not None and model.spec is not spec else None
    if vision is None or vision.family.layout != "mllama_vision":
        return crossed, 0
    positions = (vision.int("image_size") // vision.int("patch_size")) ** 2 + 1
    return crossed, vision.int("max_num_tiles") * positions


def _decoder_mode_cache(spec: ModelSpec, context: int, batch: int, kv_dtype: str, elem_bytes: int, tp: int,
                        pp: int) -> KVCache | None:
    """The causal LMs on the encoder layout that cache (Family.decoder_cache): transformers' DynamicCache of their
    self-attention, every layer's keys and values heads × head_dim wide. BertLMHeadModel and its relatives keep one
    only with is_decoder true (without it they attend both ways and transformers turns use_cache off); ModernBERT's
    decoder always, its sliding layers (layer_types, else all but every global_attn_every_n_layers-th) at most
    local_attention // 2 tokens, as a static cache holds them (transformers' dynamic one keeps one fewer); XLM and
    FlauBERT for the length of each forward pass, which builds its cache and drops it (their generation passes
    none: each step recomputes the sequence, its keys and values held while it runs). None where ModernBERT's
    window is not a whole number of 1 or more (transformers' attention cannot run then)."""
    v = spec.values
    if spec.family.decoder_cache == "is_decoder" and not v.get("is_decoder"):
        return KVCache(0, True, f"no KV cache: {spec.architecture} keeps none unless the config's is_decoder is true "
                                "(without it, it attends both ways)")
    n, heads, d = spec.int("num_layers"), spec.int("num_heads"), spec.int("head_dim")
    tokens, where = [context] * n, f"{n} layers"
    if "local_attention" in spec.family.fields:
        local = v.get("local_attention")
        if type(local) is not int or local < 2:
            return None
        window, types = local // 2, v.get("layer_types") or v.get("rope_layer_types") or ()
        tokens = [min(context, window) if t == "sliding_attention" else context for t in types]
        if len(tokens) != n:
            return None
        sliding = sum(t == "sliding_attention" for t in types)
        where = f"{n - sliding} full + {sliding} sliding layers (the last {min(context, window):,})"
    total = _busiest_stage(tokens, pp) * 2 * max(heads // tp, 1) * d * batch * elem_bytes
    held = " (held while a forward pass runs: generation keeps none between steps)" \
        if spec.family.decoder_cache == "per_forward" else ""
    return KVCache(total, pp == 1, f"{where} × 2 × {heads} heads × head_dim {d} × {context:,} tokens × batch "
                                   f"{batch}; {kv_dtype}{held}")


def _busiest_stage(per_layer: Sequence[int], pp: int) -> int:
    """The most any pipeline stage holds of ``per_layer`` (a value per layer), each stage ceil(L / pp) consecutive
    layers; 0 for no layers."""
    stage = max(1, -(-len(per_layer) // pp))
    return max((sum(per_layer[i:i + stage]) for i in range(0, len(per_layer), stage)), default=0)


def _gemma4_cache(spec: ModelSpec, context: int, batch: int, kv_dtype: str, elem_bytes: int, tp: int,
                  pp: int) -> KVCache:
    """Gemma 4's cache, layer by layer as its DynamicCache holds it: a layer that computes its own keys and values
    caches 2 · kv_heads · head_dim per token (its own width and heads: a full-attention layer's global_head_dim and
    num_global_key_value_heads; keys serving as values are still cached twice), a sliding one at most the window; a
    layer reusing an earlier layer's keys and values (num_kv_shared_layers) caches nothing."""
    plan = spec.values["gemma4_layers"]
    window = sliding_window(spec)
    per_layer, parts = [], {}
    for t, d, kv, mode, _own_k, _has_v, _width in plan:  # type: ignore[union-attr]
        if mode == "reuse":
            per_layer.append(0)
            continue
        sliding = t == "sliding_attention" and bool(window)
        tokens = min(context, window) if sliding and window else context
        per_layer.append(2 * max(kv // tp, 1) * d * tokens * batch * elem_bytes)
        what = (f"sliding (window {window:,})" if sliding else "full", kv, d)
        parts[what] = parts.get(what, 0) + 1
    total = _busiest_stage(per_layer, pp)
    shared = sum(1 for p in plan if p[3] == "reuse")  # type: ignore[union-attr]
    detail = " + ".join(f"{n} {kind} × 2 × {kv} kv heads × head_dim {d}" for (kind, kv, d), n in parts.items())
    detail = (detail or "no cached layers") + f" × {context:,} tokens × batch {batch}; {kv_dtype}"
    if shared:
        detail += f"; {shared} layers reuse earlier layers' keys and values (cache nothing)"
    if tp > 1:
        detail += f"; max(kv heads / {tp}, 1) kv heads per GPU"
    return KVCache(total, pp == 1, detail)


def _compressed_cache(spec: ModelSpec, context: int, batch: int, kv_dtype: str, elem_bytes: int, pp: int) -> KVCache:
    """DeepSeek-V4's cache, layer by layer as transformers' holds it after ``context`` tokens: every layer its last
    sliding_window - 1 keys (one head, head_dim wide; a sliding layer's values beside them, a compressed layer's the
    same tensor); a compressed layer (CSA / HCA, its window r = compress_rates) its compressor's state: the projections
    of the context % r tokens no window has closed over yet (kv and gate, head_dim wide, twice that for CSA's two
    series), one compressed entry per closed window (head_dim), and for CSA, once a window has closed, the last
    window's first series (kv, and its gate in float32: the position bias it adds is kept in float32), all again for
    its indexer at index_head_dim. Whatever the tensor parallelism: the one key/value head is on every GPU."""
    v = spec.values
    n, d, window = spec.int("num_layers"), spec.int("head_dim"), spec.int("sliding_window")
    idim = spec.int("index_head_dim")
    rates = v.get("compress_rates") or {}
    kept = context if window <= 1 else min(context, window - 1)  # (a window of 1 keeps every token)
    exact = pp == 1
    per_layer = []
    for t in spec["layer_types"][:n]:  # type: ignore[index]
        if t == "sliding_attention":
            per_layer.append(2 * kept * d * elem_bytes)
            continue
        rate = rates.get(t)  # type: ignore[union-attr]
        values = kept * d * elem_bytes
        if not isinstance(rate, int) or rate <= 0:  # (a window of 0 builds, but its forward pass divides by it)
            per_layer.append(values)
            exact = False
            continue
        left, closed = context % rate, context // rate
        if t == "heavily_compressed_attention":
            values += (2 * left * d + closed * d) * elem_bytes
        else:
            for width in (d, idim):
                values += (2 * left * 2 * width + closed * width) * elem_bytes
                values += rate * width * (elem_bytes + 4) if closed else 0
        per_layer.append(values)
    stage = max(1, -(-n // pp))
    total = max(sum(per_layer[i:i + stage]) for i in range(0, n, stage)) * batch
    kinds = {t: sum(1 for x in spec["layer_types"][:n] if x == t) for t in dict.fromkeys(spec["layer_types"][:n])}  # type: ignore[index]
    where = ", ".join(f"{k} {t.replace('_attention', '').replace('_', ' ')}" for t, k in kinds.items())
    return KVCache(total, exact, f"{n} layers ({where}): the last {kept:,} of {context:,} tokens' keys (head_dim {d}), "
                                 f"and the compressors' windows, entries and overlaps; batch {batch}; {kv_dtype}")


def _mixed_cache(spec: ModelSpec, mixers: tuple, context: int, batch: int, kv_dtype: str, elem_bytes: int,
                 tp: int, pp: int, conv_dtype: str, conv_bytes: int) -> KVCache | None:
    """The cache of a stack whose layers differ (``layer_mixers``, per layer: "attention" or "gated_attention",
    a recurrent kind ("mamba", "mamba2", "gated_deltanet", "rg_lru", "lightning"), "none", or several joined by "+"),
    layer by layer as transformers' cache holds it: an attention layer's keys and values, 2 · kv_heads · head_dim
    per token in the cache dtype; a recurrent layer's convolution state, its last ``state_conv_kernel`` (else
    ssm_conv_kernel) inputs over its channels (``state_conv_channels``, else a Mamba mixer's ssm_inner, Mamba-2's also
    over B and C, 2 · ssm_groups · ssm_state more), in the model's dtype, and its recurrent state
    (``state_recurrent`` values, else ssm_inner × ssm_state) in float32 (in the model's dtype where
    ``state_in_model_dtype``: MiniMax's lightning attention keeps its key-value state in its values' dtype), whatever
    the context.

    ``attention_cache_window`` (RecurrentGemma's local attention, a DynamicSlidingWindowLayer): the attention
    layers keep the last window - 1 tokens (its slice [-window + 1:]: every token for a window of 1); None (not
    modelled) for a window that is no positive whole number (a null or a float), with which the forward pass fails."""
    v = spec.values
    windowed = "attention_cache_window" in v
    window = v.get("attention_cache_window")
    if windowed and (type(window) is not int or window < 1):
        return None
    kinds = [set(str(m).split("+")) - {"none"} for m in mixers]
    attention_kinds = {"attention", "gated_attention"}
    n = len(kinds)
    attn = ssm = 0
    parts = []
    n_attn = sum(1 for k in kinds if k & attention_kinds)
    n_ssm = sum(1 for k in kinds if k - attention_kinds)
    if n_attn and v.get("kv_lora_rank"):  # Kimi Linear: latent attention caches its latent and rotated key
        latent = spec.int("kv_lora_rank") + spec.int("qk_rope_head_dim")
        attn = latent * context * batch * elem_bytes
        parts.append(f"{n_attn} latent attention layers × (kv_lora_rank {spec.int('kv_lora_rank')} + rope "
                     f"{spec.int('qk_rope_head_dim')}) × {context:,} tokens")
    elif n_attn:
        kv, d = spec.int("num_kv_heads"), spec.int("head_dim")
        heads_here = max(kv // tp, 1)
        kept, what, held = context, "attention layers", ""
        if windowed:
            kept, what = (context if window == 1 else min(context, window - 1)), "local attention layers"
            held = f" ({'every one' if kept == context else f'the last {kept:,} of {context:,}'}: " \
                   f"attention_window_size {window:,})"
        attn = 2 * heads_here * d * kept * batch * elem_bytes
        tp_note = f", {heads_here} of {kv} kv heads per GPU" if tp > 1 else ""
        # LFM3's and Lara Mini's sliding-window attention layers (layer_types) keep the window
        sliding, window = sliding_layers(spec), sliding_window(spec)
        n_sliding = sum(1 for k, s in zip(kinds, sliding) if s and k & attention_kinds)
        if n_sliding and window:
            slid = 2 * heads_here * d * min(kept, window) * batch * elem_bytes
            parts.append(f"{n_attn - n_sliding} {what} + {n_sliding} sliding (window {window:,}) × 2 × {kv} kv heads "
                         f"× head_dim {d} × {kept:,} tokens{held}{tp_note}")
        else:
            sliding, slid = (False,) * n, attn
            parts.append(f"{n_attn} {what} × 2 × {kv} kv heads × head_dim {d} × {kept:,} tokens{held}{tp_note}")
    if n_ssm:
        kernel = v["state_conv_kernel"] if "state_conv_kernel" in v else spec.int("ssm_conv_kernel")
        channels, recurrent = v.get("state_conv_channels"), v.get("state_recurrent")
        if not isinstance(channels, int) or not isinstance(recurrent, int):
            inner, state = spec.int("ssm_inner"), spec.int("ssm_state")
            groups = v.get("ssm_groups")
            channels = inner + 2 * groups * state if isinstance(groups, int) else inner
            recurrent = inner * state
        state_bytes, state_dtype = (conv_bytes, conv_dtype) if v.get("state_in_model_dtype") else (4, "float32")
        ssm = (-(-channels // tp) * kernel * conv_bytes + -(-recurrent // tp) * state_bytes) * batch
        conv = f"conv {channels:,}×{kernel} in {conv_dtype} + " if channels and kernel else ""
        parts.append(f"{n_ssm} recurrent layers × ({conv}state {recurrent:,} values in {state_dtype}), independent of "
                     "context")
    if not n_attn or v.get("kv_lora_rank"):
        sliding, slid = (False,) * n, attn
    per_layer = [((slid if slides else attn) if k & attention_kinds else 0) + (ssm if k - attention_kinds else 0)
                 for k, slides in zip(kinds, sliding)]
    stage = max(1, -(-n // pp))
    total = max((sum(per_layer[i:i + stage]) for i in range(0, n, stage)), default=0)
    return KVCache(total, pp == 1, "; ".join(parts) + f"; batch {batch}; {kv_dtype}" if parts else "no cached layers")


def fixed_encoder_positions(spec: ModelSpec) -> int | None:
    """Encoder positions that do not follow the input length (Whisper's), else None."""
    if spec.values.get("encoder_input") == "audio_conv":
        # WhisperEncoder refuses mel input of any length but 2 × max_source_positions frames (conv2 has
        # stride 2), so cross-attention always sees max_source_positions (1500) positions.
        return spec.int("max_source_positions")
    return None


def seq2seq_kv_cache(spec: ModelSpec, context: int, batch: int, kv_dtype: str, elem_bytes: int,
                     tp: int = 1, pp: int = 1) -> KVCache:
    """transformers' EncoderDecoderCache = self_attention_cache + cross_attention_cache.

    Per decoder layer: 2·kv_heads·head_dim values per decoded token (self-attention K and V, ``context``
    tokens) plus 2·kv_heads·head_dim per encoder position (cross-attention K and V over the encoder
    output: ``context`` positions too, or Whisper's fixed ``max_source_positions``), × batch × bytes per
    value; ``max(kv_heads/TP, 1)`` heads per GPU.
    """
    kv, d = spec.int("decoder_kv_heads"), spec.int("decoder_head_dim")
    heads_here = max(kv // tp, 1)
    tp_note = f", {heads_here} of {kv} kv heads per GPU" if tp > 1 else ""
    n_dec = spec.int("decoder_layers")
    if spec.head == "causal_lm":
        # BartForCausalLM, WhisperForCausalLM: the decoder alone. With no encoder output its cross-attention
        # runs on nothing and caches nothing: a decoder-only model's self-attention cache.
        per_layer = 2 * heads_here * d * context * batch * elem_bytes
        return KVCache(_busiest_stage([1] * n_dec, pp) * per_layer, pp == 1,
                       f"{n_dec} decoder layers × 2 × {kv} kv heads × head_dim {d} × {context:,} tokens × batch "
                       f"{batch}; {kv_dtype}{tp_note}; no encoder: its cross-attention caches nothing")
    n_enc = spec.int("encoder_layers")
    fixed = fixed_encoder_positions(spec)
    source = context if fixed is None else fixed
    per_layer = 2 * heads_here * d * (context + source) * batch * elem_bytes
    # Pipeline stages take ceil(L/pp) of the encoder-then-decoder layers, as the weights line places them.
    is_decoder = [0] * n_enc + [1] * n_dec
    most = _busiest_stage(is_decoder, pp)
    total = most * per_layer
    fixed_note = f"; Whisper's encoder always yields max_source_positions = {fixed:,} positions" if fixed else ""
    return KVCache(total, pp == 1, f"{n_dec} decoder layers × 2 × {kv} kv heads × head_dim {d} × ({context:,} decoded "
                                   f"+ {source:,} encoder tokens: self + cross attention) × batch {batch}; "
                                   f"{kv_dtype}{tp_note}{fixed_note}")


# --- activations ------------------------------------------------------------------------------


def _hidden(spec: ModelSpec | None) -> int | None:
    if spec is None:
        return None
    h = spec.values.get("hidden_size")
    return h if isinstance(h, int) else None


def _mlp_widths(values: Mapping[str, object]) -> tuple[int, int, int]:
    """(dense, routed, shared): a dense layer's MLP width, a MoE token's routed experts together
    (experts_per_token × moe_intermediate_size), and the shared expert's width; 0 where the config
    has none."""
    def width(key: str) -> int:
        x = values.get(key)
        return int(x) if isinstance(x, int) else 0
    routed = width("experts_per_token") * width("moe_intermediate_size")
    # ffn_width: the width a family's layout builds its dense MLP at where intermediate_size is not it
    # (RecurrentGemma's half, LFM2's rounded 2/3, Granite 4 hybrid's shared MLP).
    return width("ffn_width") or width("intermediate_size"), routed, width("shared_intermediate_size")


def _layer_widths(spec: ModelSpec, h: int, heads: int) -> tuple[int, int, int]:
    """(q, k, f) of a decoder layer: the query (and attention output) width ``heads·head_dim``, the
    key/value width ``kv_heads·head_dim``, and the MLP width a token passes through (a MoE
    token's routed experts and shared expert together); a GPT layer's 4h where none is given.
    (An encoder's or a seq2seq model's spec may name no kv heads or head width.)"""
    v = spec.values
    kv = v.get("num_kv_heads")
    d = v.get("head_dim")
    heads = max(heads, 1)
    d = d if isinstance(d, int) and d > 0 else max(1, h // heads)
    kv = kv if isinstance(kv, int) and kv > 0 else heads
    dense, routed, shared = _mlp_widths(v)
    f = routed + shared if routed else dense or 4 * h
    return heads * d, kv * d, f


def training_activations(model: ModelReport, s: Settings, compute: str, lora_targets_active: bool,
                         facts: _TreeFacts | None = None) -> tuple[int, str]:
    """What one training step keeps for its backward pass, at its peak, bytes per GPU.

    An attention layer keeps, per token, in 16-bit: each norm's fp32 copy of its input and its
    output (6h) and the projections' normalized input (2h), twice; q and the attention output
    (2q each), k and v (2k each); the MLP's four f-wide tensors (gate, activation, up, product:
    8f): ``16h + 4q + 4k + 8f`` (``20h + 4k + 8f`` where q = h), Korthikanti et al.'s count for
    transformers' layers, which drop no dropout masks. Measured on an H200 (transformers 5.17,
    SDPA; bench/gpu_memory.py, 2 to 8 layers): 53.1h, 64.1h, 43.1h per layer for Llama-3.2-1B,
    Qwen2.5-0.5B and SmolLM2-360M against 53.0h, 64.0h, 42.7h. Mixed precision (fp32 weights
    under autocast) adds the norms' fp32 outputs, 10h. LoRA's frozen projections keep no input
    (less 6h + 2f) and each adapted linear keeps its dropout's mask and output and lora_A's
    output (3·in + 2r). Without FlashAttention, eager attention adds its fp32 softmax and 16-bit
    probabilities, 6 bytes per score. Checkpointing keeps each layer's input (2h, 4h in mixed
    precision's fp32 residual) plus one layer in full."""
    facts = facts or _TreeFacts(model.tree)
    spec = _decoder_spec(model) or model.spec
    scale = FLOAT_BYTES.get(compute, 2) / 2  # the counts are for 16-bit activations
    sb = s.context * s.batch
    layers, covered, which_layers = facts.memo(("activation_layers",), lambda: _activation_layers(model, facts))
    if s.mode == "train":
        reached = facts.memo(("backward_layers",), lambda: layers_the_backward_reaches(model.tree))
        if reached is not None and reached < layers:
            layers = reached
            which_layers += (f" (the last {reached}: the backward pass stops at the first layer with a trainable "
                             f"parameter)")
    h = _layer_width(spec, facts)
    # A model holding its own adapters (a Python file's get_peft_model, a NeMo YAML's IA3 or bottleneck
    # adapters): the activations of its adapters are from the adapters it holds, not from the settings' plan.
    own = lora_targets_active and (_peft_adapters(facts) or _own_adapters(model.tree, facts))
    mixed = s.mode == "train" and not s.pure_precision
    attention = spec is not None and spec.family.layout != "mamba" and isinstance(spec.values.get("num_heads"), int)
    if attention:
        assert spec is not None
        a = spec.int("num_heads")
        q, k, f = _layer_widths(spec, h, a)
        per_token = 16 * h + 4 * q + 4 * k + 8 * f
        formula = "16h + 4q + 4k + 8f" if q != h else "20h + 4k + 8f"
        if mixed:
            per_token += 10 * h
            formula += " + 10h (fp32 norms of mixed precision)"
        if lora_targets_active:
            per_token -= 6 * h + 2 * f
            formula += " − (6h + 2f) kept by no frozen projection"
        per_layer_full = sb * per_token + (0 if s.flash_attention else 6 * a * s.context * sb)
        if not s.flash_attention:
            formula += " + 6·a·s (eager attention's scores)"
        source = f"s·b·({formula}) per layer (h {h:,}, q {q:,}, k {k:,}, f {f:,})"
    else:
        # Σ over one layer's linears of (in + out) elements per token, 2 bytes each (scaled below to the
        # compute dtype's): the inputs kept for weight gradients and the outputs kept for the next op
        # (gives 32·h for a GPT layer, vs the paper's 34·h).
        io = facts.memo(("stack_io", own), lambda: _stack_io(facts, own))
        per_layer_full = 2 * sb * io // covered
        source = f"{FLOAT_BYTES.get(compute, 2)} bytes × Σ(in + out) of each layer's linears per token" + (
            " (routed experts: the top-k a token reaches)" if model.tree.root.has_routing else "")
    if s.gradient_checkpointing:
        kept = 4 if mixed else 2
        total = layers * kept * sb * h + per_layer_full
        source += f"; checkpointing keeps {kept}·s·b·h per layer + one layer ({layers} layers)"
    else:
        total = layers * per_layer_full
        source += f" × {layers} layers"
    source += which_layers
    if lora_targets_active:
        # Each adapted linear keeps its dropout's mask and output and lora_A's output.
        tower = facts.memo(("image_tower",), lambda: image_tower(model))
        beside = tower.model.tree.root.name if tower is not None else None  # its adapters are the tower's estimate's
        extra = facts.memo(("own_lora_io",), lambda: _own_lora_io(facts)) if own else \
            facts.memo(("lora_io", s.lora_rank, s.lora_targets), lambda: _lora_io(facts, s, beside))
        kept_layers = 1 if s.gradient_checkpointing else layers
        total += sb * extra * kept_layers // covered
        source += ("; LoRA adds s·b·(3·in + 2r) per adapted linear" if not own or _peft_adapters(facts) else
                   "; its adapters add s·b·(3·in + 2r) per down projection (in → r) and s·b·n per n scalers") + (
            " (one layer at a time)" if s.gradient_checkpointing else "")
    total = int(total * scale)
    if s.tp > 1:
        total = -(-total // s.tp)
        source += f"; ÷ TP {s.tp} (sequence parallel)"
    return total, source


def _stack_io(facts: _TreeFacts, without_adapters: bool = False) -> int:
    """Σ (in + out) per token over the layer stack's linears, each as often as a token runs
    through it: routed experts (a Python MoE block's, active_repeat) ``top_k`` times, not once per
    expert, since each expert keeps the inputs and outputs of the tokens routed to it only."""
    root = facts.tree.root
    # (the stack's tensors as a token runs through them; facts.flat has them once per expert)
    tensors = ((p, t, mult) for p, t, mult, _f in root.iter_tensors(active=True) if _in_stack(p)) \
        if root.has_routing else ((p, t, mult) for p, t, mult, _f, in_stack in facts.flat if in_stack)
    return sum((t.shape[0] + t.shape[1]) * mult for p, t, mult in tensors
               if t.kind in ("linear", "expert") and len(t.shape) == 2 and
               not (without_adapters and _adapter_path(p)))


# The modules peft adds to an adapted layer (a model's own adapters, in a Python file's tree).
_ADAPTER_MODULES = frozenset({"lora_A", "lora_B", "lora_embedding_A", "lora_embedding_B"})


def _adapter_path(path: str) -> bool:
    return any(part in _ADAPTER_MODULES for part in path.split("."))


def adapter_parameters(root: ParamNode) -> int:
    """Parameters of the peft adapters a tree holds (a Python file's get_peft_model): those under
    its lora_A / lora_B modules."""
    return sum(t.numel * mult for path, t, mult, _f in root.iter_tensors() if _adapter_path(path))


def _peft_adapters(facts: _TreeFacts) -> bool:
    """Whether the model holds peft's LoRA adapters (a Python file's get_peft_model): the LoRA they
    make is the model's own, whatever the settings' rank and targets."""
    return facts.memo(("peft_adapters",), lambda: any(_adapter_path(p) for p, _t, _m, _f, _s in facts.flat))


def _own_lora_io(facts: _TreeFacts) -> int:
    """Bytes per token, 3·in + 2r per adapted linear, as _lora_io, for the adapters the model
    holds: each down projection is r × in (peft's ``lora_A``; NeMo's ``linear_in``, LoRA's and
    its bottleneck adapters'). A vector of n scalers (NeMo's IA3) keeps the n values it scales
    for its gradient, 2n."""
    total = 0
    for p, t, mult, frozen, _s in facts.flat:
        if frozen:
            continue
        if len(t.shape) == 2 and ("lora_A" in p.split(".") or t.name.endswith("linear_in.weight")):
            total += (3 * t.shape[1] + 2 * t.shape[0]) * mult
        elif len(t.shape) == 1 and t.name.endswith("infused_adapter.scalers"):
            total += 2 * t.shape[0] * mult
    return total


def _tree_vocab(tree: ParamTree) -> int | None:
    """A Python model's vocabulary where it has a language-model head (`lm_head`): the head's
    outputs, or, tied to the input embedding (its node holds no tensor of its own), the embedding's
    rows; None for any other model (no logits to keep)."""
    nodes = {path: n for path, n, _m in tree.root.walk()}
    heads = [n for n in nodes.values() if n.name == "lm_head"]
    if not heads:
        return None
    for tensor in heads[0].tensors:
        if len(tensor.shape) == 2:
            return tensor.shape[0]
    # nanoGPT's `wte.weight = lm_head.weight`: the embedding holds the head's matrix, a linear's.
    tied = re.search(r"weight tied to ([\w.]+)\.weight\b", heads[0].note)
    held = nodes.get(f"{tree.root.name}.{tied.group(1)}") if tied else None
    for tensor in held.tensors if held is not None else ():
        if tensor.name == "weight" and len(tensor.shape) == 2:
            return tensor.shape[0]
    rows = [t.shape[0] for _p, t, _m, _f in tree.root.iter_tensors() if t.kind == "embedding" and len(t.shape) == 2]
    return max(rows) if rows else None


def _layer_width(spec: ModelSpec | None, facts: _TreeFacts) -> int:
    """The hidden size: the config's, else, for a model with no config (a Python file's), its tree's."""
    if spec is not None:
        return _hidden(spec) or 0
    return facts.memo(("tree_hidden",), lambda: _tree_hidden(facts))


def _tree_hidden(facts: _TreeFacts) -> int:
    """The width of a layer's input where no config says it (a Python file's model): the size its
    layers' norms have most often, else their linears' most common input width; 0 with neither."""
    norms: dict[int, int] = {}
    inputs: dict[int, int] = {}
    for p, t, mult, _f, in_stack in facts.flat:
        if not in_stack:
            continue
        if t.kind == "norm" and len(t.shape) == 1:
            norms[t.shape[0]] = norms.get(t.shape[0], 0) + mult
        elif t.kind == "linear" and len(t.shape) == 2 and not _adapter_path(p):
            inputs[t.shape[1]] = inputs.get(t.shape[1], 0) + mult
    found = norms or inputs
    return max(found, key=found.__getitem__) if found else 0


def _lora_io(facts: _TreeFacts, s: Settings, outside: str | None = None) -> int:
    """Bytes per token a LoRA step keeps for the adapters of the plan: each adapted linear's
    dropout mask (1 byte) and output (2) of its input, and lora_A's 16-bit output (2r); not those
    under the root's child ``outside`` (an image tower, estimated at its own tokens)."""
    extra = 0
    for p, t, mult, _f, _st in facts.flat:
        if _is_target(t, s.lora_targets, p) and (outside is None or p.split(".", 2)[1:2] != [outside]):
            assert t.in_features is not None
            extra += mult * (3 * t.in_features + 2 * s.lora_rank)
    return extra


def _widest_stack_linear(facts: _TreeFacts) -> int:
    widest = 0
    for _p, t, _mult, _f, in_stack in facts.flat:
        if in_stack and t.kind == "linear" and len(t.shape) == 2:
            widest = max(widest, t.shape[0] + t.shape[1])
    return widest


# Heads that generate, one token at a time: each step keeps the last position's logits. (A bare model returns hidden
# states, a classifier one score per label: neither keeps a vocabulary's logits.)
_GENERATING_HEADS = frozenset({"causal_lm", "conditional_generation", "seq2seq_lm"})


def inference_activations(model: ModelReport, s: Settings, compute: str,
                          facts: _TreeFacts | None = None) -> tuple[int, str]:
    """Peak transient activations of one forward pass over the whole prompt (no gradients kept)."""
    facts = facts or _TreeFacts(model.tree)
    spec = _decoder_spec(model) or model.spec
    cb = FLOAT_BYTES.get(compute, 2)
    sb = s.context * s.batch
    h = _layer_width(spec, facts)
    widest = facts.memo(("widest",), lambda: _widest_stack_linear(facts))
    v = spec.values if spec is not None else {}
    gated = bool(v.get("mlp_gated", False))
    mlp_width = max(_mlp_widths(v)) * (3 if gated else 2)  # one MLP's intermediates at a time
    per_token = 2 * h + max(widest, mlp_width)
    total = sb * per_token * cb
    head = model.spec.head if model.spec is not None else None
    # (a generating model's first step over the prompt; any other model's one forward pass)
    what = "prefill of" if head in _GENERATING_HEADS or head is None else "a forward pass over"
    detail = f"{what} {s.context:,} tokens × batch {s.batch}: residual + widest intermediate ({per_token:,} values/token)"
    heads = v.get("num_heads")
    if not s.flash_attention and isinstance(heads, int) and spec is not None and spec.family.layout != "mamba":
        # One layer's scores at a time: the product, its scaled and masked copies in the compute dtype and
        # the fp32 softmax (10 bytes a score in 16-bit; 9.6 measured for eager Llama on an H200).
        total += heads * s.context * sb * (3 * cb + 4)
        detail += " + a·s²·b attention scores, 3 copies and an fp32 softmax (no FlashAttention)"
    vocab = output_vocab(spec) if spec is not None and spec.family.layout == "seq2seq" else \
        v.get("lm_head_rows") or v.get("vocab_size")
    if isinstance(vocab, int) and head == "masked_lm":
        total += s.context * s.batch * vocab * cb  # a fill-mask forward returns every position's logits
        detail += f" + s·b·V logits of every position (V = {vocab:,})"
    elif isinstance(vocab, int) and head in _GENERATING_HEADS:
        total += 4 * s.batch * vocab  # last-token logits in fp32 (generate keeps one position)
        detail += " + last-token fp32 logits"
    if s.tp > 1:
        total = -(-total // s.tp)
    return total, detail


# --- the estimate -----------------------------------------------------------------------------


BNB_BLOCK = 256  # bitsandbytes' block-wise 8-bit states keep one fp32 absmax per 256 values


def optimizer_state_bytes(numel: int, optimizer: str, element: int = 4) -> int:
    """Optimizer state bytes of one trainable tensor of ``numel`` elements, its float states
    ``element`` bytes each (fp32; a pure bf16 run's are the parameters' 2: torch keeps them in
    the parameter's dtype)."""
    if optimizer == "sgd":
        return 0  # torch's SGD keeps a momentum buffer only where momentum is not 0
    if optimizer == "sgd-momentum":
        return element * numel
    if optimizer == "adamw-8bit":
        if numel >= BNB_MIN_8BIT_SIZE:
            return 2 * numel + 2 * 4 * -(-numel // BNB_BLOCK)  # state1, state2 (uint8) + absmax1, absmax2 (fp32)
        return 8 * numel  # (bitsandbytes keeps a small tensor's states in fp32)
    return 2 * element * numel


def torch_optimizer_kind(name: str, options: Mapping[str, Any]) -> str | None:
    """``torch.optim.<name>(params, **options)`` by the states it keeps: None for one the memory
    model does not have (L-BFGS' history; Adam with amsgrad keeps three). An option present with a
    value other than 0 / False / None is set (a value the caller could not read: set, the larger)."""
    entry = TORCH_OPTIMIZER_STATES.get(name.lower())
    if entry is None:
        return None
    base, adding = entry
    return _BY_STATES.get(base + sum(1 for option in adding if options.get(option) not in (None, False, 0, "")))


def _reference_line(s: Settings, facts: "_TreeFacts", tp: int, pp: int, dp: int, parallel: bool,
                    zero3: bool) -> MemoryLine:
    """The frozen model held beside the trained one for the loss, in ``s.reference_model``'s dtype: a
    copy of the model (its frozen tensors, split as the weights are), or, where
    ``s.reference_parameters`` is another count, a model of that size (split evenly over TP × PP:
    not exact there, its layers are not known)."""
    dtype = s.reference_model
    assert dtype is not None
    sharded = f"; ZeRO-3 ÷ {dp}" if zero3 else ""
    own = s.reference_parameters
    # (the model's own frozen count, only asked where another count is given)
    if own is None or own == facts.memo(("reference_numel",), lambda: sum(
            m * t.numel for _, t, m, _, _ in facts.flat if t.kind != "lora")):
        r = facts.per_gpu(("reference", dtype), lambda p, t, m, f: 0 if t.kind == "lora" else m * t.numel * FLOAT_BYTES[dtype],
                          tp, pp)
        what = "a frozen copy of the model" if own is None else f"a frozen model of the same {own:,} parameters"
        role = "TRL's reference model" if own is None else "a reference or teacher model"
        return MemoryLine("reference_model", _shard(r, dp) if zero3 else r, not parallel and not zero3,
                          f"{what} in {dtype} for the loss ({role}){sharded}")
    r = -(-own * FLOAT_BYTES[dtype] // (tp * pp))
    split = f" ÷ {tp * pp} (TP × PP, evenly)" if tp * pp > 1 else ""
    return MemoryLine("reference_model", _shard(r, dp) if zero3 else r, tp * pp == 1 and not zero3,
                      f"a frozen model of {own:,} parameters in {dtype} beside it for the loss (a reference or "
                      f"teacher model){split}{sharded}")


def _shard(b: int, n: int) -> int:
    return -(-b // n) if n > 1 else b


def _trainable_numel(path: str, t: Tensor, mult: int, frozen: bool) -> int:
    """The elements of a trainable tensor (0 for a frozen one), ``mult`` times."""
    return 0 if frozen else mult * t.numel


def _trainable_state_bytes(optimizer: str, element: int = 4, weights_dtype: str | None = None) -> TensorBytes:
    """The optimizer state bytes of a trainable tensor (0 for a frozen one). ``weights_dtype``: a
    pure run's, whose states are each tensor's own dtype: fp32 for one kept in float32."""
    return lambda p, t, m, f: 0 if f else m * optimizer_state_bytes(
        t.numel, optimizer, 4 if weights_dtype in t.keep_fp32 else element)


def _planned_lora_numel(path: str, t: Tensor, mult: int, frozen: bool) -> int:
    return mult * t.numel if t.kind == "lora" else 0


# Where a planned adapter tensor's rank is, by its name (peft's lora_A / lora_B, LitGPT's, torchtune's
# linear_in / linear_out): its first or its second dimension. DoRA's magnitude vector has none.
_RANK_DIMENSION = (("lora_A.weight", 0), ("lora_A", 0), ("linear_in.weight", 0), ("lora_embedding_A", 0),
                   ("lora_B.weight", 1), ("lora_B", 1), ("linear_out.weight", 1), ("lora_embedding_B", 1),
                   ("lora_magnitude_vector", None))


def _lora_numel_at(t: Tensor, planned: int, rank: int) -> int | None:
    """The elements of a planned adapter tensor (made at rank ``planned``) at rank ``rank``: its rank
    dimension scaled (a fused tensor's is a multiple of the rank: peft's E·r, gate_up_proj's 2·r);
    None where the name says no rank dimension or it is not a multiple of the rank."""
    if rank == planned:
        return t.numel
    for suffix, dim in _RANK_DIMENSION:
        if t.name.endswith(suffix):
            if dim is None:
                return t.numel
            if len(t.shape) != 2 or t.shape[dim] % planned:
                return None
            return t.numel // planned * rank
    return None


def _planned_adapter_rank(model: ModelReport, s: Settings, facts: "_TreeFacts") -> int | None:
    """The rank of the LoRA plan's adapters the tree holds (a fine-tuning YAML's, kind "lora"),
    where the settings ask for the plan's targets: what is trained is then those adapters at the
    settings' rank, each matrix's rank dimension scaled (``--lora-rank 16`` over the config's 8
    keeps peft's fused-expert adapters). None where the settings ask other targets (counted from
    the base's layers) or a tensor's rank is not known."""
    plan = model.plan or {}
    if "lora_rank" not in plan or not facts.per_gpu(("planned_lora",), _planned_lora_numel, 1, 1):
        return None
    try:
        planned = settings_from_mapping({k: plan[k] for k in ("lora_rank", "lora_targets") if k in plan})
    except SettingsError:
        return None
    if planned.lora_targets != s.lora_targets:
        return None
    if any(t.kind == "lora" and _lora_numel_at(t, planned.lora_rank, s.lora_rank) is None
           for _p, t, _m, _f, _s in facts.flat):
        return None
    return planned.lora_rank


def _own_adapters(tree: ParamTree, facts: Any) -> bool:
    """Whether the model holds its own adapters: some parameters frozen, some trainable, none of
    them a LoRA plan's (a fine-tuning YAML's adapters are the tree's "lora" tensors)."""
    if not 0 < tree.trainable < tree.total:
        return False
    return facts.per_gpu(("planned_lora",), _planned_lora_numel, 1, 1) == 0


def estimate_memory(model: ModelReport, settings: Settings) -> MemoryReport:
    """Itemized GPU memory per GPU for ``model`` under ``settings``. Raises SettingsError."""
    return _estimate(model, settings, _TreeFacts(model.tree))


class MemoryEstimator:
    """``estimate_memory`` for one model under many settings (the fit searches, the budget gate).

    Same reports, computed once per distinct settings, with the per-tree aggregates shared
    between them instead of re-walking the tree for every estimate.
    """

    def __init__(self, model: ModelReport) -> None:
        self.model = model
        self._facts = _TreeFacts(model.tree)
        self._reports: dict[Settings, MemoryReport] = {}

    def __call__(self, settings: Settings) -> MemoryReport:
        report = self._reports.get(settings)
        if report is None:
            report = self._reports[settings] = _estimate(self.model, settings, self._facts)
        return report

    def validate(self, settings: Settings) -> None:
        """``validate_settings(settings, model)``."""
        _validate(settings, self.model, self._facts)

    @property
    def layer_count(self) -> int:
        return self._facts.layer_count


# The plan key of a model whose LoRA adapters _moe_lora_plan built from the settings (not a YAML's).
_PEFT_PLAN = "lora_from_settings"


def _moe_lora_plan(model: ModelReport, s: Settings, facts: _TreeFacts
                   ) -> tuple[ModelReport, _TreeFacts, tuple[str, ...]] | None:
    """A MoE model (fused experts, kind "expert") under the settings' LoRA plan, with peft's adapters
    built as a fine-tuning YAML's are (formats/lora.py's apply_lora, checked against peft): peft 0.22
    adapts transformers 5's fused experts and router of the families it converts (Qwen3-MoE's experts
    hold 490M of its 498M adapter parameters), and leaves them alone for the others, which the
    tree's linear layers alone do not say. A Python file's transformers model, whose tree marks no
    fused experts, is planned on its spec's tree (pymodel/config_spec.py checked that it counts the
    same parameters). None for a dense model, one with adapters of its own or planned already, or
    targets apply_lora refuses (the linear layers' plan then says why)."""
    if s.mode not in ("lora", "qlora") or _own_adapters(model.tree, facts) or \
            facts.per_gpu(("planned_lora",), _planned_lora_numel, 1, 1):
        return None
    base = facts.memo(("moe_tree",), lambda: _moe_tree(model, facts))
    if base is None:
        return None

    def adapt() -> tuple[ModelReport, _TreeFacts, tuple[str, ...]] | None:
        # (a pure module; the core's formats read it too)
        from lsp_count.formats.lora import LoraTargets, apply_lora, layer_groups, vlm_model_type

        model_type = model.spec.family.model_type if model.spec is not None else None
        adapted = apply_lora(base, s.lora_rank, LoraTargets(names=s.lora_targets), model_type=model_type,
                             layer_groups=layer_groups(model.spec), vlm_type=vlm_model_type(model.spec))
        if adapted.errors:
            return None
        targets: object = list(s.lora_targets) if s.lora_targets is not None else "all-linear"
        planned = replace(model, tree=adapted.tree, plan={**model.plan, "lora_rank": s.lora_rank, "lora_targets": targets,
                                                          _PEFT_PLAN: True})
        return planned, _TreeFacts(adapted.tree), adapted.notes

    return facts.memo(("moe_lora", s.lora_rank, s.lora_targets), adapt)


def _moe_tree(model: ModelReport, facts: _TreeFacts) -> ParamTree | None:
    """The tree of a model with fused experts to plan peft's adapters on: its own, or, for a model
    whose tree has none but whose spec's does (a Python file's Mixtral), the spec's; None else."""
    if any(t.kind == "expert" for _p, t, _m, _f, _s in facts.flat):
        return model.tree
    if model.spec is None:
        return None
    try:
        family = count(model.spec)
    except SpecError:
        return None
    if family.total != model.tree.total or not any(t.kind == "expert" for _p, t, _m, _f in family.root.iter_tensors()):
        return None
    return family


def model_context(model: ModelReport) -> tuple[int, str] | None:
    """The tokens the model's layers run over where the model fixes them, and what they are: an image
    encoder's for one image of its config's ``image_size`` (layouts/encoder.image_tokens: its patches and
    the class, distillation, detection or register tokens beside them); a text encoder's whole position
    table where it is shorter than DEFAULT_CONTEXT (text_positions: BERT's 512), since no longer sequence
    runs. None where the context is the user's to choose (a decoder, a Python class)."""
    spec = model.spec
    if spec is None:
        return None
    if spec.family.layout == "convnet":
        # (the activations are per image, by its feature maps' sizes: _feature_map_activations)
        return CONVNET_IMAGE_SIDE, "a square image's side in pixels (ImageNet's; the config fixes none)"
    towers = {t.name: t for t in dual_towers(model)}
    text, vision = towers.get("text"), towers.get("vision")
    if text is not None and text.tokens is not None:
        beside = f" (the vision tower runs over the {vision.tokens:,} tokens of one image)" \
            if vision is not None and vision.tokens is not None else ""
        return text.tokens, f"the longest sequence the text tower's position table takes{beside}"
    if vision is not None and vision.tokens is not None:  # CLIPForImageClassification: the vision tower alone
        return _one_token_at_least(vision.tokens, "the tokens of one image at the vision config's image_size")
    tokens = image_tokens(spec)
    if tokens is not None:
        return _one_token_at_least(tokens, "the tokens of one image at the config's image_size (its patches and the "
                                           "tokens beside them)")
    longest = text_positions(spec)
    if longest is not None and longest < DEFAULT_CONTEXT:
        return longest, "the longest sequence its position table takes"
    return None


def _one_token_at_least(tokens: int, why: str) -> tuple[int, str]:
    """An image's tokens as the context, ``why`` it is; an image no patch fits (a patch larger than the image, no class
    token: SigLIP's tower) has none, which no estimate takes: one token, as the reason says."""
    if tokens > 0:
        return tokens, why
    return 1, f"{why}: none, since no patch fits the image (one token is estimated)"


def with_context(model: ModelReport, settings: Settings) -> Settings:
    """``settings`` with the context filled where the user gave none: the model's own, else DEFAULT_CONTEXT."""
    return _filled_context(model, settings)[0]


def _filled_context(model: ModelReport, settings: Settings) -> tuple[Settings, tuple[int, str] | None]:
    """(with_context's settings, the model's own context where it filled that in)."""
    if settings.context is not None:
        return settings, None
    own = model_context(model)
    return replace(settings, context=own[0] if own is not None else DEFAULT_CONTEXT), own


def _estimate(model: ModelReport, settings: Settings, facts: _TreeFacts) -> MemoryReport:
    s, own = _filled_context(model, settings)
    moe = _moe_lora_plan(model, s, facts)
    if moe is not None:
        planned, planned_facts, peft_notes = moe
        # (the settings as given: the planned model's estimate says which context it took)
        report = _estimate(planned, settings, planned_facts)
        return replace(report, notes=report.notes + peft_notes)
    _validate(s, model, facts)
    plan = facts.memo(("plan", s.mode, s.dtype, s.optimizer, s.kv_dtype), lambda: _plan(model, s))
    tree = model.tree
    tp, pp, dp = s.tp, s.pp, s.dp
    notes = list(plan.notes)
    if own is not None:
        notes.append(f"context {own[0]:,}: {own[1]}; --context sets another")
    lines: list[MemoryLine] = []
    parallel = tp > 1 or pp > 1
    split_note = (f"; per GPU with TP {tp}" if tp > 1 else "") + (f", PP {pp}" if pp > 1 else "")

    def stored(path: str, t: Tensor, mult: int, frozen: bool) -> int:
        if t.kind == "lora":
            return 0  # adapters already in the tree (a LoRA YAML) are the "adapters" line, in fp32
        return stored_bytes(tree, path, t, mult, plan.storage, plan.compute, plan.skip_modules)

    weights_exact = DTYPES[plan.storage].exact and not parallel
    training = s.mode != "inference"
    zero3 = training and s.zero >= 3 and dp > 1

    pure = s.pure_precision and plan.storage != "float32"
    # (a pure run's states and LoRA adapters are in the weights' float dtype; else fp32)
    element = FLOAT_BYTES.get(plan.compute if pure and DTYPES[plan.storage].quantized else plan.storage, 2) if pure else 4
    holds_adapters = False  # (LoRA or QLoRA on adapters the model holds: set below)
    if s.mode == "train":
        mixed = plan.storage != "float32" and not pure
        wbytes = 2 if plan.storage != "float32" else 4

        def train_w(path: str, t: Tensor, mult: int, frozen: bool) -> int:
            if frozen:
                return stored(path, t, mult, frozen)
            return mult * t.numel * (4 if plan.storage in t.keep_fp32 else FLOAT_BYTES.get(plan.storage, 2))

        weights_key = (plan.storage, plan.compute, plan.skip_modules)
        w = facts.per_gpu(("train_w",) + weights_key, train_w, tp, pp)
        detail = f"{plan.storage} weights{split_note}"
        if zero3:
            gathered = facts.memo(("layer", "train_w") + weights_key, lambda: _largest_layer_bytes(tree, train_w))
            w = _shard(w, dp) + gathered
            detail += f"; ZeRO-3 ÷ {dp} + one gathered layer ({gathered / GiB:.2f} GiB)"
        lines.append(MemoryLine("weights", w, weights_exact and not zero3, detail))
        n_train = facts.per_gpu(("trainable",), _trainable_numel, tp, pp)
        # A gradient has its parameter's dtype: float32 for the tensors the model keeps in it.
        n_kept = facts.per_gpu(("trainable_kept", plan.storage),
                               lambda p, t, m, f: 0 if f or plan.storage not in t.keep_fp32 else m * t.numel, tp, pp)
        g = (n_train - n_kept) * wbytes + n_kept * 4
        kept_detail = f", 4 × {n_kept:,} kept in float32" if n_kept else ""
        lines.append(MemoryLine("gradients", _shard(g, dp) if s.zero >= 2 else g, not parallel and not (s.zero >= 2 and dp > 1),
                                f"{wbytes} bytes × {n_train - n_kept:,} trainable{kept_detail}"
                                + (f"; ZeRO-{s.zero} ÷ {dp}" if s.zero >= 2 and dp > 1 else "")))
        if mixed:
            m = n_train * 4
            lines.append(MemoryLine("master_weights", _shard(m, dp) if s.zero >= 1 else m, not parallel and not (s.zero >= 1 and dp > 1),
                                    f"fp32 copy, 4 bytes × {n_train:,}" + (f"; ZeRO-{s.zero} ÷ {dp}" if s.zero and dp > 1 else "")))
        kept_in = plan.storage if pure else None
        o = facts.per_gpu(("optimizer", s.optimizer, element, kept_in),
                          _trainable_state_bytes(s.optimizer, element, kept_in), tp, pp)
        # (SGD keeps no state, and 8-bit AdamW's do not follow the weights' dtype: no note for those)
        states_follow_dtype = optimizer_state_bytes(1, s.optimizer, 4) != optimizer_state_bytes(1, s.optimizer, 2)
        lines.append(MemoryLine("optimizer_states", _shard(o, dp) if s.zero >= 1 else o,
                                not parallel and not (s.zero >= 1 and dp > 1),
                                _optimizer_detail(s.optimizer, element) + (" (fp32 for the tensors kept in float32)"
                                                                           if pure and n_kept and states_follow_dtype else "")
                                + (f"; ZeRO-{s.zero} ÷ {dp}" if s.zero and dp > 1 else "")))
    elif s.mode in ("lora", "qlora"):
        # The base is frozen: its storage only. Adapters are fp32 (peft's autocast_adapter_dtype), trained with the optimizer.
        # A model that holds its own adapters (a Python file's get_peft_model) has its frozen part as the base and its
        # trainable tensors as the adapters; any other gets the settings' LoRA plan.
        holds_adapters = _own_adapters(tree, facts)
        base: TensorBytes = (lambda p, t, m, f: stored(p, t, m, f) if f else 0) if holds_adapters else stored
        stored_key = ("stored_frozen" if holds_adapters else "stored", plan.storage, plan.compute, plan.skip_modules)
        w = facts.per_gpu(stored_key, base, tp, pp)
        detail = f"frozen base in {plan.storage}{split_note}"
        if zero3:
            gathered = facts.memo(("layer",) + stored_key, lambda: _largest_layer_bytes(tree, base))
            w = _shard(w, dp) + gathered
            detail += f"; ZeRO-3 ÷ {dp} + one gathered layer"
        lines.append(MemoryLine("weights", w, weights_exact and not zero3, detail))
        if holds_adapters:
            n_adapt = facts.per_gpu(("trainable",), _trainable_numel, tp, pp)
            adapters = f"{n_adapt:,} trainable parameters of the model (its own adapters)"
            o = facts.per_gpu(("optimizer", s.optimizer, element), _trainable_state_bytes(s.optimizer, element), tp, pp)
        elif (planned_rank := _planned_adapter_rank(model, s, facts)) is not None:
            # The config's own adapters, as its reader built them (formats/lora.py), peft's fused-expert
            # adapters too (Qwen3-MoE's 128 experts: 490M of 498M), each matrix its own optimizer state;
            # at another rank (--lora-rank), each matrix's rank dimension scaled.
            rank = s.lora_rank

            def numel_at_rank(t: Tensor) -> int:
                # (every "lora" tensor has one: _planned_adapter_rank checked them)
                return (_lora_numel_at(t, planned_rank, rank) or 0) if t.kind == "lora" else 0

            def planned_fn(p: str, t: Tensor, m: int, f: bool) -> int:
                return m * numel_at_rank(t)

            n_adapt = facts.per_gpu(("planned_lora_at", rank), planned_fn, tp, pp)
            n_adapt_total = facts.per_gpu(("planned_lora_at", rank), planned_fn, 1, 1)
            if (model.plan or {}).get(_PEFT_PLAN):
                what = ", ".join(s.lora_targets) if s.lora_targets else "all linear layers"
                adapters = f"{n_adapt_total:,} LoRA params (rank {rank}, {what}, as peft adapts a MoE model)"
            else:
                adapters = f"{n_adapt_total:,} LoRA params (the config's adapters, rank {rank}" + (
                    f"; the config's rank is {planned_rank})" if rank != planned_rank else ")")

            def planned_state_fn(p: str, t: Tensor, m: int, f: bool) -> int:
                n = numel_at_rank(t)
                return m * optimizer_state_bytes(n, s.optimizer, element) if n else 0

            o = facts.per_gpu(("planned_lora_state", rank, s.optimizer, element), planned_state_fn, tp, pp)
        else:
            n_adapt_total = sum(facts.memo(("lora", s.lora_rank, s.lora_targets),
                                           lambda: lora_adapter_breakdown(tree, s.lora_rank, s.lora_targets)).values())

            def adapter_fn(p: str, t: Tensor, m: int, f: bool) -> int:
                matrices = _adapter_matrices(t, s.lora_rank, s.lora_targets)
                return m * sum(matrices) if matrices else 0

            n_adapt = facts.per_gpu(("adapter", s.lora_rank, s.lora_targets), adapter_fn, tp, pp)
            targets = ", ".join(s.lora_targets) if s.lora_targets else "all linear layers"
            adapters = f"{n_adapt_total:,} LoRA params (rank {s.lora_rank}, {targets})"

            def adapter_state_fn(p: str, t: Tensor, m: int, f: bool) -> int:
                matrices = _adapter_matrices(t, s.lora_rank, s.lora_targets)  # each matrix its own optimizer state
                return m * sum(optimizer_state_bytes(n, s.optimizer, element) for n in matrices) if matrices else 0

            o = facts.per_gpu(("adapter_state", s.lora_rank, s.lora_targets, s.optimizer, element), adapter_state_fn, tp, pp)
        sharded = (lambda b, level: _shard(b, dp) if s.zero >= level else b)
        adapter_kind = "fp32" if element == 4 else f"{8 * element}-bit (pure precision)"
        lines.append(MemoryLine("adapters", sharded(element * n_adapt, 3), not parallel and not zero3,
                                f"{adapters} in {adapter_kind}"))
        lines.append(MemoryLine("gradients", sharded(element * n_adapt, 2), not parallel and not (s.zero >= 2 and dp > 1),
                                f"{adapter_kind} adapter gradients"))
        lines.append(MemoryLine("optimizer_states", sharded(o, 1),
                                not parallel and not (s.zero >= 1 and dp > 1),
                                _optimizer_detail(s.optimizer, element) + " (adapters only)"))
    else:
        w = facts.per_gpu(("stored", plan.storage, plan.compute, plan.skip_modules), stored, tp, pp)
        lines.append(MemoryLine("weights", w, weights_exact, f"{plan.storage}{split_note}"))
        cache = kv_cache(model, s.context, s.batch, plan.kv, tp, pp,
                         plan.compute if plan.compute in FLOAT_BYTES else "bfloat16")
        if cache is None:
            layout = model.spec.family.layout if model.spec else "unknown"
            encoder_only = layout == "seq2seq" and model.spec is not None and model.spec.head in ENCODER_ONLY_HEADS
            if layout == "encoder" and model.spec is not None and model.spec.head == "causal_lm":
                # (_decoder_mode_cache: ModernBERT's decoder whose window is no whole number; a causal LM on the
                # encoder layout whose family says nothing of its cache)
                why = f"{model.spec.architecture}'s sliding layers have no window of a whole number of tokens " \
                      "(local_attention // 2; transformers' attention cannot run)" if model.spec.family.decoder_cache \
                    else f"KV cache of {model.spec.architecture} (a causal LM on the encoder layout) is not modelled yet"
                notes.append(f"{why}; not included")
            elif layout in ENCODER_LAYOUTS or encoder_only:
                notes.append("encoder model: no KV cache")
            elif model.spec is None:
                notes.append("KV cache not included: a model defined in Python has no config that says its "
                             "attention layout (nanoGPT-style generation keeps none)")
            else:
                notes.append(f"KV cache for the {layout} layout is not modelled yet; not included")
        else:
            lines.append(MemoryLine("kv_cache", cache.bytes, cache.exact, cache.detail))

    if training and s.reference_model is not None:
        lines.append(_reference_line(s, facts, tp, pp, dp, parallel, zero3))

    # (the activation model counts per token through layers of one width; a convolutional backbone's are per image,
    # by its feature maps' sizes (_feature_map_activations), and a hierarchical vision
    # transformer's (Swin) tokens and widths change at each stage: not modelled)
    layout = model.spec.family.layout if model.spec is not None else None
    feature_line = _feature_map_activations(model, s, plan.compute, training) if layout == "convnet" else None
    activations_unmodelled = layout in ("convnet", "swin") and feature_line is None
    if activations_unmodelled:
        what = "a convolutional backbone (feature maps per image)" if layout == "convnet" else \
            "a hierarchical vision transformer (tokens and widths per stage)"
        notes.append(f"activations of {what}{' in a LoRA step' if layout == 'convnet' and s.mode in ('lora', 'qlora') else ''}"
                     " are not modelled yet; not included")
    if feature_line is not None:
        lines.append(MemoryLine("activations", feature_line[0], False, feature_line[1]))
        if training and s.gradient_checkpointing:
            notes.append("gradient checkpointing: transformers' convolutional backbones do not support it; not applied")
    if training:
        if not activations_unmodelled and feature_line is None:
            lora = s.mode in ("lora", "qlora")

            def train_act(m: ModelReport, ts: Settings, f: _TreeFacts) -> tuple[int, str]:
                return training_activations(m, ts, plan.compute, lora, f)

            act, source = _towers_activations(model, s, facts, train_act, True) or train_act(model, s, facts)
            images = _image_tower_activations(model, s, facts, train_act, lora)
            if images is not None:  # kept beside the language model's for the backward pass
                act, source = act + images[0], f"language model: {source}; {images[1]}"
            lines.append(MemoryLine("activations", act, False, source))
        spec = _decoder_spec(model)
        seq2seq = _seq2seq_spec(model)
        # A vision-language model's head is its text model's, and its loss transformers' causal one (upcast).
        # (a head pruned to fewer rows than the vocabulary, lm_head_rows: Apertus 1.5's, as wide as its logits)
        vocab = (spec.values.get("lm_head_rows") or spec.values.get("vocab_size")) if spec is not None \
            and model.spec is not None \
            and model.spec.head in ("causal_lm", "conditional_generation") \
            else output_vocab(seq2seq) if seq2seq is not None and seq2seq.head == "seq2seq_lm" \
            else causal_lm_rows(seq2seq) if seq2seq is not None and seq2seq.head == "causal_lm" \
            else facts.memo(("tree_vocab",), lambda: _tree_vocab(model.tree)) if model.spec is None else None
        if isinstance(vocab, int):
            per_logit, what = _loss_logit_bytes(seq2seq is not None, s.pure_precision, FLOAT_BYTES.get(plan.compute, 2))
            logits = per_logit * s.context * s.batch * vocab
            lines.append(MemoryLine("logits", _shard(logits, tp), False, f"{per_logit}·s·b·V: {what} (V = {vocab:,})"))
    elif not activations_unmodelled and feature_line is None:
        def infer_act(m: ModelReport, ts: Settings, f: _TreeFacts) -> tuple[int, str]:
            return inference_activations(m, ts, plan.compute, f)

        act, detail = _towers_activations(model, s, facts, infer_act, False) or infer_act(model, s, facts)
        images = _image_tower_activations(model, s, facts, infer_act, False)
        if images is not None:  # the vision tower runs before the prefill: the larger of the two
            act, detail = max(act, images[0]), f"larger of language model: {detail}; {images[1]}"
        lines.append(MemoryLine("activations", act, False, detail))
    lines.append(MemoryLine("overhead", OVERHEAD_BYTES, False, "CUDA context + allocator slack (constant)"))

    limit = position_limit(model)
    if limit is not None and s.context > limit.tokens:
        notes.append(f"context {s.context:,} is beyond {limit.key} ({limit.tokens:,})")
    if s.mode == "inference" and s.gpus > tp * pp:
        notes.append(f"{dp} data-parallel replicas: each GPU holds a full copy (batch {s.batch} per replica)")
    sizes = WeightsByDtype(tree, plan.compute, plan.skip_modules)
    total = sum(l.bytes for l in lines)
    # (peft's adapters a Python model holds have the rank its plan read from the script's LoraConfig)
    own_adapters = holds_adapters and not _peft_adapters(facts)
    return MemoryReport(s, plan.storage, tuple(lines), total, sizes, plan.compute, plan.kv, tuple(notes), own_adapters)


class WeightsByDtype(Mapping[str, int]):
    """Whole-model weight bytes per dtype, computed on first read of each dtype.

    Most callers (the gate, fit searches) never read it; computing all eleven dtypes
    for every estimate made judging a large model several times slower.
    """

    def __init__(self, tree: ParamTree, compute: str, skip: frozenset[str]) -> None:
        self._args = (tree, compute, skip)
        self._sizes: dict[str, int] = {}

    def __getitem__(self, dtype: str) -> int:
        if dtype not in DTYPES:
            raise KeyError(dtype)
        if dtype not in self._sizes:
            self._sizes[dtype] = _whole_weights(self._args[0], dtype, *self._args[1:])
        return self._sizes[dtype]

    def __iter__(self):
        return iter(DTYPES)

    def __len__(self) -> int:
        return len(DTYPES)

    def __repr__(self) -> str:
        return f"WeightsByDtype({dict(self)!r})"


def _whole_weights(tree: ParamTree, dtype: str, compute: str, skip: frozenset[str]) -> int:
    return sum(stored_bytes(tree, path, t, m, dtype, compute, skip if DTYPES[dtype].quantized else frozenset())
               for path, t, m, _f in tree.root.iter_tensors())


def _optimizer_detail(optimizer: str, element: int = 4) -> str:
    kind = "fp32" if element == 4 else f"{8 * element}-bit, as the weights"
    return {
        "adamw": f"AdamW m, v {kind}: {2 * element} bytes per trainable",
        "adamw-fp32": "AdamW m, v fp32: 8 bytes per trainable",
        "adamw-8bit": "8-bit AdamW (bitsandbytes): 2 bytes per trainable + fp32 scales per 256 (fp32 states below 4096 elements)",
        "sgd": "SGD without momentum: no state",
        "sgd-momentum": f"one {kind} state (SGD momentum, RMSprop, Adagrad): {element} bytes per trainable",
    }[optimizer]
