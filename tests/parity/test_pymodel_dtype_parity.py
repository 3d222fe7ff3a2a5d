"""Parity: whether a tensor is floating-point (``t.is_floating_point()``, ``t.is_complex()``), and the
shapes of torch's functions that are tensor methods too (``torch.flatten(t, 1)``), as the analyser
answers them, against torch. Every expression is asked in a constructor whose count depends
on the answer: the analyser either counts the class as torch does or refuses it (LC101), and the
expressions whose dtype it knows must be answered (the test cannot pass by refusing them all)."""

from __future__ import annotations

import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

# (expression, whether the analyser knows the dtype)
EXPRESSIONS = [
    ("torch.zeros(2).is_floating_point()", True),
    ("torch.ones(2, 3).is_floating_point()", True),
    ("torch.randn(4).is_floating_point()", True),
    ("torch.empty(1).is_floating_point()", True),
    ("torch.rand(2).is_complex()", True),
    ("torch.zeros(2, dtype=torch.long).is_floating_point()", True),
    ("torch.zeros(2, dtype=torch.bfloat16).is_floating_point()", True),
    ("torch.ones(2, dtype=torch.bool).is_floating_point()", True),
    ("torch.randint(0, 5, (3,)).is_floating_point()", True),
    ("torch.randint(0, 5, (3,), dtype=torch.float32).is_floating_point()", True),
    ("torch.arange(3).is_floating_point()", True),
    ("torch.arange(3.0).is_floating_point()", True),
    ("torch.tensor([1.5, 2.0]).is_floating_point()", True),
    ("torch.tensor([1, 2]).is_floating_point()", True),
    ("torch.linspace(0, 1, 3).is_floating_point()", True),
    ("torch.eye(3).is_floating_point()", True),
    ("torch.zeros_like(torch.arange(3)).is_floating_point()", True),
    ("torch.ones_like(torch.zeros(2), dtype=torch.int32).is_floating_point()", True),
    ("(torch.randn(3) * 0.5).is_floating_point()", True),
    ("(torch.randn(3) + torch.ones(3)).is_floating_point()", True),
    ("(torch.ones(2) @ torch.ones(2, 2)).is_floating_point()", True),
    ("nn.Parameter(torch.randn(2)).is_floating_point()", True),
    ("nn.Parameter(torch.arange(2), requires_grad=False).is_floating_point()", True),
    ("nn.Linear(2, 2).weight.is_floating_point()", True),
    ("nn.Linear(2, 2, dtype=torch.float16).weight.is_floating_point()", True),
    ("nn.Embedding(3, 2).weight.is_complex()", True),
    ("nn.Conv2d(1, 2, 3).bias.is_floating_point()", True),
    ("next(nn.LayerNorm(4).parameters()).is_floating_point()", True),
    ("torch.full((2,), 3).is_floating_point()", True),  # a 1-D fill's values, in the fill's dtype (int64)
    ("torch.full((2,), 3.0).is_floating_point()", True),
    # Not known to the analyser (a complex number, a fill value's dtype): refused, never guessed.
    ("(torch.ones(2) * 1j).is_floating_point()", False),
    ("(torch.ones(2) * 1j).is_complex()", False),
    ("torch.full((2, 2), 3).is_floating_point()", False),
    ("torch.randint(0, 5, (3,)).is_complex()", False),
    ("(torch.arange(3) + torch.randn(3)).is_floating_point()", False),
]


@pytest.mark.parametrize("expression, known", EXPRESSIONS)
def test_is_floating_point_as_torch_answers(expression: str, known: bool) -> None:
    source = textwrap.dedent(f"""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3 if {expression} else 4, 1, bias=False)
    """)
    namespace: dict[str, object] = {}
    exec(compile(source, "net.py", "exec"), namespace)  # noqa: S102 - the test's own model
    expected = sum(p.numel() for p in namespace["Net"]().parameters())
    report = analyze_text(source, "net.py", AnalyzeOptions())
    if known:
        assert [(m.name, m.tree.total) for m in report.models] == [("Net", expected)], report.problems
    else:
        assert not report.models and [p.code for p in report.problems] == ["LC101"]


@pytest.mark.parametrize("expression", [
    "torch.flatten(torch.zeros(2, 3, 4), 1).shape[-1]",
    "torch.flatten(torch.zeros(2, 3, 4)).shape[0]",
    "torch.flatten(torch.zeros(2, 3, 4, 5), 1, 2).shape[1]",
    "torch.transpose(torch.zeros(2, 7), 0, 1).shape[0]",
    "torch.unsqueeze(torch.zeros(5), 0).shape[1]",
    "torch.reshape(torch.zeros(6, 2), (3, -1)).shape[1]",
    "torch.t(torch.zeros(2, 9)).shape[0]",
    # The transposes as attributes: all dims reversed (T, H), the last two swapped (mT, mH).
    "torch.zeros(2, 9).T.shape[0]",
    "torch.zeros(2, 3, 4).T.shape[0]",
    "torch.zeros(6).T.shape[0]",
    "torch.zeros(2, 3, 4).mT.shape[1]",
    "torch.zeros(5, 2).H.shape[0]",
    "torch.zeros(2, 3, 4).mH.shape[2]",
    # F.pad: (before, after) pairs from the last dimension on, negative ones cropping.
    "torch.nn.functional.pad(torch.zeros(2, 3), (1, 2)).shape[1]",
    "torch.nn.functional.pad(torch.zeros(2, 3, 4), (1, 1, 2, 3)).shape[1]",
    "torch.nn.functional.pad(torch.zeros(5, 6), (-2, 0), 'constant', 0).shape[1]",
    # FNO's wave numbers and real transforms: half the last dimension, and one.
    "len(torch.fft.rfftfreq(9))", "len(torch.fft.fftfreq(9))", "torch.fft.rfft(torch.zeros(3, 10)).shape[1]",
    "torch.fft.rfft2(torch.zeros(4, 7)).shape[-1]", "torch.fft.rfft2(torch.zeros(4, 7)).shape[0]",
    # SVD / eigh / LU / diag / norm shapes (PiSSA, S5, Glow, DoRA).
    "torch.linalg.svd(torch.zeros(5, 3), full_matrices=False)[0].shape[1]",
    "torch.linalg.svd(torch.zeros(5, 3))[0].shape[1]", "torch.linalg.eigh(torch.zeros(4, 4))[1].shape[0]",
    "torch.linalg.lu(torch.zeros(4, 6))[2].shape[1]", "torch.diag(torch.zeros(4), 1).shape[0]",
    "torch.diagonal(torch.zeros(3, 5), -1).shape[0]", "torch.zeros(6, 4).norm(dim=0, keepdim=True).shape[1]",
])
def test_torch_functions_that_are_tensor_methods_give_torchs_shapes(expression: str) -> None:
    source = textwrap.dedent(f"""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear({expression}, 1, bias=False)
    """)
    namespace: dict[str, object] = {}
    exec(compile(source, "net.py", "exec"), namespace)  # noqa: S102 - the test's own model
    expected = sum(p.numel() for p in namespace["Net"]().parameters())
    report = analyze_text(source, "net.py", AnalyzeOptions())
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", expected)], report.problems
