"""Parity for the batch of a training loop's steps: the DataLoader's batch_size the analysis reads
(shims/torch_data.py) is the batch torch feeds the model in training, and where the analysis
cannot name one batch it claims none.
Each script runs in a child process with torch (and Lightning) on the CPU; a global forward
pre-hook records the leading size of each input the model gets while it trains (grad on,
``model.training``). The analysis of the same file must plan exactly that one batch, and count the parameters the
model has as it trains (a Lightning module's layers built in its configure_model included); where it plans
none, the run shows why (two batch sizes) or the batch is the sampler's, which is not read."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lsp_count.core.analyze import analyze_path

pytestmark = pytest.mark.parity

torch = pytest.importorskip("torch")

# The model both kinds of script train, and their data.
LAYERS = """
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())
"""
DATA = """
def data(n=64):
    return TensorDataset(torch.randn(n, 12), torch.randint(0, 3, (n,)))
"""

HEAD = """
import argparse
import torch
import torch.nn as nn
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset
from tqdm import tqdm


class Net(nn.Module):
    def __init__(self):""" + LAYERS + DATA + """

def step(model, optimizer, x, y):
    nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()
    optimizer.zero_grad()
"""

# name: (main()'s body, the batch the analysis plans: None where it plans none, and then the
# sizes the run feeds the model)
PLAIN = {
    "a loop over the loader": ("""
    loader = DataLoader(data(), batch_size=16, shuffle=True)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            step(model, optimizer, x, y)
""", 16),
    "enumerate(tqdm(loader)), an evaluation loader beside it": ("""
    train_loader = DataLoader(data(), batch_size=8, shuffle=True)
    test_loader = DataLoader(data(), batch_size=64)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for i, (x, y) in enumerate(tqdm(train_loader, disable=True)):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    with torch.no_grad():
        for x, y in test_loader:
            model(x)
""", 8),
    "a train function, the batch from argparse": ("""
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=24)
    args = parser.parse_args([])
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(data(72), batch_size=args.batch_size, drop_last=True)
    train_epoch(model, loader, optimizer)


def train_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        step(model, optimizer, x, y)
""", 24),
    "a helper of its own name that takes the step, two calls deep": ("""
    loader = DataLoader(data(), batch_size=32, shuffle=True)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in loader:
        run_batch(model, optimizer, x, y)


def run_batch(model, optimizer, x, y):
    update(nn.functional.cross_entropy(model(x), y), optimizer)


def update(loss, optimizer):
    loss.backward()
    optimizer.step()
""", 32),
    "accelerate's prepare": ("""
    from accelerate import Accelerator
    accelerator = Accelerator(cpu=True)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(data(72), batch_size=12)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        accelerator.backward(nn.functional.cross_entropy(model(x), y))
        optimizer.step()
        optimizer.zero_grad()
""", 12),
    "a batch generator taken with next() (llama2.c's iter_batches)": ("""
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batches = iter_batches(batch_size=16)
    x, y = next(batches)
    for _ in range(3):
        step(model, optimizer, x, y)
        x, y = next(batches)


def iter_batches(batch_size):
    for x, y in DataLoader(data(), batch_size=batch_size, shuffle=True):
        yield x, y
""", 16),
    "two training loops, two batch sizes": ("""
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in DataLoader(data(), batch_size=8):
        step(model, optimizer, x, y)
    for x, y in DataLoader(data(), batch_size=4):
        step(model, optimizer, x, y)
""", None, [4, 8]),
    "a batch sampler": ("""
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    dataset = data()
    loader = DataLoader(dataset, batch_sampler=BatchSampler(RandomSampler(dataset), batch_size=10, drop_last=True))
    for x, y in loader:
        step(model, optimizer, x, y)
""", None, [10]),
}

LIGHTNING_HEAD = """
import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
""" + DATA + """

class LitNet(L.LightningModule):
    def __init__(self):""" + LAYERS + """
    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self(x), y)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


class OwnData(LitNet):
    def train_dataloader(self):
        return DataLoader(data(), batch_size=2)


class Data(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(data(), batch_size=8, shuffle=True)


class SplitData(L.LightningDataModule):
    # lightning-hydra-template's: the batch divided over the devices in setup, which Lightning calls first
    def __init__(self, batch_size=12):
        super().__init__()
        self.batch_size = batch_size
        self.batch_size_per_device = None

    def setup(self, stage=None):
        if self.trainer is not None:
            self.batch_size_per_device = self.batch_size // self.trainer.world_size
        self.data_train = data(48)

    def train_dataloader(self):
        return DataLoader(self.data_train, batch_size=self.batch_size_per_device)


class Sharded(LitNet):
    # its layers made in configure_model, as Lightning's guide has a module meant to be sharded do
    def __init__(self):
        L.LightningModule.__init__(self)
        self.body = None

    def configure_model(self):
        if self.body is None:
            self.body = nn.Sequential(nn.Linear(12, 40), nn.ReLU(), nn.Linear(40, 3))

    def forward(self, x):
        return self.body(x)

    def train_dataloader(self):
        return DataLoader(data(), batch_size=16)


def trainer():
    return L.Trainer(accelerator="cpu", devices=1, max_steps=3, logger=False, enable_checkpointing=False,
                     enable_progress_bar=False, enable_model_summary=False)
"""

LIGHTNING = {
    "fit(model, loader)": ("""
    model = LitNet()
    trainer().fit(model, DataLoader(data(), batch_size=4))
""", 4),
    "fit(model, datamodule=...)": ("""
    model = LitNet()
    trainer().fit(model, datamodule=Data())
""", 8),
    "the module's own train_dataloader": ("""
    model = OwnData()
    trainer().fit(model)
""", 2),
    "a datamodule's setup divides the batch over the devices": ("""
    model = LitNet()
    trainer().fit(model, SplitData())
""", 12),
    "layers built in configure_model": ("""
    model = Sharded()
    trainer().fit(model)
""", 16),
}

# The leading size of every input the model gets while it trains, recorded by a global forward
# pre-hook on its outermost module (its class named in argv[2]).
_SEEN = textwrap.dedent("""
    import json, runpy, sys, warnings
    warnings.simplefilter("ignore")
    import torch
    seen, sizes = set(), set()

    def record(module, args):
        if type(module).__name__ == sys.argv[2] and module.training and torch.is_grad_enabled():
            seen.add(int(args[0].shape[0]))
            sizes.add(sum(p.numel() for p in module.parameters()))

    torch.nn.modules.module.register_module_forward_pre_hook(record)
    runpy.run_path(sys.argv[1], run_name="__main__")
    print(json.dumps([sorted(seen), sorted(sizes)]))
""")


def _run(tmp_path, text: str, cls: str) -> tuple[list[int], object]:
    script = tmp_path / "train.py"
    script.write_text(text)
    done = subprocess.run([sys.executable, "-c", _SEEN, str(script), cls], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    seen, sizes = json.loads(done.stdout.strip().splitlines()[-1])
    (model,) = [m for m in analyze_path(str(script)).models if m.name == "model in main()"]
    assert model.plan.get("mode") == "train", model.tree.notes  # trained with its optimizer
    assert sizes == [model.tree.total]  # the model it trains, as the run has it
    return seen, model


@pytest.mark.parametrize("case", list(PLAIN))
def test_a_loop_s_batch_is_the_one_torch_feeds_it(tmp_path, case) -> None:
    body, batch, *sizes = PLAIN[case]
    seen, model = _run(tmp_path, textwrap.dedent(HEAD) + "\n\ndef main():" + body +
                       '\n\nif __name__ == "__main__":\n    main()\n', "Net")
    _check(seen, model, batch, sizes[0] if sizes else [batch])


@pytest.mark.parametrize("case", list(LIGHTNING))
def test_a_lightning_fit_s_batch_is_the_one_it_feeds_the_module(tmp_path, case) -> None:
    pytest.importorskip("lightning")
    body, batch = LIGHTNING[case]
    seen, model = _run(tmp_path, textwrap.dedent(LIGHTNING_HEAD) + "\n\ndef main():" + body +
                       '\n\nif __name__ == "__main__":\n    main()\n',
                       "OwnData" if "own" in case else "Sharded" if "configure_model" in case else "LitNet")
    _check(seen, model, batch, [batch])


def _check(seen: list[int], model, batch: int | None, sizes: list[int]) -> None:
    notes = " ".join(model.tree.notes)
    assert seen == sizes, seen  # the run itself
    if batch is None:
        assert "batch" not in model.plan and "--batch" in notes, (model.plan, notes)
        return
    assert model.plan.get("batch") == batch, (model.plan, notes)
    assert f"batches of {batch} (its DataLoader's batch_size)" in notes
