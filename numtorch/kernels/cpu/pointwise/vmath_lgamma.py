"""float32 lgamma as branch-free float64 pieces that LLVM vectorises (Note [Vectorizable lgamma]);
float64 keeps libm's.

# Note [Vectorizable lgamma]
# libm's lgamma is a scalar call (9 ns per element). For a float32 x, in float64: y = x for
# x > 0, else 1 - x (exact) for the reflection lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x),
# sin(pi x) by vmath_sinc's exact reduction (0 at the poles: inf). lgamma(y) for y >= 8 is
# Stirling's series to 1/y**13 (error below 1e-15); below 8 the recurrence moves y into
# [1, 2) (u = y + 1 for y < 1, then u - 1, u - 2, ... with the product of the factors taken
# unconditionally, each 1 where it does not apply), where lgamma(u) = (u - 1)(u - 2) G(u): the
# roots' factors are explicit, so the result keeps its relative accuracy next to 1 and 2; G is
# degree 16 in 2u - 3 (Chebyshev interpolation of mpmath's values; rel error 1e-14). The
# Stirling and recurrence results are both computed in each lane and one selected.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline
from numtorch.kernels.cpu.pointwise.special import lgamma
from numtorch.kernels.cpu.pointwise.vmath import _generic
from numtorch.kernels.cpu.pointwise.vmath_log import log64
from numtorch.kernels.cpu.pointwise.vmath_sinc import _sinpi_reduced

_HALF_LOG_2PI = 0.9189385332046728
_PI = 3.141592653589793


@contract_helper
def _lgamma_12(u):
    # lgamma(u) for 1 <= u <= 2
    z = 2.0 * u - 3.0
    p = 1.0203875004865458e-09 * z - 3.1477053319614964e-09
    p = p * z + 5.66224418088028e-09
    p = p * z - 1.8477055709264125e-08
    p = p * z + 6.705880391243209e-08
    p = p * z - 2.1593716212090145e-07
    p = p * z + 6.943442076594479e-07
    p = p * z - 2.2731228952340975e-06
    p = p * z + 7.511567994636415e-06
    p = p * z - 2.5094671762731627e-05
    p = p * z + 8.510086899309033e-05
    p = p * z - 0.0002945506462678129
    p = p * z + 0.0010498186678746812
    p = p * z - 0.003913560941609257
    p = p * z + 0.015727850268511798
    p = p * z - 0.07297994795706947
    p = p * z + 0.4831289505409817
    return p * ((u - 1.0) * (u - 2.0))


@contract_helper
def _stirling_tail(y):
    # lgamma(y) - ((y - 1/2) log(y) - y + log(2 pi) / 2) for y >= 8
    r = 1.0 / y
    w = r * r
    s = w * (1.0 / 156.0) - 691.0 / 360360.0
    s = s * w + 1.0 / 1188.0
    s = s * w - 1.0 / 1680.0
    s = s * w + 1.0 / 1260.0
    s = s * w - 1.0 / 360.0
    s = s * w + 1.0 / 12.0
    return s * r


@inline
def _lgamma_pos(y):
    # lgamma(y) for y > 0 (finite)
    big = y >= 8.0
    u = y + 1.0 if y < 1.0 else y
    q = 1.0 / y if y < 1.0 else 1.0  # lgamma(y) = lgamma(y + 1) - log(y)
    for _ in range(6):  # u in [2, 8): down to [1, 2), multiplying q by each u - 1
        step = u >= 2.0
        q = q * (u - 1.0) if step else q
        u = u - 1.0 if step else u
    lg = log64(y if big else q)
    small = _lgamma_12(min(max(u, 1.0), 2.0)) + lg
    large = (y - 0.5) * lg - y + _HALF_LOG_2PI + _stirling_tail(max(y, 8.0))
    return large if big else small


@inline
def lgamma32(x):
    d = np.float64(x)
    neg = d <= 0.0
    y = 1.0 - d if neg else d
    y = min(y, 1e300)  # +-inf: finite here, inf below
    lg = _lgamma_pos(y)
    n = np.floor(d + 0.5)
    s = abs(_sinpi_reduced(d - n))
    r = log64(_PI / s) - lg if neg else lg  # a pole: s = 0, log(inf) = inf
    r = np.inf if abs(d) == np.inf else r
    return np.float32(r) if x == x else x


def vlgamma(x):
    return lgamma(x)


_generic(vlgamma, lgamma32, None, lambda x: lgamma(x))
