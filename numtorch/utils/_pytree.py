"""Nested containers as flat leaf lists plus a structure spec, as ``torch.utils._pytree``.

Subclass and mode code unwraps and rewraps arguments with ``tree_map``:

>>> from numtorch.utils._pytree import tree_map, tree_flatten, tree_unflatten
>>> tree_map(lambda x: x * 2, {"a": 1, "b": (2, [3])})
{'a': 2, 'b': (4, [6])}
>>> leaves, spec = tree_flatten([1, (2, 3)])
>>> leaves, tree_unflatten([10, 20, 30], spec)
([1, 2, 3], [10, (20, 30)])

Lists, tuples, dicts (insertion order), namedtuples, OrderedDict, defaultdict and deque are
nodes; anything else (None included) is a leaf unless registered with ``register_pytree_node``.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, NamedTuple

PyTree = Any
Context = Any


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Callable | None = None


SUPPORTED_NODES: dict[type, NodeDef] = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:  # fmt: skip
    """Make ``cls`` a node: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x``.

    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda c, _: Pair(*c))
    >>> tree_leaves(Pair(1, [2]))
    [1, 2]
    """
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)


def _register_pytree_node(cls, flatten_fn, unflatten_fn, to_str_fn=None, maybe_from_str_fn=None, *,
                          to_dumpable_context=None, from_dumpable_context=None,
                          flatten_with_keys_fn=None) -> None:  # fmt: skip
    """The older spelling of ``register_pytree_node`` (PyTorch keeps it for compatibility)."""
    register_pytree_node(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn=flatten_with_keys_fn)


def _is_namedtuple_instance(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields") and type(x) is not tuple


def _node_type(x):
    t = type(x)
    if t in SUPPORTED_NODES:
        return t
    if _is_namedtuple_instance(x):
        return namedtuple
    return None


class namedtuple:  # noqa: N801 - the node type PyTorch prints for namedtuples ("namedtuple")
    pass


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return collections.defaultdict(factory, zip(keys, values, strict=True))


def _namedtuple_flatten(x):
    return list(x), type(x)


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
register_pytree_node(list, lambda t: (list(t), None), lambda v, c: list(v))
register_pytree_node(dict, _dict_flatten, lambda v, c: dict(zip(c, v, strict=True)))
register_pytree_node(namedtuple, _namedtuple_flatten, lambda v, c: c(*v))
register_pytree_node(collections.OrderedDict, _dict_flatten,
                     lambda v, c: collections.OrderedDict(zip(c, v, strict=True)))  # fmt: skip
register_pytree_node(collections.defaultdict, _defaultdict_flatten, _defaultdict_unflatten)
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda v, c: collections.deque(v, maxlen=c))  # fmt: skip


@dataclasses.dataclass(init=True, frozen=True, eq=True, repr=False)
class TreeSpec:
    """The structure of a pytree: node type, context (dict keys ...) and one spec per child."""

    type: Any
    context: Context
    children_specs: list

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_nodes", 1 + sum(c.num_nodes for c in self.children_specs))
        object.__setattr__(self, "num_leaves", sum(c.num_leaves for c in self.children_specs))
        object.__setattr__(self, "num_children", len(self.children_specs))

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        return list(self.children_specs)

    def child(self, index: int) -> TreeSpec:
        return self.children_specs[index]

    def flatten_up_to(self, tree: PyTree) -> list:
        if self.is_leaf():
            return [tree]
        children, _ = SUPPORTED_NODES[self.type].flatten_fn(tree)
        out = []
        for c, s in zip(children, self.children_specs, strict=True):
            out.extend(s.flatten_up_to(c))
        return out

    def unflatten(self, leaves) -> PyTree:
        return tree_unflatten(leaves, self)

    def __repr__(self, indent: int = 0) -> str:
        name = self.type.__name__ if isinstance(self.type, type) else str(self.type)
        head = f"TreeSpec({name}, {self.context}, ["
        pad = indent + len(head)
        kids = []
        for i, c in enumerate(self.children_specs):
            kids.append(("" if i == 0 else "\n" + " " * (indent + 2)) + c.__repr__(indent + 2))
        return head + ",".join(kids) + "])"

    def __eq__(self, other) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type, self.context, self.children_specs) == (
            other.type, other.context, other.children_specs,
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.type, id(self.context), len(self.children_specs)))


class LeafSpec(TreeSpec):
    """The spec of one leaf; prints as ``*``."""

    def __init__(self) -> None:
        super().__init__(None, None, [])

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_nodes", 1)
        object.__setattr__(self, "num_leaves", 1)
        object.__setattr__(self, "num_children", 0)

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF = LeafSpec()


def _is_leaf(tree, is_leaf) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) is None


def tree_flatten(tree: PyTree, is_leaf: Callable | None = None) -> tuple[list, TreeSpec]:
    """The leaves of ``tree`` (depth first) and its structure."""
    leaves: list = []
    spec = _flatten(tree, is_leaf, leaves)
    return leaves, spec


def _flatten(tree, is_leaf, leaves) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    nt = _node_type(tree)
    children, context = SUPPORTED_NODES[nt].flatten_fn(tree)
    return TreeSpec(nt, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_unflatten(leaves, treespec: TreeSpec) -> PyTree:
    """Rebuild a tree of ``treespec``'s structure from ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of "
            f"TreeSpec but got item of type {type(treespec)}."
        )
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
            f"but the spec refers to a pytree that holds {treespec.num_leaves} items ({treespec})."
        )
    it = iter(leaves)
    return _unflatten(it, treespec)


def _unflatten(it, spec):
    if spec.is_leaf():
        return next(it)
    children = [_unflatten(it, c) for c in spec.children_specs]
    return SUPPORTED_NODES[spec.type].unflatten_fn(children, spec.context)


def tree_leaves(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_iter(tree: PyTree, is_leaf: Callable | None = None):
    return iter(tree_leaves(tree, is_leaf))


def tree_map(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """``func`` applied to every leaf (of ``tree`` and, leaf for leaf, of ``rests``).

    >>> tree_map(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    if not rests and is_leaf is None:
        return _map1(func, tree)
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(*flat, strict=True)], spec)


# Note [tree_map fast path]
# A __torch_dispatch__ wrapper maps over (args, kwargs) on every op: tuples, lists and dicts of
# leaves. Those three are rebuilt directly (their registered unflatten functions are exactly
# tuple(), list() and dict(zip())), leaves visited in the same depth-first order; any other node
# goes through the TreeSpec path.
def _map1(func, x):
    c = x.__class__
    if c is tuple:
        return tuple([_map1(func, v) for v in x])
    if c is list:
        return [_map1(func, v) for v in x]
    if c is dict:
        return {k: _map1(func, v) for k, v in x.items()}
    if c in SUPPORTED_NODES or _is_namedtuple_instance(x):
        leaves, spec = tree_flatten(x)
        return tree_unflatten([func(v) for v in leaves], spec)
    return func(x)


def tree_map_(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """``func`` called on every leaf for its side effects; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for xs in zip(*flat, strict=True):
        func(*xs)
    return tree


def _only(type_or_types, func):
    def wrapped(x):
        return func(x) if isinstance(x, type_or_types) else x

    return wrapped


def _pred_only(type_or_types, pred):
    return lambda x: isinstance(x, type_or_types) and pred(x)


def tree_map_only(type_or_types, func: Callable, tree: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """``func`` applied to the leaves that are instances of ``type_or_types``; others stay.

    >>> tree_map_only(int, lambda x: x + 1, [1, "a", 2.0])
    [2, 'a', 2.0]
    """
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types, func: Callable, tree: PyTree, is_leaf: Callable | None = None) -> PyTree:
    return tree_map_(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def treespec_pprint(treespec: TreeSpec) -> str:
    return repr(treespec)


__all__ = [
    "PyTree", "Context", "TreeSpec", "LeafSpec", "NodeDef", "SUPPORTED_NODES",
    "register_pytree_node", "_register_pytree_node", "tree_flatten", "tree_unflatten",
    "tree_leaves", "tree_structure", "tree_iter", "tree_map", "tree_map_", "tree_map_only",
    "tree_map_only_", "tree_all", "tree_any", "tree_all_only", "tree_any_only", "treespec_pprint",
]  # fmt: skip
