"""Parity on real model files: each class the static analysis counts in a file of timm (PyTorch
Image Models) or torchvision equals what the package builds for it on the meta device, with its
defaults; torchvision's detection heads, which keep the modules passed to them, are explained. timm and
torchvision live beside the test environment (scripts/test.sh installs them into
``<venv>/timm-sidecar``); timm_runner.py analyses and builds in a child process (why: its
docstring). The analyser reads the files and the timm files they import; it never imports timm."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.parity

SIDECAR = pathlib.Path(sys.prefix) / "timm-sidecar"
RUNNER = pathlib.Path(__file__).with_name("timm_runner.py")
# Files whose classes were miscounted or not counted before, with how many classes each must count
# at least (so that the test cannot pass by counting nothing): to_2tuple is tuple(itertools.repeat),
# activations are chosen by `'silu' in dir(F)`, norm layers mapped through a set of classes and
# `nn.BatchNorm2d.__name__`, ConvNeXt's stage rates come from `torch.linspace(...).split(depths)`,
# Swin's output format is an enum; PiT's stages are a Sequential subclass with no constructor
# (counted without them before: 529,672 of 10,618,888); MLP-Mixer's init reads a weight's fans;
# MaxxVit is built from its config dataclass (LC106); ViT, BEiT, MetaFormer, Inception-v4.
FILES = {
    "models/vision_transformer.py": 1, "models/convnext.py": 1, "models/pit.py": 2, "models/mlp_mixer.py": 1,
    "models/beit.py": 1, "models/metaformer.py": 4, "models/inception_v4.py": 9, "models/efficientformer.py": 4,
    "models/twins.py": 2, "layers/activations.py": 11, "models/maxxvit.py": 1, "models/swin_transformer.py": 1,
}


def run_runner(files: list[str], package: str = "timm") -> list[dict]:
    if not (SIDECAR / "timm").is_dir():
        pytest.skip(f"timm is not installed in {SIDECAR} (scripts/test.sh installs it)")
    out = subprocess.run([sys.executable, str(RUNNER), str(SIDECAR), package, *files], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def test_static_counts_equal_timm_meta_counts() -> None:
    results = {r["file"]: r for r in run_runner(sorted(FILES))}
    assert set(results) == set(FILES)
    for rel, least in FILES.items():
        rows = results[rel]["counted"]
        assert len(rows) >= least, (rel, rows)
        for row in rows:
            name, static_total, static_trainable, *timm_counts = row
            assert len(timm_counts) == 2, (rel, row)  # built by timm
            assert (static_total, static_trainable) == tuple(timm_counts), (rel, name)


# timm's registered model functions (`deit_base_patch16_384()`), each counted as a model function of
# its file (`--function`, the hover on its `def`): the first N of each file.
# Each was miscounted before (the registry of pretrained configs was empty, since decorators were not
# applied: the 384 variants' image size, SAM2's headless default, CrossViT's 240 size), or reads an
# environment variable (ViT's TIMM_USE_NAFLEXVIT, taken as unset); RegNet's widths are computed in
# float32 tensors (not counted before).
ENTRYPOINTS = {"deit.py": 4, "cait.py": 2, "hieradet_sam2.py": 1, "crossvit.py": 1, "vision_transformer.py": 1,
               "resnet.py": 3, "regnet.py": 4}


def check_model_functions(files: dict[str, int], mode: str) -> None:
    """The first N model functions of each file are counted, each equal to the package's build."""
    results = {r["file"]: r for r in run_runner([f"{name}:{n}" for name, n in files.items()], mode)}
    assert set(results) == set(files)
    for rel, n in files.items():
        rows = results[rel]["counted"]
        assert len(rows) == n, (rel, results[rel]["unresolved"])
        for name, static_total, static_trainable, *built in rows:
            assert len(built) == 2, (rel, name, built)  # built by the package
            assert (static_total, static_trainable) == tuple(built), (rel, name)


def test_registered_model_functions_count_as_timm_builds_them() -> None:
    check_model_functions(ENTRYPOINTS, "timm-entrypoints")


# torchvision's model builders (`resnet50()`, `maxvit_t()`), each counted as a model function of its
# file, the first N of each file. None was counted before: each logs its API use with the instance's
# `__module__`; detection and segmentation models cut their backbone after its last returned layer
# (`del return_layers[name]`, ignored before: resnet's fc counted); quantizable models swap ReLUs
# through `_modules` by exact type; EfficientNet's configs run a dataclass's generated __init__
# through super(); MaxViT extends a ModuleList with `+=` at rates from numpy.linspace; RegNet computes its
# widths in float32 tensors (torch.log, torch.pow, torch.round: tensor_values.py).
TORCHVISION_ENTRYPOINTS = {"resnet.py": 2, "efficientnet.py": 1, "maxvit.py": 1, "segmentation/fcn.py": 1,
                           "detection/faster_rcnn.py": 1, "quantization/mobilenetv2.py": 1, "regnet.py": 15}


def test_torchvision_model_builders_count_as_torchvision_builds_them() -> None:
    check_model_functions(TORCHVISION_ENTRYPOINTS, "torchvision-entrypoints")


# torchvision's classes that keep a module passed to their constructor (counted 0 before, as if the
# modules were numbers), and the argument each must name.
HELD = {
    "models/detection/roi_heads.py": ("RoIHeads", "box_roi_pool"),
    "models/detection/rpn.py": ("RegionProposalNetwork", "anchor_generator"),
    "models/detection/ssd.py": ("SSDScoringHead", "module_list"),
    "models/optical_flow/raft.py": ("UpdateBlock", "motion_encoder"),
}


def test_torchvision_classes_that_keep_a_module_argument_are_explained_and_the_counted_ones_are_exact() -> None:
    results = {r["file"]: r for r in run_runner(sorted(HELD) + ["models/maxvit.py"], "torchvision")}
    for rel, (name, argument) in HELD.items():
        assert name not in {row[0] for row in results[rel]["counted"]}, rel
        assert f"is the constructor argument `{argument}" in results[rel]["unresolved"][name], results[rel]["unresolved"]
    rows = [row for r in results.values() for row in r["counted"]]
    built = [row for row in rows if len(row) == 5]
    assert len(built) >= 3  # CorrBlock, maxvit's WindowPartition and WindowDepartition
    assert all(tuple(row[1:3]) == tuple(row[3:5]) for row in built), built


# A training script on torchvision (read by default, as transformers, timm and peft are): its builders
# called by name, through the package, and through its registry (`get_model`, filled by each builder's
# `@register_model()`; the builders' `functools.wraps` wrappers named the same, so all but the first
# were refused as registered twice before), a head replaced, a backbone frozen.
TORCHVISION_SCRIPT = """import torch.nn as nn
import torchvision
from torchvision import models
from torchvision.models import resnet50


def main():
    model = resnet50(weights=None)
    model.fc = nn.Linear(model.fc.in_features, 10)
    vit = torchvision.models.vit_b_16()
    small = models.get_model("mobilenet_v3_large", weights=None, num_classes=7)
    arch = models.list_models(module=models)[0]
    first = models.__dict__[arch]()
    for p in small.features.parameters():
        p.requires_grad = False


if __name__ == "__main__":
    main()
"""

_BUILD_SCRIPT = """import json, sys
sys.path.insert(0, sys.argv[2])
from timm_runner import _import_timm
_import_timm(sys.argv[1])
import torch
frames = {}
def profile(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "main" and frame.f_code.co_filename == "script.py":
        frames.update(frame.f_locals)
namespace = {"__name__": "lsp_count_test"}
exec(compile(sys.argv[3], "script.py", "exec"), namespace)
sys.setprofile(profile)
with torch.device("meta"):
    namespace["main"]()
sys.setprofile(None)
print(json.dumps({f"{name} in main()": [sum(p.numel() for p in v.parameters()),
                                        sum(p.numel() for p in v.parameters() if p.requires_grad)]
                  for name, v in frames.items() if isinstance(v, torch.nn.Module)}))
"""


def test_a_script_s_torchvision_models_count_as_torchvision_builds_them(tmp_path) -> None:
    from lsp_count.core.analyze import AnalyzeOptions, analyze_text

    if not (SIDECAR / "torchvision").is_dir():
        pytest.skip(f"torchvision is not installed in {SIDECAR} (scripts/test.sh installs it)")
    built = subprocess.run([sys.executable, "-c", _BUILD_SCRIPT, str(SIDECAR), str(RUNNER.parent), TORCHVISION_SCRIPT],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    want = {name: tuple(v) for name, v in json.loads(built.stdout.strip().splitlines()[-1]).items()}
    assert set(want) == {"model in main()", "vit in main()", "small in main()", "first in main()"}
    script = tmp_path / "train.py"
    script.write_text(TORCHVISION_SCRIPT)
    report = analyze_text(TORCHVISION_SCRIPT, str(script), AnalyzeOptions(site_packages=(str(SIDECAR),)))
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want
    assert not [p for p in report.problems if p.severity != "info"]


def sweep() -> None:
    """Every file of timm's models/ and layers/, as the test does for FILES, then every model builder
    of torchvision's models/, as the test does for TORCHVISION_ENTRYPOINTS.
    Run: .venv/bin/python tests/parity/test_timm_parity.py (about two minutes)."""
    if not (SIDECAR / "timm").is_dir():
        print(f"timm is not installed in {SIDECAR}: run scripts/test.sh first")
        return
    out = subprocess.run([sys.executable, str(RUNNER), str(SIDECAR), "timm", "all"], capture_output=True, text=True)
    results = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    rows = [(r["file"], row) for r in results for row in r["counted"]]
    same = [x for x in rows if len(x[1]) == 5 and tuple(x[1][1:3]) == tuple(x[1][3:5])]
    differ = [x for x in rows if len(x[1]) == 5 and tuple(x[1][1:3]) != tuple(x[1][3:5])]
    unbuilt = [x for x in rows if len(x[1]) != 5]
    version = (SIDECAR / "timm" / "version.py").read_text().split("'")[1]
    print(f"timm {version}: {len(results)} files, {len(rows)} classes counted statically; {len(same)} equal timm's "
          f"meta-device count, {len(differ)} differ, {len(unbuilt)} could not be built with no arguments to compare")
    for rel, row in differ:
        print(f"  DIFFER {rel} {row[0]}: static {row[1]:,}, timm {row[3]:,}")
    for rel, row in unbuilt:
        print(f"  {rel} {row[0]}: {row[3]}")
    if out.returncode:
        print(out.stderr[-2000:])
    builders = subprocess.run([sys.executable, str(RUNNER), str(SIDECAR), "torchvision-entrypoints", "all"],
                              capture_output=True, text=True)
    results = [json.loads(line) for line in builders.stdout.splitlines() if line.startswith("{")]
    rows = [(r["file"], row) for r in results for row in r["counted"]]
    same = [x for x in rows if len(x[1]) == 5 and tuple(x[1][1:3]) == tuple(x[1][3:5])]
    print(f"torchvision: {sum(r['functions'] for r in results)} model builders, {len(rows)} counted statically; "
          f"{len(same)} equal torchvision's meta-device count")
    for rel, row in rows:
        if (rel, row) not in same:
            print(f"  DIFFER {rel} {row[0]}: static {row[1]:,}, torchvision {row[3]}")
    for r in results:
        for name, message in r["unresolved"].items():
            print(f"  {r['file']} {name}: {message[:160]}")
    if builders.returncode:
        print(builders.stderr[-2000:])


if __name__ == "__main__":
    sweep()
