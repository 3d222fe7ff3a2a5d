"""A Python model's longest sequence, read from its config: the memory estimate says when the
context is beyond it and the fit search stops there, as for a config.json's ``n_positions``.
tests/parity/test_pymodel_position_limit_parity.py runs the same kinds of model in torch."""

from __future__ import annotations

import pathlib
import textwrap
from dataclasses import replace

from lsp_count.core.analyze import analyze_text
from lsp_count.core.fit import judge_fit
from lsp_count.core.hardware import parse_gpu_spec
from lsp_count.core.memory import Settings, estimate_memory, position_limit
from lsp_count.core.report import PositionLimit

ROOT = pathlib.Path(__file__).resolve().parents[2]

NANOGPT = ROOT / "tests" / "fixtures" / "pymodels" / "nanogpt.py"


def _model(source: str, name: str, path: str = "/nonexistent/model.py"):
    report = analyze_text(textwrap.dedent(source), path)
    return next(m for m in report.models if m.name == name)


def test_nanogpt_s_learned_position_table_is_a_hard_limit_at_its_block_size() -> None:
    gpt = _model(NANOGPT.read_text(), "GPT", str(NANOGPT))
    assert position_limit(gpt) == PositionLimit(1024, "config.block_size", hard=True)
    assert "context 4,096 is beyond config.block_size (1,024)" in estimate_memory(gpt, Settings(context=4096)).notes
    assert not any("beyond" in n for n in estimate_memory(gpt, Settings(context=1024)).notes)
    # Nothing longer than its 1,024 positions runs: the fit search stops there (it went to 2^20).
    verdict = judge_fit(gpt, Settings(mode="lora", context=4096), parse_gpu_spec("RTX-4090"))
    assert verdict.max_context == 1024


MINGPT = """
import torch
import torch.nn as nn

class GPT(nn.Module):
    def __init__(self, vocab_size=512, block_size=128, n_embd=64):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, block_size, n_embd))
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
"""

LLAMA2C = """
from dataclasses import dataclass
import torch.nn as nn

@dataclass
class ModelArgs:
    dim: int = 64
    n_layers: int = 2
    vocab_size: int = 512
    max_seq_len: int = 256

class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList([nn.Linear(params.dim, params.dim) for _ in range(params.n_layers)])
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)
"""


def test_a_model_s_own_block_size_with_a_position_parameter_is_hard() -> None:
    gpt = _model(MINGPT, "GPT")
    assert position_limit(gpt) == PositionLimit(128, "block_size", hard=True)


def test_a_config_s_max_seq_len_with_no_position_table_is_soft() -> None:
    model = _model(LLAMA2C, "Transformer")
    limit = position_limit(model)
    assert limit == PositionLimit(256, "params.max_seq_len", hard=False)
    assert "context 4,096 is beyond params.max_seq_len (256)" in estimate_memory(model, Settings(context=4096)).notes
    # As for a config.json's rotary model: the search goes up to the limit, or to the context asked
    # for where that is longer (rotary positions run past the limit); it went to 2^20.
    gpu = parse_gpu_spec("RTX-4090")
    assert judge_fit(model, Settings(context=128), gpu).max_context == 256
    assert judge_fit(model, Settings(context=4096), gpu).max_context == 4096


def test_a_table_of_another_length_leaves_the_limit_soft() -> None:
    # 256 positions named, a table of 300 rows: not the table of those positions.
    model = _model(LLAMA2C.replace("self.output", "self.pos = nn.Embedding(300, params.dim)\n        self.output"),
                   "Transformer")
    assert position_limit(model) == PositionLimit(256, "params.max_seq_len", hard=False)


def test_a_model_whose_config_names_no_length_has_no_limit() -> None:
    model = _model(LLAMA2C.replace("max_seq_len: int = 256", "seq: int = 256"), "Transformer")
    assert position_limit(model) is None
    assert not any("beyond" in n for n in estimate_memory(model, Settings(context=1 << 16)).notes)
    # A length that is not a positive int (a formula the analysis left open, a None) is no limit.
    model = _model(LLAMA2C.replace("max_seq_len: int = 256", "max_seq_len: int = None"), "Transformer")
    assert position_limit(model) is None


def test_a_module_attribute_named_config_is_not_read_as_a_config() -> None:
    source = MINGPT.replace("self.block_size = block_size", "self.config = nn.Linear(block_size, 4)")
    assert position_limit(_model(source, "GPT")) is None


def test_a_model_with_a_family_spec_keeps_the_spec_s_limit() -> None:
    gpt = _model(NANOGPT.read_text(), "GPT", str(NANOGPT))
    assert gpt.spec is None and gpt.positions is not None
    # The spec decides where there is one (a transformers model in a Python file): its n_positions.
    from lsp_count.core.catalog import CATALOG_DIR

    config = CATALOG_DIR / "openai-community" / "gpt2-medium.json"
    spec_model = analyze_text(config.read_text(), str(config)).models[0]
    with_both = replace(spec_model, positions=PositionLimit(7, "config.block_size", hard=True))
    assert position_limit(with_both) == PositionLimit(1024, "n_positions", hard=True)


def test_a_model_s_only_table_is_its_tokens_even_with_as_many_rows_as_positions() -> None:
    # vocab_size == max_seq_len: the one nn.Embedding is the tokens' table, not a position table.
    model = _model(LLAMA2C.replace("vocab_size: int = 512", "vocab_size: int = 256"), "Transformer")
    assert position_limit(model) == PositionLimit(256, "params.max_seq_len", hard=False)
    # nanoGPT with as many tokens as positions: two tables of that size, one of them the positions'.
    gpt = _model(NANOGPT.read_text().replace("vocab_size: int = 50304", "vocab_size: int = 1024"), "GPT", str(NANOGPT))
    assert position_limit(gpt) == PositionLimit(1024, "config.block_size", hard=True)
    # A 2-D position parameter beside the token table.
    source = MINGPT.replace("torch.zeros(1, block_size, n_embd)", "torch.zeros(block_size, n_embd)")
    assert position_limit(_model(source, "GPT")) == PositionLimit(128, "block_size", hard=True)
