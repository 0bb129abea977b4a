"""Window folds of four planes at once for the pooling kernels (Note [Four planes per window])."""

from __future__ import annotations

from numtorch.kernels._jit import inline

# Note [Four planes per window]
# A max-pool window is a chain: each element's comparison waits for the previous best (and an
# average's sum for the previous partial sum), so a kernel that finished one window before
# starting the next ran at the chain's latency, ~3 ns an element: the sweep's adaptive max pool
# of (2185, 2, 5, 6) to 1x1 took 3.2x PyTorch's time (whose branches the tiled sample trains).
# The planes of a (P, H, W) input share their windows, so the 2-d kernels fold one window of
# four planes together: four independent chains the core overlaps. Each plane's fold still
# reads its elements in the one-plane order with the same comparison (NaN wins, the first
# maximum keeps its index) or the same running sum, so values and indices are the one-plane
# walk's bits; the last P % 4 planes take the one-plane walk.


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
