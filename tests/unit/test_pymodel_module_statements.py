"""A module's own statements that the analyser cannot follow, and ``getattr`` on a class.

A module-level statement the analyser stops in may have changed the module's objects before it
stopped: what it writes or changes is not known after it (never the value from before, which
Python may have replaced). ``getattr(Cls, name)`` reads the class's attribute as ``Cls.name``
does (peft's ``getattr(PeftType, name.upper())``), compared with Python running the same file."""

from __future__ import annotations

import textwrap

import pytest

from lsp_count.core.analyze import analyze_text
from tests.parity.meta_count import file_class_counts

UNKNOWN = "from somewhere_unknown import make_key, make_value\n"


def analyse(src: str):
    report = analyze_text(textwrap.dedent(src), "model.py")
    return {m.name: m.tree.total for m in report.models}, {
        p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


def model(body: str) -> str:
    return f"""
import torch.nn as nn
{UNKNOWN}
{textwrap.dedent(body)}

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, WIDTH)
"""


@pytest.mark.parametrize("statements, reading", [
    # an item written under a key the analyser does not know may be any key
    ("SIZES = {'small': 8}\nSIZES[make_key()] = 16", "SIZES['small']"),
    ("SIZES = {'small': 8}\nfor k in make_key():\n    SIZES[k] = 16", "SIZES['small']"),
    # a block that may or may not have run
    ("SIZES = {'small': 8}\nif make_key():\n    SIZES['small'] = 16", "SIZES['small']"),
    ("WIDTHS = [8, 4]\nif make_key():\n    WIDTHS[0] = 16", "WIDTHS[0]"),
    ("WIDTHS = [8]\nif make_key():\n    WIDTHS.append(16)", "WIDTHS[-1]"),
    ("WIDTHS = {8}\nif make_key():\n    WIDTHS.clear()", "len(WIDTHS) + 1"),
    ("class Cfg:\n    width = 8\nif make_key():\n    Cfg.width = 16", "Cfg.width"),
    ("class Cfg:\n    pass\ncfg = Cfg()\ncfg.width = 8\nif make_key():\n    cfg.width = 16", "cfg.width"),
    ("SIZES = {'small': {'w': 8}}\nif make_key():\n    SIZES['small']['w'] = 16", "SIZES['small']['w']"),
])
def test_what_a_statement_not_followed_may_have_changed_is_not_counted_as_it_was(statements, reading) -> None:
    counts, problems = analyse(model(f"{statements}\nWIDTH = {reading}"))
    assert "M" not in counts, statements
    assert "is changed by code the analyser cannot follow" in problems["M"] or \
        "is set by code the analyser cannot follow" in problems["M"], problems["M"]
    assert "somewhere_unknown" in problems["M"]


def test_the_items_and_attributes_a_statement_does_not_write_keep_their_values() -> None:
    counts, _ = analyse(model("""
        SIZES = {'small': 8, 'large': 16}
        if make_key():
            SIZES['large'] = 32
        class Cfg:
            width = 3
            depth = 2
        if make_key():
            Cfg.depth = 4
        WIDTH = SIZES['small'] + Cfg.width
    """))
    assert counts == {"M": 2 * 11}


@pytest.mark.parametrize("expression", [
    'getattr(Kind, "WIDE").value',
    'getattr(Kind, "WIDE") is Kind.WIDE and 5 or 7',
    'TABLE[getattr(Kind, "NARROW")]',
    'TABLE[Kind.NARROW] + TABLE["WIDE"]',
    'getattr(Kind, "MISSING", 6)',
    'getattr(Sizes, "base") * getattr(Sizes, "scale")()',
    'getattr(Sizes, "absent", 3) + getattr(Sizes, Kind.WIDE, 2)',
    'len(getattr(Sizes, "__name__"))',
])
def test_getattr_of_a_class_reads_as_python_does(expression) -> None:
    text = f'''
import enum
import torch.nn as nn


class Kind(str, enum.Enum):
    NARROW = "NARROW"
    WIDE = "WIDE"


class Sizes:
    base = 4

    @classmethod
    def scale(cls):
        return cls.base // 2


TABLE = {{}}
TABLE[getattr(Kind, "NARROW")] = 3
TABLE[getattr(Kind, "WIDE")] = 4


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, {expression} if not isinstance({expression}, str) else 9)
'''
    want, got, messages = file_class_counts(text, "model.py", "M")
    assert want is not None and got == want, (expression, messages)


def test_a_version_attribute_whose_value_is_none_is_read() -> None:
    """packaging's ``Version("0.21.2").dev`` is None (peft's _is_dev_version): a value, not an
    attribute the analyser does not know."""
    text = '''
import packaging.version
import torch.nn as nn

RELEASE = packaging.version.Version("0.21.2")


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1, 3 if RELEASE.dev is None and RELEASE.pre is None else 5)
'''
    want, got, messages = file_class_counts(text, "model.py", "M")
    assert want == got == 6, messages


@pytest.mark.parametrize("statements, reading", [
    # a function the statement calls writes what it does not own
    ("SIZES = {'a': 2}\ndef setup():\n    if make_key():\n        SIZES['a'] = 5\nsetup()", "SIZES['a']"),
    ("W = 2\ndef setup():\n    global W\n    if make_key():\n        W = 5\nsetup()", "W"),
    ("SIZES = [2]\ndef inner():\n    if make_key():\n        SIZES.append(5)\ndef setup():\n    inner()\nsetup()", "SIZES[-1]"),
    # a method writes its object's attributes, a classmethod its class's
    ("class Reg:\n    def __init__(self):\n        self.sizes = {'a': 2}\n    def add(self, k):\n"
     "        self.sizes[k] = 5\nREG = Reg()\nREG.add(make_key())", "REG.sizes['a']"),
    ("class Cfg:\n    width = 2\n    @classmethod\n    def widen(cls):\n        if make_key():\n            cls.width = 5\n"
     "Cfg.widen()", "Cfg.width"),
    # making an object runs its __init__
    ("SIZES = {'a': 2}\nclass Setup:\n    def __init__(self):\n        if make_key():\n            SIZES['a'] = 5\n"
     "Setup()", "SIZES['a']"),
])
def test_what_the_functions_a_statement_calls_may_have_written_is_not_known(statements, reading) -> None:
    counts, problems = analyse(model(f"{statements}\nWIDTH = {reading}"))
    assert "M" not in counts, statements
    assert "is changed by code the analyser cannot follow" in problems["M"], problems["M"]


def test_a_function_writing_only_its_own_names_changes_nothing_of_the_module() -> None:
    counts, _ = analyse(model("""
        SIZES = {'a': 2}
        def setup(SIZES=None):
            table = {}
            table['a'] = 5
            if make_key():
                SIZES = {'a': 9}
            return table
        setup()
        WIDTH = SIZES['a']
    """))
    assert counts == {"M": 2 * 2}


def test_generic_aliases_in_annotations_do_not_stop_a_count_and_are_never_taken_for_their_class() -> None:
    """``tuple[torch.Tensor, ...]`` (PEP 585) in annotations and aliases: Python makes a generic
    alias, which is not the class (``list[int] is list`` is False); it raised TypeError here."""
    text = '''
import dataclasses
import torch
import torch.nn as nn

StateType = tuple[torch.Tensor, torch.Tensor, torch.Tensor]
Sizes = dict[str, list[int]]


def widths(sizes: list[int], extra: dict[str, tuple[int, ...]] | None = None) -> list[int]:
    return [s * 2 for s in sizes]


@dataclasses.dataclass
class Config:
    sizes: list[int] = dataclasses.field(default_factory=lambda: [3, 4])
    table: dict[str, int] = dataclasses.field(default_factory=dict)


class M(nn.Module):
    def __init__(self, config: Config = None):
        super().__init__()
        config = config or Config()
        self.layers = nn.ModuleList([nn.Linear(1, w) for w in widths(config.sizes)])
'''
    want, got, messages = file_class_counts(text, "model.py", "M")
    assert want == got == 2 * (6 + 8), messages
    counts, problems = analyse(text + "\n\nclass Q(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                      "        self.a = nn.Linear(1, 2 if StateType is tuple else 3)\n")
    assert "Q" not in counts and "the generic alias `tuple[torch.Tensor, torch.Tensor, torch.Tensor]`" in problems["Q"]


@pytest.mark.parametrize("statements, reading", [
    # a method adding to its object's container; a module-level torch container
    ("class Net:\n    def __init__(self):\n        self.sizes = [2]\n    def grow(self):\n        self.sizes.append(5)\n"
     "net = Net()\nfor _ in range(make_key()):\n    net.grow()", "net.sizes[-1]"),
    ("blocks = nn.ModuleList([nn.Linear(1, 1)])\nfor _ in range(make_key()):\n    blocks.append(nn.Linear(1, 1))",
     "len(blocks) + 1"),
    ("TABLE = {'a': [2]}\nif make_key():\n    TABLE['a'].append(5)", "TABLE['a'][-1]"),
])
def test_a_container_a_statement_not_followed_may_have_added_to_is_not_known(statements, reading) -> None:
    counts, problems = analyse(model(f"{statements}\nWIDTH = {reading}"))
    assert "M" not in counts, statements
    assert "is changed by code the analyser cannot follow" in problems["M"], problems["M"]
