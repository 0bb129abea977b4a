"""Fast calls (Note [Binding fast call]) of the tensor-list joins: cat/concat/concatenate,
stack, hstack, vstack/row_stack, dstack and column_stack, and of meshgrid."""

# Note [Tensor-list binding fast call]
# A binding with a Tensor[] parameter has no tensor parameter its wrapper could test, so its
# fast call is a function that tests the list itself and returns None to decline; the wrapper
# then takes its __torch_function__ gate and the body as before (_api._FAST_LIST). It runs only
# when no dispatch mode, forward-AD level or autocast region (Note [Autocast key]: it wraps
# op.fast, which this skips) is active and every element is exactly a CPU Tensor with nothing
# to record, all of one dtype: there a join is one np.concatenate of the arrays (NumPy checks
# ranks and sizes as PyTorch does; a legacy empty 1-D input among 1-D ones adds nothing in
# both) and a stack one np.empty and a slice assignment per input (a small cat went wrapper ->
# body -> argument checks -> op.fast -> the list scan -> _cat_cpu: 3.4 us, PyTorch's 1.3 us);
# meshgrid's grids are the views its body's view + expand make, each an ndarray over its
# contiguous input's buffer (as expand's CPU kernel builds them; 13.9 us -> ~4, PyTorch's 4.9).
# Anything else, errors included, takes the body. tests/ops/shape/test_join_fast.py compares
# both routes.

from __future__ import annotations

import numpy as np

from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make, _view
from ...amp._policy import _INSTALLED as _AUTOCAST
from .fast_copies import MANY_ROWS, NARROW, by_columns

_empty = np.empty
_array = np.array
_ndarray = np.ndarray
# NumPy's C function behind its __array_function__ dispatcher: the plain arrays here need no
# dispatch (~0.24 us less a call)
_concatenate = getattr(np.concatenate, "_implementation", np.concatenate)
_ascontiguous = np.ascontiguousarray
_FULL = slice(None)


def _arrays(tensors):
    """The elements' arrays and dtype when the fast call may run them, else None."""
    S = _STATE
    if (
        S.td_modes
        or S.fw_level >= 0
        or _AUTOCAST
        or (tensors.__class__ is not list and tensors.__class__ is not tuple)
    ):
        return None
    if not tensors:
        return None
    g = S.grad_enabled
    dt = tensors[0]._dtype if tensors[0].__class__ is _Tensor else None
    arrays = []
    for x in tensors:
        if (
            x.__class__ is not _Tensor
            or x._dtype is not dt
            or x._device is not _CPU
            or (g and x._rg)
        ):
            return None
        arrays.append(x._data)
    return arrays, dt


def _join(arrays, d, dt):
    """cat of ``arrays`` along ``d`` (0 <= d < the first's rank), or None where NumPy refuses."""
    if d == 1 and arrays[0].shape[0] >= MANY_ROWS:  # Note [Narrow rows by columns]
        out = _by_columns(arrays)
        if out is not None:
            return _make(out, dt)
    try:
        out = _concatenate(arrays, d)
    except ValueError:  # ranks or sizes that differ, 0-d inputs: the body raises PyTorch's error
        return None
    if not out.flags.c_contiguous:  # NumPy follows the inputs' layout; PyTorch's is C order
        out = _ascontiguous(out)
    return _make(out, dt)


def _by_columns(arrays):
    """Matrices of one height joined along their rows of at most 2 * NARROW items in all, one
    column at a time (Note [Narrow rows by columns]), or None."""
    n, w = arrays[0].shape[0], 0
    for a in arrays:
        if a.ndim != 2 or a.shape[0] != n:
            return None
        w += a.shape[1]
    if not 0 < w <= 2 * NARROW:
        return None
    out, at = _empty((n, w), arrays[0].dtype), 0
    for a in arrays:
        by_columns(out[:, at : at + a.shape[1]], a)
        at += a.shape[1]
    return out


def _with_dim(tensors, dim, extra: int):
    """(arrays, dtype, ``dim`` wrapped over the first input's rank + ``extra``), or None
    (0-d inputs of cat and a dim out of range: the body's errors)."""
    r = _arrays(tensors)
    if r is None or dim.__class__ is not int:
        return None
    nd = r[0][0].ndim + extra
    if not -nd <= dim < nd:
        return None
    return r[0], r[1], dim + nd if dim < 0 else dim


def cat(tensors, dim):
    r = _with_dim(tensors, dim, 0)
    if r is None:
        return None
    arrays, dt, d = r
    return _join(arrays, d, dt)


def stack(tensors, dim):
    r = _with_dim(tensors, dim, 1)
    if r is None:
        return None
    arrays, dt, d = r
    sh = arrays[0].shape
    for a in arrays:
        if a.shape != sh:
            return None
    if d == 0:  # NumPy's array of same-shaped arrays of one dtype: the stacked copy in one call
        return _make(_array(arrays), dt)
    out = _empty((*sh[:d], len(arrays), *sh[d:]), dt.np)
    pre = (_FULL,) * d
    for i, a in enumerate(arrays):
        out[(*pre, i)] = a
    return _make(out, dt)


def _family(rank, prep, dim_of):
    def fast(tensors):
        r = _arrays(tensors)
        if r is None:
            return None
        arrays, dt = r
        for a in arrays:  # prep leaves arrays of ``rank`` dims or more as they are
            if a.ndim < rank:
                out = []  # (a loop, not a comprehension's frame: ~0.2 us less a call)
                for a in arrays:
                    out.append(a if a.ndim >= rank else prep(a))
                arrays = out
                break
        return _join(arrays, dim_of(arrays), dt)

    return fast


def _col(a):
    return a.reshape(a.size, 1) if a.ndim <= 1 else a


def _atleast1(a):
    return a.reshape(1)  # (only 0-d arrays reach it)


def _atleast2(a):
    return a.reshape(1, a.size)  # 0-d or 1-d: one row


def _atleast3(a):
    sh = a.shape
    return a.reshape(1, a.size, 1) if len(sh) < 2 else a.reshape(sh[0], sh[1], 1)


hstack = _family(1, _atleast1, lambda p: 0 if p[0].ndim == 1 else 1)
vstack = _family(2, _atleast2, lambda p: 0)
dstack = _family(3, _atleast3, lambda p: 2)
column_stack = _family(2, _col, lambda p: 1)


def meshgrid(tensors, indexing):
    """The body's grids (expanded views of the inputs) for contiguous 0-d/1-D inputs of one
    dtype, none empty, with ``indexing`` given as "ij" or "xy"; else None."""
    if len(tensors) == 1 and tensors[0].__class__ in (list, tuple):
        tensors = tensors[0]
    if indexing != "ij" and indexing != "xy" or indexing.__class__ is not str:
        return None
    r = _arrays(tensors)
    if r is None:
        return None
    arrays = r[0]
    for a in arrays:
        if a.ndim > 1 or not a.size or not a.flags.c_contiguous:
            return None
    n = len(arrays)
    swap = indexing == "xy" and n >= 2  # the body swaps the first two, then their grids
    pos = [1, 0, *range(2, n)] if swap else list(range(n))
    shape = [0] * n
    for i, a in enumerate(arrays):
        shape[pos[i]] = a.size
    grids = []
    for i, (x, a) in enumerate(zip(tensors, arrays, strict=True)):
        # expand of the view [1, .., numel, .., 1]: a size-1 dim keeps the view's stride
        p, isz = pos[i], a.itemsize
        st = [0 if shape[k] != 1 else (shape[p] if k < p else 1) * isz for k in range(n)]
        st[p] = isz
        grids.append(_view(x, _ndarray(tuple(shape), a.dtype, a, 0, tuple(st))))
    return tuple(grids)


def broadcast_tensors(tensors):
    """The inputs themselves when all are plain CPU tensors of one shape with nothing to record
    (the body's expand_outplace returns a tensor of the broadcast shape as it is; 3.0 -> ~0.6 us
    for two); else None (the body expands)."""
    if len(tensors) == 1 and (tensors[0].__class__ is list or tensors[0].__class__ is tuple):
        tensors = tensors[0]
    S = _STATE
    if not tensors or S.td_modes or S.fw_level >= 0 or _AUTOCAST:
        return None
    g, shape = S.grad_enabled, tensors[0]._data.shape if tensors[0].__class__ is _Tensor else None
    for x in tensors:
        if x.__class__ is not _Tensor or x._device is not _CPU or (g and x._rg) or x._data.shape != shape:
            return None
    return tuple(tensors)
