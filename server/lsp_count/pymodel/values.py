"""Values the static interpreter computes with.

Numbers that the source does not pin down become ``Sym`` polynomials in the
unresolved names (so a count can still be shown as a formula), and anything
else it cannot follow becomes ``Unknown`` with the reason. ``Param`` and
``Inst`` are mutable on purpose: weight tying (``a.weight = b.weight``) and
freezing (``p.requires_grad = False``) are identity and mutation in torch, and
the interpreter has to model exactly that. They live only for one analysis.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from lsp_count.core.source import Span

_NOT_DEFINED = object()  # ClassV.lookup's marker for a name no class in the MRO defines


class Unresolved(Exception):
    """The analysis of one class cannot go on; ``reason`` is what the user reads. It may be given
    as a function that writes it, called when it is first read: an exception the analysed code
    catches (``try: ... except KeyError``) is never read, and writing its words (the code's text
    unparsed) cost more than raising it."""

    def __init__(self, reason: str | Callable[[], str], span: Span | None = None) -> None:
        super().__init__()
        self._reason = reason
        self.span = span

    @property
    def reason(self) -> str:
        reason = self._reason
        if not isinstance(reason, str):
            reason = self._reason = reason()
        return reason

    def __str__(self) -> str:
        return self.reason


class Raised(Unresolved):
    """An exception the analysed code raises, or torch raises on its behalf (``raise ValueError(...)``,
    ``remove_weight_norm`` of a module without one); ``kind`` is its class as the analyser knows it
    (an ExtV of a builtin exception, a ClassV), None if unknown. The code's ``except`` may catch it;
    uncaught, it stops the analysis of the class as any Unresolved does."""

    def __init__(self, reason: str | Callable[[], str], kind: Any) -> None:
        super().__init__(reason)
        self.kind = kind


@dataclass(frozen=True)
class Unknown:
    why: str
    # A call's result may be a module; an unknown module makes the count inexact.
    maybe_module: bool = False


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Sym:
    """A polynomial with integer coefficients in unresolved names.

    ``terms``: (sorted atom names, coefficient); the constant term has no atoms.
    ``why``: for each atom, why it is unresolved (shown to the user).
    """

    terms: tuple[tuple[tuple[str, ...], int], ...]
    why: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def atom(name: str, why: str) -> "Sym":
        return Sym((((name,), 1),), ((name, why),))

    def single_atom(self) -> str | None:
        if len(self.terms) == 1 and len(self.terms[0][0]) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0][0]
        return None

    def render(self) -> str:
        parts = []
        ordered = sorted(self.terms, key=lambda t: (-len(t[0]), t[0]))
        for atoms, coef in ordered:
            names = []
            i = 0
            while i < len(atoms):
                j = i
                while j < len(atoms) and atoms[j] == atoms[i]:
                    j += 1
                power = j - i
                name = atoms[i]
                if (len(atoms) > 1 or abs(coef) != 1) and _operator_outside_brackets(name):
                    name = f"({name})"  # an atom that is an expression (`dim/heads`), in a product
                names.append(name + (str(power).translate(_SUPERSCRIPT) if power > 1 else ""))
                i = j
            body = "·".join(names)
            if not body:
                text = str(abs(coef))
            elif abs(coef) == 1:
                text = body
            else:
                text = f"{abs(coef)}·{body}"
            sign = "-" if coef < 0 else "+"
            parts.append((sign, text))
        if not parts:
            return "0"
        out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        for sign, text in parts[1:]:
            out += f" {sign} {text}"
        return out

    def reasons(self) -> tuple[str, ...]:
        # An atom made of others (``dim/heads``) joined their reasons: each is said once.
        return tuple(dict.fromkeys(part for _, w in self.why for part in w.split("; ")))


def _operator_outside_brackets(text: str) -> bool:
    """``dim // 8``, ``dim/heads``: yes; ``round(dim * 0.25)``, ``cfg.d_model``: no."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in " /+-*%":
            return True
    return False


Number = int | Sym


def _merge_why(*values: Any) -> tuple[tuple[str, str], ...]:
    seen: dict[str, str] = {}
    for v in values:
        if isinstance(v, Sym):
            for name, why in v.why:
                seen.setdefault(name, why)
    return tuple(seen.items())


def _normal(terms: dict[tuple[str, ...], int], why: tuple[tuple[str, str], ...]) -> Number:
    kept = tuple(sorted((k, c) for k, c in terms.items() if c != 0))
    if not kept:
        return 0
    if len(kept) == 1 and kept[0][0] == ():
        return kept[0][1]
    used = {a for atoms, _ in kept for a in atoms}
    return Sym(kept, tuple((n, w) for n, w in why if n in used))


def _as_terms(v: Number) -> dict[tuple[str, ...], int]:
    if isinstance(v, Sym):
        return dict(v.terms)
    return {(): int(v)}


def sym_add(a: Number, b: Number, sign: int = 1) -> Number:
    if type(a) is int and type(b) is int:  # the common case, kept fast
        return a + sign * b
    terms = _as_terms(a)
    for k, c in _as_terms(b).items():
        terms[k] = terms.get(k, 0) + sign * c
    return _normal(terms, _merge_why(a, b))


def sym_mul(a: Number, b: Number) -> Number:
    if type(a) is int and type(b) is int:
        return a * b
    terms: dict[tuple[str, ...], int] = {}
    for ka, ca in _as_terms(a).items():
        for kb, cb in _as_terms(b).items():
            k = tuple(sorted(ka + kb))
            terms[k] = terms.get(k, 0) + ca * cb
    return _normal(terms, _merge_why(a, b))


def sym_divide_exact(a: Number, b: Number) -> Number | None:
    """``a // b`` where it is a polynomial for every value of the names (a depthwise conv's
    ``dim // dim``, ``(4·dim) // 4``); None where it is not (``dim // 4``)."""
    if type(b) is int:
        if b == 0:
            return None
        if type(a) is int:
            return a // b if a % b == 0 else None
        if any(c % b for _, c in a.terms):
            return None
        return _normal({k: c // b for k, c in a.terms}, a.why)
    if len(b.terms) == 1 and b.terms[0][1] != 0:
        (divisor, coef), = b.terms
        terms: dict[tuple[str, ...], int] = {}
        for atoms, c in _as_terms(a).items():
            if c == 0:
                continue
            rest = list(atoms)
            for name in divisor:
                if name not in rest:
                    return None
                rest.remove(name)
            if c % coef:
                return None
            terms[tuple(rest)] = c // coef
        return _normal(terms, _merge_why(a, b))
    # A polynomial of several terms divides only a constant multiple of itself.
    a_terms, b_terms = {k: c for k, c in _as_terms(a).items() if c}, dict(b.terms)
    if not a_terms:
        return 0
    if a_terms.keys() != b_terms.keys():
        return None
    ratios = {(c, b_terms[k]) for k, c in a_terms.items()}
    first_a, first_b = next(iter(ratios))
    if first_a % first_b or any(c * first_b != first_a * d for c, d in ratios):
        return None
    return first_a // first_b


def sym_opaque(text: str, *operands: Any) -> Sym:
    """A new atom for an operation a polynomial cannot express (``dim // 4``)."""
    why = _merge_why(*operands)
    return Sym((((text,), 1),), ((text, "; ".join(dict.fromkeys(w for _, w in why)) or "unresolved"),))


def is_unknownish(v: Any) -> bool:
    return isinstance(v, (Sym, Unknown))


def why_of(v: Any) -> str:
    """Why a value is not known: a formula's unresolved names, an Unknown's reason; "" otherwise."""
    if isinstance(v, Sym):
        return "; ".join(v.reasons())
    if isinstance(v, Unknown):
        return v.why
    return ""


def render(v: Any) -> str:
    if isinstance(v, Sym):
        text = v.render()
        return text if v.single_atom() else f"({text})"
    return repr(v)


@dataclass(frozen=True, init=False)
class TensorV:
    """A tensor (not yet a parameter): its shape, and for a 1-D or 0-d one the analyser made
    from known numbers (``torch.linspace(0, 0.1, depth)``), its values: stochastic-depth rates
    are read back with ``.item()`` and ``.tolist()``."""

    shape: tuple[Any, ...]
    values: tuple[Any, ...] | None = None
    # False after an operation that may leave it strided (expand, transpose, a slice): `view`
    # needs a compatible layout, which the analyser does not track, so it says so there.
    contiguous: bool = True
    # With the values: their dtype where known, and where torch may compute them differently in
    # the last bits (log, pow), a bound on the difference (tensor_values.py).
    dtype: str | None = None
    errors: tuple[float, ...] | None = None
    # Made by ``nn.Buffer(t)``: assigned to a module's attribute, it is registered as a buffer.
    buffer: bool = False
    # Without the values: whether its dtype is a floating-point one, where known (``torch.randn(4)``
    # is in the default dtype, always floating-point; None where not known).
    floating: bool | None = None
    # The dtype it was made with where the code names one (``torch.empty(n, dtype=torch.float8_e4m3fn)``):
    # what ``t.dtype`` and ``t.element_size()`` answer (DeepSeek-V3's fp8 weights get a scale).
    declared: str | None = None
    # Made by numpy: a Python number beside it promotes as numpy's do (a float to float64, where
    # torch's default is float32), and true division of integers gives float64.
    numpy: bool = False

    def __init__(self, shape: tuple[Any, ...], values: tuple[Any, ...] | None = None, contiguous: bool = True,
                 dtype: str | None = None, errors: tuple[float, ...] | None = None, buffer: bool = False,
                 floating: bool | None = None, declared: str | None = None, numpy: bool = False) -> None:
        # As the core's ParamNode: a frozen dataclass's generated __init__ sets each field through
        # object.__setattr__, and numpy code looping over scalars makes one per element.
        d = self.__dict__
        d["shape"] = shape
        d["values"] = values
        d["contiguous"] = contiguous
        d["dtype"] = dtype
        d["errors"] = errors
        d["buffer"] = buffer
        d["floating"] = floating
        d["declared"] = declared
        d["numpy"] = numpy

    def __float__(self) -> float:  # float(rate), as torch allows for one element
        if self.errors is not None:  # its last bits are not known: no Python number says it exactly
            raise ValueError("a value whose last bits the analyser does not reproduce (computed by torch's or "
                             "numpy's own log / exp / pow) does not convert to an exact float")
        return float(self._one())

    def __bool__(self) -> bool:  # `if torch.det(w) < 0:`: torch's bool(t), of a one-element tensor's value
        return tensor_truth(self.shape, self.values, self.errors)

    def __int__(self) -> int:
        if self.errors is not None:  # truncated the same anywhere within the bound, else not decided
            from lsp_count.pymodel.tensor_values import decided

            return int(decided(lambda x: float(math.trunc(x)), float(self._one()), self.errors[0]))
        return int(self._one())

    def __index__(self) -> int:
        """`[c] * r` of an integer array's element (jasper's repeat counts): its int, as numpy's and
        torch's integer scalars give it; a TypeError for anything else, as Python's."""
        if self.values is None or self.errors is not None:
            raise Unresolved("the value of a tensor the analyser does not compute, used as an int")
        if self.dtype not in ("int64", "int32", "int16", "int8", "uint8", "bool"):
            raise TypeError("only an integer tensor is an index")
        return int(self._one())

    def __round__(self, ndigits: int | None = None) -> Any:
        """``round(v, 2)`` of a number taken from an array (OpenELM's `[round(v, 2) for v in
        np.linspace(...)]`): numpy's float64 rounding (scaled, rounded half to even, scaled back),
        which Python's floats compute the same way; an int without ``ndigits``."""
        value = self._one()
        if self.errors is not None or self.dtype not in ("float64", "int64", "int32"):
            raise Unresolved("round() of a tensor value the analyser does not compute exactly (a float64's only)")
        if ndigits is None:
            return round(value)
        if type(ndigits) is not int:
            raise Unresolved("round()'s ndigits is not a known int")
        if type(value) is int:
            return TensorV((), (round(value, ndigits),), dtype=self.dtype)
        scaled = value * 10.0**ndigits if ndigits >= 0 else value / 10.0**-ndigits
        rounded = float(round(scaled))
        return TensorV((), (rounded / 10.0**ndigits if ndigits >= 0 else rounded * 10.0**-ndigits,), dtype="float64")

    def _one(self) -> Any:
        if self.values is None or len(self.values) != 1:
            raise TypeError("only a one-element tensor of known value converts to a number")
        return self.values[0]


# Every module and parameter is numbered as it is made: a build reused as a copy copies what it
# made, and keeps what it only took from before it started (a module-level layer it holds stays
# one object, as a second build would hold it). One count for the process: numbers only compare.
_SERIALS = itertools.count()


def next_serial() -> int:
    """A number higher than every module and parameter made so far."""
    return next(_SERIALS)


class Param:
    """An ``nn.Parameter``: identity is what makes tying count once."""

    __slots__ = ("shape", "kind", "requires_grad", "origin", "floating", "serial", "declared", "flags")

    def __init__(self, shape: tuple[Any, ...], kind: str, requires_grad: bool = True, origin: Span | None = None,
                 floating: bool | None = True, declared: str | None = None) -> None:
        self.serial = next(_SERIALS)
        self.shape = shape
        self.kind = kind
        self.requires_grad = requires_grad
        self.origin = origin
        # Whether its dtype is a floating-point one (``is_floating_point()``); None where not known. A
        # torch layer's parameters are in the default dtype, which torch keeps floating-point.
        self.floating = floating
        self.declared = declared  # its dtype where the code named it (TensorV.declared)
        # Attributes the code set on it (TinyViT's `p.lr_scale = s`), read back by hasattr / getattr.
        self.flags: dict[str, Any] | None = None

    def __bool__(self) -> bool:  # `if self.weight:` is torch's bool of its values, which are not known here
        return tensor_truth(self.shape, None, None)


def tensor_truth(shape: tuple[Any, ...], values: tuple[Any, ...] | None, errors: tuple[float, ...] | None) -> bool:
    """torch's ``bool(t)``: the value of a one-element tensor (a RuntimeError for more or fewer). Its
    values are the analyser's only where it computed them (a random tensor's never): else the truth
    is not known, and a branch on it is not followed (it was taken as true, silently)."""
    n = 1
    for d in shape:
        n = n * d if type(d) is int and type(n) is int else None  # type: ignore[assignment]
    if n is not None and n != 1:
        raise Raised(f"the truth of a tensor of {n} values: torch raises RuntimeError (\"Boolean value of Tensor "
                     f"with {'more than one value' if n else 'no values'} is ambiguous\")", ExtV("RuntimeError"))
    if values is not None and len(values) == 1:
        x = values[0]
        if errors is not None and abs(x) <= errors[0]:
            raise Unresolved(f"the truth of a value within the rounding error of zero ({x!r})")
        return bool(x)
    raise Unresolved("the truth of a tensor whose values the analyser does not compute (random ones, or made by "
                     "code it does not follow)")


class Inst:
    """An instance of a class: an nn layer, a user module, a container or a config object.

    ``attrs`` keeps insertion order, which is torch's registration order
    (``parameters()`` yields in it, and the first path of a tied tensor wins).
    """

    __slots__ = ("cls", "attrs", "kind", "origin", "is_module", "layer_args", "buffers", "unfollowed", "serial",
                 "unregistered", "modules_rebuilt", "none_slots")

    def __init__(self, cls: Any, kind: str, is_module: bool, origin: Span | None = None) -> None:
        self.serial = next(_SERIALS)
        self.cls = cls
        self.attrs: dict[str, Any] = {}
        self.kind = kind  # "layer", "module", "list", "dict", "seq", "plist", "pdict", "object"
        self.origin = origin
        self.is_module = is_module
        # A torch layer's (name, bound constructor arguments): its hyperparameters are read from
        # them when asked for (layers.layer_attribute); never changed after the build, so shared by copies.
        self.layer_args: tuple[str, dict[str, Any]] | None = None
        # A module's buffers: the names of its attributes that torch keeps in ``_buffers``, in the
        # order they were registered (``register_buffer``, ``nn.Buffer``, a batch norm's running stats).
        self.buffers: dict[str, None] | None = None
        # Why its parts may not be what the analyser holds: a method of it was called that the
        # analyser does not follow (`self.layers.pop(0)` on a list it knows no `pop` of).
        self.unfollowed: str | None = None
        # A module's parameters and submodules put in its __dict__ past torch's __setattr__
        # (`object.__setattr__(self, "target", copy.deepcopy(q))`): read as attributes, never counted.
        self.unregistered: dict[str, Any] | None = None
        # How many times torch has replaced the module's ``_modules`` dict: a ModuleList's or a
        # Sequential's ``del`` and ``pop`` build an OrderedDict, whose iterator is not a dict's (a
        # walk that has handed out its last module ends, whatever is added after).
        self.modules_rebuilt = 0
        # A module's names that torch keeps in ``_parameters`` or ``_modules`` holding None ("parameter"
        # or "module"): a parameter or submodule set to None, `register_parameter(name, None)`,
        # `add_module(name, None)`. Such a name takes only its kind (or None) again.
        self.none_slots: dict[str, str] | None = None

    @property
    def type_name(self) -> str:
        return self.cls if isinstance(self.cls, str) else getattr(self.cls, "name", "?")


@dataclass(frozen=True)
class DeviceV:
    """A tensor's ``device``: the analyser builds as torch does on the meta device (``type`` is
    "meta"; transformers' Mamba mixers skip initialising values there)."""

    type: str = "meta"
    index: None = None


@dataclass(frozen=True)
class ExtV:
    """A name from outside the file that the analyser knows by its dotted name (``torch.nn.Linear``)."""

    name: str


@dataclass(frozen=True, order=True)
class ReleaseVersion:
    """``packaging.version.parse("2.13.0")`` / ``LooseVersion(...)`` of a version: compared by
    ``order`` (packaging's: trailing zeros ignored, a dev release before its pre-releases, those
    before the release, then post-releases; LooseVersion's: the numbers as written), with
    packaging's attributes of one (``base_version``, ``release``, ``major``, ``pre``, ``dev`` ...)."""

    order: tuple[Any, ...]
    text: str = field(compare=False)
    key: tuple[int, ...] = field(compare=False, default=())  # the release numbers, as compared
    pre: tuple[str, int] | None = field(compare=False, default=None)
    post: int | None = field(compare=False, default=None)
    dev: int | None = field(compare=False, default=None)
    local: str | None = field(compare=False, default=None)
    release: tuple[int, ...] = field(compare=False, default=())  # as written

    @property
    def base_version(self) -> str:
        return ".".join(map(str, self.release))

    @property
    def public(self) -> str:
        return self.text.split("+", 1)[0]

    @property
    def major(self) -> int:
        return self.release[0]

    @property
    def minor(self) -> int:
        return (self.release + (0,))[1]

    @property
    def micro(self) -> int:
        return (self.release + (0, 0))[2]

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    @property
    def is_postrelease(self) -> bool:
        return self.post is not None

    @property
    def is_devrelease(self) -> bool:
        return self.dev is not None

    epoch = 0

    def __str__(self) -> str:
        return self.text


# packaging's normal form of a version: release, then an optional pre-release (a, b, rc and their
# spellings), post-release and dev release, and a local part.
_PEP440 = re.compile(r"v?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d*))?"
                     r"(?:(?:-(\d+))|(?:[-_.]?(?:post|rev|r)[-_.]?(\d*)))?(?:[-_.]?dev[-_.]?(\d*))?"
                     r"(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?", re.I)
_PRE_SPELLINGS = {"alpha": "a", "beta": "b", "c": "rc", "pre": "rc", "preview": "rc"}
_BELOW, _ABOVE = (-1,), (1,)  # packaging's -Infinity and Infinity in its comparison key


def packaging_version(text: str) -> ReleaseVersion | None:
    """``packaging.version.parse(text)``, ordered as packaging orders it (its ``_cmpkey``); None
    for a text that is no version (packaging raises InvalidVersion; epochs are not followed)."""
    found = _PEP440.fullmatch(text.strip())
    if found is None:
        return None
    numbers, letter, pre_n, post_dash, post_n, dev_n, local = found.groups()
    release = tuple(int(p) for p in numbers.split("."))
    key = release
    while len(key) > 1 and key[-1] == 0:
        key = key[:-1]
    pre = (_PRE_SPELLINGS.get(letter.lower(), letter.lower()), int(pre_n or 0)) if letter else None
    # (a part written without its number, "1.0.dev", matches its group empty: number 0)
    post = int(post_dash) if post_dash is not None else int(post_n or 0) if post_n is not None else None
    dev = int(dev_n or 0) if dev_n is not None else None
    pre_key = _BELOW if pre is None and post is None and dev is not None else _ABOVE if pre is None else (0, pre)
    order = (0, key, pre_key, _BELOW if post is None else (0, post), _ABOVE if dev is None else (0, dev),
             _BELOW if local is None else (0, tuple((0, int(p)) if p.isdigit() else (-1, p) for p in
                                                     re.split(r"[-_.]", local.lower()))))
    local = ".".join(re.split(r"[-_.]", local.lower())) if local else None
    normal = ".".join(map(str, release)) + (f"{pre[0]}{pre[1]}" if pre else "") + \
        (f".post{post}" if post is not None else "") + (f".dev{dev}" if dev is not None else "") + \
        (f"+{local}" if local else "")
    return ReleaseVersion(order, normal, key, pre, post, dev, local, release)  # (str() is the normal form)


def _release_and_rest(version: ReleaseVersion | None) -> tuple[tuple[int, ...], Any] | None:
    """A version's release numbers as compared (trailing zeros dropped, as packaging compares them)
    and the rest (pre-release, post, dev, local); None for no version."""
    return None if version is None else (version.key, (version.pre, version.post, version.dev, version.local))


class TorchVersionText(str):
    """``torch.__version__``: its text, compared as torch's ``TorchVersion`` compares it, by version
    (``torch.__version__ >= "2.4"`` holds for 2.13, which as text is smaller). A comparison that
    only a pre-release or local part would decide is not followed."""

    __slots__ = ()

    def _order(self, other: Any) -> int:
        if isinstance(other, ReleaseVersion):
            theirs = _release_and_rest(other)
        elif isinstance(other, str):
            theirs = _release_and_rest(packaging_version(str(other)))
        elif isinstance(other, (tuple, list)) and other and all(type(x) is int for x in other):
            theirs = _release_and_rest(packaging_version(".".join(map(str, other))))
        else:
            theirs = None
        ours = _release_and_rest(packaging_version(str(self)))
        if theirs is None or ours is None:
            raise Unresolved(f"comparing torch's version {str(self)!r} with {other!r} is not followed")
        if ours[0] != theirs[0]:
            return -1 if ours[0] < theirs[0] else 1
        if ours[1] != theirs[1]:
            raise Unresolved(f"comparing torch's version {str(self)!r} with {other!r}: only their pre-release or "
                             f"local parts differ, which the analyser does not order")
        return 0

    def __lt__(self, other: Any) -> bool:  # type: ignore[override]
        return self._order(other) < 0

    def __le__(self, other: Any) -> bool:  # type: ignore[override]
        return self._order(other) <= 0

    def __gt__(self, other: Any) -> bool:  # type: ignore[override]
        return self._order(other) > 0

    def __ge__(self, other: Any) -> bool:  # type: ignore[override]
        return self._order(other) >= 0

    def __eq__(self, other: object) -> bool:
        return self._order(other) == 0

    def __ne__(self, other: object) -> bool:
        return self._order(other) != 0

    __hash__ = str.__hash__


@dataclass(frozen=True)
class FieldV:
    """``dataclasses.field(default=..., default_factory=...)``."""

    default: Any = None
    factory: Any = None
    has_default: bool = False
    init: bool = True  # field(init=False): not a parameter of the generated __init__
    kw_only: bool | None = None  # field(kw_only=...); None: as the class says
    attrs: bool = False  # made by attrs (attr.ib(), attrs.field()): what makes a name a field of `@attr.s`
    metadata: tuple[tuple[Any, Any], ...] | None = None  # field(metadata={...})'s items; None: empty


@dataclass(frozen=True)
class PartialV:
    func: Any
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class RangeV:
    """``range`` kept lazy so that ``range(10**12)`` costs nothing until iterated."""

    r: range


@dataclass(frozen=True)
class ModV:
    """A project module imported from the same directory (its evaluated names)."""

    name: str
    names: Any  # dict[str, Any]; a plain dict so lookups are cheap
    star: tuple[str, ...] = ()
    path: str = ""  # its file (a package's names may be in its TYPE_CHECKING block: lazy_module_name)


@dataclass(frozen=True)
class SuperV:
    cls: Any
    inst: Any


@dataclass(frozen=True)
class BoundV:
    func: Any
    self_obj: Any


@dataclass(eq=False)
class ClassV:
    """A class defined in the analysed source (mutable while its body is evaluated). Equal
    only to itself, as a Python class is (and so hashable: a set or dict key, as in Python)."""

    name: str
    node: ast.ClassDef
    bases: tuple[Any, ...]
    is_module: bool
    is_dataclass: bool
    namespace: dict[str, Any] = field(default_factory=dict)
    fields: tuple[str, ...] = ()
    field_set: frozenset[str] = frozenset()  # the same names, for membership (a config has dozens)
    # Of its fields, those its generated __init__ takes by keyword only (kw_only=True, after `_: KW_ONLY`),
    # and those it does not take (field(init=False)).
    keyword_fields: frozenset[str] = frozenset()
    uninit_fields: frozenset[str] = frozenset()
    # Of its fields, the init-only ones (`ratio: InitVar[int] = 4`): taken by __init__ and passed
    # to __post_init__, never set on the instance.
    init_vars: frozenset[str] = frozenset()
    path: str = ""
    span: Span | None = None
    # `@dataclass_transform()` on this class (PEP 681): every subclass is made a dataclass
    # (transformers' PreTrainedConfig does it in __init_subclass__).
    transforms_subclasses: bool = False
    # The dataclass whose generated __init__ builds an instance (itself or a base, when no class
    # before it in the MRO defines __init__); None when an __init__ or no dataclass does.
    dataclass_init: "ClassV | None" = None
    # Why building the class cannot be followed (its base's __init_subclass__ was not); "" when it can.
    creation_unresolved: str = ""
    # Its own or inherited __getattribute__ and __setattr__ (transformers' configs map attribute
    # names through them: `num_local_experts` reads `n_routed_experts`); None where object's apply.
    getattribute_hook: Any = None
    setattr_hook: Any = None
    # A module class's own or inherited `__new__` of the code, which builds its instances (xlstm's
    # sLSTMCell returns the cell class its config's backend names).
    new_method: Any = None
    env: Any = None  # where the class statement ran (its annotations are evaluated there)
    # An enum.Enum subclass: its members by name (aliases included), each an instance of the class;
    # and the type its values mix in (str for `class Format(str, Enum)`), compared as values are.
    enum_members: "dict[str, Any] | None" = None
    enum_mixin: Any = None
    # What its decorators made of it, where that is not the class itself (a subclass adding a
    # layer): what its name means in the module, and so what is counted for its statement.
    decorated: Any = None
    # Made by attrs (`@attr.s`, `@attrs.define`): a dataclass whose generated __init__ takes a private
    # field without its underscores and runs `__attrs_post_init__`.
    attrs_class: bool = False
    # A pydantic model (a BaseModel subclass): a dataclass whose __init__ takes keywords only.
    pydantic: bool = False
    # Decorated with huggingface_hub's `@strict` (transformers' configs): its __init__ runs the
    # class's `validate_*` methods once the fields are set (Interpreter.strict_validate).
    strict_validated: bool = False
    _properties: "frozenset[str] | None" = field(default=None, repr=False)
    # Its annotations, evaluated (Interpreter.class_annotations), kept once all of them are known or
    # its module has run: Python evaluates them when the class statement runs; transformers'
    # PreTrainedModel.__init_subclass__ asks get_type_hints for the whole MRO of every model class.
    annotations: "dict[str, Any] | None" = field(default=None, repr=False)

    def property_names(self) -> "frozenset[str]":
        """The properties of the class and its bases (setting one runs its setter), found on first use."""
        if self._properties is None:
            self._properties = frozenset(
                n for c in self.mro() for n, v in c.namespace.items() if getattr(v, "kind", None) == "property")
        return self._properties

    # The classes after this one in its MRO, found on first use (a class's bases never change
    # after its creation). Not the class itself: a class holding itself would be a reference
    # cycle, freed only by the cyclic collector.
    _ancestors: "tuple[ClassV, ...] | None" = field(default=None, repr=False)
    # The classes after it in Python's MRO as far as the analyser knows them (interp._python_mro):
    # its project bases, outside ones (ExtV, each taken as having object alone as its base) and
    # those not resolved, in their places, object last; () where the bases admit no MRO (Python
    # refuses the class statement). Not the class itself: a class holding itself would be a cycle.
    python_ancestors: "tuple[Any, ...] | None" = field(default=None, repr=False)

    def ancestors(self) -> "tuple[ClassV, ...]":
        if self._ancestors is None:
            c3 = _c3_ancestors(self)
            self._ancestors = c3 if c3 is not None else _breadth_first_ancestors(self)
        return self._ancestors

    def mro(self) -> "tuple[ClassV, ...]":
        return (self,) + self.ancestors()

    def lookup(self, name: str) -> Any:
        found = self.find(name, _NOT_DEFINED)
        if found is _NOT_DEFINED:
            raise KeyError(name)
        return found

    def find(self, name: str, default: Any) -> Any:
        """``lookup`` that answers ``default`` for a name no class in the MRO defines (no
        exception to raise and catch where a miss is common: attributes of instances)."""
        # Looked up for every attribute and method call: the class itself first, its bases only if needed.
        namespace = self.namespace
        if name in namespace:
            return namespace[name]
        for c in self.ancestors():
            if name in c.namespace:
                return c.namespace[name]
        return default

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __repr__(self) -> str:
        # As Python writes a class: the analysed code may read it (transformers' can_generate looks
        # for "GenerationMixin" in str(cls.__bases__)).
        scope = getattr(self.env, "module", None)
        return f"<class '{scope.dotted_name}.{self.name}'>" if scope is not None else f"<class '{self.name}'>"


def _c3_ancestors(cls: ClassV) -> "tuple[ClassV, ...] | None":
    """The classes of the project after ``cls`` in its MRO as Python orders them (C3: each class
    before its bases, the bases in the order written, a class shared by two bases after both);
    classes outside the project are not in it. None where the bases admit no such order (Python
    refuses to create the class)."""
    bases = [b for b in cls.bases if isinstance(b, ClassV)]
    merged = c3_merge([list(b.mro()) for b in bases] + [bases])
    return tuple(merged) if merged is not None else None


def c3_merge(sequences: list[list[Any]]) -> list[Any] | None:
    """C3's merge of the bases' linearizations and the bases' list: each next class the first
    head that is in no other sequence's tail; None where no head is (Python refuses the class)."""
    out: list[Any] = []
    while True:
        sequences = [q for q in sequences if q]
        if not sequences:
            return out
        for q in sequences:
            head = q[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        out.append(head)
        for q in sequences:
            if q[0] == head:
                del q[0]


def _breadth_first_ancestors(cls: ClassV) -> "tuple[ClassV, ...]":
    out: list[ClassV] = []
    seen: set[int] = {id(cls)}
    stack = [b for b in cls.bases if isinstance(b, ClassV)]
    while stack:
        c = stack.pop(0)
        if id(c) not in seen:
            seen.add(id(c))
            out.append(c)
            stack.extend(b for b in c.bases if isinstance(b, ClassV))
    return tuple(out)
