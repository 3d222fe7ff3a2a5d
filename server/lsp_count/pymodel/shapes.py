"""Shapes of the tensors a constructor makes before it wraps one in ``nn.Parameter``: indexing
and the view methods, as torch computes them (``torch.zeros(1, d).repeat(n, 1)`` is ``(n, d)``).

Each function returns the new shape, or None where the analyser cannot know it (a tensor used as
an index, a slice of a size that is a formula); it raises ShapeError where torch would raise.
A size may be a Sym (a formula in unresolved names) where the operation keeps or multiplies it.
"""

from __future__ import annotations

from typing import Any

from lsp_count.pymodel.values import sym_add, sym_divide_exact, sym_mul


class ShapeError(Exception):
    """What torch would raise, in its words."""


def _dim(d: Any, ndim: int, what: str) -> int:
    if type(d) is not int:
        raise ShapeError(f"{what} is not a known integer")
    if not -ndim <= d < ndim:
        raise ShapeError(f"{what} {d} is out of range for {ndim} dimensions")
    return d + ndim if d < 0 else d


def sizes_of(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``view(2, 3)`` and ``view((2, 3))`` alike; no arguments at all is torch's TypeError."""
    if not args:
        raise ShapeError("it needs sizes")
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)


def index_shape(shape: tuple[Any, ...], key: Any, numpy: bool = False) -> tuple[Any, ...] | None:
    """``t[key]`` for ints, slices, None and ``...`` (``numpy``: an array's, whose slices may step back)."""
    items = list(key) if isinstance(key, tuple) else [key]
    consumed = sum(1 for k in items if k is not None and k is not Ellipsis)
    if sum(1 for k in items if k is Ellipsis) > 1:
        return None  # torch takes several; what they mean is not worth following
    if consumed > len(shape):
        raise ShapeError(f"too many indices for a tensor of {len(shape)} dimensions")
    out: list[Any] = []
    at = 0
    for k in items:
        if k is None:
            out.append(1)
        elif k is Ellipsis:
            n = len(shape) - consumed
            out.extend(shape[at:at + n])
            at += n
        elif type(k) is int:
            size = shape[at]
            if type(size) is int and not -size <= k < size:
                raise ShapeError(f"index {k} is out of bounds for a dimension of size {size}")
            at += 1
        elif isinstance(k, slice):
            size = shape[at]
            if type(size) is not int or not all(p is None or type(p) is int for p in (k.start, k.stop, k.step)):
                return None
            if k.step is not None and (k.step <= 0 if not numpy else k.step == 0):
                raise ShapeError("slice step must be positive" if not numpy else "slice step cannot be zero")
            if size < 0:  # a tensor torch would not have made
                raise ShapeError(f"a dimension of size {size}")
            out.append(len(range(*k.indices(size))))
            at += 1
        else:
            return None  # a tensor or list as an index: its values decide
    return tuple(out) + tuple(shape[at:])


def view_shape(shape: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``view`` / ``reshape``: one size may be -1, inferred from the element count."""
    sizes = sizes_of(args)
    if any(type(d) is not int for d in sizes) or any(type(d) is not int for d in shape):
        return None if -1 in sizes else sizes
    total = 1
    for d in shape:
        total *= d
    if sizes.count(-1) > 1:
        raise ShapeError("only one dimension can be inferred")
    known = 1
    for d in sizes:
        if d != -1:
            known *= d
    if -1 in sizes:
        if known == 0 or total % known:
            raise ShapeError(f"shape {list(sizes)} is invalid for input of size {total}")
        sizes = tuple(total // known if d == -1 else d for d in sizes)
    elif known != total:
        raise ShapeError(f"shape {list(sizes)} is invalid for input of size {total}")
    return sizes


def expand_shape(shape: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``expand``: new leading sizes; -1 keeps a size; only a size of 1 can grow."""
    sizes = sizes_of(args)
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise ShapeError("the number of sizes provided must be at least the tensor's dimensions")
    out = list(sizes[:lead])
    if any(d == -1 for d in out):
        raise ShapeError("-1 is not allowed in a leading, non-existing dimension")
    for old, new in zip(shape, sizes[lead:]):
        if new == -1 or new == old:
            out.append(old)
        elif old == 1 or type(old) is not int or type(new) is not int:
            out.append(new)
        else:
            raise ShapeError(f"the expanded size {new} must match the existing size {old}")
    return tuple(out)


def repeat_shape(shape: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``repeat``: each size times its count; extra counts are new leading sizes."""
    reps = sizes_of(args)
    lead = len(reps) - len(shape)
    if lead < 0:
        raise ShapeError("the number of repeats cannot be smaller than the tensor's dimensions")
    return tuple(reps[:lead]) + tuple(sym_mul(r, d) for r, d in zip(reps[lead:], shape))


def unsqueeze_shape(shape: tuple[Any, ...], dim: Any) -> tuple[Any, ...]:
    d = _dim(dim, len(shape) + 1, "dim")
    return shape[:d] + (1,) + shape[d:]


def reduce_shape(shape: tuple[Any, ...], dim: Any = None, keepdim: Any = False,
                 needs_values: bool = False) -> tuple[Any, ...]:
    """``t.mean()`` / ``t.sum(dim, keepdim)`` and the other reductions: no ``dim`` reduces all of
    them (a 0-d tensor), else each one named (a list of them too), kept as 1 with ``keepdim``.
    ``needs_values``: amax / amin, which torch refuses over a dimension of size 0."""
    if type(keepdim) is not bool:
        raise ShapeError("keepdim is not a known bool")
    if dim is None:
        if needs_values and any(d == 0 for d in shape if type(d) is int):
            raise ShapeError("a reduction over no values")
        return tuple(1 for _ in shape) if keepdim else ()
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    ndim = max(len(shape), 1)  # a 0-d tensor takes dim 0 and -1
    picked = {_dim(d, ndim, "dim") for d in dims}
    if len(picked) != len(dims):
        raise ShapeError("a dim is named twice")
    if needs_values and any(type(shape[i]) is int and shape[i] == 0 for i in picked if i < len(shape)):
        raise ShapeError("a reduction over a dimension of size 0")
    if not shape:
        return ()
    return tuple(1 if i in picked else d for i, d in enumerate(shape) if keepdim or i not in picked)


def transpose_shape(shape: tuple[Any, ...], a: Any, b: Any) -> tuple[Any, ...]:
    if not shape:  # a 0-d tensor takes dims 0 and -1, as one of one dimension would
        _dim(a, 1, "dim0"), _dim(b, 1, "dim1")
        return shape
    i, j = _dim(a, len(shape), "dim0"), _dim(b, len(shape), "dim1")
    out = list(shape)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def t_shape(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """``t()``: the transpose of a matrix; a vector or a scalar as it is."""
    if len(shape) > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(shape)}D")
    return tuple(reversed(shape))


def permute_shape(shape: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, ...]:
    dims = [_dim(d, len(shape), "dim") for d in sizes_of(args)]
    if sorted(dims) != list(range(len(shape))):
        raise ShapeError("the dimensions of permute must be each dimension once")
    return tuple(shape[d] for d in dims)


def flatten_shape(shape: tuple[Any, ...], start: Any = 0, end: Any = -1) -> tuple[Any, ...]:
    if not shape:
        _dim(start, 1, "start_dim"), _dim(end, 1, "end_dim")
        return (1,)
    s, e = _dim(start, len(shape), "start_dim"), _dim(end, len(shape), "end_dim")
    if s > e:
        raise ShapeError("flatten's start_dim cannot come after end_dim")
    merged: Any = 1
    for d in shape[s:e + 1]:
        merged = sym_mul(merged, d)
    return shape[:s] + (merged,) + shape[e + 1:]


def broadcast_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The shape of an elementwise operation on two tensors (``a + b``): sizes aligned from the
    right, a size of 1 stretched."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif type(x) is not int or type(y) is not int:
            return None
        else:
            raise ShapeError(f"the size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                             f"dimension {max(len(a), len(b)) - i}")
    return tuple(reversed(out))


def matmul_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``a @ b``: a 1-D operand is a row (left) or a column (right) that the result drops; the
    dimensions before the last two broadcast."""
    if not a or not b:
        raise ShapeError("both arguments to matmul need at least 1 dimension")
    left = (1,) + a if len(a) == 1 else a
    right = b + (1,) if len(b) == 1 else b
    inner_a, inner_b = left[-1], right[-2]
    if type(inner_a) is int and type(inner_b) is int and inner_a != inner_b:
        raise ShapeError(f"mat1 and mat2 shapes cannot be multiplied ({left[-2]}x{inner_a} and {inner_b}x{right[-1]})")
    batch = broadcast_shape(left[:-2], right[:-2])
    if batch is None:
        return None
    return batch + (left[-2],) * (len(a) > 1) + (right[-1],) * (len(b) > 1)


def cat_shape(parts: list[tuple[Any, ...]], dim: Any) -> tuple[Any, ...] | None:
    """``torch.cat(tensors, dim)``: the same sizes but along ``dim``, where they add up (a 1-D
    tensor of size 0 is left out, as torch allows for old code)."""
    kept = [p for p in parts if p != (0,)]
    if not parts:
        raise ShapeError("expected a non-empty list of tensors")
    if not kept:
        return (0,)
    first = kept[0]
    if not first:
        raise ShapeError("zero-dimensional tensor cannot be concatenated")
    d = _dim(dim, len(first), "dim")
    total: Any = 0
    for p in kept:
        if len(p) != len(first):
            raise ShapeError("tensors must have the same number of dimensions")
        for i, (x, y) in enumerate(zip(first, p)):
            if i != d and x != y:
                if type(x) is int and type(y) is int:
                    raise ShapeError(f"sizes of tensors must match except in dimension {d}")
                return None
        total = sym_add(total, p[d])
    return first[:d] + (total,) + first[d + 1:]


def stack_shape(parts: list[tuple[Any, ...]], dim: Any) -> tuple[Any, ...] | None:
    """``torch.stack(tensors, dim)``: tensors of one shape, with a new dimension of their number."""
    if not parts:
        raise ShapeError("stack expects a non-empty TensorList")
    first = parts[0]
    for p in parts[1:]:
        if p != first:
            if len(p) != len(first) or all(type(x) is int and type(y) is int for x, y in zip(p, first)):
                raise ShapeError("stack expects each tensor to be equal size")
            return None  # sizes that are formulas may be equal
    d = _dim(dim, len(first) + 1, "dim")
    return first[:d] + (len(parts),) + first[d:]


def _known(shape: tuple[Any, ...], what: str) -> tuple[int, ...]:
    if not all(type(d) is int for d in shape):
        raise ShapeError(f"{what}: a size is not a known integer")
    return shape


def split_shapes(shape: tuple[Any, ...], sections: Any, dim: Any = 0) -> list[tuple[Any, ...]]:
    """``torch.split(t, size_or_sections, dim)``: pieces of ``size`` along ``dim`` (the last one
    smaller), or of the sizes listed, which must add up to the dimension."""
    d = _dim(dim, len(shape), "dim")
    size = _known((shape[d],), "split")[0]
    if type(sections) is int:
        if sections <= 0 and size:
            raise ShapeError("split expects split_size be non-negative")
        pieces = [min(sections, size - start) for start in range(0, size, sections)] if sections else [0]
    elif isinstance(sections, (list, tuple)) and all(type(s) is int for s in sections):
        if sum(sections) != size:
            raise ShapeError(f"split_with_sizes expects split_sizes to sum exactly to {size}")
        pieces = list(sections)
    else:
        raise ShapeError("the split sizes are not known integers")
    return [shape[:d] + (p,) + shape[d + 1:] for p in pieces]


def chunk_shapes(shape: tuple[Any, ...], chunks: Any, dim: Any = 0) -> list[tuple[Any, ...]]:
    """``torch.chunk(t, chunks, dim)``: pieces of ceil(size / chunks), so maybe fewer than asked."""
    if type(chunks) is not int or chunks <= 0:
        raise ShapeError("chunk expects `chunks` to be greater than 0")
    d = _dim(dim, len(shape), "dim")
    size = _known((shape[d],), "chunk")[0]
    return split_shapes(shape, -(-size // chunks) if size else 0, d) if size else [shape] * chunks


def unbind_shapes(shape: tuple[Any, ...], dim: Any = 0) -> list[tuple[Any, ...]]:
    d = _dim(dim, len(shape), "dim")
    size = _known((shape[d],), "unbind")[0]
    return [shape[:d] + shape[d + 1:]] * size


def outer_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(a) != 1 or len(b) != 1:
        raise ShapeError("outer expects 1-D tensors")
    return (a[0], b[0])


def kron_shape(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(sym_mul(x, y) for x, y in zip(a, b))


def tile_shape(shape: tuple[Any, ...], dims: tuple[Any, ...]) -> tuple[Any, ...]:
    """``t.tile(dims)``: as repeat, but fewer counts than sizes repeat the last sizes."""
    n = max(len(shape), len(dims))
    shape, dims = (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(dims)) + tuple(dims)
    return tuple(sym_mul(x, y) for x, y in zip(shape, dims))


def repeat_interleave_shape(shape: tuple[Any, ...], repeats: Any, dim: Any = None) -> tuple[Any, ...]:
    if type(repeats) is not int or repeats < 0:
        raise ShapeError("repeats is not a known non-negative integer")
    if dim is None:
        total: Any = repeats
        for d in shape:
            total = sym_mul(total, d)
        return (total,)
    d = _dim(dim, len(shape), "dim")
    return shape[:d] + (sym_mul(shape[d], repeats),) + shape[d + 1:]


def einsum_shape(equation: Any, operands: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """``torch.einsum("ij,jk->ik", a, b)``: each output letter's size from the operands; ``...``
    stands for the dimensions no letter names, broadcast across the operands (EVA-02's rotary
    `'..., f -> ... f'`), and leads the output where the equation gives none."""
    if type(equation) is not str:
        raise ShapeError("the equation is not a known string")
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ShapeError(f"{len(terms)} operands in the equation, {len(operands)} given")
    ellipsis: tuple[Any, ...] | None = None
    if "..." in equation:
        named = []
        for i, (term, shape) in enumerate(zip(terms, operands)):
            if "..." not in term:
                named.append((term, shape))
                continue
            before, _, after = term.partition("...")
            covered = len(shape) - len(before) - len(after)
            if covered < 0 or "..." in after:
                raise ShapeError(f"the subscripts `{term}` do not fit a tensor of {len(shape)} dimensions")
            part = tuple(shape[len(before):len(before) + covered])
            ellipsis = part if ellipsis is None else broadcast_shape(ellipsis, part)
            if ellipsis is None:
                return None
            named.append((before + after, tuple(shape[:len(before)]) + tuple(shape[len(before) + covered:])))
        terms, operands = [t for t, _ in named], [s for _, s in named]
    sizes: dict[str, Any] = {}
    for term, shape in zip(terms, operands):
        if len(term) != len(shape) or not (term.isalpha() or term == ""):
            raise ShapeError(f"the subscripts `{term}` do not fit a tensor of {len(shape)} dimensions")
        for letter, size in zip(term, shape):
            if letter in sizes and sizes[letter] != size and size != 1 and sizes[letter] != 1:
                if type(size) is int and type(sizes[letter]) is int:
                    raise ShapeError(f"subscript {letter} has sizes {sizes[letter]} and {size}")
                return None
            if letter not in sizes or sizes[letter] == 1:
                sizes[letter] = size
    if not arrow:
        letters = "".join(terms)
        output = ("..." if ellipsis is not None else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    before, dots, after = output.partition("...")
    if dots and ellipsis is None:
        raise ShapeError(f"`...` in the output of `{equation}` but in no operand")
    if any(c not in sizes for c in before + after):
        raise ShapeError(f"an output subscript of `{equation}` is in no operand")
    return tuple(sizes[c] for c in before) + (tuple(ellipsis) if dots else ()) + tuple(sizes[c] for c in after)


def squeeze_shape(shape: tuple[Any, ...], dims: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``squeeze()``: the sizes of 1 dropped; ``squeeze(d)`` / ``squeeze((d, e))``: those, where 1.
    None where a size that could be 1 is a formula."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    picked = range(len(shape)) if not dims else {_dim(d, max(len(shape), 1), "dim") for d in dims}
    if any(type(shape[i]) is not int for i in picked if i < len(shape)):
        return None
    return tuple(s for i, s in enumerate(shape) if not (i in picked and s == 1))


def einops_shape(operation: str, shape: tuple[Any, ...], pattern: Any, lengths: dict[str, Any]) -> tuple[Any, ...]:
    """``einops.rearrange`` / ``repeat`` / ``reduce(t, "left -> right", **lengths)``: each axis's
    size from the input (a group ``(h w)`` splits a size by the others' given lengths), the new
    axes of a repeat from ``lengths``. Raises ShapeError where einops would raise, or where a size
    is a formula that does not divide (the analyser does not guess)."""
    if type(pattern) is not str:
        raise ShapeError("the pattern is not a known string")
    left_text, arrow, right_text = pattern.partition("->")
    if not arrow:
        raise ShapeError(f"the pattern `{pattern}` has no `->`")
    left, right = _einops_side(left_text), _einops_side(right_text)
    given = {k: v for k, v in lengths.items()}
    _einops_check(operation, left, right, given)
    ellipsis: tuple[Any, ...] = ()
    if "..." in left:
        at = left.index("...")
        rest = len(left) - 1
        if len(shape) < rest:
            raise ShapeError(f"`{left_text.strip()}` needs {rest} or more dimensions, the tensor has {len(shape)}")
        ellipsis = tuple(shape[at:len(shape) - (rest - at)])
        left_dims = list(shape[:at]) + [None] + list(shape[len(shape) - (rest - at):])
    else:
        if len(left) != len(shape):
            raise ShapeError(f"`{left_text.strip()}` has {len(left)} dimensions, the tensor has {len(shape)}")
        left_dims = list(shape)
    sizes: dict[str, Any] = {}
    for group, size in zip(left, left_dims):
        if group == "...":
            continue
        known: Any = 1
        unknown = []
        for axis in group:
            value = int(axis) if axis.isdigit() else given.get(axis, sizes.get(axis))
            if value is None:
                unknown.append(axis)
            else:
                known = sym_mul(known, value)
                if not axis.isdigit():
                    sizes[axis] = value
        if len(unknown) > 1:
            raise ShapeError(f"`({' '.join(group)})`: {', '.join(unknown)} need their lengths")
        if unknown:
            part = sym_divide_exact(size, known)
            if part is None:
                raise ShapeError(f"`({' '.join(group)})`: {size} does not split by {known}")
            sizes[unknown[0]] = part
        elif type(size) is int and type(known) is int and size != known:
            raise ShapeError(f"`({' '.join(group)})` is {known}, the dimension is {size}")
    out: list[Any] = []
    for group in right:
        if group == "...":
            out.extend(ellipsis)
            continue
        size: Any = 1
        for axis in group:
            if axis.isdigit():
                size = sym_mul(size, int(axis))
            elif axis in sizes:
                size = sym_mul(size, sizes[axis])
            elif operation == "repeat" and axis in given:
                size = sym_mul(size, given[axis])
            else:
                raise ShapeError(f"the axis `{axis}` of `{right_text.strip()}` is not on the left"
                                 + (" nor given a length" if operation == "repeat" else ""))
        out.append(size)
    return tuple(out)


def _einops_check(operation: str, left: list[Any], right: list[Any], given: dict[str, Any]) -> None:
    """einops' rules for the axes of a pattern (its EinopsError, in short)."""
    names = []
    for side in (left, right):
        axes = [a for g in side if g != "..." for a in g if not a.isdigit()]
        if len(set(axes)) != len(axes):
            raise ShapeError("an axis is named twice on one side")
        names.append(set(axes))
    if any(a.isdigit() and a != "1" for g in left if g != "..." for a in g):
        raise ShapeError("an axis of a length other than 1 on the left")
    if "..." in right and "..." not in left or ("..." in left and "..." not in right and operation != "reduce"):
        raise ShapeError("`...` on one side only")
    before, after = names
    if operation == "rearrange" and (before != after or any(
            a.isdigit() and a != "1" for g in right if g != "..." for a in g)):
        raise ShapeError("rearrange keeps the same axes")
    if operation == "repeat" and (not before <= after or any(a not in given for a in after - before)):
        raise ShapeError("repeat keeps every axis and needs the new ones' lengths")
    if operation == "reduce" and not after <= before:
        raise ShapeError("reduce makes no new axis")
    unused = set(given) - before - after
    if unused:
        raise ShapeError(f"the length of `{sorted(unused)[0]}`, which the pattern does not use")


def _einops_side(text: str) -> list[Any]:
    """``b (h w) ... 1`` as [["b"], ["h", "w"], "...", ["1"]]; ``()`` is an axis of length 1."""
    out: list[Any] = []
    group: list[str] | None = None
    for token in text.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            if group is not None:
                raise ShapeError("nested parentheses")
            group = []
        elif token == ")":
            if group is None:
                raise ShapeError("a `)` with no `(`")
            out.append(group or ["1"])
            group = None
        elif token == "...":
            if group is not None:
                raise ShapeError("`...` inside parentheses is not followed")
            out.append("...")
        elif group is not None:
            group.append(token)
        else:
            out.append([token])
    if group is not None:
        raise ShapeError("a `(` with no `)`")
    return out


def diag_shape(shape: tuple[Any, ...], k: Any = 0) -> tuple[Any, ...]:
    """``torch.diag(t, k)`` (and numpy's): a vector becomes a square matrix with it on the k-th
    diagonal; a matrix gives its k-th diagonal."""
    if type(k) is not int:
        raise ShapeError("the diagonal is not a known integer")
    if len(shape) == 1:
        n = shape[0]
        return (n + abs(k), n + abs(k)) if type(n) is int else (None, None)
    if len(shape) == 2:
        return (_diagonal_length(shape[0], shape[1], k),)
    raise ShapeError(f"diag takes a 1-d or 2-d tensor, not {len(shape)}-d")


def diagonal_shape(shape: tuple[Any, ...], offset: Any = 0, dim1: Any = 0, dim2: Any = 1) -> tuple[Any, ...]:
    """``t.diagonal(offset, dim1, dim2)``: those two dimensions go, and the diagonal's length is
    appended."""
    if type(offset) is not int:
        raise ShapeError("the offset is not a known integer")
    a, b = _dim(dim1, len(shape), "dim1"), _dim(dim2, len(shape), "dim2")
    if a == b:
        raise ShapeError("the diagonal's two dimensions are the same")
    rest = tuple(d for i, d in enumerate(shape) if i not in (a, b))
    return rest + (_diagonal_length(shape[a], shape[b], offset),)


def _diagonal_length(m: Any, n: Any, k: int) -> Any:
    if type(m) is not int or type(n) is not int:
        return None
    return max(min(m, n - k), 0) if k >= 0 else max(min(m + k, n), 0)


def normalized_dim(d: Any, ndim: int) -> int:
    """A dimension index (negative from the end) as a position; ShapeError out of range."""
    return _dim(d, ndim, "axis")


def broadcasts_to(source: tuple[Any, ...], target: tuple[Any, ...]) -> bool | None:
    """Whether a tensor of shape ``source`` can be written into one of shape ``target`` (torch's
    ``expand``: each size equal, or 1; extra leading sizes of 1); None where a size is not known."""
    extra = len(source) - len(target)
    if extra > 0:
        if any(type(d) is not int for d in source[:extra]):
            return None
        if any(d != 1 for d in source[:extra]):
            return False
        source = source[extra:]
    for s, t in zip(reversed(source), reversed(target)):
        if type(s) is not int or type(t) is not int:
            return None
        if s != t and s != 1:
            return False
    return True
