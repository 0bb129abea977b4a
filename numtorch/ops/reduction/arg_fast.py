"""Binding fast calls of argmax/argmin, aminmax over one dim, cummax/cummin, topk and the
whole-tensor median/nanmedian (Note [Argext binding fast calls])."""

# Note [Argext binding fast calls]
# torch.argmax(x, 1) of 24 floats ran the binding's body, _call, dispatch, the op's gate, the
# wide-unsigned guard, the CPU function's checks and _argext (4.5 us; PyTorch 2.3), and aminmax
# (dim=1) its checks and _reduce.extremes (7 us; PyTorch 3.2). For a plain call (_fast_guard: no
# mode, forward-AD level or autocast region, nothing to record) of a non-empty C-contiguous
# aligned float32/float64/int32/int64 ndarray with no out=, these run what those bodies end in:
# argmax/argmin the argext_rows/argext_cols kernel (through its compiled entry after the first
# call) over the (outer, R, inner) view of the dim (R = every element for dim=None), below
# PARALLEL_THRESHOLD where the body would take argext_rows_p; aminmax amin's and amax's kernels
# over the layout extremes uses (their serial entries as reduce_fast learns them, _launch from
# PARALLEL_THRESHOLD elements on); cummax/cummin the cumext kernel
# over the (outer, R, inner) view scan's _dim_layout gives; topk the route Note [Selection by
# quickselect] takes (_select_fast.topk, where it takes the call); median()/nanmedian() with no dim the
# lower_median kernel. Everything else, bad dims
# included, declines to the body (tests/ops/reduction/test_arg_fast.py compares the two).

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ...kernels import PARALLEL_THRESHOLD
from .._fast_guard import or_body, params
from . import _reduce as E
from . import _select_fast as S
from . import median_all as _M
from ._entries import call, entry
from ._select_fast import array as _array
from .core import _AMAX, _AMIN, AMinMax
from .scan import CumMax, CumMin
from .sorting import K as SK
from .sorting import TopK

_SHAPES = E._EXT_SHAPES  # (shape, dim, keepdim) -> (outer, R, inner, result shape): extremes' own
_EXT: dict = {}  # (amin's or amax's comb name, dtype) -> _reduce._learn's entries
_I64 = np.dtype(np.int64)
_tuple_new = tuple.__new__
_PT = PARALLEL_THRESHOLD
COUNT = [0]  # calls that took the fast route (tests)


def _layout(a, dim, keepdim):
    if dim.__class__ is not int or not a.ndim:
        return None
    return _SHAPES.get((a.shape, dim, keepdim)) or E._dim_layout(_SHAPES, a.shape, dim, keepdim)


def _argext(largest: bool):
    def fast(input, dim=None, keepdim=False, out=None):
        a = None if out is not None else _array(input, keepdim)
        if a is None or a.size >= _PT:
            return None
        if dim is None:
            outer, R, inner, shape = 1, a.size, 1, (1,) * a.ndim if keepdim else ()
        else:
            lay = _layout(a, dim, keepdim)
            if lay is None:
                return None
            outer, R, inner, shape = lay
        x = a.reshape(-1)
        m = outer * inner
        vals = np.empty(m, a.dtype)
        idx = np.empty(m, _I64)
        if inner == 1:
            call(E.K, "argext_rows", (x, vals, idx, outer, R, largest))
        else:
            call(E.K, "argext_cols", (x, vals, idx, outer, R, inner, largest))
        COUNT[0] += 1
        return _make(idx.reshape(shape), D.int64)

    return fast


def _tensor_argext(fast):
    def method(self, dim=None, keepdim=False):
        return fast(self, dim, keepdim, None)

    return method


def _aminmax(input, dim=None, keepdim=False, out=None):
    a = None if out is not None else _array(input, keepdim)
    lay = None if a is None else _layout(a, dim, keepdim)
    if lay is None:
        return None
    outer, R, inner, shape = lay
    x = a.ravel()
    lo_r = np.empty(shape, a.dtype)  # results in their shape, the kernels given ravel views
    hi_r = np.empty(shape, a.dtype)
    lo, hi = lo_r.ravel(), hi_r.ravel()
    if inner > 1 and R <= 64:  # both folds in one pass (131072 float32 along a dim of 3: 465 -> 60 us)
        call(E.K, "minmax_cols", (x, lo, hi, outer, R, inner))
    elif a.size >= _PT:
        E._launch(_AMIN.module(), x, lo, outer, R, inner, ())
        E._launch(_AMAX.module(), x, hi, outer, R, inner, ())
    else:  # _launch's serial kernels, through the entries reduce_fast learns for amin and amax
        dt = input._dtype
        for comb, r in ((_AMIN, lo), (_AMAX, hi)):
            e = _EXT.get((comb.name, dt)) or _learn(comb, dt)
            if inner == 1:
                e[0](x, r, outer, R)
            else:
                (e[1] or E._learn_col(comb, e))(x, r, outer, R, inner, min(inner, 1024))
    COUNT[0] += 1
    dt = input._dtype
    return _tuple_new(AMinMax, (_make(lo_r, dt), _make(hi_r, dt)))  # the namedtuple's __new__


def _learn(comb, dt):
    store: dict = {}
    e = _EXT[comb.name, dt] = E._learn(comb, store, dt, {dt: dt})
    return e


def _tensor_aminmax(self, dim=None, keepdim=False):
    return _aminmax(self, dim, keepdim, None)


_SCANS: dict = {}  # (shape, dim, np dtype) -> [outer, R, inner, cumext's entry] of a scan along dim


def _cumext(largest: bool, cls):
    # cummax/cummin: the body's cumext kernel over the (outer, R, inner) view of dim
    def fast(input, dim, out=None):
        a = None if out is not None or dim.__class__ is not int else _array(input, False)
        if a is None or not a.ndim:
            return None
        sh = a.shape
        lay = _SCANS.get((sh, dim, a.dtype))
        if lay is None:
            n = a.ndim
            if not -n <= dim < n:
                return None
            d = dim + n if dim < 0 else dim
            if len(_SCANS) > 512:
                _SCANS.clear()
            # [3]: cumext's compiled entry, once a call has made it
            lay = _SCANS[sh, dim, a.dtype] = [math.prod(sh[:d]), sh[d], math.prod(sh[d + 1 :]), None]
        vals = np.empty(sh, a.dtype)  # (np.empty of the shape and ravel views: two reshapes fewer)
        idx = np.empty(sh, _I64)
        if lay[3] is None:
            lay[3] = entry(E.K, "cumext", (a.ravel(), vals.ravel(), idx.ravel(), *lay[:3], largest))[1]
        else:
            lay[3](a.ravel(), vals.ravel(), idx.ravel(), lay[0], lay[1], lay[2], largest)
        COUNT[0] += 1
        return _tuple_new(cls, (_make(vals, input._dtype), _make(idx, D.int64)))  # the namedtuple's __new__

    return fast


def _tensor_cumext(fast):
    def method(self, dim):
        return fast(self, dim, None)

    return method


def _topk(input, k, dim=-1, largest=True, sorted=True, out=None):
    # the body's quickselect route (Note [Selection by quickselect]), _select_fast.topk
    a = None if out is not None or dim.__class__ is not int or k.__class__ is not int else _array(input, largest)  # largest a bool
    if a is None or not a.ndim or sorted.__class__ is not bool:
        return None
    n = a.ndim
    if not -n <= dim < n or not 0 <= k <= a.shape[dim]:
        return None
    r = S.topk(a, dim + n if dim < 0 else dim, k, largest)
    if r is None:
        return None
    COUNT[0] += 1
    return _tuple_new(TopK, (_make(r[0], input._dtype), _make(r[1], D.int64)))


def _tensor_topk(self, k, dim=-1, largest=True, sorted=True):
    return _topk(self, k, dim, largest, sorted, None)


def _median_all(skip_nan: bool):
    # median()/nanmedian() of every element: the lower_median kernel all_cpu calls
    def fast(input, dim=None, keepdim=False, out=None):
        a = None if dim is not None or out is not None else _array(input, keepdim)
        if a is None:
            return None
        flat = a.reshape(-1)
        if flat.size >= _M.NP_MIN:  # Note [Whole-tensor median by NumPy's partition]
            v = _M.lower_median(flat, skip_nan)
        else:
            v = call(SK, "lower_median", (flat, skip_nan))
        COUNT[0] += 1
        return _make(np.array(v, a.dtype), input._dtype)

    return fast


def _tensor_median(fast):
    def method(self, dim=None, keepdim=False):
        return fast(self, dim, keepdim, None)

    return method


_MEDIAN, _NANMEDIAN = _median_all(False), _median_all(True)
_ARGMAX, _ARGMIN = _argext(True), _argext(False)
_CUMMAX, _CUMMIN = _cumext(True, CumMax), _cumext(False, CumMin)
_CALLS = {
    ("torch", "argmax"): _ARGMAX,
    ("Tensor", "argmax"): _tensor_argext(_ARGMAX),
    ("torch", "argmin"): _ARGMIN,
    ("Tensor", "argmin"): _tensor_argext(_ARGMIN),
    ("torch", "aminmax"): _aminmax,
    ("Tensor", "aminmax"): _tensor_aminmax,
    ("torch", "cummax"): _CUMMAX,
    ("Tensor", "cummax"): _tensor_cumext(_CUMMAX),
    ("torch", "cummin"): _CUMMIN,
    ("Tensor", "cummin"): _tensor_cumext(_CUMMIN),
    ("torch", "topk"): _topk,
    ("Tensor", "topk"): _tensor_topk,
    ("torch", "median"): _MEDIAN,
    ("Tensor", "median"): _tensor_median(_MEDIAN),
    ("torch", "nanmedian"): _NANMEDIAN,
    ("Tensor", "nanmedian"): _tensor_median(_NANMEDIAN),
}


def install(bindings) -> None:
    """Attach the calls above, sort_fast's, scan_fast's and pointwise.close_fast's to their
    bindings (numtorch/__init__.py, before _api.install)."""
    from ..pointwise import close_fast
    from . import scan_fast, sort_fast

    scan_fast.install(bindings)
    close_fast.install(bindings)
    for b in bindings:
        fast = _CALLS.get((b.module, b.name))
        if fast is None and b.module in ("torch", "Tensor"):
            fast = sort_fast.CALLS.get(b.name)
        if fast is not None and b.fast is None:
            b.fast = (or_body(fast, b.body), params(b.sig))
