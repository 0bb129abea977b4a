"""Matrix products: a tiled shared-memory GEMM (TILE x TILE threads per block, each computing
one output element from TILE-wide strips of A and B staged in shared memory). Operands are
contiguous row-major; float32 and float64 get their own kernels because the shared tiles'
dtype is compile-time. Batched: blockIdx.z walks the batch (bmm, and mm with one batch)."""

from __future__ import annotations

from numba import cuda, float32, float64

from .._jit import cuda_kernel
from . import TILE


@cuda_kernel
def bmm_f32(a, b, out, m, k, n):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    z = cuda.blockIdx.z
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        ka = t * TILE + tx
        kb = t * TILE + ty
        sa[ty, tx] = a[z * m * k + row * k + ka] if row < m and ka < k else float32(0.0)
        sb[ty, tx] = b[z * k * n + kb * n + col] if kb < k and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        out[z * m * n + row * n + col] = acc


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
