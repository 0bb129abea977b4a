"""The only place numtorch applies Numba decorators (house options, caching, lazy compile).

Kernels compile lazily on first call per signature and are cached on disk, so
``import numtorch`` compiles nothing. Kernel modules are themselves imported lazily (see
``numtorch.kernels.load``), so ``import numtorch`` does not import Numba either.
"""

from __future__ import annotations

import numba

_OPTS = dict(cache=True, nogil=True, error_model="numpy")

def kernel(fn):
    """A serial CPU kernel: ``@kernel def add_contig(a, b, out): ...``."""
    return numba.njit(**_OPTS)(fn)


def parallel_kernel(fn):
    """A CPU kernel whose ``numba.prange`` loops run on all cores."""
    return numba.njit(parallel=True, **_OPTS)(fn)


def inline(fn):
    """A scalar helper called from kernels; inlined into the caller's loop by Numba."""
    return numba.njit(inline="always", **_OPTS)(fn)


prange = numba.prange
