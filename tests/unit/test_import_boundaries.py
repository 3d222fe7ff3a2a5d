"""The design's import rules, checked in a fresh interpreter: the core (with the readers of the
formats and the Python analyser), the CLI and the gate import no pygls, no torch and no
transformers; the language server adds pygls and nothing heavy. torch and transformers are
test dependencies, installed here, so importing them by mistake would go unnoticed elsewhere."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pygls", "lsprotocol", "torch", "transformers", "peft", "numpy", "accelerate", "timm", "safetensors",
         "huggingface_hub")

_PROBE = """
import importlib, json, pkgutil, sys
import lsp_count
skip = {skip!r}
only = {only!r}
names = [m.name for m in pkgutil.walk_packages(lsp_count.__path__, "lsp_count.")
         if not any(part in m.name.split(".") for part in skip) and (not only or any(
             part in m.name.split(".") for part in only))]
for name in names:
    importlib.import_module(name)
print(json.dumps({{"imported": names, "loaded": sorted({{k.split(".")[0] for k in sys.modules}})}}))
"""


def _loaded_after_importing(skip: tuple[str, ...], only: tuple[str, ...] = ()) -> tuple[list[str], set[str]]:
    # The shims are source the analyser reads (they import torch's names), never imported.
    code = _PROBE.format(skip=("shims", "__main__") + skip, only=only)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    found = json.loads(done.stdout)
    return found["imported"], set(found["loaded"])


def test_the_core_the_cli_and_the_gate_import_nothing_heavy():
    imported, loaded = _loaded_after_importing(skip=("lsp",))
    # The probe did import them: the core, each format's reader, the analyser, the CLI and the gate.
    for name in ("lsp_count.core.memory", "lsp_count.formats.lora", "lsp_count.pymodel.interp", "lsp_count.cli",
                 "lsp_count.check"):
        assert name in imported
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_language_server_adds_pygls_and_nothing_else_heavy():
    imported, loaded = _loaded_after_importing(skip=(), only=("lsp",))
    assert "lsp_count.lsp.server" in imported
    assert {"pygls", "lsprotocol"} <= loaded
    assert not loaded & (set(HEAVY) - {"pygls", "lsprotocol"}), sorted(loaded & set(HEAVY))

