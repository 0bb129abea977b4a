"""The max-pool window walks of one plane and of four planes at once (Note [Window walks without
trip counts], Note [Four planes per window]) and the four-plane folds the pooling kernels share."""

from __future__ import annotations

import numpy as np

from numtorch.kernels._jit import inline, scalar_overload

# Note [Four planes per window]
# A max-pool window is a chain: each element's comparison waits for the previous best (and an
# average's sum for the previous partial sum), so a kernel that finished one window before
# starting the next ran at the chain's latency, ~3 ns an element: the sweep's adaptive max pool
# of (2185, 2, 5, 6) to 1x1 took 3.2x PyTorch's time (whose branches the tiled sample trains).
# The planes of a (P, H, W) input share their windows, so the kernels fold one window of four
# planes (volumes) together: four independent chains the core overlaps. Each plane's fold still
# reads its elements in the one-plane order with the same comparison (NaN wins, the first
# maximum keeps its index) or the same running sum, so values and indices are the one-plane
# walk's bits; the last P % 4 planes take the one-plane walk. Used by max_pool2d/3d where a
# window has more than 4 elements (a 2x2 window measured faster one plane at a time: its chain
# is short and the four planes' stores cost more), the adaptive 2-d pools and
# adaptive_max_pool3d; the parallel kernels split the four-plane groups across cores.


@inline
def take(v, best, at, q):
    """The max-pool step: v (at flat offset q) replaces best when greater or NaN."""
    if v > best or v != v:
        return v, q
    return best, at


@inline
def max4(x, b, HW, at, r1, RH, span, DW):
    """Maxima and argmax offsets of one window in the planes at b, b + HW, b + 2 HW, b + 3 HW:
    rows at flat offsets at, at + RH, ... < r1, each ``span`` long stepping DW."""
    b0 = x[b + at]
    b1 = x[b + HW + at]
    b2 = x[b + 2 * HW + at]
    b3 = x[b + 3 * HW + at]
    return max4_rows(x, b, HW, at, r1, RH, span, DW, b0, b1, b2, b3, at, at, at, at)


@inline
def max4_rows(x, b, HW, r, r1, RH, span, DW, b0, b1, b2, b3, t0, t1, t2, t3):
    """``max4``'s walk from running maxima (a 3-d window: one call per depth slice)."""
    while r < r1:
        q = r
        q1 = r + span
        while q < q1:
            b0, t0 = take(x[b + q], b0, t0, q)
            b1, t1 = take(x[b + HW + q], b1, t1, q)
            b2, t2 = take(x[b + 2 * HW + q], b2, t2, q)
            b3, t3 = take(x[b + 3 * HW + q], b3, t3, q)
            q += DW
        r += RH
    return b0, b1, b2, b3, t0, t1, t2, t3


@inline
def sum4(x, b, HW, at, r1, W, span):
    """Running sums (row by row, left to right) of one window in four planes, as ``max4``."""
    s0 = s1 = s2 = s3 = x.dtype.type(0)  # not x[0] * 0: a NaN or inf there would reach every window
    r = at
    while r < r1:
        for q in range(r, r + span):
            s0 += x[b + q]
            s1 += x[b + HW + q]
            s2 += x[b + 2 * HW + q]
            s3 += x[b + 3 * HW + q]
        r += W
    return s0, s1, s2, s3


# Note [Window walks without trip counts]
# A ``range(h0, h1, DH)`` with a run-time step computes its trip count with an integer division
# (and Python's floor rounding) each time it starts: the max-pool window loops started two such
# ranges per output (and ``_start``/``_end``'s divisions ran per output and plane in the
# adaptive pools). On the sweep's (2185, 2, 5, 6) 2x2 max pool those divisions were most of
# the kernel's ~18 ns per output (2.8x PyTorch). The windows are now walked with while loops
# over flat offsets (as max_pool1d_rows already was), and the adaptive pools compute their
# window bounds once per call, not per plane. The elements are read and compared in the same
# order, so values and indices are unchanged.
def window_lowest(x):
    return -np.inf


@scalar_overload(window_lowest)
def _window_lowest_typer(x):
    # an empty max window's value (dilation stepped its start past its end): PyTorch's -inf, or
    # the integer type's lowest value (std::numeric_limits::min); reading the window's first
    # element there read past the plane
    if str(x.dtype).startswith(("int", "uint")):
        lo = np.iinfo(str(x.dtype)).min
        return lambda x: x.dtype.type(lo)
    return lambda x: x.dtype.type(-np.inf)


@inline
def max_pool_plane(x, out, idx, p, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    xb = p * H * W
    o = p * OH * OW
    RH = DH * W
    for oh in range(OH):
        h0 = oh * SH - PH
        h1 = min(h0 + (KH - 1) * DH + 1, H)
        while h0 < 0:
            h0 += DH
        for ow in range(OW):
            w0 = ow * SW - PW
            w1 = min(w0 + (KW - 1) * DW + 1, W)
            while w0 < 0:
                w0 += DW
            # start from the window's first element, as PyTorch from its first index: a float
            # -inf turned the best int64 into a float (2**63 - 1 came out as -2**63)
            at = h0 * W + w0
            best = x[xb + at] if h0 < h1 and w0 < w1 else window_lowest(x)
            r = at
            r1 = h1 * W
            while r < r1:  # the window's rows h0, h0 + DH, ... < h1, as flat row starts
                q = r
                q1 = r - w0 + w1
                while q < q1:
                    v = x[xb + q]
                    # NaN wins, as in PyTorch's kernel
                    if v > best or v != v:
                        best = v
                        at = q
                    q += DW
                r += RH
            out[o] = best
            idx[o] = at
            o += 1


@inline
def max_pool_planes4(x, out, idx, p, H, W, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW):
    # planes p .. p + 3 together: Note [Four planes per window]
    HW = H * W
    OHW = OH * OW
    xb = p * HW
    o = p * OHW
    for oh in range(OH):
        h0 = oh * SH - PH
        h1 = min(h0 + (KH - 1) * DH + 1, H)
        while h0 < 0:
            h0 += DH
        for ow in range(OW):
            w0 = ow * SW - PW
            w1 = min(w0 + (KW - 1) * DW + 1, W)
            while w0 < 0:
                w0 += DW
            at = h0 * W + w0
            if h0 < h1 and w0 < w1:
                b0, b1, b2, b3, t0, t1, t2, t3 = max4(x, xb, HW, at, h1 * W, DH * W, w1 - w0, DW)
            else:
                b0 = b1 = b2 = b3 = window_lowest(x)
                t0 = t1 = t2 = t3 = at
            out[o] = b0
            out[o + OHW] = b1
            out[o + 2 * OHW] = b2
            out[o + 3 * OHW] = b3
            idx[o] = t0
            idx[o + OHW] = t1
            idx[o + 2 * OHW] = t2
            idx[o + 3 * OHW] = t3
            o += 1
