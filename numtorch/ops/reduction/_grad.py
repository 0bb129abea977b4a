"""Helpers of the reductions' backward formulas: putting reduced dims back, and the gradient of a
full reduction (``sum()``, ``mean()``) written out once when it is small.

# Note [Materialised reduction gradients]
# The gradient of sum() or mean() is one value over the input's shape. PyTorch's formula makes it
# an expand (stride-0) view, and so does ours when anything could tell the difference: a graph
# being built (create_graph), a dispatch mode, forward AD, a tensor subclass or another device.
# Otherwise, up to _FULL_MAX elements, it is a fresh contiguous array (np.full, under 1 us; a
# broadcast copy where the gradient of sum(dim) has more than one value):
# every pointwise op of the formulas it then flows into takes the contiguous fast path instead of
# the strided one (4-8 us more per op at tens of elements), and AccumulateGrad can take it as the
# leaf's .grad without the copy an expanded gradient needs. Above that size a stride-0 operand
# is as fast as a contiguous one and writing it out costs a pass over memory.
"""

from __future__ import annotations

import math

import numpy as np

from ..._device import CPU
from ..._ops import ops as _ops
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...kernels import lazy
from .._formula_np import plain, wrap  # noqa: F401
from . import _reduce as E
from ._entries import call

_FULL_MAX = 8192
KSEL = lazy("numtorch.kernels.cpu.reduction.selection")


def restore_dims(g: Tensor, ndim: int, dim, keepdim: bool) -> Tensor:
    """A reduced tensor with the reduced dims put back as size 1 (for backward formulas)."""
    if keepdim or ndim == 0:
        return g
    # PyTorch's unsqueezes where a graph or a mode can see them (or a subclass / sparse grad)
    if STATE.grad_enabled or STATE.td_modes or g.__class__ is not Tensor:
        for d in E.dims_arg(dim, ndim):  # sorted: each lands at its final index
            g = g.unsqueeze(d)
        return g
    return g.reshape(_kept_shape(g.shape, ndim, dim))  # one view, not one unsqueeze per dim


def _kept_shape(shape, ndim: int, dim) -> list:
    out = list(shape)
    for d in E.dims_arg(dim, ndim):  # sorted: each lands at its final index
        out.insert(d, 1)
    return out


def _expand_back(grad, self, dim, keepdim):
    return _expand_to(grad, self.shape, dim, keepdim)


def nansum_grad(grad, self, dim, keepdim):
    """nansum's backward: ``grad`` where ``self`` is not NaN, 0 where it is."""
    if plain(grad, self):  # Note [Backward formulas in NumPy]: the expand and the mul by a mask
        a = self._data
        out = np.empty(a.shape, grad._data.dtype)
        np.multiply(kept(grad, a.ndim, dim, keepdim), a == a, out=out)  # g * 1.0 or g * 0.0, as mul
        return _make(out, grad._dtype)
    return _expand_back(grad, self, dim, keepdim) * (self == self)


def _expand_to(grad, sizes, dim, keepdim):
    if _plain_small(grad, sizes):
        a = grad._data
        if a.size == 1:  # wherever the reduced dims were, the one value is everywhere
            return _make(np.full(tuple(sizes), a.reshape(()), a.dtype), grad._dtype)
        if not keepdim:
            a = a.reshape(_kept_shape(a.shape, len(sizes), dim))
        return _make(np.ascontiguousarray(np.broadcast_to(a, tuple(sizes))), grad._dtype)
    return restore_dims(grad, len(sizes), dim, keepdim).expand(sizes)


def _plain_small(grad: Tensor, sizes) -> bool:
    st = STATE
    return (grad.__class__ is Tensor and not st.grad_enabled and not st.td_modes and st.fw_level < 0
            and grad._device is CPU and 0 < math.prod(sizes) <= _FULL_MAX)  # fmt: skip


def full_grad(grad: Tensor, sizes) -> Tensor:
    """sum()'s backward: ``grad`` (0-d) over ``sizes`` (Note [Materialised reduction gradients])."""
    return _expand_to(grad, sizes, None, True)


def full_mean_grad(grad: Tensor, sizes, count: int):
    """mean()'s backward, ``grad / count`` over ``sizes``, or None where it must be the expand
    and div.Scalar PyTorch's formula runs (Note [Materialised reduction gradients])."""
    if _plain_small(grad, sizes) and grad._data.size == 1 and grad._data.dtype in (np.float32, np.float64):
        a = grad._data
        # a 0-d array over a Python int: NumPy divides in the array's dtype, as div.Scalar does
        return _make(np.full(tuple(sizes), a.reshape(()) / count, a.dtype), grad._dtype)
    return None


def prod_bw(grad, self, result, dim=None, keepdim=False):
    """prod's backward: ``grad * result / self`` without zeros in ``self``, else the product of
    the others as exclusive cumprods from both ends."""
    if self.dim() == 0:
        return grad
    if plain(grad, self, result):  # Note [Backward formulas in NumPy]: the restores, mul and div
        a, g = self._data, grad._data
        if np.count_nonzero(a) == a.size and g.dtype == a.dtype == result._data.dtype:
            if dim is not None:  # all of prod(): 0-d operands broadcast as the reshape(1)s do
                g = kept(grad, a.ndim, dim, keepdim)
            r = result._data if dim is None else kept(result, a.ndim, dim, keepdim)
            with np.errstate(all="ignore"):
                return wrap(np.divide(np.multiply(g, r), a), grad)
    if dim is None:
        flat = self.reshape(-1)
        return prod_bw(grad.reshape(1), flat, result.reshape(1), 0, True).reshape(self.shape)
    grad = restore_dims(grad, self.dim(), dim, keepdim)
    result = restore_dims(result, self.dim(), dim, keepdim)
    if self.count_nonzero() == self.numel():
        return grad * result / self
    # zeros: the product of the others is exclusive cumprods from the left times from the right
    return grad * _exclusive_cumprod(self, dim) * _exclusive_cumprod(self.flip(dim), dim).flip(dim)


def _exclusive_cumprod(x, dim):
    n = x.shape[dim]
    ones = x.narrow(dim, 0, 1) * 0 + 1
    return _ops.aten.cat.default([ones, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)


def kept(t: Tensor, ndim: int, dim, keepdim: bool) -> np.ndarray:
    """``restore_dims`` on the array of ``t``."""
    a = t._data
    return a if keepdim or ndim == 0 else a.reshape(_kept_shape(a.shape, ndim, dim))


def evenly(grad: Tensor, self: Tensor, result: Tensor, dim, keepdim: bool) -> Tensor:
    """core._evenly in NumPy: the gradient shared by the tied extreme elements."""
    a = self._data
    n = a.ndim
    r, g = kept(result, n, dim, keepdim), kept(grad, n, dim, keepdim)
    mask = (a == r) | ((a != a) & (r != r))
    count = mask.sum(axis=E.dims_arg(dim, n), keepdims=True) if dim is not None else mask.sum()
    with np.errstate(all="ignore"):
        return wrap(mask * (g / count.astype(g.dtype)), grad)


def select(
    grad: Tensor, self: Tensor, dim: int, keepdim: bool, indices: Tensor, accumulate: bool = False
):
    """core._select_bw in NumPy (zeros, then the values' gradient put at the indices; with
    ``accumulate``, cummax's zeros + scatter_add), or None where it must run as ops
    (Note [Selection gradients put in one kernel])."""
    if indices.__class__ is not Tensor or indices._device is not CPU or dim.__class__ is not int:
        return None
    a, idx, g = self._data, indices._data, grad._data
    n, s = a.ndim, a.shape
    d = dim + n if dim < 0 else dim
    if not (0 <= d < n and idx.shape == g.shape):
        return None
    if not keepdim:  # the reduced dim back as 1 (restore_dims' view; kept()'s, dim being an int)
        ks = idx.shape[:d] + (1,) + idx.shape[d:]
        idx, g = idx.reshape(ks), g.reshape(ks)
    if not (idx.dtype == np.int64 and g.dtype == a.dtype and g.ndim == n
            and g.shape[:d] == s[:d] and g.shape[d + 1 :] == s[d + 1 :]):  # fmt: skip
        return None
    out = np.zeros(s, g.dtype)
    if out.size:
        g = g if g.flags.c_contiguous else np.ascontiguousarray(g)
        idx = idx if idx.flags.c_contiguous else np.ascontiguousarray(idx)
        args = (g.ravel(), idx.ravel(), out.ravel(), math.prod(s[:d]), g.shape[d], s[d],
                math.prod(s[d + 1 :]), accumulate)  # fmt: skip
        if call(KSEL, "put_along_dim", args) >= 0:  # an index out of range: the ops raise
            return None
    return _make(out, grad._dtype)


# Note [Selection gradients put in one kernel]
# The backward of max/min.dim, kthvalue, median/nanmedian.dim, mode, sort, msort, topk (zeros,
# then scatter of the gradient at the saved indices) and of cummax/cummin (zeros, then
# scatter_add) ran np.put_along_axis (~5 us of index-array building at tens of elements) or the
# zeros_like and scatter_add ops. Under Note [Backward formulas in NumPy]'s gate they are one
# pass of put_along_dim over the (outer, k, inner) gradient in index order, into zeros of the
# input's shape: assignment where the ops assign, ``+=`` where scatter_add adds (0 + -0.0 is
# +0.0 there too), so the bits are the ops'. An index out of range (only a saved index tensor
# changed behind the engine's back could hold one) declines to the ops and their error.
# The gate asks for any size: one pass beats zeros_like + scatter at 131k elements too (max.dim
# fwd+bwd 340 -> 260 us, sort 760 -> 550, cummax 580 -> 416: docs/PERFORMANCE.md, perf20g).
