"""What the parity tests of training scripts share (TRL's trainers, transformers' Trainer): a tiny
Llama, a script whose ``main()`` builds the trainers, and that script run by the installed
libraries on the CPU, each model its ``main()`` leaves counted by torch. A model id is a local
directory the runner saves the tiny model to (nothing is downloaded)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from lsp_count.core.analyze import analyze_text

TINY = ("LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=24, num_hidden_layers=2, num_attention_heads=2, "
        "num_key_value_heads=1)")

# Each module main() leaves, and `name.model` of an object that holds a module no other name holds
# (a trainer given a model id, or a model_init), counted by torch. The script's make_tokenizer()
# makes the tokenizer saved beside the tiny model.
RUNNER = '''import json, sys, warnings
warnings.filterwarnings("ignore")
import torch
from transformers import AutoModelForCausalLM, LlamaConfig
text, model_dir = sys.argv[1], sys.argv[2]
namespace = {"__name__": "lsp_count_test"}
exec(compile(text, "script.py", "exec"), namespace)
AutoModelForCausalLM.from_config(''' + TINY + ''').save_pretrained(model_dir)
if "make_tokenizer" in namespace:
    namespace["make_tokenizer"]().save_pretrained(model_dir)
frames = {}
def profile(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "main" and frame.f_code.co_filename == "script.py":
        frames.update(frame.f_locals)
sys.setprofile(profile)
namespace["main"]()
sys.setprofile(None)
modules = {name: v for name, v in frames.items() if isinstance(v, torch.nn.Module)}
held = {id(m) for v in modules.values() for m in v.modules()}
for name, v in frames.items():
    model = getattr(v, "model", None)
    if not isinstance(v, torch.nn.Module) and isinstance(model, torch.nn.Module) and \\
            not any(id(m) in held for m in model.modules()):
        modules[name + ".model"] = model
out = {}
for name, v in modules.items():
    params = list(v.parameters())
    if params:
        out[name + " in main()"] = [sum(p.numel() for p in params), sum(p.numel() for p in params if p.requires_grad)]
print(json.dumps(out))
'''


def script(header: str, body: str, out: str, model_dir: str) -> str:
    """A script of ``header``'s imports and helpers and a ``main()`` of ``body`` (OUT: the
    trainer's output directory; MODEL_DIR: the saved tiny model), run under ``__main__``."""
    return (header + f"OUT = {out!r}\nMODEL_DIR = {model_dir!r}\n\n\ndef main():\n" + textwrap.indent(body.strip(), "    ")
            + "\n\n\nif __name__ == \"__main__\":\n    main()\n")


def built_by_main(text: str, model_dir: str, tmp_path: Path) -> dict[str, tuple[int, int]]:
    """(total, trainable) of each model the script's main() leaves, as the installed libraries build it."""
    built = subprocess.run([sys.executable, "-c", RUNNER, text, model_dir], capture_output=True, text=True,
                           timeout=600, cwd=tmp_path, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin",
                                                           "HOME": str(tmp_path)})
    assert built.returncode == 0, built.stderr[-3000:]
    want = {name: tuple(v) for name, v in json.loads(built.stdout.strip().splitlines()[-1]).items()}
    assert want
    return want


def assert_counted_as_built(header: str, body: str, tmp_path: Path) -> None:
    """The script of ``header`` and a ``main()`` of ``body``: each model its main() leaves is counted
    by the analysis as torch counts the one the installed libraries build, with no warning."""
    model_dir = str(tmp_path / "tiny-llama")
    text = script(header, body, str(tmp_path / "out"), model_dir)
    want = built_by_main(text, model_dir, tmp_path)
    path = tmp_path / "train.py"
    path.write_text(text)
    report = analyze_text(text, str(path))
    assert {m.name: (m.tree.total, m.tree.trainable) for m in report.models} == want
    assert not [p for p in report.problems if p.severity != "info"]
