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
from ..._state import STATE
from ..._tensor import Tensor, _make
from .._formula_np import plain, wrap  # noqa: F401
from . import _reduce as E

_FULL_MAX = 8192


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


def select(grad: Tensor, self: Tensor, dim: int, keepdim: bool, indices: Tensor):
    """core._select_bw in NumPy (zeros, then the values' gradient put at the indices), or None
    where it must run as ops."""
    if indices.__class__ is not Tensor or indices._device is not CPU:
        return None
    a = self._data
    idx, g = kept(indices, a.ndim, dim, keepdim), kept(grad, a.ndim, dim, keepdim)
    if idx.shape != g.shape:
        return None
    out = np.zeros(a.shape, g.dtype)
    np.put_along_axis(out, idx, g, axis=dim)
    return _make(out, grad._dtype)
