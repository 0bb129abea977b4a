"""OpInfos for numtorch/ops/pointwise/special.py: lgamma, digamma, erfinv, angle, logcumsumexp,
histc and the ``torch.special`` names. References use only ``math`` and NumPy (series written
here); polygamma, whose order comes first, is checked in tests/ops/pointwise/test_special.py."""

from __future__ import annotations

import math

import numpy as np

from ..core import FLOATS
from .core import INTS_FLOATS, _op, f64, unary, with_kwargs

_TOL = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}


def _digamma1(x):
    r = 0.0
    while x < 10:
        r -= 1 / x
        x += 1
    z = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z / 132))))


def _erfinv1(y):
    x = 0.0
    for _ in range(100):  # Newton on erf from 0: monotone convergence on |y| < 1
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def _lcse_ref(a, dim):
    a = np.asarray(a)
    return a.copy() if a.ndim == 0 or a.size == 0 else np.logaddexp.accumulate(a, axis=dim)


def _histc_ref(a, bins=100, min=0, max=0):
    a = np.asarray(a, np.float64).ravel()
    lo, hi = (float(a.min()), float(a.max())) if min == max and a.size else (float(min), float(max))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a, bins=bins, range=(lo, hi))[0].astype(np.float64)


_LGAMMA = f64(np.vectorize(math.lgamma, otypes=[np.float64]))
_DIGAMMA = f64(np.vectorize(_digamma1, otypes=[np.float64]))
_ERFINV = f64(np.vectorize(_erfinv1, otypes=[np.float64]))
_ANGLE = f64(lambda a: np.where(np.isnan(a), a, np.where(a < 0, np.pi, 0.0)))

OPINFOS: list = []
_add = OPINFOS.extend
_add(_op("lgamma", _LGAMMA, unary(0.1, 9), INTS_FLOATS, tol=_TOL))
_add(_op("digamma", _DIGAMMA, unary(0.5, 9), INTS_FLOATS, tol=_TOL))
_add(_op("erfinv", _ERFINV, unary(-0.9, 0.9), FLOATS, tol=_TOL))
_add(_op("angle", _ANGLE, unary(), INTS_FLOATS, tol=_TOL, gradgrad=False, inplace=False))  # no angle_ in torch
_add(_op("logcumsumexp", _lcse_ref, with_kwargs(unary(-3, 3), {"dim": 0}, {"dim": -1}), FLOATS, inplace=False, tol=_TOL))
_add(_op("histc", _histc_ref, with_kwargs(unary(-3, 3), {"bins": 5}, {"bins": 7, "min": -1, "max": 1}), FLOATS,
         inplace=False, grad=False))  # fmt: skip
for _n, _ref, _lo, _hi in (("gammaln", _LGAMMA, 0.1, 9), ("digamma", _DIGAMMA, 0.5, 9), ("psi", _DIGAMMA, 0.5, 9),
                           ("erfinv", _ERFINV, -0.9, 0.9), ("sinc", f64(np.sinc), -3, 3)):  # fmt: skip
    _add(_op(f"special.{_n}", _ref, unary(_lo, _hi), FLOATS, method=False, inplace=False, tol=_TOL))
