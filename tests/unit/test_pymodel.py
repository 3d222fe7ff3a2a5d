"""Static analysis of Python model files: reasons instead of guesses, hints, hostile input."""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from lsp_count.core.analyze import AnalyzeOptions, analyze_text
from lsp_count.core.source import Position


def run(src: str, path: str = "model.py", **options):
    return analyze_text(textwrap.dedent(src), path, AnalyzeOptions(**options))


def lc101(report) -> dict[str, str]:
    return {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


def test_unresolved_size_is_explained_with_a_formula() -> None:
    report = run("""
        import torch.nn as nn
        class MLP(nn.Module):
            def __init__(self, dim, hidden=None):
                super().__init__()
                hidden = hidden or 4 * dim
                self.up = nn.Linear(dim, hidden)
                self.down = nn.Linear(hidden, dim, bias=False)
    """)
    assert report.models == ()
    message = lc101(report)["MLP"]
    # `hidden or 4*dim` cannot be decided without dim; the reason names the argument.
    assert "the constructor argument `dim` with no default" in message


def test_formula_in_unresolved_names() -> None:
    report = run("""
        from torch import nn
        class Proj(nn.Module):
            def __init__(self, dim, hidden: int = 64):
                super().__init__()
                self.a = nn.Linear(dim, hidden)
                self.b = nn.Linear(hidden, dim, bias=False)
    """)
    message = lc101(report)["Proj"]
    assert "parameters = 128·dim + 64" in message
    assert report.problems[0].severity == "warning" and report.problems[0].span.start == Position(2, 6)


def test_grouped_conv_formula_in_unresolved_names() -> None:
    # A depthwise conv's channels per group is `dim // dim`: 1, so the formula stays a polynomial;
    # channels per group that no polynomial gives (`dim // heads`) become one name of their own.
    # Both were "channels per group cannot be resolved" with no formula and no argument named.
    report = run("""
        import torch.nn as nn
        class Depthwise(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.dw = nn.Conv2d(dim, dim, 3, groups=dim)
                self.up = nn.Conv1d(4 * dim, 4 * dim, 5, groups=4, bias=False)
                self.back = nn.ConvTranspose2d(dim, dim * 2, 2, groups=dim)
                self.split = dim * 6 // 3
                self.fc = nn.Linear(self.split // dim, 1, bias=False)
        class Grouped(nn.Module):
            def __init__(self, dim, heads):
                super().__init__()
                self.c = nn.Conv1d(dim, 2 * dim, 3, groups=heads)
    """)
    messages = lc101(report)
    # 9·dim + dim (dw) + 20·dim² (up) + 8·dim + 2·dim (back) + 2 (fc: (2·dim) // dim inputs)
    assert messages["Depthwise"].endswith("the constructor argument `dim` with no default; "
                                          "parameters = 20·dim² + 20·dim + 2")
    assert messages["Grouped"].endswith("the constructor argument `dim` with no default; the constructor argument "
                                        "`heads` with no default; parameters = 6·dim·(dim/heads) + 2·dim")


def test_config_attribute_formula() -> None:
    report = run("""
        import torch.nn as nn
        class Head(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.proj = nn.Linear(cfg.d_model, cfg.vocab, bias=False)
    """)
    assert "parameters = cfg.d_model·cfg.vocab" in lc101(report)["Head"]


def test_exact_count_with_span_tying_and_frozen() -> None:
    report = run("""
        import torch
        import torch.nn as nn

        class Tiny(nn.Module):
            def __init__(self, vocab=100, d=8):
                super().__init__()
                self.emb = nn.Embedding(vocab, d)
                self.head = nn.Linear(d, vocab, bias=False)
                self.head.weight = self.emb.weight
                self.norm = nn.LayerNorm(d)
                self.norm.requires_grad_(False)
    """)
    (model,) = report.models
    assert model.name == "Tiny" and model.span.start == Position(4, 6) and model.span.end == Position(4, 10)
    assert model.tree.total == 100 * 8 + 16
    assert model.tree.trainable == 800
    assert any("tied" in n for n in model.tree.notes) and any("frozen" in n for n in model.tree.notes)


def test_dataclass_annotation_is_counted_with_defaults_and_said() -> None:
    report = run("""
        from dataclasses import dataclass, field
        import torch.nn as nn

        @dataclass
        class Cfg:
            d: int = 16
            layers: list = field(default_factory=lambda: [16, 32])

        class Net(nn.Module):
            def __init__(self, cfg: Cfg):
                super().__init__()
                self.fc = nn.ModuleList([nn.Linear(cfg.d, n) for n in cfg.layers])
    """)
    (model,) = report.models
    assert model.tree.total == (16 * 16 + 16) + (16 * 32 + 32)
    assert any(p.code == "LC106" and "Cfg()" in p.message for p in report.problems)


def test_inlay_hint_anchors_per_constructor() -> None:
    report = run("""
        import torch.nn as nn
        class FFN(nn.Module):
            def __init__(self):
                super().__init__()
                self.up = nn.Linear(4096, 11008)
    """)
    ((span, label),) = report.hints
    assert label == "▸ 45.1M" and span.start == Position(5, 18)


def test_a_block_built_again_from_the_same_arguments_points_at_its_own_call() -> None:
    # The second Norm(8) and Block(8) are copies of the first build; each copy still has its
    # own call as its source and its own hint.
    report = run("""
        import torch.nn as nn
        class Norm(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.ln = nn.LayerNorm(d)
        class Block(nn.Module):
            def __init__(self, d=8):
                super().__init__()
                self.norm_in = Norm(d)
                self.norm_out = Norm(d)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.first = Block(8)
                self.second = Block(d=8)
    """)
    hint_lines = {span.start.line for span, _ in report.hints}
    assert {9, 10, 14, 15} <= hint_lines
    net = next(m for m in report.models if m.name == "Net")
    for path, line in (("second", 15), ("second.norm_out", 10), ("first.norm_out", 10), ("first.norm_in", 9)):
        assert net.tree.root.find(path).source.start.line == line, path


def test_a_helper_that_builds_several_sizes_gets_no_hint_whatever_it_built_first() -> None:
    report = run("""
        import torch.nn as nn
        def proj(d):
            return nn.Linear(d, d)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.same = nn.ModuleList([proj(8) for _ in range(6)])
                self.wide = proj(16)
    """)
    # Line 3 builds six 8-wide layers, then a 16-wide one: no single size to show. Line 8 calls a
    # function, not a constructor: the layer it gets is labelled where it is built.
    assert {span.start.line for span, _ in report.hints} == {7}


def test_hub_refs_for_from_pretrained() -> None:
    report = run("""
        from transformers import AutoModel
        import torch.nn as nn
        class WithBackbone(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = AutoModel.from_pretrained("org/name")
                self.head = nn.Linear(768, 2)
    """)
    assert [ref for _, ref in report.hub_refs] == ["org/name"]
    assert "from_pretrained" in lc101(report)["WithBackbone"]


def test_syntax_error_keeps_the_blocks_that_parse() -> None:
    report = run("""
        import torch.nn as nn

        class Good(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10, 10)

        class Typing(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10,
    """)
    assert [m.name for m in report.models] == ["Good"]
    assert any(p.code == "LC001" and p.severity == "error" for p in report.problems)


def test_no_module_class_is_not_recognized() -> None:
    assert run("x = 1\ndef f():\n    return 2\n").recognized is False
    assert run("class A:\n    pass\n").recognized is False


@pytest.mark.parametrize("src, reason", [
    ("""
        import torch.nn as nn
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = B()
        class B(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = A()
    """, "build each other"),
    ("""
        import torch.nn as nn
        class Huge(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(10**9)])
    """, "1,000,000,000 times"),
    ("""
        import torch.nn as nn
        class Spin(nn.Module):
            def __init__(self):
                super().__init__()
                while True:
                    pass
    """, "more than"),
    ("""
        import torch.nn as nn
        class Evil(nn.Module):
            def __init__(self):
                super().__init__()
                exec("self.fc = nn.Linear(2, 2)")
    """, "exec"),
    ("""
        import torch.nn as nn
        from mystery import *
        class Starry(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = make_layer(3)
    """, "import *"),
    ("""
        import torch.nn as nn
        class Big(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10 ** 10 ** 10, 2)
    """, "too large"),
    ("""
        import torch.nn as nn
        class Lazy(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.blocks = nn.Sequential(*[nn.Linear(4, 4) for _ in range(n)])
    """, "constructor argument `n`"),
    ("""
        import torch.nn as nn
        class Renamed(nn.Module):
            def __init__(self):
                super(OldName, self).__init__()
                self.fc = nn.Linear(4, 4)
    """, "`OldName` (line 5) raises NameError: name 'OldName' is not defined"),
    # Found by fuzzing (random token edits of the corpus): each crashed or hung before.
    ("""
        import torch
        import torch.nn as nn
        class Transformer(nn.Module):
            def __init__(self):
                super().__init__()
                self.t = nn.Transformer(d_model=8, nhead=2, num_decoder_layers=10**9)
    """, "num_decoder_layers is 1,000,000,000, more than the 10,000 layers"),
    ("""
        import torch
        import torch.nn as nn
        class Stack(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(4, 4, num_layers=10**6)
    """, "num_layers is 1,000,000, more than the 10,000 layers"),
    ("""
        import torch
        import torch.nn as nn
        class Endless(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.ModuleList([nn.Linear(2, 2) for _ in range(10**30)])
    """, "runs 1,000,000,000,000,000,000,000,000,000,000 times"),
    ("""
        import torch
        import torch.nn as nn
        class NoGroups(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(4, 4, 3, groups=0)
    """, "groups is 0; torch would raise"),
    ("""
        import torch
        import torch.nn as nn
        class Unpaired(nn.Module):
            def __init__(self):
                super().__init__()
                self.d = nn.ModuleDict([nn.Linear(2, 2)])
    """, "nn.ModuleDict takes (name, module) pairs"),
    ("""
        import torch
        import torch.nn as nn
        class PastTheEnd(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(range(3)[10], 3)
    """, "`range(3)[10]` raises IndexError"),
    ("""
        import torch
        import torch.nn as nn
        class Negative(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(-5, 3)
    """, "nn.Linear's `weight` would have the size [3, -5]: torch raises RuntimeError (Trying to create tensor "
        "with negative dimension -5)"),
    ("""
        import torch
        import torch.nn as nn
        class TooWide(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10**12, 2)
    """, "larger than any real model dimension"),
    ("""
        import torch
        import torch.nn as nn
        class TooMany(nn.Module):
            def __init__(self):
                super().__init__()
                self.p = nn.Parameter(torch.zeros(*([10**9] * 40)))
    """, "about 10^360 parameters is more than any model holds"),
    ("""
        import torch.nn as nn
        def checksum(n):
            total = 0
            for d in range(n):
                total += d % 7
            return total
        class Spinning(nn.Module):
            def __init__(self):
                super().__init__()
                width = sum(checksum(5000) for _ in range(1000)) % 64 + 1
                self.fc = nn.Linear(width, 2)
    """, "the analysis took more than 60,000 steps"),
])
def test_hostile_input_gives_a_reason_fast(src: str, reason: str) -> None:
    start = time.perf_counter()
    report = run(src)
    assert time.perf_counter() - start < 10  # a bound against hangs, not a performance test (see bench/)
    assert report.models == () or all(m.name not in lc101(report) for m in report.models)
    messages = " ".join(lc101(report).values())
    assert reason in messages, messages


def test_non_ascii_columns_are_code_points() -> None:
    report = run("""
        import torch.nn as nn
        class Ünïcode(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)  # é
    """)
    (model,) = report.models
    assert model.span.start == Position(2, 6) and model.span.end == Position(2, 13)


def test_execute_is_opt_in_and_counts_what_static_analysis_cannot(tmp_path) -> None:
    pytest.importorskip("torch")
    src = textwrap.dedent("""
        import torch.nn as nn
        class Dynamic(nn.Module):
            def __init__(self):
                super().__init__()
                layer = getattr(__import__("torch.nn", fromlist=["Linear"]), "Linear")
                self.fc = layer(3, 4)
                self.fc.bias.requires_grad = False
    """)
    path = tmp_path / "dyn.py"
    path.write_text(src)
    static = analyze_text(src, str(path), AnalyzeOptions())
    assert static.models == () and "Dynamic" in lc101(static)
    executed = analyze_text(src, str(path), AnalyzeOptions(execute=True, base_dir=str(tmp_path)))
    (model,) = executed.models
    assert (model.tree.total, model.tree.trainable) == (16, 12) and model.method == "executed (meta device)"


# An output dataclass beside the config class, as transformers' files have (two tests use it).
OUTPUT_AND_CONFIG = """
        import dataclasses
        import torch.nn as nn
        @dataclasses.dataclass
        class NetOutput:
            loss: float = 0.0
        @dataclasses.dataclass
        class NetConfig:
            width: int = 8
        class Net(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.proj = nn.Linear(config.width, config.width)
"""


def test_execute_builds_an_unannotated_config_from_the_files_config_class(tmp_path) -> None:
    # As the static analysis does: the class named a config, not the output dataclass beside it.
    pytest.importorskip("torch")
    src = textwrap.dedent(OUTPUT_AND_CONFIG + """
                self.other = eval("nn.Linear(2, 2)")
    """)
    path = tmp_path / "net.py"
    path.write_text(src)
    executed = analyze_text(src, str(path), AnalyzeOptions(execute=True, base_dir=str(tmp_path)))
    assert [(m.name, m.tree.total) for m in executed.models] == [("Net", 72 + 6)]


def test_loops_that_only_initialise_weights_are_skipped_and_others_run() -> None:
    import ast

    from lsp_count.pymodel.interp import only_initialises

    def loop(src: str) -> ast.For:
        return ast.parse(textwrap.dedent(src)).body[0]

    assert only_initialises(loop("""
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))
    """))
    assert only_initialises(loop("""
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.data.fill_(1.0)
    """))
    # A flag changed, a method with effects, a loop not over the model: run, not skipped.
    assert not only_initialises(loop("for p in self.parameters():\n    p.requires_grad = False"))
    assert not only_initialises(loop("for p in self.parameters():\n    p.requires_grad_(False)"))
    assert not only_initialises(loop("for i in range(3):\n    nn.init.zeros_(self.w)"))
    assert not only_initialises(loop("for m in self.modules():\n    nn.init.zeros_(m.weight, self.grow())"))
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(4, 4)
                self.b = nn.Linear(4, 2)
                for p in self.a.parameters():
                    nn.init.zeros_(p)
                for p in self.a.parameters():
                    p.requires_grad = False
    """), "m.py", AnalyzeOptions())
    (model,) = report.models
    assert (model.tree.total, model.tree.trainable) == (30, 10)


def test_a_builtin_failing_on_an_unresolved_value_says_so_in_the_users_words() -> None:
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self, plan):
                super().__init__()
                self.table = dict(plan.layout or {})
                self.fc = nn.Linear(4, 4)
    """), "m.py", AnalyzeOptions())
    (problem,) = [p for p in report.problems if p.code == "LC101"]
    # what the analyser does not know, not an error Python would raise
    assert problem.message.endswith("`dict(plan.layout or {})` depends on the constructor argument `plan` with no "
                                    "default"), problem.message
    assert "'Unknown'" not in problem.message and "raises" not in problem.message


def test_type_checking_blocks_do_not_run() -> None:
    report = run("""
        import typing
        from typing import TYPE_CHECKING
        import torch.nn as nn
        if TYPE_CHECKING:
            WIDTH = 1
        else:
            WIDTH = 4
        DEPTH = 1 if typing.TYPE_CHECKING else 2
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.ModuleList([nn.Linear(WIDTH, WIDTH) for _ in range(DEPTH)])
    """)
    assert [m.tree.total for m in report.models] == [40]


def test_a_problem_in_a_project_file_names_that_file(tmp_path) -> None:
    (tmp_path / "helpers.py").write_text("def make(n):\n    raise ValueError(n)\n")
    report = run("""
        import torch.nn as nn
        from helpers import make
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = make(3)
    """, str(tmp_path / "model.py"))
    assert "the code raises on line 2 of helpers.py: `ValueError(n)`" in lc101(report)["Net"]


def test_past_the_project_file_limit_a_name_is_unresolved_with_the_reason(tmp_path, monkeypatch) -> None:
    from lsp_count.pymodel import interp

    monkeypatch.setattr(interp, "MAX_PROJECT_FILES", 2)
    (tmp_path / "a.py").write_text("from b import WIDTH\n")
    (tmp_path / "b.py").write_text("from c import WIDTH\n")
    (tmp_path / "c.py").write_text("WIDTH = 8\n")
    src = """
        import torch.nn as nn
        from a import WIDTH
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(WIDTH, WIDTH)
    """
    report = run(src, str(tmp_path / "model.py"))
    assert "`c.WIDTH` is in one more project file than the 2 the analyser reads for one file" in lc101(report)["Net"]
    monkeypatch.setattr(interp, "MAX_PROJECT_FILES", 3)
    assert [m.tree.total for m in run(src, str(tmp_path / "model.py")).models] == [72]


def test_a_package_init_importing_its_own_submodule(tmp_path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import sizes\nfrom .sizes import WIDTH as W\n")
    (pkg / "sizes.py").write_text("WIDTH = 8\n")
    report = run("""
        import torch.nn as nn
        import pkg
        from pkg import sizes, W
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(sizes.WIDTH, W)
                self.b = nn.Linear(pkg.sizes.WIDTH, pkg.W)
    """, str(tmp_path / "model.py"))
    assert [m.tree.total for m in report.models] == [144]


def test_decorators_and_annotations_in_every_written_form() -> None:
    report = run("""
        import dataclasses
        import functools
        from typing import ClassVar
        import torch.nn as nn

        @dataclasses.dataclass(frozen=True)
        class Config:
            registry: ClassVar[dict] = {}
            width: int = 8

        class Net(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                self.a = nn.Linear(self.make(config.width), self.double)
                self.b = nn.Linear(Net.make(2), 2, bias=self.biased)
                self.c = nn.Linear(Config(4).width, 1)  # the dataclass's own __init__; ClassVar is no field

            @staticmethod
            def make(n):
                return n

            @functools.cached_property
            def double(self):
                return 16

            @property
            def biased(self):
                return False
    """)
    (model,) = report.models
    assert model.tree.total == 8 * 16 + 16 + 2 * 2 + 4 + 1


def test_an_import_kept_only_for_its_side_effect_is_not_read_and_the_class_says_why(tmp_path) -> None:
    # Python would run register.py at `import register`, filling the table; the analyser reads a
    # project file when a name from it is used, so the class is unresolved, with the reason, and
    # never counted with a made-up width.
    (tmp_path / "registry.py").write_text("TABLE = {}\n")
    (tmp_path / "register.py").write_text("import registry\nregistry.TABLE['width'] = 8\n")
    report = run("""
        import torch.nn as nn
        import register
        from registry import TABLE
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(TABLE['width'], 2)
    """, str(tmp_path / "model.py"))
    assert report.models == ()
    assert "`TABLE['width']` raises KeyError" in lc101(report)["Net"]


def test_a_base_class_hook_the_analyser_cannot_follow_leaves_its_subclasses_unresolved() -> None:
    # __init_subclass__ may change the class (transformers' configs are made dataclasses there);
    # where it cannot be followed, a class built from it says so instead of a count.
    report = run("""
        import torch.nn as nn
        import registry
        class Base:
            def __init_subclass__(cls, **kwargs):
                if registry.strict(cls):
                    cls.width = 8
        class Config(Base):
            width = 4
        class Model(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                self.proj = nn.Linear(config.width, config.width)
    """)
    assert report.models == ()
    assert ("creating `Config` runs `Base.__init_subclass__`, which the analyser cannot follow" in lc101(report)["Model"])


def test_issubclass_outside_the_project_is_unresolved_not_guessed() -> None:
    report = run("""
        import torch.nn as nn
        from somewhere import Mixin
        class Config(Mixin):
            width = 4
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                if issubclass(Config, nn.Module):
                    self.extra = nn.Linear(4, 4)
                self.proj = nn.Linear(Config.width, 2)
    """)
    assert "whether `Config` derives from `torch.nn.Module` is outside the file" in lc101(report)["Model"]


def test_a_buffer_and_a_layer_subclass_without_a_table_entry() -> None:
    report = run("""
        import torch
        import torch.nn as nn
        class Rotary(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.inv_freq = nn.Buffer(torch.zeros(dim // 2))
                self.scale = nn.Parameter(torch.ones(dim))
        class Odd(nn.Bilinear2000):
            pass
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.odd = Odd(3, 4)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Rotary", 8)]  # a buffer is not a parameter
    assert "`Odd` extends `nn.Bilinear2000`, which is not in the analyser's layer table" in lc101(report)["Model"]


def test_an_output_dataclass_is_not_taken_for_the_files_config() -> None:
    # transformers' files have @dataclass outputs beside their config: the class named a config
    # is the one an unannotated `config` argument is built from.
    report = run(OUTPUT_AND_CONFIG)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 72)]
    assert any("`NetConfig` is the file's only config class" in p.message for p in report.problems if p.code == "LC106")


def test_an_unannotated_config_is_the_config_class_the_file_imports(tmp_path) -> None:
    # transformers' modeling files define no config class: they import theirs.
    (tmp_path / "configuration_tiny.py").write_text(
        "import dataclasses\n@dataclasses.dataclass\nclass TinyConfig:\n    width: int = 8\n")
    report = run("""
        import torch.nn as nn
        from typing import TypedDict
        from .configuration_tiny import TinyConfig
        class TransformersKwargs(TypedDict):
            pass
        class MLP(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.up = nn.Linear(config.width, 2 * config.width)
    """, str(tmp_path / "modeling_tiny.py"))
    assert [(m.name, m.tree.total) for m in report.models] == [("MLP", 144)]
    assert any("`TinyConfig` is the file's only config class" in p.message for p in report.problems)


def test_classmethods_mappings_and_annotations() -> None:
    # A classmethod called on the instance or the class; a Mapping subclass's keys()/get()/in,
    # made from its __iter__ and __getitem__; a class's annotations read back.
    report = run("""
        import typing
        from collections.abc import Mapping
        import torch.nn as nn
        class Widths(Mapping):
            _table = {"small": 4, "large": 8}
            def __getitem__(self, key):
                return self._table[key]
            def __iter__(self):
                return iter(self._table)
            def __len__(self):
                return len(self._table)
        WIDTHS = Widths()
        class Net(nn.Module):
            depth: int
            WIDTH = 8
            @classmethod
            def width(cls, k=2):
                return cls.WIDTH * k
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(self.width(), Net.width(1))
                self.b = nn.Linear(WIDTHS.get("large"), len(list(WIDTHS.keys())))
                if "small" in WIDTHS and typing.get_type_hints(Net)["depth"] is int:
                    self.c = nn.Linear(WIDTHS["small"], 1)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 136 + 18 + 5)]


def test_a_property_setter_runs_and_a_read_only_property_cannot_be_set() -> None:
    report = run("""
        import torch.nn as nn
        class Cfg:
            def __init__(self):
                self._w = 4
                self.w = 8
            @property
            def w(self):
                return self._w
            @w.setter
            def w(self, value):
                self._w = 2 * value
            @property
            def fixed(self):
                return 3
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                c = Cfg()
                self.a = nn.Linear(c.w, c.fixed)
        class Bad(nn.Module):
            def __init__(self):
                super().__init__()
                c = Cfg()
                c.fixed = 5
                self.a = nn.Linear(c.w, c.fixed)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 16 * 3 + 3)]
    assert "sets `fixed`, a property of `Cfg` with no setter" in lc101(report)["Bad"]


def test_len_of_a_dict_subclass_a_mapping_and_a_class_with_its_own_len() -> None:
    report = run("""
        from collections import OrderedDict
        from collections.abc import Mapping
        import torch.nn as nn
        class Table(OrderedDict):
            pass
        class Three(Mapping):
            def __getitem__(self, key):
                return {"a": 1, "b": 2, "c": 3}[key]
            def __iter__(self):
                return iter({"a": 1, "b": 2, "c": 3})
            def __len__(self):
                return 3
        class Seven:
            def __len__(self):
                return 7
        TABLE = Table({"x": 1, "y": 2})
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(len(TABLE), len(Three()))
                self.b = nn.Linear(len(Seven()), 1)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 2 * 3 + 3 + 7 + 1)]


def test_a_lazy_package_an_absolute_import_of_its_own_package_and_import_module(tmp_path) -> None:
    # transformers' packages put a lazy module in their place; their TYPE_CHECKING block says
    # what it holds. Its files import the package by its own name, and load modules by string.
    models = tmp_path / "mylib" / "models"
    models.mkdir(parents=True)
    (tmp_path / "mylib" / "__init__.py").write_text("")
    (models / "__init__.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .old_sizes import *
            from .sizes import *
            from .tables import *
        else:
            import sys
            sys.modules[__name__] = object()
    """))
    (models / "sizes.py").write_text("WIDTH = 8\n_PRIVATE = 3\n")
    (models / "old_sizes.py").write_text("WIDTH = 4\n")  # imported first: the later `WIDTH` wins
    (models / "tables.py").write_text("import no_such_module\nRAISE = no_such_module.x[0]\n")  # never read
    (models / "registry.py").write_text(textwrap.dedent("""
        import importlib
        def width_of(name):
            module = importlib.import_module(f".{name}", "mylib.models")
            return getattr(module, "WIDTH") if hasattr(module, "WIDTH") else 0
    """))
    report = run("""
        import torch.nn as nn
        from mylib.models import WIDTH
        from .registry import width_of
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(WIDTH, width_of("sizes"))
        class Hidden(nn.Module):
            def __init__(self):
                super().__init__()
                from mylib.models import _PRIVATE
                self.a = nn.Linear(_PRIVATE, 1)
    """, str(models / "model.py"))
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 72)]
    assert "`_PRIVATE` is not defined in `mylib.models`" in lc101(report)["Hidden"]  # a star import skips _names
    from lsp_count.pymodel.reuse import PythonMemo

    memo = PythonMemo()
    analyze_text(textwrap.dedent("""
        import torch.nn as nn
        from mylib.models import WIDTH
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(WIDTH, 1)
    """), str(models / "model.py"), memo=memo)
    read = {os.path.basename(path) for path in memo.files}
    assert "sizes.py" in read and "tables.py" not in read  # a module that cannot define WIDTH is not read


def test_each_class_gets_its_own_default_config() -> None:
    # `Config()` for each class, as the note says: a constructor that changes its config does not
    # change the next class's count.
    report = run("""
        import dataclasses
        import torch.nn as nn
        @dataclasses.dataclass
        class Cfg:
            width: int = 8
        class First(nn.Module):
            def __init__(self, config: Cfg):
                super().__init__()
                config.width = 100
                self.a = nn.Linear(config.width, 1)
        class Second(nn.Module):
            def __init__(self, config: Cfg):
                super().__init__()
                self.a = nn.Linear(config.width, 1)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("First", 101), ("Second", 9)]


def test_a_name_a_lazy_package_exports_through_star_imports_of_its_subpackages(tmp_path) -> None:
    # transformers/__init__.py: `from .models import *`; models/__init__.py: `from .auto import *` among
    # 557 others; models/auto/__init__.py: `from .modeling_auto import *`, which defines AutoBackbone.
    # Only the subpackage under which a file defines the name is read, in Python's order.
    def lazy(path: pathlib.Path, *modules: str) -> None:
        path.mkdir(parents=True, exist_ok=True)
        imports = "".join(f"    from .{m} import *\n" for m in modules)
        (path / "__init__.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n" + imports +
                                          "else:\n    import sys\n    sys.modules[__name__] = object()\n")

    root = tmp_path / "mylib"
    lazy(root, "models")
    lazy(root / "models", "alpha", "blocks", "omega")
    lazy(root / "models" / "alpha", "modeling_alpha")
    (root / "models" / "alpha" / "modeling_alpha.py").write_text("WIDTH = 3\n")
    lazy(root / "models" / "blocks", "modeling_blocks")
    (root / "models" / "blocks" / "modeling_blocks.py").write_text(
        "import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Linear(4, 4)\n")
    lazy(root / "models" / "omega", "modeling_omega")
    (root / "models" / "omega" / "modeling_omega.py").write_text("import no_such_module\nx = no_such_module.y[0]\n")
    (root / "models" / "omega" / "notes.py").write_text("# mentions Block, defines nothing\n")
    (root / "utils.py").write_text("def build():\n    from mylib import Block\n    return Block()\n")
    report = run("""
        import torch.nn as nn
        from .utils import build
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = build()
    """, str(root / "model.py"))
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 20)], report.problems
    missing = run("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                from mylib import Nowhere
                self.block = Nowhere()
    """, str(root / "model.py"))
    assert "`Nowhere` is not defined in `mylib`" in lc101(missing)["Net"]


def test_a_package_search_reads_at_most_its_limit_of_files(tmp_path) -> None:
    from lsp_count.pymodel.interp import _files_defining

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text("Block = 1\n")
    (tmp_path / "notes.py").write_text("# Block\n")
    assert _files_defining(str(tmp_path), "Block") == tuple(str(tmp_path / f"{n}.py") for n in "abc")
    assert _files_defining(str(tmp_path), "Block", limit=2) == (str(tmp_path / "a.py"), str(tmp_path / "b.py"))


def test_a_formula_says_which_layer_argument_and_which_module_arguments_count_too() -> None:
    report = run("""
        import torch.nn as nn
        class PreNorm(nn.Module):
            def __init__(self, dim, fn):
                super().__init__()
                self.norm = nn.LayerNorm(dim)
                self.fn = fn
            def forward(self, x):
                return self.fn(self.norm(x))
        class SwiGLUFFN(nn.Module):
            def __init__(self, in_features=8):
                super().__init__()
                self.w12 = nn.Linear(in_features, self.hidden)
        class Loaded(nn.Module):
            def __init__(self, in_features=8):
                super().__init__()
                from model_helpers import HIDDEN
                self.w12 = nn.Linear(in_features, HIDDEN)
    """)
    messages = lc101(report)
    # The module passed as `fn` was left out of the formula without a word.
    assert messages["PreNorm"].endswith("parameters = 2·dim, and `fn` is the constructor argument `fn`, which has no "
                                        "default, and `PreNorm` uses it as a module (line 9 of model.py): the "
                                        "parameters of the module passed there count")
    # "out_features is unknown" read as the code's own variable; it is nn.Linear's argument.
    assert messages["Loaded"].endswith("cannot be counted exactly: nn.Linear's out_features is "
                                       "`model_helpers.HIDDEN`, not an integer")
    # An attribute a module of the code's classes never set is torch's AttributeError.
    assert messages["SwiGLUFFN"].endswith("`self.hidden` raises AttributeError: 'SwiGLUFFN' object has no "
                                          "attribute 'hidden'")


def test_a_condition_says_what_it_comes_down_to_once() -> None:
    report = run("""
        import torch.nn as nn
        class B(nn.Module):
            def __init__(self, inplanes, planes=4, stride=1):
                super().__init__()
                if stride > 1 or inplanes != planes * 4:
                    self.down = nn.Linear(2, 2)
    """)
    # It was "... depends on `stride > 1 or inplanes != planes * 4` depends on `inplanes != planes * 4`
    # depends on the constructor argument `inplanes` ...": the condition restated at each step.
    assert lc101(report)["B"].endswith("the condition `stride > 1 or inplanes != planes * 4` (line 6) depends on the "
                                       "constructor argument `inplanes` with no default")


def test_a_file_of_a_package_importing_the_package_gets_it_not_the_module_of_that_name(tmp_path) -> None:
    # lucidrains' layout: flamingo_pytorch/flamingo_pytorch.py beside flamingo_pytorch/__init__.py.
    pkg = tmp_path / "lucid_pytorch"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from lucid_pytorch.big import Big\n")
    (pkg / "big.py").write_text("import torch.nn as nn\nclass Big(nn.Module):\n    def __init__(self):\n"
                                "        super().__init__()\n        self.fc = nn.Linear(16, 16)\n")
    (pkg / "lucid_pytorch.py").write_text("import torch.nn as nn\nclass Big(nn.Module):\n    def __init__(self):\n"
                                          "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n")
    report = run("""
        import torch.nn as nn
        from lucid_pytorch import Big
        class UseBig(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = Big()
    """, str(pkg / "wrapper.py"))
    assert [m.tree.total for m in report.models] == [272]


@pytest.mark.parametrize("expression, reason", [
    # A fuzzing run found each of these taking the analysis' memory (a Sequential of 10**9 entries,
    # strings 10**9 wide) or minutes (factorial(10**7)): refused with the reason, at once.
    ("nn.Sequential(nn.Linear(2, 2)) * 10**9", "builds a Sequential of 1,000,000,000 entries"),
    ("(lambda s: s.__imul__(10**9))(nn.Sequential(nn.Linear(2, 2)))", "builds a Sequential of 1,000,000,000 entries"),
    ("'x'.ljust(10**9)", "a string formatted 1,000,000,000 characters wide"),
    ("'ab'.center(10**9, '-')", "a string formatted 1,000,000,000 characters wide"),
    ("'7'.zfill(10**9)", "a string formatted 1,000,000,000 characters wide"),
    ("'\\t'.expandtabs(10**9)", "a string formatted 1,000,000,000 characters wide"),
    ("'{:>1000000000}'.format(1)", "a string formatted 1,000,000,000 characters wide"),
    ("'{:>{w}}'.format(1, w=10**9)", "a string formatted 1,000,000,000 characters wide"),
    ("'%1000000000d' % 1", "a string formatted 1,000,000,000 characters wide"),
    ("'%*d' % (10**9, 1)", "a width given as an argument"),
    ("f'{1:>1000000000}'", "a string formatted 1,000,000,000 characters wide"),
    ("format(1, '>1000000000')", "a string formatted 1,000,000,000 characters wide"),
    ("math.factorial(10**7)", "is too large to be a size"),
    ("math.comb(10**9, 10**6)", "is too large to be a size"),
    ("math.perm(10**6, 5000)", "is too large to be a size"),
])
def test_what_would_take_the_memory_or_minutes_is_refused_with_its_reason(expression: str, reason: str) -> None:
    report = run(f"""
        import math
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 1 + len(str({expression})) % 2)
    """)
    assert not report.models and reason in lc101(report)["Net"], report.problems


@pytest.mark.parametrize("expression, size", [
    ("'x'.ljust(12)", 12), ("'{:>9}'.format(1)", 9), ("'%7d' % 1", 7), ("f'{1:>5}'", 5), ("'{:>{w}}'.format(1, w=6)", 6),
    ("'layer_1234567890:{}'.format(1)", 18),  # digits outside a field's spec are text, not a width
    ("str(math.factorial(20))", 19), ("str(math.comb(10**6, 2))", 12),
])
def test_small_widths_and_numbers_are_python_s(expression: str, size: int) -> None:
    assert len(eval(expression, {"math": __import__("math")})) == size  # noqa: S307 - the test's own expression
    report = run(f"""
        import math
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(len({expression}), 1, bias=False)
    """)
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", size)], report.problems


def test_a_python_builtin_the_analyser_does_not_model_is_not_a_name_error() -> None:
    report = run("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                data = bytes(4)
                self.fc = nn.Linear(2, 2)
                self.head = nn.Linear(2, len(memoryview(data)))
    """)
    message = lc101(report)["Net"]
    assert "`memoryview` is a Python builtin the analyser does not follow" in message and "NameError" not in message


def test_a_slice_write_with_a_bound_not_known_forgets_the_values_and_an_undefined_bound_is_a_name_error() -> None:
    # A fuzzing run found `levels[j + k:] = ...` of an unknown k an internal error (a TypeError of the
    # analyser's own), and `levels[yield1:] = ...` read as an annotated assignment binding `yield1`.
    source = """
        import numpy as np
        import torch.nn as nn
        from elsewhere import k
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                levels = np.array([1, 2, 4], dtype=int)
                levels[k:] = 3
                self.fc = nn.Linear(2, int(levels[2]))
        class Typo(nn.Module):
            def __init__(self):
                super().__init__()
                levels = np.array([1, 2, 4], dtype=int)
                levels[-2 + yield1:] = levels[-2]
                self.fc = nn.Linear(2, 2)
    """
    report = run(source)
    messages = lc101(report)
    assert "a bug in lsp-count" not in " ".join(p.message for p in report.problems)
    assert "out_features is unknown" in messages["Net"]  # the values after the write depend on k
    assert "`yield1` (line 15) raises NameError: name 'yield1' is not defined" in messages["Typo"]


def test_a_global_written_in_a_project_function_is_the_module_s(tmp_path) -> None:
    # A project file's function bodies are parsed at their first call; its `global` statement was
    # looked for before that, so the write went to a local and the cache was built at every call.
    from lsp_count.pymodel.loader import WHOLE_BELOW_LINES

    helpers = "".join(f"\n\ndef helper_{i}():\n    return {i}\n" for i in range(WHOLE_BELOW_LINES // 4))  # bodies cut
    (tmp_path / "tables.py").write_text(
        "CACHE = None\nBUILT = []\n\n\ndef table():\n    global CACHE\n    if CACHE is None:\n"
        "        BUILT.append(1)\n        CACHE = {'width': 8}\n    return CACHE\n" + helpers)
    model = tmp_path / "model.py"
    model.write_text(
        "import torch.nn as nn\nfrom tables import table, BUILT\n\n\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        a, b = table(), table()\n"
        "        self.fc = nn.Linear(a['width'], len(BUILT), bias=False)\n")
    report = analyze_text(model.read_text(), str(model), AnalyzeOptions(base_dir=str(tmp_path)))
    assert [(m.name, m.tree.total) for m in report.models] == [("Net", 8)], report.problems  # built once, as Python


def test_a_script_model_the_analyser_cannot_build_is_said_not_no_model_found() -> None:
    report = run("""
        from transformers import AutoTokenizer
        from peft import LoraConfig, get_peft_model
        from mystery import load_base

        tokenizer = AutoTokenizer.from_pretrained("openai-community/gpt2")
        base = load_base()
        model = get_peft_model(base, LoraConfig(r=8))
    """, path="train.py", read_packages=())
    assert report.models == ()
    assert set(lc101(report)) == {"model"}  # the tokenizer and the unknown loader's value are not models
    assert "`peft.get_peft_model` is outside this file" in lc101(report)["model"]
    assert not any(p.code == "LC002" for p in report.problems)
