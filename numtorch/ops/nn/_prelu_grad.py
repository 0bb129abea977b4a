"""_prelu_kernel_backward's CPU kernel for small float32/float64 operands: NumPy's where over the
broadcast weight instead of two strided pointwise kernels."""

from __future__ import annotations

import numpy as np

from . import prelu_rows

# Note [prelu's backward in NumPy]
# prelu's weight is broadcast against the input ((1, C, 1) beside (N, C, L)), so both kernels of
# _prelu_kernel_backward take the elementwise kernels' strided route, ~15 us a call at tens of
# elements. Below the dispatcher nothing can tell how the kernel computes: for one float dtype
# and at most SMALL elements, with grad and self C-contiguous and of the output's shape, the
# same selections and correctly rounded products are np.where over the arrays, written in C
# order as the kernels write them. Anything else runs the kernels.
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
SMALL = 8192


def cpu(grad_output, self, weight, kernels):
    g, x, w = grad_output._data, self._data, weight._data
    lay = prelu_rows.layout(self, weight)
    if lay is not None and g.dtype is x.dtype and g.shape == x.shape and g.flags.c_contiguous:
        return prelu_rows.backward(grad_output, self, weight, lay)  # Note [PReLU rows]
    dt = g.dtype
    if (
        dt in _FLOATS
        and x.dtype == dt
        and w.dtype == dt
        and g.shape == x.shape
        and g.size <= SMALL
        and g.flags.c_contiguous
        and x.flags.c_contiguous
        and np.broadcast_shapes(x.shape, w.shape) == x.shape
    ):
        from ..._tensor import _make

        pos = x > 0
        gi = np.where(pos, g, w * g)
        gw = np.where(pos, dt.type(0), x * g)
        return _make(gi, grad_output._dtype), _make(gw, grad_output._dtype)
    return tuple(pw([grad_output, self, weight]) for pw in kernels)
