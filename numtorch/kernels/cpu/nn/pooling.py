"""Pooling kernels on contiguous (P, H, W) planes, P = N*C (a 1-D pool has H == 1).

Every forward works one plane per iteration (parallel variants split planes across cores);
backward kernels scatter into a zeroed ``grad_input`` plane by plane, so they need no atomics.
Max-pool indices are flat positions inside the input plane (h * W + w), as PyTorch returns.
"""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, kernel, parallel_kernel, prange, scalar_overload
from numtorch.kernels.cpu.nn.pool_windows import (
    max4,
    max_pool_plane,
    max_pool_planes4,
    sum4,
    take,
    window_lowest,
)
from numtorch.kernels.cpu.pointwise.scalar import div_trunc_int


def window_mean(acc, d):
    return acc / d


@scalar_overload(window_mean)
def _window_mean_typer(acc, d):
    # an integer window's mean is C++'s integer division (truncation), as PyTorch's kernel: the
    # float route rounded -9223372036854775807 / 2 to -2**62 (fuzz seed 62)
    if str(acc).startswith(("int", "uint")):
        return lambda acc, d: div_trunc_int(acc, d)
    return lambda acc, d: acc / d


@kernel
def max_pool2d(x, out, idx, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    """Max over each window of every plane; ``idx`` (int64) receives the argmax positions."""
    P = out.size // (OH * OW)
    G = P // 4 if KH * KW > 4 else 0  # windows of up to 4 elements: one plane at a time is faster
    for g in range(G):
        max_pool_planes4(x, out, idx, 4 * g, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)
    for p in range(4 * G, P):
        max_pool_plane(x, out, idx, p, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@parallel_kernel
def max_pool2d_parallel(x, out, idx, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    P = out.size // (OH * OW)
    if KH * KW > 4:
        for g in prange(P // 4):
            max_pool_planes4(x, out, idx, 4 * g, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)
        for p in range(P - P % 4, P):
            max_pool_plane(x, out, idx, p, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)
    else:
        for p in prange(P):
            max_pool_plane(x, out, idx, p, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW)


@kernel
def max_pool_backward(grad, idx, grad_input, HW, OHW):
    """``grad_input`` (P*HW,) = scatter-add of ``grad`` (P*OHW,) at the saved argmax positions."""
    for i in range(grad_input.size):
        grad_input[i] = 0
    for p in range(grad.size // OHW):
        gb = p * OHW
        xb = p * HW
        for o in range(OHW):
            grad_input[xb + idx[gb + o]] += grad[gb + o]


@kernel
def max_pool_gather(src, idx, out, HW, OHW):
    """``out`` (P*OHW,) = ``src`` (P*HW,) read at the argmax positions (max-pool double backward)."""
    for p in range(out.size // OHW):
        gb = p * OHW
        xb = p * HW
        for o in range(OHW):
            out[gb + o] = src[xb + idx[gb + o]]


@inline
def _avg_window(oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor):
    h0 = oh * SH - PH
    w0 = ow * SW - PW
    h1 = min(h0 + KH, H + PH)
    w1 = min(w0 + KW, W + PW)
    size = (h1 - h0) * (w1 - w0)
    h0 = max(h0, 0)
    w0 = max(w0, 0)
    h1 = min(h1, H)
    w1 = min(w1, W)
    if divisor > 0:
        d = divisor
    elif count_include_pad:
        d = size
    else:
        d = (h1 - h0) * (w1 - w0)
    return h0, h1, w0, w1, d


@inline
def _avg_pool_plane(x, out, p, H, W, KH, KW, SH, SW, PH, PW, OH, OW, cip, divisor):
    xb = p * H * W
    ob = p * OH * OW
    for oh in range(OH):
        for ow in range(OW):
            h0, h1, w0, w1, d = _avg_window(oh, ow, H, W, KH, KW, SH, SW, PH, PW, cip, divisor)
            acc = x.dtype.type(0)  # not x[0] * 0: a NaN or inf there would reach every window
            for h in range(h0, h1):
                for w in range(w0, w1):
                    acc += x[xb + h * W + w]
            if h0 >= h1 or w0 >= w1:
                out[ob + oh * OW + ow] = 0
            else:
                out[ob + oh * OW + ow] = window_mean(acc, d)


@kernel
def avg_pool2d(x, out, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor):
    """Window means; ``divisor`` > 0 overrides the window size (``divisor_override``)."""
    for p in range(out.size // (OH * OW)):
        _avg_pool_plane(x, out, p, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor)


@parallel_kernel
def avg_pool2d_parallel(x, out, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor):
    for p in prange(out.size // (OH * OW)):
        _avg_pool_plane(x, out, p, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor)


@kernel
def avg_pool2d_backward(grad, gi, H, W, KH, KW, SH, SW, PH, PW, OH, OW, count_include_pad, divisor):
    """The adjoint of ``avg_pool2d``: each window's grad / divisor added to its inputs."""
    for i in range(gi.size):
        gi[i] = 0
    for p in range(grad.size // (OH * OW)):
        xb = p * H * W
        gb = p * OH * OW
        for oh in range(OH):
            for ow in range(OW):
                h0, h1, w0, w1, d = _avg_window(
                    oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor
                )
                if h0 >= h1 or w0 >= w1:
                    continue
                g = grad[gb + oh * OW + ow] / d
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        gi[xb + h * W + w] += g


@inline
def _start(o, isz, osz):
    return (o * isz) // osz


@inline
def _end(o, isz, osz):
    return ((o + 1) * isz + osz - 1) // osz


@inline
def _adaptive_bounds(isz, osz):
    """[start, end) of the adaptive windows of every output position, interleaved (computed
    once per call: Note [Window walks without trip counts])."""
    b = np.empty(2 * osz, np.int64)
    for o in range(osz):
        b[2 * o] = _start(o, isz, osz)
        b[2 * o + 1] = _end(o, isz, osz)
    return b


# Note [Whole-plane means eight planes at a time]
# adaptive_avg_pool2d to 1x1 (global average pooling) sums each whole plane in one running sum,
# left to right: a chain of dependent additions per plane. Four planes at a time (Note [Four
# planes per window]) left the chain's latency in charge on the sweep's 4370 planes of 30
# elements (59 us, PyTorch 23). Eight running sums per pass keep each plane's additions in the
# same order (a whole window's rows, left to right, is the plane's flat order) and its mean the
# same division (the sum over the int count), so the values are unchanged.
@kernel
def adaptive_avg_pool2d(x, out, H, W, OH, OW):
    """Mean over the adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) of each plane."""
    hb = _adaptive_bounds(H, OH)
    wb = _adaptive_bounds(W, OW)
    HW = H * W
    OHW = OH * OW
    P = out.size // OHW
    p = 0
    if OHW == 1:  # Note [Whole-plane means eight planes at a time]
        while p + 8 <= P:
            xb = p * HW
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = x.dtype.type(0)
            for q in range(xb, xb + HW):
                s0 += x[q]
                s1 += x[q + HW]
                s2 += x[q + 2 * HW]
                s3 += x[q + 3 * HW]
                s4 += x[q + 4 * HW]
                s5 += x[q + 5 * HW]
                s6 += x[q + 6 * HW]
                s7 += x[q + 7 * HW]
            out[p] = s0 / HW
            out[p + 1] = s1 / HW
            out[p + 2] = s2 / HW
            out[p + 3] = s3 / HW
            out[p + 4] = s4 / HW
            out[p + 5] = s5 / HW
            out[p + 6] = s6 / HW
            out[p + 7] = s7 / HW
            p += 8
    while p < P:
        four = p + 4 <= P  # Note [Four planes per window]; the last P % 4 planes one by one
        xb = p * HW
        o = p * OHW
        for oh in range(OH):
            h0 = hb[2 * oh]
            h1 = hb[2 * oh + 1]
            for ow in range(OW):
                w0 = wb[2 * ow]
                w1 = wb[2 * ow + 1]
                n = (h1 - h0) * (w1 - w0)
                if four:
                    s0, s1, s2, s3 = sum4(x, xb, HW, h0 * W + w0, h1 * W, W, w1 - w0)
                    out[o] = s0 / n
                    out[o + OHW] = s1 / n
                    out[o + 2 * OHW] = s2 / n
                    out[o + 3 * OHW] = s3 / n
                else:
                    acc = x.dtype.type(0)  # as sum4's
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            acc += x[xb + h * W + w]
                    out[o] = acc / n
                o += 1
        p += 4 if four else 1


@kernel
def adaptive_avg_pool2d_backward(grad, gi, H, W, OH, OW):
    """The adjoint of ``adaptive_avg_pool2d``."""
    for i in range(gi.size):
        gi[i] = 0
    for p in range(grad.size // (OH * OW)):
        xb = p * H * W
        gb = p * OH * OW
        for oh in range(OH):
            h0 = _start(oh, H, OH)
            h1 = _end(oh, H, OH)
            for ow in range(OW):
                w0 = _start(ow, W, OW)
                w1 = _end(ow, W, OW)
                g = grad[gb + oh * OW + ow] / ((h1 - h0) * (w1 - w0))
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        gi[xb + h * W + w] += g


@kernel
def adaptive_max_pool2d(x, out, idx, H, W, OH, OW):
    """Max over the adaptive windows; ``idx`` receives flat argmax positions in the plane."""
    hb = _adaptive_bounds(H, OH)
    wb = _adaptive_bounds(W, OW)
    HW = H * W
    OHW = OH * OW
    P = out.size // OHW
    p = 0
    while p < P:
        four = p + 4 <= P  # Note [Four planes per window]; the last P % 4 planes one by one
        xb = p * HW
        o = p * OHW
        for oh in range(OH):
            h0 = hb[2 * oh]
            h1 = hb[2 * oh + 1]
            for ow in range(OW):
                w0 = wb[2 * ow]
                w1 = wb[2 * ow + 1]
                at = h0 * W + w0
                if four:
                    b0, b1, b2, b3, t0, t1, t2, t3 = max4(x, xb, HW, at, h1 * W, W, w1 - w0, 1)
                    out[o + OHW] = b1
                    out[o + 2 * OHW] = b2
                    out[o + 3 * OHW] = b3
                    idx[o + OHW] = t1
                    idx[o + 2 * OHW] = t2
                    idx[o + 3 * OHW] = t3
                else:
                    b0 = x[xb + at]
                    t0 = at
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            b0, t0 = take(x[xb + h * W + w], b0, t0, h * W + w)
                out[o] = b0
                idx[o] = t0
                o += 1
        p += 4 if four else 1


@inline
def _resample_plane(x, out, p, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1):
    # a one-tap axis (same index, second weight 0: nearest, padding, a 1-D op's unit height)
    # reads its tap once, so an inf stays inf instead of becoming inf * 0 = nan
    xb = p * H * W
    ob = p * OH * OW
    for oh in range(OH):
        r0 = xb + hi0[oh] * W
        r1 = xb + hi1[oh] * W
        a0 = hw0[oh]
        a1 = hw1[oh]
        one_row = r0 == r1 and a1 == 0
        for ow in range(OW):
            c0 = wi0[ow]
            c1 = wi1[ow]
            if c0 == c1 and ww1[ow] == 0:
                top = ww0[ow] * x[r0 + c0]
                bot = ww0[ow] * x[r1 + c0]
            else:
                top = ww0[ow] * x[r0 + c0] + ww1[ow] * x[r0 + c1]
                bot = ww0[ow] * x[r1 + c0] + ww1[ow] * x[r1 + c1]
            out[ob + oh * OW + ow] = a0 * top if one_row else a0 * top + a1 * bot


@kernel
def resample2d(x, out, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1):
    """Separable two-tap resampling of every plane: out[oh, ow] = sum over the taps
    (hi0/hi1 rows weighted hw0/hw1) x (wi0/wi1 columns weighted ww0/ww1). Nearest upsampling
    and reflect/replicate/circular padding are the one-tap case (weights 1 and 0)."""
    for p in range(out.size // (OH * OW)):
        _resample_plane(x, out, p, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1)


@parallel_kernel
def resample2d_parallel(x, out, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1):
    for p in prange(out.size // (OH * OW)):
        _resample_plane(x, out, p, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1)


@kernel
def resample2d_backward(grad, gi, H, W, OH, OW, hi0, hi1, hw0, hw1, wi0, wi1, ww0, ww1):
    """The adjoint of ``resample2d``: scatter-add into the zeroed planes of ``gi``."""
    for i in range(gi.size):
        gi[i] = 0
    for p in range(grad.size // (OH * OW)):
        xb = p * H * W
        gb = p * OH * OW
        for oh in range(OH):
            r0 = xb + hi0[oh] * W
            r1 = xb + hi1[oh] * W
            for ow in range(OW):
                g = grad[gb + oh * OW + ow]
                c0 = wi0[ow]
                c1 = wi1[ow]
                gi[r0 + c0] += hw0[oh] * ww0[ow] * g
                gi[r0 + c1] += hw0[oh] * ww1[ow] * g
                gi[r1 + c0] += hw1[oh] * ww0[ow] * g
                gi[r1 + c1] += hw1[oh] * ww1[ow] * g


@kernel
def max_pool1d_rows(x, out, L, K, S, P, D, OL):
    """max_pool1d's values over contiguous rows of ``L`` (no indices): the window walk and the
    comparisons of ``max_pool_plane`` with H == 1 (first element first, NaN wins), so the same
    values; ``max_pool_plane``'s 2-D loops cost ~3x on short rows."""
    for p in range(out.size // OL):
        xb = p * L
        ob = p * OL
        for o in range(OL):
            w0 = o * S - P
            w1 = min(w0 + (K - 1) * D + 1, L)
            while w0 < 0:
                w0 += D
            best = x[xb + w0] if w0 < w1 else window_lowest(x)
            w = w0 + D
            while w < w1:
                v = x[xb + w]
                if v > best or v != v:
                    best = v
                w += D
            out[ob + o] = best
