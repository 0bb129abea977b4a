"""OpInfos for numtorch/ops/pointwise/special.py: lgamma, digamma, erfinv, angle, logcumsumexp,
histc and the ``torch.special`` names. References use only ``math`` and NumPy (series written
here); polygamma, whose order comes first, is checked in tests/ops/pointwise/test_special.py."""

from __future__ import annotations

import math

import numpy as np

from ..core import FLOATS
from .core import INTS_FLOATS, _op, binary, f64, unary, with_kwargs

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


# ---- numtorch/ops/pointwise/special_fns.py: references from math and NumPy only -------------------
def _vec(fn):
    return f64(np.vectorize(fn, otypes=[np.float64]))


def _i1_series(x):
    # (x/2) sum_k (x^2/4)^k / (k! (k+1)!) for moderate x (the samples stay in [-9, 9])
    q, t, s, k = x * x / 4, x / 2, x / 2, 1
    while abs(t) > 1e-18 * abs(s) and k < 500:
        t *= q / (k * (k + 1))
        s += t
        k += 1
    return s


def _ndtr1(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _ndtri1(p):
    x = 0.0
    for _ in range(200):  # Newton on ndtr from 0; the samples keep p in [0.02, 0.98]
        x -= (_ndtr1(x) - p) / (math.exp(-x * x / 2) / math.sqrt(2 * math.pi))
    return x


def _entr1(x):
    return -x * math.log(x) if x > 0 else (0.0 if x == 0 else -math.inf)


def _xlog1py(a, b):
    return np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log1p(b))


def _mvlgamma(a, p):
    a = np.asarray(a, np.float64)
    return sum(np.vectorize(math.lgamma, otypes=[np.float64])(a - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)


_I0 = f64(np.i0)
_add(_op("i0", _I0, unary(-9, 9), INTS_FLOATS, tol=_TOL))
_add(_op("special.i0", _I0, unary(-9, 9), FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("special.modified_bessel_i0", _I0, unary(-9, 9), FLOATS, method=False, inplace=False, grad=False, tol=_TOL))
_add(_op("special.i0e", f64(lambda a: np.i0(a) * np.exp(-np.abs(a))), unary(-9, 9), INTS_FLOATS, method=False, inplace=False,
         tol=_TOL))  # fmt: skip
for _n in ("i1", "modified_bessel_i1"):
    _add(_op(f"special.{_n}", _vec(_i1_series), unary(-9, 9), FLOATS, method=False, inplace=False, tol=_TOL,
             grad=_n == "i1"))  # fmt: skip
_add(_op("special.i1e", _vec(lambda x: _i1_series(x) * math.exp(-abs(x))), unary(-9, 9), FLOATS, method=False,
         inplace=False, tol=_TOL))  # fmt: skip
_add(_op("special.spherical_bessel_j0", f64(lambda a: np.sinc(a / np.pi)), unary(-9, 9), FLOATS, method=False,
         inplace=False, grad=False, tol=_TOL))  # fmt: skip
_add(_op("special.ndtr", _vec(_ndtr1), unary(-5, 5), INTS_FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("special.log_ndtr", _vec(lambda x: math.log(_ndtr1(x))), unary(-5, 5), FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("special.ndtri", _vec(_ndtri1), unary(0.02, 0.98), FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("special.entr", _vec(_entr1), unary(0.05, 5), FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("special.erfcx", _vec(lambda x: math.exp(x * x) * math.erfc(x)), unary(-3, 5), FLOATS, method=False,
         inplace=False, tol=_TOL))  # fmt: skip
_add(_op("special.xlog1py", f64(_xlog1py), binary(-3, 3, 0, 4), FLOATS, method=False, inplace=False, tol=_TOL))
_add(_op("mvlgamma", _mvlgamma, with_kwargs(unary(2, 6), {"p": 1}, {"p": 3}), FLOATS, tol=_TOL))
_add(_op("special.multigammaln", _mvlgamma, with_kwargs(unary(2, 6), {"p": 2}), FLOATS, method=False, inplace=False,
         tol=_TOL))  # fmt: skip


def _poly(kind):
    from numpy.polynomial import chebyshev as C, hermite as H, hermite_e as HE, laguerre as L, legendre as P

    def ref(x, n):
        x = np.asarray(x, np.float64)
        n = np.broadcast_to(np.trunc(np.asarray(n, np.float64)), np.broadcast(x, n).shape)
        x = np.broadcast_to(x, n.shape)
        out = np.empty(n.shape)
        for i in np.ndindex(n.shape):
            k = int(n[i])
            c = np.zeros(max(k, 0) + 1)
            c[-1] = 1.0 if k >= 0 else 0.0
            xi = x[i]
            if kind in ("t", "u", "v", "w"):
                def u(m):  # U_m = T_{m+1}' / (m + 1)
                    if m < 0:
                        return 0.0
                    d = np.zeros(m + 2)
                    d[-1] = 1.0
                    return C.chebval(xi, C.chebder(d)) / (m + 1)

                if k < 0:
                    out[i] = 0.0
                elif kind == "t":
                    out[i] = C.chebval(xi, c)
                elif kind == "u":
                    out[i] = u(k)
                else:  # V_k = U_k - U_{k-1}, W_k = U_k + U_{k-1}
                    out[i] = u(k) - u(k - 1) if kind == "v" else u(k) + u(k - 1)
            else:
                mod = {"h": H.hermval, "he": HE.hermeval, "l": L.lagval, "p": P.legval}[kind]
                out[i] = mod(xi, c) if k >= 0 else 0.0
        return out

    return ref


def _shifted(ref):
    return lambda x, n: ref(2 * np.asarray(x, np.float64) - 1, n)


for _n, _k in (("chebyshev_polynomial_t", "t"), ("chebyshev_polynomial_u", "u"), ("chebyshev_polynomial_v", "v"),
               ("chebyshev_polynomial_w", "w"), ("hermite_polynomial_h", "h"), ("hermite_polynomial_he", "he"),
               ("laguerre_polynomial_l", "l"), ("legendre_polynomial_p", "p")):  # fmt: skip
    _add(_op(f"special.{_n}", _poly(_k), binary(-0.9, 0.9, 0, 6, fscalar=3.0, iscalar=4), FLOATS, method=False,
             inplace=False, grad=False, tol=_TOL))  # fmt: skip
    if _k in ("t", "u", "v", "w"):
        _add(_op(f"special.shifted_{_n}", _shifted(_poly(_k)), binary(0.05, 0.95, 0, 6, fscalar=3.0, iscalar=4), FLOATS,
                 method=False, inplace=False, grad=False, tol=_TOL))  # fmt: skip


# ---- Bessel J, Y and Airy Ai: references from their integral and power-series definitions -------
def _bessel_j(n):
    # J_n(x) = (1/2pi) int_0^2pi cos(n t - x sin t) dt: the trapezoidal rule on a full period
    # converges geometrically
    t = np.linspace(0.0, 2 * np.pi, 256, endpoint=False)
    return _vec(lambda x: float(np.mean(np.cos(n * t - x * np.sin(t)))))


def _simpson(y, h):
    return h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())


def _bessel_y(n):
    # Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^{nt} + (-1)^n e^{-nt}) e^{-x sinh t} dt
    def one(x):
        t = np.linspace(0.0, np.pi, 4001)
        first = _simpson(np.sin(x * np.sin(t) - n * t), t[1])
        u = np.linspace(0.0, math.asinh(60.0 / x), 8001)
        second = _simpson((np.exp(n * u) + (-1) ** n * np.exp(-n * u)) * np.exp(-x * np.sinh(u)), u[1])
        return (first - second) / math.pi

    return _vec(one)


def _airy_ai1(x):
    # Ai(x) = c1 f(x) - c2 g(x), f and g the power series of Abramowitz and Stegun 10.4.2-10.4.3
    c1, c2 = 0.355028053887817239260, 0.258819403792806798405
    f = g = 0.0
    tf, tg, k = 1.0, x, 0
    while k < 200 and (abs(tf) > 1e-18 or abs(tg) > 1e-18):
        f += tf
        g += tg
        tf *= x**3 / ((3 * k + 2) * (3 * k + 3))
        tg *= x**3 / ((3 * k + 3) * (3 * k + 4))
        k += 1
    return c1 * f - c2 * g


for _n, _ref, _lo in (("bessel_j0", _bessel_j(0), -9), ("bessel_j1", _bessel_j(1), -9), ("bessel_y0", _bessel_y(0), 0.5),
                      ("bessel_y1", _bessel_y(1), 0.5), ("airy_ai", _vec(_airy_ai1), -5)):  # fmt: skip
    _add(_op(f"special.{_n}", _ref, unary(_lo, 9 if _n != "airy_ai" else 5), FLOATS, method=False, inplace=False,
             grad=False, tol=_TOL))  # fmt: skip
