"""Softmax, log_softmax and logsumexp kernels: max-subtracted, fused, with a vectorizable exp.

Inputs are C-contiguous and viewed as (outer, R, inner) (Note [Reduction layout]): ``*_rows``
kernels reduce contiguous rows (inner == 1), ``*_cols`` kernels strided columns; a ``_p``
suffix runs the outer loop in parallel.
"""

import math

import numpy as np

from numtorch.kernels._jit import (
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
    if log:  # (x - m) - log(s) as ATen: x - (m + log(s)) loses log(s) next to a huge m (fuzz)
        c = math.log(s)
        for r in range(x.size):
            y[r] = (x[r] - m) - c
    else:
        inv = 1.0 / s
        for r in range(x.size):
            y[r] *= inv


def _softmax_rows(x, y, outer, R, log):
    for o in prange(outer):
        _softmax1(x[o * R : o * R + R], y[o * R : o * R + R], log)


softmax_rows, softmax_rows_p = serial_and_parallel(_softmax_rows)


# Short rows (Note [Softmax over short rows]) are softmax_rows.py's
from numtorch.kernels.cpu.reduction.softmax_rows import (  # noqa: E402, F401
    softmax_backward_rows,
    softmax_rows_inline,
    softmax_rows_shift,
)


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
        s[i] = math.log(s[i]) if log else 1.0 / s[i]
    for r in range(R):
        xs = x[(o * R + r) * inner :]
        ys = yo[r * inner :]
        if log:  # (x - m) - log(s), as _softmax1
            for i in range(inner):
                ys[i] = (xs[i] - m[i]) - s[i]
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
# With few columns (inner < _SMALL_INNER in ops/reduction/scan.py) the *_cols loops run a handful
# of iterations per row, behind three array slices each: 3x PyTorch's time on (64, 16, 4) over
# dim 1. So the columns are gathered into contiguous rows of one scratch array (one strided read
# and one strided write per element), which the short-row kernel (softmax_rows_inline) runs
# in flat passes, and scattered back. (A row kernel called per column, as before, cost ~0.5 us
# a column: 30x PyTorch's time on (10924, 3, 4) over dim 1.)
@kernel
def gather_cols(x, bx, outer, R, inner):
    # bx[(o, i, r)] = x[(o, r, i)]: each column of an (R, inner) block as a contiguous row
    for o in range(outer):
        base = o * R * inner
        for r in range(R):
            for i in range(inner):
                bx[base + i * R + r] = x[base + r * inner + i]


@kernel
def scatter_cols(by, y, outer, R, inner):
    # gather_cols' inverse
    for o in range(outer):
        base = o * R * inner
        for r in range(R):
            for i in range(inner):
                y[base + r * inner + i] = by[base + i * R + r]


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


# Note [Logsumexp over a small inner size]
# logsumexp_cols over few columns (inner < 16; (10924, 3, 4) over dim 1) ran its max, exp and
# sum loops a handful of iterations per block, and exp did not vectorise: 2x PyTorch's time. This
# runs the same arithmetic in flat passes over chunks of blocks: each element's column max
# (the max folded over r in the same order), exp of every element in one vectorisable loop (the
# same exp32/exp64), the float64 sums over r in order, the same log. So its results are
# logsumexp_cols' bits (tests compare them); the scratch is two chunks, not the input's size.
@kernel
def logsumexp_cols_small(x, out, outer, R, inner):
    blk = R * inner
    per = max(1, 4096 // blk)  # blocks per chunk
    m = np.empty(per * blk, x.dtype)
    e = np.empty(per * blk, x.dtype)
    for o0 in range(0, outer, per):
        nb = min(per, outer - o0)
        xc = x[o0 * blk : (o0 + nb) * blk]
        for q in range(nb):
            b = q * blk
            for i in range(inner):
                v = xc[b + i]
                for r in range(1, R):
                    v = max(v, xc[b + r * inner + i])
                for r in range(R):
                    m[b + r * inner + i] = v
        if x.itemsize == 4:
            for k in range(nb * blk):
                e[k] = _exp32(xc[k] - m[k])
        else:
            for k in range(nb * blk):
                e[k] = _exp64(xc[k] - m[k])
        for q in range(nb):
            b = q * blk
            for i in range(inner):
                mi = m[b + i]
                if mi == np.inf or mi == -np.inf:
                    # an infinite max is not subtracted (as logsumexp_cols)
                    t = 0.0
                    for r in range(R):
                        t += math.exp(xc[b + r * inner + i])
                    out[(o0 + q) * inner + i] = math.log(t)
                else:
                    s = 0.0
                    for r in range(R):
                        s += e[b + r * inner + i]
                    out[(o0 + q) * inner + i] = mi + math.log(s)
