"""The last step of det's and slogdet's gradients, g[..., None, None] * inv(A)^H, in NumPy where
nothing observes it (Note [Backward formulas in NumPy])."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, _make
from .._formula_np import plain
from .core import _mH

# Note [det's gradient product in NumPy]
# det_backward and slogdet_backward end in g.unsqueeze(-1).unsqueeze(-1) * inv(A).mH: two views,
# a transpose and a product whose operands are a broadcast (..., 1, 1) and a transposed matrix,
# which the elementwise kernels run by their strided route (~20 us of slogdet's small backward).
# For plain real float32/float64 tensors with no graph, mode or forward AD the same products go
# into a C-order array (the layout the op writes) with np.multiply; the inverse stays the op.


def times_inv_h(g, inv):
    """``g.unsqueeze(-1).unsqueeze(-1) * inv.mH`` (``inv`` of ``g``'s batch shape)."""
    if g.__class__ is Tensor and g._dtype is inv._dtype and plain(g, inv):
        a = inv._data
        out = np.empty(a.shape, a.dtype)
        np.multiply(g._data[..., None, None], np.swapaxes(a, -1, -2), out=out)
        return _make(out, inv._dtype)
    return g.unsqueeze(-1).unsqueeze(-1) * _mH(inv)
