"""Sort kernels: a stable sort of contiguous rows, tiles sorted in shared memory, then one
merge launch per doubling of the run width, one thread per element (numtorch/cuda/_sort.py
runs the passes).

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
# Runs of width SORT_TILE come first from one launch, a block per tile of SORT_TILE elements
# (tiles start at multiples of SORT_TILE in a row, as the runs do): Note [CUDA bitonic tile
# sort]. Global passes follow from width SORT_TILE: a row of up to SORT_TILE elements takes one
# launch, a longer one log2(n / SORT_TILE) more.
#
# Note [CUDA bitonic tile sort]
# A tile is sorted in shared memory by a bitonic network over its length rounded up to a power
# of two P: log2(P) (log2(P) + 1) / 2 steps of P / 2 compare-exchanges, a barrier after each,
# every thread doing the same work (no data-dependent binary searches: the rank merge it
# replaced spent most of its time in divergent searches and 64-bit divisions). A bitonic
# network is not stable by itself, so it sorts (key, index) pairs in the total order of
# _before, which breaks ties by index: the result is exactly the stable sort's, as the merge
# passes need. Keys are float64 (float keys) or int64 (integer keys) in shared memory: exact, so
# the order is that of the original dtype. A block has SORT_TILE / 4 threads (each two
# compare-exchanges a step): ptxas gives the kernel 48 registers, so 1024-thread blocks would fit
# one to an SM and every barrier would stall it; 512-thread blocks (32 KiB of pairs each at
# SORT_TILE 2048) fit two, one computing while the other waits.
"""

from __future__ import annotations

from numba import cuda, float64, int64

from .._jit import cuda_device, cuda_kernel
from . import _SIM, SORT_TILE

# Note [Warp-synchronous bitonic steps]
# In a step of stride s <= 32, the compare-exchange q (thread t, t + T, ...) touches elements
# ((q & ~(s - 1)) << 1) | (q & (s - 1)) and that + s: a warp's 32 consecutive q (T is a multiple
# of 32) stay in one aligned segment of 64 elements, the same segments for every s <= 32. Two
# steps in a row both of stride <= 32 therefore exchange no data between warps, and a warp
# barrier (syncwarp: the lanes' shared-memory writes are visible to each other after it)
# orders them; a block barrier stays wherever either step's stride is larger, and after the
# last step. That leaves 21 of the 66 block barriers of a 2048-element tile. The simulator has
# no syncwarp and runs blocks of fewer than 32 threads: SORT_WARP 0 keeps every barrier there.
SORT_WARP = 0 if _SIM else 32
TOPK_MAX = 4 if _SIM else 16  # topk_rows: k at most (each thread's list is a local array)
TOPK_THREADS = 4 if _SIM else 128  # topk_rows: threads per block at most (a power of two)
_TOPK_SLOTS = TOPK_THREADS * TOPK_MAX  # a shared array's shape must be one global, not an expression


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
    ia = cuda.shared.array(SORT_TILE, int64)
    _tile_sort(n, kin, kout, iout, desc, ka, ia)


@cuda_kernel
def tile_sort_int(n, kin, kout, iout, desc):
    ka = cuda.shared.array(SORT_TILE, int64)
    ia = cuda.shared.array(SORT_TILE, int64)
    _tile_sort(n, kin, kout, iout, desc, ka, ia)


@cuda_device
def _tile_sort(n, kin, kout, iout, desc, ka, ia):
    # block b: tile b % tiles of row b // tiles (indices along the row made here: no iota pass),
    # a bitonic sort of (key, index) pairs in shared memory (Note [CUDA bitonic tile sort])
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    tiles = (n + SORT_TILE - 1) // SORT_TILE
    b = cuda.blockIdx.x
    r = b // tiles
    s0 = (b - r * tiles) * SORT_TILE
    ln = min(SORT_TILE, n - s0)
    base = r * n + s0
    P = 1
    while P < ln:
        P *= 2
    for j in range(t, P, T):  # coalesced loads; the padding (index -1) sorts after everything
        if j < ln:
            ka[j] = kin[base + j]
            ia[j] = s0 + j
        else:
            ia[j] = -1
    cuda.syncthreads()
    size = 2
    while size <= P:  # the same count of steps in every thread of the block: barriers match
        stride = size // 2
        while stride > 0:
            for q in range(t, P // 2, T):
                i = ((q & ~(stride - 1)) << 1) | (q & (stride - 1))
                j = i + stride
                if (i & size) == 0:  # an ascending run: j's element must not go first
                    swap = _before(ka[j], ia[j], ka[i], ia[i], desc)
                else:
                    swap = _before(ka[i], ia[i], ka[j], ia[j], desc)
                if swap:
                    kv = ka[i]
                    ka[i] = ka[j]
                    ka[j] = kv
                    iv = ia[i]
                    ia[i] = ia[j]
                    ia[j] = iv
            nxt = stride // 2 if stride > 1 else size  # the next step's stride
            if stride <= SORT_WARP and nxt <= SORT_WARP and not (size == P and stride == 1):
                cuda.syncwarp()  # Note [Warp-synchronous bitonic steps]
            else:
                cuda.syncthreads()
            stride //= 2
        size *= 2
    for j in range(t, ln, T):
        kout[base + j] = ka[j]
        iout[base + j] = ia[j]


@cuda_device
def _before(ka, ia, kb, ib, desc):
    """Whether (ka, ia) goes before (kb, ib): the stable order of the merge passes (NaN after
    every number, before them when descending; equal keys in index order), padding last."""
    if ia < 0 or ib < 0:
        return ib < 0 and ia >= 0
    anan = ka != ka
    bnan = kb != kb
    if anan and bnan or ka == kb:
        return ia < ib
    if anan or bnan:
        return anan if desc else bnan
    return ka > kb if desc else ka < kb


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


# Note [CUDA topk by selection]
# topk with k <= TOPK_MAX sorts nothing: a block per row (blocks loop over rows), each thread
# walking the row with a stride of the block and keeping the k first of its elements in the
# sort's total order (_before: NaN first when largest, equal keys by index) in a local sorted
# list, most elements rejected by one comparison with the list's last; the lists then go to
# shared memory and merge pairwise in log2(TOPK_THREADS) rounds (a barrier each), every merge
# keeping its k first. The order is total, so the result is exactly the first k of the stable
# sort, as the sort-and-cut it replaces (634 us for k = 10 of 2048 x 2048 on an H200, where
# PyTorch's radix select takes 120 us).
@cuda_kernel
def topk_rows_float(rows, n, k, x, vout, iout, desc):
    _topk_rows(rows, n, k, x, vout, iout, desc, cuda.local.array(TOPK_MAX, float64),
               cuda.local.array(TOPK_MAX, int64), cuda.shared.array(_TOPK_SLOTS, float64),
               cuda.shared.array(_TOPK_SLOTS, int64))  # fmt: skip


@cuda_kernel
def topk_rows_int(rows, n, k, x, vout, iout, desc):
    _topk_rows(rows, n, k, x, vout, iout, desc, cuda.local.array(TOPK_MAX, int64),
               cuda.local.array(TOPK_MAX, int64), cuda.shared.array(_TOPK_SLOTS, int64),
               cuda.shared.array(_TOPK_SLOTS, int64))  # fmt: skip


@cuda_device
def _topk_rows(rows, n, k, x, vout, iout, desc, lk, li, sk, si):
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        base = r * n
        for p in range(k):  # an empty list: padding (index -1) goes after everything
            lk[p] = 0
            li[p] = -1
        j = t
        v = x[base + min(j, n - 1)]
        while j < n:
            nv = x[base + min(j + T, n - 1)]  # the next load in flight while v is placed
            if _before(v, j, lk[k - 1], li[k - 1], desc):
                p = k - 1
                while p > 0 and _before(v, j, lk[p - 1], li[p - 1], desc):
                    lk[p] = lk[p - 1]
                    li[p] = li[p - 1]
                    p -= 1
                lk[p] = v
                li[p] = j
            v = nv
            j += T
        a = t * TOPK_MAX
        for p in range(k):
            sk[a + p] = lk[p]
            si[a + p] = li[p]
        step = 1
        while step < T:  # the same rounds in every thread: barriers match
            cuda.syncthreads()
            if t % (2 * step) == 0:
                b = (t + step) * TOPK_MAX
                ia = 0
                ib = 0
                for p in range(k):  # the k first of both lists (ia + ib == p < k: in bounds)
                    if _before(sk[b + ib], si[b + ib], sk[a + ia], si[a + ia], desc):
                        lk[p] = sk[b + ib]
                        li[p] = si[b + ib]
                        ib += 1
                    else:
                        lk[p] = sk[a + ia]
                        li[p] = si[a + ia]
                        ia += 1
                for p in range(k):
                    sk[a + p] = lk[p]
                    si[a + p] = li[p]
            step *= 2
        cuda.syncthreads()
        for p in range(t, k, T):
            vout[r * k + p] = sk[p]
            iout[r * k + p] = si[p]
        cuda.syncthreads()  # the row's results are read before the next row's lists go in
