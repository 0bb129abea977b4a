"""The NumPy view of a basic index tuple, for ``Tensor.__getitem__``'s fast call.

# Note [Basic index tuples]
# ``x[:, :, :t, :t]``, ``x[..., 0]``, ``x[1, :, 2:]``: a tuple of slices with positive steps,
# in-range ints and at most one Ellipsis is basic indexing in PyTorch and NumPy alike, and
# NumPy's view has PyTorch's sizes, strides and offset. The body's chain of select/slice views
# ends at the same strided view of the same memory, ~2 us later. Anything else is None and the
# body runs: None in the key (NumPy's new axis has stride 0, PyTorch's unsqueeze the next dim's
# extent), advanced indexing, bools, NumPy or tensor scalars, steps <= 0, an out-of-range int
# (the body's IndexError) or slice bound (outside [-n, n]: both clamp, the body keeps its own
# rule), more indices than dims, and a result with no elements taken from a tensor with some
# (PyTorch keeps the slice's start as the offset, NumPy may not). A call that records takes
# it when the body would record one node (single_item: one int or slice besides ``:``, which
# PyTorch and the body skip), with that node's saved values; otherwise the body's chain.
"""

from __future__ import annotations

import builtins

import numpy as np

from ... import _dtype as D
from ..._device import CPU
from ..._tensor import Tensor

_slice, _Ellipsis = builtins.slice, builtins.Ellipsis
_FULL = _slice(None)
_INDEX_DTYPES = (D.int64, D.int32)


def basic_view(a, key: tuple):
    """``a[key]`` as an array view when ``key`` is a basic index tuple (Note [Basic index
    tuples]), else None."""
    shape = a.shape
    used = 0
    ellipsis = False
    for k in key:
        c = k.__class__
        if c is _slice or c is int:
            used += 1
        elif k is _Ellipsis:
            if ellipsis:
                return None
            ellipsis = True
        else:
            return None
    nd = len(shape)
    if used > nd:
        return None
    d = 0
    for k in key:
        c = k.__class__
        if c is _slice:
            n = shape[d]
            step, start, stop = k.step, k.start, k.stop
            if not (
                (step is None or (step.__class__ is int and step > 0))
                and (start is None or (start.__class__ is int and -n <= start <= n))
                and (stop is None or (stop.__class__ is int and -n <= stop <= n))
            ):
                return None
            d += 1
        elif c is int:
            n = shape[d]
            if not -n <= k < n:
                return None
            d += 1
        elif k is _Ellipsis:
            d += nd - used
    r = a[key] if ellipsis else a[(*key, _Ellipsis)]  # the Ellipsis: an array, never a scalar
    return r if r.size or not a.size else None



# Note [New axes in a basic index]
# ``x[:, None]``, ``x[None]``, ``x[..., None]``, ``x[1:, None, :]``: PyTorch applies the key left
# to right and a None is an unsqueeze of the tensor at that point, its stride the next dim's
# size * stride (1 at the end); NumPy's new axis has stride 0. When every item after the first
# None is None, ``:`` or the Ellipsis, the dims an unsqueeze sees next are final, so PyTorch's
# result is the basic view of the key without its Nones, with unit dims inserted by that rule:
# for a C-contiguous view without unit dims (whose strides NumPy's flag does not constrain)
# those are C strides, what NumPy's reshape to the key's shape gives, without a copy. Other
# views, and keys with an int or a slice after a None, take the body.
def newaxis_view(a, key: tuple):
    """``a[key]`` as an array view with PyTorch's strides for a key holding None (Note [New axes
    in a basic index]), else None (a key without None too)."""
    first = 0  # by identity: ``None in key`` would call a tensor item's __eq__
    for k in key:
        if k is None:
            break
        first += 1
    else:
        return None
    rest = list(key[:first])
    for k in key[first + 1 :]:
        if k is None:
            continue
        if k is not _Ellipsis and not (k.__class__ is _slice and k == _FULL):
            return None
        rest.append(k)
    r = basic_view(a, tuple(rest))
    if r is None or not r.size or not r.flags.c_contiguous or 1 in r.shape:
        return None
    return r.reshape(a[key].shape)  # NumPy places the new axes where PyTorch does


def single_item(key: tuple, ndim: int):
    """(dim, item) when a basic index tuple has exactly one int or slice other than ``:``, the
    rest ``:`` and at most one Ellipsis, else None: the body records one select/slice node (it
    skips a full ``:``), so a call that records can take the view with that one node."""
    found = None
    for i, k in enumerate(key):
        if k is _Ellipsis or k.__class__ is _slice and k.start is None and k.stop is None and k.step is None:
            continue
        if found is not None or (k.__class__ is not int and k.__class__ is not _slice):
            return None
        found = i
    if found is None:
        return None
    if _Ellipsis in key[:found]:  # the items after the Ellipsis count from the end
        return ndim - (len(key) - found), key[found]
    return found, key[found]


# Note [One index tensor]
# ``x[i]`` with one int64/int32 tensor of one or more dims indexes dim 0: PyTorch's aten.index
# gathers whole rows into a new C-contiguous tensor of shape i.shape + x.shape[1:] (whatever
# x's layout), which is np.take(a, i, axis=0): negative indices wrap in both, and an index out
# of range raises in NumPy before anything is written, so the fast call declines and the body
# raises PyTorch's IndexError. A 0-d index (a select, a view), bool/uint8 masks, a conjugate
# view, a subclass or a call that records take the body.
def take_rows(self, key):
    """``self._data`` gathered along dim 0 by the index tensor ``key``, or None (Note [One index
    tensor])."""
    if (key.__class__ is not Tensor or key._dtype not in _INDEX_DTYPES or key._device is not CPU
            or not key._data.ndim or self._is_conj):  # fmt: skip
        return None
    try:
        return np.take(self._data, key._data, axis=0)
    except IndexError:
        return None

