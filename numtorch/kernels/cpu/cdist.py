"""cdist of points with one or two coordinates in one pass (Note [Short-row cdist])."""

import math

from numtorch.kernels._jit import prange, serial_and_parallel

_CHUNK = 4096  # rows of results a task computes (the parallel kernel's unit)


def _short_rows(a, b, out, p1):
    """out[k, i, j] = the 2-norm (1-norm where ``p1``) of a[k or 0, i] - b[k or 0, j] for rows of
    one or two coordinates, in the arrays' dtype: one IEEE subtraction per coordinate, then the
    body's norm of the difference (one coordinate: its magnitude, as _norm_cpu's size-1 rule;
    two: x0*x0 + x1*x1 (|x0| + |x1|), whose order the norm's fold cannot change, and the
    2-norm's square root). A batch of one in ``a`` or ``b`` is read for every batch of ``out``."""
    B, P, R = out.shape
    M = a.shape[2]
    sa = 1 if a.shape[0] > 1 else 0
    sb = 1 if b.shape[0] > 1 else 0
    n = B * P
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        # batch and row stepped, not divided out per row (a division per row was ~1/4 of it)
        t0 = c * _CHUNK
        k = t0 // P
        i = t0 - k * P
        for _ in range(t0, min(n, t0 + _CHUNK)):
            ka = k * sa
            kb = k * sb
            x0 = a[ka, i, 0]
            if M == 1:
                for j in range(R):
                    out[k, i, j] = abs(x0 - b[kb, j, 0])
            elif p1:
                x1 = a[ka, i, 1]
                for j in range(R):
                    out[k, i, j] = abs(x0 - b[kb, j, 0]) + abs(x1 - b[kb, j, 1])
            else:
                x1 = a[ka, i, 1]
                for j in range(R):
                    d0 = x0 - b[kb, j, 0]
                    d1 = x1 - b[kb, j, 1]
                    out[k, i, j] = math.sqrt(d0 * d0 + d1 * d1)
            i += 1
            if i == P:
                i = 0
                k += 1


short_rows, short_rows_parallel = serial_and_parallel(_short_rows)


def _pair_grad(a, b, g, d, out, p1):
    """out[k, i, j, m] = g[k, i, j] (a[k or 0, i, m] - b[k or 0, j, m]) / d[k, i, j], +0 where
    d[k, i, j] == 0 (the 2-norm's _cdist_backward term), or g[k, i, j] sgn(a - b) where ``p1``:
    each the IEEE operations of the formula's ops, in their order (Note [cdist's own node])."""
    B, P, R, M = out.shape
    sa = 1 if a.shape[0] > 1 else 0
    sb = 1 if b.shape[0] > 1 else 0
    for t in prange(B * P):
        k = t // P
        i = t - k * P
        ka = k * sa
        kb = k * sb
        for j in range(R):
            gg = g[k, i, j]
            dd = d[k, i, j]
            for m in range(M):
                x = a[ka, i, m] - b[kb, j, m]
                if p1:
                    s = 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)
                    out[k, i, j, m] = gg * s
                elif dd == 0:
                    out[k, i, j, m] = 0.0
                else:
                    out[k, i, j, m] = gg * x / dd


pair_grad, pair_grad_parallel = serial_and_parallel(_pair_grad)
