"""Parity of a Python model's position limit with torch: hypothesis writes a language model in
one of three styles (nanoGPT's learned ``nn.Embedding`` of positions and a config dataclass,
minGPT's position ``nn.Parameter`` and its own ``block_size``, llama2.c's rotary positions and a
``max_seq_len`` in its params), the analyser reads the limit from the file, and torch runs the
model's forward on the limit's length and on one token more: a limit the analyser calls hard is
one past which torch's forward raises, a soft one is one torch runs past. The file is run here,
in the test; the analyser only reads it."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text
from lsp_count.core.memory import position_limit
from .meta_count import run_source

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

NANOGPT = '''
from dataclasses import dataclass
import torch
import torch.nn as nn

@dataclass
class GPTConfig:
    block_size: int = {block}
    vocab_size: int = {vocab}
    n_embd: int = {width}

class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        return self.lm_head(x)
'''

MINGPT = '''
import torch
import torch.nn as nn

class GPT(nn.Module):
    def __init__(self, vocab_size={vocab}, block_size={block}, n_embd={width}):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, block_size, n_embd))
        self.head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok_emb(idx) + self.pos_emb[:, :t, :]
        return self.head(x)
'''

LLAMA2C = '''
from dataclasses import dataclass
import torch
import torch.nn as nn

@dataclass
class ModelArgs:
    dim: int = {width}
    vocab_size: int = {vocab}
    max_seq_len: int = {block}

class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok_embeddings(idx)
        # rotary angles for the positions there are, however many
        freqs = 1.0 / (10000.0 ** (torch.arange(0, self.params.dim, 2).float() / self.params.dim))
        angles = torch.outer(torch.arange(t).float(), freqs)
        x = x * torch.cat([angles.cos(), angles.sin()], dim=-1)
        return self.output(x)
'''

STYLES = {"nanogpt": (NANOGPT, "GPT", "GPTConfig"), "mingpt": (MINGPT, "GPT", None),
          "llama2c": (LLAMA2C, "Transformer", "ModelArgs")}


def _runs(model: torch.nn.Module, vocab: int, tokens: int) -> bool:
    try:
        with torch.no_grad():
            model(torch.randint(0, vocab, (1, tokens)))
    except (IndexError, RuntimeError):
        return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(style=st.sampled_from(sorted(STYLES)), block=st.integers(2, 64), width=st.integers(1, 16).map(lambda n: 2 * n),
       data=st.data())
def test_the_limit_is_where_torch_s_forward_stops(style: str, block: int, width: int, data: st.DataObject) -> None:
    # As many tokens as positions, often: the token table then has the position table's size.
    vocab = data.draw(st.one_of(st.just(block), st.integers(2, 64)), label="vocab")
    template, cls, config_cls = STYLES[style]
    source = textwrap.dedent(template.format(block=block, vocab=vocab, width=width))
    report = analyze_text(source, f"/nonexistent/{style}.py")
    model = next(m for m in report.models if m.name == cls)
    limit = position_limit(model)
    assert limit is not None and limit.tokens == block

    module = run_source(source, f"position_limit_{style}")
    built = getattr(module, cls)(*([getattr(module, config_cls)()] if config_cls else []))
    assert sum(p.numel() for p in built.parameters()) == model.tree.total
    assert _runs(built, vocab, block)  # the limit's own length runs
    assert limit.hard == (not _runs(built, vocab, block + 1))
