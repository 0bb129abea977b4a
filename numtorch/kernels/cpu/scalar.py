"""Scalar helpers inlined into generated pointwise kernels (PyTorch's edge-case semantics).

Every function here is typed per call site by Numba, so one definition serves all dtypes.
Changing this file changes the hash of every generated kernel file (Note [Generated kernels
are real files]), so cached kernels never keep stale helper code.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline


@inline
def sigmoid(x):
    # split by sign so exp never overflows
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


@inline
def relu(x):
    return x if x > 0 else x * 0


@inline
def sign(x):
    if x > 0:
        return x * 0 + 1
    if x < 0:
        return x * 0 - 1
    return x * 0


@inline
def maximum(a, b):
    # NaN propagates, as in torch.maximum
    if a != a:
        return a
    if b != b:
        return b
    return a if a >= b else b


@inline
def minimum(a, b):
    if a != a:
        return a
    if b != b:
        return b
    return a if a <= b else b


@inline
def clamp(x, lo, hi):
    # torch.clamp: NaN input stays NaN; max wins when min > max
    if x != x:
        return x
    if x < lo:
        x = lo
    if x > hi:
        x = hi
    return x


@inline
def clamp_min(x, lo):
    if x != x:
        return x
    return lo if x < lo else x


@inline
def clamp_max(x, hi):
    if x != x:
        return x
    return hi if x > hi else x


@inline
def round_half_even(x):
    r = math.floor(x + 0.5) if x == x and abs(x) != math.inf else x
    if x == x and abs(x) != math.inf and r - x == 0.5 and r % 2 != 0:
        r -= 1
    return r


@inline
def round_decimals(x, decimals):
    # torch.round(decimals=d): scale by 10**d, round half to even, unscale
    if decimals >= 0:
        s = 10.0**decimals
        return round_half_even(x * s) / s
    s = 10.0 ** (-decimals)
    return round_half_even(x / s) * s


@inline
def trunc(x):
    return math.trunc(x) if x == x and abs(x) != math.inf else x


@inline
def frac(x):
    return x - trunc(x)


@inline
def div_trunc(a, b):
    return trunc(a / b)


@inline
def div_floor_float(a, b):
    # Python's float floor division semantics, as torch.div(rounding_mode="floor")
    if b == 0:
        return a / b
    q = math.floor(a / b)
    return q


@inline
def div_trunc_int(a, b):
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


@inline
def fmod(a, b):
    return math.fmod(a, b)


@inline
def fmod_int(a, b):
    return a - div_trunc_int(a, b) * b


@inline
def remainder(a, b):
    # Python semantics: result has the sign of the divisor
    return a % b


@inline
def rsqrt(x):
    return 1 / math.sqrt(x) if x >= 0 else math.nan


@inline
def sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


@inline
def log(x):
    if x > 0:
        return math.log(x)
    if x == 0:
        return -math.inf
    return math.nan


@inline
def log2(x):
    if x > 0:
        return math.log2(x)
    if x == 0:
        return -math.inf
    return math.nan


@inline
def log10(x):
    if x > 0:
        return math.log10(x)
    if x == 0:
        return -math.inf
    return math.nan


@inline
def log1p(x):
    if x > -1:
        return math.log1p(x)
    if x == -1:
        return -math.inf
    return math.nan


@inline
def asin(x):
    return math.asin(x) if -1 <= x <= 1 else math.nan


@inline
def acos(x):
    return math.acos(x) if -1 <= x <= 1 else math.nan


@inline
def pow_int(a, b):
    # integer power by squaring; negative exponents follow torch (0 except for |a| == 1)
    if b < 0:
        if a == 1:
            return a
        if a == -1:
            return a if b % 2 != 0 else -a
        return a * 0
    r = a * 0 + 1
    while b:
        if b & 1:
            r *= a
        a *= a
        b >>= 1
    return r


@inline
def nan_to_num(x, nan, posinf, neginf):
    if x != x:
        return nan
    if x == math.inf:
        return posinf
    if x == -math.inf:
        return neginf
    return x


@inline
def lerp(a, b, w):
    # torch's two-sided formula keeps lerp(a, b, 1) == b exactly
    if abs(w) < 0.5:
        return a + w * (b - a)
    return b - (b - a) * (1 - w)


@inline
def isclose(a, b, rtol, atol, equal_nan):
    if a == b:
        return True
    if a != a or b != b:
        return equal_nan and a != a and b != b
    if abs(a) == math.inf or abs(b) == math.inf:
        return False
    return abs(a - b) <= atol + rtol * abs(b)


@inline
def logical_xor(a, b):
    return (a != 0) != (b != 0)


@inline
def exp2(x):
    return 2.0**x


@inline
def square_root_safe(x):
    return np.sqrt(x)
