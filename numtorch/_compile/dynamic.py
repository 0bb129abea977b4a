"""Dynamic shapes: one captured graph serving calls of many shapes (Note [Dynamic shapes]).

# Note [Dynamic shapes]
# numtorch captures by running the real call, so a graph's arguments hold plain Python ints
# (a ``view(b * t, e)`` records 128, not ``b * t``): there are no symbolic sizes. A graph is
# shape-generic exactly when capturing it at another shape records the same calls with the same
# arguments. So, as PyTorch's automatic dynamic does (``dynamic=None``) after a shape change, a
# recapture at a new shape is compared with the earlier capture of the same ranks, dtypes and
# other guards; when the two graphs are equal (ops, arguments, constants, output structure), or
# differ only in integer arguments that each fit one formula of the changed sizes (below), the
# dims that differed between the two calls become dynamic: later calls that differ from them
# only in those dims reuse the graph without running the function's Python again, and the
# graph's plan for the new shapes is made from one replay of the graph (the generated kernels
# are shape-generic and come from the kernel cache). Dims that did not change stay guarded, so
# an argument derived from them (``x[:, : x.shape[1] // 2]``) cannot go stale. ``dynamic=True``
# follows the same rule (the first two shapes are captured); ``dynamic=False`` never
# generalizes. What a capture cannot see is Python branching on a dynamic size (``if
# x.shape[0] > 8:``), an argument that two sizes map to one value (``t // 4`` at 8 and 9) or
# an integer argument that changes for another reason (a random int). So with the default
# ``dynamic=None`` a capture during which user code (not numtorch's own Python) read a
# tensor's sizes (``shape``, ``size()``, ``numel()``, ``len()``; ranks are guarded anyway) is
# never generalized: only ``dynamic=True``, the user's word that sizes do not steer the Python,
# generalizes those. On the GPT-2 benchmark model with ``dynamic=True``, batch and sequence
# length each become dynamic after one recapture, with losses equal to eager's.
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
        if not (_is_tensor_part(a) and _is_tensor_part(b)):
            return None
        if len(a[1]) != len(b[1]) or a[2:] != b[2:] or a[0] != b[0]:
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


# ---- sizes recorded as arguments ------------------------------------------------------------
# A graph whose calls differ between the two captures only in integer arguments (``view(b * t,
# e)``, a mask slice ``[:t]``, ``arange(t)``) is still generic when each such integer is one
# formula of the dynamic dims on both captures: ``a * X + c`` with X one dynamic dim or the
# product of two, and integers a != 0, c. Exactly one formula must fit, else the graph stays
# specialized (two dims that changed together make many fit). Dynamic dims of one size in both
# captures count as one size and are guarded equal, as PyTorch's duck sizing does. Such a graph's calls at new sizes
# are its captured calls with the formulas evaluated (``instantiate``).
def _holes(a, b, path, out) -> bool:
    if a.__class__ is int and b.__class__ is int:
        if a != b:
            out.append((path, a, b))
        return True
    if a.__class__ in (list, tuple) and b.__class__ is a.__class__ and len(a) == len(b):
        return all(_holes(x, y, (*path, i), out) for i, (x, y) in enumerate(zip(a, b, strict=True)))
    return a == b


def unify(sig_a: list, sig_b: list):
    """[(node position, path in its template, value a, value b)] where two signatures differ
    in integer arguments only, or None when they differ otherwise."""
    if sig_a[0] != sig_b[0] or sig_a[1] != sig_b[1] or sig_a[3:] != sig_b[3:]:
        return None
    if len(sig_a[2]) != len(sig_b[2]):
        return None
    holes: list = []
    for k, (na, nb) in enumerate(zip(sig_a[2], sig_b[2], strict=True)):
        if na[0] is not nb[0] or na[2:] != nb[2:]:
            return None
        found: list = []
        if not _holes(list(na[1]), list(nb[1]), (), found):
            return None
        holes += [(k, p, x, y) for p, x, y in found]
    return holes


def _classes(mask: dict, key_a: tuple, key_b: tuple) -> list:
    # dynamic dims of equal size in both captures are one size (PyTorch's duck sizing: a
    # batch dim shared by inputs and targets), guarded equal at later calls
    by: dict = {}
    for i, m in sorted(mask.items()):
        for d, on in enumerate(m):
            if on:
                by.setdefault((key_a[i][1][d], key_b[i][1][d]), []).append((i, d))
    return list(by.values())


def same_sizes(key: tuple, classes: list) -> bool:
    return all(len({key[i][1][d] for i, d in c}) == 1 for c in classes)


def _factors(classes: list) -> list:
    dims = [c[0] for c in classes]
    return [(f,) for f in dims] + [(f, g) for j, f in enumerate(dims) for g in dims[j:]]


def _value(key: tuple, factors) -> int:
    v = 1
    for i, d in factors:
        v *= key[i][1][d]
    return v


def fit(holes: list, key_a: tuple, key_b: tuple, mask: dict):
    """([(node position, path, (a, c, factors))] for every hole, the classes of dims that must
    stay equal), or None when a hole has no single formula."""
    out = []
    classes = _classes(mask, key_a, key_b)
    cands = _factors(classes)
    for k, path, va, vb in holes:
        found = set()
        for f in cands:
            xa, xb = _value(key_a, f), _value(key_b, f)
            if xa == xb or (vb - va) % (xb - xa):
                continue
            a = (vb - va) // (xb - xa)
            if a:
                found.add((a, va - a * xa, f))
        if len(found) != 1:
            return None
        out.append((k, path, found.pop()))
    return out, [c for c in classes if len(c) > 1]


def _put(t, path, v):
    if len(path) == 1:
        t[path[0]] = v
        return t
    inner = t[path[0]]
    tp = inner.__class__
    t[path[0]] = tp(_put(list(inner), path[1:], v))
    return t


def instantiate(proto, graph, formulas: list, key: tuple):
    """``graph``'s captured calls (``proto``: the node list and slot count before planning) with
    each formula evaluated for ``key``'s sizes: a new Graph."""
    from .graph import Graph, Node

    nodes, n_slots = proto
    temps = {}
    for k, path, (a, c, f) in formulas:
        t = temps.get(k)
        if t is None:
            t = temps[k] = list(nodes[k].template)
        _put(t, path, a * _value(key, f) + c)
    new = [Node(n.op, temps.get(k, n.template), n.direct, n.lists, n.outs, n.single, k)
           for k, n in enumerate(nodes)]  # fmt: skip
    return Graph(graph.n_inputs, graph.consts, new, n_slots, graph.out_leaves, graph.out_spec)
