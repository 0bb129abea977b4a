"""Binding fast calls of reductions declared in core.py, which is at its size cap
(Note [Reduction fast path])."""

from __future__ import annotations

import numpy as np

from ... import _api
from ... import _dtype as D
from ..._device import CPU
from ..._dispatch import dispatch
from ..._state import STATE
from ..._tensor import Tensor, _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from .._registry import BINDINGS
from . import _reduce as E
from .core import _FLOATS, _NANSUM, _nansum, aten, nansum

# Note [nansum fast call]
# nansum had no Note [Reduction fast path] call: x.nansum() of a small float tensor ran the
# binding's body, _call, dispatch and fold (5.3 us against PyTorch's 1.7). Its kernel is sum's
# with NaN read as zero, so the same fast call serves it: float32/float64 inputs, no dtype=,
# over every dim or one int dim; the rest is the body's.
_NANSUM_FAST = E.reduce_fast(_NANSUM, _FLOATS, (nansum, (None, False, None)), (nansum, (None,)),
                             lambda s, d, k: _nansum(s, d, k, None, None))  # fmt: skip


# Note [nanmean without the composite's ops]
# nanmean is at::nanmean's decomposition: isnan, logical_not_, sum (the count), nansum, div:
# five dispatched ops, 27 us on 24 floats (PyTorch 7 us). A plain call (a float32/float64 CPU
# Tensor that records nothing, no dispatch mode or forward AD, no dtype=) counts with NumPy
# (exact: int64 in the composite) and divides with the same div.Tensor kernel, the count
# converted to the sum's dtype as div's promotion converts it, so the result is bit for bit
# the composite's; the dims are checked first as the composite's sum checks them.
def nanmean_plain(self, dim, keepdim):
    """nanmean(self, dim, keepdim) of a plain call, or None where the composite must run."""
    a = self._data
    # a kernel registered over isnan, sum, ... is called (Note [Fast calls under kernel overrides])
    if (self.__class__ is not Tensor or self._device is not CPU or a.ndim == 0 or a.dtype not in _NP_FLOATS
            or STATE.td_modes or STATE.fw_level >= 0 or (self._rg and STATE.grad_enabled)
            or _api._OVERRIDES[0]):  # fmt: skip
        return None
    dims = E.dims_arg(dim, a.ndim)
    s = _NANSUM_FAST(self, dim, keepdim)
    ok = a == a  # not NaN (the comparison warns of nothing)
    c = np.count_nonzero(ok) if len(dims) == a.ndim and not keepdim else ok.sum(axis=dims, keepdims=keepdim)
    c = np.asarray(c, s._data.dtype).reshape(s._data.shape)
    return dispatch(aten.div.Tensor, [s, _make(c, s._dtype)])


_NP_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# Note [nanmean's count with a graph]
# Where nanmean records (its input requires grad), nanmean_plain declines and the composite ran
# isnan, logical_not_ and sum for the count, three dispatched ops no graph takes in (the count
# has no gradient). With nothing to see them (no dispatch mode, forward-AD level or autocast
# region, no kernel registered over an aten op: Note [Fast calls under kernel overrides]) and a
# plain float32/float64 CPU Tensor of at most _COUNT_MAX elements, the count is NumPy's, the
# same int64 values in the sum's shape; nansum and div are recorded as before (NansumBackward0,
# DivBackward0).
_COUNT_MAX = 8192  # measured: NumPy's bool sum along a dim of 131k elements is slower than the ops


def nanmean_count(self, dim, keepdim):
    """The composite's non-NaN count of a recording call, or None where its ops must run."""
    a = self._data
    S = STATE
    if (self.__class__ is not Tensor or self._device is not CPU or a.ndim == 0 or a.dtype not in _NP_FLOATS
            or a.size > _COUNT_MAX or S.td_modes or S.fw_level >= 0 or _AUTOCAST or _api._OVERRIDES[0]):  # fmt: skip
        return None
    dims = E.dims_arg(dim, a.ndim)
    return _make(np.asarray((a == a).sum(axis=tuple(dims), keepdims=keepdim), np.int64), D.int64)


# Note [Softmax binding fast call]
# softmax(x, dim) ran the binding's body, _call, the softmax.int composite's gate and body, then
# dispatched _softmax(self, dim, False): ~1.5 us of a 3 us small softmax before the kernel. With
# no dtype= (the composite's only work) and no out=, and the input a plain Tensor with no mode
# (the binding's own test), the binding calls _softmax's op.fast itself, as the composite would.
# Under autocast the composite runs instead: autocast's float32 rule sits in softmax.int's fast
# slot, not in _softmax's (a float16 input must be upcast first).
def _softmax_call(prim, composite, plans, log):
    # plans: the module of Note [Softmax plans] (ops/nn/softmax_fast.py), whose softmax_plain is
    # tried first (None declines); looked up per call, not bound, so that tests can spy on it
    def call(x, dim, half_to_float):
        if _AUTOCAST:
            return composite.fast(x, dim, None)
        r = plans.softmax_plain(x, dim, log)
        return prim.fast(x, dim, half_to_float) if r is None else r

    return call


def _softmax_fast(b, call):
    first = "self" if b.module == "Tensor" else "input"
    cond = ["dtype is None"] + (["out is None"] if "out=" in b.sig else []) + (["dim is not None"] if "dim=None" in b.sig else [])
    return (call, (first, "dim", False), " and ".join(cond))


def install() -> None:
    from ..nn import softmax_fast as SF
    from .scan import _log_softmax, _softmax

    prims = {"softmax": _softmax_call(_softmax, aten.softmax.int, SF, False),
             "log_softmax": _softmax_call(_log_softmax, aten.log_softmax.int, SF, True)}  # fmt: skip
    for b in BINDINGS:
        if b.name == "nansum" and b.module in ("torch", "Tensor") and b.fast is None:
            first = "self" if b.module == "Tensor" else "input"
            cond = "dtype is None and " + ("out is None" if b.module == "torch" else "True")
            b.fast = (_NANSUM_FAST, (first, "dim", "keepdim"), cond)
        elif b.name in prims and b.module in ("torch", "Tensor", "torch.nn.functional") and b.fast is None:
            b.fast = _softmax_fast(b, prims[b.name])


install()
