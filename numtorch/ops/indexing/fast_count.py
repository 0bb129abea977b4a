"""Binding fast calls (Note [Binding fast call]) of bincount, histc, unique and count_nonzero."""

# Note [Counting fast calls]
# bincount, histc and unique of a plain CPU tensor (Note [Guarded fast paths]: no mode, level or
# autocast region, nothing to record) ran their public body, dispatch and a NumPy pipeline of
# several passes (bincount: min, max, a cast, count_at; histc: a float64 copy, min, max, two
# comparisons, a mask, the arithmetic, np.bincount; unique: np.unique's argsort, mask, cumsum,
# nonzero, diff). Here:
# - bincount (no weights, int dtype, 1-D, non-empty): one minmax_all pass for the body's
#   range check and length, then the body's count_at;
# - histc (float32/float64): histc_range's checks with minmax_all as its data range (min and
#   max commute with the exact float64 conversion; NaN propagates in both), then
#   kernels.cpu.counting.histc_counts, the body's float64 arithmetic per element;
# - unique with dim=None: the same argsort np.unique runs (quicksort, with return_inverse),
#   then unique_groups' one pass over the sorted values (each NaN its own group, as
#   equal_nan=False), the values and counts copied to their own exact-size arrays;
# - count_nonzero with no dim: the body's np.count_nonzero, without its layers.
# Anything else (weights, out=, dim=, other dtypes, any error) takes the body, so errors are
# the body's. tests/ops/indexing/test_fast_count.py compares both routes bit for bit.

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import lazy
from .._fast_guard import attach
from .._fast_guard import free as _no_mode
from .._fast_guard import recordless as _plain
from ..pointwise.special import histc_range
from ..reduction._entries import call as _call

KR = lazy("numtorch.kernels.cpu.reduction.core")
KI = lazy("numtorch.kernels.cpu.indexing")
KC = lazy("numtorch.kernels.cpu.counting")
_I64 = np.dtype(np.int64)
_BIN_DTYPES = frozenset((D.uint8, D.int8, D.int16, D.int32, D.int64))
_HIST_DTYPES = frozenset((D.float32, D.float64))
_UNIQUE_DTYPES = frozenset((D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64, D.float32, D.float64))


def _minmax(a):
    """(min, max) of the non-empty C-contiguous ``a`` as one minmax_all pass (NaN propagates)."""
    mm = np.empty(2, a.dtype)
    _call(KR, "minmax_all", (a.reshape(-1), mm))
    return mm


def _bincount(input, weights=None, minlength=0):
    a = input._data
    if not (
        weights is None
        and minlength.__class__ is int
        and minlength >= 0
        and input._dtype in _BIN_DTYPES
        and a.ndim == 1
        and a.size
        and a.flags.c_contiguous
        and _no_mode()
        and _plain(input)
    ):
        return None
    mm = _minmax(a)
    if mm[0] < 0:  # the body's error
        return None
    counts = np.zeros(max(int(mm[1]) + 1, minlength), np.int64)
    _call(KI, "count_at", (counts, a if a.dtype is _I64 else a.astype(np.int64)))
    return _make(counts, D.int64)


def _histc(input, bins=100, min=0, max=0, out=None):
    a = input._data
    if not (
        out is None
        and bins.__class__ is int
        and min.__class__ in (int, float)
        and max.__class__ in (int, float)
        and input._dtype in _HIST_DTYPES
        and a.flags.c_contiguous
        and _no_mode()
        and _plain(input)
    ):
        return None
    x = a.reshape(-1)
    try:
        lo, hi = histc_range(bins, min, max, x.size, lambda: tuple(float(v) for v in _minmax(x)))
    except RuntimeError:  # the body's error, raised there
        return None
    counts = np.zeros(bins, np.int64)
    _call(KC, "histc_counts", (x, bins, lo, hi, counts))
    return _make(counts.astype(a.dtype), input._dtype)


def _histc_method(self, bins=100, min=0, max=0):
    return _histc(self, bins, min, max)


def _unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    a = input._data
    if not (
        dim is None
        and sorted.__class__ is bool
        and return_inverse.__class__ is bool
        and return_counts.__class__ is bool
        and input._dtype in _UNIQUE_DTYPES
        and a.size
        and _no_mode()
        and _plain(input)
    ):
        return None
    flat = a.reshape(-1)
    perm = flat.argsort()  # np.unique's: quicksort where the inverse is asked for (the body's)
    aux = flat[perm]
    n = aux.size
    vals, cnt = np.empty(n, aux.dtype), np.empty(n, np.int64)
    inv = np.empty(a.shape, np.int64)
    k = _call(KC, "unique_groups", (aux, perm, vals, inv.reshape(-1), cnt))
    u = _make(vals[:k].copy(), input._dtype)
    if not return_inverse and not return_counts:
        return u
    inv_t = (_make(inv, D.int64),) if return_inverse else ()
    return (u,) + inv_t + ((_make(cnt[:k].copy(), D.int64),) if return_counts else ())


def _count_nonzero(input, dim=None, out=None):
    # the body's count of every element (count_nonzero.dim_IntList with no dims)
    if dim is None and out is None and _no_mode() and _plain(input):
        return _make(np.array(np.count_nonzero(input._data), np.int64), D.int64)
    return None


_CALLS = {
    ("torch", "count_nonzero"): _count_nonzero,
    ("Tensor", "count_nonzero"): _count_nonzero,
    ("torch", "bincount"): _bincount,
    ("Tensor", "bincount"): _bincount,
    ("torch", "histc"): _histc,
    ("Tensor", "histc"): _histc_method,
    ("torch", "unique"): _unique,
    ("Tensor", "unique"): _unique,
}


def install(bindings) -> None:
    """Attach the calls above to their bindings (fast_index.install calls this)."""
    attach(bindings, _CALLS)
