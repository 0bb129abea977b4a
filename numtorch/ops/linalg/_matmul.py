"""matmul as PyTorch's at::matmul: a composite of dot / mv / mm / bmm and views, with a direct
kernel for the plain-tensor case (Note [matmul fast path]). The op is declared in core.py."""

from __future__ import annotations

import math

from ..._device import CPU
from ... import _dispatch as _D
from ..._dispatch import dispatch
from ..._functorch._levels import VMAP_LEVELS
from ..._schema import bind
from ..._state import STATE
from ..._tensor import PLAIN_SUBCLASSES, Tensor, _make
from .._registry import OPS
from ._contract import _matmul_checks, broadcast_error, product


# Note [matmul is CompositeImplicit]
# As PyTorch's at::matmul (_matmul_impl), matmul runs above autograd as dot / mv / mm / bmm plus
# views, so a mode or subclass sees those pieces and the backward is theirs. The branch taken,
# folding included, follows PyTorch's should_fold (which reads requires_grad) step for step.
def _call(name, *args):
    op = _PIECES.get(name)
    if op is None:
        op = _PIECES[name] = OPS[f"aten::{name}"]
    n = len(args)
    if op._bind_lo <= n <= op._bind_hi:  # Note [Positional calls skip bind]
        return op.fast(*args, *op._fill[n:])
    return dispatch(op, bind(op._schema, args, {}))


_PIECES: dict = {}  # the pieces' overloads by name, looked up once


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    first_larger = t1.dim() >= t2.dim()
    big = t1 if first_larger else _call("transpose.int", t2, -2, -1)
    d_small = t2.dim() if first_larger else t1.dim()
    if not (big.dim() >= 3 and d_small <= 2):
        return False
    if (t2 if first_larger else t1).requires_grad:
        return True
    if t1.dim() == 2:
        return False
    if big.numel() == 0:
        return True
    sh, st = big.shape, big.stride()
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.dim() - 2))


# Note [matmul fast path]
# The decomposition costs a dozen dispatches (3-D @ 2-D: reshape, mm, _unsafe_view, ...) where
# one np.matmul does the work, and with gradients as many recorded nodes. Only a dispatch mode, a
# subclass or a transform sees the pieces; so when no dispatch mode or forward-AD level is
# active and both operands are plain CPU tensors (the generated fast path's test, Note [Per-op
# fast path]), matmul calls its kernel directly, and when a gradient is needed records one node
# for it (matmul's own formula, _matmul_backward). Its grad_fn is then MatmulBackward0 where
# PyTorch shows the last piece's (UnsafeViewBackward0, MmBackward0, ...): under a mode, where
# the pieces run, grad_fn is PyTorch's. outer's composite uses the gate without the grad case.
def _plain(a, b, cuda: bool = False) -> bool:
    # ``cuda``: the same test for two tensors on one CUDA device, whose matmul kernel takes every
    # shape and broadcast itself, where the decomposition costs a dozen dispatches per product
    st = STATE
    if st.td_modes or st.fw_level >= 0:
        return False
    for t in (a, b):
        c = t.__class__
        if not (c is Tensor or c in PLAIN_SUBCLASSES) or (t._device.type != "cuda" if cuda else t._device is not CPU):
            return False
    return not cuda or a._device == b._device


def _cuda_plan(a, b):
    from ...cuda._matmul import matmul_plan

    return matmul_plan(a, b)


def unobserved(a, b) -> bool:
    return _plain(a, b) and not ((a._rg or b._rg) and STATE.grad_enabled)


def _real_plain(*ts) -> bool:
    if STATE.td_modes or STATE.fw_level >= 0:
        return False
    dt = ts[0]._dtype
    for t in ts:
        c = t.__class__
        if not (c is Tensor or c in PLAIN_SUBCLASSES) or t._device is not CPU or t._dtype is not dt:
            return False
    return not dt.is_complex


def matmul_cpu(self, other):
    _matmul_checks(self, other)
    if self._dtype is not other._dtype:  # Note [Empty bmm]: only an empty bmm gets here, in batch2's dtype
        return _make(product(self._data.astype(other._data.dtype), other._data), other._dtype)
    return _make(product(self._data, other._data), self._dtype)


def _mH(x: Tensor) -> Tensor:
    return x.mH if x._dtype.is_complex else x.mT


def matmul_backward(grad, self, other):
    a1, b1 = self._data.ndim == 1, other._data.ndim == 1
    if not (a1 or b1 or STATE.grad_enabled) and _real_plain(grad, self, other):
        # Note [Direct product gradients] (core.py): the formula's two products on the arrays
        # (attention's (2, 2, 32, 32): 28 us -> 18 us; PyTorch's BmmBackward0 + view 9 us)
        g, a, b = grad._data, self._data, other._data
        ga = product(g, b.swapaxes(-1, -2))
        if b.ndim == 2 and a.ndim > 2:  # the stack's rows against one matrix, as below
            rows = math.prod(a.shape[:-1])  # not -1: ambiguous when the last dim is 0
            gb = product(a.reshape(rows, a.shape[-1]).T, g.reshape(rows, g.shape[-1]))
        else:
            gb = product(a.swapaxes(-1, -2), g)
        return _make(ga, grad._dtype), _make(gb, grad._dtype)
    a2 = self.unsqueeze(0) if a1 else self
    b2 = other.unsqueeze(-1) if b1 else other
    g = grad.unsqueeze(-1) if b1 else grad
    g = g.unsqueeze(-2) if a1 else g
    ga = g.matmul(_mH(b2))
    if b2.dim() == 2 and a2.dim() > 2:
        # the stack's rows against one matrix: one product over all rows, no (batch, k, n)
        # intermediate for the engine to sum away (PyTorch folds the batch the same way)
        rows = math.prod(a2.shape[:-1])
        gb = _mH(a2.reshape(rows, a2.shape[-1])).matmul(g.reshape(rows, g.shape[-1]))
    else:
        gb = _mH(a2).matmul(g)
    return (ga.squeeze(-2) if a1 else ga), (gb.squeeze(-1) if b1 else gb)


def _matmul(self, other):
    if _plain(self, other):
        if (self._rg or other._rg) and STATE.grad_enabled:
            op = _PIECES.get("matmul")
            if op is None:
                op = _PIECES["matmul"] = OPS["aten::matmul"]
            return _D._engine.autograd_call(op, [self, other])
        return matmul_cpu(self, other)
    if _plain(self, other, cuda=True) and _cuda_plan(self, other) is not None:
        op = _PIECES.get("matmul")
        if op is None:
            op = _PIECES["matmul"] = OPS["aten::matmul"]
        if (self._rg or other._rg) and STATE.grad_enabled:
            return _D._engine.autograd_call(op, [self, other])
        return op.impls["cuda"](self, other)
    d1, d2 = self.dim(), other.dim()
    if d1 == 0 or d2 == 0:  # every other error is the piece's, as in PyTorch
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _call("dot", self, other)
    if d1 == 2 and d2 == 1:
        return _call("mv", self, other)
    if d1 == 1 and d2 == 2:
        # PyTorch squeezes in place; under vmap (no in-place batching rule for squeeze_ here,
        # and its fallback keeps the logical shape) the out-of-place squeeze does the same
        squeeze = "squeeze.dim" if VMAP_LEVELS else "squeeze_.dim"
        return _call(squeeze, _call("mm", _call("unsqueeze", self, 0), other), 0)
    if d1 == 2 and d2 == 2:
        return _call("mm", self, other)
    if d1 == 3 and d2 == 3 and self.shape[0] != other.shape[0] and 1 in (self.shape[0], other.shape[0]):
        # a batch of one against a batch: PyTorch squeezes it and takes the folding path
        if self.shape[0] == 1:
            return _matmul(_call("squeeze.dim", self, 0), other)
        return _matmul(self, _call("squeeze.dim", other, 0))
    if _should_fold(self, other):
        transpose = d2 > d1
        t1 = _call("transpose.int", other, -2, -1) if transpose else self
        t2 = (_call("t", self) if d1 == 2 else self) if transpose else other
        out_shape = list(t1.shape[:-1])
        folded = _call("reshape", t1, [math.prod(out_shape), t1.shape[-1]])
        if t2.dim() == 2:
            out = _call("_unsafe_view", _call("mm", folded, t2), out_shape + [t2.shape[1]])
            return _call("contiguous", _call("transpose.int", out, -2, -1)) if transpose else out
        return _call("_unsafe_view", _call("mv", folded, t2), out_shape)
    s1, s2 = tuple(self.shape), tuple(other.shape)
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    m2 = s2[-2] if d2 > 1 else s2[0]
    p = s2[-1] if d2 > 1 else 1
    batch = list(broadcast_error(s1[:-2], s2[:-2]))
    nb = math.prod(batch)
    e1 = _call("reshape", _call("expand", self, batch + [n, m1]), [nb, n, m1])
    if d2 == 1:
        e2 = _call("unsqueeze", _call("reshape", _call("expand", other, batch + [m2]), [nb, m2]), 2)
    else:
        e2 = _call("reshape", _call("expand", other, batch + [m2, p]), [nb, m2, p])
    out_shape = batch + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    r = _call("bmm", e1, e2)
    return _call("_unsafe_view", _call("squeeze.dim", r, -1) if d2 == 1 else r, out_shape)


