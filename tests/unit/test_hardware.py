"""The GPU catalog: every listed GPU findable, sane figures, spec parsing, the table."""

from __future__ import annotations

import dataclasses
import re

import pytest

from lsp_count.core.hardware import (
    GPU,
    GPUSelection,
    UnknownGPU,
    all_gpus,
    find_gpu,
    format_gpu_table,
    normalize_gpu_name,
    parse_gpu_spec,
)

GiB = 1 << 30

# Canonical name -> spellings a user or a runtime (torch.cuda.get_device_name,
# nvidia-smi, rocm-smi) produces for it. Each must resolve to that GPU.
SPELLINGS = {
    "H200": ["H200", "h200", "NVIDIA H200", "h200-sxm", "H200 141GB"],
    "H100-80GB-SXM": ["H100", "h100", "H100 SXM", "NVIDIA H100 80GB HBM3", "h100_80gb_sxm", "H100-80GB"],
    "H100-80GB-PCIe": ["H100 PCIe", "NVIDIA H100 PCIe", "h100-80gb-pcie"],
    "H100-NVL": ["H100 NVL", "NVIDIA H100 NVL", "h100nvl", "H100-94GB"],
    "A100-40GB": ["A100 40GB", "A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", "a100_40gb"],
    "A100-80GB": ["A100", "a100", "A100 80GB", "NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"],
    "A10G": ["A10G", "a10g", "NVIDIA A10G"],
    "A10": ["A10", "NVIDIA A10", "a10-24gb"],
    "L4": ["L4", "l4", "NVIDIA L4"],
    "L40S": ["L40S", "l40s", "NVIDIA L40S"],
    "L40": ["L40", "NVIDIA L40"],
    "A40": ["A40", "NVIDIA A40"],
    "T4": ["T4", "t4", "Tesla T4", "NVIDIA T4"],
    "V100-16GB": ["V100", "v100-16gb", "Tesla V100-SXM2-16GB"],
    "V100-32GB": ["V100 32GB", "Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB"],
    "B200": ["B200", "b200", "NVIDIA B200"],
    "H20": ["H20", "NVIDIA H20"],
    "MI300X": ["MI300X", "mi300x", "AMD Instinct MI300X", "mi300"],
    "MI250X": ["MI250X", "AMD Instinct MI250X", "mi250"],
    "RTX-5090": ["5090", "RTX 5090", "rtx5090", "NVIDIA GeForce RTX 5090"],
    "RTX-4090": [
        "4090", "rtx4090", "RTX 4090", "NVIDIA RTX 4090", "nvidia-geforce-rtx-4090",
        "NVIDIA GeForce RTX 4090", "GeForce RTX 4090",
    ],
    "RTX-4080": ["4080", "RTX 4080", "NVIDIA GeForce RTX 4080"],
    "RTX-3090": ["3090", "RTX 3090", "NVIDIA GeForce RTX 3090", "geforce rtx 3090"],
    "RTX-4060-Ti-16GB": ["RTX 4060 Ti 16GB", "4060ti", "rtx-4060-ti", "NVIDIA GeForce RTX 4060 Ti 16GB"],
    "RTX-A6000": ["A6000", "RTX A6000", "NVIDIA RTX A6000"],
    "RTX-6000-Ada": ["RTX 6000 Ada", "NVIDIA RTX 6000 Ada Generation", "6000 ada"],
    "M1-Max-64GB": ["M1 Max", "m1-max-64gb", "Apple M1 Max"],
    "M2-Ultra-192GB": ["M2 Ultra", "m2ultra", "M2-Ultra-192GB"],
    "M3-Max-128GB": ["M3 Max", "m3max", "Apple M3 Max"],
    "M4-Max-128GB": ["M4 Max", "m4-max-128gb", "Apple M4 Max 128GB"],
    "M4-Pro-48GB": ["M4 Pro", "Apple M4 Pro"],
}


def test_catalog_has_every_required_gpu_and_at_least_25():
    names = {g.name for g in all_gpus()}
    assert set(SPELLINGS) <= names
    assert len(all_gpus()) >= 25
    assert len(names) == len(all_gpus()), "canonical names must be unique"


@pytest.mark.parametrize(
    ("canonical", "spelling"),
    [(name, s) for name, spellings in SPELLINGS.items() for s in spellings],
)
def test_find_gpu_by_alias_spellings(canonical, spelling):
    assert find_gpu(spelling).name == canonical


def test_normalize_drops_case_and_punctuation():
    assert normalize_gpu_name("NVIDIA GeForce RTX-4090 (24 GB)") == "nvidiageforcertx409024gb"


def test_no_normalised_alias_names_two_gpus():
    owner: dict[str, str] = {}
    for gpu in all_gpus():
        for form in (gpu.name, *gpu.aliases):
            key = normalize_gpu_name(form)
            assert key, f"{gpu.name}: empty alias {form!r}"
            assert owner.setdefault(key, gpu.name) == gpu.name, f"{form!r} names {owner[key]} and {gpu.name}"


def test_every_name_and_alias_finds_its_own_gpu():
    for gpu in all_gpus():
        for form in (gpu.name, *gpu.aliases):
            assert find_gpu(form) is gpu, form


@pytest.mark.parametrize("gpu", all_gpus(), ids=lambda g: g.name)
def test_figures_are_sane(gpu: GPU):
    assert gpu.vendor in ("NVIDIA", "AMD", "Apple")
    # What the runtime reports is below the marketing capacity, but not far:
    # drivers reserve well under 10% on discrete GPUs.
    assert 0 < gpu.usable_bytes <= gpu.memory_bytes
    if not gpu.unified_memory:
        assert gpu.usable_bytes >= 0.9 * gpu.memory_bytes
    assert gpu.memory_bytes % GiB == 0, "marketing capacity is a whole number of GiB"
    assert 1 < gpu.bf16_tflops < 5000
    assert 100 <= gpu.bandwidth_gbs <= 10_000
    assert gpu.source.strip()
    assert gpu.unified_memory == (gpu.vendor == "Apple")


def test_known_runtime_figures():
    # Reported by torch.cuda.get_device_properties(0).total_memory.
    assert find_gpu("RTX-4090").usable_bytes == 25_393_692_672
    assert find_gpu("H100").usable_bytes == 85_031_714_816
    assert find_gpu("A100-80GB").usable_bytes == 85_051_572_224
    assert find_gpu("A100-40GB").usable_bytes == 42_505_273_344
    assert round(find_gpu("RTX-4090").usable_gib, 2) == 23.65
    assert round(find_gpu("H100").usable_gib, 2) == 79.19


def test_marketing_capacities():
    expect = {"H200": 141, "H100-NVL": 94, "H100-80GB-SXM": 80, "A100-40GB": 40, "T4": 16, "V100-32GB": 32,
              "MI300X": 192, "M2-Ultra-192GB": 192, "RTX-5090": 32, "L40S": 48}
    for name, gib in expect.items():
        assert find_gpu(name).memory_bytes == gib * GiB, name


def test_apple_usable_is_metal_default_working_set():
    for gpu in all_gpus():
        if gpu.vendor == "Apple":
            assert gpu.usable_bytes == gpu.memory_bytes * 3 // 4
            assert "recommendedMaxWorkingSetSize" in gpu.source
    assert find_gpu("M3 Max").usable_bytes == 96 * GiB


def test_gpus_without_bf16_are_marked():
    assert not find_gpu("T4").bf16_supported
    assert find_gpu("T4").bf16_tflops == 65
    assert "fp16" in find_gpu("T4").source
    assert find_gpu("H100").bf16_supported


def test_dense_not_sparse_tflops():
    # Datasheets headline 2:4-sparse numbers; the catalog holds dense ones.
    assert find_gpu("H100").bf16_tflops == pytest.approx(989.5)
    assert find_gpu("A100").bf16_tflops == 312
    assert find_gpu("L4").bf16_tflops == 121


def test_gpu_rejects_inconsistent_rows():
    base = find_gpu("L4")
    with pytest.raises(ValueError, match="usable_bytes"):
        dataclasses.replace(base, usable_bytes=base.memory_bytes + 1)
    with pytest.raises(ValueError, match="vendor"):
        dataclasses.replace(base, vendor="Intel")
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.usable_bytes = 1  # type: ignore[misc]


# --- unknown names ----------------------------------------------------------------


def test_typo_gets_suggestions():
    with pytest.raises(UnknownGPU) as info:
        find_gpu("RTX-4900")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.name == "RTX-4900"
    assert err.suggestions[0] == "RTX-4090"
    assert len(err.suggestions) <= 3
    assert set(err.suggestions) <= {g.name for g in all_gpus()}
    assert str(err) == (
        'unknown GPU "RTX-4900"; did you mean RTX-4090, RTX-4080, RTX-4060-Ti-16GB? '
        "('lsp-count gpus' lists them all)"
    )


@pytest.mark.parametrize(
    ("typo", "first"),
    [("H100-SMX", "H100-80GB-SXM"), ("mi350x", "MI300X"), ("Telsa T4", "T4"), ("RTX-A7000", "RTX-A6000")],
)
def test_typo_suggestion_ranks_nearest_first(typo, first):
    with pytest.raises(UnknownGPU) as info:
        find_gpu(typo)
    assert info.value.suggestions[0] == first


def test_letter_o_for_zero_still_suggests_the_gpu():
    with pytest.raises(UnknownGPU) as info:
        find_gpu("A1OO-80GB")
    assert "A100-80GB" in info.value.suggestions


@pytest.mark.parametrize("junk", ["", "   ", "---", "quadro k2200", "TPU v5e"])
def test_nonsense_is_unknown_without_silly_suggestions(junk):
    with pytest.raises(UnknownGPU) as info:
        find_gpu(junk)
    assert info.value.suggestions == ()
    assert "did you mean" not in str(info.value)


def test_ambiguous_fragment_is_not_guessed():
    # "6000" is in both RTX-A6000 and RTX-6000-Ada: picking one would be a guess.
    with pytest.raises(UnknownGPU) as info:
        find_gpu("6000")
    assert info.value.ambiguous
    assert set(info.value.suggestions) == {"RTX-A6000", "RTX-6000-Ada"}
    with pytest.raises(UnknownGPU) as info:
        find_gpu("m4")
    assert info.value.suggestions[:2] == ("M4-Max-128GB", "M4-Pro-48GB")


# --- specs ("8xH100") ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "count"),
    [
        ("RTX-4090", "RTX-4090", 1),
        ("8xH100-80GB", "H100-80GB-SXM", 8),
        ("8×H100", "H100-80GB-SXM", 8),
        ("2 x A100-80GB", "A100-80GB", 2),
        ("4*L4", "L4", 4),
        ("  16 X mi300x ", "MI300X", 16),
        ("1xRTX-4090", "RTX-4090", 1),
        ("4x4090", "RTX-4090", 4),
        ("MI300X", "MI300X", 1),  # the name's own X is not a multiplier
        ("2xMI250X", "MI250X", 2),
        ("4096xH100", "H100-80GB-SXM", 4096),
    ],
)
def test_parse_gpu_spec(text, name, count):
    sel = parse_gpu_spec(text)
    assert (sel.gpu.name, sel.count) == (name, count)
    assert sel.total_usable_bytes == sel.gpu.usable_bytes * count


def test_selection_totals_and_label():
    sel = parse_gpu_spec("8xH100")
    assert sel.total_usable_bytes == 8 * 85_031_714_816
    assert sel.label == "8×H100-80GB-SXM"
    assert parse_gpu_spec("L4").label == "L4"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0xH100", "between 1 and 4096, got 0"),
        ("-2xH100", "between 1 and 4096, got -2"),
        ("4097xH100", "between 1 and 4096, got 4097"),
        ("1.5xH100", "whole number"),
        ("2,5 x L4", "whole number"),
    ],
)
def test_bad_counts_are_clear_errors(text, message):
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        parse_gpu_spec(text)
    assert not isinstance(info.value, UnknownGPU)


def test_spec_with_unknown_name_raises_unknown_gpu():
    with pytest.raises(UnknownGPU) as info:
        parse_gpu_spec("8xRTX-4900")
    assert info.value.name == "RTX-4900"


@pytest.mark.parametrize("count", [0, -1, 4097, True, 2.0])
def test_selection_validates_count(count):
    with pytest.raises(ValueError):
        GPUSelection(find_gpu("L4"), count)


# --- the table ----------------------------------------------------------------------


def test_table_lists_every_gpu_with_usable_gib():
    table = format_gpu_table(all_gpus())
    lines = table.splitlines()
    assert lines[0].split() == ["GPU", "Usable", "GiB", "BF16", "TFLOP/s", "Bandwidth", "GB/s", "Vendor"]
    assert set(lines[1]) <= {"-", " "}
    rows = {line.split()[0]: line for line in lines[2:] if not line.startswith("*")}
    assert set(rows) == {g.name for g in all_gpus()}
    assert rows["RTX-4090"].split()[1:4] == ["23.6", "165.2", "1,008"]
    assert rows["H100-80GB-SXM"].split()[1:5] == ["79.2", "989.5", "3,350", "NVIDIA"]
    assert rows["M3-Max-128GB"].split()[1] == "96.0"
    assert rows["T4"].split()[2] == "65*"
    assert lines[-1].startswith("* no bf16")


def test_table_columns_line_up():
    lines = format_gpu_table(all_gpus()).splitlines()
    # Right-aligned numbers: every row's usable-GiB cell ends at the header's end.
    end = lines[0].index("Usable GiB") + len("Usable GiB")
    for line in lines[2:]:
        if line.startswith("*"):
            continue
        assert re.fullmatch(r"\d[\d,]*\.\d", line[end - 6 : end].strip()), line


def test_table_of_a_subset_has_no_footnote_when_not_needed():
    table = format_gpu_table([find_gpu("L4"), find_gpu("A10G")])
    assert len(table.splitlines()) == 4
    assert "*" not in table
    assert "22.5" in table  # L4: 23,034 MiB
