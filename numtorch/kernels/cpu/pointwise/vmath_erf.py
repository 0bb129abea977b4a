"""Vectorizable erf for float32 kernels (Note [Vectorizable exp]).

# Note [Vectorizable erf]
# float32 erf is evaluated in float64 (twice the bits a float32 result needs, so one rounding at
# the end gives <= 1 ulp) from two polynomials, both computed and one selected so that the loop
# has no branch: for |x| < 1, erf(x) = x * P(x*x) (degree 6); for 1 <= |x| < 4,
# erf(x) = 1 - exp(Q(|x|) - x*x) with Q a degree-10 fit of log(erfc(x)) + x*x (smooth, unlike
# erfc itself), and exp from vmath.exp64. Past 4, erf rounds to +-1 in float32. The coefficients
# are least-squares fits on 400 Chebyshev nodes of the mpmath values (max abs error 1.2e-9 and
# 1.9e-9 on the intervals). erf32 is inlined by Numba (@inline): as a separate function with exp64
# inside, it is over LLVM's inlining threshold and the loop stays scalar (measured 15.8 ns/element
# against 3.0); evaluated in float64, fused multiply-adds would not change its result. float64 erf keeps libm's (a float64 fit needs a double-double
# evaluation or a minimax rational: not done yet).
"""

import math

import numpy as np

from numtorch.kernels._jit import inline, scalar_overload
from numtorch.kernels.cpu.pointwise.vmath import exp64


@inline
def erf32(x):
    d = np.float64(x)
    a = abs(d)
    z = d * d
    p = 7.88249708263282e-05 * z - 0.000801885498449554
    p = p * z + 0.005189311941811514
    p = p * z - 0.026854328795705172
    p = p * z + 0.11283597463483974
    p = p * z - 0.376126269035805
    p = p * z + 1.1283791658815028
    small = d * p  # keeps -0 and subnormals' sign
    b = min(max(a, 1.0), 4.0)
    q = -4.1048490487123574e-08 * b + 9.603836823411608e-07
    q = q * b - 8.218785508023266e-06
    q = q * b + 1.2279168094536063e-05
    q = q * b + 0.000376564183171619
    q = q * b - 0.00420608392043164
    q = q * b + 0.025484069776669897
    q = q * b - 0.10902525464221462
    q = q * b + 0.3674181986763856
    q = q * b - 1.129921985614656
    q = q * b + 0.00026400374948365446
    big = 1.0 - exp64(q - b * b)
    big = math.copysign(big, d)
    y = small if a < 1.0 else big
    return np.float32(y)  # NaN: small and big are NaN; |x| >= 4: big is +-1 (exp underflows)


def verf(x):
    return math.erf(x)


@inline
def _m_erf(x):
    return math.erf(x)


@scalar_overload(verf)
def _typer(x):
    if str(x) == "float32":
        return lambda x: erf32(x)
    return lambda x: _m_erf(x)
