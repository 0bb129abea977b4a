"""A Pointwise unary call through inline_fast's compiled entry, for an impl that is not inlined
(Note [Inlined float params])."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor as _T
from .._tensor import _make
from ..kernels import PARALLEL_THRESHOLD as _PT
from ._pointwise import _learn_entry, _plain_params

_nd, _empty = np.ndarray, np.empty


def entry_unary(pw, a, k, *params):
    """``pw.unary(a, *params)`` through the compiled entry Pointwise.inline_fast learns, under
    its key ``k`` (Note [Inlined float params]: a's dtype where every param is an int, else
    (dtype, each param's class)), for an impl that computes its params (celu: elu with
    input_scale 1 / alpha) and so is not inlined itself. The general path learns the kernel
    (Note [Pointwise fast path]); the next call learns its entry, later ones run it."""
    d = a._data
    if a.__class__ is _T and d.__class__ is _nd and d.flags.c_contiguous and d.size < _PT:
        dt = a._dtype
        e = pw._entry.get(k)
        if e is not None:
            if d.dtype is e[1]:
                r = _empty(d.shape, e[2])
                e[0](d.ravel(), r.ravel(), *params)
                return _make(r, e[3])
        else:
            f = pw._fast.get(dt)
            if f is not None and _plain_params(params, dt):
                r = _empty(d.shape, f[0])
                _learn_entry(pw._entry, k, f, d.ravel(), r.ravel(), *params)
                return _make(r, f[1])
    return pw.unary(a, *params)
