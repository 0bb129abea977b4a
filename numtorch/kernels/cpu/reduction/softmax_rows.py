"""Softmax, log_softmax and their backwards along contiguous short rows (Note [Softmax over
short rows]): passes over every row at once, so that the exps run in one flat vectorized loop.
"""

import math

import numpy as np

from numtorch.kernels._jit import inline, kernel, reassoc_kernel
from numtorch.kernels.cpu.pointwise.vmath import exp32 as _exp32
from numtorch.kernels.cpu.pointwise.vmath import exp64 as _exp64


# Note [Softmax over short rows]
# softmax_rows runs _softmax1 per row, which calls three kernels (max, exp-sum, scale) on
# array slices: ~0.2 us per row, 6x PyTorch's time on (1024, 32). These run every row's loops
# in a few passes over all rows (no slices), fastmath "reassoc" for the sums as _exp_sum.
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


# Note [Softmax passes as calls]
# The short-row kernels run each pass (row max, flat exp, row sums, scale) as a kernel of its
# own called from the entry kernel: the same passes written inline in one body measured 2.2x
# slower at (1024, 32) float32 (56 against 26 us; LLVM optimised the flat exp loop worse
# inside the big body), with bitwise the same results.
@kernel
def softmax_rows_inline(x, y, outer, R, log):
    """Short rows: y = x - m per row, exp of all of y in one flat loop (which LLVM vectorizes;
    per-row exp loops under 64 elements stayed scalar: 4.2x PyTorch's time at (1024, 32)), then
    per row (x - m) - log(sum) (log_softmax, as PyTorch's lastdim kernel) or y / sum (softmax,
    times the reciprocal)."""
    m = np.empty(outer, x.dtype)
    _sub_rowmax(x, y, m, outer, R)
    _exp_flat(y)
    if log:
        s = np.empty(outer, x.dtype)
        _row_logsum(y, s, outer, R)
        _sub_rows(x, y, m, s, outer, R)
    else:
        _scale_rows(y, outer, R)


@reassoc_kernel
def _sub_rowmax(x, y, m, outer, R):
    # m[o] = max of row o, y = x - m per row
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        mo = _maxkey(x, b, uR)
        m[o] = mo
        for r in range(uR):
            y[b + _U(r)] = x[b + _U(r)] - mo


@kernel
def _exp_flat(y):
    n = _U(y.size)
    if y.itemsize == 4:
        for i in range(n):
            y[i] = _exp32(y[i])
    else:
        for i in range(n):
            y[i] = _exp64(y[i])


@reassoc_kernel
def _row_logsum(y, s, outer, R):
    # s[o] = log(sum of row o)
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        acc = y.dtype.type(0)
        for r in range(uR):
            acc += y[b + _U(r)]
        s[o] = y.dtype.type(math.log(acc))


@kernel
def _sub_rows(x, y, m, s, outer, R):
    # y = (x - m) - log(sum) per row, as PyTorch's lastdim kernel
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        mo, ls = m[o], s[o]
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
    _exp_shifted(x, y, c)  # Note [Softmax passes as calls]
    _scale_rows(y, outer, R)
    return True


@kernel
def _exp_shifted(x, y, c):
    n = _U(x.size)
    if x.itemsize == 4:
        for i in range(n):
            y[i] = _exp32(x[i] - c)
    else:
        for i in range(n):
            y[i] = _exp64(x[i] - c)


@reassoc_kernel
def _scale_rows(y, outer, R):
    # each row divided by its sum (times its reciprocal, as PyTorch's lastdim kernel)
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        s = y.dtype.type(0)
        for r in range(uR):
            s += y[b + _U(r)]
        inv = y.dtype.type(1.0 / s)
        for r in range(uR):
            y[b + _U(r)] *= inv


@kernel
def softmax_backward_rows(g, y, out, outer, R, log):
    # Note [Softmax passes as calls]: log_softmax's exps in one flat loop first
    if log:
        _exp_shifted(y, out, y.dtype.type(0))
        _log_softmax_bw_rows(g, out, outer, R)
    else:
        _softmax_bw_rows(g, y, out, outer, R)


@reassoc_kernel
def _log_softmax_bw_rows(g, out, outer, R):
    # out holds exp(y): out = g - exp(y) * sum(g) per row
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        s = g.dtype.type(0)
        for r in range(uR):
            s += g[b + _U(r)]
        for r in range(uR):
            i = b + _U(r)
            out[i] = g[i] - out[i] * s


@reassoc_kernel
def _softmax_bw_rows(g, y, out, outer, R):
    uR = _U(R)
    for o in range(outer):
        b = _U(o) * uR
        s = y.dtype.type(0)
        for r in range(uR):
            i = b + _U(r)
            s += g[i] * y[i]
        for r in range(uR):
            i = b + _U(r)
            out[i] = y[i] * (g[i] - s)
