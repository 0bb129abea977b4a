"""Binding fast calls (Note [Binding fast call]) of cumsum, cumprod and logcumsumexp."""

# Note [Scan binding fast calls]
# cumsum/cumprod of a C-contiguous float32/float64 tensor along an int dim with no dtype= and
# no out= already ran one kernel call (Note [Scan layouts]), but under the public body, _call,
# dispatch and the op's generated fast path (~0.8 us of a 2.4 us small cumsum). On a plain call
# (Note [Guarded fast paths]) the binding now runs that kernel call itself: the same
# `cumulative` compiled entry on the same flat data, the (outer, R, inner) layout kept per
# (shape, dim) as the body keeps it. logcumsumexp of a float32/float64 tensor is the body's
# np.logaddexp.accumulate along the wrapped dim. A bad dim, an empty or 0-d input, other dtypes,
# dtype=, out=, a gradient to record or a mode take the body (tests/ops/reduction/
# test_scan_fast.py).

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from .._fast_guard import attach
from .._fast_guard import free as _no_mode
from .._fast_guard import recordless as _plain
from . import _reduce as E
from ._entries import entry

_FLOATS = (D.float32, D.float64)
_LAYOUTS: dict = {}  # (shape, dim) -> (outer, R, inner), or None for a dim out of range
_ENTRY: dict = {}  # (shape, dim) -> (outer, R, inner, cumulative's compiled entry, its np dtype)


def _layout(shape, dim):
    key = (shape, dim)
    lay = _LAYOUTS.get(key)
    if lay is None and key not in _LAYOUTS:
        nd = len(shape)
        if -nd <= dim < nd:
            d = dim % nd
            lay = (math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :]))
        if len(_LAYOUTS) >= 512:
            _LAYOUTS.clear()
        _LAYOUTS[key] = lay
    return lay


def _scan(prod):
    def fast(input, dim, dtype=None, out=None):
        a = input._data
        if not (
            dtype is None
            and out is None
            and dim.__class__ is int
            and (input._dtype is _FLOATS[0] or input._dtype is _FLOATS[1])
            and a.ndim
            and a.size
            and a.flags.c_contiguous
            and _no_mode()
            and _plain(input)
        ):
            return None
        sh = a.shape
        res = np.empty(sh, a.dtype)  # (np.empty of the shape and ravel views: two reshapes fewer)
        k = _ENTRY.get((sh, dim))  # the layout with the kernel's entry for the dtype last seen
        if k is not None and k[4] is a.dtype:
            k[3](a.ravel(), res.ravel(), k[0], k[1], k[2], np.empty(k[2], np.float64), prod)
            return _make(res, input._dtype)
        lay = _layout(sh, dim)
        if lay is None:
            return None
        e = entry(E.K, "cumulative", (a.ravel(), res.ravel(), *lay, np.empty(lay[2], np.float64), prod))[1]
        if len(_ENTRY) >= 512:
            _ENTRY.clear()
        _ENTRY[sh, dim] = (*lay, e, a.dtype)
        return _make(res, input._dtype)

    return fast


def _logcumsumexp(input, dim, out=None):
    a = input._data
    if not (
        out is None
        and dim.__class__ is int
        and (input._dtype is _FLOATS[0] or input._dtype is _FLOATS[1])
        and a.ndim
        and a.size
        and -a.ndim <= dim < a.ndim
        and _no_mode()
        and _plain(input)
    ):
        return None
    return _make(np.logaddexp.accumulate(a, axis=dim % a.ndim), input._dtype)


_CUMSUM, _CUMPROD = _scan(False), _scan(True)
_CALLS = {
    ("torch", "cumsum"): _CUMSUM,
    ("Tensor", "cumsum"): _CUMSUM,
    ("torch", "cumprod"): _CUMPROD,
    ("Tensor", "cumprod"): _CUMPROD,
    ("torch", "logcumsumexp"): _logcumsumexp,
    ("Tensor", "logcumsumexp"): _logcumsumexp,
}


def install(bindings) -> None:
    """Attach the calls above to their bindings (arg_fast.install calls this)."""
    attach(bindings, _CALLS)
