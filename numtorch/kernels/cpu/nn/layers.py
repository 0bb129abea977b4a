"""nn kernels: normalization (layer/group/batch norm share one apply and one backward),
embedding backward, GLU.

# Note [Normalization layout]
# Every normalization sees its input as a contiguous (A, C, S) block and one statistic
# (mean, rstd) per ``stat = a * SA + c // CG``: layer norm is (M, N, 1) with SA=1, CG=N (one
# statistic per row); group norm is (N, C, HxW) with SA=G, CG=C/G; batch norm is (N, C, HxW)
# with SA=0, CG=1 (one per channel). The affine weight and bias are indexed by ``c``. So one
# apply kernel and one backward kernel serve all three; only the moment kernels differ
# (contiguous rows vs channels strided across the batch).
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange
from numtorch.kernels.cpu.pointwise.vmath import vsigmoid


@kernel
def channel_moments(x, A, C, S, mean, var):
    """Per-channel mean and biased variance of an (A, C, S) block (batch norm statistics)."""
    for c in range(C):
        acc = 0.0
        for a in range(A):
            base = (a * C + c) * S
            for s in range(S):
                acc += x[base + s]
        m = acc / (A * S)
        sq = 0.0
        for a in range(A):
            base = (a * C + c) * S
            for s in range(S):
                d = x[base + s] - m
                sq += d * d
        mean[c] = m
        var[c] = sq / (A * S)


@inline
def _apply_row(x, out, mean, rstd, w, b, a, C, S, SA, CG, has_w, has_b):
    for c in range(C):
        st = a * SA + c // CG
        m = mean[st]
        r = rstd[st]
        scale = r * w[c] if has_w else r
        shift = b[c] if has_b else 0.0
        base = (a * C + c) * S
        for s in range(S):
            out[base + s] = (x[base + s] - m) * scale + shift


@kernel
def norm_apply(x, out, mean, rstd, w, b, A, C, S, SA, CG, has_w, has_b):
    """out = (x - mean[stat]) * rstd[stat] * w[c] + b[c]; Note [Normalization layout]."""
    for a in range(A):
        _apply_row(x, out, mean, rstd, w, b, a, C, S, SA, CG, has_w, has_b)


@parallel_kernel
def norm_apply_parallel(x, out, mean, rstd, w, b, A, C, S, SA, CG, has_w, has_b):
    for a in prange(A):
        _apply_row(x, out, mean, rstd, w, b, a, C, S, SA, CG, has_w, has_b)


@kernel
def norm_backward(go, x, mean, rstd, w, A, C, S, SA, CG, has_w, center, gi, gw, gb):
    """Gradients of ``norm_apply`` (Note [Normalization layout]).

    ``center``: the statistics came from ``x`` (training), so grad_input is
    rstd * (g - mean(g) - xhat * mean(g * xhat)) per statistic, g = go * w; otherwise (batch
    norm in eval) g * rstd. ``gi``, ``gw``, ``gb`` of size 0 are not computed.
    """
    nstat = mean.size
    sg = np.zeros(nstat)
    sgx = np.zeros(nstat)
    pw = np.zeros(C)
    pb = np.zeros(C)
    for a in range(A):
        for c in range(C):
            st = a * SA + c // CG
            m = mean[st]
            r = rstd[st]
            wc = w[c] if has_w else 1.0
            base = (a * C + c) * S
            for s in range(S):
                g = go[base + s]
                xh = (x[base + s] - m) * r
                pw[c] += g * xh
                pb[c] += g
                sg[st] += g * wc
                sgx[st] += g * wc * xh
    if gw.size:
        for c in range(C):
            gw[c] = pw[c]
    if gb.size:
        for c in range(C):
            gb[c] = pb[c]
    if gi.size == 0:
        return
    count = (A * C * S) // nstat
    for a in range(A):
        for c in range(C):
            st = a * SA + c // CG
            m = mean[st]
            r = rstd[st]
            wc = w[c] if has_w else 1.0
            mg = sg[st] / count
            mgx = sgx[st] / count
            base = (a * C + c) * S
            for s in range(S):
                g = go[base + s] * wc
                if center:
                    xh = (x[base + s] - m) * r
                    gi[base + s] = r * (g - mg - xh * mgx)
                else:
                    gi[base + s] = r * g


@kernel
def embedding_backward(grad, idx, out, D, padding_idx, scale_by_freq):
    """``out`` (V*D,) = rows of ``grad`` (n*D,) summed by index, skipping ``padding_idx``;
    with ``scale_by_freq`` each row's sum is divided by its index's count."""
    for i in range(out.size):
        out[i] = 0
    V = out.size // D
    counts = np.zeros(V, np.int64)
    if scale_by_freq:
        for k in range(idx.size):
            counts[idx[k]] += 1
    for k in range(idx.size):
        row = idx[k]
        if row == padding_idx:
            continue
        scale = 1.0 / counts[row] if scale_by_freq else 1.0
        for d in range(D):
            out[row * D + d] += grad[k * D + d] * scale


# For each a, the value half, the gate half and the output are contiguous blocks of H * B
# elements, so the loops run over those blocks whatever B is (over h then k they ran B
# iterations at a time: one each for the last dimension, 12x PyTorch's time), with vmath's
# sigmoid (Note [Vectorizable exp]) in the input dtype.
@kernel
def glu(x, out, A, H, B):
    """GLU on an (A, 2H, B) block: out (A, H, B) = first half * sigmoid(second half)."""
    n = H * B
    for a in range(A):
        ib = 2 * a * n
        ob = a * n
        for j in range(n):
            out[ob + j] = x[ib + j] * vsigmoid(x[ib + n + j])


@kernel
def glu_backward(grad, x, gi, A, H, B):
    """Gradient of ``glu`` w.r.t. its (A, 2H, B) input."""
    n = H * B
    one = x.dtype.type(1)
    for a in range(A):
        ib = 2 * a * n
        ob = a * n
        for j in range(n):
            s = vsigmoid(x[ib + n + j])
            g = grad[ob + j]
            gi[ib + j] = g * s
            gi[ib + n + j] = g * x[ib + j] * s * (one - s)


@kernel
def prelu_rows(x, w, out, C, S):
    """PReLU of an (A, C, S) block with one weight per channel (C = 1: one weight), as the
    _prelu_kernel Pointwise computes it (fast_nn's prelu fast call)."""
    for row in range(x.size // S):
        wc = w[row % C]
        for i in range(row * S, row * S + S):
            v = x[i]
            out[i] = v if v > 0 else wc * v


@kernel
def prelu_rows_backward(g, x, w, gi, gw, C, S):
    """_prelu_kernel_backward on an (A, C, S) block, one weight per channel: the input's and the
    (unreduced) weight's gradients, as its two Pointwise kernels compute them."""
    A = x.size // (C * S)
    for a in range(A):
        for c in range(C):
            wc = w[c]
            base = (a * C + c) * S
            for s in range(S):
                v = x[base + s]
                gv = g[base + s]
                if v > 0:
                    gi[base + s] = gv
                    gw[base + s] = 0
                else:
                    gi[base + s] = wc * gv
                    gw[base + s] = v * gv
