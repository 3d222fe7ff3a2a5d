"""A constructor argument with no default that the class keeps as it is (``self.box_head = box_head``)
and uses as a module (calls it, loops over it) or that is annotated as one: the parameters of the
module passed there count, so the class is not counted as if it had none. torchvision's RoIHeads and
RegionProposalNetwork, SSD's scoring head and RAFT's update block were counted 0 before, as if their
modules were numbers. An argument kept and never used as a module (``self.layer_idx = layer_idx``)
is a number or a setting, and the class is counted, as it was."""

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
        def __init__(self, box_head, box_predictor, score_thresh: float, layer_idx):
            super().__init__()
            self.box_head = box_head
            self.box_predictor = box_predictor
            self.score_thresh = score_thresh
            self.layer_idx = layer_idx
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.box_predictor(self.box_head(x)) * self.layer_idx

    class KwOnly(nn.Module):
        def __init__(self, *, flow_head: nn.Module):
            super().__init__()
            self.flow_head = flow_head

    class Holder(nn.Module):
        def __init__(self, m=None):
            super().__init__()
            self.m = m

        def forward(self, x):
            for i, layer in enumerate(self.m):
                x = layer(x)
            return x

    class Wraps(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.wrapped = Holder(inner)

    class Typed(nn.Module):
        def __init__(self, a: int, b: Optional[int], c: "float | None", d: tuple[int, ...], e: "Literal['x']"):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = a, b, c, d, e
            self.fc = nn.Linear(2, 2)

        def forward(self, x):
            return self.a(x)  # whatever the code does, an int is not a module

    class Kept(nn.Module):
        def __init__(self, layer_idx, drop_prob, config):
            super().__init__()
            self.layer_idx, self.drop_prob, self.config = layer_idx, drop_prob, config
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x) * self.drop_prob + self.layer_idx

    class Indexed(nn.Module):
        def __init__(self, stages):
            super().__init__()
            self.stages = stages

        def forward(self, x):
            return self.stages[-1](x)

    class Looped(nn.Module):
        def __init__(self, blocks):
            super().__init__()
            self.blocks = blocks

        def forward(self, x):
            return [block(x) for block in self.blocks]

    class UsesDim(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim
            self.fc = nn.Linear(dim, 10)
"""


def test_a_kept_argument_used_as_a_module_is_not_counted_as_nothing() -> None:
    report = run(HEADS)
    refused = lc101(report)
    assert refused["Heads"].endswith(
        "`box_head` is the constructor argument `box_head`, which has no default, and `Heads` uses it as a module "
        "(line 15 of model.py): the parameters of the module passed there count; the rest of `Heads` has 20 "
        "parameters")
    assert "`flow_head` is the constructor argument `flow_head: nn.Module`, which has no default: the parameters " \
           "of the module passed there count" in refused["KwOnly"]
    assert "`stages` is the constructor argument `stages`, which has no default, and `Indexed` uses it as a " \
           "module" in refused["Indexed"]
    assert "`blocks` is the constructor argument `blocks`, which has no default, and `Looped` uses it as a " \
           "module" in refused["Looped"]
    # Kept by a submodule it was passed to, which loops over it: named by its path.
    assert "`wrapped.m` is the constructor argument `inner`, which has no default, and `Holder` uses it as a " \
           "module (line 28 of model.py)" in refused["Wraps"]


def test_what_an_annotation_rules_out_what_is_never_used_as_a_module_and_defaults_are_counted() -> None:
    report = run(HEADS)
    assert counts(report) == {"Holder": 0, "Typed": 6, "Kept": 12}


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
    ("torch.dtype", True), ("Literal['a', 'b']", True), ("Callable[..., nn.Module]", True), ("Type[nn.Module]", True),
    ("nn.Module", False), ("Any", False), ("'Block'", False), ("List[nn.Module]", False),
])
def test_annotations_that_rule_a_module_out(annotation: str, counted: bool) -> None:
    # The class calls what it kept: only an annotation can say that it is no module.
    report = run(f"""
        import typing
        from typing import Any, Callable, List, Literal, Optional, Type
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, x: {annotation}):
                super().__init__()
                self.x = x

            def forward(self, h):
                return self.x(h)
    """)
    assert ("Net" in counts(report)) is counted, report.problems


def test_an_argument_annotated_as_a_module_class_of_the_code_counts_as_one_unused() -> None:
    report = run("""
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

        class Hybrid(nn.Module):
            def __init__(self, shared: Block):
                super().__init__()
                self.shared = shared
    """)
    assert lc101(report)["Hybrid"].endswith("`shared` is the constructor argument `shared: Block`, which has no "
                                            "default: the parameters of the module passed there count; the rest of "
                                            "`Hybrid` has 0 parameters")


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


def test_an_argument_called_through_a_local_alias_is_used_as_a_module() -> None:
    # performer-pytorch's ReZero reads the held module into a local, then calls the local.
    report = run("""
        import torch
        import torch.nn as nn

        class ReZero(nn.Module):
            def __init__(self, fn):
                super().__init__()
                self.g = nn.Parameter(torch.zeros(1))
                self.fn = fn

            def forward(self, x):
                f = self.fn
                return f(x) * self.g

        class Scale(nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.g = nn.Parameter(torch.zeros(1))
                self.scale = scale

            def forward(self, x):
                s = self.scale
                return x * s * self.g
    """)
    assert "uses it as a module (line 13 of model.py)" in lc101(report)["ReZero"]
    assert counts(report) == {"Scale": 1}  # an alias only multiplied is a number, not a module
