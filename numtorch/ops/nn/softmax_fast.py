"""Cached plans of the softmax bindings' tiny route (Note [Softmax plans])."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._state import STATE
from ..._tensor import PLAIN_SUBCLASSES, Tensor, _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ..reduction import _entries as EN
from ..reduction import _reduce as E
from ..reduction.scan import _TINY

# Note [Softmax plans]
# A sweep-sized softmax (tens of elements) took 2.5 us where PyTorch takes 1.1: the binding's
# fast call, _softmax's generated op.fast, the impl's lambda, _softmax_impl's gate and dim
# wrap, _softmax_tiny's layout arithmetic and its entry lookup by (name, dtype) all ran
# before a 0.4 us kernel call. The bindings' call (reduction/fast_bindings._softmax_call)
# now tries one cached plan per (shape, dim, dtype, log) first: the kernel's compiled entry
# and its layout arguments, exactly what _softmax_tiny would call for that input (Note
# [Softmax of a few elements]), so the result is its bits. It runs where _softmax's op.fast
# would run the CPU impl with nothing around it (Note [Guarded fast paths]: no mode,
# forward-AD level or autocast region, nothing to record, a plain class) on a C-contiguous
# float32/float64 input of 1.._TINY elements and an int dim in range; anything else (and the
# first call of a plan, which compiles or looks up the entry) goes the way it went.
_PLANS: dict = {}  # (shape, strides, dim, dtype, log) -> (entry, layout args, last-dim softmax)
_FLOATS = (D.float32, D.float64)
_empty = np.empty


def softmax_plain(x, dim, log):
    """softmax (log: log_softmax) of x along dim through its cached plan, or None to decline."""
    S = STATE
    c = x.__class__
    if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or x._device is not CPU or x._rg and S.grad_enabled
            or dim.__class__ is not int or c is not Tensor and c not in PLAIN_SUBCLASSES):  # fmt: skip
        return None
    a = x._data
    # the strides in the key stand for a.flags.c_contiguous (a flags object per call): only a
    # C-contiguous input's plan is ever stored
    p = _PLANS.get((a.shape, a.strides, dim, x._dtype, log))
    if p is None:
        _plan(x, a, dim, log)
        return None
    entry, args, shift = p
    y = _empty(a.shape, a.dtype)
    xr, yr = a.ravel(), y.ravel()
    if not entry(xr, yr, *args) and shift:  # the shifted pass declined these values
        EN.call(E.KS, "softmax_rows_inline", (xr, yr, *args, False))  # Note [Softmax over short rows]
    return _make(y, x._dtype)


def _plan(x, a, dim, log) -> None:
    # records the plan of an eligible input (the body's tiny route) once the body has made its
    # kernel's entry; the call itself declines, so the body runs it this time
    n = a.ndim
    if (x._dtype not in _FLOATS or a.dtype not in (np.float32, np.float64) or not 0 < a.size <= _TINY
            or not n or not -n <= dim < n or not a.flags.c_contiguous):  # fmt: skip
        return
    s = a.shape
    d = dim + n if dim < 0 else dim
    R = s[d]
    if d == n - 1:
        name, args = ("softmax_rows_inline", (a.size // R, R, True)) if log else ("softmax_rows_shift", (a.size // R, R))
    else:
        inner = math.prod(s[d + 1 :])
        name, args = "softmax_cols", (a.size // (R * inner), R, inner, log)
    entry = EN.learned(name, a.dtype)
    if entry is not None:
        _PLANS[(s, a.strides, dim, x._dtype, log)] = (entry, args, name == "softmax_rows_shift")
