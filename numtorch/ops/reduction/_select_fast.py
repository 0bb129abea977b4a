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
from ._entries import call  # the kernels through their compiled entries (one set of types each)

K = lazy("numtorch.kernels.cpu.reduction.selection")
_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))
_SORT_WORK = 1 << 14  # n * k at most per row for the insertion kernels (sort, topk, mode)


def _rows(a: np.ndarray, d: int):
    """``a`` as a C-contiguous (outer, n, inner) array, rows along axis 1."""
    sh = a.shape
    return np.ascontiguousarray(a).reshape(math.prod(sh[:d]), sh[d], math.prod(sh[d + 1 :]))


def _usable(a: np.ndarray) -> bool:
    return a.dtype in _DTYPES and a.ndim > 0 and a.size > 0


def kth(a: np.ndarray, d: int, how: int, k: int, keepdim: bool):
    """kthvalue (how 0, stable position k), median (1), nanmedian (2) along ``d``."""
    if not _usable(a):
        return None
    a3 = _rows(a, d)
    vals = np.empty((a3.shape[0], a3.shape[2]), a.dtype)
    idx = np.empty(vals.shape, np.int64)
    call(K, "kth_rows", (a3, how, k, vals, idx))
    shape = a.shape[:d] + ((1,) if keepdim else ()) + a.shape[d + 1 :]
    return vals.reshape(shape), idx.reshape(shape)


def topk(a: np.ndarray, d: int, k: int, largest: bool):
    """The first ``k`` along ``d`` in stable sorted order (sort: k = n)."""
    if not _usable(a) or k * a.shape[d] > _SORT_WORK:
        return None
    a3 = _rows(a, d)
    vals = np.empty((a3.shape[0], k, a3.shape[2]), a.dtype)
    idx = np.empty(vals.shape, np.int64)
    call(K, "topk_rows", (a3, k, largest, vals, idx))
    shape = a.shape[:d] + (k,) + a.shape[d + 1 :]
    return vals.reshape(shape), idx.reshape(shape)


def mode(a: np.ndarray, d: int, keepdim: bool):
    if not _usable(a) or a.shape[d] ** 2 > _SORT_WORK:
        return None
    a3 = _rows(a, d)
    vals = np.empty((a3.shape[0], a3.shape[2]), a.dtype)
    idx = np.empty(vals.shape, np.int64)
    call(K, "mode_short_rows", (a3, vals, idx))
    shape = a.shape[:d] + ((1,) if keepdim else ()) + a.shape[d + 1 :]
    return vals.reshape(shape), idx.reshape(shape)

