"""Small single-precision transforms as direct DFTs (kernels/cpu/fft_dft.py).

# Note [Direct DFT of small single-precision transforms]
# A (4, 6) float32 fft2 made two pocketfft gufunc calls (~1.8 us each, mostly the gufunc's
# per-call setup and plan lookup) and a Hermitian fill (~1.2 us) around ~0.1 us of arithmetic;
# PyTorch's whole call is ~5 us. A float32/complex64 C-contiguous array whose transformed
# lengths are at most _MAX_N and whose work (elements x lengths) is at most _MAX_WORK is
# transformed instead by one kernel call: a direct O(n) sum an output along each axis, in
# float64 from float64 roots, rounded into the complex64 result after each axis (within float32
# rounding of pocketfft's float32 loop and closer to the exact transform). A real signal's full
# spectrum is mirrored inside the r2c pass (no separate fill), and an inverse transform of a
# real signal (the conjugate of the forward one) negates the imaginary parts as it stores the
# last axis: the bits of conj_physical of the forward result. c2c_array, r2c_array and
# c2r_array (ops/fft.py) take this route before anything else, so the ops' bodies, the fast
# calls (Note [FFT fast calls]) and backward compute the same bits. float64 keeps pocketfft
# (np.fft's bits). An input holding a NaN or an infinity takes pocketfft too (the kernels check
# and decline: a direct sum's inf * 0 gives NaN where pocketfft's butterflies give PyTorch's
# values), so c2c/r2c/c2r return None there. Tests: tests/ops/test_fft_dft_small.py.
"""

from __future__ import annotations

import numpy as np

from ..kernels import lazy

_K = lazy("numtorch.kernels.cpu.fft_dft")

_MAX_N = 32  # longest transformed axis
# elements x length summed over the axes: ~1 ns each in the kernel, where pocketfft's call
# costs ~1.5 us an axis; measured level at ~1000 (a (16, 8) fft2, a (4, 16) fft)
_MAX_WORK = 1024
_empty = np.empty
_F32 = np.dtype(np.float32)
_C64 = np.dtype(np.complex64)


def usable(a: np.ndarray, dims, n_last: int = 0) -> bool:
    """Whether a float32/complex64 ``a`` transformed over ``dims`` (wrapped) takes the direct
    DFTs (``n_last``: a c2r's output length along dims[-1])."""
    dt = a.dtype
    if (dt is not _F32 and dt is not _C64) or not dims or not a.flags.c_contiguous:
        return False
    shape = a.shape
    total = 0
    for d in dims:
        if d < 0:
            return False
        n = shape[d]
        if n > _MAX_N:
            return False
        total += n
    if n_last:
        if n_last > _MAX_N or shape[dims[-1]] != n_last // 2 + 1:
            return False
        total += n_last - shape[dims[-1]]
    size = a.size
    return 0 < size and size * total <= _MAX_WORK


def c2c(a: np.ndarray, dims, normalization: int, forward: bool):
    """The c2c transform of complex64 ``a`` over ``dims`` (usable(a, dims)); None where ``a``
    is not all finite."""
    out = _empty(a.shape, _C64)
    return out if _K.c2c_nd(a, out, tuple(dims), not forward, normalization) else None


def r2c(a: np.ndarray, dims, normalization: int, onesided: bool, conj: bool = False):
    """The r2c transform of float32 ``a`` (usable(a, dims)): the half spectrum along dims[-1] or
    the full one; with ``conj`` its conjugate; None where ``a`` is not all finite."""
    shape = a.shape
    last = dims[-1]
    n = shape[last]
    out = _empty(shape[:last] + (n // 2 + 1 if onesided else n,) + shape[last + 1 :], _C64)
    return out if _K.r2c_nd(a, out, tuple(dims), normalization, -1.0 if conj else 1.0) else None


def c2r(a: np.ndarray, dims, normalization: int, last_n: int):
    """The c2r transform of complex64 ``a`` (usable(a, dims, last_n)): ``last_n`` real points
    along dims[-1] from its half spectrum there; None where ``a`` is not all finite."""
    shape = a.shape
    last = dims[-1]
    out = _empty(shape[:last] + (last_n,) + shape[last + 1 :], _F32)
    return out if _K.c2r_nd(a, out, tuple(dims), normalization) else None
