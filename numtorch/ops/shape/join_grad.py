"""The backward formulas of cat and stack (CatBackward0, StackBackward0): pieces of the
gradient, as views."""

from __future__ import annotations

import numpy as np

from ..._tensor import _make, _view, _wrap_dim
from .. import _formula_np as _fnp
from .core import _c
from .views import select as _select
from .views import slice as _slice

# Note [Join gradients as views]
# PyTorch's CatBackward0 saves only its inputs' sizes and dtypes (derivatives.yaml's
# tensors_args_sizes, tensors_args_scalartypes) and returns narrow views of the gradient;
# StackBackward0 returns unbind's select views. cat here saved the input tensors themselves: a
# SavedTensor per input forward and an unpack (and version check) per input backward, and a
# backward after an input was modified in place raised where PyTorch's runs. It now saves their
# sizes alone (Note [Saving sizes only]; the engine casts a piece to its input's dtype, as
# validate_outputs does after cat_tensors_backward). Each piece was one dispatched
# slice/select (~1.5 us each, most of the node's apply); under Note [Backward formulas in
# NumPy]'s gate (nothing can see the formula's ops) a piece is that op's own view made
# directly: the same NumPy basic slice of the gradient's array and _view, so sizes, strides,
# offset, base and version counter are slice/select's. An empty piece (whose offset NumPy
# drops and slice's kernel restores) and anything outside the gate take the ops, which a mode sees as aten.slice / aten.select.
_FULL = slice(None)


def _legacy_empty(size) -> bool:
    return len(size) == 1 and size[0] == 0


def _cat_views(grad, sizes, d):
    """The pieces as slice's views, or None where one must be made by the ops."""
    a = grad._data
    lead, out, start = (_FULL,) * d, [], 0
    for size in sizes:
        if _legacy_empty(size):
            out.append(_make(np.zeros((0,), a.dtype), grad._dtype))
            continue
        n = size[d]
        if not n:
            return None
        out.append(_view(grad, a[(*lead, slice(start, start + n))]))
        start += n
    return out


def cat_grad(grad, tensors_sym_sizes, dim):
    """cat_tensors_backward: each input's narrow view of ``grad``, zeros for a legacy empty
    input (the engine casts each piece to its input's dtype)."""
    sizes = tensors_sym_sizes
    valid = [s for s in sizes if not _legacy_empty(s)]
    d = _wrap_dim(dim, len(valid[0])) if valid else 0
    if _fnp.plain(grad, any_size=True):
        out = _cat_views(grad, sizes, d)
        if out is not None:
            return out
    out, start = [], 0
    for size in sizes:
        if _legacy_empty(size):
            out.append(grad.new_zeros((0,)))
            continue
        n = size[d]
        out.append(_c(_slice, grad, d, start, start + n, 1))
        start += n
    return out


def stack_grad(grad, dim):
    n = grad.shape[dim]
    if _fnp.plain(grad, any_size=True):
        a = grad._data
        lead = (_FULL,) * _wrap_dim(dim, a.ndim)
        return [_view(grad, a[(*lead, i, Ellipsis)]) for i in range(n)]
    return [_c(_select, grad, dim, i) for i in range(n)]
