"""A constructor argument with no default that the class keeps as it is (``self.box_head = box_head``):
a module passed there would add its parameters, so the class is not counted as if it had none.
torchvision's RoIHeads and RegionProposalNetwork, SSD's scoring head and RAFT's update block were
counted 0 before, as if their modules were numbers; what an annotation rules out is counted."""

from __future__ import annotations

import textwrap

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text


def run(src: str):
    return analyze_text(textwrap.dedent(src), "model.py", AnalyzeOptions())


def counts(report) -> dict[str, int]:
    return {m.name: m.tree.total for m in report.models}


def lc101(report) -> dict[str, str]:
    return {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


HEADS = """
    from typing import Optional
    import torch.nn as nn

    class Heads(nn.Module):
        def __init__(self, box_head, box_predictor, score_thresh: float):
            super().__init__()
            self.box_head = box_head
            self.box_predictor = box_predictor
            self.score_thresh = score_thresh
            self.fc = nn.Linear(4, 4)

    class KwOnly(nn.Module):
        def __init__(self, *, flow_head: nn.Module):
            super().__init__()
            self.flow_head = flow_head

    class Holder(nn.Module):
        def __init__(self, m=None):
            super().__init__()
            self.m = m

    class Wraps(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.wrapped = Holder(inner)

    class Typed(nn.Module):
        def __init__(self, a: int, b: Optional[int], c: "float | None", d: tuple[int, ...], e: "Literal['x']"):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = a, b, c, d, e
            self.fc = nn.Linear(2, 2)

    class UsesDim(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim
            self.fc = nn.Linear(dim, 10)
"""


def test_a_kept_argument_that_may_be_a_module_is_not_counted_as_nothing() -> None:
    report = run(HEADS)
    refused = lc101(report)
    assert refused["Heads"].endswith(
        "`box_head` is the constructor argument `box_head`, which has no default and no annotation: a module "
        "passed there adds its parameters (annotate it, `box_head: int`, if it is not a module); the rest of "
        "`Heads` has 20 parameters")
    assert "`flow_head` is the constructor argument `flow_head: nn.Module`, which has no default: the module " \
           "passed there adds its parameters" in refused["KwOnly"]
    # Kept by a submodule it was passed to: named by its path.
    assert "`wrapped.m` is the constructor argument `inner`" in refused["Wraps"]


def test_what_an_annotation_rules_out_and_what_a_default_pins_are_counted() -> None:
    report = run(HEADS)
    assert counts(report) == {"Holder": 0, "Typed": 6}


def test_an_argument_used_as_a_size_keeps_its_formula() -> None:
    # dim is a number (nn.Linear takes it as one): the reason is the formula, not "may be a module".
    assert lc101(run(HEADS))["UsesDim"].endswith("parameters = 10·dim + 10")


def test_a_module_argument_in_a_container_names_the_argument() -> None:
    report = run("""
        import torch.nn as nn

        class Body(nn.Module):
            def __init__(self, backbone, head):
                super().__init__()
                self.body = nn.Sequential(backbone, head)
    """)
    assert lc101(report)["Body"].endswith("an element of nn.Sequential is not a known module (the constructor "
                                          "argument `backbone` with no default)")


@pytest.mark.parametrize("annotation, counted", [
    ("int", True), ("Optional[int]", True), ("'int | None'", True), ("typing.Tuple[int, int]", True),
    ("Callable[..., nn.Module]", False), ("nn.Module", False), ("Any", False), ("'Block'", False),
    ("List[nn.Module]", False), ("torch.dtype", True), ("Literal['a', 'b']", True),
])
def test_annotations_that_rule_a_module_out(annotation: str, counted: bool) -> None:
    report = run(f"""
        import typing
        from typing import Any, Callable, List, Literal, Optional
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, x: {annotation}):
                super().__init__()
                self.x = x
    """)
    assert ("Net" in counts(report)) is counted, report.problems


def test_a_known_total_with_an_unknown_size_is_explained_not_a_crash() -> None:
    # timm's DeepseekVitAligner: nn.Linear(9 * dim, 0) has 0 parameters for any dim, but no shape to show.
    report = run("""
        import torch.nn as nn

        class Aligner(nn.Module):
            def __init__(self, dim: int, out_features: int = 0):
                super().__init__()
                self.fc1 = nn.Linear(dim * 9, out_features)
    """)
    assert lc101(report)["Aligner"].endswith(
        "`fc1.weight` has the shape (0, (9·dim)): the constructor argument `dim` with no default")
