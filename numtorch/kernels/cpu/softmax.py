"""Softmax, log_softmax and logsumexp kernels: max-subtracted, fused, with a vectorizable exp.

Inputs are C-contiguous and viewed as (outer, R, inner) (Note [Reduction layout]): ``*_rows``
kernels reduce contiguous rows (inner == 1), ``*_cols`` kernels strided columns; a ``_p``
suffix runs the outer loop in parallel.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange


# ---- softmax, log_softmax, logsumexp (max-subtracted, fused) ------------------------------
# Note [Vectorizable exp]
# Numba's math.exp is a scalar libm call (no SVML here), ~30x slower than NumPy's SIMD exp.
# _exp32 is Cephes' expf written with selects, a polynomial and exponent bits (np.int32.view),
# which LLVM vectorizes: Cody-Waite reduction by ln2, a degree-6 polynomial (~1 ulp), and 2^n
# applied in two halves so denormal results and overflow to inf come out right. float64 keeps
# math.exp. Max and sum use sixteen independent lanes so they do not serialise on one register.
@inline
def _exp32(x):
    if x > np.float32(89.0):
        x = np.float32(89.0)
    if x < np.float32(-104.0):
        x = np.float32(-104.0)
    n = np.floor(x * np.float32(1.44269504) + np.float32(0.5))
    r = x - n * np.float32(0.693359375) - n * np.float32(-2.12194440e-4)
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
    return p * s1 * s2


@inline
def _exp_shifted(x, m, y):
    # y = exp(x - m), elementwise (Note [Vectorizable exp])
    if x.itemsize == 4:
        for r in range(x.size):
            y[r] = _exp32(x[r] - m)
    else:
        for r in range(x.size):
            y[r] = math.exp(x[r] - m)


@kernel
def _rowmax(x):
    # plain max: a NaN need not win here, exp(NaN - m) makes the whole row NaN anyway
    n = x.size
    if n < 16:
        m = x[0]
        for i in range(1, n):
            m = max(m, x[i])
        return m
    a0, a1, a2, a3, a4, a5, a6, a7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    a8, a9, a10, a11, a12, a13, a14, a15 = x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15]
    for j in range(1, n // 16):
        i = 16 * j
        a0, a1, a2, a3 = max(a0, x[i + 0]), max(a1, x[i + 1]), max(a2, x[i + 2]), max(a3, x[i + 3])
        a4, a5, a6, a7 = max(a4, x[i + 4]), max(a5, x[i + 5]), max(a6, x[i + 6]), max(a7, x[i + 7])
        a8, a9, a10, a11 = (
            max(a8, x[i + 8]),
            max(a9, x[i + 9]),
            max(a10, x[i + 10]),
            max(a11, x[i + 11]),
        )
        a12, a13, a14, a15 = (
            max(a12, x[i + 12]),
            max(a13, x[i + 13]),
            max(a14, x[i + 14]),
            max(a15, x[i + 15]),
        )
    m = max(
        max(max(max(a0, a1), max(a2, a3)), max(max(a4, a5), max(a6, a7))),
        max(max(max(a8, a9), max(a10, a11)), max(max(a12, a13), max(a14, a15))),
    )
    for i in range(n - n % 16, n):
        m = max(m, x[i])
    return m


@kernel
def _rowsum(x):
    # sixteen lanes in x's dtype (PyTorch's vectorised softmax sums in float too)
    n = x.size
    if n < 16:
        s = 0.0
        for i in range(n):
            s += x[i]
        return s
    a0, a1, a2, a3, a4, a5, a6, a7 = x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
    a8, a9, a10, a11, a12, a13, a14, a15 = x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15]
    for j in range(1, n // 16):
        i = 16 * j
        a0, a1, a2, a3 = a0 + x[i + 0], a1 + x[i + 1], a2 + x[i + 2], a3 + x[i + 3]
        a4, a5, a6, a7 = a4 + x[i + 4], a5 + x[i + 5], a6 + x[i + 6], a7 + x[i + 7]
        a8, a9, a10, a11 = a8 + x[i + 8], a9 + x[i + 9], a10 + x[i + 10], a11 + x[i + 11]
        a12, a13, a14, a15 = a12 + x[i + 12], a13 + x[i + 13], a14 + x[i + 14], a15 + x[i + 15]
    s = 1.0 * (
        (((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)))
        + (((a8 + a9) + (a10 + a11)) + ((a12 + a13) + (a14 + a15)))
    )
    for i in range(n - n % 16, n):
        s += x[i]
    return s


@kernel
def _softmax1(x, y, log):
    m = _rowmax(x)
    _exp_shifted(x, m, y)
    s = _rowsum(y)
    if log:
        c = m + math.log(s)
        for r in range(x.size):
            y[r] = x[r] - c
    else:
        inv = 1.0 / s
        for r in range(x.size):
            y[r] *= inv


@kernel
def softmax_rows(x, y, outer, R, log):
    for o in range(outer):
        _softmax1(x[o * R : o * R + R], y[o * R : o * R + R], log)


@parallel_kernel
def softmax_rows_p(x, y, outer, R, log):
    for o in prange(outer):
        _softmax1(x[o * R : o * R + R], y[o * R : o * R + R], log)


@kernel
def _colstats(x, o, R, inner, m, s, dst, step):
    # per column of the (R, inner) block o: max in m (x's dtype) and the sum of exp(x - max) in
    # s (float64); row r's exps are written to dst[r * step :] (step 0: one row of scratch)
    xs = x[o * R * inner :]
    for i in range(inner):
        m[i] = xs[i]
        s[i] = 0.0
    for r in range(1, R):
        xs = x[(o * R + r) * inner :]
        for i in range(inner):
            m[i] = max(m[i], xs[i])
    for r in range(R):
        xs = x[(o * R + r) * inner :]
        e = dst[r * step :]
        if x.itemsize == 4:
            for i in range(inner):
                e[i] = _exp32(xs[i] - m[i])
        else:
            for i in range(inner):
                e[i] = math.exp(xs[i] - m[i])
        for i in range(inner):
            s[i] += e[i]


@kernel
def _softmax_block(x, y, o, R, inner, log, m, s):
    yo = y[o * R * inner :]
    _colstats(x, o, R, inner, m, s, yo, inner)
    for i in range(inner):
        s[i] = m[i] + math.log(s[i]) if log else 1.0 / s[i]
    for r in range(R):
        xs = x[(o * R + r) * inner :]
        ys = yo[r * inner :]
        if log:
            for i in range(inner):
                ys[i] = xs[i] - s[i]
        else:
            for i in range(inner):
                ys[i] *= s[i]


@kernel
def softmax_cols(x, y, outer, R, inner, log):
    m = np.empty(inner, x.dtype)
    s = np.empty(inner, np.float64)
    for o in range(outer):
        _softmax_block(x, y, o, R, inner, log, m, s)


@parallel_kernel
def softmax_cols_p(x, y, outer, R, inner, log):
    for o in prange(outer):
        m = np.empty(inner, x.dtype)
        s = np.empty(inner, np.float64)
        _softmax_block(x, y, o, R, inner, log, m, s)


@kernel
def _lse1(x, e):
    m = _rowmax(x)
    if m == np.inf or m == -np.inf:
        m = x.dtype.type(0)  # torch: an infinite max is not subtracted
    _exp_shifted(x, m, e)
    return m + math.log(_rowsum(e))


@kernel
def logsumexp_rows(x, out, outer, R):
    e = np.empty(R, x.dtype)
    for o in range(outer):
        out[o] = _lse1(x[o * R : o * R + R], e)


@kernel
def logsumexp_cols(x, out, outer, R, inner):
    m = np.empty(inner, x.dtype)
    s = np.empty(inner, np.float64)
    e = np.empty(inner, x.dtype)
    for o in range(outer):
        _colstats(x, o, R, inner, m, s, e, 0)
        os = out[o * inner :]
        for i in range(inner):
            if m[i] == np.inf or m[i] == -np.inf:
                # an infinite max is not subtracted (rare: recomputed)
                t = 0.0
                for r in range(R):
                    t += math.exp(x[(o * R + r) * inner + i])
                os[i] = math.log(t)
            else:
                os[i] = m[i] + math.log(s[i])
