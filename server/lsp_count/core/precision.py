"""Storage precision: how many bytes a model's weights take in each dtype or quantization format.

Bytes are computed per tensor from each format's block layout, so scales,
zero points and block padding are in the figure, not an average "bits per
weight" multiplied out. The nominal bits per weight below are what those
layouts work out to on large matrices:

==============  ======  ==========================================================
dtype           bits    layout (per quantized weight matrix)
==============  ======  ==========================================================
float32         32      plain
bfloat16        16      plain
float16         16      plain
float8          8.002   e4m3 byte + fp32 scale per 128×128 block (transformers
                        FineGrainedFP8 / DeepSeek-V3 ``weight_block_size``)
int8            8+32/in LLM.int8 (bitsandbytes): int8 + fp32 scale per output row
nf4             4.5     bitsandbytes NF4, blocksize 64: 4 bits + fp32 absmax per 64
nf4-dq          4.127   NF4 with double quantization (QLoRA): absmax as uint8, one
                        fp32 scale per 256 absmax, one fp32 offset per tensor
gptq-4bit       4.16    4-bit qweight + fp16 scale and packed 4-bit zero per group
                        of 128 inputs + int32 g_idx per input (AutoGPTQ layout)
awq-4bit        4.16    as GPTQ without g_idx (AutoAWQ GEMM layout)
gguf-q8_0       8.5     llama.cpp Q8_0: 32 int8 + fp16 scale = 34 bytes per 32
gguf-q4_k_m     ≈4.9    llama.cpp Q4_K_M recipe: Q4_K (144 bytes / 256) for most
                        matrices, Q6_K (210 / 256) for the output head and for
                        attn_v / ffn_down in the layers ``use_more_bits`` picks
mxfp4           4.25    OCP MXFP4, GPT-OSS's experts only: two e2m1 values a byte +
                        an e8m0 scale byte per 32 inputs; the experts' biases fp32
                        (transformers' Mxfp4GptOssExperts); the rest 16-bit
==============  ======  ==========================================================

What is *not* quantized: quantizers replace ``nn.Linear`` weights only, so
norms, biases, convolutions and other small tensors stay in the 16-bit compute
dtype; bitsandbytes, GPTQ, AWQ and fp8 also keep the embeddings and the
output head (transformers skips the head by default). GGUF quantizes the
embeddings and the head too and stores 1-D tensors as f32.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from lsp_count.core.params import ADAPTABLE_HEAD_NODE, ParamTree, Tensor

# Matrices that quantizers replace: nn.Linear weights, and the experts' fused
# weight matrices (quantized checkpoints of MoE models quantize the experts too; not bitsandbytes,
# which replaces nn.Linear modules alone: LINEAR_MODULES_ONLY).
QUANTIZABLE_KINDS = frozenset({"linear", "expert"})
# Output heads: kept 16-bit by every quantizer except GGUF.
HEAD_MODULES = frozenset({"lm_head", "score"})


@dataclass(frozen=True)
class DType:
    name: str
    bits: float  # nominal bits per quantized weight incl. scales (for display; bytes come from ``tensor_bytes``)
    scheme: str
    quantized: bool
    # False where the stored bytes depend on choices the name does not pin down (GGUF mixes).
    exact: bool = True
    doc: str = ""


DTYPES: Mapping[str, DType] = {
    d.name: d
    for d in (
        DType("float32", 32, "float", False, doc="IEEE fp32"),
        DType("bfloat16", 16, "float", False, doc="bf16"),
        DType("float16", 16, "float", False, doc="fp16"),
        DType("float8", 8 + 32 / (128 * 128), "fp8-block", True, doc="fp8 e4m3, fp32 scale per 128×128 block"),
        DType("int8", 8, "int8-row", True, doc="LLM.int8 (bitsandbytes), fp32 scale per output row"),
        DType("nf4", 4 + 32 / 64, "nf4", True, doc="bitsandbytes NF4, blocksize 64"),
        DType("nf4-dq", 4 + 8 / 64 + 32 / (64 * 256), "nf4-dq", True, doc="NF4 + double quant (QLoRA)"),
        DType("gptq-4bit", 4 + 16 / 128 + 4 / 128, "gptq", True, doc="GPTQ 4-bit, group 128"),
        DType("awq-4bit", 4 + 16 / 128 + 4 / 128, "awq", True, doc="AWQ 4-bit, group 128"),
        DType("gguf-q8_0", 8.5, "q8_0", True, doc="llama.cpp Q8_0"),
        DType("gguf-q4_k_m", 4.5, "q4_k_m", True, exact=False,
              doc="llama.cpp Q4_K_M (Q4_K, with Q6_K for the head and some attn_v/ffn_down)"),
        # Not exact: the triton kernels pad the blocks and scales to their swizzled layouts on the GPU.
        DType("mxfp4", 4 + 8 / 32, "mxfp4", True, exact=False,
              doc="MXFP4 (GPT-OSS experts): e2m1 + e8m0 scale per 32; the rest 16-bit"),
    )
}

FLOAT_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
SIXTEEN_BIT = ("bfloat16", "float16")

_ALIASES = {
    "fp32": "float32", "f32": "float32", "float": "float32", "float32": "float32",
    "bf16": "bfloat16", "bfloat16": "bfloat16",
    "fp16": "float16", "f16": "float16", "half": "float16", "float16": "float16",
    "fp8": "float8", "f8": "float8", "float8": "float8", "float8e4m3fn": "float8", "e4m3": "float8",
    "int8": "int8", "llmint8": "int8", "8bit": "int8", "bnb8bit": "int8",
    "nf4": "nf4", "bnb4bit": "nf4", "4bit": "nf4",
    "nf4dq": "nf4-dq", "nf4doublequant": "nf4-dq", "qlora": "nf4-dq",
    "gptq": "gptq-4bit", "gptq4bit": "gptq-4bit", "gptq4": "gptq-4bit", "gptqint4": "gptq-4bit",
    "awq": "awq-4bit", "awq4bit": "awq-4bit", "awq4": "awq-4bit",
    "q80": "gguf-q8_0", "ggufq80": "gguf-q8_0",
    "q4km": "gguf-q4_k_m", "ggufq4km": "gguf-q4_k_m",
    "mxfp4": "mxfp4",
}


class UnknownDType(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(f'unknown dtype "{text}" (known: {", ".join(DTYPES)})')
        self.text = text


@functools.lru_cache(maxsize=256)
def normalize_dtype(text: str) -> str:
    """``"torch.bfloat16"``, ``"bf16"``, ``"BF16"`` → ``"bfloat16"``. Raises UnknownDType.

    Memoized (errors are not): every memory estimate normalizes the same few names.
    """
    raw = text.strip().lower()
    if raw.startswith("torch."):
        raw = raw[len("torch."):]
    key = re.sub(r"[^a-z0-9]", "", raw)
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownDType(text)


def dtype_from_config(torch_dtype: str | None, quantization: Mapping[str, object] | None) -> tuple[str | None, str]:
    """(storage dtype the config implies or None, a note on how it was read).

    ``quantization_config`` wins over ``torch_dtype``: a GPTQ checkpoint says
    ``"torch_dtype": "float16"`` for its unquantized tensors.
    """
    if quantization:
        method = str(quantization.get("quant_method", "")).lower()
        if method == "bitsandbytes" or "load_in_4bit" in quantization or "load_in_8bit" in quantization:
            if quantization.get("load_in_4bit"):
                double = bool(quantization.get("bnb_4bit_use_double_quant"))
                # fp4 uses the same layout (4 bits + absmax per 64) as nf4.
                return ("nf4-dq" if double else "nf4"), "quantization_config: bitsandbytes 4-bit"
            if quantization.get("load_in_8bit"):
                return "int8", "quantization_config: bitsandbytes 8-bit"
        bits = quantization.get("bits", quantization.get("w_bit"))
        if method in ("gptq", "awq"):
            if bits in (4, None):
                return f"{method}-4bit", f"quantization_config: {method} 4-bit"
            return None, f"quantization_config: {method} {bits}-bit is not modelled; sizes use torch_dtype"
        if method in ("fp8", "fbgemm_fp8"):
            return "float8", f"quantization_config: {method}"
        if method == "mxfp4":
            if quantization.get("dequantize"):
                return "bfloat16", "quantization_config: mxfp4 with dequantize (the experts loaded as bfloat16)"
            return "mxfp4", ("quantization_config: mxfp4 (the experts stay 4-bit where transformers runs its triton "
                             "MXFP4 kernels, on a GPU of compute capability 7.5 or more; elsewhere it dequantizes "
                             "them to bfloat16: --dtype bfloat16)")
        if method:
            return None, f"quantization_config: {method} is not modelled; sizes use torch_dtype"
    if torch_dtype:
        try:
            name = normalize_dtype(torch_dtype)
        except UnknownDType:
            return None, f'torch_dtype "{torch_dtype}" not recognized'
        return name, "torch_dtype"
    return None, ""


def skip_modules_from_config(quantization: Mapping[str, object] | None) -> frozenset[str]:
    """Module names a quantization_config keeps unquantized (llm_int8_skip_modules, modules_to_not_convert)."""
    if not quantization:
        return frozenset()
    out: set[str] = set()
    for key in ("llm_int8_skip_modules", "modules_to_not_convert"):
        value = quantization.get(key)
        if isinstance(value, (list, tuple)):
            out.update(str(v).rsplit(".", 1)[-1] for v in value)
    return frozenset(out)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's choice of layers that get Q6_K attn_v / ffn_down under Q4_K_M (llama-quant.cpp)."""
    return i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8 or (i_layer - n_layers // 8) % 3 == 2


def _more_bits_layers(n_layers: int) -> int:
    """How many of ``n_layers`` layers ``use_more_bits`` picks, in closed form (a config may say a
    billion layers): the first and last eighths, and every third layer between them."""
    first, last = n_layers // 8, 7 * n_layers // 8
    return first + (n_layers - last) + (last - first) // 3


# Tensor names that llama.cpp calls attn_v and ffn_down (incl. the experts' fused down projection).
_GGUF_MORE_BITS_NAMES = frozenset({"v_proj", "down_proj", "dense_4h_to_h", "fc2", "fc_out"})


def _matrix_dims(t: Tensor) -> tuple[int, int]:
    """(rows, columns) = (out, in) of a 2-D weight; higher ranks fold into rows."""
    if len(t.shape) >= 2:
        rows = 1
        for s in t.shape[:-1]:
            rows *= s
        return rows, t.shape[-1]
    return 1, t.numel


def quantized_bytes(t: Tensor, scheme: str) -> int:
    """Bytes of one quantized weight matrix, scales and zero points included."""
    n = t.numel
    out_f, in_f = _matrix_dims(t)
    if scheme == "fp8-block":
        return n + 4 * _ceil_div(out_f, 128) * _ceil_div(in_f, 128)
    if scheme == "int8-row":
        return n + 4 * out_f
    if scheme == "nf4":
        return _ceil_div(n, 2) + 4 * _ceil_div(n, 64)
    if scheme == "nf4-dq":
        blocks = _ceil_div(n, 64)
        return _ceil_div(n, 2) + blocks + 4 * _ceil_div(blocks, 256) + 4
    if scheme in ("gptq", "awq"):
        groups = _ceil_div(in_f, 128)
        body = _ceil_div(n, 2) + 2 * groups * out_f + _ceil_div(groups * out_f, 2)
        return body + (4 * in_f if scheme == "gptq" else 0)
    if scheme == "mxfp4":
        return _ceil_div(n, 2) + out_f * _ceil_div(in_f, 32)
    if scheme == "q8_0":
        return 34 * _ceil_div(n, 32)
    if scheme == "q4_k":
        return 144 * _ceil_div(n, 256)
    if scheme == "q6_k":
        return 210 * _ceil_div(n, 256)
    raise ValueError(f"unknown quantization scheme {scheme!r}")


def _short_name(t: Tensor) -> str:
    return t.name.split(".")[0]


# Quantization schemes whose transformers quantizer passes the model's _keep_in_fp32_modules to
# get_modules_to_not_convert (bitsandbytes 8- and 4-bit, AWQ, fine-grained fp8, MXFP4).
_LEAVE_FP32_MODULES = frozenset({"int8-row", "nf4", "nf4-dq", "awq", "fp8-block", "mxfp4"})
# bitsandbytes replaces nn.Linear (and Conv1D) modules alone (replace_with_bnb_linear): transformers 5's fused
# experts, parameters of an experts module, stay in the compute dtype, and so do routers that are a bare parameter.
LINEAR_MODULES_ONLY = frozenset({"int8-row", "nf4", "nf4-dq"})
# Router modules that hold a plain nn.Linear (Switch's router.classifier, HunYuan-MoE's gate.wg, DBRX's and
# JetMoE's router.layer), which bitsandbytes quantizes and peft adapts; every other router's weight is a parameter
# of the router module itself (transformers 5's MixtralTopKRouter, Qwen2MoeTopKRouter, DeepseekV3TopkRouter) or of
# an nn.Linear subclass (PhimoeTopKRouter: peft adapts it, formats/lora.LINEAR_ROUTER_FAMILIES; bitsandbytes does not).
_PLAIN_LINEAR_ROUTERS = frozenset({"classifier", "wg", "layer"})


# Output embeddings (a class's get_output_embeddings()) of other names than lm_head: BERT-style MLM decoders
# (RemBERT's, an untied BERT's), FSMT's output_projection. transformers' get_keys_to_not_convert keeps them.
_OUTPUT_EMBEDDING_MODULES = frozenset({"decoder", "output_projection"})


def _module_path(t: Tensor) -> str:
    return t.name.rsplit(".", 1)[0] if "." in t.name else ""


def is_unreplaced(t: Tensor, unreplaced: frozenset[str]) -> bool:
    """Whether ``t``'s module is one of ``unreplaced`` (Family.unreplaced_linears): a module name (Falcon's
    "dense"), or a dotted path that ends the tensor's module path (SigLIP's "head.attention.out_proj", nn.MultiheadAttention's
    NonDynamicallyQuantizableLinear, beside the layers' plain out_proj)."""
    if t.module in unreplaced:
        return True
    module = _module_path(t)
    return any("." in u and (module == u or module.endswith("." + u)) for u in unreplaced)


def bnb_kept_occurrences(tree: ParamTree, path: str, t: Tensor, occurrences: int) -> int:
    """How many of the ``occurrences`` of ``t`` (at node ``path``) transformers' bitsandbytes integration leaves
    unconverted by get_keys_to_not_convert: tied weights' modules (all), the module of the last parameter
    when that is a weight (its one occurrence: the last layer's), and the output embeddings (all)."""
    if tree.tied_nodes and tree.is_tied(path):
        return occurrences
    if t.module in _OUTPUT_EMBEDDING_MODULES and t.is_linear_weight:
        return occurrences
    if t.is_linear_weight and (path, t.name) == tree.last_parameter:
        return 1
    return 0


def stored_bytes(tree: ParamTree, path: str, t: Tensor, occurrences: int, dtype: str, compute_dtype: str = "bfloat16",
                 skip_modules: frozenset[str] = frozenset()) -> int:
    """Bytes of the ``occurrences`` of ``t`` at node ``path`` of ``tree`` stored as ``dtype``: tensor_bytes with the
    tree's facts (bare routers, unreplaced linear classes, what bitsandbytes leaves unconverted)."""
    kept = bnb_kept_occurrences(tree, path, t, occurrences) if DTYPES[dtype].scheme in LINEAR_MODULES_ONLY else 0
    return tensor_bytes(t, dtype, occurrences, compute_dtype, skip_modules,
                        is_bare_router(path, t) and not tree.router_holds_linear,
                        tree.unreplaced_linears, kept, path.endswith("." + ADAPTABLE_HEAD_NODE))


def is_bare_router(path: str, t: Tensor) -> bool:
    """Whether ``t`` (at tree ``path``) is a router weight that no plain nn.Linear holds."""
    return path.endswith(".router") and t.module not in _PLAIN_LINEAR_ROUTERS


def tensor_bytes(t: Tensor, dtype: str, occurrences: int = 1, compute_dtype: str = "bfloat16",
                 skip_modules: frozenset[str] = frozenset(), bare_router: bool = False,
                 unreplaced: frozenset[str] = frozenset(), bnb_kept: int = 0, no_output_embeddings: bool = False) -> int:
    """Bytes of ``occurrences`` copies of ``t`` stored as ``dtype``. ``bare_router``: ``t`` is a router
    weight no plain nn.Linear holds (is_bare_router); ``unreplaced``: the modules of linear layers whose class is
    not nn.Linear itself (Family.unreplaced_linears), which bitsandbytes does not replace; ``bnb_kept``: how many
    occurrences bitsandbytes leaves unconverted all the same (bnb_kept_occurrences); ``no_output_embeddings``: a
    head whose class has no output embeddings (wav2vec 2.0's CTC lm_head), which bitsandbytes converts."""
    d = DTYPES[dtype]
    if bnb_kept and d.scheme in LINEAR_MODULES_ONLY and t.kind in QUANTIZABLE_KINDS:
        keep = 4 if compute_dtype in t.keep_fp32 else FLOAT_BYTES.get(compute_dtype, 2)
        rest = occurrences - bnb_kept
        return bnb_kept * t.numel * keep + (tensor_bytes(t, dtype, rest, compute_dtype, skip_modules, bare_router,
                                                         unreplaced, 0, no_output_embeddings) if rest else 0)
    if not d.quantized:
        return occurrences * t.numel * (4 if dtype in t.keep_fp32 else FLOAT_BYTES[dtype])
    # What a tensor left unquantized is kept in: the compute dtype, or float32 where transformers keeps it so.
    keep = 4 if compute_dtype in t.keep_fp32 else FLOAT_BYTES.get(compute_dtype, 2)
    # bitsandbytes keeps a head by get_keys_to_not_convert alone (bnb_kept): not one without output embeddings.
    is_head = t.module in HEAD_MODULES and not (no_output_embeddings and d.scheme in LINEAR_MODULES_ONLY)
    if d.scheme == "mxfp4":  # transformers replaces GPT-OSS's experts alone
        if t.kind == "expert":
            return occurrences * quantized_bytes(t, "mxfp4")
        return occurrences * t.numel * (4 if t.kind == "bias" and t.module == "experts" else keep)
    if d.scheme in ("q8_0", "q4_k_m"):
        if len(t.shape) < 2 or t.kind in ("norm", "bias", "conv"):
            return occurrences * t.numel * 4  # GGUF stores 1-D tensors (norms, biases) as f32
        if d.scheme == "q8_0":
            return occurrences * quantized_bytes(t, "q8_0")
        if is_head:
            return occurrences * quantized_bytes(t, "q6_k")
        if _short_name(t) in _GGUF_MORE_BITS_NAMES and t.kind in QUANTIZABLE_KINDS and occurrences > 1:
            more = _more_bits_layers(occurrences)
            return more * quantized_bytes(t, "q6_k") + (occurrences - more) * quantized_bytes(t, "q4_k")
        return occurrences * quantized_bytes(t, "q4_k")
    # transformers' bitsandbytes, AWQ and fp8 quantizers leave a class's _keep_in_fp32_modules unconverted
    # (T5's wo; its GPTQ path does not). Those are the tensors kept in float32 under float16; the strict
    # lists' (routers, biases) are no quantizer's to convert.
    # bitsandbytes is not passed the strict list (float32 under bfloat16 too): HY-V4's indexer weights_proj, an
    # nn.Linear, is converted (the strict lists' routers are no nn.Linear: outside_linears keeps them).
    strict_only = "bfloat16" in t.keep_fp32 and d.scheme in LINEAR_MODULES_ONLY
    unconverted = "float16" in t.keep_fp32 and d.scheme in _LEAVE_FP32_MODULES and not strict_only
    outside_linears = (t.kind == "expert" or bare_router or (unreplaced and is_unreplaced(t, unreplaced))) \
        and d.scheme in LINEAR_MODULES_ONLY
    if t.kind not in QUANTIZABLE_KINDS or is_head or t.module in skip_modules or unconverted or outside_linears:
        return occurrences * t.numel * keep
    return occurrences * quantized_bytes(t, d.scheme)


def weights_bytes(tree: ParamTree, dtype: str, compute_dtype: str = "bfloat16",
                  skip_modules: frozenset[str] = frozenset(), only: Iterable[str] | None = None) -> int:
    """Total bytes of the model's parameters stored as ``dtype``.

    ``compute_dtype`` is what unquantized tensors are kept in (bf16 or fp16).
    A tied head has no tensor of its own in the tree, so it is stored once.
    """
    dtype = normalize_dtype(dtype)
    compute_dtype = normalize_dtype(compute_dtype)
    total = 0
    for path, t, mult, _frozen in tree.root.iter_tensors():
        total += stored_bytes(tree, path, t, mult, dtype, compute_dtype, skip_modules)
    return total


@dataclass(frozen=True)
class PrecisionRow:
    dtype: str
    bytes: int
    bits_per_param: float
    saved_vs_float32: float  # fraction, 0..1
    saved_vs_bfloat16: float  # fraction; negative for float32
    exact: bool


def precision_view(tree: ParamTree, compute_dtype: str = "bfloat16") -> tuple[PrecisionRow, ...]:
    """The precision-savings view: bytes in every dtype and the share saved against fp32 and bf16."""
    # MXFP4 changes only experts' tensors: shown for a mixture-of-experts model alone.
    experts = any(t.kind == "expert" for _path, t, _mult, _frozen in tree.root.iter_tensors())
    sizes = {name: weights_bytes(tree, name, compute_dtype) for name in DTYPES if name != "mxfp4" or experts}
    fp32, bf16 = sizes["float32"], sizes["bfloat16"]
    n = tree.total or 1
    return tuple(
        PrecisionRow(name, b, 8 * b / n, 1 - b / fp32 if fp32 else 0.0, 1 - b / bf16 if bf16 else 0.0, DTYPES[name].exact)
        for name, b in sizes.items()
    )
