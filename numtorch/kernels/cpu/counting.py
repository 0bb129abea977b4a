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
