"""The only place numtorch applies Numba decorators (house options, caching, lazy compile).

Kernels compile lazily on first call per signature and are cached on disk, so
``import numtorch`` compiles nothing. Kernel modules are themselves imported lazily (see
``numtorch.kernels.load``), so ``import numtorch`` does not import Numba either.
"""

from __future__ import annotations

import importlib.util
import sys

import numba
import numba.np.linalg as _nb_linalg


# Note [Numba's BLAS probe]
# The first kernel a process loads (even from the disk cache) makes Numba import its lowering
# registries, and numba.np.arraymath runs ``_HAVE_BLAS = _check_blas()`` at import, which
# imports scipy.linalg (~0.12 s CPU, a third of a warm first op). The answer only picks how
# Numba compiles np.correlate/np.convolve; numtorch kernels use neither. Answer that one probe
# from the module finder instead of an import; later BLAS uses (np.dot typing) call the real
# ensure_blas, which imports scipy and checks the LAPACK integer width as before.
def _probe_blas_without_import():
    _nb_linalg.ensure_blas = _ensure_blas
    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")


_ensure_blas = _nb_linalg.ensure_blas
if "numba.np.arraymath" not in sys.modules:
    _nb_linalg.ensure_blas = _probe_blas_without_import

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


def scalar_overload(py_fn):
    """Per-type Numba implementations of a plain Python function called from kernels (a typer
    returning one implementation per argument type, inlined at each call site)."""
    from numba.extending import overload

    return overload(py_fn, inline="always")


def reassoc_kernel(fn):
    """A serial kernel whose float additions/products LLVM may reassociate (fastmath "reassoc"
    only: NaN, inf and signed zeros keep IEEE semantics), so that a fold ``s += x[i]`` becomes
    vector lanes. Only for leaf folds whose summation order is free (Note [Reduction order])."""
    return numba.njit(fastmath={"reassoc"}, **_OPTS)(fn)


def contract_helper(fn):
    """A scalar math helper (Note [Vectorizable exp]) compiled with fastmath "contract" only: a
    ``a * b + c`` may become one fused multiply-add (one rounding instead of two, never less
    accurate). Numba does not inline it, LLVM does, keeping those flags inside the caller's loop."""
    return numba.njit(fastmath={"contract"}, **_OPTS)(fn)
