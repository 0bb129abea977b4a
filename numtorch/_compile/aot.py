"""Fused forward and backward for calls that need gradients (Note [Captured backward]).

# Note [Captured backward]
# As AOTAutograd does, the backward is captured at the aten level too, once per guard set: the
# forward graph is replayed with autograd on fresh leaves standing for the inputs that require
# grad, and ``autograd.grad`` of its outputs runs under a second Tracer, whose inputs are the
# output gradients. Every other tensor the backward reads must be a value of the forward replay
# (a saved input or intermediate, found by identity) or the plan is refused and the call
# replays eagerly: a tensor made outside the dispatcher would be a stale constant. At run time
# a custom autograd.Function runs the forward plan (fused), keeps exactly the forward values the
# backward graph reads, and its backward runs the backward plan (fused too). A double backward
# (``create_graph=True``) instead recomputes the forward eagerly from the saved inputs and
# differentiates it, so higher-order gradients stay eager's. The capture's extra replay runs
# with the RNG state saved and restored, so the user's random stream is unchanged.
# Accepted graphs: functional and view calls only (no in-place or out= calls), every output a
# distinct node result that requires grad.
"""

from __future__ import annotations

from types import SimpleNamespace

from .. import _random
from .._state import STATE
from .._tensor import Tensor
from ..autograd import grad as _autograd_grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..utils._pytree import tree_unflatten
from . import fusion, recompute
from .capture import Tracer, capturing


class AOTPlan:
    """A forward plan, the backward graph and plan, and how their values connect."""

    def __init__(self, graph, fwd, fwd_steps, bwd, bwd_steps, bwd_src, saved, leaf_slots, outs):
        self.graph = graph  # the captured graph: output structure and constants
        self.fwd = fwd  # the joint capture's forward: inputs are graph's inputs, then its constants
        self.fwd_steps = fwd_steps
        self.bwd = bwd
        self.bwd_steps = bwd_steps
        self.bwd_src = bwd_src  # [(backward slot, forward slot)]
        self.saved = saved  # forward slots the backward reads
        self.leaf_slots = leaf_slots  # forward input slots whose gradients the backward returns
        self.outs = outs  # the captured graph's output slots
        self.fwd_outs = [x for x in fwd.out_leaves]  # their forward slots, same order

    def run(self, tensors: list):
        """The call's output, recorded by autograd as one node."""
        g = self.graph
        outs = _Compiled.apply(self, *tensors, *[t for _, t in g.consts])
        outs = outs if isinstance(outs, tuple) else (outs,)
        by_slot = dict(zip(self.outs, outs, strict=True))
        leaves = [by_slot[x] if x.__class__ is int else x[0] for x in g.out_leaves]
        return tree_unflatten(leaves, g.out_spec)


class _Compiled(Function):
    @staticmethod
    def forward(ctx, plan, *srcs):
        f = plan.fwd
        env = [None] * f.n_slots
        env[: f.n_inputs] = srcs
        for st in plan.fwd_steps:
            st.run(env)
        ctx.plan = plan
        ctx.saved_env = {s: env[s] for s in plan.saved}
        ctx.srcs = srcs
        return tuple(env[s] for s in plan.fwd_outs)

    @staticmethod
    def backward(ctx, *gouts):
        plan = ctx.plan
        if STATE.grad_enabled:  # create_graph=True: differentiate an eager recomputation
            return (None, *_eager_grads(plan, ctx.srcs, gouts))
        b = plan.bwd
        env = [None] * b.n_slots
        env[: b.n_inputs] = gouts
        for bs, fs in plan.bwd_src:
            env[bs] = ctx.saved_env[fs]
        for st in plan.bwd_steps:
            st.run(env)
        grads = [env[x] if x.__class__ is int else x[0] for x in b.out_leaves]
        res = [None] * plan.fwd.n_inputs
        for s, gr in zip(plan.leaf_slots, grads, strict=True):
            res[s] = gr
        return (None, *res)


def _eager_grads(plan, srcs, gouts):
    f = plan.fwd
    env = f.new_env(list(srcs))
    with enable_grad():
        for n in f.nodes:
            n.run(env)
    want = [srcs[s] for s in plan.leaf_slots]
    outs = [env[s] for s in plan.fwd_outs]
    grads = _autograd_grad(outs, want, gouts, create_graph=True, allow_unused=True)
    res = [None] * f.n_inputs
    for s, gr in zip(plan.leaf_slots, grads, strict=True):
        res[s] = gr
    return res


def build(graph, values: dict):
    """An AOTPlan for ``graph`` (``values``: the capture's tensors by slot), or None."""
    if any(n.op.kind not in ("functional", "view") for n in graph.nodes):
        return None
    srcs = list(range(graph.n_inputs)) + [s for s, _ in graph.consts]
    if any(s not in values for s in srcs):
        return None  # one tensor passed twice: replay it eagerly
    made = {s for n in graph.nodes if n.op.kind == "functional" for s in n.outs}
    outs = [x for x in graph.out_leaves if x.__class__ is int]
    if not outs or len(set(outs)) != len(outs) or any(s not in made for s in outs):
        return None
    if any(not values[s]._rg for s in outs):
        return None
    state = _random.get_rng_state()
    try:
        joint = _capture_joint(graph, [values[s] for s in srcs], outs)
    finally:
        _random.set_rng_state(state)
    if joint is None:
        return None
    fwd, fvals, bwd, bvals, leaf_slots = joint
    where, by_data = {}, {}
    for s, t in fvals.items():
        where.setdefault(id(t), s)
        by_data.setdefault(id(t._data), s)
    bwd_src = []
    for bs, t in bwd.consts:
        # a saved tensor comes back from the engine as a new wrapper of the same array
        fs = where.get(id(t))
        if fs is None:
            fs = by_data.get(id(t._data))
            if fs is not None and fvals[fs]._dtype is not t._dtype:
                fs = None
        if fs is None:
            return None  # a tensor the forward did not make (Note [Captured backward])
        bwd_src.append((bs, fs))
    # Note [Recompute in backward]
    fwd_outs = [x for x in fwd.out_leaves if x.__class__ is int]
    fvals = recompute.prepare(fwd, fvals, set(fwd_outs), {fs for _, fs in bwd_src})
    bwd_src = recompute.plan(fwd, fvals, bwd, bvals, bwd_src, fwd_outs) or bwd_src
    saved = sorted({fs for _, fs in bwd_src})
    recompute.drop_dead(fwd, fvals, set(fwd_outs) | set(saved))
    # the capture's tensors are not kept: at run time these slots read the forward's values
    bwd.consts = [(bs, SimpleNamespace(shape=tuple(t.shape), dtype=t.dtype)) for bs, t in bwd.consts]
    consts = range(graph.n_inputs, len(srcs))  # the forward's inputs that are the graph's constants
    fwd_steps = fusion.plan(fwd, [fvals.get(i) for i in range(fwd.n_slots)], extra_reads=set(saved), consts=consts)
    # no folded sums in the backward: gradients stay bitwise eager's (Note [Fused trailing reduction])
    bwd_steps = fusion.plan(bwd, [bvals.get(i) for i in range(bwd.n_slots)], fold=False)
    return AOTPlan(graph, fwd, fwd_steps, bwd, bwd_steps, bwd_src, saved, leaf_slots, outs)


def _capture_joint(graph, src_values, outs):
    # the forward again, recorded with autograd on: the engine's own calls (detach of saved
    # results) are in it, so every tensor the backward reads is one of its values
    ins = [t.detach().requires_grad_(True) if t._rg else t for t in src_values]
    leaf_slots = [i for i, t in enumerate(src_values) if t._rg]
    ftr = Tracer(fullgraph=False)
    ftr.add_inputs(ins)
    env = [None] * graph.n_slots
    for i, s in enumerate(list(range(graph.n_inputs)) + [s for s, _ in graph.consts]):
        env[s] = ins[i]
    with capturing(ftr), enable_grad():
        for n in graph.nodes:
            n.run(env)
    results = [env[s] for s in outs]
    if ftr.broken is not None or ftr.consts:
        return None
    fwd = ftr.graph(len(ins), results)
    with no_grad():
        gouts = [_ones_like(t) for t in results]
    btr = Tracer(fullgraph=False)
    btr.add_inputs(gouts)
    with capturing(btr):
        grads = _autograd_grad(results, [ins[i] for i in leaf_slots], gouts, allow_unused=True)
    if btr.broken is not None or any(g is not None and not isinstance(g, Tensor) for g in grads):
        return None
    bwd = btr.graph(len(gouts), list(grads))
    return fwd, ftr.values, bwd, btr.values, leaf_slots


def _ones_like(t):
    import numtorch

    return numtorch.ones_like(t)
