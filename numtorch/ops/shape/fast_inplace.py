"""Binding fast calls (Note [Binding fast call]) of fill_, fill, zero_, resize_ and resize_as_.

# Note [Fill and resize fast calls]
# ``x.fill_(1.0)`` went binding -> body (value type test) -> op.fast's gate -> the kernel, whose
# checked_scalar tests the value against every dtype's rules (~1.4 us where PyTorch takes 0.8);
# ``fill(x, 1)`` added empty_layout's stride inference (4.6 us, PyTorch 1.5); resize_ parsed its
# sizes through _ints and resize_shape (1.0 us, PyTorch 0.36). Here a plain call (no dispatch
# mode, forward-AD level or autocast region: ops/_fast_guard.py; a CPU tensor with nothing to
# record and a plain version counter, so not an inference tensor) does only what the kernel does
# for it: a float value (or an int one) into a float32/float64/float16 tensor, or an int into an
# integer tensor that holds it, is the kernel's ``dt.np.type(value)`` filled in and the version
# bumped; ``fill`` fills a fresh array laid out as empty_layout lays it out (the C order where
# the input is C-contiguous without size-1 dims, where that is the only layout); resize_ to the
# current shape returns self, and a shrink (or same count) of a tensor that owns its C-contiguous
# memory is the kernel's contiguous view of it. Anything else (values the kernel refuses or
# converts another way, bool, other layouts, a grown or shared storage) returns None and the body
# runs with its errors. tests/ops/shape/test_fast_inplace.py compares both routes.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _S
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ...kernels import lazy
from .._fast_guard import params, plain
from .copy import _c_strides
from .core import _strided

_FLOATS = {dt: float(D.finfo(dt).max) for dt in (D.float16, D.float32, D.float64)}
_INTS = {dt: (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max)) for dt in (D.uint8, D.int8, D.int16, D.int32, D.int64)}
_SEQ = (list, tuple)
_KS = lazy("numtorch.kernels.cpu.shape")
_BIG = 16384  # from this many values the fill kernel beats ndarray.fill (below it, its dispatch costs more)
_KERNEL_DT = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64)}


def _fill_array(a, v):
    """``a.fill(v)`` (``v`` a scalar of a's dtype, or 0), by a kernel for large C-contiguous arrays."""
    if a.size >= _BIG and a.dtype in _KERNEL_DT and a.flags.c_contiguous and a.flags.writeable:
        _KS.fill_flat(a.reshape(-1), a.dtype.type(v))
    else:
        a.fill(v)


def _target(self):
    """``self``'s array when the kernel would write it and nothing else: else None."""
    return self._data if plain(self) and self._vc.__class__ is list else None


def _value(value, dt):
    """checked_scalar(value, dt) where it is ``dt.np.type(value)`` without an error, else None."""
    c = value.__class__
    if c is float or c is int:
        fmax = _FLOATS.get(dt)
        if fmax is not None:
            if c is int and not -(2**63) <= value < 2**64:
                return None
            return None if math.isfinite(value) and abs(value) > fmax else dt.np.type(value)
        lim = _INTS.get(dt)
        if lim is not None and c is int and lim[0] <= value <= lim[1]:
            return dt.np.type(value)
    return None


# Each maker returns the binding's fast call: the fast route, or ``body`` where it declines (one
# frame fewer than or_body: zero_ is a 0.25 us call in PyTorch).
def _fill_(body):
    def fast(self, value):
        a = _target(self)
        v = None if a is None else _value(value, self._dtype)
        if v is None:
            return body(self, value)
        if a.size < _BIG:
            a.fill(v)  # (a read-only expanded view raises here as in the kernel)
        else:
            _fill_array(a, v)
        self._vc[0] += 1
        return self

    return fast


def _zero_(body):
    def fast(self):
        S = _S  # _fast_guard.plain(self), written out: zero_ is 0.25 us in PyTorch
        if (S.td_modes or S.fw_level >= 0 or _AUTOCAST or self._device is not _CPU or (self._rg and S.grad_enabled)
                or self._vc.__class__ is not list):  # fmt: skip
            return body(self)
        a = self._data
        if a.size < _BIG:  # (the small case without a frame: zero_ is 0.25 us in PyTorch)
            a.fill(0)
        else:
            _fill_array(a, 0)
        self._vc[0] += 1
        return self

    return fast


def _fill(body):
    def fast(input, value):
        a = _target(input)
        v = None if a is None else _value(value, input._dtype)
        if v is None or not a.flags.c_contiguous or 1 in a.shape or not a.size:
            return body(input, value)  # (size-1 dims: empty_layout keeps their strides)
        out = np.empty(a.shape, a.dtype)
        _fill_array(out, v)
        return _make(out, input._dtype)

    return fast


def _resize(self, shape):
    """resize_ to ``shape`` (a tuple) where the kernel keeps the storage as it is, else None."""
    a = _target(self)
    if a is None or self._rg:  # (the body's error for a tensor that requires grad)
        return None
    n = 1
    for s in shape:  # ints first: (2.0, 3) == (2, 3)
        if s.__class__ is not int or s < 0:
            return None
        n *= s
    if shape == a.shape:
        return self
    if a.base is not None or not a.flags.c_contiguous or n > a.size:
        return None  # (a view: the storage's extent decides; a grown tensor copies: the body)
    self._data = _strided(a, shape, _c_strides(shape))  # the kernel's view of the storage
    return self


def _resize_(body):
    def fast(self, sizes, memory_format):
        r = None
        if memory_format is None:
            shape = sizes[0] if len(sizes) == 1 and sizes[0].__class__ in _SEQ else sizes
            r = _resize(self, tuple(shape))
        return body(self, sizes, memory_format) if r is None else r

    return fast


def _resize_as_(body):
    def fast(input, the_template, memory_format):
        r = None
        if memory_format is None and the_template.__class__ is _Tensor:
            r = _resize(input, the_template._data.shape)
        return body(input, the_template, memory_format) if r is None else r

    return fast


_MAKERS = {
    ("fill_", "input, value"): _fill_,
    ("fill_", "self, value"): _fill_,
    ("zero_", "input"): _zero_,
    ("zero_", "self"): _zero_,
    ("fill", "input, value"): _fill,
    ("resize_", "self, *sizes, memory_format=None"): _resize_,
    ("resize_as_", "input, the_template, *, memory_format=None"): _resize_as_,
    ("resize_as_", "self, the_template, *, memory_format=None"): _resize_as_,
}


def install(bindings) -> None:
    """Attach the fast calls above (numtorch/__init__.py calls this before _api.install)."""
    for b in bindings:
        make = _MAKERS.get((b.name, b.sig))
        if make is not None and b.module in ("torch", "Tensor") and b.fast is None:
            b.fast = (make(b.body), params(b.sig))
