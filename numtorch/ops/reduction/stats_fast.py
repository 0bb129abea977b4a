"""Binding fast calls of var_mean / std_mean over every element (Note [Whole-tensor var_mean
fast call])."""

# Note [Whole-tensor var_mean fast call]
# torch.std_mean(x) of 24 floats ran its body (_correction), dispatch, the op's gate and
# _var_mean's checks before Note [Whole-tensor var]'s one kernel call (5.3 us; PyTorch 2.3). A
# plain call (_fast_guard: no mode, forward-AD level or autocast region, nothing to record) with
# no dim, unbiased, correction or out=, keepdim False, of a C-contiguous aligned float32/float64
# ndarray of 2 to PARALLEL_THRESHOLD elements (one element warns of the degrees of freedom: the
# body's), runs that path: var_rows (through its compiled entry) with correction 1, the square
# root in double for std_mean, and _reduce.wrap's casts (quiet: a float32 overflow is inf). Anything else declines (None) to the
# body. tests/ops/reduction/test_stats_fast.py compares the two bit for bit.

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import or_body, params, plain
from .._quiet import IGNORE, quiet
from .._quiet import restore as _unquiet
from . import _reduce as E
from ._entries import call

_FLOATS = (D.float32, D.float64)
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_F32MAX = float(np.finfo(np.float32).max)
COUNT = [0]  # calls that took the fast route (tests)


def _whole(sqrt: bool):
    def fast(input, dim=None, unbiased=None, keepdim=False, correction=None, out=None):
        if dim is not None or unbiased is not None or correction is not None or out is not None or keepdim is not False:
            return None
        dt = input._dtype
        if dt not in _FLOATS or not plain(input):
            return None
        a = input._data
        f = a.flags
        if a.__class__ is not np.ndarray or not (f.c_contiguous and f.aligned) or not 1 < a.size < PARALLEL_THRESHOLD:
            return None
        x = a.reshape(-1)
        var = np.empty(1, _F64)
        mean = np.empty(1, _F64)
        call(E.K, "var_rows", (x, var, mean, 1, x.size, 1.0))
        if sqrt:  # in double, as the body's np.sqrt (both the IEEE square root)
            var[0] = math.sqrt(var[0])
        COUNT[0] += 1
        if dt is D.float32:
            v, m = float(var[0]), float(mean[0])
            if abs(v) <= _F32MAX and abs(m) <= _F32MAX:  # no overflow to quiet: the same rounding
                return _make(np.array(v, _F32), dt), _make(np.array(m, _F32), dt)
        var, mean = var.reshape(()), mean.reshape(())
        if dt is D.float32:  # _reduce.wrap's casts, under one quiet state
            tok = quiet(IGNORE)
            try:
                var, mean = var.astype(_F32), mean.astype(_F32)
            finally:
                _unquiet(tok)
        return _make(var, dt), _make(mean, dt)

    return fast


_CALLS = {("torch", "var_mean"): _whole(False), ("torch", "std_mean"): _whole(True)}


def install(bindings) -> None:
    """Attach the calls above to their bindings (numtorch/__init__.py, before _api.install)."""
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
