"""Sizes computed by random Python statements: hypothesis strings together statements (loops
with break, continue and else, while, try / except / else / finally, functions with defaults,
*args and **kwargs, lambdas, closures with nonlocal, global, comprehensions, a class with a
property and a subclass calling super(), a diamond of super() calls, property setters,
__init_subclass__, class decorators, dataclass inheritance with __post_init__, classmethod
constructors, __getattr__ / __setattr__ of the code, generators, context managers, match, exceptions chained
and caught, list, dict and set methods, and what functools, itertools, collections,
dataclasses, typing and enum give) into a function that computes a layer's width. Python running the same function is the peer: a count must be the layer Python
would build, and a function Python raises in must not be counted. The analyser may decline a
program (LC101, said so), but never count it otherwise; the statements here are ones it follows
(it declines a caught exception's `args`, `collections.Counter`, `vars()`, `type()`
of three arguments, an int's dunder methods called by name, a set of
objects hashed by their own `__hash__`, and a `__new__` that makes the class's own instance)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_count.core.analyze import analyze_text

STATEMENTS = [
    "x = x + {k}",
    "y = x * {k} - y",
    "x, y = y, x",
    "lst.append(x)",
    "lst.extend([y, {k}])",
    "lst = lst[1:]",
    "lst.insert(0, {k})",
    "if lst:\n    lst.pop()",
    "d['k{k}'] = x",
    "d.pop('k{k}', None)",
    "x = len(d) + x",
    "for i in range({k}):\n    x += i",
    "for i in range({k}):\n    if i % 2:\n        continue\n    y += i",
    "for v in list(lst):\n    y += v",
    "while x > 10:\n    x -= 7",
    "for i in range(5):\n    if i == {k}:\n        break\nelse:\n    y += 100",
    "try:\n    x = x // (y - {k})\nexcept ZeroDivisionError:\n    x = -1",
    "try:\n    y += lst[{k}]\nexcept IndexError:\n    y += 1\nelse:\n    y -= 1\nfinally:\n    x += 1",
    "y += lst[{k}] if len(lst) > {k} else 0",
    "def f(a, b={k}, *rest, **kw):\n    return a + b + len(rest) + len(kw)\nx = f(x) + f(y, 2, 3, z=1)",
    "g = lambda a, k={k}: a * k\ny = g(y)",
    "def outer():\n    n = {k}\n    def inner():\n        nonlocal n\n        n += 1\n        return n\n    inner()\n    return inner()\nx += outer()",
    "def bump():\n    global G\n    G += {k}\n    return G\ny += bump()",
    "x = sum(i * {k} for i in range(3) if i != 1)",
    "lst = [v for v in lst if v % 2 == 0]",
    "d = {{str(i): i for i in range({k})}}",
    "x = max(lst, default={k})",
    "y = sorted(lst, reverse=True)[0] if lst else y",
    "x = x if abs(x) < 1000 else x % 1000",
    "y = y if abs(y) < 1000 else y % 997",
    "class C:\n    base = {k}\n    def __init__(self, v):\n        self.v = v + self.base\n    @property\n    def twice(self):\n"
    "        return self.v * 2\nclass D(C):\n    def __init__(self, v):\n        super().__init__(v - 1)\n"
    "        self.v += 1\nx = C(x).twice - D(y).twice",
    "x = [x, y, {k}][{k} % 3]",
    "a, *rest = [x, y, {k}]\ny = a + len(rest)",
    "x = divmod(x, {k} + 1)[0]",
    "y = -y if y < 0 else y",
    "assert x != {k} * 1000",
    "y += lst[{k}]",
    "x = x // ({k} - 3)",
    "x += d['k{k}']",
    "def gen(n):\n    for i in range(n):\n        yield i * 2\n    return -1\nx += sum(gen({k})) + next(gen({k} + 1))",
    "class Ctx:\n    def __enter__(self):\n        return {k}\n    def __exit__(self, *a):\n        return True\n"
    "with Ctx() as v:\n    x += v\n    raise KeyError\ny += 1",
    "x = int(f'{{abs(x) % 100}}{k}')",
    "x = max(*[x, y, {k}], key=lambda v: -v)",
    "d = dict(**d, extra={k})",
    "for i, (a, b) in enumerate(zip(lst, lst[1:]), start={k}):\n    y += i + a * b",
    "y = isinstance(y, int) + isinstance(lst, (dict, list)) + y",
    "x = len('-'.join(str(v) for v in lst).split('-'))",
    "s = set(lst) | {{{k}}}\ny += len(s & {{1, 2, {k}}}) - len(s - {{0}})",
    "lst = [a * b for a in range({k}) for b in range(a) if (c := a + b) > 1]",
    "if (n := len(lst)) > {k}:\n    x += n",
    "match {k} % 3:\n    case 0:\n        x += 1\n    case 1 | 2 as m:\n        x += m * 10",
    "class Boom(Exception):\n    pass\ntry:\n    try:\n        raise Boom({k})\n    except Boom as e:\n"
    "        raise ValueError('no') from e\nexcept (KeyError, ValueError):\n    x += {k}",
    "if len(lst) > 2:\n    del lst[{k} % len(lst)]",
    "lst[1:2] = [{k}, {k}, {k}]",
    "d['a'] = d.get('a', 0) + {k}\nd['a'] += 1",
    "y += 1 if 0 < x < {k} * 10 <= 1000 else 2",
    "y += any(v > {k} for v in lst) + all(lst)",
    "x += sum(reversed(range({k}, -3, -2)))",
    "x += int('1f', 16) + ord('a') - ord(chr(97 + {k}))",
    "y += round({k} + 0.5) + round(-0.5)",
    "import functools\nx += functools.reduce(lambda a, b: a * 2 + b, [1, {k}, 3])",
    "import itertools\nx += len(list(itertools.product(range(2), repeat={k} % 3))) + sum(itertools.accumulate([1, {k}]))",
    "import collections\ndd = collections.defaultdict(list)\ndd['q'].append({k})\n"
    "y += len(dd['q']) + len(dd) + len(collections.OrderedDict(a={k}, b=2))",
    "import dataclasses\n@dataclasses.dataclass\nclass P:\n    a: int = {k}\n    b: list = dataclasses.field(default_factory=list)\n"
    "p = P()\np.b.append(2)\nx += p.a + len(p.b) + len(dataclasses.astuple(p))",
    "import typing\nclass Pt(typing.NamedTuple):\n    a: int\n    b: int = {k}\nx += Pt(1).b + Pt(2, 3)[0] + Pt(1)._replace(a=5).a",
    "import enum\nclass Col(enum.Enum):\n    R = 1\n    G = {k} + 2\nx += Col.G.value + len(Col) + Col(1).value",
    "x += len(f'{{x:03d}}-{{y:>5}}'.split('-')[1]) + int('{k}7'.strip()[::-1])",
    "y += sum(v for _, v in sorted(d.items(), key=lambda kv: kv[1])[:{k}])",
    "m = [[1, 2, {k}], [4, 5, 6]]\nx += sum(zip(*m).__next__()) + len(list(zip(*m)))",
    "lst.sort(key=lambda v: (v % 3, -v))\nx += lst[0] if lst else {k}",
    "x += sum(lst[::-2]) + len(lst[{k}::-1])",
    "d.setdefault('z', []).append({k})\ny += len(d['z']) if isinstance(d['z'], list) else 0\nd.pop('z')",
    "y += len({{v % 3 for v in range({k} + 2)}}) + len({{str(v): v for v in lst if v > {k}}})",
    "def f(a, *, scale={k}, **kw):\n    return a * scale + sum(kw.values())\nx = f(*[x], scale=2, extra={k}) + f(1)",
    "import functools\nh = functools.partial(max, {k})\ny += h(1) + h(y % 100)",
    "import operator\nx += operator.mul({k}, 2) + operator.itemgetter(0)([y])",
    "import operator\nclass At:\n    pass\nat = At()\nat.inner = At()\nat.inner.v = {k}\n"
    "x += operator.attrgetter('inner.v')(at) + sum(operator.attrgetter('inner.v', 'inner.v')(at))",
    "_none = object()\nother = object()\nx += (getattr(d, 'missing', _none) is _none) + (other is _none) + {k}",
    "x += isinstance(x, (str, int)) + (getattr(d, 'missing', {k}))",
    "class Bag:\n    n = 0\n    def __init__(self):\n        type(self).n += 1\n        Bag.n += {k}\n    @classmethod\n"
    "    def make(cls):\n        return cls()\n    @staticmethod\n    def twice(v):\n        return 2 * v\n"
    "Bag.make()\nBag()\nx += Bag.n + Bag.twice({k})",
    "class Seq:\n    def __init__(self, n):\n        self.n = n\n    def __len__(self):\n        return self.n\n"
    "    def __getitem__(self, i):\n        if i >= self.n:\n            raise IndexError\n        return i * 2\n"
    "    def __call__(self, v):\n        return v + self.n\ns = Seq({k})\nx += len(s) + sum(s) + s(3) + sum(list(s)[:2])",
    "class Pt:\n    def __init__(self, a):\n        self.a = a\n    def __eq__(self, other):\n        return self.a == other.a\n"
    "x += (Pt({k}) == Pt(2)) + (Pt(2) != Pt(3))",
    "class O:\n    v = {k}\no = O()\nsetattr(o, 'w', 2)\ny += o.v + getattr(o, 'w') + hasattr(o, 'q')",
    "x += sum(i * j for i, j in zip(range({k}), reversed(range({k}))))",
    "x = x if x >= 0 else -x\nx = x.bit_length() + {k}",
    "x += int(True) + int(3.9) + int(-3.9) + int('-{k}') + round(round(2.675, 2))",
    "class A0:\n    def f(self):\n        return 1\nclass B0(A0):\n    def f(self):\n        return super().f() + 2\n"
    "class C0(A0):\n    def f(self):\n        return super().f() * {k}\nclass D0(B0, C0):\n    pass\nx += D0().f()",
    "class Q:\n    def __init__(self):\n        self._v = {k}\n    @property\n    def v(self):\n        return self._v\n"
    "    @v.setter\n    def v(self, val):\n        self._v = val * 2\nq = Q()\nq.v = q.v + 1\nx += q.v",
    "class Reg:\n    names = []\n    def __init_subclass__(cls, **kw):\n        super().__init_subclass__(**kw)\n"
    "        Reg.names.append(cls.__name__)\nclass R1(Reg):\n    pass\nclass R2(R1):\n    pass\nx += len(Reg.names) * {k}",
    "def deco(cls):\n    cls.extra = {k}\n    return cls\n@deco\nclass W:\n    pass\nx += W.extra + W().extra",
    "import dataclasses\n@dataclasses.dataclass\nclass B1:\n    a: int = 1\n    b: int = {k}\n@dataclasses.dataclass\n"
    "class C1(B1):\n    c: int = 3\n    d: int = dataclasses.field(default=4, init=False)\n    def __post_init__(self):\n"
    "        self.d = self.a + self.c\nv = C1(b=2)\nx += v.a + v.b + v.c + v.d + len(dataclasses.fields(v))",
    "class K1:\n    size = 2\n    def get(self):\n        return self.size * type(self).size\nclass K2(K1):\n    size = {k}\n"
    "x += K2().get() + K1().get()",
    "class F1:\n    def __init__(self, v):\n        self.v = v\n    @classmethod\n    def double(cls, v):\n"
    "        return cls(v * 2)\nclass F2(F1):\n    pass\nx += F2.double({k}).v + isinstance(F2.double(1), F2)",
    "class G1:\n    def __init__(self):\n        self.real = {k}\n    def __getattr__(self, name):\n        return len(name)\n"
    "x += G1().real + G1().abcd",
    "class S1:\n    def __setattr__(self, name, value):\n        object.__setattr__(self, name, value * 2)\n"
    "s1 = S1()\ns1.v = {k}\nx += s1.v",
] + [  # iterating what defines no iteration: Python's TypeError, which the code may catch
    "try:\n    for v in {k}:\n        x += v\nexcept TypeError:\n    y += {k}",
    "try:\n    for i, v in enumerate(None if {k} % 2 else lst):\n        y += v\nexcept TypeError:\n    x += 1",
    "class NI:\n    pass\ntry:\n    x += len(list(zip(NI(), lst)))\nexcept TypeError:\n    x += {k}",
    "def fn():\n    pass\ntry:\n    x += len(tuple(fn))\nexcept TypeError:\n    y += {k}",
    "for b in b'a{k}':\n    y += b % 7",
    "x += len(type(x).__name__) + len(type(lst).__qualname__) + len(type(None).__name__) - {k}",
    "import collections\nq = collections.deque(lst, maxlen={k} % 3 + 1)\nq.appendleft(x % 7)\nq.extend([{k}, y % 5])\n"
    "y += sum(q) + len(q) + q[0]",
    "import collections\ntry:\n    q = collections.deque([], maxlen=({k} - 3) * 1.0 if {k} > 4 else {k} - 3)\n"
    "except (TypeError, ValueError) as exc:\n    y += 3 if isinstance(exc, TypeError) else 5",
]


@st.composite
def programs(draw) -> str:
    chosen = draw(st.lists(st.tuples(st.sampled_from(STATEMENTS), st.integers(0, 6)), min_size=1, max_size=8))
    body = "\n".join(statement.format(k=k) for statement, k in chosen)
    return ("G = 0\n\n\ndef compute():\n    x, y, lst, d = 3, 5, [1, 2], {'a': 1}\n"
            + textwrap.indent(body, "    ") + "\n    return abs(x * 3 + y + len(lst) + sum(d.values())) % 50 + 1\n")


def _net_of(program: str) -> str:
    """The model file: the program, then `Net`, whose one layer is `nn.Linear(2, compute())`."""
    return ("import torch.nn as nn\n\n" + program + "\n\nclass Net(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.fc = nn.Linear(2, compute())\n")


def _assert_counted_as_python_computes(statement: str) -> None:
    """``statement`` sets `x` in Python; run in `Net`'s constructor, `nn.Linear(x, 1, bias=False)` must
    be counted with Python's x."""
    namespace: dict = {}
    exec(statement, namespace)  # noqa: S102 - the test's own statement
    body = textwrap.indent(statement, "        ")
    source = ("import torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              f"{body}\n        self.fc = nn.Linear(x, 1, bias=False)\n")
    report = analyze_text(source, "net.py")
    assert [m.tree.total for m in report.models] == [namespace["x"]], [p.message for p in report.problems]


def _python_width(program: str) -> int | None:
    namespace: dict = {}
    try:
        exec(compile(program, "program.py", "exec"), namespace)  # noqa: S102 - the test's own program
        return namespace["compute"]()
    except Exception:  # noqa: BLE001 - any error Python raises: a program that builds nothing
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_a_width_computed_by_python_statements_is_the_width_python_computes(program: str) -> None:
    width = _python_width(program)
    report = analyze_text(_net_of(program), "net.py")
    counts = [m.tree.total for m in report.models]
    if width is None:
        assert counts == [], (program, counts)
    else:
        assert counts in ([3 * width], []), (program, width, [p.message for p in report.problems])
        if not counts:  # declined: said why
            assert any(p.code == "LC101" for p in report.problems)


NOT_ITERABLE = [
    "for v in 5:\n    x += v",  # an int
    "for v in None:\n    x += v",
    "class NI:\n    pass\nfor v in NI():\n    x += 1",  # an object whose class defines no way to iterate
    "def fn():\n    pass\nfor v in fn:\n    x += 1",  # a function
    "for v in enumerate(None):\n    x += 1",
    "x += len(list(zip(3, lst)))",
    "def fn():\n    pass\nx += len(tuple(fn))",
    "import torch.nn as nn\nfor m in nn.Linear(2, 2):\n    x += 1",  # a torch layer
]


@pytest.mark.parametrize("statement", NOT_ITERABLE)
def test_iterating_what_defines_no_iteration_raises_the_type_error_python_raises(statement: str) -> None:
    """Caught, Python's TypeError gives the width the except clause makes: counted exactly (the loop
    used to be declined, as an iteration the analyser could not follow)."""
    caught = "try:\n" + textwrap.indent(statement, "    ") + "\nexcept TypeError:\n    y += 7"
    program = ("def compute():\n    x, y, lst, d = 3, 5, [1, 2], {'a': 1}\n" + textwrap.indent(caught, "    ")
               + "\n    return abs(x * 3 + y + len(lst) + sum(d.values())) % 50 + 1\n")
    width = _python_width(program)
    assert width == 25  # the peer: Python took the except clause (y = 5 + 7)
    report = analyze_text(_net_of(program), "net.py")
    assert [m.tree.total for m in report.models] == [3 * width], [p.message for p in report.problems]


@pytest.mark.parametrize("value", ["3", "'a'", "[]", "{}", "1.5", "True", "(1,)", "{1}", "None", "3j", "frozenset()"])
def test_the_name_of_a_python_type_is_the_name_python_gives(value: str) -> None:
    """`type(v).__name__` (and `__qualname__`, `__module__`) of Python's own values: a width made from
    them is counted as Python computes it (it was declined, and `type(None).__name__` was taken for
    a TypeError of `len`)."""
    _assert_counted_as_python_computes(
        f"x = len(type({value}).__name__) + len(type({value}).__qualname__) + len(type({value}).__module__)")


@pytest.mark.parametrize("statement", [
    "q = collections.deque([1, 2, 3], maxlen=2)\nx = len(q) + q[0]",
    "q = collections.deque(maxlen=3)\nq.extend(range(10))\nx = sum(q)",
    "q = collections.deque(range(6), 4)\nq.appendleft(9)\nx = q[0] + len(q)",
    "try:\n    q = collections.deque([1], maxlen=-1)\n    x = 1\nexcept ValueError:\n    x = 5",
    "try:\n    q = collections.deque([1], maxlen=1.5)\n    x = 1\nexcept TypeError:\n    x = 6",
])
def test_a_deque_with_a_maximum_length_keeps_what_python_keeps(statement: str) -> None:
    """`collections.deque(iterable, maxlen)`: the items Python keeps, and its ValueError / TypeError
    for a bad maxlen (a deque with a maxlen was declined)."""
    _assert_counted_as_python_computes("import collections\n" + statement)


@pytest.mark.parametrize("statement", [
    "missing = object()\nx = 3 if getattr(nn.Linear(2, 2), 'quantized', missing) is missing else 5",
    "missing = object()\nx = 3 if getattr(nn.Linear(2, 2), 'in_features', missing) is missing else 5",
    "a, b = object(), object()\nx = 2 + (a is b) + 3 * (a is a) + 5 * (a == b) + 7 * (a != b)",
])
def test_a_sentinel_object_is_equal_only_to_itself_as_in_python(statement: str) -> None:
    """`sentinel = object()`, then `getattr(obj, name, sentinel) is sentinel` (peft 0.22's
    is_activation_checkpointing): a new object, equal only to itself (`object()` was declined)."""
    _assert_counted_as_python_computes("import torch.nn as nn\n" + statement)


@pytest.mark.parametrize("statement", [
    "class At:\n    pass\nat = At()\nat.inner = At()\nat.inner.v = 4\nx = operator.attrgetter('inner.v')(at)",
    "class At:\n    pass\nat = At()\nat.a, at.b = 2, 3\nx = sum(operator.attrgetter('a', 'b')(at))",
    "layer = nn.Linear(3, 2)\nx = operator.attrgetter('weight.shape')(layer)[1] + len(list(map(operator.attrgetter("
    "'out_features'), [layer, layer])))",
])
def test_operator_attrgetter_reads_the_dotted_attributes_python_reads(statement: str) -> None:
    """`operator.attrgetter(name)(obj)` (peft 0.22's set_training over its adapter layers): a dotted name read
    attribute by attribute, several names into a tuple (a name the code never set is declined, as `obj.name` is)."""
    _assert_counted_as_python_computes("import operator\nimport torch.nn as nn\n" + statement)
