"""float32 sinc as a branch-free float64 sin(pi x) that LLVM vectorises (Note [Vectorizable sinc]).

# Note [Vectorizable sinc]
# sinc's expression multiplies by np.pi, a float64 constant, so its float32 kernel ran libm's
# scalar float64 sin (10 ns per element). sinc32 reduces in float64 instead: x = n + r with n
# the nearest integer and |r| <= 1/2, both exact for a float32 x; sin(pi x) = (-1)^n sin(pi r),
# sin(pi r) = r * P(r*r), P degree 8 in 8 r*r - 1 (Chebyshev interpolation of mpmath's values;
# rel error 3e-16), divided by pi x in float64 and rounded once. The reduction is exact where
# sin(x * pi) is not (x * pi rounds), so near the integers the result keeps its relative
# accuracy, and sinc(n) = 0 exactly at nonzero integers (also every float32 of magnitude
# >= 2**23). float64 keeps the expression (scalar.py's sinc_real).
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline
from numtorch.kernels.cpu.pointwise.scalar import sinc_real
from numtorch.kernels.cpu.pointwise.vmath import _generic

_PI = 3.141592653589793


@contract_helper
def _sinpi_reduced(r):
    # sin(pi r) for |r| <= 1/2
    z = 8.0 * r * r - 1.0
    p = 4.588274523967674e-14 * z - 1.0077340315799801e-11
    p = p * z + 1.7069665378821027e-09
    p = p * z - 2.1447169597692547e-07
    p = p * z + 1.8956829192485415e-05
    p = p * z - 0.001092432005489253
    p = p * z + 0.03645310559709345
    p = p * z - 0.5697036803076341
    p = p * z + 2.534324262661598
    return r * p


@inline
def sinc32(x):
    d = np.float64(x)
    n = np.floor(d + 0.5)  # exact: a float32 has no bits below 2**-1 once |d| >= 2**23
    s = _sinpi_reduced(d - n)
    s = -s if n - 2.0 * np.floor(0.5 * n) != 0.0 else s
    r = 1.0 if d == 0.0 else s / (d * _PI) + 0.0  # + 0.0: sinc is even, its zeros +0
    return np.float32(r)


def vsinc_real(x):
    return sinc_real(x)


_generic(vsinc_real, sinc32, None, lambda x: sinc_real(x))
