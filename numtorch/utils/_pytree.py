"""Minimal pytrees (tuples, lists, dicts, namedtuples; everything else is a leaf), as
``torch.utils._pytree`` flattens them."""

from __future__ import annotations

from typing import Any, Callable


class TreeSpec:
    __slots__ = ("kind", "context", "children")

    def __init__(self, kind, context, children):
        self.kind = kind
        self.context = context
        self.children = children

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.kind == other.kind and self.context == other.context
                and self.children == other.children)  # fmt: skip

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        return f"TreeSpec({self.kind.__name__}, {self.context!r}, [{inner}])"


LEAF = TreeSpec(None, None, [])


def _children(x):
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if t is dict:
        keys = list(x)
        return dict, keys, [x[k] for k in keys]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return t, None, list(x)
    return None


def tree_flatten(tree: Any) -> tuple[list, TreeSpec]:
    """Leaves left to right and the structure to rebuild the tree from them."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(x, leaves) -> TreeSpec:
    c = _children(x)
    if c is None:
        leaves.append(x)
        return LEAF
    kind, ctx, kids = c
    return TreeSpec(kind, ctx, [_flatten(k, leaves) for k in kids])


def tree_unflatten(leaves, spec: TreeSpec) -> Any:
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec.kind is None:
        return next(it)
    kids = [_build(c, it) for c in spec.children]
    if spec.kind is dict:
        return dict(zip(spec.context, kids))
    if spec.kind is tuple or spec.kind is list:
        return spec.kind(kids)
    return spec.kind(*kids)


def tree_leaves(tree: Any) -> list:
    return tree_flatten(tree)[0]


def tree_map(fn: Callable, tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)
