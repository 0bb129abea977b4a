"""The fast call of F.max_unpool1d/2d/3d (Note [Max unpool fast call])."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import _make, _view
from ...kernels import lazy
from . import fast_nn as _FN
from .unpool_node import place

_KR = lazy("numtorch.kernels.cpu.reduction.core")

# Note [Max unpool fast call]
# max_unpool is at::max_unpooling's composite here: the output size's arithmetic, a dtype and
# a shape check, unsqueeze/reshape views, min() and max() of the indices (two dispatched
# reductions), new_zeros, scatter along the flattened planes and the reshape/squeeze views
# back: 24-42 us on a small input where PyTorch takes 7-10. For a plain float32/float64 input
# (fast_nn._plain) with plain int64 indices of its shape, int (or tuples of int) kernel_size,
# stride and padding and no output_size, the call runs the same steps on the arrays: one
# minmax_all pass over the indices (out of range: the body runs and raises), the planes'
# flat offsets and one NumPy assignment into zeros (unpool_node.place: the body's kernel,
# Note [max_unpool's own node], makes the same call). The result is, as the body's, a new
# tensor (the 1-d form: a view, the body's squeeze(-1) of max_unpool2d's (N, C, L, 1) result).
# Anything else takes the body.
_I64 = D.int64
_SIZES: dict = {}  # (input shape, k, s, p as int tuples) -> _sizes'


def _ints(v, n):
    c = v.__class__
    if c is int:
        return (v,) * n
    if c is tuple or c is list:
        if len(v) != n:
            return None
        for x in v:
            if x.__class__ is not int:
                return None
        return tuple(v)
    return None


def _sizes(shape, n, k, s, p):
    """(output spatial sizes, volume) of the body's default output size, or False where empty."""
    size = tuple((shape[-n + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(n))
    return (size, math.prod(size)) if min(size) >= 1 else False


def _unpool(n):
    def fast(input, indices, kernel_size, stride, padding, output_size):
        a, i = input._data, indices._data
        if not (output_size is None and indices._dtype is _I64 and a.shape == i.shape and a.size
                and (a.ndim == n + 1 or a.ndim == n + 2) and _FN._plain(input) and _FN._plain_any(indices)):  # fmt: skip
            return None
        k, p = _ints(kernel_size, n), _ints(padding, n)
        st = k if stride is None else _ints(stride, n)
        if k is None or st is None or p is None:
            return None
        key = (a.shape, k, st, p)
        g = _SIZES.get(key)
        if g is None:
            if len(_SIZES) >= 256:
                _SIZES.clear()
            g = _SIZES[key] = _sizes(a.shape, n, k, st, p)
        if g is False:
            return None
        size, volume = g
        ii = i.ravel()
        mm = np.empty(2, np.int64)
        _KR.minmax_all(ii, mm)
        if mm[0] < 0 or mm[1] >= volume:
            return None
        res = place(a, ii, a.size // math.prod(a.shape[-n:]), volume).reshape(a.shape[:-n] + size)
        if n != 1:
            return _make(res, input._dtype)
        # the body's squeeze(-1) of max_unpool2d's (N, C, L, 1) result
        return _view(_make(res.reshape(res.shape + (1,)), input._dtype), res)

    return fast


def install(bindings) -> None:
    """Attach the fast calls (numtorch/__init__.py, before _api.install)."""
    from .._fast_guard import or_body, params

    for b in bindings:
        if b.module == "torch.nn.functional" and b.name in ("max_unpool1d", "max_unpool2d", "max_unpool3d") \
                and b.fast is None:  # fmt: skip
            b.fast = (or_body(_unpool(int(b.name[-2])), b.body), params(b.sig))
