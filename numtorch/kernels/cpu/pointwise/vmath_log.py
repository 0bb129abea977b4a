"""Vectorizable log, log1p, log2 and log10 for float32 and float64 kernels (Note [Vectorizable exp]).

# Note [Vectorizable log]
# fdlibm's / musl's method, written without branches so that LLVM vectorizes the loop: the
# exponent bits give x = 2**k * m with m in [sqrt(2)/2, sqrt(2)) (bias the bits by sqrt(2)/2's
# before splitting them), f = m - 1, and log(1 + f) = f - f*f/2 + s*(f*f/2 + R(s*s)) with
# s = f / (2 + f) and R musl's minimax polynomial (degree 4 in s*s for float32, 7 for float64);
# k * ln2 is added in two parts (Cody-Waite). Subnormal inputs are first scaled by 2**25 / 2**54.
# log1p: u = 1 + x is split the same way, and the rounding error of 1 + x is put back as
# c / u (c = x - (u - 1), or 1 - (u - x) once u >= 2), exact enough while k < 25 (54).
# Special values are selected at the end: log(x < 0) = nan, log(+-0) = -inf, log(inf) = inf;
# log1p(-1) = -inf, log1p(x < -1) = nan, and log1p keeps x itself (so -0 and subnormals) where
# |x| is below half an ulp of 1. log2 / log10 (float64) follow fdlibm's compensated sums below;
# their float32 versions round the float64 result once. Measured against mpmath
# (tests/kernels/cpu/test_vmath_log.py): log 0.75 ulp, log1p 0.76, log2 0.70, log10 0.59 (float64);
# float32 log2 / log10 0.5.
"""

import numpy as np

from numtorch.kernels._jit import contract_helper, inline
from numtorch.kernels.cpu.pointwise.vmath import _generic, vexp


# ---- float32 ------------------------------------------------------------------------------
@contract_helper
def _log1pf_poly(f, dk, c):
    # log(1 + f) + k ln2 + c for f in [sqrt(2)/2 - 1, sqrt(2) - 1] (musl logf's polynomial)
    s = f / (np.float32(2.0) + f)
    z = s * s
    w = z * z
    t1 = w * (np.float32(0.40000972152) + w * np.float32(0.24279078841))
    t2 = z * (np.float32(0.66666662693) + w * np.float32(0.28498786688))
    hfsq = np.float32(0.5) * f * f
    r = t2 + t1
    lo = dk * np.float32(9.0580006145e-06) + c
    return s * (hfsq + r) + lo - hfsq + f + dk * np.float32(6.9313812256e-01)


@contract_helper
def log32(x):
    sub = x < np.float32(1.17549435e-38)
    xs = x * (np.float32(33554432.0) if sub else np.float32(1.0))  # 2**25: subnormals to normal
    ix = np.int32(np.float32(xs).view(np.int32) - np.int32(0x3F3504F3))
    k = (ix >> np.int32(23)) - (np.int32(25) if sub else np.int32(0))
    m = np.int32((ix & np.int32(0x007FFFFF)) + np.int32(0x3F3504F3)).view(np.float32)
    y = _log1pf_poly(m - np.float32(1.0), np.float32(k), np.float32(0.0))
    y = y if x < np.float32(np.inf) else x  # +inf; NaN passes through the next select
    bad = np.float32(-np.inf) if x == 0 else np.float32(np.nan)
    y = y if x > np.float32(0.0) else bad
    return y if x == x else x


@contract_helper
def log1p32(x):
    u = np.float32(1.0) + x
    uc = max(u, np.float32(2.0**-30))  # keep the bit tricks on normal numbers
    iu = np.int32(np.float32(uc).view(np.int32) + np.int32(0x3F800000 - 0x3F3504F3))
    k = (iu >> np.int32(23)) - np.int32(127)
    c = (np.float32(1.0) - (u - x)) if k >= 2 else (x - (u - np.float32(1.0)))
    c = c / uc if k < 25 else np.float32(0.0)
    m = np.int32((iu & np.int32(0x007FFFFF)) + np.int32(0x3F3504F3)).view(np.float32)
    y = _log1pf_poly(m - np.float32(1.0), np.float32(k), c)
    y = y if abs(x) >= np.float32(2.0**-25) else x
    y = y if x < np.float32(np.inf) else x
    bad = np.float32(-np.inf) if x == -1 else np.float32(np.nan)
    y = y if x > np.float32(-1.0) else bad
    return y if x == x else x


# ---- float64 ------------------------------------------------------------------------------
@contract_helper
def _log_tail(f, hfsq):
    # s * (f*f/2 + R(s*s)), fdlibm's __ieee754_log polynomial (as _log1pf_poly)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
    t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01
              + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)))  # fmt: skip
    return s * (hfsq + (t2 + t1))


@contract_helper
def _log1p_poly(f, dk, c):
    hfsq = 0.5 * f * f
    lo = dk * 1.90821492927058770002e-10 + c
    return _log_tail(f, hfsq) + lo - hfsq + f + dk * 6.93147180369123816490e-01


@contract_helper
def log64(x):
    sub = x < 2.2250738585072014e-308
    xs = x * (18014398509481984.0 if sub else 1.0)  # 2**54 (a phi node cannot take .view)
    ix = np.float64(xs).view(np.int64) - np.int64(0x3FE6A09E667F3BCD)
    k = (ix >> np.int64(52)) - (np.int64(54) if sub else np.int64(0))
    m = np.int64((ix & np.int64(0x000FFFFFFFFFFFFF)) + np.int64(0x3FE6A09E667F3BCD)).view(np.float64)
    y = _log1p_poly(m - 1.0, np.float64(k), 0.0)
    y = y if x < np.inf else x
    bad = -np.inf if x == 0 else np.nan
    y = y if x > 0.0 else bad
    return y if x == x else x


@contract_helper
def log1p64(x):
    u = 1.0 + x
    uc = max(u, 2.0**-60)
    iu = np.float64(uc).view(np.int64) + np.int64(0x3FF0000000000000 - 0x3FE6A09E667F3BCD)
    k = (iu >> np.int64(52)) - np.int64(1023)
    c = (1.0 - (u - x)) if k >= 2 else (x - (u - 1.0))
    c = c / uc if k < 54 else 0.0
    m = np.int64((iu & np.int64(0x000FFFFFFFFFFFFF)) + np.int64(0x3FE6A09E667F3BCD)).view(np.float64)
    y = _log1p_poly(m - 1.0, np.float64(k), c)
    y = y if abs(x) >= 2.0**-54 else x
    y = y if x < np.inf else x
    bad = -np.inf if x == -1 else np.nan
    y = y if x > -1.0 else bad
    return y if x == x else x


# log2 / log10 for float64: fdlibm's e_log2.c / e_log10.c on the same reduction. The result is
# k * log_b(2) + log_b(1 + f) with log(1 + f) split as hi + lo (hi: f - f*f/2 with its low 32
# bits cleared, so hi times the 32-bit high part of 1/ln(b) is exact), summed compensated.
@contract_helper
def _logb64(x, ivhi, ivlo, l2hi, l2lo):
    sub = x < 2.2250738585072014e-308
    xs = x * (18014398509481984.0 if sub else 1.0)
    ix = np.float64(xs).view(np.int64) - np.int64(0x3FE6A09E667F3BCD)
    k = (ix >> np.int64(52)) - (np.int64(54) if sub else np.int64(0))
    m = np.int64((ix & np.int64(0x000FFFFFFFFFFFFF)) + np.int64(0x3FE6A09E667F3BCD)).view(np.float64)
    f = m - 1.0
    hfsq = 0.5 * f * f
    tail = _log_tail(f, hfsq)
    hi = np.int64(np.float64(f - hfsq).view(np.int64) & np.int64(-4294967296)).view(np.float64)
    lo = f - hi - hfsq + tail
    dk = np.float64(k)
    val_hi = hi * ivhi
    val_lo = dk * l2lo + (lo + hi) * ivlo + lo * ivhi
    yk = dk * l2hi
    w = yk + val_hi
    val_lo = val_lo + ((yk - w) + val_hi)
    y = val_lo + w
    y = y if x < np.inf else x
    bad = -np.inf if x == 0 else np.nan
    y = y if x > 0.0 else bad
    return y if x == x else x


@contract_helper
def log2_64(x):
    return _logb64(x, 1.44269504072144627571e00, 1.67517131648865118353e-10, 1.0, 0.0)


@contract_helper
def log10_64(x):
    return _logb64(x, 4.34294481878168880939e-01, 2.50829467116452752298e-11,
                   3.01029995663611771306e-01, 3.69423907715893078616e-13)  # fmt: skip


@inline
def log2_32(x):
    # float64's log times 1/ln(2), rounded once: a float32 needs 24 of its 53 bits, and the
    # product's 2 float64 ulps of error cannot move an exact k = log2(2**k) (|k| <= 149) off k.
    # (log2_64's compensated split is for float64 results: 168 -> 120 us per 131072 elements)
    return np.float32(log64(np.float64(x)) * 1.4426950408889634)


@inline
def log10_32(x):
    return np.float32(log64(np.float64(x)) * 0.4342944819032518)


# ---- type-generic entry points for generated kernels --------------------------------------
def vlog(x):
    return np.log(x)


def vlog1p(x):
    return np.log1p(x)


def vlog2(x):
    return np.log2(x)


def vlog10(x):
    return np.log10(x)


@inline
def _np_log2(x):
    return np.log2(x)


@inline
def _np_log10(x):
    return np.log10(x)


@inline
def _np_log(x):
    return np.log(x)


@inline
def _np_log1p(x):
    return np.log1p(x)


_generic(vlog, log32, log64, lambda x: _np_log(x))
_generic(vlog1p, log1p32, log1p64, lambda x: _np_log1p(x))
_generic(vlog2, log2_32, log2_64, lambda x: _np_log2(x))
_generic(vlog10, log10_32, log10_64, lambda x: _np_log10(x))


@inline
def vlogaddexp(a, b):
    # scalar.py's logaddexp with selects for its early returns and the vectorizable exp/log1p:
    # generated CPU kernels call this one (the libm form ran 5.7x PyTorch's time)
    m = a if a >= b else b
    y = m + vlog1p(vexp(-abs(a - b)))
    y = a if (a == b and a - a != a - a) else y  # equal infinities: a - b is NaN
    return y if m == m else a + b
