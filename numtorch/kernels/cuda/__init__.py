"""``@cuda.jit`` kernels on raw device arrays (numtorch's CUDA backend).

Imported only once a CUDA tensor is made (``numtorch.cuda._install``). Block sizes are
module constants because shared-memory arrays need compile-time sizes; under Numba's CUDA
simulator every thread of a block is a Python thread, so blocks there are small.
"""

from __future__ import annotations

import os

_SIM = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
THREADS = 8 if _SIM else 256  # elementwise: threads per block
RED_THREADS = 4 if _SIM else 256  # reductions: a power of two (the shared-memory tree halves it)
RED_BLOCKS = 2 if _SIM else 65535  # reductions: blocks at most (each loops over its rows)
TILE = 4 if _SIM else 16  # float64 matmul: square tile edge (TILE * TILE threads per block)
# float32 matmul tiles (BM, BN, BK, TM, TN: Note [Register-tiled GEMM])
GEMM_TILES = {"small": (8, 8, 4, 2, 2), "big": (16, 16, 4, 4, 4)} if _SIM else \
    {"small": (64, 64, 16, 4, 4), "big": (128, 128, 8, 8, 8)}  # fmt: skip
SORT_TILE = 8 if _SIM else 2048  # sort: elements one block sorts in shared memory (a power of two)
