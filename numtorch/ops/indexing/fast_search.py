"""Fast calls (Note [Binding fast call], Note [Indexing fast calls]) of searchsorted and
bucketize: search_rows over same-dtype C-contiguous operands, as the body runs it."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._device import CPU as _CPU
from ..._state import STATE as _STATE
from ..._tensor import Tensor as _Tensor
from ..._tensor import _make
from ...amp._policy import _INSTALLED as _AUTOCAST
from ..reduction._entries import entry as _entry
from .core import K

_empty = np.empty
_I64 = D.int64


def _kept(store: dict, key: tuple, make):
    """``make(*key)``, kept in ``store`` per key (cleared past 256 keys)."""
    p = store.get(key)
    if p is None:
        p = make(*key)
        if len(store) >= 256:
            store.clear()
        store[key] = p
    return p


_SEARCH_DTYPES = (D.float32, D.float64, D.int64, D.int32)
_SEARCH: dict = {}  # (boundaries' and values' shapes and dtypes, right, side) -> _search_plan's answer


def _search_plan(bsh, vsh, bdt, vdt, right, side):
    """search_rows' (row stride, row length, values per row, right) where the body's checks
    pass for these shapes, dtypes and flags; else False."""
    if side is not None:
        if side.__class__ is not str or side not in ("left", "right") or right and side == "left":
            return False
        right = side == "right"
    if not (bdt is vdt and vdt in _SEARCH_DTYPES and bsh and (len(bsh) == 1 or bsh[:-1] == vsh[:-1]) and math.prod(vsh)):
        return False
    nb = bsh[-1]  # [4]: search_rows' compiled entry, once a call has made it
    return [nb if len(bsh) > 1 else 0, nb, math.prod(vsh) if len(bsh) == 1 else vsh[-1], right, None]


def _searchsorted(sorted_sequence, input, out_int32=False, right=False, side=None, out=None, sorter=None):
    """search_rows over same-dtype C-contiguous operands, as the body runs it (int64 result):
    the plan per (shapes, dtypes, right, side) keeps the checks' answer and the kernel's
    compiled entry, and the guards are written out (a 0.1 us search under ~2.5 us of calls)."""
    if not (out is None and sorter is None and out_int32 is False and right.__class__ is bool
            and input.__class__ is _Tensor):  # fmt: skip
        return None
    b, v = sorted_sequence._data, input._data
    key = (b.shape, v.shape, sorted_sequence._dtype, input._dtype, right, side)
    p = _SEARCH.get(key)
    if p is None:
        p = _kept(_SEARCH, key, _search_plan)
    S = _STATE
    if not (p and b.flags.c_contiguous and v.flags.c_contiguous) or S.td_modes or S.fw_level >= 0 or _AUTOCAST:
        return None
    if sorted_sequence._device is not _CPU or input._device is not _CPU:
        return None
    if (sorted_sequence._rg or input._rg) and S.grad_enabled:
        return None
    res = _empty(v.shape, np.int64)  # in its shape: the kernel fills a flat view (no reshape after)
    args = (b.ravel(), p[0], p[1], v.ravel(), p[2], p[3], res.ravel())
    if p[4] is None:
        p[4] = _entry(K, "search_rows", args)[1]
    else:
        p[4](*args)
    return _make(res, _I64)


def _bucketize(input, boundaries, out_int32=False, right=False, out=None):
    if boundaries._data.ndim == 1:
        return _searchsorted(boundaries, input, out_int32, right, None, out)
    return None
