"""index_select's backward: PyTorch's index_select_backward (zeros of the input's size with the
gradient index-added along ``dim``), in NumPy where nothing can tell it from its ops."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import _make
from .. import _formula_np as _fnp
from .core import K, _d


# Note [index_select's gradient in NumPy]
# The formula was a new_zeros and an out-of-place index_add (which copies the zeros, checks
# the dim, dtypes, shapes and index bounds again, then runs K.add_slabs): ~10 us a node at
# tens of elements, three nodes in a 3-d reflect/replicate pad. Under Note [Backward formulas
# in NumPy]'s gate, with a C-contiguous gradient of the input's rank and a 1-d int64 index (the
# forward checked the bounds), it is np.zeros and the same add_slabs call: the same sums in
# the same order, the same C-ordered result. Otherwise (a graph being built, a mode, forward
# AD, other dtypes, a 0-d input) the ops as before.
def backward(grad, self_sym_sizes, dim, index, index_add):
    shape = tuple(self_sym_sizes)
    g, i = grad._data, index._data
    if (shape and g.ndim == len(shape) and i.ndim == 1 and i.dtype == np.int64 and g.flags.c_contiguous
            and _fnp.plain(grad)):  # fmt: skip
        d = dim % len(shape)
        out = np.zeros(shape, g.dtype)
        if out.size and g.size:
            outer, inner = math.prod(shape[:d]), math.prod(shape[d + 1 :])
            K.add_slabs(out.reshape(-1), g.reshape(-1), i, outer, shape[d], inner, 0)
        return _make(out, grad._dtype)
    return _d(index_add, grad.new_zeros(shape), dim, index, grad, 1)
