"""The fast calls of F.lp_pool1d/2d/3d (Note [Power-average pool fast calls])."""

from __future__ import annotations

import math

import numpy as np

from ..._dispatch import dispatch
from .._fast_guard import or_body, params
from . import fast_nn as _FN

# Note [Power-average pool fast calls]
# lp_pool is PyTorch's composite: avg_pool(x.pow(p)), then (sign(out) * relu(abs(out)))
# .mul(window).pow(1/p) - eight dispatched ops and the public avg_pool's parsing, 27-37 us on a
# small input where PyTorch takes 18-22. For a plain float32/float64 input (fast_nn._plain)
# and int kernel sizes this runs the same pow ops, the avg pool's planned fast call (Note
# [Pool plans]: the op's kernel and arguments) and, in NumPy on the pooled array the call
# owns, sign(out) * relu(abs(out)) and the multiplication by the window: the former is out
# itself but for zeros and NaNs, whose sign bit it clears (sign(-0.0) is 0; NaN * NaN keeps
# the first operand's payload with abs's cleared sign), i.e. abs(out) there; the latter is one
# IEEE product by the int window (exact in the dtype), as the mul kernel's. Anything else
# (another dtype, a mode, a gradient to record, a tuple kernel for lp_pool1d, a non-number
# norm_type or 0) takes the body.
_POW = None  # aten.pow.Tensor_Scalar, bound on first use (the op table is filled by then)


def _pow(t, e):
    global _POW
    if _POW is None:
        from ..._ops import ops

        _POW = ops.aten.pow.Tensor_Scalar
    return dispatch(_POW, [t, e])


def _finish(pooled, window, norm_type):
    r = pooled._data
    zero_or_nan = (r == 0) | (r != r)
    np.abs(r, out=r, where=zero_or_nan)
    r *= window
    return _pow(pooled, 1.0 / norm_type)


def _window(kernel_size, n):
    """The window's element count where the body's parsing takes ``kernel_size`` as ints."""
    c = kernel_size.__class__
    if c is int:
        return kernel_size**n
    if n > 1 and (c is tuple or c is list) and len(kernel_size) == n:
        for k in kernel_size:
            if k.__class__ is not int:
                return None
        return math.prod(kernel_size)
    return None


def _lp(n, pool_maker, pool_op):
    # the avg pool's fast call; its body is the op with the stride the lp body passes it
    pool = pool_maker(lambda x, k, s, *rest: dispatch(pool_op(), [x, k, [] if s is None else s, *rest]))

    def fast(input, norm_type, kernel_size, stride, ceil_mode):
        c = norm_type.__class__
        if not ((c is float or c is int) and norm_type != 0 and ceil_mode.__class__ is bool and _FN._plain(input)):
            return None
        window = _window(kernel_size, n)
        if window is None:
            return None
        xp = _pow(input, norm_type)
        if n == 1:
            pooled = pool(xp, kernel_size, stride, 0, ceil_mode, True)
        else:
            pooled = pool(xp, kernel_size, stride, 0, ceil_mode, True, None)
        return _finish(pooled, window, norm_type)

    return fast


def install(bindings) -> None:
    """Attach the fast calls (numtorch/__init__.py, before _api.install)."""
    from . import pooling as P
    from . import pooling3d as P3

    pools = {"lp_pool1d": (1, _FN._make_avg_pool1d, lambda: P.avg_pool1d),
             "lp_pool2d": (2, _FN._make_avg_pool2d, lambda: P.avg_pool2d),
             "lp_pool3d": (3, _FN._make_avg_pool3d, lambda: P3.avg_pool3d)}  # fmt: skip
    for b in bindings:
        if b.module == "torch.nn.functional" and b.name in pools and b.fast is None:
            b.fast = (or_body(_lp(*pools[b.name]), b.body), params(b.sig))
