"""Binding fast calls (Note [Binding fast call]) of isclose, allclose and equal."""

# Note [Close fast calls]
# isclose is at::isclose's composite, op for op (eq, isnan twice and bitwise_and under
# equal_nan, mul, abs, add, sub, abs, isfinite, le, two in-place ands/ors: ~90 Python calls, a
# 19 us small isclose), and allclose is its .all(). For two plain (Note [Guarded fast paths]),
# C-contiguous float32/float64 tensors of one shape and dtype, with rtol and atol numbers the
# dtype holds (as the composite's Scalar ops convert them: float32(rtol) * other in float32),
# one kernel pass (kernels/cpu/close.py) evaluates the same IEEE operations per element in
# the operands' dtype, so the booleans are the composite's; allclose stops at the first
# element that is not close. Broadcasting, other dtypes, negative or non-finite tolerances
# (the body's error or its conversion), a mode and anything to record take the body
# (tests/ops/pointwise/test_close_fast.py).
# equal of two plain CPU tensors of one dtype and shape, C-contiguous, of the all_equal
# kernel's dtypes and sizes (compare._equal_cpu's kernel route) calls all_equal_nd, the same
# loop over the arrays flattened inside the kernel, through its compiled entry per (dtype,
# ndim), without the op's dispatch fast path; anything else runs the binding's body.

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU_DEV
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...kernels import lazy
from .._fast_guard import free as _no_mode
from .._fast_guard import or_body, params
from .._fast_guard import recordless as _plain
from ..reduction._entries import call
from ..reduction._reduce import _entry

KC = lazy("numtorch.kernels.cpu.close")
_F32MAX = float(np.finfo(np.float32).max)
_NP = {D.float32: np.float32, D.float64: np.float64}


def _tol(v, dt):
    """``v`` converted to the dtype as the composite's Scalar ops do, or None (the body's)."""
    c = v.__class__
    if (c is float or c is int) and 0 <= v and math.isfinite(v) and (dt is D.float64 or v <= _F32MAX):
        return _NP[dt](v)
    return None


def _args(input, other, rtol, atol, equal_nan):
    """(x, y, rtol, atol, equal_nan, tol) for the kernels, or None where the body must run."""
    dt = input._dtype
    if not (
        other.__class__ is _Tensor
        and other._dtype is dt
        and dt in _NP
        and equal_nan.__class__ is bool
        and _no_mode()
        and _plain(input)
        and _plain(other)
    ):
        return None
    x, y = input._data, other._data
    if x.shape != y.shape or not (x.flags.c_contiguous and y.flags.c_contiguous):
        return None
    r, a = _tol(rtol, dt), _tol(atol, dt)
    if r is None or a is None:
        return None
    return x.reshape(-1), y.reshape(-1), r, a, equal_nan, not (rtol == 0 and atol == 0)


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    g = _args(input, other, rtol, atol, equal_nan)
    if g is None:
        return None
    out = np.empty(input._data.shape, np.bool_)
    call(KC, "isclose_flat", g + (out.reshape(-1),))
    return _make(out, D.bool)


def _allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    g = _args(input, other, rtol, atol, equal_nan)
    return None if g is None else bool(call(KC, "allclose_flat", g))


_EQ_DTYPES = frozenset(np.dtype(t) for t in (np.bool_, np.int32, np.int64, np.float32, np.float64))
_EQ_MAX = 4096  # compare._EQ_KERNEL_MAX: its early-exit loop does not vectorise
_EQ_ENTRIES: dict = {}  # (np dtype, ndim) -> all_equal_nd's compiled entry


def _equal(input, other):
    x, y = input._data, other._data
    if not (
        other.__class__ is _Tensor
        and input._dtype is other._dtype
        and x.shape == y.shape
        and x.dtype in _EQ_DTYPES
        and x.size <= _EQ_MAX
        and x.flags.c_contiguous
        and y.flags.c_contiguous
        and input._device is _CPU_DEV
        and other._device is _CPU_DEV
        and _no_mode()
    ):
        return None
    key = (x.dtype, x.ndim)
    e = _EQ_ENTRIES.get(key)
    if e is None:
        r = KC.all_equal_nd(x, y)
        _EQ_ENTRIES[key] = _entry(KC.all_equal_nd, (x, y))
        return bool(r)
    return e(x, y)


_CALLS = {"isclose": _isclose, "allclose": _allclose, "equal": _equal}


def install(bindings) -> None:
    """Put the calls above in place of the bindings' dispatch fast calls (arg_fast.install
    calls this, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get(b.name)
        if fast is not None and b.module in ("torch", "Tensor"):
            b.fast = (or_body(fast, b.body), params(b.sig))
