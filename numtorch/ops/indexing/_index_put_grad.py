"""index_put's backward: derivatives.yaml's ``grad.index_put(indices, zeros, false)`` (self, when
not accumulating) and ``grad.index(indices)`` (values), in NumPy where nothing can tell them from
their ops."""

from __future__ import annotations

import numpy as np

from ..._device import CPU
from ..._tensor import Tensor, _make
from .. import _formula_np as _fnp

_I64 = np.dtype(np.int64)


# Note [index_put's gradient in NumPy]
# Each formula was one more index_put / index call at tens of elements: the indices' checks,
# broadcast and layout again, a 0-d zeros tensor for self's (~30-60 us the pair, most of
# index_put's backward). Under Note [Backward formulas in NumPy]'s gate, with indices that are
# all None or non-empty plain CPU int64 tensors (no mask; the forward checked their bounds
# against the same shape, and a saved index changed in place fails the version check before
# this runs), self's is the kernel's own C-order copy with +0.0 written at the indexed places
# and values' the kernel's C-ordered gather (np.ascontiguousarray(g[key])): the same elements,
# copied. Anything else runs the ops as before.
def key(grad: Tensor, indices) -> tuple | None:
    """The NumPy index of ``indices`` over ``grad``, or None where the ops must run."""
    if not _fnp.plain(grad) or len(indices) > grad._data.ndim:
        return None
    out, defined = [], False
    for t in indices:
        if t is None:
            out.append(slice(None))
            continue
        a = t._data
        if t.__class__ is not Tensor or t._device is not CPU or a.dtype != _I64 or not a.size:
            return None
        out.append(a)
        defined = True
    return tuple(out) if defined else None


def self_grad(grad: Tensor, k: tuple) -> Tensor:
    res = np.array(grad._data, order="C", copy=True)
    res[k] = 0
    return _make(res, grad._dtype)


def values_grad(grad: Tensor, k: tuple) -> Tensor:
    return _make(np.ascontiguousarray(grad._data[k]), grad._dtype)
