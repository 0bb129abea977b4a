"""Kernel routes of sorting.py's selection ops (kthvalue, median/nanmedian along a dim, topk,
sort, mode): each takes the NumPy array and the wrapped dim and returns ``(values, indices)``
arrays in the op's result shape, or None where the op's NumPy route must run (a dtype outside
the kernels' set, a row too long for an O(n k) kernel, a 0-d or empty input).
"""

# Note [Selection by quickselect]
# sorting.py's NumPy routes order like a stable argsort with NaN largest (argsort_np); for a
# 24-element input they spent 20-100 us in a dozen NumPy calls (argpartition, take_along_axis,
# cumsum, broadcast_to ...) where PyTorch's kernels take 3-8 us. The kernels in
# numtorch/kernels/cpu/reduction/selection.py give the same elements (values and indices) in
# one call: kthvalue/median select the value with one quickselect a row and take its stable
# occurrence (the r-th equal element, r = position - #smaller); topk/sort insert each element
# into the kept k, ties after the earlier index; mode sorts a row by insertion. Each route is
# taken only where it returns exactly what the NumPy route would (tests/test_select_fast.py
# compares the two on ties, NaN, -0.0, every dim and keepdim).

from __future__ import annotations

import math

import numpy as np

from ...kernels import lazy
from .._fast_guard import plain
from ._entries import (  # the kernels through their compiled entries (one set of types each)
    call,
    entry,
)

K = lazy("numtorch.kernels.cpu.reduction.selection")
_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))
_SORT_WORK = 1 << 14  # n * k at most per row for the insertion kernels (sort, topk, mode)


_PLANS: dict = {}  # (shape, dim, k or None, keepdim) -> (row view shape, kernel result shape, result shape)


def _plan(sh, d, k, keepdim):
    """The (outer, n, inner) row view's shape, the kernel's result shape ((outer, k, inner) or
    (outer, inner)) and the op's result shape, kept per call geometry (math.prod twice and the
    tuple sums were ~0.4 us of a 4.5 us small topk)."""
    key = (sh, d, k, keepdim)
    p = _PLANS.get(key)
    if p is None:
        outer, inner = math.prod(sh[:d]), math.prod(sh[d + 1 :])
        if k is None:
            p = ((outer, sh[d], inner), (outer, inner), sh[:d] + ((1,) if keepdim else ()) + sh[d + 1 :])
        else:
            p = ((outer, sh[d], inner), (outer, k, inner), sh[:d] + (k,) + sh[d + 1 :])
        if len(_PLANS) >= 512:
            _PLANS.clear()
        _PLANS[key] = p
    return p


def _rows(a: np.ndarray, shape3):
    """``a`` as a C-contiguous (outer, n, inner) array, rows along axis 1."""
    return (a if a.flags.c_contiguous else np.ascontiguousarray(a)).reshape(shape3)


def array(x, flag):
    """x's ndarray where a binding fast call may read it (Note [Argext binding fast calls]): a
    plain call (_fast_guard.plain) of a non-empty C-contiguous aligned ndarray of the kernels'
    dtypes, ``flag`` (keepdim, largest, descending) a bool; else None."""
    if not plain(x) or flag.__class__ is not bool:
        return None
    a = x._data
    if a.__class__ is not np.ndarray or a.dtype not in _DTYPES or not a.size:
        return None
    f = a.flags
    return a if f.c_contiguous and f.aligned else None


def _usable(a: np.ndarray) -> bool:
    return a.dtype in _DTYPES and a.ndim > 0 and a.size > 0


def kth(a: np.ndarray, d: int, how: int, k: int, keepdim: bool):
    """kthvalue (how 0, stable position k), median (1), nanmedian (2) along ``d``."""
    if not _usable(a):
        return None
    p = _plan(a.shape, d, None, keepdim)
    vals = np.empty(p[1], a.dtype)
    idx = np.empty(p[1], np.int64)
    call(K, "kth_rows", (_rows(a, p[0]), how, k, vals, idx))
    return vals.reshape(p[2]), idx.reshape(p[2])


_TOPK: dict = {}  # (shape, d, k, np dtype) -> [row view shape or None, kernel result shape, result shape or None, entry]


def _topk_plan(sh, d, k, dt):
    """topk's _plan with None for a reshape that would not change the shape, and a slot for
    topk_rows' compiled entry; False where the op's NumPy route runs."""
    if not (dt in _DTYPES and sh and math.prod(sh)) or k * sh[d] > _SORT_WORK:
        return False
    p = _plan(sh, d, k, False)
    return [None if p[0] == sh else p[0], p[1], None if p[2] == p[1] else p[2], None]


def topk(a: np.ndarray, d: int, k: int, largest: bool):
    """The first ``k`` along ``d`` in stable sorted order (sort: k = n)."""
    if k.__class__ is not int:  # 2.0 == 2: a plan kept for a float k served later int calls
        return None
    key = (a.shape, d, k, a.dtype)
    p = _TOPK.get(key)
    if p is None:
        p = _TOPK[key] = _topk_plan(*key)
        if len(_TOPK) > 512:
            _TOPK.clear()
    if p is False:
        return None
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    vals = np.empty(p[1], a.dtype)
    idx = np.empty(p[1], np.int64)
    rows = a if p[0] is None else a.reshape(p[0])
    if p[3] is None:
        p[3] = entry(K, "topk_rows", (rows, k, largest, vals, idx))[1]
    else:
        p[3](rows, k, largest, vals, idx)
    return (vals, idx) if p[2] is None else (vals.reshape(p[2]), idx.reshape(p[2]))


def mode(a: np.ndarray, d: int, keepdim: bool):
    if not _usable(a) or a.shape[d] ** 2 > _SORT_WORK:
        return None
    p = _plan(a.shape, d, None, keepdim)
    vals = np.empty(p[1], a.dtype)
    idx = np.empty(p[1], np.int64)
    call(K, "mode_short_rows", (_rows(a, p[0]), vals, idx))
    return vals.reshape(p[2]), idx.reshape(p[2])
