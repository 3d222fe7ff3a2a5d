"""Parity on real model files: each class the static analysis counts in a modeling file of the
installed transformers equals what transformers builds for it on the meta device, with the
default configs the analysis says it used (LC106). The analyser reads the file and the project
files it imports; only this test imports transformers."""

from __future__ import annotations

import importlib
import logging
import pathlib
import re
import warnings

import pytest

from lsp_count.core.analyze import analyze_text

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.parity

MODELS = pathlib.Path(transformers.__file__).parent / "models"
# Files whose classes were miscounted or not counted before: configs that a base makes
# dataclasses (__post_init__ sets head_dim and num_key_value_heads), layers that extend a torch
# layer (EsmcLayerNorm(nn.LayerNorm), SqueezeBertLayerNorm calling nn.LayerNorm.__init__),
# composite configs whose sub-config specs __init_subclass__ makes, an unannotated `config` (the
# imported config class), a config changed between two builds (LiltAttention), attribute_map
# (step3p7's num_local_experts), weight norm as a parametrization (hubert, vits). With how many
# classes each must count at least, so that the test cannot pass by counting nothing. (The ACT2FN
# dict subclass, whose PReLU has a parameter, is in tests/fixtures/pymodels/subclassing.py.)
FILES = {
    "llama/modeling_llama.py": 7, "mistral/modeling_mistral.py": 7, "esmc/modeling_esmc.py": 9,
    "dab_detr/modeling_dab_detr.py": 12, "step3p7/modeling_step3p7.py": 6, "chameleon/modeling_chameleon.py": 6,
    "bit/modeling_bit.py": 5, "sam/modeling_sam.py": 9, "lilt/modeling_lilt.py": 16,
    "squeezebert/modeling_squeezebert.py": 15,
    # weight_norm through torch.nn.utils.parametrizations (the positional convolution, WaveNet layers).
    "hubert/modeling_hubert.py": 15, "vits/modeling_vits.py": 16,
    # max() of a dict's values (AriaProjector's query size: refused before, as a dict_values).
    "aria/modeling_aria.py": 15,
    # PreTrainedModel's __init__ and post_init (the model classes: LlamaForCausalLM above too): the
    # code's own exceptions caught, type(self), its bases and source, named_children, and
    # tie_weights by dotted name (GPT-2's and BERT's heads, T5's shared embeddings).
    "gpt2/modeling_gpt2.py": 10, "bert/modeling_bert.py": 25, "t5/modeling_t5.py": 16,
    # A part built through the auto classes (`AutoModel.from_config(config.text_config)`): the auto
    # mapping followed as written, auto_class_update natively. A generic task head mixed into the
    # model's PreTrainedModel (`class ApertusForTokenClassification(GenericForTokenClassification,
    # ApertusPreTrainedModel)`): its super().__init__ reaches the next class of the instance's MRO.
    "llava/modeling_llava.py": 4, "blip_2/modeling_blip_2.py": 9, "apertus/modeling_apertus.py": 8,
    # A backbone through `load_backbone`: `from transformers import AutoBackbone`, a name the package
    # exports through `from .models import *` and then `from .auto import *`.
    "upernet/modeling_upernet.py": 2, "depth_anything/modeling_depth_anything.py": 8,
    # Tensor shapes and values followed further: SAM 2's stage ends (numpy.cumsum) and RoPE
    # (torch.meshgrid), Hiera's (cumsum of tensor values), PatchTST's (reductions), OWL-ViT's (-t);
    # D-FINE replaces its backbone's batch norms through `_modules`; Florence-2 imports torch only
    # under transformers' is_torch_available(), answered yes.
    "sam2/modeling_sam2.py": 13, "hiera/modeling_hiera.py": 10, "patchtst/modeling_patchtst.py": 19,
    "owlvit/modeling_owlvit.py": 11, "d_fine/modeling_d_fine.py": 15, "florence2/modeling_florence2.py": 9,
    # PaliGemma reads PreTrainedModel.dtype in its constructor: `next(p.dtype for p in self.parameters()
    # if p.is_floating_point())`, a generator taken up to its first item.
    "paligemma/modeling_paligemma.py": 4,
    # Zamba 2's tied weights given by pattern: expanded over named_parameters / named_buffers with
    # remove_duplicate=False, matched by re.compile'd patterns (D-FINE's detection model too).
    "zamba2/modeling_zamba2.py": 7,
    # numpy's functions of numbers: the pixel decoders' `int(np.log2(stride) - np.log2(self.common_stride))`.
    "mask2former/modeling_mask2former.py": 9, "oneformer/modeling_oneformer.py": 12,
    # Kernels loaded where `torch.cuda.is_available()`: counted as on a machine without a GPU.
    "mra/modeling_mra.py": 10, "yoso/modeling_yoso.py": 10, "rwkv/modeling_rwkv.py": 3,
    # Configs whose __init__ reads inspect.signature (Qwen2-VL's and PaddleOCR-VL's sub-configs).
    "qwen2_vl/modeling_qwen2_vl.py": 8, "paddleocr_vl/modeling_paddleocr_vl.py": 15,
}
_USED = re.compile(r"counted with `(\w+)\(\)` defaults for `(\w+)`")


def _config_module(package: str):
    """configuration_x beside modeling_x, else the directory's first configuration module
    (blip's modeling_blip_text uses configuration_blip)."""
    try:
        return importlib.import_module(package.replace(".modeling_", ".configuration_"))
    except ImportError:
        directory = package.rsplit(".", 1)[0]
        first = sorted((MODELS / directory.rsplit(".", 1)[1]).glob("configuration_*.py"))[0]
        return importlib.import_module(f"{directory}.{first.stem}")


def _build(module, config_module, name: str, note: str):
    """The class as the analysis built it: its configs' defaults; any other argument it needs
    did not change the count (``layer_idx``: 0 does; a ``config`` read only for sizes that make
    no parameters: the file's config does)."""
    kwargs = {arg: (getattr(module, cfg, None) or getattr(config_module, cfg))() for cfg, arg in _USED.findall(note)}
    for _ in range(4):
        try:
            with torch.device("meta"):
                return getattr(module, name)(**kwargs)
        except TypeError as exc:
            missing = re.findall(r"'(\w+)'", str(exc)) if "missing" in str(exc) else []
            if not missing:
                raise
            main_config = getattr(config_module, getattr(config_module, "__all__", [""])[0], None)
            kwargs.update({arg: main_config() if "config" in arg and main_config else 0 for arg in missing})
    raise AssertionError(f"{name} could not be built")


@pytest.mark.parametrize("rel", sorted(FILES))
def test_static_counts_equal_transformers_meta_counts(rel: str) -> None:
    path = MODELS / rel
    if not path.exists():
        pytest.skip(f"this transformers has no {rel}")
    report = analyze_text(path.read_text(encoding="utf-8"), str(path))
    assert len(report.models) >= FILES[rel], [p.message for p in report.problems if p.code == "LC101"]
    notes = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC106"}
    package = "transformers.models." + rel[:-3].replace("/", ".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            module = importlib.import_module(package)
            config_module = _config_module(package)
            for model in report.models:
                built = _build(module, config_module, model.name, notes.get(model.name, ""))
                params = list(built.parameters())
                assert (model.tree.total, model.tree.trainable) == (
                    sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)), model.name
        finally:
            logging.disable(logging.NOTSET)


def sweep() -> None:
    """Every modeling file of the installed transformers, as the test does for FILES: how many
    classes the analysis counts, and how many of them transformers builds to the same count.
    Run: .venv/bin/python tests/parity/test_transformers_modeling_parity.py (a few minutes)."""
    counted = same = 0
    differ: list[str] = []
    unbuilt: list[str] = []
    for path in sorted(MODELS.glob("*/modeling_*.py")):
        rel = f"{path.parent.name}/{path.name}"
        report = analyze_text(path.read_text(encoding="utf-8"), str(path))
        counted += len(report.models)
        notes = {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC106"}
        package = "transformers.models." + rel[:-3].replace("/", ".")
        try:
            module = importlib.import_module(package)
            config_module = _config_module(package)
        except Exception as exc:  # noqa: BLE001 - a module this environment cannot import
            unbuilt.extend(f"{rel} {m.name}: import: {exc}" for m in report.models)
            continue
        for model in report.models:
            try:
                params = list(_build(module, config_module, model.name, notes.get(model.name, "")).parameters())
            except Exception as exc:  # noqa: BLE001 - e.g. an abstract class, an argument the sweep cannot guess
                unbuilt.append(f"{rel} {model.name}: {type(exc).__name__}: {str(exc)[:100]}")
                continue
            if (model.tree.total, model.tree.trainable) == (
                    sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)):
                same += 1
            else:
                differ.append(f"{rel} {model.name}: static {model.tree.total:,}, transformers "
                              f"{sum(p.numel() for p in params):,}")
    print(f"transformers {transformers.__version__}: {counted} classes counted statically; {same} equal transformers' "
          f"meta-device count, {len(differ)} differ, {len(unbuilt)} could not be built to compare")
    for line in differ + unbuilt:
        print("  " + line)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    sweep()
