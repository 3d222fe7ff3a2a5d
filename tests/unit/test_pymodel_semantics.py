"""Pieces of Python the analyser follows in constructors: the code's own exceptions (try/except),
a class looking at itself (type, __bases__, __module__, hasattr), regular expressions, the
module's own source, named_children / named_modules. Counts that torch would give are checked
in the corpus (tests/fixtures/pymodels/introspection.py); here, each rule and each refusal."""

from __future__ import annotations

import ast
import textwrap

import pytest
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import AnalyzeOptions, analyze_path, analyze_text
from lsp_count.pymodel.interp import _regex_work


def run(src: str, path: str = "model.py"):
    return analyze_text(textwrap.dedent(src), path, AnalyzeOptions())


def counts(report) -> dict[str, int]:
    return {m.name: m.tree.total for m in report.models}


def lc101(report) -> dict[str, str]:
    return {p.message.split("`")[1]: p.message for p in report.problems if p.code == "LC101"}


def _net(body: str, prelude: str = "") -> str:
    return "import torch.nn as nn\n" + textwrap.dedent(prelude) + "class Net(nn.Module):\n    def __init__(self):\n" \
        "        super().__init__()\n" + textwrap.indent(textwrap.dedent(body), "        ")


@pytest.mark.parametrize("body, width", [
    # The handler that names the class or a base of it runs; the others do not.
    ("try:\n    raise ValueError('x')\nexcept TypeError:\n    w = 1\nexcept ValueError:\n    w = 2\n", 2),
    ("try:\n    raise KeyError('x')\nexcept LookupError:\n    w = 3\n", 3),
    ("try:\n    raise KeyError\nexcept (TypeError, KeyError):\n    w = 4\n", 4),
    ("try:\n    raise ValueError('x')\nexcept:\n    w = 5\n", 5),
    ("try:\n    raise ValueError('x')\nexcept Exception as exc:\n    w = 6\n", 6),
    # else runs when nothing was raised; finally always, after the handler.
    ("try:\n    w = 1\nexcept ValueError:\n    w = 2\nelse:\n    w = 7\n", 7),
    ("try:\n    raise ValueError\nexcept ValueError:\n    w = 1\nfinally:\n    w = 8\n", 8),
    # A class of the project deriving from a Python exception; raised in a called function.
    ("try:\n    fail()\nexcept ValueError:\n    w = 9\n", 9),
    ("try:\n    fail()\nexcept Refused:\n    w = 10\n", 10),
    # A class of the project caught by a base of it that is a class of the project too.
    ("try:\n    raise Narrower\nexcept Refused:\n    w = 12\n", 12),
    # A bare raise in a handler raises what it caught, to the outer handler.
    ("try:\n    try:\n        raise Refused\n    except Refused:\n        raise\nexcept ValueError:\n    w = 11\n", 11),
])
def test_the_handler_that_matches_runs(body: str, width: int) -> None:
    prelude = """
        class Refused(ValueError):
            pass
        class Narrower(Refused):
            pass
        def fail():
            raise Refused("no")
    """
    report = run(_net(body + "self.proj = nn.Linear(w, 1)\n", prelude))
    assert counts(report) == {"Net": width + 1}, report.problems


def test_finally_runs_on_the_way_out_of_a_return() -> None:
    report = run("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = self.make()
            def make(self):
                try:
                    return nn.Linear(4, 4)
                finally:
                    self.extra = nn.Linear(2, 2)
    """)
    assert counts(report) == {"Net": 20 + 6}


@pytest.mark.parametrize("body, reason", [
    # No handler matches: the raise is the reason, as before handlers were followed.
    ("try:\n    raise ValueError('bad width')\nexcept KeyError:\n    pass\n", "the code raises on line 8: `ValueError('bad width')`"),
    # What the analyser cannot follow is not an exception of the code: `except Exception` does not
    # catch it (Python would have run the call and maybe taken no handler at all).
    ("try:\n    w = lib.unknown_helper()\nexcept Exception:\n    w = 3\n", "unknown_helper"),
    # A handler whose class the analyser does not know: which one runs is not known, even where a
    # later handler would match (the unknown class may be a base of the raised one).
    ("try:\n    raise ValueError\nexcept SomeLibraryError:\n    w = 3\n", "the code raises on line 8"),
    ("try:\n    raise ValueError\nexcept SomeLibraryError:\n    w = 3\nexcept ValueError:\n    w = 4\n",
     "the code raises on line 8"),
    # An exception class the analyser does not know: no handler is known to catch it.
    ("try:\n    raise lib.Error()\nexcept ValueError:\n    w = 3\n", "the code raises on line 8: `lib.Error()`"),
])
def test_what_no_handler_is_known_to_catch_stays_a_reason(body: str, reason: str) -> None:
    report = run(_net(body + "self.proj = nn.Linear(w, 1)\n", "import lib\nfrom lib import SomeLibraryError\n"))
    assert report.models == ()
    assert reason in lc101(report)["Net"]



@pytest.mark.parametrize("body, width", [
    # Python's own errors on Python's own values are the code's: its handlers catch them.
    ("try:\n    w = TABLE['large']\nexcept KeyError:\n    w = 2\n", 2),
    ("try:\n    w = [1] + (2,)\nexcept TypeError:\n    w = 3\n", 3),
    ("try:\n    w = 4 // 0\nexcept ZeroDivisionError:\n    w = 4\n", 4),
    ("try:\n    w = (1, 2)[5]\nexcept LookupError:\n    w = 5\n", 5),
    ("try:\n    w = -'a'\nexcept TypeError:\n    w = 6\n", 6),
    ("try:\n    w = dict(TABLE).pop('large')\nexcept KeyError:\n    w = 7\n", 7),
    ("try:\n    w = ['a', 'b'].index('c')\nexcept ValueError:\n    w = 8\n", 8),
    ("try:\n    w = int('eight')\nexcept ValueError:\n    w = 9\n", 9),
    ("t = [0]\ntry:\n    t[3] = 1\nexcept IndexError:\n    w = 10\n", 10),
    ("try:\n    w = 'abc'[7]\nexcept Exception:\n    w = 11\n", 11),
    ("try:\n    w = range(3)[4]\nexcept IndexError:\n    w = 12\n", 12),
    # A project class as a key compares by identity, as in Python.
    ("try:\n    w = {Net: 1}[Other]\nexcept KeyError:\n    w = 13\n", 13),
    # Nothing raised: the handler does not run.
    ("try:\n    w = TABLE['small']\nexcept KeyError:\n    w = 2\n", 14),
])
def test_python_errors_on_python_values_are_caught(body: str, width: int) -> None:
    prelude = """
        TABLE = {"small": 14}
        class Other:
            pass
    """
    report = run(_net(body + "self.proj = nn.Linear(w, 1)\n", prelude))
    assert counts(report) == {"Net": width + 1}, report.problems


@pytest.mark.parametrize("body, reason", [
    # On a value of the analyser's own (a module, a tensor) the error may be the analyser's alone:
    # no handler takes it, and it is the reason, with Python's words.
    ("try:\n    w = [nn.Linear(2, 2)] + (1,)\nexcept TypeError:\n    w = 3\n",
     "`[nn.Linear(2, 2)] + (1,)` raises TypeError: can only concatenate list"),
    ("try:\n    w = [nn.Linear(2, 2)][3]\nexcept IndexError:\n    w = 3\n", None),
    # An outside class as a key: the analyser knows it by the name it was imported under, and two
    # names may be one class, so a miss is not known to be Python's.
    ("try:\n    w = {nn.GELU: 2}[nn.ReLU]\nexcept KeyError:\n    w = 3\n", "raises KeyError"),
    # Uncaught, Python's error is the reason, with its message.
    ("w = [1] + (2,)\n", "`[1] + (2,)` raises TypeError: can only concatenate list (not \"tuple\") to list"),
    ("w = {'a': 1}['b']\n", "`{'a': 1}['b']` raises KeyError: 'b'"),
])
def test_errors_not_known_to_be_pythons_are_never_caught(body: str, reason: str | None) -> None:
    report = run(_net(body + "self.proj = nn.Linear(w, 1)\n"))
    if reason is None:  # a list of modules: an index past its end is Python's (the items take no part)
        assert counts(report) == {"Net": 4}, report.problems
        return
    assert report.models == ()
    assert reason in lc101(report)["Net"]



def test_a_missing_key_of_the_analysers_own_is_not_spelled_out() -> None:
    # A KeyError's text is its key's repr; for a value the analyser made (a function here) that
    # would be the analyser's insides, so the reason stops at the error's name.
    report = run(_net("w = {1: 2}[helper]\nself.proj = nn.Linear(w, 1)\n", "def helper():\n    return 1\n"))
    assert lc101(report)["Net"].endswith("`{1: 2}[helper]` raises KeyError")



def test_whether_a_value_is_pythons_is_decided_within_a_budget() -> None:
    from lsp_count.pymodel.interp import _MAX_CHECKED_ITEMS, _is_python_value

    assert _is_python_value([[1, 2], (3, "a"), {(1, "b"): object()}])
    assert not _is_python_value([object()])
    # Lists that share their items: 10**8 items in all, refused after the first _MAX_CHECKED_ITEMS.
    assert not _is_python_value([[0] * 10**4] * 10**4)
    assert _is_python_value([[0] * 10] * (_MAX_CHECKED_ITEMS // 11))



def test_a_class_decorator_of_the_file_runs_as_python_runs_it() -> None:
    report = run("""
        import torch.nn as nn
        import somelib

        def factory(cls):
            def make(*args, **kwargs):
                return cls(*args, **kwargs)
            return make

        def unknowable(cls):
            somelib.register(cls)  # not followed: the class stays as it is
            return cls

        @factory
        class Made(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

        @unknowable
        class Kept(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)

        class Uses(nn.Module):
            def __init__(self):
                super().__init__()
                self.made = Made()
    """)
    assert counts(report) == {"Kept": 12, "Uses": 6}
    assert lc101(report)["Made"].endswith("its decorators make `Made` a function, not a class")



def test_class_decorators_imported_from_the_project_run_but_documentation_ones_are_not_read(tmp_path) -> None:
    (tmp_path / "registry.py").write_text(textwrap.dedent("""
        TABLE = {}
        def register(name):
            def add(cls):
                TABLE[name] = cls
                return cls
            return add
    """))
    # A documentation decorator is never run, so its module is never read: this one does not even parse.
    (tmp_path / "docs.py").write_text("def auto_docstring(cls:\n")
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent("""
        import torch.nn as nn
        from registry import TABLE, register
        from docs import auto_docstring

        @auto_docstring
        @register("mlp")
        class Mlp(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

        @auto_docstring(custom_intro="Looks its block up.")
        class Net(nn.Module):
            def __init__(self, kind="mlp"):
                super().__init__()
                self.block = TABLE.get(kind, nn.Identity)(8)
    """))
    report = analyze_text(model.read_text(), str(model), AnalyzeOptions(base_dir=str(tmp_path)))
    assert counts(report) == {"Mlp": 72, "Net": 72}, report.problems
    assert not report.problems


@pytest.mark.parametrize("call, method", [
    ("self.heads.get('a')", "get"),  # ModuleDict has no get (ParameterDict has)
    ("self.plist.insert(0, nn.Parameter(torch.zeros(2)))", "insert"),  # ParameterList has no insert
    ("self.fc.compile()", "compile"),  # torch's, but not followed
])
def test_a_method_of_a_module_the_analyser_does_not_follow_makes_its_count_unknown(call: str, method: str) -> None:
    # The call may change the module's parts (a `pop` the analyser knew nothing of was ignored,
    # and the popped layer counted): the class is refused, saying which call.
    report = run(_net(f"""
        self.fc = nn.Linear(2, 2)
        self.heads = nn.ModuleDict({{"a": nn.Linear(2, 2)}})
        self.plist = nn.ParameterList([nn.Parameter(torch.zeros(3))])
        {call}
    """, "import torch\n"))
    assert report.models == ()
    assert f"calls `{method}`, a method of the module the analyser does not follow" in lc101(report)["Net"]


def test_a_method_a_torch_layer_lacks_is_torchs_attribute_error() -> None:
    assert lc101(run(_net("self.fc = nn.Linear(2, 2)\nself.fc.frobnicate()")))["Net"].endswith(
        "`self.fc.frobnicate` raises AttributeError: 'Linear' object has no attribute 'frobnicate'")



def test_a_method_a_class_of_the_file_lacks_is_pythons_attribute_error() -> None:
    # An abstract base calling what only its subclasses define (timm's _RotaryEmbeddingBase):
    # Python cannot build it; before, it was counted as if the call did nothing.
    report = run("""
        import torch.nn as nn
        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self._make_cache()
        class Net(Base):
            def _make_cache(self):
                self.cache = nn.Linear(2, 2)
    """)
    assert counts(report) == {"Net": 6}
    assert lc101(report)["Base"].endswith("`self._make_cache` raises AttributeError: 'Base' object has no attribute "
                                          "'_make_cache'")



def test_a_module_given_to_a_function_outside_the_project_has_an_unknown_count() -> None:
    # A library's `add_adapters(self.body)` may add layers: counting `body` as built would be a guess.
    report = run(_net("""
        self.body = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)
        peft_like.add_adapters(self.body, r=2)
        prune.l1_unstructured(self.head, "weight", amount=0.3)  # keeps the count: weight_orig, a mask buffer
    """, "import peft_like\nimport torch.nn.utils.prune as prune\n"))
    assert report.models == ()
    assert lc101(report)["Net"].endswith(
        "`body`: `peft_like.add_adapters(self.body, r=2)` passes it to `peft_like.add_adapters`, which is outside "
        "this file and torch.nn: the analyser does not follow what that does to the module's parts")
    assert counts(run(_net("self.head = nn.Linear(4, 1)\nprune.l1_unstructured(self.head, 'weight', amount=0.3)\n",
                           "import torch.nn.utils.prune as prune\n"))) == {"Net": 5}


def test_hooks_registered_on_a_module_leave_its_count() -> None:
    report = run(_net("""
        self.fc = nn.Linear(2, 2)
        self.fc.register_forward_hook(print)
        self._register_load_state_dict_pre_hook(print)
        self.register_state_dict_post_hook(print)
    """))
    assert counts(report) == {"Net": 6}



def test_a_batched_transpose_of_a_vector_is_torchs_error() -> None:
    report = run(_net("self.w = nn.Parameter(torch.zeros(4).mT)\n", "import torch\n"))
    assert "tensor.mT is only supported on matrices or batches of matrices (torch raises)" in lc101(report)["Net"]



def test_padding_a_size_the_analyser_holds_as_a_formula_gives_a_formula() -> None:
    # Found by the transformers sweep: F.pad of a tensor whose size is a constructor argument.
    report = run("""
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        class Net(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.w = nn.Parameter(F.pad(torch.zeros(n), (1, 2)))
    """)
    assert lc101(report)["Net"].endswith("parameters = n + 3")



def test_a_sequential_times_zero_is_torchs_error_and_delattr_is_del() -> None:
    report = run(_net("self.seq = nn.Sequential(nn.Linear(2, 2)) * 0\n"))
    assert "raises ValueError: Non-positive multiplication factor 0 for Sequential" in lc101(report)["Net"]
    report = run(_net("self.a = nn.Linear(2, 2)\nself.b = nn.Linear(3, 3)\ndelattr(self, 'b')\n"
                      "delattr(self.a, 'bias')\n"))
    assert counts(report) == {"Net": 4}



@pytest.mark.parametrize("index, reason", [
    ("[::'s']", "raises TypeError: slice indices must be integers or None or have an __index__ method"),
    ("[::0]", "raises ValueError: slice step cannot be zero"),
])
def test_a_slice_of_a_module_list_that_python_refuses_is_its_error(index: str, reason: str) -> None:
    # Found by fuzzing: the TypeError escaped the analysis of the class (an internal error).
    report = run(_net(f"layers = nn.ModuleList([nn.Linear(2, 2)])\nself.some = layers{index}\n"))
    assert lc101(report)["Net"].endswith(reason)



@pytest.mark.parametrize("loop, width", [
    # A while loop's else runs when the condition ends the loop (it was skipped), not after a break.
    ("n = 0\nwhile n < 3:\n    n += 1\nelse:\n    w = 7\n", 7),
    ("n = 0\nwhile n < 3:\n    n += 1\n    if n == 2:\n        break\nelse:\n    w = 7\n", 2),
])
def test_a_while_loops_else_runs_as_pythons(loop: str, width: int) -> None:
    report = run(_net("w = 2\n" + loop + "self.proj = nn.Linear(w, 1)\n"))
    assert counts(report) == {"Net": width + 1}, report.problems


def test_a_class_looks_at_itself() -> None:
    report = run("""
        import torch.nn as nn
        class Mixin:
            pass
        class Net(Mixin, nn.Module):
            def __init__(self):
                super().__init__()
                cls = type(self)
                assert cls.__name__ == "Net" and cls.__qualname__ == "Net"
                bases = str(cls.__bases__)
                self.a = nn.Linear(2 if "Mixin" in bases else 1, 1, bias=False)
                self.b = nn.Linear(3 if "<class 'model.Mixin'>" in bases else 1, 1, bias=False)
                self.c = nn.Linear(4 if cls.__module__ == "model" else 1, 1, bias=False)
                # nn.Module's own methods are there; transformers' generation hook is not.
                known = hasattr(cls, "named_parameters") and hasattr(self, "zero_grad")
                self.d = nn.Linear(5 if known and not hasattr(cls, "prepare_inputs_for_generation") else 1, 1, bias=False)
    """)
    assert counts(report) == {"Net": 2 + 3 + 4 + 5}, report.problems


def test_hasattr_through_a_base_the_analyser_does_not_know_stays_unknown() -> None:
    report = run(_net("self.proj = nn.Linear(2 if hasattr(Base, 'fuse') else 1, 1)\n",
                      "from somewhere import Thing\nclass Base(Thing):\n    pass\n"))
    assert "`fuse`, which `somewhere.Thing` (a base of `Base` the analyser does not read) may define" in \
        lc101(report)["Net"]


def test_hasattr_and_getattr_of_an_instance_whose_base_the_analyser_does_not_know_stay_unknown() -> None:
    # The base may define the attribute (a class attribute, a property): it was taken as absent,
    # and the module counted "exact" with the default.
    report = run("""
        import torch.nn as nn
        from somelib import Base, Options
        class Net(nn.Module, Base):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                if hasattr(self, "extra_dim"):
                    self.extra = nn.Linear(4, self.extra_dim)
        class Cfg(Options):
            pass
        class Wide(nn.Module):
            def __init__(self, cfg=Cfg()):
                super().__init__()
                self.fc = nn.Linear(4, getattr(cfg, "width", 8))
        class Known(nn.Linear):
            def __init__(self):
                super().__init__(4, 4)
                self.extra = nn.Linear(4, 2) if hasattr(self, "in_features") and not hasattr(self, "gain") else None
        class Plain(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, getattr(self, "width", 8))
    """)
    reasons = lc101(report)
    assert reasons["Net"].endswith("depends on `extra_dim`, which `somelib.Base` (a base of `Net` the analyser does "
                                   "not read) may define")
    assert reasons["Wide"].endswith("`getattr(cfg, 'width', 8)`: `width`, which `somelib.Options` (a base of `Cfg` "
                                    "the analyser does not read) may define")
    # torch's classes and nn.Module are known whole: what they lack is absent
    assert counts(report) == {"Known": 20 + 10, "Plain": 40}


def test_the_module_finds_itself_and_reads_its_own_source() -> None:
    # As the editor has it: the text being analysed, not the file on disk.
    src = _net("""
        import sys, inspect
        code = inspect.getsource(sys.modules.get(type(self).__module__))
        self.proj = nn.Linear(3 if "@use_kernel" in code else 1, 1, bias=False)
        missing = sys.modules.get("flash_attn")
        self.other = nn.Linear(2, 1, bias=False) if missing is None else None
    """, "# @use_kernel\n")
    report = run(src, path="/nonexistent/model.py")
    assert report.models == ()
    assert "whether `sys.modules` has `flash_attn` (a module this analysis did not read) is not known" in \
        lc101(report)["Net"]
    report = run(src.replace('missing = sys.modules.get("flash_attn")', "missing = None"), path="/nonexistent/model.py")
    assert counts(report) == {"Net": 3 + 2}


@pytest.mark.parametrize("call, expected", [
    ('re.findall(r"(Causal|Masked)LM", "LlamaForCausalLM")', ["Causal"]),
    ('re.sub(r"\\d+", "N", "layer12")', "layerN"),
    ('re.split(r"\\.", "a.b.c")', ["a", "b", "c"]),
    ('re.search(r"^[^/:]+/[^/:]+(?:@[^/:]+)?$", "org/kernel@v1").group(0)', "org/kernel@v1"),
    ('bool(re.match(r"sdpa|eager", "flash"))', False),
    ('re.escape("a.b")', "a\\.b"),
    ('re.findall("ab", "xABx", re.IGNORECASE)', ["AB"]),
])
def test_regular_expressions_on_known_strings(call: str, expected) -> None:
    src = f"""
        import re
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(2 if {call} == {expected!r} else 1, 1, bias=False)
    """
    assert counts(run(src)) == {"Net": 2}


@pytest.mark.parametrize("pattern, text, call", [
    (r"(a+)+$", "aaaa", "re.search(P, T)"),      # a repeated group: exponential on a near match
    (r"(a|ab)*c", "abab", "re.search(P, T)"),    # a repeated alternation
    (r"(\w)\1", "aa", "re.search(P, T)"),        # a backreference
    (r"\w*\w*\w*!", "a" * 300, "re.search(P, T)"),  # three repeats over 300 characters
    (r"\w*x", "a" * 5000, "re.search(P, T)"),    # one repeat over a long text
    (r"\w*x", "a" * 5000, "re.search(string=T, pattern=P)"),  # the text's length, whatever the order
])
def test_regular_expressions_that_could_take_long_are_not_run(pattern: str, text: str, call: str) -> None:
    call = call.replace("P", repr(pattern)).replace("T", repr(text))
    report = run(f"""
        import re
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(2 if {call} else 1, 1)
    """)
    assert "does not run this regular expression on this text (it could take very long)" in lc101(report)["Net"]


def test_regex_work_bounds_the_backtracking() -> None:
    from re import _parser

    def work(pattern: str, n: int):
        return _regex_work(_parser.parse(pattern), n)

    assert work("abc", 100) == 1
    assert work(r"\w*", 100) == 101
    assert work(r"\w*a\w+", 100) == 101 * 101
    assert work("(ab|cd|e)", 100) == 3
    assert work(r"x(?:@\w+)?", 10) == 1 + 11
    assert work(r"(a+)+", 10) is None and work(r"(\w)\1", 10) is None


def test_an_invalid_pattern_raises_as_python_does() -> None:
    body = "try:\n    found = re.findall('(', 'x')\nexcept {}:\n    found = [1]\nself.proj = nn.Linear(len(found), 1)\n"
    for handler in ("re.error", "Exception"):
        assert counts(run(_net(body.format(handler), "import re\n"))) == {"Net": 2}
    report = run(_net(body.format("KeyError"), "import re\n"))
    assert "`re.findall('(', 'x')` raises re.error: missing ), unterminated subpattern" in lc101(report)["Net"]


def test_named_children_and_named_modules_as_torch_lists_them() -> None:
    report = run("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
                self.dec = nn.Linear(4, 4)
                self.alias = self.dec
                children = [name for name, _ in self.named_children()]
                modules = [name for name, _ in self.named_modules()]
                prefixed = [name for name, _ in self.enc.named_modules(prefix="enc")]
                ok = (children == ["enc", "dec"] and modules == ["", "enc", "enc.0", "enc.1", "dec"]
                      and prefixed == ["enc", "enc.0", "enc.1"] and len(list(self.children())) == 2)
                self.flag = nn.Linear(3 if ok else 1, 1, bias=False)
    """)
    assert counts(report) == {"Net": 20 + 20 + 3}


def test_device_checks_see_the_meta_device() -> None:
    report = run(_net("""
        on_meta = torch.get_default_device() == torch.device("meta") != torch.device("cpu")
        self.proj = nn.Linear(2 if on_meta and torch.device("cuda:1").index == 1 else 1, 1, bias=False)
    """, "import torch\n"))
    assert counts(report) == {"Net": 2}


def test_a_lazy_package_gives_the_names_its_type_checking_block_imports(tmp_path) -> None:
    # transformers' packages: the else branch replaces the module with a lazy one through globals().
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    # The names it imports under `try: ... except ...: ... else:` are there too (transformers' generation
    # package: GenerationMixin, a base of each model that generates); the `else` ones win.
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .blocks import Block
            try:
                if not is_torch_available():
                    raise OptionalDependencyNotAvailable()
            except OptionalDependencyNotAvailable:
                from .dummies import Mixin
            else:
                from .mixins import Mixin
        else:
            import sys
            sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], {}, module_spec=__spec__)
    """))
    (pkg / "blocks.py").write_text("import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n"
                                   "        super().__init__()\n        self.proj = nn.Linear(3, 3)\n")
    (pkg / "mixins.py").write_text("class Mixin:\n    width = 5\n")
    (pkg / "dummies.py").write_text("class Mixin:\n    width = 7\n")
    model = tmp_path / "model.py"
    model.write_text("import torch.nn as nn\nfrom pkg import Block, Mixin\nclass Net(nn.Module, Mixin):\n"
                     "    def __init__(self):\n        super().__init__()\n        self.block = Block()\n"
                     "        self.head = nn.Linear(2, getattr(self, 'width', 1), bias=False)\n")
    report = analyze_text(model.read_text(), str(model), AnalyzeOptions(base_dir=str(tmp_path)))
    assert counts(report) == {"Net": 12 + 10}, report.problems


def test_validated_dataclass_fields_give_their_defaults(tmp_path) -> None:
    # huggingface_hub's validated fields, as transformers' configs use them.
    (tmp_path / "validators.py").write_text(textwrap.dedent("""
        from huggingface_hub.dataclasses import as_validated_field
        def interval(min=None, max=None):
            @as_validated_field
            def _inner(value):
                if not min <= value <= max:
                    raise ValueError(value)
            return _inner
        @as_validated_field
        def positive(value):
            if value <= 0:
                raise ValueError(value)
    """))
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent("""
        from dataclasses import dataclass, field
        import torch.nn as nn
        from huggingface_hub.dataclasses import validated_field
        from validators import interval, positive
        @dataclass
        class Config:
            hidden: int = positive(default=48)
            layers: int = interval(min=1, max=8)(default=3)
            heads: list = positive(default_factory=lambda: [1, 2])
            vocab: int = validated_field(positive, default=10)
        class Net(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                self.embed = nn.Embedding(config.vocab, config.hidden)
                self.layers = nn.ModuleList(nn.Linear(config.hidden, config.hidden) for _ in range(config.layers))
                self.heads = nn.Linear(len(config.heads), 1, bias=False)
    """))
    report = analyze_text(model.read_text(), str(model), AnalyzeOptions(base_dir=str(tmp_path)))
    assert counts(report) == {"Net": 10 * 48 + 3 * (48 * 48 + 48) + 2}, report.problems


def test_math_constants_are_numbers() -> None:
    report = run(_net("""
        import math, torch
        self.proj = nn.Linear(int(2 * math.pi) + int(torch.pi) + int(math.e) + int(math.tau), 1, bias=False)
    """))
    assert counts(report) == {"Net": 6 + 3 + 2 + 6}


def test_assigning_into_a_tensor_keeps_its_shape() -> None:
    report = run(_net("""
        inv_freq = torch.ones(8)
        inv_freq[inv_freq > 0.5] = 2.0
        self.weight = nn.Parameter(torch.zeros(4, 8))
        self.weight[0] = 1.0
        self.scale = nn.Parameter(inv_freq)
    """, "import torch\n"))
    assert counts(report) == {"Net": 32 + 8}


@pytest.mark.parametrize("body, reason", [
    # Values the analyser keeps change under it where it does not compute the change: not known any more.
    ("rates = torch.linspace(0, 1, 4)\nrates[rates > 0.5] = 0.5\nself.proj = nn.Linear(int(rates[1].item() * 8), 1)\n",
     "the tensor's values are not known to the analyser"),
    # A module put into a value the analyser does not know would be lost.
    ("table = helper()\ntable['a'] = nn.Linear(2, 2)\nself.heads = nn.Linear(1, 1)\n",
     "`table['a']` puts a module or parameter into a value the analyser does not know: `lib.helper` is outside"),
])
def test_assignments_the_analyser_cannot_follow_are_reasons(body: str, reason: str) -> None:
    report = run(_net(body, "import torch\nfrom lib import helper\n"))
    assert reason in lc101(report)["Net"]


def test_submodules_and_parameters_by_dotted_name() -> None:
    report = run(_net("""
        self.enc = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
        self.head = nn.Linear(2, 8)
        # Tying by name, as transformers' tie_weights does.
        setattr(self.get_submodule("head"), "weight", self.get_parameter("enc.0.weight"))
        try:
            self.get_submodule("enc.5")
        except AttributeError:
            self.missing = nn.Linear(1, 1, bias=False)
    """))
    assert counts(report) == {"Net": (32 + 8) + (16 + 2) + 8 + 1}
    # A submodule the analyser could not build is there in Python: not an AttributeError to catch.
    report = run(_net("""
        self.backbone = load_backbone()
        try:
            self.get_submodule("backbone.embed")
        except AttributeError:
            pass
        self.head = nn.Linear(2, 2)
    """, "from lib import load_backbone\n"))
    assert "`get_submodule('backbone.embed')`: `lib.load_backbone` is outside" in lc101(report)["Net"]


def test_isinstance_of_a_formula_says_why_it_is_unknown() -> None:
    report = run("""
        import torch.nn as nn
        class Options:
            pass
        class Net(nn.Module):
            def __init__(self, config):
                super().__init__()
                if not isinstance(config, Options):
                    raise TypeError("config")
                self.proj = nn.Linear(2, 2)
    """)
    assert "isinstance on an unresolved value: the constructor argument `config` with no default" in lc101(report)["Net"]


def test_a_dataclass_whose_init_a_base_replaces_runs_that_init() -> None:
    # transformers' PreTrainedConfig.__init_subclass__ wraps the dataclass __init__ so that keywords
    # that are not fields go to __post_init__ (wrap_init_to_accept_kwargs, with dataclasses.fields).
    report = run("""
        from dataclasses import MISSING, dataclass, fields
        from typing import dataclass_transform
        import torch.nn as nn

        def accept_kwargs(cls):
            def __init__(self, **kwargs):
                names = {f.name for f in fields(cls)}
                for f in fields(cls):
                    if f.name in kwargs:
                        setattr(self, f.name, kwargs[f.name])
                    elif f.default is not MISSING:
                        setattr(self, f.name, f.default)
                    elif f.default_factory is not MISSING:
                        setattr(self, f.name, f.default_factory())
                    else:
                        raise TypeError(f.name)
                self.__post_init__(**{k: v for k, v in kwargs.items() if k not in names})
            cls.__init__ = __init__
            return cls

        @dataclass_transform()
        class Base:
            def __init_subclass__(cls, **kwargs):
                cls = dataclass(cls)
                if "__init__" not in cls.__dict__:
                    cls = accept_kwargs(cls)

        class BackboneConfig(Base):
            hidden: int = 16
            widths: list = field(default_factory=lambda: [1, 2, 3])
            def __post_init__(self, out_indices=None):
                self.out_indices = out_indices or [0]

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                config = BackboneConfig(hidden=8, out_indices=[1, 2])
                self.proj = nn.Linear(config.hidden, len(config.out_indices) + len(config.widths), bias=False)
    """.replace("from dataclasses import MISSING, dataclass, fields", "from dataclasses import MISSING, dataclass, field, fields"))
    assert counts(report) == {"Net": 8 * 5}, report.problems


def test_a_union_of_classes_is_what_isinstance_takes() -> None:
    report = run("""
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self, depths=(2, 3), extra=None):
                super().__init__()
                n = len(depths) if isinstance(depths, list | tuple) else 1
                m = 2 if isinstance(extra, int | None) and not isinstance(3, str | None) else 0
                self.proj = nn.Linear(n + m, 1, bias=False)
    """)
    assert counts(report) == {"Net": 4}


def test_a_buffer_of_an_unknown_value_stays_unknown() -> None:
    # Found by the transformers sweep: a rotary embedding whose frequencies come from a module the
    # analyser cannot follow made a 0-d buffer, and a parameter zeros_like it was counted as 1.
    report = run(_net("""
        freqs = helper(64)
        self.inv_freq = nn.Buffer(freqs, persistent=False)
        self.register_buffer("cache", None)
        self.alpha = nn.Parameter(torch.zeros_like(self.inv_freq))
    """, "import torch\nfrom lib import helper\n"))
    assert report.models == ()
    assert ("`torch.zeros_like(self.inv_freq)`: the source tensor's shape is unknown (a buffer made from an "
            "unresolved value: `lib.helper` is outside") in lc101(report)["Net"]


def test_buffers_keep_their_shape_and_none_stays_none() -> None:
    report = run(_net("""
        self.register_buffer("mask", torch.ones(3, 4))
        self.register_buffer("cache", None)
        self.inv_freq = nn.Buffer(torch.arange(0, 8, 2))
        self.scale = nn.Parameter(torch.zeros_like(self.mask[0]))
        self.steps = nn.Linear(int(self.inv_freq[-1].item()) + (self.cache is None), 1, bias=False)
    """, "import torch\n"))
    assert counts(report) == {"Net": 4 + 7}


def test_layer_settings_are_read_off_copies_of_a_build_too() -> None:
    # The second Block is a copy of the first build (the build cache): its layers keep their settings.
    report = run("""
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 5)
                self.conv = nn.Conv2d(2, 2, 3, stride=2)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = Block(), Block()
                self.head = nn.Linear(self.b.fc.out_features + self.b.conv.stride[1], 1, bias=False)
    """)
    assert counts(report)["Net"] == 2 * (20 + 38) + 7


def test_a_build_that_ran_out_of_steps_late_is_built_again_from_fewer() -> None:
    # Failed builds are kept (the same code with the same arguments fails the same way), but one that
    # ran out of steps because its caller had spent most of them must not fail a build from scratch.
    report = run("""
        import torch.nn as nn
        class Big(nn.Module):
            def __init__(self):
                super().__init__()
                for i in range(100):
                    for j in range(250):
                        pass
                self.heavy = Heavy()
        class Heavy(nn.Module):
            def __init__(self):
                super().__init__()
                for i in range(100):
                    for j in range(100):
                        pass
                self.fc = nn.Linear(2, 2)
        class Twice(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = Broken()
        class Broken(nn.Module):
            def __init__(self):
                super().__init__()
                raise ValueError("unsupported")
    """)
    assert counts(report) == {"Heavy": 6}
    assert "took more than 60,000 steps" in lc101(report)["Big"]
    # A failure kept from the first build is raised again, with its reason, for the next class.
    assert "the code raises on line 24: `ValueError('unsupported')`" in lc101(report)["Twice"]
    assert "the code raises on line 24" in lc101(report)["Broken"]


def test_transformers_attribute_map_hooks_run_natively_and_as_written(monkeypatch) -> None:
    # The exact hooks of transformers' PreTrainedConfig are run without interpreting them; a hook
    # written differently is interpreted. Both map `n_experts` to `num_local_experts`.
    hooks = '''
    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)
'''
    src = '''
import torch.nn as nn
class Config:
    attribute_map = {"n_experts": "num_local_experts"}
    def __init__(self):
        self.n_experts = 4
        self.hidden = 8
HOOKS
class Net(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(config.hidden, config.hidden) for _ in range(config.num_local_experts))
        self.router = nn.Linear(config.hidden, config.n_experts, bias=False)
'''
    from lsp_count.pymodel import interp

    interpreted = []
    call_function = interp.Interpreter.call_function

    def counting(self, fn, *args, **kwargs):
        if fn.name in ("__getattribute__", "__setattr__"):
            interpreted.append(fn.name)
        return call_function(self, fn, *args, **kwargs)

    monkeypatch.setattr(interp.Interpreter, "call_function", counting)
    native = analyze_text(src.replace("HOOKS", textwrap.indent(textwrap.dedent(hooks), "    ")), "m.py", AnalyzeOptions())
    assert interpreted == []
    written = analyze_text(src.replace("HOOKS", textwrap.indent(textwrap.dedent(hooks).replace(
        "return super().__getattribute__(key)", "found = super().__getattribute__(key)\n    return found"), "    ")),
        "m.py", AnalyzeOptions())
    assert counts(native) == counts(written) == {"Net": 4 * 72 + 32}, (native.problems, written.problems)
    assert "__getattribute__" in interpreted and "__setattr__" not in interpreted


def test_a_failed_build_is_not_run_again(monkeypatch) -> None:
    from lsp_count.pymodel import interp

    runs = []
    call_function = interp.Interpreter.call_function

    def counting(self, fn, *args, **kwargs):
        if fn.name == "__init__" and fn.owner is not None and fn.owner.name == "Broken":
            runs.append(fn.owner.name)
        return call_function(self, fn, *args, **kwargs)

    monkeypatch.setattr(interp.Interpreter, "call_function", counting)
    report = run(_net("self.a = Broken()\nself.b = Broken()\n", """
        class Broken(nn.Module):
            def __init__(self):
                super().__init__()
                raise ValueError("unsupported")
    """))
    assert set(lc101(report)) == {"Net", "Broken"} and runs == ["Broken"]


def test_only_the_exact_transformers_hooks_are_run_natively() -> None:
    from lsp_count.pymodel.interp import FuncV, _known_hook

    def hook(source: str) -> str | None:
        node = ast.parse(textwrap.dedent(source)).body[0]
        return _known_hook(FuncV(node.name, node, None, [], [], ""))

    exact = '''
        def __getattribute__(self, key):
            if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
                # a comment and other spacing change nothing
                key = super().__getattribute__( "attribute_map" )[key]
            return super().__getattribute__(key)
    '''
    assert hook(exact) == "attribute_map_get"
    assert hook(exact.replace("return super().__getattribute__(key)", "return super().__getattribute__(key.lower())")) is None
    assert hook(exact.replace('key in super().__getattribute__("attribute_map")', 'key in super().__getattribute__("aliases")')) is None
    assert hook('''
        def __setattr__(self, key, value):
            if key in super().__getattribute__("attribute_map"):
                key = super().__getattribute__("attribute_map")[key]
            super().__setattr__(key, value)
    ''') == "attribute_map_set"


@pytest.mark.parametrize("table, reason", [
    ("{[1]: 2}", "the dict key `[1]` is a list, which Python cannot hash (TypeError)"),
    ("{k: 1 for k in [[1], [2]]}", "the dict key `k` is a list, which Python cannot hash (TypeError)"),
    ("{k: 1 for k in [helper()]}", "the dict key `k` depends on `lib.helper`, which is outside"),
])
def test_dict_keys_python_cannot_hash_or_the_analyser_does_not_know(table: str, reason: str) -> None:
    # Found by fuzzing: a list as a key of a dict comprehension crashed the analysis.
    report = run(_net(f"table = {table}\nself.proj = nn.Linear(len(table), 1)\n", "from lib import helper\n"))
    assert reason in lc101(report)["Net"]


def test_a_parameter_made_by_concatenating_tensors() -> None:
    # BLIP-2's vision attention: `qkv_bias = torch.cat((q_bias, torch.zeros_like(v_bias), v_bias))`.
    report = run(_net("""
        self.q_bias = nn.Parameter(torch.zeros(8))
        self.v_bias = nn.Parameter(torch.zeros(8))
        qkv_bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
        self.qkv = nn.Parameter(torch.stack([qkv_bias, qkv_bias], dim=1))
    """, "import torch\n"))
    assert counts(report) == {"Net": 8 + 8 + 24 * 2}


def test_a_layer_subclass_reads_its_settings_before_its_class_names() -> None:
    # torch's constructor sets `stride` on the instance: a class attribute of the subclass is shadowed.
    report = run("""
        import torch.nn as nn
        class StridedConv(nn.Conv2d):
            stride = 9
            in_channels = 7
            def __init__(self):
                super().__init__(2, 4, 3, stride=2)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = StridedConv()
                self.head = nn.Linear(self.conv.stride[0] + self.conv.in_channels, 1, bias=False)
    """)
    assert counts(report) == {"StridedConv": 76, "Net": 76 + 4}, report.problems


@pytest.mark.parametrize("body, prelude, reason", [
    # timm's helpers (counts checked against torch in tests/fixtures/pymodels/timm_style.py): what
    # the analyser does not know it says, rather than answer.
    ("self.fc = nn.Linear(2, 2 if '_pair' in dir(F) else 3)\n", "import torch.nn.functional as F\n",
     "whether `torch.nn.functional` has `_pair` is not known: the analyser knows its public names"),
    ("self.l = nn.ModuleList()\nself.fc = nn.Linear(2, 2 if isinstance(self.l, collections.abc.Iterable) else 3)\n",
     "import collections.abc\n",
     "isinstance(…, collections.abc.Iterable) of a ModuleList is not known to the analyser"),
    ("self.fc = nn.Linear(2, 2 if isinstance(3, collections.abc.Awaitable) else 3)\n", "import collections.abc\n",
     "isinstance(…, collections.abc.Awaitable) is not known to the analyser"),
    ("self.fc = nn.Linear(2, 2 if nn.ReLU in [helper(), nn.GELU] else 3)\n", "from elsewhere import helper\n",
     "`nn.ReLU in [helper(), nn.GELU]` depends on `elsewhere.helper`, which is outside this file"),
    ("self.fc = nn.Linear(2, len(tuple(repeat(1))))\n", "from itertools import repeat\n",
     "`repeat(1)` repeats without end"),
    ("self.fc = nn.Linear(2, 2 if isinstance(helper, type) else 3)\n", "from elsewhere import helper\n",
     "isinstance(`elsewhere.helper`, type): whether an outside name is a class is not known"),
    ("self.fc = nn.Linear(2, 2 if isinstance(3, len) else 3)\n", "", "isinstance with `len` is not known"),
    ("self.fc = nn.Linear(2, len(tuple(repeat(1, 10**9))))\n", "from itertools import repeat\n",
     "`repeat(1, 10 ** 9)` repeats 1,000,000,000 times, more than the analyser follows (10,000)"),
    ("rates = torch.linspace(0, 0.1, 5, device='cpu').split([2, 2])\nself.fc = nn.Linear(2, 2)\n", "import torch\n",
     "sizes summing to 4 split 5 values (torch raises)"),
])
def test_timm_helpers_refused_with_their_reason(body: str, prelude: str, reason: str) -> None:
    report = run(_net(body, prelude))
    assert reason in lc101(report)["Net"], lc101(report)


def test_round_of_a_formula_is_a_formula() -> None:
    src = "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self, dim):\n        super().__init__()\n" \
          "        self.fc = nn.Linear(2, round(dim * 0.25))\n"
    assert lc101(run(src))["Net"].endswith("parameters = 3·round(dim * 0.25)")


def test_slicing_a_tensor_of_negative_size_is_refused_not_a_crash() -> None:
    # Found by fuzzing: the slice's length came from range(), which raised ValueError.
    report = run(_net("x = torch.zeros(-2, 3)\nself.p = nn.Parameter(x[1:])\n", "import torch\n"))
    assert lc101(report)["Net"].endswith("`x[1:]`: a dimension of size -2 (torch raises)")


@pytest.mark.parametrize("body, prelude, reason", [
    # An enum member looked up by a value it does not have: ValueError, as Python raises.
    ("self.fc = nn.Linear(2, len(Fmt('XYZ').value))\n",
     "from enum import Enum\nclass Fmt(str, Enum):\n    NCHW = 'NCHW'\n",
     "`Fmt('XYZ')`: 'XYZ' is not a valid Fmt (ValueError)"),
    # A member whose value the analyser does not know cannot be matched.
    ("self.fc = nn.Linear(2, len(Fmt('A').value))\n",
     "from enum import Enum\nfrom lib import helper\nclass Fmt(str, Enum):\n    A = helper()\n    B = 'B'\n",
     "the value of `Fmt.A` is not known"),
    # A Flag's members combine with |: not followed as an Enum.
    ("self.fc = nn.Linear(2, 2 if Perm(1) is Perm.R else 3)\n",
     "import enum\nclass Perm(enum.Flag):\n    R = 1\n    W = 2\n", "`Perm` extends `enum.Flag`"),
    # An object of the code with no __call__ is not callable.
    ("self.fc = nn.Linear(2, Plain()(3))\n", "class Plain:\n    pass\n", "a `Plain` is not callable (TypeError)"),
])
def test_enums_and_called_objects_refused_with_their_reason(body: str, prelude: str, reason: str) -> None:
    report = run(_net(body, prelude))
    assert reason in lc101(report)["Net"], lc101(report)


def test_a_slice_with_a_step_of_zero_raises_as_python_does() -> None:
    # Found by fuzzing: ValueError from slicing a list escaped the analysis.
    report = run(_net("sizes = [1, 2, 3][::0]\nself.fc = nn.Linear(2, len(sizes))\n"))
    assert lc101(report)["Net"].endswith("`[1, 2, 3][::0]` raises ValueError: slice step cannot be zero")


def test_an_argument_too_big_to_key_a_build_is_not_spelled_out() -> None:
    # Found by fuzzing: a class that built itself with `[x] * n` of what it was given spent 10 s
    # spelling out nested lists that share their items (10^7 of them here) to key the build cache.
    from lsp_count.pymodel.interp import _MISSING, _arg_key

    shared: list = [1] * 10
    for _ in range(6):
        shared = [shared] * 10
    assert _arg_key(shared, []) is _MISSING
    assert _arg_key([[1, 2], (3, "a")], []) == ("seq", (("seq", ((int, 1), (int, 2))), ("seq", ((int, 3), (str, "a")))))


def test_a_class_that_builds_itself_with_growing_lists_stops_at_the_call_depth() -> None:
    report = run("""
        import torch.nn as nn

        class UNetish(nn.Module):
            def __init__(self, dim=32, dim_mults=(1, 2, 4)):
                super().__init__()
                dims = [dim, *map(lambda m: dim * m, dim_mults)]
                in_out = type(self)(list(zip(dims[:-1], dims[1:])))
    """)
    assert "classes build each other without end (UNetish → UNetish" in lc101(report)["UNetish"]


def test_finfo_of_a_dtype_the_analyser_does_not_know_says_so() -> None:
    report = run(_net("self.fc = nn.Linear(2, torch.finfo(torch.int8).bits)\n", "import torch\n"))
    assert lc101(report)["Net"].endswith("`torch.finfo(torch.int8)`: not a floating point dtype the analyser knows "
                                         "(TypeError)")


@pytest.mark.parametrize("prelude, index, reason", [
    # A dataclass config has attributes, not items: Python raises TypeError (it was read as its
    # attribute, and the class counted).
    ("import dataclasses\n@dataclasses.dataclass\nclass Cfg:\n    width: int = 8\n", 'Cfg()["width"]',
     "a `Cfg` is not subscriptable (TypeError)"),
    ("class Cfg(object):\n    width = 8\n", 'Cfg()["width"]', "a `Cfg` is not subscriptable (TypeError)"),
    # A base the analyser does not read may have items.
    ("import argparse\nclass Cfg(argparse.Namespace):\n    width: int = 8\n", "Cfg()[0]",
     "whether `argparse.Namespace`, a base of `Cfg`, supports indexing is outside the file"),
    ("def make_base(n):\n    return [object][n]\nclass Cfg(make_base(3)):\n    width = 8\n", 'Cfg()["width"]',
     "whether a base the analyser could not resolve, a base of `Cfg`, supports indexing is outside the file"),
])
def test_a_plain_object_of_the_code_is_not_indexed_as_its_attributes(prelude: str, index: str, reason: str) -> None:
    report = run(_net(f"self.fc = nn.Linear({index}, 2)\n", prelude))
    assert lc101(report)["Net"].endswith(reason)


def test_a_plain_object_with_getitem_or_dict_items_is_indexed_by_them() -> None:
    report = run(_net("self.fc = nn.Linear(Table()['width'] + Items(width=3)['width'], 2)\n", """
        class Table:
            def __getitem__(self, key):
                return len(key)
        class Items(dict):
            pass
    """))
    assert counts(report) == {"Net": (5 + 3) * 2 + 2}


def test_asdict_and_astuple_copy_what_the_fields_hold() -> None:
    # As Python: nested dataclasses are converted, lists rebuilt, any other object deep-copied, so
    # changing the result leaves the config as it was.
    report = run(_net("""
        cfg = Cfg()
        values = dataclasses.asdict(cfg)
        values["opts"].width = 9
        values["inner"]["depth"] = 7
        values["sizes"].append(5)
        opts, inner, sizes = dataclasses.astuple(cfg)
        self.fc = nn.Linear(cfg.opts.width + cfg.inner.depth + len(cfg.sizes), values["opts"].width)
        self.more = nn.Linear(values["inner"]["depth"] + len(values["sizes"]), inner[0] + opts.width + len(sizes))
    """, """
        import dataclasses
        class Opts:
            def __init__(self):
                self.width = 4
        @dataclasses.dataclass
        class Inner:
            depth: int = 2
        @dataclasses.dataclass
        class Cfg:
            opts: Opts = dataclasses.field(default_factory=Opts)
            inner: Inner = dataclasses.field(default_factory=Inner)
            sizes: list = dataclasses.field(default_factory=lambda: [1, 2])
    """))
    assert counts(report) == {"Net": (4 + 2 + 2) * 9 + 9 + (7 + 3) * (2 + 4 + 2) + (2 + 4 + 2)}


def test_asdict_of_what_is_no_dataclass_is_a_type_error() -> None:
    report = run(_net("self.fc = nn.Linear(len(dataclasses.asdict(Opts())), 2)\n",
                      "import dataclasses\nclass Opts:\n    pass\n"))
    assert lc101(report)["Net"].endswith("asdict() takes a dataclass instance (TypeError)")


def test_environment_variables_are_taken_as_unset_and_noted() -> None:
    # A count must not depend on the shell the analysis runs in: every variable is unset, as in a
    # shell without it; the class (or the file, for a read at import) says which it read.
    report = run("""
        import os
        from os import environ, getenv
        import torch.nn as nn

        WIDE = os.environ.get("LSPC_WIDE", "false").lower() == "true"

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 3 if WIDE else 4)
                self.g = nn.Linear(int(getenv("LSPC_WIDTH", "5")), 1)
                self.h = nn.Linear(6 if "LSPC_X" in os.environ else 7, 1)
                self.i = nn.Linear(environ.get("LSPC_Y") or 8, int(os.getenv("LSPC_WIDTH", default=1)))

        class Keyed(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(int(os.environ["LSPC_DIM"]), 3)
    """)
    assert counts(report) == {"Net": (2 * 4 + 4) + (5 + 1) + (7 + 1) + (8 + 1)}
    notes = [p for p in report.problems if p.code == "LC106"]
    assert [p.message for p in notes] == [
        "the file's code at import: counted with the environment variable `LSPC_WIDE` (line 6) unset",
        "`Net`: counted with the environment variables `LSPC_WIDTH` (line 12), `LSPC_X` (line 13), `LSPC_Y` (line "
        "14) unset"]
    assert notes[0].span is not None and notes[0].span.start.line == 5
    assert lc101(report)["Keyed"].endswith("`os.environ['LSPC_DIM']`: the analysis takes `LSPC_DIM` as unset (KeyError)")


def test_an_environment_variable_whose_name_is_not_known_is_unresolved() -> None:
    report = run("""
        import os
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, key: str):
                super().__init__()
                self.fc = nn.Linear(int(os.environ.get(key, 2)), 2)
    """)
    assert lc101(report)["Net"].endswith("`os.environ.get(key, 2)`: the environment variable's name is not known")


def test_what_a_library_reads_at_import_is_not_noted_what_a_build_reads_is(tmp_path) -> None:
    # transformers' logging reads TRANSFORMERS_VERBOSITY when a model file makes its logger: not
    # the model's business. A helper that reads a variable while a class is built is.
    (tmp_path / "lib.py").write_text(textwrap.dedent("""
        import os
        VERBOSE = os.environ.get("LIB_VERBOSE")

        def get_logger():
            return os.getenv("LIB_LEVEL", "info")

        def width():
            return int(os.environ.get("LIB_WIDTH", 4))
    """))
    src = textwrap.dedent("""
        import torch.nn as nn
        from lib import get_logger, width

        logger = get_logger()

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(width(), 2)
    """)
    report = analyze_text(src, str(tmp_path / "model.py"), AnalyzeOptions())
    assert counts(report) == {"Net": 4 * 2 + 2}
    assert [p.message for p in report.problems if p.code == "LC106"] == [
        "`Net`: counted with the environment variable `LIB_WIDTH` (line 9 of lib.py) unset"]


def test_generators_run_to_their_end_and_are_consumed_as_iterators() -> None:
    report = run(_net("""
        it = squares(4)
        first = next(it)
        rest = list(it)
        self.fc = nn.Linear(first + len(rest) + sum(squares(3)), next(iter([]), 7))
        self.more = nn.Linear(len(list(chain([1, 2], (x for x in [3])))), next(self.fc.parameters()).shape[0])
    """, """
        def squares(n):
            for i in range(1, n + 1):
                yield i * i
        def chain(*parts):
            for part in parts:
                yield from part
    """))
    # first 1, rest [4, 9, 16], 1 + 4 + 9 = 14: Linear(1 + 3 + 14, 7); Linear(3, 7)
    assert counts(report) == {"Net": 18 * 7 + 7 + 3 * 7 + 7}


@pytest.mark.parametrize("call, reason", [
    ("next([1, 2])", "`next` of a list, which is not an iterator (TypeError)"),
    ("next(iter([]))", "`next` of an exhausted iterator (StopIteration)"),
])
def test_next_raises_as_python_does(call: str, reason: str) -> None:
    report = run(_net(f"self.fc = nn.Linear({call}, 2)\n"))
    assert lc101(report)["Net"].endswith(reason)


def test_a_generator_context_manager_runs_the_with_body_at_its_yield() -> None:
    report = run(_net("""
        with scaled(3) as factor:
            self.a = nn.Linear(2, STATE["width"] * factor)
        self.b = nn.Linear(2, STATE["width"])
        try:
            with scaled(5):
                raise ValueError("inside")
        except ValueError:
            self.c = nn.Linear(STATE["width"], 1)  # the generator's finally restored it
        self.d = nn.Linear(1, first_width())
    """, """
        from contextlib import contextmanager
        STATE = {"width": 4}
        @contextmanager
        def scaled(k):
            saved = STATE["width"]
            STATE["width"] = saved * k
            try:
                yield 2
            finally:
                STATE["width"] = saved
        def first_width():
            with scaled(10):
                return STATE["width"]  # the exit code runs on the way out of the return
    """))
    # a: Linear(2, 12 * 2); b: Linear(2, 4); c: Linear(4, 1); d: Linear(1, 40)
    assert counts(report) == {"Net": (2 * 24 + 24) + (2 * 4 + 4) + (4 + 1) + (40 + 40)}


@pytest.mark.parametrize("body, reason", [
    ("if False:\n    yield", "the generator didn't yield (RuntimeError)"),
    ("yield\nyield", "the generator didn't stop (RuntimeError)"),
])
def test_a_generator_context_manager_that_python_refuses_is_explained(body: str, reason: str) -> None:
    prelude = "from contextlib import contextmanager\n@contextmanager\ndef cm():\n" + textwrap.indent(body, "    ") + "\n"
    report = run(_net("with cm():\n    self.fc = nn.Linear(2, 2)\n", prelude))
    assert lc101(report)["Net"].endswith(reason)


def test_the_projects_decorators_apply_to_module_level_functions_others_leave_them() -> None:
    report = run(_net("self.fc = nn.Linear(len(REGISTRY) + double(3) + cached(2), len(REGISTRY['wrapper'].__name__))\n",
                      """
        import functools
        REGISTRY = {}
        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn
        def twice(fn):
            def wrapper(x):
                return fn(x) * 2
            return wrapper
        @register
        @twice
        def double(x):
            return x
        @functools.lru_cache(maxsize=None)
        def cached(x):
            return x + 1
    """))
    # Innermost first: `register` gets twice's wrapper, so the registry keys it "wrapper"; an outside
    # decorator (lru_cache) leaves the function as it is.
    assert counts(report) == {"Net": (1 + 6 + 3) * 7 + 7}


@pytest.mark.parametrize("body, reason", [
    # Python raises AssertionError: torch would not build the class, so it has no count.
    ("dim, heads = 100, 3\nassert dim % heads == 0, 'dim must divide by heads'\nself.q = nn.Linear(dim, dim)\n",
     "the assertion on line 6 fails: `dim % heads == 0` (dim must divide by heads)"),
    ("assert False\nself.q = nn.Linear(4, 4)\n", "the assertion on line 5 fails: `False`"),
    ("blocks = []\nassert blocks, f'{len(blocks)} blocks'\n", "fails: `blocks` (0 blocks)"),
])
def test_an_assertion_that_fails_stops_the_class_as_python_does(body: str, reason: str) -> None:
    found = lc101(run(_net(body)))
    assert reason in found["Net"]


@pytest.mark.parametrize("body, width", [
    ("dim, heads = 96, 3\nassert dim % heads == 0\nw = dim\n", 96),
    # An assertion the analyser cannot decide only checks: it is taken as passing.
    ("assert torch.cuda.is_available() or True\nw = 5\n", 5),
    ("assert undecidable(), 'needs a GPU'\nw = 6\n", 6),
    # The assertion's own exception is caught as Python catches it.
    ("try:\n    assert 1 > 2\n    w = 1\nexcept AssertionError:\n    w = 7\n", 7),
    ("try:\n    assert 1 > 2\n    w = 1\nexcept Exception:\n    w = 8\n", 8),
])
def test_an_assertion_that_holds_or_cannot_be_decided_lets_the_build_go_on(body: str, width: int) -> None:
    prelude = "import torch\nfrom elsewhere import undecidable\n"
    report = run(_net(body + "self.proj = nn.Linear(w, 1, bias=False)\n", prelude))
    assert counts(report) == {"Net": width}, report.problems


def test_an_assertion_on_a_constructor_argument_without_default_is_not_known_to_fail() -> None:
    # isinstance of the unknown argument is False of the unknown, not of what a caller passes.
    report = run("""
        import torch.nn as nn
        class Embed(nn.Module):
            def __init__(self, backbone, size, dim=8):
                super().__init__()
                assert isinstance(backbone, nn.Module), 'backbone must be a module'
                assert isinstance(size, tuple) and len(size) == 2
                self.proj = nn.Linear(dim, dim)
    """)
    assert counts(report) == {"Embed": 72}, report.problems


@pytest.mark.parametrize("bases, width", [
    # Python's MRO (C3), not a breadth-first walk: D, B, A, C, E when A and C are unrelated.
    ("class A:\n    width = 2\nclass B(A):\n    pass\nclass C:\n    width = 3\nclass D(B, C):\n    pass\n", 2),
    # A diamond: the shared base after both of its subclasses.
    ("class A:\n    width = 2\nclass B(A):\n    pass\nclass C(A):\n    width = 3\nclass D(B, C):\n    pass\n", 3),
])
def test_class_attributes_are_found_in_pythons_method_resolution_order(bases: str, width: int) -> None:
    report = run(_net("w = D.width\nself.proj = nn.Linear(w, 1, bias=False)\n", bases))
    assert counts(report) == {"Net": width}, report.problems


def test_super_in_a_mixin_reaches_the_next_class_of_the_instance() -> None:
    # transformers' GenericForTokenClassification: a mixin with no base of its own calls
    # super().__init__(config), which is the model's PreTrainedModel.__init__ where it is mixed in.
    report = run("""
        import torch.nn as nn
        class Head:
            def __init__(self, width):
                super().__init__(width)
                self.head = nn.Linear(width, 2)
        class Base(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.width = width
                self.body = nn.Linear(width, width)
        class Net(Head, Base):
            def __init__(self):
                super().__init__(4)
                self.out = nn.Linear(self.width, 1)
    """)
    assert counts(report)["Net"] == (4 * 2 + 2) + (4 * 4 + 4) + (4 + 1), report.problems


def test_an_ordered_dict_takes_attributes_a_dict_does_not() -> None:
    prelude = "from collections import OrderedDict\n"
    report = run(_net("table = OrderedDict([('a', 1)])\ntable.width = 6\nself.proj = nn.Linear(table.width, 1)\n",
                      prelude))
    assert counts(report) == {"Net": 7}, report.problems
    refused = lc101(run(_net("table = dict(a=1)\ntable.width = 6\nself.proj = nn.Linear(table.width, 1)\n")))
    assert "cannot set `width` on dict" in refused["Net"]


@pytest.mark.parametrize("expression, width", [
    ("int({1, 2}.isdisjoint({3}))", 1), ("int({1}.issubset([1, 2]))", 1), ("int({1, 2}.issuperset({3}))", 0),
    ("len({1, 2}.symmetric_difference({2, 3}))", 2), ("len(frozenset([1, 2]).union({3}))", 3),
    ("int(isinstance(frozenset([1]), frozenset)) + int(isinstance({1}, frozenset))", 1),
])
def test_set_methods_answer_as_python_does(expression: str, width: int) -> None:
    # transformers' configs check their RoPE parameters with set(...).isdisjoint(...).
    report = run(_net(f"w = {expression} + 1\nself.proj = nn.Linear(w, 1, bias=False)\n"))
    assert counts(report) == {"Net": width + 1}, report.problems


def _child_names(report, model: str, attr: str) -> list[str]:
    node = next(m for m in report.models if m.name == model).tree.root
    child = next(c for c in node.children if c.name == attr)
    return [c.name for c in child.children]


def test_del_numbers_what_is_left_of_a_module_list_from_zero_as_torch_does() -> None:
    report = run(_net("self.blocks = nn.ModuleList([nn.Linear(2, 2 + i) for i in range(4)])\ndel self.blocks[0]\n"))
    assert counts(report) == {"Net": 3 * 2 * 2 + 3 + 4 + 5 + 3 + 4 + 5}, report.problems
    assert _child_names(report, "Net", "blocks") == ["0", "1", "2"]


@pytest.mark.parametrize("body, reason", [
    ("table = {'a': 1}\ndel table['b']\n", "raises KeyError"),
    ("items = [1]\ndel items[3]\n", "raises IndexError"),
    ("self.heads = nn.ModuleDict({'a': nn.Linear(1, 1)})\ndel self.heads['b']\n", "no key 'b' (KeyError)"),
    ("del self.blocks[self.unknown_index]\n", "has no attribute 'unknown_index'"),  # never set: AttributeError
    ("items = [1]\ndel items[n]\n", "depends on"),
    ("del (1).real\n", "is not followed"),
])
def test_a_del_that_python_would_refuse_or_that_is_not_known_stops_the_count(body: str, reason: str) -> None:
    prelude = "import os\nn = int(os.environ['N'])\n"
    src = _net("self.blocks = nn.ModuleList([nn.Linear(1, 1)])\n" + body + "self.out = nn.Linear(2, 2)\n", prelude)
    refused = lc101(run(src))
    assert reason in refused.get("Net", ""), refused


@pytest.mark.parametrize("body, width", [
    # Python's in-place operators change the object every name holding it sees.
    ("a = [1]\nb = a\nb += [2, 3]\nw = len(a)\n", 3),
    ("a = {'x': 1}\nb = a\nb |= {'y': 2}\nw = len(a)\n", 2),
    ("a = {1}\nb = a\nb |= {2, 3}\nb -= {1}\nw = len(a)\n", 2),
    ("a = (1,)\nb = a\nb += (2,)\nw = len(a)\n", 1),  # a tuple is not changed: a new one
    ("a = [1]\nb = a\nb = b + [2]\nw = len(a)\n", 1),
    ("a = [1]\na += 'xy'\nw = len(a)\n", 3),  # list += takes any iterable
])
def test_in_place_operators_change_the_object_itself(body: str, width: int) -> None:
    report = run(_net(body + "self.proj = nn.Linear(w, 1, bias=False)\n"))
    assert counts(report) == {"Net": width}, report.problems


def test_module_list_plus_equals_extends_it_and_a_sequential_takes_another_sequential() -> None:
    report = run(_net("self.blocks = nn.ModuleList()\nself.blocks += [nn.Linear(2, 2)]\n"
                      "self.blocks += (nn.Linear(2, 3) for _ in range(2))\n"
                      "self.seq = nn.Sequential(nn.Linear(1, 1))\nself.seq += nn.Sequential(nn.Linear(1, 2))\n"))
    assert counts(report) == {"Net": 6 + 9 * 2 + 2 + 4}, report.problems
    assert _child_names(report, "Net", "seq") == ["0", "1"]


def test_numpy_linspace_gives_numpys_values() -> None:
    np = pytest.importorskip("numpy")
    from lsp_count.pymodel.interp import _numpy_linspace

    for start, stop, num in [(0, 0.1, 12), (0, 0.3, 1), (0.5, 0.5, 4), (-1, 2.5, 7), (0, 1, 0), (1e-3, 0.2, 33)]:
        assert _numpy_linspace(start, stop, num) == tuple(np.linspace(start, stop, num).tolist())
    assert _numpy_linspace(0, 1, -1) is None and _numpy_linspace(0, "1", 3) is None


def test_quantized_layers_are_refused_with_the_reason_and_stubs_hold_nothing() -> None:
    report = run(_net("self.q = torch.ao.quantization.QuantStub()\nself.f = nn.quantized.FloatFunctional()\n"
                      "self.fc = nn.Linear(2, 2)\n", "import torch\n"))
    assert counts(report) == {"Net": 6}, report.problems
    refused = lc101(run(_net("self.fc = nn.quantized.Linear(4, 4)\n")))
    assert "`torch.nn.quantized.Linear` is a quantized module" in refused["Net"]


def test_a_dataclass_bases_generated_init_runs_through_super_and_keeps_other_attributes() -> None:
    prelude = """
        from dataclasses import dataclass, field
        @dataclass
        class Base:
            width: int
            depth: int = 2
            extra: list = field(default_factory=list)
        class Cfg(Base):
            def __init__(self, width):
                self.note = 5
                super().__init__(width * 2)
    """
    report = run(_net("cfg = Cfg(3)\nself.proj = nn.Linear(cfg.width + cfg.note + len(cfg.extra), cfg.depth)\n",
                      prelude))
    assert counts(report) == {"Net": 11 * 2 + 2}, report.problems
    refused = lc101(run(_net("cfg = Cfg(3)\n", prelude.replace("super().__init__(width * 2)",
                                                              "super().__init__(width, depth=1, depth2=3)"))))
    assert "`Cfg` has no field `depth2`" in refused["Net"]


@pytest.mark.parametrize("expression, width", [
    # The values of small tensors, in torch's dtypes (parity with torch: test_pymodel_tensor_values_parity.py).
    ("int((torch.arange(4) * 2.5 + 1).max().item())", 8),
    ("(torch.round(torch.divide(56 * torch.pow(2.25, torch.tensor([2.0])), 8)) * 8).int().tolist()[0]", 280),
    ("len(torch.unique(torch.tensor([8, 8, 16, 24, 24])))", 3),
    ("torch.unique(torch.tensor([8, 8, 16]), return_counts=True)[1].tolist()[0]", 2),
    ("torch.diff(torch.tensor([0, 3, 7])).int().tolist()[1]", 4),
    ("int(torch.round(torch.log(torch.tensor([8.0])) / math.log(2)).item())", 3),
    ("int(torch.tensor([7, 9]).float().max().item())", 9),
    ("len(torch.Tensor(np.linspace(0, 1, 5)).split([2, 3])[1].tolist())", 3),
    ("int(torch.tensor([1, 2, 3]).sum().item())", 6),
    ("torch.tensor([1, 2, 3], device='cpu').cumsum(0).tolist()[2]", 6),  # Hiera's stage ends
    ("len(torch.Size([2, 3]))", 2),
    ("(4 ** torch.arange(3, dtype=torch.long)).flip(0).tolist()[0]", 16),  # NesT's blocks per level
    ("torch.arange(0, 1, 4 / 64, dtype=torch.float32).shape[0]", 16),  # DINOv3's RoPE periods
    ("torch.arange(0.5, 7).shape[0]", 7),
    ("(torch.arange(5)[:, np.newaxis] * torch.ones(3)[np.newaxis, :]).shape[1]", 3),
    ("torch.normal(0, 0.1, size=(6,)).shape[0]", 6),  # DiffLlama's lambdas
    ("(np.cumsum([2, 3, 4]) - 1).tolist()[2]", 8),  # SAM2's stage ends
    ("int(np.prod(7))", 7),  # Perceiver's index dims, an int
    ("len(list(zip([1, 2, 3], itertools.cycle([5, 6]))))", 3),  # transformers pairs tied weights so
    ("[next(c) for c in [itertools.cycle([4, 9])] for _ in range(3)][2]", 4),
    ("(-torch.arange(3)).tolist()[2] + 4", 2),  # OWL-ViT's box bias: -t
    ("(~(torch.arange(4) < 2)).shape[0]", 4),  # Llama 3's RoPE scaling: a mask inverted
    ("torch.meshgrid(torch.arange(3), torch.arange(5), indexing='xy')[0].shape[0]", 5),
    ("len([k for k in locals() if k == 'self'])", 1),  # a function's variables, read by name

])
def test_the_values_of_small_tensors_decide_sizes_as_torch_computes_them(expression: str, width: int) -> None:
    prelude = "import itertools\nimport math\nimport numpy as np\nimport torch\n"
    report = run(_net(f"w = {expression}\nself.proj = nn.Linear(w, 1, bias=False)\n", prelude))
    assert counts(report) == {"Net": width}, report.problems


def test_values_torch_may_compute_differently_are_refused_where_read_and_kept_as_a_shape_elsewhere() -> None:
    prelude = "import torch\n"
    # log's last bit is torch's kernel's: reading the values as numbers is refused, with the reason.
    refused = lc101(run(_net("w = torch.log(torch.tensor([3.0, 5.0])).tolist()\nself.p = nn.Linear(1, 1)\n", prelude)))
    assert "whose last bits the analyser does not reproduce" in refused["Net"]
    refused = lc101(run(_net("w = int((torch.arange(3, dtype=torch.float32) / 2).sum().item())\n", prelude)))
    assert "a float32 sum depends on torch's order of addition" in refused["Net"]
    # A rotary embedding's frequencies: computed, cast to another tensor's dtype, kept as a buffer.
    report = run(_net("inv = 1.0 / (10000 ** (torch.arange(0, 8, 2).to(device='cpu', dtype=torch.float) / 8))\n"
                      "inv = inv.to(self_dtype)\nself.register_buffer('inv_freq', inv, persistent=False)\n"
                      "self.proj = nn.Linear(inv.shape[0], 2)\n", prelude + "self_dtype = torch.float16\n"))
    assert counts(report) == {"Net": 4 * 2 + 2}, report.problems
    report = run(_net("r = torch.round(torch.tensor([2.5]) * (torch.log(torch.tensor([2.0])) / 0.6931471805599453))\n"
                      "self.proj = nn.Linear(r.shape[0], 2)\n", prelude))
    assert counts(report) == {"Net": 4}, report.problems  # a rounding too close to call: the shape stays


def test_a_tuple_to_torch_tensor_that_may_be_data_or_a_size_is_refused() -> None:
    # torch.Tensor((2, 5)) holds 2 and 5; torch.Tensor(x.size()) is 2 x 5: a tuple held in a name is either.
    refused = lc101(run(_net("shape = (2, 5)\nself.p = nn.Parameter(torch.Tensor(shape))\n", "import torch\n")))
    assert "a tuple is the tensor's data, a torch.Size its size" in refused["Net"]


@pytest.mark.parametrize("statement", ["break", "continue"])
def test_break_outside_a_loop_is_pythons_syntax_error_not_an_analyser_bug(statement: str) -> None:
    # ast.parse accepts it (found by fuzzing); Python's compiler refuses the file.
    refused = lc101(run(_net(f"if True:\n    {statement}\nself.p = nn.Linear(1, 1)\n")))
    assert f"`{statement}` outside a loop in `__init__`" in refused["Net"]
    refused = lc101(run(_net("self.p = nn.Linear(gen(), 1)\n", f"def gen():\n    {statement}\n    yield 1\n")))
    assert f"`{statement}` outside a loop in `gen`" in refused["Net"]


def test_values_changed_in_place_are_forgotten_where_not_computed() -> None:
    prelude = "import torch\n"
    for change in ("t[t > 1] = 9", "t.normal_()", "t.clamp_(0, 1)", "t += torch.ones(2) * n", "t.add_(n)"):
        refused = lc101(run(_net(f"t = torch.tensor([1.0, 2.0])\n{change}\nself.p = nn.Linear(int(t.max().item()), 1)\n",
                                 prelude + "import os\nn = int(os.environ['N'])\n")))
        assert "Net" in refused, change  # the values are not known any more: never the old ones


def test_torch_size_of_separate_ints_is_pythons_type_error_not_an_analyser_bug() -> None:
    refused = lc101(run(_net("self.p = nn.Parameter(torch.zeros(torch.Size(4, 3)))\n", "import torch\n")))
    assert "torch.Size takes one sequence of sizes (TypeError)" in refused["Net"]  # found by fuzzing


def test_package_data_is_read_only_from_under_the_package(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "widths.txt").write_text("12")
    (tmp_path / "secret.txt").write_text("34")
    src = _net("w = int(pkgutil.get_data(__name__, WHICH).decode())\nself.p = nn.Linear(w, 1, bias=False)\n",
               "import pkgutil\n")
    path = tmp_path / "pkg" / "model.py"
    read = analyze_text(src.replace("WHICH", "'widths.txt'"), str(path), AnalyzeOptions())
    assert counts(read) == {"Net": 12}, read.problems
    refused = lc101(analyze_text(src.replace("WHICH", "'../secret.txt'"), str(path), AnalyzeOptions()))
    assert "no data file `../secret.txt` in the package" in refused["Net"]


def test_locals_is_read_in_a_function_only() -> None:
    refused = lc101(run("import torch.nn as nn\nwidth = 4\nclass Net(nn.Module):\n    def __init__(self):\n"
                        "        super().__init__()\n        self.p = nn.Linear(SIZES['width'], 1)\n"
                        "SIZES = locals()\n"))
    assert "the code calls `locals`, which the analyser never runs" in refused["Net"]


def test_transformers_is_torch_available_is_answered_yes_where_it_is_transformers_code() -> None:
    """The installed transformers' own function is recognised (so its models' `import torch` under
    `if is_torch_available():` runs); a function of the same name that differs is interpreted."""
    import inspect

    pytest.importorskip("transformers")
    from transformers.utils import import_utils

    from lsp_count.pymodel.interp import FuncV, _known_hook

    source = inspect.getsource(import_utils.is_torch_available.__wrapped__)
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert _known_hook(FuncV(node.name, node, None, [], [], "")) == "is_torch_available"
    report = run(_net("self.p = nn.Linear(2 if is_torch_available() else 3, 1)\n",
                      "def is_torch_available():\n    return False\n"))
    assert counts(report) == {"Net": 4}  # the file's own function, as written


def test_arange_of_an_unknown_length_is_a_tensor_of_that_length() -> None:
    # A buffer of it holds no parameters: the class counts; a parameter of it is a formula.
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn
        class Pos(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.register_buffer("t", torch.exp(torch.arange(channels // 2).float()))
                self.p = nn.Linear(2, 2)
        class Learned(nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.p = nn.Parameter(torch.arange(0, channels).float())
    """)
    report = analyze_text(src, "model.py", AnalyzeOptions())
    assert counts(report) == {"Pos": 6}, report.problems
    assert "parameters = channels" in lc101(report)["Learned"]


def test_a_loop_over_an_endless_cycle_is_refused() -> None:
    refused = lc101(run(_net("for w in itertools.cycle([1, 2]):\n    pass\n", "import itertools\n")))
    assert "cycles without end" in refused["Net"]
    refused = lc101(run(_net("w = list(zip(itertools.cycle([1]), itertools.cycle([2])))\n", "import itertools\n")))
    assert "zip` of endless cycles alone never ends" in refused["Net"]


def test_matmul_assignment_makes_a_new_tensor_as_torch_has_no_in_place_matmul() -> None:
    report = run(_net("t = torch.zeros(2, 3)\nkept = t\nt @= torch.zeros(3, 4)\n"
                      "self.a = nn.Parameter(t)\nself.b = nn.Parameter(kept)\n", "import torch\n"))
    assert counts(report) == {"Net": 8 + 6}, report.problems


_COMPREHENSION_TARGETS = ["x", "a, b", "(a, b)", "k, k", "a, b, c"]


@st.composite
def _comprehensions(draw: st.DrawFn) -> str:
    """A one-loop comprehension over a literal table, as Python source: the loop's items are ints
    and bools (a dict's key 1 and True are one key, as in Python), or tuples / lists of them of a
    width that may not match the names it unpacks into."""
    target = draw(st.sampled_from(_COMPREHENSION_TARGETS))
    names = [n for n in target.replace("(", "").replace(")", "").split(", ")]
    width = draw(st.integers(1, 3))
    rows = draw(st.lists(st.lists(st.integers(-3, 3) | st.booleans(), min_size=width, max_size=width), max_size=6))
    wrap = draw(st.sampled_from(["({})", "[{}]"]))
    table = "[" + ", ".join(wrap.format(", ".join(map(str, row)) + ("," if len(row) == 1 and wrap == "({})" else ""))
                            if len(names) > 1 or draw(st.booleans()) else str(row[0]) for row in rows) + "]"
    kind = draw(st.sampled_from(["list", "generator", "dict"]))
    pick = st.sampled_from(names)
    if kind == "dict":
        return f"{{{draw(pick)}: {draw(pick)} for {target} in {table}}}"
    body = f"{draw(pick)} for {target} in {table}"
    return f"[{body}]" if kind == "list" else f"tuple({body})"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_comprehensions())
def test_comprehensions_give_pythons_values(comprehension: str) -> None:
    # One loop whose elements are the names it binds is built at once (interp._picked_items), others
    # item by item; either way Python's result: its order, a dict's repeated keys, the last of a repeated
    # name, and Python's error where the items do not unpack into the names.
    num = "def num(v):\n    return sum(v) + 10 * len(v) if isinstance(v, (tuple, list)) else v\n"
    checksum = ("sum((i + 1) * (3 * num(k) + num(v)) for i, (k, v) in enumerate(t.items())) if isinstance(t, dict) "
                "else sum((i + 1) * num(v) for i, v in enumerate(t))")
    namespace: dict[str, object] = {}
    exec(num, namespace)  # noqa: S102 - the test's own helper
    try:
        namespace["t"] = eval(comprehension)  # noqa: S307 - the test's own generated literal
        expected: int | None = eval(checksum, namespace) % 50 + 51  # noqa: S307
    except (TypeError, ValueError):
        expected = None
    report = run(_net(f"t = {comprehension}\nself.fc = nn.Linear(({checksum}) % 50 + 51, 1, bias=False)\n", num))
    if expected is None:
        assert "Net" in lc101(report), (comprehension, counts(report))
    else:
        assert counts(report) == {"Net": expected}, (comprehension, report.problems)


@pytest.mark.parametrize("expression, width", [
    ("next(x for x in [3, 4])", 3),
    # The items after the first are never computed, as in Python: `fail` would raise on 5.
    ("next(x for x in [2, 5] if small(x))", 2),
    ("next((x for x in [] if x), 6)", 6),
    ("next(a * b for a in [1, 2] for b in [3, 4] if a > 1)", 6),
    ("next(i for i, w in enumerate([0, 0, 7]) if w)", 2),
])
def test_next_of_a_generator_takes_its_first_item(expression: str, width: int) -> None:
    prelude = "def small(x):\n    if x > 4:\n        raise ValueError(x)\n    return True\n"
    report = run(_net(f"self.fc = nn.Linear({expression}, 1, bias=False)\n", prelude))
    assert counts(report) == {"Net": width}, report.problems


def test_next_of_an_empty_generator_is_pythons_stop_iteration() -> None:
    report = run(_net("self.fc = nn.Linear(next(x for x in [] if x), 1)\n"))
    assert "StopIteration" in lc101(report)["Net"]


@pytest.mark.parametrize("expression, width", [
    # A compiled pattern's methods are re's functions with its pattern and flags.
    ("len(re.compile('a', re.I).findall('AaBa'))", 3),
    ("1 if re.compile('^[a-z]+(weight)|(bias)$').match('bbox.(x)') else 2", 2),
    ("len(re.compile(r'\\d').sub('', 'a1b22'))", 2),
    ("len(re.compile(',').split('a,b,c', 1))", 2),
    ("re.compile('(a)(b)').groups + 1", 3),
    # any / all as Python answers them: an item's truth as an `if` takes it, up to the answer.
    ("1 if any(x for x in [0, nn.ModuleList()]) else 2", 2),
    ("1 if all([nn.Linear(1, 1), 3]) else 2", 1),
    ("1 if any([1, helper()]) else 2", 1),
    # A set comprehension makes a set.
    ("len({x % 3 for x in range(7)})", 3),
    ("len({x for x in 'abca'} | {y for y in 'cd'})", 4),
])
def test_compiled_patterns_any_all_and_set_comprehensions(expression: str, width: int) -> None:
    report = run(_net(f"self.fc = nn.Linear({expression}, 1, bias=False)\n", "import re\nfrom lib import helper\n"))
    assert counts(report) == {"Net": width}, report.problems


@pytest.mark.parametrize("expression, reason", [
    # An unknown item before the answer was a Python object's truth, always true: `all()` of patterns
    # the analyser could not run took transformers' shortcut for plain tied-weight names.
    ("1 if all(helper(k) for k in 'ab') else 2", "an item of `all()` is unknown: `lib.helper` is outside"),
    ("1 if any([0, helper()]) else 2", "an item of `any()` is unknown: `lib.helper` is outside"),
    ("len(re.compile('a').match('ab', 1).group())", "these arguments of a compiled pattern's `match` are not followed"),
    ("len(re.compile('(').pattern)", "raises re.error"),
    ("len({[x] for x in 'ab'})", "raises TypeError"),
    ("len({helper(x) for x in 'ab'})", "`lib.helper` is outside"),
])
def test_what_any_all_and_patterns_do_not_know_is_said(expression: str, reason: str) -> None:
    report = run(_net(f"self.fc = nn.Linear({expression}, 1, bias=False)\n", "import re\nfrom lib import helper\n"))
    assert reason in lc101(report)["Net"]


@pytest.mark.parametrize("body, total, trainable", [
    # An initialiser is read, not run: only values change.
    ("self.fc = nn.Linear(4, 4)\nself.apply(lambda m: nn.init.zeros_(m.weight) if isinstance(m, nn.Linear) else None)",
     20, 20),
    ("self.fc = nn.Linear(4, 4)\nself.apply(lambda m: m.requires_grad_(False))", 20, 0),
    ("self.fc = nn.Linear(4, 4)\nself.apply(lambda m: setattr(m, 'bias', None) if isinstance(m, nn.Linear) else None)",
     16, 16),
    # Each child once, as children() yields it: a module held twice is visited once per holder.
    ("blk = nn.Linear(2, 2)\nself.a = blk\nself.b = blk\nn = []\nself.apply(n.append)\nself.c = nn.Linear(len(n), 1)",
     6 + 3, 9),
])
def test_apply_runs_the_function_on_every_module_unless_it_only_fills_values(body: str, total: int,
                                                                            trainable: int) -> None:
    report = run(_net(body))
    assert [(m.tree.total, m.tree.trainable) for m in report.models] == [(total, trainable)], report.problems


def test_apply_on_a_module_that_holds_itself_is_a_reason_not_a_hang() -> None:
    report = run(_net("self.fc = nn.Linear(2, 2)\nself.me = self\nself.apply(lambda m: m.requires_grad_(False))"))
    assert "nested more than" in lc101(report)["Net"]


@pytest.mark.parametrize("body, reason", [
    ("self.p = nn.ParameterList()\nself.p.append([3])", "an element of nn.ParameterList is not a parameter"),
    ("self.m = nn.ModuleList()\nself.m.append(torch.zeros(3))", "an element of nn.ModuleList is not a known module"),
    ("self.m = nn.ModuleList([nn.ReLU()])\nself.m[3] = nn.ReLU()", "raises IndexError"),
    # a layer's class without its call: named as the code wrote it, never as the analyser's value
    ("self.m = nn.Sequential(nn.Linear(2, 2), nn.GELU)", "not a known module (`nn.GELU`, a class: `nn.GELU()` makes a module)"),
    ("self.m = nn.ModuleList([nn.ReLU(), torch.sigmoid])", "not a known module (`torch.sigmoid`)"),
])
def test_what_torch_would_not_register_is_a_reason(body: str, reason: str) -> None:
    report = run(_net(body, "import torch\n"))
    assert reason in lc101(report)["Net"], report.problems


def test_an_optional_import_fails_as_on_a_machine_without_the_package_and_says_so() -> None:
    # Which branch runs depends on what the machine has installed: the one that needs only torch
    # is counted (the try's branch was taken, silently).
    report = run(_net("""
        self.fc = nn.Linear(8, 8 if WIDE else 4)
        try:
            from flash_attn import flash_attn_func
            self.attn = nn.Linear(2, 2)
        except Exception:
            self.attn = nn.Linear(2, 3)
    """, """
        try:
            import xformers.ops
            WIDE = True
        except ImportError:
            WIDE = False
    """))
    assert counts(report) == {"Net": 8 * 4 + 4 + 2 * 3 + 3}
    notes = {p.message for p in report.problems if p.code == "LC106"}
    assert notes == {"the file's code at import: counted as on a machine without the optional package `xformers` "
                     "(line 4)",
                     "`Net`: counted as on a machine without the optional package `flash_attn` (line 14)"}


def test_an_init_whose_def_is_not_followed_is_refused() -> None:
    # Its default cannot be evaluated: the class was counted with nn.Module's __init__ (0).
    src = ("import torch.nn as nn\nclass Net(nn.Module):\n"
           "    def __init__(self, order=max([1, 2], key=print)):\n"
           "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n")
    assert lc101(run(src))["Net"].startswith("`Net` cannot be counted exactly: `Net.__init__` cannot be followed: ")


def test_an_import_of_the_standard_library_torch_or_the_project_in_a_try_is_followed() -> None:
    report = run(_net("self.fc = nn.Linear(WIDTH, int(np.prod((2, 3))))\n", """
        try:
            import math
            import numpy as np
            from torch.nn import RMSNorm
            WIDTH = int(math.sqrt(16))
        except ImportError:
            WIDTH = 1
    """))
    assert counts(report) == {"Net": 4 * 6 + 6}


def test_a_class_under_a_module_level_block_the_analyser_cannot_follow_is_said() -> None:
    report = run("""import fancy_kernels
import torch.nn as nn
if fancy_kernels.version() >= (2, 0):
    class Guarded(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
class Sub(Guarded if fancy_kernels.version() >= (2, 0) else nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
class Plain(dict if fancy_kernels.version() >= (2, 0) else list):
    pass
""")
    reasons = lc101(report)
    assert reasons["Guarded"].startswith("`Guarded` cannot be counted exactly: whether Python defines it is not known: "
                                         "it is under a block the analyser cannot follow: ")
    assert "whether it is a module is not known: its base cannot be followed: " in reasons["Sub"]
    assert "Plain" not in reasons and counts(report) == {}  # nothing says it is a model


@pytest.mark.parametrize("call, error", [
    ("Args(1, 2)", "passes 2 positional arguments to `Args`, which takes 1 (TypeError)"),
    ("Args(1, fixed=3)", "`Args` takes no argument `fixed` (a field with init=False) (TypeError)"),
    ("Args(1, wide=3)", "`Args` has no field `wide` (TypeError)"),
    ("dataclasses.replace(Args(1), fixed=3)", "`fixed` is a field with init=False (ValueError)"),
])
def test_a_dataclass_field_its_init_does_not_take_is_python_s_error(call: str, error: str) -> None:
    report = run(_net(f"self.fc = nn.Linear({call}.width, 2)\n", """
        import dataclasses
        @dataclasses.dataclass
        class Args:
            width: int
            fixed: int = dataclasses.field(default=5, init=False)
            late: int = dataclasses.field(default=1, kw_only=True)
    """))
    assert lc101(report)["Net"].endswith(error)


@pytest.mark.parametrize("body, width", [
    # The first case that matches and whose guard holds runs; none may.
    ("w = 1\nmatch 3:\n    case 3 if False:\n        w = 2\n    case int(x) if x > 9:\n        w = 3\n    case _:\n        w = 4\n",
     None),
    ("w = 1\nmatch (2, 3):\n    case (2, x):\n        w = x\n    case _:\n        w = 9\n", 3),
    ("w = 1\nmatch [1, 2, 3, 4]:\n    case [first, *middle, 4]:\n        w = first + len(middle)\n", 3),
    ("w = 1\nmatch 'abc':\n    case [a, b, c]:\n        w = 7\n    case 'abc' | 'xyz':\n        w = 5\n", 5),
    ("w = 1\nmatch None:\n    case None:\n        w = 6\n", 6),
    ("w = 1\nmatch 5:\n    case 3 | 4:\n        w = 2\n", 1),
])
def test_match_runs_the_case_python_runs(body: str, width: int | None) -> None:
    report = run(_net(body + "self.fc = nn.Linear(w, 1)\n"))
    if width is None:  # a class pattern is not followed: said, not guessed
        assert "the `match` pattern `int(x)`" in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": width + 1}


def test_enum_auto_values_are_python_s() -> None:
    report = run(_net("self.fc = nn.Linear(Size.LARGE.value, len(Name.SHORT.value))\n"
                      "self.other = nn.Linear(Mixed.A.value, 1)\n", """
        import enum
        class Size(enum.Enum):
            SMALL = 5
            LARGE = enum.auto()
        class Name(enum.StrEnum):
            SHORT = enum.auto()
        class Mixed(str, enum.Enum):
            A = enum.auto()
    """))
    # 6 and "short"; a str mixin's auto() differs between Python versions: not guessed.
    assert "`Mixed.A` = auto() in an enum of str" in lc101(report)["Net"]
    report = run(_net("self.fc = nn.Linear(Size.LARGE.value, len(Name.SHORT.value))\n", """
        import enum
        class Size(enum.Enum):
            SMALL = 5
            LARGE = enum.auto()
        class Name(enum.StrEnum):
            SHORT = enum.auto()
    """))
    assert counts(report) == {"Net": 6 * 5 + 5}


_ENUMS = """
import enum
class Mode(str, enum.Enum):
    A = "a"
    B = "b"
class Level(enum.IntEnum):
    LOW = 1
class Color(enum.Enum):
    RED = 1
"""


@pytest.mark.parametrize("comparison", [
    '[Mode.A, Mode.B] == ["a", "b"]', '("x", Mode.B) == ("x", "b")', '{"k": Mode.A} == {"k": "a"}',
    '{Mode.A: 1} == {"a": 1}', '[[Mode.A]] == [["a"]]', '[Mode.A] != ["b"]', '[Level.LOW] == [1]',
    '[Color.RED] == [1]', '[Color.RED] == [Color.RED]', '[Mode.A] == ("a",)', '[1, Mode.A] == [1]',
])
def test_containers_of_enum_members_compare_as_python_compares_them(comparison: str) -> None:
    # A list, tuple or dict compares item by item with each item's own ==: a str or int enum's
    # member equals its value there too (accelerate's `[DistributedType.FSDP] == ["FSDP"]`).
    namespace: dict[str, object] = {}
    exec(_ENUMS, namespace)  # noqa: S102 - the test's own enums
    expected = eval(comparison, namespace)  # noqa: S307 - the test's own comparison
    report = run(_net(f"self.fc = nn.Linear(2 if {comparison} else 3, 1, bias=False)\n", _ENUMS))
    assert counts(report) == {"Net": 2 if expected else 3}, report.problems


@pytest.mark.parametrize("prelude, build, reason", [
    # What builds the instance besides __init__ is not followed: said, not counted as __init__ alone.
    ("class Single(nn.Module):\n    _made = None\n    def __new__(cls):\n        if cls._made is None:\n"
     "            cls._made = super().__new__(cls)\n        return cls._made\n"
     "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(5, 5)\n",
     "Single()", "building a `Single` runs `Single.__new__`, which the analyser does not follow"),
    ("class Meta(type):\n    def __call__(cls, *a, **k):\n        return super().__call__(d=9)\n"
     "class Sized(nn.Module, metaclass=Meta):\n    def __init__(self, d=2):\n        super().__init__()\n"
     "        self.fc = nn.Linear(d, d)\n",
     "Sized()", "building a `Sized` runs the metaclass `Meta`'s `__call__`, which the analyser does not follow"),
    # Which objects a set holds once is their class's equality.
    ("class Key:\n    def __init__(self, v):\n        self.v = v\n    def __hash__(self):\n        return self.v % 2\n"
     "    def __eq__(self, o):\n        return self.v % 2 == o.v % 2\n",
     "nn.Linear(len({Key(1), Key(3)}), 1)", "holds `Key` objects, whose equality the analyser does not follow in a set"),
])
def test_construction_and_equality_the_analyser_does_not_follow_are_said(prelude: str, build: str, reason: str) -> None:
    assert reason in lc101(run(_net(f"self.part = {build}\n", prelude)))["Net"]


def test_a_super_call_the_analyser_does_not_follow_on_a_module_is_said() -> None:
    # Dropped silently before: the count stood as if the call did nothing.
    report = run("""
        import torch.nn as nn

        class Grown(nn.ModuleList):
            def grow(self, module):
                super().insert_sorted(module)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = Grown()
                self.layers.grow(nn.Linear(4, 4))
    """)
    assert "`super().insert_sorted(module)`" in lc101(report)["Net"]


def test_a_class_extending_an_installed_package_is_not_taken_for_a_plain_object() -> None:
    # transformers' PreTrainedModel, Lightning's LightningModule, xformers' SwiGLU: installed
    # packages the analyser is not told to read (read_packages=(); transformers is read by default:
    # test_pymodel_installed_packages.py). Such a class was taken for a plain object: not counted,
    # not reported, and a module holding one counted without its parameters (Holder was 0, "exact").
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        from transformers import PretrainedConfig, PreTrainedModel
        import pytorch_lightning as pl
        from xformers.ops import SwiGLU
        from pydantic import BaseModel

        class MyConfig(PretrainedConfig):
            def __init__(self, hidden=64, **kwargs):
                super().__init__(**kwargs)
                self.hidden = hidden

        class Settings(BaseModel):
            width: int = 4

        class MyModel(PreTrainedModel):
            def __init__(self, config):
                super().__init__(config)
                self.fc = nn.Linear(config.hidden, config.hidden)

        class Lit(pl.LightningModule):
            def forward(self, x):
                return x

        class Fused(SwiGLU):
            pass

        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.f = Fused()

        class WithConfigs(nn.Module):
            def __init__(self):
                super().__init__()
                self.config = MyConfig()
                self.settings = Settings()
                self.fc = nn.Linear(self.config.hidden, 2)
    """), "model.py", AnalyzeOptions(read_packages=()))
    messages = lc101(report)
    assert messages["MyModel"].endswith("whether it is a module is not known: it extends "
                                        "`transformers.PreTrainedModel`, which is outside the file and torch (the "
                                        "analyser reads the project's files, and the installed packages "
                                        "`read-packages` names where it finds them)")
    # (Lightning's LightningModule is an nn.Module of no parameters of its own: see
    # tests/parity/test_pymodel_lightning_parity.py.)
    assert messages["Holder"].startswith("`Holder` cannot be counted exactly: `f` is a `Fused`, whose base "
                                         "`xformers.ops.SwiGLU` is outside the file and torch")
    # Configs (by their names or their package's) are plain objects, as before.
    assert counts(report) == {"WithConfigs": 130, "Lit": 0}
    assert set(messages) == {"MyModel", "Holder"}


def test_optional_imports_under_a_block_of_the_try_fail_as_the_plain_ones_do() -> None:
    report = run("""
        from contextlib import nullcontext
        import torch.nn as nn
        USE = True
        try:
            if USE:
                with open("x") if False else nullcontext():
                    from xformers.ops import SwiGLU
        except ImportError:
            SwiGLU = nn.Identity
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.ffn = SwiGLU()
                self.fc = nn.Linear(2, 2)
    """)
    assert counts(report) == {"Net": 6}
    assert any("optional package `xformers`" in p.message for p in report.problems if p.code == "LC106")


@pytest.mark.parametrize("body, total", [
    ("self.__setattr__('a', nn.Linear(2, 2))\nself.b = self.__getattr__('a')", 6),
    ("self.seq = nn.Sequential(nn.Linear(2, 2), None, nn.Linear(2, 1))\nassert len(self.seq) == 3", 9),
    ("self.ml = nn.ModuleList([None, nn.Linear(2, 2)])\nself.ml.append(None)", 6),
    ("self.attn = nn.MultiheadAttention(4, 2)\nassert self.attn.bias_k is None and hasattr(self.attn, 'q_proj_weight')",
     80),
    ("self.c = nn.Conv2d(1, 1, 3, stride=2)\nself.fc = nn.Linear(getattr(self.c, 'stride')[0], 1)", 13),
    ("self.p = nn.AvgPool1d(3)\nself.fc = nn.Linear(self.p.stride[0] + self.p.padding[0], 1)", 4),
    ("self.p = nn.AdaptiveAvgPool2d((2, 3))\nself.fc = nn.Linear(self.p.output_size[1], 1)", 4),
    ("self.fc = nn.Linear(int(np.floor(np.exp(2))), 1, bias=np.ceil(0.5) == 1.0)", 8),
])
def test_module_and_numpy_idioms_of_public_repositories(body: str, total: int) -> None:
    assert counts(run(_net(body, "import numpy as np\n"))) == {"Net": total}


def test_numpy_of_an_unresolved_size_is_a_formula() -> None:
    report = run("""
        import numpy as np
        import torch.nn as nn
        class D(nn.Module):
            def __init__(self, z_channels, res=4):
                super().__init__()
                self.fc = nn.Linear(int(np.prod((1, z_channels, res))), 2)
                self.g = nn.Linear(int(np.sqrt(z_channels)), 1, bias=False)
    """)
    assert lc101(report)["D"].endswith("the constructor argument `z_channels` with no default; "
                                       "parameters = np.sqrt(z_channels) + 8·z_channels + 2")


def test_the_analysis_counts_as_on_a_machine_without_a_gpu_and_says_so() -> None:
    report = run(_net("if torch.cuda.is_available():\n    self.fc = nn.Linear(2, 2).cuda()\n"
                      "else:\n    self.fc = nn.Linear(2, 3)\n", "import torch\n"))
    assert counts(report) == {"Net": 9}
    note, = [p.message for p in report.problems if p.code == "LC106"]
    assert note == "`Net`: counted as on a machine without a GPU, as the code asks: `torch.cuda.is_available()` (line 6)"


def test_a_reused_build_brings_what_it_assumed_of_the_machine() -> None:
    # Outer's Inner comes from the build kept when Inner was counted: it was counted with no note.
    report = run("""
        import os
        import torch
        import torch.nn as nn
        class Inner(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 3 if os.environ.get("WIDE") else 2)
                self.g = nn.Linear(2, 2) if torch.cuda.is_available() else nn.Identity()
        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
    """)
    notes = {p.message.split("`")[1]: p.message.split(": ", 1)[1] for p in report.problems if p.code == "LC106"}
    assert notes["Outer"] == notes["Inner"] == (
        "counted with the environment variable `WIDE` (line 8) unset; counted as on a machine without a GPU, as the "
        "code asks: `torch.cuda.is_available()` (line 9)")


def test_each_class_is_counted_as_built_right_after_the_import() -> None:
    # lit-llama's lora pattern: one class's constructor sets another's class attribute. It leaked
    # into the classes counted after it (Later: 144), and a failure kept from before the change
    # was raised again after it (ProbeSetRank refused with rank None).
    report = run("""
        import torch.nn as nn
        from dataclasses import dataclass
        @dataclass
        class Cfg:
            d: int = 8
        class LoraAttn(nn.Module):
            rank = None
            def __init__(self, cfg: Cfg):
                super().__init__()
                self.proj = nn.Linear(cfg.d, cfg.d * self.rank)
        class ProbeSetRank(nn.Module):
            def __init__(self):
                super().__init__()
                LoraAttn.rank = 2
                self.attn = LoraAttn(Cfg())
        class Later(nn.Module):
            def __init__(self):
                super().__init__()
                self.attn = LoraAttn(Cfg())
    """)
    assert counts(report) == {"ProbeSetRank": 144}
    assert "raises TypeError" in lc101(report)["LoraAttn"] and "raises TypeError" in lc101(report)["Later"]


@pytest.mark.parametrize("body, reason", [
    ("self.n = nn.GroupNorm(32, 48)", "nn.GroupNorm's num_channels (48) must be divisible by num_groups (32); torch "
                                      "would raise"),
    ("self.a = nn.MultiheadAttention(10, 3)", "nn.MultiheadAttention's embed_dim (10) must be divisible by num_heads "
                                              "(3), both positive; torch would raise"),
    ("self.r = nn.RNNBase('gru', 4, 8)", "nn.RNNBase's mode is 'gru'; torch raises ValueError (Unrecognized RNN mode; "
                                         "the modes are LSTM, GRU, RNN_TANH, RNN_RELU)"),
])
def test_layers_torch_refuses_to_build_are_not_counted(body: str, reason: str) -> None:
    # Both were counted (96 and 440) although torch raises: guided-diffusion with channel_mult=1.5.
    assert lc101(run(_net(body)))["Net"].endswith(reason)


@pytest.mark.parametrize("body, total", [
    ("k = 2 if type(4) == int and type(nn.BatchNorm2d) == type and type(Net) is type else 3\n"
     "self.fc = nn.Linear(k, 1)", 3),
    ("self.fc = nn.Linear(int(np.array([2, 3, 4]).prod()) + np.zeros((2, 3)).shape[1], 1)", 28),
    ("self.fc = nn.Linear(len(np.arange(5)) + np.ones(4).shape[0], 1)", 10),
    ("self.w = nn.Parameter(torch.from_numpy(np.zeros((2, 3))))", 6),
    ("self.scale = torch.tensor(np.random.rand(3)).float().to('cpu')\nself.fc = nn.Linear(2, 2)", 6),
])
def test_types_and_numpy_arrays(body: str, total: int) -> None:
    assert counts(run(_net(body, "import numpy as np\nimport torch\n"))) == {"Net": total}


def test_deleting_from_a_modules_parameters_reaches_it() -> None:
    # It was counted as if nothing were deleted (style-based-gan's generator: twice torch's count).
    report = run(_net("self.fc = nn.Linear(4, 3)\nw = self.fc.weight\ndel self.fc._parameters['weight']\n"
                      "self.fc.register_parameter('weight_orig', nn.Parameter(w.data))\n"
                      "assert 'bias' in self.fc._parameters and len(self.fc._parameters) == 2\n"
                      "self.fc._parameters.pop('bias')\nself.fc._parameters['extra'] = nn.Parameter(torch.ones(5))",
                      "import torch\n"))
    assert counts(report) == {"Net": 17}


def test_a_complex_tensors_parts_keep_its_shape() -> None:
    # Hyena's positional embedding: refused ("does not follow a tensor's `real`").
    body = ("w = torch.linspace(0, 1, 10)[None, :, None]\nf = torch.linspace(1e-4, 3, 4)[None, None]\n"
            "z = torch.exp(-1j * f * w)\nself.z = nn.Parameter(torch.cat([z.real, z.imag], dim=-1))")
    assert counts(run(_net(body, "import torch\n"))) == {"Net": 80}


def test_torch_version_is_the_one_the_layer_table_follows_and_said() -> None:
    # Informer's `padding = 1 if torch.__version__ >= '1.5.0' else 2`: refused before (not followed).
    report = run(_net("padding = 1 if torch.__version__ >= '1.5.0' else 2\n"
                      "self.conv = nn.Conv1d(4, 8, 3, padding=padding)\n"
                      "self.fc = nn.Linear(len(str(torch.float32)) + len(f'{torch.device(\"cpu\")}'), 1)",
                      "import torch\n"))
    assert counts(report) == {"Net": 8 * 4 * 3 + 8 + 17}
    note, = [p.message for p in report.problems if p.code == "LC106"]
    assert note == ("`Net`: counted with torch 2.13.0, the torch whose layers the analyser follows: "
                    "`torch.__version__` (line 6)")


@pytest.mark.parametrize("expression", ["str(nn.ReLU())", "f'{nn.ReLU()}'.split('.')",
                                        "'%s' % torch.nn.functional.gelu", "'{}'.format(nn.ReLU())"])
def test_the_text_of_the_analysers_own_objects_is_never_read(expression: str) -> None:
    # It was the analyser's repr (`"ExtV(name='torch.__version__')"`): counts made of its length
    # were silently wrong (Autoformer's version check, `len(str(module))`).
    report = run(_net(f"text = {expression}\nself.fc = nn.Linear(len(text), 1)", "import torch\n"))
    assert counts(report) == {} and "Net" in lc101(report), report.problems
    assert "ExtV" not in lc101(report)["Net"] and "Inst" not in lc101(report)["Net"]


def test_python_writes_the_classes_of_the_code_and_torch_as_it_does() -> None:
    report = run(_net("b = str(Net.__bases__) + str([nn.Linear])\n"
                      "self.fc = nn.Linear(len(b), 1)", "import torch\n"))
    text = "(<class 'torch.nn.modules.module.Module'>,)[<class 'torch.nn.modules.linear.Linear'>]"
    assert counts(report) == {"Net": len(text) + 1}


def test_a_sibling_package_of_the_repository_is_found(tmp_path) -> None:
    # thuml's Autoformer layout: models/Autoformer.py imports `from layers.Embed import ...`, run
    # from the repository's root. It was "outside this file and torch.nn".
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "layers").mkdir()
    (tmp_path / "layers" / "blocks.py").write_text("import torch.nn as nn\nclass Block(nn.Module):\n"
                                                   "    def __init__(self):\n        super().__init__()\n"
                                                   "        self.fc = nn.Linear(4, 4)\n")
    (tmp_path / "models").mkdir()
    path = tmp_path / "models" / "net.py"
    path.write_text("import torch.nn as nn\nfrom layers.blocks import Block\nclass Net(nn.Module):\n"
                    "    def __init__(self):\n        super().__init__()\n        self.b = Block()\n")
    report = analyze_text(path.read_text(), str(path), AnalyzeOptions())
    assert counts(report) == {"Net": 20}


def test_a_call_that_does_not_fit_a_torch_layer_raises_a_type_error_the_code_can_catch() -> None:
    # timm's create_aa tries `aa_layer(channels=c, stride=2)` and falls back to `aa_layer(2)` on
    # TypeError; with nn.AvgPool2d's signature known, the first raised one the code could not catch.
    prelude = ("def create_aa(aa_layer, channels, stride=2):\n    try:\n        return aa_layer(channels=channels, "
               "stride=stride)\n    except TypeError:\n        return aa_layer(stride)\n")
    report = run(_net("self.aa = create_aa(nn.AvgPool2d, 8)\nself.fc = nn.Linear(self.aa.kernel_size, 2)", prelude))
    assert counts(report) == {"Net": 6}


@pytest.mark.parametrize("body, total", [
    ("self.fc = torch.jit.script(nn.Linear(10, 20))", 220),
    ("self.fc = torch.compile(nn.Sequential(nn.Linear(10, 20), nn.ReLU()))", 220),
    ("self.fc = torch.fx.symbolic_trace(nn.Linear(3, 4))", 16),
])
def test_compiled_scripted_and_traced_modules_keep_their_parameters(body: str, total: int) -> None:
    # They were taken for tensors ("a tensor function returns a tensor") and dropped: 0 or the rest.
    assert counts(run(_net(body, "import torch\nimport torch.fx\n"))) == {"Net": total}


def test_torch_module_classes_the_tables_do_not_describe_are_not_plain_objects() -> None:
    # Dreamer's `class RewardModel(torch.jit.ScriptModule)`, a child of `_BatchNorm`: silently dropped before.
    # A ScriptModule subclass registers its parts as nn.Module does (pytorch-cifar100's stochastic depth):
    # it is followed now.
    report = run("""
        import torch
        import torch.nn as nn
        from torch.nn.modules.batchnorm import _BatchNorm
        class Reward(torch.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
        class MyBN(_BatchNorm):
            pass
        class Holder(nn.Module):
            def __init__(self):
                super().__init__()
                self.r = Reward()
                self.bn = MyBN(8)
                self.other = torch.some_helper(self.r)
    """)
    messages = lc101(report)
    assert "Reward" not in messages and counts(report) == {"Reward": 20} and "Holder" in messages


def test_a_containers_plain_attributes_are_not_its_entries() -> None:
    # OpenNMT's Elementwise(nn.ModuleList) sets `self.merge` before super().__init__: it was taken
    # for the first entry (every index shifted, len one too many), as was the `training` flag
    # eval() sets.
    report = run("""
        import torch.nn as nn
        class Elementwise(nn.ModuleList):
            def __init__(self, merge=None, *args):
                self.merge = merge
                super().__init__(args)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.e = Elementwise("concat", nn.Linear(2, 2), nn.Linear(2, 3))
                self.e[1].weight.requires_grad = False
                self.e.eval()
                self.fc = nn.Linear(len(self.e) + len(list(self.e)), 1)
                self.e.append(nn.Linear(1, 1))
                self.e.insert(0, nn.Linear(1, 2))
                del self.e[1]
                self.n = len(self.e)
    """)
    net = next(m for m in report.models if m.name == "Net")
    # Linear(1, 2), Linear(2, 3) (its weight frozen) and Linear(1, 1) left; fc takes 2 + 2 inputs.
    assert (net.tree.total, net.tree.trainable) == (4 + 9 + 2 + 5, 4 + 9 + 2 + 5 - 6)


@pytest.mark.parametrize("body, total", [
    ("self.fc = nn.Linear(len(string.printable), 2)", 202),
    ("self.fc = torch.nn.utils.skip_init(nn.Linear, 3, 4)", 16),
    ("self.h = nn.ModuleList(nn.Linear(1, 1) for _ in range(2))\nfor h, s in zip(self.h, torch.tensor([1.0, 2.0])):\n"
     "    h.bias.data += s", 4),
])
def test_more_idioms_of_public_repositories(body: str, total: int) -> None:
    assert counts(run(_net(body, "import string\nimport torch\n"))) == {"Net": total}


def test_inherited_module_methods_are_not_said_to_be_missing() -> None:
    # "calls `load_state_dict`, which `Sub` does not define (Python raises AttributeError)": false.
    # (load_state_dict is followed now: test_torch_class_hierarchy_state_dict_copies_and_einops_layers.)
    report = run(_net("self.a = Sub()\nself.a.compile()",
                      "class Sub(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.fc = nn.Linear(2, 2)\n"))
    assert "a method of the module the analyser does not follow" in lc101(report)["Net"]


def test_a_copy_into_a_tensor_of_another_shape_is_torchs_error() -> None:
    report = run(_net("self.register_buffer('mask', torch.ones(3, 4))\nself.mask.data.copy_(torch.ones(4, 3))\n"
                      "self.fc = nn.Linear(4, 3)", "import torch\n"))
    assert lc101(report)["Net"].endswith("a tensor of shape (4, 3) copied into one of shape (3, 4) (torch raises)")


@pytest.mark.parametrize("call, length", [("torch.arange(0, 7, step=2)", 4), ("torch.arange(start=1, end=5)", 4),
                                          ("torch.arange(end=3)", 3), ("torch.arange(2, end=6, step=2)", 2)])
def test_arange_bounds_by_name(call: str, length: int) -> None:
    # The step by name was ignored (timm's EfficientFormer-V2 queries every other position).
    assert counts(run(_net(f"self.fc = nn.Linear(len({call}), 1, bias=False)", "import torch\n"))) == {"Net": length}


def test_an_installed_package_is_not_searched_above(tmp_path) -> None:
    # timm beside an environment (`timm-sidecar/timm-1.0.31.dist-info`): its files import their
    # package by name; searching the directories above them cost a sixth of vision_transformer.py's time.
    from lsp_count.pymodel.interp import _repository_roots

    (tmp_path / "pkg-1.0.dist-info").mkdir()
    models = tmp_path / "pkg" / "models"
    models.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (models / "__init__.py").write_text("")
    assert _repository_roots(str(models)) == ()
    repo = tmp_path / "repo"
    (repo / "models").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert _repository_roots(str(repo / "models")) == (str(repo),)


@pytest.mark.parametrize("expression", ["'%s' % [nn.Linear]", "'{}'.format([nn.Linear])", "f'{[nn.Linear]}'"])
def test_string_formatting_writes_torch_classes_as_python_does(expression: str) -> None:
    # `%` and str.format passed a list holding a torch class to Python's own formatting, which wrote
    # the analyser's object ("ExtV(name='torch.nn.Linear')"), 35 characters; Python writes 42.
    report = run(_net(f"self.fc = nn.Linear(len({expression}), 1, bias=False)"))
    assert counts(report) == {"Net": len("[<class 'torch.nn.modules.linear.Linear'>]")}


@given(st.lists(st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False), st.booleans()),
                max_size=20),
       st.sampled_from(["sum", "mean", "max", "min", "amax", "amin", "argsort", "argmax", "argmin"]),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_numpy_reductions_of_known_numbers_are_numpys(items: list, fn: str, as_array: bool) -> None:
    np = pytest.importorskip("numpy")
    from lsp_count.pymodel.interp import _MISSING, _numpy_reduction
    from lsp_count.pymodel.values import TensorV

    data: object = items
    if as_array:  # np.array(items) as the analyser holds it: its values in numpy's dtype
        array = np.array(items)
        data = TensorV((len(items),), tuple(array.tolist()), dtype=str(array.dtype))
    found = _numpy_reduction(fn, data)
    if found is _MISSING:  # not followed: numpy raises, adds pairwise, or sorts unstably
        assert not items or fn in ("sum", "mean", "argsort") or as_array
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(np, fn)(np.array(items) if as_array else items)
    if isinstance(found, TensorV):
        assert list(found.values) == expected.tolist() and found.shape == expected.shape
    else:
        assert found == expected.item() and type(found) is type(expected.item()), (found, expected)


@pytest.mark.parametrize("body, total", [
    ("self.w = nn.Parameter(torch.from_numpy(np.eye(4, dtype=np.float32)))", 16),
    ("self.w = nn.Parameter(torch.from_numpy(np.eye(4, 3, k=1)))\nself.u = nn.Parameter(torch.tensor(np.identity(2)))",
     16),
    ("self.fc = nn.Linear(int(np.sum([4, 8])), np.argmax((3, 9, 1)) + len(np.argsort([5, 2])))", 12 * 3 + 3),
    ("self.fc = nn.Linear(np.max([2, 6]), int(np.mean((2, 4))))\nassert np.min([True, False]) is False", 6 * 3 + 3),
    ("self.net = nn.DataParallel(nn.Linear(4, 2))\nself.out = nn.Linear(self.net.module.out_features, 1)", 10 + 3),
])
def test_numpy_matrices_and_reductions_and_data_parallel(body: str, total: int) -> None:
    assert counts(run(_net(body, "import numpy as np\nimport torch\n"))) == {"Net": total}


def test_data_parallel_needs_a_module_and_takes_torchs_arguments() -> None:
    assert "the wrapped model is not a module" in lc101(run(_net("self.net = nn.DataParallel(3)\n")))["Net"]
    caught = "try:\n    self.net = nn.DataParallel(nn.Linear(2, 2), devices=[0])\nexcept TypeError:\n" \
             "    self.net = nn.Linear(2, 1)\n"
    assert counts(run(_net(caught))) == {"Net": 3}


_HOOKED = """
    def __getattr__(self, name):
        if name == "special":
            return 3
        return super().__getattr__(name)
"""


@pytest.mark.parametrize("body, total", [
    ("self.fc = nn.Linear(self.special, 2)", 8),  # read before anything is registered
    ("self.fc = nn.Linear(2, 2)\nk = 1 if hasattr(self, 'missing') else 2\nself.out = nn.Linear(k, 1)", 6 + 3),
    ("self.fc = nn.Linear(getattr(self, 'missing', 4), 1)", 5),
    ("try:\n    w = getattr(self, 'missing')\nexcept AttributeError:\n    w = 6\nself.fc = nn.Linear(w, 1)", 7),
    ("try:\n    w = self.missing\nexcept AttributeError:\n    w = 2\nself.fc = nn.Linear(w, 1)", 3),
])
def test_a_modules_own_getattr_is_its_fallback_and_nn_modules_raises_attribute_error(body: str, total: int) -> None:
    # A wrapper's `__getattr__` was not called (only plain objects' were): "`special` is not set".
    source = _net(body) + textwrap.indent(textwrap.dedent(_HOOKED), "    ")
    assert counts(run(source)) == {"Net": total}


def test_a_getattr_that_hands_the_name_on_is_absent_for_hasattr_where_the_held_object_lacks_it() -> None:
    source = """
        import torch.nn as nn
        class Inner(nn.Module):
            def __init__(self):
                super().__init__()
                self.width = 4
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = Inner()
                self.fc = nn.Linear(self.width + (1 if hasattr(self, "nothing") else 2), 1)
            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    return getattr(self.model, name)
    """
    assert counts(run(source))["Net"] == 7
    refused = lc101(run(source.replace('(1 if hasattr(self, "nothing") else 2)', "self.nothing")))
    assert "`nothing` is not set" in refused["Net"]


@pytest.mark.parametrize("body, reason", [
    # RepVGG's `assert len(width_multiplier) == 4` with the default None: the assert was taken as
    # passing, because the error inside its test was taken for one of the analyser's.
    ("w = None\nassert len(w) == 4\nself.fc = nn.Linear(2, 2)",
     "`len(w)` raises TypeError: object of type 'NoneType' has no len()"),
    ("d = None\nassert sum(d) > 0, 'depths'\nself.fc = nn.Linear(2, 2)", "`sum(d)` raises TypeError"),
    ("w = None\nassert w.shape[0] > 0\nself.fc = nn.Linear(2, 2)",
     "`w.shape`: the value is None ('NoneType' object has no attribute 'shape')"),
])
def test_an_assert_whose_test_raises_pythons_error_does_not_pass(body: str, reason: str) -> None:
    assert reason in lc101(run(_net(body)))["Net"]


@pytest.mark.parametrize("body, total", [
    ("try:\n    k = max([])\nexcept ValueError:\n    k = 3\nself.fc = nn.Linear(k, 1)", 4),
    ("try:\n    k = len(None)\nexcept TypeError:\n    k = 2\nself.fc = nn.Linear(k, 1)", 3),
    ("w = None\ntry:\n    k = w.size\nexcept AttributeError:\n    k = 5\nself.fc = nn.Linear(k, 1)", 6),
    ("self.fc = nn.Linear(typing.cast(int, 4), 1)", 5),
    ("widths = None\nassert len(widths or [1, 2]) == 2\nself.fc = nn.Linear(2, 1)", 3),
])
def test_pythons_errors_on_pythons_values_are_catchable(body: str, total: int) -> None:
    assert counts(run(_net(body, "import typing\n"))) == {"Net": total}


def test_a_container_subclass_built_through_super_is_named_in_messages() -> None:
    # DETR's Joiner(nn.Sequential): the message named the call `None`.
    source = "import torch.nn as nn\nclass Joiner(nn.Sequential):\n    def __init__(self, backbone, pos):\n" \
             "        super().__init__(backbone, pos)\n"
    assert lc101(run(source))["Joiner"].startswith("`Joiner` cannot be counted exactly: `super().__init__`: an element "
                                                   "of nn.Sequential is not a known module")


def test_isinstance_of_the_torch_class_a_layer_or_a_class_of_the_code_derives_from() -> None:
    # `isinstance(MyConv(...), nn.Conv2d)` and `isinstance(nn.Conv1d(...), nn.modules.conv._ConvNd)`
    # were False: a silent miscount where a branch depends on them (encodec's norm choice was refused).
    source = """
        import torch.nn as nn
        class MyConv(nn.Conv2d):
            pass
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = MyConv(2, 2, 1)
                self.b = nn.Conv1d(2, 2, 1)
                k = 1 if isinstance(self.a, nn.Conv2d) else 2
                k += 10 if isinstance(self.b, nn.modules.conv._ConvNd) else 20
                k += 100 if isinstance(self.a, nn.modules.conv._ConvNd) else 200
                k += 1000 if isinstance(nn.LSTM(2, 2), nn.RNNBase) else 2000
                k += 10000 if isinstance(self.b, (nn.Linear, nn.modules.batchnorm._BatchNorm)) else 20000
                self.fc = nn.Linear(k, 1)
    """
    assert counts(run(source))["Net"] == 6 + 6 + 21111 + 1


@given(st.one_of(st.integers(-50, 50), st.floats(-1e3, 1e3, allow_nan=False)),
       st.one_of(st.integers(-8, 40), st.floats(-8, 8, allow_nan=False)), st.booleans())
@settings(max_examples=300, deadline=None)
def test_numpy_power_of_two_numbers_is_numpys(base, exponent, floating: bool) -> None:
    np = pytest.importorskip("numpy")
    from lsp_count.pymodel.interp import _numpy_power
    from lsp_count.pymodel.values import TensorV

    found = _numpy_power(floating, base, exponent)
    if found is None:  # numpy's answer is not a Python number here (nan, inf, a wrapped int) or it raises
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = (np.float_power if floating else np.power)(base, exponent)
    if isinstance(found, TensorV):  # numpy's last bits are its own: the value within the bound it carries
        assert found.shape == () and found.dtype == "float64" and abs(found.values[0] - expected.item()) <= found.errors[0]
        return
    assert found == expected.item() and type(found) is type(expected.item()), (base, exponent, found, expected)


@pytest.mark.parametrize("body, total", [
    # S4D: complex parameters held as real views.
    ("self.C = nn.Parameter(torch.view_as_real(torch.randn(4, 3, dtype=torch.cfloat)))", 24),
    ("self.B = nn.Parameter(torch.view_as_complex(torch.randn(4, 3, 2)))", 12),
    # Rows that are lists or arrays, stacked by np.array; sinusoid tables from np.power.
    ("t = np.array([[p * i for i in range(3)] if p else np.zeros(3) for p in range(4)])\n"
     "self.w = nn.Parameter(torch.from_numpy(t))", 12),
    ("t = np.array([[p / np.power(10000, j / 4) for j in range(4)] for p in range(5)])\n"
     "self.e = nn.Embedding.from_pretrained(torch.FloatTensor(t))\nself.fc = nn.Linear(int(np.power(2, 3)), 1)", 20 + 9),
    # RWKV's initialiser finds a weight's name by identity.
    ("self.fc = nn.Linear(2, 2)\nnames = [n for n, p in self.named_parameters() if id(p) == id(self.fc.weight)]\n"
     "self.out = nn.Linear(len(names) + (id(self.fc) != id(self.out if hasattr(self, 'out') else None)), 1)", 6 + 3),
])
def test_complex_views_stacked_rows_numpy_power_and_identity(body: str, total: int) -> None:
    assert counts(run(_net(body, "import numpy as np\nimport torch\n"))) == {"Net": total}


@pytest.mark.parametrize("body, reason", [
    ("self.C = nn.Parameter(torch.view_as_real(torch.randn(4, 3)))", "view_as_real is only supported for complex"),
    ("self.B = nn.Parameter(torch.view_as_complex(torch.randn(4, 3)))", "view_as_complex needs a floating-point tensor"),
    ("t = np.array([[1, 2], np.zeros(3)])\nself.w = nn.Parameter(torch.from_numpy(t))", "numpy.array"),
    ("self.fc = nn.Linear(id(4), 1)", "`id` of int values depends on how Python caches them"),
])
def test_what_torch_or_python_would_not_give_is_refused(body: str, reason: str) -> None:
    assert reason in lc101(run(_net(body, "import numpy as np\nimport torch\n")))["Net"]


def test_a_config_argument_without_a_default_says_so_when_its_config_cannot_be_built() -> None:
    # RWKV's `GPTConfig(vocab_size, ctx_len)`: the message said "whose default `GPTConfig()`" and
    # pasted the class statement, blank lines and all.
    source = """
        import torch.nn as nn
        class GPTConfig:
            def __init__(self, vocab_size, n_embd=8):
                self.vocab_size = vocab_size
                self.n_embd = n_embd
        class Mix(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.key = nn.Linear(config.n_embd, config.n_embd)
    """
    message = lc101(run(source))["Mix"]
    assert "the constructor argument `config` with no default (`GPTConfig()`, whose defaults it would be counted " \
           "with, cannot be built: `GPTConfig()` does not pass `vocab_size`" in message and "\n" not in message


@given(st.sampled_from(["sqrt", "log", "log2", "log10", "exp", "ceil", "floor", "sin", "cos", "tan", "log1p",
                        "expm1", "round", "around", "rint", "abs", "absolute", "fabs"]),
       st.one_of(st.integers(0, 10**6), st.floats(0, 50, allow_nan=False),
                 st.sampled_from([1, 2, 8, 1000, 2.0**-3, 2.5, 3.5, 0.5, 1e15 + 0.5])))
@settings(max_examples=400, deadline=None)
def test_numpys_functions_of_a_number_are_numpys_or_carry_a_bound(fn: str, x) -> None:
    # math's log10, exp, tan, ... differ from numpy's in the last bit for about one value in twenty.
    np = pytest.importorskip("numpy")
    from lsp_count.pymodel.interp import _NUMPY_SCALAR, _numpy_float
    from lsp_count.pymodel.values import TensorV

    if fn in ("log", "log2", "log10") and x == 0:
        return
    try:
        value = _NUMPY_SCALAR[fn](x)
    except (ValueError, OverflowError):
        return
    found = _numpy_float(fn, value, x)
    expected = getattr(np, fn)(x).item()
    if isinstance(found, TensorV):
        assert abs(found.values[0] - expected) <= found.errors[0], (fn, x, found, expected)
    else:
        assert found == expected and type(found) is type(expected), (fn, x, found, expected)


_ATTRS = """
    import attr
    import torch
    import torch.nn as nn
    @attr.s(eq=False)
    class Affine(nn.Module):
        n_in = attr.ib(default=4)
        n_out = attr.ib()
        label: str = "not a field"
        def __attrs_post_init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.zeros(self.n_in, self.n_out))
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = CALL
"""


@pytest.mark.parametrize("call, total", [
    ("Affine(n_out=3)", 12), ("Affine(2, 5)", 10), ("Affine(n_in=1, n_out=7)", 7),
])
def test_an_attrs_module_is_built_by_attrs_init_then_its_post_init(call: str, total: int) -> None:
    # GLIDE's CLIP encoders: counted 0, silently (attrs' __init__ and __attrs_post_init__ never ran).
    assert counts(run(_ATTRS.replace("CALL", call)))["Net"] == total


@pytest.mark.parametrize("call, reason", [
    ("Affine(label='x', n_out=2)", "`Affine` has no field `label`"),
    ("Affine(1, 2, 3)", "passes 3 positional arguments to `Affine`, which takes 2"),
])
def test_an_attrs_init_takes_only_its_fields(call: str, reason: str) -> None:
    assert reason in lc101(run(_ATTRS.replace("CALL", call)))["Net"]


def test_attrs_define_and_auto_attribs_take_annotated_fields_and_private_ones_without_underscores() -> None:
    source = """
        import attrs
        from attr import s, ib, Factory
        import torch.nn as nn
        @attrs.define(eq=False)
        class A(nn.Module):
            dim: int = 3
            _depth: int = 2
            def __attrs_post_init__(self):
                super().__init__()
                self.fc = nn.Linear(self.dim, self._depth)
        @s(auto_attribs=True, eq=False)
        class B(nn.Module):
            dim: int = 2
            extra: list = Factory(list)
            def __attrs_post_init__(self):
                super().__init__()
                self.fc = nn.Linear(self.dim + len(self.extra), 1)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = A(4, depth=5)
                self.b = B(extra=[1])
    """
    assert counts(run(source)) == {"A": 8, "B": 3, "Net": 25 + 4}


def test_a_module_without_an_init_under_another_packages_decorator_is_not_counted_empty() -> None:
    source = """
        import somepackage
        import torch.nn as nn
        @somepackage.model(frozen=True)
        class Gen(nn.Module):
            dim: int = 4
        @torch_like_final
        class Fine(nn.Module):
            pass
    """
    refused = lc101(run("import typing\ntorch_like_final = typing.final\n" + textwrap.dedent(source)))
    assert "its decorator `somepackage.model` comes from outside the project" in refused["Gen"] and "Fine" not in refused


@pytest.mark.parametrize("body, total", [
    # DeepCTR: a class of activation, asked whether it derives from nn.Module.
    ("act = nn.PReLU if issubclass(nn.PReLU, nn.Module) and not issubclass(nn.Conv1d, nn.Linear) else nn.ReLU\n"
     "self.a = act()\nk = 2 if issubclass(nn.ConvTranspose2d, nn.modules.conv._ConvNd) else 3\n"
     "self.fc = nn.Linear(k, 1)", 1 + 3),
    # PPO: the old policy copied from the new one.
    ("self.p = nn.Linear(3, 2)\nself.q = nn.Linear(3, 2)\nself.q.load_state_dict(self.p.state_dict())", 16),
    ("self.p = nn.Linear(3, 2)\nself.q = nn.Linear(3, 2, bias=False)\n"
     "keys = self.q.load_state_dict(self.p.state_dict(), strict=False)\nself.fc = nn.Linear(len(keys[1]), 1)", 8 + 6 + 2),
    # x-transformers: einops' layers are modules without parameters.
    ("r = Rearrange('b (k d) -> b k d', k=2)\nself.seq = nn.Sequential(nn.Linear(4, 4), r if r is not None else None)", 20),
])
def test_torch_class_hierarchy_state_dict_copies_and_einops_layers(body: str, total: int) -> None:
    prelude = "import torch\nfrom einops.layers.torch import Rearrange\n"
    assert counts(run(_net(body, prelude))) == {"Net": total}


def test_loading_a_state_dict_of_other_shapes_raises_as_torch_does() -> None:
    body = "self.p = nn.Linear(3, 2)\nself.q = nn.Linear(3, 4)\nself.q.load_state_dict(self.p.state_dict())"
    assert "size mismatch for weight: (2, 3) against the module's (4, 3)" in lc101(run(_net(body)))["Net"]
    missing = "self.p = nn.Linear(3, 2, bias=False)\nself.q = nn.Linear(3, 2)\nself.q.load_state_dict(self.p.state_dict())"
    assert "missing keys ['bias']" in lc101(run(_net(missing)))["Net"]


def test_a_tuple_holding_a_float_is_a_legacy_constructors_data_and_an_unknown_spread_says_why() -> None:
    # SwinIR's `rgb_mean = (0.4488, 0.4371, 0.4040)`; `torch.Tensor(rgb_mean)` was refused (a
    # torch.Size holds ints only). A tuple of ints through a name stays undecided.
    body = "rgb_mean = (0.4488, 0.4371, 0.4040)\nself.w = nn.Parameter(torch.Tensor(rgb_mean).view(1, 3, 1, 1))"
    assert counts(run(_net(body, "import torch\n"))) == {"Net": 3}
    assert "which this one is, the analyser does not know" in lc101(run(_net(
        "size = (2, 3)\nself.w = nn.Parameter(torch.Tensor(size))", "import torch\n")))["Net"]
    source = "import torch.nn as nn\nclass Head(nn.Module):\n    def __init__(self, config):\n" \
             "        super().__init__()\n        self.fc = nn.Linear(**config)\n"
    assert lc101(run(source))["Head"].endswith("`**config` is not a known dict: it depends on the constructor "
                                               "argument `config` with no default")


def test_loading_a_checkpoint_the_analyser_cannot_read_keeps_the_count() -> None:
    # torchvision's `model.load_state_dict(weights.get_state_dict(...))`: values only, if it loads at all.
    body = "self.fc = nn.Linear(3, 2)\nself.fc.load_state_dict(torch.load('weights.pt'))"
    assert counts(run(_net(body, "import torch\n"))) == {"Net": 8}


@pytest.mark.parametrize("body, total", [
    # vector-quantize's `sync_codebook = distributed.is_initialized() and distributed.get_world_size() > 1`.
    ("ddp = torch.distributed.is_initialized() and torch.distributed.get_world_size() > 1\n"
     "self.fc = nn.Linear(2, 3 if ddp else 1)", 3),
    ("try:\n    n = torch.distributed.get_world_size()\nexcept ValueError:\n    n = 1\nself.fc = nn.Linear(n, 1)", 2),
    # coqui-TTS: torch's version through packaging / distutils.
    ("from packaging import version\nk = 2 if version.parse(torch.__version__) >= version.parse('1.9') else 3\n"
     "self.fc = nn.Linear(k, 1)", 3),
    ("from distutils.version import LooseVersion\nk = 2 if LooseVersion(torch.__version__) < LooseVersion('1.9') else 4\n"
     "self.fc = nn.Linear(k, 1)", 5),
    # fairseq's `eval(cfg.conv_feature_layers)` of a constant string.
    ("layers = eval('[(8, 3, 2)] + [(8, 2, 2)] * 2')\nself.convs = nn.ModuleList(nn.Conv1d(1, c, k, s) for c, k, s in layers)",
     (8 * 3 + 8) + 2 * (8 * 2 + 8)),
    # nanochat: rows picked by an integer tensor; a rolled tensor; an inverse FFT's real part.
    ("w = torch.zeros(8, 4)\nidx = torch.round(torch.linspace(0, 7, 5)).to(torch.long)\nself.w = nn.Parameter(w[idx])", 20),
    ("self.w = nn.Parameter(torch.roll(torch.zeros(3, 4), 1, 0))\n"
     "self.v = nn.Parameter(torch.fft.ifft(torch.randn(2, 3)).real)", 12 + 6),
    # coqui-TTS's InvConvNear flips a column by the determinant's sign: either way the same shape.
    ("w = torch.linalg.qr(torch.randn(4, 4))[0]\nd = torch.det(w)\nself.w = nn.Parameter(w)", 16),
])
def test_one_process_versions_eval_and_more_tensor_shapes(body: str, total: int) -> None:
    assert counts(run(_net(body, "import torch\n"))) == {"Net": total}


@pytest.mark.parametrize("body, reason", [
    # A branch on a random tensor's value was taken as true (a TensorV's truth was a dataclass's), silently.
    ("w = torch.randn(4, 4)\nif torch.det(w) < 0:\n    self.fc = nn.Linear(2, 2)\nelse:\n    self.fc = nn.Linear(3, 3)",
     "`torch.det(w) < 0`: the truth of a tensor whose values the analyser does not compute"),
    ("self.fc = nn.Linear(2, 2)\nif self.fc.weight:\n    self.g = nn.Linear(1, 1)", "the truth of a tensor of 4 values"),
    ("k = eval(WIDTH)\nself.fc = nn.Linear(k, 1)", "the code calls `eval` on a value that is not a known string"),
    ("k = eval('(')\nself.fc = nn.Linear(k, 1)", "the string does not parse as an expression"),
    ("w = torch.zeros(4, 2)\nself.w = nn.Parameter(w[torch.arange(6)])", "an index out of range for a dimension of 4"),
])
def test_what_the_values_of_tensors_or_strings_decide_is_not_guessed(body: str, reason: str) -> None:
    assert reason in lc101(run(_net(body, "import torch\nWIDTH = 3\n")))["Net"]


def test_import_of_a_projects_submodule_makes_it_an_attribute_of_its_package(tmp_path) -> None:
    # litgpt's `import litgpt.model; getattr(litgpt.model, self.mlp_class_name)`: "`model` is not defined in `__init__`".
    package = tmp_path / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mods.py").write_text("import torch.nn as nn\nclass MLP(nn.Module):\n    def __init__(self):\n"
                                     "        super().__init__()\n        self.fc = nn.Linear(4, 4)\n")
    (package / "main.py").write_text("import torch.nn as nn\nimport pk.mods\nclass Net(nn.Module):\n"
                                     "    def __init__(self):\n        super().__init__()\n"
                                     "        self.mlp = getattr(pk.mods, 'MLP')()\n")
    report = analyze_text((package / "main.py").read_text(), str(package / "main.py"),
                          AnalyzeOptions(base_dir=str(package)))
    assert counts(report) == {"Net": 20}, report.problems


def test_a_buffer_of_a_length_given_by_a_formula_leaves_a_module_of_no_parameters_counted() -> None:
    # audiocraft's RotaryEmbedding: `torch.arange(0, dim, 2)` of a dim with no default was refused.
    source = """
        import torch
        import torch.nn as nn
        class Rope(nn.Module):
            def __init__(self, dim: int, max_period: float = 10000.0):
                super().__init__()
                adim = torch.arange(0, dim, 2)[: (dim // 2)]
                self.register_buffer("frequencies", 1.0 / (max_period ** (adim / dim)))
        class Weighted(nn.Module):
            def __init__(self, dim: int):
                super().__init__()
                self.w = nn.Parameter(torch.arange(1, dim, 3).float())
    """
    report = run(source)
    assert counts(report) == {"Rope": 0}
    assert "parameters = len(range(1, dim, 3))" in lc101(report)["Weighted"]


@pytest.mark.parametrize("body, total", [
    # diffusers / transformers: `version.parse(version.parse(torch.__version__).base_version) >= ...`.
    ("v = version.parse(version.parse(torch.__version__).base_version)\n"
     "k = 2 if v >= version.parse('2.1.0') and v.major == 2 and v.release[:2] == (2, 13) else 3\n"
     "self.fc = nn.Linear(k, 1)", 3),
    ("k = 2 if version.parse('1.9') == version.parse('1.9.0') and str(version.parse('2.0')) == '2.0' else 3\n"
     "self.fc = nn.Linear(k, 1)", 3),
])
def test_packaging_versions_of_plain_releases(body: str, total: int) -> None:
    assert counts(run(_net(body, "import torch\nfrom packaging import version\n"))) == {"Net": total}


def test_formulas_count_a_bool_as_its_int_and_isfunction_of_an_unknown_says_why() -> None:
    source = """
        import torch.nn as nn
        from inspect import isfunction
        from elsewhere import width
        def default(val, d):
            return val if val is not None else (d() if isfunction(d) else d)
        class LabelEmbedding(nn.Module):
            def __init__(self, num_classes, dropout_prob=0.1):
                super().__init__()
                self.table = nn.Embedding(num_classes + (dropout_prob > 0), 16)
        class FeedForward(nn.Module):
            def __init__(self, dim, dim_out=None):
                super().__init__()
                self.fc = nn.Linear(dim, default(dim_out, dim))
        class Outside(nn.Module):
            def __init__(self, dim_out=None):
                super().__init__()
                self.fc = nn.Linear(2, default(dim_out, width()))
    """
    refused = lc101(run(source))
    assert refused["LabelEmbedding"].endswith("parameters = 16·num_classes + 16")
    # A formula stands for a number, never a function: lucidrains' `default` keeps it.
    assert refused["FeedForward"].endswith("parameters = dim² + dim")
    assert "the condition `isfunction(d)` (line 6) depends on `elsewhere.width`, which is outside" in refused["Outside"]


def test_a_subclass_of_a_module_class_defined_under_a_condition_not_followed_is_said() -> None:
    # diffusers' `LayerNorm = nn.LayerNorm` or `class LayerNorm(nn.Module)` by torch's version: a
    # `class Sub(LayerNorm)` with no layer of its own had no row and no warning.
    source = """
        import torch
        import torch.nn as nn
        from somewhere import new_enough
        if new_enough():
            LayerNorm = nn.LayerNorm
        else:
            class LayerNorm(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.weight = nn.Parameter(torch.ones(dim))
        class Sub(LayerNorm):
            def __init__(self):
                super().__init__(32)
    """
    assert "whether it is a module is not known: its base cannot be followed" in lc101(run(source))["Sub"]


def test_a_branch_on_an_unknown_that_only_initialises_either_way_is_skipped_and_one_that_continues_is_not() -> None:
    # esm's MultiheadAttention: `if self.qkv_same_dim:` only picks the xavier gain; the formula was lost.
    source = """
        import math
        import torch.nn as nn
        class MHA(nn.Module):
            def __init__(self, embed_dim, kdim=None):
                super().__init__()
                self.qkv_same_dim = (kdim or embed_dim) == embed_dim
                self.k = nn.Linear(embed_dim, embed_dim)
                if self.qkv_same_dim:
                    nn.init.xavier_uniform_(self.k.weight, gain=1 / math.sqrt(2))
                else:
                    nn.init.xavier_uniform_(self.k.weight)
        class Loop(nn.Module):
            def __init__(self, n, skip):
                super().__init__()
                self.layers = nn.ModuleList()
                for i in range(3):
                    if skip:
                        continue
                    self.layers.append(nn.Linear(2, 2))
    """
    refused = lc101(run(source))
    assert refused["MHA"].endswith("parameters = embed_dim² + embed_dim")
    assert "the condition `skip`" in refused["Loop"]


def test_a_call_of_an_unknown_arguments_method_names_the_argument_once() -> None:
    # BigVGAN's `if self.h.get("use_cuda_kernel", False):` said "... depends on `self.h.get(...)` calls
    # an unresolved value: ...".
    source = "import torch.nn as nn\nclass AMP(nn.Module):\n    def __init__(self, h):\n        super().__init__()\n" \
             "        self.h = h\n        if self.h.get('use_cuda_kernel', False):\n            self.a = nn.Linear(2, 2)\n"
    assert lc101(run(source))["AMP"].endswith("the condition `self.h.get('use_cuda_kernel', False)` (line 6) depends on "
                                              "the constructor argument `h` with no default")


@pytest.mark.parametrize("body, total", [
    # Cadene's DPN: `if block_type is 'proj':` with the default 'proj' (CPython interns such strings).
    ("kind = 'proj'\nself.fc = nn.Linear(2, 2 if kind is 'proj' else 3)\nassert kind is not 'normal'", 6),
    # sam2's RoPE: `torch.div(t, 8, rounding_mode="floor")`, then ones_like of it.
    ("t = torch.div(torch.arange(8.0), 2, rounding_mode='floor')\nself.w = nn.Parameter(torch.ones_like(t))", 8),
])
def test_interned_string_identity_and_rounded_division(body: str, total: int) -> None:
    assert counts(run(_net(body, "import torch\n"))) == {"Net": total}


def test_string_identity_beyond_interning_a_torch_nn_typo_and_a_plain_object_in_a_sequential_are_said() -> None:
    refused = lc101(run(_net("a = 'x y'\nb = 'x y'\nself.fc = nn.Linear(2 if a is b else 3, 1)")))
    assert "whether two equal strings are one object is CPython's caching" in refused["Net"]
    assert "module 'torch.nn' has no attribute 'BatchNorm1D' (AttributeError)" in lc101(run(_net(
        "self.bn = nn.BatchNorm1D(8)")))["Net"]
    source = _net("self.seq = nn.Sequential(nn.Linear(2, 2), Cfg())", "class Cfg:\n    pass\n")
    assert "(a `Cfg` object, not a module)" in lc101(run(source))["Net"]


def test_a_formula_keeps_an_operands_parentheses_and_no_more() -> None:
    # performer's `nb_rows / nb_columns` of `dim // 8` read `... / dim // 8`.
    source = "import math\nimport torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self, dim):\n" \
             "        super().__init__()\n        k = int(8 * math.floor(dim * 0.0625))\n" \
             "        self.fc = nn.Linear(1, int((dim // 8) * 1.5) + k // 2, bias=False)\n"
    message = lc101(run(source))["Net"]
    assert "int((dim // 8) * 1.5)" in message and "(int(8·floor(dim * 0.0625))) // 2" not in message, message


def test_a_float_arange_of_an_unknown_bound_is_a_formula_length() -> None:
    # FastPitch's PositionalEmbedding: `torch.arange(0.0, demb, 2.0)` of a demb with no default, a buffer.
    source = "import torch\nimport torch.nn as nn\nclass Pos(nn.Module):\n    def __init__(self, demb):\n" \
             "        super().__init__()\n        self.register_buffer('f', 1 / (10000 ** (torch.arange(0.0, demb, 2.0) / demb)))\n" \
             "class W(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n" \
             "        self.w = nn.Parameter(torch.arange(0.0, d, 2.0))\n"
    report = run(source)
    assert counts(report) == {"Pos": 0} and lc101(report)["W"].endswith("parameters = len(arange(0.0, d, 2.0))")


def test_an_enum_default_of_the_config_a_class_is_counted_with_stays_its_member() -> None:
    # gemma_pytorch: `architecture: Architecture = Architecture.GEMMA_1`; each class gets a copy of
    # the default config, and a copy of an enum member is the member (Enum.__deepcopy__).
    report = run("""
        import dataclasses, enum
        import torch.nn as nn

        class Architecture(enum.Enum):
            GEMMA_1 = 1
            GEMMA_2 = 2

        @dataclasses.dataclass
        class Config:
            architecture: Architecture = Architecture.GEMMA_1
            hidden: int = 8

        class Model(nn.Module):
            def __init__(self, config: Config):
                super().__init__()
                if config.architecture == Architecture.GEMMA_1 and config.architecture is Architecture.GEMMA_1:
                    self.fc = nn.Linear(config.hidden, config.hidden)
                else:
                    raise ValueError(config.architecture)
    """)
    assert counts(report) == {"Model": 72}


@pytest.mark.parametrize("call, reason", [
    ("islice(cycle([1, 2]), -1)", "raises ValueError: islice's indices must be None or 0 or more"),
    ("islice([1, 2], 0, 2, 0)", "raises ValueError: islice's indices must be None or 0 or more"),
    ("islice(cycle([1, 2]), 1, None)", "cycles without end"),
])
def test_islice_bounds_python_refuses_or_that_never_end_are_said(call: str, reason: str) -> None:
    report = run(_net(f"self.fc = nn.ModuleList(nn.Linear(2, 2) for _ in {call})\n",
                      "from itertools import cycle, islice\n"))
    assert reason in lc101(report)["Net"]


def test_the_type_of_a_function_of_the_code_is_python_s_function_type() -> None:
    report = run(_net("n = 1 + (type(f) is types.LambdaType) + 2 * (type(f) == types.FunctionType)"
                      " + 4 * (type(lambda: 0) is FunctionType) + 8 * (type(f) == functools.partial)\n"
                      "self.fc = nn.Linear(n, 1, bias=False)\n",
                      "import functools, types\nfrom types import FunctionType\ndef f(x):\n    return x\n"))
    assert counts(report) == {"Net": 8}


@pytest.mark.parametrize("new_body, reason", [
    # Followed: a factory that returns another class's module (no __init__ of its own runs).
    ("return Other(4)", None),
    # Not followed: an instance of the class itself, a cache in the class, what cannot be built.
    ("return super().__new__(cls)", "runs `Made.__new__`, which the analyser does not follow"),
    ("cls.made = Other(4)\n        return cls.made",
     "runs `Made.__new__`, which the analyser does not follow: it changes a global or a class attribute"),
    ("return helper()", "runs `Made.__new__`, which the analyser does not follow: "),
])
def test_a_new_that_returns_another_module_is_followed(new_body: str, reason: str | None) -> None:
    report = run(f"""
        import torch.nn as nn
        from elsewhere import helper

        class Other(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, d)

        class Made(nn.Module):
            def __new__(cls, *args):
                {new_body}

            def __init__(self):
                super().__init__()
                self.extra = nn.Linear(100, 100)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.m = Made()
    """)
    if reason is None:
        assert counts(report)["Net"] == 20 and counts(report)["Made"] == 20
    else:
        assert reason in lc101(report)["Net"]


def test_super_init_reaches_a_mixin_only_where_it_comes_before_nn_module() -> None:
    report = run("""
        import torch.nn as nn

        class Mixin:
            def __init__(self, d=3):
                super().__init__()
                self.extra = nn.Linear(d, d)

        class ModuleFirst(nn.Module, Mixin):
            def __init__(self):
                super().__init__()  # nn.Module's: Mixin.__init__ does not run
                self.fc = nn.Linear(2, 2)

        class MixinFirst(Mixin, nn.Module):
            def __init__(self):
                super().__init__()  # Mixin's, whose super() is nn.Module's
                self.fc = nn.Linear(2, 2)
    """)
    assert counts(report) == {"ModuleFirst": 6, "MixinFirst": 18}


def test_globals_is_the_module_s_names() -> None:
    report = run(_net("self.fc = globals()['make'](3)\nself.other = globals().get('missing', nn.Identity)()\n",
                      "def make(d):\n    return nn.Linear(d, d)\n"))
    assert counts(report) == {"Net": 12}


@pytest.mark.parametrize("branch, counted", [
    ("w[:, 0] = -1 * w[:, 0]", True),  # glow-tts: values rewritten in place, the same shapes either way
    ("w[0] *= 2\n    w[1] = 0", True),
    ("sizes[0] = 8", False),  # a list, not a tensor: a size may change
    ("w = w[:, :2]", False),  # a new tensor, another shape
])
def test_a_branch_on_random_values_that_only_rewrites_them_is_not_taken(branch: str, counted: bool) -> None:
    report = run(_net(f"sizes = [4]\nw = torch.randn(4, 4)\nif torch.det(w) < 0:\n    {branch}\n"
                      "self.w = nn.Parameter(w)\nself.fc = nn.Linear(sizes[0], 1)\n", "import torch\n"))
    if counted:
        assert counts(report) == {"Net": 21}
    else:
        assert "the truth of a tensor whose values the analyser does not compute" in lc101(report)["Net"]


def test_a_reason_is_said_once_and_reads_as_a_clause() -> None:
    # TFT's GateAddNorm passes its own `hidden_size or input_size` to a GLU that writes the same.
    report = run("""
        import torch.nn as nn
        from elsewhere import helper

        class GLU(nn.Module):
            def __init__(self, input_size, hidden_size=None):
                super().__init__()
                self.hidden_size = hidden_size or input_size
                self.fc1 = nn.Linear(input_size, self.hidden_size)

        class GateAddNorm(nn.Module):
            def __init__(self, input_size, hidden_size=None):
                super().__init__()
                self.hidden_size = hidden_size or input_size
                self.glu = GLU(input_size, hidden_size=self.hidden_size)

        class Helped(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2 if helper() is None else 3)
    """)
    refused = lc101(report)
    assert refused["GateAddNorm"].count("depends on") == 1
    assert "depends on `elsewhere.helper`, which is outside this file" in refused["Helped"]


@pytest.mark.parametrize("body, total, trainable", [
    # `.data` is another tensor object: a flag set on it leaves the parameter trainable.
    ("self.a.weight.data.requires_grad = False\n", 20, 20),
    ("self.a.weight.data.requires_grad_(False)\nself.a.weight.data.normal_(0, 0.02)\n", 20, 20),
    ("self.a.weight.requires_grad = False\n", 20, 4),
    # detach_() of a leaf parameter: it no longer requires grad (MobileOne's reparameterize).
    ("for p in self.a.parameters():\n    p.detach_()\n", 20, 0),
])
def test_data_and_detach_in_place_as_torch_flags_them(body: str, total: int, trainable: int) -> None:
    report = run(_net("self.a = nn.Linear(4, 4)\n" + body))
    assert [(m.tree.total, m.tree.trainable) for m in report.models] == [(total, trainable)]


@pytest.mark.parametrize("body, total", [
    # torch's methods called through its classes on the module (a U-Net's add_module override calls
    # torch's; metric-learning heads register so), and nn.Module's __delattr__ by name.
    ("nn.Module.add_module(self, 'b', nn.Linear(2, 3))\n", 29),
    ("torch.nn.Module.register_parameter(self, 'w', nn.Parameter(torch.zeros(5)))\n", 25),
    ("nn.Module.register_buffer(self, 'buf', torch.zeros(5))\n", 20),
    ("nn.Module.__delattr__(self, 'a')\n", 0),
    ("self.__delattr__('a')\n", 0),
    ("self._modules.pop('a')\n", 0),
    ("nn.Module.requires_grad_(self, False)\n", 20),
])
def test_torch_s_module_methods_through_the_class_or_by_name(body: str, total: int) -> None:
    report = run(_net("self.a = nn.Linear(4, 4)\n" + body, "import torch\n"))
    assert counts(report) == {"Net": total}


@pytest.mark.parametrize("kind, layer", [("module", None), ("layer", "LSTM"), ("layer", "Linear"), ("list", None),
                                         ("seq", None), ("plist", None), ("dict", None), ("pdict", None)])
def test_every_module_method_the_analyser_follows_is_in_the_names_it_looks_up(kind: str, layer: str | None) -> None:
    # _module_method answers None at once for a name outside module_method_names(), which is made from
    # the tables of a few kinds of module: a method only another kind's table has would never be found.
    from lsp_count.pymodel.interp import Ctx, Interpreter, _module_methods, module_method_names
    from lsp_count.pymodel.values import Inst

    obj = Inst(None, kind, True)
    if layer is not None:
        obj.layer_args = (layer, {})
    methods = _module_methods(Interpreter(Ctx(())), obj, "append")
    assert methods and set(methods) <= module_method_names()


def test_a_torch_method_through_the_class_the_analyser_has_no_model_of_is_said() -> None:
    report = run(_net("self.a = nn.Linear(4, 4)\nnn.Module.compile(self)\n"))
    assert "calls torch's `nn.Module.compile`, which the analyser does not follow" in lc101(report)["Net"]


@pytest.mark.parametrize("expr, value", [
    ("np.int64(np.sum([2, 6]))", 8), ("np.int32(4) * 2", 8), ("np.int64(7.9)", 7), ("abs(np.int64(-7.9))", 7),
    ("int(np.float64(3) * 2)", 6), ("np.uint8(255)", 255),
])
def test_numpy_integer_types_of_python_numbers(expr: str, value: int) -> None:
    report = run(_net(f"self.fc = nn.Linear({expr}, 1, bias=False)\n", "import numpy as np\n"))
    assert counts(report) == {"Net": value}


@pytest.mark.parametrize("expr, reason", [
    ("np.uint8(256)", "raises OverflowError: 256 is out of the bounds of numpy's uint8"),
    ("np.int(8)", "raises AttributeError: numpy has no `int` since numpy 1.24"),
])
def test_numpy_integers_out_of_range_and_removed_aliases_raise(expr: str, reason: str) -> None:
    report = run(_net(f"self.fc = nn.Linear({expr}, 1)\n", "import numpy as np\n"))
    assert reason in lc101(report)["Net"]


def test_a_checkpoint_read_is_named_as_one() -> None:
    report = run(_net("state = model_zoo.load_url('https://example.invalid/w.pth')\n"
                      "self.fc = nn.Linear(2, 2 if 'fc' in state else 3)\n", "import torch.utils.model_zoo as model_zoo\n"))
    assert "the checkpoint that `torch.utils.model_zoo.load_url` reads (a file or a download)" in lc101(report)["Net"]


def test_a_project_module_s_dict_is_its_names(tmp_path) -> None:
    (tmp_path / "zoo.py").write_text("import torch.nn as nn\ndef net_small(d=3):\n    return nn.Linear(d, d)\n")
    report = run("""
        import sys
        import torch.nn as nn
        import zoo

        def local(d=2):
            return nn.Linear(d, d)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = zoo.__dict__["net_small"](d=4)
                self.b = sys.modules[__name__].__dict__["local"]()
    """, str(tmp_path / "model.py"))
    assert counts(report) == {"Net": 26}


@pytest.mark.parametrize("abc", ["typing.Sequence", "collections.abc.Sequence", "collections.abc.Mapping"])
def test_modules_and_parameters_are_not_sequences_or_mappings(abc: str) -> None:
    # open_clip's lock(): a recursive `_unlock` tells a list of groups from a module or a Parameter.
    report = run(_net(f"self.a = nn.Linear(2, 2)\nself.p = nn.Parameter(torch.zeros(3))\n"
                      f"seen = [isinstance(x, {abc}) for x in (self.a, self.p, [self.a], self)]\n"
                      "self.fc = nn.Linear(1 + seen.count(True), 1, bias=False)\n",
                      "import collections.abc, typing\nimport torch\n"))
    assert counts(report) == {"Net": 6 + 3 + (2 if "Sequence" in abc else 1)}


def test_a_named_tuple_s_defaults_set_on_its_new() -> None:
    # EfficientNet-PyTorch: `GlobalParams.__new__.__defaults__ = (None,) * len(GlobalParams._fields)`.
    report = run(_net("gp = Params(momentum=0.99)\nself.bn = nn.BatchNorm2d(4 if gp.width is None else gp.width, "
                      "momentum=1 - gp.momentum)\nself.fc = nn.Linear(Sizes(3).depth, 1)\n", """
        import collections
        Params = collections.namedtuple('Params', ['width', 'momentum'])
        Params.__new__.__defaults__ = (None,) * len(Params._fields)
        Sizes = collections.namedtuple('Sizes', ['width', 'depth'], defaults=(1, 2))
        Sizes.__new__.__defaults__ = (5,)
    """))
    assert counts(report) == {"Net": 8 + 6}


def test_a_module_the_project_s_package_lacks_fails_with_nothing_to_note(tmp_path) -> None:
    # open_clip: `try: from timm.models.layers.x import Pool` / `except ImportError: from timm.layers import Pool`.
    pkg = tmp_path / "extlib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text("import torch.nn as nn\nclass Pool(nn.Linear):\n    pass\n")
    report = analyze_text(textwrap.dedent("""
        import torch.nn as nn
        try:
            from extlib.old_layers import Pool
        except ImportError:
            from extlib.layers import Pool

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.p = Pool(2, 2)
    """), str(tmp_path / "model.py"), AnalyzeOptions())
    assert counts(report) == {"Net": 6}
    assert not [p for p in report.problems if p.code == "LC106"]


@pytest.mark.parametrize("body, outcome", [
    ("rows = [r.shape[0] for r in torch.randn(3, 5)]\nself.fc = nn.Linear(sum(rows), 1, bias=False)\n", 15),
    ("for w in nn.Parameter(torch.zeros(2, 4)):\n    self.fc = nn.Linear(w.shape[0], 1, bias=False)\n", 4),
    ("dpr = [x.item() for x in torch.linspace(0, 0.1, n)]\n",
     "iterating over `torch.linspace(0, 0.1, n)` depends on its length, the constructor argument `n` with no default"),
])
def test_iterating_over_a_tensor_gives_its_rows(body: str, outcome: int | str) -> None:
    src = "import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self, n=None):\n" \
          "        super().__init__()\n" + textwrap.indent(body, "        ")
    report = run(src.replace("n=None", "n") if isinstance(outcome, str) else src)
    if isinstance(outcome, str):
        assert outcome in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": outcome}


@pytest.mark.parametrize("dtype, total", [("torch.float8_e4m3fn", 60000 + 6), ("torch.bfloat16", 60000)])
def test_a_parameter_s_dtype_named_where_it_was_made_is_known(dtype: str, total: int) -> None:
    # DeepSeek-V3's inference Linear: an fp8 weight gets a block scale.
    report = run(_net(f"self.weight = nn.Parameter(torch.empty(200, 300, dtype={dtype}))\n"
                      "if self.weight.element_size() == 1 and self.weight.dtype == torch.float8_e4m3fn:\n"
                      "    self.scale = nn.Parameter(torch.empty(2, 3, dtype=torch.float32))\n"
                      "assert self.weight.data.dtype == self.weight.dtype and self.weight.itemsize == "
                      "self.weight.element_size()\n", "import torch\n"))
    assert counts(report) == {"Net": total}


@pytest.mark.parametrize("body, outcome", [
    ("n = 1 + (torch.half == torch.float16) + (torch.float == torch.float32) + (torch.long == torch.int64)\n", 4),
    ("n = torch.empty(2, dtype=torch.half).element_size() + torch.zeros(1, dtype=torch.cdouble).element_size()\n", 18),
    # Cast by the module: its floating-point parameters are in the dtype of the cast (torch: 2 bytes,
    # so w's 2 and fc's 2).
    ("self.w = nn.Parameter(torch.empty(2, dtype=torch.float32))\nself.half()\nn = self.w.element_size()\n", 4),
    ("n = torch.randn(2).element_size()\n", 4),  # the default dtype, float32
    # A cast the analyser does not follow (`type` of a module) leaves the dtype not known.
    ("self.w = nn.Parameter(torch.empty(2))\nself.type(torch.float16)\nn = self.w.element_size()\n",
     "does not follow a tensor's `element_size`"),
    ("n = (torch.arange(3) + torch.randn(3)).element_size()\n", "does not follow a tensor's `element_size`"),
])
def test_dtypes_are_one_under_either_name_and_unknown_after_a_cast(body: str, outcome: int | str) -> None:
    report = run(_net(body + "self.fc = nn.Linear(n, 1, bias=False)\n", "import torch\n"))
    if isinstance(outcome, str):
        assert outcome in lc101(report)["Net"]
    else:
        assert counts(report)["Net"] == outcome


@pytest.mark.parametrize("expr, shape", [
    ("np.cos(np.zeros((3, 4)))", (3, 4)), ("np.power(np.zeros((2, 1)), np.zeros(5))", (2, 5)),
    ("np.transpose(np.zeros((2, 3, 4)))", (4, 3, 2)), ("np.transpose(np.zeros((2, 3, 4)), (1, 0, 2))", (3, 2, 4)),
    ("np.concatenate([np.zeros((2, 3)), np.zeros((1, 3))])", (3, 3)),
    ("np.concatenate([np.zeros((2, 3)), np.zeros((2, 1))], axis=1)", (2, 4)),
    ("np.stack([np.zeros(3), np.zeros(3)], axis=1)", (3, 2)),
    ("np.append(np.zeros((2, 2)), np.zeros(3))", (7,)), ("np.append(np.zeros((2, 2)), np.zeros((1, 2)), axis=0)", (3, 2)),
])
def test_numpy_array_functions_give_numpy_s_shapes(expr: str, shape: tuple[int, ...]) -> None:
    expected = np.asarray(eval(expr, {"np": np})).shape  # noqa: S307 - the test's own expression
    assert expected == shape
    report = run(_net(f"self.p = nn.Parameter(torch.tensor({expr}))\n", "import numpy as np\nimport torch\n"))
    assert counts(report) == {"Net": int(np.prod(shape))}


def test_numpy_shapes_that_do_not_fit_raise_as_numpy_does() -> None:
    report = run(_net("self.p = nn.Parameter(torch.tensor(np.concatenate([np.zeros((2, 3)), np.zeros((2, 4))])))\n",
                      "import numpy as np\nimport torch\n"))
    assert "raises ValueError" in lc101(report)["Net"]


def test_argparse_defaults_and_options_given_in_a_list() -> None:
    report = run("""
        import argparse
        import torch.nn as nn

        parser = argparse.ArgumentParser()
        parser.add_argument("--dim", type=int, default=8)
        parser.add_argument("--depth", default="2", type=int)  # a string default goes through its type
        parser.add_argument("--no-bias", action="store_true")
        group = parser.add_argument_group("extra")
        group.add_argument("--width-mult", dest="mult", type=float, default=1.5)
        parser.set_defaults(depth=3)
        args = parser.parse_args()

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList(nn.Linear(args.dim, int(args.dim * args.mult), bias=not args.no_bias)
                                            for _ in range(args.depth))

        class Given(nn.Module):
            def __init__(self):
                super().__init__()
                a, rest = parser.parse_known_args(["--dim", "4", "--no-bias", "--depth=1"])
                self.fc = nn.Linear(a.dim, a.depth, bias=not a.no_bias)

        class Required(nn.Module):
            def __init__(self):
                super().__init__()
                p = argparse.ArgumentParser()
                p.add_argument("data")
                self.fc = nn.Linear(len(p.parse_args([]).data), 1)
    """)
    assert counts(report) == {"Net": 3 * (8 * 12 + 12), "Given": 4}
    assert "argparse exits: the argument `data` is required" in lc101(report)["Required"]
    note = next(p.message for p in report.problems if p.code == "LC106")
    assert ("counted with the arguments' defaults, as for a command line that gives none (--script-args gives "
            "one): `parse_args()`") in note


def test_a_plain_class_whose_new_returns_a_module_is_that_module() -> None:
    # muzero-general's MuZeroNetwork: `self.model = MuZeroNetwork(config)` holds the network it makes.
    report = run("""
        import torch.nn as nn
        from elsewhere import pick

        class Factory:
            def __new__(cls, n):
                return nn.Linear(n, n)

        class Cached:
            made = None
            def __new__(cls):
                return super().__new__(cls)
            def __init__(self):
                self.width = 3

        class Opaque:
            def __new__(cls):
                return pick()

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = Factory(4)
                self.fc = nn.Linear(Cached().width, 1)

        class Hidden(nn.Module):
            def __init__(self):
                super().__init__()
                self.model = Opaque()
    """)
    assert counts(report)["Net"] == 20 + 4
    assert "runs `Opaque.__new__`, which the analyser does not follow" in lc101(report)["Hidden"]


@pytest.mark.parametrize("expr, value", [
    ("np.array([16, 8])[0] < 0", False), ("np.array([16, 8])[0] == 16", True), ("np.array([16, 8]).sum() != 24", False),
    ("(torch.tensor([1.5, 3.0]) > 2).any()", None), ("bool(torch.tensor([3, 5]).maximum(torch.tensor([4, 1]))[1] == 5)", True),
])
def test_comparisons_of_tensors_of_known_values_are_their_values(expr: str, value: bool | None) -> None:
    report = run(_net(f"self.fc = nn.Linear(2 if {expr} else 3, 1)\n", "import numpy as np\nimport torch\n"))
    if value is None:
        assert "the truth of a tensor whose values the analyser does not compute" in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": 3 if value else 4}


@pytest.mark.parametrize("expr, shape", [
    ("g.max(-1, keepdim=True)[0]", (3, 1)), ("g.min(0).values", (4,)), ("g.max()", ()), ("torch.max(g, 1)[1]", (3,)),
    ("g.argmax(-1)", (3,)), ("(g > 0).all(-1)", (3,)), ("g.any()", ()), ("torch.topk(g, 2)[0]", (3, 2)),
    ("g.topk(2, dim=0).indices", (2, 4)), ("torch.sort(g, dim=0)[1]", (3, 4)), ("g.max(torch.zeros(1, 4))", (3, 4)),
])
def test_reductions_with_indices_give_torch_s_shapes(expr: str, shape: tuple[int, ...]) -> None:
    import torch

    g = torch.randn(3, 4)
    assert tuple(eval(expr, {"torch": torch, "g": g}).shape) == shape  # noqa: S307 - the test's own expression
    report = run(_net(f"g = torch.randn(3, 4)\nself.p = nn.Parameter(torch.zeros_like({expr}, dtype=torch.float))\n",
                      "import torch\n"))
    assert counts(report) == {"Net": int(np.prod(shape))}


@pytest.mark.parametrize("body, outcome", [
    # CSWin's `trunc_normal_(self.head.weight)` of an nn.Identity() head: torch raises.
    ("self.head = nn.Identity()\nnn.init.trunc_normal_(self.head.weight, std=0.02)\n",
     "`self.head.weight` raises AttributeError: 'Identity' object has no attribute 'weight'"),
    ("self.head = nn.ReLU()\nself.fc = nn.Linear(2, 2 if hasattr(self.head, 'bias') else 3)\n", 9),
    ("self.loss = nn.CrossEntropyLoss()\nself.fc = nn.Linear(2, 2 if self.loss.weight is None else 3)\n", 6),
    ("self.fc = nn.Linear(2, 2, bias=False)\nself.g = nn.Linear(2, 2 if self.fc.bias is None else 3)\n", 4 + 6),
])
def test_a_weight_a_torch_layer_does_not_have_is_an_attribute_error(body: str, outcome: int | str) -> None:
    report = run(_net(body))
    if isinstance(outcome, str):
        assert outcome in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": outcome}


@pytest.mark.parametrize("body, total", [
    # DCN's and Mask R-CNN's `_pair(kernel_size)`; VanillaNet's fused `torch.matmul` weights.
    ("k = _pair(3) + _triple([1, 2, 3]) + _single(range(2)) + _pair('ab')\nself.fc = nn.Linear(len(k), k[0])\n", 30),
    ("w = torch.matmul(torch.zeros(4, 3), torch.zeros(3, 5))\nself.p = nn.Parameter(w.mm(torch.zeros(5, 2)))\n", 8),
    # CenterNet's DLAUp: an int array's values, written in place in a loop.
    ("s = np.array([1, 2, 4], dtype=int)\ns[1:] = s[0]\ns[0] = 7.9\nself.fc = nn.Linear(int(s[0]) + int(s[2]), 1)\n", 9),
    ("self.fc = nn.Linear(int(np.round(2.5)) + int(np.clip(9, 0, 4)) + int(np.abs(-3)), 1)\n", 10),
    ("xs, ys = np.meshgrid(np.array([1, 2, 3]), np.array([4.0, 5.0]))\nself.p = nn.Parameter(torch.tensor(xs))\n", 6),
    ("self.log_dir = os.path.join(os.getcwd(), f'{datetime.datetime.now():%Y}').replace('a', 'b')\n"
     "self.fc = nn.Linear(2, 2)\n", 6),
])
def test_torch_and_numpy_helpers_and_bookkeeping_values(body: str, total: int) -> None:
    report = run(_net(body, "import datetime, os\nimport numpy as np\nimport torch\n"
                            "from torch.nn.modules.utils import _pair, _single, _triple\n"))
    assert counts(report) == {"Net": total}


def test_getattr_with_a_name_that_is_not_a_string_raises_as_python_does() -> None:
    # dreamerv3: `getattr(torch.nn, act)` where the default `act` is the class nn.ELU.
    report = run(_net("act = getattr(torch.nn, nn.ELU)()\n", "import torch\n"))
    assert "getattr raises TypeError: the attribute name must be a string" in lc101(report)["Net"]


@pytest.mark.parametrize("change, width", [
    ("t[0] = 9", 9), ("t[1:] = t[0]", 1), ("t[-1] = 2.9", 2), ("t[:] = torch.tensor([4.0, 5.0])", 5),
])
def test_values_written_at_an_index_or_a_slice_are_computed(change: str, width: int) -> None:
    import torch

    t = torch.tensor([1.0, 2.0])
    exec(change, {"t": t, "torch": torch})  # noqa: S102 - the test's own statement
    assert int(t.max().item()) == width
    report = run(_net(f"t = torch.tensor([1.0, 2.0])\n{change}\nself.p = nn.Linear(int(t.max().item()), 1)\n",
                      "import torch\n"))
    assert counts(report) == {"Net": width + 1}


def test_a_write_that_does_not_fit_raises_as_torch_does() -> None:
    report = run(_net("t = torch.tensor([1, 2, 3])\nt[:2] = torch.tensor([4, 5, 6])\n", "import torch\n"))
    assert "raises RuntimeError: 3 values do not fit 2 places" in lc101(report)["Net"]


def test_registered_names_torch_refuses_raise_key_error() -> None:
    # pytorch-widedeep: `ParameterDict["bias_" + col]` of a column named "c.x".
    for body, kind in (("self.d = nn.ParameterDict()\nself.d['bias_c.x'] = nn.Parameter(torch.zeros(4))\n", "parameter"),
                       ("self.register_parameter('w.1', nn.Parameter(torch.zeros(3)))\n", "parameter"),
                       ("self.m = nn.ModuleDict({'emb.a': nn.Linear(2, 2)})\n", "module"),
                       ("self.add_module('', nn.Linear(2, 2))\n", "module")):
        refused = lc101(run(_net(body, "import torch\n")))["Net"]
        assert f"KeyError: a {kind} name can't" in refused, body


@pytest.mark.parametrize("body, total", [
    # tabm's `getattr(nn, type, None)`: torch.nn's names are known whole.
    ("cls = getattr(nn, 'MLP', None) or Local\nself.m = cls()\n", 6),
    ("cls = getattr(nn, 'Linear', None) or Local\nself.m = cls(3, 1)\n", 4),
    ("self.fc = nn.Linear(2, 2 if hasattr(nn, 'RMSNorm') and not hasattr(nn, 'MLP') else 3)\n", 6),
    # A ParameterDict / ParameterList keeps a module as a submodule and a number as a number.
    ("self.d = nn.ParameterDict({'a': nn.Linear(2, 2), 'w': nn.Parameter(torch.zeros(3)), 'n': 5})\n", 9),
    ("self.l = nn.ParameterList([nn.Linear(2, 2), torch.zeros(2), 3])\nself.fc = nn.Linear(self.l[2], 1)\n", 12),
    # EDM's resample filter: a float32 sum of whole numbers is exact in any order.
    ("f = torch.as_tensor([1, 3, 3, 1], dtype=torch.float32)\nself.fc = nn.Linear(int(f.sum().item()), 1)\n", 9),
    # A number of a tensor the analyser does not compute, kept as a number (EDM's sigma_min).
    ("self.sigma_min = float(torch.randn(()) * 2)\nself.fc = nn.Linear(2, 2)\n", 6),
    ("self.rot = staticmethod(lambda t: t * 2)\nself.fc = nn.Linear(2, 2)\n", 6),
    ("self._configs = pickle.dumps(locals())\nself.fc = nn.Linear(2, 2)\n", 6),
])
def test_round_eight_idioms(body: str, total: int) -> None:
    report = run(_net(body, "import pickle\nimport torch\nclass Local(nn.Module):\n    def __init__(self):\n"
                            "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n"))
    assert counts(report)["Net"] == total


def test_torch_nn_names_are_torch_s() -> None:
    import torch

    from lsp_count.pymodel.layers import TORCH_NN_MODULES, TORCH_NN_OTHER_NAMES

    public = {n for n in dir(torch.nn) if not n.startswith("_")}
    assert public == set(TORCH_NN_MODULES) | TORCH_NN_OTHER_NAMES


def test_a_partialmethod_constructor_and_method() -> None:
    # openfold: `class TriangleAttentionStartingNode(TriangleAttention): __init__ = partialmethod(
    # TriangleAttention.__init__, starting=True)`.
    report = run("""
        from functools import partialmethod
        import torch.nn as nn

        class Tri(nn.Module):
            def __init__(self, c=4, starting=True):
                super().__init__()
                self.fc = nn.Linear(c, c + (1 if starting else 0))

            def width(self, extra):
                return 2 + extra

        class Ending(Tri):
            __init__ = partialmethod(Tri.__init__, starting=False)
            narrow = partialmethod(Tri.width, 1)

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.tri = Ending(c=3)
                self.fc = nn.Linear(self.tri.narrow(), 1)
    """)
    assert counts(report)["Net"] == 12 + 4


def test_plain_classes_in_an_annotation_rule_a_module_out() -> None:
    # F5-TTS's `processor: JointAttnProcessor | AttnProcessor`, called in forward.
    report = run("""
        import torch.nn as nn

        class Joint:
            pass

        class Plain:
            pass

        class Attention(nn.Module):
            def __init__(self, processor: Joint | Plain, dim: int = 4):
                super().__init__()
                self.processor = processor
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                return self.processor(self, x)
    """)
    assert counts(report) == {"Attention": 20}


def test_argparse_positionals_and_parent_parsers() -> None:
    report = run("""
        import argparse
        import torch.nn as nn

        def get_arguments():
            parser = argparse.ArgumentParser(add_help=False)
            parser.add_argument("--mlp", default="8-4")
            return parser

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                parser = argparse.ArgumentParser(parents=[get_arguments()])
                parser.add_argument("data")
                parser.add_argument("--depth", type=int, default=1)
                args = parser.parse_args(["/data", "--depth", "2"])
                sizes = [int(s) for s in args.mlp.split("-")]
                self.layers = nn.ModuleList(nn.Linear(sizes[0], sizes[1]) for _ in range(args.depth))
                self.fc = nn.Linear(len(args.data), 1)
    """)
    assert counts(report) == {"Net": 2 * 36 + 6}


def test_a_module_run_at_build_time_is_said_as_such() -> None:
    # BYOL sizes its projector by running its encoder on a dummy image.
    report = run(_net("self.enc = Encoder()\nout = self.enc(torch.randn(3, 2))\nself.head = nn.Linear(out, 1)\n",
                      "import torch\nclass Encoder(nn.Module):\n    def forward(self, x):\n        return x\n"))
    assert "running a module (`self.enc(torch.randn(3, 2))`), which happens in forward" in lc101(report)["Net"]


@pytest.mark.parametrize("build, outcome", [
    ("Args(dim=16, moe=MoE(num_experts=4))", 4 * 136 + 34),
    ("Args(dim=16)", 8 * 136 + 34),
    ("Args(16)", "passes 1 positional arguments to `Args`, which takes 0 (TypeError)"),
    ("Checked()", "runs its pydantic validators or hooks (`check`), which the analyser does not follow"),
    ("Renamed()", "a pydantic field with an alias or constraints is not followed"),
])
def test_pydantic_models_are_keyword_dataclasses(build: str, outcome: int | str) -> None:
    # llama-models' llama4 configs are pydantic models.
    report = run(_net(f"args = {build}\nself.experts = nn.ModuleList(nn.Linear(args.dim, args.moe.widths[1]) "
                      "for _ in range(args.moe.num_experts))\nself.router = nn.Linear(args.dim, args.moe.top_k)\n", """
        from typing import ClassVar
        from pydantic import BaseModel, Field, field_validator
        class MoE(BaseModel):
            num_experts: int = 8
            top_k: int = Field(2, description="experts per token")
            widths: list = Field(default_factory=lambda: [4, 8])
            registry: ClassVar[int] = 99
            _cache: int = 3
        class Args(BaseModel):
            dim: int
            moe: MoE = MoE()
        class Checked(Args):
            dim: int = 4
            @field_validator("dim")
            def check(cls, v):
                return v * 2
        class Renamed(Args):
            dim: int = Field(4, alias="hidden")
    """))
    if isinstance(outcome, str):
        assert outcome in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": outcome}


@pytest.mark.parametrize("body, total", [
    # lerobot: a str enum's member finds the dict key of its value, and the other way round.
    ("m = {'STATE': 4}\nself.fc = nn.Linear(3, 1 + m.get(Kind.STATE, 0) + m[Kind.STATE] + ('STATE' in {Kind.STATE: 1}))\n",
     3 * 10 + 10),
    ("self.fc = nn.Linear(3, 5 if Kind.STATE in {'STATE'} and Level.HIGH in [3] else 1)\n", 20),
    # pytorch-widedeep style configs: a dict subclass's items written after it is made.
    ("c = Cfg({'h': 4})\nc['h'] = 8\nc.update(w=2)\nc.setdefault('k', 5)\nself.fc = nn.Linear(c['h'], c['w'] + c['k'])\n",
     8 * 7 + 7),
])
def test_mixin_enum_keys_and_dict_subclass_writes(body: str, total: int) -> None:
    report = run(_net(body, "import enum\nclass Kind(str, enum.Enum):\n    STATE = 'STATE'\n"
                            "class Level(enum.IntEnum):\n    HIGH = 3\nclass Cfg(dict):\n    pass\n"))
    assert counts(report) == {"Net": total}


def test_a_global_rebound_in_a_constructor_is_read_by_what_it_builds_next() -> None:
    # hszhao's semseg: `global BatchNorm; BatchNorm = nn.InstanceNorm2d`, then the blocks read it.
    report = run("""
        import torch.nn as nn
        BatchNorm = nn.BatchNorm2d

        class Block(nn.Module):
            def __init__(self, c=8):
                super().__init__()
                self.bn = BatchNorm(c)

        class Second(nn.Module):
            def __init__(self):
                super().__init__()
                global BatchNorm
                BatchNorm = nn.InstanceNorm2d
                self.b = Block(8)
                self.c = Block(8)
    """)
    assert counts(report) == {"Block": 16, "Second": 0}


def test_a_star_import_gives_what_all_names(tmp_path) -> None:
    (tmp_path / "blocks.py").write_text("import torch.nn as nn\n__all__ = ['_ConvBN']\n"
                                        "def _ConvBN(c):\n    return nn.Conv2d(c, c, 1)\n"
                                        "def Hidden(c):\n    return nn.Linear(c, c)\n")
    report = run("""
        import torch.nn as nn
        from blocks import *

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.b = _ConvBN(4)

        class Missing(nn.Module):
            def __init__(self):
                super().__init__()
                self.h = Hidden(4)
    """, str(tmp_path / "model.py"))
    assert counts(report)["Net"] == 20
    assert "Missing" in lc101(report)


@pytest.mark.parametrize("body, total", [
    ("self.w = nn.Parameter(torch.Tensor())\nself.v = nn.Parameter(torch.FloatTensor())\n", 0),  # empty tensors
    ("self.add_module(name='conv', module=nn.Linear(2, 2))\n"
     "self.register_parameter(name='p', param=nn.Parameter(torch.zeros(3)))\n"
     "self.register_buffer(name='b', tensor=torch.zeros(4), persistent=False)\n", 9),
])
def test_empty_legacy_tensors_and_registration_by_keyword(body: str, total: int) -> None:
    import torch

    assert torch.Tensor().numel() == 0
    report = run(_net(body, "import torch\n"))
    assert counts(report) == {"Net": total}


@pytest.mark.parametrize("body, total", [
    # jasper/quartznet: repeat counts made with np.full, scaled in place, zipped, and repeating a list.
    ("r = np.full((4,), 1)\nr[1:3] *= 2\nsizes = sum([[c] * k for c, k in zip([2, 3, 4, 5], r)], [])\n"
     "self.m = nn.ModuleList(nn.Linear(c, 1, bias=False) for c in sizes)\n", 2 + 3 * 2 + 4 * 2 + 5),
    ("t = torch.zeros(3, 2)\nself.m = nn.ModuleList(nn.Linear(row.shape[0], 1) for _, row in zip(range(5), t))\n", 9),
    ("self.fc = nn.Linear(len([1] * np.array([3])[0]), 1)\n", 4),
    ("self.fc = nn.Linear(len([1] * torch.randint(1, 4, ())), 1)\n", "used as an int"),
])
def test_numpy_full_values_and_zipped_tensor_rows(body: str, total: int | str) -> None:
    report = run(_net(body, "import numpy as np\nimport torch\n"))
    if isinstance(total, str):
        assert total in lc101(report)["Net"]
    else:
        assert counts(report) == {"Net": total}


def test_torch_ao_quantization_modules_and_functions_are_refused_not_counted_as_nothing() -> None:
    # torch.ao's QAT Linear has nn.Linear's weight and bias: it was counted 0 (a "tensor function");
    # fuse_modules / prepare_qat change the module they are given in place: they were ignored.
    report = run("""
        import torch.nn as nn
        import torch.ao.nn.qat as nnqat
        import torch.ao.quantization as tq
        class QAT(nn.Module):
            def __init__(self):
                super().__init__()
                self.l = nnqat.Linear(8, 4, qconfig=None)
        class Sub(nnqat.Linear):
            def forward(self, x):
                return x
        class HoldsSub(nn.Module):
            def __init__(self):
                super().__init__()
                self.l = Sub(8, 4, qconfig=None)
        class Fused(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
                tq.fuse_modules(self.net, [["0", "1", "2"]], inplace=True)
    """)
    reasons = lc101(report)
    assert counts(report) == {}
    assert reasons["QAT"].endswith("`torch.ao.nn.qat.Linear` is not in the analyser's layer table")
    assert reasons["Sub"].endswith("it extends `torch.ao.nn.qat.Linear`, a torch module class the analyser has no table for")
    assert "`Sub`" in reasons["HoldsSub"]
    assert "passes it to `torch.ao.quantization.fuse_modules`" in reasons["Fused"]


def test_initialising_a_missing_bias_is_torchs_attribute_error() -> None:
    # `nn.init.zeros_(fc.bias)` of a Linear built with bias=False: torch raises; it was counted (U-ViT).
    reasons = lc101(run(_net("self.fc = nn.Linear(8, 8, bias=False)\nnn.init.zeros_(self.fc.bias)")))
    assert reasons["Net"].endswith("`nn.init.zeros_(self.fc.bias)` raises AttributeError: the tensor it initialises is None")


def test_a_relative_import_of_a_module_the_package_lacks_fails_the_import(tmp_path) -> None:
    # PaddleOCR's necks without rnn.py: Python raises ModuleNotFoundError importing the file, so no
    # class of it can be built; caught by the file's own try/except, it is an optional import.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    body = "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n"
    (package / "bad.py").write_text("import torch.nn as nn\nfrom .absent import Thing\n\n\n" + body)
    (package / "guarded.py").write_text("import torch.nn as nn\ntry:\n    from .absent import Thing\n"
                                        "except ImportError:\n    Thing = None\n\n\n" + body)
    (package / "compiled.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (package / "ext.py").write_text("import torch.nn as nn\nfrom .compiled import op\n\n\n" + body)
    bad = analyze_path(str(package / "bad.py"), AnalyzeOptions())
    assert not bad.models
    assert lc101(bad)["M"].endswith("importing the file fails: `from .absent import Thing` (line 2) raises "
                                    "ModuleNotFoundError: no module `absent.py` in the package")
    for name in ("guarded.py", "ext.py"):  # an optional import; a compiled extension module is there
        assert counts(analyze_path(str(package / name), AnalyzeOptions())) == {"M": 20}


def test_super_of_a_class_the_instance_is_not_is_pythons_type_error() -> None:
    # ConvE's "add your own model" template: `super(DistMult, self)` left in another class.
    report = run("""
        import torch.nn as nn
        class DistMult(nn.Module):
            def __init__(self):
                super(DistMult, self).__init__()
                self.e = nn.Embedding(4, 2)
        class MyModel(nn.Module):
            def __init__(self):
                super(DistMult, self).__init__()
                self.e = nn.Embedding(4, 2)
    """)
    assert counts(report) == {"DistMult": 8}
    assert "raises TypeError: obj must be an instance or subtype of type (`MyModel` is not a `DistMult`)" in \
        lc101(report)["MyModel"]


def test_arguments_to_nn_module_init_are_torchs_type_error() -> None:
    # Wayformer's placeholder class built with arguments; `super().__init__(d)` in a direct subclass.
    report = run("""
        import torch.nn as nn
        class Placeholder(nn.Module):
            pass
        class UsePlaceholder(nn.Module):
            def __init__(self):
                super().__init__()
                self.p = Placeholder(16, d=2)
        class SuperArgs(nn.Module):
            def __init__(self, d=4):
                super().__init__(d)
                self.fc = nn.Linear(d, d)
    """)
    reasons = lc101(report)
    assert counts(report) == {"Placeholder": 0}
    assert reasons["UsePlaceholder"].endswith("`Placeholder(16, d=2)` raises TypeError: `Placeholder` has no __init__ of "
                                              "its own, and nn.Module.__init__ takes no arguments (it got an unexpected "
                                              "keyword argument 'd')")
    assert reasons["SuperArgs"].endswith("`super().__init__` raises TypeError: nn.Module.__init__ takes no arguments "
                                         "(it got 1 positional argument)")


def test_an_undefined_name_is_pythons_name_error_unless_the_file_may_bind_it() -> None:
    # DANet's `math.sqrt(...)` without `import math`: NameError when the constructor runs. A name the
    # file binds somewhere (a script's `args` under `if __name__ == "__main__":`) stays not known.
    body = "self.fc = nn.Linear(4, 4)\nself.scale = math.sqrt(4)\n"
    assert lc101(run(_net(body)))["Net"].endswith("`math` (line 6) raises NameError: name 'math' is not defined")
    script = _net("self.fc = nn.Linear(args.width, 2)\n") + "\n\nif __name__ == '__main__':\n    args = object()\n"
    assert "`args` is not defined in this file" in lc101(run(script))["Net"]
    written = run(_net(body) + "\nglobals()['math'] = __import__('math')\n")  # a global written through globals()
    assert "NameError" not in lc101(written).get("Net", "")


def test_a_size_read_from_values_the_analyser_does_not_compute_says_so() -> None:
    # torch takes a numpy integer; the reason is the analyser's, not the code's mistake
    report = run("import numpy as np\nimport torch.nn as nn\nARCH = np.array([[17, 64], [64, 6]])\n"
                 "class Net(nn.Module):\n    def __init__(self, arch=ARCH):\n        super().__init__()\n"
                 "        self.fc = nn.Linear(arch[0, 0], arch[1, 1])\n")
    assert "an array's item whose value the analyser does not compute" in lc101(report)["Net"]


def test_a_module_level_statement_that_raises_is_said_where_it_is() -> None:
    # Python stops importing the file there; nothing was said (the counts read on, as past a class
    # statement Python refuses, and a class that reads what the statement sets is LC101).
    report = run("""
        import torch.nn as nn
        WIDTHS = {"a": 4}
        W = WIDTHS["b"]
        raise RuntimeError("deprecated: use model_v2.py")
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
        class Wide(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(W, 4)
    """)
    assert counts(report) == {"Net": 20}
    said = [(p.span.start.line, p.message) for p in report.problems if p.message.startswith("importing the file")]
    assert said == [
        (3, "importing the file raises here: `WIDTHS['b']` raises KeyError: 'b' (Python stops importing the file at "
            "this line; the counts read on as if it had not raised)"),
        (4, "importing the file raises here: the code raises on line 5: `RuntimeError('deprecated: use model_v2.py')` "
            "(Python stops importing the file at this line; the counts read on as if it had not raised)")]
    assert "`W` is set by code the analyser cannot follow" in lc101(report)["Wide"]
    # An optional package that is not installed is not said so (the user's machine may have it).
    quiet = run("import torch.nn as nn\ntry:\n    import apex\nexcept ImportError:\n    raise ImportError('needs apex')\n"
                + _net("self.fc = nn.Linear(4, 4)").split("\n", 1)[1])
    assert counts(quiet) == {"Net": 20}
    assert not [p for p in quiet.problems if p.message.startswith("importing the file")]


def test_a_module_level_name_read_before_anything_binds_it_is_pythons_name_error() -> None:
    # pytorch/examples' dcgan (found by a real-world sweep): `assert dataset` where only a branch
    # not taken binds it; Python stops importing there. Said as another raise is; not where a
    # function of the file may bind it (`global`) or the file writes its globals dynamically.
    source = """
        import torch.nn as nn
        choice = None
        if choice == "cifar10":
            dataset = "x"
        assert dataset
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
    """
    report = run(source)
    assert counts(report) == {"Net": 20}
    said = [(p.span.start.line, p.message) for p in report.problems if p.message.startswith("importing the file")]
    assert said == [(5, "importing the file raises here: `dataset` (line 6) raises NameError: name 'dataset' is not "
                        "defined (Python stops importing the file at this line; the counts read on as if it had not "
                        "raised)")]
    for unknowable in ("def setup():\n            global dataset\n            dataset = 1\n        setup()\n",
                       "globals()['dataset'] = 1\n", "from somewhere_else import *\n"):
        quiet = run(source.replace("        assert dataset\n", "        " + unknowable + "        assert dataset\n"))
        assert counts(quiet) == {"Net": 20}
        assert not [p for p in quiet.problems if "NameError" in p.message], unknowable


def test_super_init_reaching_a_class_the_analyser_does_not_read_is_not_known() -> None:
    # `class A(Adapter, nn.Module)`: super().__init__() runs Adapter's __init__ (a package that is not
    # installed), which may build anything; it was taken as a mixin without one. nn.Module first
    # (`class B(nn.Module, Adapter)`), torch's __init__ calls no other; the standard library's are known.
    report = run("""
        import abc
        import torch.nn as nn
        from adapters_not_installed import Adapter
        class A(Adapter, nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
        class B(nn.Module, Adapter):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
        class Mid(Adapter):
            pass
        class C(Mid, nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
        class D(abc.ABC, nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
    """)
    reasons = lc101(report)
    for name in ("A", "C"):
        assert reasons[name].endswith("reaches `adapters_not_installed.Adapter`, a class the analyser does not read, "
                                      "which may define it")
    assert counts(report) == {"B": 20, "D": 20}


def test_a_number_the_analyser_does_not_compute_set_on_a_container_is_not_one_of_its_entries() -> None:
    # A float read from a random tensor is no module: torch keeps it out of `_modules`, so the
    # container's length is its two layers and the append (torch on the CPU: 79; on the meta
    # device `.item()` raises).
    for container in ("nn.ModuleList([nn.Linear(8, 4), nn.Linear(4, 5)])", "nn.Sequential(nn.Linear(8, 4), nn.Linear(4, 5))"):
        report = run(_net(f"""
            self.l = {container}
            self.l.v = torch.randn(2).sum().item()
            self.l.append(nn.Linear(2, 2))
            self.y = nn.Linear(len(self.l), 3)
        """, "import torch\n"))
        assert counts(report) == {"Net": 36 + 25 + 6 + 12}, report.problems


def test_a_parameters_shape_changed_in_place_is_not_counted_with_its_old_shape() -> None:
    # torch.no_grad() + `w.set_(t)` makes the weight t's shape (torch: 25 + 4); it was counted as (4, 8).
    report = run(_net("""
        self.fc = nn.Linear(8, 4)
        with torch.no_grad():
            self.fc.weight.set_(torch.zeros(5, 5))
    """, "import torch\n"))
    assert lc101(report)["Net"].endswith("`self.fc.weight.set_(...)` changes the parameter's shape in place (torch "
                                         "allows it only under torch.no_grad(), or raises); the analyser does not follow it")


def test_a_copy_from_the_build_cache_holds_views_of_its_own_module_dict() -> None:
    # Three equal blocks are built once and copied; each copy's `items` view was the first build's,
    # so a freeze through it reached no module of the model (torch: 128 parameters, 16 trainable).
    report = run("""
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.d = nn.ModuleDict({"a": nn.Linear(dim, 4)})
                self.items = self.d.items()
        class Net(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.blocks = nn.ModuleList([Block(dim) for _ in range(3)])
                self.blocks[1].d["b"] = nn.Linear(4, 4)
                for b in self.blocks:
                    for k, m in b.items:
                        m.weight.requires_grad_(False)
    """)
    net = next(m for m in report.models if m.name == "Net")
    assert (net.tree.total, net.tree.trainable) == (128, 16)


@pytest.mark.parametrize("held, use", [
    # what a block holds besides its modules: a copy from the build cache holds the copy's own
    ("self.pair = (self.fc, 3)", "self.blocks[1].pair[0].requires_grad_(False)"),
    ("self.freeze_fn = functools.partial(self.fc.requires_grad_, False)", "self.blocks[2].freeze_fn()"),
    ("self.it = iter([self.fc])", "next(self.blocks[1].it).requires_grad_(False)"),
    ("self.gen = (m for m in [self.fc])", "next(self.blocks[1].gen).requires_grad_(False)"),
    ("self.freeze_fn = self.fc.requires_grad_", "self.blocks[0].freeze_fn(False)"),
    ("self.freeze_fn = lambda: self.fc.requires_grad_(False)", "self.blocks[1].freeze_fn()"),
])
def test_a_copy_from_the_build_cache_holds_its_own_modules_in_what_it_holds(held, use) -> None:
    # Three equal blocks are built once and copied; the copies' tuples, partials and iterators held
    # the first build's Linear, so freezing through them reached no module of the model (torch: 108
    # parameters, 36 of one block frozen).
    report = run(f"""
        import functools
        import torch.nn as nn
        class Block(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, 4)
                {held}
        class Net(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.blocks = nn.ModuleList([Block(dim) for _ in range(3)])
                {use}
    """)
    net = next(m for m in report.models if m.name == "Net")
    assert (net.tree.total, net.tree.trainable) == (108, 72), report.problems


def test_a_function_wrapped_with_functools_wraps_has_the_wrapped_function_s_names() -> None:
    # torchvision's builders: `@register_model()` over `@handle_legacy_interface(...)`, whose wrapper
    # `functools.wraps` the builder: the registry key is the builder's name, as Python copies it.
    report = run("""
        import functools
        import torch.nn as nn

        REGISTRY = {}


        def register(fn):
            if fn.__name__ in REGISTRY:
                raise ValueError(f"{fn.__name__} is registered twice")
            REGISTRY[fn.__name__] = fn
            return fn


        def logged(fn):
            @functools.wraps(fn)
            def inner(*args, **kwargs):
                return fn(*args, **kwargs)
            return inner


        @register
        @logged
        def small():
            return nn.Linear(2, 2)


        @register
        @logged
        def big():
            return nn.Linear(4, 4)


        model = REGISTRY["big"]()
        names = (small.__name__, big.__qualname__)
        wide = nn.Linear(3 if names == ("small", "big") and big.__module__ == logged.__module__ else 1, 1)
    """)
    assert counts(report) == {"model": 20, "wide": 4}
