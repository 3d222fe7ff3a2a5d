"""The parameter tree: exact counts per component, with total, trainable and active.

A tree is built from ``ParamNode`` values. A node holds tensors of its own and
child nodes, repeated ``repeat`` times (32 decoder layers, 8 experts). For
mixture-of-experts, ``active_repeat`` is how many repeats a token uses (top-k
of the routed experts); everywhere else it equals ``repeat``. A frozen node's
parameters are not trainable (a LoRA base, a ``requires_grad=False`` tensor).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Iterator

from lsp_count.core.source import Span


class _computed_once:
    """``functools.cached_property`` without the lock it takes in Python 3.11 (a tree is
    built and read by one thread; the lock cost more than the sums it saved)."""

    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        self.fn, self.name = fn, fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj, owner=None):  # type: ignore[no-untyped-def]
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)  # an instance attribute from now on
        return value


# The text model inside a vision-language model's tree (layouts/multimodal.py builds it; the memory
# estimate runs a step's text tokens through its layers alone).
LANGUAGE_MODEL_NODE = "language_model"
# The nodes a composite's text model sits in (a language model, CLIP's and SigLIP's text tower).
_TEXT_MODEL_NODES = frozenset({LANGUAGE_MODEL_NODE, "text_model"})


def holds_text_model(root: "ParamNode") -> bool:
    """Whether a composite's head class holds its text model (BLIP-2's retrieval and projection heads hold none,
    though their config has a text_config: no cache, no logits, not the text model's float32 list)."""
    return any(c.name in _TEXT_MODEL_NODES for c in root.children)
# A head node whose class has no output embeddings (get_output_embeddings() is None: wav2vec 2.0's CTC lm_head):
# peft's all-linear adapts its Linear, whatever it is called (memory.is_output_head).
ADAPTABLE_HEAD_NODE = "adaptable_head"


@dataclass(frozen=True, init=False)
class Tensor:
    """One parameter tensor (per repeat of its node).

    ``kind``: "linear" (a weight matrix ``out × in``), "embedding", "norm",
    "bias", "conv", or "other". ``module`` is the module's attribute name as
    the model class names it (``q_proj``), which is what LoRA targets match.
    """

    name: str
    shape: tuple[int, ...]
    kind: str = "other"
    module: str = ""
    # The weight dtypes in which transformers keeps this tensor in float32 all the same (its model
    # class's _keep_in_fp32_modules: T5's wo under float16; DeepSeek's router in float16 and bfloat16).
    keep_fp32: tuple[str, ...] = ()

    def __init__(self, name: str, shape: tuple[int, ...], kind: str = "other", module: str = "",
                 keep_fp32: tuple[str, ...] = ()) -> None:
        # As ParamNode's: a frozen dataclass's generated __init__ is three times slower.
        d = self.__dict__
        d["name"] = name
        d["shape"] = shape
        d["kind"] = kind
        d["module"] = module
        d["keep_fp32"] = keep_fp32

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def in_features(self) -> int | None:
        return self.shape[1] if self.kind == "linear" and len(self.shape) == 2 else None

    @property
    def is_linear_weight(self) -> bool:
        """An nn.Linear's ``weight`` (what peft's LoRA adapts), not another 2-D matmul weight of the
        linear kind (nn.MultiheadAttention's packed ``in_proj_weight`` in a Python model)."""
        return self.in_features is not None and (self.name == "weight" or self.name.endswith(".weight"))

    @property
    def out_features(self) -> int | None:
        return self.shape[0] if self.kind == "linear" and len(self.shape) == 2 else None


@dataclass(frozen=True, init=False)
class ParamNode:
    # Totals are cached properties: every level sums its children, and the memory
    # estimate, the report and the hovers read them many times over. Nodes never change.
    name: str
    tensors: tuple[Tensor, ...] = ()
    children: tuple["ParamNode", ...] = ()
    repeat: int = 1
    active_repeat: int | None = None
    frozen: bool = False
    # Why the node is as it is, e.g. "tied to embed_tokens", "routed: 2 of 8 per token".
    note: str = ""
    # Where the number that shapes this node comes from in the document.
    source: Span | None = None
    # The config key that drives this node (for hovers and fix suggestions).
    key: str = ""
    # Module objects holding this node's tensors, tied (Zamba's shared blocks: one per hybrid layer that uses
    # the block): the tensors count once, but each module is one peft adapts (iter_tensors(instances=True)).
    instances: int = 1

    def __init__(self, name: str, tensors: tuple[Tensor, ...] = (), children: tuple["ParamNode", ...] = (),
                 repeat: int = 1, active_repeat: int | None = None, frozen: bool = False, note: str = "",
                 source: Span | None = None, key: str = "", instances: int = 1) -> None:
        # The generated __init__ of a frozen dataclass sets each field through object.__setattr__;
        # trees have thousands of nodes, and this is three times faster. Fields as declared above.
        d = self.__dict__
        d["name"] = name
        d["tensors"] = tensors
        d["children"] = children
        d["repeat"] = repeat
        d["active_repeat"] = active_repeat
        d["frozen"] = frozen
        d["note"] = note
        d["source"] = source
        d["key"] = key
        d["instances"] = instances

    def given_sizes(self, own: int, per_repeat: int, trainable_per_repeat: int) -> "ParamNode":
        """The node with the sums its builder already made while building it (the Python
        analyser sums as it walks a model), so they are not summed again. Returns the node."""
        d = self.__dict__
        d["own"] = own
        d["per_repeat"] = per_repeat
        d["total"] = self.repeat * per_repeat
        d["trainable"] = 0 if self.frozen else self.repeat * trainable_per_repeat
        return self

    @_computed_once
    def own(self) -> int:
        return sum(t.numel for t in self.tensors)

    @_computed_once
    def per_repeat(self) -> int:
        return self.own + sum(c.total for c in self.children)

    @_computed_once
    def total(self) -> int:
        return self.repeat * self.per_repeat

    @_computed_once
    def active(self) -> int:
        reps = self.repeat if self.active_repeat is None else self.active_repeat
        return reps * (self.own + sum(c.active for c in self.children))

    @_computed_once
    def trainable(self) -> int:
        if self.frozen:
            return 0
        return self.repeat * (self.own + sum(c.trainable for c in self.children))

    @_computed_once
    def has_routing(self) -> bool:
        return self.active_repeat is not None or any(c.has_routing for c in self.children)

    @_computed_once
    def structure(self) -> tuple[object, ...]:
        """All but the node's own name and source: equal for the entries of a stack that can be
        shown as one node repeated."""
        return (tuple((t.name, t.shape, t.kind) for t in self.tensors), self._flags(),
                tuple((c.name, c.structure) for c in self.children))

    def _flags(self) -> tuple[object, ...]:
        return self.frozen, self.note, self.repeat, self.active_repeat, self.key, self.instances

    def same_structure(self, other: "ParamNode") -> bool:
        """``structure`` equal, quickly where one is a renamed copy of the other (same tensors and children)."""
        if self.tensors is other.tensors and self.children is other.children:
            return self._flags() == other._flags()
        return self.total == other.total and self.structure == other.structure

    def renamed(self, name: str) -> "ParamNode":
        """The same node under another name (its sizes, already summed, come along)."""
        return self._copy(name, self.source, self.children)

    def moved(self, source: Span | None, children: tuple["ParamNode", ...]) -> "ParamNode":
        """The same node with its source elsewhere and children of the same sizes (moved, too)."""
        return self._copy(self.name, source, children)

    def _copy(self, name: str, source: Span | None, children: tuple["ParamNode", ...]) -> "ParamNode":
        out = ParamNode(name, self.tensors, children, self.repeat, self.active_repeat, self.frozen, self.note,
                        source, self.key, self.instances)
        d, mine = out.__dict__, self.__dict__
        for computed in ("own", "per_repeat", "total", "active", "trainable", "has_routing", "structure"):
            if computed in mine:
                d[computed] = mine[computed]
        return out

    def child(self, name: str) -> "ParamNode | None":
        for c in self.children:
            if c.name == name:
                return c
        return None

    def find(self, path: str) -> "ParamNode | None":
        node: ParamNode | None = self
        for part in path.split("."):
            node = node.child(part) if node else None
        return node

    def walk(self, prefix: str = "", multiplier: int = 1) -> Iterator[tuple[str, "ParamNode", int]]:
        """Yield (dotted path, node, how many times the node occurs in the model)."""
        path = f"{prefix}.{self.name}" if prefix else self.name
        yield path, self, multiplier
        for c in self.children:
            yield from c.walk(path, multiplier * self.repeat)

    def iter_tensors(self, active: bool = False, instances: bool = False) -> Iterator[tuple[str, Tensor, int, bool]]:
        """Yield (module path, tensor, occurrences, frozen) for every tensor. ``active``: the
        occurrences a token runs through, a routed node's active repeats (top-k experts) in place
        of its repeats. ``instances``: the modules that hold it, a tied node's each (what LoRA adapts)."""
        stack: list[tuple[ParamNode, str, int, bool]] = [(self, "", 1, False)]
        while stack:
            node, prefix, mult, frozen = stack.pop()
            path = f"{prefix}.{node.name}" if prefix else node.name
            mult *= node.active_repeat if active and node.active_repeat is not None else node.repeat
            if instances:
                mult *= node.instances
            frozen = frozen or node.frozen
            for t in node.tensors:
                yield path, t, mult, frozen
            for c in reversed(node.children):
                stack.append((c, path, mult, frozen))


def node(name: str, *children: "ParamNode | None", tensors: tuple[Tensor, ...] = (), **kw: object) -> ParamNode:
    """Build a node, dropping ``None`` children and empty nodes."""
    kept = tuple(c for c in children if c is not None and (c.total > 0 or c.note))
    return ParamNode(name, tensors=tuple(tensors), children=kept, **kw)  # type: ignore[arg-type]


def linear(module: str, in_f: int, out_f: int, bias: bool) -> tuple[Tensor, ...]:
    ts = (Tensor(f"{module}.weight", (out_f, in_f), "linear", module),)
    if bias:
        ts += (Tensor(f"{module}.bias", (out_f,), "bias", module),)
    return ts


def norm(module: str, size: int, bias: bool) -> tuple[Tensor, ...]:
    ts = (Tensor(f"{module}.weight", (size,), "norm", module),)
    if bias:
        ts += (Tensor(f"{module}.bias", (size,), "norm", module),)
    return ts


def embedding(module: str, rows: int, dim: int) -> tuple[Tensor, ...]:
    return (Tensor(f"{module}.weight", (rows, dim), "embedding", module),)


_SUFFIXES = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K"))


def short_count(n: int) -> str:
    """Three significant digits with K/M/B/T: 8030261248 -> '8.03B'."""
    if abs(n) >= 10**15:  # beyond any model: whole trillions, in ints (a float may not hold n)
        return f"{n // 10**12:,}T"
    for scale, suffix in _SUFFIXES:
        if abs(n) >= scale * 0.9995:
            v = n / scale
            if abs(v) >= 999.5 and suffix != "T":
                continue
            digits = 0 if abs(v) >= 99.95 else 1 if abs(v) >= 9.995 else 2
            return f"{v:.{digits}f}{suffix}"
    return str(n)


def exact_count(n: int) -> str:
    return f"{n:,}"


@dataclass(frozen=True)
class ParamTree:
    """A model's parameter tree plus the facts other stages need."""

    root: ParamNode
    notes: tuple[str, ...] = field(default=())
    # The modules of linear layers bitsandbytes does not replace (Family.unreplaced_linears of the model's families).
    unreplaced_linears: frozenset[str] = field(default=frozenset())
    # Its router's gate is a plain nn.Linear (Family.router_holds_linear).
    router_holds_linear: bool = False

    @functools.cached_property
    def last_parameter(self) -> tuple[str, str] | None:
        """(node path, tensor name) of the parameter a model's named_parameters() lists last: the last tensor in
        the tree's order that a submodule holds (a name with a dot). A module's own parameters (CLIP's logit_scale)
        come before its submodules' in transformers' order, so a dotless tensor is last only where nothing else is."""
        last = own = None
        for path, t, _mult, _frozen in self.root.iter_tensors():
            if "." in t.name:
                last = (path, t.name)
            else:
                own = (path, t.name)
        return last or own

    @functools.cached_property
    def tied_nodes(self) -> tuple[str, ...]:
        """Paths of the nodes whose tensors several modules hold, tied (ParamNode.instances > 1: Zamba's shared
        blocks): their keys are tied weights' keys."""
        return tuple(path for path, n, _mult in self.root.walk() if n.instances > 1)

    def is_tied(self, path: str) -> bool:
        """Whether the tensors at node ``path`` are tied (under a node of ``tied_nodes``)."""
        return any(path == p or path.startswith(p + ".") for p in self.tied_nodes)

    @property
    def total(self) -> int:
        return self.root.total

    @property
    def trainable(self) -> int:
        return self.root.trainable

    @property
    def active(self) -> int | None:
        return self.root.active if self.root.has_routing else None

    def components(self) -> dict[str, int]:
        return {c.name: c.total for c in self.root.children}
