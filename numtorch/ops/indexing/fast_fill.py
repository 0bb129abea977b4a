"""Fast routes of the indexing ops that write a number: scatter with a number ``src``/``value``
and masked_fill (a number, or a 0-d tensor value); the number's conversion shared with
index_fill's fast call (``fast_index.scalar``)."""

# Note [Number fill fast routes]
# ``x.scatter(0, idx, 3)`` and ``x.masked_fill(mask, -2.0)`` pass a number where the binding's
# relevant parameter may be a Tensor, so Note [Binding fast call] never takes them: the body
# parsed, picked the Scalar overload and dispatched (scatter 10.6 us beside PyTorch's 2.4).
# As Note [Prepared binding body] does for clamp's numbers, these bindings' bodies first try
# the route below and continue as the body where it declines (None): no mode, level or
# autocast region, plain operands (ops/_fast_guard.py), no out=, no reduce, and a number the
# body's checked_scalar converts without a check that could fail (``scalar``: a float into
# float32 within its range or not finite, any float into float64, an int into int64 in range
# or into a float dtype), so the value written is checked_scalar's NumPy scalar. scatter takes
# the offsets of fast_index (same kernel, same checks as its src route) and assigns the scalar
# where the body assigns np.full's copies of it; masked_fill copies the input in C order and
# np.copyto's the scalar where the mask (bool, the input's shape) is True, as the body does.
# A masked_fill 0-d tensor value arrives through the binding's fast call (every relevant
# argument a Tensor) and takes the same route with the value's item(). Anything else (an
# error, a broadcast result, a gradient) is the body's. tests/ops/indexing/test_fast_fill.py.

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from .._fast_guard import or_body, pair, params
from .._fast_guard import recordless as _plain
from ..reduction._entries import call as _call
from .core import K
from .fast_index import _offsets, scalar

_F32 = D.float32
_F64 = D.float64
_I64 = D.int64
_copyto = np.copyto
_ITEM = (_F32, _F64, _I64)  # 0-d value dtypes whose item() is the number the body converts


def _scatter_number(input, dim, index, src=None, value=None, reduce=None, out=None):
    v = src if value is None else value if src is None else None
    if reduce is None and out is None and input.__class__ is _Tensor and index.__class__ is _Tensor:
        s = scalar(v, input._dtype)
        if s is not None:
            offs = _offsets(input, dim, index)
            if offs is not None:
                res = np.array(input._data, order="C", copy=True)
                res.reshape(-1)[offs] = s
                return _make(res, input._dtype)
    return None


def _masked_fill(input, mask, value):
    if value.__class__ is _Tensor:  # the binding's fast call: a 0-d value of nothing to record
        if value._data.ndim or value._dtype not in _ITEM or not _plain(value):
            return None
        value = value._data.item()
    if input.__class__ is _Tensor and mask.__class__ is _Tensor and mask._dtype is D.bool:
        a, m = input._data, mask._data
        s = scalar(value, input._dtype)
        if s is not None and m.shape == a.shape and pair(input, mask):
            if a.__class__ is np.ndarray:  # np.copyto's where= as one kernel pass (~0.5 us less)
                res = a.copy()
                _call(K, "fill_where", (res.ravel(), m.ravel(), s))
                return _make(res, input._dtype)
            res = np.array(a, order="C")
            _copyto(res, s, where=m)
            return _make(res, input._dtype)
    return None


_NUMBER = {"scatter": _scatter_number, "masked_fill": _masked_fill}  # a method's body lacks out=


def install(bindings) -> None:
    """Give scatter's and masked_fill's functional and method bodies the number route, and
    masked_fill's bindings the fast call of a 0-d tensor value (before fast_index.install, whose scatter fast call then falls back to the route)."""
    for b in bindings:
        route = _NUMBER.get(b.name)
        if route is None or b.module not in ("torch", "Tensor") or getattr(b.body, "__wrapped__", None):
            continue
        body = b.body
        b.body = or_body(route, body)
        b.body.__wrapped__ = body
        if b.name == "masked_fill" and b.fast is None:
            b.fast = (or_body(_masked_fill, body), params(b.sig))
