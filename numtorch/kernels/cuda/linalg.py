"""Matrix products. Operands are contiguous row-major; float32 and float64 get their own
kernels because shared tiles' dtype is compile-time. Batched: blockIdx.z walks the batch (bmm,
and mm with one batch).

# Note [Register-tiled GEMM]
# float32 (what models train in): a block of MM_THREADS threads computes an MM_BM x MM_BN tile
# of the output. Per MM_BK-deep step it stages A's strip transposed (sa[kk, row]) and B's strip
# (sb[kk, col]) in shared memory, each thread loading MM_BM * MM_BK / MM_THREADS elements with
# consecutive threads on consecutive addresses; then each thread multiplies an MM_TM column of
# sa by an MM_TN row of sb into its MM_TM x MM_TN register patch: MM_TM + MM_TN shared loads per
# MM_TM * MM_TN multiply-adds, where one output per thread (float64's kernel) needs 2 per 1.
"""

from __future__ import annotations

from numba import cuda, float32, float64

from .._jit import cuda_kernel
from . import MM_BK, MM_BM, MM_BN, MM_THREADS, MM_TM, MM_TN, TILE

_A_LOADS = MM_BM * MM_BK // MM_THREADS
_B_LOADS = MM_BN * MM_BK // MM_THREADS
_TX = MM_BN // MM_TN  # threads along a tile row
_SA_ROW = MM_BM + 1  # one pad column: the transposed stores into sa hit distinct shared-memory banks


@cuda_kernel
def bmm_f32(a, b, out, m, k, n):
    sa = cuda.shared.array((MM_BK, _SA_ROW), float32)
    sb = cuda.shared.array((MM_BK, MM_BN), float32)
    acc = cuda.local.array((MM_TM, MM_TN), float32)
    ra = cuda.local.array(MM_TM, float32)
    rb = cuda.local.array(MM_TN, float32)
    tid = cuda.threadIdx.x
    tx = tid % _TX
    ty = tid // _TX
    z = cuda.blockIdx.z
    row0 = cuda.blockIdx.y * MM_BM
    col0 = cuda.blockIdx.x * MM_BN
    abase = z * m * k
    bbase = z * k * n
    for i in range(MM_TM):
        for j in range(MM_TN):
            acc[i, j] = float32(0.0)
    for t in range(0, k, MM_BK):
        for ld in range(_A_LOADS):
            e = tid + ld * MM_THREADS
            r = e // MM_BK
            c = e % MM_BK
            sa[c, r] = a[abase + (row0 + r) * k + t + c] if row0 + r < m and t + c < k else float32(0.0)
        for ld in range(_B_LOADS):
            e = tid + ld * MM_THREADS
            r = e // MM_BN
            c = e % MM_BN
            sb[r, c] = b[bbase + (t + r) * n + col0 + c] if t + r < k and col0 + c < n else float32(0.0)
        cuda.syncthreads()
        for kk in range(MM_BK):
            for i in range(MM_TM):
                ra[i] = sa[kk, ty * MM_TM + i]
            for j in range(MM_TN):
                rb[j] = sb[kk, tx * MM_TN + j]
            for i in range(MM_TM):
                for j in range(MM_TN):
                    acc[i, j] += ra[i] * rb[j]
        cuda.syncthreads()
    for i in range(MM_TM):
        r = row0 + ty * MM_TM + i
        if r < m:
            for j in range(MM_TN):
                c = col0 + tx * MM_TN + j
                if c < n:
                    out[z * m * n + r * n + c] = acc[i, j]


@cuda_kernel
def bmm_f64(a, b, out, m, k, n):
    sa = cuda.shared.array((TILE, TILE), float64)
    sb = cuda.shared.array((TILE, TILE), float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    z = cuda.blockIdx.z
    acc = 0.0
    for t in range((k + TILE - 1) // TILE):
        ka = t * TILE + tx
        kb = t * TILE + ty
        sa[ty, tx] = a[z * m * k + row * k + ka] if row < m and ka < k else 0.0
        sb[ty, tx] = b[z * k * n + kb * n + col] if kb < k and col < n else 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        out[z * m * n + row * n + col] = acc
