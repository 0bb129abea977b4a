"""Dynamic shapes: one captured graph serving calls of many shapes (Note [Dynamic shapes]).

# Note [Dynamic shapes]
# numtorch captures by running the real call, so a graph's arguments hold plain Python ints
# (a ``view(b * t, e)`` records 128, not ``b * t``): there are no symbolic sizes. A graph is
# shape-generic exactly when capturing it at another shape records the same calls with the same
# arguments. So, as PyTorch's automatic dynamic does (``dynamic=None``) after a shape change, a
# recapture at a new shape is compared with the earlier capture of the same ranks, dtypes and
# other guards; when the two graphs are equal (ops, arguments, constants, output structure), the
# dims that differed between the two calls become dynamic: later calls that differ from them
# only in those dims reuse the graph without running the function's Python again, and the
# graph's plan for the new shapes is made from one replay of the graph (the generated kernels
# are shape-generic and come from the kernel cache). Dims that did not change stay guarded, so
# an argument derived from them (``x[:, : x.shape[1] // 2]``) cannot go stale. ``dynamic=True``
# follows the same rule (the first two shapes are captured); ``dynamic=False`` never
# generalizes. What a capture cannot see is Python branching on a dynamic size (``if
# x.shape[0] > 8:``) or an argument that two sizes map to one value (``t // 4`` at 8 and 9):
# compile such a function with ``dynamic=False``.
"""

from __future__ import annotations


def signature(graph) -> list:
    """What must match for two captures to be one graph at two shapes (compared with ==)."""
    nodes = [(n.op, n.template, n.direct, [(i, items, tp) for i, items, tp in n.lists], n.outs, n.single)
             for n in graph.nodes]  # fmt: skip
    return [graph.n_inputs, [(s, id(t)) for s, t in graph.consts], nodes, graph.out_leaves, repr(graph.out_spec)]


def _is_tensor_part(p) -> bool:
    return p.__class__ is tuple and len(p) == 7 and p[1].__class__ is tuple


def changed_dims(old: tuple, new: tuple):
    """{key position: (bool per dim)} of the tensor dims that differ between two keys that are
    equal but for tensor sizes (same ranks), or None when they differ otherwise."""
    if len(old) != len(new):
        return None
    mask = {}
    for i, (a, b) in enumerate(zip(old, new, strict=True)):
        if a == b:
            continue
        if not (_is_tensor_part(a) and _is_tensor_part(b)) or len(a[1]) != len(b[1]) or a[2:] != b[2:] or a[0] != b[0]:
            return None
        mask[i] = tuple(x != y for x, y in zip(a[1], b[1], strict=True))
    return mask


def merge(m1: dict, m2: dict) -> dict:
    out = dict(m1)
    for i, dims in m2.items():
        prev = out.get(i)
        out[i] = dims if prev is None else tuple(x or y for x, y in zip(prev, dims, strict=True))
    return out


def masked(key: tuple, mask: dict) -> tuple:
    """``key`` with its dynamic dims (``mask``) left out."""
    if not mask:
        return key
    parts = list(key)
    for i, dims in mask.items():
        p = parts[i]
        if not _is_tensor_part(p) or len(p[1]) != len(dims):
            return ()  # another structure: matches no masked key
        parts[i] = (p[0], tuple(None if d else s for s, d in zip(p[1], dims, strict=True)), *p[2:])
    return tuple(parts)


def replay(graph, tensors: list) -> dict:
    """Run ``graph`` through the dispatcher on ``tensors``: every slot's value, for planning
    (and the call's own result, recorded by autograd as an eager call's)."""
    env = graph.new_env(tensors)
    for n in graph.nodes:
        n.run(env)
    return env
