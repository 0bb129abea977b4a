"""Binding fast calls of sort, argsort, msort, kthvalue and mode (Note [Sort binding fast
calls])."""

# Note [Sort binding fast calls]
# sort/argsort/msort, kthvalue and mode of a small tensor already end in one selection kernel
# (Note [Selection by quickselect]), under the binding's body, _call, dispatch, the op's gate,
# _prep and the dtype checks (31-39 Python calls, 4.7-5.6 us against PyTorch's 3.6-5.1 us). As
# topk's fast call (Note [Argext binding fast calls]) does, a plain call (_select_fast.array: no
# mode, level, autocast region or gradient to record; a non-empty C-contiguous aligned float32/
# float64/int32/int64 array) with an int dim in range, bool flags and no out= runs the same
# _select_fast route (topk with k = n for the sorts, kth with how 0 and k - 1, mode) and wraps
# its arrays as the body does; where that route declines (a row past its work bound) or any
# argument is off, the body runs (tests/ops/reduction/test_sort_fast.py).

from __future__ import annotations

from ... import _dtype as D
from ..._tensor import _make
from . import _select_fast as S
from ._select_fast import array as _array
from .sorting import KthValue, Mode, Sort

_tuple_new = tuple.__new__  # the result namedtuples' __new__ without its Python frame


def _dim(a, dim):
    n = a.ndim
    if dim.__class__ is not int or not n or not -n <= dim < n:
        return None
    return dim + n if dim < 0 else dim


def _sorted(input, dim, descending):
    """(values, indices) arrays of the body's sort, or None."""
    a = _array(input, descending)  # descending a bool
    d = None if a is None else _dim(a, dim)
    return None if d is None else S.topk(a, d, a.shape[d], descending)


def _sort(input, dim=-1, descending=False, stable=None, out=None):
    if out is not None or not (stable is None or stable.__class__ is bool):
        return None
    r = _sorted(input, dim, descending)
    return None if r is None else _tuple_new(Sort, (_make(r[0], input._dtype), _make(r[1], D.int64)))


def _argsort(input, dim=-1, descending=False, stable=False):
    if stable.__class__ is not bool:
        return None
    r = _sorted(input, dim, descending)
    return None if r is None else _make(r[1], D.int64)


def _msort(input, out=None):
    r = None if out is not None else _sorted(input, 0, False)
    return None if r is None else _make(r[0], input._dtype)


def _kthvalue(input, k, dim=-1, keepdim=False, out=None):
    a = None if out is not None or k.__class__ is not int else _array(input, keepdim)
    d = None if a is None else _dim(a, dim)
    if d is None or not 1 <= k <= a.shape[d]:
        return None
    r = S.kth(a, d, 0, k - 1, keepdim)
    return None if r is None else _tuple_new(KthValue, (_make(r[0], input._dtype), _make(r[1], D.int64)))


def _mode(input, dim=-1, keepdim=False, out=None):
    a = None if out is not None else _array(input, keepdim)
    d = None if a is None else _dim(a, dim)
    r = None if d is None else S.mode(a, d, keepdim)
    return None if r is None else _tuple_new(Mode, (_make(r[0], input._dtype), _make(r[1], D.int64)))


CALLS = {"sort": _sort, "argsort": _argsort, "msort": _msort, "kthvalue": _kthvalue, "mode": _mode}
