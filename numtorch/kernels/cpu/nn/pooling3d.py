"""3-D pooling kernels on contiguous (P, D, H, W) volumes, P = N*C: the twins of
kernels/cpu/nn/pooling.py. One volume per iteration (parallel variants split volumes across
cores); max-pool indices are flat positions inside the input volume ((d * H + h) * W + w), as
PyTorch returns, so pooling.max_pool_backward scatters them back unchanged.

# Note [3-D pooling geometry]
# ``geo`` is one int64 array (D, H, W, KD, KH, KW, SD, SH, SW, PD, PH, PW, DD, DH, DW, OD, OH, OW)
# for the windowed pools and (D, H, W, OD, OH, OW) for the adaptive ones
# (ops/nn/pooling3d.py builds both).
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange
from numtorch.kernels.cpu.nn.pool_windows import max4_rows, take, window_lowest
from numtorch.kernels.cpu.nn.pooling import _adaptive_bounds, _end, _start


@inline
def _first(o, S, P, Dl, K, size):
    """Window [lo, hi) with step Dl of output o, clipped into [0, size) on the grid."""
    lo = o * S - P
    hi = min(lo + (K - 1) * Dl + 1, size)
    while lo < 0:
        lo += Dl
    return lo, hi


@inline
def _max_pool_volume(x, out, idx, p, geo):
    D, H, W, KD, KH, KW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    SD, SH, SW, PD, PH, PW = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11]
    DD, DH, DW, OD, OH, OW = geo[12], geo[13], geo[14], geo[15], geo[16], geo[17]
    xb = p * D * H * W
    ob = p * OD * OH * OW
    for od in range(OD):
        d0, d1 = _first(od, SD, PD, DD, KD, D)
        for oh in range(OH):
            h0, h1 = _first(oh, SH, PH, DH, KH, H)
            for ow in range(OW):
                w0, w1 = _first(ow, SW, PW, DW, KW, W)
                # start from the window's first element, as PyTorch from its first index: a float
                # -inf turned the best int64 into a float (2**63 - 1 came out as -2**63)
                at = (d0 * H + h0) * W + w0
                best = x[xb + at] if d0 < d1 and h0 < h1 and w0 < w1 else window_lowest(x)
                # while loops over flat offsets: Note [Window walks without trip counts]
                d = d0
                while d < d1:
                    r = (d * H + h0) * W + w0
                    r1 = (d * H + h1) * W
                    while r < r1:
                        q = r
                        q1 = r - w0 + w1
                        while q < q1:
                            v = x[xb + q]
                            if v > best or v != v:  # NaN wins, as in PyTorch's kernel
                                best = v
                                at = q
                            q += DW
                        r += DH * W
                    d += DD
                o = ob + (od * OH + oh) * OW + ow
                out[o] = best
                idx[o] = at


@inline
def _max_pool_volumes4(x, out, idx, p, geo):
    # volumes p .. p + 3 together: Note [Four planes per window]
    D, H, W, KD, KH, KW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    SD, SH, SW, PD, PH, PW = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11]
    DD, DH, DW, OD, OH, OW = geo[12], geo[13], geo[14], geo[15], geo[16], geo[17]
    V = D * H * W
    OV = OD * OH * OW
    xb = p * V
    o = p * OV
    for od in range(OD):
        d0, d1 = _first(od, SD, PD, DD, KD, D)
        for oh in range(OH):
            h0, h1 = _first(oh, SH, PH, DH, KH, H)
            for ow in range(OW):
                w0, w1 = _first(ow, SW, PW, DW, KW, W)
                at = (d0 * H + h0) * W + w0
                t0 = t1 = t2 = t3 = at
                if d0 < d1 and h0 < h1 and w0 < w1:
                    b0 = x[xb + at]
                    b1 = x[xb + V + at]
                    b2 = x[xb + 2 * V + at]
                    b3 = x[xb + 3 * V + at]
                    d = d0
                    while d < d1:
                        r = (d * H + h0) * W + w0
                        r1 = (d * H + h1) * W
                        b0, b1, b2, b3, t0, t1, t2, t3 = max4_rows(x, xb, V, r, r1, DH * W, w1 - w0, DW,
                                                                   b0, b1, b2, b3, t0, t1, t2, t3)  # fmt: skip
                        d += DD
                else:
                    b0 = b1 = b2 = b3 = window_lowest(x)
                out[o] = b0
                out[o + OV] = b1
                out[o + 2 * OV] = b2
                out[o + 3 * OV] = b3
                idx[o] = t0
                idx[o + OV] = t1
                idx[o + 2 * OV] = t2
                idx[o + 3 * OV] = t3
                o += 1


@kernel
def max_pool3d(x, out, idx, geo):
    """Max over each window of every volume; ``idx`` (int64) receives argmax positions."""
    P = out.size // (geo[15] * geo[16] * geo[17])
    G = P // 4 if geo[3] * geo[4] * geo[5] > 4 else 0  # as max_pool2d
    for g in range(G):
        _max_pool_volumes4(x, out, idx, 4 * g, geo)
    for p in range(4 * G, P):
        _max_pool_volume(x, out, idx, p, geo)


@parallel_kernel
def max_pool3d_parallel(x, out, idx, geo):
    P = out.size // (geo[15] * geo[16] * geo[17])
    if geo[3] * geo[4] * geo[5] > 4:
        for g in prange(P // 4):
            _max_pool_volumes4(x, out, idx, 4 * g, geo)
        for p in range(P - P % 4, P):
            _max_pool_volume(x, out, idx, p, geo)
    else:
        for p in prange(P):
            _max_pool_volume(x, out, idx, p, geo)


@inline
def _avg_range(o, S, P, K, size):
    lo = o * S - P
    hi = min(lo + K, size + P)
    return lo, hi, max(lo, 0), min(hi, size)


@inline
def _avg_volume(x, out, gi, grad, p, geo, cip, divisor, backward):
    D, H, W, KD, KH, KW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    SD, SH, SW, PD, PH, PW = geo[6], geo[7], geo[8], geo[9], geo[10], geo[11]
    OD, OH, OW = geo[15], geo[16], geo[17]
    xb = p * D * H * W
    ob = p * OD * OH * OW
    for od in range(OD):
        a0, a1, d0, d1 = _avg_range(od, SD, PD, KD, D)
        for oh in range(OH):
            b0, b1, h0, h1 = _avg_range(oh, SH, PH, KH, H)
            for ow in range(OW):
                c0, c1, w0, w1 = _avg_range(ow, SW, PW, KW, W)
                if divisor > 0:
                    n = divisor
                elif cip:
                    n = (a1 - a0) * (b1 - b0) * (c1 - c0)
                else:
                    n = (d1 - d0) * (h1 - h0) * (w1 - w0)
                o = ob + (od * OH + oh) * OW + ow
                empty = d0 >= d1 or h0 >= h1 or w0 >= w1
                if backward:
                    if empty:
                        continue
                    g = grad[o] / n
                    for d in range(d0, d1):
                        for h in range(h0, h1):
                            for w in range(w0, w1):
                                gi[xb + (d * H + h) * W + w] += g
                else:
                    acc = x.dtype.type(0)  # not x[0] * 0: a NaN or inf there would reach every window
                    for d in range(d0, d1):
                        for h in range(h0, h1):
                            for w in range(w0, w1):
                                acc += x[xb + (d * H + h) * W + w]
                    out[o] = 0 if empty else acc / n


@kernel
def avg_pool3d(x, out, geo, count_include_pad, divisor):
    """Window means; ``divisor`` > 0 overrides the window size (``divisor_override``)."""
    for p in range(out.size // (geo[15] * geo[16] * geo[17])):
        _avg_volume(x, out, out, out, p, geo, count_include_pad, divisor, False)


@parallel_kernel
def avg_pool3d_parallel(x, out, geo, count_include_pad, divisor):
    for p in prange(out.size // (geo[15] * geo[16] * geo[17])):
        _avg_volume(x, out, out, out, p, geo, count_include_pad, divisor, False)


@kernel
def avg_pool3d_backward(grad, gi, geo, count_include_pad, divisor):
    """The adjoint of ``avg_pool3d``: each window's grad / divisor added to its inputs."""
    for i in range(gi.size):
        gi[i] = 0
    for p in range(grad.size // (geo[15] * geo[16] * geo[17])):
        _avg_volume(gi, gi, gi, grad, p, geo, count_include_pad, divisor, True)


@inline
def _adaptive_volume(x, out, idx, gi, grad, p, geo, mode):
    # mode 0: mean, 1: mean's adjoint, 2: max with argmax
    D, H, W, OD, OH, OW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    xb = p * D * H * W
    ob = p * OD * OH * OW
    for od in range(OD):
        d0, d1 = _start(od, D, OD), _end(od, D, OD)
        for oh in range(OH):
            h0, h1 = _start(oh, H, OH), _end(oh, H, OH)
            for ow in range(OW):
                w0, w1 = _start(ow, W, OW), _end(ow, W, OW)
                o = ob + (od * OH + oh) * OW + ow
                n = (d1 - d0) * (h1 - h0) * (w1 - w0)
                if mode == 1:
                    g = grad[o] / n
                    for d in range(d0, d1):
                        for h in range(h0, h1):
                            for w in range(w0, w1):
                                gi[xb + (d * H + h) * W + w] += g
                elif mode == 0:
                    acc = x.dtype.type(0)
                    for d in range(d0, d1):
                        for h in range(h0, h1):
                            for w in range(w0, w1):
                                acc += x[xb + (d * H + h) * W + w]
                    out[o] = acc / n
                else:
                    at = (d0 * H + h0) * W + w0
                    best = x[xb + at]
                    for d in range(d0, d1):
                        for h in range(h0, h1):
                            for w in range(w0, w1):
                                v = x[xb + (d * H + h) * W + w]
                                if v > best or v != v:
                                    best = v
                                    at = (d * H + h) * W + w
                    out[o] = best
                    idx[o] = at


@kernel
def adaptive_avg_pool3d(x, out, geo):
    """Mean over the adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) of each volume."""
    idx = np.empty(0, np.int64)
    for p in range(out.size // (geo[3] * geo[4] * geo[5])):
        _adaptive_volume(x, out, idx, out, out, p, geo, 0)


@kernel
def adaptive_avg_pool3d_backward(grad, gi, geo):
    """The adjoint of ``adaptive_avg_pool3d``."""
    idx = np.empty(0, np.int64)
    for i in range(gi.size):
        gi[i] = 0
    for p in range(grad.size // (geo[3] * geo[4] * geo[5])):
        _adaptive_volume(gi, gi, idx, gi, grad, p, geo, 1)


@kernel
def adaptive_max_pool3d(x, out, idx, geo):
    """Max over the adaptive windows; ``idx`` receives flat argmax positions in the volume."""
    # bounds once per call (Note [Window walks without trip counts]), four volumes per window
    # (Note [Four planes per window]); the mode-2 walk of _adaptive_volume's order otherwise
    D, H, W, OD, OH, OW = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5]
    db = _adaptive_bounds(D, OD)
    hb = _adaptive_bounds(H, OH)
    wb = _adaptive_bounds(W, OW)
    V = D * H * W
    OV = OD * OH * OW
    P = out.size // OV
    p = 0
    while p < P:
        four = p + 4 <= P
        xb = p * V
        o = p * OV
        for od in range(OD):
            d0, d1 = db[2 * od], db[2 * od + 1]
            for oh in range(OH):
                h0, h1 = hb[2 * oh], hb[2 * oh + 1]
                for ow in range(OW):
                    w0, w1 = wb[2 * ow], wb[2 * ow + 1]
                    at = (d0 * H + h0) * W + w0
                    b0 = x[xb + at]
                    t0 = at
                    if four:
                        b1, b2, b3 = x[xb + V + at], x[xb + 2 * V + at], x[xb + 3 * V + at]
                        t1 = t2 = t3 = at
                        for d in range(d0, d1):
                            r = (d * H + h0) * W + w0
                            b0, b1, b2, b3, t0, t1, t2, t3 = max4_rows(x, xb, V, r, (d * H + h1) * W, W, w1 - w0, 1,
                                                                       b0, b1, b2, b3, t0, t1, t2, t3)  # fmt: skip
                        out[o + OV] = b1
                        out[o + 2 * OV] = b2
                        out[o + 3 * OV] = b3
                        idx[o + OV] = t1
                        idx[o + 2 * OV] = t2
                        idx[o + 3 * OV] = t3
                    else:
                        for d in range(d0, d1):
                            for h in range(h0, h1):
                                for w in range(w0, w1):
                                    q = (d * H + h) * W + w
                                    b0, t0 = take(x[xb + q], b0, t0, q)
                    out[o] = b0
                    idx[o] = t0
                    o += 1
        p += 4 if four else 1
