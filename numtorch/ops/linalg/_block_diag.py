"""block_diag's CPU kernel and derivative: PyTorch's block_diag is CompositeExplicitAutograd with
its own formula (block_diag_backward), so one node slices each input's block out of the gradient
instead of the decomposition's zeros and cats recording three ops per input."""

from __future__ import annotations

from ..shape.core import _c
from ..shape.core import view as _view
from ..shape.views import slice as _slice
from . import _fast_small as _fs


def cpu(tensors, composite):
    """The CPU kernel: the fast call's zeroed array written block by block where every input is
    a plain tensor of one dtype (its copy is the cat's); ``composite`` (the decomposition)
    otherwise and for its errors."""
    r = _fs.block_diag(tensors)
    return composite(tensors) if r is None else r


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
