"""The GPU catalog: memory, compute and bandwidth of the accelerators people train on.

Two memory figures per GPU, because they differ by up to a few GiB and a model
that "fits in 80 GB" on paper can still run out of memory:

* ``memory_bytes`` is the marketing capacity. Vendors' "GB" for GPU memory is
  binary (an "80 GB" H100 has 80 × 2^30 bytes of HBM; nvidia-smi shows 81,559
  MiB, above 80 × 10^9), so it is stored as N × 2^30.
* ``usable_bytes`` is what the runtime hands out: for CUDA,
  ``torch.cuda.get_device_properties(0).total_memory`` (== ``mem_get_info()[1]``),
  which is the capacity less what the driver and firmware reserve. Fit checks
  use this one. Where no public ``total_memory`` report was found, the
  nvidia-smi total (MiB × 2^20) is used instead and the ``source`` says so; it
  overstates ``total_memory`` by roughly 0.3–1 GiB. torch prints
  ``total_memory`` floored to whole MiB, so figures quoted from such prints
  are ``N × 2^20`` and may sit up to 1 MiB low. Figures vary by a few MiB with
  the driver version.

For Apple silicon (unified memory), the GPU may use what Metal's
``recommendedMaxWorkingSetSize`` allows: about 75% of RAM by default on these
machines (llama.cpp logs 51,539.61 MB on 64 GB, 103,079.22 MB on 128 GB:
exactly 48 and 96 GiB). The limit can be raised with the
``iogpu.wired_limit_mb`` sysctl, at the OS's expense.

``bf16_tflops`` is dense (no 2:4 sparsity) tensor throughput with fp32
accumulation, which is what bf16 training uses; GeForce cards run fp32
accumulation at half their fp16-accumulate rate. GPUs without bf16 (T4,
V100) give their fp16 figure and have ``bf16_supported=False``.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Iterable, Literal

Vendor = Literal["NVIDIA", "AMD", "Apple"]

_MiB = 1 << 20
_GiB = 1 << 30

# A selection bigger than this is almost surely a typo (e.g. "80xH100" meant
# "8xH100-80GB"), and no single job spans more GPUs than that in practice.
MAX_GPU_COUNT = 4096


@dataclass(frozen=True)
class GPU:
    name: str
    aliases: tuple[str, ...]
    vendor: Vendor
    memory_bytes: int
    usable_bytes: int
    bf16_tflops: float
    bandwidth_gbs: float
    source: str
    unified_memory: bool = False
    # False where the GPU has no bf16 math (bf16_tflops then holds fp16):
    # a bf16 config on it runs emulated or fails, which a check should say.
    bf16_supported: bool = True

    def __post_init__(self) -> None:
        # A catalog row that breaks these would silently give wrong verdicts.
        if self.vendor not in ("NVIDIA", "AMD", "Apple"):
            raise ValueError(f"{self.name}: unknown vendor {self.vendor!r}")
        if not 0 < self.usable_bytes <= self.memory_bytes:
            raise ValueError(f"{self.name}: usable_bytes must be in (0, memory_bytes]")
        if self.bf16_tflops <= 0 or self.bandwidth_gbs <= 0:
            raise ValueError(f"{self.name}: throughput figures must be positive")

    @property
    def usable_gib(self) -> float:
        return self.usable_bytes / _GiB

    @property
    def memory_gib(self) -> float:
        return self.memory_bytes / _GiB


def _apple(name: str, aliases: tuple[str, ...], ram_gib: int, tflops: float, bandwidth: float, note: str) -> GPU:
    # Unified memory: the GPU's share is Metal's default working-set limit, 75% of RAM.
    return GPU(
        name=name,
        aliases=aliases,
        vendor="Apple",
        memory_bytes=ram_gib * _GiB,
        usable_bytes=ram_gib * _GiB * 3 // 4,
        bf16_tflops=tflops,
        bandwidth_gbs=bandwidth,
        source=(
            f"{note}; usable = Metal recommendedMaxWorkingSetSize default, 75% of RAM "
            "(llama.cpp ggml_metal_init logs: 48 GiB of 64, 96 GiB of 128, 36 GiB of 48); "
            "Apple GPUs have no matrix units: TFLOP/s is the fp32 ALU peak, which 16-bit math roughly matches"
        ),
        unified_memory=True,
    )


_CATALOG: tuple[GPU, ...] = (
    # --- NVIDIA data centre ---------------------------------------------------------
    GPU(
        "H200",
        ("H200-141GB", "H200-SXM", "H200-SXM-141GB", "NVIDIA H200"),
        "NVIDIA", 141 * _GiB, 143_156 * _MiB, 989.5, 4800,
        "NVIDIA H200 datasheet (SXM: 141 GB HBM3e, 4.8 TB/s, BF16 1,979 TF sparse); "
        "usable: torch total_memory=143156MB (public _CudaDeviceProperties print); nvidia-smi shows 143,771 MiB",
    ),
    GPU(
        "H100-80GB-SXM",
        ("H100", "H100-SXM", "H100-SXM5", "H100-80GB", "H100-SXM-80GB", "NVIDIA H100 80GB HBM3"),
        "NVIDIA", 80 * _GiB, 85_031_714_816, 989.5, 3350,
        "NVIDIA H100 datasheet (SXM: BF16 1,979 TF sparse, 3.35 TB/s); usable: torch total_memory "
        "85,031,714,816 B (public prints give 81,082–81,090 MiB by driver); nvidia-smi shows 81,559 MiB",
    ),
    GPU(
        "H100-80GB-PCIe",
        ("H100-PCIe", "H100-PCIe-80GB", "NVIDIA H100 PCIe"),
        "NVIDIA", 80 * _GiB, 81_008 * _MiB, 756.5, 2000,
        "NVIDIA H100 datasheet (PCIe: BF16 1,513 TF sparse, 2 TB/s); "
        "usable: torch total_memory=81008MB (public _CudaDeviceProperties print)",
    ),
    GPU(
        "H100-NVL",
        ("H100-NVL-94GB", "H100-94GB", "NVIDIA H100 NVL"),
        "NVIDIA", 94 * _GiB, 95_830 * _MiB, 835.5, 3900,
        "NVIDIA H100 datasheet (NVL: 94 GB, BF16 1,671 TF sparse, 3.9 TB/s); usable: no total_memory report "
        "found, derived from nvidia-smi total 95,830 MiB × 2^20 (NVIDIA/gpu-admin-tools#4)",
    ),
    GPU(
        "A100-80GB",
        ("A100", "A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", "A100-80GB-SXM", "A100-80GB-PCIe", "NVIDIA A100 80GB PCIe"),
        "NVIDIA", 80 * _GiB, 85_051_572_224, 312, 2039,
        "NVIDIA A100 datasheet (80GB SXM: BF16 312 TF dense, 2,039 GB/s; the PCIe card has 1,935 GB/s); "
        "usable: torch total_memory 85,051,572,224 B; nvidia-smi shows 81,920 MiB",
    ),
    GPU(
        "A100-40GB",
        ("A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "A100-40GB-SXM", "A100-40GB-PCIe", "NVIDIA A100-PCIE-40GB"),
        "NVIDIA", 40 * _GiB, 42_505_273_344, 312, 1555,
        "NVIDIA A100 datasheet (40GB: BF16 312 TF dense, 1,555 GB/s); "
        "usable: torch total_memory 42,505,273,344 B (public prints: total_memory=40536MB)",
    ),
    GPU(
        "A10G",
        ("NVIDIA A10G", "A10G-24GB"),
        "NVIDIA", 24 * _GiB, 22_587 * _MiB, 70, 600,
        "AWS EC2 G5 (A10G, 24 GB GDDR6, 600 GB/s); NVIDIA publishes no A10G datasheet: BF16 ~70 TF dense "
        "matches measured 69.5 TF/s torch matmul (zzc0721/torch-performance-test-data#126); "
        "usable: torch total_memory=22587MB (public _CudaDeviceProperties print)",
    ),
    GPU(
        "A10",
        ("NVIDIA A10", "A10-24GB"),
        "NVIDIA", 24 * _GiB, 23_028 * _MiB, 125, 600,
        "NVIDIA A10 datasheet (24 GB GDDR6, 600 GB/s, BF16 125 TF dense / 250 sparse); usable: no total_memory "
        "report found, derived from nvidia-smi total 23,028 MiB × 2^20 (modal-labs/modal-client#2797)",
    ),
    GPU(
        "L4",
        ("NVIDIA L4", "L4-24GB"),
        "NVIDIA", 24 * _GiB, 23_034 * _MiB, 121, 300,
        "NVIDIA L4 datasheet (24 GB, 300 GB/s, BF16 242 TF sparse); usable: no total_memory report found, "
        "derived from nvidia-smi total 23,034 MiB × 2^20 (modal-labs/modal-client#2797)",
    ),
    GPU(
        "L40S",
        ("NVIDIA L40S", "L40S-48GB"),
        "NVIDIA", 48 * _GiB, 45_589 * _MiB, 362.05, 864,
        "NVIDIA L40S datasheet (48 GB GDDR6 ECC, 864 GB/s, BF16 362.05 TF dense / 733 sparse); "
        "usable: torch total_memory=45589MB (public print); nvidia-smi shows 46,068 MiB",
    ),
    GPU(
        # Listed so that "L40" finds this card rather than the twice-as-fast L40S.
        "L40",
        ("NVIDIA L40", "L40-48GB"),
        "NVIDIA", 48 * _GiB, 46_068 * _MiB, 181.05, 864,
        "NVIDIA L40 datasheet (48 GB GDDR6 ECC, 864 GB/s, BF16 362.1 TF sparse); usable: no L40 report found, "
        "taken as the L40S's nvidia-smi total 46,068 MiB × 2^20 (same 48 GB ECC board; an assumption)",
    ),
    GPU(
        "A40",
        ("NVIDIA A40", "A40-48GB"),
        "NVIDIA", 48 * _GiB, 45_416 * _MiB, 149.7, 696,
        "NVIDIA A40 datasheet (48 GB GDDR6 ECC, 696 GB/s, BF16 149.7 TF dense / 299.4 sparse); "
        "usable: torch total_memory=45416MB (public _CudaDeviceProperties print)",
    ),
    GPU(
        "T4",
        ("Tesla T4", "NVIDIA T4", "T4-16GB"),
        "NVIDIA", 16 * _GiB, 15_095 * _MiB, 65, 320,
        "NVIDIA T4 datasheet (16 GB GDDR6, 320 GB/s, FP16 65 TF mixed precision); no bf16 on Turing: "
        "the TFLOP/s figure is fp16; usable: torch total_memory=15095MB (public prints range 14,930–15,109 MiB "
        "by driver); nvidia-smi shows 15,360 MiB",
        bf16_supported=False,
    ),
    GPU(
        "V100-16GB",
        ("V100", "V100-SXM2-16GB", "Tesla V100-SXM2-16GB", "V100-16GB-SXM2"),
        "NVIDIA", 16 * _GiB, 16_160 * _MiB, 125, 900,
        "NVIDIA V100 datasheet (SXM2: 900 GB/s, FP16 tensor 125 TF); no bf16 on Volta: the TFLOP/s figure "
        "is fp16; usable: torch total_memory=16160MB (public _CudaDeviceProperties prints)",
        bf16_supported=False,
    ),
    GPU(
        "V100-32GB",
        ("V100-SXM2-32GB", "Tesla V100-SXM2-32GB", "V100-PCIE-32GB", "Tesla V100-PCIE-32GB", "V100-32GB-SXM2"),
        "NVIDIA", 32 * _GiB, 32_510 * _MiB, 125, 900,
        "NVIDIA V100 datasheet (SXM2: 900 GB/s, FP16 tensor 125 TF; PCIe: 112 TF); no bf16 on Volta: the "
        "TFLOP/s figure is fp16; usable: torch total_memory=32510MB (public print, Tesla V100-PCIE-32GB)",
        bf16_supported=False,
    ),
    GPU(
        "B200",
        ("NVIDIA B200", "B200-180GB", "HGX-B200", "DGX-B200"),
        "NVIDIA", 180 * _GiB, 182_631 * _MiB, 2250, 8000,
        "NVIDIA HGX/DGX B200 datasheet (180 GB HBM3e per GPU, 8 TB/s, BF16 4.5 PF sparse); the driver reports a "
        "7,680-bit bus, ~7.7 TB/s (pytorch/ao#4002); usable: torch total_memory=182631MB (public print; "
        "mem_get_info total 178.4 GiB); nvidia-smi shows 183,359 MiB",
    ),
    GPU(
        "H20",
        ("NVIDIA H20", "H20-96GB"),
        "NVIDIA", 96 * _GiB, 97_285 * _MiB, 148, 4000,
        "H20 (China-market Hopper; no public NVIDIA datasheet): 96 GB HBM3, 4.0 TB/s, BF16 148 TF dense as "
        "widely reported, 142 TF/s measured (zzc0721/torch-performance-test-data#77); "
        "usable: torch total_memory=97285MB (public _CudaDeviceProperties print)",
    ),
    # --- NVIDIA workstation ---------------------------------------------------------
    GPU(
        "RTX-A6000",
        ("A6000", "NVIDIA RTX A6000", "RTX-A6000-48GB"),
        "NVIDIA", 48 * _GiB, 48_676 * _MiB, 154.8, 768,
        "NVIDIA RTX A6000 datasheet (48 GB GDDR6, 768 GB/s, tensor 309.7 TF sparse); "
        "usable: torch total_memory=48676MB (public _CudaDeviceProperties print, ECC off)",
    ),
    GPU(
        "RTX-6000-Ada",
        ("RTX 6000 Ada Generation", "NVIDIA RTX 6000 Ada Generation", "6000-Ada", "RTX-6000-Ada-48GB"),
        "NVIDIA", 48 * _GiB, 48_622 * _MiB, 364.25, 960,
        "NVIDIA RTX 6000 Ada datasheet (48 GB GDDR6, 960 GB/s, FP8 1,457 TF sparse → BF16 364.25 dense); "
        "usable: torch total_memory=48622MB (public _CudaDeviceProperties print)",
    ),
    # --- NVIDIA GeForce (fp32-accumulate tensor rate is half the fp16-accumulate one) ---
    GPU(
        "RTX-5090",
        ("5090", "NVIDIA GeForce RTX 5090", "GeForce RTX 5090", "RTX-5090-32GB"),
        "NVIDIA", 32 * _GiB, 32_607 * _MiB, 209.5, 1792,
        "NVIDIA RTX Blackwell GPU architecture whitepaper (32 GB GDDR7, 1,792 GB/s, BF16 fp32-accumulate 209.5 TF "
        "dense); usable: no total_memory report found, derived from nvidia-smi total 32,607 MiB × 2^20 "
        "(noonghunna/club-3090 bench issues)",
    ),
    GPU(
        "RTX-4090",
        ("4090", "NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "RTX-4090-24GB"),
        "NVIDIA", 24 * _GiB, 25_393_692_672, 165.2, 1008,
        "NVIDIA Ada Lovelace architecture whitepaper (24 GB GDDR6X, 1,008 GB/s, BF16 fp32-accumulate 165.2 TF "
        "dense); usable: torch total_memory 25,393,692,672 B; nvidia-smi shows 24,564 MiB",
    ),
    GPU(
        "RTX-4080",
        ("4080", "NVIDIA GeForce RTX 4080", "GeForce RTX 4080", "RTX-4080-16GB"),
        "NVIDIA", 16 * _GiB, 16_049 * _MiB, 97.5, 716.8,
        "NVIDIA Ada Lovelace architecture whitepaper (16 GB GDDR6X, 716.8 GB/s, BF16 fp32-accumulate 97.5 TF "
        "dense); usable: torch total_memory=16049MB (public _CudaDeviceProperties print)",
    ),
    GPU(
        "RTX-4060-Ti-16GB",
        ("4060-Ti-16GB", "RTX-4060-Ti", "4060 Ti", "NVIDIA GeForce RTX 4060 Ti 16GB", "GeForce RTX 4060 Ti 16GB"),
        "NVIDIA", 16 * _GiB, 16_049 * _MiB, 44.1, 288,
        "NVIDIA Ada specs (16 GB GDDR6, 288 GB/s; 34 SMs: BF16 fp32-accumulate 44.1 TF dense); usable: no "
        "public report found, ESTIMATED as the RTX 4080's torch total_memory (16049MB: same 16 GiB, same driver "
        "reservation)",
    ),
    GPU(
        "RTX-3090",
        ("3090", "NVIDIA GeForce RTX 3090", "GeForce RTX 3090", "RTX-3090-24GB"),
        "NVIDIA", 24 * _GiB, 24_259 * _MiB, 71, 936.2,
        "NVIDIA GA102 (Ampere) whitepaper (24 GB GDDR6X, 936.2 GB/s, BF16 fp32-accumulate 71 TF dense); "
        "usable: torch total_memory=24259MB (public prints; 24268MB on older drivers)",
    ),
    # --- AMD ------------------------------------------------------------------------
    GPU(
        "MI300X",
        ("AMD Instinct MI300X", "Instinct MI300X", "MI300X-192GB"),
        "AMD", 192 * _GiB, 206_141_652_992, 1307.4, 5300,
        "AMD Instinct MI300X datasheet (192 GB HBM3, 5.3 TB/s, BF16 1,307.4 TF dense); "
        "usable: rocm-smi VRAM Total Memory 206,141,652,992 B (ROCm issue #4750)",
    ),
    GPU(
        # The module is two GCDs that ROCm shows as two 64 GB devices: a model
        # over 64 GB must be sharded across them even on "1×MI250X".
        "MI250X",
        ("AMD Instinct MI250X", "Instinct MI250X", "MI250X-128GB"),
        "AMD", 128 * _GiB, 2 * 65_520 * _MiB, 383, 3276.8,
        "AMD Instinct MI250X datasheet (128 GB HBM2e, 3.2768 TB/s, BF16 383 TF); one module = two GCDs, each a "
        "separate 64 GB torch device; usable: 2 × torch total_memory=65520MB (public print, per GCD)",
    ),
    # --- Apple (unified memory) -----------------------------------------------------
    _apple("M1-Max-64GB", ("M1 Max", "Apple M1 Max", "M1-Max"), 64, 10.4, 400,
           "Apple M1 Max (32-core GPU: 10.4 TFLOPS, 400 GB/s; Apple press release)"),
    _apple("M2-Ultra-192GB", ("M2 Ultra", "Apple M2 Ultra", "M2-Ultra"), 192, 27.2, 800,
           "Apple M2 Ultra (76-core GPU: 27.2 TFLOPS, 800 GB/s; Apple press release)"),
    _apple("M3-Max-128GB", ("M3 Max", "Apple M3 Max", "M3-Max"), 128, 14.2, 400,
           "Apple M3 Max (40-core GPU, 400 GB/s; Apple gives no TFLOPS: ~14.2 estimated as "
           "40 cores × 128 ALUs × 2 × ~1.4 GHz)"),
    _apple("M4-Max-128GB", ("M4 Max", "Apple M4 Max", "M4-Max"), 128, 16.1, 546,
           "Apple M4 Max (40-core GPU, 546 GB/s; Apple gives no TFLOPS: ~16.1 estimated as "
           "40 cores × 128 ALUs × 2 × ~1.58 GHz)"),
    _apple("M4-Pro-48GB", ("M4 Pro", "Apple M4 Pro", "M4-Pro"), 48, 8.1, 273,
           "Apple M4 Pro (20-core GPU, 273 GB/s; Apple gives no TFLOPS: ~8.1 estimated as "
           "20 cores × 128 ALUs × 2 × ~1.58 GHz)"),
)


def all_gpus() -> tuple[GPU, ...]:
    return _CATALOG


# --- lookup -------------------------------------------------------------------------

# Words a device name carries that say nothing about which device it is
# ("NVIDIA GeForce RTX 4090" is the RTX-4090): dropped for the fuzzy passes.
_NOISE_WORDS = re.compile(r"\b(nvidia|geforce|tesla|amd|instinct|apple)\b")
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def normalize_gpu_name(text: str) -> str:
    """Lowercase and keep only letters and digits: ``RTX 4090`` → ``rtx4090``."""
    return _NON_ALNUM.sub("", text.lower())


def _core(text: str) -> str:
    return normalize_gpu_name(_NOISE_WORDS.sub(" ", text.lower()))


def _forms(gpu: GPU) -> tuple[str, ...]:
    return (gpu.name, *gpu.aliases)


class UnknownGPU(ValueError):
    """No GPU, or more than one, answers to ``name``; ``suggestions`` are canonical names."""

    def __init__(self, name: str, suggestions: tuple[str, ...] = (), ambiguous: bool = False) -> None:
        self.name = name
        self.suggestions = tuple(suggestions)
        self.ambiguous = ambiguous
        what = "ambiguous" if ambiguous else "unknown"
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f'{what} GPU "{name}"{hint} (\'lsp-count gpus\' lists them all)')


def _nearest(query: str, gpus: Iterable[GPU], limit: int = 3, cutoff: float = 0.0) -> tuple[str, ...]:
    """Up to ``limit`` canonical names of ``gpus``, nearest ``query`` first (difflib ratio)."""
    q = normalize_gpu_name(query)
    if not q:
        return ()
    scored: list[tuple[float, int, str]] = []
    for index, gpu in enumerate(gpus):
        best = max(difflib.SequenceMatcher(None, q, normalize_gpu_name(f)).ratio() for f in _forms(gpu))
        if best >= cutoff:
            # Catalog order breaks ties, so suggestions are stable across runs.
            scored.append((-best, index, gpu.name))
    scored.sort()
    return tuple(name for _, _, name in scored[:limit])


def find_gpu(name: str) -> GPU:
    """The GPU ``name`` stands for, by canonical name or alias, ignoring case and punctuation.

    An exact normalised match wins; then a match with vendor words dropped;
    then the one GPU whose name or alias contains the query ("4090").
    """
    query = normalize_gpu_name(name)
    if not query:
        raise UnknownGPU(name)
    for gpu in _CATALOG:
        if any(normalize_gpu_name(f) == query for f in _forms(gpu)):
            return gpu
    core = _core(name)
    if not core:
        raise UnknownGPU(name, _nearest(name, _CATALOG, cutoff=0.5))
    for gpu in _CATALOG:
        if any(_core(f) == core for f in _forms(gpu)):
            return gpu
    containing = [gpu for gpu in _CATALOG if any(core in _core(f) for f in _forms(gpu))]
    if len(containing) == 1:
        return containing[0]
    if containing:
        raise UnknownGPU(name, _nearest(name, containing), ambiguous=True)
    raise UnknownGPU(name, _nearest(name, _CATALOG, cutoff=0.5))


# --- selections ("8xH100") ------------------------------------------------------------


@dataclass(frozen=True)
class GPUSelection:
    gpu: GPU
    count: int = 1

    def __post_init__(self) -> None:
        _check_count(self.count)

    @property
    def total_usable_bytes(self) -> int:
        return self.gpu.usable_bytes * self.count

    @property
    def label(self) -> str:
        return self.gpu.name if self.count == 1 else f"{self.count}×{self.gpu.name}"


def _check_count(count: object) -> None:
    # bool is an int subclass; True GPUs is a bug, not one GPU.
    if isinstance(count, bool) or not isinstance(count, int):
        raise ValueError(f"GPU count must be a whole number, got {count!r}")
    if not 1 <= count <= MAX_GPU_COUNT:
        raise ValueError(f"GPU count must be between 1 and {MAX_GPU_COUNT}, got {count}")


# "8xH100", "8×H100", "2 x A100-80GB", "4*L4". The count must look numeric so
# that a name with an x in it (RTX-4090, MI300X) is never split.
_SPEC = re.compile(r"^\s*([-+]?\d+(?:[.,]\d*)?|[-+]?[.,]\d+)\s*[x×*]\s*(\S.*?)\s*$", re.IGNORECASE)


def parse_gpu_spec(text: str) -> GPUSelection:
    """``"8xH100"`` → 8 × H100-80GB-SXM; a bare name means one GPU.

    Raises ``ValueError`` for a bad count and ``UnknownGPU`` for a bad name.
    """
    match = _SPEC.match(text)
    if not match:
        return GPUSelection(find_gpu(text.strip()), 1)
    raw_count, name = match.groups()
    try:
        count = int(raw_count)
    except ValueError:
        raise ValueError(f'GPU count must be a whole number, got "{raw_count}" in "{text.strip()}"') from None
    if not 1 <= count <= MAX_GPU_COUNT:
        raise ValueError(f'GPU count must be between 1 and {MAX_GPU_COUNT}, got {count} in "{text.strip()}"')
    return GPUSelection(find_gpu(name), count)


# --- the `lsp-count gpus` table ---------------------------------------------------------

_HEADERS = ("GPU", "Usable GiB", "BF16 TFLOP/s", "Bandwidth GB/s", "Vendor")


def _number(value: float) -> str:
    # Whole figures print bare (989.5 vs 2250), so columns read like datasheets.
    return f"{value:,.0f}" if math.isclose(value, round(value)) else f"{value:,.1f}"


def format_gpu_table(gpus: Iterable[GPU]) -> str:
    """A plain-text table; GiB are 2^30 bytes of *usable* memory, 1 decimal."""
    rows = []
    footnote = False
    for gpu in gpus:
        tflops = _number(gpu.bf16_tflops)
        if not gpu.bf16_supported:
            tflops += "*"
            footnote = True
        unified = " (unified)" if gpu.unified_memory else ""
        rows.append((gpu.name, f"{gpu.usable_bytes / _GiB:,.1f}", tflops, _number(gpu.bandwidth_gbs), gpu.vendor + unified))
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(_HEADERS)]
    # Name and vendor read left-aligned; numbers right-aligned so digits line up.
    left = {0, 4}

    def line(cells: tuple[str, ...]) -> str:
        parts = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    out = [line(_HEADERS), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in rows)
    if footnote:
        out.append("* no bf16 on this GPU: fp16 figure")
    return "\n".join(out)
