"""Sort kernels: a stable merge sort of contiguous rows, one launch per doubling of the run
width, one thread per element (numtorch/cuda/_sort.py runs the passes).

# Note [CUDA merge sort by ranks]
# At width ``w`` every row is made of sorted runs of ``w`` elements; a pass merges each pair of
# neighbouring runs. An element's place in the merged run is its rank in its own run plus the
# number of elements of the other run that go before it, found by a binary search there: for an
# element of the left run, the right run's elements strictly before it; for one of the right
# run, the left run's elements before or equal to it, so equal keys keep their index order
# (stable, as the CPU's NumPy argsort and PyTorch's ``stable=True``). Each pass reads one
# buffer and writes the other, with no shared memory and no synchronisation, so a row may be of
# any length: O(n log^2 n) work in log2(n) launches. NaN goes after every number (before them
# when descending), as in PyTorch.
"""

from __future__ import annotations

from numba import cuda

from .._jit import cuda_kernel


@cuda_kernel
def iota_rows(total, n, idx):
    i = cuda.grid(1)
    if i < total:
        idx[i] = i % n


@cuda_kernel
def merge_pass(total, n, w, kin, iin, kout, iout, desc):
    i = cuda.grid(1)
    if i < total:
        base = (i // n) * n
        j = i - base
        s = (j // (2 * w)) * (2 * w)
        mid = min(s + w, n)
        end = min(s + 2 * w, n)
        v = kin[i]
        vnan = v != v
        if j < mid:  # left run: count the right run's keys strictly before v
            lo = mid
            hi = end
            while lo < hi:
                m = (lo + hi) // 2
                u = kin[base + m]
                if desc:
                    before = u > v or (u != u and not vnan)
                else:
                    before = u < v or (vnan and u == u)
                if before:
                    lo = m + 1
                else:
                    hi = m
            pos = s + (j - s) + (lo - mid)
        else:  # right run: count the left run's keys before or equal to v
            lo = s
            hi = mid
            while lo < hi:
                m = (lo + hi) // 2
                u = kin[base + m]
                if desc:
                    after = v > u or (vnan and u == u)
                else:
                    after = v < u or (u != u and not vnan)
                if not after:
                    lo = m + 1
                else:
                    hi = m
            pos = s + (j - mid) + (lo - s)
        kout[base + pos] = v
        iout[base + pos] = iin[i]
