"""Vectorizable exp, expm1, tanh and sigmoid for float32 and float64 kernels.

# Note [Vectorizable exp]
# Numba's exp/tanh on floats are scalar libm calls (PyPI's llvmlite has no SVML), so a loop over
# them never uses vector registers and runs 5-30x slower than PyTorch's SLEEF kernels. These
# versions are written with selects, polynomials and exponent bits only, so LLVM vectorizes the
# loops that inline them. exp: Cody-Waite reduction by ln2 (x = n ln2 + r, |r| <= ln2/2), a
# polynomial for exp(r) (Cephes' degree-6 minimax for float32, Taylor to r**13 for float64),
# and 2**n applied in two halves so that denormal results and overflow to inf are rounded once.
# NaN is kept apart from the integer conversion (a NaN to int is undefined in LLVM). The helpers
# are compiled with fastmath "contract" only, so the polynomials use fused multiply-adds. Measured
# error against a longdouble reference: exp <= 1.01 ulp, expm1 and tanh <= 2, sigmoid <= 2.3.
# ``vexp`` & co. are typed per call site: float32 and float64 get these bodies, every other type
# (complex, ints) the NumPy function, so generated kernels may call them for any dtype.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline, scalar_overload


# ---- float32 ------------------------------------------------------------------------------
@contract_helper
def exp32(x):
    # Note [exp without underflow stalls]: below -104 (exp rounds to 0) the lane computes exp(0)
    # and selects 0 after; clamping to -104 made 2**-150 * p, whose underflow costs a microcode
    # assist per vector on Intel CPUs (masked softmax's -inf: 4.5x slower). Same values.
    low = x < np.float32(-104.0)
    xc = x if x == x and not low else np.float32(0.0)
    xc = min(xc, np.float32(89.0))
    n = np.floor(xc * np.float32(1.44269504) + np.float32(0.5))
    r = xc - n * np.float32(0.693359375) - n * np.float32(-2.12194440e-4)
    p = np.float32(1.9875691500e-4) * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    p = p * (r * r) + r + np.float32(1.0)
    k = np.int32(n)
    k1 = k >> 1
    s1 = np.int32((k1 + 127) << 23).view(np.float32)
    s2 = np.int32((k - k1 + 127) << 23).view(np.float32)
    y = p * s1 * s2
    y = np.float32(0.0) if low else y
    return y if x == x else x


@contract_helper
def expm1_32(x):
    # expm1(x) = 2**n * expm1(r) + (2**n - 1): no cancellation near 0. Past 88, 2**n needs two
    # factors (n = 128) and the - 1 is below half an ulp: 2**k1 * (2**(n-k1) * (expm1(r) + 1)).
    # No exp32 call in a select: LLVM left the loop scalar with one (measured 3.1x PyTorch).
    xc = x if x == x else np.float32(0.0)
    xc = min(max(xc, np.float32(-30.0)), np.float32(89.0))
    n = np.floor(xc * np.float32(1.44269504) + np.float32(0.5))
    r = xc - n * np.float32(0.693359375) - n * np.float32(-2.12194440e-4)
    p = np.float32(1.0 / 40320.0) * r + np.float32(1.0 / 5040.0)
    p = p * r + np.float32(1.0 / 720.0)
    p = p * r + np.float32(1.0 / 120.0)
    p = p * r + np.float32(1.0 / 24.0)
    p = p * r + np.float32(1.0 / 6.0)
    p = p * r + np.float32(0.5)
    em = r + (r * r) * p
    k = np.int32(n)
    k1 = k >> 1
    t = np.int32((min(k, np.int32(127)) + 127) << 23).view(np.float32)
    y = t * em + (t - np.float32(1.0))
    s1 = np.int32((k1 + 127) << 23).view(np.float32)
    s2 = np.int32((k - k1 + 127) << 23).view(np.float32)
    big = s1 * (s2 * (em + np.float32(1.0)))
    y = y if x <= np.float32(88.0) else big
    y = y if x == x else x
    return y if x != 0 else x


@contract_helper
def tanh32(x):
    # Cephes' tanhf: an odd polynomial below 0.625, 1 - 2 / (exp(2|x|) + 1) above
    a = abs(x)
    z = x * x
    p = np.float32(-5.70498872745e-3) * z + np.float32(2.06390887954e-2)
    p = p * z + np.float32(-5.37397155531e-2)
    p = p * z + np.float32(1.33314422036e-1)
    p = p * z + np.float32(-3.33332819422e-1)
    small = x + x * z * p if a != 0 else x  # keeps -0
    e = exp32(min(a + a, np.float32(100.0)))
    big = np.float32(1.0) - np.float32(2.0) / (e + np.float32(1.0))
    big = big if x >= 0 else -big
    return small if a < np.float32(0.625) else big


@contract_helper
def sigmoid32(x):
    # 1 / (1 + exp(-x)) with exp32's steps and one scaling by 2**n: exp(-x) is only needed while
    # it is normal (x > -88 gives 0 below, as PyTorch's overflowing exp does once x < -88.7)
    xc = min(max(-x, np.float32(-88.0)), np.float32(88.0))
    n = np.floor(xc * np.float32(1.44269504) + np.float32(0.5))
    r = xc - n * np.float32(0.693359375) - n * np.float32(-2.12194440e-4)
    p = np.float32(1.9875691500e-4) * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    p = p * (r * r) + r + np.float32(1.0)
    e = p * np.int32((np.int32(n) + 127) << 23).view(np.float32)
    y = np.float32(1.0) / (np.float32(1.0) + e)
    y = y if x > np.float32(-88.0) else np.float32(0.0)
    return y if x == x else x


# ---- float64 ------------------------------------------------------------------------------
@contract_helper
def exp64(x):
    low = x < -746.0  # Note [exp without underflow stalls]
    xc = x if x == x and not low else 0.0
    xc = min(xc, 710.0)
    n = np.floor(xc * 1.4426950408889634 + 0.5)
    r = (xc - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10
    p = 1.6059043836821613e-10 * r + 2.08767569878681e-09
    p = p * r + 2.505210838544172e-08
    p = p * r + 2.755731922398589e-07
    p = p * r + 2.7557319223985893e-06
    p = p * r + 2.48015873015873e-05
    p = p * r + 0.0001984126984126984
    p = p * r + 0.001388888888888889
    p = p * r + 0.008333333333333333
    p = p * r + 0.041666666666666664
    p = p * r + 0.16666666666666666
    p = p * r + 0.5
    p = p * (r * r) + r + 1.0
    k = np.int64(n)
    k1 = k >> 1
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)
    s2 = np.int64((k - k1 + 1023) << 52).view(np.float64)
    y = p * s1 * s2
    y = 0.0 if low else y
    return y if x == x else x


@contract_helper
def expm1_64(x):
    # as expm1_32, with exp64's reduction and polynomial
    xc = x if x == x else 0.0
    xc = min(max(xc, -40.0), 710.0)
    n = np.floor(xc * 1.4426950408889634 + 0.5)
    r = (xc - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10
    p = 1.6059043836821613e-10 * r + 2.08767569878681e-09
    p = p * r + 2.505210838544172e-08
    p = p * r + 2.755731922398589e-07
    p = p * r + 2.7557319223985893e-06
    p = p * r + 2.48015873015873e-05
    p = p * r + 0.0001984126984126984
    p = p * r + 0.001388888888888889
    p = p * r + 0.008333333333333333
    p = p * r + 0.041666666666666664
    p = p * r + 0.16666666666666666
    p = p * r + 0.5
    em = r + (r * r) * p
    k = np.int64(n)
    k1 = k >> 1
    t = np.int64((min(k, np.int64(1023)) + 1023) << 52).view(np.float64)
    y = t * em + (t - 1.0)
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)
    s2 = np.int64((k - k1 + 1023) << 52).view(np.float64)
    y = y if x <= 709.0 else s1 * (s2 * (em + 1.0))
    y = y if x == x else x
    return y if x != 0 else x


@contract_helper
def tanh64(x):
    # Cephes' tanh: a rational function below 0.625, 1 - 2 / (exp(2|x|) + 1) above
    a = abs(x)
    z = x * x
    p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3
    q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z
    q = q + 4.84406305325125486048e3
    small = x + x * (z * p / q) if a != 0 else x  # keeps -0
    e = exp64(min(a + a, 800.0))
    big = 1.0 - 2.0 / (e + 1.0)
    big = big if x >= 0 else -big
    return small if a < 0.625 else big


@contract_helper
def sigmoid64(x):
    return 1.0 / (1.0 + exp64(-x))


@contract_helper
def exp2_64(x):
    # x = n + r, |r| <= 1/2 exactly (no rounding in the reduction), 2**r by its Taylor series in r
    # (coefficients ln2**k / k!, to degree 14: the next term is below 2**-57), 2**n as in exp64
    xc = x if x == x else 0.0
    xc = min(max(xc, -1080.0), 1030.0)
    n = np.floor(xc + 0.5)
    r = xc - n
    p = 6.778726354822545e-14 * r + 1.3691488853904128e-12
    p = p * r + 2.5678435993488206e-11
    p = p * r + 4.4455382718708116e-10
    p = p * r + 7.054911620801123e-09
    p = p * r + 1.01780860092397e-07
    p = p * r + 1.321548679014431e-06
    p = p * r + 1.5252733804059841e-05
    p = p * r + 0.0001540353039338161
    p = p * r + 0.0013333558146428443
    p = p * r + 0.009618129107628477
    p = p * r + 0.05550410866482158
    p = p * r + 0.24022650695910072
    p = p * r + 0.6931471805599453
    p = p * r + 1.0
    k = np.int64(n)
    k1 = k >> 1
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)
    s2 = np.int64((k - k1 + 1023) << 52).view(np.float64)
    y = p * s1 * s2
    return y if x == x else x


@contract_helper
def exp2_32(x):
    # Note [float32 exp2]: in float32 lanes (16 a vector; the float64 evaluation ran 8 and took
    # 2.2x PyTorch's time). x = n + r with r = x - n exact (|r| <= 1/2, no reduction error), 2**r
    # by Taylor to degree 7 (next term below 2**-27 relative) in Horner form whose last step
    # 1 + r * q is one fused multiply-add (q's rounding reaches the result scaled by |r| ln2 <
    # 0.35), 2**n as two float32 factors as in exp32, so that a subnormal result is rounded
    # once: exact at integers, the halfway 2**-150 rounds to even (0), overflow gives inf.
    # Measured on 16M points against float64 exp2: 0.87 ulp (0.90 in the subnormal range; the
    # float64 form 0.57); the kernel 42 -> 24 us per 131072 elements, PyTorch's SLEEF 19.
    xc = x if x > np.float32(-160.0) else np.float32(-160.0)  # and NaN (Numba's max keeps it)
    xc = xc if xc < np.float32(130.0) else np.float32(130.0)
    n = np.floor(xc + np.float32(0.5))
    r = xc - n
    p = np.float32(1.5252733646775596e-05) * r + np.float32(0.0001540352968731895)
    p = p * r + np.float32(0.0013333557872101665)
    p = p * r + np.float32(0.009618128649890423)
    p = p * r + np.float32(0.05550410971045494)
    p = p * r + np.float32(0.24022650718688965)
    p = p * r + np.float32(0.6931471824645996)
    p = p * r + np.float32(1.0)
    k = np.int32(n)
    k1 = k >> 1
    s1 = np.int32((k1 + 127) << 23).view(np.float32)
    s2 = np.int32((k - k1 + 127) << 23).view(np.float32)
    y = p * s1 * s2
    return y if x == x else x


# ---- type-generic entry points for generated kernels --------------------------------------
def vexp(x):
    return np.exp(x)


def vexpm1(x):
    return np.expm1(x)


def vexp2(x):
    return np.exp2(x)


def vtanh(x):
    return np.tanh(x)


def vsigmoid(x):
    return np.divide(1, 1 + np.exp(-x))


def _generic(fn, f32, f64, fallback):
    # x is a Numba type here: float32 / float64 get the polynomial (f64=None: float64 keeps
    # NumPy's too), anything else NumPy's. vmath_log/trig/hyp register theirs through this.
    @scalar_overload(fn)
    def _typer(x):
        name = str(x)
        if name == "float32":
            return lambda x: f32(x)
        if name == "float64" and f64 is not None:
            return lambda x: f64(x)
        return fallback


def _generic2(fn, f32, fallback):
    # two operands: both float32 (a float32 op's compute dtype) get ``f32``, any other pair the
    # scalar ``fallback`` (an @inline function of (a, b))
    @scalar_overload(fn)
    def _typer(a, b):
        if str(a) == "float32" and str(b) == "float32":
            return lambda a, b: f32(a, b)
        return lambda a, b: fallback(a, b)


@inline
def _np_exp(x):
    return np.exp(x)


@inline
def _np_expm1(x):
    return np.expm1(x)


@inline
def _np_exp2(x):
    return np.exp2(x)


@inline
def _np_tanh(x):
    return np.tanh(x)


@inline
def _np_sigmoid(x):
    return np.divide(1, 1 + np.exp(-x))


_generic(vexp, exp32, exp64, lambda x: _np_exp(x))
_generic(vexpm1, expm1_32, expm1_64, lambda x: _np_expm1(x))
_generic(vtanh, tanh32, tanh64, lambda x: _np_tanh(x))
_generic(vsigmoid, sigmoid32, sigmoid64, lambda x: _np_sigmoid(x))
_generic(vexp2, exp2_32, exp2_64, lambda x: _np_exp2(x))
