"""The elementwise losses' backward ops, called from their formulas, as the one kernel call the
pointwise engine would make (Note [Loss gradients through their kernel])."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, _make
from ...kernels import PARALLEL_THRESHOLD
from .._formula_np import plain
from .._pointwise import _param

# Note [Loss gradients through their kernel]
# mse_loss / smooth_l1_loss / huber_loss / binary_cross_entropy record one node whose formulas
# call <loss>_backward once per input (self and target both require grad in a training step's
# fwd+bwd of two leaves). Each call was a dispatch, the op's CPU function and the pointwise
# engine's general route (dtypes, broadcast, expanded operands, the contiguous route's pattern):
# ~8 us each around a kernel call of ~0.3 us, 60% of a small mse_loss backward. When Note
# [Backward formulas in NumPy]'s gate holds (no graph being built, no dispatch mode, no forward
# AD, plain CPU float32/float64 tensors of at most SMALL elements: below PARALLEL_THRESHOLD,
# so the engine would take its serial "c_" kernels), no kernel is registered over an aten op
# (Note [Fast calls under kernel overrides]: a user's kernel for mse_loss_backward must run), the
# inputs share one dtype and one C-contiguous shape of more than one element and the gradient
# is that shape C-contiguous ("aaa"), one value (0-d or expanded, "saa": the engine squashes an
# expanded operand to its value) or absent from the pattern otherwise, the formula calls that
# same compiled kernel with the arguments the engine passes (the value as _run_contig's
# ``item()``, parameters through _param): the body's bits, dtype and C-order layout. Anything
# else calls the op. Tests: tests/ops/nn/test_loss_grad_kernel.py.
_OVERRIDES = [0]  # _api's count of kernels registered over aten ops, bound on first use
_BOUND = [False]
COUNT = [0]  # formula calls that took the kernel (tests)
PAIR_COUNT = [0]  # pair_kernel calls (tests)


def overridden() -> bool:
    """Whether a kernel is registered over an aten op (bound to _api's count on first use)."""
    if not _BOUND[0]:
        global _OVERRIDES
        from ... import _api

        _OVERRIDES = _api._OVERRIDES
        _BOUND[0] = True
    return _OVERRIDES[0] != 0


def kernel_call(pw, grad, a, b, params, tail=()):
    """``pw([grad, a, b, *tail], params)``'s result by its one kernel call where the gate above
    holds, else None; ``tail`` holds Python floats (the engine's "s" operands)."""
    if grad.__class__ is not Tensor or a.__class__ is not Tensor or b.__class__ is not Tensor:
        return None
    x, y, g = a._data, b._data, grad._data
    dt = a._dtype
    n = x.size
    if not (b._dtype is dt and grad._dtype is dt and x.shape == y.shape and n > 1
            and x.flags.c_contiguous and y.flags.c_contiguous and plain(grad, a, b)):  # fmt: skip
        return None
    if g.shape == x.shape and g.flags.c_contiguous:
        gv, pat = g.reshape(-1), "aa"
    elif g.ndim == 0 or g.shape == x.shape and not any(g.strides):
        gv, pat = g.reshape(-1)[0].item() if g.ndim == 0 else g[(0,) * g.ndim].item(), "sa"
    else:
        return None
    # a float parameter of a float dtype is _param's own result
    pvals = [p if p.__class__ is float else _param(p, dt) for p in params]
    res = np.empty(x.shape, x.dtype)
    kern = pw.kernel("c_" + pat + "a" + "s" * len(tail))
    kern(gv, x.reshape(-1), y.reshape(-1), *tail, res.reshape(-1), *pvals)
    COUNT[0] += 1
    return _make(res, dt)


def negated(t: Tensor) -> Tensor:
    """-t of a result above (neg's kernel flips the sign bit, as np.negative does)."""
    return _make(np.negative(t._data), t._dtype)


_FLOATS = (D.float32, D.float64)


def pair_kernel(pw, a, b, tail=()):
    """``pw([a, b, *tail])`` by the serial contiguous kernel ("c_aa" + "s" per Python float in
    ``tail``) the engine's general route runs for C-contiguous float32/float64 operands of one
    dtype and one shape of 2 to PARALLEL_THRESHOLD elements, else None. For an op's own CPU
    function (binary_cross_entropy's elements), below the dispatcher: the body's bits."""
    x, y, dt = a._data, b._data, a._dtype
    if not (b._dtype is dt and dt in _FLOATS and x.shape == y.shape and 1 < x.size < PARALLEL_THRESHOLD
            and x.flags.c_contiguous and y.flags.c_contiguous):  # fmt: skip
        return None
    res = np.empty(x.shape, x.dtype)
    pw.kernel("c_aa" + "s" * len(tail))(x.reshape(-1), y.reshape(-1), *tail, res.reshape(-1))
    PAIR_COUNT[0] += 1
    return _make(res, dt)
