"""Fast calls (Note [Binding fast call]) of the plain factory calls: empty/zeros/ones/full,
rand/randn, arange and scalar_tensor.

# Note [Factory binding fast call]
# A factory's binding has no tensor parameter, so its wrapper went straight to the body: the
# size and dtype parsing, ``create``, dispatch, op.fast's gate (Note [Factory fast path]) and the
# kernel, ~2.5-6 us of a small ``zeros(2, 3)`` or ``rand(2, 3)`` where PyTorch takes 1-1.3 us.
# Like the tensor-list bindings (Note [Tensor-list binding fast call]), its fast call is a
# function that returns None to decline; the wrapper's ``cond`` has already checked that
# out/layout/device/generator are None, requires_grad and pin_memory False. It runs when no
# dispatch mode, vmap level or autocast region is active, the sizes are non-negative ints and
# the dtype is one it knows (never bfloat16: the backend key's route), and builds the result
# as the kernel does, with the same NumPy calls (so the values and the random stream are the
# same); anything else, errors included (an impossible size: the allocation raises, the fast
# call declines and the body raises PyTorch's error), takes the body.
# tests/ops/factory/test_factory_binding_fast.py runs both routes.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._functorch._levels import VMAP_LEVELS as _V
from ..._random import default_generator as _DG
from ..._state import STATE as _S
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST

_SEQ = (tuple, list)
_REAL = {D.float32: np.float32, D.float64: np.float64}  # NumPy's samplers draw these directly
_FILLED = {dt: dt.np for dt in (D.bool, D.uint8, D.int8, D.int16, D.int32, D.int64, D.float16,
                                D.float32, D.float64, D.complex64, D.complex128)}  # fmt: skip
_ARANGE = {D.int64: np.int64, D.int32: np.int32, D.float32: np.float32, D.float64: np.float64}
_ARANGE_EXACT = 1 << 24  # integers below this are exact in float32: np.arange gives the kernel's values
COND = "out is None and layout is None and device is None and requires_grad is False and pin_memory is False"
SIZED_COND = "size is None and " + COND
RANDOM_COND = "generator is None and " + SIZED_COND


def _dims(sizes):
    """The dims of ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` when all are non-negative ints
    (and there is at least one), else None."""
    if len(sizes) == 1 and sizes[0].__class__ in _SEQ:
        sizes = sizes[0]
    if not sizes:
        return None
    for s in sizes:
        if s.__class__ is not int or s < 0:
            return None
    return sizes


def _off() -> bool:
    return bool(_S.td_modes or _V or _AUTOCAST)


def sized(np_fn):
    """empty/zeros/ones: ``np_fn(dims, npdtype)``."""

    def fast(sizes, dtype):
        dt = D._default if dtype is None else dtype
        npdt = _FILLED.get(dt)
        dims = _dims(sizes)
        if npdt is None or dims is None or _off() or (np_fn is np.empty and F.FILL_UNINITIALIZED[0]):
            return None
        try:
            return _make(np_fn(dims, npdt), dt)
        except (ValueError, MemoryError):  # too big: the body raises PyTorch's error
            return None

    return fast


def _real_value(v, dtype):
    """(dtype, float value) of a float or int Scalar filling a float32/float64 tensor (the
    default dtype when None) that scalar_to takes without its overflow error, else None."""
    tp = v.__class__
    dt = D._default if dtype is None and tp is float else dtype
    if dt not in _REAL or (tp is not float and (tp is not int or dtype is None or not -(2**63) <= v < 2**64)):
        return None
    f = float(v)
    return None if abs(f) > _FMAX[dt] and f - f == 0 else (dt, f)


_FMAX = {dt: float(np.finfo(npdt).max) for dt, npdt in _REAL.items()}


def full(size, fill_value, dtype):
    dv = _real_value(fill_value, dtype)
    if dv is None or size.__class__ not in _SEQ or _off():
        return None
    dims = _dims((size,))
    if dims is None:
        return None
    dt, v = dv
    try:  # alloc's choice: np.zeros for a zero fill
        return _make(np.zeros(dims, _REAL[dt]) if v == 0 else np.full(dims, v, _REAL[dt]), dt)
    except (ValueError, MemoryError):
        return None


def scalar_tensor(s, dtype):
    dv = _real_value(s, D._default if dtype is None else dtype)
    if dv is None or _off():
        return None
    return _make(np.array(dv[1], _REAL[dv[0]]), dv[0])


def arange(start, end, step, dtype):
    """arange(n) of int64, int32, float32 or float64 (n < 2**24: exact in each, so
    np.arange's values are the kernel's start + step * i)."""
    dt = D.int64 if dtype is None else dtype
    npdt = _ARANGE.get(dt)
    if (end is not None or step.__class__ is not int or step != 1 or start.__class__ is not int
            or npdt is None or not 0 <= start < _ARANGE_EXACT or _off()):  # fmt: skip
        return None
    return _make(np.arange(start, dtype=npdt), dt)


def rand(sizes, dtype):
    dt = D._default if dtype is None else dtype
    npdt = _REAL.get(dt)
    dims = _dims(sizes)
    if npdt is None or dims is None or _off():
        return None
    try:  # K.uniform's draw: lo + (hi - lo) * u with lo 0 and hi 1 is u
        return _make(_DG._np.random(dims, dtype=npdt), dt)
    except (ValueError, MemoryError):
        return None


def randn(sizes, dtype):
    dt = D._default if dtype is None else dtype
    npdt = _REAL.get(dt)
    dims = _dims(sizes)
    if npdt is None or dims is None or _off():
        return None
    try:  # K.normal's draw
        return _make(_DG._np.standard_normal(dims, dtype=npdt), dt)
    except (ValueError, MemoryError):
        return None
