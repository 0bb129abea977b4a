"""The masked backward formulas of fmax/fmin, the clamp family and copysign in NumPy, where
nothing can tell them from their ops (pointwise/core.py is at its size cap)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..._api import _OVERRIDES
from ..._device import CPU
from ..._state import STATE
from ..._tensor import Tensor, _make
from .._formula_np import _FLOATS, SMALL
from .._quiet import IGNORE, quiet, restore

# Note [Masked formulas in NumPy]
# PyTorch's formulas for these ops are one where() over a comparison (clamp_backward,
# fmax's masked select, copysign_tensor_self_backward); numtorch's ran them as two to four
# pointwise ops each (fmax: ge, isnan, logical_or, where per input), ~4 us of dispatch apiece
# on a small tensor, most of a small fwd+bwd. Under Note [Backward formulas in NumPy]'s gate
# (no graph being built, no dispatch mode, no forward AD, plain CPU float32/float64 tensors of
# at most SMALL elements), with every tensor of one dtype, no aten kernel override live (a
# user's kernel over ge or where must still be called, Note [Fast calls under kernel
# overrides]) and any Python-number bound representable in that dtype, a formula runs the
# same comparisons, selects and correctly rounded products/quotients in NumPy (a Python
# number meets the array as that dtype, as the ops' wrapped scalars do). The result is a new
# C-order array, as the ops' is. Anything else (half, mixed dtypes, a 0-d bound of another
# dtype, which type promotion treats apart) runs the ops: ``fallback`` below.
_F32_MAX = float(np.finfo(np.float32).max)


def _number_ok(v, dt) -> bool:
    if type(v) is float:
        return dt == np.float64 or not abs(v) > _F32_MAX or math.isinf(v)
    return type(v) is int and -(2**53) <= v <= 2**53


def _gate(grad, *xs) -> bool:
    """Tensors of grad's dtype, numbers or None, under the gate (Note [Masked formulas in NumPy]);
    Note [Backward formulas in NumPy]'s ``plain`` in one pass."""
    st = STATE
    if st.grad_enabled or st.td_modes or st.fw_level >= 0 or _OVERRIDES[0]:
        return False
    g = grad._data
    dt = g.dtype
    if (
        grad.__class__ is not Tensor
        or grad._device is not CPU
        or dt not in _FLOATS
        or g.size > SMALL
    ):
        return False
    for x in xs:
        c = x.__class__
        if c is Tensor:
            a = x._data
            if x._device is not CPU or a.dtype != dt or a.size > SMALL:
                return False
        elif c is float or c is int:
            if not _number_ok(x, dt):
                return False
        elif x is not None:
            return False
    return True


def _a(x):
    return x if x is None or x.__class__ is int or x.__class__ is float else x._data


def _out(a, grad):
    # a 0-d result comes back as a NumPy scalar (ascontiguousarray would make it 1-d)
    if a.__class__ is not np.ndarray or a.dtype != grad._data.dtype:
        a = np.asarray(a, grad._data.dtype)
    return _make(a if a.flags.c_contiguous else np.ascontiguousarray(a), grad._dtype)


def numpy_first(np_formula, raw=False):
    """Run ``np_formula`` (same parameters as the op formula it decorates) under the gate, on
    the arrays (raw: on the tensors, to call the ops it keeps); it may decline with None."""

    def deco(fallback):
        @functools.wraps(fallback)  # the registry reads the parameters (saved tensors) through it
        def formula(*args):
            if _gate(*args):
                tok = quiet(IGNORE)  # the ops raise no floating-point warnings
                try:
                    r = np_formula(*args) if raw else np_formula(*map(_a, args))
                finally:
                    restore(tok)
                if r is not None:
                    return _out(r, args[0])
            return fallback(*args)

        return formula

    return deco


def _keep(g, m):
    return np.where(m, g, 0.0)


def fmax_bw(keep, key, ops):
    # fmax (keep "ge") / fmin ("le"): self's gradient where it won or other is NaN, other's
    # elsewhere; ops: core's (_where, _cmp, _or, _u)
    _where, _cmp, _or, _u = ops
    cmp = np.greater_equal if keep == "ge" else np.less_equal

    def np_bw(g, a, b):
        m = cmp(a, b) | np.isnan(b)
        return np.where(m, g, 0.0) if key == "self" else np.where(m, 0.0, g)

    @numpy_first(np_bw)
    def bw(grad, self, other):
        m = _or(_cmp(keep, self, other), _u("isnan", other))
        return _where(m, grad, 0.0) if key == "self" else _where(m, 0.0, grad)

    return bw


def clamp_self(g, a, lo, hi):
    m = None if lo is None else a >= lo
    if hi is not None:
        m = a <= hi if m is None else m & (a <= hi)
    return _keep(g, m)


def clamp_min(g, a, lo, hi):
    m = a < lo
    return _keep(g, m if hi is None else m & (lo < hi))


def clamp_max(g, a, lo, hi):
    m = a > hi
    return _keep(g, m if lo is None else m | (hi < lo))


def copysign_self(g, a, r):
    return np.where(a == 0, 0.0, g * (r / a))


_CMP = {"ge": np.greater_equal, "le": np.less_equal, "lt": np.less, "gt": np.greater}


def bound_keep(cmp):
    # clamp_min / clamp_max with a Tensor bound: where(cmp(self, bound), grad, 0)
    f = _CMP[cmp]
    return lambda g, a, b: _keep(g, f(a, b))


def times_zero(g):
    # copysign's gradient for other: grad * 0.0 (NaN where grad is, -0.0 where it is negative)
    return g * 0.0
