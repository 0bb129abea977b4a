"""The strided route of Note [Reduction fast path]: a reduction whose input is not C-contiguous
(a transpose, a slice, an expanded gradient) or whose dims are a tuple."""

# Note [Strided reduction plan]
# x.t().sum(), g.sum((0, 2), keepdim=True) (the engine's _sum_to of a broadcast input's
# gradient) and the sum of an expanded tensor took the binding's body: dispatch, fold, dims_arg,
# layout's sort of the strides, restore (~10 us at 48 elements, against 2 us for a contiguous
# x.sum()). What layout does to an input depends only on its shape, its strides and the reduced
# dims (_reduce.layout_plan: which transpose, whether it is copied, (outer, R, inner), the kept
# dims' order), and restore's only on those and keepdim, so reduce_fast keeps both per
# (shape, strides, dims, keepdim) in the dtype's learned entry and runs them: the same block
# (the same transpose and copy), the same serial row/col kernel through its compiled entry, the
# same reorder of the result: the body's values bit for bit. Below PARALLEL_THRESHOLD elements
# only (the body may pick a parallel kernel from there on). A tuple of dims is taken when each is
# an exact int (True or 1.0 hash as a cached 1) and nothing is recorded (its recording goes
# through the body); a dims tuple the body refuses (out of range, repeated) is not kept and the
# body raises.

from __future__ import annotations

import numpy as np

from . import _reduce as E

_empty = np.empty
_asc = np.ascontiguousarray


def strided(e: list, comb, a: np.ndarray, dim, keepdim: bool):
    """The reduction's result array of a non-empty aligned ndarray ``a`` of ``e``'s dtype over
    ``dim`` (None: every dim, keepdim False; an int; a tuple of ints), or None for the body."""
    if dim.__class__ is tuple:
        for d in dim:  # True or 1.0 would hash as a kept 1
            if d.__class__ is not int:
                return None
    plans = e[5]
    key = (a.shape, a.strides, dim, keepdim)
    p = plans.get(key)
    if p is None:
        p = _plan(plans, key, a, dim, keepdim)
        if p is None:
            return None
    axes, copy, outer, R, inner, kshape, order, shape = p
    b = a if axes is None else a.transpose(axes)
    x = (_asc(b) if copy else b).reshape(-1)
    r = _empty(outer * inner, e[3])
    if inner == 1:
        e[0](x, r, outer, R)
    else:
        k = e[1]
        if k is None:
            k = E._learn_col(comb, e)
        k(x, r, outer, R, inner, min(inner, 1024))
    if order is None:
        return r.reshape(shape)
    return _asc(r.reshape(kshape).transpose(order)).reshape(shape)


def _plan(plans: dict, key, a: np.ndarray, dim, keepdim: bool):
    # layout_plan and restore's reorder of ``a`` over ``dim``; None where the body raises
    try:
        dims = E.dims_arg(dim, a.ndim)
    except (IndexError, RuntimeError, TypeError):
        return None
    axes, copy, outer, R, inner, kept = E.layout_plan(a, dims)
    shape = E.out_shape(a.shape, dims, keepdim)
    kshape = order = None
    if kept != sorted(kept):  # restore's transpose back to the kept dims' order
        kshape = tuple([a.shape[k] for k in kept])
        order = tuple(sorted(range(len(kept)), key=lambda i: kept[i]))
    if len(plans) > 512:
        plans.clear()
    p = plans[key] = (
        None if axes is None else tuple(axes),
        copy,
        outer,
        R,
        inner,
        kshape,
        order,
        shape,
    )
    return p
