"""Vectorizable float32 pow (Note [float32 pow]).

# Note [float32 pow]
# ``self ** exponent`` on two float32 values is a scalar libm powf call, so the loop never used
# vector registers (433 us per 131072 elements, PyTorch's SLEEF powf 213). pow32 computes
# 2**(y * log2|x|) in float64 lanes, which carry enough bits for a float32 result rounded once:
# log2|x| = e + log2(m), m in [sqrt(1/2), sqrt(2)] (a float32 subnormal is a normal float64),
# by the atanh series in s = (m - 1) / (m + 1) to s**15 (relative error below 1e-13); the
# product y * log2|x| (|z| <= ~160 where the result is finite and non-zero) loses at most
# 2**-45 absolute; 2**z as vmath's exp2 (z = n + r exactly, Taylor in r to degree 9: 7e-12
# relative), 2**n one float64 scale (n within [-200, 200]), then one rounding to float32,
# subnormals and overflow to inf included. IEEE / C99 special cases by selects, in this order:
# a NaN operand gives NaN, then pow(x, +-0) = 1 and pow(+1, y) = 1 (NaN too), pow(-1, +-inf) =
# 1; a negative finite x to a finite non-integer power is NaN; a negative x (-0 and -inf
# included: the sign bit) to an odd integer power is negative; 0 and inf bases reach 0 or inf
# through log2 = -inf / +inf. Measured against mpmath: <= 0.5 ulp plus the float64 error
# (tests/kernels/cpu/test_vmath_pow.py). Other types (float64, a float64 Python-scalar
# exponent, float16 via float32 already) keep ``**``.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline, scalar_overload

_F64 = np.float64


@contract_helper
def _log2_64(d):
    # log2(d) for finite d > 0 (float64 from a float32: normal)
    bits = np.float64(d).view(np.int64)
    e = ((bits >> 52) & 0x7FF) - 1023
    m = np.int64((bits & 0xFFFFFFFFFFFFF) | (1023 << 52)).view(np.float64)
    big = m > 1.4142135623730951
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    s = (m - 1.0) / (m + 1.0)
    t = s * s
    p = 0.19235933878519512 * t + 0.2219530832136867
    p = p * t + 0.2623081892525388
    p = p * t + 0.3205988979753252
    p = p * t + 0.41219858311113244
    p = p * t + 0.5770780163555853
    p = p * t + 0.9617966939259757
    p = p * t + 2.8853900817779268
    return _F64(e) + s * p


@contract_helper
def _exp2_64(z):
    # 2**z for z clamped to [-200, 200] (NaN to -200: the caller selects NaN after)
    zc = z if z > -200.0 else -200.0
    zc = zc if zc < 200.0 else 200.0
    n = np.floor(zc + 0.5)
    r = zc - n
    p = 1.0178086009239696e-07 * r + 1.3215486790144305e-06
    p = p * r + 1.5252733804059838e-05
    p = p * r + 0.00015403530393381606
    p = p * r + 0.0013333558146428441
    p = p * r + 0.009618129107628477
    p = p * r + 0.055504108664821576
    p = p * r + 0.2402265069591007
    p = p * r + 0.6931471805599453
    p = p * r + 1.0
    return p * np.int64((np.int64(n) + 1023) << 52).view(np.float64)


@inline
def pow32(x, y):
    # inlined by Numba (as a contract_helper, LLVM left it a call and the loop scalar)
    ax = abs(x)
    d = _F64(ax)
    yd = _F64(y)
    inf = ax == np.float32(np.inf)
    lg = _log2_64(d if d > 0.0 and not inf else 1.0)
    lg = -np.inf if d == 0.0 else lg
    lg = np.inf if inf else lg
    mag = np.float32(_exp2_64(yd * lg))
    whole = np.floor(yd) == yd  # +-inf too: "even", as C99 reads them
    odd = whole and np.floor(yd * 0.5) * 2.0 != yd
    neg = np.float32(x).view(np.int32) < np.int32(0)
    r = -mag if neg and odd else mag
    r = np.float32(np.nan) if x < np.float32(0.0) and not inf and not whole else r
    r = np.float32(1.0) if ax == np.float32(1.0) and abs(y) == np.float32(np.inf) else r
    r = x + y if x != x or y != y else r
    r = np.float32(1.0) if y == np.float32(0.0) or x == np.float32(1.0) else r
    return r


def vpow(a, b):
    return a**b


@scalar_overload(vpow)
def _pow_typer(a, b):
    if str(a) == "float32" and str(b) == "float32":
        return lambda a, b: pow32(a, b)
    return lambda a, b: a**b
