"""Counting kernels of the histc and unique fast calls (Note [Counting fast calls])."""

import numpy as np

from numtorch.kernels._jit import kernel


@kernel
def histc_counts(x, bins, lo, hi, counts):
    """counts[b] += 1 for each x in [lo, hi], b = int((x - lo) * bins / (hi - lo)) capped at
    bins - 1: histc's body's float64 arithmetic, operation for operation (NaN fails both tests)."""
    w = hi - lo
    top = bins - 1
    for i in range(x.shape[0]):
        v = np.float64(x[i])
        if v >= lo and v <= hi:
            b = np.int64((v - lo) * bins / w)
            counts[min(b, top)] += 1


@kernel
def unique_groups(aux, perm, vals, inv, cnt):
    """np.unique's groups of the sorted ``aux`` (``perm`` its argsort; equal_nan=False: a NaN
    differs from every neighbour): vals[g] the first of group g, cnt[g] its size, inv[perm[i]]
    the group of aux[i]; returns the number of groups."""
    g = -1
    for i in range(aux.shape[0]):
        if i == 0 or aux[i] != aux[i - 1]:
            g += 1
            vals[g] = aux[i]
            cnt[g] = 0
        cnt[g] += 1
        inv[perm[i]] = g
    return g + 1


@kernel
def argwhere_rows(x, shape, out):
    """out[j] = the C-order coordinates of the j-th nonzero of ``x`` (flat, C-contiguous, of
    ``shape``, a tuple of at least one size): np.argwhere's rows, written with a counter over
    the outer dims instead of a division per coordinate."""
    nd = len(shape) - 1
    last = shape[nd]
    pos = np.zeros(nd, np.int64)
    j = 0
    for o in range(x.size // last if last else 0):
        base = o * last
        for c in range(last):
            if x[base + c] != 0:
                for k in range(nd):
                    out[j, k] = pos[k]
                out[j, nd] = c
                j += 1
        k = nd - 1
        while k >= 0:
            pos[k] += 1
            if pos[k] < shape[k]:
                break
            pos[k] = 0
            k -= 1
