"""Fused row kernels of the nn ops: softmax/log_softmax and their backward, layer_norm forward
and backward, nll_loss forward and backward (Note [Fused CUDA nn kernels]).

Rows are contiguous, ``n`` elements each; a block takes a row (blocks loop when there are more
rows than blocks), its RED_THREADS threads stride over the row and combine partial results in
a shared-memory tree, as the reductions of reduction.py. Accumulators are float64, as there.
"""

from __future__ import annotations

import math

from numba import cuda, float64

from .._jit import cuda_device, cuda_kernel
from . import RED_THREADS
from .index import resolve


@cuda_device
def _block_combine(acc, t, v, largest):
    # every thread's ``v`` combined (all threads of the block call it): their sum, or with
    # ``largest`` their maximum, where NaN wins as in PyTorch's max
    acc[t] = v
    cuda.syncthreads()
    step = RED_THREADS // 2
    while step > 0:
        if t < step:
            u = acc[t + step]
            if not largest:
                acc[t] += u
            elif u > acc[t] or u != u:
                acc[t] = u
        cuda.syncthreads()
        step //= 2
    s = acc[0]
    cuda.syncthreads()  # every thread reads acc[0] before the next use overwrites it
    return s


@cuda_kernel
def softmax_rows(rows, n, x, out, log):
    # out = softmax(x) (``log``: log_softmax) along each row; max-shifted, as PyTorch's
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        m = -math.inf
        for j in range(t, n, RED_THREADS):
            v = float64(x[base + j])
            if v > m or v != v:
                m = v
        m = _block_combine(acc, t, m, True)
        s = 0.0
        for j in range(t, n, RED_THREADS):
            s += math.exp(x[base + j] - m)
        s = _block_combine(acc, t, s, False)
        if log:
            shift = m + math.log(s)
            for j in range(t, n, RED_THREADS):
                out[base + j] = x[base + j] - shift
        else:
            for j in range(t, n, RED_THREADS):
                out[base + j] = math.exp(x[base + j] - m) / s


@cuda_kernel
def softmax_backward_rows(rows, n, g, y, out, log):
    # softmax: out = y * (g - sum(g * y)); log_softmax (y its output): out = g - exp(y) * sum(g)
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        s = 0.0
        for j in range(t, n, RED_THREADS):
            s += g[base + j] if log else float64(g[base + j]) * y[base + j]
        s = _block_combine(acc, t, s, False)
        for j in range(t, n, RED_THREADS):
            if log:
                out[base + j] = g[base + j] - math.exp(y[base + j]) * s
            else:
                out[base + j] = y[base + j] * (g[base + j] - s)


@cuda_kernel
def layer_norm_rows(rows, n, x, w, b, has_w, has_b, eps, y, mean, rstd):
    # y = (x - mean) * rstd * w + b per row, the biased variance, as PyTorch's
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        s = 0.0
        for j in range(t, n, RED_THREADS):
            s += x[base + j]
        mu = _block_combine(acc, t, s, False) / n
        s = 0.0
        for j in range(t, n, RED_THREADS):
            d = x[base + j] - mu
            s += d * d
        rs = 1.0 / math.sqrt(_block_combine(acc, t, s, False) / n + eps)
        for j in range(t, n, RED_THREADS):
            v = (x[base + j] - mu) * rs
            if has_w:
                v = v * w[j]
            if has_b:
                v = v + b[j]
            y[base + j] = v
        if t == 0:
            mean[r] = mu
            rstd[r] = rs


@cuda_kernel
def layer_norm_backward_rows(rows, n, g, x, mean, rstd, w, has_w, gi):
    # gi = (gw - mean(gw) - xhat * mean(gw * xhat)) * rstd, gw = g * w (g without a weight)
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        mu = float64(mean[r])
        rs = float64(rstd[r])
        s1 = 0.0
        s2 = 0.0
        for j in range(t, n, RED_THREADS):
            gw = float64(g[base + j])
            if has_w:
                gw = gw * w[j]
            s1 += gw
            s2 += gw * (x[base + j] - mu) * rs
        a = _block_combine(acc, t, s1, False) / n
        c = _block_combine(acc, t, s2, False) / n
        for j in range(t, n, RED_THREADS):
            gw = float64(g[base + j])
            if has_w:
                gw = gw * w[j]
            gi[base + j] = (gw - a - (x[base + j] - mu) * rs * c) * rs


@cuda_kernel
def layer_norm_backward_cols(n, rows, g, x, mean, rstd, gw, gb, want_w, want_b):
    # a thread per column j: gw[j] = sum over rows of g * xhat, gb[j] = sum of g
    j = cuda.grid(1)
    if j < n:
        sw = 0.0
        sb = 0.0
        for r in range(rows):
            v = float64(g[r * n + j])
            sb += v
            sw += v * (x[r * n + j] - mean[r]) * rstd[r]
        if want_w:
            gw[j] = sw
        if want_b:
            gb[j] = sb


@cuda_kernel
def nll_forward(rows, c, x, tgt, w, has_w, ignore, reduction, out, tw, err, code):
    # one block: per-row -w[t] * x[r, t] (``reduction`` 0: into out), their sum (2) or
    # weighted mean (1) into out[0], the total weight into tw[0]; a bad target is reported
    acc = cuda.shared.array(RED_THREADS, float64)
    t = cuda.threadIdx.x
    ls = 0.0
    ws = 0.0
    for r in range(t, rows, RED_THREADS):
        v = 0.0
        k = tgt[r]
        if k != ignore:
            k = resolve(k, c, err, code, 0)
            if k >= 0:
                wr = float64(w[k]) if has_w else 1.0
                v = -wr * x[r * c + k]  # an ignored row adds 0 even for a -inf logit; a zero weight: NaN, as the CPU's
                ws += wr
        ls += v
        if reduction == 0:
            out[r] = v
    ls = _block_combine(acc, t, ls, False)
    ws = _block_combine(acc, t, ws, False)
    if t == 0:
        tw[0] = ws
        if reduction == 2:
            out[0] = ls
        elif reduction == 1:
            out[0] = ls / ws if ws != 0.0 else math.nan


@cuda_kernel
def nll_backward(n, c, g, tgt, w, has_w, ignore, reduction, tw, gi):
    # gi[r, j] = -w[t] * grad (/ total weight for a mean) where j is row r's target, else 0
    i = cuda.grid(1)
    if i < n:
        r = i // c
        k = tgt[r]
        v = 0.0
        if k == i - r * c and k != ignore:
            v = -(float64(w[k]) if has_w else 1.0) * (g[r] if reduction == 0 else g[0])
            if reduction == 1:
                v = v / tw[0]
        gi[i] = v
