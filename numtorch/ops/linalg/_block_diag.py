"""block_diag's CPU kernel and derivative: PyTorch's block_diag is CompositeExplicitAutograd with
its own formula (block_diag_backward), so one node slices each input's block out of the gradient
instead of the decomposition's zeros and cats recording three ops per input."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import _make
from ..shape.core import _c
from ..shape.core import view as _view
from ..shape.views import slice as _slice


def cpu(tensors, composite):
    """The CPU kernel: one zeroed array written block by block where every input has one dtype
    (NumPy's copy is the cat's); ``composite`` (the decomposition) otherwise and for its errors."""
    if not tensors:
        return composite(tensors)
    dt = tensors[0]._dtype
    if dt is D.bfloat16:
        return composite(tensors)
    mats, rows, cols = [], 0, 0
    for t in tensors:
        a = t._data
        if t._dtype is not dt or a.ndim > 2:
            return composite(tensors)
        if a.ndim < 2:
            a = a.reshape(1, -1)
        mats.append(a)
        rows += a.shape[0]
        cols += a.shape[1]
    out = np.zeros((rows, cols), dt.np)
    r = c = 0
    for a in mats:
        h, w = a.shape
        out[r : r + h, c : c + w] = a
        r += h
        c += w
    return _make(out, dt)


def backward(grad, tensors_sym_sizes):
    """block_diag_backward: each input's block of ``grad``, a view of it in the input's shape
    (the engine casts it to the input's dtype)."""
    out, r, c = [], 0, 0
    for shape in tensors_sym_sizes:
        h, w = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0] if shape else 1)
        g = _c(_slice, _c(_slice, grad, 0, r, r + h, 1), 1, c, c + w, 1)
        out.append(g if len(shape) == 2 else _c(_view, g, list(shape)))
        r += h
        c += w
    return out
