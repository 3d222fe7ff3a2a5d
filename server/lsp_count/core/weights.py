"""What a checkpoint holds on disk: safetensors headers and model.safetensors.index.json.

A safetensors file starts with an 8-byte little-endian header length and a JSON
header mapping each tensor name to its dtype, shape and byte range; reading the
header gives exact on-disk counts without reading tensor data. An index's
``metadata.total_size`` is *bytes* of every stored tensor (buffers and
quantization scales included), not a parameter count; when the shards are next
to the index their headers give the count. The architectural count (what the
model class's ``parameters()`` sums) can differ: a tied head stored twice or
not at all, buffers saved with the weights (gpt2's attention masks, rotary
inv_freq), quantized weights packed into integer dtypes with their scales,
extra layers the class does not build (DeepSeek-V3's MTP layer).
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from lsp_count.core.report import FileReport, ModelReport
from lsp_count.core.source import Problem

# Bytes per element of each safetensors dtype (F4 variants pack two per byte).
DTYPE_BYTES: dict[str, float] = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "F6_E2M3": 0.75,
    "F6_E3M2": 0.75, "F4": 0.5, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8, "U32": 4, "U16": 2, "U8": 1,
    "BOOL": 1, "C64": 8,
}
# A header larger than this is not a real checkpoint's (the format caps it at 100 MB).
MAX_HEADER_BYTES = 100 * 1024 * 1024
MAX_INDEX_BYTES = 50 * 1024 * 1024
_BUFFER_SUFFIXES = (".attn.bias", ".attn.masked_bias", "rotary_emb.inv_freq", "position_ids")
_QUANT_MARKERS = ("qweight", "qzeros", "scales", "absmax", "quant_map", "quant_state", "weight_scale", "SCB",
                  "weight_format", "nested_")


@dataclass(frozen=True)
class TensorEntry:
    name: str
    dtype: str
    shape: tuple[int, ...]

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class WeightsInfo:
    tensors: tuple[TensorEntry, ...]
    total_size: int | None  # the index's metadata.total_size (bytes), if read from an index
    missing_shards: tuple[str, ...] = ()

    @property
    def params(self) -> int:
        return sum(t.numel for t in self.tensors)

    def by_dtype(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.dtype] = out.get(t.dtype, 0) + t.numel
        return out

    @property
    def data_bytes(self) -> int:
        return int(sum(t.numel * DTYPE_BYTES.get(t.dtype, 0) for t in self.tensors))


class WeightsError(ValueError):
    pass


def read_safetensors_header(path: str | os.PathLike) -> tuple[TensorEntry, ...]:
    """Tensor entries from the header only (the tensor data is never read)."""
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            raise WeightsError("too short to be a safetensors file")
        (length,) = struct.unpack("<Q", raw)
        size = os.fstat(fh.fileno()).st_size
        if length > MAX_HEADER_BYTES or 8 + length > size:
            raise WeightsError(f"header length {length:,} is not plausible for a {size:,}-byte file")
        header = fh.read(length)
    try:
        data = json.loads(header.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WeightsError(f"the header is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise WeightsError("the header is not a JSON object")
    entries = []
    for name, info in data.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or not isinstance(info.get("shape"), list) or \
                not all(isinstance(d, int) and d >= 0 for d in info["shape"]):
            raise WeightsError(f"tensor {name!r} has no valid shape")
        entries.append(TensorEntry(name, str(info.get("dtype")), tuple(info["shape"])))
    return tuple(entries)


def read_weights(path: str) -> WeightsInfo:
    """A single .safetensors file, or an index plus whatever shards lie next to it."""
    p = Path(path)
    if p.name.endswith(".safetensors"):
        return WeightsInfo(read_safetensors_header(p), None)
    if p.stat().st_size > MAX_INDEX_BYTES:
        raise WeightsError("the index is too large")
    try:
        index = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise WeightsError(f"not a JSON index: {exc}") from None
    total = index.get("metadata", {}).get("total_size") if isinstance(index, dict) else None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise WeightsError("no weight_map in the index")
    tensors: list[TensorEntry] = []
    missing: list[str] = []
    for shard in sorted(set(map(str, weight_map.values()))):
        shard_path = p.parent / shard
        if Path(shard).is_absolute() or ".." in Path(shard).parts or not shard_path.is_file():
            missing.append(shard)
            continue
        tensors.extend(read_safetensors_header(shard_path))
    return WeightsInfo(tuple(tensors), total if isinstance(total, int) else None, tuple(missing))


def explain_difference(info: WeightsInfo, architectural: int, tied: bool) -> list[str]:
    """Why the on-disk count differs from the model class's, as far as the names tell."""
    reasons: list[str] = []
    diff = info.params - architectural
    buffers = [t for t in info.tensors if t.name.endswith(_BUFFER_SUFFIXES)]
    if buffers:
        reasons.append(f"{len(buffers)} buffers saved with the weights ({sum(t.numel for t in buffers):,} values, "
                       f"e.g. {buffers[0].name}): not parameters")
    quant = [t for t in info.tensors if any(m in t.name for m in _QUANT_MARKERS) or t.dtype in ("U8", "I8", "I32") ]
    if quant:
        reasons.append(f"{len(quant)} quantized or auxiliary tensors (packed integers, scales): on-disk elements are not parameters")
    names = {t.name for t in info.tensors}
    if tied and any(n.endswith("lm_head.weight") for n in names):
        reasons.append("the tied output head is stored as its own tensor (the class counts it once)")
    if any(".mtp." in n or "layers.61." in n for n in names):
        reasons.append("layers the transformers class does not build (multi-token prediction)")
    if not reasons and diff:
        reasons.append("tensors the class does not hold, or holds differently; compare the names with the model's")
    return reasons


def analyze_weights_path(path: str, options) -> FileReport:
    try:
        info = read_weights(path)
    except (OSError, WeightsError) as exc:
        return FileReport(path, (), (Problem("error", "LC003", f"cannot read the weights: {exc}"),))
    problems: list[Problem] = []
    by_dtype = ", ".join(f"{d} {n:,}" for d, n in sorted(info.by_dtype().items()))
    if info.total_size is not None:
        problems.append(Problem("info", "LC106", f"metadata.total_size is {info.total_size:,} bytes "
                                f"({info.total_size / 2**30:.2f} GiB) of stored tensors, buffers and scales included: not a parameter count"))
    if info.missing_shards:
        problems.append(Problem("info", "LC106", f"{len(info.missing_shards)} shards are not next to the index "
                                f"({info.missing_shards[0]}...): on-disk counts need every shard's header"))
    if info.tensors:
        problems.append(Problem("info", "LC106", f"on disk: {info.params:,} values in {len(info.tensors):,} tensors ({by_dtype})"
                                + ("" if not info.missing_shards else " from the shards present")))
    config = Path(path).parent / "config.json"
    model: ModelReport | None = None
    if config.is_file():
        from lsp_count.core.analyze import analyze_json

        report = analyze_json(config.read_text(encoding="utf-8", errors="replace"), str(config), options)
        if report.models:
            model = report.models[0]
            arch = model.tree.total
            if info.tensors and not info.missing_shards and info.params != arch:
                tied = bool(model.spec and model.spec.values.get("tie_embeddings"))
                why = "; ".join(explain_difference(info, arch, tied))
                problems.append(Problem("info", "LC106", f"architectural count {arch:,} (config.json) differs from the "
                                        f"on-disk count {info.params:,} by {info.params - arch:+,}: {why}"))
            elif info.tensors and not info.missing_shards:
                problems.append(Problem("info", "LC106", f"on-disk count equals the architectural count ({arch:,})"))
    else:
        problems.append(Problem("info", "LC106", "no config.json next to the weights: only on-disk counts"))
    return FileReport(path, (model,) if model else (), tuple(problems))
