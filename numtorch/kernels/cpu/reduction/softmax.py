"""Softmax, log_softmax and logsumexp kernels: max-subtracted, fused, with a vectorizable exp.

Inputs are C-contiguous and viewed as (outer, R, inner) (Note [Reduction layout]): ``*_rows``
kernels reduce contiguous rows (inner == 1), ``*_cols`` kernels strided columns; a ``_p``
suffix runs the outer loop in parallel.
"""

import math

import numpy as np

from numtorch.kernels._jit import (
    inline,
    kernel,
    parallel_kernel,
    prange,
    reassoc_kernel,
    serial_and_parallel,
)
from numtorch.kernels.cpu.pointwise.vmath import exp32 as _exp32
from numtorch.kernels.cpu.pointwise.vmath import exp64 as _exp64


# ---- softmax, log_softmax, logsumexp (max-subtracted, fused) ------------------------------
# The row max is an integer max of order-preserving keys (vectorizable); exp and the
# row sum run in one loop that LLVM splits into vector lanes (fastmath "reassoc" on that loop
# only, Note [Reduction order]); exp is vmath's (Note [Vectorizable exp]).
@reassoc_kernel
def _exp_sum(x, m, y):
    # y = exp(x - m) elementwise; returns sum(y), accumulated in x's dtype as PyTorch's
    # vectorized softmax does
    s = x.dtype.type(0)
    m = x.dtype.type(m)
    if x.itemsize == 4:
        for r in range(x.size):
            e = _exp32(x[r] - m)
            y[r] = e
            s += e
    else:
        for r in range(x.size):
            e = _exp64(x[r] - m)
            y[r] = e
            s += e
    return s


@kernel
def _kmax32(x):
    # max of the order-preserving integer keys of x's float32 bits: an integer max, which LLVM
    # vectorizes without fastmath (a float max with NaN semantics it does not)
    k = x.view(np.int32)
    m = np.int32(-2147483648)
    for i in range(k.size):
        v = k[i]
        m = max(m, v ^ ((v >> 31) & np.int32(0x7FFFFFFF)))
    return np.int32(m ^ ((m >> 31) & np.int32(0x7FFFFFFF))).view(np.float32)


@kernel
def _kmax64(x):
    k = x.view(np.int64)
    m = np.int64(-9223372036854775808)
    for i in range(k.size):
        v = k[i]
        m = max(m, v ^ ((v >> 63) & np.int64(0x7FFFFFFFFFFFFFFF)))
    return np.int64(m ^ ((m >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))).view(np.float64)


@kernel
def _rowmax(x):
    # max of a row; which NaN (if any) comes out does not matter: exp(x - m) of a row holding a
    # NaN is NaN anyway
    if x.itemsize == 4:
        return x.dtype.type(_kmax32(x))
    return x.dtype.type(_kmax64(x))


@kernel
def _softmax1(x, y, log):
    m = _rowmax(x)
    s = _exp_sum(x, m, y)
    if log:
        c = m + math.log(s)
        for r in range(x.size):
            y[r] = x[r] - c
    else:
        inv = 1.0 / s
        for r in range(x.size):
            y[r] *= inv


def _softmax_rows(x, y, outer, R, log):
    for o in prange(outer):
        _softmax1(x[o * R : o * R + R], y[o * R : o * R + R], log)


softmax_rows, softmax_rows_p = serial_and_parallel(_softmax_rows)


# Note [Softmax over short rows]
# softmax_rows runs _softmax1 per row, which calls three kernels (max, exp-sum, scale) on
# array slices: ~0.2 us per row, 6x PyTorch's time on (1024, 32). These run every row's loops
# inline in one kernel (no slices, no calls), fastmath "reassoc" for the sums as _exp_sum.
# Indices are uint64 (_U): Numba wraps negative signed indices, a select per access that LLVM
# could not drop for b + r and that kept these loops scalar (measured 6x slower at R = 32).
# The backwards are PyTorch's formulas in one pass per row: softmax y * (g - sum(g * y)),
# log_softmax g - exp(y) * sum(g).
_U = np.uint64


@inline
def _maxkey(x, b, R):
    # _kmax32/_kmax64's integer max of order-preserving keys, inline (a float max loop is
    # scalar: it was a third of the kernel's time at R = 32); a NaN row gives NaN below anyway
    if x.itemsize == 4:
        k = x.view(np.int32)
        m = np.int32(-2147483648)
        for r in range(R):
            v = k[b + _U(r)]
            m = max(m, v ^ ((v >> 31) & np.int32(0x7FFFFFFF)))
        return _unkey(k, m, x.dtype.type)
    k = x.view(np.int64)
    m = np.int64(-9223372036854775808)
    for r in range(R):
        v = k[b + _U(r)]
        m = max(m, v ^ ((v >> 63) & np.int64(0x7FFFFFFFFFFFFFFF)))
    return _unkey(k, m, x.dtype.type)


@reassoc_kernel
def softmax_rows_inline(x, y, outer, R, log):
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        m = _maxkey(x, b, uR)
        s = x.dtype.type(0)
        if x.itemsize == 4:
            for r in range(uR):
                i = b + _U(r)
                e = _exp32(x[i] - m)
                y[i] = e
                s += e
        else:
            for r in range(uR):
                i = b + _U(r)
                e = _exp64(x[i] - m)
                y[i] = e
                s += e
        if log:
            ls = x.dtype.type(math.log(s))  # (x - m) - log(s), as PyTorch's lastdim kernel
            for r in range(uR):
                i = b + _U(r)
                y[i] = (x[i] - m) - ls
        else:
            inv = x.dtype.type(1.0 / s)
            for r in range(uR):
                y[b + _U(r)] *= inv


@reassoc_kernel
def log_softmax_rows_flat(x, y, outer, R):
    """softmax_rows_inline's log_softmax with its exps in one flat loop over every row (which
    LLVM vectorizes; per-row exp loops under 64 elements stayed scalar: 4.2x PyTorch's time at
    (1024, 32)): y = x - m per row, exp of all of y, then per row (x - m) - log(sum) as before.
    Every value is the one softmax_rows_inline computes (only the row sums' order may differ)."""
    uR = _U(R)
    m = np.empty(outer, x.dtype)
    for o in range(outer):
        b = _U(o) * uR
        mo = _maxkey(x, b, uR)
        m[o] = mo
        for r in range(uR):
            y[b + _U(r)] = x[b + _U(r)] - mo
    n = _U(x.size)
    if x.itemsize == 4:
        for i in range(n):
            y[i] = _exp32(y[i])
    else:
        for i in range(n):
            y[i] = _exp64(y[i])
    for o in range(outer):
        b = _U(o) * uR
        s = x.dtype.type(0)
        for r in range(uR):
            s += y[b + _U(r)]
        ls = x.dtype.type(math.log(s))
        mo = m[o]
        for r in range(uR):
            i = b + _U(r)
            y[i] = (x[i] - mo) - ls


@reassoc_kernel
def softmax_rows_shift(x, y, outer, R):
    """softmax_rows_inline's softmax (not log_softmax) with one shift c = max(x) for every row when max(x) - min(x) is at
    most 60 (float32; 600 float64), so that every exp(x - c) is a normal number and its row sum
    keeps full relative accuracy: the exps then run in one flat loop that LLVM vectorizes (the
    per-row exp loops stay scalar below 64 elements: measured 4-10x slower at R = 8 to 32).
    Returns False, having written nothing, otherwise (a NaN or an infinity included).
    log_softmax keeps the row max: (x - c) - log(s) would lose ulp(c - m) of absolute accuracy
    (and finding each row's max again here measured slower than the row kernel)."""
    if x.itemsize == 4:
        return _shift_rows(x, x.view(np.int32), y, outer, R, 60.0)
    return _shift_rows(x, x.view(np.int64), y, outer, R, 600.0)


@inline
def _unkey(k, m, ft):
    if k.itemsize == 4:
        return ft(np.int32(m ^ ((m >> 31) & np.int32(0x7FFFFFFF))).view(np.float32))
    return ft(np.int64(m ^ ((m >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))).view(np.float64))


@inline
def _shift_rows(x, k, y, outer, R, spread):
    # k: x's bits as integers (order-preserving keys below), viewed once per call
    n = _U(x.size)
    if k.itemsize == 4:
        hi, lo = np.int32(-2147483648), np.int32(2147483647)
        for i in range(n):
            v = k[i]
            v = v ^ ((v >> 31) & np.int32(0x7FFFFFFF))
            hi, lo = max(hi, v), min(lo, v)
    else:
        hi, lo = np.int64(-9223372036854775808), np.int64(9223372036854775807)
        for i in range(n):
            v = k[i]
            v = v ^ ((v >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))
            hi, lo = max(hi, v), min(lo, v)
    c, low = _unkey(k, hi, x.dtype.type), _unkey(k, lo, x.dtype.type)
    if not c - low <= spread:
        return False
    for i in range(n):
        y[i] = _exp32(x[i] - c) if x.itemsize == 4 else _exp64(x[i] - c)
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        s = x.dtype.type(0)
        for r in range(uR):
            s += y[b + _U(r)]
        inv = x.dtype.type(1.0 / s)
        for r in range(uR):
            y[b + _U(r)] *= inv
    return True


@reassoc_kernel
def softmax_backward_rows(g, y, out, outer, R, log):
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        s = y.dtype.type(0)
        if log:
            for r in range(uR):
                s += g[b + _U(r)]
            if y.itemsize == 4:
                for r in range(uR):
                    i = b + _U(r)
                    out[i] = g[i] - _exp32(y[i]) * s
            else:
                for r in range(uR):
                    i = b + _U(r)
                    out[i] = g[i] - _exp64(y[i]) * s
        else:
            for r in range(uR):
                i = b + _U(r)
                s += g[i] * y[i]
            for r in range(uR):
                i = b + _U(r)
                out[i] = y[i] * (g[i] - s)


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
                e[i] = _exp64(xs[i] - m[i])
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


# Note [Softmax over a small inner size]
# With few columns (inner < _SMALL_INNER in ops/reduction/scan.py) the *_cols loops run a handful of iterations per
# row, behind three array slices each: 3x PyTorch's time on (64, 16, 4) over dim 1. Copying
# each column into a contiguous scratch row and running the row kernel on it is one strided
# read and one strided write per element, and the row kernel vectorizes.
@kernel
def softmax_gather(x, y, outer, R, inner, log):
    bx = np.empty(R, x.dtype)
    by = np.empty(R, x.dtype)
    for o in range(outer):
        base = o * R * inner
        for i in range(inner):
            for r in range(R):
                bx[r] = x[base + r * inner + i]
            _softmax1(bx, by, log)
            for r in range(R):
                y[base + r * inner + i] = by[r]


@kernel
def _lse1(x, e):
    m = _rowmax(x)
    if m == np.inf or m == -np.inf:
        m = x.dtype.type(0)  # torch: an infinite max is not subtracted
    return m + math.log(_exp_sum(x, m, e))


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
