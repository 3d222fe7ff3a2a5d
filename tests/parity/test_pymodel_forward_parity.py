"""Parity on the "dry run" that sizes a classifier after a convolution stack (DQN's
``self.conv(torch.zeros(1, *shape)).size()``): hypothesis writes an nn.Sequential of torch's
convolutions, pools, flattens and activations, runs it on a zeros tensor in the constructor and
sizes a Linear by the result; the static count must equal torch's count of the module built on
the meta device, and a stack torch rejects (too small an input, channels that do not match) must
not be counted."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .meta_count import file_class_counts

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


@st.composite
def stacks(draw) -> tuple[str, str]:
    """(the layers, the input's sizes) for 1-, 2- or 3-d data."""
    dims = draw(st.integers(1, 3))
    channels = draw(st.integers(1, 4))
    spatial = [draw(st.integers(4, 12)) for _ in range(dims)]
    batch = draw(st.booleans())
    layers = []
    c = channels
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["conv", "convt", "maxpool", "avgpool", "adaptive", "relu", "bn"]))
        k, s = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        if kind == "conv":
            out = draw(st.integers(1, 5))
            padding = draw(st.sampled_from(["0", "1", "'same'", "'valid'"])) if s == 1 else draw(st.sampled_from(["0", "1"]))
            wrong = draw(st.integers(0, 19)) == 0  # channels that do not match: torch's error
            layers.append(f"nn.Conv{dims}d({c + wrong}, {out}, {k}, stride={s}, padding={padding}, "
                          f"dilation={draw(st.integers(1, 2))})")
            c = out
        elif kind == "convt":
            out = draw(st.integers(1, 5))
            layers.append(f"nn.ConvTranspose{dims}d({c}, {out}, {k}, stride={s}, padding={draw(st.integers(0, 1))})")
            c = out
        elif kind in ("maxpool", "avgpool"):
            name = "MaxPool" if kind == "maxpool" else "AvgPool"
            stride = draw(st.sampled_from(["None", str(s)]))
            layers.append(f"nn.{name}{dims}d({k}, stride={stride}, padding={draw(st.integers(0, 2))}, "
                          f"ceil_mode={draw(st.booleans())})")
        elif kind == "adaptive":
            layers.append(f"nn.Adaptive{draw(st.sampled_from(['Avg', 'Max']))}Pool{dims}d({draw(st.integers(1, 3))})")
        elif kind == "relu":
            layers.append(draw(st.sampled_from(["nn.ReLU()", "nn.Dropout(0.1)", "nn.Identity()", "nn.GELU()"])))
        else:
            layers.append(f"nn.BatchNorm{dims}d({c})" if batch else "nn.Identity()")
    if draw(st.booleans()):
        layers.append(draw(st.sampled_from(["nn.Flatten()", "nn.Flatten(0)", "nn.Flatten(1, -1)"])))
    sizes = ([1] if batch else []) + [channels] + spatial
    return ", ".join(layers), ", ".join(map(str, sizes))


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(stacks())
def test_a_dry_run_of_torch_layers_sizes_as_torch_does(case: tuple[str, str]) -> None:
    layers, sizes = case
    text = textwrap.dedent(f"""
        import numpy as np
        import torch
        import torch.nn as nn


        class DryRun(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential({layers})
                x = self.features(torch.zeros({sizes}))
                self.head = nn.Linear(int(np.prod(x.size())), 3)
    """)
    want, got, messages = file_class_counts(text, "dry_run.py", "DryRun")
    assert got == want, (layers, sizes, got, want, messages)
