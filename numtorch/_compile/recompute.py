"""Recomputation of cheap pointwise values in the backward (Note [Recompute in backward]).

# Note [Recompute in backward]
# The joint capture's backward reads forward values (Note [Captured backward]): saving each one
# makes the forward's fused region write it to memory and keeps it alive until the backward.
# As AOTAutograd's min-cut partitioner does for pointwise ops, a saved value is recomputed in
# the backward instead when
#   * it is made by a fusable pointwise call (Note [Pointwise declaration]) that the forward
#     would otherwise keep in registers: nothing but pointwise calls (and dead detach views)
#     reads it there, and it is not an output;
#   * every backward reader is a pointwise call too (through detach views), so the recomputed
#     calls join that reader's fused region instead of taking a pass of their own;
#   * the values the recomputation starts from (its roots: the call's inputs and parameters,
#     which the backward holds anyway, values saved already, values the forward writes anyway
#     such as a matmul's product) add no more bytes to what is saved than the value removes.
# A recomputed chain is copied into the backward graph just before its first reader. The
# recomputed calls are the forward's own deterministic kernels on the same inputs, so gradients
# stay bitwise. Random ops are never recomputed (their draws would differ). The forward graph
# then drops its dead calls (detach views of values no longer saved, pointwise values nothing
# reads), so its regions write only what the output and the backward need.
"""

from __future__ import annotations

from types import SimpleNamespace

from . import fusion
from .graph import Node

_VIEWS = ("detach.default", "alias.default")
_RANDOM = ("rand", "bernoulli", "dropout", "normal", "poisson", "multinomial")


def _is_view(n) -> bool:
    return n.op.__name__ in _VIEWS and n.single and len(n.direct) == 1 and not n.lists


def _pointwise(n, env) -> bool:
    if not n.single or n.lists or any(r in n.op.__name__ for r in _RANDOM):
        return False
    try:
        return fusion._decl(n, env) is not None
    except Exception:
        return False


def _removable(n, env) -> bool:
    return _is_view(n) or _pointwise(n, env)


def dead_code(graph, env: list, live: set) -> list:
    """The nodes of ``graph`` that make a ``live`` slot, or a slot such a node reads, or that
    cannot be removed (anything but views and pointwise calls)."""
    live = set(live)
    keep = []
    for n in reversed(graph.nodes):
        if any(s in live for s in n.outs) or not _removable(n, env):
            keep.append(n)
            live.update(n.inputs())
    return keep[::-1]


def drop_dead(graph, vals: dict, live: set) -> None:
    graph.nodes = dead_code(graph, [vals.get(i) for i in range(graph.n_slots)], live)
    for i, n in enumerate(graph.nodes):
        n.index = i


def prepare(fwd, fvals: dict, outs: set, saved: set) -> dict:
    """Drop the forward's dead calls (the engine's detach of saved values) and split its
    addmm epilogues (Note [addmm epilogue]) first, so a saved bias add reads as pointwise: the
    forward values by slot, with the split's new slots."""
    drop_dead(fwd, fvals, outs | saved)
    env = fusion._split_addmm(fwd, [fvals.get(i) for i in range(fwd.n_slots)], (outs, saved))
    return {i: t for i, t in enumerate(env) if t is not None}


def _readers(nodes) -> dict:
    r: dict = {}
    for n in nodes:
        for s in n.inputs():
            r.setdefault(s, []).append(n)
    return r


def plan(fwd, fvals: dict, bwd, bvals: dict, bwd_src: list, fwd_outs: list):
    """The new ``bwd_src`` with cheap values recomputed, or None when none is; ``bwd`` is
    rewritten in place (nodes, new slots, constants) and ``bvals`` gains the new slots' values."""
    fenv = [fvals.get(i) for i in range(fwd.n_slots)]
    benv = [bvals.get(i) for i in range(bwd.n_slots)]
    free = set(range(fwd.n_inputs))  # the call's inputs and constants: held by the backward anyway
    saved = {fs for _, fs in bwd_src}
    outs = set(fwd_outs)
    live_nodes = dead_code(fwd, fenv, outs | saved)
    freaders, breaders = _readers(live_nodes), _readers(bwd.nodes)
    producer = {n.outs[0]: n for n in fwd.nodes if n.single and n.outs}

    def transient(s) -> bool:  # a value the forward keeps in registers unless it is saved
        n = producer.get(s)
        if n is None or s in outs or s in free or not _pointwise(n, fenv):
            return False
        return all(_pointwise(r, fenv) or _is_view(r) for r in freaders.get(s, ()))

    def bwd_pointwise(bs) -> bool:
        for r in breaders.get(bs, ()):
            if _is_view(r):
                if not bwd_pointwise(r.outs[0]):
                    return False
            elif not _pointwise(r, benv):
                return False
        return bool(breaders.get(bs))

    recomputed: dict = {}  # forward slot -> its node
    roots_needed: set = set()
    for fs in sorted(saved):
        if fs in roots_needed or not transient(fs):
            continue
        if not all(bwd_pointwise(bs) for bs, f in bwd_src if f == fs):
            continue
        chain, roots, todo = {}, set(), [fs]
        while todo:
            s = todo.pop()
            if s in chain or s in recomputed:
                continue
            if s != fs and (s in free or not transient(s) or (s in saved and s not in recomputed)):
                roots.add(s)
                continue
            chain[s] = producer[s]
            todo += chain[s].inputs()
        new = [r for r in roots if r not in free and r not in saved and r not in roots_needed]
        cost = sum(fvals[r]._data.nbytes for r in new)
        if cost > fvals[fs]._data.nbytes:
            continue
        recomputed.update(chain)
        roots_needed |= roots
    if not recomputed:
        return None
    return _rewrite(fvals, bwd, bvals, bwd_src, recomputed)


def _rewrite(fvals, bwd, bvals, bwd_src, recomputed):
    where = {}  # forward slot -> backward slot
    remap = {}  # old backward constant slot -> recomputed backward slot
    src = [(bs, fs) for bs, fs in bwd_src if fs not in recomputed]
    for bs, fs in src:
        where.setdefault(fs, bs)

    def new_slot(fs) -> int:
        s = bwd.n_slots
        bwd.n_slots += 1
        bvals[s] = fvals[fs]
        return s

    copies = []
    for n in sorted(recomputed.values(), key=lambda n: n.index):
        direct = []
        for i, s in n.direct:
            if s not in where:  # a root not read by the backward before
                where[s] = new_slot(s)
                src.append((where[s], s))
            direct.append((i, where[s]))
        out = where[n.outs[0]] = new_slot(n.outs[0])
        copies.append(Node(n.op, n.template, direct, [], [out], True, 0))
    for bs, fs in bwd_src:
        if fs in recomputed:
            remap[bs] = where[fs]
    nodes = []
    for n in bwd.nodes:
        direct = [(i, remap.get(s, s)) for i, s in n.direct]
        lists = [(i, [remap.get(x, x) if x.__class__ is int else x for x in items], tp)
                 for i, items, tp in n.lists]  # fmt: skip
        same = direct == n.direct and lists == n.lists
        nodes.append(n if same else Node(n.op, n.template, direct, lists, n.outs, n.single, 0))
    bwd.out_leaves = [remap.get(x, x) if x.__class__ is int else x for x in bwd.out_leaves]
    # each copy runs just before the first backward call that reads it (through later copies)
    first = {}
    for k, n in enumerate(nodes):
        for s in n.inputs():
            first.setdefault(s, k)
    pos = {}
    for c in reversed(copies):
        o = c.outs[0]
        pos[id(c)] = min([first.get(o, len(nodes))] + [pos[id(d)] for d in copies if o in d.inputs()])
    merged, k = [], 0
    order = sorted(copies, key=lambda c: pos[id(c)])  # stable: forward order within a position
    for i, n in enumerate(nodes):
        while k < len(order) and pos[id(order[k])] <= i:
            merged.append(order[k])
            k += 1
        merged.append(n)
    merged += order[k:]
    for i, n in enumerate(merged):
        n.index = i
    bwd.nodes = merged
    live = {s for s in bwd.out_leaves if s.__class__ is int}
    used = set()
    for n in merged:
        used.update(n.inputs())
    src = [(bs, fs) for bs, fs in src if bs in used or bs in live]
    bwd.consts = [(bs, SimpleNamespace(shape=tuple(fvals[fs].shape), dtype=fvals[fs].dtype))
                  for bs, fs in src]  # fmt: skip
    return src
