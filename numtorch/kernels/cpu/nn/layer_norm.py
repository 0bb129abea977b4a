"""Layer-norm kernels over M contiguous rows of length N. The general normalization kernels in
layers.py see layer norm as (M, N, 1) blocks (Note [Normalization layout]); with S = 1 their
innermost loop has one element, so nothing vectorised and layer norm ran ~10x slower than
PyTorch's. These loop over each row's elements innermost: the applies vectorise, and the row
sums are leaf folds whose order is free (Note [Reduction order]), so they may reassociate.

The statistics and the two row sums of backward accumulate in float64, as the general kernels do.
"""

from __future__ import annotations

import math

import numpy as np

from numtorch.kernels._jit import inline, kernel, prange, reassoc_kernel, reassoc_parallel_kernel


@reassoc_kernel
def _moments_row(x, base, N, mean, rstd, r, eps):
    xr = x[base : base + N]
    acc = 0.0
    for j in range(N):
        acc += xr[j]
    m = acc / N
    sq = 0.0
    for j in range(N):
        d = xr[j] - m
        sq += d * d
    mean[r] = m
    rstd[r] = 1.0 / math.sqrt(sq / N + eps)


@reassoc_kernel
def moments(x, N, mean, rstd, eps):
    """Mean and 1/sqrt(biased var + eps) of each row (two passes, float64 sums)."""
    for r in range(mean.size):
        _moments_row(x, r * N, N, mean, rstd, r, eps)


@reassoc_parallel_kernel
def moments_parallel(x, N, mean, rstd, eps):
    for r in prange(mean.size):
        _moments_row(x, r * N, N, mean, rstd, r, eps)


# Note [Layer norm's apply row is inlined]
# apply and apply_parallel call _apply_row once per row. As its own compiled function, each call
# (its arrays passed and sliced) cost ~50 ns: at rows of 4 elements (32769 rows) apply took 1.6 ms,
# 20x its inlined loop, and a large F.layer_norm over short rows ran 2.5x PyTorch's time. Numba
# inlines it now (the same loop and arithmetic in each caller, no fastmath flag, so the same bits;
# _compile/codegen's fused layer_norm kernels call it too, Note [Fused layer_norm prologue]).
@inline
def _apply_row(x, out, base, N, m, rs, w, b, has_w, has_b):
    xr = x[base : base + N]
    o = out[base : base + N]
    if has_w and has_b:
        for j in range(N):
            o[j] = (xr[j] - m) * (rs * w[j]) + b[j]
    elif has_w:
        for j in range(N):
            o[j] = (xr[j] - m) * (rs * w[j])
    elif has_b:
        for j in range(N):
            o[j] = (xr[j] - m) * rs + b[j]
    else:
        for j in range(N):
            o[j] = (xr[j] - m) * rs


@kernel
def apply(x, out, mean, rstd, w, b, N, has_w, has_b):
    """out = (x - mean[row]) * rstd[row] * w + b, row by row."""
    for r in range(mean.size):
        _apply_row(x, out, r * N, N, mean[r], rstd[r], w, b, has_w, has_b)


@reassoc_parallel_kernel
def apply_parallel(x, out, mean, rstd, w, b, N, has_w, has_b):
    for r in prange(mean.size):
        _apply_row(x, out, r * N, N, mean[r], rstd[r], w, b, has_w, has_b)


@reassoc_kernel
def backward(go, x, mean, rstd, w, N, gi, gw, gb):
    """Gradients of ``apply`` with statistics from ``x``: grad_input =
    rstd * (g - mean(g) - xhat * mean(g * xhat)) per row, g = go * w (w: ones without a weight);
    grad_weight = sum over rows of go * xhat, grad_bias = sum of go. ``gi``, ``gw``, ``gb`` of
    size 0 are not computed."""
    M = mean.size
    pw = np.zeros(N)
    pb = np.zeros(N)
    want_w, want_b, want_i = gw.size > 0, gb.size > 0, gi.size > 0
    for r in range(M):
        base = r * N
        gr = go[base : base + N]
        xr = x[base : base + N]
        m = mean[r]
        rs = rstd[r]
        if want_w:
            for j in range(N):
                pw[j] += gr[j] * ((xr[j] - m) * rs)
        if want_b:
            for j in range(N):
                pb[j] += gr[j]
        if not want_i:
            continue
        sg = 0.0
        sgx = 0.0
        for j in range(N):
            g = gr[j] * w[j]
            sg += g
            sgx += g * ((xr[j] - m) * rs)
        mg = sg / N
        mgx = sgx / N
        o = gi[base : base + N]
        for j in range(N):
            o[j] = rs * (gr[j] * w[j] - mg - (xr[j] - m) * rs * mgx)
    for j in range(gw.size):
        gw[j] = pw[j]
    for j in range(gb.size):
        gb[j] = pb[j]


@reassoc_kernel
def rms_norm(x, w, out, N, eps, has_w):
    """out = x * rsqrt(mean(x * x) + eps) * w per row of N, as the rms_norm composite computes
    it (each square and the scale in the input dtype; the row sum in float64)."""
    ft = x.dtype.type
    for r in range(x.size // N):
        b = r * N
        acc = 0.0
        for j in range(N):
            v = x[b + j]
            acc += v * v
        rs = ft(1.0) / ft(math.sqrt(ft(ft(acc / N) + eps)))
        if has_w:
            for j in range(N):
                out[b + j] = x[b + j] * rs * w[j]
        else:
            for j in range(N):
                out[b + j] = x[b + j] * rs
