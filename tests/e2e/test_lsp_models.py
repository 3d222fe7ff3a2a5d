"""The language server on Python model files, a training YAML and a safetensors index, end to end.

Two client capability sets: VS Code-like (UTF-16, pull diagnostics, inlay hints)
and a UTF-8 push client. Documents live in a workspace without a budget file,
so lens titles carry no fit.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import shutil
import struct

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from test_lsp_server import (SERVER, change_doc, open_doc, position_of, utf8_push, vscode_like, wait_for_diagnostics,
                             wait_for_log)

ROOT = pathlib.Path(__file__).resolve().parents[2]
NANOGPT = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"
AXOLOTL = ROOT / "examples" / "axolotl-qlora-llama3-8b.yaml"

BACKBONE = '''import torch.nn as nn
from transformers import AutoModel


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = AutoModel.from_pretrained("meta-llama/Meta-Llama-3-8B")
        self.other = AutoModel.from_pretrained("nobody/not-a-model")
        self.head = nn.Linear(4096, 2)
'''

# Model functions (timm's style): counted when their `def` line is hovered, after the registry fills.
SCRIPT = '''import torch
import torch.nn as nn

hidden = 64
model = nn.Sequential(nn.Linear(10, hidden), nn.ReLU(), nn.Linear(hidden, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
'''

# A training script: main() builds the model, called from the `__main__` block.
MAIN_SCRIPT = '''import torch
import torch.nn as nn


def main():
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(100_000):
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
'''

FACTORIES = '''import torch.nn as nn

REGISTRY = {}


def register(fn):
    REGISTRY[fn.__name__] = dict(width=32)
    return fn


class Net(nn.Module):
    def __init__(self, width=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])


@register
def net_small(**kwargs):
    return Net(depth=3, **REGISTRY["net_small"], **kwargs)


def net_from_elsewhere():
    from somewhere_else import Backbone
    return Backbone()


def linear(width):
    return nn.Linear(width, width)
'''

# Non-ASCII before a layer constructor on its line: hint columns must follow the client's encoding.
UNICODE_PY = '''import torch.nn as nn


class Größe(nn.Module):  # ünï 模型
    def __init__(self):
        super().__init__()
        self.größe = nn.Linear(64, 64)
        self.模型 = nn.Linear(64, 32, bias=False)
'''

# A tiny llama: architectural count 115,008; the shards also hold two rotary inv_freq buffers (+16 values).
TINY_LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
              "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 4, "vocab_size": 256, "tie_word_embeddings": False,
              "torch_dtype": "bfloat16"}


def tiny_llama_tensors() -> dict[str, list[int]]:
    out = {"model.embed_tokens.weight": [256, 64], "model.norm.weight": [64], "lm_head.weight": [256, 64]}
    for i in range(2):
        p = f"model.layers.{i}."
        out.update({p + "self_attn.q_proj.weight": [64, 64], p + "self_attn.k_proj.weight": [64, 64],
                    p + "self_attn.v_proj.weight": [64, 64], p + "self_attn.o_proj.weight": [64, 64],
                    p + "mlp.gate_proj.weight": [128, 64], p + "mlp.up_proj.weight": [128, 64],
                    p + "mlp.down_proj.weight": [64, 128], p + "input_layernorm.weight": [64],
                    p + "post_attention_layernorm.weight": [64], p + "self_attn.rotary_emb.inv_freq": [8]})
    return out


def write_shard(path: pathlib.Path, tensors: dict[str, list[int]]) -> int:
    """A real safetensors file (bf16 zeros); returns its data bytes."""
    header, offset = {}, 0
    for name, shape in tensors.items():
        size = 2
        for d in shape:
            size *= d
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(offset))
    return offset


@pytest.fixture(scope="module")
def models_ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    (root / ".git").mkdir()  # no budget file up to here: lenses show params and weights only
    shutil.copy(NANOGPT, root / "nanogpt.py")
    shutil.copy(NANOGPT.with_name("recurrent.py"), root / "recurrent.py")
    shutil.copy(AXOLOTL, root / "qlora.yml")
    (root / "backbone.py").write_text(BACKBONE)
    (root / "unicode_model.py").write_text(UNICODE_PY, encoding="utf-8")
    (root / "notes.py").write_text("import os\nprint(os.getcwd())\n")
    (root / "factories.py").write_text(FACTORIES)
    (root / "train.py").write_text(SCRIPT)
    (root / "train_main.py").write_text(MAIN_SCRIPT)
    budgeted = root / "budgeted"  # its own budget: GPT (124M) is over it, its blocks are not
    budgeted.mkdir()
    (budgeted / "pyproject.toml").write_text('[tool.lsp-count]\nmax-params = "50M"\n')
    shutil.copy(NANOGPT, budgeted / "nanogpt.py")
    ckpt = root / "tiny-llama"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(json.dumps(TINY_LLAMA, indent=2))
    tensors = tiny_llama_tensors()
    names = sorted(tensors)
    half = len(names) // 2
    shards = {"model-00001-of-00002.safetensors": names[:half], "model-00002-of-00002.safetensors": names[half:]}
    total = sum(write_shard(ckpt / shard, {n: tensors[n] for n in keys}) for shard, keys in shards.items())
    weight_map = {n: shard for shard, keys in shards.items() for n in keys}
    (ckpt / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def pull_client(lsp_client: LanguageClient, models_ws):
    for method in (types.WORKSPACE_INLAY_HINT_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH):
        lsp_client.feature(method)(lambda *_args: None)
    lsp_client.set_configuration({"gpu": "", "mode": "", "dtype": "", "inlayHints": {"enabled": True},
                                  "codeLens": {"enabled": True}}, section="lsp-count")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=vscode_like(), root_uri=models_ws.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=models_ws.as_uri(), name="models")]))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def push_client(lsp_client: LanguageClient, models_ws):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=utf8_push(), root_uri=models_ws.as_uri()))
    yield
    await lsp_client.shutdown_session()


def doc(client: LanguageClient, path: pathlib.Path, language: str) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    open_doc(client, uri, text, language=language)
    return uri, text


async def hover_at(client: LanguageClient, uri: str, position: types.Position) -> str | None:
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))
    if hover is None:
        return None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def all_hints(client: LanguageClient, uri: str, text: str) -> list[types.InlayHint]:
    end = types.Position(line=text.count("\n") + 1, character=0)
    return list(await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0), end=end))) or [])


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    return list(await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri))) or [])


# --- Python model files ------------------------------------------------------------------------

async def test_the_python_analyser_warms_up_at_start_and_the_log_says_so(pull_client: LanguageClient):
    """The server analyses a built-in model once it is initialized, so the first Python file opened
    does not wait for the analyser's import; its count is torch's (tests/parity/test_pymodel_parity.py)."""
    message = await wait_for_log(pull_client, "Python analyser ready")
    assert message.startswith("lsp-count: Python analyser ready in ") and "(its built-in model: 7,536 parameters)" in message
    assert not [m for m in pull_client.log_messages if "warm-up" in m.message]


async def test_python_hover_on_the_top_level_class_has_its_exact_count(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "nanogpt.py", "python")
    value = await hover_at(pull_client, uri, position_of(text, "class GPT(", 7))
    assert value is not None
    assert "### GPT · 124M parameters" in value and "**124,475,904** parameters" in value
    assert "static analysis" in value
    assert "| · wte | 38.6M | 38,633,472 | 31.0% |" in value
    # each class answers for itself; a line that is no class's gets no summary
    block = await hover_at(pull_client, uri, position_of(text, "class Block(", 7))
    assert block is not None and "**7,087,872** parameters" in block
    assert await hover_at(pull_client, uri, types.Position(line=0, character=3)) is None


async def test_python_inlay_hints_follow_the_layer_constructors(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "nanogpt.py", "python")
    hints = await all_hints(pull_client, uri, text)
    labels = [h.label for h in hints]
    # 15 constructor calls build modules with parameters, ln_2 and ln_f (copies of ln_1's build) included.
    assert len(hints) == 15
    assert labels.count("▸ 1.54K") == 3
    # after the call's closing parenthesis: `self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)`
    line = text.count("\n", 0, text.index("nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)"))
    assert hints[0].position == types.Position(line=line, character=len(text.splitlines()[line]))
    assert hints[0].label == "▸ 1.77M"
    assert "▸ 38.6M" in labels and "▸ 85.1M" in labels and "▸ 124M" in labels


async def test_python_a_code_lens_per_counted_class(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "nanogpt.py", "python")
    found = sorted(await lenses(pull_client, uri), key=lambda lens: lens.range.start.line)
    assert [lens.range.start.line for lens in found] == [
        text.count("\n", 0, text.index(f"class {name}(")) for name in ("CausalSelfAttention", "MLP", "Block", "GPT")]
    assert found[-1].command is not None
    assert found[-1].command.title == "124M params (124,475,904) · 0.23 GiB bf16"
    assert found[1].command.title.startswith("4.72M params (4,722,432) · ")


async def test_python_edits_recount_what_they_change_and_move_the_rest(pull_client: LanguageClient, models_ws):
    # The server keeps what each analysis of the document found: after an edit in MLP and two
    # lines added at the top, the lenses are those of a fresh look at the new text.
    uri, text = doc(pull_client, models_ws / "nanogpt.py", "python")
    before = {lens.range.start.line: lens.command.title for lens in await lenses(pull_client, uri) if lens.command}
    edited = "# two lines\n\n" + text.replace("4 * config.n_embd", "2 * config.n_embd")
    change_doc(pull_client, uri, edited, 2)
    after = {lens.range.start.line: lens.command.title for lens in await lenses(pull_client, uri) if lens.command}
    attn, mlp = (text.count("\n", 0, text.index(f"class {name}(")) for name in ("CausalSelfAttention", "MLP"))
    assert after[attn + 2] == before[attn]  # moved, count unchanged
    assert after[mlp + 2].startswith("2.36M params (2,361,600) · ")  # c_fc and c_proj halved
    assert after[text.count("\n", 0, text.index("class GPT(")) + 2].startswith("96.1M params (96,145,920)")  # 12 blocks × 2,360,832 fewer


async def test_python_reads_the_installed_packages_its_settings_name_from_the_projects_venv(
        pull_client: LanguageClient, models_ws):
    # A project with its own .venv holding the installed package `towerlib`: read where the
    # settings name it (the default, transformers, timm, peft and torchvision, does not), found without a path.
    project = models_ws / "venv_project"
    (project / ".git").mkdir(parents=True)
    (project / ".venv").mkdir()
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    package = project / ".venv" / "lib" / "python3.11" / "site-packages" / "towerlib"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import torch.nn as nn\n\n\nclass Block(nn.Module):\n"
                                         "    def __init__(self, dim=8):\n        super().__init__()\n"
                                         "        self.fc = nn.Linear(dim, dim)\n")
    model = project / "tower.py"
    model.write_text("import torch.nn as nn\nfrom towerlib import Block\n\n\nclass Tower(nn.Module):\n"
                     "    def __init__(self):\n        super().__init__()\n"
                     "        self.blocks = nn.ModuleList([Block(16) for _ in range(3)])\n")
    uri, _ = doc(pull_client, model, "python")
    base = {"gpu": "", "mode": "", "dtype": "", "inlayHints": {"enabled": True}, "codeLens": {"enabled": True}}

    async def titles_once(settings: dict, want: list[str]) -> list[str]:
        pull_client.set_configuration({**base, **settings}, section="lsp-count")
        pull_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        got: list[str] = []
        for _ in range(300):
            got = [lens.command.title.split(" · ")[0] for lens in await lenses(pull_client, uri) if lens.command]
            if got == want:
                break
            await asyncio.sleep(0.02)
        return got

    try:
        assert await titles_once({"readPackages": ["towerlib"]}, ["816 params (816)"]) == ["816 params (816)"]
        assert await titles_once({}, []) == []  # the default reads transformers, timm, peft and torchvision only
        assert await titles_once({"readPackages": ["towerlib"], "sitePackages": [str(models_ws / "nowhere")]}, []) == []
    finally:
        pull_client.set_configuration(base, section="lsp-count")
        pull_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def test_python_lenses_follow_a_saved_or_changed_project_file(pull_client: LanguageClient, models_ws):
    # The document's text does not change; the project file it imports does (saved in the editor,
    # then changed on disk by another tool): its lenses must follow.
    layers = models_ws / "project" / "layers.py"
    layers.parent.mkdir()
    layers.write_text("WIDTH = 8\n")
    model = layers.with_name("uses_layers.py")
    model.write_text("import torch.nn as nn\nfrom layers import WIDTH\n\n\nclass UsesLayers(nn.Module):\n"
                     "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(WIDTH, WIDTH)\n")
    uri, _ = doc(pull_client, model, "python")

    async def titles() -> list[str]:
        return [lens.command.title.split(" · ")[0] for lens in await lenses(pull_client, uri) if lens.command]

    assert await titles() == ["72 params (72)"]
    layers_uri, layers_text = doc(pull_client, layers, "python")
    layers.write_text("WIDTH = 16\n")
    change_doc(pull_client, layers_uri, "WIDTH = 16\n", 2)
    pull_client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=layers_uri)))
    assert await titles() == ["272 params (272)"]
    layers.write_text("WIDTH = 4  # changed by another tool\n")
    pull_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=layers_uri, type=types.FileChangeType.Changed)]))
    assert await titles() == ["20 params (20)"]
    # Events a client may send for what is not a project file: nothing happens, nothing fails.
    await wait_for_log(pull_client, "Python analyser ready")  # the start-up's one log line is in
    logged = len(pull_client.log_messages) + len(pull_client.messages)
    pull_client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri="untitled:Untitled-1.py", type=types.FileChangeType.Created),
        types.FileEvent(uri=(models_ws / "gone.py").as_uri(), type=types.FileChangeType.Deleted),
        types.FileEvent(uri="file:///%00/bad.py", type=types.FileChangeType.Changed)]))
    pull_client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri="untitled:Untitled-2.py")))
    assert await titles() == ["20 params (20)"]
    assert (pull_client.log_messages + pull_client.messages)[logged:] == []


async def test_python_results_are_stored_when_a_document_closes_and_read_when_it_opens(
        pull_client: LanguageClient, models_ws):
    """memo_store.py: the server stores a document's per-class results when it is closed (on a worker
    thread), and a document opened again starts from them; what the client sees is the same."""
    from lsp_count.pymodel.tree_cache import cache_dir

    memos = cache_dir() / "memos"
    path = models_ws / "stored_gpt.py"
    shutil.copy(NANOGPT, path)
    before = set(memos.glob("*.memo")) if memos.is_dir() else set()
    uri, _ = doc(pull_client, path, "python")
    first = sorted((lens.range.start.line, lens.command.title) for lens in await lenses(pull_client, uri))
    assert any("124" in title for _, title in first)
    pull_client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    for _ in range(100):
        if memos.is_dir() and set(memos.glob("*.memo")) - before:
            break
        await asyncio.sleep(0.05)
    assert set(memos.glob("*.memo")) - before
    uri, _ = doc(pull_client, path, "python")
    again = sorted((lens.range.start.line, lens.command.title) for lens in await lenses(pull_client, uri))
    assert again == first


async def test_python_budget_findings_follow_edits_and_moves(pull_client: LanguageClient, models_ws):
    # Findings of classes an edit did not reach are kept from the last analysis; they must still
    # sit on their class after lines are added above it, and follow a count that changes.
    async def over_budget(uri: str) -> list[tuple[int, str]]:
        report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        return [(d.range.start.line, d.message.split(" is over")[0]) for d in report.items if d.code == "LC202"]

    uri, text = doc(pull_client, models_ws / "budgeted" / "nanogpt.py", "python")
    ((line, message),) = await over_budget(uri)
    assert message == "124M parameters (124,475,904)"
    assert text.index("class GPT(") < sum(len(row) + 1 for row in text.split("\n")[:line])  # in GPT's body
    change_doc(pull_client, uri, text.replace("4 * config.n_embd", "2 * config.n_embd"), 2)
    assert await over_budget(uri) == [(line, "96.1M parameters (96,145,920)")]
    change_doc(pull_client, uri, "# moved\n\n" + text.replace("4 * config.n_embd", "2 * config.n_embd"), 3)
    assert await over_budget(uri) == [(line + 2, "96.1M parameters (96,145,920)")]
    change_doc(pull_client, uri, "# moved\n\n" + text.replace("n_layer: int = 12", "n_layer: int = 1"), 4)
    assert await over_budget(uri) == []


ARGS_SCRIPT = """import argparse

import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=8)
    args = parser.parse_args()
    model = nn.Linear(args.width, args.width)


if __name__ == "__main__":
    main()
"""


async def test_python_a_script_is_counted_with_the_command_line_its_project_gives(pull_client: LanguageClient,
                                                                                   models_ws):
    # `[tool.lsp-count.script-args]` of the project's pyproject.toml: the script's argparse reads it.
    project = models_ws / "scripted"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.lsp-count.script-args]\n"train_*.py" = "--width 32"\n')
    (project / "train_args.py").write_text(ARGS_SCRIPT)
    (project / "other.py").write_text(ARGS_SCRIPT)
    for name, title in (("train_args.py", "1.06K params (1,056)"), ("other.py", "72 params (72)")):
        uri, _ = doc(pull_client, project / name, "python")
        assert [lens.command.title.split(" · ")[0] for lens in await lenses(pull_client, uri) if lens.command] == [title]


async def test_python_from_pretrained_hover_resolves_offline_or_says_why(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "backbone.py", "python")
    found = await hover_at(pull_client, uri, position_of(text, '"meta-llama/', 3))
    assert found is not None and "8,030,261,248" in found and "meta-llama/Meta-Llama-3-8B" in found
    missing = await hover_at(pull_client, uri, position_of(text, '"nobody/', 3))
    assert missing is not None and "not counted" in missing and "not found offline" in missing


async def test_python_hover_on_a_model_without_linear_layers_says_lora_does_not_apply(
        pull_client: LanguageClient, models_ws):
    # The summary lists every workload; LoRA cannot adapt a conv-only model (the hover failed before).
    uri, text = doc(pull_client, models_ws / "recurrent.py", "python")
    value = await hover_at(pull_client, uri, position_of(text, "class ConvZoo(", 7))
    assert value is not None and "### ConvZoo" in value
    assert "| lora | n/a: the model has no linear layers for LoRA to adapt |" in value
    assert "| inference |" in value


async def test_python_hover_on_a_model_function_counts_what_it_builds(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "factories.py", "python")
    # net_small() builds Net(width=32, depth=3) through the registry its decorator filled: 3 × (32·32 + 32).
    value = await hover_at(pull_client, uri, position_of(text, "def net_small", 6))
    assert value is not None and "### net_small() · 3.17K parameters" in value
    assert "**3,168** parameters" in value and "| inference |" in value
    # Not a lens: a file may register hundreds (counted on hover only); the class keeps its own.
    assert [lens.command.title.split(" ")[0] for lens in await lenses(pull_client, uri)] == ["144"]
    missing = await hover_at(pull_client, uri, position_of(text, "def net_from_elsewhere", 6))
    assert missing is not None and missing.startswith("**`net_from_elsewhere()`** — not counted:")
    assert "somewhere_else" in missing
    # A helper that needs arguments is no model function: no hover, as on any other line.
    assert await hover_at(pull_client, uri, position_of(text, "def linear", 6)) is None
    assert await hover_at(pull_client, uri, position_of(text, "def register", 6)) is None


@pytest.mark.parametrize(("name", "line", "title"), [("train.py", 4, "model"), ("train_main.py", 5, "model in main()")])
async def test_python_a_script_s_model_gets_a_lens_and_a_hover(pull_client: LanguageClient, models_ws, name, line,
                                                                title):
    # A script with no class: `model = nn.Sequential(...)` is its model, named by the variable (in
    # main(), called from the `__main__` block: `model in main()`); `criterion` (no parameters) and
    # `optimizer` (no module) are not.
    uri, text = doc(pull_client, models_ws / name, "python")
    found = await lenses(pull_client, uri)
    assert [(lens.range.start.line, lens.command.title.split(" · ")[0]) for lens in found] == [
        (line, "834 params (834)")]
    value = await hover_at(pull_client, uri, position_of(text, "model = ", 2))
    assert value is not None and f"### {title} · 834 parameters" in value and "**834** parameters" in value
    assert [h.label for h in await all_hints(pull_client, uri, text)] == ["▸ 704", "▸ 130", "▸ 834"]


async def test_python_a_hydra_script_s_model_gets_a_lens_a_hover_and_a_note(pull_client: LanguageClient, models_ws):
    # lightning-hydra-template's layout: `@hydra.main` composes configs/train.yaml, train(cfg)
    # instantiates cfg.model (a LightningModule holding SimpleDenseNet): `model in train()`.
    project = models_ws / "hydra_project"
    shutil.copytree(NANOGPT.parents[1] / "hydra_project", project)
    uri, text = doc(pull_client, project / "src" / "train.py", "python")
    found = await lenses(pull_client, uri)
    assert [(lens.range.start.line, lens.command.title.split(" · ")[0]) for lens in found] == [
        (21, "68.0K params (67,978)")]
    value = await hover_at(pull_client, uri, position_of(text, "model: LightningModule", 2))
    assert value is not None and "### model in train() · 68.0K parameters" in value and "**67,978** parameters" in value
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    notes = [d.message for d in report.items if d.code == "LC106"]
    assert notes and notes[0].startswith("`cfg` is ../configs/train.yaml composed with ../configs/data/mnist.yaml")
    # the model's config file itself: counted in train.yaml with `model=mnist`, its lens on `_target_`
    uri, text = doc(pull_client, project / "configs" / "model" / "mnist.yaml", "yaml")
    assert [(lens.range.start.line, lens.command.title.split(" · ")[0]) for lens in await lenses(pull_client, uri)] == [
        (0, "68.0K params")]
    value = await hover_at(pull_client, uri, types.Position(line=0, character=3))
    assert value is not None and "MNISTLitModule" in value and "**67,978** parameters" in value


async def test_python_file_without_a_model_gets_nothing(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "notes.py", "python")
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert list(report.items) == []
    assert await all_hints(pull_client, uri, text) == []
    assert await lenses(pull_client, uri) == []
    assert await hover_at(pull_client, uri, types.Position(line=1, character=2)) is None


async def check_unicode_model(client: LanguageClient, models_ws, encoding: str) -> None:
    uri, text = doc(client, models_ws / "unicode_model.py", "python")
    hints = await all_hints(client, uri, text)
    assert [h.label for h in hints] == ["▸ 4.16K", "▸ 2.05K"]
    assert hints[0].position == position_of(text, "nn.Linear(64, 64)", len("nn.Linear(64, 64)"), encoding)
    assert hints[1].position == position_of(text, "nn.Linear(64, 32, bias=False)",
                                            len("nn.Linear(64, 32, bias=False)"), encoding)
    value = await hover_at(client, uri, position_of(text, "Größe(nn", 2, encoding))
    assert value is not None and "**6,208** parameters" in value


async def test_python_hints_after_non_ascii_in_utf16(pull_client: LanguageClient, models_ws):
    await check_unicode_model(pull_client, models_ws, "utf-16")


async def test_python_hints_after_non_ascii_in_utf8_and_diagnostics_pushed(push_client: LanguageClient, models_ws):
    await check_unicode_model(push_client, models_ws, "utf-8")
    uri = (models_ws / "unicode_model.py").as_uri()
    # a clean model file: an empty list is pushed (nothing to say), never a "not a config" complaint
    assert list(await wait_for_diagnostics(push_client, uri, lambda items: True)) == []
    backbone, text = doc(push_client, models_ws / "backbone.py", "python")
    items = await wait_for_diagnostics(push_client, backbone, lambda items: len(items) > 0)
    assert any("from_pretrained" in d.message for d in items), [d.message for d in items]
    found = await hover_at(push_client, backbone, position_of(text, '"meta-llama/', 3, "utf-8"))
    assert found is not None and "8,030,261,248" in found


# --- a training YAML ---------------------------------------------------------------------------

async def test_yaml_lora_rank_hover_and_lens_show_the_trainable_count(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "qlora.yml", "yaml")
    value = await hover_at(pull_client, uri, position_of(text, "lora_r:", 2))
    assert value is not None
    assert "**`lora_r`** = `32`" in value
    assert "83,886,080" in value
    # a rank of 33 adds one rank's worth: 83,886,080 / 32 = 2,621,440
    assert "| +1 → `33` | +2.62M → 86.5M trainable |" in value
    found = await lenses(pull_client, uri)
    assert len(found) == 1 and found[0].command is not None
    assert "83.9M trainable" in found[0].command.title and found[0].command.title.startswith("8.11B params")
    hints = await all_hints(pull_client, uri, text)
    # The base model's keys live in the bundled catalog, not in this file: no hint lands on a stranger's line.
    assert [(h.position.line, h.label) for h in hints] == [(text.count("\n", 0, text.index("lora_r:")),
                                                            "▸ 83.9M trainable")]


# --- model.safetensors.index.json --------------------------------------------------------------

async def test_safetensors_index_shows_the_on_disk_count(pull_client: LanguageClient, models_ws):
    uri, text = doc(pull_client, models_ws / "tiny-llama" / "model.safetensors.index.json", "json")
    report = await pull_client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    messages = [d.message for d in report.items]
    assert not any(d.code == "LC002" for d in report.items), messages
    assert all(d.severity == types.DiagnosticSeverity.Information for d in report.items), messages
    assert any("on disk: 115,024 values in 23 tensors" in m for m in messages), messages
    assert any("not a parameter count" in m for m in messages), messages
    assert any("differs from the on-disk count 115,024 by +16" in m for m in messages), messages
    value = await hover_at(pull_client, uri, position_of(text, '"total_size"', 2))
    assert value is not None and "### On disk · model.safetensors.index.json" in value
    assert "metadata.total_size is" in value and "**115,008** parameters" in value
    found = await lenses(pull_client, uri)
    assert len(found) == 1 and found[0].command.title.startswith("115K params")
    # the config's keys are in config.json: the index gets no hints placed by them
    assert await all_hints(pull_client, uri, text) == []


async def test_an_image_model_s_memory_is_at_its_tokens_per_image(pull_client: LanguageClient, models_ws):
    # ViT-B/16 at 224: 196 patches and a class token, not the 4,096 tokens a text model gets by default.
    path = models_ws / "vit" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text('{\n  "model_type": "vit",\n  "architectures": ["ViTForImageClassification"]\n}\n')
    uri, text = doc(pull_client, path, "json")
    value = await hover_at(pull_client, uri, position_of(text, '"model_type"', 2))
    assert value is not None and "**Memory — inference, bf16, context 197 × batch 1" in value, value


async def test_dual_encoders_and_convnets_are_estimated_at_their_own_sizes(pull_client: LanguageClient, models_ws):
    # CLIP's text tower at its 77-row table (its vision tower at one image's 50 tokens); a ResNet at 224 × 224 images.
    for name, config, context in (("clip", '"clip",\n  "architectures": ["CLIPModel"]', 77),
                                  ("resnet", '"resnet",\n  "architectures": ["ResNetForImageClassification"]', 224)):
        path = models_ws / name / "config.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text('{\n  "model_type": ' + config + '\n}\n')
        uri, text = doc(pull_client, path, "json")
        value = await hover_at(pull_client, uri, position_of(text, '"model_type"', 2))
        assert value is not None and f"**Memory — inference, bf16, context {context} × batch 1" in value, value


async def test_python_a_trl_qlora_script_s_model_is_shown_as_its_fine_tune(pull_client: LanguageClient, models_ws):
    # examples/train_qlora_trl.py: a 4-bit Llama-3-8B with peft's LoRA handed to TRL's SFTTrainer.
    # The lens and hover name `model in main()` (the trainer's PeftModel around it is not a second
    # model), and its memory is the QLoRA step the script's trainer runs.
    script = models_ws / "train_qlora_trl.py"
    shutil.copy(pathlib.Path(__file__).resolve().parents[2] / "examples" / "train_qlora_trl.py", script)
    uri, text = doc(pull_client, script, "python")
    found = await lenses(pull_client, uri)
    assert [lens.command.title.split(" · ")[0] for lens in found] == ["8.07B params (8,072,204,288)"]
    value = await hover_at(pull_client, uri, position_of(text, "model = prepare_model", 2))
    assert value is not None and "### model in main() · 8.07B parameters" in value
    assert "41,943,040" in value and "**Memory — qlora, nf4-dq, context 1,024 × batch 8" in value
