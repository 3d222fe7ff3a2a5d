"""Polynomials in unresolved names (values.Sym): exact division agrees with Python's `//` for
every value of the names, and is only claimed where it is exact."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_count.pymodel.values import Sym, sym_add, sym_divide_exact, sym_mul

NAMES = ("dim", "heads", "k")


def atom(name: str) -> Sym:
    return Sym.atom(name, f"`{name}` is unresolved")


@st.composite
def polynomials(draw, max_terms: int = 3):
    """Small polynomials with integer coefficients in NAMES (or plain ints)."""
    out = draw(st.integers(-6, 6))
    for _ in range(draw(st.integers(0, max_terms))):
        term = draw(st.integers(-6, 6).filter(bool))
        for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2)):
            term = sym_mul(term, atom(name))
        out = sym_add(out, term)
    return out


def value(p, names: dict[str, int]) -> int:
    if isinstance(p, int):
        return p
    return sum(c * math.prod(names[a] for a in atoms) for atoms, c in p.terms)


@settings(max_examples=400, deadline=None)
@given(polynomials(), polynomials(max_terms=2), st.fixed_dictionaries({n: st.integers(-9, 9).filter(bool)
                                                                      for n in NAMES}))
def test_exact_division_agrees_with_python(a, b, names) -> None:
    quotient = sym_divide_exact(a, b)
    if quotient is None:
        return
    divisor = value(b, names)
    if divisor == 0:
        return
    assert value(a, names) == value(quotient, names) * divisor
    assert value(a, names) // divisor == value(quotient, names)


@settings(max_examples=200, deadline=None)
@given(polynomials(), st.sampled_from(NAMES), st.integers(-5, 5).filter(bool), st.integers(0, 2))
def test_a_multiple_of_a_monomial_divides(q, name, coef, power) -> None:
    divisor = coef
    for _ in range(power):
        divisor = sym_mul(divisor, atom(name))
    quotient = sym_divide_exact(sym_mul(q, divisor), divisor)
    assert quotient == q


def test_what_is_not_a_polynomial_is_not_claimed() -> None:
    dim, heads = atom("dim"), atom("heads")
    assert sym_divide_exact(dim, 4) is None
    assert sym_divide_exact(dim, heads) is None
    assert sym_divide_exact(sym_add(dim, 1), sym_add(heads, 1)) is None
    assert sym_divide_exact(sym_mul(dim, sym_add(heads, 1)), sym_add(heads, 1)) is None  # not attempted: said so
    assert sym_divide_exact(sym_mul(3, sym_add(dim, 1)), sym_add(dim, 1)) == 3
    assert sym_divide_exact(dim, 0) is None
