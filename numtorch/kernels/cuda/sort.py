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
# The passes below width SORT_TILE stay inside one tile of SORT_TILE elements (tiles start at
# multiples of SORT_TILE in a row, as the runs do), so one launch does them all: a block per
# tile, ranks computed the same way in shared memory (float keys as float64, integer keys as
# int64: exact, so the order is the same), a barrier between passes. Global passes follow from
# width SORT_TILE: a 2048-long row takes 2 launches instead of 11.
"""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import SORT_TILE


@cuda_kernel
def merge_pass(total, n, w, kin, iin, kout, iout, desc):
    i = cuda.grid(1)
    if i < total:
        base = (i // n) * n
        pos = _merged_pos(kin, base, i - base, n, w, kin[i], desc)
        kout[base + pos] = kin[i]
        iout[base + pos] = iin[i]


@cuda_kernel
def tile_sort_float(n, kin, kout, iout, desc):
    ka = cuda.shared.array(SORT_TILE, float64)
    kb = cuda.shared.array(SORT_TILE, float64)
    ia = cuda.shared.array(SORT_TILE, int64)
    ib = cuda.shared.array(SORT_TILE, int64)
    _tile_sort(n, kin, kout, iout, desc, ka, kb, ia, ib)


@cuda_kernel
def tile_sort_int(n, kin, kout, iout, desc):
    ka = cuda.shared.array(SORT_TILE, int64)
    kb = cuda.shared.array(SORT_TILE, int64)
    ia = cuda.shared.array(SORT_TILE, int64)
    ib = cuda.shared.array(SORT_TILE, int64)
    _tile_sort(n, kin, kout, iout, desc, ka, kb, ia, ib)


@cuda_device
def _tile_sort(n, kin, kout, iout, desc, ka, kb, ia, ib):
    # block b: tile b % tiles of row b // tiles, sorted into runs of its whole length (indices
    # along the row made here: no iota pass)
    t = cuda.threadIdx.x
    tiles = (n + SORT_TILE - 1) // SORT_TILE
    b = cuda.blockIdx.x
    s0 = (b % tiles) * SORT_TILE
    ln = min(SORT_TILE, n - s0)
    base = (b // tiles) * n + s0
    if t < ln:
        ka[t] = kin[base + t]
        ia[t] = s0 + t
    cuda.syncthreads()
    w = 1
    src = 0
    while w < ln:  # the same count of passes in every thread of the block: barriers match
        if t < ln:
            if src == 0:
                v = ka[t]
                p = _merged_pos(ka, 0, t, ln, w, v, desc)
                kb[p] = v
                ib[p] = ia[t]
            else:
                v = kb[t]
                p = _merged_pos(kb, 0, t, ln, w, v, desc)
                ka[p] = v
                ia[p] = ib[t]
        cuda.syncthreads()
        src = 1 - src
        w *= 2
    if t < ln:
        if src == 0:
            kout[base + t] = ka[t]
            iout[base + t] = ia[t]
        else:
            kout[base + t] = kb[t]
            iout[base + t] = ib[t]


@cuda_device
def _merged_pos(k, base, j, n, w, v, desc):
    """Where element j (key v) of a row at k[base:base + n] goes when width-w runs merge."""
    s = (j // (2 * w)) * (2 * w)
    mid = min(s + w, n)
    end = min(s + 2 * w, n)
    vnan = v != v
    if j < mid:  # left run: count the right run's keys strictly before v
        lo = mid
        hi = end
        while lo < hi:
            m = (lo + hi) // 2
            u = k[base + m]
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
            u = k[base + m]
            if desc:
                after = v > u or (vnan and u == u)
            else:
                after = v < u or (u != u and not vnan)
            if not after:
                lo = m + 1
            else:
                hi = m
        pos = s + (j - mid) + (lo - s)
    return pos


@cuda_kernel
def pick_sorted(rows, n, keys, idx, vout, iout, how, k):
    # one thread per sorted row (NaN last): how 0 the lower median, or the row's first NaN (the
    # first NaN of a stable sort: PyTorch's median); 1 the lower median of the non-NaN elements
    # (nanmedian; an all-NaN row gives its first element); 2 the k-th smallest (kthvalue)
    r = cuda.grid(1)
    if r < rows:
        base = r * n
        lo = 0
        hi = n  # binary search for the first NaN: NaN sorts after every number
        while lo < hi:
            mid = (lo + hi) // 2
            v = keys[base + mid]
            if v != v:
                hi = mid
            else:
                lo = mid + 1
        valid = lo
        if how == 2:
            p = k
        elif how == 1:
            p = (valid - 1) // 2 if valid > 0 else 0
        else:
            p = valid if valid < n else (n - 1) // 2
        vout[r] = keys[base + p]
        iout[r] = idx[base + p]


@cuda_kernel
def mode_sorted(rows, n, keys, idx, vout, iout):
    # one thread per stably sorted row: the CPU kernel's (kernels/cpu/reduction/core.py
    # mode_rows) longest run, the smallest value on ties, its last original index
    r = cuda.grid(1)
    if r < rows:
        base = r * n
        best = 0
        bcount = 0
        start = 0
        for j in range(1, n + 1):
            if j == n or keys[base + j] != keys[base + start]:
                if j - start > bcount:
                    bcount = j - start
                    best = start
                start = j
        last = idx[base + best]
        for j in range(best, best + bcount):
            last = max(last, idx[base + j])
        vout[r] = keys[base + best]
        iout[r] = last
