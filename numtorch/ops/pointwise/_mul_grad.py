"""mul's backward formula when one factor is broadcast (outer, ger, kron, prelu-like composites):
the product in NumPy where nothing can tell it from the op."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, _make
from .._formula_np import plain

# Note [Broadcast product in mul's formula]
# mul's gradient is grad * other, with grad of the output's shape and other often broadcast
# (outer is self.reshape(-1, 1) * vec2; kron multiplies two reshaped views). The elementwise
# kernel's strided route for a broadcast operand costs ~15 us more than a same-shape product at
# tens of elements, so when Note [Backward formulas in NumPy]'s gate holds (no graph being built,
# no dispatch mode, no forward AD, plain CPU float32/float64 tensors of at most SMALL elements),
# both factors have one dtype and grad is C-contiguous, the product is np.multiply into a
# C-order array: the same correctly rounded products in the same dtype and layout (the kernel
# writes a C-order result, and so does PyTorch's for a C-contiguous grad of the output's shape).
# The engine then sums it down to the input's shape as before.


def product(grad, other, fallback):
    """grad * other, the one formula of mul's two inputs (``fallback`` is the op call)."""
    if (
        other.__class__ is Tensor
        and grad.__class__ is Tensor
        and grad._data.shape != other._data.shape
        and grad._dtype is other._dtype
        and grad._data.flags.c_contiguous
        and plain(grad, other)
    ):
        g = grad._data
        out = np.empty(g.shape, g.dtype)
        np.multiply(g, other._data, out=out)
        return _make(out, grad._dtype)
    return fallback(grad, other)
