"""The Autograd key of custom ops: a generated ``autograd.Function`` per op, as PyTorch's
``GeneratedBackwardFor_<ns>_<name>_<overload>``.

# Note [Custom-op autograd kernel]
# A custom op's ``op.autograd`` is an ``AutogradKernel`` instead of a derivative table: the
# engine's Autograd key (numtorch.autograd._engine._record) hands the call to it. Its forward
# redispatches below the Autograd key (so dispatch modes and the backend see the op), then the
# user's ``setup_context(ctx, inputs, output)`` runs at forward time and ``backward(ctx, *grads)``
# at backward time, through the same ctx/node machinery as ``autograd.Function``.
#
# Note [Custom-op recording fast path]
# The common call (grad mode on, no forward-AD level or functorch transform, plain Tensor
# arguments, one fresh Tensor output, setup_context neither marking dirty nor
# non-differentiable) skips Function.apply's general bookkeeping: _fast_record builds the same
# node (the generated Function's backward class, with the trailing keyword-only slot) directly.
# Anything else, or an output that is an input/view, goes through _apply / _wrap_outputs.
"""

from __future__ import annotations

import functools

from .._dispatch import below_autograd
from .._functorch._levels import GRAD_DEPTH, VMAP_LEVELS
from .._state import STATE
from .._tensor import Tensor
from ..autograd.function import Function, _apply, _wrap_outputs
from ..autograd.graph import SavedTensor, grad_accumulator

_NO_EDGE = (None, 0)
_new = object.__new__


class AutogradKernel:
    """What ``register_autograd`` stored for one op (``backward`` None: backward raises)."""

    __slots__ = ("op", "backward", "setup_context", "fn_cls", "n_pos", "kw_names", "tslots", "is_tensor")

    def __init__(self, op, backward=None, setup_context=None):
        self.op = op
        self.backward = backward
        self.setup_context = setup_context
        args = op._schema.arguments
        self.n_pos = sum(1 for a in args if not a.kwarg_only)
        self.kw_names = tuple(a.name for a in args if a.kwarg_only)
        s = op._schema
        name = f"GeneratedBackwardFor_{s.namespace}_{s.name}_{op._overloadname}"
        methods = {m: staticmethod(functools.partial(f, self)) for m, f in
                   (("forward", _forward), ("setup_context", _setup), ("backward", _backward))}  # fmt: skip
        self.fn_cls = type(name, (Function,), methods)
        # the fast path's argument shape: only plain "Tensor" and number/str/bool arguments
        simple = not self.kw_names and all(a.type == "Tensor" or not (a.is_tensor or a.is_tensor_list) for a in args)
        self.tslots = tuple(i for i, a in enumerate(args) if a.type == "Tensor") if simple else None
        # what _apply computes per call; static here, as the fast path sees Tensors in tslots only
        self.is_tensor = (*(a.type == "Tensor" for a in args), False)
        # the fields every node of this op starts with, as class defaults of its own node class
        # (Function.apply's ctx still sets them per instance, which shadows these): the fast
        # paths then write only what depends on the call
        bc = self.fn_cls._backward_cls
        bc.materialize_grads = True
        bc._is_tensor_input = self.is_tensor
        # what setup_context may set, None until it does: the generated call reads them as
        # attributes (reading ctx.__dict__ would build the dict); everything else reads __dict__
        bc.to_save = bc.dirty_tensors = bc.non_differentiable = None

    def call(self, op, vals):
        st = STATE
        if self.tslots is not None and st.grad_enabled and st.fw_level < 0 and not VMAP_LEVELS and not GRAD_DEPTH[0]:
            r = _fast_record(self, op, vals, st)
            if r is not None:
                return r
        # the last "input" carries the keyword-only values, as PyTorch's Metadata argument does
        n = self.n_pos
        return _apply(self.fn_cls, (*vals[:n], _KwOnly(vals[n:])), True)


def _fast_record(k, op, vals, st):
    """Note [Custom-op recording fast path]; None: take the general route (nothing has run).
    The node is filled as BackwardCFunction.__init__ + _wrap_outputs would, with the edges
    inlined as the built-ins' generated recorders do (Note [Generated recording])."""
    needs = [False] * (len(vals) + 1)
    any_rg = False
    edges, metas = [], []
    for i in k.tslots:
        t = vals[i]
        if t.__class__ is not Tensor:
            return None
        f = t._grad_fn
        if f is not None:
            edges.append((f, t._out_nr))
            needs[i] = any_rg = True
        elif t._rg:
            edges.append((grad_accumulator(t), 0))
            needs[i] = any_rg = True
        else:
            edges.append(_NO_EDGE)
        metas.append((t._data.shape, t._dtype, t._device))
    if not any_rg:
        return None
    ctx = _new(k.fn_cls._backward_cls)  # materialize_grads, _is_tensor_input: class defaults
    ctx.needs_input_grad = tuple(needs)
    st.grad_enabled = False
    try:
        out = op.fast(*vals)  # grad mode off: the per-op fast path goes below the Autograd key
        if k.setup_context is not None:
            k.setup_context(ctx=ctx, inputs=tuple(vals), output=out)
    finally:
        st.grad_enabled = True
    d = ctx.__dict__
    if (out.__class__ is not Tensor or out._base is not None or "dirty_tensors" in d
            or "non_differentiable" in d or any(out is vals[i] for i in k.tslots)):
        return _wrap_outputs(ctx, (*vals, _KwOnly(())), out)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(metas)
    ctx._out_meta = [(out._data.shape, out._dtype, out._device)]  # _nout: the engine's default 1
    if out._dtype.category >= 2:
        out._grad_fn = ctx
        out._rg = True
    to_save = d.pop("to_save", None)
    if to_save is not None:
        ctx._saved = [None if t is None else SavedTensor(out, ctx, 0) if t is out else SavedTensor(t) for t in to_save]
    return out


class _KwOnly:
    __slots__ = ("vals",)

    def __init__(self, vals):
        self.vals = vals


def _forward(k, *args):
    *pos, kw = args
    return below_autograd(k.op, [*pos, *kw.vals])


def _setup(k, ctx, inputs, output):
    if k.setup_context is None:
        return
    *pos, kw = inputs
    if k.kw_names:
        k.setup_context(ctx=ctx, inputs=tuple(pos), keyword_only_inputs=dict(zip(k.kw_names, kw.vals)), output=output)
    else:
        k.setup_context(ctx=ctx, inputs=tuple(pos), output=output)


def _backward(k, ctx, *grads):
    if k.backward is None:
        raise RuntimeError(
            f"Trying to backward through {k.op} but no autograd formula was registered. "
            "Please use register_autograd to add one."
        )
    prev = ctx.needs_input_grad
    ctx.needs_input_grad = prev[:-1]
    try:
        res = k.backward(ctx, *grads)
    finally:
        ctx.needs_input_grad = prev
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != k.n_pos:
        raise RuntimeError(
            f"Expected the return from backward to be of the same structure as the inputs. "
            f"Got: {len(res)} gradients (return from backward), {k.n_pos} inputs (inputs): "
            f"the backward of {k.op} must return one gradient (or None) per positional input"
        )
    return (*res, None)
