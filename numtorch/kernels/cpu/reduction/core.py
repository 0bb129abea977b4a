"""Hand-written reduction kernels: those that are not one combiner (index-tracking, two-pass,
scans, mode). Simple folds (sum, prod, amax, all, norm...) are generated from one combiner
each by ``numtorch.kernels._codegen_reduction``; softmax and logsumexp live in ``softmax.py``.

Every kernel takes a C-contiguous input viewed as (outer, R, inner) (Note [Reduction layout]).
``*_rows`` kernels handle inner == 1, ``*_cols`` kernels inner > 1; a ``_p`` suffix runs the
outer loop in parallel. Loops index slices from 0 so Numba's negative-index wraparound stays
out of them and LLVM can vectorize (Note [Reduction order]).
"""

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange


# ---- max / min with indices ---------------------------------------------------------------
@inline
def _better(v, b, largest):
    # NaN wins (max/min propagate it), ties keep the first index
    if v != v:
        return b == b
    if largest:
        return v > b
    return v < b


@kernel
def _argext1(x, largest):
    bi = 0
    b = x[0]
    for r in range(1, x.size):
        if _better(x[r], b, largest):
            b = x[r]
            bi = r
    return bi


@kernel
def argext_rows(x, vals, idx, outer, R, largest):
    for o in range(outer):
        i = _argext1(x[o * R : o * R + R], largest)
        idx[o] = i
        vals[o] = x[o * R + i]


@parallel_kernel
def argext_rows_p(x, vals, idx, outer, R, largest):
    for o in prange(outer):
        i = _argext1(x[o * R : o * R + R], largest)
        idx[o] = i
        vals[o] = x[o * R + i]


@kernel
def argext_cols(x, vals, idx, outer, R, inner, largest):
    for o in range(outer):
        vs = vals[o * inner : o * inner + inner]
        ix = idx[o * inner : o * inner + inner]
        xs = x[o * R * inner :]
        for i in range(inner):
            vs[i] = xs[i]
            ix[i] = 0
        for r in range(1, R):
            xs = x[(o * R + r) * inner :]
            for i in range(inner):
                if _better(xs[i], vs[i], largest):
                    vs[i] = xs[i]
                    ix[i] = r


# ---- variance (two passes, float64 accumulation) ------------------------------------------
@kernel
def _var1(x, correction):
    n = x.size
    s0 = s1 = s2 = s3 = 0.0
    e = n - n % 4
    for j in range(n // 4):
        s0 += x[4 * j]
        s1 += x[4 * j + 1]
        s2 += x[4 * j + 2]
        s3 += x[4 * j + 3]
    for i in range(e, n):
        s0 += x[i]
    m = ((s0 + s1) + (s2 + s3)) / n
    s0 = s1 = s2 = s3 = 0.0
    for j in range(n // 4):
        d0 = x[4 * j] - m
        d1 = x[4 * j + 1] - m
        d2 = x[4 * j + 2] - m
        d3 = x[4 * j + 3] - m
        s0 += d0 * d0
        s1 += d1 * d1
        s2 += d2 * d2
        s3 += d3 * d3
    for i in range(e, n):
        d0 = x[i] - m
        s0 += d0 * d0
    return ((s0 + s1) + (s2 + s3)) / max(0.0, n - correction), m


@kernel
def var_rows(x, var, mean, outer, R, correction):
    for o in range(outer):
        var[o], mean[o] = _var1(x[o * R : o * R + R], correction)


@parallel_kernel
def var_rows_p(x, var, mean, outer, R, correction):
    for o in prange(outer):
        var[o], mean[o] = _var1(x[o * R : o * R + R], correction)


@kernel
def var_cols(x, var, mean, outer, R, inner, correction):
    s = np.empty(inner, np.float64)
    m = np.empty(inner, np.float64)
    d = max(0.0, R - correction)
    for o in range(outer):
        s[:] = 0.0
        for r in range(R):
            xs = x[(o * R + r) * inner :]
            for i in range(inner):
                s[i] += xs[i]
        for i in range(inner):
            m[i] = s[i] / R
            s[i] = 0.0
        for r in range(R):
            xs = x[(o * R + r) * inner :]
            for i in range(inner):
                t = xs[i] - m[i]
                s[i] += t * t
        vs = var[o * inner :]
        ms = mean[o * inner :]
        for i in range(inner):
            vs[i] = s[i] / d
            ms[i] = m[i]


# ---- scans --------------------------------------------------------------------------------
@kernel
def cumulative(x, out, outer, R, inner, acc, prod):
    # cumsum / cumprod along R, accumulated in acc's dtype (float64 or int64, as PyTorch's CPU
    # kernels do) and rounded once per output
    if inner == 1:
        for o in range(outer):
            xs = x[o * R : o * R + R]
            os = out[o * R : o * R + R]
            a = acc.dtype.type(xs[0])
            os[0] = a
            for r in range(1, R):
                a = a * xs[r] if prod else a + xs[r]
                os[r] = a
        return
    for o in range(outer):
        xs = x[o * R * inner :]
        os = out[o * R * inner :]
        for i in range(inner):
            acc[i] = xs[i]
            os[i] = acc[i]
        for r in range(1, R):
            xs = x[(o * R + r) * inner :]
            os = out[(o * R + r) * inner :]
            for i in range(inner):
                if prod:
                    acc[i] *= xs[i]
                else:
                    acc[i] += xs[i]
                os[i] = acc[i]


@kernel
def cumext(x, vals, idx, outer, R, inner, largest):
    # cummax / cummin: a NaN takes over (and each later NaN takes its index); ties move the
    # index forward, as PyTorch's `>=` / `<=`
    for o in range(outer):
        for r in range(R):
            base = (o * R + r) * inner
            xs = x[base:]
            vs = vals[base:]
            ix = idx[base:]
            pv = vals[base - inner :]
            pi = idx[base - inner :]
            for i in range(inner):
                v = xs[i]
                if r == 0:
                    take = True
                else:
                    b = pv[i]
                    take = v != v or (b == b and (v >= b if largest else v <= b))
                if take:
                    vs[i] = v
                    ix[i] = r
                else:
                    vs[i] = pv[i]
                    ix[i] = pi[i]


@kernel
def cumprod_grad(x, g, out, outer, R, inner):
    # exact cumprod gradient with zeros: dx_k = prod(x_j, j < k) * S_k, where
    # S_k = g_k + x_{k+1} * S_{k+1} (no division)
    for o in range(outer):
        for i in range(inner):
            base = o * R * inner + i
            s = 0.0
            for j in range(R):
                r = R - 1 - j
                p = base + r * inner
                s = g[p] + (x[p + inner] * s if r < R - 1 else 0.0)
                out[p] = s
            e = 1.0
            for r in range(R):
                p = base + r * inner
                out[p] *= e
                e *= x[p]


# ---- mode (runs of a sorted row) ----------------------------------------------------------
@inline
def mode_of_sorted(v, ix, R):
    """(position in v, index) of the mode of v[:R], stably sorted ascending with its original
    indices ix: the most frequent value wins, the smallest on ties; its index is its last
    occurrence (NaN != NaN: each NaN counts once)."""
    best = 0
    bcount = 0
    start = 0
    for r in range(1, R + 1):
        if r == R or v[r] != v[start]:
            if r - start > bcount:
                bcount = r - start
                best = start
            start = r
    last = ix[best]
    for r in range(best, best + bcount):
        last = max(last, ix[r])
    return best, last


@kernel
def mode_rows(sv, si, vals, idx, outer, R):
    for o in range(outer):
        v = sv[o * R : o * R + R]
        best, last = mode_of_sorted(v, si[o * R : o * R + R], R)
        vals[o] = v[best]
        idx[o] = last


# ---- aminmax over everything: one pass -------------------------------------------------------
_MM_LANES = 64


@kernel
def minmax_all(x, out):
    """out[0], out[1] = min(x), max(x) in one pass (NaN propagates) for aminmax(), where amin
    and amax read x twice (1.24-1.33x PyTorch's time): 64 lanes of each, kept in small arrays
    updated elementwise (a loop without a reduction, which LLVM vectorizes), then a tree."""
    n = x.size
    lo = x[0]
    hi = x[0]
    m = n - n % _MM_LANES
    if m:
        a = x[0:_MM_LANES].copy()
        b = a.copy()
        for j in range(1, m // _MM_LANES):
            xs = x[j * _MM_LANES : j * _MM_LANES + _MM_LANES]
            for k in range(_MM_LANES):
                v = xs[k]
                a[k] = a[k] if (a[k] < v or a[k] != a[k]) else v
                b[k] = b[k] if (b[k] > v or b[k] != b[k]) else v
        h = _MM_LANES
        while h > 1:
            h //= 2
            for k in range(h):
                a[k] = a[k] if (a[k] < a[k + h] or a[k] != a[k]) else a[k + h]
                b[k] = b[k] if (b[k] > b[k + h] or b[k] != b[k]) else b[k + h]
        lo = a[0]
        hi = b[0]
    for i in range(m, n):
        v = x[i]
        lo = lo if (lo < v or lo != lo) else v
        hi = hi if (hi > v or hi != hi) else v
    out[0] = lo
    out[1] = hi


# ---- equal --------------------------------------------------------------------------------
@kernel
def all_equal(x, y):
    """Whether x[i] == y[i] for every i of two flat arrays of one size and dtype (NaN equals
    nothing, -0.0 equals 0.0: np.equal's comparison), stopping at the first difference."""
    for i in range(x.size):
        if not x[i] == y[i]:
            return False
    return True


@kernel
def minmax_cols(x, lo, hi, outer, R, inner):
    """aminmax along R of (outer, R, inner), inner > 1 and R <= 64: amin's and amax's ``col``
    fold in one pass (for R <= 64 that is one 64-row block: the first row, then each next row
    combined in by the combiners' expressions, so the same values, NaN and -0.0 included)."""
    for o in range(outer):
        xb = o * R * inner
        lo_o = lo[o * inner : o * inner + inner]
        hi_o = hi[o * inner : o * inner + inner]
        for i in range(inner):
            lo_o[i] = x[xb + i]
            hi_o[i] = x[xb + i]
        for r in range(1, R):
            xs = x[xb + r * inner : xb + r * inner + inner]
            for i in range(inner):
                v = xs[i]
                a = lo_o[i]
                lo_o[i] = a if (a < v or a != a) else v
                b = hi_o[i]
                hi_o[i] = b if (b > v or b != b) else v
