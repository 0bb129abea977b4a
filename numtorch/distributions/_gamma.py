"""Standard gamma samples with the implicit reparameterisation gradient.

# Note [Implicit gamma gradient]
# A gamma sample x ~ Gamma(alpha, 1) keeps its CDF value u = P(alpha, x) fixed as alpha moves,
# so dx/dalpha = -(dP/dalpha)(alpha, x) / p(x; alpha) (Figurnov et al. 2018; PyTorch's
# _standard_gamma_grad computes the same quantity with series approximations). Here P, the
# regularised lower incomplete gamma function, is evaluated by its power series below alpha + 1
# and by Lentz's continued fraction above, and dP/dalpha by a central difference in alpha
# (relative step 1e-5: about 1e-9 relative error in float64). The gradient is used once per
# backward pass; it is not itself differentiable (no double backward through a gamma sample).
"""

from __future__ import annotations

import math

import numpy as np

_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma(a):
    return _LGAMMA(a).astype(np.float64)


def regularized_gamma_p(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) for a > 0, x >= 0 (float64, elementwise, broadcast)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.zeros(a.shape)
    pos = x > 0
    series = pos & (x < a + 1)
    if series.any():
        aa, xx = a[series], x[series]
        term = 1.0 / aa
        total = term.copy()
        ap = aa.copy()
        for _ in range(500):
            ap += 1
            term = term * xx / ap
            total += term
            if np.all(np.abs(term) < np.abs(total) * 1e-17):
                break
        out[series] = total * np.exp(-xx + aa * np.log(xx) - _lgamma(aa))
    cf = pos & ~series
    if cf.any():
        aa, xx = a[cf], x[cf]
        tiny = 1e-300
        b = xx + 1 - aa
        c = np.full(aa.shape, 1 / tiny)
        d = 1 / b
        h = d.copy()
        for i in range(1, 500):
            an = -i * (i - aa)
            b = b + 2
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1 / d
            delta = d * c
            h = h * delta
            if np.all(np.abs(delta - 1) < 1e-16):
                break
        out[cf] = 1 - np.exp(-xx + aa * np.log(xx) - _lgamma(aa)) * h
    return out


def standard_gamma_grad(x: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """dx/dalpha of a standard gamma sample at fixed CDF value (Note [Implicit gamma gradient])."""
    x, alpha = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(alpha, np.float64))
    h = 1e-5 * np.maximum(alpha, 1e-3)
    dp = (regularized_gamma_p(alpha + h, x) - regularized_gamma_p(np.maximum(alpha - h, 1e-300), x)) / (2 * h)
    logpdf = (alpha - 1) * np.log(np.maximum(x, 1e-300)) - x - _lgamma(alpha)
    return -dp / np.exp(logpdf)


def _function():
    from ..autograd import Function

    class _StandardGamma(Function):
        @staticmethod
        def forward(ctx, alpha):
            from .._random import generator_of
            from .._tensor import _make

            a = alpha.detach().numpy().astype(np.float64)
            x = generator_of(None).standard_gamma(a)
            # float32 samples can round to 0 for tiny alpha; keep them in the support (PyTorch clamps too)
            tiny = np.finfo(alpha.dtype.np).tiny
            res = _make(np.ascontiguousarray(np.maximum(x, tiny).astype(alpha.dtype.np)), alpha.dtype)
            ctx.save_for_backward(alpha, res)
            return res

        @staticmethod
        def backward(ctx, grad):
            from .._tensor import _make

            alpha, x = ctx.saved_tensors
            g = standard_gamma_grad(x.detach().numpy(), alpha.detach().numpy())
            return grad * _make(np.ascontiguousarray(g.astype(alpha.dtype.np)), alpha.dtype)

    return _StandardGamma


_FN: list = []


def standard_gamma(alpha):
    """Samples of Gamma(alpha, 1), differentiable in ``alpha`` (Note [Implicit gamma gradient])."""
    if not _FN:
        _FN.append(_function())
    return _FN[0].apply(alpha)
