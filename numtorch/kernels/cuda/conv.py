"""Convolution and pooling kernels on contiguous planes, one thread per output element.

# Note [CUDA im2col layout]
# im2col writes ``cols`` as (C*KH*KW, N, L) - the batch inside the rows, not outside - so that
# a convolution of every sample and group is one batched matmul (G, O/G, C/G*KH*KW) @
# (G, C/G*KH*KW, N*L), with no copy of the weight per sample; col2im reads that layout back.
# col2im and the avg-pool backward gather (each input element sums the windows that cover it)
# rather than scatter, so they need no atomics and the sums have a fixed order. The geometry
# arguments are the CPU kernels' (Note [Convolution geometry]); the pooling windows are the CPU
# kernels' own ``_avg_window`` (numba-cuda compiles the @inline function for the device).
"""

from __future__ import annotations

import math

from numba import cuda

from .._jit import cuda_device, cuda_kernel
from ..cpu.nn import pooling as cpu_pool
from . import _SIM

_avg_window = cpu_pool._avg_window.py_func if _SIM else cpu_pool._avg_window
_start = cpu_pool._start.py_func if _SIM else cpu_pool._start
_end = cpu_pool._end.py_func if _SIM else cpu_pool._end


# Note [CUDA im2col speed]
# Both kernels are bound by the memory of the big (C*KH*KW, N, L) matrix, ~KH*KW times the
# image: consecutive threads must touch consecutive addresses of it (one 128-byte transaction
# per warp), and index arithmetic must stay far below a few instructions per element. Integer
# division is ~20-70 instructions on the GPU (there is no divide unit; 64-bit operands go
# through a 32-bit path when they fit), so each thread decodes its position once and then
# walks the KH*KW taps with additions only. im2col: a thread per (c, n, oh, ow), ow fastest,
# writing one element of each of its KH*KW rows: each tap's stores of a warp are consecutive
# addresses of one row (coalesced), its loads consecutive input columns (coalesced, and the
# taps' overlapping loads hit L1). col2im: a thread per input element (n, c, h, w), w fastest,
# gathering the taps that read it: with stride 1 a warp's loads of a tap are consecutive
# columns of one row of ``cols``; a stride other than 1 costs one division per tap, taken
# only then (the branch is uniform over the launch).
@cuda_kernel
def im2col(total, x, xo, cols, N, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    i = cuda.grid(1)
    if i < total:
        L = OH * OW
        t = i // L  # each remainder as a - q * d: one division per pair, not two
        l = i - t * L  # noqa: E741
        c = t // N
        n = t - c * N
        oh = l // OW
        ow = l - oh * OW
        h0 = oh * SH - PH
        w0 = ow * SW - PW
        xb = xo + (n * C + c) * H * W
        step = N * L  # between consecutive rows (taps) of cols
        q = (c * KH * KW * N + n) * L + l
        for kh in range(KH):
            h = h0 + kh * DH
            inside = 0 <= h < H
            for kw in range(KW):
                w = w0 + kw * DW
                if inside and 0 <= w < W:
                    cols[q] = x[xb + h * W + w]
                else:
                    cols[q] = 0
                q += step


@cuda_kernel
def col2im(total, cols, out, N, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    # out (N, C, H, W) = the sum of the (C*KH*KW, N, L) columns that read each element
    i = cuda.grid(1)
    if i < total:
        t = i // W
        w = i - t * W
        u = t // H
        h = t - u * H
        n = u // C
        c = u - n * C
        L = OH * OW
        step = N * L
        acc = 0.0  # float64: not cols[0] * 0, which a NaN there would poison
        q = (c * KH * KW * N + n) * L  # row (c, kh = 0, kw = 0) of sample n
        for kh in range(KH):
            oh = _tap(h + PH - kh * DH, SH, OH)
            for kw in range(KW):
                ow = _tap(w + PW - kw * DW, SW, OW)
                if oh >= 0 and ow >= 0:
                    acc += cols[q + oh * OW + ow]
                q += step
        out[i] = acc


@cuda_device
def _tap(t, S, n):
    """The output position whose tap lands ``t`` past its window's start (stride ``S``, ``n``
    outputs), or -1: the division only for a stride other than 1."""
    if t < 0:
        return -1
    o = t
    if S != 1:
        o = t // S
        if o * S != t:
            return -1
    return o if o < n else -1


@cuda_kernel
def max_pool2d(total, x, xo, out, idx, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    i = cuda.grid(1)
    if i < total:
        p = i // (OH * OW)
        oh = (i // OW) % OH
        ow = i % OW
        xb = xo + p * H * W
        h0 = oh * SH - PH
        h1 = min(h0 + (KH - 1) * DH + 1, H)
        while h0 < 0:
            h0 += DH
        w0 = ow * SW - PW
        w1 = min(w0 + (KW - 1) * DW + 1, W)
        while w0 < 0:
            w0 += DW
        best = -math.inf
        at = h0 * W + w0
        for h in range(h0, h1, DH):
            for w in range(w0, w1, DW):
                v = x[xb + h * W + w]
                if v > best or v != v:  # NaN wins, as in PyTorch's kernel
                    best = v
                    at = h * W + w
        out[i] = best
        idx[i] = at


@cuda_kernel
def max_pool2d_backward(total, grad, go, idx, gi, HW, OHW):
    # gi zeroed first; overlapping windows may pick the same input: atomics
    i = cuda.grid(1)
    if i < total:
        cuda.atomic.add(gi, (i // OHW) * HW + idx[i], grad[go + i])


@cuda_kernel
def avg_pool2d(total, x, xo, out, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor):
    i = cuda.grid(1)
    if i < total:
        p = i // (OH * OW)
        oh = (i // OW) % OH
        ow = i % OW
        h0, h1, w0, w1, d = _avg_window(oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor)
        xb = xo + p * H * W
        acc = 0.0
        for h in range(h0, h1):
            for w in range(w0, w1):
                acc += x[xb + h * W + w]
        if h0 >= h1 or w0 >= w1:
            out[i] = 0
        else:
            out[i] = acc / d


@cuda_kernel
def avg_pool2d_backward(total, grad, go, gi, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor):
    # gather: each input element sums grad / divisor over the windows that cover it
    i = cuda.grid(1)
    if i < total:
        p = i // (H * W)
        h = (i // W) % H
        w = i % W
        gb = go + p * OH * OW
        acc = 0.0
        oh_lo = max(0, (h + PH - KH + SH) // SH)
        ow_lo = max(0, (w + PW - KW + SW) // SW)
        for oh in range(oh_lo, min(OH, (h + PH) // SH + 1)):
            for ow in range(ow_lo, min(OW, (w + PW) // SW + 1)):
                h0, h1, w0, w1, d = _avg_window(oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor)
                if h0 <= h < h1 and w0 <= w < w1:
                    acc += grad[gb + oh * OW + ow] / d
        gi[i] = acc


@cuda_kernel
def adaptive_avg_pool3d(total, x, xo, out, D, H, W, OD, OH, OW):
    # the mean over the window [floor(o*I/O), ceil((o+1)*I/O)) in each dim (the CPU kernel's);
    # a 2-d pool is D = OD = 1
    i = cuda.grid(1)
    if i < total:
        p = i // (OD * OH * OW)
        od = (i // (OH * OW)) % OD
        oh = (i // OW) % OH
        ow = i % OW
        d0, d1 = _start(od, D, OD), _end(od, D, OD)
        h0, h1 = _start(oh, H, OH), _end(oh, H, OH)
        w0, w1 = _start(ow, W, OW), _end(ow, W, OW)
        xb = xo + p * D * H * W
        acc = 0.0
        for d in range(d0, d1):
            for h in range(h0, h1):
                for w in range(w0, w1):
                    acc += x[xb + (d * H + h) * W + w]
        out[i] = acc / ((d1 - d0) * (h1 - h0) * (w1 - w0))


@cuda_kernel
def adaptive_avg_pool3d_backward(total, grad, go, gi, D, H, W, OD, OH, OW):
    # gather: each input element sums grad / window size over the windows that cover it
    i = cuda.grid(1)
    if i < total:
        p = i // (D * H * W)
        d = (i // (H * W)) % D
        h = (i // W) % H
        w = i % W
        gb = go + p * OD * OH * OW
        acc = 0.0
        for od in range(max(0, (d * OD) // D - 1), min(OD, ((d + 1) * OD) // D + 2)):
            d0, d1 = _start(od, D, OD), _end(od, D, OD)
            if d0 <= d < d1:
                for oh in range(max(0, (h * OH) // H - 1), min(OH, ((h + 1) * OH) // H + 2)):
                    h0, h1 = _start(oh, H, OH), _end(oh, H, OH)
                    if h0 <= h < h1:
                        for ow in range(max(0, (w * OW) // W - 1), min(OW, ((w + 1) * OW) // W + 2)):
                            w0, w1 = _start(ow, W, OW), _end(ow, W, OW)
                            if w0 <= w < w1:
                                acc += grad[gb + (od * OH + oh) * OW + ow] / ((d1 - d0) * (h1 - h0) * (w1 - w0))
        gi[i] = acc


@cuda_kernel
def adaptive_max_pool3d(total, x, xo, out, idx, D, H, W, OD, OH, OW):
    # the CPU kernels' max over [floor(o*I/O), ceil((o+1)*I/O)) per dim: the first maximum's flat
    # index in the volume, NaN wins; a 2-d pool is D = OD = 1 (its index is then in the plane)
    i = cuda.grid(1)
    if i < total:
        p = i // (OD * OH * OW)
        od = (i // (OH * OW)) % OD
        oh = (i // OW) % OH
        ow = i % OW
        d0, d1 = _start(od, D, OD), _end(od, D, OD)
        h0, h1 = _start(oh, H, OH), _end(oh, H, OH)
        w0, w1 = _start(ow, W, OW), _end(ow, W, OW)
        xb = xo + p * D * H * W
        best = -math.inf
        at = (d0 * H + h0) * W + w0
        for d in range(d0, d1):
            for h in range(h0, h1):
                for w in range(w0, w1):
                    v = x[xb + (d * H + h) * W + w]
                    if v > best or v != v:
                        best = v
                        at = (d * H + h) * W + w
        out[i] = best
        idx[i] = at
