"""Real-to-complex transforms of many short float32 rows as one float64 matrix product.

# Note [Short real rows by a DFT matrix]
# NumPy's pocketfft gufunc transforms a (rows, n) array one row at a time, a buffer copy and a
# plan call around a few dozen flops: a (21848, 6) float32 rfft/fft/ifft/ihfft took 2-2.6x
# PyTorch's time (~9 ns a row). The r2c transform along the last axis of a C-contiguous float32
# array of _MIN_SIZE elements on, with rows of 2.._MAX_N points, is instead the rows (cast to
# float64) times an (n, 2h) float64 matrix of the roots' real and imaginary parts (h output bins
# of the half spectrum, or all n for the full one): one BLAS dgemm, the output's interleaved
# re/im pairs rounded once into complex64. The sums are float64, as Note [Direct DFT of small
# single-precision transforms] (roots exact at the quarter turns and conjugate-symmetric, so a
# full spectrum is Hermitian bit for bit; values within float32 rounding of the exact transform,
# closer than pocketfft's float32 loop); the normalisation factor is folded into the matrix and
# a conjugated transform (ifft/ihfft of a real signal) is conjugated afterwards, as pocketfft's
# route does (ops/fft.py r2c_array). Input holding a NaN or an infinity is left to pocketfft (a
# product with a root's exact zero would give NaN where its butterflies give PyTorch's values).
# Measured (process time, 1 thread, rows of 6): pocketfft 204 us, this route ~140 (the dgemm
# ~90 of it); level with pocketfft at n = 8 (_MAX_N). r2c_array takes it right after the small
# direct DFTs, so bodies, fast calls and backward agree bit for bit. A float32 sgemm would take
# half the time but sums in float32 (a different accuracy class); a Numba kernel over the rows
# measured no faster than pocketfft. Tests: tests/ops/test_fft_rows.py.
"""

from __future__ import annotations

import numpy as np

_MAX_N = 8
_MIN_SIZE = 4096  # below: the gufunc's fixed ~2 us is not worth a BLAS call and two casts
_F32 = np.dtype(np.float32)
_C64 = np.dtype(np.complex64)
_PLANS: dict = {}
_isfinite = np.isfinite


def usable(a: np.ndarray, dims) -> bool:
    """Whether float32 ``a`` transformed over ``dims`` (one, the last) takes the matrix."""
    if a.dtype is not _F32 or len(dims) != 1 or not a.flags.c_contiguous:
        return False
    nd = a.ndim
    return dims[0] in (nd - 1, -1) and 2 <= a.shape[-1] <= _MAX_N and a.size >= _MIN_SIZE


def _root(n: int, e: int) -> tuple:
    """cos and sin of 2 pi e / n in float64, exact at the quarter turns, mirror-symmetric."""
    e %= n
    m = min(e, n - e)
    if m == 0:
        c, s = 1.0, 0.0
    elif 4 * m == n:
        c, s = 0.0, 1.0
    elif 2 * m == n:
        c, s = -1.0, 0.0
    else:
        a = (2.0 * np.pi / n) * m
        c, s = float(np.cos(a)), float(np.sin(a))
    return c, (s if e == m else -s)


def _matrix(n: int, bins: int, normalization: int) -> np.ndarray:
    """(n, 2 bins): column 2k the real part of w^(kj) = exp(-2 pi i kj / n), 2k + 1 the
    imaginary, times the normalisation factor."""
    key = (n, bins, normalization)
    w = _PLANS.get(key)
    if w is None:
        scale = (1.0, 1.0 / np.sqrt(n), 1.0 / n)[normalization]
        w = np.empty((n, 2 * bins))
        for j in range(n):
            for k in range(bins):
                c, s = _root(n, k * j)
                w[j, 2 * k], w[j, 2 * k + 1] = c * scale, -s * scale
        if len(_PLANS) > 64:
            _PLANS.clear()
        _PLANS[key] = w
    return w


def r2c(a: np.ndarray, normalization: int, onesided: bool, conj: bool = False):
    """The r2c transform of float32 ``a`` along its last axis (usable(a, dims)): the half
    spectrum or the full one, with ``conj`` its conjugate; None where ``a`` is not all finite."""
    if not _isfinite(a).all():
        return None
    n = a.shape[-1]
    bins = n // 2 + 1 if onesided else n
    y = a.reshape(-1, n).astype(np.float64) @ _matrix(n, bins, normalization)
    out = np.empty(a.shape[:-1] + (bins,), _C64)
    np.copyto(out.view(_F32).reshape(y.shape), y, casting="same_kind")
    return np.conjugate(out, out=out) if conj else out
