"""Fast calls (Note [Binding fast call]) of gather, take_along_dim, scatter (src), scatter_add,
scatter_reduce, index_put, masked_scatter, searchsorted, bucketize (fast_search.py), nonzero/argwhere,
index_copy/index_add/index_fill, put and take."""

# Note [Indexing fast calls]
# On plain CPU tensors (no dispatch mode, forward-AD level or autocast region, nothing to
# record), a C-contiguous int64 index and arguments that pass every check of the body, these
# run the body's own kernel steps without its layers (the public body's parsing, dispatch,
# _scatter_prep's shape walk, parts(), four small np.array calls per _offsets): the offsets come
# from the same dim_offsets kernel (Note [Indexing kernels compute offsets]) with its prepared
# shape/stride arrays cached per (input shape, index shape, dim), and the values move as the
# body moves them (storage[offsets], offsets assignment, accumulate_at / reduce_into), so the
# results are the body's bit for bit, repeated indices included (same order); take_along_dim
# with a dim and an index of the input's size off it is a gather admitting negative indices
# (the kernel's ``wrap``); masked_scatter with a mask of the input's shape is the body's copy and
# boolean assignment without the broadcasts; searchsorted/bucketize of same-dtype contiguous
# operands call search_rows as the body does (the int64 result without its extra copy);
# index_put with one 1-D int64 index per dim is np.ravel_multi_index's offsets (it refuses
# negative and out-of-range indices: those take the body) and the same assignment or
# accumulate_at. Along the last dim, gather and scatter_add (and scatter_reduce "sum" with
# include_self) are one fused kernel (Note [Last-dim gather and scatter-add]): same order.
# index_copy/index_add/index_fill with a 1-D int64 index and put with an int64 index write a
# C-order copy through the body's (outer, size, inner) slabs / flat view (negative put and
# index_fill indices wrap, as there). index_select with a 1-D int64 index of a tensor of at
# least one dim: the body's bounds pass and np.take.
# Anything else - a gradient to record, out=, a mode, an index out of range, any error - takes
# the body, so errors and graphs are the body's. tests/ops/indexing/test_fast_index.py compares
# both routes and checks which one ran.

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from .._fast_guard import free as _no_mode
from .._fast_guard import or_body, pair, params
from .._fast_guard import recordless as _plain
from ..reduction._entries import call as _call
from ..reduction._entries import entry as _entry
from .core import _ADD, _KERNEL_DTYPES, K, _accumulate, _cstrides
from .fast_search import _SEARCH, _bucketize, _kept, _searchsorted  # noqa: F401  (_SEARCH: tests)
from .masked import argwhere_array
from .scatter import reduce_into

_empty = np.empty
_nd = np.ndarray
_I64 = D.int64
_F32, _F64 = D.float32, D.float64
_F32MAX = float(np.finfo(np.float32).max)
_PREP: dict = {}  # (input shape, index shape, dim, wrap, src shape) -> _geometry's answer
_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_NO = object()  # _scatter_2d / _planned_add_last: not that route's call


def _geometry(sh, ish, dim, wrap, ssh):
    """dim_offsets' prepared arguments (index shape, strides with dim's zeroed, dim's stride,
    index strides, dim, dim's size) where the body's shape checks pass, else False."""
    nd = len(sh)
    if not (-nd <= dim < nd and len(ish) == nd and (ssh is None or len(ssh) == nd)):
        return False
    d = dim % nd
    for k in range(nd):
        if (ish[k] != sh[k] if wrap else ish[k] > sh[k]) and k != d:
            return False
        if ssh is not None and ish[k] > ssh[k]:
            return False
    st = _cstrides(sh)
    dim_st, st[d] = st[d], 0
    # [6]: dim_offsets' compiled entry, once a call has made it
    return [np.array(ish, np.int64), np.array(st, np.int64), dim_st, np.array(_cstrides(ish), np.int64), d, sh[d], None]


def _scatter_2d(input, dim, index, src, accumulate):
    """scatter/scatter_add (src) of a 2-D input of the kernel dtypes as one scatter_2d pass
    (dim_offsets' checks through its kept geometry, then no offsets array): the result, None
    (an index out of range: the body's error) or _NO where this route does not take the call."""
    a, i = input._data, index._data
    if not (a.ndim == 2 and a.__class__ is _nd and a.dtype in _KERNEL_DTYPES and index._dtype is _I64
            and dim.__class__ is int and i.size and i.flags.c_contiguous and src._dtype is input._dtype
            and pair(input, index) and _plain(src)):  # fmt: skip
        return _NO
    s = src._data
    key = (a.shape, i.shape, dim, False, s.shape)
    p = _PREP.get(key)
    if p is None:
        p = _kept(_PREP, key, _geometry)
    if p is False:
        return _NO
    res = a.copy()
    s = s.ravel() if s.flags.c_contiguous else np.ascontiguousarray(s).ravel()
    if _call(K, "scatter_2d", (res.ravel(), i.ravel(), s, i.shape[0], i.shape[1], a.shape[1], src._data.shape[1], p[4],
                               p[5], accumulate)) < 0:  # fmt: skip
        return _make(res, input._dtype)
    return None


def _offsets(input, dim, index, src=None, wrap=False):
    """The body's offsets of ``index`` along ``dim`` into ``input``'s C-contiguous layout, or
    None where the fast call must decline (anything the body would check or refuse).
    ``wrap``: take_along_dim's negative indices, and its index the input's size off ``dim``."""
    i = index._data
    if not (index._dtype is _I64 and dim.__class__ is int and i.size and i.flags.c_contiguous and pair(input, index)):
        return None
    ssh = None
    if src is not None:
        if not (_plain(src) and src._dtype is input._dtype):
            return None
        ssh = src._data.shape
    key = (input._data.shape, i.shape, dim, wrap, ssh)
    p = _PREP.get(key)
    if p is None:
        p = _kept(_PREP, key, _geometry)
    if p is False:
        return None
    out = _empty(i.size, np.int64)
    if p[6] is None:
        bad, p[6] = _entry(K, "dim_offsets", (p[0], 0, p[1], p[2], i.ravel(), 0, p[3], p[4], p[5], wrap, out))
    else:
        bad = p[6](p[0], 0, p[1], p[2], i.ravel(), 0, p[3], p[4], p[5], wrap, out)
    return None if bad >= 0 else out


def _values(src, ishape):
    s = src._data
    if s.shape == ishape and s.flags.c_contiguous:
        return s.ravel()  # the whole of src, in order: no slicing or copy
    return np.ascontiguousarray(s[tuple(slice(0, n) for n in ishape)]).reshape(-1)


def _last_dim(input, dim, index, src=None) -> bool:
    """Note [Last-dim gather and scatter-add]: ``dim`` the last, same leading sizes, int64
    C-contiguous index (and ``src`` of the index's shape), a kernel dtype."""
    a, i = input._data, index._data
    n = a.ndim
    return (
        n >= 1
        and dim.__class__ is int
        and (dim == n - 1 or dim == -1)
        and i.ndim == n
        and i.shape[:-1] == a.shape[:-1]
        and i.size
        and a.dtype in _KERNEL_DTYPES
        and index._dtype is _I64
        and i.flags.c_contiguous
        and (src is None or src._data.shape == i.shape and src._dtype is input._dtype and _plain(src))
        and _no_mode()
        and _plain(input)
        and _plain(index)
    )


_LAST: dict = {}  # (input shape, index shape, dim, np dtype) -> [rows, input's last size, index's, entry] or False


def _last_plan(sh, ish, dim, dt):
    """Note [Last-dim gather and scatter-add]'s geometry where _last_dim's shape checks pass."""
    n = len(sh)
    if not (n >= 1 and (dim == n - 1 or dim == -1) and len(ish) == n and ish[:-1] == sh[:-1] and math.prod(ish)
            and dt in _KERNEL_DTYPES):  # fmt: skip
        return False
    return [math.prod(ish) // ish[-1], sh[-1], ish[-1], None, None]  # [3] gather_last's entry, [4] scatter_add_last's


def _last(input, dim, index):
    """_last_plan's answer for a plain call of C-contiguous operands and an int64 index, else
    None (then _last_dim and the general route decide, as before)."""
    a, i = input._data, index._data
    if not (index._dtype is _I64 and dim.__class__ is int and a.__class__ is _nd and a.flags.c_contiguous
            and i.flags.c_contiguous and pair(input, index)):  # fmt: skip
        return None
    key = (a.shape, i.shape, dim, a.dtype)
    p = _LAST.get(key)
    return _kept(_LAST, key, _last_plan) if p is None else p


def _gather(input, dim, index, sparse_grad=False, out=None):
    if sparse_grad is False and out is None:
        p = _last(input, dim, index)
        if p:  # the plan's entry: the route below without its checks and _call
            r = _empty(index._data.shape, input._data.dtype)
            if p[3] is None:
                bad, p[3] = _entry(K, "gather_last", (input._data.ravel(), index._data.ravel(), r.ravel(), *p[:3]))
            else:
                bad = p[3](input._data.ravel(), index._data.ravel(), r.ravel(), p[0], p[1], p[2])
            return _make(r, input._dtype) if bad < 0 else None
    if sparse_grad is False and out is None and _last_dim(input, dim, index):
        a, i = input._data, index._data
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        r = _empty(i.shape, a.dtype)
        if _call(K, "gather_last", (a.reshape(-1), i.reshape(-1), r.reshape(-1), i.size // i.shape[-1], a.shape[-1],
                                    i.shape[-1])) < 0:  # fmt: skip
            return _make(r, input._dtype)
        return None
    if sparse_grad is False and out is None:
        offs = _offsets(input, dim, index)
        if offs is not None:
            return _make(np.ascontiguousarray(input._data).reshape(-1)[offs].reshape(index._data.shape), input._dtype)
    return None


def _take_along_dim(input, indices, dim=None, out=None):
    if dim is not None and out is None:  # with dim: a gather whose indices may be negative
        offs = _offsets(input, dim, indices, wrap=True)
        if offs is not None:
            a = np.ascontiguousarray(input._data).reshape(-1)
            return _make(a[offs].reshape(indices._data.shape), input._dtype)
    return None


def _masked_scatter(input, mask, source):
    a, m, s = input._data, mask._data, source._data
    if (
        mask._dtype is D.bool
        and source._dtype is input._dtype
        and m.shape == a.shape
        and pair(input, mask)
        and _plain(source)
    ):
        if a.dtype in _KERNEL_DTYPES and a.__class__ is _nd:  # the count and the assignment in one pass
            res = a.copy()
            src = s.ravel() if s.flags.c_contiguous else np.ascontiguousarray(s).ravel()
            if _call(K, "scatter_where", (res.ravel(), m.ravel(), src)):
                return _make(res, input._dtype)
            return None  # too few source elements: the body's error
        k = int(np.count_nonzero(m))
        if s.size >= k:
            res = np.array(a, order="C")
            res[m] = s.reshape(-1)[:k]
            return _make(res, input._dtype)
    return None


def _scatter(input, dim, index, src=None, value=None, reduce=None, out=None):
    if src.__class__ is _Tensor and value is None and reduce is None and out is None:
        r = _scatter_2d(input, dim, index, src, False)
        if r is not _NO:
            return r
        offs = _offsets(input, dim, index, src)
        if offs is not None:
            a = input._data
            if a.__class__ is _nd and a.dtype in _KERNEL_DTYPES:  # NumPy's assignment in order, one kernel pass
                res = a.copy()
                _call(K, "put_flat", (res.ravel(), offs, _values(src, index._data.shape), res.size, False))
                return _make(res, input._dtype)
            res = np.array(a, order="C", copy=True)
            res.reshape(-1)[offs] = _values(src, index._data.shape)
            return _make(res, input._dtype)
    return None


def _add_last(input, index, src):
    a, i = input._data, index._data
    res = np.array(a, order="C", copy=True)
    s = np.ascontiguousarray(src._data)
    if _call(K, "scatter_add_last", (res.reshape(-1), i.reshape(-1), s.reshape(-1), i.size // i.shape[-1],
                                     a.shape[-1], i.shape[-1])) < 0:  # fmt: skip
        return _make(res, input._dtype)
    return None


def _planned_add_last(input, dim, index, src):
    """scatter_add_last through _last's plan and its kept entry: the result, None (an index
    out of range: the body's error) or _NO where the plan does not take the call."""
    if not (src.__class__ is _Tensor and src._dtype is input._dtype and src._data.shape == index._data.shape):
        return _NO
    p = _last(input, dim, index)
    if not (p and _plain(src)):
        return _NO
    res = input._data.copy()
    s = src._data if src._data.flags.c_contiguous else np.ascontiguousarray(src._data)
    if p[4] is None:
        bad, p[4] = _entry(K, "scatter_add_last", (res.ravel(), index._data.ravel(), s.ravel(), *p[:3]))
    else:
        bad = p[4](res.ravel(), index._data.ravel(), s.ravel(), p[0], p[1], p[2])
    return _make(res, input._dtype) if bad < 0 else None


def _scatter_add(input, dim, index, src, out=None):
    if out is None:
        r = _planned_add_last(input, dim, index, src)
        if r is not _NO:
            return r
    if out is None and _last_dim(input, dim, index, src):
        return _add_last(input, index, src)
    if out is None and src.__class__ is _Tensor:
        r = _scatter_2d(input, dim, index, src, True)
        if r is not _NO:
            return r
    if out is None and input._data.dtype in _KERNEL_DTYPES:
        offs = _offsets(input, dim, index, src)
        if offs is not None:
            res = np.array(input._data, order="C", copy=True)
            _accumulate(res.reshape(-1), offs, _values(src, index._data.shape), _ADD)
            return _make(res, input._dtype)
    return None


def _scatter_reduce(input, dim, index, src, reduce, include_self=True, out=None):
    if (
        out is None
        and input._data.dtype in _KERNEL_DTYPES
        and include_self.__class__ is bool
        and reduce.__class__ is str
        and reduce in _REDUCES
    ):
        if reduce == "sum" and include_self is True:
            r = _planned_add_last(input, dim, index, src)
            if r is not _NO:
                return r
            if _last_dim(input, dim, index, src):
                return _add_last(input, index, src)
        offs = _offsets(input, dim, index, src)
        if offs is not None:
            res = np.array(input._data, order="C", copy=True)
            reduce_into(res.reshape(-1), offs, _values(src, index._data.shape), reduce, include_self)
            return _make(res, input._dtype)
    return None


def _index_put(input, indices, values, accumulate=False):
    a, v = input._data, values._data
    c = indices.__class__
    if not (
        (c is tuple or c is list)
        and 0 < len(indices) == a.ndim
        and accumulate.__class__ is bool
        and values._dtype is input._dtype
        and _no_mode()
        and _plain(input)
        and _plain(values)
    ):
        return None
    n = -1
    for t in indices:
        if not (t.__class__ is _Tensor and t._dtype is _I64 and t._data.ndim == 1 and _plain(t)):
            return None
        if n != t._data.shape[0]:
            if n >= 0:
                return None
            n = t._data.shape[0]
    if not n or (v.shape != (n,) and v.size != 1) or v.ndim > 1:
        return None
    if len(indices) == 2 and a.dtype in _KERNEL_DTYPES and a.__class__ is _nd:
        i0, i1 = indices[0]._data, indices[1]._data
        if i0.flags.c_contiguous and i1.flags.c_contiguous:  # the offsets and the writes in one pass
            res = a.copy()
            vals = v.ravel() if v.flags.c_contiguous else np.ascontiguousarray(v).ravel()
            if _call(K, "index_put_2d", (res.ravel(), i0, i1, vals, a.shape[0], a.shape[1], accumulate)) < 0:
                return _make(res, input._dtype)
            return None  # a negative or out-of-range index: the body's to wrap or report
    try:  # refuses negative and out-of-range indices: the body's to wrap or report
        offs = np.ravel_multi_index(tuple(t._data for t in indices), a.shape)
    except ValueError:
        return None
    res = np.array(a, order="C", copy=True)
    # the values, or one value repeated (np.broadcast_to's view costs 2.5 us on a small call)
    vals = v.reshape(-1) if v.size == n else np.repeat(v.reshape(-1), n)
    if accumulate:
        _accumulate(res.reshape(-1), offs, vals, _ADD)
    else:
        res.reshape(-1)[offs] = vals
    return _make(res, input._dtype)


def _dim_index(input, dim, index) -> bool:
    """A plain call along an int ``dim`` of ``input`` (at least 1-D) with a non-empty
    C-contiguous 1-D int64 ``index``: what the index_* fast calls and index_select take."""
    nd = input._data.ndim
    i = index._data
    return (
        dim.__class__ is int
        and -nd <= dim < nd
        and index._dtype is _I64
        and i.ndim == 1
        and i.size
        and i.flags.c_contiguous
        and _no_mode()
        and _plain(input)
        and _plain(index)
    )


_SLABS: dict = {}  # (shape, dim, index length, source shape) -> (outer, size, inner) or False


def _slab_plan(sh, dim, k, ss):
    nd = len(sh)
    if not (-nd <= dim < nd and math.prod(sh)):
        return False
    d = dim % nd
    if ss is not None and ss != sh[:d] + (k,) + sh[d + 1 :]:
        return False
    return (math.prod(sh[:d]), sh[d], math.prod(sh[d + 1 :]))


def _slab_args(input, dim, index, source=None):
    """(res, a C-order copy of input; its (outer, size, inner) slabs; the 1-D index; source's
    flat C-order data) when the index_* body's checks all pass on a plain call with a
    C-contiguous int64 1-D index; else None. The slab geometry is kept per call geometry."""
    a, i = input._data, index._data
    if not (dim.__class__ is int and index._dtype is _I64 and i.ndim == 1 and i.size and i.flags.c_contiguous
            and pair(input, index)):  # fmt: skip
        return None
    s = None
    if source is not None:
        if not (source._dtype is input._dtype and _plain(source)):
            return None
        s = source._data
    key = (a.shape, dim, i.size, None if s is None else s.shape)
    g = _SLABS.get(key)
    if g is None:
        g = _kept(_SLABS, key, _slab_plan)
    if g is False:
        return None
    if s is not None:
        s = s.ravel() if s.flags.c_contiguous else np.ascontiguousarray(s).ravel()
    res = a.copy() if a.__class__ is _nd else np.array(a, order="C", copy=True)
    return res, g, i, s


def _index_copy(input, dim, index, source, out=None):
    g = _slab_args(input, dim, index, source) if out is None else None
    if g is not None:
        res = g[0]
        if input._data.dtype in _KERNEL_DTYPES:  # bounds and the slab copies in one pass
            if _call(K, "add_slabs", (res.ravel(), g[3], g[2], *g[1], 1)) < 0:
                return _make(res, input._dtype)
        elif _call(K, "first_out_of_range", (g[2], 0, g[1][1])) < 0:
            res.reshape(g[1])[:, g[2]] = g[3].reshape(g[1][0], g[2].size, g[1][2])
            return _make(res, input._dtype)
    return None


def _index_add(input, dim, index, source, alpha=1, out=None):
    if out is None and alpha.__class__ is int and alpha == 1 and input._data.dtype in _KERNEL_DTYPES:
        g = _slab_args(input, dim, index, source)
        if g is not None:
            if _call(K, "add_slabs", (g[0].ravel(), g[3], g[2], *g[1], 0)) < 0:
                return _make(g[0], input._dtype)
    return None


def scalar(value, dt):
    """checked_scalar(value, dt) where it cannot raise and the number is a float or an int and
    ``dt`` float32, float64 or int64; else None."""
    c = value.__class__
    if c is float:
        if dt is _F64:
            return np.float64(value)
        if dt is _F32 and (-_F32MAX <= value <= _F32MAX or not math.isfinite(value)):
            return np.float32(value)
    elif c is int and -(2**63) <= value < 2**63:
        if dt is _I64 or dt is _F32 or dt is _F64:
            return dt.np.type(value)
    return None


def _index_fill(input, dim, index, value):
    s = scalar(value, input._dtype)
    if s is not None:
        g = _slab_args(input, dim, index)
        if g is not None and _call(K, "first_out_of_range", (g[2], -g[1][1], g[1][1])) < 0:
            # NumPy's slabs[:, g[2]] = s as one kernel pass (negative indices wrap as there)
            _call(K, "fill_slabs", (g[0].ravel(), g[2], *g[1], s))
            return _make(g[0], input._dtype)
    return None


def _put(input, index, source, accumulate=False):
    a, i, s = input._data, index._data, source._data
    if (
        accumulate.__class__ is bool
        and index._dtype is _I64
        and source._dtype is input._dtype
        and i.size
        and s.size == i.size
        and i.flags.c_contiguous
        and a.size
        and pair(input, index)
        and _plain(source)
    ):
        fi = i.ravel()
        n = a.size
        # the body's _target (a base ndarray)
        res = a.copy() if a.__class__ is _nd else np.array(a, order="C", copy=True)
        src = s.ravel() if s.flags.c_contiguous else np.ascontiguousarray(s).ravel()
        if a.dtype in _KERNEL_DTYPES:  # the body's wrap, assignment or accumulate_at in one pass
            if _call(K, "put_flat", (res.ravel(), fi, src, n, accumulate)) < 0:
                return _make(res, input._dtype)
        elif _call(K, "first_out_of_range", (fi, -n, n)) < 0:  # out of range: the body's error
            fi = np.where(fi < 0, fi + n, fi)  # the body's wrap
            if accumulate:
                _accumulate(res.reshape(-1), fi, src, _ADD)
            else:
                res.reshape(-1)[fi] = src
            return _make(res, input._dtype)
    return None


def _take(input, index, out=None):
    a, i = input._data, index._data
    if out is None and index._dtype is _I64 and i.size and a.size and pair(input, index):
        n = a.size
        if a.dtype in _KERNEL_DTYPES and i.flags.c_contiguous:  # the bounds pass and the gather in one
            r = _empty(i.shape, a.dtype)
            if _call(K, "take_flat", (a.ravel(), i.ravel(), r.ravel(), n)) < 0:
                return _make(r, input._dtype)
            return None  # out of range: the body's error
        fi = i.reshape(-1)
        # (the compiled entry takes C-contiguous arrays only: a strided 1-D index stays strided)
        bad = _call(K, "first_out_of_range", (fi, -n, n)) if i.flags.c_contiguous else K.first_out_of_range(fi, -n, n)
        if bad < 0:  # out of range: the body's error
            return _make(a.reshape(-1)[i], input._dtype)  # the body's gather (negatives wrap)
    return None


def _index_select(input, dim, index, out=None):
    """The body's bounds pass (first_out_of_range's compiled entry) and np.take along ``dim``."""
    a, i = input._data, index._data
    if not (out is None and _dim_index(input, dim, index)):
        return None
    d = dim % a.ndim
    if _call(K, "first_out_of_range", (i, 0, a.shape[d])) >= 0:  # the body's error
        return None
    return _make(np.take(a, i, axis=d), input._dtype)


def _nonzero(input, out=None, as_tuple=False):
    if out is None and as_tuple is False and _no_mode() and _plain(input):
        return _make(argwhere_array(input._data), _I64)
    return None


def _nonzero_method(self, as_tuple=False):  # Tensor.nonzero has no out=
    return _nonzero(self, None, as_tuple)


_CORES = {"gather": _gather, "scatter": _scatter, "scatter_add": _scatter_add, "scatter_reduce": _scatter_reduce,
          "index_put": _index_put, "take_along_dim": _take_along_dim, "masked_scatter": _masked_scatter,
          "searchsorted": _searchsorted, "bucketize": _bucketize, "nonzero": _nonzero, "argwhere": _nonzero,
          "index_copy": _index_copy, "index_add": _index_add, "index_fill": _index_fill, "put": _put, "take": _take,
          "index_select": _index_select}  # fmt: skip


def install(bindings) -> None:
    """Attach the fast calls above and fast_count's (numtorch/__init__.py, before _api.install)."""
    from . import fast_count

    fast_count.install(bindings)
    for b in bindings:
        core = _nonzero_method if (b.module, b.name) == ("Tensor", "nonzero") else _CORES.get(b.name)
        if core is not None and b.module in ("torch", "Tensor") and b.fast is None:
            b.fast = (or_body(core, b.body), params(b.sig))
