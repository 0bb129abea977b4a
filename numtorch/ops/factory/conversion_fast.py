"""Fast calls (Note [Binding fast call]) of the dtype conversions: Tensor.float/double/half/int/
long/short/bool/byte/char/cfloat/cdouble, Tensor.type(dtype or type string) and Tensor.type_as.

# Note [Conversion fast calls]
# ``x.half()`` went wrapper -> body -> _to (dtype and device parsing, format analysis) -> the
# to.dtype composite -> _to_copy's op.fast -> _to_copy_cpu: ~3 us where PyTorch takes 1. For a
# CPU tensor with nothing to record (no dispatch mode, forward-AD level or autocast region; not
# a conjugate view; not bfloat16 either way: the backend's route) the result is what
# _to_copy_cpu's plain branch makes: ``self`` for its own dtype (to_impl aliases), else, for a
# C-contiguous array, np.empty in the new dtype and shape.copy.assign's cast: its float16 kernel
# from HALF_KERNEL_MIN elements, else the same cast loop as one ``astype(order="C")`` (np.empty's
# strides; 0.35 us less than np.empty and np.copyto) under the quiet flags (Note [Quiet
# floating-point flags]) instead of its np.errstate, ~1 us; complex to real (the body's warning)
# takes the body. Anything else returns None and the body runs (fast.or_body).
# tests/ops/factory/test_conversion_fast.py compares both routes.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _S
from ..._tensor import Tensor as _T
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from .._quiet import IGNORE, quiet, restore
from ..shape.copy import HALF_KERNEL_MIN, assign

_BF = D.bfloat16
_NAMES = {f"torch.{n}Tensor": dt for n, dt in (
    ("Bool", D.bool), ("Byte", D.uint8), ("Char", D.int8), ("Short", D.int16), ("Int", D.int32),
    ("Long", D.int64), ("Half", D.float16), ("Float", D.float32), ("Double", D.float64),
    ("ComplexFloat", D.complex64), ("ComplexDouble", D.complex128))}  # fmt: skip


def cast(self, dt):
    """``self`` converted to dtype ``dt`` on the CPU as _to would, or None."""
    S = _S
    if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or self._device is not _CPU or (self._rg and S.grad_enabled)
            or self._is_conj or dt is _BF or dt.__class__ is not D.dtype):  # fmt: skip
        return None
    if dt is self._dtype:
        return self
    a = self._data
    if not a.flags.c_contiguous or (a.dtype.kind == "c" and dt.category != D._COMPLEX):  # the body warns
        return None
    if dt is D.float16 and a.size >= HALF_KERNEL_MIN:
        out = np.empty(a.shape, dt.np)
        assign(out, a)  # Note [float16 conversion]
        return _make(out, dt)
    # assign's cast into np.empty, as one astype (the same cast loop; order "C": np.empty's
    # strides), under the quiet flags instead of its np.errstate (~1 us)
    tok = quiet(IGNORE)
    try:
        out = a.astype(dt.np, order="C")
    finally:
        restore(tok)
    return _make(out, dt)


def to(dt, body):
    """Tensor.<name>(memory_format=None)'s binding fast call: cast's result, or ``body``'s."""

    def fast(self, memory_format):
        r = None if memory_format is not None else cast(self, dt)
        return body(self, memory_format) if r is None else r  # (or_body's frame written out)

    return fast


def type_(self, dtype, non_blocking):
    if dtype is None or non_blocking is not False:
        return None
    return cast(self, _NAMES.get(dtype) if dtype.__class__ is str else dtype)


def type_as(self, other):
    if other.__class__ is not _T or other._device is not _CPU:
        return None
    return cast(self, other._dtype)
